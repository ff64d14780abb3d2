"""Emulation of PyTorch's CPU kernels where memory is shared: whether two tensors overlap
(``get_overlap_status``) and the order ``index_put_`` writes an expanded tensor in.
"""
import numpy as np


def put(target, key, values, accumulate=False, in_place=False):
    """A dense copy of ``target`` after PyTorch's CPU index_put kernel wrote (or, with
    ``accumulate``, added) ``values`` at ``key`` one element after the other, in index order:
    for a duplicate index the last write wins. An expanded ``target`` (elements sharing memory)
    written in place is written memory location by memory location, so every element aliasing
    a location reads the location's final value."""
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


def is_same_data(x, src):
    """PyTorch's ``copy_`` returns before its kernel's checks (an expanded self's included) when
    src is self's very memory: the same storage, offset, sizes, strides and dtype."""
    a, b = x._data, src._data
    return (x._storage is src._storage and a.dtype == b.dtype and a.shape == b.shape
            and a.strides == b.strides
            and a.__array_interface__["data"][0] == b.__array_interface__["data"][0])


def check_overlap(target, value, partial_only=False):
    """PyTorch's ``assert_no_overlap`` (``index_put_``) / ``assert_no_partial_overlap``
    (``copy_``, in-place binary ops): a value reading memory that the write changes. The same
    tensor always overlaps fully, even an empty one."""
    status = "full" if target is value else overlap_status(target._data, value._data)
    if status == "partial" or (status == "full" and not partial_only):
        raise RuntimeError(OVERLAP_INPUT_ERROR)


def has_internal_overlap(array):
    """PyTorch's ``has_internal_overlap`` == YES: a dim of size > 1 with stride 0 (expand)."""
    return array.size and any(s == 0 and n > 1 for n, s in zip(array.shape, array.strides))


# -- views: where a view sits in its base ---------------------------------------------------------
def _offsets(array):
    """The memory offset, in elements, of each element of ``array`` from its first one."""
    out = np.zeros(array.shape, dtype=np.int64)
    for axis, (n, stride) in enumerate(zip(array.shape, array.strides)):
        shape = [1] * array.ndim
        shape[axis] = n
        out = out + (np.arange(n, dtype=np.int64) * (stride // array.itemsize)).reshape(shape)
    return out
