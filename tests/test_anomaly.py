"""Anomaly detection against PyTorch 2.13: switches, the slow-mode warning, the "Error detected
in ..." warning with the forward traceback, the changed version-error hint and the NaN check.

Each test runs the same code with both libraries. Tracebacks are compared frame by frame
after dropping the frames inside either library, so the test's own line must be the last one.
"""
import os
import warnings

import pytest

import autograd_lesson as al

pytestmark = pytest.mark.parity

SLOW = ("Anomaly Detection has been enabled. This mode will increase the runtime and should only "
        "be enabled for debugging.")
TRIGGERED = " (Triggered internally at"
HINT_OFF = ("Hint: enable anomaly detection to find the operation that failed to compute its "
            "gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).")
HINT_ON = ("Hint: the backtrace further above shows the operation that failed to compute its "
           "gradient. The variable in question was changed in there or anywhere later. Good luck!")
THIS_FILE = os.path.abspath(__file__)


@pytest.fixture
def libs(torch):
    yield (al, torch)
    for lib in (al, torch):
        lib.set_anomaly_enabled(False, True)


def _lib_dirs(torch):
    return (os.path.dirname(al.__file__), os.path.dirname(torch.__file__))


def run(lib, fn):
    """``fn(lib)``: (outcome, [warning texts]) with PyTorch's C++ location suffix cut off."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fn(lib)
            outcome = ["ok"]
        except Exception as exc:  # noqa: BLE001  (the outcome is the point)
            outcome = [type(exc).__name__, str(exc)]
    texts = [f"{w.category.__name__}: {str(w.message).split(TRIGGERED)[0]}" for w in caught
             if not isinstance(w.message, RuntimeWarning)]
    return outcome, texts, caught


def split_trace(text, dirs):
    """'Error detected in X. Traceback ...:' and the frames outside both libraries."""
    head, _, trace = text.partition("\n")
    frames = ["  File" + f for f in trace.split("  File")[1:]]
    return head, [f for f in frames if not any(f'"{d}' in f for d in dirs)]


def both(libs, fn):
    return [run(lib, fn) for lib in libs]


# -- switches --------------------------------------------------------------------------------------
def test_defaults_and_context_managers(libs):
    for lib in libs:
        assert (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()) == (False, True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            manager = lib.autograd.detect_anomaly(check_nan=False)  # the warning comes here
            line = caught[0].lineno if caught else None
            with manager:
                assert (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()) == (True, False)
            assert (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()) == (False, True)
        assert [(w.category, str(w.message), w.filename) for w in caught] == [
            (UserWarning, SLOW, THIS_FILE)]
        assert line is not None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = lib.autograd.set_detect_anomaly(True)
            assert type(result).__name__ == "set_detect_anomaly" and lib.is_anomaly_enabled()
            lib.autograd.set_detect_anomaly(False)
            assert not lib.is_anomaly_enabled()
            with lib.autograd.set_detect_anomaly(True, check_nan=False):
                assert (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()) == (True, False)
            assert (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()) == (False, True)
        assert caught == []  # set_detect_anomaly does not warn


def test_detect_anomaly_is_not_a_decorator(libs):
    """PyTorch 2.13's detect_anomaly has no __call__: decorating raises TypeError."""
    outcomes = []
    for lib in libs:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(TypeError) as info:
                lib.autograd.detect_anomaly()(lambda: None)
        outcomes.append(str(info.value))
    assert outcomes[0] == outcomes[1] == "'detect_anomaly' object is not callable"


def test_no_autograd_is_anomaly_enabled(libs):
    """The switches' readers live at the top level (torch.is_anomaly_enabled), not in autograd."""
    for lib in libs:
        assert not hasattr(lib.autograd, "is_anomaly_enabled")
        assert callable(lib.is_anomaly_enabled) and callable(lib.set_anomaly_enabled)


# -- a failing backward ---------------------------------------------------------------------------
def _sigmoid_then_inplace(lib):
    x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
    with lib.autograd.detect_anomaly():
        h = lib.sigmoid(x)
        h.mul_(2)
        h.sum().backward()


def test_version_error_warns_with_forward_trace(libs, torch):
    (ours, our_warnings, _), (theirs, their_warnings, _) = both(libs, _sigmoid_then_inplace)
    assert ours == theirs and ours[1].endswith(HINT_ON)
    assert "which is output 0 of Sigmoid, is at version 1; expected version 0" in ours[1]
    assert our_warnings[0] == their_warnings[0] == "UserWarning: " + SLOW
    dirs = _lib_dirs(torch)
    heads = [split_trace(w[1], dirs) for w in (our_warnings, their_warnings)]
    assert heads[0] == heads[1]
    head, frames = heads[0]
    assert head == ("UserWarning: Error detected in SigmoidBackward0. Traceback of forward call "
                    "that caused the error:")
    assert frames[-1].startswith(f'  File "{THIS_FILE}", line ')
    assert frames[-1].endswith(", in _sigmoid_then_inplace\n    h = lib.sigmoid(x)\n")


def _nested_module_forward(lib):
    layer = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.Sigmoid())
    x = lib.ones(4, 3)
    with lib.autograd.detect_anomaly():
        out = layer(x)
        lib.nn.ReLU(inplace=True)(out)
        out.sum().backward()


def test_trace_through_modules_ends_at_the_users_line(libs, torch):
    (ours, our_warnings, _), (theirs, their_warnings, _) = both(libs, _nested_module_forward)
    assert ours == theirs
    dirs = _lib_dirs(torch)
    (head, frames), (their_head, their_frames) = [split_trace(w[1], dirs)
                                                  for w in (our_warnings, their_warnings)]
    assert head == their_head == ("UserWarning: Error detected in SigmoidBackward0. Traceback of "
                                  "forward call that caused the error:")
    assert frames == their_frames
    assert frames[-1].endswith("in _nested_module_forward\n    out = layer(x)\n")


