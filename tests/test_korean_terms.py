"""The Korean edition speaks one terminology: the glossary's (notebooks/ko/README.md "용어집").

For each concept the glossary picks one Korean term; the variants it rules out (에러, 채점기, 시간
스텝, 단계별 보기, a bare English "backward" inside a Korean sentence …) fail this test wherever they
appear in Korean prose: the markdown cells of ``notebooks/ko/*.ipynb``, ``notebooks/ko/README.md``,
``README.ko.md`` and the Korean texts of the helpers' message catalogue (``i18n/messages.py``). Code,
article titles 「…」, quoted words "…" (the articles' own words) and the glossary's column of reasons
(which names the variants it rules out) are not prose. The helpers' Korean sentences carry no
English label: each label a lesson's code cell passes in has a Korean form (``i18n.localize``).
"""
import ast
import hashlib
import pathlib
import re

import nbformat
import pytest

from autograd_lesson import i18n
from autograd_lesson.i18n import korean_texts as _korean, messages as _messages
from autograd_lesson.lesson.attempts import nth_ko
from autograd_lesson.viz.dot import HANGUL

ROOT = pathlib.Path(__file__).resolve().parents[1]
KOREAN_NOTEBOOKS = sorted((ROOT / "notebooks" / "ko").glob("*.ipynb"))
READMES = [ROOT / "notebooks" / "ko" / "README.md", ROOT / "README.ko.md"]
HANGUL_CHAR = "\uac00-\ud7a3"

# variant (regex) -> the glossary's term, and a sentence that uses the variant (to show the check
# finds it)
BANNED = {
    r"에러": ("오류", "두 번째 역전파가 에러를 냅니다."),
    r"채점기": ("검사기", "채점기가 답을 비교합니다."),
    r"(?<!이 )저장소(?! 최상위)": ("스토리지 (저장소는 git 저장소에만)", "저장소마다 한 번 셉니다."),
    r"참조 스텝": ("기준 스텝", "참조 스텝과 다릅니다."),
    r"간직": ("보관하다 / 유지하다", "숫자를 간직하세요."),
    r"에포크": ("에폭", "에포크가 끝날 때"),
    r"자리 표시자": ("자리표시자", "자리 표시자를 넣습니다."),
    r"시간 스텝|타임 ?스텝": ("시점", "매 시간 스텝마다"),
    r"역추적": ("트레이스백", "위쪽의 역추적이"),
    r"저장값": ("저장된 텐서", "그 저장값을 해제했습니다."),
    r"그래디언트|기울기": ("변화도", "기울기가 누적됩니다."),
    r"단계별\s*(로\s*)?보기|단계 슬라이더|\d+단계 중": ("한 노드씩 보기 / 프레임", "**단계별로 보기.**"),
    r"이\(가\)|을\(를\)|은\(는\)|와\(과\)|\(으\)로": ("the particle the word takes", "x이(가) 다릅니다"),
    r"(?<![\w*])\d+번째": ("첫 번째, 두 번째 … (ordinals in words)", "2번째 시도"),
    # the pass is 역전파, the call `backward()`: an English "backward" beside Korean words, but
    # for a call's number (backward #2, as audit prints it) and for backward() itself
    (rf"[{HANGUL_CHAR}]\s+backward(?![\w(]| #)"
     rf"|(?<![\w.])backward(?=\s*[{HANGUL_CHAR}]|\(\s*[{HANGUL_CHAR}])"):
        ("역전파 / `backward()` 호출", "마지막 backward에서는 retain을 빼세요."),
}

NOT_PROSE = [re.compile(r"```.*?```", re.S), re.compile(r"`[^`\n]*`"), re.compile(r"「[^」]*」"),
             re.compile(r'"[^"]*"')]

def prose(text):
    for pattern in NOT_PROSE:
        text = pattern.sub(" ", text)
    return text


def variants(text):
    """(variant, term, excerpt) for every ruled-out variant in Korean prose ``text``."""
    found = []
    for pattern, (term, _) in BANNED.items():
        for hit in re.finditer(pattern, text):
            found.append((hit.group(0), term, text[max(0, hit.start() - 25):hit.end() + 15]))
    return found


def digest(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:6]


def notebook_findings(path):
    found = []
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type != "markdown":
            continue
        found += [f"{path.name} cell {cell.id}: {v!r} -> {term}: …{where}…"
                  for v, term, where in variants(prose(cell.source))]
    return found


def readme_findings(path):
    """The README's prose; the glossary table's third column (its reasons) names the variants."""
    found, glossary = [], False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("## "):
            glossary = line.startswith("## 용어집")
        if glossary and line.startswith("|"):
            line = "|".join(line.split("|")[:3])
        found += [f"{path.name}:{number}: {v!r} -> {term}: …{where}…"
                  for v, term, where in variants(prose(line))]
    return found


def korean_messages():
    """(key, Korean text) of everything the helpers say in Korean."""
    yield from ((key, korean) for key, (_, korean) in _messages.MESSAGES.items())
    for key, (title, hint) in _korean.EXERCISES_KO.items():
        yield f"{key} title", title
        yield f"{key} hint", hint
    yield from _korean.LABELS_KO.items()
    yield from ((pattern, korean) for pattern, korean in _korean.FEEDBACK_KO)


