"""``nn`` and ``optim``: module bookkeeping, the Linear graph, dropout, gradient clipping and
optimizer trajectories, compared with torch (float64, identical starting parameters)."""
import numpy as np
import pytest

import autograd_lesson as al


def mlp(lib, dtype=None):
    lib.manual_seed(0)
    net = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU(), lib.nn.Linear(4, 2))
    return net.double() if dtype == "float64" else net


def twin(torch):
    """The same float64 MLP in both libraries: both get ours's values by ``copy_`` (so both
    parameters are at version 2: init, then the copy)."""
    ours, theirs = mlp(al, "float64"), mlp(torch, "float64")
    for lib, net in ((al, ours), (torch, theirs)):
        with lib.no_grad():
            for p, q in zip(ours.parameters(), net.parameters()):
                q.copy_(lib.tensor(p.tolist(), dtype=lib.float64))
    return ours, theirs


def batch(lib, requires_grad=False):
    rs = np.random.RandomState(0)
    x = lib.tensor(rs.randn(5, 3), requires_grad=requires_grad)
    target = lib.tensor(rs.randn(5, 2))
    return x, target


# -- Module bookkeeping ----------------------------------------------------------------------

@pytest.mark.parity
def test_named_parameters_match_torch(torch):
    def run(lib):
        net = mlp(lib)
        return ([(name, tuple(p.shape), p.is_leaf, p.requires_grad, p._version)
                 for name, p in net.named_parameters()], len(list(net.parameters())))
    assert run(al) == run(torch)


@pytest.mark.parity
def test_module_repr_matches_torch(torch):
    assert repr(mlp(al)) == repr(mlp(torch))
    assert repr(al.nn.Dropout(0.25)) == repr(torch.nn.Dropout(0.25))


@pytest.mark.parity
def test_zero_grad_sets_none_or_zeros(torch):
    def run(lib):
        net = mlp(lib)
        x, _ = batch(lib)
        net(x.float()).sum().backward()
        grad = net[0].weight.grad
        net.zero_grad(set_to_none=False)
        kept = net[0].weight.grad is grad and not np.any(np.asarray(grad.tolist()))
        net.zero_grad()
        return kept, [p.grad for p in net.parameters()]
    assert run(al) == run(torch) == (True, [None] * 4)


def test_optimizer_zero_grad_sets_none():
    net = mlp(al)
    opt = al.optim.SGD(net.parameters(), lr=0.1)
    net(batch(al)[0].float()).sum().backward()
    assert all(p.grad is not None for p in net.parameters())
    opt.zero_grad()
    assert all(p.grad is None for p in net.parameters())


@pytest.mark.parity
def test_train_eval_flags_recurse(torch):
    def run(lib):
        net = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.Dropout(0.5))
        flags = [[m.training for m in net.modules()]]
        assert net.eval() is net
        flags.append([m.training for m in net.modules()])
        net.train()
        flags.append([m.training for m in net.modules()])
        return flags
    assert run(al) == run(torch) == [[True] * 3, [False] * 3, [True] * 3]


# -- Linear's graph --------------------------------------------------------------------------

@pytest.mark.parity
@pytest.mark.parametrize("input_requires_grad", [False, True])
def test_linear_graph_and_saves_match_torch(torch, input_requires_grad):
    def run(lib):
        lib.manual_seed(0)
        layer = lib.nn.Linear(3, 2)
        x = lib.tensor([[1.0, 2.0, 3.0]], requires_grad=input_requires_grad)
        node = layer(x).grad_fn
        t_node = node.next_functions[2][0]
        mat2 = node._saved_mat2
        return (node.name(), [None if n is None else n.name() for n, _ in node.next_functions],
                t_node.name(), node._saved_mat1 is x, mat2 is None,
                None if mat2 is None else (tuple(mat2.shape), mat2._version),
                node._saved_alpha, node._saved_beta)
    ours, theirs = run(al), run(torch)
    assert ours == theirs
    assert ours[0] == "AddmmBackward0" and ours[2] == "TBackward0"
    assert ours[4] is (not input_requires_grad)  # W.t() is saved only for an rg input


