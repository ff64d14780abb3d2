"""``lesson.audit(step, *args, **kwargs)``: a retain_graph doctor for one training step.

It runs ``step`` under observation (either engine: the package's event stream, or torch's
engine entry and node hooks, swapped in only while the step runs, see :mod:`.observe`), then
twice more to see whether graphs pile up and whether a later call reaches into an earlier
call's graph, and returns an :class:`Audit` whose ``.findings`` have ``.kind``, ``.message``
(what happened, with the evidence: the backward's line in the step as ``file.py:12 `code```
(``cell line 12`` in Jupyter), node names, bytes), ``.fix`` (what to write instead, chosen from
the evidence, see :mod:`.analysis`) and, where a copy of the step could try it (torch,
:mod:`.verify`), ``.check`` / ``.verified``:

- ``unused-retain``: a ``retain_graph=True`` backward whose kept nodes no later backward ran,
  in this call of the step or the next ones (not judged when a backward raised: the calls after
  it never ran);
- ``double-traversal``: a node with saved tensors run by more than one backward of the step,
  counted per order: a backward through a gradient an earlier ``create_graph=True`` call made
  from that node runs it legitimately (a gradient penalty, a second derivative, MAML);
- ``graph-grows``: graphs the step built still alive after it, with more saved bytes or more
  nodes after every call (``total = total + loss``, a hidden state carried without detach);
- ``freed-reuse``: a backward failed because an earlier one freed what it needed;
- ``stale-saved``: a backward failed because a saved tensor was modified in place (the
  optimizer step or the in-place op that did it is named).

Findings of one kind on the same lines are one finding ("×8 calls, lines 20 and 21"); what was
not judged, and backwards inside ``torch.func`` wrappers, are ``.notes``. Only graphs made while
the audit runs are counted (older objects are frozen out of the collector's view meanwhile).
Bad input (not a function, a step that raises for another reason) gives a report whose text is
one line, ``.error``. The report keeps plain data only.
"""
import contextlib
import gc
import sys

from ...i18n import t
from ..attempts import nth_ko
from ...viz.ledger import bytes_text
from ...viz.record import first_sentence
from . import analysis, observe
from .report import Audit, Call, Finding

RUNS_FOR_GROWTH = 3
__all__ = ["audit", "Audit", "Call", "Finding", "frozen_past", "run_once"]


def _live_graphs():
    """(bytes of saved tensors, number of nodes) reachable from every live tensor with a
    grad_fn made since the audit began (older objects are frozen out of the collector's view):
    what graphs outlive the step."""
    from ...viz import take_snapshot
    gc.collect()
    kinds = _tensor_types()
    found, home = {kind: [] for kind in kinds}, {}
    for obj in gc.get_objects():
        kind = type(obj)  # type(), not isinstance(): some objects warn when __class__ is read
        if kind not in home:
            home[kind] = next((k for k in kinds if issubclass(kind, k)), None)
        if home[kind] is None:
            continue
        # A view counts through its base: reading the grad_fn of a view whose base changed in
        # place (a saved ``W.t()`` after ``optimizer.step()``) would make a node the step never built.
        root = obj if obj._base is None else obj._base
        if root.grad_fn is not None:
            found[home[kind]].append(root)
    total_bytes = total_nodes = 0
    for roots in found.values():
        if roots:
            snap = _readable_snapshot(take_snapshot, roots)
            total_bytes += snap.total_bytes
            total_nodes += len(snap.nodes)
    found.clear()
    return total_bytes, total_nodes


def _readable_snapshot(take_snapshot, roots):
    """One engine's live graphs; roots whose graph cannot be read (a broken unpack hook of
    some earlier code) are left out rather than failing the audit."""
    try:
        return take_snapshot(roots)
    except Exception:  # noqa: BLE001  (find the unreadable roots, keep the rest)
        readable = []
        for root in roots:
            try:
                take_snapshot([root])
            except Exception:  # noqa: BLE001
                continue
            readable.append(root)
        return take_snapshot(readable)


def _growth(sizes):
    """graph-grows, if the saved bytes or the nodes left after each call keep growing."""
    counts = [[s[i] - sizes[0][i] for s in sizes[1:]] for i in (0, 1)]
    grows = [all(a < b for a, b in zip(c, c[1:])) and c[0] > 0 for c in counts]
    if not any(grows):
        return []
    calls = ", ".join(str(i) for i in range(1, len(sizes)))
    calls_nth = ", ".join(nth_ko(i) for i in range(1, len(sizes)))
    return [Finding(
        "graph-grows",
        t("audit.grows", calls=calls, calls_nth=calls_nth,
          sizes=" → ".join(bytes_text(b) for b in counts[0]),
          nodes=" → ".join(str(n) for n in counts[1])),
        t("audit.fix_grows"))]


def audit(step, *args, **kwargs):
    """Run ``step(*args, **kwargs)`` under observation and return what it did wrong, if anything:
    ``print(lesson.audit(train_step, batch))``. Bad input gives a report whose text is one
    line saying what to do (``.error``), never a traceback."""
    label = getattr(step, "__name__", t("audit.the_step"))
    if not callable(step):
        return Audit("audit()", [], [], error=t("audit.not_a_function",
                                                type=type(step).__name__))
    with frozen_past():
        return _audit(step, label, args, kwargs)


@contextlib.contextmanager
def frozen_past():
    """Freeze what exists now out of the collector's view, so that inside the block
    ``gc.get_objects()`` lists only what is made there, a ``gc.collect()`` looks only at that
    (a full collection of a big process, a test run or a kernel with torch loaded, takes 0.05 to
    1 s), and no older garbage is freed halfway (which would lower a measured peak). Older
    garbage is frozen with the rest and freed after the block. If someone else froze objects
    already, the block collects first and freezes nothing more."""
    mine = gc.get_freeze_count() == 0
    if mine:
        gc.freeze()
    else:
        gc.collect()
    try:
        yield
    finally:
        if mine:
            gc.unfreeze()


