"""Engine, hooks, custom Functions, grad mode, ``.grad`` and optimizers beyond the lessons'
paths (issue 12), against PyTorch 2.13: each snippet runs in both libraries.

A snippet sets ``out`` to plain Python values (tensors as ``.tolist()``). An exception becomes
``(type name, message)`` and warnings are collected, so types, messages and warnings are
compared word for word. ``lib`` is the library, ``np`` NumPy.
"""

import numpy as np
import pytest

import autograd_lesson as al
from snippets import cases as _cases, run

# -- the engine: saved-tensor hooks, partial backwards, materialized grads ----------------------
ENGINE = {
    # the unpack hook's tensor is put back in the saved tensor's place in the graph
    "pack detach: double backward": """
x = lib.tensor(2., requires_grad=True)
with lib.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: t):
    y = x ** 3
g, = lib.autograd.grad(y, x, create_graph=True)
gg, = lib.autograd.grad(g, x)
out = (g.item(), gg.item())
""",
    "pack times 2: double backward": """
x = lib.tensor(2., requires_grad=True)
with lib.autograd.graph.saved_tensors_hooks(lambda t: t * 2, lambda t: t):
    y = x ** 3
g, = lib.autograd.grad(y, x, create_graph=True)
gg, = lib.autograd.grad(g, x)
out = (g.item(), gg.item())
""",
    # grad(y, x) computes only what leads to x: w's gradient graph is never built
    "packs during grad(create_graph)": """
n = [0]
def pack(t):
    n[0] += 1
    return t
x = lib.tensor([1., 2.], requires_grad=True)
w = lib.tensor([3., 4.], requires_grad=True)
y = (x * w).tanh().sum()
with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
    g, = lib.autograd.grad(y, x, create_graph=True)
out = (n[0], [round(v, 4) for v in g.tolist()])
""",
    "packs in forward and grad(create_graph)": """
n = [0]
def pack(t):
    n[0] += 1
    return t
x = lib.tensor([1., 2.], requires_grad=True)
w = lib.tensor([3., 4.], requires_grad=True)
with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
    y = (x * w).tanh().sum()
    forward = n[0]
    g, = lib.autograd.grad(y, x, create_graph=True)
out = (forward, n[0])
""",
    "unpack hook returns a non-Tensor": """
x = lib.tensor([1., 2.], requires_grad=True)
with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: 3):
    y = x.exp()
y.sum().backward()
""",
    "saved_tensors_hooks: nested innermost": """
log = []
x = lib.ones(2, requires_grad=True)
with lib.autograd.graph.saved_tensors_hooks(lambda t: log.append('outer') or t, lambda t: t):
    with lib.autograd.graph.saved_tensors_hooks(lambda t: log.append('inner') or t, lambda t: t):
        y = x.exp()
out = log
""",
    "saved_tensors_hooks: unpack each access": """
log = []
x = lib.ones(2, requires_grad=True)
with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: log.append(1) or t):
    y = x.exp()
y.grad_fn._saved_result; y.grad_fn._saved_result
y.sum().backward()
out = len(log)
""",
    "saved_tensors_hooks: pack identity": """
seen = []
x = lib.ones(2, requires_grad=True)
w = lib.ones(2, requires_grad=True)
h = x * 1
with lib.autograd.graph.saved_tensors_hooks(lambda t: seen.append(t) or t, lambda t: t):
    y = h * w
out = [(s is h, s is w) for s in seen]
""",
    "saved_tensors_hooks: pack output identity": """
seen = []
x = lib.ones(2, requires_grad=True)
with lib.autograd.graph.saved_tensors_hooks(lambda t: seen.append(t) or t, lambda t: t):
    y = x.exp()
out = [(s is y, s.grad_fn is None, s.requires_grad) for s in seen]
""",
    "saved_tensors_hooks: unpack after free": """
x = lib.ones(2, requires_grad=True)
with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
    y = x.exp()
y.sum().backward()
y.grad_fn._saved_result
""",
    "saved_tensors_hooks: pack returns none": """
x = lib.ones(2, requires_grad=True)
with lib.autograd.graph.saved_tensors_hooks(lambda t: None, lambda t: lib.ones(2)):
    y = x.exp()
y.sum().backward()
out = x.grad.tolist()
""",
    "saved_tensors_hooks: unpack wrong shape": """
x = lib.ones(2, requires_grad=True)
with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: lib.ones(3)):
    y = x.exp()
y.sum().backward()
""",
    "saved_tensors_hooks: no version check": """
x = lib.ones(2, requires_grad=True)
h = x * 1
with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
    y = h * h
with lib.no_grad():
    h.add_(1)
y.sum().backward()
out = x.grad.tolist()
""",
    "saved_tensors_hooks: hooks in backward create graph": """
log = []
x = lib.tensor(2., requires_grad=True)
y = x ** 3
with lib.autograd.graph.saved_tensors_hooks(lambda t: log.append(tuple(t.shape)) or t, lambda t: t):
    g, = lib.autograd.grad(y, x, create_graph=True)
out = (len(log), g.item())
""",
    "materialize_grads with create_graph": """
x = lib.tensor([1., 2.], requires_grad=True)
z = lib.tensor([1., 2.], requires_grad=True)
g = lib.autograd.grad((x * 2).sum(), [x, z], create_graph=True, materialize_grads=True)
out = [(t.requires_grad, t.grad_fn is None, t.tolist()) for t in g]
""",
    "materialize_grads without create_graph": """
x = lib.tensor([1., 2.], requires_grad=True)
z = lib.tensor([1., 2.], requires_grad=True)
g = lib.autograd.grad((x * 2).sum(), [x, z], materialize_grads=True)
out = [(t.requires_grad, t.tolist()) for t in g]
""",
    # hooks on leaves outside ``inputs`` never fire: their nodes are not even queued
    "backward(inputs=[non-leaf]) hooks": """
log = []
x = lib.tensor([1., 2.], requires_grad=True)
w = lib.tensor([3., 4.], requires_grad=True)
x.register_hook(lambda g: log.append('x'))
w.register_hook(lambda g: log.append('w'))
h = x * w
h.register_hook(lambda g: log.append('h'))
(h * 2).sum().backward(inputs=[h])
out = (log, x.grad, w.grad, h.grad.tolist())
""",
    "backward(inputs=[leaf]) hooks": """
log = []
x = lib.tensor([1., 2.], requires_grad=True)
w = lib.tensor([3., 4.], requires_grad=True)
x.register_hook(lambda g: log.append('x'))
w.register_hook(lambda g: log.append('w'))
(x * w * 2).sum().backward(inputs=[x])
out = (log, x.grad.tolist(), w.grad)
""",
    "grad() node hooks outside the inputs": """
log = []
x = lib.tensor([1., 2.], requires_grad=True)
h = x * lib.tensor([3., 4.])
h.grad_fn.register_prehook(lambda g: log.append('pre'))
h.grad_fn.next_functions[0][0].register_prehook(lambda g: log.append('acc'))
g, = lib.autograd.grad((h * 2).sum(), h)
out = (g.tolist(), log)
""",
    "backward counts: fewer gradients": """
a = lib.tensor([1.], requires_grad=True)
b = lib.tensor([1.], requires_grad=True)
lib.autograd.backward([a * 2, b * 2], [lib.ones(1)])
""",
    "backward counts: more gradients": """
a = lib.tensor([1.], requires_grad=True)
lib.autograd.backward([a * 2], [lib.ones(1), lib.ones(1)])
out = a.grad.tolist()
""",
    "grad counts: fewer gradients": """
a = lib.tensor([1.], requires_grad=True)
b = lib.tensor([1.], requires_grad=True)
lib.autograd.grad([a * 2, b * 2], [a], [lib.ones(1)])
""",
    "retain_graph='no'": """
x = lib.tensor([1.], requires_grad=True)
(x * x).sum().backward(retain_graph="no")
""",
    "create_graph='no'": """
x = lib.tensor([1.], requires_grad=True)
(x * x).sum().backward(create_graph="no")
""",
    "grad(retain_graph=1.5)": """
x = lib.tensor([1.], requires_grad=True)
lib.autograd.grad((x * x).sum(), x, retain_graph=1.5)
""",
    "grad(create_graph=None)": """
x = lib.tensor([1.], requires_grad=True)
lib.autograd.grad((x * x).sum(), x, create_graph=None)
""",
    "retain_graph=1 retains": """
x = lib.tensor([1.], requires_grad=True)
y = (x * x).sum()
y.backward(retain_graph=1)
y.backward(retain_graph=np.int64(0))
out = x.grad.tolist()
""",
}

