"""What the calls of a step did wrong, and what to write instead, from the evidence the watch
kept: which nodes each backward ran, which a ``create_graph`` call made, the leaves' versions and
gradients each found, and the optimizer steps between them.

Each finding starts as an :class:`Occurrence` (one pair of backwards, one retain); occurrences of
one kind on the same lines become one :class:`~.report.Finding` ("×8 calls, lines 31 and 44").
An occurrence may carry a ``plan``: the fix, as an experiment :mod:`.verify` can run on a copy.
"""
import re
from dataclasses import dataclass

from ...i18n import t
from ...viz.ledger import bytes_text
from ...viz.record import first_sentence
from ..attempts import nth_ko

FREED_START = "Trying to backward through the graph a second time"
STALE_START = "one of the variables needed for gradient computation has been modified by an inplace"
_VERSION = re.compile(r"is at version (\d+); expected version (\d+)")


@dataclass
class Occurrence:
    kind: str
    message: str
    fix: str
    calls: tuple          # the calls it names (their lines group it)
    plan: tuple = None    # (experiment, *call indexes) for verify, or None
    probe: tuple = None   # (a, b): if retaining a's graph makes b fail stale, a fresh forward
    unnamed_write: bool = False  # stale-saved whose write no optimizer step explains


def names(nodes):
    counts = {}
    for name, _ in nodes.values():
        counts[name] = counts.get(name, 0) + 1
    return ", ".join(n if c == 1 else f"{n} ×{c}" for n, c in sorted(counts.items()))


def label(call):
    """``backward #2 (train.py:14 `loss2.backward()`)``: the call and, if found, its line."""
    return f"backward #{call.index}" + (f" ({call.where})" if call.where else "")


def labels(calls):
    if len(calls) == 1:
        return label(calls[0])
    return t("audit.and", rest=", ".join(label(c) for c in calls[:-1]), last=label(calls[-1]))


def _code(call):
    found = re.search(r"`(.*)`$", call.where)
    return found.group(1) if found else ""


def _receiver(call, default):
    """``loss1`` of ``loss1.backward(...)`` (the tensor a backward starts from), if readable."""
    found = re.search(r"^(.+?)\.backward\(", _code(call))
    return found.group(1) if found else default


def _grad_args(call):
    """(output, input) of ``torch.autograd.grad(output, input, ...)``, if readable."""
    found = re.search(r"grad\(\s*([^,()]+(?:\([^()]*\))?)\s*,\s*([^,()]+(?:\([^()]*\))?)",
                      _code(call))
    return (found.group(1).strip(), found.group(2).strip()) if found else None


# -- evidence between two calls --------------------------------------------------------------
def steps_between(a, b, steps):
    return [s for s in steps if a.index <= s[0] < b.index]


def write_text(step):
    found = re.match(r"(.*?) `(.*)`$", step[1])
    return t("audit.write_at", code=found.group(2), place=found.group(1)) if found \
        else t("audit.write_step")


def changed_weights(a, b, steps):
    """The writes between ``a`` and ``b`` to leaves under the nodes both use, as text; None if
    those leaves kept their versions."""
    changed = {v for v, version in (b.shared_leaves or {}).items()
               if v in (a.leaves or {}) and version > a.leaves[v]}
    if not changed:
        return None
    writes = [write_text(s) for s in steps_between(a, b, steps) if changed & set(s[2])]
    return ", ".join(dict.fromkeys(writes)) or t("audit.write_unknown")


