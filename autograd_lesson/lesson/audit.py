"""``lesson.audit(step, *args, **kwargs)``: a retain_graph doctor for one training step.

It runs ``step`` under observation (either engine: the package's event stream, or torch node
hooks registered only while the step runs), then twice more to see whether graphs pile up and
whether a later call reaches into an earlier call's graph, and returns an :class:`Audit`
whose ``.findings`` have ``.kind``, ``.message`` (what happened, with the evidence: the
backward's line in the step as ``file.py:12 `code``` (``cell line 12`` in Jupyter), node names,
bytes) and ``.fix`` (what to write instead):

- ``unused-retain``: a ``retain_graph=True`` backward whose kept nodes no later backward ran,
  in this call of the step or the next ones;
- ``double-traversal``: a node with saved tensors run by more than one backward of the step
  (the backward through a gradient made with ``create_graph=True`` may run it once more: a
  gradient penalty's double backward is not a finding);
- ``graph-grows``: graphs the step built still alive after it, with more saved bytes or more
  nodes after every call (``total = total + loss``, a hidden state carried without detach);
- ``freed-reuse``: a backward failed because an earlier one freed what it needed;
- ``stale-saved``: a backward failed because a saved tensor was modified in place.

Only graphs made while the audit runs are counted (older objects are frozen out of the
collector's view meanwhile). Bad input (not a function, a step that raises for another reason)
gives a report whose text is one line, ``.error``. The report keeps plain data only.
"""
import contextlib
import gc
import linecache
import os
import sys
from dataclasses import dataclass

from ..i18n import t
from .attempts import nth_ko
from ..viz.ledger import bytes_text
from ..viz.record import first_sentence

FREED_START = "Trying to backward through the graph a second time"
STALE_START = "one of the variables needed for gradient computation has been modified by an inplace"
RUNS_FOR_GROWTH = 3
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


@dataclass(frozen=True)
class Finding:
    kind: str
    message: str
    fix: str

    def __str__(self):
        return t("audit.finding", kind=self.kind, message=self.message, fix=self.fix)


@dataclass(frozen=True)
class Call:
    """One backward inside the step: its options, the saved-tensor nodes it ran, its error."""
    index: int
    retain_graph: bool
    create_graph: bool
    nodes: dict          # node key -> (node name, bytes of its saved tensors)
    error: object = None
    where: str = ""      # file:line `code` of the call in the learner's step, if found
    accumulate: bool = True  # backward(), not autograd.grad()
    ran: dict = None     # node key -> name of every node that ran but AccumulateGrad


class Audit:
    """What ``audit`` saw: ``.calls`` (one :class:`Call` per backward of the step's first call),
    ``.findings``, ``.error`` (the one line for bad input, else None); displays as ``.text``."""

    def __init__(self, label, calls, findings, error=None):
        self.label, self.calls, self.findings, self.error = label, calls, findings, error

    @property
    def text(self):
        if self.error is not None:
            return self.error
        head = t("audit.head", label=self.label, n=len(self.calls),
                 s="" if len(self.calls) == 1 else "s")
        if not self.findings:
            return head + t("audit.no_findings")
        return "\n".join([head + t("audit.findings", n=len(self.findings),
                                    s="" if len(self.findings) == 1 else "s")]
                         + [str(f) for f in self.findings])

    def __str__(self):
        return self.text

    __repr__ = __str__

    def _repr_pretty_(self, printer, cycle):
        printer.text(self.text)


def _names(nodes):
    counts = {}
    for name, _ in nodes.values():
        counts[name] = counts.get(name, 0) + 1
    return ", ".join(n if c == 1 else f"{n} ×{c}" for n, c in sorted(counts.items()))


def _sentence(error):
    return first_sentence(error).rstrip(".")


def _label(call):
    """``backward #2 (train.py:14 `loss2.backward()`)``: the call and, if found, its line."""
    return f"backward #{call.index}" + (f" ({call.where})" if call.where else "")


def _labels(calls):
    if len(calls) == 1:
        return _label(calls[0])
    return t("audit.and", rest=", ".join(_label(c) for c in calls[:-1]), last=_label(calls[-1]))