# -- the arguments of backward/grad, and autograd.graph's helpers --------------------------------
ARGS = {
    "backward inputs dict": """
x = lib.ones(2, requires_grad=True)
(x * 3).sum().backward(inputs={'x': x})
out = x.grad
""",
    "backward inputs gen": """
x = lib.ones(2, requires_grad=True)
(x * 3).sum().backward(inputs=(t for t in [x]))
out = x.grad
""",
    "backward inputs unreached": """
x = lib.ones(2, requires_grad=True); z = lib.ones(2, requires_grad=True)
(x * 3).sum().backward(inputs=[z])
out = (x.grad, z.grad)
""",
    "grad inputs dict": """
x = lib.ones(2, requires_grad=True)
out = lib.autograd.grad((x * 3).sum(), {'x': x})
""",
    "grad output nontensor": """
x = lib.ones(2, requires_grad=True)
out = lib.autograd.grad((x * 3).sum(), x, grad_outputs=1.0)
""",
    "grad outputs wrong dtype": """
x = lib.ones(2, requires_grad=True)
out = lib.autograd.grad((x * 3).sum(), x, grad_outputs=lib.tensor(2., dtype=lib.float64))
""",
    "grad on nonrequire": """
x = lib.ones(2, requires_grad=True)
out = lib.autograd.grad(lib.ones(1).sum(), x)
""",
    "grad only inputs": """
x = lib.ones(2, requires_grad=True)
out = lib.autograd.grad((x * 3).sum(), x, only_inputs=False)
""",
    "backward nonscalar": """
x = lib.ones(2, requires_grad=True)
(x*3).backward()
""",
    "backward grad variables": """
x = lib.ones(2, requires_grad=True)
lib.autograd.backward([(x*3).sum()], grad_variables=[lib.tensor(2.)])
out = x.grad
""",
    "hook registered in backward": """
log = []
x = lib.ones(2, requires_grad=True)
h = x * 2
def outer(g):
    x.register_hook(lambda g2: log.append('late'))
h.register_hook(outer)
(h*1).sum().backward()
out = log
""",
    "hook on inference": """
with lib.inference_mode():
    x = lib.ones(2)
x.register_hook(lambda g: g)
""",
    "retain grad twice hooks": """
x = lib.ones(2, requires_grad=True)
h = x * 2
h.retain_grad(); h.retain_grad()
h.register_hook(lambda g: g * 10)
(h*1).sum().backward()
out = (h.grad.tolist(), x.grad.tolist())
""",
    "retain grad order hook before": """
x = lib.ones(2, requires_grad=True)
h = x * 2
h.register_hook(lambda g: g * 10)
h.retain_grad()
(h*1).sum().backward()
out = (h.grad.tolist(), x.grad.tolist())
""",
    "grad outputs empty": """
x = lib.ones(2, requires_grad=True)
out = lib.autograd.grad((x * 3).sum(), x, grad_outputs=[])
""",
    "backward inputs norg": """
x = lib.ones(2, requires_grad=True)
(x*3).sum().backward(inputs=[lib.ones(1)])
""",
    "backward inputs int": """
x = lib.ones(2, requires_grad=True)
(x*3).sum().backward(inputs=[x, 3])
""",
    "grad inputs int": """
x = lib.ones(2, requires_grad=True)
lib.autograd.grad((x*3).sum(), [x, 3])
""",
    "grad inputs norg": """
x = lib.ones(2, requires_grad=True)
lib.autograd.grad((x*3).sum(), [x, lib.ones(1)])
""",
    "backward int": """
lib.autograd.backward(3)
""",
    "grad inputs ordereddict": """
import collections
x = lib.ones(2, requires_grad=True)
lib.autograd.grad((x*3).sum(), collections.OrderedDict(x=x))
""",
    "grad dict batched": """
x = lib.ones(2, requires_grad=True)
out = lib.autograd.grad(x * 3, {'x': x}, lib.eye(2), is_grads_batched=True)
""",
    "backward(gradient): float64": """
x = lib.ones(2, requires_grad=True)
(x * 2).backward(lib.ones(2, dtype=lib.float64))
out = (x.grad.tolist(), str(x.grad.dtype)[-7:])
""",
    "backward(gradient): int": """
x = lib.ones(2, requires_grad=True)
(x * 2).backward(lib.tensor([1, 2]))
out = (x.grad.tolist(), str(x.grad.dtype)[-7:])
""",
    "backward(gradient): list": """
x = lib.ones(2, requires_grad=True)
(x * 2).backward([1., 1.])
""",
    "backward(gradient): shape": """
x = lib.ones(2, requires_grad=True)
(x * 2).backward(lib.ones(3))
""",
    "backward(gradient): requires grad create graph": """
x = lib.ones(2, requires_grad=True)
v = lib.ones(2, requires_grad=True)
g, = lib.autograd.grad(x * 3, x, v, create_graph=True)
g.sum().backward()
out = (g.requires_grad, v.grad.tolist())
""",
    "backward(gradient): 0dim for 1elem": """
x = lib.ones(1, requires_grad=True)
(x * 2).backward()
out = x.grad.tolist()
""",
    "disable_saved_tensors_hooks while hooks are active": """
n=[0]
def pack(t): n[0]+=1; return t
x = lib.ones(2, requires_grad=True)
with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
    with lib.autograd.graph.disable_saved_tensors_hooks('nope'):
        pass
""",
    "saved_tensors_hooks inside disable_saved_tensors_hooks": """
n=[0]
def pack(t): n[0]+=1; return t
try:
    with lib.autograd.graph.disable_saved_tensors_hooks('outer'):
        with lib.autograd.graph.disable_saved_tensors_hooks('inner'):
            pass
        with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t): pass
except RuntimeError as e:
    a = str(e)
with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
    y = lib.ones(2, requires_grad=True).exp()
out = (a, n[0])
""",
    "disable_saved_tensors_hooks as a decorator": """
@lib.autograd.graph.disable_saved_tensors_hooks('deco')
def f():
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t): pass
f()
""",
    "get_gradient_edge leaf": """
x = lib.ones(1, requires_grad=True)
e = lib.autograd.graph.get_gradient_edge(x)
out = (e.node.name(), e.output_nr)
""",
    "get_gradient_edge norg": """
lib.autograd.graph.get_gradient_edge(lib.ones(1))
""",
    "get_gradient_edge grad": """
x = lib.ones(2, requires_grad=True)
y = x * 2
g = lib.autograd.grad((y * 3).sum(), lib.autograd.graph.get_gradient_edge(y))
out = [t.tolist() for t in g]
""",
    "get_gradient_edge backward": """
x = lib.ones(2, requires_grad=True)
y = x * 2
(y * 3).sum().backward(inputs=[lib.autograd.graph.get_gradient_edge(x)])
out = x.grad.tolist()
""",
    "get_gradient_edge materialize": """
x = lib.ones(2, requires_grad=True)
z = lib.ones(2, requires_grad=True)
y = x * 2
lib.autograd.grad((y * 3).sum(), [x, lib.autograd.graph.get_gradient_edge(z)], materialize_grads=True)
""",
    "register_multi_grad_hook: all one": """
log = []
a = lib.ones(1, requires_grad=True); b = lib.ones(1, requires_grad=True)
lib.autograd.graph.register_multi_grad_hook((a, b), lambda gs: log.append([None if g is None else g.tolist() for g in gs]))
(a * 2).sum().backward()
(a * 2 + b * 3).sum().backward()
out = log
""",
    "register_multi_grad_hook: all nonleaf grad": """
log = []
x = lib.ones(2, requires_grad=True)
a = x * 2; b = x * 3
lib.autograd.graph.register_multi_grad_hook([a, b], lambda gs: log.append([None if g is None else g.tolist() for g in gs]))
lib.autograd.grad((a * b).sum(), a)
lib.autograd.grad((a * b).sum(), x)
out = log
""",
    "register_multi_grad_hook: any": """
log = []
a = lib.ones(1, requires_grad=True); b = lib.ones(1, requires_grad=True)
lib.autograd.graph.register_multi_grad_hook((a, b), lambda g: log.append(g.tolist()), mode="any")
(a * 2 + b * 3).sum().backward()
(b * 5).sum().backward()
out = log
""",
    "register_multi_grad_hook: bad mode": """
a = lib.ones(1, requires_grad=True)
lib.autograd.graph.register_multi_grad_hook((a,), lambda g: None, mode="some")
""",
    "register_multi_grad_hook: remove": """
log = []
a = lib.ones(1, requires_grad=True); b = lib.ones(1, requires_grad=True)
h = lib.autograd.graph.register_multi_grad_hook((a, b), lambda gs: log.append(1))
h.remove()
(a * 2 + b).sum().backward()
out = log
""",
    "is_grads_batched with create_graph": """
x = lib.tensor([1., 2., 3.], requires_grad=True)
y = x ** 3
J, = lib.autograd.grad(y, x, lib.eye(3), is_grads_batched=True, create_graph=True)
J.sum().backward()
out = (J.tolist(), J.requires_grad, x.grad.tolist())
""",
    "is_grads_batched with create_graph: grad_outputs that require grad": """
x = lib.tensor([1., 2.], requires_grad=True)
v = lib.ones(2, 2, requires_grad=True)
y = x ** 2
J, = lib.autograd.grad(y, x, v * 3, is_grads_batched=True, create_graph=True)
J.sum().backward()
out = (J.tolist(), v.grad.tolist(), x.grad.tolist())
""",
    "is_grads_batched with create_graph: materialized zeros": """
x = lib.tensor([1., 2.], requires_grad=True)
z = lib.tensor([1., 2.], requires_grad=True)
J = lib.autograd.grad(x * 2, [x, z], lib.eye(2), is_grads_batched=True, create_graph=True, materialize_grads=True)
out = [(t.tolist(), t.requires_grad) for t in J]
""",
    "increment_version": """
x = lib.ones(2, requires_grad=True)
v = x * 1
lib.autograd.graph.increment_version(v)
lib.autograd.graph.increment_version([v, x])
out = (v._version, x._version)
""",
    "increment_version makes a saved tensor stale": """
x = lib.ones(2, requires_grad=True)
y = x * 1
z = y * y
lib.autograd.graph.increment_version(y)
z.sum().backward()
""",
    "grad fn call": """
x = lib.ones(2, requires_grad=True)
y = x * 3
out = y.grad_fn(lib.ones(2))
""",
}

