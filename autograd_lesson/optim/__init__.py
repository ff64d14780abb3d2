"""``optim``: SGD, Adam, AdamW and Adagrad. ``step()`` updates parameters in place under no_grad.

As in PyTorch 2.13 on CPU, the default and ``foreach=True`` implementations bump each updated
parameter's ``_version`` once per step (AdamW with weight decay: twice), while ``fused=True``
changes the values without a bump (see ``Optimizer._write``)."""
from .adagrad import Adagrad
from .adam import Adam
from .adamw import AdamW
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "Adagrad"]
