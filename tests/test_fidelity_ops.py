"""Issue 12's op-side divergences, one program each, run through autograd_lesson and torch.

Each program is Python over ``lib`` (``autograd_lesson`` or ``torch``) and ``F``; the fuzzer's
``compare`` runs it in both and asserts the same exception (type and message), warnings,
values, dtypes, shapes, ``requires_grad`` and leaf gradients. These are the behaviours the
issue lists, written from the behaviour, so they stay pinned whatever the fuzzer draws.
"""
import warnings

import numpy as np
import pytest

import autograd_lesson as al
from fuzz.compare import compare, run

pytestmark = pytest.mark.parity

PROGRAMS = {
    # type promotion
    "int64 + float32 is float32": ["a = lib.tensor([1, 2]) + lib.tensor([0.5, 1.5])"],
    "exp/log/sqrt/tanh of ints are float32": [
        "x = lib.tensor([1, 2, 4])", "a = x.exp()", "b = x.log()", "c = x.sqrt()", "d = x.tanh()"],
    "floating ops of bool are float32": ["a = lib.tensor([True, False]).exp()"],
    "cat promotes": ["a = lib.cat([lib.ones(2), lib.tensor([1, 2])])"],
    "stack promotes": ["a = lib.stack([lib.tensor([1, 2]), lib.ones(2, dtype=lib.float64)])"],
    "where promotes": ["x = lib.tensor([1., 2.])", "a = lib.where(x > 1, x, lib.tensor([3, 4]))"],
    "full infers its dtype": ["a = lib.full((2,), 3)", "b = lib.full((2,), True)",
                              "c = lib.full((2,), 1.5)"],
    "ones * 1j is complex64": ["a = lib.ones(2) * 1j", "b = lib.ones(2, dtype=lib.float64) * 1j"],
    "float16 with int64 stays float16": [
        "a = lib.ones(2, dtype=lib.float16) + lib.tensor([1, 2])"],
    "int8 with int32 is int32": ["a = lib.ones(2, dtype=lib.int8) + lib.ones(2, dtype=lib.int32)"],
    "advanced indexing after a slice is contiguous, so it views": [
        "t = lib.arange(12.).reshape(3, 4)", "a = t[:, [0, 1]].view(-1)",
        "b = lib.arange(24.).reshape(2, 3, 4)[[0, 1], :, [0, 1]].view(-1)",
        "c = t[:, lib.tensor([True, False, True, False])].view(-1)",
        "d = (t[:, [0, 1]].is_contiguous(), t[:, [0, 1]].stride())"],
    "torch.add/sub/mul/div take a number input, wrapped": [
        "x = lib.tensor([1., 2.], requires_grad=True)", "a = lib.add(1, x, alpha=2)",
        "b = lib.sub(1, x)", "c = lib.mul(2.5, lib.tensor([1, 2]))", "d = lib.div(1, x)",
        "e = lib.add(True, 2)", "f = lib.add(2, lib.ones(2, dtype=lib.float16))",
        "(a + b + d).sum().backward()"],
    "torch.sub of a bool number refuses": ["a = lib.sub(True, lib.ones(2))"],
    "torch.add names a bad input at position 1": ["a = lib.add([1], lib.ones(2))"],
    "torch.add names a bad other at position 2": ["a = lib.add(lib.ones(2), [1])"],
    "alpha must be a number": ["a = lib.ones(2).add(1, alpha='a')"],
    "alpha may be a 0-dim tensor": ["a = lib.ones(2).sub(1, alpha=lib.tensor(2.))"],
    "alpha may not be a 1-dim tensor": ["a = lib.ones(2).add(1, alpha=lib.ones(1))"],
    "a bool alpha refuses unless bool": ["a = lib.tensor([True]).add(lib.tensor([True]), alpha=True)",
                                         "b = lib.ones(2).add(1, alpha=True)"],
    "alpha of a bool add is a bool": [
        "x = lib.tensor([True, False])", "a = x.add(x, alpha=-1)", "b = lib.tensor(True).add(x, alpha=0)",
        "c = x.add(True, alpha=2)", "x.add_(x, alpha=-1)"],
    "ones_like and its kin take a Tensor": ["a = lib.ones_like(3)"],
    "relu_ of an expanded bool tensor refuses the dtype first": [
        "t = lib.tensor([True]).expand(2, -1)", "t.relu_()"],
    "neg_ of an expanded bool tensor refuses the dtype first": [
        "t = lib.tensor([True]).expand(2, -1)", "t.neg_()"],
    "clamp_ refuses the cast first, naming the C++ type": [
        "t = lib.tensor([1]).expand(2)", "t.clamp_(0.5, 1)"],
    "clamp_ of a bool tensor": ["t = lib.tensor([True])", "t.clamp_(0)"],
    "mm of empty operands saves torch's strides": [
        "x = lib.tensor([[], []], requires_grad=True)",
        "f = lib.mm(x, lib.zeros(0, 3, requires_grad=True)).grad_fn",
        "s = (f._saved_mat2_sym_strides, f._saved_self_sym_strides)"],
    "a mask write into a 0-dim tensor goes through a view (CopySlices)": [
        "x = lib.tensor(-2.0, requires_grad=True)", "t = x.exp()", "t[t > 0] = 0.",
        "n = t.grad_fn.name()", "t.sum().backward()", "u = lib.tensor(-2)", "u[u < 0] = 7"],
    "a mask write into a 0-dim tensor of itself refuses the overlap": [
        "u = lib.tensor(-2)", "u[u < 0] = u"],
    "a mask write into a 0-dim tensor is index_put_, not masked_fill_ (dtypes must match)": [
        "u = lib.tensor(-2)", "u[u < 0] = u.exp()"],
    "x[True] = v writes through x.unsqueeze(0), x[False] = v writes nothing": [
        "x = lib.tensor(-2.0, requires_grad=True)", "t = x.exp()", "t[False] = 5.",
        "u = x.exp() * lib.ones(2)", "u[True] = 0.", "n = (t.grad_fn.name(), u.grad_fn.name())",
        "(t + u.sum()).backward()"],
    "dir(node) lists torch's _saved_ names only": [
        "x = lib.ones(2, 1, requires_grad=True)",
        "a = [sorted(n for n in dir(f) if n.startswith('_saved_')) for f in "
        "(x.exp().grad_fn, x[([0, 1], [0, 0])].grad_fn, x.sum(0).grad_fn)]"],
    "tensor(a tensor) warns to detach().clone() instead": [
        "t = lib.ones(2)", "a = lib.tensor(t)", "b = lib.tensor([t[0], t[1]])", "c = lib.as_tensor(t)"],
    "complex exp of inf and division by 0j are silent": [
        "a = (lib.tensor([float('inf'), 0.]) * 1j).exp()", "b = 2 / (lib.tensor([0., 1.]) * 1j)"],
    "expand gives a new size-1 dim the contiguous stride": [
        "a = [lib.ones(2).expand(1, 2).stride(), lib.ones(2).expand(3, 1, 2).stride()]",
        "b = [lib.tensor(1.).expand(1, 1).stride(), lib.ones(3, 1).t().expand(2, 1, 3).stride()]",
        "t = lib.ones(1, 1, 2)", "t[0] = t"],
    "tensor(floats, dtype=float64) keeps the doubles": [
        "a = lib.tensor([.2, 1], dtype=lib.float64)", "b = lib.tensor(3.3, dtype=lib.float64) * 1",
        "c = lib.tensor(0.1, dtype=lib.complex128)", "d = lib.as_tensor([.2], dtype=lib.float64)",
        "e = lib.tensor(1e40, dtype=lib.float64)", "f = lib.tensor([1e40])",
        "g = lib.tensor([1e6, float('inf')], dtype=lib.float16)", "h = lib.tensor([2**63], dtype=lib.float32)",
        "i = lib.tensor([1.5, -2.7], dtype=lib.int64)", "j = lib.tensor([2.5, 1j], dtype=lib.bool)"],
    "tensor() refuses an int past int64": ["a = lib.tensor([1, 2**63])"],
    "tensor() refuses a value out of an integer type's range": ["a = lib.tensor([255.9], dtype=lib.uint8)"],
    "tensor() refuses nan as an integer": ["a = lib.tensor([float('nan')], dtype=lib.int32)"],
    "tensor() wraps a negative int into uint8 down to -255": [
        "a = lib.tensor([-1, -255], dtype=lib.uint8)", "b = lib.zeros(1, dtype=lib.uint8).fill_(-1)",
        "c = lib.full((1,), -3, dtype=lib.uint8)", "d = lib.tensor([-256], dtype=lib.uint8)"],
    "tensor() refuses a complex number as real": ["a = lib.tensor([1+2j], dtype=lib.float32)"],
    "filling an expanded tensor with a 0-dim tensor refuses (with a number it does not)": [
        "z = lib.zeros(2, 1).expand(2, 3)", "z[0].fill_(1.)", "z[0, 0] = lib.tensor(2.)",
        "z[0] = lib.tensor(2.)"],
    "fill_ of an expanded tensor with a 0-dim tensor refuses": [
        "z = lib.zeros(1).expand(3)", "z.zero_()", "z.fill_(lib.tensor(2.))"],
    "casting a stale multi-output view to int reads no edge": [
        "x = lib.tensor([-2.0], requires_grad=True)", "v = x.split([1])[0]",
        "x.detach().mul_(2)", "a = v.long()", "b = v.to(lib.int32)", "c = v.bool()", "d = v.exp()"],
    "a saved negative int reads as unsigned, a saved Scalar as signed": [
        "x = lib.ones(2, 3, 4, requires_grad=True)",
        "a = (x.sum(-1).grad_fn._saved_dim, x.select(-1, -1).grad_fn._saved_index)",
        "b = (x[..., -3:-1].grad_fn._saved_start, x.permute(-1, 0, 1).grad_fn._saved_dims)",
        "c = (x.clamp(-1, 1).grad_fn._saved_min, x.add(x, alpha=-1).grad_fn._saved_alpha)",
        "d = F.nll_loss(x[:, :, 0], lib.tensor([0, 1])).grad_fn._saved_ignore_index"],
    "split, chunk, unbind and narrow save the dim as given": [
        "x = lib.ones(2, 3, 4, requires_grad=True)",
        "a = [x.split(1, -1)[0].grad_fn._saved_dim, x.split([1, 3], -1)[0].grad_fn._saved_dim]",
        "b = [x.chunk(2, -1)[0].grad_fn._saved_dim, x.unbind(-2)[0].grad_fn._saved_dim]",
        "c = x.narrow(-1, -2, 1).grad_fn._saved_dim",
        "(x.split(1, -1)[1].sum() + x.unbind(-2)[2].sum() + x.narrow(-1, -2, 1).sum()).backward()"],
    "a list holding sequences, slices, ... or None indexes as a tuple": [
        "x = lib.arange(6.).reshape(2, 3).requires_grad_()", "a = x[[[0]]]", "b = x[[[0], [1]]]",
        "c = x[[None]]", "d = x[[..., 0]]", "e = x[[slice(None), 0]]", "f = x[[lib.tensor(0), 1]]",
        "g = x[[0, 1]]", "h = x[[[0]] * 33]", "(a.sum() + b.sum() + d.sum()).backward()"],
    "a list key writes as a tuple too": [
        "z = lib.zeros(2, 3)", "z[[[0], [1]]] = 7", "z[[0, None]] = 5", "z[[..., 2]] = 1"],
    "x[...], x[()] and x[:, :] alias, x[:] slices": [
        "x = lib.ones(2, 3, requires_grad=True)",
        "n = [x[k].grad_fn.name() for k in (Ellipsis, (), (slice(None), slice(None)), slice(None))]",
        "m = lib.tensor(1., requires_grad=True)[...].grad_fn.name()"],
    "bce with logits of inf and nan is silent": [
        "x = lib.tensor([float('inf'), -float('inf'), float('nan'), 0.])",
        "a = F.binary_cross_entropy_with_logits(x, x)",
        "b = F.binary_cross_entropy_with_logits(x, lib.ones(4), reduction='sum')",
        "c = F.mse_loss(x, -x, reduction='sum')"],
    "clamp() without bounds refuses before a complex input": ["a = (lib.ones(2) * 1j).clamp()"],
    "clamp of a complex input refuses": ["a = (lib.ones(2) * 1j).clamp(0)"],
    "a real gradient for a complex root refuses first": [
        "x = lib.ones(2) * 1j", "x.sum().backward(gradient=lib.tensor(2.))"],
    "a complex gradient for a real root refuses": [
        "x = lib.ones(2, requires_grad=True)", "(x * 2).sum().backward(lib.tensor(1j))"],
    "a float alpha refuses for ints": ["a = lib.tensor([1, 2]).sub(1, alpha=1.0)"],
    "a float alpha refuses for ints in place": ["x = lib.tensor([1, 2])", "x.add_(1, alpha=2.0)"],
    "a complex alpha refuses for reals": ["a = lib.ones(2).add(1, alpha=1j)"],
    "in place, the cast is checked before alpha": ["x = lib.tensor(-2)", "x.add_(0.5, alpha=True)"],
    "in place, the broadcast before the cast": ["x = lib.tensor(-2)", "x.add_(lib.ones(2), alpha=1j)"],
    "flatten(start_dim, end_dim)": [
        "x = lib.ones(2, 3, 4, requires_grad=True)", "a = x.flatten(1)", "b = x.flatten(0, 1)",
        "c = x.transpose(0, 2).flatten(1)", "d = lib.flatten(x, -2)", "e = x.flatten(1, 1) is x",
        "f = lib.zeros(2, 0, 3).flatten(1)", "g = lib.tensor(1., requires_grad=True).flatten()",
        "h = lib.nn.Flatten()(x)", "(a.sum() + c.sum() + d.sum() + g.sum()).backward()"],
    "flatten with start_dim after end_dim refuses": ["a = lib.ones(2, 3).flatten(1, 0)"],
    "flatten with a float dim refuses": ["a = lib.ones(2, 3).flatten(0, 1.5)"],
    "top-level shape functions": [
        "x = lib.ones(2, 3, requires_grad=True)", "a = lib.reshape(x, (3, 2))", "b = lib.t(x)",
        "c = lib.transpose(x, 0, 1)", "d = lib.permute(x, (1, 0))", "e = lib.squeeze(x[:1])",
        "f = lib.unsqueeze(x, 1)", "g = lib.select(x, 1, 0)", "h = lib.narrow(x, 1, 1, 2)",
        "i = lib.split(x, 1)[1]", "j = lib.neg(lib.clone(x))", "k = lib.detach(x)",
        "(a.sum() + b.sum() + d.sum() + g.sum() + h.sum() + i.sum() + j.sum()).backward()"],
    "torch.neg of a number refuses": ["a = lib.neg(1)"],
    # integer tensors
    "sigmoid of ints": ["a = lib.tensor([0, 1, 2]).sigmoid()"],
    "clamp(1.5, 3.5) of ints is float": ["a = lib.tensor([1, 2, 5]).clamp(1.5, 3.5)"],
    "add_(1.5) on ints refuses": ["x = lib.tensor([1, 2])", "x.add_(1.5)"],
    "exp_ on ints refuses": ["x = lib.tensor([1, 2])", "x.exp_()"],
    "int ** -1 refuses": ["a = lib.tensor([2]) ** -1"],
    "int ** negative int tensor truncates": ["a = lib.tensor([2, 1, -1]) ** lib.tensor([-1, -2, -3])"],
    "x.long() of a tensor that requires grad needs none": [
        "x = lib.tensor([1.5], requires_grad=True)", "a = x.long()", "b = x.long() * 2"],
    # reductions
    "sum(dim=()) reduces everything": ["x = lib.ones(2, 3, requires_grad=True)",
                                       "a = x.sum(dim=())", "a.backward()"],
    "mean(dim=()) reduces everything": ["a = lib.ones(2, 3).mean(dim=())"],
    "sum of a dim named twice": ["a = lib.ones(2, 3).sum(dim=(0, 0))"],
    "0-dim sum(0), max(0), norm(dim=0), softmax(0)": [
        "x = lib.tensor(3., requires_grad=True)", "a = x.sum(0)", "b = x.max(0).values",
        "c = x.norm(dim=0)", "d = x.softmax(0)", "(a + b + c + d).backward()"],
    "max(dim) of an empty dim": ["a = lib.ones(2, 0).max(1)"],
    "mean of nothing is nan, quietly": ["a = lib.tensor([]).mean()"],
    "abs of nan: the gradient is 0 (torch's sgn of nan)": [
        "z = lib.tensor([float('nan'), -2., 0.], requires_grad=True)", "z.abs().sum().backward()"],
    "norm of ints refuses": ["a = lib.tensor([1, 2]).norm()"],
    "norm of any order: values, gradients, saves": [
        "x = lib.tensor([[1., -2, 0], [3, 0.5, -4]], requires_grad=True)",
        "ys = [x.norm(None), x.norm(), x.norm(p=1), x.norm(1.5), x.norm(3, 0, True), x.norm(0.5),"
        " x.norm(-1), x.norm(-1.5, dim=1), x.norm(float('inf')), x.norm(-float('inf')),"
        " x.norm(True), x.norm(lib.tensor(3.)), x.norm(2, []), x.norm('fro', 1),"
        " lib.norm(x, 1, 0), x.norm(2, lib.tensor(0)), x.norm(0, 1), x.norm(float('nan'))]",
        "s = [(y.grad_fn.name(), y.grad_fn._saved_ord, y.grad_fn._saved_dim, y.grad_fn._saved_keepdim)"
        " for y in ys]",
        "sum(y.sum() for y in ys[:-2]).backward()"],
    "norm of order 0 has no gradient": [
        "x = lib.tensor([[1., -2, 0], [3, 0.5, -4]], requires_grad=True)", "y = x.norm(0)",
        "g, = lib.autograd.grad(y, x, allow_unused=True)"],
    "norm of order inf shares the gradient among the maxima (and a nan's)": [
        "x = lib.tensor([[1., -4, 0], [4, 4, float('nan')]], requires_grad=True)",
        "a = x.norm(float('inf'), 1, keepdim=True)", "a.sum().backward()"],
    "norm at zero": [
        "x = lib.zeros(3, requires_grad=True)", "(x.norm(3) + x.norm(1.5) + x.norm(0.5)).backward()"],
    "norm: second order": [
        "x = lib.tensor([[1., -2, 0.3], [3, 0.5, -4]], requires_grad=True)",
        "g, = lib.autograd.grad(x.norm(1.5) + x.norm(0.5, 1).sum() + x.norm(3, 0).sum(), x,"
        " create_graph=True)", "(g * g).sum().backward()"],
    "norm of a list order": ["a = lib.ones(2, 3).norm([1])"],
    "norm of a complex order": ["a = lib.ones(2, 3).norm(1j)"],
    "norm of ints with a complex order": ["a = lib.tensor([1, 2]).norm(1j)"],
    "norm of an order past uint64": ["a = lib.ones(2, 3).norm(2 ** 70)"],
    "norm of an unknown string order": ["a = lib.ones(2, 3).norm('abc')"],
    "norm 'nuc' of a vector": ["a = lib.ones(2).norm('nuc')"],
    "norm 'fro' over three dims": ["a = lib.ones(2, 3, 4).norm('fro', (0, 1, 2))"],
    "norm 'fro' of a float dim": ["a = lib.ones(2, 3).norm('fro', 1.5)"],
    "norm of a float dim": ["a = lib.ones(2, 3).norm(2, 1.5)"],
    "norm of a float in a dim list": ["a = lib.ones(2, 3).norm(2, [0, 1.5])"],
    "norm dim out of range": ["a = lib.ones(2, 3).norm(1, 5)"],
    "norm of a dim named twice": ["a = lib.ones(2, 3).norm('fro', (0, 0))"],
    "norm with an int keepdim, by keyword (torch names position 4)": [
        "a = lib.ones(2, 3).norm(1, keepdim=1)"],
    "norm with a None keepdim": ["a = lib.ones(2, 3).norm(2, 0, None)"],
    "norm with too many arguments": ["a = lib.ones(2, 3).norm(1, 0, False, lib.float64, 1)"],
    "norm with an unknown keyword": ["a = lib.ones(2, 3).norm(foo=1)"],
    "norm of an int dtype": ["a = lib.ones(2, 3).norm(dtype=lib.int64)"],
    "norm of a complex dtype for a real input": ["a = lib.ones(2, 3).norm(dtype=lib.complex64)"],
    "norm to a narrower dtype": ["a = lib.ones(2, dtype=lib.float64).norm(dtype=lib.float32)"],
    "norm of order inf of an empty tensor": ["a = lib.ones(0).norm(float('inf'))"],
    "norm of order -1 of an empty tensor": ["a = lib.ones(0).norm(-1)"],
    "norm of order -0.5 of an empty tensor": ["a = lib.ones(0).norm(-0.5)"],
    "norm of order inf over an empty dim": ["a = lib.ones(0, 3).norm(float('inf'), -2)"],
    "norm of an empty tensor where it has an identity": [
        "a = lib.ones(0).norm(1)", "b = lib.ones(0, 3).norm(float('inf'), 1)",
        "c = lib.ones(0, 3).norm(-float('inf'), dim=1)"],
    "torch.norm of a number": ["a = lib.norm(3)"],
    "softmax of ints refuses": ["a = lib.tensor([1, 2]).softmax(0)"],
    "keepdim must be a bool": ["a = lib.ones(3).sum(0, 1)"],
    "torch.sum's keepdim is its third argument": ["a = lib.sum(lib.ones(3), 0, 1)"],
    "torch.amax's keepdim is its third argument": ["a = lib.amax(lib.ones(3), 0, 1)"],
    # sum and mean through PyTorch's argument parser (ArgParser): its overloads, in its order
    "sum(1.5) lists sum's overloads": ["a = lib.ones(2, 3).sum(1.5)"],
    "sum(dim=1.5) lists sum's overloads": ["a = lib.ones(2, 3).sum(dim=1.5)"],
    "torch.sum(x, 1.5) lists sum's overloads": ["a = lib.sum(lib.ones(2, 3), 1.5)"],
    "mean(1.5) lists mean's overloads": ["a = lib.ones(2, 3).mean(1.5)"],
    "torch.mean(x, 0, 1) lists mean's overloads (two take three arguments)": [
        "a = lib.mean(lib.ones(2, 3), 0, 1)"],
    "mean(0, 1) names keepdim at position 2": ["a = lib.ones(2, 3).mean(0, 1)"],
    "sum keepdim by keyword is named without a position": ["a = lib.ones(2, 3).sum(0, keepdim=1)"],
    "sum keepdim of NumPy's bool": ["import numpy as np", "a = lib.ones(2, 3).sum(0, np.bool_(1))"],
    "sum(keepdim=True) without a dim": ["a = lib.ones(2, 3).sum(keepdim=True)"],
    "sum of a bool dim": ["a = lib.ones(2, 3).sum(True)"],
    "sum of a str dim": ["a = lib.sum(lib.ones(2, 3), dim='a')"],
    "sum of a list of floats": ["a = lib.ones(2, 3).sum([1.5])"],
    "sum of a float inside the dims fails to unpack": ["a = lib.ones(2, 3).sum([0, 1.0])"],
    "sum of a float tensor dim": ["a = lib.ones(2, 3).sum(lib.tensor(1.))"],
    "sum(dim, keepdim, dtype) positionally": ["a = lib.ones(2, 3).sum(0, True, lib.float64)"],
    "sum(dtype='a')": ["a = lib.ones(2, 3).sum(dtype='a')"],
    "sum(0, dtype='a') names dtype": ["a = lib.ones(2, 3).sum(0, dtype='a')"],
    "sum(0, dim=0)": ["a = lib.ones(2, 3).sum(0, dim=0)"],
    "sum(0, foo=1)": ["a = lib.ones(2, 3).sum(0, foo=1)"],
    "sum(foo=1) lists sum's overloads": ["a = lib.ones(2, 3).sum(foo=1)"],
    "sum(foo=1, bar=2) is missing dim": ["a = lib.ones(2, 3).sum(foo=1, bar=2)"],
    "mean's method takes no out": ["a = lib.ones(2, 3).mean(0, out=None)"],
    "torch.sum of a number names input": ["a = lib.sum(2)"],
    "torch.sum of nothing": ["a = lib.sum()"],
    "sum's dims: NumPy ints, a bool inside a tuple, integer tensors": [
        "import numpy as np", "x = lib.arange(6.).reshape(2, 3).requires_grad_()",
        "a = x.sum(np.int64(1))", "b = lib.sum(x, dim=(np.int32(0), True))",
        "c = x.mean(lib.tensor([1]))", "d = x.sum([lib.tensor(-1)], True)",
        "e = x.sum(lib.tensor(True))",
        "s = (a.grad_fn._saved_dim, b.grad_fn._saved_dim, c.grad_fn._saved_dim)",
        "(a.sum() + b + c.sum() + d.sum() + e.sum()).backward()"],
    "sum(None) and mean(None, True) reduce every dim through SumBackward1/MeanBackward1": [
        "x = lib.arange(6.).reshape(2, 3).requires_grad_()", "a = x.sum(None)",
        "b = x.mean(None, True)", "c = lib.sum(x, dim=None, keepdim=True)",
        "n = (a.grad_fn.name(), b.grad_fn.name(), a.grad_fn._saved_dim, b.grad_fn._saved_dim)",
        "(a + b.sum() * 2 + c.sum() * 3).backward()"],
    "sum and mean take NumPy's axis and keepdims, torch.sum its input by keyword": [
        "x = lib.arange(6.).reshape(2, 3)", "a = x.sum(axis=1)", "b = x.mean(0, keepdims=True)",
        "c = lib.sum(input=x, dim=0)", "d = lib.mean(a=x)", "e = lib.sum(x, 1, dtype=lib.float64)"],
    "mean(dtype=) of ints": ["a = lib.tensor([1, 2]).mean(dtype=lib.float64)",
                             "b = lib.mean(lib.tensor([[1, 2]]), 1, True, dtype=lib.float16)"],
    "mean(dtype=) to ints refuses": ["a = lib.tensor([1, 2]).mean(dtype=lib.int64)"],
    # prod, amax/amin, argmax/argmin, max/min, cumsum, softmax/log_softmax through the parser
    "torch.prod(x, out=None) lists prod's overloads (the first has no out)": [
        "a = lib.prod(lib.ones(2, 3), out=None)"],
    "prod(None) lists prod's overloads": ["a = lib.ones(2, 3).prod(None)"],
    "prod keepdim by keyword": ["a = lib.ones(2, 3).prod(0, keepdim=None)"],
    "prod(dtype='a')": ["a = lib.ones(2, 3).prod(dtype='a')"],
    "prod's dim: a NumPy int, a 0-dim integer tensor": [
        "import numpy as np", "x = lib.arange(1., 7.).reshape(2, 3).requires_grad_()",
        "a = x.prod(np.int64(1))", "b = lib.prod(x, dim=lib.tensor(0), keepdim=True)",
        "s = (a.grad_fn._saved_dim, b.grad_fn._saved_dim)", "(a.sum() + b.sum()).backward()"],
    "amax of a list of floats names the element": ["a = lib.ones(2, 3).amax([1.5])"],
    "amax of a float inside the dims fails to unpack": ["a = lib.ones(2, 3).amax((0, 1.5))"],
    "amax dim by keyword is named without a position": ["a = lib.ones(2, 3).amax(dim='a')"],
    "amax with too many arguments": ["a = lib.amax(lib.ones(2, 3), 0, True, 1)"],
    "amax(foo=1)": ["a = lib.ones(2, 3).amax(foo=1)"],
    "amax(None) reduces every dim; NumPy ints; input by keyword": [
        "import numpy as np", "x = lib.arange(6.).reshape(2, 3).requires_grad_()",
        "a = x.amax(None)", "b = x.amin(dim=None, keepdim=True)", "c = lib.amax(input=x, dim=np.int64(1))",
        "s = (a.grad_fn._saved_dim, b.grad_fn._saved_dim, c.grad_fn._saved_dim)",
        "(a + b.sum() + c.sum()).backward()"],
    "torch.argmax's dim is its second argument": ["a = lib.argmax(lib.ones(2, 3), 1.5)"],
    "argmax dim by keyword is named without a position": ["a = lib.ones(2, 3).argmax(dim=1.5)"],
    "argmax keepdim must be a bool, not None": ["a = lib.ones(2, 3).argmax(None, None)"],
    "argmin of a bool tensor dim": ["a = lib.ones(2, 3).argmin(lib.tensor(True))"],
    "argmax of a 1-dim tensor dim": ["a = lib.ones(2, 3).argmax(lib.tensor([1]))"],
    "argmax/argmin: NumPy ints, 0-dim integer tensors, axis=": [
        "import numpy as np", "x = lib.tensor([[1., 5., 2.], [7., 0., 3.]])",
        "a = x.argmax(np.int64(1))", "b = lib.argmin(x, dim=lib.tensor(0), keepdim=True)",
        "c = x.argmax(axis=-1)", "d = lib.argmax(input=x)"],
    "max(dim=1.5) lists max's overloads": ["a = lib.ones(2, 3).max(dim=1.5)"],
    "max(0, keepdim=None)": ["a = lib.ones(2, 3).max(0, keepdim=None)"],
    "max(0, True, 1) lists max's overloads": ["a = lib.ones(2, 3).max(0, True, 1)"],
    "max(x, keepdim=True) names dim": ["x = lib.ones(2, 3)", "a = x.max(x, keepdim=True)"],
    "the method max takes no out": ["a = lib.ones(2, 3).max(0, out=None)"],
    "max/min: a 0-dim tensor is other, dim= and other= by keyword, NumPy ints": [
        "import numpy as np", "x = lib.tensor([[1., 5., 2.], [7., 0., 3.]], requires_grad=True)",
        "a = x.max(lib.tensor(2.))", "b = x.min(dim=1)", "c = lib.max(x, other=x * 2)",
        "d = lib.min(x, np.int64(0), True)", "e = x.max(axis=0, keepdims=True)",
        "(a.sum() + b.values.sum() + c.sum() + d.values.sum() + e.values.sum()).backward()"],
    "cumsum(None)": ["a = lib.ones(2, 3).cumsum(None)"],
    "cumsum dim by keyword": ["a = lib.ones(2, 3).cumsum(dim='a')"],
    "cumsum takes dtype by keyword only": ["a = lib.ones(2, 3).cumsum(0, lib.float64)"],
    "cumsum(0, foo=1)": ["a = lib.ones(2, 3).cumsum(0, foo=1)"],
    "cumsum: NumPy ints, dtype=None, torch.cumsum(input=)": [
        "import numpy as np", "x = lib.arange(6.).reshape(2, 3).requires_grad_()",
        "a = x.cumsum(np.int64(1))", "b = lib.cumsum(x, 0, dtype=None)",
        "c = lib.cumsum(input=x, dim=-1, dtype=lib.float64)", "s = a.grad_fn._saved_dim",
        "(a.sum() + b.sum() + c.sum()).backward()"],
    "softmax(None)": ["a = lib.ones(2, 3).softmax(None)"],
    "softmax's dtype is its second argument": ["a = lib.ones(2, 3).softmax(1, 'a')"],
    "log_softmax dtype by keyword": ["a = lib.ones(2, 3).log_softmax(dim=1, dtype='a')"],
    "torch.softmax with four arguments": ["a = lib.softmax(lib.ones(2, 3), 1, None, None)"],
    "softmax/log_softmax: NumPy ints, a 0-dim integer tensor, dtype positionally": [
        "import numpy as np", "x = lib.arange(6.).reshape(2, 3).requires_grad_()",
        "a = x.softmax(np.int64(1))", "b = lib.log_softmax(x, lib.tensor(0), lib.float64)",
        "c = lib.softmax(x, dim=-1, out=None)", "s = a.grad_fn._saved_dim",
        "(a * lib.arange(6.).reshape(2, 3)).sum().backward()", "(b.sum() + c.sum()).backward()"],
    "amax/amin share the gradient among ties": [
        "x = lib.tensor([[1., 3., 3.], [2., 0., 2.]], requires_grad=True)",
        "a = x.amax(1)", "b = x.amin()", "c = lib.amax(x * x, (0, 1), keepdim=True)",
        "d = x.amin(-1, True)", "(a.sum() + b + c.sum() + d.sum()).backward()"],
    "amax/amin of ints, bools, a 0-dim tensor and nan": [
        "a = lib.tensor([1, 5, 2]).amax()", "b = lib.tensor([True, False]).amin()",
        "c = lib.tensor(3.).amax(0, True)", "d = lib.tensor([1., float('nan'), 2.]).amax()",
        "e = lib.zeros(2, 0).amax(0)"],
    "amax of nothing": ["a = lib.tensor([]).amax()"],
    "amin of an empty dim": ["a = lib.zeros(2, 0).amin(1)"],
    "amax of an empty tensor checks its dims in order": ["a = lib.tensor([]).amax(dim=(0, 1))"],
    "amax of an empty tensor, a dim past the end": ["a = lib.zeros(0, 2).amax((1, 5))"],
    "amin of an empty tensor names the dim as given": ["a = lib.zeros(2, 0).amin([-1])"],
    "amax of an empty tensor, a dim named twice": ["a = lib.zeros(2, 0).amax((0, 0))"],
    "amax of complex": ["a = lib.tensor([1 + 1j]).amax()"],
    "amax of a dim named twice": ["a = lib.ones(2, 3).amax((0, 0))"],
    "amax(2) of a matrix": ["a = lib.ones(2, 3).amax(2)"],
    "amax(1.5)": ["a = lib.ones(2, 3).amax(1.5)"],
    "torch.amin(x, 1.5)": ["a = lib.amin(lib.ones(2, 3), 1.5)"],
    "amax keepdim must be a bool": ["a = lib.ones(2, 3).amax(0, 1)"],
    "torch.amax of a list": ["a = lib.amax([1., 2.])"],
    # the argument parser: optional tensors and tensors given by keyword
    "F.linear with a number bias": ["a = F.linear(lib.ones(2, 2), lib.ones(3, 2), 2)"],
    "F.linear with a keyword number bias": ["a = F.linear(lib.ones(2), lib.ones(3, 2), bias=2.5)"],
    "F.linear with a list bias": ["a = F.linear(lib.tensor(2.), lib.ones(3, 2), [1., 2., 3.])"],
    "F.linear with a keyword number input": ["a = F.linear(input=2, weight=lib.ones(3, 2))"],
    "torch.exp with a keyword number input": ["a = lib.exp(input=2)"],
    # dims, validated in one place
    "unsqueeze(4)": ["a = lib.ones(2, 3).unsqueeze(4)"],
    "stack(dim=3)": ["a = lib.stack([lib.ones(2), lib.ones(2)], 3)"],
    "select(2, 0)": ["a = lib.ones(2, 3).select(2, 0)"],
    "select out of range": ["a = lib.ones(2, 3).select(1, 5)"],
    "select of a 0-dim tensor": ["a = lib.tensor(3.).select(0, 0)"],
    "squeeze(3)": ["a = lib.ones(2, 3).squeeze(3)"],
    "squeeze of several dims": ["x = lib.ones(1, 3, 1, requires_grad=True)",
                                "a = x.squeeze((0, 2))", "a.sum().backward()"],
    "transpose of a 0-dim tensor": ["a = lib.tensor(3.).transpose(0, -1)"],
    "size(5)": ["a = lib.ones(2, 3).size(5)"],
    "argmax(5)": ["a = lib.ones(3).argmax(5)"],
    "unsqueeze(1.0)": ["a = lib.ones(3).unsqueeze(1.0)"],
    # shapes, checked before NumPy
    "cat of mismatched shapes": ["a = lib.cat([lib.ones(2, 3), lib.ones(3, 2)])"],
    "cat of different ranks": ["a = lib.cat([lib.ones(2, 3), lib.ones(3)])"],
    "cat skips legacy empty 1-D tensors": ["a = lib.cat([lib.ones(2, 3), lib.ones(0)])"],
    "cat([])": ["a = lib.cat([])"],
    "cat of 0-dim tensors": ["a = lib.cat([lib.tensor(1.), lib.tensor(2.)])"],
    "cat of a tensor": ["a = lib.cat(lib.ones(3))"],
    "stack([])": ["a = lib.stack([])"],
    "comparison with clashing shapes": ["a = lib.ones(2) > lib.ones(3)"],
    "where with clashing shapes": ["a = lib.where(lib.ones(2) > 0, lib.ones(2), lib.ones(3))"],
    "addmm bias of the wrong size": ["a = lib.addmm(lib.ones(3), lib.ones(2, 2), lib.ones(2, 2))"],
    "expand to fewer dims": ["a = lib.ones(2, 3).expand(3)"],
    "expand that clashes": ["a = lib.ones(2, 3).expand(2, 2)"],
    "matmul of a 0-dim tensor": ["a = lib.tensor(1.) @ lib.ones(2)"],
    "dot of two dtypes": ["a = lib.ones(3) @ lib.ones(3, dtype=lib.int64)"],
    "mv size mismatch": ["a = lib.ones(2, 3) @ lib.ones(2)"],
    "narrow past the end": ["a = lib.ones(3).narrow(0, 1, 5)"],
    # matmul of every rank, bmm, dot: torch's messages
    "dot of matrices": ["a = lib.dot(lib.ones(2, 3), lib.ones(2, 3))"],
    "dot of 0-dim tensors": ["a = lib.dot(lib.tensor(1.), lib.tensor(2.))"],
    "dot of different lengths": ["a = lib.ones(3).dot(lib.ones(4))"],
    "dot of two dtypes, by name": ["a = lib.dot(lib.ones(3), lib.ones(3, dtype=lib.float64))"],
    "dot of bools": ["a = lib.dot(lib.ones(3) > 0, lib.ones(3) > 0)"],
    "dot of ints": ["a = lib.dot(lib.tensor([1, 2]), lib.tensor([3, 4]))"],
    "dot with a number": ["a = lib.dot(lib.ones(3), 2)"],
    "Tensor.dot with a number counts from 1": ["a = lib.ones(3).dot(2)"],
    "bmm of a matrix": ["a = lib.bmm(lib.ones(2, 3), lib.ones(2, 3, 4))"],
    "bmm of a matrix second": ["a = lib.bmm(lib.ones(2, 2, 3), lib.ones(3, 4))"],
    "bmm size mismatch": ["a = lib.bmm(lib.ones(2, 2, 3), lib.ones(2, 4, 4))"],
    "bmm batch mismatch": ["a = lib.ones(2, 2, 3).bmm(lib.ones(3, 3, 4))"],
    "bmm of two dtypes": ["a = lib.bmm(lib.ones(2, 2, 3), lib.ones(2, 3, 4, dtype=lib.float64))"],
    "bmm of bool and long": ["a = lib.bmm(lib.ones(2, 2, 3) > 0, lib.ones(2, 3, 4, dtype=lib.int64))"],
    "bmm of ints": ["a = lib.bmm(lib.ones(2, 2, 3, dtype=lib.int64), lib.ones(2, 3, 4, dtype=lib.int64))"],
    "bmm with nothing to multiply checks no dtype": [
        "a = lib.bmm(lib.ones(2, 2, 0), lib.ones(2, 0, 4, dtype=lib.float64))"],
    "bmm with a number": ["a = lib.ones(2, 2, 3).bmm(3)", ],
    "matmul 3-D @ 2-D size mismatch": ["a = lib.ones(5, 2, 3) @ lib.ones(4, 4)"],
    "matmul 3-D @ 1-D size mismatch": ["a = lib.ones(5, 2, 3) @ lib.ones(4)"],
    "matmul 1-D @ 3-D size mismatch": ["a = lib.ones(3) @ lib.ones(5, 4, 4)"],
    "matmul 3-D @ 3-D size mismatch": ["a = lib.ones(5, 2, 3) @ lib.ones(5, 4, 4)"],
    "matmul batch dims that clash": ["a = lib.ones(6, 5, 2, 3) @ lib.ones(4, 3, 4)"],
    "matmul: a batch of one that requires grad is squeezed first": [
        "x = lib.ones(1, 2, 3, requires_grad=True)", "a = x @ lib.ones(2, 1, 3)"],
    "matmul: a size-1 dim's stride is torch's, not NumPy's": [
        "a = (lib.ones(1) > 0).unsqueeze(0).expand(2, -1, -1) @ (lib.ones(1) > 0)",
        "b = lib.ones(1, 1).expand(2, 1, 1) @ lib.ones(1)"],
    "dot: the sizes are checked before a bool kernel is refused (fuzzer)": [
        "a = lib.tensor([True]) @ lib.tensor([True, True, True])"],
    "matmul: unsqueeze keeps a transposed size-1 dim's stride, so no fold (fuzzer)": [
        "t = lib.arange(6.).reshape(3, 1, 2).transpose(0, 1).unsqueeze(0)",
        "a = t @ lib.ones(2)", "b = t @ lib.ones(1, dtype=lib.int64)"],
    "matmul: the other side's batch of one": [
        "y = lib.ones(1, 1, 3, requires_grad=True)", "a = lib.ones(2, 2, 3) @ y"],
    "matmul: a batch of one squeezed, even under no_grad": [
        "x = lib.ones(1, 2, 3, requires_grad=True)", "with lib.no_grad(): a = x @ lib.ones(2, 1, 3)"],
    "matmul 3-D of two dtypes": ["a = lib.ones(5, 2, 3) @ lib.ones(5, 3, 4, dtype=lib.float64)",],
    "matmul folded of two dtypes": ["a = lib.ones(5, 2, 3) @ lib.ones(3, 4, dtype=lib.float64)"],
    "matmul 3-D of bools": ["a = (lib.ones(5, 2, 3) > 0) @ (lib.ones(5, 3, 4) > 0)"],
    "matmul 3-D of ints": ["a = lib.tensor([[[1, 2]]]) @ lib.tensor([[3], [4]])"],
    "matmul 3-D @ 0-dim": ["a = lib.ones(5, 2, 3) @ lib.tensor(2.)"],
    "matmul of empty batches": ["a = lib.ones(5, 2, 0) @ lib.ones(0, 0)",
                                "b = lib.ones(0, 2, 3) @ lib.ones(3)",
                                "c = lib.ones(3) @ lib.ones(0, 3, 2)"],
    "matmul with a number": ["a = lib.matmul(lib.ones(3), 2)"],
    "matmul of a number": ["a = lib.matmul(2, lib.ones(3))"],
    "Tensor.matmul with a number": ["a = lib.ones(3).matmul(2)"],
    "matmul N-D gradients": [
        "x = lib.arange(24.).reshape(2, 1, 3, 4).requires_grad_()",
        "y = lib.arange(24.).reshape(3, 4, 2).div(10).requires_grad_()",
        "v = lib.tensor([1., -1., 2., 0.5], requires_grad=True)",
        "a = x @ y", "b = v @ y.transpose(-1, -2).transpose(0, 1)", "c = x @ v",
        "(a.sum() + b.sum() + c.sum()).backward()"],
    "matmul double backward": [
        "x = lib.arange(12.).reshape(2, 3, 2).div(7).requires_grad_()",
        "y = lib.arange(4.).reshape(2, 2).requires_grad_()",
        "g, = lib.autograd.grad((x @ y).pow(2).sum(), x, create_graph=True)",
        "g.sum().backward()"],
    "mT of a vector": ["a = lib.ones(3).mT"],
    "mT of a 0-dim tensor: itself (with a warning, once per process, unless warn_always)": [
        "x = lib.tensor(2., requires_grad=True)", "a = x.mT", "same = a is x"],
    # argmin, as argmax
    "argmin ties: the first": ["a = lib.tensor([3., 1., 1., 2.]).argmin()",
                               "b = lib.tensor([[3., 1., 1.], [0., 0., 2.]]).argmin(1, keepdim=True)",
                               "c = lib.tensor([[1, 0], [0, 1]]).argmin(0)"],
    "argmin of nan": ["a = lib.tensor([1., float('nan'), 0., float('nan')]).argmin()"],
    "argmin keepdim without dim": ["a = lib.ones(2, 3).argmin(keepdim=True)",
                                   "b = lib.tensor(5.).argmin(keepdim=True)",
                                   "c = lib.ones(2, 3).argmax(keepdim=True)"],
    "argmin of 0-dim": ["a = lib.tensor(5.).argmin(0, keepdim=True)", "b = lib.tensor(5.).argmin(-1)"],
    "argmin of nothing": ["a = lib.zeros(0).argmin()"],
    "argmin of an empty dim": ["a = lib.zeros(2, 0).argmin(1)"],
    "argmin along a non-empty dim of an empty tensor": ["a = lib.zeros(2, 0).argmin(0)"],
    "argmin of bools": ["a = lib.tensor([True, False]).argmin(5)"],
    "argmin dim out of range": ["a = lib.ones(2).argmin(2)"],
    "argmin float dim": ["a = lib.ones(2).argmin(1.5)"],
    "torch.argmin and argmax": ["a = lib.argmin(lib.tensor([3, 1, 1]), dim=0)",
                                "b = lib.argmax(lib.tensor([[1., 5.], [5., 0.]]))"],
    "torch.argmin of a number": ["a = lib.argmin(3)"],
    # index_put_ with duplicate indices: the last write wins; every duplicate gets its gradient
    "duplicate indices: the last write wins": [
        "x = lib.zeros(5)", "x[[0, 0, 1]] = lib.tensor([1., 2., 3.])",
        "y = lib.zeros(5)", "y[lib.tensor([3, 0, 3, 0])] = lib.tensor([1., 2., 3., 4.])"],
    "duplicate indices: gradients": [
        "b = lib.zeros(4, requires_grad=True)", "v = lib.tensor([1., 2., 3.], requires_grad=True)",
        "h = b * 1", "h[[0, 0, 1]] = v", "(h * lib.tensor([1., 2., 3., 4.])).sum().backward()"],
    "duplicate indices, values broadcast: gradients": [
        "b = lib.zeros(4, 3, requires_grad=True)", "v = lib.tensor([1., 2., 3.], requires_grad=True)",
        "h = b * 1", "h[[0, 0, 1]] = v", "(h * lib.arange(12.).reshape(4, 3)).sum().backward()"],
    "duplicate indices, one value broadcast: gradients": [
        "b = lib.zeros(4, requires_grad=True)", "s = lib.tensor(2., requires_grad=True)",
        "h = b * 1", "h[[2, 2]] = s", "(h * lib.tensor([1., 2., 3., 4.])).sum().backward()"],
    "index_put_ accumulate with duplicates": [
        "b = lib.zeros(4, requires_grad=True)", "v = lib.tensor([1., 2., 3.], requires_grad=True)",
        "h = b * 1", "r = h.index_put_((lib.tensor([0, 0, 1]),), v, accumulate=True)",
        "same = r is h", "(h * lib.tensor([1., 2., 3., 4.])).sum().backward()"],
    "index_put_ accumulate, value broadcast": [
        "b = lib.zeros(4, 2, requires_grad=True)", "s = lib.tensor([2., 3.], requires_grad=True)",
        "h = b * 1", "h.index_put_((lib.tensor([0, 0, 1]),), s, accumulate=True)",
        "(h * lib.arange(8.).reshape(4, 2)).sum().backward()"],
    "index_put_ of a 2-D index pair, accumulate": [
        "x = lib.zeros(3, 2)",
        "x.index_put_((lib.tensor([0, 0]), lib.tensor([1, 1])), lib.tensor([1., 2.]), accumulate=True)",
        "y = lib.zeros(3, 2)", "y.index_put_((lib.tensor([0, 0]),), lib.tensor(1.5), True)"],
    "index_put_ of ints and bools, accumulate": [
        "x = lib.zeros(3, dtype=lib.int64)",
        "x.index_put_((lib.tensor([0, 0]),), lib.tensor([1, 2]), accumulate=True)",
        "y = lib.zeros(3, dtype=lib.bool)",
        "y.index_put_((lib.tensor([0, 0]),), lib.tensor([True, False]), accumulate=True)"],
    "index_put (out of place) with duplicates": [
        "b = lib.zeros(4, requires_grad=True)", "v = lib.tensor([2.], requires_grad=True)",
        "a = b.index_put((lib.tensor([0, 0, 1]),), v, accumulate=True)",
        "c = b.index_put((lib.tensor([0, 0, 1]),), v)", "(a.sum() + (c * 3).sum()).backward()"],
    "torch.index_put": ["b = lib.zeros(3, requires_grad=True)",
                        "a = lib.index_put(b, (lib.tensor([2, 2]),), lib.tensor([1., 2.]))",
                        "c = lib.index_put(b, [lib.tensor([0, 0])], lib.tensor(1.), True)",
                        "(a * lib.tensor([1., 2., 3.]) + c).sum().backward()"],
    "torch.index_put of a number": ["a = lib.index_put(3, (lib.tensor([0]),), lib.tensor(1.))"],
    "Tensor.mm and Tensor.mv with a number count from 1": ["a = lib.ones(2, 2).mm(3)"],
    "Tensor.mv with a number": ["a = lib.ones(2, 2).mv(3)"],
    "index_put_ of a mask and one value goes through masked_fill_": [
        "x = lib.zeros(3)", "x.index_put_((lib.tensor([True, False, True]),), lib.tensor([[1]]))",
        "y = lib.zeros(1).expand(3)", "y.index_put_((lib.tensor([True, False, True]),), lib.tensor(1.))",
        "z = lib.zeros(3)", "z.index_put_((lib.tensor([1, 0, 1], dtype=lib.uint8),), lib.tensor([1., 2.]))"],
    "index_put_ of a byte mask and one value": [
        "x = lib.zeros(3)", "x.index_put_((lib.tensor([1, 0, 1], dtype=lib.uint8),), lib.tensor(1.))"],
    "one value requiring grad through a mask": [
        "b = lib.zeros(3, requires_grad=True)", "v = lib.tensor(2., requires_grad=True)",
        "w = lib.ones(1, requires_grad=True)", "m = lib.tensor([True, False, True])",
        "h = b * 1", "h.index_put_((m,), v)", "k = b * 1", "k[m] = w", "q = b.index_put((m,), v)",
        "(h.sum() + k.sum() + q.sum()).backward()"],
    "one (1, 1) value through a mask: its gradient cannot be summed back": [
        "b = lib.zeros(3, requires_grad=True)", "v = lib.ones(1, 1, requires_grad=True)",
        "h = b.index_put((lib.tensor([True, False, True]),), v)", "h.sum().backward()"],
    "index_put_'s argument checks": ["x = lib.zeros(3)", "x.index_put_(lib.tensor([0]), lib.tensor(1.))"],
    "index_put_ of a number": ["x = lib.zeros(3)", "x.index_put_((lib.tensor([0]),), 1.0)"],
    "index_put_ of a list index": ["x = lib.zeros(3)", "x.index_put_(([0, 1],), lib.tensor([1., 2.]))"],
    "index_put_ keeps leading 1s": ["x = lib.zeros(3)", "x.index_put_((lib.tensor([0, 1]),), lib.ones(1, 2))"],
    "log_softmax and softmax backward of inf - inf: nan, quietly": [
        "x = lib.full((3, 1, 2), -2., requires_grad=True)", "a = x.log_softmax(1).log()",
        "a.sum().backward()", "y = lib.full((3, 1), -2., requires_grad=True)",
        "b = y.softmax(1).sub(1).log()", "b.sum().backward()"],
    "out of bounds in two dims: the first bad element is reported": [
        "x = lib.zeros(1, 1)", "x[[0, 1], [1, 0]] = 0.", ],
    "out of bounds in two dims, read": ["a = lib.zeros(1, 1)[[0, 1], [1, 0]]",
                                        "b = lib.zeros(2, 2)[[0, 5], [7, 0]]"],
    "index_put_ out of bounds": [  # (torch has written index 0 by then: not compared here)
        "lib.zeros(3).index_put_((lib.tensor([0, 5]),), lib.tensor([1., 2.]), accumulate=True)"],
    "index_put_ of a float index": ["x = lib.zeros(3)", "x.index_put_((lib.tensor([0., 1.]),), lib.tensor([1., 2.]))"],
    "index_put_ a mask with one value": ["x = lib.zeros(3)",
                                         "x.index_put_((lib.tensor([True, False, True]),), lib.tensor(1.))"],
    "expanded target, duplicate writes: the last in index order wins": [
        "x = lib.zeros(1).expand(3)", "x[[2, 0]] = lib.tensor([1., 2.])",
        "y = lib.zeros(2).expand(3, 2)", "y[[2, 0]] = lib.tensor([[1., 2.], [3., 4.]])",
        "z = lib.zeros(1).expand(3)", "z[lib.tensor([True, False, True])] = lib.tensor([1., 2.])"],
    "expanded target, accumulate adds at each alias": [
        "x = lib.zeros(1).expand(3)",
        "x.index_put_((lib.tensor([0, 1, 2]),), lib.tensor([1., 2., 3.]), accumulate=True)",
        "y = lib.zeros(1).expand(3)", "y.index_put_((lib.tensor([0, 0]),), lib.tensor(5.), accumulate=True)",
        "z = lib.zeros(1).expand(3)", "z.index_put_((lib.tensor([0, 0]),), lib.tensor(5.))",
        "w = lib.zeros(3, 1).expand(3, 4)",
        "w.index_put_((lib.tensor([0, 2, 0]),), lib.arange(12.).reshape(3, 4), accumulate=True)"],
    "view of an expanded tensor": ["x = lib.ones(1, requires_grad=True)",
                                   "a = x.expand(2, 3).view(-1)", "a.sum().backward()"],
    # factories
    "negative sizes": ["a = lib.ones(-1)"],
    "zeros with a negative size": ["a = lib.zeros(2, -1)"],
    "arange step 0": ["a = lib.arange(0, 3, 0)"],
    "arange step of the wrong sign": ["a = lib.arange(0, 3, -1)"],
    "ragged nested lists": ["a = lib.tensor([[1, 2], [3]])"],
    "a size that is a float": ["a = lib.zeros(2.5)"],
    "eye with a negative size": ["a = lib.eye(-1)"],
    "device='cpu'": ["a = lib.ones(2, device='cpu')", "b = lib.zeros(2, device=lib.device('cpu'))",
                     "c = lib.tensor([1.], device='cpu').to('cpu')"],
    "device='cuda'": ["a = lib.ones(2, device='cuda')"],
    "an unknown device": ["a = lib.ones(2, device='foo')"],
    "int8/int16/int32": ["a = lib.zeros(2, dtype=lib.int8) + lib.zeros(2, dtype=lib.int16)",
                         "b = lib.ones(2, dtype=lib.int32)", "c = lib.tensor([1.5, 2.5]).int()"],
    # indexing
    "x[0, 5] blames dimension 1": ["a = lib.ones(2, 3)[0, 5]"],
    "x[5]": ["a = lib.ones(2, 3)[5]"],
    "x[[0, 5]]": ["a = lib.ones(2)[[0, 5]]"],
    "Ellipsis and None": ["x = lib.arange(6.).reshape(2, 3).requires_grad_()",
                          "a = x[..., 0]", "b = x[None, :, 1]", "c = x[...]",
                          "(a.sum() + b.sum() + c.sum()).backward()"],
    "Ellipsis out of range names the key position": ["a = lib.ones(3)[..., 5]"],
    "a tuple of lists": ["x = lib.arange(6.).reshape(2, 3).requires_grad_()",
                         "a = x[([0, 1], [2, 0])]", "a.sum().backward()"],
    "a 0-dim tensor indexed": ["a = lib.tensor(3.)[0]"],
    "a 0-dim tensor sliced": ["a = lib.tensor(3.)[1:]"],
    "a float index": ["a = lib.ones(3)[1.5]"],
    "a bool index": ["a = lib.ones(3)[True]"],
    "a mask with too many dims": ["x = lib.ones(2)", "a = x[lib.ones(2, 2) > 0]"],
    "item assignment with torch's checks": [
        "x = lib.zeros(3)", "x[[0, 1]] = lib.ones(3)"],
    "item assignment of the wrong dtype": ["x = lib.zeros(3)", "x[[0, 1]] = lib.tensor([1, 2])"],
    "item assignment through a mask": ["x = lib.tensor([1., -2., 3.], requires_grad=True)",
                                       "h = x * 1", "h[h < 0] = 0", "h.sum().backward()"],
    "item assignment of an overlapping slice": ["x = lib.zeros(3)", "x[1:] = x[:2]"],
    "item assignment that does not broadcast": ["x = lib.zeros(2, 3)", "x[0] = lib.ones(2, 3)"],
    "item assignment of a string": ["x = lib.zeros(3)", "x[0] = 'a'"],
    # new API
    "chunk and unbind": ["x = lib.arange(5.).requires_grad_()", "a, b = x.chunk(2)",
                         "c = x.unbind()[3]", "(a.sum() * 2 + b.sum() + c).backward()"],
    "chunk of a 0-dim tensor": ["a = lib.tensor(1.).chunk(2)"],
    "chunk outputs can't change in place": ["x = lib.ones(4, requires_grad=True).clone()",
                                            "x.chunk(2)[1].mul_(2)"],
    "unbind outputs can't change in place": ["x = lib.ones(4, requires_grad=True).clone()",
                                             "x.unbind()[0].mul_(2)"],
    "is_floating_point": ["a = lib.tensor([1]).is_floating_point()",
                          "b = lib.is_floating_point(lib.ones(1))"],
    # bool and complex refusals
    "bool subtraction": ["a = lib.tensor([True]) - lib.tensor([True])"],
    "bool negation": ["a = -lib.tensor([True])"],
    "relu of bools": ["a = lib.tensor([True]).relu()"],
    "where with a non-bool condition": ["a = lib.where(lib.ones(2), lib.ones(2), lib.ones(2))"],
    "& of floats": ["a = lib.ones(2) & lib.ones(2)"],
    "& of ints is bitwise": ["a = lib.tensor([3, 1]) & lib.tensor([1, 1])"],
    "~ of floats": ["a = ~lib.ones(2)"],
    "x + 'a'": ["a = lib.ones(2) + 'a'"],
    "clamp of complex": ["a = (lib.ones(2) * 1j).clamp(0, 1)"],
    "ordering complex": ["a = lib.ones(2, dtype=lib.int32) < 1j"],
    "complex to real warns": ["a = (lib.ones(2) * 1j).float()"],
    # losses
    "mse_loss with a broadcast target": [
        "x = lib.ones(3, 1, requires_grad=True)",
        "loss = F.mse_loss(x, lib.tensor([1., 2., 3.]))", "loss.backward()"],
    "mse_loss of ints": ["a = F.mse_loss(lib.ones(3, dtype=lib.int64), lib.ones(3, dtype=lib.int64))"],
    "BCE target outside [0, 1]": ["a = F.binary_cross_entropy(lib.ones(3) / 2, lib.tensor([1., 2., 3.]))"],
    "BCE of two dtypes": ["a = F.binary_cross_entropy(lib.ones(3) / 2, lib.ones(3, dtype=lib.float64))"],
    "cross-entropy target -1": ["a = F.cross_entropy(lib.ones(2, 3), lib.tensor([-1, 0]))"],
    "cross-entropy names the first bad target": ["a = F.cross_entropy(lib.ones(2, 3), lib.tensor([5, 7]))"],
    "cross-entropy float class targets": ["a = F.cross_entropy(lib.ones(2, 3), lib.tensor([0., 1.]))"],
    "cross-entropy of a 1-D input and two targets": [
        "a = F.cross_entropy(lib.ones(3), lib.tensor([0, 1]))"],
    "linear with a 1-D weight and a bias": ["a = F.linear(lib.ones(3), lib.ones(3), lib.ones(1))"],
    "leaky_relu of ints": ["a = F.leaky_relu(lib.ones(2, dtype=lib.int64), 0.1)"],
    # issue 12: min, maximum/minimum, square/sin/cos, comparison methods
    "min of ints, bools, 0-dim, nan": [
        "a = lib.tensor([3, 1]).min()", "b = lib.tensor([True, False]).min(0)",
        "c = lib.tensor(3.).min(0)", "d = lib.tensor([1., float('nan'), 0.]).min()",
        "e = lib.tensor([[1., float('nan'), 0.]]).min(1)", "f = lib.ones(2, 0).min(0)",
        "g = lib.min(lib.tensor([[2, 1], [0, 5]]), 1, True)"],
    "min of nothing": ["a = lib.ones(0).min()"],
    "min of an empty dim": ["a = lib.ones(2, 0).min(1)"],
    "min of complex": ["a = (lib.ones(2) * 1j).min()"],
    "min(dim) of complex": ["a = (lib.ones(2) * 1j).min(0)"],
    "min(dim) out of range": ["a = lib.ones(2).min(1)"],
    "min keepdim must be a bool": ["a = lib.ones(2).min(0, 1)"],
    "min of a float dim": ["a = lib.ones(2).min(1.5)"],
    "torch.min of a float dim": ["a = lib.min(lib.ones(2), 1.5)"],
    "max of None": ["a = lib.ones(2).max(None)"],
    "min keepdim without dim": ["a = lib.ones(2).min(keepdim=True)"],
    "min(other, keepdim)": ["x = lib.ones(2)", "a = x.min(x, True)"],
    "torch.min of a number": ["a = lib.min(2)"],
    "min ties: the gradient is shared; min(dim) picks the first": [
        "x = lib.tensor([[1., 1., 2.], [0., 3., 0.]], requires_grad=True)",
        "a = x.min()", "b = x.min(1)", "(a + b.values.sum()).backward()"],
    "max(other) and min(other) are maximum and minimum": [
        "x = lib.tensor([1., 2., 3.], requires_grad=True)", "y = lib.tensor([1., 3., 2.], requires_grad=True)",
        "a = lib.max(x, y)", "b = x.min(y)", "c = lib.max(x, lib.tensor(2.))", "(a + b + c).sum().backward()"],
    "maximum ties split the gradient": [
        "x = lib.tensor([1., 2., 3.], requires_grad=True)", "y = lib.tensor([1., 3., 2.], requires_grad=True)",
        "a = lib.maximum(x, y)", "b = lib.minimum(x, y)", "(a * 3 + b).sum().backward()"],
    "maximum broadcasts and promotes": [
        "a = lib.maximum(lib.tensor([1, 2]), lib.tensor([1.5, 0.5]))",
        "b = lib.minimum(lib.tensor([True]), lib.tensor([False, True]))",
        "c = lib.ones(2).maximum(lib.tensor(2., dtype=lib.float64))",
        "d = lib.ones(2, 1, dtype=lib.int32).minimum(lib.tensor([0, 3]))",
        "e = lib.maximum(lib.tensor([1., float('nan')]), lib.tensor([float('nan'), 2.]))"],
    "maximum of a number": ["a = lib.maximum(lib.tensor([1, 2]), 1)"],
    "maximum of a number first": ["a = lib.maximum(2, lib.ones(2))"],
    "Tensor.maximum of a number": ["a = lib.ones(2).maximum(2.)"],
    "Tensor.minimum of a list": ["a = lib.ones(2).minimum([1])"],
    "maximum of clashing shapes": ["a = lib.maximum(lib.ones(2), lib.ones(3))"],
    "maximum of complex": ["a = lib.maximum(lib.ones(2) * 1j, lib.ones(2))"],
    "minimum of complex": ["a = lib.ones(2).minimum(lib.ones(2) * 1j)"],
    "square, sin, cos of ints and bools": [
        "a = lib.tensor([1, 2]).square()", "b = lib.tensor([True, False]).square()",
        "c = lib.tensor([1, 2], dtype=lib.int32).square()", "d = lib.tensor([1, 2]).sin()",
        "e = lib.tensor([True]).cos()", "f = lib.tensor([1, 2]).square_()",
        "g = lib.square(lib.tensor([0.5]))", "h = lib.sin(lib.tensor(1.))", "i = lib.cos(lib.tensor(1.))"],
    "square, sin, cos: gradients, in place too": [
        "x = lib.tensor([0.5, -1., 2.], requires_grad=True)", "h = x * 1", "h.sin_()",
        "k = x * 1", "k.cos_().square_()", "(x.square() + x.sin() * x.cos() + h + k).sum().backward()"],
    "square, sin, cos: second order": [
        "x = lib.tensor([0.5, -1., 2.], requires_grad=True)",
        "g, = lib.autograd.grad((x.sin() * x.cos() + x.square()).sum(), x, create_graph=True)",
        "g.sum().backward()"],
    "sin_ on ints refuses": ["x = lib.tensor([1, 2])", "x.sin_()"],
    "torch.sin of a number": ["a = lib.sin(2)"],
    "torch.square of a number": ["a = lib.square(3)"],
    "comparison methods": [
        "x = lib.tensor([1., 2., 3.])", "a = x.ne(2)", "b = x.lt(lib.tensor([2]))", "c = x.le(2.)",
        "d = x.gt(True)", "e = x.ge(x)", "f = x.ne(1j)", "g = lib.lt(x, 2)", "h = lib.ne(x, x)",
        "i = lib.ge(lib.tensor([1, 2]), 1.5)", "j = lib.eq(x, 2)"],
    "lt with clashing shapes": ["a = lib.ones(2).lt(lib.ones(3))"],
    "lt of a string": ["a = lib.ones(2).lt('a')"],
    "eq of a string": ["a = lib.ones(2).eq('a')"],
    "ge of a list": ["a = lib.ones(2).ge([1, 2])"],
    "lt of complex": ["a = lib.ones(2).lt(1j)"],
    "torch.lt of a number first": ["a = lib.lt(1, lib.ones(2))"],
    # issue 12: masked_fill, gather, index_select
    "masked_fill: values, dtypes, broadcasting": [
        "x = lib.tensor([[1., -2.], [3., -4.]], requires_grad=True)", "v = lib.tensor(5., requires_grad=True)",
        "a = x.masked_fill(x < 0, 0.5)", "b = x.masked_fill(lib.tensor([True, False]), v)",
        "c = lib.masked_fill(x, lib.tensor([[[True]], [[False]]]), -1)",
        "d = lib.tensor([1, 2]).masked_fill(lib.tensor([True, False]), 1.5)",
        "e = lib.tensor([True, False]).masked_fill(lib.tensor([False, True]), 2)",
        "f = x.masked_fill(x > 0, lib.tensor(2))", "g = lib.ones(4).masked_fill(lib.ones(3, 4) > 0, True)",
        "h = x * 1", "h.masked_fill_(h > 2, v)",
        "(a.sum() + b.sum() * 2 + c.sum() + f.sum() + h.sum()).backward()"],
    "masked_fill of a float mask": ["a = lib.ones(2).masked_fill(lib.ones(2), 1)"],
    "masked_fill of a long mask": ["a = lib.ones(2).masked_fill(lib.ones(2, dtype=lib.int64), 1)"],
    "masked_fill of a byte mask": ["a = lib.ones(2).masked_fill(lib.ones(2, dtype=lib.uint8), 1)"],
    "masked_fill: the value's dims before the mask's dtype": [
        "a = lib.ones(2).masked_fill(lib.ones(2, dtype=lib.int64), lib.ones(1))"],
    "masked_fill: the shapes first": ["a = lib.ones(2).masked_fill(lib.ones(3) > 0, lib.ones(3))"],
    "masked_fill of a complex value": ["a = lib.ones(2).masked_fill(lib.ones(2) > 0, 1j)"],
    "masked_fill of a complex tensor value": ["a = lib.ones(2).masked_fill(lib.ones(2) > 0, lib.tensor(1j))"],
    "masked_fill of a value out of range": ["a = lib.ones(2).masked_fill(lib.ones(2) > 0, 1e40)"],
    "masked_fill of 300 into int8": [
        "a = lib.ones(2, dtype=lib.int8).masked_fill(lib.tensor([True, False]), 300)"],
    "masked_fill of a string": ["a = lib.ones(2).masked_fill(lib.ones(2) > 0, 'a')"],
    "masked_fill of a list mask": ["a = lib.ones(2).masked_fill([True], 1)"],
    "torch.masked_fill of None": ["a = lib.masked_fill(lib.ones(2), lib.ones(2) > 0, None)"],
    "masked_fill_ that would grow": ["x = lib.ones(3)", "x.masked_fill_(lib.ones(2, 3) > 0, 1)"],
    "masked_fill_ of a leaf": ["x = lib.ones(2, requires_grad=True)", "x.masked_fill_(x > 0, 1)"],
    "masked_fill_ of an expanded tensor warns": [
        "x = lib.zeros(1).expand(3)", "x.masked_fill_(lib.tensor([True, True, True]), 1.)"],
    "gather: values and gradients (duplicates sum)": [
        "x = lib.arange(12.).reshape(3, 4).requires_grad_()",
        "a = x.gather(1, lib.tensor([[0, 0], [3, 1], [2, 2]]))", "b = lib.gather(x, 0, lib.tensor([[2, 2, 0]]))",
        "c = x.gather(-1, lib.tensor([[1], [1], [1]], dtype=lib.int32))",
        "d = lib.tensor(3.).gather(0, lib.tensor([0]))", "e = lib.ones(3).gather(0, lib.tensor(2))",
        "f = x.gather(1, lib.zeros(3, 0, dtype=lib.int64))", "g = lib.tensor([1, 2]).gather(0, lib.tensor([1, 1, 0]))",
        "(a * lib.tensor([1., 2.])).sum().backward()", "b.sum().backward()", "c.sum().backward()"],
    "gather: second order": [
        "x = lib.arange(6.).reshape(2, 3).requires_grad_()",
        "g, = lib.autograd.grad((x.gather(1, lib.tensor([[0, 0], [2, 1]])) ** 2).sum(), x, create_graph=True)",
        "g.sum().backward()"],
    "gather of a float index": ["a = lib.ones(3, 4).gather(1, lib.tensor([[0.]]))"],
    "gather of a bool index": ["a = lib.ones(3, 4).gather(1, lib.tensor([[True]]))"],
    "gather of fewer dims": ["a = lib.ones(3, 4).gather(1, lib.tensor([0, 1]))"],
    "gather of a 2-D index into a 0-dim tensor": ["a = lib.tensor(3.).gather(0, lib.tensor([[0]]))"],
    "gather of a larger index": ["a = lib.ones(3, 4).gather(1, lib.tensor([[9] * 4] * 4))"],
    "gather: bounds after sizes": ["a = lib.ones(3, 4).gather(1, lib.tensor([[9] * 5]))"],
    "gather out of bounds: the first in order": [
        "a = lib.ones(3, 4).gather(0, lib.tensor([[0, 1, 7], [9, 0, 0]]))"],
    "gather of a negative index": ["a = lib.ones(3, 4).gather(1, lib.tensor([[0, -5, 7]]))"],
    "gather of an empty dim": ["a = lib.ones(2, 0).gather(1, lib.tensor([[0]]))"],
    "gather dim out of range": ["a = lib.ones(3, 4).gather(2, lib.tensor([[0.]]))"],
    "gather of a float dim": ["a = lib.ones(3, 4).gather(1.5, [[0]])"],
    "gather of a list index": ["a = lib.ones(3, 4).gather(1, [[0]])"],
    "torch.gather of a list index": ["a = lib.gather(lib.ones(3, 4), 1, [[0]])"],
    "index_select: values and gradients (duplicates sum)": [
        "x = lib.arange(12.).reshape(3, 4).requires_grad_()",
        "a = x.index_select(1, lib.tensor([0, 3, 3]))", "b = lib.index_select(x, 0, lib.tensor([2, 2]))",
        "c = x.index_select(-1, lib.tensor(1))", "d = lib.tensor(3.).index_select(0, lib.tensor([0]))",
        "e = x.index_select(1, lib.tensor([], dtype=lib.int64))",
        "f = lib.tensor([1, 2]).index_select(0, lib.tensor([1, 1, 0], dtype=lib.int32))",
        "(a * lib.tensor([1., 2., 3.])).sum().backward()", "b.sum().backward()", "c.sum().backward()"],
    "index_select: second order": [
        "x = lib.arange(6.).reshape(2, 3).requires_grad_()",
        "g, = lib.autograd.grad((x.index_select(1, lib.tensor([0, 0, 2])) ** 2).sum(), x, create_graph=True)",
        "g.sum().backward()"],
    "index_select out of range, dim 1": ["a = lib.ones(3, 4).index_select(1, lib.tensor([0, 4]))"],
    "index_select out of range, dim 0": ["a = lib.ones(3, 4).index_select(0, lib.tensor([-1]))"],
    "index_select out of range, a vector": ["a = lib.ones(3).index_select(0, lib.tensor([0, 5, 7]))"],
    "index_select out of range, 3-D dim 1": ["a = lib.ones(2, 3, 4).index_select(1, lib.tensor([0, 5, 7]))"],
    "index_select out of range, 3-D dim 2": ["a = lib.ones(2, 3, 4).index_select(2, lib.tensor([0, 5, 7]))"],
    "index_select out of range, transposed": ["a = lib.ones(3, 4).t().index_select(0, lib.tensor([0, 5]))"],
    "index_select out of range of an empty tensor": ["a = lib.ones(2, 0).index_select(0, lib.tensor([5]))"],
    "index_select along an empty dim": ["a = lib.ones(2, 0).index_select(1, lib.tensor([0]))"],
    "index_select of a 2-D index": ["a = lib.ones(3, 4).index_select(1, lib.tensor([[0]]))"],
    "index_select of a float index": ["a = lib.ones(3, 4).index_select(1, lib.tensor([0.]))"],
    "index_select into a 0-dim tensor out of range": ["a = lib.tensor(3.).index_select(0, lib.tensor([1]))"],
    "index_select of two into a 0-dim tensor": ["a = lib.tensor(3.).index_select(0, lib.tensor([0, 0]))"],
    "index_select of a float dim": ["a = lib.ones(3).index_select(1.5, lib.tensor([0]))"],
    "index_select of a list": ["a = lib.ones(3).index_select(0, [0])"],
    # issue 12: var and std
    "var/std: the overloads": [
        "x = lib.arange(12.).reshape(3, 4).requires_grad_()", "a = x.var(True)", "b = x.var(False)",
        "c = x.var(None)", "d = x.var(dim=None, keepdim=True)", "e = x.var(correction=1.5)",
        "f = x.var(0, True, True)", "g = x.std(0, False)", "h = lib.var(x, 1, keepdim=True)",
        "i = lib.std(x, dim=[0, 1], correction=0)", "j = x.var(keepdim=True)",
        "k = x.var(correction=True)", "m = x.std(unbiased=False)",
        "(a + b + c + d.sum() + e + f.sum() + g.sum() + h.sum() + i + j.sum() + k + m).backward()"],
    "var/std: float16 and complex": [
        "a = lib.ones(2, dtype=lib.float16).var()", "b = (lib.tensor([1., 2.]) * 1j).var()",
        "c = (lib.tensor([1., 2., 4.], dtype=lib.float64) * (1 + 1j)).std(0)"],
    "var/std: no degrees of freedom (nan, with a warning)": [
        "x = lib.tensor([1., 2., 3.], requires_grad=True)", "a = lib.ones(1).var()",
        "b = lib.ones(0).var()", "c = lib.ones(2, 0).var(1)", "d = lib.ones(2, 0).var(0)",
        "e = lib.tensor(3.).var(0)", "f = lib.tensor(3.).var(correction=0)", "g = x.std(correction=3)",
        "h = lib.ones(2, 3).std(0, correction=2)", "i = x.var(correction=5)"],
    "var: no degrees of freedom, the gradient is nan and inf": [
        "x = lib.tensor([1., 2., 3.], requires_grad=True)", "x.var(correction=3).backward()"],
    "var over a dim: no degrees of freedom": [
        "x = lib.tensor([1., 2., 3.], requires_grad=True)", "x.var(0, correction=3).backward()"],
    "var(dim=[]): torch's gradient divides by zero": [
        "x = lib.tensor([[1., 2.], [4., 3.]], requires_grad=True)", "a = x.var(dim=[])",
        "a.backward()"],
    "std of constants: zero gradient": [
        "x = lib.ones(3, requires_grad=True)", "x.std().backward()", "y = lib.ones(2, 3, requires_grad=True)",
        "y.std(1).sum().backward()"],
    "var/std: second order": [
        "x = lib.tensor([[1., 2., 5.], [4., 3., 0.]], requires_grad=True)",
        "g, = lib.autograd.grad(x.var(1).sum() + x.std(), x, create_graph=True)", "(g * g).sum().backward()"],
    "var of ints": ["a = lib.tensor([1, 2]).var()"],
    "std of bools, before the dim": ["a = lib.tensor([True]).std(5)"],
    "var dim out of range": ["a = lib.ones(3).var(dim=5)"],
    "var of a dim named twice": ["a = lib.ones(3).var(dim=(0, 0))"],
    "var of a float dim": ["a = lib.ones(2, 3).var(1.5)"],
    "var with both unbiased and correction": ["a = lib.ones(3).var(unbiased=True, correction=1)"],
    "var with a dim, unbiased and correction": ["a = lib.ones(3).var(0, unbiased=True, correction=1)"],
    "var with a string correction": ["a = lib.var(lib.ones(3), correction='a')"],
    "var with an int unbiased": ["a = lib.ones(3).var(unbiased=1)"],
    "var: unbiased alone takes no keepdim": ["a = lib.ones(3).var(unbiased=False, keepdim=True)"],
    "var(True, keepdim=True)": ["a = lib.ones(3).var(True, keepdim=True)"],
    "var with an int unbiased, positional": ["a = lib.ones(3).var(0, 1)"],
    "var with an int keepdim": ["a = lib.ones(3).var(0, keepdim=1)"],
    "var with an unknown keyword": ["a = lib.ones(3).var(foo=1)"],
    "torch.var of a number": ["a = lib.var(3)"],
    "var/std: dims as torch's parser reads them": [
        "x = lib.arange(6.).reshape(2, 3).requires_grad_()", "a = x.var((0, True))",
        "b = x.std(lib.tensor(1))", "c = x.var(dim=lib.tensor(1), keepdim=True)",
        "d = lib.std(x, [lib.tensor(0), 1])", "e = x.var(axis=0, keepdims=True)",
        "f = lib.var(input=x, dim=0, out=None)", "s = (a.grad_fn._saved_dim, c.grad_fn._saved_dim)",
        "(a + b.sum() + c.sum() + d + e.sum() + f.sum()).backward()"],
    "var of a float in a dim list": ["a = lib.ones(2, 3).var([0, 1.5])"],
    "torch.std of a float in a dim list": ["a = lib.std(lib.ones(2, 3), (0, 1.5))"],
    "var of a float tensor dim": ["a = lib.ones(2, 3).var(lib.tensor(0.))"],
    "var: a correction may be a 0-dim tensor, a NumPy number, a bool": [
        "import numpy as np", "x = lib.arange(6.).reshape(2, 3).requires_grad_()", "a = x.var(0, correction=lib.tensor(2))",
        "b = x.std(correction=np.float32(0.5))", "c = x.var(1, correction=lib.tensor(True))",
        "d = x.var(correction=1 + 0j)", "e = x.var(correction=2 ** 63)",
        "s = (a.grad_fn._saved_correction, c.grad_fn._saved_correction)",
        "(a.sum() + b + c.sum() + d).backward()"],
    "var: a correction that requires grad": [
        "a = lib.ones(3).var(correction=lib.tensor(1., requires_grad=True))"],
    "var: a 1-dim correction": ["a = lib.ones(3).var(0, correction=lib.ones(1))"],
    "var: a complex correction": ["a = lib.ones(3).var(0, correction=lib.tensor(1j))"],
    "var: a correction past uint64": ["a = lib.ones(3).std(correction=2 ** 64)"],
    "var: a NumPy bool unbiased": ["import numpy as np", "a = lib.ones(3).var(0, unbiased=np.bool_(True))"],
    "torch.var of nothing": ["a = lib.var()"],
    "all/any over dims (dim=() tests each element; uint8 stays uint8)": [
        "x = lib.tensor([[1., 0, 2], [0, 0, 3]], requires_grad=True)", "a = x.all(())",
        "b = x.any([])", "c = x.any(1)", "d = x.all(-1, True)", "e = lib.any(x, (0, 1), True)",
        "f = x.any(dim=0)", "g = x.all(keepdim=True)", "h = lib.all(input=x, axis=1, keepdims=True)",
        "i = x.all(lib.tensor(0))", "j = lib.all(x, dim=(0, True))", "k = x.any(None)",
        "u = lib.tensor([[1, 2], [0, 3]], dtype=lib.uint8)", "m = (u.all(), u.all(0), u.any(dim=(0, 1)), u.all(()))",
        "n = (lib.tensor(2.).all(()), lib.tensor(0.).any(0), lib.tensor(2.).all(0, True))",
        "o = (lib.ones(2, 0).all(), lib.ones(2, 0).any(1), lib.tensor([1j, 0]).any(0))"],
    "all of a float dim": ["a = lib.ones(2, 3).all(1.5)"],
    "torch.any of a float dim": ["a = lib.any(lib.ones(2, 3), 1.5)"],
    "all of a float in a dim list": ["a = lib.ones(2, 3).all([0, 1.5])"],
    "any with an int keepdim": ["a = lib.ones(2, 3).any(0, 1)"],
    "any with a None keepdim": ["a = lib.ones(2, 3).any(0, keepdim=None)"],
    "all with too many arguments": ["a = lib.ones(2, 3).all(0, True, 1)"],
    "all with an unknown keyword": ["a = lib.ones(2, 3).all(foo=1)"],
    "all with dim twice": ["a = lib.ones(2, 3).all(0, dim=1)"],
    "all dim out of range": ["a = lib.ones(2, 3).all(5)"],
    "any of a dim named twice": ["a = lib.ones(2, 3).any((0, 0))"],
    "torch.all of a number": ["a = lib.all(3)"],
    "torch.any of nothing": ["a = lib.any()"],
    # issue 12: view_as, reshape_as, type_as, new_*, full_like, empty, empty_like
    "view_as, reshape_as, type_as": [
        "x = lib.arange(12.).reshape(3, 4).requires_grad_()", "i = lib.tensor([1, 2])",
        "a = x.view_as(lib.ones(12))", "b = x.t().reshape_as(lib.ones(2, 6))", "c = x.type_as(i)",
        "d = i.type_as(x)", "e = x.type_as(x) is x", "f = x.type_as(lib.ones(1, dtype=lib.float64))",
        "(a.sum() + b.sum() + f.sum()).backward()"],
    "view_as of a list": ["a = lib.ones(3).view_as([3])"],
    "view_as of the wrong size": ["a = lib.ones(3, 4).view_as(lib.ones(5))"],
    "view_as of a transposed tensor": ["a = lib.ones(3, 4).t().view_as(lib.ones(12))"],
    "reshape_as of a number": ["a = lib.ones(3).reshape_as(3)"],
    "type_as of a number": ["a = lib.ones(3).type_as(1)"],
    "new_zeros, new_ones, new_empty, new_full, new_tensor": [
        "x = lib.ones(2, dtype=lib.float64)", "i = lib.tensor([1, 2])",
        "a = x.new_zeros(2, 3)", "b = x.new_zeros((2, 3))", "c = i.new_ones([2])",
        "d = x.new_zeros(2, dtype=lib.int64)", "e = x.new_ones(1, requires_grad=True)",
        "f = x.new_empty(2, 1).shape", "g = i.new_full((2,), 3.5)", "h = x.new_tensor([1, 2])",
        "k = i.new_tensor([1.5, 2])", "m = x.new_tensor(3, dtype=lib.int64)",
        "n = lib.tensor([True]).new_tensor([2.5])", "p = x.new_tensor([1.], requires_grad=True)"],
    "new_tensor of a tensor warns": ["a = lib.ones(2).new_tensor(lib.ones(1, requires_grad=True))"],
    "new_tensor of a string": ["a = lib.ones(2).new_tensor('a')"],
    "new_tensor of ragged lists": ["a = lib.ones(2).new_tensor([[1, 2], [3]])"],
    "new_zeros of nothing": ["a = lib.ones(2).new_zeros()"],
    "new_zeros of a negative size": ["a = lib.ones(2).new_zeros(-1)"],
    "new_zeros of a float size": ["a = lib.ones(2).new_zeros(2.5)"],
    "new_zeros of a string size": ["a = lib.ones(2).new_zeros(2, 'a')"],
    "new_ones of ints requiring grad": ["a = lib.tensor([1]).new_ones(2, requires_grad=True)"],
    "new_full of a complex value": ["a = lib.ones(2).new_full((2,), 1j)"],
    "full_like, empty, empty_like": [
        "x = lib.ones(2, 3)", "i = lib.tensor([1, 2])", "a = lib.full_like(x, 2)",
        "b = lib.full_like(i, 1.5)", "c = lib.full_like(x, 2, dtype=lib.int64)",
        "d = lib.full_like(x, 2, requires_grad=True)", "e = lib.full_like(i, True)",
        "f = (lib.empty(2, 3).shape, lib.empty((2,)).dtype, lib.empty(2, dtype=lib.int64).dtype)",
        "g = lib.empty(2, requires_grad=True).requires_grad",
        "h = (lib.empty_like(x).shape, lib.empty_like(x, dtype=lib.int64).dtype)"],
    "full_like of a complex value into ints": ["a = lib.full_like(lib.tensor([1]), 1j)"],
    "full_like out of range": ["a = lib.full_like(lib.ones(2), 1e40)"],
    "full_like of a number": ["a = lib.full_like(3, 2)"],
    "full_like of a string value": ["a = lib.full_like(lib.ones(2), 'a')"],
    "empty of a negative size": ["a = lib.empty(-1)"],
    "empty of nothing": ["a = lib.empty()"],
    "empty_like of ints requiring grad": ["a = lib.empty_like(lib.tensor([1]), requires_grad=True)"],
    "empty_like of a number": ["a = lib.empty_like(3)"],
    # issue 12: cumsum, flip
    "cumsum: dtypes, 0-dim, empty": [
        "x = lib.tensor([[1., 2.], [3., 4.]], requires_grad=True)", "a = x.cumsum(1)",
        "b = lib.cumsum(x, dim=-2)", "c = lib.tensor([1, 2]).cumsum(0)",
        "d = lib.tensor([True, True]).cumsum(0)", "e = lib.tensor([1, 2], dtype=lib.int32).cumsum(0)",
        "f = lib.tensor([1., 2.]).cumsum(0, dtype=lib.float64)", "g = x.cumsum(0, dtype=lib.float32)",
        "h = lib.tensor(3., requires_grad=True).cumsum(-1)", "i = lib.ones(2, 0).cumsum(1)",
        "j = (lib.ones(2) * 1j).cumsum(0)",
        "(a * lib.tensor([1., 2.])).sum().backward()", "b.sum().backward()", "g.sum().backward()",
        "h.backward()"],
    "cumsum: second order": [
        "x = lib.tensor([[1., 2., 3.]], requires_grad=True)",
        "g, = lib.autograd.grad((x.cumsum(1) ** 2).sum(), x, create_graph=True)", "g.sum().backward()"],
    "cumsum to an int dtype of a tensor requiring grad": [
        "a = lib.ones(2, requires_grad=True).cumsum(0, dtype=lib.int64)"],
    "cumsum without a dim": ["a = lib.ones(2).cumsum()"],
    "cumsum dim out of range": ["a = lib.ones(2).cumsum(1)"],
    "cumsum of a float dim": ["a = lib.ones(2).cumsum(1.5)"],
    "torch.cumsum of a float dim": ["a = lib.cumsum(lib.ones(2), 1.5)"],
    "torch.cumsum of a number": ["a = lib.cumsum(3, 0)"],
    "flip": ["x = lib.arange(6.).reshape(2, 3).requires_grad_()", "a = x.flip(0)", "b = x.flip((0, 1))",
             "c = x.flip([-1])", "d = x.flip(0, 1)", "e = lib.flip(x, (1,))", "f = lib.tensor(3.).flip(0)",
             "(a * b * c * d * e).sum().backward()"],
    "flip without dims": ["a = lib.ones(2).flip()"],
    "flip dim out of range": ["a = lib.ones(2).flip(1)"],
    "flip of a dim named twice": ["a = lib.ones(2).flip((0, 0))"],
    "torch.flip of an int": ["a = lib.flip(lib.ones(2), 0)"],
    # issue 12: prod
    "prod: dtypes, 0-dim, empty": [
        "a = lib.tensor([1, 2]).prod()", "b = lib.tensor([True, False]).prod()",
        "c = lib.tensor([1, 2], dtype=lib.int32).prod(0)", "d = lib.tensor(3.).prod(0)",
        "e = lib.ones(0).prod()", "f = lib.ones(2, 0).prod(1)", "g = (lib.ones(2) * 1j).prod()",
        "h = lib.prod(lib.tensor([[1., 2.], [3., 4.]]), 0, True)",
        "i = lib.tensor([1., 2.], dtype=lib.float64).prod(dtype=lib.float32)"],
    "prod gradients, with zeros": [
        "x = lib.tensor([2., 0., 3.], requires_grad=True)", "y = lib.tensor([0., 0., 3.], requires_grad=True)",
        "z = lib.tensor([[2., 0.], [0., 3.]], requires_grad=True)", "w = lib.tensor([2., 5., 3.], requires_grad=True)",
        "x.prod().backward()", "y.prod().backward()", "z.prod(0).sum().backward()", "w.prod().backward()",
        "v = lib.tensor([[2., 0., 1.], [0., 3., 0.]], requires_grad=True)", "v.prod(1).sum().backward()"],
    "prod with zeros: second order": [
        "x = lib.tensor([2., 0., 3., 0.5], requires_grad=True)",
        "g, = lib.autograd.grad(x.prod(), x, create_graph=True)", "(g * lib.tensor([1., 2., 3., 4.])).sum().backward()",
        "y = lib.tensor([[2., 0.], [0., 3.], [1., 1.]], requires_grad=True)",
        "h, = lib.autograd.grad(y.prod(1).sum(), y, create_graph=True)", "(h * h).sum().backward()",
        "z = lib.tensor([0., 0., 3.], requires_grad=True)",
        "k, = lib.autograd.grad(z.prod(), z, create_graph=True)", "k.sum().backward()"],
    "prod dim out of range": ["a = lib.ones(3, 4).prod(5)"],
    "prod of a float dim": ["a = lib.ones(3, 4).prod(1.5)"],
    "prod of a tuple of dims": ["a = lib.ones(3, 4).prod((0, 1))"],
    "prod keepdim must be a bool": ["a = lib.ones(3, 4).prod(0, 1)"],
    "prod keepdim without dim": ["a = lib.ones(3, 4).prod(keepdim=True)"],
    "prod to an int dtype of a tensor requiring grad": [
        "a = lib.ones(2, requires_grad=True).prod(dtype=lib.int64)"],
    "torch.prod of a number": ["a = lib.prod(3)"],
    "fill_ of a float16 tensor past its range names c10::Half": [
        "a = lib.ones(2, dtype=lib.float16).fill_(1e10)"],
    # a number written in: x[i] = v makes it a double tensor for float16 (then rounds, to inf
    # past the range); fill_, masked_fill and full check it against the dtype itself
    "h[i] = v of float16 rounds past its range (to inf), as a double copied in": [
        "h = lib.zeros(6, dtype=lib.float16)", "h[0] = 1e6", "h[1] = 65519.", "h[2:4] = -70000",
        "h[lib.tensor([False] * 4 + [True, False])] = 2 ** 62", "h[5] = 1e39 + 0j"],
    "h[i] = v of float16 with an imaginary part names double": [
        "h = lib.zeros(2, dtype=lib.float16)", "h[0] = 1 + 2j"],
    "fill_ of float16 refuses 65519 (past its max, though it rounds to it)": [
        "a = lib.zeros(2, dtype=lib.float16).fill_(65519.)"],
    "full of float16 refuses an int past its range": [
        "a = lib.full((2,), 70000, dtype=lib.float16)"],
    "masked_fill of float16 refuses past its range": [
        "a = lib.zeros(2, dtype=lib.float16).masked_fill(lib.tensor([True, False]), -1e6)"],
    "x[i] = v of complex64 refuses a part past float32's range": [
        "x = lib.zeros(2, dtype=lib.complex64)", "x[0] = 1e39"],
    "fill_ of complex64 refuses an imaginary part past float32's range": [
        "a = lib.zeros(2, dtype=lib.complex64).fill_(1 + 1e39j)"],
    "full of complex64 refuses float32's max rounded up": [
        "a = lib.full((2,), 3.4028235e38, dtype=lib.complex64)"],
    "fill_/masked_fill/full read an int past int64 as a uint64": [
        "a = lib.zeros(2).fill_(2 ** 63)", "b = lib.zeros(2, dtype=lib.bool).fill_(2 ** 64 - 1)",
        "c = lib.full((2,), 2 ** 63 + 5, dtype=lib.complex64)",
        "d = lib.zeros(2, dtype=lib.float64).masked_fill(lib.tensor([True, False]), 2 ** 63)"],
    "fill_ of int64 refuses 2**63": ["a = lib.zeros(2, dtype=lib.int64).fill_(2 ** 63)"],
    "fill_ of float16 refuses 2**63": ["a = lib.zeros(2, dtype=lib.float16).fill_(2 ** 63)"],
    "fill_ of an int below int64": ["a = lib.zeros(2).fill_(-2 ** 63 - 1)"],
    "masked_fill of an int past uint64": [
        "a = lib.zeros(2).masked_fill(lib.tensor([True, False]), 2 ** 64)"],
    "mean(dtype=) computes in that dtype, with no cast node before it": [
        "x = lib.arange(6.).reshape(2, 3).requires_grad_()", "a = x.mean(dtype=lib.float64)",
        "b = x.mean((0,), True, dtype=lib.float16)",
        "n = [(y.grad_fn.name(), [f.name() for f, _ in y.grad_fn.next_functions]) for y in (a, b)]",
        "c = lib.arange(6).mean(0, dtype=lib.float64)", "(a + b.sum()).backward()"],
    # shape ops' arguments, parsed as PyTorch's parser does (fidelity8)
    "view/reshape/expand/permute take their sizes as varargs or one tuple, checked as torch": [
        "x = lib.arange(24.).reshape(2, 3, 4).requires_grad_()", "a = x.view(2, 1.5)"],
    "view of a bad size lists view's two overloads": [
        "x = lib.arange(24.)", "a = x.view([2, 12])", "b = x.view(lib.tensor(6), 4)",
        "c = x.view(size=(4, 6))", "d = x.view(1.5)"],
    "view() without a size lists view's overloads": ["a = lib.arange(24.).view()"],
    "view of a tuple and an int lists view's overloads": ["a = lib.arange(24.).view((6, 4), 1)"],
    "view(dtype) rereads the memory, without a graph": [
        "x = lib.arange(24.).reshape(2, 3, 4).requires_grad_()", "a = x.view(lib.float64)",
        "b = x.view(lib.int32)", "c = x.view(dtype=lib.float16)", "d = a.requires_grad",
        "e = x.detach().view(lib.uint8).shape"],
    "view(dtype) shares the storage and the version counter": [
        "x = lib.arange(4.)", "v = x.view(lib.int32)", "x.add_(1)", "a = (v._version, x._version)",
        "v.zero_()", "b = (x._version, x.tolist(), x.data_ptr() == v.data_ptr())"],
    "view(dtype) of an odd last dim refuses": ["a = lib.ones(3).view(lib.float64)"],
    "view(dtype) of a non-contiguous last dim refuses": [
        "a = lib.ones(3, 4).t().view(lib.float16)"],
    "view(dtype) of a 0-dim tensor refuses": ["a = lib.tensor(1.).view(lib.float64)"],
    "reshape(float, int) is too many positional arguments": [
        "a = lib.arange(24.).reshape(2.0, 12)"],
    "reshape of a float in a tuple names its position": [
        "a = lib.arange(24.).reshape((1.5,))"],
    "reshape by keyword names no position": ["a = lib.arange(24.).reshape(shape=(1.5,))"],
    "reshape(shape=) works; reshape() is missing its shape": [
        "a = lib.arange(24.).reshape(shape=(4, 6))", "b = lib.arange(24.).reshape()"],
    "torch.reshape wants a tuple, not an int": ["a = lib.reshape(lib.arange(24.), 24)"],
    "torch.reshape names the shape at position 2": ["a = lib.reshape(lib.arange(24.), (1.5,))"],
    "a size below -1 is an invalid shape dimension": ["a = lib.arange(24.).view(2, -2, -1)"],
    "-1 of an empty tensor is ambiguous": ["a = lib.ones(0, 3).reshape(-1, 0)"],
    "expand of a float among its sizes": [
        "x = lib.ones(3, 1)", "a = x.expand(size=(3, 4))", "b = x.expand(3, 4, implicit=True)",
        "c = x.expand(3, 4.0)"],
    "expand(float, ...) is too many positional arguments": ["a = lib.ones(3, 1).expand(1.5, 4)"],
    "expand_as of a number": ["a = lib.ones(3, 1).expand_as(1)"],
    "permute of a float, a string, none": [
        "x = lib.ones(2, 3, 4)", "a = x.permute(dims=(2, 1, 0))", "b = x.permute(lib.tensor(2), 1, 0)",
        "c = lib.permute(x, [2, 1, 0])", "d = x.permute(0, 1, 1.5)"],
    "permute of a string": ["a = lib.ones(2, 3).permute('a')"],
    "permute()": ["a = lib.ones(2, 3).permute()"],
    "squeeze of a float lists its overloads": [
        "x = lib.ones(1, 3, 1)", "a = x.squeeze(dim=(0, 2))", "b = x.squeeze(())",
        "c = lib.squeeze(x, [0])", "d = x.squeeze(lib.tensor(0))", "e = x.squeeze(1.5)"],
    "squeeze(None) lists its overloads": ["a = lib.ones(1, 3).squeeze(None)"],
    "torch.squeeze(x, None) lists its overloads": ["a = lib.squeeze(lib.ones(1, 3), None)"],
    "squeeze of a float among its dims": ["a = lib.ones(1, 3).squeeze(0, 1.5)"],
    "unsqueeze/flatten/transpose/select/chunk/unbind name the argument at its position": [
        "x = lib.ones(2, 3, 4)", "a = x.unsqueeze(lib.tensor(0))", "b = lib.flatten(x, lib.tensor(1))",
        "c = x.transpose(lib.tensor(0), 2)", "d = x.chunk(lib.tensor(2))", "e = lib.unbind(x, lib.tensor(1))",
        "f = lib.select(x, 0, 1)", "g = lib.transpose(x, 1.5, 0)"],
    "torch.unsqueeze names dim at position 2": ["a = lib.unsqueeze(lib.ones(2), 1.5)"],
    "unsqueeze(dim=) of a float names no position": ["a = lib.ones(2).unsqueeze(dim=1.5)"],
    "torch.flatten names end_dim at position 3": ["a = lib.flatten(lib.ones(2, 3), 0, 1.5)"],
    "transpose names dim1": ["a = lib.ones(2, 3).transpose(0, None)"],
    "select of a float index": ["a = lib.ones(2, 3).select(0, 1.5)"],
    "select of None": ["a = lib.ones(2, 3).select(0, None)"],
    "narrow of a float lists its overloads": ["a = lib.ones(2, 3).narrow(0, 1.5, 1)"],
    "narrow of a float length": ["a = lib.narrow(lib.ones(2, 3), 0, 0, 1.5)"],
    "narrow of a float tensor start": ["a = lib.ones(2, 3).narrow(0, lib.tensor(0.), 1)"],
    "chunk of a float": ["a = lib.ones(4).chunk(1.5)"],
    "chunk of a bool": ["a = lib.chunk(lib.ones(4), True)"],
    "chunk(dim=) of a float": ["a = lib.ones(4).chunk(2, dim=1.5)"],
    "unbind of a float": ["a = lib.ones(4).unbind(1.5)"],
    "swapaxes and swapdims are transpose": [
        "x = lib.ones(2, 3, 4, requires_grad=True)", "a = x.swapaxes(0, 2)", "b = lib.swapdims(x, 0, 1)",
        "n = (a.grad_fn.name(), b.grad_fn.name())", "(a.sum() + b.sum()).backward()"],
    "swapaxes names axis1": ["a = lib.ones(2, 3).swapaxes(0, 1.5)"],
    "split of a float names split_with_sizes": ["a = lib.ones(4).split(1.5)"],
    "split of a string names split_with_sizes": ["a = lib.split(lib.ones(4), 'a')"],
    "split of floats names split_with_sizes' element": ["a = lib.ones(2, 3).split([1.5, 1.5], 1)"],
    "split of a float dim lists split's overloads": ["a = lib.ones(4).split(2, 1.5)"],
    "split of a bool lists split's overloads": ["a = lib.ones(4).split(True)"],
    "split of a negative size": ["a = lib.ones(4).split(-1)"],
    "cat/stack name a bad dim as their parser does": [
        "x = lib.ones(2, 3)", "a = lib.cat([x, x], lib.tensor(1))", "b = lib.stack((x, x), dim=1, out=None)",
        "c = lib.cat([x, x], 1.5)"],
    "stack(dim=) of a string names no position": ["a = lib.stack([lib.ones(2)], dim='a')"],
    "cat of a bool dim": ["a = lib.cat([lib.ones(2)], True)"],
    "cat of a list holding an array names numpy.ndarray": [
        "a = lib.cat([lib.ones(2).numpy()])"],
    "x[set] and other non-index types": ["a = lib.ones(2, 3)[{0}]"],
    "x[complex]": ["a = lib.ones(2, 3)[1j]"],
    "x[(0, object())]": ["a = lib.ones(2, 3)[0, object()]"],
    "int16 and int8 tensors are no indices": ["a = lib.ones(2, 3)[lib.tensor([0, 1], dtype=lib.int16)]"],
    "int8 tensor index in a tuple": ["a = lib.ones(2, 3)[:, lib.tensor([0], dtype=lib.int8)]"],
    "a bool in a tuple key adds a dim, indexed by [0] or []": [
        "x = lib.arange(24.).reshape(2, 3, 4).requires_grad_()", "a = x[True, 0]", "b = x[0, True, 0]",
        "c = x[False, ..., 1]", "d = x[None, True, 1:]", "e = x[True, [0, 1]]",
        "n = [t.grad_fn.name() for t in (a, b, c, d, e)]",
        "(a.sum() + b.sum() + d.sum() + e.sum()).backward()"],
    "a slice step of 0": ["a = lib.ones(3)[::0]"],
    "a string key warns as a sequence, then fails": ["a = lib.ones(3)['ab']"],
    "x.T of a 3-D tensor warns": ["a = lib.ones(2, 3, 4).T", "b = lib.ones(3).T"],
    "x.T of a 0-dim tensor warns": ["a = lib.tensor(2.).T"],
    "x[(True, 0)] = v writes through the new dim (CopySlices), x[(False, 0)] = v nothing": [
        "x = lib.arange(24.).reshape(2, 3, 4).requires_grad_()", "y = x.clone()", "y[True, 0] = 5.",
        "z = x.clone()", "z[False, 1] = 5.", "n = (y.grad_fn.name(), z.grad_fn.name())",
        "(y.sum() + z.sum()).backward()"],
    "x[int16 tensor] = v refuses": ["y = lib.ones(2, 3)", "y[lib.tensor([0], dtype=lib.int16)] = 1."],
    # fill_, full, full_like, new_full, masked_fill: a value that is not a Number
    "fill_ of a string": ["x = lib.zeros(2)", "x.fill_('a')"],
    "fill_ of None": ["x = lib.zeros(2)", "x.fill_(None)"],
    "fill_ of a list": ["x = lib.zeros(2)", "x.fill_([1])"],
    "fill_ of two values": ["x = lib.zeros(2)", "x.fill_(1, 2)"],
    "fill_ of nothing": ["x = lib.zeros(2)", "x.fill_()"],
    "fill_ with an unknown keyword": ["x = lib.zeros(2)", "x.fill_(foo=1)"],
    "fill_ by keyword, of a NumPy number, of a 0-dim tensor": [
        "import numpy as np", "x = lib.zeros(3)", "x[0].fill_(value=2)", "x[1].fill_(np.float32(1.5))",
        "x[2].fill_(lib.tensor(True))"],
    "full of a string": ["a = lib.full((2,), 'a')"],
    "full of None": ["a = lib.full((2,), None)"],
    "full of a list": ["a = lib.full((2,), [1])"],
    "full of a string, int64": ["a = lib.full((2,), 'a', dtype=lib.int64)"],
    "full of a list, int64": ["a = lib.full((2,), [1], dtype=lib.int64)"],
    "full of a string by keyword": ["a = lib.full((2,), fill_value='a')"],
    "full of a 1-dim tensor": ["a = lib.full((2,), lib.tensor([3]))"],
    "full of a tensor that requires grad": ["a = lib.full((2,), lib.tensor(3., requires_grad=True))"],
    "full of a 0-dim tensor past int32": ["a = lib.full((2,), lib.tensor(1e10), dtype=lib.int32)"],
    "full of a 0-dim tensor past float32": ["a = lib.full((2,), lib.tensor(1e40, dtype=lib.float64))"],
    "full of a complex 0-dim tensor, float32": ["a = lib.full((2,), lib.tensor(1j), dtype=lib.float32)"],
    "full of an int past int64": ["a = lib.full((2,), 2 ** 63)"],
    "full infers its dtype from a 0-dim tensor's or a NumPy number's Python value": [
        "import numpy as np", "a = lib.full((2,), lib.tensor(1.5, dtype=lib.float64))",
        "b = lib.full((2,), lib.tensor(True))", "c = lib.full((2,), lib.tensor(2, dtype=lib.uint8))",
        "d = lib.full((2,), np.bool_(True))", "e = lib.full((2,), np.int32(3))",
        "f = lib.full((2,), np.float16(3))", "g = lib.full(size=(2,), fill_value=lib.tensor(1j))"],
    "masked_fill of a NumPy bool, of a NumPy float16 into int64": [
        "import numpy as np", "x = lib.zeros(2)", "a = x.masked_fill(x == 0, np.bool_(True))",
        "b = lib.zeros(2, dtype=lib.int64).masked_fill(x == 0, np.float16(2.5))"],
    "masked_fill of a list value": ["x = lib.zeros(2)", "a = x.masked_fill(x > 0, [1])"],
    "full_like of a string": ["a = lib.full_like(lib.zeros(2), 'a')"],
    "full_like of None": ["a = lib.full_like(lib.zeros(2), None)"],
    "full_like of a string by keyword": ["a = lib.full_like(lib.zeros(2), fill_value='a')"],
    "full_like of a 0-dim tensor, by keyword too": [
        "x = lib.zeros(2)", "a = lib.full_like(x, lib.tensor(2.))",
        "b = lib.full_like(input=x, fill_value=lib.tensor(3))"],
    "full_like of a 0-dim tensor past int32": [
        "a = lib.full_like(lib.zeros(2), lib.tensor(1e10), dtype=lib.int32)"],
    "new_full of a string": ["a = lib.zeros(2).new_full((2,), 'a')"],
    "new_full of None": ["a = lib.zeros(2).new_full((2,), None)"],
    "new_full of a list": ["a = lib.zeros(2).new_full((2,), [1])"],
    "new_full of a string, int64": ["a = lib.zeros(2).new_full((2,), 'a', dtype=lib.int64)"],
    "new_full of a string by keyword": ["a = lib.zeros(2).new_full((2,), fill_value='a')"],
    "new_full of a 0-dim tensor past int32": [
        "a = lib.zeros(2).new_full((2,), lib.tensor(1e10), dtype=lib.int32)"],
    "full takes dtype by keyword only": ["a = lib.full((2,), 1, lib.int64)"],
    "full_like takes dtype by keyword only": ["a = lib.full_like(lib.zeros(2), 1, lib.int64)"],
    "new_full takes dtype by keyword only": ["a = lib.zeros(2).new_full((2,), 1, lib.int64)"],
    "new_full of a 0-dim tensor, by keyword too": [
        "x = lib.zeros(2)", "a = x.new_full((2,), lib.tensor(2.))",
        "b = x.new_full(size=(2,), fill_value=lib.tensor(1), dtype=lib.int64)"],
    # tensor methods learners reach for: repeat, tile, roll, movedim/moveaxis, unflatten, ravel,
    # concat/concatenate, hstack/vstack/dstack, repeat_interleave
    "repeat: RepeatBackward0 and its saves, 0-dim, zero repeats, ints": [
        "x = lib.arange(6.).reshape(2, 3).requires_grad_()",
        "a = x.repeat(2, 1, 2)", "n = a.grad_fn.name()",
        "r = (a.grad_fn._saved_repeats, a.grad_fn._saved_self_sym_sizes)",
        "b = x.repeat([0, 2])", "c = lib.tensor(2., requires_grad=True).repeat(())",
        "d = lib.tensor([1, 2]).repeat(2)", "e = x.repeat(repeats=(1, 1))",
        "f = x.repeat(lib.tensor(2), 1)", "g = lib.ones(0).repeat(-1)",
        "(a.pow(2).sum() + b.sum() + c + e.sum() + f.sum()).backward()"],
    "repeat: second order": [
        "x = lib.arange(6.).reshape(2, 3).requires_grad_()",
        "g, = lib.autograd.grad((x.repeat(2, 2) ** 2).sum(), x, create_graph=True)",
        "n = g.grad_fn.name()", "g.sum().backward()"],
    "repeat with fewer repeats than dims": ["a = lib.ones(2, 3).repeat(2)"],
    "repeat without repeats": ["a = lib.ones(2, 3).repeat()"],
    "repeat of a float among ints": ["a = lib.ones(2, 3).repeat(2, 1.5)"],
    "repeat of a float": ["a = lib.ones(2, 3).repeat(1.5)"],
    "repeat of a string in a list": ["a = lib.ones(2, 3).repeat([2, 'a'])"],
    "repeat of a negative repeat": ["a = lib.ones(2, 3).repeat(-1, 1)"],
    "repeat of None": ["a = lib.ones(2, 3).repeat(None)"],
    "repeat of a tuple and an int": ["a = lib.ones(2, 3).repeat((2, 2), 1)"],
    "repeat with an unknown keyword": ["a = lib.ones(2, 3).repeat(2, 2, dim=0)"],
    "tile pads its dims with leading 1s (RepeatBackward0)": [
        "x = lib.arange(6.).reshape(2, 3).requires_grad_()",
        "a = x.tile(2)", "r = a.grad_fn._saved_repeats", "b = lib.tile(x, (2, 1, 1))",
        "c = x.tile(())", "d = x.tile(dims=(2,))", "e = lib.tensor(3.).tile(2, 2)",
        "(a.sum() + (b * b).sum() + c.sum() + d.sum()).backward()"],
    "tile without dims": ["a = lib.ones(2).tile()"],
    "tile of a float": ["a = lib.ones(2).tile(1.5)"],
    "tile of a float in a tuple": ["a = lib.ones(2).tile((1.5,))"],
    "tile of a negative dim": ["a = lib.ones(2, 3).tile((2, -1))"],
    "torch.tile of an int": ["a = lib.tile(lib.ones(2), 2)"],
    "torch.tile of three arguments": ["a = lib.tile(lib.ones(2), 2, 2)"],
    "torch.tile of a number": ["a = lib.tile(3, (2,))"],
    "roll: RollBackward0, flattened without dims, several dims, 0-dim, empty": [
        "x = lib.arange(6.).reshape(2, 3).requires_grad_()",
        "w = lib.arange(6.).reshape(2, 3)", "a = x.roll(1)",
        "r = (a.grad_fn.name(), a.grad_fn._saved_shifts, a.grad_fn._saved_dims)",
        "b = x.roll((1, 5), (0, 1))", "r2 = (b.grad_fn._saved_shifts, b.grad_fn._saved_dims)",
        "c = lib.roll(x.t(), shifts=2, dims=0)", "d = c.is_contiguous()", "e = x.roll(1, None)",
        "f = lib.tensor(2., requires_grad=True).roll(3)", "g = lib.ones(0).roll(1, 5)",
        "h = lib.ones(0, 2).roll((1, 1), (0, 5))",
        "((a + b + e) * w).sum().backward()", "(c * w.t()).sum().backward()", "f.backward()"],
    "roll: second order": [
        "x = lib.arange(6.).reshape(2, 3).requires_grad_()",
        "w = lib.arange(6.).reshape(2, 3)",
        "g, = lib.autograd.grad((x.roll((1, 2), (0, 1)) ** 2 * w).sum(), x, create_graph=True)",
        "n = (g.grad_fn.name(), g.grad_fn._saved_shifts, g.grad_fn._saved_dims)",
        "(g * w).sum().backward()"],
    "roll without shifts": ["a = lib.ones(2).roll()"],
    "roll of empty shifts": ["a = lib.ones(2).roll(())"],
    "roll dim out of range": ["a = lib.ones(2, 3).roll(1, 2)"],
    "roll of more shifts than dims": ["a = lib.ones(2, 3).roll((1, 2), 0)"],
    "roll of one shift, two dims": ["a = lib.ones(2, 3).roll(1, (0, 0))"],
    "roll of a float shift": ["a = lib.ones(2).roll(1.5)"],
    "roll of a float dim": ["a = lib.ones(2).roll(1, 1.5)"],
    "roll of a float in a list of shifts": ["a = lib.ones(2, 3).roll([1, 1.5], [0, 1])"],
    "roll of a 0-dim tensor along a dim": ["a = lib.tensor(2.).roll(1, 0)"],
    "torch.roll of a float shift": ["a = lib.roll(lib.ones(2), 1.5)"],
    "torch.roll of a number": ["a = lib.roll(3, 1)"],
    "movedim/moveaxis: PermuteBackward0, views; alias of a 0-dim tensor": [
        "x = lib.arange(6.).reshape(2, 3).requires_grad_()",
        "a = x.movedim(0, 1)", "r = (a.grad_fn.name(), a.grad_fn._saved_dims, a._base is x)",
        "y = lib.ones(2, 3, 4, 5, requires_grad=True)", "b = y.movedim((0, 1), (3, 1))",
        "c = lib.moveaxis(y, -1, 0)",
        "r2 = (b.shape, b.grad_fn._saved_dims, c.grad_fn._saved_dims)",
        "s = lib.tensor(2., requires_grad=True)", "d = s.movedim(0, -1)",
        "r3 = (d.grad_fn.name(), d._base is s)", "e = x.movedim((), ())",
        "f = lib.movedim(x, source=0, destination=1)",
        "g = x.moveaxis(source=[1], destination=[0])",
        "x.detach().movedim(0, 1).mul_(2)", "v = x._version",
        "(a.sum() + b.sum() + c.sum() + d + e.sum() + f.sum() + g.sum()).backward()"],
    "movedim dim out of range": ["a = lib.ones(2, 3).movedim(0, 2)"],
    "movedim of a float": ["a = lib.ones(2, 3).movedim(0, 1.5)"],
    "movedim of lists of different lengths": ["a = lib.ones(2, 3).movedim((0, 1), (1,))"],
    "movedim of a repeated source": ["a = lib.ones(2, 3).movedim((0, -2), (1, 0))"],
    "movedim of a repeated destination": ["a = lib.ones(2, 3).movedim((0, 1), (1, 1))"],
    "movedim of a tuple and an int": ["a = lib.ones(2, 3).movedim((0, 1), 1)"],
    "movedim of one dim": ["a = lib.ones(2, 3).movedim(0)"],
    "movedim of three arguments": ["a = lib.ones(2, 3).movedim([0, 1], [1, 0], 2)"],
    "moveaxis of a float": ["a = lib.ones(2, 3).moveaxis(0, 1.5)"],
    "torch.movedim of a float": ["a = lib.movedim(lib.ones(2, 3), 0, 1.5)"],
    "torch.moveaxis of one dim": ["a = lib.moveaxis(lib.ones(2, 3), 0)"],
    "torch.movedim of a number": ["a = lib.movedim(3, 0, 1)"],
    "unflatten: ViewBackward0, a view; -1 inferred": [
        "x = lib.arange(6.).reshape(2, 3).requires_grad_()",
        "a = x.unflatten(1, (3, 1))",
        "r = (a.grad_fn.name(), a.grad_fn._saved_self_sym_sizes, a._base is x)",
        "b = lib.unflatten(x, -1, (-1, 1))", "c = x.t().unflatten(0, [1, 3])",
        "d = x.unflatten(dim=0, sizes=(2,))", "e = lib.unflatten(x, dim=1, sizes=(3,))",
        "(a.sum() + b.sum() + c.sum() + d.sum() + e.sum()).backward()"],
    "unflatten: second order": [
        "x = lib.arange(6.).reshape(2, 3).requires_grad_()",
        "g, = lib.autograd.grad((x.unflatten(1, (3, 1)) ** 3).sum(), x, create_graph=True)",
        "g.sum().backward()"],
    "unflatten of sizes that do not multiply up": ["a = lib.ones(2, 3).unflatten(-1, (2, 2))"],
    "unflatten of two sizes inferred": ["a = lib.ones(2, 3).unflatten(1, (-1, -1))"],
    "unflatten of a negative size": ["a = lib.ones(2, 3).unflatten(1, (3, -2))"],
    "unflatten of a 0-dim tensor": ["a = lib.tensor(2.).unflatten(-1, (1,))"],
    "unflatten of empty sizes": ["a = lib.ones(2, 3).unflatten(1, ())"],
    "unflatten of sizes 0": ["a = lib.ones(2, 3).unflatten(1, 0)"],
    "torch.unflatten of empty sizes": ["a = lib.unflatten(lib.ones(2, 3), 1, [])"],
    "unflatten dim out of range": ["a = lib.ones(2, 3).unflatten(2, (3,))"],
    "unflatten of an int size": ["a = lib.ones(2, 3).unflatten(1, 3)"],
    "unflatten of a float dim": ["a = lib.ones(2, 3).unflatten(1.5, (3,))"],
    "unflatten of a float size": ["a = lib.ones(2, 3).unflatten(1, (1.5, 2))"],
    "unflatten of a string among sizes": ["a = lib.ones(2, 3).unflatten(1, [3, 'a'])"],
    "unflatten without sizes": ["a = lib.ones(2, 3).unflatten(1)"],
    "torch.unflatten of an int size": ["a = lib.unflatten(lib.ones(2, 3), 1, 3)"],
    "torch.unflatten of four arguments": ["a = lib.unflatten(lib.ones(2, 3), 1, (3, 1), 2)"],
    "ravel: a view when contiguous, else CloneBackward0 then ViewBackward0": [
        "x = lib.arange(6.).reshape(2, 3).requires_grad_()",
        "a = x.ravel()", "r = (a.grad_fn.name(), a._base is x)", "b = lib.ravel(x.t())",
        "r2 = (b.grad_fn.name(), b.grad_fn.next_functions[0][0].name(), b.is_contiguous())",
        "c = lib.tensor(2.).ravel()", "x.detach().ravel().add_(1)", "v = x._version",
        "(a * b).sum().backward()"],
    "ravel takes no arguments": ["a = lib.ones(2).ravel(0)"],
    "torch.ravel of two arguments": ["a = lib.ravel(lib.ones(2), 0)"],
    "torch.ravel of a number": ["a = lib.ravel(3)"],
    "concat/concatenate are cat (CatBackward0)": [
        "x = lib.arange(6.).reshape(2, 3).requires_grad_()",
        "a = lib.concat([x, x], 1)", "r = (a.grad_fn.name(), a.grad_fn._saved_dim)",
        "b = lib.concatenate((x, x))", "c = lib.concat(tensors=[x, x], axis=1)",
        "d = lib.concatenate([lib.ones(2), lib.tensor([1, 2])])",
        "e = lib.concat([x], 0, out=None)", "(a.sum() + b.sum() + c.sum() + e.sum()).backward()"],
    "concat of a float dim": ["a = lib.concat([lib.ones(2), lib.ones(2)], 1.5)"],
    "concat of tensors of different ranks": ["a = lib.concat([lib.ones(2, 3), lib.ones(3)])"],
    "concat of nothing": ["a = lib.concat([])"],
    "concat of a tensor": ["a = lib.concat(lib.ones(2))"],
    "concat without arguments": ["a = lib.concat()"],
    "concat of three arguments": ["a = lib.concat([lib.ones(2)], 0, 1)"],
    "concatenate dim out of range": ["a = lib.concatenate([lib.ones(2, 3)] * 2, dim=5)"],
    "concatenate of a number in the list": ["a = lib.concatenate([lib.ones(2), 1])"],
    "hstack/vstack/dstack: cat of atleast_1d/2d/3d": [
        "x = lib.arange(6.).reshape(2, 3).requires_grad_()",
        "v = lib.arange(3.).requires_grad_()", "s = lib.tensor(2., requires_grad=True)",
        "a = lib.hstack([x, x])", "b = lib.vstack((v, v))", "c = lib.dstack([v, x[:1]])",
        "d = lib.hstack([s, v])", "e = lib.vstack([s, s])", "f = lib.dstack([s, s])",
        "n = [[f.name() for f, _ in t.grad_fn.next_functions] for t in (b, d, e)]",
        "r = [t.grad_fn._saved_dim for t in (a, b, c, d, e, f)]",
        "g = lib.hstack([lib.ones(2), lib.tensor([1, 2])])",
        "h = lib.vstack(tensors=[x], out=None)",
        "(a.sum() + b.sum() + c.sum() + d.sum() + e.sum() + f.sum() + h.sum()).backward()"],
    "hstack of nothing": ["a = lib.hstack([])"],
    "vstack of nothing": ["a = lib.vstack([])"],
    "dstack of nothing": ["a = lib.dstack([])"],
    "hstack of a tensor": ["a = lib.hstack(lib.ones(2))"],
    "hstack of two arguments": ["a = lib.hstack([lib.ones(2)], 1)"],
    "hstack without arguments": ["a = lib.hstack()"],
    "hstack of a number in the list": ["a = lib.hstack([lib.ones(2), 1])"],
    "hstack of tensors of different ranks": ["a = lib.hstack([lib.ones(2, 3), lib.ones(3)])"],
    "vstack of rows of different lengths": ["a = lib.vstack([lib.ones(3), lib.tensor(1.)])"],
    "repeat_interleave of int repeats: flatten, unsqueeze, expand, clone, view": [
        "x = lib.arange(6.).reshape(2, 3).requires_grad_()",
        "a = x.repeat_interleave(2)",
        "n = [a.grad_fn.name(), a.grad_fn.next_functions[0][0].name()]",
        "b = x.repeat_interleave(2, dim=1)", "r = b.grad_fn._saved_self_sym_sizes",
        "c = lib.repeat_interleave(x.t(), 3, -2)", "d = x.repeat_interleave(0)",
        "e = lib.tensor(2., requires_grad=True).repeat_interleave(2)",
        "f = x.repeat_interleave(2, dim=1, output_size=6)",
        "g = lib.tensor([1, 2]).repeat_interleave(2)",
        "h = x.repeat_interleave(repeats=2, dim=None)",
        "((a * lib.arange(12.)).sum() + (b * b).sum() + c.sum() + d.sum() + e.sum() + f.sum()"
        " + h.sum()).backward()"],
    "repeat_interleave: second order": [
        "x = lib.arange(6.).reshape(2, 3).requires_grad_()",
        "g, = lib.autograd.grad((x.repeat_interleave(2, 1) ** 2).sum(), x, create_graph=True)",
        "g.sum().backward()"],
    "repeat_interleave of a negative repeat": ["a = lib.ones(2).repeat_interleave(-1)"],
    "repeat_interleave dim out of range": ["a = lib.ones(2, 3).repeat_interleave(2, 5)"],
    "repeat_interleave of a float dim": ["a = lib.ones(2, 3).repeat_interleave(2, 1.5)"],
    "repeat_interleave of float repeats": ["a = lib.ones(2).repeat_interleave(1.5)"],
    "repeat_interleave of bool repeats": ["a = lib.ones(2).repeat_interleave(True)"],
    "repeat_interleave of a wrong output_size": [
        "a = lib.ones(2, 3).repeat_interleave(2, dim=1, output_size=5)"],
    "repeat_interleave of a float output_size": [
        "a = lib.ones(2).repeat_interleave(2, output_size=1.5)"],
    "repeat_interleave without repeats": ["a = lib.ones(2).repeat_interleave()"],
    "repeat_interleave of three positional arguments": [
        "a = lib.ones(2).repeat_interleave(2, 0, 4)"],
    "repeat_interleave of a 0-dim tensor along dim 0": [
        "a = lib.tensor(3.).repeat_interleave(2, 0)"],
    "torch.repeat_interleave of numbers": ["a = lib.repeat_interleave(3, 2)"],
    # the training-loop API with bad or unusual input (fidelity10)
    "softmax without dim picks torch's implicit dim and warns": [
        "a = F.softmax(lib.tensor([1., 2.]))", "b = F.softmax(lib.ones(2, 3))",
        "c = F.log_softmax(lib.ones(2, 3, 2))", "d = F.log_softmax(lib.ones(2, 3, 2, 2))"],
    "softmax's third parameter is _stacklevel, not dtype": [
        "a = F.softmax(lib.tensor([1., 2.]), 0, lib.float64)",
        "b = F.log_softmax(lib.tensor([1., 2.]), 0, lib.int64)"],
    "leaky_relu's negative_slope must be a number, at position 2": [
        "a = F.leaky_relu(lib.ones(2), 'a')"],
    "leaky_relu's negative_slope by keyword is named at position 2": [
        "a = F.leaky_relu(lib.ones(2), negative_slope=None)"],
    "leaky_relu_ names itself": ["a = F.leaky_relu([1.], inplace=True)"],
    "LeakyReLU of a string slope": ["m = lib.nn.LeakyReLU('a')", "a = m(lib.ones(2))"],
    "leaky_relu of a 0-dim tensor slope": ["a = F.leaky_relu(-lib.ones(2), lib.tensor(0.5))"],
    "dropout's training must be a bool": ["a = F.dropout(lib.ones(2), training='x')"],
    "dropout_ names itself": ["a = F.dropout(lib.ones(2), inplace=True, training=1)"],
    "dropout's input by keyword is named at position 1": ["a = F.dropout(input=[1.])"],
    "dropout of an int or 0-dim tensor p": [
        "a = F.dropout(lib.ones(2), 1, False)", "b = F.dropout(lib.ones(2), lib.tensor(0.), True)"],
    "Dropout compares p with the int 0": ["m = lib.nn.Dropout('a')"],
    "cross_entropy's label_smoothing must be a float": [
        "a = F.cross_entropy(lib.ones(2, 3), lib.tensor([0, 1]), label_smoothing='a')"],
    "cross_entropy's weight must be a Tensor": [
        "a = F.cross_entropy(lib.ones(2, 3), lib.tensor([0, 1]), weight=[1., 2., 3.])"],
    "cross_entropy's ignore_index must be an int": [
        "a = F.cross_entropy(lib.ones(2, 3), lib.tensor([0, 1]), ignore_index=1.5)"],
    "cross_entropy's target by keyword is named at position 2": [
        "a = F.cross_entropy(lib.ones(2, 3), target=[0, 1])"],
    "cross_entropy checks the reduction before the arguments": [
        "a = F.cross_entropy(lib.ones(2, 3), [0, 1], reduction='bad')"],
    "cross_entropy takes 0-dim tensors and ints for the numbers": [
        "x = lib.ones(2, 3, requires_grad=True)", "t = lib.tensor([0, 1])",
        "a = F.cross_entropy(x, t, ignore_index=lib.tensor(1))",
        "b = F.cross_entropy(x, t, label_smoothing=lib.tensor(0.1))",
        "c = F.cross_entropy(x, t, label_smoothing=0)", "(a + b + c).backward()"],
    "nll_loss checks the reduction before the arguments": [
        "a = F.nll_loss(lib.ones(2, 3), [0, 1], reduction='bad')"],
    "nll_loss's target by keyword is named at position 2": [
        "a = F.nll_loss(lib.ones(2, 3), target=[0, 1])"],
    "nll_loss's ignore_index may not be a bool": [
        "a = F.nll_loss(lib.ones(2, 3), lib.tensor([0, 1]), ignore_index=True)"],
    "nll_loss's weight must be a Tensor": [
        "a = F.nll_loss(lib.ones(2, 3), lib.tensor([0, 1]), weight=3)"],
    "nll_loss of a 0-dim tensor ignore_index": [
        "a = F.nll_loss(lib.ones(2, 3), lib.tensor([0, 1]), ignore_index=lib.tensor(1))"],
    "RNNCell of a number hidden state asks for dim()": [
        "c = lib.nn.RNNCell(3, 4)", "a = c(lib.ones(2, 3), 1.)"],
    "RNNCell of a list asks for dim()": ["c = lib.nn.RNNCell(3, 4)", "a = c([1., 2., 3.])"],
    "requires_grad_ takes a bool only": ["x = lib.ones(2)", "x.requires_grad_('x')"],
    "requires_grad_ of an int by keyword": ["x = lib.ones(2)", "x.requires_grad_(requires_grad=1)"],
    "requires_grad_ of None": ["x = lib.ones(2)", "x.requires_grad_(None)"],
    "requires_grad_ takes one argument": ["x = lib.ones(2)", "x.requires_grad_(False, 1)"],
    "requires_grad_ of an unknown keyword": ["x = lib.ones(2)", "x.requires_grad_(x=1)"],
    "Module.requires_grad_ takes a bool only": [
        "m = lib.nn.Linear(2, 1)", "m.requires_grad_(0)"],
    "the requires_grad setter takes a bool only": ["x = lib.ones(2)", "x.requires_grad = 1"],
    "the requires_grad setter checks the bool before the leaf": [
        "x = lib.ones(2, requires_grad=True)", "y = x * 2", "y.requires_grad = 'x'"],
    "Parameter's requires_grad must be a bool": ["p = lib.nn.Parameter(lib.ones(2), 1)"],
    "Parameter of a list": ["p = lib.nn.Parameter([1.])"],
    "Variable's requires_grad is an integer": [
        "a = lib.autograd.Variable(lib.ones(1), requires_grad=0)",
        "b = lib.autograd.Variable(lib.ones(1), requires_grad=2.)"],
    "grad of an output that is not a tensor": [
        "x = lib.ones(2, requires_grad=True)", "g = lib.autograd.grad([(x * 2).sum(), 2.], x)"],
    "backward of an output that is not a tensor, with a gradient": [
        "x = lib.ones(2, requires_grad=True)",
        "lib.autograd.backward([(x * 2).sum(), 'a'], [lib.ones(()), lib.ones(())])"],
    "optimizer repr puts a blank line between groups": [
        "m = lib.nn.Linear(2, 1)",
        "o = lib.optim.SGD([{'params': m.weight}, {'params': m.bias, 'lr': 0.5}], lr=0.1)",
        "a = repr(o)", "o.add_param_group({'params': [lib.ones(1, requires_grad=True)]})",
        "b = repr(o)"],
    "a param group that is a Parameter names torch's class": [
        "m = lib.nn.Linear(2, 1)", "o = lib.optim.SGD([{'params': m.weight}, m.bias], lr=0.1)"],
    "add_param_group of a tensor names torch's class": [
        "o = lib.optim.SGD([lib.ones(1, requires_grad=True)], lr=0.1)",
        "o.add_param_group(lib.ones(1, requires_grad=True))"],
    "Adam keeps betas as a tuple, a 1-element tensor 0-dim": [
        "w = lib.ones(1, requires_grad=True)", "a = repr(lib.optim.Adam([w], betas=[0.9, 0.99]))",
        "b = lib.optim.AdamW([w], betas=(lib.tensor([0.9]), lib.tensor(0.99))).defaults['betas']"],
    "optimizer load_state_dict of None": [
        "o = lib.optim.SGD([lib.ones(1, requires_grad=True)], lr=0.1)", "o.load_state_dict(None)"],
    "load_state_dict of another optimizer's state dict adds this one's flags": [
        "m = lib.nn.Linear(2, 1)", "a = lib.optim.SGD(m.parameters(), lr=0.1)",
        "b = lib.optim.Adam(m.parameters())", "b.load_state_dict(a.state_dict())",
        "r = repr(b)", "c = lib.optim.AdamW(m.parameters())", "c.load_state_dict(b.state_dict())",
        "s = repr(c)", "a.load_state_dict(c.state_dict())", "t = repr(a)",
        "d = lib.optim.Adagrad(m.parameters())", "d.load_state_dict(a.state_dict())",
        "u = repr(d)"],
    "clip_grad_norm_ converts norm_type and max_norm with float()": [
        "m = lib.nn.Linear(2, 1)", "a = lib.nn.utils.clip_grad_norm_(m.parameters(), 1., '2')",
        "m(lib.ones(2)).sum().backward()",
        "b = lib.nn.utils.clip_grad_norm_(m.parameters(), '0.5')",
        "c = lib.nn.utils.clip_grad_norm_(m.parameters(), 1., 'x')"],
    "clip_grad_norm_ of any norm_type": [
        "w = lib.arange(12.).reshape(3, 4).requires_grad_()",
        "b = lib.tensor([1., -2., 0.5]).requires_grad_()",
        "(w.sum() * 3 + (b ** 2).sum()).backward()",
        "n = [float(lib.nn.utils.clip_grad_norm_([w, b], 1e9, p)) for p in (1, 0, float('inf'), -1., 3.5)]",
        "a = lib.nn.utils.clip_grad_norm_([w, b], 0.5, 1.)", "g = (w.grad, b.grad)"],
    "clip_grad_norm_ converts max_norm without grads too": [
        "m = lib.nn.Linear(2, 1)", "a = lib.nn.utils.clip_grad_norm_(m.parameters(), None)"],
    "clip_grad_norm_ of an empty generator warns": [
        "a = lib.nn.utils.clip_grad_norm_((p for p in []), 1.)"],
    "cross_entropy of an (N, 1) target is multi-target": [
        "a = F.cross_entropy(lib.ones(4, 3), lib.tensor([[0], [1], [1], [0]]))"],
    "nll_loss of a 2-dim target is multi-target": [
        "a = F.nll_loss(lib.ones(4, 3), lib.ones(4, 1))"],
    "nll_loss of a 1-dim input and 2-dim target is multi-target": [
        "a = F.nll_loss(lib.ones(3), lib.tensor([[0]]))"],
    "nll_loss checks a weight's requires_grad before the target's dims": [
        "a = F.nll_loss(lib.ones(4, 3), lib.zeros(4, 1, dtype=lib.int64), "
        "weight=lib.ones(3, requires_grad=True))"],
    "binary_cross_entropy_with_logits' pos_weight must be a Tensor": [
        "a = F.binary_cross_entropy_with_logits(lib.ones(4, 2), lib.ones(4, 2), "
        "pos_weight=[1., 2.])"],
    "binary_cross_entropy_with_logits' weight must be a Tensor": [
        "a = F.binary_cross_entropy_with_logits(lib.ones(2), lib.ones(2), weight=3)"],
    "binary_cross_entropy asks a list weight for its size": [
        "a = F.binary_cross_entropy(lib.ones(2) / 2, lib.ones(2), weight=[1., 2.])"],
}


