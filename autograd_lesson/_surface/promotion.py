"""PyTorch's type promotion and dtype names: the dtype an op computes in (``result_type``,
``promote_types``), the casts it makes, and the names its messages print (``Long``,
``long int``)."""
import numpy as np

from .._dtype import default_complex, default_float
from .._tensor import Tensor
from .warn_once import warn_once


_CATEGORY = {"b": 0, "f": 2, "c": 3}  # by dtype.kind: bool < integer < floating < complex


TORCH_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long",
               "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
               "complex64": "ComplexFloat", "complex128": "ComplexDouble"}


def torch_name(dtype):
    """PyTorch's ScalarType name, as its messages print it (``Long`` for int64)."""
    name = TORCH_NAMES.get(str(dtype))
    if name is None:  # a package dtype, or a NumPy one the table lacks (uint16 ...)
        from .._dtype import scalar_name
        name = scalar_name(dtype)
    return name


def _category(dtype):
    return _CATEGORY.get(dtype.kind, 1)  # np.issubdtype would cost ~1 us per call


def scalar_dtype(value):
    """The dtype PyTorch gives a Python number: bool, int64, the default complex or float."""
    if isinstance(value, (bool, np.bool_)):
        return np.dtype(np.bool_)
    if isinstance(value, (int, np.integer)):
        return np.dtype(np.int64)
    if isinstance(value, complex):
        return default_complex()
    return default_float()


def promote_types(a, b):
    """PyTorch's promote_types: the higher category wins outright (float32 with int64 is
    float32, where NumPy says float64), except that a complex with a wider float widens
    (complex64 with float64 is complex128); within a category, the wider dtype."""
    ca, cb = _category(a), _category(b)
    if ca != cb and not (ca >= 2 and cb >= 2):
        return a if ca > cb else b
    return np.promote_types(a, b)


_TO_COMPLEX = {np.dtype(np.float16): np.dtype(np.complex64),  # (complex32: not in NumPy)
               np.dtype(np.float32): np.dtype(np.complex64),
               np.dtype(np.float64): np.dtype(np.complex128)}


def _combine(higher, lower):
    """c10's combine_categories: a group of lower priority (0-dim tensors, then Python
    numbers) counts only when it is of a higher category."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.kind == "c":
        return higher
    if lower.kind == "c":  # a complex keeps a float's precision: float64 * 1j is complex128
        return _TO_COMPLEX[higher] if higher.kind == "f" else lower
    if higher.kind == "f":
        return higher
    if higher.kind == "b" or lower.kind == "f":
        return promote_types(higher, lower)
    return higher


def result_type(*operands):
    """PyTorch's promotion: dimensioned tensors win over 0-dim tensors, which win over Python
    scalars, unless the lower group is of a higher category (bool < int < float < complex)."""
    if len(operands) == 2:  # the common cases, which the rules below decide the same way
        x, y = operands
        if isinstance(x, Tensor):
            if isinstance(y, Tensor):
                if x._data.dtype == y._data.dtype:
                    return x._data.dtype
                if (x._data.ndim and not y._data.ndim
                        and x._data.dtype.kind == y._data.dtype.kind == "f"):
                    return x._data.dtype  # grad * a wrapped scalar: the dimensioned float wins
            elif type(y) is float and x._data.dtype.kind == "f":
                return x._data.dtype
    groups = [None, None, None]
    for operand in operands:
        if isinstance(operand, Tensor):
            if operand._wrapped_number:
                index, dtype = 2, scalar_dtype(operand._data.item())
            else:
                index, dtype = (0 if operand._data.ndim else 1), operand._data.dtype
        else:
            index, dtype = 2, scalar_dtype(operand)
        groups[index] = dtype if groups[index] is None else promote_types(groups[index], dtype)
    return _combine(groups[0], _combine(groups[1], groups[2]))


def float_result(x):
    """The dtype of a floating op (exp, log, sqrt ...) of x: bool and integers give float32."""
    return x._data.dtype if x._data.dtype.kind in "fc" else default_float()


def as_float(x):
    """x's values in ``float_result(x)``: the input array of a floating op."""
    return x._data if x._data.dtype.kind in "fc" else x._data.astype(default_float())


def check_castable(result, target, cpp=False):
    """An op writing ``result`` into a ``target`` tensor (in place, ``out=``): PyTorch refuses a
    cast to a lower category (float into int, int into bool). ``cpp``: the message names the
    target by its C++ type (``long int``), as clamp's meta function does."""
    if _category(result) > _category(target):
        raise RuntimeError(f"result type {torch_name(result)} can't be cast to the desired "
                           f"output type {cpp_name(target) if cpp else torch_name(target)}")


def cpp_name(dtype):
    """The C++ type of a dtype as c10 prints it (``long int``, ``c10::Half``)."""
    return {"float32": "float", "float64": "double", "int64": "long int", "int32": "int",
            "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool",
            "float16": "c10::Half", "complex64": "c10::complex<float>",
            "complex128": "c10::complex<double>"}.get(str(dtype), str(dtype))


_complex_warned = [False]


def cast(array, dtype):
    """``array`` in ``dtype``. Complex to real keeps the real part and, as PyTorch's ``copy_``,
    warns once per process (TORCH_WARN_ONCE) when there is a value to copy."""
    dtype = np.dtype(dtype)
    if array.dtype.kind == "c" and dtype.kind != "c":
        if dtype.kind == "b":
            return array != 0
        if array.size:  # (an empty copy runs no kernel, so PyTorch does not warn)
            warn_once(_complex_warned, "Casting complex values to real discards the imaginary "
                                       "part")
        array = array.real
    if dtype.kind in "iub" and array.dtype.kind == "f":
        with np.errstate(invalid="ignore", over="ignore"):  # nan, inf: no warning in PyTorch
            return array.astype(dtype)
    return array.astype(dtype)


def value(operand):
    return operand._data if isinstance(operand, Tensor) else operand
