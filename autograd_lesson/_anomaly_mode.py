"""Anomaly mode's switches (``torch.is_anomaly_enabled`` ...), read by nodes and the engine.

When it is on, every node records the Python stack of the forward call that created it
(``node.metadata["traceback_"]``, without the package's own frames), a backward that fails
warns "Error detected in <node>" with that stack before re-raising, and, with ``check_nan``,
a node whose gradient contains NaN raises. When it is off this costs one flag check per node.
"""
import os
import traceback
import warnings

import numpy as np

_enabled = False
_check_nan = True
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
TRACE_KEY = "traceback_"


def is_anomaly_enabled():
    return _enabled


def is_anomaly_check_nan_enabled():
    return _check_nan


def set_anomaly_enabled(enabled, check_nan=True):
    global _enabled, _check_nan
    _enabled, _check_nan = bool(enabled), bool(check_nan)


def forward_stack():
    """The caller's stack as ``traceback.format_stack`` lines, minus this package's frames."""
    frames = [f for f in traceback.extract_stack()[:-1]
              if not os.path.abspath(f.filename).startswith(_PACKAGE_DIR)]
    return traceback.format_list(frames)


def warn_failed(node):
    """PyTorch's warning when a node fails under anomaly mode, with its forward stack."""
    stack = node.metadata.get(TRACE_KEY)
    if stack is None:
        text = (f"Error detected in {node.name()}. No forward pass information available. "
                f"Enable detect anomaly during forward pass for more information.")
    else:
        text = (f"Error detected in {node.name()}. Traceback of forward call that caused the "
                f"error:\n" + "".join(stack))
    warnings.warn(text, UserWarning, stacklevel=3)


def check_nan(node, outputs):
    for i, grad in enumerate(outputs):
        if grad is not None and grad.dtype.kind in "fc" and np.isnan(grad._data).any():
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")
