"""Scenarios from the three source articles, written once for both libraries.

The seven scenarios a lesson also runs (multiple losses, GAN, shared backbone, RNN, WGAN-GP,
sequential optimization, conditional paths), the :class:`Recorder` and the input helpers live
in the package, ``autograd_lesson/lesson/scenarios.py`` (lesson 00b's checker runs them too);
this module adds the rest of the articles' examples, the memory meters and the audit steps.

Every ``s_*`` function takes ``lib`` (``autograd_lesson`` or ``torch``) and a :class:`Recorder`
and runs the same code with either; ``test_parity_scenarios.py`` runs each scenario with both
libraries and compares the records.
"""
import weakref

import numpy as np

from autograd_lesson.lesson.scenarios import (  # noqa: F401  (re-exported for the tests)
    FREED, INPLACE, ONCE_PER_PROCESS, SEVEN, TRIGGERED, Recorder, _CellWithOutput, _backbone,
    _custom_function_state, _gan, _is_module, _is_ours, _optimizer, _plain, _read_slot,
    _rnn_data, _sequential_model, _slot_names, _wgan_data, as_array, init_params, linear, mlp,
    params, randn, s000_ex1_multi_loss, s000_ex2_gan, s000_ex3_shared_backbone,
    s000_ex4_rnn_per_step, s000_ex5_wgan_gp, s000_ex6_sequential_opt, s000_ex7_conditional,
    run, tensor, walk)


def s000_ex5_backward_create_graph(lib, record):
    """``backward(create_graph=True)`` keeps the graph (retain defaults to create_graph) and makes
    ``x.grad`` differentiable; a second-order backward then adds into the same ``.grad``."""
    x = tensor(lib, [1.0, -0.5, 2.0], requires_grad=True)
    y = (x ** 3).sum()
    record.track(x=x).graph(y)
    record("y.backward(create_graph=True)", lambda: y.backward(create_graph=True))
    record.note("x.grad requires grad", [x.grad.requires_grad, x.grad.grad_fn is not None])
    record("y.backward() again", lambda: y.backward())
    grad = x.grad
    record("x.grad.sum().backward()", lambda: grad.sum().backward())
    record("y.backward() third time", lambda: y.backward())


def s000_ex4_rnn_variants(lib, record):
    """Truncated BPTT (``hidden.detach()``) and ``optimizer.step()`` inside the retain loop."""
    criterion = lib.nn.MSELoss()
    inputs, target = _rnn_data(lib)
    for variant in ("tbptt", "step_in_loop"):
        rnn_cell = _CellWithOutput(lib, 0)
        optimizer = lib.optim.SGD(rnn_cell.parameters(), lr=0.1)
        record.track(cell=rnn_cell.cell, readout=rnn_cell.readout)
        hidden = lib.zeros(2, 4, dtype=lib.float64)
        for t in range(4):
            if variant == "tbptt":
                hidden = hidden.detach()
            optimizer.zero_grad()
            output, hidden = rnn_cell(inputs[t], hidden)
            loss = criterion(output, target[t])
            record.graph(loss)
            ok = record(f"{variant} t={t}",
                        lambda: loss.backward(retain_graph=variant == "step_in_loop") or True,
                        count_nodes=True)
            if not ok:
                break
            optimizer.step()


def s000_ex4_rnn_literal(lib, record):
    """The seed's loop with a real ``nn.RNNCell``, which returns one tensor, not (out, h)."""
    criterion = lib.nn.MSELoss()
    for batch in (3, 1, 2):
        rnn_cell = init_params(lib, lib.nn.RNNCell(3, 4, dtype=lib.float64), 0)
        inputs, target = randn(lib, 30, 3, batch, 3), randn(lib, 31, 3, 4)
        record.track(rnn_cell=rnn_cell)
        hidden = lib.zeros(batch, 4, dtype=lib.float64)

        def loop():
            nonlocal hidden
            for t in range(3):
                output, hidden = rnn_cell(inputs[t], hidden)
                loss = criterion(output, target[t])
                loss.backward(retain_graph=True)

        record(f"batch {batch}", loop)


def _box_hooks(live=None):
    """Pack/unpack hooks that box each saved tensor, and a counter of the boxes still alive.

    Pass a list as ``live`` to get the weak references themselves (to read the live boxes)."""
    refs = [] if live is None else live

    class Box:
        def __init__(self, t):
            self.t = t.detach()  # not t itself: that would make a cycle through grad_fn

    def pack(t):
        box = Box(t)
        refs.append(weakref.ref(box))
        return box

    def count():
        return sum(r() is not None for r in refs)

    return pack, (lambda box: box.t), count


