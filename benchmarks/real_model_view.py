"""The view on the four real models (``real_models.py``), side by side with torchviz.

Per model, interleaved (one run of each in turn, medians of the runs):

- **ours**: the default before/after of ``loss.backward()``, ``lesson.show_backward`` as a
  notebook shows it (both snapshots, the recorded backward, the folded picture fitted to a
  laptop and its SVG; the forward is not timed); ``+PNG`` also draws the PNG a notebook
  stores beside it (the picture an untrusted notebook falls back to);
- **ours model=**: the same with ``model=`` (module boxes; the forward, not timed, ran under
  ``viz.watch(model)``);
- **torchviz**: ``make_dot(loss)`` and its SVG (``.pipe(format="svg")``), torchviz 0.0.3;
- **step**: a plain training step (forward and ``loss.backward()``); **backward** alone (in
  the pair with the step-through);
- **step_through**: ``lesson.step_through`` of ``loss.backward()`` as a notebook displays it
  (the recording, the layout, the first frame's SVG and the static picture beside it: a PNG
  of 12 frames, or for a graph over 100 nodes the first frame's SVG the slider drew);
- **audit**: ``lesson.audit`` of the training step;
- **whole graph**: wall seconds of the step-through's "whole graph" toggle on one frame (the
  slowest of three), or "one line" where the graph is too large and the toggle says so.

The clock is the CPU time of this process and of the Graphviz processes it waited for (the
machine is shared: wall time swings with other jobs, CPU time measures what the work costs).
No picture is reused between runs (the render cache is emptied before each). Ratios are the
figures to quote. Requires torch, torchviz and Graphviz (``make install-bench dot``).
"""
import gc
import importlib
import os
import subprocess
import sys
import time

from _common import table

TORCHVIZ_TIMEOUT = 60  # seconds: torchviz's dot on the unrolled LSTM did not finish in minutes


def cpu():
    """Seconds of CPU used by this process, by the child processes it has waited for and by
    the Graphviz processes it keeps running (``viz.warm``: not waited for, so not in
    RUSAGE_CHILDREN until they end)."""
    import resource
    from autograd_lesson.viz import warm
    me, children = (resource.getrusage(who) for who in (resource.RUSAGE_SELF,
                                                         resource.RUSAGE_CHILDREN))
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime + \
        warm.cpu_seconds()


def timed(prepare, run):
    """A runner for _common.interleaved_medians: ``prepare()`` untimed, then ``run(it)``."""
    def once():
        it = prepare()
        started = cpu()
        run(it)
        return {"run": cpu() - started}
    return once


def torchviz_svg(loss):
    """torchviz's make_dot and SVG; the ``dot`` run is bounded (None past the bound)."""
    from torchviz import make_dot
    graph = make_dot(loss)
    try:
        subprocess.run(["dot", "-Tsvg"], input=graph.source.encode(), capture_output=True,
                       check=True, timeout=TORCHVIZ_TIMEOUT)
    except subprocess.TimeoutExpired:
        return None
    return True


