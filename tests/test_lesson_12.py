"""The claims of notebooks/12_pytorch_tools.ipynb, asked of PyTorch 2.13 and of autograd_lesson.

Each test runs the lesson's code with ``lib`` for ``torch`` (the ``lib`` fixture: the package,
then real torch), at the case the lesson shows and at the edges of the rule it states. Values
come from literal tensors or NumPy seeds, so both libraries compute the same numbers; where the
notebook prints one, the last tests compare its stored output with what torch prints. The CUDA
memory calls have no package twin: they are asked of torch alone, on this CPU build.
"""
import gc
import pathlib
import warnings
import weakref

import nbformat
import numpy as np
import pytest

import scenarios as S

NOTEBOOK = pathlib.Path(__file__).parent.parent / "notebooks" / "12_pytorch_tools.ipynb"
FREED = "Trying to backward through the graph a second time"
OUTSIDE = ("Trying to backward outside of the 'allow_mutation_on_saved_tensors' contextin which "
           "the graph was originally recorded.")
VERSION = "one of the variables needed for gradient computation has been modified by an inplace"
LEAF_INPLACE = "a leaf Variable that requires grad has been used in an in-place operation."
LEAF_BUILTIN = "a leaf Variable that requires grad is being used in an in-place operation."
ONCE = "trying to differentiate twice a function that was marked with @once_differentiable"
NO_GRAPH = "element 0 of tensors does not require grad and does not have a grad_fn"


def outcome(fn):
    try:
        fn()
    except Exception as error:  # noqa: BLE001  (the outcome is the point)
        return f"{type(error).__name__}: {error}"
    return None


def stored_text(cell_id):
    nb = nbformat.read(NOTEBOOK, as_version=4)
    cell = next(c for c in nb.cells if c.get("id") == cell_id)
    return "".join(o.get("text", "") for o in cell.outputs if o.get("output_type") == "stream")


def values(t):
    return np.round(t.detach().numpy().astype(float), 4).tolist()


def mutation(lib):
    return lib.autograd.graph.allow_mutation_on_saved_tensors


# -- 1. allow_mutation_on_saved_tensors ---------------------------------------------------------
def clamped(lib, inplace):
    """Lesson 10's classifier: (weight grad, the BCE loss) with the sigmoid's output clipped."""
    x, y = S.randn(lib, 120, 3, 4, dtype=lib.float32), lib.tensor([[1.0], [0.0], [1.0]])
    model = S.init_params(lib, lib.nn.Sequential(lib.nn.Linear(4, 1), lib.nn.Sigmoid()), 121)
    probs = model(x)
    if inplace:
        probs.clamp_(1e-6, 1 - 1e-6)
    else:
        probs = probs.clamp(1e-6, 1 - 1e-6)
    return model, lib.nn.functional.binary_cross_entropy(probs, y)


def test_the_clamped_loss_raises_and_the_context_gives_the_out_of_place_gradient(lib):
    _, loss = clamped(lib, inplace=True)
    assert "which is output 0 of Sigmoid, is at version 1" in outcome(loss.backward)
    with mutation(lib)() as ctx:
        model, loss = clamped(lib, inplace=True)
        assert len(ctx.cloned) == 1               # the sigmoid's output, and nothing else
        loss.backward()
        assert len(ctx.cloned) == 0               # freed with the node that saved it
    with_remedy = model[0].weight.grad
    model, loss = clamped(lib, inplace=False)
    loss.backward()
    assert lib.equal(with_remedy, model[0].weight.grad)


def test_the_backward_must_run_in_the_block_even_without_a_mutation(lib):
    with mutation(lib)():
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        loss = (a.exp() * 2).sum()                  # nothing changed in place
    assert outcome(loss.backward) == f"AssertionError: {OUTSIDE}"
    # a graph that saved nothing never unpacks, so it does not care
    with mutation(lib)():
        loss = (a + 1).sum()
    loss.backward()
    assert values(a.grad) == [1.0, 1.0]


