"""Graph view v2: one layout, palette under colour blindness, cost, leaks, bad input."""
import gc
import itertools
import json
import weakref

import numpy as np
import pytest

import autograd_lesson as al
from autograd_lesson import lesson, viz
from autograd_lesson.viz import steps as steps_module
from autograd_lesson.viz.dot import NODE_STYLES, STATES
from autograd_lesson.viz.steps import StepThrough


def small_graph():
    x = al.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x + 2
    z = y * y * 3
    out = z.mean()
    return dict(x=x, y=y, z=z, out=out)


# -- palette -------------------------------------------------------------------------------------
def _simulated_lab(hex_colours, deficiency):
    colour = pytest.importorskip("colour")
    rgb = np.array([[int(h[i:i + 2], 16) / 255 for i in (1, 3, 5)] for h in hex_colours])
    linear = colour.models.eotf_sRGB(rgb)
    if deficiency:
        matrix = colour.blindness.matrix_cvd_Machado2009(deficiency, 1.0)
        linear = np.clip(linear @ matrix.T, 0, 1)
    xyz = colour.RGB_to_XYZ(linear, colour.RGB_COLOURSPACES["sRGB"], apply_cctf_decoding=False)
    return colour.XYZ_to_Lab(xyz)


FAMILIES = {
    "buffer fills": [st["fill"] for st in STATES.values()],
    "buffer borders": [st["border"] for st in STATES.values()],
    # leaves and folded groups are told apart by their shape (box, folder) and neutral grey
    "node highlight fills": [NODE_STYLES[k][0] for k in ("idle", "ran", "now", "failed")],
    "warning borders": [STATES["stale"]["border"], NODE_STYLES["failed"][1],
                        NODE_STYLES["now"][1], STATES["retained"]["border"]],
}


@pytest.mark.parametrize("deficiency", [None, "Deuteranomaly", "Protanomaly", "Tritanomaly"])
@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_palette_colours_stay_apart_under_colour_blindness(family, deficiency):
    import colour
    lab = _simulated_lab(FAMILIES[family], deficiency)
    for (i, a), (j, b) in itertools.combinations(enumerate(lab), 2):
        distance = float(colour.delta_E(a, b, method="CIE 2000"))
        assert distance >= 8, (f"{family} {i} and {j} are ΔE {distance:.1f} apart under "
                               f"{deficiency or 'normal vision'}")


def test_every_state_differs_in_two_of_fill_border_and_word():
    for (a, sa), (b, sb) in itertools.combinations(STATES.items(), 2):
        differences = [sa["fill"] != sb["fill"],
                       (sa["width"], sa["dashed"]) != (sb["width"], sb["dashed"]),
                       sa["icon"] != sb["icon"]]
        assert sum(differences) >= 2, (a, b)
    shapes = {"leaf": "box", "group": "folder"}  # the rest are rounded boxes
    for (a, sa), (b, sb) in itertools.combinations(NODE_STYLES.items(), 2):
        differences = [sa[0] != sb[0], sa[2:4] != sb[2:4] or shapes.get(a) != shapes.get(b),
                       sa[4] != sb[4]]
        assert sum(differences) >= 2, (a, b)


def test_the_dot_names_dejavu_sans():
    names = small_graph()
    source = viz.graph_view(viz.take_snapshot([names["out"]], names)).source
    assert 'fontname="DejaVu Sans"' in source and "Helvetica" not in source


# -- one layout --------------------------------------------------------------------------------------
def _positions(source, engine):
    laid = json.loads(viz.render(source, "json", engine=engine))
    return {o["name"]: o["pos"] for o in laid["objects"] if o["name"][0] in "ng"}


def test_step_through_frames_keep_every_node_where_it_was():
    names = small_graph()
    rec = viz.record(lambda: names["out"].backward(), roots=[names["out"]], names=names,
                     frames=True)
    steps = StepThrough(rec.frames, "out.backward()")
    frames = [_positions(steps.frame_dot(i), "neato") for i in range(len(steps.frames))]
    assert len(frames) == 5 and len(frames[0]) == 5
    assert all(f == frames[0] for f in frames)


def test_a_comparison_is_one_picture_with_transitions_and_repeated_edges():
    names = small_graph()
    roots = [names["out"]]
    before = viz.take_snapshot(roots, names, title="before")
    rec = viz.record(lambda: names["out"].backward())
    after = viz.take_snapshot(roots, names, executed=rec.executed, title="after")
    source = viz.before_after_view(before, after).source
    assert "cluster" not in source and source.count("digraph") == 1
    assert "ALIVE → ○ FREED" in source and "✓ ran" in source
    assert source.count("n1 -> n0") == 2  # y * y: both edges drawn


