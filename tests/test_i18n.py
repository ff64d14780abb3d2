"""The Korean edition's helpers: ``lesson.set_language`` and the one message catalogue.

The catalogue (``autograd_lesson/i18n/messages.py``) is complete (every English message, exercise
title and hint has a Korean one, with no field the English one lacks, and every key is used);
switching to Korean changes the helpers' words but never a ledger, a diff, a state label or a
quoted PyTorch error; a bad language is one ValueError naming the choices; pictures with Hangul
name the CJK font.
"""
import pathlib
import re
import string
import subprocess

import pytest

import autograd_lesson as torch
from autograd_lesson import i18n, lesson, viz
from autograd_lesson.i18n import korean_texts, messages
from autograd_lesson.lesson import attempts, catalogue
from autograd_lesson.viz.dot import CJK_FONT, FONT, HANGUL

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "autograd_lesson"
# keys built at run time: t(f"node.{style}"), t("legend." + state), t("step.what_" + c)
DYNAMIC = ("node.", "legend.", "step.what_")


@pytest.fixture(autouse=True)
def fresh_progress(monkeypatch):
    monkeypatch.setattr(attempts, "_RECORDS", {})
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    monkeypatch.delenv("AUTOGRAD_LESSON_GRADING", raising=False)


def fields(template):
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


# -- the catalogue is complete ------------------------------------------------------------------
def test_every_message_has_a_korean_text_with_no_field_the_english_lacks():
    problems = []
    for key, pair in messages.MESSAGES.items():
        if not (isinstance(pair, tuple) and len(pair) == 2 and all(pair)):
            problems.append(f"{key}: not an (English, Korean) pair")
            continue
        english, korean = pair
        if not HANGUL.search(korean):
            problems.append(f"{key}: the Korean text has no Hangul: {korean!r}")
        extra = fields(korean) - fields(english) - messages.KOREAN_ONLY_FIELDS
        if extra:
            problems.append(f"{key}: Korean uses {extra}")
    assert problems == []


def test_every_exercise_has_a_korean_title_and_hint():
    assert set(korean_texts.EXERCISES_KO) == set(catalogue.EXERCISES)
    for exercise_id, (title, hint) in korean_texts.EXERCISES_KO.items():
        assert HANGUL.search(title) and HANGUL.search(hint), exercise_id


def package_source():
    return "".join(p.read_text(encoding="utf-8") for p in PACKAGE.rglob("*.py")
                   if p != PACKAGE / "i18n" / "messages.py")


def test_every_key_used_in_the_code_is_in_the_catalogue_and_every_key_is_used():
    source = package_source()
    calls = re.findall(r"\bt\(\s*(.{0,80})", source)  # a key is a string inside a t( call
    used = {key for call in calls for key in re.findall(r"""["']([a-z_]+\.[a-z_]+)["']""", call)
            if not key.startswith(DYNAMIC)}
    assert len(used) > 80
    assert sorted(used - set(messages.MESSAGES)) == []
    unused = {k for k in messages.MESSAGES if not k.startswith(DYNAMIC)
              and f'"{k}"' not in source and f"'{k}'" not in source}
    assert sorted(unused) == []


def test_the_completeness_checks_can_fail(monkeypatch):
    monkeypatch.setitem(messages.MESSAGES, "x.y", ("{a} done", "{b} 완료"))
    with pytest.raises(AssertionError):
        test_every_message_has_a_korean_text_with_no_field_the_english_lacks()
    monkeypatch.setitem(messages.MESSAGES, "x.y", ("done", "done"))
    with pytest.raises(AssertionError):
        test_every_message_has_a_korean_text_with_no_field_the_english_lacks()
    monkeypatch.delitem(korean_texts.EXERCISES_KO, "00-freed")
    with pytest.raises(AssertionError):
        test_every_exercise_has_a_korean_title_and_hint()


# -- set_language ---------------------------------------------------------------------------------
def test_set_language_switches_and_english_is_the_default():
    assert lesson.get_language() == "en"
    lesson.set_language("ko")
    assert lesson.get_language() == "ko" and i18n.t("verdict.no_error") == "✓ 오류 없음"
    lesson.set_language("en")
    assert i18n.t("verdict.no_error") == "✓ no error"


