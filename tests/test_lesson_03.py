"""What notebooks/03_shared_backbone.ipynb teaches, checked in autograd_lesson and PyTorch 2.13.

Seed 000 ex3 (backbone Linear+ReLU, two Linear heads) and seed 001's multi-task net (trunk,
branch 1 ReLU→Linear, branch 2 Tanh→Linear). Each claim runs in both libraries (the ``lib``
fixture), and the cross-library tests compare the numbers. Contradicted seed claims covered here:
retain keeps the *whole* graph (not "up to features"), a bare Linear backbone fails too, and
grads of the retain pattern equal one backward of the sum.
"""

import numpy as np
import pytest

import autograd_lesson
import scenarios
from scenarios import _read_slot as read_slot, walk

FREED = ("Trying to backward through the graph a second time (or directly access saved tensors "
         "after they have already been freed).")


# -- building blocks, identical for both libraries ----------------------------------------------
def _fill(lib, modules, seed):
    """Deterministic parameters: U(-0.5, 0.5) from RandomState(seed), in named order."""
    rs = np.random.RandomState(seed)
    with lib.no_grad():
        for module in modules.values():
            for p in module.parameters():
                p.copy_(lib.tensor(rs.uniform(-0.5, 0.5, tuple(p.shape)), dtype=lib.float64))
    return modules


def _data(lib, seed, *shapes):
    rs = np.random.RandomState(seed)
    return [lib.tensor(rs.randn(*s), dtype=lib.float64) for s in shapes]


class TwoHeads:
    """Seed 000 ex3: ``features = backbone(inputs)``; two heads; MSE losses."""

    def __init__(self, lib, bare=False):
        nn, f64 = lib.nn, lib.float64
        backbone = nn.Linear(4, 5, dtype=f64) if bare else nn.Sequential(nn.Linear(4, 5, dtype=f64),
                                                                          nn.ReLU())
        self.modules = _fill(lib, {"backbone": backbone, "head1": nn.Linear(5, 2, dtype=f64),
                                   "head2": nn.Linear(5, 3, dtype=f64)}, 0)
        self.inputs, self.labels1, self.labels2 = _data(lib, 1, (6, 4), (6, 2), (6, 3))
        self.criterion = nn.MSELoss()

    def params(self):
        return {f"{m}.{n}": p for m, mod in self.modules.items() for n, p in mod.named_parameters()}

    def forward(self):
        for p in self.params().values():
            p.grad = None
        m = self.modules
        features = m["backbone"](self.inputs)
        return (features, self.criterion(m["head1"](features), self.labels1),
                self.criterion(m["head2"](features), self.labels2))


class MultiTask(TwoHeads):
    """Seed 001: trunk Linear(3, 4); b1 = ReLU → Linear(4, 2); b2 = Tanh → Linear(4, 1)."""

    def __init__(self, lib):
        nn, f64 = lib.nn, lib.float64
        self.modules = _fill(lib, {
            "trunk": nn.Linear(3, 4, dtype=f64),
            "b1": nn.Sequential(nn.ReLU(), nn.Linear(4, 2, dtype=f64)),
            "b2": nn.Sequential(nn.Tanh(), nn.Linear(4, 1, dtype=f64))}, 2)
        self.inputs, self.labels1, self.labels2 = _data(lib, 3, (5, 3), (5, 2), (5, 1))
        self.criterion = nn.MSELoss()

    def forward(self):
        for p in self.params().values():
            p.grad = None
        m = self.modules
        features = m["trunk"](self.inputs)
        return (features, self.criterion(m["b1"](features), self.labels1),
                self.criterion(m["b2"](features), self.labels2))


def grads_after(net, code):
    """Fresh forward, run ``code`` (sees loss1, loss2), return float64 copies of every .grad."""
    _, loss1, loss2 = net.forward()
    exec(code, {}, {"loss1": loss1, "loss2": loss2})
    return {n: None if p.grad is None else np.array(p.grad.detach().numpy(), dtype=np.float64)
            for n, p in net.params().items()}


def assert_same_grads(a, b):
    assert a.keys() == b.keys()
    for name in a:
        assert (a[name] is None) == (b[name] is None), name
        if a[name] is not None:
            np.testing.assert_allclose(a[name], b[name], atol=1e-6, rtol=0, err_msg=name)


def nodes(*roots):
    """Every node reachable from the roots' grad_fn (BFS in next_functions order)."""
    return walk(roots)[0]


