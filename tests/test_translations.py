"""The Korean notebooks stay in step with the English lessons (autograd_lesson.course.translations).

Every ``notebooks/ko/*.ipynb`` is compared with its English lesson: each Korean markdown cell's
recorded hash matches its English twin's text, no cell is missing or extra, ids and order are the
same, and code cells are the English ones (the first with ``lesson.set_language("ko")`` added).
A small fixture pair checks that each kind of drift is caught, and the translator's commands
(``stale``, ``stamp``, ``sync``) on a copy.
"""
import copy
import pathlib

import nbformat
import pytest

from autograd_lesson.course import translations
from autograd_lesson.course.translations import LANG_LINE, digest, problems

ROOT = pathlib.Path(__file__).resolve().parents[1]
ENGLISH = sorted((ROOT / "notebooks").glob("*.ipynb"))
KOREAN = sorted((ROOT / "notebooks" / "ko").glob("*.ipynb"))


@pytest.mark.parametrize("path", KOREAN or [pytest.param(
    None, marks=pytest.mark.skip(reason="no Korean notebooks in notebooks/ko yet"))],
    ids=lambda p: p.name if p else "none")
def test_korean_notebook_is_in_step_with_its_english_lesson(path):
    found = translations.check(path)
    assert [str(p) for p in found] == [], \
        f"run: python -m autograd_lesson.course.translations stale notebooks/ko/{path.name}"


@pytest.mark.parametrize("path", KOREAN or [pytest.param(
    None, marks=pytest.mark.skip(reason="no Korean notebooks in notebooks/ko yet"))],
    ids=lambda p: p.name if p else "none")
def test_korean_notebook_is_executed_like_its_english_lesson(path):
    """nbval passes a notebook without outputs vacuously: the translators' notebooks are
    stored stripped, and must be executed once (python -m autograd_lesson.course.run_notebooks
    notebooks/ko/*.ipynb) so that nbval compares what the Korean helpers print."""
    def with_outputs(p):  # the first code cell ends, in Korean, with set_language's None
        code = [c for c in nbformat.read(p, as_version=4).cells if c.cell_type == "code"]
        return [c.id for c in code[1:] if c.outputs]
    english = with_outputs(translations.english_of(path))
    korean = with_outputs(path)
    assert set(english) - set(korean) == set(), \
        f"run: python -m autograd_lesson.course.run_notebooks notebooks/ko/{path.name}"


def test_every_english_lesson_has_a_korean_twin_once_there_is_a_korean_edition():
    if not KOREAN:
        pytest.skip("no Korean notebooks in notebooks/ko yet")
    assert sorted(p.name for p in ENGLISH) == sorted(p.name for p in KOREAN)


# -- a small fixture pair: each kind of drift is caught ---------------------------------------
def english():
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Title\nWhat you will be able to do.", id="intro"),
                nbformat.v4.new_code_cell("import autograd_lesson as torch\n"
                                          "from autograd_lesson import lesson", id="imports"),
                nbformat.v4.new_markdown_cell("## Exercise 1\nPredict.", id="ex1"),
                nbformat.v4.new_code_cell("answer = ...", id="answer",
                                          metadata={"nbgrader": {"solution": True}}),
                nbformat.v4.new_raw_cell("raw text", id="raw")]
    return nb


def korean(en):
    ko = copy.deepcopy(en)
    first = True
    for cell in ko.cells:
        if cell.cell_type == "markdown":
            cell.metadata["translation"] = {"source": cell.id, "sha256": digest(cell.source)}
            cell.source = "## 한국어 " + cell.id
        elif cell.cell_type == "code" and first:
            cell.source += "\n" + LANG_LINE
            first = False
    return ko


def kinds(en, ko):
    return [p.kind for p in problems(en, ko)]


def test_a_faithful_pair_has_no_problems():
    en = english()
    assert kinds(en, korean(en)) == []


def test_the_language_line_may_follow_the_import_of_lesson_where_the_cell_prints():
    """Lesson 11's first cell prints the install line: its Korean twin sets the language
    right after importing lesson, and sync keeps it so; anywhere else it is out of step."""
    en = english()
    en.cells[1].source += "\ntorch = lesson.real_torch()"
    ko = korean(en)
    ko.cells[1].source = ("import autograd_lesson as torch\nfrom autograd_lesson import lesson\n"
                          + LANG_LINE + "   # 한국어로\ntorch = lesson.real_torch()")
    assert kinds(en, ko) == []
    ko.cells[1].source = ("import autograd_lesson as torch\n" + LANG_LINE +
                          "\nfrom autograd_lesson import lesson\ntorch = lesson.real_torch()")
    assert kinds(en, ko) == ["code"]  # (before the import: lesson is not there yet)


def test_an_english_edit_makes_its_korean_twin_stale():
    en = english()
    ko = korean(en)
    en.cells[2].source += " Then check."
    found = problems(en, ko)
    assert [(p.kind, p.cell) for p in found] == [("stale", "ex1")]
    assert found[0].english == "## Exercise 1\nPredict. Then check."


