"""Live parity with torch, per op of the catalog and per requires_grad combination.

Both libraries run the same ``fn`` on the same float64 inputs. Nodes are matched by their
position in a breadth-first walk over ``next_functions`` (and their names are compared again
in creation order). Per node we compare the name, the edges, the tensor saves (slot, shape,
dtype), the saves declared but skipped (``_saved_X is None``) and the non-tensor saves. Then
the forward values, the leaf gradients, what can still be read after the graph is freed, and
the outcome of a second backward without ``retain_graph``: success, or the same error.
"""
import numpy as np
import pytest

import autograd_lesson as al
from op_catalog import CASES, make_inputs

pytestmark = pytest.mark.parity

ATOL = 1e-6


def _combo_id(case, rg):
    return f"{case.name}-{''.join('1' if r else '0' for r in rg)}"


COMBOS = [(case, rg) for case in CASES for rg in case.rg_combinations()]


# -- describing a graph the same way in both libraries ----------------------------------------
def walk(root):
    """Nodes reachable from ``root``, breadth-first in ``next_functions`` order, each once."""
    order, queue = [], [root]
    while queue:
        node = queue.pop(0)
        if node is None or any(node is seen for seen in order):
            continue
        order.append(node)
        queue.extend(child for child, _ in node.next_functions)
    return order


def _position(order, node):
    return None if node is None else next(i for i, n in enumerate(order) if n is node)


def _edges(order, node):
    return [(_position(order, child), nr) for child, nr in node.next_functions]


def _creation_order(order):
    inner = [n for n in order if "AccumulateGrad" not in n.name()]
    return [n.name() for n in sorted(inner, key=lambda n: n._sequence_nr())]


def _meta(value):
    """(shape, dtype name) of a saved tensor; a list of them for list-valued saves."""
    if isinstance(value, (list, tuple)):
        return [_meta(v) for v in value]
    return tuple(value.shape), str(value.dtype).replace("torch.", "")


