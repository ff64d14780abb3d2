"""``autograd``: ``backward``, ``grad``, ``Function``, ``Variable`` and grad mode, as in PyTorch."""
import warnings

import numpy as np

from .._grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .._tensor import Tensor
from . import graph
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
    if is_grads_batched:
        raise NotImplementedError("autograd_lesson does not support is_grads_batched=True")
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads="
                         "True, but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
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


def Variable(data, requires_grad=False, volatile=False):
    """The pre-0.4 wrapper, still accepted by PyTorch: returns a leaf tensor over ``data``."""
    if not isinstance(data, Tensor):
        raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
    leaf = Tensor._make(data._data, storage=data._storage)
    leaf.requires_grad = requires_grad
    return leaf


__all__ = ["backward", "grad", "Function", "Variable", "graph", "no_grad", "enable_grad",
           "set_grad_enabled", "is_grad_enabled", "inference_mode"]
