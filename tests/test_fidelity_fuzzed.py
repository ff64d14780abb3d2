"""The classes of divergence the long fuzzer run (``make fuzz``) found, one program or more each.

Each program is Python over ``lib`` (``autograd_lesson`` or ``torch``) and ``F``; the fuzzer's
``compare`` runs it in both and asserts the same exception (type and message), warnings,
values, dtypes, shapes, ``requires_grad`` and leaf gradients. The tests after the table check
what ``compare`` does not see (node names, views, saved indices), asking torch the same way.
"""
import subprocess
import sys
import warnings

import numpy as np
import pytest

import autograd_lesson as al
from autograd_lesson._surface import promotion
from fuzz.compare import compare

pytestmark = pytest.mark.parity

PROGRAMS = {
    # Python numbers written into a tensor: c10's checked_convert
    "a complex number into a float tensor": ["x = lib.tensor([1., 2.])", "x[0] = 1j"],
    "a complex number into a long tensor": ["x = lib.tensor([1, 2])", "x.fill_(2j)"],
    "a complex number with no imaginary part fits": ["x = lib.tensor([1., 2.])", "x[0] = 2 + 0j"],
    "a complex fill through a mask": ["x = lib.tensor([1., 2.])",
                                      "x[x > 1] = lib.tensor(1 + 2j)"],
    "out of float32's range": ["x = lib.tensor([1.])", "x.fill_(1e300)"],
    "out of int8's range": ["x = lib.zeros(2, dtype=lib.int8)", "x.fill_(300)"],
    "an int too big for int64": ["x = lib.zeros(2)", "x.fill_(2 ** 70)"],
    "full with a complex value and a real dtype": [
        "x = lib.full((2,), 1j, dtype=lib.float32)"],
    "NaN into an int tensor, silently": ["x = lib.tensor([0, 1])", "y = x / x",
                                         "x[0] = y.sum()", "z = y.to(lib.int32)"],
    # x[key] = value: copy_to's view (leading 1s dropped) then expand
    "leading 1s of an index_put_ value": ["x = lib.zeros(2, 1)", "x[[0, 1]] = lib.ones(1, 3)"],
    "leading 1s of a copied value": ["x = lib.zeros(2, 1, 3)", "x[0] = lib.ones(1, 2)"],
    "x[0] = x": ["x = lib.tensor([-2.0])", "x[0] = x"],
    # views of multi-output and no_grad views keep how they were made
    "a slice of a split output": ["x = lib.zeros(2, 3, requires_grad=True)",
                                  "t = x.split(1)[0]", "t[:, 1:] = 1."],
    "a select of an unbind output": ["x = lib.zeros(2, 3, requires_grad=True).clone()",
                                     "w = x.unbind(0)[1][0]", "w.exp_()"],
    "a split output of a tensor needing no grad": [
        "x = lib.zeros(2, 3)", "t = x.split(1)[0]", "t.mul_(lib.ones(1, requires_grad=True))"],
    "a split output read after its base changed": [
        "x = lib.zeros(2, 3, requires_grad=True).clone()", "t = x.split(1)[0]", "x.mul_(2)",
        "y = t * 2"],
    "a view of a no_grad view": ["x = lib.zeros(2, 3, requires_grad=True).clone()",
                                 "with lib.no_grad(): t = x[0]", "w = t[1:]", "w.mul_(2)"],
    # version messages name MaxBackward1 "Max1"
    "Max1 in the version message": ["x = lib.tensor([0.5], requires_grad=True)",
                                    "y = x.max()", "z = y.log_()", "z.sum().backward()"],
    "Pow2 in the version message": ["x = lib.ones(2, requires_grad=True)", "y = 2 ** x",
                                    "y.exp_()", "y.sum().backward()"],
    # a Python bool operand is saved as a 0-dim bool tensor (found by issue 28's long run)
    "True * x saves a bool tensor": ["x = lib.tensor(-2.0, requires_grad=True)", "y = True * x",
                                     "v = y.grad_fn._saved_other", "y.backward()"],
    # checks in PyTorch's order
    "argmax of bool": ["a = lib.tensor([True, False]).argmax(5)"],
    "nll_loss: the batch size before the dtype": [
        "a = F.nll_loss(lib.ones(3, 1, 2, dtype=lib.int32), lib.tensor([1, 0]))"],
    "nll_loss: a 0-dim target": ["a = F.nll_loss(lib.ones(3, 1), lib.tensor(1))"],
    "nll_loss: a K-dim target of the wrong size": [
        "a = F.nll_loss(lib.ones(2, 1, 2), lib.tensor([1, 0]))"],
    "binary_cross_entropy: the first bad element wins": [
        "a = F.binary_cross_entropy(lib.tensor([0.5, 2.]), lib.tensor([3., 0.5]))"],
    "too many indices before the index type": ["x = lib.tensor(1.)", "a = x[1.5]"],
    "a partly overlapping operand before the shapes": [
        "x = lib.tensor([[1., 3.], [2., 4.]])", "v = x.view(-1)", "x.div_(v)"],
    "a partly overlapping operand before the dtypes": [
        "x = lib.tensor([False, True])", "x.div_(x[1])"],
    "x.add_(x) overlaps fully, which is allowed": ["x = lib.tensor([1., 2.])", "x.add_(x)"],
    "binary_cross_entropy_with_logits of a bool target": [
        "a = F.binary_cross_entropy_with_logits(lib.tensor([-2.]), lib.tensor([True]))"],
    "binary_cross_entropy_with_logits: a float64 input, a float32 target": [
        "a = F.binary_cross_entropy_with_logits(lib.ones(2, 3, dtype=lib.float64) * -2, "
        "lib.ones(2, 3) * -2)"],
    "binary_cross_entropy_with_logits in the target's dtype": [
        "x = lib.tensor([0.5, 2.], requires_grad=True)",
        "t = lib.tensor([1., 0.], dtype=lib.float64, requires_grad=True)",
        "a = F.binary_cross_entropy_with_logits(x, t)", "a.backward()"],
    # matrix products
    "bool mm has no kernel": ["a = lib.tensor([[True]]) @ lib.tensor([[True]])"],
    "bool mv has no kernel": ["a = lib.mv(lib.tensor([[True]]), lib.tensor([True]))"],
    "an empty bool product runs no kernel": ["a = F.linear(lib.zeros(2, 0, dtype=lib.bool), "
                                             "lib.zeros(2, 0, dtype=lib.bool))"],
    "linear flattens a 1-D input with a row bias": [
        "x = lib.ones(2, requires_grad=True)", "a = F.linear(x, lib.ones(3, 2), lib.ones(1, 3))",
        "a.sum().backward()"],
    "linear with a 1-D weight and a bias": [
        "a = F.linear(lib.tensor([1., 2, 3]), lib.tensor([1., 2, 3]), lib.tensor([1, 2, 3]))"],
    "linear with a 0-dim bias adds it": [
        "a = F.linear(lib.tensor([1., 2]), lib.tensor([1., 2]), lib.tensor(1.))"],
    # advanced indexing mixed with ints, slices and None
    "x[[0, 1], [1, 0]]": ["x = lib.tensor([[1., 2.], [3., 4.]], requires_grad=True)",
                          "y = x[[0, 1], [1, 0]]", "y.sum().backward()"],
    "x[:, [0, 1], [1, 0]]": ["x = lib.arange(24.).reshape(2, 3, 4).requires_grad_()",
                             "y = x[:, [0, 1], [1, 0]]", "(y * y).sum().backward()"],
    "x[[0], :, [1]]": ["x = lib.arange(24.).reshape(2, 3, 4)", "y = x[[0], :, [1]]"],
    "x[1, [0, 2]] and x[None, [0]]": ["x = lib.arange(24.).reshape(2, 3, 4)",
                                      "y = x[1, [0, 2]]", "z = x[None, [0]]"],
    "a mask and a list": ["x = lib.arange(24.).reshape(2, 3, 4)",
                          "y = x[lib.tensor([True, False]), [0, 1]]"],
    "a mask of the wrong shape after a slice": [
        "x = lib.arange(24.).reshape(2, 3, 4)", "y = x[:, lib.tensor([True, False])]"],
    "lists that do not broadcast": ["x = lib.zeros(2, 2)", "y = x[[0, 1], [1, 0, 1]]"],
    "out of bounds in the second list": ["x = lib.zeros(2, 2)", "y = x[[0, 1], [1, 5]]"],
    "out of bounds after a slice": ["x = lib.zeros(2, 3, 4)", "y = x[:, :, [0, 9]]"],
    "out of bounds but an empty result": ["x = lib.zeros(2, 0)", "y = x[[0, 5]]",
                                          "x[[0, 5]] = 1."],
    "x[:, [0, 1]] = v": ["x = lib.zeros(2, 3, requires_grad=True).clone()",
                         "v = lib.tensor(-1., requires_grad=True)", "x[:, [0, 1]] = v",
                         "x.sum().backward()"],
    "x[[0, 1], [1, 0]] = v": ["x = lib.arange(24.).reshape(2, 3, 4)",
                              "x[[0, 1], [1, 0]] = lib.ones(4) * 7"],
    # index_put_'s order: the value's overlap with x before the indices and the bounds
    "x[[0, 1]] = x overlaps, even empty": ["x = lib.tensor([], dtype=lib.bool)",
                                           "x[[0, 1]] = x"],
    "the overlap before the bounds": ["x = lib.tensor([[0.0, 0.5, 1.0]])",
                                      "x[[0, 1], [1, 0]] = x"],
    "the overlap before the mask's shape": ["x = lib.zeros(2, 0, dtype=lib.int64)",
                                            "x[x > 0] = x"],
    "the value's dtype before the bounds": ["x = lib.zeros(1, 3)", "x[[0, 1]] = lib.tensor(2)"],
    "the value's shape before the bounds": ["x = lib.zeros(1)", "x[[0, 1]] = lib.ones(3)"],
    "the bounds after a fitting value": ["x = lib.zeros(1, 3)", "x[[0, 1]] = lib.tensor(2.)"],
    "a masked fill reads one number, no overlap": ["x = lib.tensor([1., 2.])",
                                                   "x[x > 1] = x[0]"],
    "a mask of the wrong shape names its dim": ["x = lib.zeros(2, 3)",
                                                "y = x[lib.zeros(2, 1, dtype=lib.bool)]"],
    # writes into expanded tensors
    "fill_ and zero_ write through expand": ["b = lib.tensor([[2., -0.5, 0.5]])",
                                             "e = b.expand(3, 3)", "e.fill_(1.)", "f = b * 1",
                                             "e.zero_()"],
    "x[0] = v through expand": ["b = lib.tensor([[2., -0.5, 0.5]])", "e = b.expand(3, 3)",
                                "e[0] = 1."],
    "copy_ into an expanded tensor refuses": ["e = lib.tensor([[2., 0.5]]).expand(3, 2)",
                                              "e.copy_(lib.ones(2))"],
    "index_put_ on an expanded tensor warns": ["b = lib.tensor([[2., -0.5, 0.5]])",
                                               "e = b.expand(3, 3)", "e[[0, 1]] = lib.ones(3)"],
    "a masked fill of an expanded tensor warns twice": [
        "b = lib.tensor([[2., -0.5, 0.5]])", "e = b.expand(3, 3)", "e[e > 0] = 0."],
    "index_put_ on an expanded tensor warns before it raises": [
        "x = lib.tensor([-2])", "e = x.expand(2, -1)", "e[[0, 1], [1, 0]] = x"],
    "a row of an expanded tensor is its base's memory: full overlap": [
        "x = lib.tensor([-2])", "e = x.expand(2, -1)", "e[0] = x"],
    "writing into an empty expanded tensor": ["e = lib.tensor([]).expand(-1)", "e.fill_(2)",
                                              "e[...] = lib.ones(0)"],
    # fill_ with a 0-dim tensor records FillBackward3 whatever the dtype
    "an int tensor filled through a view requires grad": [
        "x = lib.zeros(2, 3, dtype=lib.int64)", "x[:, 0] = lib.tensor(2., requires_grad=True)"],
    "an int 0-dim target is copied into, not filled": [
        "x = lib.zeros(2, 3, dtype=lib.int64)", "x[0, 0] = lib.tensor(2., requires_grad=True)"],
    "fill_ of an int tensor with a tensor": [
        "x = lib.zeros(2, dtype=lib.int64)", "x.fill_(lib.tensor(2., requires_grad=True))"],
    "fill_ with a 1-D tensor": ["x = lib.zeros(2)", "x.fill_(lib.ones(1))"],
    # NumPy's warnings where PyTorch is silent
    "exp overflows to inf": ["x = lib.tensor([-0.5, 3.0, 0.5])", "x.exp_()", "x.exp_()",
                             "x.exp_()"],
    "pow, norm, mse_loss and mm overflow": [
        "x = lib.tensor([1e30, 1e30])", "a = x ** 2", "b = x.norm()",
        "c = F.mse_loss(x, x * 0)", "d = x @ x"],
    "log_softmax of inf": ["a = lib.tensor([[float('inf')]]).log_softmax(-1)",
                           "b = lib.tensor([[float('inf')]]).softmax(-1)"],
    "an int beyond int64 in item assignment: ValueError, as THPUtils_unpackLong": [
        "a = lib.zeros(2); a[0] = 2 ** 70"],
    "an int beyond int64 as a listed item: ValueError before the index is checked": [
        "a = lib.zeros(2); a[[5]] = -2 ** 70"],
    "an int beyond int64 in fill_: the parser's OverflowError": ["a = lib.zeros(2).fill_(2 ** 70)"],
    "a ufunc of a 0-dim tensor stays an array": ["a = lib.tensor(2.).clamp(1.5, 3.5).sub_(1)",
                                                 "b = lib.tensor(2.).exp().sub_(1)"],
    # messages
    "CPUComplexFloatType in expand's message": ["a = (lib.zeros(3, 1, 2) + 1j).expand(-1)"],
    "C++ type names in mm's dtype message": [
        "a = lib.mm(lib.zeros(1, 0, dtype=lib.int32), lib.zeros(0, 2, dtype=lib.int64))"],
    "binary_cross_entropy_with_logits reads target.size() first": [
        "a = F.binary_cross_entropy_with_logits(lib.ones(1), 1)"],
    # a number where PyTorch's parser wants a Tensor
    "F.dropout of an int": ["a = F.dropout(3, 0.0)"],
    "F.relu of an int": ["a = F.relu(3)"],
    "F.leaky_relu of an int": ["a = F.leaky_relu(3, 0.1)"],
    "F.linear with an int weight": ["a = F.linear(lib.ones(1), 3)"],
    "F.softmax of an int calls a method": ["a = F.softmax(3, 0)"],
    "F.nll_loss with an int target": ["a = F.nll_loss(lib.ones(1, 2), 3)"],
    "F.cross_entropy with an int target": ["a = F.cross_entropy(lib.ones(1, 2), 3)"],
    "lib.exp of an int": ["a = lib.exp(3)"],
    "lib.sum of an int": ["a = lib.sum(3)"],
    "lib.softmax of an int": ["a = lib.softmax(3, 0)"],
    "lib.mm with an int": ["a = lib.mm(lib.ones(1, 1), 3)"],
    "lib.mv with an int": ["a = lib.mv(lib.ones(1, 1), 3)"],
    "lib.addmm with an int": ["a = lib.addmm(3, lib.ones(1, 1), lib.ones(1, 1))"],
    "lib.matmul with an int": ["a = lib.matmul(3, lib.ones(1))"],
    "where with a Python bool condition": ["a = lib.where(True, 1, lib.ones(1))"],
    "where with a string": ["a = lib.where(lib.tensor(True), 'a', 2)"],
    "where with numbers": ["a = lib.where(lib.tensor([True, False]), 1, 2)"],
    # chunk of an empty dim keeps its chunks
    "chunk of an empty dim": ["x = lib.zeros(0, 2, requires_grad=True)", "c = x.chunk(2)",
                              "n = len(c)", "(c[0].sum() + c[1].sum()).backward()"],
    "split with sizes": ["x = lib.arange(3.).requires_grad_()", "c = x.split([1, 2])",
                         "(c[0].sum() * 2 + c[1].sum()).backward()"],
    "split with sizes that do not add up": ["x = lib.zeros(3)", "c = x.split([1, 1])"],
    "split with a negative size": ["x = lib.zeros(3)", "c = x.split([1, -1, 3])"],
    # reading a tensor can raise too
    "is_leaf of a stale split view raises": [
        "x = lib.tensor([1., 2, 3], requires_grad=True)", "t = x.chunk(3)[0]",
        "d = x.detach().mul_(2)", "leaf = t.is_leaf"],
    # found by the 100,000-program run of stop 25: a 0-dim view of a leaf written through a
    # 0-dim mask with itself: the autograd check of the view comes before the overlap check
    "x[mask] = x of a 0-dim view of a leaf": [
        "t1 = lib.tensor(-2.0, requires_grad=True)", "t2 = t1.view(-1)[0]", "t2[t2 > 0] = t1"],
    # cross_entropy of a 4-D input is nll_loss2d, with its own checks of the target
    "cross_entropy of 4-D input, 1-D target": [
        "x = lib.zeros(1, 3, 1, 2)", "y = F.cross_entropy(x, lib.tensor([0]))"],
    "cross_entropy of 4-D input, 2-D target": [
        "x = lib.zeros(1, 3, 1, 2)", "y = F.cross_entropy(x, lib.zeros(1, 2, dtype=lib.long))"],
    "cross_entropy of 4-D input, a target of the wrong size": [
        "x = lib.zeros(1, 3, 1, 2)", "y = F.cross_entropy(x, lib.zeros(1, 1, 1, dtype=lib.long))"],
    "cross_entropy of 4-D input, a weight of the wrong size": [
        "x = lib.zeros(1, 3, 1, 2)",
        "y = F.cross_entropy(x, lib.zeros(1, 1, 2, dtype=lib.long), weight=lib.ones(2))"],
    # a stale view of a split (its base changed in place) as an op's input: PyTorch reads the
    # view's edge before the kernel checks its arguments, so the view's error comes first, for
    # ops that record a node (found by a 100,000-program run at 70,018: cat)
    "a stale split view into cat": ["t0 = lib.tensor([-2.0], requires_grad=True)", "t1 = lib.zeros(2, 3)", "t2 = t1.split([1, 1])[0]", "t1[0] = t0",
        "t3 = lib.cat([t0, t2], 0)"],
    "a stale split view into add": ["t0 = lib.tensor([-2.0], requires_grad=True)", "t1 = lib.zeros(2, 3)", "t2 = t1.split([1, 1])[0]", "t1[0] = t0",
        "t3 = t2 + lib.ones(5)"],
    "a stale split view into mm": ["t0 = lib.tensor([-2.0], requires_grad=True)", "t1 = lib.zeros(2, 3)", "t2 = t1.split([1, 1])[0]", "t1[0] = t0",
        "t3 = t2 @ lib.ones(5, 2)"],
    "a stale split view into select": ["t0 = lib.tensor([-2.0], requires_grad=True)", "t1 = lib.zeros(2, 3)", "t2 = t1.split([1, 1])[0]", "t1[0] = t0",
        "t3 = t2.select(0, 9)"],
    "a stale split view into sum": ["t0 = lib.tensor([-2.0], requires_grad=True)", "t1 = lib.zeros(2, 3)", "t2 = t1.split([1, 1])[0]", "t1[0] = t0",
        "t3 = t2.sum(5)"],
    "a stale split view into long": ["t0 = lib.tensor([-2.0], requires_grad=True)", "t1 = lib.zeros(2, 3)", "t2 = t1.split([1, 1])[0]", "t1[0] = t0",
        "t3 = t2.long()"],
    "a stale split view into eq": ["t0 = lib.tensor([-2.0], requires_grad=True)", "t1 = lib.zeros(2, 3)", "t2 = t1.split([1, 1])[0]", "t1[0] = t0",
        "t3 = t2 == lib.ones(5)"],
    "a stale split view into argmax": ["t0 = lib.tensor([-2.0], requires_grad=True)", "t1 = lib.zeros(2, 3)", "t2 = t1.split([1, 1])[0]", "t1[0] = t0",
        "t3 = t2.argmax(5)"],
    # torch.mul(2, x): the parser wraps the number (int64, float64, bool): _saved_self keeps
    # its dtype and it promotes as a number (found by a 100,000-program run at 32,457)
    "mul of a number first saves it wrapped": [
        "t0 = lib.tensor(-2.0, requires_grad=True)", "t1 = lib.mul(2, t0)",
        "v = t1.grad_fn._saved_self", "t1.backward()"],
    "div of a number first saves it wrapped": [
        "t0 = lib.tensor([1., -2.], requires_grad=True)", "t1 = lib.div(2, t0)",
        "v = t1.grad_fn._saved_self", "w = t1.grad_fn._saved_other", "t1.sum().backward()"],
    "mul of a float first with a 0-dim float32 stays float32": [
        "t0 = lib.tensor(-2.0, requires_grad=True)", "t1 = lib.mul(2.5, t0)",
        "v = t1.grad_fn._saved_self"],
    "a float number first with an integer tensor": [
        "t0 = lib.tensor([1, 2])", "t1 = lib.mul(2.5, t0)", "t2 = lib.sub(2.5, t0)",
        "t3 = lib.add(True, t0)", "t4 = lib.div(3, t0)"],
    # indexing a 0-dim stale view (an unbind output whose base changed in place): PyTorch's
    # indexing layer counts the key's dims before any op reads the view's edge (found by a
    # 100,000-program run at 38,787: W[0] = 5.)
    "an int into a 0-dim stale view": ["L = lib.tensor([1., 2., 3.], requires_grad=True)", "B = L * 1", "V = B[:1]", "W = V.unbind()[0]", "B.mul_(2)",
        "W[0] = 5."],
    "a one-tuple into a 0-dim stale view": ["L = lib.tensor([1., 2., 3.], requires_grad=True)", "B = L * 1", "V = B[:1]", "W = V.unbind()[0]", "B.mul_(2)",
        "t = W[(9,)]"],
    "an int list into a 0-dim stale view": ["L = lib.tensor([1., 2., 3.], requires_grad=True)", "B = L * 1", "V = B[:1]", "W = V.unbind()[0]", "B.mul_(2)",
        "t = W[[0]]"],
    "a bool list into a 0-dim stale view": ["L = lib.tensor([1., 2., 3.], requires_grad=True)", "B = L * 1", "V = B[:1]", "W = V.unbind()[0]", "B.mul_(2)",
        "t = W[[True]]"],
    "a slice into a 0-dim stale view": ["L = lib.tensor([1., 2., 3.], requires_grad=True)", "B = L * 1", "V = B[:1]", "W = V.unbind()[0]", "B.mul_(2)",
        "t = W[0:1]"],
    "a slice in a tuple into a 0-dim stale view": ["L = lib.tensor([1., 2., 3.], requires_grad=True)", "B = L * 1", "V = B[:1]", "W = V.unbind()[0]", "B.mul_(2)",
        "t = W[(slice(0, 1),)]"],
    # a uint8 condition: torch takes it with a deprecation warning (once per process), saves it
    # as given (found by a 100,000-program run at 53,273: np.greater of a tensor is uint8)
    "where with a uint8 condition": [
        "t0 = lib.tensor([-2.0, 1.0], requires_grad=True)", "c = np.greater(t0.detach(), 0)",
        "t1 = lib.where(c, t0, 0.5)", "s = t1.grad_fn._saved_condition", "t1.sum().backward()"],
    "where with an int64 condition is refused": [
        "t0 = lib.tensor([-2.0, 1.0])", "t1 = lib.where(lib.tensor([0, 1]), t0, t0)"],
    # a tensor as a Python number: complex(t) (NumPy calls it for np.array([t0, t1]) of 0-dim
    # complex tensors; found by a 100,000-program run at 14,150), float/int/complex checks
    "np.array of 0-dim complex tensors": [
        "t0 = lib.tensor([], dtype=lib.float32)", "t1 = lib.ones(2) * 1j",
        "a2 = np.array([t0.sum(), t1.sum()])"],
    "complex() of a tensor": ["c = complex(lib.tensor(2.5))", "d = complex(lib.tensor([1j]))"],
    "float() of two elements": ["f = float(lib.tensor([1., 2.]))"],
    "int() of two elements": ["f = int(lib.tensor([1., 2.]))"],
    "float() of a complex": ["f = float(lib.tensor(1j))"],
    "int() of a complex": ["f = int(lib.tensor(1j))"],
    "float() of a tensor that requires grad warns": [
        "f = float(lib.tensor([1.5], requires_grad=True))"],
    "int() of a tensor that requires grad does not": [
        "f = int(lib.tensor([1.5], requires_grad=True))"],
    # vector @ matrix is mm then an in-place squeeze_(0): its result starts at version 1
    # (found by a 100,000-program run at 12,258)
    "vector @ matrix starts at version 1": [
        "x = lib.ones(3, requires_grad=True)", "y = lib.ones(3, 2)", "o = x @ y",
        "v = o._version", "o.sum().backward()"],
    "an empty vector @ matrix, changed in place after a no_grad view": [
        "t0 = lib.zeros(2, 0)", "t3 = t0.max(0).values @ t0.t()",
        "with lib.no_grad():\n    m = t3[:1]", "m.mul_(2)", "r = m._version"],
    # copy_ returns before its kernel's overlap checks when src is self's very memory
    # (found by a 100,000-program run at 87,938)
    "an expanded view given its own memory back": [
        "t0 = lib.tensor([-2])", "t2 = t0.expand((3, 3))", "t2[0] = t0", "v = t0._version"],
    "copy_ of an expanded tensor from itself": [
        "t0 = lib.tensor([-2.])", "e = t0.expand(3)", "e.copy_(e)", "f = t0.expand(3)",
        "e.copy_(f)", "v = t0._version"],
    "the same memory in another dtype still overlaps": [
        "t0 = lib.tensor([-2])", "e = t0.expand(3)", "e.copy_(t0.expand(3).to(lib.float32))"],
    "a fresh value into an expanded view still overlaps": [
        "t0 = lib.tensor([-2])", "t2 = t0.expand((3, 3))", "t2[0] = lib.tensor([5])"],
    "an expanded non-leaf given its own memory, then backward": [
        "a = lib.tensor([-2.], requires_grad=True)", "t0 = a * 1", "t2 = t0.expand((3, 3))",
        "t2[0] = t0", "v = t0._version", "t2.sum().backward()"],
    # an undefined raw save prints as a SavedTensor (pybind11's "Invoked with: <...>" shows it;
    # found by a 100,000-program run at 4,890)
    "register_hooks(1, 2) on a skipped save": [
        "t0 = lib.ones(2, 3, requires_grad=True)", "t1 = lib.mul(2, t0)",
        "n = sorted(a for a in dir(t1.grad_fn) if a.startswith('_raw_saved_'))",
        "d = [getattr(t1.grad_fn, a).register_hooks(1, 2) for a in n]"],
    # the argument parser reads input and dtype before the device is looked at (found by a
    # 100,000-program run at 19,076: ones_like of an int with device='cuda')
    "ones_like of a number on cuda": ["t0 = lib.tensor(-2.0)", "t2 = t0.numel()",
                                      "t3 = lib.ones_like(t2, device='cuda')"],
    "empty_like of a number on cuda": ["t3 = lib.empty_like(2, device='cuda')"],
    "a bad dtype before a bad device": ["t3 = lib.zeros(2, dtype='x', device='xyz')"],
    "a bad dtype before cuda, ones_like": ["t3 = lib.ones_like(lib.ones(2), dtype=1, device='cuda')"],
    "a bad dtype before cuda, tensor": ["t3 = lib.tensor([1.], dtype=1, device='cuda')"],
    "a bad dtype before cuda, new_zeros": ["t3 = lib.ones(2).new_zeros((2,), dtype=1, device='cuda')"],
    "cuda before randn's int kernel": ["t3 = lib.randn(2, dtype=lib.int64, device='cuda')"],
    "rand_like of an int tensor raises": ["t3 = lib.rand_like(lib.ones(2, dtype=lib.int64))"],
    "randn_like of an int tensor raises": ["t3 = lib.randn_like(lib.ones(2, dtype=lib.int32))"],
    "x[mask] = x of a 0-dim non-leaf overlaps": [
        "t1 = lib.tensor(-2.0, requires_grad=True)", "t2 = t1 * 1", "t2[t2 < 0] = t2"],
}


