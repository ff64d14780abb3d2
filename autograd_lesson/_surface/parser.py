"""PyTorch's argument parser (python_arg_parser.cpp), fed by one table of signatures
(``signatures.py``, native_functions.yaml's notation): ``parse("sum", args, kwargs)`` picks the
overload that fits and gives its values by name, or raises PyTorch's TypeError. A call whose
arguments fit as given (Tensors, ints, bools, tuples of ints) takes the fast path here, the
only one: backward formulas call these ops on every step."""
import builtins
import functools
import operator

import numpy as np

from .._tensor import Tensor
from .checks import unpack_number
from .signatures import SIGNATURES


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
                "Scalar": "Number", "Device": "torch.device"}


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
                 "text", "spec")

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
        self.spec = eq + default
        self.rename(self.name)

    def rename(self, name):
        """``Tensor self`` is ``Tensor input`` in a ``torch.`` function, as PyTorch prints it."""
        self.name, self.names = name, (name,) + _NUMPY_NAMES.get(name, ())
        default = self.spec[1:]
        self.text = f"{_PARAM_TYPES[self.kind]} {name}" + (f" = {default}" if self.spec else "")

    def plain(self, value):
        """The fast path's check: the value as the parser gives it when it fits as given (an
        int, a bool, a Tensor, a tuple or list of ints ...), ``_NO`` when it cannot fit,
        ``_UNSURE`` when only the full check can tell (a NumPy int, a 0-dim tensor ...)."""
        kind, cls = self.kind, type(value)
        if value is None:
            return None if self.allow_none else _UNSURE if kind == "ScalarType" else _NO
        if kind == "Tensor":
            return value if isinstance(value, Tensor) else _NO if cls in _PLAIN else _UNSURE
        if kind == "int":
            return value if cls is int else _NO if cls in _PLAIN else _UNSURE
        if kind == "bool":
            return value if cls is bool else _NO
        if kind in _INT_LISTS:
            if cls is tuple or cls is list or isinstance(value, tuple):
                for item in value:  # (a loop: cheaper than all() over a generator)
                    if type(item) is not int:
                        return _UNSURE
                return tuple(value)
            if cls is int:
                return (value,) if kind == "int[1]" else _NO
            return _NO if cls in _PLAIN else _UNSURE
        if kind == "float":
            return value if cls is float else float(value) if cls is int else _UNSURE
        if kind == "Scalar":
            if cls is float or cls is bool or cls is int and -2 ** 63 <= value < 2 ** 63:
                return value
            return _NO if cls is str or cls is tuple or cls is list else _UNSURE
        if kind == "Device":
            return value
        if kind == "Tensor[]" and (cls is list or cls is tuple):
            for item in value:
                if not isinstance(item, Tensor):
                    return _UNSURE
            return value
        return _NO if kind == "ScalarType" and cls in _PLAIN else _UNSURE

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
        if kind == "Device":  # (the factory checks the device itself)
            return True, None
        return isinstance(value, Tensor), None


# the fast path's answers when a value does not fit as given
_NO, _UNSURE = object(), object()


# the types of the common values that no Tensor, int or int list parameter takes
_PLAIN = frozenset((int, float, bool, complex, str, tuple, list))




