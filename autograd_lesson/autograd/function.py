"""Custom differentiable functions, shaped like ``torch.autograd.Function``::

    class MyReLU(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.clamp(min=0)

        @staticmethod
        def backward(ctx, grad_output):
            x, = ctx.saved_tensors
            return grad_output * (x > 0)

``MyReLU.apply(x)`` records a node named ``MyReLUBackward`` that doubles as ``ctx``. As in
PyTorch, ``forward`` may instead take no ctx when ``setup_context(ctx, inputs, output)`` is
defined, and ``vjp`` is another name for ``backward``.
"""
import functools
import warnings

from .. import _grad_mode
from .._node import Node
from .._tensor import Tensor
from .._fp_errors import call_with_user_fp_errors


BOTH_BACKWARD_AND_VJP = ("Implementing both 'backward' and 'vjp' for a custom Function is not "
                         "allowed. You should only implement one of them.")


class BackwardCFunction(Node):
    """The node (and ``ctx``) of one call of a custom Function."""

    _forward_cls = None
    _static_needs_input_grad = True
    __getattr__ = Node._lookup_saved  # (users read their own ctx attributes: same messages)

    def __init__(self):
        super().__init__()
        self._to_save = ()
        self._non_differentiable = ()
        self._dirty = ()
        self._materialize_grads = True
        self._arg_is_tensor = ()

    def __call__(self, *args, **kwargs):  # (``ctx.apply(g)`` runs it, as in PyTorch)
        raise TypeError(f"'{type(self).__name__}' object is not callable")

    def apply(self, *grad_outputs):
        """The user's backward (or vjp) on these gradients, as PyTorch's BackwardCFunction.apply."""
        cls = self._forward_cls
        if cls.backward is not Function.backward and cls.vjp is not Function.vjp:
            raise RuntimeError(BOTH_BACKWARD_AND_VJP)
        return (cls.vjp if cls.vjp is not Function.vjp else cls.backward)(self, *grad_outputs)

    def save_for_backward(self, *tensors):
        """Tensors (or None) that backward reads back from ``ctx.saved_tensors``."""
        self._to_save = tensors

    def mark_dirty(self, *tensors):
        """Inputs that forward changed in place (and returns): they take this node's history."""
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors):
        """Outputs that get no gradient (indices, masks): they do not require grad."""
        self._non_differentiable = tensors

    def set_materialize_grads(self, value):
        """False: backward receives None (not zeros) for outputs that got no gradient."""
        self._materialize_grads = bool(value)

    def _check_not_freed(self):
        """After its backward the node's buffers are freed (PyTorch's has_freed_buffers): the
        saved tensors can't be read, even when none was saved."""
        if self._released:
            from .._autograd_errors import FREED_MESSAGE
            raise RuntimeError(FREED_MESSAGE)

    @property
    def saved_tensors(self):
        self._check_not_freed()
        return tuple(self.saved(f"saved_tensors[{i}]") for i in range(len(self._saved_slots)))

    @property
    def _raw_saved_tensors(self):
        self._check_not_freed()
        from ..extensions.saved_attributes import UNDEFINED_SAVED  # a saved None is an undefined SavedTensor
        slots = (self._saved_slots[f"saved_tensors[{i}]"] for i in range(len(self._saved_slots)))
        return tuple(UNDEFINED_SAVED if slot is None else slot for slot in slots)

    def _backward(self, grad_outputs):
        if self._materialize_grads:  # a non-Tensor output's gradient stays None
            grad_outputs = [g if g is not None or meta[1] is None else _zeros(meta)
                            for g, meta in zip(grad_outputs, self._output_metadata)]
        cls = self._forward_cls
        backward, vjp = cls.backward, cls.vjp
        if backward is not Function.backward and vjp is not Function.vjp:
            raise RuntimeError(BOTH_BACKWARD_AND_VJP)
        result = call_with_user_fp_errors(vjp if vjp is not Function.vjp else backward, self,
                                          *grad_outputs)  # (user code, under the user's state)
        result = result if isinstance(result, tuple) else (result,)
        expected = len(self._arg_is_tensor)
        if len(result) > expected and all(g is None for g in result[expected:]):
            result = result[:expected]  # PyTorch accepts (and drops) extra trailing Nones
        if len(result) != expected:
            raise RuntimeError(f"function {self.name()} returned an incorrect number of gradients "
                               f"(expected {len(self._arg_is_tensor)}, got {len(result)})")
        grads = []
        for position, (grad, is_tensor) in enumerate(zip(result, self._arg_is_tensor)):
            if is_tensor:
                grads.append(grad)
            elif grad is not None:
                raise RuntimeError(f"function {self.name()} returned a gradient different than "
                                   f"None at position {position + 1}, but the corresponding "
                                   f"forward input was not a Variable")
        return grads


DIRTY_NOT_RETURNED = ("Some elements marked as dirty during the forward method were not returned "
                      "as output. The inputs that are modified inplace must all be outputs of the "
                      "Function.")
