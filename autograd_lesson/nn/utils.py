"""``nn.utils.clip_grad_norm_``."""
import types
import warnings

import numpy as np

from .._grad_mode import no_grad
from .._tensor import Tensor
from .._surface.reduce import vector_norm
from ..ops.shape import StackBackward0


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scale all gradients in place so their joint ``norm_type``-norm is at most ``max_norm``.

    As PyTorch: the norm of each gradient (``linalg.vector_norm``), then the norm of those,
    recorded nowhere. Returns the total norm *before* clipping, as a 0-dim tensor.
    """
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and not parameters:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.",
                          stacklevel=2)
    grads = [p._grad for p in parameters if p._grad is not None]
    norm_type = float(norm_type)  # (PyTorch's conversions: norm_type='x' is Python's ValueError)
    if not grads:
        float(max_norm)  # (PyTorch converts it before it returns, grads or not)
        return Tensor._make(np.asarray(0.0, dtype=np.float32))
    with no_grad():
        norms = [vector_norm(g, norm_type) for g in grads]
        total = vector_norm(StackBackward0.apply(norms, 0), norm_type)._data
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` "
                           f"is non-finite, so it cannot be clipped. To disable this error and "
                           f"scale the gradients by the non-finite norm anyway, set "
                           f"`error_if_nonfinite=False`")
    coef = min(float(max_norm) / (float(total) + 1e-6), 1.0)
    for g in grads:
        g._data *= np.asarray(coef, dtype=g._data.dtype)
        g._version_counter.value += 1
    return Tensor._make(total)
