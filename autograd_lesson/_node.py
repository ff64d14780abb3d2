"""Graph nodes and their saved buffers.

A node (``grad_fn``) is created by each differentiable op. It keeps
``next_functions`` (the edges toward its inputs) and the tensors its backward
formula needs, in named slots that mirror PyTorch's (``_saved_self``,
``_saved_result`` ...). A backward without ``retain_graph`` releases those slots
right after running the node; reading one afterwards raises PyTorch's message.
"""
import itertools
import re
import weakref
from types import MappingProxyType

import numpy as np

from . import _anomaly_mode, _grad_mode, _tensor  # _tensor imports this module: read _tensor.Tensor at call time

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)
HINT = ("enable anomaly detection to find the operation that failed to compute its gradient, "
        "with torch.autograd.set_detect_anomaly(True, check_nan=False).")
ANOMALY_HINT = ("the backtrace further above shows the operation that failed to compute its "
                "gradient. The variable in question was changed in there or anywhere later. "
                "Good luck!")
UINT64_MAX = 2**64 - 1
_creation_counter = itertools.count()
_FLOAT64 = np.dtype(np.float64)
_new = object.__new__
_saved_tensors_hooks = []  # stack of (pack, unpack), innermost last
_inplace_self = None  # the tensor an in-place op is about to overwrite (see ops/inplace.py)
_all_saved = set()  # weak references to every SavedTensor not yet garbage (memory meters)
_saved_listeners = []  # memory meters (viz.timeline.track_saved_bytes): told of saves, releases


def all_saved():
    """Every SavedTensor not yet garbage, released or not (what memory meters scan)."""
    return [saved for saved in (ref() for ref in list(_all_saved)) if saved is not None]


class Placeholder:
    """Base for what a pack hook returns when it keeps *no* tensor (checkpoint's holders):
    the slot then holds 0 bytes as far as the ledger and ``live_saved_bytes`` can tell."""


def _packed_storage(packed, storage, nbytes):
    """The storage a pack hook's result keeps, and its bytes: a Tensor's (or the first one in a
    tuple, as ``save_on_cpu`` packs ``(device, tensor)``), none for a Placeholder; for any other
    object we can't look inside and assume it keeps the tensor (a box around ``t.detach()``)."""
    if isinstance(packed, Placeholder):
        return _tensor.Storage(0), 0
    items = packed if isinstance(packed, (tuple, list)) else (packed,)
    held = next((t for t in items if isinstance(t, _tensor.Tensor)), None)
    return (storage, nbytes) if held is None else (held._storage, held._data.nbytes)


def _type_string(tensor):
    name = str(tensor.dtype).removeprefix("torch.")  # (a Tensor's dtype, or a SavedTensor's)
    if name == "bool":
        return "CPUBoolType"  # what PyTorch's in-place message really prints for a bool tensor
    kind = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long",
            "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}
    return f"torch.{kind.get(name, 'Float')}Tensor"


def _op_name(node):
    """The op as PyTorch's messages name it: ``Mul`` for MulBackward0, ``Max1`` for
    MaxBackward1."""
    return re.sub(r"Backward(\d*)$", lambda m: m[1].lstrip("0"), node.name())


def check_hook_arguments(saved, pack_hook, unpack_hook):
    """``SavedTensor.register_hooks`` takes two callables: pybind11's message otherwise."""
    if not (callable(pack_hook) and callable(unpack_hook)):
        raise TypeError(
            "register_hooks(): incompatible function arguments. The following argument types "
            "are supported:\n    1. (self: torch._C._autograd.SavedTensor, arg0: "
            "collections.abc.Callable, arg1: collections.abc.Callable) -> None\n\nInvoked "
            f"with: {saved!r}, {pack_hook!r}, {unpack_hook!r}")


