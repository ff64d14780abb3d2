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
5. a full-page screenshot goes to build/e2e-screenshots/<notebook>.png;
6. legibility, at 1366x768 with the file browser open (output area about 934 px): every graph
   picture, both as stored (untrusted) and after Run All, is measured (natural vs shown width,
   the smallest rendered SVG text in CSS px, clipping, height) and written as one row to
   build/e2e/legibility.tsv; a picture with text under MIN_TEXT_PX (11 px), cut off, taller
   than MAX_HEIGHT_PX (650 px: one screen; a picture cut to fit says in one line what it left
   out, the "left_out" column), or with text that touches or crosses a border (a node's, a
   table cell's, a module box's: ``crossings.py``, the "crossings" column) fails the notebook;
   a module-box picture's depth buttons are pressed in turn and each depth measured the same
   way (phase "depth N", screenshots <notebook>-depthN.png);
7. a step-through, with its slider's row at the top of the notebook: the running node must be
   on screen with the slider, the picture must change while the handle is still held down
   (dragging, not only on release), and the "whole graph" toggle must draw its text at 11 px
   or more (screenshot: <notebook>-steps.png).
The Korean edition (``notebooks/ko``): the same checks for every Korean lesson (``E2E_KOREAN=sample``
for lessons 00 and 01 only, ``E2E_KOREAN=none`` for none, or name them: ``ko/04_rnn``),
screenshots ``ko-<notebook>.png``, and ``hangul_problems``: Hangul in the markdown, in the
checkers' output and in an SVG picture must be drawn with real glyphs, not the empty boxes
("tofu") of a missing font.
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

from crossings import CROSSINGS_JS, describe

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHOTS = ROOT / "build" / "e2e-screenshots"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--disable-dev-shm-usage"]
RUN_TIMEOUT_MS = 120_000
VIEWPORT = {"width": 1366, "height": 768}
LEGIBILITY = ROOT / "build" / "e2e" / "legibility.tsv"
MIN_TEXT_PX = 11.0  # JupyterLab's own text is 13 px
MAX_HEIGHT_PX = 650  # one screen of 768 px less JupyterLab's bars
LEFT_OUT = ("left out", "생략")  # a picture cut to fit one screen says what it left out
PNG_MIN_FONT_PT = None  # set from autograd_lesson.viz.dot.MIN_FONT_PT when it exists
SERVER_START_S = 90
KOREAN_SAMPLE = ("00_how_backward_works", "01_multiple_losses")  # Run All is ~1 min each

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
    """Cells showing a step-through: a widget whose static picture is its strip of frames (a
    PNG alone; a module-box picture's depth buttons come with its SVG)."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    return [i for i, cell in enumerate(nb["cells"]) if cell["cell_type"] == "code" and any(
        "application/vnd.jupyter.widget-view+json" in o.get("data", {}) and
        "image/svg+xml" not in o.get("data", {}) for o in cell.get("outputs", []))]


PICTURE = "img, svg"


def cell_pictures(page, index):
    cell = page.locator(".jp-Notebook > .jp-WindowedPanel-outer .jp-Cell, .jp-Notebook .jp-Cell").nth(index)
    return cell.locator(f".jp-OutputArea-output {PICTURE.split(',')[0]}, "
                        f".jp-OutputArea-output > svg, .jp-RenderedSVG svg, "
                        f".widget-html-content svg").count()


MEASURE_JS = r"""
([cell, plotCell, crossingsSource]) => {
  const crossings = eval(crossingsSource);  // crossings.py: text a border touches or crosses
  const rows = [];
  const outputs = [...cell.querySelectorAll('.jp-OutputArea-output')];
  for (const output of outputs) {
    const box = output.getBoundingClientRect();
    const pictures = [...output.querySelectorAll('svg, img')].filter(el =>
      (el.tagName.toLowerCase() === 'img' ? !plotCell : !!el.querySelector('g.graph'))
      && !(el.tagName.toLowerCase() === 'svg' && el.parentElement.closest('svg')));
    for (const el of pictures) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;  // a hidden frame
      let natural, minText = null, src = null;
      if (el.tagName.toLowerCase() === 'svg') {
        natural = el.viewBox.baseVal.width * 4 / 3;  // Graphviz draws in pt
        minText = Infinity;
        for (const t of el.querySelectorAll('text')) {
          if (!t.textContent.trim()) continue;
          const size = parseFloat(t.getAttribute('font-size') || getComputedStyle(t).fontSize);
          const m = t.getScreenCTM();
          minText = Math.min(minText, size * Math.hypot(m.a, m.b));
        }
      } else {
        natural = el.naturalWidth;
        src = el.getAttribute('src');
      }
      let clipped = r.left < box.left - 1 || r.right > box.right + 1;
      for (let a = el.parentElement; a && a !== output.parentElement; a = a.parentElement) {
        if (a.scrollWidth > a.clientWidth + 1 && getComputedStyle(a).overflowX !== 'visible') clipped = true;
      }
      const leftOut = el.tagName.toLowerCase() === 'svg' &&
        /left out|생략/.test(el.textContent);
      rows.push({kind: el.tagName.toLowerCase(), natural, shown: r.width, height: r.height,
                 area: box.width, minText, clipped, src, leftOut, crossed: crossings(el)});
    }
  }
  return rows;
}
"""


def png_text_info(src):
    """(smallest font in pt, pixels per pt) from a PNG's tEXt chunks ('autograd-lesson-min-pt',
    'autograd-lesson-px-per-pt'); without them Graphviz's defaults: 10 pt text at 96 dpi."""
    import base64
    import struct
    info = {}
    if src and src.startswith("data:image/png;base64,"):
        data = base64.b64decode(src.split(",", 1)[1])
        pos = 8
        while pos + 8 <= len(data):
            length, kind = struct.unpack(">I4s", data[pos:pos + 8])
            if kind == b"tEXt":
                key, _, value = data[pos + 8:pos + 8 + length].partition(b"\0")
                info[key.decode("latin-1")] = value.decode("latin-1")
            if kind == b"IDAT":
                break
            pos += 12 + length
    frame = info.get("autograd-lesson-frame-height-px")
    return (float(info.get("autograd-lesson-min-pt", 10)),
            float(info.get("autograd-lesson-px-per-pt", 96 / 72)),
            float(frame) if frame else None)


