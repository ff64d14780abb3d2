"""The language the lesson helpers speak: ``lesson.set_language("ko")`` (``"en"`` is the default).

The state lives here and only here; :mod:`.messages` is the one catalogue (the lesson helpers'
and the graph view's), each message an ``(English, Korean)`` pair of ``str.format`` templates
under a stable key, so a test can check that every English message has a Korean twin with the
same fields. What stays English in every language: the ledgers and diffs (the text twins nbval
and the cross-engine tests compare), state labels (ALIVE, FREED, RETAINED, STALE), node and
slot names, and the error messages quoted from PyTorch.
"""
import re

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


def localize(text):
    """A label or feedback line from a lesson's code cell (the same cell in both editions), in
    the current language: its Korean form from the catalogue's LABELS_KO or FEEDBACK_KO, else
    ``text`` unchanged (a learner's own label, or English)."""
    if not korean() or not isinstance(text, str):
        return text
    from .korean_texts import FEEDBACK_KO, LABELS_KO
    if text in LABELS_KO:
        return LABELS_KO[text]
    for pattern, template in FEEDBACK_KO:
        found = re.fullmatch(pattern, text)
        if found:
            return template.format(*found.groups())
    return text


def exercise_text(exercise):
    """(title, hint) of a catalogue entry in the current language."""
    if korean():
        from .korean_texts import EXERCISES_KO
        return EXERCISES_KO[exercise.id]
    return exercise.title, exercise.hint
