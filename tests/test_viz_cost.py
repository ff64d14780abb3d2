"""What the view's cost is made of, counted (never timed; benchmarks/ times it): a snapshot
reads each node once, show_backward takes two snapshots, fit makes no DOT for a fold level it
skips, a step-through says when its frames stopped, and the whole-graph toggle refuses (in one
line) a graph too large to lay out in seconds."""
import importlib
import io

import pytest

import autograd_lesson as al
from autograd_lesson import lesson, viz
from autograd_lesson.viz import steps as steps_module
from autograd_lesson.viz.snapshot import COUNTS

render = importlib.import_module("autograd_lesson.viz.render")  # (viz.render: a function)


def _mlp(lib, steps=6):
    """A small unrolled net: tanh/mul/add chains, parameters reached many times."""
    w = lib.tensor([[0.5, -0.25], [0.125, 0.75]], requires_grad=True)
    h = lib.tensor([[1.0, -1.0]])
    for _ in range(steps):
        h = (h @ w).tanh() * 0.9 + h
    loss = h.pow(2).sum()
    return dict(w=w, loss=loss)


def test_show_backward_takes_two_snapshots_reading_each_node_once(lib, capsys, monkeypatch):
    monkeypatch.setattr("autograd_lesson.lesson.showing.display", lambda view: None)
    names = _mlp(lib)
    nodes = len(viz.take_snapshot([names["loss"]], names).nodes)
    COUNTS.clear()
    lesson.show_backward(lambda: names["loss"].backward(retain_graph=True), **names)
    assert COUNTS["snapshots"] == 2
    assert COUNTS["node reads"] == 2 * nodes
    COUNTS.clear()
    viz.take_snapshot([names["loss"]], names)
    assert COUNTS == {"snapshots": 1, "node reads": nodes}
    assert "retained" in capsys.readouterr().out


def test_a_recording_alone_reads_a_torch_graph_once_and_then_not_again(torch):
    names = _mlp(torch)
    COUNTS.clear()
    viz.record(lambda: names["loss"].backward(retain_graph=True), roots=[names["loss"]],
               names=names)
    first = COUNTS["node reads"]
    assert first > 0 and COUNTS["snapshots"] == 0
    viz.record(lambda: names["loss"].backward(retain_graph=True), roots=[names["loss"]],
               names=names)
    assert COUNTS["node reads"] == first  # what a save held is known: nothing to read again


def test_the_torch_reader_reads_a_freed_save_without_unpacking_it(torch, monkeypatch):
    """Unpacking a freed save raises torch's error, which cost most of a read: a save seen
    alive and now freed is told from its raw handle."""
    from autograd_lesson.viz import torch_graphs
    x = torch.tensor([0.5, -1.0], requires_grad=True)
    with viz.watch():  # (outside a watch an unfreed save reads "unknown": it may be retained)
        loss = (x.exp() * x).sum()
    before = viz.take_snapshot([loss], {"x": x, "loss": loss})
    loss.backward()
    unpacked = []

    def counting_getattr(obj, name, *default):
        if name.startswith("_saved_"):
            unpacked.append(name)
        return getattr(obj, name, *default)
    monkeypatch.setattr(torch_graphs, "getattr", counting_getattr, raising=False)
    after = viz.take_snapshot([loss], {"x": x, "loss": loss})
    assert {b.state for b in before.buffers} == {"alive"}
    assert {b.state for b in after.buffers} == {"freed"} and len(after.buffers) == 3
    assert unpacked == []


def test_fit_makes_no_dot_for_a_level_it_skips(monkeypatch):
    monkeypatch.setattr(render, "render", lambda source, fmt, engine="dot": (
        b'<svg width="100pt" height="100pt"'))
    made = []

    def make(level, rankdir):
        made.append((level, rankdir))
        return f"digraph {{\n  graph [rankdir={rankdir}]\n  n0 [label=x]\n}}\n"
    boxes = {0: 500, 1: 300, 2: 3, 3: 2}
    source, _, level, rankdir = render.fit(make, 3, boxes=boxes.__getitem__)
    assert made == [(2, "TB")] and (level, rankdir) == (2, "TB")
    monkeypatch.setattr(render, "fits", lambda svg, *sizes: False)
    made.clear()
    source, _, level, rankdir = render.fit(make, 3, boxes=boxes.__getitem__)
    assert made == [(2, "TB"), (3, "TB")]  # left-right is the same DOT, turned


