"""Families of program vocabulary, one module each, found here by name (no list to edit).

A family module may define any of:

- ``EXPRESSIONS``: composite strategies ``f(draw, names) -> str``, an expression over the
  tensors named so far (its value becomes the next tensor ``tN``);
- ``STATEMENTS``: composite strategies ``f(draw, names) -> list[str]``, lines whose value is not
  a tensor operand (``with`` blocks, hooks, assignments); names they bind are compared too;
- ``LEAVES``: composite strategies ``f(draw, name) -> str``, a line making the leaf ``name``;
- ``ENDINGS``: lists of lines, ``{y}`` standing for the last tensor;
- ``IGNORED``: names a family's lines bind that are not outcomes (a hook handle, a helper).
"""
import importlib
import pkgutil

EXPRESSIONS, STATEMENTS, LEAVES, ENDINGS, IGNORED = [], [], [], [], set()

for _info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    _family = importlib.import_module(f"{__name__}.{_info.name}")
    EXPRESSIONS += getattr(_family, "EXPRESSIONS", [])
    STATEMENTS += getattr(_family, "STATEMENTS", [])
    LEAVES += getattr(_family, "LEAVES", [])
    ENDINGS += getattr(_family, "ENDINGS", [])
    IGNORED |= set(getattr(_family, "IGNORED", ()))
