"""In-place ops, as PyTorch records them: one rule for every ``x.op_()``, and ``CopySlices``.

``x.op_(...)`` runs the out-of-place op on ``x``, writes the result into ``x``'s memory, bumps
the version counter and then *rebases* ``x``'s history onto the op's node:

* a tensor that is not a view takes the node as its ``grad_fn`` (``x.relu_()``:
  ``ReluBackward0``, whose edge leads to x's old ``grad_fn``). A save of ``self`` becomes a
  recorded clone of the old values (PyTorch's ``original_self``); a save of the ``result`` is
  ``x`` itself, at its new version.
* for a view, the node is wrapped in a ``CopySlices`` that becomes the **base**'s ``grad_fn``:
  the base's gradient passes through unchanged outside the view and through the node inside
  it. The view's own ``grad_fn`` is then stale; reading it makes an ``AsStridedBackward0``
  that selects the view from the base, as PyTorch does for every view whose base (or another
  view of it) changed in place.
"""
import weakref

import numpy as np

from .. import _grad_mode, _node
from .._autograd_errors import FREED_MESSAGE, op_name
from .._node import Node
from .._tensor import Tensor
from ..ops.views import AsStridedBackward0, _as_strided_node
from .checks import broadcast_shape, check_alpha
from .kernels import _offsets, check_overlap, has_internal_overlap
from .promotion import check_castable, result_type

NO_GRAD_VIEW_INPLACE = (
    "A view was created in no_grad mode and is being modified inplace with grad mode enabled. "
    "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your "
    "code by moving both the view and the inplace either both inside the no_grad block (if you "
    "don't want the inplace to be tracked) or both outside (if you want the inplace to be "
    "tracked).")
NO_GRAD_VIEW_REBASE = NO_GRAD_VIEW_INPLACE.replace(
    "is being modified inplace", "its base or another view of its base has been modified inplace")
LEAF_INPLACE_ERROR = "a leaf Variable that requires grad is being used in an in-place operation."
LEAF_VIEW_INPLACE_ERROR = ("a view of a leaf Variable that requires grad is being used in an "
                           "in-place operation.")
MULTI_VIEW_TAIL = (
    " This view is the output of a function that returns multiple views. Such functions do not "
    "allow the output views to be modified inplace. You should replace the inplace operation by "
    "an out-of-place one.")
NO_GRAD_VIEW_TAIL = NO_GRAD_VIEW_INPLACE[NO_GRAD_VIEW_INPLACE.index(" Given"):]
CUSTOM_VIEW_TAIL = (
    " This view was created inside a custom Function (or because an input was returned as-is) "
    "and the autograd logic to handle view+inplace would override the custom backward "
    "associated with the custom Function, leading to incorrect gradients. This behavior is "
    "forbidden. You can fix this by cloning the output of the custom Function.")
INFERENCE_VIEW_TAIL = NO_GRAD_VIEW_TAIL.replace("no_grad block", "inference_mode block")
VIEW_KINDS = ("_multi_view", "_custom_view")  # how a view was made, besides no_grad


def view_error(view, indirect=False):
    """PyTorch's ``handle_view_on_rebase``: the message for an in-place change of a view made
    in no_grad or inference mode, by a multi-output op (split, unbind) or by a custom Function
    (and the views of such a view)."""
    modified = ("its base or another view of its base has been modified inplace" if indirect
                else "is being modified inplace")
    multi = "_multi_view" in view.__dict__
    custom = "_custom_view" in view.__dict__
    fn = view._grad_fn
    made, now, tail = (("inference mode", "in normal mode", INFERENCE_VIEW_TAIL)
                       if view._creation_meta == "inference" else
                       ("no_grad mode", "with grad mode enabled", NO_GRAD_VIEW_TAIL))
    if fn is None:
        head = f"A view was created in {made} and {modified} {now}."
    elif multi or custom:
        head = f"Output {view._output_nr} of {op_name(fn)} is a view and {modified}."
    else:
        head = (f"Output {view._output_nr} of {op_name(fn)} is a view of a view which was "
                f"created in {made} and {modified} {now}.")
    return head + (MULTI_VIEW_TAIL if multi else CUSTOM_VIEW_TAIL if custom else tail)


OVERLAP_ERROR = ("unsupported operation: more than one element of the written-to tensor refers "
                 "to a single memory location. Please clone() the tensor before performing the "
                 "operation.")


