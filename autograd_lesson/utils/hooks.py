"""``utils.hooks``: what registering a hook returns, as PyTorch's ``torch.utils.hooks``."""
import itertools


class RemovableHandle:
    """What registering a hook returns: ``remove()`` unregisters it (twice is harmless), and
    ``with handle:`` removes it when the block ends, as PyTorch's ``RemovableHandle``."""

    _ids = itertools.count()

    def __init__(self, container, item):
        if container and container[-1] is item and any(x is item for x in container[:-1]):
            item = container[-1] = _Alias(item)  # one hook registered twice: two entries
        self._container, self._item = container, item
        self.id = next(self._ids)

    def remove(self):
        for i, entry in enumerate(self._container):
            if entry is self._item:  # this registration, not the first equal one
                del self._container[i]
                return

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()



class _Alias:
    """A second registration of the same hook, so that each handle removes its own."""

    def __init__(self, fn):
        self._fn = fn
        if hasattr(fn, "__name__"):
            self.__name__ = fn.__name__

    def __call__(self, *args):
        return self._fn(*args)