def test_in_the_block_every_op_meets_a_dispatch_mode_and_every_save_a_pack_hook(torch):
    """The time cost the lesson names, as torch implements the block."""
    from torch.utils._python_dispatch import _get_current_dispatch_mode
    assert _get_current_dispatch_mode() is None
    with torch.autograd.graph.allow_mutation_on_saved_tensors():
        assert type(_get_current_dispatch_mode()).__name__ == "_CloneArgBeforeMutateMode"
        assert torch._C._autograd._top_saved_tensors_default_hooks(False) is not None
    assert _get_current_dispatch_mode() is None


def test_the_blocks_cannot_be_nested(lib):
    def nested():
        with mutation(lib)():
            with mutation(lib)():
                pass
    assert outcome(nested) == "RuntimeError: allow_mutation_on_saved_tensors contexts cannot be nested"
    with mutation(lib)():                           # the failed inner block left no state behind
        pass


def test_only_a_saved_tensor_that_is_changed_gets_a_clone(lib):
    with mutation(lib)() as ctx:
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = a + 1                                   # AddBackward0 saves nothing
        c = (b * 3).sum()                           # saves the scalar only
        b.mul_(2)
        assert len(ctx.cloned) == 0 and b._version == 1
        e = a.exp()
        loss = e.sum()
        loss.backward()                             # freed before the change: nothing to keep
        e.mul_(2)
        assert len(ctx.cloned) == 0
        c.backward()
    assert values(a.grad) == [5.7183, 10.3891]      # exp(a) + 3


def test_a_change_nobody_meant_is_accepted_and_the_old_values_are_used(lib):
    """What 'the version check is gone' means: no error, the gradient of the forward's values."""
    with mutation(lib)():
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        x = lib.tensor([3.0, 4.0])
        loss = (w * x).sum()                        # saves x for w's gradient
        x.mul_(100)
        loss.backward()
    assert values(w.grad) == [3.0, 4.0]
    x = lib.tensor([3.0, 4.0])
    loss = (w * x).sum()
    x.mul_(100)
    assert VERSION in outcome(loss.backward)


# -- 2. what a custom Function keeps --------------------------------------------------------------
def mul_functions(lib):
    class MulSaved(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, w):
            ctx.save_for_backward(x, w)
            return x * w

        @staticmethod
        def backward(ctx, grad):
            x, w = ctx.saved_tensors
            return grad * w, grad * x

    class MulAttr(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, w):
            ctx.x, ctx.w = x, w
            return x * w

        @staticmethod
        def backward(ctx, grad):
            return grad * ctx.w, grad * ctx.x
    return MulSaved, MulAttr


def inputs(lib):
    a = lib.tensor([0.0, 1.0, 2.0], requires_grad=True)
    w = lib.tensor([2.0, 2.0, 2.0], requires_grad=True)
    return a, a + 1, w


def test_only_save_for_backward_goes_through_the_saved_tensor_machinery(lib):
    for Mul, packed in zip(mul_functions(lib), (2, 0)):
        seen = []
        a, h, w = inputs(lib)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: seen.append(t) or t, lambda t: t):
            out = Mul.apply(h, w)
        assert len(seen) == packed, Mul.__name__
        assert len(out.grad_fn.saved_tensors) == packed


def test_an_attribute_has_no_version_check_and_gives_a_silently_wrong_gradient(lib):
    MulSaved, MulAttr = mul_functions(lib)
    a, h, w = inputs(lib)
    out = MulSaved.apply(h, w)
    h.mul_(10)
    assert VERSION in outcome(lambda: out.sum().backward())
    assert "which is output 0 of Mul, is at version 1; expected version 0" in \
        outcome(lambda: out.sum().backward())
    a, h, w = inputs(lib)
    out = MulAttr.apply(h, w)
    h.mul_(10)
    out.sum().backward()
    assert values(w.grad) == [10.0, 20.0, 30.0]     # the right one is h before mul_: [1, 2, 3]
    assert values(a.grad) == [2.0, 2.0, 2.0]


