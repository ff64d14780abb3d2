"""The lesson helpers use each other, and the rest of the package, through public names only:
no module of ``autograd_lesson/lesson/`` imports a name that starts with an underscore, or
from a module that does (``from .showing import _roots``, ``from .._tensor import Tensor``).
A helper two modules need is public in its home module, and there is one copy of it."""
import ast
import pathlib

import pytest

from autograd_lesson import lesson

LESSON = pathlib.Path(lesson.__file__).parent


def _private(name):
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


# Lesson 00b is about the engine module itself: it shows its code and plugs the learner's
# functions into it; its checker puts the package's random generator back as it found it.
CORE_MODULES = {"_engine", "_random"}


def private_imports(path):
    """``file:line: statement`` for every import in ``path`` that names something private
    (besides the package's own engine modules, :data:`CORE_MODULES`)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            parts = (node.module or "").split(".") + [a.name for a in node.names]
        elif isinstance(node, ast.Import):
            parts = [part for a in node.names for part in a.name.split(".")]
        else:
            continue
        if any(_private(part) and part not in CORE_MODULES for part in parts):
            found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
    return found


@pytest.mark.parametrize("path", sorted(LESSON.glob("*.py")), ids=lambda p: p.name)
def test_no_lesson_module_imports_a_private_name(path):
    assert private_imports(path) == []


def test_the_check_finds_each_kind_of_private_import(tmp_path):
    source = ("from __future__ import annotations\n"
              "import gc\n"
              "from .showing import _roots, verdict\n"
              "from ..autograd import graph as _graph\n"
              "def f():\n"
              "    from .._tensor import Tensor\n"
              "    import autograd_lesson._node\n")
    path = tmp_path / "example.py"
    path.write_text(source)
    assert private_imports(path) == [
        "example.py:3: from .showing import _roots, verdict",
        "example.py:6: from .._tensor import Tensor",
        "example.py:7: import autograd_lesson._node"]