def test_saved_weight_view_shares_parameter_storage():
    layer = al.nn.Linear(3, 2)
    node = layer(al.ones(1, 3, requires_grad=True)).grad_fn
    mat2 = node._saved_mat2
    assert mat2._storage is layer.weight._storage
    assert mat2._version_counter is layer.weight._version_counter
    assert np.shares_memory(mat2._data, layer.weight._data)


@pytest.mark.parity
def test_linear_forward_and_grads_match_torch(torch):
    ours, theirs = twin(torch)
    results = []
    for lib, net in ((al, ours), (torch, theirs)):
        x, target = batch(lib, requires_grad=True)
        loss = lib.nn.functional.mse_loss(net(x), target)
        loss.backward()
        results.append([loss.item(), x.grad.tolist()] + [p.grad.tolist() for p in net.parameters()])
    for a, b in zip(*results):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-10, atol=1e-12)


# -- Dropout ---------------------------------------------------------------------------------

@pytest.mark.parity
def test_dropout_eval_returns_same_object(torch):
    for lib in (al, torch):
        x = lib.ones(4, requires_grad=True)
        drop = lib.nn.Dropout(0.5).eval()
        assert drop(x) is x
        assert lib.nn.functional.dropout(x, 0.5, training=False) is x


def test_dropout_train_is_a_mul_saving_the_scaled_mask():
    al.manual_seed(0)
    x = al.ones(1000, requires_grad=True)
    y = al.nn.Dropout(0.5)(x)
    assert y.grad_fn.name() == "MulBackward0"
    mask = y.grad_fn._saved_other
    assert set(np.unique(mask.tolist())) <= {0.0, 2.0}
    assert 400 < int((mask > 0).sum().item()) < 600
    y.sum().backward()
    assert x.grad.tolist() == mask.tolist()


# -- clip_grad_norm_ -------------------------------------------------------------------------

@pytest.mark.parity
@pytest.mark.parametrize("where", ["cpu", "cpu:0", "a torch.device", "cuda", "meta:x", "bogus"])
@pytest.mark.parametrize("layer", ["Linear", "RNNCell"])
def test_layers_take_device_as_torch(torch, layer, where):
    """A layer's ``device=`` is checked as the factories check it, as torch.device parses it."""
    outcomes = []
    for lib in (torch, al):
        device = lib.device("cpu") if where == "a torch.device" else where
        try:
            getattr(lib.nn, layer)(2, 3, device=device)
            outcomes.append("built")
        except Exception as error:  # noqa: BLE001  (compared with torch's)
            outcomes.append((type(error).__name__, str(error)))
    assert outcomes[1] == outcomes[0]


class _Written:
    pass


@pytest.mark.parity
@pytest.mark.parametrize("value", ["tensor", "parameter", 2.5, [1], _Written()],
                         ids=["tensor", "parameter", "float", "list", "python-class"])
def test_nn_and_optim_name_a_wrong_type_as_torch(torch, value):
    """torch.typename and repr(type(...)) as torch prints them, one copy each (nn.module):
    Sequential * x, optimizer.add_param_group(x), an optimizer of x."""
    messages = []
    for lib in (torch, al):
        x = {"tensor": lib.ones(1), "parameter": lib.nn.Parameter(lib.ones(1))}.get(value, value) \
            if isinstance(value, str) else value
        calls = [lambda: lib.nn.Sequential(lib.nn.Linear(1, 1)) * x,
                 lambda: lib.optim.SGD([lib.ones(1, requires_grad=True)], lr=0.1)
                 .add_param_group(x),
                 lambda: lib.optim.SGD([x], lr=0.1)]
        for call in calls:
            try:
                call()
                messages.append(None)
            except Exception as error:  # noqa: BLE001  (compared with torch's)
                messages.append((type(error).__name__, str(error)))
    assert messages[3:] == messages[:3]


