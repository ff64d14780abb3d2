"""The claims of notebooks/11_your_own_model.ipynb, asked of real PyTorch 2.13.

The lesson runs on real torch only, so every test here is a parity test: the notebook's own
cells (read by id) are executed in a namespace whose ``torch`` is the real one, and each claim
its prose makes is checked there. The last test runs the notebook in a kernel where
``import torch`` fails: the first cell prints one line and no later cell shows an error.
"""
import os
import re
import pathlib
import subprocess
import sys

import nbformat
import pytest

from autograd_lesson import lesson
from autograd_lesson.lesson import on_torch
from autograd_lesson.viz import record, take_snapshot, watch

pytestmark = pytest.mark.parity
ROOT = pathlib.Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "notebooks" / "11_your_own_model.ipynb"
SETUP = ["11-model", "11-data", "11-typical", "11-fix", "11-kinds-setup", "11-gan-setup",
         "11-gan-answer"]


def source(cell_id):
    nb = nbformat.read(NOTEBOOK, as_version=4)
    return next(c.source for c in nb.cells if c.id == cell_id)


@pytest.fixture
def ns(torch):
    """The lesson's definitions, with the real torch as ``torch``."""
    namespace = {"torch": torch, "lesson": lesson}
    for cell_id in SETUP:
        exec(source(cell_id), namespace)  # noqa: S102
    return namespace


def kinds(report):
    return {f.kind for f in report.findings}


def run(ns, step):
    model, optimizer = ns["make_model"]()
    return lesson.audit(ns[step], model, optimizer, ns["x"], ns["y"], ns["t"])


def test_without_retain_the_second_backward_raises(ns, torch):
    model, _ = ns["make_model"]()
    loss_cls, loss_reg = ns["losses"](model, ns["x"], ns["y"], ns["t"])
    loss_cls.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        loss_reg.backward()


def test_first_backward_retains_trunk_and_cls_head_and_leaves_reg_head_alive(ns):
    model, _ = ns["make_model"]()
    x = ns["x"]
    with watch(model):  # as the lesson draws it: the view knows no backward ran before
        loss_cls, loss_reg = ns["losses"](model, x, ns["y"], ns["t"])
    names = dict(x=x, loss_cls=loss_cls, loss_reg=loss_reg, **dict(model.named_parameters()))
    recording = record(lambda: loss_cls.backward(retain_graph=True),
                       roots=[loss_cls, loss_reg], names=names)
    after = take_snapshot([loss_cls, loss_reg], names, executed=recording.executed)
    states = {b.key: (b.state, b.holds) for b in after.buffers}
    assert states["#1 AddmmBackward0._saved_mat1"] == ("retained", "x")
    assert states["#2 ReluBackward0._saved_result"][0] == "retained"
    reg = [s for k, (s, _) in states.items() if "MseLoss" in k or k.startswith("#5 ")]
    assert reg and set(reg) == {"alive"}


def test_audit_of_the_typical_step(ns):
    report = run(ns, "step_two_backwards")
    assert kinds(report) == {"unused-retain", "double-traversal"}
    text = str(report)
    assert re.search(r"backward #2 \(\S+:\d+( `[^`]+`)?\) kept", text) and "AddmmBackward0, ReluBackward0" in text


def test_the_summed_step_has_no_findings_and_the_same_parameters(ns, torch):
    assert run(ns, "step_summed").findings == []

    def after(step):
        model, optimizer = ns["make_model"]()
        ns[step](model, optimizer, ns["x"], ns["y"], ns["t"])
        return torch.cat([p.detach().reshape(-1) for p in model.parameters()])
    assert torch.allclose(after("step_two_backwards"), after("step_summed"), atol=1e-6)


def test_a_stored_loss_with_retain_grows_and_without_retain_holds_no_buffers(ns, torch):
    exec(source("11-grows").split("\nmodel, optimizer = ", 1)[0], ns)  # noqa: S102
    assert kinds(run(ns, "step_logging")) == {"unused-retain", "graph-grows"}
    exec(source("11-grows-fix").split("\nmodel, optimizer = ", 1)[0], ns)  # noqa: S102
    assert run(ns, "step_logging_fixed").findings == []
    # a stored loss after a plain backward keeps its nodes, but no saved tensor
    model, optimizer = ns["make_model"]()
    loss = sum(ns["losses"](model, ns["x"], ns["y"], ns["t"]))
    loss.backward()
    assert loss.grad_fn is not None and take_snapshot([loss]).total_bytes == 0


def test_exercise_1_retain_on_the_first_backward_only_runs_the_trunk_twice(ns):
    assert kinds(run(ns, "step_retain_first")) == {"double-traversal"}


