"""The softmaxes' entry points (``x.softmax(dim, dtype=None)``, ``torch.log_softmax``): the
arguments parsed by the table's signatures, then a node of ``ops.nnops``.
"""
from .._dtype import numpy_dtype
from ..ops.nnops import LogSoftmaxBackward0, SoftmaxBackward0, _softmax_dim


def softmax(x, index, values):
    return _softmax(SoftmaxBackward0, "softmax", x, values)


def log_softmax(x, index, values):
    return _softmax(LogSoftmaxBackward0, "log_softmax", x, values)


def _softmax(op, name, x, values):
    """``dtype=``: the input is cast first (a ToCopyBackward0 before the softmax), as PyTorch."""
    dim, dtype = values["dim"], values["dtype"]
    if dtype is not None:
        dtype = numpy_dtype(dtype)
        _softmax_dim(x, dim, name, dtype)
        x = x._to(dtype)
    return op.apply(x, dim)
