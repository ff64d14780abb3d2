"""Bad arguments to the autograd API, and the graph read by hand (issue 28).

``backward`` and ``autograd.grad`` given gradients, flags and inputs of the wrong type, shape,
dtype or count; a node called directly (``y.grad_fn(g)``) with the wrong number or kind of
gradients; the raw saved slots (``_raw_saved_self``: ``.data``, ``register_hooks``); a pack hook
that changes its input in place; ``output_nr``; the factories' ``device=`` and ``randint``'s
ranges. Every line is compared with torch: the line that raises, its type and message.
"""
from hypothesis import strategies as st

# Gradients that are wrong in type, shape or dtype ({y} is the last tensor).
GRADIENTS = ["1", "'a'", "[1.]", "lib.tensor(1)", "lib.tensor(1., dtype=lib.float64)",
             "lib.tensor(1j)", "lib.ones(2)", "lib.tensor(True)", "None", "lib.ones(1)"]
FLAGS = ["1", "0", "1.5", "'yes'", "None", "lib.tensor(True)", "[]"]
INPUTS = ["[]", "t0", "[t0, t0]", "(t0,)", "[t0 * 1]", "[1]", "[t0, None]", "{{'a': t0}}",
          "[{y}]", "[t0.detach()]", "()", "t0.grad_fn"]
GRAD_OUTPUTS = ["2", "[None]", "[None, None]", "[lib.ones(3)]", "lib.tensor(1.)",
                "[lib.tensor(1., dtype=lib.float64)]", "[lib.tensor(1)]", "['a']", "[]"]

ENDINGS = (
    [[f"{{y}}.sum().backward({g})"] for g in GRADIENTS]
    + [["{y}.backward({y})"], ["{y}.backward(lib.ones_like({y}).long())"],
       ["{y}.backward(lib.ones_like({y}), lib.ones_like({y}))"]]
    + [[f"{{y}}.sum().backward({flag}={v})"] for flag in ("retain_graph", "create_graph")
       for v in FLAGS[:4]]
    + [[f"{{y}}.sum().backward(inputs={i})"] for i in INPUTS]
    + [["lib.autograd.backward({y}.sum(), grad_tensors=[lib.tensor(1.), lib.tensor(2.)])"],
       ["lib.autograd.backward([])"], ["lib.autograd.backward([{y}.sum(), 1])"],
       ["lib.autograd.backward(({y}.sum(), {y}.sum()), [None])"],
       ["lib.autograd.backward({y}.sum(), 2.)"], ["lib.autograd.backward('a')"]]
    + [[f"g = lib.autograd.grad({{y}}.sum(), {i}, allow_unused=True)"] for i in INPUTS]
    + [[f"g = lib.autograd.grad({{y}}.sum(), [t0], grad_outputs={o}, allow_unused=True)"]
       for o in GRAD_OUTPUTS]
    + [["g = lib.autograd.grad([{y}.sum(), 2], [t0])"], ["g = lib.autograd.grad([], [t0])"],
       ["g = lib.autograd.grad({y}.sum(), [t0], allow_unused='x')"],
       ["g = lib.autograd.grad({y}.sum(), [t0], allow_unused=False, materialize_grads=True)"],
       ["g = lib.autograd.grad({y}.sum(), [t0], is_grads_batched=True)"],
       ["g = lib.autograd.grad({y}, [t0], grad_outputs=lib.ones((2,) + tuple({y}.shape)), "
        "is_grads_batched=True, allow_unused=True)"],
       ["g = lib.autograd.grad({y}, [t0], grad_outputs=[lib.ones(2)], is_grads_batched=True)"],
       ["g = lib.autograd.grad({y}.sum(), [t0], only_inputs=False, allow_unused=True)"]]
    # a node called by hand (with the wrong number or kind of gradients; not of the wrong
    # shape, which each formula's kernel checks its own way in torch: a class left alone)
    + [[f"r = {{y}}.grad_fn({args})"] for args in (
        "lib.ones_like({y})", "", "lib.ones_like({y}), lib.ones_like({y})", "None", "1", "'a'",
        "lib.ones_like({y}).double()", "[lib.ones_like({y})]", "grad=lib.ones_like({y})")]
    + [["{y}.sum().backward(retain_graph=True)", "r = {y}.grad_fn(lib.ones_like({y}))"],
       ["{y}.sum().backward()", "r = {y}.grad_fn(lib.ones_like({y}))"]]
    # the raw saved slots
    + [["n = sorted(a for a in dir({y}.grad_fn) if a.startswith('_raw_saved_'))",
        *middle, "d = [getattr({y}.grad_fn, a).data for a in n]"] for middle in (
        [], ["{y}.sum().backward()"], ["{y}.sum().backward(retain_graph=True)"],
        ["t0.mul_(2)"], ["t0.data.mul_(2)"])]
    + [["n = sorted(a for a in dir({y}.grad_fn) if a.startswith('_raw_saved_'))",
        f"d = [getattr({{y}}.grad_fn, a).register_hooks({hooks}) for a in n]", *after]
       # (not an unpack hook that changes the shape: each formula then fails on its own, in
       # torch's kernels and NumPy's, a class this family leaves alone)
       for hooks in ("lambda t: t * 2, lambda t: t", "lambda t: t, lambda t: t.detach()",
                     "lambda t: None, lambda t: 1", "lambda t: t",
                     "lambda t: t.mul_(2), lambda t: t", "1, 2")
       for after in ([], ["{y}.sum().backward()"])]
    + [["n = sorted(a for a in dir({y}.grad_fn) if a.startswith('_raw_saved_'))",
        "{y}.sum().backward()",
        "d = [getattr({y}.grad_fn, a).register_hooks(lambda t: t, lambda t: t) for a in n]"],
       ["n = sorted(a for a in dir({y}.grad_fn) if a.startswith('_raw_saved_'))",
        "d = [getattr({y}.grad_fn, a).register_hooks(lambda t: t, lambda t: t) for a in n]",
        "e = [getattr({y}.grad_fn, a).register_hooks(lambda t: t, lambda t: t) for a in n]"]]
    # pack hooks that change their input in place
    + [[f"with lib.autograd.graph.saved_tensors_hooks({pack}, lambda t: t):\n"
        f"    z = {expr}", "z.sum().backward()"]
       for pack in ("lambda t: t.mul_(2)", "lambda t: t.add_(1).clone()",
                    "lambda t: t.detach().mul_(2)", "lambda t: t.clone().mul_(2)")
       for expr in ("{y} * {y}", "({y} * 1).exp()", "{y}.sigmoid()")]
    + [["o = ({y}.output_nr, t0.output_nr)"], ["o = [t.output_nr for t in {y}.split(1)]"],
       ["o = [t.output_nr for t in {y}.unbind()]"], ["o = {y}.max(0)[1].output_nr"],
       ["o = [t.output_nr for t in {y}.detach().split(1)]"]]
)

