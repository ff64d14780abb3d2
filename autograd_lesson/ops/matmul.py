"""Matrix products' nodes: mm, mv, dot, bmm, addmm (``_surface.matmul`` parses the calls and
dispatches ``@``).

Each saves an operand only when the *other* operand requires grad, exactly as PyTorch does:
``x @ W`` with a data batch ``x`` saves only ``x`` (W's gradient needs it), never W.
"""
import math

import numpy as np

from ._op import Op
from .elementwise_scalar import maybe_multiply
from .._surface.checks import expand_shape
from .._surface.promotion import cpp_name, torch_name


def _check_dtypes(x, y, kernel="addmm_impl_cpu_"):
    """The last check before the kernel: the same dtype, and one the kernel has (not bool)."""
    if x._data.dtype == y._data.dtype and x._data.dtype.kind != "b":
        return
    if x._data.dtype != y._data.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{cpp_name(x._data.dtype)} != {cpp_name(y._data.dtype)}")
    if x._data.dtype == np.bool_ and x._data.size and y._data.size:  # (an empty product: no kernel)
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')


def _column_major(sizes, strides):
    return bool(strides) and strides[0] == 1 and strides[1] == sizes[0]


def mm_mat1_backward(grad, mat2, sizes, strides, alpha=1):
    """PyTorch's formula: a column-major input (``W.t()``) gets its gradient as a transpose.
    (``MmBackward0.apply``, not ``Tensor.mm``: both operands are tensors, no argument to parse.)"""
    if _column_major(sizes, strides):
        return maybe_multiply(MmBackward0.apply(mat2, grad.t()).t(), alpha)
    return maybe_multiply(MmBackward0.apply(grad, mat2.t()), alpha)


def mm_mat2_backward(grad, mat1, sizes, strides, alpha=1):
    if _column_major(sizes, strides):
        return maybe_multiply(MmBackward0.apply(grad.t(), mat1).t(), alpha)
    return maybe_multiply(MmBackward0.apply(mat1.t(), grad), alpha)


def _strides_if_needed(t, requires_grad):
    """PyTorch keeps an operand's strides (in elements) only when its own gradient is needed:
    the gradient is laid out like it. ``W.t()`` has strides [1, in_features]."""
    if not requires_grad:
        return []
    data = t._data
    if data.size:  # (Tensor.stride's arithmetic, inlined: every recorded mm runs this twice)
        itemsize = data.itemsize
        return [s // itemsize for s in data.strides]
    return list(t.stride())  # (an empty tensor's: the C-ordered ones, as torch)


class MmBackward0(Op):
    """out = self @ mat2 (2-D); d/dself = grad @ mat2.T, d/dmat2 = self.T @ grad.
    Saves mat2 if self requires grad and self if mat2 requires grad."""


    def forward(ctx, x, w):
        a, b = x._data, w._data
        if a.ndim != 2:
            raise RuntimeError("self must be a matrix")
        if b.ndim != 2:
            raise RuntimeError("mat2 must be a matrix")
        if a.shape[1] != b.shape[0]:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied "
                               f"({'x'.join(map(str, a.shape))} and {'x'.join(map(str, b.shape))})")
        if a.dtype != b.dtype or a.dtype.kind == "b":  # (_check_dtypes' own test, inlined)
            _check_dtypes(x, w)
        if ctx.recording:  # (needs_input_grad: the operands' requires_grad, read once)
            x_grad, w_grad = ctx.needs_input_grad
            ctx.save("mat2", w if x_grad else None)
            ctx.save("self", x if w_grad else None)
            ctx.save_values(mat2_sym_sizes=list(b.shape),
                            mat2_sym_strides=_strides_if_needed(w, w_grad),
                            self_sym_sizes=list(a.shape),
                            self_sym_strides=_strides_if_needed(x, x_grad))
        return a @ b

    def backward(ctx, grad):
        w, x = ctx.saved("mat2"), ctx.saved("self")
        values = ctx._saved_values
        grad_x = grad_w = None
        if ctx.needs_input_grad[0]:
            grad_x = mm_mat1_backward(grad, w, values["self_sym_sizes"], values["self_sym_strides"])
        if ctx.needs_input_grad[1]:
            grad_w = mm_mat2_backward(grad, x, values["mat2_sym_sizes"], values["mat2_sym_strides"])
        return grad_x, grad_w


