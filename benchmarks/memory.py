"""Saved-buffer memory: the bytes our ledger reports against the bytes PyTorch saves.

Every model and scenario is written once, for ``lib`` = ``autograd_lesson`` or ``torch``.

* Ours: ``viz.take_snapshot(roots).total_bytes``: live saved buffers (not freed), each storage
  once, wrapped Python scalars excluded.
* PyTorch: a ``saved_tensors_hooks`` pack hook records, for every saved tensor, its storage
  (``untyped_storage().data_ptr()`` and ``nbytes()``) and a weak reference to the box it
  returns. The graph owns the box; when PyTorch releases the saved slot the box dies. Live
  bytes = each storage once among the live boxes. The box holds ``t.detach()``, never ``t``:
  storing ``t`` itself would make a cycle through a saved output and keep freed graphs alive.

Each case is measured right after it is built (the forward, plus any ``autograd.grad``) and,
where it has one, after its call (a backward that frees or keeps buffers).
"""
import gc
import weakref

import numpy as np

from _common import table
import engine_speed as es


# -- models of the speed section ------------------------------------------------------------------
def mlp(lib, data):
    net = es._load(lib, es._mlp(lib, data.mlp_sizes, lib.nn.ReLU), data.mlp)
    out = net(lib.tensor(data.x))
    loss = lib.nn.functional.cross_entropy(out, lib.tensor(data.labels))

    def call():
        """loss.backward()"""
        loss.backward()
    return dict(loss=loss), call


def rnn(lib, data):
    cell = es._load(lib, lib.nn.RNNCell(32, 64), data.rnn)
    xs = lib.tensor(data.rnn_xs)
    h = lib.zeros(xs.shape[1], 64)
    for t in range(es.RNN_STEPS):
        h = cell(xs[t], h)
    loss = h.pow(2).sum()

    def call():
        """loss.backward(retain_graph=True)"""
        loss.backward(retain_graph=True)
    return dict(loss=loss), call


def chain(lib, data):
    x = lib.tensor(data.chain_x, requires_grad=True)
    loss = es._chain(x, lambda y: y.relu()).sum()

    def call():
        """loss.backward()"""
        loss.backward()
    return dict(x=x, loss=loss), call


def wgan_gp(lib, data):
    D = es._load(lib, es._mlp(lib, data.gan_sizes, lambda: lib.nn.LeakyReLU(0.2)), data.gan)
    real, fake, alpha = lib.tensor(data.real), lib.tensor(data.fake), lib.tensor(data.alpha)
    interpolated = (alpha * real + (1 - alpha) * fake).requires_grad_()
    critic = D(fake).mean() - D(real).mean()
    prob = D(interpolated)
    gradients, = lib.autograd.grad(prob, interpolated, lib.ones_like(prob), create_graph=True)
    loss = critic + 10 * ((gradients.norm(2, dim=1) - 1) ** 2).mean()

    def call():
        """loss.backward()"""
        loss.backward()
    return dict(prob=prob, gradients=gradients, loss=loss), call


# -- the seven scenarios (as in autograd_lesson/course/figures.py SCENARIOS, for either library) --------
def _data(lib, seed, *shape):
    return lib.tensor(np.random.RandomState(seed).randn(*shape).astype(np.float32))


def _set_params(lib, module, seed):
    rs = np.random.RandomState(seed)
    with lib.no_grad():
        for p in module.parameters():
            p.copy_(lib.tensor((rs.randn(*p.shape) * 0.5).astype(np.float32)))
    return module


def multi_loss(lib):
    x = lib.tensor([0.5, -1.0, 2.0, 0.0, 1.5], requires_grad=True)
    y = x * 2
    loss1, loss2 = y.sum(), (y ** 2).sum()

    def call():
        """loss1.backward(retain_graph=True)"""
        loss1.backward(retain_graph=True)
    return dict(x=x, y=y, loss1=loss1, loss2=loss2), call


def gan(lib):
    nn = lib.nn
    G = _set_params(lib, nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 2)), 1)
    D = _set_params(lib, nn.Sequential(nn.Linear(2, 3), nn.LeakyReLU(0.2), nn.Linear(3, 1),
                                       nn.Sigmoid()), 2)
    fake = G(_data(lib, 3, 4, 2))
    d_fake = D(fake)
    d_loss_fake = nn.functional.binary_cross_entropy(d_fake, lib.zeros(4, 1))

    def call():
        """d_loss_fake.backward(retain_graph=True)"""
        d_loss_fake.backward(retain_graph=True)
    return dict(fake=fake, d_fake=d_fake, d_loss_fake=d_loss_fake), call


def shared_backbone(lib):
    nn = lib.nn
    backbone = _set_params(lib, nn.Sequential(nn.Linear(3, 4), nn.ReLU()), 4)
    head1, head2 = _set_params(lib, nn.Linear(4, 1), 5), _set_params(lib, nn.Linear(4, 1), 6)
    features = backbone(_data(lib, 7, 2, 3))
    loss1 = head1(features).pow(2).mean()
    loss2 = head2(features).abs().mean()

    def call():
        """loss1.backward()"""
        loss1.backward()
    return dict(features=features, loss1=loss1, loss2=loss2), call


def rnn_scenario(lib):
    cell = _set_params(lib, lib.nn.RNNCell(2, 3), 8)
    xs = _data(lib, 9, 3, 1, 2)
    h = lib.zeros(1, 3)
    names = {}
    for t in range(3):
        h = cell(xs[t], h)
        names[f"h{t}"] = h
    loss = h.pow(2).sum()
    names["loss"] = loss

    def call():
        """loss.backward(retain_graph=True)"""
        loss.backward(retain_graph=True)
    return names, call


