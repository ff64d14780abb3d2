"""NaN and ±inf through backward (the nonfinite fuzzer family's findings and issue 28's
items): each program through autograd_lesson and torch by the fuzzer's ``compare``."""
import pytest

from fuzz.compare import compare

pytestmark = pytest.mark.parity

NAN = "x = lib.tensor([float('nan'), 1., -1., float('inf'), -float('inf')], requires_grad=True)"

PROGRAMS = {
    # issue 28: relu's gradient is 0 only where self <= 0 (NaN passes, as ATen's threshold)
    "relu of NaN passes the gradient": [NAN, "y = x.relu()", "y.sum().backward()"],
    "F.relu and relu_ likewise": [NAN, "y = F.relu(x) + (x * 1).relu_()", "y.sum().backward()"],
    # issue 28: max() of a tensor holding NaN sends the gradient to the NaN elements
    "max() of NaN": [NAN, "y = x.max()", "y.backward()"],
    "min() of NaN": [NAN, "y = lib.min(x)", "y.backward()"],
    "max(dim) of NaN": ["x = lib.tensor([[1., float('nan')], [2., 0.]], requires_grad=True)",
                        "v, i = x.max(1)", "v.sum().backward()"],
    "amax of NaN": ["x = lib.tensor([[1., float('nan')], [2., 0.]], requires_grad=True)",
                    "y = x.amax(1)", "y.sum().backward()"],
    "clamp of NaN and infinities": [NAN, "y = x.clamp(-1, 1)", "y.sum().backward()"],
    "leaky_relu of NaN": [NAN, "y = F.leaky_relu(x, 0.1)", "y.sum().backward()"],
    "norm of an infinity": [NAN, "y = x[1:4].norm()", "y.backward()"],
    # found by a 20,000-program run: x[mask] = v reads v's one number, checked, even when v
    # requires grad and the mask is all False
    "NaN that requires grad into an int tensor through a mask": [
        "x = lib.tensor([1, -2, 3])", "v = lib.tensor(float('nan'), requires_grad=True)",
        "x[x > 5] = v"],
    "inf likewise, where the mask is set": [
        "x = lib.tensor([1, -2, 3])", "v = lib.tensor(float('inf'), requires_grad=True)",
        "x[x > 0] = v"],
    "a finite number that requires grad into an int tensor": [
        "x = lib.tensor([1, -2, 3])", "w = lib.tensor(2.5, requires_grad=True)", "x[x > 0] = w"],
}


@pytest.mark.parametrize("lines", list(PROGRAMS.values()), ids=list(PROGRAMS))
def test_matches_torch(torch, lines):
    compare(torch, lines)
