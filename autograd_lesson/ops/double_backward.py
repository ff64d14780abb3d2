"""The nodes PyTorch records when a backward formula is itself differentiated.

``autograd.grad(..., create_graph=True)`` runs each node's backward under grad mode. Where
PyTorch's formula calls a fused kernel (``sigmoid_backward``, ``mse_loss_backward`` ...),
that kernel becomes a node of its own, named ``<Kernel>Backward0``: ``SigmoidBackwardBackward0``,
``MseLossBackwardBackward0``. Each class here is one such kernel: its ``forward`` is the
first-order gradient, its ``backward`` the second-order one. As everywhere, a tensor is saved
only when some gradient that needs it is required.
"""
import numpy as np

from ._util import zeros
from .elementwise_scalar import AddBackward1, mul_scalar
from ._op import Op
from .._surface.checks import normalize_dims


class SigmoidBackwardBackward0(Op):
    """out = grad_output * output * (1 - output). Saves grad_output (if output requires grad),
    output."""

    def forward(ctx, grad_output, output):
        ctx.save("grad_output", grad_output if output.requires_grad else None)
        ctx.save("output", output)
        return grad_output._data * output._data * (1 - output._data)

    def backward(ctx, grad):
        grad_output, output = ctx.saved("grad_output"), ctx.saved("output")
        grad_g = SigmoidBackwardBackward0.apply(grad, output) if ctx.needs_input_grad[0] else None
        grad_o = None
        if ctx.needs_input_grad[1]:  # grad * grad_output * (-2 * output + 1), right operand first
            slope = AddBackward1.apply(mul_scalar(output, -2), 1)
            grad_o = grad * grad_output * slope
        return grad_g, grad_o


class TanhBackwardBackward0(Op):
    """out = grad_output * (1 - output**2). Saves grad_output (if output requires grad), output."""

    def forward(ctx, grad_output, output):
        if ctx.recording:
            ctx.save("grad_output", grad_output if output.requires_grad else None)
            ctx.save("output", output)
        return grad_output._data * (1 - output._data * output._data)

    def backward(ctx, grad):
        grad_output, output = ctx.saved("grad_output"), ctx.saved("output")
        grad_g = TanhBackwardBackward0.apply(grad, output) if ctx.needs_input_grad[0] else None
        grad_o = None
        if ctx.needs_input_grad[1]:  # grad * (-2 * output * grad_output)
            grad_o = grad * (mul_scalar(output, -2) * grad_output)
        return grad_g, grad_o


class ThresholdBackwardBackward0(Op):
    """out = 0 where self <= threshold, else grad_output (relu's backward). Saves self."""

    def forward(ctx, grad_output, x, threshold=0):
        if ctx.recording:
            ctx.save("self", x)
            ctx.save_value("threshold", threshold)
            ctx.threshold = threshold
        out = np.where(x._data <= threshold, 0, grad_output._data)  # (NaN passes, as ATen's)
        return out.astype(grad_output._data.dtype, copy=False)

    def backward(ctx, grad):
        grad_g = None
        if ctx.needs_input_grad[0]:
            grad_g = ThresholdBackwardBackward0.apply(grad, ctx.saved("self"),
                                                      threshold=ctx.threshold)
        return grad_g, (zeros(grad.shape, grad) if ctx.needs_input_grad[1] else None)


class LeakyReluBackwardBackward0(Op):
    """out = grad_output * (1 if self > 0 else slope) (leaky_relu's backward). Saves self."""

    def forward(ctx, grad_output, x, negative_slope=0.01):
        ctx.save("self", x)
        ctx.save_value("negative_slope", negative_slope)
        ctx.slope = negative_slope
        g = grad_output._data
        return np.where(x._data > 0, g, g * negative_slope).astype(g.dtype, copy=False)

    def backward(ctx, grad):
        grad_g = None
        if ctx.needs_input_grad[0]:
            grad_g = LeakyReluBackwardBackward0.apply(grad, ctx.saved("self"),
                                                      negative_slope=ctx.slope)
        return grad_g, (zeros(grad.shape, grad) if ctx.needs_input_grad[1] else None)