@pytest.mark.parametrize("bad", ["fr", "KO", "", None, 1])
def test_a_bad_language_is_one_line_naming_the_choices(bad):
    with pytest.raises(ValueError) as info:
        lesson.set_language(bad)
    message = str(info.value)
    assert "\n" not in message and "'en'" in message and "'ko'" in message
    assert lesson.get_language() == "en"


# -- what Korean changes, and what it never changes ----------------------------------------------
def freed(capsys, prediction):
    x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
    a = x.exp()
    loss1, loss2 = a.sum(), (a * x).sum()
    lesson.check_freed(prediction, "loss2.backward()", exercise="00-freed",
                       x=x, a=a, loss1=loss1, loss2=loss2)
    return capsys.readouterr().out


def test_checker_feedback_and_hint_in_korean(capsys):
    lesson.set_language("ko")
    assert freed(capsys, {"ExpBackward0.result"}).splitlines() == [
        "✗ 아쉽지만 틀렸습니다(첫 번째 시도): 해제되는 버퍼 2개가 답에서 빠졌습니다.",
        "힌트: " + korean_texts.EXERCISES_KO["00-freed"][1]]
    assert freed(capsys, {"ExpBackward0.result", "MulBackward0.self",
                          "MulBackward0.other"}).splitlines() == [
        "✓ 정답입니다 (두 번째 시도): 해제된 버퍼: ExpBackward0.result, MulBackward0.other, "
        "MulBackward0.self.",
        "loss2.backward(): 실행되었습니다"]
    lesson.progress("00")
    assert capsys.readouterr().out.splitlines()[:2] == [
        "강의 00: 3개 중 1개 완료, 첫 시도에 맞힌 것 0개",
        "  ✓ loss1.backward()가 해제하는 것: 완료, 두 번째 시도에 맞힘"]
    lesson.check_raises(..., "1")
    assert capsys.readouterr().out.startswith("✎ 아직 풀지 않았습니다")


def test_grading_mode_raises_the_korean_feedback(capsys, monkeypatch):
    monkeypatch.setenv("AUTOGRAD_LESSON_GRADING", "1")
    lesson.set_language("ko")
    with pytest.raises(AssertionError, match="아쉽지만 틀렸습니다"):
        lesson.check_raises(False, "1/0", exercise="01-raises")


def test_expect_error_wraps_the_english_error_in_korean(capsys):
    lesson.set_language("ko")
    x = torch.tensor([1.0], requires_grad=True)
    loss = (x * x).sum()
    loss.backward()
    lesson.expect_error(lambda: loss.backward())
    lesson.expect_error(lambda: None)
    assert capsys.readouterr().out.splitlines() == [
        "✗ RuntimeError 발생: Trying to backward through the graph a second time (or directly "
        "access saved tensors after they have already been freed).",
        "✓ 오류 없음"]


def graph():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    return x, y, (y ** 2).sum()


def shown(capsys, language):
    lesson.set_language(language)
    x, y, loss = graph()
    lesson.show_backward("loss.backward()", x=x, y=y, loss=loss)
    x, y, loss = graph()
    lesson.show_graph("the graph", x=x, y=y, loss=loss)
    return capsys.readouterr().out.splitlines()


def test_ledgers_and_diffs_stay_english_byte_for_byte(capsys):
    english, korean = shown(capsys, "en"), shown(capsys, "ko")
    verdict = next(i for i, line in enumerate(english) if line.startswith("✓"))
    assert english[verdict] == "✓ loss.backward() ran 4 nodes"
    assert korean[verdict] == "✓ loss.backward(): 노드 4개를 실행했습니다"
    del english[verdict], korean[verdict]
    assert korean == english  # the diffs and the ledger
    assert any("FREED" in line or "freed:" in line for line in korean)


