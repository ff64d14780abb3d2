"""The claims of notebooks/00b_inside_the_engine.ipynb and its helpers (lesson.inside_engine).

The checker accepts the engine's own three steps and names the first difference of each typical
mistake; ``plug`` always puts the real functions back; the lesson's claims about order and
freeing are asked of torch where torch can answer (node pre-hooks give the order a backward runs
the nodes in, and the saved slots read at the next pre-hook what the node released).
"""
import json
import pathlib
import re

import pytest

import autograd_lesson as al
from autograd_lesson import _engine, lesson
from autograd_lesson.lesson import attempts, inside_engine
from autograd_lesson.lesson import scenarios as S
from autograd_lesson.lesson.inside_engine import _REAL, engine_steps

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "00b_inside_the_engine.ipynb"
UINT64_MAX = 2**64 - 1


@pytest.fixture(autouse=True)
def fresh(monkeypatch):
    monkeypatch.setattr(attempts, "_RECORDS", {})
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    monkeypatch.delenv("AUTOGRAD_LESSON_GRADING", raising=False)
    yield
    lesson.set_language("en")
    assert all(getattr(_engine, n) is f for n, f in _REAL.items()), "a piece was left plugged in"


def first_line(capsys):
    return capsys.readouterr().out.splitlines()[0]


# -- typical mistakes of each piece ------------------------------------------------------------
def per_node(root):  # one per node, not one per edge
    deps, stack = {}, [root]
    while stack:
        for child, _ in stack.pop().next_functions:
            if child is not None and child not in deps:
                deps[child] = 1
                stack.append(child)
    return deps


def off_by_one(root):  # starts each count at 0
    deps, stack = {}, [root]
    while stack:
        for child, _ in stack.pop().next_functions:
            if child is None:
                continue
            if child in deps:
                deps[child] += 1
            else:
                deps[child] = 0
                stack.append(child)
    return deps


def paths(root):  # walks a node's children every time it is met: counts paths, not edges
    deps, stack = {}, [root]
    while stack:
        for child, _ in stack.pop().next_functions:
            if child is not None:
                deps[child] = deps.get(child, 0) + 1
                stack.append(child)
    return deps


def first_level(root):  # never goes below the root's children
    return {child: 1 for child, _ in root.next_functions if child is not None}


def no_none_check(root):
    deps, stack = {}, [root]
    while stack:
        for child, _ in stack.pop().next_functions:
            if child in deps:
                deps[child] += 1
            else:
                deps[child] = 1
                stack.append(child)
    return deps


def release_none(node, keep_graph):
    if not keep_graph:
        node._release_variables()


MISTAKES = {
    "per-node": (dict(count_dependencies=per_node),
                 "the RNN scenario, call “per-step t=1”, step 9: the real engine ran TBackward0, "
                 "yours ran AccumulateGrad (the real engine runs it only at step 15, once every "
                 "gradient for it has arrived)."),
    "off-by-one": (dict(count_dependencies=off_by_one),
                   "the multiple-losses scenario, call “seed: first”, yours stopped after step 1, "
                   "where the real engine goes on with MulBackward0: in yours it never became "
                   "ready (its count never reached 0)."),
    "paths": (dict(count_dependencies=paths),
              "the shared-backbone scenario, call “summed: (loss1+loss2)”, yours stopped after "
              "step 12, where the real engine goes on with AddmmBackward0: in yours it never "
              "became ready (its count never reached 0)."),
    "first-level": (dict(count_dependencies=first_level),
                    "the multiple-losses scenario, call “seed: first”, your "
                    "count_dependencies(root) gave no count for AccumulateGrad, a node this "
                    "backward reaches."),
    "no-none-check": (dict(count_dependencies=no_none_check),
                      "the multiple-losses scenario, call “seed: first”, your count_dependencies "
                      "raised AttributeError: 'NoneType' object has no attribute "
                      "'next_functions'."),
    "a-list": (dict(count_dependencies=lambda root: []),
               "the multiple-losses scenario, call “seed: first”, your count_dependencies(root) "
               "returned list; it must return a dict: node -> the number of edges pointing at "
               "it."),
    "oldest-first": (dict(ready_key=lambda node: node._sequence_nr()),
                     "the GAN scenario, call “seed: d_loss_real”, step 4: the real engine ran "
                     "AccumulateGrad, yours ran LeakyReluBackward0 (the real engine runs it only "
                     "at step 7, once every gradient for it has arrived)."),
    "no-key": (dict(ready_key=lambda node: None),
               "the multiple-losses scenario, call “seed: first”, your ready_key(node) returned "
               "NoneType; it must return a number (the smallest runs first)."),
    "always-release": (dict(release_saved=lambda node, keep_graph: node._release_variables()),
                       "the multiple-losses scenario, call “seed: first”, step 2: after "
                       "MulBackward0 ran, the real engine had freed nothing, yours _saved_other."),
    "never-release": (dict(release_saved=lambda node, keep_graph: ()),
                      "the multiple-losses scenario, call “seed: second”, step 2: after "
                      "PowBackward0 ran, the real engine had freed _saved_self, yours nothing."),
    "release-returns-none": (dict(release_saved=release_none),
                             "the multiple-losses scenario, call “seed: first”, your "
                             "release_saved(node, keep_graph) returned NoneType; it must return "
                             "the slots it released (what node._release_variables() returns), "
                             "or () when the graph is kept."),
}


