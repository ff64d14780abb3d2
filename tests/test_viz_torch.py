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
            "assert 'torch' not in sys.modules and 'autograd_lesson.viz._torch' not in "
            "sys.modules, sorted(m for m in sys.modules if 'torch' in m)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def _frames_text(lib, code):
    from autograd_lesson.viz.steps import StepThrough
    x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = (x * 2).exp()
    loss = y.sum()
    names = {"x": x, "loss": loss}
    texts = []
    for _ in range(2):  # the second backward fails at the first node that saved something
        rec = viz.record(code(loss), roots=[loss], names=names, frames=True)
        texts.append(StepThrough(rec.frames, "loss.backward()").text)
        texts.extend(viz.ledger(f.snapshot) for f in rec.frames)
    return texts


def test_step_through_frames_are_the_same_on_torch(torch):
    ours = _frames_text(al, lambda loss: loss.backward)
    theirs = _frames_text(torch, lambda loss: loss.backward)
    assert ours == theirs
    assert "step 2: #1 ExpBackward0; got grad [1, 1, 1]; released _saved_result" in theirs[0]
    assert "step 2: #1 ExpBackward0 raised: ✗ RuntimeError: Trying to backward" in theirs[5]


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
