"""The lessons on real PyTorch: ``real_torch()``, ``on_real_torch(program, code)`` and
``check_audit`` (a write-code checker for a torch step, judged by :func:`.audit.audit`).

torch stays optional: it is imported only when one of these is called, and where it is
missing :func:`real_torch` prints one line on how to install it instead of a traceback.
"""
from .showing import before_and_after, display, outcome_line, verdict
from .without_torch import PIP_LINE, TORCH_VERSION, skip_lesson_cells
from ..i18n import t
from ..i18n.messages import MESSAGES
from ..viz import ledger
from ..viz.snapshot import is_tensor

# the English lines (tests compare the cells' output with them); what prints is t(...)
INSTALL = MESSAGES["on_torch.install"][0].format(end="", pip=PIP_LINE)
SKIP_REST = MESSAGES["on_torch.skip_rest"][0].format(pip=PIP_LINE, version=TORCH_VERSION)


def real_torch(skip_rest=False, lesson=None):
    """``import torch`` and return it; where it is missing (or broken), print how to install
    its CPU build and return None. ``lesson="11"`` (a lesson that needs torch throughout): the
    lesson's own later cells then show their stored outputs instead of running (see
    :mod:`.without_torch`); cells the learner adds still run. ``skip_rest=True`` (a notebook
    whose cells have no lesson's ids): every later cell is skipped but magics and shell
    commands (``%pip install ...``, ``!pip ...``)."""
    try:
        import torch
    except (ImportError, OSError):  # OSError: a wheel whose native libraries do not load
        if lesson is not None:
            print(t("on_torch.skip_rest", pip=PIP_LINE, version=TORCH_VERSION))
            skip_lesson_cells(lesson)
            return None
        print(t("on_torch.install", end=".", pip=PIP_LINE))
        if skip_rest:
            _skip_later_cells()
        return None
    return torch


def _skip_later_cells():
    try:
        ip = get_ipython()  # noqa: F821  (defined in a notebook kernel)
    except NameError:  # plain Python: nothing to skip
        return
    if _skip not in ip.input_transformers_post:
        ip.input_transformers_post.append(_skip)


def _skip(lines):
    # IPython has already turned `%pip ...` and `!cmd` into get_ipython() calls here
    first = next((line.lstrip() for line in lines if line.strip()), "")
    return lines if first.startswith("get_ipython().") else []


def _run(engine, names, code):
    """(picture, text) of ``code`` run in ``engine`` on ``names`` (what the program built)."""
    tensors = {n: t for n, t in names.items() if is_tensor(t)}
    before, recording, view = before_and_after(
        lambda: exec(code, {"torch": engine}, dict(names)), code, tensors)
    return view, "\n".join([ledger(before), outcome_line(recording, code), view.text])


def on_real_torch(program, code):
    """Run ``program(torch)`` (it builds a forward pass and returns its tensors by name) and
    then ``code`` on real PyTorch; draw it with the lessons' view and print its text (the
    ledger before, the verdict, the diff); then run the same on ``autograd_lesson`` and say
    whether it printed the same text. Without torch: one line on how to install it."""
    if not callable(program) or not isinstance(code, str):
        raise TypeError(t("on_torch.bad_arguments"))
    real = real_torch()
    if real is None:
        return
    import autograd_lesson
    name = getattr(program, "__name__", "program")
    from ..viz import watch
    try:
        with watch():  # torch's reader sees every backward from birth, as the package does
            names = program(real)
    except Exception as error:  # the learner's program: one line, not a traceback
        print(t("on_torch.program_raised", name=name, error=verdict(error)[2:]))
        return
    if not isinstance(names, dict):
        print(t("on_torch.not_a_dict", name=name, type=type(names).__name__))
        return
    view, theirs = _run(real, names, code)
    display(view)
    print(t("on_torch.on_pytorch", version=real.__version__, text=theirs))
    _, ours = _run(autograd_lesson, program(autograd_lesson), code)
    print(t("on_torch.same_text", same=theirs == ours))
    if theirs != ours:
        print(ours)


# -- checkers for a torch step, judged by audit ------------------------------------------------
KINDS = ("unused-retain", "double-traversal", "graph-grows", "freed-reuse", "stale-saved")


def check_findings(prediction, step, *args, exercise=None, **kwargs):
    """Predict-then-check: which kinds of finding will ``lesson.audit(step, *args)`` report?
    ``prediction`` is a set of kinds, such as ``{"unused-retain"}`` (``set()``: none)."""
    from .audit import audit
    from .checking import (exercise_and_hint, give_verdict, listing, not_an_attempt, not_done,
                           set_of_names_form)
    exercise, hint = exercise_and_hint(exercise, "")
    if prediction is ...:
        return not_done()
    kinds = ", ".join(f'"{k}"' for k in KINDS)
    problem = set_of_names_form(
        prediction, KINDS, t("findings.form", kinds=kinds),
        bare=lambda kind: t("findings.bare_string", kind=kind),
        unknown=lambda kind: t("findings.not_a_kind", kind=kind, kinds=", ".join(KINDS)))
    if problem:
        return not_an_attempt(problem)
    report = audit(step, *args, **kwargs)
    found = {f.kind for f in report.findings}
    correct = set(prediction) == found
    give_verdict(exercise, hint, frozenset(prediction), correct,
                 t("findings.right", listing=listing(found)), t("findings.wrong"),
                 after=[str(report)] if correct else [])


def _parameters(inputs):
    return {f"{name}.{n}": p for name, obj in inputs.items()
            if hasattr(obj, "named_parameters") for n, p in obj.named_parameters()}


def check_audit(fn, reference, make, *, exercise, atol=1e-6):
    """Check a torch step the learner wrote: run once on ``make()``'s fresh inputs, it must
    leave every parameter as ``reference`` does, and ``lesson.audit`` must find nothing."""
    import numpy as np
    from .audit import audit
    from .checking import exercise_and_hint, give_verdict, not_done, unwritten
    exercise, hint = exercise_and_hint(exercise, "")
    if fn is ... or unwritten(fn):
        return not_done()
    code = fn.__code__
    key = (code.co_code, repr(code.co_consts), code.co_names)
    want_inputs = make()
    reference(*want_inputs.values())
    want = {n: p.detach().numpy().copy() for n, p in _parameters(want_inputs).items()}
    inputs = make()
    try:
        fn(*inputs.values())
    except Exception as error:  # the learner's code: one line, not a traceback
        return give_verdict(exercise, hint, key, False, "",
                            t("step_audit.raised", error=verdict(error)[2:]))
    got = {n: p.detach().numpy() for n, p in _parameters(inputs).items()}
    problems = [t("step_audit.differs", name=n, diff=f"{np.abs(got[n] - w).max():.2g}")
                for n, w in want.items() if not np.allclose(got[n], w, atol=atol)]
    report = audit(fn, *make().values())
    problems += [t("step_audit.finds", kind=f.kind) for f in report.findings]
    give_verdict(exercise, hint, key, not problems, t("step_audit.right"),
                 "; ".join(problems) + ".")
