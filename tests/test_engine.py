"""Engine semantics on toy graphs: what runs, in which order, what is freed, what accumulates.

Most tests need only autograd_lesson; the ones marked ``parity`` replay the same graph in
torch and compare (the order of node execution, the identity of ``.grad`` across backwards).
"""
import numpy as np
import pytest

import autograd_lesson as al
from autograd_lesson import autograd
from autograd_lesson.autograd import Function
from autograd_lesson.autograd import graph as G
from autograd_lesson._autograd_errors import FREED_MESSAGE


def leaf(values, dtype=np.float64):
    return al.tensor(np.asarray(values, dtype=dtype), requires_grad=True)


def record(fn):
    """Run ``fn()`` under an observer; return the events it emitted."""
    events = []
    with G.observe(events.append):
        fn()
    return events


def started(events):
    return [e.node for e in events if isinstance(e, G.NodeStarted)]


class Count(Function):
    """Identity that counts how often its backward runs (a toy node for the engine tests)."""

    calls = 0

    @staticmethod
    def forward(ctx, x):
        return x * 1

    @staticmethod
    def backward(ctx, grad):
        Count.calls += 1
        return grad


# -- basic graph shapes ----------------------------------------------------------------------

def test_diamond_sums_both_paths():
    x = leaf([1.0, 2.0, 3.0])
    a = x * 2.0
    b = a.exp()
    c = a.tanh()
    (b + c).sum().backward()
    a_ = 2 * np.array([1.0, 2.0, 3.0])
    expected = 2 * (np.exp(a_) + 1 - np.tanh(a_) ** 2)
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-12)


def test_diamond_runs_shared_node_once():
    Count.calls = 0
    x = leaf([1.0, 2.0])
    a = Count.apply(x)
    (a * 3.0 + a.exp()).sum().backward()
    assert Count.calls == 1


def test_x_times_x():
    x = leaf([1.0, -2.0, 3.0])
    (x * x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, -4.0, 6.0])


def test_two_roots():
    x = leaf([1.0, 2.0])
    l1 = (x * x).sum()
    l2 = (x * 3.0).sum()
    autograd.backward([l1, l2])
    np.testing.assert_array_equal(x.grad.numpy(), [5.0, 7.0])


def test_two_roots_with_explicit_gradients():
    x = leaf([1.0, 2.0])
    y1, y2 = x * 2.0, x.exp()
    autograd.backward([y1, y2], [al.tensor([1.0, 0.0], dtype=al.float64),
                                 al.tensor([0.0, 1.0], dtype=al.float64)])
    np.testing.assert_allclose(x.grad.numpy(), [2.0, np.exp(2.0)])


def test_deep_chain_of_10000_nodes_has_no_recursion_limit():
    x = leaf([1.0])
    y = x
    for _ in range(10_000):
        y = y + 1.0
    events = record(lambda: y.sum().backward())
    assert x.grad.item() == 1.0
    assert len(started(events)) == 10_000 + 2  # the adds, SumBackward0, AccumulateGrad


def test_each_node_runs_once_per_backward():
    x, w = leaf([1.0, 2.0]), leaf([0.5, -1.0])
    a = x * w
    loss = (a.exp() + a.tanh() * w + a).sum()
    events = record(lambda: loss.backward())
    nodes = started(events)
    assert len(nodes) == len(set(nodes))
    assert len(nodes) == 9  # Sum, Add, Add, Mul, Tanh, Exp, Mul(x*w), two AccumulateGrads


