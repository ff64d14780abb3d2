"""NumPy interop (``Tensor.__array__``, ``__array_priority__``, ``__array_wrap__`` in
_tensor_base.py, ``from_numpy`` in _factories.py): each program through autograd_lesson and
torch by the fuzzer's ``compare``, which compares an ndarray outcome's type, dtype, shape and
values, and NumPy's own warnings (the signatures are PyTorch's, so NumPy 2 warns alike)."""
import numpy as np
import pytest

import autograd_lesson as al
from fuzz.compare import compare

pytestmark = pytest.mark.parity

PROGRAMS = {
    # issue 28: an object array of 0-dim tensors before
    "np.asarray of a tensor is a float32 array": ["a = np.asarray(lib.ones(2))"],
    "np.array of a list of 0-dim tensors": ["a = np.array([lib.tensor(1.), lib.tensor(2.)])"],
    "np.asarray of a list of 1-D tensors": ["x = lib.tensor([1, 2])", "a = np.asarray([x, x])"],
    "np.array with a dtype": ["a = np.array(lib.tensor([1.5, 2.]), dtype=np.int64)"],
    "np.array of a tensor that requires grad refuses": [
        "x = lib.ones(2, requires_grad=True)", "a = np.array(x)"],
    "numpy() of a tensor that requires grad refuses": [
        "x = lib.ones(2, requires_grad=True)", "a = x.numpy()"],
    "np.array of one that requires grad under no_grad": [
        "x = lib.ones(2, requires_grad=True)", "with lib.no_grad():\n    a = np.array(x)"],
    "np.sum and np.mean call the tensor's own, which has no axis=": [
        "x = lib.ones(2)", "a = float(np.asarray(x).sum())", "b = np.sum(x)"],
    "np.mean likewise": ["b = np.mean(lib.ones(2))"],
    "a NumPy ufunc of a tensor gives a tensor": [
        "x = lib.tensor([1., 4.])", "a = np.sqrt(x)", "b = np.greater(x, 2)", "c = np.add(x, 1)"],
    "NumPy scalars defer to the tensor": [
        "x = lib.tensor([1., 2.], requires_grad=True)", "a = np.float64(2.0) * x",
        "b = x * np.float32(3)", "c = np.int64(1) + x", "(a + b + c).sum().backward()"],
    "an array on the left of a tensor": ["a = np.ones(2) + lib.ones(2)"],
    "an array on the right of a tensor": ["a = lib.ones(2) + np.ones(2)"],
    "from_numpy of an array shares its dtype": [
        "a = lib.from_numpy(np.arange(3))", "b = lib.from_numpy(np.array(2.5))",
        "c = lib.from_numpy(np.array([True, False]))"],
    "from_numpy of a list refuses": ["a = lib.from_numpy([1.0, 2.0])"],
    "from_numpy of a tensor refuses": ["a = lib.from_numpy(lib.ones(2))"],
    "from_numpy of a number refuses": ["a = lib.from_numpy(2.5)"],
    # matplotlib copy.copy()s what it plots: a leaf on the same memory, as torch's pickling
    "copy.copy of a tensor": [
        "import copy", "t = lib.tensor([1., 2.], requires_grad=True)", "c = copy.copy(t)",
        "d = copy.copy(t * 2)", "e = (d.is_leaf, d.grad_fn, c.is_leaf)", "u = lib.ones(2)",
        "v = copy.copy(u)", "v[0] = 5.", "(c * d).sum().backward()"],
}


@pytest.mark.parametrize("lines", list(PROGRAMS.values()), ids=list(PROGRAMS))
def test_matches_torch(torch, lines):
    compare(torch, lines)


def test_from_numpy_shares_memory():
    array = np.zeros(2, dtype=np.float32)
    t = al.from_numpy(array)
    array[0] = 5
    assert t.tolist() == [5.0, 0.0]


def test_matplotlib_plots_tensors_as_torch_does(torch):
    """Issue 28: plotting a tensor gave matplotlib objects (then a refusal to copy)."""
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib import pyplot as plt
    lines = []
    for lib in (al, torch):
        x = lib.linspace(0, 1, 3)
        (line,) = plt.plot(x, x * 2)
        lines.append(line.get_xydata())
        with pytest.raises(RuntimeError, match="Can't call numpy"):
            plt.plot(x, lib.ones(3, requires_grad=True) * 1)
    plt.close("all")
    assert lines[0].dtype == lines[1].dtype and lines[0].tolist() == lines[1].tolist()
