"""Running a program through both libraries and comparing the outcomes: which line raised (the
exception's builtin type and message), the warnings, and every tensor the program made (shape,
dtype, values, ``requires_grad``, the leaves' and retained ``.grad``)."""
import builtins
import re
import warnings

import numpy as np

import autograd_lesson as al

from . import families

def _missing_argument(message):
    """Python's and torch's parsers word a missing argument differently; both are TypeErrors."""
    return re.sub(r".*missing (\d+) required positional argument.*", r"missing \1 argument", message)


def _kind(exc):
    return next(c.__name__ for c in type(exc).__mro__ if getattr(builtins, c.__name__, None) is c)


def _message(text):
    text = str(text)
    text = re.sub(r" \(Triggered internally at .*", "", text, flags=re.S)
    # (a C++ error torch rewraps, unflatten's "unexpected error", carries its C++ stack trace)
    text = re.sub(r"\nException raised from .*", "", text, flags=re.S)
    if "received an invalid combination of arguments" in text:
        # (the package lists the overloads, not the parser's "didn't match" notes under some)
        text = "\n".join(line for line in text.split("\n")
                         if not line.startswith("      didn't match"))
    # (pybind11's "Invoked with: <torch._C._autograd.SavedTensor object at 0x7f...>, <function
    # <lambda> at 0x7f...>": an object's address, and a C++ class's module, are no outcome)
    text = re.sub(r"<[\w.]*?(\w+) object at 0x[0-9a-f]+>", r"<\1 object>", text)
    text = re.sub(r" at 0x[0-9a-f]+>", " at 0x...>", text)
    return text  # (exactly: the "torch." of a type name included)


def _describe(value):
    if isinstance(value, (al.Tensor,)) or type(value).__name__ == "Tensor":
        data = value.detach()
        arr = np.asarray(data.numpy() if hasattr(data, "numpy") else data)
        grad = None
        if (value.is_leaf and value.requires_grad) or value.retains_grad:
            grad = value.grad
            grad = None if grad is None else _describe(grad)
        return ("tensor", tuple(value.shape), repr(value.dtype),
                arr.astype(np.complex128 if arr.dtype.kind == "c" else np.float64),
                bool(value.requires_grad), grad)
    if isinstance(value, (tuple, list)):
        return tuple(_describe(v) for v in value)
    if isinstance(value, (np.ndarray, np.generic)):  # NumPy interop: dtype, shape and values
        arr = np.asarray(value)
        values = (arr.astype(np.complex128 if arr.dtype.kind == "c" else np.float64)
                  if arr.dtype.kind in "biufc" else np.asarray([type(v).__name__ for v in arr.flat]))
        return ("ndarray", type(value).__name__, str(arr.dtype), arr.shape, values)
    if isinstance(value, (bool, int, float, str, type(None))):
        return value
    return type(value).__name__


def _describe_or_error(value):
    """Reading a tensor can raise too (``is_leaf`` of a split's view whose base changed in
    place): then the error is what is compared."""
    try:
        return _describe(value)
    except Exception as exc:  # noqa: BLE001  (the outcome under comparison)
        return ("error", _kind(exc), _message(exc))


NOT_OUTCOMES = {"lib", "F", "np", "h", "Scale"} | families.IGNORED


