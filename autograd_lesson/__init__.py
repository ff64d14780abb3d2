"""autograd_lesson: a small NumPy autograd that frees and keeps saved buffers as PyTorch 2.13 does.

Lesson code reads like PyTorch code::

    import autograd_lesson as torch
    x = torch.randn(5, requires_grad=True)
    loss = (x * 2).sum()
    loss.backward()

Beyond PyTorch, for teaching: ``node.saved_buffers()`` lists a node's saved tensors and their
state, and ``autograd.graph.observe`` streams what the engine does during a backward.
"""
import builtins as _bi

import numpy as _np

from . import ops
from .extensions.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled, set_anomaly_enabled
from .extensions.saved_scalars import wrap_scalar as _wrap_scalar
from ._grad_mode import (enable_grad, inference_mode, is_grad_enabled,
                         is_inference_mode_enabled, no_grad, set_grad_enabled)
from ._random import manual_seed
from ._surface.tensor import Size, Tensor
from ._tensor_ops import _OPERANDS
# (Tensor's methods reach these modules at call time)
from .ops import elementwise as _ew, shape as _shape_ops  # noqa: F401
from ._surface import inplace as _inplace, reduce as _reduce, shape as _sh, views as _views  # noqa: F401
from ._surface.matmul import addmm, bmm, dot, matmul, mm, mv
from ._surface.indexing import index_put
from ._surface import promotion as _promotion
from ._surface.warn_once import is_warn_always_enabled, set_warn_always
from ._surface.parser import function as _function, parse as _parse, parsed as _parsed
from . import _dtype as _dtype_module
from ._surface import nn as _surface_nn
from ._factories import (arange, device, as_tensor, eye, from_numpy, full, linspace, ones, ones_like,
                         rand, rand_like, randint, randn, randn_like, tensor, zeros, zeros_like)
from . import autograd, nn, optim, utils  # noqa: E402  (they need the ops above)

from ._dtype import (dtype, float16, half, float32, float, float64, double, complex32, chalf,
                     complex64, cfloat, complex128, cdouble, int8, int16, short, int32, int,
                     int64, long, uint8, uint16, uint32, uint64, bool, bfloat16, finfo, iinfo,
                     promote_types, get_default_dtype, set_default_dtype)



__version__ = "0.1.0"


@_parsed("exp")
def exp(x):
    return x.exp()


@_parsed("log")
def log(x):
    return x.log()


@_parsed("tanh")
def tanh(x):
    return x.tanh()


@_parsed("sigmoid")
def sigmoid(x):
    return x.sigmoid()


@_parsed("relu")
def relu(x):
    return x.relu()


@_parsed("relu_")
def relu_(x):
    return x.relu_()


@_parsed("sqrt")
def sqrt(x):
    return x.sqrt()


@_parsed("abs")
def abs(x):
    return x.abs()


def _operands(name, input, other):
    """``torch.add(input, other)`` and its kin take Tensors or numbers (PyTorch's parser errors
    name positions 1 and 2); a number ``input`` beside a Tensor becomes a *wrapped number*, as
    PyTorch's parser makes it: a 0-dim int64/float64/complex128/bool tensor that promotes as a
    number (so ``torch.mul(2, x)`` saves ``_saved_self`` as int64 and computes in x's dtype)."""
    for position, (param, value) in enumerate((("input", input), ("other", other)), 1):
        if not isinstance(value, _OPERANDS):
            raise TypeError(f"{name}(): argument '{param}' (position {position}) must be Tensor, "
                            f"not {_dtype_module.typename(value)}")
    if not isinstance(input, Tensor) and isinstance(other, Tensor):  # (``sub(True, x)``: refused)
        input = _wrap_scalar(input.item() if isinstance(input, _np.generic) else input)
        input._wrapped_number = True
    elif not isinstance(input, Tensor):
        input = tensor(input)
    return input, other


def add(input, other, *, alpha=1):
    """``input + alpha * other``."""
    input, other = _operands("add", input, other)
    return input.add(other, alpha=alpha)


def sub(input, other, *, alpha=1):
    """``input - alpha * other``."""
    input, other = _operands("sub", input, other)
    return input.sub(other, alpha=alpha)


def mul(input, other):
    input, other = _operands("mul", input, other)
    return input.mul(other)


def div(input, other):
    input, other = _operands("div", input, other)
    return input.div(other)


@_parsed("neg")
def neg(x):
    return x.neg()


@_parsed("reshape")
def reshape(x, shape):
    return _views.reshape(x, shape)


