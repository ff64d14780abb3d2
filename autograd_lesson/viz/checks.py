"""Argument checks for the view's public functions (and the lesson helpers' pictures): one line
that says what to pass instead."""
from .snapshot import is_tensor, is_torch


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
            if not is_tensor(tensor):
                kind = type(tensor).__name__
                raise TypeError(f"{where}: names must map labels to tensors, but {label!r} is "
                                f"{article(kind)} {kind}")
        return dict(value or {})
    raise TypeError(f"{where}: names must be a dict from label to tensor, e.g. "
                    f"names={{'x': x, 'loss': loss}}, got {type(value).__name__}")


def roots(value, where="take_snapshot"):
    """The roots as a list, each a tensor or a graph node of either engine."""
    from .._node import Node
    listed = list(value) if isinstance(value, (list, tuple)) else [value]
    for root in listed:
        if not (is_tensor(root) or isinstance(root, Node) or _is_torch_node(root)):
            raise TypeError(f"{where}: roots must be tensors (or graph nodes), got "
                            f"{type(root).__name__}: pass [loss], the tensors to draw from")
    return listed


def _is_torch_node(value):
    return is_torch(value) and hasattr(value, "next_functions")


def title(value, where):
    if value is None or isinstance(value, str):
        return value
    raise TypeError(f"{where}: the first argument is the picture's title (a str), got "
                    f"{type(value).__name__}; name the tensors as keywords: "
                    f"{where}('title', x=x, loss=loss)")


def article(word):
    """'an' before a vowel, else 'a': "an int", "a list"."""
    return "an" if word[:1].lower() in "aeiou" else "a"


def view_text(source, text):
    """A GraphView is built from its DOT source and its text twin, both str."""
    for name, value in (("source", source), ("text", text)):
        if not isinstance(value, str):
            raise TypeError(f"GraphView(source, text) takes the DOT source and its text twin "
                            f"(two str), but {name} is {type(value).__name__}: to draw a graph, "
                            f"call viz.graph_view(viz.take_snapshot([loss]))")


def frames(value):
    """StepThrough's frames: a non-empty list of viz.Frame, as a recording keeps them."""
    from .record import Frame
    if isinstance(value, (list, tuple)) and all(isinstance(f, Frame) for f in value):
        return value
    got = type(value).__name__ if not isinstance(value, (list, tuple)) else \
        f"a {type(value).__name__} of {type(next(f for f in value if not isinstance(f, Frame))).__name__}"
    raise TypeError(f"StepThrough takes the frames of a recording, "
                    f"viz.record(call, roots, frames=True).frames, got {got}: or call "
                    f"lesson.step_through('loss.backward()', loss=loss)")
