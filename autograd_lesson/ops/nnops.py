"""Neural-network nodes: softmax, log_softmax and the losses, with PyTorch's saves
(``_surface.nn`` parses the calls).

``reduction`` is saved as PyTorch's enum value: none=0, mean=1, sum=2.
"""
import numpy as np

from .. import _grad_mode
from .._tensor import Tensor
from . import double_backward as _db
from .elementwise import LogitBackward0
from .elementwise_scalar import div_scalar
from .._fp_errors import quiet
from ._op import Op
from .._surface.checks import broadcast_shape, wrap_dim
from .._surface.promotion import check_castable, result_type, torch_name

REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _reduction(name):
    if name not in REDUCTIONS:
        raise ValueError(f"{name} is not a valid value for reduction")
    return REDUCTIONS[name]


def _reduce(loss, reduction):
    if reduction == 1:
        with quiet():
            return np.asarray(loss.mean(), dtype=loss.dtype)
    if reduction == 2:
        return np.asarray(loss.sum(), dtype=loss.dtype)  # (inf + -inf: Op.apply's error state)
    return loss


def _softmax_dim(x, dim, name, dtype=None):
    """The wrapped dim, once the kernel is known to take the dtype (x's, or the one asked for)."""
    d = wrap_dim(dim, x.ndim)
    dtype = x._data.dtype if dtype is None else dtype
    if dtype.kind not in "f" and x.numel():  # (an empty input passes, in its own dtype)
        kernel = f"{name}_lastdim_kernel_impl" if d == max(x.ndim, 1) - 1 else f"{name}_kernel_impl"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{torch_name(dtype)}\'')
    return d


class SoftmaxBackward0(Op):
    """out = exp(self) / sum(exp(self), dim); d/dself = out * (grad - sum(grad * out, dim)).
    Saves result."""

    def forward(ctx, x, dim):
        ctx.dim = _softmax_dim(x, dim, "softmax")
        ctx.save_output("result")
        ctx.save_value("dim", dim)
        ctx.given_dim = dim
        a = x._data.reshape(x.shape or (1,))
        if not a.size:
            return x._data.copy()
        shifted = np.exp(a - a.max(axis=ctx.dim, keepdims=True))
        return (shifted / shifted.sum(axis=ctx.dim, keepdims=True)).reshape(x.shape)

    def backward(ctx, grad):
        return _db.SoftmaxBackwardDataBackward0.apply(grad, ctx.saved("result"), ctx.given_dim)


class LogSoftmaxBackward0(Op):
    """out = self - logsumexp(self, dim); d/dself = grad - exp(out) * sum(grad, dim).
    Saves result."""

    def forward(ctx, x, dim):
        ctx.dim = _softmax_dim(x, dim, "log_softmax")
        ctx.save_output("result")
        ctx.save_value("dim", dim)
        ctx.given_dim = dim
        a = x._data.reshape(x.shape or (1,))
        if not a.size:
            return x._data.copy()
        shifted = a - a.max(axis=ctx.dim, keepdims=True)
        return (shifted - np.log(np.exp(shifted).sum(axis=ctx.dim, keepdims=True))
                ).reshape(x.shape)

    def backward(ctx, grad):
        return _db.LogSoftmaxBackwardDataBackward0.apply(grad, ctx.saved("result"), ctx.given_dim)


def _check_same_size(x, target):
    if x.shape != target.shape:
        broadcast_shape(x.shape, target.shape)


class MseLossBackward0(Op):
    """out = reduce((self - target)**2); d/dself = 2 (self - target) grad / n. Saves self, target."""

    def forward(ctx, x, target, reduction="mean"):
        ctx.reduction, ctx.shape = _reduction(reduction), broadcast_shape(x.shape, target.shape)
        dtype = result_type(x, target)
        if dtype.kind != "f":
            raise NotImplementedError(f'"mse_cpu" not implemented for \'{torch_name(dtype)}\'')
        ctx.save("self", x)
        ctx.save("target", target)
        ctx.save_value("reduction", ctx.reduction)
        return _reduce(((x._data - target._data) ** 2).astype(dtype, copy=False),
                       ctx.reduction)

    def backward(ctx, grad):
        x, target = ctx.saved("self"), ctx.saved("target")
        backward = _db.MseLossBackwardBackward0.apply
        grad_x = backward(grad, x, target, ctx.reduction) if ctx.needs_input_grad[0] else None
        grad_t = backward(grad, target, x, ctx.reduction) if ctx.needs_input_grad[1] else None
        return grad_x, grad_t


