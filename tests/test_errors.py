"""Error and warning messages: ours must equal PyTorch's ``str(exc)`` exactly, compared live.

Each scenario is written once as ``scenario(lib)`` and run with ``lib=autograd_lesson`` and
``lib=torch``; the exception type and text must match, and ours must be raised by our own code
(a clear Python exception, never a NumPy traceback).
"""
import re
import subprocess
import sys
import traceback
import warnings

import numpy as np
import pytest

import autograd_lesson as al
import scenarios

pytestmark = pytest.mark.parity

TRIGGERED = re.compile(r" \(Triggered internally at [^)]*\.\)$")


def outcome(scenario, lib):
    """('ok', value) or (exception type name, message, our frames' last file)."""
    try:
        return ("ok", scenario(lib))
    except Exception as exc:  # noqa: BLE001 - comparing whatever is raised
        frames = traceback.extract_tb(exc.__traceback__)
        return (type(exc).__name__, str(exc), frames[-1].filename)


def assert_same_error(torch, scenario, expected_type=RuntimeError):
    ours, theirs = outcome(scenario, al), outcome(scenario, torch)
    assert theirs[0] == expected_type.__name__, theirs  # the scenario really fails in torch
    assert ours[:2] == theirs[:2]
    assert "numpy" not in ours[2].replace("\\", "/").split("/site-packages/")[-1].split("/")[0]


def leaf(lib, values=(1.0, 2.0, 3.0)):
    return lib.tensor(list(values), requires_grad=True)


# -- freed graphs ----------------------------------------------------------------------------

def test_second_backward_freed(torch):
    def scenario(lib):
        y = leaf(lib).exp().sum()
        y.backward()
        y.backward()
    assert_same_error(torch, scenario)


def test_autograd_grad_after_backward_freed(torch):
    def scenario(lib):
        x = leaf(lib)
        y = (x * x).sum()
        y.backward()
        lib.autograd.grad(y, x)
    assert_same_error(torch, scenario)


def test_reading_freed_saved_result(torch):
    def scenario(lib):
        y = leaf(lib).exp()
        y.sum().backward()
        return y.grad_fn._saved_result
    assert_same_error(torch, scenario)


def test_reading_freed_saved_self(torch):
    def scenario(lib):
        x = leaf(lib)
        y = x.log()
        y.sum().backward()
        return y.grad_fn._saved_self
    assert_same_error(torch, scenario)


make_square = scenarios.square_function


def test_custom_function_saved_tensors_after_backward(torch):
    def scenario(lib):
        y = make_square(lib).apply(leaf(lib))
        y.sum().backward()
        return y.grad_fn.saved_tensors
    assert_same_error(torch, scenario)


# -- implicit gradient and gradient shapes ---------------------------------------------------

def test_implicit_grad_of_non_scalar_backward(torch):
    assert_same_error(torch, lambda lib: (leaf(lib) * 2).backward())


def test_implicit_grad_of_non_scalar_autograd_grad(torch):
    def scenario(lib):
        x = leaf(lib)
        lib.autograd.grad(x * 2, x)
    assert_same_error(torch, scenario)


@pytest.mark.parametrize("out_shape, grad_values", [
    ((), [1.0]),                 # [1] vs []: the seed-001 "default gradient"
    ((3,), [1.0, 1.0]),          # [2] vs [3]
    ((3,), 1.0),                 # [] vs [3]
])
def test_gradient_shape_mismatch(torch, out_shape, grad_values):
    def scenario(lib):
        y = leaf(lib) * 2
        if out_shape == ():
            y = y.sum()
        y.backward(lib.tensor(grad_values))
    assert_same_error(torch, scenario)


def test_scalar_gradient_0dim_is_accepted(torch):
    def scenario(lib):
        x = leaf(lib)
        (x * 2).sum().backward(lib.tensor(1.0))
        return x.grad.tolist()
    assert outcome(scenario, al) == outcome(scenario, torch) == ("ok", [2.0, 2.0, 2.0])


@pytest.mark.parametrize("grad_dtype", ["float64", "int64"])
def test_gradient_of_another_dtype_is_cast(torch, grad_dtype):
    def scenario(lib):
        x = leaf(lib)
        (x * 2).backward(lib.tensor([1, 2, 3], dtype=getattr(lib, grad_dtype)))
        return x.grad.tolist(), str(x.grad.dtype).replace("torch.", "")
    assert outcome(scenario, al) == outcome(scenario, torch) == ("ok", ([2.0, 4.0, 6.0], "float32"))


@pytest.mark.parametrize("entry", ["backward", "grad"])
def test_empty_inputs(torch, entry):
    def scenario(lib):
        y = (leaf(lib) * 2).sum()
        if entry == "backward":
            lib.autograd.backward(y, inputs=[])
        else:
            lib.autograd.grad(y, [])
    assert_same_error(torch, scenario)


# -- in-place modifications ------------------------------------------------------------------

def test_saved_output_modified_in_place(torch):
    def scenario(lib):
        y = leaf(lib).exp()
        y.add_(1)
        y.sum().backward()
    assert_same_error(torch, scenario)


