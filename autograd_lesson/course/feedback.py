"""``nbgrader generate_feedback`` for the lessons: each exercise by its title, each message once.

nbgrader's feedback page lists every checker cell as "Test cell" and heads it "Grade cell:
<grade id>"; a checker that is not satisfied prints its feedback and then raises it, so the
page showed each message twice, around a traceback through the instructor's files (their
absolute paths). Here:

- ``OneMessagePerExercise`` (a preprocessor) keeps of an exercise cell's error only its last
  line (``AssertionError: ...``), and drops it where the cell already printed the same message;
  no traceback, so no paths;
- ``HideHiddenTests`` (a preprocessor) takes the hidden tests out of the checker cells again:
  they are the answer key (``assert prediction == {...}``), which nbgrader's feedback page would
  otherwise print for every student, right or wrong;
- ``FeedbackExporter`` (the HTML exporter) writes the exercise's title (``course.export``) where
  nbgrader wrote "Test cell" and "Grade cell: <id>".
"""
import html
import re

from nbconvert.exporters import HTMLExporter

try:  # only with the `classroom` extra (nbgrader)
    from nbgrader.preprocessors import NbGraderPreprocessor
except ImportError:  # pragma: no cover
    NbGraderPreprocessor = object

from .export import exercise_title
from .hidden_tests import BEGIN, END

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _is_checker(cell):
    marks = cell.metadata.get("nbgrader", {})
    return cell.cell_type == "code" and marks.get("grade") and not marks.get("solution")


class OneMessagePerExercise(NbGraderPreprocessor):

    def preprocess_cell(self, cell, resources, cell_index):
        if not _is_checker(cell):
            return cell, resources
        printed = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
        kept = []
        for output in cell.outputs:
            if output.output_type == "error":
                message = ANSI.sub("", str(output.get("evalue", ""))).strip()
                if message and message in printed:
                    continue  # the checker printed it already
                output.traceback = [f"{output.ename}: {message}" if message else output.ename]
            kept.append(output)
        cell.outputs = kept
        return cell, resources


class HideHiddenTests(NbGraderPreprocessor):
    """The checker cells as the student's copy has them: the hidden tests replaced by one line."""

    def preprocess_cell(self, cell, resources, cell_index):
        if _is_checker(cell) and BEGIN in cell.source:
            kept, hiding = [], False
            for line in cell.source.split("\n"):
                if line.strip() == BEGIN:
                    hiding = True
                    kept.append("# (hidden tests: the grader's key, not shown)")
                elif line.strip() == END:
                    hiding = False
                elif not hiding:
                    kept.append(line)
            cell.source = "\n".join(kept)
        return cell, resources


class FeedbackExporter(HTMLExporter):
    """nbgrader's feedback template, with each exercise named by its title."""

    def from_notebook_node(self, nb, resources=None, **kw):
        body, resources = super().from_notebook_node(nb, resources, **kw)
        assignment = (resources or {}).get("nbgrader", {}).get("assignment", "")
        for cell in nb.cells:
            if not _is_checker(cell):
                continue
            grade_id = cell.metadata["nbgrader"]["grade_id"]
            title = html.escape(exercise_title(grade_id, assignment))
            anchor = re.escape(html.escape(grade_id))
            body = re.sub(rf'(<a href="#{anchor}">)Test cell(?=</a>)',
                          lambda m: m.group(1) + title, body)
            body = re.sub(rf'(<span class="nbgrader-label">)Grade cell: <code>{anchor}</code>',
                          lambda m: m.group(1) + title, body)
        return body, resources
