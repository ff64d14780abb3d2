"""The seven scenarios of the source articles (multiple losses, GAN, shared backbone, RNN,
WGAN-GP, sequential optimization, conditional paths), written once for both libraries, and the
:class:`Recorder` that runs their backward calls.

Every ``s000_*`` function takes ``lib`` (``autograd_lesson`` or ``torch``) and a Recorder and
runs the same code with either. Inputs are NumPy ``RandomState`` arrays turned into float64
tensors, and module parameters are overwritten deterministically (``copy_`` under ``no_grad``,
so a fresh ``Linear`` weight goes from version 1 to 2, as in PyTorch).

Each backward / ``autograd.grad`` call goes through ``record(label, fn)``, which stores the
outcome (ok, or exception type and exact message), the warnings, the ``.grad`` of every tracked
leaf, and the state of every saved-tensor slot of every node reachable from the tracked roots;
with ``Recorder(lib, trace=True)`` (autograd_lesson only) also the nodes the engine ran, in
order, and the state of each one's saved slots right after it ran, from the event stream.

Two readers share this one copy: ``tests/test_parity_scenarios.py`` holds autograd_lesson to
PyTorch with it, and ``lesson.check_engine`` holds a learner's piece of the engine to the real
engine with it (lesson 00b). This module never imports torch.
"""
import warnings
import weakref
from collections import deque

import numpy as np

FREED = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)
INPLACE = "one of the variables needed for gradient computation has been modified by an inplace"
TRIGGERED = " (Triggered internally at"
# Both libraries give this warning once per process, so whether it shows depends on test order.
ONCE_PER_PROCESS = "Using backward() with create_graph=True"


# -- recording -----------------------------------------------------------------------------------
def as_array(t):
    """A float64 ndarray copy of a tensor's values (None stays None)."""
    if t is None:
        return None
    return np.array(t.detach().numpy(), dtype=np.float64)


def _plain(value):
    """Tensors -> float64 arrays; containers recursively; dtypes -> 'float32'-style strings."""
    if hasattr(value, "detach") and hasattr(value, "numpy"):
        return as_array(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (bool, int, float, str, type(None))):
        return value
    if isinstance(value, np.ndarray):
        return value.astype(np.float64)
    if isinstance(value, (np.floating, np.integer, np.bool_)):
        return value.item()
    return str(value).replace("torch.", "")


def _is_module(obj):
    return hasattr(obj, "named_parameters")


def _is_ours(lib):
    return lib.__name__ == "autograd_lesson"


def _read_slot(node, slot):
    """'alive', 'none' (save skipped), 'freed' or 'stale': what reading ``_saved_<slot>`` does."""
    try:
        value = getattr(node, "_saved_" + slot)
    except RuntimeError as exc:
        message = str(exc)
        if message == FREED:
            return "freed"
        if message.startswith(INPLACE):
            return "stale"
        return "error: " + message
    return "none" if value is None else "alive"


def _custom_function_state(node):
    try:
        node.saved_tensors
    except RuntimeError as exc:
        return "freed" if str(exc) == FREED else "error: " + str(exc)
    return "alive"


def _slot_names(lib, node):
    if _is_ours(lib):  # ours keeps declared slots in a dict (None when the save was skipped)
        return sorted(node._saved_slots)
    return sorted(a[len("_raw_saved_"):] for a in dir(node) if a.startswith("_raw_saved_"))


def walk(roots):
    """Nodes reachable from the roots' ``grad_fn``: BFS, children in ``next_functions`` order."""
    order, index, queue = [], {}, deque()
    for root in roots:
        node = root.grad_fn
        if node is not None and id(node) not in index:
            index[id(node)] = len(order)
            order.append(node)
            queue.append(node)
    while queue:
        for child, _ in queue.popleft().next_functions:
            if child is not None and id(child) not in index:
                index[id(child)] = len(order)
                order.append(child)
                queue.append(child)
    return order, index


