"""Shared helpers: timing by median of repeated runs, plain-text tables, the machine's facts."""
import gc
import os
import platform
import statistics
import time


# CPU time of this process: on a shared machine (other jobs on the same cores) wall time
# swings with the load, while CPU time measures what the engine itself costs. Every engine
# here is single-threaded, so on an idle machine the two agree. ``--wall`` switches.
clock = time.process_time


def use_wall_clock():
    global clock
    clock = time.perf_counter


FREEZE_PAST = True  # False: a full collection before every run (run.py --collect-all)


def interleaved_medians(runners, repeats, min_seconds=0.0):
    """Time several engines on one workload, round-robin so that a change of machine load
    hits all of them alike. ``runners`` maps a name to ``(run_once, its_repeats, warmup)``;
    ``run_once()`` returns ``{phase: seconds}``. Each runner is called ``warmup`` times
    untimed, then ``its_repeats`` times (runners with the full ``repeats`` go on until each
    has run ``min_seconds``). Returns ``{name: {phase: median}}`` with a ``"total"`` phase (the
    median of per-run sums, not the sum of medians) and ``{name: runs}``."""
    for run_once, _, warmup in runners.values():
        for _ in range(warmup):
            run_once()
    runs = {name: [] for name in runners}
    spent = dict.fromkeys(runners, 0.0)

    def done(name):
        wanted = runners[name][1]
        return len(runs[name]) >= wanted and (wanted < repeats or spent[name] >= min_seconds)

    # What exists now (torch, NumPy, the harness) is frozen out of the collector's view, so
    # the collection before each run walks only what the previous run left: with torch loaded
    # a full gc.collect() took tens of ms (a full `run.py speed` took 20 minutes), and walking
    # the whole heap before every run left the caches cold for the run (`--collect-all`).
    gc.collect()
    if FREEZE_PAST:
        gc.freeze()
    try:
        while not all(done(name) for name in runners) and max(map(len, runs.values())) < 1000:
            for name, (run_once, _, _) in runners.items():
                if done(name):
                    continue
                gc.collect()  # collect the previous run's garbage outside the timed region
                times = run_once()
                times["total"] = sum(times.values())
                runs[name].append(times)
                spent[name] += times["total"]
    finally:
        gc.unfreeze()
    medians = {name: {phase: statistics.median(r[phase] for r in rs) for phase in rs[0]}
               for name, rs in runs.items()}
    return medians, {name: len(rs) for name, rs in runs.items()}


class Clock:
    """Split one run into named phases: ``clock.lap("forward")`` after each."""

    def __init__(self):
        self.times = {}
        self._last = clock()

    def lap(self, phase):
        now = clock()
        self.times[phase] = self.times.get(phase, 0.0) + now - self._last
        self._last = now


def table(headers, rows, title=None, left=1):
    """A plain-text table: the first ``left`` columns left-aligned (labels), the rest right."""
    cells = [[str(c) for c in headers]] + [[("" if c is None else str(c)) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]

    def line(r):
        return "  ".join(c.ljust(w) if i < left else c.rjust(w)
                         for i, (c, w) in enumerate(zip(r, widths))).rstrip()
    out = [] if title is None else [title, "-" * len(title)]
    out += [line(cells[0]), "  ".join("-" * w for w in widths)]
    out += [line(r) for r in cells[1:]]
    return "\n".join(out)


def ms(seconds):
    """Milliseconds with three significant figures."""
    if seconds is None:
        return "n/a"
    value = seconds * 1000
    return f"{value:.3g}" if value < 100 else f"{value:,.0f}"


def ratio(a, b):
    if a is None or b is None or b == 0:
        return "n/a"
    return f"{a / b:.2f}x" if a / b < 10 else f"{a / b:.1f}x"


def machine():
    """CPU model, core count and library versions, for the README."""
    import numpy
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for row in f:
                if row.startswith("model name"):
                    cpu = row.split(":", 1)[1].strip()
                    break
    except OSError:
        cpu = platform.processor() or "unknown"
    facts = {"CPU": cpu, "cores": os.cpu_count(), "Python": platform.python_version(),
             "NumPy": numpy.__version__}
    for name in ("torch", "mygrad", "micrograd", "graphviz"):
        facts[name] = _version(name)
    try:
        import subprocess
        out = subprocess.run(["dot", "-V"], capture_output=True, text=True, timeout=10)
        facts["Graphviz dot"] = (out.stderr or out.stdout).strip().replace("dot - graphviz version ", "")
    except (OSError, subprocess.SubprocessError):
        facts["Graphviz dot"] = "missing"
    return facts


def _version(name):
    try:
        from importlib.metadata import version
        return version(name)
    except Exception:  # noqa: BLE001  (not installed: say so in the table)
        return "not installed"
