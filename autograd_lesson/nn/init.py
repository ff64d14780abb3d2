"""Parameter initialisers. Like PyTorch's they work in place, so each bumps ``_version``."""
from .._grad_mode import no_grad


def uniform_(tensor, a=0.0, b=1.0):
    with no_grad():
        return tensor.uniform_(a, b)


def normal_(tensor, mean=0.0, std=1.0):
    with no_grad():
        return tensor.normal_(mean, std)


def zeros_(tensor):
    with no_grad():
        return tensor.zero_()


def constant_(tensor, value):
    with no_grad():
        return tensor.fill_(value)
