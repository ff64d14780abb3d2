"""``Module`` and ``Parameter``: parameter registration, ``zero_grad``, train/eval, ``__call__``."""
from collections import OrderedDict

import numpy as np

from .. import _dtype
from .._tensor_ops import parse_to
from .._grad_mode import no_grad
from .._tensor import FLOAT_ONLY_FACTORY_ERROR, Storage, Tensor


class Parameter(Tensor):
    """A leaf tensor that a Module registers as one of its parameters (requires grad by default)."""

    def __new__(cls, data=None, requires_grad=True):
        array = np.zeros(0, dtype=_dtype.default_float()) if data is None else data._data
        p = cls._make(array, storage=None if data is None else data._storage)
        if requires_grad and array.dtype.kind in "biu":  # (PyTorch's _make_subclass words it so)
            raise RuntimeError(FLOAT_ONLY_FACTORY_ERROR)
        p.requires_grad = requires_grad
        return p

    def __init__(self, data=None, requires_grad=True):
        pass

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()


class Module:
    """Base class of layers and models: assign Parameters and Modules as attributes."""

    def __init__(self):
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "training", True)

    def __setattr__(self, name, value):
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign before Module.__init__() call")
        self._parameters.pop(name, None)
        self._modules.pop(name, None)
        if isinstance(value, Parameter):
            self._parameters[name] = value
        elif isinstance(value, Module):
            self._modules[name] = value
        object.__setattr__(self, name, value)

    def register_parameter(self, name, param):
        if param is None:
            self._parameters[name] = None
            object.__setattr__(self, name, None)
        else:
            setattr(self, name, param)

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f"Module [{type(self).__name__}] is missing the required "
                                  f"\"forward\" function")

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def named_parameters(self, prefix="", recurse=True):
        seen = set()
        for module_prefix, module in (self.named_modules(prefix) if recurse else [(prefix, self)]):
            for name, p in module._parameters.items():
                if p is not None and id(p) not in seen:
                    seen.add(id(p))
                    yield (f"{module_prefix}.{name}" if module_prefix else name), p

    def parameters(self, recurse=True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_modules(self, prefix=""):
        stack = [(prefix, self)]
        while stack:
            name, module = stack.pop(0)
            yield name, module
            stack[0:0] = [((f"{name}.{n}" if name else n), m) for n, m in module._modules.items()]

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def children(self):
        return iter(self._modules.values())

    def zero_grad(self, set_to_none=True):
        """Set every parameter's ``.grad`` to None (the default) or to zeros."""
        from ..optim.optimizer import clear_grad
        for p in self.parameters():
            clear_grad(p, set_to_none)

    def train(self, mode=True):
        for m in self.modules():
            object.__setattr__(m, "training", mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def _cast(self, dtype):
        for p in self.parameters():
            if p._data.dtype == dtype:
                continue
            p._data = p._data.astype(dtype)
            p._storage = Storage(p._data.nbytes)
        return self

    def double(self):
        return self._cast(np.float64)

    def float(self):
        return self._cast(np.float32)

    def half(self):
        return self._cast(np.float16)

    def to(self, *args, dtype=None, device=None):
        """``to(dtype)``, ``to(device)``, ``to(tensor)``: parameters cast in place, as PyTorch;
        only floating point and complex dtypes."""
        target = parse_to(args, dtype, device)
        if target is None:
            return self
        if target.kind not in "fc":
            raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, but "
                            f"got desired dtype={_dtype.from_numpy(target)}")
        return self._cast(target)

    def state_dict(self):
        return OrderedDict((name, p.detach()) for name, p in self.named_parameters())

    def load_state_dict(self, state):
        params = dict(self.named_parameters())
        missing = sorted(set(params) - set(state))
        if missing:
            raise RuntimeError(f"Missing key(s) in state_dict: {', '.join(missing)}")
        with no_grad():
            for name, p in params.items():
                p.copy_(state[name])

    def extra_repr(self):
        return ""

    def __repr__(self):
        lines = [f"  ({name}): " + repr(m).replace("\n", "\n  ") for name, m in self._modules.items()]
        if not lines:
            return f"{type(self).__name__}({self.extra_repr()})"
        return f"{type(self).__name__}(\n" + "\n".join(lines) + "\n)"
