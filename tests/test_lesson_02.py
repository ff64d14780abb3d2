"""The claims of lesson 02 (one GAN step), checked in autograd_lesson and in torch.

The models and data are the notebook's: G = Linear(2,4)-Tanh-Linear(4,2), D = Linear(2,4)-
LeakyReLU(0.2)-Linear(4,1)-Sigmoid, BCELoss, SGD(lr=0.1), weights overwritten with ``copy_``
(so a weight is at version 2 before the first step). Every ``lib`` test runs with both
libraries; the torch run is marked ``parity``. Sources: seed 000 Example 2, facts section 2
(GAN row) and section 3.
"""
import numpy as np
import pytest

import autograd_lesson as al
from autograd_lesson.viz import take_snapshot

FREED = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)
INPLACE = "one of the variables needed for gradient computation has been modified by an inplace"
STALE_D2 = (
    "one of the variables needed for gradient computation has been modified by an inplace "
    "operation: [torch.FloatTensor [4, 1]], which is output 0 of AsStrided, is at version 3; "
    "expected version 2 instead. Hint: enable anomaly detection to find the operation that failed "
    "to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False)."
)


@pytest.fixture(params=["autograd_lesson", pytest.param("torch", marks=pytest.mark.parity)])
def lib(request):
    return al if request.param == "autograd_lesson" else request.getfixturevalue("torch")


# -- the notebook's setup, for either library ----------------------------------------------------
class Gan:
    """Fresh G, D, optimizers and data, exactly as in the notebook (``dtype`` float32 or 64)."""

    def __init__(self, lib, dtype=None):
        self.lib, nn = lib, lib.nn
        self.dtype = dtype or lib.float32
        def linear(n_in, n_out):
            return nn.Linear(n_in, n_out, dtype=self.dtype)

        self.G = self._fixed(nn.Sequential(linear(2, 4), nn.Tanh(), linear(4, 2)), 0)
        self.D = self._fixed(nn.Sequential(linear(2, 4), nn.LeakyReLU(0.2), linear(4, 1),
                                           nn.Sigmoid()), 1)
        self.optD = lib.optim.SGD(self.D.parameters(), lr=0.1)
        self.optG = lib.optim.SGD(self.G.parameters(), lr=0.1)
        rs = np.random.RandomState(2)
        self.real = self._tensor(rs.randn(4, 2) + 2.0)
        self.z = self._tensor(rs.randn(4, 2))
        self.ones, self.zeros = self._tensor(np.ones((4, 1))), self._tensor(np.zeros((4, 1)))
        self.bce = nn.BCELoss()

    def _tensor(self, values):
        return self.lib.tensor(np.asarray(values), dtype=self.dtype)

    def _fixed(self, module, seed):
        rs = np.random.RandomState(seed)
        with self.lib.no_grad():
            for p in module.parameters():
                p.copy_(self._tensor(rs.uniform(-0.5, 0.5, tuple(p.shape))))
        return module

    def d_forward(self, detach=False):
        fake = self.G(self.z)
        d_loss_real = self.bce(self.D(self.real), self.ones)
        d_out_fake = self.D(fake.detach() if detach else fake)
        return fake, d_loss_real, d_out_fake, self.bce(d_out_fake, self.zeros)

    def d_step(self, detach=False, retain=True):
        fake, d_loss_real, d_out_fake, d_loss_fake = self.d_forward(detach)
        self.optD.zero_grad()
        d_loss_real.backward()
        d_loss_fake.backward(retain_graph=retain)
        self.optD.step()
        return fake, d_out_fake, d_loss_fake

    def train_step(self, recipe, zero_grad_G=True):
        """'retain' (the article's recipe) or 'detach'; G's loss from a fresh D(fake)."""
        fake, _, _ = self.d_step(detach=recipe == "detach", retain=recipe == "retain")
        if zero_grad_G:
            self.optG.zero_grad()
        self.bce(self.D(fake), self.ones).backward()
        self.optG.step()

    def g_params(self):
        return np.concatenate([np.array(p.detach().numpy(), dtype=np.float64).ravel()
                               for p in self.G.parameters()])


def find(root, name):
    """The nodes called ``name`` reachable from ``root.grad_fn`` (BFS order)."""
    seen, found, queue = set(), [], [root.grad_fn]
    while queue:
        node = queue.pop(0)
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if node.name() == name:
            found.append(node)
        queue.extend(child for child, _ in node.next_functions)
    return found


