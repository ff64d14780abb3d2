"""Small helpers the lesson notebooks call (``from autograd_lesson import lesson``).

- :mod:`.showing`: ``show_graph``, ``show_backward``, ``expect_error``, ``step_through``;
- :mod:`.checking`: the exercise checkers ``check_freed``, ``check_raises``,
  ``check_which_raise``, ``check_value``, ``check_step`` (a step the learner writes, checked by
  behaviour) and ``report`` (for a notebook's own checker);
- :mod:`.audit`: ``audit(step, *args)``, a retain_graph doctor for one training step (either
  engine); ``show_*``, ``step_through`` and ``check_freed`` also take torch tensors;
- :mod:`.on_torch`: ``real_torch()`` (real PyTorch, or one line on how to install it),
  ``on_real_torch(program, code)`` (a lesson's program on both engines, drawn and compared) and
  ``check_audit`` (a write-code checker for a torch step, judged by ``audit``);
- :mod:`.inside_engine` (lesson 00b): ``show_code`` (an engine function's source, numbered),
  ``step_through_engine`` (a backward node by node, with the loop lines of ``run_backward`` that
  ran), ``plug`` (a piece of the engine the learner wrote, put in its place for a block) and the
  checkers ``check_engine`` (that piece on the seven scenarios of :mod:`.scenarios`, against the
  real engine) and ``check_order`` (the order a backward runs the nodes in);
- :mod:`.catalogue`: every exercise by id, with the hint shown after a wrong answer;
- :mod:`.grading`: under nbgrader, a checker that is not satisfied raises ``AssertionError``;
- :mod:`.attempts`: attempts per exercise; ``progress("01")`` prints
  "3 of 4 done, 2 on the first try";
- ``set_language("ko")``: the helpers speak Korean (``"en"``, the default; see
  :mod:`autograd_lesson.i18n`).
"""
from ..i18n import get_language, set_language
from .audit import audit
from .catalogue import EXERCISES, exercises_of
from .checking import (NOT_DONE, check_freed, check_raises, check_step, check_value,
                       check_which_raise, not_done, report)
from .attempts import progress
from .grading import explain_name_errors
from .inside_engine import check_engine, check_order, plug, show_code, step_through_engine
from .on_torch import check_audit, check_findings, on_real_torch, real_torch
from .showing import (expect_error, first_sentence, show_backward, show_graph, step_through,
                      verdict, watch)

__all__ = ["audit", "EXERCISES", "NOT_DONE", "check_audit", "check_engine", "check_findings",
           "check_freed", "check_order", "plug", "show_code", "step_through_engine",
           "check_raises", "check_step", "check_value", "check_which_raise", "exercises_of",
           "expect_error", "first_sentence", "get_language", "not_done", "on_real_torch",
           "progress", "real_torch", "report", "set_language", "show_backward", "show_graph",
           "step_through", "verdict", "watch"]

explain_name_errors()  # a checker run before its setup cell says which cell to run
