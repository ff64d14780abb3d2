"""The view's reader for real PyTorch graphs: with ``torch_recording``, the modules using torch.

Nothing imports it unless a ``torch.Tensor`` is passed (see :func:`is_torch`). It builds the
same plain-data :class:`~.snapshot.Snapshot` as the package's reader, from torch's public
introspection: ``grad_fn.name()``, ``next_functions``, ``_sequence_nr()`` (creation order), the
``_raw_saved_<slot>`` / ``_saved_<slot>`` attributes of each node (unpacking raises the FREED
error once released, the version error once modified in place), ``untyped_storage()`` for bytes
per storage, and ``AccumulateGrad.variable`` for leaves.

torch nodes cannot be weakly referenced, so what must outlive one call is kept as plain data
keyed by ``(sequence number, node name)``: the shape/dtype/bytes last seen for each saved slot
(a freed slot can no longer be read) and which nodes a recorded ``retain_graph`` backward ran.
No tensor, storage or node is kept, and the node hooks a recording registers are removed before
``torch_recording.record`` returns.
"""
import contextlib
import re
import sys
import weakref

from .snapshot import COUNTS, BufferInfo, LeafInfo, NodeInfo, Snapshot, _short
from .torch_births import adopt, unwatched, unwatched_reads
from .torch_births import state as known_state

_FREED_START = "Trying to backward through the graph a second time"
_VERSION = re.compile(r"\[torch\.\w+ \[([\d, ]*)\]\].*? is at version (\d+); "
                      r"expected version (\d+)")
_MAX_MEMO = 200_000
_meta = {}      # (seq, name, slot) -> (shape, dtype, nbytes, holds) last seen alive
_read_nodes = set()  # keys of the nodes a snapshot has read (their slots are in _meta)
_retained = set()  # (seq, name) of nodes a recorded retain_graph backward ran


def key(node, kind=None):
    name, accumulate = (kind or _kind(node))[:2]
    if accumulate:  # all share one sequence number: tell them apart by their leaf
        return (node._sequence_nr(), "torch::autograd::AccumulateGrad", id(node.variable))
    return (node._sequence_nr(), name)


_KINDS = {}  # node type -> (name(), is AccumulateGrad, is a custom Function, saved slots)


def _kind(node):
    """What every node of this type shares, read once per type: torch makes one Python class
    per node class, and walking a class's attributes for its slots cost more than reading
    them. (A class whose name is not the node's is read anew each time, in case torch ever
    gives several node classes one Python type.)"""
    klass = type(node)
    kind = _KINDS.get(klass)
    if kind is None:
        name = node.name()
        custom = any("saved_tensors" in vars(k) for k in klass.__mro__) and \
            hasattr(klass, "_raw_saved_tensors")
        if custom:
            slots = ("saved_tensors",)
        else:  # torch's declaration order (its generated class defines them so)
            names = [a for k in klass.__mro__ for a in vars(k) if a.startswith("_raw_saved_")]
            slots = tuple(dict.fromkeys(a[len("_raw_saved_"):] for a in names))
        kind = (name, name == "torch::autograd::AccumulateGrad", custom, slots)
        if name == klass.__name__ or name.endswith("::" + klass.__name__):
            _KINDS[klass] = kind
    return kind


def _is_accumulate(node):
    return _kind(node)[1]


def node_name(node):
    return "AccumulateGrad" if _is_accumulate(node) else _kind(node)[0]


_DTYPE_NAMES = {}


def dtype_name(dtype):
    if dtype not in _DTYPE_NAMES:  # (str of a dtype, per buffer of every snapshot, adds up)
        _DTYPE_NAMES[dtype] = str(dtype).replace("torch.", "")
    return _DTYPE_NAMES[dtype]


def _root_node(root):
    torch = sys.modules["torch"]
    if isinstance(root, torch.autograd.graph.Node):
        return root
    if isinstance(root, torch.Tensor):
        if root.grad_fn is not None:
            return root.grad_fn
        if root.requires_grad:  # a leaf's AccumulateGrad, as torch makes it for any op on it
            return root.view_as(root).grad_fn.next_functions[0][0]
        return None
    raise TypeError(f"snapshot roots must be tensors or graph nodes, got {type(root).__name__}")


_walked = []  # inside ``walking_once``: {start nodes' ids: ((nodes, inputs), start nodes)}


