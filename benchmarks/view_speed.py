"""The graph view: ``take_snapshot``, the picture a lesson shows, and the full drawing, by size.

Graphs: a chain of elementwise ops on one leaf (one node per op) and an unrolled RNNCell
(six nodes per step plus the parameters' AccumulateGrad). A lesson's picture is
``viz.graph_view(snapshot)``: ``render.fit`` folds what did not change into labelled groups
(fold levels 0-4, top-down then left-right) until the SVG fits 920 px with text of at least
9 px, so the boxes drawn and the ``dot`` time stay small whatever the graph's size; its PNG
is drawn when the picture is displayed. The table also makes the full drawing
(``viz.snapshot_dot``: every node and buffer, fold level 0) and lays it out, to show why the
folding exists. Nothing is cached between repeats.
"""
import statistics
import subprocess
import time

import numpy as np

from _common import ms, table

SIZES = (100, 1000, 5000)
FULL_LAYOUT_TIMEOUT = 60  # seconds; past that a full drawing is no use to anyone


def chain_graph(al, nodes):
    """A leaf and ``nodes - 1`` elementwise ops: ``nodes`` graph nodes with AccumulateGrad."""
    x = al.tensor(np.linspace(0.5, 1.5, 16, dtype=np.float32), requires_grad=True)
    y = x
    for i in range(nodes - 1):
        y = y * 0.999 if i % 2 == 0 else y.relu()
    return [y], dict(x=x, y=y)


def rnn_graph(al, nodes):
    """An RNNCell unrolled until the graph has about ``nodes`` nodes (6 per step + 4 leaves)."""
    al.manual_seed(0)
    cell = al.nn.RNNCell(4, 8)
    xs = al.randn(max(1, (nodes - 5) // 6), 2, 4)
    h = al.zeros(2, 8)
    for t in range(xs.shape[0]):
        h = cell(xs[t], h)
    loss = h.pow(2).sum()
    return [loss], dict(loss=loss)


def _best(fn, repeats):
    """Median seconds of ``repeats`` calls, and the last result."""
    times, result = [], None
    for _ in range(repeats):
        started = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def _layout_seconds(source, timeout):
    """Wall time of ``dot -Tsvg`` on ``source`` (None if it timed out)."""
    started = time.perf_counter()
    try:
        subprocess.run(["dot", "-Tsvg"], input=source.encode("utf-8"), capture_output=True,
                       check=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    return time.perf_counter() - started


def run(quick=False):
    import importlib

    import autograd_lesson as al
    from autograd_lesson import viz
    render = importlib.import_module("autograd_lesson.viz.render")  # (viz.render: a function)

    def uncached(fn):
        def call():
            render._RENDERED.clear()
            return fn()
        return call
    rows = []
    for kind, build in (("chain", chain_graph), ("RNN unroll", rnn_graph)):
        for size in SIZES:
            roots, names = build(al, size)
            repeats = 3 if quick or size >= 5000 else 7
            t_snap, snap = _best(lambda: viz.take_snapshot(roots, names), repeats)
            t_view, view = _best(uncached(lambda: viz.graph_view(snap)), repeats)
            t_png, _ = _best(uncached(lambda: render.render(view.source, "png")), 3)
            full_layout, full_dot = "skipped", "skipped"
            if size <= 1000 and not (quick and size > 100):
                t_full_dot, full = _best(lambda: viz.snapshot_dot(snap), 1)
                seconds = _layout_seconds(full, FULL_LAYOUT_TIMEOUT)
                full_dot = ms(t_full_dot)
                full_layout = ms(seconds) if seconds is not None else f">{FULL_LAYOUT_TIMEOUT} s"
            rows.append([kind, f"{len(snap.nodes):,}", f"{len(snap.buffers):,}", ms(t_snap),
                         f"{render.drawn_nodes(view.source)}", ms(t_view), ms(t_png),
                         ms(t_snap + t_view + t_png), full_dot, full_layout])
    headers = ["graph", "nodes", "buffers", "snapshot ms", "boxes drawn", "picture (SVG) ms",
               "PNG ms", "snap+picture ms", "full DOT ms", "full layout ms"]
    text = table(headers, rows, "Graph view: snapshot, the folded picture a lesson shows "
                 "(viz.graph_view: DOT and dot layouts until it fits), its PNG; 'full' draws "
                 "every node", left=1)
    return text