def test_a_large_graph_folds_into_labelled_groups_and_unfolds_on_request():
    al.manual_seed(0)
    cell = al.nn.RNNCell(2, 3)
    h = al.zeros(1, 3)
    names = {}
    for t in range(12):
        h = cell(al.randn(1, 2), h)
        names[f"h{t}"] = h
    loss = h.sum()
    names["loss"] = loss
    snap = viz.take_snapshot([loss], names)
    folded, whole = viz.graph_view(snap), viz.graph_view(snap, fold=False)
    assert "nodes folded" in folded.source and "fold=False draws them" in folded.source
    assert "folded" not in whole.source.replace("folded nodes", "")
    assert whole.source.count("[label=<<TABLE") > folded.source.count("[label=<<TABLE")


# -- cost and leaks ---------------------------------------------------------------------------------
def test_step_through_records_deltas_not_a_snapshot_per_step(monkeypatch):
    import importlib
    record_module = importlib.import_module("autograd_lesson.viz.record")
    calls = []
    real = record_module.take_snapshot
    monkeypatch.setattr(record_module, "take_snapshot",
                        lambda *a, **k: calls.append(1) or real(*a, **k))
    x = al.tensor(np.ones(4), requires_grad=True)
    y = x
    for _ in range(300):
        y = y * 1.001
    rec = viz.record(lambda: y.sum().backward(), roots=[y], names=dict(x=x), frames=True)
    assert len(rec.frames) == 200 and len(calls) == 1


def test_a_failed_backward_frees_its_buffers_without_gc():
    gc.disable()
    try:
        x = al.tensor(np.ones(3), requires_grad=True)
        hidden = (x * 2).exp()
        loss = hidden.sum()
        loss.backward()  # frees: the second backward raises
        hidden2 = (x * 3).exp()
        bad = hidden2.sum() + loss
        storage = weakref.ref(hidden2._storage)
        names = dict(x=x, bad=bad)
        rec = viz.record(lambda: bad.backward(), roots=[bad], names=names, frames=True)
        assert isinstance(rec.error, RuntimeError) and rec.error.__traceback__ is None
        assert rec.frames[-1].failed.startswith("✗ RuntimeError")
        del hidden2, bad, names
        assert storage() is None, "the recording kept the failed graph's buffers alive"
    finally:
        gc.enable()


def test_rerunning_a_step_through_closes_the_old_widgets(monkeypatch):
    widgets = pytest.importorskip("ipywidgets")
    monkeypatch.setattr(steps_module, "cell_key", lambda fallback: "cell-1")
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda *a, **k: shown.append(a))

    def run():
        names = small_graph()
        out = names["out"]  # noqa: F841  (the code string runs in this namespace)
        lesson.step_through("out.backward()", **names)
    run()
    gc.collect()
    start_widgets, start_steps = len(widgets.Widget.widgets), len(steps_module._instances)
    for _ in range(20):
        run()
    gc.collect()
    assert len(widgets.Widget.widgets) == start_widgets
    assert len(steps_module._instances) == start_steps == 1
    assert "application/vnd.jupyter.widget-view+json" in shown[-1][0]
    assert "image/png" in shown[-1][0]  # the static frames for a notebook not yet run


# -- bad input -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("call, words", [
    (lambda t, s: lesson.show_graph(5, x=t), "title (a str)"),
    (lambda t, s: viz.graph_view(t), "pass viz.take_snapshot"),
    (lambda t, s: viz.ledger(t), "pass viz.take_snapshot"),
    (lambda t, s: viz.diff(s, None), "two Snapshots"),
    (lambda t, s: viz.take_snapshot([t], names=[t]), "names must be a dict"),
    (lambda t, s: viz.render("digraph {", "svg"), "could not read this DOT"),
])
def test_bad_input_gets_one_line_saying_what_to_pass(call, words):
    x = al.tensor([1.0], requires_grad=True)
    t = x * 2
    s = viz.take_snapshot([t])
    with pytest.raises((TypeError, ValueError)) as info:
        call(t, s)
    assert words in str(info.value) and "\n" not in str(info.value)


