"""A picture at a glance on a laptop (JupyterLab at 1366×768 with the file browser open):
the legend once per notebook, and a picture taller than a screen cropped to the part that
fits, saying in one line what it left out.

The legend is drawn in the first notebook cell that shows a picture (and again whenever that
cell runs), so every later picture gains its ~130 px; outside a notebook (a script, a figure)
every picture keeps it. A crop is made on the drawn SVG (or PNG): its viewBox is narrowed to
a window (the top of the picture, or one around the node a step is about), never cutting a
box in half, and a last line names the boxes left out.
"""
import html
import io
import math
import re

from ..i18n import t
from .fonts import HANGUL, pil_font, text_width
from .dot import MIN_FONT_PT
from .render import MAX_HEIGHT_PX as MAX_SHOWN_PX, MIN_TEXT_PX, PX_PER_PT, AREA_PX, SHOWN_MAX_PX, \
    GraphView, fit_width, tag_png

_legend_cell = {}


def cell_key(fallback=None):
    """The id of the notebook cell being run (JupyterLab and nbclient send it), else
    ``fallback``."""
    try:
        from IPython import get_ipython
        shell = get_ipython()
        parent = shell.kernel.get_parent() if shell is not None and hasattr(shell, "kernel") \
            else None
        cell = (parent or {}).get("metadata", {}).get("cellId")
        return cell or fallback
    except Exception:  # no kernel: plain Python
        return fallback


def legend_here():
    """Whether the picture drawn now carries the legend: in the first notebook cell that
    draws one in this kernel (and when that cell runs again), and always outside a notebook."""
    cell = cell_key()
    if cell is None:
        return True
    return _legend_cell.setdefault("cell", cell) == cell


