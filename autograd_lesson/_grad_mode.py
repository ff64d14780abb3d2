"""Grad mode: whether ops record a graph (``no_grad``, ``enable_grad``, ``set_grad_enabled``)."""
import functools

_enabled = True


def is_grad_enabled():
    return _enabled


class set_grad_enabled:
    """Context manager (and decorator) that sets grad mode, restoring the old mode on exit.

    Like PyTorch, ``set_grad_enabled(False)`` also takes effect when called as a plain function.
    """

    def __init__(self, mode=True):
        global _enabled
        self.prev = _enabled
        self.mode = bool(mode)
        _enabled = self.mode

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        global _enabled
        _enabled = self.prev
        return False

    def __call__(self, fn):
        global _enabled
        if type(self) is set_grad_enabled:
            _enabled = self.prev  # used as a decorator: __init__ must not leak the mode

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with type(self)(self.mode) if type(self) is set_grad_enabled else type(self)():
                return fn(*args, **kwargs)
        return wrapper


class no_grad(set_grad_enabled):
    """Disable graph recording: results of ops have no ``grad_fn``."""

    def __init__(self):
        self.prev = _enabled
        self.mode = False

    def __enter__(self):
        global _enabled
        self.prev = _enabled
        _enabled = False
        return self


class enable_grad(set_grad_enabled):
    """Re-enable graph recording inside a ``no_grad`` block."""

    def __init__(self):
        self.prev = _enabled
        self.mode = True

    def __enter__(self):
        global _enabled
        self.prev = _enabled
        _enabled = True
        return self
