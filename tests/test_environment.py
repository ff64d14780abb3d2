"""Keep the install routes in sync: pyproject.toml (pip), environment.yml (conda),
Makefile (make lab / make test) and .ci/run.

Each check is a small pure function; the tests run it on the real files and
also on a deliberately broken input, so we know each check can fail.
"""
import os
import re
import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# PyPI name -> conda-forge package names that provide it.
PYPI_TO_CONDA = {"graphviz": {"python-graphviz", "graphviz"}}

TOKEN_DISABLERS = (
    "--NotebookApp.token=''",
    "--IdentityProvider.token=''",
    "--ServerApp.token=''",
)


# ---------------------------------------------------------------- helpers

def req_name(requirement: str) -> str:
    """'torch==2.13.0' -> 'torch'; 'foo[bar]>=1; python_version<"3.12"' -> 'foo'."""
    return re.split(r"[\s\[<>=!~;@]", requirement.strip(), maxsplit=1)[0].lower()


def conda_deps(text: str) -> tuple[set[str], list[str]]:
    """Hand-parse environment.yml: (conda package names, pip entries)."""
    conda, pip = set(), []
    section, in_pip = None, False
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        if not line.startswith(" "):  # top-level key
            section, in_pip = line.split(":", 1)[0].strip(), False
            continue
        if section != "dependencies":
            continue
        indent = len(line) - len(line.lstrip())
        item = line.strip()
        if not item.startswith("- "):
            continue
        item = item[2:].strip()
        if indent <= 2:
            in_pip = item == "pip:"
            if item.endswith(":"):
                continue
            conda.add(re.split(r"[\s<>=!~]", item, maxsplit=1)[0].lower())
        elif in_pip:
            pip.append(item)
    return conda, pip


def missing_in_conda(pypi_names, conda: set[str]) -> list[str]:
    missing = []
    for name in pypi_names:
        for want in PYPI_TO_CONDA.get(name, {name}):
            if want not in conda:
                missing.append(f"{name} -> {want}")
    return missing


def make_recipe(makefile: str, target: str) -> str:
    """The rule line and recipe lines of `target` in a Makefile."""
    lines = makefile.splitlines()
    out, inside = [], False
    for line in lines:
        if re.match(rf"^{re.escape(target)}\s*:(?!=)", line):
            inside = True
            out.append(line)
            continue
        if inside:
            if line.startswith("\t") or (out and out[-1].endswith("\\")):
                out.append(line)
            else:
                break
    return "\n".join(out)


def expand_variables(makefile: str, text: str) -> str:
    """`text` with the Makefile's own `$(NAME)` variables (`:=`, `?=`, `=`, with `\\`
    continuations) substituted, so that a flag kept in a variable is still seen."""
    joined = re.sub(r"\\\n\s*", " ", makefile)
    values = dict(re.findall(r"^([A-Za-z_][A-Za-z_0-9]*)\s*[:?]?=[ \t]*(.*)$", joined, re.MULTILINE))
    for _ in range(10):  # variables may name other variables
        text = re.sub(r"\$\(([A-Za-z_][A-Za-z_0-9]*)\)", lambda m: values.get(m.group(1), m.group(0)), text)
    return text


def lab_problems(recipe: str) -> list[str]:
    problems = []
    if not recipe:
        return ["no lab target"]
    if "--ip=127.0.0.1" not in recipe:
        problems.append("lab does not bind to 127.0.0.1")
    for bad in TOKEN_DISABLERS:
        if bad in recipe or bad.replace("''", '""') in recipe:
            problems.append(f"lab disables auth with {bad}")
    return problems


def calls_make_test(script: str) -> bool:
    for line in script.splitlines():
        code = line.split("#", 1)[0]
        if re.search(r"(^|[\s;&|(])make\s+(\S+\s+)*test(\s|$|;)", code):
            return True
    return False


# ---------------------------------------------------------------- fixtures

@pytest.fixture(scope="module")
def project():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


@pytest.fixture(scope="module")
def env_yml():
    return conda_deps((ROOT / "environment.yml").read_text())


# ---------------------------------------------------------------- (a) runtime deps

