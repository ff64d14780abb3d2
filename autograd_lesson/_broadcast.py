"""Broadcasting helpers the engine needs: whether a gradient's shape expands to its input's,
and PyTorch's ``at::sum_to``, which reduces a broadcast gradient back to the input's shape."""


def is_expandable_to(shape, target):
    if len(shape) > len(target):
        return False
    for s, t in zip(shape, target[len(target) - len(shape):]):  # (the trailing dims, aligned)
        if s != 1 and s != t:
            return False
    return True


def sum_to(grad, shape):
    """Reduce a broadcast gradient back to ``shape`` (PyTorch's ``at::sum_to``), with Tensor ops
    (``sum(dims, keepdim=True)``, then ``view``), applied directly: the engine calls this for
    every broadcast gradient, and the arguments are known to be valid."""
    global _sum_to_ops
    shape, have = tuple(shape), grad._data.shape
    if have == shape:
        return grad
    if not shape:
        return grad.sum()
    if _sum_to_ops is None:  # (an import cycle; an import per call costs two Python calls)
        from .ops.reduce import SumBackward1
        from .ops.views import ViewBackward0
        _sum_to_ops = SumBackward1, ViewBackward0
    lead = len(have) - len(shape)
    dims = list(range(lead))
    for i, s in enumerate(shape):
        if s == 1 and have[lead + i] != 1:
            dims.append(lead + i)
    if dims:
        grad = _sum_to_ops[0].apply(grad, dims, keepdim=True)
    if lead or grad._data.shape != shape:
        grad = _sum_to_ops[1].apply(grad, shape)
    return grad


_sum_to_ops = None
