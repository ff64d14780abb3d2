"""The program generator: small random programs over ``lib`` (``autograd_lesson`` in one run,
``torch`` in the other; ``F`` is ``lib.nn.functional``, ``np`` is NumPy). The base vocabulary is
here; ``families/`` adds more."""
from hypothesis import strategies as st

from . import families

SHAPES = [(), (0,), (1,), (3,), (2, 3), (1, 3), (2, 1), (2, 0), (3, 1, 2)]
DTYPES = ["float32", "float64", "int64", "int32", "bool"]
FLOATS = [-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0]
INTS = [-2, -1, 0, 1, 2, 3]

UNARY = ["exp", "log", "sqrt", "tanh", "sigmoid", "relu", "abs", "neg", "reciprocal", "clone",
         "float", "double", "long", "t", "flatten", "squeeze"]
INPLACE_UNARY = ["exp_", "log_", "sigmoid_", "tanh_", "relu_", "sqrt_", "neg_", "abs_",
                 "zero_", "detach_"]
BINARY = ["+", "-", "*", "/"]
SCALARS = ["2", "-1", "0.5", "1.5", "True", "0", "1j"]


@st.composite
def values(draw, shape, dtype):
    pool = FLOATS if dtype.startswith("float") else INTS if dtype.startswith("int") else [True, False]

    def build(dims):
        if not dims:
            return draw(st.sampled_from(pool))
        return [build(dims[1:]) for _ in range(dims[0])]
    return build(list(shape))


@st.composite
def leaf(draw, name):
    shape = draw(st.sampled_from(SHAPES))
    dtype = draw(st.sampled_from(DTYPES + ["float32"] * 3))  # mostly tensors that can need grad
    data = draw(values(shape, dtype))
    rg = dtype.startswith("float") and draw(st.booleans())
    extra = ", requires_grad=True" if rg else ""
    if not shape and draw(st.booleans()):
        data = [data]  # also a 1-element 1-D tensor
    return f"{name} = lib.tensor({data!r}, dtype=lib.{dtype}{extra})"


DIM = st.integers(-4, 4)


BASE_KINDS = 37  # kinds 0-36 below, 37 the custom Function; a family's come after


