"""Adam (Kingma & Ba), PyTorch's single-tensor formulation."""
import numpy as np

from .._grad_mode import no_grad
from .optimizer import Optimizer


class Adam(Optimizer):
    """m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2;
    p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, maximize=False):
        if amsgrad:
            raise NotImplementedError("autograd_lesson's Adam does not implement amsgrad")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      maximize=maximize))

    @no_grad()
    def step(self):
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p._grad is None:
                    continue
                g = p._grad._data if not group["maximize"] else -p._grad._data
                if group["weight_decay"]:
                    g = g + group["weight_decay"] * p._data
                state = self._state(p)
                if not state:
                    state.update(step=0, exp_avg=np.zeros_like(p._data),
                                 exp_avg_sq=np.zeros_like(p._data))
                state["step"] += 1
                m, v, t = state["exp_avg"], state["exp_avg_sq"], state["step"]
                m += (g - m) * (1 - beta1)
                v *= beta2
                v += (1 - beta2) * g * g
                step_size = group["lr"] / (1 - beta1 ** t)
                denom = np.sqrt(v) / np.sqrt(1 - beta2 ** t) + group["eps"]
                self._write(p, p._data - step_size * m / denom)
