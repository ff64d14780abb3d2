"""``lesson.show_backward`` of a loss over many leaves (issue 28: a sum of 10,000 leaves once
took over 10 s): the before/after with its folded picture, against the plain backward of the
same graph. CPU time of this process, medians of 3; the ratio is the figure to quote.

    python benchmarks/many_leaves.py
"""
import statistics
import time

import autograd_lesson as torch
from autograd_lesson import lesson


def graph(n, kind):
    xs = [torch.tensor(float(i), requires_grad=True) for i in range(n)]
    return sum(xs) if kind == "chain" else torch.stack(xs).sum()


def cpu(fn):
    start = time.process_time()
    fn()
    return time.process_time() - start


def main():
    print("| leaves | graph | show_backward, s | plain backward, s | ratio |")
    print("|---:|---|---:|---:|---:|")
    for n in (1_000, 10_000):
        for kind in ("chain", "stack"):
            shown, plain = [], []
            for _ in range(3):
                loss = graph(n, kind)
                shown.append(cpu(lambda: lesson.show_backward(lambda: loss.backward())))
                loss = graph(n, kind)
                plain.append(cpu(loss.backward))
            s, p = statistics.median(shown), statistics.median(plain)
            print(f"| {n:,} | {kind} | {s:.2f} | {p:.3f} | {s / p:.0f}× |")


if __name__ == "__main__":
    main()
