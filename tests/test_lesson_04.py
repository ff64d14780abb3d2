"""What notebooks/04_rnn.ipynb teaches, checked in autograd_lesson and PyTorch 2.13.

Seed 000 ex4: ``output, hidden = rnn_cell(input[t], hidden); loss.backward(retain_graph=True)``.
Contradicted or missing in the seed, and asserted here in both libraries: the literal code
fails with nn.RNNCell; backward #t runs 9 + 6t graph nodes (+ 6 AccumulateGrad), counted with
pre-hooks on every reachable node, so the total is quadratic; the retained history grows while
truncated BPTT stays flat; optimizer.step() inside the loop fails at t=2 (not t=1); a hidden
state carried across batches without detach fails at the second batch; per-step grads equal the
single backward of the summed loss.
"""
import weakref

import numpy as np
import pytest

import autograd_lesson
import scenarios
from scenarios import _read_slot as read_slot, walk

FREED = ("Trying to backward through the graph a second time (or directly access saved tensors "
         "after they have already been freed).")
AS_STRIDED = ("one of the variables needed for gradient computation has been modified by an "
              "inplace operation: [torch.FloatTensor [4, 4]], which is output 0 of AsStrided, is "
              "at version {now}; expected version {saved} instead. Hint: enable anomaly detection "
              "to find the operation that failed to compute its gradient, with "
              "torch.autograd.set_detect_anomaly(True, check_nan=False).")
T = 5


# -- building blocks, identical for both libraries ----------------------------------------------
class CellWithReadout:
    """The cell the seed assumes: ``out, h = cell(x, h)`` = RNNCell(3, 4) + Linear(4, 2) readout.

    ``deterministic=True`` (default) overwrites the parameters from a RandomState in float64;
    ``deterministic=False`` keeps the libraries' own float32 init, so parameter versions start at
    1 exactly as in the notebook (values then differ between libraries, versions do not).
    """

    def __init__(self, lib, deterministic=True, seed=0):
        dtype = lib.float64 if deterministic else lib.float32
        self.cell = lib.nn.RNNCell(3, 4, dtype=dtype)
        self.readout = lib.nn.Linear(4, 2, dtype=dtype)
        if deterministic:
            rs = np.random.RandomState(seed)
            with lib.no_grad():
                for p in self.parameters():
                    p.copy_(lib.tensor(rs.uniform(-0.5, 0.5, tuple(p.shape)), dtype=dtype))
        data = np.random.RandomState(seed + 1)
        # one tensor per step, as in the notebook (a saved x_t then holds only its own storage)
        self.inputs = [lib.tensor(x, dtype=dtype) for x in data.randn(20, 2, 3)]
        self.targets = [lib.tensor(y, dtype=dtype) for y in data.randn(20, 2, 2)]
        self.criterion = lib.nn.MSELoss()
        self.lib, self.dtype = lib, dtype

    def __call__(self, x, h):
        h = self.cell(x, h)
        return self.readout(h), h

    def named_parameters(self):
        return [(f"cell.{n}", p) for n, p in self.cell.named_parameters()] + \
               [(f"readout.{n}", p) for n, p in self.readout.named_parameters()]

    def parameters(self):
        return [p for _, p in self.named_parameters()]

    def zero_grad(self):
        for p in self.parameters():
            p.grad = None

    def h_init(self):
        return self.lib.zeros(2, 4, dtype=self.dtype)

    def step(self, t, hidden):
        output, hidden = self(self.inputs[t], hidden)
        return hidden, self.criterion(output, self.targets[t])

    def grads(self):
        return {n: np.array(p.grad.detach().numpy(), dtype=np.float64)
                for n, p in self.named_parameters()}


def nodes(*roots):
    """Every node reachable from the roots' grad_fn (BFS in next_functions order)."""
    return walk(roots)[0]


state = read_slot  # 'alive', 'none' (save skipped) or 'freed', read through _saved_<slot>


