"""The fonts the pictures are drawn in, and the width a browser gives a line of text in them.

Graphviz measures text through Pango with hinting: each glyph's advance is rounded to a whole
pixel at 10 px, so it allots "float32[3, 4] · 48 B · ● ALIVE" 139 pt where a browser, drawing
the SVG unhinted, needs 144 pt, and the text ran across its box's border (up to 4 % wider; a
line of narrow glyphs, "iiii", 10 % narrower). ``text_width`` measures a line with the real
font files (DejaVu Sans, its bold, Noto Sans CJK for Hangul, found by fontconfig), so that
dot.py can give every table cell the width its text will really take.
"""
import functools
import re
import subprocess

HANGUL = re.compile("[\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3]")
CJK_FONT = "Noto Sans CJK KR"
_FILES = {"regular": "DejaVu Sans:style=Book", "bold": "DejaVu Sans:style=Bold",
          "cjk": CJK_FONT}
_UNIT = 1000  # measure at 1000 px, where Pillow's rounding is far below a point


@functools.lru_cache(maxsize=None)
def font_file(kind):
    """(path, index in a collection) of a font ("regular", "bold", "cjk"), or None."""
    pattern = _FILES[kind]
    try:
        found = subprocess.run(["fc-match", "-f", "%{family}\n%{file}\n%{index}", pattern],
                               capture_output=True, text=True, timeout=10).stdout.split("\n")
    except (OSError, subprocess.SubprocessError):
        return None
    if len(found) < 3 or pattern.split(":")[0].lower() not in found[0].lower():
        return None  # fontconfig's stand-in for a missing font measures nothing useful
    return found[1], int(found[2] or 0)


@functools.lru_cache(maxsize=None)
def pil_font(kind, size=_UNIT):
    """The Pillow font of ``kind`` at ``size`` px, or None when it is not installed."""
    try:
        from PIL import ImageFont
    except ImportError:
        return None
    where = font_file(kind)
    if where is None:
        return None
    try:
        return ImageFont.truetype(where[0], size, index=where[1])
    except OSError:
        return None


@functools.lru_cache(maxsize=2 ** 14)  # a step-through measures each box's lines for its
def text_width(text, size, bold=False):  # layout and again in every frame that draws it
    """Width in points of one line of ``text`` at ``size`` pt as a browser draws it (Hangul
    in the CJK font, the rest in DejaVu Sans), or None without the fonts."""
    return _measure(text, size, bold, lambda font, run: font.getlength(run), 1.04)


@functools.lru_cache(maxsize=8192)
def graphviz_width(text, size, bold=False):
    """Width in points Graphviz gives the same line (within 2 pt of what ``dot -Txdot``
    reports): Pango with hinted metrics, each glyph's advance a whole pixel at 96 dpi. A
    centred line starts where this width centres it, and the browser draws it text_width
    wide from there."""
    px = size * 96 / 72

    def hinted(font, run):
        return sum(round(_advance(font, c) * px / _UNIT) for c in run) * _UNIT / px
    return _measure(text, size, bold, hinted, 1.0)


@functools.lru_cache(maxsize=4096)
def _advance(font, char):
    return font.getlength(char)


def _measure(text, size, bold, length, cjk_bold):
    """``length(font, run)`` summed over the line's runs of Hangul and of the rest, in points;
    ``cjk_bold``: how much wider bold Hangul is drawn (no bold CJK file: a browser thickens
    the regular one, Pango does not)."""
    latin = pil_font("bold" if bold else "regular")
    cjk = pil_font("cjk") if HANGUL.search(text) else None
    if latin is None or (cjk is None and HANGUL.search(text)):
        return None
    width = 0.0
    for run in re.findall(f"{HANGUL.pattern}+|[^\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3]+",
                          text):
        if HANGUL.match(run):
            width += length(cjk, run) * (cjk_bold if bold else 1.0)
        else:
            width += length(latin, run)
    return width * size / _UNIT
