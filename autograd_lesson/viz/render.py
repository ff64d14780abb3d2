"""Turning DOT into pictures, and the object a notebook displays.

A displayed :class:`GraphView` carries SVG, PNG and, as text/plain, its ledger: an untrusted
notebook (fresh from a clone) refuses SVG and falls back to the PNG, and nbval compares the
text. Without Graphviz's ``dot`` the view degrades to its text with a one-line hint.
"""
import base64
import re

import graphviz

DOT_MISSING = ("(picture not rendered: Graphviz's 'dot' program is missing; install it with "
               "'apt-get install graphviz', 'brew install graphviz' or 'conda install -c "
               "conda-forge graphviz')")


def render(dot_source, fmt):
    """Render DOT source to ``fmt`` ('svg' or 'png') bytes with the ``dot`` program."""
    return graphviz.Source(dot_source).pipe(format=fmt)


def fit_width(svg):
    """Let a wide SVG shrink to the notebook's width (never grow past its natural size)."""
    match = re.search(r'<svg width="([\d.]+)pt" height="[\d.]+pt"', svg)
    if not match:
        return svg
    return svg.replace(match.group(0),
                       f'<svg width="100%" style="max-width: {match.group(1)}pt; height: auto"', 1)


class GraphView:
    """A rendered graph: ``.source`` (DOT), ``.text`` (ledger), SVG/PNG on demand."""

    def __init__(self, source, text):
        self.source = source
        self.text = text
        self._cache = {}

    def _render(self, fmt):
        if fmt not in self._cache:
            self._cache[fmt] = render(self.source, fmt)
        return self._cache[fmt]

    def svg(self):
        return fit_width(self._render("svg").decode("utf-8"))

    def png(self):
        return self._render("png")

    def _repr_mimebundle_(self, include=None, exclude=None):
        try:
            return {"image/svg+xml": self.svg(),
                    "image/png": base64.b64encode(self.png()).decode("ascii"),
                    "text/plain": self.text}
        except graphviz.ExecutableNotFound:
            return {"text/plain": self.text + "\n" + DOT_MISSING}

    def __repr__(self):
        return self.text

    def save(self, stem):
        """Write ``stem.dot``, ``stem.svg`` and ``stem.png``."""
        with open(f"{stem}.dot", "w", encoding="utf-8") as f:
            f.write(self.source)
        with open(f"{stem}.svg", "w", encoding="utf-8") as f:
            f.write(self.svg())
        with open(f"{stem}.png", "wb") as f:
            f.write(self.png())
