"""Instructions per training step, counted by Valgrind: a measure that a busy machine can't move.

CPU time on a shared two-core machine moves by 20-50% with the load; the number of instructions
a workload executes does not (within about 2%, from garbage collection and allocation).
``valgrind --tool=cachegrind --cache-sim=no`` counts them, and the per-run count is the
difference between a process that runs the workload 1 + N times and one that runs it once
(which also removes start-up and imports); as ``run.py`` does, what exists before the runs is
frozen out of the garbage collector's view (``gc.freeze``; counts before stop 22 were taken
without it, and moved by 2-5% with the number of objects the imports made). It is a proxy
for time, not time: for the same engine, fewer instructions is faster; across engines (C++
against Python) the ratio is only indicative. About 15 s per workload and engine under Valgrind.

    .venv/bin/python benchmarks/instructions.py                  # ours, every workload
    .venv/bin/python benchmarks/instructions.py --engine mygrad rnn chain
    PYTHONPATH=/path/to/other/checkout .venv/bin/python benchmarks/instructions.py   # A/B

Without PYTHONPATH the package comes from this checkout.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

WORKLOADS = ("mlp", "rnn", "chain", "wgan")
_CHILD = """
import sys
sys.path.insert(0, {here!r})
import engine_speed as es
engine, name, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = es.Inputs()
if engine == "mygrad":
    once = {{"mlp": lambda: es.mlp_mygrad(data), "rnn": lambda: es.rnn_mygrad(data),
             "chain": lambda: es.chain_mygrad(data, es.CHAIN_LENGTH)}}[name]()
else:
    if engine == "torch":
        import torch as lib
        lib.set_num_threads(1)
    else:
        import autograd_lesson as lib
    once = {{"mlp": lambda: es.mlp_lib(lib, data), "rnn": lambda: es.rnn_lib(lib, data),
             "chain": lambda: es.chain_lib(lib, data, es.CHAIN_LENGTH),
             "wgan": lambda: es.wgan_gp_lib(lib, data)}}[name]()
# What was made before the runs (the modules, the workload) is frozen out of the collector's
# view, as run.py does: otherwise each full collection walks every object the imports made,
# and a change that only adds module-level objects moved the chain by 5%.
import gc
gc.collect()
gc.freeze()
for _ in range(1 + runs):
    once()
"""


def count(engine, name, runs):
    """Instructions of one process running the workload ``1 + runs`` times."""
    env = dict(os.environ, PYTHONHASHSEED="0", OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
               MKL_NUM_THREADS="1")
    code = _CHILD.format(here=os.path.dirname(os.path.abspath(__file__)))
    here = os.path.dirname(os.path.abspath(__file__))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [env.get("PYTHONPATH"),
                                                      os.path.dirname(here)]))
    done = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no",
                           "--cachegrind-out-file=/dev/null", sys.executable, "-c", code,
                           engine, name, str(runs)],
                          capture_output=True, text=True, env=env, check=True,
                          cwd=here)  # (not a checkout's root: PYTHONPATH picks the package)
    match = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    return int(match.group(1).replace(",", ""))


def per_run(engine, name, runs=4):
    return (count(engine, name, runs) - count(engine, name, 0)) / runs


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workloads", nargs="*", choices=(*WORKLOADS, []),
                        help="default: all of " + ", ".join(WORKLOADS))
    parser.add_argument("--engine", default="autograd_lesson",
                        choices=("autograd_lesson", "mygrad", "torch"))
    parser.add_argument("--runs", type=int, default=4)
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("instructions.py needs Valgrind: apt-get install valgrind")
    for name in args.workloads or WORKLOADS:
        if args.engine == "mygrad" and name == "wgan":
            continue  # MyGrad has no higher-order gradients
        print(f"{name:6s} {args.engine:16s} {per_run(args.engine, name, args.runs) / 1e6:8.2f} "
              f"M instructions per run", flush=True)


if __name__ == "__main__":
    main()
