"""The base of every built-in op: forward on ndarrays, named saves, backward in Tensor ops.

An op is a :class:`~autograd_lesson._node.Node` subclass named after PyTorch's node
(``MulBackward0``)::

    class ExpBackward0(Op):
        def forward(ctx, x):            # ndarray math on x._data
            ctx.save_output("result")   # what PyTorch saves, under its slot name
            return np.exp(x._data)
        def backward(ctx, grad):        # Tensor ops, so create_graph can record them
            return grad * ctx.saved("result")

``Op.apply(*inputs)`` runs ``forward``; when grad mode is on and an input requires grad it
keeps the instance as the output's ``grad_fn`` with one edge per Tensor input.
"""
import types

import numpy as np

from .. import _fp_errors, _grad_mode, _node, _tensor
from ..extensions import saved_attributes
from ..extensions.saved_scalars import saved_scalar
from .._node import Node
from .._tensor import TensorBase
from .._fp_errors import _extobj_contextvar, enter_fp_ignore, exit_fp_ignore

_new = object.__new__


class _Unrecorded:
    """Stands in for the node when nothing is recorded: saves are dropped, attributes kept."""

    __slots__ = ("_cls", "_inputs", "_needs", "__dict__")  # (the forward's own attributes)
    recording = False  # a forward may skip computing what only a save would use

    @property
    def needs_input_grad(self):  # under no_grad (most backward formulas) only if asked for
        if self._needs is None:
            self._needs = _edge_inputs(self._cls, self._inputs)[1]
        return self._needs

    def _drop(*args, **kwargs):
        pass

    save = save_scalar = save_output = save_value = save_values = _drop


def _edge_inputs(cls, inputs):
    """One entry per edge PyTorch gives the node: each Tensor input (lists flattened), and None
    for a Python scalar that PyTorch wraps into a tensor (``x * 2``: an edge to nothing).
    Non-differentiable inputs (masks, class targets) get no edge at all. Returns the entries
    and, for each, whether it requires grad (``needs_input_grad``)."""
    flat, needs = [], []
    skip = cls.non_differentiable
    for i, value in enumerate(inputs):
        if skip and i in skip:
            continue
        if isinstance(value, TensorBase):
            flat.append(value)  # (Tensor.requires_grad, inlined: this runs for every input)
            needs.append(_view_needs_grad(cls, value) if value._base is not None
                         and value._base._requires_grad else value._requires_grad)
        elif isinstance(value, (list, tuple)) and value and all(isinstance(v, TensorBase) for v in value):
            flat.extend(value)
            needs.extend([_view_needs_grad(cls, v) if v._base is not None and v._base._requires_grad
                          else v._requires_grad for v in value])
        elif i in cls.scalar_edges:
            flat.append(None)
            needs.append(False)
    return flat, tuple(needs)


def _view_needs_grad(cls, view):
    """True; PyTorch reads a view's edge before the kernel, so a stale view's error comes first."""
    if cls.reads_edges_first:
        view.grad_fn
    return True


