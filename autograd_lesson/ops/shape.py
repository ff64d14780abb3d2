"""Shape ops: views (share storage and version counter with their input), indexing, cat/stack.

None of these saves a tensor, except advanced indexing (``IndexBackward0`` saves its indices),
which is why graphs made of them can be backpropagated twice.
"""
import math
import operator
import warnings

import numpy as np

from .. import _node
from .._tensor import Tensor
from .._broadcast import is_expandable_to
from ._op import Op
from .formula import (IndexPutImplBackward0, SavedIndexList, SelectBackwardBackward0,
                      SliceBackwardBackward0, index_key, save_indices, zeros)
from .._surface.parser import ArgParser, Overloads
from .._surface.promotion import cast, result_type, torch_name
from .._surface.checks import check_scalar, expand_shape, normalize_dims, wrap_dim


def _infer_shape(shape, numel):
    """PyTorch's infer_size: ``shape`` (ints; one -1 is inferred) for ``numel`` elements."""
    shape = list(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else list(shape)
    infer = None
    for i, s in enumerate(shape):
        if s == -1:
            if infer is not None:
                raise RuntimeError("only one dimension can be inferred")
            infer = i
        elif s < 0:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape {shape}")
    known = int(math.prod(s for s in shape if s != -1)) if shape else 1  # np.prod: ~3 us
    if infer is not None and (known == numel or known and not numel % known):
        if not known:
            raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {shape} because "
                               f"the unspecified dimension size -1 can be any value and is "
                               f"ambiguous")
        shape[infer] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '{shape}' is invalid for input of size {numel}")
    return tuple(shape)


class ViewBackward0(Op):
    """out = self.view(shape) (also a reshape of a contiguous tensor). A view; saves no tensor."""

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
    """The reshape step after a copy (``reshape`` of a non-contiguous tensor). Saves no tensor."""

    def forward(ctx, x, shape):
        ctx.input_shape = x.shape
        ctx.save_value("self_sym_sizes", list(x.shape))
        return x._data.reshape(shape)

    def backward(ctx, grad):
        return grad.reshape(ctx.input_shape)


class ReshapeAliasBackward0(ViewBackward0):
    """out = self.reshape(shape) of a non-contiguous tensor whose strides still allow a view
    (PyTorch's ``_reshape_alias``). A view; saves no tensor."""


class CloneBackward0(Op):
    """out = a copy of self. Saves no tensor."""

    def forward(ctx, x):
        return np.array(x._data, copy=True, order="C")

    def backward(ctx, grad):
        return grad


class ToCopyBackward0(Op):
    """out = self converted to another dtype; the gradient is converted back. Saves no tensor."""

    def forward(ctx, x, dtype):
        ctx.input_dtype = x._data.dtype
        return cast(x._data, dtype)

    def backward(ctx, grad):
        return grad._to(ctx.input_dtype)


class TBackward0(Op):
    """out = self.t() (a view). Saves no tensor."""

    is_view = True

    def forward(ctx, x):
        if x._data.ndim > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {x.ndim}D")
        return x._data.T

    def backward(ctx, grad):
        return grad.t()


class PermuteBackward0(Op):
    """out = self with its dims reordered (``permute``, and ``x.T``); a view. Saves no tensor."""

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
    """out = self.transpose(dim0, dim1) (a view). Saves no tensor."""

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
    """out = self with a new dim of size 1 (a view). Saves no tensor."""

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
    """out = self without its size-1 dims (``squeeze()``, a view). Saves no tensor."""

    is_view = True

    def forward(ctx, x):
        ctx.input_shape = x.shape
        ctx.save_value("self_sym_sizes", list(x.shape))
        return x._data.squeeze()

    def backward(ctx, grad):
        return unsqueeze_to(grad, ctx.input_shape, range(len(ctx.input_shape)))


class SqueezeBackward1(Op):
    """out = self without dim (if its size is 1) (``squeeze(dim)``, a view). Saves no tensor."""

    is_view = True

    def forward(ctx, x, dim):
        ctx.input_shape = x.shape
        ctx.save_values(dim=dim, self_sym_sizes=list(x.shape))
        ctx.dim = wrap_dim(dim, x.ndim, "squeeze")
        return x._data.squeeze(ctx.dim) if x.ndim and x.shape[ctx.dim] == 1 else x._data

    def backward(ctx, grad):
        return unsqueeze_to(grad, ctx.input_shape, [ctx.dim] if ctx.input_shape else [])


class SqueezeBackward2(Op):
    """out = self without those of ``dims`` that have size 1 (``squeeze((d0, d1))``, a view).
    Saves no tensor."""

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
    (1-D @ 2-D): not a view of anything the caller holds. Saves no tensor."""

    is_view = False


class SelectBackward0(Op):
    """out = self[index] along dim (a view); the gradient is placed back at index. No tensor."""

    is_view = True

    def forward(ctx, x, dim, index, indexing=False):
        if not x.ndim:
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                             "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"
                             if indexing else "select() cannot be applied to a 0-dim tensor.")
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


def put(target, key, values, accumulate=False, in_place=False):
    """A dense copy of ``target`` after PyTorch's CPU index_put kernel wrote (or, with
    ``accumulate``, added) ``values`` at ``key`` one element after the other, in index order:
    for a duplicate index the last write wins. An expanded ``target`` (elements sharing memory)
    written in place is written memory location by memory location, so every element aliasing
    a location reads the location's final value."""
    from .inplace import _offsets, has_internal_overlap
    out = np.array(target, copy=True, order="C")
    if not (in_place and has_internal_overlap(target)):
        if accumulate:
            np.add.at(out, key, values)
        else:
            out[key] = values
        return out
    positions = np.arange(out.size).reshape(out.shape)[key]  # the indexed elements, in order
    values = np.broadcast_to(np.asarray(values, dtype=out.dtype), positions.shape).ravel()
    positions = positions.ravel()
    memory = _offsets(target).ravel()
    written = memory[positions]
    locations, first = np.unique(written, return_index=True)
    if accumulate:  # each add reads what the previous one left there
        final = out.ravel()[positions[first]]
        np.add.at(final, np.searchsorted(locations, written), values)
    else:
        _, last = np.unique(written[::-1], return_index=True)
        final = values[::-1][last]
    where = np.minimum(np.searchsorted(locations, memory), len(locations) - 1)
    hit = locations[where] == memory if len(locations) else np.zeros(memory.shape, bool)
    flat = out.reshape(-1)
    flat[hit] = final[where[hit]]
    return out


