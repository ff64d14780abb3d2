"""Progress: attempts per exercise in this kernel, and the last cell's "3 of 4 done" summary.

An attempt is counted only when the answer changed since the last check, so running a cell
again with the same answer prints the same verdict (and a solved exercise stays solved).
"""
from ..i18n import exercise_text, t
from .catalogue import exercises_of

_RECORDS = {}


class Record:
    def __init__(self):
        self.attempts = 0
        self.last = None
        self.solved_on = None  # the attempt that was right first


def attempt(exercise_id, answer_key, correct):
    """Record one check of ``exercise_id``; return its Record."""
    rec = _RECORDS.setdefault(exercise_id, Record())
    if rec.attempts == 0 or answer_key != rec.last:
        rec.attempts += 1
        rec.last = answer_key
    if correct and rec.solved_on is None:
        rec.solved_on = rec.attempts
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
    rec = _RECORDS.get(exercise_id)
    if rec is None or rec.attempts == 0:
        return t("status.not_done")
    if rec.solved_on is None:
        return t("status.not_yet_right", n=rec.attempts,
                 tries="try" if rec.attempts == 1 else "tries")
    if rec.solved_on == 1:
        return t("status.first_try")
    return t("status.done_on", ordinal=ordinal(rec.solved_on), nth=nth_ko(rec.solved_on))


def progress(lesson_id):
    """Print 'k of n done, m on the first try' and each exercise's status."""
    exercises = exercises_of(lesson_id)
    done = [e for e in exercises if _RECORDS.get(e.id) and _RECORDS[e.id].solved_on]
    first = [e for e in done if _RECORDS[e.id].solved_on == 1]
    print(t("progress.head", lesson=lesson_id, done=len(done), n=len(exercises),
            first=len(first)))
    for e in exercises:
        mark = "✓" if e in done else "·"
        print(f"  {mark} {exercise_text(e)[0]}: {status(e.id)}")
