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
        return dict(value or {})
    raise TypeError(f"{where}: names must be a dict from label to tensor, e.g. "
                    f"names={{'x': x, 'loss': loss}}, got {type(value).__name__}")


def title(value, where):
    if value is None or isinstance(value, str):
        return value
    raise TypeError(f"{where}: the first argument is the picture's title (a str), got "
                    f"{type(value).__name__}; name the tensors as keywords: "
                    f"{where}('title', x=x, loss=loss)")
