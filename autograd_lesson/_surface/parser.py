"""PyTorch's argument parser (python_arg_parser.cpp): an op's overloads written as
native_functions.yaml writes them, its TypeErrors, and the fast paths for the common calls."""
import builtins
import functools
import operator

import numpy as np

from .._tensor import Tensor
from .checks import unpack_number


def tensor_arguments(name, *params):
    """PyTorch's argument parser for the Tensor parameters ``params`` (in order; None for one
    that is not a Tensor; ``"bias?"`` for an optional one, which may be None; ``"Scalar
    fill_value"`` for a Number, which the call gets unpacked as :func:`unpack_scalar` does):
    ``relu(): argument 'input' (position 1) must be Tensor, not int``, and without the position
    for an argument given by keyword. The wrapped function's ``.method`` is the Tensor method's
    twin (``x.dot(2)``: position 1)."""
    checks = [(i, param.rstrip("?").rpartition(" ")[2], param.endswith("?"),
               param.startswith("Scalar "))
              for i, param in enumerate(params) if param is not None]
    numbers = any(check[3] for check in checks)

    def check(args, kwargs, first):
        for i, param, optional, number in checks:
            if i < len(args):
                value, where = args[i], f" (position {i + first})"
            elif param in kwargs:
                value, where = kwargs[param], ""
            else:
                continue
            if number:
                if is_number(value):
                    continue
                kind = "Number"
            elif isinstance(value, Tensor) or optional and value is None:
                continue
            else:
                kind = "Tensor"
            from .._dtype import typename
            raise TypeError(f"{name}(): argument '{param}'{where} must be {kind}, not "
                            f"{typename(value)}")
        if not numbers:
            return args, kwargs
        args = list(args)
        for i, param, _, number in checks:
            if number and i < len(args):
                args[i] = unpack_scalar(args[i])
            elif number and param in kwargs:
                kwargs[param] = unpack_scalar(kwargs[param])
        return args, kwargs

    def wrap(fn):
        @functools.wraps(fn)
        def checked(*args, **kwargs):
            args, kwargs = check(args, kwargs, 1)
            return fn(*args, **kwargs)

        def method(*args, **kwargs):  # ``x.dot(2)``: positions count after self
            args, kwargs = check(args, kwargs, 0)
            return fn(*args, **kwargs)
        checked.method = method
        return checked
    return wrap


def invalid_arguments(name, args, signatures, kwargs=None):
    """PyTorch's argument-parser TypeError: its first line and the signatures it lists (not
    its per-signature "didn't match because ..." notes). Keywords are listed last given first:
    PyTorch's come from a C++ hash map, whose iteration puts each new key in front."""
    from .._dtype import typename
    got = ", ".join([typename(a) for a in args]
                    + [f"{k}={typename(v)}" for k, v in reversed((kwargs or {}).items())])
    if kwargs and not args:
        got += ", "  # (PyTorch's own spelling: "got (dim=float, )")
    return TypeError(f"{name}() received an invalid combination of arguments - got ({got}), "
                     f"but expected one of:\n" + "".join(f" * ({s})\n" for s in signatures))


# -- PyTorch's argument parser (python_arg_parser.cpp), for the ops with overloads -------------
# a parameter's type as native_functions.yaml spells it -> as the parser's messages print it
_PARAM_TYPES = {"Tensor": "Tensor", "int[1]": "tuple of ints", "int": "int", "bool": "bool",
                "float": "float",
                "ScalarType": "torch.dtype", "Tensor[]": "tuple of Tensors", "int[]": "tuple of ints",
                "Scalar": "Number"}


_INT_LISTS = ("int[1]", "int[]")  # (int[1] also takes one int; int[] only a tuple or list)


# the NumPy spellings a keyword may take instead (``x.sum(axis=1, keepdims=True)``)
_NUMPY_NAMES = {"dim": ("axis",), "keepdim": ("keepdims",), "input": ("x", "a", "x1"),
                "other": ("x2",)}


_DEFAULTS = {"None": None, "False": False, "True": True, "[]": ()}


