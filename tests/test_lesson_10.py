"""The claims of notebooks/10_inplace_and_anomaly.ipynb, checked in autograd_lesson and in torch.

Each function below is the notebook's code with ``lib`` for ``torch``; the tests run it in both
libraries and compare with what the lesson says (and, where the notebook prints a verdict, with
the notebook's stored output). That every cell prints the same when run twice is checked for
all notebooks by tests/test_rerun.py.
"""
import os
import pathlib
import warnings

import nbformat
import numpy as np
import pytest

import autograd_lesson
import scenarios as S
from autograd_lesson import lesson

NOTEBOOK = pathlib.Path(__file__).parent.parent / "notebooks" / "10_inplace_and_anomaly.ipynb"
VERSION = ("one of the variables needed for gradient computation has been modified by an inplace "
           "operation: [torch.{kind}Tensor {shape}], which is output 0 of {op}, is at version "
           "{now}; expected version {saved} instead. Hint: ")
HINT = ("enable anomaly detection to find the operation that failed to compute its gradient, "
        "with torch.autograd.set_detect_anomaly(True, check_nan=False).")
ANOMALY_HINT = ("the backtrace further above shows the operation that failed to compute its "
                "gradient. The variable in question was changed in there or anywhere later. "
                "Good luck!")


def outcome(fn):
    try:
        fn()
    except Exception as error:  # noqa: BLE001  (the outcome is the point)
        return str(error)
    return None


def stored_text(cell_id):
    nb = nbformat.read(NOTEBOOK, as_version=4)
    cell = next(c for c in nb.cells if c.get("id") == cell_id)
    return "".join(o.get("text", "") for o in cell.outputs if o.get("output_type") == "stream")


# -- the notebook's code, for either library ------------------------------------------------------
def make_model(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(4, 1), lib.nn.Sigmoid())


def data(lib):
    lib.manual_seed(0)
    return lib.randn(3, 4), lib.tensor([[1.0], [0.0], [1.0]])


def clamped_loss(lib, model, x, y):
    probs = model(x)
    probs.clamp_(1e-6, 1 - 1e-6)
    return lib.nn.functional.binary_cross_entropy(probs, y)


def try_inplace(lib, activation, inplace_op):
    lib.manual_seed(0)
    x = lib.ones(2, 3, requires_grad=True)
    h = lib.nn.Linear(3, 3)(x)
    if callable(activation):
        h = activation(lib, h)
    elif activation is not None:
        h = getattr(lib, activation)(h)
    inplace_op(lib, h, x)
    return lambda: h.sum().backward()


TABLE = [  # (label, activation, op, the op named in the error or None)
    ("Linear → ReLU(inplace=True)", None, lambda lib, h, x: lib.nn.ReLU(inplace=True)(h), None),
    ("Sigmoid → ReLU(inplace=True)", "sigmoid", lambda lib, h, x: lib.nn.ReLU(inplace=True)(h),
     "Sigmoid"),
    ("Linear → h += x", None, lambda lib, h, x: h.add_(x), None),
    ("ReLU → h += x", "relu", lambda lib, h, x: h.add_(x), "Relu"),
    ("Tanh → h += x", "tanh", lambda lib, h, x: h.add_(x), "Tanh"),
    ("ReLU → h *= 2", "relu", lambda lib, h, x: h.mul_(2), "Relu"),
    ("LeakyReLU → h += x", lambda lib, h: lib.nn.functional.leaky_relu(h, 0.2),
     lambda lib, h, x: h.add_(x), None),
    ("Linear → h.exp_()", None, lambda lib, h, x: h.exp_(), None),
    ("Linear → h.exp_() → h += x", None, lambda lib, h, x: h.exp_().add_(x), "Exp"),
    ("Linear → LeakyReLU(inplace=True) → h += x", None,
     lambda lib, h, x: lib.nn.LeakyReLU(0.2, inplace=True)(h).add_(x), "LeakyRelu1"),
    ("Linear → h.clamp_(0, 1)", None, lambda lib, h, x: h.clamp_(0, 1), None),
    ("Linear → clamp_ → h += x", None, lambda lib, h, x: h.clamp_(0, 1).add_(x), None),
]


def rnn(lib, into_buffer, steps=5):
    lib.manual_seed(0)
    W_ih, W_hh = lib.randn(3, 4, requires_grad=True), lib.randn(4, 4, requires_grad=True)
    x, h = lib.randn(steps, 2, 3), lib.zeros(2, 4)
    outs, collected = lib.zeros(steps, 2, 4), []
    for t in range(steps):
        h = lib.tanh(x[t] @ W_ih + h @ W_hh)
        if into_buffer:
            outs[t] = h
        else:
            collected.append(h)
    return (outs if into_buffer else lib.stack(collected)), W_hh


