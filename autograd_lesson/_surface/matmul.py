"""The matrix products' entry points: ``mm``, ``mv``, ``dot``, ``bmm``, ``addmm`` and
``matmul`` (``@``), which picks the node as ATen's ``matmul`` does. Arguments parsed by the
table's signatures; the nodes are ``ops.matmul``'s.
"""
import math

from ..ops.matmul import AddmmBackward0, BmmBackward0, DotBackward0, MmBackward0, MvBackward0
from ..ops.views import SqueezeBackward4, UnsafeViewBackward0
from .checks import broadcast_shape
from .parser import parsed


# (two Tensors, parsed: the node applied to them)
mm, mv, dot, bmm = (parsed(name)(op.apply) for name, op in (
    ("mm", MmBackward0), ("mv", MvBackward0), ("dot", DotBackward0), ("bmm", BmmBackward0)))


@parsed("addmm")
def addmm(*args):
    """``addmm(input, mat1, mat2, *, beta=1, alpha=1)``: ``AddmmBackward0``."""
    if len(args) == 6:  # (input, mat1, mat2, out_dtype, beta, alpha)
        raise NotImplementedError("autograd_lesson's addmm has no out_dtype: cast the result")
    return AddmmBackward0.apply(*args[:3], beta=args[3], alpha=args[4])


def _unsafe_view(t, shape):
    return UnsafeViewBackward0.apply(t, tuple(shape))


def _should_fold(x, y):
    """ATen's ``should_fold``: an N-D (N >= 3) operand times a 1-D or 2-D one becomes one mm
    or mv on the big operand folded to a matrix, when the small operand requires grad (its
    gradient is then one product, not a batch summed) or the fold costs no copy."""
    larger_first = x.ndim >= y.ndim
    big, small = (x, y) if larger_first else (y, x)
    if not (big.ndim >= 3 and small.ndim <= 2):
        return False
    if small.requires_grad:
        return True
    if x.ndim == 2:  # 2-D @ N-D: the result would need a transposed copy
        return False
    if not big.numel():
        return True
    sizes, strides = list(big.shape), list(big.stride())
    if not larger_first:  # big.mT
        sizes[-2:], strides[-2:] = sizes[:-3:-1], strides[:-3:-1]
    return all(strides[i] == strides[i + 1] * sizes[i + 1] for i in range(big.ndim - 2))


@parsed("matmul")
def matmul(x, y):
    """``x @ y`` as ATen's ``matmul`` records it: dot, mv, mm for 1-D and 2-D operands; a 3-D
    batch of one that requires grad squeezed to a matrix when the other is a 3-D batch of
    several; an N-D operand folded into one mm or mv (``_should_fold``); else both operands
    expanded to the broadcast batch shape, reshaped to 3-D, one bmm and an ``_unsafe_view``."""
    dx, dy = x.ndim, y.ndim
    if not dx or not dy:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{dx}D and {dy}D")
    if dx == 1 and dy == 1:
        return DotBackward0.apply(x, y)
    if dx == 2 and dy == 1:
        return MvBackward0.apply(x, y)
    if dx == 1 and dy == 2:
        out = SqueezeBackward4.apply(MmBackward0.apply(x.unsqueeze(0), y), 0)
        out._version_counter.value += 1  # (PyTorch's squeeze_(0) of its mm: at version 1)
        return out
    if dx == 2 and dy == 2:
        return MmBackward0.apply(x, y)
    if dx == 3 and dy == 3:  # a batch of one that requires grad, against a real batch:
        if x.shape[0] == 1 and y.shape[0] != 1 and x.requires_grad:  # one matrix, folded
            x, dx = x.squeeze(0), 2
        elif y.shape[0] == 1 and x.shape[0] != 1 and y.requires_grad:
            y, dy = y.squeeze(0), 2
    if _should_fold(x, y):
        transpose = dy > dx
        t1 = y.mT if transpose else x
        t2 = (x.t() if dx == 2 else x) if transpose else y
        output_shape = list(t1.shape[:-1])
        folded = t1.reshape(math.prod(output_shape), t1.shape[-1])
        if t2.ndim == 2:
            output_shape.append(t2.shape[1])
            out = _unsafe_view(MmBackward0.apply(folded, t2), output_shape)
            return out.mT.contiguous() if transpose else out
        return _unsafe_view(MvBackward0.apply(folded, t2), output_shape)
    n = x.shape[-2] if dx > 1 else 1
    m1, m2 = x.shape[-1], (y.shape[-2] if dy > 1 else y.shape[0])
    p = y.shape[-1] if dy > 1 else 1
    batch = list(broadcast_shape(x.shape[:max(dx - 2, 0)], y.shape[:max(dy - 2, 0)]))
    product = math.prod(batch)
    x3 = x.expand(*batch, n, m1).reshape(product, n, m1)
    if dy == 1:
        y3 = y.expand(*batch, m2).reshape(product, m2).unsqueeze(2)
    else:
        y3 = y.expand(*batch, m2, p).reshape(product, m2, p)
    out = BmmBackward0.apply(x3, y3)
    output_shape = batch + ([n] if dx > 1 else []) + ([p] if dy > 1 else [])
    return _unsafe_view(out.squeeze(-1) if dy == 1 else out, output_shape)
