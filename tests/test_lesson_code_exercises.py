"""The write-code exercises of lessons 01-07, checked in autograd_lesson and in torch.

Each exercise says that the article's step (the notebook's reference) needs its
``retain_graph=True`` and that a step without it gives the same gradients or parameters. Both
claims are asked of both libraries here, with the notebooks' code (``lib`` for ``torch``). That
``lesson.check_step`` accepts each solution and rejects the article's step is in the notebooks'
stored outputs (tests/test_student.py) and tests/test_lesson_checkers.py.
"""
import numpy as np
import pytest

import autograd_lesson
import scenarios as S


def raises(fn):
    try:
        fn()
    except RuntimeError as error:
        return str(error)
    return None


def leaves(*modules):
    return [p for m in modules for p in m.parameters()]


def same(a, b, what="grad", atol=1e-6):
    get = (lambda p: S.as_array(p.grad)) if what == "grad" else (lambda p: S.as_array(p.detach()))
    return all(np.allclose(get(p), get(q), atol=atol) for p, q in zip(a, b))


# -- 01: two losses, one backward --------------------------------------------------------------
def test_01_two_losses(lib):
    def make():
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(), lib.nn.Linear(4, 2))
        return model, lib.randn(5, 3), lib.randn(5, 2)

    def article(model, x, y, retain=True):
        out = model(x)
        loss1, loss2 = ((out - y) ** 2).mean(), out.abs().mean()
        loss1.backward(retain_graph=retain)
        loss2.backward()

    def summed(model, x, y):
        out = model(x)
        (((out - y) ** 2).mean() + out.abs().mean()).backward()

    assert raises(lambda: article(*make(), retain=False)) == S.FREED
    a, b = make(), make()
    article(*a)
    summed(*b)
    assert same(leaves(a[0]), leaves(b[0]))


# -- 02: two discriminator steps ----------------------------------------------------------------
def gan(lib):
    rs = np.random.RandomState(2)
    real = lib.tensor(rs.randn(4, 2) + 2.0, dtype=lib.float32)
    z = lib.tensor(rs.randn(4, 2), dtype=lib.float32)

    def fixed_init(module, seed):
        r = np.random.RandomState(seed)
        with lib.no_grad():
            for p in module.parameters():
                p.copy_(lib.tensor(r.uniform(-0.5, 0.5, tuple(p.shape)), dtype=lib.float32))
        return module

    nn = lib.nn
    G = fixed_init(nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 2)), 0)
    D = fixed_init(nn.Sequential(nn.Linear(2, 4), nn.LeakyReLU(0.2), nn.Linear(4, 1),
                                 nn.Sigmoid()), 1)
    return G, D, real, z


def test_02_two_discriminator_steps(lib):
    bce, ones, zeros = lib.nn.BCELoss(), lib.ones(4, 1), lib.zeros(4, 1)

    def train(G, D, real, z, detach, retain):
        optD = lib.optim.SGD(D.parameters(), lr=0.1)
        optG = lib.optim.SGD(G.parameters(), lr=0.1)
        fake = G(z)
        for _ in range(2):
            optD.zero_grad()
            d_loss = bce(D(real), ones) + bce(D(fake.detach() if detach else fake), zeros)
            d_loss.backward(retain_graph=retain)
            optD.step()
        optG.zero_grad()
        bce(D(fake), ones).backward()
        optG.step()

    assert raises(lambda: train(*gan(lib), detach=False, retain=False)) == S.FREED
    a, b = gan(lib), gan(lib)
    train(*a, detach=False, retain=True)
    train(*b, detach=True, retain=False)
    assert same(leaves(a[0], a[1]), leaves(b[0], b[1]), "value")


# -- 03: a weighted two-head step --------------------------------------------------------------
def test_03_weighted_heads(lib):
    mse = lib.nn.functional.mse_loss

    def make():
        lib.manual_seed(1)
        trunk = lib.nn.Linear(3, 4)
        b1 = lib.nn.Sequential(lib.nn.ReLU(), lib.nn.Linear(4, 2))
        b2 = lib.nn.Sequential(lib.nn.Tanh(), lib.nn.Linear(4, 1))
        return trunk, b1, b2, lib.randn(5, 3), lib.randn(5, 2), lib.randn(5, 1)

    def losses(trunk, b1, b2, x, y1, y2):
        features = trunk(x)
        return mse(b1(features), y1), mse(b2(features), y2)

    a, b = make(), make()
    loss1, loss2 = losses(*a)
    assert raises(lambda: (loss1.backward(), (0.3 * loss2).backward())) == S.FREED
    a = make()
    loss1, loss2 = losses(*a)
    loss1.backward(retain_graph=True)
    (0.3 * loss2).backward()
    loss1, loss2 = losses(*b)
    (loss1 + 0.3 * loss2).backward()
    assert same(leaves(*a[:3]), leaves(*b[:3]))