def rnn_reading_buffer(lib, steps=5, clone=False):
    lib.manual_seed(0)
    W_ih, W_hh = lib.randn(3, 4, requires_grad=True), lib.randn(4, 4, requires_grad=True)
    x, hs = lib.randn(steps, 2, 3), lib.zeros(steps + 1, 2, 4)
    for t in range(steps):
        prev = hs[t].clone() if clone else hs[t]
        hs[t + 1] = lib.tanh(x[t] @ W_ih + prev @ W_hh)
    return hs


class _Block:
    def __init__(self, lib):
        lib.manual_seed(0)
        self.fc1 = lib.nn.Linear(3, 3, dtype=lib.float64)
        self.fc2 = lib.nn.Linear(3, 3, dtype=lib.float64)


def resnet_style(lib, block, x):
    out = block.fc2(lib.nn.functional.relu(block.fc1(x)))
    out += x
    return lib.nn.functional.relu(out, inplace=True)


def broken_forward(lib, block, x):
    h = lib.tanh(block.fc1(x))
    h += x
    gate = block.fc2(h)
    gate.sigmoid_()
    return gate * h


def fixed_forward(lib, block, x):
    h = lib.tanh(block.fc1(x))
    h = h + x
    gate = block.fc2(h)
    gate.sigmoid_()
    return gate * h


