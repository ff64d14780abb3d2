"""The before/after pictures of the seven retain_graph scenarios, as committed in ``figures/``,
and the README's picture of a real PyTorch graph (``TORCH_SCENARIOS``, drawn when torch is
installed).

``python -m autograd_lesson.course.figures [outdir]`` (or ``make figures``) rewrites, per scenario,
``<name>.dot``, ``<name>.svg`` and ``<name>.png``. A test fails when a committed ``.dot`` is
out of date, so the pictures always show what the engine does now.
"""
import os
import sys

import numpy as np

import autograd_lesson as torch
from autograd_lesson import nn
from autograd_lesson.lesson import verdict
from autograd_lesson.viz import before_after_view, record, take_snapshot, watch


def _data(seed, *shape):
    return torch.tensor(np.random.RandomState(seed).randn(*shape), dtype=torch.float32)


def _set_params(module, seed):
    rs = np.random.RandomState(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.tensor(rs.randn(*p.shape) * 0.5, dtype=torch.float32))
    return module


def _named(names, **modules):
    """Add each module's parameters to the names (``G.0.weight``), so buffers say whose they are."""
    for prefix, module in modules.items():
        names.update((f"{prefix}.{n}", p) for n, p in module.named_parameters())
    return names


def _picture(title, names, code, model=None):
    """Snapshot the named graph, run ``code`` (a callable), snapshot again (``model``: in
    module boxes)."""
    roots = [t for t in names.values() if getattr(t, "grad_fn", None) is not None]
    before = take_snapshot(roots, names, title=f"{title}: before {code.__doc__}", model=model)
    recording = record(code, roots=roots, names=names)  # the roots tell which engine runs it
    outcome = "raised " + type(recording.error).__name__ if recording.error else "ran"
    after = take_snapshot(roots, names, executed=recording.executed, failed=recording.failed,
                          title=f"after {code.__doc__} ({outcome})",
                          notes=[verdict(recording.error)] if recording.error else [],
                          model=model)
    return before_after_view(before, after)


def multi_loss():
    x = torch.tensor([0.5, -1.0, 2.0, 0.0, 1.5], requires_grad=True)
    y = x * 2
    loss1, loss2 = y.sum(), (y ** 2).sum()

    def call():
        """loss1.backward(retain_graph=True)"""
        loss1.backward(retain_graph=True)
    return _picture("Two losses", dict(x=x, y=y, loss1=loss1, loss2=loss2), call)


def gan():
    G = _set_params(nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 2)), 1)
    D = _set_params(nn.Sequential(nn.Linear(2, 3), nn.LeakyReLU(0.2), nn.Linear(3, 1),
                                  nn.Sigmoid()), 2)
    z = _data(3, 4, 2)
    fake = G(z)
    d_fake = D(fake)
    d_loss_fake = nn.functional.binary_cross_entropy(d_fake, torch.zeros(4, 1))

    def call():
        """d_loss_fake.backward(retain_graph=True)"""
        d_loss_fake.backward(retain_graph=True)
    names = _named(dict(z=z, fake=fake, d_fake=d_fake, d_loss_fake=d_loss_fake), G=G, D=D)
    return _picture("GAN without detach", names, call)


def shared_backbone():
    backbone = _set_params(nn.Sequential(nn.Linear(3, 4), nn.ReLU()), 4)
    head1, head2 = _set_params(nn.Linear(4, 1), 5), _set_params(nn.Linear(4, 1), 6)
    inputs = _data(7, 2, 3)
    features = backbone(inputs)
    loss1 = head1(features).pow(2).mean()
    loss2 = head2(features).abs().mean()

    def call():
        """loss1.backward()"""
        loss1.backward()
    names = _named(dict(inputs=inputs, features=features, loss1=loss1, loss2=loss2),
                   backbone=backbone, head1=head1, head2=head2)
    return _picture("Shared backbone", names, call)


def rnn():
    cell = _set_params(nn.RNNCell(2, 3), 8)
    xs = _data(9, 3, 1, 2)
    h = torch.zeros(1, 3)
    names = {}
    for t in range(3):
        h = cell(xs[t], h)
        names[f"h{t}"] = h
    loss = h.pow(2).sum()
    names["loss"] = loss
    _named(names, cell=cell)

    def call():
        """loss.backward(retain_graph=True) at step 3"""
        loss.backward(retain_graph=True)
    return _picture("RNN unrolled 3 steps", names, call)


