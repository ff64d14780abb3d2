"""The graph view: ``take_snapshot`` + ``snapshot_dot`` and Graphviz's layout, by graph size.

Graphs: a chain of elementwise ops on one leaf (one node per op) and an unrolled RNNCell
(six nodes per step plus the parameters' AccumulateGrad). ``snapshot_dot`` draws at most
``max_nodes`` (60 by default, what the lessons show: the first and last 30 plus a "… n nodes
not drawn …" note), so its ``dot`` layout time hardly grows with the graph; the table also
lays out the full drawing (every node and buffer) to show why that cap exists.
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
    import autograd_lesson as al
    from autograd_lesson import viz
    rows = []
    for kind, build in (("chain", chain_graph), ("RNN unroll", rnn_graph)):
        for size in SIZES:
            roots, names = build(al, size)
            repeats = 3 if quick or size >= 5000 else 7
            t_snap, snap = _best(lambda: viz.take_snapshot(roots, names), repeats)
            t_dot, source = _best(lambda: viz.snapshot_dot(snap), repeats)
            t_layout, _ = _best(lambda: viz.render(source, "svg"), 1 if size >= 5000 else 3)
            full_layout, full_dot = "skipped", "skipped"
            if size <= 1000 and not (quick and size > 100):
                t_full_dot, full = _best(lambda: viz.snapshot_dot(snap, max_nodes=10 ** 9), 1)
                seconds = _layout_seconds(full, FULL_LAYOUT_TIMEOUT)
                full_dot = ms(t_full_dot)
                full_layout = ms(seconds) if seconds is not None else f">{FULL_LAYOUT_TIMEOUT} s"
            rows.append([kind, f"{len(snap.nodes):,}", f"{len(snap.buffers):,}", ms(t_snap),
                         ms(t_dot), ms(t_snap + t_dot), ms(t_layout), full_dot, full_layout])
    headers = ["graph", "nodes", "buffers", "snapshot ms", "DOT ms", "snap+DOT ms",
               "dot layout ms", "full DOT ms", "full layout ms"]
    text = table(headers, rows, "Graph view: snapshot + DOT (60 nodes drawn), Graphviz layout "
                 "(viz.render to SVG); 'full' draws every node", left=1)
    return text
