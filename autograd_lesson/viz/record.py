"""Record what one call (a backward, an ``autograd.grad``) did, from the engine's event stream.

The recording keeps node *weak* references and plain data only, so it never keeps a graph,
and therefore never a saved buffer, alive. A step-through costs what changes: one snapshot
when a backward starts, then per executed node only that node's buffer states and its leaf's
``.grad``; a frame's full snapshot is rebuilt from those on demand. A caught exception is kept
without its traceback, whose frames would otherwise hold the failed graph (and its buffers)
in a reference cycle until ``gc.collect()``.
"""
import contextlib
import dataclasses
import gc
import weakref

from .._node import AccumulateGrad, GraphRoot
from ..autograd.graph import (BackwardFinished, BackwardStarted, BuffersReleased,
                              GradAccumulated, NodeFinished, observe)
from ..i18n import t
from .snapshot import COUNTS, _node_name, _short, node_ids, take_snapshot


def first_sentence(message):
    """The message up to its first '. ' (the stable part of PyTorch's longer errors)."""
    message = str(message).strip()
    cut = message.find(". ")
    return message if cut == -1 else message[: cut + 1]


def verdict(error):
    """One stable line for an outcome: '✗ RuntimeError: <first sentence>' or '✓ no error'."""
    if error is None:
        return t("verdict.no_error")
    return t("verdict.error", type=type(error).__name__, message=first_sentence(error))


class _Timeline:
    """A snapshot taken when a backward started, and what each later step changed."""

    def __init__(self, base):
        self.base = base
        self.updates = []  # (node id, ((state, current_version), ...), leaf grad or None)
        self._cache = {}
        self._index = None

    def snapshot_at(self, count, title="", failed=None):
        """The graph after the first ``count`` steps (``failed``: the node whose step raised)."""
        key = (count, title, failed)
        if key not in self._cache:  # one at a time: a slider asks for neighbouring frames
            self._cache = {key: dataclasses.replace(self.part(count, None, failed),
                                                    title=title)}
        return self._cache[key]

    def part(self, count, ids, failed=None, start=False):
        """``snapshot_at(count, failed=failed)`` (``start``: the base itself) of the nodes
        ``ids`` only (None: all), with the edges between them: a large graph's frame draws a
        window of boxes, and building every node's records for each frame made it cost what
        the whole graph costs."""
        base = self.base
        if self._index is None:  # per node id: its place, leaf, buffers and edges, once
            rows_of, edges_of = {}, {}
            for b in base.buffers:
                rows_of.setdefault(b.node_id, []).append(b)
            for edge in base.edges:
                edges_of.setdefault(edge[0], []).append(edge)
            self._index = ({n.id: k for k, n in enumerate(base.nodes)},
                           {leaf.id: leaf for leaf in base.leaves}, rows_of, edges_of)
        place, leaf_of, rows_of, edges_of = self._index
        # Node by node in the base's order, which is the base's order of its leaves, buffers
        # and edges too: both readers list them node by node.
        wanted = base.nodes if ids is None else [base.nodes[k] for k in
                                                 sorted(place[i] for i in ids)]
        ids = place if ids is None else ids
        latest = {}  # per node that ran: its buffers' states and its leaf's grad, the last seen
        for node_id, states, grad in self.updates[:count]:
            if node_id in ids:
                latest[node_id] = (states, grad)
        COUNTS["frame records"] += len(wanted)
        nodes, leaves, buffers, edges = [], [], [], []
        for node in wanted:
            i = node.id
            ran = i in latest
            if not start and (ran or i == failed or node.executed or node.failed):
                node = node._replace(executed=ran, failed=i == failed)
            nodes.append(node)
            if i in leaf_of:
                leaf = leaf_of[i]
                if ran and latest[i][1] is not None:
                    leaf = leaf._replace(grad=latest[i][1], accumulated=True)
                leaves.append(leaf)
            states = latest[i][0] if ran else ()
            for slot, b in enumerate(rows_of.get(i, ())):
                if slot < len(states) and states[slot] != (b.state, b.current_version):
                    b = b._replace(state=states[slot][0], current_version=states[slot][1])
                buffers.append(b)
            edges.extend(e for e in edges_of.get(i, ()) if e[1] in ids)
        return dataclasses.replace(base, nodes=tuple(nodes), leaves=tuple(leaves),
                                   buffers=tuple(buffers), edges=tuple(edges),
                                   roots=tuple(r for r in base.roots if r in ids), title="")


