"""lesson.audit on the wrong and the fixed training step of every scenario (``AUDIT_STEPS`` in
tests/scenarios.py), in both engines: the wrong step gets exactly its planted finding kinds,
the fixed one none, and the report's text (kinds, messages with the lines, fixes) is the same
byte for byte whichever engine ran the step."""
import functools
import gc
import inspect
import sys
import weakref

import pytest

import autograd_lesson as al
import scenarios as S
from autograd_lesson import lesson

CASES = [(name, variant, kinds) for name, (_, variants) in S.AUDIT_STEPS.items()
         for variant, kinds in variants.items()]
IDS = [f"{name}-{variant}" for name, variant, _ in CASES]


@functools.lru_cache(maxsize=None)
def _report(engine, name, variant):
    lib = al if engine == "autograd_lesson" else sys.modules["torch"]
    make, _ = S.AUDIT_STEPS[name]
    return lesson.audit(make(lib, variant))


def report(lib, name, variant):
    return _report(lib.__name__, name, variant)


def line_of(function, code):
    """file:line `code` of the last line of ``function`` (in scenarios.py) containing ``code``
    (the code comes after the docstring)."""
    lines, first = inspect.getsourcelines(function)
    number = [first + i for i, text in enumerate(lines) if code in text][-1]
    return f"scenarios.py:{number} `{lines[number - first].strip()}`"


def test_every_scenario_has_a_wrong_and_a_fixed_step():
    assert set(S.AUDIT_STEPS) >= {"multi_loss", "gan", "shared_backbone", "rnn", "wgan_gp",
                                  "sequential_opt", "conditional"}
    for name, (_, variants) in S.AUDIT_STEPS.items():
        assert variants["fixed"] == [] and any(variants[v] for v in variants if v != "fixed")
    planted = {k for _, _, kinds in CASES for k in kinds}
    assert planted == {"unused-retain", "double-traversal", "graph-grows", "freed-reuse",
                       "stale-saved"}


@pytest.mark.parametrize("name,variant,kinds", CASES, ids=IDS)
def test_audit_finds_exactly_the_planted_kinds(lib, name, variant, kinds):
    audit = report(lib, name, variant)
    assert audit.error is None, audit.text
    assert [f.kind for f in audit.findings] == kinds, audit.text
    for finding in audit.findings:
        assert finding.message and finding.fix and str(finding) in audit.text
    if not kinds:
        assert audit.text.endswith("no findings")


@pytest.mark.parity
@pytest.mark.parametrize("name,variant,kinds", CASES, ids=IDS)
def test_the_report_reads_the_same_from_both_engines(torch, name, variant, kinds):
    """Byte for byte, but for the line saying what trying the fix on a copy of the step showed:
    only torch's tensors can be copied (the package's refuse to be pickled)."""
    ours, theirs = report(al, name, variant), report(torch, name, variant)
    assert [(f.kind, f.message, f.fix) for f in ours.findings] == \
        [(f.kind, f.message, f.fix) for f in theirs.findings]
    assert all(f.check == "" and f.verified is None for f in ours.findings)
    tried = "\n  tried on a copy of the step: "
    assert ours.text == "\n".join(line for line in theirs.text.split("\n")
                                  if not line.startswith(tried[1:]))


def test_messages_name_the_lines_nodes_and_bytes(lib):
    two_heads = report(lib, "shared_backbone", "wrong").findings[0]
    assert two_heads.message == (
        "2 nodes with saved tensors ran in backward #1 ("
        + line_of(S.audit_shared_backbone, "loss1.backward(retain_graph=True)")
        + ") and backward #2 (" + line_of(S.audit_shared_backbone, "loss2.backward()")
        + "): AddmmBackward0, ReluBackward0 (432 B kept for the repeat)")
    final = report(lib, "conditional", "final_retain").findings[0]
    assert final.message == (
        "backward #1 (" + line_of(S.audit_conditional, "final_loss.backward(retain_graph")
        + ") kept 224 B of saved tensors (retain_graph=True: AddmmBackward0, MulBackward0, "
        "TanhBackward0) that no later backward used")
    freed = report(lib, "multi_loss", "wrong").findings[0]
    assert freed.message == (
        "backward #2 (" + line_of(S.audit_multi_loss, "loss2.backward()") + ") failed: Trying "
        "to backward through the graph a second time (or directly access saved tensors after "
        "they have already been freed); backward #1 ("
        + line_of(S.audit_multi_loss, "loss1.backward(") + ") had freed it")
    stale = report(lib, "sequential_opt", "wrong").findings[0]
    assert stale.message.startswith(
        "backward #2 (" + line_of(S.audit_sequential_opt, "loss_b.backward()") + ") failed: "
        "one of the variables needed for gradient computation has been modified by an inplace "
        "operation: [torch.DoubleTensor [5, 2]], which is output 0 of AsStrided, is at version")


