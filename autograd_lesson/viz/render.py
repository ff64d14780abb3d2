"""Turning DOT into pictures that fit a laptop, and the object a notebook displays.

A displayed :class:`GraphView` carries SVG, PNG and, as text/plain, its text twin (ledger or
diff): an untrusted notebook (fresh from a clone) refuses SVG and falls back to the PNG, and
nbval compares the text. Without Graphviz's ``dot`` the view degrades to its text with a
one-line hint.

``fit`` lays a picture out and, while it would be shown with text under ``MIN_TEXT_PX`` or
taller than ``MAX_HEIGHT_PX`` in a ``AREA_PX``-wide output area (JupyterLab at 1366×768 with
the file browser open), folds more of what did not change.
"""
import base64
import collections
import hashlib
import os
import re
import struct
import tempfile
import zlib

import graphviz
import numpy as np

from . import warm
from .dot import MIN_FONT_PT

DOT_MISSING = ("(picture not rendered: Graphviz's 'dot' program is missing; install it with "
               "'apt-get install graphviz', 'brew install graphviz' or 'conda install -c "
               "conda-forge graphviz')")  # English; dot_missing() in the learner's language


def dot_missing():
    from ..i18n import t
    return t("render.dot_missing")
AREA_PX = 920        # output area width at 1366 px with the file browser open (~934), less margin
MIN_TEXT_PX = 11.0  # JupyterLab's own text is 13 px
MAX_HEIGHT_PX = 650  # one screen of 768 px less JupyterLab's bars
PX_PER_PT = 96 / 72


# What Graphviz drew, by what it was given: a cell run again (or the same picture drawn twice)
# costs no `dot` run. Bounded in bytes; with AUTOGRAD_LESSON_RENDER_CACHE=<dir> (the test
# suite sets it) the pictures are also kept in that directory, shared by every process.
_RENDERED = collections.OrderedDict()
RENDERED_MAX_BYTES = 32 * 2 ** 20
CACHE_ENV = "AUTOGRAD_LESSON_RENDER_CACHE"


def cached(key, make):
    """``make()``'s bytes, remembered under ``key`` (a tuple of str); errors are not kept."""
    if key in _RENDERED:
        _RENDERED.move_to_end(key)
        return _RENDERED[key]
    folder = os.environ.get(CACHE_ENV)
    path = None
    if folder:
        digest = hashlib.sha256("\0".join(key).encode("utf-8", "surrogatepass")).hexdigest()
        path = os.path.join(folder, digest)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            data = None
    if path is None or data is None:
        data = make()
        if path is not None:
            try:  # written whole, then renamed: a reader never sees half a picture
                fd, partial = tempfile.mkstemp(dir=folder)
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                os.replace(partial, path)
            except OSError:
                pass
    _RENDERED[key] = data
    size = sum(len(v) for v in _RENDERED.values())
    while size > RENDERED_MAX_BYTES and len(_RENDERED) > 1:
        size -= len(_RENDERED.popitem(last=False)[1])
    return data


def share_cache():
    """Keep this process's pictures, and those of every process it starts from now on (kernels,
    test workers), in one temporary directory, removed when this process exits; a no-op where
    ``AUTOGRAD_LESSON_RENDER_CACHE`` is set already (a parent shares its own). A process that
    stubs Graphviz out must unset the variable first, or its fakes are shared too."""
    if os.environ.get(CACHE_ENV):
        return os.environ[CACHE_ENV]
    import atexit
    import shutil
    folder = tempfile.mkdtemp(prefix="autograd-lesson-render-")
    os.environ[CACHE_ENV] = folder
    atexit.register(shutil.rmtree, folder, True)
    return folder


def render(dot_source, fmt, engine="dot"):
    """Render DOT source to ``fmt`` ('svg' or 'png') bytes with Graphviz (``dot`` by default;
    ``neato`` with ``-n2`` for pinned positions)."""
    if not isinstance(dot_source, str):
        raise TypeError(f"render() takes DOT text (a str, such as a view's .source), got "
                        f"{type(dot_source).__name__}")
    return cached((engine, fmt, dot_source), lambda: _pipe(dot_source, fmt, engine))


