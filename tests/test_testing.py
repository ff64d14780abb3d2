"""autograd_lesson.testing.assert_clean: passes on a clean step, fails with the report's text."""
import subprocess
import sys
import textwrap

import pytest

import autograd_lesson as al
from autograd_lesson import lesson
from autograd_lesson.testing import assert_clean


def two_backwards(torch):
    def step(w, x):
        h = (w * x).exp()
        h.sum().backward(retain_graph=True)
        (h * 2).sum().backward()
    return step


def summed(torch):
    def step(w, x):
        h = (w * x).exp()
        (h.sum() + (h * 2).sum()).backward()
    return step


def test_clean_step_passes_and_returns_the_report(lib):
    w, x = lib.ones(3, requires_grad=True), lib.ones(3)
    report = assert_clean(summed(lib), w, x=x)
    assert report.findings == [] and report.error is None


def test_a_step_with_findings_fails_with_the_report(lib):
    step = two_backwards(lib)
    with pytest.raises(AssertionError) as failure:
        assert_clean(step, lib.ones(3, requires_grad=True), lib.ones(3))
    expected = lesson.audit(step, lib.ones(3, requires_grad=True), lib.ones(3))
    assert [f.kind for f in expected.findings] == ["double-traversal"]
    assert str(failure.value) == expected.text


def test_a_step_that_raises_fails_with_the_audits_line():
    def step():
        raise KeyError("batch")
    with pytest.raises(AssertionError, match=r"^✗ step raised KeyError: 'batch' \(make it run"):
        assert_clean(step)
    with pytest.raises(AssertionError, match="takes the step as a function"):
        assert_clean(al.ones(1))


def test_pytest_shows_the_callers_line(tmp_path):
    (tmp_path / "test_step.py").write_text(textwrap.dedent("""
        import autograd_lesson as torch
        from autograd_lesson.testing import assert_clean

        def step(w):
            w.exp().sum().backward(retain_graph=True)

        def test_step():
            assert_clean(step, torch.ones(2, requires_grad=True))
        """))
    result = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-o",
                             "addopts=", "test_step.py"], cwd=tmp_path, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 1 and "1 failed" in result.stdout
    assert "AssertionError: audit of step: 1 backward call, 1 finding" in result.stdout
    assert "unused-retain" in result.stdout and "def assert_clean" not in result.stdout
    assert "assert_clean(step, torch.ones(2, requires_grad=True))" in result.stdout
