"""No marks without answers (autograd_lesson.course.hidden_tests): the key in each test cell's
hidden tests, predictions read as the literals the student wrote, tampering found by reading
the student's cells; and a class graded by nbgrader on lesson 01 with the cheats of issue 27.

The class (``class_scores``): a few students on lesson 01 in one nbgrader course, graded with
``make course``'s configuration (two processes). Every cheat comes with wrong answers
elsewhere, so that a cheat that worked would show as points: each must score 0 and leave its
cells "needs manual grade" with a message that names the line.
"""
import ast
import pathlib
import shutil

import nbformat
import pytest

from autograd_lesson.course import hidden_tests as hidden
from autograd_lesson.course.student import student_notebook
from test_classroom import need_nbgrader

ROOT = pathlib.Path(__file__).resolve().parent.parent
LESSONS = sorted((ROOT / "notebooks").glob("*.ipynb")) + \
    sorted((ROOT / "notebooks" / "ko").glob("*.ipynb"))


def cell(source, **marks):
    return nbformat.v4.new_code_cell(source, metadata={"nbgrader": marks} if marks else {})


# -- literals and the key ---------------------------------------------------------------------
@pytest.mark.parametrize("text, value", [
    ('{"a", "b"}', {"a", "b"}), ("set()", set()), ("[9_984] * 6", [9984] * 6),
    ("[-1.5, 2]", [-1.5, 2]), ("True", True), ("1 / 4", 0.25), ("(3,)", (3,)),
])
def test_literal_reads_what_the_student_wrote(text, value):
    assert hidden.literal(ast.parse(text, mode="eval").body) == value


@pytest.mark.parametrize("text", [
    "grad_after_both_calls().tolist()", "x.grad", "hooked()", "[v for v in range(3)]",
    "sorted({'a'})", "answer", "not False", "[0] * n",
])
def test_a_computed_answer_is_no_literal(text):
    with pytest.raises(hidden.NotALiteral):
        hidden.literal(ast.parse(text, mode="eval").body)


@pytest.mark.parametrize("answer, key, right", [
    ({"a"}, {"a"}, True), (["a"], {"a"}, False), ([21, -15, 3], [21.0, -15.0, 3.0], True),
    ([21.0000001, -15, 3], [21.0, -15.0, 3.0], True), ([22, -15, 3], [21.0, -15.0, 3.0], False),
    (1, True, False), (True, True, True), (4, 4, True), ("4", 4, False), ([3, 3], [3, 3, 3], False),
])
def test_same_wants_the_kind_asked_for(answer, key, right):
    assert hidden.same(answer, key) is right


def test_every_predict_exercise_has_a_key_that_is_its_solution():
    """Each test cell whose answer is a value carries ``assert name == key`` in its hidden
    tests, the key equal to the solution (nbval runs the assert; the checker above it runs
    the solution against the engine), in both editions."""
    for path in LESSONS:
        nb = nbformat.read(path, as_version=4)
        solutions = [(i, c.source) for i, c in enumerate(nb.cells)
                     if c.metadata.get("nbgrader", {}).get("solution")]
        for index, test in enumerate(nb.cells):
            if not hidden._is_test(test) or hidden.BEGIN not in test.source:
                continue
            for name, key in hidden.keys(test.source).items():
                verdict, value = hidden.answer_of([s for s in solutions if s[0] < index], name)
                assert verdict == "literal" and hidden.same(value, key), (path.name, name)


def test_the_student_copy_has_no_key():
    nb = student_notebook(nbformat.read(ROOT / "notebooks" / "01_multiple_losses.ipynb",
                                        as_version=4))
    assert not any("HIDDEN TESTS" in c.source or "assert " in c.source for c in nb.cells)