state = read_slot  # 'alive', 'none' (save skipped) or 'freed', read through _saved_<slot>


def head_nodes(loss):
    """(MseLossBackward0, the head's AddmmBackward0) of one head's loss."""
    mse = loss.grad_fn
    addmm = next(c for c, _ in mse.next_functions if c is not None)
    assert (mse.name(), addmm.name()) == ("MseLossBackward0", "AddmmBackward0")
    return mse, addmm


def trunk_nodes(features):
    """(ReluBackward0, the backbone's AddmmBackward0)."""
    relu = features.grad_fn
    addmm = next(c for c, _ in relu.next_functions if c is not None)
    assert (relu.name(), addmm.name()) == ("ReluBackward0", "AddmmBackward0")
    return relu, addmm


def head_states(loss):
    mse, addmm = head_nodes(loss)
    return [state(mse, "self"), state(mse, "target"), state(addmm, "mat1"), state(addmm, "mat2")]


def trunk_states(features):
    relu, addmm = trunk_nodes(features)
    return [state(relu, "result"), state(addmm, "mat1"), state(addmm, "mat2")]


def raises_freed(call):
    try:
        call()
    except RuntimeError as error:
        return str(error).startswith(FREED)
    return False


class NodeCounter:
    """Counts node executions with a pre-hook on every reachable node (both libraries)."""

    def __init__(self, *roots):
        self.count, self._nodes = 0, nodes(*roots)
        for node in self._nodes:
            node.register_prehook(self._hook)

    def _hook(self, grad_outputs):
        self.count += 1


def count_executions(net, code):
    """Fresh forward; the number of nodes ``code`` runs (hooks registered before it runs).

    ``loss1 + loss2`` makes a new node, so ``code`` may use ``total`` (built beforehand)."""
    _, loss1, loss2 = net.forward()
    total = loss1 + loss2
    counter = NodeCounter(total)
    exec(code, {}, {"loss1": loss1, "loss2": loss2, "total": total})
    return counter.count


# -- the naive pattern ---------------------------------------------------------------------------
@pytest.mark.parametrize("bare", [False, True], ids=["linear_relu", "bare_linear"])
def test_naive_second_backward_raises_freed(lib, bare):
    """Even a bare nn.Linear backbone fails: AddmmBackward0 saved its input."""
    net = TwoHeads(lib, bare=bare)
    features, loss1, loss2 = net.forward()
    backbone_addmm = nodes(features)[0] if bare else trunk_nodes(features)[1]
    assert backbone_addmm.name() == "AddmmBackward0"
    assert state(backbone_addmm, "mat1") == "alive" and state(backbone_addmm, "mat2") == "none"
    loss1.backward()
    assert state(backbone_addmm, "mat1") == "freed"
    assert raises_freed(loss2.backward)


def test_loss1_frees_trunk_and_head1_but_not_head2(lib):
    net = TwoHeads(lib)
    features, loss1, loss2 = net.forward()
    assert head_states(loss1) == head_states(loss2) == ["alive"] * 4
    loss1.backward()
    assert trunk_states(features) == ["freed", "freed", "none"]
    assert head_states(loss1) == ["freed"] * 4
    assert head_states(loss2) == ["alive"] * 4  # not on loss1's path: untouched


def test_failed_backward_is_not_atomic(lib):
    """head2's grads are written before the trunk raises; the backbone keeps loss1's part."""
    net = TwoHeads(lib)
    loss1_only = grads_after(net, "loss1.backward()")
    _, loss1, loss2 = net.forward()
    loss1.backward()
    assert net.params()["head2.weight"].grad is None
    assert raises_freed(loss2.backward)
    after = {n: p.grad for n, p in net.params().items()}
    assert after["head2.weight"] is not None and after["head2.bias"] is not None
    np.testing.assert_allclose(after["backbone.0.weight"].detach().numpy(),
                               loss1_only["backbone.0.weight"], atol=1e-12)


# -- the retain pattern --------------------------------------------------------------------------
def test_retain_keeps_the_whole_graph_not_just_up_to_features(lib):
    net = TwoHeads(lib)
    features, loss1, loss2 = net.forward()
    loss1.backward(retain_graph=True)
    assert head_states(loss1) == ["alive"] * 4 and trunk_states(features) == ["alive"] * 2 + ["none"]
    loss2.backward()
    assert trunk_states(features) == ["freed", "freed", "none"]
    assert head_states(loss2) == ["freed"] * 4
    assert head_states(loss1) == ["alive"] * 4  # head1's buffers outlive both calls


