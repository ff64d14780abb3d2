"""Reductions: sum, mean, max, norm."""
from collections import namedtuple

import numpy as np

from .. import _grad_mode
from .._dtype import invalid_combination, numpy_dtype
from .._tensor import Size, Tensor
from ._op import Op
from .formula import (MaskedFillBackward0, MaskedFillBackward1, ScatterBackward0, div_scalar,
                      unsqueeze_multiple, zeros)
from ._util import normalize_dims, quiet as _quiet, torch_name, wrap_dim

MaxResult = namedtuple("max", ["values", "indices"])


def sum_backward(grad, shape, dims, keepdim):
    """Undo a reduction over ``dims`` (as given): re-insert them, then expand to ``shape``."""
    if not keepdim and shape and dims:
        grad = unsqueeze_multiple(grad, dims, len(shape))
    return grad.expand(shape)


class SumBackward0(Op):
    """out = self.sum(); d/dself = grad expanded to self's shape. Saves no tensor."""

    ignores_fp_errors = True  # inf + -inf is nan, without NumPy's RuntimeWarning

    def forward(ctx, x, dtype=None):
        ctx.save_value("self_sym_sizes", list(x.shape))
        ctx.input_shape = x.shape
        out_dtype = dtype or (x._data.dtype if x._data.dtype.kind in "fc" else np.dtype(np.int64))
        return np.asarray(x._data.sum(dtype=out_dtype))

    def backward(ctx, grad):
        return grad.expand(ctx.input_shape)


class SumBackward1(Op):
    """out = self.sum(dim, keepdim); d/dself = grad with dims re-inserted, expanded. No tensor."""

    ignores_fp_errors = True

    def forward(ctx, x, dim, keepdim=False, dtype=None):
        ctx.dims, ctx.given_dims = normalize_dims(dim, x.ndim), _as_given(dim)
        ctx.keepdim, ctx.input_shape = keepdim, x._data.shape
        if ctx.recording:
            ctx.save_values(dim=ctx.given_dims, keepdim=keepdim, self_sym_sizes=list(x._data.shape))
        dtype = dtype or (x._data.dtype if x._data.dtype.kind in "fc" else np.dtype(np.int64))
        # sum(dim=()) reduces every dim, as PyTorch does (NumPy's axis=() reduces none)
        return np.asarray(x._data.sum(axis=_axes(ctx.dims, x), keepdims=keepdim, dtype=dtype))

    def backward(ctx, grad):
        return sum_backward(grad, ctx.input_shape, ctx.given_dims, ctx.keepdim)


class MeanBackward0(Op):
    """out = self.mean(); d/dself = grad / numel, expanded. Saves no tensor."""

    def forward(ctx, x):
        _require_float(x, "mean")
        ctx.input_shape = x.shape
        ctx.save_values(self_sym_numel=x.numel(), self_sym_sizes=list(x.shape))
        with _quiet():
            return np.asarray(x._data.mean(dtype=x._data.dtype))

    def backward(ctx, grad):
        return div_scalar(grad.expand(ctx.input_shape), ctx.input_shape.numel())


class MeanBackward1(Op):
    """out = self.mean(dim, keepdim); d/dself = grad / n, re-inserted and expanded. No tensor."""

    def forward(ctx, x, dim, keepdim=False):
        _require_float(x, "mean")
        ctx.dims, ctx.given_dims = normalize_dims(dim, x.ndim), _as_given(dim)
        ctx.keepdim, ctx.input_shape = keepdim, x.shape
        ctx.count = int(np.prod([x.shape[d] for d in ctx.dims])) if ctx.dims and x.ndim else x.numel()
        ctx.save_values(dim=ctx.given_dims,
                        keepdim=keepdim,
                        self_sym_numel=x.numel(),
                        self_sym_sizes=list(x.shape))
        with _quiet():
            return np.asarray(x._data.mean(axis=_axes(ctx.dims, x), keepdims=keepdim,
                                           dtype=x._data.dtype))

    def backward(ctx, grad):
        return div_scalar(sum_backward(grad, ctx.input_shape, ctx.given_dims, ctx.keepdim),
                          ctx.count)


