"""Grading mode: under nbgrader's autograde or validate, a checker that does not print
'✓ correct' raises ``AssertionError`` with its feedback, so points come only from right
answers. In a learner's notebook the checkers only print.

nbgrader's execute preprocessor sets ``NBGRADER_EXECUTION`` ("autograde" or "validate") in
the kernel's environment; ``AUTOGRAD_LESSON_GRADING=1`` forces the mode (for tests).
"""
import os


def grading():
    return bool(os.environ.get("NBGRADER_EXECUTION")) or \
        os.environ.get("AUTOGRAD_LESSON_GRADING") == "1"


def fail_if_grading(feedback):
    if grading():
        raise AssertionError(feedback)
