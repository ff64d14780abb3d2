"""``autograd.graph.allow_mutation_on_saved_tensors``, against PyTorch 2.13: each snippet runs in
both libraries (values, gradients, how many saves were cloned, errors word for word).

PyTorch finds the saves an in-place write must clone by (data pointer, version): a write
through a view at another offset clones nothing, and the backward then silently reads the new
values. The package does the same, so the lesson can show it.
"""
import gc

import pytest

import autograd_lesson as al
from autograd_lesson.viz.timeline import live_saved_bytes, track_saved_bytes
from autograd_lesson.viz.ledger import ledger
from autograd_lesson.viz.snapshot import take_snapshot
from snippets import cases, run


def ledger_text(out, b):
    return ledger(take_snapshot([out], names={"b": b, "out": out}))

AMST = "lib.autograd.graph.allow_mutation_on_saved_tensors"
SNIPPETS = {
    # PyTorch's docstring example: b changes after (b**2) saved it; the gradient uses the old b
    "docstring example": f"""
with {AMST}() as ctx:
    a = lib.ones(2, 3, requires_grad=True)
    b = a.clone()
    out = (b ** 2).sum()
    b.sin_()
    counts = (len(ctx.cloned), len(ctx.original), len(ctx.tid_to_weakhandle), len(ctx.sid_to_tid),
              [t.numel() * t.element_size() for t in ctx.cloned.values()])
    out.backward()
    after = (len(ctx.cloned), len(ctx.original), len(ctx.tid_to_weakhandle))
out = (a.grad, b, b._version, counts, after, b.grad_fn.name())
""",
    "without it: the version error": """
a = lib.ones(2, requires_grad=True)
b = a.clone()
out = (b ** 2).sum()
b.sin_()
out.backward()
""",
    "saved twice (b * b): one clone": f"""
with {AMST}() as ctx:
    a = lib.ones(3, requires_grad=True)
    b = a.clone()
    out = (b * b).sum()
    n = len(ctx.original)
    b.mul_(3)
    out.backward()
    out = (a.grad, n, len(ctx.cloned))
""",
    "mutated twice: cloned once": f"""
with {AMST}() as ctx:
    a = lib.tensor([1., 2.], requires_grad=True)
    b = a.clone()
    out = (b * b).sum()
    b.mul_(2); b.mul_(3)
    n = (len(ctx.cloned), len(ctx.original))
    out.backward()
    out = (a.grad, n)
""",
    "a saved output (exp)": f"""
with {AMST}() as ctx:
    a = lib.tensor([0., 1.], requires_grad=True)
    b = a.exp()
    out = b.sin().sum()
    n = (len(ctx.tid_to_weakhandle), len(ctx.sid_to_tid))
    b.mul_(2)
    out.backward()
    out = (a.grad, n, len(ctx.cloned))
""",
    "the unpacked save after the mutation": f"""
with {AMST}() as ctx:
    a = lib.ones(2, requires_grad=True)
    b = a.clone()
    out = (b * b).sum()
    node = out.grad_fn.next_functions[0][0]
    before = node._saved_self is b
    b.mul_(2)
    s = node._saved_self
    out = (before, s, s is b, s._version, s.grad_fn.name(), s.requires_grad)
""",
    # PyTorch matches a write to the saves by (data pointer, version)
    "write through a view at offset 0: cloned": f"""
with {AMST}() as ctx:
    a = lib.ones(4, requires_grad=True)
    b = a.clone()
    out = (b * b).sum()
    b[:2].mul_(3)
    out.backward()
    out = (a.grad, len(ctx.cloned))
""",
    "write through a view at another offset: not cloned": f"""
with {AMST}() as ctx:
    a = lib.ones(4, requires_grad=True)
    b = a.clone()
    out = (b * b).sum()
    b[1:].mul_(3)
    out.backward()
    out = (a.grad, len(ctx.cloned))
""",
    "a saved view at another offset: not cloned": f"""
with {AMST}() as ctx:
    a = lib.ones(4, requires_grad=True)
    b = a.clone()
    v = b[1:]
    out = (v * v).sum()
    b.mul_(3)
    out.backward()
    out = (a.grad, len(ctx.cloned))
""",
    "setitem": f"""
with {AMST}() as ctx:
    a = lib.ones(2, requires_grad=True)
    c = a.clone()
    out = (c * c).sum()
    c[0] = 5.
    out.backward()
    out = (a.grad, len(ctx.cloned))
""",
    "through detach() and .data": f"""
with {AMST}() as ctx:
    a = lib.ones(2, requires_grad=True)
    b = a.clone(); c = a.clone()
    out = (b * b).sum() + (c * c).sum()
    b.detach().mul_(2)
    c.data.mul_(2)
    out.backward()
    out = (a.grad, len(ctx.cloned))
""",
    "a parameter stepped by SGD before the backward": f"""
with {AMST}() as ctx:
    w = lib.nn.Parameter(lib.ones(2))
    out = (w * w * lib.tensor([1., 2.])).sum()
    opt = lib.optim.SGD([w], lr=0.1)
    w.grad = lib.ones(2)
    opt.step()
    n = len(ctx.cloned)
    out.backward()
    out = (w, w.grad, n)
""",
    "fused Adam: cloned too": f"""
with {AMST}() as ctx:
    w = lib.nn.Parameter(lib.ones(2))
    out = (w * w).sum()
    opt = lib.optim.Adam([w], lr=0.1, fused=True)
    w.grad = lib.ones(2)
    opt.step()
    out = len(ctx.cloned)
""",
    "a save freed by backward is not cloned": f"""
with {AMST}() as ctx:
    a = lib.ones(2, requires_grad=True)
    b = a.clone()
    (b * b).sum().backward()
    b.mul_(2)
    out = (len(ctx.cloned), len(ctx.sid_to_tid))
""",
    "leaf in-place error still raised": f"""
with {AMST}():
    a = lib.ones(2, requires_grad=True)
    a.mul_(2)
""",
    "an inner saved_tensors_hooks wins: no check, new values": f"""
with {AMST}() as ctx:
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        a = lib.ones(2, requires_grad=True)
        b = a.clone()
        out = (b * b).sum()
    b.mul_(2)
    out.backward()
    out = (a.grad, len(ctx.original))
""",
    "an in-place write on an inference tensor": f"""
with {AMST}():
    with lib.inference_mode():
        t = lib.ones(2)
        t.add_(1)
""",
    "a retained graph used twice inside": f"""
with {AMST}() as ctx:
    a = lib.ones(2, requires_grad=True)
    b = a.clone()
    out = (b ** 3).sum()
    out.backward(retain_graph=True)
    b.add_(1)
    out.backward()
    out = a.grad
""",
    "a custom Function: save_for_backward is cloned, a ctx attribute is not": f"""
class Save(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return 2 * x * g
class Attr(lib.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.x = x
        return x * x
    @staticmethod
    def backward(ctx, g):
        return 2 * ctx.x * g
res = []
for F in (Save, Attr):
    with {AMST}() as ctx:
        a = lib.tensor([1., 2.], requires_grad=True)
        b = a.clone()
        out = F.apply(b).sum()
        b.mul_(10)
        out.backward()
        res.append((a.grad, len(ctx.cloned)))
out = res
""",
    # errors
    "backward after the context exits": f"""
with {AMST}():
    a = lib.ones(2, requires_grad=True)
    out = (a.clone() ** 2).sum()
out.backward()
""",
    "a retained graph used after the context exits": f"""
with {AMST}():
    a = lib.ones(2, requires_grad=True)
    out = (a.clone() ** 2).sum()
    out.backward(retain_graph=True)
out.backward()
""",
    "a graph recorded outside, backward inside: no clone, version error": f"""
a = lib.ones(2, requires_grad=True)
b = a.clone()
out = (b ** 2).sum()
with {AMST}():
    b.mul_(2)
    out.backward()
""",
    "nested": f"""
with {AMST}():
    with {AMST}():
        pass
""",
    # PyTorch's finally switches the outer context off as well: its graph can't backward
    "after a nested attempt the outer one is off": f"""
with {AMST}():
    try:
        with {AMST}():
            pass
    except RuntimeError as e:
        first = str(e)
    a = lib.ones(2, requires_grad=True)
    out = (a.clone() ** 2).sum()
    out.backward()
""",
}


