"""The e2e legibility table, one row per notebook, from build/e2e/legibility.tsv (run_e2e.py).

    python tests/e2e/legibility_table.py [build/e2e/legibility.tsv]

Per notebook (the lessons, then their Korean twins) after Run All at 1366x768 with the file
browser open: the graph pictures shown after Run All, then over every picture shown (after
the run, and each depth of a module-box picture pressed): the smallest text in CSS px, the
tallest picture, how many are taller than one screen (650 px), how many were cut to one
screen and say in a line what they left out; and how many texts touch or cross a border
(those too, and the stored outputs). Prints a Markdown table.
"""
import csv
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def table(path):
    with open(path, encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    order = sorted({r["notebook"] for r in rows}, key=lambda n: (n.startswith("ko-"),
                                                                 n.removeprefix("ko-")))
    lines = ["| notebook | pictures | depths pressed | smallest text px | tallest px | over 650 px "
             "| cut, saying what was left out | texts on a border |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name in order:
        mine = [r for r in rows if r["notebook"] == name]
        run = [r for r in mine if r["phase"] == "run"]
        shown = [r for r in mine if r["phase"] != "stored"]
        tall = [r for r in shown if float(r["height_px"]) > 651]
        depths = sum(1 for r in mine if r["phase"].startswith("depth "))
        lines.append(
            f"| {name} | {len(run)} | {depths} | "
            f"{min((float(r['min_text_px']) for r in shown), default=0):.1f} | "
            f"{max((float(r['height_px']) for r in shown), default=0):.0f} | {len(tall)} | "
            f"{sum(r['left_out'] == 'yes' for r in shown)} | "
            f"{sum(int(r['crossings']) for r in mine)} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(table(sys.argv[1] if len(sys.argv) > 1 else ROOT / "build" / "e2e" / "legibility.tsv"))
