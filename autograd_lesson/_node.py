"""Graph nodes and the tensors they save (read after ``_tensor.py``).

Each differentiable op creates a node, the output's ``grad_fn``, named after PyTorch's
(``MulBackward0``). It keeps ``next_functions``, the edges toward the nodes of its inputs, and
the tensors its backward formula needs, in named slots that mirror PyTorch's (``self``,
``other``, ``result``). Each slot is a :class:`SavedTensor`, which

- remembers the tensor's version when it was saved, and checks it when the backward unpacks
  it: an in-place change in between raises PyTorch's "modified by an inplace operation";
- is released by the engine right after its node runs, unless the graph is retained; unpacking
  it afterwards raises "Trying to backward through the graph a second time".

Extensions plug in at named points (``extensions/``): ``saved_hooks.stack`` (pack and unpack
hooks), ``saved_meters`` (memory meters), ``saved_attributes`` (PyTorch's ``_saved_self``
names), ``anomaly_mode`` (where a node was made), ``hooks`` (a leaf's post-accumulate hooks),
and ``_inplace_self`` below (an in-place op saves a copy of the values it overwrites).
"""
import itertools
import weakref
from types import MappingProxyType

import numpy as np

from . import _grad_mode, _tensor  # _tensor imports this module: read it at call time
from ._autograd_errors import FREED_MESSAGE, version_message
from .extensions import anomaly_mode, saved_hooks, saved_meters
from .extensions.node_api import NodeAPI

UINT64_MAX = 2**64 - 1
_creation_counter = itertools.count()
_inplace_self = None  # the tensor an in-place op is about to overwrite (see _surface/inplace.py)


class SavedTensor:
    """One tensor a node saved for its backward (PyTorch's SavedVariable).

    A saved *output* keeps only its array (a reference to the output tensor would form a cycle
    through ``grad_fn``) and is rebuilt on unpack with the node as its ``grad_fn``, as PyTorch
    does.
    """

    __slots__ = ("tensor", "packed", "unpack_hook", "is_output", "output_nr", "array",
                 "storage", "version_counter", "saved_version", "requires_grad",
                 "released", "shape", "dtype", "nbytes", "ref", "origin", "scalar", "is_wrapped_scalar",
                 "placeholder", "grad_edge", "view_fn", "__weakref__")

    def __init__(self, tensor, is_output=False):
        self.storage = storage = tensor._st or tensor._storage  # (made on first read)
        if storage.inference:
            raise RuntimeError(_grad_mode.INFERENCE_SAVE_ERROR)
        data, base = tensor._data, tensor._base
        self.is_output = is_output
        self.released = self.placeholder = self.is_wrapped_scalar = False
        self.view_fn = self.grad_edge = self.scalar = None  # (a Python scalar: saved_scalars.py)
        self.shape, self.dtype, self.nbytes = data.shape, data.dtype, data.nbytes
        self.version_counter = counter = tensor._vc or tensor._version_counter
        self.saved_version = counter.value
        self.output_nr = tensor._output_nr
        # (Tensor.requires_grad, inlined: a save per op)
        self.requires_grad = tensor._requires_grad or (base is not None and base._requires_grad)
        self.packed = self.unpack_hook = self.tensor = self.array = None
        # For the view: weak references, which keep nothing alive.
        if is_output:
            self.ref = self.origin = None
        else:
            self.ref = weakref.ref(tensor)
            fn = tensor._grad_fn if base is None else tensor.grad_fn
            self.origin = None if fn is None else weakref.ref(fn)
        if saved_hooks.stack:
            saved_hooks.pack(self, tensor, is_output)
        elif is_output:
            self.array = data
        else:
            self.tensor = tensor
        saved_meters.register(self)

    def unpack(self, node):
        """The saved tensor, as the backward formula of ``node`` needs it."""
        if self.released:
            raise RuntimeError(FREED_MESSAGE)
        if self.unpack_hook is not None:
            return saved_hooks.unpack(self, node)
        current = self.version_counter.value
        if current != self.saved_version:
            raise RuntimeError(version_message(self, node, current, anomaly_mode._enabled))
        if self.is_output:
            return _tensor.make_tensor(self.array, requires_grad=self.requires_grad, grad_fn=node,
                                        output_nr=self.output_nr, storage=self.storage,
                                        version_counter=self.version_counter)
        if self.is_wrapped_scalar:
            return self.scalar_tensor()
        return self.tensor

    def release(self):
        """What the engine calls after the node ran, unless the graph is retained."""
        if saved_meters.listeners and not self.released:
            saved_meters.released(self)
        self.released = True  # the hooks go too, as PyTorch's reset_data(): a checkpoint dies
        self.tensor = self.array = self.packed = self.storage = self.unpack_hook = None
        self.grad_edge = None

    def scalar_tensor(self):
        return _tensor.make_tensor(np.asarray(self.scalar, dtype=self.dtype),
                                   storage=self.storage, version_counter=self.version_counter)

    def register_hooks(self, *hooks):  # (pack_hook, unpack_hook)
        saved_hooks.register_hooks(self, *hooks)

    @property
    def data(self):
        return saved_hooks.raw_data(self)

    def held_tensor(self):
        """The user-visible tensor this slot holds (None for saved outputs and when freed)."""
        return self.tensor


