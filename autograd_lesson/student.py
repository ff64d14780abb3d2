"""Student copies of the lessons: ``python -m autograd_lesson.student notebooks build/student``.

Solutions in the lessons are marked as nbgrader marks them::

    ### BEGIN SOLUTION
    prediction = {"MulBackward0.other"}
    ### END SOLUTION

In the copy each marked block becomes ``<name> = ...  # YOUR ANSWER HERE`` (for an
assignment) or ``...  # YOUR ANSWER HERE``, and outputs of exercise cells are cleared, so the
checkers print their "not done yet" message until the learner answers.
"""
import pathlib
import re
import sys

import nbformat

BLOCK = re.compile(r"^([ \t]*)### BEGIN SOLUTION\n(.*?)^[ \t]*### END SOLUTION[ \t]*\n?",
                   re.MULTILINE | re.DOTALL)


def _placeholder(match):
    indent, body = match.group(1), match.group(2)
    assigned = re.match(r"\s*([A-Za-z_][A-Za-z_0-9]*)\s*=", body)
    if assigned:
        return f"{indent}{assigned.group(1)} = ...  # YOUR ANSWER HERE\n"
    return f"{indent}...  # YOUR ANSWER HERE\n"


def strip_solutions(source):
    return BLOCK.sub(_placeholder, source)


def student_notebook(nb):
    for cell in nb.cells:
        if cell.cell_type == "code" and "### BEGIN SOLUTION" in cell.source:
            cell.source = strip_solutions(cell.source)
            cell.outputs = []
            cell.execution_count = None
        elif cell.cell_type == "markdown" and "### BEGIN SOLUTION" in cell.source:
            cell.source = strip_solutions(cell.source)
    return nb


def main(src="notebooks", dst="build/student"):
    out = pathlib.Path(dst)
    out.mkdir(parents=True, exist_ok=True)
    for path in sorted(pathlib.Path(src).glob("*.ipynb")):
        nb = student_notebook(nbformat.read(path, as_version=4))
        nbformat.write(nb, out / path.name)
        print(f"wrote {out / path.name}")


if __name__ == "__main__":
    main(*sys.argv[1:])