def index_put(x, indices, values, accumulate=False):
    """``x.index_put(indices, values, accumulate)``: a new tensor, ``IndexPutBackward0`` of x
    itself (no clone node), with ``index_put_``'s checks."""
    if not isinstance(x, Tensor):
        raise TypeError(f"index_put(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(x).__name__}")
    indices = index_put_indices("index_put", x, indices, values, accumulate)
    _, indices = slicing(x, indices, check=False)
    _check_entries(x.shape, indices, bounds=False)
    if not (not accumulate and len(indices) == 1 and indices[0]._data.dtype == np.bool_
            and values.numel() == 1):  # (else masked_fill_ reads one value, of any shape)
        result_shape = np.broadcast_to(np.empty((), x._data.dtype), x.shape)[
            index_key(indices, x.shape)].shape
        values = _index_put_value(values, result_shape, x._data.dtype, strip=False)
    _check_entries(x.shape, indices)
    return IndexPutBackward0.apply(x, indices[0] if len(indices) == 1 else indices, values,
                                   accumulate)


def index_put_indices(name, x, indices, values, accumulate=False):
    """``index_put_``/``index_put``'s argument parser (a tuple or list of Tensors, and a
    Tensor of values) and its first checks (the count of indices, their dtypes), with
    PyTorch's errors in its order."""
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"{name}(): argument 'indices' (position 1) must be tuple of Tensors, "
                        f"not {type(indices).__name__}")
    for i, t in enumerate(indices):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(t).__name__}")
    if not isinstance(values, Tensor):
        raise TypeError(f"{name}(): argument 'values' (position 2) must be Tensor, not "
                        f"{type(values).__name__}")
    if len(indices) > x.ndim:  # (native: x[...]'s parser words it without the count)
        raise IndexError(f"too many indices for tensor of dimension {x.ndim} (got {len(indices)})")
    for t in indices:
        if t._data.dtype.kind not in "biu":
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    if (not accumulate and len(indices) == 1 and indices[0]._data.dtype == np.uint8
            and values.numel() == 1):  # PyTorch's masked_fill_ path takes bool masks only
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype "
                           "unsigned char")
    return byte_masks(tuple(indices), stacklevel=3)


def _is_byte(k):
    return isinstance(k, Tensor) and k._data.dtype == np.uint8 and k._data.ndim


def byte_masks(keys, stacklevel):
    """A uint8 index tensor is read as a bool mask, with PyTorch's deprecation warning."""
    if not any(_is_byte(k) for k in keys):
        return keys
    warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype "
                  "torch.bool instead.", UserWarning, stacklevel=stacklevel + 1)
    return tuple(Tensor._make(k._data != 0) if _is_byte(k) else k for k in keys)


SEQUENCE_KEY_WARNING = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed "
    "in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be "
    "interpreted as tensor index, x[torch.tensor(seq)], which will result either in an error "
    "or a different result")
_SEQUENCES = (Tensor, slice, list, tuple, str, bytes, range, np.ndarray)


def sequence_key(key, stacklevel):
    """PyTorch's ``treatSequenceAsTuple`` (NumPy's old heuristic): a list of fewer than 32
    entries holding a tensor, a sequence, a slice, ``...`` or None indexes as the tuple of its
    entries (``x[[[0], [1]]]`` is ``x[[0], [1]]``), with PyTorch's deprecation warning; so
    does a string (of strings), which then fails as an index."""
    if type(key) not in (list, str) or len(key) >= 32:  # (an ndarray indexes as a tensor)
        return key
    if any(isinstance(k, _SEQUENCES) or k is Ellipsis or k is None for k in key):
        warnings.warn(SEQUENCE_KEY_WARNING, UserWarning, stacklevel=stacklevel + 1)
        return tuple(key)
    return key


def is_advanced_key(key):
    """An int list, int array, bool mask or a tuple of int lists: ``index_put_``, not a view."""
    if isinstance(key, tuple):  # (a bool in it: a new dim, indexed by a tensor)
        return any(_is_advanced(k) or isinstance(k, (bool, np.bool_)) for k in key)
    if isinstance(key, Tensor) and key._data.dtype == np.bool_:
        return True  # a 0-dim mask too
    return _is_advanced(key) and not (isinstance(key, Tensor) and key._data.dtype.kind not in "biu")


OVERLAP_INPUT_ERROR = ("unsupported operation: some elements of the input tensor and the "
                       "written-to tensor refer to a single memory location. Please clone() the "
                       "tensor before performing the operation.")


def _dense(a):
    """PyTorch's ``is_non_overlapping_and_dense``: the strides are a permutation of C order's."""
    expected = a.itemsize
    for stride, n in sorted((s, n) for n, s in zip(a.shape, a.strides) if n != 1):
        if stride != expected:
            return False
        expected *= n
    return True


def overlap_status(a, b):
    """PyTorch's ``get_overlap_status`` of two arrays: "full" (the same elements, same
    strides), "partial", None (apart), or "too hard" (one is not dense: never an error)."""
    if not a.size or not b.size:
        return None
    if a is b:
        return "full"
    if not (_dense(a) and _dense(b)):
        return "too hard"
    a0, b0 = a.__array_interface__["data"][0], b.__array_interface__["data"][0]
    a1, b1 = a0 + a.size * a.itemsize, b0 + b.size * b.itemsize
    if (a0, a1) == (b0, b1):  # (views carry PyTorch's strides, size-1 dims' too)
        return "full" if a.strides == b.strides else "partial"
    return "partial" if a0 < b1 and b0 < a1 else None


def check_overlap(target, value, partial_only=False):
    """PyTorch's ``assert_no_overlap`` (``index_put_``) / ``assert_no_partial_overlap``
    (``copy_``, in-place binary ops): a value reading memory that the write changes. The same
    tensor always overlaps fully, even an empty one."""
    status = "full" if target is value else overlap_status(target._data, value._data)
    if status == "partial" or (status == "full" and not partial_only):
        raise RuntimeError(OVERLAP_INPUT_ERROR)