@pytest.mark.parametrize("name", ["resnet18", "transformer", "gpt", "lstm"])
def test_a_real_models_module_picture_is_one_layout_that_fits_a_laptop(name, monkeypatch):
    """model=: the fold level and the rows are chosen before any layout (fit_rows), so the
    before/after of loss.backward() is one dot run, and it fits 650 px at 11 px text (it
    took a top-down and a left-right layout at every level and was cropped: issue 25)."""
    pytest.importorskip("torch")
    import pathlib
    import sys
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "benchmarks"))
    import real_models
    model, step = real_models.MODELS[name]()
    with viz.watch(model):
        loss = step()
    layouts, shown = [], []
    drawn = render.render
    monkeypatch.setattr(render, "render", lambda source, fmt, engine="dot": (
        layouts.append(fmt), drawn(source, fmt, engine))[1])
    monkeypatch.setattr("autograd_lesson.lesson.showing.display", shown.append)
    monkeypatch.setattr("autograd_lesson.lesson.showing.display_boxes",  # (its depth buttons)
            lambda view, *args: shown.append(view))
    monkeypatch.setattr("builtins.print", lambda *a, **k: None)
    lesson.show_backward(lambda: loss.backward(), model=model, loss=loss)
    assert layouts == ["svg"]
    svg = shown[0]._render("svg")
    assert render.fits(svg), render.shown(*render.svg_size_pt(svg))
    assert "rank=same" in shown[0].source or name == "lstm"  # (the LSTM's 4 boxes: a column)


def test_fit_rows_lays_out_once_and_searches_only_when_its_prediction_missed(monkeypatch):
    drawn = []
    monkeypatch.setattr(render, "render", lambda source, fmt, engine="dot": (
        drawn.append(source), b'<svg width="100pt" height="100pt"')[1])

    def make(level, rankdir):  # a chain of nine 264 pt boxes: a column is ~810 px tall
        boxes = "\n".join(f'  g{i} [label=<<TABLE><TR><TD WIDTH="250">box {i}<BR/>a<BR/>b'
                          f'</TD></TR></TABLE>>]' for i in range(9))
        edges = "\n".join(f"  g{i} -> g{i + 1}" for i in range(8))
        return f"digraph {{\n  graph [rankdir={rankdir}]\n{boxes}\n{edges}\n}}\n"
    source, _, level, rankdir = render.fit_rows(make, 2)
    assert len(drawn) == 1 and (level, rankdir) == (1, "TB")
    assert source.count("rank=same") == 5  # two boxes a row, read like text
    monkeypatch.setattr(render, "fits", lambda svg, *sizes: False)
    drawn.clear()
    render.fit_rows(make, 2)
    assert len(drawn) > 1 and drawn[0] == source  # then fit's search, as before


def test_a_capped_step_through_says_how_many_steps_ran(monkeypatch):
    shown = []
    monkeypatch.setattr(steps_module.StepThrough, "display",
                        lambda self, key=None: shown.append(self))
    x = al.tensor([0.5, 1.5], requires_grad=True)
    y = x
    for i in range(300):
        y = y * 0.999 if i % 2 == 0 else y.relu()
    lesson.step_through(lambda: y.sum().backward(), x=x, y=y)
    steps, = shown
    assert steps.text.splitlines()[0] == "<lambda>: 200 of 302 steps (frames stop at 200)"
    lesson.set_language("ko")
    try:
        from autograd_lesson.lesson.showing import steps_title
        assert steps_title(_Ran(200, 302), "f()") == "f(): 프레임 302개 중 200개 (프레임은 " \
            "200개까지만 기록합니다)"
    finally:
        lesson.set_language("en")


