"""Checking: the exercises' checkers (which buffers a call frees, whether it raises, which of
several calls raise, a value, and a verdict from a notebook's own checker).

Every checker first checks the answer's form and says in one line what form is wanted (never a
traceback), then gives the verdict, and only then what the engine did. Hints come from the
catalogue (keyed by exercise id) and show after a wrong answer; attempts are counted
(:mod:`.attempts`); under nbgrader a checker that is not satisfied raises ``AssertionError``
(:mod:`.grading`).
"""
import numbers

from . import attempts
from .catalogue import lookup
from .grading import fail_if_grading
from .showing import _as_call, _caller_namespace, _roots, verdict
from ..viz import record, take_snapshot

NOT_DONE = ("⏳ not done yet: replace the ... with your answer, run that cell, "
            "then run this cell again.")
FREED_FORM = ('✗ answer with a set of "Node.slot" names, such as {"MulBackward0.other"} '
              '(set() if nothing is freed).')
RAISES_FORM = "✗ answer True (it raises) or False (it runs), without quotes."


# -- the shared ending of every checker -------------------------------------------------------
def _exercise(exercise, hint):
    entry = lookup(exercise) if exercise else None
    return exercise or "unnamed", (entry.hint if entry else hint)


def _not_done(exercise):
    print(NOT_DONE)
    fail_if_grading(NOT_DONE)


def _malformed(message):
    """A wrong form is not an attempt: say what is wanted and stop."""
    print(message)
    fail_if_grading(message)


def _verdict(exercise, hint, answer_key, correct, right, wrong, after=()):
    """Print the verdict (with the attempt count), then ``after`` (what the engine did)."""
    rec = attempts.attempt(exercise, answer_key, correct)
    if correct:
        when = "" if rec.attempts == 1 else f", on your {attempts.ordinal(rec.attempts)} try"
        lines = [f"✓ correct{when}" + (f": {right}" if right else ".")]
    else:
        lines = [f"✗ not quite ({attempts.ordinal(rec.attempts)} try)" +
                 (f": {wrong}" if wrong else ".")]
        if hint:
            lines.append(f"hint: {hint}")
    lines += list(after)
    print("\n".join(lines))
    if not correct:
        fail_if_grading("\n".join(lines))


def not_done():
    """For a notebook's own checker: the answer is still the placeholder."""
    _not_done(None)


def report(exercise, correct, right="", wrong="", answer_key=None):
    """The verdict of a checker written in a notebook (a write-code exercise's own test)."""
    _, hint = _exercise(exercise, "")
    _verdict(exercise, hint, answer_key, correct, right, wrong)


# -- which buffers does a call free? -----------------------------------------------------------
def _normalise(key, keep_id=False):
    """'MulBackward0.other', 'MulBackward0._saved_other' and '#0 MulBackward0._saved_other'
    all name the same buffer; with ``keep_id`` the '#0 ' (node number in the ledger) stays,
    to tell apart two nodes of the same type."""
    key = key.strip()
    if key.startswith("#") and not keep_id:
        key = key.split(" ", 1)[1] if " " in key else key
    return key.replace("._saved_", ".")


def _freed_form(prediction):
    """The answer as a set of strings, or the one line that says what form is wanted."""
    if isinstance(prediction, str):
        return (f'✗ put the names in a set: {{"{prediction.strip()}"}}, not a bare string '
                f'(a string is read letter by letter).')
    if isinstance(prediction, dict) and not prediction:
        return "✗ {} is an empty dict: write set() for 'nothing is freed'."
    if not isinstance(prediction, (set, frozenset, list, tuple)):
        return FREED_FORM + f" You gave {type(prediction).__name__}."
    odd = [p for p in prediction if not isinstance(p, str)]
    if odd:
        return FREED_FORM + f" {odd[0]!r} is not a name in quotes."
    bad = [p for p in prediction if "." not in p.strip(". ")]
    if bad:
        return f'✗ "{bad[0]}" names no slot: write "NodeName.slot", such as "MulBackward0.other".'
    return None


