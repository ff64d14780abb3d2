"""The view on real PyTorch: every scenario's ledger and diff read the same from both engines.

``ViewRecorder`` runs each backward of ``tests/scenarios.py`` through the view (snapshot
before, recorded call, snapshot after) and keeps the printed text; the package and torch must
print it byte for byte. Further tests: the torch reader keeps no buffer alive, leaves no hook
registered, and is not imported (nor is torch) for the package's own tensors.
"""
import gc
import subprocess
import sys
import weakref

import pytest

import autograd_lesson as al
import scenarios as S
from autograd_lesson import viz
from autograd_lesson.viz.record import verdict

pytestmark = pytest.mark.parity


class ViewRecorder(S.Recorder):
    """A Recorder whose every recorded call also prints the view's ledger and diff."""

    def __init__(self, lib):
        super().__init__(lib)
        self.texts = []

    def __call__(self, label, fn, count_nodes=False):
        names = dict(self._tracked)
        for i, root in enumerate(self._roots):
            if not any(root is t for t in names.values()):
                names[f"root{i}"] = root
        roots = list(self._roots)
        before = viz.take_snapshot(roots, names, title=f"before {label}")
        recording = viz.record(fn, roots=roots, names=names)
        after = viz.take_snapshot(roots, names, executed=recording.executed,
                                  failed=recording.failed, title=f"after {label}")
        self.texts.append(viz.ledger(before))
        self.texts.append(viz.diff(before, after, title=label))
        self.texts.append(f"{verdict(recording.error)}; ran {recording.executed_count} nodes")
        self.texts.append(viz.ledger(after))
        return recording.result


def view_text(scenario, lib):
    recorder = ViewRecorder(lib)
    with viz.watch():  # torch's reader sees each backward from the nodes' birth, as ours does
        scenario(lib, recorder)
    return recorder.texts


# No engine differences left: after y.backward(create_graph=True) both engines give x.grad a
# CopyBackwards root (the first gradient is copied into a fresh tensor), so a backward of x.grad
# runs the same 6 nodes. KNOWN lists (package, torch) text pairs that are allowed to differ.
KNOWN = {}


# These record calls without record.graph(...): their ledgers are empty in both engines.
NO_GRAPH = {"s000_ex4_rnn_literal", "s000_sec4_memory"}


@pytest.mark.parametrize("scenario", S.SCENARIOS, ids=lambda s: s.__name__)
def test_scenario_ledgers_and_diffs_are_identical(torch, scenario):
    ours, theirs = view_text(scenario, al), view_text(scenario, torch)
    assert len(ours) == len(theirs) and len(ours) > 0
    different = [(a, b) for a, b in zip(ours, theirs) if a != b]
    assert different == KNOWN.get(scenario.__name__, [])
    rows = any("._saved_" in text or "saved_tensors[" in text for text in ours)
    assert rows != (scenario.__name__ in NO_GRAPH)  # the texts really list buffers


def _graph(torch):
    x = torch.randn(3, 4, requires_grad=True)
    W = torch.randn(5, 4, requires_grad=True)
    with viz.watch():  # torch's reader knows no backward ran: "alive", not "unknown"
        loss = (torch.nn.functional.linear(x, W).tanh() * 2).sum()
    return x, W, loss


def test_torch_ledger_names_slots_bytes_and_dtypes_like_the_package(torch):
    texts = []
    for lib in (al, torch):
        lib.manual_seed(0)
        x, W, loss = _graph(lib)
        texts.append(viz.ledger(viz.take_snapshot([loss], {"x": x, "W": W, "loss": loss})))
    assert texts[0] == texts[1]
    assert "#1 MmBackward0._saved_self      x             float32[3, 4]  48 B  alive" in texts[1]
    assert "torch." not in texts[1]


