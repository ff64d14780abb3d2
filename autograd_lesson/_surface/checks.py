"""PyTorch's range and shape checks, with its messages: a number written into a dtype, dims
(``wrap_dim``), broadcasting and ``expand``'s sizes, ``alpha``."""
import math

import numpy as np

from .. import _grad_mode
from .._autograd_errors import SCALAR_TYPES
from .._tensor import Tensor
from .promotion import cpp_name, torch_name


# c10's names of the C++ types in "value cannot be converted to type ... without overflow"
_CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "int64_t",
              "int32": "int", "int16": "int16_t", "int8": "int8_t", "uint8": "uint8_t",
              "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


def check_scalar(number, dtype):
    """A Python number written into a tensor of ``dtype`` (``fill_``, ``masked_fill``, ``full``):
    PyTorch's ``checked_convert`` refuses a complex number with an imaginary part into a real
    type, or a value (a complex one's parts) out of the type's range; inf and nan fit a floating
    type. An int past int64 is read as a uint64, as PyTorch's Number parser reads it.
    Returns the number to write."""
    dtype = np.dtype(dtype)
    number = unpack_number(number)
    if dtype.kind == "b" or not isinstance(number, (int, float, complex, np.number)):
        return number
    parts = (number.real, number.imag) if isinstance(number, (complex, np.complexfloating)) \
        else (number,)
    if dtype.kind == "c":
        fits = dtype.itemsize > 8 or all(_float_fits(p, np.float32) for p in parts)
    else:
        fits = len(parts) == 1 or parts[1] == 0
        number = parts[0]
        if dtype.kind == "f":
            fits = fits and _float_fits(number, dtype)
        else:
            # (a NumPy float16 compared with int64's bounds would warn of overflow)
            fits = fits and math.isfinite(number) and int_fits(
                float(number) if isinstance(number, np.floating) else number, dtype)
    if not fits:
        raise RuntimeError(f"value cannot be converted to type {_CPP_NAMES.get(str(dtype), dtype)}"
                           f" without overflow")
    if dtype.kind == "u" and isinstance(number, (int, np.integer)) and number < 0:
        return int(number) % 2 ** (8 * dtype.itemsize)  # the two's complement PyTorch writes
    return number


def unpack_number(number):
    """A Python number as PyTorch's Number parser reads it: an int past int64 is a uint64
    (only its size matters to the range checks, so a float), else OverflowError."""
    if isinstance(number, int) and not -2 ** 63 <= number < 2 ** 63:
        if number < 0:
            raise OverflowError("can't convert negative int to unsigned")
        if number >= 2 ** 64:
            raise OverflowError("int too big to convert")
        return float(number)
    return number


def _float_fits(number, dtype):
    number = float(number)  # (a NumPy float16 compared with float32's max would overflow)
    return not (math.isfinite(number) and abs(number) > float(np.finfo(dtype).max))


def int_fits(values, dtype):
    """c10's ``overflows`` for an integer ``dtype``: in range, except that an integer may be
    negative down to -max for an unsigned type (it wraps: -1 is 255 in uint8)."""
    info = np.iinfo(dtype)
    integral = np.asarray(values).dtype.kind in "iub" or isinstance(values, int)
    low = -info.max if dtype.kind == "u" and integral else info.min
    with np.errstate(invalid="ignore"):
        return (values >= low) & (values <= info.max)


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


def expand_shape(shape, sizes, dtype=None, prefix="torch."):
    """The shape ``expand(*sizes)`` gives a tensor of ``shape`` (``-1`` keeps a dim), or
    PyTorch's error; ``addmm``'s bias is checked with it too."""
    shape, sizes = tuple(shape), tuple(int(s) for s in sizes)
    if len(sizes) < len(shape):
        kind = (f"{prefix}{torch_name(dtype)}Tensor" if dtype is None or dtype.kind not in "bc"
                else f"CPU{torch_name(dtype)}Type")  # (PyTorch's own naming: no legacy type)
        raise RuntimeError(f"expand({kind}{{{list(shape)}}}, "
                           f"size={list(sizes)}): the number of sizes provided ({len(sizes)}) "
                           f"must be greater or equal to the number of dimensions in the tensor "
                           f"({len(shape)})")
    if not shape and -1 in sizes:
        raise RuntimeError("numel: integer multiplication overflow")  # PyTorch's (0-dim input)
    lead = len(sizes) - len(shape)
    out = []
    for i in reversed(range(len(sizes))):  # PyTorch checks from the last dim
        s = sizes[i]
        if i < lead:
            if s < 0:
                raise RuntimeError(f"The expanded size of the tensor ({s}) isn't allowed in a "
                                   f"leading, non-existing dimension {i}")
            out.append(s)
            continue
        have = shape[i - lead]
        if s == -1:
            s = have
        if have != s and have != 1:
            raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing "
                               f"size ({have}) at non-singleton dimension {i}.  Target sizes: "
                               f"{list(sizes)}.  Tensor sizes: {list(shape)}")
        if s < 0:
            raise RuntimeError("numel: integer multiplication overflow")
        out.append(s)
    return tuple(reversed(out))


