"""Meta-learning and multi-task steps: MAML (dragen1860/MAML-Pytorch, learn2learn), GradNorm
(the GradNorm paper's reference code and its PyTorch ports), a shared backbone with two heads,
and the AMP docs' "multiple models, losses and optimizers" example."""
import torch
from torch import nn

from . import Case


def maml():
    """dragen1860/MAML-Pytorch meta.py: inner step with
    grad = torch.autograd.grad(loss, fast_weights, create_graph=True), the query loss through
    the fast weights, one meta backward (second order, legitimately through the gradient)."""
    torch.manual_seed(0)
    w, b = torch.randn(3, 1, requires_grad=True), torch.zeros(1, requires_grad=True)
    meta_optim = torch.optim.Adam([w, b], lr=1e-3)
    tasks = [(torch.randn(4, 3), torch.randn(4, 1), torch.randn(4, 3), torch.randn(4, 1))
             for _ in range(2)]

    def step():
        losses_q = 0
        for x_spt, y_spt, x_qry, y_qry in tasks:
            loss = nn.functional.mse_loss(torch.tanh(x_spt @ w + b), y_spt)
            grad = torch.autograd.grad(loss, [w, b], create_graph=True)
            fast_weights = [p - 0.4 * g for p, g in zip([w, b], grad)]
            logits_q = torch.tanh(x_qry @ fast_weights[0] + fast_weights[1])
            losses_q = losses_q + nn.functional.mse_loss(logits_q, y_qry)
        meta_optim.zero_grad()
        (losses_q / len(tasks)).backward()
        meta_optim.step()
    return step, ()


def _two_heads():
    torch.manual_seed(0)
    trunk = nn.Sequential(nn.Linear(4, 8), nn.ReLU())
    head1, head2 = nn.Linear(8, 1), nn.Linear(8, 1)
    x, y1, y2 = torch.randn(6, 4), torch.randn(6, 1), torch.randn(6, 1)
    params = [*trunk.parameters(), *head1.parameters(), *head2.parameters()]
    return trunk, head1, head2, x, y1, y2, params


def gradnorm():
    """GradNorm (Chen et al. 2018) PyTorch ports: the norm of each task's gradient at the last
    shared layer, each from its own torch.autograd.grad(..., retain_graph=True,
    create_graph=True), a loss on the weights from them, then the weighted total's backward."""
    trunk, head1, head2, x, y1, y2, params = _two_heads()
    weights = torch.ones(2, requires_grad=True)
    optimizer = torch.optim.Adam(params + [weights], lr=1e-3)
    shared = trunk[0].weight

    def step():
        h = trunk(x)
        l1 = nn.functional.mse_loss(head1(h), y1)
        l2 = nn.functional.mse_loss(head2(h), y2)
        G1R = torch.autograd.grad(l1, shared, retain_graph=True, create_graph=True)[0]
        G2R = torch.autograd.grad(l2, shared, retain_graph=True, create_graph=True)[0]
        G1 = torch.norm(weights[0] * G1R)
        G2 = torch.norm(weights[1] * G2R)
        G_avg = ((G1 + G2) / 2).detach()
        Lgrad = (G1 - G_avg).abs() + (G2 - G_avg).abs()
        optimizer.zero_grad()
        total = weights[0].detach() * l1 + weights[1].detach() * l2
        weights.grad = torch.autograd.grad(Lgrad, weights, retain_graph=True)[0]
        total.backward()
        optimizer.step()
    return step, ()


def two_heads(retain=True):
    """discuss.pytorch.org 'How to do backward() for multiple losses': loss1.backward(
    retain_graph=True); loss2.backward(); optimizer.step(): the same gradients as
    (loss1 + loss2).backward(), with the backbone run twice."""
    trunk, head1, head2, x, y1, y2, params = _two_heads()
    optimizer = torch.optim.SGD(params, lr=0.1)

    def step():
        optimizer.zero_grad()
        h = trunk(x)
        loss1 = nn.functional.mse_loss(head1(h), y1)
        loss2 = nn.functional.mse_loss(head2(h), y2)
        if retain:
            loss1.backward(retain_graph=True)
            loss2.backward()
        else:
            (loss1 + loss2).backward()
        optimizer.step()
    return step, ()


def amp_multiple_losses():
    """PyTorch AMP examples, "Working with Multiple Models, Losses, and Optimizers":
    scaler.scale(loss0).backward(retain_graph=True); scaler.scale(loss1).backward(); both
    optimizers step after both backwards (CPU: torch.amp.GradScaler("cpu"))."""
    torch.manual_seed(0)
    model0, model1 = nn.Linear(4, 2), nn.Linear(4, 2)
    optimizer0 = torch.optim.SGD(model0.parameters(), lr=0.1)
    optimizer1 = torch.optim.SGD(model1.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    loss_fn = nn.MSELoss()
    inputs, target = torch.randn(3, 4), torch.randn(3, 2)

    def step():
        optimizer0.zero_grad()
        optimizer1.zero_grad()
        output0, output1 = model0(inputs), model1(inputs)
        loss0 = loss_fn(2 * output0 + 3 * output1, target)
        loss1 = loss_fn(3 * output0 - 5 * output1, target)
        scaler.scale(loss0).backward(retain_graph=True)
        scaler.scale(loss1).backward()
        scaler.step(optimizer0)
        scaler.step(optimizer1)
        scaler.update()
    return step, ()


CASES = [
    Case("maml", "dragen1860/MAML-Pytorch meta.py (second-order inner step)", maml),
    Case("gradnorm", "GradNorm (Chen et al. 2018) PyTorch ports: per-task autograd.grad at the "
         "last shared layer (the weights' gradient keeps its graph for nothing: unused)",
         gradnorm, None, ["unused-retain", "double-traversal"], fix="is_grads_batched=True",
         verified=True),
    Case("two_heads_retain", "discuss.pytorch.org 'How to do backward() for multiple losses'",
         two_heads, None, ["double-traversal"], fix="(loss1 + loss2).backward()",
         verified=True),
    Case("two_heads_summed", "discuss.pytorch.org 'How to do backward() for multiple losses' "
         "(the answer: sum the losses)", lambda: two_heads(retain=False)),
    Case("amp_multiple_losses", "pytorch.org/docs notes/amp_examples 'Working with Multiple "
         "Models, Losses, and Optimizers'", amp_multiple_losses, None, ["double-traversal"],
         fix="(scaler.scale(loss0) + scaler.scale(loss1)).backward()", verified=True),
]
