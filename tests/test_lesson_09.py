"""The claims of notebooks/09_saving_memory.ipynb, checked in autograd_lesson and in torch.

The notebook's code is repeated here for both libraries (float32, as in the notebook; values from
NumPy seeds so both libraries compute the same numbers). Peaks: autograd_lesson with
``track_saved_bytes()``, as the notebook; torch with ``scenarios.CheckpointPeakMeter``: a
pack-hook meter (each storage once) that also counts what a non-reentrant checkpoint holds from
recomputation to unpack, which no outer hook can see. The last tests tie the notebook's
committed outputs to the numbers torch gives here.
"""
import pathlib
import re
import warnings

import nbformat
import numpy as np
import pytest

import autograd_lesson as al
import scenarios as S
from autograd_lesson.viz.timeline import live_saved_bytes, track_saved_bytes

pytestmark = pytest.mark.parity
NOTEBOOK = pathlib.Path(__file__).parent.parent / "notebooks" / "09_saving_memory.ipynb"


class Lesson:
    """The notebook's data, models and training-step patterns, for one library."""

    def __init__(self, lib):
        self.lib, self.F, self.log = lib, lib.nn.functional, []
        self.x = S.randn(lib, 90, 32, 16, dtype=lib.float32)
        self.y = S.randn(lib, 91, 32, 4, dtype=lib.float32)
        self.checkpoint = lib.utils.checkpoint.checkpoint

    def mlp(self):
        nn, log = self.lib.nn, self.log

        class Block(nn.Module):
            def __init__(self, name, n_in, n_out):
                super().__init__()
                self.name, self.linear, self.runs = name, nn.Linear(n_in, n_out), 0

            def forward(self, h):
                self.runs += 1
                log.append(self.name)
                return self.linear(h).relu()

        class MLP(nn.Module):
            def __init__(self):
                super().__init__()
                self.b1, self.b2 = Block("b1", 16, 64), Block("b2", 64, 64)
                self.b3 = Block("b3", 64, 64)
                self.head = nn.Linear(64, 4)
                self.blocks = [self.b1, self.b2, self.b3]

            def forward(self, h):
                return self.head(self.b3(self.b2(self.b1(h))))
        return S.init_params(self.lib, MLP(), 92)

    def deep(self):
        nn = self.lib.nn

        class Deep(nn.Module):
            def __init__(self):
                super().__init__()
                self.first = nn.Sequential(nn.Linear(16, 64), nn.ReLU())
                self.middle = nn.Sequential(*[nn.Sequential(nn.Linear(64, 64), nn.ReLU())
                                              for _ in range(4)])
                self.last = nn.Linear(64, 4)

            def forward(self, h):
                return self.last(self.middle(self.first(h)))
        return S.init_params(self.lib, Deep(), 93)

    # -- the patterns (one training step each, returning the loss) ------------------------------
    def plain(self, model):
        loss = self.F.mse_loss(model(self.x), self.y)
        loss.backward()
        return loss

    def retain(self, model):
        loss = self.F.mse_loss(model(self.x), self.y)
        loss.backward(retain_graph=True)
        return loss

    def by_hand(self, model):
        with self.lib.no_grad():
            hs = [self.x]
            for block in model.blocks:
                hs.append(block(hs[-1]))
        h = hs.pop().requires_grad_()
        loss = self.F.mse_loss(model.head(h), self.y)
        loss.backward()
        for block in reversed(model.blocks):
            grad, h = h.grad, hs.pop()
            block(h.requires_grad_() if hs else h).backward(grad)
        return loss

    def checkpointed_forward(self, model):
        h = self.x
        for block in model.blocks:
            h = self.checkpoint(block, h, use_reentrant=False)
        return self.F.mse_loss(model.head(h), self.y)

    def checkpointed(self, model):
        loss = self.checkpointed_forward(model)
        loss.backward()
        return loss

    def offloaded(self, model):
        with self.lib.autograd.graph.save_on_cpu():
            loss = self.F.mse_loss(model(self.x), self.y)
        loss.backward()
        return loss

    def offloaded_copies(self, model):
        with self.lib.autograd.graph.save_on_cpu(pin_memory=True):
            loss = self.F.mse_loss(model(self.x), self.y)
        loss.backward()
        return loss

    def half(self, model):
        with half_hooks(self.lib):
            loss = self.F.mse_loss(model(self.x), self.y)
        loss.backward()
        return loss