def test_stale_and_freed_states_on_torch(torch):
    x = torch.randn(3, requires_grad=True)
    y = x * 2
    z = (y * y).sum()
    with torch.no_grad():
        y.add_(1)
    snap = viz.take_snapshot([z], {"x": x, "y": y})
    stale = [b for b in snap.buffers if b.state == "stale"]
    assert [(b.slot, b.saved_version, b.current_version) for b in stale] == \
        [("other", 0, 1), ("self", 0, 1)]
    assert "(now v1, saved at v0)" in viz.ledger(snap)
    w = x.exp().sum()
    rec = viz.record(lambda: w.backward(), roots=[w])
    after = viz.take_snapshot([w], {"x": x}, executed=rec.executed)
    assert [b.state for b in after.buffers] == ["freed"]
    assert after.buffers[0].shape == (3,) and after.total_bytes == 0


def test_retained_needs_the_recorded_backward(torch):
    x = torch.randn(3, requires_grad=True)
    w = x.exp().sum()
    rec = viz.record(lambda: w.backward(retain_graph=True), roots=[w])
    snap = viz.take_snapshot([w], {"x": x}, executed=rec.executed)
    assert [b.state for b in snap.buffers] == ["retained"]
    assert rec.executed_count == 3 and rec.error is None
    assert all(n.executed for n in snap.nodes)


def test_nothing_keeps_a_torch_buffer_alive(torch):
    x = torch.randn(1000, requires_grad=True)
    y = x.exp()
    loss = y.sum()
    ref = weakref.ref(y)
    snap = viz.take_snapshot([loss], {"x": x, "y": y})
    rec = viz.record(lambda: loss.backward(), roots=[loss], names={"x": x, "y": y})
    after = viz.take_snapshot([loss], {"x": x}, executed=rec.executed)
    text = viz.diff(snap, after)
    del y, loss
    gc.collect()
    assert ref() is None and "freed" in text


def test_no_hook_stays_registered_and_errors_are_caught(torch):
    x = torch.randn(3, requires_grad=True)
    loss = (x * x).sum()
    made_inside = []
    rec = viz.record(lambda: [loss.backward(retain_graph=True),
                              made_inside.append((x * 3).sum()),
                              made_inside[0].backward(retain_graph=True)], roots=[loss])
    assert rec.error is None and rec.executed_count == 5  # Sum, Mul, x's, and the inner Sum, Mul
    assert torch._C._len_torch_function_stack() == 0
    rec.executed.clear()
    loss.backward(retain_graph=True)  # a hook left behind would record into rec again
    made_inside[0].backward()
    assert rec.executed == set()
    loss.backward()
    failed = viz.record(lambda: loss.backward(), roots=[loss])
    assert verdict(failed.error) == (
        "✗ RuntimeError: Trying to backward through the graph a second time (or directly "
        "access saved tensors after they have already been freed).")
    assert failed.failed == (loss.grad_fn.next_functions[0][0]._sequence_nr(), "MulBackward0")
    assert failed.error.__traceback__ is None


def test_lesson_show_graph_and_backward_accept_torch(torch, capsys):
    from autograd_lesson import lesson
    texts = []
    for lib in (al, torch):
        lib.manual_seed(0)
        x, W, loss = _graph(lib)
        lesson.show_graph("g", x=x, W=W, loss=loss)
        lesson.show_backward(lambda: loss.backward(), x=x, W=W, loss=loss)
        lesson.show_backward(lambda: loss.backward(), x=x, W=W, loss=loss)
        texts.append(capsys.readouterr().out)
    assert texts[0] == texts[1]
    assert "freed: #1 MmBackward0._saved_self" in texts[1]
    assert "✗ RuntimeError: Trying to backward through the graph a second time" in texts[1]


