"""The claims of notebooks/00_how_backward_works.ipynb, checked in autograd_lesson and in torch.

Each test runs the notebook's code with both libraries (``lib`` is ``autograd_lesson`` or
``torch``) and asserts the same facts for both. The last tests tie the notebook's committed
outputs to values computed here with torch, so the lesson cannot print a number torch disagrees
with.
"""
import json
import pathlib

import numpy as np
import pytest

import autograd_lesson as al
from autograd_lesson.lesson import first_sentence
import scenarios

pytestmark = pytest.mark.parity
NOTEBOOK = pathlib.Path(__file__).parent.parent / "notebooks" / "00_how_backward_works.ipynb"
FREED = ("Trying to backward through the graph a second time (or directly access saved tensors "
         "after they have already been freed).")
MISMATCH = ("Mismatch in shape: grad_output[0] has a shape of torch.Size([1]) and output[0] has a "
            "shape of torch.Size([]).")
NOT_SCALAR = "grad can be implicitly created only for scalar outputs"


@pytest.fixture
def libs(torch):
    return (al, torch)


def error_of(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001  (the outcome is what is tested)
        return exc
    return None


def grad(t):
    return np.asarray(t.grad.detach().numpy(), dtype=np.float64)


def make_graph(lib):
    x = lib.ones(2, 2, requires_grad=True)
    y = x + 2
    z = y * y * 3
    return x, y, z, z.mean()


def node_chain(out):
    names, node = [], out.grad_fn
    while node is not None:
        names.append(node.name())
        node = node.next_functions[0][0] if node.next_functions else None
    return names


# -- 1. the recorded graph ---------------------------------------------------------------------
def test_example_graph_nodes_and_saves(libs):
    for lib in libs:
        x, y, z, out = make_graph(lib)
        assert out.item() == 27.0
        assert node_chain(out) == ["MeanBackward0", "MulBackward0", "MulBackward0", "AddBackward0",
                                   "torch::autograd::AccumulateGrad"]
        times_3 = z.grad_fn
        y_times_y = times_3.next_functions[0][0]
        three = times_3._saved_other
        assert (three.item(), three.dim(), str(three.dtype).replace("torch.", "")) == (3, 0, "int64")
        assert y_times_y._saved_self is y and y_times_y._saved_other is y
        assert [n is None for n, _ in times_3.next_functions] == [False, True]


# -- 2. the four stages ------------------------------------------------------------------------
def walk(root):
    seen, stack, found = set(), [root], []
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        found.append(node)
        stack.extend(n for n, _ in node.next_functions)
    return found


def test_backward_runs_each_node_once_and_releases_right_after_it(libs):
    """Stage 1 waits for both of y*y's gradients (Add runs once with 4.5); stage 4 is interleaved:
    when AddBackward0 starts, y*y's saved y is already released."""
    for lib in libs:
        x, y, z, out = make_graph(lib)
        y_times_y = z.grad_fn.next_functions[0][0]
        order, seen_by_add = [], []

        def prehook(node):
            def hook(grad_outputs):
                order.append(node.name())
                if node.name() == "AddBackward0":
                    seen_by_add.append(grad_outputs[0].tolist())
                    seen_by_add.append(str(error_of(lambda: y_times_y._saved_self)))
            return hook

        for node in walk(out.grad_fn):
            node.register_prehook(prehook(node))
        out.backward()
        assert order == ["MeanBackward0", "MulBackward0", "MulBackward0", "AddBackward0",
                         "torch::autograd::AccumulateGrad"]
        assert seen_by_add[0] == [[4.5, 4.5], [4.5, 4.5]]
        assert seen_by_add[1].startswith(FREED)


def test_vector_jacobian_products_by_hand(libs):
    for lib in libs:
        x, y, z, out = make_graph(lib)
        out.backward()
        g = lib.ones(2, 2) / 4
        g = g * 3
        g = g * y + g * y
        np.testing.assert_allclose(g.detach().numpy(), grad(x))
        np.testing.assert_allclose(grad(x), 4.5)


# -- 3. after backward --------------------------------------------------------------------------
def test_second_backward_raises_but_nodes_remain(libs):
    for lib in libs:
        x, y, z, out = make_graph(lib)
        out.backward()
        assert str(error_of(out.backward)).startswith(FREED)
        assert out.grad_fn.name() == "MeanBackward0"
        assert out.grad_fn.next_functions[0][0].name() == "MulBackward0"


def test_graph_without_saved_tensors_repeats_and_accumulates(libs):
    for lib in libs:
        x = lib.zeros(2, 3, requires_grad=True)
        out = (x + 1).sum()
        for _ in range(3):
            out.backward()
        np.testing.assert_array_equal(grad(x), np.full((2, 3), 3.0))


def _buffer_write(lib, a):
    buf = lib.zeros(3, 2)
    buf[:, 0] = a
    return buf.sum()


def _slice_mul(lib, a):
    h = a + 0
    h[0].mul_(2)
    return h.sum()


def _copy_whole(lib, a):
    return lib.zeros(3).copy_(a).sum()


# (graph, does a second backward without retain raise?)
SECOND_BACKWARD = {
    "add": (lambda lib, a: (a + 1).sum(), False),
    "mean": (lambda lib, a: a.mean(), False),
    "reshape": (lambda lib, a: a.reshape(3, 1).sum(), False),
    "expand": (lambda lib, a: a.expand(2, 3).sum(), False),
    "cat": (lambda lib, a: lib.cat([a, a]).sum(), False),
    "clone": (lambda lib, a: a.clone().sum(), False),
    "copy_ into a whole tensor": (_copy_whole, False),
    "zero_": (lambda lib, a: (a + 0).zero_().sum() + a.sum(), False),
    "x * 2 (a saved scalar)": (lambda lib, a: (a * 2).sum(), True),
    "exp (a saved result)": (lambda lib, a: a.exp().sum(), True),
    "CopySlices (buf[:, 0] = a)": (_buffer_write, True),
    "CopySlices (h[0].mul_(2))": (_slice_mul, True),
}


@pytest.mark.parametrize("graph", list(SECOND_BACKWARD))
def test_which_second_backward_raises_at_the_edges_of_the_rule(libs, graph):
    """Cell a91c90c8: a second backward fails when it must run a node whose saved tensors were
    released, or a CopySlices an earlier backward ran (which saves no tensor); graphs whose nodes
    keep nothing run again and again."""
    build, raises = SECOND_BACKWARD[graph]
    for lib in libs:
        a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        loss = build(lib, a)
        names = [n.name() for n in scenarios.walk([loss])[0]]
        saved = [s for n in scenarios.walk([loss])[0] for s in scenarios._slot_names(lib, n)]
        if raises:
            loss.backward()
            assert str(error_of(loss.backward)).startswith(FREED), (lib.__name__, graph)
            if "CopySlices" in graph:  # no tensor saved anywhere, yet it cannot run again
                assert "torch::autograd::CopySlices" in names and saved == []
        else:
            assert saved == []
            for _ in range(3):
                loss.backward()
            assert a.grad is not None


def test_the_text_states_the_copyslices_exception():
    nb = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    text = {c["id"]: "".join(c["source"]) for c in nb["cells"]}
    for cell_id in ("a91c90c8", "2ea3c251", "fd9e9b18"):
        assert "`CopySlices`" in text[cell_id], cell_id
    assert "fails only if" not in text["fd9e9b18"]


def test_times_a_python_number_saves_it_and_cannot_repeat(libs):
    for lib in libs:
        packed = []
        x = lib.zeros(2, 3, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
            y = x * 2
        loss = y.sum()
        assert y.grad_fn._saved_other.item() == 2 and packed == []  # saved, but hooks skip it
        loss.backward()
        assert str(error_of(loss.backward)).startswith(FREED)


# -- 4. accumulation and zero_grad -------------------------------------------------------------
def test_two_backwards_add_up(libs):
    for lib in libs:
        x = lib.ones(2, 2, requires_grad=True)
        seen = []
        for _ in range(2):
            ((x + 2) * (x + 2) * 3).mean().backward()
            seen.append(x.grad[0, 0].item())
        assert seen == [4.5, 9.0]


def test_zero_grad_sets_none_and_set_to_none_false_writes_zeros(libs):
    for lib in libs:
        model = lib.nn.Linear(10, 1)
        optimizer = lib.optim.SGD(model.parameters(), lr=0.01)
        data = lib.tensor(np.random.RandomState(0).randn(4, 10).astype(np.float32))
        model(data).sum().backward()
        assert model.bias.grad.tolist() == [4.0]
        optimizer.zero_grad()
        assert model.bias.grad is None and model.weight.grad is None
        model(data).sum().backward()
        optimizer.zero_grad(set_to_none=False)
        assert model.bias.grad.tolist() == [0.0]


def notebook_batches_and_weights():
    """The notebook's data and starting weights, made with autograd_lesson's RNG as it does."""
    al.manual_seed(0)
    batches = [(al.randn(4, 10), al.randn(4, 1) * 3) for _ in range(3)]
    al.manual_seed(1)
    model = al.nn.Linear(10, 1)
    return ([(d.numpy(), t.numpy()) for d, t in batches],
            model.weight.detach().numpy(), model.bias.detach().numpy())


def grad_norms(lib, reset):
    batches, weight, bias = notebook_batches_and_weights()
    model = lib.nn.Linear(10, 1)
    with lib.no_grad():
        model.weight.copy_(lib.tensor(weight))
        model.bias.copy_(lib.tensor(bias))
    optimizer = lib.optim.SGD(model.parameters(), lr=0.01)
    norms = []
    for data, target in batches:
        if reset:
            optimizer.zero_grad()
        lib.nn.MSELoss()(model(lib.tensor(data)), lib.tensor(target)).backward()
        norms.append(sum(p.grad.pow(2).sum() for p in model.parameters()).sqrt().item())
        optimizer.step()
    return norms


def test_grad_norms_with_and_without_zero_grad_match_torch(torch):
    with_reset = {lib: grad_norms(lib, True) for lib in (al, torch)}
    without = {lib: grad_norms(lib, False) for lib in (al, torch)}
    for runs in (with_reset, without):
        np.testing.assert_allclose(runs[al], runs[torch], rtol=1e-5)
    assert without[torch][0] == pytest.approx(with_reset[torch][0])
    assert all(b > a for a, b in zip(with_reset[torch][1:], without[torch][1:]))


# -- 5. detach ---------------------------------------------------------------------------------
def test_detach_holds_the_value_constant(libs):
    for lib in libs:
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * x
        (y.detach() * x).sum().backward()
        assert x.grad.tolist() == [1.0, 4.0, 9.0]
        x.grad = None
        (y * x).sum().backward()
        assert x.grad.tolist() == [3.0, 12.0, 27.0]


def test_detached_part_gets_no_grad(libs):
    for lib in libs:
        part1, part2 = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU()), lib.nn.Linear(4, 1)
        data = lib.tensor(np.random.RandomState(1).randn(5, 3).astype(np.float32))
        part2(part1(data).detach()).sum().backward()
        assert part1[0].weight.grad is None and part1[0].bias.grad is None
        assert part2.weight.grad is not None


# -- 6. the implicit gradient and non-scalar outputs --------------------------------------------
def test_implicit_gradient_is_0dim_and_shape_1_is_refused(libs):
    for lib in libs:
        x, y, z, out = make_graph(lib)
        shapes = []
        out.register_hook(lambda g: shapes.append(tuple(g.shape)))
        error = error_of(lambda: out.backward(lib.tensor([1.0])))
        assert type(error) is RuntimeError and str(error) == MISMATCH
        assert shapes == [] and x.grad is None  # refused before any node ran
        out.backward(lib.tensor(1.0))           # the graph is intact
        assert shapes == [()] and grad(x).tolist() == [[4.5, 4.5], [4.5, 4.5]]
        x, y, z, out = make_graph(lib)
        out.register_hook(lambda g: shapes.append(tuple(g.shape)))
        out.backward()
        assert shapes == [(), ()]


def test_non_scalar_output_needs_a_gradient(libs):
    for lib in libs:
        x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
        y = x * 2
        assert str(error_of(y.backward)) == NOT_SCALAR
        y.backward(lib.tensor([0.1, 1.0, 0.0001]))
        np.testing.assert_allclose(grad(x), [0.2, 2.0, 0.0002], rtol=1e-6)


# -- 7. clip_grad_norm_ ----------------------------------------------------------------------
def test_clip_grad_norm_returns_the_norm_before_clipping(torch):
    rs = np.random.RandomState(2)
    weight, bias = rs.randn(3, 5), rs.randn(3)
    data, target = rs.randn(4, 5), rs.randn(4, 3) * 10
    returned = {}
    for lib in (al, torch):
        model = lib.nn.Linear(5, 3, dtype=lib.float64)
        with lib.no_grad():
            model.weight.copy_(lib.tensor(weight))
            model.bias.copy_(lib.tensor(bias))
        lib.nn.functional.mse_loss(model(lib.tensor(data)), lib.tensor(target)).backward()
        before = float(np.sqrt(sum((grad(p) ** 2).sum() for p in model.parameters())))
        total = lib.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        after = float(np.sqrt(sum((grad(p) ** 2).sum() for p in model.parameters())))
        assert total.dim() == 0 and total.item() == pytest.approx(before, rel=1e-9)
        assert before > 1 and after == pytest.approx(1.0, abs=1e-5)
        returned[lib] = total.item()
    assert returned[al] == pytest.approx(returned[torch], rel=1e-9)


# -- 8. a custom Function ----------------------------------------------------------------------
my_relu = scenarios.my_relu_function  # seed 002 ex7, shared with the scenario tests


def test_my_relu_differs_from_relu_at_zero(libs):
    values = [-1.5, -0.0, 0.0, 0.7, 2.0]
    for lib in libs:
        MyReLU = my_relu(lib)
        results = {}
        for name, fn in (("MyReLU", MyReLU.apply), ("relu", lib.relu),
                         ("clamp", lambda t: t.clamp(min=0))):
            x = lib.tensor(values, requires_grad=True)
            out = fn(x)
            out.sum().backward()
            results[name] = grad(x).tolist()
            if name == "MyReLU":
                assert out.grad_fn.name() == type(out.grad_fn).__name__ == "MyReLUBackward"
                assert str(error_of(lambda: out.grad_fn.saved_tensors)).startswith(FREED)
        assert results == {"MyReLU": [0, 1, 1, 1, 1], "relu": [0, 0, 0, 1, 1],
                           "clamp": [0, 1, 1, 1, 1]}


# -- exercises ----------------------------------------------------------------------------------
def make_two_losses(lib, exp=True):
    x = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
    a = x.exp() if exp else x + 1
    return x, a, a.sum(), (a * x).sum()


def test_exercise_1_loss1_frees_only_exp_result(libs):
    for lib in libs:
        x, a, loss1, loss2 = make_two_losses(lib)
        exp_node, mul_node = a.grad_fn, loss2.grad_fn.next_functions[0][0]
        loss1.backward()
        assert str(error_of(lambda: exp_node._saved_result)).startswith(FREED)
        assert mul_node._saved_self is a and mul_node._saved_other is x  # not on loss1's path


def test_exercise_2_which_second_backward_raises(libs):
    for lib in libs:
        for exp, raises in ((True, True), (False, False)):
            x, a, loss1, loss2 = make_two_losses(lib, exp)
            loss1.backward()
            error = error_of(loss2.backward)
            assert (error is not None) is raises
            assert error is None or str(error).startswith(FREED)


def test_exercise_3_accumulation_with_detach(libs):
    for lib in libs:
        x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        for _ in range(3):
            (x * x.detach()).sum().backward()
        assert x.grad.tolist() == [3.0, -6.0, 9.0]


# -- the notebook prints what torch says -------------------------------------------------------
def notebook_text():
    nb = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    return "".join("".join(o.get("text", "")) for c in nb["cells"] if c["cell_type"] == "code"
                   for o in c.get("outputs", []))


def test_notebook_errors_are_torchs_first_sentences(torch):
    text = notebook_text()
    x, y, z, out = make_graph(torch)
    errors = [error_of(lambda: out.backward(torch.tensor([1.0])))]
    out.backward()
    errors.append(error_of(out.backward))
    errors.append(error_of((torch.ones(3, requires_grad=True) * 2).backward))
    for error in errors:
        assert f"✗ RuntimeError: {first_sentence(error)}" in text


def test_notebook_grad_norms_are_torchs(torch):
    text = notebook_text()
    assert f"with zero_grad():    {[round(n, 2) for n in grad_norms(torch, True)]}" in text
    assert f"without zero_grad(): {[round(n, 2) for n in grad_norms(torch, False)]}" in text


# -- the verdict on "grow without bound" (「loss.backward() 호출 시 내부 동작 3단계…」) -------------
def _torch_norms(torch, batches, steps, reset, **sgd_options):
    """The notebook's ``train`` in torch, on the notebook's data; all grad norms and the model."""
    _, weight, bias = notebook_batches_and_weights()
    model = torch.nn.Linear(10, 1)
    with torch.no_grad():
        model.weight.copy_(torch.tensor(weight))
        model.bias.copy_(torch.tensor(bias))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, **sgd_options)
    data = [(torch.tensor(d), torch.tensor(t)) for d, t in batches]
    norms = []
    for step in range(steps):
        x, target = data[step % len(data)]
        if reset:
            optimizer.zero_grad()
        torch.nn.MSELoss()(model(x), target).backward()
        norms.append(sum(p.grad.pow(2).sum() for p in model.parameters()).sqrt().item())
        optimizer.step()
    return np.array(norms), model


