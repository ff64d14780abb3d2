"""nbgrader end to end: ``make course``'s course, generated and autograded for every lesson.

One nbgrader course (``autograd_lesson.course.classroom``) holds all lessons. For each lesson,
``generate_assignment`` makes the release copy; three submissions are then autograded:

- ``untouched``: the release copy as handed out: every checker cell scores 0;
- ``solved``: the source notebook with its solutions: every checker cell scores full points;
- ``wrong``: the source notebook with every answer made wrong but well formed (True and False
  swapped, a set emptied, a number off by one, a function that raises): every checker cell
  scores 0.

The Korean edition's assignments (``ko-<stem>``, from ``notebooks/ko``) are graded the same way
for two lessons (00, and 01 with a write-code exercise): their cells are the English ones, only
the checkers' words differ, so two show that a Korean assignment generates and grades.

nbgrader is the ``classroom`` extra; ``.ci/run`` installs it, and with
``AUTOGRAD_LESSON_REQUIRE_NBGRADER=1`` (CI sets it) a missing nbgrader fails instead of skipping.
Graphviz and the real-PyTorch demos are stubbed out in the graded kernels (an IPython startup
file; ``tests/fast_pictures.py``) to keep the run short: the pictures are checked by nbval on the
lessons, the scores here. The lessons are generated once; each student's grading copies that
course.
"""
import ast
import os
import pathlib
import re
import shutil
import sys

import nbformat
import pytest

from autograd_lesson.course import classroom
from fast_pictures import FAST_RUN

ROOT = pathlib.Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
KOREAN_SAMPLE = [p for p in sorted((ROOT / "notebooks" / "ko").glob("*.ipynb"))
                 if p.stem in ("00_how_backward_works", "01_multiple_losses")]
# (assignment, lesson notebook): every English lesson, and the Korean sample
ASSIGNMENTS = [(p.stem, p) for p in NOTEBOOKS] + [(f"ko-{p.stem}", p) for p in KOREAN_SAMPLE]
BLOCK = re.compile(r"^([ \t]*)### BEGIN SOLUTION\n(.*?)^[ \t]*### END SOLUTION[ \t]*$",
                   re.MULTILINE | re.DOTALL)
STUDENTS = ("untouched", "solved", "wrong")
# jupyter_client picks a kernel's ports free, then the kernel binds them: a kernel started at
# the same moment elsewhere (another student's, another worker's) can take one first. The
# kernel then dies before running a cell; grading that submission again is a fresh start.
KERNEL_START_RACE = ("Kernel died before replying to kernel_info", "Address already in use")
# nbgrader 0.9.6's gradebook warns about its own SQLAlchemy session use; nothing to act on here
pytestmark = pytest.mark.filterwarnings("ignore:Object of type .* not in session")


def _wrong_value(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, list) and value and isinstance(value[0], str):
        return value[::-1]  # an order (00b): the same names, reversed
    if isinstance(value, list):
        return [value[0] + 1] + value[1:]
    if isinstance(value, set):
        return set() if value else {"nothing"}
    raise ValueError(f"no wrong answer for {value!r}")


def wrong_answer(match):
    """A solution block replaced by a wrong but well-formed answer of the same kind."""
    indent, body = match.group(1), match.group(2)
    if indent:  # the body of a function the learner writes
        return f'{indent}raise ValueError("a wrong answer")'
    tree = ast.parse(body)
    lines = []
    for statement in tree.body:
        name = statement.targets[0].id
        value = eval(compile(ast.Expression(statement.value), "<answer>", "eval"), {})  # noqa: S307
        lines.append(f"{name} = {_wrong_value(value)!r}")
    return "\n".join(lines)


