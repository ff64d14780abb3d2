"""Showing: draw a graph, run a backward and show what it changed, show an expected error as
one stable line, step through a backward.

Every picture comes with printed text (ledger, diff, verdict) that nbval compares exactly.
"""
import sys

from ..i18n import korean, t
from ..viz import before_after_view, checks, graph_view, record, take_snapshot
from ..viz.ledger import ledger
from ..viz.snapshot import is_tensor
from ..viz.record import first_sentence, verdict  # noqa: F401  (lesson.verdict is public)
from ..viz.steps import StepThrough


def display(view):
    """Show ``view`` in the notebook (picture and text twin); in plain Python print its text."""
    try:
        from IPython.display import display as show
    except ImportError:  # plain Python: the text twin is all there is
        print(view.text)
        return
    show(view)


def caller_namespace(depth=2):
    """The caller's (globals, locals), read only if code given as a string needs them: reading
    a function frame's ``f_locals`` makes a dict that keeps its tensors (and their graphs)
    alive as long as the frame, even after ``del``."""
    frame = sys._getframe(depth)
    return lambda: (frame.f_globals, frame.f_locals)


def as_call(code, namespace):
    """A callable and a label for ``code``: a string runs in the notebook's namespace."""
    if callable(code):
        return code, getattr(code, "__name__", "call")
    return (lambda: exec(code, *namespace())), code


_NO_CODE = object()


def bad_input(where, names, code=_NO_CODE):
    """The one line that says what to pass instead, or None when the input can be drawn."""
    if code is not _NO_CODE and not (callable(code) or isinstance(code, str)):
        return t("show.not_code", where=where, type=type(code).__name__)
    for label, value in names.items():
        if not is_tensor(value):
            kind = type(value).__name__
            return t("show.not_a_tensor", where=where, label=label, article=checks.article(kind),
                     kind=kind)
    if names and not any(tensor.requires_grad for tensor in names.values()):
        return t("show.no_graph", where=where, names=", ".join(names),
                 does="does" if len(names) == 1 else "do")
    return None


def graph_roots(names):
    """The graph to draw: every named non-leaf tensor (or the named leaves, if that is all)."""
    tensors = [t for t in names.values() if is_tensor(t) and t.requires_grad]
    return [t for t in tensors if not t.is_leaf] or tensors


def show_graph(title="", **names):
    """Draw the graph behind the named tensors and print its buffer ledger."""
    checks.title(title, "show_graph")
    problem = bad_input("show_graph", names)
    if problem:
        print(problem)
        return
    snap = take_snapshot(graph_roots(names), names, title=title)
    display(graph_view(snap))
    print(ledger(snap))


def show_backward(code, **names):
    """Run ``code`` (e.g. ``"loss1.backward()"``, evaluated in the caller's namespace, or a
    callable), then show the graph before and after it and print what it changed.

    If the call raises, the 'after' panel marks the node where it failed and one line gives
    the exception instead of a traceback.
    """
    problem = bad_input("show_backward", names, code)
    if problem:
        print(problem)
        return
    call, label = as_call(code, caller_namespace())
    _, recording, view = before_and_after(call, label, names)
    display(view)
    print(outcome_line(recording, label))
    print(view.text)


def before_and_after(call, label, names):
    """Run ``call`` (labelled ``label``) between two snapshots of the graph of ``names``:
    (the snapshot before, the recording, the before/after view)."""
    roots = graph_roots(names)
    before = take_snapshot(roots, names, title=f"before {label}")
    recording = record(call, roots=roots, names=names)
    outcome = "raised" if recording.error else "ran"
    after = take_snapshot(roots, names, executed=recording.executed, failed=recording.failed,
                          title=f"after {label} ({outcome})")
    picture_title = t("title.before_after", label=label,
                      outcome=t("title.raised" if recording.error else "title.ran")) \
        if korean() else None  # the ledger diff (the text twin) keeps its English title
    return before, recording, before_after_view(before, after, picture_title=picture_title)


def outcome_line(recording, label):
    """'✓ loss.backward() ran 3 nodes', or the error's one-line verdict."""
    return verdict(recording.error) if recording.error else \
        t("show.ran_nodes", label=label, n=recording.executed_count)


def expect_error(code):
    """Run ``code`` and print one verdict line instead of a traceback."""
    call, _ = as_call(code, caller_namespace())
    try:
        call()
    except Exception as error:
        print(verdict(error))
        return
    print(verdict(None))


def steps_title(recording, label):
    """'loss.backward(): 12 steps', or '… 200 of 1,510 steps (frames stop at 200)' when the
    recording stopped keeping frames before the backward stopped running nodes."""
    shown, ran = len(recording.frames), recording.executed_count
    if ran > shown:
        return t("steps.title_capped", label=label, shown=f"{shown:,}", n=f"{ran:,}")
    return t("steps.title", label=label, n=shown)


def step_through(code, **names):
    """Record ``code``'s backward node by node and show it as a slider (and a strip)."""
    problem = bad_input("step_through", names, code)
    if problem:
        print(problem)
        return None
    call, label = as_call(code, caller_namespace())
    roots = graph_roots(names)
    recording = record(call, roots=roots, names=names, frames=True)
    if not recording.frames:
        print(t("steps.nothing", label=label))
    else:
        steps = StepThrough(recording.frames, title=steps_title(recording, label))
        try:
            steps.display(key=label)
        except ImportError:  # plain Python: the text twin is all there is
            print(steps.text)
    if recording.error:
        print(verdict(recording.error))
    return None
