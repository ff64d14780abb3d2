"""Custom ``autograd.Function`` as lesson 12 uses it, against PyTorch 2.13: each snippet runs in
both libraries (tests/test_fidelity_autograd.py has the API's edges; these are the patterns:
save_for_backward against plain ctx attributes, in-place custom ops with mark_dirty,
once_differentiable).
"""
import pytest

import autograd_lesson as al
from snippets import cases, run

# Two ways to keep x for backward: checked and freed (save_for_backward), or neither (ctx.x).
SQUARE = """
class SaveSquare(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return 2 * x * g

class AttrSquare(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.x = x
        return x * x
    @staticmethod
    def backward(ctx, g):
        return 2 * ctx.x * g

a = lib.tensor([1., 2., 3.], requires_grad=True)
"""
# An in-place custom op: doubles x in its memory.
DOUBLE_ = """
class Double_(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        ctx.mark_dirty(x)
        return x
    @staticmethod
    def backward(ctx, g):
        return 2 * g

class Unmarked_(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        return x
    @staticmethod
    def backward(ctx, g):
        return 2 * g

a = lib.tensor([1., 2., 3.], requires_grad=True)
"""

SAVED = {
    "save_for_backward: values and node": SQUARE + """
y = SaveSquare.apply(a)
y.sum().backward()
out = (y, a.grad, y.grad_fn.name(), type(y.grad_fn).__name__, len(y.grad_fn.saved_tensors))
""",
    "save_for_backward: a change in place is caught": SQUARE + """
b = a.clone()
y = SaveSquare.apply(b)
b.add_(1)
y.sum().backward()
""",
    "ctx attribute: a change in place is not caught (new values used)": SQUARE + """
b = a.clone()
y = AttrSquare.apply(b)
b.add_(1)
y.sum().backward()
out = (y, a.grad, b._version)
""",
    "save_for_backward: a second backward": SQUARE + """
y = SaveSquare.apply(a)
y.sum().backward()
y.sum().backward()
""",
    "save_for_backward: saved_tensors after the backward": SQUARE + """
y = SaveSquare.apply(a)
y.sum().backward()
y.grad_fn.saved_tensors
""",
    "save_for_backward: retain_graph keeps it": SQUARE + """
y = SaveSquare.apply(a)
y.sum().backward(retain_graph=True)
y.sum().backward()
out = (a.grad, y.grad_fn.saved_tensors)
""",
    "ctx attribute: never freed, a second backward works": SQUARE + """
y = AttrSquare.apply(a)
y.sum().backward()
y.sum().backward()
out = (a.grad, y.grad_fn.x is a)
""",
    "saved_tensors read twice, and _saved_ names": SQUARE + """
y = SaveSquare.apply(a)
f = y.grad_fn
out = (f.saved_tensors[0] is a, f.saved_tensors == f.saved_tensors, f.saved_tensors[0]._version,
       hasattr(f, '_saved_self'))
""",
    "save_for_backward of an output, changed in place": """
class Exp(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y
    @staticmethod
    def backward(ctx, g):
        y, = ctx.saved_tensors
        return g * y
a = lib.tensor([0., 1.], requires_grad=True)
y = Exp.apply(a)
y.mul_(2)
y.sum().backward()
""",
}