class NodeCounter:
    """Counts executions of every node reachable from the roots, with node pre-hooks
    (PyTorch runs them for AccumulateGrad too). ``add`` hooks the nodes new since last time."""

    def __init__(self):
        self.graph = self.leaves = 0
        self._hooked = []  # keep the nodes so their ids stay unique

    def add(self, *roots):
        for node in nodes(*roots):
            if not any(node is seen for seen in self._hooked):
                self._hooked.append(node)
                node.register_prehook(self._hook(type(node).__name__ == "AccumulateGrad"))

    def _hook(self, is_leaf):
        def hook(grad_outputs):
            if is_leaf:
                self.leaves += 1
            else:
                self.graph += 1
        return hook

    def run(self, call):
        self.graph = self.leaves = 0
        call()
        return self.graph, self.leaves


def per_step_counts(lib, steps, detach=False):
    """The seed's loop (retain) or truncated BPTT; (graph nodes, AccumulateGrad) per backward."""
    model, counter, counts = CellWithReadout(lib), NodeCounter(), []
    hidden = model.h_init()
    for t in range(steps):
        hidden, loss = model.step(t, hidden.detach() if detach else hidden)
        counter.add(loss)
        counts.append(counter.run(lambda: loss.backward(retain_graph=not detach)))
    return counts


def error_of(call):
    try:
        call()
    except Exception as error:  # noqa: BLE001  (the outcome is the point)
        return type(error).__name__, str(error)
    return None


# -- the literal seed code -------------------------------------------------------------------
@pytest.mark.parametrize("batch, expected", [
    (3, ("ValueError", "too many values to unpack (expected 2)")),
    (1, ("ValueError", "not enough values to unpack (expected 2, got 1)")),
    (2, ("RuntimeError", "Input batch size 2 doesn't match hidden0 batch size 4"))])
def test_literal_seed_loop_with_rnncell_fails(lib, batch, expected):
    """nn.RNNCell returns one tensor; ``output, hidden = ...`` unpacks its rows."""
    rnn_cell, criterion = lib.nn.RNNCell(3, 4), lib.nn.MSELoss()
    inputs, target = lib.randn(3, batch, 3), lib.randn(3, 4)

    def seed_loop(hidden):
        for t in range(len(inputs)):
            output, hidden = rnn_cell(inputs[t], hidden)
            loss = criterion(output, target[t])
            loss.backward(retain_graph=True)

    assert not isinstance(rnn_cell(inputs[0], lib.zeros(batch, 4)), tuple)
    assert error_of(lambda: seed_loop(lib.zeros(batch, 4))) == expected


def test_rnncell_graph_is_torchs(lib):
    """One step: TBackward0 → AddmmBackward0 (W_hh), TBackward0 → AddmmBackward0 (W_ih),
    AddBackward0, TanhBackward0, in creation order; step 0 saves no weight view, step 1 does."""
    model = CellWithReadout(lib)
    h0 = model.cell(model.inputs[0], model.h_init())
    h1 = model.cell(model.inputs[1], h0)
    step1 = [n for n in nodes(h1) if n not in set(nodes(h0)) and n.name() != "torch::autograd::AccumulateGrad"]
    assert [n.name() for n in sorted(step1, key=lambda n: n._sequence_nr())] == [
        "TBackward0", "AddmmBackward0", "TBackward0", "AddmmBackward0", "AddBackward0", "TanhBackward0"]
    addmms = lambda h: sorted((n for n in nodes(h) if n.name() == "AddmmBackward0"),  # noqa: E731
                              key=lambda n: n._sequence_nr())
    hh0, ih0 = addmms(h0)
    assert [state(hh0, "mat1"), state(hh0, "mat2"), state(ih0, "mat1"), state(ih0, "mat2")] == \
        ["alive", "none", "alive", "none"]
    hh1 = addmms(h1)[2]
    assert state(hh1, "mat2") == "alive" and tuple(hh1._saved_mat2.shape) == (4, 4)


