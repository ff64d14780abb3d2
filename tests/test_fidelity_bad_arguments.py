"""Issue 28's engine half, each item a program compared with torch (``fuzz.compare``: the line
that raises, its type and message, the warnings and every tensor), and the classes the fuzzer's
``bad_arguments`` family found: bad arguments to ``backward``/``grad``, a node called by hand,
the raw saved slots, pack hooks that change their input, ``output_nr``, ``device=`` and
``randint``."""
import pytest

from fuzz.compare import compare, run
import autograd_lesson as al

pytestmark = pytest.mark.parity

LEAF = "x = lib.tensor([1., 2.], requires_grad=True)"

PROGRAMS = {
    # a node called by hand takes one gradient per output of its op, each a Tensor or None
    "grad_fn with two gradients": [LEAF, "y = x * 2", "r = y.grad_fn(lib.ones(2), lib.ones(2))"],
    "grad_fn with none": [LEAF, "y = x * x", "r = y.grad_fn()"],
    "grad_fn of split wants two": [LEAF, "s = x.split(1)", "r = s[0].grad_fn(lib.ones(1))"],
    "grad_fn of split, one None": [LEAF, "s = x.split(1)", "r = s[0].grad_fn(lib.ones(1), None)"],
    "grad_fn with a number": [LEAF, "y = x * x", "r = y.grad_fn(1)"],
    "grad_fn with a list": [LEAF, "y = x * x", "r = y.grad_fn([lib.ones(2)])"],
    "grad_fn with a keyword": [LEAF, "y = x * x", "r = y.grad_fn(grad=lib.ones(2))"],
    "grad_fn with None": [LEAF, "y = x * x", "r = y.grad_fn(None)"],
    "AccumulateGrad called by hand": [LEAF, "y = x * x",
                                      "r = y.grad_fn.next_functions[0][0](lib.ones(2))"],
    "AccumulateGrad by hand copies the gradient into the leaf's shape": [
        "t = lib.tensor(-2.0, requires_grad=True)", "r = t.exp().grad_fn.next_functions[0][0]",
        "e = r(lib.ones(1))"],
    "AccumulateGrad by hand broadcasts a smaller gradient": [
        LEAF, "r = x.exp().grad_fn.next_functions[0][0]", "e = r(lib.ones(1))", "f = r(lib.ones(1))"],
    "AccumulateGrad by hand into an empty leaf": [
        "t = lib.tensor([], requires_grad=True)", "e = t.exp().grad_fn.next_functions[0][0](lib.ones(1))"],
    "copy_ of a larger source": ["x = lib.zeros(2, 1)", "x.copy_(lib.ones(2, 3))"],
    "copy_ of clashing shapes": ["x = lib.zeros(3, 2)", "x.copy_(lib.ones(4, 2))"],
    "a custom Function's node is not callable": [
        "class Scale(lib.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n"
        "        return x * 3\n    @staticmethod\n    def backward(ctx, g):\n        return g * 3",
        LEAF, "y = Scale.apply(x)", "r = y.grad_fn.apply(lib.ones(2))", "q = y.grad_fn(lib.ones(2))"],
    "an index backward called with a gradient of the wrong shape": [
        "t = lib.tensor([], requires_grad=True)", "u = t[t > 0]", "r = u.grad_fn(lib.ones(7))"],
    # the raw saved slots
    "a custom Function's saves can't be read once freed, even none": [
        "class N(lib.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n"
        "        return x * 3\n    @staticmethod\n    def backward(ctx, g):\n        return g * 3",
        LEAF, "y = N.apply(x)", "a = y.grad_fn.saved_tensors", "b = y.grad_fn._raw_saved_tensors",
        "y.sum().backward()", "c = y.grad_fn._raw_saved_tensors"],
    "a custom Function's saved_tensors once freed": [
        "class N(lib.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n"
        "        return x * 3\n    @staticmethod\n    def backward(ctx, g):\n        return g * 3",
        LEAF, "y = N.apply(x)", "y.sum().backward()", "c = y.grad_fn.saved_tensors"],
    "_raw_saved_self.data is the original": [LEAF, "y = x * x",
                                             "d = y.grad_fn._raw_saved_self.data is x"],
    "_raw_saved_result.data: the values, outside the graph": [
        LEAF, "y = x.exp()", "d = y.grad_fn._raw_saved_result.data"],
    "_raw_saved_*.data unchecked after an in-place change": [
        LEAF, "y = x * x", "with lib.no_grad():\n    x.mul_(2)", "d = y.grad_fn._raw_saved_self.data"],
    "_raw_saved_*.data is None once freed": [
        LEAF, "w = x * 1", "y = w * w", "y.sum().backward()", "d = y.grad_fn._raw_saved_self.data"],
    "_raw_saved_*.data is what the pack hook returned": [
        LEAF, "with lib.autograd.graph.saved_tensors_hooks(lambda t: (1, t * 3), lambda t: t[1]):\n"
        "    y = x * x", "d = y.grad_fn._raw_saved_self.data", "y.sum().backward()"],
    "register_hooks on a raw save, then backward": [
        LEAF, "y = x * x", "y.grad_fn._raw_saved_self.register_hooks(lambda t: t * 10, lambda t: t + 1)",
        "d = y.grad_fn._raw_saved_self.data", "y.sum().backward()"],
    "register_hooks with one hook": [LEAF, "y = x * x",
                                     "y.grad_fn._raw_saved_self.register_hooks(lambda t: t)"],
    "register_hooks with two numbers": [LEAF, "y = x * x",
                                        "y.grad_fn._raw_saved_self.register_hooks(1, 2)"],
    "register_hooks twice": [LEAF, "y = x * x", "r = y.grad_fn._raw_saved_self",
                             "r.register_hooks(lambda t: t, lambda t: t)",
                             "r.register_hooks(lambda t: t, lambda t: t)"],
    # pack hooks run in no_grad mode and may not change their input in place
    "a pack hook that multiplies its leaf input in place": [
        LEAF, "with lib.autograd.graph.saved_tensors_hooks(lambda t: t.mul_(2), lambda t: t):\n"
        "    y = x.pow(2)"],
    "a pack hook that changes a saved output through detach()": [
        LEAF, "w = x * 1", "with lib.autograd.graph.saved_tensors_hooks("
        "lambda t: t.detach().mul_(2), lambda t: t):\n    y = w.exp()"],
    "register_hooks whose pack changes its input": [
        LEAF, "w = x * 1", "y = w * w", "r = y.grad_fn._raw_saved_self",
        "r.register_hooks(lambda t: t.add_(1).clone(), lambda t: t)"],
    "a pack hook sees grad mode off": [
        LEAF, "with lib.autograd.graph.saved_tensors_hooks("
        "lambda t: (lib.is_grad_enabled(), t), lambda p: p[1]):\n    y = x * x",
        "d = y.grad_fn._raw_saved_self.data[0]"],
    # output_nr
    "output_nr of split and unbind outputs": [
        LEAF, "o = [t.output_nr for t in x.split(1)] + [t.output_nr for t in x.unbind()]",
        "p = [t.output_nr for t in x.detach().unbind()] + [x.output_nr]"],
    "output_nr of max's outputs": [LEAF, "m = x.max(0)", "o = (m[0].output_nr, m[1].output_nr)"],
    "output_nr of a no_grad view": [LEAF, "w = x.clone()", "with lib.no_grad():\n    v = w.split(1)[1]",
                                    "o = v.output_nr"],
    # bad arguments to backward and grad
    "backward(inputs=) reads each input in turn": [
        "t = lib.tensor([3])", LEAF, "x.sum().backward(inputs=[t, None])"],
    "grad(is_grads_batched) of a 0-dim output": [LEAF, "g = lib.autograd.grad(x.sum(), x, is_grads_batched=True)"],
    "grad(is_grads_batched) of an output needing no grad": [
        "t = lib.tensor([3, 0])", "g = lib.autograd.grad(t.sum(), [t], is_grads_batched=True)"],
    "grad(is_grads_batched) with a 0-dim grad_output": [
        LEAF, "g = lib.autograd.grad(x * 2, x, grad_outputs=lib.tensor(1.), is_grads_batched=True)"],
    "grad(is_grads_batched) of a 1-element output, implicit": [
        LEAF, "g = lib.autograd.grad(x[:1], x, is_grads_batched=True)"],
    "grad(allow_unused='x') is read with the engine's flags": [
        "t = lib.tensor([3])", "g = lib.autograd.grad(t.sum(), [t], allow_unused='x')"],
    "a bool tensor is an index, as a flag too": [
        LEAF, "y = x * 2", "y.sum().backward(retain_graph=lib.tensor([True]))", "y.sum().backward()",
        "i = [10, 20][lib.tensor(True)]"],
    # factories: device= and randint
    "*_like take device=": ["x = lib.ones(2)", "a = lib.ones_like(x, device='cpu')",
                            "b = lib.zeros_like(x, device=lib.device('cpu'), dtype=lib.float64)",
                            "c = lib.full_like(x, 2, device='cpu')"],
    "*_like with device='cuda'": ["x = lib.ones(2)", "a = lib.ones_like(x, device='cuda')"],
    "*_like's device is keyword-only": ["x = lib.ones(2)", "a = lib.zeros_like(x, 'cpu')"],
    "device=0 on a CPU-only build": ["a = lib.ones(2, device=0)"],
    "a negative device index": ["a = lib.zeros(2, device=-1)"],
    "randint(5, 5)": ["a = lib.randint(5, 5)"],
    "randint(5, 5, size)": ["a = lib.randint(5, 5, (2,))"],
    "randint with from > to": ["a = lib.randint(-3, -5, (1,))"],
    "randint(high, size)": ["a = lib.randint(1, (3,))", "b = lib.randint(high=1, size=(2,))"],
    "randint(0, size)": ["a = lib.randint(0, (2,))"],
    "randint: from >= to even for an empty size": ["a = lib.randint(5, 5, (0,))"],
    "randint: a float high": ["a = lib.randint(1.5, (2,))"],
    "randint: an int size, three numbers": ["a = lib.randint(0, 1, 2)"],
    "randint: out of uint8's range": ["a = lib.randint(0, 300, (2,), dtype=lib.uint8)"],
    "randint: below bool's range": ["a = lib.randint(-1, 1, (2,), dtype=lib.bool)"],
    "randint: requires_grad": ["a = lib.randint(0, 1, (2,), dtype=lib.float32, requires_grad=True)",
                               "b = lib.randint(0, 1, (2,), requires_grad=True)"],
    "randint: device=": ["a = lib.randint(1, (2,), device='cpu')", "b = lib.randint(1, (2,), device='cuda')"],
}