def test_saved_non_leaf_input_modified_in_place(torch):
    def scenario(lib):
        a = leaf(lib) * 1
        b = a.log()
        a.mul_(2)
        b.sum().backward()
    assert_same_error(torch, scenario)


def test_saved_leaf_modified_under_no_grad(torch):
    def scenario(lib):
        x = leaf(lib)
        y = x ** 2
        with lib.no_grad():
            x.mul_(2)
        y.sum().backward()
    assert_same_error(torch, scenario)


def test_saved_weight_view_changed_by_optimizer_step(torch):
    def scenario(lib):
        lib.manual_seed(0)
        layer = lib.nn.Linear(2, 2)
        h = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        loss = layer(h).sum()
        loss.backward(retain_graph=True)
        lib.optim.SGD(layer.parameters(), lr=0.1).step()
        loss.backward()
    assert_same_error(torch, scenario)


def test_saved_weight_view_changed_by_add_(torch):
    def scenario(lib):
        lib.manual_seed(0)
        layer = lib.nn.Linear(2, 3)
        loss = layer(leaf(lib, (1.0, 2.0)).reshape(1, 2)).sum()
        with lib.no_grad():
            layer.weight.add_(1)
        loss.backward()
    assert_same_error(torch, scenario)


VERSION_SCENARIOS = {
    "view of non-leaf, base changed": "a = x * 1; v = a[0:2]; b = v.log(); a.mul_(2)",
    "view of leaf, leaf changed": "v = x[0:2]; b = v.log()\nwith lib.no_grad():\n    x.mul_(2)",
    "saved non-rg tensor changed": "t = lib.tensor([1.0, 2.0, 3.0]); b = x * t; t.mul_(2)",
    "saved view of non-rg tensor": "t = lib.tensor([[1.0, 2.0, 3.0]]); b = x * t[0]; t.mul_(2)",
    "2-d output changed": "b = x.reshape(3, 1).relu(); b.add_(1)",
    "output changed twice": "b = x.sigmoid(); b.add_(1); b.mul_(2)",
    "max values changed": "v = x.reshape(1, 3).max(dim=1).values; b = v ** 2; v.add_(1)",
    "int index changed": "i = lib.tensor([0, 2]); b = x[i]; i.add_(1)",
    "bool mask changed": "m = lib.tensor([True, False, True]); b = lib.where(m, x, x * 0); m.fill_(False)",
    "float64 leaf changed": "x = x.double().detach().requires_grad_(); b = x ** 2\n"
                            "with lib.no_grad():\n    x.mul_(2)",
    "retained, then output changed": "b = x.exp(); b.sum().backward(retain_graph=True); b.add_(1)",
}


@pytest.mark.parametrize("name", sorted(VERSION_SCENARIOS))
def test_version_check_messages(torch, name):
    def scenario(lib):
        scope = {"lib": lib, "x": leaf(lib)}
        exec(VERSION_SCENARIOS[name], scope)
        scope["b"].sum().backward()
    assert_same_error(torch, scenario)


def test_in_place_change_of_unsaved_tensor_succeeds(torch):
    def scenario(lib):
        x = leaf(lib)
        a = x * 1
        b = a + 1
        a.mul_(2)
        b.sum().backward()
        return x.grad.tolist()
    assert outcome(scenario, al) == outcome(scenario, torch) == ("ok", [1.0, 1.0, 1.0])


def test_in_place_on_leaf_requiring_grad(torch):
    assert_same_error(torch, lambda lib: leaf(lib).add_(1))


def test_in_place_mul_on_leaf_requiring_grad(torch):
    def scenario(lib):
        x = leaf(lib)
        x *= 2
    assert_same_error(torch, scenario)


# -- tensors without history -----------------------------------------------------------------

@pytest.mark.parametrize("form", ["detached", "no_grad", "literal", "grad", "plain"])
def test_backward_of_tensor_without_grad_fn(torch, form):
    def scenario(lib):
        x = leaf(lib)
        if form == "detached":
            (x.detach() * 2).sum().backward()
        elif form == "no_grad":
            with lib.no_grad():
                y = (x * 2).sum()
            y.backward()
        elif form == "literal":
            lib.tensor(1.0).backward()
        elif form == "grad":
            lib.autograd.grad((x.detach() * 2).sum(), x)
        else:
            lib.ones(3).sum().backward()
    assert_same_error(torch, scenario)


# -- autograd.grad inputs --------------------------------------------------------------------

def test_unused_input(torch):
    def scenario(lib):
        x, w = leaf(lib), leaf(lib)
        lib.autograd.grad((x * 2).sum(), [x, w])
    assert_same_error(torch, scenario)


def test_unused_input_allowed_gives_none_or_zeros(torch):
    def scenario(lib):
        x, w = leaf(lib), leaf(lib, (5.0,))
        _, g_none = lib.autograd.grad((x * 2).sum(), [x, w], allow_unused=True, retain_graph=True)
        _, g_zero = lib.autograd.grad((x * 2).sum(), [x, w], materialize_grads=True)
        return g_none, g_zero.tolist(), x.grad
    assert outcome(scenario, al) == outcome(scenario, torch) == ("ok", (None, [0.0], None))


