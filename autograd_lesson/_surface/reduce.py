"""The reductions' entry points: ``sum``, ``mean``, ``max``/``min``, ``amax``/``amin``,
``argmax``/``argmin``, ``all``/``any``, ``var``/``std``, ``cumsum``, ``prod``, ``norm``: PyTorch's
overloads and argument parsing (the common calls skip the parser), then a node of ``ops.reduce``.
"""
import math
from collections import namedtuple

import numpy as np

from .. import _grad_mode
from .._dtype import numpy_dtype
from .._tensor import Tensor
from ..ops.reduce import (AmaxBackward0, AminBackward0, CumsumBackward0, LinalgVectorNormBackward0,
                          MaxBackward0, MaxBackward1, MeanBackward0, MeanBackward1, MinBackward0,
                          MinBackward1, ProdBackward0, ProdBackward1, StdBackward0, SumBackward0,
                          SumBackward1, VarBackward0, _axes)
from .checks import check_scalar, normalize_dims, wrap_dim
from .parser import (ArgParser, DIM_INT, DIM_INT_OR_NONE, DIM_LISTS, Overloads, check_no_out,
                     common_dim, common_dims)
from .promotion import torch_name


MaxResult = namedtuple("max", ["values", "indices"])


MinResult = namedtuple("min", ["values", "indices"])


VECTOR_NORM = ArgParser("linalg_vector_norm", "Tensor input, Scalar ord=2, int[1]? dim=None, "
                        "bool keepdim=False, *, ScalarType? dtype=None, Tensor? out=None")


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """``torch.norm``/``Tensor.norm`` as torch/functional.py dispatches them: a number p (None:
    2.0), or "fro" over at most two dims, is ``linalg.vector_norm``; any other string
    ``linalg.matrix_norm``, whose checks are PyTorch's (the nuclear norm is not implemented)."""
    if not isinstance(input, Tensor):
        raise AttributeError(f"'{type(input).__name__}' object has no attribute 'layout'")
    check_no_out(out)
    _dim = ([dim] if isinstance(dim, int) else dim) if dim is not None else None
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            return vector_norm(input, 2, _dim, keepdim, dtype)
        return _matrix_norm(input, p, list(range(input.ndim)) if _dim is None else _dim)
    return vector_norm(input, 2.0 if p is None else p, _dim, keepdim, dtype)


def vector_norm(x, ord=2, dim=None, keepdim=False, dtype=None):
    """``linalg.vector_norm`` as its parser takes the arguments torch.norm passes it (all
    positional but dtype), then PyTorch's checks in its order."""
    if not ((type(ord) is float or type(ord) is int and -2 ** 63 <= ord < 2 ** 63)
            and type(keepdim) is bool and dtype is None and (
            dim is None or type(dim) in (list, tuple) and all(type(d) is int for d in dim))):
        values = VECTOR_NORM.parse((x, ord, dim, keepdim), {"dtype": dtype})[1]
        ord, dim, dtype = values["ord"], values["dim"], values["dtype"]
    if x._data.dtype.kind not in "fc":
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {torch_name(x._data.dtype)}")
    if isinstance(ord, complex):
        raise RuntimeError("linalg.vector_norm: Expected a non-complex scalar as the order of "
                           "norm.")
    order = float(ord)
    if x.numel() == 0 and (order < 0 or order == math.inf):
        shown = ord if isinstance(ord, int) else f"{order:g}"
        if not dim:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {shown} norm on an empty "
                               f"tensor because the operation does not have an identity")
        for d in dim:
            if x.shape[wrap_dim(d, x.ndim)] == 0:
                raise RuntimeError(f"linalg.vector_norm cannot compute the {shown} norm on the "
                                   f"dimension {d}because this dimension is empty and the "
                                   f"operation does not have an identity")
    if dtype is not None:
        _check_norm_dtype(numpy_dtype(dtype), x._data.dtype, "linalg.vector_norm")
    return LinalgVectorNormBackward0.apply(x, ord=ord, dim=dim, keepdim=keepdim)


def _check_norm_dtype(dtype, self_dtype, name):
    """PyTorch's check_linalg_norm_dtype; a dtype other than the input's is not implemented."""
    if dtype.kind not in "fc":
        raise RuntimeError(f"{name}: dtype should be floating point or complex, but got "
                           f"{torch_name(dtype)}")
    complex_input = self_dtype.kind == "c"
    if complex_input != (dtype.kind == "c"):
        what = "complex" if complex_input else "real"
        raise RuntimeError(f"{name}: dtype should be {what} for {what} inputs, but got "
                           f"{torch_name(dtype)}")
    if np.promote_types(self_dtype, dtype) != dtype:
        raise RuntimeError(f"{name}: the dtype of the input ({torch_name(self_dtype)}) should be "
                           f"convertible without narrowing to the specified dtype "
                           f"({torch_name(dtype)})")
    if dtype != self_dtype:
        raise NotImplementedError(f"autograd_lesson computes a norm in its input's dtype "
                                  f"({torch_name(self_dtype)}): leave dtype= out")


