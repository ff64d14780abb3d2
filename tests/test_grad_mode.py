"""Grad mode and inference mode, against PyTorch 2.13: each snippet runs in both libraries.

A snippet sets ``out``; a RuntimeError becomes ``("error", message)``, so messages are
compared word for word. ``x`` is a leaf that requires grad.
"""
import pytest

import autograd_lesson as al
import snippets
from snippets import cases

SNIPPETS = {
    # the flags inside and after the context, and nesting with the other grad modes
    "flags": "a = (lib.is_inference_mode_enabled(), lib.is_grad_enabled())\n"
             "with lib.inference_mode():\n"
             "    b = (lib.is_inference_mode_enabled(), lib.is_grad_enabled())\n"
             "out = (a, b, lib.is_inference_mode_enabled(), lib.is_grad_enabled())",
    "mode=False inside": "with lib.inference_mode():\n    with lib.inference_mode(mode=False):\n"
                         "        a = (lib.is_inference_mode_enabled(), lib.is_grad_enabled())\n"
                         "        w = x * 3\n"
                         "out = (a, w.requires_grad, w.is_inference(), w.grad_fn.name())",
    "False under no_grad": "with lib.no_grad():\n    with lib.inference_mode(False):\n"
                           "        out = (lib.is_inference_mode_enabled(), lib.is_grad_enabled())",
    "no_grad inside": "with lib.inference_mode():\n    with lib.no_grad():\n"
                      "        out = (lib.is_inference_mode_enabled(), lib.is_grad_enabled())",
    "enable_grad inside": "with lib.inference_mode():\n    with lib.enable_grad():\n"
                          "        a = (lib.is_inference_mode_enabled(), lib.is_grad_enabled())\n"
                          "        w = x * 2\n"
                          "out = (a, w.requires_grad, w.grad_fn, w.is_inference())",
    "construct only": "m = lib.inference_mode(); out = lib.is_inference_mode_enabled()",
    "decorators": "@lib.inference_mode\ndef f(t): return t * 2\n"
                  "@lib.inference_mode()\ndef g(t): return t * 2\n"
                  "@lib.inference_mode(False)\ndef h(t): return t * 2\n"
                  "out = (f(x).is_inference(), g(x).is_inference(), h(x).is_inference(), "
                  "h(x).requires_grad, f.__name__, lib.is_inference_mode_enabled())",
    # what tensors made inside are
    "made inside": "with lib.inference_mode():\n    y = x * 2; z = lib.ones(3)\n"
                   "out = (y.requires_grad, y.grad_fn, y.is_leaf, y.is_inference(), "
                   "z.is_inference(), x.is_inference(), y.tolist())",
    "no_grad tensors are normal": "with lib.no_grad():\n    y = x * 2\nout = y.is_inference()",
    "module inside": "m = lib.nn.Linear(3, 2)\nwith lib.inference_mode():\n"
                     "    y = m(lib.ones(1, 3))\nout = (y.is_inference(), y.requires_grad)",
    "leaf requires grad inside": "with lib.inference_mode():\n"
                                 "    L = lib.ones(2, requires_grad=True)\n"
                                 "(L * 2).sum().backward()\n"
                                 "out = (L.requires_grad, L.is_inference(), L.grad.tolist())",
    "requires_grad_ inside": "with lib.inference_mode():\n    y = lib.ones(2); y.requires_grad_()\n"
                             "out = (y.requires_grad, y.is_inference())",
    # views, detach, clone
    "views inside": "with lib.inference_mode():\n    y = x * 2; v = y[0:2]\n"
                    "    n = lib.ones(3); nv = n[0:2]\nout = (v.is_inference(), nv.is_inference())",
    "normal tensor viewed inside": "n = lib.ones(3)\nwith lib.inference_mode():\n    nv = n[0:2]\n"
                                   "out = nv.is_inference()",
    "views outside": "with lib.inference_mode():\n    y = x * 2\n"
                     "out = (y[0:2].is_inference(), y.view(3).is_inference(), "
                     "y.t().is_inference(), y.detach().is_inference(), y[0:2].requires_grad)",
    "clone outside is normal": "with lib.inference_mode():\n    y = x * 2\nc = y.clone()\n"
                               "c.requires_grad_()\nout = (c.is_inference(), c.requires_grad)",
    "new results outside are normal": "with lib.inference_mode():\n    y = x * 2\n"
                                      "out = ((y * 2).is_inference(), (y * 2).requires_grad, "
                                      "(x + y).is_inference(), (x + y).grad_fn.name())",
    # using an inference tensor in autograd later
    "saved by mul": "with lib.inference_mode():\n    y = x * 2\nout = x * y",
    "saved as self": "with lib.inference_mode():\n    y = x * 2\nout = y * x",
    "linear on inference output": "m = lib.nn.Linear(3, 2)\nwith lib.inference_mode():\n"
                                  "    y = m(lib.ones(1, 3))\nout = lib.nn.Linear(2, 2)(y)",
    "not saved: add is fine": "with lib.inference_mode():\n    y = x * 2\n"
                              "(x + y).sum().backward(); out = x.grad.tolist()",
    "saved under inference_mode(False)": "with lib.inference_mode():\n    y = x * 2\n"
                                         "    with lib.inference_mode(False):\n        out = x * y",
    "pack hook not called": "n = []\nwith lib.inference_mode():\n    y = x * 2\n"
                            "try:\n    with lib.autograd.graph.saved_tensors_hooks("
                            "lambda t: n.append(1) or t, lambda t: t):\n        x * y\n"
                            "except RuntimeError as e:\n    out = (len(n), str(e)[:30])",
    "custom Function save": "class F(lib.autograd.Function):\n    @staticmethod\n"
                            "    def forward(ctx, a, b):\n        ctx.save_for_backward(b)\n"
                            "        return a * b\n    @staticmethod\n"
                            "    def backward(ctx, g):\n        return g, None\n"
                            "with lib.inference_mode():\n    y = x * 2\nout = F.apply(x, y)",
    # in-place updates and requires_grad outside
    "add_ outside": "with lib.inference_mode():\n    y = x * 2\nout = y.add_(1)",
    "mul_ outside under no_grad": "with lib.inference_mode():\n    y = x * 2\n"
                                  "with lib.no_grad():\n    out = y.mul_(2)",
    "view add_ outside": "with lib.inference_mode():\n    y = x * 2\ny[0:2].add_(1)",
    "setitem outside": "with lib.inference_mode():\n    y = x * 2\ny[0] = 1.0",
    "add_ under inference_mode(False)": "with lib.inference_mode():\n    y = x * 2\n"
                                        "    with lib.inference_mode(False):\n        y.add_(1)",
    "add_ inside is fine": "with lib.inference_mode():\n    y = x * 2\n"
                           "with lib.inference_mode():\n    y.add_(1)\nout = y.tolist()",
    "normal in-place inside": "a = lib.ones(3)\nb = x * 1\nwith lib.inference_mode():\n"
                              "    a.add_(1); b.add_(1)\n"
                              "out = (a._version, b._version, a.is_inference(), b.grad_fn.name())",
    "leaf in-place inside": "with lib.inference_mode():\n    with lib.enable_grad():\n"
                            "        x.add_(1)\nout = x.tolist()",
    "inference leaf add_": "with lib.inference_mode():\n    L = lib.ones(3, requires_grad=True)\n"
                           "L.add_(1)",
    "inference leaf zero_": "with lib.inference_mode():\n    L = lib.ones(3, requires_grad=True)\n"
                            "L.zero_()",
    "inference leaf fill_": "with lib.inference_mode():\n    L = lib.ones(3, requires_grad=True)\n"
                            "L.fill_(2.0)",
    "inference uniform_": "with lib.inference_mode():\n    L = lib.ones(3)\nL.uniform_()",
    "requires_grad_ outside": "with lib.inference_mode():\n    y = x * 2\ny.requires_grad_()",
    "requires_grad = True outside": "with lib.inference_mode():\n    y = x * 2\n"
                                    "y.requires_grad = True",
    "requires_grad_(False) outside": "with lib.inference_mode():\n    y = x * 2\n"
                                     "out = y.requires_grad_(False).requires_grad",
    "int requires_grad_ outside": "with lib.inference_mode():\n"
                                  "    i = lib.ones(3, dtype=lib.int64)\ni.requires_grad_()",
    "version": "with lib.inference_mode():\n    y = x * 2\nout = y._version",
}