def test_the_package_alone_imports_no_torch():
    code = ("import sys, autograd_lesson as t\n"
            "from autograd_lesson import viz, lesson\n"
            "x = t.ones(2, requires_grad=True); y = (x * 2).sum()\n"
            "print(viz.ledger(viz.take_snapshot([y], {'y': y})))\n"
            "lesson.show_backward(lambda: y.backward(), x=x, y=y)\n"
            "print(lesson.audit(lambda: (x * 3).sum().backward(retain_graph=True)))\n"
            "print(viz.record(lambda: (x * 3).sum().backward()).executed_count)\n"
            "assert 'torch' not in sys.modules and 'autograd_lesson.viz.torch_graphs' not in "
            "sys.modules and 'autograd_lesson.viz.torch_recording' not in sys.modules, "
            "sorted(m for m in sys.modules if 'torch' in m)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def _frames_text(lib, code):
    from autograd_lesson.viz.steps import StepThrough
    x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
    with viz.watch():
        y = (x * 2).exp()
        loss = y.sum()
    names = {"x": x, "loss": loss}
    texts = []
    for _ in range(2):  # the second backward fails at the first node that saved something
        rec = viz.record(code(loss, x), roots=[loss], names=names, frames=True)
        texts.append(StepThrough(rec.frames, "loss.backward()").text)
        texts.extend(viz.ledger(f.snapshot) for f in rec.frames)
    return texts


def test_step_through_frames_are_the_same_on_torch(torch):
    ours = _frames_text(al, lambda loss, x: loss.backward)
    theirs = _frames_text(torch, lambda loss, x: loss.backward)
    assert ours == theirs
    assert "step 2: #1 ExpBackward0; got grad [1, 1, 1]; released _saved_result" in theirs[0]
    assert "step 2: #1 ExpBackward0 raised: ✗ RuntimeError: Trying to backward" in theirs[5]


@pytest.mark.parametrize("how", ["retain_graph=True", "positional", "create_graph", "grad"])
def test_frames_of_a_backward_that_keeps_its_graph_are_the_same_on_torch(torch, how):
    def code(lib):
        return lambda loss, x: {
            "retain_graph=True": lambda: loss.backward(retain_graph=True),
            "positional": lambda: loss.backward(None, True),
            "create_graph": lambda: loss.backward(create_graph=True),
            "grad": lambda: lib.autograd.grad(loss, x, retain_graph=True)}[how]
    ours, theirs = _frames_text(al, code(al)), _frames_text(torch, code(torch))
    assert ours == theirs
    assert "#1 ExpBackward0._saved_result" in theirs[2] and "retained" in theirs[2]


def test_torch_frames_say_retained_once_the_node_ran_even_unwatched(torch):
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    loss = (x * 2).exp().sum()  # made outside viz.watch: the reader cannot know it is fresh
    rec = viz.record(lambda: loss.backward(retain_graph=True), roots=[loss], names={"x": x},
                     frames=True)
    states = [{(b.node_id, b.slot): b.state for b in f.snapshot.buffers} for f in rec.frames]
    assert rec.frames[0].start.buffers[0].state == "unknown"
    assert states[0] == {(0, "other"): "unknown", (1, "result"): "unknown"}  # Sum ran
    assert states[1] == {(0, "other"): "unknown", (1, "result"): "retained"}  # Exp ran
    assert states[2][(0, "other")] == "retained"


def test_frames_and_leaves_show_bfloat16_gradients_on_torch(torch):
    x = torch.tensor([0.5, -1.0, 2.0], dtype=torch.bfloat16, requires_grad=True)
    loss = (x * 2).exp().sum()  # bfloat16 has no NumPy dtype: the view formats it from torch
    rec = viz.record(lambda: loss.backward(), roots=[loss], names={"x": x}, frames=True)
    assert rec.error is None
    assert rec.frames[-1].text == ("step 4: #3 AccumulateGrad (x); got grad [5.438, 0.2715, "
                                   "109]; accumulated into x.grad")
    leaf = viz.take_snapshot([loss], {"x": x}).leaves[0]
    assert leaf.grad == "[5.438, 0.2715, 109]" and leaf.dtype == "bfloat16"


def test_a_sparse_gradient_neither_breaks_the_backward_nor_the_frames_on_torch(torch):
    """An Embedding(sparse=True) gets a sparse gradient: the frames show its dense values (as
    its leaf's .grad does) and the recorded backward ends as a plain one does."""
    torch.manual_seed(0)
    emb = torch.nn.Embedding(5, 3, sparse=True)
    loss = emb(torch.tensor([1, 2])).sum()
    rec = viz.record(lambda: loss.backward(), roots=[loss], names={"w": emb.weight},
                     frames=True)
    assert rec.error is None and emb.weight.grad.is_sparse
    assert rec.frames[-1].text == ("step 3: #2 AccumulateGrad (w); got grad [0, 0, 0, 1, …]; "
                                   "accumulated into w.grad")
    assert viz.take_snapshot([loss], {"w": emb.weight}).leaves[0].grad == "[0, 0, 0, 1, …]"
    assert torch.equal(emb.weight.grad.to_dense()[1:3], torch.ones(2, 3))


def test_a_frame_the_view_cannot_read_stops_the_frames_not_the_backward(torch, monkeypatch,
                                                                       capsys):
    """Whatever a frame's reading meets, the user's backward runs to its end as without the
    view; the frames stop where the reading failed, and the title says where."""
    from autograd_lesson import lesson
    from autograd_lesson.viz import steps as steps_module, torch_recording
    real, reads, shown = torch_recording.short, [], []
    monkeypatch.setattr(steps_module.StepThrough, "display",  # (no widget outlives the test)
                        lambda self, key=None: shown.append(self.text))

    def breaks_on_the_second(tensor):
        reads.append(tensor)
        if len(reads) == 2:
            raise RuntimeError("a tensor the view cannot read")
        return real(tensor)
    monkeypatch.setattr(torch_recording, "short", breaks_on_the_second)
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    loss = (x * 2).exp().sum()
    lesson.step_through("loss.backward()", x=x, loss=loss)
    assert torch.equal(x.grad, 2 * (x.detach() * 2).exp())
    assert shown == ["loss.backward(): 1 of 4 steps (frames stop at 1)\n"
                     "step 1: #2 SumBackward0; got grad 1"]
    assert capsys.readouterr().out == ""  # no error line: the backward did not fail


def test_a_backward_inside_a_node_is_checked_after_the_call_on_torch(torch):
    class Inner(torch.autograd.Function):  # runs a backward of its own, which the recording
        @staticmethod                       # cannot see start: torch runs nodes without modes
        def forward(ctx, t):
            return t * 1

        @staticmethod
        def backward(ctx, grad):
            with torch.enable_grad():
                torch.autograd.backward(inner, retain_graph=True)
            return grad

    x = torch.tensor([0.5, -1.0], requires_grad=True)
    inner = (x * 3).exp().sum()
    loss = Inner.apply(x).sum()
    rec = viz.record(lambda: loss.backward(), roots=[loss, inner], names={"x": x})
    assert rec.error is None
    snap = viz.take_snapshot([inner], {"x": x}, executed=rec.executed)
    assert {b.slot: b.state for b in snap.buffers} == {"other": "retained",
                                                       "result": "retained"}


def test_lesson_check_freed_accepts_torch(torch, capsys, monkeypatch):
    from autograd_lesson import lesson
    from autograd_lesson.lesson import attempts
    outputs = []
    monkeypatch.setattr(attempts, "_RECORDS", {})
    for lib in (al, torch):
        x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
        loss = (x * 2).exp().sum()
        lesson.check_freed({"ExpBackward0.result", "MulBackward0.other"},
                           lambda: loss.backward(retain_graph=False), x=x, loss=loss)
        loss = (x * 2).exp().sum()
        lesson.check_freed(set(), lambda: loss.backward(retain_graph=True), x=x, loss=loss)
        outputs.append(capsys.readouterr().out)
        monkeypatch.setattr(attempts, "_RECORDS", {})  # count tries afresh for each engine
    assert outputs[0] == outputs[1]
    assert outputs[1].count("✓ correct") == 2, outputs[1]


def test_lesson_step_through_runs_on_torch(torch, capsys, monkeypatch):
    from autograd_lesson import lesson
    from autograd_lesson.viz import steps as steps_module
    shown = []
    monkeypatch.setattr(steps_module.StepThrough, "display",
                        lambda self, key=None: shown.append(self.text))
    for lib in (al, torch):
        x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
        loss = (x * 2).exp().sum()
        lesson.step_through(lambda: loss.backward(), x=x, loss=loss)
        lesson.step_through(lambda: loss.backward(), x=x, loss=loss)
        lesson.step_through(lambda: None, x=x, loss=loss)
    out = capsys.readouterr().out.split("\n")
    assert len(shown) == 4 and shown[:2] == shown[2:]
    assert shown[0].splitlines()[0] == "<lambda>: 4 steps"
    assert out.count("✗ RuntimeError: Trying to backward through the graph a second time (or "
                     "directly access saved tensors after they have already been freed).") == 2
    assert sum("no backward ran, so there is nothing to step through" in line
               for line in out) == 2


def test_the_seven_lesson_pictures_read_the_same_on_torch(torch, monkeypatch):
    """figures.py draws each scenario lesson's headline picture with the package; the same
    code with ``torch`` in its place prints the same diff (the pictures' text twin)."""
    from autograd_lesson.course import figures
    ours = {name: make().text for name, make in figures.SCENARIOS.items()}
    monkeypatch.setattr(figures, "torch", torch)
    monkeypatch.setattr(figures, "nn", torch.nn)
    theirs = {name: make().text for name, make in figures.SCENARIOS.items()}
    assert len(ours) == 7 and ours == theirs
    assert "retained: #0 MulBackward0._saved_other int64[] 8 B" in theirs["multi_loss"]


# -- the lesson checkers on torch: the same verdicts, byte for byte ----------------------------
def _two_losses(lib):
    def make():
        return {"model": S.mlp(lib, [3, 4, 2], 0, act="tanh"), "x": S.randn(lib, 1, 5, 3),
                "y": S.randn(lib, 2, 5, 2)}
    return make


def _article_step(model, x, y):
    out = model(x)
    loss1, loss2 = ((out - y) ** 2).mean(), out.abs().mean()
    loss1.backward(retain_graph=True)
    loss2.backward()


def _summed_step(model, x, y):
    out = model(x)
    (((out - y) ** 2).mean() + out.abs().mean()).backward()


def _one_loss_only(model, x, y):
    ((model(x) - y) ** 2).mean().backward()


def _backward_twice(model, x, y):
    loss = model(x).sum()
    loss.backward()
    loss.backward()


def _no_backward(model, x, y):
    return None


_KEPT = []


def _keeps_the_graph(model, x, y):
    out = model(x)
    _KEPT.append(out)
    (((out - y) ** 2).mean() + out.abs().mean()).backward(retain_graph=True)


def test_check_step_gives_the_same_verdicts_on_torch(torch, capsys, monkeypatch):
    from autograd_lesson import lesson
    from autograd_lesson.lesson import attempts
    steps = [_summed_step, _article_step, _one_loss_only, _backward_twice, _no_backward,
             _keeps_the_graph]
    outputs = []
    for lib in (al, torch):
        monkeypatch.setattr(attempts, "_RECORDS", {})
        for fn in steps:
            lesson.check_step(fn, _article_step, _two_losses(lib), exercise="01-step")
        _KEPT.clear()
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]
    lines = [line for line in outputs[1].splitlines() if not line.startswith("hint:")]
    assert lines[0] == ("✓ correct: the same gradients and parameter values as the reference, "
                        "from 1 backward call, none with a needless retain_graph, each node "
                        "run once.")
    assert lines[1].startswith("✗ not quite (2nd try): backward #1 of its 2 calls used "
                               "retain_graph=True (this step needs none); AddmmBackward0 ran "
                               "2 times")
    assert lines[2].startswith("✗ not quite (3rd try): model.0.weight.grad differs")
    assert lines[3] == ("✗ not quite (4th try): your step raised RuntimeError: Trying to "
                        "backward through the graph a second time (or directly access saved "
                        "tensors after they have already been freed).")
    assert lines[4] == "✗ not quite (5th try): it ran no backward."
    assert lines[5].startswith("✗ not quite (6th try): backward #1 of its 1 call used "
                               "retain_graph=True (this step needs none); ")
    assert "B of saved buffers are still alive after it returned" in lines[5]


