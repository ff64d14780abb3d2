"""``TensorBase``: a NumPy array plus what autograd needs. Read this file first.

A tensor holds its values (``_data``, an ndarray) and the fields autograd reads:
- ``requires_grad``: record the ops applied to it (a leaf the user made, or any tensor that an op
  made from one that requires grad);
- ``grad_fn``: the node of the op that made it (None for a leaf), ``_output_nr`` which of that
  node's outputs it is; the graph is these nodes and their ``next_functions``;
- ``grad``: where a backward accumulates a leaf's gradient (through its ``AccumulateGrad`` node);
- its storage and **version counter**, shared with its views and ``detach()``: every in-place op
  bumps the counter, and a saved tensor checks it before a backward uses it.

Everything else a tensor does (metadata, conversions, in-place methods, indexing, the ops) is
PyTorch's surface: ``_surface/tensor.py``'s ``Tensor`` subclasses TensorBase (as ``torch.Tensor``
subclasses the C++ ``torch._C.TensorBase``) and registers itself here, so that the tensors the
core makes are Tensors (PyTorch's ``THPVariableClass``).
"""
import warnings
import weakref

from . import _grad_mode
from ._autograd_errors import NON_LEAF_GRAD_WARNING
from ._node import AccumulateGrad
from .extensions.tensor_hooks import TensorHooks


class Storage:
    """Identity of a block of memory: views and saved outputs share it; bytes count once.

    Memory allocated in inference mode belongs to *inference tensors*, and so do its views and
    detaches wherever they are made, as in PyTorch."""

    __slots__ = ("nbytes", "inference", "__weakref__")

    def __init__(self, nbytes):
        self.nbytes = nbytes
        self.inference = _grad_mode._inference


class VersionCounter:
    """Bumped by every in-place op; shared by a tensor, its views and its ``detach()``."""

    __slots__ = ("value",)

    def __init__(self, value=0):
        self.value = value


_new = object.__new__


class TensorBase(TensorHooks):
    """A multi-dimensional array that can record the ops applied to it."""

    # ``_st`` / ``_vc``: the Storage and VersionCounter, None until first read (most results
    # of an op, and nearly every gradient a backward computes, never need them): see
    # ``_storage`` and ``_version_counter``.
    __slots__ = ("_data", "_requires_grad", "_grad_fn", "_output_nr", "_st", "_vc", "_base",
                 "__weakref__", "__dict__")
    # Set on few tensors (leaves, views, hooked ones), so read from the class until then.
    _grad = None
    _attr_version = 0        # a view's version of its base when its grad_fn was made
    _creation_meta = False   # True for a view made under no_grad, "inference" in inference mode
    _retains_grad = False
    _hooks = None
    _accumulator_ref = None
    _multi_view = _custom_view = False  # how a view was made (see _surface/inplace.py's VIEW_KINDS)
    _first_storage = None    # the storage before a first ``x.data = y`` (see ``_storage``)
    _post_accumulate_grad_hooks = ()

    @classmethod
    def _make(cls, array, requires_grad=False, grad_fn=None, output_nr=0, storage=None,
              version_counter=None, base=None):
        t = object.__new__(cls)  # (no __init__ frame: this runs for every op)
        t._data = array
        t._requires_grad = requires_grad
        t._grad_fn = grad_fn
        t._output_nr = output_nr
        if storage is None and base is None and _grad_mode._inference:
            # (made now, not on first read: memory allocated in inference mode is inference's)
            storage = _new(Storage)
            storage.nbytes, storage.inference = array.nbytes, True
        t._st = storage
        t._vc = version_counter
        t._base = base
        if version_counter is not None and base is not None:
            t._attr_version = version_counter.value  # (a counter not made yet is at 0)
        return t

    @property
    def _storage(self):
        """The Storage, made on first read: a view's is its base's (as its base had it when
        the view was made), any other tensor's a new one (never an inference tensor's: those
        get theirs in ``_make``)."""
        storage = self._st
        if storage is None:
            base = self._base
            if base is not None:
                storage = base._first_storage or base._storage
            else:
                storage = _new(Storage)
                storage.nbytes, storage.inference = self._data.nbytes, False
            self._st = storage
        return storage

    @_storage.setter
    def _storage(self, storage):
        """A new storage (``x.data = y``, a module's cast); call it *before* replacing
        ``_data``. Views made before the first storage existed keep resolving to that one."""
        if self._base is None and self._first_storage is None:
            self._first_storage = self._storage
        self._st = storage

    @property
    def _version_counter(self):
        """The VersionCounter, made on first read (at 0); a view shares its base's."""
        counter = self._vc
        if counter is None:
            base = self._base
            if base is not None:
                counter = base._version_counter
            else:
                counter = _new(VersionCounter)
                counter.value = 0
            self._vc = counter
        return counter

    @property
    def grad_fn(self):
        """The node that made this tensor; a view whose base changed in place gets a fresh one."""
        if self._base is not None and self._attr_version != (self._vc or self._version_counter).value:
            self._regenerate_grad_fn()  # (rare: the surface's view rules, _surface/inplace.py)
        return self._grad_fn

    @grad_fn.setter
    def grad_fn(self, node):
        self._grad_fn = node

    def _is_view(self):
        return self._base is not None

    @property
    def is_leaf(self):
        return self.grad_fn is None

    @property
    def _version(self):
        if self._storage.inference and "_own_version" not in self.__dict__:
            raise RuntimeError(_grad_mode.INFERENCE_VERSION_ERROR)
        return self._version_counter.value

    @property
    def requires_grad(self):
        # A view requires grad whenever its base does (even one made before the base got history).
        return self._requires_grad or (self._base is not None and self._base._requires_grad)

    @requires_grad.setter
    def requires_grad(self, value):
        self._check_requires_grad_flag(value)  # (PyTorch's checks: _surface/checks.py)
        self._requires_grad = value

    @property
    def grad(self):
        # (PyTorch reads the stored grad_fn here: a stale view's does not regenerate, or raise)
        if self._grad is None and self._grad_fn is not None and not self._retains_grad:
            warnings.warn(NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            self._check_new_grad(value)  # (a Tensor of this dtype and size: _surface/checks.py)
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None

    @property
    def retains_grad(self):
        return self._retains_grad

    @property
    def data(self):
        """The values as a tensor outside autograd (a separate version counter, as in PyTorch)."""
        return self._alias()

    @data.setter
    def data(self, value):
        self._check_new_data(value)  # (PyTorch's set_data checks: _surface/tensor.py)
        self._storage = value._storage  # (first: a view made before keeps the old one)
        self._data = value._data

    def detach(self):
        """A tensor sharing this one's values and version counter, outside the graph."""
        return self._alias(self._version_counter)

    def _grad_accumulator(self):
        node = self._accumulator_ref() if self._accumulator_ref is not None else None
        if node is None:
            node = AccumulateGrad(self)
            node._input_metadata = ((self._data.shape, self._data.dtype),)
            self._accumulator_ref = weakref.ref(node)
        return node

    def _gradient_edge(self):
        fn = self.grad_fn if self._base is not None else self._grad_fn
        if fn is not None:
            return (fn, self._output_nr)
        if self._requires_grad:
            return (self._grad_accumulator(), 0)
        return (None, 0)


# The class tensors are made as, and its maker: the surface's Tensor, once it registers itself.
Tensor = make_tensor = None


def register_tensor_class(cls):
    global Tensor, make_tensor
    Tensor, make_tensor = cls, cls._make
