"""The view ops' entry points: ``view``, ``reshape``, ``flatten``, ``squeeze``, ``split``...
check a call (its arguments parsed by the table's signatures), then apply a node of
``ops.views``.
"""
import math

import numpy as np

from .._tensor import Tensor
from ..ops.shape import CloneBackward0
from ..ops.views import (AliasBackward0, PermuteBackward0, ReshapeAliasBackward0, SliceBackward0,
                         SplitBackward0, SplitWithSizesBackward0, SqueezeBackward0,
                         SqueezeBackward1, SqueezeBackward2, TransposeBackward0, UnbindBackward0,
                         UnsafeViewBackward0, ViewBackward0)
from .checks import wrap_dim
from .parser import parse


def _infer_shape(shape, numel):
    """PyTorch's infer_size: ``shape`` (ints; one -1 is inferred) for ``numel`` elements."""
    shape = list(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else list(shape)
    infer = None
    for i, s in enumerate(shape):
        if s == -1:
            if infer is not None:
                raise RuntimeError("only one dimension can be inferred")
            infer = i
        elif s < 0:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape {shape}")
    known = int(math.prod(s for s in shape if s != -1)) if shape else 1  # np.prod: ~3 us
    if infer is not None and (known == numel or known and not numel % known):
        if not known:
            raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {shape} because "
                               f"the unspecified dimension size -1 can be any value and is "
                               f"ambiguous")
        shape[infer] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '{shape}' is invalid for input of size {numel}")
    return tuple(shape)


def reshape(x, *shape):
    """A view of a contiguous tensor (``view``), else a view where the strides allow one
    (``_reshape_alias``), else a copy then ``_unsafe_view``, as PyTorch decides. ``shape``:
    ints, or one tuple of them."""
    shape = _infer_shape(shape, x.numel())
    if x._data.flags.c_contiguous:
        return ViewBackward0.apply(x, shape)
    if _viewable(x._data, shape):
        return ReshapeAliasBackward0.apply(x, shape)
    return UnsafeViewBackward0.apply(CloneBackward0.apply(x), shape)


def _viewable(array, shape):
    try:
        array.reshape(shape, copy=False)
    except ValueError:
        return False
    return True


def view(x, *shape):
    return ViewBackward0.apply(x, _infer_shape(shape, x.numel()))


def _narrow(x, dim, start, length):
    if not x.ndim:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, x.ndim, "narrow")
    size = x.shape[d]
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], "
                         f"but got {start})")
    start = start % size if start < 0 else start
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return SliceBackward0.apply(x, dim, slice(start, start + length, 1))


def flatten(x, start_dim=0, end_dim=-1):
    """Dims ``start_dim`` to ``end_dim`` merged into one, as ``reshape`` (a view when the
    memory allows); ``x`` itself when that is one dim already, as PyTorch."""
    start = wrap_dim(start_dim, x.ndim)
    end = wrap_dim(end_dim, x.ndim)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if not x.ndim:
        return reshape(x, 1)
    if start == end:
        return x
    shape = x.shape
    return reshape(x, shape[:start] + (math.prod(shape[start:end + 1]),) + shape[end + 1:])


def squeeze(x, dim=None):
    """``squeeze()``, ``squeeze(d)`` or ``squeeze((d0, d1))``: each its own node, as PyTorch."""
    if dim is None:
        return SqueezeBackward0.apply(x)
    if type(dim) is tuple:
        return SqueezeBackward2.apply(x, dim)
    return SqueezeBackward1.apply(x, dim)


def narrow(x, dim, start, length):
    if isinstance(start, Tensor):  # (the overload that takes start as a tensor)
        if start.ndim or start._data.dtype.kind not in "iu":
            raise RuntimeError("start must be an 0-dim integral Tensor.")
        start = int(start._data)
    return _narrow(x, dim, start, length)


def transpose(x, dim0, dim1):
    return TransposeBackward0.apply(x, dim0, dim1)