@pytest.mark.parametrize("change, expected", [
    (lambda en, ko: ko.cells.pop(2), ["missing"]),
    (lambda en, ko: ko.cells.append(nbformat.v4.new_markdown_cell("더", id="more")), ["extra"]),
    (lambda en, ko: ko.cells.insert(0, ko.cells.pop(2)), ["order"]),
    (lambda en, ko: setattr(ko.cells[1], "source", en.cells[1].source), ["code"]),
    (lambda en, ko: setattr(ko.cells[3], "source", "answer = 1  # 답"), ["code"]),
    (lambda en, ko: ko.cells[3].metadata.pop("nbgrader"), ["metadata"]),
    (lambda en, ko: ko.cells[3].metadata.update(execution={"iopub.status.idle": "now"}), []),
    (lambda en, ko: ko.cells[0].metadata.pop("translation"), ["unstamped"]),
    (lambda en, ko: ko.cells[0].metadata["translation"].update(source="ex1"), ["source"]),
    (lambda en, ko: setattr(ko.cells[4], "source", "번역된 raw"), ["raw"]),
    (lambda en, ko: ko.cells.__setitem__(2, nbformat.v4.new_code_cell("x", id="ex1")), ["type"]),
])
def test_each_kind_of_drift_is_caught(change, expected):
    en = english()
    ko = korean(en)
    change(en, ko)
    assert kinds(en, ko) == expected


# -- the translator's commands on a copy ------------------------------------------------------
@pytest.fixture
def pair(tmp_path):
    (tmp_path / "ko").mkdir()
    en_path, ko_path = tmp_path / "00_x.ipynb", tmp_path / "ko" / "00_x.ipynb"
    en = english()
    nbformat.write(en, en_path)
    nbformat.write(korean(en), ko_path)
    return en_path, ko_path


def test_stale_lists_the_cell_with_its_english_text_then_stamp_clears_it(pair, capsys):
    en_path, ko_path = pair
    assert translations.main(["stale", str(ko_path)]) == 0
    assert capsys.readouterr().out.strip() == f"{ko_path}: in step"
    en = nbformat.read(en_path, as_version=4)
    en.cells[2].source = "## Exercise 1\nPredict, then run the checker."
    nbformat.write(en, en_path)
    assert translations.main(["stale", str(ko_path)]) == 1
    out = capsys.readouterr().out
    assert "stale: cell ex1: the English cell changed" in out
    assert "    | Predict, then run the checker." in out
    with pytest.raises(SystemExit, match="name the cells"):
        translations.main(["stamp", str(ko_path)])
    with pytest.raises(SystemExit, match="no markdown cell 'nope'"):
        translations.main(["stamp", str(ko_path), "nope"])
    assert translations.main(["stamp", str(ko_path), "ex1"]) == 0
    assert translations.check(ko_path) == []


def test_sync_restores_the_structure_and_leaves_new_cells_for_the_translator(pair, capsys):
    en_path, ko_path = pair
    en = nbformat.read(en_path, as_version=4)
    en.cells.insert(3, nbformat.v4.new_markdown_cell("A new paragraph.", id="new"))
    en.cells[1].source += "\nimport numpy as np"
    nbformat.write(en, en_path)
    ko = nbformat.read(ko_path, as_version=4)
    ko.cells.append(nbformat.v4.new_markdown_cell("남은 셀", id="gone"))
    nbformat.write(ko, ko_path)
    assert sorted(kinds(en, ko)) == ["code", "extra", "missing"]
    translations.main(["sync", str(ko_path)])
    ko = nbformat.read(ko_path, as_version=4)
    assert [c.id for c in ko.cells] == [c.id for c in en.cells]
    assert ko.cells[2].source == "## 한국어 ex1"  # the Korean text is kept
    assert [(p.kind, p.cell) for p in translations.check(ko_path)] == [("unstamped", "new")]


def test_the_english_lesson_of_a_korean_notebook():
    assert translations.english_of(ROOT / "notebooks" / "ko" / "04_rnn.ipynb") == \
        ROOT / "notebooks" / "04_rnn.ipynb"


def test_stale_finds_the_translated_english_text_in_git_history():
    """For a stale cell, 'stale' shows what changed since the translation, from the English
    text with the recorded hash in git history."""
    import subprocess
    path = ENGLISH[0]
    try:
        committed = subprocess.run(["git", "-C", str(ROOT), "show",
                                    f"HEAD:notebooks/{path.name}"], capture_output=True,
                                   text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    cell = next(c for c in nbformat.reads(committed, as_version=4).cells
                if c.cell_type == "markdown")
    assert translations._old_english(path, cell.id, digest(cell.source)) == cell.source
    assert translations._old_english(path, cell.id, digest("never written")) is None
