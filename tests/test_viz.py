"""The graph view: snapshots, ledgers, DOT, figures, and that looking changes nothing."""
import gc
import pathlib
import weakref

import numpy as np
import pytest

import autograd_lesson as al
from autograd_lesson import nn, viz
from autograd_lesson.course import figures
from autograd_lesson.viz.steps import StepThrough
from autograd_lesson.viz.timeline import live_saved_bytes

ROOT = pathlib.Path(__file__).resolve().parents[1]


def two_losses(lib):
    x = lib.tensor([0.5, -1.0, 2.0, 0.0, 1.5], requires_grad=True)
    y = x * 2
    return x, y, y.sum(), (y ** 2).sum()


def names_of(x, y, loss1, loss2):
    return dict(x=x, y=y, loss1=loss1, loss2=loss2)


# -- ledgers -------------------------------------------------------------------------------------
def test_ledger_alive_then_retained_then_freed():
    x, y, loss1, loss2 = two_losses(al)
    names = names_of(x, y, loss1, loss2)
    alive = viz.ledger(viz.take_snapshot([loss1, loss2], names, title="before"))
    assert alive == (
        "before\n"
        "  #0 MulBackward0._saved_other  scalar 2  int64[]      8 B  alive\n"
        "  #2 PowBackward0._saved_self   y         float32[5]  20 B  alive\n"
        "  saved buffers hold 20 B: 0 B only in the graph, 20 B shared with your tensors")
    loss1.backward(retain_graph=True)
    retained = viz.ledger(viz.take_snapshot([loss1, loss2], names))
    assert "MulBackward0._saved_other  scalar 2  int64[]      8 B  retained" in retained
    assert "PowBackward0._saved_self   y         float32[5]  20 B  alive" in retained
    loss2.backward()
    freed = viz.ledger(viz.take_snapshot([loss1, loss2], names))
    assert freed.count("freed") == 2
    assert "saved buffers hold 0 B" in freed


def test_ledger_marks_a_stale_buffer_with_both_versions():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    loss = y.sum()
    y.add_(1)
    text = viz.ledger(viz.take_snapshot([loss], dict(x=x, y=y, loss=loss)))
    assert "ExpBackward0._saved_result" in text
    assert "stale (now v1, saved at v0)" in text


def test_graph_only_bytes_counts_what_only_the_graph_holds():
    x = al.tensor(np.ones((2, 3)), requires_grad=True)
    loss = (x * 3).relu().sum()   # relu's output is held only by the graph
    snap = viz.take_snapshot([loss], dict(x=x, loss=loss))
    assert snap.graph_only_bytes == 2 * 3 * 8
    assert snap.total_bytes == snap.graph_only_bytes + snap.shared_bytes


def test_naive_two_loss_diff_names_exactly_what_pytorch_frees(torch):
    x, y, loss1, loss2 = two_losses(al)
    names = names_of(x, y, loss1, loss2)
    before = viz.take_snapshot([loss1, loss2], names)
    loss1.backward()
    after = viz.take_snapshot([loss1, loss2], names)
    text = viz.diff(before, after)
    ours = {line.split()[2] for line in text.splitlines() if line.strip().startswith("freed:")}
    assert ours == {"MulBackward0._saved_other"}

    tx, ty, tl1, tl2 = two_losses(torch)
    tl1.backward()
    freed = set()
    for node in (ty.grad_fn, tl2.grad_fn.next_functions[0][0]):
        for attr in dir(node):
            if attr.startswith("_raw_saved_"):
                slot = attr[len("_raw_saved_"):]
                try:
                    getattr(node, "_saved_" + slot)
                except RuntimeError:
                    freed.add(f"{node.name()}._saved_{slot}")
    assert freed == ours


# -- DOT -----------------------------------------------------------------------------------------
GOLDEN_DOT = pathlib.Path(__file__).with_name("golden_two_losses.dot")


def test_dot_is_deterministic_and_matches_the_golden_file():
    def build():
        x, y, loss1, loss2 = two_losses(al)
        names = names_of(x, y, loss1, loss2)
        before = viz.take_snapshot([loss1, loss2], names, title="before loss1.backward()")
        recording = viz.record(lambda: loss1.backward())
        after = viz.take_snapshot([loss1, loss2], names, executed=recording.executed,
                                  title="after loss1.backward()")
        return viz.before_after_view(before, after).source
    first, second = build(), build()
    assert first == second
    assert "0x" not in first  # no memory addresses
    assert first == GOLDEN_DOT.read_text(encoding="utf-8")


