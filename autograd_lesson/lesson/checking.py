"""Checking: the exercises' checkers (which buffers a call frees, whether it raises, which of
several calls raise, a value, and a verdict from a notebook's own checker).

Every checker first checks the answer's form and says in one line what form is wanted (never a
traceback), then gives the verdict, and only then what the engine did. Hints come from the
catalogue (keyed by exercise id) and show after a wrong answer; attempts are counted
(:mod:`.attempts`); under nbgrader a checker that is not satisfied raises ``AssertionError``
(:mod:`.grading`).
"""
import gc
import numbers
import sys
import warnings

from . import attempts
from .catalogue import lookup
from .grading import fail_if_grading
from .showing import as_call, caller_namespace, graph_roots, verdict
from ..i18n import exercise_text, localize, t
from ..viz import record, take_snapshot
from ..viz.snapshot import is_tensor, is_torch  # neither imports torch

NOT_DONE = ("✎ not done yet: replace the ... with your answer, run that cell, "
            "then run this cell again.")
FREED_FORM = ('✗ answer with a set of "Node.slot" names, such as {"PowBackward0.self"} '
              '(set() if nothing is freed).')
RAISES_FORM = "✗ answer True (it raises) or False (it runs), without quotes."


# -- the shared ending of every checker -------------------------------------------------------
def exercise_and_hint(exercise, hint):
    """The exercise's id ("unnamed" if none) and its hint, from the catalogue in the current
    language when the exercise is in it, else ``hint``."""
    entry = lookup(exercise) if exercise else None
    return exercise or "unnamed", (exercise_text(entry)[1] if entry else hint)


def not_an_attempt(message):
    """No answer yet, or one of the wrong form: not an attempt. Say what is wanted and stop."""
    print(fail_if_grading(message))


def not_done():
    """The answer is still the placeholder ``...`` (every checker, and a notebook's own)."""
    not_an_attempt(t("not_done"))


def give_verdict(exercise, hint, answer_key, correct, right, wrong, after=()):
    """Print the verdict (with the attempt count), then ``after`` (what the engine did)."""
    rec = attempts.attempt(exercise, answer_key, correct)
    nth = dict(ordinal=attempts.ordinal(rec.attempts), nth=attempts.nth_ko(rec.attempts))
    if correct:
        when = "" if rec.attempts == 1 else t("verdict.when", **nth)
        lines = [t("verdict.correct", when=when) + (f": {right}" if right else ".")]
    else:
        lines = [t("verdict.wrong", **nth) + (f": {wrong}" if wrong else ".")]
        if hint:
            lines.append(t("verdict.hint", hint=hint))
    lines += list(after)
    print(fail_if_grading("\n".join(lines)) if not correct else "\n".join(lines))


def report(exercise, correct, right="", wrong="", answer_key=None):
    """The verdict of a checker written in a notebook (a write-code exercise's own test)."""
    _, hint = exercise_and_hint(exercise, "")
    give_verdict(exercise, hint, answer_key, correct, localize(right), localize(wrong))


def _braces(items):
    """A list or tuple of names written as the set it should have been."""
    names = [f'"{i}"' if isinstance(i, str) else repr(i) for i in dict.fromkeys(items)]
    return "{" + ", ".join(names) + "}" if names else "set()"


def set_of_names_form(prediction, choices, form, bare, unknown):
    """None if ``prediction`` is a set of names among ``choices``; else the one line that
    says what form is wanted: ``bare(name)`` for one choice not put in a set, a set's braces
    for a list, ``unknown(name)`` for the first name that is not a choice, else ``form``."""
    if isinstance(prediction, str):
        return bare(prediction) if prediction in choices else form
    if isinstance(prediction, (list, tuple)):
        return t("freed.a_list", braces=_braces(prediction))
    if not isinstance(prediction, (set, frozenset, list, tuple)) or \
            not all(isinstance(p, str) for p in prediction):
        return form
    strangers = sorted(set(prediction) - set(choices))
    return unknown(strangers[0]) if strangers else None


