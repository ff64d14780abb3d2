"""Step through a recorded backward, one executed node per frame, every frame in one layout.

The layout is made once, by ``dot``, from the picture of the whole backward (start → end, the
widest labels); every frame is then drawn by ``neato -n2`` with each node pinned where that
layout put it, so nothing moves from frame to frame. A large graph's frames are windows: its
layout is made per region around the running nodes (regions.py), when a frame in it is first
drawn, and nothing moves while the frames stay in one region. The node running in a frame is
highlighted and its buffer rows read ``ALIVE → FREED``.

Displayed in a notebook it is *one* output: the ipywidgets slider (with a toggle that unfolds
the whole graph) where widgets run, and where they do not (a notebook fresh from a clone,
before it is run) a PNG of every frame (or the first and last ones, saying which were left
out) with a line saying that running the cell gives the slider; beside the slider, a graph of
over LOCAL_MIN_BOXES nodes stores only the slider's first picture and that line. Running the
cell again closes the previous run's widgets.
"""
import base64
import concurrent.futures
import html
import io
import json
import os
import subprocess
import weakref

import graphviz
import numpy as np

from ..i18n import get_language, t
from . import regions, warm
from .live import _live, show as show_live, widgets_run
from .dot import Change, compare, legend_dot, picture_dot
from .fonts import HANGUL, pil_font, text_width
from .glance import (_SIZE, _VIEWBOX, _boxes, boxes, cell_key, crop_around, legend_here,
                     shown_scale)
from .glance import window as glance_window
from .render import (AREA_PX, MAX_HEIGHT_PX, MIN_FONT_PT, MIN_TEXT_PX, PX_PER_PT, cached,
                     dot_missing, fit_picture, fit_width, render, rgb_png, tag_png)

MAX_STATIC_FRAMES = 12
# The slider's picture: at most this tall, so that the slider above it and the running node in
# it are on one screen (slider, folded legend and caption take the rest of MAX_HEIGHT_PX).
WINDOW_PX = MAX_HEIGHT_PX - 130
# The "whole graph" toggle draws at most this many nodes: dot laid out the transformer's 335
# in about 1 s, the GPT stack's 689 in 2 s and the unrolled LSTM's 1,510 in over 3 minutes.
WHOLE_MAX_NODES = 400
# A frame of a graph with more boxes than this, larger than the output, is drawn as a window
# around its running node (the boxes wholly inside it, pinned where the layout put them), not
# drawn whole and cropped: 12 frames of the transformer's 335 boxes drawn whole as PNGs and
# decoded took over a minute. The lessons' graphs are far smaller and drawn whole, as before.
LOCAL_MIN_BOXES = 100
LOCAL_LAYOUT = "splines=false nslimit=0.05 nslimit1=2"  # what such a layout asks dot for
_PNG_END = b"IEND\xaeB`\x82"  # the last chunk of every PNG (its type and CRC)
_NEATO_PNG = ["dot", "-Kneato", "-Tpng", "-n2"]  # what render(source, "png", "neato") runs
_legends = {}  # fmt -> the legend drawn once: it is the same picture in every step-through
_instances = weakref.WeakSet()  # every StepThrough alive (the leak test counts them)