def index_put_(x, key, value, accumulate=False, setitem=True, masked=True):
    """``x[key] = value`` for an advanced ``key`` (or, without ``setitem``, ``x.index_put_(key,
    value, accumulate)``), with PyTorch's checks in its order: the basic indexing, the
    autograd checks, then masked_fill_ for a mask and one value (not with accumulate), else
    the value's overlap with x, the indices, the value's shape and dtype, the bounds."""
    from . import inplace
    keys = key if isinstance(key, tuple) else (key,)
    if setitem:
        _check_key_types(keys)
    if setitem and any(_is_byte(k) for k in keys):
        if len(keys) == 1 and (not isinstance(value, Tensor) or value.numel() == 1):
            raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with "
                               "dtype unsigned char")  # (PyTorch's masked_fill_ path)
        keys = byte_masks(keys, stacklevel=3)
        key = keys if isinstance(key, tuple) else keys[0]
    if (len(keys) == 1 and isinstance(key, Tensor) and key._data.dtype == np.bool_ and not x.ndim
            and x.is_leaf and x.requires_grad and inplace._grad_mode._recording()):
        raise RuntimeError(inplace.LEAF_VIEW_INPLACE_ERROR)  # PyTorch writes through x[None]
    if (setitem and len(keys) == 1 and isinstance(key, Tensor) and key._data.dtype == np.bool_
            and not x.ndim and not key.ndim):  # ... a view: x's history becomes CopySlices
        if isinstance(value, Tensor):
            check_overlap(x, value)  # (the value read from x itself, as the view would see)
        return index_put_(UnsqueezeBackward0.apply(x, 0), Tensor._make(key._data.reshape(1)),
                          value, accumulate, masked=False)  # (index_put_, not masked_fill_)
    x, entries = slicing(x, keys, check=False)  # ints and slices make a view of x
    inplace.check_inplace(x, (value,))  # PyTorch checks the leaf before the index values
    expanded = inplace.has_internal_overlap(x._data)
    if expanded:  # PyTorch warns first and writes anyway
        warnings.warn(EXPANDED_WARNING.format(op="index_put_", index="indices", value="tensor"),
                      UserWarning, stacklevel=3)
    used = [t for t in entries if t is not None]
    mask_fill = ((setitem or not accumulate) and masked and x.ndim and len(used) == 1
                 and used[0]._data.dtype == np.bool_
                 and (not isinstance(value, Tensor) or value.numel() == 1))
    if mask_fill and isinstance(value, Tensor):  # masked_fill_ reads one number
        if not value.requires_grad:
            value = value.item()
        elif setitem and value.ndim:  # (x[mask] = v: v's leading 1s dropped, a view)
            value = value.reshape(())
    elif isinstance(value, Tensor):
        shape = value.shape
        while setitem and shape and shape[0] == 1:
            shape = shape[1:]  # a view without the leading 1s (PyTorch's slicePrefix1sSize)
        value = value if shape == value.shape else value.reshape(shape)
        check_overlap(x, value)
    _check_entries(x.shape, entries, bounds=False)
    if isinstance(value, Tensor) and not mask_fill:  # (masked_fill_ reads one value)
        result_shape = np.broadcast_to(np.empty((), x._data.dtype), x.shape)[
            index_key(entries, x.shape)].shape
        value = _index_put_value(value, result_shape, x._data.dtype, setitem)
    _check_entries(x.shape, entries)  # the bounds, last (in the kernel)
    index = entries[0] if len(entries) == 1 else entries
    _write_indexed(x, index, value, lambda t: IndexPutBackward0.apply(t, index, value, accumulate),
                   mask_fill=mask_fill and expanded)
    return x


EXPANDED_WARNING = ("Use of {op} on expanded tensors is deprecated. Please clone() the tensor "
                    "before performing this operation. This also applies to advanced indexing "
                    "e.g. tensor[{index}] = {value}")


def _write_indexed(x, key, value, compute, mask_fill=False):
    """``index_put_``'s write. Into an expanded tensor PyTorch writes anyway (having warned),
    with a second warning for its masked_fill_: only the indexed elements' memory is written."""
    from . import inplace
    written = None
    if inplace.has_internal_overlap(x._data):
        if mask_fill:
            warnings.warn(EXPANDED_WARNING.format(op="masked_fill_", index="mask", value="scalar"),
                          UserWarning, stacklevel=4)
        key = index_key(key, x.shape) if isinstance(key, (Tensor, tuple)) else key
        written = np.zeros(x.shape, dtype=bool)
        written[key] = True
    x._inplace(compute, value, overlap=False, written=written)


def _index_put_value(value, result_shape, dtype, strip=True):
    """The value of ``x[index] = value``: leading 1s dropped (``strip``: item assignment only),
    then it must broadcast to the indexed shape and (unless ``dtype`` is None) have x's dtype,
    with PyTorch's messages."""
    shape = value.shape
    while strip and shape and shape[0] == 1:
        shape = shape[1:]  # every leading 1 is dropped first (PyTorch's slicePrefix1sSize)
    if shape != value.shape and is_expandable_to(shape, result_shape):
        value = value.reshape(shape)
    if not is_expandable_to(shape, result_shape):
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(shape)} cannot "
                           f"be broadcast to indexing result of shape {list(result_shape)}")
    if dtype is not None and value._data.dtype != dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{torch_name(dtype)} for the destination and "
                           f"{torch_name(value._data.dtype)} for the source.")
    return value


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
    """``self.copy_(src)``: self's values are replaced by src (broadcast, cast). Saves no tensor."""

    def name(self):
        return "torch::autograd::CopyBackwards"  # PyTorch's name() for this C++ node

    def forward(ctx, x, src):
        ctx.src_dtype = src._data.dtype
        try:
            return cast(np.broadcast_to(src._data, x.shape), x._data.dtype)
        except ValueError:
            raise RuntimeError(f"The size of tensor a ({x.shape[-1] if x.ndim else 1}) must match "
                               f"the size of tensor b ({src.shape[-1] if src.ndim else 1}) at "
                               f"non-singleton dimension {max(x.ndim - 1, 0)}") from None

    def backward(ctx, grad):
        return zeros(grad.shape, grad), grad._to(ctx.src_dtype)  # zeros_like: no node, as in C++


CAT = ArgParser("cat", "Tensor[] tensors, int dim=0, *, Tensor? out=None")
STACK = ArgParser("stack", "Tensor[] tensors, int dim=0, *, Tensor? out=None")
CONCAT = ArgParser("concat", "Tensor[] tensors, int dim=0, *, Tensor? out=None")
CONCATENATE = ArgParser("concatenate", "Tensor[] tensors, int dim=0, *, Tensor? out=None")


def tensor_list_arguments(parser, args, kwargs):
    """``torch.cat``/``torch.stack``'s (tensors, dim): a list or tuple of tensors (its elements
    checked first, as PyTorch's parser does) and an int dim; a list with an int skips the
    parser."""
    if (not kwargs and 0 < len(args) < 3 and type(args[0]) in (list, tuple)
            and (len(args) == 1 or type(args[1]) is int)):
        return list(args[0]), args[1] if len(args) == 2 else 0
    tensors = args[0] if args else kwargs.get("tensors")
    if type(tensors) in (list, tuple):
        check_tensor_list(tensors)
    _, values = parser.parse(args, kwargs)
    return list(values["tensors"]), values["dim"]


def check_tensor_list(tensors):
    from .._dtype import typename
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{typename(t)}")


