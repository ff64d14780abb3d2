"""PyTorch's names for a node's saves, and the view's read-only records of them.

``node._saved_self`` unpacks the slot ``self`` (raising once it is freed), ``node._raw_saved_self``
is the SavedTensor itself, and ``node._saved_dim`` a non-tensor save, as PyTorch's generated
nodes have them. ``node.saved_buffers()`` lists :class:`SavedBuffer` records, which hold the
node and the slot only by weak reference: looking keeps nothing alive.
"""
import weakref


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
        # a save packed by a saved-tensor hook is unpacked by the hook, with no version check
        # (allow_mutation_on_saved_tensors, save_on_cpu): a later in-place change breaks nothing
        if self._slot_ref().packed is None and self.current_version != self.saved_version:
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


def lookup(node, attr):
    """``node._raw_saved_<slot>`` (the SavedTensor), ``node._saved_<name>`` (unpacked, or a
    non-tensor save), as PyTorch's generated nodes have them; AttributeError otherwise."""
    slots = node._saved_slots
    if attr.startswith("_raw_saved_"):
        slot = attr[len("_raw_saved_"):]
        if slots.get(slot) is not None:
            return slots[slot]
    elif attr.startswith("_saved_"):
        slot = attr[len("_saved_"):]
        if slot in slots:
            return node.saved(slot)
        if slot in node._saved_values:
            value = node._saved_values[slot]  # sizes and dims read as tuples, as in PyTorch
            return value if slot in _SCALAR_SAVES else _as_uint64(value)
    raise AttributeError(f"'{node.name()}' object has no attribute '{attr}'")


def lookup_undefined(node, attr):
    """A built-in op's save that was skipped (``self`` of x * w when w needs no grad) still has
    its raw attribute in PyTorch: an undefined SavedTensor whose ``_saved_`` twin reads None."""
    if attr.startswith("_raw_saved_"):
        slots = node.__dict__.get("_saved_slots", {})
        slot = attr[len("_raw_saved_"):]
        if slot in slots and slots[slot] is None:
            return UNDEFINED_SAVED
    return lookup(node, attr)


def names(node):
    """The saves as PyTorch's nodes list them in ``dir()``: ``_saved_self``, ``_raw_saved_self``."""
    slots = list(node._saved_slots)
    found = {f"_saved_{slot}" for slot in (*slots, *node._saved_values)}
    found.update(f"_raw_saved_{slot}" for slot in slots if node._saved_slots[slot] is not None)
    return found


class _SavedAttribute:
    """``node._saved_<name>`` / ``node._raw_saved_<name>`` on a node class, installed by its first
    save of ``name`` (:func:`expose`). A ``__getattr__`` on Node could answer these too, but
    CPython 3.11 then specializes no attribute read of any node (``node.next_functions``,
    ``ctx.needs_input_grad`` ...), which costs every op and every backward step."""

    __slots__ = ("attr",)

    def __init__(self, attr):
        self.attr = attr

    def __get__(self, node, cls=None):
        if node is None:  # (on the class itself, as before: no such attribute)
            raise AttributeError(f"type object '{cls.__name__}' has no attribute '{self.attr}'")
        return node._lookup_saved(self.attr)


def expose(cls, name, *prefixes):
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


class UndefinedSavedTensor:
    """The raw save of a slot PyTorch declared but skipped: holds nothing, unpacks to None."""

    data = None

    def unpack(self):
        return None

    def register_hooks(self, *hooks):
        from .saved_hooks import check_hook_arguments
        check_hook_arguments(self, hooks)
        raise RuntimeError("Calling register_hooks on a saved tensor with value None is "
                           "forbidden")

    def __repr__(self):  # PyTorch's undefined save is a SavedTensor like any other
        from .._node import SavedTensor
        return f"<{SavedTensor.__module__}.SavedTensor object at {id(self):#x}>"


UNDEFINED_SAVED = UndefinedSavedTensor()
