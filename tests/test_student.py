"""Student copies of every lesson: solutions stripped, valid, and every exercise says "not done".

For each notebook in ``notebooks/``, ``autograd_lesson.course.student.student_notebook`` makes the copy
an instructor hands out (``make student``). The copy must be a valid notebook with no solution
left, each ``### BEGIN SOLUTION`` block replaced by a ``... # YOUR ANSWER HERE`` placeholder,
and it must run top to bottom in a fresh kernel without an error, every exercise cell printing
the checkers' "not done yet" message. The lessons with their solutions must pass their own checks.
The Korean edition (``notebooks/ko``, the same cells, its helpers speaking Korean) is checked the
same way, with the Korean words of the checkers. The copies are executed concurrently (one kernel each) and with Graphviz and the real-PyTorch
demos stubbed out by a first cell added for the run only (``tests/fast_pictures.py``: pictures and
demos are checked by nbval on the lessons), to keep the run short.
"""
import concurrent.futures
import copy
import pathlib
import re

import nbformat
import pytest

from autograd_lesson.i18n import korean_texts, messages
from autograd_lesson.lesson import EXERCISES, exercises_of
from autograd_lesson.course.student import main, student_notebook
from autograd_lesson.course.translations import LANG_LINE
import kernel_sockets
from fast_pictures import FAST_RUN  # the run needs the checkers, not the pictures

ROOT = pathlib.Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb")) + \
    sorted((ROOT / "notebooks" / "ko").glob("*.ipynb"))
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
PLACEHOLDER = re.compile(r"^[ \t]*(?:([A-Za-z_]\w*) = )?\.\.\.  # YOUR ANSWER HERE$", re.MULTILINE)
SOLVED = re.compile(rf"^([ \t]*){BEGIN}\n\s*(?:([A-Za-z_]\w*)\s*=)?", re.MULTILINE)
MIN_EXERCISES = 2
TIMEOUT = 120  # seconds per cell


def name_of(path):
    """'00_x.ipynb', or 'ko/00_x.ipynb' for the Korean edition."""
    return str(path.relative_to(ROOT / "notebooks"))


def said(nb, key, **fields):
    """What the checkers print for ``key`` in the notebook's language (it switches to Korean
    with lesson.set_language("ko") in its first code cell)."""
    english, korean = messages.MESSAGES[key]
    ko = any(LANG_LINE in c.source for c in nb.cells if c.cell_type == "code")
    return (korean if ko else english).format(**fields)


def exercise_indices(nb):
    return [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and BEGIN in c.source]


def check_indices(nb):
    """The checker cells (nbgrader autograded tests) and the progress cell."""
    return [i for i, c in enumerate(nb.cells)
            if c.metadata.get("nbgrader", {}).get("grade") or c.source.startswith("lesson.progress(")]


def lesson_id(nb):
    """The NN (or 00b) of the lesson's ``lesson.progress("NN")`` cell (an optional section may
    follow it)."""
    source = next(c.source for c in nb.cells if c.source.startswith("lesson.progress("))
    return re.match(r'lesson\.progress\("([^"]+)"\)', source)[1]


def text_of(cell):
    parts = []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream":
            parts.append(out.get("text", ""))
        elif "data" in out:
            parts.append(out["data"].get("text/plain", ""))
        elif out.get("output_type") == "error":
            parts.append(f"{out.get('ename')}: {out.get('evalue')}")
    return "".join(parts)




def execute(nb, workdir):
    from nbclient import NotebookClient
    nb.cells.insert(0, nbformat.v4.new_code_cell(FAST_RUN))
    NotebookClient(nb, timeout=TIMEOUT, kernel_name="python3", allow_errors=False,
                   kernel_manager_class=kernel_sockets.AsyncKernelManager,
                   resources={"metadata": {"path": str(workdir)}}).execute()
    nb.cells.pop(0)  # cell indices match the lesson's again
    return nb