class SavedTensor:
    """One tensor a node saved for its backward.

    Remembers the version of the tensor at save time; unpacking checks it, because the
    backward formula must see the values the forward used. A saved *output* keeps only its
    array (a reference to the output tensor would form a cycle through ``grad_fn``) and is
    rebuilt on unpack with the node as its ``grad_fn``, as PyTorch does.
    """

    __slots__ = ("tensor", "packed", "unpack_hook", "is_output", "output_nr", "array",
                 "storage", "version_counter", "saved_version", "requires_grad",
                 "is_wrapped_scalar", "released", "shape", "dtype", "nbytes", "ref", "origin", "scalar",
                 "placeholder", "grad_edge", "view_fn", "__weakref__")

    def __init__(self, tensor, is_output=False):
        self.storage = storage = tensor._st or tensor._storage  # (made on first read)
        if storage.inference:
            raise RuntimeError(_grad_mode.INFERENCE_SAVE_ERROR)
        data, base = tensor._data, tensor._base
        self.is_output = is_output
        self.is_wrapped_scalar = self.released = self.placeholder = False
        self.view_fn = self.grad_edge = self.scalar = None
        self.shape, self.dtype, self.nbytes = data.shape, data.dtype, data.nbytes
        self.version_counter = counter = tensor._vc or tensor._version_counter
        self.saved_version = counter.value
        self.output_nr = tensor._output_nr
        # (Tensor.requires_grad, inlined: a save per op)
        self.requires_grad = tensor._requires_grad or (base is not None and base._requires_grad)
        self.packed = self.unpack_hook = self.tensor = self.array = None
        # For introspection only: weak references (they keep nothing alive).
        if is_output:
            self.ref = self.origin = None
        else:
            self.ref = weakref.ref(tensor)
            fn = tensor._grad_fn if base is None else tensor.grad_fn
            self.origin = None if fn is None else weakref.ref(fn)
        if _saved_tensors_hooks:
            pack, self.unpack_hook = _saved_tensors_hooks[-1]
            if tensor.requires_grad and tensor.grad_fn is not None and not is_output:
                self.grad_edge = (tensor.grad_fn, tensor._output_nr)  # to re-attach on unpack
            from ._fp_errors import call_with_user_fp_errors  # (user code, inside an op)
            self.packed = call_with_user_fp_errors(pack, tensor)
            self.storage, self.nbytes = _packed_storage(self.packed, self.storage, self.nbytes)
            self.placeholder = isinstance(self.packed, Placeholder)
        elif is_output:
            self.array = data
        else:
            self.tensor = tensor
        self._register()

    @classmethod
    def wrapped_scalar(cls, value):
        """A Python scalar operand, saved as PyTorch does (a 0-dim int64/float64/complex128
        tensor); the tensor itself is made only when a backward unpacks it. Pack hooks never
        see it."""
        self = object.__new__(cls)
        if type(value) is float:
            array = None
            self.scalar, self.dtype = value, _FLOAT64
        else:
            array = _tensor.Tensor._wrap_scalar(value)._data
            self.scalar, self.dtype = array.item(), array.dtype
        self.is_wrapped_scalar, self.is_output, self.released, self.placeholder = True, False, False, False
        self.view_fn = self.grad_edge = self.ref = self.origin = None
        self.packed = self.unpack_hook = self.tensor = self.array = None
        self.shape, self.nbytes = (), self.dtype.itemsize
        self.storage = storage = _new(_tensor.Storage)  # (no __init__ frames: a save per op)
        storage.nbytes, storage.inference = self.nbytes, False  # (inference mode saves none)
        self.version_counter = counter = _new(_tensor.VersionCounter)
        counter.value = self.saved_version = 0
        self.output_nr, self.requires_grad = 0, False
        self._register()
        return self

    def _register(self):
        _all_saved.add(weakref.ref(self, _all_saved.discard))  # (cheaper than a WeakSet)
        if _saved_listeners:  # the only cost on the per-op path when nothing is measuring
            from ._fp_errors import call_with_user_fp_errors
            for listener in list(_saved_listeners):
                call_with_user_fp_errors(listener.saved, self)

    def unpack(self, node):
        if self.released:
            raise RuntimeError(FREED_MESSAGE)
        if self.unpack_hook is not None:
            from ._fp_errors import call_with_user_fp_errors  # (user code, inside the engine)
            result = call_with_user_fp_errors(self.unpack_hook, self.packed)
            if not isinstance(result, _tensor.Tensor):
                raise TypeError(f"Output of saved tensor unpack_hook expected to be a Tensor but "
                                f"got result of type {type(result).__name__}")
            if self.requires_grad:
                result = self._reattach(result, node)
            return result
        current = self.version_counter.value
        if current != self.saved_version:
            raise RuntimeError(self._version_message(node, current))
        if self.is_output:
            return _tensor.make_tensor(self.array, requires_grad=self.requires_grad, grad_fn=node,
                                        output_nr=self.output_nr, storage=self.storage,
                                        version_counter=self.version_counter)
        if self.is_wrapped_scalar:
            return self._scalar_tensor()
        return self.tensor

    def _scalar_tensor(self):
        return _tensor.make_tensor(np.asarray(self.scalar, dtype=self.dtype),
                                    storage=self.storage, version_counter=self.version_counter)

    def register_hooks(self, pack_hook, unpack_hook):
        """PyTorch's ``SavedTensor.register_hooks``: pack the saved value now, unpack it in
        backward (like ``saved_tensors_hooks`` for this one slot; no version check then)."""
        check_hook_arguments(self, pack_hook, unpack_hook)
        if self.unpack_hook is not None:
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have already "
                               "been set. Hint: only one pair of hooks is allowed at a time.")
        if self.released:
            raise RuntimeError("Calling register_hooks on a saved tensor after it has been freed. "
                               "Saved intermediate values of the graph are freed when you call "
                               ".backward() or autograd.grad(). Specify retain_graph=True if you "
                               "need to backward through the graph a second time or if you need "
                               "to access saved variables after calling backward.")
        if self.is_output:  # the hook sees the saved data, outside the graph
            tensor = _tensor.Tensor._make(self.array, storage=self.storage,
                                          version_counter=self.version_counter)
        elif self.is_wrapped_scalar:
            tensor = self._scalar_tensor()
        else:
            tensor = self.tensor
            if tensor.requires_grad and tensor.grad_fn is not None:
                self.grad_edge = (tensor.grad_fn, tensor._output_nr)
        self.packed, self.unpack_hook = pack_hook(tensor), unpack_hook
        self.storage, self.nbytes = _packed_storage(self.packed, self.storage, self.nbytes)
        self.placeholder = isinstance(self.packed, Placeholder)
        self.tensor = self.array = None

    def _reattach(self, data, node):
        """As PyTorch: the hook's values, in the saved tensor's place in the graph (the node for
        a saved output, else the original's grad_fn or leaf), whatever history they had."""
        t = _tensor.Tensor._make(data._data, storage=data._storage,
                                 version_counter=data._version_counter)
        if self.is_output:
            t.grad_fn, t._output_nr = node, self.output_nr
        elif self.grad_edge is not None:
            t.grad_fn, t._output_nr = self.grad_edge
        else:
            leaf = self.ref()
            if leaf is None:
                return data
            accumulator = leaf._grad_accumulator()  # gradients reach the original leaf's .grad
            t._accumulator_ref, t.__dict__["_accumulator"] = weakref.ref(accumulator), accumulator
        t._requires_grad = True
        return t

    def _version_message(self, node, current):
        if self.is_output:
            # An in-place op on a view saved the view: its grad_fn then, if that still lives.
            fn = self.view_fn() if self.view_fn is not None else None
            name = _op_name(fn if fn is not None else node)
            clause = f", which is output {self.output_nr} of {name},"
        else:
            fn = self.tensor.grad_fn  # a view whose base changed reads AsStridedBackward0 here
            clause = "" if fn is None else f", which is output {self.tensor._output_nr} of {_op_name(fn)},"
        shape = list(self.shape)
        return (f"one of the variables needed for gradient computation has been modified by an "
                f"inplace operation: [{_type_string(self)} {shape}]{clause} is at version "
                f"{current}; expected version {self.saved_version} instead. Hint: "
                + (ANOMALY_HINT if _anomaly_mode._enabled else HINT))

    def release(self):
        if _saved_listeners and not self.released:
            from ._fp_errors import call_with_user_fp_errors
            for listener in list(_saved_listeners):
                call_with_user_fp_errors(listener.released, self)
        self.released = True  # the hooks go too, as PyTorch's reset_data(): a checkpoint dies
        self.tensor = self.array = self.packed = self.storage = self.unpack_hook = None
        self.grad_edge = None

    def held_tensor(self):
        """The user-visible tensor this slot holds (None for saved outputs and when freed)."""
        return self.tensor


