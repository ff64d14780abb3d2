"""``autograd``: ``backward``, ``grad``, ``Function``, ``Variable`` and grad mode, as in PyTorch."""
import warnings

import numpy as np

from .._grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .._tensor import Tensor
from . import anomaly_mode, graph
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .function import Function

CREATE_GRAPH_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter "
    "and its gradient which can cause a memory leak. We recommend using autograd.grad when "
    "creating the graph to avoid this. If you have to use this function, make sure to reset the "
    ".grad fields of your parameters to None after use to break the cycle and avoid the leak."
)

_create_graph_warned = False


def _as_tuple(value):
    if value is None:
        return None
    return tuple(value) if isinstance(value, (list, tuple)) else (value,)


def _size(shape):
    return f"torch.Size({list(shape)})"


def _make_grads(outputs, grad_outputs):
    """The gradient each root starts from: given (shape-checked) or an implicit 0-dim one."""
    grads = []
    for i, (out, grad) in enumerate(zip(outputs, grad_outputs)):
        if grad is None:
            if out.requires_grad and out.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            grads.append(Tensor._make(np.ones(out.shape, dtype=out.dtype)))
            continue
        if not isinstance(grad, Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got "
                            f"{type(grad).__name__}")
        if grad.shape != out.shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of "
                               f"{_size(grad.shape)} and output[{i}] has a shape of "
                               f"{_size(out.shape)}.")
        if grad.dtype != out.dtype:  # PyTorch's validate_outputs casts root gradients too
            grad = grad.to(out.dtype)
        grads.append(grad)
    return grads