# -- the engine's walk: reentrant calls, several roots, hooks under create_graph ----------------
WALK = {
    "hook before inplace": """
log = []
x = lib.tensor([1., 2.], requires_grad=True)
h = x * 1
h.register_hook(lambda g: log.append(('before', g.tolist())))
h.mul_(3)
h.register_hook(lambda g: log.append(('after', g.tolist())))
(h * 2).sum().backward()
out = (log, x.grad.tolist())
""",
    "retain grad view inplace": """
x = lib.tensor([1., 2.], requires_grad=True)
h = x * 1
v = h[:1]
v.retain_grad()
v.mul_(3)
(h * 2).sum().backward()
out = (v.grad.tolist(), x.grad.tolist())
""",
    "hook on view then base inplace": """
log = []
x = lib.tensor([1., 2.], requires_grad=True)
h = x * 1
v = h[:1]
v.register_hook(lambda g: log.append(g.tolist()))
h.mul_(2)
(v * 5).sum().backward()
out = (log, x.grad.tolist())
""",
    "post acc hook create graph": """
log = []
x = lib.tensor([1., 2.], requires_grad=True)
x.register_post_accumulate_grad_hook(lambda p: log.append(p.grad.requires_grad))
(x * x).sum().backward(create_graph=True)
out = log
""",
    "post acc hook modify grad": """
x = lib.tensor([1., 2.], requires_grad=True)
def hook(p):
    p.grad.mul_(10)
x.register_post_accumulate_grad_hook(hook)
(x * 2).sum().backward()
out = x.grad.tolist()
""",
    "post acc hook optimizer in backward": """
x = lib.tensor([1., 2.], requires_grad=True)
opt = lib.optim.SGD([x], lr=0.5)
def hook(p):
    opt.step(); opt.zero_grad()
x.register_post_accumulate_grad_hook(hook)
(x * 2).sum().backward()
out = (x.tolist(), x.grad)
""",
    "post acc inputs excluded": """
log = []
x = lib.tensor([1., 2.], requires_grad=True)
w = lib.tensor([1., 2.], requires_grad=True)
w.register_post_accumulate_grad_hook(lambda p: log.append('w'))
(x * w).sum().backward(inputs=[x])
out = log
""",
    "backward in no grad": """
x = lib.tensor([1., 2.], requires_grad=True)
y = (x * x).sum()
with lib.no_grad():
    y.backward()
out = x.grad.tolist()
""",
    "grad create graph in no grad": """
x = lib.tensor([1., 2.], requires_grad=True)
y = (x * x).sum()
with lib.no_grad():
    g, = lib.autograd.grad(y, x, create_graph=True)
out = (g.requires_grad, g.tolist(), lib.is_grad_enabled())
""",
    "backward in inference": """
x = lib.tensor([1., 2.], requires_grad=True)
y = (x * x).sum()
with lib.inference_mode():
    y.backward()
out = x.grad.tolist()
""",
    "grad in inference create graph": """
x = lib.tensor([1., 2.], requires_grad=True)
y = (x * x).sum()
with lib.inference_mode():
    g, = lib.autograd.grad(y, x, create_graph=True)
out = (g.requires_grad, g.is_inference())
""",
    "grad mode in backward": """
seen = []
x = lib.tensor([1., 2.], requires_grad=True)
h = x * x
h.register_hook(lambda g: seen.append(lib.is_grad_enabled()))
lib.autograd.grad(h.sum(), x)
lib.autograd.grad((x * x).sum(), x, create_graph=True)
y = x * x
y.register_hook(lambda g: seen.append(lib.is_grad_enabled()))
lib.autograd.grad(y.sum(), x, create_graph=True)
out = seen
""",
    "handle cm": """
x = lib.tensor([1., 2.], requires_grad=True)
with x.register_hook(lambda g: g * 10) as h:
    (x * 1).sum().backward()
a = x.grad.tolist()
x.grad = None
(x * 1).sum().backward()
out = (a, x.grad.tolist(), type(h).__name__)
""",
    "node handle cm": """
x = lib.tensor([1., 2.], requires_grad=True)
y = x * 1
with y.grad_fn.register_prehook(lambda g: (g[0] * 10,)):
    pass
y.sum().backward()
out = x.grad.tolist()
""",
    "multi-grad hook handle as a context manager": """
log = []
a = lib.ones(1, requires_grad=True)
with lib.autograd.graph.register_multi_grad_hook((a,), lambda gs: log.append(1)):
    (a * 2).sum().backward()
(a * 2).sum().backward()
out = log
""",
    "reentrant in hook": """
x = lib.tensor([1., 2.], requires_grad=True)
w = lib.tensor([3., 4.], requires_grad=True)
inner = []
def hook(g):
    z = (w ** 2).sum()
    inner.append(lib.autograd.grad(z, w)[0].tolist())
    return g
h = x * 2
h.register_hook(hook)
h.sum().backward()
out = (inner, x.grad.tolist())
""",
    "reentrant backward in fn": """
class F(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        with lib.enable_grad():
            w = lib.ones(1, requires_grad=True)
            (w * 3).sum().backward()
        return g * w.grad
x = lib.tensor([1., 2.], requires_grad=True)
F.apply(x).sum().backward()
out = x.grad.tolist()
""",
    "hook raises": """
x = lib.tensor([1., 2.], requires_grad=True)
def hook(g): raise ValueError('from hook')
x.register_hook(hook)
(x * 2).sum().backward()
""",
    "acc posthook": """
log = []
x = lib.tensor([1., 2.], requires_grad=True)
acc = (x * 1).grad_fn.next_functions[0][0]
acc.register_hook(lambda gi, go: log.append((len(gi), [g.tolist() for g in go])))
(x * 2).sum().backward()
out = log
""",
    "acc posthook return": """
x = lib.tensor([1., 2.], requires_grad=True)
acc = (x * 1).grad_fn.next_functions[0][0]
acc.register_hook(lambda gi, go: (lib.ones(2),))
(x * 2).sum().backward()
out = x.grad.tolist()
""",
    "hook create graph": """
x = lib.tensor([1., 2.], requires_grad=True)
h = x * x
h.register_hook(lambda g: g * h)
g, = lib.autograd.grad(h.sum(), x, create_graph=True)
gg, = lib.autograd.grad(g.sum(), x)
out = (g.tolist(), gg.tolist())
""",
    "two roots shared": """
x = lib.tensor([1., 2.], requires_grad=True)
h = x * 3
lib.autograd.backward([h.sum(), (h * h).sum()])
out = x.grad.tolist()
""",
    "same root twice": """
x = lib.tensor([1., 2.], requires_grad=True)
y = (x * 3).sum()
lib.autograd.backward([y, y], [lib.tensor(1.), lib.tensor(2.)])
out = x.grad.tolist()
""",
    "grad same input twice": """
x = lib.tensor([1., 2.], requires_grad=True)
out = [t.tolist() for t in lib.autograd.grad((x * 3).sum(), [x, x])]
""",
    "grad root is input": """
x = lib.tensor([1., 2.], requires_grad=True)
y = x * 3
out = [t.tolist() for t in lib.autograd.grad(y, y, lib.ones(2))]
""",
    "grad leaf is output": """
x = lib.tensor([1., 2.], requires_grad=True)
out = [t.tolist() for t in lib.autograd.grad(x, x, lib.ones(2))]
""",
    "backward leaf": """
x = lib.tensor(1., requires_grad=True)
x.backward()
out = x.grad.tolist()
""",
    "prehook all none": """
log = []
x = lib.tensor([1., 2.], requires_grad=True)
h = x * 2
h.grad_fn.register_prehook(lambda go: (None,))
(h * 2).sum().backward()
out = x.grad
""",
    "tensor hook nonleaf twice used": """
log = []
x = lib.tensor([1., 2.], requires_grad=True)
h = x * 2
h.register_hook(lambda g: log.append(g.tolist()))
(h * 2 + h * 3).sum().backward()
out = log
""",
    "retain grad accumulates": """
x = lib.tensor([1., 2.], requires_grad=True)
h = x * 2
h.retain_grad()
(h * 2).sum().backward(retain_graph=True)
g1 = h.grad
(h * 2).sum().backward()
out = (h.grad.tolist(), g1 is h.grad)
""",
    "leaf grad inplace accum": """
x = lib.tensor([1., 2.], requires_grad=True)
(x * 2).sum().backward()
g1 = x.grad
(x * 2).sum().backward()
out = (x.grad.tolist(), g1 is x.grad)
""",
    "leaf grad create graph accum": """
x = lib.tensor([1., 2.], requires_grad=True)
(x * 2).sum().backward()
g1 = x.grad
(x * x).sum().backward(create_graph=True)
out = (x.grad.tolist(), g1 is x.grad, x.grad.requires_grad)
""",
}

