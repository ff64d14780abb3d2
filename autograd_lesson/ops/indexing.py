"""Picking and filling by index or mask: ``masked_fill``, ``gather``, ``index_select``.

The nodes their backwards record (``ScatterAddBackward0``, ``IndexAddBackward0``,
``MaskedSelectBackward0``) live in ``formula``; here are PyTorch's checks, in its order.
"""
import warnings

import numpy as np

from .. import _grad_mode, _node
from .._tensor import Tensor
from .._broadcast import is_expandable_to
from ._op import Op
from .._surface.checks import broadcast_shape, check_scalar, wrap_dim
from .._surface.promotion import cpp_name, torch_name
from .._surface.parser import invalid_arguments, is_number
from .formula import GatherBackward0, IndexAddBackward0, MaskedFillBackward0, MaskedFillBackward1
from .formula import zeros

MASKED_FILL_SIGNATURES = (("Tensor mask, Tensor value", "Tensor mask, Number value"),
                          ("Tensor input, Tensor mask, Tensor value",
                           "Tensor input, Tensor mask, Number value"))


def _masked_fill_arguments(name, x, mask, value, function, convert=True):
    if not (isinstance(mask, Tensor) and (isinstance(value, Tensor) or is_number(value))):
        raise invalid_arguments(name, (x, mask, value) if function else (mask, value),
                                MASKED_FILL_SIGNATURES[function])
    if isinstance(value, Tensor) and value.ndim:
        raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value.ndim} dimension(s).")
    if mask._data.dtype != np.bool_:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{cpp_name(mask._data.dtype)}")  # (the mask's C++ type)
    if convert:
        check_scalar(value.item() if isinstance(value, Tensor) else value, x._data.dtype)


def masked_fill(x, mask, value, _function=False):
    """``x`` with ``value`` where ``mask`` (broadcast together, mask first): a number gives
    ``MaskedFillBackward0``, a 0-dim tensor ``MaskedFillBackward1`` (an edge to the value)."""
    if isinstance(mask, Tensor):
        broadcast_shape(mask.shape, x.shape)
    _masked_fill_arguments("masked_fill", x, mask, value, _function)
    if isinstance(value, Tensor):
        if (x._data.dtype.kind not in "fc" and value.requires_grad and _grad_mode._enabled
                and _node._inplace_self is not x):  # (in place, PyTorch records it anyway)
            raise RuntimeError(f"Autograd not support dtype: {torch_name(x._data.dtype)}")
        return MaskedFillBackward1.apply(x, mask, value)
    return MaskedFillBackward0.apply(x, mask, value)


def masked_fill_(x, mask, value):
    """In place; on an expanded tensor PyTorch warns and writes where the mask is set."""
    _masked_fill_arguments("masked_fill_", x, mask, value, False, convert=False)
    if not is_expandable_to(mask.shape, x.shape):  # (x first, in place; then the value)
        raise RuntimeError(f"output with shape {list(x.shape)} doesn't match the broadcast shape "
                           f"{list(broadcast_shape(x.shape, mask.shape))}")
    check_scalar(value.item() if isinstance(value, Tensor) else value, x._data.dtype)
    from .inplace import has_internal_overlap
    from .shape import EXPANDED_WARNING
    written = None
    if has_internal_overlap(x._data):
        warnings.warn(EXPANDED_WARNING.format(op="masked_fill_", index="mask", value="scalar"),
                      UserWarning, stacklevel=3)
        written = np.broadcast_to(mask._data, x.shape) if mask.shape != x.shape else mask._data
    others = (value,) if isinstance(value, Tensor) else ()
    return x._inplace(lambda t: masked_fill(t, mask, value), *others, overlap=written is None,
                      written=written)


def _index_arguments(name, x, dim, index, position=1):
    """PyTorch's parser, in its order: dim an int, index a Tensor; then dim's range."""
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
        wrap_dim(dim, x.ndim, name, "dim", position)
    if not isinstance(index, Tensor):
        from .._dtype import typename
        raise TypeError(f"{name}(): argument 'index' (position {position + 1}) must be Tensor, "
                        f"not {typename(index)}")
    return wrap_dim(dim, x.ndim, name, "dim", position)


def gather(x, dim, index, sparse_grad=False, _function=False):
    """out[i][j] = x[i][index[i][j]] along ``dim``; index may be smaller than x off ``dim``."""
    first = 2 if _function else 1
    given, dim = dim, _index_arguments("gather", x, dim, index, first)
    if sparse_grad:
        raise NotImplementedError("autograd_lesson has no sparse gradients: use "
                                  "sparse_grad=False")
    if index._data.dtype not in (np.int64, np.int32):
        raise RuntimeError("gather(): Expected dtype int32/int64 for index")
    if index.numel():  # (an empty index is not checked at all: out has its shape)
        if max(index.ndim, 1) != max(x.ndim, 1):
            raise RuntimeError("Index tensor must have the same number of dimensions as input "
                               "tensor")
        for d, (n, m) in enumerate(zip(index.shape, x.shape)):
            if d != dim and n > m:
                raise RuntimeError(f"Size does not match at dimension {d} expected index "
                                   f"{list(index.shape)} to be no larger than self "
                                   f"{list(x.shape)} apart from dimension {dim}")
        size = x.shape[dim] if x.ndim else 1
        bad = (index._data < 0) | (index._data >= size)
        if bad.any():
            raise RuntimeError(f"index {int(index._data[bad].flat[0])} is out of bounds for "
                               f"dimension {dim} with size {size}")
    return GatherBackward0.apply(x, given, index, sparse_grad)  # (the dim saved as given)


class IndexSelectBackward0(Op):
    """out = the slices of self at index along dim; d/dself = ``zeros.index_add_(dim, index,
    grad)``: a duplicate index sums its gradients. Saves index (and dim, self_sym_sizes)."""

    non_differentiable = (2,)

    def forward(ctx, x, dim, index):
        ctx.save("index", index)
        ctx.save_values(dim=dim, self_sym_sizes=list(x.shape))
        ctx.dim, ctx.shape = dim, x.shape
        if not x.ndim:
            return x._data.copy()
        return np.take(x._data, index._data.reshape(-1), axis=dim % x.ndim)

    def backward(ctx, grad):
        return IndexAddBackward0.apply(zeros(ctx.shape, grad), ctx.dim, ctx.saved("index"), grad)


def index_select(x, dim, index, _function=False):
    """The slices of ``x`` at the int32/int64 vector (or 0-dim) ``index`` along ``dim``."""
    first = 2 if _function else 1
    given, dim = dim, _index_arguments("index_select", x, dim, index, first)
    if index.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if index._data.dtype not in (np.int64, np.int32):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    values = index._data.reshape(-1)
    if not x.ndim and values.size != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got "
                           f"{values.size} value(s)")
    size = x.shape[dim] if x.ndim else 1
    bad = (values < 0) | (values >= size)
    if values.size and x.ndim > 1 and not x.numel() and not size:
        raise RuntimeError("index_select(): self indexing axis dim should be positive")
    if bad.any():
        # PyTorch's CPU kernels word it two ways: its dim-1 fast path (and an empty self)
        # checks every index first, the general loop as it goes
        if x.ndim > 1 and (dim == 1 or not x.numel()):
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={int(values[bad][0])} "
                               f"axis_dim={size}")
        raise IndexError("index out of range in self")
    return IndexSelectBackward0.apply(x, given, index)


__all__ = ["masked_fill", "masked_fill_", "gather", "index_select"]
