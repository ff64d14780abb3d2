"""Engine speed: the same workloads on the same inputs in autograd_lesson, PyTorch, MyGrad and
micrograd, timed phase by phase in one process (median of repeated runs).

autograd_lesson and PyTorch run literally the same code (``lib`` is either module); MyGrad and
micrograd get hand-written twins of the same math. MyGrad has no higher-order gradients, so
it sits out the WGAN-GP step; micrograd is a scalar engine, so it only runs the batch-1 MLP and
the chain of one element.
"""
import sys

import numpy as np

from _common import Clock, interleaved_medians, ms, ratio, table

ENGINES = ("autograd_lesson", "PyTorch", "MyGrad", "micrograd")
CHAIN_LENGTH = 1000
RNN_STEPS = 50
LR = 0.01


# -- inputs, shared by every engine --------------------------------------------------------------
def _linear_params(rs, sizes):
    """(weight, bias) arrays for Linear layers of the given sizes, float32, U(-1/sqrt(in), ..)."""
    params = []
    for n_in, n_out in zip(sizes, sizes[1:]):
        bound = 1 / np.sqrt(n_in)
        params.append(rs.uniform(-bound, bound, (n_out, n_in)).astype(np.float32))
        params.append(rs.uniform(-bound, bound, n_out).astype(np.float32))
    return params


class Inputs:
    """Every array a workload needs, made once from a fixed seed."""

    def __init__(self, seed=0):
        rs = np.random.RandomState(seed)
        self.mlp_sizes = (64, 128, 128, 10)
        self.mlp = _linear_params(rs, self.mlp_sizes)
        self.x = rs.randn(64, 64).astype(np.float32)
        self.labels = rs.randint(0, 10, size=64).astype(np.int64)
        self.target = rs.randn(64, 10).astype(np.float32)
        self.chain_x = (np.abs(rs.randn(1000)) + 0.1).astype(np.float32)
        self.rnn = [p for pair in zip(_linear_params(rs, (32, 64)), _linear_params(rs, (64, 64)))
                    for p in pair]  # RNNCell order: weight_ih, weight_hh, bias_ih, bias_hh
        self.rnn_xs = rs.randn(RNN_STEPS, 16, 32).astype(np.float32)
        self.gan_sizes = (64, 128, 128, 1)
        self.gan = _linear_params(rs, self.gan_sizes)
        self.real = rs.randn(64, 64).astype(np.float32)
        self.fake = rs.randn(64, 64).astype(np.float32)
        self.alpha = rs.uniform(0, 1, (64, 1)).astype(np.float32)


# -- autograd_lesson and PyTorch: one code, ``lib`` is the module ---------------------------------
def _load(lib, module, arrays):
    """Overwrite the module's parameters (in registration order) with copies of ``arrays``."""
    with lib.no_grad():
        for p, a in zip(module.parameters(), arrays):
            p.copy_(lib.tensor(a))
    return module


def _mlp(lib, sizes, act):
    layers = []
    for i, (n_in, n_out) in enumerate(zip(sizes, sizes[1:])):
        layers.append(lib.nn.Linear(n_in, n_out))
        if i < len(sizes) - 2:
            layers.append(act())
    return lib.nn.Sequential(*layers)


def mlp_lib(lib, data, batch=64, loss="cross_entropy"):
    net = _load(lib, _mlp(lib, data.mlp_sizes, lib.nn.ReLU), data.mlp)
    opt = lib.optim.SGD(net.parameters(), lr=LR)
    x = lib.tensor(data.x[:batch])
    if loss == "cross_entropy":
        y = lib.tensor(data.labels[:batch])
        criterion = lib.nn.functional.cross_entropy
    else:
        y = lib.tensor(data.target[:batch])
        criterion = lib.nn.functional.mse_loss

    def once():
        clock = Clock()
        out = criterion(net(x), y)
        clock.lap("forward")
        out.backward()
        clock.lap("backward")
        opt.step()
        opt.zero_grad()
        clock.lap("step")
        return clock.times
    return once


def _chain(y, relu):
    """CHAIN_LENGTH elementwise ops cycling through y * 0.999, y + 0.001, relu(y)."""
    for i in range(CHAIN_LENGTH):
        k = i % 3
        y = y * 0.999 if k == 0 else (y + 0.001 if k == 1 else relu(y))
    return y


def chain_lib(lib, data, size):
    x = lib.tensor(data.chain_x[:size], requires_grad=True)

    def once():
        x.grad = None
        clock = Clock()
        loss = _chain(x, lambda y: y.relu()).sum()
        clock.lap("forward")
        loss.backward()
        clock.lap("backward")
        return clock.times
    return once


