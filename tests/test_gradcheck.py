"""``autograd.gradcheck`` and ``gradgradcheck`` against PyTorch 2.13: each snippet runs in both
libraries; results, exception types, messages (whole, with the Jacobians as torch prints them,
where the inputs are doubles at fixed values) and warnings compare word for word.
"""
import pytest

import autograd_lesson as al
from autograd_lesson.autograd.gradcheck import GradcheckError
from snippets import cases, run

X = "x = lib.tensor([0.5, 1.0, 2.0], dtype=lib.float64, requires_grad=True)\n"
# x**2 with a wrong backward (g * x: the 2 forgotten); its forward is right
SQUARE = X + """
class Square(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return BACKWARD
"""


def square(backward):
    return SQUARE.replace("BACKWARD", backward)


FIRST_LINE = """
try:
    out = CALL
except Exception as e:
    out = (type(e).__name__, str(e).splitlines()[0])
"""


def first_line(call):
    return FIRST_LINE.replace("CALL", call)


GRADCHECK = {
    "a built-in op passes": X + "out = lib.autograd.gradcheck(lib.sin, (x,))",
    "a right backward passes": square("2 * x * g") + "out = lib.autograd.gradcheck(Square.apply, x)",
    "a wrong backward: the whole message": square("x * g")
    + "lib.autograd.gradcheck(Square.apply, (x,))",
    "raise_exception=False": square("x * g")
    + "out = lib.autograd.gradcheck(Square.apply, (x,), raise_exception=False)",
    "a loose tolerance lets it pass": square("1.9 * x * g")
    + "out = lib.autograd.gradcheck(Square.apply, (x,), atol=0.5, rtol=0.)",
    "rtol alone": square("1.9 * x * g")
    + "out = [lib.autograd.gradcheck(Square.apply, (x,), rtol=r, atol=0., raise_exception=False)"
      " for r in (0.04, 0.06)]",
    "eps: a coarser step": X + "out = lib.autograd.gradcheck(lambda t: t ** 3, (x,), eps=1e-2, "
                               "atol=1e-3, raise_exception=False)",
    "eps too coarse for the default tolerance": X + first_line(
        "lib.autograd.gradcheck(lambda t: t ** 3, (x,), eps=0.1)"),
    "two inputs, two outputs: which pair is wrong": X + """
w = lib.tensor([3.0, -1.0], dtype=lib.float64, requires_grad=True)
class Two(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return x.sum() * w, x * 2
    @staticmethod
    def backward(ctx, g, h):
        x, w = ctx.saved_tensors
        return (g * w).sum() * lib.ones_like(x) + 2 * h, (g * x.sum()) * 0.5
lib.autograd.gradcheck(Two.apply, (x, w))
""",
    "the backward ignores grad_output": X + """
class SumSq(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return (x * x).sum()
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return 2 * x
lib.autograd.gradcheck(SumSq.apply, (x,))
""",
    "a backward that is not reentrant": square("2 * x * g * (1 + 1e-9 * next(calls))") + """
import itertools
calls = itertools.count()
lib.autograd.gradcheck(Square.apply, (x,))
""",
    "undefined gradients must give zero or none": X + """
class F(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return lib.ones_like(g) * 2 if g is None else g * 2
lib.autograd.gradcheck(F.apply, (x,), raise_exception=True)
""".replace("lib.ones_like(g) * 2 if g is None", "lib.ones(3, dtype=lib.float64) if g is None"),
    "check_undefined_grad=False skips that": X + """
class F(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return lib.ones(3, dtype=lib.float64) if g is None else g * 2
out = lib.autograd.gradcheck(F.apply, (x,), check_undefined_grad=False)
""",
    "a backward that fails on None": X + """
class F(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x * 2
    @staticmethod
    def backward(ctx, g):
        if g is None:
            raise RuntimeError("no gradient")
        return g * 2
lib.autograd.gradcheck(F.apply, (x,))
""",
    "no differentiable output, constant": X + "out = lib.autograd.gradcheck(lambda t: (t > 0).double(), (x,))",
    "no differentiable output, yet it depends on x": X
    + "lib.autograd.gradcheck(lambda t: t.detach() * 2, (x,))",
    "float32 inputs: the warning, and the failure": """
x = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
out = (lib.autograd.gradcheck(lib.sin, (x,), raise_exception=False),
       lib.autograd.gradcheck(lib.sin, (x,), eps=1e-3, atol=1e-3))
""",
    "float32 inputs: the message's first line": "x = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)\n"
    + first_line("lib.autograd.gradcheck(lib.sin, (x,))"),
    "no input requires grad": "lib.autograd.gradcheck(lib.sin, (lib.ones(2, dtype=lib.float64),))",
    "an input with a stride-0 dimension": """
x = lib.tensor([2.0], dtype=lib.float64, requires_grad=True).expand(3)
lib.autograd.gradcheck(lib.sin, (x,))
""",
    "non-tensor arguments pass through": X + "out = lib.autograd.gradcheck(lambda t, k: t ** k, (x, 3))",
    "the inputs are left as they were": X + """
lib.autograd.gradcheck(lib.exp, (x,))
out = (x, x._version, x.grad)
""",
    "check_backward_ad=False with nothing else": X + "lib.autograd.gradcheck(lib.sin, (x,), "
                                                     "check_backward_ad=False)",
    "a matrix input and output": """
a = lib.tensor([[1., 2.], [3., -1.]], dtype=lib.float64, requires_grad=True)
b = lib.tensor([[0.5], [2.]], dtype=lib.float64, requires_grad=True)
out = lib.autograd.gradcheck(lambda a, b: (a @ b).tanh(), (a, b))
""",
}