@pytest.mark.parity
def test_execution_order_matches_torch(torch):
    def build(lib, dtype):
        x = lib.tensor([1.0, 2.0, 3.0], dtype=dtype, requires_grad=True)
        w = lib.tensor([0.5, -1.0, 2.0], dtype=dtype, requires_grad=True)
        a = x * w
        b, c = a.exp(), a.tanh()
        d = (x + 1).sigmoid()
        e = b * c + d * w
        return (e.sum() + a.mean()) * (a * 2).sum()

    loss = build(torch, torch.float64)
    torch_order, seen, stack = [], set(), [loss.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        node.register_prehook(lambda grads, node=node: torch_order.append(node.name()))
        stack.extend(child for child, _ in node.next_functions)
    loss.backward()

    ours = build(al, al.float64)
    events = record(lambda: ours.backward())
    assert [n.name() for n in started(events)] == torch_order
    assert len(torch_order) == 16


def test_node_register_prehook_and_hook_see_and_replace_grads():
    x = leaf([1.0, 2.0])
    y = x * 3.0
    seen = {}

    def pre(grad_outputs):
        seen["pre"] = grad_outputs[0].numpy().copy()
        return (grad_outputs[0] * 10,)

    def post(grad_inputs, grad_outputs):
        seen["post"] = (grad_inputs[0].numpy().copy(), grad_outputs[0].numpy().copy())

    y.grad_fn.register_prehook(pre)
    handle = y.grad_fn.register_hook(post)
    y.sum().backward(retain_graph=True)
    np.testing.assert_array_equal(seen["pre"], [1.0, 1.0])
    np.testing.assert_array_equal(seen["post"][0], [30.0, 30.0])
    np.testing.assert_array_equal(seen["post"][1], [10.0, 10.0])
    np.testing.assert_array_equal(x.grad.numpy(), [30.0, 30.0])
    handle.remove()
    seen.clear()
    y.sum().backward()
    assert "post" not in seen and "pre" in seen


# -- retain_graph / freeing ------------------------------------------------------------------

def test_second_backward_without_retain_raises_freed():
    x = leaf([1.0, 2.0])
    loss = (x.exp()).sum()
    loss.backward()
    with pytest.raises(RuntimeError) as info:
        loss.backward()
    assert str(info.value) == FREED_MESSAGE
    np.testing.assert_allclose(x.grad.numpy(), np.exp([1.0, 2.0]))  # the failed call added nothing


def test_retain_graph_allows_a_second_backward():
    x = leaf([1.0, 2.0])
    loss = (x.exp()).sum()
    loss.backward(retain_graph=True)
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp([1.0, 2.0]))


@pytest.fixture
def warn_again(monkeypatch):
    """The create_graph warning is emitted once per process (as PyTorch's); re-arm it."""
    monkeypatch.setattr(autograd, "_create_graph_warned", False)


def test_retain_graph_defaults_to_create_graph(warn_again):
    x = leaf([1.0, 2.0])
    loss = (x * x).sum()
    with pytest.warns(UserWarning):
        loss.backward(create_graph=True)
    assert x.grad.requires_grad and x.grad.grad_fn is not None
    loss.backward()  # retain defaulted to True, so the graph is still there
    np.testing.assert_array_equal(x.grad.detach().numpy(), [4.0, 8.0])


def test_create_graph_true_with_retain_false_frees():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    (g,) = autograd.grad(y, x, create_graph=True, retain_graph=False)
    assert g.grad_fn is not None
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def test_freeing_is_per_executed_node():
    x = leaf([1.0, 2.0])
    a = x.exp()          # reached by both backwards
    b = a.tanh()         # only on the first root's path
    c = a.sigmoid()      # only on the second root's path
    b.sum().backward()
    assert a.grad_fn.saved_buffers()[0].state == "freed"
    assert b.grad_fn.saved_buffers()[0].state == "freed"
    assert c.grad_fn.saved_buffers()[0].state == "alive"  # never executed: keeps its buffer
    np.testing.assert_allclose(c.grad_fn._saved_result.detach().numpy(), 1 / (1 + np.exp(-np.exp([1.0, 2.0]))))
    with pytest.raises(RuntimeError, match="second time"):
        c.sum().backward()  # ... but it needs ExpBackward0, which was freed


def test_unreached_nodes_keep_buffers_under_backward_inputs():
    x, w = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    a = x.exp()
    y = (a * w).sum()
    y.backward(inputs=[w])
    assert y.grad_fn.next_functions[0][0].saved_buffers()  # MulBackward0 ran and released
    assert all(b.state == "freed" for b in y.grad_fn.next_functions[0][0].saved_buffers())
    assert a.grad_fn.saved_buffers()[0].state == "alive"    # ExpBackward0 was not needed
    assert x.grad is None


def test_sum_only_graphs_backprop_repeatedly_and_accumulate():
    x = leaf([1.0, 2.0, 3.0])
    loss = (x + 1).sum()
    for _ in range(3):
        loss.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0, 3.0])
    y = x.t().reshape(3).mean() - x[1:].sum()
    y.backward()
    y.backward()


def test_wrapped_scalar_makes_mul_unrepeatable_but_add_repeatable():
    x = leaf([1.0, 2.0])
    y = x * 2
    y.sum().backward()
    with pytest.raises(RuntimeError, match="second time"):
        y.sum().backward()
    z = x + 2
    z.sum().backward()
    z.sum().backward()


