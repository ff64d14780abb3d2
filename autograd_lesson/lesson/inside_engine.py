"""Inside the engine (lesson 00b): the engine's own source, a backward run line by line, and the
learner's piece of the engine plugged in and held to the real one.

- :func:`show_code`: the source of an engine function (``inspect.getsource``, so always the code
  as it is), numbered from its ``def`` line, whole or a piece of it;
- :func:`step_through_engine`: one backward, one frame per node as ``step_through`` draws it,
  and beside each frame the lines of ``run_backward``'s loop that ran for that node: the pop
  from the ready queue, ``# 3.`` the node's formula, ``# 4.`` each gradient routed and each
  count that reached 0, ``# 5.`` the slots released. Read from the engine's event stream and
  from the objects its three pluggable steps return, never from its private state;
- :func:`plug`: ``with plug(count_dependencies=mine): ...`` runs the engine with the learner's
  function in place of one of its three steps, and always puts the real one back;
- :func:`check_engine`: the seven scenarios (:mod:`.scenarios`) with the learner's function
  plugged in and with the real engine; the order the nodes ran in, the slots freed after each,
  the errors and the ``.grad`` values must be the same, else one or two sentences name the
  first difference;
- :func:`check_order`: a predict exercise: the order in which a backward runs the nodes.
"""
import inspect

from .. import _engine, _random
from ..i18n import t
from ..viz.record import display_name, first_sentence, record, verdict
from ..viz.snapshot import node_ids
from ..viz.steps import StepThrough
from .checking import exercise_and_hint, give_verdict, not_an_attempt, not_done, unwritten
from .showing import as_call, bad_input, caller_namespace, graph_roots, show_steps

PIECES = ("count_dependencies", "ready_key", "release_saved")
_REAL = {name: getattr(_engine, name) for name in PIECES}  # the engine's own, as imported


# -- the source -------------------------------------------------------------------------------
def _source(obj):
    return inspect.getsource(obj).rstrip("\n").split("\n")


def _line_of(lines, text, start=0):
    """The index of the first line from ``start`` that contains ``text``."""
    return next(i for i in range(start, len(lines)) if text in lines[i])


def show_code(obj, start=None, stop=None):
    """Print ``obj``'s source with line numbers counted from its ``def`` (line 1): all of it,
    or from the first line containing ``start`` through the next one containing ``stop``."""
    lines = _source(obj)
    first = 0 if start is None else _line_of(lines, start)
    last = first if stop is None and start is not None else \
        len(lines) - 1 if stop is None else _line_of(lines, stop, first)
    indent = min(len(s) - len(s.lstrip()) for s in lines[first:last + 1] if s.strip())
    module = inspect.getmodule(obj).__name__.replace(".", "/") + ".py"
    print(f"{module}, {obj.__qualname__}, line{'s' if last > first else ''} "
          f"{first + 1}{f'–{last + 1}' if last > first else ''}:")
    for i in range(first, last + 1):
        print(f"{i + 1:3} │ {lines[i][indent:]}")


def _loop_lines():
    """The lines of run_backward each step of the loop marks: ``{"1.": n, ..., "pop": n}``."""
    lines = _source(_engine.run_backward)
    marks = {m: _line_of(lines, f"# {m}") + 1 for m in ("1.", "2.", "3.", "4.", "5.")}
    marks["pop"] = _line_of(lines, "heappop") + 1
    return marks


# -- one backward, line by line -------------------------------------------------------------------
class _Spy:
    """The engine's steps as they are now (the real ones, or what ``plug`` put in), remembering
    what they did."""

    def __init__(self, roots):
        self.roots, self.counts, self.ids, self.pushed = roots, None, {}, []
        self.now = {name: getattr(_engine, name) for name in PIECES}

    def count_dependencies(self, root):
        self.counts = self.now["count_dependencies"](root)  # the dict the engine counts down
        starts = [n for n, _ in root.next_functions] if root.name() == \
            "torch::autograd::GraphRoot" else [root]
        self.ids = node_ids(list(self.roots) + [n for n in starts if n is not None])
        self.initial = dict(self.counts)
        self.root = root
        return self.counts

    def ready_key(self, node):
        key = self.now["ready_key"](node)
        self.pushed.append((key, node))
        return key


