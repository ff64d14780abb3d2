"""Tensor's PyTorch surface besides the ops: metadata (``shape``, ``stride``, ``dtype``),
conversions (``item``, ``numpy``, ``repr``), the in-place methods and ``x[key] = value``, and how
``torch.tensor`` reads its data. :class:`Tensor` subclasses the core's ``TensorBase``,
whose autograd fields it keeps (as PyTorch's ``torch.Tensor`` subclasses the C++
``torch._C.TensorBase``), and registers itself there: the core makes Tensors.
"""
import collections
import inspect
import math

import numpy as np

from .. import _dtype, _grad_mode, _surface, _tensor, ops as _ops
from .._autograd_errors import typename
from .._tensor import TensorBase
from .._tensor_ops import _OPERANDS, TensorOps, _alpha, _other

# PyTorch words the float-only check three ways: the attribute setter (``_tensor``),
# requires_grad_() and the factories' requires_grad=True argument.
FLOAT_ONLY_METHOD_ERROR = "only Tensors of floating point dtype can require gradients"
FLOAT_ONLY_FACTORY_ERROR = "Only Tensors of floating point and complex dtype can require gradients"


class Size(tuple):
    """A shape, printed like PyTorch's ``torch.Size([2, 3])``."""

    def __repr__(self):
        return f"torch.Size({list(self)})"

    def numel(self):
        return int(np.prod(self, dtype=np.int64))


def _infer_array(data, dtype=None):
    """``torch.tensor`` dtype inference: Python floats -> float32, ints -> int64, arrays keep theirs."""
    if isinstance(data, Tensor):
        array = data._data.copy()
    elif isinstance(data, (np.ndarray, np.generic)):  # NumPy scalars keep their dtype too
        array = np.array(data)
    else:
        if isinstance(data, (list, tuple)) and any(isinstance(v, Tensor) for v in _flatten(data)):
            data = _nested_values(data)
        array = np.array(data)
        if array.dtype in (np.uint64, np.float64, object) and any(
                type(v) is int and not -2 ** 63 <= v < 2 ** 63
                for v in (_flatten(data) if isinstance(data, (list, tuple)) else [data])):
            # an int past int64 (NumPy made the array uint64, float64 or object)
            if dtype is None or np.dtype(dtype).kind not in "fc":
                raise ValueError("Overflow when unpacking long long")
            array = np.array(data, dtype=np.float64)  # (PyTorch reads it as a double then)
        if array.dtype.kind in "US":
            raise TypeError("new(): invalid data type 'str'")
        if array.dtype.kind not in "fbiuc":
            raise TypeError(f"Could not infer dtype of {type(data).__name__}")
        if dtype is None:  # Python floats are float32 (the default), ints int64, complex64
            dtype = {"f": _dtype.default_float(), "c": _dtype.default_complex(),
                     "i": np.int64, "u": np.int64}.get(array.dtype.kind)
        elif array.size:
            _check_conversion(array, np.dtype(dtype))
    if dtype is not None:
        with np.errstate(over="ignore", invalid="ignore"):  # 1e40 is inf in float32, silently
            array = array.astype(dtype, copy=False)
    return array


def _check_conversion(values, dtype):
    """``torch.tensor(values, dtype=...)`` converts each Python number itself: to an integer
    type only in range (not nan), to a real type only without an imaginary part."""
    if values.dtype.kind == "c" and dtype.kind not in "cb":
        raise TypeError("must be real number, not complex")
    if dtype.kind in "iu" and values.dtype.kind in "fiu":
        if not _surface.checks.int_fits(values, dtype).all():  # (nan fits nothing)
            raise RuntimeError(f"value cannot be converted to type {dtype} without overflow")


def _flatten(seq):
    for v in seq:
        if isinstance(v, (list, tuple)):
            yield from _flatten(v)
        else:
            yield v


