"""A picture at a glance (viz/glance.py, viz/fonts.py): no text across a border, the legend once
per notebook, at most one screen tall with a line saying what was left out, a step-through's
window around its running node."""
import re

import numpy as np
import pytest

import autograd_lesson as al
from autograd_lesson import lesson, viz
from autograd_lesson.viz import glance, live
from autograd_lesson.viz.fonts import text_width
from autograd_lesson.viz.render import MAX_HEIGHT_PX, render
from autograd_lesson.viz import steps as steps_module
from autograd_lesson.viz.steps import StepThrough

NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def _fonts_or_skip():
    if text_width("A", 10) is None:
        pytest.skip("DejaVu Sans is not installed (make dot)")


def _stale_view():
    x = al.tensor([0.4282, -0.0481, -0.2598, 1.5], requires_grad=True)
    h = x.exp()
    y = h.sigmoid()
    loss = (y * h).sum()
    before = viz.take_snapshot([loss], {"x": x, "loss": loss}, title="before")
    with al.no_grad():
        y.add_(1)  # y's sigmoid output is saved: its row reads ⚠ STALE v1≠v0
    after = viz.take_snapshot([loss], {"x": x, "loss": loss}, title="after")
    return viz.before_after_view(before, after, fold=False)


def _boxes(svg):
    """x-ranges of every polygon and path (cells, nodes, legend boxes) with their y-ranges."""
    found = []
    for points in re.findall(r'<(?:polygon|path)[^>]*(?:points|d)="([^"]*)"', svg):
        numbers = [float(v) for v in NUMBER.findall(points)]
        xs, ys = numbers[0::2], numbers[1::2]
        if xs:
            found.append((min(xs), max(xs), min(ys), max(ys)))
    return found


def _inside(svg, where, clear=0.5):
    """How many lines lie inside the smallest box around their anchor, each measured in the
    font a browser draws it in, ``clear`` pt off the box's edges (the heading's plain lines
    have no box and are not counted; an edge is no box)."""
    boxes = _boxes(re.sub(r'<g id="edge\d+" class="edge">.*?</g>', "", svg, flags=re.S))
    checked = 0
    for attrs, text in re.findall(r"<text([^>]*)>([^<]+)</text>", svg):
        x = float(re.search(r' x="([-\d.]+)"', attrs).group(1))
        y = float(re.search(r' y="([-\d.]+)"', attrs).group(1))
        size = float(re.search(r'font-size="([\d.]+)"', attrs).group(1))
        width = text_width(text.replace("&#160;", " ").replace("&amp;", "&")
                           .replace("&lt;", "<").replace("&gt;", ">").replace("&#45;", "-"),
                           size, 'font-weight="bold"' in attrs)
        anchor = re.search(r'text-anchor="(\w+)"', attrs).group(1)
        left = {"start": x, "middle": x - width / 2, "end": x - width}[anchor]
        around = [b for b in boxes if b[0] <= x <= b[1] and b[2] <= y <= b[3]]
        if not around:
            continue
        x0, x1, _, _ = min(around, key=lambda b: (b[1] - b[0]) * (b[3] - b[2]))
        assert x0 + clear <= left and left + width <= x1 - clear, \
            f"{text!r} ({where}) spans {left:.1f}–{left + width:.1f}, box {x0}–{x1}"
        checked += 1
    return checked


def test_no_text_crosses_the_border_of_its_box_in_the_real_font():
    """Every line, measured with the font a browser draws it in, lies inside the smallest box
    around its anchor: Graphviz's own (hinted) measure let "⚠ STALE v1≠v0" and "ALIVE" run
    across their borders."""
    _fonts_or_skip()
    for language in ("en", "ko"):
        lesson.set_language(language)
        try:
            view = _stale_view()
            svg = render(view.source, "svg").decode("utf-8")
        finally:
            lesson.set_language("en")
        assert "⚠ STALE v1≠v0" in svg
        assert _inside(svg, language, clear=0) > 10


