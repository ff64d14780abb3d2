"""The optimizer base: parameter groups, per-parameter state, ``zero_grad``, and the one place
that writes new values into a parameter (with or without a version bump)."""
import copy
import functools
import warnings
from collections import defaultdict

import numpy as np

from .._grad_mode import enable_grad
from .._autograd_errors import type_string as _type_string
from ..utils.hooks import RemovableHandle
from .._tensor import Tensor
from ..nn.module import class_repr, typename


_global_optimizer_post_hooks = []  # torch.optim.optimizer's: hooks every optimizer runs


def register_optimizer_step_post_hook(hook):
    """``hook(optimizer, args, kwargs)`` after every optimizer's ``step`` (after its own
    post-hooks, as in torch); ``lesson.audit`` names the step that changed a saved tensor."""
    _global_optimizer_post_hooks.append(hook)
    return RemovableHandle(_global_optimizer_post_hooks, hook)


def _with_step_hooks(step):
    """Wrap a subclass's ``step`` so the step pre- and post-hooks run around it."""
    @functools.wraps(step)
    def wrapper(*args, **kwargs):
        self = args[0]
        pre_hooks, post_hooks = self._step_hooks
        for hook in list(pre_hooks):
            result = hook(self, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError(f"{step} must return None or a tuple of (new_args, "
                                       f"new_kwargs), but got {result}.")
                args, kwargs = result
        out = step(*args, **kwargs)
        for hook in list(post_hooks) + _global_optimizer_post_hooks:
            hook(self, args, kwargs)
        return out
    return wrapper


def _cast(p, name, value):
    """PyTorch's ``_process_value_according_to_param_policy`` on CPU: a buffer takes a float
    parameter's dtype (the same Tensor when it already has it); ``step`` stays as it is."""
    if not isinstance(value, Tensor) or name == "step" or value._data.dtype == p._data.dtype:
        return value
    if p._data.dtype.kind != "f":
        return value
    return Tensor._make(value._data.astype(p._data.dtype))


def new_buffer(p, fill=0.0):
    """A state buffer shaped like ``p`` (PyTorch's ``zeros_like(p)``)."""
    return Tensor._make(np.full_like(p._data, fill))


def new_step():
    """The 0-dim float32 ``step`` tensor PyTorch keeps per parameter."""
    return Tensor._make(np.zeros((), dtype=np.float32))


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


def check_hyperparameter(name, value, message=None, zero_first=True):
    """PyTorch's ``ValueError: Invalid <name> value: <value>`` for a negative hyperparameter,
    tested as that optimizer tests it (Adam's ``0.0 <= value``, SGD's ``value < 0.0``, so a
    string fails with the same TypeError)."""
    if (not 0.0 <= value) if zero_first else value < 0.0:
        raise ValueError(message or f"Invalid {name} value: {value}")


def check_lr(lr, zero_first=True):
    """A learning rate may be a one-element Tensor (it stays one in the group, as PyTorch)."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    check_hyperparameter("lr", lr, f"Invalid learning rate: {lr}", zero_first)


def check_betas(betas):
    """Adam's checks of ``betas``; returns them as the group keeps them, PyTorch's
    ``tuple(map(_to_scalar, betas))`` (a list becomes a tuple, a 1-element Tensor 0-dim)."""
    for i in (0, 1):
        if not 0.0 <= betas[i] < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {betas[i]}")
    if not (all(isinstance(b, float) for b in betas[:2])
            or all(isinstance(b, Tensor) for b in betas[:2])):
        raise ValueError("betas must be either both floats or both Tensors")
    for i in (0, 1):
        if isinstance(betas[i], Tensor) and betas[i].numel() != 1:
            raise ValueError(f"Tensor betas[{i}] must be 1-element")
    return tuple(b.squeeze() if isinstance(b, Tensor) and b.ndim else b for b in betas)


def number(value):
    """A hyperparameter as a Python number (a Tensor lr or beta holds one)."""
    return value.item() if isinstance(value, Tensor) else value


class Optimizer:
    """``defaults`` holds every hyperparameter, including PyTorch's implementation flags
    ``foreach``, ``fused`` and ``differentiable``; a param group may override any of them.
    ``state[p]`` holds Tensors (``step`` a 0-dim float32, buffers shaped like ``p``), as in
    PyTorch; ``step()`` updates them in place through their arrays."""

    # the options PyTorch's __setstate__ (run by load_state_dict) gives a loaded group that
    # lacks them: another optimizer's state dict gets this one's flags, not its hyperparameters
    _setstate_defaults = {}

    def __init__(self, params, defaults):
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got " + _type_string(params))
        self.defaults = defaults
        self.state = defaultdict(dict)
        self.param_groups = []
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)
        if defaults.get("fused"):  # PyTorch checks these after building the groups, in this order
            if defaults.get("differentiable"):
                raise RuntimeError("`fused` does not support `differentiable`")
            if defaults.get("foreach"):
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        if defaults.get("differentiable"):
            raise NotImplementedError("autograd_lesson's optimizers do not record the step in the "
                                      "graph: use differentiable=False")

    def add_param_group(self, param_group):
        """Append a group (``{'params': ..., 'lr': ...}``); unset options take the defaults."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {class_repr(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        params = list(params)
        names = [p[0] for p in params if isinstance(p, tuple)]  # named_parameters() pairs
        params = param_group["params"] = [p[1] if isinstance(p, tuple) else p for p in params]
        if names:
            if len(names) != len(params):
                raise ValueError("all optimizer params should be with/without names. Some param "
                                 "names are missing")
            param_group["param_names"] = names
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params "
                                f"is {typename(p)}")
            if not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            param_group.setdefault(name, default)
        if len({id(p) for p in params}) != len(params):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in "
                          "future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        for group in self.param_groups:
            if ("param_names" in param_group) != ("param_names" in group):
                kind = "with names" if "param_names" in param_group else "without names"
                raise ValueError(f"all optimizer param groups should be with/without names. "
                                 f"cannot add param group {kind} to the optimizer")
        seen = {id(p) for group in self.param_groups for p in group["params"]}
        if any(id(p) in seen for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def state_dict(self):
        """``{'state': {index: {name: tensor}}, 'param_groups': [{..., 'params': [index]}]}``:
        parameters become their position (counting across groups); the state's Tensors are the
        optimizer's own (not copies), as in PyTorch."""
        index, groups = {}, []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for p in group["params"]:
                index.setdefault(id(p), len(index))
            packed["params"] = [index[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {(index[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Take hyperparameters and state from ``state_dict`` (as made by :meth:`state_dict`),
        matching parameters by position; buffers are cast to each parameter's dtype."""
        state_dict = state_dict.copy()  # (PyTorch's first step: anything else fails there)
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(self.param_groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(self.param_groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        id_map = dict(zip((i for s in saved_groups for i in s["params"]),
                          (p for g in self.param_groups for p in g["params"])))
        state = defaultdict(dict)
        for key, value in state_dict["state"].items():
            if key in id_map:
                p = id_map[key]
                state[p] = {name: _cast(p, name, v) for name, v in value.items()}
            else:
                state[key] = value
        for group, saved in zip(self.param_groups, saved_groups):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
        self.state, self.param_groups = state, saved_groups
        self._setstate()

    def _setstate(self):
        for group in self.param_groups:
            for name, default in self._setstate_defaults.items():
                group.setdefault(name, default)

    def __repr__(self):
        text = f"{type(self).__name__} ("  # (a blank line between groups, as PyTorch's)
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n" + "".join(
                f"    {k}: {group[k]}\n" for k in sorted(group) if k != "params")
        return text + ")"

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "step" in cls.__dict__:
            cls.step = _with_step_hooks(cls.__dict__["step"])

    @property
    def _step_hooks(self):
        return self.__dict__.setdefault("_hooks", ([], []))

    def register_step_pre_hook(self, hook):
        """``hook(optimizer, args, kwargs) -> None or (new_args, new_kwargs)`` before ``step``
        (``args`` starts with the optimizer, as in PyTorch)."""
        self._step_hooks[0].append(hook)
        return RemovableHandle(self._step_hooks[0], hook)

    def register_step_post_hook(self, hook):
        """``hook(optimizer, args, kwargs)`` after each ``step``."""
        self._step_hooks[1].append(hook)
        return RemovableHandle(self._step_hooks[1], hook)

    @staticmethod
    def _closure_loss(closure):
        """``step(closure)``: re-evaluate the loss (with grad mode on) before updating."""
        if closure is None:
            return None
        with enable_grad():
            return closure()

    def step(self, closure=None):
        """Update the parameters (each optimizer defines it)."""
        raise NotImplementedError

    def zero_grad(self, set_to_none=True):
        """Set every ``.grad`` to None (PyTorch 2.x default) or, with set_to_none=False, to zeros."""
        for group in self.param_groups:
            for p in group["params"]:
                clear_grad(p, set_to_none)

    def _state(self, p):
        return self.state[p]

    @staticmethod
    def _grads(group):
        """(param, grad array) for each param of the group that has a grad; -grad if maximize.
        Each param it yields is written next (``_write``): allow_mutation_on_saved_tensors
        clones a saved one first, as PyTorch's dispatch mode does for every step (fused too)."""
        from .._surface.inplace import before_write
        for p in group["params"]:
            if p._grad is not None:
                before_write(p)
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
