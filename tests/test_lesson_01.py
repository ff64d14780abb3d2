"""The claims of lesson 01 (two losses on one graph), checked in autograd_lesson and in torch.

Every test takes ``lib`` and runs once with ``autograd_lesson`` and once with real PyTorch
(``parity``), so a claim the notebook makes is true of PyTorch 2.13, not just of our mirror.
Sources: seed 000 Example 1, seed 001 (a -> b -> c -> d, e), facts sections 0-3.
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
X_VALUES = [0.5, -1.0, 2.0, 0.0, 1.5]


@pytest.fixture(params=["autograd_lesson", pytest.param("torch", marks=pytest.mark.parity)])
def lib(request):
    return al if request.param == "autograd_lesson" else request.getfixturevalue("torch")


# -- helpers -------------------------------------------------------------------------------------
def tensor(lib, values, requires_grad=True):
    return lib.tensor(np.asarray(values, dtype=np.float64), dtype=lib.float64,
                      requires_grad=requires_grad)


def grad(t):
    return None if t.grad is None else np.array(t.grad.detach().numpy(), dtype=np.float64)


def slot_state(node, slot):
    """'alive' if ``node._saved_<slot>`` can be read, 'freed' if it raises PyTorch's message."""
    try:
        getattr(node, "_saved_" + slot)
    except RuntimeError as exc:
        assert str(exc) == FREED
        return "freed"
    return "alive"


def raises_freed(call):
    with pytest.raises(RuntimeError) as info:
        call()
    assert str(info.value) == FREED
    return True


def walk(*roots):
    """Every node reachable from the roots' grad_fn (BFS over next_functions)."""
    seen, order = set(), []
    queue = [r.grad_fn for r in roots if r.grad_fn is not None]
    while queue:
        node = queue.pop(0)
        if id(node) in seen:
            continue
        seen.add(id(node))
        order.append(node)
        queue.extend(child for child, _ in node.next_functions if child is not None)
    return order


def count_node_runs(roots, *calls):
    """Node executions (AccumulateGrad included) of ``calls``, counted with pre-hooks."""
    runs = []
    nodes = walk(*roots)
    handles = [n.register_prehook(lambda grad_outputs: runs.append(1)) for n in nodes]
    for call in calls:
        call()
    for h in handles:
        h.remove()
    return len(runs)


def make_graph(lib, op="mul"):
    """Seed 000 Example 1 with fixed values: y = x*2 (or the x+2 twist)."""
    x = tensor(lib, X_VALUES)
    y = x * 2 if op == "mul" else x + 2
    loss1 = y.sum()
    loss2 = (y ** 2).sum()
    return x, y, loss1, loss2


def nodes_of(y, loss2):
    """(MulBackward0 of y, PowBackward0 of loss2)."""
    return y.grad_fn, loss2.grad_fn.next_functions[0][0]


# -- seed 000 Example 1 --------------------------------------------------------------------------
def test_x_times_2_saves_the_scalar_as_a_0dim_int64_tensor(lib):
    x, y, loss1, loss2 = make_graph(lib)
    mul, pow_ = nodes_of(y, loss2)
    assert (mul.name(), pow_.name()) == ("MulBackward0", "PowBackward0")
    other = mul._saved_other
    assert tuple(other.shape) == () and str(other.dtype).endswith("int64") and other.item() == 2
    assert mul._saved_self is None      # x's value is not needed: the other factor is constant
    assert pow_._saved_self is y        # a saved input unpacks to the same Python object


def test_naive_first_call_frees_only_the_nodes_it_runs(lib):
    x, y, loss1, loss2 = make_graph(lib)
    mul, pow_ = nodes_of(y, loss2)
    loss1.backward()
    assert slot_state(mul, "other") == "freed"
    assert slot_state(pow_, "self") == "alive"      # loss1 never reached PowBackward0
    assert loss1.grad_fn.name() == "SumBackward0"   # the graph objects stay