@contextlib.contextmanager
def walking_once():
    """Inside, :func:`walk` walks a graph once per set of start nodes: a node's edges
    are fixed when it is made, so a second walk finds the same nodes (a recording's set-up
    walked the same graph three times). The memo holds the nodes only while inside."""
    _walked.append({})
    try:
        yield
    finally:
        _walked.pop()


def reachable(roots):
    """(function nodes in creation order, then AccumulateGrad nodes in order of first use)."""
    nodes, starts, _ = walk(roots)
    return nodes, starts


def walk(roots):
    """``reachable`` and each node's inputs: {id(node): [input nodes, in next_functions'
    order]} (``next_functions`` builds its tuples anew at each read: the graph's edges are
    read once, for the walk and the picture's edges)."""
    starts = [n for n in (_root_node(r) for r in roots) if n is not None]
    unique = list({id(n): n for n in starts}.values())
    if not _walked:
        nodes, inputs = _walk(unique)
        return nodes, starts, inputs
    memo_key = tuple(id(n) for n in unique)
    if memo_key not in _walked[-1]:
        _walked[-1][memo_key] = (_walk(unique), unique)  # holding the starts keeps ids unique
    nodes, inputs = _walked[-1][memo_key][0]
    return nodes, starts, inputs


def _walk(starts):
    seen, stack, found, leaf_ids, inputs = set(), list(starts), [], set(), {}
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        found.append(node)
        if _is_accumulate(node):
            leaf_ids.add(id(node))
        inputs[id(node)] = [c for c, _ in node.next_functions if c is not None]
        stack.extend(inputs[id(node)])
    functions = sorted((n for n in found if id(n) not in leaf_ids),
                       key=lambda n: n._sequence_nr())
    first_use = {}
    for n in functions:
        for pos, child in enumerate(inputs[id(n)]):
            if id(child) in leaf_ids:
                first_use.setdefault(id(child), (n._sequence_nr(), pos))
    leaves = sorted((n for n in found if id(n) in leaf_ids),
                    key=lambda n: first_use.get(id(n), (-1, 0)))
    return functions + leaves, inputs


def short(tensor):
    """``_short`` of a torch tensor: from a NumPy view where NumPy has its dtype (half the
    time of torch's own slicing, per frame of a step-through), else from torch (bfloat16)."""
    tensor = tensor.detach()
    if tensor.layout is not sys.modules["torch"].strided:  # a sparse gradient (of an
        tensor = tensor.to_dense()  # Embedding(sparse=True)): the dense values it stands for
    try:
        return _short(tensor.numpy())
    except (TypeError, RuntimeError):  # no NumPy dtype, not on the CPU, a conjugate view
        return _short(tensor)


def _slots(node):
    """Saved slot names in torch's declaration order (["saved_tensors"] for a custom Function)."""
    return list(_kind(node)[3])


def _packed(raw):
    """True if a saved_tensors_hooks pack hook (checkpoint, offloading) holds this save: then
    unpacking it would run the user's unpack hook (checkpoint recomputes, and refuses a
    second unpack), so the view must not read it."""
    torch = sys.modules["torch"]
    try:
        data = raw.data
    except (RuntimeError, AttributeError):
        return False
    return data is not None and not isinstance(data, (torch.Tensor, list, tuple))


def _read_slot(node, slot, k=None):
    """('alive', tensor) | ('freed', None) | ('stale', (shape, now, saved)) | ('none', None);
    a save held by a pack hook reads as 'none' (never unpacked). A save seen alive before
    and now released reads as 'freed' from its raw handle, without unpacking: unpacking a
    freed save raises, and the error cost more than all the rest of a read."""
    k = key(node) if k is None else k
    packed_key = k + (slot, "packed")
    raw = getattr(node, "_raw_saved_" + slot, None)
    try:
        data = raw.data  # a tensor; None once freed (or never set); or a pack hook's object
    except (RuntimeError, AttributeError):
        data = None
    if data is not None and not isinstance(data, sys.modules["torch"].Tensor):
        _remember(packed_key, True)  # held by a pack hook: unpacking would run it
        return "none", None
    if data is None and not isinstance(raw, list) and (
            (k[0], k[1], slot) in _meta or packed_key in _meta):
        return ("none" if packed_key in _meta else "freed"), None
    try:
        value = getattr(node, "_saved_" + slot)
    except RuntimeError as error:
        message = str(error)
        if message.startswith(_FREED_START):
            return ("none" if packed_key in _meta else "freed"), None
        found = _VERSION.search(message)
        if found:
            shape = tuple(int(s) for s in found.group(1).split(",") if s.strip())
            return "stale", (shape, int(found.group(2)), int(found.group(3)))
        raise
    if isinstance(value, (list, tuple)):  # e.g. cat's tensors: one buffer per item
        return "list", value
    torch = sys.modules["torch"]
    if not isinstance(value, torch.Tensor):
        return "none", None
    return "alive", value


