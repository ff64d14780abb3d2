"""NumPy's floating-point error state around ops: PyTorch never warns of inf or nan, so an op's
forward and the engine's walk run under ``all="ignore"``, and user code they call (hooks,
custom Functions, observers) runs under the user's own state. The engine, ``Node`` and
``Op.apply`` import this module; it imports nothing of the package."""
import contextlib
import warnings

import numpy as np


try:  # NumPy >= 2 keeps the error state in a context variable
    from numpy._core.umath import _extobj_contextvar
except ImportError:  # pragma: no cover - older NumPy: np.errstate itself
    _extobj_contextvar = None
_derived_from = _derived = None  # the last state "ignore" was derived from, and the result
_ignoring = None  # the state the innermost switch to "ignore" set; None outside every switch
_user_states = []  # per switch in progress, innermost last: (the user's state, the outer _ignoring)


def enter_fp_ignore():
    """Enter ``np.errstate(all="ignore")`` (PyTorch never warns of inf or nan); returns what
    :func:`exit_fp_ignore` takes, None when that state is on already (an op inside an op, or
    a backward formula inside the engine's walk). The state is derived once per surrounding
    state (re-derived when the user's ``np.errstate`` changes), not built anew per op as
    ``np.errstate`` does; the user's state is remembered for :func:`call_with_user_fp_errors`."""
    global _derived_from, _derived, _ignoring
    if _extobj_contextvar is None:
        token = np.errstate(all="ignore")
        _user_states.append((np.geterr(), None))
        token.__enter__()
        return token
    state = _extobj_contextvar.get()
    if state is _ignoring:
        return None
    if state is not _derived_from:  # the user's np.errstate changed: derive "ignore" anew
        with np.errstate(all="ignore"):
            _derived = _extobj_contextvar.get()
        _derived_from = state
    _user_states.append((state, _ignoring))
    _ignoring = _derived
    return _extobj_contextvar.set(_derived)


def exit_fp_ignore(token):
    global _ignoring
    if token is None:
        return
    if _extobj_contextvar is None:
        token.__exit__(None, None, None)
        _user_states.pop()
    else:
        _extobj_contextvar.reset(token)
        _ignoring = _user_states.pop()[1]


def call_with_user_fp_errors(fn, *args):
    """Call user code (a hook, a custom Function's backward, an observer) from inside an op's
    forward or the engine's walk under the user's own error state, as if neither had changed
    it: ``np.float64(1) / 0`` raises there under ``np.errstate(divide="raise")``."""
    if _extobj_contextvar is None:
        if not _user_states:
            return fn(*args)
        outer = np.seterr(**_user_states[-1][0])
        try:
            return fn(*args)
        finally:
            np.seterr(**outer)
    if _ignoring is None or _extobj_contextvar.get() is not _ignoring:
        return fn(*args)  # (already under the user's state: user code called from user code)
    token = _extobj_contextvar.set(_user_states[-1][0])
    try:
        return fn(*args)
    finally:
        _extobj_contextvar.reset(token)


class ignore_fp_errors:
    """``with ignore_fp_errors():`` is :func:`enter_fp_ignore` .. :func:`exit_fp_ignore` (an
    op's forward gets it from ``Op.apply``)."""

    __slots__ = ("_token",)

    def __enter__(self):
        self._token = enter_fp_ignore()

    def __exit__(self, *exc):
        exit_fp_ignore(self._token)


@contextlib.contextmanager
def quiet():
    """The mean of nothing is nan in PyTorch, without NumPy's RuntimeWarnings."""
    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        yield
