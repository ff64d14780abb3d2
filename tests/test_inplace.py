"""In-place ops on activations and on views, against PyTorch 2.13: CopySlices and versions.

Each case runs the same code with ``lib`` = autograd_lesson or torch and notes, after every
step, the state of the tensors it names (values, ``requires_grad``, ``is_leaf``, ``_version``,
``grad_fn`` name, ``next_functions`` names, the saved slots and their non-tensor saves), and
every backward through the scenario ``Recorder`` (outcome with the exact message, ``.grad``,
slot states of the whole graph). The two records must be equal.
"""
import numpy as np
import pytest

import autograd_lesson as al
import scenarios as S
from test_parity_scenarios import differences

pytestmark = pytest.mark.parity


def _name(node):
    return None if node is None else node.name()


def state(t):
    """What a learner can read off a tensor after an in-place op."""
    fn = t.grad_fn
    out = {"values": S.as_array(t), "requires_grad": t.requires_grad, "is_leaf": t.is_leaf,
           "version": t._version, "grad_fn": _name(fn)}
    if fn is not None:
        out["next"] = [(_name(f), nr) for f, nr in fn.next_functions]
        ours = type(t).__module__.startswith("autograd_lesson")
        names = S._slot_names(al if ours else np, fn)
        out["slots"] = {s: S._read_slot(fn, s) for s in names}
        attrs = (["_saved_" + k for k in fn.saved_values()] if ours else
                 [a for a in dir(fn) if a.startswith("_saved_") and a[7:] not in names])
        out["saved_values"] = {a: S._plain(getattr(fn, a)) for a in sorted(attrs)}
    return out


def note(rec, **tensors):
    for name, t in tensors.items():
        rec.note(name, state(t))


def attempt(rec, label, fn):
    """An op that may raise: note its outcome (type and message)."""
    try:
        fn()
        rec.note(label, "ok")
    except Exception as exc:  # noqa: BLE001  (the outcome is the point)
        rec.note(label, [type(exc).__name__, str(exc)])


def x3(lib, requires_grad=True):
    return S.tensor(lib, [1.0, -2.0, 3.0], requires_grad=requires_grad)


# -- in-place on activations (not views) --------------------------------------------------------
def c_relu_inplace(lib, rec):
    x = x3(lib)
    h = x * 1
    note(rec, before=h)
    out = lib.nn.ReLU(inplace=True)(h)
    rec.note("same object", out is h)
    note(rec, after=h)
    rec.note("saved result shares memory", h.grad_fn._saved_result.data_ptr() == h.data_ptr())
    rec.note("saved result is h", h.grad_fn._saved_result is h)
    rec.track(x=x).graph(h)
    rec("backward", lambda: (h * h).sum().backward())
    rec("second backward", lambda: h.sum().backward())
    h2 = x * 1
    rec.note("F.relu inplace returns input", lib.nn.functional.relu(h2, inplace=True) is h2)
    note(rec, functional=h2)
    rec.note("repr", repr(lib.nn.ReLU(inplace=True)))


def c_residual_add(lib, rec):
    x = x3(lib)
    w = S.tensor(lib, [0.5, 0.5, 2.0], requires_grad=True)
    h = x * w
    res = x * 2
    h += res
    note(rec, h=h)
    rec.track(x=x, w=w).graph(h)
    rec("backward", lambda: h.sum().backward())
    h = x * w
    h.add_(res, alpha=3)
    note(rec, add_alpha=h)


def c_mul_by_grad_tensor(lib, rec):
    x = x3(lib)
    b = S.tensor(lib, [2.0, 3.0, 4.0], requires_grad=True)
    a = x * 1
    a.mul_(b)
    note(rec, a=a, saved_self=a.grad_fn._saved_self)
    rec.note("saved self is a", a.grad_fn._saved_self is a)
    rec.note("saved other is b", a.grad_fn._saved_other is b)
    rec.track(x=x, b=b).graph(a)
    rec("backward", lambda: a.sum().backward())
    d = x * 1
    d.div_(b)
    note(rec, div=d, div_self=d.grad_fn._saved_self)
    rec("div backward", lambda: d.sum().backward())
    c = x * 1
    c.mul_(2)
    note(rec, mul_scalar=c)
    e = x * 1
    e.mul_(e)  # only ``self`` is cloned: ``other`` is e itself, now at version 1
    note(rec, mul_itself=e)
    rec.graph(e)
    rec("mul_ by itself", lambda: e.sum().backward())


