"""``optim``: SGD and Adam. ``step()`` updates parameters in place under no_grad, bumping each
updated parameter's ``_version`` once, exactly as PyTorch's CPU implementations do."""
from .adam import Adam
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam"]