def test_failed_backward_is_not_atomic_partial_accumulation():
    # Facts section 0 rule 6: w's branch is newer than `a`, so its AccumulateGrad runs first.
    x = leaf([1.0, 2.0, 3.0])
    a = x.exp()
    w = leaf([1.0, 1.0, 1.0])
    loss = (a + w * 3.0).sum()
    loss.backward(retain_graph=False)
    x.grad = None
    w.grad = None
    loss2 = (a + w * 3.0).sum()
    with pytest.raises(RuntimeError, match="second time"):
        loss2.backward()
    np.testing.assert_array_equal(w.grad.numpy(), [3.0, 3.0, 3.0])
    assert x.grad is None


def test_failed_backward_branch_created_before_is_not_accumulated():
    x = leaf([1.0, 2.0, 3.0])
    w = leaf([1.0, 1.0, 1.0])
    wb = w * 3.0            # created before `a`: lower sequence number, runs after ExpBackward0
    a = x.exp()
    a.sum().backward()      # frees ExpBackward0
    with pytest.raises(RuntimeError, match="second time"):
        (a + wb).sum().backward()
    assert w.grad is None


@pytest.mark.parity
def test_partial_accumulation_matches_torch(torch):
    def run(lib, before):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        w = lib.tensor([1.0, 1.0, 1.0], requires_grad=True)
        if before:
            wb = w * 3.0
        a = x.exp()
        a.sum().backward()
        if not before:
            wb = w * 3.0
        with pytest.raises(RuntimeError):
            (a + wb).sum().backward()
        return None if w.grad is None else w.grad.tolist()

    for before in (True, False):
        assert run(al, before) == run(torch, before)


# -- inputs= and autograd.grad ---------------------------------------------------------------

def test_backward_inputs_accumulates_only_into_inputs():
    x, w = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    (x * w).sum().backward(inputs=[x])
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 4.0])
    assert w.grad is None


def test_backward_inputs_with_non_leaf_input():
    x = leaf([1.0, 2.0])
    h = x * 3.0
    (h * h).sum().backward(inputs=[h])
    np.testing.assert_array_equal(h.grad.numpy(), [6.0, 12.0])
    assert x.grad is None


