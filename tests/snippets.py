"""Run one snippet of code in both libraries and compare what comes out (the parity tests'
runner): ``lib`` is autograd_lesson or torch, ``out`` the snippet's result; an exception becomes
its type name and message, and the warnings are collected, so all three compare word for word.
"""
import math
import warnings

import numpy as np
import pytest

import autograd_lesson as al


def plain(value):
    """Floats to 6 significant digits, tuples to lists, tensors to ``['tensor', values]``: what
    both libraries can agree on."""
    if hasattr(value, "grad_fn") and hasattr(value, "tolist"):
        return ["tensor", plain(value.tolist())]
    if isinstance(value, float):
        return float(f"{value:.6g}") if math.isfinite(value) else value
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def run(lib, source):
    """``('ok', out, warnings)`` or ``('error', type name, message, warnings)``."""
    scope = {"lib": lib, "np": np, "al": al}
    enabled, always = lib.is_grad_enabled(), lib.is_warn_always_enabled()
    # Once-per-process warnings (create_graph's reference cycle) come every time, in both
    # libraries: otherwise the result depends on what ran earlier in this process.
    lib.set_warn_always(True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            exec(source, scope)
            result = ("ok", plain(scope.get("out")))
        except Exception as error:  # noqa: BLE001 - the exception is what we compare
            result = ("error", type(error).__name__, str(error))
        finally:
            lib.set_grad_enabled(enabled)
            lib.set_warn_always(always)
    # PyTorch's C++ warnings end with where they were raised
    messages = [str(w.message).split(" (Triggered internally at")[0] for w in caught]
    return result + (messages,)


def cases(table):
    return pytest.mark.parametrize("source", list(table.values()), ids=list(table))
