"""A snapshot: the graph reachable from some roots, captured as plain data.

Reads only the engine's public introspection (``next_functions``, ``saved_buffers()``,
``AccumulateGrad.variable``) and keeps no reference to any tensor or saved buffer, so
taking one changes nothing about what a later backward does or frees.
"""
import math
import sys
from collections import Counter
from dataclasses import dataclass, field
from typing import NamedTuple

from .._node import AccumulateGrad, Node
from .._tensor import Tensor


# How many snapshots were taken and nodes read, by either engine's reader: tests count them, so
# that the view's cost (one read per node per snapshot, two snapshots per show_backward) stays.
COUNTS = Counter()


# The records are named tuples: immutable, made at a tuple's cost (a frozen dataclass's
# __init__ sets each field through object.__setattr__), and of plain values only, so the
# garbage collector stops tracking them (a step-through keeps thousands).
class NodeInfo(NamedTuple):
    id: int              # position in creation order within this snapshot
    name: str            # PyTorch's class name, e.g. "MulBackward0"
    label: str           # the user's name for the tensor this node produced, or ""
    executed: bool       # run by the last recorded backward
    failed: bool         # the last recorded backward raised while running it


class LeafInfo(NamedTuple):
    id: int              # the id of its AccumulateGrad in this snapshot
    name: str
    shape: tuple
    dtype: str
    requires_grad: bool
    grad: str            # "None" or a short summary of .grad
    accumulated: bool    # the last recorded backward wrote into .grad


class BufferInfo(NamedTuple):
    node_id: int
    node_name: str
    slot: str            # PyTorch's slot name, e.g. "self", "result", "other"
    holds: str           # which tensor: a user name, "output of #3", "scalar 2" ...
    shape: tuple
    dtype: str
    nbytes: int
    state: str           # "alive", "retained", "freed" or "stale"
    saved_version: int
    current_version: object  # int, or None once freed
    storage: int         # storage number within the snapshot (0 when freed)
    wrapped_scalar: bool
    user_held: bool      # the storage belongs to a leaf, a root or a named tensor
    storage_nbytes: int = 0  # the whole storage's bytes: a saved view keeps all of it alive

    @property
    def key(self):
        # A custom Function's saves are read as node.saved_tensors[i], not _saved_<slot>.
        attr = self.slot if self.slot.startswith("saved_tensors") else f"_saved_{self.slot}"
        return f"#{self.node_id} {self.node_name}.{attr}"


def slot_key(buffer):
    """(node id, node name, slot): what a buffer is across the snapshots of one graph, to
    match them by (a quarter of the time of its ``key`` text, made anew at each read)."""
    return buffer[:3]


@dataclass(frozen=True)
class Snapshot:
    nodes: tuple
    edges: tuple         # (from_id, to_id) for each next_functions edge, to = input side
    leaves: tuple
    buffers: tuple
    roots: tuple         # ids of the root nodes
    title: str = ""
    notes: tuple = field(default=())
    modules: object = None  # a modules.ModuleMap when drawn with model=: the module boxes

    @property
    def total_bytes(self):
        """Bytes held by live saved buffers, each storage once (wrapped scalars excluded, as
        PyTorch's saved_tensors_hooks never see them)."""
        return sum(self._unique_live(lambda b: True).values())

    @property
    def graph_only_bytes(self):
        return sum(self._unique_live(lambda b: not b.user_held).values())

    @property
    def shared_bytes(self):
        return sum(self._unique_live(lambda b: b.user_held).values())

    def _unique_live(self, keep):
        sizes = {}
        for b in self.buffers:
            if b.state != "freed" and not b.wrapped_scalar and keep(b):
                sizes[b.storage] = b.storage_nbytes
        return sizes

    def node(self, node_id):
        return next(n for n in self.nodes if n.id == node_id)


def _root_node(root):
    if isinstance(root, Node):
        return root
    if isinstance(root, Tensor):
        if root.grad_fn is not None:
            return root.grad_fn
        if root.requires_grad:
            return root._grad_accumulator()
        return None
    raise TypeError(f"snapshot roots must be tensors or graph nodes, got {type(root).__name__}")


