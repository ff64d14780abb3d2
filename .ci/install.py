"""Make the venv and install the project into it: with uv when it can, else with pip.

    python3 .ci/install.py [--installer auto|uv|pip] venv .venv
    .venv/bin/python .ci/install.py [--installer auto|uv|pip] install [--compile-bytecode] -e '.[test]'
    .venv/bin/python .ci/install.py install --torch-cpu        (make torch)

The Makefile calls this for the venv and every install; pyproject.toml stays the only list of
dependencies. uv is taken from the venv, then from PATH, else bootstrapped with `pip install uv`;
`uv venv --seed` makes the venv (with pip in it) in well under a second, where `python3 -m venv`
spends seconds in ensurepip. If uv cannot be had or fails, `python3 -m venv` and pip do the work
(`--installer uv` turns that fallback off, `--installer pip` skips uv).

uv does not read pip's configuration, so the pip settings in force (pip.conf files and PIP_*
variables, as `pip config list` shows them) are handed to uv. On a machine whose pip finds
torch's CPU wheel in a local `find-links` directory, that is what makes uv take the same file
instead of PyPI's multi-GB CUDA build.
"""
from __future__ import annotations

import argparse
import ast
import os
import platform
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

UV_SPEC = "uv>=0.5"
# pip install sees PIP_* variables over its [install] section over [global] (pip's own order).
SECTION_RANK = {"global": 0, "install": 1, ":env:": 2}
# pip options whose (space- or newline-separated) values uv takes under the same flag.
LIST_OPTIONS = ("find-links", "extra-index-url", "constraint")
TRUE = {"1", "true", "yes", "on", "y"}
TORCH_VERSION = "2.13.0"
CPU_INDEX = "https://download.pytorch.org/whl/cpu"
TORCH_HINT = (
    "install: on Linux, PyPI's torch is the CUDA build (several GB). For the CPU build run\n"
    "install:   PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cpu make test"
)


def pip_settings(config_list: str) -> dict[str, str]:
    """`pip config list` output -> {option: value} as `pip install` would use them."""
    best: dict[str, tuple[int, str]] = {}
    for line in config_list.splitlines():
        key, sep, value = line.partition("=")
        section, _, option = key.rpartition(".")
        if not sep or section not in SECTION_RANK:
            continue
        value = value.strip()
        if value[:1] in "'\"":
            value = ast.literal_eval(value)  # pip prints values with %r
        rank = SECTION_RANK[section]
        if option not in best or rank >= best[option][0]:
            best[option] = (rank, value)
    return {option: value for option, (_, value) in best.items()}


def uv_options(settings: dict[str, str], environ=os.environ, constraints=True
               ) -> tuple[list[str], dict[str, str]]:
    """pip settings -> (uv pip install arguments, environment variables to add)."""
    args: list[str] = []
    for option in LIST_OPTIONS if constraints else LIST_OPTIONS[:-1]:
        for value in settings.get(option, "").split():
            args += [f"--{option}", value]
    if settings.get("index-url", "").strip():
        args += ["--index-url", settings["index-url"].strip()]
    if settings.get("no-index", "").strip().lower() in TRUE:
        args.append("--no-index")
    if settings.get("extra-index-url", "").strip():
        # pip takes the best version over all indexes; uv's default stops at the first index.
        args += ["--index-strategy", "unsafe-best-match"]
    env = {}
    if settings.get("cert") and "SSL_CERT_FILE" not in environ:
        env["SSL_CERT_FILE"] = settings["cert"]
    timeout = settings.get("timeout") or settings.get("default-timeout")
    if timeout and "UV_HTTP_TIMEOUT" not in environ:
        env["UV_HTTP_TIMEOUT"] = str(int(float(timeout)))
    return args, env


def torch_cpu_args(settings: dict[str, str], system: str = platform.system()) -> list[str]:
    """pip arguments for the CPU build of torch 2.13.0 and nothing else. On Linux and Windows
    the pin names the build (2.13.0+cpu), so no index can hand over the CUDA one or another
    version; macOS wheels are CPU builds without the suffix. Where pip's settings already name
    a source (a find-links directory of wheels, a mirror), those are used as `make test` uses
    them; otherwise PyTorch's CPU index."""
    spec = f"torch=={TORCH_VERSION}" + ("" if system == "Darwin" else "+cpu")
    if any(settings.get(k) for k in ("find-links", "index-url", "extra-index-url")):
        return [spec]
    return [spec, "--index-url", CPU_INDEX]


def run(cmd: list[str], env=None) -> int:
    print("+", " ".join(cmd), flush=True)
    return subprocess.run(cmd, env=env).returncode


