"""Elementwise ops with a C++ Scalar operand: the nodes PyTorch's backward formulas record.

Python's ``x * 2`` wraps the 2 into a saved tensor (``MulBackward0``); a C++ formula such as
sqrt's ``grad / (2 * result)`` calls the Scalar overload instead, whose node (``MulBackward1``)
keeps the number as a plain value and has one edge, so ``create_graph=True`` records it exactly
where PyTorch's formulas do. ``2 - x`` is the Scalar overload ``rsub`` (``RsubBackward1``).
"""
import numpy as np

from .._dtype import default_float
from ._op import Op
from .._surface.checks import check_alpha
from .._surface.promotion import result_type


def _true_divide_type(x, y):
    dtype = result_type(x, y)
    return dtype if dtype.kind in "fc" else default_float()


class MulBackward1(Op):
    """out = self * other for a C++ Scalar other; d/dself = grad * other. Saves no tensor."""

    def forward(ctx, x, scalar):
        ctx.save_value("other", scalar)
        ctx.scalar = scalar
        return np.asarray(x._data * scalar).astype(result_type(x, scalar), copy=False)

    def backward(ctx, grad):
        return mul_scalar(grad, ctx.scalar)


class DivBackward1(Op):
    """out = self / other for a C++ Scalar other; d/dself = grad / other. Saves no tensor."""

    def forward(ctx, x, scalar):
        ctx.save_value("other", scalar)
        ctx.scalar = scalar
        return np.asarray(x._data / scalar).astype(_true_divide_type(x, scalar), copy=False)

    def backward(ctx, grad):
        return div_scalar(grad, ctx.scalar)


class AddBackward1(Op):
    """out = self + other for a C++ Scalar other; d/dself = grad. Saves nothing at all."""

    def forward(ctx, x, scalar):
        return np.asarray(x._data + scalar).astype(result_type(x, scalar), copy=False)

    def backward(ctx, grad):
        return grad


class SubBackward1(Op):
    """out = self - other for a C++ Scalar other; d/dself = grad. Saves nothing at all."""

    def forward(ctx, x, scalar):
        return np.asarray(x._data - scalar).astype(result_type(x, scalar), copy=False)

    def backward(ctx, grad):
        return grad


class RsubBackward1(Op):
    """out = other - alpha * self for a Python scalar other (``2 - x``); d/dself = -alpha * grad.
    Saves no tensor."""

    def forward(ctx, x, scalar, alpha=1):
        ctx.save_value("alpha", alpha)
        ctx.alpha = alpha
        dtype = result_type(x, scalar)
        check_alpha(alpha, dtype)
        if dtype.kind == "c":  # (a complex alpha times self, as in elementwise's _binary)
            return np.asarray(scalar - x._data.astype(dtype) * dtype.type(alpha)).astype(dtype, copy=False)
        return np.asarray(scalar - alpha * x._data).astype(dtype, copy=False)

    def backward(ctx, grad):
        return maybe_multiply(-grad, ctx.alpha)


def mul_scalar(x, scalar):
    return MulBackward1.apply(x, scalar)


def div_scalar(x, scalar):
    return DivBackward1.apply(x, scalar)


def maybe_multiply(grad, scalar):
    """PyTorch's ``maybe_multiply``: no node at all when the factor is 1."""
    return grad if scalar == 1 else mul_scalar(grad, scalar)
