"""Stochastic gradient descent with optional momentum and weight decay."""
from .._grad_mode import no_grad
from .optimizer import Optimizer


class SGD(Optimizer):
    """p -= lr * g, where g = grad + weight_decay * p, smoothed by momentum if set:
    buf = momentum * buf + (1 - dampening) * g (buf = g at the first step)."""

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False,
                 maximize=False):
        if lr < 0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov,
                                      maximize=maximize))

    @no_grad()
    def step(self):
        for group in self.param_groups:
            for p in group["params"]:
                if p._grad is None:
                    continue
                g = p._grad._data if not group["maximize"] else -p._grad._data
                if group["weight_decay"]:
                    g = g + group["weight_decay"] * p._data
                if group["momentum"]:
                    state = self._state(p)
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        buf = state["momentum_buffer"] = g.copy()
                    else:
                        buf *= group["momentum"]
                        buf += (1 - group["dampening"]) * g
                    g = g + group["momentum"] * buf if group["nesterov"] else buf
                self._write(p, p._data - group["lr"] * g)
