"""Scenario parity: every scenario of ``scenarios.py`` gives the same record with both libraries.

A record holds, after every backward / ``autograd.grad`` call: the outcome (exact exception type
and message), the warnings, the ``.grad`` of the tracked leaves (float64, atol 1e-6), and the
state of every saved slot of every node in the tracked graphs (alive / none / freed / stale),
with the graph's shape (node names and edges). The headline tests below then check the facts
the lessons teach on both records, so a bug shared by both comparisons cannot hide.
"""
import numpy as np
import pytest

import autograd_lesson as al
import scenarios as S

pytestmark = pytest.mark.parity
ATOL = 1e-6
AS_STRIDED = ("one of the variables needed for gradient computation has been modified by an "
              "inplace operation: [torch.{kind}Tensor {shape}], which is output 0 of AsStrided, is "
              "at version {now}; expected version {saved} instead. Hint: enable anomaly detection "
              "to find the operation that failed to compute its gradient, with "
              "torch.autograd.set_detect_anomaly(True, check_nan=False).")


@pytest.fixture(scope="module")
def records(torch):
    """``records(scenario) -> (ours, theirs)``, each scenario run once per library."""
    cache = {}

    def get(scenario):
        if scenario not in cache:
            cache[scenario] = (S.run(scenario, al), S.run(scenario, torch))
        return cache[scenario]

    return get


@pytest.fixture(scope="module")
def both(records):
    """``both(scenario) -> [ours, theirs]`` as label -> entry dicts, for headline checks."""
    def get(scenario):
        return [{e["label"]: e for e in r.entries} for r in records(scenario)]
    return get


# -- record comparison --------------------------------------------------------------------------
def differences(ours, theirs, path="record"):
    """Human-readable differences between two plain records (arrays compared with ATOL)."""
    if isinstance(ours, np.ndarray) or isinstance(theirs, np.ndarray):
        same = (isinstance(ours, np.ndarray) and isinstance(theirs, np.ndarray)
                and ours.shape == theirs.shape and np.allclose(ours, theirs, atol=ATOL, rtol=0))
        return [] if same else [f"{path}: ours {ours!r}, torch {theirs!r}"]
    if isinstance(ours, dict) and isinstance(theirs, dict):
        if set(ours) != set(theirs):
            return [f"{path}: keys {sorted(ours)} vs {sorted(theirs)}"]
        return [d for k in ours for d in differences(ours[k], theirs[k], f"{path}[{k!r}]")]
    if isinstance(ours, (list, tuple)) and isinstance(theirs, (list, tuple)):
        if len(ours) != len(theirs):
            return [f"{path}: ours {ours!r}, torch {theirs!r}"]
        return [d for i, (a, b) in enumerate(zip(ours, theirs))
                for d in differences(a, b, f"{path}[{i}]")]
    if isinstance(ours, float) and isinstance(theirs, float):
        return [] if abs(ours - theirs) <= ATOL else [f"{path}: ours {ours}, torch {theirs}"]
    return [] if ours == theirs else [f"{path}: ours {ours!r}, torch {theirs!r}"]


def as_strided(kind, shape, now=3, saved=2):
    return ("RuntimeError", AS_STRIDED.format(kind=kind, shape=shape, now=now, saved=saved))


def test_differences_catches_a_change():
    entry = {"label": "a", "outcome": ["ok"], "grads": {"x": np.ones(3)}}
    changed = {"label": "a", "outcome": ["ok"], "grads": {"x": np.ones(3) + 1e-5}}
    assert differences(entry, entry) == []
    with np.printoptions(legacy=False):  # an import elsewhere in this process may set 1.13 mode
        assert differences(entry, changed) == [
            "record['grads']['x']: ours array([1., 1., 1.]), torch array([1.00001, 1.00001, 1.00001])"]


@pytest.mark.parametrize("scenario", S.SCENARIOS, ids=[s.__name__ for s in S.SCENARIOS])
def test_scenario_matches_torch(records, scenario):
    ours, theirs = records(scenario)
    assert ours.problems == [], "autograd_lesson's introspection disagrees with itself"
    labels = [e["label"] for e in theirs.entries]
    assert len(set(labels)) == len(labels), "labels must identify entries"
    assert [e["label"] for e in ours.entries] == labels
    assert any("outcome" in e for e in theirs.entries), "a scenario must call backward"
    for mine, reference in zip(ours.entries, theirs.entries):
        found = differences(mine, reference, f"[{reference['label']}]")
        assert not found, "\n".join(found[:20])