def _plain(value):
    """A non-tensor save in comparable form: tuples as lists, and C++'s unsigned wrap-around
    undone (torch shows ``index=-1`` as 2**64 - 1 and ``ignore_index=-100`` as 2**64 - 100)."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, int) and not isinstance(value, bool) and value >= 2 ** 63:
        return value - 2 ** 64
    return value


def declared_slots(node):
    """torch: the tensor slots a node declares (``_raw_saved_X`` exists even if X was skipped)."""
    return sorted(a[len("_raw_saved_"):] for a in dir(node) if a.startswith("_raw_saved_"))


def torch_values(node):
    """torch: the non-tensor saves (``_saved_dim`` ...)."""
    declared = declared_slots(node)
    return {a[len("_saved_"):]: _plain(getattr(node, a)) for a in dir(node)
            if a.startswith("_saved_") and a[len("_saved_"):] not in declared}


def our_values(node):
    return {name: _plain(value) for name, value in node.saved_values().items()}


def torch_tensor_saves(node):
    """torch: ``({slot: meta} of the saved tensors, {slots declared but skipped})``."""
    tensors, skipped = {}, set()
    for slot in declared_slots(node):
        value = getattr(node, "_saved_" + slot)
        if value is None:
            skipped.add(slot)
        else:
            tensors[slot] = _meta(value)
    return tensors, skipped


def our_tensor_saves(node, skipped_in_torch):
    """ours: the same, from ``saved_buffers()`` (checked against ``_saved_X`` itself)."""
    tensors = {}
    for buffer in node.saved_buffers():
        if "[" in buffer.slot:  # ``indices[1]``: one entry of a list-valued save
            slot = buffer.slot.split("[")[0]
            tensors[slot] = _meta(getattr(node, "_saved_" + slot))
            continue
        meta = tensors[buffer.slot] = _meta(getattr(node, "_saved_" + buffer.slot))
        single = meta[0] if isinstance(meta, list) else meta
        assert (tuple(buffer.shape), str(buffer.dtype)) == single
    skipped = {slot for slot in skipped_in_torch if getattr(node, "_saved_" + slot, 0) is None}
    return tensors, skipped


def compare_graphs(our_root, torch_root):
    """Assert that both graphs match node by node; return both walk orders."""
    our_order, torch_order = walk(our_root), walk(torch_root)
    assert [n.name() for n in our_order] == [n.name() for n in torch_order]
    assert _creation_order(our_order) == _creation_order(torch_order)
    for ours, theirs in zip(our_order, torch_order):
        name = theirs.name()
        assert _edges(our_order, ours) == _edges(torch_order, theirs), name
        tensors, skipped = torch_tensor_saves(theirs)
        assert our_tensor_saves(ours, skipped) == (tensors, skipped), name
        assert our_values(ours) == torch_values(theirs), name
    return our_order, torch_order


# -- running a case in both libraries --------------------------------------------------------
def run_case(lib, case, rg, dtype="float64"):
    inputs = make_inputs(lib, case, rg, dtype)
    return inputs, case.fn(lib, *inputs)


def grad_seed(lib, out):
    """A fixed random gradient for ``out`` (so no reduction node is added to the graph)."""
    values = np.random.RandomState(1).randn(*out.shape)
    return lib.tensor(np.asarray(values, dtype=str(out.dtype).replace("torch.", "")))


def outcome(fn):
    try:
        fn()
    except Exception as error:  # noqa: BLE001  (the outcome itself is compared)
        return type(error).__name__, str(error)
    return "ok", ""


def _numpy(t):
    if t is None:
        return None
    if type(t).__module__.startswith("torch"):
        return t.detach().numpy(force=True)  # torch may hand back a lazy ZeroTensor
    return t.detach().numpy()


def leaf_grads(order):
    """The ``.grad`` of every leaf reached, in walk order (None if it got none)."""
    return [_numpy(n.variable.grad) for n in order if "AccumulateGrad" in n.name()]


def assert_close_lists(ours, theirs):
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert (a is None) == (b is None)
        if a is not None:
            assert a.shape == b.shape and str(a.dtype) == str(b.dtype)
            np.testing.assert_allclose(a, b, atol=ATOL, rtol=0)


@pytest.mark.parametrize("case,rg", COMBOS, ids=[_combo_id(c, rg) for c, rg in COMBOS])
def test_op_parity(torch, case, rg):
    """Same values, graph (names, edges, saves), gradients, readable saves after the free,
    and second-backward outcome as torch, for one requires_grad pattern of the inputs."""
    our_inputs, ours = run_case(al, case, rg)
    torch_inputs, theirs = run_case(torch, case, rg)
    if any(theirs is t for t in torch_inputs):  # dropout in eval mode returns its input
        assert any(ours is t for t in our_inputs)
        return
    assert ours.shape == tuple(theirs.shape)
    assert repr(ours.dtype) == repr(theirs.dtype)  # torch.float32 in both
    assert ours.requires_grad == theirs.requires_grad
    if not case.random:
        np.testing.assert_allclose(_numpy(ours), _numpy(theirs), atol=ATOL, rtol=0)
    if not theirs.requires_grad:  # only an input's shape was used (expand_as)
        assert ours.grad_fn is None and theirs.grad_fn is None
        return

    our_order, torch_order = compare_graphs(ours.grad_fn, theirs.grad_fn)
    values_before = [torch_values(n) for n in torch_order]

    ours.backward(grad_seed(al, ours))
    theirs.backward(grad_seed(torch, theirs))
    if not case.random:
        assert_close_lists(leaf_grads(our_order), leaf_grads(torch_order))

    # After the free: non-tensor saves unchanged and readable, tensor saves raise the same.
    assert [torch_values(n) for n in torch_order] == values_before
    assert [our_values(n) for n in our_order] == values_before
    for our_node, torch_node in zip(our_order, torch_order):
        for slot in declared_slots(torch_node):
            for prefix in ("_saved_", "_raw_saved_"):  # a list-valued raw save raises too
                expected = outcome(lambda: getattr(torch_node, prefix + slot))
                assert outcome(lambda: getattr(our_node, prefix + slot)) == expected, slot

    second = outcome(lambda: ours.backward(grad_seed(al, ours)))
    assert second == outcome(lambda: theirs.backward(grad_seed(torch, theirs)))
    if not case.random:
        assert_close_lists(leaf_grads(our_order), leaf_grads(torch_order))


def _first_grads(lib, case, rg, seed_requires_grad):
    """First-order grads of every leaf with ``create_graph=True``; with ``seed_requires_grad``
    the seed is a leaf too (as in gradgradcheck), so the formulas' use of grad is recorded."""
    _, out = run_case(lib, case, rg)
    if not out.requires_grad:
        return [], []
    leaves = [n.variable for n in walk(out.grad_fn) if "AccumulateGrad" in n.name()]
    seed = grad_seed(lib, out).requires_grad_(seed_requires_grad)
    grads = lib.autograd.grad(out, leaves, seed, create_graph=True, allow_unused=True)
    return leaves + ([seed] if seed_requires_grad else []), grads