def reachable_nodes(roots):
    """Every node reachable from the roots, in creation order (iterative, no recursion)."""
    seen, stack = set(), [n for n in (_root_node(r) for r in roots) if n is not None]
    found = []
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        found.append(node)
        stack.extend(child for child, _ in node.next_functions if child is not None)
    return sorted(found, key=lambda n: n._id)


def node_ids(roots):
    """Snapshot ids: function nodes #0, #1 ... in creation order, then the leaves' nodes."""
    nodes = reachable_nodes(roots)
    ordered = [n for n in nodes if not isinstance(n, AccumulateGrad)] + \
        [n for n in nodes if isinstance(n, AccumulateGrad)]
    return {node: i for i, node in enumerate(ordered)}


def _short(value):
    """The first four values of an array or a (detached) torch tensor, as a frame and a
    leaf's ``.grad`` show them; formatted as Python numbers (a NumPy scalar formats the same,
    slower, and torch's bfloat16 has no NumPy dtype)."""
    if not value.ndim:
        return f"{value.item():.4g}"
    per_row = math.prod(value.shape[1:])
    rows = -(-4 // per_row) if per_row else 1  # flattening only the rows that hold them: a
    first = value[:rows].reshape(-1)[:4].tolist()  # transposed gradient copied all of itself
    shown = ", ".join(f"{v:.4g}" for v in first)
    return f"[{shown}{', …' if math.prod(value.shape) > 4 else ''}]"


def take_snapshot(roots, names=None, executed=(), failed=None, title="", notes=(), model=None,
                  depth=None):
    """Capture the graph reachable from ``roots`` (tensors or nodes).

    ``names`` maps labels to the user's tensors (``{"x": x, "loss": loss}``); ``executed``
    and ``failed`` come from a recorded backward (see :mod:`.record`). ``model`` (its forward
    run under ``viz.watch(model)``) folds the picture into module boxes ``depth`` levels down.
    """
    from .checks import names as check_names, roots as check_roots
    roots = check_roots(roots)
    names = check_names(names)
    if model is not None:
        from . import modules
        modules.roots_of(model, "take_snapshot()")
        modules.check_depth(depth, "take_snapshot()")
        snap = take_snapshot(roots, names, executed, failed, title, notes)
        return modules.attach(snap, _ordered(roots), model, depth)
    if _torch_passed(roots, names):
        from . import torch_graphs  # only now: torch stays optional
        return torch_graphs.take_snapshot(roots, names, executed, failed, title, notes)
    tensor_names = {id(t): n for n, t in names.items() if isinstance(t, Tensor)}
    node_labels = {}
    for n, t in names.items():
        if isinstance(t, Tensor) and t.grad_fn is not None:
            node_labels.setdefault(t.grad_fn, n)
    ids = node_ids(roots)
    executed, user_storages = set(executed), {}
    for t in list(names.values()) + [r for r in roots if isinstance(r, Tensor)]:
        if isinstance(t, Tensor):
            user_storages[id(t._storage)] = t
    for node in ids:  # a saved W.t() is the leaf's memory, even when the leaf comes later
        if isinstance(node, AccumulateGrad):
            user_storages[id(node.variable._storage)] = node.variable
    node_infos, leaf_infos, buffers, edges = [], [], [], []
    storage_numbers = {}
    COUNTS["snapshots"] += 1
    COUNTS["node reads"] += len(ids)
    for node, i in ids.items():
        node_infos.append(NodeInfo(i, _node_name(node), node_labels.get(node, ""),
                                   node in executed, node is failed))
        edges.extend((i, ids[child]) for child, _ in node.next_functions if child is not None)
        if isinstance(node, AccumulateGrad):
            leaf = node.variable
            grad = leaf._grad
            leaf_infos.append(LeafInfo(
                i, tensor_names.get(id(leaf), f"leaf #{i}"), tuple(leaf.shape), str(leaf._data.dtype),
                leaf.requires_grad, "None" if grad is None else _short(grad._data),
                node in executed))
        for b in node.saved_buffers():
            storage = b.storage_ref() if b.storage_ref is not None else None
            number = 0
            if storage is not None:
                number = storage_numbers.setdefault(id(storage), len(storage_numbers) + 1)
            buffers.append(BufferInfo(
                i, _node_name(node), b.slot, _holds(b, node, node_labels, tensor_names, ids),
                b.shape, str(b.dtype), b.nbytes, b.state, b.saved_version, b.current_version,
                number, b.is_wrapped_scalar, storage is not None and id(storage) in user_storages,
                storage.nbytes if storage is not None else 0))
    root_ids = tuple(ids[n] for n in (_root_node(r) for r in roots) if n is not None and n in ids)
    return Snapshot(tuple(node_infos), tuple(edges), tuple(leaf_infos), tuple(buffers), root_ids,
                    title, tuple(notes))


def _ordered(roots):
    """The snapshot's nodes in id order (for the module map)."""
    if _torch_passed(roots, {}):
        from . import torch_graphs
        return torch_graphs.reachable(roots)[0]
    return list(node_ids(roots))


def _torch_passed(roots, names):
    """True when a torch tensor or node is among the roots or names (torch already imported)."""
    return any(is_torch(v) for v in list(roots) + list((names or {}).values()))


def is_torch(value):
    """True for a torch tensor or autograd node; looks in sys.modules, never imports torch."""
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(value, (torch.Tensor, torch.autograd.graph.Node))


def is_tensor(value):
    """True for a tensor of either engine, the package's or torch's; never imports torch."""
    return isinstance(value, Tensor) or (is_torch(value) and hasattr(value, "requires_grad"))


def _node_name(node):
    return "AccumulateGrad" if isinstance(node, AccumulateGrad) else node.name()


def _holds(buffer, node, node_labels, tensor_names, ids):
    if buffer.is_placeholder:  # checkpoint(): 0 bytes now, the tensor is recomputed in backward
        return "placeholder: " + _what(buffer, node, node_labels, tensor_names, ids)
    return _what(buffer, node, node_labels, tensor_names, ids)


def _what(buffer, node, node_labels, tensor_names, ids):
    if buffer.is_wrapped_scalar:
        return f"scalar {buffer.scalar_value:g}"
    if buffer.is_output:
        return node_labels.get(node) or f"output of #{ids[node]}"
    tensor = buffer.tensor_ref() if buffer.tensor_ref is not None else None
    if tensor is None:
        origin = buffer.origin_ref() if buffer.origin_ref is not None else None
        if origin in ids:
            base = origin.next_functions[0][0] if getattr(origin, "is_view", False) else None
            if isinstance(base, AccumulateGrad) and id(base.variable) in tensor_names:
                return f"{tensor_names[id(base.variable)]} (a view)"  # e.g. a saved W.t()
            return node_labels.get(origin) or f"output of #{ids[origin]}"
        return "a tensor no longer alive"
    if id(tensor) in tensor_names:
        return tensor_names[id(tensor)]
    if tensor._base is not None and id(tensor._base) in tensor_names:
        return f"{tensor_names[id(tensor._base)]} (a view)"
    if tensor.grad_fn is not None and tensor.grad_fn in ids:
        label = node_labels.get(tensor.grad_fn)
        return label or f"output of #{ids[tensor.grad_fn]}"
    if tensor.grad_fn is not None and tensor.grad_fn.name() == "CloneBackward0":
        return "a copy of the old values"  # what an in-place op like clamp_ saves as self
    if tensor._base is not None and tensor._base.grad_fn is None and tensor._base.requires_grad:
        base_node = tensor._base._accumulator_ref() if tensor._base._accumulator_ref else None
        if base_node in ids:
            return f"leaf #{ids[base_node]} (view)"
    return "an input"
