"""The optimizer base: parameter groups, per-parameter state, ``zero_grad``, and the one place
that writes new values into a parameter (with or without a version bump)."""
from .._node import _type_string
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


def check_hyperparameter(name, value, message=None):
    """PyTorch's ``ValueError: Invalid <name> value: <value>`` for a negative hyperparameter."""
    if value < 0.0:
        raise ValueError(message or f"Invalid {name} value: {value}")


def check_betas(betas):
    for i, beta in enumerate(betas[:2]):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {beta}")


class Optimizer:
    """``defaults`` holds every hyperparameter, including PyTorch's implementation flags
    ``foreach``, ``fused`` and ``differentiable``; a param group may override any of them."""

    def __init__(self, params, defaults):
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got " + _type_string(params))
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
                if not p.is_leaf:
                    raise ValueError("can't optimize a non-leaf Tensor")
            self.param_groups.append(group)
        if defaults.get("fused"):  # PyTorch checks these after building the groups, in this order
            if defaults.get("differentiable"):
                raise RuntimeError("`fused` does not support `differentiable`")
            if defaults.get("foreach"):
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        if defaults.get("differentiable"):
            raise NotImplementedError("autograd_lesson's optimizers do not record the step in the "
                                      "graph: use differentiable=False")

    def zero_grad(self, set_to_none=True):
        """Set every ``.grad`` to None (PyTorch 2.x default) or, with set_to_none=False, to zeros."""
        for group in self.param_groups:
            for p in group["params"]:
                clear_grad(p, set_to_none)

    def _state(self, p):
        return self.state.setdefault(p, {})

    @staticmethod
    def _grads(group):
        """(param, grad array) for each param of the group that has a grad; -grad if maximize."""
        for p in group["params"]:
            if p._grad is not None:
                yield p, (-p._grad._data if group["maximize"] else p._grad._data)

    @staticmethod
    def _write(p, values, group):
        """Write new values into a parameter in place.

        The default (for-loop) and ``foreach`` implementations call a Tensor in-place op
        (``p.add_``, ``p.addcdiv_``, ``p.mul_``): one version bump per call, so a graph that saved
        ``p`` (or its view ``p.t()``) refuses to backward afterwards. The ``fused`` kernels write
        the memory directly, like ``p.data.add_``: the values change, the version does not, and an
        old graph silently computes with the new values."""
        p._data[...] = values
        if not group["fused"]:
            p._version_counter.value += 1
