"""The exercise checkers (autograd_lesson.lesson): right, wrong, partial and malformed answers.

Each answer's printed feedback is asserted exactly where it matters; a malformed answer gives one
line saying what form is wanted, never a traceback, and is not counted as an attempt. Under
grading mode (nbgrader) every answer that is not right raises AssertionError with the feedback.
"""
import pytest

import autograd_lesson as torch
from autograd_lesson import lesson
from autograd_lesson.lesson import attempts as progress, catalogue


@pytest.fixture(autouse=True)
def fresh_progress(monkeypatch):
    monkeypatch.setattr(progress, "_RECORDS", {})
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    monkeypatch.delenv("AUTOGRAD_LESSON_GRADING", raising=False)


def freed(capsys, prediction, exercise="00-freed"):
    x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
    a = x.exp()
    loss1, loss2 = a.sum(), (a * x).sum()
    lesson.check_freed(prediction, "loss2.backward()", exercise=exercise,
                       x=x, a=a, loss1=loss1, loss2=loss2)
    return capsys.readouterr().out


ANSWER = {"ExpBackward0.result", "MulBackward0.self", "MulBackward0.other"}
HINT = catalogue.EXERCISES["00-freed"].hint


def test_freed_right(capsys):
    out = freed(capsys, ANSWER)
    assert out.splitlines() == [
        "✓ correct: it freed ExpBackward0.result, MulBackward0.other, MulBackward0.self.",
        "loss2.backward(): ran"]


def test_freed_wrong_then_right_counts_attempts_and_hints_after_a_try(capsys):
    out = freed(capsys, {"MulBackward0.self"})
    assert out.splitlines() == ["✗ not quite (1st try): 2 freed buffers are missing from your set.",
                                f"hint: {HINT}"]
    assert freed(capsys, ANSWER).startswith("✓ correct, on your 2nd try: it freed")


def test_freed_partial_and_extra_does_not_reveal_the_missing_names(capsys):
    out = freed(capsys, {"ExpBackward0.result"})
    assert "MulBackward0" not in out and "2 freed buffers are missing" in out
    out = freed(capsys, set())
    assert "3 freed buffers are missing" in out and "ExpBackward0" not in out


def test_freed_same_wrong_answer_again_is_the_same_try(capsys):
    assert freed(capsys, set()) == freed(capsys, set())


@pytest.mark.parametrize("answer, line", [
    (3, '✗ answer with a set of "Node.slot" names, such as {"PowBackward0.self"} '
        "(set() if nothing is freed). You gave int."),
    (None, '✗ answer with a set of "Node.slot" names, such as {"PowBackward0.self"} '
           "(set() if nothing is freed). You gave NoneType."),
    ("ExpBackward0.result", '✗ put the names in a set: {"ExpBackward0.result"}, not a bare string '
                            "(a string is read letter by letter)."),
    ({"ExpBackward0"}, '✗ "ExpBackward0" names no slot: write "NodeName.slot", such as '
                       '"PowBackward0.self".'),
    ({"Foo.bar"}, "✗ there is no node Foo in this graph (check the spelling in the ledger)."),
    ({"ExpBackward0.reslt"}, "✗ ExpBackward0 has no slot 'reslt': its slots are result."),
    (["ExpBackward0.result", "ExpBackward0.result"],
     '✗ the question asks for a set: write the names in curly braces, {"ExpBackward0.result"}, '
     "not in a list (a set has no order and no repeats)."),
    ({}, "✗ {} is an empty dict: write set() for 'nothing is freed'."),
])
def test_freed_malformed_is_one_line_and_no_attempt(capsys, answer, line):
    assert freed(capsys, answer) == line + "\n"
    assert progress.status("00-freed") == "not done yet"


def test_a_slot_its_node_has_but_did_not_save_here_is_a_wrong_try(capsys):
    """A real slot of the node's type that this graph did not save is an answer (a wrong one,
    counted): its reply does not list what the node saved, which would give the answer away."""
    x = torch.randn(2, 3, requires_grad=True)
    y = torch.nn.functional.linear(x, torch.randn(4, 3), torch.randn(4))  # saves mat2 only
    loss = y.sum()
    lesson.check_freed({"AddmmBackward0.mat1"}, "loss.backward()", exercise="04-freed",
                       x=x, y=y, loss=loss)
    out = capsys.readouterr().out
    assert out.startswith("✗ not quite (1st try): AddmmBackward0.mat1 is not freed;")
    assert "mat2" not in out and progress.status("04-freed") == "not yet right (1 try)"