# -- which buffers does a call free? -----------------------------------------------------------
def _normalise(key, keep_id=False):
    """'PowBackward0.self', 'MulBackward0._saved_other' and '#0 MulBackward0._saved_other'
    all name the same buffer; with ``keep_id`` the '#0 ' (node number in the ledger) stays,
    to tell apart two nodes of the same type."""
    key = key.strip()
    if key.startswith("#") and not keep_id:
        key = key.split(" ", 1)[1] if " " in key else key
    return key.replace("._saved_", ".")


def _freed_form(prediction):
    """The answer as a set of strings, or the one line that says what form is wanted."""
    if isinstance(prediction, str):
        return t("freed.bare_string", name=prediction.strip())
    if isinstance(prediction, dict) and not prediction:
        return t("freed.empty_dict")
    if isinstance(prediction, (list, tuple)):
        return t("freed.a_list", braces=_braces(prediction))
    if not isinstance(prediction, (set, frozenset, list, tuple)):
        return t("freed.form") + t("freed.you_gave", type=type(prediction).__name__)
    odd = [p for p in prediction if not isinstance(p, str)]
    if odd:
        return t("freed.form") + t("freed.not_a_name", value=repr(odd[0]))
    bad = [p for p in prediction if "." not in p.strip(". ")]
    if bad:
        return t("freed.no_slot", name=bad[0])
    return None


def _slots_by_type(roots):
    """Node type name -> the tensor slots nodes of that type have (saved here or not), read
    from the nodes of the graph behind ``roots`` (either engine: both expose ``_saved_<slot>``)."""
    slots, seen, stack = {}, set(), [getattr(r, "grad_fn", None) for r in roots]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        names = slots.setdefault(node.name(), set())
        for attr in dir(node):
            if not attr.startswith("_saved_") or attr.endswith(("_sym_sizes", "_sym_strides")):
                continue
            try:
                value = getattr(node, attr)
            except Exception:  # noqa: BLE001  (a freed buffer: it was a tensor)
                value = None
            if value is None or is_tensor(value) or is_torch(value):
                names.add(attr[len("_saved_"):])
        stack += [child for child, _ in getattr(node, "next_functions", ())]
    return slots


def _unknown(guess, snapshot, keep_id, slots):
    """One line naming the first guessed node that is not in the graph, or slot that nodes
    of its type never have (a typo: their slots are listed, saved here or not), or None. A
    real slot that is not saved here is an answer, and a wrong one: it costs a try."""
    nodes = {(f"#{n.id} {n.name}" if keep_id else n.name) for n in snapshot.nodes}
    for name in sorted(guess):
        node, slot = name.rsplit(".", 1)
        if node not in nodes:
            return t("freed.no_node", node=node)
        kind = node.split(" ", 1)[-1]
        if slots.get(kind) and slot not in slots[kind]:
            return t("freed.no_such_slot", node=kind, slot=slot,
                     slots=", ".join(sorted(slots[kind])))
    return None