def _axes(dims, x):
    """NumPy's axis for wrapped ``dims``: all of them for ``()`` or a 0-dim tensor."""
    return dims if dims and x.ndim else None


def _as_given(dim):
    """PyTorch saves the dims as the caller wrote them (``-1`` stays ``-1``), as a list."""
    return [dim] if isinstance(dim, int) else list(dim)


def _require_float(x, name):
    if x._data.dtype.kind not in "fc":
        raise RuntimeError(f"{name}(): could not infer output dtype. Input dtype must be either a "
                           f"floating point or complex dtype. Got: {torch_name(x._data.dtype)}")


class MaxBackward1(Op):
    """out = self.max(); the gradient is shared evenly among the maximal elements:
    ``zeros.masked_fill_(self == result, grad / count)``. Saves result and self."""

    def forward(ctx, x):
        if x.numel() == 0:
            raise RuntimeError("max(): Expected reduction dim to be specified for input.numel() == "
                               "0. Specify the reduction dim with the 'dim' argument.")
        if x._data.dtype.kind == "c":
            raise NotImplementedError(f'"max_all" not implemented for \'{torch_name(x._data.dtype)}\'')
        ctx.save_output("result")
        ctx.save("self", x)
        return np.asarray(x._data.max())

    def backward(ctx, grad):
        x, result = ctx.saved("self"), ctx.saved("result")
        mask = x == result
        return MaskedFillBackward1.apply(zeros(x.shape, grad), mask, grad / mask.sum())


class MaxBackward0(Op):
    """values, indices = self.max(dim); the gradient is scattered to the arg-max positions.
    Saves indices (a new int64 buffer)."""

    differentiable_outputs = 1

    def forward(ctx, x, dim, keepdim=False):
        ctx.save_value("keepdim", keepdim)
        d = wrap_dim(dim, x.ndim)
        if x._data.dtype.kind == "c":
            raise RuntimeError("max(): does not support complex input")
        if x.ndim and x.shape[d] == 0:
            raise IndexError(f"max(): Expected reduction dim {d} to have non-zero size.")
        if not x.ndim:
            x_data, d = x._data.reshape(1), 0
            keepdim = True  # a 0-dim input gives 0-dim values and indices
        else:
            x_data = x._data
        indices = np.argmax(x_data, axis=d)
        values = np.take_along_axis(x_data, np.expand_dims(indices, d), axis=d)
        if not x.ndim:
            values, indices, keepdim = values.reshape(()), indices.reshape(()), False
        elif not keepdim:
            values = values.squeeze(d)
        else:
            indices = np.expand_dims(indices, d)
        ctx.dim, ctx.keepdim, ctx.input_shape = dim, keepdim, x.shape
        ctx.save("indices", Tensor._make(indices.astype(np.int64)))
        ctx.save_values(dim=dim, self_sym_sizes=list(x.shape))
        return values, indices.astype(np.int64)

    def backward(ctx, grad, grad_indices=None):
        indices = ctx.saved("indices")
        if not ctx.input_shape:  # a 0-dim input: its one element was the max
            return grad
        if not ctx.keepdim and ctx.input_shape:
            grad, indices = grad.unsqueeze(ctx.dim), indices.unsqueeze(ctx.dim)
        return ScatterBackward0.apply(zeros(ctx.input_shape, grad), ctx.dim, indices, grad)


