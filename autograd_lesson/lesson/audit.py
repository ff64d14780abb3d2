"""``lesson.audit(step, *args, **kwargs)``: a retain_graph doctor for one training step.

It runs ``step`` under observation (either engine: the package's event stream, or torch node
hooks registered only while the step runs), then once or twice more to see whether saved
buffers pile up, and returns an :class:`Audit` whose ``.findings`` have ``.kind``, ``.message``
(what happened, with node names and bytes) and ``.fix`` (what to write instead):

- ``unused-retain``: a ``retain_graph=True`` backward whose kept nodes no later backward ran;
- ``double-traversal``: a node with saved tensors run by more than one backward of the step;
- ``graph-grows``: saved buffers still alive after the step, more after every call;
- ``freed-reuse``: a backward failed because an earlier one freed what it needed;
- ``stale-saved``: a backward failed because a saved tensor was modified in place.
"""
import gc
from dataclasses import dataclass

from ..viz.record import first_sentence

FREED_START = "Trying to backward through the graph a second time"
STALE_START = "one of the variables needed for gradient computation has been modified by an inplace"
RUNS_FOR_GROWTH = 3


@dataclass(frozen=True)
class Finding:
    kind: str
    message: str
    fix: str

    def __str__(self):
        return f"{self.kind}: {self.message}\n  fix: {self.fix}"


@dataclass(frozen=True)
class Call:
    """One backward inside the step: its options, the saved-tensor nodes it ran, its error."""
    index: int
    retain_graph: bool
    create_graph: bool
    nodes: dict          # node key -> (node name, bytes of its saved tensors)
    error: object = None


class Audit:
    def __init__(self, label, calls, findings, error=None):
        self.label, self.calls, self.findings, self.error = label, calls, findings, error

    @property
    def text(self):
        head = f"audit of {self.label}: {len(self.calls)} backward call" \
               f"{'' if len(self.calls) == 1 else 's'}"
        if not self.findings:
            return head + ", no findings"
        return "\n".join([head + f", {len(self.findings)} finding"
                          f"{'' if len(self.findings) == 1 else 's'}"]
                         + [str(f) for f in self.findings])

    def __str__(self):
        return self.text

    __repr__ = __str__

    def _repr_pretty_(self, printer, cycle):
        printer.text(self.text)


def _bytes(n):
    return f"{n:,} B"


def _names(nodes):
    counts = {}
    for name, _ in nodes.values():
        counts[name] = counts.get(name, 0) + 1
    return ", ".join(n if c == 1 else f"{n} ×{c}" for n, c in sorted(counts.items()))


def _findings(calls):
    found = []
    for call in calls:
        if call.error is None:
            continue
        message = str(call.error)
        if message.startswith(FREED_START):
            earlier = [c.index for c in calls if c.index < call.index and not c.retain_graph]
            by = f"; backward #{earlier[-1]} freed it" if earlier else ""
            found.append(Finding(
                "freed-reuse",
                f"backward #{call.index} failed: {first_sentence(message)}{by}",
                "compute the losses first and call backward once on their sum; or pass "
                "retain_graph=True to every backward but the last one over the shared graph"))
        elif message.startswith(STALE_START):
            found.append(Finding(
                "stale-saved",
                f"backward #{call.index} failed: {first_sentence(message)}",
                "call every backward before the in-place change (optimizer.step(), x += ...) "
                "or rebuild the forward after it; use an out-of-place op (x = x + ...) "
                "if the old value is still needed"))
    ok = [c for c in calls if c.error is None]
    for call in ok:
        if not call.retain_graph or call.create_graph or not call.nodes:
            continue
        later = set().union(*(c.nodes for c in calls if c.index > call.index)) \
            if call.index < len(calls) else set()
        if not set(call.nodes) & later:
            kept = sum(b for _, b in call.nodes.values())
            found.append(Finding(
                "unused-retain",
                f"backward #{call.index} kept {_bytes(kept)} of saved tensors "
                f"(retain_graph=True: {_names(call.nodes)}) that no later backward used",
                "drop retain_graph=True from that backward: the graph is freed as it runs"))
    seen = {}
    for call in ok:
        for k, info in call.nodes.items():
            seen.setdefault(k, []).append(call)
    twice = {k: cs for k, cs in seen.items()
             if len(cs) > 1 and not any(c.create_graph for c in cs[:-1])}
    if twice:
        nodes = {k: seen[k][0].nodes[k] for k in twice}
        runs = sorted({c.index for cs in twice.values() for c in cs})
        found.append(Finding(
            "double-traversal",
            f"{len(twice)} node{'s' if len(twice) > 1 else ''} with saved tensors ran in "
            f"backwards {', '.join(f'#{i}' for i in runs)}: {_names(nodes)} "
            f"({_bytes(sum(b for _, b in nodes.values()))} kept for the repeat)",
            "sum the losses and call backward once; for a step that must not reach a "
            "sub-network (a GAN's D step), detach its input (fake.detach())"))
    return found