def check_inplace(x, others=()):
    """PyTorch's ``check_inplace`` (when recording and the op needs a gradient). Its autograd
    kernel runs only if some operand is a normal tensor (a number in ``others`` is one, as the
    wrapped number of ``add_(1)``): an op on inference tensors alone skips it, and the write's
    version bump refuses them outside inference mode (in ``apply``)."""
    if _grad_mode._recording() and (
            x.requires_grad or any(isinstance(o, Tensor) and o.requires_grad for o in others)
    ) and not (x._storage.inference and all(isinstance(o, Tensor) and o._storage.inference
                                            for o in others)):
        _check_views_and_leaves(x)


def _check_views_and_leaves(x):
    base = x._base
    if base is not None:
        if x._creation_meta or any(k in x.__dict__ for k in VIEW_KINDS):
            raise RuntimeError(view_error(x))
        if x.requires_grad and base.is_leaf:
            raise RuntimeError(LEAF_VIEW_INPLACE_ERROR)
    elif x.requires_grad and x.is_leaf:
        raise RuntimeError(LEAF_INPLACE_ERROR)


_write_hooks = []  # allow_mutation_on_saved_tensors: told of each tensor about to be written


def before_write(tensor):
    """Every in-place write calls this first (where PyTorch's dispatch modes see the op)."""
    for hook in list(_write_hooks):
        hook(tensor)


def apply(x, compute, others=(), overlap=True, written=None, alpha=1):
    """``x.op_()``: ``compute(x)`` is the out-of-place op; its values and node go into ``x``.

    With ``overlap`` (TensorIterator's checks, before the op runs) x may not be expanded nor
    partly share memory with another operand; ``fill_(number)``/``zero_`` skip them, and
    ``overlap="internal"`` (``fill_(0-dim tensor)``) checks only x's own, as PyTorch.
    ``written``: a mask of the elements to write (``index_put_`` on an expanded tensor).
    ``alpha`` (``add_``/``sub_``) is checked after the shapes and the cast, TensorIterator's
    order, and before the op runs (which would check it first)."""
    check_inplace(x, others)
    if overlap:
        if has_internal_overlap(x._data):
            raise RuntimeError(OVERLAP_ERROR)
    if overlap is True:
        for other in others:
            if isinstance(other, Tensor):
                check_overlap(x, other, partial_only=True)
    if type(alpha) is not int or alpha != 1:  # before the kernel, which would check it first
        (other,) = others
        _check_output(x, broadcast_shape(x.shape, other.shape if isinstance(other, Tensor) else ()),
                      result_type(x, other))
        check_alpha(alpha, result_type(x, other))
    _node._inplace_self = x  # while it is set, a save of ``self`` is a clone of x
    try:
        result = compute(x)
    finally:
        _node._inplace_self = None
    _check_output(x, result.shape, result._data.dtype)
    if _write_hooks:
        before_write(x)
    np.copyto(x._data, result._data, casting="unsafe", where=True if written is None else written)
    x._bump_version()
    node = result.grad_fn
    if node is not None:
        rebase_history(x, node)
        for slot, _ in node._output_saves:  # the op's result is x itself, at its new version
            node.save(slot, x, is_output=True)
            if x._base is not None:  # PyTorch keeps the view's grad_fn weakly, for messages
                node._saved_slots[slot].view_fn = weakref.ref(x.grad_fn)
    return x


def _check_output(x, shape, dtype):
    """TensorIterator's checks of an in-place op's output: x's shape, then the cast."""
    if x._data.shape != tuple(shape):
        raise RuntimeError(f"output with shape {list(x.shape)} doesn't match the broadcast "
                           f"shape {list(shape)}")
    check_castable(dtype, x._data.dtype)


def rebase_history(x, node):
    """Make ``node`` (whose input 0 was x) the producer of x's new values."""
    base = x._base
    if base is None:
        move_retains_grad(x, node)
        x._grad_fn, x._output_nr, x._requires_grad = node, 0, True
        return
    copy_slices = CopySlices(base, x, node)
    move_retains_grad(base, copy_slices)
    base._grad_fn, base._output_nr, base._requires_grad = copy_slices, 0, True
    x._requires_grad = True
    x.grad_fn  # (stale now: PyTorch regenerates it at once, moving its retain_grad too)


def move_retains_grad(tensor, node):
    """PyTorch's ``update_tensor_hooks_on_new_gradfn``: a tensor that retains its grad keeps
    doing so through its new grad_fn ``node`` (output 0), not the one it replaces. (Its hooks
    stay on the old node: a hook registered from now on goes to the new one.)"""
    if tensor._retains_grad:
        tensor._grad_fn._own("_retain_grad_refs").pop(tensor._output_nr, None)
        node._own("_retain_grad_refs")[0] = weakref.ref(tensor)