# -- headline facts, checked on both records ----------------------------------------------------
def _outcome(entry):
    return entry["outcome"][0] if entry["outcome"] == ["ok"] else tuple(entry["outcome"])


FREED = ("RuntimeError", S.FREED)


def test_ex1_scalar_two_is_saved_but_x_plus_2_replays(both):
    for rec in both(S.s000_ex1_multi_loss):
        assert _outcome(rec["seed: second"]) == "ok"
        assert _outcome(rec["naive: second"]) == FREED
        assert _outcome(rec["reversed: second"]) == FREED
        assert _outcome(rec["add2: second"]) == "ok"
        np.testing.assert_allclose(rec["add2: second"]["grads"]["x"], [6, 3, 9, 5, 8], atol=ATOL)
        # naive: loss1 freed Mul's wrapped 2, Pow (not reached) kept its save
        states = {name: slots for name, _, slots in rec["naive: first"]["graph"]}
        assert states["MulBackward0"] == (("other", "freed"), ("self", "none"))
        assert states["PowBackward0"] == (("self", "alive"),)


def test_ex2_gan(both):
    for rec in both(S.s000_ex2_gan):
        assert _outcome(rec["seed: g_loss"]) == "ok"
        assert _outcome(rec["naive: g_loss"]) == FREED
        assert _outcome(rec["detach: g_loss"]) == "ok"
        assert _outcome(rec["old_output_after_step: g_loss"]) == as_strided("Double", "[4, 1]")
        assert _outcome(rec["old_output_before_step: g_loss"]) == "ok"
        assert rec["seed: G's graph after the D steps"]["value"] == {"alive": 4}
        assert rec["naive: G's graph after the D steps"]["value"] == {"freed": 4}
        assert rec["detach: G's graph after the D steps"]["value"] == {"alive": 4}  # not reached
        leaked = rec["seed: d_loss_fake"]["grads"]
        assert leaked["G.0.weight"] is not None  # without detach D's loss writes into G
        assert rec["detach: d_loss_fake"]["grads"]["G.0.weight"] is None
        seed, detach = rec["G after seed pattern"]["value"], rec["G after detach pattern"]["value"]
        assert not differences(seed, detach)


def test_ex3_shared_backbone(both):
    for rec in both(S.s000_ex3_shared_backbone):
        assert _outcome(rec["naive: loss2"]) == FREED
        assert _outcome(rec["naive_bare_linear: loss2"]) == FREED
        retain, summed = rec["retain: loss2"]["grads"], rec["summed: (loss1+loss2)"]["grads"]
        assert not differences(retain, summed)
        # the failed backward is not atomic: head 2's grads were written before the trunk raised
        before, after = rec["naive: loss1"]["grads"], rec["naive: loss2"]["grads"]
        assert before["head2.weight"] is None and after["head2.weight"] is not None
        assert not differences(before["backbone.0.weight"], after["backbone.0.weight"])


def test_ex4_rnn_per_step_cost_is_quadratic(both):
    for rec in both(S.s000_ex4_rnn_per_step):
        counts = [rec[f"per-step t={t}"]["executed"]["nodes"] for t in range(5)]
        assert counts == [9 + 6 * t for t in range(5)] and sum(counts) == 105
        assert rec["summed loss"]["executed"]["nodes"] == 50
        assert rec["hook calls per h_t"]["value"] == [5, 4, 3, 2, 1]
        assert rec["max |per-step - summed| grad"]["value"] < 1e-6


def test_ex4_rnn_variants(both):
    for rec in both(S.s000_ex4_rnn_variants):
        assert [rec[f"tbptt t={t}"]["executed"]["nodes"] for t in range(4)] == [9] * 4
        assert _outcome(rec["step_in_loop t=1"]) == "ok"
        assert _outcome(rec["step_in_loop t=2"]) == as_strided("Double", "[4, 4]", now=4, saved=3)
    for rec in both(S.s000_ex4_rnn_literal):
        assert _outcome(rec["batch 3"]) == ("ValueError", "too many values to unpack (expected 2)")
        assert _outcome(rec["batch 1"]) == ("ValueError",
                                            "not enough values to unpack (expected 2, got 1)")
        assert _outcome(rec["batch 2"]) == ("RuntimeError",
                                            "Input batch size 2 doesn't match hidden0 batch size 4")