def test_an_attribute_is_never_freed_so_a_second_backward_runs(lib):
    MulSaved, MulAttr = mul_functions(lib)
    a, h, w = inputs(lib)
    out = MulSaved.apply(h, w)
    out.sum().backward()
    assert FREED in outcome(lambda: out.sum().backward())
    assert FREED in outcome(lambda: out.grad_fn.saved_tensors)
    a, h, w = inputs(lib)
    out = MulAttr.apply(h, w)
    out.sum().backward()
    out.sum().backward()
    assert values(a.grad) == [4.0, 4.0, 4.0] and values(out.grad_fn.x) == [1.0, 2.0, 3.0]


def exp_function(lib, as_attribute):
    class Exp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            if as_attribute:
                ctx.y = y
            else:
                ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            y = ctx.y if as_attribute else ctx.saved_tensors[0]
            return grad * y
    return Exp


@pytest.mark.parametrize("as_attribute", [True, False])
def test_an_output_kept_as_an_attribute_makes_a_cycle_that_only_gc_frees(lib, as_attribute):
    Exp = exp_function(lib, as_attribute)
    x = lib.ones(1000, requires_grad=True)
    gc.disable()
    try:
        y = Exp.apply(x)
        node = weakref.ref(y.grad_fn)
        del y
        assert (node() is not None) == as_attribute    # save_for_backward: freed at once
        gc.collect()
        assert node() is None
    finally:
        gc.enable()