@pytest.mark.parity
@pytest.mark.parametrize("max_norm", [0.1, 1e6])
def test_clip_grad_norm_matches_torch(torch, max_norm):
    ours, theirs = twin(torch)
    results = []
    for lib, net in ((al, ours), (torch, theirs)):
        x, target = batch(lib)
        lib.nn.functional.mse_loss(net(x), target).backward()
        before = [p.grad for p in net.parameters()]
        total = lib.nn.utils.clip_grad_norm_(net.parameters(), max_norm)
        results.append((total.dim(), total.item(), [p.grad.tolist() for p in net.parameters()],
                        all(p.grad is g for p, g in zip(net.parameters(), before))))
    (dim, norm, grads, same), (dim_t, norm_t, grads_t, same_t) = results
    assert dim == dim_t == 0 and same and same_t
    np.testing.assert_allclose(norm, norm_t, rtol=1e-10)
    for a, b in zip(grads, grads_t):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-9)
    clipped = np.sqrt(sum((np.asarray(g) ** 2).sum() for g in grads))
    np.testing.assert_allclose(clipped, min(norm, max_norm), rtol=1e-5)


# -- optimizers ------------------------------------------------------------------------------

OPTIMIZERS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.05, momentum=0.9, weight_decay=0.01)),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.1, nesterov=False)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, betas=(0.8, 0.99), weight_decay=0.1)),
]


@pytest.mark.parity
@pytest.mark.parametrize("name, kwargs", OPTIMIZERS, ids=[f"{n}{k}" for n, k in OPTIMIZERS])
def test_optimizer_trajectory_matches_torch_over_5_steps(torch, name, kwargs):
    ours, theirs = twin(torch)
    trajectories = []
    for lib, net in ((al, ours), (torch, theirs)):
        opt = getattr(lib.optim, name)(net.parameters(), **kwargs)
        x, target = batch(lib)
        steps = []
        for _ in range(5):
            opt.zero_grad()
            loss = lib.nn.functional.mse_loss(net(x), target)
            loss.backward()
            opt.step()
            steps.append([loss.item()] + [p.tolist() for p in net.parameters()])
        trajectories.append(steps)
    for ours_step, torch_step in zip(*trajectories):
        for a, b in zip(ours_step, torch_step):
            np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-9, atol=1e-12)


@pytest.mark.parity
@pytest.mark.parametrize("name, kwargs", [OPTIMIZERS[0], OPTIMIZERS[2], OPTIMIZERS[6]])
def test_step_bumps_version_once_and_skips_params_without_grad(torch, name, kwargs):
    def run(lib):
        lib.manual_seed(0)
        layer = lib.nn.Linear(2, 2)
        unused = lib.nn.Parameter(lib.ones(2))
        opt = getattr(lib.optim, name)(list(layer.parameters()) + [unused], **kwargs)
        layer(lib.ones(1, 2)).sum().backward()
        grad, grad_version = layer.weight.grad, layer.weight.grad._version
        versions = [[p._version for p in opt.param_groups[0]["params"]]]
        for _ in range(2):
            opt.step()
            versions.append([p._version for p in opt.param_groups[0]["params"]])
        return (versions, unused.grad, unused.tolist(), layer.weight.grad is grad,
                layer.weight.grad._version - grad_version)
    assert run(al) == run(torch)
    assert run(al)[0] == [[1, 1, 0], [2, 2, 0], [3, 3, 0]]


@pytest.mark.parity
def test_step_after_retained_backward_breaks_the_graph_like_torch(torch):
    """Facts 000 ex6: a second loss over the old graph fails after step() (AsStrided message)."""
    ours, theirs = twin(torch)
    messages = []
    for lib, net in ((al, ours), (torch, theirs)):
        x, target = batch(lib)
        out = net(x)
        loss_a = lib.nn.functional.mse_loss(out, target)
        loss_b = out.sum()
        opt = lib.optim.SGD(net.parameters(), lr=0.1)
        loss_a.backward(retain_graph=True)
        opt.step()
        with pytest.raises(RuntimeError) as info:
            loss_b.backward()
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    assert "output 0 of AsStrided, is at version 3; expected version 2" in messages[0]
