"""Every code cell of every lesson gives the same output when it is run again on its own.

notebooks/README promises that any cell can be re-run. Each notebook is executed in a fresh
kernel, every code cell twice in a row, and the text of the two runs is compared: stdout and
stderr (each joined into one text), ``text/plain`` of results and displays, and errors (name and
message). Pictures (PNG,
SVG) are not compared; nbval's sanitizers (``tests/nbval_sanitize.cfg``) are applied first.
Notebooks are found by glob, so a new lesson is checked as soon as it exists (of the Korean
edition, lesson 00). Lesson 06 is also compared unsanitized, on the same run.

The optional "on real PyTorch" cell that ends lessons 01-07 is left out of those runs (a first
cell added for the run stubs it, ``tests/fast_pictures.py``'s ``NO_TORCH_DEMOS``): importing
torch cost each kernel 1.3-1.9 s. Those cells are run twice here instead, in this process, on
the torch the tests import once. Lesson 11 runs on torch throughout, and is run for real.
"""
import configparser
import copy
import difflib
import functools
import pathlib
import re

import nbformat
import pytest
from nbclient import NotebookClient

import kernel_sockets
import on_torch_cells
from autograd_lesson import lesson
from fast_pictures import NO_TORCH_DEMOS

ROOT = pathlib.Path(__file__).resolve().parents[1]
# The Korean edition's code cells are the English ones (tests/test_translations.py), so one
# Korean lesson stands for all: it checks that the Korean helpers print the same on a re-run.
KOREAN_SAMPLE = sorted((ROOT / "notebooks" / "ko").glob("00_*.ipynb"))
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb")) + KOREAN_SAMPLE


def sanitizers():
    config = configparser.ConfigParser()
    config.read(ROOT / "tests" / "nbval_sanitize.cfg")
    return [(re.compile(config[s]["regex"]), config[s]["replace"]) for s in config.sections()]


SANITIZERS = sanitizers()


def text_of(outputs):
    """The comparable text of one run of a cell.

    Each stream is joined into one text: where the kernel splits printed text around a display
    depends on when it flushes, which differs from run to run."""
    parts, streams = [], {}
    for out in outputs:
        if out.output_type == "stream":
            streams[out.name] = streams.get(out.name, "") + out.text
        elif out.output_type in ("execute_result", "display_data"):
            if "text/plain" in out.get("data", {}):
                parts.append(f"[{out.output_type}]\n{out.data['text/plain']}")
        elif out.output_type == "error":
            parts.append(f"[error]\n{out.ename}: {out.evalue}")
    parts += [f"[{name}]\n{text}" for name, text in sorted(streams.items())]
    text = "\n".join(parts)
    for regex, replace in SANITIZERS:
        text = regex.sub(replace, text)
    return text


TIMEOUT = 120  # seconds per cell


@functools.lru_cache(maxsize=None)
def run_twice(path):
    """[(index, cell, first run's outputs, second run's outputs)] of every code cell, the
    notebook executed in a fresh kernel, each code cell twice in a row. Cached: the tests of
    one notebook share its run."""
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=TIMEOUT, kernel_name="python3", allow_errors=True,
                            kernel_manager_class=kernel_sockets.AsyncKernelManager,
                            resources={"metadata": {"path": str(path.parent)}})
    runs = []
    with client.setup_kernel():
        client.execute_cell(nbformat.v4.new_code_cell(NO_TORCH_DEMOS), -1)
        for index, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            client.execute_cell(cell, index)
            first = copy.deepcopy(cell.outputs)
            client.execute_cell(cell, index)
            runs.append((index, copy.deepcopy(cell), first, copy.deepcopy(cell.outputs)))
    return runs


def rerun_differences(path):
    """(cell index, diff) for each code cell whose second run prints something else."""
    differences = []
    for index, _, first_outputs, second_outputs in run_twice(path):
        first, second = text_of(first_outputs), text_of(second_outputs)
        if first != second:
            diff = difflib.unified_diff(first.splitlines(), second.splitlines(), "first run",
                                        "second run", lineterm="", n=1)
            differences.append((index, "\n".join(diff)))
    return differences


@pytest.mark.parametrize("path", NOTEBOOKS,
                         ids=[("ko-" if p.parent.name == "ko" else "") + p.stem for p in NOTEBOOKS])
def test_every_code_cell_can_be_run_again(path):
    differences = rerun_differences(path)
    report = "\n\n".join(f"{path.name} cell {index}: a second run differs\n{diff}"
                         for index, diff in differences)
    assert not differences, report


LESSON_06 = ROOT / "notebooks" / "06_sequential_optimization.ipynb"


def _texts(outputs):
    """The cell's text, joined: how the kernel splits a stream into messages varies by run."""
    return "".join(o.get("text") or o.get("data", {}).get("text/plain") or o.get("evalue") or ""
                   for o in outputs)


def test_lesson_06_every_code_cell_run_twice_gives_the_same_unsanitized_text():
    """Lesson 06 (sequential optimization: cells rebuild the state they backpropagate
    through, as make_graph does), run top to bottom, each code cell twice in a row: the
    second run prints the same text, unsanitized (stdout, stderr, results and errors joined).
    No cell raises, except one tagged ``raises-exception`` (as nbclient requires by default).
    It shares the run of ``test_every_code_cell_can_be_run_again[06_sequential_optimization]``."""
    runs = run_twice(LESSON_06)
    raised = [cell.id for _, cell, first, second in runs
              if "raises-exception" not in cell.metadata.get("tags", [])
              and any(o.output_type == "error" for o in first + second)]
    assert raised == []
    differing = [(cell.id, _texts(first), _texts(second)) for _, cell, first, second in runs
                 if _texts(first) != _texts(second)]
    assert differing == []


def test_the_kernels_draw_no_png_twins():
    """``fast_pictures.NO_PNG`` runs in every kernel of the test run (the conftests): each
    picture's image/png is its stub, while the SVG is drawn."""
    import base64
    runs = run_twice(NOTEBOOKS[0])
    data = [o.data for _, _, first, _ in runs for o in first if "image/png" in o.get("data", {})]
    assert data and {d["image/png"] for d in data} == {base64.b64encode(b"\x89PNG\r\n\x1a\n").decode()}
    assert all("<svg " in d["image/svg+xml"] for d in data if "image/svg+xml" in d)


TORCH_DEMO_LESSONS = sorted(c.id[:2] for p in NOTEBOOKS if p.parent.name == "notebooks"
                            for c in nbformat.read(p, as_version=4).cells
                            if c.id.endswith("-on-torch"))


def test_every_lesson_with_a_torch_demo_is_checked_here():
    assert TORCH_DEMO_LESSONS == ["01", "02", "03", "04", "05", "06", "07"]


@pytest.mark.parity
@pytest.mark.parametrize("lesson_id", TORCH_DEMO_LESSONS)
def test_on_real_torch_cell_prints_the_same_when_run_again(torch, lesson_id, capsys):
    """The cell's call, ``lesson.on_real_torch(program, code)``, twice in a row: the same text
    (torch's ledger, verdict and diff, and whether autograd_lesson printed the same), and the
    two engines agree."""
    program, code = on_torch_cells.program_and_code(lesson_id)
    printed = []
    for _ in range(2):
        lesson.on_real_torch(program, code)
        printed.append(capsys.readouterr().out)
    assert printed[0] == printed[1]
    assert "autograd_lesson printed the same text: True" in printed[0], printed[0]
