"""Lesson 07 (conditional paths): ``res.mean().backward(retain_graph=True)`` only if a condition
holds, then ``final_loss.backward()``.

What the lesson claims, checked in autograd_lesson and in real PyTorch: retain is needed only
when the branch runs; the final (non-retained) backward frees everything either way; putting
``retain_graph=True`` on the final backward keeps the buffers until the graph is dropped, so the
next step's peak holds two graphs; one backward of the summed loss gives the same grads with no
retain at all. Memory is counted in both libraries by ``scenarios.PeakMeter`` (pack hooks, each
storage once), and the notebook's tables are compared with torch's numbers.
"""
import json
import pathlib

import nbformat
import numpy as np
import pytest

import autograd_lesson
import scenarios as S
from autograd_lesson.viz.timeline import timeline_text

NOTEBOOK = pathlib.Path(__file__).parent.parent / "notebooks" / "07_conditional_paths.ipynb"


def make_model(lib, layers):
    """The seed's Linear(4,5)-Tanh (layers=1) or the lesson's Linear(4,8)-Tanh-Linear(8,5)-Tanh."""
    if layers == 1:
        return lib.nn.Sequential(S.linear(lib, 4, 5, 62), lib.nn.Tanh())
    nn = lib.nn
    layers = [nn.Linear(4, 8, dtype=lib.float64), nn.Tanh(), nn.Linear(8, 5, dtype=lib.float64),
              nn.Tanh()]
    return S.init_params(lib, nn.Sequential(*layers), 62)


def make_graph(lib, layers=2):
    model = make_model(lib, layers)
    x, weights = S.randn(lib, 60, 2, 4), S.randn(lib, 61, 2, 5)
    return model, x, weights, model(x)


def seed_pattern(lib, condition, retain=True, retain_final=False, layers=2):
    """The article's code; returns (model, error of the final backward or None, res, final_loss)."""
    model, x, weights, res = make_graph(lib, layers)
    if condition:
        res.mean().backward(retain_graph=retain)
    final_loss = (res * weights).sum()
    try:
        final_loss.backward(retain_graph=retain_final)
    except RuntimeError as error:
        return model, str(error), res, final_loss
    return model, None, res, final_loss


def grads(model):
    return [S.as_array(p.grad) for p in model.parameters()]


def slot_states(lib, roots):
    return {f"#{i} {n.name()}.{slot}": S._read_slot(n, slot)
            for i, n in enumerate(S.walk(roots)[0]) for slot in S._slot_names(lib, n)
            if S._read_slot(n, slot) != "none"}


@pytest.mark.parametrize("layers", [1, 2])
def test_naive_fails_only_when_the_branch_runs(lib, layers):
    assert seed_pattern(lib, condition=False, retain=False, layers=layers)[1] is None
    assert seed_pattern(lib, condition=True, retain=False, layers=layers)[1] == S.FREED


def test_naive_branch_backward_frees_the_models_saves(lib):
    """Seed model: ``res.mean().backward()`` frees AddmmBackward0.mat1 and TanhBackward0.result."""
    _, x, _, res = make_graph(lib, layers=1)
    res.mean().backward()
    states = slot_states(lib, [res])
    assert sorted(k.split(" ")[1] for k in states) == ["AddmmBackward0.mat1",
                                                        "TanhBackward0.result"]
    assert set(states.values()) == {"freed"}


def test_retain_in_the_branch_works_and_the_final_backward_frees_everything(lib):
    for condition in (True, False):
        _, error, res, final_loss = seed_pattern(lib, condition)
        assert error is None
        assert set(slot_states(lib, [final_loss]).values()) == {"freed"}