def _unknown(guess, snapshot, keep_id):
    """One line naming the first guessed node or slot that is not in the graph, or None."""
    slots = {}
    for b in snapshot.buffers:
        node = _normalise(b.key, keep_id).rsplit(".", 1)[0]
        slots.setdefault(node, set()).add(b.slot.replace("_saved_", "", 1))
    nodes = {(f"#{n.id} {n.name}" if keep_id else n.name) for n in snapshot.nodes}
    for name in sorted(guess):
        node, slot = name.rsplit(".", 1)
        if node not in nodes:
            return f"✗ there is no node {node} in this graph (check the spelling in the ledger)."
        if slot not in slots.get(node, ()):
            saved = ", ".join(sorted(slots.get(node, ()))) or "no tensor"
            return f"✗ {node} has no saved slot '{slot}' (it saves {saved})."
    return None


def check_freed(prediction, code, hint="", exercise=None, **names):
    """Predict-then-check: which saved buffers will ``code`` free? ``prediction`` is a set of
    names like ``{"MulBackward0.other"}`` (empty set: nothing is freed), or, to tell apart
    nodes of one type, ledger names with their number: ``{"#3 AddmmBackward0.mat1"}``."""
    exercise, hint = _exercise(exercise, hint)
    if prediction is ...:
        return _not_done(exercise)
    problem = _freed_form(prediction)
    if problem:
        return _malformed(problem)
    call, label = _as_call(code, _caller_namespace())
    roots = _roots(names)
    before = take_snapshot(roots, names)
    keep_id = any(k.strip().startswith("#") for k in prediction)
    guess = {_normalise(k, keep_id) for k in prediction}
    problem = _unknown(guess, before, keep_id)
    if problem:
        return _malformed(problem)
    recording = record(call)
    after = take_snapshot(roots, names)
    old = {b.key: b.state for b in before.buffers}
    freed = {_normalise(b.key, keep_id) for b in after.buffers
             if b.state == "freed" and old.get(b.key) != "freed"}
    correct = guess == freed
    missing, extra = freed - guess, guess - freed
    wrong = []
    if extra:
        wrong.append(f"{_listing(extra)} {'is' if len(extra) == 1 else 'are'} not freed")
    if missing:
        wrong.append(f"{len(missing)} freed buffer{'s are' if len(missing) > 1 else ' is'} "
                     f"missing from your set")
    ran = f"{label}: {verdict(recording.error) if recording.error else 'ran'}"
    _verdict(exercise, hint, frozenset(guess), correct,
                    f"it freed {_listing(freed)}.", "; ".join(wrong) + ".",
                    after=[ran] if correct else [])


# -- will a call raise? ------------------------------------------------------------------------
def _outcome(code, namespace):
    call, label = _as_call(code, namespace)
    try:
        call()
        return label, None
    except Exception as exc:  # the outcome is shown as one line
        return label, exc


def check_raises(prediction, code, hint="", exercise=None):
    """Predict-then-check: will ``code`` raise? ``prediction`` is True or False."""
    exercise, hint = _exercise(exercise, hint)
    if prediction is ...:
        return _not_done(exercise)
    if not isinstance(prediction, bool):
        extra = " (the quotes make it a string)" if str(prediction) in ("True", "False") else ""
        return _malformed(RAISES_FORM + extra)
    label, error = _outcome(code, _caller_namespace())
    correct = prediction == (error is not None)
    said = "raises" if error is not None else "runs"
    _verdict(exercise, hint, prediction, correct, f"it {said}.",
                    f"you predicted it would {'raise' if prediction else 'run'}.",
                    after=[f"{label}: {verdict(error)}"] if correct else [])


