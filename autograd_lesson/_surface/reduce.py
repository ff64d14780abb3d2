"""The reductions' entry points: ``sum``, ``mean``, ``max``/``min``, ``amax``/``amin``,
``argmax``/``argmin``, ``all``/``any``, ``var``/``std`` (and ``var_mean``/``std_mean``),
``aminmax``, ``median``/``nanmedian``, ``cumsum``, ``prod``, ``norm``: PyTorch's
overloads (``signatures.py``) parsed by ``parser.parse``, then a node of ``ops.reduce``. Each
takes ``(x, index, values)``: the overload's index in the table and its values by name.
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
from ..ops.statistics import (AminmaxBackward0, MedianBackward0, MedianBackward1,
                              NanmedianBackward0, NanmedianBackward1, StdMeanBackward0,
                              VarMeanBackward0)
from .checks import check_scalar, normalize_dims, wrap_dim
from .parser import check_no_out, parse
from .promotion import torch_name


MaxResult = namedtuple("max", ["values", "indices"])


MinResult = namedtuple("min", ["values", "indices"])
MedianResult = namedtuple("median", ["values", "indices"])
NanmedianResult = namedtuple("nanmedian", ["values", "indices"])
AminmaxResult = namedtuple("aminmax", ["min", "max"])


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
    values = parse("linalg_vector_norm", (x, ord, dim, keepdim), {"dtype": dtype})[1]
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


def _result_dtype(dtype, x):
    """The NumPy dtype a reduction's ``dtype=`` asks for (None: its own); an integer one
    cannot carry a gradient."""
    if dtype is None:
        return None
    dtype = numpy_dtype(dtype)
    if dtype.kind not in "fc" and x.requires_grad and _grad_mode._enabled:
        raise RuntimeError(f"Autograd not support dtype: {torch_name(dtype)}")
    return dtype


def sum(x, index, values):
    """``x.sum(*args, **kwargs)``: the whole tensor (SumBackward0), or over ``dim`` (SumBackward1,
    a dim of None too, as PyTorch)."""
    return _whole_or_dim(SumBackward0, SumBackward1, x, index, values)


def _whole_or_dim(whole, by_dim, x, index, values):
    """The parsed call ``x.op(dtype=)`` (overload 0: ``whole``) or ``x.op(dim, keepdim, dtype=)``
    (``by_dim``), the dtype checked against ``x`` as PyTorch does."""
    dtype = values["dtype"]
    if dtype is not None:
        dtype = _result_dtype(dtype, x)
    if not index:
        return whole.apply(x, dtype=dtype)
    return by_dim.apply(x, values["dim"], keepdim=values["keepdim"], dtype=dtype)


def mean(x, index, values):
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


def max(x, index, values):
    return _extreme(x, index, values, True)


def min(x, index, values):
    return _extreme(x, index, values, False)


def _extreme(x, index, values, largest):
    """``max()``/``min()``, ``max(other)`` (the elementwise ``maximum``) and ``max(dim,
    keepdim)`` (values and indices), as PyTorch's parser picks the overload (a Tensor
    ``other`` before an int ``dim``: ``max(tensor(1))`` is ``maximum``)."""
    if not index:
        return (MaxBackward1 if largest else MinBackward1).apply(x)
    if index == 1:
        from ..ops.elementwise import MaximumBackward0, MinimumBackward0
        return (MaximumBackward0 if largest else MinimumBackward0).apply(x, values["other"])
    dim, keepdim = values["dim"], values["keepdim"]
    if largest:
        return MaxResult(*MaxBackward0.apply(x, dim, keepdim=keepdim))
    return MinResult(*MinBackward0.apply(x, dim, keepdim=keepdim))


def amax(x, index, values):
    """``amax(dim=[], keepdim=False)``: ``dim`` an int or a sequence of ints (None: every dim)."""
    dim = values["dim"]
    return AmaxBackward0.apply(x, () if dim is None else dim, keepdim=values["keepdim"])


def amin(x, index, values):
    dim = values["dim"]
    return AminBackward0.apply(x, () if dim is None else dim, keepdim=values["keepdim"])


def argmax(x, index, values):
    return arg_reduce(x, values["dim"], values["keepdim"], "argmax")


def argmin(x, index, values):
    return arg_reduce(x, values["dim"], values["keepdim"], "argmin")


def arg_reduce(x, dim, keepdim, name):
    """``argmax``/``argmin``: the int64 index of the first largest/smallest element (nan
    counts as both), over ``dim`` or over the flattened tensor; not differentiable. With
    ``keepdim`` and no dim, every dim is kept as size 1. PyTorch's checks, in its order."""
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