@pytest.mark.parity
def test_backward_inputs_non_leaf_matches_torch(torch):
    """A non-leaf input is made to retain its grad, and its own node runs (and is freed)."""
    results = []
    for lib in (al, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        h = x.exp()
        (h * h).sum().backward(inputs=[h])
        with pytest.raises(RuntimeError) as info:
            h.grad_fn._saved_result
        results.append((h.retains_grad, np.round(h.grad.tolist(), 5).tolist(), x.grad,
                        str(info.value)))
    assert results[0] == results[1]


def test_autograd_grad_leaves_dot_grad_untouched():
    x = leaf([1.0, 2.0])
    (g,) = autograd.grad((x * x).sum(), x)
    np.testing.assert_array_equal(g.numpy(), [2.0, 4.0])
    assert x.grad is None
    x.grad = al.tensor([7.0, 7.0], dtype=al.float64)
    autograd.grad((x * x).sum(), [x])
    np.testing.assert_array_equal(x.grad.numpy(), [7.0, 7.0])


def test_autograd_grad_of_intermediate():
    x = leaf([1.0, 2.0])
    h = x.exp()
    (g,) = autograd.grad((h * h).sum(), h)
    np.testing.assert_allclose(g.numpy(), 2 * np.exp([1.0, 2.0]))


def test_allow_unused_and_materialize_grads():
    x, w = leaf([1.0, 2.0]), leaf([3.0])
    gx, gw = autograd.grad((x * 2.0).sum(), [x, w], allow_unused=True)
    assert gw is None
    gx, gw = autograd.grad((x * 2.0).sum(), [x, w], materialize_grads=True)
    np.testing.assert_array_equal(gw.numpy(), [0.0])
    assert gw.dtype is al.float64


def _per_loss_grads(lib, **options):
    """Two losses on one shared ``h``; their per-loss gradients in one batched ``grad`` call."""
    w = lib.tensor(np.array([0.3, -1.2, 0.8]), requires_grad=True)
    b = lib.tensor(np.array([[0.5, -0.1], [2.0, 0.4]]), requires_grad=True)
    h = (w * 2).tanh()
    losses = lib.stack([(h ** 2).sum(), h.exp().sum() + (b * b).sum()])
    grads = lib.autograd.grad(losses, [w, b], grad_outputs=lib.eye(2, dtype=lib.float64),
                              is_grads_batched=True, **options)
    return h, losses, grads


@pytest.mark.parity
@pytest.mark.parametrize("retain", [None, True])
def test_is_grads_batched_matches_torch_values_shapes_and_release(torch, retain):
    states = []
    for lib in (al, torch):
        h, losses, (gw, gb) = _per_loss_grads(lib, retain_graph=retain)
        try:
            h.grad_fn._saved_result
            state = "alive"
        except RuntimeError as exc:
            state = str(exc)
        states.append((tuple(gw.shape), tuple(gb.shape), np.round(gw.tolist(), 6).tolist(),
                       np.round(gb.tolist(), 6).tolist(), state))
    assert states[0] == states[1]
    assert states[0][4] == ("alive" if retain else FREED_MESSAGE)


@pytest.mark.parity
def test_is_grads_batched_rows_equal_separate_backwards(torch):
    for lib in (al, torch):
        _, _, (gw, _) = _per_loss_grads(lib)
        w = lib.tensor(np.array([0.3, -1.2, 0.8]), requires_grad=True)
        h = (w * 2).tanh()
        l1, l2 = (h ** 2).sum(), h.exp().sum()
        g1, = lib.autograd.grad(l1, w, retain_graph=True)
        g2, = lib.autograd.grad(l2, w)
        np.testing.assert_allclose(np.array(gw.tolist()), np.array([g1.tolist(), g2.tolist()]))


@pytest.mark.parity
def test_is_grads_batched_unused_input_and_bad_shape_match_torch(torch):
    outcomes = []
    for lib in (al, torch):
        w = lib.tensor(np.array([0.3, -1.2]), requires_grad=True)
        u = lib.tensor(np.array([1.0, 2.0]), requires_grad=True)
        out = lib.stack([(w * w).sum(), w.exp().sum()])
        eye = lib.eye(2, dtype=lib.float64)
        row = []
        for options in ({}, {"allow_unused": True}, {"materialize_grads": True}):
            try:
                g = lib.autograd.grad(out, [w, u], grad_outputs=eye, is_grads_batched=True,
                                      retain_graph=True, **options)[1]
                row.append(None if g is None else (tuple(g.shape), g.tolist()))
            except RuntimeError as exc:
                row.append(str(exc))
        for bad in (lib.ones(4, 3, dtype=lib.float64), lib.ones(4, 2, 3, dtype=lib.float64)):
            with pytest.raises(RuntimeError) as info:
                lib.autograd.grad(out, [w], grad_outputs=bad, is_grads_batched=True,
                                  retain_graph=True)
            row.append(str(info.value))
        outcomes.append(row)
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][2] == ((2,), [0.0, 0.0])  # materialized zeros carry no batch dimension


@pytest.mark.parity
def test_is_grads_batched_with_create_graph_records_the_rows(torch):
    """The per-loss gradients can be differentiated again: same values and second-order grads."""
    results = []
    for lib in (al, torch):
        w = lib.tensor(np.array([0.3, -1.2, 0.8]), requires_grad=True)
        h = (w * 2).tanh()
        losses = lib.stack([(h ** 2).sum(), h.exp().sum()])
        gw, = lib.autograd.grad(losses, [w], grad_outputs=lib.eye(2, dtype=lib.float64),
                                is_grads_batched=True, create_graph=True)
        (gw ** 2).sum().backward()
        results.append((gw.requires_grad, np.round(gw.tolist(), 6).tolist(),
                        np.round(w.grad.tolist(), 6).tolist()))
    assert results[0] == results[1]
    assert results[0][0] is True


def test_retain_grad_on_non_leaf():
    x = leaf([1.0, 2.0])
    h = x * 3.0
    h.retain_grad()
    (h * h).sum().backward()
    np.testing.assert_array_equal(h.grad.numpy(), [6.0, 12.0])
    np.testing.assert_array_equal(x.grad.numpy(), [18.0, 36.0])


# -- tensor hooks ----------------------------------------------------------------------------