def notebook_stream():
    al.manual_seed(2)
    return [(d.numpy(), t.numpy()) for d, t in
            [(al.randn(4, 10), al.randn(4, 1) * 3) for _ in range(400)]]


def test_no_zero_grad_is_sgd_with_momentum_one(torch):
    batches = notebook_batches_and_weights()[0]
    _, forgot = _torch_norms(torch, batches, 3, reset=False)
    _, momentum = _torch_norms(torch, batches, 3, reset=True, momentum=1.0)
    assert (forgot.weight - momentum.weight).abs().max().item() == 0.0


def test_grow_without_bound_depends_on_the_loop(torch):
    """On the notebook's data (the package's random draws): repeated batches bounded (6.5..45
    over 20,000 steps) but never settling; a new batch every step: unbounded (18,372 by step
    400); with the reset the norm falls."""
    batches = notebook_batches_and_weights()[0]
    repeated, _ = _torch_norms(torch, batches, 20000, reset=False)
    assert 6.5 <= repeated[99:].min() < 7 and 44 < repeated[9:].max() <= 45
    assert repeated[-1000:].min() > 6  # not converging either
    stream, _ = _torch_norms(torch, notebook_stream(), 400, reset=False)
    assert round(float(stream[399])) == 18372 and np.all(np.diff(stream[[0, 9, 99, 199, 399]]) > 0)
    reset, _ = _torch_norms(torch, batches, 400, reset=True)
    assert reset[399] < reset[0] / 5


