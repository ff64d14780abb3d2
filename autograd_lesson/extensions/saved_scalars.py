"""A Python scalar operand saved as PyTorch saves it (``x * 2`` saves ``other``: a 0-dim int64
tensor; ``x * 2.5`` a float64 one, ``x * 2j`` a complex128 one, ``x * True`` a bool one).

The 0-dim tensor is made only when a backward (or ``grad_fn._saved_other``) unpacks it
(``SavedTensor.scalar_tensor``). Pack hooks never see it, and memory meters count its bytes
apart (``is_wrapped_scalar``).
"""
import numpy as np

from .. import _tensor
from .._node import SavedTensor
from . import saved_meters

_FLOAT64 = np.dtype(np.float64)
_new = object.__new__


def wrap_scalar(value):
    """The 0-dim tensor PyTorch makes of a Python scalar: bool, int64, float64 or complex128."""
    dtype = (np.float64 if isinstance(value, float) else np.complex128
             if isinstance(value, complex) else np.bool_ if isinstance(value, bool) else np.int64)
    return _tensor.make_tensor(np.asarray(value, dtype=dtype))


def saved_scalar(value):
    """A SavedTensor holding a Python scalar: its value and dtype, never a version change."""
    saved = _new(SavedTensor)  # (SavedTensor's __init__ reads a tensor: not called)
    if type(value) is float:
        saved.scalar, saved.dtype = value, _FLOAT64
    else:
        array = wrap_scalar(value)._data
        saved.scalar, saved.dtype = array.item(), array.dtype
    saved.is_wrapped_scalar, saved.is_output, saved.released, saved.placeholder = True, False, False, False
    saved.view_fn = saved.grad_edge = saved.ref = saved.origin = None
    saved.packed = saved.unpack_hook = saved.tensor = saved.array = None
    saved.shape, saved.nbytes = (), saved.dtype.itemsize
    saved.storage = storage = _new(_tensor.Storage)  # (no __init__ frames: a save per op)
    storage.nbytes, storage.inference = saved.nbytes, False  # (inference mode saves none)
    saved.version_counter = counter = _new(_tensor.VersionCounter)
    counter.value = saved.saved_version = 0
    saved.output_nr, saved.requires_grad = 0, False
    saved_meters.register(saved)
    return saved