def _is_long(value):
    """THPUtils_checkLong: an int that is not a bool, or a NumPy integer."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _is_index(value):
    """is_int_or_symint: an int, a one-element integral (or bool) tensor, or what has
    ``__index__``; a bool is not one."""
    if isinstance(value, Tensor):
        return value._data.size == 1 and value._data.dtype.kind in "iub"
    if isinstance(value, bool):
        return False
    if _is_long(value):
        return True
    try:
        operator.index(value)
    except TypeError:
        return False
    return True


def is_number(value):
    """The parser's Scalar: a Python or NumPy number (a bool too), or a 0-dim tensor that does
    not require grad."""
    if isinstance(value, Tensor):
        return value._data.ndim == 0 and not value.requires_grad
    return isinstance(value, (int, float, complex, np.number, np.bool_))


def unpack_scalar(value):
    """A Number argument as the parser's scalar_slow reads it: a 0-dim tensor's item, a bool,
    an integer (a NumPy one too) as an int (past uint64 or below int64 it refuses, see
    :func:`unpack_number`), a complex; anything else as a float (a NumPy bool is 1.0, a NumPy
    complex its real part, with NumPy's warning)."""
    kind = type(value)
    if kind is int or kind is float or kind is bool or kind is complex:
        if kind is int:
            unpack_number(value)  # (its errors; an int past int64 stays one: its dtype is int64)
        return value
    if isinstance(value, Tensor):
        return value._data.item()
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        value = int(value)
        unpack_number(value)
        return value
    if isinstance(value, (bool, complex)):
        return value
    return float(value)


class _Param:
    __slots__ = ("kind", "name", "names", "optional", "allow_none", "keyword_only", "default",
                 "text")

    def __init__(self, spec, keyword_only):
        kind, _, rest = spec.partition(" ")
        self.allow_none = kind.endswith("?")
        self.kind = kind.rstrip("?").replace("SymInt", "int")  # (printed alike: "int")
        self.name, eq, default = rest.partition("=")
        self.names = (self.name,) + _NUMPY_NAMES.get(self.name, ())
        self.optional, self.keyword_only = bool(eq), keyword_only
        self.allow_none = self.allow_none or default == "None"
        self.default = (_DEFAULTS[default] if default in _DEFAULTS
                        else float(default) if "." in default else int(default or 0))
        self.text = f"{_PARAM_TYPES[self.kind]} {self.name}" + (f" = {default}" if eq else "")

    def check(self, value):
        """FunctionParameter::check: (matches, the index of a list's element that does not)."""
        kind = self.kind
        if kind in _INT_LISTS:  # (the first element decides; the others fail when unpacked)
            if isinstance(value, (tuple, list)):
                return (True, None) if not value or _is_index(value[0]) else (False, 0)
            return kind == "int[1]" and _is_index(value), None
        if kind == "int":
            if isinstance(value, Tensor):  # a 0-dim integer tensor, as an index
                data = value._data
                return data.ndim == 0 and data.dtype.kind in "iu" and not value.requires_grad, None
            return _is_long(value), None
        if kind == "bool":
            return type(value) is bool, None
        if kind == "float":  # (THPUtils_checkDouble: an int or a bool too; a 0-dim tensor)
            if isinstance(value, Tensor):
                return value._data.ndim == 0 and not value.requires_grad, None
            return isinstance(value, (int, float, np.integer, np.floating)), None
        if kind == "Scalar":
            return is_number(value), None
        if kind == "ScalarType":
            from .._dtype import as_dtype
            return as_dtype(value) is not None, None
        if kind == "Tensor[]":
            return isinstance(value, (tuple, list)) and all(
                isinstance(v, Tensor) for v in value), None
        return isinstance(value, Tensor), None


class _Signature:
    def __init__(self, name, spec):
        self.name, self.params, keyword_only = name, [], False
        for part in spec.split(", ") if spec else ():
            if part == "*":
                keyword_only = True
            else:
                self.params.append(_Param(part, keyword_only))
        self.min_args = builtins.sum(not p.optional for p in self.params)
        self.max_pos_args = builtins.sum(not p.keyword_only for p in self.params)
        # one positional int list takes the positional arguments as its elements, as PyTorch's
        # parser allows: x.view(2, 12) is x.view((2, 12)). Only where one int does not fit it
        # (the parser tries varargs after the check fails): an int[1] takes the int itself, so
        # var(0, 1) does not become var((0, 1))
        self.varargs = self.max_pos_args == 1 and self.params[0].kind == "int[]"
        self.text = "(" + ", ".join(
            ("*, " if p.keyword_only and not any(q.keyword_only for q in self.params[:i]) else "")
            + p.text for i, p in enumerate(self.params)) + ")"

    def parse(self, args, kwargs, raise_exception):
        """FunctionSignature::parse: the values by name (a default for one not given), or
        None (or, with ``raise_exception``, the error saying why this overload does not fit)."""
        name, nargs, values = self.name, len(args), {}
        if self.varargs and nargs > 1 and _is_index(args[0]):
            args, nargs = (args,), 1
        if nargs > self.max_pos_args:
            if not raise_exception:
                return None
            if self.min_args != self.max_pos_args:
                raise TypeError(f"{name}() takes from {self.min_args} to {self.max_pos_args} "
                                f"positional arguments but {nargs} were given")
            raise TypeError(f"{name}() takes {self.max_pos_args} positional argument"
                            f"{'' if self.max_pos_args == 1 else 's'} but {nargs} were given")
        used = 0
        for i, param in enumerate(self.params):
            keyword = i >= nargs
            if not keyword:
                value = args[i]
            else:
                value = next((kwargs[n] for n in param.names if n in kwargs), NotImplemented)
                used += value is not NotImplemented
            if value is NotImplemented and param.optional or value is None and param.allow_none:
                values[param.name] = param.default if value is NotImplemented else None
                continue
            if value is NotImplemented:
                if not raise_exception:
                    return None
                missing = [f'"{p.name}"' for p in self.params[i:] if not p.optional]
                # ("argument" + "s" for one: the parser's own spelling)
                raise TypeError(f"{name}() missing {len(missing)} required positional argument"
                                f"{'s' if len(missing) == 1 else ''}: {', '.join(missing)}")
            fits, failed = param.check(value)
            if not fits:
                if not raise_exception:
                    return None
                from .._dtype import typename
                what = _PARAM_TYPES[param.kind]
                if keyword:
                    raise TypeError(f"{name}(): argument '{param.name}' must be {what}, not "
                                    f"{typename(value)}")
                if failed is not None:
                    raise TypeError(f"{name}(): argument '{param.name}' (position {i + 1}) must "
                                    f"be {what}, but found element of type "
                                    f"{typename(value[failed])} at pos {failed}")
                raise TypeError(f"{name}(): argument '{param.name}' (position {i + 1}) must be "
                                f"{what}, not {typename(value)}")
            values[param.name] = value
        if used < len(kwargs):
            if not raise_exception:
                return None
            for key in kwargs:
                index = next((i for i, p in enumerate(self.params) if key in p.names), None)
                if index is None:
                    raise TypeError(f"{name}() got an unexpected keyword argument '{key}'")
                if index < nargs:
                    raise TypeError(f"{name}() got multiple values for argument '{key}'")
        return values


def check_no_out(out):
    """``out=``: this package writes no result into a given tensor (one line that says so)."""
    if out is not None:
        raise NotImplementedError("autograd_lesson has no out= argument: use the result")


class ArgParser:
    """PyTorch's argument parser for one function's overloads, given as native_functions.yaml
    writes them (``int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None``): the first
    overload that fits wins; when none does, a function with one overload (or one that takes
    as many arguments as were given) names the argument at fault (``sum(): argument 'keepdim'
    (position 2) must be bool, not int``), any other lists its overloads ("received an invalid
    combination of arguments"). The values are unpacked: a dim list as a tuple of ints."""

    def __init__(self, name, *signatures):
        self.name = name
        self.signatures = [_Signature(name, s) for s in signatures]

    def parse(self, args, kwargs):
        """(the index of the overload that fits, its values by name), or PyTorch's TypeError."""
        for index, signature in enumerate(self.signatures):
            values = signature.parse(args, kwargs, False)
            if values is not None:
                check_no_out(values.get("out"))
                return index, self._unpack(signature, values)
        if len(self.signatures) == 1:
            self.signatures[0].parse(args, kwargs, True)
        given = len(args) + len(kwargs)
        plausible = [s for s in self.signatures if s.min_args <= given <= len(s.params)]
        if len(plausible) == 1:
            plausible[0].parse(args, kwargs, True)
        raise invalid_arguments(self.name, args, [s.text[1:-1] for s in self.signatures], kwargs)

    def _unpack(self, signature, values):
        for param in signature.params:
            value = values[param.name]
            if value is None or param.kind not in ("int", "int[1]", "int[]", "Scalar", "float"):
                continue
            if param.kind == "float":
                values[param.name] = float(value._data if isinstance(value, Tensor) else value)
                continue
            if param.kind == "Scalar":
                values[param.name] = unpack_scalar(value)
                continue
            if param.kind == "int" or not isinstance(value, (tuple, list)):
                value = _unpack_index(value)
                values[param.name] = (value,) if param.kind == "int[1]" else value
                continue
            out = []
            for i, item in enumerate(value):
                try:
                    out.append(_unpack_index(item))
                except TypeError:
                    from .._dtype import typename
                    raise TypeError(f"{self.name}(): argument '{param.name}' failed to unpack the "
                                    f"object at pos {i + 1} with error \"type must be tuple of "
                                    f"ints,but got {typename(item)}\"") from None
            values[param.name] = tuple(out)
        return values


class Overloads:
    """An op's overloads as its Tensor method takes them (self not counted) and as its
    ``torch.`` function does (``Tensor input`` first, ``out=`` after)."""

    def __init__(self, name, method, function):
        self.name = name
        self.method, self.function = ArgParser(name, *method), ArgParser(name, *function)

    def parse(self, x, args, kwargs, function=False):
        """(the overload's index, its values) for ``x.op(*args, **kwargs)``, or for
        ``torch.op(x, *args, **kwargs)`` with ``function``."""
        if function:
            return self.function.parse((x,) + args, kwargs)
        return self.method.parse(args, kwargs)

    def torch_function(self, method):
        """``torch.op(*args, **kwargs)``: ``method(x, args, kwargs, True)`` for a Tensor given
        first, else the function's parser decides (input by keyword, or PyTorch's error)."""
        names = self.function.signatures[0].params[0].names

        def call(*args, **kwargs):
            if args and isinstance(args[0], Tensor):
                return method(args[0], args[1:], kwargs, True)
            _, values = self.function.parse(args, kwargs)
            rest = {k: v for k, v in kwargs.items() if k not in names}
            return method(values["input"], args, rest, True)
        call.__name__ = call.__qualname__ = self.name
        return call


# the types of dim the calls that need no parser give (a tuple or list: of ints)
DIM_LISTS, DIM_INT, DIM_INT_OR_NONE = (int, tuple, list, type(None)), (int,), (int, type(None))


def common_dims(args, kwargs, kinds=DIM_LISTS):
    """``(dim, keepdim)`` of the calls that need no parser: ``(dim)``, ``(dim, keepdim)``,
    ``(dim, keepdim=)``, ``(dim=, keepdim=)``, with a dim of a type in ``kinds`` (a tuple or
    list of ints, for ``DIM_LISTS``) and a bool keepdim; None for any other call."""
    n = len(args)
    if kwargs:
        if n == 1 and len(kwargs) == 1 and "keepdim" in kwargs:
            dim, keepdim = args[0], kwargs["keepdim"]
        elif not n and "dim" in kwargs and len(kwargs) == 1 + ("keepdim" in kwargs):
            dim, keepdim = kwargs["dim"], kwargs.get("keepdim", False)
        else:
            return None
    elif n == 1:
        dim, keepdim = args[0], False
    elif n == 2:
        dim, keepdim = args
    else:
        return None
    kind = type(dim)
    if type(keepdim) is not bool or kind not in kinds:
        return None
    if kind is tuple or kind is list:
        for d in dim:  # (a loop: cheaper than all() over a generator)
            if type(d) is not int:
                return None
    return dim, keepdim


def common_dim(args, kwargs):
    """The int dim of ``(dim)`` or ``(dim=)``, which need no parser; None for any other call."""
    if args:
        dim = args[0] if len(args) == 1 and not kwargs else None
    else:
        dim = kwargs.get("dim") if len(kwargs) == 1 else None
    return dim if type(dim) is int else None


def _unpack_index(value):
    if isinstance(value, Tensor):
        if value._data.size != 1 or value._data.dtype.kind not in "iub":
            raise TypeError
        return int(value._data.reshape(()))
    return operator.index(value)  # (a bool is 1, as THPUtils_unpackIndex reads it)


def _ints(args, function=False):
    """``args`` as a tuple of ints when it is plain ints, or one tuple or list of them (a
    ``Size`` too: the backward formulas expand to one; only that for a ``torch.`` function,
    whose size is one argument); else None."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = args[0]
    elif function or not args:
        return None
    for s in args:
        if type(s) is not int:
            return None
    return tuple(args)


def int_list_argument(parser, name, x, args, kwargs, function=False):
    """The int list ``name`` of ``x.op(*args, **kwargs)`` (``torch.op(x, *args, **kwargs)``
    with ``function``), as ints: plain ints or one tuple or list of them skip the parser,
    anything else goes to ``parser`` (an :class:`Overloads`, or an ArgParser for an op that
    is only a method)."""
    ints = None if kwargs else _ints(args, function)
    if ints is not None:
        return ints
    if isinstance(parser, Overloads):
        return parser.parse(x, args, kwargs, function)[1][name]
    return parser.parse(args, kwargs)[1][name]


class IntArguments:
    """An op whose arguments after the tensor are ints or int lists: PyTorch's parser for its
    method (``call(x, args, kwargs)``) and its ``torch.`` function (``.function``), then
    ``op(x, *values)``. Plain ints, as many as a signature takes, skip the parser."""

    def __init__(self, name, method, function, op):
        self.overloads = Overloads(name, method, function)
        signatures = self.overloads.method.signatures
        self.arity = range(min(s.min_args for s in signatures),
                           max(s.max_pos_args for s in signatures) + 1)
        self.op = op
        self.function = self.overloads.torch_function(self.call)
        self.function.__doc__ = op.__doc__

    def call(self, x, args, kwargs, function=False):
        if not kwargs and len(args) in self.arity:
            for a in args:
                if type(a) is not int:
                    break
            else:
                return self.op(x, *args)
        _, values = self.overloads.parse(x, args, kwargs, function)
        return self.op(x, *[v for k, v in values.items() if k != "input" and k != "out"])