def anomaly_warnings(lib, run):
    """(error message, [warning texts]) of ``run`` under detect_anomaly."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with lib.autograd.detect_anomaly():
            error = outcome(run)
    return error, [str(w.message) for w in caught if w.category is UserWarning]


# -- an error about an op you did not write ---------------------------------------------------------
def test_clamp_on_the_sigmoid_output(lib):
    x, y = data(lib)
    error = outcome(lambda: clamped_loss(lib, make_model(lib), x, y).backward())
    assert error == VERSION.format(kind="Float", shape="[3, 1]", op="Sigmoid", now=1, saved=0) + HINT
    assert stored_text("l10-clamped").strip() == lesson.verdict(RuntimeError(error))
    probs = make_model(lib)(x)
    assert probs._version == 0
    probs.clamp_(1e-6, 1 - 1e-6)
    assert probs._version == 1
    clamp = probs.grad_fn
    sigmoid = clamp.next_functions[0][0]
    assert (clamp.name(), sigmoid.name()) == ("ClampBackward1", "SigmoidBackward0")
    # ClampBackward1 saved a copy of the old values; SigmoidBackward0's saved output is stale.
    saved_self = clamp._saved_self
    assert saved_self is not probs and saved_self.data_ptr() != probs.data_ptr()
    assert saved_self.grad_fn.name() == "CloneBackward0"
    assert S._read_slot(sigmoid, "result") == "stale"
    fixed = make_model(lib)(x).clamp(1e-6, 1 - 1e-6)
    assert outcome(lambda: lib.nn.functional.binary_cross_entropy(fixed, y).backward()) is None


def test_bce_with_logits_is_the_other_fix(torch):
    x, y = data(torch)
    logits = make_model(torch)[0](x)
    torch.nn.functional.binary_cross_entropy_with_logits(logits, y).backward()


# -- what an in-place op does to the graph ----------------------------------------------------------
def _saved_input(lib, change):
    """``y = h ** 2`` saves its input ``h``; ``change(h)`` then modifies it."""
    lib.manual_seed(0)
    x = lib.randn(4, 3, requires_grad=True)
    h = lib.nn.Linear(3, 2)(x)
    y = h ** 2
    change(lib, h)
    return lambda: y.sum().backward()


def _saved_output(lib, activation, change):
    lib.manual_seed(0)
    x = lib.randn(4, 3, requires_grad=True)
    e = getattr(lib, activation)(lib.nn.Linear(3, 2)(x))
    change(lib, e)
    return lambda: e.sum().backward()


def _no_grad_add(lib, h):
    with lib.no_grad():
        h.add_(1)


def _view_of_changed_base(lib):
    lib.manual_seed(0)
    W = lib.randn(4, 4, requires_grad=True)
    hs = lib.zeros(3, 2, 4)
    hs[1] = lib.tanh(lib.randn(2, 4) @ W)
    y = hs[1] @ W              # MmBackward0 saves the view hs[1]
    hs[2] = y                  # a write into another slot bumps the shared version
    return lambda: y.sum().backward()


def _saved_leaf(lib):
    a = lib.randn(3, requires_grad=True)
    y = a ** 2
    with lib.no_grad():
        a.add_(1)
    return lambda: y.sum().backward()


@pytest.mark.parametrize("make, named", [
    # a saved INPUT: the message names the tensor's grad_fn now, the last in-place op on it
    (lambda lib: _saved_input(lib, lambda lib, h: h.add_(1)), "which is output 0 of Add,"),
    (lambda lib: _saved_input(lib, lambda lib, h: h.mul_(2)), "which is output 0 of Mul,"),
    (lambda lib: _saved_input(lib, lambda lib, h: h.relu_()), "which is output 0 of Relu,"),
    (lambda lib: _saved_input(lib, lambda lib, h: h.relu_().mul_(3)), "which is output 0 of Mul,"),
    (lambda lib: _saved_input(lib, _no_grad_add), "which is output 0 of Addmm,"),
    (lambda lib: _saved_input(lib, lambda lib, h: h.detach().add_(1)),
     "which is output 0 of Addmm,"),
    # a saved OUTPUT: the node that saved it, however many in-place ops followed
    (lambda lib: _saved_output(lib, "exp", lambda lib, e: e.add_(1)), "which is output 0 of Exp,"),
    (lambda lib: _saved_output(lib, "exp", lambda lib, e: e.add_(1).mul_(2)),
     "which is output 0 of Exp,"),
    (lambda lib: _saved_output(lib, "sigmoid", lambda lib, e: e.mul_(2)),
     "which is output 0 of Sigmoid,"),
    (lambda lib: _saved_output(lib, "tanh", lambda lib, e: e.relu_()), "which is output 0 of Tanh,"),
    # the name drops "Backward" and a 0 after it, keeps any other digit, and is whole otherwise
    (lambda lib: _saved_input(lib, lambda lib, h: h.clamp_(0, 1)), "which is output 0 of Clamp1,"),
    (lambda lib: _saved_input(lib, lambda lib, h: h.fill_(2.0)), "which is output 0 of Fill2,"),
    (lambda lib: _saved_input(lib, lambda lib, h: lib.nn.LeakyReLU(0.2, inplace=True)(h)),
     "which is output 0 of LeakyRelu1,"),
    (lambda lib: _saved_input(lib, lambda lib, h: h.zero_()), "which is output 0 of Zero,"),
    (lambda lib: _saved_input(lib, lambda lib, h: h[0].mul_(2)),
     "which is output 0 of torch::autograd::CopySlices,"),
    (lambda lib: _saved_input(lib, lambda lib, h: h.__setitem__(0, 0.0)),
     "which is output 0 of torch::autograd::CopySlices,"),
    (lambda lib: _saved_input(lib, lambda lib, h: h.copy_(lib.ones(4, 2))),
     "which is output 0 of torch::autograd::CopyBackwards,"),
    # a saved view whose base changed, and a saved leaf
    (_view_of_changed_base, "which is output 0 of AsStrided,"),
    (_saved_leaf, "[torch.FloatTensor [3]] is at version 1;"),
], ids=["add_", "mul_", "relu_", "relu_-then-mul_", "no_grad-add_", "detach-add_",
        "exp-add_", "exp-add_-mul_", "sigmoid-mul_", "tanh-relu_", "clamp_", "fill_",
        "leaky_relu-inplace", "zero_", "slice-mul_", "slice-write", "copy_", "view-base", "leaf"])
def test_which_node_the_version_error_names(lib, make, named):
    """l10-read-error: a saved output is named by the node that saved it; a saved input by its
    current grad_fn (the last in-place op, AsStrided for a view of a changed base); a leaf not."""
    error = outcome(make(lib))
    assert error.startswith("one of the variables needed for gradient computation")
    assert named in error
    if "[3]]" in named:
        assert "which is output" not in error


def test_the_read_error_cell_states_the_rule():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    text = next(c for c in nb.cells if c.get("id") == "l10-read-error").source
    assert "last in-place op" in text and "own **output**" in text and "AsStrided" in text
    assert "`Clamp1`" in text and "`torch::autograd::CopySlices`, not `Mul`" in text
    assert "minus the `Backward0` suffix" not in text
    assert "the op that produced that tensor. PyTorch names the node\n  that made it" not in text


def test_relu_inplace_moves_grad_fn(lib):
    a = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
    h = a * 2
    before = h.grad_fn
    out = lib.nn.ReLU(inplace=True)(h)
    assert out is h and h._version == 1
    assert (before.name(), h.grad_fn.name()) == ("MulBackward0", "ReluBackward0")
    assert h.grad_fn.next_functions == ((before, 0),)
    assert h.grad_fn._saved_result.data_ptr() == h.data_ptr()  # the result is h itself
    assert before._saved_other.item() == 2 and before._saved_self is None
    h.sum().backward()
    assert a.grad.tolist() == [2.0, 0.0, 2.0]


@pytest.mark.parametrize("op", ["relu_", "sigmoid_", "tanh_", "exp_", "add_", "mul_", "clamp_"])
def test_most_inplace_ops_record_their_twins_node(lib, op):
    """l10-what-inplace: most in-place ops record the node of their out-of-place twin."""
    args = {"add_": (1.0,), "mul_": (2.0,), "clamp_": (0.0, 1.0)}.get(op, ())
    a = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
    out_of_place = getattr(a * 1, op[:-1])(*args)
    h = a * 1
    getattr(h, op)(*args)
    assert h.grad_fn.name() == out_of_place.grad_fn.name()


def _tensor_slots(lib, node):
    return sorted(s for s in S._slot_names(lib, node)
                  if isinstance(getattr(node, "_saved_" + s), lib.Tensor))


# (module name, its arguments, the node name in place, the op the version error names)
OWN_NODE = [("LeakyReLU", (0.2,), "LeakyReluBackward1", "LeakyRelu1"),
            ("ELU", (), "EluBackward1", "Elu1"),
            ("CELU", (), "CeluBackward1", "Celu1"),
            ("SELU", (), "EluBackward1", "Elu1")]


@pytest.mark.parametrize("module, args, node, named", OWN_NODE, ids=[m[0] for m in OWN_NODE])
def test_inplace_activations_that_record_their_own_node(torch, module, args, node, named):
    """In PyTorch, LeakyReLU, ELU, CELU and SELU with inplace=True record a ...Backward1 node
    that saves the result (the tensor itself), where the out-of-place op saves its input. So an
    in-place op after them breaks backward, and after the out-of-place op it does not."""
    a = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    out = getattr(torch.nn, module)(*args)(a * 2)
    assert out.grad_fn.name().endswith("Backward0")
    assert _tensor_slots(torch, out.grad_fn) == ["self"]
    h = a * 2
    assert getattr(torch.nn, module)(*args, inplace=True)(h) is h
    assert h.grad_fn.name() == node and _tensor_slots(torch, h.grad_fn) == ["result"]
    assert h.grad_fn._saved_result.data_ptr() == h.data_ptr()
    def make(inplace):
        return lambda lib, h, x: getattr(lib.nn, module)(*args, inplace=inplace)(h).add_(x)
    error = outcome(try_inplace(torch, None, make(True)))
    assert f"which is output 0 of {named}, is at version 2; expected version 1 instead." in error
    assert outcome(try_inplace(torch, None, make(False))) is None


def test_leaky_relu_inplace_in_both_libraries(lib):
    """l10-own-node: the cell's two lines, and the error of the table's case."""
    a = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
    out = lib.nn.functional.leaky_relu(a * 2, 0.2)
    h = a * 2
    lib.nn.LeakyReLU(0.2, inplace=True)(h)
    assert (out.grad_fn.name(), _tensor_slots(lib, out.grad_fn)) == ("LeakyReluBackward0", ["self"])
    assert (h.grad_fn.name(), _tensor_slots(lib, h.grad_fn)) == ("LeakyReluBackward1", ["result"])
    h.sum().backward()
    assert a.grad.tolist() == pytest.approx([2.0, 0.4, 2.0])
    assert stored_text("l10-own-node").splitlines() == [
        "F.leaky_relu(h, 0.2)                records LeakyReluBackward0, which saves ['self']",
        "nn.LeakyReLU(0.2, inplace=True)(h)  records LeakyReluBackward1, which saves ['result']"]


def test_threshold_and_fill_in_place_record_nodes_of_their_own(torch):
    """threshold_ records ThresholdBackward1, which (like ThresholdBackward0) saves its input, as a
    copy; fill_ records FillBackward2, which saves nothing; their twins are ...Backward0."""
    a = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    out = torch.nn.functional.threshold(a * 2, 0.5, 0.0)
    h = a * 2
    torch.nn.functional.threshold_(h, 0.5, 0.0)
    assert (out.grad_fn.name(), h.grad_fn.name()) == ("ThresholdBackward0", "ThresholdBackward1")
    assert _tensor_slots(torch, out.grad_fn) == _tensor_slots(torch, h.grad_fn) == ["self"]
    saved = h.grad_fn._saved_self
    assert saved.data_ptr() != h.data_ptr() and saved.grad_fn.name() == "CloneBackward0"
    assert h.add_(1) is h and outcome(lambda: h.sum().backward()) is None
    assert torch.fill(a * 2, 1.0).grad_fn.name() == "FillBackward0"
    for lib in (autograd_lesson, torch):
        h = lib.tensor([1.0, -2.0, 3.0], requires_grad=True) * 2
        h.fill_(1.0)
        assert h.grad_fn.name() == "FillBackward2" and _tensor_slots(lib, h.grad_fn) == []


def test_the_new_inplace_text_states_the_exceptions():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    text = {c.get("id"): c.source for c in nb.cells}
    assert "Most in-place ops record **the same node as their out-of-place twin**" in text[
        "l10-what-inplace"]
    for fact in ("`LeakyReluBackward1`", "`EluBackward1`", "`CeluBackward1`", "`ThresholdBackward1`",
                 "`FillBackward2`"):
        assert fact in text["l10-own-node-md"] + text["l10-own-node-after"], fact
    assert "An in-place op records the same node as its out-of-place twin" not in text["l10-summary"]
    assert "`clamp_`, `abs_` and `mul_(w)` save a copy" not in text["l10-summary"]
    assert "when `w` requires grad" in text["l10-summary"]


def test_the_twelve_cases(lib):
    printed = stored_text("l10-table").splitlines()
    assert len(printed) == len(TABLE)
    for (label, activation, op, named), line in zip(TABLE, printed):
        error = outcome(try_inplace(lib, activation, op))
        if named is None:
            assert error is None, label
        else:
            assert f"which is output 0 of {named}, is at version" in error, label
        assert line.split("  ")[0].strip() == label
        assert line.endswith(lesson.verdict(None if error is None else RuntimeError(error)))


@pytest.mark.parametrize("op, group", [
    ("exp_", "result"), ("sigmoid_", "result"), ("tanh_", "result"), ("relu_", "result"),
    ("sqrt_", "result"), ("reciprocal_", "result"),
    ("clamp_", "copy"), ("abs_", "copy"), ("log_", "copy"), ("pow_", "copy"), ("mul_w", "copy"),
    ("div_w", "copy"),
    ("leaky_relu_inplace", "result"),
    ("add_", "nothing"), ("sub_", "nothing"), ("neg_", "nothing"), ("zero_", "nothing"),
    ("fill_", "nothing"), ("mul_2", "scalar"), ("mul_c", "constant")])
def test_what_each_inplace_op_saves(lib, op, group):
    """The lesson's three groups: saves the result (the tensor), a copy of the old values, none."""
    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = lib.tensor([2.0, 3.0, 4.0], requires_grad=True)
    c = lib.tensor([2.0, 3.0, 4.0])  # a constant: does not require grad
    h = a * 1 + 1
    call = {"clamp_": lambda: h.clamp_(0, 2), "pow_": lambda: h.pow_(2), "fill_": lambda: h.fill_(1.0),
            "mul_w": lambda: h.mul_(w), "div_w": lambda: h.div_(w), "mul_2": lambda: h.mul_(2),
            "add_": lambda: h.add_(w), "sub_": lambda: h.sub_(w), "mul_c": lambda: h.mul_(c),
            "leaky_relu_inplace": lambda: lib.nn.LeakyReLU(0.2, inplace=True)(h),
            }.get(op, lambda: getattr(h, op)())
    call()
    node = h.grad_fn
    tensors = {slot: getattr(node, "_saved_" + slot) for slot in S._slot_names(lib, node)}
    tensors = {k: v for k, v in tensors.items() if v is not None}
    if group == "result":
        assert list(tensors) == ["result"] and tensors["result"].data_ptr() == h.data_ptr()
        assert h.add_(1) is h and outcome(lambda: h.sum().backward()) is not None
    elif group == "copy":
        assert tensors["self"].data_ptr() != h.data_ptr()
        assert tensors["self"].grad_fn.name() == "CloneBackward0"
        assert h.add_(1) is h and outcome(lambda: h.sum().backward()) is None
    elif group == "scalar":
        assert list(tensors) == ["other"] and tensors["other"].ndim == 0
    elif group == "constant":  # mul_(w) copies the old values only when w requires grad
        assert list(tensors) == ["other"] and tensors["other"] is c
        assert h.add_(1) is h and outcome(lambda: h.sum().backward()) is None
    else:
        assert tensors == {}


