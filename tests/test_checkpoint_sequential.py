"""``checkpoint(..., preserve_rng_state=...)`` with dropout, and ``checkpoint_sequential``,
against PyTorch 2.13: each snippet runs in both libraries.

The package's random numbers are NumPy's, so dropout masks are not torch's: the snippets
compare what follows from them (whether the recomputed mask is the forward's, so whether the
gradients equal an unchecked run's; whether the backward moved the generator), never the
numbers themselves. tests/test_checkpoint.py has ``checkpoint`` itself.
"""
import pytest

from snippets import cases, run

NET = """
def make(p=0.5):
    net = lib.nn.Sequential(lib.nn.Linear(4, 16), lib.nn.Dropout(p), lib.nn.Tanh(),
                            lib.nn.Linear(16, 16), lib.nn.Dropout(p), lib.nn.Tanh(),
                            lib.nn.Linear(16, 1))
    with lib.no_grad():
        for i, q in enumerate(net.parameters()):
            q.copy_(lib.linspace(-1, 1, q.numel()).reshape(q.shape) * (i % 3 + 1) / 4)
    return net
net = make()
x = lib.linspace(-1, 1, 12).reshape(3, 4)

def grads(run_net, seed=7):
    lib.manual_seed(seed)
    net.zero_grad()
    run_net(x).sum().backward()
    after = lib.rand(3)  # where the generator stands once the backward is done
    return [q.grad.clone() for q in net.parameters()], after

def same(a, b):
    return all(bool((u == v).all()) for u, v in zip(a, b))

def no_backward_rand(run_net, seed=7):
    lib.manual_seed(seed)
    run_net(x)
    return lib.rand(3)
"""
CK = "lib.utils.checkpoint.checkpoint"

RNG = {}
for _reentrant in (True, False):  # (x requires grad: else the reentrant variant records nothing)
    _name = "reentrant" if _reentrant else "non-reentrant"
    RNG[f"{_name}: preserve_rng_state=True recomputes the forward's masks"] = NET + f"""
x.requires_grad_()
plain, plain_after = grads(net)
kept, kept_after = grads(lambda t: {CK}(net, t, use_reentrant={_reentrant}))
out = (same(plain, kept), bool((plain_after == kept_after).all()),
       bool((kept_after == no_backward_rand(net)).all()))
"""
    RNG[f"{_name}: preserve_rng_state=False draws new masks"] = NET + f"""
x.requires_grad_()
plain, plain_after = grads(net)
new, new_after = grads(lambda t: {CK}(net, t, use_reentrant={_reentrant},
                                       preserve_rng_state=False))
out = (same(plain, new), bool((new_after == no_backward_rand(net)).all()),
       [bool((g == g).all()) for g in new])
"""
    RNG[f"{_name}: eval() turns dropout off, so either way matches"] = NET + f"""
x.requires_grad_()
net.eval()
plain, _ = grads(net)
new, _ = grads(lambda t: {CK}(net, t, use_reentrant={_reentrant}, preserve_rng_state=False))
out = (same(plain, new), net.training, net[1].training)
"""
RNG["preserve_rng_state with use_reentrant=True and other keywords"] = NET + f"""
{CK}(net, x, use_reentrant=True, preserve_rng_state=True, foo=1)
"""

SEQ = "lib.utils.checkpoint.checkpoint_sequential"
SEQUENTIAL = {
    "use_reentrant not passed: torch's warning": NET + f"""
x.requires_grad_()
y = {SEQ}(net, 2, x)
out = (y.grad_fn.name(), [n.name() for n in walk(y)])
""",
    "reentrant: a CheckpointFunctionBackward per segment but the last": NET + f"""
x.requires_grad_()
y = {SEQ}(net, 3, x, use_reentrant=True)
out = [n.name() for n in walk(y)]
""",
    "non-reentrant: the ordinary nodes": NET + f"""
x.requires_grad_()
y = {SEQ}(net, 3, x, use_reentrant=False)
out = [n.name() for n in walk(y)]
""",
    "what an outer hook sees packed": NET + f"""
x.requires_grad_()
shapes = {{}}
for reentrant in (True, False):
    seen = shapes[reentrant] = []
    with lib.autograd.graph.saved_tensors_hooks(lambda t: seen.append(tuple(t.shape)) or t,
                                                lambda t: t):
        y = {SEQ}(net, 3, x, use_reentrant=reentrant)
plain = []
with lib.autograd.graph.saved_tensors_hooks(lambda t: plain.append(tuple(t.shape)) or t,
                                            lambda t: t):
    net(x)
out = (shapes, plain)
""",
    "gradients equal an unchecked run's (dropout kept by the RNG state)": NET + f"""
x.requires_grad_()
plain, _ = grads(net)
x.grad = None
results = []
for reentrant in (True, False):
    for segments in (1, 2, 3, 7):
        g, _ = grads(lambda t: {SEQ}(net, segments, t, use_reentrant=reentrant))
        results.append(same(plain, g))
out = results
""",
    # the reentrant variant's pitfall: an input that needs no grad cuts the first segments off
    "reentrant with an input that needs no grad: no gradients before the last segment": NET + f"""
y = {SEQ}(net, 2, x, use_reentrant=True)
y.sum().backward()
out = [q.grad is None for q in net.parameters()]
""",
    "non-reentrant with an input that needs no grad: every gradient": NET + f"""
y = {SEQ}(net, 2, x, use_reentrant=False)
y.sum().backward()
out = [q.grad is None for q in net.parameters()]
""",
    "a list of functions": NET + f"""
x = x.double().requires_grad_()
fs = [lambda t: t * 2, lib.sin, lambda t: t ** 2, lib.tanh]
y = {SEQ}(fs, 2, x, use_reentrant=False)
y.sum().backward()
out = (y, x.grad, [n.name() for n in walk(y)])
""",
    "more segments than functions": NET + f"{SEQ}(net, 9, x, use_reentrant=False)",
    "an unexpected keyword": NET + f"{SEQ}(net, 2, x, use_reentrant=False, foo=1)",
    "preserve_rng_state=False: other gradients": NET + f"""
plain, _ = grads(net)
g, _ = grads(lambda t: {SEQ}(net, 3, t, use_reentrant=False, preserve_rng_state=False))
out = same(plain, g)
""",
    "a second backward: recomputed with retain_graph, else the usual error": NET + f"""
x.requires_grad_()
res = []
for reentrant in (False, True):
    y = {SEQ}(net, 3, x, use_reentrant=reentrant).sum()
    y.backward(retain_graph=True)
    y.backward()
    res.append(x.grad.clone())
    x.grad = None
    y = {SEQ}(net, 3, x, use_reentrant=reentrant).sum()
    y.backward()
    try:
        y.backward()
        res.append('ok')
    except RuntimeError as e:
        res.append(str(e)[:40])
out = [r if isinstance(r, str) else None for r in res]
""",
}

WALK = """
def walk(t):
    seen, order, stack = set(), [], [t.grad_fn]
    while stack:
        n = stack.pop(0)
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        order.append(n)
        stack.extend(c for c, _ in n.next_functions)
    return order
"""


@pytest.mark.parity
@cases(RNG)
def test_checkpoint_rng(torch, source):
    assert run(__import__("autograd_lesson"), source) == run(torch, source)


@pytest.mark.parity
@cases(SEQUENTIAL)
def test_checkpoint_sequential(torch, source):
    source = WALK + source
    assert run(__import__("autograd_lesson"), source) == run(torch, source)
