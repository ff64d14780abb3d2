"""``torch.utils.checkpoint``: trade compute for memory by recomputing a region in backward.

``checkpoint(fn, *args, use_reentrant=False)`` (PyTorch's recommended variant) runs ``fn``
once, normally, except that every tensor its ops save goes through a pack hook that keeps a
*placeholder* (:class:`_Holder`, 0 bytes) instead of the tensor. Only the inputs are kept, in
a ``SavedTensor`` of the checkpoint's own (outer ``saved_tensors_hooks`` see them, and only
them). The graph has the region's ordinary nodes (``ReluBackward0`` ...), no special node.
The first time backward unpacks a placeholder, ``fn`` runs again on the saved inputs, under a
second hook that fills the placeholders with the recomputed tensors; it stops as soon as all
are filled (``early_stop``). That happens once per backward (per graph task), so a second
``backward(retain_graph=True)`` recomputes again; without retain the placeholders are freed
like any saved tensor and the second backward raises PyTorch's usual error.

What the view shows (``lesson.show_graph``, ``viz.timeline.live_saved_bytes``): each slot of
the region's nodes is listed as ``placeholder: <what it replaces>`` at 0 B, alive / retained /
freed like any slot. The inputs are kept by the checkpoint itself, outside every node, so no
ledger lists them, but ``live_saved_bytes()`` counts them; they go when the last placeholder
is freed (a backward without retain). The recomputed tensors live only during the backward,
kept by the checkpoint until their node unpacks them; the meters count them for that time
(a ``saved_tensors_hooks`` counter in PyTorch cannot see them: the checkpoint's own hooks are
innermost).

``use_reentrant=True`` (and, with a warning, an omitted ``use_reentrant``) is the older
variant: a custom Function, ``CheckpointFunctionBackward``, that runs ``fn`` under
``no_grad``, saves the inputs, and in backward recomputes ``fn`` with grad on and calls
``backward`` inside backward.
"""
import contextlib
import warnings
import weakref
from collections import defaultdict

from .. import _grad_mode, _random
from ..extensions.graph_task import current_graph_task
from .._node import SavedTensor
from ..extensions import saved_hooks
from ..extensions.saved_hooks import Placeholder
from .._tensor import Tensor
from ..autograd.function import Function
from ..autograd.graph import saved_tensors_hooks

USE_REENTRANT_WARNING = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting "
    "in PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. "
    "use_reentrant=False is recommended, but if you need to preserve the current default "
    "behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
    "differences between the two variants.")
NO_INPUT_REQUIRES_GRAD_WARNING = ("None of the inputs have requires_grad=True. Gradients will "
                                  "be None")
REENTRANT_PARTIAL_ERROR = (
    "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or passing an "
    "`inputs` parameter to .backward(). To resolve this error, you can either set "
    "use_reentrant=False, or call .backward() without passing the `inputs` argument.")
_DEBUG_TIP = """
Tip: To see a more detailed error message, either pass `debug=True` to
`torch.utils.checkpoint.checkpoint(...)` or wrap the code block
with `with torch.utils.checkpoint.set_checkpoint_debug_enabled(True):` to
enable checkpoint‑debug mode globally.

If this error occurs under torch.compile with automatic_dynamic_shapes enabled,
it may be because the recomputation selected a different compiled graph than the
forward pass (e.g., a dynamic graph instead of the original static graph).
To fix this, either:
  - Use torch._dynamo.mark_dynamic() to explicitly mark varying dimensions as
    dynamic upfront, avoiding the static-to-dynamic transition.
  - Call torch._C._dynamo.eval_frame._set_lru_cache(False) to disable LRU cache
    reordering, which can change which graph is checked first between forward
    and recompute.
See https://github.com/pytorch/pytorch/issues/166926 for more details and
workaround examples.
"""


class CheckpointError(RuntimeError):
    """Raised when the recomputation does not save what the original forward saved."""


def noop_context_fn():
    return contextlib.nullcontext(), contextlib.nullcontext()


_DETERMINISM_CHECKS = {
    "default": lambda x: {"shape": x.shape, "dtype": x.dtype, "device": "cpu"},
    "none": None,
}


@contextlib.contextmanager
def _rng_as_in_forward(state):
    """Run with the generator state the forward started from, then put the current one back."""
    if state is None:
        yield
        return
    bits = _random.generator().bit_generator
    current, bits.state = bits.state, state
    try:
        yield
    finally:
        bits.state = current


def _rng_state(preserve):
    return _random.generator().bit_generator.state if preserve else None


# -- use_reentrant=False ------------------------------------------------------------------------
class _Handle:
    pass