class BinaryCrossEntropyBackward0(Op):
    """out = reduce(-w (t log p + (1 - t) log(1 - p))), logs clamped at -100 (w: the weight,
    already expanded to the target's shape, or 1); d/dp = grad w (p - t) / max(p (1 - p),
    1e-12). Saves self, target and weight."""

    non_differentiable = (2,)  # (PyTorch has no formula for the weight)

    def forward(ctx, p, target, weight=None, reduction="mean"):
        if p.shape != target.shape:
            raise ValueError(f"Using a target size ({target.shape}) that is different to the input "
                             f"size ({p.shape}) is deprecated. Please ensure they have the same size.")
        check_no_requires_grad("binary_cross_entropy", weight=weight)
        if target._data.dtype != p._data.dtype:
            raise RuntimeError(f"Found dtype {torch_name(target._data.dtype)} but expected "
                               f"{torch_name(p._data.dtype)}")
        if p._data.dtype.kind != "f":
            raise NotImplementedError(f'"binary_cross_entropy" not implemented for '
                                      f"'{torch_name(p._data.dtype)}'")
        # PyTorch's kernel checks input then target element by element: the first bad one wins
        bad_p = ~((p._data >= 0) & (p._data <= 1))
        bad = bad_p | ~((target._data >= 0) & (target._data <= 1))
        if bad.any():
            which = "input" if bad_p.ravel()[np.argmax(bad.ravel())] else "target"
            raise RuntimeError(f"all elements of {which} should be between 0 and 1")
        ctx.reduction = _reduction(reduction)
        ctx.save("self", p)
        ctx.save("target", target)
        ctx.save("weight", weight)
        ctx.save_value("reduction", ctx.reduction)
        log_p = np.maximum(np.log(p._data), -100)
        log_q = np.maximum(np.log(1 - p._data), -100)
        loss = -(target._data * log_p + (1 - target._data) * log_q)
        return _reduce(loss if weight is None else loss * weight._data, ctx.reduction)

    def backward(ctx, grad):
        p, target, weight = ctx.saved("self"), ctx.saved("target"), ctx.saved("weight")
        grad_p = grad_t = None
        if ctx.needs_input_grad[0]:
            grad_p = _db.BinaryCrossEntropyBackwardBackward0.apply(grad, p, target, weight,
                                                                   ctx.reduction)
        if ctx.needs_input_grad[1]:  # -logit(p) * grad [/ n], weighted
            grad_t = -LogitBackward0.apply(p) * grad
            grad_t = _mean(grad_t if weight is None else grad_t * weight, ctx.reduction,
                           target.numel())
        return grad_p, grad_t