def measure(name, build, repeats, whole=True):
    import IPython.display
    import _common
    from autograd_lesson import lesson, viz
    from autograd_lesson.lesson import showing
    from autograd_lesson.viz import steps as steps_module
    render = importlib.import_module("autograd_lesson.viz.render")
    import real_models

    model, step = build()
    nodes = real_models.node_count(step())
    views = []
    showing.display = views.append  # the view show_backward would display, kept to draw
    IPython.display.display = lambda *a, **k: None  # step-through: the bundle is built, dropped
    steps_module.cell_key = lambda fallback: "benchmark-cell"  # one cell: each run closes
    # the widget the one before showed, as a cell run again does
    quiet = open(os.devnull, "w")

    def fresh_loss():
        render._RENDERED.clear()
        model.zero_grad(set_to_none=True)
        return step()

    def ours(loss, png=False):
        stdout, sys.stdout = sys.stdout, quiet  # show_backward prints its ledger diff
        try:
            lesson.show_backward(lambda: loss.backward(), loss=loss)
        finally:
            sys.stdout = stdout
        view = views.pop()
        view.svg()
        if png:
            view.png()

    def watched_loss():
        render._RENDERED.clear()
        model.zero_grad(set_to_none=True)
        with viz.watch(model):
            return step()

    def ours_boxed(loss):  # model=: the module boxes (the forward ran under viz.watch)
        stdout, sys.stdout = sys.stdout, quiet
        try:
            lesson.show_backward(lambda: loss.backward(), model=model, loss=loss)
        finally:
            sys.stdout = stdout
        if views:  # a model with deeper modules is shown with its depth buttons (live.show),
            views.pop().svg()  # which drew the SVG already; the others are displayed as views

    def train_step():
        step().backward()

    def audit(_):
        # As in a notebook, where nothing is frozen out of the collector's view: the harness
        # freezes what exists before the runs, and under someone else's freeze the audit
        # collects the whole unfrozen heap (every runner's leftovers) instead of freezing it.
        gc.unfreeze()
        try:
            lesson.audit(train_step)
        finally:
            gc.freeze()

    timed_out = []

    def tv(loss):
        if torchviz_svg(loss) is None:
            timed_out.append(True)

    runners = {
        "ours": (timed(fresh_loss, ours), repeats, 1),
        "ours+PNG": (timed(fresh_loss, lambda loss: ours(loss, png=True)), repeats, 1),
        "ours model=": (timed(watched_loss, ours_boxed), repeats, 1),
        "step": (timed(lambda: model.zero_grad(set_to_none=True), lambda _: train_step()),
                 repeats, 1),
        "audit": (timed(lambda: model.zero_grad(set_to_none=True), audit), repeats, 1),
    }
    if name != "lstm":  # torchviz's dot on 1,510 unrolled nodes ran for minutes
        runners["torchviz"] = (timed(fresh_loss, tv), repeats, 1)
    medians, _ = _common.interleaved_medians(runners, repeats)
    result = {k: v["run"] for k, v in medians.items()}
    # The step-through against the plain backward, as a pair of their own with more runs: in
    # the round above, the runs of the other pictures between them moved its ratio by up to
    # 3x of a backward on the 2-core machine (caches, and the collector walking what the
    # other runners left).
    pair = {"backward": (timed(fresh_loss, lambda loss: loss.backward()), 3 * repeats, 1),
            "step_through": (timed(fresh_loss, lambda loss: lesson.step_through(
                lambda: loss.backward(), loss=loss)), 3 * repeats, 1)}
    paired, _ = _common.interleaved_medians(pair, 3 * repeats)
    result["step_through"], result["backward"] = (paired[k]["run"] for k in
                                                  ("step_through", "backward"))
    if timed_out:
        result["torchviz"] = None
    result["whole"] = whole_graph_seconds(fresh_loss) if whole else None
    result["nodes"] = nodes
    return result


def whole_graph_seconds(fresh_loss):
    """Wall seconds of the slowest of three frames drawn with the "whole graph" toggle."""
    from autograd_lesson import viz
    from autograd_lesson.viz.steps import WHOLE_MAX_NODES, StepThrough
    loss = fresh_loss()
    recording = viz.record(lambda: loss.backward(), roots=[loss], names={"loss": loss},
                           frames=True)
    steps = StepThrough(recording.frames)
    if len(steps.frames[0].start.nodes) > WHOLE_MAX_NODES:
        return "one line"  # the toggle refuses, in one line, to lay out so large a graph
    worst = 0.0
    for index in (0, len(steps.frames) // 2, len(steps.frames) - 1):
        started = time.perf_counter()
        steps.frame_svg(index, fold=False)
        worst = max(worst, time.perf_counter() - started)
    return worst


def _ms(seconds):
    return "n/a" if seconds is None else f"{seconds * 1000:,.0f}"


def _x(a, b):
    return "n/a" if a is None or b is None else f"{a / b:.2f}×" if a / b < 10 else f"{a / b:.1f}×"


def run(quick=False, models=None, whole=True):
    import torch
    torch.set_num_threads(1)
    import real_models
    repeats = 3 if quick else 5
    rows = []
    for name in models or real_models.MODELS:
        r = measure(name, real_models.MODELS[name], repeats, whole)
        tv = r.get("torchviz")
        rows.append([name, f"{r['nodes']:,}", _ms(r["ours"]), _ms(r["ours+PNG"]),
                     _ms(r.get("ours model=")),
                     _ms(tv) if name != "lstm" else f">{TORCHVIZ_TIMEOUT} s",
                     _x(r["ours"], tv), _x(r.get("ours model="), tv), _ms(r["step"]),
                     _x(r["ours"], r["step"]),
                     _x(r["step_through"], r["backward"]), _x(r["audit"], r["step"]),
                     "not run" if r["whole"] is None else r["whole"]
                     if isinstance(r["whole"], str) else f"{r['whole']:.2f}"])
    headers = ["model", "nodes", "ours ms", "ours+PNG ms", "ours model= ms", "torchviz ms",
               "ours ÷ torchviz", "model= ÷ torchviz", "step ms", "ours ÷ step", "step_through ÷ backward", "audit ÷ step",
               "whole graph s"]
    return table(headers, rows, "The view on real models: before/after of loss.backward() "
                 f"against torchviz make_dot + SVG (CPU ms incl. Graphviz, medians of "
                 f"{repeats} interleaved runs; load average at start "
                 f"{os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    sys.path.insert(1, os.path.dirname(here))
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    print(run(quick="--quick" in sys.argv, models=args or None,
              whole="--no-whole" not in sys.argv))  # --no-whole: skip the whole-graph toggle