@pytest.fixture(scope="module")
def copies(tmp_path_factory):
    """name -> (lesson, student copy, executed student copy or the exception it raised)."""
    out = tmp_path_factory.mktemp("student")
    lessons = {name_of(p): nbformat.read(p, as_version=4) for p in NOTEBOOKS}
    students = {}
    for name, nb in lessons.items():
        students[name] = student_notebook(copy.deepcopy(nb))
        (out / name).parent.mkdir(exist_ok=True)
        nbformat.write(students[name], out / name)
    with concurrent.futures.ThreadPoolExecutor(max_workers=3) as pool:
        futures = {name: pool.submit(execute, nbformat.read(out / name, as_version=4),
                                     (out / name).parent)
                   for name in lessons}
    executed = {}
    for name, future in futures.items():
        try:
            executed[name] = future.result()
        except Exception as error:  # noqa: BLE001  (reported per notebook below)
            executed[name] = error
    return {name: (lessons[name], students[name], executed[name]) for name in lessons}


@pytest.fixture(params=[name_of(p) for p in NOTEBOOKS])
def notebook(request, copies):
    return copies[request.param]


def test_there_are_lessons():
    assert len(NOTEBOOKS) >= 2, "notebooks/ should hold the lessons 00 .. 08"


def test_lesson_has_exercises(notebook):
    lesson, _, _ = notebook
    assert len(exercise_indices(lesson)) >= MIN_EXERCISES, \
        f"a lesson needs at least {MIN_EXERCISES} exercise cells with {BEGIN} blocks"


def test_student_copy_is_valid_and_has_no_solutions(notebook):
    lesson, student, _ = notebook
    nbformat.validate(student)
    for cell in student.cells:
        assert BEGIN not in cell.source and END not in cell.source
    for i in exercise_indices(lesson):
        # a top-level assignment keeps its name; a function's body becomes a bare ...
        solved = [None if m.group(1) else m.group(2) for m in SOLVED.finditer(lesson.cells[i].source)]
        blanks = [m.group(1) for m in PLACEHOLDER.finditer(student.cells[i].source)]
        assert blanks == solved, f"cell {i}: each solution must become its own placeholder"
        assert student.cells[i].outputs == [] and student.cells[i].execution_count is None


def test_lesson_solutions_pass_their_checks(notebook):
    lesson, _, _ = notebook
    checks = [i for i in check_indices(lesson) if "progress" not in lesson.cells[i].source]
    assert checks, "every exercise needs a checker cell (nbgrader grade=True)"
    correct, wrong = said(lesson, "verdict.correct", when=""), said(lesson, "verdict.wrong",
                                                                    ordinal="1st", nth="첫 번째")
    for i in checks:
        text = text_of(lesson.cells[i])
        assert correct in text, f"cell {i}: the stored solution output shows no {correct!r}"
        assert said(lesson, "not_done") not in text and wrong[:9] not in text, f"cell {i}"
    done = text_of(lesson.cells[check_indices(lesson)[-1]]).splitlines()[0]
    total = len(exercises_of(lesson_id(lesson)))
    assert done == said(lesson, "progress.head", lesson=lesson_id(lesson), done=total, n=total,
                        first=total), done


def test_exercises_are_nbgrader_cells_and_every_catalogue_entry_is_used(notebook):
    lesson, _, _ = notebook
    for i in exercise_indices(lesson):
        marks = lesson.cells[i].metadata.get("nbgrader", {})
        assert marks.get("solution") and not marks.get("grade"), f"cell {i}: a solution cell"
    for i in check_indices(lesson)[:-1]:
        marks = lesson.cells[i].metadata["nbgrader"]
        assert marks["locked"] and marks["points"] >= 1, f"cell {i}"
    sources = "".join(c.source for c in lesson.cells)
    used = re.findall(r'exercise="([^"]+)"|lesson\.report\("([^"]+)"', sources)
    used = {a or b for a, b in used}
    assert used == {e.id for e in exercises_of(lesson_id(lesson))}