@pytest.mark.parametrize("lines", list(PROGRAMS.values()), ids=list(PROGRAMS))
def test_matches_torch(torch, lines):
    compare(torch, lines)


# (compare stops at a documented limitation, "autograd_lesson ..."; these once met one: only
# the 2-norm was implemented, also in clip_grad_norm_, which compared a string norm_type with
# 2.0 unconverted)
WERE_LIMITATIONS = [name for name in PROGRAMS
                    if name.startswith(("norm", "clip_grad_norm_ converts norm_type",
                                        "clip_grad_norm_ of any norm_type"))]


@pytest.mark.parametrize("name", WERE_LIMITATIONS)
def test_meets_no_limitation(torch, name):
    """The program raises where torch does, with torch's error, not a limitation of ours."""
    assert run(al, PROGRAMS[name])[0] == run(torch, PROGRAMS[name])[0]


def test_dims_are_checked_in_one_place():
    """Every dim argument goes through ``wrap_dim``: the same message from every op."""
    x = al.ones(2, 3)
    messages = set()
    for call in (lambda: x.unsqueeze(3), lambda: x.squeeze(3), lambda: x.select(3, 0),
                 lambda: x.sum(3), lambda: x.softmax(3), lambda: x.max(3), lambda: x.transpose(3, 0),
                 lambda: x.chunk(2, 3), lambda: al.cat([x, x], 3), lambda: x.narrow(3, 0, 1)):
        with pytest.raises(IndexError) as info:
            call()
        messages.add(str(info.value).replace("[-3, 2]", "[-2, 1]"))
    assert messages == {"Dimension out of range (expected to be in range of [-2, 1], but got 3)"}