def test_tensor_hook_on_leaf_replaces_what_is_accumulated():
    x = leaf([1.0, 2.0])
    seen = []
    x.register_hook(lambda g: seen.append(g.numpy().copy()))
    x.register_hook(lambda g: g * 10)
    (x * 2.0).sum().backward()
    np.testing.assert_array_equal(seen[0], [2.0, 2.0])
    np.testing.assert_array_equal(x.grad.numpy(), [20.0, 20.0])


def test_tensor_hook_on_non_leaf_changes_upstream_grads():
    x = leaf([1.0, 2.0])
    h = x * 2.0
    handle = h.register_hook(lambda g: g * 10)
    h.sum().backward(retain_graph=True)
    np.testing.assert_array_equal(x.grad.numpy(), [20.0, 20.0])
    handle.remove()
    h.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [22.0, 22.0])


@pytest.mark.parity
def test_hook_and_retain_grad_order_matches_torch(torch):
    def run(lib, retain_first):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2.0
        if retain_first:
            y.retain_grad()
        y.register_hook(lambda g: g * 10)
        if not retain_first:
            y.retain_grad()
        y.sum().backward()
        return y.grad.tolist(), x.grad.tolist()

    for retain_first in (True, False):
        assert run(al, retain_first) == run(torch, retain_first)


def test_hook_fires_once_per_backward():
    x = leaf([1.0, 2.0])
    h = x.exp()
    calls = []
    h.register_hook(lambda g: calls.append(1))
    (h * 2.0 + h * 3.0).sum().backward()
    assert len(calls) == 1


# -- double backward, dtype and grad identity --------------------------------------------------

def test_create_graph_double_backward():
    x = leaf([1.0, 2.0])
    y = (x ** 3).sum()
    (g,) = autograd.grad(y, x, create_graph=True)
    assert g.grad_fn is not None
    g.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [6.0, 12.0])


def test_backward_create_graph_gives_grad_with_history(warn_again):
    x = leaf([1.0, 2.0])
    with pytest.warns(UserWarning, match="create_graph=True"):
        (x * x * x).sum().backward(create_graph=True)
    assert x.grad.requires_grad and x.grad.grad_fn is not None
    np.testing.assert_array_equal(x.grad.detach().numpy(), [3.0, 12.0])
    grad = x.grad
    x.grad = None
    grad.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [6.0, 12.0])


@pytest.mark.parity
def test_grad_object_identity_across_backwards_matches_torch(torch):
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        (x * x).sum().backward()
        first = x.grad
        (x * 3.0).sum().backward()
        return x.grad is first, x.grad.tolist()

    assert run(al) == run(torch) == (True, [5.0, 7.0])


def test_grads_stay_float32_for_float32_leaves():
    x = al.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2.0
    y.backward(al.tensor([1.0, 1.0], dtype=al.float64))
    assert x.grad.dtype is al.float32
    (x.double() * 3).sum().backward()  # a float64 gradient flowing into a float32 leaf
    assert x.grad.dtype is al.float32
    np.testing.assert_array_equal(x.grad.numpy(), [5.0, 5.0])


def test_observer_does_not_change_outcome():
    def run(observe):
        x, w = leaf([1.0, 2.0]), leaf([0.5, -1.0])
        loss = ((x * w).tanh() + x.exp()).sum()
        if observe:
            record(lambda: loss.backward())
        else:
            loss.backward()
        return x.grad.numpy().copy(), w.grad.numpy().copy()

    (a1, b1), (a2, b2) = run(False), run(True)
    np.testing.assert_array_equal(a1, a2)
    np.testing.assert_array_equal(b1, b2)


@pytest.mark.parity
def test_retained_non_leaf_grad_is_replaced_not_updated_in_place(torch):
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.retain_grad()
        s = (y * y).sum()
        s.backward(retain_graph=True)
        first = y.grad
        s.backward()
        return y.grad is first, y.grad.tolist(), first.tolist()

    assert run(al) == run(torch) == (False, [8.0, 16.0], [4.0, 8.0])


# -- custom Functions ------------------------------------------------------------------------