def slot_state(node, slot):
    """'alive', 'freed' or 'stale', by reading ``node._saved_<slot>`` as PyTorch allows."""
    try:
        getattr(node, "_saved_" + slot)
    except RuntimeError as exc:
        if str(exc) == FREED:
            return "freed"
        assert str(exc).startswith(INPLACE), str(exc)
        return "stale"
    return "alive"


def g_slots(fake):
    """States of G's four tensor saves (z, Tanh output twice, G.2.weight view)."""
    last, first = find(fake, "AddmmBackward0")
    tanh = find(fake, "TanhBackward0")[0]
    return [slot_state(first, "mat1"), slot_state(tanh, "result"),
            slot_state(last, "mat1"), slot_state(last, "mat2")]


def raises_freed(call):
    with pytest.raises(RuntimeError) as info:
        call()
    assert str(info.value) == FREED


# -- the article's recipe and the naive one ------------------------------------------------------
def test_article_recipe_runs(lib):
    gan = Gan(lib)
    gan.train_step("retain")
    assert all(p.grad is not None for p in gan.G.parameters())


def test_naive_d_step_frees_G_and_the_G_step_fails_inside_G(lib):
    gan = Gan(lib)
    fake, d_out_fake, d_loss_fake = gan.d_step(retain=False)
    assert g_slots(fake) == ["freed"] * 4
    gan.optG.zero_grad()
    g_loss = gan.bce(gan.D(fake), gan.ones)
    raises_freed(g_loss.backward)
    new_sigmoid = g_loss.grad_fn.next_functions[0][0]
    assert new_sigmoid.name() == "SigmoidBackward0"
    assert slot_state(new_sigmoid, "result") == "freed"    # the new D half ran before the failure
    assert all(p.grad is None for p in gan.G.parameters())


# -- what retain keeps ---------------------------------------------------------------------------
def test_retain_keeps_the_old_D_fake_buffers_after_the_G_step(lib):
    gan = Gan(lib)
    fake, d_out_fake, d_loss_fake = gan.d_step(retain=True)
    gan.optG.zero_grad()
    gan.bce(gan.D(fake), gan.ones).backward()
    assert g_slots(fake) == ["freed"] * 4               # the G step used (and freed) G's graph
    old_sigmoid = d_out_fake.grad_fn
    old_leaky = find(d_out_fake, "LeakyReluBackward0")[0]
    old_last, old_first = find(d_out_fake, "AddmmBackward0")[:2]
    assert slot_state(old_sigmoid, "result") == "alive"  # never used again, still held
    assert slot_state(old_leaky, "self") == "alive"
    assert slot_state(old_last, "mat1") == "alive"
    assert slot_state(old_last, "mat2") == "stale"      # D.2.weight.t(), changed by optD.step()
    assert slot_state(old_first, "mat2") == "stale"     # D.0.weight.t()


def test_detach_recipe_leaves_nothing_behind(lib):
    gan = Gan(lib)
    fake, d_out_fake, d_loss_fake = gan.d_step(detach=True, retain=False)
    assert g_slots(fake) == ["alive"] * 4               # the D step never entered G
    gan.optG.zero_grad()
    gan.bce(gan.D(fake), gan.ones).backward()
    assert slot_state(d_out_fake.grad_fn, "result") == "freed"
    assert slot_state(find(d_out_fake, "LeakyReluBackward0")[0], "self") == "freed"


def test_graph_only_bytes_of_the_notebook_table():
    """The notebook's memory table (ours only: it reads our snapshot view)."""
    def trace(detach):
        gan = Gan(al)
        labels = {f"G.{n}": p for n, p in gan.G.named_parameters()}
        labels.update({f"D.{n}": p for n, p in gan.D.named_parameters()})
        labels.update(real=gan.real, z=gan.z, ones=gan.ones, zeros=gan.zeros)

        def held(*roots):
            return take_snapshot(list(roots), labels).graph_only_bytes

        fake, d_loss_real, d_out_fake, d_loss_fake = gan.d_forward(detach)
        steps = [held(fake, d_loss_real, d_loss_fake)]
        d_loss_real.backward()
        d_loss_fake.backward(retain_graph=not detach)
        gan.optD.step()
        g_loss = gan.bce(gan.D(fake), gan.ones)
        steps.append(held(fake, d_loss_fake, g_loss))
        g_loss.backward()
        return steps + [held(fake, d_loss_fake, g_loss)]

    assert trace(detach=False) == [352, 352, 144]
    assert trace(detach=True) == [352, 208, 0]


