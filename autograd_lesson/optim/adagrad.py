"""Adagrad (Duchi et al.), PyTorch's single-tensor formulation."""
import numpy as np

from .._grad_mode import no_grad
from .optimizer import Optimizer, check_hyperparameter, check_lr, new_buffer, new_step, number


class Adagrad(Optimizer):
    """g = grad + weight_decay * p; sum += g^2;
    p -= lr / (1 + (t - 1) * lr_decay) * g / (sqrt(sum) + eps).
    The state (``step`` 0, ``sum`` = initial_accumulator_value) exists from construction on."""

    _setstate_defaults = dict(foreach=None, maximize=False, differentiable=False, fused=None)

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
                 eps=1e-10, foreach=None, *, maximize=False, differentiable=False, fused=None):
        check_lr(lr)
        check_hyperparameter("lr_decay", lr_decay)
        check_hyperparameter("weight_decay", weight_decay)
        check_hyperparameter("initial_accumulator_value", initial_accumulator_value)
        check_hyperparameter("eps", eps, f"Invalid epsilon value: {eps}")
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value,
                                      foreach=foreach, maximize=maximize,
                                      differentiable=differentiable, fused=fused))
        for group in self.param_groups:
            for p in group["params"]:
                self._state(p).update(step=new_step(),
                                      sum=new_buffer(p, group["initial_accumulator_value"]))

    @no_grad()
    def step(self, closure=None):
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            for p, g in self._grads(group):
                if group["weight_decay"]:
                    g = g + group["weight_decay"] * p._data
                state = self._state(p)
                state["step"]._data += 1
                clr = number(group["lr"]) / (1 + (float(state["step"]._data) - 1) * group["lr_decay"])
                total = state["sum"]._data
                total += g * g
                std = np.sqrt(total) + group["eps"]
                self._write(p, p._data - clr * g / std, group)
        return loss
