"""Introspection: ``saved_buffers()``, ``_saved_*`` unpacking, the event stream, saved-tensor hooks.

The rule checked throughout: looking (listing buffers, observing events) never changes what the
engine does and never keeps a released buffer alive.
"""
import gc
import weakref

import numpy as np
import pytest

import autograd_lesson as al
from autograd_lesson.autograd import graph as G
import scenarios


def leaf(lib, values=(1.0, 2.0, 3.0), dtype=None):
    return lib.tensor(list(values), dtype=dtype, requires_grad=True)


def states(node):
    return {b.slot: b.state for b in node.saved_buffers()}


# -- saved_buffers() -------------------------------------------------------------------------

def test_saved_buffers_describe_each_slot():
    x, w = leaf(al), leaf(al, (4.0, 5.0, 6.0))
    node = (x * w).grad_fn
    buffers = {b.slot: b for b in node.saved_buffers()}
    assert set(buffers) == {"self", "other"}
    for b in buffers.values():
        assert b.shape == (3,) and b.dtype == np.float32 and b.nbytes == 12
        assert b.state == "alive" and b.saved_version == b.current_version == 0
    assert buffers["self"].tensor_ref() is x and buffers["other"].tensor_ref() is w


@pytest.mark.parity
@pytest.mark.parametrize("expr", ["x * w", "x * t", "t * x", "x * 2", "x / w", "x.exp()",
                                  "x ** 2", "x.relu()", "x.sum()", "(x + w).mean()"])
def test_saved_slots_match_torch(torch, expr):
    """A slot is listed exactly when torch's node holds a tensor there (``_saved_X`` not None)."""
    def slots(lib):
        x, w = leaf(lib), leaf(lib, (4.0, 5.0, 6.0))
        t = lib.tensor([7.0, 8.0, 9.0])
        node = eval(expr).grad_fn
        if lib is al:
            return sorted(b.slot for b in node.saved_buffers())
        names = [n[len("_raw_saved_"):] for n in dir(node) if n.startswith("_raw_saved_")]
        return sorted(n for n in names if getattr(node, "_saved_" + n) is not None)
    assert slots(al) == slots(torch)


def test_states_alive_retained_freed():
    x = leaf(al)
    y = x.exp()
    loss = y.sum()
    assert states(y.grad_fn) == {"result": "alive"}
    loss.backward(retain_graph=True)
    assert states(y.grad_fn) == {"result": "retained"}
    loss.backward()
    assert states(y.grad_fn) == {"result": "freed"}
    assert y.grad_fn.saved_buffers()[0].released


def test_state_stale_after_in_place_change():
    x = leaf(al)
    a = x * 1
    b = a.log()
    buffer = b.grad_fn.saved_buffers()[0]
    a.mul_(2)
    assert buffer.state == "stale"
    assert (buffer.saved_version, buffer.current_version) == (0, 1)


@pytest.mark.parametrize("hooks", ["identity", "allow_mutation"])
def test_a_save_packed_by_a_hook_is_never_stale_as_torch_skips_its_version_check(torch, hooks):
    """torch unpacks a hook-packed save through the hook, without a version check: the change
    raises nothing, so the buffer must not read 'stale' (backward will raise)."""
    found = {}
    for lib in (al, torch):
        context = (lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t)
                   if hooks == "identity" else lib.autograd.graph.allow_mutation_on_saved_tensors())
        with context:
            x = leaf(lib)
            a = x * 1
            b = a.log()
            a.mul_(2)
            if lib is al:
                assert states(b.grad_fn) == {"self": "alive"}
            b.sum().backward()
            found[lib.__name__] = x.grad.tolist()
    assert found["autograd_lesson"] == found["torch"]


def test_buffer_records_are_weak():
    x = leaf(al)
    buffers = x.exp().grad_fn.saved_buffers()  # the node is dropped right away
    gc.collect()
    assert buffers[0].node_ref() is None
    assert buffers[0].state == "freed"


@pytest.mark.parity
def test_non_tensor_saves_readable_after_free(torch):
    def saves(lib):
        x = lib.tensor(np.ones((3, 4)), requires_grad=True)
        y, z = x.sum(), (x * 2.5).mean(dim=1)
        a = x + x
        (y + z.sum() + a.sum()).backward()
        mean = z.grad_fn
        return (y.grad_fn._saved_self_sym_sizes, mean._saved_dim, mean._saved_keepdim,
                mean._saved_self_sym_numel, a.grad_fn._saved_alpha)
    ours, theirs = saves(al), saves(torch)
    assert ours == theirs == ((3, 4), (1,), False, 12, 1)


@pytest.mark.parity
def test_skipped_conditional_save_reads_none_before_and_after_free(torch):
    def run(lib):
        x, t = leaf(lib), lib.tensor([1.0, 2.0, 3.0])
        y = x * t                      # `self` is saved only if `other` requires grad
        before = y.grad_fn._saved_self
        y.sum().backward()
        return before, y.grad_fn._saved_self
    assert run(al) == run(torch) == (None, None)


