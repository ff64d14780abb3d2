"""Tensor factories: ``tensor``, ``zeros``, ``ones``, ``randn``, ``rand`` and friends."""
import re
import warnings

import numpy as np

from ._dtype import checked, default_complex, default_float, not_implemented, numpy_dtype, typename
from ._random import generator
from ._surface.checks import check_requires_grad
from ._tensor import Tensor
from ._surface.tensor import FLOAT_ONLY_FACTORY_ERROR, _infer_array
from ._surface.checks import check_scalar
from ._surface.promotion import scalar_dtype
from ._surface.parser import parsed


class device:
    """``torch.device``: autograd_lesson computes on the CPU only, so only ``"cpu"`` is valid."""

    def __init__(self, type="cpu", index=None):
        if isinstance(type, device):
            type, index = type.type, type.index
        elif isinstance(type, int) and not isinstance(type, bool):  # an accelerator's index
            raise RuntimeError("Device index must not be negative" if type < 0
                               else "Cannot access accelerator device when none is available.")
        elif isinstance(type, str) and not _DEVICE_STRING.fullmatch(type):
            raise RuntimeError(f"Invalid device string: '{type}'" if type
                               else "Device string must not be empty")
        name, _, number = str(type).partition(":")
        if name == "cuda":
            raise AssertionError("Torch not compiled with CUDA enabled")
        if name not in ("cpu",):
            if name in _KNOWN_DEVICES:
                raise NotImplementedError(f"autograd_lesson computes on the CPU only: pass "
                                   f"device='cpu' (or leave device out), not {type!r}")
            raise RuntimeError(f"Expected one of {', '.join(_KNOWN_DEVICES)} device type at "
                               f"start of device string: {type}")
        self.type, self.index = name, int(number) if number else index

    def __repr__(self):
        extra = "" if self.index is None else f", index={self.index}"
        return f"device(type='{self.type}'{extra})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        other = other if isinstance(other, device) else device(other)
        return (self.type, self.index) == (other.type, other.index)

    __hash__ = object.__hash__


_DEVICE_STRING = re.compile(r"[a-zA-Z_]+(?::(?:[1-9][0-9]*|0))?")  # (c10's Device parser)
_KNOWN_DEVICES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip",
                  "ve", "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                  "privateuseone")


def _check_device(where):
    if where is not None:
        device(where)


def _shape(size, factory=None):
    """The shape of ``size`` (ints, or one tuple/list of ints), with PyTorch's argument-parser
    errors: the first element must be an int (not a bool), later ones may be bools."""
    packed = len(size) == 1 and isinstance(size[0], (tuple, list))
    if packed:
        size = tuple(size[0])
    elif len(size) == 1 and not isinstance(size[0], (int, np.integer)):
        raise TypeError(f"{factory}(): argument 'size' (position 1) must be tuple of ints, not "
                        f"{type(size[0]).__name__}")
    first_bad = bool(size) and (isinstance(size[0], bool)
                                or not isinstance(size[0], (int, np.integer)))
    if first_bad and not packed and factory in ("zeros", "ones", "empty"):
        # (their one overload with a size: the argument parser takes a bad first number for a
        # second positional argument; randn/rand have overloads, and word it otherwise)
        raise TypeError(f"{factory}() takes 1 positional argument but {len(size)} were given")
    for i, s in enumerate(size):
        if packed and not i and first_bad:
            raise TypeError(f"{factory}(): argument 'size' (position 1) must be tuple of ints, "
                            f"but found element of type {type(s).__name__} at pos 0")
        if (isinstance(s, bool) and not i) or not isinstance(s, (int, np.integer)):
            raise TypeError(f"{factory}(): argument 'size' failed to unpack the object at pos "
                            f"{i + 1} with error \"type must be tuple of ints,but got "
                            f"{type(s).__name__}\"")
    shape = tuple(int(s) for s in size)
    for s in shape:
        if s < 0:
            if factory == "zeros":  # PyTorch words zeros' check its own way
                raise RuntimeError("zeros: Dimension size must be non-negative.")
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{list(shape)}")
    return shape


def _leaf(array, requires_grad):
    t = Tensor._make(array)
    if requires_grad:
        check_requires_grad(t._data.dtype, FLOAT_ONLY_FACTORY_ERROR)
        t.requires_grad = True
    return t