class PeakMeter:
    """Saved bytes alive through pack hooks, with their peak: ``with PeakMeter(lib) as mem:``.

    Works for torch and autograd_lesson. Each save gets a box (holding ``t.detach()``) that the
    graph owns; a weak-reference callback on the box sees the release, when backward frees the
    slot or the graph dies. Each storage counts once (the box keeps it, so its key is unique),
    and wrapped Python scalars never reach the hooks, as in ``live_saved_bytes()``."""

    class Box:
        __slots__ = ("t", "__weakref__")

        def __init__(self, t):
            self.t = t.detach()

    def __init__(self, lib):
        self.lib, self.current, self.peak = lib, 0, 0
        self._held, self._refs = {}, {}  # storage key -> [nbytes, boxes]; weakref -> key

    def _storage(self, t):
        if hasattr(t, "untyped_storage"):
            storage = t.untyped_storage()
            return storage.data_ptr(), storage.nbytes()
        return id(t._storage), t._storage.nbytes

    def pack(self, t):
        box = self.Box(t)
        key, nbytes = self._storage(t)
        self._refs[weakref.ref(box, self._released)] = key
        held = self._held.setdefault(key, [nbytes, 0])
        held[1] += 1
        if held[1] == 1:
            self.current += nbytes
            self.peak = max(self.peak, self.current)
        return box

    def _released(self, ref):
        key = self._refs.pop(ref, None)
        if key is None:
            return
        held = self._held[key]
        held[1] -= 1
        if held[1] == 0:
            del self._held[key]
            self.current -= held[0]

    def reset_peak(self):
        self.peak = self.current

    def per_step(self, loop, *args, **kwargs):
        """Run ``loop(lib, ..., on_step=...)`` under the hooks: (bytes after, peak) per step."""
        after, peaks = [], []

        def on_step():
            after.append(self.current)
            peaks.append(self.peak)
            self.reset_peak()
        with self:
            loop(self.lib, *args, on_step=on_step, **kwargs)
        return after, peaks

    def __enter__(self):
        self._hooks = self.lib.autograd.graph.saved_tensors_hooks(self.pack, lambda box: box.t)
        self._hooks.__enter__()
        return self

    def __exit__(self, *exc):
        return self._hooks.__exit__(*exc)


class CheckpointPeakMeter(PeakMeter):
    """PeakMeter, plus what a non-reentrant checkpoint holds during backward in PyTorch.

    An outer pack hook never sees a checkpointed region's tensors: the checkpoint's own hooks
    are innermost, in the forward and in the recomputation. In backward the recomputation
    stores each tensor it saves until that tensor's node unpacks it; here, for torch, the
    recomputation's pack hook and the checkpoint's unpack hook are wrapped to count exactly
    that span (autograd_lesson counts the same span through its ``SavedTensor`` registry, so
    this meter is only needed on the torch side). Storages count once, shared with PeakMeter's."""

    def __enter__(self):
        super().__enter__()
        if self.lib.__name__ == "torch":
            import torch.utils.checkpoint as ck
            self._originals = ck._recomputation_hook.__init__, ck._checkpoint_hook.__init__
            meter, (recompute_init, checkpoint_init) = self, self._originals

            def recomputation(hook, *args):
                recompute_init(hook, *args)
                pack = hook.pack_hook

                def counted_pack(x):
                    meter._hold(x)
                    return pack(x)
                hook.pack_hook = counted_pack

            def checkpoint(hook, *args):
                checkpoint_init(hook, *args)
                unpack = hook.unpack_hook

                def counted_unpack(holder):
                    x = unpack(holder)
                    meter._drop(x)
                    return x
                hook.unpack_hook = counted_unpack
            ck._recomputation_hook.__init__ = recomputation
            ck._checkpoint_hook.__init__ = checkpoint
        return self

    def __exit__(self, *exc):
        if self.lib.__name__ == "torch":
            import torch.utils.checkpoint as ck
            ck._recomputation_hook.__init__, ck._checkpoint_hook.__init__ = self._originals
        return super().__exit__(*exc)

    def _hold(self, t):
        key, nbytes = self._storage(t)
        held = self._held.setdefault(key, [nbytes, 0])
        held[1] += 1
        if held[1] == 1:
            self.current += nbytes
            self.peak = max(self.peak, self.current)

    def _drop(self, t):
        key, _ = self._storage(t)
        held = self._held[key]
        held[1] -= 1
        if held[1] == 0:
            del self._held[key]
            self.current -= held[0]