_wrapped_scalar = SavedTensor.wrapped_scalar  # (bound once: a classmethod is bound per call)


class SavedBuffer:
    """Public, read-only description of one saved slot (what ``Node.saved_buffers`` lists).

    Holds the node and the slot by weak reference, so listing buffers keeps nothing alive.
    """

    __slots__ = ("slot", "shape", "dtype", "nbytes", "saved_version", "is_output",
                 "is_wrapped_scalar", "scalar_value", "storage_ref", "tensor_ref", "origin_ref",
                 "is_placeholder", "_slot_ref", "node_ref")

    def __init__(self, node, slot, saved):
        self.node_ref = weakref.ref(node)
        self.slot = slot
        self.shape, self.dtype, self.nbytes = tuple(saved.shape), saved.dtype, saved.nbytes
        self.saved_version = saved.saved_version
        self.is_output = saved.is_output
        self.is_wrapped_scalar = saved.is_wrapped_scalar
        self.storage_ref = weakref.ref(saved.storage) if saved.storage is not None else None
        self.tensor_ref = saved.ref  # still names the tensor after release, if it lives on
        self.origin_ref = saved.origin  # the node that produced it (weak), for "output of #k"
        self.scalar_value = saved.scalar
        self.is_placeholder = saved.placeholder  # checkpoint's: recomputed in backward
        self._slot_ref = weakref.ref(saved)

    @property
    def released(self):
        saved = self._slot_ref()
        return saved is None or saved.released

    @property
    def current_version(self):
        saved = self._slot_ref()
        return None if saved is None else saved.version_counter.value

    @property
    def state(self):
        """'freed', 'stale' (changed in place since saved), 'retained' or 'alive'."""
        node = self.node_ref()
        if self.released:
            return "freed"
        if self.current_version != self.saved_version:
            return "stale"
        if node is not None and node._retained:
            return "retained"
        return "alive"

    def __repr__(self):
        return (f"SavedBuffer({self.slot}, shape={list(self.shape)}, dtype={self.dtype}, "
                f"nbytes={self.nbytes}, state={self.state})")


