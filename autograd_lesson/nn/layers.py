"""Layers and loss modules: thin Modules over ``nn.functional``."""
import math

import numpy as np

from .._dtype import default_float, numpy_dtype
from .._factories import _leaf, zeros
from . import functional as F
from . import init
from .module import Module, Parameter


def _empty(*shape, dtype=None):
    """``torch.empty`` as the layers call it (zero-filled here: ``reset_parameters`` fills it)."""
    dtype = default_float() if dtype is None else numpy_dtype(dtype, "empty")
    return _leaf(np.zeros(shape, dtype=dtype), False)


def _check_device(device):
    if device not in (None, "cpu"):
        raise RuntimeError(f"autograd_lesson runs on the CPU only, got device={device!r}")


class Linear(Module):
    """y = x W^T + b, W of shape (out, in); initialised U(-1/sqrt(in), 1/sqrt(in)) in place."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        _check_device(device)
        self.in_features, self.out_features = in_features, out_features
        self.weight = Parameter(_empty(out_features, in_features, dtype=dtype))
        self.bias = Parameter(_empty(out_features, dtype=dtype)) if bias else None
        if not bias:
            self.register_parameter("bias", None)
        bound = 1 / math.sqrt(in_features) if in_features else 0
        init.uniform_(self.weight, -bound, bound)
        if bias:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class RNNCell(Module):
    """h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh): returns the new hidden state only."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        super().__init__()
        _check_device(device)
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}. Select from 'tanh' or 'relu'.")
        self.input_size, self.hidden_size, self.nonlinearity = input_size, hidden_size, nonlinearity
        self.weight_ih = Parameter(_empty(hidden_size, input_size, dtype=dtype))
        self.weight_hh = Parameter(_empty(hidden_size, hidden_size, dtype=dtype))
        self.bias_ih = Parameter(_empty(hidden_size, dtype=dtype)) if bias else None
        self.bias_hh = Parameter(_empty(hidden_size, dtype=dtype)) if bias else None
        bound = 1 / math.sqrt(hidden_size) if hidden_size else 0
        for p in self.parameters():
            init.uniform_(p, -bound, bound)

    def forward(self, input, hx=None):
        if input.ndim not in (1, 2):
            raise ValueError(f"RNNCell: Expected input to be 1D or 2D, got {input.ndim}D instead")
        batched = input.ndim == 2
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = zeros(input.shape[0], self.hidden_size, dtype=input.dtype)
        elif not batched:
            hx = hx.unsqueeze(0)
        if input.shape[0] != hx.shape[0]:
            raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden0 batch "
                               f"size {hx.shape[0]}")
        gates = F.linear(hx, self.weight_hh, self.bias_hh) + F.linear(input, self.weight_ih, self.bias_ih)
        out = gates.tanh() if self.nonlinearity == "tanh" else gates.relu()
        return out if batched else out.squeeze(0)

    def extra_repr(self):
        return f"{self.input_size}, {self.hidden_size}"


class Sequential(Module):
    """Apply modules in order."""

    def __init__(self, *modules):
        super().__init__()
        for i, m in enumerate(modules):
            setattr(self, str(i), m)

    def forward(self, input):
        for m in self._modules.values():
            input = m(input)
        return input

    def __getitem__(self, index):
        items = list(self._modules.values())
        return Sequential(*items[index]) if isinstance(index, slice) else items[index]

    def __len__(self):
        return len(self._modules)

    def append(self, module):
        setattr(self, str(len(self._modules)), module)
        return self

    def __iter__(self):
        return iter(self._modules.values())


class _Activation(Module):
    fn = None

    def forward(self, input):
        return type(self).fn(input)


class ReLU(Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class Tanh(_Activation):
    fn = staticmethod(F.tanh)


class Sigmoid(_Activation):
    fn = staticmethod(F.sigmoid)


class Identity(_Activation):
    fn = staticmethod(lambda x: x)


class LeakyReLU(Module):
    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class Dropout(Module):
    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Flatten(Module):
    """``input.flatten(start_dim, end_dim)``; by default every dim but the batch dim."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class _Loss(Module):
    fn = None

    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = reduction

    def forward(self, input, target):
        return type(self).fn(input, target, reduction=self.reduction)


class MSELoss(_Loss):
    fn = staticmethod(F.mse_loss)


class BCELoss(_Loss):
    fn = staticmethod(F.binary_cross_entropy)


class BCEWithLogitsLoss(_Loss):
    fn = staticmethod(F.binary_cross_entropy_with_logits)


class CrossEntropyLoss(_Loss):
    fn = staticmethod(F.cross_entropy)
