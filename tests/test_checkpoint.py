"""``torch.utils.checkpoint.checkpoint`` and ``autograd.graph.save_on_cpu`` against PyTorch 2.13.

Every parity case runs the same function with both libraries and compares what it observes:
which tensors an outer ``saved_tensors_hooks`` sees packed (shapes, in order), node names,
how often the checkpointed function runs and when, values, gradients, warnings and errors.
"""
import gc
import warnings

import numpy as np
import pytest

import autograd_lesson as al
from autograd_lesson.viz.timeline import live_saved_bytes
from scenarios import FREED, _box_hooks, _plain, mlp, randn, walk


def same(a, b):
    """Equal, with float arrays compared to 1e-10 (float64 inputs throughout)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.shape(a) == np.shape(b) and np.allclose(a, b, rtol=1e-10, atol=1e-12)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def assert_parity(torch, case):
    ours, theirs = _plain(case(al)), _plain(case(torch))
    assert same(ours, theirs), (ours, theirs)


def outcome(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001  (the type and message are what we compare)
        return type(exc).__name__, str(exc)
    return "ok"


class Region:
    """``f(x, w1) = tanh(relu(x @ w1))``, counting its calls; ``w2`` is used after it."""

    def __init__(self, lib, seed=0):
        self.lib, self.calls = lib, 0
        self.x = randn(lib, seed, 4, 3, requires_grad=True)
        self.w1 = randn(lib, seed + 1, 3, 5, requires_grad=True)
        self.w2 = randn(lib, seed + 2, 5, 2, requires_grad=True)

    def f(self, x, w1):
        self.calls += 1
        return (x @ w1).relu().tanh()

    def loss(self, **kw):
        h = self.lib.utils.checkpoint.checkpoint(self.f, self.x, self.w1, **kw)
        return (h @ self.w2).sum()

    def grads(self):
        return [None if t.grad is None else t.grad.clone() for t in (self.x, self.w1, self.w2)]


def counting_hooks(shapes):
    def pack(t):
        shapes.append(tuple(t.shape))
        return t
    return pack, lambda t: t


# -- use_reentrant=False ------------------------------------------------------------------------
@pytest.mark.parity
def test_outer_hooks_see_only_the_inputs(torch):
    def case(lib):
        r, shapes = Region(lib), []
        with lib.autograd.graph.saved_tensors_hooks(*counting_hooks(shapes)):
            loss = r.loss(use_reentrant=False)
            forward = list(shapes)
            loss.backward()
        return forward, shapes, r.calls
    assert_parity(torch, case)
    # x and w1 (the checkpoint's inputs), then w2 and h (saved by the mm after it); nothing
    # during the backward's recomputation
    assert case(al) == ([(4, 3), (3, 5), (5, 2), (4, 5)],) * 2 + (2,)


@pytest.mark.parity
def test_ordinary_nodes_no_checkpoint_node(torch):
    def case(lib):
        loss = Region(lib).loss(use_reentrant=False)
        return [n.name() for n in walk([loss])[0]]
    assert_parity(torch, case)
    assert "CheckpointFunctionBackward" not in case(al)


@pytest.mark.parity
def test_values_and_gradients_match_the_plain_forward(torch):
    def case(lib):
        r = Region(lib)
        r.loss(use_reentrant=False).backward()
        checkpointed = r.grads()
        r.x.grad = r.w1.grad = r.w2.grad = None
        (r.f(r.x, r.w1) @ r.w2).sum().backward()
        return checkpointed, r.grads()
    assert_parity(torch, case)
    ours = case(al)
    assert all(np.allclose(a._data, b._data) for a, b in zip(*ours))


@pytest.mark.parity
def test_recomputed_once_per_backward(torch):
    def case(lib):
        r = Region(lib)
        loss = r.loss(use_reentrant=False)
        calls = [r.calls]
        for retain in (True, True, False):
            loss.backward(retain_graph=retain)
            calls.append(r.calls)
        third = outcome(loss.backward)
        return calls, third, r.calls, r.grads()
    assert_parity(torch, case)
    assert _plain(case(al))[:3] == [[1, 2, 3, 4], ["RuntimeError", FREED], 4]


@pytest.mark.parity
def test_autograd_grad_and_backward_inputs(torch):
    def case(lib):
        r = Region(lib)
        g = lib.autograd.grad(r.loss(use_reentrant=False), [r.x])
        r.loss(use_reentrant=False).backward(inputs=[r.w1])
        return g, r.grads(), r.calls
    assert_parity(torch, case)


@pytest.mark.parity
def test_reading_a_saved_slot_outside_backward_recomputes(torch):
    def case(lib):
        r = Region(lib)
        h = lib.utils.checkpoint.checkpoint(r.f, r.x, r.w1, use_reentrant=False)
        reads = []
        for _ in range(2):
            reads.append((h.grad_fn._saved_result, r.calls))
        return reads, h.grad_fn.name()
    assert_parity(torch, case)


@pytest.mark.parity
def test_keyword_arguments_and_no_grad(torch):
    def case(lib):
        r = Region(lib)
        y = lib.utils.checkpoint.checkpoint(r.f, r.x, w1=r.w1, use_reentrant=False)
        shapes = []
        with lib.no_grad(), lib.autograd.graph.saved_tensors_hooks(*counting_hooks(shapes)):
            z = lib.utils.checkpoint.checkpoint(r.f, r.x, r.w1, use_reentrant=False)
        return y, y.grad_fn.name(), z.requires_grad, z.grad_fn, shapes, r.calls
    assert_parity(torch, case)


@pytest.mark.parity
def test_modified_input_raises_the_version_error(torch):
    def case(lib):
        r = Region(lib)
        a = r.x * 1
        h = lib.utils.checkpoint.checkpoint(r.f, a, r.w1, use_reentrant=False)
        with lib.no_grad():
            a.mul_(2)
        return outcome(lambda: h.sum().backward()), r.calls
    assert_parity(torch, case)


@pytest.mark.parity
def test_fewer_saves_on_recomputation_is_a_checkpoint_error(torch):
    def case(lib):
        calls = []

        def f(x):
            calls.append(1)
            return x.exp() if len(calls) == 1 else x + 1  # exp saves its result; add saves none
        x = randn(lib, 3, 3, requires_grad=True)
        y = lib.utils.checkpoint.checkpoint(f, x, use_reentrant=False)
        return outcome(lambda: y.sum().backward()), len(calls)
    assert_parity(torch, case)
    assert case(al)[0][0] == "CheckpointError"


@pytest.mark.parity
def test_bad_determinism_check(torch):
    def case(lib):
        r = Region(lib)
        return outcome(lambda: lib.utils.checkpoint.checkpoint(
            r.f, r.x, r.w1, use_reentrant=False, determinism_check="strict"))
    assert_parity(torch, case)


def test_checkpoint_error_is_a_runtime_error(torch):
    assert issubclass(al.utils.checkpoint.CheckpointError, RuntimeError)
    assert issubclass(torch.utils.checkpoint.CheckpointError, RuntimeError)


@pytest.mark.parity
def test_dropout_mask_is_replayed(torch):
    """preserve_rng_state: the recomputation draws the same dropout mask as the forward."""
    def case(lib):
        lib.manual_seed(0)
        x = randn(lib, 4, 8, 6, requires_grad=True)
        drop = lib.nn.Dropout(0.5)
        y = lib.utils.checkpoint.checkpoint(lambda t: drop(t.tanh()), x, use_reentrant=False)
        kept = (y != 0)
        (y * y).sum().backward()
        expected = 2 * y.detach() * 2 * (1 - x.detach().tanh() ** 2) * kept
        return bool(np.allclose(x.grad.detach().numpy(), expected.numpy()))
    assert_parity(torch, case)
    assert case(al) is True


@pytest.mark.parity
def test_inputs_freed_with_the_graph(torch):
    """The checkpoint's saved inputs live as long as its placeholders: a backward without
    retain frees both; with retain they stay (outer boxes still alive)."""
    def case(lib):
        out = []
        for retain in (False, True):
            r = Region(lib)
            pack, unpack, count = _box_hooks()
            with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
                loss = r.loss(use_reentrant=False)
            before = count()
            loss.backward(retain_graph=retain)
            out.append((before, count()))
        return out
    assert_parity(torch, case)
    assert case(al) == [(4, 0), (4, 4)]


@pytest.mark.parity
def test_mlp_block(torch):
    """A block of an MLP (its parameters captured, not passed): only the block's input is
    packed to the outer hook; the gradients equal the plain run's."""
    def case(lib):
        model = mlp(lib, [6, 8, 8, 3], 5)
        x = randn(lib, 6, 4, 6)
        block, head = model[:3], model[3:]
        shapes = []
        with lib.autograd.graph.saved_tensors_hooks(*counting_hooks(shapes)):
            h = lib.utils.checkpoint.checkpoint(block, x, use_reentrant=False)
            loss = head(h.relu()).pow(2).sum()
        loss.backward()
        return shapes, [p.grad for p in model.parameters()]
    assert_parity(torch, case)