def test_check_step_on_torch_refuses_max_peak(torch, capsys):
    from autograd_lesson import lesson
    lesson.check_step(_summed_step, _article_step, _two_losses(torch), exercise="01-step",
                      max_peak=1000)
    assert capsys.readouterr().out == (
        "✗ check_step(max_peak=...) measures the peak of saved bytes on autograd_lesson only: "
        "make() must build the package's tensors.\n")
    lesson.set_language("ko")
    lesson.check_step(_summed_step, _article_step, _two_losses(torch), exercise="01-step",
                      max_peak=1000)
    assert capsys.readouterr().out == (
        "✗ check_step(max_peak=...)는 autograd_lesson에서만 저장된 바이트의 최대치를 잽니다: "
        "make()가 이 패키지의 텐서를 만들어야 합니다.\n")


def test_the_other_checkers_give_the_same_verdicts_on_torch(torch, capsys, monkeypatch):
    from autograd_lesson import lesson
    from autograd_lesson.lesson import attempts
    outputs = []
    for lib in (al, torch):
        monkeypatch.setattr(attempts, "_RECORDS", {})
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * x
        loss = y.sum()
        lesson.check_raises(False, lambda: loss.backward(retain_graph=True), exercise="01-raises")
        lesson.check_which_raise({"again"}, {"again": lambda: [loss.backward(), loss.backward()],
                                             "fresh": lambda: (x * 3).sum().backward()},
                                 exercise="01-which-raise")
        lesson.check_value([7.0, 11.0], x.grad, "x.grad", exercise="01-grad-sum")
        square = (x * x).sum()
        lesson.check_freed({"MulBackward0.self", "MulBackward0.other"},
                           lambda: square.backward(), x=x, square=square)
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]
    assert outputs[1].count("✓ correct") == 4, outputs[1]


