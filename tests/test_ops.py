"""Every op of the catalog without torch: forward values against NumPy, gradients against
central finite differences (float64), second-order gradients against finite differences of
the first-order gradient (along random directions), gradient shapes under broadcasting, and
dtypes in float32."""
import numpy as np
import pytest

import autograd_lesson as al
from op_catalog import CASES, CASES_BY_NAME, make_inputs

EPS = 1e-6


def _all_requiring_grad(case, dtype="float64"):
    inputs = make_inputs(al, case, [True] * len(case.args), dtype)
    return inputs, case.fn(al, *inputs)


def _weights(shape, seed):
    """Fixed random weights: ``sum(out * w)`` makes every output element matter."""
    return np.random.RandomState(seed).randn(*shape)




def _fresh(case, arrays):
    return make_inputs(al, case, [True] * len(arrays), arrays=arrays)


def numerical_gradient(scalar_fn, arrays, eps=EPS):
    """Central differences of ``scalar_fn(arrays) -> float`` with respect to every element."""
    grads = []
    for i, array in enumerate(arrays):
        grad = np.zeros_like(array)
        for index in np.ndindex(array.shape):
            shifted = [a.copy() for a in arrays]
            shifted[i][index] = array[index] + eps
            upper = scalar_fn(shifted)
            shifted[i][index] = array[index] - eps
            grad[index] = (upper - scalar_fn(shifted)) / (2 * eps)
        grads.append(grad)
    return grads


def gradcheck(case):
    """Compare ``backward(w)`` with finite differences of ``sum(fn(x) * w)``; return the grads."""
    arrays = case.arrays()
    inputs = _fresh(case, arrays)
    out = case.fn(al, *inputs)
    weights = _weights(out.shape, 1)
    out.backward(al.tensor(weights))

    def loss(values):
        return float((case.fn(al, *_fresh(case, values)).detach().numpy() * weights).sum())

    expected = numerical_gradient(loss, arrays)
    for x, numeric in zip(inputs, expected):
        if x.grad is None:  # only its shape was used (expand_as)
            np.testing.assert_array_equal(numeric, 0)
            continue
        assert x.grad.shape == x.shape
        np.testing.assert_allclose(x.grad.numpy(), numeric, rtol=1e-5, atol=1e-6)
    return inputs


def _first_order(case, values, create_graph):
    """The gradients of ``sum(fn(x) * w)`` (zeros where an input is unused)."""
    inputs = _fresh(case, values)
    out = case.fn(al, *inputs)
    grads = al.autograd.grad(out, inputs, al.tensor(_weights(out.shape, 1)),
                             create_graph=create_graph, allow_unused=True)
    return inputs, [al.zeros_like(x) if g is None else g for x, g in zip(inputs, grads)]


def gradgradcheck(case, directions=2):
    """Second order: ``autograd.grad`` of ``h = sum_i(grad_i * u_i)`` against central
    differences of h (computed from first-order gradients) along random directions."""
    arrays = case.arrays()
    us = [_weights(a.shape, 10 + i) for i, a in enumerate(arrays)]

    def inner(grads):
        total = None
        for g, u in zip(grads, us):
            term = (g * al.tensor(u)).sum()
            total = term if total is None else total + term
        return total

    inputs, grads = _first_order(case, arrays, create_graph=True)
    total = inner(grads)
    if total.requires_grad:
        analytic = al.autograd.grad(total, inputs, allow_unused=True)
        analytic = [np.zeros(x.shape) if g is None else g.numpy() for x, g in zip(inputs, analytic)]
    else:  # the first-order gradient does not depend on the inputs (a linear op)
        analytic = [np.zeros(x.shape) for x in inputs]

    def h(values):
        return float(inner(_first_order(case, values, create_graph=False)[1]).item())

    eps = 1e-5
    for k in range(directions):
        direction = [_weights(a.shape, 100 * (k + 1) + i) for i, a in enumerate(arrays)]
        upper = h([a + eps * d for a, d in zip(arrays, direction)])
        lower = h([a - eps * d for a, d in zip(arrays, direction)])
        expected = (upper - lower) / (2 * eps)
        got = sum(float((g * d).sum()) for g, d in zip(analytic, direction))
        assert got == pytest.approx(expected, rel=1e-4, abs=1e-5)


FORWARD = [c for c in CASES if c.ref is not None]
SMOOTH = [c for c in CASES if c.name != "dropout_eval" and "float32 output" not in c.tags
          and "overwritten values" not in c.tags]


@pytest.mark.parametrize("case", FORWARD, ids=[c.name for c in FORWARD])
def test_forward_matches_numpy(case):
    _, out = _all_requiring_grad(case)
    expected = np.asarray(case.ref(*case.arrays()))
    assert out.shape == expected.shape
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("case", SMOOTH, ids=[c.name for c in SMOOTH])
def test_gradient_matches_finite_differences(case):
    gradcheck(case)


@pytest.mark.parametrize("case", SMOOTH, ids=[c.name for c in SMOOTH])
def test_second_order_gradient_matches_finite_differences(case):
    gradgradcheck(case)