def wgan_gp():
    # a WGAN-GP critic ends in a Linear layer (a score, no Sigmoid)
    D = _set_params(nn.Sequential(nn.Linear(2, 3), nn.LeakyReLU(0.2), nn.Linear(3, 1)), 10)
    interpolated = _data(11, 2, 2).requires_grad_()
    prob = D(interpolated)
    gradients, = torch.autograd.grad(prob, interpolated, torch.ones_like(prob),
                                     create_graph=True)
    gp = ((gradients.norm(2, dim=1) - 1) ** 2).mean()

    def call():
        """gp.backward()"""
        gp.backward()
    names = _named(dict(interpolated=interpolated, prob=prob, gradients=gradients, gp=gp), D=D)
    return _picture("WGAN-GP, gradients from create_graph=True", names, call)


def sequential_opt():
    model = _set_params(nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)), 12)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    x = _data(13, 4, 2)
    out = model(x)
    loss_a, loss_b = out.pow(2).mean(), out.abs().mean()
    loss_a.backward(retain_graph=True)
    optimizer.step()

    def call():
        """loss_b.backward() after optimizer.step()"""
        loss_b.backward()
    names = _named(dict(x=x, out=out, loss_a=loss_a, loss_b=loss_b), model=model)
    return _picture("Sequential optimization", names, call)


def conditional():
    model = _set_params(nn.Sequential(nn.Linear(2, 3), nn.Tanh()), 14)
    x = _data(15, 4, 2)
    weights = _data(16, 4, 3)
    res = model(x)
    final_loss = (res * weights).sum()

    def call():
        """res.mean().backward(retain_graph=True)"""
        res.mean().backward(retain_graph=True)
    names = _named(dict(x=x, res=res, final_loss=final_loss), model=model)
    return _picture("Conditional path taken", names, call)


def torch_two_heads():
    """Real PyTorch: a trunk with two heads, as in lesson 11 and the README."""
    import torch as pt  # only here: the package itself never needs torch
    nn = pt.nn
    pt.manual_seed(0)
    trunk, cls, reg = nn.Sequential(nn.Linear(4, 8), nn.ReLU()), nn.Linear(8, 3), nn.Linear(8, 1)
    pt.manual_seed(1)
    x, y, t = pt.randn(16, 4), pt.randint(0, 3, (16,)), pt.randn(16, 1)
    with watch():  # the view sees every backward from here: buffers read "alive", not unknown
        h = trunk(x)
        loss_cls = nn.functional.cross_entropy(cls(h), y)
        loss_reg = nn.functional.mse_loss(reg(h), t)

    def call():
        """loss_cls.backward(retain_graph=True)"""
        loss_cls.backward(retain_graph=True)
    names = _named(dict(x=x, y=y, t=t, loss_cls=loss_cls, loss_reg=loss_reg), trunk=trunk, cls=cls,
                   reg=reg)
    return _picture("Two heads on real PyTorch", names, call)


def torch_resnet18():
    """Real PyTorch: benchmarks/real_models.py's ResNet-18 (132 nodes) in module boxes."""
    import importlib.util
    path = os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks", "real_models.py")
    spec = importlib.util.spec_from_file_location("real_models", path)
    real_models = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(real_models)
    model, step = real_models.resnet18()
    with watch(model):  # which module made which node: the picture boxes them
        loss = step()

    def call():
        """loss.backward(retain_graph=True)"""
        loss.backward(retain_graph=True)
    return _picture("ResNet-18 on real PyTorch", {"loss": loss}, call, model=model)


SCENARIOS = {"multi_loss": multi_loss, "gan": gan, "shared_backbone": shared_backbone,
             "rnn": rnn, "wgan_gp": wgan_gp, "sequential_opt": sequential_opt,
             "conditional": conditional}
TORCH_SCENARIOS = {"torch_two_heads": torch_two_heads, "torch_resnet18": torch_resnet18}


def main(outdir="figures"):
    os.makedirs(outdir, exist_ok=True)
    for name, build in SCENARIOS.items():
        view = build()
        view.save(os.path.join(outdir, name))
        print(f"wrote {outdir}/{name}.dot/.svg/.png")
    try:
        import torch as _  # noqa: F401
    except ImportError:
        print(f"skipped {', '.join(TORCH_SCENARIOS)}: torch is not installed (pip install torch)")
        return
    for name, build in TORCH_SCENARIOS.items():
        build().save(os.path.join(outdir, name))
        print(f"wrote {outdir}/{name}.dot/.svg/.png")


if __name__ == "__main__":
    main(*sys.argv[1:])