# -- all, any ----------------------------------------------------------------------------------
def all_or_any(x, index, values, reduce):
    """``all``/``any`` over every dim or over ``dim`` (``dim=()`` reduces none: each element
    tested, unlike sum's); not differentiable. A bool result, uint8 for a uint8 input."""
    dim, keepdim = (values["dim"], values["keepdim"]) if index else (None, False)
    data = x._data
    if dim is None:
        out = reduce(data, keepdims=keepdim)
    else:
        dims = normalize_dims(dim, x.ndim)
        out = data != 0 if not dims else reduce(data, axis=_axes(dims, x), keepdims=keepdim)
    return Tensor._make(np.asarray(out, dtype=np.uint8 if data.dtype == np.uint8 else np.bool_))


def all_(x, index, values):
    return all_or_any(x, index, values, np.all)


def any_(x, index, values):
    return all_or_any(x, index, values, np.any)


# -- var, std ----------------------------------------------------------------------------------
def var_arguments(index, values):
    """``(dim, correction, keepdim)`` of a var/std call, from PyTorch's three overloads:
    ``(dim, unbiased, keepdim)`` (correction 1 or 0), ``(dim=None, *, correction=None,
    keepdim)`` and ``(unbiased)``. A correction is read as a double (an imaginary part
    refuses)."""
    if index == 2:
        return None, int(values["unbiased"]), False
    if index == 0:
        return values["dim"], int(values["unbiased"]), values["keepdim"]
    correction = values["correction"]
    if correction is not None:
        correction = check_scalar(correction, np.float64)
    return values["dim"], correction, values["keepdim"]


def var(x, index, values):
    return VarBackward0.apply(x, *var_arguments(index, values))


def std(x, index, values):
    return StdBackward0.apply(x, *var_arguments(index, values))


def var_mean(x, index, values):
    """``torch.var_mean``: (var, mean), var's three overloads; one node for both outputs."""
    return VarMeanBackward0.apply(x, *var_arguments(index, values))


def std_mean(x, index, values):
    return StdMeanBackward0.apply(x, *var_arguments(index, values))


def aminmax(x, index, values):
    """``aminmax(*, dim=None, keepdim=False)``: (min, max), over every dim or one."""
    return AminmaxResult(*AminmaxBackward0.apply(x, values["dim"], keepdim=values["keepdim"]))


def median(x, index, values):
    """``median()`` (the lower median; NaN if any) or ``median(dim, keepdim)`` (values and
    indices)."""
    if not index:
        return MedianBackward0.apply(x)
    return MedianResult(*MedianBackward1.apply(x, values["dim"], keepdim=values["keepdim"]))


def nanmedian(x, index, values):
    """``nanmedian()``/``nanmedian(dim, keepdim)``: median's, NaNs left out."""
    if not index:
        return NanmedianBackward0.apply(x)
    return NanmedianResult(*NanmedianBackward1.apply(x, values["dim"],
                                                     keepdim=values["keepdim"]))


def cumsum(x, index, values):
    """``x.cumsum(dim, *, dtype=None)``."""
    dtype = values["dtype"]
    return CumsumBackward0.apply(x, values["dim"],
                                 dtype=None if dtype is None else _result_dtype(dtype, x))


def prod(x, index, values):
    """``prod()`` or ``prod(dim, keepdim)`` (an int dim only, as PyTorch)."""
    return _whole_or_dim(ProdBackward0, ProdBackward1, x, index, values)
