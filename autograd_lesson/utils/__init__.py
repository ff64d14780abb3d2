"""``utils``: as in PyTorch, home of ``checkpoint``."""
from . import checkpoint

__all__ = ["checkpoint"]