def test_not_done(capsys):
    assert freed(capsys, ...) == lesson.NOT_DONE + "\n"


def raises(capsys, prediction):
    lesson.check_raises(prediction, "torch.tensor([1.0], requires_grad=True).exp().sum()"
                        ".backward(torch.ones(2))", exercise="01-raises")
    return capsys.readouterr().out


def test_raises_verdict_comes_before_the_outcome(capsys):
    out = raises(capsys, False).splitlines()
    assert out[0] == "✗ not quite (1st try): you predicted it would run."
    assert out[1].startswith("hint: ") and len(out) == 2  # the outcome is not shown on a miss
    out = raises(capsys, True).splitlines()
    assert out[0] == "✓ correct, on your 2nd try: it raises."
    assert out[1].startswith("torch.tensor([1.0], requires_grad=True).exp().sum()"
                             ".backward(torch.ones(2)): ✗ RuntimeError:")


@pytest.mark.parametrize("answer, line", [
    ("True", "✗ answer True (it raises) or False (it runs), without quotes. "
             "(the quotes make it a string)"),
    (1, "✗ answer True (it raises) or False (it runs), without quotes."),
    (None, "✗ answer True (it raises) or False (it runs), without quotes."),
])
def test_raises_malformed(capsys, answer, line):
    assert raises(capsys, answer) == line + "\n"


def which(capsys, prediction):
    lesson.check_which_raise(prediction, {"a": "1 / 0", "b": "1 + 1"}, exercise="00-which-raise")
    return capsys.readouterr().out


def test_which_raise_right_wrong_partial(capsys):
    assert which(capsys, {"a", "b"}).startswith(
        "✗ not quite (1st try): at least one of them is the other way round.\nhint: ")
    assert which(capsys, set()).startswith("✗ not quite (2nd try)")
    assert which(capsys, {"a"}).splitlines() == [
        "✓ correct, on your 3rd try: a raises.", "a: ✗ ZeroDivisionError: division by zero",
        "b: ✓ no error"]


@pytest.mark.parametrize("answer, line", [
    ("a", '✗ put the name in a set: {"a"}.'),
    ({"c"}, '✗ "c" is not one of the names: "a", "b".'),
    (True, '✗ answer with the set of the names that raise, such as {"a"} (set() if none does); '
           'the names are "a", "b".'),
    (None, '✗ answer with the set of the names that raise, such as {"a"} (set() if none does); '
           'the names are "a", "b".'),
])
def test_which_raise_malformed(capsys, answer, line):
    assert which(capsys, answer) == line + "\n"


def value(capsys, answer, expected=(21.0, -15.0, 3.0)):
    lesson.check_value(answer, list(expected), "x.grad", exercise="01-grad-sum")
    return capsys.readouterr().out


def test_value_right_wrong(capsys):
    out = value(capsys, [21, -15, 2])
    assert out.startswith("✗ not quite (1st try): x.grad is not [21, -15, 2].\nhint: ")
    assert value(capsys, [21, -15, 3]) == "✓ correct, on your 2nd try: x.grad is [21, -15, 3].\n"


@pytest.mark.parametrize("answer, line", [
    ("four", "✗ answer a list of 3 numbers, such as [0, 1, 2]."),
    (None, "✗ answer a list of 3 numbers, such as [0, 1, 2]."),
    ([1, 2], "✗ answer a list of 3 numbers, such as [0, 1, 2]; you gave a list of 2 numbers."),
    (4, "✗ answer a list of 3 numbers, such as [0, 1, 2]; you gave one number."),
    ([True, False, True], "✗ answer a list of 3 numbers, such as [0, 1, 2]."),
    (["1", "2", "3"], "✗ answer a list of 3 numbers, such as [0, 1, 2]."),
])
def test_value_malformed(capsys, answer, line):
    assert value(capsys, answer) == line + "\n"


def test_value_refuses_the_engines_own_tensor(capsys):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (x * 3).sum().backward()
    lesson.check_value(x.grad, x.grad, "x.grad", exercise="00-grad-sum")
    assert capsys.readouterr().out == ("✗ write the numbers you predict, not the engine's own "
                                       "tensor: a prediction is made before looking.\n")