def check_freed(prediction, code, hint="", exercise=None, **names):
    """Predict-then-check: which saved buffers will ``code`` free? ``prediction`` is a set of
    names like ``{"PowBackward0.self"}`` (empty set: nothing is freed), or, to tell apart
    nodes of one type, ledger names with their number: ``{"#3 AddmmBackward0.mat1"}``."""
    exercise, hint = exercise_and_hint(exercise, hint)
    if prediction is ...:
        return not_done()
    problem = _freed_form(prediction)
    if problem:
        return not_an_attempt(problem)
    call, label = as_call(code, caller_namespace())
    roots = graph_roots(names)
    before = take_snapshot(roots, names)
    keep_id = any(k.strip().startswith("#") for k in prediction)
    guess = {_normalise(k, keep_id) for k in prediction}
    problem = _unknown(guess, before, keep_id, _slots_by_type(roots))
    if problem:
        return not_an_attempt(problem)
    recording = record(call, roots=roots, names=names)
    after = take_snapshot(roots, names)
    old = {b.key: b.state for b in before.buffers}
    freed = {_normalise(b.key, keep_id) for b in after.buffers
             if b.state == "freed" and old.get(b.key) != "freed"}
    correct = guess == freed
    missing, extra = freed - guess, guess - freed
    wrong = []
    if extra:
        wrong.append(t("freed.extra", listing=listing(extra),
                       are="is" if len(extra) == 1 else "are"))
    if missing:
        wrong.append(t("freed.missing", n=len(missing),
                       s_are="s are" if len(missing) > 1 else " is"))
    ran = f"{label}: {verdict(recording.error) if recording.error else t('freed.ran')}"
    give_verdict(exercise, hint, frozenset(guess), correct,
                 t("freed.right", listing=listing(freed)), "; ".join(wrong) + ".",
                 after=[ran] if correct else [])


# -- will a call raise? ------------------------------------------------------------------------
def _outcome(code, namespace):
    call, label = as_call(code, namespace)
    try:
        call()
        return label, None
    except Exception as exc:  # the outcome is shown as one line
        return label, exc


def check_raises(prediction, code, hint="", exercise=None):
    """Predict-then-check: will ``code`` raise? ``prediction`` is True or False."""
    exercise, hint = exercise_and_hint(exercise, hint)
    if prediction is ...:
        return not_done()
    if not isinstance(prediction, bool):
        extra = t("raises.quoted") if str(prediction) in ("True", "False") else ""
        return not_an_attempt(t("raises.form") + extra)
    label, error = _outcome(code, caller_namespace())
    correct = prediction == (error is not None)
    give_verdict(exercise, hint, prediction, correct,
                 t("raises.it_raises" if error is not None else "raises.it_runs"),
                 t("raises.predicted_raise" if prediction else "raises.predicted_run"),
                 after=[f"{label}: {verdict(error)}"] if correct else [])


def check_which_raise(prediction, calls, hint="", exercise=None):
    """Predict-then-check: which of ``calls`` (a dict name -> callable or code string) raise?
    ``prediction`` is the set of the names that raise (``set()``: none)."""
    exercise, hint = exercise_and_hint(exercise, hint)
    if prediction is ...:
        return not_done()
    choices = ", ".join(f'"{n}"' for n in calls)
    problem = set_of_names_form(
        prediction, calls, t("which.form", first=next(iter(calls)), choices=choices),
        bare=lambda name: t("which.in_a_set", name=name),
        unknown=lambda name: t("which.unknown", name=name, choices=choices))
    if problem:
        return not_an_attempt(problem)
    namespace = caller_namespace()
    outcomes = {name: _outcome(code, namespace)[1] for name, code in calls.items()}
    raised = {n for n, e in outcomes.items() if e is not None}
    correct = set(prediction) == raised
    after = [f"{n}: {verdict(e)}" for n, e in outcomes.items()] if correct else []
    right = (t("which.right", listing=listing(raised), s="s" if len(raised) == 1 else "")
             if raised else t("which.none"))
    give_verdict(exercise, hint, frozenset(prediction), correct, right,
                 t("which.wrong"), after=after)


