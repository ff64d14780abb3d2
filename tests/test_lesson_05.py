"""Lesson 05 (WGAN-GP): the claims where the notebook contradicts the source article.

The article says "graph preservation (retain) is essential" for a gradient penalty. In fact
``create_graph=True`` is the essential flag; ``retain_graph`` only matters for a *later* backward
through the critic's graph. Every claim is checked in autograd_lesson and in real PyTorch.
"""
import numpy as np
import pytest

import autograd_lesson
import scenarios as S

NO_GRAD_FN = "element 0 of tensors does not require grad and does not have a grad_fn"


def critic(lib, kind="leaky"):
    """The lesson's WGAN-GP critic: Linear(2,4)-act-Linear(4,1), no Sigmoid (an unbounded
    score), or two Linears ('linear')."""
    if kind == "linear":
        return lib.nn.Sequential(S.linear(lib, 2, 4, 3), S.linear(lib, 4, 1, 4))
    return S.mlp(lib, [2, 4, 1], 3, act=kind)


def penalty(lib, kind="leaky", **grad_kwargs):
    """(D, interpolated, prob, gradients, gp) with ``autograd.grad(**grad_kwargs)``."""
    D = critic(lib, kind)
    alpha = S.tensor(lib, np.random.RandomState(42).rand(4, 1))
    real, fake = S.randn(lib, 40, 4, 2), S.randn(lib, 41, 4, 2)
    interpolated = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    prob = D(interpolated)
    gradients = lib.autograd.grad(prob, interpolated, grad_outputs=lib.ones_like(prob),
                                  **grad_kwargs)[0]
    gp = ((gradients.norm(2, dim=1) - 1) ** 2).mean()
    return D, interpolated, prob, gradients, gp


def raised(fn):
    try:
        fn()
    except RuntimeError as error:
        return str(error)
    return None


def test_retain_without_create_graph_gives_a_constant_penalty(lib):
    """retain_graph=True alone: gradients has no grad_fn, so gp.backward() raises."""
    _, _, prob, gradients, gp = penalty(lib, retain_graph=True)
    assert gradients.grad_fn is None and not gradients.requires_grad
    assert raised(gp.backward) == NO_GRAD_FN
    assert raised(lambda: prob.mean().backward()) is None  # retain did keep prob's graph


def test_create_graph_alone_is_enough(lib):
    """retain_graph defaults to create_graph: grad's call frees nothing, gp.backward works."""
    D, _, prob, gradients, gp = penalty(lib, create_graph=True)
    assert gradients.grad_fn is not None
    assert all(state == "alive" for state in slot_states(lib, [prob]).values())
    assert raised(gp.backward) is None
    # the penalty never reaches the output Linear's bias: its .grad stays None
    assert [p.grad is None for p in D.parameters()] == [False, False, False, True]


def test_create_graph_without_retain_fails_for_a_nonlinear_critic(lib):
    """grad succeeds, but gp.backward must run the original nodes whose saves grad freed."""
    for kind in ("leaky", "tanh"):
        _, _, prob, _, gp = penalty(lib, kind, create_graph=True, retain_graph=False)
        assert set(slot_states(lib, [prob]).values()) == {"freed"}
        assert raised(gp.backward) == S.FREED


def test_create_graph_without_retain_works_for_a_linear_critic(lib):
    """A linear D's input gradient is W2 W1, independent of the forward's saves."""
    D, interpolated, _, _, gp = penalty(lib, "linear", create_graph=True, retain_graph=False)
    assert raised(gp.backward) is None
    assert [p.grad is None for p in D.parameters()] == [False, True, False, True]  # biases None
    assert interpolated.grad is None


def test_double_backward_graph_reaches_into_the_original_graph(lib):
    _, _, prob, _, gp = penalty(lib, create_graph=True)
    names = [n.name() for n in S.walk([gp])[0]]
    assert names.count("LeakyReluBackwardBackward0") == 1
    assert names.count("MmBackward0") == 2
    assert not any("Sigmoid" in name for name in names)  # a WGAN-GP critic has no Sigmoid
    edges = {(n.name(), c.name()) for n in S.walk([gp])[0] for c, _ in n.next_functions
             if c is not None}
    assert ("LeakyReluBackwardBackward0", "AddmmBackward0") in edges


@pytest.mark.parametrize("kind, failing", [("leaky", "AddmmBackward0"),
                                           ("tanh", "TanhBackward0")])