class Node(NodeAPI):
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
    _exposed = (None, frozenset())  # (class, the saved names installed on it): see expose
    _unpacked = None  # the saves unpacked for the backward running now (Op._backward)

    def __init__(self):
        self._id = next(_creation_counter)
        self._saved_slots = {}
        if anomaly_mode._enabled:
            anomaly_mode.record(self)

    def name(self):
        return type(self).__name__

    def _sequence_nr(self):
        return self._id

    def __repr__(self):
        return f"<{self.name()} object #{self._id}>"

    # -- saved slots ---------------------------------------------------------------------------
    def save(self, slot, tensor, is_output=False):
        if tensor is None:
            self._saved_slots[slot] = None
        elif isinstance(tensor, _tensor.TensorBase):
            if tensor is _inplace_self and slot == "self":
                # An in-place op whose formula needs the old values saves a copy of them
                # (PyTorch's ``original_self = self.clone()``), recorded like any clone.
                tensor = tensor.clone()
            self._saved_slots[slot] = SavedTensor(tensor, is_output=is_output)
        else:
            raise TypeError(f"save expects a Tensor or None, got {type(tensor).__name__}")
        if slot not in type(self)._exposed[1] or type(self)._exposed[0] is not type(self):
            self._expose(slot, "_raw_saved_", "_saved_")  # (once per class and slot)

    def saved(self, slot):
        """Unpack one saved tensor (None if the save was skipped); raises once released."""
        unpacked = self._unpacked
        if unpacked is not None:
            return unpacked.get(slot)
        saved = self._saved_slots.get(slot)
        return None if saved is None else saved.unpack(self)

    def _release_variables(self):
        """Release every saved tensor (the engine, after the node ran); the slots released."""
        self._released = True
        if not self._saved_slots:
            return ()
        released = []
        for slot, saved in self._saved_slots.items():
            if saved is not None and not saved.released:
                saved.release()
                released.append(slot)
        return released

    # -- backward ------------------------------------------------------------------------------
    def _backward(self, grad_outputs):
        """Gradients for ``next_functions`` from the gradients of this node's outputs (a list)."""
        raise NotImplementedError

    def __call__(self, *grad_outputs, **kwargs):
        """Run this node's backward formula by hand, as ``y.grad_fn(grad)`` does in PyTorch."""
        self._check_call(grad_outputs, kwargs)
        grads = self._backward(list(grad_outputs))
        return tuple(grads) if len(grads) != 1 else grads[0]


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

    @property
    def _tensor_pre_hooks(self):
        """The leaf's own ``register_hook`` hooks: this node runs them before it accumulates."""
        hooks = self.variable._hooks
        return {0: hooks} if hooks else Node._tensor_pre_hooks

    def _backward(self, grad_outputs):
        """``leaf.grad += grad``: in place normally; out of place (recorded) in grad mode, that
        is under create_graph, where a first gradient is copied into a fresh tensor (PyTorch's
        ``clone_obey_contract``: ``new_empty_strided().copy_(grad)``, so ``.grad``'s node is
        ``CopyBackwards``)."""
        grad, variable = grad_outputs[0], self.variable
        if grad is None:
            return []
        old = variable._grad
        if _grad_mode._enabled:
            variable._grad = (_tensor.make_tensor(np.empty(variable.shape, grad._data.dtype))
                              .copy_(grad) if old is None else old + grad)
        elif old is None:
            variable._grad = _tensor.make_tensor(np.array(grad._data, dtype=variable._data.dtype,
                                                           copy=True))
        else:
            np.add(old._data, grad._data, out=old._data, casting="unsafe")
            old._version_counter.value += 1
        if variable._post_accumulate_grad_hooks:
            from .extensions.hooks import run_post_accumulate_grad_hooks
            run_post_accumulate_grad_hooks(variable)
        return []

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