def test_retained_head1_buffers_live_until_loss1_is_dropped(lib):
    """Counted with saved_tensors_hooks: 10 packed; 4 (head1's) alive after both calls; 0 after
    ``del loss1`` (no gc.collect needed: the boxes hold detached tensors, no cycle)."""
    boxes = []
    pack, unpack, alive = scenarios._box_hooks(live=boxes)
    net = TwoHeads(lib)
    with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
        features, loss1, loss2 = net.forward()
    assert len(boxes) == 10 and alive() == 10
    loss1.backward(retain_graph=True)
    loss2.backward()
    assert alive() == 4
    del loss1
    assert alive() == 0


def test_backward_with_inputs_runs_only_head2_after_naive_loss1(lib):
    """Exercise 2(b): a backward fails only if it has to run a freed node."""
    net = TwoHeads(lib)
    loss2_only = grads_after(net, "loss2.backward()")
    _, loss1, loss2 = net.forward()
    loss1.backward()
    head2 = [net.params()["head2.weight"], net.params()["head2.bias"]]
    loss2.backward(inputs=head2)
    for name, p in zip(("head2.weight", "head2.bias"), head2):
        np.testing.assert_allclose(p.grad.detach().numpy(), loss2_only[name], atol=1e-12)


def test_per_loss_gradients_in_one_call_that_retains_nothing(lib):
    """``autograd.grad(stack([l1, l2]), params, grad_outputs=eye(2), is_grads_batched=True)``:
    row i is loss i's gradient alone, and the graph is freed afterwards (so two calls with
    retain_graph=True are not the only way to get per-loss gradients)."""
    net = TwoHeads(lib)
    names = ["backbone.0.weight", "backbone.0.bias"]
    alone = [grads_after(net, "loss1.backward()"), grads_after(net, "loss2.backward()")]
    _, loss1, loss2 = net.forward()
    params = [net.params()[n] for n in names]
    per_loss = lib.autograd.grad(lib.stack([loss1, loss2]), params,
                                 grad_outputs=lib.eye(2, dtype=lib.float64),
                                 is_grads_batched=True)
    for name, batched in zip(names, per_loss):
        assert tuple(batched.shape) == (2,) + tuple(net.params()[name].shape)
        for row in range(2):
            np.testing.assert_allclose(batched[row].detach().numpy(), alone[row][name],
                                       atol=1e-12)
    raises_freed(lambda: loss1.backward())
    raises_freed(lambda: loss2.backward())


def test_the_measuring_helpers_are_package_only(lib):
    """The summary's precise claim: observe, saved_buffers() and take_snapshot are
    autograd_lesson's own; PyTorch 2.13 has none of them (its equivalents, pre-hooks on every
    node and saved_tensors_hooks, are what test_node_executions and
    test_retained_head1_buffers_live_until_loss1_is_dropped use in both libraries)."""
    _, loss1, _ = TwoHeads(lib).forward()
    ours = lib is autograd_lesson
    assert hasattr(lib.autograd.graph, "observe") is ours
    assert hasattr(loss1.grad_fn, "saved_buffers") is ours
    assert hasattr(lib.autograd.graph, "saved_tensors_hooks")
    assert hasattr(loss1.grad_fn, "register_prehook")


# -- the better fix and accumulation -------------------------------------------------------------
@pytest.mark.parametrize("make", [TwoHeads, MultiTask], ids=["seed000_ex3", "seed001_multitask"])
def test_retain_pattern_equals_summed_and_order_does_not_matter(lib, make):
    net = make(lib)
    retain = grads_after(net, "loss1.backward(retain_graph=True); loss2.backward()")
    reverse = grads_after(net, "loss2.backward(retain_graph=True); loss1.backward()")
    summed = grads_after(net, "(loss1 + loss2).backward()")
    assert_same_grads(retain, summed)
    assert_same_grads(reverse, summed)