# -- bad input to the view: one line that says what to pass, the same for both engines --------
def test_bad_input_to_the_lesson_view_is_one_printed_line(lib, capsys):
    from autograd_lesson import lesson
    x = lib.ones(3)  # no graph
    leaf = lib.ones(3, requires_grad=True)
    lesson.show_graph("t", x=x)
    lesson.show_graph("t", x=3)
    lesson.show_backward(42, leaf=leaf)
    lesson.show_backward(lambda: x.sum().backward(), x=x)
    lesson.step_through(lambda: x.sum().backward(), x=x)
    lesson.step_through(None, leaf=leaf)
    assert capsys.readouterr().out.splitlines() == [
        "✗ show_graph(): no graph to draw: x does not require grad; make the inputs with "
        "requires_grad=True and name what you compute from them",
        "✗ show_graph(): x is an int, not a tensor; name the tensors to draw, e.g. "
        "show_graph(..., x=x, loss=loss)",
        "✗ show_backward() takes the code to run: a string such as \"loss.backward()\" or a "
        "function, got int",
        "✗ show_backward(): no graph to draw: x does not require grad; make the inputs with "
        "requires_grad=True and name what you compute from them",
        "✗ step_through(): no graph to draw: x does not require grad; make the inputs with "
        "requires_grad=True and name what you compute from them",
        "✗ step_through() takes the code to run: a string such as \"loss.backward()\" or a "
        "function, got NoneType",
    ]


