"""Elementwise ops. Each class is one PyTorch node: forward, what it saves, backward.

Broadcast gradients are reduced to the input's shape by the engine (as PyTorch's
``validate_outputs`` does), so formulas here return the broadcast gradient.
"""
import math

import numpy as np

from .._tensor import Tensor
from ._op import Op
from . import double_backward as _db
from ._util import scalar_tensor, zeros
from .elementwise_scalar import (RsubBackward1, SubBackward1, _true_divide_type, div_scalar,
                                 maybe_multiply, mul_scalar)
from .indexing import MaskedFillBackward0
from .._surface.promotion import as_float, cast, check_castable, result_type, torch_name, value
from .._surface.checks import check_alpha, check_broadcast, check_scalar
from .._surface.warn_once import warn_once


def _binary(x, y, ufunc, alpha=1):
    """``ufunc(x, alpha * y)`` in PyTorch's result dtype. A 0-dim float ``y`` next to a
    dimensioned float ``x`` enters as a Python number, which NumPy casts to ``x``'s dtype
    before computing, as PyTorch casts a CPU scalar (a 0-dim float64 array would make NumPy
    compute in float64 and round twice)."""
    dtype = result_type(x, y)
    other = y._data if isinstance(y, Tensor) else y
    if type(other) is np.ndarray:
        if not other.ndim:
            if x._data.ndim and dtype.kind == "f" and dtype == x._data.dtype:
                other = other.item()
        elif x._data.ndim and other.shape != x._data.shape:
            check_broadcast(x, y)  # before NumPy computes: its clash is a ValueError
    if type(alpha) is not int or alpha != 1:  # (True == 1, and PyTorch refuses a bool alpha)
        check_alpha(alpha, dtype)  # (in place, inplace.apply has checked it after the cast)
        if dtype.kind != "c":
            other = np.logical_and(alpha, other) if dtype.kind == "b" else alpha * other  # (as a bool)
    if dtype.kind == "c":  # PyTorch multiplies other by a complex alpha: -inf becomes -inf+nanj
        other = np.asarray(other, dtype) * dtype.type(alpha)
    out = ufunc(x._data, other)  # (under Op.apply's error state: inf - inf, 0 * inf)
    return out if out.dtype == dtype else out.astype(dtype)


class AddBackward0(Op):
    """out = self + alpha * other; d/dself = grad, d/dother = alpha * grad. Saves no tensor
    (alpha is a non-tensor save).

    A Python scalar other is wrapped into a tensor by PyTorch, so ``x + 2`` has two edges,
    the second to nothing."""

    scalar_edges = (1,)

    def forward(ctx, x, y, alpha=1):
        ctx.save_value("alpha", alpha)
        ctx.alpha = alpha
        return _binary(x, y, np.add, alpha)

    def backward(ctx, grad):
        grad_y = maybe_multiply(grad, ctx.alpha) if ctx.needs_input_grad[1] else None
        return (grad if ctx.needs_input_grad[0] else None), grad_y


class SubBackward0(Op):
    """out = self - alpha * other; d/dself = grad, d/dother = -alpha * grad. Saves no tensor."""

    scalar_edges = (1,)

    def forward(ctx, x, y, alpha=1):
        ctx.save_value("alpha", alpha)
        ctx.alpha = alpha
        return _binary(x, y, np.subtract, alpha)

    def backward(ctx, grad):
        grad_y = maybe_multiply(-grad, ctx.alpha) if ctx.needs_input_grad[1] else None
        return (grad if ctx.needs_input_grad[0] else None), grad_y


class MulBackward0(Op):
    """out = self * other; d/dself = grad * other, d/dother = grad * self.

    Saves ``other`` only if self requires grad and ``self`` only if other does. A Python
    scalar ``other`` is saved as a wrapped 0-dim tensor (so ``x * 2`` cannot be replayed).
    """

    scalar_edges = (1,)

    def forward(ctx, x, y):
        out = _binary(x, y, np.multiply)  # (first: a shape clash is the error to raise)
        if not ctx.recording:  # (every grad * other of a backward formula)
            return out
        if isinstance(y, Tensor):
            ctx.save("other", y if x.requires_grad else None)
            ctx.save("self", x if y.requires_grad else None)
        else:
            ctx.save_scalar("other", y)
            ctx.save("self", None)
        return out

    def backward(ctx, grad):
        other, x = ctx.saved("other"), ctx.saved("self")
        grad_x = grad * other if ctx.needs_input_grad[0] else None
        return grad_x, (grad * x if ctx.needs_input_grad[1] else None)


