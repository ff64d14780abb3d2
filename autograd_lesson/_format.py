"""``repr`` of a tensor in PyTorch's style: ``tensor([1.0000, 2.5000], requires_grad=True)``."""
import numpy as np

from ._dtype import default_complex, default_float


def _format_float(values):
    finite = values[np.isfinite(values)]
    nonzero = np.abs(finite[finite != 0])
    # PyTorch's Formatter: scientific when the nonzero magnitudes span more than 1000x too
    wide = nonzero.size and (nonzero.max() / nonzero.min() > 1000 or nonzero.max() > 1e8)
    if finite.size and np.all(finite == np.round(finite)) and not wide:
        return lambda v: f"{v:.0f}." if np.isfinite(v) else str(v)
    if wide or (nonzero.size and nonzero.min() < 1e-4):
        return lambda v: f"{v:.4e}"
    return lambda v: f"{v:.4f}" if np.isfinite(v) else str(v)


def _summarized(data, edge=3):
    """The elements a summarized (over 1000 elements) PyTorch tensor prints, which alone set
    its number format."""
    for axis in range(data.ndim):
        if data.shape[axis] > 2 * edge:
            data = np.concatenate([data.take(range(edge), axis),
                                   data.take(range(-edge, 0), axis)], axis)
    return data


def format_tensor(t):
    data = t._data
    if data.dtype.kind == "f":
        flat = (_summarized(data) if data.size > 1000 else data).reshape(-1)
        fmt = _format_float(flat)
        sized = flat[np.isfinite(flat) & (flat != 0)]  # PyTorch sizes columns by these values only
        width = max((len(fmt(v)) for v in sized), default=1)
        formatter = {"float_kind": lambda v: fmt(v).rjust(width)}
    elif data.dtype == np.bool_:  # (NumPy pads " True" always; PyTorch only beside a False)
        width = 4 if data.all() else 5
        formatter = {"bool": lambda v: str(bool(v)).rjust(width)}
    else:
        formatter = None
    # (legacy and sign given: torch's repr does not follow NumPy's print options, which another
    # library may have set for the whole process; colour-science sets legacy="1.13")
    body = np.array2string(data, separator=", ", formatter=formatter, prefix="tensor(",
                           threshold=1000, edgeitems=3, max_line_width=80, legacy=False,
                           sign="-")
    body = body.replace(", ...,", ",  ...,")  # PyTorch prints a skipped run in a row as " ..."
    extras = []
    default = default_float()
    if not data.size:  # PyTorch shows an empty tensor's shape (unless (0,)) and its dtype
        if data.ndim != 1:
            extras.append(f"size={tuple(data.shape)}")
        if data.dtype != default:
            extras.append(f"dtype=torch.{data.dtype}")
    elif data.dtype not in (default, np.int64, np.bool_, default_complex()):  # torch's defaults
        extras.append(f"dtype=torch.{data.dtype}")
    try:
        fn = t.grad_fn
        name = None if fn is None else fn.name().rsplit("::", 1)[-1]  # (CopySlices, unprefixed)
    except RuntimeError:  # a no_grad view whose base changed in place refuses a new grad_fn
        name = "Invalid"
    if name is not None:
        extras.append(f"grad_fn=<{name}>")
    elif t.requires_grad:
        extras.append("requires_grad=True")
    text = "tensor(" + body
    last_line = len(text) - text.rfind("\n") + 1  # PyTorch's own arithmetic (_str_intern)
    for extra in extras:  # a suffix that would pass 80 columns goes on its own line
        if last_line + len(extra) + 2 > 80:
            text += ",\n" + " " * len("tensor(") + extra
            last_line = len("tensor(") + len(extra)
        else:
            text += ", " + extra
            last_line += len(extra) + 2
    return text + ")"

