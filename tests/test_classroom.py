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
    classroom.write_course(ROOT / "notebooks", root)
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
    classroom.write_course(ROOT / "notebooks", root)  # the configuration names its root
    api = _api(root, tmp)
    for assignment, path in ASSIGNMENTS:
        stem = assignment  # the notebook has its assignment's name (ko-01_..., not 01_...)
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
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", classroom.COURSE_ID) as gb:
        return {assignment: {g.name: g.score for g in
                             gb.find_submission_notebook(assignment, assignment, student).grades}
                for assignment, path in ASSIGNMENTS}


def need_nbgrader():
    """Skip without nbgrader, or fail where CI requires it."""
    try:
        import nbgrader  # noqa: F401
    except ImportError as error:
        if os.environ.get("AUTOGRAD_LESSON_REQUIRE_NBGRADER") == "1":
            pytest.fail(f"AUTOGRAD_LESSON_REQUIRE_NBGRADER=1 but nbgrader is missing: {error}",
                        pytrace=False)
        pytest.skip("nbgrader not installed: pip install -e '.[classroom]' (make install-classroom)")


@pytest.fixture(scope="module")
def scores(tmp_path_factory):
    """{lesson stem: {student: {grade_id: score}}}, and the points each cell is worth. The
    lessons are generated once; the three submissions are then graded in three processes at
    once, each on its own copy of the generated course."""
    need_nbgrader()
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


# --- a course run as INSTRUCTORS.md says, through an exchange --------------------------------
# The guide's ```bash lines are run here as written (``make`` ones as ``make -n``), in order, by
# a small interpreter that follows their ``cd`` and ``export``: the instructor in a folder laid
# out as the repository (``build/course``, ``.venv`` linked to this one), two students in homes
# of their own. alice hands in the answer key before the due date, bob the untouched copy after
# it; carol's Korean lesson comes as a browser-renamed download in an LMS zip; lesson 11 is
# autograded where torch cannot be imported.
GUIDE = ROOT / "notebooks" / "INSTRUCTORS.md"
STUDENT_LINE = re.compile(r"^nbgrader (fetch_assignment|validate|submit)\b")


def guide_commands():
    """Every line of the guide's ```bash blocks, in order."""
    blocks = re.findall(r"^ *```bash\n(.*?)^ *```", GUIDE.read_text(), re.MULTILINE | re.DOTALL)
    return [line.strip() for block in blocks for line in block.splitlines() if line.strip()]