def test_ex5_create_graph_is_the_essential_flag(both):
    no_grad_fn = ("RuntimeError", "element 0 of tensors does not require grad and does not have "
                                  "a grad_fn")
    for rec in both(S.s000_ex5_wgan_gp):
        assert _outcome(rec["no_create_graph (nonlinear D): gp.backward"]) == no_grad_fn
        assert _outcome(rec["create_graph (nonlinear D): gp.backward"]) == "ok"
        assert _outcome(rec["create_graph (nonlinear D): prob.mean().backward"]) == FREED
        assert _outcome(rec["create_graph_seed_retain (nonlinear D): prob.mean().backward"]) == "ok"
        assert _outcome(rec["create_no_retain (nonlinear D): gp.backward"]) == FREED
        assert _outcome(rec["create_no_retain (linear D): gp.backward"]) == "ok"
        linear = rec["create_no_retain (linear D): gp.backward"]["grads"]
        assert linear["D.0.bias"] is None and linear["D.0.weight"] is not None
    for rec in both(S.s000_ex5_backward_create_graph):
        assert rec["x.grad requires grad"]["value"] == [True, True]
        assert _outcome(rec["y.backward() again"]) == "ok"


def test_ex6_step_between_backward_calls(both):
    for rec in both(S.s000_ex6_sequential_opt):
        for opt in ("sgd", "momentum", "adam"):
            assert _outcome(rec[f"mlp/{opt}/retain: loss_b"]) == as_strided("Double", "[5, 2]")
            assert rec[f"mlp/{opt}/retain: versions after step"]["value"] == [3, 3, 3, 3]
        assert _outcome(rec["mlp/sgd/retain_float32: loss_b"]) == as_strided("Float", "[5, 2]")
        assert _outcome(rec["mlp/sgd/fresh_forward: loss_b"]) == "ok"
        assert _outcome(rec["mlp/sgd/no_retain: loss_b"]) == FREED
        # single Linear: no error, loss_b's gradient is taken at the OLD weights and added
        assert _outcome(rec["linear/sgd/retain: loss_b"]) == "ok"
        grads = rec["linear/sgd/retain: loss_b"]["grads"]
        grad_a = rec["linear/sgd/retain: grad_a"]["value"]
        grad_b_old = rec["linear/sgd/retain: grad_b at old weights"]["value"]
        np.testing.assert_allclose(grads["model.0.weight"], grad_a["0.weight"] + grad_b_old[0],
                                   atol=ATOL)
        np.testing.assert_allclose(grads["model.0.bias"], grad_a["0.bias"] + grad_b_old[1],
                                   atol=ATOL)


def test_ex7_conditional(both):
    for rec in both(S.s000_ex7_conditional):
        assert _outcome(rec["naive: final_loss"]) == FREED
        assert _outcome(rec["condition_false: final_loss"]) == "ok"
        assert not differences(rec["condition_true: final_loss"]["grads"], rec["summed"]["grads"])


def test_sec4_memory_grows_only_with_referenced_graphs(both):
    for rec in both(S.s000_sec4_memory):
        assert rec["fresh_forward: live saved tensors"]["value"] == [6] * 6
        assert rec["total_plus_loss: live saved tensors"]["value"] == [6, 12, 18, 24, 30, 36]
        counts = rec["recurrent_state: live saved tensors"]["value"]
        assert counts[0] == 6 and all(b > a for a, b in zip(counts, counts[1:]))
        for variant in ("fresh_forward", "total_plus_loss", "recurrent_state"):
            assert rec[f"{variant}: after dropping all references"]["value"] == 0


def test_seed001_abcde(both):
    for rec in both(S.s001_abcde):
        assert _outcome(rec["naive: e.backward"]) == FREED
        np.testing.assert_allclose(rec["retain: e.backward"]["grads"]["a"],
                                   [[0.5, 1.0, 1.5, 2.0]], atol=ATOL)
        assert _outcome(rec["gradient [1.]"]) == (
            "RuntimeError", "Mismatch in shape: grad_output[0] has a shape of torch.Size([1]) and "
                            "output[0] has a shape of torch.Size([]).")
        assert _outcome(rec["retrain_graph typo"]) == (
            "TypeError", "Tensor.backward() got an unexpected keyword argument 'retrain_graph'")
        assert _outcome(rec["gradient tensor(1.)"]) == "ok"
        assert rec["Variable is a leaf"]["value"] == [True, True, "Tensor"]


