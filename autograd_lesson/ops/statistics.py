"""Multi-output reductions and order statistics: ``var_mean``, ``std_mean``, ``aminmax``,
``median`` and ``nanmedian`` (of the whole tensor, or over a dim with the indices)."""
import numpy as np

from .._fp_errors import quiet as _quiet
from .._surface.checks import normalize_dims, wrap_dim
from .._surface.promotion import torch_name
from ._op import Op
from .elementwise_scalar import div_scalar, mul_scalar
from .indexing import MaskedFillBackward0
from .reduce import (MaxBackward0, MaxBackward1, _axes, _variance, scale_grad_by_count,
                     sum_backward, var_backward)


def mean_backward(grad, x, given_dims, keepdim):
    """PyTorch's mean_backward: sum's backward divided by the count reduced over (every
    element when no dim, or an empty list of dims, is given)."""
    if not given_dims:
        return div_scalar(grad.expand(x.shape), x.numel())
    count = int(np.prod([x.shape[d] for d in normalize_dims(given_dims, x.ndim)])) if x.ndim else 1
    return div_scalar(sum_backward(grad, x.shape, given_dims, keepdim), count)


def _with_mean(grad_self, grad_mean, ctx):
    """var_mean/std_mean's backward: the first output's gradient plus the mean's (each only
    if that output was used)."""
    if grad_mean is None:
        return grad_self
    aux = mean_backward(grad_mean, ctx.saved("self"), ctx.given_dims, ctx.keepdim)
    return aux if grad_self is None else grad_self + aux


def _variance_and_mean(ctx, x, dim, correction, keepdim, name):
    """var_mean's checks and saves (var's), then both values as ATen's CPU kernel computes
    them: Welford's running mean and sum of squares, in double, element by element (so a
    mean over [inf, 1.] is nan, over [1., inf] inf; nothing to reduce gives nan)."""
    if x._data.dtype.kind not in "fc":
        raise RuntimeError(f"{name} only support floating point and complex dtypes")
    var = _variance(ctx, x, dim, correction, keepdim, name)
    a = x._data
    axes = _axes(ctx.dims, x)
    if a.dtype.kind == "c":
        with _quiet():
            return var, np.asarray(np.mean(a, axis=axes, keepdims=keepdim and x.ndim > 0))
    axes = tuple(range(a.ndim)) if axes is None else tuple(sorted(axes))
    kept = [d for d in range(a.ndim) if d not in axes]
    rows = np.transpose(a, kept + list(axes)).astype(np.float64)
    rows = rows.reshape(int(np.prod([a.shape[d] for d in kept])),
                        int(np.prod([a.shape[d] for d in axes])))
    mean, m2 = np.zeros(len(rows)), np.zeros(len(rows))
    for n, column in enumerate(rows.T, 1):
        delta = column - mean
        mean = mean + delta / n
        m2 = m2 + delta * (column - mean)
    count = rows.shape[1]
    c = 1 if correction is None else correction
    var = m2 / (count - c if count > c else 0)
    if not a.size:
        var, mean = np.full_like(var, np.nan), np.full_like(mean, np.nan)
    shape = np.shape(_variance_shape(a, axes, keepdim and x.ndim > 0))
    return var.reshape(shape).astype(a.dtype), mean.reshape(shape).astype(a.dtype)


def _variance_shape(a, axes, keepdim):
    return np.empty([1 if d in axes else n for d, n in enumerate(a.shape)] if keepdim else
                    [n for d, n in enumerate(a.shape) if d not in axes])


class VarMeanBackward0(Op):
    """var, mean = var_mean(self, dim, correction, keepdim); d/dself = var's backward of the
    first gradient plus mean's of the second. Saves self (correction, dim, keepdim)."""

    differentiable_outputs = 2

    def forward(ctx, x, dim=None, correction=None, keepdim=False):
        return _variance_and_mean(ctx, x, dim, correction, keepdim, "var_mean")

    def backward(ctx, grad_var, grad_mean=None):
        grad = None
        if grad_var is not None:
            grad = var_backward(grad_var, ctx.saved("self"), ctx.given_dims, ctx.correction,
                                ctx.keepdim)
        return _with_mean(grad, grad_mean, ctx)


class StdMeanBackward0(Op):
    """std, mean = std_mean(self, dim, correction, keepdim); d/dself = std's backward of the
    first gradient (var's of grad / (2 * std), 0 where std = 0) plus mean's of the second.
    Saves self and result0 (the std)."""

    differentiable_outputs = 2

    def forward(ctx, x, dim=None, correction=None, keepdim=False):
        ctx.save_output("result0")
        var, mean = _variance_and_mean(ctx, x, dim, correction, keepdim, "std_mean")
        return np.sqrt(var), mean

    def backward(ctx, grad_std, grad_mean=None):
        grad = None
        if grad_std is not None:
            std = ctx.saved("result0")
            grad_var = MaskedFillBackward0.apply(grad_std / mul_scalar(std, 2), std == 0, 0)
            grad = var_backward(grad_var, ctx.saved("self"), ctx.given_dims, ctx.correction,
                                ctx.keepdim)
        return _with_mean(grad, grad_mean, ctx)