def conditional_loop(lib, retain_final, log=False, steps=6, on_step=lambda: None):
    """Lesson 07's training loop: a branch backward (retained) on even steps, then the final one."""
    nn, f32 = lib.nn, lib.float32
    model = init_params(lib, nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 5), nn.Tanh()),
                        14)
    history = []
    for step in range(steps):
        x, weights = randn(lib, 100 + step, 2, 4, dtype=f32), randn(lib, 200 + step, 2, 5, dtype=f32)
        res = model(x)
        if step % 2 == 0:
            res.mean().backward(retain_graph=True)
        final_loss = (res * weights).sum()
        final_loss.backward(retain_graph=retain_final)
        history += [final_loss] if log else []
        on_step()


def regression_loop(lib, retain, steps=6, on_step=lambda: None):
    """Lesson 08's experiment 1: Linear(10, 64), ReLU, Linear(64, 1), MSE, SGD, batches of 32."""
    f32 = lib.float32
    model = mlp(lib, [10, 64, 1], 1, dtype=f32)
    optimizer = lib.optim.SGD(model.parameters(), lr=0.01)
    total = 0.0
    for step in range(steps):
        x, y = randn(lib, 300 + step, 32, 10, dtype=f32), randn(lib, 400 + step, 32, 1, dtype=f32)
        optimizer.zero_grad()
        loss = lib.nn.functional.mse_loss(model(x), y)
        loss.backward(retain_graph=retain)
        optimizer.step()
        total += loss.item()
        on_step()


def s000_sec4_memory(lib, record):
    """Live saved tensors across 6 iterations: one graph with a fresh forward, growing with
    ``total = total + loss`` or an un-detached recurrent state."""
    x, y = randn(lib, 70, 3, 4), randn(lib, 71, 3, 1)
    for variant in ("fresh_forward", "total_plus_loss", "recurrent_state"):
        model = mlp(lib, [4, 5, 1], 72)
        record.track(model=model).graph()  # hold no graph: that would keep buffers alive
        pack, unpack, count = _box_hooks()
        total, state, counts = 0, None, []
        with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
            for i in range(6):
                inp = x if state is None else x + state.mean()
                out = model(inp)
                if variant == "recurrent_state":
                    state = out
                loss = lib.nn.functional.mse_loss(out, y)
                if variant == "total_plus_loss":
                    total = total + loss
                record(f"{variant}: backward {i}", lambda: loss.backward(retain_graph=True))
                counts.append(count())
        record.note(f"{variant}: live saved tensors", counts)
        del loss, out, total, state, inp
        record.note(f"{variant}: after dropping all references", count())


# == seed 001 ====================================================================================

def _abcde(lib):
    a = lib.autograd.Variable(tensor(lib, [[0.1, 0.2, 0.3, 0.4]]), requires_grad=True)
    b = a ** 2
    c = b * 2
    d = c.mean()
    e = c.sum()
    return a, d, e


def s001_abcde(lib, record):
    """a -> b -> c -> (d, e): e.backward() after d.backward() needs retain; typo; gradient."""
    for variant in ("naive", "retain"):
        a, d, e = _abcde(lib)
        record.track(a=a).graph(d, e)
        record(f"{variant}: d.backward", lambda: d.backward(retain_graph=variant == "retain"))
        record(f"{variant}: e.backward", lambda: e.backward())
    a, d, e = _abcde(lib)
    record.track(a=a).graph(d, e)
    record.note("Variable is a leaf", [a.is_leaf, a.requires_grad, type(a).__name__])
    record("gradient [1.]", lambda: d.backward(lib.tensor([1.0], dtype=lib.float64)))
    record("retrain_graph typo", lambda: d.backward(retrain_graph=True))
    record("gradient tensor(1.)", lambda: d.backward(lib.tensor(1.0, dtype=lib.float64)))
    record("e after d", lambda: e.backward())


def _multitask(lib):
    trunk = mlp(lib, [3, 4], 80)
    head1 = lib.nn.Sequential(lib.nn.ReLU(), linear(lib, 4, 2, 81))
    head2 = lib.nn.Sequential(lib.nn.Tanh(), linear(lib, 4, 1, 82))
    x, y1, y2 = randn(lib, 83, 5, 3), randn(lib, 84, 5, 2), randn(lib, 85, 5, 1)
    features = trunk(x)
    loss1 = lib.nn.functional.mse_loss(head1(features), y1)
    loss2 = lib.nn.functional.mse_loss(head2(features), y2)
    return (trunk, head1, head2), loss1, loss2


