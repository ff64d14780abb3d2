"""An nbgrader course from the lessons (``make course``)::

    python -m autograd_lesson.course.classroom notebooks build/course \
        [--course-id autograd-lesson] [--exchange /srv/nbgrader/exchange]

Writes ``build/course/nbgrader_config.py`` (the instructor's), ``student_nbgrader_config.py`` (for
the students' ``~/.jupyter/nbgrader_config.py`` on a shared Hub: the same course id and exchange)
and ``source/<name>/<name>.ipynb`` for every lesson: ``<name>`` is the lesson's stem
(``01_multiple_losses``), and ``ko-<stem>`` for a Korean lesson (``notebooks/ko/``), so the two
editions never share a file name (a student who downloads both hands in two files, not
``01_multiple_losses (1).ipynb``).

The configuration gives nbgrader what a course needs:

- a course id and an exchange (``release_assignment``, ``fetch_assignment``, ``submit``,
  ``collect``); by default the exchange is ``build/course/exchange`` (one machine);
- ``generate_assignment`` writes the same copy as ``make student``: each solution block becomes
  ``<name> = ...  # YOUR ANSWER HERE`` (a function's body ``...  # YOUR ANSWER HERE``) and only
  the exercise cells lose their outputs (pictures and ledgers stay);
- ``autograde`` refuses a lesson graded on real PyTorch where the grading kernel has none
  (``course.needs_torch``);
- ``zip_collect`` files notebooks downloaded from a course website or an LMS's zip, renamed
  downloads included (``course.collecting``);
- ``export`` writes grades.csv with one column per exercise and a late flag (``course.export``);
- ``generate_feedback`` names each exercise by its title and shows its message once, without
  a traceback (``course.feedback``).

Run nbgrader with the venv's ``bin`` first on PATH (it calls ``alembic`` by name)::

    cd build/course && PATH="$PWD/../../.venv/bin:$PATH" nbgrader generate_assignment 00_how_backward_works
"""
import argparse
import pathlib
import shutil

try:  # only with the `classroom` extra (nbgrader); the course writer itself needs none of it
    from nbgrader.preprocessors import ClearOutput, ClearSolutions
except ImportError:  # pragma: no cover
    ClearOutput = ClearSolutions = object

import nbformat

from .needs_torch import needs_torch
from .student import KOREAN, is_exercise_cell, strip_solutions

COURSE_ID = "autograd-lesson"

CONFIG = '''\
# nbgrader configuration written by `make course` (autograd_lesson.course.classroom).
from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
from nbgrader.preprocessors import (CheckCellMetadata, ClearHiddenTests, ClearMarkScheme,
                                    ComputeChecksums, Execute, GetGrades, IgnorePattern,
                                    IncludeHeaderFooter, InstantiateTests, LimitOutput,
                                    LockCells, SaveAutoGrades, SaveCells)
from nbgrader.preprocessors.latesubmissions import AssignLatePenalties
from nbconvert.preprocessors import ClearMetadataPreprocessor
from autograd_lesson.course.classroom import ClearExerciseOutputs, ClearSolutionsKeepNames
from autograd_lesson.course.collecting import LessonFileCollector
from autograd_lesson.course.export import ExerciseCsvExport
from autograd_lesson.course.feedback import FeedbackExporter, HideHiddenTests, OneMessagePerExercise
from autograd_lesson.course.hidden_tests import FlagForReview, GradeAnswers
from autograd_lesson.course.needs_torch import RequireTorch

c = get_config()  # noqa: F821
c.CourseDirectory.root = {root!r}
c.CourseDirectory.course_id = {course_id!r}
# release_assignment / fetch_assignment / submit / collect go through this folder; on a Hub it
# is one folder every user can write to (nbgrader's default is /srv/nbgrader/exchange)
c.Exchange.root = {exchange!r}
c.ClearSolutions.code_stub = {{"python": "...  # YOUR ANSWER HERE"}}
c.GenerateAssignment.preprocessors = [
    IncludeHeaderFooter, InstantiateTests, LockCells, ClearSolutionsKeepNames,
    ClearExerciseOutputs, CheckCellMetadata, ComputeChecksums, SaveCells, ClearHiddenTests,
    ClearMarkScheme, ComputeChecksums, CheckCellMetadata,
]
# The lessons graded on real PyTorch: autograde fails for them, with one line saying why,
# where the grading kernel cannot import torch (else their checkers would be skipped, not failed)
c.RequireTorch.assignments = {torch_assignments!r}
# The points come from GradeAnswers, in nbgrader's process, not from the student's kernel
# (autograd_lesson.course.hidden_tests); FlagForReview marks tampering "needs manual grade".
c.Autograde.autograde_preprocessors = [
    RequireTorch, Execute, GradeAnswers, IgnorePattern, ClearMetadataPreprocessor, LimitOutput,
    SaveAutoGrades, FlagForReview, AssignLatePenalties, CheckCellMetadata,
]
c.ZipCollectApp.collector_plugin = LessonFileCollector
c.ExportApp.plugin_class = ExerciseCsvExport
c.GenerateFeedback.exporter_class = FeedbackExporter
c.GenerateFeedback.preprocessors = [GetGrades, OneMessagePerExercise, HideHiddenTests,
                                   CSSHTMLHeaderPreprocessor]
c.ExecutePreprocessor.timeout = 300
# A class's submissions graded at once on a busy hub start kernels slowly: nbclient's 60 s
# default failed a whole autograde run (seen in CI under load)
c.ExecutePreprocessor.startup_timeout = 180
'''

