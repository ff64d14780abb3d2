"""Entry points of the shape ops that copy: ``cat``/``stack`` and kin, ``copy_``, ``repeat``,
``tile``, ``roll``, ``repeat_interleave``: PyTorch's argument parsing, then a node of ``ops``.
"""

import numpy as np

from .._tensor import Tensor
from ..ops.shape import (CatBackward0, CloneBackward0, CopyBackwards, FlipBackward0, RepeatBackward0,
                         RollBackward0)
from ..ops.views import ExpandBackward0, UnsqueezeBackward0, ViewBackward0
from .checks import check_scalar, check_tensor_list, wrap_dim
from .parser import ArgParser, IntArguments, Overloads
from .views import flatten


def copy_from(x, src):
    if not isinstance(src, Tensor):
        src = Tensor._make(np.asarray(check_scalar(src, x._data.dtype), dtype=x._data.dtype))
    return CopyBackwards.apply(x, src)


CAT = ArgParser("cat", "Tensor[] tensors, int dim=0, *, Tensor? out=None")


STACK = ArgParser("stack", "Tensor[] tensors, int dim=0, *, Tensor? out=None")


CONCAT = ArgParser("concat", "Tensor[] tensors, int dim=0, *, Tensor? out=None")


CONCATENATE = ArgParser("concatenate", "Tensor[] tensors, int dim=0, *, Tensor? out=None")


def tensor_list_arguments(parser, args, kwargs):
    """``torch.cat``/``torch.stack``'s (tensors, dim): a list or tuple of tensors (its elements
    checked first, as PyTorch's parser does) and an int dim; a list with an int skips the
    parser."""
    if (not kwargs and 0 < len(args) < 3 and type(args[0]) in (list, tuple)
            and (len(args) == 1 or type(args[1]) is int)):
        return list(args[0]), args[1] if len(args) == 2 else 0
    tensors = args[0] if args else kwargs.get("tensors")
    if type(tensors) in (list, tuple):
        check_tensor_list(tensors)
    _, values = parser.parse(args, kwargs)
    return list(values["tensors"]), values["dim"]


def repeat(x, repeats):
    return RepeatBackward0.apply(x, tuple(repeats))


def tile(x, dims):
    """``x.tile(dims)``: ``repeat`` with dims padded by leading 1s to x's rank, as PyTorch
    (``RepeatBackward0``, no node of its own)."""
    dims = tuple(dims)
    return RepeatBackward0.apply(x, (1,) * (x.ndim - len(dims)) + dims)


REPEAT = ArgParser("repeat", "SymInt[] repeats")


TILE = Overloads("tile", ("SymInt[] dims",), ("Tensor input, SymInt[] dims",))


def roll(x, shifts, dims=None):
    return RollBackward0.apply(x, tuple(shifts), () if dims is None else tuple(dims))


ROLL = Overloads("roll", ("SymInt[1] shifts, int[1]? dims=[]",),
                 ("Tensor input, SymInt[1] shifts, int[1]? dims=[]",))


def roll_arguments(x, args, kwargs, function=False):
    """(shifts, dims) of ``x.roll(*args, **kwargs)``; plain ints skip the parser."""
    if not function and not kwargs and 0 < len(args) < 3 and all(type(a) is int for a in args):
        return (args[0],), args[1:]
    values = ROLL.parse(x, args, kwargs, function)[1]
    return values["shifts"], values["dims"]


# -- hstack, vstack, dstack: cat of atleast_1d/2d/3d -------------------------------------------
def _atleast_1d(t):
    return ViewBackward0.apply(t, (1,)) if not t.ndim else t


def _atleast_2d(t):
    if not t.ndim:
        return ViewBackward0.apply(t, (1, 1))
    return UnsqueezeBackward0.apply(t, 0) if t.ndim == 1 else t


