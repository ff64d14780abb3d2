"""Reductions: sum, mean, max, prod, var, all/any, norm ..."""
import math
import warnings

import numpy as np

from .. import _grad_mode
from .._tensor import Tensor
from .._fp_errors import quiet as _quiet
from ._op import Op
from ._util import scalar_tensor, zeros
from .elementwise import SgnBackward0, where
from .elementwise_scalar import div_scalar, mul_scalar
from .indexing import MaskedFillBackward0, MaskedFillBackward1, ScatterBackward0
from .._surface.checks import normalize_dims, wrap_dim
from .._surface.promotion import torch_name


def unsqueeze_multiple(grad, dims, ndim):
    """Re-insert reduced dims: one dim as given (``-1`` stays ``-1``), several in sorted order."""
    if len(dims) == 1:
        return grad.unsqueeze(dims[0])
    for d in sorted(normalize_dims(dims, ndim)):
        grad = grad.unsqueeze(d)
    return grad


def restore_reduced_dims(output, dims, keepdim):
    """PyTorch's ``restore_reduced_dims``: ``output`` reshaped with a 1 at each reduced dim
    (``dims`` as given; none given: all of them, which a 0-dim output already has)."""
    if keepdim:
        return output
    total = output.dim() + len(dims)
    ones = {d % total for d in dims} if total else set()
    sizes = iter(output.shape)
    return output.reshape([1 if i in ones else next(sizes) for i in range(total)])


def sum_backward(grad, shape, dims, keepdim):
    """Undo a reduction over ``dims`` (as given): re-insert them, then expand to ``shape``."""
    if not keepdim and shape and dims:
        grad = unsqueeze_multiple(grad, dims, len(shape))
    return grad.expand(shape)


class SumBackward0(Op):
    """out = self.sum(); d/dself = grad expanded to self's shape. Saves no tensor."""


    def forward(ctx, x, dtype=None):
        ctx.save_value("self_sym_sizes", list(x.shape))
        ctx.input_shape = x.shape
        out_dtype = dtype or (x._data.dtype if x._data.dtype.kind in "fc" else np.dtype(np.int64))
        return np.asarray(x._data.sum(dtype=out_dtype))

    def backward(ctx, grad):
        return grad.expand(ctx.input_shape)


class SumBackward1(Op):
    """out = self.sum(dim, keepdim); d/dself = grad with dims re-inserted, expanded. No tensor."""


    def forward(ctx, x, dim, keepdim=False, dtype=None):
        dims = normalize_dims(dim, x.ndim) if dim is not None else ()
        if ctx.recording:  # (what backward reads; an unrecorded ctx gets no instance dict)
            ctx.dims, ctx.given_dims = dims, _as_given(dim)
            ctx.keepdim, ctx.input_shape = keepdim, x._data.shape
            ctx.save_values(dim=ctx.given_dims, keepdim=keepdim, self_sym_sizes=list(x._data.shape))
        dtype = dtype or (x._data.dtype if x._data.dtype.kind in "fc" else np.dtype(np.int64))
        # sum(dim=()) reduces every dim, as PyTorch does (NumPy's axis=() reduces none)
        return np.asarray(x._data.sum(axis=_axes(dims, x), keepdims=keepdim, dtype=dtype))

    def backward(ctx, grad):
        return sum_backward(grad, ctx.input_shape, ctx.given_dims, ctx.keepdim)


class MeanBackward0(Op):
    """out = self.mean() (in ``dtype`` if given: no cast node, as PyTorch's); d/dself = grad /
    numel, expanded (the engine casts it to self's dtype). Saves no tensor."""

    def forward(ctx, x, dtype=None):
        if dtype is None:
            _require_float(x, "mean")
        ctx.input_shape = x.shape
        ctx.save_values(self_sym_numel=x.numel(), self_sym_sizes=list(x.shape))
        with _quiet():
            return np.asarray(x._data.mean(dtype=dtype or x._data.dtype), dtype=dtype)

    def backward(ctx, grad):
        return div_scalar(grad.expand(ctx.input_shape), ctx.input_shape.numel())