def tensor(data, dtype=None, device=None, requires_grad=False):
    """A new leaf tensor copying ``data``; Python floats become float32, ints int64."""
    dtype = None if dtype is None else numpy_dtype(dtype, "tensor")
    _check_device(device)
    if isinstance(data, Tensor):
        warnings.warn(COPY_CONSTRUCT_WARNING.format("torch.tensor"), UserWarning, stacklevel=2)
    _check_nested(data)
    return _leaf(_infer_array(data, dtype), requires_grad)


def _check_nested(data, dim=0):
    """A ragged nested list: PyTorch's ValueError, not NumPy's 'inhomogeneous shape'."""
    if not isinstance(data, (list, tuple)):
        return
    lengths = [len(v) for v in data if isinstance(v, (list, tuple))]
    if lengths and len(lengths) != len(data):
        raise TypeError("not a sequence" if isinstance(data[0], (list, tuple))
                        else "'list' object cannot be interpreted as an integer")
    for v in data:
        if isinstance(v, (list, tuple)) and len(v) != lengths[0]:
            raise ValueError(f"expected sequence of length {lengths[0]} at dim {dim + 1} "
                             f"(got {len(v)})")
    for v in data:
        _check_nested(v, dim + 1)


def as_tensor(data, dtype=None, device=None):
    if dtype is not None:
        dtype = numpy_dtype(dtype, "as_tensor")
    _check_device(device)
    if isinstance(data, Tensor):  # (itself, or converted in the graph: ToCopyBackward0)
        return data if dtype is None else data._to(dtype)
    _check_nested(data)
    return _leaf(_infer_array(data, dtype), False)


def zeros(*size, dtype=None, device=None, requires_grad=False):
    dtype = default_float() if dtype is None else numpy_dtype(dtype, "zeros")
    _check_device(device)
    return _leaf(np.zeros(_shape(size, "zeros"), dtype=dtype), requires_grad)


def ones(*size, dtype=None, device=None, requires_grad=False):
    dtype = default_float() if dtype is None else numpy_dtype(dtype, "ones")
    _check_device(device)
    return _leaf(np.ones(_shape(size, "ones"), dtype=dtype), requires_grad)


@parsed("full")
def full(size, fill_value, dtype=None, device=None, requires_grad=False):
    """``fill_value``'s type sets the dtype, as in PyTorch: bool, int64, float32 or complex64
    (a 0-dim tensor's by its Python value: a float64 one gives float32)."""
    if dtype is None:  # (fill_value: a Python number, as the parser unpacked it)
        dtype = scalar_dtype(fill_value)
    else:
        dtype = numpy_dtype(dtype, "full")
    _check_device(device)
    fill_value = check_scalar(fill_value, dtype)
    return _leaf(np.full(_shape((size,), "full"), fill_value, dtype=dtype), requires_grad)


def _random_dtype(dtype, fn):
    """randn and rand sample floats only: PyTorch's kernels refuse the other dtypes."""
    if dtype.kind not in "fc":
        raise not_implemented("normal_kernel_cpu" if fn.startswith("randn")
                              else "check_uniform_bounds", dtype)
    return dtype


def randn(*size, dtype=None, device=None, requires_grad=False):
    """Standard normal samples from the package's seeded generator (see ``manual_seed``)."""
    dtype = default_float() if dtype is None else checked(dtype, "randn", size)
    _check_device(device)
    dtype = _random_dtype(dtype, "randn")
    values = generator().standard_normal(_shape(size, "randn"))
    return _leaf(values.astype(dtype), requires_grad)


def rand(*size, dtype=None, device=None, requires_grad=False):
    dtype = default_float() if dtype is None else checked(dtype, "rand", size)
    _check_device(device)
    dtype = _random_dtype(dtype, "rand")
    values = generator().random(_shape(size, "rand"))
    return _leaf(values.astype(dtype), requires_grad)


def randint(*args, **kwargs):
    """``randint(high, size)`` or ``randint(low, high, size)``: integers in ``[low, high)``."""
    low, high, size, options = _randint_arguments(args, kwargs)
    dtype = options.get("dtype")
    dtype = np.dtype(np.int64) if dtype is None else checked(dtype, "randint", args)
    _check_device(options.get("device"))
    shape = _shape((size,))
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= "
                           f"to={high}")
    if dtype.kind == "c":
        raise RuntimeError("check_random_bounds handles only integral, floating-point and "
                           "boolean types")
    if dtype.kind in "biu":  # (c10's check_from_to_in_range, in PyTorch's C type names)
        info = (0, 1) if dtype.kind == "b" else (np.iinfo(dtype).min, np.iinfo(dtype).max)
        if low < info[0]:
            raise RuntimeError(f"from is out of bounds for {_C_NAMES[dtype.name]}")
        if high - 1 > info[1]:
            raise RuntimeError(f"to - 1 is out of bounds for {_C_NAMES[dtype.name]}")
    return _leaf(generator().integers(low, high, shape).astype(dtype),
                 options.get("requires_grad", False))


