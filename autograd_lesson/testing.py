"""A pytest helper: ``assert_clean(step, *args, **kwargs)`` fails with the audit's report.

    from autograd_lesson.testing import assert_clean

    def test_train_step_uses_the_graph_well():
        assert_clean(train_step, *make_inputs())

It runs ``lesson.audit(step, *args, **kwargs)`` (which calls the step three times on the same
arguments) and raises ``AssertionError`` whose message is the report's text when the audit
has findings, or when it could not judge the step (the step raised); otherwise it returns the
report. Works for real PyTorch steps and for the package's own engine alike.
"""
from .lesson.audit import audit

__all__ = ["assert_clean"]


def assert_clean(step, *args, **kwargs):
    """Audit ``step(*args, **kwargs)``; fail with the report's text unless it is clean."""
    __tracebackhide__ = True  # pytest shows the caller's line, not this one
    report = audit(step, *args, **kwargs)
    if report.error is not None or report.findings:
        raise AssertionError(report.text)
    return report