# -- use_reentrant=True and omitted -------------------------------------------------------------
def warnings_of(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn()
    return [f"{w.category.__name__}: {w.message}" for w in caught], result


@pytest.mark.parity
def test_omitted_use_reentrant_warns_and_is_reentrant(torch):
    def case(lib):
        r = Region(lib)
        messages, h = warnings_of(lambda: lib.utils.checkpoint.checkpoint(r.f, r.x, r.w1))
        return messages, h.grad_fn.name(), [n.name() for n, _ in h.grad_fn.next_functions]
    assert_parity(torch, case)
    assert case(al)[1] == "CheckpointFunctionBackward"


@pytest.mark.parity
def test_reentrant_saves_recomputes_and_frees(torch):
    def case(lib):
        r, shapes = Region(lib), []
        with lib.autograd.graph.saved_tensors_hooks(*counting_hooks(shapes)):
            loss = r.loss(use_reentrant=True)
        calls = [r.calls]
        loss.backward(retain_graph=True)
        calls.append(r.calls)
        loss.backward()
        calls.append(r.calls)
        return shapes, calls, outcome(loss.backward), r.grads()
    assert_parity(torch, case)


@pytest.mark.parity
@pytest.mark.parametrize("how", ["grad", "inputs", "kwargs", "context_fn", "no input rg"])
def test_reentrant_errors_and_warnings(torch, how):
    def case(lib):
        r = Region(lib)
        ck = lib.utils.checkpoint.checkpoint
        if how == "grad":
            return outcome(lambda: lib.autograd.grad(r.loss(use_reentrant=True), [r.x]))
        if how == "inputs":
            return outcome(lambda: r.loss(use_reentrant=True).backward(inputs=[r.x]))
        if how == "kwargs":
            return outcome(lambda: ck(r.f, r.x, w1=r.w1, use_reentrant=True))
        if how == "context_fn":
            return outcome(lambda: ck(r.f, r.x, r.w1, use_reentrant=True,
                                      context_fn=lambda: (None, None)))
        messages, h = warnings_of(lambda: ck(r.f, r.x.detach(), r.w1.detach(), use_reentrant=True))
        return messages, h.requires_grad, h.grad_fn
    assert_parity(torch, case)


# -- save_on_cpu --------------------------------------------------------------------------------
@pytest.mark.parity
def test_save_on_cpu_is_a_saved_tensors_hooks(torch):
    for lib in (al, torch):
        assert isinstance(lib.autograd.graph.save_on_cpu(), lib.autograd.graph.saved_tensors_hooks)


@pytest.mark.parity
@pytest.mark.parametrize("pin_memory", [False, True])
def test_save_on_cpu(torch, pin_memory):
    def case(lib):
        x, w = randn(lib, 7, 3, requires_grad=True), randn(lib, 8, 3, requires_grad=True)
        shapes = []
        with lib.autograd.graph.saved_tensors_hooks(*counting_hooks(shapes)):
            with lib.autograd.graph.save_on_cpu(pin_memory=pin_memory):
                y = x * w  # saved by save_on_cpu: the outer hook does not see these two
            z = (y * w).sum()
        shares = y.grad_fn._saved_self.data_ptr() == x.data_ptr()
        z.backward(retain_graph=True)
        grads = [x.grad.clone(), w.grad.clone()]
        z.backward()
        return shapes, shares, grads, outcome(z.backward), outcome(lambda: y.grad_fn._saved_self)
    assert_parity(torch, case)
    assert case(al)[1] is (not pin_memory)  # pin_memory=True packs a copy


@pytest.mark.parity
@pytest.mark.parametrize("pin_memory", [False, True])
def test_save_on_cpu_skips_the_version_check(torch, pin_memory):
    """In place after saving: no error; the copy (pin_memory=True) keeps the old values."""
    def case(lib):
        w = randn(lib, 9, 3, requires_grad=True)
        a = randn(lib, 10, 3, requires_grad=True) * 1
        with lib.autograd.graph.save_on_cpu(pin_memory=pin_memory):
            y = a * w
        with lib.no_grad():
            a.mul_(2)
        return outcome(lambda: y.sum().backward()), w.grad
    assert_parity(torch, case)


# -- what the package's view shows --------------------------------------------------------------
def test_ledger_shows_placeholders_and_the_meter_counts_the_inputs():
    """Design: a checkpointed region's slots hold placeholders, listed at 0 B; its inputs are
    kept by the checkpoint outside every node, so ``live_saved_bytes()`` counts them (x 96 B +
    w1 120 B, float64) though no ledger lists them; a backward frees all of it."""
    from autograd_lesson.viz.snapshot import take_snapshot
    start = live_saved_bytes()
    r = Region(al)
    h = al.utils.checkpoint.checkpoint(r.f, r.x, r.w1, use_reentrant=False)
    snap = take_snapshot([h], {"x": r.x, "w1": r.w1, "h": h})
    assert [(b.key, b.holds, b.nbytes, b.state) for b in snap.buffers] == [
        ("#0 MmBackward0._saved_mat2", "placeholder: w1", 0, "alive"),
        ("#0 MmBackward0._saved_self", "placeholder: x", 0, "alive"),
        ("#1 ReluBackward0._saved_result", "placeholder: output of #1", 0, "alive"),
        ("#2 TanhBackward0._saved_result", "placeholder: h", 0, "alive")]
    assert snap.total_bytes == 0
    assert live_saved_bytes() - start == 96 + 120
    h.sum().backward()
    assert live_saved_bytes() == start
    assert {b.state for b in take_snapshot([h]).buffers} == {"freed"}


def test_save_on_cpu_copy_is_what_the_meter_counts():
    x = al.randn(4, 4, requires_grad=True)
    start = live_saved_bytes()
    with al.autograd.graph.save_on_cpu(pin_memory=True):
        y = x.t() * x  # two saves of one storage: PyTorch copies each, so 2 x 64 B
    assert live_saved_bytes() - start == 128
    with al.autograd.graph.save_on_cpu():
        z = x.t() * x  # no copy: one storage, counted once
    assert live_saved_bytes() - start == 128 + 64
    del y, z


# -- unpacking through hooks re-attaches to the graph (what checkpoint relies on) ---------------
@pytest.mark.parity
@pytest.mark.parametrize("pack", ["detach", "times 2", "box"])
def test_unpacked_hook_result_rejoins_the_graph(torch, pack):
    """A pack hook that detaches (or boxes ``t.detach()``) still gives the right double
    backward: the unpacked tensor gets the saved tensor's grad_fn / leaf back."""
    def case(lib):
        box_pack, box_unpack, _ = _box_hooks()
        hooks = {"detach": (lambda t: t.detach(), lambda t: t),
                 "times 2": (lambda t: t * 2, lambda t: t),
                 "box": (box_pack, box_unpack)}[pack]
        x = randn(lib, 11, 3, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(*hooks):
            y = (x ** 3).sum()
            a = x.exp()
            z = (a * a).sum()
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        (gz,) = lib.autograd.grad(z, x, create_graph=True)
        g.sum().backward()
        gz.sum().backward()
        return g, gz, x.grad
    assert_parity(torch, case)


@pytest.mark.parity
def test_checkpoint_under_an_outer_box_hook(torch):
    def case(lib):
        r = Region(lib)
        pack, unpack, _ = _box_hooks()
        with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
            loss = r.loss(use_reentrant=False)
        loss.backward()
        return r.grads(), r.calls
    assert_parity(torch, case)


@pytest.mark.parity
def test_slot_states_after_backward(torch):
    """Freed with the graph like any slot; with retain, reading one recomputes the region."""
    def case(lib):
        out = []
        for retain in (False, True):
            r = Region(lib)
            h = lib.utils.checkpoint.checkpoint(r.f, r.x, r.w1, use_reentrant=False)
            h.sum().backward(retain_graph=retain)
            calls = r.calls
            out.append((outcome(lambda: h.grad_fn._saved_result), calls, r.calls))
        return out
    assert_parity(torch, case)


@pytest.mark.parity
def test_double_backward_through_a_checkpoint(torch):
    def case(lib):
        x = randn(lib, 12, 3, requires_grad=True)
        y = lib.utils.checkpoint.checkpoint(lambda t: (t.tanh() * t).sum(), x, use_reentrant=False)
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        g.sum().backward()
        return g, x.grad
    assert_parity(torch, case)


@pytest.mark.parity
def test_peak_counts_what_the_recomputation_holds(torch):
    """track_saved_bytes() (ours) against PyTorch's pack-hook meter extended to the tensors its
    checkpoint holds from recomputation to unpack: same peak, and each is higher than what an
    outer pack hook alone sees (those tensors are invisible to it)."""
    from autograd_lesson.viz.timeline import track_saved_bytes
    from scenarios import CheckpointPeakMeter, PeakMeter

    def step(lib):
        model = mlp(lib, [6, 16, 16, 16, 3], 21, dtype=lib.float32)
        x = randn(lib, 22, 8, 6, dtype=lib.float32)
        h = x
        for i in (0, 2, 4):
            h = lib.utils.checkpoint.checkpoint(model[i:i + 2], h, use_reentrant=False)
        model[6](h).pow(2).sum().backward()

    gc.collect()  # an earlier test's garbage freed mid-step would lower the peak over start
    with track_saved_bytes() as ours:
        step(al)
    peaks = {}
    for meter in (CheckpointPeakMeter, PeakMeter):
        for lib in (al, torch):
            with meter(lib) as m:
                step(lib)
            peaks[meter.__name__, lib.__name__] = m.peak
    ours_peak = ours.peak - ours.start  # buffers an earlier test left alive are not this step's
    assert ours_peak == peaks["CheckpointPeakMeter", "torch"]
    assert peaks["PeakMeter", "autograd_lesson"] == peaks["PeakMeter", "torch"] < ours_peak