@pytest.mark.parametrize("lines", PROGRAMS.values(), ids=PROGRAMS.keys())
def test_program_matches_torch(torch, lines):
    compare(torch, lines)


def _names(node):
    return [type(n).__name__ for n, _ in node.next_functions]


def test_create_graph_grad_is_a_copybackwards_copy(torch):
    """The first gradient under create_graph is copied into a fresh tensor (PyTorch's
    clone_obey_contract), so ``x.grad``'s root is CopyBackwards; a second one is added."""
    seen = []
    for lib in (al, torch):
        x = lib.tensor([1., 2.], requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (x ** 2).sum().backward(create_graph=True)
            first = (type(x.grad.grad_fn).__name__, x.grad.grad_fn.name(), _names(x.grad.grad_fn),
                     x.grad._version)
            (x ** 3).sum().backward(create_graph=True)
        seen.append((first, type(x.grad.grad_fn).__name__))
    assert seen[0] == seen[1]
    assert seen[0][0][:2] == ("CopyBackwards", "torch::autograd::CopyBackwards")


def test_importing_the_package_leaves_numpys_dtypes_untouched():
    """The package's dtypes are its own objects (``autograd_lesson.dtype``, see
    tests/test_dtype.py); PyTorch's dtype properties (``is_floating_point``...) are never
    patched into NumPy's C types, which every other library in the process shares."""
    assert al.float32 is not np.dtype("float32") and al.float32.is_floating_point
    for name in ("is_floating_point", "is_complex", "is_signed"):
        assert not hasattr(np.dtype("float32"), name), name
    assert al.is_floating_point(al.ones(1)) and not al.ones(1).long().is_floating_point()


@pytest.mark.parametrize("key", ["[[0, 1], [1, 0]]", "[:, [0, 1], [1, 0]]", "[[0], :, [1]]",
                                 "[[0, 1], 1]", "[None, [0, 1]]", "[..., [0, 1]]",
                                 "[1:, [0, 1]]"])
def test_mixed_indexing_records_one_index_node(torch, key):
    """One IndexBackward0 after the views the ints, slices and None make, saving a tuple of
    indices with None for the dims a slice kept (no flattening view, as before)."""
    seen = []
    for lib in (al, torch):
        x = lib.arange(24.).reshape(2, 3, 4).requires_grad_()
        y = eval(f"x{key}")
        indices = y.grad_fn._saved_indices
        seen.append((type(y.grad_fn).__name__, _names(y.grad_fn), tuple(y.shape),
                     tuple(None if i is None else i.tolist() for i in indices)))
    assert seen[0] == seen[1]


def test_custom_function_returns_an_input_as_a_view(torch):
    """An input returned as-is is a new view of it with the Function's node; changing it in
    place is refused with PyTorch's message; its gradient is the custom one."""
    seen = []
    for lib in (al, torch):
        class Id(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 2
        x = lib.tensor([1., 2.], requires_grad=True)
        y = Id.apply(x)
        facts = [y is x, y._is_view(), y._base is x, type(y.grad_fn).__name__, y.is_leaf]
        y.sum().backward()
        facts.append(x.grad.tolist())
        b = Id.apply(x.clone())
        with pytest.raises(RuntimeError) as error:
            b.mul_(2)
        w = lib.tensor([1.])
        plain = Id.apply(w)
        seen.append(facts + [str(error.value), plain is w, plain._is_view(), plain.requires_grad])
    assert seen[0] == seen[1]
    assert seen[0][:3] == [False, True, True]


def test_register_hooks_on_a_none_save(torch):
    """A skipped save (``self`` of x * w when w needs no grad) and a saved None are undefined
    SavedTensors: register_hooks refuses them with PyTorch's message."""
    messages = []
    for lib in (al, torch):
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(None, a)
                return a * 2

            @staticmethod
            def backward(ctx, g):
                return g
        x = lib.tensor([1., 2.], requires_grad=True)
        y, z = x * lib.tensor([3., 4.]), F.apply(x)  # (kept alive: torch crashes otherwise)
        found = []
        for saved in (y.grad_fn._raw_saved_self, z.grad_fn._raw_saved_tensors[0]):
            with pytest.raises(RuntimeError) as error:
                saved.register_hooks(lambda t: t, lambda t: t)
            found.append(str(error.value))
        with pytest.raises(TypeError) as error:
            y.grad_fn._raw_saved_other.register_hooks(1, 2)
        found.append(str(error.value).split("\n")[0])
        messages.append(found)
    assert messages[0] == messages[1]


def test_complex_to_real_casts_warn_once_as_torch_does(torch, monkeypatch):
    """PyTorch's copy_ warns TORCH_WARN_ONCE: a UserWarning the first time in a process."""
    code = ("import warnings, torch\nwarnings.simplefilter('always')\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            "    for _ in range(3): torch.tensor(1 + 2j).float()\n"
            "print([(x.category.__name__, str(x.message).split(' (Triggered')[0]) for x in w])")
    theirs = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True).stdout.strip()
    monkeypatch.setattr(promotion, "_complex_warned", [False])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            al.tensor(1 + 2j).float()
    assert repr([(w.category.__name__, str(w.message)) for w in caught]) == theirs
    assert len(caught) == 1


def test_overlap_status_reads_memory_as_torch():
    """Full (same elements, same strides), partial, apart, or too hard (not dense): only
    partial (and full, for index_put_) is refused."""
    from autograd_lesson._surface.kernels import overlap_status
    a = np.arange(6.).reshape(2, 3)
    assert overlap_status(a, a) == "full"
    assert overlap_status(a, a.reshape(-1)) == "partial"
    assert overlap_status(a, a.T) == "partial"
    assert overlap_status(a[0], a[1]) is None
    assert overlap_status(a[:, ::2], a) == "too hard"
    assert overlap_status(a[:0], a) is None
