"""``lesson.step_through`` cost and re-run memory (issue 10's bar: under 5 s on a 10,000-node
chain and on a sum of 10,000 leaves; under 5 KB growth per re-run of one cell).

The whole call is timed: recording (one snapshot when the backward starts, then per node
only what it changed), the folded layout, and both outputs a notebook stores (the widget's
first frame and the static PNG of the frames). ``display`` is replaced by one that builds the
bundle and drops it, as a notebook front end would keep only the newest output.
"""
import gc
import time
import tracemalloc

import numpy as np

from _common import table


def chain(al, n):
    x = al.tensor(np.linspace(0.5, 1.5, 8, dtype=np.float32), requires_grad=True)
    y = x
    for i in range(n - 2):
        y = y * 0.999 if i % 2 == 0 else y.relu()
    return dict(x=x, y=y), "y.sum().backward()"


def leaf_sum(al, n):
    leaves = [al.tensor([float(i)], requires_grad=True) for i in range(n)]
    total = leaves[0]
    for leaf in leaves[1:]:
        total = total + leaf
    return dict(total=total), "total.backward()"


def run(quick=False):
    import IPython.display
    import autograd_lesson as al
    from autograd_lesson import lesson
    from autograd_lesson.viz import steps

    IPython.display.display = lambda *a, **k: None
    steps.cell_key = lambda fallback: "benchmark-cell"
    rows = []
    for kind, build in (("chain", chain), ("sum of leaves", leaf_sum)):
        names, code = build(al, 10_000)
        started = time.perf_counter()
        namespace = dict(names, lesson=lesson, code=code, tensors=names)
        exec("lesson.step_through(code, **tensors)", namespace)
        rows.append([kind, "10,000", f"{time.perf_counter() - started:.2f}"])
    text = table(["graph", "nodes", "step_through s"], rows,
                 "lesson.step_through on large graphs (200 frames recorded; beside the slider "
                 "the first frame alone drawn statically)")

    runs = 50 if quick else 200

    def cell():
        x = al.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x + 2
        z = y * y * 3
        out = z.mean()
        exec("lesson.step_through('out.backward()', x=x, y=y, z=z, out=out)",
             {"lesson": lesson, "x": x, "y": y, "z": z, "out": out})
    for _ in range(5):
        cell()
    gc.collect()
    tracemalloc.start()
    first = tracemalloc.get_traced_memory()[0]
    for _ in range(runs):
        cell()
    gc.collect()
    last = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    live, alive = steps.live_widgets()
    text += (f"\n\nRe-running a 5-node step-through cell {runs} times: "
             f"{(last - first) / runs / 1024:.2f} KB per run (tracemalloc, after gc); "
             f"{live} widget shown, {alive} StepThrough alive")
    return text


if __name__ == "__main__":
    print(run())