class AddmmBackward0(Op):
    """out = beta * self + alpha * (mat1 @ mat2) (``nn.Linear``'s op); d/dself = beta * grad,
    d/dmat1 = alpha * grad @ mat2.T, d/dmat2 = alpha * mat1.T @ grad.
    Saves mat1 if mat2 requires grad and mat2 if mat1 requires grad."""


    def forward(ctx, bias, x, w, beta=1, alpha=1):
        a, b, c = x._data, w._data, bias._data
        if c.dtype != b.dtype:
            raise RuntimeError(f"self and mat2 must have the same dtype, but got "
                               f"{torch_name(c.dtype)} and {torch_name(b.dtype)}")
        if a.dtype != b.dtype:
            raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got "
                               f"{torch_name(a.dtype)} and {torch_name(b.dtype)}")
        if a.ndim != 2 or b.ndim != 2:
            name, m = ("mat1", a) if a.ndim != 2 else ("mat2", b)
            raise RuntimeError(f"{name} must be a matrix, got {m.ndim}-D tensor")
        if a.shape[1] != b.shape[0]:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied "
                               f"({'x'.join(map(str, a.shape))} and {'x'.join(map(str, b.shape))})")
        if c.shape != (b.shape[1],):  # the bias broadcasts (a row: nothing to check)
            expand_shape(c.shape, (a.shape[0], b.shape[1]), c.dtype)
        if a.dtype.kind == "b":  # (_check_dtypes: the dtypes are equal, checked above)
            _check_dtypes(x, w)
        if ctx.recording:  # (needs_input_grad: the operands' requires_grad, read once)
            _, x_grad, w_grad = ctx.needs_input_grad
            ctx.save("mat1", x if w_grad else None)
            ctx.save("mat2", w if x_grad else None)
            ctx.save_values(alpha=alpha, beta=beta, mat1_sym_sizes=list(a.shape),
                            mat1_sym_strides=_strides_if_needed(x, x_grad),
                            mat2_sym_sizes=list(b.shape),
                            mat2_sym_strides=_strides_if_needed(w, w_grad))
        ctx.alpha, ctx.beta = alpha, beta
        product = a @ b
        out = (product if alpha == 1 else alpha * product) + (c if beta == 1 else beta * c)
        return out if out.dtype == a.dtype else out.astype(a.dtype)

    def backward(ctx, grad):
        x, w = ctx.saved("mat1"), ctx.saved("mat2")
        values = ctx._saved_values
        grad_bias = grad_x = grad_w = None
        if ctx.needs_input_grad[0]:
            grad_bias = maybe_multiply(grad, ctx.beta)
        if ctx.needs_input_grad[1]:
            grad_x = mm_mat1_backward(grad, w, values["mat1_sym_sizes"],
                                      values["mat1_sym_strides"], ctx.alpha)
        if ctx.needs_input_grad[2]:
            grad_w = mm_mat2_backward(grad, x, values["mat2_sym_sizes"],
                                      values["mat2_sym_strides"], ctx.alpha)
        return grad_bias, grad_x, grad_w


