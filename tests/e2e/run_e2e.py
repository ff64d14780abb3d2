"""End-to-end check of the lessons in a real browser: JupyterLab driven by Chromium.

    python tests/e2e/run_e2e.py [notebook ...]      (``make e2e``; ``.ci/run`` runs it too)

For every notebook, on a temporary copy served by a fresh ``jupyter lab`` on 127.0.0.1 with a
generated token:
1. before running anything (the notebook is untrusted, as when fresh from a clone), every
   stored graph output must already show as a picture;
2. Run > Run All Cells through the menus, waiting on conditions (kernel idle, every prompt
   numbered), never on fixed sleeps;
3. no cell may show an error, and every graph cell must show a rendered image;
4. the step-through slider, where there is one, is moved and its picture must change;
5. a full-page screenshot goes to build/e2e-screenshots/<notebook>.png.
Then the student's lab (``check_student_lab``; ``run_e2e.py student-lab`` runs only it): ``make
lab`` on a fresh student folder with its port already taken must print a working address on
another port, write the student copies, show no news prompt, print no "Kernel is running over
TCP without encryption" line, and open a copy without marking it modified; in lesson 01 a
student types a wrong answer, then the right one, and must see "✗ not quite (1st try)" and then
"✓ correct, on your 2nd try" (screenshot: student-lab.png).
The server is stopped by its process group whatever happens; every wait is bounded.
"""
import json
import os
import re
import pathlib
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHOTS = ROOT / "build" / "e2e-screenshots"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--disable-dev-shm-usage"]
RUN_TIMEOUT_MS = 120_000
SERVER_START_S = 90

LAB_SETTINGS = {  # render every cell (no windowing) and keep news/update popups away
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings":
        {"fetchNews": "false", "checkForUpdates": False},
}


def ensure_chromium():
    if os.path.exists(CHROMIUM):
        return
    if os.geteuid() != 0:
        sys.exit(f"{CHROMIUM} not found: install Debian's chromium (sudo apt-get install chromium)")
    if subprocess.call(["apt-get", "install", "-y", "chromium"]) != 0:
        subprocess.check_call(["apt-get", "update"])
        subprocess.check_call(["apt-get", "install", "-y", "chromium"])


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_lab(workdir, settings_dir, port, token, log):
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
           f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={workdir}",
           f"--LabApp.user_settings_dir={settings_dir}", "--ServerApp.open_browser=False"]
    if os.geteuid() == 0:
        cmd.append("--allow-root")
    env = dict(os.environ)
    env.pop("MPLBACKEND", None)  # a learner's kernel draws plots inline; CI's Agg would hide them
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                            env=env)
    deadline = time.monotonic() + SERVER_START_S
    url = f"http://127.0.0.1:{port}/api/status?token={token}"
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"jupyter lab exited early (code {proc.returncode}); see {log.name}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return proc
        except OSError:
            time.sleep(0.25)  # polling the server's readiness, not waiting for the UI
    raise RuntimeError(f"jupyter lab did not answer within {SERVER_START_S} s; see {log.name}")


def stop(proc):
    if proc is None or proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=15)
    except (subprocess.TimeoutExpired, ProcessLookupError):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=15)