# -- 04: truncated BPTT, one backward per chunk -------------------------------------------------
def test_04_truncated_bptt(lib):
    lib.manual_seed(0)
    inputs = [lib.randn(2, 3) for _ in range(6)]
    targets = [lib.randn(2, 2) for _ in range(6)]
    h_init = lib.zeros(2, 4)
    mse = lib.nn.functional.mse_loss

    def make():
        lib.manual_seed(3)
        return lib.nn.RNNCell(3, 4), lib.nn.Linear(4, 2)

    def step(t, hidden, cell, readout):
        hidden = cell(inputs[t], hidden)
        return hidden, mse(readout(hidden), targets[t])

    def per_step(cell, readout, retain=True):
        hidden = h_init
        for t in range(6):
            if t % 3 == 0:
                hidden = hidden.detach()
            hidden, loss = step(t, hidden, cell, readout)
            loss.backward(retain_graph=retain)

    def chunks(cell, readout):
        hidden = h_init
        for start in (0, 3):
            hidden, losses = hidden.detach(), []
            for t in range(start, start + 3):
                hidden, loss = step(t, hidden, cell, readout)
                losses.append(loss)
            sum(losses).backward()

    assert raises(lambda: per_step(*make(), retain=False)) == S.FREED
    a, b = make(), make()
    per_step(*a)
    chunks(*b)
    assert same(leaves(*a), leaves(*b))


# -- 05: the R1 penalty --------------------------------------------------------------------------
def test_05_r1_in_one_backward(lib):
    def make():
        lib.manual_seed(0)
        D = lib.nn.Sequential(lib.nn.Linear(2, 4), lib.nn.Tanh(), lib.nn.Linear(4, 1))
        lib.manual_seed(5)
        return D, lib.randn(4, 2).requires_grad_(True), lib.randn(4, 2)

    def article(D, real, fake, gamma=10.0):
        d_loss = D(fake).mean() - D(real).mean()
        grad_real = lib.autograd.grad(D(real).sum(), real, create_graph=True)[0]
        (gamma / 2 * (grad_real ** 2).sum(dim=1).mean()).backward(retain_graph=True)
        d_loss.backward()

    def one_backward(D, real, fake, gamma=10.0, create_graph=True):
        score = D(real)
        grad_real = lib.autograd.grad(score.sum(), real, create_graph=create_graph)[0]
        r1 = (grad_real ** 2).sum(dim=1).mean()
        (D(fake).mean() - score.mean() + gamma / 2 * r1).backward()

    a, b = make(), make()
    article(*a)
    one_backward(*b)
    assert same(leaves(a[0]) + [a[1]], leaves(b[0]) + [b[1]])
    # without create_graph the grad call frees D(real)'s graph, which the summed loss needs
    assert raises(lambda: one_backward(*make(), create_graph=False)) == S.FREED


# -- 06: one SGD step per target -----------------------------------------------------------------
def test_06_one_step_per_target(lib):
    F = lib.nn.functional

    def make():
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(4, 5), lib.nn.ReLU(), lib.nn.Linear(5, 2))
        lib.manual_seed(6)
        return model, lib.randn(3, 4), [lib.randn(3, 2) for _ in range(3)]

    def with_optimizer(model, x, targets):
        optimizer = lib.optim.SGD(model.parameters(), lr=0.1)
        for target in targets:
            optimizer.zero_grad()
            F.mse_loss(model(x), target).backward()
            optimizer.step()

    def by_hand(model, x, targets):
        for target in targets:
            W1, b1, W2, b2 = (p.detach().clone().requires_grad_(True) for p in model.parameters())
            out = F.linear(F.relu(F.linear(x, W1, b1)), W2, b2)
            grads = lib.autograd.grad(F.mse_loss(out, target), [W1, b1, W2, b2])
            with lib.no_grad():
                for p, g in zip(model.parameters(), grads):
                    p.sub_(0.1 * g)

    def article(model, x, targets):  # one forward, a step between the backwards
        optimizer = lib.optim.SGD(model.parameters(), lr=0.1)
        out = model(x)
        for target in targets:
            F.mse_loss(out, target).backward(retain_graph=True)
            optimizer.step()

    a, b = make(), make()
    with_optimizer(*a)
    by_hand(*b)
    assert same(leaves(a[0]), leaves(b[0]), "value")
    assert "modified by an inplace operation" in raises(lambda: article(*make()))


# -- 07: conditional extra losses, one backward per step -----------------------------------------
def test_07_conditional_losses(lib):
    def make():
        lib.manual_seed(0)
        nn = lib.nn
        model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 5), nn.Tanh())
        lib.manual_seed(7)
        return model, [(lib.randn(2, 4), lib.randn(2, 5)) for _ in range(4)]

    def train(model, batches, summed, retain=True):
        optimizer = lib.optim.SGD(model.parameters(), lr=0.1)
        for step, (x, weights) in enumerate(batches):
            optimizer.zero_grad()
            res = model(x)
            extra = ([res.mean()] if step % 2 == 0 else []) + \
                    ([(res ** 2).mean()] if step % 3 == 0 else [])
            if summed:
                sum(extra, (res * weights).sum()).backward()
            else:
                for loss in extra:
                    loss.backward(retain_graph=retain)
                (res * weights).sum().backward()
            optimizer.step()

    assert raises(lambda: train(*make(), summed=False, retain=False)) == S.FREED
    a, b = make(), make()
    train(*a, summed=False)
    train(*b, summed=True)
    assert same(leaves(a[0]), leaves(b[0]), "value")
