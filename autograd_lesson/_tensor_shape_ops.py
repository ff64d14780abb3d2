"""Tensor's shape, view and indexing methods (``view``, ``reshape``, ``transpose``, ``x[key]``...):
one-liners that call the entry points in ``autograd_lesson._surface`` (``TensorOps`` inherits them).

Reached at call time through the ``ops`` and ``_surface`` packages, as ``_tensor_ops`` does.
"""
from . import _surface, ops as _ops

_MT_WARNED = [False]  # PyTorch's TORCH_WARN_ONCE, at this call site


_T_WARNED, _T_0D_WARNED = [False], [False]


_T_WARNING = ("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
              "deprecated and it will throw an error in a future release. Consider `x.mT` to "
              "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to "
              "reverse the dimensions of a tensor.")


# The hot shape methods take their usual arguments positionally (no tuple packed per call); any
# other call goes to PyTorch's parser with the arguments as given.
_NOT_GIVEN = object()


def _given(*values):
    return tuple(v for v in values if v is not _NOT_GIVEN)



class TensorShapeOps:
    __slots__ = ()

    def flip(self, *dims):
        if not dims:
            raise TypeError('flip() missing 1 required positional arguments: "dims"')
        return _surface.shape.flip(self, dims[0] if len(dims) == 1 and isinstance(
            dims[0], (tuple, list)) else dims)

    def masked_fill(self, mask, value):
        return _surface.indexing.masked_fill(self, mask, value)

    def masked_fill_(self, mask, value):
        return _surface.indexing.masked_fill_(self, mask, value)

    def gather(self, dim, index, *, sparse_grad=False):
        return _surface.indexing.gather(self, dim, index, sparse_grad)

    def index_select(self, dim, index):
        return _surface.indexing.index_select(self, dim, index)

    # shape ------------------------------------------------------------------------------------
    def index_put_(self, indices, values, accumulate=False):
        """``self[indices] = values`` (or ``+=`` with ``accumulate``) for a tuple of index
        tensors, in place: ``IndexPutBackward0``; a duplicate index's last write wins."""
        indices = _surface.indexing.index_put_indices("index_put_", self, indices, values,
                                                      accumulate)
        return _surface.indexing.index_put_(self, indices, values, accumulate, setitem=False)

    def index_put(self, indices, values, accumulate=False):
        return _surface.indexing.index_put(self, indices, values, accumulate)

    def reshape(self, *shape, **kwargs):
        shape = _surface.parser.int_list_argument(_surface.views.RESHAPE, "shape", self, shape,
                                                  kwargs)
        return _surface.views.reshape(self, shape)

    def view(self, *shape, **kwargs):
        """``view(*sizes)`` (a view, ``ViewBackward0``) or ``view(dtype)`` (the memory reread)."""
        shape = _surface.views.view_arguments(self, shape, kwargs)
        if type(shape) is not tuple:
            return _surface.views.view_dtype(self, shape)
        return _surface.views.view(self, shape)

    def flatten(self, *args, **kwargs):
        return _surface.views.FLATTEN.call(self, args, kwargs)

    def t(self):
        return _ops.views.TBackward0.apply(self)

    @property
    def T(self):
        """All dims reversed; PyTorch warns (once per process) of it on anything but a matrix."""
        if self._data.ndim != 2:
            if self._data.ndim:
                _surface.warn_once.warn_once(_T_WARNED, _T_WARNING)
            else:
                _surface.warn_once.warn_once(
                    _T_0D_WARNED, "Tensor.T is deprecated on 0-D tensors. This function is the "
                                  "identity in these cases.")
        return _ops.views.PermuteBackward0.apply(self, tuple(range(self.ndim - 1, -1, -1)))

    @property
    def mT(self):
        """The last two dims swapped (``transpose(-2, -1)``), for a matrix or a batch of them."""
        if not self.ndim:  # (PyTorch: deprecated, the identity; it warns once per process)
            _surface.warn_once.warn_once(_MT_WARNED, "Tensor.mT is deprecated on 0-D tensors. "
                                                     "This function is the identity in these cases.")
            return self
        if self.ndim < 2:
            raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. "
                               f"Got {self.ndim}-D tensor.")
        return _ops.views.TransposeBackward0.apply(self, -2, -1)

    def is_contiguous(self):
        return self._data.flags.c_contiguous

    def contiguous(self):
        """``self`` if its memory is in C order, else a copy (``CloneBackward0``), as PyTorch."""
        return self if self._data.flags.c_contiguous else _ops.shape.CloneBackward0.apply(self)

    def permute(self, *dims, **kwargs):
        return _ops.views.PermuteBackward0.apply(
            self,
            _surface.parser.int_list_argument(_surface.views.PERMUTE, "dims", self, dims, kwargs))

    def transpose(self, dim0=_NOT_GIVEN, dim1=_NOT_GIVEN, /, *args, **kwargs):
        if type(dim0) is int and type(dim1) is int and not args and not kwargs:
            return _ops.views.TransposeBackward0.apply(self, dim0, dim1)
        return _surface.views.TRANSPOSE.call(self, _given(dim0, dim1) + args, kwargs)

    def swapdims(self, *args, **kwargs):
        return _surface.views.SWAPDIMS.call(self, args, kwargs)

    def swapaxes(self, *args, **kwargs):
        return _surface.views.SWAPAXES.call(self, args, kwargs)

    def expand(self, *shape, **kwargs):
        return _ops.views.ExpandBackward0.apply(
            self,
            _surface.parser.int_list_argument(_surface.views.EXPAND, "size", self, shape, kwargs))

    def unsqueeze(self, dim=_NOT_GIVEN, /, *args, **kwargs):
        if type(dim) is int and not args and not kwargs:
            return _ops.views.UnsqueezeBackward0.apply(self, dim)
        return _surface.views.UNSQUEEZE.call(self, _given(dim) + args, kwargs)

    def squeeze(self, dim=_NOT_GIVEN, /, *args, **kwargs):
        """``squeeze()``, ``squeeze(d)`` or ``squeeze((d0, d1))`` / ``squeeze(d0, d1)``."""
        if not args and not kwargs:
            if dim is _NOT_GIVEN:
                return _ops.views.SqueezeBackward0.apply(self)
            if type(dim) is int:
                return _ops.views.SqueezeBackward1.apply(self, dim)
        return _surface.views.SQUEEZE.call(self, _given(dim) + args, kwargs)

    def select(self, *args, **kwargs):
        return _surface.views.SELECT.call(self, args, kwargs)

    def narrow(self, *args, **kwargs):
        return _surface.views.NARROW.call(self, args, kwargs)

    def chunk(self, *args, **kwargs):
        return _surface.views.CHUNK.call(self, args, kwargs)

    def split(self, split_size, dim=0):
        return _surface.views.split(self, split_size, dim)

    def unbind(self, *args, **kwargs):
        return _surface.views.UNBIND.call(self, args, kwargs)

    def repeat(self, *repeats, **kwargs):
        """``repeat(*repeats)``: ``RepeatBackward0``."""
        repeats = _surface.parser.int_list_argument(_surface.shape.REPEAT, "repeats", self, repeats,
                                                    kwargs)
        return _surface.shape.repeat(self, repeats)

    def tile(self, *dims, **kwargs):
        """``tile(*dims)``: ``repeat`` with dims padded by leading 1s (``RepeatBackward0``)."""
        return _surface.shape.tile(
            self,
            _surface.parser.int_list_argument(_surface.shape.TILE, "dims", self, dims, kwargs))

    def roll(self, *args, **kwargs):
        """``roll(shifts, dims=())``: ``RollBackward0``."""
        return _surface.shape.roll(self, *_surface.shape.roll_arguments(self, args, kwargs))

    def repeat_interleave(self, *args, **kwargs):
        """``repeat_interleave(repeats, dim=None, *, output_size=None)``, int repeats."""
        return _surface.shape.REPEAT_INTERLEAVE.call(self, args, kwargs)

    def movedim(self, *args, **kwargs):
        return _surface.views.MOVEDIM.call(self, args, kwargs)

    def moveaxis(self, *args, **kwargs):
        return _surface.views.MOVEAXIS.call(self, args, kwargs)

    def unflatten(self, dim, sizes):
        return _surface.views.unflatten_method(self, dim, sizes)

    def ravel(self, *args):
        if args:  # (PyTorch's method takes none, and says so as its C method does)
            raise TypeError(f"TensorBase.ravel() takes no arguments ({len(args)} given)")
        return _surface.views.ravel(self)

    def __getitem__(self, key):
        return _surface.indexing.index(self, key)
