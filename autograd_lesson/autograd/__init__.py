"""``autograd``: ``backward``, ``grad``, ``Function``, ``Variable`` and grad mode, as in PyTorch."""
import operator
import warnings
from collections.abc import Mapping

import numpy as np

from .._grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .._tensor import Tensor
from . import anomaly_mode, graph
from ..extensions.graph_task import run_reentrant
from .._surface.warn_once import is_warn_always_enabled
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .function import Function
from .gradcheck import gradcheck, gradgradcheck  # (the functions shadow the module, as in torch)

CREATE_GRAPH_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter "
    "and its gradient which can cause a memory leak. We recommend using autograd.grad when "
    "creating the graph to avoid this. If you have to use this function, make sure to reset the "
    ".grad fields of your parameters to None after use to break the cycle and avoid the leak."
)

_create_graph_warned = False


def _as_tuple(value):
    """PyTorch's reading of ``tensors``/``outputs`` and ``grad_tensors``: one Tensor, or any
    iterable of them (``None`` stays None)."""
    if value is None:
        return None
    return (value,) if isinstance(value, Tensor) else tuple(value)


def _inputs_tuple(inputs, fn):
    """``inputs=`` as PyTorch reads it: a Tensor, a dict (its values) or any iterable."""
    if isinstance(inputs, (Tensor, graph.GradientEdge)):
        return (inputs,)
    if type(inputs) is dict:
        return tuple(inputs.values())
    if isinstance(inputs, Mapping):
        raise TypeError(f"`inputs` argument to `{fn}()` must be a dict, not "
                        f"{type(inputs).__name__}. Other Mapping types are not supported.")
    inputs = tuple(inputs)
    if not inputs:
        raise RuntimeError(f"`inputs` argument to `{fn}()` cannot be empty.")
    return inputs


def _check_inputs(inputs, accumulate):
    """Each input in turn, as PyTorch's engine reads them: a Tensor (``backward`` retains its
    grad, so that a non-leaf input's gradient lands in ``.grad``; ``grad`` needs it to require
    grad) or a GradientEdge."""
    for t in inputs:
        if isinstance(t, Tensor):
            if accumulate:
                t.retain_grad()
            elif not t.requires_grad:
                raise RuntimeError("One of the differentiated Tensors does not require grad")
        elif not isinstance(t, graph.GradientEdge):
            raise RuntimeError(f"all inputs have to be Tensors or GradientEdges, but got "
                               f"{type(t).__name__}")


def _edge(t):
    return tuple(t) if isinstance(t, graph.GradientEdge) else t._gradient_edge()


def _size(shape):
    return f"torch.Size({list(shape)})"


def _make_grads(outputs, grad_outputs):
    """The gradient each root starts from: given (shape-checked) or an implicit 0-dim one."""
    grads = []
    for i, (out, grad) in enumerate(zip(outputs, grad_outputs)):
        if not isinstance(out, (Tensor, graph.GradientEdge)):  # (PyTorch's words, a number too)
            raise AssertionError("Expected output to be a torch.Tensor")
        if grad is None:
            if out.requires_grad and out.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if out.requires_grad and out._data.dtype.kind != "f":
                raise RuntimeError(f"grad can be implicitly created only for real scalar outputs "
                                   f"but got {out.dtype}")
            grads.append(Tensor._make(np.ones(out.shape, dtype=out._data.dtype)))
            continue
        if not isinstance(grad, Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got "
                            f"{type(grad).__name__}")
        if grad.shape != out.shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of "
                               f"{_size(grad.shape)} and output[{i}] has a shape of "
                               f"{_size(out.shape)}.")
        if (grad._data.dtype.kind == "c") != (out._data.dtype.kind == "c"):
            raise RuntimeError(f"For complex Tensors, both grad_output and output are required "
                               f"to have the same dtype. Mismatch in dtype: grad_output[{i}] has "
                               f"a dtype of {grad.dtype} and output[{i}] has a dtype of "
                               f"{out.dtype}.")
        if grad._data.dtype != out._data.dtype:  # PyTorch's validate_outputs casts root gradients too
            grad = grad._to(out._data.dtype)
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


def _flag(value):
    """A ``retain_graph``/``create_graph`` flag as PyTorch's C++ engine reads it: a bool or an
    integer (``'no'`` and ``None`` are refused with Python's own message)."""
    return value if isinstance(value, bool) else bool(operator.index(value))