# -- a value -----------------------------------------------------------------------------------
def _value_form(answer, want):
    """The answer as a float array, or the one line that says what form is wanted."""
    import numpy as np
    if is_tensor(answer) or is_torch(answer) or (isinstance(answer, np.ndarray) and
                                                 np.shares_memory(answer, want)):
        return None, t("value.not_a_tensor")
    count = want.size
    wanted = (t("value.a_number", example=_number(want * 0 + 4)) if want.ndim == 0 else
              t("value.a_list", count=count,
                example=_number(np.arange(count).reshape(want.shape))))
    flat = answer if isinstance(answer, (list, tuple)) else [answer]
    if any(isinstance(a, (bool, np.bool_)) for a in flat) or \
            not all(isinstance(a, (numbers.Number, list, tuple, np.ndarray)) for a in flat):
        return None, t("value.answer", wanted=wanted)
    try:
        got = np.asarray(answer, dtype=float)
    except (TypeError, ValueError):
        return None, t("value.answer", wanted=wanted)
    if got.shape != want.shape:
        have = t("value.one_number") if got.ndim == 0 else \
            t("value.gave_list", count=got.size, s="" if got.size == 1 else "s")
        return None, t("value.answer_gave", wanted=wanted, have=have)
    return got, None


def check_value(answer, expected, what, hint="", atol=1e-6, exercise=None):
    """Compare a learner's number or list with the engine's value and explain a mismatch."""
    import numpy as np
    exercise, hint = exercise_and_hint(exercise, hint)
    if answer is ...:
        return not_done()
    if hasattr(expected, "detach"):  # a tensor from the engine
        expected = expected.detach().numpy()
    try:
        if expected is None:
            raise TypeError
        want = np.asarray(expected, dtype=float)
    except (TypeError, ValueError):  # (the exercise's author passed it: say what fits)
        raise TypeError(f"check_value: expected is the right value, a number, a list of numbers "
                        f"or a tensor, got {type(expected).__name__} {expected!r}") from None
    got, problem = _value_form(answer, want)
    if problem:
        return not_an_attempt(problem)
    correct = bool(np.allclose(got, want, atol=atol))
    what = localize(what)
    give_verdict(exercise, hint, tuple(np.ravel(got)), correct,
                 t("value.right", what=what, value=_number(want)),
                 t("value.wrong", what=what, value=_number(got)))


def _number(values):
    """Numbers as a learner writes them: 4 rather than 4.0, at most 6 decimals."""
    import numpy as np
    rounded = np.round(values, 6)
    if np.all(rounded == np.round(rounded)):
        rounded = rounded.astype(np.int64)
    return rounded.tolist()


def listing(keys):
    return ", ".join(sorted(keys)) if keys else t("listing.nothing")


# -- a step the learner writes, checked by behaviour ------------------------------------------
def unwritten(fn):
    """True if ``fn``'s body is still only ``...`` (or ``pass``): the student copy's stub."""
    import ast
    import inspect
    import textwrap
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):  # no source to read: judge by what it does
        return False
    body = tree.body[0].body if tree.body and hasattr(tree.body[0], "body") else [None]
    return all(isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and
               isinstance(s.value, ast.Constant) and s.value.value is ...) for s in body)


def _state(inputs, compare):
    """name -> {"value": array, "grad": array or None} for every parameter of a module and
    every leaf tensor that requires grad among ``inputs`` (a dict name -> object)."""
    leaves = {}
    for name, obj in inputs.items():
        if _is_module(obj):
            leaves.update({f"{name}.{n}": p for n, p in obj.named_parameters()})
        elif is_tensor(obj) and obj.is_leaf and obj.requires_grad:
            leaves[name] = obj
    state = {}
    for name, t in leaves.items():
        entry = {}
        if "value" in compare:
            entry["value"] = t.detach().cpu().numpy().copy()
        if "grad" in compare:
            entry["grad"] = None if t.grad is None else t.grad.detach().cpu().numpy().copy()
        state[name] = entry
    return state


def _is_module(obj):
    from ..nn import Module
    torch = sys.modules.get("torch")
    return isinstance(obj, Module) or (torch is not None and isinstance(obj, torch.nn.Module))


def _uses_torch(inputs):
    """True if the step's inputs are torch's (a torch module, tensor or optimizer)."""
    torch = sys.modules.get("torch")
    if torch is None:
        return False
    return any(is_torch(o) or isinstance(o, (torch.nn.Module, torch.optim.Optimizer))
               for o in inputs.values())