# -- hooks: what they may return (checked once, in the engine) --------------------------------
RETURNS = {"float": "1.0", "ndarray": "np.ones(2, dtype=np.float32)", "list": "[g]",
           "str": "'no'", "tuple": "(g,)", "shape": "lib.ones(3)",
           "int64": "lib.ones(2, dtype=lib.int64)", "float64": "g.double()"}
HOOKS = {}
for _kind, _value in RETURNS.items():
    HOOKS[f"leaf tensor hook returns {_kind}"] = f"""
x = lib.tensor([1., 2.], requires_grad=True)
x.register_hook(lambda g: {_value})
(x * 2).sum().backward()
out = x.grad.tolist()
"""
    HOOKS[f"non-leaf tensor hook returns {_kind}"] = f"""
x = lib.tensor([1., 2.], requires_grad=True)
h = x * 2
h.register_hook(lambda g: {_value})
(h * 2).sum().backward()
out = x.grad.tolist()
"""
    HOOKS[f"node prehook returns ({_kind},)"] = f"""
x = lib.tensor([1., 2.], requires_grad=True)
h = x * 2
h.grad_fn.register_prehook(lambda go: ({_value.replace('g', 'go[0]') if _kind == 'list' else _value},))
(h * 2).sum().backward()
out = x.grad.tolist()
"""
    HOOKS[f"node post-hook returns ({_kind}, None)"] = f"""
x = lib.tensor([1., 2.], requires_grad=True)
h = x * lib.tensor([1., 1.])
h.grad_fn.register_hook(lambda gi, go: ({_value.replace('g', 'gi[0]') if _kind == 'list' else _value}, None))
(h * 2).sum().backward()
out = x.grad.tolist()
"""
HOOKS.update({
    "named hook changes the size": """
x = lib.tensor([1., 2.], requires_grad=True)
def myhook(g):
    return lib.ones(3)
x.register_hook(myhook)
(x * 2).sum().backward()
""",
    "callable object without __name__": """
class Hook:
    def __call__(self, g):
        return lib.ones(3)
x = lib.tensor([1., 2.], requires_grad=True)
(x * 1).register_hook(Hook())
x.register_hook(Hook())
(x * 2).sum().backward()
""",
    "post-hook: wrong count (scalar edge counts)": """
x = lib.tensor([1., 2.], requires_grad=True)
h = x * 2
h.grad_fn.register_hook(lambda gi, go: (gi[0],))
(h * 2).sum().backward()
""",
    "post-hook replaces a None gradient": """
x = lib.tensor([1., 2.], requires_grad=True)
h = x * 2
h.grad_fn.register_hook(lambda gi, go: (gi[0], gi[0]))
(h * 2).sum().backward()
""",
    "post-hook returns a Tensor, not a tuple": """
x = lib.tensor([1., 2.], requires_grad=True)
h = x * lib.tensor([1., 1.])
h.grad_fn.register_hook(lambda gi, go: gi[0])
(h * 2).sum().backward()
""",
    "post-hook returns a list": """
x = lib.tensor([1., 2.], requires_grad=True)
h = x * lib.tensor([1., 1.])
h.grad_fn.register_hook(lambda gi, go: [gi[0] * 3, None])
(h * 2).sum().backward()
""",
    "post-hook scales the gradient": """
x = lib.tensor([1., 2.], requires_grad=True)
h = x * lib.tensor([1., 1.])
h.grad_fn.register_hook(lambda gi, go: (gi[0] * 3, None))
(h * 2).sum().backward()
out = x.grad.tolist()
""",
    "prehook: wrong count": """
x = lib.tensor([1., 2.], requires_grad=True)
h = x * 2
h.grad_fn.register_prehook(lambda go: (go[0], go[0]))
(h * 2).sum().backward()
""",
    "prehook returns a Tensor, not a tuple": """
x = lib.tensor([1., 2.], requires_grad=True)
h = x * 2
h.grad_fn.register_prehook(lambda go: go[0])
(h * 2).sum().backward()
""",
    "AccumulateGrad prehook changes the size": """
x = lib.tensor([1., 2.], requires_grad=True)
h = x * 2
h.grad_fn.next_functions[0][0].register_prehook(lambda go: (lib.ones(3),))
(h * 2).sum().backward()
""",
    "two hooks chain; a removed one stays removed": """
x = lib.tensor([1., 2.], requires_grad=True)
handle = x.register_hook(lambda g: g * 100)
x.register_hook(lambda g: g * 2)
x.register_hook(lambda g: g + 1)
handle.remove()
handle.remove()
(x * 1).sum().backward()
out = x.grad.tolist()
""",
    "the same hook twice: each handle removes its own": """
x = lib.tensor([1., 2.], requires_grad=True)
def double(g):
    return g * 2
first = x.register_hook(double)
x.register_hook(lambda g: g + 1)
second = x.register_hook(double)
second.remove()
(x * 1).sum().backward()
a = x.grad.tolist()
second.remove()
first.remove()
x.grad = None
(x * 1).sum().backward()
out = (a, x.grad.tolist(), first.id < second.id)
""",
    "post-accumulate-grad hook": """
log = []
x = lib.tensor([1., 2.], requires_grad=True)
def hook(p):
    log.append((p is x, p.grad.tolist()))
handle = x.register_post_accumulate_grad_hook(hook)
(x * 2).sum().backward()
(x * 2).sum().backward()
handle.remove()
(x * 2).sum().backward()
out = (log, x.grad.tolist())
""",
    "post-accumulate-grad hook runs after the tensor hooks": """
log = []
x = lib.tensor([1., 2.], requires_grad=True)
x.register_post_accumulate_grad_hook(lambda p: log.append(('post', p.grad.tolist())))
x.register_hook(lambda g: log.append('pre'))
(x * 2).sum().backward()
out = log
""",
    "post-accumulate-grad hook returns a value": """
x = lib.tensor([1., 2.], requires_grad=True)
x.register_post_accumulate_grad_hook(lambda p: lib.ones(2))
(x * 2).sum().backward()
""",
    "post-accumulate-grad hook on a non-leaf": """
x = lib.tensor([1., 2.], requires_grad=True)
(x * 2).register_post_accumulate_grad_hook(lambda p: None)
""",
    "post-accumulate-grad hook without requires_grad": """
lib.tensor([1., 2.]).register_post_accumulate_grad_hook(lambda p: None)
""",
    "post-accumulate-grad hook and autograd.grad": """
log = []
x = lib.tensor([1., 2.], requires_grad=True)
x.register_post_accumulate_grad_hook(lambda p: log.append(1))
lib.autograd.grad((x * 2).sum(), x)
out = (log, x.grad)
""",
    "SavedTensor.register_hooks on a saved output": """
log = []
x = lib.tensor([1., 2.], requires_grad=True)
y = x.exp()
def pack(t):
    log.append((t.grad_fn is None, t.requires_grad, t is y, t.tolist()))
    return 5
y.grad_fn._raw_saved_result.register_hooks(pack, lambda p: (log.append(p), lib.ones(2))[1])
first = list(log)
y.sum().backward()
out = (first, log, x.grad.tolist())
""",
    "SavedTensor.register_hooks twice": """
y = lib.tensor([1., 2.], requires_grad=True).exp()
y.grad_fn._raw_saved_result.register_hooks(lambda t: t, lambda t: t)
y.grad_fn._raw_saved_result.register_hooks(lambda t: t, lambda t: t)
""",
    "SavedTensor.register_hooks after the free": """
y = lib.tensor([1., 2.], requires_grad=True).exp()
saved = y.grad_fn._raw_saved_result
y.sum().backward()
saved.register_hooks(lambda t: t, lambda t: t)
""",
    "SavedTensor.register_hooks under saved_tensors_hooks": """
x = lib.tensor([1., 2.], requires_grad=True)
with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
    y = x.exp()
y.grad_fn._raw_saved_result.register_hooks(lambda t: t, lambda t: t)
""",
    "SavedTensor.register_hooks skips the version check": """
x = lib.tensor([1., 2.], requires_grad=True)
z = x * 1
y = z.exp() * z.sum()
y.grad_fn.next_functions[0][0]._raw_saved_result.register_hooks(lambda t: t.clone(), lambda t: t)
ok = y.grad_fn._raw_saved_self.register_hooks(lambda t: t.clone(), lambda t: t)
y.grad_fn._raw_saved_other.register_hooks(lambda t: t.clone(), lambda t: t)
with lib.no_grad():
    z.add_(1)
y.sum().backward()
out = [round(v, 3) for v in x.grad.tolist()]
""",
    "SavedTensor.register_hooks unpack returns a non-Tensor": """
y = lib.tensor([1., 2.], requires_grad=True).exp()
y.grad_fn._raw_saved_result.register_hooks(lambda t: t, lambda t: 3)
y.sum().backward()
""",
})