def _shell(line, cwd, env):
    done = __import__("subprocess").run(["bash", "-c", line], cwd=cwd, env=env,
                                        capture_output=True, text=True)
    assert done.returncode == 0, f"{line!r} in {cwd}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def round_trip(tmp):
    """Run the guide's course; return what the test checks."""
    import datetime
    import zipfile
    from nbgrader.api import Gradebook
    repo = tmp / "repo"  # the instructor's checkout, as far as the guide's commands see it
    (repo).mkdir()
    (repo / ".venv").symlink_to(pathlib.Path(sys.executable).parent.parent)
    exchange = tmp / "exchange"
    exchange.mkdir()
    exchange.chmod(0o777)
    course = classroom.write_course(ROOT / "notebooks", repo / "build" / "course", exchange=exchange)
    api = _api(course, tmp)  # the graded kernels' IPYTHONDIR (no pictures) and PATH
    env = dict(os.environ, HOME=str(tmp / "instructor"))
    (course / "students.csv").write_text("id,first_name,last_name,email\n"
                                         "alice,Alice,Kim,alice@example.org\n"
                                         "bob,Bob,Lee,bob@example.org\n"
                                         "carol,Carol,Park,carol@example.org\n")
    downloads = tmp / "instructor" / "Downloads"
    downloads.mkdir(parents=True)
    with zipfile.ZipFile(downloads / "class.zip", "w") as archive:  # an LMS's zip
        archive.write(ROOT / "notebooks" / "ko" / "01_multiple_losses.ipynb",
                      "carol/ko-01_multiple_losses (1).ipynb")
    homes = {s: tmp / s for s in ("alice", "bob")}
    for home in homes.values():
        home.mkdir()
        shutil.copy(course / "student_nbgrader_config.py", home / "nbgrader_config.py")
    cwd, ran = repo, []
    for line in guide_commands():
        if line.startswith("make "):
            _shell(f"make -n -C {ROOT} {line[5:]}", ROOT, env)
        elif line.startswith(("cd ", "export ")):
            out = _shell(f'{line} && pwd && printf "%s" "$PATH"', cwd, env).splitlines()
            cwd, env["PATH"] = pathlib.Path(out[0]), out[1]
        elif line.startswith(("git clone", "python3 -m pip", "python3 -m autograd_lesson")):
            continue  # the student set-up: test_student_set_up_commands
        elif STUDENT_LINE.match(line):
            for student, home in homes.items():
                if line.startswith("nbgrader validate") and student != "alice":
                    continue  # one run of the lesson is enough to show it works
                if line.startswith("nbgrader submit"):
                    if student == "alice":  # the answer key, in the fetched copy's place
                        shutil.copy(ROOT / "notebooks" / "01_multiple_losses.ipynb",
                                    home / "01_multiple_losses" / "01_multiple_losses.ipynb")
                    else:  # bob is late: the due date falls between the two submissions
                        due = datetime.datetime.now(datetime.timezone.utc)
                    _shell(f"{line} --student={student}", home, env)
                else:
                    _shell(line, home, env)
        elif line.startswith("nbgrader generate_assignment"):
            _shell(line, cwd, env)
            for other in ("ko-01_multiple_losses", "11_your_own_model"):
                _shell(line.replace("01_multiple_losses", other), cwd, env)
            shutil.move(cwd / "source", tmp / "key")  # grading never needs the key
        elif line.startswith("nbgrader zip_collect"):
            zipped = cwd / "downloaded" / "ko-01_multiple_losses" / "archive"
            zipped.mkdir(parents=True)
            shutil.copy(downloads / "class.zip", zipped)
            _shell(line.replace("01_multiple_losses", "ko-01_multiple_losses"), cwd, env)
        elif line.startswith(("nbgrader autograde", "nbgrader export")):
            if line.startswith("nbgrader autograde"):
                _shell(f'nbgrader db assignment add 01_multiple_losses '
                       f'--duedate="{due:%Y-%m-%d %H:%M:%S.%f} UTC"', cwd, env)
                _shell(line.replace("01_multiple_losses", "ko-01_multiple_losses"), cwd, env)
            _shell(line, cwd, env)
        else:
            _shell(line, cwd, env)
        ran.append(line)
    # lesson 11 graded where torch cannot be imported (a torch that raises ImportError first on
    # the path of the grading kernel and of nbgrader's check)
    shim = tmp / "no-torch" / "torch"
    shim.mkdir(parents=True)
    (shim / "__init__.py").write_text('raise ImportError("No module named \'torch\' (hidden)")\n')
    folder = course / "submitted" / "erin" / "11_your_own_model"
    folder.mkdir(parents=True)
    shutil.copy(course / "release" / "11_your_own_model" / "11_your_own_model.ipynb", folder)
    os.environ["PYTHONPATH"] = str(shim.parent)
    without_torch = api.autograde("11_your_own_model", "erin")
    del os.environ["PYTHONPATH"]
    feedback = (course / "feedback" / "bob" / "01_multiple_losses" /
                "01_multiple_losses.html").read_text()
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", classroom.COURSE_ID) as gb:
        grade = gb.find_grade("01-freed-check", "01_multiple_losses", "01_multiple_losses", "bob")
        grade.needs_manual_grade = True  # as nbgrader flags a cell, for the formgrader
        gb.db.commit()
    _shell("nbgrader export --to flagged.csv", cwd, env)
    return {"ran": ran, "grades": (course / "grades.csv").read_text(),
            "flagged": (course / "flagged.csv").read_text(), "feedback": feedback,
            "without_torch": without_torch, "course": str(course)}


@pytest.fixture(scope="module")
def course_run(tmp_path_factory):
    need_nbgrader()
    import concurrent.futures
    import csv
    import io
    import multiprocessing
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=context) as pool:
        run = pool.submit(round_trip, tmp_path_factory.mktemp("course-run")).result()
    print("\n" + run["grades"])
    for key in ("grades", "flagged"):
        run[key] = {(r["assignment"], r["student_id"]): r
                    for r in csv.DictReader(io.StringIO(run[key]))}
    return run


def test_the_guide_runs_through_an_exchange(course_run):
    commands = guide_commands()
    skipped = [c for c in commands if c not in course_run["ran"]]
    assert skipped == [c for c in commands
                       if c.startswith(("git clone", "python3 -m pip", "python3 -m autograd_lesson"))]
    grades = course_run["grades"]
    alice, bob = grades["01_multiple_losses", "alice"], grades["01_multiple_losses", "bob"]
    assert (alice["first_name"], alice["last_name"], alice["email"]) == ("Alice", "Kim", "alice@example.org")
    assert (alice["status"], alice["score"], alice["max_score"], alice["late"]) == ("graded", "6", "6", "")
    assert (bob["status"], bob["score"], bob["late"]) == ("graded", "0", "late")
    assert alice["01 · what loss1.backward() frees"] == "1"
    assert alice["01 · write the two-loss step without retain_graph"] == "2"
    assert bob["01 · what loss1.backward() frees"] == "0"
    assert grades["01_multiple_losses", "carol"]["status"] == "not submitted"