@pytest.mark.parity
def test_raw_saved_scalar_survives_free(torch):
    def run(lib):
        y = leaf(lib) * 2
        value = y.grad_fn._saved_other
        y.sum().backward()
        raw = y.grad_fn._raw_saved_other  # still an object after the free ...
        with pytest.raises(RuntimeError, match="second time"):
            y.grad_fn._saved_other        # ... but unpacking it raises
        return type(raw).__name__, value.item(), str(value.dtype).replace("torch.", "")
    assert run(al) == run(torch) == ("SavedTensor", 2, "int64")


# -- unpacking: identity and storage ---------------------------------------------------------

@pytest.mark.parity
def test_saved_result_unpacks_to_new_object_sharing_storage(torch):
    def run(lib):
        y = leaf(lib).exp()
        r = y.grad_fn._saved_result
        if lib is torch:
            shares = r.data_ptr() == y.data_ptr()
        else:
            shares = r._storage is y._storage and np.shares_memory(r._data, y._data)
        return r is y, shares, r.grad_fn is y.grad_fn, r.requires_grad
    assert run(al) == run(torch) == (False, True, True, True)


@pytest.mark.parity
def test_saved_inputs_unpack_to_same_object(torch):
    def run(lib):
        x, w = leaf(lib), leaf(lib, (4.0, 5.0, 6.0))
        a = x * 1.0
        b = a * w
        return (b.grad_fn._saved_self is a, b.grad_fn._saved_other is w,
                (x * w).grad_fn._saved_self is x)
    assert run(al) == run(torch) == (True, True, True)


# -- the event stream ------------------------------------------------------------------------

def record(fn):
    events = []
    with G.observe(events.append):
        fn()
    return events


def summary(events):
    out = []
    for e in events:
        name = type(e).__name__
        node = getattr(e, "node", None)
        out.append(name if node is None else f"{name}:{node.name()}")
    return out


def test_event_stream_order():
    x = leaf(al)
    loss = x.exp().sum()
    events = record(loss.backward)
    assert summary(events) == [
        "BackwardStarted",
        "NodeStarted:SumBackward0", "NodeFinished:SumBackward0",
        "NodeStarted:ExpBackward0", "BuffersReleased:ExpBackward0", "NodeFinished:ExpBackward0",
        "NodeStarted:torch::autograd::AccumulateGrad",
        "GradAccumulated:torch::autograd::AccumulateGrad",
        "NodeFinished:torch::autograd::AccumulateGrad",
        "BackwardFinished",
    ]
    released = next(e for e in events if isinstance(e, G.BuffersReleased))
    assert released.slots == ("result",)
    accumulated = next(e for e in events if isinstance(e, G.GradAccumulated))
    assert accumulated.tensor is x and accumulated.grad is x.grad
    assert events[0].retain_graph is False and events[-1].error is None


def test_event_stream_retained_graph_releases_nothing():
    loss = leaf(al).exp().sum()
    events = record(lambda: loss.backward(retain_graph=True))
    assert not [e for e in events if isinstance(e, G.BuffersReleased)]
    assert events[0].retain_graph is True


def test_event_stream_reports_failure():
    loss = leaf(al).exp().sum()
    loss.backward()
    events = record(lambda: pytest.raises(RuntimeError, loss.backward))
    assert isinstance(events[-1], G.BackwardFinished)
    assert isinstance(events[-1].error, RuntimeError)
    assert events[-1].failed_node.name() == "ExpBackward0"


def test_register_observer_handle_removes():
    events = []
    handle = G.register_observer(events.append)
    leaf(al).exp().sum().backward()
    handle.remove()
    count = len(events)
    leaf(al).exp().sum().backward()
    assert count > 0 and len(events) == count


def test_observing_changes_no_outcome():
    def run(observe):
        x, w = leaf(al, dtype=al.float64), leaf(al, (0.5, -1.0, 2.0), dtype=al.float64)
        h = (x * w).tanh()
        loss = (h * h + x.exp()).sum()
        nodes = [h.grad_fn, loss.grad_fn]
        if observe:
            record(lambda: loss.backward(retain_graph=True))
        else:
            loss.backward(retain_graph=True)
        return x.grad.tolist(), w.grad.tolist(), [states(n) for n in nodes]
    assert run(False) == run(True)


# -- nothing keeps a released buffer alive ---------------------------------------------------

def test_introspection_and_observer_keep_no_released_buffer_alive():
    x = al.tensor(np.ones((4, 3), dtype=np.float32))
    w = leaf(al, np.ones((3, 5)).tolist())
    loss = (x @ w).relu().sum()       # the ReLU output is graph-only: nobody else holds it
    relu = loss.grad_fn.next_functions[0][0]
    buffers = relu.saved_buffers()
    array_ref = weakref.ref(relu._raw_saved_result.array)
    storage_ref = buffers[0].storage_ref
    assert storage_ref() is not None and array_ref() is not None
    events = record(loss.backward)
    snapshot = [(b.slot, b.state) for b in relu.saved_buffers()]
    gc.collect()
    assert snapshot == [("result", "freed")]
    assert storage_ref() is None and array_ref() is None
    assert len(events) > 0 and buffers[0].state == "freed"  # records and events still held