@pytest.mark.parametrize("op", ["exp_", "sigmoid_", "tanh_", "relu_", "sqrt_", "neg_", "abs_",
                                "clamp_", "log_", "reciprocal_", "zero_", "fill_", "pow_"])
def test_unary_inplace(torch, op):
    def case(lib, rec):
        x = x3(lib)
        a = x * 1 + 3.5
        args = {"clamp_": (0.6, 4.0), "fill_": (2.0,), "pow_": (2,)}.get(op, ())
        out = getattr(a, op)(*args)
        rec.note("returns self", out is a)
        note(rec, a=a)
        rec.track(x=x).graph(a)
        rec("backward", lambda: (a * a).sum().backward())
        rec("again", lambda: (a * a).sum().backward())
        b = x * 1 + 3.5
        getattr(b, op)(*args)
        b.mul_(2)  # the saved result (or nothing) is now stale
        note(rec, b=b)
        rec.graph(b)
        rec("after a second in-place op", lambda: b.sum().backward())
    compare(case, torch)


def c_version_errors(lib, rec):
    x = x3(lib)
    for label, make in [
        ("sigmoid then mul_", lambda: x.sigmoid().mul_(2)),
        ("sigmoid then ReLU(inplace)", lambda: lib.nn.ReLU(inplace=True)(lib.sigmoid(x))),
        ("relu then +=", lambda: (x * 1).relu().add_(x)),
        ("exp_ twice", lambda: (x * 1).exp_().exp_()),
        ("tanh then exp_", lambda: x.tanh().exp_()),
        ("mul_ by a tensor then add_", lambda: (x * 1).mul_(x * 2).add_(1)),
    ]:
        y = make()
        note(rec, **{label: y})
        rec.graph(y)
        rec(label, lambda: y.sum().backward())


def c_leaf_errors(lib, rec):
    x = x3(lib)
    attempt(rec, "leaf add_", lambda: x.add_(1))
    attempt(rec, "leaf exp_", lambda: x.exp_())
    attempt(rec, "leaf view mul_", lambda: x[:2].mul_(2))
    attempt(rec, "leaf setitem", lambda: x.__setitem__(0, 1.0))
    attempt(rec, "leaf relu_ in no_grad", lambda: no_grad_call(lib, lambda: x.relu_()))
    note(rec, x=x)
    attempt(rec, "expanded", lambda: (x * 1).expand(2, 3).mul_(2))
    y = lib.zeros(3, dtype=lib.float64)
    y.add_(x)
    note(rec, leaf_without_grad=y)
    rec.track(x=x).graph(y)
    rec("backward", lambda: y.sum().backward())


def no_grad_call(lib, fn):
    with lib.no_grad():
        return fn()


def c_detach_(lib, rec):
    x = x3(lib)
    y = x * 2
    out = y.detach_()
    rec.note("returns self", out is y)
    note(rec, y=y)
    attempt(rec, "view", lambda: (x * 1)[:2].detach_())
    attempt(rec, "backward", lambda: y.sum().backward())


def c_retain_grad_then_inplace(lib, rec):
    a = S.tensor(lib, [1.0], requires_grad=True).clone()
    a.retain_grad()
    a.mul_(2)
    rec("backward", lambda: a.sum().backward())
    rec.note("a.grad", a.grad)