class MeanBackward1(Op):
    """out = self.mean(dim, keepdim); d/dself = grad / n, re-inserted and expanded. No tensor."""

    def forward(ctx, x, dim, keepdim=False, dtype=None):
        if dtype is None:  # (a dtype: computed in it, no cast node, as MeanBackward0)
            _require_float(x, "mean")
        ctx.dims = normalize_dims(dim, x.ndim) if dim is not None else ()
        ctx.given_dims, ctx.keepdim, ctx.input_shape = _as_given(dim), keepdim, x.shape
        ctx.count = int(np.prod([x.shape[d] for d in ctx.dims])) if ctx.dims and x.ndim else x.numel()
        ctx.save_values(dim=ctx.given_dims,
                        keepdim=keepdim,
                        self_sym_numel=x.numel(),
                        self_sym_sizes=list(x.shape))
        with _quiet():
            return np.asarray(x._data.mean(axis=_axes(ctx.dims, x), keepdims=keepdim,
                                           dtype=dtype or x._data.dtype), dtype=dtype)

    def backward(ctx, grad):
        return div_scalar(sum_backward(grad, ctx.input_shape, ctx.given_dims, ctx.keepdim),
                          ctx.count)


def _axes(dims, x):
    """NumPy's axis for wrapped ``dims``: all of them for ``()`` or a 0-dim tensor."""
    return dims if dims and x.ndim else None


def _as_given(dim):
    """PyTorch saves the dims as the caller wrote them (``-1`` stays ``-1``), as a list; None
    (every dim: ``sum(None)``) stays None."""
    return [dim] if isinstance(dim, int) else None if dim is None else list(dim)


def _require_float(x, name):
    if x._data.dtype.kind not in "fc":
        raise RuntimeError(f"{name}(): could not infer output dtype. Input dtype must be either a "
                           f"floating point or complex dtype. Got: {torch_name(x._data.dtype)}")


class MaxBackward1(Op):
    """out = self.max(); the gradient is shared evenly among the maximal elements:
    ``zeros.masked_fill_(self == result, grad / count)``. Saves result and self."""

    def forward(ctx, x):
        return _reduce_all(ctx, x, "max", np.max)

    def backward(ctx, grad):
        return evenly_distribute_backward(grad, ctx.saved("self"), ctx.saved("result"))


def evenly_distribute_backward(grad, x, value):
    """PyTorch's evenly_distribute_backward: ``grad`` shared among the elements equal to
    ``value``, or, when ``value`` is NaN, among the NaN elements (max() of [nan, 1.] sends
    its gradient to the nan)."""
    nan = np.isnan(value._data) if value._data.dtype.kind == "f" else False
    mask = Tensor._make(np.isnan(x._data)) if nan else x == value
    return MaskedFillBackward1.apply(zeros(x.shape, grad), mask, grad / mask.sum())


class MaxBackward0(Op):
    """values, indices = self.max(dim); the gradient is scattered to the arg-max positions.
    Saves indices (the returned tensor itself)."""

    differentiable_outputs = 1

    def forward(ctx, x, dim, keepdim=False):
        return _reduce_dim(ctx, x, dim, keepdim, "max", np.argmax)

    def _connect(self, tensors, outputs, inputs):
        super()._connect(tensors, outputs, inputs)
        # The returned indices themselves, held as PyTorch holds a saved leaf (its original):
        # ``_saved_indices is indices``, and changing them in place makes backward refuse.
        self.save("indices", outputs[1])

    def backward(ctx, grad, grad_indices=None):
        indices = ctx.saved("indices")
        if not ctx.input_shape:  # a 0-dim input: its one element was the max
            return grad
        if not ctx.keepdim and ctx.input_shape:
            grad, indices = grad.unsqueeze(ctx.dim), indices.unsqueeze(ctx.dim)
        return ScatterBackward0.apply(zeros(ctx.input_shape, grad), ctx.dim, indices, grad)


def _reduce_all(ctx, x, name, reduce):
    """max()/min() of every element: PyTorch's checks, then the saves both share."""
    if x.numel() == 0:
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() "
                           f"== 0. Specify the reduction dim with the 'dim' argument.")
    if x._data.dtype.kind == "c":
        raise NotImplementedError(f'"{name}_all" not implemented for '
                                  f"'{torch_name(x._data.dtype)}'")
    ctx.save_output("result")
    ctx.save("self", x)
    return np.asarray(reduce(x._data))