def test_naive_second_call_runs_pow_then_fails_at_mul(lib):
    x, y, loss1, loss2 = make_graph(lib)
    mul, pow_ = nodes_of(y, loss2)
    loss1.backward()
    raises_freed(loss2.backward)
    assert slot_state(pow_, "self") == "freed"      # PowBackward0 ran (and freed) before the failure
    np.testing.assert_allclose(grad(x), [2.0] * 5, atol=1e-6)   # loss1's contribution only


def test_retain_keeps_the_buffers_and_the_grads_add_up(lib):
    x, y, loss1, loss2 = make_graph(lib)
    mul, pow_ = nodes_of(y, loss2)
    loss1.backward(retain_graph=True)
    assert slot_state(mul, "other") == "alive" and slot_state(pow_, "self") == "alive"
    loss2.backward()
    assert slot_state(mul, "other") == "freed" and slot_state(pow_, "self") == "freed"
    np.testing.assert_allclose(grad(x), 2 + 8 * np.array(X_VALUES), atol=1e-6)
    np.testing.assert_allclose(grad(x), [6, -6, 18, 2, 14], atol=1e-6)


def test_reversed_naive_order_fails_too(lib):
    x, y, loss1, loss2 = make_graph(lib)
    mul, pow_ = nodes_of(y, loss2)
    loss2.backward()
    assert slot_state(mul, "other") == "freed" and slot_state(pow_, "self") == "freed"
    raises_freed(loss1.backward)


def test_order_does_not_matter_with_retain(lib):
    x, y, loss1, loss2 = make_graph(lib)
    loss1.backward(retain_graph=True)
    loss2.backward()
    first = grad(x)
    x, y, loss1, loss2 = make_graph(lib)
    loss2.backward(retain_graph=True)
    loss1.backward()
    np.testing.assert_allclose(grad(x), first, atol=1e-6)


def test_summed_loss_gives_the_same_grads_in_fewer_node_runs(lib):
    x, y, loss1, loss2 = make_graph(lib)
    retain_runs = count_node_runs([loss1, loss2], lambda: loss1.backward(retain_graph=True),
                                  loss2.backward)
    retain_grad = grad(x)
    x, y, loss1, loss2 = make_graph(lib)
    total = loss1 + loss2
    sum_runs = count_node_runs([total], total.backward)
    np.testing.assert_allclose(grad(x), retain_grad, atol=1e-6)
    assert (retain_runs, sum_runs) == (7, 6)


def test_summed_loss_holds_nothing_after_its_single_pass(lib):
    x, y, loss1, loss2 = make_graph(lib)
    mul, pow_ = nodes_of(y, loss2)
    loss1.backward(retain_graph=True)      # between the two calls everything is still held
    assert [slot_state(mul, "other"), slot_state(pow_, "self")] == ["alive", "alive"]
    x, y, loss1, loss2 = make_graph(lib)
    mul, pow_ = nodes_of(y, loss2)
    (loss1 + loss2).backward()
    assert [slot_state(mul, "other"), slot_state(pow_, "self")] == ["freed", "freed"]


def test_held_bytes_of_the_notebook_timeline():
    """The notebook's memory table (ours only: it reads our snapshot view)."""
    def held(*roots):
        return take_snapshot(list(roots)).total_bytes

    x = al.randn(1000, requires_grad=True)
    y = x * 2
    loss1, loss2 = y.sum(), (y ** 2).sum()
    del y
    retain = [held(loss1, loss2)]
    loss1.backward(retain_graph=True)
    retain.append(held(loss1, loss2))
    loss2.backward()
    retain.append(held(loss1, loss2))
    x = al.randn(1000, requires_grad=True)
    y = x * 2
    total = y.sum() + (y ** 2).sum()
    del y
    summed = [held(total)]
    total.backward()
    summed.append(held(total))
    assert retain == [4000, 4000, 0] and summed == [4000, 0]


def test_x_plus_2_needs_no_retain(lib):
    x, y, loss1, loss2 = make_graph(lib, op="add")
    loss1.backward()
    loss2.backward()                        # AddBackward0 saves nothing; Pow was not reached
    np.testing.assert_allclose(grad(x), [6, 3, 9, 5, 8], atol=1e-6)