# -- views: CopySlices and AsStridedBackward0 ----------------------------------------------------
def c_rnn_buffer(lib, rec):
    a = S.tensor(lib, [1.0, 2.0], requires_grad=True)
    h = lib.zeros(2, 3, dtype=lib.float64)
    h[:, 1] = a
    note(rec, first=h)
    h[:, 2] = a * 2
    note(rec, second=h)
    rec.track(a=a).graph(h)
    rec("backward", lambda: (h * h).sum().backward())
    rec("second backward", lambda: h.sum().backward())
    h = lib.zeros(2, 3, dtype=lib.float64)
    h[:, 0] = a.exp()
    rec.graph(h)
    rec("retain", lambda: h.sum().backward(retain_graph=True))
    rec("after retain", lambda: h.sum().backward())


def c_rnn_loop(lib, rec):
    """The buffer filled step by step in a loop, as an RNN's outputs often are."""
    W = S.randn(lib, 1, 3, 3, requires_grad=True)
    x = S.randn(lib, 2, 2, 4, 3)
    state_ = lib.zeros(2, 3, dtype=lib.float64)
    outs = lib.zeros(2, 4, 3, dtype=lib.float64)
    for t in range(4):
        state_ = (x[:, t] + state_ @ W).tanh()
        outs[:, t] = state_
    note(rec, outs=outs)
    rec.track(W=W).graph(outs)
    rec("backward", lambda: outs.sum().backward())


def c_view_before_base_inplace(lib, rec):
    x = lib.zeros(2, 3, dtype=lib.float64)
    v = x[0]
    note(rec, before=v)
    r = S.randn(lib, 2, 2, 3, requires_grad=True)
    x.add_(r)
    note(rec, x=x, v=v)
    rec.note("grad_fn stable", v.grad_fn is v.grad_fn)
    rec.track(r=r).graph(v)
    rec("backward through v", lambda: (v * 3).sum().backward())


def c_view_of_nonleaf(lib, rec):
    x = S.randn(lib, 3, 2, 2, requires_grad=True)
    y = x * 1
    v = y[0]
    note(rec, v_before=v)
    v.mul_(2)
    note(rec, v=v, y=y)
    rec.track(x=x).graph(y)
    rec("backward", lambda: (y * y).sum().backward())
    y = x * 1
    v = y[:, 1]
    v.exp_()
    note(rec, exp_view=v, exp_base=y)
    rec.graph(y)
    rec("exp_ on a view", lambda: (y * 2).sum().backward())
    y = x * 1
    v = y[1]
    v.exp_()
    y.mul_(3)
    note(rec, stale_view=v)
    rec.graph(y)
    rec("exp_ on a view, then the base", lambda: y.sum().backward())


def c_view_mul_grad_tensor(lib, rec):
    x = S.randn(lib, 4, 2, 3, requires_grad=True)
    b = S.randn(lib, 5, 3, requires_grad=True)
    y = x * 1
    y[1].mul_(b)
    note(rec, y=y)
    rec.track(x=x, b=b).graph(y)
    rec("backward", lambda: (y * y).sum().backward())


def c_sibling_views(lib, rec):
    x = S.tensor(lib, [1.0, 2.0], requires_grad=True)
    a = x * 1
    v, w = a[0], a[1]
    v.mul_(3)
    note(rec, v=v, w=w, a=a)
    rec.track(x=x).graph(w * v)
    rec("backward", lambda: (w * v).backward())
    b = S.tensor(lib, [1.0, 2.0], requires_grad=True)
    e = b.expand(3, 2)
    with lib.no_grad():
        b.mul_(2)
    note(rec, expanded=e)
    rec.track(b=b).graph(e)
    rec("expanded view after its base changed", lambda: (e * e).sum().backward())


def c_saved_view_then_base(lib, rec):
    x = x3(lib)
    w = S.tensor(lib, [1.0, 1.0], requires_grad=True)
    y = x * 1
    v = y[:2]
    z = v * w
    y.add_(1)
    note(rec, v=v)
    rec.graph(z)
    rec("backward", lambda: z.sum().backward())
    W = S.randn(lib, 6, 2, 2, requires_grad=True)
    Wt = W.t()
    note(rec, fresh_t=Wt)
    with lib.no_grad():
        W.add_(1)
    note(rec, stale_t=Wt)


