"""The architecture picture and README's "Read the engine" are the code as it is."""
import pathlib
import re

from autograd_lesson.course import architecture

ROOT = pathlib.Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
CORE = ["_tensor.py", "_node.py", "ops/_op.py", "_engine.py"]

# What the core still imports from the PyTorch surface (issue 24: "the core does not import the
# surface"): this set may only shrink. Tensor inherits TensorBase, as PyTorch's Tensor inherits
# the C++ TensorBase (the checks behind the autograd fields' setters and a stale view's fresh
# grad_fn are TensorBase methods, so the core reaches them without importing them); Tensor.backward()
# calls autograd.backward; dtypes are the surface's objects (an error message names one).
ALLOWED = {
    ("_engine.py", "_dtype"), ("_tensor.py", "_dtype"), ("_tensor.py", "_tensor_base"),
    ("_tensor.py", "autograd"),
}


def _section():
    return README.split("## Read the engine", 1)[1].split("\n## ", 1)[0]


def test_every_module_has_a_layer():
    for relative in architecture.modules():
        assert architecture.layer_of(relative)


def test_the_picture_is_up_to_date():
    dot = (ROOT / "figures" / "architecture.dot").read_text(encoding="utf-8")
    assert dot == architecture.dot_source(), \
        "run: python -m autograd_lesson.course.architecture"
    assert (ROOT / "figures" / "architecture.svg").exists()
    assert "figures/architecture.svg" in _section()


def test_read_the_engine_lists_the_core_in_reading_order_with_its_line_counts():
    rows = re.findall(r"^\| `autograd_lesson/([^`]+)` \| (\d[\d,]*) \|", _section(), re.M)
    assert [path for path, _ in rows] == CORE
    for path, lines in rows:
        actual = len((architecture.PACKAGE / path).read_text(encoding="utf-8").splitlines())
        assert int(lines.replace(",", "")) == actual, f"README says {lines} lines for {path}"
    for path in CORE:
        assert architecture.layer_of(path) == "core"


def test_the_core_imports_no_more_of_the_surface_than_it_does_today():
    names = architecture.modules()
    core = {names[p]: p for p in CORE}
    found = set()
    for dotted, relative in core.items():
        for target in architecture.imports(relative, names):
            layer = architecture.layer_of(next(r for r, d in names.items() if d == target))
            if layer not in architecture.CORE_MAY_IMPORT:
                found.add((relative, target.removeprefix("autograd_lesson.")))
    assert found <= ALLOWED, sorted(found - ALLOWED)
