"""Small helpers the lesson notebooks call (``from autograd_lesson import lesson``).

- :mod:`.showing`: ``show_graph``, ``show_backward``, ``expect_error``, ``step_through``;
- :mod:`.checking`: the exercise checkers ``check_freed``, ``check_raises``, ``check_value``.
"""
from .checking import NOT_DONE, check_freed, check_raises, check_value
from .showing import expect_error, first_sentence, show_backward, show_graph, step_through, verdict

__all__ = ["NOT_DONE", "check_freed", "check_raises", "check_value", "expect_error",
           "first_sentence", "show_backward", "show_graph", "step_through", "verdict"]
