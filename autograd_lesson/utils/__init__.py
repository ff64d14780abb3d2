"""``utils``: as in PyTorch, home of ``checkpoint`` and ``hooks``."""
import importlib

__all__ = ["checkpoint", "hooks"]


def __getattr__(name):
    # Loaded on first use (``torch.utils.checkpoint``): ``hooks`` is needed while the package's
    # core loads, and ``checkpoint`` needs all of the core.
    if name in __all__:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