class StepThrough:
    """Frames of one backward: ``.text`` lists them; display shows a slider (or all frames)."""

    def __init__(self, frames, title="", error_line=""):
        if frames is None or (isinstance(frames, (list, tuple)) and not frames):
            raise ValueError("no frames were recorded: did the call run a backward?")
        from .checks import frames as check_frames
        self.frames = check_frames(frames)
        self.title = title
        self.error_line = error_line
        self._segments = {}  # start snapshot id -> the frames of that backward
        self._plans = {}  # (start snapshot id, fold) -> what _plan returns
        self._splits = {}  # the same keys -> (region of each frame, region names)
        self._layouts = {}  # the same keys (and a region) -> (positions, sizes)
        self._svgs = {}
        _instances.add(self)

    @property
    def text(self):
        lines = [self.title] if self.title else []
        lines += [f.text for f in self.frames]
        return "\n".join(lines)

    def __repr__(self):
        return self.text

    # -- pictures ------------------------------------------------------------------------------
    def _segment(self, index):
        """The frames sharing frame ``index``'s start snapshot (one backward)."""
        start = self.frames[index].start  # (found once: a region split asks for every frame)
        if id(start) not in self._segments:
            self._segments[id(start)] = [f for f in self.frames if f.start is start]
        return self._segments[id(start)]

    def _plan(self, index, fold):
        """(fold plan, rankdir, widest changes, boxes) of the backward frame ``index`` belongs
        to: the folding and the labels every layout of it is made with, and its box count."""
        segment = self._segment(index)
        key = (id(segment[0].start), fold)
        if key not in self._plans:
            start, end = segment[0].start, segment[-1].snapshot
            changes = compare(start, end)
            # Fold for width only, and never a node that runs (ResNet-18's 131 of 132 nodes
            # were one box: every node ran, so no fold level but the last kept them all): a
            # frame taller than the screen is cut around its running node. With model= the
            # module boxes fold them, the box running now marked.
            runs = () if end.modules is not None else \
                [i for i, c in changes.items() if c.changed]
            *_, rankdir, plan = fit_picture(start, end, self._frame_title(segment[-1]),
                                            2 if fold else 0, changes=changes,
                                            max_height_px=10 ** 6, draw_hopeless=False,
                                            never_fold=runs)
            # Lay out with the widest labels any frame will have: every row's transition and
            # every node that runs marked as running now, so no frame outgrows its place.
            widest = {i: Change("now" if c.status == "ran" else c.status, c.changed)
                      for i, c in changes.items()}
            boxes = len(end.nodes) - len(plan[0]) + len(plan[1])
            self._plans[key] = (plan, rankdir, widest, boxes)
        return self._plans[key]

    def _layout(self, index, fold):
        """(fold plan, rankdir, positions) frame ``index`` is drawn with."""
        plan, rankdir, _, _ = self._plan(index, fold)
        return plan, rankdir, self._placed(index, fold)[0]

    def _placed(self, index, fold, whole=False):
        """(positions, sizes in points) of the boxes of frame ``index``'s layout: its region's
        where its frames are windows of a large folded graph (regions.py), else (or
        ``whole``) the whole graph's. Every frame of a region is pinned to the region's one
        layout, so no box moves while the slider stays in it; a box may move where the next
        frame's running box leaves it (a new region, laid out when first drawn)."""
        segment = self._segment(index)
        key = (id(segment[0].start), fold)
        plan, _, _, boxes = self._plan(index, fold)
        only = None
        if fold and boxes > LOCAL_MIN_BOXES and not whole:
            if key not in self._splits:
                first = self.frames.index(segment[0])
                near = regions.box_graph(segment[-1].snapshot.edges, plan[0])
                of, names = regions.split([self._running_box(first + k, fold)
                                           for k in range(len(segment))], near)
                self._splits[key] = ({first + k: r for k, r in enumerate(of)}, names)
            of, names = self._splits[key]
            only, key = names[of[index]], key + (of[index],)
        if key not in self._layouts:
            self._layouts[key] = self._lay_out(index, fold, only)
        return self._layouts[key]

    def _lay_out(self, index, fold, only):
        """dot's (positions, sizes) of the backward's boxes (``only``: those alone)."""
        segment = self._segment(index)
        plan, rankdir, widest, boxes = self._plan(index, fold)
        source = picture_dot(segment[0].start, segment[-1].snapshot, rankdir=rankdir,
                             changes=widest, plan=plan, positions={}, only=only)
        fmt = "json"
        if boxes > LOCAL_MIN_BOXES:
            # Frames are drawn as windows (local): only the boxes' places are needed, not
            # dot's edge routes (neato draws each frame's own), and network simplex cut
            # short; the unrolled LSTM's 503 boxes took 6.2 s of dot, this way 0.4 s (its
            # x coordinates, 9,163 nodes of dot's own, 0.09 s in 402 rounds, 0.03 in 10).
            # json0: without the drawing instructions of every label (the LSTM's layout:
            # 1.1 MB of JSON to parse, 0.25 MB without them).
            source = source.replace(" newrank=true", " newrank=true " + LOCAL_LAYOUT, 1)
            fmt = "json0"
        laid = json.loads(render(source, fmt))
        positions, sizes = {"bb": laid["bb"]}, {}
        for obj in laid.get("objects", []):
            if "pos" in obj:
                x, y = obj["pos"].split(",")
                positions[obj["name"]] = (float(x), float(y))
                sizes[obj["name"]] = (float(obj.get("width", 0)) * 72,
                                      float(obj.get("height", 0)) * 72)
        return positions, sizes

    def _running_box(self, index, fold):
        """The box frame ``index``'s node is drawn in: its own, or its module's (model=)."""
        node = self.frames[index].node_id
        plan = self._plan(index, fold)[0][0]
        return f"g{plan[node]}" if node in plan else f"n{node}"

    def _frame_title(self, frame):
        return t("steps.frame_title", step=frame.step, n=len(self.frames),
                 text=frame.text.split(': ', 1)[1])

    def local(self, index, fold, width_px, height_px):
        """(box names, window "x0,y0,x1,y1" in points): the boxes wholly inside a window of
        ``width_px`` by ``height_px`` around frame ``index``'s running node (in its region's
        layout), where the frame has over LOCAL_MIN_BOXES boxes (unfolded: and does not fit
        that window); else None (drawn whole)."""
        positions, sizes = self._placed(index, fold)
        x0, y0, x1, y1 = (float(v) for v in positions["bb"].split(","))
        width, height = width_px / PX_PER_PT, height_px / PX_PER_PT
        if self._plan(index, fold)[3] <= LOCAL_MIN_BOXES or \
                (not fold and x1 - x0 <= width and y1 - y0 <= height):
            return None  # (folded, so large a graph's layout is its region's: a window)
        running = self._running_box(index, fold)
        cx, cy = positions.get(running, ((x0 + x1) / 2, y1))
        left = min(max(x0, cx - width / 2), max(x0, x1 - width))
        bottom = min(max(y0, cy - height / 2), max(y0, y1 - height))
        right, top = min(x1, left + width), min(y1, bottom + height)
        names = {running} & set(sizes)
        for name, (w, h) in sizes.items():
            x, y = positions[name]
            if left <= x - w / 2 and x + w / 2 <= right and bottom <= y - h / 2 and \
                    y + h / 2 <= top:
                names.add(name)
        return names, f"{left:.2f},{bottom:.2f},{right:.2f},{top:.2f}"

    def frame_dot(self, index, fold=True, window=None):
        """DOT of frame ``index``; ``window`` (what :meth:`local` returned) draws only the
        boxes in it, pinned as in the whole frame, the window's corners anchored."""
        frame = self.frames[index]
        plan, rankdir, positions = self._layout(index, fold)
        now = frame.node_id
        same = index and self.frames[index - 1].start is frame.start
        if window is None:  # the whole frame, in the whole graph's layout
            positions = self._placed(index, fold, whole=True)[0]
            snap = frame.snapshot
            previous = self.frames[index - 1].snapshot if same else frame.start
            changes = compare(frame.start, snap, now=None if frame.failed else now)
            return picture_dot(previous, snap, self._frame_title(frame), rankdir=rankdir,
                               changes=changes, plan=plan, positions=positions)
        # A window: the records of its boxes alone (a folded box's members included), not
        # the whole graph's for every frame; the DOT is the same as drawn from whole snapshots.
        only, bb = window
        positions = dict({n: positions[n] for n in only}, bb=bb)
        ids = {int(n[1:]) for n in only if n.startswith("n")}
        for name in only:
            if name.startswith("g"):
                ids.update(plan[1][int(name[1:])][1])
        timeline, failed = frame._timeline, now if frame.failed else None
        snap = timeline.part(frame._count, ids, failed)
        start = timeline.part(0, ids, start=True)
        before = self.frames[index - 1]
        previous = timeline.part(before._count, ids, before.node_id if before.failed else
                                 None) if same else start
        changes = compare(start, snap, now=None if frame.failed else now)
        return picture_dot(previous, snap, self._frame_title(frame), rankdir=rankdir,
                           changes=changes, plan=plan, positions=positions, only=only)

    def frame_svg(self, index, fold=True):
        """Frame ``index`` as the slider shows it: at full size (its text 13 px; the whole
        graph, shrunk to the output's width, drew it at 8 px), cut to a window around the
        running node when it would not fit under the slider or across the output."""
        nodes = len(self.frames[index].start.nodes)
        if not fold and nodes > WHOLE_MAX_NODES:  # one line, not minutes of layout
            line = t("steps.whole_too_large", n=f"{nodes:,}", most=WHOLE_MAX_NODES)
            return f"<p>{html.escape(line)}</p>"
        if (index, fold) not in self._svgs:
            window = self.local(index, fold, AREA_PX, WINDOW_PX - 30) if fold else None
            svg = render(self.frame_dot(index, fold, window), "svg",
                         engine="neato").decode("utf-8")
            svg, _ = crop_around(fit_width(svg, 10 ** 6), self._running_box(index, fold),
                                 WINDOW_PX, AREA_PX)
            if window is not None:  # say what the window left out, as crop_around does
                svg = self._window_note(svg, index, fold, window)
            self._svgs = {(index, fold): svg}  # one at a time: cheap to redo
        return self._svgs[(index, fold)]

    def _window_note(self, svg, index, fold, window):
        found = boxes(svg)
        name = self._running_box(index, fold)
        outside = self._plan(index, fold)[3] - len(window[0])
        if not outside or name not in found:
            return svg
        x, y, width, height = (float(v) for v in _VIEWBOX.search(svg).groups())
        return glance_window(svg, y, y + height, note=t(
            "view.window", name=found[name][4], n=outside, boxes=_boxes(outside)))

    def frame_png(self, index, fold=True):
        return render(self.frame_dot(index, fold), "png", engine="neato")

    def frame_pngs(self, indices, fold=True):
        """``[frame_png(i) for i in indices]`` from one ``neato`` run: Graphviz draws every
        graph of its input in turn (the same bytes), and starting it once per frame cost
        about a third of a step-through's picture time."""
        return self._frame_pngs([self.frame_dot(i, fold) for i in indices], indices, fold)

    def _frame_pngs(self, dots, indices, fold):
        try:
            joined = cached(("neato-frames", "png", "".join(dots)), lambda: _neato_pngs(dots))
        except _Unsplit:  # draw them one by one (and fail as render() does)
            return [render(dot, "png", engine="neato") for dot in dots]
        return [part + _PNG_END for part in joined.split(_PNG_END)[:-1]]

    def chosen(self, most=MAX_STATIC_FRAMES):
        """The frames a static picture shows (at most ``most``), and a note on the ones left
        out."""
        n = len(self.frames)
        if n <= most:
            return list(range(n)), ""
        half = most // 2
        picked = list(range(half)) + list(range(n - half, n))
        return picked, t("steps.left_out", first=half + 1, last=n - half, n=n)

    def static_png(self):
        """Every chosen frame at full size, in one column (two when narrow), under a header
        line saying that running the cell gives the slider."""
        picked, note = self.chosen()
        header = t("steps.static_header", shown=len(picked), n=len(self.frames),
                   note=f" ({note})" if note else "")
        # a large graph's frames as windows around their running nodes (_window crops the
        # caption's height off the window)
        windows = [self.local(i, True, AREA_PX, MAX_HEIGHT_PX) for i in picked]
        dots = [self.frame_dot(i, True, w) for i, w in zip(picked, windows)]
        captions = "\n".join(self.frames[i].text for i in picked)
        legend = legend_here()
        # the same frames, captions and header (in the same language) make the same strip
        return cached(("static-frames", "png", get_language(), header, captions, "".join(dots),
                       str(legend)), lambda: self._static_png(picked, header, dots, legend, windows))

    def _window(self, frame, index, caption_px=60, bb=None):
        """The part of a frame's PNG around its running node, at most the output's width and
        MAX_HEIGHT_PX less its caption tall: a frame taller than a screen showed its node off
        screen, and a wider one was shrunk below 11 px."""
        tall = MAX_HEIGHT_PX - caption_px
        if frame.height <= tall and frame.width <= AREA_PX:
            return frame
        _, _, positions = self._layout(index, True)
        x0, y0, x1, y1 = (float(v) for v in (bb or positions["bb"]).split(","))
        node = positions.get(self._running_box(index, True), ((x0 + x1) / 2, y1))
        per_pt = frame.height / (y1 - y0 + 8)  # Graphviz pads the drawing by 4 pt
        centre_x, centre_y = (node[0] - x0 + 4) * per_pt, (y1 - node[1] + 4) * per_pt
        width, height = min(frame.width, AREA_PX), min(frame.height, tall)
        left = int(min(max(0, centre_x - width / 2), frame.width - width))
        top = int(min(max(0, centre_y - height / 2), frame.height - height))
        return frame.crop((left, top, left + width, top + height))

    def _static_png(self, picked, header, dots, with_legend=True, windows=None):
        from PIL import Image, ImageDraw, ImageFont
        font_px = round(MIN_FONT_PT * PX_PER_PT)
        try:
            font = ImageFont.truetype("DejaVuSans.ttf", font_px)
            bold = ImageFont.truetype("DejaVuSans-Bold.ttf", font_px)
        except OSError:
            font = bold = ImageFont.load_default()
        header_font = pil_font("cjk", font_px) if HANGUL.search(t("steps.slider")) else font
        texts = {i: self.frames[i].text for i in picked}  # the captions, in the lesson's language
        caption_font = (pil_font("cjk", font_px) if HANGUL.search("".join(texts.values()))
                        else None) or bold
        line = font_px + 6
        images = []
        for i, png in zip(picked, self._frame_pngs(dots, picked, True)):  # each frame under
            frame = Image.open(io.BytesIO(png)).convert("RGB")  # under its caption (wrapped)
            words = texts[i].split(" ")
            lines, current = [], ""
            for word in words:
                trial = f"{current} {word}".strip()
                if current and caption_font.getlength(trial) > \
                        min(max(frame.width, 420), AREA_PX) - 12:
                    lines.append(current)
                    current = word
                else:
                    current = trial
            lines.append(current)
            window = windows[picked.index(i)] if windows else None
            frame = self._window(frame, i, line * len(lines) + 8,  # caption + frame: one screen
                                 window and window[1])
            framed = Image.new("RGB", (max(frame.width, 420), frame.height + line * len(lines)
                                       + 8), "white")
            draw = ImageDraw.Draw(framed)
            for k, text in enumerate(lines):
                draw.text((6, 4 + k * line), text, fill="black", font=caption_font)
            framed.paste(frame, (0, line * len(lines) + 8))
            images.append(framed)
        legend = Image.open(io.BytesIO(_legend("png"))).convert("RGB") if with_legend else \
            Image.new("RGB", (1, 1), "white")
        width = max(i.width for i in images)
        columns = 2 if 2 * width <= AREA_PX else 1
        height = max(i.height for i in images)
        top = line + 6 + legend.height
        rows = (len(images) + columns - 1) // columns
        sheet = Image.new("RGB", (max(width * columns, legend.width, 10),
                                  top + height * rows), "white")
        draw = ImageDraw.Draw(sheet)
        draw.text((6, 4), header, fill="black", font=header_font or font)
        sheet.paste(legend, (0, line + 6))
        for k, image in enumerate(images):
            x, y = (k % columns) * width, top + (k // columns) * height
            sheet.paste(image, (x, y))
            draw.rectangle([x, y, x + image.width - 1, y + image.height - 1], outline="#bbbbbb")
        return tag_png(rgb_png(np.asarray(sheet)),
                       extra={"autograd-lesson-frame-height-px": str(height)})

    # -- notebook display ---------------------------------------------------------------------
    def side_html(self, index):
        """HTML shown beside frame ``index``'s picture in the slider (None: nothing)."""
        return None

    def widget(self):
        """A slider over the frames, the caption of the chosen one, and its picture; a toggle
        draws the whole graph instead of the folded one."""
        import ipywidgets as widgets
        picture = widgets.HTML(self.frame_svg(0))
        caption = widgets.HTML(f"<b>{html.escape(self.frames[0].text)}</b>")
        # The legend folded under the picture (open in the notebook's first picture): in every
        # step-through it took ~130 px between the slider and the running node.
        legend = widgets.HTML(f'<details{" open" if legend_here() else ""}><summary>'
                              f'{html.escape(t("steps.legend"))}</summary>'
                              f'{fit_width(_legend("svg").decode("utf-8"))}</details>')
        # continuous_update: the picture follows the handle while it is dragged (frames are
        # drawn once and cached), not only when it is let go
        slider = widgets.IntSlider(value=1, min=1, max=len(self.frames), step=1,
                                   description=t("steps.slider"), continuous_update=True)
        whole = widgets.ToggleButton(value=False, description=t("steps.whole"),
                                     tooltip=t("steps.whole_tip"))
        me = weakref.ref(self)  # the widgets must not keep the frames alive on their own

        def show(change=None):
            steps = me()
            if steps is None:
                return
            index = slider.value - 1
            picture.value = steps.frame_svg(index, fold=not whole.value)
            caption.value = f"<b>{html.escape(steps.frames[index].text)}</b>"
            if side is not None:
                side.value = steps.side_html(index)

        slider.observe(show, names="value")
        whole.observe(show, names="value")
        first = self.side_html(0)
        side = None if first is None else widgets.HTML(first)
        # The code above the picture, not beside it: the picture keeps the output's full width
        # (beside the code it was cut off at 1366 px).
        shown = picture if side is None else widgets.VBox([side, picture])
        box = _slider_class()([widgets.HBox([slider, whole]), caption, shown, legend])
        box._count = len(self.frames)
        box._keep = self  # the widget keeps its StepThrough; closing it lets both go
        return box

    def display(self, key=None):
        """Show as one output: the slider where widgets run, else every frame as a PNG."""
        from IPython.display import display
        bundle = {"text/plain": self.text}
        try:  # (where widgets do not run, the static frames are the picture)
            if widgets_run() and len(self.frames[0].start.nodes) > LOCAL_MIN_BOXES:
                # Where the slider runs it is the picture; what the notebook stores beside it
                # for a viewer without widgets is the first frame the slider drew (its SVG,
                # no more Graphviz or Pillow work) and a line saying where the others are. A
                # strip of frames cost 8-44 backwards of the real models (each frame ~25 ms
                # of Graphviz and ~25 ms of Pillow); the lessons' graphs keep their strips.
                box = self.widget()
                bundle["image/svg+xml"] = self.first_frame_copy()
            else:
                bundle["image/png"] = base64.b64encode(self.static_png()).decode("ascii")
                box = None
        except graphviz.ExecutableNotFound:
            display({"text/plain": self.text + "\n" + dot_missing()}, raw=True)
            return
        show_live(bundle, self.widget if box is None else (lambda: box),
                  cell_key(key or self.title))

    def first_frame_copy(self):
        """The slider's first picture (drawn once: frame_svg caches it) with a last line
        saying that the other steps are on the slider, widened where the line is wider."""
        svg = self.frame_svg(0)
        note = t("steps.first_only", n=len(self.frames))
        x, y, width, height = (float(v) for v in _VIEWBOX.search(svg).groups())
        font = max(10.0, MIN_TEXT_PX / shown_scale(svg))  # the size glance.window draws it
        needed = (text_width(note, font) or 0) + 8
        if needed > width:
            size = _SIZE.search(svg)
            grow = needed / width
            svg = _VIEWBOX.sub(f'viewBox="{x:.2f} {y:.2f} {needed:.2f} {height:.2f}"', svg, 1)
            svg = _SIZE.sub(f'<svg width="{float(size.group(1)) * grow:.2f}pt" '
                            f'height="{size.group(2)}pt"', svg, 1)
        return glance_window(svg, y, y + height, note=note)

    def _repr_mimebundle_(self, include=None, exclude=None):
        bundle = {"text/plain": self.text}
        try:
            bundle["image/png"] = base64.b64encode(self.static_png()).decode("ascii")
        except graphviz.ExecutableNotFound:
            bundle["text/plain"] += "\n" + dot_missing()
        return bundle


class _Unsplit(Exception):
    """neato failed, or did not give one PNG per frame."""


def _neato_pngs(dots):
    """The PNGs neato draws for the graphs ``dots``, as one byte string: by the kept process
    (warm.py), else one neato process per core (at most 4, each with 2 frames or more)
    drawing its run of frames at the same time."""
    drawn = warm.draw("".join(dots), "png", "neato")  # the kept process: no start-up
    if drawn is not None and drawn.count(_PNG_END) == len(dots):
        return drawn
    n = max(1, min(_cores(), 4, len(dots) // 2))
    if n == 1:
        return _neato_run(dots)
    runs = [dots[k * len(dots) // n:(k + 1) * len(dots) // n] for k in range(n)]
    with concurrent.futures.ThreadPoolExecutor(n) as pool:
        return b"".join(pool.map(_neato_run, runs))


def _cores():
    """The cores this process may run on (a container's share, where the OS tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def _neato_run(dots):
    try:  # communicate(): Graphviz writes a frame's PNG before it has read the next graph
        run = subprocess.run(_NEATO_PNG, input="".join(dots).encode("utf-8"),
                             capture_output=True)
    except FileNotFoundError:
        raise graphviz.ExecutableNotFound(_NEATO_PNG) from None
    if run.returncode or run.stdout.count(_PNG_END) != len(dots):
        raise _Unsplit
    return run.stdout


def _legend(fmt):
    key = (fmt, get_language())  # the legend speaks the lesson's language
    if key not in _legends:
        _legends[key] = render(legend_dot(), fmt)
    return _legends[key]


_SLIDER = []


def _slider_class():
    if not _SLIDER:
        import ipywidgets as widgets

        class StepSlider(widgets.VBox):
            def __repr__(self):  # the text a notebook stores: short and stable, not the SVG
                return f"step-through slider over {getattr(self, '_count', 0)} steps"
        _SLIDER.append(StepSlider)
    return _SLIDER[0]


def live_widgets():
    """(step-through widgets shown and not closed, StepThrough objects alive)."""
    return len(_live), len(_instances)