flatten = _parsed("flatten")(_views.flatten)
transpose = _parsed("transpose")(_views.transpose)
swapdims = _parsed("swapdims")(_views.transpose)
swapaxes = _parsed("swapaxes")(_views.transpose)


@_parsed("t")
def t(x):
    return x.t()


@_parsed("permute")
def permute(x, dims):
    return ops.views.PermuteBackward0.apply(x, dims)


squeeze = _parsed("squeeze")(_views.squeeze)


@_parsed("unsqueeze")
def unsqueeze(x, dim):
    return ops.views.UnsqueezeBackward0.apply(x, dim)


@_parsed("select")
def select(x, dim, index):
    return ops.views.SelectBackward0.apply(x, dim, index)


narrow = _parsed("narrow")(_views.narrow)


def split(tensor, split_size_or_sections, dim=0):
    return tensor.split(split_size_or_sections, dim)


@_parsed("detach")
def detach(x):
    return x.detach()


@_parsed("clone")
def clone(x):
    return x.clone()


def broadcast_shapes(*shapes):
    """The shape tensors of these shapes broadcast to (``torch.broadcast_shapes``)."""
    shapes = [(s,) if isinstance(s, _bi.int) else s for s in shapes if s is not None]
    for shape in shapes:
        if not isinstance(shape, (tuple, list)):
            raise RuntimeError(f"Input shapes should be of type ints, a tuple of ints, or a list "
                               f"of ints, got {shape}")
    common = [1] * _bi.max((len(s) for s in shapes), default=0)
    for index, shape in enumerate(shapes):
        for d in range(-1, -1 - len(shape), -1):
            if shape[d] == common[d]:
                continue
            if common[d] == 1:
                if shape[d] < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[d] = shape[d]
            if shape[d] != 1 and common[d] != shape[d]:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {shape[d]} at "
                                   f"{d}! Mismatching argument at index {index} had {shape}; but "
                                   f"expected shape should be broadcastable to {common}")
    return Size(common)


def clamp(x, min=None, max=None):
    return x.clamp(min, max)


def pow(x, exponent):
    return x.pow(exponent)


sum = _function("sum", _reduce.sum)
mean = _function("mean", _reduce.mean)
argmax = _function("argmax", _reduce.argmax)
argmin = _function("argmin", _reduce.argmin)
softmax = _function("softmax", _surface_nn.softmax)
log_softmax = _function("log_softmax", _surface_nn.log_softmax)


max = _function("max", _reduce.max)
all = _function("all", _reduce.all_)  # noqa: A001  (torch's names, shadowing the builtins)
any = _function("any", _reduce.any_)  # noqa: A001


norm = _reduce.norm


def cat(*args, **kwargs):
    return _shape_ops.CatBackward0.apply(*_sh.tensor_list_arguments("cat", args, kwargs))


def stack(*args, **kwargs):
    return _shape_ops.StackBackward0.apply(*_sh.tensor_list_arguments("stack", args, kwargs))


def concat(*args, **kwargs):
    """``torch.concat``: an alias of ``cat`` (``CatBackward0``)."""
    return _shape_ops.CatBackward0.apply(*_sh.tensor_list_arguments("concat", args, kwargs))


def concatenate(*args, **kwargs):
    """``torch.concatenate``: an alias of ``cat`` (``CatBackward0``)."""
    return _shape_ops.CatBackward0.apply(*_sh.tensor_list_arguments("concatenate", args, kwargs))


hstack, vstack, dstack = _sh.hstack, _sh.vstack, _sh.dstack
tile = _parsed("tile")(_sh.tile)
roll = _parsed("roll")(_sh.roll)
unflatten = _parsed("unflatten")(_views.unflatten)
movedim = _parsed("movedim")(_views.movedim)
moveaxis = _parsed("moveaxis")(_views.movedim)


def repeat_interleave(*args, **kwargs):
    values = _parse("repeat_interleave", args, kwargs)[1]
    return _sh.repeat_interleave(values.pop("input", None), *values.values())


@_parsed("ravel")
def ravel(x):
    return _views.ravel(x)


chunk = _parsed("chunk")(_views.chunk)


unbind = _parsed("unbind")(_views.unbind)


@_parsed("is_floating_point")
def is_floating_point(x):
    return x.is_floating_point()


def where(condition, x, y):
    _parse("where", (condition, x, y), {})  # (PyTorch's TypeErrors; the numbers as given)
    return _ew.where(condition, x, y)