class BinaryCrossEntropyWithLogitsBackward0(Op):
    """out = reduce(w ((1 - t) x - l log_sigmoid(x))), l = (pw - 1) t + 1
    (w: weight, pw: pos_weight, both 1 if not given); d/dx = grad w ((pw t + 1 - t) sigmoid(x)
    - pw t), d/dt = grad w (log(1 - sigmoid(x)) - pw log(sigmoid(x))).
    Saves self, target, weight and pos_weight."""

    non_differentiable = (2, 3)  # (PyTorch has no formula for the weights)

    def forward(ctx, x, target, weight=None, pos_weight=None, reduction="mean"):
        if x.shape != target.shape:
            raise ValueError(f"Target size ({target.shape}) must be the same as input size "
                             f"({x.shape})")
        check_no_requires_grad("binary_cross_entropy_with_logits", weight=weight,
                               pos_weight=pos_weight)
        if x._data.dtype.kind != "f":
            raise NotImplementedError(f'"log_sigmoid_cpu" not implemented for '
                                      f"'{torch_name(x._data.dtype)}'")
        if pos_weight is not None and pos_weight._data.dtype == np.bool_:  # pos_weight - 1
            from .._surface.elementwise import _check_bool_sub
            _check_bool_sub(pos_weight, 1)
        if target._data.dtype == np.bool_:  # PyTorch's kernel computes 1 - target first
            from .._surface.elementwise import _check_bool_sub
            _check_bool_sub(target, target)
        check_castable(result_type(x, target), target._data.dtype)
        ctx.reduction = _reduction(reduction)
        for w, first in ((pos_weight, True), (weight, False)):  # (PyTorch's operand order)
            if w is not None:
                shape = broadcast_shape(*((w.shape, x.shape) if first else (x.shape, w.shape)))
                if shape != x.shape:  # (then written into the loss in place)
                    raise RuntimeError(f"output with shape {list(x.shape)} doesn't match the "
                                       f"broadcast shape {list(shape)}")
        ctx.save("self", x)
        ctx.save("target", target)
        ctx.save("pos_weight", pos_weight)
        ctx.save("weight", weight)
        ctx.save_value("reduction", ctx.reduction)
        a, t = x._data, target._data
        log_sigmoid = np.minimum(a, 0) - np.log1p(np.exp(-np.abs(a)))  # (PyTorch's order)
        if pos_weight is not None:
            log_sigmoid = log_sigmoid * ((pos_weight._data - 1) * t + 1)
        loss = (1 - t) * a - log_sigmoid
        if weight is not None:
            loss = loss * weight._data
        # (PyTorch computes (1 - target).mul_(input)...: the loss has the target's dtype)
        return _reduce(loss.astype(target._data.dtype, copy=False), ctx.reduction)

    def backward(ctx, grad):
        x, target = ctx.saved("self"), ctx.saved("target")
        weight, pos_weight = ctx.saved("weight"), ctx.saved("pos_weight")
        grad_x = grad_t = None
        if ctx.needs_input_grad[0]:  # (sigmoid(x) - t) * grad [/ n], weighted
            if pos_weight is None:
                grad_x = x.sigmoid() - target
            else:
                scaled = pos_weight * target
                grad_x = (scaled + 1 - target) * x.sigmoid() - scaled
            grad_x = _mean((grad_x if weight is None else grad_x * weight) * grad, ctx.reduction,
                           x.numel())
        if ctx.needs_input_grad[1]:  # -x * grad [/ n], weighted
            if pos_weight is None:
                grad_t = -x
            else:
                grad_t = (1 - x.sigmoid()).log() - pos_weight * x.sigmoid().log()
            grad_t = _mean((grad_t if weight is None else grad_t * weight) * grad, ctx.reduction,
                           target.numel())
        return grad_x, grad_t


def check_no_requires_grad(fn, **weights):
    """PyTorch has no formula for a loss's weights: one that requires grad is refused first."""
    if _grad_mode._enabled:
        for name, w in weights.items():
            if w is not None and w.requires_grad:
                raise RuntimeError(f"The function '{fn}' is not differentiable with respect to "
                                   f"argument '{name}'. This input cannot have requires_grad "
                                   f"True.")


def _mean(grad, reduction, numel):
    """PyTorch's loss formulas divide by the element count for the mean (``DivBackward1``)."""
    return div_scalar(grad, numel) if reduction == 1 else grad


def _check_nll_target(target):
    """nll_loss_forward's meta check (a (N, 1) target of class indices is a common slip)."""
    if target.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")