def c_setitem_value(lib, rec):
    x = S.randn(lib, 7, 2, 2, requires_grad=True)
    b = S.tensor(lib, [5.0, 6.0, 7.0], requires_grad=True)
    for label, assign in [("h[0] = 5.", lambda h: h.__setitem__(0, 5.0)),
                          ("h[0, 1] = b[0]", lambda h: h.__setitem__((0, 1), b[0])),
                          ("h[:, 0] = const", lambda h: h.__setitem__(
                              (slice(None), 0), S.tensor(lib, [9.0, 9.0])))]:
        h = x * 1
        assign(h)
        note(rec, **{label: h})
        rec.track(x=x, b=b).graph(h)
        rec(label, lambda: (h * h).sum().backward())


def c_whole_key_writes(lib, rec):
    """``h[:] = v``, ``h[...] = v``, ``h[()] = v`` and ``h[0:n, :] = v`` write into h itself, as
    PyTorch's set_item does (its applySlice returns the tensor for a whole slice):
    FillBackward3 for a number or a 0-dim value, CopyBackwards for a tensor, no CopySlices; a
    stale save then names Fill3. ``h[-3:]`` and ``h[:2]`` slice, through CopySlices."""
    x = S.randn(lib, 9, 3, 2, requires_grad=True)
    b = S.tensor(lib, [5.0, 6.0], requires_grad=True)
    note(rec, **{"x[0:3, :]": x[0:3, :], "x[:, 0:5]": x[:, 0:5], "x[-3:]": x[-3:]})
    for label, key, value in [("h[:] = 0.", slice(None), lambda: 0.0),
                              ("h[...] = 2", Ellipsis, lambda: 2),
                              ("h[()] = True", (), lambda: True),
                              ("h[0:3, :] = b", (slice(0, 3), slice(None)), lambda: b),
                              ("h[:, ...] = b.sum()", (slice(None), Ellipsis), lambda: b.sum()),
                              ("h[-3:] = 1.", slice(-3, None), lambda: 1.0),
                              ("h[:2] = 1.", slice(None, 2), lambda: 1.0)]:
        h = x * 1
        saved = h.sin()  # saves h: stale once h is written
        h[key] = value()
        note(rec, **{label: h})
        rec.track(x=x, b=b).graph(h)
        rec(label, lambda: (h * h).sum().backward(retain_graph=True))
        rec(label + ", the old save", lambda: saved.sum().backward())


def c_index_put(lib, rec):
    x = S.randn(lib, 8, 2, 2, requires_grad=True)
    h = x * 1
    mask = lib.tensor([[True, False], [False, True]])
    h[mask] = 0
    note(rec, mask=h)
    rec.track(x=x).graph(h)
    rec("mask backward", lambda: (h * h).sum().backward())
    rec("mask again", lambda: (h * h).sum().backward())
    b = S.tensor(lib, [5.0, 6.0, 7.0], requires_grad=True)
    c = lib.zeros(3, dtype=lib.float64)
    c[[1, 2]] = b[[1, 1]]
    note(rec, list=c)
    rec.track(b=b).graph(c)
    rec("list backward", lambda: (c * c).sum().backward())


def c_no_grad_views(lib, rec):
    x = x3(lib)
    y = x * 1
    with lib.no_grad():
        v = y[:2]
    rec.note("no_grad view requires_grad", v.requires_grad)
    attempt(rec, "in-place on it", lambda: v.mul_(2))
    y = x * 1
    with lib.no_grad():
        v = y[:2]
    y.mul_(2)
    attempt(rec, "its base changed", lambda: v.grad_fn)
    y = x * 1
    with lib.no_grad():
        v = y[:2]
        v.mul_(2)  # both inside no_grad: allowed, not recorded
    note(rec, y=y)