def stored_graph_cells(path):
    """Indices (among all cells) of code cells whose stored outputs include a picture."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    found = []
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code":
            continue
        if any("image/png" in o.get("data", {}) or "image/svg+xml" in o.get("data", {})
               for o in cell.get("outputs", [])):
            found.append(i)
    return found


def slider_cells(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    return [i for i, cell in enumerate(nb["cells"]) if cell["cell_type"] == "code" and any(
        "application/vnd.jupyter.widget-view+json" in o.get("data", {})
        for o in cell.get("outputs", []))]


PICTURE = "img, svg"


def cell_pictures(page, index):
    cell = page.locator(".jp-Notebook > .jp-WindowedPanel-outer .jp-Cell, .jp-Notebook .jp-Cell").nth(index)
    return cell.locator(f".jp-OutputArea-output {PICTURE.split(',')[0]}, "
                        f".jp-OutputArea-output > svg, .jp-RenderedSVG svg, "
                        f".widget-html-content svg").count()


def check_notebook(page, base, name, path):
    problems = []
    graphs = stored_graph_cells(path)
    page.goto(f"{base}/lab/tree/{name}?reset")  # ?reset: a fresh workspace, only this notebook
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    page.wait_for_function(
        "() => document.querySelectorAll('.jp-Notebook .jp-Cell').length >= %d"
        % len(json.loads(path.read_text())["cells"]), timeout=60_000)
    cells = page.locator(".jp-Notebook .jp-Cell")
    for index in graphs:  # the untrusted case: stored outputs alone must show the pictures
        images = cells.nth(index).locator(".jp-OutputArea-output img, .widget-html-content svg")
        try:
            images.first.wait_for(state="visible", timeout=20_000)
        except Exception:
            problems.append(f"cell {index}: stored graph not shown as a picture before running")
    # kernel ready, then Run > Run All Cells through the menus
    page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=90_000)
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator("li[data-command='runmenu:run-all']").click()
    page.wait_for_function(
        """() => {
            const prompts = [...document.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt')];
            const status = document.querySelector('.jp-Notebook-ExecutionIndicator');
            return prompts.length > 0 && prompts.every(p => /\\[\\d+\\]/.test(p.innerText))
                && status && status.getAttribute('data-status') === 'idle';
        }""", timeout=RUN_TIMEOUT_MS)
    errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.error'],"
                          " .jp-OutputArea-output.jp-mod-error")
    if errors.count():
        problems.append(f"{errors.count()} cell(s) show an error: "
                        + errors.first.inner_text()[:300])
    for index in graphs:
        rendered = cells.nth(index).locator(".jp-OutputArea-output svg, .jp-OutputArea-output img")
        if rendered.count() == 0:
            problems.append(f"cell {index}: graph not rendered after running")
    for index in slider_cells(path):
        problems += move_slider(page, cells.nth(index), index)
    SHOTS.mkdir(parents=True, exist_ok=True)
    if graphs:  # the screenshot shows the lesson's first graph, as rendered after the run
        cells.nth(graphs[0]).scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"{pathlib.Path(name).stem}.png"), full_page=True)
    return problems


def move_slider(page, cell, index):
    html = cell.locator(".widget-html-content").first
    handle = cell.locator(".widget-slider .noUi-handle, .widget-hslider .noUi-handle").first
    try:
        handle.wait_for(state="visible", timeout=30_000)
    except Exception:
        return [f"cell {index}: the step-through slider did not appear"]
    before = html.inner_html()
    handle.focus()
    page.keyboard.press("End")
    try:
        page.wait_for_function("([el, old]) => el.innerHTML !== old",
                               arg=[html.element_handle(), before], timeout=30_000)
    except Exception:
        return [f"cell {index}: moving the slider did not change the picture"]
    return []


def shutdown_kernels(base, token):
    """Stop the kernels of notebooks already checked, so each notebook gets the CPU."""
    request = urllib.request.Request(f"{base}/api/sessions?token={token}")
    with urllib.request.urlopen(request, timeout=10) as response:
        sessions = json.load(response)
    for session in sessions:
        urllib.request.urlopen(urllib.request.Request(
            f"{base}/api/sessions/{session['id']}?token={token}", method="DELETE"), timeout=30)


# -- the student's lab: `make lab` on the student copies, a wrong and then a right answer ------------
STUDENT_LESSON = "01_multiple_losses"
STUDENT_ANSWER = "01-freed-answer"  # nbgrader grade_id of the answer cell typed into
WRONG, RIGHT = "prediction = set()", 'prediction = {"MulBackward0.self", "MulBackward0.other"}'
URL = re.compile(r"(http://127\.0\.0\.1:(\d+)/lab\?token=(\w+))")


def _read_lines(proc, lines):
    for line in proc.stdout:
        lines.append(line)


def start_make_lab(student, settings, taken_port, lines):
    """`make lab` with the student copies in ``student`` and ``taken_port`` already in use; its
    own generated token (a token given on the command line is printed as "token=...")."""
    args = f"--port={taken_port} --LabApp.user_settings_dir={settings}"
    env = dict(os.environ)
    env.pop("MPLBACKEND", None)
    proc = subprocess.Popen(["make", "--no-print-directory", "lab", f"STUDENT={student}",
                             f"LAB_ARGS={args}"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True, env=env)
    threading.Thread(target=_read_lines, args=(proc, lines), daemon=True).start()
    deadline = time.monotonic() + SERVER_START_S + 120  # make may install first
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("make lab exited early:\n" + "".join(lines)[-2000:])
        found = [m for line in list(lines) for m in URL.finditer(line)]
        if found:
            return proc, found[-1].group(1), int(found[-1].group(2)), found[-1].group(3)
        time.sleep(0.25)  # polling make's output for the printed address
    raise RuntimeError("make lab printed no address:\n" + "".join(lines)[-2000:])


def cell_text(cell):
    return cell.locator(".jp-OutputArea-output").all_inner_texts()


def answer(page, cells, index, text, expect):
    """Type ``text`` into answer cell ``index``, run it and its checker; wait for ``expect``."""
    editor = cells.nth(index).locator(".cm-content")
    editor.click()
    page.keyboard.press("Control+A")
    page.keyboard.insert_text(text)
    page.keyboard.press("Shift+Enter")  # runs the answer cell, selects the checker
    page.keyboard.press("Shift+Enter")  # runs the checker
    checker = cells.nth(index + 1)
    page.wait_for_function(
        "([el, want]) => el.innerText.includes(want)",
        arg=[checker.element_handle(), expect], timeout=60_000)
    return "\n".join(cell_text(checker))


def check_student_lab(browser):
    """`make lab` serves the student copies (made when missing) on the next port when the first
    is taken, and prints that address; no news prompt and no unencrypted-kernel warning; opening
    a copy does not mark it modified; a student answers wrong, then right, and sees both."""
    problems = []
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="e2e-student-"))
    student, settings = tmp / "student", tmp / "settings"
    # every cell rendered (no windowing), so that prompts can be read; nothing else is set, so
    # the news prompt and the update check are as a student gets them from `make lab`
    windowing = "@jupyterlab/notebook-extension/tracker.jupyterlab-settings"
    (settings / windowing).parent.mkdir(parents=True)
    (settings / windowing).write_text(json.dumps(LAB_SETTINGS[windowing]))
    lines, proc, page = [], None, None
    blocker = socket.socket()
    blocker.bind(("127.0.0.1", 0))
    blocker.listen()
    taken = blocker.getsockname()[1]
    try:
        proc, url, port, token = start_make_lab(student, settings, taken, lines)
        if port == taken:
            problems.append(f"make lab printed port {port}, which was taken")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status?token={token}",
                                    timeout=10) as response:
            if response.status != 200:
                problems.append(f"the printed address {url} does not answer")
        if not (student / f"{STUDENT_LESSON}.ipynb").exists():
            problems.append(f"make lab did not write {student}/{STUDENT_LESSON}.ipynb")
        nb = json.loads((student / f"{STUDENT_LESSON}.ipynb").read_text(encoding="utf-8"))
        index = next(i for i, c in enumerate(nb["cells"]) if c.get("metadata", {}).get(
            "nbgrader", {}).get("grade_id") == STUDENT_ANSWER)
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        page.goto(url)  # the printed address logs in
        page.wait_for_selector(".jp-LabShell", timeout=60_000)
        page.goto(f"http://127.0.0.1:{port}/lab/tree/{STUDENT_LESSON}.ipynb?reset")
        page.wait_for_function(
            "() => document.querySelectorAll('.jp-Notebook .jp-Cell').length >= %d"
            % len(nb["cells"]), timeout=60_000)
        page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']",
                               timeout=90_000)
        page.wait_for_timeout(3000)  # give a news prompt or a metadata update time to appear
        if page.locator(".lm-TabBar-tab.jp-mod-dirty").count():
            problems.append("opening the student copy marked it modified")
        toasts = " ".join(page.locator(".Toastify__toast").all_inner_texts())
        if "news" in toasts.lower():
            problems.append(f"a news prompt showed: {toasts[:200]}")
        page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
        page.locator("li[data-command='runmenu:run-all']").click()
        page.wait_for_function(
            """() => {
                const prompts = [...document.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt')];
                const status = document.querySelector('.jp-Notebook-ExecutionIndicator');
                return prompts.length > 0 && prompts.every(p => /\\[\\d+\\]/.test(p.innerText))
                    && status && status.getAttribute('data-status') === 'idle';
            }""", timeout=RUN_TIMEOUT_MS)
        cells = page.locator(".jp-Notebook .jp-Cell")
        first = "\n".join(cell_text(cells.nth(index + 1)))
        if "not done yet" not in first:
            problems.append(f"the unanswered checker did not say 'not done yet': {first[:200]}")
        wrong = answer(page, cells, index, WRONG, "✗ not quite (1st try)")
        right = answer(page, cells, index, RIGHT, "✓ correct, on your 2nd try")
        print(f"e2e: student lab on port {port} (port {taken} taken): wrong answer -> "
              f"{wrong.splitlines()[0]!r}; right answer -> {right.splitlines()[0]!r}")
        SHOTS.mkdir(parents=True, exist_ok=True)
        cells.nth(index + 1).scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / "student-lab.png"))
        context.close()
    except Exception as error:  # a timeout names the condition that never held
        problems.append(f"{type(error).__name__}: {str(error).splitlines()[0]}")
        if page is not None:
            page.screenshot(path=str(SHOTS / "student-lab-failure.png"))
    finally:
        stop(proc)
        blocker.close()
        shutil.rmtree(tmp, ignore_errors=True)
    log = "".join(lines)
    (SHOTS / "student-lab.log").write_text(log)
    if "without encryption" in log:
        problems.append("the terminal shows 'Kernel is running over TCP without encryption'")
    for problem in problems:
        print(f"      {problem}")
    return problems


def main(names):
    ensure_chromium()
    from playwright.sync_api import sync_playwright
    notebooks = sorted((ROOT / "notebooks").glob("*.ipynb"))
    if names:
        notebooks = [p for p in notebooks if p.name in names or p.stem in names]
    if not notebooks and "student-lab" not in names:
        sys.exit("e2e: no notebooks found")
    workdir = pathlib.Path(tempfile.mkdtemp(prefix="e2e-notebooks-"))
    settings = pathlib.Path(tempfile.mkdtemp(prefix="e2e-settings-"))
    for rel, content in LAB_SETTINGS.items():
        target = settings / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(content))
    for path in notebooks:
        shutil.copy(path, workdir / path.name)
    token = os.urandom(16).hex()
    port = free_port()
    SHOTS.mkdir(parents=True, exist_ok=True)
    log = open(SHOTS / "jupyterlab.log", "w")
    proc = None
    failures = {}
    try:
        proc = start_lab(workdir, settings, port, token, log)
        base = f"http://127.0.0.1:{port}"
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS,
                                        headless=True)
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            login = context.new_page()
            login.goto(f"{base}/lab?token={token}")  # logs in: the token becomes a cookie
            login.wait_for_selector(".jp-LabShell", timeout=60_000)
            login.close()
            for path in notebooks:
                started = time.monotonic()
                page = context.new_page()  # one page per notebook: one notebook, one kernel
                try:
                    problems = check_notebook(page, base, path.name, workdir / path.name)
                except Exception as error:  # a timeout names the condition that never held
                    problems = [f"{type(error).__name__}: {str(error).splitlines()[0]}"]
                    page.screenshot(path=str(SHOTS / f"{path.stem}-failure.png"))
                page.close()
                shutdown_kernels(base, token)
                status = "ok" if not problems else "FAILED"
                print(f"e2e: {path.name}: {status} ({time.monotonic() - started:.1f} s)")
                for problem in problems:
                    print(f"      {problem}")
                if problems:
                    failures[path.name] = problems
            if not names or "student-lab" in names:
                student_problems = check_student_lab(browser)
                print(f"e2e: student lab: {'ok' if not student_problems else 'FAILED'}")
                if student_problems:
                    failures["student lab"] = student_problems
            browser.close()
    finally:
        stop(proc)
        log.close()
        shutil.rmtree(workdir, ignore_errors=True)
        shutil.rmtree(settings, ignore_errors=True)
    print(f"e2e: screenshots in {SHOTS.relative_to(ROOT)}/")
    if failures:
        sys.exit(f"e2e: {len(failures)} notebook(s) failed")
    print(f"e2e: all {len(notebooks)} notebooks passed")


if __name__ == "__main__":
    main(sys.argv[1:])