def _live_graph_bytes(engine):
    """Bytes of saved tensors reachable from every live tensor with a grad_fn."""
    from ..viz import take_snapshot
    gc.collect()
    kinds = engine.tensor_types()
    roots = [o for o in gc.get_objects() if isinstance(o, kinds) and o.grad_fn is not None]
    # one snapshot per library: torch tensors left alive by other code in this process (a
    # test run in one pytest worker) must not be mixed into a snapshot of ours, or vice versa
    return sum(take_snapshot(group).total_bytes
               for group in ([o for o in roots if isinstance(o, kind)] for kind in kinds) if group)


def audit(step, *args, **kwargs):
    """Run ``step(*args, **kwargs)`` under observation and return what it did wrong, if anything:
    ``print(lesson.audit(train_step, batch))``."""
    if not callable(step):
        raise TypeError(f"audit() takes the step as a function, got {type(step).__name__}: "
                        f"pass it uncalled, e.g. lesson.audit(train_step, batch)")
    label = getattr(step, "__name__", "the step")
    engine = _Engine()
    calls, error = engine.run(step, args, kwargs)
    findings = _findings(calls)
    if error is not None and not any(c.error is error or str(c.error) == str(error)
                                     for c in calls):
        return Audit(label, calls, findings, error=_one_line(error, label))
    if error is None:
        sizes = [_live_graph_bytes(engine)]
        for run in range(2, RUNS_FOR_GROWTH + 1):
            again_calls, again = engine.run(step, args, kwargs)
            if again is not None:
                for f in _findings(again_calls):
                    if f.kind in ("freed-reuse", "stale-saved"):
                        findings.append(Finding(f.kind, f"on call {run} of the step, "
                                                + f.message, f.fix))
                break
            sizes.append(_live_graph_bytes(engine))
        if len(sizes) == RUNS_FOR_GROWTH and all(a < b for a, b in zip(sizes, sizes[1:])):
            findings.append(Finding(
                "graph-grows",
                f"saved tensors still alive after each call: "
                f"{' → '.join(_bytes(s) for s in sizes)}",
                "keep numbers, not graphs, across steps: total += loss.item(); carry a hidden "
                "state as h = h.detach()"))
    return Audit(label, calls, findings)


def _one_line(error, label):
    line = f"{label} raised {type(error).__name__}: {first_sentence(error)}"
    print(line)
    return line


class _Engine:
    """Runs the step once, observing the backward calls of whichever engine it uses."""

    def __init__(self):
        self.torch = None

    def tensor_types(self):
        import sys
        from .._tensor import Tensor
        torch = sys.modules.get("torch")  # never imported here: only if the step uses it
        return (Tensor, torch.Tensor) if torch is not None else (Tensor,)

    def run(self, step, args, kwargs):
        import sys
        calls, error = [], None
        if "torch" in sys.modules:
            from ..viz import _torch
            torch_calls, ours_calls = [], []
            try:
                with _torch.observe_backwards(torch_calls):
                    with _observe_ours(ours_calls):
                        step(*args, **kwargs)
            except Exception as exc:  # the step's own error is a finding or one line
                error = exc.with_traceback(None)
            calls = torch_calls or ours_calls
        else:
            try:
                with _observe_ours(calls):
                    step(*args, **kwargs)
            except Exception as exc:
                error = exc.with_traceback(None)
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
            self.current = [bool(event.retain_graph), bool(event.create_graph), {}, None]
            self.calls.append(self.current)
        elif isinstance(event, (NodeStarted, NodeFinished)) and self.current is not None:
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
