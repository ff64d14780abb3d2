"""``nbgrader export`` for the lessons: grades.csv with one column per exercise and a late flag.

One row per student and assignment, as nbgrader's own export, with the roster's names (``nbgrader
db student import``), then:

- ``timestamp``, ``duedate`` and ``late`` (``late`` when the submission came after the due
  date, ``""`` otherwise; ``seconds_late`` says by how much);
- ``status``: ``graded``, ``needs grading`` (a cell nbgrader flagged for an instructor: its
  score is not known until someone grades it in the formgrader) or ``not submitted``;
- ``score`` and ``max_score`` (``score`` is empty while the submission needs grading, never a
  plain 0);
- one column per exercise, titled ``<lesson> · <the exercise's title>`` (``01 · what
  loss1.backward() frees``; Korean titles for the ``ko-`` assignments), holding its points, or
  ``needs grading``.
"""
import csv

from ..i18n.korean_texts import EXERCISES_KO
from ..lesson.catalogue import _ALL as CATALOGUE

try:  # only with the `classroom` extra (nbgrader)
    from nbgrader.api import MissingEntry
    from nbgrader.plugins import ExportPlugin
except ImportError:  # pragma: no cover
    ExportPlugin = object

NEEDS_GRADING = "needs grading"
EXERCISES = {e.id: e for e in CATALOGUE}
ORDER = {e.id: n for n, e in enumerate(CATALOGUE)}


def exercise_id(grade_id):
    """The catalogue id of a checker cell's grade id (``01-freed-check`` -> ``01-freed``)."""
    return grade_id.removesuffix("-check")


def exercise_title(grade_id, assignment=""):
    """The exercise's title from the catalogue (Korean for a ``ko-`` assignment), else its id."""
    key = exercise_id(grade_id)
    if key not in EXERCISES:
        return grade_id
    if assignment.startswith("ko-") and key in EXERCISES_KO:
        return EXERCISES_KO[key][0]
    return EXERCISES[key].title


def lesson_label(assignment):
    """``01`` for ``01_multiple_losses``, ``ko-01`` for ``ko-01_multiple_losses``."""
    return assignment.split("_", 1)[0]


def column(assignment, grade_id):
    return f"{lesson_label(assignment)} · {exercise_title(grade_id, assignment)}"


def cell_score(grade):
    if grade.needs_manual_grade and grade.manual_score is None:
        return NEEDS_GRADING
    return f"{grade.score:g}"


class ExerciseCsvExport(ExportPlugin):
    """grades.csv (or ``--to``), one row per student and assignment, a column per exercise."""

    def export(self, gradebook):
        dest = self.to or "grades.csv"
        wanted = {str(a) for a in self.assignment}
        students = {str(s) for s in self.student}
        chosen = [a for a in gradebook.assignments if not wanted or a.name in wanted]
        exercises = [(a.name, g.name) for a in chosen for nb in a.notebooks
                     for g in sorted(nb.grade_cells,
                                     key=lambda g: (ORDER.get(exercise_id(g.name), 1e9), g.name))]
        head = ["assignment", "duedate", "timestamp", "late", "seconds_late", "student_id",
                "last_name", "first_name", "email", "status", "score", "max_score"]
        self.log.info("Exporting grades, one column per exercise, to %s", dest)
        with open(dest, "w", newline="", encoding="utf-8") as fh:
            out = csv.writer(fh)
            out.writerow(head + [column(a, g) for a, g in exercises])
            for assignment in chosen:
                for student in gradebook.students:
                    if not students or student.id in students:
                        out.writerow(self._row(gradebook, assignment, student, exercises))

    def _row(self, gradebook, assignment, student, exercises):
        base = [assignment.name, assignment.duedate or "", "", "", "", student.id,
                student.last_name or "", student.first_name or "", student.email or ""]
        try:
            submission = gradebook.find_submission(assignment.name, student.id)
        except MissingEntry:
            return base + ["not submitted", "0", f"{assignment.max_score:g}"] + [""] * len(exercises)
        grades = {g.name: g for nb in submission.notebooks for g in nb.grades}
        late = submission.total_seconds_late or 0
        base[2:5] = [submission.timestamp or "", "late" if late > 0 else "", f"{late:.0f}"]
        flagged = any(cell_score(g) == NEEDS_GRADING for g in grades.values())
        score = "" if flagged else f"{max(0.0, submission.score - submission.late_submission_penalty):g}"
        return base + [NEEDS_GRADING if flagged else "graded", score, f"{assignment.max_score:g}"] + \
            [cell_score(grades[g]) if a == assignment.name and g in grades else ""
             for a, g in exercises]