def test_bad_input_to_viz_raises_one_line_at_the_boundary(lib):
    leaf = lib.ones(3, requires_grad=True)
    cases = [(lambda: viz.take_snapshot([3.0]), "take_snapshot: roots must be tensors (or "
              "graph nodes), got float: pass [loss], the tensors to draw from"),
             (lambda: viz.take_snapshot([leaf], {"n": 3}), "take_snapshot: names must map "
              "labels to tensors, but 'n' is an int"),
             (lambda: viz.ledger(leaf), "ledger() takes a Snapshot, got Tensor"),
             (lambda: viz.graph_view(leaf), "graph_view() takes a Snapshot, got Tensor")]
    for call, start in cases:
        with pytest.raises(TypeError) as info:
            call()
        assert str(info.value).startswith(start) and "\n" not in str(info.value)
        assert info.traceback[-1].path.name == "checks.py"  # raised where input is checked
    empty = viz.take_snapshot([lib.ones(3)])  # a tensor with no graph: an empty snapshot
    assert empty.nodes == () and viz.ledger(empty).endswith(
        "saved buffers hold 0 B: 0 B only in the graph, 0 B shared with your tensors")


def test_record_without_roots_sees_either_engine(lib):
    x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
    loss = (x * 2).sum()
    kept = viz.record(lambda: loss.backward(retain_graph=True))
    failed = viz.record(lambda: [loss.backward(), loss.backward()])
    assert (kept.executed_count, kept.error) == (3, None)
    assert failed.executed_count == 3 and failed.failed is not None
    assert verdict(failed.error).startswith("✗ RuntimeError: Trying to backward through")
    assert verdict(viz.record(lambda: 1 / 0).error) == "✗ ZeroDivisionError: division by zero"