class DivBackward0(Op):
    """out = self / other; d/dself = grad / other, d/dother = -grad * ((self / other) / other).

    Saves ``other`` always and ``self`` when other requires grad; a scalar other is wrapped.
    """

    scalar_edges = (1,)

    def forward(ctx, x, y):
        if isinstance(y, Tensor):
            ctx.save("other", y)
            ctx.save("self", x if y.requires_grad else None)
        else:
            ctx.save_scalar("other", y)
            ctx.save("self", None)
        check_broadcast(x, y)
        return np.asarray(x._data / value(y)).astype(_true_divide_type(x, y), copy=False)

    def backward(ctx, grad):
        other, x = ctx.saved("other"), ctx.saved("self")
        grad_x = grad / other if ctx.needs_input_grad[0] else None
        grad_y = None
        if ctx.needs_input_grad[1]:
            quotient = (x / other) / other  # C++ evaluates this operand before -grad
            grad_y = -grad * quotient
        return grad_x, grad_y


class NegBackward0(Op):
    """out = -self; d/dself = -grad. Saves no tensor."""

    @staticmethod
    def check(x):
        """PyTorch's entry check, before any other (in place: before the overlap checks)."""
        if x._data.dtype == np.bool_:
            raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If "
                               "you are trying to invert a mask, use the `~` or `logical_not()` "
                               "operator instead.")

    def forward(ctx, x):
        NegBackward0.check(x)
        return -x._data

    def backward(ctx, grad):
        return -grad


class ZeroBackward0(Op):
    """``x.zero_()``: out = 0; the gradient is zero. Saves no tensor."""

    def forward(ctx, x):
        return np.zeros_like(x._data)

    def backward(ctx, grad):
        return zeros(grad.shape, grad)


class FillBackward3(Op):
    """``x.fill_(value)`` with a 0-dim tensor (``x[...] = t.sum()``): out = value everywhere;
    d/dself = 0, d/dvalue = grad.sum(). Saves no tensor. As in PyTorch, the result requires
    grad when value does, whatever x's dtype."""

    any_dtype = True

    def forward(ctx, x, value):
        return np.full_like(x._data, cast(value._data, x._data.dtype))

    def backward(ctx, grad):
        grad_value = grad.sum() if ctx.needs_input_grad[1] else None
        return (zeros(grad.shape, grad) if ctx.needs_input_grad[0] else None), grad_value


class FillBackward2(Op):
    """``x.fill_(value)`` with a number: out = value everywhere; the gradient is zero."""

    def forward(ctx, x, value):
        return np.full_like(x._data, check_scalar(value, x._data.dtype))

    def backward(ctx, grad):
        return zeros(grad.shape, grad)


class ReciprocalBackward0(Op):
    """out = 1 / self (used by ``2 / x``); d/dself = -grad * out**2. Saves result."""

    def forward(ctx, x):
        ctx.save_output("result")
        return (1 / x._data).astype(result_type(x, 1.0), copy=False)

    def backward(ctx, grad):
        result = ctx.saved("result")
        square = result * result  # C++ evaluates this operand before -grad
        return -grad * square


class PowBackward0(Op):
    """out = self ** exponent (Python scalar); d/dself = grad * (exponent * self**(exponent-1)).

    Saves self; the exponent is a non-tensor save.
    """

    def forward(ctx, x, exponent):
        ctx.save("self", x)
        ctx.save_value("exponent", exponent)
        ctx.exponent = exponent
        dtype = result_type(x, exponent)
        if dtype == np.bool_:  # bool ** True is the tensor, bool ** False all True
            return x._data.copy() if exponent else np.ones_like(x._data)
        if dtype.kind in "iub" and exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        return np.asarray(x._data ** exponent).astype(dtype, copy=False)

    def backward(ctx, grad):
        x = ctx.saved("self")
        if ctx.exponent == 0:
            return zeros(x.shape, x)
        exponent = float(ctx.exponent)  # PyTorch's formula works with the exponent as a double
        return grad * mul_scalar(PowBackward0.apply(x, exponent - 1), exponent)