def _reduce_dim(ctx, x, dim, keepdim, name, find):
    """max(dim)/min(dim): the values and the int64 index ``find`` picks (the first one; nan
    wins), with the saves both share."""
    ctx.save_value("keepdim", keepdim)
    d = wrap_dim(dim, x.ndim)
    if x._data.dtype.kind == "c":
        raise RuntimeError(f"{name}(): does not support complex input")
    if x.ndim and x.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    if not x.ndim:
        x_data, d = x._data.reshape(1), 0
        keepdim = True  # a 0-dim input gives 0-dim values and indices
    else:
        x_data = x._data
    indices = find(x_data, axis=d)
    values = np.take_along_axis(x_data, np.expand_dims(indices, d), axis=d)
    if not x.ndim:
        values, indices, keepdim = values.reshape(()), indices.reshape(()), False
    elif not keepdim:
        values = values.squeeze(d)
    else:
        indices = np.expand_dims(indices, d)
    ctx.dim, ctx.keepdim, ctx.input_shape = dim, keepdim, x.shape
    ctx.save_values(dim=dim, self_sym_sizes=list(x.shape))
    return values, indices.astype(np.int64)


class MinBackward1(MaxBackward1):
    """out = self.min(); the gradient is shared evenly among the minimal elements, as max's.
    Saves result and self."""

    def forward(ctx, x):
        return _reduce_all(ctx, x, "min", np.min)


class MinBackward0(MaxBackward0):
    """values, indices = self.min(dim); the gradient is scattered to the arg-min positions, as
    max's. Saves indices."""

    def forward(ctx, x, dim, keepdim=False):
        return _reduce_dim(ctx, x, dim, keepdim, "min", np.argmin)


class AmaxBackward0(Op):
    """out = self.amax(dim, keepdim); the gradient is shared evenly among the maximal elements
    of each reduced slice: ``grad / count * (self == result)`` (``scale_grad_by_count``).
    Saves dim, keepdim, result and self."""

    def forward(ctx, x, dim=(), keepdim=False):
        return _amax_amin(ctx, x, dim, keepdim, "amax", np.max)

    def backward(ctx, grad):
        return scale_grad_by_count(grad, ctx.saved("result"), ctx.saved("self"), ctx.given_dims,
                                   ctx.keepdim)


def scale_grad_by_count(grad, result, x, given_dims, keepdim):
    """amax's, amin's and aminmax's backward (PyTorch's ``scale_grad_by_count`` of the restored
    dims): ``grad / count * (self == result)``, shared among the equal elements of each slice."""
    grad = restore_reduced_dims(grad, given_dims, keepdim)
    mask = restore_reduced_dims(result, given_dims, keepdim) == x
    return grad / mask.sum(given_dims, keepdim=True) * mask


class AminBackward0(AmaxBackward0):
    """out = self.amin(dim, keepdim); the gradient is shared evenly among the minimal elements,
    as amax's. Saves dim, keepdim, result and self."""

    def forward(ctx, x, dim=(), keepdim=False):
        return _amax_amin(ctx, x, dim, keepdim, "amin", np.min)


def _amax_amin(ctx, x, dim, keepdim, name, reduce):
    """amax/amin over ``dim`` (all dims for ``()``): PyTorch's checks in its order (an empty
    input's dims one by one first, then the dims, then the dtype), then the saves."""
    given = _as_given(dim)
    if x.numel() == 0:
        if not given:
            raise RuntimeError(f"{name}(): Expected reduction dim to be specified for "
                               f"input.numel() == 0. Specify the reduction dim with the 'dim' "
                               f"argument.")
        for d in given:
            if x.shape[wrap_dim(d, x.ndim)] == 0:
                raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero "
                                 f"size.")  # (the dim as given)
    dims = normalize_dims(dim, x.ndim)
    if x._data.dtype.kind == "c":
        raise NotImplementedError(f'"{name[1:]}_values_cpu" not implemented for '
                                  f"'{torch_name(x._data.dtype)}'")
    ctx.given_dims, ctx.keepdim = given, keepdim
    ctx.save_values(dim=ctx.given_dims, keepdim=keepdim)
    ctx.save_output("result")
    ctx.save("self", x)
    return np.asarray(reduce(x._data, axis=_axes(dims, x), keepdims=keepdim and x.ndim > 0))