DIRTY_VIEW_MULTI_OUTPUT = (
    "If your Function modifies inplace an input that is a view of another Tensor, your Function "
    "cannot return more than one Tensor. This is not supported by the current autograd engine. "
    "You should either make sure the input is not a view (using .clone() for example) or make "
    "your Function only return one Tensor (potentially splitting it into two Functions: one "
    "doing the inplace that returns a single Tensor and a second one that does the other "
    "operations). You can ask on the forum https://discuss.pytorch.org/ if you need help to do "
    "this change.")


def _mark_modified(tensor, node, nr, num_outputs):
    """An input the forward changed in place (``ctx.mark_dirty``) takes this node's history, as
    PyTorch's ``rebase_history``: a view's base gets a ``CopySlices`` around the node."""
    from .._surface import inplace
    if tensor._grad_fn is None and tensor.requires_grad:  # (a view's is not regenerated here)
        raise RuntimeError("a leaf Variable that requires grad has been used in an in-place "
                           "operation.")
    if tensor._base is None:
        tensor.grad_fn, tensor._output_nr, tensor._requires_grad = node, nr, True
        return
    if num_outputs > 1:
        raise RuntimeError(DIRTY_VIEW_MULTI_OUTPUT)
    inplace._check_views_and_leaves(tensor)  # (PyTorch's handle_view_on_rebase)
    inplace.rebase_history(tensor, node)


def _without_history(out, is_input, is_dirty):
    """An output that gets no gradient (not recorded, or not differentiable), as PyTorch's
    ``_wrap_outputs``: an input comes back as a new view of it, or, if it requires grad, as a
    detached alias (so under no_grad even a dirty input is not the object returned)."""
    if not out.requires_grad:
        return _as_view(out) if is_input and not is_dirty else out
    if is_input:  # the input keeps its own history
        return out.detach()
    if out._base is None:
        out.detach_()
    return out


def _as_view(tensor):
    """An input returned as-is comes back as a new view of it (PyTorch's
    ``_view_as_self_with_no_grad``): ``out is not x``, ``out._base is x``."""
    return Tensor._make(tensor._data.view(), storage=tensor._storage,
                        version_counter=tensor._version_counter,
                        base=tensor if tensor._base is None else tensor._base)


def _zeros(meta):
    import numpy as np
    shape, dtype = meta
    return Tensor._make(np.zeros(shape, dtype=dtype))


class FunctionMeta(type):
    """Gives each Function subclass its node class, ``<Name>Backward``, as PyTorch does."""

    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})