def test_dtype_names_and_is_floating_point():
    assert al.tensor([1], dtype=al.int32).numpy().dtype == np.int32
    assert repr(al.int8) == "torch.int8" and al.int8.itemsize == 1
    assert not al.tensor([1]).is_floating_point() and al.ones(1).is_floating_point()
    assert repr(al.ones(2).device) == "device(type='cpu')"


BFLOAT16_USES = {
    "zeros": lambda lib, b: lib.zeros(2, dtype=b),
    "tensor": lambda lib, b: lib.tensor([1.], dtype=b),
    "randn": lambda lib, b: lib.randn(2, dtype=b),
    "full": lambda lib, b: lib.full((2,), 1., dtype=b),
    "arange": lambda lib, b: lib.arange(3, dtype=b),
    "zeros_like": lambda lib, b: lib.zeros_like(lib.ones(2), dtype=b),
    "to": lambda lib, b: lib.ones(2).to(b),
    "to(dtype=)": lambda lib, b: lib.ones(2, requires_grad=True).to(dtype=b),
    "sum(dtype=)": lambda lib, b: lib.ones(2).sum(dtype=b),
}


@pytest.mark.parametrize("use", list(BFLOAT16_USES), ids=list(BFLOAT16_USES))
def test_bfloat16_exists_and_every_use_says_what_to_use_instead(torch, use):
    """NumPy has no bfloat16: ``torch.bfloat16`` exists (code naming it imports) and each use
    raises one TypeError naming the dtypes to use instead (where torch runs the call)."""
    assert str(BFLOAT16_USES[use](torch, torch.bfloat16).dtype) == "torch.bfloat16"
    with pytest.raises(TypeError, match=r"^autograd_lesson has no bfloat16 \(NumPy has no such "
                                        r"type\): use torch.float16 or torch.float32 instead$"):
        BFLOAT16_USES[use](al, al.bfloat16)
    assert "bfloat16" in al.__all__ and (al.ones(2).dtype == al.bfloat16) is False


