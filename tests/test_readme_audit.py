"""README's "The doctor from a script and CI": every file it shows is saved under its name, every
`$ python -m autograd_lesson ...` line is run there, and what it prints (and `echo $?`) must be
the text under it. After a change to the audit's wording, refresh them with

    .venv/bin/python tests/test_readme_audit.py
"""
import contextlib
import io
import os
import pathlib
import re
import shlex
import subprocess
import sys
import tempfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
TITLE = "## The doctor from a script and CI"
pytestmark = pytest.mark.parity


def section(text):
    return TITLE + text.split(TITLE, 1)[1].split("\n## ", 1)[0]


def files(text):
    """{name: source} of the ```python blocks whose first line is `# name.py`."""
    return {m.group(1): m.group(0).split("\n", 1)[1].rsplit("```", 1)[0]
            for m in re.finditer(r"```python\n# (\w+\.py)\n.*?```", text, re.DOTALL)}


def run(argv, folder):
    """(exit status, stdout + stderr) of `python -m autograd_lesson ARGV` run in ``folder``, in
    this process (with torch already imported, 4 commands take seconds, not a minute)."""
    from autograd_lesson.__main__ import main
    from autograd_lesson.i18n import set_language
    out, before, cwd = io.StringIO(), set(sys.modules), os.getcwd()
    path = list(sys.path)
    os.chdir(folder)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            status = main(argv)
    finally:
        os.chdir(cwd)
        sys.path[:] = path
        set_language("en")
        for name in set(sys.modules) - before:  # the next command imports the files afresh
            if str(folder) in (getattr(sys.modules[name], "__file__", None) or ""):
                del sys.modules[name]
    return status, out.getvalue()


def rendered(text, folder):
    """``text`` with each console block's output replaced by what its commands print now."""
    for name, source in files(text).items():
        (folder / name).write_text(source, encoding="utf-8")

    def console(match):
        lines, status = [], None
        for line in match.group(1).splitlines():
            if not line.startswith("$ "):
                continue  # the old output
            lines.append(line)
            words = shlex.split(line[2:])
            if words == ["echo", "$?"]:
                lines.append(str(status))
            else:
                assert words[:3] == ["python", "-m", "autograd_lesson"], line
                status, printed = run(words[3:], folder)
                lines += printed.rstrip("\n").splitlines()
        return "```console\n" + "\n".join(lines) + "\n```"
    return re.sub(r"```console\n(.*?)```", console, text, flags=re.DOTALL)


def test_every_kind_of_finding_has_an_example():
    text = section(README.read_text(encoding="utf-8"))
    for kind in ("unused-retain", "double-traversal", "graph-grows", "freed-reuse", "stale-saved"):
        assert re.search(rf"^{kind}: ", text, re.M), kind
    assert "\n$ echo $?\n0\n" in text and "\n$ echo $?\n1\n" in text


def test_the_commands_print_what_the_readme_shows(torch, tmp_path):
    text = section(README.read_text(encoding="utf-8"))
    assert rendered(text, tmp_path) == text, \
        "README's CLI examples are out of date: run .venv/bin/python tests/test_readme_audit.py"


def test_the_pytest_example_passes_and_fails_with_the_report(torch, tmp_path):
    text = section(README.read_text(encoding="utf-8"))
    for name, source in files(text).items():
        (tmp_path / name).write_text(source, encoding="utf-8")
    test = tmp_path / "test_heads.py"
    test.write_text(test.read_text() + "\ndef test_train_step_is_clean():\n"
                    "    assert_clean(train_step, *make_inputs())\n")
    test.write_text(test.read_text().replace("import make_inputs, summed_step",
                                             "import make_inputs, summed_step, train_step"))
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "-o", "addopts=", "test_heads.py"], cwd=tmp_path, capture_output=True,
                         text=True, timeout=300)
    assert "1 failed, 1 passed" in out.stdout, out.stdout + out.stderr
    assert "AssertionError: audit of train_step: 2 backward calls, 2 findings" in out.stdout


if __name__ == "__main__":  # rewrite the README's outputs
    whole = README.read_text(encoding="utf-8")
    old = section(whole)
    with tempfile.TemporaryDirectory() as folder:
        README.write_text(whole.replace(old, rendered(old, pathlib.Path(folder))), encoding="utf-8")
    print("README.md: the CLI examples' outputs rewritten")
