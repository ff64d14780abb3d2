"""An nbgrader course from the lessons (``make course``)::

    python -m autograd_lesson.course.classroom notebooks build/course

Writes ``build/course/nbgrader_config.py`` and ``source/<stem>/<stem>.ipynb`` for every lesson,
and for every Korean lesson (``notebooks/ko/``) the assignment ``ko-<stem>`` (same notebook
name; its checkers speak Korean, the grading is the same).
The configuration makes nbgrader's release copy match ``make student``: each solution block
becomes ``<name> = ...  # YOUR ANSWER HERE`` (the variable name kept, so Run All reaches every
exercise; a function's body becomes ``...  # YOUR ANSWER HERE``) and only the exercise cells
lose their outputs (pictures and ledgers stay). Under
``nbgrader autograde`` the checkers raise ``AssertionError`` (see ``lesson.grading``), so points
come only from right answers.

Run nbgrader with the venv's ``bin`` first on PATH (it calls ``alembic`` by name)::

    cd build/course && PATH="$PWD/../../.venv/bin:$PATH" nbgrader generate_assignment 00_how_backward_works
"""
import pathlib
import shutil
import sys

try:  # only with the `classroom` extra (nbgrader); the course writer itself needs none of it
    from nbgrader.preprocessors import ClearOutput, ClearSolutions
except ImportError:  # pragma: no cover
    ClearOutput = ClearSolutions = object

from .student import is_exercise_cell, strip_solutions

CONFIG = '''\
# nbgrader configuration written by `make course` (autograd_lesson.course.classroom).
from nbgrader.preprocessors import (CheckCellMetadata, ClearHiddenTests, ClearMarkScheme,
                                    ComputeChecksums, IncludeHeaderFooter, InstantiateTests,
                                    LockCells, SaveCells)
from nbgrader.preprocessors import (AssignLatePenalties, Execute, IgnorePattern, LimitOutput,
                                    SaveAutoGrades)
from nbconvert.preprocessors import ClearMetadataPreprocessor
from autograd_lesson.course.classroom import ClearExerciseOutputs, ClearSolutionsKeepNames
from autograd_lesson.course.hidden_tests import FlagForReview, GradeAnswers

c = get_config()  # noqa: F821
c.CourseDirectory.root = {root!r}
c.ClearSolutions.code_stub = {{"python": "...  # YOUR ANSWER HERE"}}
c.GenerateAssignment.preprocessors = [
    IncludeHeaderFooter, InstantiateTests, LockCells, ClearSolutionsKeepNames,
    ClearExerciseOutputs, CheckCellMetadata, ComputeChecksums, SaveCells, ClearHiddenTests,
    ClearMarkScheme, ComputeChecksums, CheckCellMetadata,
]
# The points come from GradeAnswers, in nbgrader's process, not from the student's kernel
# (autograd_lesson.course.hidden_tests); FlagForReview marks tampering "needs manual grade".
c.Autograde.autograde_preprocessors = [
    Execute, GradeAnswers, IgnorePattern, ClearMetadataPreprocessor, LimitOutput,
    SaveAutoGrades, FlagForReview, AssignLatePenalties, CheckCellMetadata,
]
c.ExecutePreprocessor.timeout = 300
# A class's submissions graded at once on a busy hub start kernels slowly: nbclient's 60 s
# default failed a whole autograde run (seen in CI under load)
c.ExecutePreprocessor.startup_timeout = 180
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


def main(src="notebooks", dst="build/course"):
    root = pathlib.Path(dst).resolve()
    lessons = sorted(pathlib.Path(src).glob("*.ipynb"))
    korean = sorted((pathlib.Path(src) / "ko").glob("*.ipynb"))
    for path, assignment in [(p, p.stem) for p in lessons] + [(p, f"ko-{p.stem}") for p in korean]:
        folder = root / "source" / assignment
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, folder / path.name)
    (root / "nbgrader_config.py").write_text(CONFIG.format(root=str(root)))
    print(f"wrote {root}/nbgrader_config.py and source/<stem>/<stem>.ipynb for "
          f"{len(lessons)} lessons" + (f" (and source/ko-<stem>/ for {len(korean)} in Korean)"
                                       if korean else ""))


if __name__ == "__main__":
    main(*sys.argv[1:])