@pytest.mark.parametrize("piece", sorted(_REAL))
def test_the_checker_accepts_the_engines_own_steps(capsys, piece):
    lesson.check_engine(**{piece: _REAL[piece]})
    assert first_line(capsys) == (
        f"✓ correct: the seven scenarios ran with your {piece} as with the real engine: 71 calls "
        f"of backward or autograd.grad, 764 node runs in the same order, the same slots freed "
        f"after each, the same errors and .grad values.")


@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_each_typical_mistake_gets_its_first_difference(capsys, mistake):
    pieces, message = MISTAKES[mistake]
    lesson.check_engine(exercise="00b-count", **pieces)
    assert first_line(capsys) == "✗ not quite (1st try): " + message


def test_the_first_difference_in_korean(capsys):
    lesson.set_language("ko")
    lesson.check_engine(count_dependencies=per_node, exercise="00b-count")
    out = capsys.readouterr().out.splitlines()
    assert out[0] == ("✗ 아쉽지만 틀렸습니다(첫 번째 시도): RNN 시나리오, 호출 “per-step t=1”, "
                      "9번째 노드 실행: 실제 엔진이 실행한 노드는 TBackward0, 여러분의 엔진이 실행한 "
                      "노드는 AccumulateGrad입니다(실제 엔진은 그 노드로 갈 변화도가 모두 도착한 뒤, "
                      "15번째 노드 실행에서야 그 노드를 실행합니다).")
    assert out[1].startswith("힌트: ")


def test_unwritten_and_malformed_answers_are_one_line(capsys):
    def stub(root):
        ...
    lesson.check_engine(count_dependencies=stub, exercise="00b-count")
    lesson.check_engine(count_dependencies=..., exercise="00b-count")
    lesson.check_engine(count_dependencies=3, exercise="00b-count")
    lesson.check_engine(count_edges=per_node, exercise="00b-count")
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("✎ not done yet") and out[1].startswith("✎ not done yet")
    assert out[2] == "✗ count_dependencies must be a function (def ...:), not a int."
    assert out[3] == ("✗ name the piece to plug in: count_dependencies, ready_key, "
                      "release_saved (got count_edges).")
    assert len(out) == 4


def test_grading_fails_a_wrong_piece(monkeypatch, capsys):
    monkeypatch.setenv("AUTOGRAD_LESSON_GRADING", "1")
    with pytest.raises(AssertionError):
        lesson.check_engine(count_dependencies=per_node, exercise="00b-count")
    lesson.check_engine(count_dependencies=_REAL["count_dependencies"], exercise="00b-count")


def test_the_check_leaves_the_learners_random_numbers_alone():
    al.manual_seed(3)
    expected = al.randn(3)
    al.manual_seed(3)
    lesson.check_engine(ready_key=_REAL["ready_key"])
    assert al.equal(al.randn(3), expected)


# -- plug --------------------------------------------------------------------------------------
def test_plug_puts_the_real_functions_back_after_any_failure(capsys):
    def boom(root):
        raise KeyError("x")

    x = al.ones(3, requires_grad=True)
    with lesson.plug(count_dependencies=boom):
        (x * 2).sum().backward()
    with lesson.plug(ready_key=_REAL["ready_key"], release_saved=_REAL["release_saved"]):
        raise ValueError("my own mistake")
    with lesson.plug(release_saved=lambda node, keep: "self"):
        (x * 2).sum().backward()
    assert capsys.readouterr().out.splitlines() == [
        "✗ your count_dependencies raised KeyError: 'x'",
        "✗ ValueError: my own mistake",
        "✗ your release_saved(node, keep_graph) returned str; it must return the slots it "
        "released (what node._release_variables() returns), or () when the graph is kept"]
    assert all(getattr(_engine, n) is f for n, f in _REAL.items())
    with pytest.raises(TypeError, match="name the piece to plug in"):
        lesson.plug(count_edges=per_node)
    with pytest.raises(TypeError, match="must be a function"):
        lesson.plug(ready_key=1)


