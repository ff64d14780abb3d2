"""Tensor's op methods: one-liners that call the ops in ``autograd_lesson.ops``.

The op modules are reached through the ``ops`` and ``_surface`` packages at call time, so
this module and ``_tensor`` can be imported before the ops (which themselves import ``Tensor``).
"""
import math

import numpy as np

from . import _dtype, _surface, ops as _ops
from ._tensor_shape_ops import TensorShapeOps


class _NoArg:
    """The default of an argument whose absence picks another overload (``max()`` and
    ``max(None)`` differ in PyTorch)."""

    def __repr__(self):
        return "<no argument>"


NO_ARG = _NoArg()


_ORDERED = {np.less: "lt", np.less_equal: "le", np.greater: "gt", np.greater_equal: "ge"}


def _compare(fn, x, y):
    from ._tensor import Tensor
    _surface.checks.check_broadcast(x, y)  # before NumPy: its clash is a ValueError
    if fn in _ORDERED:
        dtype = _surface.promotion.result_type(x, y)
        if dtype.kind == "c":
            raise NotImplementedError(f'"{_ORDERED[fn]}_cpu" not implemented for '
                                      f"'{_surface.promotion.torch_name(dtype)}'")
    return Tensor._make(np.asarray(fn(x._data, y._data if isinstance(y, Tensor) else y)))


def _compared(name, other):
    """The ``other`` of ``x.lt(other)`` and its kin: a Tensor or a number, else PyTorch's
    parser error for its two overloads."""
    _surface.parser.parse(name, (other,), {}, True)  # (PyTorch's TypeErrors)
    return other


def _tensor_other(name, other):
    """The Tensor ``other`` of ``x.view_as(other)`` and its kin, as PyTorch's parser checks it."""
    return _surface.parser.parse(name, (other,), {}, True)[1]["other"]


def _operand(x, other):
    """A number or a tensor: anything else makes a Python operator return NotImplemented, so
    ``x + 'a'`` raises Python's own TypeError, as it does with PyTorch."""
    return isinstance(other, _OPERANDS)


def _other(name, other):
    """PyTorch's argument parser for the ``other`` of ``x.add(other)`` and its kin: a Tensor
    or a number (``add(): argument 'other' (position 1) must be Tensor, not list``)."""
    if not isinstance(other, _OPERANDS):
        raise TypeError(f"{name}(): argument 'other' (position 1) must be Tensor, not "
                        f"{_dtype.typename(other)}")
    return other


def _alpha(name, alpha):
    """The ``alpha`` of ``add``/``sub``: a number (or a 0-dim tensor's value), as PyTorch's
    parser reads a Scalar."""
    if type(alpha) is int:
        return alpha
    from ._tensor import Tensor
    if isinstance(alpha, Tensor) and not alpha.ndim:
        return alpha.item()
    if isinstance(alpha, Tensor) or not isinstance(alpha, (bool, int, float, complex, np.number)):
        raise TypeError(f"{name}(): argument 'alpha' must be Number, not "
                        f"{_dtype.typename(alpha)}")
    return alpha


def _bitwise(fn, name, x, y):
    """``&``, ``|``, ``^``: logical on bools, bitwise on integers, refused on floats."""
    from ._tensor import Tensor
    if not isinstance(y, (Tensor, bool, int, float, np.number)):
        return NotImplemented
    _surface.checks.check_broadcast(x, y)
    dtype = _surface.promotion.result_type(x, y)
    if dtype.kind not in "biu":
        raise NotImplementedError(f'"{name}_cpu" not implemented for '
                                  f"'{_surface.promotion.torch_name(dtype)}'")
    other = y._data if isinstance(y, Tensor) else y
    return Tensor._make(np.asarray(fn(x._data.astype(dtype), np.asarray(other).astype(dtype))))