def find_uv(scripts: Path, pip: list[str] | None) -> str | None:
    """uv in the venv's scripts, else on PATH, else `pip install uv` (if `pip` is given)."""
    local = scripts / "uv"
    if local.exists():
        return str(local)
    if shutil.which("uv"):
        return shutil.which("uv")
    if pip is None:
        return None
    target = Path(tempfile.mkdtemp(prefix="uv-bootstrap-"))
    quiet = {**os.environ, "PIP_ROOT_USER_ACTION": "ignore", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    status = run([*pip, "install", "-q", "--target", str(target), UV_SPEC], env=quiet)
    if status != 0 or not (target / "bin" / "uv").exists():
        shutil.rmtree(target, ignore_errors=True)
        return None
    scripts.mkdir(parents=True, exist_ok=True)
    shutil.copy2(target / "bin" / "uv", local)  # a standalone binary: the rest is not needed
    shutil.rmtree(target, ignore_errors=True)
    return str(local)


def make_venv(venv: Path, installer: str) -> int:
    """`uv venv --seed` (pip included), else the standard library's `python -m venv`."""
    if installer != "pip":
        base_pip = [sys.executable, "-m", "pip"]
        has_pip = subprocess.run([*base_pip, "--version"], capture_output=True).returncode == 0
        # uv bootstrapped before the venv exists waits in a temporary scripts dir, then moves in.
        staging = Path(tempfile.mkdtemp(prefix="uv-"))
        uv = find_uv(staging, base_pip if has_pip else None)
        if uv:
            settings = read_pip_settings(base_pip) if has_pip else {}
            args, extra_env = uv_options(settings, constraints=False)  # uv venv takes none
            shutil.rmtree(venv, ignore_errors=True)  # a venv without its python is a broken one
            status = run([uv, "venv", "--seed", "--python", sys.executable, *args, str(venv)],
                         env={**os.environ, **extra_env})
            if status == 0 and uv.startswith(str(staging)):
                shutil.move(uv, venv / "bin" / "uv")
            shutil.rmtree(staging, ignore_errors=True)
            if status == 0:
                return 0
            shutil.rmtree(venv, ignore_errors=True)
            if installer == "uv":
                return status
            print("install: uv venv failed, using python -m venv", flush=True)
        else:
            shutil.rmtree(staging, ignore_errors=True)
            if installer == "uv":
                print("install: uv is not on PATH and `pip install uv` failed", file=sys.stderr)
                return 1
    return run([sys.executable, "-m", "venv", str(venv)])


def read_pip_settings(pip: list[str]) -> dict[str, str]:
    out = subprocess.run([*pip, "config", "list"], capture_output=True, text=True)
    return pip_settings(out.stdout) if out.returncode == 0 else {}


def install(pip_args: list[str], installer: str, compile_bytecode: bool = False,
            torch_cpu: bool = False) -> int:
    """Install into the venv of this interpreter. ``compile_bytecode``: write every installed
    module's .pyc now, as pip always does and uv only when asked; a process that finds none
    compiles what it imports from source, each time when PYTHONDONTWRITEBYTECODE is set."""
    pip = [sys.executable, "-m", "pip"]
    pip_cmd = [*pip, "install", *pip_args]
    settings = read_pip_settings(pip)
    if torch_cpu:
        pip_args = torch_cpu_args(settings) + pip_args
        pip_cmd = [*pip, "install", *pip_args]
    wants_torch = any("test" in a or "bench" in a for a in pip_args)
    if wants_torch and not any(settings.get(k) for k in ("find-links", "index-url", "extra-index-url")):
        print(TORCH_HINT, flush=True)
    if installer == "pip":
        return run(pip_cmd)
    uv = find_uv(Path(sysconfig.get_path("scripts")), pip)
    if uv is None:
        if installer == "uv":
            print("install: uv is not on PATH and `pip install uv` failed", file=sys.stderr)
            return 1
        print("install: uv unavailable, installing with pip", flush=True)
        return run(pip_cmd)
    args, extra_env = uv_options(settings)
    if compile_bytecode:
        args.append("--compile-bytecode")
    status = run([uv, "pip", "install", "--python", sys.executable, *args, *pip_args],
                 env={**os.environ, **extra_env})
    if status == 0 or installer == "uv":
        return status
    print(f"install: uv failed (exit {status}), installing with pip", flush=True)
    return run(pip_cmd)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--installer", choices=("auto", "uv", "pip"), default="auto")
    parser.add_argument("--compile-bytecode", action="store_true",
                        help="install: compile the installed modules now (pip always does)")
    parser.add_argument("--torch-cpu", action="store_true",
                        help="install: the CPU build of torch " + TORCH_VERSION)
    parser.add_argument("command", choices=("venv", "install"))
    opts, rest = parser.parse_known_args(argv)
    if opts.command == "venv":
        if len(rest) != 1:
            parser.error("venv takes one argument: the venv's directory")
        return make_venv(Path(rest[0]), opts.installer)
    return install(rest, opts.installer, opts.compile_bytecode, opts.torch_cpu)


if __name__ == "__main__":
    sys.exit(main())