class LinalgVectorNormBackward0(Op):
    """out = ||self||_ord over dim: sum(|self|**ord)**(1/ord); max |self| for inf, min for -inf,
    the count of nonzeros for 0. d/dself is PyTorch's norm_backward (by ord: 1, 2, inf, below
    1, below 2, above); ord 0 has no gradient. Saves self and result (ord, dim, keepdim)."""

    def forward(ctx, x, ord=2, dim=None, keepdim=False):
        given = None if dim is None else _as_given(dim)
        dims = normalize_dims(given, x.ndim) if given else ()
        order = float(ord)
        ctx.save("self", x)
        ctx.save_output("result")
        ctx.order, ctx.given_dims, ctx.keepdim = order, given, keepdim
        ctx.save_values(ord=ord, dim=given, keepdim=keepdim)
        a = np.abs(x._data)
        axis, keep = _axes(dims, x), keepdim and x.ndim > 0
        if order == 0:
            out = (a != 0).sum(axis=axis, keepdims=keep, dtype=a.dtype)
        elif order == 1:
            out = a.sum(axis=axis, keepdims=keep)
        elif order == 2:
            out = np.sqrt((a * a).sum(axis=axis, keepdims=keep))
        elif math.isinf(order):  # (an empty reduction refused before)
            out = (np.max if order > 0 else np.min)(a, axis=axis, keepdims=keep)
        else:
            out = (a ** order).sum(axis=axis, keepdims=keep) ** (1 / order)
        return np.asarray(out, dtype=a.dtype)

    def backward(ctx, grad):
        # (statement by statement in the order C++ evaluates norm_backward's operands, right
        # to left, so that the nodes are created in PyTorch's order)
        from .elementwise import PowBackward0
        x, norm, p = ctx.saved("self"), ctx.saved("result"), ctx.order
        dims = ctx.given_dims or []
        if not ctx.keepdim and x.ndim:  # (no dim given: both stay 0-dim and broadcast)
            grad = unsqueeze_multiple(grad, dims, x.ndim)
            norm = unsqueeze_multiple(norm, dims, x.ndim)
        if p == 0:
            return None
        if p == 1:
            return SgnBackward0.apply(x) * grad
        if p == 2:
            return grad * MaskedFillBackward0.apply(x / norm, norm == 0, 0)
        if math.isinf(p):
            self_abs = x.abs()
            mask = Tensor._make((self_abs._data == norm._data) | np.isnan(self_abs._data))
            scaled = (grad / mask.sum(dims or list(range(x.ndim)), keepdim=True)) * mask
            return SgnBackward0.apply(x) * scaled
        if p < 1:
            powed = MaskedFillBackward0.apply(PowBackward0.apply(x.abs(), p - 1), x == 0, 0)
            scaled = SgnBackward0.apply(x) * powed
            norm_pow = PowBackward0.apply(norm, 1 - p)
            return scaled * grad * norm_pow
        if p < 2:
            powed = PowBackward0.apply(x.abs(), p - 1)
            scaled = SgnBackward0.apply(x) * powed
        else:
            scaled = x * PowBackward0.apply(x.abs(), p - 2)
        scale = MaskedFillBackward0.apply(grad / PowBackward0.apply(norm, p - 1), norm == 0, 0)
        return scaled * scale




_DOF_WARNING = ("{}(): degrees of freedom is <= 0. Correction should be strictly less than the "
                "reduction factor (input numel divided by output numel).")


def _variance(ctx, x, dim, correction, keepdim, name):
    """The shared forward of var/std: sum((x - mean)^2) / max(0, N - correction), N the count
    reduced over; the saves both share (self, dim and correction as given, keepdim)."""
    if x._data.dtype.kind not in "fc":
        raise RuntimeError("std and var only support floating point and complex dtypes")
    ctx.save("self", x)
    ctx.dims = None if dim is None else normalize_dims(dim, x.ndim)
    ctx.given_dims = None if dim is None else (
        [dim] if isinstance(dim, (int, np.integer)) else list(dim))
    ctx.correction, ctx.keepdim = correction, keepdim
    ctx.save_values(correction=correction, dim=ctx.given_dims, keepdim=keepdim)
    axes = None if not ctx.dims or not x.ndim else ctx.dims
    a = x._data
    with _quiet():  # (the mean of nothing is nan)
        kept = np.mean(a, axis=axes, keepdims=True)
    squares = np.abs(a - kept) ** 2 if a.dtype.kind == "c" else (a - kept) ** 2
    total = squares.sum(axis=axes, keepdims=keepdim)
    out_numel = total.size
    count = a.size / out_numel if out_numel else 0
    c = 1 if correction is None else correction
    if count - c <= 0:
        warnings.warn(_DOF_WARNING.format(name), UserWarning, stacklevel=4)
    return np.asarray(total / (count - c if count > c else 0)).astype(total.dtype, copy=False)