class EngineSteps(StepThrough):
    """A step-through whose text (and, in the slider, a panel beside the picture) shows the
    lines of ``run_backward`` that ran for each node."""

    def __init__(self, frames, title, header, steps):
        super().__init__(frames, title=title)
        self.header, self.steps = header, steps  # steps: per frame, [(line, text), ...]

    @property
    def text(self):
        lines = [self.title] + [f"  line {n:2}  {text}" for n, text in self.header]
        for frame, step in zip(self.frames, self.steps):
            lines.append(frame.text)
            lines += [f"  line {n:2}  {text}" for n, text in step]
        return "\n".join(lines)

    def side_html(self, index):
        """The lines of run_backward that ran for frame ``index``, highlighted, with one line
        of context each (``lesson.show_code(run_backward)`` prints the whole loop)."""
        import html
        source = _source(_engine.run_backward)
        notes = {}
        for n, text in (self.header if index == 0 else []) + self.steps[index]:
            notes.setdefault(n, []).append(text)
        # Only the lines that ran, one line of context around each, the rest elided: the whole
        # loop above the picture pushed the running node a screen below the slider.
        shown = {j for n in notes for j in (n - 1, n, n + 1) if 1 <= j <= len(source)}
        rows = []
        for i, line in enumerate(source, 1):
            code = html.escape(line)
            if i in notes:
                note = html.escape("; ".join(notes[i]))
                rows.append(f'<span style="background:#f6e27a">{i:3} {code}</span>'
                            f'<span style="color:#8a3b00"> ◀ {note}</span>')
            elif i in shown:
                rows.append(f"{i:3} {code}")
            elif rows and rows[-1] != "    …":
                rows.append("    …")
        # (wrapped, and never wider than the output: a wide panel would push the picture out)
        return ('<div style="max-width:100%;overflow-x:auto"><pre style="font-size:12px;'
                'line-height:1.3;margin:0;white-space:pre-wrap">' + "\n".join(rows)
                + "</pre></div>")


def _ready_listing(queue, label):
    return ", ".join(label(node) for _, node in sorted(queue, key=lambda kn: kn[0]))


def step_through_engine(code, **names):
    """Run ``code`` (a backward) and show it one node per frame, each with the lines of
    ``run_backward`` that ran for it: a slider in JupyterLab, and the same as text."""
    problem = bad_input("step_through_engine", names, code)
    if problem:
        print(problem)
        return
    call, label = as_call(code, caller_namespace())
    engine, recording = engine_steps(call, label, names)
    show_steps(engine, label, recording.error)


def engine_steps(call, label, names):
    """(EngineSteps of the backward ``call()`` runs, or None if it ran none; its recording)."""
    roots = graph_roots(names)
    spy, lines, steps = _Spy(roots), _loop_lines(), []
    released = {}
    queue = []

    def node_label(node):
        return f"#{spy.ids.get(node, '?')} {display_name(node, names)}"

    def popped(node, queue):
        return f"pops {node_label(node)} from [{_ready_listing(queue, node_label)}]"

    from ..autograd.graph import observe
    order = []

    def watch(event):
        kind = type(event).__name__
        if kind == "NodeStarted":
            order.append([event.node, list(queue), {}])
            queue[:] = [(k, n) for k, n in queue if n is not event.node]
            order[-1][2] = {c: spy.counts.get(c) for c, _ in event.node.next_functions
                            if c is not None}
            spy.pushed.clear()
        elif kind == "BuffersReleased":
            released[event.node] = event.slots
        elif kind == "NodeFinished":
            step = order[-1]
            step.append({c: spy.counts.get(c) for c in step[2]})
            step.append([n for _, n in spy.pushed])
            queue.extend(spy.pushed)
            spy.pushed.clear()

    def start(event):
        if type(event).__name__ == "BackwardStarted":
            queue[:] = list(spy.pushed)  # the root, pushed before the loop
            spy.pushed.clear()

    with plug(count_dependencies=spy.count_dependencies, ready_key=spy.ready_key, _quiet=True):
        with observe(start), observe(watch):
            recording = record(call, roots=roots, names=names, frames=True)
    if not recording.frames or spy.counts is None:
        return None, recording
    counts = ", ".join(f"{node_label(n)} {c}" for n, c in
                       sorted(spy.initial.items(), key=lambda nc: spy.ids.get(nc[0], 1e9)))
    header = [(lines["1."], f"# 1. count_dependencies: {counts}"),
              (lines["2."], f"# 2. ready queue: [{node_label(spy.root)}]")]
    for node, before, children, *after in order:
        if not after:  # the node that raised
            steps.append([(lines["pop"], popped(node, before)),
                          (lines["3."], f"# 3. {node_label(node)} raised")])
            continue
        counts_after, ready = after
        routed = []
        for child, was in children.items():
            now = counts_after[child]
            routed.append(f"{node_label(child)} {was} → {now}" + (", ready" if child in ready
                                                                   else ""))
        slots, buffers = released.get(node, ()), node.saved_buffers()
        kept = [f"_saved_{b.slot}" for b in buffers if b.state == "retained"]
        freed = ", ".join(f"_saved_{s}" for s in slots) if slots else \
            f"kept {', '.join(kept)} (retain_graph=True)" if kept else \
            "nothing saved" if not buffers else "nothing"
        steps.append([(lines["pop"], popped(node, before)),
                      (lines["3."], f"# 3. runs {node_label(node)}"),
                      (lines["4."], "# 4. " + ("; ".join(routed) if routed else "no edges")),
                      (lines["5."], f"# 5. release_saved: {freed}")])
    steps = steps[:len(recording.frames)]
    return EngineSteps(recording.frames, t("engine.steps_title", label=label,
                                           n=len(recording.frames)), header, steps), recording