class SoftmaxBackwardDataBackward0(Op):
    """out = output * (grad_output - sum(grad_output * output, dim)) (softmax's backward).
    Saves grad_output (if output requires grad) and output."""


    def forward(ctx, grad_output, output, dim):
        ctx.save("grad_output", grad_output if output.requires_grad else None)
        ctx.save("output", output)
        ctx.save_value("dim", dim)
        ctx.given_dim, (ctx.dim,) = dim, normalize_dims(dim, output.ndim)
        g, y = grad_output._data, output._data
        return y * (g - (g * y).sum(axis=ctx.dim, keepdims=True))

    def backward(ctx, grad):
        grad_output, output, dim = ctx.saved("grad_output"), ctx.saved("output"), ctx.dim
        grad_g = grad_o = None
        if ctx.needs_input_grad[0]:
            grad_g = SoftmaxBackwardDataBackward0.apply(grad, output, ctx.given_dim)
        if ctx.needs_input_grad[1]:  # g G - sum(y g) G - g sum(y G), right operands first
            third = grad_output * (output * grad).sum(dim, keepdim=True)
            second = (output * grad_output).sum(dim, keepdim=True) * grad
            grad_o = grad_output * grad - second - third
        return grad_g, grad_o


class LogSoftmaxBackwardDataBackward0(Op):
    """out = grad_output - exp(output) * sum(grad_output, dim) (log_softmax's backward).
    Saves grad_output (if output requires grad) and output."""


    def forward(ctx, grad_output, output, dim):
        ctx.save("grad_output", grad_output if output.requires_grad else None)
        ctx.save("output", output)
        ctx.save_value("dim", dim)
        (ctx.dim,) = normalize_dims(dim, output.ndim)
        g = grad_output._data
        return g - np.exp(output._data) * g.sum(axis=ctx.dim, keepdims=True)

    def backward(ctx, grad):
        grad_output, output, dim = ctx.saved("grad_output"), ctx.saved("output"), ctx.dim
        grad_g = grad_o = None
        if ctx.needs_input_grad[0]:
            grad_g = grad - (grad * output.exp()).sum(dim, keepdim=True)
        if ctx.needs_input_grad[1]:  # -sum(grad_output) * exp(output) * grad
            exp = output.exp()  # C++ evaluates the right operand first
            grad_o = -grad_output.sum(dim, keepdim=True) * exp * grad
        return grad_g, grad_o


def _mean_factor(reduction, n):
    if reduction != 1:
        return 1.0
    return 1.0 / n if n else float("inf")  # an empty input: the gradient is empty anyway


class MseLossBackwardBackward0(Op):
    """out = 2 (self - target) grad_output [/ n for the mean] (mse_loss's backward).
    Saves grad_output, self, target."""

    def forward(ctx, grad_output, x, target, reduction):
        ctx.save("grad_output", grad_output)
        ctx.save("self", x)
        ctx.save("target", target)
        ctx.save_value("reduction", reduction)
        ctx.reduction = reduction
        scale = 2 * _mean_factor(reduction, x.numel())
        return np.asarray(scale * (x._data - target._data) * grad_output._data, dtype=x._data.dtype)

    def backward(ctx, grad):
        grad_output, x, target = ctx.saved("grad_output"), ctx.saved("self"), ctx.saved("target")
        scale = 2 * _mean_factor(ctx.reduction, x.numel())
        grad_g = grad_x = grad_t = None
        if ctx.needs_input_grad[0]:
            grad_g = mul_scalar(x - target, scale) * grad
            if ctx.reduction != 0:
                grad_g = grad_g.sum()
        if ctx.needs_input_grad[1] or ctx.needs_input_grad[2]:
            grad_x = mul_scalar(grad * grad_output, scale)
            grad_t = -grad_x if ctx.needs_input_grad[2] else None
        return grad_g, (grad_x if ctx.needs_input_grad[1] else None), grad_t


