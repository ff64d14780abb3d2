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


def _parse(name, args, kwargs):
    """``self.name(*args, **kwargs)``'s arguments after self, by the table's signatures."""
    return _surface.parser.parse(name, args, kwargs, True)[1]


class TensorShapeOps:
    __slots__ = ()

    def flip(self, *dims, **kwargs):
        return _ops.shape.FlipBackward0.apply(self, _parse("flip", dims, kwargs)["dims"])

    def masked_fill(self, *args, **kwargs):
        return _surface.indexing.masked_fill.method(self, *args, **kwargs)

    def masked_fill_(self, *args, **kwargs):
        return _surface.indexing.masked_fill_.method(self, *args, **kwargs)

    def gather(self, *args, **kwargs):
        return _surface.indexing.gather.method(self, *args, **kwargs)

    def index_select(self, *args, **kwargs):
        return _surface.indexing.index_select.method(self, *args, **kwargs)

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
        return _surface.views.reshape(self, _parse("reshape", shape, kwargs)["shape"])

    def view(self, *shape, **kwargs):
        """``view(*sizes)`` (a view, ``ViewBackward0``) or ``view(dtype)`` (the memory reread)."""
        index, values = _surface.parser.parse("view", shape, kwargs, True)
        if not index:
            return _surface.views.view_dtype(self, values["dtype"])
        return _surface.views.view(self, values["size"])

    def flatten(self, *args, **kwargs):
        return _surface.views.flatten(self, *_parse("flatten", args, kwargs).values())

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
        return _ops.views.PermuteBackward0.apply(self, _parse("permute", dims, kwargs)["dims"])

    def transpose(self, *args, **kwargs):
        return _ops.views.TransposeBackward0.apply(
            self, *_parse("transpose", args, kwargs).values())

    def swapdims(self, *args, **kwargs):
        return _ops.views.TransposeBackward0.apply(
            self, *_parse("swapdims", args, kwargs).values())

    def swapaxes(self, *args, **kwargs):
        return _ops.views.TransposeBackward0.apply(
            self, *_parse("swapaxes", args, kwargs).values())

    def expand(self, *shape, **kwargs):
        return _ops.views.ExpandBackward0.apply(self, _parse("expand", shape, kwargs)["size"])

    def unsqueeze(self, *args, **kwargs):
        return _ops.views.UnsqueezeBackward0.apply(self, _parse("unsqueeze", args, kwargs)["dim"])

    def squeeze(self, *args, **kwargs):
        """``squeeze()``, ``squeeze(d)`` or ``squeeze((d0, d1))`` / ``squeeze(d0, d1)``."""
        return _surface.views.squeeze(self, *_parse("squeeze", args, kwargs).values())

    def select(self, *args, **kwargs):
        return _ops.views.SelectBackward0.apply(self, *_parse("select", args, kwargs).values())

    def narrow(self, *args, **kwargs):
        return _surface.views.narrow(self, *_parse("narrow", args, kwargs).values())

    def chunk(self, *args, **kwargs):
        return _surface.views.chunk(self, *_parse("chunk", args, kwargs).values())

    def split(self, split_size, dim=0):
        return _surface.views.split(self, split_size, dim)

    def unbind(self, *args, **kwargs):
        return _surface.views.unbind(self, *_parse("unbind", args, kwargs).values())

    def repeat(self, *repeats, **kwargs):
        """``repeat(*repeats)``: ``RepeatBackward0``."""
        return _ops.shape.RepeatBackward0.apply(self, _parse("repeat", repeats, kwargs)["repeats"])

    def tile(self, *dims, **kwargs):
        """``tile(*dims)``: ``repeat`` with dims padded by leading 1s (``RepeatBackward0``)."""
        return _surface.shape.tile(self, _parse("tile", dims, kwargs)["dims"])

    def roll(self, *args, **kwargs):
        """``roll(shifts, dims=())``: ``RollBackward0``."""
        return _surface.shape.roll(self, *_parse("roll", args, kwargs).values())

    def repeat_interleave(self, *args, **kwargs):
        """``repeat_interleave(repeats, dim=None, *, output_size=None)``, int repeats."""
        return _surface.shape.repeat_interleave(
            self, *_parse("repeat_interleave", args, kwargs).values())

    def movedim(self, *args, **kwargs):
        return _surface.views.movedim(self, *_parse("movedim", args, kwargs).values())

    def moveaxis(self, *args, **kwargs):
        return _surface.views.movedim(self, *_parse("moveaxis", args, kwargs).values())

    def unflatten(self, dim, sizes):
        return _surface.views.unflatten_method(self, dim, sizes)

    def ravel(self, *args):
        if args:  # (PyTorch's method takes none, and says so as its C method does)
            raise TypeError(f"TensorBase.ravel() takes no arguments ({len(args)} given)")
        return _surface.views.ravel(self)

    def __getitem__(self, key):
        return _surface.indexing.index(self, key)