def _prepare(outputs, grad_outputs, retain_graph, create_graph, allow_unused=False):
    """Root gradients (shape-checked, zipped as PyTorch's ``_make_grads``), then the engine's
    checks: counts, flags, and that every root requires grad. Returns (edges, grads, flags)."""
    grads = (None,) * len(outputs) if grad_outputs is None else _as_tuple(grad_outputs)
    grads = _make_grads(outputs, grads)
    create_graph = _flag(create_graph)
    retain_graph = create_graph if retain_graph is None else _flag(retain_graph)
    _flag(allow_unused)  # (grad's: the engine's parser reads it with the others)
    if len(grads) != len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grads)} gradients")
    return _root_edges(outputs), grads, retain_graph, create_graph


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             grad_variables=None, inputs=None, *, _from_tensor_method=False):
    """Accumulate d(tensors)/d(leaf) into every reachable leaf's ``.grad`` (or only ``inputs``')."""
    from .._engine import run_backward
    if grad_variables is not None:
        warnings.warn("`grad_variables` is deprecated. Use `grad_tensors` instead.",
                      FutureWarning, stacklevel=2)
        if grad_tensors is not None:
            raise RuntimeError("`grad_tensors` and `grad_variables` (deprecated) arguments both "
                               "passed to `backward()`. Please only use `grad_tensors`.")
        grad_tensors = grad_variables
    inputs = None if inputs is None else _inputs_tuple(inputs, "backward")
    outputs = _as_tuple(tensors)
    edges, grads, retain_graph, create_graph = _prepare(outputs, grad_tensors, retain_graph,
                                                        create_graph)
    global _create_graph_warned
    if create_graph and (not _create_graph_warned or is_warn_always_enabled()):
        # (PyTorch's TORCH_WARN_ONCE: once per process, unless set_warn_always(True))
        _create_graph_warned = True
        warnings.warn(CREATE_GRAPH_WARNING, UserWarning, stacklevel=3 if _from_tensor_method else 2)
    targets = ()
    if inputs is not None:
        _check_inputs(inputs, accumulate=True)
        targets = tuple(_edge(t) for t in inputs)
    run_reentrant(run_backward, edges, grads, retain_graph, create_graph, targets, True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Return d(outputs)/d(inputs) without touching any ``.grad`` (a dict for a dict of inputs)."""
    from .._engine import run_backward
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads="
                         "True, but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    outputs, names = _as_tuple(outputs), inputs.keys() if type(inputs) is dict else None
    inputs = _inputs_tuple(inputs, "grad")
    if not only_inputs:
        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to True). "
                      "To accumulate gradient for other parts of the graph, please use "
                      "torch.autograd.backward.", FutureWarning, stacklevel=2)
    if is_grads_batched:
        result = _grad_batched(outputs, inputs, grad_outputs, retain_graph, create_graph,
                               allow_unused, materialize_grads)
        return result if names is None else dict(zip(names, result))
    edges, grads, retain_graph, create_graph = _prepare(outputs, grad_outputs, retain_graph,
                                                        create_graph, allow_unused)
    _check_inputs(inputs, accumulate=False)
    targets = tuple(_edge(t) for t in inputs)
    captured = run_reentrant(run_backward, edges, grads, retain_graph, create_graph, targets,
                             False)
    result = []
    for i, (t, g) in enumerate(zip(inputs, captured)):
        if g is None:
            if not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have "
                                   f"been used in the graph. Set allow_unused=True if this is the "
                                   f"desired behavior.")
            if materialize_grads and not isinstance(t, Tensor):
                raise RuntimeError("materialize_grads cannot be used when the given input is a "
                                   "GradientEdge")
            if materialize_grads:  # zeros_like(input, requires_grad=create_graph)
                g = Tensor._make(np.zeros(t.shape, dtype=t._data.dtype), requires_grad=create_graph)
        result.append(g)
    return tuple(result) if names is None else dict(zip(names, result))


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
    grads = list(_as_tuple(grad_outputs) or (None,) * len(outputs))
    for i, (out, go) in enumerate(zip(outputs, grads)):
        implicit = go is None  # (then ones, batched along their first dimension, as torch's)
        if implicit and not out.requires_grad:
            raise ValueError("vmap(vjp, in_dims=0, ...)(<inputs>): Got in_dim=0 for an input but "
                             "the input is of type <class 'NoneType'>. We cannot vmap over "
                             "non-Tensor arguments, please use None as the respective in_dim")
        if implicit:
            go = grads[i] = _make_grads([out], [None])[0]
        if not go.ndim and not implicit:
            go[0]  # (PyTorch reads the batch size so: IndexError for a 0-dim grad_output)
        if implicit and go.ndim and go.shape[1:] != out.shape:
            raise RuntimeError(f"invalid gradient at index {i} - got {list(go.shape[1:])} but "
                               f"expected shape compatible with {list(out.shape)}")
        if not go.ndim:
            raise ValueError("vmap(vjp, in_dims=0, ...)(<inputs>): Got in_dim=0 for some input, "
                             "but that input is a Tensor of dimensionality 0 so expected in_dim "
                             "to satisfy 0 <= in_dim < 0.")
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
    for b in range(sizes[0]):  # with create_graph the rows and the stacking are recorded too
        last = b == sizes[0] - 1
        row = tuple(g[b] if create_graph else Tensor._make(g._data[b]) for g in grads)
        rows.append(grad(outputs, inputs, row, retain_graph=retain_graph if last else True,
                         create_graph=create_graph, allow_unused=True))
    result = []
    for i, (t, column) in enumerate(zip(_as_tuple(inputs), zip(*rows))):
        if column[0] is None:
            if not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have "
                                   f"been used in the graph. Set allow_unused=True if this is the "
                                   f"desired behavior.")
            # as PyTorch 2.13: materialized zeros have the input's shape, without a batch dim
            result.append(Tensor._make(np.zeros(t.shape, dtype=t._data.dtype),
                                       requires_grad=create_graph) if materialize_grads else None)
            continue
        if create_graph:
            from .. import stack
            result.append(stack(column))
        else:
            result.append(Tensor._make(np.stack([g._data for g in column])))
    return tuple(result)


def Variable(data, requires_grad=False, volatile=False):
    """The pre-0.4 wrapper, still accepted by PyTorch: returns a leaf tensor over ``data``."""
    if not isinstance(data, Tensor):
        raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
    leaf = Tensor._make(data._data, storage=data._storage)
    leaf.requires_grad = bool(operator.index(requires_grad))  # (PyTorch's int conversion)
    return leaf


__all__ = ["backward", "grad", "Function", "Variable", "graph", "no_grad", "enable_grad",
           "set_grad_enabled", "is_grad_enabled", "inference_mode", "detect_anomaly",
           "set_detect_anomaly", "gradcheck", "gradgradcheck"]
