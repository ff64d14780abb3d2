"""Issue 12's ``nn`` divergences (modules, layers, losses), one program each, run through
autograd_lesson and torch with the fuzzer's ``compare`` (same exception type and message,
warnings, values, dtypes, ``requires_grad`` and leaf gradients); then the graphs the losses
record. Random initial values differ between the libraries: programs that read them fill the
parameters first."""
import numpy as np
import pytest

import autograd_lesson as al
from fuzz.compare import compare
from test_parity_ops import walk

pytestmark = pytest.mark.parity

SEQ = "m = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.ReLU(), lib.nn.Tanh())"
FILL = ("with lib.no_grad(): [p.copy_(lib.arange(p.numel() * 1.).reshape(p.shape) / 7 - 0.3)"
        " for p in m.parameters()]")
LOGITS = "x = lib.tensor([[1., 2, 3], [0, 1, 0], [2, -1, 0.5]], requires_grad=True)"

PROGRAMS = {
    # Sequential as a list
    "Sequential index out of range": [SEQ, "a = m[5]"],
    "Sequential negative index out of range": [SEQ, "a = m[-4]"],
    "Sequential negative index": [SEQ, "a = repr(m[-1])"],
    "Sequential index not an int": [SEQ, "a = m['a']"],
    "Sequential slices keep their keys": [SEQ, "a = repr(m[1:])", "b = repr(m[::-1])",
                                          "c = list(m[1:]._modules)", "d = type(m[:1]).__name__"],
    "Sequential del renumbers": [SEQ, "del m[0]", "a = repr(m)", "b = list(m._modules)",
                                 "del m[0:1]", "c = repr(m)"],
    "Sequential del out of range": [SEQ, "del m[3]"],
    "Sequential setitem": [SEQ, "m[1] = lib.nn.Sigmoid()", "a = repr(m)", "m[3] = lib.nn.ReLU()"],
    "Sequential setitem of a non-module": [SEQ, "m[0] = 3"],
    "Sequential append/insert/extend/pop": [
        SEQ, "a = m.append(lib.nn.Identity()) is m", "m.insert(1, lib.nn.Sigmoid())",
        "m.insert(-1, lib.nn.ReLU())", "m.insert(len(m), lib.nn.Tanh())",
        "m.extend([lib.nn.Identity()])", "b = repr(m)", "c = repr(m.pop(0))", "d = repr(m)"],
    "Sequential append of a non-module": [SEQ, "m.append(3)"],
    "Sequential insert out of range": [SEQ, "m.insert(5, lib.nn.ReLU())"],
    "Sequential insert negative out of range": [SEQ, "m.insert(-4, lib.nn.ReLU())"],
    "Sequential insert of a non-module": [SEQ, "m.insert(0, 3)"],
    "Sequential + and iteration": [SEQ, "a = repr(m + m)", "b = [type(c).__name__ for c in m]",
                                   "c = list(lib.nn.Sequential())", "d = m + 1"],
    "Sequential * and += and an OrderedDict": [
        SEQ, "a = repr(m * 2)", "b = repr(2 * m)", "m *= 2", "c = (len(m), m[0] is m[3])",
        "m += lib.nn.Sequential(lib.nn.ReLU())", "d = repr(m)",
        "from collections import OrderedDict",
        "o = lib.nn.Sequential(OrderedDict([('a', lib.nn.ReLU()), ('b', lib.nn.Tanh())]))",
        "e = (repr(o), repr(o[1]), [n for n, _ in o.named_children()], repr(o[1:]))"],
    "Sequential * 0": [SEQ, "a = m * 0"],
    "Sequential * a float": [SEQ, "a = m * 2.0"],
    "Sequential += a module": [SEQ, "m += lib.nn.ReLU()"],
    "empty Sequential returns its input": ["x = lib.ones(2)", "a = lib.nn.Sequential()(x) is x"],
    # state_dict / load_state_dict
    "load_state_dict: all keys matched": [
        "m = lib.nn.Linear(2, 3)", "r = m.load_state_dict(lib.nn.Linear(2, 3).state_dict())",
        "a = (str(r), repr(r), r.missing_keys, r.unexpected_keys, type(r).__name__, tuple(r))"],
    "load_state_dict copies the values in place": [
        "m = lib.nn.Linear(2, 3)", "w = m.weight", "v = w._version",
        "src = {'weight': lib.ones(3, 2), 'bias': lib.zeros(3)}", "m.load_state_dict(src)",
        "a = (m.weight is w, w._version - v, m.weight.requires_grad)", "b = m.weight.detach()",
        "del w"],
    "load_state_dict: missing key": [
        "m = lib.nn.Linear(2, 3)", "m.load_state_dict({'weight': lib.ones(3, 2)})"],
    "load_state_dict: missing and unexpected keys": [
        "m = lib.nn.Sequential(lib.nn.Linear(2, 3))",
        "m.load_state_dict({'0.weight': lib.ones(3, 2), 'x': lib.ones(1), '1.bias': lib.ones(1)})"],
    "load_state_dict: size mismatch": [
        "m = lib.nn.Linear(2, 4)", "m.load_state_dict(lib.nn.Linear(2, 3).state_dict())"],
    "load_state_dict: size mismatch and missing key": [
        "m = lib.nn.Linear(2, 4)", "m.load_state_dict({'weight': lib.ones(3, 2)})"],
    "load_state_dict: not a tensor": [
        "m = lib.nn.Linear(2, 3)", "m.load_state_dict({'weight': 1, 'bias': lib.ones(3)})"],
    "load_state_dict: not a mapping": ["m = lib.nn.Linear(2, 3)", "m.load_state_dict([1])"],
    "load_state_dict strict=False": [
        "m = lib.nn.Linear(2, 3)",
        "r = m.load_state_dict({'weight': lib.ones(3, 2), 'extra': lib.ones(1)}, strict=False)",
        "a = (str(r), r.missing_keys, r.unexpected_keys)", "b = m.weight.detach()"],
    "load_state_dict strict=False still checks sizes": [
        "m = lib.nn.Linear(2, 3)", "m.load_state_dict({'weight': lib.ones(2, 2)}, strict=False)"],
    "load_state_dict assign=True replaces the parameter": [
        "m = lib.nn.Linear(2, 3)", "w = lib.ones(3, 2, dtype=lib.float64)",
        "m.load_state_dict({'weight': w, 'bias': lib.zeros(3)}, assign=True)",
        "a = (type(m.weight).__name__, m.weight.dtype == lib.float64, m.weight.requires_grad)"],
    # buffers and walking
    "register_buffer: state_dict, buffers, persistent": [
        "m = lib.nn.Linear(2, 3)", "m.register_buffer('running', lib.zeros(3))",
        "m.register_buffer('scratch', lib.ones(1), persistent=False)",
        "m.register_buffer('empty', None)",
        "a = list(m.state_dict())", "b = [n for n, _ in m.named_buffers()]",
        "c = [tuple(b.shape) for b in m.buffers()]", "d = m.running is m._buffers['running']",
        "e = repr(m)", "m.running = lib.ones(3)", "f = m.running.detach()",
        "g = [n for n, _ in lib.nn.Sequential(m).named_buffers()]",
        "h_ = list(lib.nn.Sequential(m).state_dict())"],
    "buffers load from a state_dict": [
        "m = lib.nn.Module()", "m.register_buffer('b', lib.zeros(2))",
        "m.register_buffer('n', lib.zeros(2), persistent=False)",
        "r = m.load_state_dict({'b': lib.ones(2)})", "a = (str(r), m.b.detach(), m.n.detach())",
        "m.load_state_dict({'b': lib.ones(2), 'n': lib.ones(2)})"],
    "nn.Buffer registers a buffer when assigned": [
        "m = lib.nn.Module()", "m.b = lib.nn.Buffer(lib.ones(2))",
        "m.n = lib.nn.Buffer(lib.ones(1), persistent=False)",
        "m.g = lib.nn.Buffer(lib.ones(1, requires_grad=True))", "m.e = lib.nn.Buffer()",
        "a = (list(m._buffers), sorted(m._non_persistent_buffers_set), list(m.state_dict()))",
        "b = (type(m.b).__name__, m.b.persistent, m.g.requires_grad, m.g.is_leaf, tuple(m.e.shape))",
        "c = (isinstance(m.b, lib.nn.Buffer), isinstance(lib.ones(1), lib.nn.Buffer))",
        "m.b = lib.zeros(2)", "d = (m.b.detach(), list(m.state_dict()))"],
    "nn.Buffer of a number": ["b = lib.nn.Buffer(3)"],
    "nn.Buffer before Module.__init__": [
        "class M(lib.nn.Module):\n    def __init__(self):\n        self.b = lib.nn.Buffer(lib.ones(1))",
        "M()"],
    "register_buffer of a non-tensor": ["m = lib.nn.Module()", "m.register_buffer('b', 3)"],
    "register_buffer over an attribute": ["m = lib.nn.Linear(2, 3)", "m.register_buffer('weight', lib.ones(1))"],
    "register_buffer with a dot": ["m = lib.nn.Module()", "m.register_buffer('a.b', lib.ones(1))"],
    "register_buffer with an empty name": ["m = lib.nn.Module()", "m.register_buffer('', lib.ones(1))"],
    "register_buffer with a non-string name": ["m = lib.nn.Module()", "m.register_buffer(1, lib.ones(1))"],
    "assigning a non-tensor to a buffer": ["m = lib.nn.Module()", "m.register_buffer('b', lib.ones(1))", "m.b = 3"],
    "buffers are cast by double() and to(); int buffers are not": [
        "m = lib.nn.Linear(2, 3)", "m.register_buffer('f', lib.ones(2))",
        "m.register_buffer('i', lib.tensor([1, 2]))", "old = m.f", "m.double()",
        "a = (m.f.dtype == lib.float64, m.i.dtype == lib.int64, m.f is old)",
        "m.to(lib.float32)", "b = (m.f.dtype == lib.float32, m.weight.dtype == lib.float32)",
        "m.half()", "c = (m.f.dtype == lib.float16, m.i.dtype == lib.int64)"],
    "double() casts a parameter's grad too": [
        "m = lib.nn.Linear(2, 3)", "m(lib.ones(2)).sum().backward()", "g = m.weight.grad",
        "m.double()", "a = (m.weight.grad.dtype == lib.float64, m.bias.grad.dtype == lib.float64)"],
    "apply visits children first and returns the module": [
        SEQ, "seen = []", "r = m.apply(lambda mod: seen.append(type(mod).__name__))",
        "a = (r is m, seen)"],
    "get_parameter / get_submodule / get_buffer": [
        "m = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.Sequential(lib.nn.Linear(3, 1)))",
        "m.register_buffer('b', lib.ones(1))",
        "a = (m.get_parameter('1.0.bias') is m[1][0].bias, m.get_submodule('1.0') is m[1][0],"
        " m.get_submodule('') is m, m.get_buffer('b') is m.b)",
        "b = type(m.get_parameter('0.weight')).__name__"],
    "get_parameter of a missing name": [SEQ, "m.get_parameter('0.nope')"],
    "get_parameter of a missing module": [SEQ, "m.get_parameter('7.weight')"],
    "get_parameter of a module": [SEQ, "m.get_parameter('0')"],
    "get_submodule of a parameter": [SEQ, "m.get_submodule('0.weight')"],
    "get_buffer of a parameter": [SEQ, "m.get_buffer('0.weight')"],
    "named_children, children, parameters(recurse=False)": [
        "m = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.ReLU())",
        "m.p = lib.nn.Parameter(lib.ones(1))",
        "a = [n for n, _ in m.named_children()]", "b = [type(c).__name__ for c in m.children()]",
        "c = [tuple(p.shape) for p in m.parameters(recurse=False)]",
        "d = [n for n, _ in m.named_parameters(prefix='net')]",
        "e = [n for n, _ in m.named_parameters(recurse=False)]",
        "f = [n for n, _ in m.named_modules()]"],
    "a module shared twice is walked once": [
        "l = lib.nn.Linear(2, 2)", "m = lib.nn.Sequential(l, lib.nn.ReLU(), l)",
        "a = [n for n, _ in m.named_modules()]", "b = [n for n, _ in m.named_parameters()]",
        "c = len(list(m.children()))", "d = list(m.state_dict())",
        "e = [n for n, _ in m.named_parameters(remove_duplicate=False)]"],
    # attribute assignment
    "assigning a plain tensor to a parameter": ["m = lib.nn.Linear(2, 3)", "m.weight = lib.ones(3, 2)"],
    "assigning a float64 tensor to a parameter": ["m = lib.nn.Linear(2, 3)", "m.weight = lib.ones(3, 2, dtype=lib.float64)"],
    "assigning a number to a parameter": ["m = lib.nn.Linear(2, 3)", "m.bias = 3"],
    "assigning None to a parameter": [
        "m = lib.nn.Linear(2, 3)", "m.bias = None", "a = ([n for n, _ in m.named_parameters()], m.bias, repr(m))",
        "b = list(m.state_dict())"],
    "assigning a non-module to a child module": [SEQ, "setattr(m, '0', 3)"],
    "a parameter that is not a leaf": ["m = lib.nn.Module()", "m.register_parameter('p', lib.ones(2, requires_grad=True) * 2)"],
    "register_parameter of a plain tensor": ["m = lib.nn.Module()", "m.register_parameter('p', lib.ones(2))"],
    "typename names torch's classes": [
        "m = lib.nn.Module()", "m.p = lib.nn.Parameter(lib.ones(1))", "m.p = lib.nn.Linear(1, 1)"],
    "a new parameter then a module under one name": [
        "m = lib.nn.Module()", "m.a = lib.nn.Parameter(lib.ones(1))", "m.a = lib.nn.ReLU()",
        "a = ([n for n, _ in m.named_parameters()], [n for n, _ in m.named_children()])",
        "del m.a", "b = hasattr(m, 'a')"],
    "a missing attribute": ["m = lib.nn.Linear(2, 3)", "m.nope"],
    "add_module checks": ["m = lib.nn.Module()", "m.add_module('x', 3)"],
    "add_module over an attribute": ["m = lib.nn.Linear(2, 3)", "m.add_module('weight', lib.nn.ReLU())"],
    "train() takes a bool": ["m = lib.nn.Linear(2, 3)", "m.train(1)"],
    "a parameter before Module.__init__": [
        "class M(lib.nn.Module):\n    def __init__(self):\n        self.p = lib.nn.Parameter(lib.ones(1))",
        "M()"],
    "typename of a Sequential": ["m = lib.nn.Module()", "m.p = lib.nn.Parameter(lib.ones(1))", "m.p = lib.nn.Sequential()"],
    "typename of a number": ["m = lib.nn.Module()", "m.add_module('a', 3)"],
    "a module before Module.__init__": [
        "class M(lib.nn.Module):\n    def __init__(self):\n        self.m = lib.nn.ReLU()", "M()"],
    "repr with extra_repr and children": [
        "class M(lib.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.l = lib.nn.Linear(2, 2)\n    def extra_repr(self):\n        return 'k=1'",
        "a = repr(M())", "b = repr(lib.nn.Sequential(M(), lib.nn.Sequential()))",
        "M.extra_repr = lambda self: 'a=1\\n\\nb=2'", "c = repr(lib.nn.Sequential(M()))",
        "d = repr(M())"],
    # layers
    "Dropout p above 1": ["m = lib.nn.Dropout(p=1.5)"],
    "Dropout p below 0": ["m = lib.nn.Dropout(-0.1)"],
    "Dropout p 1 and 0 are allowed": ["a = repr(lib.nn.Dropout(1.0))", "b = repr(lib.nn.Dropout(0))"],
    "F.dropout p above 1": ["a = F.dropout(lib.ones(2), 2.0)"],
    "F.dropout p above 1 out of training": ["a = F.dropout(lib.ones(2), 2.0, training=False)"],
    "Dropout of NaN builds, then its kernel refuses": [
        "m = lib.nn.Dropout(float('nan'))", "a = repr(m)", "m.eval()", "b = m(lib.ones(2))"],
    "Identity takes any arguments": ["a = repr(lib.nn.Identity(3, foo=2))",
                                     "x = lib.ones(2)", "b = lib.nn.Identity(1)(x) is x"],
    "cpu() returns the module": ["m = lib.nn.Linear(2, 3)", "a = m.cpu() is m"],
    "dir lists parameters and children, not digits": [
        SEQ, "m.register_buffer('buf', None)", "a = [k for k in ('buf', 'forward', '0') if k in dir(m)]",
        "b = 'weight' in dir(m[0])"],
    "RNNCell repr": ["a = repr(lib.nn.RNNCell(2, 3, nonlinearity='relu'))",
                     "b = repr(lib.nn.RNNCell(2, 3, bias=False))",
                     "c = repr(lib.nn.RNNCell(2, 3, nonlinearity='tanh'))",
                     "d = [n for n, _ in lib.nn.RNNCell(2, 3, bias=False).named_parameters()]",
                     "e = lib.nn.RNNCell(2, 3, bias=False).bias_ih"],
    "RNNCell input size": ["m = lib.nn.RNNCell(2, 3)", "a = m(lib.ones(4, 3))"],
    "RNNCell unbatched input size": ["m = lib.nn.RNNCell(2, 3)", "a = m(lib.ones(3))"],
    "RNNCell hidden size": ["m = lib.nn.RNNCell(2, 3)", "a = m(lib.ones(4, 2), lib.ones(4, 4))"],
    "RNNCell unbatched input, batched hidden": ["m = lib.nn.RNNCell(2, 3)", "a = m(lib.ones(2), lib.ones(4, 3))"],
    "RNNCell batch sizes": ["m = lib.nn.RNNCell(2, 3)", "a = m(lib.ones(4, 2), lib.ones(3, 3))"],
    "RNNCell 3-D hidden": ["m = lib.nn.RNNCell(2, 3)", "a = m(lib.ones(4, 2), lib.ones(1, 4, 3))"],
    "RNNCell bad nonlinearity fails when run": [
        "m = lib.nn.RNNCell(2, 3, nonlinearity='sigmoid')", "a = repr(m)", "b = m(lib.ones(2))"],
    "RNNCell relu values": [
        "m = lib.nn.RNNCell(2, 3, nonlinearity='relu')", FILL,
        "x = lib.tensor([[1., -2.], [0.5, 3.]], requires_grad=True)", "a = m(x)",
        "a.sum().backward()", "b = (a.grad_fn.name(), m.weight_ih.grad.detach())"],
    "reset_parameters draws again in place": [
        "m = lib.nn.Linear(2, 3)", "w = m.weight", "a = [p._version for p in m.parameters()]",
        "m.reset_parameters()", "b = (m.weight is w, [p._version for p in m.parameters()])",
        "del w", "r = lib.nn.RNNCell(2, 3)", "r.reset_parameters()",
        "c = [p._version for p in r.parameters()]"],
    "Linear(0, n): the weight's init is a no-op, with a warning": [
        "m = lib.nn.Linear(0, 3)", "a = (m.weight._version, m.bias._version)",
        "b = m(lib.ones(2, 0))"],
    "init.kaiming_uniform_ bounds and errors": [
        "w = lib.ones(200, 50)", "lib.nn.init.kaiming_uniform_(w, a=5 ** 0.5)",
        "a = (w.abs().max().item() <= 50 ** -0.5, w._version)",
        "b = [lib.nn.init.calculate_gain(n) for n in ('linear', 'sigmoid', 'tanh', 'relu', 'selu')]",
        "c = (lib.nn.init.calculate_gain('leaky_relu', 0.2), lib.nn.init.calculate_gain('leaky_relu'))",
        "del w", "lib.nn.init.kaiming_uniform_(lib.ones(3, 4), mode='FAN_OUT')",
        "lib.nn.init.kaiming_uniform_(lib.ones(3, 4), mode='x')"],
    "init.kaiming_uniform_ of a 1-D tensor": ["lib.nn.init.kaiming_uniform_(lib.ones(3))"],
    "calculate_gain of an unknown nonlinearity": ["lib.nn.init.calculate_gain('swish')"],
    "calculate_gain of a bool slope": ["lib.nn.init.calculate_gain('leaky_relu', True)"],
    "Linear with a float size": ["m = lib.nn.Linear(2.5, 3)"],
    "Linear with a float out size": ["m = lib.nn.Linear(2, 3.0)"],
    "Linear with a negative size": ["m = lib.nn.Linear(-1, 3)"],
    "Linear with a negative out size": ["m = lib.nn.Linear(2, -3)"],
    "Linear with a bool size": ["m = lib.nn.Linear(True, 3)", "a = tuple(m.weight.shape)"],
    "RNNCell with a float size": ["m = lib.nn.RNNCell(2.5, 3)"],
    "RNNCell with a negative hidden size": ["m = lib.nn.RNNCell(2, -3)"],
    "factories: a float first in a size tuple": ["a = lib.zeros((3.0, 2))"],
    "factories: a bool after the first size": ["a = lib.ones(2, True)", "b = lib.zeros((2, True))"],
    "factories: a bool first in a size tuple": ["a = lib.ones((True, 2))"],
    "factories: a float first of several sizes": ["a = lib.zeros(3.0, 2, 2)"],
    "factories: a bool first of several sizes": ["a = lib.ones(True, 2)"],
    "factories: a tuple first of several sizes": ["a = lib.ones((2,), 2)"],
    "factories: one float size": ["a = lib.zeros(3.0, dtype=lib.float64)"],
    # loss modules and their functions
    "loss modules: repr and buffers": [
        "a = [repr(c()) for c in (lib.nn.CrossEntropyLoss, lib.nn.NLLLoss, lib.nn.BCELoss, lib.nn.BCEWithLogitsLoss, lib.nn.MSELoss)]",
        "b = [[n for n, _ in c().named_buffers()] for c in (lib.nn.CrossEntropyLoss, lib.nn.BCEWithLogitsLoss)]",
        "c = list(lib.nn.CrossEntropyLoss(weight=lib.ones(3)).state_dict())",
        "d = [sorted(vars(c()).get('_buffers', {})) for c in (lib.nn.CrossEntropyLoss, lib.nn.NLLLoss, lib.nn.BCELoss, lib.nn.BCEWithLogitsLoss, lib.nn.MSELoss)]",
        "e = (lib.nn.CrossEntropyLoss(label_smoothing=0.2).label_smoothing, lib.nn.NLLLoss(ignore_index=3).ignore_index)"],
    "MSELoss reductions": [
        "x = lib.tensor([1., 2., 4.], requires_grad=True)", "t = lib.tensor([0., 2., 1.])",
        "a = lib.nn.MSELoss()(x, t)", "b = lib.nn.MSELoss(reduction='sum')(x, t)",
        "c = lib.nn.MSELoss(reduction='none')(x, t)", "(a + b + c.sum()).backward()"],
    "MSELoss bad reduction": ["a = lib.nn.MSELoss(reduction='bad')(lib.ones(2), lib.zeros(2))"],
    "mse_loss with weight": [
        "x = lib.tensor([1., 2., 4.], requires_grad=True)", "t = lib.tensor([0., 2., 1.])",
        "w = lib.tensor([1., 2., 3.])", "a = F.mse_loss(x, t, weight=w)",
        "b = F.mse_loss(x, t, weight=w, reduction='sum')",
        "c = F.mse_loss(x, t, weight=w, reduction='none')", "(a + b + c.sum()).backward()",
        "d = (a.grad_fn.name(), b.grad_fn.name(), c.grad_fn.name())"],
    "mse_loss with weight checks it against the input before broadcasting": [
        "x = lib.tensor([[1.], [2.]], requires_grad=True)", "t = lib.tensor([0., 4.])",
        "a = F.mse_loss(x, t, weight=lib.tensor([[1.], [3.]]))", "a.backward()"],
    "mse_loss with a weight of another size": ["a = F.mse_loss(lib.ones(3), lib.ones(3), weight=lib.ones(2))"],
    "mse_loss with weight and a bad reduction": ["a = F.mse_loss(lib.ones(3), lib.ones(3), weight=lib.ones(3), reduction='x')"],
    "legacy size_average/reduce": [
        "x = lib.tensor([1., 2., 4.], requires_grad=True)", "t = lib.tensor([0., 2., 1.])",
        "a = F.mse_loss(x, t, size_average=False)", "b = F.mse_loss(x, t, reduce=False)",
        "c = lib.nn.MSELoss(size_average=False).reduction"],
    "NLLLoss": [LOGITS, "t = lib.tensor([0, 2, 1])", "a = lib.nn.NLLLoss()(x.log_softmax(1), t)",
                "b = lib.nn.NLLLoss(ignore_index=2, reduction='sum')(x.log_softmax(1), t)",
                "(a + b).backward()"],
    "CrossEntropyLoss ignore_index": [
        LOGITS, "t = lib.tensor([0, 1, 1])", "a = lib.nn.CrossEntropyLoss(ignore_index=1)(x, t)",
        "a.backward()"],
    "CrossEntropyLoss bad reduction is checked first": [
        "a = lib.nn.CrossEntropyLoss(reduction='avg')(lib.ones(2, 3), lib.tensor([0., 1.]))"],
    "cross_entropy label_smoothing": [
        LOGITS, "t = lib.tensor([0, 2, 1])",
        "a = lib.nn.CrossEntropyLoss(label_smoothing=0.1)(x, t)",
        "b = F.cross_entropy(x, t, label_smoothing=0.3, reduction='sum')",
        "c = F.cross_entropy(x, t, label_smoothing=0.2, reduction='none')",
        "(a + b + c.sum()).backward()"],
    "cross_entropy label_smoothing with ignore_index": [
        LOGITS, "t = lib.tensor([0, 2, 2])",
        "a = F.cross_entropy(x, t, label_smoothing=0.1, ignore_index=2)",
        "c = F.cross_entropy(x, t, label_smoothing=0.2, ignore_index=2, reduction='none')",
        "(a + c.sum()).backward()"],
    "cross_entropy label_smoothing above 1": [
        "a = F.cross_entropy(lib.ones(2, 3), lib.tensor([0, 1]), label_smoothing=1.5)"],
    "cross_entropy label_smoothing of 1": [
        LOGITS, "a = F.cross_entropy(x, lib.tensor([0, 2, 1]), label_smoothing=1.0)", "a.backward()"],
    "cross_entropy class probabilities": [
        LOGITS, "t = lib.tensor([[0.2, 0.3, 0.5], [1., 0, 0], [0, 0.5, 0.5]])",
        "a = lib.nn.CrossEntropyLoss()(x, t)", "b = F.cross_entropy(x, t, reduction='sum')",
        "c = F.cross_entropy(x, t, reduction='none')",
        "d = F.cross_entropy(x, t, label_smoothing=0.25)",
        "e = F.cross_entropy(x, t, weight=lib.tensor([1., 2., 0.5]))",
        "f = lib.nn.CrossEntropyLoss(weight=lib.tensor([1., 2., 0.5]), reduction='none')(x, t)",
        "(a + b + c.sum() + d + e + f.sum()).backward()"],
    "cross_entropy unbatched class probabilities": [
        "x = lib.tensor([1., 2., 3.], requires_grad=True)",
        "a = F.cross_entropy(x, lib.tensor([0.2, 0.3, 0.5]))",
        "b = F.cross_entropy(x, lib.tensor([0.2, 0.3, 0.5]), weight=lib.tensor([1., 2., 3.]), reduction='none')",
        "(a + b).backward()"],
    "cross_entropy class probabilities need a float target": [
        "a = F.cross_entropy(lib.ones(2, 3), lib.ones(2, 3, dtype=lib.int64))"],
    "cross_entropy class probabilities refuse ignore_index": [
        "a = F.cross_entropy(lib.ones(2, 3), lib.ones(2, 3) / 3, ignore_index=1)"],
    "cross_entropy class probabilities with a bad weight": [
        "a = F.cross_entropy(lib.ones(2, 3), lib.ones(2, 3) / 3, weight=lib.ones(2))"],
    "cross_entropy of an empty batch of probabilities": [
        "x = lib.ones(0, 3, requires_grad=True)", "a = F.cross_entropy(x, lib.ones(0, 3))"],
    "cross_entropy probabilities with label_smoothing above 1": [
        "a = F.cross_entropy(lib.ones(2, 3), lib.ones(2, 3) / 3, label_smoothing=2.0)"],
    "cross_entropy float64": [
        "x = lib.tensor([[1., 2, 3], [0, 1, 0]], dtype=lib.float64, requires_grad=True)",
        "a = F.cross_entropy(x, lib.tensor([2, 0]), label_smoothing=0.1)",
        "b = F.cross_entropy(x, lib.tensor([[0.2, 0.3, 0.5], [1., 0, 0]], dtype=lib.float64))",
        "(a + b).backward()"],
    "BCELoss": [
        "p = lib.tensor([0.2, 0.9, 0.5], requires_grad=True)", "t = lib.tensor([0., 1., 1.])",
        "a = lib.nn.BCELoss()(p, t)", "b = lib.nn.BCELoss(reduction='sum')(p, t)", "(a + b).backward()"],
    "BCEWithLogitsLoss": [
        "x = lib.tensor([0.2, -0.9, 2.5], requires_grad=True)", "t = lib.tensor([0., 1., 1.])",
        "a = lib.nn.BCEWithLogitsLoss()(x, t)", "b = lib.nn.BCEWithLogitsLoss(reduction='none')(x, t)",
        "(a + b.sum()).backward()"],
}