@contextlib.contextmanager
def collected_after():
    """No garbage collection inside (a step-through's recording and pictures): they make tens
    of thousands of short-lived objects, and in a process that imported torch each full
    collection they set off took ~80 ms, 9 backwards of the unrolled LSTM. Collected after
    as before: what they leave in cycles waits until the next collection."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


UNNAMED_LEAF = "a leaf.grad"  # what a frame says a gradient accumulated into, for a leaf
# the call was given no name for


class Frame:
    """One step of a backward: the node that ran and what it did; ``.snapshot`` is the graph
    after it (rebuilt on demand from the recording's timeline). ``.text``, its line, is in the
    lesson's language: node, slot and tensor names, gradients and PyTorch's message stay as
    they are, the words around them are English or Korean (lesson.set_language)."""

    __slots__ = ("step", "node_id", "node_name", "grads_in", "released", "accumulated",
                 "failed", "_timeline", "_count")

    def __init__(self, step, node_id, node_name, grads_in, released, accumulated, timeline,
                 count, failed=""):
        self.step, self.node_id, self.node_name = step, node_id, node_name
        self.grads_in, self.released, self.accumulated = grads_in, released, accumulated
        self.failed = failed  # the verdict line when this step raised
        self._timeline, self._count = timeline, count

    @property
    def snapshot(self):
        return self._timeline.snapshot_at(self._count, f"after step {self.step}",
                                          self.node_id if self.failed else None)

    @property
    def start(self):
        """The graph when this frame's backward started."""
        return self._timeline.base

    @property
    def text(self):
        parts = [t("frame.line", step=self.step, node_id=self.node_id, name=self.node_name)]
        if self.failed:
            return t("frame.raised", line=parts[0], verdict=self.failed)
        if self.grads_in:
            parts.append(t("frame.got", grads=self.grads_in))
        if self.released:
            parts.append(t("frame.released", slots=", ".join(
                s if s.startswith("saved_tensors") else f"_saved_{s}" for s in self.released)))
        if self.accumulated:
            target = t("frame.unnamed_leaf") if self.accumulated == UNNAMED_LEAF \
                else self.accumulated
            parts.append(t("frame.accumulated", target=target))
        return "; ".join(parts)


class Recording:
    def __init__(self):
        self._executed = weakref.WeakSet()
        self._failed = None
        self.error = None
        self.result = None
        self.frames = []
        self.calls = 0
        self._count = 0  # distinct nodes run, including ones made (and dropped) inside the call

    @property
    def executed(self):
        return set(self._executed)

    @property
    def failed(self):
        return self._failed() if self._failed is not None else None

    @property
    def executed_count(self):
        return self._count


def _summary(grads):
    shown = [_short(g._data) for g in grads if g is not None]
    return ", ".join(shown)


def record(call, roots=None, names=None, frames=False, max_frames=200, model=None, depth=None):
    """Run ``call()`` while observing the engine; exceptions are caught into ``.error``.

    With ``frames=True`` (and ``roots``), one :class:`Frame` per executed node is kept (and one
    for the node whose backward raised). ``model``: the call runs under ``viz.watch(model)``
    and the frames fold into its module boxes (``depth`` levels down).
    """
    import sys
    from .snapshot import _torch_passed
    if model is not None:
        from .modules import check_depth, watch
        check_depth(depth, "record()")
        with watch(model):
            if _torch_passed(list(roots or []), names):
                from . import torch_recording
                return torch_recording.record(call, roots, names, frames, max_frames,
                                              model=(model, depth))
            return _record(call, roots, names, frames, max_frames, model=(model, depth))
    if _torch_passed(list(roots or []), names):
        from . import torch_recording  # only now: torch stays optional
        return torch_recording.record(call, roots, names, frames, max_frames)
    if not roots and not names and "torch" in sys.modules:
        return _either(call, frames, max_frames)  # nothing says which engine the call uses
    return _record(call, roots, names, frames, max_frames)


def _either(call, frames, max_frames):
    """Record ``call`` on both engines: torch's recording if it ran a torch backward."""
    from . import torch_recording
    ours = {}

    def inside():
        ours["recording"] = _record(call, None, None, frames, max_frames)
        if ours["recording"].error is not None:
            raise ours["recording"].error  # for torch's recording to see (and place) it
        return ours["recording"].result
    theirs = torch_recording.record(inside, frames=frames, max_frames=max_frames)
    return theirs if theirs.calls else ours["recording"]


def _record(call, roots, names, frames, max_frames, model=(None, None)):
    recording = Recording()
    roots = list(roots or [])
    state = {"ids": None, "timeline": None}
    pending = {}
    ran = set()  # strong refs only while the call runs, so temporary nodes are counted too

    def start(event):
        starts = event.root.next_functions if isinstance(event.root, GraphRoot) else \
            [(event.root, 0)]
        new = [node for node, _ in starts if node is not None and
               (state["ids"] is None or node not in state["ids"])]
        if state["ids"] is None or new:
            # The backward may start from a tensor made inside ``call`` ((a + b).backward()):
            # draw from its root too (a GraphRoot stands for several roots: use those).
            roots.extend(n for n in new if not any(n is r for r in roots))
            state["ids"] = node_ids(roots)
            state["timeline"] = _Timeline(take_snapshot(roots, names, title="start",
                                                        model=model[0], depth=model[1]))

    def on_event(event):
        if isinstance(event, BackwardStarted) and frames:
            start(event)
        elif isinstance(event, NodeFinished):
            recording._executed.add(event.node)
            ran.add(event.node)
            if frames and len(recording.frames) < max_frames and state["timeline"]:
                node = event.node
                node_id = state["ids"].get(node, -1)
                timeline = state["timeline"]
                grad = None
                if isinstance(node, AccumulateGrad) and node.variable._grad is not None:
                    grad = _short(node.variable._grad._data)
                timeline.updates.append((node_id, tuple(
                    (b.state, b.current_version) for b in node.saved_buffers()), grad))
                recording.frames.append(Frame(
                    len(recording.frames) + 1, node_id, display_name(node, names),
                    _summary(event.grad_outputs), pending.pop("released", ()),
                    pending.pop("accumulated", ""), timeline, len(timeline.updates)))
        elif isinstance(event, BuffersReleased):
            pending["released"] = event.slots
        elif isinstance(event, GradAccumulated):
            label = next((n for n, t in (names or {}).items() if t is event.tensor), None)
            pending["accumulated"] = f"{label}.grad" if label else UNNAMED_LEAF
        elif isinstance(event, BackwardFinished):
            recording.calls += 1
            if event.failed_node is not None:
                recording._failed = weakref.ref(event.failed_node)
                if frames and state["timeline"] and len(recording.frames) < max_frames:
                    timeline = state["timeline"]
                    recording.frames.append(Frame(
                        len(recording.frames) + 1, state["ids"].get(event.failed_node, -1),
                        display_name(event.failed_node, names), "", (), "", timeline,
                        len(timeline.updates), failed=verdict(event.error)))

    with observe(on_event):
        try:
            recording.result = call()
        except Exception as error:  # the lesson shows it as one line, not a traceback
            recording.error = error.with_traceback(None)  # its frames would hold the graph
            error.__context__ = error.__cause__ = None
    recording._count = len(ran)
    ran.clear()
    return recording


def display_name(node, names):
    if isinstance(node, AccumulateGrad):
        label = next((n for n, t in (names or {}).items() if t is node.variable), None)
        if label:
            return f"AccumulateGrad ({label})"
    return _node_name(node)
