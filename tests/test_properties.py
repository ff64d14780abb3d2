"""Property tests: random small graphs behave exactly like PyTorch's.

A graph is a short program over 1-3 float64 leaves of shape (2, 2): each instruction applies
one op from a small vocabulary to earlier values (chosen at random, so intermediate nodes
get reused), and which leaves require grad is random too. The same program runs in
autograd_lesson and in torch; gradients, freeing, errors and the order nodes run in must agree.
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import autograd_lesson as al

pytestmark = pytest.mark.parity

UNARY = ["exp_bounded", "tanh", "sigmoid", "relu", "sum", "mean", "square"]
BINARY = ["add", "mul", "sub", "div_positive", "matmul"]
SETTINGS = settings(max_examples=60, deadline=None, derandomize=True, database=None)


def apply(op, a, b):
    """One vocabulary op; ``b`` is ignored by the unary ones."""
    if op == "exp_bounded":
        return a.tanh().exp()          # exp of something in (-1, 1): no overflow
    if op == "tanh":
        return a.tanh()
    if op == "sigmoid":
        return a.sigmoid()
    if op == "relu":
        return a.relu()
    if op == "sum":
        return a.sum()
    if op == "mean":
        return a.mean()
    if op == "square":
        return a ** 2
    if op == "add":
        return a + b
    if op == "mul":
        return a * b
    if op == "sub":
        return a - b
    if op == "div_positive":
        return a / (b.sigmoid() + 0.5)  # the divisor stays in (0.5, 1.5)
    if op == "matmul":
        return a @ b if a.ndim == 2 and b.ndim == 2 else a * b
    raise ValueError(op)


@st.composite
def programs(draw):
    n_leaves = draw(st.integers(1, 3))
    # Leaf 0 always requires grad (else most graphs would have nothing to differentiate);
    # the others are random, so some branches carry no gradient.
    requires_grad = [True] + draw(st.lists(st.booleans(), min_size=n_leaves - 1,
                                           max_size=n_leaves - 1))
    seed = draw(st.integers(0, 2**16))
    steps = []
    for k in range(draw(st.integers(1, 6))):
        available = n_leaves + k
        op = draw(st.sampled_from(UNARY + BINARY))
        # The first operand is usually the newest value, so the graph grows deep, not flat.
        newest = draw(st.booleans()) or draw(st.booleans())
        first = available - 1 if newest else draw(st.integers(0, available - 1))
        steps.append((op, first, draw(st.integers(0, available - 1))))
    return n_leaves, tuple(requires_grad), seed, tuple(steps)


def build(lib, program):
    """Run the program; return (leaves, loss). The loss is the last value, summed."""
    n_leaves, requires_grad, seed, steps = program
    rs = np.random.RandomState(seed)
    leaves = [lib.tensor(rs.uniform(-1.5, 1.5, (2, 2)), requires_grad=rg) for rg in requires_grad]
    values = list(leaves)
    for op, i, j in steps:
        values.append(apply(op, values[i], values[j]))
    return leaves, values[-1].sum()


def backward(loss, **kwargs):
    """Return None on success or (type name, message) of the error."""
    try:
        loss.backward(**kwargs)
    except RuntimeError as exc:
        return type(exc).__name__, str(exc)
    return None


def grads(leaves):
    return [None if t.grad is None else np.asarray(t.grad.tolist()) for t in leaves]


def assert_same_grads(ours, theirs, scale=1.0):
    assert [g is None for g in ours] == [g is None for g in theirs]
    for g, h in zip(ours, theirs):
        if g is not None:
            np.testing.assert_allclose(g, h, rtol=1e-7, atol=1e-6 * scale)


@SETTINGS
@given(programs())
def test_gradients_match_torch(torch, program):
    (our_leaves, our_loss), (leaves, loss) = build(al, program), build(torch, program)
    np.testing.assert_allclose(our_loss.item(), loss.item(), rtol=1e-10)
    assert backward(our_loss) == backward(loss)
    assert_same_grads(grads(our_leaves), grads(leaves))


@SETTINGS
@given(programs())
def test_second_backward_without_retain_fails_exactly_when_torch_does(torch, program):
    (our_leaves, our_loss), (leaves, loss) = build(al, program), build(torch, program)
    assert backward(our_loss) == backward(loss)
    assert backward(our_loss) == backward(loss)  # same success, or same error text
    assert_same_grads(grads(our_leaves), grads(leaves))  # incl. any partial accumulation


@SETTINGS
@given(programs())
def test_retained_graph_backprops_twice_with_doubled_grads(torch, program):
    (our_leaves, our_loss), (leaves, loss) = build(al, program), build(torch, program)
    first = backward(our_loss, retain_graph=True)
    assert first == backward(loss, retain_graph=True)
    if first is not None:  # no leaf requires grad: nothing to retain
        return
    once = grads(our_leaves)
    assert backward(our_loss) is None and backward(loss) is None
    twice = grads(our_leaves)
    assert_same_grads(twice, grads(leaves))
    for g1, g2 in zip(once, twice):
        if g1 is not None:
            np.testing.assert_allclose(g2, 2 * g1, rtol=1e-12)


def torch_execution_order(loss):
    """Names of the nodes torch runs, in order (a pre-hook on every reachable node)."""
    order, seen, stack = [], set(), [loss.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        node.register_prehook(lambda grads, node=node: order.append(node.name()))
        stack.extend(child for child, _ in node.next_functions)
    return order


@SETTINGS
@given(programs())
def test_execution_order_matches_torch(torch, program):
    from autograd_lesson.autograd import graph as G
    (_, our_loss), (_, loss) = build(al, program), build(torch, program)
    if not loss.requires_grad:
        return
    order = torch_execution_order(loss)
    events = []
    with G.observe(events.append):
        our_loss.backward()
    loss.backward()
    assert [e.node.name() for e in events if isinstance(e, G.NodeStarted)] == order
