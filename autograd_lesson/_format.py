"""``repr`` of a tensor in PyTorch's style: ``tensor([1.0000, 2.5000], requires_grad=True)``."""
import numpy as np


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


def format_tensor(t):
    data = t._data
    if data.dtype.kind == "f":
        fmt = _format_float(data.reshape(-1))
        width = max((len(fmt(v)) for v in data.reshape(-1)), default=0)  # PyTorch pads to align
        formatter = {"float_kind": lambda v: fmt(v).rjust(width)}
    else:
        formatter = None
    body = np.array2string(data, separator=", ", formatter=formatter, prefix="tensor(",
                           threshold=1000, edgeitems=3, max_line_width=80)
    if data.dtype.kind == "b":
        body = body.replace("True", "True").replace("False", "False")
    extras = []
    if data.dtype not in (np.float32, np.int64, np.bool_):
        extras.append(f"dtype=torch.{data.dtype}")
    if t.grad_fn is not None:
        extras.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t.requires_grad:
        extras.append("requires_grad=True")
    return "tensor(" + body + "".join(", " + e for e in extras) + ")"
