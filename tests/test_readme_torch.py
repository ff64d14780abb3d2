"""README's "On your own PyTorch code": its example, its picture and its caption, asked of torch.

The example block is run as written and must print the text block under it; the picture is
``figures/torch_two_heads`` (``autograd_lesson.course.figures.TORCH_SCENARIOS``) and must be up to date.
"""
import contextlib
import io
import pathlib
import re
import runpy
import subprocess
import sys

import pytest

from autograd_lesson import lesson
from autograd_lesson.course import figures

pytestmark = pytest.mark.parity
ROOT = pathlib.Path(__file__).resolve().parent.parent
SECTION = ROOT.joinpath("README.md").read_text(encoding="utf-8").split(
    "## On your own PyTorch code", 1)[1].split("\n## ", 1)[0]


def blocks(kind):
    return re.findall(rf"```{kind}\n(.*?)```", SECTION, re.DOTALL)


def run_example(tmp_path):
    """Run the example as the reader would, saved as ``train.py`` (the audit names its lines)."""
    script = tmp_path / "train.py"
    script.write_text(blocks("python")[1], encoding="utf-8")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        namespace = runpy.run_path(str(script))
    return namespace, out.getvalue()


def test_the_audit_example_prints_what_the_readme_shows(torch, tmp_path):
    _, printed = run_example(tmp_path)
    assert printed == blocks("text")[0]


def test_the_summed_backward_has_no_findings(torch, tmp_path):
    ns, _ = run_example(tmp_path)
    trunk, cls, reg, optimizer = ns["trunk"], ns["cls"], ns["reg"], ns["optimizer"]
    F = torch.nn.functional

    def train_step(x, y, t):
        optimizer.zero_grad()
        h = trunk(x)
        (F.cross_entropy(cls(h), y) + F.mse_loss(reg(h), t)).backward()
        optimizer.step()
    assert lesson.audit(train_step, ns["x"], ns["y"], ns["t"]).findings == []


@pytest.mark.parametrize("name", sorted(figures.TORCH_SCENARIOS))
def test_committed_torch_figure_is_up_to_date(torch, name):
    committed = ROOT / "figures" / f"{name}.dot"
    assert figures.TORCH_SCENARIOS[name]().source == committed.read_text(encoding="utf-8"), \
        f"figures/{name}.dot is out of date: run `make figures` and commit the result"
    for suffix in (".svg", ".png"):
        assert (ROOT / "figures" / f"{name}{suffix}").stat().st_size > 1000


def test_the_caption_cls_head_and_trunk_retained_reg_head_alive(torch):
    text = figures.torch_two_heads().text
    retained = set(re.findall(r"retained: #(\d+) (\w+)\.", text))
    assert retained == {("1", "AddmmBackward0"), ("2", "ReluBackward0"), ("4", "AddmmBackward0"),
                        ("5", "LogSoftmaxBackward0"), ("6", "NllLossBackward0")}
    assert "unchanged: 4 buffers" in text and "freed" not in text  # the regression head's


def test_nothing_imports_torch_until_a_torch_tensor_is_passed():
    code = ("import sys, autograd_lesson, autograd_lesson.lesson, autograd_lesson.viz, "
            "autograd_lesson.course.figures; print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=120)
    assert out.stdout.strip() == "False", out.stderr


def test_on_real_torch_bad_input_gets_one_line(torch, capsys):
    with pytest.raises(TypeError, match="takes a function of torch"):
        lesson.on_real_torch("not a function", "loss.backward()")

    def broken(torch):
        return torch.ones(2) @ torch.ones(3)
    lesson.on_real_torch(broken, "pass")
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and out.startswith("broken(torch) raised RuntimeError: ")
    lesson.on_real_torch(lambda torch: [torch.ones(1)], "pass")
    assert "must return its tensors by name" in capsys.readouterr().out


def test_real_torch_without_torch_prints_one_line(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch raises ImportError
    assert lesson.real_torch() is None
    assert lesson.on_real_torch(lambda torch: {}, "pass") is None
    out = capsys.readouterr().out.splitlines()
    assert out == [lesson.on_torch.INSTALL + "."] * 2
    # the CPU build of the torch the package mirrors, into the kernel's own environment
    assert "%pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu" in out[0]
    assert "restart the kernel" in out[0]
