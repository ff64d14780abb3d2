"""Lesson 06 (sequential optimization): ``optimizer.step()`` between two backwards.

The source article claims that after ``loss_a.backward(retain_graph=True); optimizer.step()``
"the weights change but the graph buffers remain", so ``loss_b.backward()`` still works. That is
wrong for any multi-layer net: the second layer's ``AddmmBackward0`` saved a view of its weight,
the default (and ``foreach``) ``step()`` bumps the weight's version (AdamW with weight decay:
twice), and the backward raises. A ``fused=True`` step or an update through ``p.data`` bumps
nothing: the backward raises nothing and layer 1's gradient mixes the new W2 with the old
activations. A single Linear on data raises nothing, but then silently uses the OLD weights.
Checked in autograd_lesson and real PyTorch.
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


OPTIMIZERS = {"sgd": ("SGD", dict(lr=0.1)), "momentum": ("SGD", dict(lr=0.1, momentum=0.9)),
              "adam": ("Adam", dict(lr=0.1)), "adamw": ("AdamW", dict(lr=0.1)),
              "adagrad": ("Adagrad", dict(lr=0.1))}
BUMPS_PER_STEP = {"sgd": 1, "momentum": 1, "adam": 1, "adamw": 2, "adagrad": 1}


def optimizer_for(lib, name, params, **flags):
    cls, kwargs = OPTIMIZERS[name]
    return getattr(lib.optim, cls)(params, **kwargs, **flags)


def setup(lib, layers=2, opt="sgd", x_requires_grad=False, deterministic=True, params=None,
          **flags):
    model = make_model(lib, layers, deterministic)
    optimizer = optimizer_for(lib, opt, params(model) if params else model.parameters(), **flags)
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


@pytest.mark.parametrize("flags", [{}, {"foreach": True}], ids=["default", "foreach"])
@pytest.mark.parametrize("opt", OPTIMIZERS)
def test_step_between_backwards_raises_for_an_mlp(lib, opt, flags):
    """The default and foreach steps bump every parameter (AdamW, decaying: twice per step)."""
    model, optimizer, _, _, out, loss_a, loss_b = setup(lib, opt=opt, **flags)
    optimizer.zero_grad()
    loss_a.backward(retain_graph=True)
    optimizer.step()
    now = 2 + BUMPS_PER_STEP[opt]
    assert [p._version for p in model.parameters()] == [now] * 4
    expected = INPLACE.format(kind="Double", shape="[5, 2]", now=now, saved=2)
    assert raised(loss_b.backward) == expected


@pytest.mark.parametrize("opt, now", [("sgd", 2), ("adamw", 3)])
def test_version_numbers_with_default_init(lib, opt, now):
    """A fresh Linear weight is at version 1 (init is in place); one step makes it 2, or 3 with
    AdamW (decay p.mul_, then the update): the lesson's 'version 3; expected version 1'."""
    model, optimizer, _, _, _, loss_a, loss_b = setup(lib, opt=opt, deterministic=False)
    assert [p._version for p in model.parameters()] == [1, 1, 1, 1]
    loss_a.backward(retain_graph=True)
    optimizer.step()
    assert [p._version for p in model.parameters()] == [now] * 4
    expected = INPLACE.format(kind="Double", shape="[5, 2]", now=now, saved=1)
    assert raised(loss_b.backward) == expected


def data_step(model, lr=0.1):
    """A hand-written SGD step through ``p.data`` (the lesson's cell)."""
    for p in model.parameters():
        p.data.add_(p.grad, alpha=-lr)


def mixed_layer1_grads(lib, old, new, x, target):
    """What the backward computes for layer 1 when W2 changed without a bump: the NEW W2 (read
    through the saved view) with the OLD activations (ReLU mask, x, out)."""
    F = lib.nn.functional
    W1, b1, W2, b2 = old
    h = F.relu(F.linear(x, W1, b1))
    grad_out = 2 * (F.linear(h, W2, b2) - target) / target.numel()
    grad_pre = (grad_out @ new[2]) * (h > 0)
    return [S.as_array(grad_pre.t() @ x), S.as_array(grad_pre.sum(0))]


@pytest.mark.parametrize("how", ["sgd", "momentum", "adam", "adamw", "adagrad", "p.data"])
def test_fused_or_data_step_raises_nothing_and_mixes_old_and_new(lib, how):
    fused = how != "p.data"
    model, optimizer, x, yb, _, loss_a, loss_b = setup(
        lib, opt=how if fused else "sgd", **({"fused": True} if fused else {}))
    old = [p.detach().clone() for p in model.parameters()]
    loss_a.backward(retain_graph=True)
    grad_a = [S.as_array(p.grad) for p in model.parameters()]
    if fused:
        optimizer.step()
    else:
        data_step(model)
    new = [p.detach().clone() for p in model.parameters()]
    assert [p._version for p in model.parameters()] == [2] * 4  # copy_'d params: no bump
    assert all(np.abs(S.as_array(n) - S.as_array(o)).max() > 1e-3 for n, o in zip(new, old))
    assert raised(loss_b.backward) is None
    grads = [S.as_array(p.grad) - a for p, a in zip(model.parameters(), grad_a)]
    at_old, at_new = grads_at(lib, old, x, yb, mlp=True), grads_at(lib, new, x, yb, mlp=True)
    for g, go, gn in zip(grads[2:], at_old[2:], at_new[2:]):  # layer 2: the old weights
        np.testing.assert_allclose(g, go, atol=1e-10)
        assert np.abs(g - gn).max() > 1e-3
    for g, go, gn, gm in zip(grads[:2], at_old[:2], at_new[:2],
                             mixed_layer1_grads(lib, old, new, x, yb)):  # layer 1: neither
        assert np.abs(g - go).max() > 1e-3 and np.abs(g - gn).max() > 1e-3
        np.testing.assert_allclose(g, gm, atol=1e-10)


