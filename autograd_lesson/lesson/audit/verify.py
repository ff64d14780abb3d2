"""Trying a fix on a copy of the step, as a ground-truth experiment does: the step's models,
optimizers and data are deep-copied (twice: one copy runs the step as written, the other with
the fix), both start from the same random state, and the two runs are compared: did the fix
run, and are the gradients and weights the same?

What is copied: the step's arguments, its closure and the globals its code (and the functions
it calls) names. If a backward of the original step reached a leaf that was not copied, or a
copy run would step an original optimizer or reach an original leaf, nothing is run (or the run
stops before it changes anything) and the fix reads "not verified". torch only: the package's
tensors cannot be deep-copied.

A fix is an intervention at one backward of the copy (by its number in the step):
``drop_retain`` (run it with retain_graph=False), ``retain`` (with retain_graph=True), ``sum``
(hold the first backward and run it with the second, as ``(a + b).backward()``) and ``detach``
(let the first backward reach only the leaves the second one does not share).
"""
import contextlib
import copy
import random
import re
import sys
import types

from ...i18n import t
from .analysis import STALE_START, write_text
from .observe import _is_accumulate, walk, where


class _Unsafe(Exception):
    """A copy run would touch the learner's own objects."""


def try_fix(step, args, kwargs, leaf_refs, plan, calls):
    """(verified, the one line saying what the experiment showed) for ``plan`` on ``calls``
    (the step's first call, as audit saw it; ``leaf_refs``: weak references to the leaves its
    backwards reached); (None, "") where no experiment can be run."""
    if "torch" not in sys.modules or not calls or any(c.engine != "torch" for c in calls):
        return None, ""
    # the leaves still alive are the learner's (a leaf made inside the step died with it)
    leaf_ids = [i for i, ref in leaf_refs.items() if ref() is not None]
    kind, first = plan[0], plan[1]
    try:
        with _isolated() as seed:
            run = (step, args, kwargs, leaf_ids, seed)
            reference = _experiment(*run, None)
            if kind in ("sum", "detach") and reference[0] is not None:
                # the step as written fails: compare with retain_graph=True on the first one
                reference = _experiment(*run, ("retain", first))
            fixed = _experiment(*run, plan, calls)
    except _Unsafe:
        return False, t("audit.check_unsafe")
    error, same = fixed[0], _same(reference, fixed)
    label, second = f"backward #{first}", f"backward #{plan[-1]}"
    if kind == "retain":
        if error and error.startswith(STALE_START):
            return True, _verdict(True, t("audit.check_retain_stale", label=label,
                                          second=second))
        return False, t("audit.check_fails", error=error) if error else \
            _verdict(False, t("audit.check_retain_runs", label=label))
    if error is not None:
        return False, t("audit.check_fails", error=error)
    if reference[0] is not None:
        return False, t("audit.check_nothing")
    done = {"drop_retain": t("audit.check_drop", label=label),
            "sum": t("audit.check_sum", label=label, second=second),
            "detach": t("audit.check_detach", label=label)}[kind]
    return same, _verdict(same, done + t("audit.check_same" if same else "audit.check_differs"))


def _verdict(verified, text):
    return t("audit.verified" if verified else "audit.not_verified") + ": " + text


def find_write(step, args, kwargs, leaf_refs, plan, calls):
    """The in-place write that made a saved tensor stale, as ``"`code` at file:line"``: a copy
    of the step (with ``plan``'s intervention, or as written) runs with every in-place op
    watched, and the write that took the tensor the error names past its saved version is
    the one. (the write, the copy's error) — (None, None) where no copy can run."""
    if "torch" not in sys.modules or any(c.engine != "torch" for c in calls):
        return None, None
    leaf_ids = [i for i, ref in leaf_refs.items() if ref() is not None]
    writes = []
    try:
        with _isolated() as seed:
            error = _experiment(step, args, kwargs, leaf_ids, seed, plan, calls, writes)[0]
    except _Unsafe:
        return None, None
    found = _SHAPE.search(error or "")
    if not found:
        return None, error
    shape = tuple(int(n) for n in found.group(1).split(",") if n.strip())
    saved = int(found.group(3))
    numel = 1
    for n in shape:
        numel *= n
    for where, shape_after, size, version in writes:  # the write that went past the save
        if version == saved + 1 and (shape_after == shape or size == numel):
            return write_text((0, where, {})), error
    return None, error


