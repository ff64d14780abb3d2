"""``Module`` and ``Parameter``: parameters, buffers and submodules kept in three dicts (read
back through ``__getattr__``, as PyTorch), ``state_dict``/``load_state_dict``, train/eval,
dtype casts and ``__call__``."""
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

import numpy as np

from .. import _dtype
from .._tensor_ops import parse_to
from .._grad_mode import no_grad
from .._tensor import Storage, Tensor
from .._surface.tensor import FLOAT_ONLY_FACTORY_ERROR


class Parameter(Tensor):
    """A leaf tensor that a Module registers as one of its parameters (requires grad by default)."""

    def __new__(cls, data=None, requires_grad=True):
        if data is not None and not isinstance(data, Tensor):  # (PyTorch calls data.detach())
            raise AttributeError(f"'{type(data).__name__}' object has no attribute 'detach'")
        if type(requires_grad) is not bool:  # (PyTorch's _make_subclass parses it)
            raise TypeError(f"_make_subclass(): argument 'require_grad' (position 3) must be bool, "
                            f"not {_dtype.typename(requires_grad)}")
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


class _BufferMeta(type):
    def __instancecheck__(cls, instance):
        if cls is Buffer and isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False):
            return True
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """``nn.Buffer(t, persistent=True)``: assigned as a module attribute, it registers a buffer.
    As PyTorch's, it is ``t.detach()`` (requires_grad kept) marked ``persistent``, not a new type."""

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = Tensor._make(np.zeros(0, dtype=_dtype.default_float()))
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent, t._is_buffer = persistent, True
        return t


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns; prints ``<All keys matched successfully>`` when empty."""

    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def typename(value):
    """``torch.typename``: a tensor's legacy type (``torch.FloatTensor``), else module.qualname."""
    if isinstance(value, Tensor):
        return value.type()
    module = getattr(value, "__module__", "") or ""
    qualname = getattr(value, "__qualname__", None) or getattr(value, "__name__", None)
    if qualname is None:
        module, qualname = type(value).__module__ or "", type(value).__qualname__
    if module.startswith("autograd_lesson.nn.") and qualname in _TORCH_FILES:
        module = f"torch.nn.modules.{_TORCH_FILES[qualname]}"  # where torch defines the class
    module = _TORCH_HOMES.get((module, qualname), module)
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


def class_repr(value):
    """``repr(type(value))`` as PyTorch prints it: ``<class 'torch.nn.parameter.Parameter'>``."""
    return f"<class '{typename(type(value))}'>"


_TORCH_FILES = {
    **dict.fromkeys(["Linear", "Identity"], "linear"), "Module": "module", "RNNCell": "rnn",
    **dict.fromkeys(["ReLU", "LeakyReLU", "Tanh", "Sigmoid"], "activation"),
    "Sequential": "container", "Dropout": "dropout", "Flatten": "flatten",
    **dict.fromkeys(["MSELoss", "BCELoss", "BCEWithLogitsLoss", "NLLLoss", "CrossEntropyLoss"],
                    "loss")}
_TORCH_HOMES = {("autograd_lesson._surface.tensor", "Tensor"): "torch",
                ("autograd_lesson.nn.module", "Parameter"): "torch.nn.parameter"}


def _check_name(kind, name, owner, table):
    """The checks PyTorch's register_parameter/register_buffer share."""
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {typename(name)}")
    if "." in name:
        raise KeyError(f"{kind} name can't contain \".\"")
    if name == "":
        raise KeyError(f"{kind} name can't be empty string \"\"")
    if hasattr(owner, name) and name not in table:
        raise KeyError(f"attribute '{name}' already exists")


