"""Grading mode: under nbgrader's autograde or validate, a checker that is not satisfied raises
its feedback (:class:`NotRight`, an ``AssertionError``) instead of printing it, so
``nbgrader validate`` tells a student which exercises are not right yet. In a learner's
notebook the checkers only print.

This mode only decides what the kernel shows. The points of ``make course``'s autograde come
from :mod:`autograd_lesson.course.hidden_tests`, in nbgrader's own process: code in the
notebook that pops the variable, replaces ``lesson`` or patches a checker silences this
module and nothing more (and is flagged there).

nbgrader's execute preprocessor sets ``NBGRADER_EXECUTION`` ("autograde" or "validate") in
the kernel's environment; ``AUTOGRAD_LESSON_GRADING=1`` forces the mode (for tests).
"""
import os


class NotRight(AssertionError):
    """A checker's verdict under grading. IPython shows it as its message alone: no lines of
    the checker's code, no paths (``_render_traceback_``)."""

    def _render_traceback_(self):
        return [f"{type(self).__name__}: {line}" if i == 0 else line
                for i, line in enumerate(str(self).splitlines())]


def grading():
    return bool(os.environ.get("NBGRADER_EXECUTION")) or \
        os.environ.get("AUTOGRAD_LESSON_GRADING") == "1"


def fail_if_grading(feedback):
    """Raise ``feedback`` under grading; else return it, for the caller to print."""
    if grading():
        raise NotRight(feedback) from None
    return feedback