class Recorder:
    """Runs backward calls and records what they did, identically for both libraries."""

    def __init__(self, lib, trace=False):
        self.lib = lib
        self.trace = trace  # record each call's nodes in the order they ran (see _traced)
        self.entries = []
        self.problems = []  # internal inconsistencies of autograd_lesson (must stay empty)
        self._tracked = {}
        self._roots = []
        self._hooked = {}
        self._counts = None
        self._trace = None  # the running call's trace (torch: filled by pre-hooks)
        self._traced, self._index, self._others, self._pending = {}, {}, {}, None

    # what to look at
    def track(self, **named):
        """Leaves (or modules: all their parameters) whose ``.grad`` each entry records."""
        self._tracked = {}
        for name, obj in named.items():
            if _is_module(obj):
                for pname, p in obj.named_parameters():
                    self._tracked[f"{name}.{pname}"] = p
            else:
                self._tracked[name] = obj
        return self

    def graph(self, *roots):
        """Tensors whose graphs (all nodes, all saved slots) each entry records."""
        self._roots = [r for r in roots if r is not None]
        return self

    # what to record
    def __call__(self, label, fn, count_nodes=False):
        """Run ``fn()`` (a backward or grad call), record it, return its result (None on error)."""
        if count_nodes:
            self._hook_nodes()
            self._counts = {"nodes": 0, "accumulate": 0}
        events = []
        result, outcome = None, ["ok"]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                if _is_ours(self.lib):
                    with self.lib.autograd.graph.observe(self._observer(events)):
                        result = fn()
                else:
                    self._start_trace()
                    result = fn()
            except Exception as exc:  # noqa: BLE001  (the outcome is the point)
                outcome = [type(exc).__name__, str(exc)]
        entry = {"label": label, "outcome": outcome,
                 "warnings": [_warning_text(w) for w in caught
                              if not str(w.message).startswith(ONCE_PER_PROCESS)],
                 "grads": {name: as_array(t.grad) for name, t in self._tracked.items()},
                 "graph": self.graph_state()}
        if self.trace:
            entry["trace"] = self._end_trace()
        if count_nodes:
            entry["executed"] = dict(self._counts)
            self._counts = None
            if _is_ours(self.lib):
                started = sum(type(e).__name__ == "NodeStarted" for e in events)
                if started != sum(entry["executed"].values()):
                    self.problems.append(f"{label}: {started} NodeStarted events but "
                                         f"{entry['executed']} pre-hook calls")
        self.entries.append(entry)
        return result

    def note(self, label, value):
        """Record a plain value (numbers, tensors, strings) computed by the scenario."""
        self.entries.append({"label": label, "value": _plain(value)})

    def slot_states(self, *roots):
        """How many saved slots of the graph behind ``roots`` are in each state (no 'none')."""
        saved, self._roots = self._roots, list(roots)
        try:
            states = [state for _, _, slots in self.graph_state() for _, state in slots]
        finally:
            self._roots = saved
        return {s: states.count(s) for s in sorted(set(states)) if s != "none"}

    # helpers
    def graph_state(self):
        """[(name, child indices, ((slot, state), ...)), ...] in BFS order."""
        nodes, index = walk(self._roots)
        state = []
        for node in nodes:
            children = tuple(None if c is None else index[id(c)] for c, _ in node.next_functions)
            slots = self.slot_states_of(node)
            if _is_ours(self.lib):
                self._check_buffers(node, dict(slots))
            state.append((node.name(), children, slots))
        return state

    def slot_states_of(self, node):
        """((slot, state), ...) of one node: what reading each of its saves does now."""
        if "saved_tensors" in dir(type(node)):
            return (("saved_tensors", _custom_function_state(node)),)
        return tuple((s, _read_slot(node, s)) for s in _slot_names(self.lib, node))

    # the order the nodes ran in: [(key, name, slot states right after it ran), ...]; the key
    # is the node's place in ``walk`` of the tracked roots (the same in both libraries), or
    # "+k" for the k-th other node (a root made inside the call, such as loss1 + loss2).
    def _observer(self, events):
        """autograd_lesson: the event stream, and the trace from its NodeFinished events."""
        self._start_trace()
        if not self.trace:
            return events.append

        def on_event(event):
            events.append(event)
            kind = type(event).__name__
            if kind == "NodeStarted":  # (a node that raises starts and never finishes)
                self._flush()
                self._pending = (len(self._trace), event.node)
                self._trace.append((self._key(event.node), event.node.name(), None))
            elif kind == "NodeFinished":
                self._flush()
        return on_event

    def _start_trace(self):
        if not self.trace:
            return
        nodes, _ = walk(self._roots)
        self._index = {id(n): i for i, n in enumerate(nodes)}
        self._others, self._trace, self._pending = {}, [], None
        if not _is_ours(self.lib):  # torch: a pre-hook on every tracked node
            for node in nodes:
                if id(node) not in self._traced:
                    self._traced[id(node)] = node
                    node.register_prehook(self._tracer(node))

    def _key(self, node):
        key = self._index.get(id(node))
        if key is None:
            key = self._others.setdefault(id(node), f"+{len(self._others) + 1}")
        return key

    def _tracer(self, node):
        """torch: a node's slots are read when the next traced node starts (or the call
        ends): PyTorch releases them right after the node runs, before any other starts."""
        def hook(grad_outputs):  # (holds the node, as _hooked does: torch's are not weakrefable)
            if self._trace is not None and id(node) in self._index:
                self._flush()
                self._pending = (len(self._trace), node)
                self._trace.append((self._index[id(node)], node.name(), None))
        return hook

    def _flush(self):
        if self._pending is not None:
            at, node = self._pending
            self._trace[at] = self._trace[at][:2] + (self.slot_states_of(node),)
            self._pending = None

    def _end_trace(self):
        self._flush()
        trace, self._trace, self._index, self._others = self._trace, None, {}, {}
        return trace

    def _check_buffers(self, node, slots):
        """Our ``SavedBuffer.state`` must agree with what reading ``_saved_<slot>`` says."""
        if "saved_tensors" in slots:
            return
        for buf in node.saved_buffers():
            mine = {"retained": "alive"}.get(buf.state, buf.state)
            if slots.get(buf.slot) != mine:
                self.problems.append(f"{node.name()}.{buf.slot}: SavedBuffer.state={buf.state} "
                                     f"but reading it says {slots.get(buf.slot)}")

    def _hook_nodes(self):
        for node in walk(self._roots)[0]:
            if id(node) not in self._hooked:
                self._hooked[id(node)] = node  # holding the node keeps its id unique
                kind = "accumulate" if "AccumulateGrad" in node.name() else "nodes"
                node.register_prehook(self._counter(kind))

    def _counter(self, kind):
        def hook(grad_outputs):
            if self._counts is not None:
                self._counts[kind] += 1
        return hook