def view_dtype(x, dtype):
    """``x.view(dtype)``: the same memory read as ``dtype`` (the last dim rescaled), PyTorch's
    checks in its order. Not differentiable: no graph, no ``requires_grad``; it shares x's
    storage and version counter (an in-place change of either shows in the other's version)."""
    from .._dtype import numpy_dtype, scalar_name
    target, a = np.dtype(numpy_dtype(dtype, "view")), x._data
    if target.itemsize != a.dtype.itemsize:
        what = f"{scalar_name(a.dtype)} as {scalar_name(target)} (different element sizes)"
        if not a.ndim:
            raise RuntimeError(f"self.dim() cannot be 0 to view {what}")
        if a.strides[-1] != a.itemsize and a.shape[-1] != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 to view {what}, but got "
                               f"{a.strides[-1] // a.itemsize}")
        if target.itemsize > a.itemsize and a.shape[-1] % (target.itemsize // a.itemsize):
            raise RuntimeError(f"self.size(-1) must be divisible by "
                               f"{target.itemsize // a.itemsize} to view {what}, but got "
                               f"{a.shape[-1]}")
    # (the same memory: its storage and version counter, as PyTorch's view(dtype) shares)
    return Tensor._make(a.view(target), storage=x._storage, version_counter=x._version_counter)


def chunk(x, chunks, dim=0):
    """``x.chunk(n, dim)``: ``split`` into pieces of ceil(size / n) along dim."""
    if not x.ndim:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = wrap_dim(dim, x.ndim)
    if not x.shape[d]:  # PyTorch keeps the number of (empty) chunks: split_with_sizes
        return split(x, [0] * chunks, dim)
    return split(x, -(-x.shape[d] // chunks), dim)


def split_arguments(x, split_size, dim):
    """``Tensor.split``'s choice (a Python function in PyTorch): an int (or what converts to
    one) goes to ``split``, anything else to ``split_with_sizes``, each parsed as PyTorch's
    function of that name; plain ints skip the parser."""
    if type(split_size) is int and type(dim) is int:
        return split_size, dim
    if isinstance(split_size, Tensor):
        try:
            split_size = int(split_size)
        except (TypeError, ValueError, RuntimeError):
            pass
    if isinstance(split_size, int):
        _, values = parse("split", (x, split_size, dim), {})
        return values["split_size"], values["dim"]
    _, values = parse("split_with_sizes", (x, split_size, dim), {})
    return list(values["split_sizes"]), values["dim"]


def split(x, split_size, dim=0):
    """``x.split(size, dim)`` (SplitBackward0) or ``x.split([sizes], dim)``
    (SplitWithSizesBackward0): views along dim."""
    split_size, dim = split_arguments(x, split_size, dim)
    if not x.ndim:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    if isinstance(split_size, (list, tuple)):
        d = wrap_dim(dim, x.ndim)
        if any(s < 0 for s in split_size):
            raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative "
                               f"entries, but got split_sizes={list(split_size)}")
        if sum(split_size) != x.shape[d]:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to "
                               f"{x.shape[d]} (input tensor's size at dimension {d}), but got "
                               f"split_sizes={list(split_size)}")
        out = SplitWithSizesBackward0.apply(x, split_size, dim)
        return out if isinstance(out, tuple) else (out,)
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got "
                           f"split_size={split_size}")
    if split_size == 0 and x.shape[wrap_dim(dim, x.ndim)]:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension "
                           f"size of {x.shape[wrap_dim(dim, x.ndim)]}")
    out = SplitBackward0.apply(x, split_size, dim)
    return out if isinstance(out, tuple) else (out,)


def unbind(x, dim=0):
    """``x.unbind(dim)``: the slices along dim, as views."""
    d = wrap_dim(dim, x.ndim)
    if not x.ndim:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if not x.shape[d]:
        return ()
    out = UnbindBackward0.apply(x, dim)
    return out if isinstance(out, tuple) else (out,)


# -- movedim, moveaxis (permute) -------------------------------------------------------------
def movedim(x, source, destination):
    """``x.movedim(source, destination)`` (ints, or lists of them; ``moveaxis`` alike): the
    dims in ``source`` moved to ``destination``, the others kept in order. PyTorch's
    ``permute`` (``PermuteBackward0``), or ``alias`` of a 0-dim tensor."""
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({src} dims) "
                           f"should contain the same number of dims as destination ({dst} dims)")
    wrapped_src = [wrap_dim(d, x.ndim) for d in src]
    wrapped_dst = [wrap_dim(d, x.ndim) for d in dst]
    if len(set(wrapped_src)) != len(src):
        raise RuntimeError(f"movedim: repeated dim in `source` ({src})")
    if len(set(wrapped_dst)) != len(dst):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({dst})")
    if not x.ndim:
        return AliasBackward0.apply(x)
    order = [None] * x.ndim
    for s, d in zip(wrapped_src, wrapped_dst):
        order[d] = s
    rest = iter(d for d in range(x.ndim) if d not in wrapped_src)
    return PermuteBackward0.apply(x, tuple(next(rest) if o is None else o for o in order))


# -- unflatten, ravel (view) -----------------------------------------------------------------
def unflatten(x, dim, sizes):
    """``x.unflatten(dim, sizes)``: dim split into ``sizes`` (one -1 inferred), a ``view``
    (``ViewBackward0``) as PyTorch's; its checks and messages."""
    d = wrap_dim(dim, x.ndim)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    if not x.ndim:
        raise RuntimeError(f"unflatten got an unexpected error:\nDimension specified as {d} "
                           f"but tensor has no dimensions")
    try:
        inferred = _infer_shape(tuple(sizes), x.shape[d])
    except RuntimeError as e:
        if "is invalid for input of size" not in str(e):
            raise RuntimeError(f"unflatten got an unexpected error:\n{e}") from None
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the "
                           f"size of dim {d} ({x.shape[d]}) in the input tensor") from None
    return ViewBackward0.apply(x, x.shape[:d] + inferred + x.shape[d + 1:])


def ravel(x):
    """``x.contiguous().view(-1)``, as PyTorch: a view of a contiguous x (``ViewBackward0``),
    else ``CloneBackward0`` then ``ViewBackward0`` (not reshape's ``_unsafe_view``)."""
    return ViewBackward0.apply(x.contiguous(), (x.numel(),))


def unflatten_method(x, dim, sizes):
    """``Tensor.unflatten``, a Python method in PyTorch: it refuses empty sizes itself."""
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    return unflatten(x, *parse("unflatten", (dim, sizes), {}, True)[1].values())