@st.composite
def expression(draw, names):
    x = draw(st.sampled_from(names))
    y = draw(st.sampled_from(names))
    d = draw(DIM)
    kind = draw(st.integers(0, BASE_KINDS + len(families.EXPRESSIONS)))
    if kind > BASE_KINDS:
        return draw(families.EXPRESSIONS[kind - BASE_KINDS - 1](names))
    s = draw(st.sampled_from(SCALARS))
    if kind == 0:
        return f"{x}.{draw(st.sampled_from(UNARY))}()"
    if kind == 1:
        return f"{x} {draw(st.sampled_from(BINARY))} {y}"
    if kind == 2:
        op = draw(st.sampled_from(BINARY + ["**"]))
        return f"{x} {op} {s}" if draw(st.booleans()) else f"{s} {op} {x}"
    if kind == 3:
        keep = draw(st.booleans())
        dims = draw(st.sampled_from([None, "()", str(d), f"({d},)", "(0, 1)", "[-1]"]))
        red = draw(st.sampled_from(["sum", "mean", "amax", "amin"]))
        return f"{x}.{red}()" if dims is None else f"{x}.{red}(dim={dims}, keepdim={keep})"
    if kind == 4:
        return f"{x}.max()" if draw(st.booleans()) else f"{x}.max({d}).values"
    if kind == 5:
        return f"{x}.norm()" if draw(st.booleans()) else f"{x}.norm(dim={d})"
    if kind == 6:
        return f"{x}.{draw(st.sampled_from(['softmax', 'log_softmax']))}({d})"
    if kind == 7:
        return f"{x}.unsqueeze({d})"
    if kind == 8:
        return f"{x}.squeeze({d})"
    if kind == 9:
        return f"{x}.select({d}, {draw(st.integers(-3, 3))})"
    if kind == 10:
        key = draw(st.sampled_from(["0", "-1", "5", "0, 5", "1:", "::2", "...", "..., 0",
                                    "None", "[0, 0]", "([0, 1], [0, 0])", f"{y} > 0", ":, 1",
                                    ":, [0, 1]", "[0, 1], 0", "..., [0]", "None, [0]"]))
        return f"{x}[{key}]"
    if kind == 11:
        return f"{x}.transpose({d}, {draw(DIM)})"
    if kind == 12:
        return f"lib.cat([{x}, {y}], {d})"
    if kind == 13:
        return f"lib.stack([{x}, {y}], {d})"
    if kind == 14:
        cond = draw(st.sampled_from([f"{x} > 0", x]))
        return f"lib.where({cond}, {x}, {y})"
    if kind == 15:
        return f"{x} {draw(st.sampled_from(['>', '<', '==', '>=']))} {draw(st.sampled_from([y, s]))}"
    if kind == 16:
        lo, hi = draw(st.sampled_from([("0", "1"), ("1.5", "3.5"), ("None", "0"), ("-1", "None")]))
        return f"{x}.clamp({lo}, {hi})"
    if kind == 17:
        if draw(st.booleans()):
            return f"{x}.flatten({draw(st.sampled_from(['', str(d), f'{d}, {draw(DIM)}', 'end_dim=0']))})"
        return f"{x}.reshape({draw(st.sampled_from(['-1', '(1, -1)', '(-1, 1)', '2, -1', '()']))})"
    if kind == 18:
        if draw(st.integers(0, 3)) == 0:
            return f"{x}.split({draw(st.sampled_from(['[1, 1]', '[0, 1]', '[2]', '[1, -1]']))})[0]"
        return f"{x}.{draw(st.sampled_from(['chunk', 'unbind']))}({draw(st.integers(1, 3))})[0]"
    if kind == 19:
        factory = draw(st.sampled_from([
            "lib.full((2,), 3)", "lib.full((2,), 1.5)", "lib.full((2,), True)", "lib.zeros(-1)",
            "lib.ones(2) * 1j", "lib.arange(0, 3, 0)", "lib.arange(3)", "lib.arange(0., 1., 0.25)",
            "lib.tensor([[1, 2], [3]])", "lib.zeros(2, dtype=lib.int8)", "lib.ones(2, device='cpu')",
            "lib.zeros(2, 3).sum(dim=())", "lib.cat([])", "lib.tensor(3).sum(0)",
            "lib.tensor(3.).max(0).values", "lib.tensor(3.).norm(dim=0)", "lib.eye(2, 3)",
            "lib.linspace(0, 1, 3)", "lib.tensor([]).sum()", "lib.tensor(2.5).int()"]))
        return factory
    if kind == 20:
        other = draw(st.sampled_from([y, s]))
        if draw(st.integers(0, 2)) == 0:  # alpha (checked against the result dtype)
            alpha = draw(st.sampled_from(["2", "0.5", "True", "1j", "-1", "'a'", "lib.tensor(2.)"]))
            return draw(st.sampled_from([f"{x}.add_({other}, alpha={alpha})",
                                         f"{x}.sub({other}, alpha={alpha})",
                                         f"lib.add({other}, {x}, alpha={alpha})",
                                         f"lib.sub({x}, {other}, alpha={alpha})"]))
        if draw(st.integers(0, 2)) == 0:  # the functions, a number first included
            return f"lib.{draw(st.sampled_from(['add', 'sub', 'mul', 'div']))}({other}, {x})"
        return f"{x}.{draw(st.sampled_from(['add_', 'mul_', 'sub_', 'div_']))}({other})"
    if kind == 21:
        return f"{x}.{draw(st.sampled_from(INPLACE_UNARY))}()"
    if kind == 22:
        loss = draw(st.sampled_from(["mse_loss", "binary_cross_entropy"]))
        return f"F.{loss}({x}, {y})"
    if kind == 23:
        return f"{x}.{draw(st.sampled_from(['sum', 'mean']))}({d})"
    if kind == 24:
        return f"{x}.to(lib.{draw(st.sampled_from(DTYPES))})"
    if kind == 25:
        return f"{x}.is_floating_point()"
    if kind == 26:
        return f"{x}.expand({draw(st.sampled_from(['2, -1', '(3, 3)', '-1', '2, 1, 3']))})"
    if kind == 27:
        return f"{x}.view(-1)[0]"
    if kind == 28:
        z = draw(st.sampled_from(names))
        return draw(st.sampled_from([f"{x} @ {y}", f"lib.mm({x}, {y})", f"lib.matmul({x}, {y})",
                                     f"lib.addmm({z}, {x}, {y})", f"F.linear({x}, {y})",
                                     f"F.linear({x}, {y}, {z})", f"lib.mv({x}, {y})"]))
    if kind == 29:
        return draw(st.sampled_from([
            f"F.cross_entropy({x}, lib.tensor([0, 2]))", f"F.cross_entropy({x}, lib.tensor([-1, 0]))",
            f"F.nll_loss({x}, lib.tensor([1, 0]))", f"F.cross_entropy({x}, lib.tensor([0]))",
            f"F.binary_cross_entropy_with_logits({x}, {y})", f"F.leaky_relu({x}, 0.1)",
            f"F.relu({x})", f"F.softmax({x}, {d})", f"F.dropout({x}, 0.0)", f"F.tanh({x})",
            f"F.binary_cross_entropy_with_logits({x}, {y}, pos_weight={y})",
            f"F.binary_cross_entropy_with_logits({x}, {y}, weight={y}, reduction='none')",
            f"F.nll_loss({x}, lib.tensor([1, 0]), weight={y})",
            f"F.cross_entropy({x}, lib.tensor([0, 2]), weight={y}, reduction='sum')",
            f"F.binary_cross_entropy({x}.sigmoid(), {y}, weight={y})"]))
    if kind == 30:  # deliberately bad arguments
        return draw(st.sampled_from([
            f"{x} + 'a'", f"{x}.reshape(2.5)", "lib.tensor('abc')",
            f"{x}.view(-1, -1)", f"{x}.permute(0)", f"{x}.unsqueeze(1.0)", f"{x}[1.5]",
            f"{x}.sum(0, 1)", f"lib.cat({x})", f"lib.stack([{x}, 3])", f"{x}.to('float')",
            f"lib.zeros(2.5)", f"lib.ones((2, 'a'))", f"{x}.clamp()", f"{x}.transpose(0)",
            f"{x}.select(0)", f"{x}.expand()", f"{x}.max(0, 1)",
            f"{x}.squeeze(0, 1)", f"{x}.narrow(0, 0, 5)"]))
    if kind == 31:  # views changed in place, item assignment
        return draw(st.sampled_from([
            f"{x}.clone()[0].mul_(2)", f"{x}.clone()[..., :1].add_({y})", f"{x}.t().mul_(2)",
            f"{x}.clone().unsqueeze(0).exp_()", f"{x}.view(-1).add_(1)",
            f"{x}.detach().mul_(2)", f"{x}.clone().fill_(3.)", f"{x}.clone().zero_()"]))
    if kind == 32:
        return draw(st.sampled_from([f"{x}.detach()", f"{x}.data", f"{x}.requires_grad_()",
                                     f"{x}.clone().requires_grad_()", f"{x}.argmax()",
                                     f"{x}.argmax({d})", f"{x}.split(1)[0]", f"{x}.numel()",
                                     f"{x}.size({d})", f"{x}.dim()", f"{x}.item()",
                                     f"{x}.tolist()", f"len({x})", f"{x}.any()", f"{x}.all()",
                                     f"~{x}", f"{x} & {y}", f"{x} | {y}", f"{x}.eq({y})",
                                     # (an empty view's strides are documented to differ)
                                     f"({x}.stride() if {x}.numel() else None)",
                                     f"({x}.stride({d}) if {x}.numel() else {x}.size({d}))",
                                     f"{x}.is_contiguous()"]))
    if kind == 33:  # matmul of every rank (folded into mm/mv, or batched bmm), bmm, dot
        k, j = draw(st.integers(-3, 2)), draw(st.integers(-3, 2))
        return draw(st.sampled_from([
            f"{x}.unsqueeze(0).expand(2, -1, -1) @ {y}", f"{x} @ {y}.unsqueeze(0).expand(2, -1, -1)",
            f"{x}.unsqueeze({k}) @ {y}.unsqueeze({j})", f"{x}.reshape(-1, 1) @ {y}.reshape(1, -1)",
            f"{x}.reshape(2, 1, -1) @ {y}.reshape(-1, 1)", f"{x}.reshape(-1) @ {y}.reshape(2, -1, 1)",
            f"{x}.transpose(0, 1).unsqueeze(0) @ {y}", f"{x} @ {y}.t()", f"{x}.mT @ {y}",
            f"lib.matmul({x}.unsqueeze(0), {y}.unsqueeze(1))", f"{x}.matmul({y}.unsqueeze(-1))",
            f"lib.dot({x}, {y})", f"{x}.dot({y})", f"{x}.reshape(-1).dot({y}.reshape(-1))",
            f"lib.bmm({x}, {y})", f"{x}.bmm({y})", f"lib.bmm({x}.unsqueeze(0), {y}.unsqueeze(0))",
            f"lib.bmm({x}.expand(2, -1, -1), {y}.expand(2, -1, -1))", f"{x}.mv({y})",
            f"{x}.mT", f"{x}.contiguous()", f"{x}.t().contiguous()"]))
    if kind == 34:
        return draw(st.sampled_from([
            f"{x}.argmin()", f"{x}.argmin({d})", f"{x}.argmin({d}, keepdim=True)",
            f"{x}.argmin(keepdim=True)", f"lib.argmin({x})", f"{x}.argmax(keepdim=True)",
            f"lib.argmax({x}, {d})"]))
    if kind == 35:  # index_put_ with duplicate indices, broadcast values, accumulate
        idx = draw(st.sampled_from(["[0, 0]", "[1, 0, 1]", "[-1, 0, 2]", "[True, False]"]))
        acc = draw(st.sampled_from(["", ", accumulate=True", ", True"]))
        return draw(st.sampled_from([
            f"{x}.clone().index_put_((lib.tensor({idx}),), {y}{acc})",
            f"{x}.index_put((lib.tensor({idx}),), {y}{acc})",
            f"({x} * 1).index_put_((lib.tensor({idx}),), {y}{acc})",
            f"lib.zeros(1).expand(3).index_put_((lib.tensor({idx}),), {y}{acc})",
            f"lib.zeros(2, 1).expand(2, 3).index_put_((lib.tensor({idx}),), {y}{acc})"]))
    if kind == 36:  # issue 12: ops a learner reaches for (min, maximum, sin, comparisons ...)
        k = draw(st.booleans())
        return draw(st.sampled_from([
            f"{x}.min()", f"{x}.min({d}).values", f"{x}.min({d}, keepdim={k})[1]",
            f"lib.min({x}, {d})[0]", f"lib.min({x})", f"{x}.min({y})", f"lib.max({x}, {y})",
            f"lib.maximum({x}, {y})", f"lib.minimum({x}, {y})", f"{x}.maximum({y})",
            f"{x}.minimum({s})", f"{x}.square()", f"lib.square({x})", f"{x}.sin()", f"{x}.cos()",
            f"lib.sin({x})", f"lib.cos({x})", f"{x}.square_()", f"{x}.sin_()", f"{x}.cos_()",
            f"({x} * 1).sin_()", f"{x}.clone().cos_()",
            f"{x}.{draw(st.sampled_from(['ne', 'lt', 'le', 'gt', 'ge', 'eq']))}({draw(st.sampled_from([y, s]))})",
            f"lib.{draw(st.sampled_from(['ne', 'lt', 'le', 'gt', 'ge', 'eq']))}({x}, {draw(st.sampled_from([y, s]))})",
            f"{x}.masked_fill({draw(st.sampled_from([f'{x} > 0', f'{y} > 0', y]))}, {draw(st.sampled_from([s, y, f'{y}.sum()', 'lib.tensor(2)']))})",
            f"({x} * 1).masked_fill_({draw(st.sampled_from([f'{x} < 0', f'{y} > 0']))}, {draw(st.sampled_from([s, f'{y}.sum()']))})",
            f"lib.masked_fill({x}, {x} != 0, {s})",
            f"{x}.gather({d}, lib.tensor({draw(st.sampled_from(['0', '[0]', '[1, 0, 1]', '[[0], [1]]', '[[0, 2], [1, 1]]', '[[-1]]', '[[0]]', '[[[0]]]']))}))",
            f"lib.gather({x}, {d}, {y}.long())",
            f"{x}.index_select({d}, lib.tensor({draw(st.sampled_from(['0', '[0]', '[1, 0, 1]', '[2]', '[-1]', '[]', '[[0]]']))}, dtype=lib.int64))",
            f"lib.index_select({x}, {d}, {y}.long())",
            f"{x}.{draw(st.sampled_from(['var', 'std']))}({draw(st.sampled_from(['', str(d), f'{d}, {k}', f'{d}, True, {k}', f'({d},), keepdim={k}', f'dim={d}, correction=0', 'correction=2', f'{k}', 'unbiased=False', '[]', 'dim=None, keepdim=True', 'correction=1.5']))})",
            f"lib.{draw(st.sampled_from(['var', 'std']))}({x}, {d})",
            f"{x}.view_as({y})", f"{x}.reshape_as({y})", f"{x}.type_as({y})",
            f"{x}.{draw(st.sampled_from(['new_zeros', 'new_ones']))}({draw(st.sampled_from(['2', '2, 1', '(0,)', '[]', '-1']))})",
            f"{x}.new_tensor({draw(st.sampled_from(['[1.5, -2]', '3', '[True]', y]))})",
            f"{x}.new_full((2,), {s})", f"lib.full_like({x}, {s})",
            f"lib.empty_like({x}).zero_()",  # (empty's values are unspecified: zeroed first)
            f"lib.empty({draw(st.sampled_from(['2', '(1, 0)', '-1']))}).zero_()",
            f"{x}.cumsum({d})", f"lib.cumsum({x}, {d})", f"{x}.cumsum({d}, dtype=lib.float64)",
            f"{x}.flip({d})", f"lib.flip({x}, ({d}, {draw(DIM)}))",
            f"{x}.prod()", f"{x}.prod({d})", f"lib.prod({x}, {d}, {k})", f"({x} * 0).prod()",
            f"({x} - {x}.max()).prod({d})",
            f"{x}.repeat({draw(st.sampled_from(['2', '1, 2', '(2, 1, 1)', '0, 1', '()', '-1']))})",
            f"{x}.tile({draw(st.sampled_from(['2', '(1, 2)', '()', '(2, 1, 1)']))})",
            f"{x}.roll({draw(st.sampled_from(['1', '-2', '(1, 2)']))}"
            f"{draw(st.sampled_from(['', f', {d}', f', ({d}, {draw(DIM)})']))})",
            f"{x}.movedim({d}, {draw(DIM)})", f"lib.moveaxis({x}, ({d},), ({draw(DIM)},))",
            f"{x}.unflatten({d}, {draw(st.sampled_from(['(-1,)', '(1, -1)', '(2, -1)', '(-1, 1, 1)']))})",
            f"{x}.ravel()", f"lib.ravel({x})", f"lib.concat([{x}, {y}], {d})",
            f"lib.concatenate(({x}, {y}))",
            f"lib.{draw(st.sampled_from(['hstack', 'vstack', 'dstack']))}([{x}, {y}])",
            f"{x}.repeat_interleave({draw(st.sampled_from(['2', '0', f'3, {d}', '2, dim=None']))})"]))
    return f"Scale.apply({x})"