def _check_cat(tensors, dim):
    """PyTorch's cat checks, before NumPy sees the arrays; returns the wrapped dim."""
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    check_tensor_list(tensors)
    for i, t in enumerate(tensors):
        if not t.ndim:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    kept = [(i, t) for i, t in enumerate(tensors) if t.shape != (0,)]  # 1-D empties are skipped
    if not kept:  # only legacy empty 1-D tensors: PyTorch does not even check dim
        return 0
    d = wrap_dim(dim, kept[0][1].ndim)
    first = kept[0][1]
    for i, t in kept[1:]:
        if t.ndim != first.ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {first.ndim} "
                               f"and {t.ndim}")
        for k in range(t.ndim):
            if k != d and t.shape[k] != first.shape[k]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. "
                                   f"Expected size {first.shape[k]} but got size {t.shape[k]} "
                                   f"for tensor number {i} in the list.")
    return d


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


def chunk(x, chunks, dim=0):
    """``x.chunk(n, dim)``: ``split`` into pieces of ceil(size / n) along dim."""
    if not x.ndim:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = wrap_dim(dim, x.ndim)
    if not x.shape[d]:  # PyTorch keeps the number of (empty) chunks: split_with_sizes
        return split(x, [0] * chunks, dim)
    return split(x, -(-x.shape[d] // chunks), dim)


SPLIT = ArgParser("split", "Tensor input, int split_size, int dim=0",
                  "Tensor input, int[] split_size, int dim=0")
SPLIT_WITH_SIZES = ArgParser("split_with_sizes", "Tensor input, int[] split_sizes, int dim=0")


def split_arguments(x, split_size, dim):
    """``Tensor.split``'s choice (a Python function in PyTorch): an int (or what converts to
    one) goes to ``split``, anything else to ``split_with_sizes``, each parsed as PyTorch's
    function of that name; plain ints skip the parser."""
    if type(split_size) is int and type(dim) is int:
        return split_size, dim
    if isinstance(split_size, Tensor):
        try:
            split_size = int(split_size)
        except (TypeError, ValueError, RuntimeError):
            pass
    if isinstance(split_size, int):
        _, values = SPLIT.parse((x, split_size, dim), {})
        return values["split_size"], values["dim"]
    _, values = SPLIT_WITH_SIZES.parse((x, split_size, dim), {})
    return list(values["split_sizes"]), values["dim"]


def split(x, split_size, dim=0):
    """``x.split(size, dim)`` (SplitBackward0) or ``x.split([sizes], dim)``
    (SplitWithSizesBackward0): views along dim."""
    split_size, dim = split_arguments(x, split_size, dim)
    if not x.ndim:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    if isinstance(split_size, (list, tuple)):
        d = wrap_dim(dim, x.ndim)
        if any(s < 0 for s in split_size):
            raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative "
                               f"entries, but got split_sizes={list(split_size)}")
        if sum(split_size) != x.shape[d]:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to "
                               f"{x.shape[d]} (input tensor's size at dimension {d}), but got "
                               f"split_sizes={list(split_size)}")
        out = SplitWithSizesBackward0.apply(x, split_size, dim)
        return out if isinstance(out, tuple) else (out,)
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got "
                           f"split_size={split_size}")
    if split_size == 0 and x.shape[wrap_dim(dim, x.ndim)]:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension "
                           f"size of {x.shape[wrap_dim(dim, x.ndim)]}")
    out = SplitBackward0.apply(x, split_size, dim)
    return out if isinstance(out, tuple) else (out,)


def unbind(x, dim=0):
    """``x.unbind(dim)``: the slices along dim, as views."""
    d = wrap_dim(dim, x.ndim)
    if not x.ndim:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if not x.shape[d]:
        return ()
    out = UnbindBackward0.apply(x, dim)
    return out if isinstance(out, tuple) else (out,)


def copy_from(x, src):
    if not isinstance(src, Tensor):
        src = Tensor._make(np.asarray(check_scalar(src, x._data.dtype), dtype=x._data.dtype))
    return CopyBackwards.apply(x, src)


def reshape(x, *shape):
    """A view of a contiguous tensor (``view``), else a view where the strides allow one
    (``_reshape_alias``), else a copy then ``_unsafe_view``, as PyTorch decides. ``shape``:
    ints, or one tuple of them (see ``int_list_argument`` for a user's)."""
    shape = _infer_shape(shape, x.numel())
    if x._data.flags.c_contiguous:
        return ViewBackward0.apply(x, shape)
    if _viewable(x._data, shape):
        return ReshapeAliasBackward0.apply(x, shape)
    return UnsafeViewBackward0.apply(CloneBackward0.apply(x), shape)


def _viewable(array, shape):
    try:
        array.reshape(shape, copy=False)
    except ValueError:
        return False
    return True


def view(x, *shape):
    return ViewBackward0.apply(x, _infer_shape(shape, x.numel()))


def narrow(x, dim, start, length):
    if not x.ndim:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, x.ndim, "narrow")
    size = x.shape[d]
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], "
                         f"but got {start})")
    start = start % size if start < 0 else start
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return SliceBackward0.apply(x, dim, slice(start, start + length, 1))


def _is_advanced(k):
    return isinstance(k, (list, np.ndarray)) or (isinstance(k, Tensor) and k.ndim > 0)


def _check_bounds(key, shape):
    """An int-list index checked against its dim with PyTorch's message (NumPy says 'axis')."""
    for d, k in enumerate(key):
        array = np.asarray(k._data if isinstance(k, Tensor) else k)
        if array.dtype.kind in "iu" and array.size:
            if not shape[d]:
                raise IndexError("index is out of bounds for dimension with size 0")
            if not math.prod(shape[len(key):]):
                continue  # an empty result: PyTorch's kernel never runs, nothing is checked
            bad = array[(array >= shape[d]) | (array < -shape[d])]
            if bad.size:
                raise IndexError(f"index {int(bad.flat[0])} is out of bounds for dimension {d} "
                                 f"with size {shape[d]}")


_INDEX_DTYPES = (np.dtype(np.int64), np.dtype(np.int32), np.dtype(np.uint8), np.dtype(np.bool_))
_INDEX_TYPES = (int, np.integer, np.bool_, slice, type(None), type(Ellipsis), Tensor, list, tuple,
                np.ndarray)


def _check_key_types(keys):
    """Each entry of a key is of a kind PyTorch indexes with (an object with ``__index__``
    counts as an int), an index tensor of one of its four dtypes."""
    for k in keys:
        if isinstance(k, Tensor) and k._data.dtype not in _INDEX_DTYPES:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        if isinstance(k, str):
            raise TypeError("new(): invalid data type 'str'")
        if not isinstance(k, _INDEX_TYPES) and not hasattr(type(k), "__index__"):
            from .._dtype import typename
            raise IndexError(f"only integers, slices (`:`), ellipsis (`...`), None and long or "
                             f"byte Variables are valid indices (got {typename(k)})")


