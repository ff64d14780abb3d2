"""Anomaly mode's switches (``torch.is_anomaly_enabled`` ...), read by nodes and the engine.

When it is on, every node records the Python stack of the forward call that created it
(``node.metadata["traceback_"]``, without the package's own frames) and, if it was created while
a backward ran another node (``create_graph=True``), that node (``metadata["parent_"]``). A
backward that fails warns "Error detected in <node>" with the stack, then once per parent
"Previous calculation was induced by <parent>", before re-raising; with ``check_nan`` a node
whose gradient contains NaN raises. When it is off this costs one flag check per node.
"""
import os
import traceback
import warnings

import numpy as np

_enabled = False
_check_nan = True
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep  # the package
TRACE_KEY = "traceback_"
PARENT_KEY = "parent_"
_current_node = None  # the node the engine is running, under anomaly mode


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


def record(node):
    """At a node's creation: where in the forward it happened, and which node it came from."""
    node.metadata[TRACE_KEY] = forward_stack()
    if _current_node is not None:
        node.metadata[PARENT_KEY] = _current_node


def run_as_parent(node, execute, *args):
    """Run ``execute(node, *args)`` with ``node`` as the parent of the nodes it creates."""
    global _current_node
    previous, _current_node = _current_node, node
    try:
        return execute(node, *args)
    finally:
        _current_node = previous


def warn_failed(node):
    """PyTorch's warnings when a node fails under anomaly mode: its forward stack, then one
    per parent node (the nodes whose backward created it)."""
    _warn_stack(node.metadata.get(TRACE_KEY), node.name(), is_parent=False)
    parent = node.metadata.get(PARENT_KEY)
    while parent is not None:
        _warn_stack(parent.metadata.get(TRACE_KEY), parent.name(), is_parent=True)
        parent = parent.metadata.get(PARENT_KEY)


def _warn_stack(stack, name, is_parent):
    if stack is None:
        text = (f"Error detected in {name}. No forward pass information available. Enable "
                f"detect anomaly during forward pass for more information.")
    elif is_parent:
        text = (f"\n\nPrevious calculation was induced by {name}. Traceback of forward call that "
                f"induced the previous calculation:\n" + "".join(stack))
    else:
        text = (f"Error detected in {name}. Traceback of forward call that caused the error:\n"
                + "".join(stack))
    warnings.warn(text, UserWarning, stacklevel=4)


def check_nan(node, outputs):
    for i, grad in enumerate(outputs):
        if grad is not None and grad._data.dtype.kind in "fc" and np.isnan(grad._data).any():
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")
