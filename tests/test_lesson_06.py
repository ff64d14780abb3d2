"""Lesson 06 (sequential optimization): ``optimizer.step()`` between two backwards.

The source article claims that after ``loss_a.backward(retain_graph=True); optimizer.step()``
"the weights change but the graph buffers remain", so ``loss_b.backward()`` still works. That is
wrong for any multi-layer net: the second layer's ``AddmmBackward0`` saved a view of its weight,
``step()`` bumps the weight's version, and the backward raises. A single Linear on data raises
nothing, but then silently uses the OLD weights. Checked in autograd_lesson and real PyTorch.
"""
import numpy as np
import pytest

import autograd_lesson
import scenarios as S

INPLACE = ("one of the variables needed for gradient computation has been modified by an inplace "
           "operation: [torch.{kind}Tensor {shape}], which is output 0 of AsStrided, is at version "
           "{now}; expected version {saved} instead. Hint: enable anomaly detection to find the "
           "operation that failed to compute its gradient, with "
           "torch.autograd.set_detect_anomaly(True, check_nan=False).")


@pytest.fixture(params=["autograd_lesson", pytest.param("torch", marks=pytest.mark.parity)])
def lib(request):
    if request.param == "torch":
        return request.getfixturevalue("torch")
    return autograd_lesson


def make_model(lib, layers=2, deterministic=True):
    """Linear(4,2), or Linear(4,5)-ReLU-Linear(5,2); deterministic: params overwritten (copy_)."""
    if not deterministic:
        lib.manual_seed(0)
        if layers == 1:
            return lib.nn.Linear(4, 2, dtype=lib.float64)
        return lib.nn.Sequential(lib.nn.Linear(4, 5, dtype=lib.float64), lib.nn.ReLU(),
                                 lib.nn.Linear(5, 2, dtype=lib.float64))
    if layers == 1:
        return S.linear(lib, 4, 2, 50)
    return S.mlp(lib, [4, 5, 2], 50)


def optimizer_for(lib, name, params):
    if name == "sgd":
        return lib.optim.SGD(params, lr=0.1)
    if name == "momentum":
        return lib.optim.SGD(params, lr=0.1, momentum=0.9)
    return lib.optim.Adam(params, lr=0.1)


def setup(lib, layers=2, opt="sgd", x_requires_grad=False, deterministic=True, params=None):
    model = make_model(lib, layers, deterministic)
    optimizer = optimizer_for(lib, opt, params(model) if params else model.parameters())
    x = S.randn(lib, 51, 3, 4, requires_grad=x_requires_grad)
    ya, yb = S.randn(lib, 52, 3, 2), S.randn(lib, 53, 3, 2)
    out = model(x)
    mse = lib.nn.functional.mse_loss
    return model, optimizer, x, yb, out, mse(out, ya), mse(out, yb)


def raised(fn):
    try:
        fn()
    except RuntimeError as error:
        return str(error)
    return None


@pytest.mark.parametrize("opt", ["sgd", "momentum", "adam"])
def test_step_between_backwards_raises_for_an_mlp(lib, opt):
    model, optimizer, _, _, out, loss_a, loss_b = setup(lib, opt=opt)
    optimizer.zero_grad()
    loss_a.backward(retain_graph=True)
    optimizer.step()
    expected = INPLACE.format(kind="Double", shape="[5, 2]", now=3, saved=2)
    assert raised(loss_b.backward) == expected


def test_version_numbers_with_default_init(lib):
    """A fresh Linear weight is at version 1 (init is in place); one step makes it 2."""
    model, optimizer, _, _, _, loss_a, loss_b = setup(lib, deterministic=False)
    assert [p._version for p in model.parameters()] == [1, 1, 1, 1]
    loss_a.backward(retain_graph=True)
    optimizer.step()
    assert [p._version for p in model.parameters()] == [2, 2, 2, 2]
    expected = INPLACE.format(kind="Double", shape="[5, 2]", now=2, saved=1)
    assert raised(loss_b.backward) == expected