def _graph(root):
    """(name, child positions) of each node, breadth-first: the structure of a graph."""
    from test_parity_ops import walk
    order = walk(root)
    return [(n.name(), [None if c is None else next(i for i, m in enumerate(order) if m is c)
                        for c, _ in n.next_functions]) for n in order]


MATMUL_SHAPES = [((3,), (3,)), ((3,), (3, 4)), ((2, 3), (3,)), ((5, 2, 3), (5, 3, 4)),
                 ((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4)), ((5, 2, 3), (3,)), ((3,), (5, 3, 4)),
                 ((2, 1, 2, 3), (5, 3, 4)), ((2, 5, 2, 3), (5, 3, 4)), ((7, 5, 2, 3), (3,)),
                 ((3,), (7, 5, 3, 4)), ((1, 2, 3), (4, 3, 2)), ((2, 0, 3), (3, 0)), ((4, 2, 0), (0, 3)),
                 ((5, 2, 3), (1, 3, 4)), ((1, 2, 3), (1, 3, 4)), ((1, 2, 3), (0, 3, 4)),
                 ((1, 2, 3), (2, 5, 3, 4)), ((1, 1, 2, 3), (5, 3, 4)), ((1, 2, 3), (5, 3, 1))]


@pytest.mark.parametrize("rg", [(True, True), (True, False), (False, True)])
@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=[f"{a}@{b}" for a, b in MATMUL_SHAPES])
def test_matmul_records_torchs_graph_for_every_rank(torch, shapes, rg):
    """``a @ b`` decomposes as ATen's matmul does (dot/mv/mm, a fold into one mm or mv, or
    expand + reshape + bmm + _unsafe_view, a transposed copy for 2-D @ N-D): the same node
    names and edges as torch, the same values and gradients."""
    rs = np.random.RandomState(sum(map(len, shapes)))
    arrays = [rs.randn(*s) for s in shapes]
    outs = []
    for lib in (al, torch):
        a, b = (lib.tensor(x, requires_grad=r) for x, r in zip(arrays, rg))
        out = a @ b
        out.backward(lib.ones_like(out))
        outs.append((out, a, b))
    (ours, a, b), (theirs, ta, tb) = outs
    assert _graph(ours.grad_fn) == _graph(theirs.grad_fn)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), atol=1e-12)
    for mine, real in ((a, ta), (b, tb)):
        assert (mine.grad is None) == (real.grad is None)
        if mine.grad is not None:
            np.testing.assert_allclose(mine.grad.numpy(), real.grad.numpy(), atol=1e-12)