def relu_functions(lib):
    class ReluInPlace(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.clamp_(min=0)
            ctx.mark_dirty(x)
            ctx.save_for_backward(x)
            return x

        @staticmethod
        def backward(ctx, grad):
            out, = ctx.saved_tensors
            return grad * (out > 0)

    class ReluForgot(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.clamp_(min=0)
            ctx.save_for_backward(x)
            return x

        @staticmethod
        def backward(ctx, grad):
            out, = ctx.saved_tensors
            return grad * (out > 0)
    return ReluInPlace, ReluForgot


def test_mark_dirty_gives_the_input_the_new_history_and_forgetting_it_is_silent(lib):
    found = []
    for Relu in relu_functions(lib):
        a = lib.tensor([-1.0, 2.0, 3.0], requires_grad=True)
        h = a * 1
        out = Relu.apply(h)
        h.sum().backward()
        found.append((values(h), h.grad_fn.name(), values(a.grad), out is h))
    assert found == [([0.0, 2.0, 3.0], "ReluInPlaceBackward", [0.0, 1.0, 1.0], True),
                     ([0.0, 2.0, 3.0], "MulBackward0", [1.0, 1.0, 1.0], False)]


def test_what_forgot_returns_is_a_view_with_the_right_history(lib):
    _, ReluForgot = relu_functions(lib)
    a = lib.tensor([-1.0, 2.0, 3.0], requires_grad=True)
    h = a * 1
    out = ReluForgot.apply(h)
    assert out._base is h and out.grad_fn.name() == "ReluForgotBackward"
    out.sum().backward()
    assert values(a.grad) == [0.0, 1.0, 1.0]


def test_mark_dirty_refuses_a_leaf_and_forgetting_it_overwrites_the_leaf(lib):
    ReluInPlace, ReluForgot = relu_functions(lib)
    a = lib.tensor([-1.0, 2.0, 3.0], requires_grad=True)
    assert outcome(lambda: ReluInPlace.apply(a)) == f"RuntimeError: {LEAF_INPLACE}"
    assert outcome(lambda: a.add_(1)) == f"RuntimeError: {LEAF_BUILTIN}"   # other words
    b = lib.tensor([-1.0, 2.0, 3.0], requires_grad=True)
    ReluForgot.apply(b)
    assert values(b) == [0.0, 2.0, 3.0] and b.is_leaf


def cube_functions(lib):
    once_differentiable = lib.autograd.function.once_differentiable

    class CubeNumPy(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, grad):
            x, = ctx.saved_tensors
            return grad * lib.from_numpy(3 * x.detach().numpy() ** 2)

    class CubeOnce(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        @once_differentiable
        def backward(ctx, grad):
            x, = ctx.saved_tensors
            return grad * lib.from_numpy(3 * x.detach().numpy() ** 2)

    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, grad):
            x, = ctx.saved_tensors
            return grad * 3 * x ** 2

    class CubeWrong(Cube):
        @staticmethod
        def backward(ctx, grad):
            x, = ctx.saved_tensors
            return grad * 3 * x
    return CubeNumPy, CubeOnce, Cube, CubeWrong


def second_derivative(lib, fn):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    (g,) = lib.autograd.grad((fn.apply(x) ** 2).sum(), x, create_graph=True)
    g.sum().backward()
    return values(x.grad)


def test_a_numpy_backward_loses_a_term_and_once_differentiable_makes_it_loud(lib):
    CubeNumPy, CubeOnce, Cube, _ = cube_functions(lib)
    assert second_derivative(lib, CubeNumPy) == [18.0, 288.0]    # 30 x^4 is [30, 480]
    assert outcome(lambda: second_derivative(lib, CubeOnce)) == f"RuntimeError: {ONCE}"
    assert second_derivative(lib, Cube) == [30.0, 480.0]


def test_the_first_derivative_is_the_same_for_all_three(lib):
    for fn in cube_functions(lib)[:3]:
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        (fn.apply(x) ** 2).sum().backward()
        assert values(x.grad) == [6.0, 192.0], fn.__name__


def test_once_differentiable_under_create_graph_without_a_grad_needing_input_is_quiet(lib):
    """The decorator only marks its result when an input of backward requires grad: a first
    backward of x**3 itself, with create_graph=True, hands it a grad_output that does not."""
    _, CubeOnce, _, _ = cube_functions(lib)
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    (g,) = lib.autograd.grad(CubeOnce.apply(x).sum(), x, create_graph=True)
    assert values(g) == [3.0, 12.0] and not g.requires_grad


def test_gradcheck_passes_the_right_backward_and_names_the_wrong_one(lib):
    _, _, Cube, CubeWrong = cube_functions(lib)
    x64 = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
    assert lib.autograd.gradcheck(Cube.apply, (x64,)) is True
    assert lib.autograd.gradcheck(CubeWrong.apply, (x64,), raise_exception=False) is False
    with pytest.raises(RuntimeError) as error:
        lib.autograd.gradcheck(CubeWrong.apply, (x64,))
    assert type(error.value).__name__ == "GradcheckError"
    assert str(error.value).startswith("Jacobian mismatch for output 0 with respect to input 0,")


def test_gradcheck_in_float32_warns_and_fails_a_right_backward(lib):
    _, _, Cube, _ = cube_functions(lib)
    x32 = lib.tensor([1.0, 2.0], requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert lib.autograd.gradcheck(Cube.apply, (x32,), raise_exception=False) is False
    assert any(str(w.message).startswith("Input #0 requires gradient and is not a double "
                                         "precision floating point") for w in caught)


def test_gradgradcheck_catches_the_numpy_backward(lib):
    CubeNumPy, _, Cube, _ = cube_functions(lib)
    x64 = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
    assert lib.autograd.gradgradcheck(Cube.apply, (x64,)) is True
    assert lib.autograd.gradcheck(CubeNumPy.apply, (x64,)) is True   # its first derivative is right
    assert lib.autograd.gradgradcheck(CubeNumPy.apply, (x64,), raise_exception=False) is False


# -- 3. hooks ---------------------------------------------------------------------------------------
def hook_log(lib):
    log = []
    w = lib.tensor([1.0, 2.0], requires_grad=True)
    h = w * 3
    out = (h ** 2).sum()

    def double(g):
        log.append("tensor hook 2 on h: returns 2 * g")
        return 2 * g
    h.register_hook(lambda g: log.append(f"tensor hook 1 on h: sees {g.tolist()}"))
    h.retain_grad()
    h.register_hook(double)
    h.grad_fn.register_prehook(
        lambda g_out: log.append(f"pre-hook of {h.grad_fn.name()}: gets {g_out[0].tolist()}"))
    h.grad_fn.register_hook(
        lambda g_in, g_out: log.append(f"post-hook of {h.grad_fn.name()}: sends {g_in[0].tolist()}"))
    w.register_hook(lambda g: log.append(f"tensor hook on w: sees {g.tolist()}"))
    w.register_post_accumulate_grad_hook(
        lambda p: log.append(f"post-accumulate hook on w: w.grad = {p.grad.tolist()}"))
    out.backward()
    return log, h, w


def test_the_hooks_run_in_the_order_the_lesson_reads(lib):
    log, h, w = hook_log(lib)
    assert log == ["tensor hook 1 on h: sees [6.0, 12.0]",
                   "tensor hook 2 on h: returns 2 * g",
                   "pre-hook of MulBackward0: gets [12.0, 24.0]",
                   "post-hook of MulBackward0: sends [36.0, 72.0]",
                   "tensor hook on w: sees [36.0, 72.0]",
                   "post-accumulate hook on w: w.grad = [36.0, 72.0]"]
    assert values(h.grad) == [12.0, 24.0] and values(w.grad) == [36.0, 72.0]


def test_retain_grad_sees_the_gradient_after_every_tensor_hook_whatever_the_order(lib):
    for retain_first in (True, False):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        h = w * 3
        if retain_first:
            h.retain_grad()
        h.register_hook(lambda g: g * 2)
        if not retain_first:
            h.retain_grad()
        (h ** 2).sum().backward()
        assert values(h.grad) == [12.0, 24.0]


def test_a_tensor_hook_on_a_tensor_used_twice_sees_the_summed_gradient_once(lib):
    """The edge of exercise 1: the hook runs once, on the sum of both uses' gradients."""
    calls = []
    w = lib.tensor([1.0, 2.0], requires_grad=True)
    h = w * 2
    h.register_hook(lambda g: calls.append(values(g)) or g + 1)
    w.register_hook(lambda g: g * 10)
    (h * h).sum().backward()
    assert calls == [[4.0, 8.0]] and values(w.grad) == [100.0, 180.0]


def test_each_hook_checks_what_it_is_registered_on(lib):
    c = lib.tensor([1.0, 2.0])
    w = lib.tensor([1.0, 2.0], requires_grad=True)
    h = w * 3
    assert outcome(lambda: c.register_hook(lambda g: g)) == \
        "RuntimeError: cannot register a hook on a tensor that doesn't require gradient"
    assert outcome(lambda: c.retain_grad()) == \
        "RuntimeError: can't retain_grad on Tensor that has requires_grad=False"
    assert outcome(lambda: h.register_post_accumulate_grad_hook(lambda p: None)) == \
        "RuntimeError: post accumulate grad hooks cannot be registered on non-leaf tensors"
    assert outcome(lambda: c.register_post_accumulate_grad_hook(lambda p: None)) == \
        "RuntimeError: cannot register a hook on a tensor that doesn't require gradient"
    w.retain_grad()                                      # on a leaf: nothing to do, no error


def test_a_non_leaf_grad_is_none_and_reading_it_warns(lib):
    w = lib.tensor([1.0, 2.0], requires_grad=True)
    h = w * 3
    (h ** 2).sum().backward()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert h.grad is None
    assert str(caught[0].message).startswith("The .grad attribute of a Tensor that is not a leaf "
                                             "Tensor is being accessed.")


def test_a_post_accumulate_hook_runs_once_for_a_parameter_used_twice(lib):
    calls = []
    w = lib.tensor([1.0, 2.0], requires_grad=True)
    w.register_post_accumulate_grad_hook(lambda p: calls.append(values(p.grad)))
    (w * 3 + w * w).sum().backward()
    assert calls == [[5.0, 7.0]]


def make_mlp(lib):
    nn = lib.nn
    return S.init_params(lib, nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU(),
                                            nn.Linear(8, 1)), 122)


def grad_bytes(model):
    return sum(p.grad.numel() * p.grad.element_size() for p in model.parameters()
               if p.grad is not None)


def backward_step(lib, in_backward):
    """(most gradient bytes at once, bytes after the backward, the parameters after the step)."""
    x, y = S.randn(lib, 123, 16, 4, dtype=lib.float32), S.randn(lib, 124, 16, 1, dtype=lib.float32)
    model = make_mlp(lib)
    most = [0]
    if in_backward:
        optimizers = {p: lib.optim.SGD([p], lr=0.1) for p in model.parameters()}

    def hook(p):
        most[0] = max(most[0], grad_bytes(model))
        if in_backward:
            optimizers[p].step()
            optimizers[p].zero_grad()
    for p in model.parameters():
        p.register_post_accumulate_grad_hook(hook)
    lib.nn.functional.mse_loss(model(x), y).backward()
    after = grad_bytes(model)
    if not in_backward:
        optimizer = lib.optim.SGD(model.parameters(), lr=0.1)
        optimizer.step()
        optimizer.zero_grad()
    return most[0], after, [p.detach().clone() for p in model.parameters()]


def test_the_step_in_backward_holds_one_gradient_at_a_time_and_gives_the_same_step(lib):
    plain_most, plain_after, plain = backward_step(lib, in_backward=False)
    most, after, fused = backward_step(lib, in_backward=True)
    assert (plain_most, plain_after) == (484, 484)     # every parameter's gradient
    assert (most, after) == (256, 0)                   # the largest one, Linear(8, 8)'s weight
    assert all(lib.equal(p, q) for p, q in zip(plain, fused))


def test_after_a_step_in_backward_there_is_nothing_left_to_clip(lib):
    model = make_mlp(lib)
    optimizers = {p: lib.optim.SGD([p], lr=0.1) for p in model.parameters()}
    def step_now(p):
        optimizers[p].step()
        optimizers[p].zero_grad()
    for p in model.parameters():
        p.register_post_accumulate_grad_hook(step_now)
    model(lib.ones(2, 4)).sum().backward()
    norm = lib.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    assert norm.item() == 0.0 and all(p.grad is None for p in model.parameters())


# -- 4. checkpointing -----------------------------------------------------------------------------
def dropout_net(lib):
    nn = lib.nn
    return S.init_params(lib, nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Dropout(0.5),
                                            nn.Linear(8, 1)), 125)


def first_layer_grad(lib, preserve=None, dropout=True):
    x = S.randn(lib, 126, 16, 4, dtype=lib.float32)
    model = dropout_net(lib)
    if not dropout:
        model.eval()                     # Dropout does nothing and draws nothing
    lib.manual_seed(1)
    if preserve is None:
        out = model(x)
    else:
        out = model[3](lib.utils.checkpoint.checkpoint(model[:3], x, use_reentrant=False,
                                                       preserve_rng_state=preserve))
    out.sum().backward()
    return model[0].weight.grad


def test_preserve_rng_state_false_changes_the_gradients_of_a_dropout_region(lib):
    plain = first_layer_grad(lib)
    assert lib.equal(plain, first_layer_grad(lib, True))
    assert not lib.equal(plain, first_layer_grad(lib, False))


def test_without_randomness_preserve_rng_state_false_changes_nothing(lib):
    assert lib.equal(first_layer_grad(lib, dropout=False),
                     first_layer_grad(lib, False, dropout=False))


@pytest.mark.parametrize("preserve", [True, False])
def test_only_the_default_leaves_the_generator_where_the_forward_left_it(lib, preserve):
    ends = []
    for backward in (False, True):
        lib.manual_seed(0)
        x = lib.ones(8, requires_grad=True)
        out = lib.utils.checkpoint.checkpoint(lib.nn.Dropout(0.5), x, use_reentrant=False,
                                              preserve_rng_state=preserve)
        if backward:
            out.sum().backward()
        ends.append(lib.rand(4).tolist())
    assert (ends[0] == ends[1]) == preserve


def counted_net(lib, n):
    nn = lib.nn

    class Counted(nn.Module):
        def __init__(self):
            super().__init__()
            self.linear, self.runs = nn.Linear(4, 4), 0

        def forward(self, h):
            self.runs += 1
            return self.linear(h).relu()
    return nn.Sequential(*[Counted() for _ in range(n)])


@pytest.mark.parametrize("blocks, segments, runs", [
    (4, 2, [2, 2, 1, 1]),               # the lesson's case
    (6, 4, [2, 2, 2, 1, 1, 1]),         # exercise 2: pieces of 6 // 4 = 1, the last takes 3
    (6, 1, [1, 1, 1, 1, 1, 1]),         # one segment: it is the last, nothing is checkpointed
    (6, 6, [2, 2, 2, 2, 2, 1]),
    (5, 2, [2, 2, 1, 1, 1])])
def test_checkpoint_sequential_checkpoints_every_segment_but_the_last(lib, blocks, segments, runs):
    net = counted_net(lib, blocks)
    out = lib.utils.checkpoint.checkpoint_sequential(net, segments, S.randn(lib, 127, 16, 4,
                                                     dtype=lib.float32), use_reentrant=False)
    assert [b.runs for b in net] == [1] * blocks          # the forward runs each block once
    out.sum().backward()
    assert [b.runs for b in net] == runs


def test_checkpoint_sequential_warns_without_use_reentrant(lib):
    net = counted_net(lib, 2)
    x = lib.ones(1, 4, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lib.utils.checkpoint.checkpoint_sequential(net, 2, x)
    assert any("checkpoint_sequential: the use_reentrant parameter should be passed explicitly"
               in str(w.message) for w in caught)


# -- 5. saved bytes and the device ----------------------------------------------------------------
def device_lines(lib):
    nn = lib.nn
    model = S.init_params(lib, nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 64),
                                             nn.ReLU(), nn.Linear(64, 4)), 128)
    optimizer = lib.optim.Adam(model.parameters())
    x, y = S.randn(lib, 129, 32, 16, dtype=lib.float32), S.randn(lib, 130, 32, 4, dtype=lib.float32)
    with S.PeakMeter(lib) as mem:
        nn.functional.mse_loss(model(x), y).backward()
    optimizer.step()

    def nbytes(tensors):
        return sum(t.numel() * t.element_size() for t in tensors)
    params = list(model.parameters())
    return (nbytes(params), nbytes(p.grad for p in params),
            nbytes(v for s in optimizer.state.values() for v in s.values()), mem.peak)


