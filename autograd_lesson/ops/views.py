"""View ops' nodes: each output shares storage and version counter with its input.

None of these saves a tensor, which is why graphs made of them can be backpropagated twice.
"""

import numpy as np

from ._op import Op
from .._tensor import Tensor
from ._util import zeros
from .double_backward import SelectBackwardBackward0, SliceBackwardBackward0
from .indexing import IndexPutImplBackward0
from .shape import CatBackward0, StackBackward0
from .._surface.checks import expand_shape, normalize_dims, wrap_dim
from .._surface.kernels import _offsets


class ViewBackward0(Op):
    """out = self.view(shape) (also a reshape of a contiguous tensor); d/dself =
    grad.reshape(self's shape). A view; saves no tensor."""

    is_view = True

    def forward(ctx, x, shape):
        if ctx.recording:  # (what backward reads; an unrecorded ctx gets no instance dict)
            ctx.input_shape = x._data.shape
            ctx.save_value("self_sym_sizes", list(ctx.input_shape))
        try:  # possible exactly when the strides allow it, as in PyTorch
            return x._data.reshape(shape, copy=False)
        except ValueError:
            raise RuntimeError("view size is not compatible with input tensor's size and stride "
                               "(at least one dimension spans across two contiguous subspaces). "
                               "Use .reshape(...) instead.") from None

    def backward(ctx, grad):
        return grad.reshape(ctx.input_shape)


class UnsafeViewBackward0(Op):
    """The reshape step after a copy (``reshape`` of a non-contiguous tensor); d/dself =
    grad.reshape(self's shape). Saves no tensor."""

    def forward(ctx, x, shape):
        ctx.input_shape = x.shape
        ctx.save_value("self_sym_sizes", list(x.shape))
        return x._data.reshape(shape)

    def backward(ctx, grad):
        return grad.reshape(ctx.input_shape)


class ReshapeAliasBackward0(ViewBackward0):
    """out = self.reshape(shape) of a non-contiguous tensor whose strides still allow a view
    (PyTorch's ``_reshape_alias``); d/dself = grad.reshape(self's shape). A view; saves no
    tensor."""


class TBackward0(Op):
    """out = self.t() (a view); d/dself = grad.t(). Saves no tensor."""

    is_view = True

    def forward(ctx, x):
        if x._data.ndim > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {x.ndim}D")
        return x._data.T

    def backward(ctx, grad):
        return grad.t()


class PermuteBackward0(Op):
    """out = self with its dims reordered (``permute``, and ``x.T``); a view. d/dself = grad
    permuted back (the inverse permutation). Saves no tensor."""

    is_view = True

    def forward(ctx, x, dims):
        ctx.save_value("dims", list(dims))
        if len(dims) != x.ndim:
            raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input "
                               f"does not match the length of the desired ordering of dimensions "
                               f"i.e. input.dim() = {x.ndim} is not equal to "
                               f"len(dims) = {len(dims)}")
        order = tuple(wrap_dim(d, x.ndim) for d in dims)
        if len(set(order)) != len(order):
            raise RuntimeError("permute(): duplicate dims are not allowed.")
        ctx.inverse = tuple(int(i) for i in np.argsort(order))
        return np.transpose(x._data, order)

    def backward(ctx, grad):
        return PermuteBackward0.apply(grad, ctx.inverse)


class TransposeBackward0(Op):
    """out = self.transpose(dim0, dim1) (a view); d/dself = grad.transpose(dim0, dim1). Saves
    no tensor."""

    is_view = True

    def forward(ctx, x, dim0, dim1):
        dims = (wrap_dim(dim0, x.ndim), wrap_dim(dim1, x.ndim))
        ctx.dims = (dim0, dim1)  # the backward transposes by the dims as given (-2, -1)
        ctx.save_values(dim0=dim0, dim1=dim1)
        return np.swapaxes(x._data, *dims) if x.ndim else x._data

    def backward(ctx, grad):
        return grad.transpose(*ctx.dims) if grad.ndim else grad