def index(x, key):
    """``x[key]``: ints select, slices slice, None adds a dim (views); ``...`` stands for the
    dims not named; an int list, a bool mask or a tuple of int lists copies."""
    if type(key) is int and x._data.ndim and -x._data.shape[0] <= key < x._data.shape[0]:
        return SelectBackward0.apply(x, 0, key, indexing=True)  # x[t]: what the rest decides
    key = sequence_key(key, stacklevel=3)
    keys = key if isinstance(key, tuple) else (key,)
    if any(_is_byte(k) for k in keys):
        keys = byte_masks(keys, stacklevel=3)
        key = keys if isinstance(key, tuple) else keys[0]
    if sum(k is not None and k is not Ellipsis and not isinstance(k, (bool, np.bool_))
           for k in keys) > x.ndim and any(isinstance(k, (float, str)) for k in keys):
        raise IndexError(f"too many indices for tensor of dimension {x.ndim}")  # counted first
    _check_key_types(keys)
    if isinstance(key, (bool, np.bool_)):
        key = Tensor._make(np.asarray(key))  # x[True]: a 0-dim mask, as PyTorch indexes it
    if isinstance(key, Tensor) and key._data.dtype == np.bool_ and not key.ndim:
        return IndexBackward0.apply(x, key)
    if _is_advanced(key) and not (isinstance(key, Tensor) and key._data.dtype.kind == "b"):
        _check_bounds((key,), x.shape or (1,))
    if isinstance(key, Tensor) and key._data.dtype.kind in "bi" and key.ndim > 0:
        return IndexBackward0.apply(x, key)  # saved as is: PyTorch checks its version too
    if isinstance(key, Tensor):
        key = int(key.item())
    if isinstance(key, (list, np.ndarray)):
        return IndexBackward0.apply(x, list(key) if isinstance(key, list) else key)
    keys = key if isinstance(key, tuple) else (key,)
    if any(_is_advanced(k) or isinstance(k, (bool, np.bool_)) for k in keys):
        out, indices = slicing(x, keys)
        return IndexBackward0.apply(out, indices)
    if sum(k is Ellipsis for k in keys) > 1:
        keys = _drop_extra_ellipses(keys)
    named = sum(k is not None and k is not Ellipsis for k in keys)
    if named > x.ndim:
        if not x.ndim and len(keys) == 1:  # PyTorch's three messages for a 0-dim tensor
            if isinstance(key, slice):
                raise IndexError("slice() cannot be applied to a 0-dim tensor.")
            if int(key) != 0:
                raise IndexError(f"index {int(key)} is out of bounds for dimension 0 with size 0")
            SelectBackward0.apply(x, 0, 0, indexing=True)  # raises its message
        raise IndexError(f"too many indices for tensor of dimension {x.ndim}")
    # PyTorch's messages name an index by its position in the key (``real_dim``), an Ellipsis
    # counting as one position however many dims it stands for.
    positions = list(range(len(keys)))
    if Ellipsis in keys:
        i = keys.index(Ellipsis)
        fill = x.ndim - named
        keys = keys[:i] + (slice(None),) * fill + keys[i + 1:]
        positions = positions[:i] + [i] * fill + positions[i + 1:]
    out, dim = x, 0
    for k, position in zip(keys, positions):
        out, dim = _apply_basic(out, dim, k, position)
    if out is x:  # x[:] slices; a key of full slices and ``...`` (``x[...]``, ``x[()]``) aliases
        out = SliceBackward0.apply(x, 0, slice(None)) if isinstance(key, slice) else (
            AliasBackward0.apply(x))
    return out


def _apply_basic(out, dim, k, position):
    """One None, slice or int of a key applied to the view ``out`` at ``dim`` (``position``:
    where it stands in the key, for the bounds message). Returns the view and the next dim."""
    if k is None:
        return UnsqueezeBackward0.apply(out, dim), dim + 1
    if isinstance(k, slice):
        return (out if whole_slice(k, out.shape[dim]) else SliceBackward0.apply(out, dim, k)), \
            dim + 1
    size = out.shape[dim]
    if not -size <= int(k) < size:
        raise IndexError(f"index {int(k)} is out of bounds for dimension {position} with "
                         f"size {size}")
    return SelectBackward0.apply(out, dim, int(k), indexing=True), dim


def whole_slice(k, size):
    """Whether PyTorch's ``applySlice`` gives the tensor itself for slice ``k`` of a dim of
    ``size``: start 0 (as written: ``-size:`` slices), step 1, and a stop at or past the end."""
    def number(v, default):
        if v is None:
            return default
        try:
            return operator.index(v)
        except TypeError:
            return None
    return (number(k.start, 0) == 0 and number(k.step, 1) == 1
            and (k.stop is None or (number(k.stop, None) or 0) >= size))


def setitem_target(x, key):
    """What ``x[key] = value`` writes into: ``x`` itself when the key is whole slices and
    ``...`` (``x[:]``, ``x[...]``, ``x[()]``, ``x[0:n, :]``), where PyTorch's ``set_item``
    skips the slicing (``applySlice`` returns the tensor), so the write records
    ``FillBackward3`` or ``CopyBackwards`` on ``x`` and no ``CopySlices``; else the view
    ``x[key]``."""
    keys = key if isinstance(key, tuple) else (key,)
    if all(k is Ellipsis or isinstance(k, slice) for k in keys):
        sliced = [k for k in keys if k is not Ellipsis]
        if len(sliced) <= x.ndim:
            first = keys.index(Ellipsis) if Ellipsis in keys else len(keys)
            dims = list(range(first)) + list(range(x.ndim - (len(sliced) - first), x.ndim))
            if all(whole_slice(k, x.shape[d]) for k, d in zip(sliced, dims)):
                return x
    return x[key]


def _drop_extra_ellipses(keys):
    first = keys.index(Ellipsis)
    return tuple(k for i, k in enumerate(keys) if k is not Ellipsis or i == first)


def _index_tensor(k):
    if isinstance(k, Tensor):
        return k
    array = np.asarray(k)
    return Tensor._make(array if array.dtype == bool else array.astype(np.int64))