# -- custom Function ----------------------------------------------------------------------------
FUNCTION = {
    "non-Tensor output: its gradient is None": """
seen = []
class F(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2, 3
    @staticmethod
    def backward(ctx, g, g2):
        seen.append(g2)
        return g * 2
x = lib.tensor([1., 2.], requires_grad=True)
a, b = F.apply(x)
a.sum().backward()
out = (seen, b, x.grad.tolist())
""",
    "trailing None gradients are dropped": """
class F(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return g * 2, None, None
x = lib.tensor([1., 2.], requires_grad=True)
F.apply(x).sum().backward()
out = x.grad.tolist()
""",
    "a trailing Tensor gradient is refused": """
class F(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return g * 2, g
x = lib.tensor([1., 2.], requires_grad=True)
F.apply(x).sum().backward()
""",
    "too few gradients": """
class F(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x, y):
        return x * y
    @staticmethod
    def backward(ctx, g):
        return g
x = lib.tensor([1., 2.], requires_grad=True)
F.apply(x, x).sum().backward()
""",
    "a gradient for a non-Tensor input": """
class F(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        return x * k
    @staticmethod
    def backward(ctx, g):
        return g, g
x = lib.tensor([1., 2.], requires_grad=True)
F.apply(x, 2).sum().backward()
""",
    "an output returned twice is one object": """
class F(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = x * 2
        return y, y
    @staticmethod
    def backward(ctx, g1, g2):
        return g1 + g2
x = lib.tensor([1., 2.], requires_grad=True)
a, b = F.apply(x)
(a.sum() + 3 * b.sum()).backward()
out = (a is b, a.grad_fn is b.grad_fn, a._output_nr if lib is al else a.output_nr, x.grad.tolist())
""",
    "legacy call on an instance (and the warning on F())": """
class F(lib.autograd.Function):
    def forward(self, x):
        return x * 2
    def backward(self, g):
        return g
F()(lib.tensor([1.], requires_grad=True))
""",
    "non-static forward through apply": """
class F(lib.autograd.Function):
    def forward(self, x):
        return x * 2
    def backward(self, g):
        return g
x = lib.tensor([1.], requires_grad=True)
F.apply(x).sum().backward()
out = x.grad.tolist()
""",
    "no backward defined": """
class F(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
F.apply(lib.tensor([1.], requires_grad=True)).sum().backward()
""",
    "ctx._raw_saved_tensors[0].register_hooks": """
log = []
class F(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 2
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * x
x = lib.tensor([1., 2.], requires_grad=True)
y = F.apply(x)
y.grad_fn._raw_saved_tensors[0].register_hooks(lambda t: (log.append('p'), t * 10)[1],
                                               lambda t: (log.append('u'), t)[1])
y.sum().backward()
out = (log, x.grad.tolist())
""",
    "mark_non_differentiable": """
class F(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        a, b = x * 2, x * 3
        ctx.mark_non_differentiable(b)
        return a, b
    @staticmethod
    def backward(ctx, g1, g2):
        return g1 * 2
x = lib.tensor([1., 2.], requires_grad=True)
a, b = F.apply(x)
a.sum().backward()
out = (a.requires_grad, b.requires_grad, x.grad.tolist())
""",
    "set_materialize_grads(False)": """
seen = []
class F(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x * 2, x * 3
    @staticmethod
    def backward(ctx, g1, g2):
        seen.append(g2)
        return g1
x = lib.tensor([1., 2.], requires_grad=True)
a, b = F.apply(x)
a.sum().backward()
out = seen
""",
    "materialized zeros for an unused Tensor output": """
seen = []
class F(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2, x * 3
    @staticmethod
    def backward(ctx, g1, g2):
        seen.append(g2.tolist())
        return g1
x = lib.tensor([1., 2.], requires_grad=True)
a, b = F.apply(x)
a.sum().backward()
out = seen
""",
    "needs_input_grad in forward and backward": """
seen = []
class F(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x, y, k):
        seen.append(ctx.needs_input_grad)
        return x * y
    @staticmethod
    def backward(ctx, g):
        seen.append(ctx.needs_input_grad)
        return g, None, None
x = lib.tensor([1., 2.], requires_grad=True)
F.apply(x, lib.ones(2), 3).sum().backward()
out = seen
""",
    # a custom Function's needs_input_grad is fixed at forward time, even under grad(y, x)
    "needs_input_grad under grad(y, x)": """
seen = []
class F(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        return x * w
    @staticmethod
    def backward(ctx, g):
        seen.append(ctx.needs_input_grad)
        return g, g
x = lib.tensor([1., 2.], requires_grad=True)
w = lib.tensor([1., 2.], requires_grad=True)
lib.autograd.grad(F.apply(x, w).sum(), x)
out = (seen, w.grad)
""",
    "fn saved inplace": """
class F(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 2
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * x
x = lib.ones(2, requires_grad=True)
h = x * 1
y = F.apply(h)
with lib.no_grad():
    h.add_(1)
y.sum().backward()
""",
    "fn saved output inplace": """
class F(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = x * 2
        ctx.save_for_backward(y)
        return y
    @staticmethod
    def backward(ctx, g):
        y, = ctx.saved_tensors
        return g * y
x = lib.ones(2, requires_grad=True)
y = F.apply(x)
with lib.no_grad():
    y.add_(1)
y.sum().backward()
""",
    "fn saved intermediate": """
class F(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        t = x * 3
        ctx.save_for_backward(t)
        return x * 2
    @staticmethod
    def backward(ctx, g):
        t, = ctx.saved_tensors
        return g * t
x = lib.ones(2, requires_grad=True)
F.apply(x).sum().backward()
out = x.grad.tolist()
""",
    "fn saved tensors in forward ctx": """
class F(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        ctx.saved_tensors
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return g
F.apply(lib.ones(2, requires_grad=True))
""",
    "fn saved after backward retain": """
class F(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 2
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * x
x = lib.ones(2, requires_grad=True)
y = F.apply(x)
y.sum().backward(retain_graph=True)
out = [t.tolist() for t in y.grad_fn.saved_tensors]
""",
    "fn ctx attr": """
class F(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.k = 3
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return g * ctx.k
x = lib.ones(2, requires_grad=True)
y = F.apply(x)
y.sum().backward()
out = (x.grad.tolist(), y.grad_fn.k)
""",
    "save_for_backward of a non-Tensor": """
class F(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x, 3)
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return g
out = F.apply(lib.ones(1)).tolist()
F.apply(lib.ones(1, requires_grad=True))
""",
    "mark_dirty": """
class F(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        before = x._version
        x.mul_(2)
        ctx.mark_dirty(x)
        return x
    @staticmethod
    def backward(ctx, g):
        return g * 2
x = lib.ones(2, requires_grad=True)
h = x * 1
y = F.apply(h)
y.sum().backward()
out = (y is h, h._version, x.grad.tolist(), type(h.grad_fn).__name__)
""",
    "mark_dirty on a leaf that requires grad": """
class F(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        ctx.mark_dirty(x)
        return x
    @staticmethod
    def backward(ctx, g):
        return g
F.apply(lib.ones(2, requires_grad=True))
""",
    "mark_dirty on a tensor that is not an input": """
class F(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = x * 2
        ctx.mark_dirty(y)
        return y
    @staticmethod
    def backward(ctx, g):
        return g
out = F.apply(lib.ones(2, requires_grad=True) * 1).tolist()
""",
    "setup_context": """
class F(lib.autograd.Function):
    @staticmethod
    def forward(x, k):
        return x * k
    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.k = inputs[1]
        ctx.save_for_backward(output)
    @staticmethod
    def backward(ctx, g):
        y, = ctx.saved_tensors
        return g * ctx.k + y * 0, None
x = lib.ones(2, requires_grad=True)
F.apply(x, 3).sum().backward()
out = x.grad.tolist()
""",
    "vjp instead of backward": """
class F(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def vjp(ctx, g):
        return g * 5
x = lib.ones(2, requires_grad=True)
F.apply(x).sum().backward()
out = x.grad.tolist()
""",
    "both vjp and backward": """
class F(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return g
    @staticmethod
    def vjp(ctx, g):
        return g
F.apply(lib.ones(2, requires_grad=True)).sum().backward()
""",
    "double backward through a custom Function": """
class Cube(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * 3 * x ** 2
x = lib.tensor(2., requires_grad=True)
g, = lib.autograd.grad(Cube.apply(x), x, create_graph=True)
gg, = lib.autograd.grad(g, x)
out = (g.item(), gg.item())
""",
}
for _kind, _value in {"float": "1.0", "ndarray": "np.ones(2)", "list": "[g]",
                      "str": "'no'", "int": "3"}.items():
    FUNCTION[f"backward returns {_kind}"] = f"""
class F(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return {_value}
x = lib.tensor([1., 2.], requires_grad=True)
F.apply(x).sum().backward()
"""
FUNCTION["backward returns the wrong shape"] = """
class F(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return lib.ones(3)
x = lib.tensor([1., 2.], requires_grad=True)
F.apply(x).sum().backward()
"""
FUNCTION["an output marked non-differentiable that is an input is a detached alias"] = """
class F(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.mark_non_differentiable(x)
        return x
    @staticmethod
    def backward(ctx, g):
        return g
x = lib.ones(2, requires_grad=True)
y = F.apply(x)
z = F.apply(lib.ones(2))
out = (y is x, y.requires_grad, y.grad_fn is None, y.is_leaf, x.requires_grad, z.requires_grad)
"""
FUNCTION["an integer output is not differentiable"] = """
class F(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.long(), x * 2
    @staticmethod
    def backward(ctx, g1, g2):
        assert g1 is None
        return g2 * 2
x = lib.ones(2, requires_grad=True)
y, z = F.apply(x)
z.sum().backward()
out = (y.requires_grad, y.grad_fn is None, y.is_leaf, str(y.dtype), z.grad_fn.name(),
       x.grad.tolist())
"""

