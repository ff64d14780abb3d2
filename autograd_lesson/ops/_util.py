"""What the formulas of several families share and which records no node: the tensors a formula
makes outside the graph (PyTorch's ``zeros_like`` / ``new_zeros`` and ``at::scalar_tensor``)."""
import numpy as np

from .._tensor import Tensor


def zeros(shape, like):
    """A fresh zero tensor outside the graph (``zeros_like`` / ``new_zeros`` in a formula)."""
    return Tensor._make(np.zeros(tuple(shape), dtype=like._data.dtype))


def scalar_tensor(number, like):
    """``at::scalar_tensor(number, grad.options())``: a 0-dim constant."""
    return Tensor._make(np.asarray(number, dtype=like._data.dtype))