def slicing(x, keys, check=True):
    """PyTorch's ``applySlicing`` for a key with int lists or masks (``x[:, [0, 1]]``,
    ``x[[0, 1], [1, 0]]``): ints, slices and None make a view, then the advanced entries, one
    per dim of that view (None where a slice kept the dim), are checked as PyTorch's index
    kernel does. Returns the view and the entries (``x[...]`` and ``x[...] = v`` share it)."""
    keys = _drop_extra_ellipses(keys) if sum(k is Ellipsis for k in keys) > 1 else keys
    keys = tuple(_index_tensor(k) if _is_advanced(k) else k for k in keys)
    named = sum((k.ndim if k._data.dtype == np.bool_ else 1) if isinstance(k, Tensor) else 1
                for k in keys if k is not None and k is not Ellipsis
                and not isinstance(k, (bool, np.bool_)))
    if named > x.ndim:
        raise IndexError(f"too many indices for tensor of dimension {x.ndim}")
    if any(k is Ellipsis for k in keys):  # (not `in`: a Tensor's == is elementwise)
        i = next(i for i, k in enumerate(keys) if k is Ellipsis)
        keys = keys[:i] + (slice(None),) * (x.ndim - named) + keys[i + 1:]
    out, dim, entries = x, 0, []
    for position, k in enumerate(keys):
        if isinstance(k, (bool, np.bool_)):  # PyTorch: a new dim, indexed by [0] or by []
            out = UnsqueezeBackward0.apply(out, dim)
            entries.append(Tensor._make(np.arange(int(k), dtype=np.int64)))
            dim += 1
            continue
        if isinstance(k, Tensor):
            entries.append(k)
            dim += k.ndim if k._data.dtype == np.bool_ else 1
            continue
        if k is None or isinstance(k, slice):
            entries.append(None)  # (a dim the view keeps: no advanced index there)
        out, dim = _apply_basic(out, dim, k, position)
    while entries and entries[-1] is None:
        entries.pop()
    if check:  # (index_put_ checks them after the value's overlap)
        _check_entries(out.shape, entries)
    return out, tuple(entries)


def _check_entries(shape, entries, bounds=True):
    """Masks fit the dims they cover, the index tensors broadcast, and (with ``bounds``; the
    kernel's check, which index_put_ makes after the value's) every index is in bounds:
    PyTorch's checks and messages, in its order."""
    dim, arrays = 0, []  # arrays: (dim, int index array), a mask expanded to its nonzero()
    for t in entries:
        if t is None:
            dim += 1
            continue
        if t._data.dtype == np.bool_ and not t.ndim:
            continue  # a 0-dim mask (x[True]) adds a dim: nothing to check
        if t._data.dtype == np.bool_:
            covered = shape[dim:dim + t.ndim]
            for j, (m, n) in enumerate(zip(t.shape, covered)):
                if m != n:
                    raise IndexError(f"The shape of the mask {list(t.shape)} at index {j} does "
                                     f"not match the shape of the indexed tensor {list(shape)} "
                                     f"at index {dim + j}")
            arrays.extend((dim + j, a) for j, a in enumerate(np.nonzero(t._data)))
            dim += t.ndim
        else:
            arrays.append((dim, t._data))
            dim += 1
    try:
        indexed = np.broadcast_shapes(*[a.shape for _, a in arrays])
    except ValueError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together with "
                         "shapes " + ", ".join(str(list(a.shape)) for _, a in arrays)) from None
    kept = [n for d, n in enumerate(shape) if d not in {d for d, _ in arrays}]
    empty = not (math.prod(indexed) and math.prod(kept))  # PyTorch's kernel never runs
    for d, a in arrays:
        if a.size and not shape[d]:
            raise IndexError("index is out of bounds for dimension with size 0")
    if empty or not bounds or not arrays:
        return
    # The kernel checks element by element (each element's indices in order): the first bad
    # element, not the first bad dim, is reported.
    bad = np.stack([np.broadcast_to((a >= shape[d]) | (a < -shape[d]), indexed).ravel()
                    for d, a in arrays])
    if bad.any():
        element = int(np.argmax(bad.any(axis=0)))
        position = int(np.argmax(bad[:, element]))
        d, a = arrays[position]
        raise IndexError(f"index {int(np.broadcast_to(a, indexed).flat[element])} is out of "
                         f"bounds for dimension {position} with size {shape[d]}")


class AliasBackward0(Op):
    """``x[...]`` of a 0-dim tensor: the same values as a new view. Saves no tensor."""

    is_view = True

    def forward(ctx, x):
        return x._data[...]

    def backward(ctx, grad):
        return grad


# -- PyTorch's argument parser for the shape ops ---------------------------------------------------
# The common calls (plain ints, or one tuple or list of them) skip the parser: backward formulas
# call these ops on every step.
VIEW = ArgParser("view", "ScalarType dtype", "SymInt[] size")
EXPAND = ArgParser("expand", "SymInt[] size, *, bool implicit=False")
RESHAPE = Overloads("reshape", ("SymInt[] shape",), ("Tensor input, SymInt[] shape",))
PERMUTE = Overloads("permute", ("int[] dims",), ("Tensor input, int[] dims",))