def test_plug_changes_the_order_but_not_the_gradient():
    def run():
        a = al.tensor([[0.1, 0.2, 0.3, 0.4]], requires_grad=True)
        c = (a ** 2) * 2
        loss = c.mean() + c.sum()
        order = []
        with al.autograd.graph.observe(lambda e: order.append(e.node.name())
                                       if type(e).__name__ == "NodeStarted" else None):
            loss.backward()
        return order, a.grad
    real_order, real_grad = run()
    with lesson.plug(ready_key=lambda node: node._sequence_nr()):
        order, grad = run()
    assert real_order[1:3] == ["SumBackward0", "MeanBackward0"]
    assert order[1:3] == ["MeanBackward0", "SumBackward0"]
    assert al.equal(grad, real_grad)


def test_the_order_decides_which_grads_a_failed_backward_leaves():
    """The lesson: the order never changes a gradient, only which .grad is written when a
    backward fails half-way. On the seven scenarios, an oldest-first queue leaves every
    successful call's .grad as the real engine does, and some failed call's differently."""
    real = inside_engine._run_all()
    oldest = inside_engine._run_all({"ready_key": lambda node: node._sequence_nr()})
    differ_ok, differ_failed = 0, 0
    for (_, r), (_, o) in zip(real, oldest):
        for a, b in zip(r.entries, o.entries):
            if "outcome" not in a:
                continue
            assert a["outcome"] == b["outcome"]
            same = inside_engine._same(a["grads"], b["grads"])
            if a["outcome"] == ["ok"]:
                differ_ok += not same
            else:
                differ_failed += not same
    assert differ_ok == 0 and differ_failed > 0


# -- the step-through ----------------------------------------------------------------------------
def abcde(lib):
    a = lib.tensor([[0.1, 0.2, 0.3, 0.4]], requires_grad=True)
    b = a ** 2
    c = b * 2
    d, e = c.mean(), c.sum()
    return dict(a=a, b=b, c=c, d=d, e=e, loss=d + e)


def test_step_through_engine_names_the_loop_lines():
    names = abcde(al)
    steps, recording = engine_steps(names["loss"].backward, "loss.backward()", names)
    text = steps.text.splitlines()
    lines = inside_engine._source(_engine.run_backward)
    assert "# 1." in lines[8] and "heappop" in lines[13] and "# 5." in lines[35]
    assert text[1] == ("  line  9  # 1. count_dependencies: #0 PowBackward0 1, #1 MulBackward0 2, "
                       "#2 MeanBackward0 1, #3 SumBackward0 1, #5 AccumulateGrad (a) 1")
    assert text[7] == "  line 36  # 5. release_saved: nothing saved"
    assert "  line 14  pops #3 SumBackward0 from [#3 SumBackward0, #2 MeanBackward0]" in text
    assert "  line 24  # 4. #1 MulBackward0 2 → 1" in text
    assert "  line 36  # 5. release_saved: _saved_other" in text
    assert len(steps.frames) == 6 and recording.error is None
    html = steps.side_html(3)
    assert html.count("◀") == 4 and "pops #1 MulBackward0" in html
    # only the lines that ran, one line around each: the running node stays near the slider
    assert "    …" in html and html.count("\n") < len(lines) - 10


def test_step_through_engine_shows_a_kept_graph():
    names = abcde(al)
    steps, _ = engine_steps(lambda: names["loss"].backward(retain_graph=True), "retain", names)
    assert "  line 36  # 5. release_saved: kept _saved_other (retain_graph=True)" in \
        steps.text.splitlines()