@pytest.mark.parametrize("source, verdict", [
    ("prediction = {'a'}", ("literal", {"a"})),
    ("prediction = ...  # YOUR ANSWER HERE", ("placeholder", None)),
    ("for prediction in [{'a'}, {'b'}]:\n    pass", ("computed", "for prediction in [{'a'}, {'b'}]:")),
    ("prediction = f()", ("computed", "prediction = f()")),
    ("x = 1", ("missing", None)),
])
def test_answer_of_takes_the_last_top_level_assignment(source, verdict):
    assert hidden.answer_of([(0, source)], "prediction") == verdict


# -- tampering, read not run ------------------------------------------------------------------
PROTECTED = {"lesson", "torch", "grad_after_both_calls", "two_losses_article", "make_step_inputs"}
CHEATS = {
    "env_pop": "import os\nos.environ.pop('NBGRADER_EXECUTION')",
    "env_del": "import os as o\ndel o.environ['NBGRADER_EXECUTION']",
    "fake_lesson": "class Fake:\n    def __getattr__(self, name):\n"
                   "        return lambda *a, **k: print('✓ correct')\nlesson = Fake()",
    "fake_checker": "lesson.check_freed = lambda *a, **k: print('✓ correct')",
    "alias_checker": "L = lesson\nL.check_value = print",
    "import_checker": "from autograd_lesson.lesson import checking\nchecking.check_step = print",
    "engine_patch": "torch.Tensor.backward = lambda self, *a, **k: None",
    "engine_in_step": "def step(model, x, y):\n    type(x).backward = None",
    "reference_swap": "def two_losses_article(model, x, y):\n    pass",
    "oracle": "for c in [set(), {'a'}]:\n    try:\n        lesson.check_which_raise(c, {})\n"
              "    except AssertionError:\n        pass",
    "bare_oracle": "check_deep(lambda m, x: None)",
    "builtins": "__builtins__.print = None",
    "setattr": "setattr(lesson, 'check_' + 'value', print)",
    "history": "In[-1]",
    "sys_modules": "import sys\nsys.modules['autograd_lesson.lesson'] = None",
}
FAIR = {
    "answer": 'prediction = {"MulBackward0.self"}',
    "step": "def two_losses_step(model, x, y):\n    out = model(x)\n    print(out.grad)\n"
            "    out.grad = None\n    (out.sum() + out.abs().mean()).backward()",
    "own_dict": "seen = {}\nseen['a'] = 1",
    "class": "class Softplus(Function):\n    @staticmethod\n    def forward(ctx, x):\n"
             "        ctx.save_for_backward(x)\n        return x",
    "explore": "lesson.show_graph(loss1)\nprint(torch.tensor([1.0]).exp())",
}


@pytest.mark.parametrize("name", CHEATS)
def test_each_cheat_is_found(name):
    found = hidden.tampering([(3, CHEATS[name])], PROTECTED)
    assert found and found[0][0] == 3, name


@pytest.mark.parametrize("name", FAIR)
def test_fair_answers_are_not_cheats(name):
    assert hidden.tampering([(3, FAIR[name])], PROTECTED) == []


def test_no_solution_is_a_cheat():
    """The solutions of every lesson, read as a student's cells, find no tampering."""
    for path in LESSONS:
        nb = nbformat.read(path, as_version=4)
        tests = [c.source for c in nb.cells if hidden._is_test(c)]
        lesson_cells = [c.source for c in nb.cells if c.cell_type == "code" and
                        not c.metadata.get("nbgrader", {}).get("solution")]
        answers = {n for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution")
                   for n in hidden._top_names(c.source)}
        protected = hidden.protected_names(lesson_cells, tests, answers)
        solutions = [(i, c.source) for i, c in enumerate(nb.cells)
                     if c.metadata.get("nbgrader", {}).get("solution")]
        assert hidden.tampering(solutions, protected) == [], path.name