def s001_multitask_branches(lib, record):
    """Order of the two branch backward calls does not matter; grads add; naive fails part-way."""
    for variant in ("loss1_then_loss2", "loss2_then_loss1", "loss1_only", "loss2_only", "naive"):
        (trunk, head1, head2), loss1, loss2 = _multitask(lib)
        record.track(trunk=trunk, head1=head1, head2=head2).graph(loss1, loss2)
        first, second = (loss2, loss1) if variant.startswith("loss2") else (loss1, loss2)
        record(f"{variant}: first", lambda: first.backward(retain_graph=variant != "naive"))
        if not variant.endswith("only"):
            record(f"{variant}: second", lambda: second.backward())


def s001_partial_accumulation(lib, record):
    """A failed backward is not atomic: leaves reached before the failure keep their grads."""
    for order in ("w_branch_after_a", "w_branch_before_a"):
        x = tensor(lib, [1.0, 2.0, 3.0], requires_grad=True)
        w = tensor(lib, [0.5, -0.5, 1.0], requires_grad=True)
        if order == "w_branch_after_a":
            a = x * 2
            w_branch = w * 3
        else:
            w_branch = w * 3
            a = x * 2
        loss = (a + w_branch).sum()
        record.track(x=x, w=w).graph(a, loss)
        record(f"{order}: a.sum()", lambda: a.sum().backward())
        record(f"{order}: loss", lambda: loss.backward())


# == seed 002 ====================================================================================

def s002_ex1_basic_backward(lib, record):
    """``y = x + 2; z = y * y * 3; out = z.mean()``: x.grad = 4.5; a second backward fails."""
    x = lib.ones(2, 2, dtype=lib.float64, requires_grad=True)
    y = x + 2
    z = y * y * 3
    out = z.mean()
    record.note("out", out)
    record.track(x=x).graph(out)
    record("out.backward", lambda: out.backward())
    record("out.backward again", lambda: out.backward())


def _dataset(lib, n_batches=3):
    rs = np.random.RandomState(90)
    return [(tensor(lib, rs.randn(4, 10)), tensor(lib, rs.randn(4, 1) * 3))
            for _ in range(n_batches)]


def s002_ex2_zero_grad(lib, record):
    """The training loop with and without ``zero_grad`` (which sets ``.grad`` to None)."""
    criterion = lib.nn.MSELoss()
    for variant in ("zero_grad", "no_zero_grad", "set_to_none_false"):
        model = linear(lib, 10, 1, 91)
        optimizer = lib.optim.SGD(model.parameters(), lr=0.01)
        record.track(model=model)
        norms = []
        for i, (data, target) in enumerate(_dataset(lib)):
            if variant == "zero_grad":
                optimizer.zero_grad()
                record.note(f"{variant} {i}: grad after zero_grad", model.weight.grad)
            elif variant == "set_to_none_false":
                optimizer.zero_grad(set_to_none=False)
                record.note(f"{variant} {i}: grad after zero_grad", model.weight.grad)
            output = model(data)
            loss = criterion(output, target)
            record.graph(loss)
            record(f"{variant} {i}: backward", lambda: loss.backward())
            norms.append(float(sum((p.grad ** 2).sum() for p in model.parameters()) ** 0.5))
            optimizer.step()
        record.note(f"{variant}: grad norms before each step", norms)
        record.note(f"{variant}: versions", [p._version for p in model.parameters()])
    model = linear(lib, 10, 1, 91)
    record.note("module.zero_grad on fresh model", model.zero_grad() or model.weight.grad)


def s002_ex3_two_losses(lib, record):
    """loss1/loss2 need retain only when pred1 and pred2 share graph nodes."""
    x, t1, t2 = randn(lib, 100, 4, 3), randn(lib, 101, 4, 2), randn(lib, 102, 4, 2)
    criterion1, criterion2 = lib.nn.MSELoss(), lib.nn.MSELoss()
    for variant in ("shared_no_retain", "shared_retain", "independent_no_retain"):
        if variant.startswith("shared"):
            model = mlp(lib, [3, 4, 2], 103, act="tanh")
            hidden = model[:2](x)
            pred1, pred2 = model[2](hidden), model[2](hidden) * 2
            models = dict(model=model)
        else:
            m1, m2 = mlp(lib, [3, 4, 2], 103), mlp(lib, [3, 4, 2], 104)
            pred1, pred2 = m1(x), m2(x)
            models = dict(m1=m1, m2=m2)
        loss1, loss2 = criterion1(pred1, t1), criterion2(pred2, t2)
        record.track(**models).graph(loss1, loss2)
        record(f"{variant}: loss1", lambda: loss1.backward(retain_graph=variant == "shared_retain"))
        record(f"{variant}: loss2", lambda: loss2.backward())


