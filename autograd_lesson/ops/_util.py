"""Helpers shared by ops: PyTorch's type promotion, broadcasting checks, gradient reduction."""
import numpy as np

from .._tensor import DEFAULT_DTYPE, Tensor


_CATEGORY = {"b": 0, "f": 2}  # by dtype.kind: bool < integer (and the rest) < floating


def _category(dtype):
    return _CATEGORY.get(dtype.kind, 1)  # np.issubdtype would cost ~1 us per call


def _scalar_dtype(value):
    if isinstance(value, (bool, np.bool_)):
        return np.dtype(np.bool_)
    if isinstance(value, (int, np.integer)):
        return np.dtype(np.int64)
    return DEFAULT_DTYPE


def result_type(*operands):
    """PyTorch's promotion: dimensioned tensors win over 0-dim tensors, which win over Python
    scalars, unless the lower group is of a higher category (bool < int < float)."""
    groups = [None, None, None]
    for operand in operands:
        if isinstance(operand, Tensor):
            index, dtype = (0 if operand._data.ndim else 1), operand._data.dtype
        else:
            index, dtype = 2, _scalar_dtype(operand)
        groups[index] = dtype if groups[index] is None else np.promote_types(groups[index], dtype)
    result = None
    for dtype in groups:
        if dtype is not None and (result is None or _category(dtype) > _category(result)):
            result = dtype
    return result


def value(operand):
    return operand._data if isinstance(operand, Tensor) else operand


def broadcast_shape(a, b):
    """The broadcast of two shapes, or PyTorch's error naming the first dimension that clashes."""
    shape = []
    for i in range(1, max(len(a), len(b)) + 1):
        da = a[-i] if i <= len(a) else 1
        db = b[-i] if i <= len(b) else 1
        if da != db and da != 1 and db != 1:
            dim = max(len(a), len(b)) - i
            raise RuntimeError(f"The size of tensor a ({da}) must match the size of tensor b "
                               f"({db}) at non-singleton dimension {dim}")
        shape.append(max(da, db) if 1 not in (da, db) else da * db)
    return tuple(reversed(shape))


def check_broadcast(x, y):
    if isinstance(x, Tensor) and isinstance(y, Tensor) and x._data.shape != y._data.shape:
        broadcast_shape(x._data.shape, y._data.shape)


def is_expandable_to(shape, target):
    if len(shape) > len(target):
        return False
    return all(s == 1 or s == t for s, t in zip(reversed(shape), reversed(target)))


def sum_to(grad, shape):
    """Reduce a broadcast gradient back to ``shape`` (PyTorch's ``at::sum_to``), with Tensor ops."""
    shape = tuple(shape)
    if grad.shape == shape:
        return grad
    if not shape:
        return grad.sum()
    lead = grad.ndim - len(shape)
    dims = list(range(lead)) + [lead + i for i, s in enumerate(shape)
                                if s == 1 and grad.shape[lead + i] != 1]
    if dims:
        grad = grad.sum(dim=dims, keepdim=True)
    if lead or grad.shape != shape:
        grad = grad.view(shape)
    return grad


def normalize_dims(dim, ndim):
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    out = []
    for d in dims:
        if not -max(ndim, 1) <= d < max(ndim, 1):
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-max(ndim, 1)}, {max(ndim, 1) - 1}], but got {d})")
        out.append(d % max(ndim, 1))
    return tuple(out)
