"""Recording a real PyTorch backward for the view: which nodes ran (``record``, with frames for a
step-through) and what each saved slot held.

Imported only when torch is in use (``viz.record`` given a ``torch.Tensor``, or a call that ran
torch's backward); it reads graphs with ``viz.torch_graphs``.
The node hooks a recording registers are removed before :func:`record` returns.
"""
import inspect
import sys

from .torch_graphs import (_MAX_MEMO, _custom_items, _is_accumulate, _read, _readable,
                           _retained, key, node_name, reachable, remember, short,
                           walking_once)
from .record import UNNAMED_LEAF, Frame, _Timeline, verdict
from .snapshot import take_snapshot
from .torch_births import state as known_state


class Recording:
    """What one recorded call did on a torch graph, as plain keys (no node, no tensor)."""

    def __init__(self):
        self.executed = set()
        self.failed = None
        self.error = None
        self.result = None
        self.frames = []
        self.calls = 0

    @property
    def executed_count(self):
        return len(self.executed)


def _tensors_in(value):
    torch = sys.modules["torch"]
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _tensors_in(v)]
    return []


def record(call, roots=None, names=None, frames=False, max_frames=200, model=(None, None)):
    """Run ``call()`` with a pre and a post hook on every node a backward inside it can reach
    (the roots' graph, and any graph a ``backward()`` / ``autograd.grad()`` call starts from),
    all removed before returning; exceptions are caught into ``.error``."""
    torch = sys.modules["torch"]
    from torch.overrides import TorchFunctionMode
    recording = Recording()
    started, ran, hooked, handles = {}, [], {}, []
    backwards = []  # per backward the mode saw, innermost last: [keeps its graph, task id]
    steps = _Steps(recording, list(roots or []), dict(names or {}), max_frames, model) \
        if frames else None

    def pre(node, k):
        def hook(grad_outputs):
            _keeps_graph_now(backwards)  # the first hook of a backward learns its task id
            if steps:
                steps.finish()  # the previous node has released its buffers by now
            started[k] = node
        return hook

    def post(node, k, accumulate):
        def hook(grad_inputs, grad_outputs):
            started.pop(k, None)
            recording.executed.add(k)
            keeps = _keeps_graph_now(backwards)
            if keeps is None:  # a backward the mode did not see: read after the call
                ran.append(node)
            elif keeps and not accumulate:  # its buffers stay: the frames say "retained"
                _retained.add(k)
            if steps:
                steps.pending = (node, grad_outputs)
        return hook

    def hook_graph(tensors, read=True):
        starts = [t for t in tensors if t.grad_fn is not None]
        if all(id(t.grad_fn) in hooked for t in starts):
            return  # hooked already, and so is everything it reaches
        nodes, _ = reachable(starts)
        if read:  # what each saved slot holds, before it is freed (unless read already)
            remember(nodes)
        for node in nodes:
            if id(node) not in hooked:
                hooked[id(node)] = node  # held only during the call: ids stay unique
                k = key(node)
                handles.append(node.register_prehook(pre(node, k)))
                handles.append(node.register_hook(post(node, k, _is_accumulate(node))))

    backward_calls = (torch.Tensor.backward, torch.autograd.backward, torch.autograd.grad)

    class _SeeBackward(TorchFunctionMode):
        """Hooks the graph a backward starts from (it may be made inside ``call``)."""

        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            if func in backward_calls:
                recording.calls += 1
                tensors = _tensors_in(list(args) + list(kwargs.values()))
                if steps:
                    steps.start(tensors)  # its snapshot reads the graph: hook_graph need not
                hook_graph(tensors)
                backwards.append([_keeps_graph(func, args, kwargs), None])
                try:
                    return func(*args, **kwargs)
                finally:
                    backwards.pop()
                    if steps:
                        steps.finish()
            return func(*args, **kwargs)

    if len(_retained) > _MAX_MEMO:
        _retained.clear()
    try:
        with walking_once():
            # With frames, the snapshot taken when the backward starts reads the graph.
            hook_graph(_tensors_in(list(roots or []) + list((names or {}).values())),
                       read=steps is None)
            with _SeeBackward():
                try:
                    recording.result = call()
                except Exception as error:  # the lesson shows it as one line, not a traceback
                    recording.error = error.with_traceback(None)
                    error.__context__ = error.__cause__ = None
    finally:
        for handle in handles:
            handle.remove()
        handles.clear()
        hooked.clear()
    for node in ran:  # post hooks run before torch releases a node's buffers
        if not _is_accumulate(node) and _readable(node):
            _retained.add(key(node))
    ran.clear()
    if recording.error is not None and started:
        recording.failed = next(reversed(started))
        if steps:
            steps.failed(started[recording.failed], recording.error)
    started.clear()
    if steps:
        steps.close()
    return recording


