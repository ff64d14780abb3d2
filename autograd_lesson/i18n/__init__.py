"""The language the lesson helpers speak: ``lesson.set_language("ko")`` (``"en"`` is the default).

The state lives here and only here; :mod:`.messages` is the one catalogue (the lesson helpers'
and the graph view's), each message an ``(English, Korean)`` pair of ``str.format`` templates
under a stable key, so a test can check that every English message has a Korean twin with the
same fields. What stays English in every language: the ledgers and diffs (the text twins nbval
and the cross-engine tests compare), state labels (ALIVE, FREED, RETAINED, STALE), node and
slot names, and the error messages quoted from PyTorch.
"""
LANGUAGES = ("en", "ko")
_state = {"language": "en"}


def set_language(language):
    """Make the lesson helpers (checkers, hints, verdicts, audit, pictures) speak ``language``:
    ``"en"`` (the default) or ``"ko"``."""
    if language not in LANGUAGES:
        raise ValueError(f"set_language() takes one of {', '.join(map(repr, LANGUAGES))}, "
                         f"got {language!r}")
    _state["language"] = language


def get_language():
    return _state["language"]


def korean():
    return _state["language"] == "ko"


def t(key, /, **fields):
    """The message ``key`` in the current language, formatted with ``fields``."""
    from .messages import MESSAGES
    english, other = MESSAGES[key]
    return (other if korean() else english).format(**fields)


def exercise_text(exercise):
    """(title, hint) of a catalogue entry in the current language."""
    if korean():
        from .messages import EXERCISES_KO
        return EXERCISES_KO[exercise.id]
    return exercise.title, exercise.hint
