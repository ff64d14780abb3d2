"""Argument checks for the view's public functions: one line that says what to pass instead."""


def snapshot(value, where, what="a Snapshot"):
    from .snapshot import Snapshot
    if isinstance(value, Snapshot):
        return value
    got = type(value).__name__
    hint = " (take one with viz.take_snapshot([loss], names={'loss': loss}))"
    if got == "Tensor":
        hint = (": pass viz.take_snapshot([tensor], names={...}), or call "
                "lesson.show_graph('title', name=tensor) to draw a tensor's graph")
    raise TypeError(f"{where} takes {what}, got {got}{hint}")


def names(value, where="take_snapshot"):
    if value is None or isinstance(value, dict):
        for label, tensor in (value or {}).items():
            if not _is_tensor(tensor):
                raise TypeError(f"{where}: names must map labels to tensors, but {label!r} is "
                                f"{_a(type(tensor).__name__)}")
        return dict(value or {})
    raise TypeError(f"{where}: names must be a dict from label to tensor, e.g. "
                    f"names={{'x': x, 'loss': loss}}, got {type(value).__name__}")


def roots(value, where="take_snapshot"):
    """The roots as a list, each a tensor or a graph node of either engine."""
    from .._node import Node
    listed = list(value) if isinstance(value, (list, tuple)) else [value]
    for root in listed:
        if not (_is_tensor(root) or isinstance(root, Node) or _is_torch_node(root)):
            raise TypeError(f"{where}: roots must be tensors (or graph nodes), got "
                            f"{type(root).__name__}: pass [loss], the tensors to draw from")
    return listed


def _is_tensor(value):
    from .._tensor import Tensor
    from .snapshot import is_torch  # never imports torch
    return isinstance(value, Tensor) or (is_torch(value) and hasattr(value, "requires_grad"))


def _is_torch_node(value):
    from .snapshot import is_torch
    return is_torch(value) and hasattr(value, "next_functions")


def title(value, where):
    if value is None or isinstance(value, str):
        return value
    raise TypeError(f"{where}: the first argument is the picture's title (a str), got "
                    f"{type(value).__name__}; name the tensors as keywords: "
                    f"{where}('title', x=x, loss=loss)")


def _a(kind):
    return f"{'an' if kind[:1].lower() in 'aeiou' else 'a'} {kind}"
