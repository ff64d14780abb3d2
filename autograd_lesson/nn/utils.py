"""``nn.utils.clip_grad_norm_``."""
import types
import warnings

import numpy as np

from .._tensor import Tensor


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scale all gradients in place so their joint 2-norm is at most ``max_norm``.

    Returns the total norm *before* clipping, as a 0-dim tensor (as PyTorch does).
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
    if norm_type != 2.0:
        raise NotImplementedError("autograd_lesson's clip_grad_norm_ supports norm_type=2 only")
    if not grads:
        float(max_norm)  # (PyTorch converts it before it returns, grads or not)
        return Tensor._make(np.asarray(0.0, dtype=np.float32))
    dtype = grads[0]._data.dtype
    norms = np.array([np.sqrt((g._data.astype(dtype) ** 2).sum()) for g in grads], dtype=dtype)
    total = np.asarray(np.sqrt((norms ** 2).sum()), dtype=dtype)
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