DIRTY = {
    "mark_dirty on a non-leaf: the output is the input": DOUBLE_ + """
b = a.clone()
y = Double_.apply(b)
y.sum().backward()
out = (y is b, b, b._version, b.grad_fn.name(), b.grad_fn.next_functions[0][0].name(), a.grad)
""",
    "mark_dirty: a graph that saved the input refuses it": DOUBLE_ + """
b = a.clone()
z = b * b
Double_.apply(b)
z.sum().backward()
""",
    "mark_dirty on a leaf that requires grad": DOUBLE_ + """
Double_.apply(a)
""",
    "mark_dirty on a leaf under no_grad: a detached alias comes back": DOUBLE_ + """
with lib.no_grad():
    y = Double_.apply(a)
out = (y is a, y._is_view(), y.requires_grad, a, a._version, y._version, a.grad_fn)
""",
    "returned as-is under no_grad": DOUBLE_.replace("ctx.mark_dirty(x)", "pass") + """
b = lib.ones(2)
with lib.no_grad():
    y = Double_.apply(a)
    z = Double_.apply(b)
out = (y is a, y._is_view(), y.requires_grad, z is b, z._base is b)
""",
    "mark_dirty on a leaf that needs no grad": DOUBLE_ + """
c = lib.tensor([1., 2.])
y = Double_.apply(c)
out = (y is c, c, c._version, y.requires_grad)
""",
    "mark_dirty on a view of a leaf": DOUBLE_ + """
Double_.apply(a[:2])
""",
    "mark_dirty on a view of a non-leaf": DOUBLE_ + """
b = a.clone()
v = b[:2]
y = Double_.apply(v)
b.sum().backward()
out = (y is v, b, b.grad_fn.name(), v.grad_fn.name(), v._version, a.grad)
""",
    "mark_dirty on a view made under no_grad": DOUBLE_ + """
b = a.clone()
with lib.no_grad():
    v = b[:2]
Double_.apply(v)
""",
    "mark_dirty on an output of unbind": DOUBLE_ + """
b = a.clone()
Double_.apply(b.unbind(0)[0])
""",
    "mark_dirty on a view of a view": DOUBLE_ + """
b = a.clone()
w = b[1:][1:]
Double_.apply(w)
b.sum().backward()
out = (b, b.grad_fn.name(), w.grad_fn.name(), a.grad)
""",
    "mark_dirty on a view, two outputs": """
class Two(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.mul_(2); ctx.mark_dirty(x); return x, x * 3
    @staticmethod
    def backward(ctx, g, h):
        return 2 * g + 6 * h
a = lib.tensor([1., 2.], requires_grad=True)
b = a.clone()
x1, x2 = Two.apply(b)
(x1.sum() + x2.sum()).backward()
first = (a.grad, b.grad_fn.name(), b._version, x1 is b)
Two.apply(a.clone()[:1])
""",
    "marked dirty but not returned": """
class F(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.mul_(2); ctx.mark_dirty(x); return x * 1
    @staticmethod
    def backward(ctx, g):
        return g
a = lib.tensor([1., 2.], requires_grad=True)
b = a.clone()
try:
    F.apply(b)
except RuntimeError as e:
    first = (str(e), b._version)
with lib.no_grad():
    F.apply(lib.ones(2))
""",
    "mark_dirty on a tensor that is not an input, no grad": """
class F(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = x * 2; ctx.mark_dirty(y); return y
    @staticmethod
    def backward(ctx, g):
        return 2 * g
y = F.apply(lib.ones(2))
with lib.no_grad():
    z = F.apply(lib.ones(2, requires_grad=True))
out = (y._version, y.requires_grad, z._version, z.requires_grad)
""",
    "a leaf's version after the refused mark_dirty": DOUBLE_ + """
try:
    Double_.apply(a)
except RuntimeError:
    out = (a._version, a, a.grad_fn)
""",
    "not marked dirty, non-leaf: the output is a view, the input's history unchanged": DOUBLE_ + """
b = a.clone()
y = Unmarked_.apply(b)
y.sum().backward()
out = (y is b, y._base is b, b, b._version, b.grad_fn.name(), y.grad_fn.name(), a.grad)
""",
    "not marked dirty, a leaf that requires grad: silently changed": DOUBLE_ + """
y = Unmarked_.apply(a)
out = (a, a._version, y._base is a, y.grad_fn.name())
""",
    "not marked dirty: the output may not change in place": DOUBLE_ + """
b = a.clone()
y = Unmarked_.apply(b)
y.add_(1)
""",
    "not marked dirty: a graph that saved the input refuses it": DOUBLE_ + """
b = a.clone()
z = b * b
Unmarked_.apply(b)
z.sum().backward()
""",
}

