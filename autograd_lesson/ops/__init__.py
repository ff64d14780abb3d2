"""Built-in differentiable ops, one small ``Op`` subclass each (see ``_op.py`` for the pattern)."""
