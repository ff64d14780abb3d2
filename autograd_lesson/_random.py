"""The package's own random generator, so ``manual_seed`` makes lessons reproducible."""
import numpy as np

_generator = np.random.default_rng(0)


class Generator:
    """What ``manual_seed`` returns, as in PyTorch; its repr is stable (no memory address)."""

    def __init__(self, seed):
        self.seed = seed

    def initial_seed(self):
        return self.seed

    def __repr__(self):
        return f"<Generator seeded with {self.seed}>"


def manual_seed(seed):
    """Reseed the generator behind ``randn``, ``rand``, dropout and parameter init."""
    global _generator
    _generator = np.random.default_rng(int(seed))
    return Generator(int(seed))


def generator():
    return _generator
