"""The audit's plain-data results: :class:`Call` (one backward), :class:`Finding`, :class:`Audit`."""
from dataclasses import dataclass, field

from ...i18n import t


@dataclass(frozen=True)
class Finding:
    kind: str
    message: str
    fix: str
    check: str = ""       # what trying the fix on a copy of the step showed ("" if not tried)
    verified: object = None  # True / False when tried on a copy, None when not

    def __str__(self):
        text = t("audit.finding", kind=self.kind, message=self.message, fix=self.fix)
        return text + (t("audit.check_line", check=self.check) if self.check else "")


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
    made: frozenset = frozenset()  # node keys a create_graph call made (its gradient's graph)
    roots: frozenset = frozenset()  # node keys it started from (the outputs' grad_fn)
    inputs: int = 0      # how many inputs it was given (autograd.grad, backward(inputs=))
    leaves: dict = field(default=None, repr=False)  # leaf id -> version when it started
    shared_leaves: dict = field(default=None, repr=False)  # the same, under shared nodes
    wrapped: bool = False  # its outputs were torch.func / vmap wrappers: not looked into
    steps_before: int = 0  # optimizer steps of the step's call that came before it
    cleared: frozenset = frozenset()  # leaf ids whose .grad was None when it started
    engine: str = ""     # "torch" or "ours" (the package's)

    @property
    def line(self):
        """The line number in the step's file (``None`` if not found)."""
        place = self.where.split(" ", 1)[0]
        number = place.rsplit(":", 1)[-1] if ":" in place else place.replace("line", "")
        return int(number) if number.strip().isdigit() else None


class Audit:
    """What ``audit`` saw: ``.calls`` (one :class:`Call` per backward of the step's first call),
    ``.findings``, ``.notes`` (what was not judged, and why), ``.error`` (the one line for bad
    input, else None); displays as ``.text``."""

    def __init__(self, label, calls, findings, error=None, notes=()):
        self.label, self.calls, self.findings, self.error = label, calls, findings, error
        self.notes = list(notes)

    @property
    def text(self):
        if self.error is not None:
            return self.error
        head = t("audit.head", label=self.label, n=len(self.calls),
                 s="" if len(self.calls) == 1 else "s")
        notes = [t("audit.note", note=n) for n in self.notes]
        if not self.findings:
            return "\n".join([head + t("audit.no_findings")] + notes)
        return "\n".join([head + t("audit.findings", n=len(self.findings),
                                    s="" if len(self.findings) == 1 else "s")]
                         + [str(f) for f in self.findings] + notes)

    def __str__(self):
        return self.text

    __repr__ = __str__

    def _repr_pretty_(self, printer, cycle):
        printer.text(self.text)