def test_states_are_told_apart_without_colour():
    from autograd_lesson.viz.dot import STATES
    signatures = {(st["width"], st["dashed"]) for st in STATES.values()}
    assert len(signatures) == len(STATES)  # border style/count differs per state, not just colour
    x, y, loss1, loss2 = two_losses(al)
    source = viz.snapshot_dot(viz.take_snapshot([loss1, loss2], names_of(x, y, loss1, loss2)))
    assert "● ALIVE</B>" in source and "saved, not used by a backward yet" in source  # + legend


def test_failed_node_is_marked():
    x, y, loss1, loss2 = two_losses(al)
    loss1.backward()
    recording = viz.record(lambda: loss2.backward())
    assert isinstance(recording.error, RuntimeError)
    assert recording.failed is y.grad_fn
    snap = viz.take_snapshot([loss1, loss2], names_of(x, y, loss1, loss2),
                             executed=recording.executed, failed=recording.failed)
    assert [n.name for n in snap.nodes if n.failed] == ["MulBackward0"]
    assert "backward failed here" in viz.snapshot_dot(snap)


def test_view_carries_svg_png_and_its_ledger_as_text():
    x, y, loss1, loss2 = two_losses(al)
    snap = viz.take_snapshot([loss1, loss2], names_of(x, y, loss1, loss2), title="t")
    bundle = viz.graph_view(snap)._repr_mimebundle_()
    assert bundle["image/svg+xml"].lstrip().startswith("<?xml")
    assert len(bundle["image/png"]) > 1000
    assert bundle["text/plain"] == viz.ledger(snap, "t")


def test_a_100_step_rnn_still_renders_with_a_note():
    al.manual_seed(0)
    cell = nn.RNNCell(2, 3)
    h = al.zeros(1, 3)
    for _ in range(100):
        h = cell(al.randn(1, 2), h)
    loss = h.sum()
    snap = viz.take_snapshot([loss], dict(loss=loss))
    assert len(snap.nodes) > 500
    source = viz.graph_view(snap).source
    assert "nodes folded" in source and "fold=False draws them" in source
    assert source.count("[label=<<TABLE") < 250  # detail is capped
    svg = viz.render(source, "svg")
    assert b"</svg>" in svg
    assert "more buffers (same pattern)" in viz.ledger(snap)


# -- recording and step-through --------------------------------------------------------------------
def test_step_through_has_one_frame_per_executed_node():
    x = al.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    w = al.tensor(np.ones((3, 2)), requires_grad=True)
    loss = (x @ w).tanh().sum()
    names = dict(x=x, w=w, loss=loss)
    recording = viz.record(lambda: loss.backward(), roots=[loss], names=names, frames=True)
    assert len(recording.frames) == recording.executed_count == 5
    steps = StepThrough(recording.frames, "loss.backward()")
    lines = steps.text.splitlines()
    assert lines[1].startswith("step 1: #2 SumBackward0")
    assert "released _saved_result" in lines[2]
    assert any("accumulated into x.grad" in line for line in lines)
    assert [f.snapshot.buffers[0].state for f in recording.frames][-1] == "freed"


# -- looking changes nothing ----------------------------------------------------------------------
def _scenario_outcomes(look):
    """Run several backwards; with ``look`` snapshot, render and record frames around each."""
    al.manual_seed(3)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    opt = al.optim.SGD(model.parameters(), lr=0.1)
    x = al.randn(5, 3)
    out = model(x)
    loss_a, loss_b = out.pow(2).mean(), out.abs().mean()
    names = dict(x=x, out=out, loss_a=loss_a, loss_b=loss_b)
    calls = [lambda: loss_a.backward(retain_graph=True), opt.step, lambda: loss_b.backward(),
             lambda: loss_a.backward()]
    outcomes = []
    for call in calls:
        if look:
            before = viz.take_snapshot([loss_a, loss_b], names)
            recording = viz.record(call, roots=[loss_a, loss_b], names=names, frames=True)
            error = recording.error
            after = viz.take_snapshot([loss_a, loss_b], names, executed=recording.executed)
            viz.before_after_view(before, after).source
        else:
            try:
                call()
                error = None
            except RuntimeError as exc:
                error = exc
        outcomes.append(str(error))
        outcomes.append([None if p.grad is None else p.grad.numpy().tolist()
                         for p in model.parameters()])
        outcomes.append([p._version for p in model.parameters()])
    return outcomes


def test_looking_never_changes_outcomes_grads_or_versions():
    assert _scenario_outcomes(look=True) == _scenario_outcomes(look=False)


def test_looking_keeps_no_released_buffer_alive():
    x = al.tensor(np.ones((4, 3)), requires_grad=True)
    hidden = (x * 2).relu()          # relu saves its output: a graph-only buffer once we drop it
    loss = hidden.sum()
    storage = weakref.ref(hidden._storage)
    names = dict(x=x, loss=loss)
    before = viz.take_snapshot([loss], names)
    recording = viz.record(lambda: loss.backward(), roots=[loss], names=names, frames=True)
    view = viz.before_after_view(before, viz.take_snapshot([loss], names,
                                                           executed=recording.executed))
    view.source
    del hidden
    gc.collect()
    assert storage() is None, "the view or the recording kept a released buffer alive"
    assert recording.frames and before.buffers  # the recordings themselves are still usable


