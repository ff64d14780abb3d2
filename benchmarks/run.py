"""``make bench``: engine speed, saved-buffer memory, graph-view speed and lesson run times.

The "models" section draws four real models' before/after beside torchviz (real_model_view.py).

    .venv/bin/python benchmarks/run.py                 # everything (a few minutes)
    .venv/bin/python benchmarks/run.py --quick         # fewer repeats, smaller view graphs
    .venv/bin/python benchmarks/run.py speed memory    # some sections only

Not collected by pytest (no ``test_*`` files); nothing here asserts a timing. Every engine
gets one thread: PyTorch by ``torch.set_num_threads(1)``, NumPy's BLAS (used by
autograd_lesson and MyGrad) by the environment variables set below, before NumPy loads.
"""
import argparse
import os
import sys

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)                     # the benchmark modules
sys.path.insert(1, os.path.dirname(HERE))   # autograd_lesson from this checkout

SECTIONS = ("speed", "memory", "view", "models", "steps", "lessons")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sections", nargs="*", metavar="SECTION",
                        help=f"some of {', '.join(SECTIONS)} (default: all)")
    parser.add_argument("--quick", action="store_true", help="fewer repeats, smaller graphs")
    parser.add_argument("--wall", action="store_true",
                        help="time engines by wall clock instead of this process's CPU time")
    parser.add_argument("--collect-all", action="store_true",
                        help="a full gc.collect() before every timed run (the harness before "
                             "stop 20), instead of collecting only what the last run left")
    args = parser.parse_args(argv)
    unknown = set(args.sections) - set(SECTIONS)
    if unknown:
        parser.error(f"unknown section(s) {', '.join(sorted(unknown))}; choose from {', '.join(SECTIONS)}")
    sections = args.sections or SECTIONS

    import torch
    torch.set_num_threads(1)
    import _common
    from _common import machine
    if args.wall:
        _common.use_wall_clock()
    _common.FREEZE_PAST = not args.collect_all

    facts = machine()
    print("Machine\n-------\n" + "\n".join(f"{k + ':':14}{v}" for k, v in facts.items()))
    print(f"threads: torch {torch.get_num_threads()}, "
          f"OPENBLAS/OMP/MKL_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']}; "
          f"engine clock: {'wall' if args.wall else 'process CPU time'}; "
          f"before each run: {'full gc.collect()' if args.collect_all else 'collect the last run'}; "
          f"load average at start: {' '.join(f'{v:.1f}' for v in os.getloadavg())}")
    failed = False
    if "speed" in sections:
        import engine_speed
        text, results = engine_speed.run(quick=args.quick)
        print("\n" + text + "\n", flush=True)
        print(engine_speed.verdicts(results), flush=True)
    if "memory" in sections:
        import memory
        text, ok = memory.run()
        print("\n" + text, flush=True)
        failed |= not ok
    if "view" in sections:
        import view_speed
        print("\n" + view_speed.run(quick=args.quick), flush=True)
    if "models" in sections:
        import real_model_view
        print("\n" + real_model_view.run(quick=args.quick), flush=True)
    if "steps" in sections:
        import step_through
        print("\n" + step_through.run(quick=args.quick), flush=True)
    if "lessons" in sections:
        import lessons
        print("\n" + lessons.run(), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