def test_single_step_backward_frees_mat1s_and_tanh_result(lib):
    """Exercise 2: ``cell(x, zeros).sum().backward()`` frees the two mat1 and the tanh result."""
    model = CellWithReadout(lib)
    h0 = model.cell(model.inputs[0], model.h_init())
    graph = nodes(h0)
    slots = {"AddmmBackward0": ("mat1", "mat2"), "TanhBackward0": ("result",)}
    h0.sum().backward()
    states = sorted((n.name(), s, state(n, s)) for n in graph for s in slots.get(n.name(), ()))
    assert states == [("AddmmBackward0", "mat1", "freed"), ("AddmmBackward0", "mat1", "freed"),
                      ("AddmmBackward0", "mat2", "none"), ("AddmmBackward0", "mat2", "none"),
                      ("TanhBackward0", "result", "freed")]


# -- cost --------------------------------------------------------------------------------------
def test_naive_per_step_backward_fails_at_t1(lib):
    model = CellWithReadout(lib)
    hidden, loss0 = model.step(0, model.h_init())
    loss0.backward()
    _, loss1 = model.step(1, hidden)
    error = error_of(loss1.backward)
    assert error[0] == "RuntimeError" and error[1].startswith(FREED)
    # it failed in step 0's TanhBackward0, after running (and freeing) step 1's nodes
    tanh1, tanh0 = [n for n in nodes(loss1) if n.name() == "TanhBackward0"]
    assert state(tanh1, "result") == "freed" and state(tanh0, "result") == "freed"


def test_per_step_retain_runs_9_plus_6t_graph_nodes(lib):
    counts = per_step_counts(lib, 8)
    assert counts == [(9 + 6 * t, 6) for t in range(8)]
    assert sum(g for g, _ in counts[:T]) == 105


def test_truncated_bptt_is_flat(lib):
    assert per_step_counts(lib, 8, detach=True) == [(9, 6)] * 8


def test_summed_loss_runs_each_node_once(lib):
    model, counter = CellWithReadout(lib), NodeCounter()
    hidden, losses = model.h_init(), []
    for t in range(T):
        hidden, loss = model.step(t, hidden)
        losses.append(loss)
    total = sum(losses)
    counter.add(total)
    assert counter.run(total.backward) == (50, 6)


def test_node_started_events_match_prehook_counts():
    """The notebook counts NodeStarted events; they equal the pre-hook counts torch matches."""
    model, counter = CellWithReadout(autograd_lesson), NodeCounter()
    hidden = model.h_init()
    for t in range(T):
        hidden, loss = model.step(t, hidden)
        counter.add(loss)
        events = []
        with autograd_lesson.autograd.graph.observe(events.append):
            graph_nodes, leaves = counter.run(lambda: loss.backward(retain_graph=True))
        started = [type(e.node).__name__ for e in events
                   if isinstance(e, autograd_lesson.autograd.graph.NodeStarted)]
        assert (len(started) - started.count("AccumulateGrad"), started.count("AccumulateGrad")) \
            == (graph_nodes, leaves) == (9 + 6 * t, 6)


def test_hook_on_h_t_fires_T_minus_t_times(lib):
    model, fired = CellWithReadout(lib), [0] * T
    hidden = model.h_init()
    for t in range(T):
        hidden, loss = model.step(t, hidden)
        hidden.register_hook(lambda grad, t=t: fired.__setitem__(t, fired[t] + 1))
        loss.backward(retain_graph=True)
    assert fired == [T - t for t in range(T)]



def test_hook_on_h_t_fires_in_its_own_and_every_later_backward(lib):
    """1a9dc65f: the hook on h_t fires in backward #t (step t's own) and in each later one."""
    model, calls = CellWithReadout(lib), {t: [] for t in range(T)}
    hidden, current = model.h_init(), [None]
    for t in range(T):
        hidden, loss = model.step(t, hidden)
        hidden.register_hook(lambda grad, t=t: calls[t].append(current[0]))
        current[0] = t
        loss.backward(retain_graph=True)
    assert calls == {t: list(range(t, T)) for t in range(T)}

