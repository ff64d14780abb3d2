"""The texts of PyTorch's autograd errors that the core raises, word for word.

A saved tensor that a backward freed, or that an in-place op changed after it was saved, must
fail exactly as PyTorch fails: lessons print these messages and tests compare them with torch's.
"""
import re

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)
HINT = ("enable anomaly detection to find the operation that failed to compute its gradient, "
        "with torch.autograd.set_detect_anomaly(True, check_nan=False).")
ANOMALY_HINT = ("the backtrace further above shows the operation that failed to compute its "
                "gradient. The variable in question was changed in there or anywhere later. "
                "Good luck!")
NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad field "
    "to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you "
    "access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See "
    "github.com/pytorch/pytorch/pull/30531 for more information."
)
# c10's ScalarType names, as messages print a dtype: torch.FloatTensor, "grad_dtype 'Float'"
SCALAR_TYPES = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long",
                "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


def typename(value):
    """A value's type as PyTorch's argument parser names it, Python's ``tp_name``: ``str``,
    ``Foo`` for a class written in Python, ``numpy.ndarray`` for one written in C; a class that
    is C in PyTorch says its own (``_tp_name``: ``torch.dtype``)."""
    kind = type(value)
    named = getattr(kind, "_tp_name", None)
    if named is not None:
        return named
    if kind.__flags__ & (1 << 9) or kind.__module__ == "builtins":  # (Py_TPFLAGS_HEAPTYPE)
        return kind.__name__
    return f"{kind.__module__}.{kind.__qualname__}"


def type_string(tensor):
    """``torch.FloatTensor`` for a float32 tensor (a Tensor's dtype, or a SavedTensor's)."""
    name = str(tensor.dtype).removeprefix("torch.")
    if name == "bool":
        return "CPUBoolType"  # what PyTorch's in-place message really prints for a bool tensor
    return f"torch.{SCALAR_TYPES.get(name, 'Float')}Tensor"


def op_name(node):
    """The op as PyTorch's messages name it: ``Mul`` for MulBackward0, ``Max1`` for
    MaxBackward1."""
    return re.sub(r"Backward(\d*)$", lambda m: m[1].lstrip("0"), node.name())


def version_message(saved, node, current, anomaly):
    """"one of the variables needed for gradient computation has been modified by an inplace
    operation": ``saved`` (a SavedTensor of ``node``) is at version ``current``."""
    if saved.is_output:
        # An in-place op on a view saved the view: its grad_fn then, if that still lives.
        fn = saved.view_fn() if saved.view_fn is not None else None
        clause = f", which is output {saved.output_nr} of {op_name(fn if fn is not None else node)},"
    else:
        fn = saved.tensor.grad_fn  # a view whose base changed reads AsStridedBackward0 here
        clause = "" if fn is None else f", which is output {saved.tensor._output_nr} of {op_name(fn)},"
    return (f"one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: [{type_string(saved)} {list(saved.shape)}]{clause} is at version "
            f"{current}; expected version {saved.saved_version} instead. Hint: "
            + (ANOMALY_HINT if anomaly else HINT))
