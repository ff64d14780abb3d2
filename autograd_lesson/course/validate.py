"""Check a notebook before handing it in, as ``nbgrader validate`` does (``make validate``)::

    python -m autograd_lesson.course.validate build/student/01_multiple_losses.ipynb

Runs a copy of the notebook top to bottom in a fresh kernel, under grading (a checker that is
not satisfied raises, as under nbgrader), and prints one line per exercise: ``✓`` and its title,
or ``✗``, its title and what its checker said. The notebook itself is not changed, so this
needs neither nbgrader nor a saved run. Exit status 1 if an exercise is not right yet.
"""
import os
import pathlib
import sys

import nbformat

from .export import exercise_title


def _message(cell):
    for output in cell.outputs:
        if output.output_type == "error":
            return f"{output.ename}: {output.evalue}".strip().splitlines()[-1]
    return ""


def validate(path, timeout=600):
    """[(title, passed, message)] for each checker cell of the notebook at ``path``."""
    from jupyter_client import KernelManager
    from nbclient import NotebookClient
    path = pathlib.Path(path)
    nb = nbformat.read(path, as_version=4)
    env = dict(os.environ, NBGRADER_EXECUTION="validate")
    # local sockets, as `make lab`'s kernels: no "running over TCP without encryption" warning
    km = KernelManager(kernel_name="python3", transport="ipc")
    client = NotebookClient(nb, km=km, timeout=timeout, allow_errors=True,
                            resources={"metadata": {"path": str(path.parent.resolve())}})
    client.execute(env=env)  # the kernel, not this process, runs under grading
    edition = "ko-" if path.parent.name == "ko" else ""
    results = []
    for cell in nb.cells:
        marks = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and marks.get("grade") and not marks.get("solution"):
            message = _message(cell)
            results.append((exercise_title(marks["grade_id"], edition), not message, message))
    return results


def main(argv=None):
    paths = list(sys.argv[1:] if argv is None else argv)
    if not paths:
        print("usage: python -m autograd_lesson.course.validate NOTEBOOK.ipynb ...")
        return 2
    failed = 0
    for path in paths:
        results = validate(path)
        right = sum(passed for _, passed, _ in results)
        print(f"{path}: {right} of {len(results)} exercises right")
        for title, passed, message in results:
            print(f"  {'✓' if passed else '✗'} {title}" + ("" if passed else f": {message}"))
        failed += right < len(results)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