def _ints(args, function=False):
    """``args`` as a tuple of ints when it is plain ints, or one tuple or list of them (a
    ``Size`` too: the backward formulas expand to one; only that for a ``torch.`` function,
    whose size is one argument); else None."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = args[0]
    elif function or not args:
        return None
    for s in args:
        if type(s) is not int:
            return None
    return tuple(args)


def int_list_argument(parser, name, x, args, kwargs, function=False):
    """The int list ``name`` of ``x.op(*args, **kwargs)`` (``torch.op(x, *args, **kwargs)``
    with ``function``), as ints: plain ints or one tuple or list of them skip the parser,
    anything else goes to ``parser`` (an :class:`Overloads`, or an ArgParser for an op that
    is only a method)."""
    ints = None if kwargs else _ints(args, function)
    if ints is not None:
        return ints
    if isinstance(parser, Overloads):
        return parser.parse(x, args, kwargs, function)[1][name]
    return parser.parse(args, kwargs)[1][name]


def view_arguments(x, args, kwargs):
    """``x.view(*args, **kwargs)``: the shape as ints, or the dtype of ``x.view(dtype)``."""
    shape = None if kwargs else _ints(args)
    if shape is None:
        index, values = VIEW.parse(args, kwargs)
        return values["dtype"] if index == 0 else values["size"]
    return shape


def view_dtype(x, dtype):
    """``x.view(dtype)``: the same memory read as ``dtype`` (the last dim rescaled), PyTorch's
    checks in its order. Not differentiable: no graph, no ``requires_grad``; it shares x's
    storage and version counter (an in-place change of either shows in the other's version)."""
    from .._dtype import numpy_dtype, scalar_name
    target, a = np.dtype(numpy_dtype(dtype, "view")), x._data
    if target.itemsize != a.dtype.itemsize:
        what = f"{scalar_name(a.dtype)} as {scalar_name(target)} (different element sizes)"
        if not a.ndim:
            raise RuntimeError(f"self.dim() cannot be 0 to view {what}")
        if a.strides[-1] != a.itemsize and a.shape[-1] != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 to view {what}, but got "
                               f"{a.strides[-1] // a.itemsize}")
        if target.itemsize > a.itemsize and a.shape[-1] % (target.itemsize // a.itemsize):
            raise RuntimeError(f"self.size(-1) must be divisible by "
                               f"{target.itemsize // a.itemsize} to view {what}, but got "
                               f"{a.shape[-1]}")
    # (the same memory: its storage and version counter, as PyTorch's view(dtype) shares)
    return Tensor._make(a.view(target), storage=x._storage, version_counter=x._version_counter)


class IntArguments:
    """An op whose arguments after the tensor are ints or int lists: PyTorch's parser for its
    method (``call(x, args, kwargs)``) and its ``torch.`` function (``.function``), then
    ``op(x, *values)``. Plain ints, as many as a signature takes, skip the parser."""

    def __init__(self, name, method, function, op):
        self.overloads = Overloads(name, method, function)
        signatures = self.overloads.method.signatures
        self.arity = range(min(s.min_args for s in signatures),
                           max(s.max_pos_args for s in signatures) + 1)
        self.op = op
        self.function = self.overloads.torch_function(self.call)
        self.function.__doc__ = op.__doc__

    def call(self, x, args, kwargs, function=False):
        if not kwargs and len(args) in self.arity:
            for a in args:
                if type(a) is not int:
                    break
            else:
                return self.op(x, *args)
        _, values = self.overloads.parse(x, args, kwargs, function)
        return self.op(x, *[v for k, v in values.items() if k != "input" and k != "out"])


def squeeze(x, dim=None):
    """``squeeze()``, ``squeeze(d)`` or ``squeeze((d0, d1))``: each its own node, as PyTorch."""
    if dim is None:
        return SqueezeBackward0.apply(x)
    if type(dim) is tuple:
        return SqueezeBackward2.apply(x, dim)
    return SqueezeBackward1.apply(x, dim)


def flatten(x, start_dim=0, end_dim=-1):
    """Dims ``start_dim`` to ``end_dim`` merged into one, as ``reshape`` (a view when the
    memory allows); ``x`` itself when that is one dim already, as PyTorch."""
    start = wrap_dim(start_dim, x.ndim)
    end = wrap_dim(end_dim, x.ndim)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if not x.ndim:
        return reshape(x, 1)
    if start == end:
        return x
    shape = x.shape
    return reshape(x, shape[:start] + (math.prod(shape[start:end + 1]),) + shape[end + 1:])


def _narrow(x, dim, start, length):
    if isinstance(start, Tensor):  # (the overload that takes start as a tensor)
        if start.ndim or start._data.dtype.kind not in "iu":
            raise RuntimeError("start must be an 0-dim integral Tensor.")
        start = int(start._data)
    return narrow(x, dim, start, length)


def _transpose(x, dim0, dim1):
    return TransposeBackward0.apply(x, dim0, dim1)


def _two_dims(first, second):
    return (f"int {first}, int {second}",), (f"Tensor input, int {first}, int {second}",)


SQUEEZE = IntArguments("squeeze", ("", "int dim", "int[] dim"),
                       ("Tensor input", "Tensor input, int dim", "Tensor input, int[] dim"),
                       squeeze)
UNSQUEEZE = IntArguments("unsqueeze", ("int dim",), ("Tensor input, int dim",),
                         lambda x, dim: UnsqueezeBackward0.apply(x, dim))
TRANSPOSE = IntArguments("transpose", *_two_dims("dim0", "dim1"), _transpose)
SWAPDIMS = IntArguments("swapdims", *_two_dims("dim0", "dim1"), _transpose)
SWAPAXES = IntArguments("swapaxes", *_two_dims("axis0", "axis1"), _transpose)
FLATTEN = IntArguments("flatten", ("int start_dim=0, int end_dim=-1",),
                       ("Tensor input, int start_dim=0, int end_dim=-1",), flatten)
SELECT = IntArguments("select", ("int dim, int index",), ("Tensor input, int dim, int index",),
                      lambda x, dim, index: SelectBackward0.apply(x, dim, index))
NARROW = IntArguments("narrow", ("int dim, Tensor start, int length",
                                 "int dim, int start, int length"),
                      ("Tensor input, int dim, Tensor start, int length",
                       "Tensor input, int dim, int start, int length"), _narrow)
CHUNK = IntArguments("chunk", ("int chunks, int dim=0",), ("Tensor input, int chunks, int dim=0",),
                     lambda x, chunks, dim=0: chunk(x, chunks, dim))
UNBIND = IntArguments("unbind", ("int dim=0",), ("Tensor input, int dim=0",),
                      lambda x, dim=0: unbind(x, dim))


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


def repeat(x, repeats):
    return RepeatBackward0.apply(x, tuple(repeats))


def tile(x, dims):
    """``x.tile(dims)``: ``repeat`` with dims padded by leading 1s to x's rank, as PyTorch
    (``RepeatBackward0``, no node of its own)."""
    dims = tuple(dims)
    return RepeatBackward0.apply(x, (1,) * (x.ndim - len(dims)) + dims)


REPEAT = ArgParser("repeat", "SymInt[] repeats")
TILE = Overloads("tile", ("SymInt[] dims",), ("Tensor input, SymInt[] dims",))


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


def roll(x, shifts, dims=None):
    return RollBackward0.apply(x, tuple(shifts), () if dims is None else tuple(dims))


ROLL = Overloads("roll", ("SymInt[1] shifts, int[1]? dims=[]",),
                 ("Tensor input, SymInt[1] shifts, int[1]? dims=[]",))


def roll_arguments(x, args, kwargs, function=False):
    """(shifts, dims) of ``x.roll(*args, **kwargs)``; plain ints skip the parser."""
    if not function and not kwargs and 0 < len(args) < 3 and all(type(a) is int for a in args):
        return (args[0],), args[1:]
    values = ROLL.parse(x, args, kwargs, function)[1]
    return values["shifts"], values["dims"]


# -- movedim, moveaxis (permute) -------------------------------------------------------------
def movedim(x, source, destination):
    """``x.movedim(source, destination)`` (ints, or lists of them; ``moveaxis`` alike): the
    dims in ``source`` moved to ``destination``, the others kept in order. PyTorch's
    ``permute`` (``PermuteBackward0``), or ``alias`` of a 0-dim tensor."""
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({src} dims) "
                           f"should contain the same number of dims as destination ({dst} dims)")
    wrapped_src = [wrap_dim(d, x.ndim) for d in src]
    wrapped_dst = [wrap_dim(d, x.ndim) for d in dst]
    if len(set(wrapped_src)) != len(src):
        raise RuntimeError(f"movedim: repeated dim in `source` ({src})")
    if len(set(wrapped_dst)) != len(dst):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({dst})")
    if not x.ndim:
        return AliasBackward0.apply(x)
    order = [None] * x.ndim
    for s, d in zip(wrapped_src, wrapped_dst):
        order[d] = s
    rest = iter(d for d in range(x.ndim) if d not in wrapped_src)
    return PermuteBackward0.apply(x, tuple(next(rest) if o is None else o for o in order))