class ExpandBackward0(Op):
    """out = self broadcast to a larger shape (a view); d/dself = grad summed back. No tensor."""

    is_view = True

    def forward(ctx, x, shape):
        ctx.input_shape = x.shape
        ctx.save_value("self_sym_sizes", list(x.shape))
        a = x._data
        target = expand_shape(x.shape, shape, a.dtype)
        out = np.broadcast_to(a, target)
        # PyTorch's strides (inferExpandGeometry): 0 where a dim grows, the input's where it is
        # kept, and a new size-1 dim the contiguous stride over the dims after it (NumPy gives
        # both 0; matmul's fold decision and the overlap checks read these strides)
        lead, strides = len(target) - a.ndim, [0] * len(target)
        for i in range(len(target) - 1, -1, -1):
            if i >= lead:
                size, stride = a.shape[i - lead], a.strides[i - lead]
            else:  # (a 0-dim input: every stride 0)
                size = 1
                stride = target[i + 1] * strides[i + 1] if a.ndim else 0
            strides[i] = 0 if size != target[i] else stride
        strides = tuple(strides)
        if a.flags.writeable or strides != out.strides:  # (writeable: PyTorch writes through)
            out = np.lib.stride_tricks.as_strided(a, target, strides,
                                                  writeable=a.flags.writeable)
        return out

    def backward(ctx, grad):
        from .._broadcast import sum_to
        return sum_to(grad, ctx.input_shape)


class UnsqueezeBackward0(Op):
    """out = self with a new dim of size 1 (a view); d/dself = grad.squeeze(dim). Saves no
    tensor."""

    is_view = True

    def forward(ctx, x, dim):
        ctx.dim = dim
        ctx.save_value("dim", dim)
        a = x._data
        d = wrap_dim(dim, a.ndim + 1, "unsqueeze")
        # PyTorch's strides: the others kept, the new dim's the next dim's extent (NumPy's
        # expand_dims may re-stride the size-1 dims, which matmul's fold decision reads)
        stride = a.strides[d] * a.shape[d] if d < a.ndim else a.itemsize
        return np.lib.stride_tricks.as_strided(a, a.shape[:d] + (1,) + a.shape[d:],
                                               a.strides[:d] + (stride,) + a.strides[d:])

    def backward(ctx, grad):
        return grad.squeeze(ctx.dim)


class SqueezeBackward0(Op):
    """out = self without its size-1 dims (``squeeze()``, a view); d/dself = grad with them
    re-inserted. Saves no tensor."""

    is_view = True

    def forward(ctx, x):
        ctx.input_shape = x.shape
        ctx.save_value("self_sym_sizes", list(x.shape))
        return x._data.squeeze()

    def backward(ctx, grad):
        return unsqueeze_to(grad, ctx.input_shape, range(len(ctx.input_shape)))


class SqueezeBackward1(Op):
    """out = self without dim (if its size is 1) (``squeeze(dim)``, a view); d/dself = grad
    with it re-inserted. Saves no tensor."""

    is_view = True

    def forward(ctx, x, dim):
        ctx.input_shape = x.shape
        ctx.save_values(dim=dim, self_sym_sizes=list(x.shape))
        ctx.dim = wrap_dim(dim, x.ndim, "squeeze")
        return x._data.squeeze(ctx.dim) if x.ndim and x.shape[ctx.dim] == 1 else x._data

    def backward(ctx, grad):
        return unsqueeze_to(grad, ctx.input_shape, [ctx.dim] if ctx.input_shape else [])


class SqueezeBackward2(Op):
    """out = self without those of ``dims`` that have size 1 (``squeeze((d0, d1))``, a view);
    d/dself = grad with them re-inserted. Saves no tensor."""

    is_view = True

    def forward(ctx, x, dims):
        ctx.input_shape = x.shape
        ctx.save_values(dim=list(dims), self_sym_sizes=list(x.shape))
        dims = normalize_dims(dims, x.ndim)  # (a 0-dim tensor accepts 0 and -1)
        ctx.dims = sorted(set(dims)) if x.ndim else []
        drop = tuple(d for d in ctx.dims if x.shape[d] == 1)
        return x._data.squeeze(drop) if drop else x._data

    def backward(ctx, grad):
        return unsqueeze_to(grad, ctx.input_shape, ctx.dims)


def unsqueeze_to(grad, shape, dims):
    """Squeeze's backward: put back each of ``dims`` that had size 1 (``UnsqueezeBackward0``)."""
    for d in dims:
        if shape[d] == 1:
            grad = grad.unsqueeze(d)
    return grad