_read = unwatched(_read_slot)  # on its own; a snapshot reads all its slots inside one guard


def _items(node, k, kind=None):
    """[(slot, state, value)] for every saved tensor of ``node``: one read of the node (inside
    ``unwatched_reads``)."""
    COUNTS["node reads"] += 1
    kind = kind or _kind(node)
    if kind[2]:
        return _custom_items(node, k)
    items = []
    for slot in kind[3]:
        state, value = _read_slot(node, slot, k)
        if state == "list":
            items.extend((f"{slot}[{j}]", "alive", v) for j, v in enumerate(value))
        else:
            items.append((slot, state, value))
    return items


def _readable(node):
    """Whether any of the node's saved tensors can still be unpacked."""
    if _is_custom(node):
        if not _custom_items(node, key(node)):
            return False
        try:
            return bool(node.saved_tensors)
        except RuntimeError:
            return False
    k = key(node)
    return any(_read(node, s, k)[0] in ("alive", "list") for s in _slots(node))


def _is_custom(node):
    """A Python autograd.Function's node: its saves are read as ``node.saved_tensors[i]``."""
    return _kind(node)[2]


@unwatched
def _custom_items(node, k):
    count_key = (k[0], k[1], "saved_tensors#")
    try:
        raws = list(node._raw_saved_tensors or ())
    except RuntimeError:  # freed: nothing to unpack
        raws = []
    if any(_packed(raw) for raw in raws):
        return []  # held by a pack hook: unpacking would run it
    try:
        values = node.saved_tensors
    except RuntimeError as error:
        message = str(error)
        count = _meta.get(count_key, 0)
        if message.startswith(_FREED_START):
            return [(f"saved_tensors[{j}]", "freed", None) for j in range(count)]
        found = _VERSION.search(message)
        if not found:
            raise
        items = []
        for j, raw in enumerate(node._raw_saved_tensors):
            memo = _meta.get((k[0], k[1], f"saved_tensors[{j}]"))
            data = raw.data
            if memo is not None and data is not None and data._version != memo[4]:
                shape = tuple(data.shape)
                items.append((f"saved_tensors[{j}]", "stale", (shape, data._version, memo[4])))
            else:
                items.append((f"saved_tensors[{j}]", "alive", data))
        return items
    _remember(count_key, len(values))
    return [(f"saved_tensors[{j}]", "alive", v) for j, v in enumerate(values)
            if v is not None]


def _is_wrapped_scalar(t, user_ptrs):
    # torch wraps a Python number in a 0-dim double/long tensor; its saved_tensors_hooks never
    # see it. torch has no public flag, so: 0-dim, no grad, no history, not one of the user's.
    return (t.dim() == 0 and not t.requires_grad and t.grad_fn is None
            and dtype_name(t.dtype) in ("int64", "float64", "complex128", "bool")
            and t.untyped_storage().data_ptr() not in user_ptrs)


def _remember(k, value):
    if len(_meta) > _MAX_MEMO:
        _meta.clear()
        _read_nodes.clear()
    _meta[k] = value


