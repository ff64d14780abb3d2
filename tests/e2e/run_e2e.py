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
The server is stopped by its process group whatever happens; every wait is bounded.
"""
import json
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
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


def main(names):
    ensure_chromium()
    from playwright.sync_api import sync_playwright
    notebooks = sorted((ROOT / "notebooks").glob("*.ipynb"))
    if names:
        notebooks = [p for p in notebooks if p.name in names or p.stem in names]
    if not notebooks:
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
