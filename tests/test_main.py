"""``python -m autograd_lesson audit FILE.py:FUNCTION`` (autograd_lesson/__main__.py): the report
lesson.audit gives, exit 1 on findings, 0 when clean, 2 with one line on bad input."""
import subprocess
import sys
import textwrap

import pytest

from autograd_lesson import lesson
from autograd_lesson.__main__ import main

TWO_HEADS = """
import {lib} as torch
from {lib} import nn

def make_inputs():
    torch.manual_seed(0)
    trunk, cls, reg = nn.Sequential(nn.Linear(4, 8), nn.ReLU()), nn.Linear(8, 3), nn.Linear(8, 1)
    optimizer = torch.optim.SGD([*trunk.parameters(), *cls.parameters(), *reg.parameters()], lr=0.1)
    x, y, t = torch.randn(16, 4), torch.randint(0, 3, (16,)), torch.randn(16, 1)
    return trunk, cls, reg, optimizer, x, y, t

def train_step(trunk, cls, reg, optimizer, x, y, t):
    optimizer.zero_grad()
    h = trunk(x)
    loss_cls = nn.functional.cross_entropy(cls(h), y)
    loss_reg = nn.functional.mse_loss(reg(h), t)
    loss_cls.backward(retain_graph=True)
    loss_reg.backward(retain_graph=True)
    optimizer.step()

def summed_step(trunk, cls, reg, optimizer, x, y, t):
    optimizer.zero_grad()
    h = trunk(x)
    (nn.functional.cross_entropy(cls(h), y) + nn.functional.mse_loss(reg(h), t)).backward()
    optimizer.step()

if __name__ == "__main__":
    raise SystemExit("the __main__ block ran")
"""