# -- failures: freed-reuse, stale-saved ------------------------------------------------------
def failures(calls, steps, earlier_runs=()):
    """Occurrences for the failed backwards of one call of the step; ``earlier_runs`` are the
    (calls, steps) of the step's earlier calls (a carried-over graph)."""
    found = []
    for call in calls:
        if call.error is None:
            continue
        message = str(call.error)
        if message.startswith(FREED_START):
            kind = "freed-reuse"
        elif message.startswith(STALE_START):
            kind = "stale-saved"
        else:
            continue
        text = t("audit.failed", label=label(call), message=first_sentence(message).rstrip("."))
        built = [(i, _made_in(call.nodes, span.get(call.engine)))
                 for i, (_, _, span) in enumerate(earlier_runs, 1)]
        built = [(i, old) for i, old in built if old]
        if built:  # it reached into a graph an earlier call of the step built
            i, old = built[0]
            run = len(earlier_runs) + 1
            text = t("audit.reached", run=run, run_nth=nth_ko(run), text=text, built=i,
                     nth=nth_ko(i), names=names(old))
            if kind == "stale-saved":
                write = _stale_write(call, message, steps, earlier_runs)
                text += t("audit.stale_by", write=write) if write else ""
            found.append(Occurrence(kind, text, t("audit.fix_carry"), (call,)))
        elif kind == "freed-reuse":
            found.append(_freed(call, calls, steps, text))
        else:
            write = _stale_write(call, message, steps, earlier_runs)
            fix = t("audit.fix_stale_at", write=write) if write else t("audit.fix_stale")
            text += t("audit.stale_by", write=write) if write else ""
            found.append(Occurrence(kind, text, fix, (call,), unnamed_write=not write))
    return found


def _made_in(nodes, span):
    """The nodes numbered within ``span``: those an earlier call of the step made."""
    if not span or span[1] is None:
        return {}
    return {k: v for k, v in nodes.items() if span[0] < k[0] < span[1]}


def _freed(call, calls, steps, text):
    freed_by = [c for c in calls if c.index < call.index and not c.retain_graph
                and set(c.nodes) & set(call.nodes)]
    if not freed_by:
        return Occurrence("freed-reuse", text, t("audit.fix_freed"), (call,))
    a = freed_by[-1]
    text += t("audit.freed_by", label=label(a))
    both = (a, call)
    changed = changed_weights(a, call, steps)
    if changed:
        return Occurrence("freed-reuse", text + t("audit.weights_changed", writes=changed),
                          t("audit.fix_fresh", label=label(a)), both, ("retain", a.index,
                                                                      call.index))
    found = Occurrence("freed-reuse", text, t("audit.fix_freed"), both, probe=both)
    if a.accumulate and call.accumulate and a.roots != call.roots:
        between = steps_between(a, call, steps)
        stepped = {v for s in between for v in s[2]}
        if between and not stepped & set(call.shared_leaves or {}):
            found.fix, found.plan = t("audit.fix_detach", label=label(a)), \
                ("detach", a.index, call.index)
        elif not between:
            found.fix, found.plan = _sum_fix(a, call), ("sum", a.index, call.index)
    return found


def fresh_forward(occurrence, writes):
    """The occurrence, once an experiment showed that keeping the first graph only makes the
    second backward fail on stale saved tensors: the weights changed in between."""
    a = occurrence.probe[0]
    occurrence.message += t("audit.weights_changed", writes=writes or t("audit.write_unknown"))
    occurrence.fix = t("audit.fix_fresh", label=label(a))
    occurrence.plan = ("retain", a.index, occurrence.probe[1].index)
    return occurrence


def name_write(occurrence, write):
    """The stale-saved occurrence, with the in-place write an experiment found."""
    occurrence.message += t("audit.stale_by", write=write)
    occurrence.fix = t("audit.fix_stale_at", write=write)
    return occurrence


def _sum_fix(a, b):
    return t("audit.fix_sum", a=_receiver(a, "loss1"), b=_receiver(b, "loss2"))


def _stale_write(call, message, steps, earlier_runs):
    """The optimizer step that changed the saved tensor: a leaf of the failed backward whose
    version is the one the error names, bumped past the saved one by that step."""
    found = _VERSION.search(message)
    if not found:
        return None
    now, saved = int(found.group(1)), int(found.group(2))
    leaves = {v for v, version in (call.leaves or {}).items() if version == now}
    before = [s for _, run_steps, _ in earlier_runs for s in run_steps] + \
        [s for s in steps if s[0] < call.index]
    for step in before:
        if any(step[2].get(v, -1) > saved for v in leaves):
            return write_text(step)
    return None


