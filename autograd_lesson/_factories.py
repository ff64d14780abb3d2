"""Tensor factories: ``tensor``, ``zeros``, ``ones``, ``randn``, ``rand`` and friends."""
import numpy as np

from ._random import generator
from ._tensor import DEFAULT_DTYPE, FLOAT_ONLY_FACTORY_ERROR, Tensor, _infer_array, _is_float


def _shape(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        return tuple(size[0])
    return tuple(int(s) for s in size)


def _leaf(array, requires_grad):
    t = Tensor._make(array)
    if requires_grad:
        if not _is_float(t.dtype):
            raise RuntimeError(FLOAT_ONLY_FACTORY_ERROR)
        t.requires_grad = True
    return t


def tensor(data, dtype=None, requires_grad=False):
    """A new leaf tensor copying ``data``; Python floats become float32, ints int64."""
    return _leaf(_infer_array(data, dtype), requires_grad)


def as_tensor(data, dtype=None):
    return data if isinstance(data, Tensor) and dtype is None else tensor(data, dtype)


def zeros(*size, dtype=None, requires_grad=False):
    return _leaf(np.zeros(_shape(size), dtype=dtype or DEFAULT_DTYPE), requires_grad)


def ones(*size, dtype=None, requires_grad=False):
    return _leaf(np.ones(_shape(size), dtype=dtype or DEFAULT_DTYPE), requires_grad)


def full(size, fill_value, dtype=None, requires_grad=False):
    return _leaf(np.full(_shape((size,)), fill_value, dtype=dtype or DEFAULT_DTYPE), requires_grad)


def randn(*size, dtype=None, requires_grad=False):
    """Standard normal samples from the package's seeded generator (see ``manual_seed``)."""
    values = generator().standard_normal(_shape(size))
    return _leaf(values.astype(dtype or DEFAULT_DTYPE), requires_grad)


def rand(*size, dtype=None, requires_grad=False):
    values = generator().random(_shape(size))
    return _leaf(values.astype(dtype or DEFAULT_DTYPE), requires_grad)


def randint(low, high, size, dtype=np.int64):
    return _leaf(generator().integers(low, high, _shape((size,))).astype(dtype), False)


def zeros_like(t, dtype=None, requires_grad=False):
    return zeros(t.shape, dtype=dtype or t.dtype, requires_grad=requires_grad)


def ones_like(t, dtype=None, requires_grad=False):
    return ones(t.shape, dtype=dtype or t.dtype, requires_grad=requires_grad)


def randn_like(t, dtype=None, requires_grad=False):
    return randn(t.shape, dtype=dtype or t.dtype, requires_grad=requires_grad)


def rand_like(t, dtype=None, requires_grad=False):
    return rand(t.shape, dtype=dtype or t.dtype, requires_grad=requires_grad)


def arange(start, end=None, step=1, dtype=None, requires_grad=False):
    if end is None:
        start, end = 0, start
    values = np.arange(start, end, step)
    if dtype is None:
        dtype = np.int64 if values.dtype.kind in "iu" else DEFAULT_DTYPE
    return _leaf(values.astype(dtype), requires_grad)


def linspace(start, end, steps, dtype=None, requires_grad=False):
    return _leaf(np.linspace(start, end, steps).astype(dtype or DEFAULT_DTYPE), requires_grad)


def eye(n, dtype=None, requires_grad=False):
    return _leaf(np.eye(n, dtype=dtype or DEFAULT_DTYPE), requires_grad)


def from_numpy(array):
    """A tensor sharing memory with ``array`` (its dtype kept)."""
    return Tensor._make(np.asarray(array))
