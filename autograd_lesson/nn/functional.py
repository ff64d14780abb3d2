"""``nn.functional``: the ops behind the layers, recording the same nodes as PyTorch."""
import warnings

import numpy as np

from .._random import generator
from .._tensor import Tensor
from ..ops import elementwise as _ew, matmul as _mm, nnops as _nn
from ..ops._util import broadcast_shape, tensor_arguments, torch_name


@tensor_arguments("linear", "input", "weight")
def linear(input, weight, bias=None):
    """``input @ weight.T + bias``: ``TBackward0`` then ``AddmmBackward0`` for a 2-D input.

    The saved ``weight.t()`` is a view of the parameter (same storage, same version counter),
    which is why ``optimizer.step()`` makes a retained graph stale. As PyTorch's ``linear``:
    a contiguous input of another rank with a bias that is a row (one dim not 1) is flattened
    to 2-D around one ``addmm`` (``ViewBackward0`` both sides); otherwise ``matmul`` then
    ``add_(bias)``.
    """
    if not input.ndim or not weight.ndim:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are "
                           f"{input.ndim}D and {weight.ndim}D")
    if weight.ndim > 2:
        weight.t()  # raises t()'s message, as PyTorch's linear does
    if input.ndim == 2 and bias is not None:
        if isinstance(bias, Tensor):  # (what addmm's argument parser checks)
            return _mm.AddmmBackward0.apply(bias, input, weight.t())
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


@tensor_arguments("relu", "input")
def relu(input, inplace=False):
    return input.relu_() if inplace else input.relu()


def relu_(input):
    return input.relu_()


@tensor_arguments("leaky_relu", "input")
def leaky_relu(input, negative_slope=0.01, inplace=False):
    if inplace:
        return input._inplace(lambda x: _ew.LeakyReluBackward1.apply(x, negative_slope))
    return _ew.LeakyReluBackward0.apply(input, negative_slope=negative_slope)


def tanh(input):
    return input.tanh()


def sigmoid(input):
    return input.sigmoid()


def softmax(input, dim, dtype=None):
    return input.softmax(dim, dtype=dtype)  # (PyTorch's F.softmax: a method call, so an AttributeError)


def log_softmax(input, dim, dtype=None):
    return input.log_softmax(dim, dtype=dtype)


def _check_dropout_p(p):
    """Dropout's probability check (F.dropout's and the Dropout module's)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


@tensor_arguments("dropout", "input")
def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability p and scale the rest by 1/(1-p).

    As on PyTorch's CPU path this is a ``MulBackward0`` that saves the scaled mask; in eval
    mode (or p=0) the input itself is returned, with no node.
    """
    _check_dropout_p(p)
    if not training or p == 0:
        return input
    keep = generator().random(input.shape) >= p
    scale = 0.0 if p == 1 else 1.0 / (1 - p)
    mask = Tensor._make((keep * scale).astype(input._data.dtype))
    return input.mul_(mask) if inplace else input * mask


def mse_loss(input, target, reduction="mean"):
    """A target of another shape is broadcast against input, with PyTorch's warning (the mean
    is then over the broadcast shape)."""
    if input.size() != target.size():
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size "
                      f"({input.shape}). This will likely lead to incorrect results due to "
                      f"broadcasting. Please ensure they have the same size.", UserWarning,
                      stacklevel=2)
        shape = broadcast_shape(input.shape, target.shape)
        input = input if input.shape == shape else input.expand(shape)
        target = target if target.shape == shape else target.expand(shape)
    return _nn.MseLossBackward0.apply(input, target, reduction=reduction)


def binary_cross_entropy(input, target, reduction="mean"):
    target.size(), input.size()  # not tensors: PyTorch's AttributeError, before anything else
    return _nn.BinaryCrossEntropyBackward0.apply(input, target, reduction=reduction)


def binary_cross_entropy_with_logits(input, target, reduction="mean"):
    target.size(), input.size()  # not tensors: PyTorch's AttributeError, before anything else
    return _nn.BinaryCrossEntropyWithLogitsBackward0.apply(input, target, reduction=reduction)


@tensor_arguments("nll_loss_nd", "input", "target")
def nll_loss(input, target, reduction="mean", ignore_index=-100):
    return _nn.NllLossBackward0.apply(input, target, reduction=reduction, ignore_index=ignore_index)


def cross_entropy(input, target, reduction="mean", ignore_index=-100):
    """``nll_loss(log_softmax(input, 1), target)``: class-index targets only."""
    for position, (name, value) in enumerate((("input", input), ("target", target)), 1):
        if not isinstance(value, Tensor):
            raise TypeError(f"cross_entropy_loss(): argument '{name}' (position {position}) must "
                            f"be Tensor, not {type(value).__name__}")
    if isinstance(target, Tensor) and target.shape == input.shape and target._data.dtype.kind != "f":
        # a target shaped like the input holds class probabilities, in PyTorch
        raise RuntimeError(f"Expected floating point type for target with class probabilities, "
                           f"got {torch_name(target._data.dtype)}")
    if not isinstance(target, Tensor) or (target._data.dtype.kind == "f" and target.shape == input.shape):
        raise NotImplementedError("autograd_lesson's cross_entropy takes class indices (an int64 "
                                  "tensor); class-probability targets are not supported")
    class_dim = 0 if input.ndim == 1 else 1  # PyTorch's class dim (an unbatched input has one)
    return nll_loss(log_softmax(input, class_dim), target, reduction=reduction,
                    ignore_index=ignore_index)
