"""Elementwise ops. Each class is one PyTorch node: forward, what it saves, backward.

Broadcast gradients are reduced to the input's shape by the engine (as PyTorch's
``validate_outputs`` does), so formulas here return the broadcast gradient.
"""
import numpy as np

from .._tensor import Tensor
from ._op import Op
from ._util import check_broadcast, result_type, value


def _binary(ctx, x, y, array):
    check_broadcast(x, y)
    return np.asarray(array).astype(result_type(x, y), copy=False)


class AddBackward0(Op):
    """out = self + alpha * other. Saves no tensor (alpha is a non-tensor save)."""

    def forward(ctx, x, y, alpha=1):
        ctx.save_value("alpha", alpha)
        ctx.alpha = alpha
        return _binary(ctx, x, y, x._data + (value(y) if alpha == 1 else alpha * value(y)))

    def backward(ctx, grad):
        grad_y = grad if ctx.alpha == 1 else grad * ctx.alpha
        return (grad, grad_y) if len(ctx.next_functions) == 2 else grad


class SubBackward0(Op):
    """out = self - alpha * other. Saves no tensor."""

    def forward(ctx, x, y, alpha=1):
        ctx.save_value("alpha", alpha)
        ctx.alpha = alpha
        return _binary(ctx, x, y, x._data - (value(y) if alpha == 1 else alpha * value(y)))

    def backward(ctx, grad):
        grad_y = -grad if ctx.alpha == 1 else grad * -ctx.alpha
        return (grad, grad_y) if len(ctx.next_functions) == 2 else grad


class RsubBackward1(Op):
    """out = other - alpha * self for a Python scalar other (``2 - x``). Saves no tensor."""

    def forward(ctx, x, scalar, alpha=1):
        ctx.save_value("alpha", alpha)
        ctx.alpha = alpha
        return _binary(ctx, x, scalar, scalar - alpha * x._data)

    def backward(ctx, grad):
        return -grad if ctx.alpha == 1 else grad * -ctx.alpha


class MulBackward0(Op):
    """out = self * other; d/dself = grad * other, d/dother = grad * self.

    Saves ``other`` only if self requires grad and ``self`` only if other does. A Python
    scalar ``other`` is saved as a wrapped 0-dim tensor (so ``x * 2`` cannot be replayed).
    """

    def forward(ctx, x, y):
        if isinstance(y, Tensor):
            ctx.save("other", y if x.requires_grad else None)
            ctx.save("self", x if y.requires_grad else None)
        else:
            ctx.save_scalar("other", y)
            ctx.save("self", None)
        return _binary(ctx, x, y, x._data * value(y))

    def backward(ctx, grad):
        other, x = ctx.saved("other"), ctx.saved("self")
        grad_x = grad * other if other is not None else None
        if len(ctx.next_functions) == 1:
            return grad_x
        return grad_x, (grad * x if x is not None else None)


class DivBackward0(Op):
    """out = self / other; d/dself = grad / other, d/dother = -grad * self / other**2.

    Saves ``other`` always and ``self`` when other requires grad; a scalar other is wrapped.
    """

    def forward(ctx, x, y):
        if isinstance(y, Tensor):
            ctx.save("other", y)
            ctx.save("self", x if y.requires_grad else None)
        else:
            ctx.save_scalar("other", y)
            ctx.save("self", None)
        dtype = result_type(x, y)
        if not np.issubdtype(dtype, np.floating):
            dtype = np.dtype(np.float32)
        check_broadcast(x, y)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.asarray(x._data / value(y)).astype(dtype, copy=False)

    def backward(ctx, grad):
        other, x = ctx.saved("other"), ctx.saved("self")
        grad_x = grad / other if ctx.needs_input_grad[0] else None
        if len(ctx.next_functions) == 1:
            return grad_x
        return grad_x, (-grad * x / (other * other) if ctx.needs_input_grad[1] else None)


class NegBackward0(Op):
    """out = -self. Saves no tensor."""

    def forward(ctx, x):
        return -x._data

    def backward(ctx, grad):
        return -grad


class ReciprocalBackward0(Op):
    """out = 1 / self (used by ``2 / x``); d/dself = -grad * out**2. Saves result."""

    def forward(ctx, x):
        ctx.save_output("result")
        with np.errstate(divide="ignore"):
            return (1 / x._data).astype(result_type(x, 1.0), copy=False)

    def backward(ctx, grad):
        result = ctx.saved("result")
        return -grad * (result * result)


class PowBackward0(Op):
    """out = self ** exponent (Python scalar); d/dself = grad * exponent * self**(exponent-1).

    Saves self; the exponent is a non-tensor save.
    """

    def forward(ctx, x, exponent):
        ctx.save("self", x)
        ctx.save_value("exponent", exponent)
        ctx.exponent = exponent
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.asarray(x._data ** exponent).astype(result_type(x, exponent), copy=False)

    def backward(ctx, grad):
        x = ctx.saved("self")
        if ctx.exponent == 0:
            return grad * 0
        return grad * (x ** (ctx.exponent - 1) * ctx.exponent)