def test_reading_a_checkpointed_graph_does_not_change_what_torch_does(torch, capsys):
    """A pack hook (here checkpoint's) holds those saves: unpacking them to count their bytes
    would run checkpoint's recomputation, and the real backward would then refuse a second
    unpack (CheckpointError). The view leaves them unread."""
    from torch.utils.checkpoint import checkpoint
    from autograd_lesson import lesson
    trunk, head = S.mlp(torch, [4, 8, 8], 0, act="tanh"), S.linear(torch, 8, 1, 1)
    x = S.randn(torch, 3, 5, 4)

    def step():
        head(checkpoint(trunk, x, use_reentrant=False)).pow(2).mean().backward()
    assert lesson.audit(step).text == "audit of step: 1 backward call, no findings"
    f = checkpoint(trunk, x, use_reentrant=False)
    loss = head(f).sum()
    lesson.show_backward(lambda: loss.backward(), f=f, loss=loss)
    out = capsys.readouterr().out
    assert "✓ <lambda> ran 14 nodes" in out and "freed: #6 AddmmBackward0._saved_mat1" in out
    assert trunk[0].weight.grad is not None


def test_a_saved_view_of_an_unnamed_parameter_is_shared_in_both_engines(torch):
    """A saved W.t() is the parameter's memory: shared with your tensors even when the
    parameter is not among the names (the package's reader used to miss it: its leaves come
    after the node that saved the view)."""
    def texts(lib):
        lib.manual_seed(0)
        layer, head = lib.nn.Linear(4, 5), lib.nn.Linear(5, 2)
        with viz.watch():
            loss = head(layer(lib.randn(3, 4)).relu()).sum()
        snap = viz.take_snapshot([loss], {"loss": loss})
        mat2 = [b for b in snap.buffers if b.slot == "mat2"]
        return viz.ledger(snap), [b.user_held for b in mat2]
    ours, theirs = texts(al), texts(torch)
    assert ours == theirs
    assert ours[1] == [True]