# -- memory ------------------------------------------------------------------------------------
def _alive_saves_per_step(lib, steps, detach):
    """saved_tensors_hooks boxes still alive after each step's backward (the previous step's
    loss graph dies when ``loss`` is reassigned; the recurrent chain stays if retained)."""
    class Box:
        def __init__(self, t):
            self.t = t.detach()  # a box holding the tensor itself would form a cycle

    boxes = []

    def pack(t):
        box = Box(t)
        boxes.append(weakref.ref(box))
        return box

    model, alive = CellWithReadout(lib), []
    hidden = model.h_init()
    with lib.autograd.graph.saved_tensors_hooks(pack, lambda box: box.t):
        for t in range(steps):
            hidden, loss = model.step(t, hidden.detach() if detach else hidden)
            loss.backward(retain_graph=not detach)
            alive.append(sum(ref() is not None for ref in boxes))
    return alive


def test_retained_history_grows_and_tbptt_stays_flat(lib):
    assert _alive_saves_per_step(lib, 6, detach=False) == [7 + 4 * t for t in range(6)]
    assert _alive_saves_per_step(lib, 6, detach=True) == [0] * 6


def _torch_bytes_per_step(torch, steps):
    """Unique storage bytes of the saved tensors still alive after each step (pack-hook boxes)."""
    boxes = []
    pack, unpack, _ = scenarios._box_hooks(live=boxes)
    model, alive = CellWithReadout(torch, deterministic=False), []
    hidden = model.h_init()
    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        for t in range(steps):
            hidden, loss = model.step(t, hidden)
            loss.backward(retain_graph=True)
            storages = {b.t.untyped_storage().data_ptr(): b.t.untyped_storage().nbytes()
                        for b in (ref() for ref in boxes) if b is not None}
            alive.append(sum(storages.values()))
    return alive


@pytest.mark.parity
def test_notebook_byte_timeline_equals_torch(torch):
    """The notebook's timeline (snapshot bytes, float32): 152 B at step 0; step 1 adds 120 B
    (W_hh view 64, tanh output 32, x_1 24); every later step 56 B (tanh output and x_t)."""
    from autograd_lesson.viz import take_snapshot
    model = CellWithReadout(autograd_lesson, deterministic=False)
    hidden, ours = model.h_init(), []
    for t in range(5):
        hidden, loss = model.step(t, hidden)
        loss.backward(retain_graph=True)
        ours.append(take_snapshot([hidden, loss]).total_bytes)
    assert ours == _torch_bytes_per_step(torch, 5) == [152, 272, 328, 384, 440]


# -- gradients ---------------------------------------------------------------------------------
def _per_step_and_summed(lib):
    model = CellWithReadout(lib)
    hidden = model.h_init()
    for t in range(T):
        hidden, loss = model.step(t, hidden)
        loss.backward(retain_graph=True)
    per_step = model.grads()
    model.zero_grad()
    hidden, losses = model.h_init(), []
    for t in range(T):
        hidden, loss = model.step(t, hidden)
        losses.append(loss)
    sum(losses).backward()
    return per_step, model.grads()


def test_per_step_grads_equal_summed_loss_grads(lib):
    per_step, summed = _per_step_and_summed(lib)
    for name in summed:
        np.testing.assert_allclose(per_step[name], summed[name], atol=1e-6, rtol=0, err_msg=name)


def test_tbptt_grads_differ_from_full_grads(lib):
    model = CellWithReadout(lib)
    hidden = model.h_init()
    for t in range(T):
        hidden, loss = model.step(t, hidden.detach())
        loss.backward()
    full, _ = _per_step_and_summed(lib)
    assert not np.allclose(model.grads()["cell.weight_hh"], full["cell.weight_hh"], atol=1e-6)
    # the readout sees no recurrence: its grads are the same either way
    np.testing.assert_allclose(model.grads()["readout.weight"], full["readout.weight"], atol=1e-12)


@pytest.mark.parity
def test_grads_equal_torch(torch):
    for ours, theirs in zip(_per_step_and_summed(autograd_lesson), _per_step_and_summed(torch)):
        for name in theirs:
            np.testing.assert_allclose(ours[name], theirs[name], atol=1e-6, rtol=0, err_msg=name)