# -- the learner's piece, plugged in ---------------------------------------------------------------
class PieceError(Exception):
    """The learner's piece raised, or returned what the engine cannot use (the message says
    which, in one line)."""


class _Counts(dict):
    """The learner's counts: a node they left out is their error, not a bare KeyError."""

    def __missing__(self, node):
        raise PieceError(t("engine.no_count", node=display_name(node, None)))


def _guard(piece, fn):
    """``fn`` as the engine calls it: its exception or a result of the wrong kind becomes one
    PieceError line."""
    def call(*args):
        try:
            result = fn(*args)
        except PieceError:
            raise
        except Exception as error:  # the learner's code: one line, not a traceback
            raise PieceError(t("engine.raised", piece=piece, type=type(error).__name__,
                               message=first_sentence(error))) from None
        if piece == "count_dependencies":
            if not isinstance(result, dict):
                raise PieceError(t("engine.count_form", type=type(result).__name__))
            odd = next((v for v in result.values() if type(v) is not int), None)
            if odd is not None:
                raise PieceError(t("engine.count_value", value=repr(odd)[:40]))
            return _Counts(result)
        if piece == "ready_key":
            if isinstance(result, bool) or not isinstance(result, (int, float)):
                raise PieceError(t("engine.key_form", type=type(result).__name__))
            return result
        if not isinstance(result, (list, tuple, set, frozenset)) or \
                not all(isinstance(s, str) for s in result):
            raise PieceError(t("engine.release_form", type=type(result).__name__))
        return result
    call.__name__ = piece
    return call


class plug:
    """``with lesson.plug(count_dependencies=mine): loss.backward()`` runs the engine with
    ``mine`` as its step 1 (likewise ``ready_key``, ``release_saved``). The real functions are
    always put back; an exception in the block is printed as one line, not raised."""

    def __init__(self, _quiet=False, **pieces):
        unknown = sorted(set(pieces) - set(PIECES))
        if unknown or not pieces:
            raise TypeError(t("engine.plug_names", name=unknown[0] if unknown else "nothing",
                              names=", ".join(PIECES)))
        for name, fn in pieces.items():
            if not callable(fn):
                raise TypeError(t("engine.not_a_function", piece=name, type=type(fn).__name__))
        self.pieces, self.quiet = pieces, _quiet

    def __enter__(self):
        self.saved = {name: getattr(_engine, name) for name in self.pieces}
        for name, fn in self.pieces.items():
            setattr(_engine, name, fn if self.quiet else _guard(name, fn))
        return self

    def __exit__(self, kind, error, traceback):
        for name, fn in self.saved.items():
            setattr(_engine, name, fn)
        if self.quiet or error is None or not isinstance(error, Exception):
            return False
        error.__traceback__ = None  # its frames would hold the graph
        print(f"✗ {error}" if isinstance(error, PieceError) else verdict(error))
        return True


