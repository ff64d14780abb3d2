"""Hooks as lesson 12 shows them, against PyTorch 2.13: each snippet runs in both libraries
(the order hooks fire in, what a returned value does, retain_grad, and the optimizer-in-backward
pattern). tests/test_fidelity_autograd.py has the hooks' error edges.
"""
import pytest

from snippets import cases, run

CHAIN = """
log = []
x = lib.tensor([1., 2.], requires_grad=True)
y = x * 3
z = (y * y).sum()
"""

ORDER = {
    "every kind of hook, in the order they fire": CHAIN + """
y.register_hook(lambda g: log.append(('y tensor hook', g.tolist())))
y.retain_grad()
y.grad_fn.register_prehook(lambda go: log.append(('y node prehook', go[0].tolist())))
y.grad_fn.register_hook(lambda gi, go: log.append(('y node hook', gi[0].tolist(), go[0].tolist())))
x.register_hook(lambda g: log.append(('x tensor hook', g.tolist())))
x.register_post_accumulate_grad_hook(lambda p: log.append(('x post accumulate', p.grad.tolist())))
acc = y.grad_fn.next_functions[0][0]
acc.register_prehook(lambda go: log.append(('x AccumulateGrad prehook', go[0].tolist())))
acc.register_hook(lambda gi, go: log.append(('x AccumulateGrad hook', len(gi), go[0].tolist())))
z.grad_fn.register_hook(lambda gi, go: log.append(('z node hook',)))
z.backward()
out = (log, y.grad, x.grad)
""",
    "retain_grad runs after the tensor hooks, whenever it was called": CHAIN + """
y.retain_grad()
y.register_hook(lambda g: g * 10)
z.backward()
out = (y.grad, x.grad)
""",
    "tensor hooks chain in registration order": CHAIN + """
y.register_hook(lambda g: log.append(('first', g.tolist())) or g + 1)
y.register_hook(lambda g: log.append(('second', g.tolist())) or g * 2)
z.backward()
out = (log, x.grad)
""",
    "a hook returning None leaves the gradient": CHAIN + """
y.register_hook(lambda g: None)
z.backward()
out = x.grad
""",
    "a leaf's hook changes what lands in .grad": CHAIN + """
x.register_hook(lambda g: g * 0.5)
z.backward()
out = x.grad
""",
    "a node hook's tuple replaces the gradients it passes on": CHAIN + """
y.grad_fn.register_hook(lambda gi, go: (gi[0] * 0, None))
z.backward()
out = x.grad
""",
    "a node prehook's tuple replaces the gradient the node gets": CHAIN + """
y.grad_fn.register_prehook(lambda go: (go[0] + 1,))
z.backward()
out = x.grad
""",
    "a tensor used twice: its hook sees the sum once": """
log = []
x = lib.tensor([1., 2.], requires_grad=True)
y = x * 3
y.register_hook(lambda g: log.append(g.tolist()))
(y * 2 + y * 5).sum().backward()
out = (log, x.grad)
""",
    "a removed hook does not fire": CHAIN + """
h = y.register_hook(lambda g: log.append('y'))
h.remove()
z.backward()
out = (log, x.grad)
""",
    "hooks fire again on every backward": CHAIN + """
y.register_hook(lambda g: log.append('y'))
z.backward(retain_graph=True)
z.backward()
out = (log, x.grad)
""",
    "autograd.grad runs tensor hooks, not the leaf's post-accumulate hook": CHAIN + """
y.register_hook(lambda g: log.append('y'))
x.register_hook(lambda g: log.append('x'))
x.register_post_accumulate_grad_hook(lambda p: log.append('post'))
g, = lib.autograd.grad(z, x)
out = (log, g, x.grad)
""",
    "a hook on a tensor that needs no grad": "lib.ones(2).register_hook(lambda g: g)",
}

