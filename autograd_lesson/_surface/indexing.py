"""``x[key]``, ``x[key] = value``, ``index_put_``, ``masked_fill``, ``gather``, ``index_select``:
PyTorch's reading of a key (ints, slices, None, ``...``, int lists, masks), its checks in its
order, and the nodes of ``ops.views`` and ``ops.indexing`` they apply.
"""
import math
import operator
import warnings

import numpy as np

from .. import _grad_mode, _node
from .._broadcast import is_expandable_to
from .._tensor import Tensor
from ..ops.indexing import (GatherBackward0, IndexBackward0, IndexPutBackward0,
                            IndexSelectBackward0, MaskedFillBackward0, MaskedFillBackward1,
                            index_key)
from ..ops.views import (ZERO_DIM_INDEX_ERROR, AliasBackward0, SelectBackward0, SliceBackward0,
                         UnsqueezeBackward0)
from .checks import _check_entries, broadcast_shape, check_scalar, wrap_dim
from .kernels import check_overlap, has_internal_overlap
from .parser import parsed
from .promotion import cpp_name, torch_name


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
    if not x.ndim and _is_advanced(key):  # (applySlicing counts it before any op runs)
        raise IndexError("too many indices for tensor of dimension 0")
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
        if not x.ndim and not isinstance(key, tuple):  # PyTorch's three messages for 0-dim
            if isinstance(keys[0], slice):
                if x._base is not None and x._base._requires_grad:
                    x.grad_fn  # (PyTorch's slice op reads the view's edge before it refuses)
                raise IndexError("slice() cannot be applied to a 0-dim tensor.")
            if int(keys[0]) != 0:
                raise IndexError(f"index {int(keys[0])} is out of bounds for dimension 0 with "
                                 f"size 0")
            raise IndexError(ZERO_DIM_INDEX_ERROR)  # (PyTorch's indexing layer, before any op)
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


def _is_advanced(k):
    return isinstance(k, (list, np.ndarray)) or (isinstance(k, Tensor) and k.ndim > 0)


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
            inplace.check_inplace(x, (value,))  # (PyTorch's autograd check of the view, first)
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
    if mask_fill and isinstance(value, Tensor):  # (a value that requires grad: masked_fill_
        check_scalar(value.item(), x._data.dtype)  # converts its number, checked, all the same)
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


def _masked_fill_arguments(x, mask, value, convert=True):
    if isinstance(value, Tensor) and value.ndim:
        raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value.ndim} dimension(s).")
    if mask._data.dtype != np.bool_:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{cpp_name(mask._data.dtype)}")  # (the mask's C++ type)
    if convert:
        check_scalar(value.item() if isinstance(value, Tensor) else value, x._data.dtype)


def _masked_fill(x, mask, value):
    """``x`` with ``value`` where ``mask`` (broadcast together, mask first): a number gives
    ``MaskedFillBackward0``, a 0-dim tensor ``MaskedFillBackward1`` (an edge to the value)."""
    broadcast_shape(mask.shape, x.shape)
    _masked_fill_arguments(x, mask, value)
    if isinstance(value, Tensor):
        if (x._data.dtype.kind not in "fc" and value.requires_grad and _grad_mode._enabled
                and _node._inplace_self is not x):  # (in place, PyTorch records it anyway)
            raise RuntimeError(f"Autograd not support dtype: {torch_name(x._data.dtype)}")
        return MaskedFillBackward1.apply(x, mask, value)
    return MaskedFillBackward0.apply(x, mask, value)


masked_fill = parsed("masked_fill")(_masked_fill)


@parsed("masked_fill_")
def masked_fill_(x, mask, value):
    """In place; on an expanded tensor PyTorch warns and writes where the mask is set."""
    _masked_fill_arguments(x, mask, value, convert=False)
    if not is_expandable_to(mask.shape, x.shape):  # (x first, in place; then the value)
        raise RuntimeError(f"output with shape {list(x.shape)} doesn't match the broadcast shape "
                           f"{list(broadcast_shape(x.shape, mask.shape))}")
    check_scalar(value.item() if isinstance(value, Tensor) else value, x._data.dtype)
    written = None
    if has_internal_overlap(x._data):
        warnings.warn(EXPANDED_WARNING.format(op="masked_fill_", index="mask", value="scalar"),
                      UserWarning, stacklevel=3)
        written = np.broadcast_to(mask._data, x.shape) if mask.shape != x.shape else mask._data
    others = (value,) if isinstance(value, Tensor) else ()
    return x._inplace(lambda t: _masked_fill(t, mask, value), *others, overlap=written is None,
                      written=written)


@parsed("gather")
def gather(x, dim, index, sparse_grad=False):
    """out[i][j] = x[i][index[i][j]] along ``dim``; index may be smaller than x off ``dim``."""
    given, dim = dim, wrap_dim(dim, x.ndim)
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


@parsed("index_select")
def index_select(x, dim, index):
    """The slices of ``x`` at the int32/int64 vector (or 0-dim) ``index`` along ``dim``."""
    given, dim = dim, wrap_dim(dim, x.ndim)
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