def test_index_put_on_an_expanded_tensor_writes_each_memory_location_in_index_order(torch):
    """Four elements share each row's memory: the writes land location by location, the last
    one (in index order) winning, and accumulate adds every value to the shared location."""
    for lib in (al, torch):
        x = lib.zeros(3, 1).expand(3, 4)
        with pytest.warns(UserWarning, match="Use of index_put_ on expanded tensors"):
            x.index_put_((lib.tensor([2, 0, 2]), lib.tensor([0, 1, 3])),
                         lib.tensor([1., 2., 3.]))
        y = lib.zeros(3, 1).expand(3, 4)
        with pytest.warns(UserWarning):
            y.index_put_((lib.tensor([2, 0, 2]), lib.tensor([0, 1, 3])),
                         lib.tensor([1., 2., 3.]), accumulate=True)
        assert x.tolist() == [[2.] * 4, [0.] * 4, [3.] * 4]
        assert y.tolist() == [[2.] * 4, [0.] * 4, [4.] * 4]


def test_one_value_through_a_mask_records_torchs_graph(torch):
    """``index_put_``/``index_put`` of one value through a mask: the value's edge goes straight
    to it; ``x[mask] = v`` drops v's leading 1s first (a ``ViewBackward0``), a 0-dim v not."""
    for shape in [(), (1,), (1, 1)]:
        graphs = []
        for lib in (al, torch):
            b, v = lib.zeros(3, requires_grad=True), lib.ones(shape, requires_grad=True)
            m = lib.tensor([True, False, True])
            h, k = b * 1, b * 1
            h.index_put_((m,), v)
            k[m] = v
            graphs.append([_graph(t.grad_fn) for t in (h, k, b.index_put((m,), v))])
        assert graphs[0] == graphs[1], shape


