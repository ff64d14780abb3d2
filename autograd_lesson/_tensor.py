"""``Tensor``: a NumPy array plus what autograd needs (``requires_grad``, ``grad``, ``grad_fn``).

Operator methods are one-liners that call the ops in ``autograd_lesson.ops``; the autograd
state here is what PyTorch keeps per tensor: the version counter shared with views, the
lazily created ``AccumulateGrad`` of a leaf, tensor hooks and ``retain_grad``.
"""
import functools
import math
import warnings
import weakref

import numpy as np

from . import _dtype, _grad_mode, ops as _ops
from ._node import AccumulateGrad, _RemovableHandle
from ._tensor_ops import _OPERANDS, TensorOps, _alpha, _other

DEFAULT_DTYPE = np.dtype(np.float32)  # (the initial default: set_default_dtype changes _dtype's)

NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad field "
    "to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you "
    "access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See "
    "github.com/pytorch/pytorch/pull/30531 for more information."
)
GRAD_DTYPE_ERROR = (
    "attempting to assign a gradient with dtype '{}' to a tensor with grad_dtype '{}'. The "
    "gradient must match the tensor's grad_dtype (defaults to the tensor's dtype). You can set the "
    "tensor's grad_dtype attribute with a specific dtype, or None to allow any dtype. Set "
    "grad_dtype with caution. Diverging the dtypes of a tensor and its gradient may break "
    "downstream systems that assume they match.")
# how that message names dtypes: the C++ type of the value (cpp_name), the tensor's ScalarType
_SCALAR_TYPE = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long",
                "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}
REQUIRES_GRAD_LEAF_ERROR = "you can only change requires_grad flags of leaf variables."
REQUIRES_GRAD_DETACH_HINT = (" If you want to use a computed variable in a subgraph that doesn't "
                             "require differentiation use var_no_grad = var.detach().")
FLOAT_ONLY_ERROR = "only Tensors of floating point and complex dtype can require gradients"
# PyTorch words the same check three ways: the attribute setter (above), requires_grad_()
# and the factories' requires_grad=True argument.
FLOAT_ONLY_METHOD_ERROR = "only Tensors of floating point dtype can require gradients"
FLOAT_ONLY_FACTORY_ERROR = "Only Tensors of floating point and complex dtype can require gradients"


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


class Size(tuple):
    """A shape, printed like PyTorch's ``torch.Size([2, 3])``."""

    def __repr__(self):
        return f"torch.Size({list(self)})"

    def numel(self):
        return int(np.prod(self, dtype=np.int64))


def _is_float(dtype):
    return np.issubdtype(dtype, np.floating)


def check_requires_grad(dtype, message):
    """Only a floating point (in PyTorch also a complex) tensor can require grad: ``message``
    is PyTorch's wording at the call site; complex is the package's documented limit."""
    if dtype.kind == "c":
        _ops._op._refuse_complex()
    if not _is_float(dtype):
        raise RuntimeError(message)


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
        if not _ops._util.int_fits(values, dtype).all():  # (nan fits nothing)
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


@functools.cache
def _requires_grad_parser():
    """``requires_grad_``'s argument parser (made on first use: ops imports this module)."""
    return _ops._util.ArgParser("requires_grad_", "bool requires_grad=True")