def _keeps_graph(backward, args, kwargs):
    """Whether a ``backward()`` / ``autograd.grad()`` call keeps its graph: ``retain_graph``,
    which defaults to ``create_graph``, as torch reads them (None if the call cannot be read:
    its nodes are then checked after the call)."""
    try:
        given = inspect.signature(backward).bind(*args, **kwargs).arguments
    except (TypeError, ValueError):
        return None
    retain = given.get("retain_graph")
    return bool(given.get("create_graph", False)) if retain is None else bool(retain)


def _keeps_graph_now(backwards):
    """Whether the backward running now keeps its graph; None unless it is the innermost one
    the recording saw start (a backward run inside a node's own backward, as a reentrant
    checkpoint does, is not seen: torch runs nodes without the mode)."""
    if not backwards:
        return None
    task = sys.modules["torch"]._C._current_graph_task_id()
    seen = backwards[-1]
    if seen[1] is None:  # its first hook, before any node of it can start another backward
        seen[1] = task
    return seen[0] if seen[1] == task else None


class _Steps:
    """Frames for a step-through: a snapshot when a backward starts, then per node that ran
    its buffer states (read when the next node starts, after torch released them)."""

    def __init__(self, recording, roots, names, max_frames, model=(None, None)):
        self.recording, self.roots, self.names = recording, roots, names
        self.model = model  # (model, depth): the frames fold into its module boxes
        self.max_frames = max_frames
        self.pending = None
        self.ids = None      # id(node) -> snapshot id, nodes held only during the call
        self.timeline = None
        self.rows = None     # node id -> its buffers in the start snapshot

    def start(self, tensors):
        torch = sys.modules["torch"]
        new = [t for t in tensors if isinstance(t, torch.Tensor) and t.grad_fn is not None
               and (self.ids is None or id(t.grad_fn) not in self.ids)]
        if self.ids is None or new:
            self.roots.extend(t for t in new if not any(t is r for r in self.roots))
            nodes, _ = reachable(self.roots)
            self.ids = {id(n): (i, n) for i, n in enumerate(nodes)}
            self.timeline = _Timeline(take_snapshot(  # (the reader's own, after model=)
                self.roots, self.names, title="start", model=self.model[0],
                depth=self.model[1]))
            self.rows = None

    def finish(self):
        if self.pending is None or self.timeline is None:
            self.pending = None
            return
        node, grad_outputs = self.pending
        self.pending = None
        if len(self.recording.frames) >= self.max_frames:
            return
        try:
            self._add_frame(node, grad_outputs)
        except Exception:  # noqa: BLE001  (the view must never break the user's backward:
            self.max_frames = len(self.recording.frames)  # its frames stop here, and the
            # title says so, "k of n steps (frames stop at k)")

    def _add_frame(self, node, grad_outputs):
        node_id = self.ids.get(id(node), (-1, None))[0]
        if self.rows is None:  # each node's buffers in the start snapshot, found once
            self.rows = {}
            for b in self.timeline.base.buffers:
                self.rows.setdefault(b.node_id, []).append(b)
        rows = self.rows.get(node_id, ())
        base = {b.slot: b.state for b in rows}
        states, released = [], []
        for b in rows:
            now = _state_now(node, b.slot)
            states.append(now)
            if now[0] == "freed" and base.get(b.slot) != "freed":
                released.append(b.slot)
        grad, accumulated, name = None, "", node_name(node)
        if _is_accumulate(node):
            label = next((n for n, t in self.names.items() if t is node.variable), None)
            if label:
                name = f"AccumulateGrad ({label})"
            accumulated = f"{label}.grad" if label else UNNAMED_LEAF
            if node.variable.grad is not None:
                grad = short(node.variable.grad)
        shown = ", ".join(short(g) for g in grad_outputs if g is not None)
        self.timeline.updates.append((node_id, tuple(states), grad))
        frames = self.recording.frames
        frames.append(Frame(len(frames) + 1, node_id, name, shown, tuple(released),
                            accumulated, self.timeline, len(self.timeline.updates)))

    def failed(self, node, error):
        if self.timeline is None or len(self.recording.frames) >= self.max_frames:
            return
        node_id = self.ids.get(id(node), (-1, None))[0]
        frames = self.recording.frames
        frames.append(Frame(len(frames) + 1, node_id, node_name(node), "", (), "",
                            self.timeline, len(self.timeline.updates),
                            failed=verdict(error)))

    def close(self):
        self.ids = None  # drop the nodes: the frames keep plain data only


def _state_now(node, slot):
    """(state, current version) of one saved slot, as a frame records it."""
    k = key(node)
    if slot.startswith("saved_tensors["):
        items = {name: (state, value) for name, state, value in _custom_items(node, k)}
        state, value = items.get(slot, ("freed", None))
    else:
        state, value = _read(node, slot, k)
    if state == "freed":
        return ("freed", None)
    if state == "stale":
        return ("stale", value[1])
    if state in ("alive", "list"):
        version = value._version if state == "alive" else None
        return (known_state(k, k in _retained), version)
    return (state, None)
