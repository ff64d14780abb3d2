"""``autograd.graph``: saved-tensor hooks and gradient edges (as in PyTorch), and the engine's
event stream (``observe``, ``register_observer``: ``extensions/observers.py``)."""
from collections import defaultdict, namedtuple
from contextlib import contextmanager
from weakref import WeakKeyDictionary, WeakValueDictionary

from .._node import Node
from ..extensions.saved_hooks import stack as _saved_tensors_hooks
from ..utils.hooks import RemovableHandle
from .._tensor import Tensor

from ..extensions.observers import (  # noqa: F401  (autograd.graph's names for them)
    BackwardFinished, BackwardStarted, BuffersReleased, GradAccumulated, NodeFinished, NodeStarted,
    _emit, _observers, observe, register_observer)

GradientEdge = namedtuple("GradientEdge", "node output_nr")
GradientEdge.__doc__ = "An edge of the graph: ``node``'s input number ``output_nr``."


def get_gradient_edge(tensor):
    """The edge a gradient for ``tensor`` flows into: its grad_fn (or AccumulateGrad for a leaf)
    and its output number. ``autograd.grad`` and ``backward`` accept it as an input."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does "
                           "not require gradients")
    return GradientEdge(*tensor._gradient_edge())


def increment_version(tensor):
    """Bump the version counter of a tensor (or of each tensor in an iterable), as an in-place
    op does, so that graphs which saved it refuse to use the old values."""
    from .._grad_mode import INFERENCE_VERSION_ERROR
    for t in (tensor,) if isinstance(tensor, Tensor) else tensor:
        if t._storage.inference:
            raise RuntimeError(INFERENCE_VERSION_ERROR)
        t._version_counter.value += 1


class _MultiHandle(RemovableHandle):
    def __init__(self, handles):
        self.handles = handles
        self.id = next(RemovableHandle._ids)

    def remove(self):
        for handle in self.handles:
            handle.remove()


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """``mode="all"``: ``fn(grads)`` once per backward, after the gradients of all ``tensors``
    that this backward computes are known (None for the others); ``mode="any"``: ``fn(grad)``
    with the first of them to be computed."""
    from ..extensions.graph_task import current_graph_task, will_engine_execute_node
    supported_modes = ("all", "any")
    if mode not in supported_modes:
        raise ValueError(f"Expects mode to be one of {supported_modes} but got {mode}")
    if mode == "any":
        ran = set()

        def once(grad):
            task = current_graph_task()[0]
            if task not in ran:
                ran.add(task)
                fn(grad)
        return _MultiHandle(tuple(t.register_hook(once) for t in tensors if t.requires_grad))
    nodes = [t._gradient_edge()[0] for t in tensors]
    buffers, counts = {}, {}

    def inner_hook(idx):
        def hook(grad):
            task = current_graph_task()[0]
            if task == -1:
                raise AssertionError("expected this hook to be called inside a backward call")
            buffer = buffers.setdefault(task, [None] * len(tensors))
            count = counts[task] = counts.get(task, 0) + 1
            buffer[idx] = grad
            if count == sum(map(will_engine_execute_node, nodes)):
                del buffers[task], counts[task]
                fn(buffer)
        return hook
    return _MultiHandle(tuple(t.register_hook(inner_hook(i)) for i, t in enumerate(tensors)))


_hooks_disabled = []  # the error messages of the disable_saved_tensors_hooks blocks, innermost last


@contextmanager
def disable_saved_tensors_hooks(error_message):
    """Inside, entering ``saved_tensors_hooks`` raises ``RuntimeError(error_message)`` (and so
    does entering this while hooks are active)."""
    if _saved_tensors_hooks:
        raise RuntimeError(error_message)
    _hooks_disabled.append(error_message)
    try:
        yield
    finally:
        _hooks_disabled.pop()


class saved_tensors_hooks:
    """Replace how saved tensors are stored: ``pack_hook(tensor)`` at save time, ``unpack_hook``
    when backward needs it back. As in PyTorch, wrapped Python scalars (``x * 2``) skip them."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        if _hooks_disabled:
            raise RuntimeError(_hooks_disabled[-1])
        _saved_tensors_hooks.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc):
        _saved_tensors_hooks.pop()
        return False


class save_on_cpu(saved_tensors_hooks):
    """Store the tensors saved inside it "on the CPU" and bring them back for backward.

    On a CPU-only machine (like this package) ``pin_memory=False`` keeps the tensor itself
    (``tensor.cpu()`` is the tensor); ``pin_memory=True`` packs a copy, as PyTorch does when it
    cannot pin. Like any saved-tensor hook it skips the version check on unpack.
    """

    def __init__(self, pin_memory=False, device_type="cuda"):
        from .._tensor import Tensor

        def pack_to_cpu(tensor):
            if not pin_memory:
                return ("cpu", tensor)
            return ("cpu", Tensor._make(tensor._data.copy()))  # torch.empty(...).copy_(tensor)

        def unpack_from_cpu(packed):
            return packed[1]

        super().__init__(pack_to_cpu, unpack_from_cpu)