def take_snapshot(roots, names, executed=(), failed=None, title="", notes=()):
    torch = sys.modules["torch"]
    COUNTS["snapshots"] += 1
    adopt(roots)  # under viz.watch: what no op the watch saw made is watched from now on
    nodes, starts, inputs = walk(roots)
    kinds = [_kind(n) for n in nodes]
    keys = [key(n, kind) for n, kind in zip(nodes, kinds)]
    ids = {id(n): i for i, n in enumerate(nodes)}
    ids.update({("key",) + k: (n, i) for i, (n, k) in enumerate(zip(nodes, keys))})  # origins
    tensor_names = {id(t): n for n, t in names.items() if isinstance(t, torch.Tensor)}
    node_labels = {}
    for n, t in names.items():
        if isinstance(t, torch.Tensor) and t.grad_fn is not None:
            node_labels.setdefault(id(t.grad_fn), n)
    user = [t for t in list(names.values()) + list(roots) if isinstance(t, torch.Tensor)]
    user += [n.variable for n, kind in zip(nodes, kinds) if kind[1]]
    user_ptrs = {t.untyped_storage().data_ptr() for t in user}
    executed = set(executed)
    failed_key = failed
    node_infos, leaf_infos, buffers, edges = [], [], [], []
    storage_numbers = {}
    with unwatched_reads():  # the slots' unpacks, all of them under one guard
        for i, (node, k, kind) in enumerate(zip(nodes, keys, kinds)):
            node_infos.append(NodeInfo(i, "AccumulateGrad" if kind[1] else kind[0],
                                       node_labels.get(id(node), ""), k in executed,
                                       failed_key is not None and k == failed_key))
            edges.extend((i, ids[id(c)]) for c in inputs[id(node)])
            if kind[1]:
                COUNTS["node reads"] += 1
                leaf = node.variable
                grad = leaf.grad
                leaf_infos.append(LeafInfo(
                    i, tensor_names.get(id(leaf), f"leaf #{i}"), tuple(leaf.shape),
                    dtype_name(leaf.dtype), leaf.requires_grad,
                    "None" if grad is None else short(grad),
                    k in executed))
                continue
            for name, state, value in _items(node, k, kind):
                info = _buffer(node, i, k, name, state, value, ids, node_labels, tensor_names,
                               user_ptrs, storage_numbers)
                if info is not None:
                    buffers.append(info)
            _read_nodes.add(k)
    root_ids = tuple(ids[id(n)] for n in starts if id(n) in ids)
    if any(b.state == "unknown" for b in buffers):  # never a state the reader did not see
        from .modules import UNKNOWN_NOTE
        notes = tuple(notes) + (UNKNOWN_NOTE,)
    return Snapshot(tuple(node_infos), tuple(edges), tuple(leaf_infos), tuple(buffers),
                    root_ids, title, tuple(notes))


def remember(nodes):
    """Note what the saved slots of ``nodes`` hold now (before a backward frees them), reading
    only the nodes no snapshot has read yet: a recording right after a snapshot of the same
    graph (``show_backward``'s "before") reads nothing again."""
    ids, user_ptrs = {}, set()
    for i, node in enumerate(nodes):
        ids[id(node)] = i
        if _is_accumulate(node):
            user_ptrs.add(node.variable.untyped_storage().data_ptr())
    with unwatched_reads():
        for node in nodes:
            k = key(node)
            if _is_accumulate(node) or k in _read_nodes:
                continue
            for name, state, value in _items(node, k):
                _buffer(node, ids[id(node)], k, name, state, value, ids, {}, {}, user_ptrs,
                        {})
            _read_nodes.add(k)