def c_double_backward_copyslices(lib, rec):
    a = S.tensor(lib, [1.0, 2.0], requires_grad=True)
    h = lib.zeros(2, 3, dtype=lib.float64)
    h[:, 1] = a * a
    h[:, 2] = a.exp()
    (g,) = lib.autograd.grad((h * h).sum(), a, create_graph=True)
    rec.note("grad", g)
    rec.note("its graph", [n.name() for n in S.walk([g])[0]])
    rec.track(a=a)
    rec("double backward", lambda: g.sum().backward())
    base = lib.zeros(2, 3, dtype=lib.float64)
    view = base[1]
    r = S.randn(lib, 9, 2, 3, requires_grad=True)
    base.add_(r * r)
    (g,) = lib.autograd.grad((view ** 3).sum(), r, create_graph=True)
    rec.note("through AsStrided", g)
    y = S.randn(lib, 11, 2, 3, requires_grad=True) * 1
    y[0].mul_(y[1])
    (g,) = lib.autograd.grad((y * y).sum(), y, create_graph=True)  # the base's part too
    rec.note("base gradient", g)
    rec.note("base gradient's graph", [n.name() for n in S.walk([g])[0]])
    rec.track(r=r)
    rec("double backward through AsStrided", lambda: (g * g).sum().backward())


def c_saved_tensors_hooks(lib, rec):
    """What pack hooks see: the written tensor itself for a saved result, a clone for self."""
    for label, op in [("relu_", lambda h, b: h.relu_()), ("exp_", lambda h, b: h.exp_()),
                      ("mul_(b)", lambda h, b: h.mul_(b)), ("clamp_", lambda h, b: h.clamp_(0, 1)),
                      ("view exp_", lambda h, b: h[:2].exp_()),
                      ("setitem", lambda h, b: h.__setitem__(slice(0, 2), b[:2] * 2))]:
        packed = []
        x = x3(lib)
        b = S.tensor(lib, [2.0, 3.0, 4.0], requires_grad=True)
        h = x * 1
        with lib.autograd.graph.saved_tensors_hooks(lambda t: (packed.append(t), t)[1],
                                                    lambda t: t):
            op(h, b)
        rec.note(label, [("h" if t is h else "h's memory" if t.data_ptr() == h.data_ptr()
                          else "other", t._version) for t in packed])
        rec.track(x=x, b=b)
        rec(label + " backward", lambda: h.sum().backward())


def c_module_inplace_flags(lib, rec):
    x = x3(lib)
    h = x * 1
    lib.nn.functional.leaky_relu(h, 0.1, inplace=True)
    note(rec, leaky=h)
    rec.track(x=x).graph(h)
    rec("leaky backward", lambda: (h * h).sum().backward())
    (g,) = lib.autograd.grad((x * 1).sum() * 0 + lib.nn.functional.leaky_relu(
        x * 1, 0.1, inplace=True).sum(), x, create_graph=True)
    rec.note("leaky create_graph", state(g))
    h = x * 1
    lib.nn.LeakyReLU(-0.1, inplace=True)(h)
    rec.graph(h)
    rec("negative slope", lambda: h.sum().backward())
    h = x * 1
    out = lib.nn.functional.dropout(h, 1.0, True, inplace=True)
    rec.note("dropout returns input", out is h)
    note(rec, dropout=h)
    h = x * 1
    rec.note("relu_ returns input", lib.relu_(h) is h and lib.nn.functional.relu_(h) is h)
    note(rec, relu_twice=h)
    rec.note("reprs", [repr(m) for m in (lib.nn.LeakyReLU(0.1, inplace=True), lib.nn.LeakyReLU(),
                                         lib.nn.Dropout(0.5, inplace=True), lib.nn.Dropout())])


def _iadd_setitem(y, s):
    """What Python runs for ``y[:, 0] += s``: an in-place add on the view, then a setitem."""
    tmp = y[:, 0]
    tmp += s
    y[:, 0] = tmp