def _pipe(dot_source, fmt, engine):
    """Graphviz's picture of ``dot_source``: by the kept process (``warm``), else by a run
    of its own, which raises Graphviz's complaint as one line."""
    drawn = warm.draw(dot_source, fmt, engine)
    if drawn is not None:
        return drawn
    source = graphviz.Source(dot_source, engine=engine)
    try:
        if engine == "neato":  # quiet: a layout warning is no output for a notebook
            return source.pipe(format=fmt, neato_no_op=2, quiet=True)
        return source.pipe(format=fmt, quiet=True)
    except graphviz.CalledProcessError as error:
        detail = (error.stderr or b"").decode("utf-8", "replace").strip().splitlines()
        raise ValueError("Graphviz could not read this DOT source ("
                         + (detail[0] if detail else "syntax error")
                         + "): pass DOT text such as a view's .source") from None


def svg_size_pt(svg):
    """(width, height) in points of Graphviz SVG output."""
    match = re.search(rb'<svg width="([\d.]+)pt" height="([\d.]+)pt"', svg)
    return (float(match.group(1)), float(match.group(2))) if match else (0.0, 0.0)


def shown(width_pt, height_pt, area_px=AREA_PX):
    """(scale, smallest text in px, height in px) of a picture shown at most area_px wide."""
    scale = min(1.0, area_px / max(width_pt * PX_PER_PT, 1))
    return scale, MIN_FONT_PT * PX_PER_PT * scale, height_pt * PX_PER_PT * scale


# JupyterLab shows the PNG of a picture wider than its output area (~934 px) at that width: a
# picture that fills AREA_PX is then a few pixels taller than at AREA_PX, so its height is
# checked at the widest it may be shown.
SHOWN_MAX_PX = 940


def fits(svg, area_px=AREA_PX, max_height_px=MAX_HEIGHT_PX):
    size = svg_size_pt(svg)
    _, text, _ = shown(*size, area_px)
    return text >= MIN_TEXT_PX and shown(*size, max(area_px, SHOWN_MAX_PX))[2] <= max_height_px


MAX_DRAWN = 45  # more boxes than this never fit 920 px at readable size


def drawn_nodes(source):
    """How many boxes a DOT source from picture_dot draws."""
    return len(re.findall(r"^  [ng]\d+ \[", source, flags=re.M))


def fit(make_dot, levels, area_px=AREA_PX, boxes=None, max_height_px=MAX_HEIGHT_PX):
    """The first of ``make_dot(level, rankdir)`` for level 0..levels (top-down, then
    left-right) that fits (``max_height_px``: a step-through crops around its node instead);
    else the most readable one. Returns (source, svg, level, rankdir).

    ``boxes(level)``, if given, says how many boxes a level draws without making its DOT, so a
    level with too many is skipped unmade; each level's DOT is made once, top-down, and turned
    left-right by its ``rankdir`` attribute (making a large graph's DOT cost more than ``dot``
    took on the folded one)."""
    best, made = None, {}
    for rankdir in ("TB", "LR"):
        for level in range(levels + 1):
            last_chance = level == levels and best is None
            if boxes is not None and boxes(level) > MAX_DRAWN and not last_chance:
                continue  # hopeless on a laptop, and dot takes long on it: fold more first
            if level not in made:
                made[level] = make_dot(level, "TB")
            source = made[level] if rankdir == "TB" else _turned(made[level], make_dot, level)
            if drawn_nodes(source) > MAX_DRAWN and not last_chance:
                continue
            svg = render(source, "svg")
            if fits(svg, area_px, max_height_px):
                return source, svg, level, rankdir
            scale, text, height = shown(*svg_size_pt(svg), area_px)
            score = (min(text / MIN_TEXT_PX, 1) + min(max_height_px / height, 1), -level)
            if best is None or score > best[0]:
                best = (score, source, svg, level, rankdir)
    return best[1:]


