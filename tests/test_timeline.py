"""viz.timeline: live saved bytes and their peak through a block (``track_saved_bytes``).

The peak is compared with PyTorch's, measured by ``saved_tensors_hooks`` boxes whose release a
weak-reference callback sees, each storage once (``scenarios.PeakMeter``).
"""
import gc
import weakref

import numpy as np
import pytest

import autograd_lesson as al
from autograd_lesson.viz.timeline import live_saved_bytes, track_saved_bytes
from scenarios import PeakMeter, conditional_loop, regression_loop

# (loop, peak with a final retain_graph=True, peak without), in bytes, as torch 2.13 measures them
LOOPS = [(conditional_loop, 512, 336), (regression_loop, 19_712, 9_984)]


def tracked(fn):
    base = baseline()  # garbage from earlier tests must not die inside the block
    with track_saved_bytes() as mem:
        fn()
    mem.start, mem.peak, mem.end = mem.start - base, mem.peak - base, mem.end - base
    return mem


def baseline():
    """Saved bytes other tests left alive (module fixtures hold graphs): the tests count above it."""
    gc.collect()
    return live_saved_bytes()


def test_start_current_and_end_agree_with_live_saved_bytes():
    base = baseline()
    w = al.tensor(np.ones((3, 3), np.float32), requires_grad=True)
    kept = (al.ones(2, 3) @ w).tanh().sum()  # alive before the block: part of start
    with track_saved_bytes() as mem:
        assert mem.start == mem.current == live_saved_bytes() == base + 48  # x, tanh's result
        loss = (al.ones(2, 3) @ w).tanh().sum()
        assert mem.current == live_saved_bytes() == base + 96
        loss.backward()
        assert mem.current == live_saved_bytes() == base + 48
        kept.backward(retain_graph=True)
        assert mem.current == base + 48
        del kept
        assert mem.current == live_saved_bytes() == base
    assert (mem.start - base, mem.peak - base, mem.end - base) == (48, 96, 0)
    assert repr(mem).startswith("SavedBytesTracker(start=")


def test_storages_count_once_and_wrapped_scalars_not_at_all():
    base = baseline()
    x = al.ones(4, 8, requires_grad=True)
    with track_saved_bytes() as mem:
        h = x.relu()
        out = (h * 2) @ h.t()  # ReLU's result and mm's view of it: one storage; the 2: none
        assert sum(b.nbytes for n in (h.grad_fn, out.grad_fn) for b in n.saved_buffers()) == 384
        assert mem.current == live_saved_bytes() == base + 2 * 128  # h, h * 2 (float32[4, 8])
        del h, out
    assert mem.end == base and mem.peak == base + 256


@pytest.mark.parity
@pytest.mark.parametrize("loop, with_retain, without", LOOPS, ids=["lesson_07", "lesson_08"])
def test_peak_with_and_without_a_final_retain_matches_torch(torch, loop, with_retain, without):
    for retain, expected in ((True, with_retain), (False, without)):
        with PeakMeter(torch) as theirs:
            loop(torch, retain)
        with PeakMeter(al) as hooks:
            loop(al, retain)
        ours = tracked(lambda: loop(al, retain))
        assert (ours.peak, hooks.peak, theirs.peak) == (expected,) * 3, retain
        assert ours.start == ours.end == theirs.current == 0


def test_release_of_a_collected_graph_is_seen():
    """A graph that dies in a reference cycle is released when the collector runs."""
    base = baseline()
    with track_saved_bytes() as mem:
        loss = (al.ones(2, 3, requires_grad=True) * al.ones(2, 3)).exp().sum()
        loss.backward(retain_graph=True)
        holder = [loss]
        holder.append(holder)  # a cycle: reference counting alone cannot free it
        del loss, holder
        assert mem.current > base
        gc.collect()
        assert mem.current == live_saved_bytes() == base


def test_tracking_keeps_nothing_alive():
    base = baseline()
    with track_saved_bytes() as mem:
        x = al.ones(3, 3, requires_grad=True)
        y = x.exp()
        storage = weakref.ref(y._storage)
        node = weakref.ref(y.grad_fn)
        saved = weakref.ref(y.grad_fn._raw_saved_result)
        y.sum().backward(retain_graph=True)
        del y
        assert storage() is None and node() is None and saved() is None
        assert mem.current == base
    assert mem.peak == base + 36 and mem.end == base


def test_nothing_tracks_outside_the_block():
    from autograd_lesson.extensions.saved_meters import listeners as _saved_listeners
    with track_saved_bytes() as mem:
        assert _saved_listeners == [mem]
    assert _saved_listeners == []
    before = (mem.peak, mem.current)
    loss = al.ones(5, requires_grad=True).exp().sum()
    assert (mem.peak, mem.current) == before and not mem._slots
    del loss