@pytest.fixture
def write(tmp_path, monkeypatch):
    """write(name, source) -> its path; the modules the CLI imports are forgotten afterwards."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    before = set(sys.modules)

    def write(name, text):
        (tmp_path / name).write_text(textwrap.dedent(text))
        return str(tmp_path / name)
    yield write
    for name in set(sys.modules) - before:
        if getattr(sys.modules[name], "__file__", "") and str(tmp_path) in sys.modules[name].__file__:
            del sys.modules[name]


def cli(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("lib", ["autograd_lesson", pytest.param("torch", marks=pytest.mark.parity)])
def test_findings_exit_1_with_the_report_audit_gives(lib, request, write, capsys):
    if lib == "torch":
        request.getfixturevalue("torch")
    path = write("train.py", TWO_HEADS.format(lib=lib))
    status, out, err = cli(capsys, "audit", f"{path}:train_step")
    assert err == "", err
    module = sys.modules["train"]
    report = lesson.audit(module.train_step, *module.make_inputs())
    assert {f.kind for f in report.findings} == {"unused-retain", "double-traversal"}
    assert (status, out, err) == (1, report.text + "\n", "")
    assert "train.py:17 `loss_cls.backward(retain_graph=True)`" in out  # the file's own lines
    status, out, err = cli(capsys, "audit", f"{path}:summed_step")
    assert (status, err) == (0, "") and out == "audit of summed_step: 1 backward call, no findings\n"


def test_a_real_process_exits_1_and_2(torch, write):
    path = write("train.py", TWO_HEADS.format(lib="torch"))
    run = [sys.executable, "-m", "autograd_lesson", "audit"]
    found = subprocess.run([*run, f"{path}:train_step"], capture_output=True, text=True, timeout=300)
    assert found.returncode == 1, found.stderr
    assert found.stdout.startswith("audit of train_step: 2 backward calls, 2 findings\n")
    bad = subprocess.run([*run, f"{path}:nope"], capture_output=True, text=True, timeout=300)
    assert (bad.returncode, bad.stdout) == (2, "")
    assert bad.stderr == f"audit: {path} has no function nope (it defines: make_inputs, summed_step, train_step)\n"


def test_without_make_inputs_the_step_is_called_with_no_arguments(write, capsys):
    path = write("loop.py", """
        import autograd_lesson as torch
        w = torch.ones(3, requires_grad=True)
        total = 0

        def train_step():
            global total
            loss = (w * 2).sum()
            total = total + loss       # keeps every step's graph
            loss.backward()
        """)
    status, out, _ = cli(capsys, "audit", f"{path}:train_step")
    assert status == 1 and "graph-grows" in out


def test_make_inputs_dict_gives_keywords_and_inputs_names_another_function(write, capsys):
    path = write("kw.py", """
        import autograd_lesson as torch

        def make_inputs():
            return {"w": torch.ones(2, requires_grad=True), "scale": 3.0}

        def other_inputs():
            return torch.ones(2, requires_grad=True)

        def train_step(w, scale=1.0):
            (w * scale).sum().backward()
        """)
    assert cli(capsys, "audit", f"{path}:train_step")[:2] == (
        0, "audit of train_step: 1 backward call, no findings\n")
    assert cli(capsys, "audit", f"{path}:train_step", "--inputs", "other_inputs")[0] == 0
    status, _, err = cli(capsys, "audit", f"{path}:train_step", "--inputs", "missing")
    assert (status, err) == (2, f"audit: {path} has no function missing (it defines: make_inputs, "
                                "other_inputs, train_step)\n")


def test_the_report_in_korean(write, capsys):
    path = write("ko.py", """
        import autograd_lesson as torch

        def train_step():
            torch.ones(2, requires_grad=True).exp().sum().backward(retain_graph=True)
        """)
    status, out, _ = cli(capsys, "audit", f"{path}:train_step", "--language", "ko")
    lesson.set_language("en")
    assert status == 1 and "unused-retain" in out and "retain_graph=True" in out
    assert any("\uac00" <= ch <= "\ud7a3" for ch in out)  # Hangul


BAD = {
    "no file": (None, "{dir}/absent.py:step", "audit: {dir}/absent.py: no such file"),
    "no colon": (None, "{dir}/absent.py", "audit: name the step as FILE.py:FUNCTION, e.g. "
                 "train.py:train_step (got '{dir}/absent.py')"),
    "not python": ("notes.txt", "{path}:step", "audit: {path} is not a Python file (.py)"),
    "notebook": ("lesson.ipynb", "{path}:step", "audit: {path} is not a Python file (.py) "
                 "(a notebook: jupyter nbconvert --to script it first)"),
    "syntax": ("broken.py", "{path}:step", "audit: {path} is not valid Python (line 1): "
               "invalid syntax"),
    "import raises": ("imports.py", "{path}:step", "audit: importing {path} raised "
                      "ModuleNotFoundError: No module named 'no_such_module_here'"),
    "no function": ("empty.py", "{path}:step", "audit: {path} has no function step"),
    "not callable": ("value.py", "{path}:step", "audit: {path}:step is a int, not a function"),
    "make_inputs raises": ("raises.py", "{path}:step", "audit: make_inputs() in {path} raised "
                           "ValueError: no data here"),
}
SOURCES = {"notes.txt": "def step(): pass\n", "lesson.ipynb": "{}", "broken.py": "def step(:\n",
           "imports.py": "import no_such_module_here\n", "empty.py": "x = 1\n",
           "value.py": "step = 3\n",
           "raises.py": "def make_inputs():\n    raise ValueError('no data here')\n"
                        "def step(): pass\n"}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_input_exits_2_with_one_line(case, write, tmp_path, capsys):
    name, target, line = BAD[case]
    path = write(name, SOURCES[name]) if name else ""
    fill = dict(dir=tmp_path, path=path)
    status, out, err = cli(capsys, "audit", target.format(**fill))
    assert (status, out, err) == (2, "", line.format(**fill) + "\n")


def test_a_step_that_raises_exits_2_with_the_audits_line(write, capsys):
    path = write("oops.py", "def step():\n    raise KeyError('batch')\n")
    status, out, err = cli(capsys, "audit", f"{path}:step")
    assert (status, out) == (2, "")
    assert err == "✗ step raised KeyError: 'batch' (make it run, then audit it again)\n"


def test_help_explains_the_command_and_its_exit_status(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    out = capsys.readouterr().out
    assert exit_.value.code == 0
    for words in ("audit train.py:train_step", "make_inputs()", "0 no findings", "1 findings",
                  "2 bad input", "unused-retain"):
        assert words in out
    assert cli(capsys, )[0] == 2  # no command: the help, exit 2
    status, _, err = cli(capsys, "audit")
    assert status == 2 and err.count("\n") == 1 and "FILE.py:FUNCTION" in err