def test_retain_on_the_final_backward_keeps_buffers_until_the_graph_is_dropped(lib):
    pack, unpack, count = S._box_hooks()
    with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
        _, error, res, final_loss = seed_pattern(lib, condition=False, retain_final=True)
    assert error is None
    assert count() == 6  # x, hidden (twice: Tanh result and Addmm input), W2.t(), res, weights
    del res, final_loss
    assert count() == 0
    with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
        _, _, res, final_loss = seed_pattern(lib, condition=True)
    assert count() == 0  # the final backward released everything, although the branch retained


@pytest.mark.parametrize("condition", [True, False])
def test_one_summed_backward_gives_the_same_grads(lib, condition):
    model, error, _, _ = seed_pattern(lib, condition)
    assert error is None
    expected = grads(model)
    model, _, weights, res = make_graph(lib)
    loss = (res * weights).sum()
    if condition:
        loss = loss + res.mean()
    loss.backward()
    for a, b in zip(grads(model), expected):
        np.testing.assert_allclose(a, b, atol=1e-6)


@pytest.mark.parity
def test_grads_match_torch(torch):
    results = [grads(seed_pattern(lib, True)[0]) for lib in (autograd_lesson, torch)]
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, atol=1e-6)


def test_frozen_first_layer_changes_what_the_branch_frees(lib):
    """Exercise 1: with layer 1 frozen, layer 2's input needs no grad, so W2.t() is not saved."""
    model, x, _, _ = make_graph(lib)
    model[0].requires_grad_(False)
    res = model(x)
    res.mean().backward()
    states = slot_states(lib, [res])
    assert sorted(k.split(" ")[1] for k in states) == ["AddmmBackward0.mat1",
                                                        "TanhBackward0.result"]
    assert set(states.values()) == {"freed"}


def test_a_branch_loss_that_saves_nothing_still_frees_the_model(lib):
    """Exercise 2a: ``res.sum()`` saves nothing, but its backward runs (and frees) the model."""
    _, _, weights, res = make_graph(lib)
    res.sum().backward()
    final_loss = (res * weights).sum()
    with pytest.raises(RuntimeError) as info:
        final_loss.backward()
    assert str(info.value) == S.FREED


def test_a_fresh_forward_needs_no_retain(lib):
    """Exercise 2b: the naive branch, then a final loss from a new forward pass."""
    model, x, weights, res = make_graph(lib)
    res.mean().backward()
    (model(x) * weights).sum().backward()
    assert all(p.grad is not None for p in model.parameters())


def nodes_run(lib, record, label, root, fn):
    record.graph(root)(label, fn, count_nodes=True)
    executed = record.entries[-1]["executed"]
    return sum(executed.values()), record.entries[-1]["outcome"][0]


def test_node_counts_the_notebook_prints(lib):
    """12 nodes for the final backward alone, 11 for the branch; the naive final backward fails
    after SumBackward0, MulBackward0 and the last TanhBackward0; article vs one backward: 23 vs
    14 node runs when the branch runs, 12 vs 13 when it does not."""
    record = S.Recorder(lib)
    _, _, weights, res = make_graph(lib)
    final_loss = (res * weights).sum()
    assert nodes_run(lib, record, "final", final_loss, final_loss.backward) == (12, "ok")
    model, _, weights, res = make_graph(lib)
    branch = res.mean()
    assert nodes_run(lib, record, "branch", branch, branch.backward) == (11, "ok")
    final_loss = (res * weights).sum()
    assert nodes_run(lib, record, "naive", final_loss, final_loss.backward) == (3, "RuntimeError")
    assert all(p.grad is not None for p in model.parameters())  # the branch's gradient
    for condition, article, summed in ((True, 23, 14), (False, 12, 13)):
        record = S.Recorder(lib)
        _, _, weights, res = make_graph(lib)
        runs = 0
        if condition:
            branch = res.mean()
            runs += nodes_run(lib, record, "b", branch, lambda: branch.backward(retain_graph=True))[0]
        final_loss = (res * weights).sum()
        runs += nodes_run(lib, record, "f", final_loss, final_loss.backward)[0]
        _, _, weights, res = make_graph(lib)
        loss = (res * weights).sum() + (res.mean() if condition else 0)
        assert (runs, nodes_run(lib, record, "one", loss, loss.backward)[0]) == (article, summed)