@pytest.mark.parametrize("path", KOREAN_NOTEBOOKS, ids=lambda p: p.name)
def test_a_korean_lesson_uses_the_glossarys_terms(path):
    assert notebook_findings(path) == []


@pytest.mark.parametrize("path", READMES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_korean_readmes_use_the_glossarys_terms(path):
    assert readme_findings(path) == []


def test_the_helpers_korean_messages_use_the_glossarys_terms():
    found = [f"{key}: {v!r} -> {term}: …{where}…" for key, text in korean_messages()
             for v, term, where in variants(text)]
    assert found == []


# -- the check can fail ------------------------------------------------------------------------
@pytest.mark.parametrize("pattern", BANNED, ids=lambda p: BANNED[p][1])
def test_each_variant_is_found_in_a_sentence_that_uses_it(pattern):
    term, sentence = BANNED[pattern]
    assert [v for v, _, _ in variants(prose(sentence))], sentence


@pytest.mark.parametrize("allowed", [
    "두 번째 역전파가 오류를 냅니다.", "`loss.backward()`를 호출합니다.", "backward #7과 backward #8은",
    "「… 연산 그래프 에러 해결 방법 7가지」", '원문 글들은 "기울기"라고 부릅니다.',
    "이 저장소 밖의 `shared/seeds/`", "이중 역전파(double backward)", "*t*번째 호출",
    "Trying to backward through the graph", "backward()를 한 번 호출하세요",
])
def test_code_titles_quotes_and_labels_are_not_flagged(allowed):
    assert variants(prose(allowed)) == []


def test_a_variant_planted_in_a_lesson_fails_the_check(tmp_path):
    source = KOREAN_NOTEBOOKS[2]
    nb = nbformat.read(source, as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == "markdown")
    cell.source += "\n\n두 번째 backward가 에러를 냅니다."
    planted = tmp_path / source.name
    nbformat.write(nb, planted)
    found = notebook_findings(planted)
    assert sorted(f.split(": ")[1].split(" -> ")[0] for f in found) == ["'backward'", "'에러'"]


def test_a_variant_planted_in_a_readme_fails_and_the_glossary_reasons_do_not(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("## 용어집\n\n| error | 오류 | 에러는 쓰지 않음 |\n\n## 다음\n\n채점기가 봅니다.\n",
                      encoding="utf-8")
    assert [f.split(": ")[1] for f in readme_findings(readme)] == ["'채점기' -> 검사기"]


# -- no English label inside a Korean sentence ---------------------------------------------------
def code_cell_labels():
    """The English labels the lessons' code cells pass to the helpers, as string constants:
    check_value's ``what``, report's right and wrong lines, plot_timeline's title and axis
    labels. (The f-string feedback of 09 and 10 is checked in the test after the next.)"""
    labels = set()
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type != "code":
                continue
            for node in ast.walk(ast.parse(cell.source)):
                if not isinstance(node, ast.Call):
                    continue
                name = getattr(node.func, "attr", getattr(node.func, "id", ""))
                texts = {"check_value": node.args[2:3], "report": node.args[2:4]}.get(name, [])
                if name == "plot_timeline":
                    texts = [k.value for k in node.keywords if k.arg in ("title", "xlabel", "ylabel")]
                labels |= {t.value for t in texts
                           if isinstance(t, ast.Constant) and isinstance(t.value, str) and t.value}
    return labels


def test_every_label_a_lesson_passes_has_a_korean_form(monkeypatch):
    labels = code_cell_labels()
    assert "x.grad after the three calls" in labels and len(labels) >= 15
    monkeypatch.setitem(i18n._state, "language", "ko")
    plain = {"x.grad", "D[2].weight._version"}  # code: the same in both languages
    missing = sorted(label for label in labels - plain if not HANGUL.search(i18n.localize(label)))
    assert missing == []


def test_localize_leaves_english_alone_and_fills_the_numbers_of_feedback(monkeypatch):
    assert i18n.localize("the peak of each iteration") == "the peak of each iteration"
    monkeypatch.setitem(i18n._state, "language", "ko")
    assert i18n.localize("the peak of each iteration") == "각 반복의 최대치"
    assert i18n.localize("peak 59,392 B, below 60,000 B, same gradients.") == \
        "최대치 59,392 B로 한도 60,000 B보다 낮고, 변화도가 같습니다."
    assert i18n.localize("it raises: RuntimeError 발생: boom") == "실행하면 RuntimeError 발생: boom"
    assert i18n.localize("my own label") == "my own label"  # a learner's label: as it is


def test_korean_ordinals_are_words_in_one_style():
    assert [nth_ko(n) for n in (1, 2, 3, 4, 10, 11, 20, 21, 35, 99, 100)] == [
        "첫 번째", "두 번째", "세 번째", "네 번째", "열 번째", "열한 번째", "스무 번째",
        "스물한 번째", "서른다섯 번째", "아흔아홉 번째", "100번째"]