# -- gradients leaking into G --------------------------------------------------------------------
@pytest.mark.parametrize("detach", [False, True])
def test_d_step_writes_grads_into_G_only_without_detach(lib, detach):
    gan = Gan(lib)
    gan.d_step(detach=detach, retain=not detach)
    grads = [p.grad for p in gan.G.parameters()]
    if detach:
        assert grads == [None] * 4
    else:
        assert all(g is not None and float(g.abs().sum()) > 0 for g in grads)


def test_forgetting_optG_zero_grad_changes_G(lib):
    detach, leaky = Gan(lib), Gan(lib)
    detach.train_step("detach")
    leaky.train_step("retain", zero_grad_G=False)
    assert np.abs(leaky.g_params() - detach.g_params()).max() > 1e-3


# -- the version error ---------------------------------------------------------------------------
def test_reusing_the_old_D_output_after_optD_step_raises_the_version_error(lib):
    gan = Gan(lib)
    fake, d_out_fake, d_loss_fake = gan.d_step(retain=True)
    assert [p._version for p in gan.D.parameters()] == [3, 3, 3, 3]
    g_loss = gan.bce(d_out_fake, gan.ones)
    with pytest.raises(RuntimeError) as info:
        g_loss.backward()
    assert str(info.value) == STALE_D2
    assert slot_state(d_out_fake.grad_fn, "result") == "freed"  # the old Sigmoid ran first


def test_rerunning_D_after_optD_step_works(lib):
    gan = Gan(lib)
    fake, d_out_fake, d_loss_fake = gan.d_step(retain=True)
    gan.bce(gan.D(fake), gan.ones).backward()
    assert all(p.grad is not None for p in gan.G.parameters())


def test_reusing_the_old_output_before_optD_step_runs_but_adds_into_D_grads(lib):
    clean, polluted = Gan(lib), Gan(lib)
    for gan, reuse in ((clean, False), (polluted, True)):
        fake, d_loss_real, d_out_fake, d_loss_fake = gan.d_forward()
        d_loss_real.backward()
        d_loss_fake.backward(retain_graph=True)
        if reuse:
            gan.bce(d_out_fake, gan.ones).backward()    # runs: nothing has changed yet
    for p, q in zip(clean.D.parameters(), polluted.D.parameters()):
        assert np.abs((p.grad - q.grad).detach().numpy()).max() > 1e-4


# -- same G either way ---------------------------------------------------------------------------
def test_detach_and_retain_recipes_give_identical_G(lib):
    retain, detach = Gan(lib), Gan(lib)
    retain.train_step("retain")
    detach.train_step("detach")
    assert np.array_equal(retain.g_params(), detach.g_params())
    assert np.abs(retain.g_params() - Gan(lib).g_params()).max() > 1e-4   # G did move


@pytest.mark.parity
def test_final_G_matches_torch(torch):
    ours, theirs = Gan(al, al.float64), Gan(torch, torch.float64)
    for gan in (ours, theirs):
        gan.train_step("detach")
        gan.train_step("retain")
    np.testing.assert_allclose(ours.g_params(), theirs.g_params(), atol=1e-6)


# -- the exercises' answers ----------------------------------------------------------------------
def test_exercise_1_G_step_frees_only_the_G_part_of_the_old_graph(lib):
    gan = Gan(lib)
    fake, d_out_fake, d_loss_fake = gan.d_step(retain=True)
    gan.bce(gan.D(fake), gan.ones).backward()
    assert g_slots(fake) == ["freed"] * 4
    bce_node = d_loss_fake.grad_fn
    assert [slot_state(bce_node, "self"), slot_state(bce_node, "target")] == ["alive", "alive"]


def test_exercise_2_reusing_the_old_output_before_the_step(lib):
    gan = Gan(lib)
    fake, d_loss_real, d_out_fake, d_loss_fake = gan.d_forward(detach=True)
    d_loss_real.backward()
    d_loss_fake.backward()
    raises_freed(gan.bce(d_out_fake, gan.ones).backward)
    gan = Gan(lib)
    fake, d_loss_real, d_out_fake, d_loss_fake = gan.d_forward()
    d_loss_real.backward()
    d_loss_fake.backward(retain_graph=True)
    gan.bce(d_out_fake, gan.ones).backward()


def test_exercise_3_one_version_per_optimizer_step(lib):
    gan = Gan(lib)
    assert gan.D[2].weight._version == 2                 # Linear's init, then copy_
    gan.train_step("detach")
    gan.train_step("detach")
    assert gan.D[2].weight._version == 4