# -- allow_mutation_on_saved_tensors ------------------------------------------------------------
# As PyTorch does it: every tensor saved inside the context is packed as a handle (a saved
# tensor hook, so no version check on unpack); every in-place write inside the context first
# looks up, by (data pointer, version), the saves its target's memory is behind, and clones
# their originals, so the backward reads the old values from the clone.
_allow_mutation_on_saved_tensors_enabled = False


def _get_tid(tensor):
    return (id(tensor), tensor.data_ptr(), tensor._version)


def _get_sid(tensor):
    return (tensor.data_ptr(), tensor._version)  # (a view at another offset: another sid)


class _Handle:
    pass


class _swap_with_cloned(saved_tensors_hooks):
    def __init__(self, ctx):
        def pack_hook(tensor):
            tid, sid = _get_tid(tensor), _get_sid(tensor)
            ctx.sid_to_tid[sid].add(tid)
            handle = ctx.tid_to_weakhandle.get(tid)  # the same tensor saved twice: one handle
            if handle is None:
                handle = _Handle()
                ctx.tid_to_weakhandle[tid] = handle
                ctx.original[handle] = tensor
            return handle

        def unpack_hook(handle):
            # (PyTorch's message, its missing space included)
            error_msg = ("Trying to backward outside of the 'allow_mutation_on_saved_tensors' "
                         "contextin which the graph was originally recorded.")
            if not _allow_mutation_on_saved_tensors_enabled:
                raise AssertionError(error_msg)
            if handle in ctx.cloned:
                return ctx.cloned[handle]
            if handle not in ctx.original:
                raise AssertionError(error_msg)
            return ctx.original[handle]

        super().__init__(pack_hook, unpack_hook)


class _CloneArgBeforeMutateMode:
    """PyTorch's dispatch mode, as a hook the in-place paths call with the tensor they are
    about to write (``_surface.inplace.before_write``)."""

    def __init__(self, ctx):
        self.ctx = ctx

    def __call__(self, tensor):
        ctx, sid = self.ctx, _get_sid(tensor)
        for tid in ctx.sid_to_tid.get(sid, ()):
            handle = ctx.tid_to_weakhandle.get(tid)
            if handle is None or handle in ctx.cloned:  # freed by a backward, or cloned already
                continue
            original = ctx.original.pop(handle)
            ctx.cloned[handle] = clone = Tensor._make(original._data.copy())  # (not recorded)
            _moved_to(handle, clone)

    def __enter__(self):
        from .._surface.inplace import _write_hooks
        _write_hooks.append(self)
        return self

    def __exit__(self, *exc):
        from .._surface.inplace import _write_hooks
        _write_hooks.remove(self)
        return False


def _moved_to(handle, clone):
    """The slots that packed ``handle`` now keep the clone's memory, not the original's: the
    ledgers and ``live_saved_bytes`` show the copy (its own storage, held only by the graph; not
    stale: it has the values saved), memory meters are told."""
    from ..extensions.saved_meters import all_saved, listeners as _saved_listeners
    for saved in all_saved():
        if saved.packed is handle and not saved.released:
            for listener in list(_saved_listeners):
                listener.released(saved)
            saved.storage, saved.nbytes = clone._storage, clone._data.nbytes
            saved.version_counter = clone._version_counter
            saved.saved_version = clone._version_counter.value
            for listener in list(_saved_listeners):
                listener.saved(saved)


class _AllowMutationOnSavedContext:
    def __init__(self):
        self.cloned = WeakKeyDictionary()
        self.original = WeakKeyDictionary()
        self.tid_to_weakhandle = WeakValueDictionary()
        self.sid_to_tid = defaultdict(set)

    def clear(self):
        self.cloned.clear()
        self.original.clear()
        self.tid_to_weakhandle.clear()
        self.sid_to_tid.clear()


@contextmanager
def allow_mutation_on_saved_tensors():
    """Inside it, changing in place a tensor that the graph saved first clones the saved
    values, so the backward (which must run inside the same context) uses the old ones instead
    of raising the version error. Yields the context's state (``ctx.cloned``: the copies)."""
    global _allow_mutation_on_saved_tensors_enabled
    ctx = _AllowMutationOnSavedContext()
    with _swap_with_cloned(ctx), _CloneArgBeforeMutateMode(ctx):
        try:
            if _allow_mutation_on_saved_tensors_enabled:
                raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
            _allow_mutation_on_saved_tensors_enabled = True
            yield ctx
        finally:  # (as PyTorch: a nested attempt's finally switches the outer one off too)
            ctx.clear()
            _allow_mutation_on_saved_tensors_enabled = False


__all__ = ["Node", "saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks",
           "GradientEdge", "get_gradient_edge", "increment_version", "register_multi_grad_hook", "register_observer", "observe",
           "allow_mutation_on_saved_tensors",
           "BackwardStarted", "NodeStarted", "NodeFinished", "BuffersReleased", "GradAccumulated", "BackwardFinished"]