class PowBackward1(Op):
    """out = self ** exponent (tensor); d/dself = grad * exponent * self**(exponent-1),
    d/dexponent = grad * out * log(self) (0 where self = 0 and exponent >= 0).
    Saves self, exponent and result."""

    def forward(ctx, x, exponent):
        ctx.save("exponent", exponent)
        ctx.save_output("result")
        ctx.save("self", x)
        check_broadcast(x, exponent)
        return _power(x._data, exponent._data, result_type(x, exponent))

    def backward(ctx, grad):
        x, exponent, result = ctx.saved("self"), ctx.saved("exponent"), ctx.saved("result")
        zero = scalar_tensor(0.0, grad)
        grad_x = grad_e = None
        if ctx.needs_input_grad[0]:
            power = PowBackward1.apply(x, SubBackward1.apply(exponent, 1))
            grad_x = where(exponent == 0.0, zero, grad * (exponent * power))
        if ctx.needs_input_grad[1]:
            grad_e = grad * where((x == 0) & (exponent >= 0), zero, result * x.log())
        return grad_x, grad_e


class PowBackward2(Op):
    """out = base ** self for a Python scalar base (``2 ** x``); d/dself = grad * out * log(base).
    Saves exponent (the input) and result; the base is the non-tensor save ``self``."""

    def forward(ctx, exponent, base):
        ctx.save("exponent", exponent)
        ctx.save_output("result")
        ctx.base = base
        ctx.save_value("self", base)
        return _power(np.asarray(base), exponent._data, result_type(exponent, base))

    def backward(ctx, grad):
        result = ctx.saved("result")
        if ctx.base == 0:
            exponent = ctx.saved("exponent")
            return grad * where(exponent >= 0, scalar_tensor(0.0, grad),
                                mul_scalar(result, float("-inf")))
        return grad * mul_scalar(result, math.log(ctx.base))


def _power(base, exponent, dtype):
    """base ** exponent in ``dtype``; for integers, a negative power truncates as in PyTorch
    (1 for base 1, +-1 for base -1, else 0) instead of NumPy's ValueError."""
    if dtype == np.bool_:
        raise NotImplementedError('"pow" not implemented for \'Bool\'')
    if dtype.kind not in "iub":
        return np.asarray(base.astype(dtype, copy=False) ** exponent).astype(dtype, copy=False)
    base, exponent = np.broadcast_arrays(base.astype(dtype), exponent.astype(dtype))
    negative = exponent < 0
    out = np.asarray(base ** np.where(negative, 0, exponent)).astype(dtype, copy=False)
    odd = np.where(exponent % 2 == 0, 1, -1).astype(dtype)
    small = np.where(base == 1, 1, np.where(base == -1, odd, 0)).astype(dtype)
    return np.where(negative, small, out).astype(dtype)


class ExpBackward0(Op):
    """out = exp(self); d/dself = grad * out. Saves result."""

    def forward(ctx, x):
        ctx.save_output("result")
        return np.exp(as_float(x))

    def backward(ctx, grad):
        return grad * ctx.saved("result")


class LogBackward0(Op):
    """out = log(self); d/dself = grad / self. Saves self."""

    def forward(ctx, x):
        ctx.save("self", x)
        return np.log(as_float(x))

    def backward(ctx, grad):
        return grad / ctx.saved("self")


class SqrtBackward0(Op):
    """out = sqrt(self); d/dself = grad / (2 * out). Saves result."""

    def forward(ctx, x):
        ctx.save_output("result")
        return np.sqrt(as_float(x))

    def backward(ctx, grad):
        return grad / mul_scalar(ctx.saved("result"), 2)


class AbsBackward0(Op):
    """out = |self|; d/dself = grad * self.sgn(). Saves self."""

    def forward(ctx, x):
        if x._data.dtype == np.bool_:
            raise NotImplementedError('"abs_cpu" not implemented for \'Bool\'')
        ctx.save("self", x)
        return np.abs(x._data)

    def backward(ctx, grad):
        return grad * SgnBackward0.apply(ctx.saved("self"))


class SgnBackward0(Op):
    """out = sign(self) (abs's backward records it); its gradient is zero. Saves self, result."""

    def forward(ctx, x):
        ctx.save("self", x)
        ctx.save_output("result")
        out = np.sign(x._data)
        if out.dtype.kind == "f":  # PyTorch's sign of a real nan is 0 (NumPy's is nan)
            out = np.where(out != out, out.dtype.type(0), out)
        return out

    def backward(ctx, grad):
        return zeros(grad.shape, grad)


class TanhBackward0(Op):
    """out = tanh(self); d/dself = grad * (1 - out**2). Saves result."""

    def forward(ctx, x):
        ctx.save_output("result")
        return np.tanh(as_float(x))

    def backward(ctx, grad):
        return _db.TanhBackwardBackward0.apply(grad, ctx.saved("result"))