def svg_text_info(src):
    """(viewBox width, smallest font-size, is a Graphviz graph) of an SVG data URI."""
    import base64
    import re
    import urllib.parse
    head, _, body = src.partition(",")
    text = base64.b64decode(body).decode("utf-8") if head.endswith(";base64") else \
        urllib.parse.unquote(body)
    box = re.search(r'viewBox="[\d.-]+ [\d.-]+ ([\d.]+) [\d.]+"', text)
    sizes = [float(v) for v in re.findall(r'font-size="([\d.]+)"', text)]
    return (float(box.group(1)) if box else 1.0, min(sizes) if sizes else 0.0,
            'class="graph"' in text, any(word in text for word in LEFT_OUT))


def measure_pictures(page, cells, path, phase, screen_height, only=None):
    """One legibility row per graph picture of the notebook (of cells ``only``, if given);
    the problems found."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    rows, problems = [], []
    for index, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code" or only is not None and index not in only:
            continue
        plot_cell = any("<Figure" in "".join(o.get("data", {}).get("text/plain", ""))
                        for o in cell.get("outputs", []))
        handle = cells.nth(index).element_handle()
        for k, m in enumerate(page.evaluate(MEASURE_JS, [handle, plot_cell,
                                                         f"({CROSSINGS_JS})"])):
            if m["kind"] == "img" and (m["src"] or "").startswith("data:image/svg+xml"):
                m["kind"] = "svg-img"  # JupyterLab shows an SVG output as <img src=data:...>
                view_width, min_size, is_graph, m["leftOut"] = svg_text_info(m["src"])
                if not is_graph:
                    continue
                m["natural"] = view_width * 4 / 3
                m["minText"] = min_size * m["shown"] / max(view_width, 1)
            elif m["kind"] == "img":
                min_pt, px_per_pt, frame_height = png_text_info(m["src"])
                m["minText"] = min_pt * px_per_pt * m["shown"] / max(m["natural"], 1)
                if frame_height:  # the static frames of a step-through: each one must fit
                    m["kind"] = "frames-png"
                    m["height"] = frame_height * m["shown"] / max(m["natural"], 1)
            scale = m["shown"] / max(m["natural"], 1)
            short = []
            if m["minText"] < MIN_TEXT_PX:
                short.append(f"text {m['minText']:.1f} px < {MIN_TEXT_PX:g}")
            if m["clipped"]:
                short.append("cut off")
            if m["height"] > MAX_HEIGHT_PX + 1:  # +1: a PNG's rows are whole pixels
                short.append(f"{m['height']:.0f} px tall > {MAX_HEIGHT_PX}")
            if m["crossed"]:
                short.append(f"text on a border: {describe(m['crossed'])}")
            stem = ("ko-" if path.parent.name == "ko" else "") + path.stem
            rows.append([stem, phase, str(index), str(k), m["kind"], f"{m['natural']:.0f}",
                         f"{m['shown']:.0f}", f"{m['area']:.0f}", f"{scale:.2f}",
                         f"{m['minText']:.1f}", f"{m['height']:.0f}",
                         "yes" if m["clipped"] else "no",
                         "yes" if m.get("leftOut") else "no", str(len(m["crossed"])),
                         "; ".join(short) or "ok"])
            if short:
                problems.append(f"{phase} cell {index} picture {k}: " + ", ".join(short))
    return rows, problems


LEGIBILITY_HEADER = ["notebook", "phase", "cell", "picture", "kind", "natural_px", "shown_px",
                     "area_px", "scale", "min_text_px", "height_px", "clipped", "left_out",
                     "crossings", "verdict"]


def open_file_browser(page):
    if not page.locator("#filebrowser").is_visible():
        page.locator(".jp-SideBar li[data-id='filebrowser']").first.click()
        page.locator("#filebrowser").wait_for(state="visible", timeout=10_000)


def run_all(page):
    """Run > Run All Cells through the menus, then wait until every prompt is numbered and the
    kernel is idle (a condition, never a fixed sleep)."""
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator("li[data-command='runmenu:run-all']").click()
    page.wait_for_function(
        """() => {
            const prompts = [...document.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt')];
            const status = document.querySelector('.jp-Notebook-ExecutionIndicator');
            return prompts.length > 0 && prompts.every(p => /\\[\\d+\\]/.test(p.innerText))
                && status && status.getAttribute('data-status') === 'idle';
        }""", timeout=RUN_TIMEOUT_MS)


def check_notebook(page, base, name, path, legibility):
    problems = []
    graphs = stored_graph_cells(path)
    page.goto(f"{base}/lab/tree/{name}?reset")  # ?reset: a fresh workspace, only this notebook
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    page.wait_for_function(
        "() => document.querySelectorAll('.jp-Notebook .jp-Cell').length >= %d"
        % len(json.loads(path.read_text())["cells"]), timeout=60_000)
    open_file_browser(page)
    cells = page.locator(".jp-Notebook .jp-Cell")
    for index in graphs:  # the untrusted case: stored outputs alone must show the pictures
        images = cells.nth(index).locator(".jp-OutputArea-output img, .widget-html-content svg")
        try:
            images.first.wait_for(state="visible", timeout=20_000)
        except Exception:
            problems.append(f"cell {index}: stored graph not shown as a picture before running")
    page.wait_for_function("() => [...document.images].every(i => i.complete)", timeout=30_000)
    rows, short = measure_pictures(page, cells, path, "stored", VIEWPORT["height"])
    legibility += rows
    problems += short
    # kernel ready, then Run > Run All Cells through the menus
    page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=90_000)
    run_all(page)
    errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.error'],"
                          " .jp-OutputArea-output.jp-mod-error")
    if errors.count():
        problems.append(f"{errors.count()} cell(s) show an error: "
                        + errors.first.inner_text()[:300])
    for index in graphs:
        rendered = cells.nth(index).locator(".jp-OutputArea-output svg, .jp-OutputArea-output img")
        if rendered.count() == 0:
            problems.append(f"cell {index}: graph not rendered after running")
    page.wait_for_function("() => [...document.images].every(i => i.complete)", timeout=30_000)
    rows, short = measure_pictures(page, cells, path, "run", VIEWPORT["height"])
    legibility += rows
    problems += short
    for k, index in enumerate(slider_cells(path)):
        shot = SHOTS / f"{shot_name(name)}-steps.png" if k == 0 else None
        SHOTS.mkdir(parents=True, exist_ok=True)
        problems += move_slider(page, cells.nth(index), index, shot)
    for k, index in enumerate(depth_cells(page)):
        shot = f"{shot_name(name)}-depth" if k == 0 else None
        rows, short = move_depths(page, cells, index, path, shot)
        legibility += rows
        problems += short
    if name.startswith("ko/"):
        problems += hangul_problems(page, cells)
        feedback = page.locator(".jp-OutputArea-output pre", has_text="✓ 정답입니다").first
        if feedback.count():  # the checkers' Korean feedback, for the closing note
            feedback.scroll_into_view_if_needed()
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SHOTS / f"{shot_name(name)}-feedback.png"))
        else:
            problems.append("no checker printed '✓ 정답입니다' (the Korean '✓ correct')")
    SHOTS.mkdir(parents=True, exist_ok=True)
    if graphs:  # the screenshot shows the lesson's first graph, as rendered after the run
        cells.nth(graphs[0]).scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"{shot_name(name)}.png"), full_page=True)
    return problems


HANGUL_GLYPHS_JS = """([family, texts]) => {
    // Draw each string in the given CSS font family; a missing glyph draws as the same empty
    // box ("tofu") as a code point no font has, so three syllables must give three different
    // pictures, none of them that box.
    const draw = (text) => {
        const canvas = document.createElement('canvas');
        canvas.width = 64; canvas.height = 40;
        const g = canvas.getContext('2d');
        g.font = `28px ${family}`;
        g.fillText(text, 4, 30);
        return Array.from(g.getImageData(0, 0, 64, 40).data).join(',');
    };
    const tofu = draw(String.fromCodePoint(0x10FFFD));
    const drawn = texts.map(draw);
    return {distinct: new Set(drawn).size === 3, tofu: drawn.filter(d => d === tofu).length,
            blank: drawn.filter(d => !/[1-9]/.test(d)).length};
}"""


def hangul_problems(page, cells):
    """Hangul must render with a real glyph in the fonts the page uses for it: the markdown's,
    the outputs' (monospace) and the pictures' SVG font-family."""
    problems = []
    families = page.evaluate("""() => {
        const pick = (sel) => { const e = document.querySelector(sel);
                                return e ? getComputedStyle(e).fontFamily : null; };
        // a trusted SVG output is inline; an untrusted one (as stored) is an <img> of it
        const pictures = [...document.querySelectorAll('.jp-OutputArea-output svg')];
        for (const img of document.querySelectorAll(
                '.jp-OutputArea-output img[src^="data:image/svg+xml"]')) {
            const [head, data] = img.src.split(',', 2);
            const source = head.endsWith(';base64')
                ? new TextDecoder().decode(Uint8Array.from(atob(data), c => c.charCodeAt(0)))
                : decodeURIComponent(data);
            pictures.push(new DOMParser().parseFromString(source, 'image/svg+xml').documentElement);
        }
        const svgText = pictures.flatMap(svg => [...svg.querySelectorAll('text')])
            .find(t => /[\uac00-\ud7a3]/.test(t.textContent));
        return {markdown: pick('.jp-RenderedMarkdown p'), output: pick('.jp-OutputArea-output pre'),
                picture: svgText ? (svgText.getAttribute('font-family') ||
                                    getComputedStyle(svgText).fontFamily) : null};
    }""")
    if not families["picture"]:
        problems.append("no SVG picture text with Hangul (the Korean legend) was found")
    hangul_text = page.evaluate("""() => [...document.querySelectorAll(
        '.jp-RenderedMarkdown, .jp-OutputArea-output pre')].filter(
        e => /[\uac00-\ud7a3]/.test(e.textContent)).length""")
    if hangul_text < 2:
        problems.append(f"only {hangul_text} markdown/output areas contain Hangul: is this the "
                        f"Korean notebook, run with lesson.set_language('ko')?")
    # the detector itself: code points no font has must be reported as boxes
    unassigned = page.evaluate(HANGUL_GLYPHS_JS, ["sans-serif", [chr(0xF0001), chr(0xF0002),
                                                                 chr(0xF0003)]])
    if unassigned["distinct"] and not unassigned["tofu"]:
        problems.append(f"the tofu detector does not see missing glyphs ({unassigned})")
    for where, family in families.items():
        if not family:
            continue
        family = ", ".join(f'"{f.strip()}"' if " " in f.strip() and not f.strip().startswith(
            ('"', "'")) else f.strip() for f in family.split(","))
        result = page.evaluate(HANGUL_GLYPHS_JS, [family, ["가", "변", "화"]])
        if result["tofu"] or result["blank"] or not result["distinct"]:
            problems.append(f"Hangul in the {where} font ({family}) shows no real glyph "
                            f"({result}): install a Korean font (make cjk: fonts-noto-cjk)")
    return problems


STEP_JS = r"""
([cell]) => {
  // the step-through's picture: the widget HTML holding a Graphviz SVG outside the legend
  const picture = [...cell.querySelectorAll('.widget-html-content')].find(
    el => el.querySelector('svg g.graph') && !el.closest('details'));
  const slider = cell.querySelector('.widget-slider, .widget-hslider');
  if (!picture || !slider) return null;
  const svg = picture.querySelector('svg');
  let minText = Infinity;
  for (const t of svg.querySelectorAll('text')) {
    if (!t.textContent.trim()) continue;
    const m = t.getScreenCTM();
    minText = Math.min(minText, parseFloat(t.getAttribute('font-size')) * Math.hypot(m.a, m.b));
  }
  // the node the step is about: the box filled in the "running now" orange, or in the pink
  // of "backward failed here" when the step is the one that raised (06: 2 steps, the 2nd fails)
  const now = [...svg.querySelectorAll('g.node')].find(
    g => g.querySelector('[fill="#f0a030"], [fill="#e8a0d0"]'));
  const rect = el => { const r = el.getBoundingClientRect();
                       return {top: r.top, bottom: r.bottom}; };
  const scroller = cell.closest('.jp-WindowedPanel-outer, .jp-Notebook');
  return {html: picture.innerHTML.length + ':' + picture.innerHTML.slice(-400),
          minText, slider: rect(slider), node: now ? rect(now) : null,
          view: rect(scroller)};
}
"""


def step_state(page, cell):
    return page.evaluate(STEP_JS, [cell.element_handle()])


def move_slider(page, cell, index, shot):
    """Drag the step-through's handle (the picture must change before it is let go), then
    check the running node is on screen with the slider and the whole graph is legible."""
    handle = cell.locator(".widget-slider .noUi-handle, .widget-hslider .noUi-handle").first
    try:
        handle.wait_for(state="visible", timeout=30_000)
    except Exception:
        return [f"cell {index}: the step-through slider did not appear"]
    problems = []
    cell.locator(".widget-slider, .widget-hslider").first.evaluate(
        "el => el.scrollIntoView({block: 'start'})")
    before = step_state(page, cell)
    box = handle.bounding_box()
    track = cell.locator(".widget-slider .noUi-target, .widget-hslider .noUi-target").first
    width = track.bounding_box()["width"]
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] / 2 + width * 0.55, box["y"] + box["height"] / 2,
                    steps=8)
    try:  # still held down: an 'input' event (continuous update) must have moved the frame
        page.wait_for_function(f"([cell, old]) => ({STEP_JS})([cell]).html !== old",
                               arg=[cell.element_handle(), before["html"]], timeout=30_000)
    except Exception:
        problems.append(f"cell {index}: the picture did not follow the slider while dragged")
    page.mouse.up()
    page.wait_for_timeout(1500)  # the last frame the drag asked for arrives
    cell.locator(".widget-slider, .widget-hslider").first.evaluate(
        "el => el.scrollIntoView({block: 'start'})")
    state = step_state(page, cell)
    view = state["view"]
    if state["node"] is None:
        problems.append(f"cell {index}: no running node in the step-through's picture")
    elif not (view["top"] - 2 <= state["slider"]["top"] and
              state["node"]["bottom"] <= view["bottom"] + 2 and
              state["node"]["top"] >= view["top"] - 2):
        problems.append(f"cell {index}: the running node ({state['node']['top']:.0f}–"
                        f"{state['node']['bottom']:.0f} px) and the slider "
                        f"({state['slider']['top']:.0f} px) are not on one screen "
                        f"({view['top']:.0f}–{view['bottom']:.0f} px)")
    if state["minText"] < MIN_TEXT_PX:
        problems.append(f"cell {index}: step-through text {state['minText']:.1f} px")
    if shot:
        page.screenshot(path=str(shot))
    whole = cell.locator(".widget-toggle-button").first
    if whole.count():
        old = state["html"]
        whole.click()
        try:  # a graph with nothing folded draws the same picture: then nothing changes
            page.wait_for_function(f"([cell, old]) => ({STEP_JS})([cell]).html !== old",
                                   arg=[cell.element_handle(), old], timeout=20_000)
        except Exception:
            pass
        text = step_state(page, cell)["minText"]
        if text < MIN_TEXT_PX:
            problems.append(f"cell {index}: the whole graph draws its text at {text:.1f} px")
        whole.click()
    return problems


DEPTH_BUTTONS = ".widget-toggle-buttons"  # a module-box picture's "depth: 1 2 3" (viz/live.py)


def depth_cells(page):
    """Indices of the cells whose output has depth buttons."""
    return page.evaluate(f"""() => [...document.querySelectorAll('.jp-Notebook .jp-Cell')]
        .map((c, i) => c.querySelector('{DEPTH_BUTTONS}') ? i : -1).filter(i => i >= 0)""")


def move_depths(page, cells, index, path, shot):
    """Press each depth button of a module-box picture: the picture must change, and each
    depth is measured as every picture is (phase "depth N"); screenshots <shot>N.png."""
    cell = cells.nth(index)
    buttons = cell.locator(f"{DEPTH_BUTTONS} button")
    rows, problems = [], []
    picture = f"""(cell) => {{ const s = cell.querySelector('.widget-html-content svg');
                              return s ? s.outerHTML.length + ':' + s.textContent : ''; }}"""
    for k in range(buttons.count()):
        button = buttons.nth(k)
        old = cell.evaluate(picture)
        if "mod-active" not in (button.get_attribute("class") or ""):
            button.click()
            try:
                page.wait_for_function(f"([cell, old]) => ({picture})(cell) !== old",
                                       arg=[cell.element_handle(), old], timeout=60_000)
            except Exception:
                problems.append(f"cell {index}: depth {button.inner_text()} did not redraw")
                continue
        found, short = measure_pictures(page, cells, path, f"depth {button.inner_text()}",
                                        VIEWPORT["height"], only=[index])
        rows += found
        problems += short
        if shot:
            SHOTS.mkdir(parents=True, exist_ok=True)
            cell.locator(DEPTH_BUTTONS).evaluate("el => el.scrollIntoView({block: 'start'})")
            page.screenshot(path=str(SHOTS / f"{shot}{button.inner_text()}.png"))
    if buttons.count():
        buttons.first.click()  # back to the depth the lesson drew
    return rows, problems


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
        run_all(page)
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


def shot_name(name):
    """'00_x.ipynb' -> '00_x', 'ko/00_x.ipynb' -> 'ko-00_x'."""
    return name.removesuffix(".ipynb").replace("/", "-")


def lessons(names):
    """The notebooks to check, by name relative to notebooks/ ('ko/00_x.ipynb' for Korean)."""
    english = sorted((ROOT / "notebooks").glob("*.ipynb"))
    korean = sorted((ROOT / "notebooks" / "ko").glob("*.ipynb"))
    which = os.environ.get("E2E_KOREAN", "all")
    if names:
        wanted = lambda p, prefix="": any(n in (prefix + p.name, prefix + p.stem)  # noqa: E731
                                          for n in names)
        return [p for p in english if wanted(p)] + [p for p in korean if wanted(p, "ko/")]
    sample = korean if which == "all" else [] if which == "none" else \
        [p for p in korean if p.stem in KOREAN_SAMPLE]
    return english + sample


def main(names):
    ensure_chromium()
    from playwright.sync_api import sync_playwright
    notebooks = lessons(names)
    if not notebooks and "student-lab" not in names:
        sys.exit("e2e: no notebooks found")
    workdir = pathlib.Path(tempfile.mkdtemp(prefix="e2e-notebooks-"))
    settings = pathlib.Path(tempfile.mkdtemp(prefix="e2e-settings-"))
    for rel, content in LAB_SETTINGS.items():
        target = settings / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(content))
    for path in notebooks:
        (workdir / rel_name(path)).parent.mkdir(exist_ok=True)
        shutil.copy(path, workdir / rel_name(path))
    token = os.urandom(16).hex()
    port = free_port()
    SHOTS.mkdir(parents=True, exist_ok=True)
    log = open(SHOTS / "jupyterlab.log", "w")
    proc = None
    failures = {}
    legibility = []
    try:
        proc = start_lab(workdir, settings, port, token, log)
        base = f"http://127.0.0.1:{port}"
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS,
                                        headless=True)
            context = browser.new_context(viewport=VIEWPORT)
            login = context.new_page()
            login.goto(f"{base}/lab?token={token}")  # logs in: the token becomes a cookie
            login.wait_for_selector(".jp-LabShell", timeout=60_000)
            login.close()
            for path in notebooks:
                started = time.monotonic()
                page = context.new_page()  # one page per notebook: one notebook, one kernel
                try:
                    problems = check_notebook(page, base, rel_name(path), workdir / rel_name(path),
                                              legibility)
                except Exception as error:  # a timeout names the condition that never held
                    problems = [f"{type(error).__name__}: {str(error).splitlines()[0]}"]
                    page.screenshot(path=str(SHOTS / f"{shot_name(rel_name(path))}-failure.png"))
                page.close()
                shutdown_kernels(base, token)
                status = "ok" if not problems else "FAILED"
                print(f"e2e: {rel_name(path)}: {status} ({time.monotonic() - started:.1f} s)")
                for problem in problems:
                    print(f"      {problem}")
                if problems:
                    failures[rel_name(path)] = problems
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
    LEGIBILITY.parent.mkdir(parents=True, exist_ok=True)
    LEGIBILITY.write_text("\n".join("\t".join(r) for r in [LEGIBILITY_HEADER] + legibility)
                          + "\n", encoding="utf-8")
    print(f"e2e: {len(legibility)} pictures measured: {LEGIBILITY.relative_to(ROOT)}")
    print(f"e2e: screenshots in {SHOTS.relative_to(ROOT)}/")
    if failures:
        sys.exit(f"e2e: {len(failures)} notebook(s) failed")
    print(f"e2e: all {len(notebooks)} notebooks passed")


def rel_name(path):
    return str(path.relative_to(ROOT / "notebooks"))


if __name__ == "__main__":
    main(sys.argv[1:])
