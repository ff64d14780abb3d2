"""The optimizer base: parameter groups, per-parameter state, ``zero_grad``."""
from .._tensor import Tensor


def clear_grad(p, set_to_none=True):
    """``p.grad = None``, or PyTorch's ``p.grad.detach_(); p.grad.zero_()`` (one version bump)."""
    grad = p._grad
    if grad is None:
        return
    if set_to_none:
        p._grad = None
        return
    grad.grad_fn, grad._requires_grad = None, False
    grad._data[...] = 0
    grad._version_counter.value += 1


class Optimizer:
    def __init__(self, params, defaults):
        params = list(params)
        if not params:
            raise ValueError("optimizer got an empty parameter list")
        groups = params if isinstance(params[0], dict) else [{"params": params}]
        self.defaults = defaults
        self.param_groups = []
        self.state = {}
        for group in groups:
            group = {**defaults, **group, "params": list(group["params"])}
            for p in group["params"]:
                if not isinstance(p, Tensor):
                    raise TypeError(f"optimizer can only optimize Tensors, but one of the params "
                                    f"is {type(p).__name__}")
            self.param_groups.append(group)

    def zero_grad(self, set_to_none=True):
        """Set every ``.grad`` to None (PyTorch 2.x default) or, with set_to_none=False, to zeros."""
        for group in self.param_groups:
            for p in group["params"]:
                clear_grad(p, set_to_none)

    def _state(self, p):
        return self.state.setdefault(p, {})

    @staticmethod
    def _write(p, values):
        """Write new values into a parameter in place: one version bump, like ``p.add_``."""
        p._data[...] = values
        p._version_counter.value += 1
