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


# -- trying a fix on a copy leaves the learner's objects as they were ---------------------------
def _state(model, optimizer):
    return [p.detach().clone() for p in model.parameters()] + \
        [v.clone() for s in optimizer.state.values() for v in s.values() if torch.is_tensor(v)]


def test_trying_fixes_changes_only_what_the_step_itself_changes():
    """audit runs the step 3 times on the learner's objects (as a plain loop would) and its
    experiments on copies: afterwards the model, the optimizer and the random stream are as
    after 3 plain calls."""
    def make():
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Dropout(0.5),
                                    torch.nn.Linear(8, 2))
        optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
        x = torch.randn(5, 4)

        def step():
            optimizer.zero_grad()
            out = model(x)
            loss1, loss2 = out[:, 0].pow(2).mean(), out[:, 1].abs().mean()
            loss1.backward(retain_graph=True)
            loss2.backward()
            optimizer.step()
        return model, optimizer, step
    model, optimizer, step = make()
    report = lesson.audit(step)
    assert report.findings[0].verified is True, report.text  # dropout: same random stream
    after_audit, rng = _state(model, optimizer), torch.get_rng_state()
    model, optimizer, step = make()
    for _ in range(3):
        step()
    assert all(torch.equal(a, b) for a, b in zip(after_audit, _state(model, optimizer)))
    assert torch.equal(rng, torch.get_rng_state())


class _Uncopyable:
    def __init__(self, model):
        self.model = model

    def __deepcopy__(self, memo):
        raise TypeError("no copies")


def test_a_step_audit_cannot_copy_is_not_verified():
    torch.manual_seed(0)
    holder = _Uncopyable(torch.nn.Linear(3, 1))
    x = torch.randn(4, 3)

    def step():
        out = holder.model(x)
        out.sum().backward(retain_graph=True)
    finding, = lesson.audit(step).findings
    assert finding.kind == "unused-retain" and finding.verified is False
    assert finding.check == "not verified: the step reaches objects audit could not copy"


def test_a_graph_the_step_keeps_is_never_shared_with_a_copy():
    """A dict holding a tensor with a graph cannot be deep-copied: sharing it, a copy run would
    put its own (freed) loss there. audit says "not verified" and the learner's loss is kept."""
    state = {}

    def step():
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        state["loss"] = (x.exp() * 2).sum()
        state["loss"].backward(retain_graph=True)
    finding, = lesson.audit(step).findings
    assert finding.verified is False and "could not copy" in finding.check
    state["loss"].backward()  # still the step's own graph, kept by retain_graph=True