def custom_functions(lib):
    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x * x
            ctx.save_for_backward(x, y)
            return y

        @staticmethod
        def backward(ctx, grad):
            x, _ = ctx.saved_tensors
            return 2 * x * grad

    class Two(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 * 2 + g2 * 3

    class Scale(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.k = k
            return x * k

        @staticmethod
        def backward(ctx, grad):
            return grad * ctx.k, None

    class Split(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            mask = x > 1.5
            ctx.mark_non_differentiable(mask)
            return x * 2, mask

        @staticmethod
        def backward(ctx, grad, grad_mask):
            return grad * 2

    return Square, Two, Scale, Split


CUSTOM = {
    "saved identity": "y = Square.apply(x); s = y.grad_fn.saved_tensors\n"
                      "out = (s[0] is x, s[1] is y, s[1].grad_fn is y.grad_fn)",
    "names": "y = Square.apply(x); out = (y.grad_fn.name(), type(y.grad_fn).__name__, "
             "y.grad_fn.needs_input_grad)",
    "one of two outputs": "a, b = Two.apply(x); a.sum().backward(); out = x.grad.tolist()",
    "both outputs": "a, b = Two.apply(x); (a + b).sum().backward(); out = x.grad.tolist()",
    "non-tensor arg": "y = Scale.apply(x, 3.0); y.sum().backward()\n"
                      "out = (x.grad.tolist(), len(y.grad_fn.next_functions))",
    "non-differentiable": "a, m = Split.apply(x); out = (m.requires_grad, m.grad_fn)\n"
                          "a.sum().backward(); out += (x.grad.tolist(),)",
    "retained saves": "y = Square.apply(x); y.sum().backward(retain_graph=True)\n"
                      "out = [t.tolist() for t in y.grad_fn.saved_tensors]",
    "under no_grad": "with lib.no_grad():\n    y = Square.apply(x)\nout = (y.requires_grad, y.grad_fn)",
    "double backward": "y = Square.apply(x)\n"
                       "(g,) = lib.autograd.grad(y.sum(), x, create_graph=True)\n"
                       "g.sum().backward(); out = x.grad.tolist()",
    "saved input changed": "a = x * 1; y = Square.apply(a); a.mul_(2); y.sum().backward()",
    "saved output changed": "y = Square.apply(x); y.add_(1); y.sum().backward()",
}


@pytest.mark.parity
@pytest.mark.parametrize("name", sorted(CUSTOM))
def test_custom_function_matches_torch(torch, name):
    def run(lib):
        Square, Two, Scale, Split = custom_functions(lib)
        scope = dict(lib=lib, x=lib.tensor([1.0, 2.0], requires_grad=True), Square=Square,
                     Two=Two, Scale=Scale, Split=Split)
        try:
            exec(CUSTOM[name], scope)
        except RuntimeError as exc:
            return "error", str(exc)
        return scope["out"]

    assert run(al) == run(torch)


# -- NumPy's error state: ignored by the walk, the user's own in user code --------------------

def _divide_by_zero(seen, name):
    """What user code sees of the user's ``np.errstate``: ``1 / 0`` raises under divide='raise'."""
    try:
        np.float64(1) / 0
    except FloatingPointError:
        seen.append((name, "raised"))
    else:
        seen.append((name, "silent"))


@pytest.mark.parity
def test_an_rnn_cell_step_ignores_fp_errors_but_its_user_code_does_not(torch):
    """RNNCell switches to the ignore-all state once per step, around its own forward only:
    a subclass's forward, a forward set on the instance and a pack hook run inside a step see
    the user's ``np.errstate``; the step's own overflow raises nothing, as in PyTorch."""
    def run(lib):
        seen = []

        class Mine(lib.nn.RNNCell):
            def forward(self, input, hx=None):
                _divide_by_zero(seen, "subclass forward")
                return super().forward(input, hx)

        def pack(t):
            _divide_by_zero(seen, "pack hook")
            return t

        lib.manual_seed(0)
        cell, patched, mine = lib.nn.RNNCell(2, 3), lib.nn.RNNCell(2, 3), Mine(2, 3)
        plain_forward = patched.forward

        def forward(input, hx=None):
            _divide_by_zero(seen, "instance forward")
            return plain_forward(input, hx)
        patched.forward = forward
        with lib.no_grad():
            for p in cell.parameters():
                p.fill_(1.0)
        x = lib.full((1, 2), 3e38)  # (float32: the gates overflow to inf, tanh(inf) = 1)
        with np.errstate(all="raise"):
            h = cell(x).tolist()
            with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
                cell(lib.ones(1, 2, requires_grad=True))
            mine(lib.ones(1, 2))
            patched(lib.ones(1, 2))
        return seen, h
    ours, theirs = run(al), run(torch)
    assert ours == theirs and ours[1] == [[1.0, 1.0, 1.0]]
    assert set(ours[0]) == {("pack hook", "raised"), ("subclass forward", "raised"),
                            ("instance forward", "raised")}


def _user_code_in_backward(lib, seen):
    """One backward that calls every kind of user code the engine calls."""
    class Double(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            _divide_by_zero(seen, "Function.backward")
            return grad * 2

    def pack(t):
        return t

    def unpack(t):
        _divide_by_zero(seen, "unpack hook")
        return t

    def region(t):
        _divide_by_zero(seen, "checkpointed function")
        return t.sin()

    def hook(name, result=None):
        def fn(*args):
            _divide_by_zero(seen, name)
            return result
        return fn

    x = lib.tensor([1.0, 2.0], requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
        h = x.exp()
    y = Double.apply(h) + lib.utils.checkpoint.checkpoint(region, x, use_reentrant=False)
    y.register_hook(hook("tensor hook"))
    y.grad_fn.register_prehook(hook("node pre-hook"))
    y.grad_fn.register_hook(hook("node hook"))
    x.register_hook(hook("leaf hook"))
    x.register_post_accumulate_grad_hook(hook("post-accumulate hook"))
    lib.autograd.graph.register_multi_grad_hook((x, h), hook("multi-grad hook"))
    y.sum().backward()
    return x.grad.tolist()


@pytest.mark.parity
def test_user_code_in_backward_runs_under_the_users_error_state(torch):
    """The engine ignores NumPy's FP errors for its formulas, but a hook, a custom backward, an
    unpack hook or a checkpoint's recomputation run under the user's own ``np.errstate``: as in
    PyTorch, where NumPy's state is the user's alone."""
    results = []
    for lib in (al, torch):
        seen = []
        with np.errstate(divide="raise"):
            grad = _user_code_in_backward(lib, seen)
        results.append((grad, sorted(set(seen))))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6)
    assert results[0][1] == results[1][1]
    assert {outcome for _, outcome in results[0][1]} == {"raised"}
    assert len(results[0][1]) == 9


def test_observers_and_meters_run_under_the_users_error_state():
    from autograd_lesson.extensions import saved_meters

    class Meter:
        def saved(self, saved):
            _divide_by_zero(seen, "meter saved")

        def released(self, saved):
            _divide_by_zero(seen, "meter released")

    seen = []
    x = leaf([1.0, 2.0])
    saved_meters.listeners.append(Meter())
    try:
        with np.errstate(divide="raise"):
            loss = (x * x).sum()
            record_events = G.observe(lambda event: _divide_by_zero(seen, "observer"))
            with record_events:
                loss.backward()
    finally:
        saved_meters.listeners.pop()
    assert set(seen) == {("meter saved", "raised"), ("meter released", "raised"),
                         ("observer", "raised")}


def test_user_code_keeps_the_users_state_after_a_hook_changes_it():
    """A hook that runs ops under an np.errstate of its own makes the ops derive another ignore
    state; the user code called after it still runs under the user's state."""
    seen = []

    def own_state(grad):
        with np.errstate(over="ignore"):
            return grad * 1  # (an op: "ignore" is derived from this hook's state)

    x = leaf([1.0, 2.0])
    y = x.exp()
    y.register_hook(own_state)
    x.register_hook(lambda grad: _divide_by_zero(seen, "leaf hook"))
    with np.errstate(divide="raise"):
        (y * 3).sum().backward()
    assert seen == [("leaf hook", "raised")]


def test_pack_hook_runs_under_the_users_error_state_inside_nested_ops():
    seen = []

    def pack(t):
        _divide_by_zero(seen, "pack hook")
        return t

    x = leaf([1.0, 2.0])
    w, b = leaf([[1.0, 2.0]]), leaf([0.5])
    with np.errstate(divide="raise"), G.saved_tensors_hooks(pack, lambda t: t):
        al.nn.functional.softmax(x, dim=0)  # (an op whose forward applies other ops)
        al.nn.functional.linear(x[None], w, b)  # (t() and addmm under one switch)
        x.exp()
    assert len(seen) >= 4 and set(seen) == {("pack hook", "raised")}


BACKWARD_INF_NAN = {  # gradients PyTorch computes as inf or nan, silently
    "sqrt at 0": lambda lib, x: (x - 1).sqrt().sum(),
    "log at 0": lambda lib, x: (x - 1).log().sum(),
    "pow 0 ** -1": lambda lib, x: ((x - 1) ** -1.0).sum(),
    "div by 0": lambda lib, x: (x / (x - 1)).sum(),
    "inf + -inf in one backward": lambda lib, x: ((x - 1).log() - (x - 1).log() * 2).sum(),
    "overflow": lambda lib, x: (x * 400).exp().sum(),
}


@pytest.mark.parity
@pytest.mark.parametrize("name", sorted(BACKWARD_INF_NAN))
def test_backward_formulas_giving_inf_or_nan_warn_nothing(torch, name):
    """Under the user's ``np.errstate(all="raise")`` and warnings as errors, a backward whose
    formulas compute inf or nan neither raises nor warns (PyTorch never does)."""
    import warnings
    grads = []
    for lib in (al, torch):
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        loss = BACKWARD_INF_NAN[name](lib, x)
        with np.errstate(all="raise"), warnings.catch_warnings():
            warnings.simplefilter("error")
            loss.backward()
        grads.append(np.asarray(x.grad.tolist()))
    np.testing.assert_array_equal(grads[0], grads[1])
    assert not np.isfinite(grads[0]).all()


@pytest.mark.parity
def test_accumulating_inf_and_minus_inf_into_grad_is_silent_nan(torch):
    import warnings
    grads = []
    for lib in (al, torch):
        x = lib.tensor([1.0], dtype=lib.float64, requires_grad=True)
        with np.errstate(all="raise"), warnings.catch_warnings():
            warnings.simplefilter("error")
            (x - 1).log().sum().backward()  # grad inf
            (-(x - 1).log()).sum().backward()  # grad += -inf, in place
        grads.append(x.grad.tolist())
    assert np.isnan(grads[0]).all() and np.isnan(grads[1]).all()


# -- reentrant backward (a custom Function's backward that calls backward()) --------------------
def _deep_reentrant(lib):
    """PyTorch's test_deep_reentrant (test/test_autograd.py), over ``lib``."""
    class DeepReentrant(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            with lib.enable_grad():
                ctx.x = lib.autograd.Variable(x.detach(), requires_grad=True)
                ctx.x = ctx.x - 1
            return ctx.x.detach()

        @staticmethod
        def backward(ctx, x):
            if ctx.x < 0:
                return x
            with lib.enable_grad():
                DeepReentrant.apply(ctx.x).sum().backward()
            return x
    return DeepReentrant


@pytest.mark.parity
def test_deep_reentrant_backward_runs_as_in_torch(torch):
    """2,000 nested backwards: torch's engine hands a reentrant backward deeper than 60 to a
    thread of its pool; so does ours (Python's recursion limit is per thread), instead of
    raising RecursionError. Run twice, as torch's test does, to reuse the escape."""
    for lib in (torch, al):
        deep = _deep_reentrant(lib)
        for start in (2000.0, 200.0):
            v = lib.tensor(start, requires_grad=True)
            deep.apply(v).sum().backward()
            assert v.grad.item() == 1.0


def _nested(lib, each):
    """A Function whose backward calls ``each(depth)``, then runs a backward one level less deep."""
    class Nested(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, depth):
            ctx.depth = depth
            return x * 1

        @staticmethod
        def backward(ctx, g):
            each(ctx.depth)
            if ctx.depth:
                with lib.enable_grad():
                    Nested.apply(lib.ones(1, requires_grad=True), ctx.depth - 1).sum().backward()
            return g, None
    return Nested


@pytest.mark.parity
def test_an_error_deep_in_a_reentrant_backward_reaches_the_caller(torch):
    """The thread's failure is raised on the caller's thread: the same type and message."""
    def fail_at_the_bottom(depth):
        if not depth:
            raise ValueError("deepest")
    messages = []
    for lib in (torch, al):
        with pytest.raises(ValueError) as info:
            _nested(lib, fail_at_the_bottom).apply(lib.ones(1, requires_grad=True), 150).sum().backward()
        messages.append(str(info.value))
    assert messages == ["deepest", "deepest"]


def test_reentrant_depth_is_counted_per_thread():
    from autograd_lesson.extensions import graph_task
    depths = []
    probe = _nested(al, lambda depth: depths.append(graph_task._depth.value))
    probe.apply(al.ones(1, requires_grad=True), 130).sum().backward()
    assert max(depths) == graph_task.MAX_DEPTH and depths[graph_task.MAX_DEPTH] == 1
    assert not getattr(graph_task._depth, "value", 0)