def _buffer(node, i, k, slot, state, value, ids, node_labels, tensor_names, user_ptrs,
            numbers):
    memo_key = (k[0], k[1], slot)
    if state == "none":
        return None
    memo = _meta.get(memo_key)
    if state == "freed":
        shape, dtype, nbytes, wrapped, saved_version = memo[:5] if memo else (
            (), "?", 0, False, 0)
        holds = _holds_from_memo(memo, node, ids, node_labels, tensor_names)
        return BufferInfo(i, k[1], slot, holds, shape, dtype, nbytes, "freed",
                          saved_version, None, 0, wrapped, False, 0)
    if state == "stale":  # unpacking refuses; the raw save still holds (and shows) the data
        raw = getattr(node, "_raw_saved_" + slot, None)
        data = getattr(raw, "data", None) if not isinstance(raw, list) else None
        if data is None:
            shape, dtype, nbytes, wrapped = memo[:4] if memo else (value[0], "?", 0, False)
            holds = _holds_from_memo(memo, node, ids, node_labels, tensor_names)
            return BufferInfo(i, k[1], slot, holds, shape, dtype, nbytes, "stale",
                              value[2], value[1], 0, wrapped, False, 0)
        t, saved_version, version = data, value[2], value[1]
    else:
        t = value
        saved_version = version = t._version
    wrapped = _is_wrapped_scalar(t, user_ptrs)
    if state == "stale" and memo is not None:
        holds = _holds_from_memo(memo, node, ids, node_labels, tensor_names)
    elif memo is not None and memo[6] is not None and memo[6]() is None:
        holds = _holds_from_memo(memo, node, ids, node_labels, tensor_names)  # the user's died
    else:
        holds = _holds(t, node, ids, node_labels, tensor_names, wrapped)
    storage = t.untyped_storage()
    ptr, storage_nbytes = storage.data_ptr(), storage.nbytes()
    shape, dtype = tuple(t.shape), dtype_name(t.dtype)
    nbytes = t.numel() * t.element_size()
    if state == "alive":
        if memo is None:  # what was saved, as plain data (a weak ref to the user's tensor)
            fn = t.grad_fn
            is_output = fn is not None and fn is node
            origin = key(fn) if fn is not None and not is_output else None
            ref = None if wrapped or is_output else weakref.ref(t)
            scalar = t.item() if wrapped else None
            _remember(memo_key, (shape, dtype, nbytes, wrapped, version, is_output, ref,
                                 origin, scalar))
        state = known_state(k, k in _retained)
    del t, value, storage
    number = numbers.setdefault(ptr, len(numbers) + 1)
    return BufferInfo(i, k[1], slot, holds, shape, dtype, nbytes, state,
                      saved_version, version, number, wrapped, ptr in user_ptrs, storage_nbytes)


def _holds_from_memo(memo, node, ids, node_labels, tensor_names):
    """What a buffer that can no longer be unpacked held, from what was seen when it could."""
    if memo is None:
        return "a tensor no longer readable"
    wrapped, is_output, ref, origin, scalar = memo[3], memo[5], memo[6], memo[7], memo[8]
    if wrapped:
        return f"scalar {scalar:g}"
    if is_output:
        return node_labels.get(id(node)) or f"output of #{ids[id(node)]}"
    tensor = ref() if ref is not None else None
    if tensor is not None:
        return _holds(tensor, node, ids, node_labels, tensor_names, False)
    by_key = ids.get(("key",) + origin) if origin is not None else None
    if by_key is not None:
        origin_node, number = by_key
        return _named_leaf_view(origin_node, tensor_names) or \
            node_labels.get(id(origin_node)) or f"output of #{number}"
    return "a tensor no longer alive"


def _holds(t, node, ids, node_labels, tensor_names, wrapped):
    if wrapped:
        return f"scalar {t.item():g}"
    fn = t.grad_fn
    if fn is not None and fn is node:  # a saved output: unpacking gives it back with its node
        return node_labels.get(id(node)) or f"output of #{ids[id(node)]}"
    if id(t) in tensor_names:
        return tensor_names[id(t)]
    base = t._base
    if base is not None and id(base) in tensor_names:
        return f"{tensor_names[id(base)]} (a view)"
    if fn is not None and id(fn) in ids:
        return _named_leaf_view(fn, tensor_names) or node_labels.get(id(fn)) or \
            f"output of #{ids[id(fn)]}"
    if fn is not None and fn.name() == "CloneBackward0":
        return "a copy of the old values"
    if base is not None and base.grad_fn is None and base.requires_grad:
        return "a leaf (view)"
    return "an input"


_VIEW_NODES = {"TBackward0", "ViewBackward0", "TransposeBackward0", "PermuteBackward0",
               "ExpandBackward0", "SelectBackward0", "SliceBackward0", "UnsqueezeBackward0",
               "SqueezeBackward0", "SqueezeBackward1", "AsStridedBackward0", "UnbindBackward0",
               "AliasBackward0", "ReshapeAliasBackward0", "SplitBackward0"}


def _named_leaf_view(fn, tensor_names):
    """"W (a view)" when node ``fn`` made a view of a named leaf (a saved ``W.t()``), else
    None; the node's name first: reading ``next_functions`` builds tuples anew each time."""
    if _kind(fn)[0] not in _VIEW_NODES:
        return None
    parent = fn.next_functions[0][0] if fn.next_functions else None
    if parent is not None and _is_accumulate(parent) and id(parent.variable) in tensor_names:
        return f"{tensor_names[id(parent.variable)]} (a view)"
    return None