def check_broadcast(x, y):
    if (isinstance(x, Tensor) and isinstance(y, Tensor) and x._data.shape != y._data.shape
            and x._data.ndim and y._data.ndim):  # a 0-dim tensor broadcasts to anything
        broadcast_shape(x._data.shape, y._data.shape)


def wrap_dim(dim, ndim, op=None, param="dim", position=1):
    """One dim in ``[0, ndim)``; a 0-dim tensor accepts 0 and -1 (as PyTorch's maybe_wrap_dim).
    The one place dims are checked: every op that takes a dim calls this (``op``, ``param`` and
    ``position`` name it in PyTorch's argument error)."""
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
        where = f"{op}(): argument '{param}' (position {position})" if op else "dim"
        raise TypeError(f"{where} must be int, not {type(dim).__name__}")
    size = max(ndim, 1)
    if not -size <= dim < size:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-size}, {size - 1}], but got {dim})")
    return int(dim) % size


def check_alpha(alpha, dtype):
    """PyTorch's alpha_check for ``add``/``sub`` computing in ``dtype`` (a NumPy dtype)."""
    if isinstance(alpha, (bool, np.bool_)) and dtype.kind != "b":
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if dtype.kind not in "fc" and not isinstance(alpha, (int, np.integer, np.bool_)):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number.")
    if dtype.kind != "c" and isinstance(alpha, (complex, np.complexfloating)):
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a complex "
                           "number.")


def normalize_dims(dim, ndim):
    """A dim or a list of dims, wrapped; a dim named twice is PyTorch's error."""
    if type(dim) is int and 0 <= dim < ndim:  # the common cases, which need no wrapping
        return (dim,)
    if type(dim) in (list, tuple) and len(dim) == 1 and type(dim[0]) is int and 0 <= dim[0] < ndim:
        return (dim[0],)  # (sum_to's)
    dims = (dim,) if isinstance(dim, (int, np.integer)) else tuple(dim)
    out = tuple(wrap_dim(d, ndim) for d in dims)
    for d in out:
        if out.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return out


def check_tensor_list(tensors):
    from .._dtype import typename
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{typename(t)}")


def _check_cat(tensors, dim):
    """PyTorch's cat checks, before NumPy sees the arrays; returns the wrapped dim."""
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    check_tensor_list(tensors)
    for i, t in enumerate(tensors):
        if not t.ndim:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    kept = [(i, t) for i, t in enumerate(tensors) if t.shape != (0,)]  # 1-D empties are skipped
    if not kept:  # only legacy empty 1-D tensors: PyTorch does not even check dim
        return 0
    d = wrap_dim(dim, kept[0][1].ndim)
    first = kept[0][1]
    for i, t in kept[1:]:
        if t.ndim != first.ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {first.ndim} "
                               f"and {t.ndim}")
        for k in range(t.ndim):
            if k != d and t.shape[k] != first.shape[k]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. "
                                   f"Expected size {first.shape[k]} but got size {t.shape[k]} "
                                   f"for tensor number {i} in the list.")
    return d