def _notebook_cells_on(torch):
    """The notebook's own cells of the zero_grad section, run with ``import torch``: PyTorch's
    generator draws other batches and weights than the package's."""
    nb = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    cells = {c["id"]: "".join(c["source"]) for c in nb["cells"]}
    namespace = {"torch": torch, "nn": torch.nn}
    for cell_id in ("6e735b6a", "59ef407e", "b7a1c002"):
        exec(cells[cell_id], namespace)  # noqa: S102
    return namespace, cells


def test_the_zero_grad_claims_hold_with_torchs_own_generator(torch):
    """Cells b3170c5a and b7a1c006: what the text concludes holds for the package's numbers and
    for the same cells on PyTorch (other numbers: its generator differs), which it quotes."""
    ns, cells = _notebook_cells_on(torch)
    with_reset, without = ns["grad_norms"](reset=True), ns["grad_norms"](reset=False)
    assert (with_reset, without) == ([8.31, 14.27, 5.65], [8.31, 18.87, 17.26])
    assert "`[8.31, 14.27, 5.65]` and `[8.31, 18.87, 17.26]`" in cells["b3170c5a"]
    text = notebook_text()
    package = [eval(line.split(": ")[-1]) for line in text.splitlines()  # noqa: S307
               if line.startswith(("with zero_grad():", "without zero_grad():"))]
    for reset, free in ((with_reset, without), tuple(package[:2])):
        assert reset[0] == free[0] and all(b > a for a, b in zip(reset[1:], free[1:]))
    # the verdict, in torch with torch's own batches
    torch.manual_seed(2)
    stream = [(torch.randn(4, 10), torch.randn(4, 1) * 3) for _ in range(400)]
    repeated_reset = ns["train"](ns["batches"], 400, reset=True)[1]
    stream_reset = ns["train"](stream, 400, reset=True)[1]
    repeated = ns["train"](ns["batches"], 400, reset=False)[1]
    stream_free = ns["train"](stream, 400, reset=False)[1]
    assert repeated_reset[400] < repeated_reset[1]
    assert 5 < min(stream_reset.values()) and max(stream_reset.values()) < 15
    assert repeated[10] > 2 * repeated[1]
    assert stream_free[400] > 10_000 and stream_free[1] < stream_free[10] < stream_free[100]
    norms = []  # 20,000 steps on the three repeated batches, without the reset
    torch.manual_seed(1)
    model = torch.nn.Linear(10, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for step in range(20_000):
        data, target = ns["batches"][step % 3]
        ns["criterion"](model(data), target).backward()
        norms.append(ns["grad_norm"](model))
        optimizer.step()
    assert 9.5 <= min(norms[9:]) and max(norms) <= 47
    verdict = " ".join(cells["b7a1c006"].split())
    for claim in ("between 6.5 and 45 here", "between 9.5 and 47 with PyTorch's own random numbers",
                  "past 10,000 by step 400 in both", "more than twice its first value"):
        assert claim in verdict, claim
    assert "we ran" not in verdict and "18,000" not in verdict


def test_notebook_train_norms_are_torchs(torch):
    text = notebook_text()
    pick = lambda norms: {s: round(float(norms[s - 1]), 1) for s in (1, 10, 100, 400)}
    batches = notebook_batches_and_weights()[0]
    for name, data in [("the same 3 batches, repeated", batches),
                       ("a new batch every step", notebook_stream())]:
        for reset in (True, False):
            norms, _ = _torch_norms(torch, data, 400, reset)
            assert f"{name:28} zero_grad={str(reset):5}  grad norm at step {pick(norms)}" in text


# -- extensions: four ways to stop recording, version counters, grad vs inputs=, micro-batches ---
def test_four_ways_to_stop_recording(libs):
    """The table: no_grad / detach / inference_mode results, and requires_grad_(False)."""
    rows = []
    for lib in libs:
        w = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        with lib.no_grad():
            a = w * 2
        with lib.inference_mode():
            i = w * 2
        y = w * 2
        d = y.detach()
        d.add_(1)  # detach shares memory and the version counter
        frozen = lib.tensor([1.0, 2.0], requires_grad=True).requires_grad_(False)
        rows.append([
            [(t.requires_grad, t.grad_fn is None, t.is_inference()) for t in (a, d, i)],
            (a._version, d.data_ptr() == y.data_ptr(), y._version, d._version),
            str(error_of(lambda: i._version)),
            str(error_of(lambda: (i * w).sum().backward())),
            str(error_of(lambda: i.add_(1))),
            str(error_of(lambda: (w * 2).requires_grad_(False))),
            (frozen.requires_grad, (frozen * 2).grad_fn is None, (a * w).grad_fn.name()),
        ])
    assert rows[0] == rows[1]
    assert rows[0][0] == [(False, True, False), (False, True, False), (False, True, True)]
    assert rows[0][1] == (0, True, 1, 1)
    assert rows[0][2] == "Inference tensors do not track version counter."
    assert rows[0][3].startswith("Inference tensors cannot be saved for backward.")
    assert rows[0][6] == (False, True, "MulBackward0")


def test_version_counter_and_a_stale_saved_leaf(libs):
    outcomes = []
    for lib in libs:
        w = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        loss = (w * w).sum()
        with lib.no_grad():
            w.add_(1)
        outcomes.append((w._version, w.detach()._version, str(error_of(loss.backward))))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][:2] == (1, 1)
    assert outcomes[0][2].startswith(
        "one of the variables needed for gradient computation has been modified by an inplace "
        "operation: [torch.FloatTensor [3]] is at version 1; expected version 0 instead.")