def test_input_not_requiring_grad(torch):
    def scenario(lib):
        x, t = leaf(lib), lib.tensor([1.0, 2.0, 3.0])
        lib.autograd.grad((x * t).sum(), [t])
    assert_same_error(torch, scenario)


# -- requires_grad flags, numpy(), dtypes ----------------------------------------------------

def test_requires_grad_false_on_non_leaf(torch):
    assert_same_error(torch, lambda lib: (leaf(lib) * 2).requires_grad_(False))


def test_requires_grad_attribute_false_on_non_leaf(torch):
    def scenario(lib):
        y = leaf(lib) * 2
        y.requires_grad = False
    assert_same_error(torch, scenario)


def test_numpy_with_requires_grad(torch):
    assert_same_error(torch, lambda lib: leaf(lib).numpy())


@pytest.mark.parametrize("form", ["factory", "method", "attribute"])
def test_integer_tensor_cannot_require_grad(torch, form):
    def scenario(lib):
        if form == "factory":
            return lib.tensor([1, 2], requires_grad=True)
        t = lib.tensor([1, 2])
        if form == "method":
            t.requires_grad_()
        else:
            t.requires_grad = True
    assert_same_error(torch, scenario)


def test_backward_keyword_typo(torch):
    def scenario(lib):
        (leaf(lib) * 2).sum().backward(retrain_graph=True)
    assert_same_error(torch, scenario, TypeError)


# -- shape errors in ops ---------------------------------------------------------------------

def test_broadcast_mismatch(torch):
    assert_same_error(torch, lambda lib: lib.tensor([1.0, 2.0, 3.0]) + lib.tensor([1.0, 2.0, 3.0, 4.0]))


def test_broadcast_mismatch_2d(torch):
    assert_same_error(torch, lambda lib: lib.ones(2, 3) * lib.ones(3, 2))


@pytest.mark.parametrize("op", ["mm", "matmul", "method"])
def test_mm_shape_mismatch(torch, op):
    def scenario(lib):
        a, b = lib.ones(2, 3), lib.ones(2, 3)
        if op == "mm":
            return lib.mm(a, b)
        return a @ b if op == "matmul" else a.mm(b)
    assert_same_error(torch, scenario)


def test_linear_input_feature_mismatch(torch):
    def scenario(lib):
        lib.manual_seed(0)
        lib.nn.Linear(3, 2)(lib.ones(4, 5))
    assert_same_error(torch, scenario)


# -- custom Function returning bad gradients -------------------------------------------------

def make_bad(lib, kind):
    class Bad(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, grad):
            if kind == "too_few":
                return grad
            if kind == "too_many":
                return grad, grad, grad
            return lib.ones(4), grad  # wrong shape for x
    return Bad


@pytest.mark.parametrize("kind", ["too_few", "too_many", "shape"])
def test_custom_function_bad_gradients(torch, kind):
    def scenario(lib):
        x, y = leaf(lib), leaf(lib)
        make_bad(lib, kind).apply(x, y).sum().backward()
    assert_same_error(torch, scenario)


# -- warnings --------------------------------------------------------------------------------

def caught_warnings(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [(w.category, TRIGGERED.sub("", str(w.message))) for w in caught]


def test_non_leaf_grad_warning(torch):
    def scenario(lib):
        y = leaf(lib) * 2
        assert y.grad is None
        assert y.grad is None  # warns on every access, as PyTorch does
    ours, theirs = caught_warnings(lambda: scenario(al)), caught_warnings(lambda: scenario(torch))
    assert len(theirs) == 2 and theirs[0][0] is UserWarning
    assert ours == theirs


def test_non_leaf_grad_warning_points_at_user_code():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (leaf(al) * 2).grad  # noqa: B018
    assert caught[0].filename == __file__


def test_retained_non_leaf_grad_does_not_warn(torch):
    def scenario(lib):
        y = leaf(lib) * 2
        y.retain_grad()
        return y.grad
    assert caught_warnings(lambda: scenario(al)) == caught_warnings(lambda: scenario(torch)) == []


CREATE_GRAPH_PROBE = """
import warnings, torch
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for _ in range(3):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        (x * x).sum().backward(create_graph=True)
print(len(caught))
print(str(caught[0].message))
"""


def test_create_graph_warning_text_and_frequency(torch, monkeypatch):
    """PyTorch warns once per process, so it is probed in a fresh interpreter; ours is re-armed."""
    out = subprocess.run([sys.executable, "-c", CREATE_GRAPH_PROBE], capture_output=True,
                         text=True, check=True).stdout.splitlines()
    monkeypatch.setattr(al.autograd, "_create_graph_warned", False)

    def ours():
        for _ in range(3):
            x = al.tensor([1.0, 2.0], requires_grad=True)
            (x * x).sum().backward(create_graph=True)
    caught = caught_warnings(ours)
    assert int(out[0]) == len(caught) == 1
    assert caught[0] == (UserWarning, TRIGGERED.sub("", out[1]))
    assert "create_graph=True" in caught[0][1]
