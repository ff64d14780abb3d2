"""``nn.functional``: the ops behind the layers, recording the same nodes as PyTorch."""
import warnings

import numpy as np

from .._random import generator
from .._tensor import Tensor
from ..ops import elementwise as _ew, elementwise_scalar as _ew_scalar, indexing as _indexing
from ..ops import nnops as _nn
from ..ops.matmul import AddmmBackward0
from .._fp_errors import enter_fp_ignore, exit_fp_ignore
from .._surface import matmul as _mm
from .._surface.parser import parse, parsed
from .._surface.checks import broadcast_shape
from .._surface.promotion import torch_name

@parsed("linear")
def linear(input, weight, bias=None):
    """``input @ weight.T + bias``: ``TBackward0`` then ``AddmmBackward0`` for a 2-D input.

    The saved ``weight.t()`` is a view of the parameter (same storage, same version counter),
    which is why ``optimizer.step()`` makes a retained graph stale. As PyTorch's ``linear``:
    a contiguous input of another rank with a bias that is a row (one dim not 1) is flattened
    to 2-D around one ``addmm`` (``ViewBackward0`` both sides); otherwise ``matmul`` then
    ``add_(bias)``.
    """
    in_dims, w_dims = input._data.ndim, weight._data.ndim  # (both Tensors: checked above)
    if not in_dims or not w_dims:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are "
                           f"{in_dims}D and {w_dims}D")
    if w_dims > 2:
        weight.t()  # raises t()'s message, as PyTorch's linear does
    if in_dims == 2 and bias is not None:
        if isinstance(bias, Tensor):  # (what addmm's argument parser checks)
            token = enter_fp_ignore()  # (the two ops' error state, switched to once)
            try:
                return AddmmBackward0.apply(bias, input, weight.t())
            finally:
                exit_fp_ignore(token)
        return _mm.addmm(bias, input, weight.t())
    if (bias is not None and (bias.ndim == 1 or sum(s != 1 for s in bias.shape) == 1)
            and bias._data.flags.c_contiguous and input._data.flags.c_contiguous):
        lead = input.shape[:-1]  # PyTorch's _flatten_nd_linear
        out = _mm.addmm(bias, input.reshape(int(np.prod(lead)), input.shape[-1]), weight.t())
        return out.view(*lead, *weight.shape[:1 if weight.ndim == 2 else 0])
    out = _mm.matmul(input, weight.t())
    if bias is None:
        return out
    if broadcast_shape(out.shape, bias.shape) != out.shape:  # PyTorch adds the bias in place
        raise RuntimeError(f"output with shape {list(out.shape)} doesn't match the broadcast "
                           f"shape {list(broadcast_shape(out.shape, bias.shape))}")
    return out.add_(bias)


def relu(input, inplace=False):
    # (PyTorch's F.relu calls torch.relu or torch.relu_: their parser's TypeErrors)
    input = parse("relu_" if inplace else "relu", (input,), {})[1]["input"]
    return input.relu_() if inplace else input.relu()


def relu_(input):
    return input.relu_()


def leaky_relu(input, negative_slope=0.01, inplace=False):
    negative_slope = parse("leaky_relu_" if inplace else "leaky_relu", (input, negative_slope),
                           {})[1]["negative_slope"]
    if inplace:
        return input._inplace(lambda x: _ew.LeakyReluBackward1.apply(x, negative_slope))
    return _ew.LeakyReluBackward0.apply(input, negative_slope=negative_slope)


def tanh(input):
    return input.tanh()


def sigmoid(input):
    return input.sigmoid()