def test_graph_objects_survive_a_backward(lib):
    x, y, loss1, loss2 = make_graph(lib, op="add")
    loss1.backward()
    loss2.backward()
    names = [n.name() for n in walk(loss2)]
    assert names == ["SumBackward0", "PowBackward0", "AddBackward0",
                     "torch::autograd::AccumulateGrad"]
    assert slot_state(loss2.grad_fn.next_functions[0][0], "self") == "freed"


# -- seed 001: a -> b -> c -> d, e ---------------------------------------------------------------
def make_abcde(lib):
    a = lib.autograd.Variable(tensor(lib, [[0.1, 0.2, 0.3, 0.4]], requires_grad=False),
                              requires_grad=True)
    b = a ** 2
    c = b * 2
    return a, b, c, c.mean(), c.sum()


def test_variable_returns_a_plain_leaf_tensor(lib):
    a, *_ = make_abcde(lib)
    assert type(a).__name__ == "Tensor" and a.is_leaf and a.requires_grad


def test_d_backward_frees_both_saves_and_e_backward_fails(lib):
    a, b, c, d, e = make_abcde(lib)
    d.backward()
    assert slot_state(b.grad_fn, "self") == "freed"     # PowBackward0 saved a
    assert slot_state(c.grad_fn, "other") == "freed"    # MulBackward0 saved the scalar 2
    raises_freed(e.backward)


def test_d_with_retain_then_e_gives_5a(lib):
    a, b, c, d, e = make_abcde(lib)
    d.backward(retain_graph=True)
    e.backward()
    np.testing.assert_allclose(grad(a), [[0.5, 1.0, 1.5, 2.0]], atol=1e-6)


def test_retrain_graph_typo_is_a_type_error(lib):
    a, b, c, d, e = make_abcde(lib)
    with pytest.raises(TypeError) as info:
        d.backward(retrain_graph=True)
    assert str(info.value) == "Tensor.backward() got an unexpected keyword argument 'retrain_graph'"
    d.backward()                            # nothing ran: the graph is intact
    np.testing.assert_allclose(grad(a), [[0.1, 0.2, 0.3, 0.4]], atol=1e-6)


def test_implicit_gradient_is_0dim_not_shape_1(lib):
    a, b, c, d, e = make_abcde(lib)
    with pytest.raises(RuntimeError) as info:
        d.backward(lib.tensor([1.0], dtype=lib.float64))
    assert str(info.value) == ("Mismatch in shape: grad_output[0] has a shape of torch.Size([1]) "
                               "and output[0] has a shape of torch.Size([]).")
    d.backward(lib.tensor(1.0, dtype=lib.float64))
    np.testing.assert_allclose(grad(a), [[0.1, 0.2, 0.3, 0.4]], atol=1e-6)


# -- a failed backward is not atomic -------------------------------------------------------------
def make_two_branches(lib, w_branch_first):
    x = tensor(lib, [1.0, 2.0, 3.0])
    w = tensor(lib, [0.5, -0.5, 1.0])
    if w_branch_first:
        w_branch = w * 3
    a = x * 2
    if not w_branch_first:
        w_branch = w * 3
    return x, w, a, (a + w_branch).sum()


@pytest.mark.parametrize("w_branch_first, w_grad", [(False, [3.0, 3.0, 3.0]), (True, None)])
def test_failed_backward_keeps_the_grads_it_already_wrote(lib, w_branch_first, w_grad):
    x, w, a, loss = make_two_branches(lib, w_branch_first)
    a.sum().backward()
    raises_freed(loss.backward)
    np.testing.assert_allclose(grad(x), [2.0, 2.0, 2.0], atol=1e-6)
    if w_grad is None:
        assert w.grad is None
    else:
        np.testing.assert_allclose(grad(w), w_grad, atol=1e-6)