def test_exercise_2_article_gan_runs_g_twice_and_detach_gives_the_same_parameters(ns, torch):
    inputs = ns["make_gan_inputs"]()
    assert kinds(lesson.audit(ns["gan_step_article"], *inputs.values())) == {"double-traversal"}
    assert lesson.audit(ns["gan_step"], *ns["make_gan_inputs"]().values()).findings == []
    a, b = ns["make_gan_inputs"](), ns["make_gan_inputs"]()
    ns["gan_step_article"](*a.values())
    ns["gan_step"](*b.values())
    for m in ("G", "D"):
        for p, q in zip(a[m].parameters(), b[m].parameters()):
            assert torch.allclose(p, q, atol=1e-6)


def test_checkers_judge_wrong_answers(ns, capsys):
    model, optimizer = ns["make_model"]()
    on_torch.check_findings(set(), ns["step_retain_first"], model, optimizer, ns["x"], ns["y"],
                            ns["t"], exercise="11-kinds")
    assert capsys.readouterr().out.startswith("✗ not quite")
    on_torch.check_findings({"typo"}, ns["step_retain_first"], exercise="11-kinds")
    assert capsys.readouterr().out.startswith('✗ "typo" is not a kind of finding')
    on_torch.check_audit(ns["gan_step_article"], ns["gan_step_article"], ns["make_gan_inputs"],
                         exercise="11-gan")
    assert "audit finds double-traversal" in capsys.readouterr().out


STUB = "raise ImportError(\"No module named 'torch'\")\n"


def test_without_torch_one_line_then_nothing_fails(tmp_path):
    """A kernel where ``import torch`` fails: lesson 11 and lesson 01's optional cell."""
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "__init__.py").write_text(STUB)
    env = dict(os.environ, PYTHONPATH=f"{tmp_path}{os.pathsep}{ROOT}")
    script = f"""
import nbformat, sys
from nbclient import NotebookClient
for path in sys.argv[1:]:
    nb = nbformat.read(path, as_version=4)
    if "01_" in path:
        nb.cells = [c for c in nb.cells if c.id in ("444cbc32", "01-on-torch")]
    NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True).execute()
    for c in nb.cells:
        if c.cell_type == "code":
            print(repr([(o.output_type, o.get("text", o.get("ename", ""))) for o in c.outputs]))
"""
    out = subprocess.run([sys.executable, "-c", script, str(NOTEBOOK),
                          str(ROOT / "notebooks" / "01_multiple_losses.ipynb")],
                         env=env, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    rows = out.stdout.splitlines()
    line = on_torch.INSTALL + on_torch.SKIP_REST + "\n"
    assert rows[0] == repr([("stream", line)])
    assert "error" not in out.stdout and "stderr" not in out.stdout
    lesson11 = rows[:-2]
    assert len(lesson11) > 10 and all(r == "[]" for r in lesson11[1:])
    assert rows[-1] == repr([("stream", on_torch.INSTALL + ".\n")])


def test_audit_ignores_unreadable_and_package_graphs_left_by_other_code(ns, torch):
    """audit scans every live graph for growth: one whose unpack hook is broken, or one of
    the package's, must not break (or change) the audit of a torch step."""
    import autograd_lesson as al
    x = torch.randn(3, requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: 0):
        broken = x.exp().sum()
    ours = (al.randn(3, requires_grad=True) * 2).sum()
    assert kinds(run(ns, "step_two_backwards")) == {"unused-retain", "double-traversal"}
    assert run(ns, "step_summed").findings == []
    del broken, ours


def _nodes_of(roots):
    seen, stack = set(), [r.grad_fn for r in roots]
    while stack:
        node = stack.pop()
        if node is not None and node not in seen:
            seen.add(node)
            stack.extend(f for f, _ in node.next_functions)
    return seen


def test_the_stored_losses_keep_18_30_42_nodes(ns, torch):
    """11-grows: what the step built and history keeps alive is 12 nodes per step on top of the
    first step's 18 (the parameters' AccumulateGrad nodes are shared): 18 -> 30 -> 42."""
    exec(source("11-grows").split("\nmodel, optimizer = ", 1)[0], ns)  # noqa: S102
    model, optimizer = ns["make_model"]()
    counts = []
    for _ in range(3):
        ns["step_logging"](model, optimizer, ns["x"], ns["y"], ns["t"])
        counts.append(len(_nodes_of(ns["history"])))
    assert counts == [18, 30, 42]


def test_the_audit_counts_only_the_nodes_the_step_built():
    cell = next(c for c in nbformat.read(NOTEBOOK, as_version=4).cells if c.id == "11-grows")
    out = "".join(o.get("text", "") for o in cell.outputs)
    assert "of saved tensors in 18 → 30 → 42 nodes" in out
