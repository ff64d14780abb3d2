"""The arithmetic entry points (``torch.add``, ``x.sub(y, alpha=2)``, ``x / 2``, ``2 ** x``,
``maximum``...): PyTorch's checks on the operands, then a node of ``ops.elementwise``
(``ops.elementwise_scalar`` for ``2 - x``)."""
import numpy as np

from .._tensor import Tensor
from ..ops.elementwise import (AddBackward0, DivBackward0, MaximumBackward0, MinimumBackward0,
                               MulBackward0, PowBackward0, PowBackward1, PowBackward2,
                               ReciprocalBackward0, SubBackward0)
from ..ops.elementwise_scalar import RsubBackward1
from .parser import parsed


# -- functional entry points -------------------------------------------------------------------
def add(x, y, alpha=1):
    return AddBackward0.apply(x, y, alpha=alpha)


def sub(x, y, alpha=1):
    _check_bool_sub(x, y)
    return SubBackward0.apply(x, y, alpha=alpha)


def _check_bool_sub(x, y):
    bools = (_is_bool(x), _is_bool(y))
    if not (bools[0] or bools[1]):
        return
    if all(bools):
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    if any(bools):
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")


def _is_bool(v):
    return (v._data.dtype.kind == "b" if isinstance(v, Tensor)
            else isinstance(v, (bool, np.bool_)))


def rsub(x, scalar):
    _check_bool_sub(x, scalar)
    return RsubBackward1.apply(x, scalar)


def mul(x, y):
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


@parsed("maximum")
def maximum(x, y):
    return MaximumBackward0.apply(x, y)


@parsed("minimum")
def minimum(x, y):
    return MinimumBackward0.apply(x, y)
