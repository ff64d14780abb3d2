"""Indexing nodes: ``x[key]`` with int lists or masks (``IndexBackward0``), writes at indices
(``IndexPutBackward0``), ``index_select``, ``gather`` / ``scatter`` and ``masked_fill``, and the
nodes their backwards record: ``IndexPutImplBackward0`` (a gradient placed back at the indices),
``IndexAddBackward0``, ``ScatterAddBackward0``, ``MaskedSelectBackward0``.

The entry points and PyTorch's checks are in ``autograd_lesson._surface.indexing``.
"""

import numpy as np

from .. import _node
from .._tensor import Tensor
from ._op import Op
from ._util import zeros
from .shape import CloneBackward0
from .._surface.checks import _check_entries, check_scalar
from .._surface.kernels import put
from .._surface.promotion import cast


class SavedIndexList:
    """PyTorch saves advanced-indexing indices as a tuple of tensors, one per indexed dim, None
    for a dim a slice kept (``x[:, [0, 1]]``: ``(None, tensor([0, 1]))``). One index is the slot
    ``indices``; several are ``indices[0]``, ``indices[1]`` ... Unlike a single saved tensor,
    the raw ``_raw_saved_indices`` raises once the graph is freed."""

    _indices_container = tuple

    def saved_indices(self):
        """What ``save_indices`` was given, unpacked."""
        pattern = self.__dict__.get("index_pattern")
        if pattern is None:
            return self.saved("indices")
        return tuple(self.saved(f"indices[{j}]") if used else None
                     for j, used in enumerate(pattern))

    @property
    def _saved_indices(self):
        indices = self.saved_indices()
        return self._indices_container([indices] if isinstance(indices, Tensor) else indices)

    @property
    def _raw_saved_indices(self):
        pattern = self.__dict__.get("index_pattern")
        names = ["indices"] if pattern is None else [f"indices[{j}]" if used else None
                                                      for j, used in enumerate(pattern)]
        slots = [None if n is None else self._saved_slots[n] for n in names]
        if any(slot is not None and slot.released for slot in slots):
            from .._autograd_errors import FREED_MESSAGE
            raise RuntimeError(FREED_MESSAGE)
        return self._indices_container(slots)


def save_indices(ctx, indices):
    """Save a Tensor, or a tuple of Tensors and Nones (the dims they index)."""
    if isinstance(indices, Tensor):
        ctx.save("indices", indices)
        return
    ctx.index_pattern = tuple(t is not None for t in indices)
    for j, t in enumerate(indices):
        if t is not None:
            ctx.save(f"indices[{j}]", t)