PATTERNS = {"plain backward": "plain", "retain_graph=True": "retain",
            "recompute by hand": "by_hand", "checkpoint": "checkpointed",
            "save_on_cpu()": "offloaded", "float16 hooks": "half"}
PINNED = "save_on_cpu(pin_memory=True)"  # shown in its own cell, not in the summary table


class HooksMeter(S.PeakMeter):
    """torch: the pattern's own saved-tensor hooks (``save_on_cpu()``, the float16 pair) inside a
    box, counting the storage of the tensor each pack keeps. The pattern's hooks must be the
    innermost, so the meter runs them instead of the pattern entering them itself."""

    class Box:
        __slots__ = ("packed", "__weakref__")

        def __init__(self, packed):
            self.packed = packed

    def __init__(self, lib, hooks):
        super().__init__(lib)
        self.hooks = hooks

    def pack(self, t):
        box = self.Box(self.hooks.pack_hook(t))
        kept = box.packed[1] if isinstance(box.packed, tuple) else box.packed
        key, nbytes = self._storage(kept)
        self._refs[S.weakref.ref(box, self._released)] = key
        held = self._held.setdefault(key, [nbytes, 0])
        held[1] += 1
        if held[1] == 1:
            self.current += nbytes
            self.peak = max(self.peak, self.current)
        return box

    def __enter__(self):
        self._hooks = self.lib.autograd.graph.saved_tensors_hooks(
            self.pack, lambda box: self.hooks.unpack_hook(box.packed))
        self._hooks.__enter__()
        return self


def half_hooks(lib):
    return lib.autograd.graph.saved_tensors_hooks(lambda t: t.detach().to(lib.float16),
                                                  lambda t: t.to(lib.float32))


def measure(lib, name):
    """The notebook's ``measure``: two steps; peak and end counted from the start; runs; grads."""
    lesson = Lesson(lib)
    model, step = lesson.mlp(), getattr(lesson, {**PATTERNS, PINNED: "offloaded_copies"}[name])
    if lib is al:
        meter = track_saved_bytes()
    elif name in ("save_on_cpu()", PINNED, "float16 hooks"):
        hooks = {"save_on_cpu()": lambda: lib.autograd.graph.save_on_cpu(),
                 PINNED: lambda: lib.autograd.graph.save_on_cpu(pin_memory=True),
                 "float16 hooks": lambda: half_hooks(lib)}[name]()
        meter, step = HooksMeter(lib, hooks), lesson.plain
    else:
        meter = S.CheckpointPeakMeter(lib)
    with meter:
        for _ in range(2):
            loss = step(model)
    if lib is al:
        peak, end = meter.peak - meter.start, meter.end - meter.start
    else:
        peak, end = meter.peak, meter.current  # the last loss still holds its graph, as in ours
    del loss
    grads = [S.as_array(p.grad) for p in model.parameters()]
    return {"peak": peak, "end": end, "runs": [b.runs for b in model.blocks], "grads": grads}


@pytest.fixture(scope="module")
def measured(torch):
    return {name: {"ours": measure(al, name), "torch": measure(torch, name)} for name in PATTERNS}


# -- the table ----------------------------------------------------------------------------------
EXPECTED = {  # pattern: (peak, end, runs per block); the notebook prints these
    "plain backward": (61_440, 0, [2, 2, 2]),
    "retain_graph=True": (86_528, 61_440, [2, 2, 2]),
    "recompute by hand": (32_768, 0, [4, 4, 4]),
    "checkpoint": (43_008, 0, [4, 4, 4]),
    "save_on_cpu()": (61_440, 0, [2, 2, 2]),
    "float16 hooks": (43_008, 0, [2, 2, 2]),
}


