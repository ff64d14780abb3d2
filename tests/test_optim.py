"""``optim``: every optimizer under each implementation flag (default, ``foreach=True``,
``fused=True``) against torch 2.13 on CPU: parameter values and ``_version`` after each step,
validation messages, and writes through ``p.data``. Float32, as a training loop would use."""
import numpy as np
import pytest

import autograd_lesson as al
import scenarios as S

CONFIGS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.1, weight_decay=0.01)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True, maximize=True)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, betas=(0.8, 0.99), weight_decay=0.1)),
    ("Adam", dict(lr=0.01, amsgrad=True, maximize=True)),
    ("AdamW", dict(lr=0.01)),  # weight_decay defaults to 0.01: two bumps per step
    ("AdamW", dict(lr=0.01, weight_decay=0)),
    ("AdamW", dict(lr=0.01, weight_decay=0.1, amsgrad=True)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.1)),
]
FLAGS = {"default": {}, "foreach": dict(foreach=True), "fused": dict(fused=True)}
BUMPS = {"default": 1, "foreach": 1, "fused": 0}


def layer(lib):
    """Linear(3, 2) with the same float32 values in both libraries (copy_: version 2)."""
    lib.manual_seed(0)
    net = lib.nn.Linear(3, 2)
    values = np.random.RandomState(0).randn(8).astype(np.float32)
    with lib.no_grad():
        net.weight.copy_(lib.tensor(values[:6].reshape(2, 3).tolist()))
        net.bias.copy_(lib.tensor(values[6:].tolist()))
    return net


def trajectory(lib, name, kwargs, steps=5):
    net = layer(lib)
    opt = getattr(lib.optim, name)(net.parameters(), **kwargs)
    x = lib.tensor(np.random.RandomState(1).randn(4, 3).astype(np.float32).tolist())
    out = []
    for _ in range(steps):
        opt.zero_grad()
        (net(x) ** 2).mean().backward()
        opt.step()
        out.append([(np.asarray(p.tolist()), p._version) for p in net.parameters()])
    return out


@pytest.mark.parity
@pytest.mark.parametrize("flag", FLAGS)
@pytest.mark.parametrize("name, kwargs", CONFIGS, ids=[f"{n}{k}" for n, k in CONFIGS])
def test_values_and_versions_match_torch_after_each_step(torch, name, kwargs, flag):
    ours = trajectory(al, name, {**kwargs, **FLAGS[flag]})
    theirs = trajectory(torch, name, {**kwargs, **FLAGS[flag]})
    for step, (ours_step, torch_step) in enumerate(zip(ours, theirs), 1):
        for (a, va), (b, vb) in zip(ours_step, torch_step):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
            assert va == vb
    decay_writes = name == "AdamW" and kwargs.get("weight_decay", 0.01) != 0
    per_step = BUMPS[flag] * (2 if decay_writes else 1)
    assert [v for _, v in ours[-1]] == [2 + 5 * per_step] * 2


@pytest.mark.parity
@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "Adagrad"])
def test_fused_changes_values_but_not_versions(torch, name):
    def run(lib):
        net = layer(lib)
        before = [p.tolist() for p in net.parameters()]
        opt = getattr(lib.optim, name)(net.parameters(), lr=0.1, fused=True)
        net(lib.ones(1, 3)).sum().backward()
        opt.step()
        return [p._version for p in net.parameters()], [p.tolist() != b for p, b in
                                                        zip(net.parameters(), before)]
    assert run(al) == run(torch) == ([2, 2], [True, True])


@pytest.mark.parity
def test_writes_through_data_do_not_bump_the_parameter(torch):
    def run(lib):
        p = lib.nn.Parameter(lib.ones(3))
        p.data.add_(lib.ones(3), alpha=-0.5)
        after_add = p._version, p.tolist()
        p.data.copy_(lib.zeros(3))
        return after_add, p._version, p.tolist()
    assert run(al) == run(torch) == ((0, [0.5] * 3), 0, [0.0] * 3)