# -- the loop: bytes after each step and the peak during it --------------------------------------
VARIANTS = {  # the notebook's rows: (retain_final, log)
    "retain in the branch only": (False, False),
    "retain on the final backward too": (True, False),
    "final retain + logging the tensor": (True, True),
    "logging the tensor, no final retain": (False, True),
}
AFTER = {"retain in the branch only": [0] * 6,
         "retain on the final backward too": [336] * 6,
         "final retain + logging the tensor": [336, 512, 688, 864, 1_040, 1_216],
         "logging the tensor, no final retain": [0] * 6}
PEAK = {"retain in the branch only": [336] * 6,
        "retain on the final backward too": [336] + [512] * 5,   # the old graph + 176 B of the new
        "final retain + logging the tensor": [336, 512, 688, 864, 1_040, 1_216],
        "logging the tensor, no final retain": [336] * 6}


def loop_bytes(lib):
    runs = {name: S.PeakMeter(lib).per_step(S.conditional_loop, *args)
            for name, args in VARIANTS.items()}
    return ({name: a for name, (a, _) in runs.items()}, {name: p for name, (_, p) in runs.items()})


def test_loop_bytes_after_each_step_and_peak(lib):
    after, peak = loop_bytes(lib)
    assert after == AFTER
    assert peak == PEAK


def test_a_final_retain_raises_the_peak_by_the_new_graphs_own_storages(lib):
    """The old graph (336 B) is alive while the next forward builds the new one; the two share
    only model.2.weight's storage (8 x 5 float32 = 160 B): 336 + (336 - 160) = 512."""
    peaks = {}
    for steps, retain in ((1, True), (2, True), (2, False)):
        with S.PeakMeter(lib) as mem:
            S.conditional_loop(lib, retain_final=retain, steps=steps)
        peaks[steps, retain] = mem.peak
    assert peaks[1, True] == peaks[2, False] == 336
    assert peaks[2, True] == 336 + 336 - 8 * 5 * 4 == 512


def test_notebook_tables_are_torchs(torch):
    after, peak = loop_bytes(torch)
    text = notebook_text()
    assert timeline_text(after) in text
    assert timeline_text(peak, what="peak saved-buffer bytes during each step") in text
    assert "✓ final_loss.backward() ran 12 nodes" in text


def notebook_text():
    nb = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    return "".join("".join(o.get("text", "")) for c in nb["cells"] if c["cell_type"] == "code"
                   for o in c.get("outputs", []))


def test_the_flat_line_is_named_by_its_legend_label(torch):
    """30763a69 names the flat line by its label: the plot's legend carries that label, and in
    torch that run's bytes after each step are flat (one graph) while the logged run grows."""
    from autograd_lesson.viz.timeline import plot_timeline
    after, _ = loop_bytes(torch)
    fig = plot_timeline(after, title="Saved-buffer bytes alive after each training step")
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert "retain on the final backward too" in labels
    assert len(set(after["retain on the final backward too"])) == 1
    assert after["final retain + logging the tensor"] == sorted(set(after["final retain + logging the tensor"]))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    text = next(c.source for c in nb.cells if c.get("id") == "30763a69")
    assert "flat line labelled *retain on the final backward too*" in text and "orange" not in text


# -- the optional "on real PyTorch" cell ---------------------------------------------------------
@pytest.mark.parity
def test_on_real_torch_cell_prints_the_same_text_from_both_engines(torch):
    import on_torch_cells
    theirs, ours = on_torch_cells.texts(torch, "07")
    assert theirs == ours
    assert theirs.count("  retained: ") == 5 and "unchanged: 1 buffer" in theirs
    assert "ran 11 nodes" in theirs
    assert "autograd_lesson printed the same text: True" in on_torch_cells.stored_text("07")
