"""The claims of notebooks/08_memory.ipynb, checked in autograd_lesson and in torch.

Memory is measured the PyTorch way in both libraries: a ``saved_tensors_hooks`` meter whose boxes
hold ``t.detach()`` and are counted through weak references, each storage once, with a
weak-reference callback that keeps the peak (``scenarios.PeakMeter``). In autograd_lesson the
meter must also agree with ``live_saved_bytes()``, which the notebook uses (with
``track_saved_bytes()`` for the peaks).
Bytes depend only on shapes and dtypes (float32, as in the notebook); gradients are compared in
float64. The last tests tie the notebook's committed tables to the numbers torch gives here.
"""
import contextlib
import gc
import json
import pathlib
import weakref

import numpy as np
import pytest

import autograd_lesson as al
import scenarios as S
from autograd_lesson.viz.timeline import live_saved_bytes, timeline_text

pytestmark = pytest.mark.parity
NOTEBOOK = pathlib.Path(__file__).parent.parent / "notebooks" / "08_memory.ipynb"
FREED = ("Trying to backward through the graph a second time (or directly access saved tensors "
         "after they have already been freed).")
STEPS, BATCH, HIDDEN = 6, 32, 64
GRAPH = 9_984          # one training step's saved bytes (the notebook's ledger)
PER_EXTRA_GRAPH = 9_728  # the second layer's weight view shares the parameter: counted once


class _Box:
    def __init__(self, t, key, nbytes):
        self.t, self.key, self.nbytes = t.detach(), key, nbytes


class Meter(S.PeakMeter):
    """Saved storages alive through pack hooks (weakly held boxes), and their peak.

    In autograd_lesson it must agree with ``live_saved_bytes()``, which the notebook uses."""

    def __init__(self, lib):
        super().__init__(lib)
        self.baseline = 0
        if lib is al:
            gc.collect()  # graphs other tests left in cycles must not be freed while we count
            self.baseline = live_saved_bytes()

    def hooks(self):
        return self

    @property
    def refs(self):
        return list(self._refs)  # weak references to the boxes not yet released

    def __call__(self):
        if self.lib is al:  # the notebook's meter must read the same
            assert live_saved_bytes() - self.baseline == self.current
        return self.current