def c_more_views(lib, rec):
    x = S.randn(lib, 10, 3, 4, requires_grad=True)
    s = S.tensor(lib, 2.0, requires_grad=True)
    cases = [
        ("view of a view", lambda y: y[0][1:].mul_(2)),
        ("transposed view", lambda y: y.t().add_(s)),
        ("slice, step 2", lambda y: y[:, ::2].mul_(s)),
        ("h[:, 0] += s, spelled out", lambda y: _iadd_setitem(y, s)),
        ("augmented setitem", lambda y: exec("y[:, 1] += s", {"y": y, "s": s})),
        ("broadcast 0-dim value", lambda y: y.__setitem__((slice(None), 2), s)),
        ("int tensor index", lambda y: y.__setitem__(lib.tensor([0, 2]), s * 3)),
        ("two views in turn", lambda y: (y[0].exp_(), y[1].sigmoid_())),
    ]
    for label, op in cases:
        y = x * 1
        v = y[2]
        op(y)
        note(rec, **{label: y, label + " (other view)": v})
        rec.track(x=x, s=s).graph(y)
        rec(label, lambda: (y * y).sum().backward(retain_graph=True))
        rec(label + ", through the other view", lambda: (v * 2).sum().backward())


CASES = [c_saved_tensors_hooks, c_more_views, c_module_inplace_flags, c_relu_inplace, c_residual_add, c_mul_by_grad_tensor, c_version_errors, c_leaf_errors,
         c_detach_, c_retain_grad_then_inplace, c_rnn_buffer, c_rnn_loop,
         c_view_before_base_inplace, c_view_of_nonleaf, c_sibling_views, c_view_mul_grad_tensor,
         c_saved_view_then_base, c_setitem_value, c_whole_key_writes, c_index_put, c_no_grad_views,
         c_double_backward_copyslices]


def compare(case, torch):
    ours, theirs = S.Recorder(al), S.Recorder(torch)
    case(al, ours)
    case(torch, theirs)
    problems = differences(ours.entries, theirs.entries)
    assert not problems, "\n".join(problems[:8])
    assert not ours.problems, ours.problems


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__[2:])
def test_case(torch, case):
    compare(case, torch)


def test_copyslices_saves_nothing_yet_frees(torch):
    """A graph through CopySlices saves no tensor, yet a second backward raises FREED."""
    for lib in (al, torch):
        a = S.tensor(lib, [1.0, 2.0], requires_grad=True)
        h = lib.zeros(2, 3, dtype=lib.float64)
        h[:, 1] = a
        if lib is al:
            assert h.grad_fn.saved_buffers() == [] and not h.grad_fn.saved_values()
        else:
            assert not [n for n in dir(h.grad_fn) if n.startswith("_saved")]
        h.sum().backward()
        with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second"):
            h.sum().backward()


SIGMOID_THEN_RELU = (
    "one of the variables needed for gradient computation has been modified by an inplace "
    "operation: [torch.FloatTensor [3]], which is output 0 of Sigmoid, is at version 1; expected "
    "version 0 instead. Hint: enable anomaly detection to find the operation that failed to "
    "compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).")


@pytest.mark.parametrize("lib_name", ["autograd_lesson", "torch"])
def test_headline_facts(torch, lib_name):
    """The facts the lesson states, checked in each library on its own."""
    lib = al if lib_name == "autograd_lesson" else torch
    x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
    h = lib.sigmoid(x)
    lib.nn.ReLU(inplace=True)(h)
    assert (h.grad_fn.name(), h._version) == ("ReluBackward0", 1)
    with pytest.raises(RuntimeError) as info:
        h.sum().backward()
    assert str(info.value) == SIGMOID_THEN_RELU
    buf = lib.zeros(2, 3)
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    buf[:, 0] = a
    assert buf.grad_fn.name() == "torch::autograd::CopySlices" and buf._version == 1
    base = lib.zeros(2, 3)
    v = base[0]
    base.add_(lib.ones(2, 3, requires_grad=True))
    assert v.requires_grad and v.grad_fn.name() == "AsStridedBackward0"
    with pytest.raises(RuntimeError, match="^a view of a leaf Variable that requires grad is "
                                           "being used in an in-place operation.$"):
        x[0].mul_(2)
