"""Stochastic gradient descent with optional momentum and weight decay."""
from .._grad_mode import no_grad
from .._tensor import Tensor
from .optimizer import Optimizer, check_hyperparameter, check_lr, number


class SGD(Optimizer):
    """p -= lr * g, where g = grad + weight_decay * p, smoothed by momentum if set:
    buf = momentum * buf + (1 - dampening) * g (buf = g at the first step);
    nesterov uses g + momentum * buf. One write into p per step."""

    _setstate_defaults = dict(nesterov=False, maximize=False, foreach=None, differentiable=False,
                              fused=False)

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False,
                 *, maximize=False, foreach=None, differentiable=False, fused=None):
        check_lr(lr, zero_first=False)
        check_hyperparameter("momentum", momentum, zero_first=False)
        check_hyperparameter("weight_decay", weight_decay, zero_first=False)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov,
                                      maximize=maximize, foreach=foreach,
                                      differentiable=differentiable, fused=fused))

    @no_grad()
    def step(self, closure=None):
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            momentum = group["momentum"]
            for p, g in self._grads(group):
                if group["weight_decay"]:
                    g = g + group["weight_decay"] * p._data
                if momentum:
                    state = self._state(p)
                    if state.get("momentum_buffer") is None:  # PyTorch's clone(grad).detach()
                        buf = g.copy()
                        state["momentum_buffer"] = Tensor._make(buf)
                    else:
                        buf = state["momentum_buffer"]._data
                        buf *= momentum
                        buf += (1 - group["dampening"]) * g
                    g = g + momentum * buf if group["nesterov"] else buf
                self._write(p, p._data - number(group["lr"]) * g, group)
        return loss