def test_the_lesson_s_names_are_protected():
    nb = nbformat.read(ROOT / "notebooks" / "01_multiple_losses.ipynb", as_version=4)
    tests = [c.source for c in nb.cells if hidden._is_test(c)]
    lesson_cells = [c.source for c in nb.cells if c.cell_type == "code"]
    protected = hidden.protected_names(lesson_cells, tests, {"prediction", "two_losses_step"})
    assert {"lesson", "grad_after_both_calls", "two_losses_article", "make_step_inputs",
            "make_exercise_graph", "torch"} <= protected
    assert "prediction" not in protected and "two_losses_step" not in protected


# -- a class graded by nbgrader ---------------------------------------------------------------
STEM = "01_multiple_losses"
ANSWER_CELLS = {"freed": "01-freed-answer", "raises": "01-raises-answer",
                "which": "01-which-raise-answer", "sum": "01-grad-sum-answer",
                "step": "01-step-answer"}
FAKE = "lambda *args, **kwargs: print('✓ correct')"
# student -> {answer cell: its source, or None for a wrong but well-formed answer}; an answer
# cell not named keeps its solution. A cheat stands in its cell with every answer wrong.
WRONG = {cell: None for cell in ANSWER_CELLS}
CLASS = {
    "right_with_warning": {"step": "def two_losses_step(model, x, y):\n    out = model(x)\n"
                                   "    print(out.grad)  # a non-leaf's .grad: a UserWarning\n"
                                   "    (((out - y) ** 2).mean() + out.abs().mean()).backward()"},
    "half": {"which": None, "sum": None, "step": None},
    "env_pop": {**WRONG, "freed": "import os\nos.environ.pop('NBGRADER_EXECUTION')\n"
                                  "prediction = set()"},
    "fake_lesson": {**WRONG, "freed": "class Lesson:\n    def __getattr__(self, name):\n"
                                      f"        return {FAKE}\nlesson = Lesson()\nprediction = set()"},
    "fake_checkers": {**WRONG, "freed": "lesson.check_freed = lesson.check_raises = "
                                        "lesson.check_which_raise = lesson.check_value = "
                                        f"lesson.check_step = {FAKE}\nprediction = set()"},
    "engine_patch": {**WRONG, "freed": "torch.Tensor.backward = lambda self, *a, **k: None\n"
                                       "prediction = set()"},
    "engine_value": {**WRONG, "sum": "answer = grad_after_both_calls().tolist()"},
    "test_cell_code": {**WRONG, "raises": "try:\n    x, w, h, loss1, loss2 = make_exercise_graph()\n"
                                          "    loss1.backward()\n    loss2.backward()\n"
                                          "    raises = False\nexcept RuntimeError:\n"
                                          "    raises = True"},
    "oracle": {**WRONG, "which": "candidates = [set(), {'exp_twice'}, {'reshape_twice'}]\n"
                                 "for candidate in candidates:\n    try:\n"
                                 "        lesson.check_which_raise(candidate, {'exp_twice': exp_twice,"
                                 " 'reshape_twice': reshape_twice}, exercise='01-which-raise')\n"
                                 "        raising = candidate\n        break\n"
                                 "    except AssertionError:\n        pass"},
}
CHEATERS = [s for s in CLASS if s not in ("right_with_warning", "half")]


def submission(student):
    """The lesson's notebook with ``student``'s answers (see CLASS)."""
    from test_classroom import BLOCK, wrong_answer
    nb = nbformat.read(ROOT / "notebooks" / f"{STEM}.ipynb", as_version=4)
    by_id = {v: k for k, v in ANSWER_CELLS.items()}
    for c in nb.cells:
        which = by_id.get(c.metadata.get("nbgrader", {}).get("grade_id"))
        if which in CLASS[student]:
            source = CLASS[student][which]
            c.source = BLOCK.sub(wrong_answer, c.source) if source is None else source
    return nb


