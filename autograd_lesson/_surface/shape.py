"""Entry points of the shape ops that copy: ``cat``/``stack`` and kin, ``copy_``, ``repeat``,
``tile``, ``roll``, ``repeat_interleave``: arguments parsed by the table's signatures, then a
node of ``ops``.
"""

import numpy as np

from .._tensor import Tensor
from ..ops.shape import (CatBackward0, CloneBackward0, CopyBackwards, RepeatBackward0,
                         RollBackward0)
from ..ops.views import ExpandBackward0, UnsqueezeBackward0, ViewBackward0
from .checks import check_scalar, check_tensor_list, wrap_dim
from .parser import parse
from .views import flatten


def copy_from(x, src):
    if not isinstance(src, Tensor):
        src = Tensor._make(np.asarray(check_scalar(src, x._data.dtype), dtype=x._data.dtype))
    return CopyBackwards.apply(x, src)


def tensor_list_arguments(name, args, kwargs):
    """``torch.cat``/``torch.stack``'s (tensors, dim): a list or tuple of tensors (its elements
    checked first, as PyTorch's parser does) and an int dim."""
    tensors = args[0] if args else kwargs.get("tensors")
    if type(tensors) in (list, tuple):
        check_tensor_list(tensors)
    values = parse(name, args, kwargs)[1]
    return list(values["tensors"]), values["dim"]


def repeat(x, repeats):
    return RepeatBackward0.apply(x, tuple(repeats))


def tile(x, dims):
    """``x.tile(dims)``: ``repeat`` with dims padded by leading 1s to x's rank, as PyTorch
    (``RepeatBackward0``, no node of its own)."""
    dims = tuple(dims)
    return RepeatBackward0.apply(x, (1,) * (x.ndim - len(dims)) + dims)


def roll(x, shifts, dims=None):
    return RollBackward0.apply(x, tuple(shifts), () if dims is None else tuple(dims))


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
    def call(*args, **kwargs):
        tensors = args[0] if args else kwargs.get("tensors")
        if type(tensors) in (list, tuple):
            check_tensor_list(tensors)
        tensors = parse(name, args, kwargs)[1]["tensors"]
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