@pytest.mark.parametrize("lines", list(PROGRAMS.values()), ids=list(PROGRAMS))
def test_matches_torch(torch, lines):
    compare(torch, lines)


# -- the graphs the losses record ------------------------------------------------------------

LOSS_GRAPHS = {
    "label_smoothing, mean": "F.cross_entropy(x, t, label_smoothing=0.1)",
    "label_smoothing, sum": "F.cross_entropy(x, t, label_smoothing=0.1, reduction='sum')",
    "label_smoothing, none": "F.cross_entropy(x, t, label_smoothing=0.1, reduction='none')",
    "label_smoothing, ignore_index": "F.cross_entropy(x, t, label_smoothing=0.2, ignore_index=1)",
    "CrossEntropyLoss(ignore_index)": "lib.nn.CrossEntropyLoss(ignore_index=1)(x, t)",
    "probabilities, mean": "F.cross_entropy(x, p)",
    "probabilities, sum": "F.cross_entropy(x, p, reduction='sum')",
    "probabilities, none": "F.cross_entropy(x, p, reduction='none')",
    "probabilities, label_smoothing": "F.cross_entropy(x, p, label_smoothing=0.25)",
    "probabilities, weight": "F.cross_entropy(x, p, weight=w)",
    "probabilities, weight that requires grad": "F.cross_entropy(x, p, weight=w.requires_grad_())",
    "unbatched probabilities, weight": "F.cross_entropy(x[0], p[0], weight=w)",
    "mse_loss(weight), mean": "F.mse_loss(x, p, weight=p)",
    "mse_loss(weight), none": "F.mse_loss(x, p, weight=p, reduction='none')",
}