def _run_torch_step(fn, inputs):
    """(events, error, bytes of saved tensors the step's graphs still hold after it) for a
    step on torch, observed as audit observes one (viz.torch_graphs' hooks, removed after)."""
    from .audit import run_once
    calls, error, held = run_once(fn, inputs.values())
    events = _Events()
    for call in calls:
        events.calls.append((call.retain_graph, call.create_graph, call.accumulate))
        for key, name in (call.ran or {}).items():
            events.runs[key] = events.runs.get(key, 0) + 1
            events.names.setdefault(key, name)
    return events, error, held


def _differences(got, want, atol):
    """Lines naming what differs between the learner's state and the reference's."""
    import numpy as np
    lines = []
    for name, ref in want.items():
        for what, expected in ref.items():
            label = f"{name}.grad" if what == "grad" else name
            actual = got[name][what]
            if expected is None and actual is None:
                continue
            if actual is None:
                lines.append(t("step.grad_none", label=label))
            elif expected is None:
                lines.append(t("step.grad_extra", label=label))
            elif not np.allclose(actual, expected, atol=atol):
                lines.append(t("step.differs", label=label,
                               difference=f"{np.abs(actual - expected).max():.2g}"))
    return lines


class _Events:
    """The engine's event stream reduced to what the checks need: each backward call's flags
    and each node run (by sequence number and name). It keeps no node, so no saved buffer."""

    def __init__(self):
        self.calls, self.runs, self.names = [], {}, {}

    def __call__(self, event):
        from ..autograd import graph as _graph
        if isinstance(event, _graph.BackwardStarted):
            self.calls.append((event.retain_graph, event.create_graph, event.accumulate))
        elif isinstance(event, _graph.NodeStarted) and \
                type(event.node).__name__ != "AccumulateGrad":
            key = event.node._sequence_nr()
            self.runs[key] = self.runs.get(key, 0) + 1
            self.names.setdefault(key, event.node.name())


def _event_problems(events, no_retain, max_runs_per_node, create_graph, max_backwards=None):
    """What the engine's event stream says was wrong with how the gradients were obtained."""
    calls = events.calls
    if not calls:
        return [t("step.no_backward")]
    problems = []
    backwards = sum(accumulate for _, _, accumulate in calls)
    if max_backwards is not None and backwards > max_backwards:
        problems.append(t("step.backwards_over", n=backwards, limit=max_backwards))
    if no_retain:
        retained = [f"{'backward' if accumulate else 'autograd.grad'} #{i}"
                    for i, (retain, create, accumulate) in enumerate(calls, 1)
                    if retain and not create]
        if retained:
            shown = ", ".join(retained[:3]) + (t("step.and_more", n=len(retained) - 3)
                                                if len(retained) > 3 else "")
            problems.append(t("step.retained", shown=shown, n=len(calls),
                              s="s" if len(calls) != 1 else ""))
    if create_graph and not any(create for _, create, _ in calls):
        problems.append(t("step.no_create_graph"))
    if max_runs_per_node:
        over = [(events.names[k], n) for k, n in events.runs.items()
                if n > max_runs_per_node]
        if over:
            shown = ", ".join(t("step.ran_times", name=name, n=n) for name, n in over[:3])
            more = t("step.more_nodes", n=len(over) - 3) if len(over) > 3 else ""
            limit = t("step.limit_once") if max_runs_per_node == 1 else \
                t("step.limit_times", n=max_runs_per_node)
            problems.append(t("step.runs_over", shown=shown, more=more, limit=limit))
    return problems