# -- a residual block -----------------------------------------------------------------------------
def test_resnet_style_block_is_safe(lib):
    x = lib.randn(2, 3, dtype=lib.float64, requires_grad=True)
    out = resnet_style(lib, _Block(lib), x)
    assert (out.grad_fn.name(), out._version) == ("ReluBackward0", 2)
    assert outcome(lambda: out.sum().backward()) is None
    assert "out.grad_fn: ReluBackward0 | version of out: 2\n✓ no error" in stored_text("l10-block-run")


def test_activation_before_the_add_breaks(lib):
    block, x = _Block(lib), lib.randn(2, 3, dtype=lib.float64, requires_grad=True)
    out = lib.tanh(block.fc2(lib.nn.functional.relu(block.fc1(x))))
    out += x
    error = outcome(lambda: out.sum().backward())
    assert error.startswith(VERSION.format(kind="Double", shape="[2, 3]", op="Tanh", now=1, saved=0))


def test_a_real_resnet_basic_block(torch):
    """ResNet's order (conv, bn, += identity, ReLU(inplace=True)) needs no saved output."""
    torch.manual_seed(0)
    nn = torch.nn
    conv1, bn1, conv2, bn2 = nn.Conv2d(2, 2, 3, padding=1), nn.BatchNorm2d(2), nn.Conv2d(
        2, 2, 3, padding=1), nn.BatchNorm2d(2)
    relu = nn.ReLU(inplace=True)
    x = relu(torch.randn(2, 2, 4, 4, requires_grad=True) * 1)
    out = bn2(conv2(relu(bn1(conv1(x)))))
    out += x
    out = relu(out)
    out.sum().backward()


