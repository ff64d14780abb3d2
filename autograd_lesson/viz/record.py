"""Record what one call (a backward, an ``autograd.grad``) did, from the engine's event stream.

The recording keeps node *weak* references and plain-data frames only, so it never keeps a
graph, and therefore never a saved buffer, alive.
"""
import weakref
from dataclasses import dataclass

from .._node import GraphRoot
from ..autograd.graph import (BackwardFinished, BackwardStarted, BuffersReleased,
                              GradAccumulated, NodeFinished, observe)
from .snapshot import node_ids, take_snapshot


@dataclass(frozen=True)
class Frame:
    """One step of a backward: the node that ran and what it did, plus the graph afterwards."""
    step: int
    node_id: int
    node_name: str
    grads_in: str
    released: tuple
    accumulated: str
    snapshot: object

    @property
    def text(self):
        parts = [f"step {self.step}: #{self.node_id} {self.node_name}"]
        if self.grads_in:
            parts.append(f"got grad {self.grads_in}")
        if self.released:
            parts.append("released " + ", ".join(
                s if s.startswith("saved_tensors") else f"_saved_{s}" for s in self.released))
        if self.accumulated:
            parts.append(f"accumulated into {self.accumulated}")
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
    from .snapshot import _short
    shown = [_short(g._data) for g in grads if g is not None]
    return ", ".join(shown)


def record(call, roots=None, names=None, frames=False, max_frames=200):
    """Run ``call()`` while observing the engine; exceptions are caught into ``.error``.

    With ``frames=True`` (and ``roots``), one :class:`Frame` per executed node is kept.
    """
    recording = Recording()
    roots = list(roots or [])
    ids = node_ids(roots) if frames else {}
    pending = {}
    ran = set()  # strong refs only while the call runs, so temporary nodes are counted too

    def on_event(event):
        nonlocal ids
        if isinstance(event, BackwardStarted) and frames and event.root not in ids:
            # The backward may start from a tensor made inside ``call`` ((a + b).backward()):
            # draw from its root too (a GraphRoot stands for several roots: use those).
            starts = event.root.next_functions if isinstance(event.root, GraphRoot) else \
                [(event.root, 0)]
            roots.extend(node for node, _ in starts if node is not None and node not in ids)
            ids = node_ids(roots)
        elif isinstance(event, NodeFinished):
            recording._executed.add(event.node)
            ran.add(event.node)
            if frames and len(recording.frames) < max_frames:
                node_id = ids.get(event.node, -1)
                snap = take_snapshot(roots, names, executed=recording.executed,
                                     title=f"after step {len(recording.frames) + 1}")
                recording.frames.append(Frame(
                    len(recording.frames) + 1, node_id, _name(event.node, names),
                    _summary(event.grad_outputs), pending.pop("released", ()),
                    pending.pop("accumulated", ""), snap))
        elif isinstance(event, BuffersReleased):
            pending["released"] = event.slots
        elif isinstance(event, GradAccumulated):
            label = next((n for n, t in (names or {}).items() if t is event.tensor), "a leaf")
            pending["accumulated"] = f"{label}.grad"
        elif isinstance(event, BackwardFinished):
            recording.calls += 1
            if event.failed_node is not None:
                recording._failed = weakref.ref(event.failed_node)

    with observe(on_event):
        try:
            recording.result = call()
        except Exception as error:  # the lesson shows it as one line, not a traceback
            recording.error = error
    recording._count = len(ran)
    return recording


def _name(node, names):
    from .._node import AccumulateGrad
    from .snapshot import _node_name
    if isinstance(node, AccumulateGrad):
        label = next((n for n, t in (names or {}).items() if t is node.variable), None)
        if label:
            return f"AccumulateGrad ({label})"
    return _node_name(node)
