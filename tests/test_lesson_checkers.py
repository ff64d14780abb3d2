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
    (3, '✗ answer with a set of "Node.slot" names, such as {"MulBackward0.other"} '
        "(set() if nothing is freed). You gave int."),
    (None, '✗ answer with a set of "Node.slot" names, such as {"MulBackward0.other"} '
           "(set() if nothing is freed). You gave NoneType."),
    ("ExpBackward0.result", '✗ put the names in a set: {"ExpBackward0.result"}, not a bare string '
                            "(a string is read letter by letter)."),
    ({"ExpBackward0"}, '✗ "ExpBackward0" names no slot: write "NodeName.slot", such as '
                       '"MulBackward0.other".'),
    ({"Foo.bar"}, "✗ there is no node Foo in this graph (check the spelling in the ledger)."),
    ({"ExpBackward0.reslt"}, "✗ ExpBackward0 has no saved slot 'reslt' (it saves result)."),
    ({}, "✗ {} is an empty dict: write set() for 'nothing is freed'."),
])
def test_freed_malformed_is_one_line_and_no_attempt(capsys, answer, line):
    assert freed(capsys, answer) == line + "\n"
    assert progress.status("00-freed") == "not done yet"


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
    assert out[0] == "Lesson 01: 2 of 4 done, 1 on the first try"
    assert "  ✓ x.grad after both calls: done, on the 2nd try" in out
    assert "  ✓ loss2.backward() after loss1.backward(): done, on the first try" in out
    assert "  · what loss1.backward() frees: not done yet" in out


def test_true_false_items_are_at_most_a_third():
    kinds = [e.kind for e in catalogue.EXERCISES.values()]
    assert kinds.count("raises") * 3 <= len(kinds), kinds


def test_unknown_exercise_id_says_where_to_add_it():
    with pytest.raises(KeyError, match="catalogue.py"):
        lesson.check_value(1, 1, "x", exercise="99-nope")
