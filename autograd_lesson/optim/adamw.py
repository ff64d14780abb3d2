"""AdamW (Loshchilov & Hutter): Adam with decoupled weight decay, default 0.01."""
from .adam import Adam


class AdamW(Adam):
    """Adam whose decay is a separate write ``p *= 1 - lr * weight_decay`` before the Adam
    update: with weight_decay != 0 each step bumps a parameter's version twice (not if fused)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable, differentiable=differentiable,
                         fused=fused, decoupled_weight_decay=True)

    def _setstate(self):
        super()._setstate()
        for group in self.param_groups:  # (whatever the loaded state dict says)
            group["decoupled_weight_decay"] = True