def test_value_scalar_form(capsys):
    lesson.check_value("4", 4, "the version", exercise="02-version")
    assert capsys.readouterr().out == "✗ answer a number, such as 4.\n"


@pytest.mark.parametrize("expected", ["abc", None, [1, "a"], [[1], [2, 3]]])
def test_value_with_an_expected_value_that_is_no_number_says_what_to_pass(expected):
    """The exercise's author passed something that is no number: one line that says what fits
    (NumPy's "could not convert string to float" once escaped; None gave a wrong verdict)."""
    with pytest.raises(TypeError, match="^check_value: expected is the right value, a number, "
                                        "a list of numbers or a tensor, got"):
        lesson.check_value(3, expected, "x", exercise="02-version")


@pytest.mark.parametrize("variable", ["NBGRADER_EXECUTION", "AUTOGRAD_LESSON_GRADING"])
def test_grading_mode_raises_with_the_feedback(capsys, monkeypatch, variable):
    monkeypatch.setenv(variable, "autograde" if variable.startswith("NB") else "1")
    with pytest.raises(AssertionError, match="not done yet"):
        value(capsys, ...)
    with pytest.raises(AssertionError, match=r"x.grad is not \[1, 2, 3\]"):
        value(capsys, [1, 2, 3])
    with pytest.raises(AssertionError, match="answer a list of 3 numbers"):
        value(capsys, "x")
    value(capsys, [21, -15, 3])  # right: no exception


def test_progress_lists_every_exercise_of_the_lesson(capsys):
    value(capsys, [1, 1, 1])
    value(capsys, [21, -15, 3])
    raises(capsys, True)
    lesson.progress("01")
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Lesson 01: 2 of 5 done, 1 on the first try"
    assert "  ✓ x.grad after both calls: done, on the 2nd try" in out
    assert "  ✓ loss2.backward() after loss1.backward(): done, on the first try" in out
    assert "  · what loss1.backward() frees: not done yet" in out


def test_true_false_items_are_at_most_a_third():
    kinds = [e.kind for e in catalogue.EXERCISES.values()]
    assert kinds.count("raises") * 3 <= len(kinds), kinds


def test_unknown_exercise_id_says_where_to_add_it():
    with pytest.raises(KeyError, match="catalogue.py"):
        lesson.check_value(1, 1, "x", exercise="99-nope")


# -- check_step: a step the learner writes, checked by behaviour ----------------------------------
from autograd_lesson import nn  # noqa: E402

KEEP = []


def make_two_losses():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    return {"model": model, "x": torch.randn(5, 3), "y": torch.randn(5, 2)}


def article_step(model, x, y):
    out = model(x)
    loss1, loss2 = ((out - y) ** 2).mean(), out.abs().mean()
    loss1.backward(retain_graph=True)
    loss2.backward()


def summed_step(model, x, y):
    out = model(x)
    (((out - y) ** 2).mean() + out.abs().mean()).backward()


def summed_but_retained(model, x, y):
    out = model(x)
    (((out - y) ** 2).mean() + out.abs().mean()).backward(retain_graph=True)


def one_loss_only(model, x, y):
    out = model(x)
    ((out - y) ** 2).mean().backward()


def backward_twice(model, x, y):
    loss = model(x).sum()
    loss.backward()
    loss.backward()


def returns_none(model, x, y):
    return None


def not_written(model, x, y):
    ...  # YOUR ANSWER HERE


def keeps_the_graph(model, x, y):
    out = model(x)
    KEEP.append(out)
    (((out - y) ** 2).mean() + out.abs().mean()).backward(retain_graph=True)


def step(capsys, fn, **options):
    lesson.check_step(fn, article_step, make_two_losses, exercise="01-step", **options)
    return capsys.readouterr().out.splitlines()


STEP_HINT = catalogue.EXERCISES["01-step"].hint


def test_step_right(capsys):
    assert step(capsys, summed_step) == [
        "✓ correct: the same gradients and parameter values as the reference, from 1 backward "
        "call, none with a needless retain_graph, each node run once."]
    # the article's own step gets the same gradients but is told how it got them
    out = step(capsys, article_step)
    assert out[0] == ("✗ not quite (2nd try): backward #1 of its 2 calls used retain_graph=True "
                      "(this step needs none); AddmmBackward0 ran 2 times, TBackward0 ran 2 times, "
                      "TanhBackward0 ran 2 times and 2 more nodes (each node should run once).")
    assert out[1] == f"hint: {STEP_HINT}"