def test_live_saved_bytes_grows_only_while_graphs_stay_referenced():
    w = al.tensor(np.ones((3, 3)), requires_grad=True)
    baseline = live_saved_bytes()
    fresh, kept = [], []
    for _ in range(3):
        loss = (al.tensor(np.ones((2, 3))) @ w).tanh().sum()
        loss.backward(retain_graph=True)
        fresh.append(live_saved_bytes() - baseline)
    del loss
    total = 0
    for _ in range(3):
        loss = (al.tensor(np.ones((2, 3))) @ w).tanh().sum()
        total = total + loss
        loss.backward(retain_graph=True)
        kept.append(live_saved_bytes() - baseline)
    assert fresh[0] == fresh[1] == fresh[2] > 0
    assert kept[0] < kept[1] < kept[2]


# -- figures ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(figures.SCENARIOS))
def test_committed_figure_is_up_to_date(name):
    committed = ROOT / "figures" / f"{name}.dot"
    assert committed.exists(), f"run `make figures` to create figures/{name}.dot"
    assert figures.SCENARIOS[name]().source == committed.read_text(encoding="utf-8"), \
        f"figures/{name}.dot is out of date: run `make figures` and commit the result"
    for suffix in (".svg", ".png"):
        assert (ROOT / "figures" / f"{name}{suffix}").stat().st_size > 1000


def _same(a, b):
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def test_parity_scenarios_give_the_same_records_while_the_view_watches_every_step():
    """Re-run every engine parity scenario with a view that snapshots and draws the graph at
    every node the engine runs: outcomes, messages, grads and buffer states must not move."""
    import scenarios as S
    looked = []

    def look(event):
        if isinstance(event, al.autograd.graph.NodeStarted):
            snap = viz.take_snapshot([event.node])
            viz.snapshot_dot(snap)
            viz.ledger(snap)
            looked.append(len(snap.nodes))

    for scenario in S.SCENARIOS:
        plain = S.run(scenario, al).entries
        with al.autograd.graph.observe(look):
            watched = S.run(scenario, al).entries
        assert _same(plain, watched), f"looking changed {scenario.__name__}"
    assert len(looked) > 100


def test_ledger_of_a_graph_without_saves_says_whether_it_can_run_again(torch):
    """No saved tensor: the graph runs again, unless it holds a CopySlices, which a backward
    releases all the same (torch's second backward raises)."""
    from autograd_lesson import viz
    for lib in (al, torch):
        a = lib.ones(2, requires_grad=True)
        buf = lib.zeros(2, 2)
        buf[:, 0] = a
        sliced = buf.sum()
        plain = (a + 1).sum()
        assert "a CopySlices" in viz.ledger(viz.take_snapshot([sliced]))
        assert "can be backpropagated again" in viz.ledger(viz.take_snapshot([plain]))
        sliced.backward()
        plain.backward()
        plain.backward()  # runs again
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            sliced.backward()


@pytest.mark.parametrize("build", [
    lambda: viz.GraphView(None, None), lambda: viz.GlanceView("digraph {}", None),
    lambda: StepThrough(5), lambda: StepThrough("abc"), lambda: StepThrough([1, 2])])
def test_a_view_built_from_nothing_says_what_to_pass(build):
    """A GraphView of no source and a step-through of things that are not frames: one line
    that says what to pass (a repr that raised inside, an AttributeError on frame.text once)."""
    with pytest.raises(TypeError) as info:
        repr(build())
    message = str(info.value)
    assert "\n" not in message and ("viz.graph_view" in message or "viz.record" in message)


def test_a_step_through_never_folds_a_node_that_runs():
    """Every node of a long chain runs; the step-through folded all but the loss into one
    box (ResNet-18: 131 of 132), so no frame showed the node it was about. Now a node that
    runs is drawn, and a frame too large for the screen is a window around it."""
    x = al.tensor([0.5, -1.0], requires_grad=True)
    h = x
    for _ in range(40):
        h = (h * 0.9).tanh()
    loss = h.sum()
    recording = viz.record(lambda: loss.backward(), roots=[loss], names={"loss": loss},
                           frames=True)
    steps = StepThrough(recording.frames)
    folded, groups = steps._layout(0, True)[0]
    assert len(recording.frames) == 82 and not {f.node_id for f in recording.frames} & set(folded)
    svg = steps.frame_svg(40)
    assert f"#{steps.frames[40].node_id} " in svg and "running now" in svg
