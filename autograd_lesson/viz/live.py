"""One notebook output that is a widget where widgets run, and a picture where they do not.

A step-through's slider (``steps.py``) and a module-box picture's depth buttons
(:class:`Depths`) are shown this way: the output carries the static bundle (the picture and
the text twin that nbval compares) and the widget's view. JupyterLab shows the widget while
a kernel runs it; a notebook fresh from a clone, an HTML export or nbval (which skips the
widget's key) has the picture. Running the cell again closes the widget the previous run
showed there.
"""
import dataclasses
import html
import weakref

from ..i18n import t

_live = {}  # display key (the notebook cell) -> the widget shown there last; closed on re-run


def widgets_run():
    """Whether this kernel shows widgets (ipywidgets imports): the one test every live output
    makes, for what it draws and for what it stores beside the widget."""
    try:
        import ipywidgets  # noqa: F401
    except ImportError:
        return False
    return True


def show(bundle, make_widget, key):
    """Display ``bundle`` (a mimebundle with its ``text/plain``) as one output, with the
    widget ``make_widget()`` returns where widgets run; returns the widget or None."""
    from IPython.display import display
    old = _live.pop(key, None)
    if old is not None:
        close(old)
    if not widgets_run():  # the picture is the output
        display(bundle, raw=True)
        return None
    widget = make_widget()
    _live[key] = widget
    display({**bundle, **widget._repr_mimebundle_(), "text/plain": bundle["text/plain"]},
            raw=True)
    return widget


def close(widget):
    """Close a widget, its children and their layout/style widgets (each one is a comm), and
    let go of what it kept alive (``_keep``)."""
    for child in list(getattr(widget, "children", ())):
        close(child)
    for part in ("layout", "style"):
        inner = getattr(widget, part, None)
        if inner is not None and hasattr(inner, "close"):
            inner.close()
    widget.close()
    widget._keep = None


# -- a module-box picture at another depth ------------------------------------------------------
def at_depth(snapshot, depth):
    """``snapshot`` with its module boxes ``depth`` levels below the model."""
    return dataclasses.replace(snapshot, modules=dataclasses.replace(snapshot.modules,
                                                                      depth=depth))


class Depths:
    """A module-box picture that redraws its snapshots (plain data: no tensor, no saved
    buffer) one level deeper or shallower, without running the model or the backward again.
    ``draw(before, after)`` makes the view; each depth is drawn once, when asked for."""

    def __init__(self, before, after, draw, view):
        self.before, self.after = before, after
        self._draw = draw
        self.views = {after.modules.depth: view}

    def depths(self):
        """1 (the model's children) to the deepest module a node was made in (and the depth
        drawn first, if it is 0 or deeper)."""
        deepest = max((len(c) for c in self.after.modules.chains if c), default=1)
        first = self.after.modules.depth
        return sorted(set(range(1, max(deepest, 1) + 1)) | {first})

    def view(self, depth):
        if depth not in self.views:
            self.views[depth] = self._draw(at_depth(self.before, depth),
                                           at_depth(self.after, depth))
        return self.views[depth]

    def table_html(self, depth):
        from .modules import module_table
        return (f"<details><summary>{html.escape(t('depth.table', n=depth))}</summary><pre>"
                f"{html.escape(module_table(at_depth(self.after, depth)))}</pre></details>")

    def widget(self):
        """Buttons "depth: 1 2 3 …" above the picture and the module table of that depth."""
        import ipywidgets as widgets
        first = self.after.modules.depth
        buttons = widgets.ToggleButtons(options=[(str(d), d) for d in self.depths()],
                                        value=first, description=t("depth.label"),
                                        tooltip=t("depth.tip"),
                                        style={"button_width": "2.5em"})
        picture = widgets.HTML(self.view(first).svg())
        table = widgets.HTML(self.table_html(first))
        me = weakref.ref(self)  # the widgets must not keep the snapshots alive on their own

        def redraw(change):
            depths = me()
            if depths is not None:
                picture.value = depths.view(change["new"]).svg()
                table.value = depths.table_html(change["new"])

        buttons.observe(redraw, names="value")
        box = _box_class()([buttons, picture, table])
        box._keep = self  # closing the widget lets both go
        return box


_BOX = []


def _box_class():
    if not _BOX:
        import ipywidgets as widgets

        class DepthButtons(widgets.VBox):
            def __repr__(self):  # the text a notebook stores: short and stable, not the SVG
                return "module boxes with depth buttons"
        _BOX.append(DepthButtons)
    return _BOX[0]