class PowBackward1(Op):
    """out = self ** exponent (tensor); d/dself = grad * exponent * self**(exponent-1),
    d/dexponent = grad * out * log(self). Saves self, exponent and result."""

    def forward(ctx, x, exponent):
        ctx.save("exponent", exponent)
        ctx.save_output("result")
        ctx.save("self", x)
        check_broadcast(x, exponent)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.asarray(x._data ** exponent._data).astype(result_type(x, exponent), copy=False)

    def backward(ctx, grad):
        x, exponent, result = ctx.saved("self"), ctx.saved("exponent"), ctx.saved("result")
        grad_x = grad * (exponent * x ** (exponent - 1)) if ctx.needs_input_grad[0] else None
        grad_e = None
        if ctx.needs_input_grad[1]:
            safe = where(x == 0, 1.0, x)  # 0 ** e has no log; PyTorch's gradient there is 0
            grad_e = grad * where((x == 0) & (exponent >= 0), 0.0, result * safe.log())
        return grad_x, grad_e


class PowBackward2(Op):
    """out = base ** self for a Python scalar base (``2 ** x``); d/dself = grad * out * log(base).
    Saves exponent (the input) and result."""

    def forward(ctx, exponent, base):
        ctx.save("exponent", exponent)
        ctx.save_output("result")
        ctx.base = base
        ctx.save_value("self", base)
        return np.asarray(base ** exponent._data).astype(result_type(exponent, base), copy=False)

    def backward(ctx, grad):
        return grad * (ctx.saved("result") * float(np.log(ctx.base)))


class ExpBackward0(Op):
    """out = exp(self); d/dself = grad * out. Saves result."""

    def forward(ctx, x):
        ctx.save_output("result")
        return np.exp(x._data)

    def backward(ctx, grad):
        return grad * ctx.saved("result")


class LogBackward0(Op):
    """out = log(self); d/dself = grad / self. Saves self."""

    def forward(ctx, x):
        ctx.save("self", x)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log(x._data)

    def backward(ctx, grad):
        return grad / ctx.saved("self")


class SqrtBackward0(Op):
    """out = sqrt(self); d/dself = grad / (2 * out). Saves result."""

    def forward(ctx, x):
        ctx.save_output("result")
        with np.errstate(invalid="ignore"):
            return np.sqrt(x._data)

    def backward(ctx, grad):
        return grad / (ctx.saved("result") * 2)


class AbsBackward0(Op):
    """out = |self|; d/dself = grad * sign(self). Saves self."""

    def forward(ctx, x):
        ctx.save("self", x)
        return np.abs(x._data)

    def backward(ctx, grad):
        return grad * Tensor._make(np.sign(ctx.saved("self")._data))


class TanhBackward0(Op):
    """out = tanh(self); d/dself = grad * (1 - out**2). Saves result."""

    def forward(ctx, x):
        ctx.save_output("result")
        return np.tanh(x._data)

    def backward(ctx, grad):
        return TanhBackwardBackward0.apply(grad, ctx.saved("result"))


class SigmoidBackward0(Op):
    """out = 1 / (1 + exp(-self)); d/dself = grad * out * (1 - out). Saves result."""

    def forward(ctx, x):
        ctx.save_output("result")
        return _sigmoid(x._data)

    def backward(ctx, grad):
        return SigmoidBackwardBackward0.apply(grad, ctx.saved("result"))


def _sigmoid(a):
    with np.errstate(over="ignore"):
        return (1 / (1 + np.exp(-a))).astype(a.dtype, copy=False)


class ReluBackward0(Op):
    """out = max(self, 0); d/dself = grad where out > 0 (0 at self = 0). Saves result."""

    def forward(ctx, x):
        ctx.save_output("result")
        return np.maximum(x._data, 0).astype(x.dtype, copy=False)

    def backward(ctx, grad):
        return ThresholdBackwardBackward0.apply(grad, ctx.saved("result"), threshold=0)


class LeakyReluBackward0(Op):
    """out = self if self > 0 else slope * self. Saves self; negative_slope is a non-tensor save."""

    def forward(ctx, x, negative_slope=0.01):
        ctx.save("self", x)
        ctx.save_value("negative_slope", negative_slope)
        ctx.slope = negative_slope
        return np.where(x._data > 0, x._data, x._data * negative_slope).astype(x.dtype, copy=False)

    def backward(ctx, grad):
        return LeakyReluBackwardBackward0.apply(grad, ctx.saved("self"), negative_slope=ctx.slope)


class ClampBackward1(Op):
    """out = min(max(self, min), max); d/dself = grad where min <= self <= max. Saves self."""

    def forward(ctx, x, min=None, max=None):
        ctx.save("self", x)
        ctx.save_value("min", min)
        ctx.save_value("max", max)
        ctx.bounds = (min, max)
        return np.clip(x._data, min, max).astype(x.dtype, copy=False)

    def backward(ctx, grad):
        x, (low, high) = ctx.saved("self")._data, ctx.bounds
        inside = np.ones(x.shape, dtype=bool)
        if low is not None:
            inside &= x >= low
        if high is not None:
            inside &= x <= high
        return grad * Tensor._make(inside.astype(grad.dtype))


