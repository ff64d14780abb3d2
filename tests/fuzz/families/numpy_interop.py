"""NumPy interop: ``np.array``/``np.asarray`` of tensors and of lists of tensors (through
``Tensor.__array__``), NumPy functions given tensors (``__array_wrap__``, and ``np.sum`` calling
the tensor's own ``sum(axis=...)``), arrays and tensors mixed in arithmetic, ``from_numpy``."""
from hypothesis import strategies as st

ARRAYS = ["np.ones(2)", "np.arange(3)", "np.array(2.5)", "np.zeros((2, 1), np.float32)",
          "np.array([True, False])", "np.array([1, 2], dtype=np.int32)"]


@st.composite
def to_numpy(draw, names):
    x, y = draw(st.sampled_from(names)), draw(st.sampled_from(names))
    n = len(names)
    value = draw(st.sampled_from([
        f"np.array({x})", f"np.asarray({x})", f"np.array([{x}, {y}])", f"np.asarray([{x}, {x}])",
        f"np.array({x}.detach())", f"np.asarray({x}.detach())", f"np.array([{x}.sum(), {y}.sum()])",
        f"np.asarray([{x}.detach().sum(), 1.5])", f"np.array({x}, dtype=np.float64)",
        f"np.asarray({x}.detach(), dtype=np.int64)", f"{x}.numpy()", f"{x}.detach().numpy()",
        f"np.sum({x})", f"np.mean({x})", f"np.max({x})", f"np.shape({x})", f"np.ndim({x})",
        f"np.array({x}.tolist())", f"np.stack([{x}.detach(), {x}.detach()])",
        f"np.concatenate([np.asarray({x}.detach()).reshape(-1), np.ones(1)])",
        f"float(np.asarray({x}.detach()).sum())", f"np.asarray({x}.detach()).dtype.name",
        f"np.isnan({x}.detach()).tolist()", f"np.allclose({x}.detach(), {y}.detach())"]))
    return [f"a{n} = {value}"]


@st.composite
def from_numpy(draw, names):
    x = draw(st.sampled_from(names))
    return draw(st.sampled_from([
        f"lib.from_numpy({draw(st.sampled_from(ARRAYS))})", "lib.from_numpy([1.0, 2.0])",
        "lib.from_numpy(2.5)", f"lib.from_numpy({x})", f"lib.from_numpy(np.asarray({x}.detach()))",
        f"lib.tensor(np.asarray({x}.detach()))", f"lib.as_tensor({draw(st.sampled_from(ARRAYS))})",
        f"lib.tensor({draw(st.sampled_from(ARRAYS))})",
        f"np.exp({x})", f"np.exp({x}.detach())", f"np.sqrt({x}.detach())",
        f"np.greater({x}.detach(), 0)", f"np.add({x}.detach(), 1)",
        f"{x} + {draw(st.sampled_from(ARRAYS))}", f"{draw(st.sampled_from(ARRAYS))} + {x}",
        f"{x} * np.float64(2.0)", f"np.float32(2.0) * {x}", f"{x} + np.int64(1)"]))


STATEMENTS = [to_numpy]
EXPRESSIONS = [from_numpy]
