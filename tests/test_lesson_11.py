"""The claims of notebooks/11_your_own_model.ipynb, asked of real PyTorch 2.13.

The lesson runs on real torch only, so every test here is a parity test: the notebook's own
cells (read by id) are executed in a namespace whose ``torch`` is the real one, and each claim
its prose makes is checked there. The tests without torch run the notebook (and its student
copy) in a kernel where ``import torch`` fails: the first cell prints the CPU install line, each
lesson cell shows its stored outputs instead of running, and cells a learner adds run.
"""
import json
import os
import re
import pathlib
import subprocess
import sys

import nbformat
import pytest

from autograd_lesson import lesson
from autograd_lesson.i18n import t
from autograd_lesson.lesson import on_torch, without_torch
from autograd_lesson.viz import record, take_snapshot, watch
from torch_nodes import nodes_of

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
# the kernel side of a run without torch: the notebook, with two cells a learner added after the
# first one, run by nbclient; WITH_IDS sends each cell's id with its code, as JupyterLab does
RUN_WITHOUT_TORCH = """
import json, sys
import nbformat
from jupyter_client.session import Session
from nbclient import NotebookClient
path, with_ids = sys.argv[1], sys.argv[2] == "ids"
nb = nbformat.read(path, as_version=4)
if "01_" in path:
    nb.cells = [c for c in nb.cells if c.id in ("444cbc32", "01-on-torch")]
else:
    at = next(i for i, c in enumerate(nb.cells) if c.id == "11-imports") + 1
    nb.cells[at:at] = [nbformat.v4.new_code_cell("%pip --version", id="learner-pip"),
                       nbformat.v4.new_code_cell("print('mine')", id="learner-print")]
current = {}
msg = Session.msg
def with_cell_id(self, msg_type, content=None, *args, **kwargs):
    message = msg(self, msg_type, content, *args, **kwargs)
    if msg_type == "execute_request" and with_ids:
        message["metadata"]["cellId"] = current["id"]
    return message
Session.msg = with_cell_id
client = NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True)
execute_cell = client.async_execute_cell
async def remember(cell, *args, **kwargs):
    current["id"] = cell.id
    return await execute_cell(cell, *args, **kwargs)
client.async_execute_cell = remember
client.execute()
print(json.dumps({c.id: c.outputs for c in nb.cells if c.cell_type == "code"}))
"""


def run_without_torch(tmp_path, path, with_ids=True, session=None):
    """{cell id: outputs} of ``path`` run in a kernel where ``import torch`` fails."""
    (tmp_path / "torch").mkdir(exist_ok=True)
    (tmp_path / "torch" / "__init__.py").write_text(STUB)
    env = dict(os.environ, PYTHONPATH=f"{tmp_path}{os.pathsep}{ROOT}")
    env.pop("JPY_SESSION_NAME", None)
    if session:  # JupyterLab names the notebook to the kernel (ipykernel: __session__)
        env["JPY_SESSION_NAME"] = str(session)
    out = subprocess.run([sys.executable, "-c", RUN_WITHOUT_TORCH, str(path),
                          "ids" if with_ids else "no-ids"],
                         env=env, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.splitlines()[-1])


def shown(outputs):
    """What an output list shows, as comparable data (streams joined, pictures by content)."""
    rows = []
    for o in outputs:
        if o["output_type"] == "stream":
            text = "".join(o["text"]) if isinstance(o["text"], list) else o["text"]
            if rows and rows[-1][0] == o["name"]:
                rows[-1] = (o["name"], rows[-1][1] + text)
            else:
                rows.append((o["name"], text))
        else:
            rows.append(("data", sorted((k, "".join(v) if isinstance(v, list) else v)
                                        for k, v in o["data"].items() if "widget" not in k)))
    return rows


STORED = {"output_type": "stream", "name": "stdout",
          "text": t("without_torch.stored", version="2.13.0") + "\n"}
NOT_RUN = t("without_torch.not_run") + "\n"