class Function(metaclass=FunctionMeta):
    """Base class for custom ops: define static ``forward(ctx, ...)`` and ``backward(ctx, ...)``."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your "
                                  "custom autograd.Function to use it with backward mode AD.")

    def __init__(self, *args, **kwargs):
        warnings.warn(f"{self.__class__} should not be instantiated. Methods on autograd "
                      f"functions are all static, so you should invoke them on the class itself. "
                      f"Instantiating an autograd function will raise an error in a future "
                      f"version of PyTorch.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is "
                           "deprecated. Please use new-style autograd function with static "
                           "forward method. (Example: "
                           "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def vjp(ctx, *grad_outputs):
        """Another name for ``backward``: define one of the two."""
        return Function.backward(ctx, *grad_outputs)

    @staticmethod
    def setup_context(ctx, inputs, output):
        """Define it to write ``forward(*args)`` without ctx; it then fills ctx afterwards."""
        raise NotImplementedError("setup_context is not implemented.")

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = cls._backward_cls()
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        ctx._arg_is_tensor = tuple(isinstance(a, Tensor) for a in args)
        inputs = [a for a in args if isinstance(a, Tensor)]
        recording = _grad_mode._recording() and any(t.requires_grad for t in inputs)
        if recording:  # the edges before forward, as PyTorch: it may change an input in place
            ctx.next_functions = tuple(t._gradient_edge() for t in inputs)
            ctx._input_metadata = tuple((t._data.shape, t._data.dtype) for t in inputs)
        with _grad_mode.no_grad():
            if cls.setup_context is Function.setup_context:
                raw = cls.forward(ctx, *args, **kwargs)
            else:  # the "separate ctx" style
                raw = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, raw)
        outputs = raw if isinstance(raw, tuple) else (raw,)
        for t in ctx._dirty:  # PyTorch's _mark_dirty: one more version, recorded or not
            t._version_counter.value += 1
        if not recording:
            if not all(any(d is o for o in outputs) for d in ctx._dirty):
                raise RuntimeError(DIRTY_NOT_RETURNED)
            results = tuple(_without_history(o, any(o is t for t in inputs),
                                             any(o is d for d in ctx._dirty))
                            if isinstance(o, Tensor) else o for o in outputs)
            return results if isinstance(raw, tuple) else results[0]
        def is_differentiable(o):  # (PyTorch: not marked, and of a float or complex dtype)
            return (isinstance(o, Tensor) and o._data.dtype.kind in "fc"
                    and not any(o is t for t in ctx._non_differentiable))
        differentiable = sum(map(is_differentiable, outputs))
        for i, t in enumerate(ctx._to_save):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(f"save_for_backward can only save variables, but argument {i} is "
                                f"of type {type(t).__name__}")
        for t in ctx._dirty:
            if not any(t is i for i in inputs):
                warnings.warn("ctx.mark_dirty() received a tensor that was not an input. Only "
                              "input Tensors that have been mutated should be passed to "
                              "ctx.mark_dirty().", UserWarning, stacklevel=2)
        results, done = [], {}
        for nr, out in enumerate(outputs):
            if id(out) in done:  # returned twice: one object, numbered by its last position
                out = done[id(out)]
                out._output_nr = nr
            elif isinstance(out, Tensor) and not is_differentiable(out):
                out = _without_history(out, any(out is t for t in inputs),
                                       any(out is t for t in ctx._dirty))
            elif isinstance(out, Tensor) and any(out is t for t in ctx._dirty):
                _mark_modified(out, ctx, nr, len(outputs))  # the tensor itself takes the history
                done[id(outputs[nr])] = out
            elif isinstance(out, Tensor):
                if any(out is t for t in inputs):
                    out = _as_view(out)
                elif out.grad_fn is not None:
                    out = Tensor._make(out._data, storage=out._storage,
                                       version_counter=out._version_counter)
                out.grad_fn, out._output_nr, out._requires_grad = ctx, nr, True
                if out._base is not None:  # PyTorch forbids changing it in place (creation_meta)
                    out._creation_meta = False
                    out._attr_version = out._version_counter.value  # (forward's own changes: done)
                    out.__dict__["_multi_view" if differentiable > 1 else "_custom_view"] = True
                done[id(outputs[nr])] = out
            results.append(out)
        if not all(any(d is o for o in outputs) for d in ctx._dirty):
            raise RuntimeError(DIRTY_NOT_RETURNED)
        ctx._num_outputs = len(outputs)
        ctx._output_metadata = tuple((o.shape, o._data.dtype) if isinstance(o, Tensor) else ((), None)
                                     for o in outputs)
        for i, tensor in enumerate(ctx._to_save):
            as_output = next((r for o, r in zip(outputs, results) if o is tensor), None)
            if as_output is not None:
                ctx.save(f"saved_tensors[{i}]", as_output, is_output=True)
            else:
                ctx.save(f"saved_tensors[{i}]", tensor)
        ctx._to_save = ()
        return tuple(results) if isinstance(raw, tuple) else results[0]


ONCE_DIFFERENTIABLE_ERROR = ("trying to differentiate twice a function that was marked with "
                             "@once_differentiable")


class Error(Node):
    """PyTorch's ``Error`` node: a backward that reaches it raises its message."""

    __getattr__ = Node._lookup_saved  # (messages name it torch::autograd::Error)

    def __init__(self, msg, tensors):
        super().__init__()
        self.msg = msg
        self.next_functions = tuple((None, 0) if t is None else t._gradient_edge()
                                    for t in tensors)
        self._input_metadata = tuple(((), None) if t is None else (t._data.shape, t._data.dtype)
                                     for t in tensors)
        self._num_outputs = len(tensors)

    def name(self):
        return "torch::autograd::Error"

    def _backward(self, grad_outputs):
        raise RuntimeError(self.msg)


def _delayed_error(msg, tensors):
    """PyTorch's ``DelayedError(msg, n)(*tensors)``: aliases of the tensors (each with a version
    counter of its own) whose ``grad_fn`` is an :class:`Error` node."""
    node = Error(msg, tensors)
    return tuple(None if t is None else
                 Tensor._make(t._data, requires_grad=True, grad_fn=node, output_nr=nr,
                              storage=t._storage)
                 for nr, t in enumerate(tensors))


def once_differentiable(fn):
    """Decorate a custom Function's ``backward``: it runs under ``no_grad``, and if an incoming
    gradient requires grad (create_graph), what it returns leads to an ``Error`` node, so that a
    double backward through it raises instead of silently getting no gradient."""
    @functools.wraps(fn)
    def wrapper(ctx, *args, **kwargs):
        with _grad_mode.no_grad():
            outputs = fn(ctx, *args, **kwargs)
        if not _grad_mode.is_grad_enabled():
            return outputs
        # (as PyTorch: only the gradients passed in count; what ctx saved is not looked at)
        if not any(isinstance(arg, Tensor) and arg.requires_grad for arg in args):
            return outputs
        outputs_ = outputs if isinstance(outputs, tuple) else (outputs,)

        def fake_requires_grad(var):
            if var is not None:
                var = var.detach()
                var.requires_grad = True
            return var
        return _delayed_error(ONCE_DIFFERENTIABLE_ERROR, [fake_requires_grad(v) for v in outputs_])
    return wrapper