def _matrix_norm(x, ord, dim):
    """``linalg.matrix_norm``'s checks, in PyTorch's order; the nuclear norm (and a Frobenius
    norm over more than two dims, which refuses) are not computed here."""
    if ord not in ("fro", "nuc"):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if x.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    if x._data.dtype.kind not in "fc":
        raise RuntimeError(f"linalg.matrix_norm: Expected a floating point or complex tensor as "
                           f"input. Got {torch_name(x._data.dtype)}")
    if len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got "
                           f"{' '.join(str(d) for d in dim)}")
    raise NotImplementedError("autograd_lesson has no nuclear norm (p='nuc')")


# PyTorch's overloads (method, function), for its argument parser
_DTYPE = "*, ScalarType? dtype=None"


_DIMS = "int[1]? dim, bool keepdim=False, " + _DTYPE


SUM = Overloads("sum", ("*, ScalarType? dtype=None", _DIMS),
                ("Tensor input, " + _DTYPE, f"Tensor input, {_DIMS}, Tensor? out=None"))


MEAN = Overloads("mean", (_DTYPE, _DIMS), (f"Tensor input, {_DTYPE}, Tensor? out=None",
                                           f"Tensor input, {_DIMS}, Tensor? out=None"))


PROD = Overloads("prod", (_DTYPE, "int dim, bool keepdim=False, " + _DTYPE),
                 ("Tensor input, " + _DTYPE,
                  f"Tensor input, int dim, bool keepdim=False, {_DTYPE}, Tensor? out=None"))


# (amax(None) reduces every dim, as amax([]))
AMAX, AMIN = (Overloads(name, ("int[1]? dim=[], bool keepdim=False",),
                        ("Tensor input, int[1]? dim=[], bool keepdim=False, *, Tensor? out=None",))
              for name in ("amax", "amin"))


ARGMAX, ARGMIN = (Overloads(name, ("int? dim=None, bool keepdim=False",),
                            ("Tensor input, int? dim=None, bool keepdim=False, *, Tensor? out=None",))
                  for name in ("argmax", "argmin"))


MAX, MIN = (Overloads(name, ("", "Tensor other", "int dim, bool keepdim=False"),
                      ("Tensor input, *, Tensor? out=None",
                       "Tensor input, Tensor other, *, Tensor? out=None",
                       "Tensor input, int dim, bool keepdim=False, *, Tensor[]? out=None"))
            for name in ("max", "min"))


CUMSUM = Overloads("cumsum", ("int dim, " + _DTYPE,),
                   (f"Tensor input, int dim, {_DTYPE}, Tensor? out=None",))


def _result_dtype(dtype, x):
    """The NumPy dtype a reduction's ``dtype=`` asks for (None: its own); an integer one
    cannot carry a gradient."""
    if dtype is None:
        return None
    dtype = numpy_dtype(dtype)
    if dtype.kind not in "fc" and x.requires_grad and _grad_mode._enabled:
        raise RuntimeError(f"Autograd not support dtype: {torch_name(dtype)}")
    return dtype


def sum(x, args=(), kwargs=None, function=False):
    """``x.sum(*args, **kwargs)``; ``torch.sum(x, *args, **kwargs)`` with ``function``."""
    if not args and not kwargs:
        return SumBackward0.apply(x)
    common = common_dims(args, kwargs)
    if common is not None:
        return SumBackward1.apply(x, common[0], keepdim=common[1])
    index, values = SUM.parse(x, args, kwargs, function)
    dtype = _result_dtype(values["dtype"], x)
    if not index:
        return SumBackward0.apply(x, dtype=dtype)
    # (a dim of None too: SumBackward1, as PyTorch)
    return SumBackward1.apply(x, values["dim"], keepdim=values["keepdim"], dtype=dtype)


def mean(x, args=(), kwargs=None, function=False):
    """``x.mean(*args, **kwargs)``; ``torch.mean(x, *args, **kwargs)`` with ``function``."""
    if not args and not kwargs:
        return MeanBackward0.apply(x)
    common = common_dims(args, kwargs)
    if common is not None:
        return MeanBackward1.apply(x, common[0], keepdim=common[1])
    index, values = MEAN.parse(x, args, kwargs, function)
    dtype = values["dtype"]
    if dtype is not None:
        dtype = numpy_dtype(dtype)
        if dtype.kind not in "fc":
            raise RuntimeError(f"mean(): could not infer output dtype. Optional dtype must be "
                               f"either a floating point or complex dtype. Got: "
                               f"{torch_name(dtype)}")
    if not index:
        return MeanBackward0.apply(x, dtype=dtype)
    return MeanBackward1.apply(x, values["dim"], keepdim=values["keepdim"], dtype=dtype)


