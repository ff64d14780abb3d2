"""The PyTorch surface: what makes a call behave as PyTorch's, apart from the formulas.

Argument parsing (``parser``, fed by the one table of signatures, ``signatures``), type
promotion (``promotion``), range and shape checks with PyTorch's messages (``checks``),
warn-once flags (``warn_once``), and the entry points that parse a call's arguments and then
apply a node of ``autograd_lesson.ops``. The core (engine, Node,
Tensor, Op) does not import this layer at module level; ``Tensor``'s methods reach it at call
time.
"""