def error_of(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001  (the outcome is what is tested)
        return exc
    return None


def init(lib, module, seed, dtype):
    rs = np.random.RandomState(seed)
    with lib.no_grad():
        for p in module.parameters():
            p.copy_(lib.tensor(rs.uniform(-0.3, 0.3, tuple(p.shape)), dtype=dtype))
    return module


def data(lib, seed, shapes, dtype):
    rs = np.random.RandomState(seed)
    return [lib.tensor(rs.randn(*shape), dtype=dtype) for shape in shapes]


# -- experiment 1: a training loop ------------------------------------------------------------
def train(lib, accumulate, retain=True, steps=STEPS, drop=False):
    """The notebook's ``train`` (``train_del`` with ``drop``): bytes alive after each iteration,
    the peak during each, and the total."""
    model = init(lib, lib.nn.Sequential(lib.nn.Linear(10, 64), lib.nn.ReLU(), lib.nn.Linear(64, 1)),
                 1, lib.float32)
    batches = data(lib, 0, [(BATCH, 10), (BATCH, 1)] * steps, lib.float32)
    optimizer = lib.optim.SGD(model.parameters(), lr=0.01)
    meter, total, alive, peaks = Meter(lib), 0.0, [], []
    with meter.hooks():
        for x, y in zip(batches[::2], batches[1::2]):
            optimizer.zero_grad()
            loss = lib.nn.functional.mse_loss(model(x), y)
            loss.backward(retain_graph=retain)
            optimizer.step()
            total = total + (loss.item() if accumulate == "item" else loss)
            if drop:
                del loss
            alive.append(meter())
            peaks.append(meter.peak)  # (counted by the pack hooks alone, from 0)
            meter.reset_peak()
    return alive, peaks, total


def test_retain_with_fresh_forward_stays_at_one_graph(torch):
    for lib in (al, torch):
        assert train(lib, "item")[0] == [GRAPH] * STEPS


def test_a_final_retain_nearly_doubles_the_peak(torch):
    """The old graph lives until ``loss = ...`` rebinds the name, after the new forward saved
    its buffers: two graphs at the peak, minus the weight view they share."""
    for lib in (al, torch):
        assert train(lib, "item")[1] == [GRAPH] + [GRAPH + PER_EXTRA_GRAPH] * (STEPS - 1)
        assert train(lib, "item", retain=False)[1] == [GRAPH] * STEPS
    assert GRAPH + PER_EXTRA_GRAPH == 19_712


def test_exercise_3_del_loss_keeps_the_peak_at_one_graph(torch):
    for lib in (al, torch):
        alive, peaks, _ = train(lib, "item", drop=True)
        assert peaks == [GRAPH] * STEPS and alive == [0] * STEPS


def test_total_plus_loss_keeps_every_graph(torch):
    expected = [GRAPH + PER_EXTRA_GRAPH * i for i in range(STEPS)]
    for lib in (al, torch):
        assert train(lib, "tensor")[0] == expected


def test_dropping_the_last_reference_frees_a_retained_graph(torch):
    for lib in (al, torch):
        meter = Meter(lib)
        model = init(lib, lib.nn.Sequential(lib.nn.Linear(10, 64), lib.nn.ReLU(),
                                            lib.nn.Linear(64, 1)), 1, lib.float32)
        x, y = data(lib, 0, [(BATCH, 10), (BATCH, 1)], lib.float32)
        with meter.hooks():
            loss = lib.nn.functional.mse_loss(model(x), y)
        assert meter() == GRAPH and len(meter.refs) == 6
        per_pack = sum(r().t.numel() * r().t.element_size() for r in meter.refs)
        assert per_pack == 18_176  # counted per pack: the ReLU output twice
        loss.backward(retain_graph=True)
        assert meter() == GRAPH
        del loss
        assert meter() == 0


def test_exercise_1_no_retain_frees_buffers_even_when_total_holds_the_graph(torch):
    for lib in (al, torch):
        alive, _, total = train(lib, "tensor", retain=False, steps=3)
        assert alive == [0, 0, 0]
        assert str(error_of(total.backward)).startswith(FREED)


# -- experiment 2: a recurrent loop --------------------------------------------------------------
class Rnn:
    """The notebook's four strategies for one library, measured at each step and backward."""

    def __init__(self, lib, dtype, count_nodes=False):
        self.lib, self.F = lib, lib.nn.functional
        self.cell = init(lib, lib.nn.RNNCell(8, HIDDEN, dtype=dtype), 2, dtype)
        self.head = init(lib, lib.nn.Linear(HIDDEN, 1, dtype=dtype), 3, dtype)
        self.xs = data(lib, 4, [(BATCH, 8)] * STEPS, dtype)
        self.ys = data(lib, 5, [(BATCH, 1)] * STEPS, dtype)
        self.dtype, self.meter = dtype, None if count_nodes else Meter(lib)
        self.peaks, self.nodes, self.count_nodes = [], [], count_nodes
        self._hooked = []  # nodes with a counting pre-hook (kept alive: only when counting)

    def zeros(self):
        return self.lib.zeros(BATCH, HIDDEN, dtype=self.dtype)

    def backward(self, loss, retain=False):
        if self.count_nodes:
            self._hook(loss.grad_fn)
            self.nodes.append(0)
        else:
            self.peaks.append(self.meter())
        loss.backward(retain_graph=retain)

    def _hook(self, root):
        stack = [root]
        while stack:
            node = stack.pop()
            if node is None or any(node is n for n in self._hooked):
                continue
            self._hooked.append(node)
            node.register_prehook(self._count)
            stack.extend(n for n, _ in node.next_functions)

    def _count(self, grad_outputs):
        self.nodes[-1] += 1

    def loss(self, h, y):
        return self.F.mse_loss(self.head(h), y)

    def run(self, strategy):
        alive = []
        with contextlib.nullcontext() if self.count_nodes else self.meter.hooks():
            getattr(self, strategy)(lambda: alive.append(0 if self.count_nodes else self.meter()))
        params = [*self.cell.parameters(), *self.head.parameters()]
        return alive, [np.asarray(p.grad.detach().numpy(), dtype=np.float64) for p in params]

    def per_step_retain(self, measure):
        h = self.zeros()
        for x, y in zip(self.xs, self.ys):
            h = self.cell(x, h)
            self.backward(self.loss(h, y), retain=True)
            measure()

    def sum_of_losses(self, measure):
        h, total = self.zeros(), 0
        for t, (x, y) in enumerate(zip(self.xs, self.ys)):
            h = self.cell(x, h)
            total = total + self.loss(h, y)
            if t == STEPS - 1:
                self.backward(total)
            measure()

    def truncated(self, measure):
        h = self.zeros()
        for x, y in zip(self.xs, self.ys):
            h = self.cell(x, h.detach())
            self.backward(self.loss(h, y))
            measure()

    def recompute(self, measure):
        for t in range(STEPS):
            h = self.zeros()
            for x in self.xs[: t + 1]:
                h = self.cell(x, h)
            self.backward(self.loss(h, self.ys[t]))
            measure()


STRATEGIES = ("per_step_retain", "sum_of_losses", "truncated", "recompute")
EXPECTED_AFTER = {  # bytes alive after each time step (float32)
    "per_step_retain": [17_408, 43_008, 52_224, 61_440, 70_656, 79_872],
    "sum_of_losses": [17_920, 43_776, 53_248, 62_720, 72_192, 0],
    "truncated": [0] * STEPS,
    "recompute": [0] * STEPS,
}


@pytest.fixture(scope="module")
def rnn_results(torch):
    """strategy -> lib -> (after-step bytes, peak bytes, nodes per backward, float64 grads)."""
    results = {}
    for strategy in STRATEGIES:
        results[strategy] = {}
        for lib in (al, torch):
            memory = Rnn(lib, lib.float32)
            alive, _ = memory.run(strategy)
            assert memory.meter() == 0, strategy  # all freed once the strategy's h is dropped
            counting = Rnn(lib, lib.float64, count_nodes=True)
            _, grads = counting.run(strategy)
            # (the pack-hook meter counts only this run's saves: other tests' live graphs,
            # the baseline, are not in its peak)
            assert memory.meter.peak == max(memory.peaks), strategy
            results[strategy][lib] = (alive, max(memory.peaks), counting.nodes, grads)
            del memory, counting  # the counting hooks keep their graphs alive (in a cycle)
    return results


def test_rnn_bytes_after_each_step(rnn_results, torch):
    for strategy, expected in EXPECTED_AFTER.items():
        assert rnn_results[strategy][al][0] == rnn_results[strategy][torch][0] == expected


def test_rnn_peaks_and_node_counts_match_torch(rnn_results, torch):
    for strategy in STRATEGIES:
        ours, theirs = rnn_results[strategy][al], rnn_results[strategy][torch]
        assert ours[1:3] == theirs[1:3]
    peaks = {s: rnn_results[s][torch][1] for s in STRATEGIES}
    assert peaks["truncated"] < min(peaks["per_step_retain"], peaks["recompute"],
                                    peaks["sum_of_losses"])


def test_retaining_costs_quadratic_backward_work(rnn_results, torch):
    nodes = {s: rnn_results[s][torch][2] for s in STRATEGIES}
    growth = np.diff(nodes["per_step_retain"])
    assert len(set(growth)) == 1 and growth[0] > 0      # call t runs a + b*t nodes
    assert nodes["recompute"] == nodes["per_step_retain"]
    assert len(set(nodes["truncated"])) == 1             # flat: one step per call
    assert sum(nodes["sum_of_losses"]) < sum(nodes["truncated"]) < sum(nodes["per_step_retain"])


def test_rnn_gradients_exact_or_truncated(rnn_results, torch):
    exact = rnn_results["sum_of_losses"][torch][3]
    for strategy in STRATEGIES:
        for lib in (al, torch):
            grads = rnn_results[strategy][lib][3]
            same = all(np.allclose(g, e, atol=1e-6) for g, e in zip(grads, exact))
            assert same is (strategy != "truncated"), (strategy, lib.__name__)


def test_exercise_2_per_step_backward_without_retain(torch):
    for lib in (al, torch):
        rnn = Rnn(lib, lib.float32)
        for detach, raises in ((False, True), (True, False)):
            steps_done = []

            def loop():
                h = rnn.zeros()
                for x, y in zip(rnn.xs, rnn.ys):
                    h = rnn.cell(x, h.detach() if detach else h)
                    rnn.loss(h, y).backward()
                    steps_done.append(1)

            error = error_of(loop)
            assert (error is not None) is raises
            if raises:
                assert str(error).startswith(FREED) and len(steps_done) == 1  # fails at step 1


# -- the pack-hook pitfall -------------------------------------------------------------------
def boxes_left(lib, keep_tensor_itself, retain=True):
    refs = []

    def pack(t):
        box = _Box(t, None, 0)
        if keep_tensor_itself:
            box.t = t
        refs.append(weakref.ref(box))
        return box

    rs = np.random.RandomState(6)
    w = lib.tensor(rs.randn(4, 3), requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(pack, lambda box: box.t):
        for _ in range(3):
            lib.relu(lib.tensor(rs.randn(2, 4)) @ w).sum().backward(retain_graph=retain)
    del w
    return sum(r() is not None for r in refs), len(refs)


def test_box_holding_the_tensor_leaks_in_torch_even_after_gc(torch):
    assert boxes_left(torch, True) == (6, 6)
    gc.collect()
    assert boxes_left(torch, True) == (6, 6)
    gc.collect()
    assert boxes_left(torch, False) == (0, 6)
    assert boxes_left(torch, True, retain=False) == (0, 6)


def test_box_holding_the_tensor_leaks_by_refcount_in_autograd_lesson():
    """Without the cycle collector, the same numbers as torch. With it, this pure-Python mirror
    frees the cycle, which torch cannot (a documented difference, stated in the notebook)."""
    gc.disable()
    try:
        assert boxes_left(al, True) == (6, 6)
        assert boxes_left(al, False) == (0, 6)
        assert boxes_left(al, True, retain=False) == (0, 6)
    finally:
        gc.enable()
    refs = []

    def pack(t):
        box = _Box(t, None, 0)
        box.t = t
        refs.append(weakref.ref(box))
        return box

    with al.autograd.graph.saved_tensors_hooks(pack, lambda box: box.t):
        al.relu(al.ones(2, 4) @ al.ones(4, 3, requires_grad=True)).sum().backward(retain_graph=True)
    gc.collect()
    assert sum(r() is not None for r in refs) == 0


# -- the notebook prints what torch says -------------------------------------------------------
def notebook_text():
    nb = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    return "".join("".join(o.get("text", "")) for c in nb["cells"] if c["cell_type"] == "code"
                   for o in c.get("outputs", []))


def test_notebook_tables_are_torchs(rnn_results, torch):
    text = notebook_text()
    loop = {"retain, total += loss.item()": train(torch, "item")[0],
            "retain, total = total + loss": train(torch, "tensor")[0]}
    assert timeline_text(loop) in text
    peaks = {"retain, total += loss.item()": train(torch, "item")[1],
             "no retain, total += loss.item()": train(torch, "item", retain=False)[1]}
    assert timeline_text(peaks, what="peak saved-buffer bytes during each iteration") in text
    assert "✓ correct: the peak of each iteration is [9984, 9984, 9984, 9984, 9984, 9984]." in text
    assert "with loss:      9,984 B\nafter del loss: 0 B" in text
    names = {"per_step_retain": "(a) backward each step, retain",
             "sum_of_losses": "(b) sum of losses, one backward",
             "truncated": "(c) detach state (truncated BPTT)",
             "recompute": "(d) recompute per loss, no retain"}
    assert timeline_text({names[s]: rnn_results[s][torch][0] for s in STRATEGIES}) in text
    for strategy, name in names.items():
        alive, peak, nodes, _ = rnn_results[strategy][torch]
        gradient = "truncated (differs)" if strategy == "truncated" else "exact"
        assert f"{name:<36}{peak:>9,}{alive[-1]:>9,}{sum(nodes):>7}  {gradient}" in text
    assert "packed 6 tensors; alive (boxes, bytes): (6, 18176); live_saved_bytes(): 9,984" in text
    assert "box holds t:          6 of 6 boxes still alive" in text
    assert "box holds t.detach(): 0 of 6 boxes still alive" in text