# PyTorch's getters read a saved int (dim, index, sizes, ignore_index ...) as an unsigned 64-bit
# number, so ``x.sum(-1).grad_fn._saved_dim`` is (2**64 - 1,); a saved Scalar stays signed.
# (``saved_values()`` and the ledgers show the plain -1.)
_SCALAR_SAVES = frozenset({"alpha", "beta", "exponent", "min", "max", "ord", "negative_slope",
                           "threshold", "other", "self", "value", "eps", "p"})


def _as_uint64(value):
    if isinstance(value, (list, tuple)):
        return tuple(_as_uint64(v) for v in value)
    if type(value) is int and value < 0:
        return value + 2 ** 64
    return value


class Node:
    """A backward function: one per differentiable op, named like PyTorch's (``MulBackward0``).

    ``next_functions`` is a tuple of ``(node, output_nr)`` edges, ``None`` for inputs that need
    no gradient. Saved tensors live in ``_saved_slots``; non-tensor saves (``dim``, ``alpha``)
    in ``_saved_values``; both are readable as ``node._saved_<name>``.
    """

    _declared_saves = ()
    _static_needs_input_grad = False  # custom Functions: the engine leaves needs_input_grad alone
    # Defaults read from the class until a node sets its own: most nodes never get a hook, a
    # non-tensor save or a retained grad, so __init__ (run once per op) creates none of these.
    next_functions = ()
    _input_metadata = ()
    _num_outputs = 1
    _retained = False
    _released = False
    _pre_hooks = ()
    _post_hooks = ()
    _tensor_pre_hooks = MappingProxyType({})
    _retain_grad_refs = MappingProxyType({})
    _saved_values = MappingProxyType({})
    _exposed = (None, frozenset())  # (class, the saved names installed on it): see _expose
    _unpacked = None  # the saves unpacked for the backward running now (Op._backward)

    def __init__(self):
        self._id = next(_creation_counter)
        self._saved_slots = {}
        if _anomaly_mode._enabled:
            _anomaly_mode.record(self)

    def _own(self, name, factory=dict):
        """This node's own hook list or dict ``name``, created on first use. (Not through
        ``self.__dict__``: reading it makes CPython give the instance a real dict in place of
        its inline attribute values, and every later attribute read of that node is slower.)"""
        mine = getattr(self, name, None)
        if mine is None or mine is getattr(type(self), name, None):  # (the class's default)
            mine = factory()
            setattr(self, name, mine)
        return mine

    def name(self):
        return type(self).__name__

    @property
    def metadata(self):
        """A dict for anything attached to the node (anomaly mode keeps ``traceback_`` here)."""
        return self.__dict__.setdefault("_metadata", {})

    def _sequence_nr(self):
        return self._id

    def __repr__(self):
        return f"<{self.name()} object #{self._id}>"

    # -- saved slots ---------------------------------------------------------------------------
    def save(self, slot, tensor, is_output=False):
        if tensor is None:
            self._saved_slots[slot] = None
        elif isinstance(tensor, _tensor.Tensor):
            if tensor is _inplace_self and slot == "self":
                # An in-place op whose formula needs the old values saves a copy of them
                # (PyTorch's ``original_self = self.clone()``), recorded like any clone.
                from .ops.shape import CloneBackward0
                tensor = CloneBackward0.apply(tensor)
            self._saved_slots[slot] = SavedTensor(tensor, is_output=is_output)
        else:
            raise TypeError(f"save expects a Tensor or None, got {type(tensor).__name__}")
        cls = type(self)
        owner, names = cls._exposed  # (this class's own, or a base's: see _expose)
        if owner is not cls or slot not in names:
            _expose(cls, slot, "_raw_saved_", "_saved_")

    def save_scalar(self, slot, value):
        """Save a Python scalar operand as PyTorch does: a 0-dim int64/float64 tensor."""
        self._saved_slots[slot] = _wrapped_scalar(value)
        cls = type(self)
        owner, names = cls._exposed  # (this class's own, or a base's: see _expose)
        if owner is not cls or slot not in names:
            _expose(cls, slot, "_raw_saved_", "_saved_")

    def saved(self, slot):
        """Unpack one saved tensor (None if the save was skipped); raises once released."""
        unpacked = self._unpacked
        if unpacked is not None:
            return unpacked.get(slot)
        saved = self._saved_slots.get(slot)
        return None if saved is None else saved.unpack(self)

    def _lookup_saved(self, attr):
        """``node._raw_saved_<slot>`` (the SavedTensor), ``node._saved_<name>`` (unpacked, or a
        non-tensor save), as PyTorch's generated nodes have them; AttributeError otherwise."""
        if attr.startswith("_raw_saved_"):
            slot = attr[len("_raw_saved_"):]
            if slot in self._saved_slots and self._saved_slots[slot] is not None:
                return self._saved_slots[slot]
        elif attr.startswith("_saved_"):
            slot = attr[len("_saved_"):]
            if slot in self._saved_slots:
                return self.saved(slot)
            if slot in self._saved_values:
                value = self._saved_values[slot]  # sizes and dims read as tuples, as in PyTorch
                return value if slot in _SCALAR_SAVES else _as_uint64(value)
        raise AttributeError(f"'{self.name()}' object has no attribute '{attr}'")

    def __dir__(self):
        """The saves are listed as PyTorch's nodes list them (``_saved_self``,
        ``_raw_saved_self``), the bookkeeping behind them is not."""
        names = set(super().__dir__()) - {"_saved_slots", "_saved_values", "_lookup_saved"}
        slots = list(self._saved_slots)
        names.update(f"_saved_{slot}" for slot in (*slots, *self._saved_values))
        names.update(f"_raw_saved_{slot}" for slot in slots if self._saved_slots[slot] is not None)
        # (a list's entries, indices[0] or a custom Function's saved_tensors[0], are read whole)
        return sorted(name for name in names if "[" not in name)

    def saved_buffers(self):
        """List this node's saved tensor slots as :class:`SavedBuffer` records (weak refs only)."""
        return [SavedBuffer(self, slot, saved) for slot, saved in self._saved_slots.items()
                if saved is not None]

    def saved_values(self):
        """The non-tensor saves (``dim``, ``alpha``, ``self_sym_sizes`` ...), always readable."""
        return dict(self._saved_values)

    def _release_variables(self):
        self._released = True
        if not self._saved_slots:
            return ()
        released = []
        for slot, saved in self._saved_slots.items():
            if saved is not None and not saved.released:
                saved.release()
                released.append(slot)
        return released

    # -- hooks ---------------------------------------------------------------------------------
    def register_prehook(self, hook):
        """``hook(grad_outputs) -> new grad_outputs or None``, called before the node runs."""
        hooks = self._own("_pre_hooks", list)
        hooks.append(hook)
        return _RemovableHandle(hooks, hook)

    def register_hook(self, hook):
        """``hook(grad_inputs, grad_outputs) -> new grad_inputs or None``, called after it runs."""
        hooks = self._own("_post_hooks", list)
        hooks.append(hook)
        return _RemovableHandle(hooks, hook)

    # -- backward ------------------------------------------------------------------------------
    def _backward(self, grad_outputs):
        """Gradients for ``next_functions`` from the gradients of this node's outputs (a list)."""
        raise NotImplementedError

    def __call__(self, *grad_outputs):
        """Run this node's backward formula by hand, as ``y.grad_fn(grad)`` does in PyTorch."""
        grads = self._backward(list(grad_outputs))
        return tuple(grads) if len(grads) != 1 else grads[0]