def _failures(calls, earlier_runs=()):
    """freed-reuse and stale-saved findings for the failed backwards of one call of the step;
    ``earlier_runs`` are the calls of the step's earlier calls (a carried-over graph)."""
    found = []
    for call in calls:
        if call.error is None:
            continue
        message = str(call.error)
        if message.startswith(FREED_START):
            kind, fix = "freed-reuse", "audit.fix_freed"
        elif message.startswith(STALE_START):
            kind, fix = "stale-saved", "audit.fix_stale"
        else:
            continue
        text = t("audit.failed", label=_label(call), message=_sentence(message))
        built = [(i, {k: v for c in run for k, v in c.nodes.items() if k in call.nodes})
                 for i, run in enumerate(earlier_runs, 1)]
        built = [(i, old) for i, old in built if old]
        if built:  # it reached into a graph an earlier call of the step built
            i, old = built[0]
            run = len(earlier_runs) + 1
            text = t("audit.reached", run=run, run_nth=nth_ko(run), text=text, built=i,
                     nth=nth_ko(i), names=_names(old))
            fix = "audit.fix_carry"
        elif kind == "freed-reuse":
            freed_by = [c for c in calls if c.index < call.index and not c.retain_graph
                        and set(c.nodes) & set(call.nodes)]
            if freed_by:
                text += t("audit.freed_by", label=_label(freed_by[-1]))
        found.append(Finding(kind, text, t(fix)))
    return found


def _findings(calls, later_runs=()):
    """What one call of the step did wrong; ``later_runs``: the calls of its next calls, whose
    backwards may still use what this one retained."""
    found = _failures(calls)
    ok = [c for c in calls if c.error is None]
    for call in ok:
        if not call.retain_graph or call.create_graph or not call.nodes:
            continue
        later = set().union(*(c.nodes for c in calls if c.index > call.index),
                            *(c.nodes for run in later_runs for c in run))
        if not set(call.nodes) & later:
            kept = sum(b for _, b in call.nodes.values())
            found.append(Finding(
                "unused-retain",
                t("audit.unused_retain", label=_label(call), bytes=bytes_text(kept),
                  names=_names(call.nodes)),
                t("audit.fix_unused")))
    seen = {}
    for call in ok:
        for k in call.nodes:
            seen.setdefault(k, []).append(call)
    # the backward through a gradient made with create_graph=True runs the nodes that made it
    # once more, legitimately (a gradient penalty's double backward); any further run repeats
    twice = {k: cs for k, cs in seen.items()
             if len(cs) - any(c.create_graph for c in cs[:-1]) > 1}
    if twice:
        nodes = {k: seen[k][0].nodes[k] for k in twice}
        runs = sorted({c.index: c for cs in twice.values() for c in cs}.items())
        found.append(Finding(
            "double-traversal",
            t("audit.double", n=len(twice), s="s" if len(twice) > 1 else "",
              runs=_labels([c for _, c in runs]), names=_names(nodes),
              bytes=bytes_text(sum(b for _, b in nodes.values()))),
            t("audit.fix_double")))
    return found


def _live_graphs(engine):
    """(bytes of saved tensors, number of nodes) reachable from every live tensor with a
    grad_fn made since the audit began (older objects are frozen out of the collector's view):
    what graphs outlive the step."""
    from ..viz import take_snapshot
    gc.collect()
    kinds = engine.tensor_types()
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
    engine = _Engine()
    with frozen_past():  # count only the graphs the step makes
        start = _live_graphs(engine)[0]
        calls, error = engine.run(step, list(args), {})
        end = _live_graphs(engine)[0]
    return calls, error, end - start