def parse_to(args, dtype=None, device=None):
    """The NumPy dtype that ``to(*args, dtype=, device=)`` asks for (None: keep it), with
    PyTorch's errors; a device other than the CPU is refused."""
    from ._factories import device as _device
    target = None
    for position, arg in enumerate(args):
        if isinstance(arg, _device) or (isinstance(arg, str) and not position):
            _device(arg)  # refuses anything but the CPU, with PyTorch's message
        elif isinstance(arg, TensorOps):
            target = arg._data.dtype
        elif arg is None:
            continue
        elif type(arg) is int and not position:  # (PyTorch reads an int as an accelerator's index)
            raise RuntimeError("Cannot access accelerator device when none is available.")
        else:
            target = _dtype.numpy_dtype(arg, invalid=lambda: _dtype.invalid_combination(
                "to", args, {}))
    if dtype is not None:
        target = _dtype.numpy_dtype(dtype, invalid=lambda: _dtype.invalid_combination(
            "to", args, {"dtype": dtype}))
    if device is not None:
        _device(device)
    return target


class TensorOps(TensorShapeOps):
    __slots__ = ()

    # arithmetic -------------------------------------------------------------------------------
    def add(self, other, *, alpha=1):
        return _surface.elementwise.add(self, _other("add", other), alpha=_alpha("add", alpha))

    def sub(self, other, *, alpha=1):
        return _surface.elementwise.sub(self, _other("sub", other), alpha=_alpha("sub", alpha))

    def mul(self, other):
        return _surface.elementwise.mul(self, _other("mul", other))

    def div(self, other):
        return _surface.elementwise.div(self, _other("div", other))

    def pow(self, exponent):
        return _surface.elementwise.pow(self, exponent)

    def __add__(self, other):
        if not isinstance(other, _OPERANDS):
            return NotImplemented
        return _ops.elementwise.AddBackward0.apply(self, other)

    def __radd__(self, other):
        if not isinstance(other, _OPERANDS):
            return NotImplemented
        return _ops.elementwise.AddBackward0.apply(self, other)

    def __sub__(self, other):
        if not _operand(self, other):
            return NotImplemented
        return _surface.elementwise.sub(self, other)

    def __rsub__(self, other):
        if not _operand(self, other):
            return NotImplemented
        return _surface.elementwise.rsub(self, other)

    def __mul__(self, other):
        if not isinstance(other, _OPERANDS):
            return NotImplemented
        return _ops.elementwise.MulBackward0.apply(self, other)

    def __rmul__(self, other):
        if not isinstance(other, _OPERANDS):
            return NotImplemented
        return _ops.elementwise.MulBackward0.apply(self, other)

    def __truediv__(self, other):
        if not _operand(self, other):
            return NotImplemented
        return _surface.elementwise.div(self, other)

    def __rtruediv__(self, other):
        if not _operand(self, other):
            return NotImplemented
        return _surface.elementwise.rdiv(self, other)

    def __pow__(self, exponent):
        if not _operand(self, exponent):
            return NotImplemented
        return _surface.elementwise.pow(self, exponent)

    def __rpow__(self, base):
        if not _operand(self, base):
            return NotImplemented
        return _surface.elementwise.rpow(self, base)

    def __neg__(self):
        return _ops.elementwise.NegBackward0.apply(self)

    def neg(self):
        return _ops.elementwise.NegBackward0.apply(self)

    def __matmul__(self, other):
        if not isinstance(other, TensorOps):  # (a number too: Python's TypeError, as PyTorch)
            return NotImplemented
        return _surface.matmul.matmul(self, other)

    def __rmatmul__(self, other):
        if not isinstance(other, TensorOps):
            return NotImplemented
        return _surface.matmul.matmul(other, self)

    def matmul(self, *args, **kwargs):
        return _surface.matmul.matmul.method(self, *args, **kwargs)

    def mm(self, *args, **kwargs):
        return _surface.matmul.mm.method(self, *args, **kwargs)

    def mv(self, *args, **kwargs):
        return _surface.matmul.mv.method(self, *args, **kwargs)

    def dot(self, *args, **kwargs):
        return _surface.matmul.dot.method(self, *args, **kwargs)

    def bmm(self, *args, **kwargs):
        return _surface.matmul.bmm.method(self, *args, **kwargs)

    def addmm(self, *args, **kwargs):
        return _surface.matmul.addmm.method(self, *args, **kwargs)

    # elementwise functions --------------------------------------------------------------------
    def exp(self):
        return _ops.elementwise.ExpBackward0.apply(self)

    def log(self):
        return _ops.elementwise.LogBackward0.apply(self)

    def tanh(self):
        return _ops.elementwise.TanhBackward0.apply(self)

    def sigmoid(self):
        return _ops.elementwise.SigmoidBackward0.apply(self)

    def relu(self):
        return _ops.elementwise.ReluBackward0.apply(self)

    def sqrt(self):
        return _ops.elementwise.SqrtBackward0.apply(self)

    def abs(self):
        return _ops.elementwise.AbsBackward0.apply(self)

    def __abs__(self):
        return _ops.elementwise.AbsBackward0.apply(self)

    def reciprocal(self):
        return _ops.elementwise.ReciprocalBackward0.apply(self)

    def clamp(self, min=None, max=None):
        return _ops.elementwise.ClampBackward1.apply(self, min=min, max=max)

    clip = clamp

    def softmax(self, *args, **kwargs):
        """``softmax(dim, dtype=None)``."""
        return _surface.nn.softmax(self, *_surface.parser.parse("softmax", args, kwargs, True))

    def log_softmax(self, *args, **kwargs):
        """``log_softmax(dim, dtype=None)``."""
        return _surface.nn.log_softmax(self, *_surface.parser.parse("log_softmax", args, kwargs,
                                                                     True))

    # reductions -------------------------------------------------------------------------------
    def sum(self, *args, **kwargs):
        """``sum(*, dtype=None)``, ``sum(dim, keepdim=False, *, dtype=None)``."""
        return _surface.reduce.sum(self, *_surface.parser.parse("sum", args, kwargs, True))

    def mean(self, *args, **kwargs):
        """``mean(*, dtype=None)``, ``mean(dim, keepdim=False, *, dtype=None)``."""
        return _surface.reduce.mean(self, *_surface.parser.parse("mean", args, kwargs, True))

    def max(self, *args, **kwargs):
        """``max()``, ``max(other)``, ``max(dim, keepdim=False)``."""
        return _surface.reduce.max(self, *_surface.parser.parse("max", args, kwargs, True))

    def norm(self, p="fro", dim=None, keepdim=False, dtype=None):
        """See ``torch.norm``: any number p (None: 2.0), or "fro"."""
        return _surface.reduce.norm(self, p, dim, keepdim, dtype=dtype)
    norm.__qualname__ = "Tensor.norm"  # (Python's own argument errors name it so in PyTorch)

    def amax(self, *args, **kwargs):
        """``amax(dim=[], keepdim=False)``."""
        return _surface.reduce.amax(self, *_surface.parser.parse("amax", args, kwargs, True))

    def amin(self, *args, **kwargs):
        """``amin(dim=[], keepdim=False)``."""
        return _surface.reduce.amin(self, *_surface.parser.parse("amin", args, kwargs, True))

    def argmax(self, *args, **kwargs):
        """``argmax(dim=None, keepdim=False)``."""
        return _surface.reduce.argmax(self, *_surface.parser.parse("argmax", args, kwargs, True))

    def argmin(self, *args, **kwargs):
        """``argmin(dim=None, keepdim=False)``."""
        return _surface.reduce.argmin(self, *_surface.parser.parse("argmin", args, kwargs, True))

    # more elementwise functions and reductions ------------------------------------------------
    def min(self, *args, **kwargs):
        """``min()``, ``min(other)``, ``min(dim, keepdim=False)``."""
        return _surface.reduce.min(self, *_surface.parser.parse("min", args, kwargs, True))

    def maximum(self, other):
        return _surface.elementwise.maximum.method(self, other)

    def minimum(self, other):
        return _surface.elementwise.minimum.method(self, other)

    def square(self):
        return _ops.elementwise.PowBackward0.apply(self, 2)  # PyTorch's square is pow(self, 2)

    def sin(self):
        return _ops.elementwise.SinBackward0.apply(self)

    def cos(self):
        return _ops.elementwise.CosBackward0.apply(self)

    def var(self, *args, **kwargs):
        """``var(dim, unbiased, keepdim)``, ``var(dim, correction=, keepdim=)``, ``var(unbiased)``."""
        return _surface.reduce.var(self, *_surface.parser.parse("var", args, kwargs, True))

    def std(self, *args, **kwargs):
        return _surface.reduce.std(self, *_surface.parser.parse("std", args, kwargs, True))

    def aminmax(self, *args, **kwargs):
        """``aminmax(*, dim=None, keepdim=False)``."""
        return _surface.reduce.aminmax(self, *_surface.parser.parse("aminmax", args, kwargs, True))

    def median(self, *args, **kwargs):
        """``median()``, ``median(dim, keepdim=False)``."""
        return _surface.reduce.median(self, *_surface.parser.parse("median", args, kwargs, True))

    def nanmedian(self, *args, **kwargs):
        return _surface.reduce.nanmedian(self, *_surface.parser.parse("nanmedian", args, kwargs,
                                                                      True))

    def view_as(self, other):
        return _surface.views.view(self, *_tensor_other("view_as", other).shape)

    def reshape_as(self, other):
        return _surface.views.reshape(self, *_tensor_other("reshape_as", other).shape)

    def type_as(self, other):
        """``to(other.dtype)``: this tensor itself when the dtype is the same."""
        return self._to(_tensor_other("type_as", other)._data.dtype)

    def new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
        from . import _factories
        return _factories.new_zeros(self, size, dtype, device, requires_grad)

    def new_ones(self, *size, dtype=None, device=None, requires_grad=False):
        from . import _factories
        return _factories.new_ones(self, size, dtype, device, requires_grad)

    def new_empty(self, *size, dtype=None, device=None, requires_grad=False):
        from . import _factories
        return _factories.new_empty(self, size, dtype, device, requires_grad)

    def new_full(self, *args, **kwargs):
        """``new_full(size, fill_value, *, dtype=None, device=None, requires_grad=False)``."""
        from . import _factories
        return _factories.new_full.method(self, *args, **kwargs)

    def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
        from . import _factories
        return _factories.new_tensor(self, data, dtype, device, requires_grad)

    def prod(self, *args, **kwargs):
        """``prod(*, dtype=None)``, ``prod(dim, keepdim=False, *, dtype=None)``."""
        return _surface.reduce.prod(self, *_surface.parser.parse("prod", args, kwargs, True))

    def cumsum(self, *args, **kwargs):
        """``cumsum(dim, *, dtype=None)``."""
        return _surface.reduce.cumsum(self, *_surface.parser.parse("cumsum", args, kwargs, True))

    def expand_as(self, other):
        return _ops.views.ExpandBackward0.apply(self, _tensor_other("expand_as", other).shape)

    def is_floating_point(self):
        return self._data.dtype.kind == "f"

    def is_complex(self):
        return self._data.dtype.kind == "c"

    def clone(self):
        return _ops.shape.CloneBackward0.apply(self)

    def to(self, *args, dtype=None, device=None):
        """``to(dtype)``, ``to(device)``, ``to(device, dtype)``, ``to(tensor)``: only the CPU
        exists here."""
        target = parse_to(args, dtype, device)
        return self if target is None else self._to(target)

    def _to(self, np_dtype):
        """``to`` a NumPy dtype (the package's own calls): this tensor if it already has it."""
        if np_dtype == self._data.dtype:
            return self
        return _ops.shape.ToCopyBackward0.apply(self, np_dtype)

    def type(self, dtype=None, non_blocking=False):
        """``type()``: the legacy type name (``'torch.FloatTensor'``); ``type(dtype)`` or
        ``type('torch.DoubleTensor')``: ``to`` that dtype."""
        if dtype is None:
            return f"torch.{_surface.promotion.torch_name(self._data.dtype)}Tensor"
        if isinstance(dtype, str):
            found = _dtype.LEGACY_NAMES.get(dtype)
            if found is None:
                raise ValueError(f"invalid type: '{dtype}'")
            return self._to(found._numpy)
        if isinstance(dtype, type):  # (PyTorch takes its legacy tensor classes here)
            name = dtype.__qualname__ if dtype.__module__ == "builtins" else (
                f"{dtype.__module__}.{dtype.__qualname__}")
            raise ValueError(f"invalid type: '{name}'")
        if not isinstance(dtype, _dtype.dtype):
            raise TypeError("dtype must be a type, str, or dtype object")
        return self._to(_dtype.numpy_dtype(dtype))

    def float(self):
        return self._to(_dtype.float32._numpy)

    def double(self):
        return self._to(_dtype.float64._numpy)

    def long(self):
        return self._to(_dtype.int64._numpy)

    def int(self):
        return self._to(_dtype.int32._numpy)

    def short(self):
        return self._to(_dtype.int16._numpy)

    def char(self):
        return self._to(_dtype.int8._numpy)

    def byte(self):
        return self._to(_dtype.uint8._numpy)

    def half(self):
        return self._to(_dtype.float16._numpy)

    def bool(self):
        return self._to(_dtype.bool._numpy)

    def cfloat(self):
        return self._to(_dtype.complex64._numpy)

    def cdouble(self):
        return self._to(_dtype.complex128._numpy)

    # comparisons (no gradient) ----------------------------------------------------------------
    def __lt__(self, other):
        if not isinstance(other, _OPERANDS):
            return NotImplemented  # Python's fallback, as PyTorch: TypeError, or identity for ==
        return _compare(np.less, self, other)

    def __le__(self, other):
        if not isinstance(other, _OPERANDS):
            return NotImplemented  # Python's fallback, as PyTorch: TypeError, or identity for ==
        return _compare(np.less_equal, self, other)

    def __gt__(self, other):
        if not isinstance(other, _OPERANDS):
            return NotImplemented  # Python's fallback, as PyTorch: TypeError, or identity for ==
        return _compare(np.greater, self, other)

    def __ge__(self, other):
        if not isinstance(other, _OPERANDS):
            return NotImplemented  # Python's fallback, as PyTorch: TypeError, or identity for ==
        return _compare(np.greater_equal, self, other)

    def __eq__(self, other):
        if not isinstance(other, _EQ_OPERANDS):  # (PyTorch's == also takes an ndarray)
            return NotImplemented  # Python's fallback, as PyTorch: identity
        return _compare(np.equal, self, other)

    def __ne__(self, other):
        if not isinstance(other, _OPERANDS):  # (an ndarray too: PyTorch's != gives True)
            return NotImplemented  # Python's fallback, as PyTorch: identity
        return _compare(np.not_equal, self, other)

    def __and__(self, other):
        return _bitwise(np.bitwise_and, "bitwise_and", self, other)

    def __or__(self, other):
        return _bitwise(np.bitwise_or, "bitwise_or", self, other)

    def __xor__(self, other):
        return _bitwise(np.bitwise_xor, "bitwise_xor", self, other)

    __rand__, __ror__, __rxor__ = __and__, __or__, __xor__

    def __invert__(self):
        from ._tensor import Tensor
        if self._data.dtype.kind not in "biu":
            raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type "
                            "tensors")
        return Tensor._make(~self._data)

    def eq(self, other):
        return _compare(np.equal, self, _compared("eq", other))

    def ne(self, other):
        return _compare(np.not_equal, self, _compared("ne", other))

    def lt(self, other):
        return _compare(np.less, self, _compared("lt", other))

    def le(self, other):
        return _compare(np.less_equal, self, _compared("le", other))

    def gt(self, other):
        return _compare(np.greater, self, _compared("gt", other))

    def ge(self, other):
        return _compare(np.greater_equal, self, _compared("ge", other))

    def any(self, *args, **kwargs):
        """``any()``, ``any(dim, keepdim=False)`` (an int or a tuple of ints)."""
        return _surface.reduce.any_(self, *_surface.parser.parse("any", args, kwargs, True))

    def all(self, *args, **kwargs):
        """``all()``, ``all(dim, keepdim=False)`` (an int or a tuple of ints)."""
        return _surface.reduce.all_(self, *_surface.parser.parse("all", args, kwargs, True))


_OPERANDS = (TensorOps, bool, int, float, complex, np.number)
_EQ_OPERANDS = _OPERANDS + (np.ndarray,)