def test_audit_speaks_korean_and_keeps_the_finding_kinds():
    def step():  # a failing step: audit reports it without scanning the process's tensors
        a = torch.tensor([1.0], requires_grad=True)
        loss = (a * a).sum()
        loss.backward()
        loss.backward()
    english = str(lesson.audit(step))
    lesson.set_language("ko")
    korean = str(lesson.audit(step))
    first, second = (f"backward #{i} (test_i18n.py:{step.__code__.co_firstlineno + 2 + i} "
                     "`loss.backward()`)" for i in (1, 2))
    assert english.startswith("audit of step: 2 backward calls, 1 finding\nfreed-reuse: "
                              f"{second} failed: Trying to backward through the graph")
    assert english.splitlines()[1].endswith(f"; {first} had freed it")
    assert korean.startswith("step 진단: backward() 호출 2번, 발견된 문제 1개\nfreed-reuse: "
                             f"{second} 실패: Trying to backward through the graph")
    assert korean.splitlines()[1].endswith(f"; 앞서 {first}에서 해제되었습니다")
    assert korean.splitlines()[2].startswith("  해결: 손실을 먼저 모두 계산하고")


AUDIT_ENGLISH = {  # the words of each finding kind's message and fix, as audit prints them
    "freed-reuse": ["failed: Trying to backward through the graph a second time",
                    "had freed it", "fix: only the total gradient is used"],
    "double-traversal": ["with saved tensors ran in backward #1", ") and backward #2 (",
                         "kept for the repeat", "fix: the gradients backward #1",
                         "were not used (the optimizer step between them"],
    "unused-retain": ["of saved tensors (retain_graph=True: ", "that no later backward used",
                      "fix: drop retain_graph=True"],
    "graph-grows": ["after calls 1, 2, 3 of the step, graphs it built are still alive",
                    "fix: keep numbers, not graphs"],
    "stale-saved": ["on call 2 of the step, backward #1 (", "failed: one of the variables needed",
                    "it reached into the graph call 1 built (",
                    "fix: detach what the step carries"],
}
AUDIT_KOREAN = {
    "freed-reuse": ["실패: Trying to backward through the graph a second time",
                    "에서 해제되었습니다", "해결: 합친 변화도만 쓰입니다"],
    "double-traversal": ["저장된 텐서가 있는 노드", ") 및 backward #2 (", "에서 실행되었습니다",
                         "반복을 위해", "하위 네트워크에 남긴 변화도는 쓰이지 않았습니다"],
    "unused-retain": ["저장된 텐서", "(retain_graph=True: ", "이후의 어떤 역전파도 쓰지 않았습니다",
                      "해결: 그 backward() 호출에서 retain_graph=True를 빼세요"],
    "graph-grows": ["스텝의 첫 번째, 두 번째, 세 번째 호출이 끝난 뒤에도 스텝이 만든 그래프가 "
                    "살아 있습니다",
                    "해결: 스텝을 넘어 그래프가 아니라 숫자를 들고 가세요"],
    "stale-saved": ["스텝의 두 번째 호출에서 backward #1 (", "실패: one of the variables needed",
                    "스텝의 첫 번째 호출이 만든 그래프(", "해결: 스텝이 다음 호출로 넘기는 텐서를"],
}
WRONG_STEPS = [("multi_loss", "wrong"), ("gan", "wrong"), ("conditional", "final_retain"),
               ("running_total", "wrong"), ("rnn", "optimizer")]


@pytest.mark.parametrize("name,variant", WRONG_STEPS, ids=[f"{n}-{v}" for n, v in WRONG_STEPS])
def test_a_wrong_scenario_steps_audit_is_korean_and_english_is_unchanged(name, variant):
    """The planted finding of a wrong step of tests/scenarios.py: every word of the report in
    Korean under set_language("ko"), the same report in English before and after it; the
    kinds, node names, byte counts, lines and PyTorch's error stay as they are."""
    import re

    import scenarios
    make, variants = scenarios.AUDIT_STEPS[name]
    (kind,) = variants[variant]
    english = lesson.audit(make(torch, variant)).text
    lesson.set_language("ko")
    korean = lesson.audit(make(torch, variant)).text
    lesson.set_language("en")
    assert lesson.audit(make(torch, variant)).text == english
    assert english.startswith("audit of step: ") and f"1 finding\n{kind}: " in english
    assert korean.startswith("step 진단: backward() 호출 ") and f"발견된 문제 1개\n{kind}: " in korean
    for words in AUDIT_ENGLISH[kind]:
        assert words in english, (words, english)
        assert words not in korean, (words, korean)
    for words in AUDIT_KOREAN[kind]:
        assert words in korean, (words, korean)
    # everything but the words: the evidence is the same in both languages
    evidence = r"backward #\d+ \(scenarios\.py:\d+ `[^`]+`\)|[A-Za-z]+Backward\d(?: ×\d)?|" \
               r"[\d,]+ B|Trying to backward[^;]*|one of the variables[^;]*"
    assert re.findall(evidence, korean) == re.findall(evidence, english) != []
    assert not re.search(r"\b(?:of|the|and|it|was|were)\b", re.sub(evidence, "", korean))