class _Signature:
    """One overload: the table's text, as the method's parser reads it (``method``: without
    ``self`` and ``out=``) or as the function's (``self`` named ``input``)."""

    def __init__(self, name, spec, index, method):
        self.name, self.index, self.params, keyword_only = name, index, [], False
        for part in spec.split(", ") if spec else ():
            if part == "*":
                keyword_only = True
            else:
                self.params.append(_Param(part, keyword_only))
        if method:
            self.params = [p for p in self.params[1:] if p.name != "out"]
        for param in self.params:
            if param.name == "self" and param.kind == "Tensor":
                param.rename("input")
        self.has_out = any(p.name == "out" for p in self.params)
        self.min_args = builtins.sum(not p.optional for p in self.params)
        self.max_pos_args = builtins.sum(not p.keyword_only for p in self.params)
        # one positional int list takes the positional arguments as its elements, as PyTorch's
        # parser allows: x.view(2, 12) is x.view((2, 12)), x.view(5) x.view((5,)). Only where an
        # int does not fit it (the parser tries varargs after the check fails): an int[1] takes
        # the int itself, so var(0, 1) does not become var((0, 1))
        self.varargs = self.max_pos_args == 1 and self.params[0].kind == "int[]"
        # after n positional arguments: the defaults of the others (None: one is required)
        self.rest = [None if any(not p.optional for p in self.params[n:])
                     else {p.name: p.default for p in self.params[n:]}
                     for n in range(len(self.params) + 1)]
        self.text = ", ".join(
            ("*, " if p.keyword_only and not any(q.keyword_only for q in self.params[:i]) else "")
            + p.text for i, p in enumerate(self.params))

    def plain(self, args, kwargs):
        """The fast path: the values when every argument fits as given, ``_NO`` when this
        overload cannot fit, ``_UNSURE`` when only :meth:`parse` can tell."""
        n, params, values = len(args), self.params, {}
        if self.varargs and n and type(args[0]) is int:  # (x.view(2, 3): the ints, a tuple)
            for a in args:
                if type(a) is not int:
                    return _UNSURE
            values[params[0].name], n = args, 1
        elif n > self.max_pos_args:
            return _NO
        else:
            for i in range(n):
                param, value = params[i], args[i]
                kind = param.kind  # (an int and a Tensor inline: the common arguments)
                if kind == "int" and type(value) is int or kind == "Tensor" and isinstance(
                        value, Tensor):
                    values[param.name] = value
                    continue
                value = param.plain(value)
                if value is _NO or value is _UNSURE:
                    return value
                values[param.name] = value
        if not kwargs:
            rest = self.rest[n]  # (the defaults after n positional arguments)
            if rest is None:
                return _NO
            if rest:
                values.update(rest)
            return values
        used = 0
        for i in range(n, len(params)):
            param = params[i]
            if param.name in kwargs:
                value = param.plain(kwargs[param.name])
                if value is _NO or value is _UNSURE:
                    return value
                values[param.name] = value
                used += 1
            elif param.optional:
                values[param.name] = param.default
            else:  # (missing, or given by a NumPy name, which parse reads)
                return _UNSURE
        return values if used == len(kwargs) else _UNSURE

    def parse(self, args, kwargs, raise_exception):
        """FunctionSignature::parse: the values by name (a default for one not given), or
        None (or, with ``raise_exception``, the error saying why this overload does not fit)."""
        name, nargs, values = self.name, len(args), {}
        if self.varargs and nargs and _is_index(args[0]):
            args, nargs = (args,), 1
        if nargs > self.max_pos_args:
            if not raise_exception:
                return None
            if self.min_args != self.max_pos_args:
                raise TypeError(f"{name}() takes from {self.min_args} to {self.max_pos_args} "
                                f"positional arguments but {nargs} "
                                f"{'was' if nargs == 1 else 'were'} given")
            raise TypeError(f"{name}() takes {self.max_pos_args} positional argument"
                            f"{'' if self.max_pos_args == 1 else 's'} but {nargs} "
                            f"{'was' if nargs == 1 else 'were'} given")
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
            for key in kwargs:  # (find_param: the names only, no NumPy alias: np.sum(t)'s axis)
                index = next((i for i, p in enumerate(self.params) if key == p.name), None)
                if index is None:
                    raise TypeError(f"{name}() got an unexpected keyword argument '{key}'")
                if index < nargs:
                    raise TypeError(f"{name}() got multiple values for argument '{key}'")
        return self.unpack(values)

    def unpack(self, values):
        """The values as the parser hands them on: a number as a Python number, an int list
        as a tuple of ints."""
        for param in self.params:
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