def test_environment_yml_has_runtime_deps(project, env_yml):
    conda, pip = env_yml
    names = [req_name(r) for r in project["dependencies"]]
    assert set(names) >= {"numpy", "matplotlib", "graphviz", "ipywidgets", "jupyterlab"}
    assert missing_in_conda(names, conda) == []
    assert "-e ." in pip, "environment.yml must pip-install the package itself"


def test_environment_yml_has_no_unknown_runtime_deps(project, env_yml):
    conda, _ = env_yml
    test_extra = {req_name(r) for r in project["optional-dependencies"]["test"]}
    known = {"python", "pip", "fonts-conda-ecosystem",  # fonts: DejaVu Sans
             "font-ttf-noto-cjk"} | test_extra  # and Noto Sans CJK for Hangul (notebooks/ko)
    for name in (req_name(r) for r in project["dependencies"]):
        known |= PYPI_TO_CONDA.get(name, {name})
    assert conda - known == set(), "conda packages not named by pyproject.toml"


def test_runtime_dep_check_can_fail():
    conda, _ = conda_deps("name: x\ndependencies:\n  - numpy\n  - graphviz\n  - pip:\n      - -e .\n")
    assert missing_in_conda(["numpy", "graphviz", "matplotlib"], conda) == [
        "graphviz -> python-graphviz",
        "matplotlib -> matplotlib",
    ]


# ---------------------------------------------------------------- (b) test extra

def test_environment_yml_has_test_tools(project, env_yml):
    conda, _ = env_yml
    test_extra = {req_name(r) for r in project["optional-dependencies"]["test"]}
    assert {"pytest", "nbval", "hypothesis"} <= test_extra
    assert missing_in_conda(["pytest", "nbval", "hypothesis"], conda) == []


def test_pyproject_pins_torch_for_parity(project):
    assert "torch==2.13.0" in [r.replace(" ", "") for r in project["optional-dependencies"]["test"]]


def test_test_tool_check_can_fail():
    conda, _ = conda_deps("dependencies:\n  - pytest\n")
    assert missing_in_conda(["pytest", "nbval"], conda) == ["nbval -> nbval"]


# ---------------------------------------------------------------- (c) make lab is local and authenticated

@pytest.mark.parametrize("target", ["lab", "solutions", "lab-ko", "solutions-ko"])
def test_make_lab_is_local_with_token_auth(target):
    makefile = (ROOT / "Makefile").read_text()
    recipe = expand_variables(makefile, make_recipe(makefile, target))
    assert "jupyter lab" in recipe
    assert lab_problems(recipe) == []


def test_variable_expansion_sees_flags_kept_in_a_variable():
    makefile = "FLAGS := --ip=0.0.0.0 \\\n  --no-browser\nlab:\n\tjupyter lab $(FLAGS)\n"
    assert lab_problems(expand_variables(makefile, make_recipe(makefile, "lab"))) == [
        "lab does not bind to 127.0.0.1"]


@pytest.mark.parametrize(
    "recipe",
    [
        "lab: install\n\tjupyter lab notebooks/ --ip=0.0.0.0 --no-browser",
        "lab: install\n\tjupyter lab notebooks/ --ip=127.0.0.1 --ServerApp.token=''",
        "lab: install\n\tjupyter lab notebooks/ --ip=127.0.0.1 --NotebookApp.token=\"\"",
        "lab: install\n\tjupyter lab --ip=127.0.0.1 \\\n\t  --IdentityProvider.token=''",
        "",
    ],
)
def test_lab_check_can_fail(recipe):
    assert lab_problems(make_recipe(recipe, "lab") if recipe else "") != []


# ---------------------------------------------------------------- (d) CI runs make test

def test_ci_runs_make_test():
    assert calls_make_test((ROOT / ".ci" / "run").read_text())


@pytest.mark.parametrize(
    "script, expected",
    [
        ("#!/bin/bash\nmake test\n", True),
        ('make test PYTEST_ARGS="--junitxml=x"\n', True),
        ("#!/bin/bash\n# make test\nmake lab\n", False),
        ("make testing\n", False),
    ],
)
def test_ci_check_can_fail(script, expected):
    assert calls_make_test(script) is expected


# ---------------------------------------------------------------- Binder

