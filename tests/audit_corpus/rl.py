"""Reinforcement learning: pytorch/examples reinforcement_learning and the SAC / actor-critic
issue threads about the in-place version error."""
import torch
from torch import nn

from . import STALE, Case


def actor_critic():
    """pytorch/examples reinforcement_learning/actor_critic.py finish_episode: policy and value
    losses of one shared network, summed, one backward."""
    torch.manual_seed(0)
    affine = nn.Linear(4, 8)
    action_head, value_head = nn.Linear(8, 2), nn.Linear(8, 1)
    params = [*affine.parameters(), *action_head.parameters(), *value_head.parameters()]
    optimizer = torch.optim.Adam(params, lr=3e-2)
    states, returns = torch.randn(5, 4), torch.randn(5)

    def step():
        x = torch.relu(affine(states))
        probs = torch.softmax(action_head(x), dim=-1)
        values = value_head(x).squeeze(-1)
        log_prob = torch.log(probs[:, 0])
        advantage = returns - values.detach()
        policy_loss = -(log_prob * advantage).sum()
        value_loss = nn.functional.smooth_l1_loss(values, returns)
        optimizer.zero_grad()
        loss = policy_loss + value_loss
        loss.backward()
        optimizer.step()
    return step, ()


def reinforce():
    """pytorch/examples reinforcement_learning/reinforce.py finish_episode."""
    torch.manual_seed(0)
    policy = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2), nn.Softmax(dim=-1))
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
    states, returns = torch.randn(5, 4), torch.randn(5)

    def step():
        log_probs = torch.log(policy(states)[:, 1])
        policy_loss = (-log_probs * returns).sum()
        optimizer.zero_grad()
        policy_loss.backward()
        optimizer.step()
    return step, ()


def sac_update(reordered=False):
    """microsoft/oac-explore issue #27 (trainer.py): the policy loss goes through qf1 and is
    computed before qf1_optimizer.step(); its backward then finds qf1's saved weight changed.
    The fix in the thread computes the policy loss after the critic's step."""
    torch.manual_seed(0)
    policy = nn.Linear(3, 2)
    qf1 = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 1))
    qf1_optimizer = torch.optim.Adam(qf1.parameters(), lr=1e-3)
    policy_optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3)
    obs, actions, q_target = torch.randn(4, 3), torch.randn(4, 2), torch.randn(4, 1)

    def step():
        new_actions = torch.tanh(policy(obs))
        if not reordered:
            policy_loss = -qf1(torch.cat([obs, new_actions], 1)).mean()
        qf1_loss = (qf1(torch.cat([obs, actions], 1)) - q_target).pow(2).mean()
        qf1_optimizer.zero_grad()
        qf1_loss.backward(retain_graph=True)
        qf1_optimizer.step()
        if reordered:
            policy_loss = -qf1(torch.cat([obs, new_actions], 1)).mean()
        policy_optimizer.zero_grad()
        policy_loss.backward()
        policy_optimizer.step()
    return step, ()


CASES = [
    Case("actor_critic", "pytorch/examples reinforcement_learning/actor_critic.py",
         actor_critic),
    Case("reinforce", "pytorch/examples reinforcement_learning/reinforce.py", reinforce),
    Case("sac_policy_before_critic_step", "microsoft/oac-explore issue #27 (trainer.py "
         "lines 120-159)", sac_update, (1, STALE), ["stale-saved"],
         message="changed in place by `qf1_optimizer.step()` at", fix="qf1_optimizer.step()",
         note="nor is retain_graph=True on backward #1"),
    Case("sac_reordered", "microsoft/oac-explore issue #27: the policy loss after the critic's "
         "step (the fix in the thread)", lambda: sac_update(reordered=True), None,
         ["unused-retain"], verified=True),
]