class _Ran:
    def __init__(self, shown, ran):
        self.frames, self.executed_count = [None] * shown, ran


def test_the_whole_graph_toggle_refuses_a_graph_too_large_in_one_line():
    x = al.tensor([0.5, 1.5], requires_grad=True)
    y = x
    for i in range(steps_module.WHOLE_MAX_NODES + 5):
        y = y * 0.999
    recording = viz.record(lambda: y.sum().backward(), roots=[y], names={"y": y},
                           frames=True, max_frames=3)
    steps = steps_module.StepThrough(recording.frames)
    line = steps.frame_svg(1, fold=False)
    nodes = len(recording.frames[0].start.nodes)
    assert line == (f"<p>The whole graph has {nodes:,} nodes: drawing more than "
                    f"{steps_module.WHOLE_MAX_NODES} takes too long here; the folded picture "
                    "shows what this step changed.</p>")


@pytest.mark.parametrize("boxes, splines", [(10, "splines=true"), (200, "splines=line")])
def test_a_pinned_picture_routes_edges_only_when_small(boxes, splines):
    x = al.tensor([0.5], requires_grad=True)
    y = x
    for _ in range(boxes - 1):
        y = y * 0.5
    snap = viz.take_snapshot([y], {"y": y})
    source = viz.picture_dot(snap, snap, positions={"bb": "0,0,10,10"})
    assert splines in source


def _pinned(source):
    return sum(1 for line in source.splitlines() if line.startswith(("  n", "  g")) and
               "pos=" in line)


def test_a_large_graphs_frame_is_drawn_from_a_window_of_boxes_around_its_running_node():
    x = al.tensor([0.5, 1.5], requires_grad=True)
    y = x
    for i in range(300):
        y = y * 0.999 if i % 2 == 0 else y.relu()
    recording = viz.record(lambda: y.sum().backward(), roots=[y], names={"y": y},
                           frames=True)
    steps = steps_module.StepThrough(recording.frames)
    assert _pinned(steps.frame_dot(100)) > 200  # the 200 nodes that ran, and a folded rest
    names, bb = steps.local(100, True, render.AREA_PX, render.MAX_HEIGHT_PX)
    local = steps.frame_dot(100, True, (names, bb))
    running = f"n{steps.frames[100].node_id}"
    assert running in names and f"  {running} " in local
    assert 3 <= _pinned(local) == len(names) <= 20  # a screenful, however long the chain
    assert f'pos="{bb.split(",")[0]}' in local  # the window's corner is anchored
    assert "->" in local  # the edges between the boxes drawn
    from PIL import Image
    strip = Image.open(io.BytesIO(steps.static_png()))  # one screen per frame at most
    assert int(strip.info["autograd-lesson-frame-height-px"]) <= render.MAX_HEIGHT_PX


def test_a_small_graphs_frame_is_drawn_whole():
    x = al.tensor([0.5, 1.5], requires_grad=True)
    y = (x * 2).relu().sum()
    recording = viz.record(lambda: y.backward(), roots=[y], names={"y": y}, frames=True)
    steps = steps_module.StepThrough(recording.frames)
    assert steps.local(0, True, 10, 10) is None  # smaller than the window it is not


def _whole_frame_dot(steps, index, window):
    """Frame ``index``'s window drawn as before: from the whole graph's snapshots."""
    from autograd_lesson.viz.dot import compare
    frame = steps.frames[index]
    plan, rankdir, positions = steps._layout(index, True)
    only, bb = window
    positions = dict({n: positions[n] for n in only}, bb=bb)
    snap = frame.snapshot
    previous = steps.frames[index - 1].snapshot if index and \
        steps.frames[index - 1].start is frame.start else frame.start
    changes = compare(frame.start, snap, now=None if frame.failed else frame.node_id)
    return viz.picture_dot(previous, snap, steps._frame_title(frame), rankdir=rankdir,
                           changes=changes, plan=plan, positions=positions, only=only)


