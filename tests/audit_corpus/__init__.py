"""A corpus of training steps from public code, shrunk to tiny CPU models with each original's
backward / retain_graph / detach / step structure kept, for ``lesson.audit``.

Each module lists ``CASES``: :class:`Case` entries naming their source, building the step
(``make()`` returns ``(step, args)``, fresh models each time) and stating the ground truth:
what torch does when the step runs as written (``raises``: ``None``, or the call of the step and
the start of the error), and what audit must report (finding kinds, words of the fix or the
message, whether the fix was verified on a copy). tests/test_audit_corpus.py checks both.
"""
from dataclasses import dataclass, field

FREED = "Trying to backward through the graph a second time"
STALE = "one of the variables needed for gradient computation has been modified"


@dataclass
class Case:
    name: str
    source: str           # where the step comes from (repository, file, issue or page)
    make: object          # () -> (step, args)
    raises: tuple = None  # (call of the step, start of torch's error) or None
    kinds: list = field(default_factory=list)
    fix: str = ""         # words one finding's fix contains
    message: str = ""     # words one finding's message contains
    verified: object = None  # the first finding's .verified (None: not checked)
    note: str = ""        # words one of the report's notes contains