def test_graphviz_width_is_what_dot_measures():
    """A centred line starts where Graphviz's own width centres it: fonts.graphviz_width must
    be what dot reports (xdot's text operation carries it), digits, arrows, bold and Hangul."""
    _fonts_or_skip()
    import subprocess
    from autograd_lesson.viz.dot import with_cjk_fallback
    from autograd_lesson.viz.fonts import graphviz_width
    lines = ["float32[4] · .grad: None → [0.0001042, -0.0001323, …]", "iiii", "WWWW",
             "layers.3.1.downsample.0 · Sequential ×100", "3,072 B saved here now",
             "features: 노드 2개 접음 (모두 실행됨)", "✓ 실행됨"]
    labels = [(text, bold) for text in lines for bold in (False, True)]
    dot = with_cjk_fallback('digraph {\n node [fontname="DejaVu Sans" fontsize=10 '
                            'shape=plaintext]\n' + "".join(
                                f'  n{k} [label=<{"<B>" * b}{text}{"</B>" * b}>]\n'
                                for k, (text, b) in enumerate(labels)) + "}\n")
    xdot = subprocess.run(["dot", "-Txdot"], input=dot, capture_output=True, text=True,
                          check=True).stdout.replace("\\\n", "")
    found = dict(re.findall(r"(n\d+)\s+\[_ldraw_=\"[^\"]*?T [-\d.]+ [-\d.]+ -?\d ([\d.]+)",
                            xdot))
    assert len(found) == len(labels)
    for k, (text, bold) in enumerate(labels):
        assert abs(graphviz_width(text, 10, bold) - float(found[f"n{k}"])) <= 2.5, (text, bold)


def test_module_boxes_keep_their_titles_and_lines_off_every_border():
    """Module boxes (open: a cluster titled with its module; folded: a folder-tab group) with
    long names, in both languages and at every fold level and depth: every line 0.5 pt off
    the border around it (a long title ran over its box, a leaf's digits over its border)."""
    _fonts_or_skip()
    from autograd_lesson.viz.dot import compare, picture_dot
    nn = al.nn
    al.manual_seed(0)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.downsample_projection = nn.Sequential(nn.Linear(4, 4), nn.Tanh())

        def forward(self, x):
            return self.downsample_projection(x)
    model = nn.Sequential(nn.Sequential(nn.Linear(3, 4), Block()), nn.Linear(4, 1))
    with viz.watch(model):
        loss = model(al.randn(2, 3)).pow(2).mean()
    drawn = 0
    for language in ("en", "ko"):
        lesson.set_language(language)
        try:
            for depth in (1, 2, 3):
                names = {"loss": loss}
                before = viz.take_snapshot([loss], names, model=model, depth=depth)
                rec = viz.record(lambda: loss.backward(retain_graph=True), roots=[loss],
                                 names=names)
                after = viz.take_snapshot([loss], names, executed=rec.executed, model=model,
                                          depth=depth)
                for level in range(4):
                    source = picture_dot(before, after, "t", fold_level=level,
                                         changes=compare(before, after), legend=level == 0)
                    svg = render(source, "svg").decode("utf-8")
                    drawn += _inside(svg, f"{language}, depth {depth}, level {level}") > 0
                    assert level or "cluster" in svg  # the boxes open at level 0
        finally:
            lesson.set_language("en")
    assert drawn == 24


def test_buffer_rows_put_their_two_lines_in_two_rows():
    """With <BR/> the lines sat so close that `_saved_self`'s underscores read as overbars."""
    source = _stale_view().source
    assert "_saved_result = " in source
    row = re.search(r'CELLPADDING="1">(?:(?!</TABLE>).)*_saved_result = .*?</TABLE>',
                    source).group(0)
    assert "<BR/>" not in row and row.count("<TR>") == 2


def test_the_legend_is_drawn_once_per_notebook(monkeypatch):
    cells = iter(["cell-a", "cell-b", "cell-a"])
    monkeypatch.setattr(glance, "_legend_cell", {})
    monkeypatch.setattr(glance, "cell_key", lambda fallback=None: next(cells))
    assert [glance.legend_here() for _ in range(3)] == [True, False, True]
    monkeypatch.setattr(glance, "cell_key", lambda fallback=None: None)  # plain Python
    assert glance.legend_here()


def _chain(n):
    x = al.randn(3, requires_grad=True)
    h = x
    for _ in range(n):
        h = (h * 1.5).tanh()
    loss = h.sum()
    return x, loss


def test_a_picture_taller_than_a_screen_shows_its_top_and_says_what_it_left_out():
    x, loss = _chain(12)
    snap = viz.take_snapshot([loss], {"x": x, "loss": loss}, title="a long chain")
    view = viz.graph_view(snap, fold=False)
    svg = view.svg()
    height_px = float(re.search(r'<svg width="[\d.]+pt" height="([\d.]+)pt"', svg).group(1)) \
        * 4 / 3
    assert height_px <= MAX_HEIGHT_PX
    note = re.search(r"▼ (\d+) box(?:es)? below left out here: ([^<]*)<", svg)
    assert note and int(note.group(1)) > 0, svg[-600:]
    assert "#0 " in note.group(2) or "…" in note.group(2)
    png = view.png()
    assert png.startswith(b"\x89PNG")