class MvBackward0(Op):
    """out = self @ vec (matrix times vector); d/dself = outer(grad, vec), d/dvec = self.T @ grad.
    Saves self and vec."""

    def forward(ctx, x, v):
        if not x.ndim:
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        if x.ndim != 2 or v.ndim != 1:
            raise RuntimeError(f"vector + matrix @ vector expected, got 1, {x.ndim}, {v.ndim}")
        if x.shape[1] != v.shape[0]:
            raise RuntimeError(f"size mismatch, got input ({x.shape[0]}), mat "
                               f"({x.shape[0]}x{x.shape[1]}), vec ({v.shape[0]})")
        if x._data.dtype != v._data.dtype:
            raise RuntimeError(f"addmv input tensors must have the same dtype, but got "
                               f"{torch_name(v._data.dtype)}, {torch_name(x._data.dtype)}, and "
                               f"{torch_name(v._data.dtype)}")
        _check_dtypes(x, v, "addmv_impl_cpu")
        ctx.save("self", x if v.requires_grad else None)
        ctx.save("vec", v if x.requires_grad else None)
        return x._data @ v._data

    def backward(ctx, grad):
        x, v = ctx.saved("self"), ctx.saved("vec")
        grad_x = grad.reshape(grad.shape[0], 1) * v if v is not None else None  # outer product
        grad_v = x.t().mv(grad) if x is not None else None
        return grad_x, grad_v


class DotBackward0(Op):
    """out = self . tensor (two vectors); d/dself = grad * tensor, d/dtensor = grad * self.
    Saves tensor if self requires grad, and vice versa."""

    def forward(ctx, x, y):
        if x.ndim != 1 or y.ndim != 1:
            raise RuntimeError(f"1D tensors expected, but got {x.ndim}D and {y.ndim}D tensors")
        if x._data.dtype != y._data.dtype:
            raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                               f"{torch_name(x._data.dtype)} and {torch_name(y._data.dtype)}")
        if x.shape != y.shape:  # (dot_check's, before the kernel's dtype dispatch)
            raise RuntimeError(f"inconsistent tensor size, expected tensor [{x.shape[0]}] and src "
                               f"[{y.shape[0]}] to have the same number of elements, but got "
                               f"{x.shape[0]} and {y.shape[0]} elements respectively")
        if x._data.dtype == np.bool_:
            raise NotImplementedError('"dot" not implemented for \'Bool\'')
        _check_dtypes(x, y)
        ctx.save("self", x if y.requires_grad else None)
        ctx.save("tensor", y if x.requires_grad else None)
        return np.asarray(x._data @ y._data)

    def backward(ctx, grad):
        x, y = ctx.saved("self"), ctx.saved("tensor")
        return (grad * y if y is not None else None), (grad * x if x is not None else None)


class BmmBackward0(Op):
    """out = self @ mat2, one matrix product per batch (3-D); d/dself = grad @ mat2^T,
    d/dmat2 = self^T @ grad (per batch). Saves mat2 if self requires grad, and vice versa."""

    def forward(ctx, x, y):
        if x.ndim != 3:
            raise RuntimeError("batch1 must be a 3D tensor")
        if y.ndim != 3:
            raise RuntimeError("batch2 must be a 3D tensor")
        if y.shape[:2] != (x.shape[0], x.shape[2]):
            raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                               f"[{x.shape[0]}, {x.shape[2]}] but got: [{y.shape[0]}, "
                               f"{y.shape[1]}].")
        ctx.save("mat2", y if x.requires_grad else None)
        ctx.save("self", x if y.requires_grad else None)
        shape = (x.shape[0], x.shape[1], y.shape[2])
        if not math.prod(shape) or not x.shape[2]:  # no kernel runs: no dtype check either,
            return np.zeros(shape, y._data.dtype)  # and the result takes mat2's dtype, as in ATen
        if x._data.dtype == np.bool_:  # (the kernel dispatches on self's dtype, then checks mat2's)
            raise NotImplementedError('"bmm" not implemented for \'Bool\'')
        if x._data.dtype != y._data.dtype:
            raise RuntimeError(f"expected scalar type {torch_name(x._data.dtype)} but found "
                               f"{torch_name(y._data.dtype)}")
        return x._data @ y._data

    def backward(ctx, grad):
        y, x = ctx.saved("mat2"), ctx.saved("self")
        grad_x = grad.bmm(y.transpose(1, 2)) if ctx.needs_input_grad[0] else None
        grad_y = x.transpose(1, 2).bmm(grad) if ctx.needs_input_grad[1] else None
        return grad_x, grad_y
