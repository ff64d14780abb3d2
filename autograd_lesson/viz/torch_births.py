"""What the torch reader knows about a saved buffer that can still be read: alive (no backward
ran its node), retained (one did, with ``retain_graph=True``), or neither known.

torch keeps no record that a node ran. Under ``viz.watch`` a ``TorchFunctionMode`` sees each
op's result and puts a post hook on every node it made (found by creation number, so the
internal nodes of one call, such as ``linear``'s ``TBackward0``, too); the hook notes only the
node's key, so it keeps nothing alive and may stay on the node for as long as the node lives:
every later backward that runs the node is seen. ``viz.record`` notes the nodes its backwards
ran. A node neither watched from birth nor seen running is "unknown" (alive or retained).
"""
import sys

from torch.overrides import TorchFunctionMode

from .modules import _mark, _probing

_MAX = 200_000
_born = set()   # keys of nodes hooked when they were made: every backward through them is seen
_ran = set()    # keys of nodes a backward ran (seen by a birth hook)


def _clip(keys):
    if len(keys) > _MAX:
        keys.clear()


def state(key, retained):
    """The state of a readable buffer of node ``key`` (``retained``: a recording saw it run)."""
    if retained or key in _ran:
        return "retained"
    return "alive" if key in _born else "unknown"


class unwatched_reads:  # noqa: N801  (used as ``with unwatched_reads():``, like a function)
    """Inside, the watch's mode leaves the torch reader's unpacks alone: unpacking a saved
    output locks its node, and the mode would read that node's grad_fn. (A class, not a
    generator: a step-through's frames enter it hundreds of times.)"""

    def __enter__(self):
        _probing.append(True)

    def __exit__(self, *exc):
        _probing.pop()


def unwatched(read):
    """``read`` (one of the torch reader's unpacks) inside :func:`unwatched_reads`."""
    def reading(*args, **kwargs):
        with unwatched_reads():
            return read(*args, **kwargs)
    return reading


def _hook(k):
    def ran(grad_inputs, grad_outputs):
        _ran.add(k)
    return ran


class BirthMode(TorchFunctionMode):
    """Hooks every node made while active (see the module's docstring)."""

    def __enter__(self):
        self.watermark = _mark(sys.modules["torch"])
        _active.append(self)
        return super().__enter__()

    def __exit__(self, *exc):
        if self in _active:
            _active.remove(self)
        return super().__exit__(*exc)

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if _probing or getattr(func, "__name__", "") == "__get__":
            # an attribute read (t.grad_fn; a saved output the view unpacks, whose node is
            # locked while it does) makes no node: reading grad_fn there would wait forever
            return func(*args, **kwargs)
        self.adopt([args, list(kwargs.values())])  # the inputs too: a backward(), or what an
        result = func(*args, **kwargs)             # unseen call made (a custom Function's apply)
        self.adopt(result)
        return result

    def adopt(self, value):
        torch = sys.modules["torch"]
        from .torch_graphs import _is_accumulate, key
        stack = [t.grad_fn for t in _tensors(value, torch) if t.grad_fn is not None]
        highest = self.watermark
        while stack:
            node = stack.pop()
            if node is None or _is_accumulate(node):
                continue
            number = node._sequence_nr()
            k = key(node)
            if number <= self.watermark or k in _born:
                continue
            _clip(_born)
            _born.add(k)
            node.register_hook(_hook(k))
            highest = max(highest, number)
            stack.extend(child for child, _ in node.next_functions)
        self.watermark = highest


_active = []


def adopt(value):
    """Hook the nodes behind ``value`` (a module's output) made since the watch began."""
    if _active and not _probing:
        _active[-1].adopt(value)


def _tensors(value, torch):
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _tensors(v, torch)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _tensors(v, torch)]
    return []
