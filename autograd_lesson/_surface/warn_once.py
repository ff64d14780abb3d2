"""PyTorch's TORCH_WARN_ONCE: warnings that come once per process, every time after
``set_warn_always(True)``."""
import warnings


_WARN_ALWAYS = [False]


def set_warn_always(b):
    """PyTorch's ``set_warn_always``: warnings that come once per process come every time."""
    _WARN_ALWAYS[0] = bool(b)


def is_warn_always_enabled():
    return _WARN_ALWAYS[0]


def warn_once(flag, message, stacklevel=2):
    """PyTorch's TORCH_WARN_ONCE: ``flag`` (a one-item list, one per call site) remembers that
    it warned; after ``set_warn_always(True)`` it warns every time."""
    if flag[0] and not _WARN_ALWAYS[0]:
        return
    flag[0] = True
    warnings.warn(message, UserWarning, stacklevel=stacklevel + 1)
