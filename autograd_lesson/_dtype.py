"""``torch.dtype``: the package's own dtype objects (``autograd_lesson.float32`` prints
``torch.float32``), one per type, each naming the NumPy dtype its tensors' arrays hold.

Tensors keep NumPy arrays, and the ops read ``x._data.dtype`` (a NumPy dtype) on their hot
paths; ``Tensor.dtype`` maps that to the object here with one dict lookup. Public arguments
(``dtype=``, ``.to(...)``) go through ``numpy_dtype``, the one place they are checked: a
package dtype or, as PyTorch allows, Python's ``float``/``int``/``bool``/``complex``. Like
PyTorch, strings, NumPy dtypes and NumPy scalar types are refused with PyTorch's TypeError
(so code written against the package runs unchanged on torch). NumPy itself is never patched.
"""
import builtins

import numpy as np

from ._autograd_errors import typename  # noqa: F401  (the surface reads it here too)

__all__ = ["dtype"]


class dtype:
    """One scalar type: ``is_floating_point``, ``is_complex``, ``is_signed``, ``itemsize``,
    ``to_real()``, ``to_complex()``, as ``torch.dtype``. Equal only to itself; pickles and copies
    as the same object."""

    __slots__ = ("_name", "_numpy", "_abbr", "_scalar_name", "_kind", "_itemsize", "_real",
                 "_complex")
    _tp_name = "torch.dtype"  # (a C type in PyTorch: messages name it so)

    def __new__(cls, *args, **kwargs):
        raise TypeError("cannot create 'torch.dtype' instances")

    @classmethod
    def _create(cls, name, numpy, abbr, scalar_name, kind, itemsize):
        self = object.__new__(cls)
        self._name, self._numpy, self._abbr = name, numpy, abbr
        self._scalar_name, self._kind, self._itemsize = scalar_name, kind, itemsize
        self._real = self._complex = None
        return self

    @property
    def is_floating_point(self):
        return self._kind == "f"

    @property
    def is_complex(self):
        return self._kind == "c"

    @property
    def is_signed(self):
        return self._kind in "fci"

    @property
    def itemsize(self):
        return self._itemsize

    def to_real(self):
        """The real dtype of the same precision (``complex64`` -> ``float32``); others: itself."""
        return self._real or self

    def to_complex(self):
        """The complex dtype of the same precision (``float32`` -> ``complex64``)."""
        if self._complex is None:
            raise RuntimeError(f"Unknown Complex ScalarType for {self._scalar_name}")
        return self._complex

    def __repr__(self):
        return f"torch.{self._name}"

    __str__ = __repr__

    def __reduce__(self):
        return self._name  # pickle and copy find the module's singleton by name

    # (equality and hashing are object identity, as in PyTorch: float32 != np.float32)


dtype.__module__ = "autograd_lesson"

_TYPES = [  # name, NumPy dtype, abbr, PyTorch's ScalarType name, kind, itemsize
    ("float16", np.float16, "f16", "Half", "f", 2),
    ("float32", np.float32, "f32", "Float", "f", 4),
    ("float64", np.float64, "f64", "Double", "f", 8),
    ("bfloat16", None, "bf16", "BFloat16", "f", 2),  # (no NumPy type: no tensors of it)
    ("complex32", None, "c32", "ComplexHalf", "c", 4),  # (no NumPy type: no tensors of it)
    ("complex64", np.complex64, "c64", "ComplexFloat", "c", 8),
    ("complex128", np.complex128, "c128", "ComplexDouble", "c", 16),
    ("int8", np.int8, "i8", "Char", "i", 1),
    ("int16", np.int16, "i16", "Short", "i", 2),
    ("int32", np.int32, "i32", "Int", "i", 4),
    ("int64", np.int64, "i64", "Long", "i", 8),
    ("uint8", np.uint8, "u8", "Byte", "u", 1),
    ("uint16", np.uint16, "u16", "UInt16", "u", 2),
    ("uint32", np.uint32, "u32", "UInt32", "u", 4),
    ("uint64", np.uint64, "u64", "UInt64", "u", 8),
    ("bool", np.bool_, "b8", "Bool", "b", 1),
]
BY_NAME = {name: dtype._create(name, None if np_type is None else np.dtype(np_type), *rest)
           for name, np_type, *rest in _TYPES}
globals().update(BY_NAME)
for _real, _complex in (("float16", "complex32"), ("float32", "complex64"),
                        ("float64", "complex128")):
    BY_NAME[_real]._complex = BY_NAME[_complex]._complex = BY_NAME[_complex]
    BY_NAME[_complex]._real = BY_NAME[_real]
BY_NAME["bfloat16"]._complex = BY_NAME["complex64"]  # (as PyTorch: no complex of its own)
ALIASES = {"half": "float16", "float": "float32", "double": "float64", "chalf": "complex32",
           "cfloat": "complex64", "cdouble": "complex128", "short": "int16", "int": "int32",
           "long": "int64"}
globals().update({alias: BY_NAME[name] for alias, name in ALIASES.items()})