_C_NAMES = {"bool": "bool", "int8": "signed char", "uint8": "unsigned char", "int16": "short",
            "int32": "int", "int64": "long int"}
_RANDINT_OPTIONS = ("generator", "dtype", "device", "requires_grad", "layout", "pin_memory")


def _randint_arguments(args, kwargs):
    """(low, high, size, the keyword options) as PyTorch's parser reads randint's overloads:
    a type error names the argument when one overload fits the count (``randint(high,
    size)``), else it lists them all."""
    def invalid():
        from ._dtype import invalid_combination
        return invalid_combination("randint", args, kwargs)
    names = ("low", "high", "size") if len(args) >= 3 or "low" in kwargs else ("high", "size")
    options = {k: v for k, v in kwargs.items() if k in _RANDINT_OPTIONS}
    values = dict(zip(names, args))
    for name, value in kwargs.items():
        if name in values or (name not in names and name not in _RANDINT_OPTIONS):
            raise invalid()
        values.setdefault(name, value)
    if len(args) > 3 or any(name not in values for name in names):
        raise invalid()
    named = len(args) + len(kwargs) == 2  # (one overload fits: its own messages)
    for position, name in enumerate(names, 1):
        value = values[name]
        if name == "size":
            if isinstance(value, (tuple, list)):
                bad = next((v for v in value if isinstance(v, bool)
                            or not isinstance(v, (int, np.integer))), None)
                if bad is None:
                    continue
                if named:
                    raise TypeError(f"randint(): argument 'size' (position {position}) must be "
                                    f"tuple of ints, but found element of type "
                                    f"{type(bad).__name__} at pos {value.index(bad)}")
            elif named:
                raise TypeError(f"randint(): argument 'size' (position {position}) must be tuple "
                                f"of ints, not {type(value).__name__}")
            raise invalid()
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            if named:
                raise TypeError(f"randint(): argument '{name}' (position {position}) must be "
                                f"int, not {type(value).__name__}")
            raise invalid()
        if not -2**63 <= value < 2**63:
            raise ValueError("Overflow when unpacking long long")
    return int(values.get("low", 0)), int(values["high"]), values["size"], options


