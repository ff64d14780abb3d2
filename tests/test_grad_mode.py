"""Grad mode and inference mode, against PyTorch 2.13: each snippet runs in both libraries.

A snippet sets ``out``; a RuntimeError becomes ``("error", message)``, so messages are
compared word for word. ``x`` is a leaf that requires grad.
"""
import pytest

import autograd_lesson as al

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