def _warning_text(w):
    text = str(w.message)
    # PyTorch appends where in its C++ source a warning was raised; that part is not mirrored.
    return f"{w.category.__name__}: {text.split(TRIGGERED)[0]}"


# -- inputs --------------------------------------------------------------------------------------
def tensor(lib, values, requires_grad=False, dtype=None):
    return lib.tensor(np.asarray(values, dtype=np.float64), dtype=dtype or lib.float64,
                      requires_grad=requires_grad)


def randn(lib, seed, *shape, requires_grad=False, dtype=None):
    return tensor(lib, np.random.RandomState(seed).randn(*shape), requires_grad, dtype)


def init_params(lib, module, seed, scale=0.5):
    """Overwrite every parameter with ``U(-scale, scale)`` values from ``RandomState(seed)``."""
    rs = np.random.RandomState(seed)
    with lib.no_grad():
        for _, p in module.named_parameters():
            p.copy_(lib.tensor(rs.uniform(-scale, scale, tuple(p.shape)), dtype=p.dtype))
    return module


def linear(lib, n_in, n_out, seed, dtype=None):
    return init_params(lib, lib.nn.Linear(n_in, n_out, dtype=dtype or lib.float64), seed)


def mlp(lib, sizes, seed, act="relu", dtype=None):
    """Linear-act-...-Linear with deterministic parameters."""
    acts = {"relu": lib.nn.ReLU, "tanh": lib.nn.Tanh, "leaky": lambda: lib.nn.LeakyReLU(0.2)}
    layers = []
    for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        if i:
            layers.append(acts[act]())
        layers.append(lib.nn.Linear(n_in, n_out, dtype=dtype or lib.float64))
    return init_params(lib, lib.nn.Sequential(*layers), seed)


def params(module):
    return {name: p.detach().clone() for name, p in module.named_parameters()}


