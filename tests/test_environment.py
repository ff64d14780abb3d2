"""Keep the install routes in sync: pyproject.toml (pip), environment.yml (conda),
Makefile (make lab / make test) and .ci/run.

Each check is a small pure function; the tests run it on the real files and
also on a deliberately broken input, so we know each check can fail.
"""
import re
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
    known = {"python", "pip", "fonts-conda-ecosystem"} | test_extra  # fonts: DejaVu Sans
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

@pytest.mark.parametrize("target", ["lab", "solutions"])
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