# -- grad mode ----------------------------------------------------------------------------------
GRAD_MODE = {
    "@no_grad without parentheses": """
@lib.no_grad
def f(x):
    return x * 2
out = (f(lib.ones(1, requires_grad=True)).requires_grad, f.__name__, lib.is_grad_enabled())
""",
    "no_grad(fn)": """
def f(x):
    return x * 2
g = lib.no_grad(f)
out = (g(lib.ones(1, requires_grad=True)).requires_grad, g.__name__)
""",
    "@enable_grad without parentheses": """
@lib.enable_grad
def f(x):
    return x * 2
with lib.no_grad():
    out = (f(lib.ones(1, requires_grad=True)).requires_grad, lib.is_grad_enabled())
""",
    "@enable_grad()": """
@lib.enable_grad()
def f(x):
    return x * 2
with lib.no_grad():
    out = f(lib.ones(1, requires_grad=True)).requires_grad
""",
    "@set_grad_enabled(False)": """
@lib.set_grad_enabled(False)
def f(x):
    return x * 2
out = (f(lib.ones(1, requires_grad=True)).requires_grad, lib.is_grad_enabled())
""",
    "set_grad_enabled as a function": """
lib.set_grad_enabled(False)
a = lib.is_grad_enabled()
lib.set_grad_enabled(True)
with lib.set_grad_enabled(False) as entered:
    b = lib.is_grad_enabled()
with lib.no_grad() as entered2:
    pass
out = (a, b, lib.is_grad_enabled(), entered, entered2)
""",
    "set_grad_enabled() without a mode": "lib.set_grad_enabled()",
    "set_grad_enabled(fn)": "lib.set_grad_enabled(lambda: 0)",
    "set_grad_enabled('no')": "lib.set_grad_enabled('no')",
    "set_grad_enabled(1)": "lib.set_grad_enabled(1)",
    "set_grad_enabled(np.bool_)": "lib.set_grad_enabled(np.bool_(False))",
    "no_grad decorates a generator": """
@lib.no_grad()
def gen(x):
    yield (x * 2).requires_grad
    yield lib.is_grad_enabled()
it = gen(lib.ones(1, requires_grad=True))
a = next(it)
between = lib.is_grad_enabled()
b = next(it)
out = (a, between, b, lib.is_grad_enabled())
""",
    "@no_grad generator without parentheses": """
@lib.no_grad
def gen(x):
    yield (x * 2).requires_grad
out = (list(gen(lib.ones(1, requires_grad=True))), lib.is_grad_enabled())
""",
    "enable_grad generator resumed under no_grad": """
@lib.enable_grad()
def gen(x):
    yield (x * 2).requires_grad
    yield lib.is_grad_enabled()
with lib.no_grad():
    it = gen(lib.ones(1, requires_grad=True))
    a = next(it)
    between = lib.is_grad_enabled()
    b = next(it)
out = (a, between, b)
""",
    "generator send, throw and close": """
log = []
@lib.no_grad()
def gen():
    try:
        v = yield lib.is_grad_enabled()
        try:
            yield (v, lib.is_grad_enabled())
        except ValueError:
            yield ('caught', lib.is_grad_enabled())
    finally:
        log.append(lib.is_grad_enabled())
it = gen()
a = next(it)
b = it.send(5)
c = it.throw(ValueError())
it.close()
out = (a, b, c, log, lib.is_grad_enabled())
""",
    "generator return value": """
@lib.no_grad()
def gen():
    yield 1
    return 'done'
def outer():
    r = yield from gen()
    yield r
out = list(outer())
""",
    "inference_mode decorates a generator": """
@lib.inference_mode()
def gen():
    yield lib.is_inference_mode_enabled()
out = (list(gen()), lib.is_inference_mode_enabled())
""",
    "decorating a method": """
class M:
    @lib.no_grad()
    def f(self, x):
        return x * 2
out = M().f(lib.ones(1, requires_grad=True)).requires_grad
""",
    "set_detect_anomaly('yes')": "lib.autograd.set_detect_anomaly('yes')",
    "set_detect_anomaly(True, check_nan=1)": "lib.autograd.set_detect_anomaly(True, check_nan=1)",
    "detect_anomaly(check_nan='x')": """
with lib.autograd.detect_anomaly(check_nan='x'):
    pass
""",
    "set_detect_anomaly restores on exit": """
with lib.autograd.set_detect_anomaly(True, check_nan=False):
    inside = (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled())
out = (inside, lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled())
""",
    "decorating a class": """
@lib.no_grad()
class C:
    def __init__(self, x):
        self.y = x * 2
c = C(lib.ones(1, requires_grad=True))
out = (type(c).__name__, c.y.requires_grad)
""",
    "clone": """
lib.set_grad_enabled(True)
c = lib.set_grad_enabled(False).clone()
lib.set_grad_enabled(True)
out = (type(lib.no_grad().clone()).__name__, type(c).__name__, c.mode,
       type(lib.inference_mode(False).clone()).__name__)
""",
    "a decorated function that raises restores the mode": """
@lib.no_grad()
def f():
    raise ValueError('inside')
try:
    f()
except ValueError:
    pass
out = lib.is_grad_enabled()
""",
}