def _check_entries(shape, entries, bounds=True):
    """Masks fit the dims they cover, the index tensors broadcast, and (with ``bounds``; the
    kernel's check, which index_put_ makes after the value's) every index is in bounds:
    PyTorch's checks and messages, in its order."""
    dim, arrays = 0, []  # arrays: (dim, int index array), a mask expanded to its nonzero()
    for t in entries:
        if t is None:
            dim += 1
            continue
        if t._data.dtype == np.bool_ and not t.ndim:
            continue  # a 0-dim mask (x[True]) adds a dim: nothing to check
        if t._data.dtype == np.bool_:
            covered = shape[dim:dim + t.ndim]
            for j, (m, n) in enumerate(zip(t.shape, covered)):
                if m != n:
                    raise IndexError(f"The shape of the mask {list(t.shape)} at index {j} does "
                                     f"not match the shape of the indexed tensor {list(shape)} "
                                     f"at index {dim + j}")
            arrays.extend((dim + j, a) for j, a in enumerate(np.nonzero(t._data)))
            dim += t.ndim
        else:
            arrays.append((dim, t._data))
            dim += 1
    try:
        indexed = np.broadcast_shapes(*[a.shape for _, a in arrays])
    except ValueError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together with "
                         "shapes " + ", ".join(str(list(a.shape)) for _, a in arrays)) from None
    kept = [n for d, n in enumerate(shape) if d not in {d for d, _ in arrays}]
    empty = not (math.prod(indexed) and math.prod(kept))  # PyTorch's kernel never runs
    for d, a in arrays:
        if a.size and not shape[d]:
            raise IndexError("index is out of bounds for dimension with size 0")
    if empty or not bounds or not arrays:
        return
    # The kernel checks element by element (each element's indices in order): the first bad
    # element, not the first bad dim, is reported.
    bad = np.stack([np.broadcast_to((a >= shape[d]) | (a < -shape[d]), indexed).ravel()
                    for d, a in arrays])
    if bad.any():
        element = int(np.argmax(bad.any(axis=0)))
        position = int(np.argmax(bad[:, element]))
        d, a = arrays[position]
        raise IndexError(f"index {int(np.broadcast_to(a, indexed).flat[element])} is out of "
                         f"bounds for dimension {position} with size {shape[d]}")


# --- what Tensor's autograd fields accept (``x.requires_grad = ...``, ``x.grad = ...``) -------
REQUIRES_GRAD_LEAF_ERROR = "you can only change requires_grad flags of leaf variables."
REQUIRES_GRAD_DETACH_HINT = (" If you want to use a computed variable in a subgraph that doesn't "
                             "require differentiation use var_no_grad = var.detach().")
FLOAT_ONLY_ERROR = "only Tensors of floating point and complex dtype can require gradients"
GRAD_DTYPE_ERROR = (
    "attempting to assign a gradient with dtype '{}' to a tensor with grad_dtype '{}'. The "
    "gradient must match the tensor's grad_dtype (defaults to the tensor's dtype). You can set the "
    "tensor's grad_dtype attribute with a specific dtype, or None to allow any dtype. Set "
    "grad_dtype with caution. Diverging the dtypes of a tensor and its gradient may break "
    "downstream systems that assume they match.")


def check_requires_grad(dtype, message):
    """Only a floating point (in PyTorch also a complex) tensor can require grad: ``message``
    is PyTorch's wording at the call site; complex is the package's documented limit."""
    if dtype.kind == "c":
        from ..ops._op import _refuse_complex
        _refuse_complex()
    if not np.issubdtype(dtype, np.floating):
        raise RuntimeError(message)


def check_requires_grad_flag(tensor, value):
    """``tensor.requires_grad = value``: a bool, on a leaf, of a floating dtype, and not an
    inference tensor outside inference mode (PyTorch's checks, in its order)."""
    if type(value) is not bool:
        raise RuntimeError("requires_grad must be a bool")
    if tensor._grad_fn is not None:  # (C++ is_leaf: the stored grad_fn, a stale view's too)
        raise RuntimeError(REQUIRES_GRAD_LEAF_ERROR + ("" if value else REQUIRES_GRAD_DETACH_HINT))
    if value:
        check_requires_grad(tensor._data.dtype, FLOAT_ONLY_ERROR)
    if value and tensor._storage.inference and not _grad_mode._inference:
        raise RuntimeError(_grad_mode.INFERENCE_REQUIRES_GRAD_ERROR)


def check_new_grad(tensor, value):
    """``tensor.grad = value``: PyTorch's checks, in its order: a Tensor, of this dtype, not the
    tensor itself, of this size."""
    if not isinstance(value, Tensor):
        raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of "
                        f"type {type(value).__name__}")
    if value._data.dtype != tensor._data.dtype:
        dtype = tensor._data.dtype
        raise RuntimeError(GRAD_DTYPE_ERROR.format(cpp_name(value._data.dtype),
                                                   SCALAR_TYPES.get(str(dtype), dtype)))
    if value is tensor:
        raise RuntimeError("can't assign Variable as its own grad")
    if value.shape != tensor.shape:
        raise RuntimeError(f"attempting to assign a gradient of size '{list(value.shape)}' "
                           f"to a tensor of size '{list(tensor.shape)}'. Please ensure that "
                           f"the gradient and the tensor are the same size")