# -- CopySlices ------------------------------------------------------------------------------------
def test_buffer_filled_in_a_loop(lib):
    outs, W_hh = rnn(lib, True)
    assert outs.grad_fn.name() == "torch::autograd::CopySlices" and outs._version == 5
    assert [f.name() for f, _ in outs.grad_fn.next_functions if f is not None] == [
        "torch::autograd::CopySlices", "TanhBackward0"]
    (outs ** 2).sum().backward()
    buffered = S.as_array(W_hh.grad)
    stacked, W_hh = rnn(lib, False)
    (stacked ** 2).sum().backward()
    assert np.abs(buffered - S.as_array(W_hh.grad)).max() == 0.0
    text = stored_text("l10-rnn-graph")
    assert "outs.grad_fn: torch::autograd::CopySlices | version: 5" in text
    assert "buffer vs stack: 0.0" in text


def test_two_step_backward_runs_fourteen_nodes(lib):
    outs, W_hh = rnn(lib, True, steps=2)
    loss = (outs ** 2).sum()
    record = S.Recorder(lib).graph(loss)
    record("loss.backward()", lambda: loss.backward(), count_nodes=True)
    executed = record.entries[-1]["executed"]
    assert sum(executed.values()) == 14
    assert "ran 14 nodes" in stored_text("l10-rnn-picture")