def run(lib, code):
    scope = dict(lib=lib, x=lib.tensor([1.0, 2.0, 3.0], requires_grad=True))
    try:
        exec(code, scope)
    except RuntimeError as exc:
        return "error", str(exc)
    out = scope.get("out")
    if isinstance(out, lib.Tensor):
        return "tensor", out.tolist(), out.requires_grad
    return out


@pytest.mark.parity
@pytest.mark.parametrize("name", list(SNIPPETS))
def test_inference_mode_matches_torch(torch, name):
    assert run(al, SNIPPETS[name]) == run(torch, SNIPPETS[name])


def test_flags_restored_after_an_error():
    with pytest.raises(ValueError):
        with al.inference_mode():
            raise ValueError
    assert (al.is_inference_mode_enabled(), al.is_grad_enabled()) == (False, True)


def test_autograd_reexports_inference_mode():
    assert al.autograd.inference_mode is al.inference_mode


# -- the grad modes as lesson 12 shows them (snippets.run: warnings and exceptions compared too) --
MODES = """
x = lib.tensor([1., 2.], requires_grad=True)
w = lib.tensor([3., 4.], requires_grad=True)
"""
GRAD_MODES = {
    "no_grad: nothing recorded inside": MODES + """
with lib.no_grad():
    y = x * w
    inside = lib.is_grad_enabled()
z = x * w
out = (inside, y.requires_grad, y.grad_fn, y.is_leaf, z.grad_fn.name(), x.requires_grad,
       lib.is_grad_enabled())
""",
    "no_grad: a result used later carries no gradient back": MODES + """
with lib.no_grad():
    scale = w * 2
(x * scale).sum().backward()
out = (x.grad, w.grad)
""",
    "no_grad: a parameter update in place": MODES + """
(x * w).sum().backward()
with lib.no_grad():
    x -= 0.1 * x.grad
out = (x, x._version, x.is_leaf, x.requires_grad, x.grad_fn)
""",
    "the same update outside no_grad": MODES + """
(x * w).sum().backward()
x -= 0.1 * x.grad
""",
    "backward under no_grad still computes gradients": MODES + """
loss = (x * w).sum()
with lib.no_grad():
    loss.backward()
out = (x.grad, w.grad)
""",
    "a factory with requires_grad=True under no_grad": """
with lib.no_grad():
    p = lib.zeros(2, requires_grad=True)
out = (p.requires_grad, p.is_leaf)
""",
    "enable_grad inside no_grad": MODES + """
with lib.no_grad():
    with lib.enable_grad():
        y = x * w
    z = x * w
out = (y.grad_fn.name(), z.grad_fn)
""",
    "set_grad_enabled with a flag": MODES + """
res = []
for is_train in (True, False):
    with lib.set_grad_enabled(is_train):
        res.append((x * w).requires_grad)
out = (res, lib.is_grad_enabled())
""",
    "set_grad_enabled(False) called as a function stays off": MODES + """
lib.set_grad_enabled(False)
y = x * w
off = lib.is_grad_enabled()
lib.set_grad_enabled(True)
out = (off, y.requires_grad, lib.is_grad_enabled())
""",
    "no_grad as a decorator": MODES + """
@lib.no_grad()
def predict(t):
    return t * w
out = (predict(x).requires_grad, lib.is_grad_enabled())
""",
    "inference_mode: like no_grad, and the result can't be saved later": MODES + """
with lib.inference_mode():
    y = x * w
out = (y.requires_grad, y.is_inference(), lib.is_grad_enabled())
(y * x).sum().backward()
""",
    "inference_mode result used where no save is needed": MODES + """
with lib.inference_mode():
    y = x * w
(y + x).sum().backward()
out = x.grad
""",
}