def rnn_lib(lib, data):
    cell = _load(lib, lib.nn.RNNCell(32, 64), data.rnn)
    xs = lib.tensor(data.rnn_xs)

    def once():
        cell.zero_grad()
        clock = Clock()
        h = lib.zeros(xs.shape[1], 64)
        for t in range(RNN_STEPS):
            h = cell(xs[t], h)
        loss = h.pow(2).sum()
        clock.lap("forward")
        loss.backward()
        clock.lap("backward")
        return clock.times
    return once


def wgan_gp_lib(lib, data):
    D = _load(lib, _mlp(lib, data.gan_sizes, lambda: lib.nn.LeakyReLU(0.2)), data.gan)
    opt = lib.optim.SGD(D.parameters(), lr=LR)
    real, fake, alpha = lib.tensor(data.real), lib.tensor(data.fake), lib.tensor(data.alpha)

    def once():
        clock = Clock()
        interpolated = (alpha * real + (1 - alpha) * fake).requires_grad_()
        critic = D(fake).mean() - D(real).mean()
        prob = D(interpolated)
        clock.lap("forward")
        gradients, = lib.autograd.grad(prob, interpolated, lib.ones_like(prob), create_graph=True)
        clock.lap("grad(create_graph)")
        gp = ((gradients.norm(2, dim=1) - 1) ** 2).mean()
        loss = critic + 10 * gp
        loss.backward()
        clock.lap("backward")
        opt.step()
        opt.zero_grad()
        clock.lap("step")
        return clock.times
    return once


# -- MyGrad: the same math written with mygrad's functions ---------------------------------------
def _mygrad_mlp_forward(mg, params, x, act):
    h = x
    for i in range(0, len(params), 2):
        h = mg.matmul(h, params[i].T) + params[i + 1]
        if i < len(params) - 2:
            h = act(h)
    return h


def _mygrad_step(params):
    for p in params:
        p.data -= LR * p.grad  # plain NumPy update; MyGrad unlocks the arrays after backward
        p.null_grad()


def mlp_mygrad(data, batch=64, loss="cross_entropy"):
    import mygrad as mg
    from mygrad.nnet.activations import relu
    from mygrad.nnet.losses import softmax_crossentropy
    params = [mg.tensor(a.copy()) for a in data.mlp]
    x = data.x[:batch].copy()
    labels, target = data.labels[:batch].copy(), data.target[:batch].copy()

    def once():
        clock = Clock()
        out = _mygrad_mlp_forward(mg, params, x, relu)
        out = softmax_crossentropy(out, labels) if loss == "cross_entropy" \
            else mg.mean((out - target) ** 2)
        clock.lap("forward")
        out.backward()
        clock.lap("backward")
        _mygrad_step(params)
        clock.lap("step")
        return clock.times
    return once


def chain_mygrad(data, size):
    import mygrad as mg
    from mygrad.nnet.activations import relu
    x = mg.tensor(data.chain_x[:size].copy())

    def once():
        clock = Clock()
        loss = _chain(x, relu).sum()
        clock.lap("forward")
        loss.backward()
        clock.lap("backward")
        return clock.times
    return once


def rnn_mygrad(data):
    import mygrad as mg
    w_ih, w_hh, b_ih, b_hh = (mg.tensor(a.copy()) for a in data.rnn)
    xs = data.rnn_xs.copy()

    def once():
        clock = Clock()
        h = np.zeros((xs.shape[1], 64), dtype=np.float32)
        for t in range(RNN_STEPS):
            h = mg.tanh(mg.matmul(h, w_hh.T) + b_hh + mg.matmul(xs[t], w_ih.T) + b_ih)
        loss = (h ** 2).sum()
        clock.lap("forward")
        loss.backward()
        clock.lap("backward")
        return clock.times
    return once


# -- micrograd: Karpathy's scalar engine (one Python object per number) --------------------------
def mlp_micrograd(data):
    """Batch 1, MSE loss: micrograd has neither exp nor log, so no cross-entropy."""
    from micrograd.nn import MLP
    sizes = data.mlp_sizes
    net = MLP(sizes[0], list(sizes[1:]))
    for layer, (weight, bias) in zip(net.layers, zip(data.mlp[::2], data.mlp[1::2])):
        for i, neuron in enumerate(layer.neurons):
            for j, w in enumerate(neuron.w):
                w.data = float(weight[i, j])
            neuron.b.data = float(bias[i])
    x = [float(v) for v in data.x[0]]
    target = [float(v) for v in data.target[0]]

    def once():
        clock = Clock()
        out = net(x)
        loss = sum((o - t) ** 2 for o, t in zip(out, target)) * (1 / len(out))
        clock.lap("forward")
        loss.backward()
        clock.lap("backward")
        for p in net.parameters():
            p.data -= LR * p.grad
        net.zero_grad()
        clock.lap("step")
        return clock.times
    return once


def chain_micrograd(data):
    from micrograd.engine import Value
    x = Value(float(data.chain_x[0]))

    def once():
        x.grad = 0
        clock = Clock()
        y = _chain(x, lambda v: v.relu())
        clock.lap("forward")
        y.backward()  # recursive topological sort: needs a recursion limit above the chain length
        clock.lap("backward")
        return clock.times
    return once


