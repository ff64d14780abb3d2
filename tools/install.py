"""Install the project into the venv this Python runs in: with uv when it can, else with pip.

    .venv/bin/python tools/install.py [--installer auto|uv|pip] -e '.[test]'

The Makefile calls this for every install; pyproject.toml stays the only list of dependencies.
uv is taken from the venv, then from PATH, else bootstrapped with `pip install uv`; if that or
the uv install fails, pip does the install (`--installer uv` turns the fallback off).

uv does not read pip's configuration, so the pip settings in force (pip.conf files and PIP_*
variables, as `pip config list` shows them) are handed to uv. On a machine whose pip finds
torch's CPU wheel in a local `find-links` directory, that is what makes uv take the same file
instead of PyPI's multi-GB CUDA build.
"""
import argparse
import ast
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

UV_SPEC = "uv>=0.5"
# pip install sees PIP_* variables over its [install] section over [global] (pip's own order).
SECTION_RANK = {"global": 0, "install": 1, ":env:": 2}
# pip options whose (space- or newline-separated) values uv takes under the same flag.
LIST_OPTIONS = ("find-links", "extra-index-url", "constraint")
TRUE = {"1", "true", "yes", "on", "y"}
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


def uv_options(settings: dict[str, str], environ=os.environ) -> tuple[list[str], dict[str, str]]:
    """pip settings -> (uv pip install arguments, environment variables to add)."""
    args: list[str] = []
    for option in LIST_OPTIONS:
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


def run(cmd: list[str], env=None) -> int:
    print("+", " ".join(cmd), flush=True)
    return subprocess.run(cmd, env=env).returncode


def find_uv(allow_bootstrap: bool) -> str | None:
    """uv in the venv, else on PATH, else `pip install uv` into the venv."""
    local = Path(sysconfig.get_path("scripts")) / "uv"
    if local.exists():
        return str(local)
    if shutil.which("uv"):
        return shutil.which("uv")
    if allow_bootstrap and run([sys.executable, "-m", "pip", "install", "-q", UV_SPEC]) == 0 and local.exists():
        return str(local)
    return None


def read_pip_settings() -> dict[str, str]:
    out = subprocess.run(
        [sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True
    )
    return pip_settings(out.stdout) if out.returncode == 0 else {}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--installer", choices=("auto", "uv", "pip"), default="auto")
    opts, pip_args = parser.parse_known_args(argv)
    pip_cmd = [sys.executable, "-m", "pip", "install", *pip_args]
    settings = read_pip_settings()
    wants_torch = any("test" in a or "bench" in a for a in pip_args)
    if wants_torch and not any(settings.get(k) for k in ("find-links", "index-url", "extra-index-url")):
        print(TORCH_HINT, flush=True)
    if opts.installer == "pip":
        return run(pip_cmd)
    uv = find_uv(allow_bootstrap=True)
    if uv is None:
        if opts.installer == "uv":
            print("install: uv is not on PATH and `pip install uv` failed", file=sys.stderr)
            return 1
        print("install: uv unavailable, installing with pip", flush=True)
        return run(pip_cmd)
    args, extra_env = uv_options(settings)
    status = run([uv, "pip", "install", "--python", sys.executable, *args, *pip_args],
                 env={**os.environ, **extra_env})
    if status == 0 or opts.installer == "uv":
        return status
    print(f"install: uv failed (exit {status}), installing with pip", flush=True)
    return run(pip_cmd)


if __name__ == "__main__":
    sys.exit(main())