def _nested_values(seq):
    return [(_nested_values(v) if isinstance(v, (list, tuple))
             else v.item() if isinstance(v, Tensor) else v) for v in seq]


SCALAR_GRAD_WARNING = ("Converting a tensor with requires_grad=True to a scalar may lead to "
                       "unexpected behavior.\nConsider using tensor.detach() first.")
_SCALAR_GRAD_WARNED = [False]

_DELETION_ERRORS = {
    "data": "Deleting tensor data is not allowed. Delete tensor instead!",
    "requires_grad": "requires_grad must be a bool",
    "_grad_fn": "Deletion of _grad_fn not allowed. Detach tensor instead!",
    "_backward_hooks": "Deletion of _backwards_hooks not allowed!",
    "_post_accumulate_grad_hooks": "Deletion of _post_accumulate_grad_hooks not allowed!"}


class Tensor(TensorOps, TensorBase):
    """A multi-dimensional array that can record the ops applied to it: the core's
    TensorBase, with every method that is not autograd's (the ops' one-liners come from
    TensorOps)."""

    __slots__ = ()  # (the instance layout is TensorBase's)
    _wrapped_number = False  # a number PyTorch wrapped (torch.mul(2, x)): promotes as a number

    def __init__(self, data=(), *, requires_grad=False):
        array = np.asarray(data._data if isinstance(data, Tensor) else data,
                           dtype=_dtype.default_float())
        self._become(Tensor._make(array))
        self.requires_grad = requires_grad

    def _become(self, other):
        """Take ``other``'s autograd state (``Tensor(data)``: a fresh leaf, as ``_make`` builds)."""
        for name in ("_data", "_requires_grad", "_grad_fn", "_output_nr", "_st", "_vc", "_base"):
            setattr(self, name, getattr(other, name))

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """``torch.autograd.backward(self, ...)``: the engine (``_engine.py``) runs the graph."""
        from ..autograd import backward
        backward(self, gradient, retain_graph=retain_graph, create_graph=create_graph,
                 inputs=inputs, _from_tensor_method=True)

    __array_priority__ = 1000  # NumPy defers to our reflected operators (np.float64(2) * t)
    # Set on few tensors (leaves, views, hooked ones), so read from the class until then.

    @property
    def shape(self):
        return Size(self._data.shape)

    def size(self, dim=None):
        return self.shape if dim is None else self.shape[self._dim_index("size", dim)]

    def stride(self, dim=None):
        """Steps in elements between neighbours along each dim (0 along an expanded one).
        NumPy keeps no strides for an empty array: it gets the C-ordered ones PyTorch gives a
        new empty tensor (a view of one, such as ``.t()``, may differ from PyTorch's)."""
        if self._data.size:
            itemsize = self._data.itemsize  # (a list, not a generator: every mm saves these)
            strides = tuple([s // itemsize for s in self._data.strides])
        else:
            strides = tuple(math.prod(max(n, 1) for n in self.shape[i + 1:])
                            for i in range(self.ndim))
        return strides if dim is None else strides[self._dim_index("stride", dim)]

    def _dim_index(self, method, dim):
        if not self.ndim and isinstance(dim, (int, np.integer)) and not isinstance(dim, bool):
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        return _surface.checks.wrap_dim(dim, self.ndim, method)

    @property
    def dtype(self):
        """The package's ``torch.dtype`` object; the ops read the NumPy one, ``_data.dtype``."""
        return _dtype.FROM_NUMPY.get(self._data.dtype) or self._data.dtype

    @property
    def ndim(self):
        return self._data.ndim

    def dim(self):
        return self._data.ndim

    def numel(self):
        return int(self._data.size)

    def nelement(self):
        return int(self._data.size)

    def data_ptr(self):
        """Address of the first element: equal for tensors that share memory, as in PyTorch."""
        return self._data.__array_interface__["data"][0]

    def element_size(self):
        return self._data.itemsize

    @property
    def nbytes(self):
        return self._data.nbytes

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    @property
    def output_nr(self):
        """Which output of its ``grad_fn`` this tensor is (0 for a leaf). PyTorch reads the stored
        field: a view whose base changed in place keeps its number until ``grad_fn`` is read,
        and an output that was not recorded (no grad, no_grad mode) is output 0."""
        return self._output_nr if self._grad_fn is not None else 0

    def is_inference(self):
        """True for tensors made in ``inference_mode`` and their views: autograd can't save them."""
        return self._storage.inference

    # The checks behind Tensor's autograd fields (``_tensor.py`` calls these): PyTorch's surface.
    def _check_requires_grad_flag(self, value):
        _surface.checks.check_requires_grad_flag(self, value)

    def _check_new_grad(self, value):
        _surface.checks.check_new_grad(self, value)

    def _regenerate_grad_fn(self):
        """A view whose base changed in place gets a fresh grad_fn (PyTorch's view rules)."""
        from .inplace import regenerate_view_fn
        regenerate_view_fn(self)

    def requires_grad_(self, *args, **kwargs):
        requires_grad = _surface.parser.parse("requires_grad_", args, kwargs, True)[1][
            "requires_grad"]
        # PyTorch's C++ is_leaf() reads the stored grad_fn: a view whose base changed in place
        # is neither regenerated nor refused here, as it is by the is_leaf property
        leaf = self._grad_fn is None
        if not leaf and not requires_grad:
            raise RuntimeError(_surface.checks.REQUIRES_GRAD_LEAF_ERROR
                               + _surface.checks.REQUIRES_GRAD_DETACH_HINT)
        if requires_grad:
            _surface.checks.check_requires_grad(self._data.dtype, FLOAT_ONLY_METHOD_ERROR)
        if leaf:
            self.requires_grad = requires_grad
        return self

    def item(self):
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        return self._data.reshape(()).item()

    def tolist(self):
        return self._data.tolist()

    def numpy(self, *, force=False):
        """The array itself (shared memory); refused while grad mode records this tensor."""
        if not force and self.requires_grad and _grad_mode._enabled:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        return self._data

    def __array__(self, dtype=None):
        """``np.asarray(t)``, ``np.array([t1, t2])``, matplotlib: the values, as ``numpy()`` gives
        (or refuses) them. PyTorch's signature, with no NumPy 2 ``copy=``: NumPy warns alike."""
        return self.numpy() if dtype is None else self.numpy().astype(dtype, copy=False)

    def __array_wrap__(self, array):
        """A NumPy function of a tensor (``np.exp(t)``) gives a tensor; a bool one as uint8, as
        PyTorch's."""
        from .._factories import from_numpy
        return from_numpy(array.astype("uint8") if array.dtype == bool else array)

    def __float__(self):
        value = self._python_scalar(warn=True)
        if isinstance(value, complex):
            raise RuntimeError("value cannot be converted to type double without overflow")
        return float(value)

    def __complex__(self):
        return complex(self._python_scalar(warn=True))

    def __int__(self):
        value = self._python_scalar()
        if isinstance(value, complex):
            raise RuntimeError("value cannot be converted to type int64_t without overflow")
        return int(value)

    def _python_scalar(self, warn=False):
        """The one element, for ``float(t)``, ``int(t)``, ``complex(t)`` (PyTorch's checks)."""
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        if warn and self.requires_grad:
            _surface.warn_once.warn_once(_SCALAR_GRAD_WARNED, SCALAR_GRAD_WARNING, stacklevel=3)
        return self._data.reshape(()).item()

    def __format__(self, format_spec):
        """A 0-dim tensor formats as its number (``f"{loss:.3f}"``), as PyTorch."""
        if not self._data.ndim and type(self) is Tensor:
            return self.item().__format__(format_spec)
        return object.__format__(self, format_spec)

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._data.reshape(()).item())

    def __index__(self):
        """One integer element (bool counts, as PyTorch's isIntegralType(..., includeBool))."""
        if self._data.dtype.kind not in "biu" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    __hash__ = object.__hash__

    def __repr__(self):
        from .._format import format_tensor
        return format_tensor(self)

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __copy__(self):
        """``copy.copy(t)`` (matplotlib copies what it plots): what PyTorch's pickling protocol
        rebuilds, a leaf on the same memory that requires grad as this one does, no grad_fn."""
        return self._make(self._data, self.requires_grad)

    def __reduce_ex__(self, protocol):
        raise TypeError("autograd_lesson tensors cannot be pickled; use .detach().numpy()")

    def _inplace(self, compute, *others, **options):  # (options: see _surface.inplace.apply)
        return _surface.inplace.apply(self, compute, others, **options)

    @property
    def device(self):
        from .._factories import device
        return device("cpu")

    @property
    def is_cuda(self):
        return False

    def cpu(self):
        return self

    def _bump_version(self):
        """After an in-place kernel wrote the values: PyTorch's version bump, which refuses an
        inference tensor outside inference mode (too late to keep the values), and bumps
        nothing for one inside it."""
        if self._storage.inference and "_own_version" not in self.__dict__:
            if not _grad_mode._inference:
                raise RuntimeError(_grad_mode.INFERENCE_INPLACE_ERROR)
        elif not (self._storage.inference and _grad_mode._inference):
            self._version_counter.value += 1

    def _check_new_data(self, value):
        """PyTorch's ``set_data`` checks (``x.data = value``); a tensor with a version counter
        keeps it, even when its new memory is an inference tensor's."""
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {typename(value)}")
        if self.requires_grad and value._data.dtype.kind not in "fc":
            raise RuntimeError("data set to a tensor that requires gradients must be floating "
                               "point or complex dtype")
        if value._storage.inference and not (self._storage.inference
                                             and "_own_version" not in self.__dict__):
            self.__dict__["_own_version"] = True

    @property
    def _backward_hooks(self):
        """The tensor's hooks by handle order (None before the first), as PyTorch shows them."""
        hooks = (self._hooks if self._grad_fn is None else
                 self._grad_fn._tensor_pre_hooks.get(self._output_nr))
        return collections.OrderedDict(enumerate(hooks)) if hooks else None

    def _alias(self, version_counter=None):
        """``x.data`` (a counter of its own) or ``x.detach()`` (x's counter): this tensor's
        values outside autograd. Of an inference tensor, made outside inference mode, it is
        still an inference tensor but counts versions itself, as in PyTorch (so it may be
        changed in place there, and ``_version`` reads)."""
        alias = Tensor._make(self._data, storage=self._storage, version_counter=version_counter)
        if alias._st.inference and not _grad_mode._inference:
            alias._vc = _tensor.VersionCounter()
            alias.__dict__["_own_version"] = True
        return alias

    def add_(self, other, *, alpha=1):
        other, alpha = _other("add_", other), _alpha("add_", alpha)
        return self._inplace(lambda x: x.add(other, alpha=alpha), other, alpha=alpha)

    def sub_(self, other, *, alpha=1):
        other, alpha = _other("sub_", other), _alpha("sub_", alpha)
        return self._inplace(lambda x: x.sub(other, alpha=alpha), other, alpha=alpha)

    def mul_(self, other):
        other = _other("mul_", other)
        return self._inplace(lambda x: x * other, other)

    def div_(self, other):
        other = _other("div_", other)
        return self._inplace(lambda x: x / other, other)

    def pow_(self, exponent):
        others = (exponent,) if isinstance(exponent, Tensor) else ()  # (pow_(2): Scalar)
        return self._inplace(lambda x: x.pow(exponent), *others)

    def zero_(self):
        return self._inplace(_ops.elementwise.ZeroBackward0.apply, overlap=False)  # idempotent

    def fill_(self, *args, **kwargs):
        """``fill_(number)``: FillBackward2; ``fill_(0-dim tensor)``: FillBackward3, which
        records whatever this tensor's dtype (PyTorch's Tensor overload)."""
        value = _surface.parser.parse("fill_", args, kwargs, True)[1]["value"]
        if isinstance(value, Tensor):
            if value.ndim:
                raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor "
                                   f"with {value.ndim} dimensions.")
            return self._inplace(lambda x: _ops.elementwise.FillBackward3.apply(x, value), value,
                                 overlap="internal")
        return self._inplace(lambda x: _ops.elementwise.FillBackward2.apply(x, value),
                             overlap=False)

    def copy_(self, src):
        same = isinstance(src, Tensor) and _surface.kernels.is_same_data(self, src)
        return self._inplace(lambda x: _surface.shape.copy_from(x, src), src, overlap=not same)

    def exp_(self):
        return self._inplace(TensorOps.exp)

    def log_(self):
        return self._inplace(TensorOps.log)

    def sigmoid_(self):
        return self._inplace(TensorOps.sigmoid)

    def tanh_(self):
        return self._inplace(TensorOps.tanh)

    def relu_(self):
        _ops.elementwise.ReluBackward0.check(self)
        return self._inplace(TensorOps.relu)

    def sqrt_(self):
        return self._inplace(TensorOps.sqrt)

    def neg_(self):
        _ops.elementwise.NegBackward0.check(self)
        return self._inplace(TensorOps.neg)

    def abs_(self):
        if self._data.dtype.kind == "c":
            raise RuntimeError("In-place abs is not supported for complex tensors.")
        return self._inplace(TensorOps.abs)

    def reciprocal_(self):
        return self._inplace(TensorOps.reciprocal)

    def clamp_(self, min=None, max=None):
        if not isinstance(min, Tensor) and not isinstance(max, Tensor):  # (Tensor bounds: later)
            _ops.elementwise.ClampBackward1.check(self, min, max, out=self)
        return self._inplace(lambda x: x.clamp(min, max))

    clip_ = clamp_

    def square_(self):
        return self._inplace(TensorOps.square)

    def sin_(self):
        return self._inplace(TensorOps.sin)

    def cos_(self):
        return self._inplace(TensorOps.cos)

    def detach_(self):
        return _surface.inplace.detach_(self)

    def uniform_(self, a=0.0, b=1.0):
        from .._random import generator
        with _grad_mode.no_grad():
            return self.copy_(Tensor._make(generator().uniform(a, b, self.shape).astype(self._data.dtype)))

    def normal_(self, mean=0.0, std=1.0):
        from .._random import generator
        with _grad_mode.no_grad():
            return self.copy_(Tensor._make(
                (generator().standard_normal(self.shape) * std + mean).astype(self._data.dtype)))

    def __iadd__(self, other):
        if not isinstance(other, _OPERANDS):
            return NotImplemented  # (Python's TypeError, as PyTorch)
        return self.add_(other)

    def __isub__(self, other):
        if not isinstance(other, _OPERANDS):
            return NotImplemented  # (Python's TypeError, as PyTorch)
        return self.sub_(other)

    def __imul__(self, other):
        if not isinstance(other, _OPERANDS):
            return NotImplemented  # (Python's TypeError, as PyTorch)
        return self.mul_(other)

    def __itruediv__(self, other):
        if not isinstance(other, _OPERANDS):
            return NotImplemented  # (Python's TypeError, as PyTorch)
        return self.div_(other)

    def _setitem_value(self, value):
        """PyTorch's valueToTensor for ``x[key] = value``: a Tensor as it is; a Python int,
        bool, float or complex (NumPy's integers, float64 and complex128 count) becomes a 0-dim
        tensor of x's dtype, converted as ``fill_`` converts; anything else is refused."""
        if isinstance(value, Tensor):
            return value
        if not isinstance(value, (int, np.integer, float, complex)) or isinstance(value, np.bool_):
            kind = type(value)
            name = kind.__name__ if kind.__module__ == "builtins" else \
                f"{kind.__module__}.{kind.__name__}"
            raise TypeError(f"can't assign a {name} to a "
                            f"torch.{_surface.promotion.torch_name(self._data.dtype)}Tensor")
        if isinstance(value, (int, np.integer)) and not -2 ** 63 <= int(value) < 2 ** 63:
            raise ValueError("Overflow when unpacking long long")  # (THPUtils_unpackLong)
        dtype = self._data.dtype
        if dtype == np.float16:
            # PyTorch makes the number a double tensor, then copies it in: a double's checks
            # only, and past float16's range it rounds to inf (h[0] = 1e6 is inf; fill_ refuses)
            number = _surface.checks.check_scalar(value, np.float64)
            with np.errstate(over="ignore"):
                return Tensor._make(np.asarray(number, np.float64).astype(dtype))
        number = _surface.checks.check_scalar(value, dtype)
        return Tensor._make(np.asarray(number).astype(dtype))  # (-1 into uint8 wraps, as torch)

    def __setitem__(self, key, value):
        """``x[key] = value``: ``index_put_`` for int lists and masks, else ``x[key].copy_(value)``
        (the value, a number made a 0-dim tensor first, broadcast to the indexed shape, or a
        0-dim value filled in, as PyTorch's ``copy_to``)."""
        value = self._setitem_value(value)
        key = _surface.indexing.sequence_key(key, stacklevel=2)
        if isinstance(key, (bool, np.bool_)):  # PyTorch: x[False] = v writes nothing, and
            if not key:                         # x[True] = v writes through x.unsqueeze(0)
                return
            key = None
        if _surface.indexing.is_advanced_key(key):
            _surface.indexing.index_put_(self, key, value)
            return
        target = _surface.indexing.setitem_target(self, key)  # x[...] = v, x[:] = v: x itself
        if not value.ndim and target.ndim:
            # PyTorch's copy_to fills with a 0-dim value (a 0-dim target is copied into):
            # FillBackward3 records whatever the dtype, so an int tensor can require grad
            target._inplace(lambda t: _ops.elementwise.FillBackward3.apply(t, value), value,
                            overlap="internal")  # (not with the value: x[0] = x[0, 0] works)
            return
        if value.shape != target.shape:
            shape = value.shape
            while shape and shape[0] == 1:
                shape = shape[1:]  # PyTorch's copy_to: a view without the leading 1s ...
            _surface.checks.expand_shape(shape, target.shape, value._data.dtype)
            value = value.reshape(shape)  # (ViewBackward0, as PyTorch's even if none dropped)
            if shape != target.shape:
                value = value.expand(target.shape)  # ... expanded to the target's shape
        target.copy_(value)


_tensor.register_tensor_class(Tensor)


def _refusing(name):
    message = _DELETION_ERRORS.get(name)

    def deleter(self):
        if message:
            raise RuntimeError(message)
        raise AttributeError(f"attribute '{name}' of 'torch._C.TensorBase' objects is not writable")
    return deleter


def _guard_deletions(cls):
    """PyTorch refuses ``del x.data``, ``del x.is_leaf`` and the like: every property of
    Tensor without a deleter gets one that says so. (Not ``__delattr__``: defining it sends
    every attribute write of every tensor through Python's slow path, 9-20% more instructions
    per training step; so ``del x._grad_fn`` and ``del x._base``, plain slots, are not
    refused.)"""
    names = {name for klass in cls.__mro__ for name in vars(klass)}
    for name in names:
        found = inspect.getattr_static(cls, name)
        if isinstance(found, property) and found.fdel is None:
            setattr(cls, name, property(found.fget, found.fset, _refusing(name), found.__doc__))


_guard_deletions(Tensor)
