"""Grad mode: whether ops record a graph (``no_grad``, ``enable_grad``, ``set_grad_enabled``).

Each is a context manager and a decorator, as in PyTorch (``torch/utils/_contextlib.py``):
``@no_grad`` and ``@enable_grad`` work with or without parentheses, and a decorated generator
function runs in the mode each time it is resumed, not only when it is created.
"""
import functools
import inspect
import sys

_enabled = True


def is_grad_enabled():
    return _enabled


def _set_enabled(mode):
    global _enabled
    if not isinstance(mode, bool):  # PyTorch's argument parser takes a Python bool only
        from ._autograd_errors import typename
        raise TypeError(f"set_grad_enabled(): argument 'enabled' (position 1) must be bool, "
                        f"not {typename(mode)}")
    _enabled = mode


def _wrap_generator(ctx_factory, func):
    """Enter a fresh context around every step of the generator (send, throw, close)."""
    @functools.wraps(func)
    def generator_context(*args, **kwargs):
        gen = func(*args, **kwargs)
        try:
            with ctx_factory():
                response = gen.send(None)
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    with ctx_factory():
                        gen.close()
                    raise
                except BaseException:
                    with ctx_factory():
                        response = gen.throw(*sys.exc_info())
                else:
                    with ctx_factory():
                        response = gen.send(request)
        except StopIteration as stop:
            return stop.value
    return generator_context


def context_decorator(ctx_factory, func):
    """``func`` run inside ``ctx_factory()`` (a new context per call)."""
    if inspect.isclass(func):
        raise RuntimeError("Cannot decorate classes; it is ambiguous whether or not only the "
                           "constructor or all methods should have the context manager applied; "
                           "additionally, decorating a class at definition-site will prevent use "
                           "of the identifier as a conventional type.  To specify which methods "
                           "to decorate, decorate each of them individually.")
    if inspect.isgeneratorfunction(func):
        return _wrap_generator(ctx_factory, func)

    @functools.wraps(func)
    def decorate_context(*args, **kwargs):
        with ctx_factory():
            return func(*args, **kwargs)
    return decorate_context


class _DecoratorContextManager:
    """A context manager that is also a decorator (each call enters ``self.clone()``)."""

    def __call__(self, func):
        if inspect.isclass(func):  # PyTorch still allows it, with a warning: wraps the constructor
            import warnings
            warnings.warn("Decorating classes is deprecated and will be disabled in future "
                          "versions. You should only decorate functions or methods. To preserve "
                          "the current behavior of class decoration, you can directly decorate "
                          "the `__init__` method and nothing else.", FutureWarning, stacklevel=2)
            cls = func
            func = lambda *args, **kwargs: cls(*args, **kwargs)  # noqa: E731
        return context_decorator(self.clone, func)

    def clone(self):
        return self.__class__()


class _NoParamDecoratorContextManager(_DecoratorContextManager):
    """...that also decorates without parentheses: ``@no_grad``."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamDecoratorContextManager):
    """Disable graph recording: results of ops have no ``grad_fn``."""

    def __init__(self):
        self.prev = False

    def __enter__(self):
        self.prev = _enabled
        _set_enabled(False)

    def __exit__(self, *exc):
        _set_enabled(self.prev)


class enable_grad(_NoParamDecoratorContextManager):
    """Re-enable graph recording inside a ``no_grad`` block."""

    def __enter__(self):
        self.prev = _enabled
        _set_enabled(True)

    def __exit__(self, *exc):
        _set_enabled(self.prev)


class set_grad_enabled(_DecoratorContextManager):
    """Set grad mode to ``mode`` (a bool) now, restoring the old mode when the block exits.

    Like PyTorch it takes effect when called as a plain function; used as a decorator it
    undoes that and applies the mode around each call instead.
    """

    def __init__(self, mode):
        self.prev = _enabled
        self.mode = mode
        _set_enabled(mode)

    def __call__(self, func):
        _set_enabled(self.prev)
        return super().__call__(func)

    def __enter__(self):
        _set_enabled(self.mode)

    def __exit__(self, *exc):
        _set_enabled(self.prev)

    def clone(self):
        return self.__class__(self.mode)

    def __repr__(self):
        return f"torch.autograd.grad_mode.set_grad_enabled(mode={self.mode})"


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


class inference_mode(_DecoratorContextManager):
    """Like ``no_grad``, and tensors made inside are *inference tensors* (``is_inference()``)
    that autograd may never save; ``inference_mode(False)`` switches it off (grad mode on).

    Usable as ``with inference_mode():``, ``@inference_mode()`` and ``@inference_mode``.
    Unlike ``set_grad_enabled``, creating it changes nothing until it is entered.
    """

    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)  # @inference_mode without parentheses

    def __init__(self, mode=True):
        self.mode = mode
        self._prev = []

    def __enter__(self):
        global _enabled, _inference
        self._prev.append((_enabled, _inference))
        _enabled, _inference = not self.mode, self.mode

    def __exit__(self, *exc):
        global _enabled, _inference
        _enabled, _inference = self._prev.pop()

    def clone(self):
        return self.__class__(self.mode)
