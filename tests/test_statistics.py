"""ops/statistics.py: var_mean, std_mean, aminmax, median and nanmedian, each program run
through autograd_lesson and torch by the fuzzer's ``compare`` (exception, warnings, values,
dtypes, ``requires_grad``, leaf and retained gradients), and PyTorch's own
``test_min_max_median_backprops_to_all_values`` asked of both."""
import pytest

import autograd_lesson as al
from fuzz.compare import compare

pytestmark = pytest.mark.parity

X = "x = lib.tensor([[1., 2., 4.], [3., 3., -1.]], requires_grad=True)"

PROGRAMS = {
    # issue 28: var_mean was missing; one node, both outputs, either or both backpropagated
    "var_mean, both outputs": [X, "v, m = lib.var_mean(x)", "(v * 2 + m).backward()",
                               "n = v.grad_fn.name()", "same = v.grad_fn is m.grad_fn"],
    "var_mean over a dim, the mean only": [X, "v, m = lib.var_mean(x, 1, keepdim=True)",
                                           "m.sum().backward()"],
    "var_mean's overloads": [X, "a = lib.var_mean(x, [0, 1], False, True)",
                             "b = lib.var_mean(x, False)", "c = lib.var_mean(x, dim=0, correction=0)",
                             "d = lib.var_mean(x, unbiased=False)"],
    "var_mean's saves": [X, "v, m = lib.var_mean(x, 0)",
                         "s = (v.grad_fn._saved_dim, v.grad_fn._saved_correction, v.grad_fn._saved_keepdim)",
                         "w = v.grad_fn._saved_self"],
    "var_mean with too few elements warns by its name": [
        "x = lib.tensor([2.], requires_grad=True)", "v, m = lib.var_mean(x)", "v.backward()"],
    "var_mean refuses ints by its name": ["v = lib.var_mean(lib.tensor([1, 2]))"],
    "var_mean is no method": [X, "v = x.var_mean()"],
    "var_mean's bad arguments list its overloads": [X, "v = lib.var_mean(x, 'a')"],
    "var_mean of nothing is nan": ["v, m = lib.var_mean(lib.zeros(2, 0), 1)"],
    # (Welford's running mean, element by element: an inf before a finite value gives nan)
    "var_mean's mean of infinities": [
        "v, m = lib.var_mean(lib.tensor([[float('inf'), 1.], [1., float('inf')]]), 1)"],
    "std_mean, both outputs": [X, "s, m = lib.std_mean(x, 0)", "s.retain_grad()",
                               "(s * m).sum().backward()"],
    "std_mean where the std is 0": ["x = lib.tensor([1., 1.], requires_grad=True)",
                                    "s, m = lib.std_mean(x)", "(s + m).backward()"],
    "an output of var_mean changed in place": [X, "v, m = lib.var_mean(x, 1)", "v.mul_(2)",
                                               "n = v.grad_fn.name()", "(v + m).sum().backward()"],
    "aminmax, both outputs": [X, "lo, hi = x.aminmax()", "(lo * 2 + hi).backward()",
                              "n = hi.grad_fn.name()"],
    "aminmax over a dim shares ties": [X, "r = lib.aminmax(x, dim=1, keepdim=True)",
                                       "(r.min * 2 + r.max * 3).sum().backward()",
                                       "names = (r.min.shape, r.max.dtype)"],
    "aminmax of a bool tensor": ["r = lib.tensor([True, False]).aminmax()"],
    "aminmax of nothing": ["r = lib.tensor([]).aminmax()"],
    "aminmax over an empty dim": ["r = lib.ones(2, 0).aminmax(dim=1)"],
    "aminmax takes keywords only": [X, "r = x.aminmax(0)"],
    "max(dim), its values retained and changed in place": [
        X, "v, i = x.max(1)", "v.retain_grad()", "w = v * 1", "w.add_(1)",
        "w.sum().backward()"],
    # found by the multi_output family: a tensor hook on an output that gets no gradient is
    # called with None (extensions/hooks.py), for a single-output node reached with None too
    "a hook on var_mean's unused output gets None": [
        X, "v, m = lib.var_mean(x)", "h = v.register_hook(lambda g: g * 3)", "m.backward()"],
    "a hook on an unused split output gets None": [
        "x = lib.ones(4, requires_grad=True)", "a, b = x.split(2)", "seen = []",
        "h = a.register_hook(lambda g: seen.append(g))", "b.sum().backward()"],
    "a hook may not replace None": [
        X, "v, m = lib.var_mean(x)", "h = v.register_hook(lambda g: lib.ones(()))", "m.backward()"],
    "retain_grad on the unused output stays None": [
        X, "v, m = lib.var_mean(x)", "v.retain_grad()", "m.backward()"],
    "both aminmax outputs changed in place: the error names max": [
        X, "lo, hi = x.aminmax(dim=0)", "hi.mul_(2)", "lo.add_(1)", "(lo * hi).sum().backward()"],
    "var_mean over a dim of an empty tensor": ["x = lib.zeros(0, 2, requires_grad=True)",
                                               "v, m = lib.var_mean(x, 0)", "(v + m).sum().backward()"],
    # found by a 20,000-program run: max(dim) saves the indices it returns, not a copy
    "max(dim)'s indices changed in place: backward refuses": [
        "x = lib.tensor([-2., -2., -2.], requires_grad=True)", "v, i = x.max(0)", "i.mul_(2)",
        "v.sum().backward()"],
    "median(dim)'s likewise": [X, "v, i = x.median(1)", "i.zero_()", "v.sum().backward()"],
    "the saved indices are the returned ones": [
        X, "r = x.min(1)", "w = (r.values.grad_fn._saved_indices is r.indices,"
        " r.values.grad_fn._saved_indices.grad_fn)"],
    "median of the whole tensor is the lower one": [X, "m = x.median()", "m.backward()"],
    "median over a dim picks the later tie, as ATen's": [
        "x = lib.tensor([[1., 0., 1., 0., 1., 0.], [2., 1., 1., 2., 0., 5.]], requires_grad=True)",
        "v, i = x.median(1)", "v.sum().backward()"],
    "median over dim 0, keepdim": [X, "r = lib.median(x, 0, True)", "r.values.sum().backward()"],
    "median of a NaN is NaN, at the first NaN": [
        "x = lib.tensor([1., float('nan'), float('nan')], requires_grad=True)",
        "v, i = x.median(0)", "m = x.median()", "(v + m).backward()"],
    "nanmedian leaves NaN out": [
        "x = lib.tensor([[1., float('nan'), 0.], [float('nan')] * 3], requires_grad=True)",
        "v, i = x.nanmedian(1)", "m = x.nanmedian()", "(v.sum() + m).backward()"],
    "median of nothing": ["m = lib.tensor([]).median()", "n = lib.tensor([]).nanmedian()"],
    "median of no ints is NaN cast as C++ casts it": [
        "a = lib.zeros(2, 0, dtype=lib.int32).median()", "b = lib.zeros(0).long().nanmedian()",
        "c = lib.zeros(0, dtype=lib.int8).median()", "d = lib.zeros(0).bool().median()"],
    "aminmax over an empty dim given as -1": ["r = lib.ones(2, 0).aminmax(dim=-1)"],
    "median over an empty dim names median": ["r = lib.ones(2, 0).nanmedian(1)"],
    "median over an empty dim: that error before the dtype's": [
        "r = lib.zeros(0).bool().median(0)"],
    "median of bool and complex refuses": ["m = lib.tensor([True]).median()"],
    "median of ints": ["r = lib.tensor([3, 1, 2]).median(0)", "m = lib.tensor([3, 1]).median()"],
}


