"""The backward engine: what ``loss.backward()`` does, in PyTorch's order.

``run_backward`` walks the graph from the roots (the loss) toward the leaves, as PyTorch's C++
engine (``torch/csrc/autograd/engine.cpp``) does on one CPU thread:

1. Count, for every node reachable from the roots, how many edges point at it: a node may run
   only once every gradient meant for it has arrived.
2. Keep a ready queue of the nodes whose count reached zero. Like PyTorch's CPU queue it pops the
   node with the highest sequence number, the newest; ``AccumulateGrad`` has the largest number
   there is, so a leaf's ``.grad`` is written as soon as its gradient is complete.
3. Run the node: its backward formula turns the gradients of its outputs into gradients for its
   inputs. Grad mode is ``create_graph`` for the whole walk, so the formulas' Tensor ops are
   recorded (a graph of the gradient, for a second derivative) only when it is asked for.
4. Route each gradient along ``next_functions`` to the node that made that input, adding it to
   any gradient already waiting there.
5. Unless the graph is kept (``retain_graph=True``), release the node's saved tensors right
   away: a second backward through the node raises "Trying to backward through the graph a
   second time".

A failure stops the walk where it is: what already ran stays run, as in PyTorch.

The rest plugs in at named points, each in a file of its own under ``extensions/``:
- ``node._tensor_pre_hooks`` / ``_pre_hooks`` / ``_post_hooks``: ``hooks.py`` runs tensor hooks,
  ``retain_grad()`` and node hooks, and checks what a hook returns;
- ``task.extended``: ``graph_task.py``, for partial backward (``inputs=``, ``autograd.grad``'s
  captures), anomaly mode and the observers of the event stream; the ``GraphTask`` itself is the
  stack of running backwards that checkpoint reads;
- ``count_dependencies``, ``ready_key`` and ``release_saved`` are module functions, so that a
  lesson can plug in its own (``lesson/inside_engine.py``).
"""
import heapq
import itertools

from ._node import GraphRoot
from . import _tensor
from ._autograd_errors import typename
from ._tensor import TensorBase
from .extensions import hooks as _hooks
from .extensions.graph_task import GraphTask
from ._broadcast import is_expandable_to, sum_to


def run_backward(roots, grad_roots, keep_graph, create_graph, targets=(), accumulate=True):
    """Backpropagate ``grad_roots`` from the ``roots``, edges ``(node, output_nr)``.

    ``targets`` are edges whose incoming gradient is wanted: ``autograd.grad`` captures and
    returns them; ``backward(inputs=...)`` accumulates only into them. Returns the captured
    gradients, one per target.
    """
    root, waiting = graph_root(roots, grad_roots)  # node -> the gradients of its outputs so far
    dependencies = count_dependencies(root)                                       # 1.
    task = GraphTask(root, dependencies, keep_graph, create_graph, targets, accumulate)
    ready, order = [(ready_key(root), 0, root)], itertools.count(1)               # 2.
    with task:  # grad mode = create_graph; a failure is reported to the extensions
        while ready:
            task.node = node = heapq.heappop(ready)[2]
            grads = waiting.pop(node)
            if node._tensor_pre_hooks or node._retain_grad_refs:
                grads = _hooks.run_tensor_pre_hooks(node, grads)
            if task.extended:
                outputs = task.run_node(node, grads, call_function)
                if outputs is None:  # a partial backward: no input needs this node
                    continue
            else:
                outputs = call_function(node, grads)                                # 3.
            for (child, nr), grad in zip(node.next_functions, outputs):             # 4.
                if child is None or child in task.skipped:
                    continue
                slots = waiting.get(child)
                if slots is None:
                    slots = waiting[child] = [None] * child._num_outputs
                if grad is not None:
                    old = slots[nr]
                    slots[nr] = grad if old is None else add_gradients(old, grad, create_graph)
                dependencies[child] -= 1
                if dependencies[child] == 0:
                    heapq.heappush(ready, (ready_key(child), next(order), child))
            released = release_saved(node, keep_graph)                               # 5.
            if task.extended:
                task.node_finished(node, grads, outputs, released)
    return task.captured


def graph_root(roots, grad_roots):
    """The node the walk starts from and the gradients waiting for it: the root tensor's own
    node, or a GraphRoot with an edge to each root (``autograd.backward([y1, y2])``)."""
    if len(roots) == 1:
        (node, nr), = roots
        grads = [None] * node._num_outputs
        grads[nr] = grad_roots[0]
        return node, {node: grads}
    root = GraphRoot(roots)
    root._num_outputs = len(roots)
    return root, {root: list(grad_roots)}


def count_dependencies(root):
    """How many edges point at each node reachable from ``root`` (iterative: a graph may be a
    10,000-node chain)."""
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


def ready_key(node):
    """The ready queue's order, smallest first: the highest sequence number (the newest node)
    runs first, and AccumulateGrad, whose number is the largest there is, before any other."""
    return -node._sequence_nr()


def release_saved(node, keep_graph):
    """After a node ran: free its saved tensors, or mark them retained. Returns the slots freed."""
    if keep_graph:
        node._retained = True
        return ()
    return node._release_variables()


def call_function(node, grads):
    """Run one node (engine.cpp's ``call_function``): its pre-hooks, its backward formula, the
    checks of what the formula returned, its post-hooks."""
    if node._pre_hooks:
        _hooks.run_pre_hooks(node, grads)
    outputs = validate_outputs(node, node._backward(grads))
    if node._post_hooks:
        outputs = _hooks.run_post_hooks(node, outputs, grads)
    return outputs


def add_gradients(old, new, create_graph):
    """Two gradients for the same input (PyTorch's InputBuffer): recorded under create_graph,
    else one NumPy add (they have the input's shape and dtype, checked by ``validate_outputs``)."""
    a, b = old._data, new._data
    if create_graph or a.dtype != b.dtype or a.shape != b.shape:
        return old + new
    return _tensor.make_tensor(a + b)  # (inf + -inf: nan, silently, under the walk's error state)


def validate_outputs(node, outputs):
    """PyTorch's ``validate_outputs``: one gradient per edge, each None or a Tensor; a gradient
    that broadcast is summed back to its input's shape, then cast to its dtype."""
    expected = len(node.next_functions)
    if len(outputs) != expected:
        raise RuntimeError(f"function {node.name()} returned an incorrect number of gradients "
                           f"(expected {expected}, got {len(outputs)})")
    metadata, edges = node._input_metadata, node.next_functions
    known = len(metadata)
    for i, grad in enumerate(outputs):
        if grad is None:
            continue
        if not isinstance(grad, TensorBase):
            raise RuntimeError(f"expected Variable or None (got {typename(grad)})")
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
