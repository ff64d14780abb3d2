"""Checking: the predict-then-check exercises (which buffers a call frees, whether it raises,
a value)."""
from .showing import _as_call, _caller_namespace, _roots, verdict
from ..viz import record, take_snapshot


# -- exercises ---------------------------------------------------------------------------------
NOT_DONE = "⏳ not done yet: replace the ... with your answer, then run this cell again."


def _normalise(key, keep_id=False):
    """'MulBackward0.other', 'MulBackward0._saved_other' and '#0 MulBackward0._saved_other'
    all name the same buffer; with ``keep_id`` the '#0 ' (node number in the ledger) stays,
    to tell apart two nodes of the same type."""
    key = key.strip()
    if key.startswith("#") and not keep_id:
        key = key.split(" ", 1)[1] if " " in key else key
    return key.replace("._saved_", ".")


def check_freed(prediction, code, hint="", **names):
    """Predict-then-check: which saved buffers will ``code`` free? ``prediction`` is a set of
    names like ``{"MulBackward0.other"}`` (empty set: nothing is freed), or, to tell apart
    nodes of one type, ledger names with their number: ``{"#3 AddmmBackward0.mat1"}``."""
    if prediction is ... or prediction is None:
        print(NOT_DONE)
        return
    call, label = _as_call(code, _caller_namespace())
    roots = _roots(names)
    before = take_snapshot(roots, names)
    recording = record(call)
    after = take_snapshot(roots, names)
    old = {b.key: b.state for b in before.buffers}
    keep_id = any(k.strip().startswith("#") for k in prediction)
    freed = {_normalise(b.key, keep_id) for b in after.buffers
             if b.state == "freed" and old.get(b.key) != "freed"}
    guess = {_normalise(k, keep_id) for k in prediction}
    print(f"{label}: {verdict(recording.error) if recording.error else 'ran'}")
    if guess == freed:
        print(f"✓ correct: it freed {_listing(freed)}.")
        return
    missing, extra = freed - guess, guess - freed
    if missing:
        print(f"✗ not quite: it also freed {_listing(missing)}.")
    if extra:
        print(f"✗ not quite: {_listing(extra)} {'was' if len(extra) == 1 else 'were'} not freed.")
    print("hint: a backward frees the saved tensors of exactly the nodes it runs, right after "
          "running each one" + (f"; {hint}" if hint else "."))


def check_raises(prediction, code, hint=""):
    """Predict-then-check: will ``code`` raise? ``prediction`` is True or False."""
    if prediction is ... or prediction is None:
        print(NOT_DONE)
        return
    if not isinstance(prediction, bool):
        print("✗ answer True (it raises) or False (it runs).")
        return
    call, label = _as_call(code, _caller_namespace())
    try:
        call()
        error = None
    except Exception as exc:
        error = exc
    print(f"{label}: {verdict(error)}")
    if prediction == (error is not None):
        print("✓ correct.")
        return
    print(f"✗ you predicted it would {'raise' if prediction else 'run'}." +
          (f" hint: {hint}" if hint else ""))


def check_value(answer, expected, what, hint="", atol=1e-6):
    """Compare a learner's number or list with the engine's value and explain a mismatch."""
    import numpy as np
    if answer is ... or answer is None:
        print(NOT_DONE)
        return
    if hasattr(expected, "detach"):  # a tensor from the engine
        expected = expected.detach().numpy()
    got, want = np.asarray(answer, dtype=float), np.asarray(expected, dtype=float)
    if got.shape == want.shape and np.allclose(got, want, atol=atol):
        print(f"✓ correct: {what} is {_number(want)}.")
        return
    print(f"✗ not quite: {what} is not {_number(got)}." +
          (f" hint: {hint}" if hint else ""))


def _number(values):
    """Numbers as a learner writes them: 4 rather than 4.0, at most 6 decimals."""
    import numpy as np
    rounded = np.round(values, 6)
    if np.all(rounded == np.round(rounded)):
        rounded = rounded.astype(np.int64)
    return rounded.tolist()


def _listing(keys):
    return ", ".join(sorted(keys)) if keys else "nothing"
