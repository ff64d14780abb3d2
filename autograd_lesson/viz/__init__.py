"""The graph view: snapshots of the computation graph, their pictures and text twins.

Apart from the engine: it reads only public introspection (``next_functions``,
``Node.saved_buffers()``, the ``autograd.graph`` event stream) and holds no strong reference
to any saved buffer.

    snap = take_snapshot([loss], names={"x": x, "loss": loss})
    print(ledger(snap))
    graph_view(snap)            # displays as SVG + PNG, text/plain is the ledger
    before_after_view(a, b)     # one picture: rows read ALIVE → FREED, nodes that ran marked

The same functions take real ``torch.Tensor`` roots and names (``viz.torch_graphs`` reads
them; it and torch are imported only when a torch tensor is passed): for the same program the
ledger and diff read the same, byte for byte, whichever engine ran it.

Large pictures fold what did not change into labelled groups so that they stay readable on a
laptop; ``fold=False`` draws the whole graph.
"""
import graphviz

from . import checks
from .dot import panels_dot, picture_dot, snapshot_dot
from .glance import GlanceView, legend_here
from .ledger import diff, ledger
from .modules import watch
from .record import Frame, Recording, record
from .render import GraphView, fit, fit_picture, render
from .snapshot import BufferInfo, LeafInfo, NodeInfo, Snapshot, reachable_nodes, take_snapshot


def _view(before, after, title, text, fold, legend=None):
    legend = legend_here() if legend is None else legend
    try:
        source, svg, *_ = fit_picture(before, after, title, 4 if fold else 0, legend)
    except graphviz.ExecutableNotFound:  # the view degrades to its text twin, with a hint
        return GlanceView(picture_dot(before, after, title, legend=legend), text)
    return GlanceView(source, text, svg)


def graph_view(snapshot, title=None, max_nodes=None, fold=True, legend=None):
    """A displayable picture of one snapshot whose text twin is its ledger; a large graph
    folds into labelled groups unless ``fold=False`` (``legend``: draw the legend; by
    default in a notebook's first picture only)."""
    checks.snapshot(snapshot, "graph_view()")
    title = snapshot.title if title is None else title
    return _view(snapshot, snapshot, title, ledger(snapshot, title), fold, legend)


def before_after_view(before, after, max_nodes=None, fold=True, picture_title=None,
                      legend=None):
    """One picture of a call's effect (buffer rows read ``ALIVE → FREED``, the nodes that ran
    highlighted, every node where it was) whose text twin is the ledger diff, titled
    "<before's title> → <after's title>" (``picture_title``: another title for the picture
    only, e.g. in the learner's language; the diff keeps the snapshots' titles)."""
    checks.snapshot(before, "before_after_view()", "two Snapshots (before, after)")
    checks.snapshot(after, "before_after_view()", "two Snapshots (before, after)")
    title = f"{before.title} → {after.title}"
    return _view(before, after, title if picture_title is None else picture_title,
                 diff(before, after, title=title), fold, legend)



__all__ = ["take_snapshot", "reachable_nodes", "Snapshot", "NodeInfo", "LeafInfo", "BufferInfo",
           "ledger", "diff", "snapshot_dot", "panels_dot", "picture_dot", "GraphView", "render",
           "graph_view", "before_after_view", "record", "Recording", "Frame", "watch"]