@pytest.mark.parametrize("expression", list(LOSS_GRAPHS.values()), ids=list(LOSS_GRAPHS))
def test_loss_records_torchs_graph_and_gradients(torch, expression):
    """Node by node (names, edges, saved slots and values), then the input's gradient."""
    from test_parity_ops import compare_graphs
    outs, leaves = [], []
    for lib in (al, torch):
        env = {"lib": lib, "F": lib.nn.functional,
               "x": lib.tensor([[1., 2, 3], [0, 1, 0], [2, -1, .5]], dtype=lib.float64,
                               requires_grad=True),
               "t": lib.tensor([0, 1, 2]), "w": lib.tensor([1., 2., .5], dtype=lib.float64),
               # (values exact in float32: the package's tensor(floats, dtype=float64) rounds
               # through float32 first, an engine bug left to the engine's owners)
               "p": lib.tensor([[.25, .25, .5], [1., 0, 0], [0, .5, .5]], dtype=lib.float64)}
        outs.append(eval(expression, env))
        leaves.append(env["x"])
    compare_graphs(outs[0].grad_fn, outs[1].grad_fn)  # (before backward frees the saves)
    for out in outs:
        out.sum().backward()
    np.testing.assert_allclose(outs[0].tolist(), outs[1].tolist(), rtol=1e-12)
    np.testing.assert_allclose(leaves[0].grad.tolist(), leaves[1].grad.tolist(), rtol=1e-12,
                               atol=1e-15)