FACTORIES = [
    "lib.ones_like({x}, device='cpu')", "lib.zeros_like({x}, device=lib.device('cpu'))",
    "lib.full_like({x}, 2, device='cpu')", "lib.empty_like({x}, device='cpu').zero_()",
    "lib.ones_like({x}, device='cuda')", "lib.zeros_like({x}, device=0)",
    "lib.ones_like({x}, dtype=lib.float64, device='cpu', requires_grad=True)",
    "lib.ones(2, device='cuda')", "lib.zeros(2, device='cuda:0')", "lib.ones(2, device=0)",
    "lib.ones(2, device='gpu')", "lib.zeros(2, device='cpu:0')", "lib.ones(2, device=None)",
    "lib.tensor([1., 2.], device='cpu')", "lib.tensor([1.], device='cuda')",
    "lib.arange(3, device='cpu')", "lib.full((2,), 1., device=lib.device('cpu'))",
    "lib.eye(2, device='cpu')", "lib.linspace(0, 1, 3, device='cpu')",
    "lib.zeros(2, device=lib.device('cuda'))", "{x}.to('cpu')", "{x}.to(device='cpu')",
    "{x}.to('cuda')", "{x}.cpu()", "{x}.new_zeros(2, device='cpu')",
    "{x}.new_ones(2, device='cuda')", "{x}.new_tensor([1.], device='cpu')",
    "lib.zeros(2, device=-1)", "lib.ones(2, device='meta')", "lib.zeros_like({x}, 'cpu')",
    "lib.empty(2, device='cpu').zero_()", "lib.zeros(2).to(lib.device('cpu'), lib.float64)",
]
RANDINTS = [
    "lib.randint(5, 5, (2,))", "lib.randint(5, 3, (2,))", "lib.randint(0, 1, (2,))",
    "lib.randint(1, (3,))", "lib.randint(5, 5)", "lib.randint(3, (0,))", "lib.randint(0, (2,))",
    "lib.randint(2, 3, (2,), dtype=lib.float32)", "lib.randint(-1, 0, (2,))",
    "lib.randint(1.5, (2,))", "lib.randint(0, 1, 2)", "lib.randint(-3, -5, (1,))",
    "lib.randint(1, (2,), dtype=lib.bool)", "lib.randint(0, 1, (2,), requires_grad=True)",
    "lib.randint(0, 1, (2,), dtype=lib.float32, requires_grad=True)", "lib.randint(2, (2, -1))",
]


@st.composite
def factory(draw, names):
    x = draw(st.sampled_from(names))
    return draw(st.sampled_from(FACTORIES + RANDINTS)).format(x=x)


@st.composite
def saved_and_called(draw, names):
    """Lines that read the graph by hand in the middle of a program."""
    x = draw(st.sampled_from(names))
    return draw(st.sampled_from([
        [f"o{len(names)} = {x}.output_nr"],
        [f"r{len(names)} = {x}.grad_fn({x}) if {x}.grad_fn is not None else None"],
        [f"r{len(names)} = {x}.grad_fn({x}, {x}) if {x}.grad_fn is not None else None"],
        [f"d{len(names)} = [getattr({x}.grad_fn, a).data for a in dir({x}.grad_fn) "
         f"if a.startswith('_raw_saved_')]"],
    ]))


EXPRESSIONS = [factory]
STATEMENTS = [saved_and_called]
