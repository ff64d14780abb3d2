"""Lesson 11 for a learner without torch, in a real browser (``make e2e`` runs it after run_e2e.py).

    python tests/e2e/without_torch.py [en] [ko]

``make lab`` (as a learner starts it) on fresh student copies, with ``PYTHONPATH`` giving its
kernels a ``torch`` that cannot be imported. Then:
1. JupyterLab's terminal (its REST and websocket API, as the Terminal tab uses it): ``command -v
   pip python`` must name the project's ``.venv``;
2. in each edition's student copy of lesson 11, with a cell a learner added after the first one
   (``%pip --version``, whose id is not the lesson's): Run All; the first cell must print the
   CPU install line, the learner's cell must run (pip of the kernel's own environment), every
   stored picture must still show, under the line saying it comes from a run with torch, and
   no cell may show an error. Screenshots: build/e2e-screenshots/without-torch-<edition>.png.
"""
import asyncio
import json
import os
import pathlib
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from run_e2e import (CHROMIUM, CHROMIUM_ARGS, LAB_SETTINGS, ROOT, SERVER_START_S, SHOTS, URL,  # noqa: E402
                     VIEWPORT, _read_lines, ensure_chromium, run_all, stop, stored_graph_cells)

LESSON = "11_your_own_model.ipynb"
PIP_LINE = "%pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu"
STORED = {"en": "↻ not run (torch is not installed): the output below is stored from a run "
                "with PyTorch 2.13.0",
          "ko": "↻ 실행하지 않았습니다(torch가 설치되어 있지 않음): 아래 출력은 PyTorch 2.13.0으로 "
                "실행했을 때 저장된 것입니다"}
LEARNER_CELL = {"cell_type": "code", "id": "0f3c9a1e-learner", "metadata": {},
                "execution_count": None, "outputs": [], "source": "%pip --version"}


def start_lab_without_torch(tmp):
    """`make lab` on student copies in ``tmp/student``, its kernels unable to import torch."""
    stub = tmp / "no-torch" / "torch"
    stub.mkdir(parents=True)
    (stub / "__init__.py").write_text("raise ImportError(\"No module named 'torch'\")\n")
    settings = tmp / "settings"
    for rel, content in LAB_SETTINGS.items():
        (settings / rel).parent.mkdir(parents=True, exist_ok=True)
        (settings / rel).write_text(json.dumps(content))
    env = dict(os.environ, PYTHONPATH=str(stub.parent))
    env.pop("MPLBACKEND", None)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    lines = []
    proc = subprocess.Popen(
        ["make", "--no-print-directory", "lab", f"STUDENT={tmp / 'student'}",
         f"LAB_ARGS=--port={port} --LabApp.user_settings_dir={settings}"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True, env=env)
    threading.Thread(target=_read_lines, args=(proc, lines), daemon=True).start()
    deadline = time.monotonic() + SERVER_START_S + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("make lab exited early:\n" + "".join(lines)[-2000:])
        found = [m for line in list(lines) for m in URL.finditer(line)]
        if found:
            return proc, found[-1].group(1), found[-1].group(3), lines
        time.sleep(0.25)  # polling make's output for the printed address
    raise RuntimeError("make lab printed no address:\n" + "".join(lines)[-2000:])


async def _terminal_says(base, token, command, want, timeout=60):
    """Open a terminal as the Terminal tab does, type ``command``, return what it printed once
    ``want`` (a regex) shows, or everything it printed by the timeout."""
    import urllib.request
    from tornado.websocket import websocket_connect
    request = urllib.request.Request(f"{base}/api/terminals?token={token}", method="POST",
                                     data=b"")
    with urllib.request.urlopen(request, timeout=30) as response:
        name = json.load(response)["name"]
    ws = await websocket_connect(f"{base.replace('http', 'ws')}/terminals/websocket/{name}"
                                 f"?token={token}")
    await ws.write_message(json.dumps(["stdin", command + "\r"]))
    seen, deadline = "", time.monotonic() + timeout
    while time.monotonic() < deadline and not re.search(want, seen):
        try:
            message = await asyncio.wait_for(ws.read_message(), deadline - time.monotonic())
        except asyncio.TimeoutError:
            break
        if message is None:
            break
        kind, *rest = json.loads(message)
        if kind == "stdout":
            seen += rest[0]
    ws.close()
    urllib.request.urlopen(urllib.request.Request(
        f"{base}/api/terminals/{name}?token={token}", method="DELETE"), timeout=30)
    return seen


def check_terminal(base, token):
    venv = str(ROOT / ".venv" / "bin")
    out = asyncio.run(_terminal_says(base, token, "command -v pip python",
                                     re.escape(venv) + r"/python"))
    out = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out).replace("\r", "\n")  # a terminal's text
    pip = re.search(r"^(\S*/pip)\s*$", out, re.M)
    if not pip or pip.group(1) != f"{venv}/pip":
        return [f"the terminal's pip is not .venv's ({venv}/pip): {out[-300:]!r}"]
    print(f"e2e: without torch: the terminal's pip is {pip.group(1)}")
    return []


