"""The architecture picture and README's "Read the engine" are the code as it is."""
import pathlib
import re

from autograd_lesson.course import architecture

ROOT = pathlib.Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
CORE = ["_tensor.py", "_node.py", "ops/_op.py", "_engine.py"]

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


def test_the_core_its_extensions_and_helpers_import_nothing_of_the_surface():
    """Issue 24: the surface is a layer the core does not import. The surface's Tensor subclasses
    the core's TensorBase and registers itself (``_tensor.register_tensor_class``)."""
    names = architecture.modules()
    dotted_to_path = {d: r for r, d in names.items()}
    found = set()
    for relative in names:
        if architecture.layer_of(relative) not in ("core", "extensions", "helpers"):
            continue
        for target in architecture.imports(relative, names):
            if architecture.layer_of(dotted_to_path[target]) not in architecture.CORE_MAY_IMPORT:
                found.add((relative, target.removeprefix("autograd_lesson.")))
    assert not found, sorted(found)


def test_the_core_makes_the_registered_tensor_class():
    import autograd_lesson as torch
    from autograd_lesson import _tensor

    assert _tensor.Tensor is torch.Tensor and _tensor.make_tensor == torch.Tensor._make
    assert issubclass(torch.Tensor, _tensor.TensorBase) and torch.Tensor is not _tensor.TensorBase
    x = torch.ones(2, requires_grad=True)
    z = x * x
    saved = z.grad_fn._saved_self
    z.sum().backward()
    for made in (z, saved, x.grad, x.detach(), x.data, torch.Tensor([1.0])):
        assert type(made) is torch.Tensor
    assert type(torch.nn.Parameter(torch.ones(1)) * 1) is torch.Tensor