def test_label_smoothing_zeroes_the_ignored_rows_in_place():
    """The smoothing term is masked in place (as PyTorch's ``masked_fill_``): the node under
    the ``MulBackward1`` is ``MaskedFillBackward0``, saving the ignore mask."""
    x = al.tensor([[1., 2, 3], [0, 1, 0]], requires_grad=True)
    out = al.nn.functional.cross_entropy(x, al.tensor([0, 1]), label_smoothing=0.1,
                                         ignore_index=1, reduction="none")
    fill = out.grad_fn.next_functions[1][0].next_functions[0][0]
    assert fill.name() == "MaskedFillBackward0"
    assert fill._saved_mask.tolist() == [False, True]
    assert fill.next_functions[0][0].name() == "NegBackward0"


WEIGHTED_LOSSES = {
    "nll_loss(weight)": "F.nll_loss(x.log_softmax(1), t, weight=w, ignore_index=1)",
    "nll_loss(weight, sum)": "F.nll_loss(x, t, weight=w, reduction='sum')",
    "nll_loss(weight, none)": "F.nll_loss(x, t, weight=w, reduction='none')",
    "cross_entropy(weight), class indices": "F.cross_entropy(x, t, weight=w)",
    "CrossEntropyLoss(weight)": "lib.nn.CrossEntropyLoss(weight=w)(x, t)",
    "binary_cross_entropy(weight)": "F.binary_cross_entropy(x.sigmoid(), x.detach() * 0 + .3, weight=w)",
    "BCELoss(weight) of a row": "lib.nn.BCELoss(weight=w[:1])(x.sigmoid(), x.detach() * 0 + .3)",
    "binary_cross_entropy_with_logits(pos_weight)": "F.binary_cross_entropy_with_logits(x, x.detach() * 0 + .3, pos_weight=w)",
    "BCEWithLogitsLoss(weight, pos_weight)": "lib.nn.BCEWithLogitsLoss(weight=w[:, None], pos_weight=w)(x, x.detach() * 0 + .7)",
    "BCEWithLogitsLoss(weight, none)": "lib.nn.BCEWithLogitsLoss(weight=w, reduction='none')(x, x.detach() * 0 + .7)",
}