class _Holder(Placeholder):
    """What a checkpointed region's saved slot really holds: a key to the recomputed tensor."""

    def __init__(self):
        self.handles = {}


class _StopRecomputation(Exception):
    pass


def _hold(x):
    """Keep a recomputed tensor until its node unpacks it, in a ``SavedTensor`` (no hooks), so
    memory meters count it for as long as PyTorch's checkpoint holds it."""
    hooks, saved_hooks.stack[:] = list(saved_hooks.stack), []
    try:
        return SavedTensor(x)
    finally:
        saved_hooks.stack[:] = hooks


class _CheckpointFrame:
    """One checkpointed call: its saved inputs, its placeholders (weakly) and, per backward,
    the recomputed tensors."""

    def __init__(self, recompute_fn, early_stop, metadata_fn):
        self.recompute_fn = recompute_fn
        self.early_stop, self.metadata_fn = early_stop, metadata_fn
        self.saved_args = []
        self.weak_holders = []
        self.x_metadatas = []
        self.recomputed = defaultdict(weakref.WeakKeyDictionary)
        self.recomp_counter = defaultdict(int)
        self.is_recomputed = defaultdict(bool)
        self.forward_completed = False
        self.ignore_saved_mismatch = False

    def save_inputs(self, *args):
        self.saved_args = [SavedTensor(a) if isinstance(a, Tensor) else a for a in args]

    def get_inputs(self):
        return [a.unpack(None) if isinstance(a, SavedTensor) else a for a in self.saved_args]

    def check_recomputed_tensors_match(self, gid):
        if self.ignore_saved_mismatch:
            return
        if len(self.weak_holders) != self.recomp_counter[gid]:
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the "
                "original forward and recomputation.\n"
                f"Number of tensors saved during forward: {len(self.weak_holders)}\n"
                f"Number of tensors saved during recomputation: {self.recomp_counter[gid]}.\n"
                f"{_DEBUG_TIP}")
        different = ""
        for idx, weak_holder in enumerate(self.weak_holders):
            holder = weak_holder()
            if holder is None or self.metadata_fn is None:
                continue
            recomputed = self.metadata_fn(self.recomputed[gid][holder.handles[gid]].unpack(None))
            if self.x_metadatas[idx] != recomputed:
                different += (f"tensor at position {idx}:\nsaved metadata: "
                              f"{self.x_metadatas[idx]}\nrecomputed metadata: {recomputed}\n")
        if different:
            raise CheckpointError(
                "torch.utils.checkpoint: Recomputed values for the following tensors have "
                f"different metadata than during the forward pass.\n{different}.\n{_DEBUG_TIP}")


class _recomputation_hook(saved_tensors_hooks):
    """During recomputation: hand each saved tensor to the placeholder it replaces."""

    def __init__(self, frame_ref, gid):
        def pack_hook(x):
            x = x.detach() if x.requires_grad else x
            frame = frame_ref()
            idx = frame.recomp_counter[gid]
            frame.recomp_counter[gid] += 1
            if idx >= len(frame.weak_holders):
                if not frame.forward_completed:  # a backward inside the checkpointed fn
                    frame.ignore_saved_mismatch = True
                    return x
                raise CheckpointError("torch.utils.checkpoint: trying to save more tensors "
                                      "during recomputation than during the original forward "
                                      f"pass.\n{_DEBUG_TIP}")
            holder = frame.weak_holders[idx]()
            if holder is not None:  # else that slot was already freed: nothing to refill
                holder.handles[gid] = _Handle()
                frame.recomputed[gid][holder.handles[gid]] = _hold(x)
            if frame.early_stop and frame.recomp_counter[gid] == len(frame.weak_holders):
                raise _StopRecomputation
            return x

        super().__init__(pack_hook, lambda x: x)


class _checkpoint_hook(saved_tensors_hooks):
    """During the checkpointed forward: save a placeholder instead of each tensor."""

    def __init__(self, frame):
        def pack_hook(x):
            holder = _Holder()
            frame.weak_holders.append(weakref.ref(holder))
            if frame.metadata_fn is not None:
                frame.x_metadatas.append(frame.metadata_fn(x))
            return holder

        def unpack_hook(holder):
            gid = current_graph_task()[0]
            if gid == -1:
                gid = object()  # read outside a backward (node._saved_self): recompute anew
            if not frame.is_recomputed[gid]:
                args = frame.get_inputs()
                try:
                    with _recomputation_hook(weakref.ref(frame), gid), _grad_mode.enable_grad():
                        frame.recompute_fn(*args)
                except _StopRecomputation:
                    pass
                frame.is_recomputed[gid] = True
                frame.check_recomputed_tensors_match(gid)
            if holder.handles[gid] is None:
                raise CheckpointError(
                    "torch.utils.checkpoint: Unpack is being triggered for a tensor that was "
                    "already unpacked once. If you are calling ctx.saved_tensors in backward, "
                    "make sure to do so only once. Otherwise please open an issue with details "
                    "on your use case.")
            held = frame.recomputed[gid][holder.handles[gid]]
            holder.handles[gid] = None
            result = held.unpack(None)
            held.release()
            return result

        super().__init__(pack_hook, unpack_hook)