def test_copyslices_second_backward(lib):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    buffer = lib.zeros(2, 3)
    buffer[:, 0] = a
    assert [n for n in S._slot_names(lib, buffer.grad_fn)] == []
    buffer.sum().backward()
    assert a.grad.tolist() == [1.0, 1.0]
    assert outcome(lambda: buffer.sum().backward()) == S.FREED


def test_exercise_2(lib):
    """A backward through a filled buffer frees what the written values' nodes saved; the
    CopySlices nodes themselves save nothing."""
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    buffer = lib.zeros(2, 3)
    buffer[:, 0] = a.exp()
    buffer[:, 1] = a * a
    loss = buffer.sum()
    nodes = S.walk([loss])[0]
    assert [n.name() for n in nodes] == [
        "SumBackward0", "torch::autograd::CopySlices", "torch::autograd::CopySlices",
        "MulBackward0", "ExpBackward0", "torch::autograd::AccumulateGrad"]
    slots = {f"{n.name()}.{s}" for n in nodes for s in S._slot_names(lib, n)
             if S._read_slot(n, s) == "alive"}
    loss.backward()
    freed = {f"{n.name()}.{s}" for n in nodes for s in S._slot_names(lib, n)
             if S._read_slot(n, s) == "freed"}
    assert slots == freed == {"ExpBackward0.result", "MulBackward0.self", "MulBackward0.other"}
    assert outcome(lambda: loss.backward()) == S.FREED
    assert "✓ correct: it freed ExpBackward0.result, MulBackward0.other, MulBackward0.self." in \
        stored_text("10-freed-check")