class SigmoidBackward0(Op):
    """out = 1 / (1 + exp(-self)); d/dself = grad * out * (1 - out). Saves result."""

    def forward(ctx, x):
        ctx.save_output("result")
        return _sigmoid(as_float(x))

    def backward(ctx, grad):
        return _db.SigmoidBackwardBackward0.apply(grad, ctx.saved("result"))


def _sigmoid(a):
    return (1 / (1 + np.exp(-a))).astype(a.dtype, copy=False)  # (exp(1000.): Op.apply's state)


class LogitBackward0(Op):
    """out = log(self / (1 - self)) (binary_cross_entropy's target gradient records it);
    d/dself = grad / (self (1 - self)). Saves self; eps (None) is a non-tensor save."""

    def forward(ctx, p):
        ctx.save("self", p)
        ctx.save_value("eps", None)
        return np.log(p._data / (1 - p._data))

    def backward(ctx, grad):
        p = ctx.saved("self")
        inside = (p >= 0.0) & (p <= 1.0)
        return where(inside, grad / (p * RsubBackward1.apply(p, 1.0)), scalar_tensor(np.nan, p))


class ReluBackward0(Op):
    """out = max(self, 0); d/dself = grad where out > 0 (0 at self = 0). Saves result."""

    @staticmethod
    def check(x):
        """PyTorch's entry checks, before any other (in place: before the overlap checks)."""
        if x._data.dtype == np.bool_:
            raise RuntimeError("Boolean inputs not supported for relu")
        _no_complex_clamp(x)

    def forward(ctx, x):
        ReluBackward0.check(x)
        ctx.save_output("result")
        return np.maximum(x._data, 0).astype(x._data.dtype, copy=False)

    def backward(ctx, grad):
        return _db.ThresholdBackwardBackward0.apply(grad, ctx.saved("result"), 0)


class LeakyReluBackward0(Op):
    """out = self if self > 0 else slope * self; d/dself = grad * (1 if self > 0 else slope).
    Saves self; negative_slope is a non-tensor save."""

    def forward(ctx, x, negative_slope=0.01):
        if x._data.dtype.kind not in "f":
            raise NotImplementedError(f'"leaky_relu_cpu" not implemented for '
                                      f"'{torch_name(x._data.dtype)}'")
        ctx.save("self", x)
        ctx.save_value("negative_slope", negative_slope)
        ctx.slope = negative_slope
        return np.where(x._data > 0, x._data, x._data * negative_slope).astype(x._data.dtype, copy=False)

    def backward(ctx, grad):
        return _db.LeakyReluBackwardBackward0.apply(grad, ctx.saved("self"),
                                                    negative_slope=ctx.slope)


class LeakyReluBackward1(Op):
    """``leaky_relu_(x, slope)`` (in place): d/dself = grad * (1 if result > 0 else slope).
    Saves the result, not self; needs slope >= 0, since the sign of the result then tells where
    the input was positive."""

    def forward(ctx, x, negative_slope=0.01):
        ctx.save_output("result")
        ctx.save_value("negative_slope", negative_slope)
        ctx.slope = negative_slope
        return np.where(x._data > 0, x._data, x._data * negative_slope).astype(x._data.dtype, copy=False)

    def backward(ctx, grad):
        if ctx.slope < 0:
            raise RuntimeError(
                "In-place leakyReLu backward calculation is triggered with a negative slope which "
                "is not supported. This is caused by calling in-place forward function with a "
                "negative slope, please call out-of-place version instead. File an issue at "
                "https://github.com/pytorch/pytorch if you do require supporting in-place "
                "leakRelu backward calculation with negative slope")
        return _db.LeakyReluBackwardBackward0.apply(grad, ctx.saved("result"),
                                                    negative_slope=ctx.slope)


