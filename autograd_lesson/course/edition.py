"""The student edition (``make student-edition``): the repository without the answer key::

    python -m autograd_lesson.course.edition build/student-edition

This repository's ``notebooks/`` hold every solution, so a class that clones it has the key.
The edition is a git repository (one commit) with the package, the Makefile, the READMEs and
the figures, and in ``notebooks/`` (and ``notebooks/ko/``) the student copies of ``make student``
in place of the lessons: no solutions, and the exercise cells without outputs. It leaves out
the tests, the benchmarks and notebooks/INSTRUCTORS.md. ``make lab`` works in it as here; give
students this edition (push it to a repository of its own, or hand out the folder).
"""
import pathlib
import shutil
import subprocess
import sys

import nbformat

from .student import student_notebook

# what a student's checkout has besides the lessons (paths from the repository's root)
KEPT = (".ci", ".gitignore", "Makefile", "README.md", "README.ko.md", "apt.txt", "autograd_lesson",
        "environment.yml", "figures", "lab-settings", "postBuild", "pyproject.toml")
LEFT_OUT = ("INSTRUCTORS.md", "conftest.py")  # in notebooks/: for instructors and tests
SOLUTION = "### BEGIN SOLUTION"


def _tracked(repo):
    """The repository's files under version control (all files where git is not there)."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=repo, capture_output=True,
                                check=True).stdout.decode().split("\0")
        return [pathlib.Path(p) for p in listed if p and (repo / p).is_file()]
    except (OSError, subprocess.CalledProcessError):
        return [p.relative_to(repo) for p in repo.rglob("*") if p.is_file()
                and not {".git", ".venv", "build", "__pycache__"} & set(p.parts)]


def write_edition(repo, out):
    repo, out = pathlib.Path(repo).resolve(), pathlib.Path(out)
    if out.exists():
        shutil.rmtree(out)
    for path in _tracked(repo):
        first = path.parts[0]
        target = out / path
        if first == "notebooks":
            if path.name in LEFT_OUT:
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            if path.suffix == ".ipynb":
                nbformat.write(student_notebook(nbformat.read(repo / path, as_version=4)), target)
            else:
                shutil.copy2(repo / path, target)
        elif first in KEPT:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(repo / path, target)
    leaks = [p for p in out.rglob("*.ipynb") if SOLUTION in p.read_text(encoding="utf-8")]
    if leaks:  # a solution outside a marked block would be a bug in strip_solutions
        raise SystemExit(f"solutions left in {', '.join(map(str, leaks))}")
    _commit(out)
    return out


def _commit(out):
    git = ["git", "-c", "user.name=autograd-lesson", "-c", "user.email=course@localhost",
           "-c", "init.defaultBranch=main"]
    try:
        subprocess.run(git + ["init", "-q"], cwd=out, check=True)
        subprocess.run(git + ["add", "-A"], cwd=out, check=True)
        subprocess.run(git + ["commit", "-q", "-m", "Student edition of autograd-lesson"],
                       cwd=out, check=True)
    except (OSError, subprocess.CalledProcessError) as error:
        print(f"(no git repository made: {error}); the folder is the edition", file=sys.stderr)


def main(argv=None):
    args = list(sys.argv[1:] if argv is None else argv)
    out = write_edition(pathlib.Path(__file__).resolve().parents[2],
                        args[0] if args else "build/student-edition")
    lessons = len(list(out.glob("notebooks/*.ipynb")))
    print(f"wrote the student edition to {out}: {lessons} lessons (and notebooks/ko) without "
          f"solutions, a git repository; students run `make lab` in it")


if __name__ == "__main__":
    main()
