"""lesson.audit: the wrong version of each scenario gets its finding, the fixed one none, with
either engine (the same step code runs with ``lib`` = autograd_lesson or torch)."""
import pytest

import autograd_lesson as al
from autograd_lesson import lesson

pytestmark = pytest.mark.parity


def _mlp(lib, n_in, n_out, seed):
    lib.manual_seed(seed)
    return lib.nn.Sequential(lib.nn.Linear(n_in, 4), lib.nn.Tanh(), lib.nn.Linear(4, n_out))


def multi_loss(lib, variant):
    x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)

    def step():
        y = x * 2
        loss1, loss2 = y.sum(), (y ** 2).sum()
        if variant == "fixed":
            (loss1 + loss2).backward()
        elif variant == "naive":
            loss1.backward()
            loss2.backward()
        else:
            loss1.backward(retain_graph=True)
            loss2.backward()
    return step


def gan(lib, variant):
    G, D = _mlp(lib, 2, 2, 0), _mlp(lib, 2, 1, 1)
    z = lib.ones(4, 2)

    def step():
        fake = G(z)
        d_in = fake.detach() if variant == "fixed" else fake
        d_loss = D(d_in).sum()
        d_loss.backward(retain_graph=variant == "retain")
        g_loss = -D(fake).sum()
        g_loss.backward()
    return step


def shared_backbone(lib, variant):
    trunk, h1, h2 = _mlp(lib, 3, 4, 0), _mlp(lib, 4, 1, 1), _mlp(lib, 4, 1, 2)
    x = lib.ones(5, 3)

    def step():
        f = trunk(x)
        loss1, loss2 = h1(f).sum(), h2(f).pow(2).sum()
        if variant == "fixed":
            (loss1 + loss2).backward()
        else:
            loss1.backward()
            loss2.backward()
    return step


def rnn(lib, variant):
    cell = _mlp(lib, 3, 3, 0)
    state = {"h": lib.zeros(2, 3)}

    def step():
        h = state["h"].detach() if variant == "fixed" else state["h"]
        h = cell(h + 1)
        h.sum().backward(retain_graph=variant == "retain")
        state["h"] = h
    return step


def unused_retain(lib, variant):
    model = _mlp(lib, 3, 1, 0)
    x = lib.ones(5, 3)

    def step():
        model(x).pow(2).sum().backward(retain_graph=variant != "fixed")
    return step


def optimizer_between(lib, variant):
    model = _mlp(lib, 3, 1, 0)
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    x = lib.ones(5, 3)

    def step():
        opt.zero_grad()
        out = model(x)
        loss1, loss2 = out.sum(), out.pow(2).sum()
        if variant == "fixed":
            (loss1 + loss2).backward()
            opt.step()
        else:
            loss1.backward(retain_graph=True)
            opt.step()
            loss2.backward()
    return step


def running_total(lib, variant):
    model = _mlp(lib, 3, 1, 0)
    x = lib.ones(5, 3)
    state = {"total": 0.0}

    def step():
        loss = model(x).pow(2).sum()
        loss.backward(retain_graph=variant != "fixed")
        state["total"] = state["total"] + (loss.item() if variant == "fixed" else loss)
    return step


CASES = [  # (scenario, wrong variant, the kind it must get)
    (multi_loss, "naive", "freed-reuse"),
    (multi_loss, "retain", "double-traversal"),
    (gan, "naive", "freed-reuse"),
    (gan, "retain", "double-traversal"),
    (shared_backbone, "naive", "freed-reuse"),
    (rnn, "naive", "freed-reuse"),
    (rnn, "retain", "graph-grows"),
    (unused_retain, "wrong", "unused-retain"),
    (optimizer_between, "wrong", "stale-saved"),
    (running_total, "wrong", "graph-grows"),
]
ENGINES = ["autograd_lesson", "torch"]


def _lib(name, torch):
    return al if name == "autograd_lesson" else torch


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("scenario,variant,kind", CASES,
                         ids=[f"{c[0].__name__}-{c[1]}" for c in CASES])
def test_wrong_version_gets_its_finding(torch, engine, scenario, variant, kind):
    report = lesson.audit(scenario(_lib(engine, torch), variant))
    kinds = [f.kind for f in report.findings]
    assert kind in kinds, report.text
    finding = next(f for f in report.findings if f.kind == kind)
    assert finding.message and finding.fix and kind in report.text


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("scenario", sorted({c[0] for c in CASES}, key=lambda s: s.__name__),
                         ids=lambda s: s.__name__)
def test_fixed_version_gets_no_finding(torch, engine, scenario):
    report = lesson.audit(scenario(_lib(engine, torch), "fixed"))
    assert report.findings == [], report.text
    assert report.text.endswith("no findings")


def test_both_engines_give_the_same_kinds(torch):
    for scenario, variant, _ in CASES:
        kinds = [[f.kind for f in lesson.audit(scenario(lib, variant)).findings]
                 for lib in (al, torch)]
        assert kinds[0] == kinds[1], (scenario.__name__, variant, kinds)


def test_bad_input_is_one_line(torch, capsys):
    with pytest.raises(TypeError, match="pass it uncalled"):
        lesson.audit(42)

    def broken():
        raise ValueError("no data. more text")
    report = lesson.audit(broken)
    assert report.error == "broken raised ValueError: no data."
    assert capsys.readouterr().out == "broken raised ValueError: no data.\n"


def test_audit_leaves_no_hook_mode_or_observer(torch):
    from autograd_lesson.autograd import graph
    before = len(graph._observers)
    for lib in (al, torch):
        lesson.audit(gan(lib, "retain"))
    assert torch._C._len_torch_function_stack() == 0 and len(graph._observers) == before


def test_findings_name_the_nodes_and_the_bytes(torch):
    for lib in (al, torch):
        retain = lesson.audit(unused_retain(lib, "wrong")).findings
        assert [f.kind for f in retain] == ["unused-retain"]
        assert retain[0].message == (
            "backward #1 kept 256 B of saved tensors (retain_graph=True: AddmmBackward0 ×2, "
            "PowBackward0, TanhBackward0) that no later backward used")
        stale = lesson.audit(optimizer_between(lib, "wrong")).findings
        assert [f.kind for f in stale] == ["stale-saved"]
        assert stale[0].message.startswith("backward #2 failed: one of the variables needed")


def test_check_value_refuses_a_torch_tensor_as_the_prediction(torch, capsys):
    t = torch.tensor([1.0, 2.0])
    lesson.check_value(t, t, "x.grad")
    assert "not the engine's own tensor" in capsys.readouterr().out