class Op(Node):
    """A built-in differentiable op (see the module docstring for the pattern)."""

    recording = True         # (False on the stand-in used when nothing is recorded)
    is_view = False          # output shares storage and version counter with input 0
    differentiable_outputs = 1  # outputs after this many are non-differentiable (max's indices)
    multi_view = None        # "Split", "Unbind": every output is a view, none may change in place
    any_dtype = False        # outputs of any dtype carry a gradient (copy_ only, as in PyTorch)
    scalar_edges = ()        # argument positions where a Python scalar still gets an edge
    non_differentiable = ()  # argument positions of tensors that get no edge
    reads_edges_first = True  # (False: _to_copy, whose node depends on the dtype asked for)

    _output_saves = ()

    def __init_subclass__(cls, **kwargs):
        """Each op class keeps ``apply`` bound to itself: ``MulBackward0.apply(...)``, run for
        every op, then reads a plain class attribute (which CPython 3.11 specializes) instead
        of binding the classmethod anew per call."""
        super().__init_subclass__(**kwargs)
        found = next(k.__dict__["apply"] for k in cls.__mro__ if "apply" in k.__dict__)
        if isinstance(found, (classmethod, types.MethodType)):  # (its own, or inherited)
            cls.apply = types.MethodType(found.__func__, cls)

    def save_output(self, slot, output_nr=0):
        """Save this op's own output (PyTorch's ``result``) once it exists."""
        self._output_saves += ((slot, output_nr),)

    def save_scalar(self, slot, value):
        """Save a Python scalar operand as PyTorch does: a 0-dim int64/float64 tensor."""
        self._saved_slots[slot] = saved_scalar(value)
        if slot not in type(self)._exposed[1] or type(self)._exposed[0] is not type(self):
            self._expose(slot, "_raw_saved_", "_saved_")  # (once per class and slot)

    def save_value(self, name, value):
        """A non-tensor save (``dim``, ``alpha`` ...): readable even after the graph is freed."""
        self._own("_saved_values")[name] = value
        if name not in type(self)._exposed[1] or type(self)._exposed[0] is not type(self):
            self._expose(name, "_saved_")

    def save_values(self, **values):
        """Several non-tensor saves at once, in PyTorch's order."""
        self._own("_saved_values").update(values)
        owner, exposed = type(self)._exposed
        for name in values:
            if owner is not type(self) or name not in exposed:
                self._expose(name, "_saved_")

    @classmethod
    def apply(cls, *inputs, **params):
        record, needs = False, None
        if _grad_mode._enabled and not _grad_mode._inference:
            tensors, needs = _edge_inputs(cls, inputs)
            record = True in needs
        if record:
            ctx = cls()
            ctx.needs_input_grad = needs
        else:
            ctx = _new(_Unrecorded)  # (its slots set here: no __init__ frame per op)
            ctx._cls, ctx._inputs, ctx._needs = cls, inputs, needs
        # Every forward runs under NumPy's ignore-all error state: PyTorch never warns of an
        # inf or a nan (inf - inf, 0 * inf, exp(100.), 1 / 0j), so no op should. Inside an op
        # or the engine's walk it is on already (enter_fp_ignore's first check, inlined).
        if _extobj_contextvar is not None and _extobj_contextvar.get() is _fp_errors._ignoring:
            result = cls.forward(ctx, *inputs, **params)
        else:
            token = enter_fp_ignore()
            try:
                result = cls.forward(ctx, *inputs, **params)
            finally:
                exit_fp_ignore(token)
        if type(result) is not tuple:  # the common case: one output
            if type(result) is not np.ndarray:  # a ufunc of a 0-dim array gives a NumPy scalar
                result = np.asarray(result)
            kind = result.dtype.kind
            differentiable = record and (kind == "f" or cls.any_dtype)
            if record and kind == "c":
                _refuse_complex()
            fn = ctx if differentiable else None
            out = (_view(inputs[0], result, differentiable, fn, 0, cls) if cls.is_view
                   else _tensor.make_tensor(result, differentiable, fn))
            if differentiable:  # (x.long() reads no edge: a stale view's grad_fn is not asked)
                ctx._connect(tensors, (out,), inputs)
            return out
        if record and any(a.dtype.kind == "c" for a in result[:cls.differentiable_outputs]):
            _refuse_complex()
        outputs = []
        for nr, array in enumerate(result):
            if type(array) is not np.ndarray:
                array = np.asarray(array)
            # Only floating outputs carry a gradient (PyTorch's isDifferentiableType): x.long()
            # of a tensor that requires grad does not.
            differentiable = (record and nr < cls.differentiable_outputs
                              and (array.dtype.kind == "f" or cls.any_dtype))
            fn = ctx if differentiable else None
            if cls.is_view and (nr == 0 or cls.multi_view):
                out = _view(inputs[0], array, differentiable, fn, nr, cls)
            else:
                out = _tensor.make_tensor(array, requires_grad=differentiable, grad_fn=fn, output_nr=nr)
            outputs.append(out)
        if record:
            ctx._connect(tensors, outputs, inputs)
        return tuple(outputs)

    def _connect(self, tensors, outputs, inputs):
        """Edges to the inputs, their metadata for the engine's checks, and the output saves."""
        edges, metadata = [], []
        for t in tensors:
            if t is None:
                edges.append((None, 0))
                metadata.append(((), None))
            elif t._base is None:
                fn = t._grad_fn
                if fn is not None:
                    edges.append((fn, t._output_nr))
                elif t._requires_grad:  # a leaf: its AccumulateGrad (Tensor._grad_accumulator)
                    ref = t._accumulator_ref  # (its fast path inlined: a leaf per Linear)
                    fn = ref() if ref is not None else None
                    edges.append((fn if fn is not None else t._grad_accumulator(), 0))
                else:
                    edges.append((None, 0))
                metadata.append((t._data.shape, t._data.dtype))
            else:
                fn = t.grad_fn  # (a view may regenerate it)
                edges.append((fn, t._output_nr) if fn is not None else t._gradient_edge())
                metadata.append((t._data.shape, t._data.dtype))
        self.next_functions = tuple(edges)
        self._input_metadata = tuple(metadata)
        if len(outputs) != 1:
            self._num_outputs = min(self.differentiable_outputs, len(outputs))
        if self._output_saves and not (inputs and inputs[0] is _node._inplace_self):
            for slot, nr in self._output_saves:  # (an in-place op saves its target instead)
                self.save(slot, outputs[nr], is_output=True)

    def _backward(self, grad_outputs):
        # Like PyTorch's generated nodes, unpack every save first: a freed or stale one raises
        # even if this call would not need it.
        slots = self._saved_slots
        if slots:  # (a node without saves: saved() finds nothing either way)
            unpacked = {}
            for slot, saved in slots.items():  # (a loop: a comprehension is a call in 3.11)
                if saved is not None:
                    unpacked[slot] = saved.unpack(self)
            self._unpacked = unpacked
        try:
            if not grad_outputs or (grad_outputs[0] is None
                                    and all(g is None for g in grad_outputs)):
                return [None] * len(self.next_functions)
            grads = self.backward(*grad_outputs)
        finally:
            if slots:
                self._unpacked = None
        return list(grads) if isinstance(grads, tuple) else [grads]

    def backward(self, *grad_outputs):
        raise NotImplementedError

    def _lookup_saved(self, attr):
        return saved_attributes.lookup_undefined(self, attr)