def run_once(step, args):
    """Call ``step(*args)`` once, observed as the audit observes it: (its backward calls, as
    :class:`Call`, the error it raised or None, the bytes of saved tensors that the graphs it
    made still hold after it)."""
    with frozen_past():  # count only the graphs the step makes
        start = _live_graphs()[0]
        calls, _, _, error, _ = _run(step, list(args), {})
        end = _live_graphs()[0]
    return calls, error, end - start


def _tensor_types():
    from ... import Tensor
    torch = sys.modules.get("torch")  # never imported here: only if the step uses it
    return (Tensor, torch.Tensor) if torch is not None else (Tensor,)


def _run(step, args, kwargs, settle_all=False):
    """Run the step once under watch: (its calls, its optimizer steps, the node numbers it
    used per engine, the error it raised, weak references to the leaves its backwards
    reached)."""
    watch, error = observe.Watch(settle_all), None
    try:
        with observe.watching(watch):
            step(*args, **kwargs)
    except Exception as exc:  # the step's own error is a finding or one line
        error = exc.with_traceback(None)  # no frame (and no tensor in it) kept
        error.__context__ = error.__cause__ = None
    calls = []
    for i, c in enumerate(watch.calls, 1):
        if c["error"] is not None:
            c["error"] = c["error"].with_traceback(None)
        calls.append(Call(i, c["retain_graph"], c["create_graph"], c["nodes"], c["error"],
                          c["where"], c["accumulate"], c["ran"], frozenset(c["made"]),
                          frozenset(c["roots"]), c["inputs"], c["leaves"], c["shared_leaves"],
                          c["wrapped"], c["steps_before"], frozenset(c["cleared"]),
                          c.get("engine", "")))
    return calls, watch.steps, watch.span, error, watch.leaf_refs


def _audit(step, label, args, kwargs):
    baseline = _live_graphs()
    calls, steps, span, error, leaves = _run(step, args, kwargs)
    subject = (step, args, kwargs, leaves)  # what _report may try a fix on
    found = analysis.failures(calls, steps)
    if error is not None and not found:
        return Audit(label, calls, [], error=_one_line(error, label), notes=_wrapped(calls))
    if error is not None:
        found += analysis.judged(calls, steps, stopped=True)
        return _report(subject, label, calls, found, _stopped(calls))
    runs, sizes = [(calls, steps, span)], [baseline, _live_graphs()]
    kept = any(c.retain_graph for c in calls)  # a later call may run what this one kept
    for run in range(2, RUNS_FOR_GROWTH + 1):
        again_calls, again_steps, again_span, again, _ = _run(step, args, kwargs, kept)
        later = [c for c, _, _ in runs[1:]]
        if again is not None:
            failed = analysis.failures(again_calls, again_steps, runs)
            if not failed:
                return _report(subject, label, calls, analysis.judged(calls, steps, later),
                               error=_one_line(again, label, run))
            found = analysis.judged(calls, steps, later + [again_calls]) + failed
            return _report(subject, label, calls, found)
        runs.append((again_calls, again_steps, again_span))
        sizes.append(_live_graphs())
    found = analysis.judged(calls, steps, [c for c, _, _ in runs[1:]])
    return _report(subject, label, calls, found, extra=_growth(sizes))


def _report(subject, label, calls, occurrences, notes=(), extra=(), error=None):
    """Findings grouped by kind and lines; each group's fix tried on a copy of the step where
    an experiment can show it (torch; ``subject``: the step, its arguments, its leaves)."""
    from . import verify
    for o in occurrences if error is None else ():
        if o.probe is not None:  # would keeping the first graph only make it fail stale?
            write, failed = verify.find_write(*subject, ("retain", o.probe[0].index), calls)
            if failed and failed.startswith(analysis.STALE_START):
                analysis.fresh_forward(o, write)
        if o.unnamed_write:
            write, _ = verify.find_write(*subject, None, calls)
            if write:
                analysis.name_write(o, write)
    findings = []
    for kind, message, fix, first in analysis.grouped(occurrences):
        check, verified = "", None
        if first.plan is not None and error is None:
            verified, check = verify.try_fix(*subject, first.plan, calls)
        findings.append(Finding(kind, message, fix, check, verified))
    return Audit(label, calls, findings + list(extra), error=error,
                 notes=list(notes) + _wrapped(calls))


def _stopped(calls):
    """The note for a step cut short by a failing backward: what did not run is not judged."""
    failed = next(c for c in calls if c.error is not None)
    retained = [c for c in calls if c.index < failed.index and c.retain_graph
                and not c.create_graph]
    note = t("audit.stopped", label=analysis.label(failed))
    if retained:
        note += t("audit.not_judged", labels=analysis.labels(retained))
    return [note]


def _wrapped(calls):
    lines = {}
    for c in calls:
        if c.wrapped:
            lines.setdefault(c.where, []).append(c)
    return [t("audit.wrapped", label=analysis.labels(cs) if len(cs) == 1 else
              t("audit.calls_at", n=len(cs), where=where)) for where, cs in lines.items()]


def _one_line(error, label, run=1):
    if run > 1:
        return t("audit.raised_on_call", label=label, type=type(error).__name__, run=run,
                 run_nth=nth_ko(run), message=first_sentence(error))
    return t("audit.raised", label=label, type=type(error).__name__,
             message=first_sentence(error))