_SHAPE = re.compile(r"\[torch\.\w+ \[([\d, ]*)\]\].*? is at version (\d+); expected version "
                    r"(\d+)")


class _Writes:
    """A TorchFunctionMode noting each in-place op: (its line, the tensor's shape, number of
    elements and version after it)."""

    def __new__(cls, writes):
        from torch.overrides import TorchFunctionMode

        class Writes(TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                result = func(*args, **(kwargs or {}))
                name = getattr(func, "__name__", "")
                if args and (name.endswith("_") and not name.startswith("_")
                             or name in _INPLACE_DUNDERS):
                    target = args[0]
                    if isinstance(target, sys.modules["torch"].Tensor):
                        writes.append((where(), tuple(target.shape), target.numel(),
                                       target._version))
                return result
        return Writes()


_INPLACE_DUNDERS = {"__iadd__", "__isub__", "__imul__", "__itruediv__", "__ifloordiv__",
                    "__ipow__", "__imod__", "__iand__", "__ior__", "__ixor__", "__setitem__",
                    "__ilshift__", "__irshift__", "__imatmul__"}


@contextlib.contextmanager
def _isolated():
    """The learner's random streams are left as they were; every copy run of one experiment
    starts from the state they have now (yielded)."""
    torch = sys.modules["torch"]
    state, py, np = torch.get_rng_state(), random.getstate(), _numpy_state()
    try:
        yield state, py
    finally:
        torch.set_rng_state(state)
        random.setstate(py)
        if np is not None:
            sys.modules["numpy"].random.set_state(np)


def _numpy_state():
    numpy = sys.modules.get("numpy")
    return numpy.random.get_state() if numpy is not None else None


def _experiment(step, args, kwargs, leaf_ids, seed, plan, calls=(), writes=None):
    """Run a copy of the step (with ``plan``'s intervention; noting in-place writes in
    ``writes`` if given): (its error's first sentence or None, the gradients and values of the
    copied leaves the step's backwards reached)."""
    torch = sys.modules["torch"]
    memo = {}
    fn, c_args, c_kwargs = _copy_step(step, args, kwargs, memo)
    if any(i not in memo for i in leaf_ids):
        raise _Unsafe
    leaves = [memo[i] for i in leaf_ids]
    # ids of live objects only: deepcopy's memo also holds ids of temporaries it freed, which
    # the copy run's own tensors may reuse
    originals = set(leaf_ids) | {id(o) for o in memo.get(id(memo), ())
                                 if isinstance(o, torch.optim.Optimizer)}
    torch.set_rng_state(seed[0])
    random.setstate(seed[1])
    error = None
    with _Intervene(plan, calls, memo, originals), \
            (_Writes(writes) if writes is not None else contextlib.nullcontext()):
        try:
            fn(*c_args, **c_kwargs)
        except _Unsafe:
            raise
        except Exception as exc:  # noqa: BLE001 (the experiment's outcome)
            error = str(exc).split(". ")[0].split("\n")[0]
    return error, [(None if p.grad is None else p.grad.detach().clone(), p.detach().clone())
                   for p in leaves]


def _same(a, b):
    torch = sys.modules["torch"]
    if len(a[1]) != len(b[1]):
        return False
    for (ga, va), (gb, vb) in zip(a[1], b[1]):
        if (ga is None) != (gb is None):
            return False
        if ga is not None and not torch.allclose(ga, gb, rtol=1e-5, atol=1e-7):
            return False
        if not torch.allclose(va, vb, rtol=1e-5, atol=1e-7):
            return False
    return True


# -- copying the step ------------------------------------------------------------------------
def _copy_step(step, args, kwargs, memo):
    globals_map = {}
    fn = _copy_value(step, memo, globals_map)
    return fn, [_copy_value(a, memo, globals_map) for a in args], \
        {k: _copy_value(v, memo, globals_map) for k, v in kwargs.items()}


def _names(code):
    found = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            found |= _names(const)
    return found


def _copy_value(value, memo, globals_map):
    if id(value) in memo:
        return memo[id(value)]
    if isinstance(value, types.MethodType):
        return types.MethodType(_copy_value(value.__func__, memo, globals_map),
                                _copy_value(value.__self__, memo, globals_map))
    if isinstance(value, types.FunctionType):
        return _copy_function(value, memo, globals_map)
    if isinstance(value, (types.ModuleType, type, types.BuiltinFunctionType)) or \
            callable(value) and not hasattr(value, "__dict__"):
        return value
    try:
        return copy.deepcopy(value, memo)
    except Exception:  # noqa: BLE001 (e.g. a dict holding a tensor with a graph)
        if isinstance(value, (int, float, complex, str, bytes, bool, type(None))):
            return value
        raise _Unsafe from None  # sharing it, the copy run could change the learner's state


def _copy_function(fn, memo, globals_map):
    module = fn.__globals__
    new_globals = globals_map.get(id(module))
    if new_globals is None:
        new_globals = globals_map[id(module)] = dict(module)
        new_globals["__audit_copied__"] = set()
    closure = None
    if fn.__closure__:
        closure = tuple(types.CellType() for _ in fn.__closure__)
    copied = types.FunctionType(fn.__code__, new_globals, fn.__name__, fn.__defaults__, closure)
    copied.__kwdefaults__ = fn.__kwdefaults__
    copied.__dict__.update(fn.__dict__)
    memo[id(fn)] = copied
    for cell, new in zip(fn.__closure__ or (), closure or ()):
        try:
            new.cell_contents = _copy_value(cell.cell_contents, memo, globals_map)
        except ValueError:  # an empty cell
            pass
    done = new_globals["__audit_copied__"]
    for name in _names(fn.__code__) - done:
        done.add(name)
        if name in module and name != "__builtins__":
            new_globals[name] = _copy_value(module[name], memo, globals_map)
    return copied


# -- the intervention ------------------------------------------------------------------------
class _Intervene:
    """Swap torch's engine entry for a copy run: count its backwards, change the one the plan
    names, and stop before anything reaches the learner's own leaves or optimizers."""

    def __init__(self, plan, calls, memo, originals):
        self.plan, self.calls, self.memo, self.originals = plan, calls, memo, originals
        self.count, self.held = 0, None

    def __enter__(self):
        torch = sys.modules["torch"]
        from torch.optim.optimizer import register_optimizer_step_pre_hook
        self.autograd, self.original = torch.autograd, torch.autograd._engine_run_backward
        torch.autograd._engine_run_backward = self.run_backward
        self.handle = register_optimizer_step_pre_hook(self.on_step)
        return self

    def __exit__(self, *exc):
        self.autograd._engine_run_backward = self.original
        self.handle.remove()
        return False

    def on_step(self, optimizer, args, kwargs):
        if id(optimizer) in self.originals:
            raise _Unsafe

    def run_backward(self, outputs, grad_outputs, keep_graph, create_graph, inputs=(),
                     *args, **kwargs):
        self.count += 1
        starts = [o.grad_fn for o in outputs if getattr(o, "grad_fn", None) is not None]
        _, _, leaves = walk(starts, {}, _is_accumulate)
        if any(id(n.variable) in self.originals for n in leaves):
            raise _Unsafe
        plan = self.plan or (None, None)
        kind, index = plan[0], plan[1]
        if self.count == index:
            if kind == "drop_retain":
                keep_graph = False
            elif kind == "retain":
                keep_graph = True
            elif kind == "sum":
                self.held = (tuple(outputs), tuple(grad_outputs))
                return ()
            elif kind == "detach":
                inputs = self._unshared(plan)
        if kind == "sum" and self.count == plan[2] and self.held is not None:
            outputs = self.held[0] + tuple(outputs)
            grad_outputs = self.held[1] + tuple(grad_outputs)
        return self.original(outputs, grad_outputs, keep_graph, create_graph, inputs,
                             *args, **kwargs)

    def _unshared(self, plan):
        first, second = self.calls[plan[1] - 1], self.calls[plan[2] - 1]
        keep = [self.memo[v] for v in first.leaves if v not in (second.shared_leaves or {})
                and v in self.memo]
        return tuple(keep)