class BinaryCrossEntropyBackwardBackward0(Op):
    """out = grad_output w (p - t) / max(p (1 - p), 1e-12) [/ n] (binary_cross_entropy's
    backward; w: the weight or 1). Saves grad_output (if p or t requires grad), self, target
    and weight."""

    non_differentiable = (3,)

    def forward(ctx, grad_output, p, target, weight, reduction):
        ctx.save("grad_output", grad_output if p.requires_grad or target.requires_grad else None)
        ctx.save("self", p)
        ctx.save("target", target)
        ctx.save("weight", weight)
        ctx.save_value("reduction", reduction)
        ctx.reduction = reduction
        a, t = p._data, target._data
        factor = _mean_factor(reduction, p.numel())
        out = factor * grad_output._data * (a - t) / np.maximum(a * (1 - a), 1e-12)
        return np.asarray(out if weight is None else out * weight._data, dtype=p._data.dtype)

    def backward(ctx, grad):
        grad_output, p, target = ctx.saved("grad_output"), ctx.saved("self"), ctx.saved("target")
        weight = ctx.saved("weight")
        factor = _mean_factor(ctx.reduction, p.numel())
        variance = (p * (1 - p)).clamp(min=1e-12)
        if weight is not None:
            grad = grad * weight
        grad_g = grad_p = grad_t = None
        if ctx.needs_input_grad[0]:
            grad_g = mul_scalar(grad * (p - target) / variance, factor)
            if ctx.reduction != 0:
                grad_g = grad_g.sum()
        if ctx.needs_input_grad[1]:  # d/dp (p - t) / (p (1 - p))
            slope = (variance - (p - target) * (1 - p * 2)) / (variance * variance)
            grad_p = mul_scalar(grad * grad_output * slope, factor)
        if ctx.needs_input_grad[2]:
            grad_t = mul_scalar(-grad * grad_output / variance, factor)
        return grad_g, grad_p, grad_t


class NllLossBackwardBackward0(Op):
    """out = -grad_output w[t_i] / total_weight at each row's target class t_i (nll_loss's
    backward). Saves target and weight; its gradient for self is zero, yet self keeps its edge."""

    non_differentiable = (2, 3, 4)

    def forward(ctx, grad_output, x, target, weight, total_weight, reduction, ignore_index):
        ctx.save("target", target)
        ctx.save("weight", weight)
        ctx.save_values(ignore_index=ignore_index, reduction=reduction)
        ctx.reduction, ctx.ignore_index = reduction, ignore_index
        labels = target._data
        rows = np.arange(len(labels))[labels != ignore_index]
        g = grad_output._data
        if reduction == 0:
            g = g[rows]
        elif reduction == 1:
            g = g / total_weight._data
        if weight is not None:
            g = g * weight._data[labels[rows]]
        out = np.zeros(x.shape, dtype=x._data.dtype)
        out[rows, labels[rows]] = -g
        return out

    def backward(ctx, grad):
        from .nnops import NllLossBackward0
        grad_g = None
        if ctx.needs_input_grad[0]:
            names = {0: "none", 1: "mean", 2: "sum"}
            grad_g = NllLossBackward0.apply(grad, ctx.saved("target"), ctx.saved("weight"),
                                            reduction=names[ctx.reduction],
                                            ignore_index=ctx.ignore_index)
        return grad_g, (zeros(grad.shape, grad) if ctx.needs_input_grad[1] else None)


class SelectBackwardBackward0(Op):
    """select's backward: grad placed at index along dim of a zero tensor; d/dgrad selects.
    Saves no tensor (dim and index as given)."""

    def forward(ctx, grad, shape, dim, index):
        ctx.save_values(dim=dim, index=index)
        ctx.dim, ctx.index = dim, index
        out = np.zeros(shape, dtype=grad._data.dtype)
        out[(slice(None),) * (dim % len(shape)) + (index,)] = grad._data
        return out

    def backward(ctx, grad):
        return grad.select(ctx.dim, ctx.index)


class SliceBackwardBackward0(Op):
    """slice's backward: grad placed at start:end:step along dim of a zero tensor; d/dgrad
    slices the same way. Saves no tensor (dim, start, end, step as the forward slice saved
    them)."""

    def forward(ctx, grad, shape, dim, start, end, step):
        for name, v in (("dim", dim), ("start", start), ("end", end), ("step", step)):
            ctx.save_value(name, v)
        ctx.dim, ctx.key = dim, slice(start, end, step)
        out = np.zeros(shape, dtype=grad._data.dtype)
        out[(slice(None),) * dim + (ctx.key,)] = grad._data
        return out

    def backward(ctx, grad):
        from .views import SliceBackward0
        return SliceBackward0.apply(grad, ctx.dim, ctx.key)