def result_type(tensor, other):
    """``torch.result_type``: the dtype an op of ``tensor`` and ``other`` (tensors or Python
    numbers) computes in, by PyTorch's promotion rules."""
    _parse("result_type", (tensor, other), {})
    return _dtype_module.from_numpy(_promotion.result_type(tensor, other))


def allclose(a, b, rtol=1e-05, atol=1e-08):
    return _np.allclose(a._data, b._data, rtol=rtol, atol=atol)


def equal(a, b):
    return a.shape == b.shape and _np.array_equal(a._data, b._data)


def is_tensor(obj):
    return isinstance(obj, Tensor)


def numel(x):
    return x.numel()


# -- issue 12: ops a learner reaches for (min, maximum, sin, comparisons ...) -------------------
min = _function("min", _reduce.min)
amax = _function("amax", _reduce.amax)
amin = _function("amin", _reduce.amin)


from ._surface.elementwise import maximum, minimum  # noqa: E402
from ._surface import indexing as _ix  # noqa: E402


@_parsed("square")
def square(x):
    return x.square()


@_parsed("sin")
def sin(x):
    return x.sin()


@_parsed("cos")
def cos(x):
    return x.cos()


def _comparison(name):
    def compare(input, other):
        _parse(name, (input, other), {})  # (PyTorch's TypeErrors; the number as given)
        return getattr(input, name)(other)
    compare.__name__ = compare.__qualname__ = name
    return compare


eq, ne, lt, le, gt, ge = (_comparison(_name) for _name in ("eq", "ne", "lt", "le", "gt", "ge"))


var = _function("var", _reduce.var)
std = _function("std", _reduce.std)
var_mean = _function("var_mean", _reduce.var_mean)
std_mean = _function("std_mean", _reduce.std_mean)
aminmax = _function("aminmax", _reduce.aminmax)
median = _function("median", _reduce.median)
nanmedian = _function("nanmedian", _reduce.nanmedian)


from ._factories import empty, empty_like, full_like  # noqa: E402


prod = _function("prod", _reduce.prod)
cumsum = _function("cumsum", _reduce.cumsum)


@_parsed("flip")
def flip(x, dims):
    return ops.shape.FlipBackward0.apply(x, dims)


masked_fill, gather, index_select = _ix.masked_fill, _ix.gather, _ix.index_select


__all__ = [
    "Tensor", "Size", "tensor", "as_tensor", "from_numpy", "zeros", "ones", "full", "randn",
    "rand", "randint", "zeros_like", "ones_like", "randn_like", "rand_like", "arange",
    "linspace", "eye", "manual_seed", "no_grad", "enable_grad", "set_grad_enabled",
    "is_grad_enabled", "inference_mode", "is_inference_mode_enabled", "is_anomaly_enabled",
    "is_anomaly_check_nan_enabled", "set_anomaly_enabled", "autograd", "nn", "optim",
    "utils", "float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8",
    "complex64", "complex128", "bool", "bfloat16", "dtype", "half", "float", "double", "cfloat",
    "cdouble", "short", "int", "long", "complex32", "chalf", "uint16", "uint32", "uint64", "chunk",
    "unbind", "is_floating_point", "device", "exp", "log", "tanh", "sigmoid", "relu", "relu_",
    "sqrt", "abs", "clamp", "pow", "sum", "mean", "max", "norm", "matmul", "mm", "mv", "dot",
    "bmm", "argmax", "argmin", "index_put", "set_warn_always", "is_warn_always_enabled", "addmm",
    "softmax", "log_softmax", "cat", "stack", "where", "allclose", "equal", "is_tensor", "numel",
    "finfo", "iinfo", "promote_types", "result_type", "get_default_dtype", "set_default_dtype",
    "add", "sub", "mul", "div", "neg", "reshape", "flatten", "transpose", "t", "permute",
    "squeeze", "unsqueeze", "select", "narrow", "split", "detach", "clone", "broadcast_shapes",
    "swapdims", "swapaxes",
]
__all__ += ["min", "amax", "amin", "maximum", "minimum", "square", "sin", "cos", "eq", "ne", "lt", "le", "gt", "ge",
            "masked_fill", "gather", "index_select", "var", "std", "empty", "empty_like",
            "full_like", "cumsum", "flip", "prod", "all", "any"]
__all__ += ["tile", "roll", "movedim", "moveaxis", "unflatten", "ravel", "concat", "concatenate",
            "hstack", "vstack", "dstack", "repeat_interleave"]
__all__ += ["var_mean", "std_mean", "aminmax", "median", "nanmedian"]
