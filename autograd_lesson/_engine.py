"""The backward engine: PyTorch's dependency-counting walk, kept small and iterative.

1. Count, for every node reachable from the roots, how many edges point at it.
2. Keep a ready queue of nodes whose count reached zero. Like PyTorch's CPU queue it pops the
   node with the highest sequence number (the newest); ``AccumulateGrad`` has the largest
   possible one, so a leaf's ``.grad`` is written as soon as its gradient is complete.
3. Run the node (under grad mode = ``create_graph``, and NumPy's ignore-all error state:
   PyTorch never warns of an inf or a nan; hooks and other user code run under the user's own
   state), check its gradients against its inputs' shapes, route them to ``next_functions``
   and, unless the graph is kept, release the node's saved tensors right away. A failure stops the walk where it is: what already ran stays run.
4. With ``inputs`` (``autograd.grad``, ``backward(inputs=...)``) only nodes that lead to them
   run, and a node computes only the gradients that lead there (PyTorch's exec_info and
   ``task_should_compute_output``): no other node is queued, so no other hook fires.

What hooks and backward formulas return is checked here, once, for every node (the messages
are PyTorch's).
"""
import heapq
import itertools

import numpy as np

from . import _anomaly_mode, _grad_mode
from ._node import UINT64_MAX, AccumulateGrad, GraphRoot, _type_string
from ._tensor import Tensor, make_tensor as _make  # (Tensor._make, bound once)
from .autograd import graph as _graph
from ._broadcast import is_expandable_to, sum_to
from ._fp_errors import call_with_user_fp_errors, ignore_fp_errors

_task_ids = itertools.count()
_tasks = []  # (id, runs only part of the graph) of the backwards running now, innermost last


_plans = []  # (reachable nodes, nodes that run or are captured or None) per running backward


def will_engine_execute_node(node):
    """Whether the backward running now will run ``node`` (PyTorch's
    ``_will_engine_execute_node``, which ``register_multi_grad_hook`` counts with)."""
    if not _plans:
        raise RuntimeError("_get_should_execute_nodes should only be called during the backward "
                           "pass")
    root, dependencies, needed, capture = _plans[-1]
    if needed is None:  # every node reachable from the roots runs
        return node is root or node in dependencies
    return node in needed or node in capture


def current_graph_task():
    """``(id, partial)`` of the backward running now, ``(-1, False)`` outside one. A checkpoint
    recomputes once per id; ``partial`` (``autograd.grad``, ``inputs=``) is what the reentrant
    checkpoint refuses."""
    return _tasks[-1] if _tasks else (-1, False)


def run_backward(roots, grad_roots, keep_graph, create_graph, targets=(), accumulate=True):
    """Backpropagate ``grad_roots`` from the root edges.

    ``targets`` are edges whose incoming gradient is wanted: ``autograd.grad`` captures and
    returns them; ``backward(inputs=...)`` accumulates only into them. With no targets, every
    reachable ``AccumulateGrad`` runs. Returns the captured gradients, one per target.
    """
    if len(roots) == 1:
        root, buffers = roots[0][0], {roots[0][0]: _slots(roots[0][0], {roots[0][1]: grad_roots[0]})}
    else:
        root = GraphRoot(roots)
        root._num_outputs = len(roots)
        buffers = {root: list(grad_roots)}
    dependencies = _count_dependencies(root)
    needed = _needed_nodes(root, targets, accumulate) if targets else None
    capture = {}
    for i, (node, nr) in enumerate(targets):
        capture.setdefault(node, []).append((nr, i))
    captured = [None] * len(targets)

    observers = _graph._observers
    if observers:
        _graph._emit(_graph.BackwardStarted(root, keep_graph, create_graph, accumulate))
    order = itertools.count()
    ready = [(-root._sequence_nr(), next(order), root)]
    node = None
    anomaly = _anomaly_mode._enabled
    check_nan = anomaly and _anomaly_mode._check_nan
    _tasks.append((next(_task_ids), bool(targets)))
    _plans.append((root, dependencies, needed, capture))
    try:
        # One error state for the whole walk, so that the formulas' ops find it on (a contextvar
        # switch per op otherwise); user code goes through call_with_user_fp_errors.
        with _grad_mode.set_grad_enabled(create_graph), ignore_fp_errors():
            while ready:
                node = heapq.heappop(ready)[2]
                grads = buffers.pop(node)
                if node._tensor_pre_hooks or node._retain_grad_refs or type(node) is AccumulateGrad:
                    grads = _run_tensor_hooks(node, grads)
                if capture:
                    for nr, index in capture.get(node, ()):
                        captured[index] = grads[nr]
                    if needed is not None and node not in needed:
                        continue
                mask = None if needed is None else _should_compute(node, needed, capture)
                if anomaly:  # nodes the backward creates (create_graph) remember this one
                    outputs = _anomaly_mode.run_as_parent(node, _execute, grads, keep_graph,
                                                          create_graph, observers, mask)
                else:
                    outputs = _execute(node, grads, keep_graph, create_graph, observers, mask)
                if check_nan:
                    _anomaly_mode.check_nan(node, outputs)
                for (child, nr), grad in zip(node.next_functions, outputs):
                    if child is None or (needed is not None and child not in needed
                                         and child not in capture):
                        continue
                    slots = buffers.get(child)
                    if slots is None:
                        slots = buffers[child] = [None] * child._num_outputs
                    if grad is not None:
                        old = slots[nr]
                        slots[nr] = grad if old is None else _add_gradients(old, grad, create_graph)
                    count = dependencies[child] - 1
                    dependencies[child] = count
                    if count == 0:  # (child._sequence_nr(), inlined: a call per edge otherwise)
                        seq = UINT64_MAX if type(child) is AccumulateGrad else child._id
                        heapq.heappush(ready, (-seq, next(order), child))
    except BaseException as error:
        if anomaly and node is not None and isinstance(error, Exception):
            _anomaly_mode.warn_failed(node)
        if observers:
            _graph._emit(_graph.BackwardFinished(error, node))
        raise
    finally:
        _tasks.pop()
        _plans.pop()
    if observers:
        _graph._emit(_graph.BackwardFinished(None, None))
    return captured