@pytest.mark.parametrize("name,shapes", [
    ("mul_broadcast_row", [(3, 4), (4,)]),
    ("add_broadcast_outer", [(3, 1), (1, 4)]),
    ("div_broadcast_column", [(3, 4), (3, 1)]),
    ("sub_broadcast_row", [(3, 4), (4,)]),
    ("mul_0dim", [(3, 4), ()]),
])
def test_broadcast_gradients_are_summed_back_to_input_shapes(name, shapes):
    case = CASES_BY_NAME[name]
    inputs, out = _all_requiring_grad(case)
    out.backward(al.ones_like(out))
    assert [tuple(x.grad.shape) for x in inputs] == shapes
    assert out.shape == (3, 4)
    # with an all-ones seed, the gradient of x + y (or x - y) is the number of broadcast copies
    if name == "add_broadcast_outer":
        np.testing.assert_array_equal(inputs[0].grad.numpy(), np.full((3, 1), 4.0))
        np.testing.assert_array_equal(inputs[1].grad.numpy(), np.full((1, 4), 3.0))


@pytest.mark.parametrize("case", SMOOTH, ids=[c.name for c in SMOOTH])
def test_float32_stays_float32(case):
    """Python scalars never promote a float32 tensor, and gradients keep each input's dtype."""
    inputs, out = _all_requiring_grad(case, "float32")
    assert out.dtype is (al.float64 if case.name == "add_float64" else al.float32)
    out.backward(al.ones_like(out))
    assert [x.grad.dtype for x in inputs if x.grad is not None] == [
        x.dtype for x in inputs if x.grad is not None]


@pytest.mark.parametrize("expression,name,dtype", [
    (lambda x: x * 2, "MulBackward0", al.int64),
    (lambda x: x * 2.5, "MulBackward0", al.float64),
    (lambda x: x / 2, "DivBackward0", al.int64),
    (lambda x: 2 / x, "MulBackward0", al.int64),  # reciprocal(x) * 2
])
def test_python_scalars_are_saved_as_wrapped_0dim_tensors(expression, name, dtype):
    x = al.randn(3, requires_grad=True)
    node = expression(x).grad_fn
    assert node.name() == name
    assert node._saved_other.shape == () and node._saved_other.dtype == dtype
    assert node.next_functions[1] == (None, 0)  # the wrapped scalar's edge leads nowhere


def test_dropout_is_a_mul_saving_the_scaled_mask_and_eval_returns_the_input():
    x = al.randn(200, requires_grad=True)
    al.manual_seed(3)
    out = al.nn.functional.dropout(x, 0.25, training=True)
    node = out.grad_fn
    assert node.name() == "MulBackward0"
    assert node._saved_self is None
    mask = node._saved_other.numpy()
    assert set(np.unique(mask)) == {0.0, np.float32(1 / 0.75)}
    np.testing.assert_allclose(out.detach().numpy(), x.detach().numpy() * mask)
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), mask)
    assert al.nn.functional.dropout(x, 0.25, training=False) is x
    assert al.nn.Dropout(0.25).eval()(x) is x


def test_every_case_has_a_reference_or_a_reason():
    without = {c.name for c in CASES if c.ref is None}
    assert without == {"dropout_train"}  # random values: checked by the dropout test above


def test_each_op_class_applies_as_itself():
    """``Op.__init_subclass__`` binds ``apply`` to each op class once: the node is of the
    class it was called on, and a subclass's own ``apply`` (classmethod) is kept and inherited."""
    from autograd_lesson.ops._op import Op
    from autograd_lesson.ops.views import TBackward0

    class Twice(TBackward0):
        pass

    class Logged(Op):
        calls = []

        @classmethod
        def apply(cls, *inputs):
            cls.calls.append(cls.__name__)
            return super().apply(*inputs)

        def forward(ctx, x):
            return x._data * 1

        def backward(ctx, grad):
            return grad

    class LoggedChild(Logged):
        pass

    x = al.ones(2, 3, requires_grad=True)
    assert type(TBackward0.apply(x).grad_fn) is TBackward0
    assert type(Twice.apply(x).grad_fn) is Twice and Twice.apply.__self__ is Twice
    y = LoggedChild.apply(x)
    assert type(y.grad_fn) is LoggedChild and Logged.calls == ["LoggedChild"]
    y.sum().backward()
    assert x.grad.tolist() == [[1.0] * 3] * 2


def test_a_subclass_of_an_op_exposes_its_own_saves():
    """Saved names are installed per class (``saved_attributes.expose``): a subclass of an op that has
    saved before gets its own record, and its nodes read their saves as the base's do."""
    from autograd_lesson.ops.elementwise import MulBackward0

    x, w = al.tensor([1.0, 2.0], requires_grad=True), al.tensor([3.0, 4.0], requires_grad=True)
    base = MulBackward0.apply(x, w).grad_fn

    class Scaled(MulBackward0):
        pass

    node = Scaled.apply(x, w).grad_fn
    assert Scaled._exposed[0] is Scaled and MulBackward0._exposed[0] is MulBackward0
    assert node._saved_other.tolist() == [3.0, 4.0] and node._saved_self.tolist() == [1.0, 2.0]
    assert base._saved_other.tolist() == [3.0, 4.0]