def check_step(fn, reference, make, *, exercise, compare=("grad", "value"), no_retain=True,
               max_runs_per_node=1, max_peak=None, nothing_held=True, create_graph=False,
               max_backwards=None, atol=1e-5):
    """Check a step the learner wrote, by behaviour.

    ``make()`` builds fresh inputs, a dict name -> model, tensor or optimizer (seeded, so two
    calls build the same); ``fn`` and ``reference`` are called with its values in order. The
    learner's step must leave every parameter and leaf (``compare``: their ``.grad`` and
    values) as the reference does, and, from the engine's event stream and the saved-bytes
    tracker: use no ``retain_graph=True`` except with ``create_graph=True`` (``no_retain``),
    run no graph node more than ``max_runs_per_node`` times (AccumulateGrad not counted),
    keep the peak of saved bytes at most ``max_peak``, hold no saved buffer once it returns
    (``nothing_held``), with ``create_graph``, record a graph of a gradient, and call
    ``backward`` at most ``max_backwards`` times (two forward passes each with its own
    backward are not "one backward").
    """
    from ..autograd.graph import observe
    from ..viz.timeline import track_saved_bytes
    from .audit import frozen_past
    exercise, hint = exercise_and_hint(exercise, "")
    if fn is ... or unwritten(fn):
        return not_done()
    if not callable(fn):
        return not_an_attempt(t("step.not_a_function", type=type(fn).__name__))
    with frozen_past(), warnings.catch_warnings(record=True) as caught:
        # a warning of the learner's code (a non-leaf's .grad read) is shown, never on
        # stderr, where nbgrader would take it for a failed test
        warnings.simplefilter("always")
        ref_inputs = make()
        reference(*ref_inputs.values())
        want = _state(ref_inputs, compare)
        del caught[:]  # the reference's own warnings are not the learner's
        inputs, events = make(), _Events()
        gc.collect()  # the reference's garbage must not be freed during the step (its peak)
        code = fn.__code__
        key = (code.co_code, repr(code.co_consts), code.co_names)
        on_torch = _uses_torch(inputs)
        if on_torch and max_peak is not None:
            return not_an_attempt(t("step.max_peak_on_torch"))
        if on_torch:
            events, error, held = _run_torch_step(fn, inputs)
            peak = None
        else:
            with track_saved_bytes() as mem, observe(events):
                try:
                    fn(*inputs.values())
                    error = None
                except Exception as exc:  # the learner's code: one line, not a traceback
                    error = exc
                gc.collect()  # a graph nobody refers to any more is not "held", even in a cycle
            peak, held = mem.peak - mem.start, mem.end - mem.start
    notes = sorted({t("step.warned", warning=f"{w.category.__name__}: {w.message}")
                    for w in caught})
    if error is not None:
        return give_verdict(exercise, hint, key, False, "",
                            t("step.raised", error=verdict(error)[2:]), after=notes)
    problems = _event_problems(events, no_retain, max_runs_per_node, create_graph,
                               max_backwards)
    if max_peak is not None and peak > max_peak:
        problems.append(t("step.peak_over", peak=f"{peak:,}", limit=f"{max_peak:,}"))
    if nothing_held and held > 0:
        problems.append(t("step.held", held=f"{held:,}"))
    if events.calls:
        problems += _differences(_state(inputs, compare), want, atol)
    if problems and problems == _event_problems(events, no_retain, None, False):
        hint = t("step.hint_retain")  # the retain was the only mistake: not the lesson's hint
    backwards = sum(accumulate for _, _, accumulate in events.calls)
    grads = len(events.calls) - backwards
    calls = (t("step.backward_calls", n=backwards, s="s" if backwards != 1 else "") +
             (t("step.grad_calls", n=grads, s="s" if grads != 1 else "") if grads else ""))
    what = t("step.and").join(t("step.what_" + c) for c in compare)
    right = (t("step.same", what=what, calls=calls) +
             (t("step.no_needless_retain") if no_retain else "") +
             (t("step.each_once") if max_runs_per_node == 1 else "") +
             (t("step.peak", peak=f"{peak:,}", limit=f"{max_peak:,}")
              if max_peak is not None else "") + ".")
    give_verdict(exercise, hint, key, not problems, right, "; ".join(problems) + ".",
                 after=notes)
