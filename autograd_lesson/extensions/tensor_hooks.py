"""A tensor's hooks: ``register_hook``, ``retain_grad`` and
``register_post_accumulate_grad_hook``. ``_tensor.TensorBase`` inherits :class:`TensorHooks`.

A leaf keeps its hooks itself (its ``AccumulateGrad`` runs them); a non-leaf's go to its
``grad_fn``, keyed by which output it is, where the engine finds them before the node runs
(``extensions/hooks.py`` runs them and checks what they return).
"""
import weakref


class TensorHooks:
    __slots__ = ()  # (the instance layout is Tensor's)

    def retain_grad(self):
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is None or self._retains_grad:
            return  # (PyTorch's C++ is_leaf reads the stored grad_fn: a stale view is let be)
        fn = self.grad_fn  # (regenerated, or refused, first)
        self._retains_grad = True
        fn._own("_retain_grad_refs")[self._output_nr] = weakref.ref(self)

    def register_hook(self, hook):
        """``hook(grad) -> new grad or None``, called with this tensor's gradient during backward."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.is_leaf:
            if self._hooks is None:
                self._hooks = []
            hooks = self._hooks
        else:
            hooks = self.grad_fn._own("_tensor_pre_hooks").setdefault(self._output_nr, [])
        hooks.append(hook)
        from ..utils.hooks import RemovableHandle  # (utils imports the tensor module)
        return RemovableHandle(hooks, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """``hook(tensor) -> None``, called once a backward has accumulated into ``.grad``."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if not self.is_leaf:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf "
                               "tensors")
        hooks = self.__dict__.setdefault("_post_accumulate_grad_hooks", [])
        hooks.append(hook)
        from ..utils.hooks import RemovableHandle
        return RemovableHandle(hooks, hook)