def add_learner_cell(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    first = next(i for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code")
    nb["cells"].insert(first + 1, LEARNER_CELL)
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False), encoding="utf-8")
    return first, first + 1


def check_lesson(page, base, rel, path, edition):
    problems = []
    first, learner = add_learner_cell(path)
    graphs = stored_graph_cells(path)
    page.goto(f"{base}/lab/tree/{rel}?reset")
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    count = len(json.loads(path.read_text())["cells"])
    page.wait_for_function(
        "() => document.querySelectorAll('.jp-Notebook .jp-Cell').length >= %d" % count,
        timeout=60_000)
    page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=90_000)
    run_all(page)
    cells = page.locator(".jp-Notebook .jp-Cell")
    text = lambda i: "\n".join(cells.nth(i).locator(".jp-OutputArea-output").all_inner_texts())  # noqa: E731
    if PIP_LINE not in text(first):
        problems.append(f"the first cell does not print the CPU install line: {text(first)[:300]!r}")
    pip = text(learner)
    if not re.search(r"^pip \S+ from " + re.escape(str(ROOT / ".venv")), pip, re.M):
        problems.append(f"the learner's %pip cell did not run in .venv's python: {pip[:300]!r}")
    errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.error'],"
                          " .jp-OutputArea-output.jp-mod-error")
    if errors.count():
        problems.append(f"{errors.count()} cell(s) show an error: " + errors.first.inner_text()[:300])
    for index in graphs:
        pictures = cells.nth(index).locator(".jp-OutputArea-output svg, .jp-OutputArea-output img")
        if pictures.count() == 0:
            problems.append(f"cell {index}: the stored picture is gone after Run All")
        if STORED[edition] not in text(index):
            problems.append(f"cell {index}: no line saying the output is from a run with torch")
    if not graphs:
        problems.append("the student copy has no stored picture to keep")
    SHOTS.mkdir(parents=True, exist_ok=True)
    if graphs:
        cells.nth(graphs[0]).scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"without-torch-{edition}.png"))
    print(f"e2e: without torch ({edition}): {len(graphs)} stored pictures kept; learner's cell: "
          f"{pip.strip().splitlines()[0] if pip.strip() else '(nothing)'}")
    return problems


def main(editions):
    ensure_chromium()
    from playwright.sync_api import sync_playwright
    editions = editions or ["en", "ko"]
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="e2e-no-torch-"))
    proc, problems, lines = None, [], []
    try:
        proc, url, token, lines = start_lab_without_torch(tmp)
        base = url.split("/lab?")[0]
        problems += check_terminal(base, token)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS,
                                        headless=True)
            context = browser.new_context(viewport=VIEWPORT)
            page = context.new_page()
            page.goto(url)  # the printed address logs in
            page.wait_for_selector(".jp-LabShell", timeout=60_000)
            for edition in editions:
                rel = LESSON if edition == "en" else f"ko/{LESSON}"
                try:
                    problems += [f"{edition}: {p}" for p in check_lesson(
                        page, base, rel, tmp / "student" / rel, edition)]
                except Exception as error:  # a timeout names the condition that never held
                    problems.append(f"{edition}: {type(error).__name__}: "
                                    f"{str(error).splitlines()[0]}")
                    page.screenshot(path=str(SHOTS / f"without-torch-{edition}-failure.png"))
            browser.close()
    finally:
        stop(proc)
        SHOTS.mkdir(parents=True, exist_ok=True)
        (SHOTS / "without-torch.log").write_text("".join(lines))
        shutil.rmtree(tmp, ignore_errors=True)
    for problem in problems:
        print(f"      {problem}")
    if problems:
        sys.exit(f"e2e: lesson 11 without torch: {len(problems)} problem(s)")
    print("e2e: lesson 11 without torch: ok")


if __name__ == "__main__":
    main(sys.argv[1:])