def test_step_retain_is_named(capsys):
    assert step(capsys, summed_but_retained)[0] == (
        "✗ not quite (1st try): backward #1 of its 1 call used retain_graph=True (this step "
        "needs none).")


def test_step_wrong_gradients_name_the_parameter(capsys):
    out = step(capsys, one_loss_only)[0]
    assert out.startswith("✗ not quite (1st try): model.0.weight.grad differs from the "
                          "reference (largest difference ")
    assert "model.2.bias.grad differs" in out


def test_step_that_raises_is_one_line(capsys):
    assert step(capsys, backward_twice) == [
        "✗ not quite (1st try): your step raised RuntimeError: Trying to backward through the "
        "graph a second time (or directly access saved tensors after they have already been "
        "freed).", f"hint: {STEP_HINT}"]


def test_step_that_returns_none_ran_no_backward(capsys):
    assert step(capsys, returns_none)[0] == "✗ not quite (1st try): it ran no backward."


def test_step_not_written_and_not_a_function(capsys):
    assert step(capsys, not_written) == [lesson.NOT_DONE]
    assert step(capsys, ...) == [lesson.NOT_DONE]
    assert step(capsys, 3) == ["✗ define a function (def ...:), not a int."]
    assert progress.status("01-step") == "not done yet"


def test_step_that_keeps_a_graph_is_told(capsys):
    KEEP.clear()
    out = step(capsys, keeps_the_graph)[0]
    KEEP.clear()
    assert "B of saved buffers are still alive after it returned" in out


def test_step_peak_limit(capsys):
    out = step(capsys, summed_step, max_peak=10)[0]
    assert out.startswith("✗ not quite (1st try): its peak of saved bytes was ")
    assert out.endswith("B, above the limit of 10 B.")
    assert step(capsys, summed_step, max_peak=10_000)[0].endswith(
        ", peak 252 B (limit 10,000 B).")


def test_step_attempts_and_grading(capsys, monkeypatch):
    step(capsys, one_loss_only)
    assert step(capsys, summed_step)[0].startswith("✓ correct, on your 2nd try:")
    monkeypatch.setenv("AUTOGRAD_LESSON_GRADING", "1")
    with pytest.raises(AssertionError, match="retain_graph=True"):
        step(capsys, summed_but_retained)
    with pytest.raises(AssertionError, match="not done yet"):
        step(capsys, not_written)
    step(capsys, summed_step)  # right: no exception


def create_graph_inputs():
    torch.manual_seed(0)
    return {"w": torch.randn(3, requires_grad=True), "x": torch.randn(3, requires_grad=True)}


def penalty_reference(w, x):
    g = torch.autograd.grad((w * x).exp().sum(), x, create_graph=True)[0]
    (g ** 2).sum().backward()


def penalty_without_create_graph(w, x):
    g = torch.autograd.grad((w * x).exp().sum(), x)[0]
    (g ** 2).sum().backward()


def test_step_create_graph_is_allowed_to_retain_and_required(capsys):
    lesson.check_step(penalty_reference, penalty_reference, create_graph_inputs,
                      exercise="05-r1", max_runs_per_node=2, create_graph=True)
    assert capsys.readouterr().out.startswith("✓ correct")
    lesson.check_step(penalty_without_create_graph, penalty_reference, create_graph_inputs,
                      exercise="05-r1", max_runs_per_node=2, create_graph=True)
    out = capsys.readouterr().out
    assert "your step raised RuntimeError: element 0 of tensors does not require grad" in out


def test_every_scenario_lesson_has_a_write_code_exercise():
    for lesson_id in ("01", "02", "03", "04", "05", "06", "07"):
        assert any(e.kind == "code" for e in catalogue.exercises_of(lesson_id)), lesson_id


def retain_every_time(model, x, y):
    out = model(x)
    for _ in range(5):
        ((out - y) ** 2).mean().backward(retain_graph=True)


def test_step_many_retains_are_listed_once(capsys):
    assert step(capsys, retain_every_time)[0].startswith(
        "✗ not quite (1st try): backward #1, backward #2, backward #3 and 2 more of its 5 calls "
        "used retain_graph=True (this step needs none); AddmmBackward0 ran 5 times")