class Tensor(TensorOps):
    """A multi-dimensional array that can record the ops applied to it."""

    # ``_st`` / ``_vc``: the Storage and VersionCounter, None until first read (most results
    # of an op, and nearly every gradient a backward computes, never need them): see
    # ``_storage`` and ``_version_counter``.
    __slots__ = ("_data", "_requires_grad", "_grad_fn", "_output_nr", "_st", "_vc", "_base",
                 "__weakref__", "__dict__")
    __array_ufunc__ = None  # make NumPy defer to our reflected operators (np.float64(2) * t)
    # Set on few tensors (leaves, views, hooked ones), so read from the class until then.
    _grad = None
    _attr_version = 0        # a view's version of its base when its grad_fn was made
    _creation_meta = False   # True for a view made under no_grad
    _retains_grad = False
    _hooks = None
    _accumulator_ref = None
    _multi_view = _custom_view = False  # how a view was made (see ops/inplace.py's VIEW_KINDS)
    _first_storage = None    # the storage before a first ``x.data = y`` (see ``_storage``)
    _post_accumulate_grad_hooks = ()

    def __init__(self, data=(), *, requires_grad=False):
        array = np.asarray(data._data if isinstance(data, Tensor) else data,
                           dtype=_dtype.default_float())
        self._become(Tensor._make(array))
        self.requires_grad = requires_grad

    def _become(self, other):
        """Take ``other``'s autograd state (``Tensor(data)``: a fresh leaf, as ``_make`` builds)."""
        for name in ("_data", "_requires_grad", "_grad_fn", "_output_nr", "_st", "_vc", "_base"):
            setattr(self, name, getattr(other, name))

    @classmethod
    def _make(cls, array, requires_grad=False, grad_fn=None, output_nr=0, storage=None,
              version_counter=None, base=None):
        t = object.__new__(cls)  # (the body of _init, inlined: this runs for every op)
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

    @classmethod
    def _wrap_scalar(cls, value):
        dtype = (np.float64 if isinstance(value, float) else np.complex128
                 if isinstance(value, complex) else np.int64)
        return cls._make(np.asarray(value, dtype=dtype))

    # -- metadata ------------------------------------------------------------------------------
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
        return _ops._util.wrap_dim(dim, self.ndim, method)

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

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    @property
    def grad_fn(self):
        """The node that made this tensor; a view whose base changed in place gets a fresh one."""
        if self._base is not None and self._attr_version != (self._vc or self._version_counter).value:
            _ops.inplace.regenerate_view_fn(self)
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
        if self._storage.inference:
            raise RuntimeError(_grad_mode.INFERENCE_VERSION_ERROR)
        return self._version_counter.value

    def is_inference(self):
        """True for tensors made in ``inference_mode`` and their views: autograd can't save them."""
        return self._storage.inference

    @property
    def requires_grad(self):
        # A view requires grad whenever its base does (even one made before the base got history).
        return self._requires_grad or (self._base is not None and self._base._requires_grad)

    @requires_grad.setter
    def requires_grad(self, value):
        if type(value) is not bool:  # (PyTorch checks this before anything else)
            raise RuntimeError("requires_grad must be a bool")
        if not self.is_leaf:
            raise RuntimeError(REQUIRES_GRAD_LEAF_ERROR + ("" if value else REQUIRES_GRAD_DETACH_HINT))
        if value:
            check_requires_grad(self._data.dtype, FLOAT_ONLY_ERROR)
        if value and self._storage.inference and not _grad_mode._inference:
            raise RuntimeError(_grad_mode.INFERENCE_REQUIRES_GRAD_ERROR)
        self._requires_grad = bool(value)

    def requires_grad_(self, *args, **kwargs):
        if not args and not kwargs:
            requires_grad = True
        elif len(args) == 1 and not kwargs and type(args[0]) is bool:
            requires_grad = args[0]  # (the usual call: no parser)
        else:  # (the parser's TypeErrors: a bool only)
            requires_grad = _requires_grad_parser().parse(args, kwargs)[1]["requires_grad"]
        # PyTorch's C++ is_leaf() reads the stored grad_fn: a view whose base changed in place
        # is neither regenerated nor refused here, as it is by the is_leaf property
        leaf = self._grad_fn is None
        if not leaf and not requires_grad:
            raise RuntimeError(REQUIRES_GRAD_LEAF_ERROR + REQUIRES_GRAD_DETACH_HINT)
        if requires_grad:
            check_requires_grad(self._data.dtype, FLOAT_ONLY_METHOD_ERROR)
        if leaf:
            self.requires_grad = requires_grad
        return self

    @property
    def grad(self):
        # (PyTorch reads the stored grad_fn here: a stale view's does not regenerate, or raise)
        if self._grad is None and self._grad_fn is not None and not self._retains_grad:
            warnings.warn(NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        """PyTorch's checks, in its order: a Tensor, of this dtype, not itself, of this size."""
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of "
                                f"type {type(value).__name__}")
            if value._data.dtype != self._data.dtype:
                raise RuntimeError(GRAD_DTYPE_ERROR.format(
                    _ops._util.cpp_name(value._data.dtype),
                    _SCALAR_TYPE.get(str(self._data.dtype), self._data.dtype)))
            if value is self:
                raise RuntimeError("can't assign Variable as its own grad")
            if value.shape != self.shape:
                raise RuntimeError(f"attempting to assign a gradient of size '{list(value.shape)}' "
                                   f"to a tensor of size '{list(self.shape)}'. Please ensure that "
                                   f"the gradient and the tensor are the same size")
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
        return Tensor._make(self._data, storage=self._storage)

    @data.setter
    def data(self, value):
        self._storage = value._storage  # (first: a view made before keeps the old one)
        self._data = value._data

    # -- conversion ----------------------------------------------------------------------------
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

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

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
        if not np.issubdtype(self._data.dtype, np.integer) or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    __hash__ = object.__hash__

    def __repr__(self):
        from ._format import format_tensor
        return format_tensor(self)

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __reduce_ex__(self, protocol):
        raise TypeError("autograd_lesson tensors cannot be pickled; use .detach().numpy()")

    # -- autograd ------------------------------------------------------------------------------
    def detach(self):
        """A tensor sharing this one's values and version counter, outside the graph."""
        return Tensor._make(self._data, storage=self._storage, version_counter=self._version_counter)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        from .autograd import backward
        backward(self, gradient, retain_graph=retain_graph, create_graph=create_graph,
                 inputs=inputs, _from_tensor_method=True)

    def retain_grad(self):
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.is_leaf or self._retains_grad:
            return
        self._retains_grad = True
        self.grad_fn._own("_retain_grad_refs")[self._output_nr] = weakref.ref(self)

    def register_hook(self, hook):
        """``hook(grad) -> new grad or None``, called with this tensor's gradient during backward."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.is_leaf:
            if self._hooks is None:
                self._hooks = []
            hooks = self._hooks
        else:
            hooks = self.grad_fn._own("_tensor_pre_hooks").setdefault(self._output_nr, [])
        hooks.append(hook)
        return _RemovableHandle(hooks, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """``hook(tensor) -> None``, called once a backward has accumulated into ``.grad``."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if not self.is_leaf:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf "
                               "tensors")
        hooks = self.__dict__.setdefault("_post_accumulate_grad_hooks", [])
        hooks.append(hook)
        return _RemovableHandle(hooks, hook)

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

    # -- in-place ops (the rules live in ops/inplace.py) ------------------------------------------
    def _inplace(self, compute, *others, **options):  # (options: see ops.inplace.apply)
        return _ops.inplace.apply(self, compute, others, **options)

    @property
    def device(self):
        from ._factories import device
        return device("cpu")

    @property
    def is_cuda(self):
        return False

    def cpu(self):
        return self

    def _check_inference_inplace(self):
        if self._storage.inference and not _grad_mode._inference:
            raise RuntimeError(_grad_mode.INFERENCE_INPLACE_ERROR)

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
        return self._inplace(lambda x: x.pow(exponent), exponent)

    def zero_(self):
        self._check_inference_inplace()  # PyTorch checks this first for zero_ and fill_
        return self._inplace(_ops.elementwise.ZeroBackward0.apply, overlap=False)  # idempotent

    def fill_(self, *args, **kwargs):
        """``fill_(number)``: FillBackward2; ``fill_(0-dim tensor)``: FillBackward3, which
        records whatever this tensor's dtype (PyTorch's Tensor overload)."""
        if len(args) == 1 and not kwargs and type(args[0]) in (int, float, bool):
            value = args[0]  # (the usual call: no parser)
        else:
            value = _ops.elementwise.FILL.parse(args, kwargs)[1]["value"]
        self._check_inference_inplace()
        if isinstance(value, Tensor):
            if value.ndim:
                raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor "
                                   f"with {value.ndim} dimensions.")
            return self._inplace(lambda x: _ops.elementwise.FillBackward3.apply(x, value), value,
                                 overlap="internal")
        return self._inplace(lambda x: _ops.elementwise.FillBackward2.apply(x, value), value,
                             overlap=False)

    def copy_(self, src):
        return self._inplace(lambda x: _ops.shape.copy_from(x, src), src)

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
        return _ops.inplace.detach_(self)

    def uniform_(self, a=0.0, b=1.0):
        from ._random import generator
        with _grad_mode.no_grad():
            return self.copy_(Tensor._make(generator().uniform(a, b, self.shape).astype(self._data.dtype)))

    def normal_(self, mean=0.0, std=1.0):
        from ._random import generator
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
                            f"torch.{_ops._util.torch_name(self._data.dtype)}Tensor")
        if isinstance(value, (int, np.integer)) and not -2 ** 63 <= int(value) < 2 ** 63:
            raise ValueError("Overflow when unpacking long long")  # (THPUtils_unpackLong)
        dtype = self._data.dtype
        if dtype == np.float16:
            # PyTorch makes the number a double tensor, then copies it in: a double's checks
            # only, and past float16's range it rounds to inf (h[0] = 1e6 is inf; fill_ refuses)
            number = _ops._util.check_scalar(value, np.float64)
            with np.errstate(over="ignore"):
                return Tensor._make(np.asarray(number, np.float64).astype(dtype))
        number = _ops._util.check_scalar(value, dtype)
        return Tensor._make(np.asarray(number).astype(dtype))  # (-1 into uint8 wraps, as torch)

    def __setitem__(self, key, value):
        """``x[key] = value``: ``index_put_`` for int lists and masks, else ``x[key].copy_(value)``
        (the value, a number made a 0-dim tensor first, broadcast to the indexed shape, or a
        0-dim value filled in, as PyTorch's ``copy_to``)."""
        self._check_inference_inplace()
        value = self._setitem_value(value)
        key = _ops.shape.sequence_key(key, stacklevel=2)
        if isinstance(key, (bool, np.bool_)):  # PyTorch: x[False] = v writes nothing, and
            if not key:                         # x[True] = v writes through x.unsqueeze(0)
                return
            key = None
        if _ops.shape.is_advanced_key(key):
            _ops.shape.index_put_(self, key, value)
            return
        target = _ops.shape.setitem_target(self, key)  # x[...] = v, x[:] = v: x itself
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
            _ops._util.expand_shape(shape, target.shape, value._data.dtype)
            value = value.reshape(shape)  # (ViewBackward0, as PyTorch's even if none dropped)
            if shape != target.shape:
                value = value.expand(target.shape)  # ... expanded to the target's shape
        target.copy_(value)


make_tensor = Tensor._make  # (bound once, for the per-op callers: Tensor._make binds it per call)