CTX = {
    # needs_input_grad: compute only the gradients someone needs
    "needs_input_grad skips work": """
calls = []
class MulF(lib.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b
    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        calls.append(ctx.needs_input_grad)
        ga = g * b if ctx.needs_input_grad[0] else None
        gb = g * a if ctx.needs_input_grad[1] else None
        return ga, gb
a = lib.tensor([1., 2.], requires_grad=True)
b = lib.tensor([3., 4.])
MulF.apply(a, b).sum().backward()
MulF.apply(b, a).sum().backward()
out = (calls, a.grad, b.grad)
""",
    # mark_non_differentiable: an index output gets no gradient
    "mark_non_differentiable: a maximum and its index": """
class MaxF(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        idx = x.argmax()
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(idx)
        ctx.n = x.numel()
        return x[idx], idx
    @staticmethod
    def backward(ctx, g, g_idx):
        idx, = ctx.saved_tensors
        seen.append(g_idx)
        grad = lib.zeros(ctx.n)
        grad[idx] = g
        return grad
seen = []
x = lib.tensor([3., 1., 2.], requires_grad=True)
value, idx = MaxF.apply(x)
(value * 10).backward()
out = (value, value.requires_grad, idx, idx.requires_grad, idx.grad_fn, x.grad, seen)
""",
    # set_materialize_grads(False): an unused output's gradient arrives as None, not zeros
    "set_materialize_grads: None or zeros": """
def make(materialize):
    class Two(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(materialize)
            return x * 2, x * 3
        @staticmethod
        def backward(ctx, g1, g2):
            seen.append((g1, g2))
            return (0 if g1 is None else g1 * 2) + (0 if g2 is None else g2 * 3)
    return Two
seen = []
x = lib.tensor([1., 2.], requires_grad=True)
for materialize in (True, False):
    y1, y2 = make(materialize).apply(x)
    y1.sum().backward()
out = (seen, x.grad)
""",
}

ONCE = """
from {mod}.autograd.function import once_differentiable

class Cube(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3
    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        x, = ctx.saved_tensors
        seen.append((lib.is_grad_enabled(), g.requires_grad, x.requires_grad))
        return 3 * x ** 2 * g

seen = []
x = lib.tensor([1., 2.], requires_grad=True)
"""
ONCE_DIFFERENTIABLE = {
    "a first backward runs under no_grad": ONCE + """
Cube.apply(x).sum().backward()
out = (x.grad, seen)
""",
    # PyTorch looks only at the incoming gradients: ones from the root do not require grad
    "create_graph: a gradient without history": ONCE + """
g, = lib.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
out = (g, g.requires_grad, g.grad_fn, seen)
""",
    "create_graph: so no double backward": ONCE + """
g, = lib.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
g.sum().backward()
""",
    "an incoming gradient that requires grad: an Error node": ONCE + """
g, = lib.autograd.grad(Cube.apply(x).sum(), x, lib.ones((), requires_grad=True), create_graph=True)
leaf = g.grad_fn.next_functions[0][0].variable
out = (g, g.grad_fn.name(), type(g.grad_fn).__name__, len(g.grad_fn.next_functions),
       leaf, leaf.is_leaf, g._version, g.is_leaf, seen)
""",
    "double backward raises": ONCE + """
y = Cube.apply(x)
g, = lib.autograd.grad((y * x).sum(), x, create_graph=True)
first = (g, g.grad_fn.name(), [f.name() for f, _ in g.grad_fn.next_functions])
g.sum().backward()
""",
    "the Error node called by hand": ONCE + """
g, = lib.autograd.grad(Cube.apply(x).sum(), x, lib.ones((), requires_grad=True), create_graph=True)
g.grad_fn(lib.ones(2))
""",
    "two outputs, one None": ONCE.replace("return 3 * x ** 2 * g", "return 3 * x ** 2 * g, None")
    .replace("def forward(ctx, x):", "def forward(ctx, x, w):") + """
g = lib.autograd.grad(Cube.apply(x, lib.ones(2)).sum(), x, lib.ones((), requires_grad=True),
                      create_graph=True)
out = (g, g[0].grad_fn.name(), g[0].grad_fn.next_functions[1])
""",
    "create_graph with no input requiring grad": ONCE + """
y = Cube.apply(x)
g, = lib.autograd.grad(y.sum(), y, create_graph=True)
out = (g, g.requires_grad, seen)
""",
    "the decorated function keeps its name": ONCE + """
out = (Cube.backward.__name__, Cube.backward.__wrapped__.__name__)
""",
    "a non-Tensor return is passed through": ONCE.replace("return 3 * x ** 2 * g", "return None") + """
g, = lib.autograd.grad(Cube.apply(x).sum(), x, create_graph=True, allow_unused=True)
out = g
""",
}


def _adapted(source, lib):
    return source.replace("{mod}", "autograd_lesson" if lib is al else "torch")


@pytest.mark.parity
@cases({**SAVED, **DIRTY, **CTX})
def test_custom_function(torch, source):
    assert run(al, source) == run(torch, source)


@pytest.mark.parity
@cases(ONCE_DIFFERENTIABLE)
def test_once_differentiable(torch, source):
    assert run(al, _adapted(source, al)) == run(torch, _adapted(source, torch))