# -- the exercises' answers ----------------------------------------------------------------------
def test_exercise_1_loss1_frees_mul_only_and_loss2_then_fails(lib):
    x = tensor(lib, [1.0, -2.0, 0.5])
    w = tensor(lib, [0.3, 0.1, -1.0])
    h = x * w
    loss1, loss2 = h.sum(), h.tanh().sum()
    tanh = loss2.grad_fn.next_functions[0][0]
    loss1.backward()
    assert [slot_state(h.grad_fn, "self"), slot_state(h.grad_fn, "other"),
            slot_state(tanh, "result")] == ["freed", "freed", "alive"]
    raises_freed(loss2.backward)


def test_exercise_2_exp_fails_twice_reshape_does_not(lib):
    x = tensor(lib, [0.5, -1.0, 2.0])
    y = x.exp()
    y.sum().backward()
    raises_freed(y.mean().backward)
    x = tensor(lib, [0.5, -1.0, 2.0])
    y = x.reshape(3, 1) + 1
    y.sum().backward()
    y.mean().backward()
    np.testing.assert_allclose(grad(x), [1 + 1 / 3] * 3, atol=1e-6)


def test_exercise_3_accumulated_grad(lib):
    x = tensor(lib, [1.0, -1.0, 0.0])
    y = x * 3
    y.sum().backward(retain_graph=True)
    (y ** 2).sum().backward()
    np.testing.assert_allclose(grad(x), [21.0, -15.0, 3.0], atol=1e-6)


# -- the optional "on real PyTorch" cell ---------------------------------------------------------
@pytest.mark.parity
def test_on_real_torch_cell_prints_the_same_text_from_both_engines(torch):
    import on_torch_cells
    theirs, ours = on_torch_cells.texts(torch, "01")
    assert theirs == ours
    assert "✗ RuntimeError: Trying to backward through the graph a second time" in theirs
    assert "freed: #0 MulBackward0._saved_other int64[] 8 B" in theirs
    assert "autograd_lesson printed the same text: True" in on_torch_cells.stored_text("01")


# -- the engine's order (cell 8ceb0339) ------------------------------------------------------------
def test_accumulate_grad_runs_before_newer_ready_nodes(lib):
    """The newest ready node runs first, except that an AccumulateGrad goes first whatever its
    age: x's accumulator exists from ``x * 1`` on, before the ExpBackward0 that is ready with it."""
    x = tensor(lib, [1.0, 2.0])
    v = tensor(lib, [0.5, 1.5])
    early = x * 1  # noqa: F841  (x's AccumulateGrad is made here, before the nodes below)
    h = v.exp()
    loss = (x * h).sum()
    order = []
    for node in walk(loss):
        node.register_prehook(lambda grads, node=node: order.append(node) and None)
    loss.backward()
    names = [n.name() for n in order]
    assert names == ["SumBackward0", "MulBackward0", "torch::autograd::AccumulateGrad",
                     "ExpBackward0", "torch::autograd::AccumulateGrad"]
    assert order[2] is early.grad_fn.next_functions[0][0]  # x's, the older accumulator
    text = "".join(cell_source("8ceb0339"))
    assert "always runs the newest" not in text and "`AccumulateGrad` goes before" in text


# -- which second backward raises (cell d155a113) --------------------------------------------------
def test_the_rule_names_copyslices_next_to_saved_tensors(lib):
    """A CopySlices saves no tensor, yet a second backward through it raises; a graph of nodes
    that keep nothing runs again."""
    a = tensor(lib, [1.0, 2.0])
    buf = lib.zeros(2, 3, dtype=lib.float64)
    buf[:, 0] = a
    assert buf.grad_fn.name() == "torch::autograd::CopySlices"
    assert not [s for s in dir(buf.grad_fn) if s.startswith("_saved_")]
    buf.sum().backward()
    assert raises_freed(lambda: buf.sum().backward())
    loss = (a + 2).sum()
    for _ in range(3):
        loss.backward()
    text = "".join(cell_source("d155a113"))
    assert "`CopySlices`" in text and "fails only if" not in text


def cell_source(cell_id):
    import json
    import pathlib
    path = pathlib.Path(__file__).parent.parent / "notebooks" / "01_multiple_losses.ipynb"
    return next(c["source"] for c in json.loads(path.read_text(encoding="utf-8"))["cells"]
                if c.get("id") == cell_id)