def test_multitask_branch_grads_none_and_trunk_is_the_sum(lib):
    net = MultiTask(lib)
    only1 = grads_after(net, "loss1.backward()")
    only2 = grads_after(net, "loss2.backward()")
    both = grads_after(net, "loss1.backward(retain_graph=True); loss2.backward()")
    assert only1["b2.1.weight"] is None and only1["b2.1.bias"] is None
    assert only2["b1.1.weight"] is None and only2["b1.1.bias"] is None
    for name in ("trunk.weight", "trunk.bias"):
        assert not np.allclose(only1[name], 0) and not np.allclose(only2[name], 0)
        np.testing.assert_allclose(both[name], only1[name] + only2[name], atol=1e-12)


def test_multitask_loss1_frees_everything_but_branch2(lib):
    """Exercise 1: TanhBackward0.result (branch 2) survives loss1.backward()."""
    net = MultiTask(lib)
    features, loss1, loss2 = net.forward()
    tanh = next(n for n in nodes(loss2) if n.name() == "TanhBackward0")
    relu = next(n for n in nodes(loss1) if n.name() == "ReluBackward0")
    loss1.backward()
    assert state(tanh, "result") == "alive" and state(relu, "result") == "freed"
    assert head_states(loss1) == ["freed"] * 4 and head_states(loss2) == ["alive"] * 4
    assert [state(nodes(features)[0], s) for s in ("mat1", "mat2")] == ["freed", "none"]


@pytest.mark.parametrize("make, expected", [(TwoHeads, (10, 20, 16)), (MultiTask, (10, 20, 17))],
                         ids=["seed000_ex3", "seed001_multitask"])
def test_node_executions(lib, make, expected):
    """loss1 alone; the two-call retain pattern (the trunk runs twice); one call on the sum."""
    net = make(lib)
    got = (count_executions(net, "loss1.backward()"),
           count_executions(net, "loss1.backward(retain_graph=True); loss2.backward()"),
           count_executions(net, "total.backward()"))
    assert got == expected


def test_node_started_events_agree_with_prehooks():
    """The notebook counts with NodeStarted events; they match the pre-hook counts above."""
    for make in (TwoHeads, MultiTask):
        net = make(autograd_lesson)
        for code in ("loss1.backward(retain_graph=True); loss2.backward()", "total.backward()"):
            _, loss1, loss2 = net.forward()
            total = loss1 + loss2
            counter, started = NodeCounter(total), []
            with autograd_lesson.autograd.graph.observe(started.append):
                exec(code, {}, {"loss1": loss1, "loss2": loss2, "total": total})
            events = [e for e in started if isinstance(e, autograd_lesson.autograd.graph.NodeStarted)]
            assert len(events) == counter.count > 0


# -- cross-library: the same numbers ------------------------------------------------------------
@pytest.mark.parity
@pytest.mark.parametrize("make", [TwoHeads, MultiTask], ids=["seed000_ex3", "seed001_multitask"])
def test_grads_equal_torch(torch, make):
    for code in ("loss1.backward()", "loss2.backward()", "(loss1 + loss2).backward()",
                 "loss1.backward(retain_graph=True); loss2.backward()"):
        assert_same_grads(grads_after(make(autograd_lesson), code), grads_after(make(torch), code))


@pytest.mark.parity
def test_graph_shape_equals_torch(torch):
    def shape(lib):
        _, loss1, loss2 = TwoHeads(lib).forward()
        order = nodes(loss1, loss2)
        index = {node: i for i, node in enumerate(order)}
        return [(n.name(), tuple(None if c is None else index[c] for c, _ in n.next_functions))
                for n in order]
    assert shape(autograd_lesson) == shape(torch)


def test_show_backward_counts_nodes_made_inside_the_call():
    """The view's 'ran N nodes' must count a temporary root too: ``(loss1 + loss2).backward()``
    runs the AddBackward0 of the sum, which is garbage right after the call (16, not 15)."""
    from autograd_lesson.viz import record
    net = TwoHeads(autograd_lesson)
    _, loss1, loss2 = net.forward()
    assert record(lambda: (loss1 + loss2).backward()).executed_count == 16


# -- the optional "on real PyTorch" cell ---------------------------------------------------------
@pytest.mark.parity
def test_on_real_torch_cell_prints_the_same_text_from_both_engines(torch):
    import on_torch_cells
    theirs, ours = on_torch_cells.texts(torch, "03")
    assert theirs == ours
    assert "✗ RuntimeError: Trying to backward through the graph a second time" in theirs
    assert "freed: #2 ReluBackward0._saved_result" in theirs  # the backbone's, freed by loss1
    assert "autograd_lesson printed the same text: True" in on_torch_cells.stored_text("03")