def test_parameters_gradients_adam_state_and_saved_peak(lib):
    params, grads, adam, saved = device_lines(lib)
    assert params == grads == 22_032                   # 5,508 float32 numbers
    assert adam == 2 * 22_032 + 6 * 4                  # exp_avg, exp_avg_sq, a 0-dim step each
    assert saved == 36_864 < adam                      # the lesson's meter shows the same


def test_eval_records_a_graph_and_only_the_grad_mode_switches_stop_it(lib):
    model = dropout_net(lib)
    x = S.randn(lib, 126, 16, 4, dtype=lib.float32)
    model.eval()
    with S.PeakMeter(lib) as mem:
        out = model(x)
    assert out.requires_grad and out.grad_fn.name() == "AddmmBackward0" and mem.current > 0
    with lib.no_grad():
        assert not model(x).requires_grad
        with lib.enable_grad():
            assert model(x).requires_grad
    with lib.set_grad_enabled(False):
        assert not model(x).requires_grad
    with lib.set_grad_enabled(True):
        assert model(x).requires_grad
    with lib.inference_mode():
        assert model(x).is_inference()

    @lib.no_grad()
    def decorated():
        return model(x)

    @lib.set_grad_enabled(False)
    def decorated_flag():
        return model(x)
    assert not decorated().requires_grad and not decorated_flag().requires_grad
    assert lib.is_grad_enabled()


