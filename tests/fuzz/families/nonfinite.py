"""NaN and ±inf inputs, through every op's forward and backward: leaves that hold them (every
base expression then draws them), and the few ops made for them (``isnan``, ``nan_to_num``,
the whole-tensor extremes, whose gradient goes to the NaN elements in PyTorch)."""
from hypothesis import strategies as st

SHAPES = [(), (1,), (3,), (2, 3), (2, 1)]

# (repr(float('nan')) is "nan", no Python: the source spells the call)
NONFINITE = ["float('nan')", "float('inf')", "-float('inf')"]
FINITE = ["-1.0", "0.0", "0.5", "2.0"]


@st.composite
def nonfinite_leaf(draw, name):
    shape = draw(st.sampled_from([s for s in SHAPES if 0 not in s]))
    pool = st.sampled_from(NONFINITE + FINITE)

    def build(dims):
        if not dims:
            return draw(pool)
        return "[" + ", ".join(build(dims[1:]) for _ in range(dims[0])) + "]"
    dtype = draw(st.sampled_from(["float32", "float64"]))
    extra = ", requires_grad=True" if draw(st.integers(0, 3)) else ""
    return f"{name} = lib.tensor({build(list(shape))}, dtype=lib.{dtype}{extra})"


@st.composite
def nonfinite_ops(draw, names):
    x = draw(st.sampled_from(names))
    d = draw(st.integers(-2, 2))
    return draw(st.sampled_from([
        f"{x}.relu()", f"F.relu({x})", f"{x}.relu_()", f"({x} * 1).relu_()", f"{x}.max()",
        f"{x}.min()", f"lib.max({x})", f"{x}.max({d})[0]", f"{x}.amax({d})", f"{x}.abs()",
        f"{x}.clamp(-1, 1)", f"{x}.sqrt()", f"{x}.exp()", f"{x}.log()", f"{x}.sigmoid()",
        f"{x}.tanh()", f"{x}.norm()", f"{x}.prod()", f"{x}.softmax({d})", f"{x} * 0",
        f"{x} / 0", f"{x} - {x}", f"{x}.maximum({x}.flip(0))", f"F.leaky_relu({x}, 0.1)",
        f"{x}.sum()", f"{x}.mean()", f"{x}.var()", f"{x}.std()", f"{x}.argmax()",
        f"{x} ** 2", f"2 ** {x}", f"{x}.reciprocal()", f"{x}.sin()", f"{x}.square()"]))


LEAVES = [nonfinite_leaf]
EXPRESSIONS = [nonfinite_ops]