def test_a_picture_that_fits_is_not_cut():
    x, loss = _chain(1)
    snap = viz.take_snapshot([loss], {"x": x, "loss": loss})
    svg = viz.graph_view(snap).svg()
    assert "left out" not in svg


def test_the_step_through_window_holds_the_running_node_and_follows_a_drag():
    widgets = pytest.importorskip("ipywidgets")
    x, loss = _chain(12)
    recording = viz.record(lambda: loss.backward(), roots=[loss], names={"x": x, "loss": loss},
                           frames=True)
    steps = StepThrough(recording.frames, title="chain")
    box = steps.widget()
    slider = box.children[0].children[0]
    assert isinstance(slider, widgets.IntSlider) and slider.continuous_update
    assert "<details" in box.children[-1].value  # the legend, folded, under the picture
    for index in (0, len(steps.frames) // 2, len(steps.frames) - 1):
        for fold in (True, False):
            svg = steps.frame_svg(index, fold)
            width, height = (float(v) * 4 / 3 for v in re.search(
                r'<svg width="([\d.]+)pt" height="([\d.]+)pt"', svg).groups())
            assert height <= MAX_HEIGHT_PX - 100 and width <= 920 + 1
            running = f"<title>n{steps.frames[index].node_id}</title>"
            assert running in svg
            top, tall = (float(v) for v in re.search(
                r'viewBox="[-\d.]+ ([-\d.]+) [\d.]+ ([\d.]+)"', svg).groups())
            node = glance.boxes(svg)[f"n{steps.frames[index].node_id}"]
            assert top <= node[1] and node[3] <= top + tall, "the running node is cut off"
            scale = glance.shown_scale(svg)
            assert 10 * scale >= 11, "frame text under 11 px"
    live.close(box)  # a widget left open keeps its StepThrough (test_viz_v2 counts them)


def test_a_thick_border_is_drawn_square():
    """"running now" and "failed here" (4 pt borders): a rounded corner reached into the first
    line's text in Chromium (lesson 02's step-through); the thin ones stay rounded."""
    from autograd_lesson.viz.dot import _node_attrs
    assert "rounded" not in _node_attrs("now", "<x>") and "rounded" not in _node_attrs(
        "failed", "<x>")
    assert "rounded" in _node_attrs("ran", "<x>") and "rounded" in _node_attrs("idle", "<x>")


def test_a_picture_far_too_wide_is_shown_readable_around_its_top_box():
    """A module-box picture one level deeper came out 2-12x the output's width (its text at
    1-9 px): it is drawn with its text at 11 px, cut to the output's width around its top box,
    and says how many boxes it left out."""
    from autograd_lesson.viz.render import AREA_PX, MIN_TEXT_PX, PX_PER_PT
    wide = render('digraph { node [fontname="DejaVu Sans" fontsize=10 shape=box] root -> {'
                  + " ".join(f"leaf_number_{k}" for k in range(30)) + "} }", "svg").decode()
    svg, note = glance.crop_wide(wide)
    scale = glance.shown_scale(svg)
    width = float(re.search(r'<svg width="([\d.]+)pt"', svg).group(1)) * PX_PER_PT
    assert 10 * scale >= MIN_TEXT_PX - 0.01 and width <= AREA_PX + 0.5
    assert "the part around root" in note and "boxes outside it left out here" in note
    narrow = render('digraph { node [fontname="DejaVu Sans" fontsize=10] a -> b }', "svg")
    assert glance.crop_wide(narrow.decode())[1] == ""  # a picture that fits is left as it is
    # 1.4x the output's width (lesson 02 at depth 2: its text at 8.6 px) is cut too
    wider = render('digraph { node [fontname="DejaVu Sans" fontsize=10 shape=box] r -> {'
                   + " ".join(f"l{k}" for k in range(14)) + "} }", "svg").decode()
    natural = float(re.search(r'<svg width="([\d.]+)pt"', wider).group(1)) * PX_PER_PT
    assert 1.1 * AREA_PX < natural < 1.6 * AREA_PX, natural
    svg, note = glance.crop_wide(wider)
    assert note and 10 * glance.shown_scale(svg) >= MIN_TEXT_PX - 0.01



def test_a_wide_window_keeps_the_heading_and_avoids_cutting_boxes_at_its_sides():
    """A picture no taller than a screen keeps its top (the heading names the backward) when
    it is cut to a window; the window's sides move off a box where the top box allows."""
    wide = render('digraph { label="the heading" labelloc=t '
                  'node [fontname="DejaVu Sans" fontsize=10 shape=box] root -> {'
                  + " ".join(f"leaf_number_{k}" for k in range(30)) + "} }", "svg").decode()
    svg, note = glance.crop_wide(wide)
    top = float(glance._VIEWBOX.search(svg).group(2))
    assert note and top == float(glance._VIEWBOX.search(glance.readable(wide)[0]).group(2))
    found = {"top": (300, 0, 400, 10), "other": (450, 0, 550, 10)}
    assert glance._clear_sides(found, 225, 250, 300, 400, 0, 700) == 198  # right edge before it
    # no place holds the top box without a cut: the window stays where it was
    assert glance._clear_sides(found, 225, 250, 300, 400, 200, 480) == 225


def test_a_korean_group_puts_each_line_in_its_own_row_and_breaks_its_head_after_the_name():
    """Graphviz spaces <BR/> lines by the Latin font's height, and Hangul lines touched each
    other; a Korean head on one line made lesson 03's picture too wide for 11 px text."""
    from autograd_lesson.viz.dot import compare, picture_dot
    x = al.randn(3, requires_grad=True)
    hidden = (x * 2).tanh()
    loss = hidden.exp().sum()
    names = {"loss": loss, "hidden": hidden}
    lesson.set_language("ko")
    try:
        before = viz.take_snapshot([loss], names)
        rec = viz.record(lambda: loss.backward(), roots=[loss], names=names)
        after = viz.take_snapshot([loss], names, executed=rec.executed)
        source = picture_dot(before, after, "t", fold_level=3, changes=compare(before, after))
    finally:
        lesson.set_language("en")
    head = re.search(r"<B>hidden:</B></TD></TR><TR><TD[^>]*><B>노드 \d개 접음", source)
    assert head, source
    group = source[head.start():source.index("</TABLE>", head.start())]
    assert "<BR/>" not in group and "모두 그립니다" in group


def test_a_step_window_moves_its_edges_off_the_boxes_around_the_running_one():
    """A step-through's window around the running box cut its neighbours in half at its
    sides (lesson 04): its edges now fall between boxes where the running box allows."""
    from autograd_lesson.viz.render import AREA_PX
    wide = render('digraph { node [fontname="DejaVu Sans" fontsize=10 shape=box] r -> {'
                  + " ".join(f"leaf_number_{k}" for k in range(14)) + "} }", "svg").decode()
    svg = glance.fit_width(wide, 3 * AREA_PX)
    found = glance.boxes(svg)
    svg, note = glance.crop_around(svg, "leaf_number_6", max_width_px=AREA_PX / 2)
    x, _, width, _ = (float(v) for v in glance._VIEWBOX.search(svg).groups())
    assert note and "leaf_number_6" in found

    def cuts(at):
        return sum(b[0] < edge < b[2] for b in found.values() for edge in (at, at + width))
    x0, _, x1, _, _ = found["leaf_number_6"]
    whole = [float(v) for v in glance._VIEWBOX.search(glance.fit_width(wide, 3 * AREA_PX))
             .groups()]
    fewest = min(cuts(at) for at in np.arange(whole[0], whole[0] + whole[2] - width, 0.5)
                 if at <= x0 and x1 <= at + width)
    assert cuts(x) == fewest < cuts(min(max(whole[0], (x0 + x1) / 2 - width / 2),
                                        whole[0] + whole[2] - width))  # (where it was)


def test_a_note_names_a_korean_group_without_the_colon_its_head_breaks_after():
    """A Korean group's head is drawn as "loss1:" over "노드 2개 접음 …"; the name a window's
    note gives it is "loss1", as in English."""
    from autograd_lesson.viz import dot
    x = al.tensor([1.0, 2.0], requires_grad=True)
    loss1 = (x.exp() * 2).sum()
    names = {"x": x, "loss1": loss1}
    snap = viz.take_snapshot([loss1], names)
    keep = {n.id for n in snap.nodes if n.label} | {leaf.id for leaf in snap.leaves}
    lesson.set_language("ko")
    try:
        svg = render(dot.picture_dot(snap, snap, plan=dot.fold_plan(snap, keep)),
                     "svg").decode("utf-8")
    finally:
        lesson.set_language("en")
    group = [entry[4] for name, entry in glance.boxes(svg).items() if name.startswith("g")]
    assert group == ["loss1"]
    assert "loss1:</text>" in svg  # (the head as drawn still breaks after the colon)
