"""The engine's hooks, one extension of the backward loop (``_engine.py`` calls these only for a
node that has some).

- tensor pre-hooks (``y.register_hook``, a leaf's hooks run by its AccumulateGrad) and
  ``retain_grad()``, before the node runs: they see and may replace the gradient of one output;
- node pre-hooks (``grad_fn.register_prehook``) and post-hooks (``grad_fn.register_hook``);
- post-accumulate-grad hooks (``leaf.register_post_accumulate_grad_hook``), after ``.grad``
  is written.

What a hook returns is checked here, once for every kind of node; the messages are PyTorch's.
"""
from .._autograd_errors import type_string as _type_string, typename
from .._tensor import TensorBase
from .._fp_errors import call_with_user_fp_errors


def _hook_name(hook):
    name = getattr(hook, "__name__", None)
    return name if isinstance(name, str) else "<unknown>"


def check_hook_value(original, result, hook):
    """PyTorch's ``check_single_result``: a hook may return None or a Tensor of the same type
    and size as the value it was given."""
    if result is None:
        return original
    if original is None:
        raise RuntimeError("can't replace a None gradient with a non-None value")
    if not isinstance(result, TensorBase):
        raise TypeError(f"expected Variable, but hook returned '{typename(result)}'")
    if result.dtype != original.dtype:
        raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the type of value (was "
                           f"{_type_string(original)} got {_type_string(result)})")
    if result.shape != original.shape:
        raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the size of value")
    return result


def check_hook_tuple(previous, result, hook):
    """PyTorch's ``check_result`` for node hooks: a tuple of the same length, each entry as
    :func:`check_hook_value`."""
    if not isinstance(result, tuple):
        raise TypeError(f"expected tuple, but hook returned '{typename(result)}'")
    if len(result) != len(previous):
        raise RuntimeError(f"hook '{_hook_name(hook)}' has returned an incorrect number of values "
                           f"(got {len(result)}, but expected {len(previous)})")
    # a None in the tuple replaces the gradient with None (only a hook's bare None keeps it)
    return [None if new is None else check_hook_value(old, new, hook)
            for old, new in zip(previous, result)]


def run_tensor_pre_hooks(node, grads):
    """The hooks registered on the node's output tensors, then ``retain_grad``'s copy. A hook
    sees None for an output that got no gradient (another output of ``unbind`` did, or the
    node's consumer returned None), as in PyTorch."""
    for nr, fns in node._tensor_pre_hooks.items():
        for fn in list(fns):
            grads[nr] = check_hook_value(grads[nr], call_with_user_fp_errors(fn, grads[nr]), fn)
    for nr, ref in node._retain_grad_refs.items():
        tensor = ref()
        if tensor is not None and grads[nr] is not None:
            # PyTorch's retains_grad hook: a clone first, then ``grad = grad + new`` (a new
            # object each backward, unlike a leaf's in-place accumulation).
            old = tensor._grad
            tensor._grad = grads[nr].clone() if old is None else old + grads[nr]
    return grads


def run_pre_hooks(node, grads):
    """The node's pre-hooks; what they return replaces ``grads`` in place (the engine's events
    and post-hooks then see it)."""
    for hook in list(node._pre_hooks):
        new = call_with_user_fp_errors(hook, tuple(grads))
        if new is not None:
            grads[:] = check_hook_tuple(tuple(grads), new, hook)


def run_post_hooks(node, outputs, grads):
    for hook in list(node._post_hooks):
        new = call_with_user_fp_errors(hook, tuple(outputs), tuple(grads))
        if new is not None:
            outputs = check_hook_tuple(tuple(outputs), new, hook)
    return outputs


def run_post_accumulate_grad_hooks(variable):
    for hook in list(variable._post_accumulate_grad_hooks):
        if call_with_user_fp_errors(hook, variable) is not None:
            raise RuntimeError("Tensor post accumulate grad hooks should return None.")