# NumPy dtype -> package dtype: what Tensor.dtype returns for a tensor's array
FROM_NUMPY = {d._numpy: d for d in BY_NAME.values() if d._numpy is not None}
# the legacy tensor type names ``Tensor.type`` takes and returns: 'torch.FloatTensor'
LEGACY_NAMES = {f"torch.{d._scalar_name}Tensor": d for d in BY_NAME.values() if d._numpy is not None}
_PYTHON_TYPES = {builtins.float: BY_NAME["float64"], builtins.int: BY_NAME["int64"],
                 builtins.bool: BY_NAME["bool"], builtins.complex: BY_NAME["complex128"]}


# what Python floats and complex numbers become (set_default_dtype): NumPy dtypes, read through
# default_float() and default_complex() by the factories and by promotion's wrapped numbers
_DEFAULT = {"float": np.dtype(np.float32), "complex": np.dtype(np.complex64)}


def default_float():
    return _DEFAULT["float"]


def default_complex():
    return _DEFAULT["complex"]


def get_default_dtype():
    """``torch.get_default_dtype()``: the dtype of a tensor made from Python floats."""
    return FROM_NUMPY[_DEFAULT["float"]]


def set_default_dtype(d):
    """``torch.set_default_dtype``: float32 (the default) or float64 (complex numbers then
    become complex128); PyTorch's float16 default is not supported here."""
    if type(d) is not dtype or not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    if d._numpy is None or d._name == "float16":
        raise NotImplementedError(f"autograd_lesson supports float32 and float64 as the default "
                                  f"dtype, not {d}")
    _DEFAULT["float"], _DEFAULT["complex"] = d._numpy, d.to_complex()._numpy


def from_numpy(np_dtype):
    """The package dtype of an array's NumPy dtype (a NumPy dtype with none is returned as is)."""
    return FROM_NUMPY.get(np_dtype, np_dtype)


def as_dtype(value):
    """A package dtype for ``value`` (a dtype, or Python's float/int/bool/complex), else None."""
    if type(value) is dtype:
        return value
    if isinstance(value, type):
        return _PYTHON_TYPES.get(value)
    return None


def numpy_dtype(value, fn="tensor", param="dtype", invalid=None):
    """The NumPy dtype behind a public ``dtype`` argument of ``fn``, with PyTorch's TypeError for
    anything else: ``zeros(): argument 'dtype' must be torch.dtype, not str``. ``invalid`` builds
    the error instead for PyTorch's multi-signature functions ("received an invalid combination
    of arguments")."""
    if type(value) is dtype and value._numpy is not None:
        return value._numpy
    found = as_dtype(value)
    if found is None:
        if invalid is not None:
            raise invalid()
        raise TypeError(f"{fn}(): argument '{param}' must be torch.dtype, not {typename(value)}")
    if found._numpy is None:
        instead = "torch.complex64" if found._kind == "c" else "torch.float16 or torch.float32"
        raise TypeError(f"autograd_lesson has no {found._name} (NumPy has no such type): use "
                        f"{instead} instead")
    return found._numpy


def scalar_name(value):
    """PyTorch's ScalarType name (``Float``, ``Long``) of a package or NumPy dtype, as its
    messages print it."""
    found = value if type(value) is dtype else FROM_NUMPY.get(np.dtype(value))
    return found._scalar_name if found is not None else str(value)


# PyTorch's signatures of the functions whose bad dtype gets "an invalid combination of arguments"
_FACTORY = ("*, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, "
            "torch.device device = None, bool pin_memory = False, bool requires_grad = False")
_LIKE = ("*, torch.memory_format memory_format = None, torch.dtype dtype = None, torch.layout "
         "layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad "
         "= False")
_GEN = "torch.Generator generator, "
_TO = "bool non_blocking = False, bool copy = False, *, torch.memory_format memory_format = None"
SIGNATURES = {
    "randn": [f"tuple of ints size, *, {_GEN}{_FACTORY[3:]}", f"tuple of ints size, {_FACTORY}"],
    "randint": [f"int high, tuple of ints size, *, {_GEN}{_FACTORY[3:]}",
                f"int high, tuple of ints size, {_FACTORY}",
                f"int low, int high, tuple of ints size, *, {_GEN}{_FACTORY[3:]}",
                f"int low, int high, tuple of ints size, {_FACTORY}"],
    "randn_like": [f"Tensor input, *, {_GEN}{_LIKE[3:]}", f"Tensor input, {_LIKE}"],
    "arange": [f"Number end, {_FACTORY}",
               f"Number start, Number end, {_FACTORY.replace('Tensor out = None, ', '')}",
               f"Number start, Number end, Number step = 1, {_FACTORY}"],
    "linspace": [f"{start} start, {end} end, int steps, {_FACTORY}"
                 for start, end in (("Tensor", "Tensor"), ("Number", "Tensor"),
                                    ("Tensor", "Number"), ("Number", "Number"))],
    "eye": [f"int n, {_FACTORY}", f"int n, int m, {_FACTORY}"],
    "to": [f"torch.device device = None, torch.dtype dtype = None, {_TO}",
           f"torch.dtype dtype, {_TO}", f"Tensor tensor, {_TO}"],
}
SIGNATURES["rand"], SIGNATURES["rand_like"] = SIGNATURES["randn"], SIGNATURES["randn_like"]