def _add_gradients(old, new, create_graph):
    """Two gradients for the same input (PyTorch's InputBuffer): recorded under create_graph,
    else one NumPy add (they have the input's shape and dtype, checked by ``_validate``)."""
    a, b = old._data, new._data
    if create_graph or a.dtype != b.dtype or a.shape != b.shape:
        return old + new
    return _make(a + b)  # (inf + -inf: nan, silently, under the walk's error state)


def _slots(node, by_nr):
    slots = [None] * node._num_outputs
    for nr, grad in by_nr.items():
        slots[nr] = grad
    return slots


def _count_dependencies(root):
    dependencies, stack = {}, [root]
    while stack:
        for child, _ in stack.pop().next_functions:
            if child is None:
                continue
            if child in dependencies:  # (seen before: the graph is acyclic, so not the root)
                dependencies[child] += 1
            else:
                dependencies[child] = 1
                stack.append(child)
    return dependencies


def _needed_nodes(root, targets, accumulate):
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


def _should_compute(node, needed, capture):
    """Which of the node's gradients lead to an input (``task_should_compute_output``); None
    when all of them do."""
    mask = tuple(child is None or child in needed or child in capture  # None: needs no grad
                 for child, _ in node.next_functions)
    return None if all(mask) else mask


def _typename(value):
    """Python's ``tp_name``, as PyTorch's messages print it (``float``, ``numpy.ndarray``)."""
    cls = type(value)
    if cls.__flags__ & (1 << 9) or cls.__module__ == "builtins":  # a class written in Python
        return cls.__name__
    return f"{cls.__module__}.{cls.__name__}"


def _hook_name(hook):
    name = getattr(hook, "__name__", None)
    return name if isinstance(name, str) else "<unknown>"