def max(x, args=(), kwargs=None, function=False):
    return _extreme(x, args, kwargs, function, MAX)


def min(x, args=(), kwargs=None, function=False):
    return _extreme(x, args, kwargs, function, MIN)


def _extreme(x, args, kwargs, function, overloads):
    """``max()``/``min()``, ``max(dim, keepdim)`` (values and indices) and ``max(other)`` (the
    elementwise ``maximum``), as PyTorch's parser picks the overload (a Tensor ``other`` before
    an int ``dim``: ``max(tensor(1))`` is ``maximum``)."""
    if not args and not kwargs:
        return (MaxBackward1 if overloads is MAX else MinBackward1).apply(x)
    common = None if args and isinstance(args[0], Tensor) else common_dims(args, kwargs, DIM_INT)
    if common is not None:
        dim, keepdim = common
    else:
        index, values = overloads.parse(x, args, kwargs, function)
        if not index:
            return (MaxBackward1 if overloads is MAX else MinBackward1).apply(x)
        if index == 1:
            from ..ops.elementwise import MaximumBackward0, MinimumBackward0
            return (MaximumBackward0 if overloads is MAX else MinimumBackward0).apply(
                x, values["other"])
        dim, keepdim = values["dim"], values["keepdim"]
    if overloads is MAX:
        return MaxResult(*MaxBackward0.apply(x, dim, keepdim=keepdim))
    return MinResult(*MinBackward0.apply(x, dim, keepdim=keepdim))


def amax(x, args=(), kwargs=None, function=False):
    return _amax_or_amin(AmaxBackward0, AMAX, x, args, kwargs, function)


def amin(x, args=(), kwargs=None, function=False):
    return _amax_or_amin(AminBackward0, AMIN, x, args, kwargs, function)


def _amax_or_amin(op, overloads, x, args, kwargs, function):
    """``amax(dim=[], keepdim=False)``: ``dim`` an int or a sequence of ints (None: every dim)."""
    if not args and not kwargs:
        return op.apply(x, ())
    common = common_dims(args, kwargs, DIM_LISTS[:3])
    if common is None:
        _, values = overloads.parse(x, args, kwargs, function)
        common = (() if values["dim"] is None else values["dim"]), values["keepdim"]
    return op.apply(x, common[0], keepdim=common[1])


def arg_reduce(x, args, kwargs, function, overloads):
    """``argmax``/``argmin``: the int64 index of the first largest/smallest element (nan
    counts as both), over ``dim`` or over the flattened tensor; not differentiable. With
    ``keepdim`` and no dim, every dim is kept as size 1. PyTorch's checks, in its order."""
    name = overloads.name
    if not args and not kwargs:
        dim, keepdim = None, False
    else:
        common = common_dims(args, kwargs, DIM_INT_OR_NONE)
        if common is None:
            _, values = overloads.parse(x, args, kwargs, function)
            common = values["dim"], values["keepdim"]
        dim, keepdim = common
    if x._data.dtype.kind in "cb":
        raise RuntimeError(f"{name}(): does not support "
                           f"{'complex' if x._data.dtype.kind == 'c' else 'bool'} input")
    if dim is not None:
        dim = wrap_dim(dim, x.ndim)
    if not x.numel() and (dim is None or not x.ndim or not x.shape[dim]):
        raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() "
                         f"== 0." if dim is None else
                         f"{name}(): Expected reduction dim {dim} to have non-zero size.")
    find = np.argmax if name == "argmax" else np.argmin
    if dim is None or not x.ndim:
        index = np.asarray(find(x._data), dtype=np.int64)
        return Tensor._make(index.reshape((1,) * x.ndim) if keepdim else index)
    index = find(x._data, axis=dim)
    return Tensor._make(np.asarray(np.expand_dims(index, dim) if keepdim else index,
                                   dtype=np.int64))


def argmax(x, args=(), kwargs=None, function=False):
    return arg_reduce(x, args, kwargs, function, ARGMAX)


def argmin(x, args=(), kwargs=None, function=False):
    return arg_reduce(x, args, kwargs, function, ARGMIN)


# -- all, any ----------------------------------------------------------------------------------
ALL, ANY = (Overloads(name, ("", "int[1]? dim=None, bool keepdim=False",
                             "int dim, bool keepdim=False"),
                      ("Tensor input, *, Tensor? out=None",
                       "Tensor input, int[1]? dim=None, bool keepdim=False, *, Tensor? out=None",
                       "Tensor input, int dim, bool keepdim=False, *, Tensor? out=None"))
            for name in ("all", "any"))