def _get_softmax_dim(name, ndim, stacklevel):
    """PyTorch's implicit dim for a softmax called without one, with its deprecation warning."""
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
                  f"to include dim=X as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    # (PyTorch's F.softmax: a method call, so an AttributeError; dtype passed only when given.
    # Its third parameter is _stacklevel: F.softmax(x, 0, torch.float64) computes in x's dtype)
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    return input.softmax(dim) if dtype is None else input.softmax(dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return input.log_softmax(dim) if dtype is None else input.log_softmax(dim, dtype=dtype)


def _check_dropout_p(p, error=ValueError, zero=0.0):
    """Dropout's probability check: Python's (F.dropout's and the Dropout module's) lets NaN
    through, which the kernel then refuses with the same words as a RuntimeError."""
    if p < zero or p > 1.0 or (error is RuntimeError and not 0.0 <= p <= 1.0):
        raise error(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability p and scale the rest by 1/(1-p).

    As on PyTorch's CPU path this is a ``MulBackward0`` that saves the scaled mask; in eval
    mode (or p=0) the input itself is returned, with no node.
    """
    _check_dropout_p(p)
    p = parse("dropout_" if inplace else "dropout", (input, p, training), {})[1]["p"]
    _check_dropout_p(p, RuntimeError)
    if not training or p == 0:
        return input
    keep = generator().random(input.shape) >= p
    scale = 0.0 if p == 1 else 1.0 / (1 - p)
    mask = Tensor._make((keep * scale).astype(input._data.dtype))
    return input.mul_(mask) if inplace else input * mask


# -- losses -----------------------------------------------------------------------------------

def _legacy_reduction(size_average, reduce):
    """PyTorch's ``_Reduction.legacy_get_string``: the old flags as a reduction, and its
    warning."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    reduction = "mean" if size_average and reduce else "sum" if reduce else "none"
    warnings.warn(f"size_average and reduce args will be deprecated, please use "
                  f"reduction='{reduction}' instead.", stacklevel=3)
    return reduction


def _reduction(size_average, reduce, reduction):
    """The reduction asked for, checked first as PyTorch's ``_Reduction.get_enum`` does."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    _nn._reduction(reduction)
    return reduction


def _unsupported_weights(fn, **weights):
    """Weights PyTorch saves on the loss's own node, which this package's ops do not take yet."""
    given = [name for name, w in weights.items() if w is not None]
    if given:
        raise NotImplementedError(f"autograd_lesson's {fn} does not take {' or '.join(given)} "
                                  f"yet: leave {'them' if len(given) > 1 else 'it'} None")


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """A target of another shape is broadcast against input, with PyTorch's warning (the mean
    is then over the broadcast shape). With ``weight``, as PyTorch's Python:
    ``sum((input - target)**2 * weight) / sum(weight)`` for the mean (PowBackward0,
    MulBackward0)."""
    given = input
    if input.size() != target.size():
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size "
                      f"({input.shape}). This will likely lead to incorrect results due to "
                      f"broadcasting. Please ensure they have the same size.", UserWarning,
                      stacklevel=2)
        shape = broadcast_shape(input.shape, target.shape)
        input = input if input.shape == shape else input.expand(shape)
        target = target if target.shape == shape else target.expand(shape)
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    if weight is None:
        return _nn.MseLossBackward0.apply(input, target, reduction=reduction)
    if weight.size() != given.size():
        raise ValueError("Weights and input must have the same size.")
    weighted = (input - target).pow(2) * weight
    if reduction not in _nn.REDUCTIONS:
        raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', "
                         f"'sum'.")
    if reduction == "none":
        return weighted
    return weighted.sum() / weight.sum() if reduction == "mean" else weighted.sum()


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    reduction = _reduction(size_average, reduce, reduction)
    target.size(), input.size()  # not tensors: PyTorch's AttributeError, before anything else
    if weight is not None:  # (PyTorch's Python expands it to the target's shape first)
        from .. import broadcast_shapes
        size = broadcast_shapes(target.size(), weight.size())  # (a list: no attribute 'size')
        weight = weight.expand(size)
    return _nn.BinaryCrossEntropyBackward0.apply(input, target, weight, reduction=reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    reduction = _reduction(size_average, reduce, reduction)
    target.size(), input.size()  # not tensors: PyTorch's AttributeError, before anything else
    parse("binary_cross_entropy_with_logits", (input, target, weight, pos_weight, 1), {})
    return _nn.BinaryCrossEntropyWithLogitsBackward0.apply(input, target, weight, pos_weight,
                                                           reduction=reduction)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    reduction = _reduction(size_average, reduce, reduction)
    ignore_index, = _check_loss_arguments("nll_loss_nd", input, target, weight, ignore_index)
    return _nn.NllLossBackward0.apply(input, target, weight, reduction=reduction,
                                      ignore_index=ignore_index)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """``nll_loss(log_softmax(input, class_dim), target)`` for class indices; a target shaped
    like the input holds class probabilities (``-sum(log_softmax * target)``, composite as in
    PyTorch); ``label_smoothing`` mixes in ``-sum(log_softmax, class_dim)``, PyTorch's nodes."""
    reduction = _reduction(size_average, reduce, reduction)
    ignore_index, label_smoothing = _check_loss_arguments(
        "cross_entropy_loss", input, target, weight, ignore_index, label_smoothing)
    class_dim = 0 if input.ndim == 1 else 1  # PyTorch's class dim (an unbatched input has one)
    if target.shape == input.shape:
        if target._data.dtype.kind != "f":
            raise RuntimeError(f"Expected floating point type for target with class "
                               f"probabilities, got {torch_name(target._data.dtype)}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _cross_entropy_probabilities(input, target, weight, reduction, label_smoothing,
                                            class_dim)
    if label_smoothing > 0.0:
        _check_label_smoothing(label_smoothing)
        return _cross_entropy_smoothed(input, target, weight, reduction, ignore_index,
                                       label_smoothing, class_dim)
    return nll_loss(log_softmax(input, class_dim), target, weight, reduction=reduction,
                    ignore_index=ignore_index)


def _check_loss_arguments(name, input, target, weight, ignore_index, *label_smoothing):
    """The parser's checks of ``nll_loss_nd``/``cross_entropy_loss``, after the reduction's:
    (ignore_index, label_smoothing) as it unpacks them (a 0-dim tensor's value)."""
    values = parse(name, (input, target, weight, 1, ignore_index, *label_smoothing), {})[1]
    return (values["ignore_index"],) + ((values["label_smoothing"],) if label_smoothing else ())


def _check_label_smoothing(label_smoothing):
    if label_smoothing > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing:g}")