# -- what ran: unused-retain, double-traversal ------------------------------------------------
def judged(calls, steps, later_runs=(), stopped=False):
    """unused-retain and double-traversal occurrences of one call of the step; ``later_runs``:
    the calls of its next calls, whose backwards may still use what this one retained;
    ``stopped``: a backward raised, so retains are not judged (a later, un-run backward might
    have used them)."""
    ok = [c for c in calls if c.error is None and not c.wrapped]
    found = []
    for call in ok if not stopped else ():
        if not call.retain_graph or call.create_graph or not call.nodes:
            continue
        later = set().union(*(c.nodes for c in calls if c.index > call.index),
                            *(c.nodes for run in later_runs for c in run))
        if not set(call.nodes) & later:
            kept = sum(b for _, b in call.nodes.values())
            found.append(Occurrence(
                "unused-retain",
                t("audit.unused_retain", label=label(call), bytes=bytes_text(kept),
                  names=names(call.nodes)),
                t("audit.fix_unused"), (call,), ("drop_retain", call.index)))
    return found + _repeats(ok, steps)


def _through_a_gradient(call, k, ok):
    """Whether ``call`` runs node ``k`` again legitimately: it differentiates through a
    gradient an earlier create_graph call made from ``k`` (one more run per order)."""
    return any(c.index < call.index and c.create_graph and k in c.ran and set(call.ran) & c.made
               for c in ok)


def _repeats(ok, steps):
    plain = {}
    for call in ok:
        for k in call.nodes:
            if not _through_a_gradient(call, k, ok):
                plain.setdefault(k, []).append(call)
    groups = []  # [calls, nodes]: repeats that share a backward are one occurrence
    for k, cs in plain.items():
        if len(cs) < 2:
            continue
        indexes = {c.index for c in cs}
        joined = [g for g in groups if g[0] & indexes]
        merged = [indexes.union(*(g[0] for g in joined)), {k: cs[0].nodes[k]}]
        for g in joined:
            merged[1].update(g[1])
            groups.remove(g)
        groups.append(merged)
    found = []
    by_index = {c.index: c for c in ok}
    for indexes, nodes in sorted(groups, key=lambda g: min(g[0])):
        runs = [by_index[i] for i in sorted(indexes)]
        text = t("audit.double", n=len(nodes), s="s" if len(nodes) > 1 else "",
                 runs=labels(runs), names=names(nodes),
                 bytes=bytes_text(sum(b or 0 for _, b in nodes.values())))
        fix, plan = _repeat_fix(runs[0], runs[1], steps)
        found.append(Occurrence("double-traversal", text, fix, tuple(runs), plan))
    return found


def _repeat_fix(a, b, steps):
    """The advice the evidence supports for two backwards that ran the same nodes."""
    if not a.accumulate and not b.accumulate:
        if a.roots == b.roots:  # u_t and u_x of one u: one call over both inputs
            args, other = _grad_args(a), _grad_args(b)
            example = f"torch.autograd.grad({args[0]}, ({args[1]}, {other[1]}), ...)" \
                if args and other and args[0] == other[0] else "torch.autograd.grad(y, (a, b))"
            return t("audit.fix_one_grad", example=example), None
        return t("audit.fix_batched"), None
    if a.accumulate and b.accumulate and a.roots != b.roots:
        between = steps_between(a, b, steps)
        stepped = {v for s in between for v in s[2]}
        if between and not stepped & set(b.shared_leaves or {}):
            return t("audit.fix_detach", label=label(a)), ("detach", a.index, b.index)
        cleared = set(a.leaves or {}) & set(b.shared_leaves or {}) & b.cleared
        if not between and cleared:
            return t("audit.fix_batched"), None
        if not between:
            return _sum_fix(a, b), ("sum", a.index, b.index)
    return t("audit.fix_double"), None


# -- one finding per kind and lines ----------------------------------------------------------
def grouped(occurrences):
    """[(Finding fields, the first occurrence)] with occurrences of one kind, fix and lines
    merged: the first one's message, then how many calls on which lines."""
    groups = {}
    for o in occurrences:
        lines = tuple(sorted({c.line for c in o.calls if c.line is not None}))
        groups.setdefault((o.kind, o.fix, lines), []).append(o)
    merged = []
    for (kind, fix, lines), group in groups.items():
        message = group[0].message
        if len(group) > 1:
            n = sum(len(o.calls) for o in group)
            where = t("audit.line", line=lines[0]) if len(lines) == 1 else \
                t("audit.lines", rest=", ".join(map(str, lines[:-1])), last=lines[-1])
            message += t("audit.times", n=n, lines=where) if lines else \
                t("audit.times_nowhere", n=n)
        merged.append((kind, message, fix, group[0]))
    return merged