def s000_ex1_multi_loss(lib, record):
    """Two losses from ``y = x * 2``: the scalar 2 is saved, so the second backward needs retain."""
    values = [0.5, -1.0, 2.0, 0.0, 1.5]
    for variant in ("seed", "naive", "reversed", "add2"):
        x = tensor(lib, values, requires_grad=True)
        y = x + 2 if variant == "add2" else x * 2
        loss1 = y.sum()
        loss2 = (y ** 2).sum()
        record.track(x=x).graph(loss1, loss2)
        first, second = (loss2, loss1) if variant == "reversed" else (loss1, loss2)
        record(f"{variant}: first", lambda: first.backward(retain_graph=variant == "seed"))
        record(f"{variant}: second", lambda: second.backward())

def _gan(lib, seed=0):
    G = mlp(lib, [2, 4, 2], seed, act="leaky")
    D = lib.nn.Sequential(mlp(lib, [2, 4, 1], seed + 1, act="leaky"), lib.nn.Sigmoid())
    real = randn(lib, seed + 2, 4, 2)
    z = randn(lib, seed + 3, 4, 2)
    return G, D, real, z


def s000_ex2_gan(lib, record):
    """One GAN step: D on real and fake, then G. Seed retain pattern, naive, detach, old output."""
    bce = lib.nn.BCELoss()
    final_g = {}
    for variant in ("seed", "naive", "detach", "old_output_after_step", "old_output_before_step"):
        G, D, real, z = _gan(lib)
        optD = lib.optim.SGD(D.parameters(), lr=0.1)
        optG = lib.optim.Adam(G.parameters(), lr=0.01)
        ones, zeros = lib.ones(4, 1, dtype=lib.float64), lib.zeros(4, 1, dtype=lib.float64)
        fake = G(z)
        record.track(G=G, D=D)
        optD.zero_grad()
        d_loss_real = bce(D(real), ones)
        d_out_fake = D(fake.detach() if variant == "detach" else fake)
        d_loss_fake = bce(d_out_fake, zeros)
        record.graph(fake, d_loss_real, d_loss_fake)
        record(f"{variant}: d_loss_real", lambda: d_loss_real.backward())
        retain = variant != "naive" and variant != "detach"
        record(f"{variant}: d_loss_fake", lambda: d_loss_fake.backward(retain_graph=retain))
        record.note(f"{variant}: G's graph after the D steps", record.slot_states(fake))
        if variant != "old_output_before_step":
            optD.step()
        optG.zero_grad()  # also clears what d_loss_fake leaked into G (without detach)
        reuse = variant.startswith("old_output")
        g_loss = bce(d_out_fake if reuse else D(fake), ones)
        record.graph(fake, d_loss_fake, g_loss)
        record(f"{variant}: g_loss", lambda: g_loss.backward())
        if variant == "old_output_before_step":
            optD.step()
        optG.step()
        final_g[variant] = params(G)
        record.note(f"{variant}: D versions", [p._version for p in D.parameters()])
    record.note("G after seed pattern", final_g["seed"])
    record.note("G after detach pattern", final_g["detach"])


def _backbone(lib, seed=0, relu=True):
    layers = [lib.nn.Linear(4, 5, dtype=lib.float64)] + ([lib.nn.ReLU()] if relu else [])
    backbone = init_params(lib, lib.nn.Sequential(*layers), seed)
    return backbone, linear(lib, 5, 2, seed + 1), linear(lib, 5, 3, seed + 2)


def s000_ex3_shared_backbone(lib, record):
    """Two heads on one backbone: naive fails (after head 2's grads are written), retain works."""
    criterion = lib.nn.MSELoss()
    inputs, labels1, labels2 = randn(lib, 10, 6, 4), randn(lib, 11, 6, 2), randn(lib, 12, 6, 3)
    for variant in ("naive", "retain", "summed", "naive_bare_linear"):
        backbone, head1, head2 = _backbone(lib, relu=variant != "naive_bare_linear")
        features = backbone(inputs)
        out1, out2 = head1(features), head2(features)
        loss1, loss2 = criterion(out1, labels1), criterion(out2, labels2)
        record.track(backbone=backbone, head1=head1, head2=head2).graph(loss1, loss2)
        if variant == "summed":
            record(f"{variant}: (loss1+loss2)", lambda: (loss1 + loss2).backward())
            continue
        record(f"{variant}: loss1", lambda: loss1.backward(retain_graph=variant == "retain"))
        record(f"{variant}: loss2", lambda: loss2.backward())