def grade_students(students, generated, tmp):
    """{student: {grade id: (score, needs manual grade, what the cell printed)}}: the
    students autograded on a copy of the generated course. In a process of its own."""
    from nbgrader.api import Gradebook
    from test_classroom import KERNEL_START_RACE, _api
    root = tmp / "course"
    shutil.copytree(generated, root)
    from autograd_lesson.course import classroom
    classroom.main([str(ROOT / "notebooks"), str(root)])  # the configuration names its root
    api = _api(root, tmp)
    for student in students:
        folder = root / "submitted" / student / STEM
        folder.mkdir(parents=True)
        nbformat.write(submission(student), folder / f"{STEM}.ipynb")
        result = api.autograde(STEM, student)
        if not result["success"] and any(m in result["log"] for m in KERNEL_START_RACE):
            result = api.autograde(STEM, student)
        assert result["success"], f"autograde {student}:\n{result['log']}"
    found = {}
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        for student in students:
            nb = nbformat.read(root / "autograded" / student / STEM / f"{STEM}.ipynb", as_version=4)
            errors = {c.metadata["nbgrader"]["grade_id"]: " ".join(
                o.evalue if o.output_type == "error" else o.get("text", "") for o in c.outputs)
                for c in nb.cells if hidden._is_test(c)}
            found[student] = {g.name: (g.score, g.needs_manual_grade, errors[g.name])
                              for g in gb.find_submission_notebook(STEM, STEM, student).grades}
    return found


def generate(tmp):
    from autograd_lesson.course import classroom
    from test_classroom import _api
    root = tmp / "course"
    classroom.main([str(ROOT / "notebooks"), str(root)])
    result = _api(root, tmp).generate_assignment(STEM)
    assert result["success"], result["log"]
    return root


@pytest.fixture(scope="module")
def class_scores(tmp_path_factory):
    need_nbgrader()
    import concurrent.futures
    import multiprocessing
    context = multiprocessing.get_context("spawn")
    students = list(CLASS)
    halves = [students[0::2], students[1::2]]
    with concurrent.futures.ProcessPoolExecutor(2, mp_context=context) as pool:
        generated = pool.submit(generate, tmp_path_factory.mktemp("generated")).result()
        futures = [pool.submit(grade_students, half, generated, tmp_path_factory.mktemp("class"))
                   for half in halves]
        scores = {k: v for f in futures for k, v in f.result().items()}
    print(f"\n{'student':<22}{'points':>7}  flagged")
    for student, cells in scores.items():
        flagged = [g for g, (_, flag, _) in cells.items() if flag]
        print(f"{student:<22}{sum(s for s, _, _ in cells.values()):>7g}  {', '.join(flagged)}")
    return scores


def test_right_answers_with_a_warning_score_every_point(class_scores):
    cells = class_scores["right_with_warning"]
    assert {g: s for g, (s, _, _) in cells.items()} == {
        "01-freed-check": 1, "01-raises-check": 1, "01-which-raise-check": 1,
        "01-grad-sum-check": 1, "01-step-check": 2}
    assert not any(flag for _, flag, _ in cells.values())
    assert "UserWarning" in cells["01-step-check"][2]  # shown, as ordinary output




def test_half_right_scores_half(class_scores):
    cells = class_scores["half"]
    assert {g: s for g, (s, _, _) in cells.items()} == {
        "01-freed-check": 1, "01-raises-check": 1, "01-which-raise-check": 0,
        "01-grad-sum-check": 0, "01-step-check": 0}


@pytest.mark.parametrize("student", CHEATERS)
def test_each_cheat_scores_nothing_and_is_flagged(class_scores, student):
    cells = class_scores[student]
    assert sum(s for s, _, _ in cells.values()) == 0
    cheat = ANSWER_CELLS[next(iter(c for c, v in CLASS[student].items() if v))]
    score, flag, printed = cells[cheat.replace("-answer", "-check")]
    message = printed[printed.index(hidden.FLAG):]
    assert flag and "`" in message, (student, message)  # names the line
    assert "raise AssertionError" not in message and "grading()" not in message