def test_once_per_process_warnings_come_every_time_after_set_warn_always(torch):
    """As torch's TORCH_WARN_ONCE sites: after ``set_warn_always(True)`` each use warns."""
    for lib in (al, torch):
        before = lib.is_warn_always_enabled()
        lib.set_warn_always(True)
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                for _ in range(2):
                    lib.tensor(1 + 2j).float()
                    lib.tensor(2.).mT
        finally:
            lib.set_warn_always(before)
        assert lib.is_warn_always_enabled() is before
        assert [str(w.message).split(" (Triggered")[0] for w in caught] == [
            "Casting complex values to real discards the imaginary part",
            "Tensor.mT is deprecated on 0-D tensors. This function is the identity in these "
            "cases."] * 2


def _byte_index_program(lib):
    """Reading and writing through a uint8 index tensor, as a learner might (torch reads it as
    a deprecated bool mask; writing one number goes through masked_fill_, which refuses it)."""
    out = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        k = lib.tensor([1, 0, 1, 0], dtype=lib.uint8)
        out.append(lib.arange(4.)[k].tolist())
        out.append(lib.arange(6.).reshape(2, 3)[lib.tensor([1, 0], dtype=lib.uint8), 1:].tolist())
        y = lib.arange(4.)
        y[k] = lib.tensor([5., 6.])
        out.append(y.tolist())
        try:
            lib.arange(4.)[k] = 9
        except RuntimeError as error:
            out.append(str(error))
        a = lib.arange(4., requires_grad=True)
        (a * 1)[k].sum().backward()
        out.append(a.grad.tolist())
    out.append(sorted({str(w.message).split(" (Triggered")[0] for w in caught}))
    return out