EVAL = """
lib.manual_seed(0)
net = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Dropout(0.5), lib.nn.Linear(4, 2))
x = lib.ones(5, 3)
"""
EVAL_MODES = {
    "eval() does not turn autograd off": EVAL + """
net.eval()
y = net(x)
y.sum().backward()
out = (y.requires_grad, y.grad_fn.name(), net[0].weight.grad is None, net.training,
       [m.training for m in net])
""",
    "eval(): dropout is the identity": EVAL + """
net.eval()
with lib.no_grad():
    a, b = net(x), net[2](net[0](x))
out = bool((a == b).all())
""",
    "train(): dropout zeroes some and scales the rest by 1/(1-p)": EVAL + """
h = net[0](x)
d = net[1](h)
kept = d != 0
out = (bool(((d[kept] - h[kept] * 2).abs() < 1e-6).all()), net.training, d.grad_fn.name())
""",
    "eval() and no_grad() together: the inference idiom": EVAL + """
net.eval()
with lib.no_grad():
    y = net(x)
out = (y.requires_grad, y.grad_fn, net.training)
""",
    "train() after eval()": EVAL + """
net.eval()
net.train()
out = (net.training, [m.training for m in net])
""",
}


@pytest.mark.parity
@cases({**GRAD_MODES, **EVAL_MODES})
def test_grad_modes_and_eval(torch, source):
    assert snippets.run(al, source) == snippets.run(torch, source)
