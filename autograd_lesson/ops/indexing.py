"""Indexing nodes: ``x[key]`` with int lists or masks (``IndexBackward0``), writes at indices
(``IndexPutBackward0``), ``index_select``.

The nodes their backwards record (``IndexPutImplBackward0``, ``IndexAddBackward0``...) live in
``formula``; the entry points and PyTorch's checks in ``autograd_lesson._surface.indexing``.
"""

import numpy as np

from .. import _node
from .._tensor import Tensor
from ._op import Op
from .formula import (IndexAddBackward0, IndexPutImplBackward0, SavedIndexList, index_key,
                      save_indices, zeros)
from .._surface.checks import _check_entries, check_scalar
from .._surface.kernels import put
from .._surface.promotion import cast


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


class IndexBackward0(SavedIndexList, Op):
    """out = self[indices] (advanced indexing: int lists or bool masks; a copy, not a view).
    Saves indices (a new int64 tensor for a list; the mask itself for a bool mask; a tuple of
    them, None for a dim a slice kept), which PyTorch exposes as a tuple
    (``_saved_indices == (mask,)``) and gives no edge."""

    non_differentiable = (1,)

    def forward(ctx, x, index):
        ctx.input_shape = x.shape
        ctx.save_value("self_sym_sizes", list(x.shape))
        if isinstance(index, tuple):  # from index(): already checked, one entry per dim
            save_indices(ctx, index)
            return np.array(x._data[index_key(index, x.shape)], order="C")
        if not isinstance(index, Tensor):  # an int list becomes a new int64 tensor
            array = np.asarray(index)
            index = Tensor._make(array if array.dtype == bool else array.astype(np.int64))
        ctx.save("indices", index)
        key = index._data
        if not x.ndim and key.dtype != bool:
            raise IndexError("too many indices for tensor of dimension 0")
        if isinstance(key, np.ndarray) and key.dtype == bool and key.ndim > x.ndim:
            raise IndexError(f"too many indices for tensor of dimension {x.ndim}")
        if isinstance(key, np.ndarray) and key.dtype == bool and key.shape != x.shape[:key.ndim]:
            _check_entries(x.shape, (index,))  # raises, naming the first dim that differs
        try:
            return np.array(x._data[index_key(index, x.shape)], order="C")
        except IndexError as e:
            raise IndexError(str(e)) from None

    def backward(ctx, grad):
        return IndexPutImplBackward0.apply(zeros(ctx.input_shape, grad), ctx.saved_indices(), grad)


class IndexPutBackward0(SavedIndexList, Op):
    """out = self with values written at indices (``x[mask] = 0``, ``c[[1, 2]] = v``,
    ``index_put_``), or added there with ``accumulate``. d/dself = grad (accumulate) or grad
    with zeros at indices, d/dvalues = grad[indices] (every duplicate gets its gradient, even
    one overwritten by a later write, as PyTorch). Saves indices (a tuple, as
    ``IndexPutImplBackward0``); no edge for them."""

    non_differentiable = (1,)
    scalar_edges = (2,)
    _indices_container = tuple
    any_dtype = True  # (x[mask] = v of an integer x with v requiring grad: as PyTorch)

    def forward(ctx, x, indices, values, accumulate=False):
        save_indices(ctx, indices)
        ctx.save_value("accumulate", accumulate)
        ctx.accumulate = accumulate
        if isinstance(values, Tensor):
            values = cast(values._data, x._data.dtype)
            if values.size == 1 and values.ndim:  # (one value of any shape: masked_fill_'s)
                values = values.reshape(())
        else:
            values = check_scalar(values, x._data.dtype)
        in_place = x is _node._inplace_self  # (only a write in place sees shared memory)
        return put(x._data, index_key(indices, x.shape), values, accumulate, in_place)

    def backward(ctx, grad):
        indices = ctx.saved_indices()
        grad_x = None
        if ctx.needs_input_grad[0]:
            grad_x = grad if ctx.accumulate else IndexPutBackward0.apply(grad, indices, 0.0)
        grad_values = IndexBackward0.apply(grad, indices) if ctx.needs_input_grad[1] else None
        return grad_x, grad_values