@pytest.mark.parity
def test_a_byte_index_is_a_deprecated_mask_as_in_torch(torch):
    assert _byte_index_program(al) == _byte_index_program(torch)


@pytest.mark.parity
@pytest.mark.parametrize("value", ["lib.ones(2)", "x", "lib.ones(2, dtype=lib.int64)",
                                   "lib.ones(2, dtype=lib.float64)", "lib.ones(2, dtype=lib.bool)"])
def test_assigning_a_row_to_an_element_names_the_value_as_torch(torch, value):
    """``x[0] = v`` with a 1-D v: expand's message names v's type, ``torch.`` prefix included."""
    messages = []
    for lib in (al, torch):
        x = lib.zeros(3)
        with pytest.raises(RuntimeError) as caught:
            exec(f"x[0] = {value}", {"lib": lib, "x": x})
        messages.append(str(caught.value))
    assert messages[0] == messages[1]


SETITEM_VALUES = ["np.float32(2.5)", "np.bool_(True)", "np.int64(7)", "np.float64(2.5)",
                  "np.complex128(1)", "-1", "300", "1.5", "True", "[1.0]"]


@pytest.mark.parity
@pytest.mark.parametrize("value", SETITEM_VALUES)
@pytest.mark.parametrize("dtype", ["float32", "uint8", "bool"])
def test_a_number_written_by_index_is_converted_as_torchs_value_to_tensor(torch, dtype, value):
    """``x[key] = number`` makes the number a 0-dim tensor of x's dtype first (torch's
    valueToTensor): NumPy's float32 and bool are refused by name, NumPy's integers and float64
    are numbers; then a whole key fills (FillBackward3) and any other key fills a view."""
    outcomes = []
    for lib in (al, torch):
        row = []
        for key in (":", "0", "0:1", "[0, 2]", "lib.tensor([True, False, True])"):
            x = lib.ones(3, dtype=getattr(lib, dtype))
            if dtype == "float32":
                x.requires_grad_(True)
            t = x * 1 if dtype == "float32" else x.clone()
            try:
                exec(f"t[{key}] = {value}", {"t": t, "lib": lib, "np": np})  # noqa: S102
                fn = t.grad_fn
                row.append((t.tolist(), t._version, None if fn is None else fn.name()))
            except (TypeError, RuntimeError, ValueError) as error:
                row.append((type(error).__name__, str(error)))
        outcomes.append(row)
    assert outcomes[0] == outcomes[1]