def test_binder_post_build_makes_the_student_copies_the_badge_opens(tmp_path):
    """postBuild (run by Binder in the repo root) writes the student copies and the lab
    settings; the README's Binder badge opens the student copy of lesson 00 that it wrote."""
    import os
    import shutil
    import subprocess
    import sys
    badge = re.search(r"mybinder\.org/v2/gh/[^)]*urlpath=lab/tree/([^)\s]+)",
                      (ROOT / "README.md").read_text())
    assert badge, "the README has no Binder badge with a urlpath"
    opened = badge.group(1)
    assert opened.startswith("build/student/") and opened.endswith("00_how_backward_works.ipynb")
    lesson = ROOT / "notebooks" / "00_how_backward_works.ipynb"
    (tmp_path / "notebooks").mkdir()
    shutil.copy(lesson, tmp_path / "notebooks")
    shutil.copytree(ROOT / "lab-settings", tmp_path / "lab-settings")
    bin_dir = tmp_path / "bin"  # a stand-in `jupyter lab path`, so no real app dir is touched
    bin_dir.mkdir()
    (bin_dir / "jupyter").write_text(
        f"#!/bin/sh\necho 'Application directory:   {tmp_path / 'app'}'\n")
    (bin_dir / "jupyter").chmod(0o755)
    assert os.access(ROOT / "postBuild", os.X_OK), "postBuild must be executable"
    env = dict(os.environ, PATH=f"{bin_dir}:{Path(sys.executable).parent}:{os.environ['PATH']}",
               PYTHONPATH=str(ROOT))
    subprocess.run(["bash", str(ROOT / "postBuild")], cwd=tmp_path, env=env, check=True)
    assert (tmp_path / opened).exists()
    assert (tmp_path / "app" / "settings" / "overrides.json").read_text() == \
        (ROOT / "lab-settings" / "overrides.json").read_text()


# ---------------------------------------------------------------- (e) installs go through uv with pip's settings