@pytest.mark.parametrize("flags, after", [({}, "AsStridedBackward0"),
                                          ({"fused": True}, "TBackward0")],
                         ids=["default", "fused"])
def test_weight_view_grad_fn_is_t_until_the_weight_changes_in_place(lib, flags, after):
    """'output 0 of AsStrided' is not the name of views: a fresh W.t() is TBackward0 and is
    renamed AsStridedBackward0 only once its base was changed in place (not by a fused step)."""
    model, optimizer, _, _, out, loss_a, _ = setup(lib, **flags)
    view = model[2].weight.t()
    before = view.grad_fn.name()
    loss_a.backward()
    optimizer.step()
    assert (before, view.grad_fn.name()) == ("TBackward0", after)


def test_the_message_names_the_saved_views_grad_fn_at_unpack_time(lib):
    """c8bc35a0: X in "output 0 of X" is the saved input's grad_fn when the backward unpacks it:
    a view of W2 taken at forward time reads AsStridedBackward0 after the step, and so does the
    message (not T, the op that made the view)."""
    model, optimizer, _, _, _, loss_a, loss_b = setup(lib)
    view = model[2].weight.t()                      # like the view AddmmBackward0 saved
    loss_a.backward(retain_graph=True)
    optimizer.step()
    name = view.grad_fn.name()
    assert name == "AsStridedBackward0"
    assert f"which is output 0 of {name[:-len('Backward0')]}," in raised(loss_b.backward)


@pytest.mark.parity
def test_conv2d_saves_its_weight_even_on_data(torch):
    """Where 'the first layer's weight is never saved' stops: addmm's rule, not Conv2d's."""
    torch.manual_seed(0)
    linear, conv = torch.nn.Linear(4, 2), torch.nn.Conv2d(1, 1, 3)
    assert linear(torch.randn(3, 4)).grad_fn._saved_mat2 is None
    y = conv(torch.randn(1, 1, 5, 5))  # data: requires_grad=False
    node = y.grad_fn
    assert node.name() == "ConvolutionBackward0"
    assert node._saved_weight is not None and node._saved_weight.shape == (1, 1, 3, 3)
    optimizer = torch.optim.SGD(conv.parameters(), lr=0.1)
    y.sum().backward(retain_graph=True)
    optimizer.step()
    assert raised(y.sum().backward) == INPLACE.format(
        kind="Float", shape="[1, 1, 3, 3]", now=2, saved=1).replace(", which is output 0 of "
                                                                    "AsStrided,", "")


@pytest.mark.parametrize("opt", ["sgd", "adamw"])
def test_correct_patterns_are_safe_with_a_fused_optimizer(lib, opt):
    """Neither correct pattern backpropagates through a graph recorded before a step, so the
    fused optimizer gives the default's parameters."""
    results = []
    for flags in ({}, {"fused": True}):
        model, optimizer, x, yb, _, loss_a, loss_b = setup(lib, opt=opt, **flags)
        (loss_a + loss_b).backward()
        optimizer.step()
        optimizer.zero_grad()
        lib.nn.functional.mse_loss(model(x), yb).backward()  # pattern 2: a fresh forward after the step
        optimizer.step()
        results.append([S.as_array(p) for p in model.parameters()])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


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
    """Only layer 1 in the optimizer (exercise 2(b)): its weight was never saved, so nothing goes
    stale and nothing raises; but loss_b's gradient is the one at the OLD weights (the solution's
    comment), added to loss_a's, not the one at the new weights."""
    model, optimizer, x, yb, _, loss_a, loss_b = setup(lib, params=lambda m: m[0].parameters())
    old = [p.detach().clone() for p in model.parameters()]
    loss_a.backward(retain_graph=True)
    grad_a = [S.as_array(p.grad) for p in model.parameters()]
    optimizer.step()
    new = [p.detach().clone() for p in model.parameters()]
    assert raised(loss_b.backward) is None
    grads = [S.as_array(p.grad) for p in model.parameters()]
    at_old = grads_at(lib, old, x, yb, mlp=True)
    at_new = grads_at(lib, new, x, yb, mlp=True)
    for g, a, go in zip(grads, grad_a, at_old):
        np.testing.assert_allclose(g, a + go, atol=1e-6)
    assert max(np.abs(g - (a + gn)).max() for g, a, gn in zip(grads, grad_a, at_new)) > 1e-3


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


# Every code cell run twice in a row gives the same text, unsanitized:
# tests/test_rerun.py::test_lesson_06_every_code_cell_run_twice_gives_the_same_unsanitized_text
# (it shares test_rerun's execution of this lesson instead of executing it once more).


# -- the optional "on real PyTorch" cell ---------------------------------------------------------
@pytest.mark.parity
def test_on_real_torch_cell_prints_the_same_text_from_both_engines(torch):
    import on_torch_cells
    theirs, ours = on_torch_cells.texts(torch, "06")
    assert theirs == ours
    assert "which is output 0 of AsStrided, is at version 2; expected version 1 instead." in theirs
    assert "stale: #4 AddmmBackward0._saved_mat2 float32[5, 2] 40 B (now v2, saved at v1)" in theirs
    assert "autograd_lesson printed the same text: True" in on_torch_cells.stored_text("06")
