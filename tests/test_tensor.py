"""The Tensor itself: dtype inference, factories, seeding, versions and views, comparisons,
indexing, ``Variable`` and ``repr`` — each compared with torch where torch has an answer."""
import warnings

import numpy as np
import pytest

import autograd_lesson as al


def dtype_name(dtype):
    """'float32' for both np.dtype('float32') and torch.float32."""
    return str(dtype).replace("torch.", "")


# -- dtype inference and factories -----------------------------------------------------------

DATA = {
    "floats": [1.5, 2.0],
    "ints": [1, 2],
    "mixed": [1, 2.5],
    "bools": [True, False],
    "nested": [[1.0, 2.0], [3.0, 4.0]],
    "scalar float": 3.5,
    "scalar int": 3,
    "numpy float64": np.array([1.0, 2.0]),
    "numpy float32": np.array([1.0, 2.0], dtype=np.float32),
    "numpy int32": np.array([1, 2], dtype=np.int32),
    "numpy float16": np.array([1.0], dtype=np.float16),
    "numpy scalar": np.float64(2.5),
}


@pytest.mark.parity
@pytest.mark.parametrize("name", sorted(DATA))
def test_tensor_dtype_inference_matches_torch(torch, name):
    ours, theirs = al.tensor(DATA[name]), torch.tensor(DATA[name])
    assert dtype_name(ours.dtype) == dtype_name(theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.tolist() == theirs.tolist()


def test_tensor_copies_numpy_but_from_numpy_shares():
    array = np.array([1.0, 2.0])
    t, shared = al.tensor(array), al.from_numpy(array)
    array[0] = 9.0
    assert t.tolist() == [1.0, 2.0] and shared.tolist() == [9.0, 2.0]


FACTORIES = [
    ("zeros", lambda lib: lib.zeros(2, 3)),
    ("zeros tuple", lambda lib: lib.zeros((2, 3))),
    ("ones float64", lambda lib: lib.ones(2, dtype=lib.float64)),
    ("full", lambda lib: lib.full((2,), 3.0)),
    ("eye", lambda lib: lib.eye(2)),
    ("arange int", lambda lib: lib.arange(4)),
    ("arange float", lambda lib: lib.arange(0.0, 1.0, 0.25)),
    ("linspace", lambda lib: lib.linspace(0, 1, 5)),
    ("zeros_like", lambda lib: lib.zeros_like(lib.ones(2, dtype=lib.float64))),
    ("ones_like", lambda lib: lib.ones_like(lib.zeros(3))),
    ("rand", lambda lib: lib.rand(2, 3) * 0),
    ("randn", lambda lib: lib.randn(4) * 0),
    ("randint", lambda lib: lib.randint(0, 1, (3,))),
]


@pytest.mark.parity
@pytest.mark.parametrize("name, make", FACTORIES, ids=[f[0] for f in FACTORIES])
def test_factories_match_torch(torch, name, make):
    ours, theirs = make(al), make(torch)
    assert dtype_name(ours.dtype) == dtype_name(theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(np.asarray(ours.tolist()), np.asarray(theirs.tolist()), rtol=1e-6)
    assert ours.is_leaf and not ours.requires_grad


def test_factory_requires_grad_gives_leaf():
    for t in (al.zeros(2, requires_grad=True), al.randn(2, requires_grad=True),
              al.tensor([1.0], requires_grad=True), al.ones(1, dtype=al.float64, requires_grad=True)):
        assert t.is_leaf and t.requires_grad and t.grad_fn is None


def test_manual_seed_reproducibility():
    al.manual_seed(7)
    a, u = al.randn(5), al.rand(3)
    layer_a = al.nn.Linear(3, 2).weight.tolist()
    al.manual_seed(7)
    b, v = al.randn(5), al.rand(3)
    layer_b = al.nn.Linear(3, 2).weight.tolist()
    assert a.tolist() == b.tolist() and u.tolist() == v.tolist() and layer_a == layer_b
    al.manual_seed(8)
    assert al.randn(5).tolist() != a.tolist()


@pytest.mark.parity
def test_item_and_conversions_match_torch(torch):
    def run(lib):
        f, i = lib.tensor([2.5]).item(), lib.tensor(3).item()
        return (f, type(f).__name__, i, type(i).__name__, float(lib.tensor(1.5)),
                int(lib.tensor([4])), lib.tensor([[1.0, 2.0]]).tolist(), lib.tensor(2.0).dim(),
                lib.ones(4, 2).numel(), len(lib.ones(4, 2)), tuple(lib.ones(2, 3).size()),
                lib.ones(2, 3).size(1))
    assert run(al) == run(torch)


@pytest.mark.parity
def test_item_of_many_elements_raises_like_torch(torch):
    messages = []
    for lib in (al, torch):
        with pytest.raises(RuntimeError) as info:
            lib.tensor([1.0, 2.0]).item()
        messages.append(str(info.value))
    assert messages[0] == messages[1]


# -- versions, detach, views -----------------------------------------------------------------

@pytest.mark.parity
def test_version_bumps_match_torch(torch):
    def run(lib):
        x = lib.zeros(3)
        versions = [x._version]
        for step in (lambda: x.add_(1), lambda: x.mul_(2), lambda: x.zero_(),
                     lambda: x.fill_(3.0), lambda: x.copy_(lib.ones(3)), lambda: x.sub_(1),
                     lambda: x.div_(2)):
            step()
            versions.append(x._version)
        x += 1
        versions.append(x._version)
        return versions, x.tolist()
    assert run(al) == run(torch)


@pytest.mark.parity
def test_detach_shares_values_and_version_counter(torch):
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        d = x.detach()
        d.add_(1)
        return x.tolist(), x._version, d._version, d.requires_grad, d.is_leaf
    assert run(al) == run(torch) == ([2.0, 3.0], 1, 1, False, True)


@pytest.mark.parity
@pytest.mark.parametrize("view", ["slice", "select", "t", "view", "reshape", "transpose",
                                  "unsqueeze", "expand_source"])
def test_views_share_storage_and_version(torch, view):
    def run(lib):
        x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        v = {"slice": lambda: x[1:], "select": lambda: x[0], "t": lambda: x.t(),
             "view": lambda: x.view(6), "reshape": lambda: x.reshape(3, 2),
             "transpose": lambda: x.transpose(0, 1), "unsqueeze": lambda: x.unsqueeze(0),
             "expand_source": lambda: x[:, :1]}[view]()
        v.mul_(10)
        return x.tolist(), x._version, v._version
    assert run(al) == run(torch)


VIEWS_OF_A_LEAF = {"t": lambda w: w.t(), "slice": lambda w: w[1:], "select": lambda w: w[0],
                   "t_then_select": lambda w: w.t()[1], "view": lambda w: w.view(6),
                   "transpose": lambda w: w.transpose(0, 1), "unsqueeze": lambda w: w.unsqueeze(0)}


@pytest.mark.parity
@pytest.mark.parametrize("view", VIEWS_OF_A_LEAF)
def test_view_grad_fn_becomes_as_strided_after_its_base_changes(torch, view):
    """PyTorch regenerates a differentiable view's grad_fn, once its base was changed in place,
    as AsStridedBackward0 (size, stride, offset) into the base's history; gradients still flow."""
    def run(lib):
        w = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        v = VIEWS_OF_A_LEAF[view](w)
        before = v.grad_fn.name()
        with lib.no_grad():
            w.mul_(2)
        node = v.grad_fn
        saved = (node._saved_size, node._saved_stride, node._saved_storage_offset)
        (v * lib.arange(float(v.numel())).reshape(v.shape)).sum().backward()
        return (before, node.name(), v.grad_fn is node, node.next_functions[0][0].name(), saved,
                w.grad.tolist())
    ours, theirs = run(al), run(torch)
    assert ours == theirs and ours[1] == "AsStridedBackward0"


@pytest.mark.parity
def test_view_of_a_non_leaf_regenerates_into_the_bases_new_history(torch):
    def run(lib):
        x = lib.ones(2, 3, requires_grad=True)
        h = x * 2
        v = h.t()
        h.add_(1)
        (v * lib.arange(6.0).reshape(3, 2)).sum().backward()
        return v.grad_fn.name(), v.grad_fn.next_functions[0][0].name(), x.grad.tolist()
    assert run(al) == run(torch)


def test_view_storage_identity():
    x = al.ones(2, 3)
    for v in (x[1:], x.t(), x.view(6), x[0]):
        assert v._storage is x._storage and v._version_counter is x._version_counter
    assert x.clone()._storage is not x._storage


def test_storage_and_counter_made_on_first_read_are_shared_whichever_is_read_first():
    """An op's result makes its Storage and VersionCounter only when read: a view (and a view
    of a view) read before its base still shares the base's, and sees the base's version."""
    x = al.ones(2, 3) * 2
    v = x.t()
    w = v[0]  # a view of a view, made before anything was read
    assert w._version_counter is x._version_counter and v._storage is x._storage
    assert w._storage is x._storage and x._storage.nbytes == 24
    y = al.ones(2, 3) * 2
    y.add_(1)  # the counter, made by the bump, now at 1
    assert y.t()._attr_version == 1 and y.t()[0]._version == 1
    z = al.ones(2, 3) * 2
    zt = z.t()
    zt.mul_(2)  # bumped through the view: its base and a later view of the view see it
    assert z._version == zt._version == zt[0]._version == 1 and zt[0]._attr_version == 1


@pytest.mark.parity
def test_views_made_before_data_is_replaced_keep_the_old_storage(torch):
    x = torch.ones(2, 3) * 2
    v = x.t()
    x.data = torch.zeros(4)
    assert v.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
    assert x[1:].untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    assert (v.untyped_storage().nbytes(), x.untyped_storage().nbytes()) == (24, 16)
    assert (v._version, x._version) == (0, 0)
    x = al.ones(2, 3) * 2
    v = x.t()  # (nothing read yet: the view's storage is its base's first one)
    x.data = al.zeros(4)
    assert v._storage is not x._storage and v._storage.nbytes == 24
    assert x[1:]._storage is x._storage and x._storage.nbytes == 16
    assert v._version_counter is x._version_counter and (v._version, x._version) == (0, 0)


def test_a_modules_cast_leaves_earlier_views_of_a_weight_their_storage():
    layer = al.nn.Linear(3, 2)
    view = layer.weight.t()
    layer.double()
    assert view._storage is not layer.weight._storage and view._storage.nbytes == 24
    assert layer.weight._storage.nbytes == 48 and layer.weight.t()._storage is layer.weight._storage


def test_inference_storage_is_decided_where_the_tensor_is_made():
    """A tensor made in inference mode is an inference tensor wherever its storage is first
    read; one made outside is not, even if first read inside (PyTorch tags the allocation)."""
    outside = al.ones(2) * 2
    with al.inference_mode():
        inside = al.ones(2) * 2
        assert not outside.is_inference() and not outside.t().is_inference()
        view_inside = outside[0:1]
    assert inside.is_inference() and inside[0:1].is_inference()
    assert not view_inside.is_inference() and view_inside._storage is outside._storage


@pytest.mark.parity
def test_data_has_its_own_version_counter(torch):
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        d = x.data
        d.add_(1)
        return x.tolist(), x._version, d._version, d.requires_grad
    assert run(al) == run(torch)


# -- comparisons and indexing ----------------------------------------------------------------

@pytest.mark.parity
@pytest.mark.parametrize("expr", ["x > 1.5", "x < w", "x == w", "x != 2.0", "x >= w", "x <= 2.0"])
def test_comparisons_give_bool_tensors_without_grad(torch, expr):
    def run(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        w = lib.tensor([1.0, 0.0, 4.0], requires_grad=True)
        out = eval(expr)
        return out.tolist(), dtype_name(out.dtype), out.requires_grad, out.grad_fn, out.is_leaf
    assert run(al) == run(torch)


INDEXES = {
    "int": lambda x: x[1],
    "negative": lambda x: x[-1],
    "int pair": lambda x: x[1, 2],
    "slice": lambda x: x[1:],
    "column": lambda x: x[:, 1],
    "step": lambda x: x[::2],
    "list": lambda x: x[[0, 2]],
    "mask": lambda x: x[x > 4],
}


@pytest.mark.parity
@pytest.mark.parametrize("name", sorted(INDEXES))
def test_indexing_results_match_torch(torch, name):
    def run(lib):
        x = lib.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
        out = INDEXES[name](x)
        out.sum().backward()
        return out.tolist(), tuple(out.shape), out.grad_fn.name(), x.grad.tolist()
    assert run(al) == run(torch)


# -- Variable --------------------------------------------------------------------------------

@pytest.mark.parity
def test_variable_gives_leaf_without_warning(torch):
    def run(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            v = lib.autograd.Variable(lib.tensor([1.0, 2.0]), requires_grad=True)
        (v * v).sum().backward()
        return v.is_leaf, v.requires_grad, v.grad_fn, v.grad.tolist(), type(v).__name__
    assert run(al) == run(torch) == (True, True, None, [2.0, 4.0], "Tensor")


# -- repr ------------------------------------------------------------------------------------

REPRS = [
    "lib.tensor([1., 2.])",
    "lib.tensor([0.5, 1.0], requires_grad=True)",
    "(lib.tensor([1., 2., 3.], requires_grad=True) * 9).mean()",
    "lib.tensor([-1.5, 2.25, 3.0])",
    "lib.tensor([[1., -2.], [3., 4.5]])",
    "lib.tensor([1, -2, 30])",
    "lib.tensor(3.5)",
    "lib.tensor(3)",
    "lib.tensor([True, False])",
    "lib.tensor([1., 2.], dtype=lib.float64)",
    "lib.tensor([1., 2.], dtype=lib.float64, requires_grad=True) * 2",
    "lib.tensor([1e-5, 1.0])",
    "lib.tensor([0.001, 1000.])",
    "lib.tensor([0.1234567, -100.5])",
    "lib.zeros(2, 3)",
    "lib.tensor([])",
    "lib.tensor([float('nan'), 1.0, float('inf')])",
    "lib.tensor([-0.0, 1.0])",
    "lib.tensor([0.0, -0.5])",
    "lib.tensor(np.random.RandomState(0).randn(3, 4).astype(np.float32))",
    "lib.tensor([[1.5, 2.], [3., 4.]], requires_grad=True).t()",
    # suffixes that would pass 80 columns wrap onto their own line
    "lib.tensor(np.random.RandomState(1).randn(3, 4), requires_grad=True) * 2",
    "lib.tensor(np.arange(30.).reshape(3, 10))",
    # over 1000 elements: summarized, and only the printed elements pick the format
    "lib.tensor(np.arange(1001))",
    "lib.tensor(np.arange(3000.).reshape(3, 1000) / 7)",
    "lib.tensor(np.arange(2000).reshape(1000, 2))",
]


@pytest.mark.parity
@pytest.mark.parametrize("expr", REPRS)
def test_repr_matches_torch(torch, expr):
    assert repr(eval(expr, {"lib": al, "np": np})) == repr(eval(expr, {"lib": torch, "np": np}))


@pytest.mark.parity
@pytest.mark.parametrize("expr", [REPRS[0], "lib.tensor(3.5)", "lib.tensor([-1, 2])",
                                  "lib.tensor(np.arange(2000).reshape(1000, 2))"])
def test_repr_ignores_numpys_print_options_as_torch(torch, expr):
    """NumPy's print options are the process's (colour-science sets legacy="1.13" on import):
    torch's repr does not follow them, and neither does ours."""
    want = repr(eval(expr, {"lib": torch, "np": np}))
    with np.printoptions(legacy="1.13", sign="+"):
        assert repr(eval(expr, {"lib": al, "np": np})) == want


@pytest.mark.parity
def test_a_0_dim_tensor_formats_as_its_number_as_torch(torch):
    """``f"{loss:.3f}"`` works on a 0-dim tensor; other tensors (and a Parameter) keep
    ``object.__format__``, which refuses a format spec."""
    def run(lib):
        out = [f"{lib.tensor(2.5):.2f}", f"{lib.tensor(3):>4}", f"{lib.tensor([2.5])}",
               f"{lib.nn.Parameter(lib.tensor(2.0))}"]
        with pytest.raises(TypeError) as info:
            f"{lib.tensor([2.5]):.2f}"
        return out + [str(info.value)]
    assert run(al) == run(torch)