# -- the checker: the seven scenarios, theirs against the real engine -----------------------------
_reference = []  # the real engine's records, made once per process (they never change)


def _run_all(pieces=None):
    import importlib
    from . import scenarios
    lib = importlib.import_module("autograd_lesson")
    state = _random.generator().bit_generator.state  # the learner's random numbers go on as before
    records = []
    try:
        for scenario in scenarios.SEVEN:
            rec = scenarios.Recorder(lib, trace=True)
            try:
                if pieces:
                    with plug(_quiet=True, **{n: _guard(n, f) for n, f in pieces.items()}):
                        scenario(lib, rec)
                else:
                    scenario(lib, rec)
            except Exception as error:  # the scenario's own code tripped over a wrong result
                rec.entries.append({"label": "", "outcome": [type(error).__name__, str(error)]})
            records.append((scenario, rec))
    finally:
        _random.generator().bit_generator.state = state
    return records


SCENARIO_KEYS = {"s000_ex1_multi_loss": "scenario.multi_loss", "s000_ex2_gan": "scenario.gan",
                 "s000_ex3_shared_backbone": "scenario.shared_backbone",
                 "s000_ex4_rnn_per_step": "scenario.rnn", "s000_ex5_wgan_gp": "scenario.wgan_gp",
                 "s000_ex6_sequential_opt": "scenario.sequential",
                 "s000_ex7_conditional": "scenario.conditional"}


def _freed(states):
    return ", ".join(f"_saved_{s}" for s, st in states if st == "freed") or t("listing.nothing")


def _same(a, b):
    import numpy as np
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape \
            and bool(np.allclose(a, b, atol=1e-6, rtol=0))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def _outcome(outcome):
    return t("engine.ran") if outcome == ["ok"] else \
        t("engine.raised_error", type=outcome[0], message=first_sentence(outcome[1]))


def _short(name):
    return name.replace("torch::autograd::", "")


def _trace_difference(real, theirs):
    """The first step where two traces differ in the node run or the slots freed after it, as
    one sentence, or None."""
    for k, (r, o) in enumerate(zip(real, theirs), 1):
        if r[:2] != o[:2]:
            later = [j for j, x in enumerate(real, 1) if x[:2] == o[:2]]
            why = (t("engine.early", step=later[0]) if later and later[0] > k else
                   t("engine.again") if later else t("engine.never"))
            return t("engine.order", step=k, real=_short(r[1]), theirs=_short(o[1]), why=why)
        if r[2] != o[2]:
            return t("engine.freed", step=k, node=_short(r[1]), real=_freed(r[2]),
                     theirs=_freed(o[2]))
    return None


def _length_difference(real, theirs):
    if len(theirs) < len(real):
        return t("engine.stopped", n=len(theirs), node=_short(real[len(theirs)][1]))
    if len(theirs) > len(real):
        return t("engine.extra", n=len(real), node=_short(theirs[len(real)][1]))
    return None


def first_difference(reference, theirs):
    """One or two sentences on the first difference between two runs of the seven scenarios
    (lists of (scenario, Recorder)), or None when they agree."""
    for (scenario, real), (_, mine) in zip(reference, theirs):
        where = t(SCENARIO_KEYS[scenario.__name__])
        for r, o in zip(real.entries, mine.entries):
            call = r.get("label", "")
            if o.get("label") == "" and "trace" not in o:  # the scenario's code itself raised
                return t("engine.crashed", where=where,
                         error=_outcome(o["outcome"]))
            if "outcome" not in r or "outcome" not in o:
                if not _same(r.get("value"), o.get("value")):
                    return t("engine.note", where=where, note=call)
                continue
            if o["outcome"][0] == "PieceError":
                return t("engine.in_call", where=where, call=call,
                         text=o["outcome"][1].rstrip("."))
            text = _trace_difference(r.get("trace", []), o.get("trace", []))
            if text is None and r["outcome"] != o["outcome"]:
                text = t("engine.outcome", real=_outcome(r["outcome"]),
                         theirs=_outcome(o["outcome"]))
            if text is None:
                text = _length_difference(r.get("trace", []), o.get("trace", []))
            if text is None:
                grads = r.get("grads", {})
                wrong = next((n for n in grads if not _same(grads[n], o["grads"].get(n))), None)
                if wrong is not None:
                    text = t("engine.grad", name=wrong)
            if text is None and not _same(r.get("graph"), o.get("graph")):
                text = t("engine.graph")
            if text is not None:
                return t("engine.in_call", where=where, call=call, text=text)
        if len(mine.entries) != len(real.entries):
            return t("engine.calls", where=where, real=len(real.entries), theirs=len(mine.entries))
    return None