@pytest.mark.parity
@cases(SNIPPETS)
def test_allow_mutation_on_saved_tensors(torch, source):
    assert run(al, source) == run(torch, source)


def test_the_clone_is_what_the_slot_holds_now():
    """The cost: after the write the slot keeps a copy in its own storage (the ledger stops
    showing it as b's memory) and memory meters count the copy's bytes, not b's."""
    gc.collect()  # the meters count every saved tensor in the process, other tests' too:
    before = live_saved_bytes()  # this test's bytes are counted on top of these
    with al.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
        a = al.ones(1000, requires_grad=True)
        b = a.clone()
        out = (b ** 2).sum()
        (buffer,) = out.grad_fn.next_functions[0][0].saved_buffers()
        assert buffer.storage_ref() is b._storage and buffer.nbytes == 4000
        assert "0 B only in the graph, 4,000 B shared" in ledger_text(out, b)
        with track_saved_bytes() as meter:
            b.mul_(3)
            (clone,) = ctx.cloned.values()
            (buffer,) = out.grad_fn.next_functions[0][0].saved_buffers()
            assert buffer.storage_ref() is clone._storage is not b._storage
            assert buffer.state == "alive"  # the copy has the saved values: not stale
            assert "4,000 B only in the graph, 0 B shared" in ledger_text(out, b)
            assert meter.current == meter.start == before + 4000  # the same size, the copy's
            assert sum(t.nbytes for t in ctx.cloned.values()) == 4000
            del b
            gc.collect()
            assert live_saved_bytes() == before + 4000  # the copy lives on while the graph does
        out.backward()
        assert meter.end == before + 4000 and live_saved_bytes() == before
        assert a.grad.tolist() == [2.0] * 1000