@pytest.mark.parametrize("expression", list(WEIGHTED_LOSSES.values()), ids=list(WEIGHTED_LOSSES))
def test_weighted_losses_match_torch(torch, expression):
    """Class weights and pos_weight, saved on the loss's own node (``_saved_weight``,
    ``_saved_pos_weight``, and nll_loss's ``_saved_total_weight``): the loss, the saved
    weights, and first and second derivatives, in float64."""
    def run(lib):
        x = lib.tensor([[1., 2, 3], [0, 1, 0], [2, -1, .5]], dtype=lib.float64, requires_grad=True)
        env = {"lib": lib, "F": lib.nn.functional, "t": lib.tensor([0, 1, 2]), "x": x,
               "w": lib.tensor([1., 2., .5], dtype=lib.float64)}
        loss = eval(expression, env)  # noqa: S307  (the parametrized expressions above)
        node = loss.grad_fn
        saved = {a: getattr(node, a).tolist() for a in dir(node)
                 if a in ("_saved_weight", "_saved_pos_weight", "_saved_total_weight")
                 and getattr(node, a) is not None}
        (g,) = lib.autograd.grad(loss.sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), x)
        return node.name(), saved, [v.detach().numpy() for v in (loss, g, gg)]
    ours, theirs = run(al), run(torch)
    assert ours[:2] == theirs[:2]
    for a, b in zip(ours[2], theirs[2]):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parity