def test_every_symbol_the_checkers_print_has_a_glyph_in_the_output_font():
    """JupyterLab prints outputs in a monospace font, DejaVu Sans Mono on the machines we set up
    (matplotlib ships it): a symbol outside it shows as an empty box (⏳ did)."""
    import pathlib

    import matplotlib
    from fontTools.ttLib import TTFont

    font = pathlib.Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSansMono.ttf"
    cmap = TTFont(font).getBestCmap()
    from autograd_lesson.i18n import messages  # the catalogue: what the checkers print lives there
    sources = [*pathlib.Path(lesson.__file__).parent.glob("*.py"), pathlib.Path(messages.__file__)]
    source = "".join(p.read_text(encoding="utf-8") for p in sources)
    english = "".join(en for en, _ in messages.MESSAGES.values())
    symbols = {ch for ch in source + english if ord(ch) > 0x2000 and not _hangul(ch)}
    assert "✎" in symbols and "✓" in symbols, "the checkers print no symbols at all?"
    assert sorted(ch for ch in symbols if ord(ch) not in cmap) == []


def _hangul(ch):
    return 0x1100 <= ord(ch) <= 0x11FF or 0x3130 <= ord(ch) <= 0x318F or 0xAC00 <= ord(ch) <= 0xD7A3


def test_every_character_of_the_korean_messages_has_a_glyph():
    """Korean output (lesson.set_language("ko")) is drawn in DejaVu Sans Mono, and Hangul, which
    it lacks, in the CJK font the machine set-up installs (Noto Sans CJK KR, found by
    fontconfig as JupyterLab's browser finds it): no character of any Korean message, hint or
    exercise title may be left without a glyph (a box)."""
    import pathlib
    import subprocess

    import matplotlib
    from fontTools.ttLib import TTCollection, TTFont

    from autograd_lesson.i18n import korean_texts, messages
    from autograd_lesson.viz.dot import CJK_FONT

    mono = TTFont(pathlib.Path(matplotlib.get_data_path()) / "fonts" / "ttf" /
                  "DejaVuSansMono.ttf").getBestCmap()
    found = subprocess.run(["fc-match", "-f", "%{file}\n%{index}\n%{family}", CJK_FONT],
                           capture_output=True, text=True).stdout.split("\n")
    assert CJK_FONT in found[2], f"fontconfig finds no {CJK_FONT} (it offers {found[2]!r}): " \
                                 f"run 'make cjk' (apt-get install fonts-noto-cjk)"
    cjk = (TTCollection(found[0]).fonts[int(found[1] or 0)] if found[0].endswith(".ttc")
           else TTFont(found[0])).getBestCmap()
    korean = "".join(ko for _, ko in messages.MESSAGES.values())
    korean += "".join(title + hint for title, hint in korean_texts.EXERCISES_KO.values())
    assert sum(map(_hangul, korean)) > 1000
    missing = sorted({ch for ch in korean if ord(ch) > 0x7F and ord(ch) not in mono
                      and ord(ch) not in cjk})
    assert missing == []
    assert sorted({ch for ch in korean if _hangul(ch) and ord(ch) not in cjk}) == []


def summed_step_reading_a_non_leaf_grad(model, x, y):
    out = model(x)
    out.grad  # a non-leaf's .grad: torch and the engine warn (UserWarning)
    (((out - y) ** 2).mean() + out.abs().mean()).backward()


def test_a_warning_of_a_right_step_is_shown_not_put_on_stderr(capsys, monkeypatch):
    """nbgrader takes anything on a test cell's stderr for a failure: the step's warning is
    a note under the verdict, and the right step stays right, under grading too."""
    monkeypatch.setenv("AUTOGRAD_LESSON_GRADING", "1")
    lesson.check_step(summed_step_reading_a_non_leaf_grad, article_step, make_two_losses,
                      exercise="01-step")
    captured = capsys.readouterr()
    out = captured.out.splitlines()
    assert out[0].startswith("✓ correct") and captured.err == ""
    assert out[-1].startswith("note: your step gave a warning: UserWarning: The .grad attribute "
                              "of a Tensor that is not a leaf Tensor is being accessed")


