"""The catalog of every op autograd_lesson offers, written once for both libraries.

Each :class:`OpCase` holds a callable ``fn(lib, *tensors)`` that runs unchanged with
``lib=autograd_lesson`` and ``lib=torch`` (both have tensor methods, ``lib.nn.functional``,
``lib.where`` ...), the specs of its tensor inputs and, where it is simple, a NumPy reference
for the forward values. ``tests/test_ops.py`` checks values and (second-order) gradients
without torch; ``tests/test_parity_ops.py`` runs every case against torch for every
requires_grad combination of its inputs.

Integer targets, index lists and bool masks are built inside ``fn`` (``lib.tensor([0, 2, 1])``,
``x > 0``): they never require grad, so they are not inputs.
"""
import itertools
import zlib
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np


@dataclass(frozen=True)
class Arg:
    """One tensor input: its shape and the domain its values are drawn from.

    ``real``: standard normal; ``positive``: |N(0,1)| + 0.5 (log, sqrt, divisors, pow bases);
    ``unit``: uniform in (0.05, 0.95) (probabilities, BCE targets).
    """

    shape: tuple
    domain: str = "real"
    dtype: Optional[str] = None  # fixed dtype, whatever dtype the case is run in


@dataclass(frozen=True)
class OpCase:
    """One way of calling an op: ``fn(lib, *inputs)`` on inputs drawn as ``args`` describe."""

    name: str
    fn: Callable
    args: tuple
    ref: Optional[Callable] = None  # NumPy forward: ref(*arrays) -> array
    random: bool = False            # output depends on the RNG (dropout): compare structure only
    params: bool = False            # fn makes leaves of its own (nn.RNNCell's parameters)
    tags: tuple = field(default=())  # "float32 output": too coarse for finite differences;
    # "overwritten values": a value a later duplicate index overwrites still gets grad[index]
    # (PyTorch's formula), which is no derivative: no finite differences

    def rg_combinations(self):
        """Every requires_grad pattern of the inputs with at least one leaf requiring grad."""
        combos = itertools.product((False, True), repeat=len(self.args))
        return [c for c in combos if any(c) or self.params]

    def arrays(self):
        """The case's inputs as float64 arrays, the same on every call (seeded by the name)."""
        rs = np.random.RandomState(zlib.crc32(self.name.encode()))
        return [_draw(rs, arg) for arg in self.args]


def _draw(rs, arg):
    if arg.domain == "real":
        return np.asarray(rs.randn(*arg.shape))
    if arg.domain == "positive":
        return np.abs(rs.randn(*arg.shape)) + 0.5
    if arg.domain == "unit":
        return rs.uniform(0.05, 0.95, size=arg.shape)
    raise ValueError(f"unknown domain {arg.domain!r}")


def make_inputs(lib, case, requires_grad, dtype="float64", arrays=None):
    """Leaf tensors of ``lib`` holding the case's inputs (or ``arrays``), cast to ``dtype``
    unless an input fixes its own, with the given requires_grad flags."""
    arrays = case.arrays() if arrays is None else arrays
    return [lib.tensor(np.asarray(a, dtype=arg.dtype or dtype), requires_grad=rg)
            for a, arg, rg in zip(arrays, case.args, requires_grad)]


# -- inputs used below ------------------------------------------------------------------------
X = Arg((3, 4))
P = Arg((3, 4), "positive")
U = Arg((3, 4), "unit")
W = Arg((4, 5))
V = Arg((4,))
TARGET = [0, 2, 1]