class _SavedAttribute:
    """``node._saved_<name>`` / ``node._raw_saved_<name>`` on a node class, installed by its first
    save of ``name`` (:func:`_expose`). A ``__getattr__`` on Node could answer these too, but
    CPython 3.11 then specializes no attribute read of any node (``node.next_functions``,
    ``ctx.needs_input_grad`` ...), which costs every op and every backward step."""

    __slots__ = ("attr",)

    def __init__(self, attr):
        self.attr = attr

    def __get__(self, node, cls=None):
        if node is None:  # (on the class itself, as before: no such attribute)
            raise AttributeError(f"type object '{cls.__name__}' has no attribute '{self.attr}'")
        return node._lookup_saved(self.attr)


def _expose(cls, name, *prefixes):
    """Install ``<prefix><name>`` on ``cls`` for each prefix, unless the class or a base defines
    that attribute already (``_raw_saved_indices``, ``_saved_values``). The names done are kept
    in the class's own ``_exposed`` pair, (the class, its set), so that a save reads it as a
    class attribute (a subclass finds its base's pair and sees it is not its own) without
    building a ``__dict__`` proxy per save; not in a registry here, which would keep classes,
    and a custom Function's globals with them, alive."""
    for prefix in prefixes:
        attr = prefix + name
        if not any(attr in vars(klass) for klass in cls.__mro__):
            setattr(cls, attr, _SavedAttribute(attr))
    if cls._exposed[0] is not cls:
        cls._exposed = (cls, set())
    cls._exposed[1].add(name)