def test_eval_changes_what_dropout_saves_not_whether_the_graph_saves(lib):
    x = S.randn(lib, 126, 16, 4, dtype=lib.float32)
    saved = {}
    for mode in ("train", "eval"):
        model = dropout_net(lib)
        getattr(model, mode)()
        with S.PeakMeter(lib) as mem:
            out = model(x)
        saved[mode] = mem.current
        del out
    assert (saved["train"], saved["eval"]) == (1824, 800)   # the eval graph lacks the mask


def test_cuda_memory_calls_on_a_cpu_build(torch):
    if torch.cuda.is_available():
        pytest.skip("a CUDA machine: the lesson's claims are about a build without CUDA")
    assert torch.cuda.max_memory_allocated() == 0          # no error, and nothing measured
    assert torch.cuda.max_memory_reserved() == 0
    with pytest.raises(AttributeError):
        torch.cuda.memory._record_memory_history(max_entries=100_000)
    import inspect
    parameters = inspect.signature(torch.cuda.memory._record_memory_history).parameters
    assert {"enabled", "max_entries"} <= set(parameters)
    assert callable(torch.cuda.memory._dump_snapshot) and callable(torch.cuda.memory._snapshot)
    assert callable(torch.cuda.reset_peak_memory_stats)


# -- the exercises --------------------------------------------------------------------------------
def evaluations(lib):
    net = dropout_net(lib)
    x = S.randn(lib, 126, 16, 4, dtype=lib.float32)

    def eval_only():
        net.eval()
        net(x).sum().backward()

    def under_no_grad():
        with lib.no_grad():
            out = net(x)
        out.sum().backward()

    @lib.no_grad()
    def decorated():
        net(x).sum().backward()

    def enable_inside_no_grad():
        with lib.no_grad():
            with lib.enable_grad():
                out = net(x)
        out.sum().backward()

    def grad_enabled_by_phase(phase="eval"):
        with lib.set_grad_enabled(phase == "train"):
            out = net(x)
        out.sum().backward()
    return {f.__name__: f for f in (eval_only, under_no_grad, decorated, enable_inside_no_grad,
                                    grad_enabled_by_phase)}


