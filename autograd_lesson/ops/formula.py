"""Ops that PyTorch's backward formulas call, so ``create_graph=True`` records them.

Python's ``x * 2`` wraps the 2 into a saved tensor (``MulBackward0``); a C++ formula such as
sqrt's ``grad / (2 * result)`` calls the Scalar overload instead, whose node (``MulBackward1``)
keeps the number as a plain value and has one edge. The other nodes here place or pick a
gradient (``SelectBackwardBackward0``, ``IndexPutImplBackward0``, ``ScatterBackward0`` ...)
or mask it (``MaskedFillBackward0``), exactly where PyTorch's formulas do.
"""
import numpy as np

from .._dtype import default_float
from .._tensor import Tensor
from ._op import Op
from .._surface.checks import normalize_dims
from .._surface.promotion import result_type


def zeros(shape, like):
    """A fresh zero tensor outside the graph (``zeros_like`` / ``new_zeros`` in a formula)."""
    return Tensor._make(np.zeros(tuple(shape), dtype=like._data.dtype))


def scalar_tensor(number, like):
    """``at::scalar_tensor(number, grad.options())``: a 0-dim constant."""
    return Tensor._make(np.asarray(number, dtype=like._data.dtype))


def _true_divide_type(x, y):
    dtype = result_type(x, y)
    return dtype if dtype.kind in "fc" else default_float()


# -- Tensor (op) C++ Scalar ---------------------------------------------------------------------
class MulBackward1(Op):
    """out = self * other for a C++ Scalar other; d/dself = grad * other. Saves no tensor."""

    def forward(ctx, x, scalar):
        ctx.save_value("other", scalar)
        ctx.scalar = scalar
        return np.asarray(x._data * scalar).astype(result_type(x, scalar), copy=False)

    def backward(ctx, grad):
        return mul_scalar(grad, ctx.scalar)


class DivBackward1(Op):
    """out = self / other for a C++ Scalar other; d/dself = grad / other. Saves no tensor."""

    def forward(ctx, x, scalar):
        ctx.save_value("other", scalar)
        ctx.scalar = scalar
        return np.asarray(x._data / scalar).astype(_true_divide_type(x, scalar), copy=False)

    def backward(ctx, grad):
        return div_scalar(grad, ctx.scalar)


class AddBackward1(Op):
    """out = self + other for a C++ Scalar other. Saves nothing at all."""

    def forward(ctx, x, scalar):
        return np.asarray(x._data + scalar).astype(result_type(x, scalar), copy=False)

    def backward(ctx, grad):
        return grad


class SubBackward1(Op):
    """out = self - other for a C++ Scalar other. Saves nothing at all."""

    def forward(ctx, x, scalar):
        return np.asarray(x._data - scalar).astype(result_type(x, scalar), copy=False)

    def backward(ctx, grad):
        return grad


def mul_scalar(x, scalar):
    return MulBackward1.apply(x, scalar)


def div_scalar(x, scalar):
    return DivBackward1.apply(x, scalar)


def maybe_multiply(grad, scalar):
    """PyTorch's ``maybe_multiply``: no node at all when the factor is 1."""
    return grad if scalar == 1 else mul_scalar(grad, scalar)


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


# -- elementwise helpers ------------------------------------------------------------------------
class SgnBackward0(Op):
    """out = sign(self) (abs's backward records it); its gradient is zero. Saves self, result."""

    def forward(ctx, x):
        ctx.save("self", x)
        ctx.save_output("result")
        out = np.sign(x._data)
        if out.dtype.kind == "f":  # PyTorch's sign of a real nan is 0 (NumPy's is nan)
            out = np.where(out != out, out.dtype.type(0), out)
        return out

    def backward(ctx, grad):
        return zeros(grad.shape, grad)


class LogitBackward0(Op):
    """out = log(self / (1 - self)) (binary_cross_entropy's target gradient records it);
    d/dself = grad / (self (1 - self)). Saves self; eps (None) is a non-tensor save."""

    def forward(ctx, p):
        ctx.save("self", p)
        ctx.save_value("eps", None)
        return np.log(p._data / (1 - p._data))

    def backward(ctx, grad):
        from .elementwise import RsubBackward1, where
        p = ctx.saved("self")
        inside = (p >= 0.0) & (p <= 1.0)
        return where(inside, grad / (p * RsubBackward1.apply(p, 1.0)), scalar_tensor(np.nan, p))


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


class SelectBackwardBackward0(Op):
    """select's backward: grad placed at index along dim of a zero tensor; d/dgrad selects.
    Saves no tensor (dim and index as given)."""

    def forward(ctx, grad, shape, dim, index):
        ctx.save_values(dim=dim, index=index)
        ctx.dim, ctx.index = dim, index
        out = np.zeros(shape, dtype=grad._data.dtype)
        out[(slice(None),) * (dim % len(shape)) + (index,)] = grad._data
        return out

    def backward(ctx, grad):
        return grad.select(ctx.dim, ctx.index)


class SliceBackwardBackward0(Op):
    """slice's backward: grad placed at start:end:step along dim of a zero tensor.
    Saves no tensor (dim, start, end, step as the forward slice saved them)."""

    def forward(ctx, grad, shape, dim, start, end, step):
        for name, v in (("dim", dim), ("start", start), ("end", end), ("step", step)):
            ctx.save_value(name, v)
        ctx.dim, ctx.key = dim, slice(start, end, step)
        out = np.zeros(shape, dtype=grad._data.dtype)
        out[(slice(None),) * dim + (ctx.key,)] = grad._data
        return out

    def backward(ctx, grad):
        from .views import SliceBackward0
        return SliceBackward0.apply(grad, ctx.dim, ctx.key)


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


class IndexPutImplBackward0(SavedIndexList, Op):
    """``zeros.index_put_(indices, values, accumulate=True)`` (advanced indexing's backward):
    values added at the indices. Saves indices (the same tensor the indexing saved)."""

    non_differentiable = (1,)
    _indices_container = tuple

    def forward(ctx, x, indices, values):
        save_indices(ctx, indices)
        ctx.save_value("accumulate", True)
        out = np.array(x._data, copy=True)
        np.add.at(out, index_key(indices, out.shape), values._data)
        return out

    def backward(ctx, grad):
        from .shape import CloneBackward0
        from .indexing import IndexBackward0
        indices = ctx.saved_indices()
        grad_x = CloneBackward0.apply(grad) if ctx.needs_input_grad[0] else None
        grad_values = IndexBackward0.apply(grad, indices) if ctx.needs_input_grad[1] else None
        return grad_x, grad_values