def var_backward(grad, x, given_dims, correction, keepdim):
    """PyTorch's var_backward: (2 / (N - correction)) * grad * (self - self.mean(dims)), its
    operands recorded right to left as C++ evaluates them; with every dim reduced and
    N <= correction, grad * where(self == mean, nan, inf)."""
    correction = 1 if correction is None else correction
    if not x.ndim or given_dims is None:
        dof = x.numel() - correction
        if dof <= 0:
            from .._dtype import default_float
            like = Tensor._make(np.zeros((), default_float()))  # (Python numbers: the default dtype)
            return grad * where(x == x.mean(), scalar_tensor(np.nan, like),
                                scalar_tensor(np.inf, like))
        diff = x - x.mean()
        return mul_scalar(grad, 2.0 / dof) * diff
    if not keepdim and x.ndim > 1:
        grad = unsqueeze_multiple(grad, given_dims, x.ndim)
    rnumel = 1
    for d in normalize_dims(given_dims, x.ndim) if given_dims else ():
        rnumel *= x.shape[d]
    diff = x - x.mean(dim=given_dims, keepdim=True)
    # (a C++ double: 2 / 0 is inf, silently under the engine's error state)
    factor = float(np.float64(2.0) / np.float64(rnumel - correction))
    return mul_scalar(grad, factor) * diff


class VarBackward0(Op):
    """out = self.var(dim, correction, keepdim); d/dself = 2 / (N - correction) * grad *
    (self - self.mean(dim)). Saves self (correction, dim, keepdim as given)."""

    def forward(ctx, x, dim=None, correction=None, keepdim=False):
        return _variance(ctx, x, dim, correction, keepdim, "var")

    def backward(ctx, grad):
        return var_backward(grad, ctx.saved("self"), ctx.given_dims, ctx.correction, ctx.keepdim)


class StdBackward0(Op):
    """out = sqrt(var); d/dself = var's backward of ``(grad / (2 * result))`` (0 where
    result = 0). Saves self and result."""

    def forward(ctx, x, dim=None, correction=None, keepdim=False):
        ctx.save_output("result")
        out = _variance(ctx, x, dim, correction, keepdim, "std")
        return np.sqrt(out)

    def backward(ctx, grad):
        result = ctx.saved("result")
        grad_var = MaskedFillBackward0.apply(grad / mul_scalar(result, 2), result == 0, 0)
        return var_backward(grad_var, ctx.saved("self"), ctx.given_dims, ctx.correction,
                            ctx.keepdim)


# -- cumsum (and flip, which its backward records) ------------------------------------------------
class CumsumBackward0(Op):
    """out[i] = self[0] + ... + self[i] along dim; d/dself = the reversed cumsum of grad
    (``grad.flip(dim).cumsum(dim).flip(dim)``; grad itself when there is one element to sum).
    Saves dim (as given)."""

    def forward(ctx, x, dim, dtype=None):
        d = wrap_dim(dim, x.ndim, "cumsum")
        ctx.save_value("dim", dim)
        ctx.dim, ctx.dtype = dim, x._data.dtype
        out = dtype or (x._data.dtype if x._data.dtype.kind in "fc" else np.dtype(np.int64))
        return np.cumsum(x._data.reshape(x.shape or (1,)), axis=d, dtype=out).reshape(x.shape)

    def backward(ctx, grad):
        if grad._data.dtype != ctx.dtype:  # (cumsum(dtype=...): back to self's dtype first)
            grad = grad._to(ctx.dtype)
        if grad.numel() <= 1 or grad.shape[ctx.dim] == 1:
            return grad
        return grad.flip(ctx.dim).cumsum(ctx.dim).flip(ctx.dim)


# -- prod (and cumprod, which its backward records when an input is zero) ------------------------
class CumprodBackward0(Op):
    """out[i] = self[0] * ... * self[i] along dim (recorded by prod's backward); d/dself =
    reversed_cumsum(grad * out) / self. Saves self, dim and result."""

    def forward(ctx, x, dim):
        ctx.save("self", x)
        ctx.save_value("dim", dim)
        ctx.save_output("result")
        ctx.dim = dim
        return np.cumprod(x._data.reshape(x.shape or (1,)), axis=dim).reshape(x.shape)

    def backward(ctx, grad):
        x, result = ctx.saved("self"), ctx.saved("result")
        dim = ctx.dim % (x.ndim or 1)
        if x.numel() <= 1 or x.shape[dim] == 1:
            return grad
        w = result * grad
        if not (x._data == 0).any():
            return w.flip(dim).cumsum(dim).flip(dim) / x
        return _cumprod_backward_zeros(grad, x, dim)