def test_retained_buffer_dies_with_its_graph():
    x = al.tensor(np.ones((4, 3), dtype=np.float32))
    w = leaf(al, np.ones((3, 5)).tolist())
    loss = (x @ w).relu().sum()
    relu = loss.grad_fn.next_functions[0][0]
    buffers = relu.saved_buffers()
    loss.backward(retain_graph=True)
    assert buffers[0].state == "retained" and buffers[0].storage_ref() is not None
    del loss, relu
    gc.collect()
    assert buffers[0].storage_ref() is None and buffers[0].state == "freed"


# -- saved_tensors_hooks ---------------------------------------------------------------------

make_square = scenarios.square_function


GRAPHS = {
    "x*2": lambda lib, x, w: x * 2,
    "x*w": lambda lib, x, w: x * w,
    "x*2.5+w": lambda lib, x, w: x * 2.5 + w,
    "exp": lambda lib, x, w: x.exp(),
    "relu(x*w)": lambda lib, x, w: (x * w).relu(),
    "x/w": lambda lib, x, w: x / w,
    "x**2": lambda lib, x, w: x ** 2,
    "x.pow(w)": lambda lib, x, w: x.pow(w),
    "matmul": lambda lib, x, w: x.reshape(1, 3) @ w.reshape(3, 1),
    "softmax": lambda lib, x, w: x.reshape(1, 3).softmax(dim=1),
    "custom": lambda lib, x, w: make_square(lib).apply(x),
}


@pytest.mark.parity
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_pack_unpack_call_counts_match_torch(torch, name):
    def counts(lib):
        calls = {"pack": 0, "unpack": 0}

        def pack(t):
            calls["pack"] += 1
            return t

        def unpack(t):
            calls["unpack"] += 1
            return t

        x, w = leaf(lib), leaf(lib, (4.0, 5.0, 6.0))
        with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
            out = GRAPHS[name](lib, x, w)
        packed = calls["pack"]
        out.sum().backward()
        return packed, calls["unpack"], np.round(x.grad.tolist(), 4).tolist()
    assert counts(al) == counts(torch)


def test_wrapped_scalar_is_not_packed():
    calls = []
    x = leaf(al)
    with G.saved_tensors_hooks(lambda t: calls.append(t) or t, lambda t: t):
        y = x * 2
    assert calls == [] and y.grad_fn._saved_other.item() == 2


def mlp_memory(lib, input_requires_grad, retain=False):
    """Pack-hook bookkeeping for the facts file's MLP; storages tracked by weak reference only."""
    lib.manual_seed(0)
    net = lib.nn.Sequential(lib.nn.Linear(20, 64), lib.nn.ReLU(), lib.nn.Linear(64, 64),
                            lib.nn.ReLU(), lib.nn.Linear(64, 10))
    rs = np.random.RandomState(0)
    x = lib.tensor(rs.randn(32, 20).astype(np.float32), requires_grad=input_requires_grad)
    target = lib.tensor(rs.randint(0, 10, size=32))
    packs, storages = [], {}

    def pack(t):
        packs.append(t.numel() * t.element_size())
        if lib is al:
            key, nbytes, alive = id(t._storage), t._storage.nbytes, weakref.ref(t._storage)
            storages.setdefault(key, (nbytes, lambda ref=alive: ref() is not None))
        else:
            from torch.multiprocessing.reductions import StorageWeakRef
            s = t.untyped_storage()
            ref = StorageWeakRef(s)
            storages.setdefault(s.data_ptr(), (s.nbytes(), lambda ref=ref: not ref.expired()))
        return t.detach()  # storing t itself would make a cycle through a saved output

    with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        loss = lib.nn.functional.cross_entropy(net(x), target)
    loss.backward(retain_graph=retain)
    gc.collect()
    freed = [nbytes for nbytes, alive in storages.values() if not alive()]
    after_del = None
    if retain:
        del loss
        gc.collect()
        after_del = len([1 for _, alive in storages.values() if not alive()])
    return (len(packs), sum(packs), len(storages), sum(n for n, _ in storages.values()),
            len(freed), sum(freed), after_del)


@pytest.mark.parity
@pytest.mark.parametrize("input_requires_grad, expected", [
    (False, (11, 57_092, 8, 39_428)),
    (True, (12, 62_212, 9, 44_548)),
])
def test_mlp_saved_memory_matches_facts_and_torch(torch, input_requires_grad, expected):
    ours, theirs = mlp_memory(al, input_requires_grad), mlp_memory(torch, input_requires_grad)
    assert ours[:4] == theirs[:4] == expected
    # After backward the graph-only buffers die: both ReLU outputs, log_softmax, total_weight.
    assert ours[4:6] == theirs[4:6] == (4, 17_668)


@pytest.mark.parity
def test_mlp_retained_buffers_live_until_graph_dropped(torch):
    ours, theirs = mlp_memory(al, False, retain=True), mlp_memory(torch, False, retain=True)
    assert ours[4:] == theirs[4:] == (0, 0, 4)