# -- the two related errors --------------------------------------------------------------------
def _train_in_loop(lib, steps, h_init_requires_grad=False, readout_only=False, **sgd_options):
    """Per-step retain + optimizer.step(); returns the t of the first failing backward and the
    error, or (None, None). Default init: parameters start at version 1, as in the notebook."""
    model = CellWithReadout(lib, deterministic=False)
    params = model.readout.parameters() if readout_only else model.parameters()
    optimizer = lib.optim.SGD(params, lr=0.1, **sgd_options)
    hidden = model.h_init().requires_grad_(h_init_requires_grad)
    for t in range(steps):
        optimizer.zero_grad()
        hidden, loss = model.step(t, hidden)
        error = error_of(lambda: loss.backward(retain_graph=True))
        if error:
            return t, error
        optimizer.step()
    return None, None


def test_optimizer_step_in_loop_fails_at_t2_not_t1(lib):
    assert _train_in_loop(lib, 4) == (2, ("RuntimeError", AS_STRIDED.format(now=3, saved=2)))


@pytest.mark.parity
def test_optimizer_step_in_loop_raises_nothing_when_fused(torch):
    """The version error needs a step that bumps _version: foreach=True does, fused=True does
    not, and then every backward of the loop runs on silently mixed weights."""
    assert _train_in_loop(torch, 4, foreach=True) == \
        (2, ("RuntimeError", AS_STRIDED.format(now=3, saved=2)))
    assert _train_in_loop(torch, 4, fused=True) == (None, None)


def test_optimizer_step_with_learned_initial_state_fails_at_t1(lib):
    """Exercise 3(a): step 0 now saves a view of W_hh too."""
    assert _train_in_loop(lib, 4, h_init_requires_grad=True) == \
        (1, ("RuntimeError", AS_STRIDED.format(now=2, saved=1)))


def test_optimizer_over_readout_only_never_fails(lib):
    """Exercise 3(b): backward #t reaches only step t's readout, saved after the last update."""
    assert _train_in_loop(lib, 5, readout_only=True) == (None, None)


@pytest.mark.parametrize("detach", [False, True])
def test_hidden_carried_across_batches(lib, detach):
    model = CellWithReadout(lib)
    hidden, outcomes = model.h_init(), []
    for batch in range(2):
        if detach:
            hidden = hidden.detach()
        losses = []
        for t in range(3):
            hidden, loss = model.step(3 * batch + t, hidden)
            losses.append(loss)
        outcomes.append(error_of(sum(losses).backward))
    if detach:
        assert outcomes == [None, None]
    else:
        assert outcomes[0] is None and outcomes[1][0] == "RuntimeError"
        assert outcomes[1][1].startswith(FREED)


def test_the_measuring_helpers_are_package_only(lib):
    """The summary's precise claim: observe and saved_buffers() are autograd_lesson's own
    (PyTorch has neither); the PyTorch equivalents the tests use exist in both."""
    model = CellWithReadout(lib)
    _, loss = model.step(0, model.h_init())
    ours = lib is autograd_lesson
    assert hasattr(lib.autograd.graph, "observe") is ours
    assert hasattr(loss.grad_fn, "saved_buffers") is ours
    assert hasattr(lib.autograd.graph, "saved_tensors_hooks")
    assert hasattr(loss.grad_fn, "register_prehook")


# -- the optional "on real PyTorch" cell ---------------------------------------------------------
@pytest.mark.parity
def test_on_real_torch_cell_prints_the_same_text_from_both_engines(torch):
    import on_torch_cells
    theirs, ours = on_torch_cells.texts(torch, "04")
    assert theirs == ours
    assert theirs.count("  retained: ") == 15 and "unchanged: 8 buffers" in theirs
    assert "ran 24 nodes" in theirs
    assert "autograd_lesson printed the same text: True" in on_torch_cells.stored_text("04")