def wgan_gp_scenario(lib):
    nn = lib.nn
    D = _set_params(lib, nn.Sequential(nn.Linear(2, 3), nn.LeakyReLU(0.2), nn.Linear(3, 1),
                                       nn.Sigmoid()), 10)
    interpolated = _data(lib, 11, 2, 2).requires_grad_()
    prob = D(interpolated)
    gradients, = lib.autograd.grad(prob, interpolated, lib.ones_like(prob), create_graph=True)
    gp = ((gradients.norm(2, dim=1) - 1) ** 2).mean()

    def call():
        """gp.backward()"""
        gp.backward()
    return dict(prob=prob, gradients=gradients, gp=gp), call


def sequential_opt(lib):
    nn = lib.nn
    model = _set_params(lib, nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)), 12)
    optimizer = lib.optim.SGD(model.parameters(), lr=0.1)
    out = model(_data(lib, 13, 4, 2))
    loss_a, loss_b = out.pow(2).mean(), out.abs().mean()
    loss_a.backward(retain_graph=True)
    optimizer.step()

    def call():
        """loss_b.backward(), which raises: step() changed a saved weight"""
        try:
            loss_b.backward()
        except RuntimeError:
            pass
    return dict(out=out, loss_a=loss_a, loss_b=loss_b), call


def conditional(lib):
    nn = lib.nn
    model = _set_params(lib, nn.Sequential(nn.Linear(2, 3), nn.Tanh()), 14)
    res = model(_data(lib, 15, 4, 2))
    final_loss = (res * _data(lib, 16, 4, 3)).sum()

    def call():
        """res.mean().backward(retain_graph=True)"""
        res.mean().backward(retain_graph=True)
    return dict(res=res, final_loss=final_loss), call


def cases():
    data = es.Inputs()
    return [
        ("(a) MLP 64-128-128-10, batch 64", lambda lib: mlp(lib, data)),
        ("(b) RNNCell, 50 steps", lambda lib: rnn(lib, data)),
        ("(c) chain of 1,000 ops", lambda lib: chain(lib, data)),
        ("(d) WGAN-GP step", lambda lib: wgan_gp(lib, data)),
        ("multi-loss", multi_loss),
        ("GAN without detach", gan),
        ("shared backbone", shared_backbone),
        ("RNN, 3 steps", rnn_scenario),
        ("WGAN-GP (create_graph)", wgan_gp_scenario),
        ("sequential optimization", sequential_opt),
        ("conditional paths", conditional),
    ]


# -- measuring ------------------------------------------------------------------------------------
def _graph_roots(names):
    return [t for t in names.values() if t.requires_grad and t.grad_fn is not None]


def ours(build):
    """(bytes, storages) after the build and after the call, from our ledger."""
    import autograd_lesson as al
    from autograd_lesson.viz import take_snapshot
    names, call = build(al)
    roots = _graph_roots(names)
    measured = [_ledger(take_snapshot(roots))]
    call()
    measured.append(_ledger(take_snapshot(roots)))
    return measured, call.__doc__


def _ledger(snapshot):
    live = {b.storage for b in snapshot.buffers if b.state != "freed" and not b.wrapped_scalar}
    return snapshot.total_bytes, len(live)


class _Box:
    """What the pack hook returns: the graph owns it, we only hold a weak reference.

    PyTorch skips its version check for a saved tensor that went through hooks, so an
    in-place change (``optimizer.step()`` on a saved weight) would no longer make backward
    raise. ``unpack`` repeats the check (a detached tensor shares the version counter), so the
    measured run fails, frees and keeps exactly what it does without hooks."""
    __slots__ = ("tensor", "version", "__weakref__")

    def __init__(self, tensor):
        self.tensor, self.version = tensor, tensor._version

    def unpack(self):
        if self.tensor._version != self.version:
            raise RuntimeError("one of the variables needed for gradient computation has been "
                               "modified by an inplace operation (checked by the benchmark's "
                               "unpack hook)")
        return self.tensor


def torch_saved(build):
    """(bytes, storages) after the build and after the call, from PyTorch's pack hook."""
    import torch
    packed = []  # (storage data_ptr, storage nbytes, weak ref to the box)

    def pack(t):
        storage = t.untyped_storage()
        box = _Box(t.detach())
        packed.append((storage.data_ptr(), storage.nbytes(), weakref.ref(box)))
        return box

    with torch.autograd.graph.saved_tensors_hooks(pack, _Box.unpack):
        names, call = build(torch)
    measured = [_live(packed)]
    call()
    measured.append(_live(packed))
    del names, call
    return measured


def _live(packed):
    gc.collect()
    storages = {ptr: nbytes for ptr, nbytes, box in packed if box() is not None}
    return sum(storages.values()), len(storages)


def run():
    """The table, and whether every row matched."""
    rows, all_equal = [], True
    for label, build in cases():
        (ours_before, ours_after), call_doc = ours(build)
        torch_before, torch_after = torch_saved(build)
        for moment, a, b in (("after forward", ours_before, torch_before),
                             (f"after {call_doc}", ours_after, torch_after)):
            equal = a == b
            all_equal &= equal
            rows.append([label, moment, f"{a[0]:,}", f"{b[0]:,}", a[1], b[1],
                         "yes" if equal else "NO"])
            label = ""
    text = table(["model / scenario", "moment", "ours B", "PyTorch B", "ours storages",
                  "PyTorch storages", "match"], rows,
                 "Saved-buffer memory: our ledger vs PyTorch's saved_tensors_hooks", left=2)
    verdict = ("after forward = after the forward pass (and, for the WGAN-GP cases, "
               "autograd.grad(create_graph=True))\n"
               + ("all equal" if all_equal else "MISMATCH: see rows marked NO"))
    return text + "\n" + verdict, all_equal