def s002_ex4_detach(lib, record):
    """``detach()`` stops the gradient into part 1 (grads stay None) and shares the version."""
    x, target = randn(lib, 110, 4, 3), randn(lib, 111, 4, 1)
    criterion = lib.nn.MSELoss()
    model_part1 = lib.nn.Sequential(linear(lib, 3, 4, 112), lib.nn.ReLU())
    model_part2 = linear(lib, 4, 1, 113)
    optimizer = lib.optim.SGD(list(model_part1.parameters()) + list(model_part2.parameters()),
                              lr=0.1)
    before = params(model_part1)
    intermediate = model_part1(x)
    detached_val = intermediate.detach()
    output = model_part2(detached_val)
    loss = criterion(output, target)
    record.track(part1=model_part1, part2=model_part2).graph(intermediate, loss)
    record("loss.backward", lambda: loss.backward())
    optimizer.step()
    record.note("part1 unchanged", [bool((before[n] == p).all()) for n, p in
                                    model_part1.named_parameters()])
    record.note("shares version", [detached_val._version, intermediate._version])
    detached_val.add_(1)
    record.note("after detached.add_(1)", [detached_val._version, intermediate._version])
    record("intermediate.sum().backward", lambda: intermediate.sum().backward())


def s002_ex5_nonscalar_backward(lib, record):
    """A non-scalar ``y`` needs ``y.backward(v)``; the implicit gradient is refused."""
    x = randn(lib, 120, 3, requires_grad=True)
    y = x * 2
    v = tensor(lib, [0.1, 1.0, 0.0001])
    record.track(x=x).graph(y)
    record("y.backward()", lambda: y.backward())
    record("y.backward(v)", lambda: y.backward(v))
    record("y.backward(v) again", lambda: y.backward(v))
    record("wrong shape", lambda: (x * 1).backward(tensor(lib, [1.0, 2.0])))
    x32 = randn(lib, 120, 3, requires_grad=True, dtype=lib.float32)
    y32 = x32 * 2
    record.track(x32=x32).graph(y32)
    record("float64 v for a float32 y", lambda: y32.backward(v))
    record.note("grad dtype", x32.grad.dtype)


def s002_ex6_clip_grad_norm(lib, record):
    """``clip_grad_norm_`` returns the pre-clip total norm as a 0-dim tensor and scales in place."""
    model = linear(lib, 5, 3, 130)
    x, target = randn(lib, 131, 4, 5), randn(lib, 132, 4, 3) * 10
    record.note("no grads", lib.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0))
    loss = lib.nn.functional.mse_loss(model(x), target)
    record.track(model=model).graph(loss)
    record("loss.backward", lambda: loss.backward())
    total = lib.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    record.note("returned norm", [total, total.dim(), total.dtype])
    record.note("norm after clip", sum((p.grad ** 2).sum() for p in model.parameters()) ** 0.5)
    record.note("grad versions", [p.grad._version for p in model.parameters()])