def check_which_raise(prediction, calls, hint="", exercise=None):
    """Predict-then-check: which of ``calls`` (a dict name -> callable or code string) raise?
    ``prediction`` is the set of the names that raise (``set()``: none)."""
    exercise, hint = _exercise(exercise, hint)
    if prediction is ...:
        return _not_done(exercise)
    choices = ", ".join(f'"{n}"' for n in calls)
    form = f"✗ answer with the set of the names that raise, such as {{\"{next(iter(calls))}\"}} " \
           f"(set() if none does); the names are {choices}."
    if isinstance(prediction, str):
        return _malformed(f'✗ put the name in a set: {{"{prediction}"}}.' if prediction in calls
                          else form)
    if not isinstance(prediction, (set, frozenset, list, tuple)) or \
            not all(isinstance(p, str) for p in prediction):
        return _malformed(form)
    unknown = sorted(set(prediction) - set(calls))
    if unknown:
        return _malformed(f'✗ "{unknown[0]}" is not one of the names: {choices}.')
    namespace = _caller_namespace()
    outcomes = {name: _outcome(code, namespace)[1] for name, code in calls.items()}
    raised = {n for n, e in outcomes.items() if e is not None}
    correct = set(prediction) == raised
    after = [f"{n}: {verdict(e)}" for n, e in outcomes.items()] if correct else []
    right = (f"{_listing(raised)} raise{'s' if len(raised) == 1 else ''}."
             if raised else "none of them raises.")
    _verdict(exercise, hint, frozenset(prediction), correct, right,
                    "at least one of them is the other way round.", after=after)


# -- a value -----------------------------------------------------------------------------------
def _value_form(answer, want):
    """The answer as a float array, or the one line that says what form is wanted."""
    import numpy as np
    from .._tensor import Tensor
    if isinstance(answer, Tensor) or (isinstance(answer, np.ndarray) and
                                      np.shares_memory(answer, want)):
        return None, ("✗ write the numbers you predict, not the engine's own tensor: "
                      "a prediction is made before looking.")
    count = want.size
    wanted = (f"a number, such as {_number(want * 0 + 4)}" if want.ndim == 0 else
              f"a list of {count} numbers, such as {_number(np.arange(count).reshape(want.shape))}")
    flat = answer if isinstance(answer, (list, tuple)) else [answer]
    if any(isinstance(a, (bool, np.bool_)) for a in flat) or \
            not all(isinstance(a, (numbers.Number, list, tuple, np.ndarray)) for a in flat):
        return None, f"✗ answer {wanted}."
    try:
        got = np.asarray(answer, dtype=float)
    except (TypeError, ValueError):
        return None, f"✗ answer {wanted}."
    if got.shape != want.shape:
        have = "one number" if got.ndim == 0 else \
            f"a list of {got.size} number{'' if got.size == 1 else 's'}"
        return None, f"✗ answer {wanted}; you gave {have}."
    return got, None


def check_value(answer, expected, what, hint="", atol=1e-6, exercise=None):
    """Compare a learner's number or list with the engine's value and explain a mismatch."""
    import numpy as np
    exercise, hint = _exercise(exercise, hint)
    if answer is ...:
        return _not_done(exercise)
    if hasattr(expected, "detach"):  # a tensor from the engine
        expected = expected.detach().numpy()
    want = np.asarray(expected, dtype=float)
    got, problem = _value_form(answer, want)
    if problem:
        return _malformed(problem)
    correct = bool(np.allclose(got, want, atol=atol))
    _verdict(exercise, hint, tuple(np.ravel(got)), correct,
                    f"{what} is {_number(want)}.", f"{what} is not {_number(got)}.")


def _number(values):
    """Numbers as a learner writes them: 4 rather than 4.0, at most 6 decimals."""
    import numpy as np
    rounded = np.round(values, 6)
    if np.all(rounded == np.round(rounded)):
        rounded = rounded.astype(np.int64)
    return rounded.tolist()


def _listing(keys):
    return ", ".join(sorted(keys)) if keys else "nothing"