def _view(base, array, differentiable, fn, nr, cls):
    """Output ``nr`` of a view op: the base's storage and version counter, and how it was made
    (a view of a view inherits it, as PyTorch's ``creation_meta``)."""
    root = base._base
    if base._st is not None and base._st.inference:  # (inference memory: no autograd view)
        return _tensor.make_tensor(array, False, None, nr if cls.multi_view else 0, base._st)
    if root is None:  # (the base's storage and counter, or None if it has made neither yet)
        out = _tensor.make_tensor(array, differentiable, fn, 0, base._st, base._vc, base)
    else:  # (a view of a view: a counter it has not read yet is the root's, if made)
        out = _tensor.make_tensor(array, differentiable, fn, 0, base._st, base._vc or root._vc, root)
    if not _grad_mode._recording() or base._creation_meta:  # (a view of one keeps its kind)
        out._creation_meta = base._creation_meta or ("inference" if _grad_mode._inference else True)
    if cls.multi_view:
        out._output_nr = nr
    if _grad_mode._recording():
        if cls.multi_view or base._multi_view:
            out._multi_view = True
        elif base._custom_view:
            out._custom_view = True  # (a view of a custom Function's view)
    return out


def _refuse_complex():
    raise NotImplementedError("autograd_lesson does not differentiate complex values: "
                              "compute them from .detach()ed tensors")