def test_without_dot_every_helper_degrades_to_its_text(monkeypatch, capsys):
    import graphviz
    import importlib
    rendering = importlib.import_module("autograd_lesson.viz.render")  # nothing drawn yet:
    monkeypatch.setattr(rendering, "_RENDERED", rendering.collections.OrderedDict())
    monkeypatch.delenv(rendering.CACHE_ENV, raising=False)

    def missing(*args, **kwargs):
        raise graphviz.ExecutableNotFound(["dot"])
    monkeypatch.setattr(graphviz.Source, "pipe", missing)
    monkeypatch.setattr(importlib.import_module("autograd_lesson.viz.warm"), "draw",
                        lambda *args, **kwargs: None)
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda obj, **k: shown.append(
        obj if isinstance(obj, dict) else obj._repr_mimebundle_()))
    names = small_graph()
    lesson.show_graph("g", **names)
    names = small_graph()
    out = names["out"]  # noqa: F841
    lesson.step_through("out.backward()", **names)
    assert all(set(b) == {"text/plain"} and "'dot' program is missing" in b["text/plain"]
               for b in shown), shown


@pytest.mark.parametrize("shape", [(1, 1), (2, 7), (61, 40)])
def test_a_strip_png_holds_exactly_its_pixels(shape):
    """viz.render.rgb_png, the step-through strip's encoder: lossless, and a PNG Pillow reads."""
    import io
    from PIL import Image
    from autograd_lesson.viz.render import rgb_png
    pixels = np.random.RandomState(len(shape) + shape[0]).randint(0, 256, (*shape, 3)).astype(np.uint8)
    pixels[: shape[0] // 2] = 255  # a white run, as in a drawing
    image = Image.open(io.BytesIO(rgb_png(pixels)))
    assert (image.format, image.mode, image.size) == ("PNG", "RGB", (shape[1], shape[0]))
    assert np.array_equal(np.asarray(image), pixels)


@pytest.mark.parametrize("cores,frames,runs", [(4, 12, [3, 3, 3, 3]), (8, 5, [2, 3]),
                                               (2, 12, [6, 6]), (1, 12, [12]), (4, 3, [3])])
def test_frames_are_drawn_by_one_neato_per_core_in_order(monkeypatch, cores, frames, runs):
    """Without the kept process: at most 4 processes, each 2 frames or more; the frames come
    back in their order, as one process draws them."""
    names = small_graph()
    rec = viz.record(lambda: names["out"].backward(), roots=[names["out"]], names=names,
                     frames=True)
    step = StepThrough(rec.frames, "out.backward()")
    dots = [step.frame_dot(i % len(rec.frames)) for i in range(frames)]
    one_run = steps_module._neato_run(dots)
    assert steps_module._neato_pngs(dots) == one_run  # by the kept process (viz.warm)
    monkeypatch.setattr(steps_module.warm, "draw", lambda *args, **kwargs: None)
    drawn, run = [], steps_module._neato_run
    monkeypatch.setattr(steps_module, "_neato_run", lambda part: drawn.append(len(part)) or run(part))
    monkeypatch.setattr(steps_module, "_cores", lambda: cores)
    assert steps_module._neato_pngs(dots) == one_run
    assert sorted(drawn) == sorted(runs)  # (the threads may start in any order)


def test_a_step_through_strip_is_the_sheet_pillow_composed(monkeypatch):
    """The strip, encoded by rgb_png, decodes to the very pixels of the sheet Pillow composed,
    and carries the frame height the browser test reads."""
    import io
    from PIL import Image
    encode, sheets = steps_module.rgb_png, []
    monkeypatch.setattr(steps_module, "rgb_png",
                        lambda pixels: sheets.append(np.array(pixels)) or encode(pixels))
    monkeypatch.setattr(steps_module, "cached", lambda key, make: make())  # draw it here
    names = small_graph()
    rec = viz.record(lambda: names["out"].backward(), roots=[names["out"]], names=names,
                     frames=True)
    strip = Image.open(io.BytesIO(StepThrough(rec.frames, "out.backward()").static_png()))
    assert len(sheets) == 1 and sheets[0].ndim == 3
    assert np.array_equal(np.asarray(strip), sheets[0])
    assert strip.info["autograd-lesson-frame-height-px"].isdigit()


# -- lessons ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("number", ["00", "01", "02", "03", "04", "05", "06", "07"])
def test_every_scenario_lesson_stores_a_step_through_with_its_static_frames(number):
    import base64
    import pathlib
    import nbformat
    path = next(pathlib.Path(__file__).resolve().parents[1].glob(f"notebooks/{number}_*.ipynb"))
    nb = nbformat.read(path, as_version=4)
    outputs = [o for c in nb.cells if c.cell_type == "code" and "step_through(" in c.source
               for o in c.outputs if "image/png" in o.get("data", {})]
    assert outputs, f"{path.name} has no stored step-through"
    for output in outputs:
        data = output["data"]
        assert "application/vnd.jupyter.widget-view+json" in data  # one output: slider + frames
        png = base64.b64decode(data["image/png"])
        assert b"autograd-lesson-frame-height-px" in png
        assert data["text/plain"].splitlines()[1].startswith("step 1: ")