class NllLossBackward0(Op):
    """out = -sum(w[t_i] self[i, t_i]) / total_weight (mean) over rows whose target t_i !=
    ignore_index, total_weight = sum(w[t_i]) (w: the class weights, or ones); d/dself =
    -grad w[t_i] [/ total_weight] at each [i, t_i], 0 elsewhere.
    Saves self, target, weight and total_weight (a new 0-dim buffer)."""

    non_differentiable = (1, 2)  # the class indices and the weights: no edge

    def forward(ctx, x, target, weight=None, reduction="mean", ignore_index=-100):
        if not x.ndim:
            raise ValueError("Expected 1 or more dimensions (got 0)")
        if x.ndim == 1:  # (nll_loss_nd's checks, then nll_loss_forward's autograd check)
            check_no_requires_grad("nll_loss_forward", weight=weight)
            _check_nll_target(target)
        if x.ndim == 1 and target.ndim == 1 and target.shape[0] != 1:
            raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: "
                             f"{target.shape[0]}")
        if x.ndim != 2 and target._data.dtype.kind in "iu" and (x.ndim, target.ndim) in ((1, 0), (1, 1)):
            raise NotImplementedError("autograd_lesson's nll_loss takes a batch: pass input of "
                                      "shape (N, C) and target of shape (N,) (x.unsqueeze(0))")
        if x.ndim >= 2 and (target.shape[0] if target.ndim else 0) != x.shape[0]:  # nll_loss_nd
            raise ValueError(f"Expected input batch_size ({x.shape[0]}) to match target "
                             f"batch_size ({target.shape[0] if target.ndim else 0}).")
        if x.ndim == 2:
            check_no_requires_grad("nll_loss_forward", weight=weight)
            _check_nll_target(target)
        if x.ndim == 4:  # (nll_loss2d's checks: check_inputs_nll_loss2d)
            if target.ndim != 3:
                raise RuntimeError(f"only batches of spatial targets supported (3D tensors) but "
                                   f"got targets of dimension: {target.ndim}")
            if weight is not None and weight.numel() != x.shape[1]:
                raise RuntimeError("weight tensor should be defined either for all or no classes")
            if (x.shape[0], *x.shape[2:]) != tuple(target.shape):
                raise RuntimeError(f"size mismatch (got input: {list(x.shape)} , target: "
                                   f"{list(target.shape)}")
        if x.ndim > 2:
            expected = [x.shape[0], *x.shape[2:]]
            if list(target.shape) != expected:
                raise RuntimeError(f"Expected target size {expected}, got {list(target.shape)}")
            raise NotImplementedError("autograd_lesson's nll_loss takes input of shape (N, C): "
                                      "move the class dim last and flatten the others")
        classes = x.shape[-1] if x.ndim == 1 else x.shape[1]
        if weight is not None and (weight.ndim != 1 or weight.numel() != classes):
            raise RuntimeError(f"weight tensor should be defined either for all {classes} "
                               f"classes or no classes but got weight tensor of shape: "
                               f"{list(weight.shape)}")
        if x._data.dtype.kind != "f":
            raise NotImplementedError(f'"nll_loss_out_frame" not implemented for '
                                      f"'{torch_name(x._data.dtype)}'")
        if target._data.dtype.kind not in "iu" or target._data.dtype not in (np.int64, np.uint8):
            raise RuntimeError(f"expected target dtype to be Long or Byte, but got "
                               f"{torch_name(target._data.dtype)}")
        if x.ndim != 2 or target.ndim != 1 or target.shape[0] != x.shape[0]:
            raise ValueError(f"Expected input batch_size ({x.shape[0] if x.ndim else 1}) to match "
                             f"target batch_size ({target.shape[0] if target.ndim else 1}).")
        if target._data.dtype.kind != "i":
            raise RuntimeError(f"expected scalar type Long but found {target._data.dtype}")
        if weight is not None and weight._data.dtype != x._data.dtype:
            raise RuntimeError(f"expected scalar type {torch_name(x._data.dtype)} but found "
                               f"{torch_name(weight._data.dtype)}")
        labels = target._data
        keep = labels != ignore_index
        bad = keep & ((labels < 0) | (labels >= x.shape[1]))
        if bad.any():  # PyTorch names the first bad target, in order
            raise IndexError(f"Target {int(labels[bad][0])} is out of bounds.")
        ctx.reduction, ctx.ignore_index, ctx.shape = _reduction(reduction), ignore_index, x.shape
        classes = np.where(keep, labels, 0)
        row_weight = keep if weight is None else weight._data[classes] * keep
        total = np.asarray(row_weight.sum() if ctx.reduction else 0, dtype=x._data.dtype)
        ctx.save("self", x)
        ctx.save("target", target)
        ctx.save("total_weight", Tensor._make(total))
        ctx.save("weight", weight)
        for name, v in (("ignore_index", ignore_index), ("reduction", ctx.reduction)):
            ctx.save_value(name, v)
        picked = -x._data[np.arange(len(labels)), classes] * row_weight
        if ctx.reduction == 1:
            return np.asarray(picked.sum() / total, dtype=x._data.dtype)
        return _reduce(picked.astype(x._data.dtype), ctx.reduction)

    def backward(ctx, grad):
        return _db.NllLossBackwardBackward0.apply(
            grad, ctx.saved("self"), ctx.saved("target"), ctx.saved("weight"),
            ctx.saved("total_weight"), ctx.reduction, ctx.ignore_index)
