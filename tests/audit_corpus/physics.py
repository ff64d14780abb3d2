"""Physics-informed losses and L-BFGS closures: maziarraissi/PINNs (Burgers' equation, as
ported to PyTorch), a Poisson PINN, and the closure of torch.optim.LBFGS (PyTorch docs
"optimizer.step(closure)", pytorch/examples time_sequence_prediction)."""
import torch
from torch import nn

from . import Case


def _mlp():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))


def _burgers_residual(net, x, t, one_call=False):
    u = net(torch.cat([x, t], dim=1))
    if one_call:
        u_t, u_x = torch.autograd.grad(u, (t, x), torch.ones_like(u), create_graph=True)
    else:
        u_t = torch.autograd.grad(u, t, torch.ones_like(u), create_graph=True)[0]
        u_x = torch.autograd.grad(u, x, torch.ones_like(u), create_graph=True)[0]
    u_xx = torch.autograd.grad(u_x, x, torch.ones_like(u_x), create_graph=True)[0]
    return u, u_t + u * u_x - (0.01 / torch.pi) * u_xx


def burgers(one_call=False):
    """maziarraissi/PINNs Burgers' equation (PyTorch ports): u_t and u_x each from their own
    autograd.grad(create_graph=True), u_xx from u_x, one backward of the MSE of u and f."""
    net = _mlp()
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    x = torch.rand(8, 1, requires_grad=True)
    t = torch.rand(8, 1, requires_grad=True)
    u_data = torch.rand(8, 1)

    def step():
        optimizer.zero_grad()
        u, f = _burgers_residual(net, x, t, one_call)
        loss = torch.mean((u - u_data) ** 2) + torch.mean(f ** 2)
        loss.backward()
        optimizer.step()
    return step, ()


def poisson():
    """A Poisson PINN (-u'' = f): one first-order and one second-order
    autograd.grad(create_graph=True), one backward: every pass through the network is one
    order of the derivative."""
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(1, 8), nn.Tanh(), nn.Linear(8, 1))
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    x = torch.rand(8, 1, requires_grad=True)

    def step():
        optimizer.zero_grad()
        u = net(x)
        u_x = torch.autograd.grad(u, x, torch.ones_like(u), create_graph=True)[0]
        u_xx = torch.autograd.grad(u_x, x, torch.ones_like(u_x), create_graph=True)[0]
        loss = torch.mean((u_xx + torch.sin(x)) ** 2) + net(torch.zeros(1, 1)).pow(2).sum()
        loss.backward()
        optimizer.step()
    return step, ()


def burgers_lbfgs():
    """maziarraissi/PINNs Burgers' equation with torch.optim.LBFGS (PyTorch ports): the
    closure computes u_t and u_x in two calls; LBFGS(max_iter=4) calls it 4 times."""
    net = _mlp()
    optimizer = torch.optim.LBFGS(net.parameters(), lr=0.1, max_iter=4)
    x = torch.rand(8, 1, requires_grad=True)
    t = torch.rand(8, 1, requires_grad=True)
    u_data = torch.rand(8, 1)

    def closure():
        optimizer.zero_grad()
        u, f = _burgers_residual(net, x, t)
        loss = torch.mean((u - u_data) ** 2) + torch.mean(f ** 2)
        loss.backward()
        return loss

    def step():
        optimizer.step(closure)
    return step, ()


def sequence_lbfgs():
    """pytorch/examples time_sequence_prediction/train.py: LBFGS with a closure that runs the
    forward and one backward each time it is called."""
    torch.manual_seed(0)
    seq = nn.LSTMCell(1, 6)
    linear = nn.Linear(6, 1)
    params = [*seq.parameters(), *linear.parameters()]
    optimizer = torch.optim.LBFGS(params, lr=0.5, max_iter=3)
    inputs, target = torch.randn(3, 5), torch.randn(3, 5)

    def closure():
        optimizer.zero_grad()
        h = c = torch.zeros(3, 6)
        outputs = []
        for i in range(5):
            h, c = seq(inputs[:, i:i + 1], (h, c))
            outputs.append(linear(h))
        loss = nn.functional.mse_loss(torch.cat(outputs, 1), target)
        loss.backward()
        return loss

    def step():
        optimizer.step(closure)
    return step, ()


CASES = [
    Case("burgers_pinn", "maziarraissi/PINNs Burgers' equation (PyTorch ports: u_t, u_x in two "
         "autograd.grad calls)", burgers, None, ["double-traversal"],
         fix="torch.autograd.grad(u, (t, x), ...)"),
    Case("burgers_pinn_one_call", "maziarraissi/PINNs Burgers' equation with u_t, u_x from one "
         "autograd.grad over both inputs", lambda: burgers(one_call=True)),
    Case("poisson_pinn", "a Poisson PINN: one first-order, one second-order autograd.grad and "
         "one backward", poisson),
    Case("burgers_lbfgs", "maziarraissi/PINNs Burgers' equation with torch.optim.LBFGS "
         "(closure called 4 times)", burgers_lbfgs, None, ["double-traversal"],
         message="(×8 calls, lines"),
    Case("sequence_lbfgs", "pytorch/examples time_sequence_prediction/train.py (LBFGS closure)",
         sequence_lbfgs),
]