def _check_hook_value(original, result, hook):
    """PyTorch's ``check_single_result``: a hook may return None or a Tensor of the same type
    and size as the value it was given."""
    if result is None:
        return original
    if original is None:
        raise RuntimeError("can't replace a None gradient with a non-None value")
    if not isinstance(result, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{_typename(result)}'")
    if result.dtype != original.dtype:
        raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the type of value (was "
                           f"{_type_string(original)} got {_type_string(result)})")
    if result.shape != original.shape:
        raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the size of value")
    return result


def _check_hook_tuple(previous, result, hook):
    """PyTorch's ``check_result`` for node hooks: a tuple of the same length, each entry as
    :func:`_check_hook_value`."""
    if not isinstance(result, tuple):
        raise TypeError(f"expected tuple, but hook returned '{_typename(result)}'")
    if len(result) != len(previous):
        raise RuntimeError(f"hook '{_hook_name(hook)}' has returned an incorrect number of values "
                           f"(got {len(result)}, but expected {len(previous)})")
    # a None in the tuple replaces the gradient with None (only a hook's bare None keeps it)
    return [None if new is None else _check_hook_value(old, new, hook)
            for old, new in zip(previous, result)]


def _run_tensor_hooks(node, grads):
    if isinstance(node, AccumulateGrad):
        hooks = {0: node.variable._hooks} if node.variable._hooks else {}
    else:
        hooks = node._tensor_pre_hooks
    for nr, fns in hooks.items():
        for fn in list(fns):
            if grads[nr] is not None:
                grads[nr] = _check_hook_value(grads[nr], call_with_user_fp_errors(fn, grads[nr]),
                                              fn)
    for nr, ref in node._retain_grad_refs.items():
        tensor = ref()
        if tensor is not None and grads[nr] is not None:
            # PyTorch's retains_grad hook: a clone first, then ``grad = grad + new`` (a new
            # object each backward, unlike a leaf's in-place accumulation).
            old = tensor._grad
            tensor._grad = grads[nr].clone() if old is None else old + grads[nr]
    return grads


def _execute(node, grads, keep_graph, create_graph, observers, mask=None):
    if observers:
        _graph._emit(_graph.NodeStarted(node, tuple(grads)))
    if node._pre_hooks:  # AccumulateGrad's run too
        for hook in list(node._pre_hooks):
            new = call_with_user_fp_errors(hook, tuple(grads))
            if new is not None:
                grads = _check_hook_tuple(tuple(grads), new, hook)
    if type(node) is AccumulateGrad:
        if grads[0] is not None:
            variable = node.variable
            _accumulate_into(variable, grads[0], create_graph)
            if observers:
                _graph._emit(_graph.GradAccumulated(node, variable, variable._grad))
            for hook in list(variable._post_accumulate_grad_hooks):
                if call_with_user_fp_errors(hook, variable) is not None:
                    raise RuntimeError("Tensor post accumulate grad hooks should return None.")
        outputs = []
    else:
        outputs = _validate(node, node._backward(grads) if mask is None
                            else _call_backward(node, grads, mask))
    if node._post_hooks:
        for hook in list(node._post_hooks):
            new = call_with_user_fp_errors(hook, tuple(outputs), tuple(grads))
            if new is not None:
                outputs = _check_hook_tuple(tuple(outputs), new, hook)
    released = ()
    if keep_graph:
        node._retained = True
    else:
        released = node._release_variables()
    if observers:
        if released:
            _graph._emit(_graph.BuffersReleased(node, tuple(released)))
        _graph._emit(_graph.NodeFinished(node, tuple(grads), tuple(outputs)))
    return outputs


def _call_backward(node, grads, mask):
    """Run the node's formula; in a partial backward a built-in op sees ``needs_input_grad``
    narrowed to the gradients that lead to an input (a custom Function's stays as set at
    forward time, as in PyTorch)."""
    if mask is None or node._static_needs_input_grad or "needs_input_grad" not in node.__dict__:
        return node._backward(grads)
    needs = node.needs_input_grad
    node.needs_input_grad = tuple(n and m for n, m in zip(needs, mask))
    try:
        return node._backward(grads)
    finally:
        node.needs_input_grad = needs


def _validate(node, outputs):
    """PyTorch's ``validate_outputs``: count, type, then shape (sum broadcast grads back) and
    dtype."""
    expected = len(node.next_functions)
    if len(outputs) != expected:
        raise RuntimeError(f"function {node.name()} returned an incorrect number of gradients "
                           f"(expected {expected}, got {len(outputs)})")
    metadata, edges = node._input_metadata, node.next_functions
    known = len(metadata)
    for i, grad in enumerate(outputs):
        if grad is None:
            continue
        if not isinstance(grad, Tensor):
            raise RuntimeError(f"expected Variable or None (got {_typename(grad)})")
        if i >= known or edges[i][0] is None:
            continue
        shape, dtype = metadata[i]
        data = grad._data
        if data.shape != shape:
            if not is_expandable_to(shape, data.shape):
                raise RuntimeError(f"Function {node.name()} returned an invalid gradient at index "
                                   f"{i} - got {list(grad.shape)} but expected shape compatible "
                                   f"with {list(shape)}")
            grad = outputs[i] = sum_to(grad, shape)
        if grad._data.dtype != dtype:
            outputs[i] = grad._to(dtype)
    return outputs


def _accumulate_into(tensor, grad, create_graph):
    """``tensor.grad += grad``: in place normally; out of place (recorded) under create_graph,
    where a first gradient is copied into a fresh tensor (PyTorch's ``clone_obey_contract``:
    ``new_empty_strided().copy_(grad)``, so ``.grad``'s node is ``CopyBackwards``)."""
    old = tensor._grad
    if create_graph:
        tensor._grad = (Tensor._make(np.empty(grad.shape, dtype=grad._data.dtype)).copy_(grad)
                        if old is None else old + grad)
    elif old is None:
        tensor._grad = Tensor._make(np.array(grad._data, dtype=tensor._data.dtype, copy=True))
    else:
        np.add(old._data, grad._data, out=old._data, casting="unsafe")
        old._version_counter.value += 1
