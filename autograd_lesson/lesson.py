"""Small helpers the lesson notebooks call: show a graph, run a backward and show what it
changed, show an expected error as one stable line, step through a backward, check a
learner's prediction.

Every picture comes with printed text (ledger, diff, verdict) that nbval compares exactly.
"""
import sys

from .viz import _check, before_after_view, graph_view, record, take_snapshot
from .viz.ledger import ledger
from .viz.record import first_sentence, verdict  # noqa: F401  (lessons call lesson.verdict)
from .viz.steps import StepThrough


def _display(obj):
    try:
        from IPython.display import display
    except ImportError:  # plain Python: the text twin is all there is
        print(obj.text)
        return
    display(obj)


def _caller_namespace(depth=2):
    frame = sys._getframe(depth)
    return frame.f_globals, frame.f_locals


def _as_call(code, namespace):
    """A callable and a label for ``code``: a string runs in the notebook's namespace."""
    if callable(code):
        return code, getattr(code, "__name__", "call")
    return (lambda: exec(code, *namespace)), code


def _roots(names):
    """The graph to draw: every named non-leaf tensor (or the named leaves, if that is all)."""
    from ._tensor import Tensor
    tensors = [t for t in names.values() if isinstance(t, Tensor) and t.requires_grad]
    return [t for t in tensors if not t.is_leaf] or tensors


def show_graph(title="", **names):
    """Draw the graph behind the named tensors and print its buffer ledger."""
    _check.title(title, "show_graph")
    snap = take_snapshot(_roots(names), names, title=title)
    _display(graph_view(snap))
    print(ledger(snap))


def show_backward(code, **names):
    """Run ``code`` (e.g. ``"loss1.backward()"``, evaluated in the caller's namespace, or a
    callable), then show the graph before and after it and print what it changed.

    If the call raises, the 'after' panel marks the node where it failed and one line gives
    the exception instead of a traceback.
    """
    call, label = _as_call(code, _caller_namespace())
    roots = _roots(names)
    before = take_snapshot(roots, names, title=f"before {label}")
    recording = record(call)
    outcome = "raised" if recording.error else "ran"
    after = take_snapshot(roots, names, executed=recording.executed, failed=recording.failed,
                          title=f"after {label} ({outcome})")
    view = before_after_view(before, after)
    _display(view)
    print(verdict(recording.error) if recording.error else
          f"✓ {label} ran {recording.executed_count} nodes")
    print(view.text)


def expect_error(code):
    """Run ``code`` and print one verdict line instead of a traceback."""
    call, _ = _as_call(code, _caller_namespace())
    try:
        call()
    except Exception as error:
        print(verdict(error))
        return
    print(verdict(None))


def step_through(code, **names):
    """Record ``code``'s backward node by node and show it as a slider (and a strip)."""
    call, label = _as_call(code, _caller_namespace())
    roots = _roots(names)
    recording = record(call, roots=roots, names=names, frames=True)
    if not recording.frames:
        print(f"{label}: no backward ran, so there is nothing to step through; pass code that "
              f"calls .backward() or autograd.grad()")
    else:
        steps = StepThrough(recording.frames, title=f"{label}: {len(recording.frames)} steps")
        try:
            steps.display(key=label)
        except ImportError:  # plain Python: the text twin is all there is
            print(steps.text)
    if recording.error:
        print(verdict(recording.error))
    return None


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