class ArgParser:
    """PyTorch's PythonArgParser for one op: its overloads from the table (as the Tensor
    method takes them, or as the ``torch.`` function does). The first overload that fits
    wins; when none does, an op with one overload (or one that takes as many arguments as
    were given) names the argument at fault (``sum(): argument 'keepdim' (position 2) must be
    bool, not int``), any other lists its overloads ("received an invalid combination of
    arguments")."""

    def __init__(self, name, method=False):
        self.name, specs = name, SIGNATURES[name]
        self.signatures = [_Signature(name, spec, i, method) for i, spec in enumerate(specs)
                           if not method or spec.startswith("Tensor self")]
        # a call with no arguments: the first overload that takes none, and its defaults
        self.bare = next(((s.index, {k: v for k, v in s.rest[0].items() if k != "out"})
                          for s in self.signatures if s.rest[0] is not None), None)

    def parse(self, args, kwargs):
        """(the table index of the overload that fits, its values by name, ``out`` checked
        and left out), or PyTorch's TypeError."""
        if not args and not kwargs and self.bare is not None:
            return self.bare[0], self.bare[1].copy()
        for signature in self.signatures:
            values = signature.plain(args, kwargs)
            if values is _UNSURE:
                break
            if values is not _NO:
                if signature.has_out:
                    check_no_out(values.pop("out"))
                return signature.index, values
        for signature in self.signatures:
            values = signature.parse(args, kwargs, False)
            if values is not None:
                if signature.has_out:
                    check_no_out(values.pop("out"))
                return signature.index, values
        if len(self.signatures) == 1:
            self.signatures[0].parse(args, kwargs, True)
        given = len(args) + len(kwargs)
        plausible = [s for s in self.signatures if s.min_args <= given <= len(s.params)]
        if len(plausible) == 1:
            plausible[0].parse(args, kwargs, True)
        raise invalid_arguments(self.name, args, [s.text for s in self.signatures], kwargs)


_PARSERS = ({}, {})  # (the functions' parsers, the methods'), made on first use


def parse(name, args, kwargs, method=False):
    """``torch.name(*args, **kwargs)`` (``x.name(*args, **kwargs)`` with ``method``: the
    arguments after self) parsed by the table's signatures of ``name``: (the index of the
    overload that fits, its values by name, in the signature's order), or PyTorch's TypeError."""
    parsers = _PARSERS[method]
    parser = parsers.get(name)
    if parser is None:
        parser = parsers[name] = ArgParser(name, method)
    return parser.parse(args, kwargs)


def parsed(name):
    """A function whose arguments are the table's ``name``'s (its overloads share their
    parameters' positions): the call parsed, then handed on by position. ``.method`` is the
    Tensor method's twin (``x.dot(2)``: position 1)."""
    def wrap(fn):
        @functools.wraps(fn)
        def function(*args, **kwargs):
            return fn(*parse(name, args, kwargs)[1].values())

        def method(self, *args, **kwargs):
            return fn(self, *parse(name, args, kwargs, True)[1].values())
        function.method = method
        function.__name__ = function.__qualname__ = name
        return function
    return wrap


def function(name, op):
    """``torch.name``, whose Tensor method's entry point is ``op(x, index, values)``: the
    call parsed, then ``op(input, index, the other values)``."""
    def call(*args, **kwargs):
        index, values = parse(name, args, kwargs)
        return op(values.pop("input", None), index, values)
    call.__name__ = call.__qualname__ = name
    call.__doc__ = op.__doc__
    return call


def check_no_out(out):
    """``out=``: this package writes no result into a given tensor (one line that says so)."""
    if out is not None:
        raise NotImplementedError("autograd_lesson has no out= argument: use the result")


def _unpack_index(value):
    if isinstance(value, Tensor):
        if value._data.size != 1 or value._data.dtype.kind not in "iub":
            raise TypeError
        return int(value._data.reshape(()))
    return operator.index(value)  # (a bool is 1, as THPUtils_unpackIndex reads it)
