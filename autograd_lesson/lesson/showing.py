"""Showing: draw a graph, run a backward and show what it changed, show an expected error as
one stable line, step through a backward.

Every picture comes with printed text (ledger, diff, verdict) that nbval compares exactly.
"""
import sys

from ..i18n import korean, t
from ..viz import before_after_view, checks, graph_view, live, record, take_snapshot
from ..viz.glance import cell_key, legend_here
from ..viz.ledger import ledger
from ..viz.modules import module_table, watch  # noqa: F401  (lesson.watch is public)
from ..viz.snapshot import is_tensor
from ..viz.record import first_sentence, verdict  # noqa: F401  (lesson.verdict is public)
from ..viz.record import collected_after
from ..viz.steps import StepThrough


def display(view):
    """Show ``view`` in the notebook (picture and text twin); in plain Python print its text."""
    try:
        from IPython.display import display as show
    except ImportError:  # plain Python: the text twin is all there is
        print(view.text)
        return
    show(view)


def display_boxes(view, before, after, draw, key):
    """``display(view)`` of a module-box picture; where widgets run, with buttons that redraw
    it at another depth (``draw(before, after)`` at that depth: live.Depths)."""
    try:
        import IPython.display  # noqa: F401
    except ImportError:  # plain Python: the text twin is all there is
        print(view.text)
        return
    depths = live.Depths(before, after, draw, view)
    bundle = view._repr_mimebundle_()
    if "image/svg+xml" not in bundle or len(depths.depths()) < 2:  # (no Graphviz, or no
        display(view)                                              # deeper module to show)
        return
    live.show(bundle, depths.widget, cell_key(key))


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


def _model_problem(where, model, depth):
    """The one line for a bad ``model=`` or ``depth=``, or None."""
    if model is None:
        return None if depth is None else f"{where}: depth= needs model= (the module to box)"
    from ..viz import modules
    try:
        modules.roots_of(model, where)
        modules.check_depth(depth, where)
    except (TypeError, ValueError) as error:
        return str(error)
    return None


def _snapshot(roots, names, model, depth, where, **kwargs):
    """take_snapshot, with module boxes when ``model`` is given; (snapshot, None) or
    (None, the one line saying why the model cannot box this graph)."""
    try:
        return take_snapshot(roots, names, model=model, depth=depth, **kwargs), None
    except ValueError as error:
        if model is None:
            raise
        return None, str(error).replace("take_snapshot()", where, 1)


def show_graph(title="", model=None, depth=None, **names):
    """Draw the graph behind the named tensors and print its buffer ledger; ``model=`` (its
    forward run under ``lesson.watch(model)``) draws each module as a box, ``depth`` levels
    below the model (1: its children)."""
    checks.title(title, "show_graph")
    problem = bad_input("show_graph", names) or _model_problem("show_graph", model, depth)
    if problem:
        print(problem)
        return
    snap, problem = _snapshot(graph_roots(names), names, model, depth, "show_graph",
                              title=title)
    if problem:
        print(problem)
        return
    if snap.modules is None:
        display(graph_view(snap))
    else:
        legend = legend_here()
        display_boxes(graph_view(snap, legend=legend), snap, snap,
                      lambda before, after: graph_view(after, legend=legend), title)
    print(ledger(snap))
    if snap.modules is not None:
        print(module_table(snap))


def show_backward(code, model=None, depth=None, **names):
    """Run ``code`` (e.g. ``"loss1.backward()"``, evaluated in the caller's namespace, or a
    callable), then show the graph before and after it and print what it changed; ``model=``
    and ``depth=`` box the modules as in :func:`show_graph`.

    If the call raises, the 'after' panel marks the node where it failed and one line gives
    the exception instead of a traceback.
    """
    problem = bad_input("show_backward", names, code) or \
        _model_problem("show_backward", model, depth)
    if problem:
        print(problem)
        return
    call, label = as_call(code, caller_namespace())
    before, problem = _snapshot(graph_roots(names), names, model, depth, "show_backward",
                                title=f"before {label}")
    if problem:
        print(problem)
        return
    legend = legend_here()
    _, recording, view = before_and_after(call, label, names, model, depth, before, legend)
    if before.modules is None:
        display(view)
    else:
        title = picture_title(recording, label)
        display_boxes(view, before, view.after, lambda before, after: before_after_view(
            before, after, picture_title=title, legend=legend), label)
    print(outcome_line(recording, label))
    print(view.text)
    if before.modules is not None:
        print(module_table(view.after))


def before_and_after(call, label, names, model=None, depth=None, before=None, legend=None):
    """Run ``call`` (labelled ``label``) between two snapshots of the graph of ``names``:
    (the snapshot before, the recording, the before/after view)."""
    roots = graph_roots(names)
    if before is None:
        before = take_snapshot(roots, names, title=f"before {label}", model=model, depth=depth)
    recording = record(call, roots=roots, names=names, model=model, depth=depth)
    outcome = "raised" if recording.error else "ran"
    after = take_snapshot(roots, names, executed=recording.executed, failed=recording.failed,
                          title=f"after {label} ({outcome})", model=model, depth=depth)
    view = before_after_view(before, after, picture_title=picture_title(recording, label),
                             legend=legend)
    view.after = after
    return before, recording, view


def picture_title(recording, label):
    """The before/after picture's title in Korean (None: the snapshots' English titles; the
    ledger diff, the text twin, keeps them in either language)."""
    return t("title.before_after", label=label,
             outcome=t("title.raised" if recording.error else "title.ran")) \
        if korean() else None


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


def step_through(code, model=None, depth=None, **names):
    """Record ``code``'s backward node by node and show it as a slider (and a strip);
    ``model=`` and ``depth=`` box the modules as in :func:`show_graph`."""
    problem = bad_input("step_through", names, code) or \
        _model_problem("step_through", model, depth)
    if problem:
        print(problem)
        return None
    call, label = as_call(code, caller_namespace())
    roots = graph_roots(names)
    if model is not None:
        _, problem = _snapshot(roots, names, model, depth, "step_through")
        if problem:
            print(problem)
            return None
    with collected_after():
        recording = record(call, roots=roots, names=names, frames=True, model=model,
                           depth=depth)
        steps = StepThrough(recording.frames, title=steps_title(recording, label)) \
            if recording.frames else None
        show_steps(steps, label, recording.error)
    return None


def show_steps(steps, label, error=None):
    """A step-through as the slider (its text twin in plain Python), or one line when the call
    ran no node; then the verdict of the error it raised, if any."""
    if steps is None:
        print(t("steps.nothing", label=label))
    else:
        try:
            steps.display(key=label)
        except ImportError:  # plain Python: the text twin is all there is
            print(steps.text)
    if error:
        print(verdict(error))
