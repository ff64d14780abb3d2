"""``optim``: every optimizer under each implementation flag (default, ``foreach=True``,
``fused=True``) against torch 2.13 on CPU: parameter values and ``_version`` after each step,
validation messages, and writes through ``p.data``. Float32, as a training loop would use."""
import numpy as np
import pytest

import autograd_lesson as al

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
] + [(n, dict(lr=0.1, foreach=True, fused=True)) for n in ("SGD", "Adam", "AdamW", "Adagrad")] + [
    (n, dict(lr=0.1, foreach=True, fused=True, differentiable=True)) for n in ("SGD", "Adam")]


@pytest.mark.parity
@pytest.mark.parametrize("name, kwargs", BAD, ids=[f"{n}{k}" for n, k in BAD])
def test_bad_hyperparameters_raise_torchs_error(torch, name, kwargs):
    def run(lib):
        with pytest.raises((ValueError, RuntimeError)) as info:
            getattr(lib.optim, name)([lib.nn.Parameter(lib.ones(2))], **kwargs)
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