def all_or_any(x, args, kwargs, function, overloads):
    """``all``/``any`` over every dim or over ``dim`` (``dim=()`` reduces none: each element
    tested, unlike sum's); not differentiable. A bool result, uint8 for a uint8 input."""
    if not args and not kwargs:
        dim, keepdim = None, False
    else:
        common = common_dims(args, kwargs)
        if common is None:
            index, values = overloads.parse(x, args, kwargs, function)
            common = (values["dim"], values["keepdim"]) if index else (None, False)
        dim, keepdim = common
    data, reduce = x._data, np.all if overloads is ALL else np.any
    if dim is None:
        out = reduce(data, keepdims=keepdim)
    else:
        dims = normalize_dims(dim, x.ndim)
        out = data != 0 if not dims else reduce(data, axis=_axes(dims, x), keepdims=keepdim)
    return Tensor._make(np.asarray(out, dtype=np.uint8 if data.dtype == np.uint8 else np.bool_))


def all_(x, args=(), kwargs=None, function=False):
    """``x.all(*args, **kwargs)``; ``torch.all(x, *args, **kwargs)`` with ``function``."""
    return all_or_any(x, args, kwargs, function, ALL)


def any_(x, args=(), kwargs=None, function=False):
    """``x.any(*args, **kwargs)``; ``torch.any(x, *args, **kwargs)`` with ``function``."""
    return all_or_any(x, args, kwargs, function, ANY)


# -- var, std ----------------------------------------------------------------------------------
_VAR_OVERLOADS = ("int[1]? dim, bool unbiased=True, bool keepdim=False",
                  "int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False",
                  "bool unbiased=True")


VAR, STD = (Overloads(name, _VAR_OVERLOADS,
                      ("Tensor input, " + _VAR_OVERLOADS[0] + ", *, Tensor? out=None",
                       "Tensor input, " + _VAR_OVERLOADS[1] + ", Tensor? out=None",
                       "Tensor input, " + _VAR_OVERLOADS[2]))
            for name in ("var", "std"))


def parse_var(overloads, x, args, kwargs, function):
    """``(dim, correction, keepdim)`` of a var/std call, from PyTorch's three overloads:
    ``(dim, unbiased, keepdim)`` (correction 1 or 0), ``(dim=None, *, correction=None,
    keepdim)`` and ``(unbiased)``. A correction is read as a double (an imaginary part
    refuses)."""
    if not kwargs and len(args) <= 1:  # (x.var(), x.var(dim): no parser)
        if not args:
            return None, None, False
        common = common_dims(args, kwargs)
        if common is not None:
            return common[0], 1, False
    index, values = overloads.parse(x, args, kwargs, function)
    if index == 2:
        return None, int(values["unbiased"]), False
    if index == 0:
        return values["dim"], int(values["unbiased"]), values["keepdim"]
    correction = values["correction"]
    if correction is not None:
        correction = check_scalar(correction, np.float64)
    return values["dim"], correction, values["keepdim"]


def var(x, args=(), kwargs=None, function=False):
    """``x.var(*args, **kwargs)``; ``torch.var(x, *args, **kwargs)`` with ``function``."""
    return VarBackward0.apply(x, *parse_var(VAR, x, args, kwargs, function))


def std(x, args=(), kwargs=None, function=False):
    """``x.std(*args, **kwargs)``; ``torch.std(x, *args, **kwargs)`` with ``function``."""
    return StdBackward0.apply(x, *parse_var(STD, x, args, kwargs, function))


def cumsum(x, args=(), kwargs=None, function=False):
    """``x.cumsum(dim, *, dtype=None)``; ``torch.cumsum(x, ...)`` with ``function``."""
    dim = common_dim(args, kwargs)
    if dim is not None:
        return CumsumBackward0.apply(x, dim)
    _, values = CUMSUM.parse(x, args, kwargs, function)
    return CumsumBackward0.apply(x, values["dim"], dtype=_result_dtype(values["dtype"], x))


def prod(x, args=(), kwargs=None, function=False):
    """``prod()`` or ``prod(dim, keepdim)`` (an int dim only, as PyTorch)."""
    if not args and not kwargs:
        return ProdBackward0.apply(x)
    common = common_dims(args, kwargs, DIM_INT)
    if common is not None:
        return ProdBackward1.apply(x, common[0], keepdim=common[1])
    index, values = PROD.parse(x, args, kwargs, function)
    dtype = _result_dtype(values["dtype"], x)
    if not index:
        return ProdBackward0.apply(x, dtype=dtype)
    return ProdBackward1.apply(x, values["dim"], keepdim=values["keepdim"], dtype=dtype)