def test_a_carried_hidden_state_gets_the_detach_fix(lib):
    naive = report(lib, "rnn", "naive").findings[0]
    assert naive.message.startswith("on call 2 of the step, backward #1 (scenarios.py:")
    # the part of call 1's graph the carried hidden state reaches: 3 time steps of the cell
    assert naive.message.endswith("; it reached into the graph call 1 built "
                                  "(AddmmBackward0 ×6, TanhBackward0 ×3)")
    assert "hidden = hidden.detach()" in naive.fix
    grows = report(lib, "rnn", "wrong").findings[0]
    assert grows.message == ("after calls 1, 2, 3 of the step, graphs it built are still "
                             "alive: 528 B → 720 B → 912 B of saved tensors in 22 → 40 → 58 nodes")
    # retain_graph=True is not "unused" there: the next call's backward runs that graph again
    assert [f.kind for f in report(lib, "rnn", "wrong").findings] == ["graph-grows"]


def test_total_plus_loss_grows_the_graph_even_without_retain(lib):
    grows = report(lib, "running_total", "wrong").findings[0]
    assert grows.message == ("after calls 1, 2, 3 of the step, graphs it built are still "
                             "alive: 0 B → 0 B → 0 B of saved tensors in 11 → 18 → 25 nodes")
    assert "loss.item()" in grows.fix


@pytest.mark.parametrize("variant", ["fixed", "seed"])
def test_the_gradient_penalty_double_backward_is_not_a_double_traversal(lib, variant):
    audit = report(lib, "wgan_gp", variant)
    grad, backward = audit.calls
    assert grad.create_graph and not backward.create_graph
    assert set(grad.nodes) & set(backward.nodes)  # the critic's forward nodes run in both
    assert audit.findings == [], audit.text


def test_a_later_backward_that_reuses_a_graph_is_still_double_traversal(lib):
    """The create_graph exemption covers the backward through the gradient, not a third pass."""
    x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)

    def step():
        y = (x.exp() * x).sum()
        g, = lib.autograd.grad(y, x, create_graph=True)
        g.sum().backward(retain_graph=True)
        y.backward()
    assert [f.kind for f in lesson.audit(step).findings] == ["double-traversal"]


# -- bad input: one line, the same in both engines ---------------------------------------------
def _raises():
    raise ValueError("no data. more text")


def test_bad_input_gives_one_line(lib, capsys):
    x = lib.ones(3)
    lines = {
        "number": lesson.audit(42).text,
        "tensor": lesson.audit(x).text,
        "raises": lesson.audit(_raises).text,
        "no graph": lesson.audit(lambda: x.sum().backward()).text,
        "arguments": lesson.audit(_raises, 1).text,
    }
    assert lines == {
        "number": "✗ audit() takes the step as a function, got int: pass it uncalled, e.g. "
                  "lesson.audit(train_step, batch)",
        "tensor": "✗ audit() takes the step as a function, got Tensor: pass it uncalled, e.g. "
                  "lesson.audit(train_step, batch)",
        "raises": "✗ _raises raised ValueError: no data. (make it run, then audit it again)",
        "no graph": "✗ <lambda> raised RuntimeError: element 0 of tensors does not require "
                    "grad and does not have a grad_fn (make it run, then audit it again)",
        "arguments": "✗ _raises raised TypeError: _raises() takes 0 positional arguments but 1 "
                     "was given (make it run, then audit it again)",
    }
    assert capsys.readouterr().out == ""
    assert lesson.audit(42).findings == [] and lesson.audit(42).error == lines["number"]


def test_a_step_that_fails_on_its_second_call_says_so(lib):
    calls = []

    def step():
        calls.append(1)
        if len(calls) == 2:
            raise KeyError("batch")
        (lib.ones(2, requires_grad=True) * 2).sum().backward()
    audit = lesson.audit(step)
    assert audit.text == "✗ step raised KeyError on call 2: 'batch' (make it run, then audit " \
                         "it again)"


# -- nothing kept, nothing left registered ------------------------------------------------------
def _no_tensor_in(obj, kinds, depth=6):
    seen, todo = set(), [(obj, 0)]
    while todo:
        item, level = todo.pop()
        if id(item) in seen or level > depth:
            continue
        seen.add(id(item))
        assert not isinstance(item, kinds), f"the report holds a {type(item).__name__}"
        todo.extend((r, level + 1) for r in gc.get_referents(item)
                    if not isinstance(r, (type, type(sys))))