@pytest.mark.parametrize("name", list(PATTERNS))
def test_pattern_peak_end_and_runs_match_torch(measured, name):
    ours, theirs = measured[name]["ours"], measured[name]["torch"]
    assert [ours[k] for k in ("peak", "end", "runs")] == [theirs[k] for k in ("peak", "end", "runs")]
    assert (theirs["peak"], theirs["end"], theirs["runs"]) == EXPECTED[name]


@pytest.mark.parametrize("name", list(PATTERNS))
def test_pattern_gradients(measured, name):
    """Same gradients in both libraries; every pattern but float16 equals the plain backward in
    torch too; float16's differ, by less than 1e-2."""
    ours, theirs = measured[name]["ours"]["grads"], measured[name]["torch"]["grads"]
    assert all(np.allclose(a, b, atol=1e-5) for a, b in zip(ours, theirs))
    plain = measured["plain backward"]["torch"]["grads"]
    diff = max(np.abs(a - b).max() for a, b in zip(theirs, plain))
    if name == "float16 hooks":
        assert 0 < diff < 1e-2
    else:
        assert diff < 1e-6


def test_retain_peak_is_two_graphs_sharing_weights(measured):
    """86,528 = 61,440 + the 25,088 B that only the graph holds (weights, x and y count once)."""
    assert EXPECTED["retain_graph=True"][0] == 61_440 + 25_088


def test_plain_ledger_total_and_split(torch):
    """After one forward: 61,440 B saved; 36,352 B of it are storages you hold anyway (views of
    the weights of b2, b3 and the head, x and y), 25,088 B exist only for the graph."""
    for lib in (al, torch):
        lesson = Lesson(lib)
        model = lesson.mlp()
        with S.PeakMeter(lib) as meter:
            loss = lib.nn.functional.mse_loss(model(lesson.x), lesson.y)
        assert meter.current == 61_440
        del loss
    shared = (64 * 64 * 2 + 64 * 4 + 32 * 16 + 32 * 4) * 4
    assert shared == 36_352 and 61_440 - shared == 25_088


def test_checkpointed_forward_what_an_outer_hook_sees(torch):
    """The checkpoints' inputs (x, b1's and b2's outputs) and what the head and loss save:
    28,672 B in both libraries; in ours the ledger total is 10,240 B (the head and loss)."""
    from autograd_lesson.viz.snapshot import take_snapshot
    shapes = {}
    for lib in (al, torch):
        lesson, seen = Lesson(lib), []
        model = lesson.mlp()
        with S.PeakMeter(lib) as meter, lib.autograd.graph.saved_tensors_hooks(
                lambda t: seen.append(tuple(t.shape)) or meter.pack(t), lambda box: box.t):
            loss = lesson.checkpointed_forward(model)
        shapes[lib.__name__] = seen
        assert meter.current == 28_672
        if lib is al:
            assert take_snapshot([loss]).total_bytes == 10_240
    assert shapes["autograd_lesson"] == shapes["torch"]
    assert sorted(shapes["torch"]) == sorted([(32, 16), (32, 64), (32, 64),   # the inputs
                                              (32, 64), (64, 4), (32, 4), (32, 4)])


def test_checkpoint_adds_no_node(torch):
    for lib in (al, torch):
        lesson = Lesson(lib)
        plain = [n.name() for n in S.walk([lib.nn.functional.mse_loss(lesson.mlp()(lesson.x),
                                                                       lesson.y)])[0]]
        ckpt = [n.name() for n in S.walk([lesson.checkpointed_forward(lesson.mlp())])[0]]
        assert ckpt == plain


def test_recompute_order(torch):
    logs = []
    for lib in (al, torch):
        lesson = Lesson(lib)
        loss = lesson.checkpointed_forward(lesson.mlp())
        forward = list(lesson.log)
        loss.backward()
        logs.append((forward, lesson.log))
    assert logs[0] == logs[1] == (["b1", "b2", "b3"], ["b1", "b2", "b3", "b3", "b2", "b1"])