def test_lesson_helpers_bad_input_lines_in_korean(capsys):
    x = torch.tensor([1.0])
    lesson.set_language("ko")
    lesson.show_graph("t", x=3)
    lesson.show_graph("t", x=x)
    lesson.show_backward(5, x=x)
    assert capsys.readouterr().out.splitlines() == [
        "✗ show_graph(): x의 타입은 텐서가 아니라 int입니다. 그릴 텐서에 이름을 붙여 넘기세요. "
        "예: show_graph(..., x=x, loss=loss)",
        "✗ show_graph(): 그릴 그래프가 없습니다: x에 변화도가 필요하지 않습니다"
        "(requires_grad=False). 입력을 requires_grad=True로 만들고, 그 입력으로 계산한 텐서에 "
        "이름을 붙여 넘기세요",
        '✗ show_backward()에는 실행할 코드를 넘기세요: "loss.backward()" 같은 문자열이나 '
        "함수입니다. 지금은 int입니다"]
    assert lesson.audit(3).text == (
        "✗ audit()에는 스텝을 함수로 넘기세요. 지금은 int입니다: 호출하지 말고 그대로 넘기세요. "
        "예: lesson.audit(train_step, batch)")


def test_picture_text_is_korean_and_names_the_cjk_font_only_then():
    x, y, loss = graph()
    snap = viz.take_snapshot([loss], {"x": x, "y": y}, title="t")
    english = viz.graph_view(snap).source
    lesson.set_language("ko")
    korean = viz.graph_view(snap).source
    assert f'fontname="{FONT}"' in english and CJK_FONT not in english
    assert f'fontname="{FONT},{CJK_FONT}"' in korean and f'fontname="{FONT}"' not in korean
    for word in ("살아 있음", "유지됨", "해제됨", "낡음", "저장된 버퍼", "● ALIVE", "○ FREED",
                 "■ RETAINED", "⚠ STALE", "MulBackward0", "_saved_other"):
        assert word in korean, word
    assert "saved, not used by a backward yet" not in korean


def test_step_through_title_and_controls_in_korean():
    from autograd_lesson.viz.steps import StepThrough
    lesson.set_language("ko")
    x, y, loss = graph()
    rec = viz.record(lambda: loss.backward(), roots=[loss], names={"x": x}, frames=True)
    steps = StepThrough(rec.frames, title="t")
    assert steps._frame_title(steps.frames[0]).startswith(f"프레임 1/{len(rec.frames)}: #")
    # the frame lines (captions and text twin) speak Korean around the names and numbers
    assert [f.text for f in steps.frames] == [
        "프레임 1: #2 SumBackward0; 받은 변화도 1",
        "프레임 2: #1 PowBackward0; 받은 변화도 [1, 1]; 해제한 버퍼 _saved_self",
        "프레임 3: #0 MulBackward0; 받은 변화도 [4, 8]; 해제한 버퍼 _saved_other",
        "프레임 4: #3 AccumulateGrad (x); 받은 변화도 [8, 16]; x.grad에 누적"]
    assert steps.text.splitlines()[0] == "t"
    lesson.set_language("en")
    assert steps.frames[3].text == "step 4: #3 AccumulateGrad (x); got grad [8, 16]; " \
                                   "accumulated into x.grad"  # English byte for byte
    lesson.set_language("ko")
    from autograd_lesson.viz.live import close as _close
    box = steps.widget()
    slider, toggle = box.children[0].children
    labels = (slider.description, toggle.description)
    _close(box)  # widgets are registered globally: leave none (and no StepThrough) alive
    assert labels == ("프레임", "전체 그래프")