class _CellWithOutput:
    """The seed's ``output, hidden = rnn_cell(input[t], hidden)``: an RNNCell plus a readout."""

    def __init__(self, lib, seed):
        self.cell = init_params(lib, lib.nn.RNNCell(3, 4, dtype=lib.float64), seed)
        self.readout = linear(lib, 4, 2, seed + 1)

    def __call__(self, x, h):
        h = self.cell(x, h)
        return self.readout(h), h

    def parameters(self):
        return list(self.cell.parameters()) + list(self.readout.parameters())


def _rnn_data(lib, seq_len=5, batch=2):
    return randn(lib, 20, seq_len, batch, 3), randn(lib, 21, seq_len, batch, 2)


def s000_ex4_rnn_per_step(lib, record):
    """Per-step ``loss.backward(retain_graph=True)``: works, but backward #t runs 9 + 6t nodes."""
    criterion = lib.nn.MSELoss()
    inputs, target = _rnn_data(lib)
    rnn_cell = _CellWithOutput(lib, 0)
    record.track(cell=rnn_cell.cell, readout=rnn_cell.readout)
    hidden, losses, hook_calls = lib.zeros(2, 4, dtype=lib.float64), [], []
    for t in range(5):
        output, hidden = rnn_cell(inputs[t], hidden)
        hook_calls.append(0)
        hidden.register_hook(lambda g, t=t: hook_calls.__setitem__(t, hook_calls[t] + 1))
        loss = criterion(output, target[t])
        losses.append(loss)
        record.graph(*losses)
        record(f"per-step t={t}", lambda: loss.backward(retain_graph=True), count_nodes=True)
    record.note("hook calls per h_t", hook_calls)
    per_step = {n: as_array(p.grad) for n, p in rnn_cell.cell.named_parameters()}

    # the same sequence, one backward of the summed loss
    rnn_cell = _CellWithOutput(lib, 0)
    record.track(cell=rnn_cell.cell, readout=rnn_cell.readout)
    hidden, losses = lib.zeros(2, 4, dtype=lib.float64), []
    for t in range(5):
        output, hidden = rnn_cell(inputs[t], hidden)
        losses.append(criterion(output, target[t]))
    total = sum(losses)
    record.graph(total)
    record("summed loss", lambda: total.backward(), count_nodes=True)
    summed = {n: as_array(p.grad) for n, p in rnn_cell.cell.named_parameters()}
    record.note("max |per-step - summed| grad", max(float(np.abs(per_step[n] - summed[n]).max())
                                                    for n in summed))

def _wgan_data(lib):
    real, fake = randn(lib, 40, 4, 2), randn(lib, 41, 4, 2)
    alpha = tensor(lib, np.random.RandomState(42).rand(4, 1))
    interpolated = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    return interpolated


def s000_ex5_wgan_gp(lib, record):
    """Gradient penalty: ``create_graph=True`` is the essential flag, not ``retain_graph``."""
    variants = [("no_create_graph", "nonlinear", dict(retain_graph=True)),
                ("create_graph", "nonlinear", dict(create_graph=True)),
                ("create_graph_seed_retain", "nonlinear", dict(create_graph=True)),
                ("create_no_retain", "nonlinear", dict(create_graph=True, retain_graph=False)),
                ("create_no_retain", "linear", dict(create_graph=True, retain_graph=False))]
    for name, kind, kwargs in variants:
        label = f"{name} ({kind} D)"
        if kind == "nonlinear":  # a WGAN-GP critic: Linear-LeakyReLU-Linear, no Sigmoid
            D = mlp(lib, [2, 4, 1], 3, act="leaky")
        else:
            D = lib.nn.Sequential(linear(lib, 2, 4, 3), linear(lib, 4, 1, 4))
        interpolated = _wgan_data(lib)
        prob = D(interpolated)
        record.track(D=D, interpolated=interpolated).graph(prob)
        result = record(f"{label}: grad", lambda: lib.autograd.grad(
            outputs=prob, inputs=interpolated, grad_outputs=lib.ones_like(prob), **kwargs))
        if result is None:
            continue
        gradients = result[0]
        record.note(f"{label}: gradients", gradients)
        record.note(f"{label}: gradients has grad_fn", gradients.grad_fn is not None)
        gp = ((gradients.norm(2, dim=1) - 1) ** 2).mean()
        record.graph(prob, gp)  # gp's graph holds double-backward nodes (LeakyReluBackwardBackward0)
        seed_retain = name == "create_graph_seed_retain"
        record(f"{label}: gp.backward", lambda: gp.backward(retain_graph=seed_retain or None))
        record(f"{label}: prob.mean().backward", lambda: prob.mean().backward())


