"""Student copies of the lessons (``make student``)::

    python -m autograd_lesson.course.student notebooks build/student

Solutions in the lessons are marked as nbgrader marks them::

    ### BEGIN SOLUTION
    prediction = {"MulBackward0.other"}
    ### END SOLUTION

In the copy each marked block becomes ``<name> = ...  # YOUR ANSWER HERE`` (for an
assignment at the top level) or ``...  # YOUR ANSWER HERE`` (for a function's body), and the
outputs of the exercise cells (answers, checkers, the progress cell) are cleared, so the checkers print their "not done yet" message
until the learner answers. Every other output (pictures, ledgers) stays.

A student's work is never overwritten: an existing copy is regenerated only if its cells are
still exactly as generated (the lesson changed, the student did not). ``--force`` regenerates
changed copies too, after saving each one as ``<name>.ipynb.bak``; names after the folders
limit the run to those lessons (``--force 03_shared_backbone`` resets one notebook).

The Korean edition (``notebooks/ko/``, if there) gets its copies in ``ko/`` of the same folder
(``build/student/ko/``, which ``make lab-ko`` opens).
"""
import hashlib
import json
import pathlib
import re
import shutil
import sys

import nbformat

from ..lesson.catalogue import is_exercise_cell  # noqa: F401 (classroom takes it from here too)

BLOCK = re.compile(r"^([ \t]*)### BEGIN SOLUTION\n(.*?)^[ \t]*### END SOLUTION[ \t]*\n?",
                   re.MULTILINE | re.DOTALL)
HIDDEN = re.compile(r"\n?^[ \t]*### BEGIN HIDDEN TESTS\n.*?^[ \t]*### END HIDDEN TESTS[ \t]*$\n?",
                    re.MULTILINE | re.DOTALL)  # the key (course.hidden_tests): never in a copy
STAMP = "autograd_lesson_student"  # notebook metadata: the hash of the generated cells


def _placeholder(match):
    indent, body = match.group(1), match.group(2)
    assigned = re.match(r"\s*([A-Za-z_][A-Za-z_0-9]*)\s*=", body)
    if assigned and not indent:  # inside a function the learner writes the whole body
        return f"{indent}{assigned.group(1)} = ...  # YOUR ANSWER HERE\n"
    return f"{indent}...  # YOUR ANSWER HERE\n"


def strip_solutions(source):
    return BLOCK.sub(_placeholder, source)


def student_notebook(nb):
    for cell in nb.cells:
        if "### BEGIN SOLUTION" in cell.source:
            cell.source = strip_solutions(cell.source)
        cell.source = HIDDEN.sub("", cell.source)
        if is_exercise_cell(cell):
            cell.outputs = []
            cell.execution_count = None
    nb.metadata[STAMP] = _fingerprint(nb)
    return nb


def _fingerprint(nb):
    sources = [(c.cell_type, c.source) for c in nb.cells]
    return hashlib.sha256(json.dumps(sources).encode()).hexdigest()[:16]


def _untouched(path):
    """True if the copy's cells are still as generated (so regenerating loses nothing)."""
    try:
        nb = nbformat.read(path, as_version=4)
    except Exception:  # noqa: BLE001  (unreadable: treat as the student's, keep it)
        return False
    return nb.metadata.get(STAMP) == _fingerprint(nb)


KOREAN = "ko"  # the Korean edition's folder, in the lessons and in the copies


def main(argv=None):
    args = list(sys.argv[1:] if argv is None else argv)
    force = "--force" in args
    args = [a for a in args if a != "--force"]
    src = pathlib.Path(args[0] if args else "notebooks")
    out = pathlib.Path(args[1] if len(args) > 1 else "build/student")
    only = {a.removesuffix(".ipynb") for a in args[2:]}
    write_copies(src, out, only, force)
    if (src / KOREAN).is_dir() and any((src / KOREAN).glob("*.ipynb")):
        write_copies(src / KOREAN, out / KOREAN, only, force)


def write_copies(src, out, only=(), force=False):
    """Student copies of every lesson in ``src`` (or of the stems in ``only``) in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    for path in sorted(src.glob("*.ipynb")):
        if only and path.stem not in only:
            continue
        target = out / path.name
        nb = student_notebook(nbformat.read(path, as_version=4))
        if target.exists():
            if nbformat.read(target, as_version=4).metadata.get(STAMP) == nb.metadata[STAMP] \
                    and _untouched(target):
                print(f"up to date {target}")
                continue
            if not _untouched(target):
                if not force:
                    print(f"kept {target} (it has your work; "
                          f"'make student FORCE=1 LESSON={path.stem}' resets it, with a backup)")
                    continue
                shutil.copy2(target, target.with_name(target.name + ".bak"))
                print(f"saved your work as {target.name}.bak")
        nbformat.write(nb, target)
        print(f"wrote {target}")


if __name__ == "__main__":
    main()