def check_engine(exercise=None, hint="", **pieces):
    """Check the learner's piece(s) of the engine, e.g. ``check_engine(count_dependencies=mine,
    exercise="00b-count")``: the seven scenarios run with it plugged in and with the real
    engine must run the same nodes in the same order, free the same slots after each, raise the
    same errors and leave the same ``.grad`` values."""
    exercise, hint = exercise_and_hint(exercise, hint)
    unknown = sorted(set(pieces) - set(PIECES))
    if unknown or not pieces:
        return not_an_attempt(t("engine.plug_names", name=unknown[0] if unknown else "nothing",
                            names=", ".join(PIECES)))
    for name, fn in pieces.items():
        if fn is ... or (callable(fn) and unwritten(fn)):
            return not_done()
        if not callable(fn):
            return not_an_attempt(t("engine.not_a_function", piece=name, type=type(fn).__name__))
    if not _reference:
        _reference.append(_run_all())
    reference, theirs = _reference[0], _run_all(pieces)
    difference = first_difference(reference, theirs)
    steps = sum(len(e.get("trace", ())) for _, rec in reference for e in rec.entries)
    calls = sum("trace" in e for _, rec in reference for e in rec.entries)
    key = tuple((n, f.__code__.co_code, repr(f.__code__.co_consts)) for n, f in
                sorted(pieces.items()) if hasattr(f, "__code__"))
    give_verdict(exercise, hint, key, difference is None,
             t("engine.same", pieces=", ".join(pieces), calls=calls, steps=steps), difference)


# -- predict: the order the nodes run in ---------------------------------------------------------
def check_order(prediction, code, exercise=None, hint="", **names):
    """Predict-then-check: the order in which ``code``'s backward runs the nodes, as a list of
    the names given here (a tensor's name stands for its ``grad_fn``; a leaf's for its
    AccumulateGrad, which writes its ``.grad``)."""
    exercise, hint = exercise_and_hint(exercise, hint)
    if prediction is ...:
        return not_done()
    choices = ", ".join(f'"{n}"' for n in names)
    if not isinstance(prediction, (list, tuple)) or not all(isinstance(p, str) for p in prediction):
        return not_an_attempt(t("order.form", choices=choices))
    unknown = [p for p in prediction if p not in names]
    if unknown:
        return not_an_attempt(t("order.unknown", name=unknown[0], choices=choices))
    if isinstance(code, str):  # the names given here first: the graph to check is theirs
        namespace = caller_namespace()
        call, label = (lambda: exec(code, {**namespace()[0], **namespace()[1], **names})), code
    else:
        call, label = as_call(code, None)
    from ..autograd.graph import get_gradient_edge, observe
    by_node = {get_gradient_edge(tensor).node: name for name, tensor in names.items()
               if tensor.requires_grad}  # a leaf's edge is its AccumulateGrad
    order = []

    def watch(event):
        if type(event).__name__ == "NodeStarted" and event.node in by_node:
            order.append(by_node[event.node])
    with observe(watch):
        recording = record(call, roots=graph_roots(names), names=names)
    correct = list(prediction) == order
    wrong = next((i for i, (p, o) in enumerate(zip(prediction, order)) if p != o), None)
    ran = f"{label}: {verdict(recording.error) if recording.error else t('freed.ran')}"
    give_verdict(exercise, hint, tuple(prediction), correct,
             t("order.right", order=", ".join(order)),
             t("order.wrong", n=wrong + 1, total=len(order)) if wrong is not None else
             t("order.count", n=len(order), given=len(prediction)),
             after=[ran] if correct else [])