def graded_cells(nb):
    return {c.metadata["nbgrader"]["grade_id"]: c.metadata["nbgrader"]["points"]
            for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")}


def _api(root, tmp):
    """nbgrader's API on the course in ``root``, with the environment it runs in: graded
    kernels with Graphviz and the torch demos stubbed out (an IPython startup file in ``tmp``), nbgrader's
    ``alembic`` found, ``root`` the working directory. For a process of its own."""
    import warnings
    warnings.filterwarnings("ignore", message="Object of type .* not in session")
    from nbgrader.apps import NbGraderAPI
    from traitlets.config.loader import PyFileConfigLoader
    startup = tmp / "ipython" / "profile_default" / "startup"
    startup.mkdir(parents=True, exist_ok=True)
    (startup / "00-fast-pictures.py").write_text(FAST_RUN)
    os.environ["IPYTHONDIR"] = str(tmp / "ipython")
    # nbgrader calls `alembic` by name: the running Python's bin goes first on PATH.
    os.environ["PATH"] = f"{pathlib.Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    os.chdir(root)
    return NbGraderAPI(config=PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config())


def generate(tmp):
    """The course in ``tmp / "course"`` with every lesson generated (release copies and the
    gradebook). Run in its own process; each student's grading starts from a copy of it."""
    root = tmp / "course"
    classroom.main(str(ROOT / "notebooks"), str(root))
    api = _api(root, tmp)
    for assignment, _ in ASSIGNMENTS:
        result = api.generate_assignment(assignment)
        assert result["success"], f"generate_assignment {assignment}:\n{result['log']}"
    return root


def grade(student, generated, tmp):
    """A copy in ``tmp`` of the generated course (its own gradebook): autograde ``student``'s
    submissions; return {stem: {grade_id: score}}. Run in its own process, so the working
    directory and environment it sets are its own."""
    from nbgrader.api import Gradebook
    root = tmp / "course"
    shutil.copytree(generated, root)
    classroom.main(str(ROOT / "notebooks"), str(root))  # the configuration names its root
    api = _api(root, tmp)
    for assignment, path in ASSIGNMENTS:
        stem = path.stem
        folder = root / "submitted" / student / assignment
        folder.mkdir(parents=True)
        target = folder / f"{stem}.ipynb"
        if student == "untouched":
            shutil.copy(root / "release" / assignment / f"{stem}.ipynb", target)
        elif student == "solved":
            shutil.copy(path, target)
        else:
            wrong = nbformat.read(path, as_version=4)
            for cell in wrong.cells:
                if cell.cell_type == "code":
                    cell.source = BLOCK.sub(wrong_answer, cell.source)
            nbformat.write(wrong, target)
        result = api.autograde(assignment, student)
        if not result["success"] and any(m in result["log"] for m in KERNEL_START_RACE):
            result = api.autograde(assignment, student)  # once more: the kernel never started
        assert result["success"], f"autograde {assignment} for {student}:\n{result['log']}"
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        return {assignment: {g.name: g.score for g in
                             gb.find_submission_notebook(path.stem, assignment, student).grades}
                for assignment, path in ASSIGNMENTS}


@pytest.fixture(scope="module")
def scores(tmp_path_factory):
    """{lesson stem: {student: {grade_id: score}}}, and the points each cell is worth. The
    lessons are generated once; the three submissions are then graded in three processes at
    once, each on its own copy of the generated course."""
    try:
        import nbgrader  # noqa: F401
    except ImportError as error:
        if os.environ.get("AUTOGRAD_LESSON_REQUIRE_NBGRADER") == "1":
            pytest.fail(f"AUTOGRAD_LESSON_REQUIRE_NBGRADER=1 but nbgrader is missing: {error}",
                        pytrace=False)
        pytest.skip("nbgrader not installed: pip install -e '.[classroom]' (make install-classroom)")
    import concurrent.futures
    import multiprocessing
    points = {a: graded_cells(nbformat.read(p, as_version=4)) for a, p in ASSIGNMENTS}
    context = multiprocessing.get_context("spawn")  # a clean process: no pytest state shared
    with concurrent.futures.ProcessPoolExecutor(len(STUDENTS), mp_context=context) as pool:
        generated = pool.submit(generate, tmp_path_factory.mktemp("generated")).result()
        futures = {s: pool.submit(grade, s, generated, tmp_path_factory.mktemp(s))
                   for s in STUDENTS}
        by_student = {s: f.result() for s, f in futures.items()}
    table = {stem: {s: by_student[s][stem] for s in STUDENTS} for stem in points}
    print_table(table, points)
    return table, points


def print_table(table, points):
    """The score table (shown with pytest -s, and in the closing note of issue 11)."""
    print(f"\n{'lesson':<32}{'cells':>6}{'points':>7}" + "".join(f"{s:>11}" for s in STUDENTS))
    for stem, by_student in table.items():
        total = sum(points[stem].values())
        print(f"{stem:<32}{len(points[stem]):>6}{total:>7}" +
              "".join(f"{sum(by_student[s].values()):>11g}" for s in STUDENTS))


@pytest.fixture(params=[a for a, _ in ASSIGNMENTS])
def lesson(request, scores):
    table, points = scores
    return table[request.param], points[request.param]


def test_every_lesson_has_graded_cells(lesson):
    _, points = lesson
    assert len(points) >= 2 and all(p >= 1 for p in points.values())


def test_release_copy_scores_nothing(lesson):
    table, points = lesson
    assert set(table["untouched"]) == set(points)
    assert table["untouched"] == {cell: 0 for cell in points}


def test_solutions_score_every_point(lesson):
    table, points = lesson
    assert table["solved"] == {cell: float(p) for cell, p in points.items()}


def test_wrong_answers_score_nothing(lesson):
    table, points = lesson
    assert table["wrong"] == {cell: 0 for cell in points}


def test_wrong_answers_keep_the_form():
    """The wrong answers are of the right kind, so the checkers grade them rather than
    reject their form."""
    sub = lambda text: BLOCK.sub(wrong_answer, text)  # noqa: E731
    assert sub("### BEGIN SOLUTION\nraises = True\n### END SOLUTION") == "raises = False"
    assert sub("### BEGIN SOLUTION\nx = [3.0, 1]\n### END SOLUTION") == "x = [4.0, 1]"
    assert sub('### BEGIN SOLUTION\ns = {"a"}\n### END SOLUTION') == "s = set()"
    assert sub("def f():\n    ### BEGIN SOLUTION\n    return 1\n    ### END SOLUTION") == \
        'def f():\n    raise ValueError("a wrong answer")'
