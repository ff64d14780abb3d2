"""Adam (Kingma & Ba), PyTorch's single-tensor formulation."""
import math

import numpy as np

from .._grad_mode import no_grad
from .optimizer import (Optimizer, check_betas, check_hyperparameter, check_lr, new_buffer,
                        new_step, number)


class Adam(Optimizer):
    """m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2 (amsgrad: v_max = max(v_max, v));
    p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps).

    weight_decay adds ``wd * p`` to g; with ``decoupled_weight_decay`` (AdamW) it is instead a
    separate write ``p *= 1 - lr * wd`` before the update: a second version bump per step."""

    _setstate_defaults = dict(amsgrad=False, maximize=False, foreach=None, capturable=False,
                              differentiable=False, decoupled_weight_decay=False, fused=None)

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        check_lr(lr)
        check_hyperparameter("eps", eps, f"Invalid epsilon value: {eps}")
        betas = check_betas(betas)
        check_hyperparameter("weight_decay", weight_decay)
        if capturable:
            raise NotImplementedError("autograd_lesson has no CUDA graphs: use capturable=False")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      amsgrad=amsgrad, maximize=maximize, foreach=foreach,
                                      capturable=capturable, differentiable=differentiable,
                                      fused=fused, decoupled_weight_decay=decoupled_weight_decay))

    @no_grad()
    def step(self, closure=None):
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            (beta1, beta2), lr, wd = group["betas"][:2], group["lr"], group["weight_decay"]
            beta1, beta2, lr = number(beta1), number(beta2), number(lr)
            for p, g in self._grads(group):
                if wd and group["decoupled_weight_decay"]:
                    self._write(p, p._data * (1 - lr * wd), group)
                elif wd:
                    g = g + wd * p._data
                state = self._state(p)
                if not state:
                    state.update(step=new_step(), exp_avg=new_buffer(p), exp_avg_sq=new_buffer(p))
                    if group["amsgrad"]:
                        state["max_exp_avg_sq"] = new_buffer(p)
                state["step"]._data += 1
                m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
                t = float(state["step"]._data)
                m += (g - m) * (1 - beta1)
                v *= beta2
                v += (1 - beta2) * g * g
                if group["amsgrad"]:
                    v_max = state["max_exp_avg_sq"]._data
                    v = np.maximum(v_max, v, out=v_max)
                step_size = lr / (1 - beta1 ** t)
                # math.sqrt: a Python float keeps float32 arithmetic in float32 (NumPy's NEP 50)
                denom = np.sqrt(v) / math.sqrt(1 - beta2 ** t) + group["eps"]
                self._write(p, p._data - step_size * m / denom, group)
        return loss