class LinalgVectorNormBackward0(Op):
    """out = ||self||_2 over dim; d/dself = grad * (self / out).masked_fill(out == 0, 0).
    Saves self and result."""

    def forward(ctx, x, ord=2, dim=None, keepdim=False):
        if ord != 2:
            raise NotImplementedError("autograd_lesson supports only the 2-norm (p=2)")
        if x._data.dtype.kind not in "fc":
            raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor "
                               f"as input. Got {torch_name(x._data.dtype)}")
        ctx.save("self", x)
        ctx.save_output("result")
        ctx.dims = None if dim is None else normalize_dims(dim, x.ndim)
        ctx.given_dims, ctx.keepdim = (None if dim is None else _as_given(dim)), keepdim
        ctx.save_values(ord=ord, dim=ctx.given_dims, keepdim=keepdim)
        a = np.abs(x._data) if x._data.dtype.kind == "c" else x._data
        with np.errstate(over="ignore", invalid="ignore"):  # inf and nan, silently
            return np.asarray(np.sqrt((a * a).sum(axis=ctx.dims and _axes(ctx.dims, x),
                                                                keepdims=keepdim)))

    def backward(ctx, grad):
        x, result = ctx.saved("self"), ctx.saved("result")
        if ctx.given_dims and not ctx.keepdim and x.ndim:
            grad = unsqueeze_multiple(grad, ctx.given_dims, x.ndim)
            result = unsqueeze_multiple(result, ctx.given_dims, x.ndim)
        return grad * MaskedFillBackward0.apply(x / result, result == 0, 0)


def _check_keepdim(name, keepdim):
    if not isinstance(keepdim, (bool, np.bool_)):
        raise TypeError(f"{name}(): argument 'keepdim' (position 2) must be bool, not "
                        f"{type(keepdim).__name__}")


def sum(x, dim=None, keepdim=False, dtype=None, _fn="sum"):
    """``_fn`` names the caller in a bad dtype's message: ``sum`` (the method), ``torch.sum``."""
    _check_keepdim("sum", keepdim)
    if dtype is not None:
        dtype = (numpy_dtype(dtype, "sum") if dim is not None else
                 numpy_dtype(dtype, invalid=lambda: invalid_combination(
                     _fn, (x,) if _fn == "torch.sum" else (), {"dtype": dtype})))
        if dtype.kind not in "fc" and x.requires_grad and _grad_mode._enabled:
            raise RuntimeError(f"Autograd not support dtype: {torch_name(dtype)}")
    if dim is None:
        return SumBackward0.apply(x, dtype=dtype)
    return SumBackward1.apply(x, dim, keepdim=keepdim, dtype=dtype)


def mean(x, dim=None, keepdim=False):
    _check_keepdim("mean", keepdim)
    if dim is None:
        return MeanBackward0.apply(x)
    return MeanBackward1.apply(x, dim, keepdim=keepdim)


def max(x, dim=None, keepdim=False):
    _check_keepdim("max", keepdim)
    if dim is None:
        return MaxBackward1.apply(x)
    return MaxResult(*MaxBackward0.apply(x, dim, keepdim=keepdim))


def norm(x, p=2, dim=None, keepdim=False):
    return LinalgVectorNormBackward0.apply(x, ord=p, dim=dim, keepdim=keepdim)


__all__ = ["sum", "mean", "max", "norm", "Size"]


def arg_reduce(x, dim, keepdim, name):
    """``argmax``/``argmin``: the int64 index of the first largest/smallest element (nan
    counts as both), over ``dim`` or over the flattened tensor; not differentiable. With
    ``keepdim`` and no dim, every dim is kept as size 1. PyTorch's checks, in its order."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(x).__name__}")
    if x._data.dtype.kind in "cb":
        raise RuntimeError(f"{name}(): does not support "
                           f"{'complex' if x._data.dtype.kind == 'c' else 'bool'} input")
    if dim is not None:
        dim = wrap_dim(dim, x.ndim, name)
    if not x.numel() and (dim is None or not x.ndim or not x.shape[dim]):
        raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() "
                         f"== 0." if dim is None else
                         f"{name}(): Expected reduction dim {dim} to have non-zero size.")
    find = np.argmax if name == "argmax" else np.argmin
    if dim is None or not x.ndim:
        index = np.asarray(find(x._data), dtype=np.int64)
        return Tensor._make(index.reshape((1,) * x.ndim) if keepdim else index)
    index = find(x._data, axis=dim)
    return Tensor._make(np.asarray(np.expand_dims(index, dim) if keepdim else index,
                                   dtype=np.int64))


def argmax(input, dim=None, keepdim=False):
    return arg_reduce(input, dim, keepdim, "argmax")


def argmin(input, dim=None, keepdim=False):
    return arg_reduce(input, dim, keepdim, "argmin")