def detach_(x):
    if x._base is not None:
        raise RuntimeError(
            "Can't detach views in-place. Use detach() instead. If you are using "
            "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as "
            "True, gradients are views of DDP buckets, and hence detach_() cannot be called on "
            "these gradients. To fix this error, please refer to the Optimizer.zero_grad() "
            "function in torch/optim/optimizer.py as the solution.")
    x._grad_fn, x._output_nr, x._requires_grad = None, 0, False
    return x


def view_geometry(view, base):
    """PyTorch's as_strided arguments for ``view`` (sizes, strides, storage offset), and the
    flat index into ``base`` of each of its elements."""
    start = (view.data_ptr() - base.data_ptr()) // max(base._data.itemsize, 1)
    strides = view.stride()  # (an empty view's are the C-ordered ones, as Tensor.stride)
    index = _offsets(view._data) + start
    memory = _offsets(base._data).ravel()
    if memory.size and not np.array_equal(memory, np.arange(memory.size)):
        lookup = np.zeros(memory.max() - memory.min() + 1, dtype=np.int64)
        lookup[memory - memory.min()] = np.arange(memory.size)
        index = lookup[index - memory.min()]
    return tuple(view.shape), strides, int(start), index


def _affine(index):
    """Strides and offset, in C-order elements of the base, such that ``index`` (a view's flat
    indices into its base) is ``offset + sum(i_k * strides_k)``: true of every view."""
    offset = int(index.flat[0]) if index.size else 0
    if not index.size:  # an empty view: no element says where it sits
        return (0,) * index.ndim, offset
    strides = tuple(int(index[(0,) * k + (1,) + (0,) * (index.ndim - k - 1)]) - offset
                    if n > 1 else 0 for k, n in enumerate(index.shape))
    return strides, offset


def regenerate_view_fn(view):
    """Give a view whose base changed in place a fresh ``AsStridedBackward0`` (on read)."""
    base = view._base
    if view._grad_fn is None and not base.requires_grad:
        return
    if view._creation_meta or any(k in view.__dict__ for k in VIEW_KINDS):
        raise RuntimeError(view_error(view, indirect=True))
    node = AsStridedBackward0()
    _as_strided_node(node, base, *view_geometry(view, base))
    node.next_functions = (base._gradient_edge(),)
    node._input_metadata = ((base._data.shape, base._data.dtype),)
    move_retains_grad(view, node)
    view._grad_fn, view._output_nr, view._requires_grad = node, 0, True
    view._attr_version = view._version_counter.value


class CopySlices(Node):
    """The base's ``grad_fn`` after an in-place op on one of its views (``h[:, t] = a``).

    Edge 0 goes to the base's previous history, the others to the wrapped node's other inputs.
    Backward, as PyTorch's: copy the base's gradient, run the wrapped node on the view's part,
    write its gradient back into that part. It saves no tensor itself, but a backward without
    ``retain_graph`` drops the wrapped node, so a second backward raises the usual error.
    """

    __getattr__ = Node._lookup_saved  # (messages name it torch::autograd::CopySlices)

    def __init__(self, base, view, fn):
        super().__init__()
        self.fn = fn
        self.base_shape, self.view_shape = base.shape, view.shape
        self.strides, self.offset = _affine(view_geometry(view, base)[3])
        self.next_functions = (base._gradient_edge(),) + tuple(fn.next_functions[1:])
        self._input_metadata = ((base._data.shape, base._data.dtype),) + tuple(fn._input_metadata[1:])

    def name(self):
        return "torch::autograd::CopySlices"

    def _backward(self, grad_outputs):
        if self.fn is None:
            raise RuntimeError(FREED_MESSAGE)
        grad = grad_outputs[0]
        if grad is None:
            return [None] * len(self.next_functions)
        result = Tensor._make(np.empty(self.base_shape, dtype=grad._data.dtype)).copy_(grad)
        grad_slice = AsStridedBackward0.apply(result, self.view_shape, self.strides, self.offset)
        res = list(self.fn._backward([grad_slice.clone()]))
        res += [None] * (len(self.next_functions) - len(res))
        if res[0] is not None and self.next_functions[0][0] is not None:
            grad_slice.copy_(res[0])
            res[0] = result
        else:
            res[0] = None
        return res

    def _release_variables(self):
        released = [] if self.fn is None else self.fn._release_variables()
        self.fn = None
        self._released = True
        return released