# -- the table -----------------------------------------------------------------------------------
def workloads(data):
    """(label, note, {engine: builder or None}) for every row group of the table."""
    import torch
    import autograd_lesson as al
    return [
        ("(a) MLP 64-128-128-10, batch 64, cross-entropy", "", {
            "autograd_lesson": lambda: mlp_lib(al, data), "PyTorch": lambda: mlp_lib(torch, data),
            "MyGrad": lambda: mlp_mygrad(data), "micrograd": None}),
        ("(a') same MLP, batch 1, MSE (fits a scalar engine)", "", {
            "autograd_lesson": lambda: mlp_lib(al, data, 1, "mse"),
            "PyTorch": lambda: mlp_lib(torch, data, 1, "mse"),
            "MyGrad": lambda: mlp_mygrad(data, 1, "mse"), "micrograd": lambda: mlp_micrograd(data)}),
        ("(b) RNNCell 32->64, batch 16, 50 steps unrolled", "", {
            "autograd_lesson": lambda: rnn_lib(al, data), "PyTorch": lambda: rnn_lib(torch, data),
            "MyGrad": lambda: rnn_mygrad(data), "micrograd": None}),
        ("(c) chain of 1,000 elementwise ops, 1,000 elements", "", {
            "autograd_lesson": lambda: chain_lib(al, data, 1000),
            "PyTorch": lambda: chain_lib(torch, data, 1000),
            "MyGrad": lambda: chain_mygrad(data, 1000), "micrograd": None}),
        ("(c') chain of 1,000 elementwise ops, 1 element (fits a scalar engine)", "", {
            "autograd_lesson": lambda: chain_lib(al, data, 1),
            "PyTorch": lambda: chain_lib(torch, data, 1),
            "MyGrad": lambda: chain_mygrad(data, 1), "micrograd": lambda: chain_micrograd(data)}),
        ("(d) WGAN-GP critic step, MLP 64-128-128-1, batch 64", "", {
            "autograd_lesson": lambda: wgan_gp_lib(al, data),
            "PyTorch": lambda: wgan_gp_lib(torch, data),
            "MyGrad": None,  # MyGrad does not support higher-order derivatives (no create_graph)
            "micrograd": None}),
    ]


def run(quick=False, only=None):
    """Time every workload on every engine that fits it; return (text, results)."""
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * CHAIN_LENGTH))
    data = Inputs()
    repeats, min_seconds = (3, 0.0) if quick else (11, 1.0)
    results = {}
    rows = []
    for label, _, builders in workloads(data):
        if only and not any(o in label for o in only):
            continue
        runners = {}
        for engine in ENGINES:
            if builders.get(engine) is not None:
                slow = engine == "micrograd"  # about 3 s a run: three runs after one warm-up
                runners[engine] = (builders[engine](), 3 if slow else repeats, 1 if slow else 2)
        timings, _ = interleaved_medians(runners, repeats, min_seconds)
        results[label] = timings
        phases = list(timings["autograd_lesson"])
        rows.append([label] + [""] * (2 * len(ENGINES)))
        for phase in phases:
            pt = timings["PyTorch"][phase]
            rows.append([f"  {phase}"]
                        + [ms(timings[e][phase]) if e in timings else "n/a" for e in ENGINES]
                        + [ratio(timings[e][phase], pt) if e in timings else "n/a"
                           for e in ENGINES if e != "PyTorch"])
    headers = (["workload / phase"] + [f"{e} ms" for e in ENGINES]
               + [f"{e}/PT" for e in ENGINES if e != "PyTorch"])
    text = table(headers, rows, "Engine speed: median ms per run, ratio to PyTorch (1 thread)")
    return text, results


def verdicts(results):
    """Issue 14's targets: within 2x of PyTorch on every workload, faster than MyGrad wherever
    MyGrad runs."""
    lines = []
    for label, t in results.items():
        ours, pt = t["autograd_lesson"]["total"], t["PyTorch"]["total"]
        parts = [f"{ours / pt:.2f}x PyTorch"]
        parts[0] += " (target <= 2x: " + ("met" if ours / pt <= 2 else "MISSED") + ")"
        if "MyGrad" in t:
            mg = t["MyGrad"]["total"]
            parts.append(f"{mg / ours:.2f}x faster than MyGrad" if ours < mg
                         else f"{ours / mg:.2f}x SLOWER than MyGrad")
        if "micrograd" in t:
            micro = t["micrograd"]["total"]
            parts.append(f"{micro / ours:.0f}x faster than micrograd" if ours < micro
                         else f"{ours / micro:.1f}x slower than micrograd")
        lines.append(f"{label.split(' ')[0]} total: " + ", ".join(parts))
    return "\n".join(lines)