@pytest.mark.parametrize("lines", PROGRAMS.values(), ids=PROGRAMS.keys())
def test_program_matches_torch(torch, lines):
    compare(torch, lines)


def test_the_programs_raise_where_torch_does(torch):
    """The table is not vacuous: most of its programs end in torch's own error."""
    raised = [name for name, lines in PROGRAMS.items() if run(torch, lines)[0] is not None]
    assert len(raised) >= 30


def test_meta_is_a_documented_limitation(torch):
    with pytest.raises(NotImplementedError, match="^autograd_lesson computes on the CPU only"):
        al.ones(2, device="meta")
    assert torch.ones(2, device="meta").is_meta


def _saved_original_with_hooks(lib, get_input, is_leaf):
    """PyTorch's test_saved_variable_packing_unpacking_saved_original_with_hooks, over lib."""
    a = get_input(); grad_fn = a.grad_fn; y = a * a
    y.grad_fn._raw_saved_self.register_hooks(lambda x: 2 * x, lambda x: x / 2)
    assert lib.equal(a, y.grad_fn._saved_self)
    if not is_leaf:
        assert grad_fn is y.grad_fn._saved_self.grad_fn
        y.sum().backward()
    else:
        y.sum().backward(); assert lib.equal(2 * a, a.grad)
    a = get_input(); grad_fn = a.grad_fn; y = a * a
    y.grad_fn._raw_saved_self.register_hooks(lambda x: 2 * x, lambda x: x)
    assert lib.equal(2 * a, y.grad_fn._saved_self)
    if not is_leaf:
        assert grad_fn is y.grad_fn._saved_self.grad_fn
        y.sum().backward()
    else:
        y.sum().backward(); assert lib.equal(3 * a, a.grad)
    a = get_input(); grad_fn = a.grad_fn; y = a ** 3
    y.grad_fn._raw_saved_self.register_hooks(lambda x: x, lambda x: x)
    (g,) = lib.autograd.grad(lib.sum(y), (a,), create_graph=True)
    if not is_leaf:
        assert grad_fn is y.grad_fn._saved_self.grad_fn
        g.sum().backward()
    else:
        g.sum().backward(); assert lib.equal(6 * a, a.grad)
    a = get_input(); y = a * a
    y.grad_fn._raw_saved_self.register_hooks(lambda x: x, lambda x: 1)
    with pytest.raises(TypeError, match="Output of saved tensor unpack_hook expected to be a Tensor"):
        print(y.grad_fn._saved_self)
    a = get_input(); y = a * a
    with pytest.raises(TypeError, match="missing 1 required positional argument"):
        y.grad_fn._raw_saved_self.register_hooks(lambda x, b: x, lambda x: x)
    a = get_input(); y = a * a
    with pytest.raises(TypeError, match="missing 1 required positional argument"):
        y.grad_fn._raw_saved_self.register_hooks(lambda x, b: (x, b), lambda x: x)
    def inplace_double(x):
        x *= 2
        return x
    a = get_input(); t = a * a
    with pytest.raises(RuntimeError, match="A saved tensor pack hook is modifying its input in place."):
        t.grad_fn._raw_saved_self.register_hooks(inplace_double, lambda x: x / 2)


@pytest.mark.parametrize("lib_name", ["torch", "autograd_lesson"])
def test_hooks_on_a_raw_saved_variable_as_pytorchs_own_test(torch, lib_name):
    """Ported from PyTorch's test/test_autograd.py; run on torch too, so that what it asserts
    is what torch 2.13 does."""
    lib = torch if lib_name == "torch" else al
    values = [1., -2., 0.5, 3., 0.]
    _saved_original_with_hooks(lib, lambda: lib.tensor(values, requires_grad=True), True)
    _saved_original_with_hooks(lib, lambda: 1 + lib.tensor(values, requires_grad=True), False)