def _root_edges(outputs):
    edges = []
    for i, out in enumerate(outputs):
        if not isinstance(out, Tensor):
            raise TypeError(f"expected a Tensor at position {i}, got {type(out).__name__}")
        if not out.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have "
                               f"a grad_fn")
        edges.append(out._gradient_edge())
    return edges


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None,
             *, _from_tensor_method=False):
    """Accumulate d(tensors)/d(leaf) into every reachable leaf's ``.grad`` (or only ``inputs``')."""
    from .._engine import run_backward
    outputs = _as_tuple(tensors)
    grads = _as_tuple(grad_tensors) or (None,) * len(outputs)
    if len(grads) != len(outputs):
        raise RuntimeError(f"got {len(grads)} tensors and {len(outputs)} gradients")
    if retain_graph is None:
        retain_graph = create_graph
    edges = _root_edges(outputs)
    grads = _make_grads(outputs, grads)
    global _create_graph_warned
    if create_graph and not _create_graph_warned:  # PyTorch's TORCH_WARN_ONCE: once per process
        _create_graph_warned = True
        warnings.warn(CREATE_GRAPH_WARNING, UserWarning, stacklevel=3 if _from_tensor_method else 2)
    targets = ()
    if inputs is not None:
        inputs = _as_tuple(inputs)
        if not inputs:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        for t in inputs:
            if not t.requires_grad:
                raise RuntimeError("One of the differentiated Tensors does not require grad")
        for t in inputs:
            t.retain_grad()  # as PyTorch: a non-leaf input's gradient lands in its own .grad
        targets = tuple(t._gradient_edge() for t in inputs)
    run_backward(edges, grads, retain_graph, create_graph, targets, accumulate=True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Return d(outputs)/d(inputs) without touching any ``.grad``."""
    from .._engine import run_backward
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads="
                         "True, but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    if is_grads_batched:
        return _grad_batched(outputs, inputs, grad_outputs, retain_graph, create_graph,
                             allow_unused, materialize_grads)
    outputs, inputs = _as_tuple(outputs), _as_tuple(inputs)
    if not inputs:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    grads = _as_tuple(grad_outputs) or (None,) * len(outputs)
    if retain_graph is None:
        retain_graph = create_graph
    for t in inputs:
        if not isinstance(t, Tensor):
            raise TypeError(f"grad(): inputs must be Tensors, got {type(t).__name__}")
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    edges = _root_edges(outputs)
    grads = _make_grads(outputs, grads)
    targets = tuple(t._gradient_edge() for t in inputs)
    captured = run_backward(edges, grads, retain_graph, create_graph, targets, accumulate=False)
    result = []
    for i, (t, g) in enumerate(zip(inputs, captured)):
        if g is None:
            if not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have "
                                   f"been used in the graph. Set allow_unused=True if this is the "
                                   f"desired behavior.")
            if materialize_grads:
                g = Tensor._make(np.zeros(t.shape, dtype=t.dtype))
        result.append(g)
    return tuple(result)


BATCHED_SHAPE_MESSAGE = (
    "If `is_grads_batched=True`, we interpret the first dimension of each grad_output as the "
    "batch dimension. The sizes of the remaining dimensions are expected to match the shape of "
    "corresponding output, but a mismatch was detected: grad_output[{i}] has a shape of {grad} "
    "and output[{i}] has a shape of {out}. If you only want some tensors in `grad_output` to be "
    "considered batched, consider using vmap."
)


def _grad_batched(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
                  materialize_grads):
    """``grad(..., is_grads_batched=True)``: one vector-Jacobian product per row of grad_outputs.

    PyTorch runs the rows at once under vmap; here they run one after another, retaining the
    graph between rows and applying the caller's ``retain_graph`` to the last row only. So the
    results (each input's gradients stacked along a new first dimension) and the graph's state
    afterwards (freed unless retained) match PyTorch; the peak is one row's work at a time.
    """
    outputs = _as_tuple(outputs)
    grads = _as_tuple(grad_outputs) or (None,) * len(outputs)
    if create_graph:
        raise NotImplementedError("autograd_lesson supports is_grads_batched=True only with "
                                  "create_graph=False; loop over the rows yourself instead")
    for i, (out, go) in enumerate(zip(outputs, grads)):
        if go is None:
            if out.requires_grad and out.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            raise ValueError("is_grads_batched=True needs a batched grad_output for every output")
        if go.shape[1:] != out.shape:  # PyTorch's message drops two leading sizes, not one
            raise RuntimeError(BATCHED_SHAPE_MESSAGE.format(
                i=i, grad=_size(go.shape[2:]), out=_size(out.shape)))
    sizes = sorted({g.shape[0] for g in grads})
    if len(sizes) > 1:
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    if retain_graph is None:
        retain_graph = create_graph
    rows = []
    for b in range(sizes[0]):
        last = b == sizes[0] - 1
        rows.append(grad(outputs, inputs, tuple(Tensor._make(g._data[b]) for g in grads),
                         retain_graph=retain_graph if last else True, allow_unused=True))
    result = []
    for i, (t, column) in enumerate(zip(_as_tuple(inputs), zip(*rows))):
        if column[0] is None:
            if not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have "
                                   f"been used in the graph. Set allow_unused=True if this is the "
                                   f"desired behavior.")
            # as PyTorch 2.13: materialized zeros have the input's shape, without a batch dim
            result.append(Tensor._make(np.zeros(t.shape, dtype=t.dtype)) if materialize_grads
                          else None)
            continue
        result.append(Tensor._make(np.stack([g._data for g in column])))
    return tuple(result)


def Variable(data, requires_grad=False, volatile=False):
    """The pre-0.4 wrapper, still accepted by PyTorch: returns a leaf tensor over ``data``."""
    if not isinstance(data, Tensor):
        raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
    leaf = Tensor._make(data._data, storage=data._storage)
    leaf.requires_grad = requires_grad
    return leaf


__all__ = ["backward", "grad", "Function", "Variable", "graph", "no_grad", "enable_grad",
           "set_grad_enabled", "is_grad_enabled", "inference_mode", "detect_anomaly",
           "set_detect_anomaly"]