def _like_dtype(t, dtype, fn):
    """The dtype of ``fn(t, dtype=...)``: t's own unless given (t is checked to be a Tensor)."""
    if not isinstance(t, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not {typename(t)}")
    if dtype is None:
        return t._data.dtype
    if fn in ("zeros_like", "ones_like"):
        return numpy_dtype(dtype, fn)
    return checked(dtype, fn, (t,))


def zeros_like(t, *, dtype=None, device=None, requires_grad=False):
    dtype = _like_dtype(t, dtype, "zeros_like")
    _check_device(device)
    return _leaf(np.zeros(t._data.shape, dtype=dtype), requires_grad)


def ones_like(t, *, dtype=None, device=None, requires_grad=False):
    dtype = _like_dtype(t, dtype, "ones_like")
    _check_device(device)
    return _leaf(np.ones(t._data.shape, dtype=dtype), requires_grad)


def randn_like(t, *, dtype=None, device=None, requires_grad=False):
    dtype = _like_dtype(t, dtype, "randn_like")
    _check_device(device)
    dtype = _random_dtype(dtype, "randn_like")  # (t's own dtype too: rand_like of ints raises)
    return _leaf(generator().standard_normal(t._data.shape).astype(dtype), requires_grad)


def rand_like(t, *, dtype=None, device=None, requires_grad=False):
    dtype = _like_dtype(t, dtype, "rand_like")
    _check_device(device)
    dtype = _random_dtype(dtype, "rand_like")  # (t's own dtype too: rand_like of ints raises)
    return _leaf(generator().random(t._data.shape).astype(dtype), requires_grad)


def arange(start, end=None, step=1, dtype=None, device=None, requires_grad=False):
    if dtype is not None:
        dtype = checked(dtype, "arange", (start,) + tuple(a for a in (end,) if a is not None)
                        + ((step,) if step != 1 else ()))
    _check_device(device)
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype is not None and dtype.kind in "bc":
        raise not_implemented("arange_cpu", dtype)
    values = np.arange(start, end, step)
    if dtype is None:
        dtype = np.int64 if values.dtype.kind in "iu" else default_float()
    return _leaf(values.astype(dtype), requires_grad)


def linspace(start, end, steps, dtype=None, device=None, requires_grad=False):
    dtype = default_float() if dtype is None else checked(dtype, "linspace", (start, end, steps))
    _check_device(device)
    if dtype.kind == "b":
        raise not_implemented("linspace_cpu", dtype)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    return _leaf(np.linspace(start, end, steps).astype(dtype), requires_grad)


def eye(n, m=None, dtype=None, device=None, requires_grad=False):
    dtype = default_float() if dtype is None else checked(dtype, "eye", (n,) if m is None else (n, m))
    _check_device(device)
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m is not None and m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    return _leaf(np.eye(n, m, dtype=dtype), requires_grad)


def from_numpy(array):
    """A tensor sharing memory with ``array`` (its dtype kept); nothing but an ndarray, as
    PyTorch (``from_numpy([1.0])``: a TypeError, ``torch.tensor`` copies a list)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {typename(array)})")
    return Tensor._make(array)


# -- issue 12: new_zeros and kin (the Tensor methods), full_like, empty, empty_like -------------
COPY_CONSTRUCT_WARNING = (
    "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
    "sourceTensor.detach().clone().requires_grad_(True), rather than {}(sourceTensor).")


def _sized(size, factory):
    if not size:
        raise TypeError(f'{factory}() missing 1 required positional arguments: "size"')
    return _shape(size, factory)


def _new_dtype(t, dtype, fn):
    return t._data.dtype if dtype is None else numpy_dtype(dtype, fn)


def new_zeros(t, size, dtype=None, device=None, requires_grad=False):
    """``t.new_zeros(*size)``: t's dtype unless ``dtype`` is given."""
    dtype = _new_dtype(t, dtype, "new_zeros")
    _check_device(device)
    return _leaf(np.zeros(_sized(size, "new_zeros"), dtype), requires_grad)


def new_ones(t, size, dtype=None, device=None, requires_grad=False):
    dtype = _new_dtype(t, dtype, "new_ones")
    _check_device(device)
    return _leaf(np.ones(_sized(size, "new_ones"), dtype), requires_grad)


def new_empty(t, size, dtype=None, device=None, requires_grad=False):
    """Values unspecified in PyTorch; zeros here."""
    dtype = _new_dtype(t, dtype, "new_empty")
    _check_device(device)
    return _leaf(np.zeros(_sized(size, "new_empty"), dtype), requires_grad)


@parsed("new_full")
def new_full(t, size, fill_value, dtype=None, device=None, requires_grad=False):
    dtype = _new_dtype(t, dtype, "new_full")
    _check_device(device)
    fill_value = check_scalar(fill_value, dtype)
    return _leaf(np.full(_shape((size,), "new_full"), fill_value, dtype=dtype), requires_grad)


def new_tensor(t, data, dtype=None, device=None, requires_grad=False):
    """A new leaf copying ``data`` in t's dtype (unless ``dtype`` is given)."""
    import warnings
    dtype = _new_dtype(t, dtype, "new_tensor")
    _check_device(device)
    if isinstance(data, Tensor):
        warnings.warn(COPY_CONSTRUCT_WARNING.format("tensor.new_tensor"), UserWarning,
                      stacklevel=3)
    _check_nested(data)
    return _leaf(_infer_array(data, dtype), requires_grad)


@parsed("full_like")
def full_like(input, fill_value, dtype=None, device=None, requires_grad=False):
    """input's shape filled with ``fill_value``, in input's dtype unless ``dtype`` is given."""
    dtype = _new_dtype(input, dtype, "full_like")
    _check_device(device)
    return _leaf(np.full(input._data.shape, check_scalar(fill_value, dtype), dtype=dtype),
                 requires_grad)


def empty(*size, dtype=None, device=None, requires_grad=False):
    """Values unspecified in PyTorch; zeros here."""
    dtype = default_float() if dtype is None else numpy_dtype(dtype, "empty")
    _check_device(device)
    return _leaf(np.zeros(_sized(size, "empty"), dtype=dtype), requires_grad)


def empty_like(t, dtype=None, device=None, requires_grad=False):
    if not isinstance(t, Tensor):
        raise TypeError(f"empty_like(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(t).__name__}")
    dtype = _new_dtype(t, dtype, "empty_like")
    _check_device(device)
    return _leaf(np.zeros(t._data.shape, dtype), requires_grad)