def test_the_stale_buffer_is_the_second_layers_saved_weight_view(lib):
    model, optimizer, _, _, out, loss_a, _ = setup(lib)
    layer2 = out.grad_fn
    relu = layer2.next_functions[1][0]  # Addmm's inputs: (bias, mat1, mat2)
    layer1 = relu.next_functions[0][0]
    assert layer2.name() == layer1.name() == "AddmmBackward0"
    assert layer1._saved_mat2 is None  # x does not require grad: W1 is not saved
    assert S._read_slot(layer2, "mat2") == "alive"
    saved = layer2._saved_mat2  # W2.t(): a view sharing W2's version counter
    assert tuple(saved.shape) == (5, 2) and saved._version == model[2].weight._version
    np.testing.assert_array_equal(S.as_array(saved), S.as_array(model[2].weight).T)
    loss_a.backward(retain_graph=True)
    optimizer.step()
    assert S._read_slot(layer2, "mat2") == "stale"
    assert S._read_slot(layer2, "mat1") == "alive"  # the ReLU output was not touched
    assert S._read_slot(layer1, "mat1") == "alive"


def test_single_linear_on_data_silently_uses_the_old_weights(lib):
    model, optimizer, x, yb, _, loss_a, loss_b = setup(lib, layers=1)
    old = [p.detach().clone() for p in model.parameters()]
    optimizer.zero_grad()
    loss_a.backward(retain_graph=True)
    grad_a = [S.as_array(p.grad) for p in model.parameters()]
    optimizer.step()
    new = [p.detach().clone() for p in model.parameters()]
    assert raised(loss_b.backward) is None
    grads = [S.as_array(p.grad) for p in model.parameters()]
    at_old, at_new = grads_at(lib, old, x, yb), grads_at(lib, new, x, yb)
    for g, a, go, gn in zip(grads, grad_a, at_old, at_new):
        np.testing.assert_allclose(g, a + go, atol=1e-6)
        assert np.abs(g - (a + gn)).max() > 1e-3


def test_updating_only_unsaved_weights_raises_nothing(lib):
    """Only layer 1 in the optimizer: its weight was never saved, so nothing goes stale."""
    _, optimizer, _, _, _, loss_a, loss_b = setup(lib, params=lambda m: m[0].parameters())
    loss_a.backward(retain_graph=True)
    optimizer.step()
    assert raised(loss_b.backward) is None


def test_single_linear_on_an_input_that_requires_grad_raises(lib):
    _, optimizer, _, _, _, loss_a, loss_b = setup(lib, layers=1, x_requires_grad=True)
    loss_a.backward(retain_graph=True)
    optimizer.step()
    assert raised(loss_b.backward) == INPLACE.format(kind="Double", shape="[4, 2]", now=3, saved=2)


def test_without_retain_the_second_backward_is_freed(lib):
    _, optimizer, _, _, _, loss_a, loss_b = setup(lib)
    loss_a.backward()
    optimizer.step()
    assert raised(loss_b.backward) == S.FREED


def test_all_backwards_then_step_equals_one_summed_backward(lib):
    model, optimizer, _, _, _, loss_a, loss_b = setup(lib)
    loss_a.backward(retain_graph=True)
    loss_b.backward()
    separate = [S.as_array(p.grad) for p in model.parameters()]
    model, optimizer, _, _, _, loss_a, loss_b = setup(lib)
    (loss_a + loss_b).backward()
    for a, b in zip(separate, [S.as_array(p.grad) for p in model.parameters()]):
        np.testing.assert_allclose(a, b, atol=1e-6)


def test_fresh_forward_after_the_step_works_without_retain(lib):
    model, optimizer, x, yb, _, loss_a, _ = setup(lib)
    loss_a.backward()
    optimizer.step()
    optimizer.zero_grad()
    loss_b = lib.nn.functional.mse_loss(model(x), yb)
    assert raised(loss_b.backward) is None
    new = [p.detach().clone() for p in model.parameters()]
    expected = grads_at(lib, new, x, yb, mlp=True)
    for p, e in zip(model.parameters(), expected):
        np.testing.assert_allclose(S.as_array(p.grad), e, atol=1e-6)


def grads_at(lib, values, x, target, mlp=False):
    """d mse(model(x), target) / d params, at the given parameter values."""
    params = [v.clone().requires_grad_(True) for v in values]
    F = lib.nn.functional
    if mlp:
        out = F.linear(F.relu(F.linear(x, params[0], params[1])), params[2], params[3])
    else:
        out = F.linear(x, params[0], params[1])
    return [S.as_array(g) for g in lib.autograd.grad(F.mse_loss(out, target), params)]