def fit_picture(before, after, title="", levels=4, legend=True, changes=None,
                area_px=AREA_PX, max_height_px=MAX_HEIGHT_PX, draw_hopeless=True,
                never_fold=()):
    """:func:`fit` for ``picture_dot(before, after, title)``, each fold level's groups worked
    out once. Returns (source, svg, level, rankdir, plan), ``plan`` the fold plan it drew;
    ``draw_hopeless=False``: (None, None, levels, "TB", plan) without drawing anything when
    even the last level has more than MAX_DRAWN boxes (a step-through then crops its frames
    around the running node, and needs only the plan); ``never_fold``: node ids no level
    may fold (a step-through's nodes that run: levels that would fold one are not tried)."""
    from .dot import compare, focus_sets, fold_plan, picture_dot
    changes = changes or compare(before, after)
    plans, focus = {}, focus_sets(before, after, changes)
    never_fold = set(never_fold)
    focus = [keep for keep in focus if never_fold <= set(keep)]
    levels = min(levels, len(focus))  # a level past the last distinct one draws the same

    def plan(level):
        if level not in plans:
            keep = focus[level - 1] if level else {n.id for n in after.nodes}
            plans[level] = fold_plan(after, keep) if len(keep) < len(after.nodes) else ({}, [])
        return plans[level]

    def boxes(level):
        folded, groups = plan(level)
        return len(after.nodes) - len(folded) + len(groups)

    def make(level, rankdir):
        return picture_dot(before, after, title, legend=legend, rankdir=rankdir,
                           changes=changes, plan=plan(level))
    if not draw_hopeless and boxes(levels) > MAX_DRAWN:
        return None, None, levels, "TB", plan(levels)
    if after.modules is not None and levels:
        source, svg, level, rankdir = fit_rows(make, levels, area_px, boxes, max_height_px)
        return source, svg, level, rankdir, plan(level)
    source, svg, level, rankdir = fit(make, levels, area_px, boxes, max_height_px)
    return source, svg, level, rankdir, plan(level)


def fit_rows(make_dot, levels, area_px=AREA_PX, boxes=None, max_height_px=MAX_HEIGHT_PX):
    """(source, svg, level, rankdir) in one layout: the first fold level whose boxes, in a
    column or wrapped into rows (modules.wrap), are predicted to fit, else the last level.
    Module boxes form a chain taller than a screen at every level: fit's top-down and
    left-right layouts both failed there (ResNet-18: two layouts, then a crop)."""
    from .modules import wrap
    width_pt = area_px / PX_PER_PT
    widest = width_pt * MIN_FONT_PT * PX_PER_PT / MIN_TEXT_PX  # shrunk to 11 px text at most
    for level in range(1, levels + 1):
        if boxes is not None and boxes(level) > MAX_DRAWN and level < levels:
            continue
        dot = make_dot(level, "TB")
        for wide in (0, width_pt, 0.97 * widest):  # a column, rows as wide as the output,
            # else rows as wide as 11 px text allows
            source, (width, height) = wrap(dot, wide)
            scale = min(1.0, width_pt / max(width, 1))
            if scale * MIN_FONT_PT * PX_PER_PT >= MIN_TEXT_PX and \
                    height * scale * PX_PER_PT <= max_height_px:
                return _checked(source, level, make_dot, levels, area_px, boxes, max_height_px)
    return _checked(source, level, make_dot, levels, area_px, boxes, max_height_px)


def _checked(source, level, make_dot, levels, area_px, boxes, max_height_px):
    """The predicted picture if it fits; else the more readable of it and what fit finds
    (a second layout, only where the prediction missed, as on small branched graphs)."""
    svg = render(source, "svg")
    if fits(svg, area_px, max_height_px):
        return source, svg, level, "TB"
    other, other_svg, other_level, rankdir = fit(make_dot, levels, area_px, boxes, max_height_px)

    def score(svg, level):
        _, text, height = shown(*svg_size_pt(svg), area_px)
        return fits(svg, area_px, max_height_px), \
            min(text / MIN_TEXT_PX, 1) + min(max_height_px / max(height, 1), 1), -level
    if score(other_svg, other_level) > score(svg, level):
        return other, other_svg, other_level, rankdir
    return source, svg, level, "TB"