def test_second_backward_through_a_checkpoint_raises(torch):
    for lib in (al, torch):
        lesson = Lesson(lib)
        model = lesson.mlp()
        h = lesson.checkpoint(model.b1, lesson.x, use_reentrant=False)
        loss = lib.nn.functional.mse_loss(model.head(model.b3(model.b2(h))), lesson.y)
        loss.backward()
        with pytest.raises(RuntimeError, match=re.escape(S.FREED[:60])):
            loss.backward()


def test_reentrant_warnings_and_no_gradient_for_the_weights(torch):
    out = []
    for lib in (al, torch):
        lesson = Lesson(lib)
        model = lesson.mlp()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            h1 = lesson.checkpoint(model.b1, lesson.x)
            h2 = lesson.checkpoint(model.b2, model.b1(lesson.x))
        first = [str(w.message).split(". ")[0] for w in caught]
        lib.nn.functional.mse_loss(model.head(model.b3(model.b2(h1))), lesson.y).backward()
        out.append((first, h1.requires_grad, h1.grad_fn, h2.grad_fn.name(),
                    model.b1.linear.weight.grad is None, model.b2.linear.weight.grad is None))
    assert out[0] == out[1]
    assert out[1] == (["torch.utils.checkpoint: the use_reentrant parameter should be passed "
                       "explicitly", "None of the inputs have requires_grad=True",
                       "torch.utils.checkpoint: the use_reentrant parameter should be passed "
                       "explicitly"], False, None, "CheckpointFunctionBackward", True, False)


def test_save_on_cpu_keeps_the_tensor_itself_on_cpu(torch):
    t = torch.randn(3, requires_grad=True)
    device, packed = torch.autograd.graph.save_on_cpu().pack_hook(t)
    assert packed is t and str(device) == "cpu"


def test_save_on_cpu_copies_once_per_save(torch):
    """l09-pinned: with pin_memory=True (a copy per save, as from a GPU) the 12 saves of one step
    are 12 copies, 86,016 B, against the ledger's 61,440 B; the peak over two steps is that. Of
    the originals, only the activations (25,088 B) lived in the graph alone: the rest (the
    weights, x and y, 36,352 B) stays wherever it was."""
    from torch.multiprocessing.reductions import StorageWeakRef
    for lib in (al, torch):
        r = measure(lib, PINNED)
        assert (r["peak"], r["end"], r["runs"]) == (86_016, 0, [2, 2, 2])
    lesson = Lesson(torch)
    model = lesson.mlp()
    offload = torch.autograd.graph.save_on_cpu(pin_memory=True)
    copies, originals = [], {}

    def pack(t):
        packed = offload.pack_hook(t)
        storage = packed[1].untyped_storage()
        copies.append((packed[1], storage.data_ptr() != t.untyped_storage().data_ptr()))
        originals.setdefault(t.untyped_storage().data_ptr(),
                             (StorageWeakRef(t.untyped_storage()), t.untyped_storage().nbytes()))
        return packed
    with torch.autograd.graph.saved_tensors_hooks(pack, offload.unpack_hook):
        loss = torch.nn.functional.mse_loss(model(lesson.x), lesson.y)
    assert len(copies) == 12 and sum(c.nbytes for c, _ in copies) == 86_016
    assert len({c.untyped_storage().data_ptr() for c, _ in copies}) == 12
    assert all(elsewhere for _, elsewhere in copies)  # each a copy, none the tensor itself
    assert sum(n for _, n in originals.values()) == 61_440
    freed = sum(n for ref, n in originals.values() if ref.expired())
    assert (freed, 61_440 - freed) == (25_088, 36_352)
    del loss


def test_the_pinned_cell_and_its_text():
    out, text = _outputs(), _sources()
    assert out["l09-pinned"] == ("save_on_cpu(pin_memory=True): peak 86,016 B, end 0 B, "
                                 "block runs [2, 2, 2]\n")
    after = " ".join(text["l09-pinned-after"].split())
    for fact in ("86,016 B, more than the 61,440 B", "12 copies", "25,088 B"):
        assert fact in after, fact
    assert "would drop by these bytes" not in text["l09-half-md"]