def _cross_entropy_probabilities(input, target, weight, reduction, label_smoothing, class_dim):
    """-sum(log_softmax(input) * target [* weight]) over the class dim, then the reduction
    (the mean divides by the number of rows). The numbers are C++ Scalars in PyTorch's
    composite: ``MulBackward1``, ``AddBackward1``, ``DivBackward1``."""
    n_classes = input.shape[class_dim]
    if weight is not None and (weight.ndim != 1 or weight.numel() != n_classes):
        raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all "
                           f"{n_classes} classes or no classes but got weight tensor of shape: "
                           f"{list(weight.shape)}")
    log_p = log_softmax(input, class_dim)
    if label_smoothing > 0.0:
        _check_label_smoothing(label_smoothing)
        target = _ew_scalar.AddBackward1.apply(
            _ew_scalar.mul_scalar(target, 1 - label_smoothing), label_smoothing / n_classes)
    if weight is not None and input.ndim > 1:  # (viewed before the products, as PyTorch)
        weight = weight.view(*[n_classes if d == 1 else 1 for d in range(input.ndim)])
    terms = log_p * target if weight is None else log_p * target * weight
    if reduction == "none":
        return -terms.sum(class_dim)
    total = -terms.sum()
    if reduction == "sum":
        return total
    if not input.numel():
        return total.fill_(float("nan"))
    return _ew_scalar.div_scalar(total, input.numel() // n_classes)


def _cross_entropy_smoothed(input, target, weight, reduction, ignore_index, label_smoothing,
                            class_dim):
    """(1 - s) * nll_loss + s / C * smooth, smooth = -sum(log_softmax, class_dim) with the
    ignored rows zeroed in place (``MaskedFillBackward0``), reduced over the kept rows."""
    _unsupported_weights("cross_entropy with label_smoothing", weight=weight)
    log_p = log_softmax(input, class_dim)
    nll = nll_loss(log_p, target, reduction=reduction, ignore_index=ignore_index)
    ignored = target == ignore_index
    smooth = -log_p.sum(class_dim)
    smooth._inplace(lambda s: _indexing.MaskedFillBackward0.apply(s, ignored, 0.0))
    if reduction == "mean":
        smooth = smooth.sum() / (~ignored).sum()
    elif reduction == "sum":
        smooth = smooth.sum()
    return (_ew_scalar.mul_scalar(nll, 1 - label_smoothing)
            + _ew_scalar.mul_scalar(smooth, label_smoothing / input.shape[class_dim]))