def invalid_combination(fn, args, kwargs, signatures=None):
    """PyTorch's parser error for a multi-signature function:
    ``randn() received an invalid combination of arguments - got (int, dtype=str), ...``."""
    from ._tensor import Tensor
    names = ["Tensor" if isinstance(a, Tensor) else typename(a) for a in args]
    given = ", ".join(names + [f"{k}={typename(v)}" for k, v in kwargs.items()])
    if kwargs and not args:
        given += ", "  # (PyTorch's own spelling: "got (dtype=str, )")
    lines = "".join(f" * ({s})\n" for s in SIGNATURES[signatures or fn])
    return TypeError(f"{fn.rpartition('.')[2]}() received an invalid combination of arguments - "
                     f"got ({given}), but expected one of:\n{lines}")


def checked(value, fn, args=(), signatures=None):
    """``numpy_dtype`` for a multi-signature function ``fn`` called with positional ``args``
    and ``dtype=value``."""
    return numpy_dtype(value, invalid=lambda: invalid_combination(fn, args, {"dtype": value},
                                                                  signatures))


def not_implemented(kernel, np_dtype):
    """PyTorch's error for a kernel without this dtype: ``"arange_cpu" not implemented for 'Bool'``."""
    return NotImplementedError(f'"{kernel}" not implemented for \'{scalar_name(np_dtype)}\'')


def _info_type(value, fn):
    found = as_dtype(value)
    if found is None:
        raise TypeError(f"{fn}(): argument 'type' (position 1) must be torch.dtype, not "
                        f"{typename(value)}")
    return found


class finfo:
    """``torch.finfo(dtype)``: the limits of a floating point (or complex: its real part) type,
    as Python floats; ``dtype`` is the type's name (``'float32'``), as in PyTorch."""

    def __init__(self, type=None):
        found = get_default_dtype() if type is None else _info_type(type, "finfo")
        if found._kind not in "fc" or found._numpy is None:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo "
                            "to handle 'torch.finfo'")
        info = np.finfo(found.to_real()._numpy)
        self.bits, self.dtype = builtins.int(info.bits), found.to_real()._name
        self.eps, self.max, self.min = builtins.float(info.eps), builtins.float(info.max), builtins.float(info.min)
        self.tiny = self.smallest_normal = builtins.float(info.smallest_normal)
        self.resolution = 10.0 ** -builtins.int(info.precision)

    def __eq__(self, other):
        return isinstance(other, finfo) and other.dtype == self.dtype

    __hash__ = None

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, "
                f"dtype={self.dtype})")


class iinfo:
    """``torch.iinfo(dtype)``: the limits of an integer type, as Python ints."""

    def __init__(self, type):
        found = _info_type(type, "iinfo")
        if found is bool:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if found._kind not in "iu":
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to "
                            "handle 'torch.iinfo'")
        info = np.iinfo(found._numpy)
        self.bits, self.dtype = builtins.int(info.bits), found._name
        self.min, self.max = builtins.int(info.min), builtins.int(info.max)

    def __eq__(self, other):
        return isinstance(other, iinfo) and other.dtype == self.dtype

    __hash__ = None

    def __repr__(self):
        return f"iinfo(min={builtins.float(self.min):g}, max={builtins.float(self.max):g}, dtype={self.dtype})"


finfo.__module__ = iinfo.__module__ = "autograd_lesson"

_UNPROMOTED = ("uint16", "uint32", "uint64")


def promote_types(type1, type2):
    """``torch.promote_types``: the smallest dtype both promote to (a float beats any int,
    whatever its size: ``promote_types(int64, float16)`` is float16)."""
    from ._surface.promotion import promote_types as promote
    found = []
    for position, value in enumerate((type1, type2), 1):
        d = as_dtype(value)
        if d is None:
            raise TypeError(f"promote_types(): argument 'type{position}' (position {position}) "
                            f"must be torch.dtype, not {typename(value)}")
        found.append(d)
    a, b = found
    if a is b:
        return a
    if (a._name in _UNPROMOTED or b._name in _UNPROMOTED) and "f" not in (a._kind + b._kind) \
            and "c" not in (a._kind + b._kind):
        raise RuntimeError(f"Promotion for uint16, uint32, uint64 types is not supported, "
                           f"attempted to promote {a._scalar_name} and {b._scalar_name}")
    half, chalf = BY_NAME["float16"], BY_NAME["complex32"]  # (globals set from BY_NAME above)
    if b is chalf:
        a, b = b, a
    if a is chalf:  # (no NumPy type: complex32 with a half or an integer stays complex32)
        if b._kind in "biu" or b is half:
            return chalf
        a = BY_NAME["complex64"]
    return FROM_NUMPY[promote(a._numpy, b._numpy)]
