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
from ._grad_mode import (enable_grad, inference_mode, is_grad_enabled,
                         is_inference_mode_enabled, no_grad, set_grad_enabled)
from ._random import manual_seed
from ._tensor import Tensor
from ._tensor_base import Size
from ._tensor_ops import _OPERANDS
# (Tensor's methods reach these modules at call time)
from .ops import elementwise as _ew, shape as _shape_ops  # noqa: F401
from ._surface import inplace as _inplace, reduce as _reduce, shape as _sh, views as _views  # noqa: F401
from .ops.matmul import addmm, bmm, dot, matmul, mm, mv
from ._surface.indexing import index_put
from ._surface import parser as _parser, promotion as _promotion
from ._surface.warn_once import is_warn_always_enabled, set_warn_always
from ._surface.parser import tensor_arguments as _tensor_arguments
from . import _dtype as _dtype_module
from .ops import nnops as _nnops
from ._factories import (arange, device, as_tensor, eye, from_numpy, full, linspace, ones, ones_like,
                         rand, rand_like, randint, randn, randn_like, tensor, zeros, zeros_like)
from . import autograd, nn, optim, utils  # noqa: E402  (they need the ops above)

from ._dtype import (dtype, float16, half, float32, float, float64, double, complex32, chalf,
                     complex64, cfloat, complex128, cdouble, int8, int16, short, int32, int,
                     int64, long, uint8, uint16, uint32, uint64, bool, bfloat16, finfo, iinfo,
                     promote_types, get_default_dtype, set_default_dtype)



__version__ = "0.1.0"


@_tensor_arguments("exp", "input")
def exp(x):
    return x.exp()


@_tensor_arguments("log", "input")
def log(x):
    return x.log()


@_tensor_arguments("tanh", "input")
def tanh(x):
    return x.tanh()


@_tensor_arguments("sigmoid", "input")
def sigmoid(x):
    return x.sigmoid()


@_tensor_arguments("relu", "input")
def relu(x):
    return x.relu()


@_tensor_arguments("relu_", "input")
def relu_(x):
    return x.relu_()


@_tensor_arguments("sqrt", "input")
def sqrt(x):
    return x.sqrt()


@_tensor_arguments("abs", "input")
def abs(x):
    return x.abs()


def _operands(name, input, other):
    """``torch.add(input, other)`` and its kin take Tensors or numbers (PyTorch's parser errors
    name positions 1 and 2); a number ``input`` becomes a 0-dim tensor of the dtype the op
    computes in, as PyTorch wraps it."""
    for position, (param, value) in enumerate((("input", input), ("other", other)), 1):
        if not isinstance(value, _OPERANDS):
            raise TypeError(f"{name}(): argument '{param}' (position {position}) must be Tensor, "
                            f"not {_dtype_module.typename(value)}")
    if not isinstance(input, Tensor):  # (a bool stays one: ``sub(True, x)`` is refused)
        dtype = (_promotion.result_type(input, other) if isinstance(other, Tensor)
                 and not isinstance(input, (_bi.bool, _np.bool_)) else None)
        input = tensor(input, dtype=None if dtype is None else _dtype_module.from_numpy(dtype))
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


@_tensor_arguments("neg", "input")
def neg(x):
    return x.neg()


reshape = _views.RESHAPE.torch_function(
    lambda x, args, kwargs, function: x.reshape(
        _parser.int_list_argument(_views.RESHAPE, "shape", x, args, kwargs, True)))


flatten = _views.FLATTEN.function


transpose = _views.TRANSPOSE.function
swapdims = _views.SWAPDIMS.function
swapaxes = _views.SWAPAXES.function


@_tensor_arguments("t", "input")
def t(x):
    return x.t()


permute = _views.PERMUTE.torch_function(
    lambda x, args, kwargs, function: x.permute(
        _parser.int_list_argument(_views.PERMUTE, "dims", x, args, kwargs, True)))


squeeze = _views.SQUEEZE.function


unsqueeze = _views.UNSQUEEZE.function


select = _views.SELECT.function


narrow = _views.NARROW.function


def split(tensor, split_size_or_sections, dim=0):
    return tensor.split(split_size_or_sections, dim)


@_tensor_arguments("detach", "input")
def detach(x):
    return x.detach()


@_tensor_arguments("clone", "input")
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


sum = _reduce.SUM.torch_function(_reduce.sum)
mean = _reduce.MEAN.torch_function(_reduce.mean)
argmax = _reduce.ARGMAX.torch_function(_reduce.argmax)
argmin = _reduce.ARGMIN.torch_function(_reduce.argmin)
softmax = _nnops.SOFTMAX.torch_function(_nnops.softmax)
log_softmax = _nnops.LOG_SOFTMAX.torch_function(_nnops.log_softmax)