class WhereBackward0(Op):
    """out = self where condition else other. Saves condition."""

    def forward(ctx, condition, x, y):
        ctx.save("condition", condition)
        return np.where(condition._data, value(x), value(y)).astype(result_type(x, y), copy=False)

    def backward(ctx, grad):
        condition = ctx.saved("condition")
        zeros = Tensor._make(np.zeros((), dtype=grad.dtype))
        grads = [None]  # the condition's edge
        if ctx.needs_input_grad[1]:
            grads.append(where(condition, grad, zeros))
        else:
            grads.append(None)
        if len(ctx.next_functions) == 3:
            grads.append(where(condition, zeros, grad) if ctx.needs_input_grad[2] else None)
        return tuple(grads[: len(ctx.next_functions)])


# -- the nodes PyTorch records when a backward formula itself is differentiated ----------------
class SigmoidBackwardBackward0(Op):
    """out = grad_output * output * (1 - output) (sigmoid's backward). Saves grad_output, output."""

    def forward(ctx, grad_output, output):
        ctx.save("grad_output", grad_output if output.requires_grad else None)
        ctx.save("output", output)
        return grad_output._data * output._data * (1 - output._data)

    def backward(ctx, grad):
        grad_output, output = ctx.saved("grad_output"), ctx.saved("output")
        grad_g = SigmoidBackwardBackward0.apply(grad, output) if ctx.needs_input_grad[0] else None
        grad_o = grad * grad_output * (output * -2 + 1) if ctx.needs_input_grad[1] else None
        return grad_g, grad_o


class TanhBackwardBackward0(Op):
    """out = grad_output * (1 - output**2) (tanh's backward). Saves grad_output, output."""

    def forward(ctx, grad_output, output):
        ctx.save("grad_output", grad_output if output.requires_grad else None)
        ctx.save("output", output)
        return grad_output._data * (1 - output._data * output._data)

    def backward(ctx, grad):
        grad_output, output = ctx.saved("grad_output"), ctx.saved("output")
        grad_g = TanhBackwardBackward0.apply(grad, output) if ctx.needs_input_grad[0] else None
        grad_o = grad * grad_output * output * -2 if ctx.needs_input_grad[1] else None
        return grad_g, grad_o


class ThresholdBackwardBackward0(Op):
    """out = grad_output where self > threshold else 0 (relu's backward). Saves self."""

    def forward(ctx, grad_output, x, threshold=0):
        ctx.save("self", x)
        ctx.save_value("threshold", threshold)
        ctx.threshold = threshold
        return np.where(x._data > threshold, grad_output._data, 0).astype(grad_output.dtype)

    def backward(ctx, grad):
        x = ctx.saved("self")
        grad_g = ThresholdBackwardBackward0.apply(grad, x, threshold=ctx.threshold)
        return grad_g, (grad * 0 if ctx.needs_input_grad[1] else None)


class LeakyReluBackwardBackward0(Op):
    """out = grad_output * (1 if self > 0 else slope) (leaky_relu's backward). Saves self."""

    def forward(ctx, grad_output, x, negative_slope=0.01):
        ctx.save("self", x)
        ctx.save_value("negative_slope", negative_slope)
        ctx.slope = negative_slope
        g = grad_output._data
        return np.where(x._data > 0, g, g * negative_slope).astype(grad_output.dtype)

    def backward(ctx, grad):
        x = ctx.saved("self")
        grad_g = LeakyReluBackwardBackward0.apply(grad, x, negative_slope=ctx.slope)
        return grad_g, (grad * 0 if ctx.needs_input_grad[1] else None)


# -- functional entry points -------------------------------------------------------------------
def add(x, y, alpha=1):
    check_broadcast(x, y)  # before NumPy computes: its clash is a ValueError
    return AddBackward0.apply(x, y, alpha=alpha)


def sub(x, y, alpha=1):
    check_broadcast(x, y)  # before NumPy computes: its clash is a ValueError
    return SubBackward0.apply(x, y, alpha=alpha)


def rsub(x, scalar):
    return RsubBackward1.apply(x, scalar)


def mul(x, y):
    check_broadcast(x, y)  # before NumPy computes: its clash is a ValueError
    return MulBackward0.apply(x, y)


def div(x, y):
    return DivBackward0.apply(x, y)


def rdiv(x, scalar):
    return ReciprocalBackward0.apply(x) * scalar


def pow(x, exponent):
    if isinstance(exponent, Tensor):
        return PowBackward1.apply(x, exponent)
    return PowBackward0.apply(x, exponent)


def rpow(x, base):
    return PowBackward2.apply(x, base)


def where(condition, x, y):
    from .._tensor import Tensor as T
    if not isinstance(condition, T):
        condition = T._make(np.asarray(condition, dtype=bool))
    return WhereBackward0.apply(condition, x, y)