def test_a_renamed_download_in_an_lms_zip_is_collected_under_the_korean_name(course_run):
    carol = course_run["grades"]["ko-01_multiple_losses", "carol"]
    assert (carol["status"], carol["score"], carol["max_score"]) == ("graded", "6", "6")
    assert carol["ko-01 · loss1.backward()가 해제하는 것"] == "1"
    assert pathlib.Path(course_run["course"], "submitted", "carol", "ko-01_multiple_losses",
                        "ko-01_multiple_losses.ipynb").is_file()


def test_a_flagged_cell_needs_grading_not_zero(course_run):
    bob = course_run["flagged"]["01_multiple_losses", "bob"]
    assert (bob["status"], bob["score"]) == ("needs grading", "")
    assert bob["01 · what loss1.backward() frees"] == "needs grading"
    assert bob["01 · loss2.backward() after loss1.backward()"] == "0"


def test_feedback_names_each_exercise_once_without_paths(course_run):
    page = course_run["feedback"]
    assert "Test cell" not in page and "Grade cell:" not in page
    assert page.count('href="#01-freed-check">what loss1.backward() frees</a>') == 1
    assert page.count("not done yet: replace the ...") == 5  # bob's untouched copy: once each
    assert "most recent call last" not in page and "site-packages" not in page
    assert str(ROOT) not in page and course_run["course"] not in page
    # the hidden tests are the answer key: not in the page a student gets back
    assert "BEGIN HIDDEN TESTS" not in page and "hidden tests: the grader" in page
    assert "MulBackward0.other" not in page and "21.0, -15.0, 3.0" not in page


def test_lesson_11_fails_loudly_without_torch(course_run):
    result = course_run["without_torch"]
    assert not result["success"]
    assert "11_your_own_model is graded on real PyTorch" in result["log"]
    assert "No module named 'torch' (hidden)" in result["log"]


def test_student_set_up_commands(tmp_path):
    """The guide's student set-up, from a student edition: clone it, install (pip's dry run:
    it must resolve without --user in a venv), write the copies; no solution anywhere, and
    `make lab` plans to run there."""
    import subprocess
    from autograd_lesson.course import edition
    published = edition.write_edition(ROOT, tmp_path / "published")
    env = dict(os.environ, PATH=f"{pathlib.Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    cwd = tmp_path
    for line in guide_commands():
        if not line.startswith(("git clone", "python3 -m pip", "python3 -m autograd_lesson")):
            continue
        line = line.replace("<student edition>", str(published)).replace("python3 ", "python ")
        if line.startswith("python -m pip install"):
            line = line.replace("install", "install --dry-run --no-deps", 1)
        if line.startswith("git clone"):  # each set-up (own machine, Hub) starts afresh
            cwd = tmp_path
            shutil.rmtree(cwd / "autograd-lesson", ignore_errors=True)
        line = line.replace("git clone", "git clone -q")
        done = subprocess.run(["bash", "-c", line + " && pwd"], cwd=cwd, env=env,
                              capture_output=True, text=True)
        assert done.returncode == 0, f"{line}:\n{done.stdout}\n{done.stderr}"
        cwd = pathlib.Path(done.stdout.splitlines()[-1])
    clone = tmp_path / "autograd-lesson"
    assert not (clone / "tests").exists() and not (clone / "notebooks" / "INSTRUCTORS.md").exists()
    notebooks = list(clone.glob("notebooks/**/*.ipynb")) + list(clone.glob("build/student/**/*.ipynb"))
    assert len(notebooks) >= 4 * len(NOTEBOOKS) - 1
    assert not [p for p in notebooks if "### BEGIN SOLUTION" in p.read_text()]
    plan = subprocess.run(["make", "-n", "lab", "validate", "LESSON=01_multiple_losses"], cwd=clone,
                          capture_output=True, text=True)
    assert plan.returncode == 0 and "jupyter lab build/student/" in plan.stdout, plan.stderr


def test_the_lab_plans_fit_two_hours():
    """By the guide's own times: each lesson's time in notebooks/README.md plus 10 minutes for
    each write-code exercise (the catalogue's `code` exercises)."""
    from autograd_lesson.lesson.catalogue import _ALL
    times = dict(re.findall(r"^\| (\w+) \| .*\| (\d+) min \|$",
                            (ROOT / "notebooks" / "README.md").read_text(), re.MULTILINE))
    code = {e.lesson for e in _ALL if e.kind == "code"}
    plans = re.findall(r"^\| \d\. [^|]+\| ([\d, ]+) \| ([^|]+) \|", GUIDE.read_text(), re.MULTILINE)
    assert len(plans) == 3
    for lessons, stated in plans:
        minutes = [int(times[n]) + 10 * (n in code) for n in lessons.replace(" ", "").split(",")]
        assert sum(minutes) <= 120, (lessons, minutes)
        assert stated.strip() == " + ".join(map(str, minutes)) + f" = {sum(minutes)}"