# -- the font is there --------------------------------------------------------------------------
def test_fontconfig_finds_a_korean_font_and_the_cjk_font():
    """make, .ci/run, apt.txt (Binder) and environment.yml install one (fonts-noto-cjk)."""
    korean = subprocess.run(["fc-list", ":lang=ko", "family"], capture_output=True,
                            text=True).stdout
    assert korean.strip(), "no font with Hangul: run 'make cjk' (apt-get install fonts-noto-cjk)"
    assert CJK_FONT in subprocess.run(["fc-match", "-f", "%{family}", CJK_FONT],
                                      capture_output=True, text=True).stdout


def test_every_install_route_installs_the_cjk_font():
    assert "fonts-noto-cjk" in (ROOT / "apt.txt").read_text().split()
    assert re.search(r"^\s*-\s*font-ttf-noto-cjk\b", (ROOT / "environment.yml").read_text(), re.M)
    assert "fonts-noto-cjk" in (ROOT / ".ci" / "run").read_text()
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^dot: .*\bcjk\b", makefile, re.M) and "fonts-noto-cjk" in makefile


def test_a_korean_picture_renders_hangul_in_the_cjk_font():
    """Graphviz lays the text out with Pango: with the CJK font named, a Hangul title is as
    wide as that font makes it (not the zero-width or box width of a missing glyph)."""
    import graphviz
    lesson.set_language("ko")
    x, y, loss = graph()
    view = viz.graph_view(viz.take_snapshot([loss], {"x": x, "y": y}, title="가" * 40))
    try:
        svg = view.svg()
    except graphviz.ExecutableNotFound:
        pytest.skip("Graphviz's dot is not installed")
    assert f'font-family="{FONT},{CJK_FONT}"' in svg and "가" * 40 in svg


def test_graphviz_draws_hangul_with_real_glyphs_in_the_png():
    """A PNG (Graphviz through Cairo and Pango) of a Hangul label: three syllables give three
    different pictures, none of them the box a missing glyph is drawn as (the code point
    U+F0001 has a glyph in no font)."""
    from autograd_lesson.viz.render import render
    import graphviz

    def drawn(text):
        source = (f'digraph g {{ node [shape=plaintext fontname="{FONT},{CJK_FONT}" '
                  f'fontsize=28] a [label="{text}"] }}')
        try:
            return render(source, "png")
        except graphviz.ExecutableNotFound:
            pytest.skip("Graphviz's dot is not installed")
    syllables = [drawn(ch) for ch in "가변화"]
    box = drawn(chr(0xF0001))
    assert len(set(syllables)) == 3 and box not in syllables


def test_korean_cells_are_as_wide_as_the_browser_draws_the_hangul():
    """Each legend cell is given the width its text takes in the real fonts (Noto Sans CJK for
    Hangul), not what Graphviz's hinted measure says; no no-break-space padding any more."""
    from autograd_lesson.viz.fonts import text_width
    lesson.set_language("ko")
    source = viz.dot.legend_dot()
    lesson.set_language("en")
    cell = re.search(r'<TD WIDTH="(\d+)" ALIGN="LEFT">(해제됨: 역전파가 해제함)</TD>', source)
    assert cell, source
    real = text_width(cell.group(2), 10)
    assert real is not None, "no Noto Sans CJK for the measure: run 'make cjk'"
    assert real + 4 <= int(cell.group(1)) <= real + 8
    assert "&#160;" not in source


def test_timeline_plot_labels_in_korean_drawn_without_missing_glyphs():
    import warnings

    from autograd_lesson.viz.timeline import plot_timeline
    english = plot_timeline({"retain": [1, 2, 3]}).axes[0]
    assert (english.get_xlabel(), english.get_ylabel()) == ("step", "saved bytes alive (B)")
    lesson.set_language("ko")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # matplotlib warns "Glyph ... missing from font(s)"
        fig = plot_timeline({"retain": [1, 2, 3]})
        fig.canvas.draw()
    ax = fig.axes[0]
    assert (ax.get_title(), ax.get_xlabel()) == ("스텝마다의 저장된 버퍼 메모리", "스텝")


def test_show_backward_titles_the_picture_in_korean_and_the_diff_in_english(monkeypatch, capsys):
    from autograd_lesson.lesson import showing
    shown = []
    monkeypatch.setattr(showing, "display", shown.append)
    lesson.set_language("ko")
    x, y, loss = graph()
    lesson.show_backward("loss.backward()", x=x, y=y, loss=loss)
    assert "loss.backward() 호출 전 → 호출 후 (실행됨)" in shown[0].source
    assert shown[0].text.splitlines()[0] == \
        "before loss.backward() → after loss.backward() (ran)"