def index_key(indices, shape):
    """The NumPy key of saved indices into a tensor of ``shape``: a Tensor's array, or a tuple
    with ``:`` for None. Int indices are clipped to their dim: the checks already passed, so
    one out of range only gets here when the result is empty (where PyTorch checks nothing)."""
    entries = (indices,) if isinstance(indices, Tensor) else indices
    key, dim = [], 0
    for t in entries:
        if t is None or t._data.dtype == np.bool_:
            key.append(slice(None) if t is None else t._data)
            dim += 1 if t is None else t.ndim
            continue
        n = shape[dim] if dim < len(shape) else 0
        key.append(np.clip(t._data, -n, n - 1) if n else t._data)
        dim += 1
    return key[0] if isinstance(indices, Tensor) else tuple(key)


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
    """out = self[indices] (advanced indexing: int lists or bool masks; a copy, not a view);
    d/dself = grad added at indices into zeros (``IndexPutImplBackward0``: duplicates sum).
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


class IndexPutImplBackward0(SavedIndexList, Op):
    """``zeros.index_put_(indices, values, accumulate=True)`` (advanced indexing's backward):
    values added at the indices. Saves indices (the same tensor the indexing saved)."""

    non_differentiable = (1,)
    _indices_container = tuple

    def forward(ctx, x, indices, values):
        save_indices(ctx, indices)
        ctx.save_value("accumulate", True)
        out = np.array(x._data, copy=True)
        key = index_key(indices, out.shape)
        try:
            np.add.at(out, key, values._data)
        except ValueError:  # (only a node called by hand gets a gradient of the wrong shape)
            raise RuntimeError(f"shape mismatch: value tensor of shape {list(values.shape)} "
                               f"cannot be broadcast to indexing result of shape "
                               f"{list(out[key].shape)}") from None
        return out

    def backward(ctx, grad):
        indices = ctx.saved_indices()
        grad_x = CloneBackward0.apply(grad) if ctx.needs_input_grad[0] else None
        grad_values = IndexBackward0.apply(grad, indices) if ctx.needs_input_grad[1] else None
        return grad_x, grad_values


class IndexAddBackward0(Op):
    """out = self with source's slices added at index along dim (index_select's backward);
    d/dself = grad, d/dsource = grad.index_select(dim, index). Saves index and source (and
    alpha, dim, source_dim)."""

    non_differentiable = (2,)

    def forward(ctx, x, dim, index, source):
        ctx.save("index", index)
        ctx.save("source", source)
        ctx.save_values(alpha=1, dim=dim, source_dim=source.ndim)
        ctx.dim = dim
        out = np.array(x._data, copy=True)
        flat = out.reshape(out.shape or (1,))
        values = source._data.reshape(source.shape or (1,))
        np.add.at(flat, (slice(None),) * (dim % flat.ndim) + (index._data.reshape(-1),), values)
        return out

    def backward(ctx, grad):
        grad_source = None
        if ctx.needs_input_grad[1]:
            source = ctx.saved("source")
            grad_source = grad.index_select(ctx.dim, ctx.saved("index"))
            if grad_source.shape != source.shape:
                grad_source = grad_source.reshape(source.shape)
        return (grad if ctx.needs_input_grad[0] else None), grad_source


class MaskedFillBackward0(Op):
    """out = self with a number where mask; d/dself = grad with 0 where mask.
    Saves mask (which gets no edge)."""

    non_differentiable = (1,)

    def forward(ctx, x, mask, value):
        ctx.save("mask", mask)
        return np.where(mask._data, value, x._data).astype(x._data.dtype, copy=False)

    def backward(ctx, grad):
        return MaskedFillBackward0.apply(grad, ctx.saved("mask"), 0)


class MaskedFillBackward1(Op):
    """out = self with a 0-dim tensor value where mask (max's backward); d/dvalue = the sum of
    grad over the mask. Saves mask. As in PyTorch, in place it records whatever self's dtype
    (``int_tensor.masked_fill_(mask, w.sum())`` requires grad)."""

    non_differentiable = (1,)
    any_dtype = True

    def forward(ctx, x, mask, value):
        ctx.save("mask", mask)
        return np.where(mask._data, value._data, x._data).astype(x._data.dtype, copy=False)

    def backward(ctx, grad):
        mask = ctx.saved("mask")
        grad_x = MaskedFillBackward0.apply(grad, mask, 0) if ctx.needs_input_grad[0] else None
        grad_value = (MaskedSelectBackward0.apply(grad, mask).sum() if ctx.needs_input_grad[1]
                      else None)
        return grad_x, grad_value


class MaskedSelectBackward0(Op):
    """out = the elements of self where mask (both broadcast), as a vector (masked_fill's
    value gradient); d/dself = grad written back where mask. Saves self and mask."""

    non_differentiable = (1,)

    def forward(ctx, x, mask):
        ctx.save("self", x)
        ctx.save("mask", mask)
        values, where = np.broadcast_arrays(x._data, mask._data)
        ctx.shape = values.shape
        return values[where]

    def backward(ctx, grad):
        mask = ctx.saved("mask")
        full = Tensor._make(np.broadcast_to(mask._data, ctx.shape).copy())
        return IndexPutImplBackward0.apply(zeros(ctx.shape, grad), full, grad)


# -- placing a gradient back into a zero tensor (and picking it out again) ------------------------
class ScatterBackward0(Op):
    """out = self with src written at index along dim (max(dim)'s backward). Saves index."""

    non_differentiable = (2,)

    def forward(ctx, x, dim, index, src):
        ctx.save("index", index)
        ctx.save_value("dim", dim)
        ctx.dim = dim
        out = np.array(x._data, copy=True)
        np.put_along_axis(out, index._data, src._data, axis=dim)
        return out

    def backward(ctx, grad):
        index = ctx.saved("index")
        grad_x = grad_src = None
        if ctx.needs_input_grad[0]:  # what was overwritten gets no gradient
            kept = np.ones(grad.shape, dtype=grad._data.dtype)
            np.put_along_axis(kept, index._data, 0, axis=ctx.dim)
            grad_x = grad * Tensor._make(kept)
        if ctx.needs_input_grad[1]:
            grad_src = GatherBackward0.apply(grad, ctx.dim, index)
        return grad_x, grad_src


class GatherBackward0(Op):
    """out[i][j] = self[i][index[i][j]] (dim 1; ``gather``, and scatter's backward); d/dself =
    ``zeros.scatter_add_(dim, index, grad)``: a duplicate index sums its gradients. Saves self
    (for its shape), index, dim and sparse_grad."""

    non_differentiable = (2,)

    def forward(ctx, x, dim, index, sparse_grad=False):
        ctx.save("self", x)
        ctx.save("index", index)
        ctx.save_values(dim=dim, sparse_grad=sparse_grad)
        ctx.dim = dim
        return take_along(x._data, dim % max(x.ndim, 1), index._data)

    def backward(ctx, grad):
        x, index = ctx.saved("self"), ctx.saved("index")
        return ScatterAddBackward0.apply(zeros(x.shape, grad), ctx.dim, index, grad)


def _along(shape, dim, index):
    """NumPy's key of the elements ``index`` names along ``dim``, over index's own extent."""
    key = list(np.ogrid[tuple(slice(0, n) for n in index.shape)])
    key[dim] = index
    return tuple(key)


def take_along(array, dim, index):
    """``gather`` on arrays: index's shape, which may be smaller than array's off ``dim``."""
    if not index.size:
        return np.empty(index.shape, dtype=array.dtype)
    if not array.ndim:  # (PyTorch treats a 0-dim tensor as one element here)
        return array.reshape(1)[index.reshape(-1)].reshape(index.shape)
    return array[_along(array.shape, dim, index.reshape(index.shape or (1,)))].reshape(index.shape)


class ScatterAddBackward0(Op):
    """out = self with src[i][j] added at [i][index[i][j]] (dim 1; gather's backward);
    d/dself = grad, d/dsrc = grad.gather(dim, index). Saves index and dim."""

    non_differentiable = (2,)

    def forward(ctx, x, dim, index, src):
        ctx.save("index", index)
        ctx.save_value("dim", dim)
        ctx.dim = dim
        out = np.array(x._data, copy=True)
        if not index._data.size:
            return out
        flat = out.reshape(out.shape or (1,))
        key = _along(flat.shape, dim % flat.ndim, index._data.reshape(index.shape or (1,)))
        np.add.at(flat, key, src._data.reshape(src.shape or (1,))[
            tuple(slice(0, n) for n in (index.shape or (1,)))])
        return out

    def backward(ctx, grad):
        grad_src = (GatherBackward0.apply(grad, ctx.dim, ctx.saved("index"))
                    if ctx.needs_input_grad[1] else None)
        return (grad if ctx.needs_input_grad[0] else None), grad_src