FUNCTION = (
    "class Scale(lib.autograd.Function):\n"
    "    @staticmethod\n"
    "    def forward(ctx, x):\n"
    "        ctx.save_for_backward(x)\n"
    "        return x * 3\n"
    "    @staticmethod\n"
    "    def backward(ctx, g):\n"
    "        (x,) = ctx.saved_tensors\n"
    "        return g * 3")

# Saved strides, except an empty operand's: NumPy keeps no strides for an empty array, so a view
# of one (x.t() of a (2, 0) tensor) reports C-ordered ones (a documented limit, README)
STRIDES = ("w = [getattr({y}.grad_fn, a) for a in n if a.endswith('_strides') and "
           "0 not in getattr({y}.grad_fn, a.replace('_strides', '_sizes'), ())]")

# (a hook ending reads grad_fn first: torch 2.13 crashes when register_hook is the first to
# regenerate a stale view's grad_fn, t2 = t1[0]; t1[1] = 0.; t2.register_hook(f))
ENDINGS = [
    [], ["{y}.sum().backward()"], ["g = lib.autograd.grad({y}.sum(), [t0], allow_unused=True)"],
    ["f = {y}.grad_fn", "h = {y}.register_hook(lambda g: g * 2)", "{y}.sum().backward()"],
    ["f = {y}.grad_fn", "h = {y}.register_hook(lambda g: None)", "{y}.sum().backward()"],
    ["f = {y}.grad_fn", "h = {y}.register_hook(lambda g: g.sum())", "{y}.sum().backward()"],
    ["{y}.retain_grad()", "{y}.sum().backward()"],
    ["{y}.backward()"], ["{y}.backward(lib.ones_like({y}))"],
    ["s = {y}.sum()", "s.backward(retain_graph=True)", "s.backward()"],
    ["s = {y}.sum()", "s.backward()", "s.backward()"],
    ["g = lib.autograd.grad({y}.sum(), [t0], create_graph=True)", "gg = g[0].sum()"],
    ["s = {y}.sum()", "s.backward(create_graph=True)", "q = t0.grad.sum()"],
    ["{y}.sum().backward(inputs=[t0])"],
    ["s = {y}.sum()", "t0.grad = None", "s.backward()"],
    # grad modes, grad's flags, hooks on nodes and on saved tensors, bad gradients
    ["with lib.no_grad():\n    z = {y} * 2", "z.sum().backward()"],
    ["with lib.inference_mode():\n    z = {y} + 1", "w = z * 2"],
    ["with lib.enable_grad():\n    z = {y} * 2"],
    ["g = lib.autograd.grad({y}.sum(), [t0], retain_graph=True, materialize_grads=True)"],
    ["g = lib.autograd.grad([{y}.sum()], [t0], grad_outputs=[lib.tensor(2.)], allow_unused=True)"],
    ["g = lib.autograd.grad({y}, [t0], grad_outputs=lib.ones_like({y}), allow_unused=True)"],
    ["h = {y}.grad_fn.register_hook(lambda gi, go: None)", "{y}.sum().backward()"],
    ["h = {y}.grad_fn.register_prehook(lambda go: (go[0] * 2,))", "{y}.sum().backward()"],
    ["with lib.autograd.graph.saved_tensors_hooks(lambda t: t * 1, lambda t: t):\n"
     "    s = ({y} * {y}).sum()", "s.backward()"],
    ["t0.grad = lib.zeros(5)"], ["t0.grad = lib.zeros_like(t0).long()"],
    ["{y}.requires_grad_(False)"], ["lib.autograd.backward([{y}.sum()], inputs=[t0])"],
    ["{y}.sum().backward(gradient=lib.tensor(2.))"], ["{y}.backward(lib.ones(7))"],
    ["z = {y}.detach().requires_grad_()", "z.sum().backward()"],
    ["{y}.sum().backward(retain_graph='no')"],
    # the graph itself: node names, edges, saved slots and their values, before and after
    ["n = {y}.grad_fn.name() if {y}.grad_fn is not None else None",
     "e = [(f and f.name(), i) for f, i in {y}.grad_fn.next_functions] if {y}.grad_fn else None"],
    ["n = sorted(a for a in dir({y}.grad_fn) if a.startswith('_saved_'))",
     "v = [getattr({y}.grad_fn, a) for a in n if not a.endswith('_strides')]",
     STRIDES.format(y="{y}")],
    ["n = sorted(a for a in dir({y}.grad_fn) if a.startswith('_saved_'))", "{y}.sum().backward()",
     "v = [getattr({y}.grad_fn, a) for a in n if not a.endswith('_strides')]",
     STRIDES.format(y="{y}")],
]


