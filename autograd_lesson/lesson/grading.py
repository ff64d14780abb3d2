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


def _name_error(shell, etype, value, tb, tb_offset=None):
    """IPython's handler of a NameError: in a checker cell run before the cell that defines
    a name it uses (an answer, a setup function), one line that says to run that cell first;
    elsewhere the usual traceback."""
    from ..i18n import t
    source = (shell.user_ns.get("_ih") or [""])[-1]
    if "check_" not in source or not getattr(value, "name", None):
        shell.showtraceback((etype, value, tb), tb_offset=tb_offset)
        return None
    shell._showtraceback(etype, value, [t("order.run_first", name=value.name)])
    return None


def explain_name_errors():
    """Install :func:`_name_error` in the running IPython kernel (nothing outside one)."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover
        return
    shell = get_ipython()
    if shell is not None and getattr(shell, "kernel", None) is not None:
        shell.set_custom_exc((NameError,), _name_error)