def test_no_hint_text_in_any_student_visible_cell(notebook):
    _, student, _ = notebook
    hints = [e.hint for e in EXERCISES.values()] + \
        [hint for _, hint in korean_texts.EXERCISES_KO.values()]
    for i, cell in enumerate(student.cells):
        assert "hint=" not in cell.source, f"cell {i}: hints belong in lesson/catalogue.py"
        seen = cell.source + text_of(cell)
        assert not any(h in seen for h in hints), f"cell {i} shows a hint"


def test_student_copy_runs_and_each_exercise_says_not_done(notebook):
    lesson, student, executed = notebook
    if isinstance(executed, Exception):
        pytest.fail(f"the student copy does not run: {type(executed).__name__}: "
                    f"{str(executed)[-2000:]}")
    for i in exercise_indices(lesson):
        text = text_of(executed.cells[i])
        blanks = len(PLACEHOLDER.findall(student.cells[i].source))
        assert text == "" and blanks >= 1, f"cell {i}: an answer cell prints nothing"
    checks = check_indices(lesson)
    for i in checks[:-1]:
        text = text_of(executed.cells[i])
        assert said(lesson, "not_done") in text, f"cell {i}: expected 'not done yet', got:\n{text}"
        assert said(lesson, "verdict.correct", when="") not in text, \
            f"cell {i}: an unanswered exercise must not pass"
    summary = text_of(executed.cells[checks[-1]])
    lid = lesson_id(lesson)
    total = len(exercises_of(lid))
    assert summary.splitlines()[0] == said(lesson, "progress.head", lesson=lid, done=0,
                                           n=total, first=0)
    assert said(lesson, "status.not_done") in summary, summary


def test_student_copies_keep_pictures_and_never_overwrite_work(tmp_path, capsys):
    lesson = NOTEBOOKS[0]
    src = tmp_path / "src"
    src.mkdir()
    (src / lesson.name).write_bytes(lesson.read_bytes())
    main([str(src), str(tmp_path / "out")])
    copy_path = tmp_path / "out" / lesson.name
    first = nbformat.read(copy_path, as_version=4)
    assert sum(bool(c.get("outputs")) for c in first.cells if c.cell_type == "code") > 5
    main([str(src), str(tmp_path / "out")])
    assert "up to date" in capsys.readouterr().out
    first.cells[[i for i, c in enumerate(first.cells)
                 if c.metadata.get("nbgrader", {}).get("solution")][0]].source = "freed_by_loss1 = set()  # my try"
    nbformat.write(first, copy_path)
    main([str(src), str(tmp_path / "out")])
    assert "kept" in capsys.readouterr().out
    assert "my try" in copy_path.read_text()
    main([str(src), str(tmp_path / "out"), "--force"])
    assert "my try" not in copy_path.read_text()
    assert "my try" in (tmp_path / "out" / (lesson.name + ".bak")).read_text()


def test_the_korean_edition_gets_its_own_student_folder(tmp_path, capsys):
    """`make student` writes notebooks/ko's copies to build/student/ko (what `make lab-ko`
    opens), solutions stripped the same way."""
    lesson = NOTEBOOKS[0]
    src = tmp_path / "src"
    (src / "ko").mkdir(parents=True)
    (src / lesson.name).write_bytes(lesson.read_bytes())
    korean = nbformat.read(lesson, as_version=4)
    korean.cells[0].source = "# 한국어판"
    nbformat.write(korean, src / "ko" / lesson.name)
    main([str(src), str(tmp_path / "out")])
    copy_path = tmp_path / "out" / "ko" / lesson.name
    assert f"wrote {copy_path}" in capsys.readouterr().out
    student = nbformat.read(copy_path, as_version=4)
    assert student.cells[0].source == "# 한국어판"
    assert not any(BEGIN in c.source for c in student.cells)
    assert (tmp_path / "out" / lesson.name).exists()
    assert "make lab-ko" in (ROOT / "Makefile").read_text()
