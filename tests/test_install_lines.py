"""Every install line in README.md, README.ko.md and notebooks/INSTRUCTORS.md works as written:
`make` targets exist (`make -n`), `pip install` lines parse with pip's own parser, name this
project only from its folder (it is not on PyPI), extras that exist, torch 2.13.0 and PyTorch's
CPU index; `make torch`, the lesson's `%pip` line and .ci/install.py agree; `make lab`'s
terminal has .venv first on PATH."""
import os
import re
import shlex
import subprocess
import sys


import pytest

from autograd_lesson.lesson import without_torch
from test_environment import ROOT, load_installer

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

DOCS = [ROOT / "README.md", ROOT / "README.ko.md", ROOT / "notebooks" / "INSTRUCTORS.md"]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def commands(text):
    """Shell commands in inline code spans and in the lines of bash/console blocks."""
    found = re.findall(r"```(?:bash|console)\n(.*?)```", text, re.DOTALL)
    lines = [line.removeprefix("$ ") for block in found for line in block.splitlines()]
    spans = re.findall(r"(?<!`)`([^`\n]+)`(?!`)", re.sub(r"```.*?```", "", text, flags=re.DOTALL))
    return [c.split("  #")[0].strip() for c in lines + spans]


def pip_lines(text):
    return [c for c in commands(text) if re.search(r"\bpip install\b", c)]


def make_targets(text):
    return {m for c in commands(text) for m in re.findall(r"(?:^|[;&|] *)make ([a-z][\w-]*)", c)}


def pip_problems(line):
    """What is wrong with one `pip install ...` line ([] if nothing)."""
    from packaging.requirements import Requirement
    from pip._internal.commands import create_command
    words = shlex.split(line.lstrip("%"))
    words = words[words.index("install") + 1:]
    options, args = create_command("install", isolated=True).parse_args(["--isolated", *words])
    problems = []
    extras = set()
    for editable in options.editables:
        path, _, extra = editable.partition("[")
        if path != ".":
            problems.append(f"{line}: installs {editable!r}, not this folder")
        extras |= {e.strip() for e in extra.rstrip("]").split(",") if e.strip()}
    for arg in args:
        requirement = Requirement(arg)
        if requirement.name.replace("_", "-") == PYPROJECT["project"]["name"]:
            problems.append(f"{line}: {arg!r} is not on PyPI: install it from its folder (-e .)")
        if requirement.name == "torch" and str(requirement.specifier) not in ("", "==2.13.0"):
            problems.append(f"{line}: torch {requirement.specifier}, not 2.13.0")
    problems += [f"{line}: no extra {e!r} in pyproject.toml" for e in
                 extras - set(PYPROJECT["project"]["optional-dependencies"])]
    indexes = [options.index_url] if options.index_url != "https://pypi.org/simple" else []
    problems += [f"{line}: index {u}, not PyTorch's CPU index" for u in
                 indexes + options.extra_index_urls if u != CPU_INDEX]
    return problems


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_pip_install_line_works_as_written(doc):
    lines = pip_lines(doc.read_text(encoding="utf-8"))
    assert lines
    assert [p for line in lines for p in pip_problems(line)] == []


def test_the_pip_line_check_can_fail():
    assert pip_problems("pip install 'autograd-lesson[torch]'")
    assert pip_problems("pip install -e '.[gpu]'")
    assert pip_problems("pip install torch==2.14.0")
    assert pip_problems("pip install torch --index-url https://download.pytorch.org/whl/cu121")
    assert pip_problems("pip install -e ../elsewhere")
    assert pip_problems(without_torch.PIP_LINE) == []


def test_every_make_target_named_exists():
    targets = set().union(*(make_targets(doc.read_text(encoding="utf-8")) for doc in DOCS))
    assert {"lab", "test", "torch", "student"} <= targets
    for target in sorted(targets):
        out = subprocess.run(["make", "-n", target], cwd=ROOT, capture_output=True, text=True,
                             timeout=60)
        assert out.returncode == 0, f"make -n {target}: {out.stderr}"
    assert subprocess.run(["make", "-n", "no-such-target"], cwd=ROOT, capture_output=True,
                          timeout=60).returncode != 0


def test_make_torch_the_lessons_pip_line_and_the_installer_agree():
    installer = load_installer()
    dry = subprocess.run(["make", "-n", "torch"], cwd=ROOT, capture_output=True, text=True,
                         timeout=60).stdout
    assert re.search(r"\.ci/install\.py --installer \w+ install --torch-cpu$", dry, re.M), dry
    assert "restart the kernel" in dry
    version = PYPROJECT["project"]["optional-dependencies"]["torch"] == [f"torch=={installer.TORCH_VERSION}"]
    assert version and installer.TORCH_VERSION == without_torch.TORCH_VERSION == "2.13.0"
    assert installer.CPU_INDEX == without_torch.CPU_INDEX == CPU_INDEX
    assert without_torch.PIP_LINE == f"%pip install torch==2.13.0 --index-url {CPU_INDEX}"
    # no pip sources set: PyTorch's CPU index; the machine's own sources when set (as make test)
    assert installer.torch_cpu_args({}, "Linux") == ["torch==2.13.0+cpu", "--index-url", CPU_INDEX]
    assert installer.torch_cpu_args({"find-links": "/opt/wheels"}, "Linux") == ["torch==2.13.0+cpu"]
    assert installer.torch_cpu_args({}, "Darwin") == ["torch==2.13.0", "--index-url", CPU_INDEX]


def test_make_torch_passes_the_cpu_pin_to_the_installer(monkeypatch):
    installer = load_installer()
    commands_run = []
    monkeypatch.setattr(installer, "read_pip_settings", lambda pip: {})
    monkeypatch.setattr(installer, "find_uv", lambda scripts, pip: "uv")
    monkeypatch.setattr(installer, "run", lambda cmd, env=None: commands_run.append(cmd) or 0)
    monkeypatch.setattr(installer.platform, "system", lambda: "Linux")
    assert installer.main(["--installer", "pip", "install", "--torch-cpu"]) == 0
    assert commands_run[-1][-4:] == ["install", "torch==2.13.0+cpu", "--index-url", CPU_INDEX]


@pytest.mark.skipif(not os.path.exists("/bin/bash"), reason="make lab's terminal is bash")
def test_make_labs_terminal_has_the_venv_first_on_path(tmp_path):
    dry = subprocess.run(["make", "-n", "lab"], cwd=ROOT, capture_output=True, text=True,
                         timeout=60).stdout
    venv = ROOT / ".venv"
    assert f'AUTOGRAD_LESSON_VENV="{venv}"' in dry
    rc = ROOT / "lab-settings" / "terminal.bashrc"
    assert f"--ServerApp.terminado_settings=shell_command='bash --rcfile {rc}'" in dry
    # a profile that puts another pip first, as /etc/profile and pyenv do
    (tmp_path / ".profile").write_text("export PATH=/usr/bin:/bin\n")

    def which_pip(**env):
        out = subprocess.run(["bash", "--rcfile", str(rc), "-i", "-c", "command -v pip python"],
                             env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", **env},
                             capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        return out.stdout.split()
    assert which_pip(AUTOGRAD_LESSON_VENV=str(venv)) == [f"{venv}/bin/pip", f"{venv}/bin/python"]
    assert which_pip()[:1] != [f"{venv}/bin/pip"]  # the check can fail
