"""Shape ops that copy: clone, dtype conversion, ``copy_``, cat/stack, repeat, roll, flip.

None of these saves a tensor.
"""

import numpy as np

from ._op import Op
from ._util import zeros
from .._surface.checks import (_check_cat, broadcast_shape, check_tensor_list,
                               normalize_dims, wrap_dim)
from .._surface.promotion import cast, result_type


class CloneBackward0(Op):
    """out = a copy of self; d/dself = grad. Saves no tensor."""

    def forward(ctx, x):
        return np.array(x._data, copy=True, order="C")

    def backward(ctx, grad):
        return grad


class ToCopyBackward0(Op):
    """out = self converted to another dtype; the gradient is converted back. Saves no tensor."""

    reads_edges_first = False  # (PyTorch records it only for a dtype that can carry a gradient)

    def forward(ctx, x, dtype):
        ctx.input_dtype = x._data.dtype
        return cast(x._data, dtype)

    def backward(ctx, grad):
        return grad._to(ctx.input_dtype)


class CatBackward0(Op):
    """out = cat(tensors, dim); each input gets its slice of the gradient. Saves no tensor."""

    def forward(ctx, tensors, dim=0):
        ctx.dim = _check_cat(tensors, dim)
        ctx.sizes = [None if t.shape == (0,) else t.shape[ctx.dim] for t in tensors]
        ctx.save_value("dim", dim)
        dtype = result_type(*tensors)
        kept = [t._data for t in tensors if t.shape != (0,)] or [tensors[0]._data]  # legacy: [0]
        return np.concatenate(kept, axis=ctx.dim).astype(dtype, copy=False)

    def backward(ctx, grad):
        grads, start = [], 0
        for size in ctx.sizes:
            if size is None:  # a legacy empty 1-D input: its gradient is empty too
                grads.append(zeros((0,), grad))
                continue
            grads.append(grad.narrow(ctx.dim, start, size))
            start += size
        return tuple(grads)


class StackBackward0(Op):
    """out = stack(tensors, dim); each input gets its select of the gradient. Saves no tensor."""

    def forward(ctx, tensors, dim=0):
        if not tensors:
            raise RuntimeError("stack expects a non-empty TensorList")
        check_tensor_list(tensors)
        given, dim = dim, wrap_dim(dim, tensors[0].ndim + 1)
        shapes = {t.shape for t in tensors}
        if len(shapes) > 1:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(tensors[0].shape)} at entry 0 and "
                               f"{list(next(t.shape for t in tensors if t.shape != tensors[0].shape))}"
                               f" at entry {next(i for i, t in enumerate(tensors) if t.shape != tensors[0].shape)}")
        ctx.dim, ctx.count = dim, len(tensors)
        ctx.save_value("dim", given)
        return np.stack([t._data for t in tensors], axis=dim).astype(result_type(*tensors))

    def backward(ctx, grad):
        return tuple(grad.select(ctx.dim, i) for i in range(ctx.count))


class CopyBackwards(Op):
    """``self.copy_(src)``: self's values are replaced by src (broadcast, cast); d/dself = 0,
    d/dsrc = grad cast back to src's dtype. Saves no tensor."""

    def name(self):
        return "torch::autograd::CopyBackwards"  # PyTorch's name() for this C++ node

    def forward(ctx, x, src):
        ctx.src_dtype = src._data.dtype
        try:
            return cast(np.broadcast_to(src._data, x.shape), x._data.dtype)
        except ValueError:  # (PyTorch's TensorIterator: the shapes clash, or src is larger)
            shape = broadcast_shape(x.shape, src.shape)
            raise RuntimeError(f"output with shape {list(x.shape)} doesn't match the broadcast "
                               f"shape {list(shape)}") from None

    def backward(ctx, grad):
        return zeros(grad.shape, grad), grad._to(ctx.src_dtype)  # zeros_like: no node, as in C++


# -- repeat and tile (RepeatBackward0) -------------------------------------------------------
class RepeatBackward0(Op):
    """out = self tiled ``repeats[i]`` times along each dim (new leading dims for extra
    repeats). d/dself = grad summed over the leading dims, then reshaped into (repeat, size)
    pairs and summed over the repeats (zeros if a repeat is 0). Saves repeats and
    self_sym_sizes."""

    def forward(ctx, x, repeats):
        a = x._data
        if len(repeats) < a.ndim:
            raise RuntimeError("Number of dimensions of repeat dims can not be smaller than "
                               "number of dimensions of tensor")
        padded = (1,) * (len(repeats) - a.ndim) + a.shape
        target = [n * r for n, r in zip(padded, repeats)]
        for n in target:
            if n < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension {n}: "
                                   f"{target}")
        ctx.repeats, ctx.input_shape = tuple(repeats), a.shape
        ctx.save_values(repeats=list(repeats), self_sym_sizes=list(a.shape))
        if 0 in target:  # (a negative repeat of an empty dim too: PyTorch makes it empty)
            return np.zeros(target, dtype=a.dtype)
        return np.tile(a.reshape(padded), repeats)

    def backward(ctx, grad):
        if 0 in ctx.repeats:
            return zeros(ctx.input_shape, grad)
        lead = len(ctx.repeats) - len(ctx.input_shape)
        for _ in range(lead):
            grad = grad.sum(0)
        grad_size, sum_dims = [], []
        for repeat, size in zip(ctx.repeats[lead:], ctx.input_shape):
            if repeat != 1:  # the repeat before the size: the copies are laid out whole
                grad_size.append(repeat)
                sum_dims.append(len(grad_size) - 1)
            grad_size.append(size)
        if sum_dims:  # (none: grad.sum([]) would sum everything)
            grad = grad.reshape(grad_size).sum(sum_dims)
        return grad


# -- roll ------------------------------------------------------------------------------------
class RollBackward0(Op):
    """out = self rolled by ``shifts`` along ``dims`` (the flattened tensor when no dims are
    given): d/dself = grad rolled by -shifts (PyTorch's backward lists the pairs last first).
    Saves shifts and dims (as given)."""

    def forward(ctx, x, shifts, dims):
        ctx.shifts, ctx.dims = shifts, dims
        ctx.save_values(dims=list(dims), shifts=list(shifts))
        a = x._data
        if len(shifts) != 1 or len(dims) != 1:  # PyTorch's roll_common
            if not shifts:
                raise RuntimeError("`shifts` required")
            if not dims and len(shifts) == 1:
                return np.roll(a.reshape(-1), shifts[0]).reshape(a.shape)
            if len(shifts) != len(dims):
                raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                                   f"dims:{len(dims)}")
        out = a
        for shift, dim in zip(shifts, dims):
            if not a.size:  # (PyTorch returns a copy before it reads the dim)
                return a.copy()
            if not a.ndim:
                raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
            out = np.roll(out, shift, wrap_dim(dim, a.ndim))
        return out if out.flags.c_contiguous else np.array(out, order="C")

    def backward(ctx, grad):
        return RollBackward0.apply(grad, [-s for s in reversed(ctx.shifts)], ctx.dims[::-1])


class FlipBackward0(Op):
    """out = self reversed along dims (a copy, not a view); d/dself = grad.flip(dims).
    Saves dims (as given)."""

    def forward(ctx, x, dims):
        axes = normalize_dims(dims, x.ndim)
        ctx.save_value("dims", list(dims))
        ctx.dims = tuple(dims)
        return np.flip(x._data, axis=axes).copy() if x.ndim else x._data.copy()

    def backward(ctx, grad):
        return FlipBackward0.apply(grad, ctx.dims)