def test_exercise_3_which_evaluations_cannot_be_backpropagated(lib):
    found = {name: outcome(f) for name, f in evaluations(lib).items()}
    assert {name for name, o in found.items() if o} == \
        {"under_no_grad", "decorated", "grad_enabled_by_phase"}
    assert all(o == f"RuntimeError: {NO_GRAPH}" for o in found.values() if o)


def softplus_functions(lib):
    class Softplus(lib.autograd.Function):         # the lesson's solution
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return lib.log(1 + lib.exp(x))

        @staticmethod
        def backward(ctx, grad):
            x, = ctx.saved_tensors
            return grad * lib.sigmoid(x)

    class SoftplusAttr(Softplus):                   # the same math, x kept as an attribute
        @staticmethod
        def forward(ctx, x):
            ctx.x = x
            return lib.log(1 + lib.exp(x))

        @staticmethod
        def backward(ctx, grad):
            return grad * lib.sigmoid(ctx.x)
    return Softplus, SoftplusAttr


def test_exercise_4_the_checks_pass_the_solution_and_catch_an_attribute(lib):
    for Softplus, right in zip(softplus_functions(lib), (True, False)):
        x = lib.tensor([-2.0, 0.0, 1.5], dtype=lib.float64, requires_grad=True)
        assert lib.autograd.gradcheck(Softplus.apply, (x,))          # both are right at first
        h = x + 0                                   # AddBackward0 saves nothing
        out = Softplus.apply(h)
        h.mul_(2)
        assert (VERSION in (outcome(lambda: out.sum().backward()) or "")) == right
        out = Softplus.apply(x)
        out.sum().backward()
        assert (FREED in (outcome(lambda: out.sum().backward()) or "")) == right


# -- the notebook's stored outputs, against torch ---------------------------------------------------
def test_the_stored_outputs_are_what_torch_prints(torch):
    log, _, _ = hook_log(torch)
    assert stored_text("l12-hooks").splitlines()[:6] == log
    assert "h.grad = tensor([12., 24.])  w.grad = tensor([36., 72.])" in stored_text("l12-hooks")
    text = stored_text("l12-once-run")
    CubeNumPy, CubeOnce, Cube, CubeWrong = cube_functions(torch)
    assert "CubeNumPy x.grad = tensor([ 18., 288.])" in text
    assert f"CubeOnce  ✗ RuntimeError: {ONCE}" in text
    assert "Cube      x.grad = tensor([ 30., 480.])" in text
    x64 = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    try:
        torch.autograd.gradcheck(CubeWrong.apply, (x64,))
    except RuntimeError as error:
        assert stored_text("l12-gradcheck-error") == f"{type(error).__name__}: {error}\n"
    params, grads, adam, _ = device_lines(torch)
    text = stored_text("l12-device")
    for number in (params, grads, adam):
        assert f"{number:,} B" in text