@pytest.mark.parametrize("with_ids", [True, False], ids=["cell ids (JupyterLab)", "no cell ids"])
@pytest.mark.parametrize("copy", ["lesson", "student"])
def test_without_torch_stored_outputs_show_and_added_cells_run(tmp_path, with_ids, copy):
    """A kernel where ``import torch`` fails: the first cell prints the CPU install line; every
    lesson cell shows its stored outputs under one line (a cell with none, or an exercise, says
    in one line that it needs torch); the two cells a learner added run, ``%pip`` in the
    kernel's own environment. The student copy, named to the kernel, the same."""
    from autograd_lesson.course.student import is_exercise_cell, student_notebook
    nb = nbformat.read(NOTEBOOK, as_version=4)
    path, session = NOTEBOOK, None
    if copy == "student":
        path = session = tmp_path / NOTEBOOK.name
        nbformat.write(student_notebook(nb), path)
        nb = nbformat.read(path, as_version=4)
    outputs = run_without_torch(tmp_path, path, with_ids, session)
    assert shown(outputs.pop("11-imports")) == [("stdout", on_torch.SKIP_REST + "\n")]
    assert "%pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu" \
        in on_torch.SKIP_REST
    assert shown(outputs.pop("learner-print")) == [("stdout", "mine\n")]
    pip = shown(outputs.pop("learner-pip"))[0][1]
    assert pip.startswith("pip ") and sys.prefix in pip  # the kernel's own environment's pip
    cells = {c.id: c for c in nb.cells if c.cell_type == "code"}
    assert set(outputs) == set(cells) - {"11-imports"}
    pictures = 0
    for cell_id, got in outputs.items():
        stored = [] if is_exercise_cell(cells[cell_id]) else cells[cell_id].outputs
        if stored:
            assert shown(got) == shown([STORED] + stored), cell_id
            pictures += any("image/png" in o.get("data", {}) for o in stored)
        else:
            assert shown(got) == [("stdout", NOT_RUN)], cell_id
    assert pictures >= 1


def test_skip_rest_skips_every_later_cell_but_magics_and_shell_commands():
    """``real_torch(skip_rest=True)`` (a notebook without lesson ids): a `%pip install` cell, as
    IPython hands it to the skip after its own transforms, still runs."""
    from IPython.core.inputtransformer2 import TransformerManager
    lines = lambda cell: TransformerManager().transform_cell(cell).splitlines(True)  # noqa: E731
    for cell in (f"{without_torch.PIP_LINE}\n", "!pip --version\n", "%%bash\npip --version\n"):
        assert on_torch._skip(lines(cell)) == lines(cell), cell
    assert on_torch._skip(lines("x = torch.ones(1)\nprint(x)\n")) == []


def test_lesson_01s_optional_cell_prints_the_cpu_install_line(tmp_path):
    outputs = run_without_torch(tmp_path, ROOT / "notebooks" / "01_multiple_losses.ipynb")
    assert shown(outputs["01-on-torch"]) == [("stdout", on_torch.INSTALL + ".\n")]


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


def test_the_stored_losses_keep_18_30_42_nodes(ns, torch):
    """11-grows: what the step built and history keeps alive is 12 nodes per step on top of the
    first step's 18 (the parameters' AccumulateGrad nodes are shared): 18 -> 30 -> 42."""
    exec(source("11-grows").split("\nmodel, optimizer = ", 1)[0], ns)  # noqa: S102
    model, optimizer = ns["make_model"]()
    counts = []
    for _ in range(3):
        ns["step_logging"](model, optimizer, ns["x"], ns["y"], ns["t"])
        counts.append(len(nodes_of(ns["history"])))
    assert counts == [18, 30, 42]


def test_the_audit_counts_only_the_nodes_the_step_built():
    cell = next(c for c in nbformat.read(NOTEBOOK, as_version=4).cells if c.id == "11-grows")
    out = "".join(o.get("text", "") for o in cell.outputs)
    assert "of saved tensors in 18 → 30 → 42 nodes" in out
