"""The package's own random generator, so ``manual_seed`` makes lessons reproducible."""
import numpy as np

_generator = np.random.default_rng(0)


def manual_seed(seed):
    """Reseed the generator behind ``randn``, ``rand``, dropout and parameter init."""
    global _generator
    _generator = np.random.default_rng(int(seed))
    return _generator


def generator():
    return _generator
