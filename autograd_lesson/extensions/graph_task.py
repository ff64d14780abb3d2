"""One running backward (PyTorch's GraphTask), and the extensions of the engine's loop that need
the whole backward rather than one node:

- **partial backward** (``autograd.grad``, ``backward(inputs=...)``): only nodes that lead to an
  input run (PyTorch's ``exec_info``), a node computes only the gradients that lead there
  (``task_should_compute_output``), and the gradient flowing into each input is captured;
- **anomaly mode**: nodes a backward creates (``create_graph``) remember the node that ran; a
  failure warns with the forward's stack; ``check_nan`` refuses a NaN gradient;
- **observers** of the event stream (``autograd.graph.observe``);
- **the stack of running backwards**, which checkpoint (one recomputation per backward) and
  ``register_multi_grad_hook`` (``_will_engine_execute_node``) read;
- **reentrant backward** (a custom Function's backward that calls ``backward()``): past
  ``MAX_DEPTH`` nested backwards on one thread, the next runs on a fresh thread
  (``run_reentrant``).

With none of the first three in use ``extended`` is False, and ``_engine.run_backward`` runs
each node itself.
"""
import contextlib
import contextvars
import itertools
import threading

from .. import _grad_mode
from . import anomaly_mode as _anomaly_mode
from .._node import AccumulateGrad
from .._fp_errors import ignore_fp_errors
from . import observers

_task_ids = itertools.count()
_running = []  # the GraphTasks of the backwards running now, innermost last
# PyTorch's engine runs a reentrant backward on the calling thread until it is this deep
# (``max_recursion_depth_``), then on a thread of its pool, whose stack starts empty.
MAX_DEPTH = 60
_depth = threading.local()  # nested backwards on this thread


class GraphTask:
    """What one backward needs besides the loop's own state."""

    def __init__(self, root, dependencies, keep_graph, create_graph, targets, accumulate):
        self.id = next(_task_ids)
        self.root, self.dependencies = root, dependencies
        self.keep_graph, self.create_graph, self.accumulate = keep_graph, create_graph, accumulate
        self.node = None  # the node running now (a failure names it)
        self.partial = bool(targets)
        self.needed = needed_nodes(root, targets, accumulate) if targets else None
        self.capture = {}
        for i, (node, nr) in enumerate(targets):
            self.capture.setdefault(node, []).append((nr, i))
        self.captured = [None] * len(targets)
        # The nodes a gradient is never routed to: those that lead to no input.
        self.skipped = (frozenset() if self.needed is None
                        else frozenset(dependencies).difference(self.needed, self.capture))
        self.anomaly = _anomaly_mode._enabled
        self.check_nan = self.anomaly and _anomaly_mode._check_nan
        self.observed = bool(observers._observers)
        self.extended = self.partial or self.anomaly or self.observed
        self._modes = contextlib.ExitStack()

    # -- the whole backward ----------------------------------------------------------------------
    def __enter__(self):
        if self.observed:
            observers._emit(observers.BackwardStarted(self.root, self.keep_graph, self.create_graph,
                                              self.accumulate))
        _running.append(self)
        # One error state for the whole walk, so that the formulas' ops find it on (a switch per
        # op otherwise); user code goes through call_with_user_fp_errors.
        self._modes.enter_context(_grad_mode.set_grad_enabled(self.create_graph))
        self._modes.enter_context(ignore_fp_errors())
        return self

    def __exit__(self, kind, error, traceback):
        try:
            self._modes.close()
            if error is not None:
                if self.anomaly and self.node is not None and isinstance(error, Exception):
                    _anomaly_mode.warn_failed(self.node)
                if self.observed:
                    observers._emit(observers.BackwardFinished(error, self.node))
        finally:
            _running.pop()
        if error is None and self.observed:
            observers._emit(observers.BackwardFinished(None, None))
        return False

    # -- one node ----------------------------------------------------------------------------
    def run_node(self, node, grads, call_function):
        """``call_function(node, grads)`` with the extensions around it: capture, skip, events,
        anomaly mode. None when a partial backward does not need the node."""
        for nr, index in self.capture.get(node, ()):
            self.captured[index] = grads[nr]
        if self.needed is not None and node not in self.needed:
            return None
        if self.observed:
            observers._emit(observers.NodeStarted(node, tuple(grads)))
        mask = None if self.needed is None else should_compute(node, self.needed, self.capture)
        if self.anomaly:  # nodes the backward creates (create_graph) remember this one
            outputs = _anomaly_mode.run_as_parent(node, call_with_mask, grads, mask, call_function)
        else:
            outputs = call_with_mask(node, grads, mask, call_function)
        if self.observed and type(node) is AccumulateGrad and grads[0] is not None:
            observers._emit(observers.GradAccumulated(node, node.variable, node.variable._grad))
        return outputs

    def node_finished(self, node, grads, outputs, released):
        if self.observed:
            if released:
                observers._emit(observers.BuffersReleased(node, tuple(released)))
            observers._emit(observers.NodeFinished(node, tuple(grads), tuple(outputs)))
        if self.check_nan:
            _anomaly_mode.check_nan(node, outputs)