def _move_overloads(name):
    return IntArguments(name, ("int source, int destination", "int[] source, int[] destination"),
                        ("Tensor input, int source, int destination",
                         "Tensor input, int[] source, int[] destination"), movedim)


MOVEDIM, MOVEAXIS = _move_overloads("movedim"), _move_overloads("moveaxis")


# -- unflatten, ravel (view) -----------------------------------------------------------------
def unflatten(x, dim, sizes):
    """``x.unflatten(dim, sizes)``: dim split into ``sizes`` (one -1 inferred), a ``view``
    (``ViewBackward0``) as PyTorch's; its checks and messages."""
    d = wrap_dim(dim, x.ndim)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    if not x.ndim:
        raise RuntimeError(f"unflatten got an unexpected error:\nDimension specified as {d} "
                           f"but tensor has no dimensions")
    try:
        inferred = _infer_shape(tuple(sizes), x.shape[d])
    except RuntimeError as e:
        if "is invalid for input of size" not in str(e):
            raise RuntimeError(f"unflatten got an unexpected error:\n{e}") from None
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the "
                           f"size of dim {d} ({x.shape[d]}) in the input tensor") from None
    return ViewBackward0.apply(x, x.shape[:d] + inferred + x.shape[d + 1:])


def ravel(x):
    """``x.contiguous().view(-1)``, as PyTorch: a view of a contiguous x (``ViewBackward0``),
    else ``CloneBackward0`` then ``ViewBackward0`` (not reshape's ``_unsafe_view``)."""
    return ViewBackward0.apply(x.contiguous(), (x.numel(),))


UNFLATTEN = Overloads("unflatten", ("int dim, SymInt[] sizes",),
                      ("Tensor input, int dim, SymInt[] sizes",))


def unflatten_method(x, dim, sizes):
    """``Tensor.unflatten``, a Python method in PyTorch: it refuses empty sizes itself."""
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    return unflatten(x, *unflatten_arguments(x, (dim, sizes), {}))


def unflatten_arguments(x, args, kwargs, function=False):
    values = UNFLATTEN.parse(x, args, kwargs, function)[1]
    return values["dim"], values["sizes"]


# -- hstack, vstack, dstack: cat of atleast_1d/2d/3d -------------------------------------------
def _atleast_1d(t):
    return ViewBackward0.apply(t, (1,)) if not t.ndim else t


def _atleast_2d(t):
    if not t.ndim:
        return ViewBackward0.apply(t, (1, 1))
    return UnsqueezeBackward0.apply(t, 0) if t.ndim == 1 else t


def _atleast_3d(t):
    if not t.ndim:
        return ViewBackward0.apply(t, (1, 1, 1))
    if t.ndim == 1:
        return UnsqueezeBackward0.apply(UnsqueezeBackward0.apply(t, 0), -1)
    return UnsqueezeBackward0.apply(t, -1) if t.ndim == 2 else t


def _stacking(name, atleast, dim):
    """``torch.hstack``/``vstack``/``dstack``: ``cat`` of the tensors made at least 1-, 2- or
    3-dim (``ViewBackward0``/``UnsqueezeBackward0`` then ``CatBackward0``, as PyTorch)."""
    parser = ArgParser(name, "Tensor[] tensors, *, Tensor? out=None")

    def call(*args, **kwargs):
        if not kwargs and len(args) == 1 and type(args[0]) in (list, tuple):
            tensors = args[0]
            check_tensor_list(tensors)
        else:
            tensors = parser.parse(args, kwargs)[1]["tensors"]
        if not tensors:
            raise RuntimeError(f"{name} expects a non-empty TensorList")
        tensors = [atleast(t) for t in tensors]
        return CatBackward0.apply(tensors, dim(tensors))
    call.__name__ = call.__qualname__ = name
    return call


hstack = _stacking("hstack", _atleast_1d, lambda ts: 0 if ts[0].ndim == 1 else 1)
vstack = _stacking("vstack", _atleast_2d, lambda ts: 0)
dstack = _stacking("dstack", _atleast_3d, lambda ts: 2)


# -- repeat_interleave (int repeats) ------------------------------------------------------------
def repeat_interleave(x, repeats, dim=None, output_size=None):
    """``x.repeat_interleave(repeats, dim=None)`` for an int ``repeats``: each element repeated
    along dim (of the flattened x without one). PyTorch's composite, node by node: ``flatten``,
    ``UnsqueezeBackward0`` at dim + 1, ``ExpandBackward0`` there to repeats,
    ``CloneBackward0``, ``ViewBackward0`` merging the two dims; no node of its own."""
    if isinstance(repeats, Tensor):  # (PyTorch's other overload: an index_select)
        raise NotImplementedError("autograd_lesson's repeat_interleave takes int repeats only, "
                                  "not a tensor of them")
    source = x if dim is not None else flatten(x)
    d = wrap_dim(0 if dim is None else dim, x.ndim)  # (x's rank, as PyTorch: not the flattened)
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    source = UnsqueezeBackward0.apply(source, d + 1)
    shape = list(source.shape)
    shape[d + 1] = repeats
    source = ExpandBackward0.apply(source, tuple(shape))
    if output_size is not None and output_size != repeats * shape[d]:
        raise RuntimeError(f"repeat_interleave: Invalid output_size, expected "
                           f"{repeats * shape[d]} but got {output_size}")
    return flatten(CloneBackward0.apply(source), d, d + 1)


_INTERLEAVE = ("Tensor repeats, int? dim=None, *, SymInt? output_size=None",
               "SymInt repeats, int? dim=None, *, SymInt? output_size=None")
REPEAT_INTERLEAVE = IntArguments(
    "repeat_interleave", _INTERLEAVE,
    ("Tensor input, Tensor repeats, int? dim=None, *, SymInt? output_size=None",
     "Tensor repeats, *, SymInt? output_size=None",
     "Tensor input, SymInt repeats, int? dim=None, *, SymInt? output_size=None"),
    repeat_interleave)