def _audit(step, label, args, kwargs):
    engine = _Engine()
    baseline = _live_graphs(engine)
    calls, error = engine.run(step, args, kwargs)
    findings = _failures(calls)
    if error is not None and not findings:
        return Audit(label, calls, [], error=_one_line(error, label))
    if error is not None:
        return Audit(label, calls, _findings(calls))
    runs, sizes = [calls], [baseline, _live_graphs(engine)]
    for run in range(2, RUNS_FOR_GROWTH + 1):
        again_calls, again = engine.run(step, args, kwargs)
        if again is not None:
            failed = _failures(again_calls, runs)
            if not failed:
                return Audit(label, calls, _findings(calls, runs[1:]),
                             error=_one_line(again, label, run))
            findings = _findings(calls, runs[1:] + [again_calls]) + failed
            return Audit(label, calls, findings)
        runs.append(again_calls)
        sizes.append(_live_graphs(engine))
    return Audit(label, calls, _findings(calls, runs[1:]) + _growth(sizes))


def _one_line(error, label, run=1):
    if run > 1:
        return t("audit.raised_on_call", label=label, type=type(error).__name__, run=run,
                 run_nth=nth_ko(run), message=first_sentence(error))
    return t("audit.raised", label=label, type=type(error).__name__,
             message=first_sentence(error))


def _where():
    """``file.py:12 `loss.backward()``` for the innermost frame outside the engines: the line
    of the learner's step that called backward."""
    frame = sys._getframe(1)
    skip = [_PACKAGE]
    torch = sys.modules.get("torch")
    if torch is not None:
        skip.append(os.path.dirname(torch.__file__) + os.sep)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not any(filename.startswith(s) for s in skip) and not filename.startswith("<frozen"):
            break
        frame = frame.f_back
    if frame is None:
        return ""
    filename, line = frame.f_code.co_filename, frame.f_lineno
    code = linecache.getline(filename, line).strip()
    if "ipykernel_" in filename or filename.startswith("<ipython-input"):
        place = f"cell line {line}"
    else:
        place = f"{os.path.basename(filename)}:{line}"
    return f"{place} `{code}`" if code else place


class _Engine:
    """Runs the step once, observing the backward calls of whichever engine it uses."""

    def tensor_types(self):
        from .. import Tensor
        torch = sys.modules.get("torch")  # never imported here: only if the step uses it
        return (Tensor, torch.Tensor) if torch is not None else (Tensor,)

    def run(self, step, args, kwargs):
        calls, error = [], None
        torch_calls, ours_calls = [], []
        try:
            with contextlib.ExitStack() as stack:
                if "torch" in sys.modules:
                    from ..viz import torch_recording
                    stack.enter_context(torch_recording.observe_backwards(torch_calls, _where))
                stack.enter_context(_observe_ours(ours_calls))
                step(*args, **kwargs)
        except Exception as exc:  # the step's own error is a finding or one line
            error = exc.with_traceback(None)  # no frame (and no tensor in it) kept
            error.__context__ = error.__cause__ = None
        calls = torch_calls or ours_calls
        for c in calls:
            if c[3] is not None:
                c[3] = c[3].with_traceback(None)
        return [Call(i + 1, *c) for i, c in enumerate(calls)], error


class _observe_ours:
    """Collect (retain_graph, create_graph, nodes, error) per backward of the package."""

    def __init__(self, calls):
        self.calls = calls

    def __enter__(self):
        from ..autograd.graph import register_observer
        self.handle = register_observer(self.on_event)
        self.current = None
        return self

    def on_event(self, event):
        from ..autograd.graph import BackwardFinished, BackwardStarted, NodeFinished, NodeStarted
        if isinstance(event, BackwardStarted):
            self.current = [bool(event.retain_graph), bool(event.create_graph), {}, None,
                            _where(), bool(event.accumulate), {}]
            self.calls.append(self.current)
        elif isinstance(event, (NodeStarted, NodeFinished)) and self.current is not None:
            if type(event.node).__name__ != "AccumulateGrad":
                self.current[6][(event.node._id, event.node.name())] = event.node.name()
            buffers = event.node.saved_buffers()
            if buffers:
                size = sum(b.nbytes for b in buffers if not b.is_wrapped_scalar)
                self.current[2][(event.node._id, event.node.name())] = \
                    (event.node.name(), size)
        elif isinstance(event, BackwardFinished) and self.current is not None:
            self.current[3] = event.error
            self.current = None

    def __exit__(self, *exc):
        self.handle.remove()
        return False