RETAIN = {
    "retain_grad: the non-leaf's .grad": CHAIN + """
y.retain_grad()
z.backward()
out = (y.retains_grad, y.grad, x.retains_grad, x.grad, z.grad_fn.name())
""",
    "without retain_grad: None, and torch's warning": CHAIN + """
z.backward()
out = y.grad
""",
    "retain_grad accumulates over two backwards": CHAIN + """
y.retain_grad()
z.backward(retain_graph=True)
first = y.grad
z.backward()
out = (first, y.grad, first is y.grad)
""",
    "retain_grad on a leaf does nothing": """
x = lib.tensor([1., 2.], requires_grad=True)
x.retain_grad()
(x * 2).sum().backward()
out = (x.retains_grad, x.grad)
""",
    "retain_grad on a tensor that needs no grad": "lib.ones(2).retain_grad()",
}

OPTIMIZER_IN_BACKWARD = """
lib.manual_seed(0)
def make():
    net = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(), lib.nn.Linear(4, 2))
    with lib.no_grad():
        for i, p in enumerate(net.parameters()):
            p.copy_(lib.linspace(-1, 1, p.numel()).reshape(p.shape) * (i + 1) / 3)
    return net
data = lib.linspace(-2, 2, 15).reshape(5, 3)
target = lib.linspace(0, 1, 10).reshape(5, 2)
def loss_of(net):
    return ((net(data) - target) ** 2).mean()

# the usual way: backward, then one step
ref = make()
opt = OPT(ref.parameters())
for _ in range(3):
    opt.zero_grad()
    loss_of(ref).backward()
    opt.step()

# optimizer in backward (the parameters match torch's to float32 rounding; 4 decimals compared)
# each parameter steps as soon as its gradient is accumulated
net = make()
optimizers = {p: OPT([p]) for p in net.parameters()}
order = []
def step_now(p):
    order.append(tuple(p.shape))
    optimizers[p].step()
    optimizers[p].zero_grad()  # (set_to_none: the gradient is freed right away)
for p in net.parameters():
    p.register_post_accumulate_grad_hook(step_now)
for _ in range(3):
    loss_of(net).backward()
out = ([[round(v, 4) for v in p.detach().reshape(-1).tolist()] for p in net.parameters()],
       [p.grad for p in net.parameters()], order[:4],
       all(bool((a == b).all()) for a, b in zip(ref.parameters(), net.parameters())),
       max(float((a - b).abs().max().detach()) for a, b in zip(ref.parameters(), net.parameters())))
"""
PATTERNS = {
    "optimizer in backward, SGD": OPTIMIZER_IN_BACKWARD.replace("OPT(", "lib.optim.SGD(lr=0.1, params="),
    "optimizer in backward, SGD with momentum": OPTIMIZER_IN_BACKWARD.replace(
        "OPT(", "lib.optim.SGD(lr=0.1, momentum=0.9, params="),
    "optimizer in backward, Adam": OPTIMIZER_IN_BACKWARD.replace("OPT(", "lib.optim.Adam(lr=0.01, params="),
    # p.grad = None inside the hook, by hand
    "the gradient set to None in the hook": """
x = lib.tensor([1., 2.], requires_grad=True)
seen = []
def hook(p):
    seen.append(p.grad.tolist())
    with lib.no_grad():
        p.sub_(0.1 * p.grad)
    p.grad = None
x.register_post_accumulate_grad_hook(hook)
(x * x).sum().backward()
out = (x, x.grad, seen, x._version)
""",
    # a leaf used twice gets one accumulation, so one hook call
    "a shared parameter: one post-accumulate call": """
w = lib.tensor([1., 2.], requires_grad=True)
calls = []
w.register_post_accumulate_grad_hook(lambda p: calls.append(p.grad.tolist()))
((w * 2).sum() + (w * 3).sum()).backward()
out = calls
""",
}


@pytest.mark.parity
@cases({**ORDER, **RETAIN})
def test_hooks(torch, source):
    assert run(al_lib(), source) == run(torch, source)


@pytest.mark.parity
@cases(PATTERNS)
def test_patterns(torch, source):
    assert run(al_lib(), source) == run(torch, source)


def al_lib():
    import autograd_lesson
    return autograd_lesson