BAD = [
    ("SGD", dict(lr=-1)), ("SGD", dict(lr=0.1, momentum=-1)),
    ("SGD", dict(lr=0.1, weight_decay=-1)), ("SGD", dict(lr=0.1, nesterov=True)),
    ("Adam", dict(lr=-1)), ("Adam", dict(eps=-1)), ("Adam", dict(betas=(1.0, 0.9))),
    ("Adam", dict(betas=(0.9, 1.0))), ("Adam", dict(betas=(-0.1, 0.9))),
    ("Adam", dict(weight_decay=-1)), ("AdamW", dict(betas=(0.9, 1.5))),
    ("AdamW", dict(weight_decay=-0.1)), ("Adagrad", dict(lr_decay=-1)),
    ("Adagrad", dict(initial_accumulator_value=-1)), ("Adagrad", dict(eps=-1)),
    # torch tests each value as that optimizer's source does, so a bad type fails alike
    ("Adam", dict(betas=(0.9,))), ("Adam", dict(betas=0.9)), ("Adam", dict(betas=(0, 0.99))),
    ("Adam", dict(betas=("a", 0.9))), ("Adam", dict(eps="a")), ("SGD", dict(lr="a")),
    ("SGD", dict(lr=0.1, momentum="a")), ("Adagrad", dict(lr="a")),
] + [(n, dict(lr=0.1, foreach=True, fused=True)) for n in ("SGD", "Adam", "AdamW", "Adagrad")] + [
    (n, dict(lr=0.1, foreach=True, fused=True, differentiable=True)) for n in ("SGD", "Adam")]


@pytest.mark.parity
@pytest.mark.parametrize("name, kwargs", BAD, ids=[f"{n}{k}" for n, k in BAD])
def test_bad_hyperparameters_raise_torchs_error(torch, name, kwargs):
    def run(lib):
        with pytest.raises((ValueError, RuntimeError, TypeError, IndexError)) as info:
            getattr(lib.optim, name)([lib.nn.Parameter(lib.ones(2))], **kwargs)
        return type(info.value), str(info.value)
    assert run(al) == run(torch)


@pytest.mark.parity
@pytest.mark.parametrize("name, kwargs", [("SGD", "lr=lib.tensor(0.1), momentum=0.9"),
                                          ("Adam", "lr=lib.tensor(0.01)"),
                                          ("Adam", "betas=(lib.tensor(0.8), lib.tensor(0.9))"),
                                          ("AdamW", "lr=lib.tensor([0.01])"),
                                          ("Adagrad", "lr=lib.tensor(0.1), lr_decay=0.01")])
def test_a_tensor_learning_rate_or_beta_steps_as_its_number(torch, name, kwargs):
    """PyTorch takes a one-element Tensor lr (or Adam's betas) and keeps it in the group."""
    def run(lib):
        return trajectory(lib, name, eval(f"dict({kwargs})", {"lib": lib}))  # noqa: S307
    for ours_step, torch_step in zip(run(al), run(torch)):
        for (a, va), (b, vb) in zip(ours_step, torch_step):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
            assert va == vb


@pytest.mark.parity
@pytest.mark.parametrize("name, kwargs", [("SGD", "lr=lib.tensor([0.1, 0.2])"),
                                          ("Adam", "lr=lib.tensor(-0.1)"),
                                          ("SGD", "lr=lib.tensor([-0.1])"),
                                          ("Adam", "betas=(lib.tensor(0.9), 0.99)"),
                                          ("Adam", "betas=(lib.tensor([0.9, 0.8]), lib.tensor(0.9))")])
def test_a_bad_tensor_hyperparameter_raises_torchs_error(torch, name, kwargs):
    def run(lib):
        with pytest.raises((ValueError, RuntimeError)) as info:  # (a 2-element beta: bool())
            getattr(lib.optim, name)([lib.nn.Parameter(lib.ones(2))],
                                     **eval(f"dict({kwargs})", {"lib": lib}))  # noqa: S307
        return type(info.value), str(info.value)
    assert run(al) == run(torch)


@pytest.mark.parity
def test_bad_params_raise_torchs_error(torch):
    def run(lib):
        errors = []
        for params in ([], lib.nn.Parameter(lib.ones(2)), [lib.ones(2, requires_grad=True) * 2],
                       [1.0]):
            with pytest.raises((ValueError, TypeError)) as info:
                lib.optim.SGD(params, lr=0.1)
            errors.append((type(info.value), str(info.value)))
        return errors
    assert run(al) == run(torch)


