"""The lessons on real PyTorch: ``real_torch()``, ``on_real_torch(program, code)`` and
``check_audit`` (a write-code checker for a torch step, judged by :func:`.audit.audit`).

torch stays optional: it is imported only when one of these is called, and where it is
missing :func:`real_torch` prints one line on how to install it instead of a traceback.
"""
from .showing import _display, _is_tensor, _roots, verdict
from ..viz import before_after_view, ledger, record, take_snapshot

INSTALL = ("torch is not installed, so this optional part is skipped: "
           "pip install torch (or pip install 'autograd-lesson[torch]')")
SKIP_REST = "; the cells below are skipped until you install it and restart the kernel"


def real_torch(skip_rest=False):
    """``import torch`` and return it; where it is missing (or broken), print one line on
    how to install it and return None. With ``skip_rest`` (a lesson that needs torch
    throughout) the notebook's later cells are then skipped instead of raising ``NameError``s."""
    try:
        import torch
    except (ImportError, OSError):  # OSError: a wheel whose native libraries do not load
        print(INSTALL + (SKIP_REST if skip_rest else "."))
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
    return []


def _run(engine, names, code):
    """(picture, text) of ``code`` run in ``engine`` on ``names`` (what the program built)."""
    tensors = {n: t for n, t in names.items() if _is_tensor(t)}
    roots = _roots(tensors)
    before = take_snapshot(roots, tensors, title=f"before {code}")
    recording = record(lambda: exec(code, {"torch": engine}, dict(names)), roots=roots,
                       names=tensors)
    outcome = "raised" if recording.error else "ran"
    after = take_snapshot(roots, tensors, executed=recording.executed,
                          failed=recording.failed, title=f"after {code} ({outcome})")
    view = before_after_view(before, after)
    done = verdict(recording.error) if recording.error else \
        f"✓ {code} ran {recording.executed_count} nodes"
    return view, "\n".join([ledger(before), done, view.text])


def on_real_torch(program, code):
    """Run ``program(torch)`` (it builds a forward pass and returns its tensors by name) and
    then ``code`` on real PyTorch; draw it with the lessons' view and print its text (the
    ledger before, the verdict, the diff); then run the same on ``autograd_lesson`` and say
    whether it printed the same text. Without torch: one line on how to install it."""
    if not callable(program) or not isinstance(code, str):
        raise TypeError("on_real_torch(program, code) takes a function of torch that returns its "
                        "tensors by name, and the call as a string, e.g. "
                        "lesson.on_real_torch(two_losses, \"loss1.backward()\")")
    real = real_torch()
    if real is None:
        return
    import autograd_lesson
    try:
        names = program(real)
    except Exception as error:  # the learner's program: one line, not a traceback
        print(f"{getattr(program, '__name__', 'program')}(torch) raised {verdict(error)[2:]}")
        return
    if not isinstance(names, dict):
        print(f"{getattr(program, '__name__', 'program')}(torch) must return its tensors by "
              f"name, as a dict such as dict(x=x, loss=loss); it returned "
              f"{type(names).__name__}")
        return
    view, theirs = _run(real, names, code)
    _display(view)
    print(f"on PyTorch {real.__version__}:\n{theirs}")
    _, ours = _run(autograd_lesson, program(autograd_lesson), code)
    print(f"autograd_lesson printed the same text: {theirs == ours}")
    if theirs != ours:
        print(ours)


# -- checkers for a torch step, judged by audit ------------------------------------------------
KINDS = ("unused-retain", "double-traversal", "graph-grows", "freed-reuse", "stale-saved")


def check_findings(prediction, step, *args, exercise=None, **kwargs):
    """Predict-then-check: which kinds of finding will ``lesson.audit(step, *args)`` report?
    ``prediction`` is a set of kinds, such as ``{"unused-retain"}`` (``set()``: none)."""
    from .audit import audit
    from .checking import _exercise, _listing, _malformed, _not_done, _verdict
    exercise, hint = _exercise(exercise, "")
    if prediction is ...:
        return _not_done(exercise)
    form = ("✗ answer with a set of kinds, such as {\"unused-retain\"} (set() if audit finds "
            "nothing); the kinds are " + ", ".join(f'"{k}"' for k in KINDS) + ".")
    if isinstance(prediction, str):
        return _malformed(f'✗ put the kind in a set: {{"{prediction}"}}.' if prediction in KINDS
                          else form)
    if not isinstance(prediction, (set, frozenset, list, tuple)) or \
            not all(isinstance(p, str) for p in prediction):
        return _malformed(form)
    unknown = sorted(set(prediction) - set(KINDS))
    if unknown:
        return _malformed(f'✗ "{unknown[0]}" is not a kind of finding: {", ".join(KINDS)}.')
    report = audit(step, *args, **kwargs)
    found = {f.kind for f in report.findings}
    correct = set(prediction) == found
    _verdict(exercise, hint, frozenset(prediction), correct,
             f"audit reports {_listing(found)}.", "at least one kind is missing or extra.",
             after=[str(report)] if correct else [])


def _parameters(inputs):
    return {f"{name}.{n}": p for name, obj in inputs.items()
            if hasattr(obj, "named_parameters") for n, p in obj.named_parameters()}


def check_audit(fn, reference, make, *, exercise, atol=1e-6):
    """Check a torch step the learner wrote: run once on ``make()``'s fresh inputs, it must
    leave every parameter as ``reference`` does, and ``lesson.audit`` must find nothing."""
    import numpy as np
    from .audit import audit
    from .checking import _exercise, _not_done, _unwritten, _verdict
    exercise, hint = _exercise(exercise, "")
    if fn is ... or _unwritten(fn):
        return _not_done(exercise)
    code = fn.__code__
    key = (code.co_code, repr(code.co_consts), code.co_names)
    want_inputs = make()
    reference(*want_inputs.values())
    want = {n: p.detach().numpy().copy() for n, p in _parameters(want_inputs).items()}
    inputs = make()
    try:
        fn(*inputs.values())
    except Exception as error:  # the learner's code: one line, not a traceback
        return _verdict(exercise, hint, key, False, "", f"your step raised {verdict(error)[2:]}")
    got = {n: p.detach().numpy() for n, p in _parameters(inputs).items()}
    problems = [f"{n} differs from the reference step (largest difference "
                f"{np.abs(got[n] - w).max():.2g})" for n, w in want.items()
                if not np.allclose(got[n], w, atol=atol)]
    report = audit(fn, *make().values())
    problems += [f"audit finds {f.kind}" for f in report.findings]
    _verdict(exercise, hint, key, not problems,
             "the same parameters as the reference after one step, and audit finds nothing.",
             "; ".join(problems) + ".")