@pytest.mark.parametrize("expression", [
    "F.nll_loss(x, t, weight=lib.ones(2))", "F.nll_loss(x, t, weight=lib.ones(3, dtype=lib.float64))",
    "F.binary_cross_entropy_with_logits(x, x, pos_weight=lib.ones(2))",
    "F.binary_cross_entropy_with_logits(x, x, weight=lib.ones(2, 3, 3))",
    "F.binary_cross_entropy(x.sigmoid(), x.sigmoid(), weight=lib.ones(2))",
    "F.binary_cross_entropy_with_logits(x, x.bool(), pos_weight=x.bool())",
    "F.binary_cross_entropy_with_logits(x, x, pos_weight=x[0].bool())",
    "F.nll_loss(x, lib.tensor([0, 1, 9]), weight=lib.ones(2, requires_grad=True))",
    "F.binary_cross_entropy_with_logits(x, x, pos_weight=lib.ones(3, requires_grad=True))",
    "F.binary_cross_entropy(x.sigmoid(), x.sigmoid(), weight=lib.ones(3, requires_grad=True))"])
def test_bad_loss_weights_raise_torchs_error(torch, expression):
    def run(lib):
        env = {"lib": lib, "F": lib.nn.functional, "t": lib.tensor([0, 1, 2]), "x": lib.ones(3, 3)}
        with pytest.raises(RuntimeError) as info:
            eval(expression, env)  # noqa: S307  (the parametrized expressions above)
        return str(info.value)
    assert run(al) == run(torch)


def test_label_smoothing_with_class_weights_is_refused_in_one_line():
    """PyTorch's weighted smoothing term is its own composite, not built here yet."""
    x = al.tensor([[1., 2, 3], [0, 1, 0]], requires_grad=True)
    with pytest.raises(NotImplementedError, match=r"^autograd_lesson's cross_entropy with "
                                                  r"label_smoothing does not take weight yet"):
        al.nn.functional.cross_entropy(x, al.tensor([0, 1]), weight=al.ones(3),
                                       label_smoothing=0.1)