def call_with_mask(node, grads, mask, call_function):
    """Run the node; in a partial backward a built-in op sees ``needs_input_grad`` narrowed to
    the gradients that lead to an input (a custom Function's stays as set at forward time, as in
    PyTorch)."""
    if mask is None or node._static_needs_input_grad or "needs_input_grad" not in node.__dict__:
        return call_function(node, grads)
    needs = node.needs_input_grad
    node.needs_input_grad = tuple(n and m for n, m in zip(needs, mask))
    try:
        return call_function(node, grads)
    finally:
        node.needs_input_grad = needs


def needed_nodes(root, targets, accumulate):
    """Nodes that lead to a target; with ``accumulate`` the target nodes themselves run too
    (PyTorch's ``init_to_execute``: a non-leaf input's node executes and is freed)."""
    target_nodes = {node for node, _ in targets}
    needed, done, stack = set(), set(), [(root, False)]
    while stack:  # iterative post-order: a node is needed if one of its children is
        node, expanded = stack.pop()
        if expanded:
            done.add(node)
            if any(c in needed or c in target_nodes for c, _ in node.next_functions if c is not None):
                needed.add(node)
            continue
        if node in done:
            continue
        stack.append((node, True))
        stack.extend((c, False) for c, _ in node.next_functions if c is not None and c not in done)
    if accumulate:
        needed |= target_nodes
    return needed


def should_compute(node, needed, capture):
    """Which of the node's gradients lead to an input (``task_should_compute_output``); None
    when all of them do."""
    mask = tuple(child is None or child in needed or child in capture  # None: needs no grad
                 for child, _ in node.next_functions)
    return None if all(mask) else mask


def will_engine_execute_node(node):
    """Whether the backward running now will run ``node`` (PyTorch's
    ``_will_engine_execute_node``, which ``register_multi_grad_hook`` counts with)."""
    if not _running:
        raise RuntimeError("_get_should_execute_nodes should only be called during the backward "
                           "pass")
    task = _running[-1]
    if task.needed is None:  # every node reachable from the roots runs
        return node is task.root or node in task.dependencies
    return node in task.needed or node in task.capture


def current_graph_task():
    """``(id, partial)`` of the backward running now, ``(-1, False)`` outside one. A checkpoint
    recomputes once per id; ``partial`` (``autograd.grad``, ``inputs=``) is what the reentrant
    checkpoint refuses."""
    return (_running[-1].id, _running[-1].partial) if _running else (-1, False)


def run_reentrant(run_backward, *args):
    """``run_backward(*args)``, on a fresh thread when this thread already runs ``MAX_DEPTH``
    nested backwards: Python's recursion limit, like the C++ stack PyTorch guards, is per
    thread, so a 2,000-deep reentrant backward runs instead of raising RecursionError. The
    caller waits; the thread sees the caller's context (NumPy's error state) and its error."""
    depth = getattr(_depth, "value", 0)
    if depth < MAX_DEPTH:
        _depth.value = depth + 1
        try:
            return run_backward(*args)
        finally:
            _depth.value = depth
    outcome = {}
    context = contextvars.copy_context()

    def work():
        try:
            outcome["value"] = context.run(run_reentrant, run_backward, *args)
        except BaseException as error:  # noqa: BLE001  (raised again on the caller's thread)
            outcome["error"] = error
    thread = threading.Thread(target=work, name="autograd reentrant backward")
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