def _atleast_3d(t):
    if not t.ndim:
        return ViewBackward0.apply(t, (1, 1, 1))
    if t.ndim == 1:
        return UnsqueezeBackward0.apply(UnsqueezeBackward0.apply(t, 0), -1)
    return UnsqueezeBackward0.apply(t, -1) if t.ndim == 2 else t


def _stacking(name, atleast, dim):
    """``torch.hstack``/``vstack``/``dstack``: ``cat`` of the tensors made at least 1-, 2- or
    3-dim (``ViewBackward0``/``UnsqueezeBackward0`` then ``CatBackward0``, as PyTorch)."""
    parser = ArgParser(name, "Tensor[] tensors, *, Tensor? out=None")

    def call(*args, **kwargs):
        if not kwargs and len(args) == 1 and type(args[0]) in (list, tuple):
            tensors = args[0]
            check_tensor_list(tensors)
        else:
            tensors = parser.parse(args, kwargs)[1]["tensors"]
        if not tensors:
            raise RuntimeError(f"{name} expects a non-empty TensorList")
        tensors = [atleast(t) for t in tensors]
        return CatBackward0.apply(tensors, dim(tensors))
    call.__name__ = call.__qualname__ = name
    return call


hstack = _stacking("hstack", _atleast_1d, lambda ts: 0 if ts[0].ndim == 1 else 1)


vstack = _stacking("vstack", _atleast_2d, lambda ts: 0)


dstack = _stacking("dstack", _atleast_3d, lambda ts: 2)


# -- repeat_interleave (int repeats) ------------------------------------------------------------
def repeat_interleave(x, repeats, dim=None, output_size=None):
    """``x.repeat_interleave(repeats, dim=None)`` for an int ``repeats``: each element repeated
    along dim (of the flattened x without one). PyTorch's composite, node by node: ``flatten``,
    ``UnsqueezeBackward0`` at dim + 1, ``ExpandBackward0`` there to repeats,
    ``CloneBackward0``, ``ViewBackward0`` merging the two dims; no node of its own."""
    if isinstance(repeats, Tensor):  # (PyTorch's other overload: an index_select)
        raise NotImplementedError("autograd_lesson's repeat_interleave takes int repeats only, "
                                  "not a tensor of them")
    source = x if dim is not None else flatten(x)
    d = wrap_dim(0 if dim is None else dim, x.ndim)  # (x's rank, as PyTorch: not the flattened)
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    source = UnsqueezeBackward0.apply(source, d + 1)
    shape = list(source.shape)
    shape[d + 1] = repeats
    source = ExpandBackward0.apply(source, tuple(shape))
    if output_size is not None and output_size != repeats * shape[d]:
        raise RuntimeError(f"repeat_interleave: Invalid output_size, expected "
                           f"{repeats * shape[d]} but got {output_size}")
    return flatten(CloneBackward0.apply(source), d, d + 1)


_INTERLEAVE = ("Tensor repeats, int? dim=None, *, SymInt? output_size=None",
               "SymInt repeats, int? dim=None, *, SymInt? output_size=None")


REPEAT_INTERLEAVE = IntArguments(
    "repeat_interleave", _INTERLEAVE,
    ("Tensor input, Tensor repeats, int? dim=None, *, SymInt? output_size=None",
     "Tensor repeats, *, SymInt? output_size=None",
     "Tensor input, SymInt repeats, int? dim=None, *, SymInt? output_size=None"),
    repeat_interleave)


def flip(x, dims, _function=False):
    """``flip(dims)`` (a tuple or list of ints; the method also takes ``flip(0, 1)``)."""
    if isinstance(dims, (int, np.integer)) or not isinstance(dims, (tuple, list)) or not all(
            isinstance(d, (int, np.integer)) and not isinstance(d, bool) for d in dims):
        from .._dtype import typename
        raise TypeError(f"flip(): argument 'dims' (position {2 if _function else 1}) must be "
                        f"tuple of ints, not {typename(dims)}")
    return FlipBackward0.apply(x, tuple(dims))
