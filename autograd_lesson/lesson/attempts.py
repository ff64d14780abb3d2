"""Progress: attempts per exercise, and the last cell's "3 of 4 done" summary.

An attempt is counted only when the answer changed since the last check, so running a cell
again with the same answer prints the same verdict (and a solved exercise stays solved).

The attempts are kept beside the notebook (``.autograd_lesson_progress.json`` in the kernel's
working folder, the notebook's), so a kernel restart does not turn a second try into a first;
in a read-only folder they stay in memory. Not kept: under grading (nbgrader), in the
lessons' own folders (``notebooks/``, the answer key that nbval runs), or with
``AUTOGRAD_LESSON_PROGRESS=off`` (the test run). The summary is shown with a display id and
redrawn after every check, so the notebook never shows "0 of 5 done" under a ✓.
"""
import hashlib
import json
import os
import pathlib

from ..i18n import exercise_text, t
from .catalogue import exercises_of
from .grading import grading

_RECORDS = {}
_LOADED = set()  # the progress files read into _RECORDS in this kernel
_SHOWN = {}  # lesson -> the display id of its summary shown last in this kernel (redrawn)
PROGRESS_FILE = ".autograd_lesson_progress.json"
LESSONS = pathlib.Path(__file__).resolve().parents[2] / "notebooks"


class Record:
    def __init__(self, attempts=0, last=None, solved_on=None):
        self.attempts = attempts
        self.last = last  # a digest of the last answer checked
        self.solved_on = solved_on  # the attempt that was right first


def _store():
    """The progress file of this kernel's folder, or None where progress is not kept."""
    if grading() or os.environ.get("AUTOGRAD_LESSON_PROGRESS") == "off":
        return None
    here = pathlib.Path.cwd().resolve()
    if here in (LESSONS, LESSONS / "ko"):
        return None
    return here / PROGRESS_FILE


def _records():
    path = _store()
    if path is not None and path not in _LOADED:
        _LOADED.add(path)
        try:
            saved = json.loads(path.read_text())
            for exercise, fields in saved.items():
                _RECORDS.setdefault(exercise, Record(**fields))
        except (OSError, ValueError, TypeError):  # none yet, or unreadable: start afresh
            pass
    return _RECORDS


def _save():
    path = _store()
    if path is None:
        return
    data = {e: vars(r) for e, r in _RECORDS.items()}
    try:
        partial = path.with_name(path.name + ".tmp")
        partial.write_text(json.dumps(data, indent=1, sort_keys=True))
        partial.replace(path)
    except OSError:  # a read-only folder: the progress lives in this kernel only
        pass


def _digest(answer_key):
    return hashlib.sha256(repr(answer_key).encode()).hexdigest()[:16]


def attempt(exercise_id, answer_key, correct):
    """Record one check of ``exercise_id``; return its Record."""
    rec = _records().setdefault(exercise_id, Record())
    key = _digest(answer_key)
    if rec.attempts == 0 or key != rec.last:
        rec.attempts += 1
        rec.last = key
    if correct and rec.solved_on is None:
        rec.solved_on = rec.attempts
    _save()
    for lesson_id, display_id in sorted(_SHOWN.items()):
        if any(e.id == exercise_id for e in exercises_of(lesson_id)):
            _show(lesson_id, display_id, update=True)
    return rec


def ordinal(n):
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


_UNITS = ("", "한", "두", "세", "네", "다섯", "여섯", "일곱", "여덟", "아홉")
_TENS = ("", "열", "스물", "서른", "마흔", "쉰", "예순", "일흔", "여든", "아흔")


def nth_ko(n):
    """'첫 번째', '두 번째', ... '스무 번째', ...: the Korean ordinal, in words up to 99 (one
    style in every sentence, so a '첫 번째' never stands beside a '2번째'), digits beyond."""
    if n == 1:
        return "첫 번째"
    if n == 20:
        return "스무 번째"
    if not 1 < n < 100:
        return f"{n}번째"
    return f"{_TENS[n // 10]}{_UNITS[n % 10]} 번째"


def status(exercise_id):
    rec = _records().get(exercise_id)
    if rec is None or rec.attempts == 0:
        return t("status.not_done")
    if rec.solved_on is None:
        return t("status.not_yet_right", n=rec.attempts,
                 tries="try" if rec.attempts == 1 else "tries")
    if rec.solved_on == 1:
        return t("status.first_try")
    return t("status.done_on", ordinal=ordinal(rec.solved_on), nth=nth_ko(rec.solved_on))


def summary(lesson_id):
    """'Lesson 01: k of n done, m on the first try' and a line per exercise."""
    exercises, records = exercises_of(lesson_id), _records()
    done = [e for e in exercises if records.get(e.id) and records[e.id].solved_on]
    first = [e for e in done if records[e.id].solved_on == 1]
    lines = [t("progress.head", lesson=lesson_id, done=len(done), n=len(exercises),
               first=len(first))]
    for e in exercises:
        mark = "✓" if e in done else "·"
        lines.append(f"  {mark} {exercise_text(e)[0]}: {status(e.id)}")
    return "\n".join(lines)


def _show(lesson_id, display_id, update=False):
    """The summary in a notebook as a display that later checks redraw; printed elsewhere."""
    try:
        from IPython import get_ipython
        from IPython.display import display, update_display
        in_kernel = getattr(get_ipython(), "kernel", None) is not None
    except ImportError:  # pragma: no cover  (IPython comes with the lessons' Jupyter)
        in_kernel = False
    if not in_kernel:
        if not update:
            print(summary(lesson_id))
        return
    shown = (update_display if update else display)
    shown({"text/plain": summary(lesson_id)}, raw=True, display_id=display_id)


def progress(lesson_id):
    """Show 'k of n done, m on the first try' and each exercise's status; in a notebook the
    lines are redrawn after every later check of the lesson's exercises."""
    # a new id each time: only the summary shown last is redrawn (a client that re-runs the
    # cell, such as nbclient, keeps no stale output under an old id)
    _SHOWN[lesson_id] = f"autograd-lesson-progress-{lesson_id}-{len(_SHOWN)}-{os.urandom(4).hex()}"
    _show(lesson_id, _SHOWN[lesson_id])