def _sequential_model(lib, kind, dtype=None):
    if kind == "linear":
        return lib.nn.Sequential(linear(lib, 4, 2, 50, dtype=dtype))
    return mlp(lib, [4, 5, 2], 50, dtype=dtype)


def _optimizer(lib, name, model):
    if name == "sgd":
        return lib.optim.SGD(model.parameters(), lr=0.1)
    if name == "momentum":
        return lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    return lib.optim.Adam(model.parameters(), lr=0.1)


def s000_ex6_sequential_opt(lib, record):
    """``loss_a.backward(retain_graph=True); optimizer.step(); loss_b.backward()``."""
    cases = [("mlp", "sgd", "retain"), ("mlp", "momentum", "retain"), ("mlp", "adam", "retain"),
             ("linear", "sgd", "retain"), ("mlp", "sgd", "fresh_forward"),
             ("mlp", "sgd", "no_retain"), ("mlp", "sgd", "retain_float32")]
    for kind, opt, pattern in cases:
        label = f"{kind}/{opt}/{pattern}"
        dtype = lib.float32 if pattern == "retain_float32" else lib.float64
        x = randn(lib, 51, 3, 4, dtype=dtype)
        ya, yb = randn(lib, 52, 3, 2, dtype=dtype), randn(lib, 53, 3, 2, dtype=dtype)
        model = _sequential_model(lib, kind, dtype)
        optimizer = _optimizer(lib, opt, model)
        old = params(model)
        out = model(x)
        loss_a = ((out - ya) ** 2).mean()
        loss_b = ((out - yb) ** 2).mean()
        record.track(model=model).graph(loss_a, loss_b)
        optimizer.zero_grad()
        record(f"{label}: loss_a", lambda: loss_a.backward(retain_graph=pattern != "no_retain"))
        grad_a = {n: as_array(p.grad) for n, p in model.named_parameters()}
        optimizer.step()
        record.note(f"{label}: versions after step", [p._version for p in model.parameters()])
        if pattern == "fresh_forward":
            loss_b = ((model(x) - yb) ** 2).mean()
            record.graph(loss_b)
        record(f"{label}: loss_b", lambda: loss_b.backward())
        if kind == "linear":  # loss_b's gradient at the OLD weights, computed separately
            w, b = (old["0.weight"].requires_grad_(True), old["0.bias"].requires_grad_(True))
            grad_b_old = lib.autograd.grad(((lib.nn.functional.linear(x, w, b) - yb) ** 2).mean(),
                                           [w, b])
            record.note(f"{label}: grad_a", grad_a)
            record.note(f"{label}: grad_b at old weights", list(grad_b_old))


def s000_ex7_conditional(lib, record):
    """``res.mean().backward(retain_graph=True)`` only if a condition holds, then a second loss."""
    x = randn(lib, 60, 2, 4)
    weights = randn(lib, 61, 2, 5)
    for variant in ("condition_true", "condition_false", "naive", "summed"):
        model = lib.nn.Sequential(linear(lib, 4, 5, 62), lib.nn.Tanh())
        res = model(x)
        record.track(model=model).graph(res)
        if variant == "summed":
            record(variant, lambda: (res.mean() + (res * weights).sum()).backward())
            continue
        if variant != "condition_false":
            retain = variant == "condition_true"
            record(f"{variant}: res.mean()", lambda: res.mean().backward(retain_graph=retain))
        final_loss = (res * weights).sum()
        record.graph(res, final_loss)
        record(f"{variant}: final_loss", lambda: final_loss.backward())


SEVEN = [s000_ex1_multi_loss, s000_ex2_gan, s000_ex3_shared_backbone, s000_ex4_rnn_per_step,
         s000_ex5_wgan_gp, s000_ex6_sequential_opt, s000_ex7_conditional]


def run(scenario, lib, trace=False):
    """Run one scenario with one library; return its Recorder."""
    record = Recorder(lib, trace=trace)
    scenario(lib, record)
    return record