@pytest.mark.parity
@pytest.mark.parametrize("other", ["[1.0, 2.0]", "(1.0, 2.0)", "'a'", "None", "object()",
                                   "np.array([1.0, 2.0])", "np.float64(0.5)", "True"])
def test_comparisons_with_what_is_not_a_number_fall_back_to_python_as_torch(torch, other):
    """A list, str, None... is no operand: the ordered comparisons raise Python's TypeError,
    == and != compare identity (== takes an ndarray, != does not, as in torch 2.13)."""
    outcomes = []
    for lib in (al, torch):
        t, value = lib.ones(2), eval(other)  # noqa: S307  (the parametrized literals above)
        row = []
        for op in ("<", "<=", ">", ">=", "==", "!="):
            try:
                result = eval(f"t {op} value")  # noqa: S307
                row.append(result if isinstance(result, bool) else result.tolist())
            except TypeError as error:
                row.append(str(error))
        outcomes.append(row)
    assert outcomes[0] == outcomes[1]


@pytest.mark.parity
@pytest.mark.parametrize("expression", ["t @ 1", "1 @ t", "t @ 2.5", "t @ [1, 2]",
                                        "np.ones(2) @ t"])
def test_matmul_operator_with_a_non_tensor_is_pythons_type_error_as_torch(torch, expression):
    """``@`` takes tensors only: anything else, numbers too, falls back to Python's TypeError."""
    messages = []
    for lib in (al, torch):
        with pytest.raises(TypeError) as caught:
            eval(expression, {"t": lib.ones(2), "np": np})  # noqa: S307
        messages.append(str(caught.value))
    assert messages[0] == messages[1]


@pytest.mark.parity
@pytest.mark.parametrize("program", [
    "t = lib.ones(1, 1); t[0] = t",                          # the 0-dim view is expanded: partial
    "t = lib.ones(1, 3) @ lib.ones(3, 1); t[0] = t",
    "t = lib.ones(1, 2); t[0] = t",                          # the same elements, same strides
    "s = lib.tensor([]).sum(); t = s.reshape((1, -1)); t[0] = s",  # a fill: no overlap check
    "t = lib.zeros(2, 2); t[0] = t[0, 0]",
])
def test_item_assignment_from_itself_overlaps_as_in_torch(torch, program):
    """``x[key] = x...``: copy_to strips the value's leading 1s and expands it; copy_ then
    refuses a partial overlap (strides of size-1 dims included), a 0-dim value fills."""
    outcomes = []
    for lib in (al, torch):
        scope = {"lib": lib}
        try:
            exec(program, scope)  # noqa: S102  (the parametrized programs above)
            outcomes.append(scope["t"].tolist())
        except RuntimeError as error:
            outcomes.append(str(error))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parity
def test_linear_adds_a_bias_of_another_shape_in_place_as_torch(torch):
    """Off addmm's path ``linear`` is ``matmul`` then ``add_(bias)`` in place: an int output
    refuses a float bias with the in-place cast error (fuzzer)."""
    messages = []
    for lib in (al, torch):
        t = lib.tensor([], dtype=lib.int64)
        with pytest.raises(RuntimeError) as caught:
            lib.nn.functional.linear(t, t, lib.tensor(-2.0))
        messages.append(str(caught.value))
    assert messages[0] == messages[1] == ("result type Float can't be cast to the desired "
                                          "output type Long")


@pytest.mark.parity
def test_casting_an_empty_complex_tensor_to_real_does_not_warn_as_torch(torch):
    """The complex-to-real warning comes from the copy kernel, which an empty tensor never runs."""
    counts = []
    for lib in (al, torch):
        lib.set_warn_always(True)
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                (1j + lib.tensor([], dtype=lib.int64)).to(lib.float32)
                empty = len(caught)
                (1j + lib.tensor([1], dtype=lib.int64)).to(lib.float32)
            counts.append((empty, len(caught)))
        finally:
            lib.set_warn_always(False)
    assert counts[0] == counts[1] == (0, 1)


@pytest.mark.parity
@pytest.mark.parametrize("statement", ["t.add_([1, 2])", "t.sub_('a')", "t.mul_(None)",
                                       "t.div_([1])", "t.add([1, 2])", "t.mul([1])",
                                       "t.sub(object())", "t += [1, 2]", "t *= None"])
def test_arithmetic_with_what_is_not_a_number_is_refused_as_torch(torch, statement):
    """add/sub/mul/div (and their in-place forms) take a Tensor or a number: anything else is
    torch's argument-parser TypeError; ``+=`` and the other operators fall back to Python's."""
    messages = []
    for lib in (al, torch):
        with pytest.raises(TypeError) as caught:
            exec(statement, {"t": lib.ones(2)})  # noqa: S102  (the parametrized statements)
        messages.append(str(caught.value))
    assert messages[0] == messages[1]


def test_complex_add_and_sub_multiply_other_by_a_complex_alpha(torch):
    """Found by a 100,000-program fuzzer run (``1j - lib.tensor(False).log()``): PyTorch computes
    ``self ± alpha * other`` with ``alpha * other`` a complex product, so an infinite part of
    ``other`` gives a nan beside it (-inf → -inf+nanj), as NumPy's complex product does."""
    import warnings
    inf = float("inf")

    def cases(lib):
        a, b, real = lib.tensor(1j), lib.tensor(complex(-inf, 0)), lib.tensor(-inf)
        log0 = lib.tensor(False).log()
        return [a - b, a + b, lib.sub(a, b, alpha=2), a - real, a + real, real - a, real + a,
                1j - log0, log0 + 1j, 1j + log0, 2 - b, lib.sub(a, b, alpha=1j),
                lib.add(lib.tensor([1 + 2j]), lib.tensor([3.0]), alpha=0.5)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = cases(al), cases(torch)
    assert [str(t.tolist()) for t in ours] == [str(t.tolist()) for t in theirs]
    assert str(ours[0].tolist()) == "(inf+nanj)"


def test_an_empty_bmm_takes_mat2s_dtype(torch):
    """Found by a long fuzzer run (``zeros(0, 1, dtype=float64) @ zeros(1, 1, 3)``): when no
    bmm kernel runs (an empty result, or an empty inner dimension), ATen checks no dtypes and
    the result has mat2's dtype; with values, mixed dtypes raise."""
    def outcome(lib, a, b, da, db):
        try:
            r = lib.zeros(*a, dtype=getattr(lib, da)) @ lib.zeros(*b, dtype=getattr(lib, db))
            return tuple(r.shape), str(r.dtype)
        except RuntimeError as error:
            return str(error)
    for a, b in [((0, 1), (1, 1, 3)), ((2, 1), (1, 1, 0)), ((2, 0), (1, 0, 3)), ((2, 1), (1, 1, 3)),
                 ((1, 0, 1), (1, 1, 3))]:
        for da, db in [("float64", "float32"), ("float32", "float64")]:
            assert outcome(al, a, b, da, db) == outcome(torch, a, b, da, db), (a, b, da, db)