# -- corrections checked in torch only (issue 9) --------------------------------------------------
@pytest.mark.parity
def test_a_fresh_transposed_view_is_TBackward0_until_its_base_changes_in_place(torch):
    """'output 0 of AsStrided' is not PyTorch's name for views: ``w.t()`` has grad_fn
    TBackward0, and reads AsStridedBackward0 only after ``w`` was modified in place."""
    gan = Gan(torch)
    fake, d_loss_real, d_out_fake, d_loss_fake = gan.d_forward()
    saved = find(d_out_fake, "AddmmBackward0")[0]._saved_mat2   # D.2.weight.t(), as saved
    view = gan.D[2].weight.t()
    assert (saved.grad_fn.name(), view.grad_fn.name()) == ("TBackward0", "TBackward0")
    d_loss_real.backward()
    d_loss_fake.backward(retain_graph=True)
    gan.optD.step()                                              # in place on D.2.weight
    assert view.grad_fn.name() == "AsStridedBackward0"
    with pytest.raises(RuntimeError) as info:
        gan.bce(d_out_fake, gan.ones).backward()
    assert "which is output 0 of AsStrided" in str(info.value)


def _g_grads_after_old_output_reuse(torch, update):
    """One D step with ``update`` ('default', 'foreach', 'fused', 'data'), then G's loss from the OLD
    D(fake); returns (error or None, G's grads, D's versions)."""
    gan = Gan(torch)
    if update in ("fused", "foreach"):
        gan.optD = torch.optim.SGD(gan.D.parameters(), lr=0.1, **{update: True})
    fake, d_loss_real, d_out_fake, d_loss_fake = gan.d_forward()
    gan.optD.zero_grad()
    d_loss_real.backward()
    d_loss_fake.backward(retain_graph=True)
    if update == "data":                                         # a hand-written update
        for p in gan.D.parameters():
            p.data.add_(p.grad, alpha=-0.1)
    else:
        gan.optD.step()
    versions = [p._version for p in gan.D.parameters()]
    gan.optG.zero_grad()
    try:
        gan.bce(d_out_fake, gan.ones).backward()
    except RuntimeError as exc:
        return str(exc), None, versions
    return None, [p.grad.clone() for p in gan.G.parameters()], versions


def _g_grads_with(torch, d_state):
    """G's grads of bce(D(fake), ones) with D's parameters set to ``d_state`` (no step)."""
    gan = Gan(torch)
    with torch.no_grad():
        for p, value in zip(gan.D.parameters(), d_state):
            p.copy_(value)
    fake = gan.G(gan.z)
    gan.bce(gan.D(fake), gan.ones).backward()
    return [p.grad.clone() for p in gan.G.parameters()]


@pytest.mark.parity
@pytest.mark.parametrize("update", ["fused", "data"])
def test_a_step_that_does_not_bump_versions_raises_nothing_and_mixes_weights(torch, update):
    """Lessons 02/04: the version error after optD.step() holds for the default (and foreach)
    optimizers. With fused=True, or an update through p.data, the step leaves _version alone,
    the old output's backward raises nothing, and G's gradient matches neither D's old weights
    nor its new ones."""
    for loud in ("default", "foreach"):
        error, _, versions = _g_grads_after_old_output_reuse(torch, loud)
        assert error == STALE_D2 and versions == [3, 3, 3, 3]
    error, mixed, versions = _g_grads_after_old_output_reuse(torch, update)
    assert error is None and versions == [2, 2, 2, 2]
    old = Gan(torch)
    old_state = [p.detach().clone() for p in old.D.parameters()]
    new = Gan(torch)
    fake, d_loss_real, _, d_loss_fake = new.d_forward()
    d_loss_real.backward()
    d_loss_fake.backward()
    new.optD.step()
    new_state = [p.detach().clone() for p in new.D.parameters()]
    for reference in (_g_grads_with(torch, old_state), _g_grads_with(torch, new_state)):
        gap = max((a - b).abs().max().item() for a, b in zip(mixed, reference))
        assert gap > 1e-5  # float32 noise here is ~1e-9; measured 3.2e-3 (old), 5.9e-5 (new)


# -- the optional "on real PyTorch" cell ---------------------------------------------------------
@pytest.mark.parity
def test_on_real_torch_cell_prints_the_same_text_from_both_engines(torch):
    import on_torch_cells
    theirs, ours = on_torch_cells.texts(torch, "02")
    assert theirs == ours
    assert "✓ d_loss_fake.backward(retain_graph=True) ran 20 nodes" in theirs
    assert "retained: #2 TanhBackward0._saved_result" in theirs  # G's nodes: no detach()
    assert "autograd_lesson printed the same text: True" in on_torch_cells.stored_text("02")
