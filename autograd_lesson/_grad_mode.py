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


_inference = False
INFERENCE_SAVE_ERROR = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
    "`torch.inference_mode()`.")
INFERENCE_INPLACE_ERROR = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
    "clone to get a normal tensor before doing inplace update.See "
    "https://github.com/pytorch/rfcs/pull/17 for more details.")
INFERENCE_REQUIRES_GRAD_ERROR = ("Setting requires_grad=True on inference tensor outside "
                                 "InferenceMode is not allowed.")
INFERENCE_VERSION_ERROR = "Inference tensors do not track version counter."


def is_inference_mode_enabled():
    return _inference


def _recording():
    """Whether ops record a graph: grad mode on and inference mode off."""
    return _enabled and not _inference


class inference_mode:
    """Like ``no_grad``, and tensors made inside are *inference tensors* (``is_inference()``)
    that autograd may never save; ``inference_mode(False)`` switches it off (grad mode on).

    Usable as ``with inference_mode():``, ``@inference_mode()`` and ``@inference_mode``.
    Unlike ``set_grad_enabled``, creating it changes nothing until it is entered.
    """

    def __new__(cls, mode=True):
        if callable(mode) and not isinstance(mode, bool):  # @inference_mode without parentheses
            return cls()(mode)
        return super().__new__(cls)

    def __init__(self, mode=True):
        self.mode = bool(mode)
        self._prev = []

    def __enter__(self):
        global _enabled, _inference
        self._prev.append((_enabled, _inference))
        _enabled, _inference = not self.mode, self.mode
        return self

    def __exit__(self, *exc):
        global _enabled, _inference
        _enabled, _inference = self._prev.pop()
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with inference_mode(self.mode):
                return fn(*args, **kwargs)
        return wrapper

    def clone(self):
        return inference_mode(self.mode)
