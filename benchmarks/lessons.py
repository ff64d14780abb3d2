"""The lessons: each notebook executed in a fresh kernel (nbclient), and the whole nbval run.

Works with whatever notebooks exist: a notebook that fails is reported with its error, not
fatal. The notebooks are only read (never written back). An empty notebook is run first to
show what starting a kernel costs, since every notebook pays it once.
"""
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
NBVAL_TARGET = 120.0     # seconds for the whole nbval run


def _children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _execute(nb, timeout=600):
    """Wall seconds, and CPU seconds of the kernel and what it ran (``dot``): a finished
    kernel is reaped by this process, so its CPU time lands in RUSAGE_CHILDREN."""
    from nbclient import NotebookClient
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": os.path.join(ROOT, "notebooks")}})
    cpu, started = _children_cpu(), time.perf_counter()
    client.execute(stderr=subprocess.DEVNULL)  # the kernel's own startup warnings
    return time.perf_counter() - started, _children_cpu() - cpu


def notebook_times():
    """[(name, wall seconds or None, CPU seconds, code cells, error)]: the empty baseline,
    then each notebook."""
    import nbformat
    rows = []
    empty = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("pass")])
    rows.append(("(empty notebook: kernel start)", *_execute(empty), 1, ""))
    for path in sorted(glob.glob(os.path.join(ROOT, "notebooks", "*.ipynb"))):
        nb = nbformat.read(path, as_version=4)
        cells = sum(1 for c in nb.cells if c.cell_type == "code")
        try:
            rows.append((os.path.basename(path), *_execute(nb), cells, ""))
        except Exception as error:  # noqa: BLE001  (a notebook in progress: report, go on)
            first = str(error).strip().splitlines()
            rows.append((os.path.basename(path), None, None, cells,
                         f"{type(error).__name__}: {first[-1] if first else ''}"[:100]))
    return rows


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
    for name, wall, cpu, cells, error in notebook_times():
        verdict = "" if name.startswith("(") else (
            "FAILED" if wall is None else "ok" if wall < NOTEBOOK_TARGET else "over 10 s")
        rows.append([name, cells, "n/a" if wall is None else f"{wall:.2f}",
                     "n/a" if cpu is None else f"{cpu:.2f}", verdict, error])
    text = table(["notebook", "code cells", "wall s", "CPU s", "target < 10 s (wall)", "error"],
                 rows, "Lessons: each notebook in a fresh kernel (nbclient); CPU = kernel + dot",
                 left=1)
    seconds, cpu, summary, code = nbval_run()
    verdict = "met" if seconds < NBVAL_TARGET and code == 0 else (
        "MISSED" if seconds >= NBVAL_TARGET else f"time met, but pytest exited {code}")
    return (text + f"\n\nWhole nbval run (pytest notebooks, {os.cpu_count()} cores): "
            f"{seconds:.1f} s wall, {cpu:.1f} s CPU; target < 120 s: {verdict}\n  pytest: {summary}")
