"""The graph view: snapshots of the computation graph, their pictures and text twins.

Apart from the engine: it reads only public introspection (``next_functions``,
``Node.saved_buffers()``, the ``autograd.graph`` event stream) and holds no strong reference
to any saved buffer.

    snap = take_snapshot([loss], names={"x": x, "loss": loss})
    print(ledger(snap))
    graph_view(snap)            # displays as SVG + PNG, text/plain is the ledger
"""
from .dot import panels_dot, snapshot_dot
from .ledger import diff, ledger
from .record import Frame, Recording, record
from .render import GraphView, render
from .snapshot import BufferInfo, LeafInfo, NodeInfo, Snapshot, reachable_nodes, take_snapshot


def graph_view(snapshot, title=None, max_nodes=60):
    """A displayable picture of one snapshot whose text twin is its ledger."""
    return GraphView(snapshot_dot(snapshot, title, max_nodes=max_nodes), ledger(snapshot, title))


def before_after_view(before, after, max_nodes=60):
    """Two titled panels (before / after a call) whose text twin is the ledger diff."""
    return GraphView(panels_dot([(before.title, before), (after.title, after)], max_nodes=max_nodes),
                     diff(before, after, title=f"{before.title} → {after.title}"))


__all__ = ["take_snapshot", "reachable_nodes", "Snapshot", "NodeInfo", "LeafInfo", "BufferInfo",
           "ledger", "diff", "snapshot_dot", "panels_dot", "GraphView", "render", "graph_view",
           "before_after_view", "record", "Recording", "Frame"]