STUDENT_CONFIG = '''\
# nbgrader configuration for the students of {course_id!r} (written by `make course`): put it in
# each student's ~/.jupyter/nbgrader_config.py, or in /etc/jupyter/ on a Hub image.
c = get_config()  # noqa: F821
c.CourseDirectory.course_id = {course_id!r}
c.Exchange.root = {exchange!r}
'''


class ClearSolutionsKeepNames(ClearSolutions):
    """nbgrader's ClearSolutions, but ``name = <solution>`` becomes ``name = ...``."""

    def _replace_solution_region(self, cell, language):
        if "### BEGIN SOLUTION" not in cell.source:
            return False
        cell.source = strip_solutions(cell.source)
        return True


class ClearExerciseOutputs(ClearOutput):
    """Clear the outputs of the exercise cells only; the lesson's pictures stay."""

    def preprocess_cell(self, cell, resources, cell_index):
        if is_exercise_cell(cell):
            return super().preprocess_cell(cell, resources, cell_index)
        return cell, resources


def assignments(src):
    """[(assignment name, lesson notebook)]: the English lessons under their stems, the Korean
    ones as ``ko-<stem>``; the notebook inside each assignment has the assignment's name."""
    src = pathlib.Path(src)
    return [(p.stem, p) for p in sorted(src.glob("*.ipynb"))] + \
        [(f"{KOREAN}-{p.stem}", p) for p in sorted((src / KOREAN).glob("*.ipynb"))]


def write_course(src="notebooks", dst="build/course", course_id=COURSE_ID, exchange=None):
    root = pathlib.Path(dst).resolve()
    exchange = str(pathlib.Path(exchange).resolve()) if exchange else str(root / "exchange")
    torch_assignments = []
    listed = assignments(src)
    for name, path in listed:
        folder = root / "source" / name
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob("*.ipynb"):  # a course written before the names had ko-
            if old.name != f"{name}.ipynb":
                old.unlink()
        shutil.copy2(path, folder / f"{name}.ipynb")
        if needs_torch(nbformat.read(path, as_version=4)):
            torch_assignments.append(name)
    (root / "nbgrader_config.py").write_text(CONFIG.format(
        root=str(root), course_id=course_id, exchange=exchange,
        torch_assignments=torch_assignments))
    (root / "student_nbgrader_config.py").write_text(
        STUDENT_CONFIG.format(course_id=course_id, exchange=exchange))
    korean = sum(name.startswith(f"{KOREAN}-") for name, _ in listed)
    print(f"wrote {root}/nbgrader_config.py (course {course_id!r}, exchange {exchange}), "
          f"student_nbgrader_config.py and source/<name>/<name>.ipynb for "
          f"{len(listed) - korean} lessons" +
          (f" and {korean} Korean ones (ko-<stem>)" if korean else ""))
    return root


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("src", nargs="?", default="notebooks")
    parser.add_argument("dst", nargs="?", default="build/course")
    parser.add_argument("--course-id", default=COURSE_ID)
    parser.add_argument("--exchange", help="the exchange folder (default: <dst>/exchange)")
    args = parser.parse_args(argv)
    return write_course(args.src, args.dst, args.course_id, args.exchange)


if __name__ == "__main__":
    main()