def _checkpoint_without_reentrant(function, preserve, context_fn, determinism_check, debug,
                                  early_stop, *args, **kwargs):
    if debug:
        raise NotImplementedError("autograd_lesson's checkpoint has no debug mode (it needs "
                                  "PyTorch's dispatcher); call it without debug=True")
    if determinism_check not in _DETERMINISM_CHECKS:
        raise ValueError(f"determinism_check should be one of {list(_DETERMINISM_CHECKS)}, "
                         f"but got {determinism_check}")
    forward_context, recompute_context = context_fn()
    rng_state = _rng_state(preserve)

    def recompute_fn(*inputs):
        with _rng_as_in_forward(rng_state), recompute_context:
            function(*inputs, **kwargs)

    if not _grad_mode.is_grad_enabled():
        with forward_context:
            return function(*args, **kwargs)
    frame = _CheckpointFrame(recompute_fn, early_stop, _DETERMINISM_CHECKS[determinism_check])
    frame.save_inputs(*args)
    with _checkpoint_hook(frame), forward_context:
        result = function(*args, **kwargs)
    frame.forward_completed = True
    return result


# -- use_reentrant=True -------------------------------------------------------------------------
class CheckpointFunction(Function):
    """The reentrant variant: its node is ``CheckpointFunctionBackward``."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        if not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            warnings.warn(NO_INPUT_REQUIRES_GRAD_WARNING, UserWarning, stacklevel=2)
        ctx.run_function = run_function
        ctx.fwd_rng_state = _rng_state(preserve_rng_state)
        ctx.inputs = [None if isinstance(a, Tensor) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.save_for_backward(*(a for a in args if isinstance(a, Tensor)))
        return run_function(*args)  # Function.apply runs forward under no_grad

    @staticmethod
    def backward(ctx, *grad_outputs):
        if current_graph_task()[1]:
            raise RuntimeError(REENTRANT_PARTIAL_ERROR)
        inputs = list(ctx.inputs)
        for i, tensor in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = tensor.detach().requires_grad_(tensor.requires_grad)
        with _rng_as_in_forward(ctx.fwd_rng_state), _grad_mode.enable_grad():
            outputs = ctx.run_function(*inputs)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grad_outputs)
                 if isinstance(o, Tensor) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not "
                               "necessary")
        from ..autograd import backward
        backward([o for o, _ in pairs], [g for _, g in pairs])
        grads = tuple(i.grad if isinstance(i, Tensor) else None for i in inputs)
        return (None, None) + grads


def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn,
               determinism_check="default", debug=False, early_stop=True, **kwargs):
    """Run ``function(*args, **kwargs)`` keeping only its inputs; recompute it in backward."""
    if use_reentrant is None:
        warnings.warn(USE_REENTRANT_WARNING, UserWarning, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when "
                             "use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    return _checkpoint_without_reentrant(function, preserve, context_fn, determinism_check,
                                         debug, early_stop, *args, **kwargs)


SEQUENTIAL_USE_REENTRANT_WARNING = (
    "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed "
    "explicitly. In version 2.9 we will raise an exception if use_reentrant is not passed. "
    "use_reentrant=False is recommended, but if you need to preserve the current default "
    "behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
    "differences between the two variants.")


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run ``functions`` (an ``nn.Sequential`` or a list) on ``input`` in ``segments`` chunks:
    each chunk but the last is checkpointed (only its input is kept), the last runs normally.
    As PyTorch's, a chunk is ``len(functions) // segments`` long and the last takes the rest."""
    from ..nn import Sequential
    if use_reentrant is None:
        warnings.warn(SEQUENTIAL_USE_REENTRANT_WARNING, UserWarning, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run_function(start, end, functions):
        def forward(input):
            for j in range(start, end + 1):
                input = functions[j](input)
            return input
        return forward

    if isinstance(functions, Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1  # (the last chunk is recorded as usual)
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input,
                           use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)


__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction"]