def test_under_grading_the_feedback_is_raised_once_without_code(capsys, monkeypatch):
    """The verdict is raised, not also printed, and IPython shows it as its lines alone (no
    checker code such as the grading-mode test, no paths)."""
    from autograd_lesson.lesson.grading import NotRight
    monkeypatch.setenv("NBGRADER_EXECUTION", "validate")
    with pytest.raises(NotRight) as error:
        value(capsys, [1, 2, 3])
    assert capsys.readouterr().out == ""
    shown = error.value._render_traceback_()
    assert shown[0].startswith("NotRight: ✗ not quite (1st try): x.grad is not [1, 2, 3]")
    assert not any(".py" in line or "grading()" in line for line in shown)


def test_which_raise_refuses_a_list(capsys):
    assert which(capsys, ["a"]) == ('✗ the question asks for a set: write the names in curly '
                                    'braces, {"a"}, not in a list (a set has no order and no '
                                    'repeats).\n')
    assert progress.status("00-which-raise") == "not done yet"


def two_forwards_two_backwards(model, x, y):
    ((model(x) - y) ** 2).mean().backward()
    model(x).abs().mean().backward()


def test_one_backward_means_one_backward_call(capsys):
    """Two forward passes, each with its own backward, run every node once and free every
    buffer, and give the same gradients: still two backward calls (01's exercise)."""
    assert step(capsys, two_forwards_two_backwards)[0].startswith("✓ correct")
    out = step(capsys, two_forwards_two_backwards, max_backwards=1)
    assert out[0] == ("✗ not quite (1st try): it called backward 2 times (the exercise asks "
                      "for 1).")


def test_a_needless_retain_alone_gets_the_retain_hint(capsys):
    out = step(capsys, summed_but_retained)
    assert out[1] == ("hint: nothing runs this graph again after that backward: drop "
                      "retain_graph=True, so the backward frees the buffers as it goes.")
    assert step(capsys, one_loss_only)[1] == f"hint: {STEP_HINT}"


def test_a_checker_run_before_its_setup_cell_says_which_name_to_define():
    from autograd_lesson.lesson.grading import _name_error

    class Shell:
        user_ns = {"_ih": ["", 'lesson.check_raises(raises_b, "loss2.backward()")']}
        shown = None

        def _showtraceback(self, etype, value, stb):
            self.shown = stb

    shell = Shell()
    try:
        raises_b  # noqa: F821
    except NameError as error:
        _name_error(shell, NameError, error, error.__traceback__)
    assert shell.shown == ["✗ `raises_b` is not defined yet: run the cell that defines it first "
                           "(Run ▸ Run All Above Selected Cell runs every cell above this one), "
                           "then this cell again."]


def test_progress_survives_a_kernel_restart(capsys, monkeypatch, tmp_path):
    """The attempts are kept beside the notebook: after a restart (a fresh _RECORDS) an
    exercise taken in two tries still says so, and the same answer is still the same try."""
    monkeypatch.delenv("AUTOGRAD_LESSON_PROGRESS")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(progress, "_LOADED", set())
    value(capsys, [1, 1, 1])
    value(capsys, [21, -15, 3])
    monkeypatch.setattr(progress, "_RECORDS", {})  # a new kernel
    monkeypatch.setattr(progress, "_LOADED", set())
    assert progress.status("01-grad-sum") == "done, on the 2nd try"
    assert value(capsys, [21, -15, 3]).startswith("✓ correct, on your 2nd try")
    assert (tmp_path / progress.PROGRESS_FILE).exists()


def test_progress_in_a_folder_it_cannot_write_stays_in_memory(capsys, monkeypatch, tmp_path):
    monkeypatch.delenv("AUTOGRAD_LESSON_PROGRESS")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(progress, "_LOADED", set())
    (tmp_path / (progress.PROGRESS_FILE + ".tmp")).mkdir()  # writing it fails, as read-only would
    value(capsys, [1, 1, 1])
    assert progress.status("01-grad-sum") == "not yet right (1 try)"
    assert not (tmp_path / progress.PROGRESS_FILE).exists()


def test_no_progress_file_under_grading(capsys, monkeypatch, tmp_path):
    monkeypatch.delenv("AUTOGRAD_LESSON_PROGRESS")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    value(capsys, [21, -15, 3])
    assert not (tmp_path / progress.PROGRESS_FILE).exists()