def test_differentiable_is_rejected_with_a_clear_message():
    with pytest.raises(NotImplementedError, match="differentiable=False"):
        al.optim.Adam([al.nn.Parameter(al.ones(2))], differentiable=True)


@pytest.mark.parity
@pytest.mark.parametrize("name", ["SGD", "AdamW", "Adagrad"])
def test_defaults_hold_the_implementation_flags(torch, name):
    def run(lib):
        opt = getattr(lib.optim, name)([lib.nn.Parameter(lib.ones(2))], lr=0.1, fused=True)
        return opt.defaults, sorted(opt.param_groups[0])
    assert run(al) == run(torch)


# -- what the lessons say about old outputs after a step (02's GAN, 04's RNN, 06) ----------------

IMPLEMENTATIONS = [{}, {"foreach": True}, {"fused": True}]


@pytest.mark.parity
@pytest.mark.parametrize("flags", IMPLEMENTATIONS, ids=["default", "foreach", "fused"])
def test_reusing_an_old_D_output_after_optD_step_raises_only_if_the_step_bumps(torch, flags):
    """Lesson 02: G's loss built from the D(fake) of before optD.step()."""
    def run(lib):
        G, D, real, z = S._gan(lib)
        optD = lib.optim.SGD(D.parameters(), lr=0.1, **flags)
        bce = lib.nn.BCELoss()
        ones, zeros = lib.ones(4, 1, dtype=lib.float64), lib.zeros(4, 1, dtype=lib.float64)
        fake = G(z)
        bce(D(real), ones).backward()
        d_out_fake = D(fake)
        bce(d_out_fake, zeros).backward(retain_graph=True)
        optD.step()
        try:
            bce(d_out_fake, ones).backward()
        except RuntimeError as error:
            return str(error)
        return None
    ours = run(al)
    assert ours == run(torch)
    assert (ours is None) == bool(flags.get("fused"))


@pytest.mark.parity
@pytest.mark.parametrize("flags", IMPLEMENTATIONS, ids=["default", "foreach", "fused"])
def test_step_inside_the_per_step_rnn_loop_raises_at_t2_only_if_the_step_bumps(torch, flags):
    """Lesson 04: per-step ``loss.backward(retain_graph=True); optimizer.step()``."""
    def run(lib):
        lib.manual_seed(0)
        cell = lib.nn.RNNCell(3, 4, dtype=lib.float64)
        readout = lib.nn.Linear(4, 2, dtype=lib.float64)
        opt = lib.optim.SGD(list(cell.parameters()) + list(readout.parameters()), lr=0.1, **flags)
        inputs, target = S._rnn_data(lib)
        hidden = lib.zeros(2, 4, dtype=lib.float64)
        for t in range(5):
            hidden = cell(inputs[t], hidden)
            loss = lib.nn.functional.mse_loss(readout(hidden), target[t])
            try:
                loss.backward(retain_graph=True)
            except RuntimeError:
                return t
            opt.step()
        return None
    ours = run(al)
    assert ours == run(torch) == (None if flags.get("fused") else 2)


@pytest.mark.parity
def test_torch_documents_the_implementations_and_has_the_fused_ops(torch):
    """Lesson 06 cites these: one fused op per optimizer; defaults: for-loop on CPU, foreach on
    CUDA; fused 'theoretically fastest'."""
    for op in ("_fused_sgd_", "_fused_adam_", "_fused_adamw_", "_fused_adagrad_"):
        assert callable(getattr(torch, op))
    doc = " ".join(torch.optim.SGD.__doc__.split())
    assert "with fused being theoretically fastest" in doc
    assert "we will attempt defaulting to the foreach implementation when the tensors are all on CUDA" in doc
    params = [torch.nn.Parameter(torch.ones(2))]
    from torch.optim.optimizer import _default_to_fused_or_foreach
    assert _default_to_fused_or_foreach(params, differentiable=False) == (False, False)