def test_buffer_read_and_written(lib):
    error = outcome(lambda: rnn_reading_buffer(lib).sum().backward())
    assert error == VERSION.format(kind="Float", shape="[2, 4]", op="AsStrided", now=5, saved=4) + HINT
    assert outcome(lambda: rnn_reading_buffer(lib, clone=True).sum().backward()) is None
    hs = rnn_reading_buffer(lib, steps=1)
    view = hs[1]
    assert view.grad_fn.name() == "SelectBackward0"
    hs[0] = lib.ones(2, 4, requires_grad=True)  # another slot: same version counter
    assert view.grad_fn.name() == "AsStridedBackward0"


# -- anomaly detection -----------------------------------------------------------------------------
def test_anomaly_names_the_users_line(lib, torch):
    x, y = data(lib)
    error, texts = anomaly_warnings(lib, lambda: clamped_loss(lib, make_model(lib), x, y).backward())
    assert error.endswith("Hint: " + ANOMALY_HINT)
    assert texts[0].startswith("Anomaly Detection has been enabled.")
    head, *trace = texts[1].split(" (Triggered internally at")[0].splitlines()
    assert head == ("Error detected in SigmoidBackward0. Traceback of forward call that caused "
                    "the error:")
    lib_dirs = (os.path.dirname(autograd_lesson.__file__), os.path.dirname(torch.__file__))
    ours = [i for i, line in enumerate(trace) if not any(d in line for d in lib_dirs)]
    mine = [trace[i].strip() for i in ours if trace[i].strip().startswith("probs")]
    assert mine == ["probs = model(x)"]
    if lib is torch:  # PyTorch's trace goes on into torch/nn/modules after the user's line
        assert any(os.path.join("torch", "nn", "modules") in line for line in trace)
    else:
        assert trace[-1].strip() == "probs = model(x)"
    assert stored_text("l10-anomaly-clamp").splitlines()[-1] == "    … probs = model(x)"


def test_show_anomaly_prints_the_verdict_without_its_hint(lib):
    """l10-anomaly-intro: the one-line verdict drops the (new) hint; l10-anomaly-hint prints it."""
    x, y = data(lib)
    error, _ = anomaly_warnings(lib, lambda: clamped_loss(lib, make_model(lib), x, y).backward())
    assert "Hint: " + ANOMALY_HINT in error
    verdict = stored_text("l10-anomaly-clamp").splitlines()[0]
    assert verdict == "✗ RuntimeError: " + error.split(" Hint: ")[0]
    assert "Hint" not in stored_text("l10-anomaly-clamp")


def test_anomaly_hint_is_printed(lib):
    x, y = data(lib)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with lib.autograd.set_detect_anomaly(True):
            error = outcome(lambda: clamped_loss(lib, make_model(lib), x, y).backward())
    assert stored_text("l10-anomaly-hint").strip() == "Hint: " + ANOMALY_HINT
    assert error.endswith("Hint: " + ANOMALY_HINT)
    assert not lib.is_anomaly_enabled()


def test_nan_from_a_guarded_sqrt(lib):
    def guarded_sqrt():
        v = lib.tensor([-1.0, 4.0], requires_grad=True)
        lib.where(v > 0, v.sqrt(), 0.0).sum().backward()
        return v.grad
    grad = guarded_sqrt()
    assert np.isnan(grad[0].item()) and grad[1].item() == 0.25
    error, texts = anomaly_warnings(lib, guarded_sqrt)
    assert error == "Function 'SqrtBackward0' returned nan values in its 0th output."
    assert texts[1].startswith("Error detected in SqrtBackward0. Traceback of forward call")
    assert "lib.where(v > 0, v.sqrt(), 0.0).sum().backward()" in texts[1]
    v = lib.tensor([-1.0, 4.0], requires_grad=True)
    lib.where(v > 0, lib.where(v > 0, v, 1.0).sqrt(), 0.0).sum().backward()
    assert v.grad.tolist() == [0.0, 0.25]  # the fix the lesson names
    text = stored_text("l10-nan")
    assert "v.grad = tensor([   nan, 0.2500])" in text
    assert f"✗ RuntimeError: {error}" in text