@pytest.mark.parametrize("lines", list(PROGRAMS.values()), ids=list(PROGRAMS))
def test_matches_torch(torch, lines):
    compare(torch, lines)


@pytest.mark.parametrize("name", ["min", "max", "median", "nanmedian"])
def test_min_max_median_backprops_to_all_values(torch, name):
    """PyTorch's test_autograd.py TestAutogradDeviceType test of the same name: the gradient
    of a whole-tensor min/max/median is shared evenly among the ties, NaNs included."""
    for lib in (al, torch):
        f = getattr(lib, name)
        x1 = lib.tensor([1., 0., 1., 0., 1., 0.], requires_grad=True)
        x2 = lib.tensor([float("nan"), float("nan"), float("nan")], requires_grad=True)
        for x in (x1, x2):
            f(x).backward()
            assert x.grad.sum().item() == pytest.approx(1.0)
            assert (x.grad == 1 / 3).sum().item() == 3
    compare(torch, ["x = lib.tensor([float('nan')] * 3, requires_grad=True)",
                    f"lib.{name}(x).backward()"])


def test_a_hook_sees_none_where_a_custom_backward_returns_none(torch):
    """The engine runs a node reached with no gradient: its tensor hooks get None, in torch."""
    function = ("class Scale(lib.autograd.Function):\n"
                "    @staticmethod\n"
                "    def forward(ctx, x, y):\n"
                "        return x * y\n"
                "    @staticmethod\n"
                "    def backward(ctx, g):\n"
                "        return None, g")
    compare(torch, [function, "x = lib.ones(2, requires_grad=True)",
                    "y = lib.ones(2, requires_grad=True)", "z = x * 2", "seen = []",
                    "h = z.register_hook(lambda g: seen.append(g))",
                    "Scale.apply(z, y).sum().backward()"])