def my_relu_function(lib):
    """Seed 002 ex7's custom Function, built on ``lib`` (shared by the tests that use it)."""
    class MyReLU(lib.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            ctx.save_for_backward(input)
            return input.clamp(min=0)

        @staticmethod
        def backward(ctx, grad_output):
            input, = ctx.saved_tensors
            grad_input = grad_output.clone()
            grad_input[input < 0] = 0
            return grad_input
    return MyReLU


def square_function(lib):
    """A minimal custom Function (x * x, saving x), built on ``lib``."""
    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 2 * x * grad
    return Square


def s002_ex7_custom_function(lib, record):
    """The seed's MyReLU (``grad_input[input < 0] = 0``) passes the gradient at 0; relu does not."""

    MyReLU = my_relu_function(lib)
    values = [-1.5, -0.0, 0.0, 0.7, 2.0]
    for name in ("MyReLU", "relu", "clamp"):
        x = tensor(lib, values, requires_grad=True)
        fn = {"MyReLU": MyReLU.apply, "relu": lib.relu, "clamp": lambda t: t.clamp(min=0)}[name]
        output = fn(x)
        record.note(f"{name}: node", [output.grad_fn.name(), type(output.grad_fn).__name__])
        record.track(x=x).graph(output)
        record(f"{name}: backward", lambda: output.sum().backward())
        record(f"{name}: backward again", lambda: output.sum().backward())
    x = tensor(lib, values, requires_grad=True)
    output = MyReLU.apply(x)
    record.note("saved_tensors[0] is input", output.grad_fn.saved_tensors[0] is x)


# == optimizers ===================================================================================

def s_optimizer_steps(lib, record):
    """Three steps of each optimizer: values, one ``_version`` bump per updated parameter, params
    without a grad skipped (unchanged, not bumped), ``zero_grad`` to None or to zeros."""
    configs = {"sgd": lambda ps: lib.optim.SGD(ps, lr=0.1),
               "sgd_momentum_wd": lambda ps: lib.optim.SGD(ps, lr=0.1, momentum=0.9,
                                                           weight_decay=0.01),
               "sgd_nesterov_dampening0": lambda ps: lib.optim.SGD(ps, lr=0.1, momentum=0.5,
                                                                   nesterov=True),
               "sgd_dampening_maximize": lambda ps: lib.optim.SGD(ps, lr=0.1, momentum=0.5,
                                                                  dampening=0.3, maximize=True),
               "adam": lambda ps: lib.optim.Adam(ps, lr=0.1),
               "adam_wd_maximize": lambda ps: lib.optim.Adam(ps, lr=0.05, betas=(0.8, 0.9),
                                                             weight_decay=0.1, maximize=True)}
    x, y = randn(lib, 140, 5, 3), randn(lib, 141, 5, 2)
    for name, make in configs.items():
        used, unused = linear(lib, 3, 2, 142), linear(lib, 3, 2, 143)
        optimizer = make(list(used.parameters()) + list(unused.parameters()))
        record.track(used=used, unused=unused)
        for step in range(3):
            optimizer.zero_grad(set_to_none=step != 2)
            record.note(f"{name} {step}: grads after zero_grad",
                        [p.grad for p in used.parameters()])
            loss = lib.nn.functional.mse_loss(used(x), y)
            record.graph(loss)
            record(f"{name} {step}: backward", lambda: loss.backward())
            record.note(f"{name} {step}: grad versions",
                        [p.grad._version for p in used.parameters()])
            optimizer.step()
            record.note(f"{name} {step}: params", [params(used), params(unused)])
            record.note(f"{name} {step}: versions",
                        [[p._version for p in m.parameters()] for m in (used, unused)])
        used.zero_grad(set_to_none=False)
        record.note(f"{name}: module.zero_grad(set_to_none=False)",
                    [[p.grad, p.grad._version] for p in used.parameters()])
        used.zero_grad()
        record.note(f"{name}: module.zero_grad()", [p.grad for p in used.parameters()])


# == graphs without tensor saves ==================================================================

def s_sum_only_graphs(lib, record):
    """add / sum / mean / view / t / neg save no tensor: backward repeats and x.grad accumulates."""
    graphs = {
        "(x+1).sum()": lambda x: (x + 1).sum(),
        "x.mean()": lambda x: x.mean(),
        "x.view(-1).sum()": lambda x: x.view(-1).sum(),
        "(-x.t()).sum() + x.sum(1).mean()": lambda x: (-x.t()).sum() + x.sum(1).mean(),
        "(x * 1).sum()": lambda x: (x * 1).sum(),
    }
    for name, build in graphs.items():
        x = lib.zeros(2, 3, dtype=lib.float64, requires_grad=True)
        out = build(x)
        record.track(x=x).graph(out)
        for i in range(3):
            record(f"{name} #{i + 1}", lambda: out.backward())


SCENARIOS = [
    s000_ex1_multi_loss, s000_ex2_gan, s000_ex3_shared_backbone, s000_ex4_rnn_per_step,
    s000_ex4_rnn_variants, s000_ex4_rnn_literal, s000_ex5_wgan_gp, s000_ex5_backward_create_graph,
    s000_ex6_sequential_opt,
    s000_ex7_conditional, s000_sec4_memory,
    s001_abcde, s001_multitask_branches, s001_partial_accumulation,
    s002_ex1_basic_backward, s002_ex2_zero_grad, s002_ex3_two_losses, s002_ex4_detach,
    s002_ex5_nonscalar_backward, s002_ex6_clip_grad_norm, s002_ex7_custom_function,
    s_optimizer_steps, s_sum_only_graphs,
]


# == lesson.audit: a wrong and a fixed training step per scenario ================================
# Each ``audit_<scenario>(lib, variant)`` builds its model and data once and returns ``step()``,
# one code path for either library; ``AUDIT_STEPS`` lists, per scenario, the variants and the
# finding kinds ``lesson.audit`` must report for each ("fixed": none).

def audit_multi_loss(lib, variant):
    """Lesson 01: two losses on ``y = x * 2``. wrong: ``loss1.backward(); loss2.backward()``
    (the second finds the graph freed); retain: ``retain_graph=True`` runs ``y``'s node twice."""
    x = tensor(lib, [0.5, -1.0, 2.0, 0.0, 1.5], requires_grad=True)

    def step():
        y = x * 2
        loss1, loss2 = y.sum(), (y ** 2).sum()
        if variant == "fixed":
            (loss1 + loss2).backward()
        else:
            loss1.backward(retain_graph=variant == "retain")
            loss2.backward()
    return step


def audit_gan(lib, variant):
    """Lesson 02: D's step on ``fake`` without ``detach`` runs through G; with
    ``retain_graph=True`` (wrong) G's step runs G a second time, without it (naive) G's step
    finds G's graph freed. fixed: ``D(fake.detach())``."""
    G, D, real, z = _gan(lib)
    bce = lib.nn.BCELoss()
    optD, optG = lib.optim.SGD(D.parameters(), lr=0.1), lib.optim.Adam(G.parameters(), lr=0.01)
    ones, zeros = lib.ones(4, 1, dtype=lib.float64), lib.zeros(4, 1, dtype=lib.float64)

    def step():
        fake = G(z)
        optD.zero_grad()
        d_loss = bce(D(real), ones) + bce(D(fake.detach() if variant == "fixed" else fake), zeros)
        d_loss.backward(retain_graph=variant == "wrong")
        optD.step()
        optG.zero_grad()
        g_loss = bce(D(fake), ones)
        g_loss.backward()
        optG.step()
    return step


def audit_shared_backbone(lib, variant):
    """Lesson 03: two heads on one trunk. wrong: ``loss1.backward(retain_graph=True);
    loss2.backward()`` runs the trunk twice. fixed: ``(loss1 + loss2).backward()``."""
    backbone, head1, head2 = _backbone(lib)
    criterion = lib.nn.MSELoss()
    inputs, labels1, labels2 = randn(lib, 10, 6, 4), randn(lib, 11, 6, 2), randn(lib, 12, 6, 3)
    optimizer = lib.optim.SGD([p for m in (backbone, head1, head2) for p in m.parameters()],
                              lr=0.1)

    def step():
        optimizer.zero_grad()
        features = backbone(inputs)
        loss1, loss2 = criterion(head1(features), labels1), criterion(head2(features), labels2)
        if variant == "fixed":
            (loss1 + loss2).backward()
        else:
            loss1.backward(retain_graph=True)
            loss2.backward()
        optimizer.step()
    return step


def audit_rnn(lib, variant):
    """Lesson 04: truncated BPTT, one chunk of 3 time steps per call (gradients accumulate; the
    optimizer steps elsewhere, except in "optimizer"). The hidden state is carried to the next
    call: without ``detach`` the next backward reaches into this call's graph, which it finds
    freed (naive) or, with ``retain_graph=True`` (wrong), keeps every chunk's graph alive; with
    an ``optimizer.step()`` in the step too, the old graph's saved weights are stale."""
    cell = _CellWithOutput(lib, 0)
    criterion = lib.nn.MSELoss()
    inputs, target = _rnn_data(lib, seq_len=3)
    optimizer = lib.optim.SGD(cell.parameters(), lr=0.1)
    state = {"hidden": lib.zeros(2, 4, dtype=lib.float64)}

    def step():
        hidden = state["hidden"].detach() if variant == "fixed" else state["hidden"]
        loss = 0
        for t in range(3):
            output, hidden = cell(inputs[t], hidden)
            loss = loss + criterion(output, target[t])
        loss.backward(retain_graph=variant in ("wrong", "optimizer"))
        if variant == "optimizer":
            optimizer.step()
        state["hidden"] = hidden
    return step


def audit_wgan_gp(lib, variant):
    """Lesson 05: the gradient penalty's double backward (``autograd.grad(create_graph=True)``,
    then a backward through the gradient) is what it must be, in every variant. wrong: the
    penalty's own ``backward(retain_graph=True)`` keeps a graph the critic's backward never
    uses. seed: the article's ``create_graph=True, retain_graph=True`` (redundant, harmless)."""
    D = mlp(lib, [2, 4, 1], 3, act="leaky")
    optimizer = lib.optim.Adam(D.parameters(), lr=0.01)
    real, fake = randn(lib, 40, 4, 2), randn(lib, 41, 4, 2)
    alpha = tensor(lib, np.random.RandomState(42).rand(4, 1))

    def step():
        optimizer.zero_grad()
        interpolated = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
        prob = D(interpolated)
        gradients, = lib.autograd.grad(prob, interpolated, lib.ones_like(prob),
                                       create_graph=True, retain_graph=variant == "seed" or None)
        gp = ((gradients.norm(2, dim=1) - 1) ** 2).mean()
        critic = D(fake).mean() - D(real).mean()
        if variant == "wrong":
            (10 * gp).backward(retain_graph=True)
            critic.backward()
        else:
            (critic + 10 * gp).backward()
        optimizer.step()
    return step


def audit_sequential_opt(lib, variant):
    """Lesson 06: wrong: ``loss_a.backward(retain_graph=True); optimizer.step();
    loss_b.backward()`` (the step modified weights the retained graph saved). fixed: a fresh
    forward for ``loss_b`` after the step."""
    model = _sequential_model(lib, "mlp")
    optimizer = lib.optim.SGD(model.parameters(), lr=0.1)
    x, ya, yb = randn(lib, 51, 3, 4), randn(lib, 52, 3, 2), randn(lib, 53, 3, 2)

    def step():
        optimizer.zero_grad()
        out = model(x)
        loss_a = ((out - ya) ** 2).mean()
        loss_a.backward(retain_graph=variant == "wrong")
        optimizer.step()
        optimizer.zero_grad()
        loss_b = ((out if variant == "wrong" else model(x)) - yb).pow(2).mean()
        loss_b.backward()
        optimizer.step()
    return step


def audit_conditional(lib, variant):
    """Lesson 07: a branch loss only when a condition holds, then the final loss. wrong: the
    branch's ``backward(retain_graph=True)`` runs the model twice and the final backward keeps
    its graph "just in case"; final_retain: the branch is not taken, only the final retain is
    wrong. fixed: add the branch loss to the final one, one backward."""
    model = lib.nn.Sequential(linear(lib, 4, 5, 62), lib.nn.Tanh())
    optimizer = lib.optim.SGD(model.parameters(), lr=0.1)
    x, weights = randn(lib, 60, 2, 4), randn(lib, 61, 2, 5)
    branch = variant != "final_retain"

    def step():
        optimizer.zero_grad()
        res = model(x)
        final_loss = (res * weights).sum()
        if variant == "fixed":
            (final_loss + res.mean() if branch else final_loss).backward()
        else:
            if branch:
                res.mean().backward(retain_graph=True)
            final_loss.backward(retain_graph=True)
        optimizer.step()
    return step


def audit_running_total(lib, variant):
    """Lesson 08: logging ``total = total + loss`` keeps every step's graph (wrong; with
    retain_graph=True on top, every step's buffers too: retain). fixed: ``loss.item()``."""
    model = mlp(lib, [4, 5, 1], 72)
    optimizer = lib.optim.SGD(model.parameters(), lr=0.1)
    x, y = randn(lib, 70, 3, 4), randn(lib, 71, 3, 1)
    state = {"total": 0.0}

    def step():
        optimizer.zero_grad()
        loss = lib.nn.functional.mse_loss(model(x), y)
        loss.backward(retain_graph=variant == "retain")
        optimizer.step()
        state["total"] = state["total"] + (loss.item() if variant == "fixed" else loss)
    return step


AUDIT_STEPS = {  # scenario -> {variant: the finding kinds lesson.audit reports, in order}
    "multi_loss": (audit_multi_loss, {"wrong": ["freed-reuse"], "retain": ["double-traversal"],
                                      "fixed": []}),
    "gan": (audit_gan, {"wrong": ["double-traversal"], "naive": ["freed-reuse"], "fixed": []}),
    "shared_backbone": (audit_shared_backbone, {"wrong": ["double-traversal"], "fixed": []}),
    "rnn": (audit_rnn, {"wrong": ["graph-grows"], "naive": ["freed-reuse"],
                        "optimizer": ["stale-saved"], "fixed": []}),
    "wgan_gp": (audit_wgan_gp, {"wrong": ["unused-retain"], "seed": [], "fixed": []}),
    "sequential_opt": (audit_sequential_opt, {"wrong": ["stale-saved"], "fixed": []}),
    "conditional": (audit_conditional, {"wrong": ["unused-retain", "double-traversal"],
                                        "final_retain": ["unused-retain"], "fixed": []}),
    "running_total": (audit_running_total, {"wrong": ["graph-grows"],
                                            "retain": ["unused-retain", "graph-grows"],
                                            "fixed": []}),
}
