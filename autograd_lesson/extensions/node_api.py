"""What a node offers besides its backward, as PyTorch's nodes do: hooks
(``register_prehook``, ``register_hook``), the saves under PyTorch's names
(``node._saved_self``, through ``saved_attributes``), ``metadata``, and the package's own
introspection for the view (``saved_buffers()``, ``saved_values()``).
``_node.Node`` inherits :class:`NodeAPI`; the engine reads only the lists these fill.
"""
from . import saved_attributes


class NodeAPI:
    def register_prehook(self, hook):
        """``hook(grad_outputs) -> new grad_outputs or None``, called before the node runs."""
        from ..utils.hooks import RemovableHandle
        hooks = self._own("_pre_hooks", list)
        hooks.append(hook)
        return RemovableHandle(hooks, hook)

    def register_hook(self, hook):
        """``hook(grad_inputs, grad_outputs) -> new grad_inputs or None``, called after it runs."""
        from ..utils.hooks import RemovableHandle
        hooks = self._own("_post_hooks", list)
        hooks.append(hook)
        return RemovableHandle(hooks, hook)

    def _own(self, name, factory=dict):
        """This node's own hook list or dict ``name``, created on first use. (Not through
        ``self.__dict__``: reading it makes CPython give the instance a real dict in place of
        its inline attribute values, and every later attribute read of that node is slower.)"""
        mine = getattr(self, name, None)
        if mine is None or mine is getattr(type(self), name, None):  # (the class's default)
            mine = factory()
            setattr(self, name, mine)
        return mine

    def _check_call(self, grad_outputs, kwargs):
        """A node called by hand (``y.grad_fn(g)``) takes one gradient per output of its op,
        each a Tensor or None, as PyTorch's ``THPCppFunction_call`` checks."""
        if kwargs:
            raise TypeError("keyword arguments are not supported")
        if len(grad_outputs) != self._num_outputs:
            raise TypeError(f"expected {self._num_outputs} arguments, got {len(grad_outputs)} "
                            f"instead")
        from .._tensor import TensorBase
        for i, grad in enumerate(grad_outputs):
            if grad is not None and not isinstance(grad, TensorBase):
                raise TypeError(f"argument {i} is not a Variable")

    def _expose(self, name, *prefixes):
        """Make ``node.<prefix><name>`` readable on this node's class. The caller checks first
        whether the class's own ``_exposed`` pair has the name (a save per op: no call then)."""
        saved_attributes.expose(type(self), name, *prefixes)

    def _lookup_saved(self, attr):
        return saved_attributes.lookup(self, attr)

    def __dir__(self):
        """The saves are listed as PyTorch's nodes list them, the bookkeeping behind them is not;
        a list's entries (``indices[0]``) are read whole."""
        hidden = {"_saved_slots", "_saved_values", "_lookup_saved"}
        names = (set(super().__dir__()) - hidden) | saved_attributes.names(self)
        return sorted(name for name in names if "[" not in name)

    def saved_buffers(self):
        """This node's saved tensor slots as read-only records (weak references only)."""
        return [saved_attributes.SavedBuffer(self, slot, saved)
                for slot, saved in self._saved_slots.items() if saved is not None]

    def saved_values(self):
        """The non-tensor saves (``dim``, ``alpha``, ``self_sym_sizes`` ...), always readable."""
        return dict(self._saved_values)

    @property
    def metadata(self):
        """A dict for anything attached to the node (anomaly mode keeps ``traceback_`` here)."""
        return self.__dict__.setdefault("_metadata", {})