def test_the_report_keeps_no_tensor_and_no_buffer_alive(lib):
    big = lib.ones(1000, requires_grad=True)
    state = {}

    def step():
        y = big.exp()
        state["y"] = weakref.ref(y)
        loss = (y * 2).sum()
        loss.backward(retain_graph=True)  # the buffers of y = big.exp() stay until y dies
        (y * 3).sum().backward()
    audit = lesson.audit(step)
    assert [f.kind for f in audit.findings] == ["double-traversal"]
    gc.collect()
    assert state["y"]() is None
    kinds = (al.Tensor,) + ((sys.modules["torch"].Tensor,) if "torch" in sys.modules else ())
    _no_tensor_in(audit, kinds)


def test_a_failing_step_leaves_no_frame_behind(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    refs = []

    def step():
        y = x.exp()
        refs.append(weakref.ref(y))
        loss = (y * y).sum()
        loss.backward()
        loss.backward()  # freed-reuse: the error must not keep this frame (and y) alive
    audit = lesson.audit(step)
    assert [f.kind for f in audit.findings] == ["freed-reuse"]
    gc.collect()
    assert refs[0]() is None
    assert all(c.error is None or c.error.__traceback__ is None for c in audit.calls)


def test_no_observer_hook_mode_or_frozen_gc_is_left(lib):
    from autograd_lesson.autograd import graph
    observers = len(graph._observers)
    gc.unfreeze()  # (tests/conftest.py froze the past: here the audit must freeze its own)
    state = {}

    def step():
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        state["loss"] = (x.exp() * 2).sum()
        state["loss"].backward(retain_graph=True)
    lesson.audit(step)
    lesson.audit(_raises)
    assert len(graph._observers) == observers and gc.get_freeze_count() == 0
    if lib is not al:
        torch = lib
        assert torch._C._len_torch_function_stack() == 0
        assert torch._C._autograd._top_saved_tensors_default_hooks(False) is None
        assert torch._C._autograd._saved_tensors_hooks_is_enabled()
        assert torch.autograd._engine_run_backward is torch.autograd.graph._engine_run_backward
    ours = ("observe.py", "analysis.py", "verify.py", "audit/__init__.py", "torch_graphs.py")
    called = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_filename.endswith(ours):
            called.append(frame.f_code.co_name)
    sys.setprofile(profile)
    try:  # the graph audit saw: a hook left on any of its nodes would run now
        state["loss"].backward()
    finally:
        sys.setprofile(None)
    assert called == []


def test_check_value_refuses_a_torch_tensor_as_the_prediction(torch, capsys):
    t = torch.tensor([1.0, 2.0])
    lesson.check_value(t, t, "x.grad")
    assert "not the engine's own tensor" in capsys.readouterr().out


def test_a_notebook_cell_is_named_by_its_line(lib):
    """In Jupyter the step's file is a temporary ipykernel_<pid>/<hash>.py: say "cell line N"."""
    import linecache
    filename = "/tmp/ipykernel_4242/123456.py"
    source = ("def train_step():\n"
              "    loss = (x * x).sum()\n"
              "    loss.backward(retain_graph=True)\n")
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"x": lib.tensor([1.0, 2.0], requires_grad=True)}
    exec(compile(source, filename, "exec"), namespace)
    try:
        finding, = lesson.audit(namespace["train_step"]).findings
    finally:
        del linecache.cache[filename]
    assert finding.message.startswith(
        "backward #1 (cell line 3 `loss.backward(retain_graph=True)`) kept 16 B of saved tensors")


def test_helpers_leave_no_hook_and_keep_no_buffer(lib, capsys, monkeypatch):
    """show_backward, step_through, check_freed, check_step and audit on one graph: afterwards
    its buffers die with the user's last reference, and a backward calls none of our code."""
    from autograd_lesson.lesson import attempts
    from autograd_lesson.viz import steps as steps_module
    monkeypatch.setattr(steps_module.StepThrough, "display", lambda self, key=None: None)
    monkeypatch.setattr(attempts, "_RECORDS", {})
    x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = x.exp()
    loss = (y * 2).sum()
    ref = weakref.ref(y)
    lesson.show_backward(lambda: loss.backward(retain_graph=True), x=x, y=y, loss=loss)
    lesson.step_through(lambda: loss.backward(retain_graph=True), x=x, y=y, loss=loss)
    lesson.check_freed(set(), lambda: loss.backward(retain_graph=True), x=x, y=y, loss=loss)
    lesson.audit(lambda: loss.backward(retain_graph=True))
    called = []

    def profile(frame, event, arg):
        if event == "call" and "autograd_lesson" in frame.f_code.co_filename and \
                frame.f_code.co_filename.endswith(("observe.py", "audit/__init__.py",
                                                   "torch_graphs.py", "record.py", "steps.py",
                                                   "checking.py", "showing.py")):
            called.append(frame.f_code.co_name)
    sys.setprofile(profile)
    try:
        loss.backward()
    finally:
        sys.setprofile(None)
    assert called == []
    del y, loss
    gc.collect()
    assert ref() is None
    capsys.readouterr()
