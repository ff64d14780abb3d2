"""One output, a widget where widgets run (viz/live.py): the depth buttons of a module-box
picture redraw the same snapshots at another depth, keep no tensor alive, and where widgets do
not run the output is the static picture and its text, as without them."""
import gc
import sys
import weakref

import pytest
import torch

import autograd_lesson as al
from autograd_lesson import lesson, viz
from autograd_lesson.viz import live

WIDGET = "application/vnd.jupyter.widget-view+json"


def _model(lib):
    lib.manual_seed(0)
    nn = lib.nn
    model = nn.Sequential(nn.Linear(3, 4), nn.Sequential(nn.Linear(4, 4), nn.Sequential(
        nn.Linear(4, 4), nn.Tanh())), nn.Linear(4, 1))
    with viz.watch(model):
        hidden = model[1](model[0](lib.randn(5, 3)))
        loss = model[2](hidden).pow(2).mean()
    return model, hidden, loss


@pytest.fixture
def shown(monkeypatch):
    """What the lesson displayed (each a mimebundle), and no widget left open after it."""
    monkeypatch.setattr("autograd_lesson.lesson.showing.cell_key", lambda fallback: "cell-1")
    found = []
    monkeypatch.setattr("IPython.display.display", lambda obj, **k: found.append(
        obj if isinstance(obj, dict) else obj._repr_mimebundle_()))
    yield found
    for key in list(live._live):
        live.close(live._live.pop(key))


@pytest.mark.parametrize("lib", [al, torch], ids=["package", "torch"])
def test_depth_buttons_redraw_the_same_snapshots_one_level_deeper(lib, shown):
    pytest.importorskip("ipywidgets")
    model, hidden, loss = _model(lib)
    lesson.show_backward(lambda: loss.backward(retain_graph=True), model=model, loss=loss)
    bundle = shown[-1]
    assert WIDGET in bundle and "image/svg+xml" in bundle and "image/png" in bundle
    box = live._live["cell-1"]
    buttons, picture, table = box.children
    assert [value for _, value in buttons.options] == [1, 2, 3] and buttons.value == 1
    assert picture.value == bundle["image/svg+xml"]  # the widget starts on the same picture
    assert "1 · Sequential" in table.value and "1.1 · Sequential" not in table.value
    from autograd_lesson.viz.snapshot import COUNTS
    read = COUNTS.copy()
    grad = [p.grad.clone() for p in model.parameters()]
    buttons.value = 3
    assert COUNTS == read  # no graph read again: the snapshots were redrawn
    assert all((p.grad == g).all() for p, g in zip(model.parameters(), grad))  # no backward
    assert picture.value != bundle["image/svg+xml"]
    assert "1.1.1 · Tanh" in table.value and "depth 3" in table.value
    buttons.value = 1
    assert picture.value == bundle["image/svg+xml"]  # each depth drawn once, kept


@pytest.mark.parametrize("lib", [al, torch], ids=["package", "torch"])
def test_the_widget_keeps_no_tensor_alive(lib, shown):
    pytest.importorskip("ipywidgets")
    model, hidden, loss = _model(lib)
    ref = weakref.ref(hidden)  # saved by the Tanh's and the next Linear's backward
    lesson.show_graph("g", model=model, loss=loss, hidden=hidden)
    box = live._live["cell-1"]
    box.children[0].value = 2
    del hidden, loss
    gc.collect()
    assert ref() is None and box._keep is not None  # the widget is alive, the graph is not


def test_where_widgets_do_not_run_the_output_is_the_static_picture(shown, monkeypatch, capsys):
    """nbval compares text/plain and the SVG (it skips the widget's key): without ipywidgets
    the output is those of the same call with the widget, and those of a plain view."""
    pytest.importorskip("ipywidgets")
    model, _, loss = _model(al)
    lesson.show_graph("g", model=model, loss=loss)
    with_widget = shown.pop()
    printed = capsys.readouterr().out
    monkeypatch.setitem(sys.modules, "ipywidgets", None)  # "import ipywidgets" now fails
    lesson.show_graph("g", model=model, loss=loss)
    static = shown.pop()
    assert WIDGET not in static and set(static) == {"image/svg+xml", "image/png", "text/plain"}
    assert {k: v for k, v in with_widget.items() if k != WIDGET} == static
    assert capsys.readouterr().out == printed  # the ledger and the module table, unchanged
    snap = viz.take_snapshot([loss], {"loss": loss}, title="g", model=model)
    assert static["image/svg+xml"] == viz.graph_view(snap).svg()


def test_depth_buttons_speak_the_lesson_language(shown):
    pytest.importorskip("ipywidgets")
    model, _, loss = _model(al)
    lesson.set_language("ko")
    try:
        lesson.show_graph("g", model=model, loss=loss)
        buttons, _, table = live._live["cell-1"].children
        assert buttons.description == "깊이" and "깊이 1의 모듈" in table.value
    finally:
        lesson.set_language("en")


@pytest.mark.parametrize("depth", [-1, "2", 1.5, True])
def test_a_bad_depth_gets_one_line(depth, capsys):
    model, _, loss = _model(al)
    lesson.show_graph("g", model=model, depth=depth, loss=loss)
    lesson.show_backward("loss.backward()", model=model, depth=depth, loss=loss)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and all("depth= counts module levels below the model" in line
                                   for line in lines), lines


def test_a_model_one_level_deep_gets_no_buttons(shown):
    """An RNNCell has no children: there is no other depth to show, so no widget."""
    pytest.importorskip("ipywidgets")
    cell = al.nn.RNNCell(3, 4)
    with viz.watch(cell):
        h = cell(al.randn(2, 3), al.zeros(2, 4))
    lesson.show_graph("g", model=cell, h=h)
    assert WIDGET not in shown[-1] and "image/svg+xml" in shown[-1] and not live._live


def test_where_widgets_do_not_run_a_large_step_through_stores_its_strip(shown, monkeypatch):
    """The same one test (live.widgets_run) decides the step-through's output: beside the
    slider a large graph stores its first frame; without widgets, the strip of frames."""
    pytest.importorskip("ipywidgets")
    from autograd_lesson.viz.steps import StepThrough
    x = al.tensor([0.5, -1.0], requires_grad=True)
    y = x
    for _ in range(60):  # over 100 nodes: beside the slider only the first frame is stored
        y = (y * 1.01).tanh()
    loss = y.sum()
    recording = viz.record(lambda: loss.backward(retain_graph=True), roots=[loss],
                           names={"x": x, "loss": loss}, frames=True)
    steps = StepThrough(recording.frames, title="loss.backward()")
    steps.display(key="with widgets")
    assert WIDGET in shown[-1] and "image/png" not in shown[-1]
    monkeypatch.setitem(sys.modules, "ipywidgets", None)
    assert not live.widgets_run()
    steps.display(key="without widgets")
    assert WIDGET not in shown[-1] and set(shown[-1]) == {"text/plain", "image/png"}
    assert shown[-1]["text/plain"] == steps.text