def test_create_graph_without_retain_fails_at_the_node_the_lesson_names(lib, kind, failing):
    """The last node whose pre-hook ran before the FREED error is where gp.backward() stops:
    the first Linear's AddmmBackward0 for the LeakyReLU critic, TanhBackward0 for the Tanh one."""
    _, _, prob, _, gp = penalty(lib, kind, create_graph=True, retain_graph=False)
    started = []
    for node in S.walk([gp])[0]:
        node.register_prehook(lambda grads, node=node: started.append(node))
    assert raised(gp.backward) == S.FREED
    assert started[-1].name() == failing
    assert started[-1] in S.walk([prob])[0]  # a node of the forward graph,
    assert started[-1] is not prob.grad_fn   # and not the output Linear's AddmmBackward0


def test_gp_backward_frees_only_the_first_layer_of_the_original_graph(lib):
    """The penalty's graph enters prob's graph only at the first Linear (through
    LeakyReluBackwardBackward0), so gp.backward() frees that node and leaves the LeakyReLU and the
    output Linear untouched. A later backward through prob still fails, at that first node; the
    seed's gp.backward(retain_graph=True) matters only then."""
    _, _, prob, _, gp = penalty(lib, create_graph=True)
    gp.backward()
    assert slot_states(lib, [prob]) == {
        "#0 AddmmBackward0.mat1": "alive", "#0 AddmmBackward0.mat2": "alive",
        "#2 LeakyReluBackward0.self": "alive",
        "#4 AddmmBackward0.mat1": "freed", "#4 AddmmBackward0.mat2": "freed"}
    assert raised(lambda: prob.mean().backward()) == S.FREED
    _, _, prob, _, gp = penalty(lib, create_graph=True)
    gp.backward(retain_graph=True)
    assert raised(lambda: prob.mean().backward()) is None


def test_one_summed_critic_loss_leaves_the_unreached_part_of_prob_graph(lib):
    """(D(fake).mean() - D(real).mean() + gp).backward() frees prob's first Linear only; the
    LeakyReLU's and the output Linear's saves stay until prob is dropped. The article's two
    backwards (the first retaining) leave all of them."""
    D, _, prob, _, gp = penalty(lib, create_graph=True)
    real, fake = S.randn(lib, 43, 4, 2), S.randn(lib, 44, 4, 2)
    (D(fake).mean() - D(real).mean() + 10 * gp).backward()
    assert sorted(slot_states(lib, [prob]).values()) == ["alive"] * 3 + ["freed"] * 2
    D, _, prob, _, gp = penalty(lib, create_graph=True)
    (10 * gp).backward(retain_graph=True)
    (D(fake).mean() - D(real).mean()).backward()
    assert sorted(slot_states(lib, [prob]).values()) == ["alive"] * 5


def test_one_summed_critic_loss_gives_the_same_grads(lib):
    D, _, prob, _, gp = penalty(lib, create_graph=True)
    gp.backward(retain_graph=True)
    (-prob.mean()).backward()
    separate = [S.as_array(p.grad) for p in D.parameters()]
    D, _, prob, _, gp = penalty(lib, create_graph=True)
    (-prob.mean() + gp).backward()
    for a, b in zip(separate, [S.as_array(p.grad) for p in D.parameters()]):
        np.testing.assert_allclose(a, b, atol=1e-6)


@pytest.mark.parity
def test_penalty_and_grads_match_torch(torch):
    results = []
    for lib in (autograd_lesson, torch):
        D, interpolated, _, gradients, gp = penalty(lib, create_graph=True)
        gp.backward()
        results.append([S.as_array(gradients), S.as_array(gp)]
                       + [S.as_array(p.grad) for p in D.parameters() if p.grad is not None])
    assert len(results[0]) == len(results[1]) == 5
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, atol=1e-6)


def slot_states(lib, roots):
    """{'#i Node.slot': state} for every tensor save reachable from ``roots``."""
    states = {}
    for i, node in enumerate(S.walk(roots)[0]):
        for slot in S._slot_names(lib, node):
            state = S._read_slot(node, slot)
            if state != "none":
                states[f"#{i} {node.name()}.{slot}"] = state
    return states


# -- the optional "on real PyTorch" cell ---------------------------------------------------------
@pytest.mark.parity
def test_on_real_torch_cell_prints_the_same_text_from_both_engines(torch):
    import on_torch_cells
    theirs, ours = on_torch_cells.texts(torch, "05")
    assert theirs == ours
    assert theirs.count("  retained: ") == 5 and "freed:" not in theirs
    assert "ran 3 nodes" in theirs  # the critic's three nodes that lead to interpolated
    assert "autograd_lesson printed the same text: True" in on_torch_cells.stored_text("05")
