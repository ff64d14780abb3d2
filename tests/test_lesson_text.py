"""The lessons' prose, checked across all notebooks (English and Korean): what a Markdown renderer
would swallow, which lesson calls itself the last, whether the source articles are named by
title, and whether the text after an exercise gives its answer away (the regressions of the
translators' report; the PyTorch claims themselves are tested in tests/test_lesson_NN.py)."""
import pathlib
import re

import nbformat
import pytest

NOTEBOOKS = pathlib.Path(__file__).resolve().parent.parent / "notebooks"
ENGLISH = sorted(NOTEBOOKS.glob("[01][0-9]*_*.ipynb"))  # 00, 00b, 01 ...
KOREAN = sorted((NOTEBOOKS / "ko").glob("[01][0-9]*_*.ipynb"))
TITLES = ("[PYTORCH] retain_graph=True 옵션이 필요한 3가지 시나리오와 연산 그래프 에러 해결 방법 7가지",
          "Pytorch - backward(retain_graph=True) (1)",
          "[PYTORCH] loss.backward() 호출 시 내부 동작 3단계와 그래디언트 에러 해결 방법 7가지")


def markdown(path):
    return [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "markdown"]


def cell(number, cell_id):
    path = next(NOTEBOOKS.glob(f"{number}_*.ipynb"))
    return next(c for c in nbformat.read(path, as_version=4).cells if c.id == cell_id)


def prose(source):
    """The text a reader sees as prose: without code blocks, code spans and math."""
    source = re.sub(r"```.*?```", "", source, flags=re.S)
    source = re.sub(r"(`+).*?\1", "", source, flags=re.S)
    return re.sub(r"\$\$.*?\$\$|\$[^$\n]*\$", "", source)


@pytest.mark.parametrize("path", ENGLISH + KOREAN, ids=lambda p: str(p.relative_to(NOTEBOOKS)))
def test_no_angle_brackets_outside_code(path):
    """Markdown reads `<node>` as an HTML tag and shows nothing: such text belongs in a code span."""
    for c in markdown(path):
        assert not re.search(r"<[^>\n]{1,40}>", prose(c.source)), (c.id, c.source)


def test_only_the_last_lesson_may_call_itself_the_last():
    for path in ENGLISH[:-1]:
        for c in markdown(path):
            assert not re.search(r"last (notebook|lesson) of the series", c.source), (path.name, c.id)
    assert "(09_saving_memory.ipynb)" in cell("08", "9e7f6e37").source


@pytest.mark.parametrize("path", ENGLISH, ids=lambda p: p.name)
def test_articles_are_named_by_title_before_they_are_called_the_article(path):
    named = False
    for c in markdown(path):
        named = named or any(t in c.source for t in TITLES)
        assert not re.search(r"\bthe tutorial\b", c.source, re.I), (c.id, "an article is not 'the tutorial'")
        if re.search(r"\bthe (source |first source )?article\b", c.source, re.I):
            assert named, (c.id, "'the article' before any article is named by its title")


@pytest.mark.parametrize("number, cell_id", [("00", "886021ea"), ("00", "6d4f385b"),
                                             ("00", "b3170c5a"), ("06", "e2fac1d7")])
def test_ambiguous_article_references_name_the_article(number, cell_id):
    assert any(t in cell(number, cell_id).source for t in TITLES)


GIVEAWAYS = [  # (lesson, cell after or beside an exercise, text that stated an exercise's answer)
    ("00", "fd9e9b18", "`x + 1`"),                                    # 00-which-raise
    ("03", "3c0b0204", "`loss2.backward()` then fails"),              # 03-which-raise (a)
    ("05", "8e2e8a59", "for any critic with nonlinearities"),         # 05-raises-a
    ("06", "990e4af2", "2(a)"),                                       # 06-raises-a
    ("06", "990e4af2", "2(b)"),                                       # 06-raises-b
    ("07", "106174e9", "like `res.sum()`"),                           # 07-raises-a
    ("08", "9e7f6e37", "still refers to the graph"),                  # 08-alive, 08-total-raises
    ("08", "9e7f6e37", "drop the graph's last reference before the next forward"),  # 08-peak
    ("09", "l09-summary-list", "once more for every extra retained backward"),      # 09-runs
    ("09", "l09-free-md", "every\nbackward recomputes again"),                       # 09-runs
]


@pytest.mark.parametrize("number, cell_id, text", GIVEAWAYS)
def test_the_text_near_an_exercise_does_not_state_its_answer(number, cell_id, text):
    assert text not in cell(number, cell_id).source