def test_autograd_grad_and_backward_inputs_run_only_their_branch(libs):
    outcomes = []
    for lib in libs:
        def two_branches():
            w = lib.tensor([1.0, 2.0], requires_grad=True)
            b = lib.tensor([0.5, -1.0], requires_grad=True)
            return w, b, ((w * 3).exp() + b * b).sum()
        w, b, loss = two_branches()
        (grad_b,) = lib.autograd.grad(loss, [b])
        row = [grad_b.tolist(), b.grad, w.grad]
        w, b, loss = two_branches()
        loss.backward(inputs=[b])
        row += [b.grad.tolist(), w.grad]
        loss.backward(inputs=[w])
        row += [np.round(w.grad.tolist(), 3).tolist(), str(error_of(loss.backward))]
        outcomes.append(row)
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][:5] == [[1.0, -2.0], None, None, [1.0, -2.0], None]
    assert outcomes[0][6].startswith(FREED)


def test_micro_batch_accumulation_with_loss_scaling(libs):
    rs = np.random.RandomState(3)
    data, target = rs.randn(8, 10), rs.randn(8, 1)
    weight, bias = rs.randn(1, 10) * 0.3, rs.randn(1) * 0.3
    for lib in libs:
        model = lib.nn.Linear(10, 1, dtype=lib.float64)
        with lib.no_grad():
            model.weight.copy_(lib.tensor(weight))
            model.bias.copy_(lib.tensor(bias))
        x, t = lib.tensor(data), lib.tensor(target)

        def accumulated(k, scale=True):
            model.zero_grad()
            for i in range(k):
                rows = slice(i * 8 // k, (i + 1) * 8 // k)
                loss = lib.nn.MSELoss()(model(x[rows]), t[rows])
                (loss / k if scale else loss).backward()
            return np.array(model.weight.grad.tolist())
        full = accumulated(1)
        for k in (2, 4, 8):
            np.testing.assert_allclose(accumulated(k), full, atol=1e-12)
            np.testing.assert_allclose(accumulated(k, scale=False), k * full, atol=1e-12)
        assert np.abs(full).max() > 0.1


def test_notebook_shows_torchs_inference_and_version_errors(torch):
    text = notebook_text()
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with torch.inference_mode():
        i = w * 2
    loss = (w * w).sum()
    with torch.no_grad():
        w.add_(1)
    for call in ((lambda: (i * w).sum().backward()), (lambda: i.add_(1)), loss.backward):
        assert f"✗ RuntimeError: {first_sentence(error_of(call))}" in text