def test_seed001_multitask_and_partial_accumulation(both):
    for rec in both(S.s001_multitask_branches):
        forward = rec["loss1_then_loss2: second"]["grads"]
        assert not differences(forward, rec["loss2_then_loss1: second"]["grads"])
        only1, only2 = rec["loss1_only: first"]["grads"], rec["loss2_only: first"]["grads"]
        assert only1["head2.1.weight"] is None
        np.testing.assert_allclose(forward["trunk.0.weight"],
                                   only1["trunk.0.weight"] + only2["trunk.0.weight"], atol=ATOL)
        assert _outcome(rec["naive: second"]) == FREED
    for rec in both(S.s001_partial_accumulation):
        assert _outcome(rec["w_branch_after_a: loss"]) == FREED
        np.testing.assert_allclose(rec["w_branch_after_a: loss"]["grads"]["w"], [3, 3, 3])
        assert _outcome(rec["w_branch_before_a: loss"]) == FREED
        assert rec["w_branch_before_a: loss"]["grads"]["w"] is None


def test_seed002_headlines(both):
    for rec in both(S.s002_ex1_basic_backward):
        np.testing.assert_allclose(rec["out.backward"]["grads"]["x"], np.full((2, 2), 4.5))
        assert _outcome(rec["out.backward again"]) == FREED
    for rec in both(S.s002_ex2_zero_grad):
        assert rec["zero_grad 1: grad after zero_grad"]["value"] is None
        assert not rec["set_to_none_false 1: grad after zero_grad"]["value"].any()
        with_zero = rec["zero_grad: grad norms before each step"]["value"]
        without = rec["no_zero_grad: grad norms before each step"]["value"]
        assert with_zero[0] == without[0] and with_zero[1:] != without[1:]
    for rec in both(S.s002_ex3_two_losses):
        assert _outcome(rec["shared_no_retain: loss2"]) == FREED
        assert _outcome(rec["independent_no_retain: loss2"]) == "ok"
    for rec in both(S.s002_ex4_detach):
        assert rec["loss.backward"]["grads"]["part1.0.weight"] is None
        assert rec["part1 unchanged"]["value"] == [True, True]
        assert rec["intermediate.sum().backward"]["outcome"][1].startswith(
            S.INPLACE + " operation: [torch.DoubleTensor [4, 4]], which is output 0 of Relu, "
                        "is at version 1; expected version 0 instead.")
    for rec in both(S.s002_ex5_nonscalar_backward):
        np.testing.assert_allclose(rec["y.backward(v)"]["grads"]["x"], [0.2, 2.0, 0.0002])
        assert _outcome(rec["y.backward(v) again"]) == FREED
        assert rec["grad dtype"]["value"] == "float32"
    for rec in both(S.s002_ex6_clip_grad_norm):
        norm, ndim, _ = rec["returned norm"]["value"]
        assert ndim == 0 and norm > 1 and abs(rec["norm after clip"]["value"] - 1) < 1e-5
        assert rec["no grads"]["value"] == 0
    for rec in both(S.s002_ex7_custom_function):
        assert rec["MyReLU: node"]["value"] == ["MyReLUBackward", "MyReLUBackward"]
        np.testing.assert_allclose(rec["MyReLU: backward"]["grads"]["x"], [0, 1, 1, 1, 1])
        np.testing.assert_allclose(rec["clamp: backward"]["grads"]["x"], [0, 1, 1, 1, 1])
        np.testing.assert_allclose(rec["relu: backward"]["grads"]["x"], [0, 0, 0, 1, 1])
        assert _outcome(rec["MyReLU: backward again"]) == FREED
        assert rec["saved_tensors[0] is input"]["value"] is True


def test_graphs_without_tensor_saves_replay_and_accumulate(both):
    for rec in both(S.s_sum_only_graphs):
        for name in ("(x+1).sum()", "x.view(-1).sum()"):
            assert _outcome(rec[f"{name} #3"]) == "ok"
            np.testing.assert_allclose(rec[f"{name} #3"]["grads"]["x"], np.full((2, 3), 3.0))
        assert _outcome(rec["(x * 1).sum() #2"]) == FREED


def test_optimizers_bump_once_and_skip_params_without_grad(both):
    for rec in both(S.s_optimizer_steps):
        for name in ("sgd", "sgd_momentum_wd", "adam", "adam_wd_maximize"):
            for step in range(3):  # init 1, copy_ 2, then one bump per step; unused untouched
                assert rec[f"{name} {step}: versions"]["value"] == [[3 + step] * 2, [2, 2]]
            assert rec[f"{name} 1: grads after zero_grad"]["value"] == [None, None]
            zeroed = rec[f"{name} 2: grads after zero_grad"]["value"]
            assert all(g is not None and not g.any() for g in zeroed)
            assert rec[f"{name}: module.zero_grad()"]["value"] == [None, None]