def _turned(source, make_dot, level):
    """``source`` laid out left to right: its graph line's rankdir, or a new DOT if it has none."""
    if "rankdir=TB" in source:
        return source.replace("rankdir=TB", "rankdir=LR", 1)
    return make_dot(level, "LR")


def fit_width(svg, area_px=AREA_PX):
    """Size an SVG for the notebook: a picture wider than the output area is given the width
    of the area (the viewBox scales the drawing), a narrower one keeps its natural size. The
    size is written into the width/height attributes, because JupyterLab shows SVG output as
    an <img> whose size they decide; inline (a widget) the style also caps it at 100%."""
    match = re.search(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"', svg)
    if not match:
        return svg
    width, height = float(match.group(1)), float(match.group(2))
    scale = min(1.0, area_px / max(width * PX_PER_PT, 1))
    return svg.replace(match.group(0),
                       f'<svg width="{width * scale:.2f}pt" height="{height * scale:.2f}pt" '
                       f'style="max-width: 100%; height: auto"', 1)


def rgb_png(pixels):
    """PNG bytes of ``pixels``, an RGB image as a (height, width, 3) uint8 array: rows left
    unfiltered and deflated at level 3. For a step-through's strip of frames (lesson 02's is
    1333x13789 px) that takes a third of the time of Pillow's encoder (which tries every row
    filter and deflates at level 6), and the file is smaller (1.60 MB against 1.73 MB):
    pictures of graphs are mostly long runs of one colour."""
    pixels = np.ascontiguousarray(pixels, dtype=np.uint8)
    height, width, _ = pixels.shape
    rows = np.zeros((height, 1 + 3 * width), np.uint8)  # each row: filter byte 0, then pixels
    rows[:, 1:] = pixels.reshape(height, 3 * width)

    def chunk(kind, body):
        return (struct.pack(">I", len(body)) + kind + body
                + struct.pack(">I", zlib.crc32(kind + body)))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows.tobytes(), 3)) + chunk(b"IEND", b""))


def tag_png(png, min_pt=MIN_FONT_PT, px_per_pt=PX_PER_PT, extra=None):
    """Write the smallest font size and the pixels per point into the PNG (tEXt chunks), so
    a browser test can tell the shown text size of a picture it only sees as an image."""
    chunks = b""
    for key, value in (("autograd-lesson-min-pt", f"{min_pt:g}"),
                       ("autograd-lesson-px-per-pt", f"{px_per_pt:.6f}"),
                       *(extra or {}).items()):
        body = b"tEXt" + key.encode("latin-1") + b"\0" + value.encode("latin-1")
        chunks += struct.pack(">I", len(body) - 4) + body + struct.pack(">I", zlib.crc32(body))
    end_of_ihdr = 8 + 8 + 13 + 4
    return png[:end_of_ihdr] + chunks + png[end_of_ihdr:]


class GraphView:
    """A rendered graph: ``.source`` (DOT), ``.text`` (ledger or diff), SVG/PNG on demand."""

    def __init__(self, source, text, svg=None):
        from .checks import view_text
        view_text(source, text)
        self.source = source
        self.text = text
        self._cache = {} if svg is None else {"svg": svg}

    def _render(self, fmt):
        if fmt not in self._cache:
            self._cache[fmt] = render(self.source, fmt)
        return self._cache[fmt]

    def svg(self):
        return fit_width(self._render("svg").decode("utf-8"))

    def png(self):
        return tag_png(self._render("png"))

    def _repr_mimebundle_(self, include=None, exclude=None):
        try:
            return {"image/svg+xml": self.svg(),
                    "image/png": base64.b64encode(self.png()).decode("ascii"),
                    "text/plain": self.text}
        except graphviz.ExecutableNotFound:
            return {"text/plain": self.text + "\n" + dot_missing()}

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