def _storage_kept(torch, build, hooks, backward):
    """Whether the storage of the tensor ``build`` returns outlives every Python reference."""
    import gc
    from torch.multiprocessing.reductions import StorageWeakRef
    x, w = torch.randn(4, 3), torch.randn(3, 5, requires_grad=True)
    with hooks():
        h, loss = build(torch, x, w)
    ref = StorageWeakRef(h.untyped_storage())
    if backward is not None:
        loss.backward(retain_graph=backward == "retain")
    del h, loss
    gc.collect()
    return not ref.expired()


def _relu(torch, x, w):
    h = torch.relu(x @ w)
    return h, h.sum()


def _exp(torch, x, w):
    h = torch.exp(x @ w)
    return h, h.sum()


def _square(torch, x, w):  # h * h saves its inputs, not its output
    h = x @ w
    return h, (h * h).sum()


@pytest.mark.parametrize("hooks", ["keep t", "save_on_cpu()", "keep t.detach()",
                                   "save_on_cpu(pin_memory=True)"])
@pytest.mark.parametrize("build", [_relu, _exp, _square], ids=["relu", "exp", "h*h"])
def test_a_hook_keeping_t_itself_loops_only_through_a_saved_output(torch, hooks, build):
    """l09-half-after: a hook that returns t itself (save_on_cpu() on a CPU does) keeps a graph
    whose node saved its own output alive after its last reference, through gc.collect(), and
    with retain_graph=True too; a backward without retain frees it. Saved inputs make no loop,
    nor does a copy or t.detach()."""
    make = {"keep t": lambda: torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t),
            "save_on_cpu()": lambda: torch.autograd.graph.save_on_cpu(),
            "keep t.detach()": lambda: torch.autograd.graph.saved_tensors_hooks(
                lambda t: t.detach(), lambda t: t),
            "save_on_cpu(pin_memory=True)": lambda: torch.autograd.graph.save_on_cpu(
                pin_memory=True)}[hooks]
    loops = hooks in ("keep t", "save_on_cpu()") and build is not _square
    assert _storage_kept(torch, build, make, None) == loops
    assert _storage_kept(torch, build, make, "retain") == loops
    assert _storage_kept(torch, build, make, "plain") is False


def test_hooks_skip_the_version_check(torch):
    """A tensor stored by a (float16) hook: an in-place change after the forward is not caught."""
    for lib in (al, torch):
        w = S.randn(lib, 94, 3, dtype=lib.float32, requires_grad=True)
        a = S.randn(lib, 95, 3, dtype=lib.float32, requires_grad=True) * 1
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t.detach().to(lib.float16),
                                                    lambda t: t.to(lib.float32)):
            y = (a * w).sum()
        with lib.no_grad():
            a.mul_(2)
        y.backward()  # no error
        assert w.grad is not None


# -- the exercises ------------------------------------------------------------------------------
def test_exercise_1_three_runs_per_block(torch):
    for lib in (al, torch):
        lesson = Lesson(lib)
        model = lesson.mlp()
        loss = lesson.checkpointed_forward(model)
        loss.backward(retain_graph=True)
        loss.backward()
        assert [b.runs for b in model.blocks] == [3, 3, 3]


def _deep_peak(lib, how):
    lesson = Lesson(lib)
    model, ck = lesson.deep(), lesson.checkpoint

    def forward(inp):
        if how == "plain":
            return model(inp)
        if how == "whole middle":
            return model.last(ck(model.middle, model.first(inp), use_reentrant=False))
        h = model.first(inp)
        blocks = list(model.middle)
        n = 3 if how == "three of four" else 4
        for block in blocks[:n]:
            h = ck(block, h, use_reentrant=False)
        for block in blocks[n:]:
            h = block(h)
        return model.last(h)

    if lib is al:
        with track_saved_bytes() as mem:
            lesson.F.mse_loss(forward(lesson.x), lesson.y).backward()
        return mem.peak - mem.start, [S.as_array(p.grad) for p in model.parameters()]
    with S.CheckpointPeakMeter(lib) as meter:
        lesson.F.mse_loss(forward(lesson.x), lesson.y).backward()
    return meter.peak, [S.as_array(p.grad) for p in model.parameters()]


