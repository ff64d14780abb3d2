"""lesson.audit on the corpus in tests/audit_corpus: training steps from public code, shrunk to
tiny CPU models. Each case's ground truth is checked against torch itself (run as written, does
the step raise, on which call, with which error?), then audit must report exactly the finding
kinds the case states, with the fix, message, verification and notes it names, in one report
and no traceback."""
import pytest

torch = pytest.importorskip("torch")

from audit_corpus import gan, misc, multitask, physics, rl, rnn  # noqa: E402
from autograd_lesson import lesson  # noqa: E402

CASES = [case for module in (gan, rnn, rl, multitask, physics, misc) for case in module.CASES]
IDS = [case.name for case in CASES]


def first_error(case):
    """(call of the step, torch's error) of the first of three calls that raises, or None."""
    step, args = case.make()
    for call in range(1, 4):
        try:
            step(*args)
        except RuntimeError as error:
            return call, str(error)
    return None


def test_the_corpus_names_its_sources_and_holds_right_and_wrong_steps():
    assert len(CASES) >= 20 and len(set(IDS)) == len(IDS)
    assert all(len(case.source) > 15 for case in CASES)
    clean = [case for case in CASES if not case.kinds]
    assert len(clean) >= 8 and len(CASES) - len(clean) >= 10
    assert {k for case in CASES for k in case.kinds} == {
        "freed-reuse", "stale-saved", "double-traversal", "unused-retain"}


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_the_ground_truth_is_what_torch_does(case):
    got = first_error(case)
    if case.raises is None:
        assert got is None, got
    else:
        assert got is not None and got[0] == case.raises[0], got
        assert got[1].startswith(case.raises[1]), got[1]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_audit_meets_the_ground_truth(case):
    step, args = case.make()
    report = lesson.audit(step, *args)
    assert report.error is None, report.text
    assert [f.kind for f in report.findings] == case.kinds, report.text
    assert "Traceback" not in report.text and "Error:" not in report.text
    if case.fix:
        assert any(case.fix in f.fix for f in report.findings), report.text
    if case.message:
        assert any(case.message in f.message for f in report.findings), report.text
    if case.verified is not None:
        assert report.findings[0].verified is case.verified, report.text
    if case.note:
        assert any(case.note in note for note in report.notes), report.text
    if case.raises is not None and case.raises[0] == 1:  # cut short: retains are not judged
        assert "unused-retain" not in [f.kind for f in report.findings]