def _softmax(a, axis):
    e = np.exp(a - a.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _log_softmax(a, axis):
    return np.log(_softmax(a, axis))


def _sigmoid(a):
    return 1 / (1 + np.exp(-a))


def _rnn_params():
    rs = np.random.RandomState(7)
    return [rs.uniform(-0.5, 0.5, size=s) for s in ((5, 4), (5, 5), (5,), (5,))]


def _rnn_cell(lib, x, h):
    """``nn.RNNCell(4, 5)`` with fixed parameters (copied in under no_grad), in x's dtype."""
    cell = lib.nn.RNNCell(4, 5)
    if x.dtype == lib.float64:
        cell = cell.double()
    with lib.no_grad():
        for p, values in zip(cell.parameters(), _rnn_params()):
            p.copy_(lib.tensor(values))
    return cell(x, h)


def _rnn_ref(x, h):
    w_ih, w_hh, b_ih, b_hh = _rnn_params()
    return np.tanh(h @ w_hh.T + b_hh + x @ w_ih.T + b_ih)


def _linear_module(lib, x):
    """``nn.Linear(4, 5)`` with fixed parameters: TBackward0 then AddmmBackward0."""
    layer = lib.nn.Linear(4, 5)
    if x.dtype == lib.float64:
        layer = layer.double()
    w_ih, _, b_ih, _ = _rnn_params()
    with lib.no_grad():
        layer.weight.copy_(lib.tensor(w_ih))
        layer.bias.copy_(lib.tensor(b_ih))
    return layer(x)


def _dropout_train(lib, x):
    lib.manual_seed(0)
    return lib.nn.functional.dropout(x, 0.5, training=True)


def _put(x, key, v, accumulate=False):
    """NumPy's index_put: ``out[key] = v`` (the last duplicate wins) or ``+=`` every value."""
    out = x.copy()
    if accumulate:
        np.add.at(out, tuple(key) if isinstance(key, tuple) else key,
                  np.broadcast_to(v, out[key].shape))
    else:
        out[key] = v
    return out


def _setitem(t, key, v):
    t[key] = v
    return t


def _case(name, fn, *args, **kw):
    return OpCase(name, fn, tuple(args), **kw)


CASES = [
    # arithmetic with tensors and Python scalars ----------------------------------------------
    _case("add", lambda lib, x, y: x + y, X, X, ref=np.add),
    _case("add_alpha", lambda lib, x, y: x.add(y, alpha=2), X, X, ref=lambda x, y: x + 2 * y),
    _case("add_scalar", lambda lib, x: x + 2, X, ref=lambda x: x + 2),
    _case("radd_scalar", lambda lib, x: 2.5 + x, X, ref=lambda x: 2.5 + x),
    _case("sub", lambda lib, x, y: x - y, X, X, ref=np.subtract),
    _case("sub_scalar", lambda lib, x: x - 2, X, ref=lambda x: x - 2),
    _case("rsub_scalar", lambda lib, x: 2 - x, X, ref=lambda x: 2 - x),
    _case("mul", lambda lib, x, y: x * y, X, X, ref=np.multiply),
    _case("mul_int", lambda lib, x: x * 2, X, ref=lambda x: x * 2),
    _case("mul_float", lambda lib, x: x * 2.5, X, ref=lambda x: x * 2.5),
    _case("rmul_int", lambda lib, x: 3 * x, X, ref=lambda x: 3 * x),
    _case("mul_0dim", lambda lib, x, s: x * s, X, Arg(()), ref=np.multiply),
    _case("mul_0dim_float64", lambda lib, x, s: x * s, X, Arg((), dtype="float64"),
          ref=np.multiply),  # a 0-dim tensor does not promote a dimensioned one
    _case("add_float64", lambda lib, x, y: x + y, X, Arg((3, 4), dtype="float64"), ref=np.add),
    _case("div", lambda lib, x, y: x / y, X, P, ref=np.divide),
    _case("div_method", lambda lib, x, y: x.div(y), X, P, ref=np.divide),
    _case("sub_alpha", lambda lib, x, y: x.sub(y, alpha=0.5), X, X, ref=lambda x, y: x - 0.5 * y),
    _case("div_int", lambda lib, x: x / 2, X, ref=lambda x: x / 2),
    _case("div_float", lambda lib, x: x / 2.5, X, ref=lambda x: x / 2.5),
    _case("rdiv_int", lambda lib, x: 2 / x, P, ref=lambda x: 2 / x),
    _case("neg", lambda lib, x: -x, X, ref=np.negative),
    _case("reciprocal", lambda lib, x: x.reciprocal(), P, ref=np.reciprocal),
    _case("pow_int", lambda lib, x: x ** 2, X, ref=lambda x: x ** 2),
    _case("pow_int3", lambda lib, x: x ** 3, X, ref=lambda x: x ** 3),
    _case("pow_float", lambda lib, x: x ** 0.5, P, ref=np.sqrt),
    _case("pow_negative", lambda lib, x: x.pow(-1.5), P, ref=lambda x: x ** -1.5),
    _case("pow_tensor", lambda lib, x, e: x ** e, P, X, ref=np.power),
    _case("torch_pow", lambda lib, x: lib.pow(x, 3), X, ref=lambda x: x ** 3),
    _case("rpow_int", lambda lib, x: 2 ** x, X, ref=lambda x: 2.0 ** x),
    _case("rpow_float", lambda lib, x: 2.5 ** x, X, ref=lambda x: 2.5 ** x),
    # elementwise functions -------------------------------------------------------------------
    _case("exp", lambda lib, x: x.exp(), X, ref=np.exp),
    _case("torch_exp", lambda lib, x: lib.exp(x), X, ref=np.exp),
    _case("log", lambda lib, x: x.log(), P, ref=np.log),
    _case("tanh", lambda lib, x: x.tanh(), X, ref=np.tanh),
    _case("sigmoid", lambda lib, x: x.sigmoid(), X, ref=_sigmoid),
    _case("torch_sigmoid", lambda lib, x: lib.sigmoid(x), X, ref=_sigmoid),
    _case("relu", lambda lib, x: x.relu(), X, ref=lambda x: np.maximum(x, 0)),
    _case("F_relu", lambda lib, x: lib.nn.functional.relu(x), X, ref=lambda x: np.maximum(x, 0)),
    _case("leaky_relu", lambda lib, x: lib.nn.functional.leaky_relu(x, 0.2), X,
          ref=lambda x: np.where(x > 0, x, 0.2 * x)),
    _case("leaky_relu_default", lambda lib, x: lib.nn.functional.leaky_relu(x), X,
          ref=lambda x: np.where(x > 0, x, 0.01 * x)),
    _case("sqrt", lambda lib, x: x.sqrt(), P, ref=np.sqrt),
    _case("abs", lambda lib, x: x.abs(), X, ref=np.abs),
    _case("clamp", lambda lib, x: x.clamp(-0.5, 0.5), X, ref=lambda x: np.clip(x, -0.5, 0.5)),
    _case("clamp_min", lambda lib, x: x.clamp(min=0), X, ref=lambda x: np.maximum(x, 0)),
    _case("clamp_max", lambda lib, x: x.clamp(max=0.5), X, ref=lambda x: np.minimum(x, 0.5)),
    # reductions ------------------------------------------------------------------------------
    _case("sum", lambda lib, x: x.sum(), X, ref=np.sum),
    _case("sum_dim", lambda lib, x: x.sum(dim=1), X, ref=lambda x: x.sum(1)),
    _case("sum_dim_keepdim", lambda lib, x: x.sum(dim=0, keepdim=True), X,
          ref=lambda x: x.sum(0, keepdims=True)),
    _case("sum_dims", lambda lib, x: x.sum(dim=(0, 1)), X, ref=np.sum),
    _case("sum_neg_dim", lambda lib, x: x.sum(-1), X, ref=lambda x: x.sum(-1)),
    _case("sum_0dim", lambda lib, s: s.sum(), Arg(()), ref=np.sum),
    _case("torch_sum_dim", lambda lib, x: lib.sum(x, 1), X, ref=lambda x: x.sum(1)),
    _case("mean", lambda lib, x: x.mean(), X, ref=np.mean),
    _case("mean_dims", lambda lib, x: x.mean(dim=(0, -1)), X, ref=np.mean),
    _case("mean_dim", lambda lib, x: x.mean(dim=1), X, ref=lambda x: x.mean(1)),
    _case("mean_dim_keepdim", lambda lib, x: x.mean(dim=0, keepdim=True), X,
          ref=lambda x: x.mean(0, keepdims=True)),
    _case("max", lambda lib, x: x.max(), X, ref=np.max),
    _case("max_dim", lambda lib, x: x.max(dim=1).values, X, ref=lambda x: x.max(1)),
    _case("max_neg_dim", lambda lib, x: x.max(-1)[0], X, ref=lambda x: x.max(-1)),
    _case("max_dim_keepdim", lambda lib, x: x.max(0, keepdim=True)[0], X,
          ref=lambda x: x.max(0, keepdims=True)),
    _case("amax", lambda lib, x: x.amax(), X, ref=np.max),
    _case("amax_dim", lambda lib, x: x.amax(1), X, ref=lambda x: x.max(1)),
    _case("amin_dims_keepdim", lambda lib, x: x.amin((0, -1), keepdim=True), X,
          ref=lambda x: x.min((0, 1), keepdims=True)),
    _case("torch_amin_dim", lambda lib, x: lib.amin(x, dim=[0]), X, ref=lambda x: x.min(0)),
    _case("norm", lambda lib, x: x.norm(), X, ref=np.linalg.norm),
    _case("norm_dim", lambda lib, x: x.norm(dim=1), X, ref=lambda x: np.linalg.norm(x, axis=1)),
    _case("norm_dim_keepdim", lambda lib, x: x.norm(dim=0, keepdim=True), X,
          ref=lambda x: np.linalg.norm(x, axis=0, keepdims=True)),
    _case("norm_p_none", lambda lib, x: x.norm(None), X, ref=np.linalg.norm),
    _case("norm_p1", lambda lib, x: x.norm(p=1), X, ref=lambda x: np.abs(x).sum()),
    _case("norm_p1_5_dim", lambda lib, x: x.norm(1.5, 1), X,
          ref=lambda x: (np.abs(x) ** 1.5).sum(1) ** (1 / 1.5)),
    _case("norm_p3_dim_keepdim", lambda lib, x: x.norm(3, 0, True), X,
          ref=lambda x: (np.abs(x) ** 3).sum(0, keepdims=True) ** (1 / 3)),
    _case("norm_p0_5", lambda lib, x: x.norm(0.5), X, ref=lambda x: np.sqrt(np.abs(x)).sum() ** 2),
    _case("norm_p_minus_1_dim", lambda lib, x: lib.norm(x, -1, dim=(0,)), X,
          ref=lambda x: (1 / np.abs(x)).sum(0) ** -1),
    _case("norm_inf_dim", lambda lib, x: x.norm(float("inf"), 1), X, ref=lambda x: np.abs(x).max(1)),
    _case("norm_minus_inf", lambda lib, x: x.norm(-float("inf")), X, ref=lambda x: np.abs(x).min()),
    # matrix products -------------------------------------------------------------------------
    _case("matmul_2d_2d", lambda lib, x, w: x @ w, X, W, ref=np.matmul),
    _case("matmul_2d_1d", lambda lib, x, v: x @ v, X, V, ref=np.matmul),
    _case("matmul_1d_1d", lambda lib, u, v: u @ v, V, V, ref=np.matmul),
    _case("matmul_1d_2d", lambda lib, v, w: v @ w, V, W, ref=np.matmul),
    _case("torch_matmul", lambda lib, x, w: lib.matmul(x, w), X, W, ref=np.matmul),
    _case("mm", lambda lib, x, w: lib.mm(x, w), X, W, ref=np.matmul),
    _case("mm_transposed_left", lambda lib, x, w: x.t().mm(w), Arg((4, 3)), W,
          ref=lambda x, w: x.T @ w),  # a column-major mat1: its gradient comes transposed
    _case("mv", lambda lib, x, v: lib.mv(x, v), X, V, ref=np.matmul),
    _case("mv_method", lambda lib, x, v: x.mv(v), X, V, ref=np.matmul),
    _case("dot", lambda lib, u, v: lib.dot(u, v), V, V, ref=np.dot),
    _case("dot_method", lambda lib, u, v: u.dot(v), V, V, ref=np.dot),
    _case("bmm", lambda lib, x, y: lib.bmm(x, y), Arg((2, 3, 4)), Arg((2, 4, 5)), ref=np.matmul),
    _case("bmm_method", lambda lib, x, y: x.bmm(y), Arg((2, 3, 4)), Arg((2, 4, 5)),
          ref=np.matmul),
    # matmul of N-D operands: folded into one mm/mv, or expanded batches and one bmm, as
    # ATen's matmul decides (by requires_grad and strides)
    _case("matmul_3d_3d", lambda lib, x, y: x @ y, Arg((2, 3, 4)), Arg((2, 4, 5)), ref=np.matmul),
    _case("matmul_3d_2d", lambda lib, x, w: x @ w, Arg((2, 3, 4)), W, ref=np.matmul),
    _case("matmul_2d_3d", lambda lib, x, y: x @ y, X, Arg((2, 4, 5)), ref=np.matmul),
    _case("matmul_3d_1d", lambda lib, x, v: x @ v, Arg((2, 3, 4)), V, ref=np.matmul),
    _case("matmul_1d_3d", lambda lib, v, y: v @ y, V, Arg((2, 4, 5)), ref=np.matmul),
    _case("matmul_4d_3d_broadcast", lambda lib, x, y: lib.matmul(x, y), Arg((2, 1, 3, 4)),
          Arg((3, 4, 2)), ref=np.matmul),
    _case("matmul_4d_4d_broadcast", lambda lib, x, y: x.matmul(y), Arg((2, 1, 3, 4)),
          Arg((1, 2, 4, 2)), ref=np.matmul),
    _case("matmul_1d_4d", lambda lib, v, y: v @ y, V, Arg((2, 3, 4, 5)), ref=np.matmul),
    _case("matmul_4d_1d", lambda lib, x, v: x @ v, Arg((2, 3, 2, 4)), V, ref=np.matmul),
    _case("matmul_2d_4d", lambda lib, x, y: x @ y, X, Arg((2, 1, 4, 5)), ref=np.matmul),
    _case("matmul_noncontiguous_3d_1d", lambda lib, x, v: x.transpose(0, 1) @ v,
          Arg((3, 2, 4)), V, ref=lambda x, v: x.transpose(1, 0, 2) @ v),
    _case("matmul_noncontiguous_3d_2d", lambda lib, x, w: x.transpose(0, 1) @ w,
          Arg((3, 2, 4)), W, ref=lambda x, w: x.transpose(1, 0, 2) @ w),
    _case("matmul_batch_of_one_3d", lambda lib, x, y: x @ y, Arg((1, 3, 4)), Arg((2, 4, 5)),
          ref=np.matmul),  # squeezed to a matrix first when it requires grad
    _case("matmul_3d_batch_of_one", lambda lib, x, y: x @ y, Arg((2, 3, 4)), Arg((1, 4, 5)),
          ref=np.matmul),
    _case("matmul_expanded_3d_3d", lambda lib, x, y: x.expand(3, 3, 4) @ y,
          Arg((1, 3, 4)), Arg((3, 4, 2)), ref=lambda x, y: np.broadcast_to(x, (3, 3, 4)) @ y),
    _case("addmm", lambda lib, b, x, w: lib.addmm(b, x, w), Arg((5,)), X, W,
          ref=lambda b, x, w: b + x @ w),
    _case("addmm_alpha_beta", lambda lib, b, x, w: lib.addmm(b, x, w, beta=0.5, alpha=2),
          Arg((3, 5)), X, W, ref=lambda b, x, w: 0.5 * b + 2 * (x @ w)),
    _case("linear", lambda lib, x, w, b: lib.nn.functional.linear(x, w, b), X, Arg((5, 4)),
          Arg((5,)), ref=lambda x, w, b: x @ w.T + b),
    _case("linear_no_bias", lambda lib, x, w: lib.nn.functional.linear(x, w), X, Arg((5, 4)),
          ref=lambda x, w: x @ w.T),
    # shape ops -------------------------------------------------------------------------------
    _case("t", lambda lib, x: x.t(), X, ref=np.transpose),
    _case("reshape_alias", lambda lib, x: x.t().reshape(2, 6), X,
          ref=lambda x: x.T.reshape(2, 6)),  # non-contiguous, still viewable: _reshape_alias
    _case("T", lambda lib, x: x.T, X, ref=np.transpose),  # PermuteBackward0, not TBackward0
    _case("permute", lambda lib, x: x.permute(1, -1, 0), Arg((2, 3, 4)),
          ref=lambda x: x.transpose(1, 2, 0)),
    _case("transpose", lambda lib, x: x.transpose(0, 1), X, ref=np.transpose),
    _case("reshape", lambda lib, x: x.reshape(4, 3), X, ref=lambda x: x.reshape(4, 3)),
    _case("reshape_noncontiguous", lambda lib, x: x.t().reshape(12), X,
          ref=lambda x: x.T.reshape(12)),
    _case("view", lambda lib, x: x.view(12), X, ref=lambda x: x.reshape(12)),
    _case("view_infer", lambda lib, x: x.view(-1, 6), X, ref=lambda x: x.reshape(2, 6)),
    _case("flatten", lambda lib, x: x.flatten(), X, ref=np.ravel),
    _case("expand", lambda lib, c: c.expand(3, 4), Arg((3, 1)),
          ref=lambda c: np.broadcast_to(c, (3, 4))),
    _case("unsqueeze", lambda lib, x: x.unsqueeze(0), X, ref=lambda x: x[None]),
    _case("unsqueeze_neg", lambda lib, x: x.unsqueeze(-1), X, ref=lambda x: x[..., None]),
    _case("unsqueeze_0dim", lambda lib, s: s.unsqueeze(0), Arg(()), ref=lambda s: s[None]),
    _case("expand_as", lambda lib, c, x: c.expand_as(x), Arg((1, 4)), X,
          ref=lambda c, x: np.broadcast_to(c, (3, 4))),
    _case("squeeze_dim", lambda lib, x: x.squeeze(1), Arg((3, 1, 4)), ref=lambda x: x[:, 0]),
    _case("squeeze_all", lambda lib, x: x.squeeze(), Arg((3, 1, 4)), ref=np.squeeze),
    _case("squeeze_size_not_1", lambda lib, x: x.squeeze(0), X, ref=lambda x: x),
    _case("index_int", lambda lib, x: x[0], X, ref=lambda x: x[0]),
    _case("index_negative", lambda lib, x: x[-1], X, ref=lambda x: x[-1]),
    _case("index_slice", lambda lib, x: x[1:3], X, ref=lambda x: x[1:3]),
    _case("index_slice_negative", lambda lib, x: x[-2:], X, ref=lambda x: x[-2:]),
    _case("index_slice_step", lambda lib, x: x[::2], X, ref=lambda x: x[::2]),
    _case("select", lambda lib, x: x.select(1, -2), X, ref=lambda x: x[:, -2]),
    _case("select_negative_dim", lambda lib, x: x.select(-1, 1), X, ref=lambda x: x[:, 1]),
    _case("narrow", lambda lib, x: x.narrow(1, 1, 2), X, ref=lambda x: x[:, 1:3]),
    _case("index_int_list", lambda lib, x: x[[0, 2]], X, ref=lambda x: x[[0, 2]]),
    _case("index_bool_mask", lambda lib, x: x[x > 0], X, ref=lambda x: x[x > 0]),
    _case("index_column", lambda lib, x: x[:, 0], X, ref=lambda x: x[:, 0]),
    _case("index_int_slice", lambda lib, x: x[1, 1:3], X, ref=lambda x: x[1, 1:3]),
    _case("index_slice_int", lambda lib, x: x[0:2, 1], X, ref=lambda x: x[0:2, 1]),
    # index_put_ with duplicate indices: the last write wins, every duplicate gets a gradient
    _case("index_put_duplicates", lambda lib, x, v: (x * 1).index_put_((lib.tensor([2, 0, 2]),), v),
          X, Arg((3, 4)), ref=lambda x, v: _put(x, [2, 0, 2], v), tags=("overwritten values",)),
    _case("index_put_duplicates_broadcast", lambda lib, x, v: x.index_put((lib.tensor([1, 1]),), v),
          X, V, ref=lambda x, v: _put(x, [1, 1], v), tags=("overwritten values",)),
    _case("index_put_accumulate", lambda lib, x, v: (x * 1).index_put_(
        (lib.tensor([2, 0, 2]),), v, accumulate=True), X, V, ref=lambda x, v: _put(x, [2, 0, 2], v, True)),
    _case("index_put_accumulate_pairs", lambda lib, x, v: x.index_put(
        (lib.tensor([0, 0]), lib.tensor([1, 1])), v, accumulate=True), X, Arg(()),
        ref=lambda x, v: _put(x, ([0, 0], [1, 1]), v, True)),
    _case("setitem_duplicates", lambda lib, x, v: _setitem(x * 1, [1, 1], v), X, V,
          ref=lambda x, v: _put(x, [1, 1], v), tags=("overwritten values",)),
    _case("cat", lambda lib, x, y: lib.cat([x, y]), X, X, ref=lambda x, y: np.concatenate([x, y])),
    _case("cat_dim1", lambda lib, x, y: lib.cat([x, y], dim=1), X, Arg((3, 2)),
          ref=lambda x, y: np.concatenate([x, y], 1)),
    _case("cat_three", lambda lib, x, y, z: lib.cat([x, y, z], dim=-1), X, Arg((3, 1)), X,
          ref=lambda x, y, z: np.concatenate([x, y, z], -1)),
    _case("stack", lambda lib, x, y: lib.stack([x, y]), X, X, ref=lambda x, y: np.stack([x, y])),
    _case("stack_dim1", lambda lib, x, y: lib.stack([x, y], dim=1), X, X,
          ref=lambda x, y: np.stack([x, y], 1)),
    _case("where", lambda lib, x, y: lib.where(x > 0, x, y), X, X,
          ref=lambda x, y: np.where(x > 0, x, y)),
    _case("where_scalar", lambda lib, x: lib.where(x > 0, x, 0.0), X,
          ref=lambda x: np.where(x > 0, x, 0.0)),
    _case("clone", lambda lib, x: x.clone(), X, ref=np.copy),
    _case("to_float32", lambda lib, x: x.float() * 1, X, ref=lambda x: x.astype(np.float32),
          tags=("float32 output",)),  # ToCopyBackward0; too coarse for finite differences
    # nn ops and losses -----------------------------------------------------------------------
    _case("softmax", lambda lib, x: x.softmax(dim=1), X, ref=lambda x: _softmax(x, 1)),
    _case("softmax_dim0", lambda lib, x: lib.softmax(x, 0), X, ref=lambda x: _softmax(x, 0)),
    _case("F_softmax", lambda lib, x: lib.nn.functional.softmax(x, dim=-1), X,
          ref=lambda x: _softmax(x, -1)),
    _case("log_softmax", lambda lib, x: x.log_softmax(dim=1), X,
          ref=lambda x: _log_softmax(x, 1)),
    _case("mse_loss", lambda lib, x, t: lib.nn.functional.mse_loss(x, t), X, X,
          ref=lambda x, t: np.mean((x - t) ** 2)),
    _case("mse_loss_sum", lambda lib, x, t: lib.nn.functional.mse_loss(x, t, reduction="sum"),
          X, X, ref=lambda x, t: np.sum((x - t) ** 2)),
    _case("mse_loss_none", lambda lib, x, t: lib.nn.functional.mse_loss(x, t, reduction="none"),
          X, X, ref=lambda x, t: (x - t) ** 2),
    _case("binary_cross_entropy", lambda lib, p, t: lib.nn.functional.binary_cross_entropy(p, t),
          U, U, ref=lambda p, t: np.mean(-(t * np.log(p) + (1 - t) * np.log(1 - p)))),
    _case("binary_cross_entropy_with_logits",
          lambda lib, x, t: lib.nn.functional.binary_cross_entropy_with_logits(x, t), X, U,
          ref=lambda x, t: np.mean(-(t * np.log(_sigmoid(x)) + (1 - t) * np.log(1 - _sigmoid(x))))),
    _case("cross_entropy", lambda lib, x: lib.nn.functional.cross_entropy(x, lib.tensor(TARGET)),
          X, ref=lambda x: -np.mean(_log_softmax(x, 1)[range(3), TARGET])),
    _case("cross_entropy_sum",
          lambda lib, x: lib.nn.functional.cross_entropy(x, lib.tensor(TARGET), reduction="sum"),
          X, ref=lambda x: -np.sum(_log_softmax(x, 1)[range(3), TARGET])),
    _case("nll_loss", lambda lib, x: lib.nn.functional.nll_loss(x, lib.tensor(TARGET)), X,
          ref=lambda x: -np.mean(x[range(3), TARGET])),
    _case("nll_loss_none",
          lambda lib, x: lib.nn.functional.nll_loss(x, lib.tensor(TARGET), reduction="none"), X,
          ref=lambda x: -x[range(3), TARGET]),
    _case("cross_entropy_ignore_index",
          lambda lib, x: lib.nn.functional.cross_entropy(x, lib.tensor([0, -100, 1])), X,
          ref=lambda x: -np.mean(_log_softmax(x, 1)[[0, 2], [0, 1]])),
    _case("binary_cross_entropy_sum",
          lambda lib, p, t: lib.nn.functional.binary_cross_entropy(p, t, reduction="sum"), U, U,
          ref=lambda p, t: np.sum(-(t * np.log(p) + (1 - t) * np.log(1 - p)))),
    _case("dropout_train", _dropout_train, X, random=True),
    _case("dropout_eval", lambda lib, x: lib.nn.functional.dropout(x, 0.5, training=False), X,
          ref=lambda x: x),
    _case("rnn_cell", _rnn_cell, X, Arg((3, 5)), ref=_rnn_ref, params=True),
    _case("rnn_cell_unbatched", _rnn_cell, Arg((4,)), Arg((5,)), ref=_rnn_ref, params=True),
    _case("linear_module", _linear_module, X, params=True,
          ref=lambda x: x @ _rnn_params()[0].T + _rnn_params()[2]),
    # broadcasting: gradients are summed back to each input's shape --------------------------
    _case("mul_broadcast_row", lambda lib, x, y: x * y, X, V, ref=np.multiply),
    _case("add_broadcast_outer", lambda lib, x, y: x + y, Arg((3, 1)), Arg((1, 4)), ref=np.add),
    _case("div_broadcast_column", lambda lib, x, y: x / y, X, Arg((3, 1), "positive"),
          ref=np.divide),
    _case("sub_broadcast_row", lambda lib, x, y: x - y, X, V, ref=np.subtract),
    _case("pow_broadcast", lambda lib, x, e: x ** e, P, V, ref=np.power),
    _case("where_broadcast", lambda lib, x, y: lib.where(x > 0, x, y), X, Arg((1, 4)),
          ref=lambda x, y: np.where(x > 0, x, y)),
    # issue 12: the ops a learner who knows PyTorch reaches for ------------------------------
    _case("min", lambda lib, x: x.min(), X, ref=np.min),
    _case("torch_min", lambda lib, x: lib.min(x), X, ref=np.min),
    _case("min_dim", lambda lib, x: x.min(dim=1).values, X, ref=lambda x: x.min(1)),
    _case("min_neg_dim_keepdim", lambda lib, x: x.min(-1, keepdim=True)[0], X,
          ref=lambda x: x.min(-1, keepdims=True)),
    _case("torch_min_dim", lambda lib, x: lib.min(x, 0).values, X, ref=lambda x: x.min(0)),
    _case("maximum", lambda lib, x, y: lib.maximum(x, y), X, X, ref=np.maximum),
    _case("minimum", lambda lib, x, y: lib.minimum(x, y), X, X, ref=np.minimum),
    _case("maximum_method_broadcast", lambda lib, x, y: x.maximum(y), X, V, ref=np.maximum),
    _case("minimum_method_broadcast", lambda lib, x, y: x.minimum(y), Arg((3, 1)), X,
          ref=np.minimum),
    _case("max_other", lambda lib, x, y: lib.max(x, y), X, X, ref=np.maximum),
    _case("min_other", lambda lib, x, y: x.min(y), X, X, ref=np.minimum),
    _case("square", lambda lib, x: x.square(), X, ref=np.square),
    _case("torch_square", lambda lib, x: lib.square(x), X, ref=np.square),
    _case("square_", lambda lib, x: (x * 1).square_(), X, ref=np.square),
    _case("sin", lambda lib, x: x.sin(), X, ref=np.sin),
    _case("torch_sin", lambda lib, x: lib.sin(x), X, ref=np.sin),
    _case("sin_", lambda lib, x: (x * 1).sin_(), X, ref=np.sin),
    _case("cos", lambda lib, x: x.cos(), X, ref=np.cos),
    _case("torch_cos", lambda lib, x: lib.cos(x), X, ref=np.cos),
    _case("cos_", lambda lib, x: (x * 1).cos_(), X, ref=np.cos),
    _case("masked_fill", lambda lib, x: x.masked_fill(x > 0, 2.0), X,
          ref=lambda x: np.where(x > 0, 2.0, x)),
    _case("masked_fill_broadcast_mask", lambda lib, x: x.masked_fill(lib.tensor([True, False, True, False]), -1),
          X, ref=lambda x: np.where([True, False, True, False], -1.0, x)),
    _case("masked_fill_grows", lambda lib, x: x.masked_fill(lib.tensor([[True], [False]]), 0.5),
          V, ref=lambda x: np.where([[True], [False]], 0.5, x)),  # (2, 4): mask and self broadcast
    _case("masked_fill_tensor_value", lambda lib, x, v: x.masked_fill(x < 0, v), X, Arg(()),
          ref=lambda x, v: np.where(x < 0, v, x)),
    _case("masked_fill_", lambda lib, x, v: (x * 1).masked_fill_(x < 0, v), X, Arg(()),
          ref=lambda x, v: np.where(x < 0, v, x)),
    _case("torch_masked_fill", lambda lib, x: lib.masked_fill(x, x > 0.5, 0.0), X,
          ref=lambda x: np.where(x > 0.5, 0.0, x)),
    _case("gather", lambda lib, x: x.gather(1, lib.tensor([[0, 1], [1, 1], [3, 0]])), X,
          ref=lambda x: np.take_along_axis(x, np.array([[0, 1], [1, 1], [3, 0]]), 1)),
    _case("gather_dim0_smaller", lambda lib, x: lib.gather(x, 0, lib.tensor([[2, 0, 2]])), X,
          ref=lambda x: x[[2, 0, 2], [0, 1, 2]][None]),  # index smaller than self off dim
    _case("gather_int32", lambda lib, x: x.gather(-1, lib.tensor([[3], [3], [0]], dtype=lib.int32)),
          X, ref=lambda x: x[[0, 1, 2], [3, 3, 0]][:, None]),
    _case("index_select", lambda lib, x: x.index_select(1, lib.tensor([0, 2, 2])), X,
          ref=lambda x: x[:, [0, 2, 2]]),
    _case("index_select_dim0", lambda lib, x: lib.index_select(x, 0, lib.tensor([2, 0])), X,
          ref=lambda x: x[[2, 0]]),
    _case("index_select_0dim_index", lambda lib, x: x.index_select(-1, lib.tensor(1)), X,
          ref=lambda x: x[:, [1]]),
    _case("var", lambda lib, x: x.var(), X, ref=lambda x: np.var(x, ddof=1)),
    _case("var_dim", lambda lib, x: x.var(1), X, ref=lambda x: np.var(x, 1, ddof=1)),
    _case("var_dim_keepdim_unbiased", lambda lib, x: x.var(0, False, True), X,
          ref=lambda x: np.var(x, 0, keepdims=True)),
    _case("var_correction", lambda lib, x: x.var(correction=0), X, ref=np.var),
    _case("var_dims_correction", lambda lib, x: x.var((0, -1), correction=2, keepdim=True), X,
          ref=lambda x: np.var(x, ddof=2).reshape(1, 1)),
    _case("var_unbiased_false", lambda lib, x: x.var(unbiased=False), X, ref=np.var),
    _case("var_neg_dim_vector", lambda lib, x: x.var(-1), V, ref=lambda x: np.var(x, ddof=1)),
    _case("torch_var", lambda lib, x: lib.var(x, 0), X, ref=lambda x: np.var(x, 0, ddof=1)),
    _case("std", lambda lib, x: x.std(), X, ref=lambda x: np.std(x, ddof=1)),
    _case("std_dim", lambda lib, x: x.std(0), X, ref=lambda x: np.std(x, 0, ddof=1)),
    _case("std_dim_keepdim_correction", lambda lib, x: x.std(-1, correction=0, keepdim=True), X,
          ref=lambda x: np.std(x, -1, keepdims=True)),
    _case("torch_std", lambda lib, x: lib.std(x, dim=1, unbiased=False), X,
          ref=lambda x: np.std(x, 1)),
    # multi-output (issue 28): both outputs used, so both gradients flow through one node
    _case("var_mean", lambda lib, x: (lambda v, m: v * 2 + m)(*lib.var_mean(x)), X,
          ref=lambda x: np.var(x, ddof=1) * 2 + x.mean()),
    _case("var_mean_dim", lambda lib, x: (lambda v, m: v * m)(*lib.var_mean(x, 1)), X,
          ref=lambda x: np.var(x, 1, ddof=1) * x.mean(1)),
    _case("std_mean_dim_keepdim", lambda lib, x: sum(lib.std_mean(x, 0, keepdim=True)), X,
          ref=lambda x: np.std(x, 0, ddof=1, keepdims=True) + x.mean(0, keepdims=True)),
    _case("aminmax", lambda lib, x: (lambda r: r.min * 2 + r.max)(x.aminmax()), X,
          ref=lambda x: x.min() * 2 + x.max()),
    _case("aminmax_dim", lambda lib, x: (lambda r: r.min - r.max)(lib.aminmax(x, dim=1)), X,
          ref=lambda x: x.min(1) - x.max(1)),
    _case("median", lambda lib, x: x.median(), X, ref=lambda x: np.sort(x, None)[(x.size - 1) // 2]),
    _case("median_dim", lambda lib, x: x.median(1).values, X,
          ref=lambda x: np.sort(x, 1)[:, (x.shape[1] - 1) // 2]),
    _case("nanmedian", lambda lib, x: lib.nanmedian(x), X,
          ref=lambda x: np.sort(x, None)[(x.size - 1) // 2]),
    _case("nanmedian_dim_keepdim", lambda lib, x: x.nanmedian(0, True)[0], X,
          ref=lambda x: np.sort(x, 0)[(x.shape[0] - 1) // 2][None]),
    _case("view_as", lambda lib, x: x.view_as(lib.ones(2, 6)), X, ref=lambda x: x.reshape(2, 6)),
    _case("reshape_as", lambda lib, x: x.t().reshape_as(lib.ones(12)), X,
          ref=lambda x: x.T.reshape(12)),
    _case("type_as", lambda lib, x: x.type_as(lib.ones(1, dtype=lib.float32)) * 1, X,
          ref=lambda x: x.astype(np.float32), tags=("float32 output",)),
    _case("type_as_same", lambda lib, x: x.type_as(x.detach()) * 2, X, ref=lambda x: x * 2),
    _case("cumsum", lambda lib, x: x.cumsum(1), X, ref=lambda x: np.cumsum(x, 1)),
    _case("cumsum_neg_dim", lambda lib, x: lib.cumsum(x, dim=-2), X, ref=lambda x: np.cumsum(x, 0)),
    _case("cumsum_size_1", lambda lib, x: x.cumsum(0), Arg((1, 4)), ref=lambda x: x),
    _case("cumsum_dtype", lambda lib, x: x.cumsum(0, dtype=lib.float32) * 1, X,
          ref=lambda x: np.cumsum(x.astype(np.float32), 0), tags=("float32 output",)),
    _case("flip", lambda lib, x: x.flip(0), X, ref=lambda x: x[::-1]),
    _case("flip_dims", lambda lib, x: lib.flip(x, (-1, 0)), X, ref=lambda x: x[::-1, ::-1]),
    _case("repeat", lambda lib, x: x.repeat(2, 1, 3), X, ref=lambda x: np.tile(x, (2, 1, 3))),
    _case("repeat_ones", lambda lib, x: x.repeat(1, 1), X, ref=lambda x: x),
    _case("repeat_zero", lambda lib, x: x.repeat(0, 2), X, ref=lambda x: np.tile(x, (0, 2))),
    _case("repeat_0dim", lambda lib, s: s.repeat(3), Arg(()), ref=lambda s: np.tile(s, 3)),
    _case("tile", lambda lib, x: x.tile(2), X, ref=lambda x: np.tile(x, 2)),
    _case("torch_tile_longer", lambda lib, x: lib.tile(x, (2, 1, 2)), X,
          ref=lambda x: np.tile(x, (2, 1, 2))),
    _case("roll", lambda lib, x: x.roll(1, 1), X, ref=lambda x: np.roll(x, 1, 1)),
    _case("roll_flat", lambda lib, x: x.roll(-5), X, ref=lambda x: np.roll(x, -5)),
    _case("torch_roll_dims", lambda lib, x: lib.roll(x.t(), (1, 2), (0, -1)), X,
          ref=lambda x: np.roll(x.T, (1, 2), (0, -1))),
    _case("movedim", lambda lib, x: x.movedim(0, -1), Arg((2, 3, 4)),
          ref=lambda x: np.moveaxis(x, 0, -1)),
    _case("torch_moveaxis_lists", lambda lib, x: lib.moveaxis(x, (0, 1), (2, 0)), Arg((2, 3, 4)),
          ref=lambda x: np.moveaxis(x, (0, 1), (2, 0))),
    _case("movedim_0dim", lambda lib, s: s.movedim(0, 0), Arg(()), ref=lambda s: s),
    _case("unflatten", lambda lib, x: x.unflatten(1, (2, -1)), X,
          ref=lambda x: x.reshape(3, 2, 2)),
    _case("torch_unflatten", lambda lib, x: lib.unflatten(x.t(), 0, (2, 1, 2)), X,
          ref=lambda x: x.T.reshape(2, 1, 2, 3)),
    _case("ravel", lambda lib, x: x.ravel(), X, ref=np.ravel),
    _case("torch_ravel_noncontiguous", lambda lib, x: lib.ravel(x.t()), X,
          ref=lambda x: np.ravel(x.T)),
    _case("concat", lambda lib, x, y: lib.concat([x, y], 1), X, Arg((3, 2)),
          ref=lambda x, y: np.concatenate([x, y], 1)),
    _case("concatenate", lambda lib, x, y: lib.concatenate((x, y), dim=-2), X, X,
          ref=lambda x, y: np.concatenate([x, y], 0)),
    _case("hstack", lambda lib, x, y: lib.hstack([x, y]), X, Arg((3, 2)),
          ref=lambda x, y: np.hstack([x, y])),
    _case("hstack_0dim", lambda lib, s, v: lib.hstack((s, v)), Arg(()), V,
          ref=lambda s, v: np.hstack([s, v])),
    _case("vstack_1d", lambda lib, v, x: lib.vstack([v, x]), V, X,
          ref=lambda v, x: np.vstack([v, x])),
    _case("dstack", lambda lib, v, x: lib.dstack([v, x[:1]]), V, X,
          ref=lambda v, x: np.dstack([v, x[:1]])),
    _case("repeat_interleave", lambda lib, x: x.repeat_interleave(2), X,
          ref=lambda x: np.repeat(x, 2)),
    _case("repeat_interleave_dim", lambda lib, x: lib.repeat_interleave(x.t(), 3, dim=-1), X,
          ref=lambda x: np.repeat(x.T, 3, -1)),
    _case("prod", lambda lib, x: x.prod(), X, ref=np.prod),
    _case("prod_dim", lambda lib, x: x.prod(1), X, ref=lambda x: np.prod(x, 1)),
    _case("prod_neg_dim_keepdim", lambda lib, x: lib.prod(x, -2, True), X,
          ref=lambda x: np.prod(x, 0, keepdims=True)),
    _case("prod_0dim", lambda lib, s: s.prod(), Arg(()), ref=np.prod),
    _case("prod_with_a_zero", lambda lib, x: (x * lib.tensor([1., 0., 1., 1.])).prod(), X,
          ref=lambda x: np.prod(x * [1., 0., 1., 1.])),
    _case("prod_dim_with_a_zero", lambda lib, x: (x * lib.tensor([[1.], [0.], [1.]])).prod(0), X,
          ref=lambda x: np.prod(x * [[1.], [0.], [1.]], 0)),
]

CASES_BY_NAME = {case.name: case for case in CASES}
assert len(CASES_BY_NAME) == len(CASES), "case names must be unique"