class ClampBackward1(Op):
    """out = min(max(self, min), max); d/dself = grad where min <= self <= max. Saves self."""

    def forward(ctx, x, min=None, max=None):
        ctx.save("self", x)
        ctx.save_values(min=min, max=max)
        ctx.bounds = (min, max)
        dtype = ClampBackward1.check(x, min, max)
        return np.clip(x._data.astype(dtype, copy=False), min, max)

    @staticmethod
    def check(x, min, max, out=None):
        """PyTorch's entry checks (clamp's meta function), before any other: returns the dtype
        it computes in, which an in-place ``out`` must be able to hold."""
        if min is None and max is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        _no_complex_clamp(x)
        dtype = result_type(x, *(b for b in (min, max) if b is not None))
        if out is not None:
            check_castable(dtype, out._data.dtype, cpp=True)
        return dtype

    def backward(ctx, grad):
        x, (low, high) = ctx.saved("self"), ctx.bounds
        if low is None and high is None:
            return grad
        inside = (x >= low) if high is None else (x <= high) if low is None else (
            (x >= low) & (x <= high))
        return where(inside, grad, scalar_tensor(0.0, grad))


def _no_complex_clamp(x):
    if x._data.dtype.kind == "c":
        raise NotImplementedError("clamp is not supported for complex types")


class WhereBackward0(Op):
    """out = self where condition else other; d/dself = grad where condition (else 0),
    d/dother = grad where not condition. Saves condition (which gets no edge)."""

    non_differentiable = (0,)
    scalar_edges = (1, 2)

    def forward(ctx, condition, x, y):
        ctx.save("condition", condition)
        return np.where(condition._data, value(x), value(y)).astype(result_type(x, y), copy=False)

    def backward(ctx, grad):
        condition = ctx.saved("condition")
        zero = scalar_tensor(0.0, grad)
        grad_x = where(condition, grad, zero) if ctx.needs_input_grad[0] else None
        grad_y = where(condition, zero, grad) if ctx.needs_input_grad[1] else None
        return grad_x, grad_y


class SinBackward0(Op):
    """out = sin(self); d/dself = grad * cos(self). Saves self."""

    def forward(ctx, x):
        ctx.save("self", x)
        return np.sin(as_float(x))

    def backward(ctx, grad):
        return grad * ctx.saved("self").cos()


class CosBackward0(Op):
    """out = cos(self); d/dself = grad * -sin(self). Saves self."""

    def forward(ctx, x):
        ctx.save("self", x)
        return np.cos(as_float(x))

    def backward(ctx, grad):
        return grad * -ctx.saved("self").sin()


class MaximumBackward0(Op):
    """out = maximum(self, other) (nan wins); a tie splits the gradient in halves:
    d/dself = where(self == other, grad / 2, grad).masked_fill_(self < other, 0), and the
    mirror for other. Saves self and other, whichever requires grad."""

    _name = "maximum"

    def forward(ctx, x, y):
        return _extremum(ctx, x, y, np.maximum, "maximum")

    def backward(ctx, grad):
        x, y = ctx.saved("self"), ctx.saved("other")
        lose_x, lose_y = (x < y, x > y) if ctx._name == "maximum" else (x > y, x < y)
        grad_x = grad_y = None
        if ctx.needs_input_grad[0]:
            grad_x = MaskedFillBackward0.apply(where(x == y, div_scalar(grad, 2), grad), lose_x, 0)
        if ctx.needs_input_grad[1]:
            grad_y = MaskedFillBackward0.apply(where(x == y, div_scalar(grad, 2), grad), lose_y, 0)
        return grad_x, grad_y


class MinimumBackward0(MaximumBackward0):
    """out = minimum(self, other) (nan wins); ties split the gradient, as maximum's.
    Saves self and other."""

    _name = "minimum"

    def forward(ctx, x, y):
        return _extremum(ctx, x, y, np.minimum, "minimum")


def _extremum(ctx, x, y, ufunc, name):
    ctx.save("self", x)
    ctx.save("other", y)
    dtype = result_type(x, y)
    if dtype.kind == "c":
        raise RuntimeError(f"{name} not implemented for complex tensors.")
    check_broadcast(x, y)
    return ufunc(x._data, y._data).astype(dtype, copy=False)


_WHERE_UINT8_WARNED = [False]


def where(condition, x, y):
    if condition._data.dtype == np.uint8:  # (still taken, as its truth values, and saved so)
        warn_once(_WHERE_UINT8_WARNED, "where received a uint8 condition tensor. This behavior "
                  "is deprecated and will be removed in a future version of PyTorch. Use a "
                  "boolean condition instead.", stacklevel=3)
    elif condition._data.dtype != np.bool_:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {torch_name(condition._data.dtype)}")
    shapes = [v.shape for v in (condition, x, y) if isinstance(v, Tensor)]
    from .._surface.checks import broadcast_shape
    shape = ()
    for s in shapes:
        shape = broadcast_shape(shape, s)
    return WhereBackward0.apply(condition, x, y)