GRADGRADCHECK = {
    "a built-in op passes": X + "out = lib.autograd.gradgradcheck(lib.sin, (x,))",
    "given grad_outputs": X + "out = lib.autograd.gradgradcheck(lambda t: t ** 3, (x,), "
                              "(lib.tensor([1., -2., .5], dtype=lib.float64, requires_grad=True),))",
    # right first derivative, but the backward's x is detached: no second derivative through it
    "a backward that is not differentiable": square("2 * x.detach() * g")
    + "first = lib.autograd.gradcheck(Square.apply, (x,))\n"
    + first_line("lib.autograd.gradgradcheck(Square.apply, (x,))"),
    "a right double backward": square("2 * x * g")
    + "out = lib.autograd.gradgradcheck(Square.apply, (x,))",
    # the Error node leads to no input: analytical zeros, so a mismatch, not the Error's message
    "once_differentiable": """
from {mod}.autograd.function import once_differentiable
""" + square("2 * x * g").replace("    def backward", "    @once_differentiable\n    def backward")
    + "first = lib.autograd.gradcheck(Square.apply, (x,))\n"
    + first_line("lib.autograd.gradgradcheck(Square.apply, (x,))") + "out = (first, out)",
}


def _adapted(source, lib):
    return source.replace("{mod}", "autograd_lesson" if lib is al else "torch")


@pytest.mark.parity
@cases(GRADCHECK)
def test_gradcheck(torch, source):
    assert run(al, source) == run(torch, source)


@pytest.mark.parity
@cases(GRADGRADCHECK)
def test_gradgradcheck(torch, source):
    assert run(al, _adapted(source, al)) == run(torch, _adapted(source, torch))


def test_gradcheck_error_is_a_runtime_error():
    assert issubclass(GradcheckError, RuntimeError)
    assert al.autograd.gradcheck.__module__ == "autograd_lesson.autograd.gradcheck"


@pytest.mark.parametrize("flag", ["fast_mode", "check_batched_grad", "check_forward_ad"])
def test_what_is_not_here_says_so(flag):
    x = al.ones(2, dtype=al.float64, requires_grad=True)
    with pytest.raises(NotImplementedError, match=f"no {flag}"):
        al.autograd.gradcheck(al.sin, (x,), **{flag: True})