def test_the_static_step_through_header_has_a_font_with_hangul():
    from PIL import ImageFont

    from autograd_lesson.viz.fonts import pil_font
    font = pil_font("cjk", 13)
    assert font is not None, "fontconfig finds no CJK font for Pillow: run 'make cjk'"
    masks = {bytes(font.getmask(ch)) for ch in "가변화"}
    assert len(masks) == 3 and all(any(m) for m in masks)
    dejavu = ImageFont.truetype("DejaVuSans.ttf", 13)  # what the header would use otherwise
    assert len({bytes(dejavu.getmask(ch)) for ch in "가변화"}) == 1  # one box for all three


# -- on real PyTorch (lesson/on_torch.py) -----------------------------------------------------
def test_on_real_torch_speaks_korean_and_its_text_twin_stays_english(torch, monkeypatch, capsys):
    from autograd_lesson.lesson import on_torch
    shown = []
    monkeypatch.setattr(on_torch, "display", shown.append)

    def two_losses(torch):
        x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
        return dict(x=x, loss=(x * 2).sum())
    lesson.on_real_torch(two_losses, "loss.backward()")
    english = capsys.readouterr().out.splitlines()
    lesson.set_language("ko")
    lesson.on_real_torch(two_losses, "loss.backward()")
    korean = capsys.readouterr().out.splitlines()
    assert english[0] == f"on PyTorch {torch.__version__}:"
    assert korean[0] == f"PyTorch {torch.__version__}에서:"
    assert english[-1] == "autograd_lesson printed the same text: True"
    assert korean[-1] == "autograd_lesson이 출력한 텍스트와 같은가: True"
    verdict = next(i for i, line in enumerate(english) if line.startswith("✓"))
    assert english[verdict] == "✓ loss.backward() ran 3 nodes"
    assert korean[verdict] == "✓ loss.backward(): 노드 3개를 실행했습니다"
    assert korean[1:verdict] + korean[verdict + 1:-1] == english[1:verdict] + english[verdict + 1:-1]
    assert "loss.backward() 호출 전 → 호출 후 (실행됨)" in shown[-1].source
    lesson.on_real_torch(lambda torch: [torch.ones(1)], "pass")
    assert capsys.readouterr().out.startswith("<lambda>(torch)는 dict(x=x, loss=loss)처럼")
    with pytest.raises(TypeError, match="호출을 담은 문자열"):
        lesson.on_real_torch(two_losses, None)


def test_real_torch_without_torch_says_how_to_install_in_korean(monkeypatch, capsys):
    import sys
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch raises ImportError
    lesson.set_language("ko")
    assert lesson.real_torch() is None
    assert capsys.readouterr().out == (
        "torch가 설치되어 있지 않아 이 선택 부분을 건너뜁니다: 셀에서 %pip install torch==2.13.0 "
        "--index-url https://download.pytorch.org/whl/cpu로 CPU 빌드를 설치한 뒤 커널을 다시 "
        "시작하세요.\n")


def test_the_audit_checkers_speak_korean(torch, capsys):
    from autograd_lesson.lesson import on_torch

    def step():
        a = torch.tensor([1.0], requires_grad=True)
        (a * a).sum().backward()
    lesson.set_language("ko")
    on_torch.check_findings("double-traversal", step, exercise="11-kinds")
    assert capsys.readouterr().out == '✗ 종류를 집합에 넣어 {"double-traversal"}처럼 쓰세요.\n'
    on_torch.check_findings({"typo"}, step, exercise="11-kinds")
    assert capsys.readouterr().out.startswith('✗ "typo"는 발견된 문제의 종류가 아닙니다. 종류: ')
    on_torch.check_findings({"unused-retain"}, step, exercise="11-kinds")
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "✗ 아쉽지만 틀렸습니다(첫 번째 시도): 빠졌거나 더 들어간 종류가 있습니다."
    assert out[1] == "힌트: " + korean_texts.EXERCISES_KO["11-kinds"][1]