@pytest.mark.parametrize("how, peak", [("plain", 110_592), ("whole middle", 108_544),
                                       ("three of four", 61_440), ("each block", 59_392)])
def test_exercise_2_peaks(torch, how, peak):
    """Only checkpointing each middle block gets below 60,000 B; one checkpoint around the whole
    middle recomputes all of it at once and saves almost nothing. Gradients equal the plain."""
    ours, theirs = _deep_peak(al, how), _deep_peak(torch, how)
    assert ours[0] == theirs[0] == peak
    plain = _deep_peak(torch, "plain")[1]
    assert all(np.allclose(a, b, atol=1e-5) for a, b in zip(ours[1], theirs[1]))
    assert all(np.allclose(a, b, atol=1e-6) for a, b in zip(theirs[1], plain))
    assert (peak < 60_000) == (how == "each block")


# -- the committed notebook ---------------------------------------------------------------------
def _outputs():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    return {c.id: "".join(o.get("text", "") for o in c.outputs if o.get("output_type") == "stream")
            for c in nb.cells if c.cell_type == "code"}


def _sources():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    return {c.id: c.source for c in nb.cells}


def test_notebook_summary_table_is_torchs(measured):
    table = _outputs()["l09-summary"]
    for name in PATTERNS:
        row = next(line for line in table.splitlines() if line.startswith(name))
        numbers = [int(n.replace(",", "")) for n in re.findall(r"[\d,]+(?= B)", row)]
        runs = re.search(r"\[[\d, ]+\]", row).group(0)
        theirs = measured[name]["torch"]
        assert numbers == [theirs["peak"], theirs["end"]], row
        assert runs == str(theirs["runs"]), row


def test_notebook_numbers_in_text():
    out = _outputs()
    assert ("saved buffers hold 61,440 B: 25,088 B only in the graph, 36,352 B shared"
            in out["l09-plain-graph"])
    assert "saved buffers hold 10,240 B" in out["l09-ckpt-graph"]
    assert "live_saved_bytes() grew by 28,672 B" in out["l09-ckpt-graph"]
    assert "✓ correct: peak 59,392 B, below 60,000 B, same gradients." in out["09-deep-check"]
    assert out["l09-when"].splitlines() == [
        "after the forward:  ['b1', 'b2', 'b3']",
        "after the backward: ['b1', 'b2', 'b3', 'b3', 'b2', 'b1']"]


def test_plain_forward_saves_no_first_layer_weight(torch):
    """The same saves in both libraries, and no (64, 16) weight: x needs no gradient."""
    seen = {}
    for lib in (al, torch):
        lesson, shapes = Lesson(lib), []
        model = lesson.mlp()
        with lib.autograd.graph.saved_tensors_hooks(lambda t: shapes.append(tuple(t.shape)) or t,
                                                    lambda t: t):
            lib.nn.functional.mse_loss(model(lesson.x), lesson.y)
        seen[lib.__name__] = shapes
    assert seen["autograd_lesson"] == seen["torch"]
    assert (16, 64) not in seen["torch"] and (64, 16) not in seen["torch"]


@pytest.mark.parametrize("call", ["grad", "inputs"])
def test_reentrant_refuses_grad_and_inputs(torch, call):
    messages = []
    for lib in (al, torch):
        lesson = Lesson(lib)
        model = lesson.mlp()
        h = lesson.checkpoint(model.b2, model.b1(lesson.x), use_reentrant=True)
        loss = lib.nn.functional.mse_loss(model.head(model.b3(h)), lesson.y)
        with pytest.raises(RuntimeError) as info:
            if call == "grad":
                lib.autograd.grad(loss, [model.b1.linear.weight])  # through the checkpoint
            else:
                loss.backward(inputs=[model.b1.linear.weight])
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    assert messages[1].startswith("When use_reentrant=True, torch.utils.checkpoint is incompatible")