# -- .grad, numpy(), backward on what does not require grad ---------------------------------------
TENSOR = {
    # requires_grad_ reads the stored grad_fn (C++ is_leaf()): a split view whose base changed
    # in place gets the leaf message, or nothing for True, not the multi-view error of is_leaf
    "requires_grad_ on a stale split view": """
x = lib.ones(4, requires_grad=True)
b = x * 1
a, c = b.split(2)
b.mul_(2)
out = []
for call in (lambda: a.requires_grad_(True).requires_grad, lambda: a.requires_grad_(False),
             lambda: a.is_leaf):
    try:
        out.append(call())
    except RuntimeError as error:
        out.append(str(error))
""",
    "numpy() under no_grad": """
x = lib.tensor([1., 2.], requires_grad=True)
with lib.no_grad():
    out = x.numpy().tolist()
""",
    "numpy() under inference_mode": """
x = lib.tensor([1., 2.], requires_grad=True)
with lib.inference_mode():
    out = x.numpy().tolist()
""",
    "numpy() of a graph tensor under no_grad": """
y = lib.tensor([1., 2.], requires_grad=True) * 2
with lib.no_grad():
    out = y.numpy().tolist()
""",
    "numpy() with grad mode on": "lib.tensor([1., 2.], requires_grad=True).numpy()",
    "numpy(force=True)": "out = lib.tensor([1., 2.], requires_grad=True).numpy(force=True).tolist()",
    "numpy() shares memory": """
x = lib.tensor([1., 2.])
x.numpy()[0] = 5
out = x.tolist()
""",
    "del x.grad": """
x = lib.tensor([1., 2.], requires_grad=True)
(x * 2).sum().backward()
del x.grad
del x.grad
out = x.grad
""",
    "x.grad = int64 tensor": "lib.tensor([1., 2.], requires_grad=True).grad = lib.tensor([1, 2])",
    "x.grad = float64 tensor": """
lib.tensor([1., 2.], requires_grad=True).grad = lib.ones(2, dtype=lib.float64)
""",
    "int64 x.grad = float tensor": "lib.tensor([1, 2]).grad = lib.ones(2)",
    "x.grad = x": """
x = lib.tensor([1., 2.], requires_grad=True)
x.grad = x
""",
    "x.grad = x.detach()": """
x = lib.tensor([1., 2.], requires_grad=True)
x.grad = x.detach()
out = x.grad.tolist()
""",
    "x.grad = wrong shape": "lib.tensor([1., 2.], requires_grad=True).grad = lib.ones(3)",
    "x.grad = int64 of the wrong shape": """
lib.tensor([1., 2.], requires_grad=True).grad = lib.ones(3, dtype=lib.int64)
""",
    "x.grad = list": "lib.tensor([1., 2.], requires_grad=True).grad = [1., 2.]",
    "x.grad = 3": "lib.tensor([1., 2.], requires_grad=True).grad = 3",
    "assigned grad then backward accumulates into it": """
x = lib.tensor([1., 2.], requires_grad=True)
g = lib.ones(2)
x.grad = g
(x * 2).sum().backward()
out = (x.grad is g, x.grad.tolist())
""",
    "non-leaf .grad warns only while unset": """
y = lib.tensor([1., 2.], requires_grad=True) * 2
first = y.grad
y.grad = lib.ones(2)
out = (first, y.grad.tolist())
""",
    "retain_grad then an in-place op": """
a = lib.tensor([1.], requires_grad=True).clone()
a.retain_grad()
a.mul_(2)
a.sum().backward()
out = a.grad.tolist()
""",
    "h.fill_ cuts the gradient": """
x = lib.tensor([1., 2.], requires_grad=True)
h = x * 1
h.fill_(3.)
(h * 2).sum().backward()
out = x.grad.tolist()
""",
    "detach_": """
h = lib.tensor([1., 2.], requires_grad=True) * 1
h.detach_()
out = (h.requires_grad, h.grad_fn, h.is_leaf)
""",
    "backward of a tensor that does not require grad": "lib.ones(2).sum().backward()",
}

# -- optimizers ---------------------------------------------------------------------------------
OPTIM = {
    "non-leaf parameter": "lib.optim.SGD([lib.ones(2, requires_grad=True) * 2], lr=0.1)",
    "non-leaf that retains grad": """
p = lib.ones(2, requires_grad=True) * 2
p.retain_grad()
out = len(lib.optim.SGD([p], lr=0.1).param_groups)
""",
    "one parameter in two groups": """
x = lib.ones(2, requires_grad=True)
lib.optim.SGD([{'params': [x]}, {'params': [x]}], lr=0.1)
""",
    "duplicate parameter in a group warns": """
x = lib.ones(2, requires_grad=True)
out = len(lib.optim.SGD([x, x], lr=0.1).param_groups[0]['params'])
""",
    "a set of parameters": "lib.optim.SGD({lib.ones(2, requires_grad=True)}, lr=0.1)",
    "negative lr": "lib.optim.SGD([lib.ones(2, requires_grad=True)], lr=-0.1)",
    "Adam negative eps": "lib.optim.Adam([lib.ones(2, requires_grad=True)], eps=-1)",
    "Adam beta1 = 1": "lib.optim.Adam([lib.ones(2, requires_grad=True)], betas=(1.0, 0.9))",
    "AdamW beta2 > 1": "lib.optim.AdamW([lib.ones(2, requires_grad=True)], betas=(0.9, 1.5))",
    "Adagrad negative lr_decay": "lib.optim.Adagrad([lib.ones(2, requires_grad=True)], lr_decay=-1)",
    "SGD state_dict": """
x = lib.tensor([1., 2.], requires_grad=True)
w = lib.tensor([3.], requires_grad=True)
o = lib.optim.SGD([{'params': [x], 'lr': 0.5}, {'params': [w]}], lr=0.1, momentum=0.9)
(x.sum() * w.sum()).backward()
o.step()
sd = o.state_dict()
out = (sorted(sd), sd['param_groups'],
       {k: {n: t.tolist() for n, t in v.items()} for k, v in sd['state'].items()},
       sd['state'][0]['momentum_buffer'] is o.state[x]['momentum_buffer'])
""",
    "Adam state": """
x = lib.tensor([1., 2.], requires_grad=True)
o = lib.optim.Adam([x], lr=0.1, amsgrad=True)
for _ in range(2):
    (x ** 2).sum().backward()
    o.step()
sd = o.state_dict()
out = (sd['param_groups'], {k: {n: (t.shape == x.shape or t.dim() == 0, str(t.dtype)[-7:],
                                    [round(v, 6) for v in t.reshape(-1).tolist()])
                                for n, t in sorted(v.items())} for k, v in sd['state'].items()},
       [round(v, 6) for v in x.tolist()])
""",
    "Adagrad state from construction": """
x = lib.tensor([1., 2.], requires_grad=True)
o = lib.optim.Adagrad([x], lr=0.1, initial_accumulator_value=0.5)
before = {n: t.tolist() for n, t in o.state[x].items()}
(x ** 2).sum().backward()
o.step()
out = (before, {n: t.tolist() for n, t in o.state[x].items()}, [round(v, 6) for v in x.tolist()])
""",
    "load_state_dict": """
x = lib.tensor([1., 2.], requires_grad=True)
o = lib.optim.Adam([x], lr=0.1)
(x ** 2).sum().backward()
o.step()
y = lib.tensor([1., 2.], requires_grad=True)
o2 = lib.optim.Adam([y], lr=0.5)
o2.load_state_dict(o.state_dict())
y.grad = x.grad.clone()
o2.step()
out = (o2.param_groups[0]['lr'], o2.param_groups[0]['params'][0] is y,
       o2.state[y]['step'].item(), o2.state[y]['exp_avg'] is o.state[x]['exp_avg'],
       [round(v, 6) for v in y.tolist()])
""",
    "load_state_dict casts buffers to the parameter's dtype": """
x = lib.tensor([1., 2.], requires_grad=True)
o = lib.optim.SGD([x], lr=0.1, momentum=0.9)
(x ** 2).sum().backward()
o.step()
y = lib.tensor([1., 2.], dtype=lib.float64, requires_grad=True)
o2 = lib.optim.SGD([y], lr=0.1, momentum=0.9)
o2.load_state_dict(o.state_dict())
out = str(o2.state[y]['momentum_buffer'].dtype)[-7:]
""",
    "load_state_dict: other number of groups": """
x = lib.tensor([1., 2.], requires_grad=True)
o = lib.optim.SGD([x], lr=0.1)
o2 = lib.optim.SGD([{'params': [x]}, {'params': [lib.ones(1, requires_grad=True)]}], lr=0.1)
o.load_state_dict(o2.state_dict())
""",
    "load_state_dict: other group size": """
x = lib.tensor([1., 2.], requires_grad=True)
o = lib.optim.SGD([x], lr=0.1)
o.load_state_dict(lib.optim.SGD([x, lib.ones(1, requires_grad=True)], lr=0.1).state_dict())
""",
    "add_param_group": """
x = lib.tensor([1., 2.], requires_grad=True)
w = lib.tensor([3.], requires_grad=True)
o = lib.optim.SGD([x], lr=0.1, momentum=0.5)
o.add_param_group({'params': w, 'lr': 0.2})
out = [(g['lr'], g['momentum'], len(g['params'])) for g in o.param_groups]
""",
    "add_param_group: a parameter already there": """
x = lib.tensor([1., 2.], requires_grad=True)
lib.optim.SGD([x], lr=0.1).add_param_group({'params': [x]})
""",
    "add_param_group: not a dict": """
x = lib.tensor([1., 2.], requires_grad=True)
lib.optim.SGD([x], lr=0.1).add_param_group([x])
""",
    "add_param_group: a set": """
x = lib.tensor([1., 2.], requires_grad=True)
lib.optim.SGD([x], lr=0.1).add_param_group({'params': {lib.ones(1, requires_grad=True)}})
""",
    "repr": "out = repr(lib.optim.SGD([lib.tensor([1., 2.], requires_grad=True)], lr=0.1))",
    "custom optimizer": """
class MySGD(lib.optim.Optimizer):
    def __init__(self, params, lr=0.1, momentum=0.9):
        super().__init__(params, dict(lr=lr, momentum=momentum))
    @lib.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group['params']:
                if p.grad is None:
                    continue
                state = self.state[p]
                if 'buf' not in state:
                    state['buf'] = lib.zeros_like(p)
                state['buf'].mul_(group['momentum']).add_(p.grad)
                p.add_(state['buf'], alpha=-group['lr'])
x = lib.tensor([1., 2.], requires_grad=True)
o = MySGD([x])
log = []
o.register_step_post_hook(lambda opt, a, k: log.append(1))
for _ in range(3):
    o.zero_grad()
    (x ** 2).sum().backward()
    o.step()
sd = o.state_dict()
out = ([round(v, 5) for v in x.tolist()], log, sd['param_groups'], {k: {n: [round(v, 5) for v in t.tolist()] for n, t in v.items()} for k, v in sd['state'].items()}, repr(o))
""",
    "optimizer base step": """
o = lib.optim.Optimizer([lib.ones(1, requires_grad=True)], {})
o.step()
""",
    "named parameters": """
m = lib.nn.Linear(2, 1)
o = lib.optim.SGD(m.named_parameters(), lr=0.1)
out = (o.param_groups[0]['param_names'], o.state_dict()['param_groups'], repr(o))
""",
    "named and unnamed groups": """
m = lib.nn.Linear(2, 1)
o = lib.optim.SGD(m.named_parameters(), lr=0.1)
o.add_param_group({'params': [lib.ones(1, requires_grad=True)]})
""",
    "unnamed then named group": """
o = lib.optim.SGD([lib.ones(1, requires_grad=True)], lr=0.1)
o.add_param_group({'params': [('a', lib.ones(1, requires_grad=True))]})
""",
    "some names missing": """
lib.optim.SGD([('a', lib.ones(1, requires_grad=True)), lib.ones(1, requires_grad=True)], lr=0.1)
""",
    "step(closure)": """
x = lib.tensor([1., 2.], requires_grad=True)
out = []
for make in (lambda: lib.optim.SGD([x], lr=0.1, momentum=0.5), lambda: lib.optim.Adam([x], lr=0.1),
             lambda: lib.optim.AdamW([x], lr=0.1), lambda: lib.optim.Adagrad([x], lr=0.1)):
    o = make()
    def closure():
        o.zero_grad()
        loss = (x ** 2).sum()
        loss.backward()
        return loss
    with lib.no_grad():
        loss = o.step(closure)
    out.append((round(loss.item(), 4), [round(v, 5) for v in x.tolist()], o.step()))
""",
    "step pre- and post-hooks": """
log = []
x = lib.tensor([1., 2.], requires_grad=True)
o = lib.optim.SGD([x], lr=0.1)
def pre(opt, args, kwargs):
    log.append(('pre', opt is o, len(args), kwargs))
    return args, {'closure': lambda: 7}
handle = o.register_step_pre_hook(pre)
o.register_step_post_hook(lambda opt, args, kwargs: log.append(('post', sorted(kwargs))))
first = o.step()
handle.remove()
second = o.step()
out = (log, first, second)
""",
}