def load_installer():
    import importlib.util

    spec = importlib.util.spec_from_file_location("install_tool", ROOT / ".ci" / "install.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def installer():
    return load_installer()


# `pip config list` as printed on a machine whose pip finds torch's CPU wheel in /opt/wheels.
PIP_CONFIG_LIST = """\
:env:.cert='/etc/ssl/certs/ca-certificates.crt'
:env:.default-timeout='180'
:env:.find-links='/opt/wheels'
global.constraint='/etc/xdg/pip/constraints.txt'
global.extra-index-url='file:///opt/pypi/simple file:///opt/pypi-more/simple'
global.find-links='/somewhere/else'
install.index-url='https://mirror.example/simple'
"""


def test_pip_settings_follow_pips_precedence(installer):
    settings = installer.pip_settings(PIP_CONFIG_LIST)
    assert settings["find-links"] == "/opt/wheels"  # PIP_FIND_LINKS over pip.conf
    assert settings["index-url"] == "https://mirror.example/simple"  # [install] over [global]
    assert settings["constraint"] == "/etc/xdg/pip/constraints.txt"


def test_uv_gets_pips_find_links_indexes_and_constraints(installer):
    args, env = installer.uv_options(installer.pip_settings(PIP_CONFIG_LIST), environ={})
    pairs = list(zip(args, args[1:]))
    assert ("--find-links", "/opt/wheels") in pairs
    assert ("--extra-index-url", "file:///opt/pypi/simple") in pairs
    assert ("--extra-index-url", "file:///opt/pypi-more/simple") in pairs
    assert ("--constraint", "/etc/xdg/pip/constraints.txt") in pairs
    assert ("--index-url", "https://mirror.example/simple") in pairs
    assert ("--index-strategy", "unsafe-best-match") in pairs  # pip's best match over all indexes
    assert env == {"SSL_CERT_FILE": "/etc/ssl/certs/ca-certificates.crt", "UV_HTTP_TIMEOUT": "180"}
    venv_args, _ = installer.uv_options(installer.pip_settings(PIP_CONFIG_LIST), constraints=False)
    assert "--constraint" not in venv_args and "--find-links" in venv_args


def test_uv_option_check_can_fail(installer):
    # Without pip's settings uv would take PyPI's CUDA torch: nothing is passed on.
    assert installer.uv_options(installer.pip_settings(""), environ={}) == ([], {})
    lost = installer.pip_settings(PIP_CONFIG_LIST.replace(":env:.find-links", "user.find-links"))
    assert lost["find-links"] == "/somewhere/else"


def install_recipes(makefile: str) -> list[str]:
    """Recipe lines that install packages, with the Makefile's variables not expanded."""
    return [line.strip() for line in makefile.splitlines()
            if line.startswith("\t") and re.search(r"\$\(INSTALL\)|\b(pip|uv)\b.*\binstall\b", line, re.IGNORECASE)]


def bypasses_installer(makefile: str) -> list[str]:
    return [line for line in install_recipes(makefile)
            if not line.startswith("$(INSTALL) ") and ".ci/install.py" not in line]


def test_make_installs_only_through_the_installer():
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^INSTALL\s*:?=.*\.ci/install\.py .*install$", makefile, re.M)
    assert len(install_recipes(makefile)) >= 4  # base, test, e2e, bench
    assert bypasses_installer(makefile) == []


def test_installer_check_can_fail():
    assert bypasses_installer("x: y\n\t$(VPY) -m pip install -e '.[test]'\n") != []


def captured_install(installer, monkeypatch, argv):
    """The commands `install.py` would run for ``argv``, uv found, no pip settings."""
    commands = []
    monkeypatch.setattr(installer, "read_pip_settings", lambda pip: {})
    monkeypatch.setattr(installer, "find_uv", lambda scripts, pip: "uv")
    monkeypatch.setattr(installer, "run", lambda cmd, env=None: commands.append(cmd) or 0)
    assert installer.main(argv) == 0
    return commands


def test_compile_bytecode_reaches_uv_only_when_asked(installer, monkeypatch):
    [asked] = captured_install(installer, monkeypatch, ["install", "--compile-bytecode", "-e", "."])
    assert asked[:3] == ["uv", "pip", "install"] and "--compile-bytecode" in asked
    assert asked[-2:] == ["-e", "."]  # the option is the installer's, not an install argument
    [plain] = captured_install(installer, monkeypatch, ["install", "-e", ".[test]"])
    assert "--compile-bytecode" not in plain


def test_pip_gets_no_uv_option(installer, monkeypatch):
    """pip compiles at install by default, and would refuse uv's flag."""
    [pip] = captured_install(installer, monkeypatch,
                             ["--installer", "pip", "install", "--compile-bytecode", "-e", "."])
    assert pip[1:4] == ["-m", "pip", "install"] and "--compile-bytecode" not in pip


def test_make_lab_installs_compiled_and_make_test_does_not():
    makefile = (ROOT / "Makefile").read_text()
    recipes = dict(re.findall(r"^\$\(VENV\)/(\.installed\S*): .*\n\t(.*)", makefile, re.M))
    assert "--compile-bytecode" in recipes[".installed"]
    assert "--compile-bytecode" not in recipes[".installed-test"]


def test_make_writes_bytecode_where_the_environment_forbids_it():
    """A container's PYTHONDONTWRITEBYTECODE=1 would make every kernel of a test run compile
    torch again; make's processes run with it empty (Python then writes __pycache__)."""
    shown = subprocess.run(
        ["make", "-s", "-C", str(ROOT), "--eval", 'show-env: ; @echo "[$$PYTHONDONTWRITEBYTECODE]"',
         "show-env"], capture_output=True, text=True, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    assert shown.stdout.strip() == "[]", shown.stderr


def test_make_test_runs_one_blas_thread_per_process():
    """The workers fill the cores; OpenBLAS threads on top of them would spin for the same ones."""
    shown = subprocess.run(["make", "-n", "-C", str(ROOT), "test"], capture_output=True, text=True)
    commands = shown.stdout.replace("\\\n", " ").splitlines()  # (a recipe's continued lines)
    pytest = next(command for command in commands if "-m pytest" in command)
    for setting in ("OMP_NUM_THREADS=1", "OPENBLAS_NUM_THREADS=1", "MKL_NUM_THREADS=1"):
        assert setting in pytest.split("-m pytest")[0].split(), pytest