class SqueezeBackward4(SqueezeBackward1):
    """The in-place ``squeeze_(dim)`` that ``matmul`` applies to its own fresh result
    (1-D @ 2-D): not a view of anything the caller holds. d/dself = grad with dim re-inserted.
    Saves no tensor."""

    is_view = False


ZERO_DIM_INDEX_ERROR = ("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                        "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")


class SelectBackward0(Op):
    """out = self[index] along dim (a view); the gradient is placed back at index. No tensor."""

    is_view = True

    def forward(ctx, x, dim, index, indexing=False):
        if not x.ndim:
            raise IndexError(ZERO_DIM_INDEX_ERROR if indexing
                             else "select() cannot be applied to a 0-dim tensor.")
        shape = x._data.shape
        given, dim = dim, wrap_dim(dim, len(shape), "select")  # (saved as given: -1, as PyTorch)
        size = shape[dim]
        if not -size <= index < size:
            raise IndexError(f"index {index} is out of bounds for dimension {dim} with size {size}"
                             if indexing else f"select(): index {index} out of range for tensor "
                             f"of size {list(shape)} at dimension {dim}")
        if ctx.recording:  # (what backward reads; an unrecorded ctx gets no instance dict)
            ctx.dim, ctx.index, ctx.input_shape = dim, index % size, shape
            ctx.given_index, ctx.given_dim = index, given
            ctx.save_values(dim=given, index=index, self_sym_sizes=list(shape))
        # Basic indexing (with Ellipsis, so a 0-dim result is an array): a view of x's memory.
        return x._data[(slice(None),) * dim + (index % size, Ellipsis)]

    def backward(ctx, grad):
        return SelectBackwardBackward0.apply(grad, ctx.input_shape, ctx.given_dim, ctx.given_index)


class SliceBackward0(Op):
    """out = self[start:end:step] along dim (a view); gradient placed back. Saves no tensor.

    start/end/step are saved as written, with PyTorch's defaults for omitted ones
    (0, 2**63 - 1, 1): ``x[-2:]`` saves start=-2, end=9223372036854775807."""

    is_view = True

    def forward(ctx, x, dim, key):
        if key.step == 0:  # (Python's own message, which PyTorch's slice unpacking raises)
            raise ValueError("slice step cannot be zero")
        if key.step is not None and key.step < 0:
            raise ValueError("step must be greater than zero")
        start = 0 if key.start is None else key.start
        end = INT64_MAX if key.stop is None else key.stop
        step = 1 if key.step is None else key.step
        given, dim = dim, wrap_dim(dim, x.ndim)  # (saved as given: narrow(-1, ...), as PyTorch)
        ctx.dim, ctx.bounds, ctx.input_shape = dim, (start, end, step), x.shape
        for name, v in (("dim", given), ("start", start), ("end", end), ("step", step),
                        ("self_sym_sizes", list(x.shape))):
            ctx.save_value(name, v)
        return x._data[(slice(None),) * dim + (slice(start, end, step),)]

    def backward(ctx, grad):
        return SliceBackwardBackward0.apply(grad, ctx.input_shape, ctx.dim, *ctx.bounds)


INT64_MAX = 2 ** 63 - 1


class AliasBackward0(Op):
    """``x[...]`` of a 0-dim tensor: the same values as a new view; d/dself = grad. Saves no
    tensor."""

    is_view = True

    def forward(ctx, x):
        return x._data[...]

    def backward(ctx, grad):
        return grad


class SplitBackward0(Op):
    """``x.chunk(n, dim)`` / ``x.split(size, dim)``: pieces of ``split_size`` along dim, each a
    view; d/dself = the pieces' gradients concatenated (zeros for a piece without one).
    Saves no tensor."""

    is_view = True
    multi_view = "Split"
    differentiable_outputs = 2 ** 31

    def forward(ctx, x, split_size, dim):
        given, dim = dim, wrap_dim(dim, x.ndim)  # (saved as given, as PyTorch)
        ctx.dim, ctx.input_shape, ctx.split_size = dim, x.shape, split_size
        for name, v in (("dim", given), ("self_sym_sizes", list(x.shape)),
                        ("split_size", split_size)):
            ctx.save_value(name, v)
        size = x.shape[dim]
        starts = range(0, size, split_size) if size else [0]
        lead = (slice(None),) * dim
        return tuple(x._data[lead + (slice(s, s + split_size),)] for s in starts)

    def backward(ctx, *grads):
        pieces = []
        for nr, g in enumerate(grads):
            if g is None:
                like = next(x for x in grads if x is not None)
                shape = list(ctx.input_shape)
                shape[ctx.dim] = min(ctx.split_size, shape[ctx.dim] - nr * ctx.split_size)
                g = zeros(shape, like)
            pieces.append(g)
        return CatBackward0.apply(pieces, dim=ctx.dim)


class UnbindBackward0(Op):
    """``x.unbind(dim)``: one view per index along dim; d/dself = the gradients stacked
    (zeros for an output without one). Saves no tensor."""

    is_view = True
    multi_view = "Unbind"
    differentiable_outputs = 2 ** 31

    def forward(ctx, x, dim):
        ctx.save_value("dim", dim)  # (as given, as PyTorch)
        dim = wrap_dim(dim, x.ndim)
        ctx.dim, ctx.input_shape = dim, x.shape
        lead = (slice(None),) * dim
        return tuple(x._data[lead + (i, Ellipsis)] for i in range(x.shape[dim]))

    def backward(ctx, *grads):
        like = next(g for g in grads if g is not None)
        shape = ctx.input_shape[:ctx.dim] + ctx.input_shape[ctx.dim + 1:]
        return StackBackward0.apply([zeros(shape, like) if g is None else g for g in grads],
                                    dim=ctx.dim)


class SplitWithSizesBackward0(Op):
    """``x.split([2, 1], dim)`` (and ``chunk`` of an empty dim, which PyTorch splits into
    ``chunks`` empty pieces): pieces of the given sizes, each a view; d/dself = the pieces'
    gradients concatenated (zeros for a piece without one). Saves no tensor."""

    is_view = True
    multi_view = "SplitWithSizes"
    differentiable_outputs = 2 ** 31

    def forward(ctx, x, split_sizes, dim):
        given, dim = dim, wrap_dim(dim, x.ndim)  # (saved as given, as PyTorch)
        ctx.dim, ctx.input_shape, ctx.split_sizes = dim, x.shape, list(split_sizes)
        for name, v in (("dim", given), ("self_sym_sizes", list(x.shape)),
                        ("split_sizes", list(split_sizes))):
            ctx.save_value(name, v)
        lead, starts = (slice(None),) * dim, np.cumsum([0] + ctx.split_sizes)
        return tuple(x._data[lead + (slice(a, b),)] for a, b in zip(starts[:-1], starts[1:]))

    def backward(ctx, *grads):
        like = next(g for g in grads if g is not None)
        pieces = []
        for g, size in zip(grads, ctx.split_sizes):
            if g is None:
                shape = list(ctx.input_shape)
                shape[ctx.dim] = size
                g = zeros(shape, like)
            pieces.append(g)
        return CatBackward0.apply(pieces, dim=ctx.dim)


def _as_strided_node(node, base, size, stride, storage_offset, index):
    for name, v in (("size", size), ("stride", stride), ("storage_offset", storage_offset)):
        node.save_value(name, v)
    node.index = Tensor._make(index.reshape(-1))
    node.base_shape, node.base_numel = base.shape, base.numel()


class AsStridedBackward0(Op):
    """``x.as_strided(size, stride, storage_offset)`` (a view), and the regenerated
    ``grad_fn`` of a view whose base changed in place: the view's elements picked out of the
    base; the gradient is added back at those places. Saves no tensor."""

    is_view = True

    def forward(ctx, x, size, stride, storage_offset):
        flat = x._data.reshape(-1)  # x is contiguous here: a view of its memory
        array = np.lib.stride_tricks.as_strided(flat[storage_offset:], size,
                                                [s * flat.itemsize for s in stride])
        _as_strided_node(ctx, x, size, stride, storage_offset, _offsets(array) + storage_offset)
        return array

    def backward(ctx, grad):
        flat = Tensor._make(np.zeros(ctx.base_numel, dtype=grad._data.dtype))
        return IndexPutImplBackward0.apply(flat, ctx.index, grad.reshape(-1)).view(ctx.base_shape)