class RemovableHandle:
    """What registering a hook returns: ``remove()`` unregisters it (twice is harmless), and
    ``with handle:`` removes it when the block ends, as PyTorch's ``RemovableHandle``."""

    _ids = itertools.count()

    def __init__(self, container, item):
        if container and container[-1] is item and any(x is item for x in container[:-1]):
            item = container[-1] = _Alias(item)  # one hook registered twice: two entries
        self._container, self._item = container, item
        self.id = next(self._ids)

    def remove(self):
        for i, entry in enumerate(self._container):
            if entry is self._item:  # this registration, not the first equal one
                del self._container[i]
                return

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


_RemovableHandle = RemovableHandle


class _Alias:
    """A second registration of the same hook, so that each handle removes its own."""

    def __init__(self, fn):
        self._fn = fn
        if hasattr(fn, "__name__"):
            self.__name__ = fn.__name__

    def __call__(self, *args):
        return self._fn(*args)


class AccumulateGrad(Node):
    """The sink for a leaf that requires grad: adds the incoming gradient into ``leaf.grad``.

    Its sequence number is the largest possible, so PyTorch's engine runs it as soon as it is
    ready; that decides which leaves already hold gradients when a later node fails.
    """

    def __init__(self, variable):
        super().__init__()
        self.variable = variable

    __getattr__ = Node._lookup_saved  # (messages name the node as name() does)

    def _sequence_nr(self):
        return UINT64_MAX

    def name(self):
        return "torch::autograd::AccumulateGrad"  # PyTorch's name() for this C++ node


class GraphRoot(Node):
    """The entry node the engine uses when a backward starts from several tensors."""

    __getattr__ = Node._lookup_saved

    def __init__(self, edges):
        super().__init__()
        self.next_functions = tuple(edges)

    def name(self):
        return "torch::autograd::GraphRoot"

    def _backward(self, grad_outputs):
        return list(grad_outputs)
