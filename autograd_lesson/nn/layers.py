"""Layers and loss modules: thin Modules over ``nn.functional``."""
import math
import operator
from collections import OrderedDict
from itertools import islice

import numpy as np

from .._dtype import default_float, numpy_dtype
from .._factories import _check_device, _leaf, _shape, zeros
from .._fp_errors import enter_fp_ignore, exit_fp_ignore
from . import functional as F
from . import init
from .module import Module, Parameter, class_repr


def _empty(*size, dtype=None):
    """``torch.empty`` as the layers call it (zero-filled here: ``reset_parameters`` fills it),
    with the factories' size checks."""
    dtype = default_float() if dtype is None else numpy_dtype(dtype, "empty")
    return _leaf(np.zeros(_shape(size, "empty"), dtype=dtype), False)


class Linear(Module):
    """y = x W^T + b, W of shape (out, in); initialised U(-1/sqrt(in), 1/sqrt(in)) in place."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        _check_device(device)
        self.in_features, self.out_features = in_features, out_features
        self.weight = Parameter(_empty((out_features, in_features), dtype=dtype))
        if bias:
            self.bias = Parameter(_empty(out_features, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """PyTorch's: kaiming_uniform_(a=sqrt(5)), i.e. U(-1/sqrt(in), 1/sqrt(in)), for both."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class RNNCell(Module):
    """h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (or relu): returns the new hidden state.

    As PyTorch, the nonlinearity is checked when the cell runs, not when it is built."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        super().__init__()
        _check_device(device)
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        self.weight_ih = Parameter(_empty((hidden_size, input_size), dtype=dtype))
        self.weight_hh = Parameter(_empty((hidden_size, hidden_size), dtype=dtype))
        if bias:
            self.bias_ih = Parameter(_empty(hidden_size, dtype=dtype))
            self.bias_hh = Parameter(_empty(hidden_size, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.nonlinearity = nonlinearity
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
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

    def __call__(self, input, hx=None):
        self._check_call(input, hx)
        if type(self).forward is not RNNCell.forward or "forward" in self.__dict__:
            # (a subclass's forward, or one set on the instance, is user code)
            return super().__call__(input, hx)
        token = enter_fp_ignore()  # (the step's ops' error state, switched to once, not 4 times)
        try:
            return super().__call__(input, hx)
        finally:
            exit_fp_ignore(token)

    def _check_call(self, input, hx):
        """PyTorch's checks that ``forward`` (kept short: a lesson prints it) leaves out, in
        PyTorch's order: hidden dims, nonlinearity, input size, then (after forward's batch
        check) the hidden size. (Each shape read once: this runs at every step of a loop.)"""
        ndim = input.dim()  # (dim(), as PyTorch: a list says it has no attribute 'dim')
        if ndim not in (1, 2):
            return  # forward's own ValueError
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"RNNCell: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        shape, expected = input.shape, self.weight_ih.shape[1]
        if shape[-1] != expected:  # (ATen's check_rnn_cell_forward_input)
            raise RuntimeError(f"input has inconsistent input_size: got {shape[-1]} "
                               f"expected {expected}")
        if hx is not None:
            batch = shape[0] if ndim == 2 else 1
            hidden = hx.shape if ndim == 2 else (1, *hx.shape)
            if hidden[0] == batch and hidden[1] != self.hidden_size:
                raise RuntimeError(f"hidden0 has inconsistent hidden_size: got {hidden[1]}, "
                                   f"expected {self.hidden_size}")

    def extra_repr(self):
        return (f"{self.input_size}, {self.hidden_size}"
                + (f", bias={self.bias}" if self.bias is not True else "")
                + (f", nonlinearity={self.nonlinearity}" if self.nonlinearity != "tanh" else ""))


class Sequential(Module):
    """Apply modules in order; indexed, sliced, edited like a list (keys renumbered on delete)."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), module)

    def forward(self, input):
        for m in self:
            input = m(input)
        return input

    def _item_by_index(self, items, index):
        size, index = len(self), operator.index(index)
        if not -size <= index < size:
            raise IndexError(f"index {index} is out of range")
        return next(islice(items, index % size, None))

    def __getitem__(self, index):
        if isinstance(index, slice):
            return type(self)(OrderedDict(list(self._modules.items())[index]))
        return self._item_by_index(iter(self._modules.values()), index)

    def __setitem__(self, index, module):
        setattr(self, self._item_by_index(iter(self._modules), index), module)

    def __delitem__(self, index):
        keys = (list(self._modules)[index] if isinstance(index, slice)
                else [self._item_by_index(iter(self._modules), index)])
        for key in keys:
            delattr(self, key)
        self._modules = OrderedDict((str(i), m) for i, m in enumerate(self._modules.values()))

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def pop(self, key):
        value = self[key]
        del self[key]
        return value

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index, module):
        if not isinstance(module, Module):
            raise AssertionError("module should be of type: "
                                 "<class 'torch.nn.modules.module.Module'>")
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        index += n if index < 0 else 0
        for i in range(n, index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module
        return self

    def extend(self, sequential):
        for layer in sequential:
            self.append(layer)
        return self

    def __add__(self, other):
        _check_sequential(other)
        return Sequential().extend(self).extend(other)

    def __iadd__(self, other):
        _check_sequential(other)
        offset = len(self)
        for i, module in enumerate(other):
            self.add_module(str(i + offset), module)
        return self

    def __mul__(self, times):
        """The modules repeated (the same objects, as PyTorch)."""
        _check_factor(self, times)
        return Sequential(*list(self) * times)

    __rmul__ = __mul__

    def __imul__(self, times):
        _check_factor(self, times)
        for module in list(self) * (times - 1):
            self.append(module)
        return self


def _check_sequential(other):
    if not isinstance(other, Sequential):
        raise ValueError(f"add operator supports only objects of Sequential class, but "
                         f"{class_repr(other)} is given.")


def _check_factor(seq, times):
    if not isinstance(times, int):
        raise TypeError(f"unsupported operand type(s) for *: {class_repr(seq)} and "
                        f"{class_repr(times)}")
    if times <= 0:
        raise ValueError(f"Non-positive multiplication factor {times} for {class_repr(seq)}")


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
    """Returns its input; takes (and ignores) any arguments, as PyTorch's."""

    fn = staticmethod(lambda x: x)

    def __init__(self, *args, **kwargs):
        super().__init__()


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
        F._check_dropout_p(p, zero=0)  # (the module compares with 0, F.dropout with 0.0)
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
    """``reduction`` (or the legacy ``size_average``/``reduce`` flags, with their warning)."""

    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        self.reduction = (F._legacy_reduction(size_average, reduce)
                          if size_average is not None or reduce is not None else reduction)


class _WeightedLoss(_Loss):
    """A loss whose ``weight`` is a buffer (so in ``buffers()``, and in ``state_dict`` if set)."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class MSELoss(_Loss):
    def forward(self, input, target):
        return F.mse_loss(input, target, reduction=self.reduction)


class BCELoss(_WeightedLoss):
    def forward(self, input, target):
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean",
                 pos_weight=None):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):
        return F.binary_cross_entropy_with_logits(input, target, self.weight,
                                                  pos_weight=self.pos_weight,
                                                  reduction=self.reduction)


class NLLLoss(_WeightedLoss):
    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean", label_smoothing=0.0):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing

    def forward(self, input, target):
        return F.cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)