class AminmaxBackward0(Op):
    """min, max = aminmax(self, dim, keepdim); each gradient is shared evenly among the elements
    equal to its output (amin's and amax's ``scale_grad_by_count``), the two summed. Saves
    self, min and max (dim, keepdim)."""

    differentiable_outputs = 2

    def forward(ctx, x, dim=None, keepdim=False):
        a = x._data
        if dim is not None:
            d = wrap_dim(dim, x.ndim)
            if x.ndim and not x.shape[d]:
                raise IndexError(f"aminmax: Expected reduction dim {d} to have non-zero size.")
        elif not a.size:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                               "operation has no identity.")
        if a.dtype.kind == "c":
            raise NotImplementedError(f"\"aminmax_cpu\" not implemented for '{torch_name(a.dtype)}'")
        ctx.given_dims, ctx.keepdim = ([] if dim is None else [dim]), keepdim
        ctx.save_values(dim=dim, keepdim=keepdim)
        ctx.save("self", x)
        ctx.save_output("max", 1)  # (max first: PyTorch unpacks it first, so a version
        ctx.save_output("min", 0)  # error names it when both changed in place)
        axis = None if dim is None or not x.ndim else d
        keep = keepdim and x.ndim > 0
        if dim is None and keep:  # (every dim kept as 1)
            return np.min(a).reshape((1,) * x.ndim), np.max(a).reshape((1,) * x.ndim)
        return (np.asarray(np.min(a, axis=axis, keepdims=keep)),
                np.asarray(np.max(a, axis=axis, keepdims=keep)))

    def backward(ctx, grad_min, grad_max=None):
        x, grad = ctx.saved("self"), None
        for g, slot in ((grad_min, "min"), (grad_max, "max")):
            if g is not None:
                part = scale_grad_by_count(g, ctx.saved(slot), x, ctx.given_dims, ctx.keepdim)
                grad = part if grad is None else grad + part
        return grad


# -- median, nanmedian -------------------------------------------------------------------------
def _median_index(a, ignore_nan):
    """The index of the (lower) median of each row of ``a`` (2-D), as ATen's kernel picks it:
    the first NaN if there is one (median), else the ``(n - nans - 1) / 2``-th (C++ division)
    in order of (NaN last, value, index), so that ties go to the earlier index."""
    rows, n = a.shape
    out = np.empty(rows, dtype=np.int64)
    positions = np.arange(n)
    for r in range(rows):
        nan = np.isnan(a[r]) if a.dtype.kind == "f" else np.zeros(n, bool)
        if not ignore_nan and nan.any():
            out[r] = int(np.argmax(nan))
            continue
        order = np.lexsort((positions, np.where(nan, 0, a[r]), nan))
        out[r] = order[int((n - int(nan.sum()) - 1) / 2)]
    return out


def _check_median_dtype(x, kernel):
    if x._data.dtype.kind in "cb":
        raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                  f"'{torch_name(x._data.dtype)}'")


def _median_all(ctx, x, ignore_nan):
    """The whole tensor's median: NaN for an empty one, cast as C++ casts it (an int64 one
    gives -2**63, a bool one True: before the dtype check, as ATen's)."""
    ctx.save("self", x)
    ctx.save_output("result")
    a = x._data.reshape(1, -1)
    if not a.size:
        return np.asarray(np.nan).astype(x._data.dtype)
    _check_median_dtype(x, "median_cpu")
    return np.asarray(a[0, _median_index(a, ignore_nan)[0]])


def _median_dim(ctx, x, dim, keepdim, ignore_nan):
    """median/nanmedian over ``dim``: values and int64 indices (a 0-dim input gives 0-dim
    ones), with max(dim)'s saves; both named median in their errors, as ATen's."""
    d = wrap_dim(dim, x.ndim)
    if x.ndim and not x.shape[d]:  # (before the dtype, as ATen's)
        raise IndexError(f"median(): Expected reduction dim {d} to have non-zero size.")
    _check_median_dtype(x, "median_out")
    ctx.save_value("keepdim", keepdim)
    a = np.moveaxis(x._data.reshape(x.shape or (1,)), d, -1)
    rows = a.reshape(-1, a.shape[-1])
    index = _median_index(rows, ignore_nan) if rows.size else np.zeros(0, np.int64)
    values = rows[np.arange(len(index)), index] if rows.size else rows[:, :0].sum(-1)
    index, values = index.reshape(a.shape[:-1]), values.reshape(a.shape[:-1])
    if keepdim and x.ndim:
        index, values = np.expand_dims(index, d), np.expand_dims(values, d)
    ctx.dim, ctx.keepdim, ctx.input_shape = dim, keepdim and x.ndim > 0, x.shape
    ctx.save_values(dim=dim, self_sym_sizes=list(x.shape))
    return values.astype(x._data.dtype), index


class MedianBackward0(MaxBackward1):
    """out = self.median() (the lower one; NaN if any); the gradient is shared evenly among
    the elements equal to it (PyTorch's evenly_distribute_backward). Saves self and result."""

    def forward(ctx, x):
        return _median_all(ctx, x, False)


class NanmedianBackward0(MaxBackward1):
    """out = self.nanmedian(), the median of the non-NaN elements; the gradient as median's.
    Saves self and result."""

    def forward(ctx, x):
        return _median_all(ctx, x, True)


class MedianBackward1(MaxBackward0):
    """values, indices = self.median(dim, keepdim); the gradient is scattered to the indices,
    as max(dim)'s. Saves indices."""

    def forward(ctx, x, dim, keepdim=False):
        return _median_dim(ctx, x, dim, keepdim, False)


class NanmedianBackward1(MaxBackward0):
    """values, indices = self.nanmedian(dim, keepdim); the gradient as median(dim)'s."""

    def forward(ctx, x, dim, keepdim=False):
        return _median_dim(ctx, x, dim, keepdim, True)