def _cumprod_backward_zeros(grad, x, dim):
    """PyTorch's O(n^2) cumprod_backward (what it records under create_graph; the same values
    as its O(n) first-order path): for each k, grad[k:] times the products leaving x[k] out."""
    from .shape import CatBackward0
    from .._surface.views import narrow
    n = x.shape[dim]
    ones_shape = list(x.shape)
    ones_shape[dim] = 1
    ones = Tensor._make(np.ones((1,), dtype=grad._data.dtype)).expand(*ones_shape)
    grad_input = None
    for k in range(n):
        if k == 0:
            after = CumprodBackward0.apply(narrow(x, dim, k + 1, n - k - 1), dim)
            omitted = CatBackward0.apply([ones, after], dim=dim)
        elif k == n - 1:
            omitted = narrow(x, dim, 0, k).prod(dim, True)
        else:
            until = narrow(x, dim, 0, k).prod(dim, True)
            after = CumprodBackward0.apply(narrow(x, dim, k + 1, n - k - 1), dim)
            omitted = CatBackward0.apply([until, until.expand_as(after) * after], dim=dim)
        grad_slice = (narrow(grad, dim, k, n - k) * omitted).sum(dim).unsqueeze(dim)
        grad_input = grad_slice if k == 0 else CatBackward0.apply([grad_input, grad_slice], dim=dim)
    return grad_input


def _prod_safe_zeros_backward(grad, x, dim):
    """PyTorch's prod_safe_zeros_backward: grad times the product of every other element, as
    exclusive cumulative products from both ends (no division, so zeros are fine)."""
    from .shape import CatBackward0
    from .._surface.views import narrow
    if not x.numel():
        return grad.expand_as(x)
    n = x.shape[dim]
    if n == 1:
        return grad
    ones_shape = list(x.shape)
    ones_shape[dim] = 1
    ones = Tensor._make(np.ones(ones_shape, dtype=grad._data.dtype))
    normal = CumprodBackward0.apply(CatBackward0.apply([ones, narrow(x, dim, 0, n - 1)], dim=dim),
                                    dim)
    reverse = narrow(x, dim, 1, n - 1).flip(dim)
    reverse = CumprodBackward0.apply(CatBackward0.apply([ones, reverse], dim=dim), dim).flip(dim)
    return grad * (normal * reverse)


class ProdBackward0(Op):
    """out = the product of every element; d/dself = grad * (result / self), or, where self
    has a zero, grad times the product of the others (cumulative products). Saves self and
    result."""

    def forward(ctx, x, dtype=None):
        ctx.save("self", x)
        ctx.save_output("result")
        out = dtype or (x._data.dtype if x._data.dtype.kind in "fc" else np.dtype(np.int64))
        return np.asarray(np.prod(x._data, dtype=out))

    def backward(ctx, grad):
        x, result = ctx.saved("self"), ctx.saved("result")
        x = x._to(grad._data.dtype)
        if not x.ndim:
            return grad
        zeros = int((x._data == 0).sum())
        if not zeros:
            return grad * (result / x)
        if not _grad_mode._enabled and zeros > 1:
            return Tensor._make(np.zeros(x.shape, dtype=x._data.dtype))
        return _prod_safe_zeros_backward(grad, x.contiguous().view(-1), 0).view_as(x)


class ProdBackward1(Op):
    """out = self.prod(dim, keepdim); the gradient as ProdBackward0's, per slice along dim.
    Saves self and result (dim as given, keepdim)."""

    def forward(ctx, x, dim, keepdim=False, dtype=None):
        d = wrap_dim(dim, x.ndim, "prod")
        ctx.save("self", x)
        ctx.save_output("result")
        ctx.save_values(dim=dim, keepdim=keepdim)
        ctx.dim, ctx.keepdim = d, keepdim
        out = dtype or (x._data.dtype if x._data.dtype.kind in "fc" else np.dtype(np.int64))
        if not x.ndim:
            return x._data.astype(out)
        return np.asarray(np.prod(x._data, axis=d, keepdims=keepdim, dtype=out))

    def backward(ctx, grad):
        x, result = ctx.saved("self"), ctx.saved("result")
        x = x._to(grad._data.dtype)
        if not x.ndim:
            return grad
        if not ctx.keepdim:
            grad, result = grad.unsqueeze(ctx.dim), result.unsqueeze(ctx.dim)
        if not (x._data == 0).any():
            return grad * (result / x)
        return _prod_safe_zeros_backward(grad, x, ctx.dim)