# -- predict the order ---------------------------------------------------------------------------
def two_leaves(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    w = lib.tensor([0.5, -1.0], requires_grad=True)
    a = x * 2
    b = w * 3
    c = a.exp()
    s = c + b
    return dict(x=x, w=w, a=a, b=b, c=c, s=s, loss=s.sum())


def test_check_order(capsys):
    lesson.check_order(["loss", "s", "c", "a", "x", "b", "w"], "loss.backward()",
                       exercise="00b-order", **two_leaves(al))
    lesson.check_order(["loss", "s", "c", "b", "w", "a", "x"], "loss.backward()",
                       exercise="00b-order", **two_leaves(al))
    lesson.check_order("loss", "loss.backward()", exercise="00b-order", **two_leaves(al))
    lesson.check_order(["loss", "z"], "loss.backward()", exercise="00b-order", **two_leaves(al))
    lesson.check_order(["loss", "s"], "loss.backward()", exercise="00b-order", **two_leaves(al))
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "✗ not quite (1st try): the order first differs at position 4 of 7."
    assert out[2] == "✓ correct, on your 2nd try: the nodes ran in the order loss, s, c, b, w, a, x."
    assert out[4].startswith("✗ answer with a list of the names")
    assert out[5].startswith('✗ "z" is not one of the names')
    assert out[6] == ("✗ not quite (3rd try): the backward runs 7 of these nodes, and you "
                      "listed 2.")


# -- the lesson's claims, asked of torch -------------------------------------------------------
def torch_order(torch, names):
    """The names in the order torch's backward runs their nodes (a leaf: its AccumulateGrad)."""
    order = []
    for name, t in names.items():
        node = torch.autograd.graph.get_gradient_edge(t).node
        node.register_prehook(lambda grads, name=name: order.append(name))
    names["loss"].backward()
    return order


def our_order(names):
    by_node = {al.autograd.graph.get_gradient_edge(t).node: n for n, t in names.items()}
    order = []
    with al.autograd.graph.observe(lambda e: order.append(by_node[e.node]) if
                                   type(e).__name__ == "NodeStarted" and e.node in by_node
                                   else None):
        names["loss"].backward()
    return order


def test_the_exercise_order_is_torchs(torch):
    assert torch_order(torch, two_leaves(torch)) == our_order(two_leaves(al)) == \
        ["loss", "s", "c", "b", "w", "a", "x"]


def test_the_example_order_is_torchs(torch):
    assert torch_order(torch, abcde(torch)) == our_order(abcde(al)) == \
        ["loss", "e", "d", "c", "b", "a"]


def test_accumulate_grad_has_the_largest_sequence_number(torch):
    x = torch.ones(2, requires_grad=True)
    assert (x * 2).grad_fn.next_functions[0][0]._sequence_nr() == UINT64_MAX
    y = al.ones(2, requires_grad=True)
    assert (y * 2).grad_fn.next_functions[0][0]._sequence_nr() == UINT64_MAX


@pytest.mark.parametrize("build", ["diamond", "accumulate_waits", "fan_in"])
def test_newest_ready_node_first_on_more_graphs(torch, build):
    """The rule at its edges: a node made ready late but older waits; an AccumulateGrad made
    ready runs before any older or newer node; three edges into one node."""
    def graph(lib):
        x = lib.tensor([0.5, 1.5], requires_grad=True)
        if build == "diamond":
            a = x.sin()
            b, c = a * 2, a.exp()
            loss = (b + c).sum()
            return dict(x=x, a=a, b=b, c=c, loss=loss)
        if build == "accumulate_waits":
            w = lib.tensor([2.0, -1.0], requires_grad=True)
            a = x * w
            b = w.cos()
            c = a.tanh()
            loss = (c * b).sum()
            return dict(x=x, w=w, a=a, b=b, c=c, loss=loss)
        a = x.exp()
        loss = (a * 2 + a.sin() + a).sum()
        return dict(x=x, a=a, loss=loss)
    assert torch_order(torch, graph(torch)) == our_order(graph(al))


@pytest.mark.parity
@pytest.mark.parametrize("scenario", S.SEVEN, ids=[s.__name__ for s in S.SEVEN])
def test_the_real_engine_runs_the_seven_scenarios_as_torch(torch, scenario):
    """The order every tracked node runs in, and its slots right after it ran, call by call."""
    ours, theirs = S.run(scenario, al, trace=True), S.run(scenario, torch, trace=True)
    steps = 0
    for mine, reference in zip(ours.entries, theirs.entries):
        if "trace" in reference:
            tracked = [step for step in mine["trace"] if isinstance(step[0], int)]
            assert tracked == reference["trace"], reference["label"]
            steps += len(tracked)
    assert steps > 20


# -- the notebook --------------------------------------------------------------------------------
def test_the_lesson_needs_no_torch():
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    assert not re.search(r"^\s*(import torch\b|from torch\b)", code, re.M)
    assert "lesson.real_torch" not in code and "on_real_torch" not in code


def test_the_lesson_shows_the_engine_through_its_source():
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    for name in ("run_backward", "count_dependencies", "ready_key", "release_saved",
                 "call_function", "Node._release_variables", "SavedTensor.release"):
        assert f"lesson.show_code({name}" in code, name


@pytest.mark.parametrize("path", [NOTEBOOK, ROOT / "notebooks" / "ko" / NOTEBOOK.name],
                         ids=["en", "ko"])
def test_nothing_before_exercise_2_shows_the_count_it_asks_for(path):
    """The engine's own count_dependencies is printed only by its def line and docstring; its
    body would be the answer to exercise 2."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    seen = ""
    for cell in cells:
        if cell["id"] == "00b-count-answer":
            break
        seen += "".join(cell["source"]) + "".join(
            "".join(o.get("text", "")) + "".join(o.get("data", {}).get("text/plain", ""))
            for o in cell.get("outputs", []))
    assert "count_dependencies, \"def\", \"chain\")" in seen
    assert "dependencies[child] += 1" not in seen and "stack.append(child)" not in seen