max = _reduce.MAX.torch_function(_reduce.max)
all = _reduce.ALL.torch_function(_reduce.all_)  # noqa: A001  (torch's names, shadowing the builtins)
any = _reduce.ANY.torch_function(_reduce.any_)  # noqa: A001


norm = _reduce.norm


def cat(*args, **kwargs):
    return _shape_ops.CatBackward0.apply(*_sh.tensor_list_arguments(_sh.CAT, args, kwargs))


def stack(*args, **kwargs):
    return _shape_ops.StackBackward0.apply(*_sh.tensor_list_arguments(_sh.STACK, args, kwargs))


def concat(*args, **kwargs):
    """``torch.concat``: an alias of ``cat`` (``CatBackward0``)."""
    return _shape_ops.CatBackward0.apply(*_sh.tensor_list_arguments(_sh.CONCAT, args, kwargs))


def concatenate(*args, **kwargs):
    """``torch.concatenate``: an alias of ``cat`` (``CatBackward0``)."""
    return _shape_ops.CatBackward0.apply(*_sh.tensor_list_arguments(_sh.CONCATENATE, args, kwargs))


hstack, vstack, dstack = _sh.hstack, _sh.vstack, _sh.dstack
tile = _sh.TILE.torch_function(
    lambda x, args, kwargs, function: _sh.tile(
        x, _parser.int_list_argument(_sh.TILE, "dims", x, args, kwargs, True)))
roll = _sh.ROLL.torch_function(
    lambda x, args, kwargs, function: _sh.roll(x, *_sh.roll_arguments(x, args, kwargs, True)))
unflatten = _views.UNFLATTEN.torch_function(
    lambda x, args, kwargs, function: _views.unflatten(
        x, *_views.unflatten_arguments(x, args, kwargs, True)))
repeat_interleave = _sh.REPEAT_INTERLEAVE.function
movedim = _views.MOVEDIM.function
moveaxis = _views.MOVEAXIS.function


@_tensor_arguments("ravel", "input")
def ravel(x):
    return _views.ravel(x)


chunk = _views.CHUNK.function


unbind = _views.UNBIND.function


@_tensor_arguments("is_floating_point", "input")
def is_floating_point(x):
    return x.is_floating_point()


def where(condition, x, y):
    return _ew.where(condition, x, y)


_RESULT_TYPE_SIGNATURES = ("Tensor tensor, Tensor other", "Number scalar, Tensor tensor",
                           "Tensor tensor, Number other", "Number scalar1, Number scalar2")


def result_type(tensor, other):
    """``torch.result_type``: the dtype an op of ``tensor`` and ``other`` (tensors or Python
    numbers) computes in, by PyTorch's promotion rules."""
    numbers = (Tensor, _bi.bool, _bi.int, _bi.float, _bi.complex)
    if not (isinstance(tensor, numbers) and isinstance(other, numbers)):
        raise _parser.invalid_arguments("result_type", (tensor, other), _RESULT_TYPE_SIGNATURES)
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
min = _reduce.MIN.torch_function(_reduce.min)
amax = _reduce.AMAX.torch_function(_reduce.amax)
amin = _reduce.AMIN.torch_function(_reduce.amin)


from ._surface.elementwise import maximum, minimum  # noqa: E402
from ._surface import indexing as _ix  # noqa: E402


@_tensor_arguments("square", "input")
def square(x):
    return x.square()


@_tensor_arguments("sin", "input")
def sin(x):
    return x.sin()


@_tensor_arguments("cos", "input")
def cos(x):
    return x.cos()


def _comparison(name):
    signatures = ("Tensor input, Tensor other, *, Tensor out = None",
                  "Tensor input, Number other, *, Tensor out = None")

    def compare(input, other):
        if not (isinstance(input, Tensor) and isinstance(other, _OPERANDS)):
            raise _parser.invalid_arguments(name, (input, other), signatures)
        return getattr(input, name)(other)
    compare.__name__ = compare.__qualname__ = name
    return compare


eq, ne, lt, le, gt, ge = (_comparison(_name) for _name in ("eq", "ne", "lt", "le", "gt", "ge"))


var = _reduce.VAR.torch_function(_reduce.var)
std = _reduce.STD.torch_function(_reduce.std)


from ._factories import empty, empty_like, full_like  # noqa: E402


prod = _reduce.PROD.torch_function(_reduce.prod)
cumsum = _reduce.CUMSUM.torch_function(_reduce.cumsum)


@_tensor_arguments("flip", "input")
def flip(x, dims):
    return _sh.flip(x, dims, _function=True)


@_tensor_arguments("masked_fill", "input")
def masked_fill(x, mask, value):
    return _ix.masked_fill(x, mask, value, _function=True)


@_tensor_arguments("gather", "input")
def gather(x, dim, index, *, sparse_grad=False):
    return _ix.gather(x, dim, index, sparse_grad, _function=True)


@_tensor_arguments("index_select", "input")
def index_select(x, dim, index):
    return _ix.index_select(x, dim, index, _function=True)


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