def run(lib, lines):
    env = {"lib": lib, "F": lib.nn.functional, "np": np}
    # Warnings that come once per process (per call site in torch) would make a program's
    # outcome depend on the programs before it: every program sees them (a set, below).
    warn_always = lib.is_warn_always_enabled()
    lib.set_warn_always(True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            error, env = _run_lines(env, lines)
        finally:
            lib.set_warn_always(warn_always)
    seen = sorted({(w.category.__name__, _message(w.message)) for w in caught})
    state = {k: _describe_or_error(v) for k, v in env.items()
             if k not in NOT_OUTCOMES and not k.startswith("__")}
    return error, seen, state


def _run_lines(env, lines):
    """Run the lines until one raises: (its line, type and message) or None, and the names
    left to compare."""
    for i, line in enumerate(lines):
        try:
            exec(line, env)
        except Exception as exc:  # noqa: BLE001  (the outcome under comparison)
            error = (i, _kind(exc), _missing_argument(_message(exc)))
            if "] = " in line and isinstance(exc, IndexError):
                # torch writes the in-bounds entries of x[index] = v before it raises: the
                # values of x and its views are an accident of its kernel, not compared
                env = {k: v for k, v in env.items() if k in ("lib", "F", "np")}
            return error, env
    return None, env


def _same(a, b):
    if isinstance(a, tuple) and a and a[0] == "tensor" and isinstance(b, tuple) and b and b[0] == "tensor":
        if a[1:3] != b[1:3] or a[4] != b[4]:
            return False
        if a[3].shape != b[3].shape or not np.allclose(a[3], b[3], rtol=1e-4, atol=1e-5,
                                                        equal_nan=True):
            return False
        return _same(a[5], b[5])
    if isinstance(a, tuple) and a and a[0] == "ndarray" and isinstance(b, tuple) and b and b[0] == "ndarray":
        if a[1:4] != b[1:4] or a[4].dtype.kind not in "fc":
            return a[1:4] == b[1:4] and np.array_equal(a[4], b[4])
        return np.allclose(a[4], b[4], rtol=1e-4, atol=1e-5, equal_nan=True)
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        return np.isclose(a, b, equal_nan=True)
    return a == b


# A documented refusal: ours raises NotImplementedError("autograd_lesson ...") where torch has an
# answer (complex autograd, p != 2 norms ...). The program is compared up to that line.
LIMITATION = "autograd_lesson"

# Known divergences still open, as (our message, torch's message) regexes: a program is compared
# up to the line that raised. Empty now: the four the autograd half had (grad with an output
# that needs no grad, hooks that change a gradient's size, backward(inputs=) of a tensor that
# needs no grad) are fixed, and FIXED_EXAMPLES keeps them compared in full.
PENDING = []
FIXED_EXAMPLES = [
    ["t0 = lib.tensor([1.0])", "t1 = t0 * 2",
     "g = lib.autograd.grad(t1.sum(), [t0], allow_unused=True)"],
    ["t0 = lib.tensor([1.0, 2.0], requires_grad=True)", "t1 = t0 * 2",
     "h = t1.register_hook(lambda g: g.sum())", "t1.sum().backward()"],
    ["t0 = lib.tensor([1.0, 2.0], requires_grad=True)",
     "h = t0.register_hook(lambda g: g.sum())", "t0.sum().backward()"],
    ["t0 = lib.tensor([1.0])", "t1 = lib.tensor([2.0], requires_grad=True)",
     "t1.sum().backward(inputs=[t0])"],
]


def _pending(ours, theirs):
    ours_text = "None" if ours is None else ours[2]
    return theirs is not None and any(re.fullmatch(a, ours_text) and re.fullmatch(b, theirs[2])
                                      for a, b in PENDING)
SEEN = {"limitation": 0, "pending": 0, "torch bug": 0}


ZERO_DIM_SELECT = "select() cannot be applied to a 0-dim tensor."
OUT_OF_BOUNDS = re.compile(r"index (-?\d+) is out of bounds for dimension 0 with size (\d+)")


def _zero_dim_size(ours, theirs):
    """x[5] of a 0-dim x: torch reads dimension 0's size past the end of x's empty sizes, so the
    size in its message is whatever lies there (2 after ``F.mse_loss`` of a [2, 0] target, 0
    after ``.sum()``); ours says 0. Same line, same index, only the size differs."""
    if ours is None or theirs is None or ours[:2] != theirs[:2]:
        return False
    mine, torch_says = OUT_OF_BOUNDS.fullmatch(ours[2]), OUT_OF_BOUNDS.fullmatch(theirs[2])
    return bool(mine and torch_says and mine[1] == torch_says[1] and mine[2] == "0")


def _cut(ours, theirs):
    """The line to stop comparing at, for a documented limitation or a pending divergence
    (or a crash inside torch itself, which is no spec: ``True ** x`` asserts in its backward)."""
    if theirs[0] is not None and ("INTERNAL ASSERT FAILED" in theirs[0][2]
                                  or theirs[0][2].startswith("Autograd not support dtype")
                                  or (theirs[0][2] == ZERO_DIM_SELECT and ours[0] is not None
                                      and ours[0][2].startswith("index -"))
                                  or _zero_dim_size(ours[0], theirs[0])):
        # (the second: x.copy_(y) with y requiring grad makes an integer x require grad in torch;
        # the third: x[-1] of a 0-dim x reads a size past the end of its empty sizes, so which
        # message torch gives depends on memory: "index -1 is out of bounds ..." or this; the
        # fourth, the same read for x[5]: see _zero_dim_size)
        SEEN["torch bug"] += 1
        return theirs[0][0]
    if _pending(ours[0], theirs[0]):
        SEEN["pending"] += 1
        return theirs[0][0] if ours[0] is None else min(ours[0][0], theirs[0][0])
    if ours[0] is None:
        return None
    line, kind, message = ours[0]
    if kind == "NotImplementedError" and message.startswith(LIMITATION):
        SEEN["limitation"] += 1
        return line
    return None


def compare(torch, lines):
    ours, theirs = run(al, lines), run(torch, lines)
    cut = _cut(ours, theirs)
    if cut is not None:
        lines = lines[:cut]
        ours, theirs = run(al, lines), run(torch, lines)
    program_text = "\n".join(lines)
    assert ours[0] == theirs[0], (f"\n{program_text}\nexception: autograd_lesson {ours[0]}\n"
                                  f"                  torch {theirs[0]}")
    assert ours[1] == theirs[1], (f"\n{program_text}\nwarnings: autograd_lesson {ours[1]}\n"
                                  f"                 torch {theirs[1]}")
    for name in sorted(set(ours[2]) | set(theirs[2])):
        a, b = ours[2].get(name), theirs[2].get(name)
        assert _same(a, b), (f"\n{program_text}\n{name}: autograd_lesson {_show(a)}\n"
                             f"{' ' * len(name)}  torch {_show(b)}")


def _show(d):
    if isinstance(d, tuple) and d and d[0] == "tensor":
        return f"shape={d[1]} dtype={d[2]} values={d[3].tolist()} requires_grad={d[4]} grad={_show(d[5])}"
    if isinstance(d, tuple) and d and d[0] == "ndarray":
        return f"{d[1]} dtype={d[2]} shape={d[3]} values={d[4].tolist()}"
    return repr(d)
