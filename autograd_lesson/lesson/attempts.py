"""Progress: attempts per exercise in this kernel, and the last cell's "3 of 4 done" summary.

An attempt is counted only when the answer changed since the last check, so running a cell
again with the same answer prints the same verdict (and a solved exercise stays solved).
"""
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


def status(exercise_id):
    rec = _RECORDS.get(exercise_id)
    if rec is None or rec.attempts == 0:
        return "not done yet"
    if rec.solved_on is None:
        return f"not yet right ({rec.attempts} {'try' if rec.attempts == 1 else 'tries'})"
    if rec.solved_on == 1:
        return "done, on the first try"
    return f"done, on the {ordinal(rec.solved_on)} try"


def progress(lesson_id):
    """Print 'k of n done, m on the first try' and each exercise's status."""
    exercises = exercises_of(lesson_id)
    done = [e for e in exercises if _RECORDS.get(e.id) and _RECORDS[e.id].solved_on]
    first = [e for e in done if _RECORDS[e.id].solved_on == 1]
    print(f"Lesson {lesson_id}: {len(done)} of {len(exercises)} done, "
          f"{len(first)} on the first try")
    for e in exercises:
        mark = "✓" if e in done else "·"
        print(f"  {mark} {e.title}: {status(e.id)}")