@st.composite
def program(draw):
    lines, names = [], []
    for i in range(draw(st.integers(1, 3))):
        name = f"t{len(names)}"
        make = draw(st.sampled_from([leaf] * 4 + families.LEAVES))
        lines.append(draw(make(name)))
        names.append(name)
    for i in range(draw(st.integers(1, 4))):
        name = f"t{len(names)}"
        expr = draw(expression(names))
        if families.STATEMENTS and draw(st.integers(0, 9)) == 0:
            lines.extend(draw(draw(st.sampled_from(families.STATEMENTS))(names)))
            continue
        if draw(st.integers(0, 9)) == 0:  # an item assignment statement
            x, y = draw(st.sampled_from(names)), draw(st.sampled_from(names))
            key = draw(st.sampled_from(["0", "[0, 1]", f"{x} > 0", "...", ":, 0", "1:",
                                        ":, [0]", "[0, 1], [1, 0]", "[0, 0]", "[1, 0, 1]",
                                        "[0, 0], [1, 1]"]))
            value = draw(st.sampled_from([y, "0.", "2", f"{y}.sum()"]))
            lines.append(f"{x}[{key}] = {value}")
            continue
        if expr.endswith("is_floating_point()"):  # a bool, not a tensor: not an operand later
            lines.append(f"b{len(names)} = {expr}")
            continue
        lines.append(f"{name} = {expr}")
        names.append(name)
    if any("Scale.apply" in line for line in lines):
        lines.insert(0, FUNCTION)
    last = names[-1]
    lines.extend(line.format(y=last) for line in draw(st.sampled_from(ENDINGS + families.ENDINGS)))
    return lines
