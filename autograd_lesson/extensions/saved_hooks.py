"""Pack and unpack hooks of saved tensors (``autograd.graph.saved_tensors_hooks``,
``SavedTensor.register_hooks``), the extension that ``save_on_cpu`` and checkpoint are made of.

While a pair of hooks is installed (``stack``, innermost last), a save calls
``pack_hook(tensor)`` and keeps what it returns instead of the tensor; the backward calls
``unpack_hook(packed)`` and uses its result, with no version check (the hooks own the values
then), put back in the saved tensor's place in the graph.
"""
import weakref

from .._grad_mode import no_grad
from .. import _tensor  # (the core imports this module while _tensor loads: read it at call time)

stack = []  # (pack, unpack) pairs, innermost last


class Placeholder:
    """Base for what a pack hook returns when it keeps *no* tensor (checkpoint's holders):
    the slot then holds 0 bytes as far as the ledger and ``live_saved_bytes`` can tell."""


PACK_MODIFIES_INPUT = (
    "A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack "
    "hook cannot be modified by in-place operations as this can lead to unexpected side-effects. "
    "Please open an issue if you need to perform in-place operations on the input to a pack hook.")


def pack(saved, tensor, is_output):
    """At save time, under ``stack[-1]``: the slot keeps what the pack hook returns."""
    pack_hook, saved.unpack_hook = stack[-1]
    if tensor.requires_grad and tensor.grad_fn is not None and not is_output:
        saved.grad_edge = (tensor.grad_fn, tensor._output_nr)  # to re-attach on unpack
    _keep(saved, call_pack_hook(pack_hook, tensor))


def call_pack_hook(pack_hook, tensor):
    """PyTorch's ``set_hooks_and_pack_data``: the hook runs in no_grad mode, and may not change
    its input in place (the version counter tells)."""
    from .._fp_errors import call_with_user_fp_errors  # (user code, inside an op)
    counter = tensor._version_counter
    version = counter.value
    with no_grad():
        packed = call_with_user_fp_errors(pack_hook, tensor)
    if counter.value != version:
        raise RuntimeError(PACK_MODIFIES_INPUT)
    return packed


def unpack(saved, node):
    from .._fp_errors import call_with_user_fp_errors  # (user code, inside the engine)
    result = call_with_user_fp_errors(saved.unpack_hook, saved.packed)
    if not isinstance(result, _tensor.TensorBase):
        raise TypeError(f"Output of saved tensor unpack_hook expected to be a Tensor but "
                        f"got result of type {type(result).__name__}")
    return _reattach(saved, result, node) if saved.requires_grad else result


def register_hooks(saved, *hooks):
    """PyTorch's ``SavedTensor.register_hooks(pack_hook, unpack_hook)``: pack the saved value
    now, unpack it in backward (``saved_tensors_hooks`` for this one slot)."""
    check_hook_arguments(saved, hooks)
    pack_hook, unpack_hook = hooks
    if saved.unpack_hook is not None:
        raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have already "
                           "been set. Hint: only one pair of hooks is allowed at a time.")
    if saved.released:
        raise RuntimeError("Calling register_hooks on a saved tensor after it has been freed. "
                           "Saved intermediate values of the graph are freed when you call "
                           ".backward() or autograd.grad(). Specify retain_graph=True if you "
                           "need to backward through the graph a second time or if you need "
                           "to access saved variables after calling backward.")
    if saved.is_output:  # the hook sees the saved data, outside the graph
        tensor = _tensor.make_tensor(saved.array, storage=saved.storage,
                                      version_counter=saved.version_counter)
    elif saved.is_wrapped_scalar:
        tensor = saved.scalar_tensor()
    else:  # (the hook sees the original detached, as PyTorch's saved_original_)
        tensor = saved.tensor
        if tensor.requires_grad and tensor.grad_fn is not None:
            saved.grad_edge = (tensor.grad_fn, tensor._output_nr)
        tensor = tensor.detach()
    saved.unpack_hook = unpack_hook
    _keep(saved, call_pack_hook(pack_hook, tensor))
    saved.tensor = saved.array = None


def raw_data(saved):
    """PyTorch's ``SavedTensor.data``: what the slot holds, with no version check: the
    original tensor, a saved output's values outside the graph, or what a pack hook returned
    (None once freed)."""
    if saved.released:
        return None
    if saved.unpack_hook is not None:
        return saved.packed
    if saved.is_output:
        return _tensor.make_tensor(saved.array, storage=saved.storage,
                                   version_counter=saved.version_counter)
    return saved.scalar_tensor() if saved.is_wrapped_scalar else saved.tensor


def check_hook_arguments(saved, hooks):
    """``SavedTensor.register_hooks`` takes two callables: pybind11's message otherwise."""
    if len(hooks) != 2 or not all(callable(hook) for hook in hooks):
        raise TypeError(
            "register_hooks(): incompatible function arguments. The following argument types "
            "are supported:\n    1. (self: torch._C._autograd.SavedTensor, arg0: "
            "collections.abc.Callable, arg1: collections.abc.Callable) -> None\n\nInvoked "
            f"with: {', '.join(repr(x) for x in (saved, *hooks))}")


def _keep(saved, packed):
    """Hold the pack hook's result, and count the storage it keeps: a Tensor's (or the first one
    in a tuple, as ``save_on_cpu`` packs ``(device, tensor)``), none for a Placeholder; any other
    object we can't look inside, and assume it keeps the tensor (a box around ``t.detach()``)."""
    saved.packed = packed
    saved.placeholder = isinstance(packed, Placeholder)
    if saved.placeholder:
        saved.storage, saved.nbytes = _tensor.Storage(0), 0
        return
    items = packed if isinstance(packed, (tuple, list)) else (packed,)
    held = next((t for t in items if isinstance(t, _tensor.TensorBase)), None)
    if held is not None:
        saved.storage, saved.nbytes = held._storage, held._data.nbytes


def _reattach(saved, data, node):
    """As PyTorch: the hook's values, in the saved tensor's place in the graph (the node for a
    saved output, else the original's grad_fn or leaf), whatever history they had."""
    t = _tensor.make_tensor(data._data, storage=data._storage,
                             version_counter=data._version_counter)
    if saved.is_output:
        t.grad_fn, t._output_nr = node, saved.output_nr
    elif saved.grad_edge is not None:
        t.grad_fn, t._output_nr = saved.grad_edge
    else:
        leaf = saved.ref()
        if leaf is None:
            return data
        accumulator = leaf._grad_accumulator()  # gradients reach the original leaf's .grad
        t._accumulator_ref, t.__dict__["_accumulator"] = weakref.ref(accumulator), accumulator
    t._requires_grad = True
    return t
