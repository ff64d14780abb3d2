"""SAM (davda54/sam), an in-place write on a saved tensor (the residual-add threads), and
per-sample gradients with torch.func (the PyTorch tutorial "Per-sample-gradients")."""
import torch
from torch import nn

from . import FREED, STALE, Case


class SAM(torch.optim.Optimizer):
    """davda54/sam sam.py, without the adaptive option."""

    def __init__(self, params, base_optimizer, rho=0.05, **kwargs):
        super().__init__(params, dict(rho=rho, **kwargs))
        self.base_optimizer = base_optimizer(self.param_groups, **kwargs)
        self.param_groups = self.base_optimizer.param_groups

    @torch.no_grad()
    def first_step(self, zero_grad=False):
        grad_norm = torch.norm(torch.stack([p.grad.norm(p=2) for group in self.param_groups
                                            for p in group["params"] if p.grad is not None]))
        for group in self.param_groups:
            scale = group["rho"] / (grad_norm + 1e-12)
            for p in group["params"]:
                if p.grad is None:
                    continue
                e_w = p.grad * scale
                p.add_(e_w)
                self.state[p]["e_w"] = e_w
        if zero_grad:
            self.zero_grad()

    @torch.no_grad()
    def second_step(self, zero_grad=False):
        for group in self.param_groups:
            for p in group["params"]:
                if "e_w" in self.state[p]:
                    p.sub_(self.state[p]["e_w"])
        self.base_optimizer.step()
        if zero_grad:
            self.zero_grad()


def sam(reuse_output=False, retain=False):
    """davda54/sam README: two forward-backward passes, optimizer.first_step between them.
    reuse_output: the second loss reuses the first forward's output (a common slip)."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
    optimizer = SAM(model.parameters(), torch.optim.SGD, lr=0.1)
    inputs, targets = torch.randn(5, 4), torch.randn(5, 1)
    loss_function = nn.MSELoss()

    def step():
        output = model(inputs)
        loss = loss_function(output, targets)
        loss.backward(retain_graph=retain)
        optimizer.first_step(zero_grad=True)
        if reuse_output:
            loss_function(output, targets).backward()
        else:
            loss_function(model(inputs), targets).backward()
        optimizer.second_step(zero_grad=True)
    return step, ()


class Block(nn.Module):
    """The residual-add threads on discuss.pytorch.org ('out += identity' after an activation
    that saves its output): torch's sigmoid saves its result, which the add changes."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        out = torch.sigmoid(self.fc(x))
        out += x
        return out


def inplace_residual():
    torch.manual_seed(0)
    block = Block()
    optimizer = torch.optim.SGD(block.parameters(), lr=0.1)
    x = torch.randn(3, 4)

    def step():
        optimizer.zero_grad()
        block(x).pow(2).sum().backward()
        optimizer.step()
    return step, ()


def per_sample_grads():
    """PyTorch tutorial 'Per-sample-gradients' (torch.func): vmap(grad(compute_loss)) over the
    batch with functional_call; then an ordinary backward of the mean loss."""
    from torch.func import functional_call, grad, vmap
    torch.manual_seed(0)
    model = nn.Linear(3, 1)
    data, targets = torch.randn(4, 3), torch.randn(4, 1)
    params = {k: v.detach() for k, v in model.named_parameters()}

    def compute_loss(params, sample, target):
        prediction = functional_call(model, params, (sample.unsqueeze(0),))
        return nn.functional.mse_loss(prediction, target.unsqueeze(0))

    ft_compute_sample_grad = vmap(grad(compute_loss), in_dims=(None, 0, 0))

    def step():
        per_sample = ft_compute_sample_grad(params, data, targets)
        model.zero_grad()
        nn.functional.mse_loss(model(data), targets).backward()
        return per_sample
    return step, ()


CASES = [
    Case("sam", "davda54/sam README (usage)", sam),
    Case("sam_reused_output", "davda54/sam README with the second loss on the first "
         "forward's output", lambda: sam(reuse_output=True), (1, FREED), ["freed-reuse"],
         fix="run the forward again", verified=True, message="changed in place"),
    Case("sam_reused_output_retain", "the same with retain_graph=True on the first backward "
         "(the advice audit must not give)", lambda: sam(reuse_output=True, retain=True),
         (1, STALE), ["stale-saved"]),
    Case("inplace_residual", "discuss.pytorch.org threads on 'out += identity' after an "
         "activation", inplace_residual, (1, STALE), ["stale-saved"],
         message="changed in place by `out += x` at"),
    Case("per_sample_grads", "PyTorch tutorials: Per-sample-gradients (torch.func)",
         per_sample_grads, note="torch.func wrapper tensors"),
]
