"""The lessons: each notebook executed in a fresh kernel (nbclient), and the whole nbval run.

Works with whatever notebooks exist: a notebook that fails is reported with its error, not
fatal. The notebooks are only read (never written back). An empty notebook is run first to
show what starting a kernel costs, since every notebook pays it once.

"Run All" is what issue 14 sets a target for (3 s): the code cells' own execution times, from
the kernel's ``execute_input`` to its ``execute_reply`` for each cell (nbclient's timing
metadata), summed; kernel start and the client's round trips are not in it. The slowest cell
is named, since that is where a notebook over the target spends its time. Nothing is cached
between notebooks (no shared picture cache): each is a learner's first Run All.
"""
import datetime
import glob
import os
import re
import resource
import subprocess
import sys
import time

from _common import table

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOTEBOOK_TARGET = 10.0   # seconds per notebook, kernel start included
RUN_ALL_TARGET = 3.0     # seconds of code-cell execution per notebook (issue 14)
NBVAL_TARGET = 120.0     # seconds for the whole nbval run


def _children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _execute(nb, timeout=600):
    """Wall seconds, CPU seconds of the kernel and what it ran (``dot``: a finished kernel is
    reaped by this process, so its CPU time lands in RUSAGE_CHILDREN), and the code cells'
    execution seconds (see the module docstring) with the slowest cell's index and seconds."""
    from nbclient import NotebookClient
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", record_timing=True,
                            resources={"metadata": {"path": os.path.join(ROOT, "notebooks")}})
    env = {k: os.environ.pop(k) for k in ("AUTOGRAD_LESSON_RENDER_CACHE",) if k in os.environ}
    cpu, started = _children_cpu(), time.perf_counter()
    try:
        client.execute(stderr=subprocess.DEVNULL)  # the kernel's own startup warnings
    finally:
        os.environ.update(env)
    wall, cpu = time.perf_counter() - started, _children_cpu() - cpu
    times = [(i, _cell_seconds(cell)) for i, cell in enumerate(nb.cells)
             if cell.cell_type == "code"]
    slowest = max(times, key=lambda item: item[1], default=(None, 0.0))
    return wall, cpu, sum(t for _, t in times), slowest


def _cell_seconds(cell):
    timing = cell.get("metadata", {}).get("execution", {})
    start, end = timing.get("iopub.execute_input"), timing.get("shell.execute_reply")
    if not start or not end:
        return 0.0
    parse = datetime.datetime.fromisoformat
    return (parse(end.replace("Z", "+00:00")) - parse(start.replace("Z", "+00:00"))).total_seconds()


def notebook_times():
    """[(name, wall seconds or None, CPU seconds, Run All seconds, (slowest cell, its
    seconds), code cells, error)]: the empty baseline, then each notebook."""
    import nbformat
    rows = []
    empty = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("pass")])
    rows.append(("(empty notebook: kernel start)", *_execute(empty), 1, ""))
    paths = sorted(glob.glob(os.path.join(ROOT, "notebooks", "*.ipynb"))) + \
        sorted(glob.glob(os.path.join(ROOT, "notebooks", "ko", "*.ipynb")))  # Korean edition
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        cells = sum(1 for c in nb.cells if c.cell_type == "code")
        try:
            rows.append((_name(path), *_execute(nb), cells, ""))
        except Exception as error:  # noqa: BLE001  (a notebook in progress: report, go on)
            first = str(error).strip().splitlines()
            rows.append((_name(path), None, None, None, (None, 0.0), cells,
                         f"{type(error).__name__}: {first[-1] if first else ''}"[:100]))
    return rows


def _name(path):
    return os.path.relpath(path, os.path.join(ROOT, "notebooks"))


def nbval_run():
    """(wall seconds, CPU seconds, pytest's summary line, exit code) of the nbval run."""
    command = [sys.executable, "-m", "pytest", "notebooks", "-q", "-p", "no:cacheprovider"]
    cpu, started = _children_cpu(), time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    seconds, cpu = time.perf_counter() - started, _children_cpu() - cpu
    lines = [ln for ln in done.stdout.strip().splitlines() if ln.strip()]
    summary = next((ln for ln in reversed(lines) if re.search(r"\b(passed|failed|error|no tests)\b", ln)),
                   lines[-1] if lines else "(no output)")
    return seconds, cpu, summary.strip("= "), done.returncode


def run():
    rows = []
    for name, wall, cpu, run_all, (cell, cell_s), cells, error in notebook_times():
        verdict = "" if name.startswith("(") else (
            "FAILED" if wall is None else "met" if run_all <= RUN_ALL_TARGET else "MISSED")
        rows.append([name, cells, "n/a" if wall is None else f"{wall:.2f}",
                     "n/a" if cpu is None else f"{cpu:.2f}",
                     "n/a" if run_all is None else f"{run_all:.2f}",
                     "" if cell is None else f"[{cell}] {cell_s:.2f}", verdict, error])
    text = table(["notebook", "code cells", "wall s", "CPU s", "Run All s", "slowest cell s",
                  "Run All <= 3 s", "error"], rows,
                 "Lessons: each notebook in a fresh kernel (nbclient); CPU = kernel + dot; "
                 "Run All = code cells' execution", left=1)
    seconds, cpu, summary, code = nbval_run()
    verdict = "met" if seconds < NBVAL_TARGET and code == 0 else (
        "MISSED" if seconds >= NBVAL_TARGET else f"time met, but pytest exited {code}")
    return (text + f"\n\nWhole nbval run (pytest notebooks, {os.cpu_count()} cores): "
            f"{seconds:.1f} s wall, {cpu:.1f} s CPU; target < 120 s: {verdict}\n  pytest: {summary}")