# -- reading Graphviz's SVG ---------------------------------------------------------------------
_SIZE = re.compile(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"')
_VIEWBOX = re.compile(r'viewBox="([\d.-]+) ([\d.-]+) ([\d.]+) ([\d.]+)"')
_NODE = re.compile(r'<g id="(?:node|a_node)\d+" class="node">\s*<title>([^<]*)</title>(.*?)</g>',
                   re.S)
_POINTS = re.compile(r'(?:points|d)="([^"]*)"')


def boxes(svg):
    """{node name: (x0, y0, x1, y1, first text line)} in the SVG's viewBox units."""
    transform = re.search(r'class="graph" transform="[^"]*translate\(([\d.-]+) ([\d.-]+)\)',
                          svg)
    tx, ty = (float(transform.group(1)), float(transform.group(2))) if transform else (0, 0)
    found = {}
    for name, body in _NODE.findall(svg):
        numbers = [float(v) for points in _POINTS.findall(body)
                   for v in re.findall(r"-?[\d.]+", points)]
        if len(numbers) < 2:
            continue
        xs, ys = numbers[0::2], numbers[1::2]
        text = re.search(r"<text[^>]*>([^<]*)</text>", body)
        # (a Korean group's head is broken after its name, "loss1:", and a note names it)
        found[name] = (min(xs) + tx, min(ys) + ty, max(xs) + tx, max(ys) + ty,
                       html.unescape(text.group(1)).strip().rstrip(":") if text else name)
    return found


def shown_scale(svg):
    """CSS px per viewBox unit of an SVG as fit_width sized it."""
    size, box = _SIZE.search(svg), _VIEWBOX.search(svg)
    return float(size.group(1)) * PX_PER_PT / max(float(box.group(3)), 1)


def window(svg, top, bottom, left=None, right=None, note=""):
    """The SVG narrowed to viewBox rows top..bottom (and columns left..right), shown at the
    same scale, with ``note`` as a last line under it."""
    scale = shown_scale(svg)
    x, y, width, height = (float(v) for v in _VIEWBOX.search(svg).groups())
    left = x if left is None else max(x, left)
    right = x + width if right is None else min(x + width, right)
    top, bottom = max(y, top), min(y + height, bottom)
    font = max(10.0, MIN_TEXT_PX / scale)  # the note is never smaller than the pictures' text
    extra = 1.6 * font if note else 0
    new_height = bottom - top + extra
    svg = _VIEWBOX.sub(f'viewBox="{left:.2f} {top:.2f} {right - left:.2f} {new_height:.2f}"',
                       svg, count=1)
    svg = _SIZE.sub(f'<svg width="{(right - left) * scale / PX_PER_PT:.2f}pt" '
                    f'height="{new_height * scale / PX_PER_PT:.2f}pt"', svg, count=1)
    if note:
        family = "DejaVu Sans,Noto Sans CJK KR" if HANGUL.search(note) else "DejaVu Sans"
        svg = svg.replace("</svg>", (
            f'<rect x="{left:.2f}" y="{bottom:.2f}" width="{right - left:.2f}" '
            f'height="{extra:.2f}" fill="white"/>'
            f'<text x="{left + 4:.2f}" y="{bottom + 1.2 * font:.2f}" font-family="{family}" '
            f'font-size="{font:.2f}" fill="#9e1b1b">{html.escape(note)}</text></svg>'), 1)
    return svg


def _left_out_note(svg, found, names):
    """The one line naming the boxes ``names`` left out, with as many names as fit the
    picture's width (measured in the real font)."""
    scale = shown_scale(svg)
    width = float(_VIEWBOX.search(svg).group(3)) - 8
    font = max(10.0, MIN_TEXT_PX / scale)
    for limit in range(min(len(names), 4), -1, -1):
        picked = ", ".join([found[n][4] for n in names[:limit]] +
                           (["…"] if len(names) > limit else []))
        note = t("view.left_out", n=len(names), boxes=_boxes(len(names)), names=picked)
        if (text_width(note, font) or 0) <= width:
            return note
    return note


def crop_height(svg, max_px=MAX_SHOWN_PX):
    """(svg, note): the picture as it is if it is shown at most ``max_px`` tall, else its top
    part cut above the first box that would cross the limit, and the line saying what is
    left out (also drawn under the picture)."""
    if not (_SIZE.search(svg) and _VIEWBOX.search(svg)):  # not Graphviz's SVG: as it is
        return svg, ""
    scale = shown_scale(svg)
    x, y, width, height = (float(v) for v in _VIEWBOX.search(svg).groups())
    if width * PX_PER_PT > AREA_PX:
        # a PNG wider than the output is shown at its ~934 px, not fit_width's 920
        # (render.fits): cut with that much room, so it stays within max_px
        max_px = max_px * AREA_PX / min(width * PX_PER_PT, SHOWN_MAX_PX)
    if height * scale <= max_px:
        return svg, ""
    found = boxes(svg)
    limit = y + (max_px - 1.6 * max(10.0, MIN_TEXT_PX / scale) * scale) / scale
    cut = limit
    for x0, y0, x1, y1, _ in found.values():
        if y0 < cut < y1:
            cut = min(cut, y0 - 2)
    below = sorted((n for n, b in found.items() if b[3] > cut), key=lambda n: found[n][1])
    if not below:
        return svg, ""
    note = _left_out_note(svg, found, below)
    return window(svg, y, cut, note=note), note


def crop_around(svg, name, max_px=MAX_SHOWN_PX, max_width_px=None):
    """(svg, note): a window at most ``max_px`` tall (and ``max_width_px`` wide) centred on the
    box ``name``, saying how many boxes lie outside it; the SVG as it is when it fits."""
    if not (_SIZE.search(svg) and _VIEWBOX.search(svg)):
        return svg, ""
    scale = shown_scale(svg)
    x, y, width, height = (float(v) for v in _VIEWBOX.search(svg).groups())
    found = boxes(svg)
    tall = height * scale > max_px
    wide = max_width_px is not None and width * scale > max_width_px
    if name not in found or not (tall or wide):
        return svg, ""
    x0, y0, x1, y1, _ = found[name]
    note_px = 1.6 * max(10.0, MIN_TEXT_PX / scale) * scale
    top, bottom = y, y + height
    if tall:  # (the window's edges moved off a box where the running one allows)
        span = (max_px - note_px) / scale
        top = min(max(y, (y0 + y1) / 2 - span / 2), y + height - span)
        rows = {n: (b[1], 0, b[3]) for n, b in found.items()}
        top = _clear_sides(rows, top, span, y0, y1, y, y + height)
        bottom = top + span
    left, right = x, x + width
    if wide:
        span = max_width_px / scale
        left = min(max(x, (x0 + x1) / 2 - span / 2), x + width - span)
        left = _clear_sides(found, left, span, x0, x1, x, x + width)
        right = left + span
    outside = [n for n, b in found.items() if b[2] < left or b[0] > right or b[3] < top or
               b[1] > bottom]
    note = (t("view.window", name=found[name][4], n=len(outside), boxes=_boxes(len(outside)))
            if outside else "")
    return window(svg, top, bottom, left, right, note), note


def crop_png(png, svg_before, svg_after, note):
    """The PNG of a picture cropped as ``svg_after`` crops ``svg_before``, the note drawn
    under it (Pillow, the real fonts); the PNG unchanged without Pillow."""
    try:
        from PIL import Image, ImageDraw
    except ImportError:
        return png
    image = Image.open(io.BytesIO(png)).convert("RGB")
    old = [float(v) for v in _VIEWBOX.search(svg_before).groups()]
    new = [float(v) for v in _VIEWBOX.search(svg_after).groups()]
    per_x, per_y = image.width / old[2], image.height / old[3]
    font = pil_font("cjk" if HANGUL.search(note) else "regular", round(10 * PX_PER_PT))
    # the note's line as tall, in the PNG's own pixels, as the SVG's: the two pictures keep one
    # aspect ratio, so a PNG wider than the output is not shown taller than its SVG
    note_units = 1.6 * max(10.0, MIN_TEXT_PX / shown_scale(svg_before)) if note else 0
    line = math.ceil(note_units * per_y)
    new_height = new[3] - note_units
    box = (round((new[0] - old[0]) * per_x), round((new[1] - old[1]) * per_y),
           round((new[0] - old[0] + new[2]) * per_x),
           round((new[1] - old[1] + new_height) * per_y))
    part = image.crop(box)
    sheet = Image.new("RGB", (part.width, part.height + line), "white")
    sheet.paste(part, (0, 0))
    if note and font is not None:
        ImageDraw.Draw(sheet).text((6, part.height + 2), note, fill="#9e1b1b", font=font)
    out = io.BytesIO()
    sheet.save(out, "PNG")
    return out.getvalue()


def readable(svg):
    """(the SVG sized for the output, whether it must be cut to a window): fit_width's size,
    or, where that shows its text under MIN_TEXT_PX, the size that shows it at MIN_TEXT_PX."""
    fitted = fit_width(svg)
    size = _SIZE.search(svg)
    if size is None or MIN_FONT_PT * shown_scale(fitted) >= MIN_TEXT_PX - 0.01:  # (px/pt)
        return fitted, False
    # of the natural size; 0.2 px over the limit: an output a few px narrower than
    # AREA_PX (a widget's) shows the window that much smaller
    scale = (MIN_TEXT_PX + 0.2) / (MIN_FONT_PT * PX_PER_PT)
    return fit_width(svg, float(size.group(1)) * PX_PER_PT * scale), True


def crop_wide(svg):
    """(svg, note): crop_height of the picture as fit_width sizes it; or, if that shows its
    text under MIN_TEXT_PX (a module-box picture one level deeper was drawn 2-12x too wide,
    its text at 1-9 px), a window at readable size of one output's width and one screen's
    height around its top box (the root of a top-down graph), saying how many boxes it left
    out."""
    base, wide = readable(svg)
    found = boxes(base) if wide else {}
    if not found:
        return crop_height(base)
    top = min(found, key=lambda name: (found[name][1], found[name][0]))
    scale = shown_scale(base)
    x, y, width, height = (float(v) for v in _VIEWBOX.search(base).groups())
    x0, y0, x1, _, label = found[top]
    span = AREA_PX / scale
    left = min(max(x, (x0 + x1) / 2 - span / 2), x + width - span)
    left = _clear_sides(found, left, span, x0, x1, x, x + width)
    # down one screen less the note, never cutting a box in half at the bottom; from the top
    # (the heading says which backward this is) when the picture is no taller than that, else
    # from just above the top box
    note_units = 1.6 * max(10.0, MIN_TEXT_PX / scale)
    screen = MAX_SHOWN_PX / scale - note_units
    upper = y if height <= screen else max(y, y0 - 8)
    lower = min(y + height, upper + screen)
    for b in found.values():
        if upper < b[1] < lower < b[3]:
            lower = b[1] - 2
    outside = [n for n, b in found.items() if b[0] < left or b[2] > left + span or
               b[1] < upper or b[3] > lower]
    note = t("view.window", name=label, n=len(outside), boxes=_boxes(len(outside))) \
        if outside else ""
    return window(base, upper, lower, left, left + span, note), note


def _clear_sides(found, left, span, keep0, keep1, low, high):
    """``left`` for a window ``span`` wide that cuts the fewest boxes in half at its sides
    (the nearest such, from ``left``) while it holds keep0..keep1 (the top box) and stays
    within low..high."""
    def cuts(at):
        return sum(b[0] < edge < b[2] for b in found.values() for edge in (at, at + span))
    edges = {e for b in found.values() for e in (b[0] - 2, b[2] + 2)}
    candidates = [left] + [at for e in edges for at in (e, e - span)
                           if low <= at <= high - span and at <= keep0 and keep1 <= at + span]
    return min(candidates, key=lambda at: (cuts(at), abs(at - left)))


class GlanceView(GraphView):
    """A GraphView shown at most one screen tall and with its text at MIN_TEXT_PX or more: a
    taller picture shows its top part, a far wider one the part around its top box, and says
    which boxes it left out (the DOT source and the text twin stay whole)."""

    def _glance(self):
        if "glance" not in self._cache:
            self._cache["glance"] = crop_wide(self._render("svg").decode("utf-8"))
        return self._cache["glance"]

    def svg(self):
        return self._glance()[0]

    def png(self):
        svg, note = self._glance()
        if not note:
            return super().png()
        base, _ = readable(self._render("svg").decode("utf-8"))
        return tag_png(crop_png(self._render("png"), base, svg, note))


def _boxes(n):
    return "box" if n == 1 else "boxes"
