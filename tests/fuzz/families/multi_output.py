"""Multi-output ops: ``var_mean``, ``std_mean``, ``aminmax``, ``max``/``min``/``median`` over a
dim (values and indices), the whole-tensor ``median``/``nanmedian``; one output taken as an
operand, or both bound and then retained, changed in place, or backpropagated through one or
both."""
from hypothesis import strategies as st


@st.composite
def _call(draw, x):
    d, k = draw(st.integers(-3, 2)), draw(st.booleans())
    stat = draw(st.sampled_from(["var_mean", "std_mean"]))
    return draw(st.sampled_from([
        f"lib.{stat}({x})", f"lib.{stat}({x}, {d})", f"lib.{stat}({x}, {d}, keepdim={k})",
        f"lib.{stat}({x}, dim={d}, correction=0)", f"lib.{stat}({x}, [0, -1], True, {k})",
        f"lib.{stat}({x}, False)", f"lib.{stat}({x}, unbiased=False)",
        f"lib.{stat}({x}, correction=2)", f"lib.{stat}({x}, ({d},), keepdim=True)",
        f"lib.{stat}({x}, {d}, 1)", f"lib.{stat}({x}, dim=None, keepdim={k})",
        f"{x}.aminmax()", f"lib.aminmax({x}, dim={d})", f"{x}.aminmax(dim={d}, keepdim={k})",
        f"lib.aminmax({x}, {d})",
        f"{x}.max({d})", f"{x}.min({d}, {k})", f"lib.max({x}, {d}, keepdim={k})",
        # (median over a dim of an expanded tensor reads garbage in torch 2.13: contiguous)
        f"{x}.contiguous().median({d})", f"lib.median({x}.contiguous(), {d}, {k})",
        f"{x}.contiguous().nanmedian({d})"]))


@st.composite
def one_output(draw, names):
    x = draw(st.sampled_from(names))
    call = draw(_call(x))
    pick = draw(st.sampled_from(["[0]", "[1]", "[-1]"]))
    return draw(st.sampled_from([
        f"{call}{pick}", f"{x}.median()", f"lib.median({x})", f"{x}.nanmedian()",
        f"{x}.aminmax().{draw(st.sampled_from(['min', 'max']))}",
        f"lib.max({x}, 0).indices", f"{x}.contiguous().median({draw(st.integers(-1, 1))}).values"]))


@st.composite
def both_outputs(draw, names):
    x = draw(st.sampled_from(names))
    n = len(names)
    a, b = f"a{n}", f"b{n}"
    lines = [f"{a}, {b} = {draw(_call(x))}"]
    for _ in range(draw(st.integers(1, 3))):
        out = draw(st.sampled_from([a, b]))
        lines.append(draw(st.sampled_from([
            f"{out}.retain_grad()", f"{out}.mul_(2)", f"{out}.add_(1)", f"{out}.zero_()",
            f"{out}[0] = 5.", f"r{n} = {out}.grad_fn.name() if {out}.grad_fn else None",
            f"r{n} = ({out}.is_leaf, {out}.requires_grad, {out}._version)",
            f"r{n} = [(f and f.name(), i) for f, i in {out}.grad_fn.next_functions] if {out}.grad_fn else None",
            f"{out}.sum().backward()", f"({a}.sum() + {b}.sum()).backward()",
            f"({a} * {b}).sum().backward(retain_graph=True)",
            f"g{n} = lib.autograd.grad({out}.sum(), [{x}], allow_unused=True)",
            f"h{n} = {out}.register_hook(lambda g: g * 3)"])))
    return lines


EXPRESSIONS = [one_output]
STATEMENTS = [both_outputs]
IGNORED = set()