class Module:
    """Base class of layers and models: assign Parameters, buffers and Modules as attributes."""

    def __init__(self):
        for name, value in (("training", True), ("_parameters", OrderedDict()),
                            ("_buffers", OrderedDict()), ("_non_persistent_buffers_set", set()),
                            ("_modules", OrderedDict())):
            object.__setattr__(self, name, value)

    # -- registration ---------------------------------------------------------------------
    def register_parameter(self, name, param):
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_name("parameter", name, self, self._parameters)
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{typename(param)}' object to parameter '{name}' "
                            f"(torch.nn.Parameter or None required)")
        if param is not None and param.grad_fn:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model "
                             f"parameters must be created explicitly. To express '{name}' as a "
                             f"function of another Tensor, compute the value in the forward() "
                             f"method.")
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        """A tensor the module owns that is not a parameter: in ``state_dict`` unless
        ``persistent=False``, cast by ``to``/``double``/``float``."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _check_name("buffer", name, self, self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{typename(tensor)}' object to buffer '{name}' "
                            f"(torch Tensor or None required)")
        self._buffers[name] = tensor
        (self._non_persistent_buffers_set.discard if persistent
         else self._non_persistent_buffers_set.add)(name)

    def add_module(self, name, module):
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f"module name can't contain \".\", got: {name}")
        if name == "":
            raise KeyError("module name can't be empty string \"\"")
        self._modules[name] = module

    register_module = add_module

    def __getattr__(self, name):  # (every self.weight in a forward: kept to plain dict reads)
        d = self.__dict__
        params = d.get("_parameters")
        if params is not None and name in params:
            return params[name]
        for table in ("_buffers", "_modules"):
            values = d.get(table)
            if values is not None and name in values:
                return values[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        """A Parameter or Module registers itself; a name already registered keeps its kind
        (PyTorch's TypeError for anything else but None)."""
        d = self.__dict__
        params, modules, buffers = (d.get(k) for k in ("_parameters", "_modules", "_buffers"))

        def remove_from(*tables):
            for table in tables:
                table.pop(name, None) if isinstance(table, dict) else table.discard(name)

        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(d, buffers, modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as parameter '{name}' "
                                f"(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            remove_from(d, params, buffers, self._non_persistent_buffers_set)
            modules[name] = value
        elif modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as child module '{name}' "
                                f"(torch.nn.Module or None expected)")
            modules[name] = value
        elif isinstance(value, Buffer) or buffers is not None and name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{typename(value)}' as buffer '{name}' "
                                f"(torch.nn.Buffer, torch.Tensor or None expected)")
            persistent = (value.persistent if isinstance(value, Buffer)
                          else name not in self._non_persistent_buffers_set)
            self.register_buffer(name, value, persistent)
        else:
            object.__setattr__(self, name, value)

    def __dir__(self):
        keys = (dir(type(self)) + list(self.__dict__) + list(self._parameters)
                + list(self._modules) + list(self._buffers))
        return sorted(k for k in keys if not k[0].isdigit())

    def __delattr__(self, name):
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    # -- calling --------------------------------------------------------------------------
    def forward(self, *args, **kwargs):
        raise NotImplementedError(f"Module [{type(self).__name__}] is missing the required "
                                  f"\"forward\" function")

    _forward_pre_hooks = _forward_hooks = ()  # none until one is registered

    def __call__(self, *args, **kwargs):
        if not (self._forward_pre_hooks or self._forward_hooks):
            return self.forward(*args, **kwargs)
        for hook in list(self._forward_pre_hooks):
            changed = hook(self, args)
            if changed is not None:
                args = changed if isinstance(changed, tuple) else (changed,)
        output, finished = None, False
        try:
            output = self.forward(*args, **kwargs)
            finished = True
        finally:  # an always_call hook runs even when the forward raised, as in PyTorch
            for hook, always in list(self._forward_hooks):
                if always or finished:
                    changed = hook(self, args, output)
                    output = output if changed is None else changed
        return output

    def register_forward_pre_hook(self, hook):
        """``hook(module, args)`` before each forward (what it returns replaces the args)."""
        return self._add_hook("_forward_pre_hooks", hook)

    def register_forward_hook(self, hook, *, always_call=False):
        """``hook(module, args, output)`` after each forward (what it returns replaces the
        output); ``always_call=True`` runs it even when the forward raised."""
        return self._add_hook("_forward_hooks", (hook, always_call))

    def _add_hook(self, table, entry):
        from ..utils.hooks import RemovableHandle
        if table not in self.__dict__:
            object.__setattr__(self, table, [])
        hooks = self.__dict__[table]
        hooks.append(entry)
        return RemovableHandle(hooks, entry)

    # -- walking --------------------------------------------------------------------------
    def _named_members(self, table, prefix="", recurse=True, remove_duplicate=True):
        seen = set()
        for module_prefix, module in (self.named_modules(prefix=prefix,
                                                         remove_duplicate=remove_duplicate)
                                      if recurse else [(prefix, self)]):
            for name, value in getattr(module, table).items():
                if value is None or id(value) in seen:
                    continue
                if remove_duplicate:
                    seen.add(id(value))
                yield (f"{module_prefix}.{name}" if module_prefix else name), value

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse=True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        memo = set() if memo is None else memo
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is not None:
                yield from module.named_modules(memo, f"{prefix}.{name}" if prefix else name,
                                                remove_duplicate)

    def modules(self, remove_duplicate=True):
        for _, m in self.named_modules(remove_duplicate=remove_duplicate):
            yield m

    def named_children(self):
        seen = set()
        for name, module in self._modules.items():
            if module is not None and module not in seen:
                seen.add(module)
                yield name, module

    def children(self):
        for _, m in self.named_children():
            yield m

    def get_submodule(self, target):
        """The submodule at a dotted path such as ``"0.linear"`` (``""``: the module itself)."""
        mod = self
        for item in target.split(".") if target else ():
            if not hasattr(mod, item):
                raise AttributeError(f"{type(mod).__name__} has no attribute `{item}`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return mod

    def _get_member(self, target, check, kind):
        path, _, name = target.rpartition(".")
        mod = self.get_submodule(path)
        if not hasattr(mod, name):
            raise AttributeError(f"{type(mod).__name__} has no attribute `{name}`")
        value = getattr(mod, name)
        if not check(mod, name, value):
            raise AttributeError(f"`{name}` is not {kind}")
        return value

    def get_parameter(self, target):
        return self._get_member(target, lambda m, n, v: isinstance(v, Parameter), "an nn.Parameter")

    def get_buffer(self, target):
        return self._get_member(target, lambda m, n, v: n in m._buffers, "a buffer")

    def apply(self, fn):
        """Call ``fn`` on every submodule (children first), then on this module."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # -- state ----------------------------------------------------------------------------
    def zero_grad(self, set_to_none=True):
        """Set every parameter's ``.grad`` to None (the default) or to zeros."""
        from ..optim.optimizer import clear_grad
        for p in self.parameters():
            clear_grad(p, set_to_none)

    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        object.__setattr__(self, "training", mode)
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def _cast(self, dtype, kinds):
        """Cast in place the parameters (and their grads) whose dtype kind is in ``kinds``, as
        PyTorch's ``param.data = ...``; buffers are replaced by their cast."""
        for module in self.modules():
            for p in module._parameters.values():
                for t in (p, p._grad) if p is not None else ():
                    if t is not None and t._data.dtype.kind in kinds and t._data.dtype != dtype:
                        array = t._data.astype(dtype)
                        t._storage = Storage(array.nbytes)  # (before _data: see the setter)
                        t._data = array
            for name, b in module._buffers.items():
                if b is not None and b._data.dtype.kind in kinds:
                    module._buffers[name] = b.to(_dtype.from_numpy(dtype))
        return self

    def cpu(self):
        return self

    def double(self):
        return self._cast(np.dtype(np.float64), "f")

    def float(self):
        return self._cast(np.dtype(np.float32), "f")

    def half(self):
        return self._cast(np.dtype(np.float16), "f")

    def to(self, *args, dtype=None, device=None):
        """``to(dtype)``, ``to(device)``, ``to(tensor)``: floating point (and complex) parameters
        cast in place and buffers replaced, as PyTorch; only floating point and complex dtypes."""
        target = parse_to(args, dtype, device)
        if target is None:
            return self
        if target.kind not in "fc":
            raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, but "
                            f"got desired dtype={_dtype.from_numpy(target)}")
        return self._cast(target, "fc")

    def state_dict(self, *, destination=None, prefix="", keep_vars=False):
        """Parameters then persistent buffers, module by module (detached unless keep_vars)."""
        destination = OrderedDict() if destination is None else destination
        for table in (self._parameters, self._buffers):
            for name, value in table.items():
                if value is not None and name not in (
                        self._non_persistent_buffers_set if table is self._buffers else ()):
                    destination[prefix + name] = value if keep_vars else value.detach()
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=f"{prefix}{name}.",
                                  keep_vars=keep_vars)
        return destination

    def _load_from_state_dict(self, state, prefix, assign, missing, unexpected, errors):
        local = {k: v for k, v in list(self._parameters.items()) + list(self._buffers.items())
                 if v is not None and k not in self._non_persistent_buffers_set}
        for name, param in local.items():
            key = prefix + name
            if key not in state:
                missing.append(key)
                continue
            value = state[key]
            if not isinstance(value, Tensor):
                errors.append(f'While copying the parameter named "{key}", expected '
                              f"torch.Tensor or Tensor-like object from checkpoint but received "
                              f"{type(value)}")
                continue
            if not param.ndim and value.shape == (1,):
                value = value[0]
            if value.shape != param.shape:
                errors.append(f"size mismatch for {key}: copying a param with shape "
                              f"{value.shape} from checkpoint, the shape in current model is "
                              f"{param.shape}.")
                continue
            try:
                with no_grad():
                    if not assign:
                        param.copy_(value)
                    elif isinstance(param, Parameter):
                        setattr(self, name, value.requires_grad_(param.requires_grad)
                                if isinstance(value, Parameter)
                                else Parameter(value, requires_grad=param.requires_grad))
                    else:
                        setattr(self, name, value)
            except Exception as ex:
                errors.append(f'While copying the parameter named "{key}", whose dimensions in '
                              f"the model are {param.size()} and whose dimensions in the "
                              f"checkpoint are {value.size()}, an exception occurred : {ex.args}.")
        for key in state:
            if key.startswith(prefix):
                head, *rest = key[len(prefix):].split(".", 1)
                if head not in (self._modules if rest else local):
                    unexpected.append(key)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy matching entries into the parameters and persistent buffers (in place, or
        replacing them if ``assign``); returns ``_IncompatibleKeys``, raises if ``strict``."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing, unexpected, errors = [], [], []

        def load(module, state, prefix=""):
            module._load_from_state_dict(state, prefix, assign, missing, unexpected, errors)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = f"{prefix}{name}."
                    load(child, {k: v for k, v in state.items() if k.startswith(child_prefix)},
                         child_prefix)

        load(self, OrderedDict(state_dict))
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected)))
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing)))
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(errors)))
        return _IncompatibleKeys(missing, unexpected)

    # -- printing -------------------------------------------------------------------------
    def extra_repr(self):
        return ""

    def __repr__(self):
        extra = self.extra_repr().split("\n") if self.extra_repr() else []
        children = [f"({name}): " + _indent(repr(m)) for name, m in self._modules.items()]
        if len(extra) == 1 and not children:
            return f"{type(self).__name__}({extra[0]})"
        lines = extra + children
        body = "\n  " + "\n  ".join(lines) + "\n" if lines else ""
        return f"{type(self).__name__}({body})"


def _indent(text):
    """Every line but the first two spaces in; blank lines stay empty (PyTorch's _addindent)."""
    first, *rest = text.split("\n")
    return "\n".join([first] + [f"  {line}" if line.strip() else "" for line in rest])