def _long_graph(lib, n=300):
    """x → ... → loss, ~400 nodes; v is saved by one node two thirds of the way up."""
    x = lib.tensor([0.5, 1.5], requires_grad=True)
    w = lib.tensor([0.25, -0.5], requires_grad=True)
    v = lib.tensor([2.0, 0.5])
    y = x
    for i in range(n):
        y = y * w if i % 3 == 0 else y.exp() * 0.5 if i % 3 == 1 else y.relu()
        if i == 2 * n // 3:
            y = y * v
    return x, w, v, y.sum()


@pytest.mark.parametrize("how", ["backward", "retain_graph", "raises"])
def test_a_large_graphs_frame_reads_only_its_windows_records(lib, how):
    """A window's frame is built from the records of its boxes (a folded box's members
    included), not the whole graph's: the same DOT as from whole snapshots, at a cost that
    does not grow with the graph."""
    x, w, v, loss = _long_graph(lib)
    names = dict(x=x, w=w, loss=loss)
    if how == "raises":  # v changed in place: the backward raises at the node that saved it
        def call():
            v.mul_(2)
            loss.backward()
    else:
        def call():
            loss.backward(retain_graph=how == "retain_graph")
    recording = viz.record(call, roots=[loss], names=names, frames=True)
    steps = steps_module.StepThrough(recording.frames)
    nodes = len(steps.frames[0].start.nodes)
    assert nodes > 400
    picked = sorted({0, 1, len(steps.frames) // 2, len(steps.frames) - 1})
    for index in picked:
        window = steps.local(index, True, render.AREA_PX, render.MAX_HEIGHT_PX)
        COUNTS.clear()
        local = steps.frame_dot(index, True, window)
        # three parts (start, previous, this frame) of the window's boxes and their members
        assert 0 < COUNTS["frame records"] <= 3 * 60 < nodes
        assert local == _whole_frame_dot(steps, index, window)  # (whole snapshots: counted)
    if how == "raises":
        assert steps.frames[-1].failed and recording.error is not None


def test_beside_the_slider_a_large_graph_stores_the_first_frame_the_slider_drew(monkeypatch):
    """Where widgets run, a graph of over 100 nodes stores beside the slider the slider's own
    first picture and one line: no strip (its frames were 8-44 backwards of the real models),
    no picture drawn for it. Without the slider, and for a lesson-sized graph, the strip."""
    pytest.importorskip("ipywidgets")
    shown, drawn, strips = [], [], []
    monkeypatch.setattr("IPython.display.display", lambda bundle, raw=False: shown.append(
        bundle))
    real = steps_module.render
    monkeypatch.setattr(steps_module, "render", lambda source, fmt, engine="dot": (
        drawn.append((fmt, engine)), real(source, fmt, engine))[1])
    monkeypatch.setattr(steps_module.StepThrough, "_static_png", lambda self, picked, header,
                        *rest: strips.append((picked, header)) or steps_module._legend("png"))
    x, w, _, loss = _long_graph(al)
    recording = viz.record(lambda: loss.backward(), roots=[loss], names=dict(x=x, loss=loss),
                           frames=True)
    steps = steps_module.StepThrough(recording.frames, title="loss.backward()")
    assert steps.chosen()[0] == list(range(6)) + list(range(194, 200))  # without the slider
    monkeypatch.setattr(steps_module, "_live", {})  # closed below: no widget outlives the test
    try:
        steps.display(key="a large graph beside its slider")
        # the layout and the slider's first frame (and the legend, drawn once a process)
        assert [d for d in drawn if d != ("svg", "dot")] == [("json0", "dot"), ("svg", "neato")]
        assert strips == []
        bundle, = shown
        assert set(bundle) == {"text/plain", "image/svg+xml",
                               "application/vnd.jupyter.widget-view+json"}
        assert bundle["text/plain"] == steps.text
        assert bundle["image/svg+xml"].startswith(steps.frame_svg(0)[:200])
        assert "Static copy of step 1 of 200: run this cell to get the step slider for the " \
            "others." in bundle["image/svg+xml"]
        lesson.set_language("ko")
        try:
            assert "프레임 200개 중 1번만 담은 정지 그림입니다" in steps.first_frame_copy()
        finally:
            lesson.set_language("en")
        small = viz.record(lambda: (x * 2).sum().backward(), roots=[x], names={"x": x},
                           frames=True)  # a lesson-sized graph keeps every frame (up to 12)
        steps_module.StepThrough(small.frames).display(key="a small graph's strip")
        assert [picked for picked, _ in strips] == [list(range(len(small.frames)))]
        assert "image/png" in shown[-1] and "image/svg+xml" not in shown[-1]
    finally:
        for box in steps_module._live.values():
            steps_module._close(box)


def test_a_step_through_sets_off_no_garbage_collection_and_leaves_it_as_it_was(monkeypatch):
    """Its recording and pictures make tens of thousands of short-lived objects: collections
    wait until it is shown (a full one took ~80 ms in a process that imported torch)."""
    import gc
    monkeypatch.setattr(steps_module.StepThrough, "display", lambda self, key=None: seen.append(
        ("display", gc.isenabled())))
    seen = []
    x = al.tensor([0.5, 1.5], requires_grad=True)
    y = (x * 2).sum()

    def call():
        seen.append(("call", gc.isenabled()))
        y.backward(retain_graph=True)
    lesson.step_through(call, x=x, y=y)
    assert seen == [("call", False), ("display", False)] and gc.isenabled()
    gc.disable()
    try:
        seen.clear()
        lesson.step_through(call, x=x, y=y)
        assert seen == [("call", False), ("display", False)] and not gc.isenabled()
    finally:
        gc.enable()


def test_a_large_graphs_first_frame_lays_out_only_the_region_around_it(monkeypatch):
    """The slider's first frame needs a dozen boxes: dot lays out the region around its
    running box (regions.py), not the whole folded graph (0.4-1.4 s of dot on the LSTM), and
    the frames that share a region share its layout, so no box moves between them."""
    laid = []
    real = steps_module.render
    monkeypatch.setattr(steps_module, "render", lambda source, fmt, engine="dot": (
        fmt.startswith("json") and laid.append(_pinned_or_not(source)), real(
            source, fmt, engine))[1])
    x, w, _, loss = _long_graph(al)
    recording = viz.record(lambda: loss.backward(), roots=[loss], names=dict(x=x, loss=loss),
                           frames=True)
    steps = steps_module.StepThrough(recording.frames)
    boxes = steps._plan(0, True)[3]  # the 200 nodes that ran, and a folded rest
    assert len(steps.frames[0].start.nodes) > 400 and boxes > 200
    steps.frame_svg(0)
    assert len(laid) == 1 and 3 <= laid[0] <= 60  # one layout, of a region only
    of, regions = steps._splits[next(iter(steps._splits))]
    shared = [i for i in range(len(steps.frames) - 1) if of[i] == of[i + 1]]
    assert shared and len(regions) < len(steps.frames) // 2  # regions span runs of frames
    for i in shared[:5]:  # consecutive frames in one region: every box where it was
        here, then = (dict(_positions(steps.frame_dot(k, True, steps.local(
            k, True, render.AREA_PX, render.MAX_HEIGHT_PX)))) for k in (i, i + 1))
        assert all(then[name] == pos for name, pos in here.items() if name in then)
    assert len(laid) == len({of[i] for i in shared[:5]} | {0})  # each region laid out once
    whole = steps.frame_dot(3)  # (the whole frame, pinned: the whole graph's layout)
    assert _pinned(whole) == boxes and laid[-1] == boxes


def _pinned_or_not(source):
    """The boxes a DOT source declares (pinned or not)."""
    import re
    return len(re.findall(r"^  [ng]\d+ \[", source, re.M))


def _positions(source):
    import re
    return re.findall(r'^  ([ng]\d+) .*pos="([\d.,-]+)!"', source, re.M)