# Random and identity (dropout) cases record nothing to differentiate twice. The seed
# requiring grad is checked for the all-requiring-grad pattern only (time budget).
_TWICE = [case for case in CASES if not case.random and case.name != "dropout_eval"]
DOUBLE = [(case, rg, False) for case in _TWICE for rg in case.rg_combinations()] + [
    (case, case.rg_combinations()[-1], True) for case in _TWICE]


@pytest.mark.parametrize("case,rg,seed_rg", DOUBLE,
                         ids=[_combo_id(c, rg) + ("-seed" if s else "") for c, rg, s in DOUBLE])
def test_double_backward_parity(torch, case, rg, seed_rg):
    """``autograd.grad(create_graph=True)`` records the same nodes as torch (``MulBackward1``,
    ``SigmoidBackwardBackward0``, ``SelectBackwardBackward0`` ...) with the same saves, in the
    same creation order, and the second-order gradients agree."""
    our_leaves, our_grads = _first_grads(al, case, rg, seed_rg)
    torch_leaves, torch_grads = _first_grads(torch, case, rg, seed_rg)
    assert_close_lists([_numpy(g) for g in our_grads], [_numpy(g) for g in torch_grads])
    pairs = []
    for ours, theirs in zip(our_grads, torch_grads):
        differentiable = theirs is not None and theirs.requires_grad
        assert (ours is not None and ours.requires_grad) == differentiable
        if differentiable:
            compare_graphs(ours.grad_fn, theirs.grad_fn)
            pairs.append((ours, theirs))
    if not pairs:
        return
    weights = [np.random.RandomState(2 + i).randn(*ours.shape) for i, (ours, _) in enumerate(pairs)]
    our_sum = sum((o * al.tensor(w)).sum() for (o, _), w in zip(pairs, weights))
    torch_sum = sum((t * torch.tensor(w)).sum() for (_, t), w in zip(pairs, weights))
    second_ours = al.autograd.grad(our_sum, our_leaves, allow_unused=True)
    second_theirs = torch.autograd.grad(torch_sum, torch_leaves, allow_unused=True)
    assert_close_lists([_numpy(g) for g in second_ours], [_numpy(g) for g in second_theirs])


ALL_RG = [(case, case.rg_combinations()[-1]) for case in CASES]


@pytest.mark.parametrize("case,rg", ALL_RG, ids=[c.name for c, _ in ALL_RG])
def test_float32_parity(torch, case, rg):
    """In float32: the same result dtype (Python scalars do not promote), the same saved
    dtypes (a wrapped ``2.5`` is still float64) and float32 gradients."""
    our_inputs, ours = run_case(al, case, rg, "float32")
    torch_inputs, theirs = run_case(torch, case, rg, "float32")
    if any(theirs is t for t in torch_inputs):  # dropout in eval mode returns its input
        assert any(ours is t for t in our_inputs)
        return
    assert repr(ours.dtype) == repr(theirs.dtype)  # torch.float32 in both
    if not case.random:
        np.testing.assert_allclose(_numpy(ours), _numpy(theirs), rtol=1e-5, atol=1e-5)
    our_order, torch_order = compare_graphs(ours.grad_fn, theirs.grad_fn)
    ours.backward(grad_seed(al, ours))
    theirs.backward(grad_seed(torch, theirs))
    for a, b in zip(leaf_grads(our_order), leaf_grads(torch_order)):
        assert str(a.dtype) == str(b.dtype)
        if not case.random:
            np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