@pytest.mark.parity
@_cases(ENGINE)
def test_engine(torch, source):
    assert run(al, source) == run(torch, source)


@pytest.mark.parity
@_cases(ARGS)
def test_backward_and_grad_arguments(torch, source):
    assert run(al, source) == run(torch, source)


@pytest.mark.parity
@_cases(WALK)
def test_engine_walk(torch, source):
    assert run(al, source) == run(torch, source)


@pytest.mark.parity
@_cases(HOOKS)
def test_hooks(torch, source):
    assert run(al, source) == run(torch, source)


@pytest.mark.parity
@_cases(FUNCTION)
def test_custom_function(torch, source):
    assert run(al, source) == run(torch, source)


@pytest.mark.parity
@_cases(GRAD_MODE)
def test_grad_mode(torch, source):
    ours, theirs = run(al, source), run(torch, source)
    if ours[0] == theirs[0] == "error" and "argument 'enabled'" in theirs[2]:
        assert ours == theirs  # the parser's wording is torch's own; ours copies it
    assert ours == theirs


@pytest.mark.parity
@_cases(TENSOR)
def test_tensor_autograd_api(torch, source):
    assert run(al, source) == run(torch, source)


@pytest.mark.parity
@_cases(OPTIM)
def test_optimizer(torch, source):
    assert run(al, source) == run(torch, source)


def test_register_hooks_needs_callables():
    """PyTorch's pybind message lists the signature; ours says the same in one line."""
    y = al.tensor([1., 2.], requires_grad=True).exp()
    with pytest.raises(TypeError, match=r"^register_hooks\(\): incompatible function arguments"):
        y.grad_fn._raw_saved_result.register_hooks(1, lambda t: t)


def test_hook_checks_live_in_the_engines_hooks():
    """One place per kind: the op modules never check what a hook returned."""
    import inspect

    from autograd_lesson import ops
    from autograd_lesson.extensions import hooks as _hooks
    source = "".join(inspect.getsource(m) for m in (ops.elementwise, ops.shape, ops.reduce))
    assert "hook returned" not in source
    assert "hook returned" in inspect.getsource(_hooks)


def test_step_pre_hook_bad_return(torch):
    """A pre-hook must return None or (args, kwargs); the message names the step function."""
    for lib in (al, torch):
        o = lib.optim.SGD([lib.ones(1, requires_grad=True)], lr=0.1)
        o.register_step_pre_hook(lambda opt, args, kwargs: 3)
        with pytest.raises(RuntimeError, match=r"^<function SGD\.step at 0x[0-9a-f]+> must return "
                                               r"None or a tuple of \(new_args, new_kwargs\), "
                                               r"but got 3\.$"):
            o.step()


def _multi_input_cases():
    from op_catalog import CASES
    return [c for c in CASES if len(c.args) > 1 and not (c.random or c.params)]


@pytest.mark.parametrize("case", _multi_input_cases(), ids=lambda c: c.name)
def test_partial_backward_computes_the_same_gradients(case):
    """grad(y, x_i) narrows each built-in node's ``needs_input_grad`` to the edges that lead to
    x_i; the gradients (first and second order) must equal those of a full backward."""
    arrays = case.arrays()
    for i in range(len(arrays)):
        xs = [al.tensor(a, requires_grad=True) for a in arrays]
        out = case.fn(al, *xs)
        y = sum((o.double() * 1.7).sum() for o in (out if isinstance(out, tuple) else (out,))
                if o.requires_grad)
        g, = al.autograd.grad(y, xs[i], create_graph=True, allow_unused=True)
        y.backward(retain_graph=True)
        if g is None:
            assert xs[i].grad is None or not xs[i].grad.numpy().any()
            continue
        np.testing.assert_allclose(g.detach().numpy(), xs[i].grad.numpy(), rtol=1e-10)
        if not g.requires_grad:
            continue
        for j in range(len(arrays)):
            gg, = al.autograd.grad(g.pow(2).sum(), xs[j], retain_graph=True, allow_unused=True)
            for x in xs:
                x.grad = None
            g.pow(2).sum().backward(retain_graph=True)
            full = xs[j].grad
            if gg is None:
                assert full is None or not full.numpy().any()
            else:
                np.testing.assert_allclose(gg.numpy(), full.numpy(), rtol=1e-10, atol=1e-12)