# -- exercises -------------------------------------------------------------------------------------
def test_exercise_1(lib):
    """Which in-place op breaks backward: pow saves its input and exp its output (both raise);
    a product with a constant saves only the constant, and sum saves no tensor (both run)."""
    def make_fc():
        lib.manual_seed(0)
        return lib.nn.Linear(3, 2)

    x = lib.randn(4, 3, requires_grad=True)

    def square_then_add():
        h = make_fc()(x)
        y = h ** 2
        h.add_(1)
        y.sum().backward()

    def scale_then_zero():
        h = make_fc()(x)
        y = h * lib.tensor([2.0, -1.0])
        h.zero_()
        y.sum().backward()

    def sum_then_add():
        h = make_fc()(x)
        s = h.sum()
        h.add_(1)
        s.backward()

    def exp_then_neg():
        e = make_fc()(x).exp()
        e.neg_()
        e.sum().backward()

    assert outcome(square_then_add) == VERSION.format(
        kind="Float", shape="[4, 2]", op="Add", now=1, saved=0) + HINT
    assert outcome(exp_then_neg) == VERSION.format(
        kind="Float", shape="[4, 2]", op="Exp", now=1, saved=0) + HINT
    assert outcome(scale_then_zero) is None and outcome(sum_then_add) is None
    assert stored_text("10-which-raise-check").startswith(
        "✓ correct: exp_then_neg, square_then_add raise.")


def finite_difference(lib, forward, block, x, tensor, eps=1e-6):
    grad = np.zeros(tuple(tensor.shape))
    with lib.no_grad():
        flat = tensor.view(-1)
        for i in range(tensor.numel()):
            old = flat[i].item()
            flat[i] = old + eps
            up = forward(lib, block, x).sum().item()
            flat[i] = old - eps
            down = forward(lib, block, x).sum().item()
            flat[i] = old
            grad.reshape(-1)[i] = (up - down) / (2 * eps)
    return grad


def test_exercise_3(lib):
    block, x = _Block(lib), lib.randn(2, 3, dtype=lib.float64, requires_grad=True)
    error = outcome(lambda: broken_forward(lib, block, x).sum().backward())
    assert error.startswith(VERSION.format(kind="Double", shape="[2, 3]", op="Tanh", now=1, saved=0))
    block, x = _Block(lib), lib.randn(2, 3, dtype=lib.float64, requires_grad=True)
    fixed_forward(lib, block, x).sum().backward()
    for tensor in (x, block.fc1.weight):
        want = finite_difference(lib, broken_forward, block, x, tensor)
        assert np.abs(S.as_array(tensor.grad) - want).max() < 1e-6
    assert stored_text("10-block-check").startswith("✓ correct")


def test_mask_and_list_assignment_are_index_put(lib):
    """The summary: h[mask] = 0 and h[[1, 2]] = v record IndexPutBackward0 on h itself."""
    x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
    h = x * 1
    h[h < 0] = 0
    assert (h.grad_fn.name(), h._version) == ("IndexPutBackward0", 1)
    c = lib.zeros(3)
    c[[1, 2]] = x[[0, 0]]
    assert c.grad_fn.name() == "IndexPutBackward0"


def test_step_through_stops_at_the_sigmoid(lib):
    """The failing backward runs the loss's node and ClampBackward1 (which release their saves)
    and raises at SigmoidBackward0, whose stale output stays unreleased."""
    x, y = data(lib)
    probs = make_model(lib)(x)
    probs.clamp_(1e-6, 1 - 1e-6)
    loss = lib.nn.functional.binary_cross_entropy(probs, y)
    nodes = S.walk([loss])[0]
    assert [n.name() for n in nodes[:3]] == ["BinaryCrossEntropyBackward0", "ClampBackward1",
                                             "SigmoidBackward0"]
    assert "output 0 of Sigmoid" in outcome(lambda: loss.backward())
    states = [{s: S._read_slot(n, s) for s in S._slot_names(lib, n)} for n in nodes[:3]]
    assert states == [{"self": "freed", "target": "freed", "weight": "none"},
                      {"self": "freed"}, {"result": "stale"}]
    nb = nbformat.read(NOTEBOOK, as_version=4)
    cell = next(c for c in nb.cells if c.get("id") == "l10-step")
    text = "".join(o["data"].get("text/plain", "") for o in cell.outputs if "data" in o)
    assert "step 2: #3 ClampBackward1" in text and "step 4" not in text
    assert "step 3: #2 SigmoidBackward0 raised: ✗ RuntimeError" in text  # the failed unpack