def test_forward_outside_anomaly_mode(libs):
    def fn(lib):
        x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        h = lib.sigmoid(x)
        h.mul_(2)
        with lib.autograd.detect_anomaly():
            h.sum().backward()
    (ours, our_warnings, _), (theirs, their_warnings, _) = both(libs, fn)
    assert ours == theirs
    assert our_warnings == their_warnings == [
        "UserWarning: " + SLOW,
        "UserWarning: Error detected in SigmoidBackward0. No forward pass information "
        "available. Enable detect anomaly during forward pass for more information."]


def test_anomaly_off_changes_nothing(libs):
    def fn(lib):
        x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        h = lib.sigmoid(x)
        h.mul_(2)
        assert h.grad_fn.metadata == {}
        h.sum().backward()
    (ours, our_warnings, _), (theirs, their_warnings, _) = both(libs, fn)
    assert ours == theirs and ours[1].endswith(HINT_OFF)
    assert our_warnings == their_warnings == []


def test_freed_error_warns(libs):
    def fn(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with lib.autograd.set_detect_anomaly(True):
            y = x * x
            y.sum().backward()
            y.sum().backward()
    (ours, our_warnings, _), (theirs, their_warnings, _) = both(libs, fn)
    assert ours == theirs and ours[1].startswith("Trying to backward through the graph a second")
    assert [w.split("\n")[0] for w in our_warnings] == [w.split("\n")[0] for w in their_warnings]
    assert our_warnings[0].startswith("UserWarning: Error detected in MulBackward0.")
    assert our_warnings[0].endswith("\n    y = x * x\n")


def test_custom_function_error(libs):
    def fn(lib):
        class Bad(lib.autograd.Function):
            @staticmethod
            def forward(ctx, i):
                return i.clone()

            @staticmethod
            def backward(ctx, grad):
                raise ValueError("boom")
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with lib.autograd.set_detect_anomaly(True):
            Bad.apply(x).sum().backward()
    (ours, our_warnings, _), (theirs, their_warnings, _) = both(libs, fn)
    assert ours == theirs == ["ValueError", "boom"]
    assert our_warnings[0].split("\n")[0] == their_warnings[0].split("\n")[0] == (
        "UserWarning: Error detected in BadBackward. Traceback of forward call that caused the "
        "error:")


def test_metadata_holds_the_trace(libs):
    traces = []
    for lib in libs:
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with lib.autograd.set_detect_anomaly(True):
            y = x.exp()
        traces.append(y.grad_fn.metadata["traceback_"][-1])
        assert type(y.grad_fn.metadata["traceback_"]) is list
    assert traces[0] == traces[1] and traces[0].endswith("\n    y = x.exp()\n")


# -- NaN check ------------------------------------------------------------------------------------
@pytest.mark.parametrize("check_nan", [True, False])
@pytest.mark.parametrize("make", ["sqrt", "div", "grad"])
def test_nan_check(libs, make, check_nan):
    def fn(lib):
        x = lib.tensor([-1.0, 4.0], requires_grad=True)
        z = lib.tensor([0.0, 2.0], requires_grad=True)
        with lib.autograd.set_detect_anomaly(True, check_nan=check_nan):
            if make == "sqrt":
                x.sqrt().sum().backward()
            elif make == "div":
                (x / z * 0).sum().backward()
            else:
                lib.autograd.grad(x.sqrt().sum(), x)
        assert (x.grad is None) == (make == "grad" or check_nan)
    (ours, our_warnings, _), (theirs, their_warnings, _) = both(libs, fn)
    assert ours == theirs
    assert [w.split("\n")[0] for w in our_warnings] == [w.split("\n")[0] for w in their_warnings]
    if check_nan:
        node = {"sqrt": "SqrtBackward0", "div": "DivBackward0", "grad": "SqrtBackward0"}[make]
        assert ours == ["RuntimeError", f"Function '{node}' returned nan values in its 0th output."]
    else:
        assert ours == ["ok"]


def _double_backward_failure(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    with lib.autograd.detect_anomaly():
        y = x.sigmoid()
        (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        with lib.no_grad():
            y.mul_(2)
        g.sum().backward()


def test_node_made_by_a_backward_names_its_parent(libs, torch):
    """A node created during backward(create_graph=True) fails: a second warning names the
    node whose backward created it, with that node's forward trace."""
    (ours, our_warnings, _), (theirs, their_warnings, _) = both(libs, _double_backward_failure)
    assert ours == theirs and "which is output 0 of Sigmoid" in ours[1]
    dirs = _lib_dirs(torch)
    mine, torchs = ([split_trace(w, dirs) for w in warns[1:]]
                    for warns in (our_warnings, their_warnings))
    assert mine == torchs
    (head, frames), (parent_head, parent_frames) = mine
    assert head == ("UserWarning: Error detected in SigmoidBackwardBackward0. Traceback of "
                    "forward call that caused the error:")
    assert frames[-1].endswith("\n    (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)\n")
    assert parent_head == "UserWarning: "  # the text starts with two newlines
    assert our_warnings[2].startswith(
        "UserWarning: \n\nPrevious calculation was induced by SigmoidBackward0. Traceback of "
        "forward call that induced the previous calculation:\n")
    assert parent_frames[-1].endswith("\n    y = x.sigmoid()\n")
