"""How the audit watches one call of the step, in either engine, for little more than the step's
own cost: each backward call (its options, the nodes it ran, the saved bytes they held, the
leaves' versions it found, the nodes a ``create_graph`` call made) and each optimizer step (its
line, the versions it left), as plain data.

torch: the backward calls are caught where ``backward()`` and ``autograd.grad()`` both enter
torch's engine (``torch.autograd._engine_run_backward``, swapped for the block only): a
``TorchFunctionMode`` would see every op of the forward too, and doubled the forward's time
on the real models. Each node gets one pre-hook, read once per backward; a node's saved bytes
are read once per audit (they cannot change, and a freed node can no longer be read).
"""
import contextlib
import linecache
import os
import sys
import weakref

_PACKAGE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))) + os.sep


def where():
    """``file.py:12 `loss.backward()``` for the innermost frame outside the engines: the line
    of the learner's step that called backward (or stepped the optimizer)."""
    frame = sys._getframe(1)
    skip = [_PACKAGE]
    torch = sys.modules.get("torch")
    if torch is not None:
        skip.append(os.path.dirname(torch.__file__) + os.sep)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not any(filename.startswith(s) for s in skip) and not filename.startswith("<frozen"):
            break
        frame = frame.f_back
    if frame is None:
        return ""
    filename, line = frame.f_code.co_filename, frame.f_lineno
    code = linecache.getline(filename, line).strip()
    if "ipykernel_" in filename or filename.startswith("<ipython-input"):
        place = f"cell line {line}"
    else:
        place = f"{os.path.basename(filename)}:{line}"
    return f"{place} `{code}`" if code else place


def walk(starts, seen, is_leaf):
    """Every node reachable from ``starts``: (nodes new to ``seen``, nodes an earlier walk of
    this call of the step found, leaf nodes); ``seen`` (id -> node, held for the block only)
    grows."""
    new, shared, leaves, done, stack = [], [], [], set(), list(starts)
    while stack:
        node = stack.pop()
        if id(node) in done:
            continue
        done.add(id(node))
        if is_leaf(node):
            leaves.append(node)
            continue
        if id(node) in seen:
            shared.append(node)
        else:
            seen[id(node)] = node
            new.append(node)
        stack.extend(c for c, _ in node.next_functions if c is not None)
    return new, shared, leaves


def shared_leaves(shared, is_leaf):
    """{leaf id: version} of the leaves under nodes an earlier backward's graph holds too."""
    if not shared:
        return {}
    _, _, leaves = walk(shared, {}, is_leaf)
    return {id(n.variable): n.variable._version for n in leaves}


def new_call(retain, create, accumulate, inputs=0):
    """One backward's record, filled while it runs (``Call``'s fields, in order)."""
    return {"retain_graph": bool(retain), "create_graph": bool(create), "nodes": {},
            "error": None, "where": where(), "accumulate": bool(accumulate), "ran": {},
            "made": set(), "roots": set(), "inputs": inputs, "leaves": {}, "wrapped": False,
            "steps_before": 0, "shared_leaves": {}, "cleared": set()}


class Watch:
    """What one call of the step did: ``calls`` (dicts, see :func:`new_call`), ``steps``
    (``(calls before it, where, {leaf id: version after})`` per optimizer step) and ``span``
    (per engine, the first and past-the-last node number the call made). ``settle_all``:
    describe every backward's graph, even a plain step's one (a later call of the step may
    run a graph an earlier one kept)."""

    def __init__(self, settle_all=False):
        self.calls, self.steps, self.span, self.settle_all = [], [], {}, settle_all
        self.sizes = {}  # node key -> saved bytes (read once: they cannot change)
        self.leaf_refs = {}  # leaf id -> weak reference (torch), for trying fixes on copies

    def on_optimizer_step(self, optimizer, args, kwargs):
        versions = {id(p): p._version for group in optimizer.param_groups
                    for p in group["params"]}
        self.steps.append((len(self.calls), where(), versions))


@contextlib.contextmanager
def watching(watch):
    """Observe both engines inside the block (torch only if the step's process imported it)."""
    with contextlib.ExitStack() as stack:
        if "torch" in sys.modules:
            stack.enter_context(_WatchTorch(watch))
        stack.enter_context(_WatchOurs(watch))
        yield watch


# -- the package's engine: its event stream -----------------------------------------------------
class _WatchOurs:
    def __init__(self, watch):
        self.watch = watch

    def __enter__(self):
        from ..._node import _creation_counter
        from ...autograd.graph import register_observer
        from ...optim.optimizer import register_optimizer_step_post_hook
        self.counter = _creation_counter
        self.handles = [register_observer(self.on_event),
                        register_optimizer_step_post_hook(self.watch.on_optimizer_step)]
        self.current, self.start, self.seen = [], [], {}
        self.watch.span["ours"] = [next(self.counter), None]
        return self

    def on_event(self, event):
        from ...autograd.graph import BackwardFinished, BackwardStarted, NodeStarted
        if isinstance(event, BackwardStarted):
            call = new_call(event.retain_graph, event.create_graph, event.accumulate)
            call["engine"] = "ours"
            call["steps_before"] = len(self.watch.steps)
            root = event.root
            starts = [n for n, _ in root.next_functions if n is not None] \
                if type(root).__name__ == "GraphRoot" else [root]
            call["roots"] = {(n._sequence_nr(), n.name()) for n in starts}
            new, shared, leaves = walk(starts, self.seen, _is_leaf_ours)
            call["_reach"] = [((n._sequence_nr(), n.name()), n.name(),
                               any(v is not None for v in n._saved_slots.values()))
                              for n in new + shared]
            call["leaves"] = {id(n.variable): n.variable._version for n in leaves}
            call["cleared"] = {id(n.variable) for n in leaves if n.variable.grad is None}
            call["shared_leaves"] = shared_leaves(shared, _is_leaf_ours)
            self.watch.calls.append(call)
            self.current.append(call)
            self.start.append(next(self.counter))  # (ids need only be unique: a gap is fine)
        elif isinstance(event, NodeStarted) and self.current:
            node, call = event.node, self.current[-1]
            name = node.name()
            if name == "AccumulateGrad":
                return
            k = (node._sequence_nr(), name)
            call["ran"][k] = name
            buffers = node.saved_buffers()
            if buffers:
                call["nodes"][k] = (name, sum(b.nbytes for b in buffers
                                              if not b.is_wrapped_scalar))
        elif isinstance(event, BackwardFinished) and self.current:
            call, start = self.current.pop(), self.start.pop()
            call["error"] = event.error
            if event.error is not None:  # judged by what its graph reaches, as in torch
                for k, name, saves in call["_reach"]:
                    call["ran"].setdefault(k, name)
                    if saves:
                        call["nodes"].setdefault(k, (name, None))
            if call["create_graph"]:
                call["made"] = (start, next(self.counter))

    def __exit__(self, *exc):
        for handle in self.handles:
            handle.remove()
        self.seen.clear()
        self.watch.span["ours"][1] = next(self.counter)
        # the nodes a create_graph backward made: numbered between its start and its end
        for call in self.watch.calls:
            if isinstance(call["made"], tuple):
                start, end = call["made"]
                call["made"] = {k for c in self.watch.calls for k in c["ran"]
                                if start < k[0] < end}
        return False


def _is_leaf_ours(node):
    return type(node).__name__ == "AccumulateGrad"


# -- torch ------------------------------------------------------------------------------------
def _is_accumulate(node):
    return node.name() == "torch::autograd::AccumulateGrad"


def _is_wrapper(t):
    """A torch.func / vmap wrapper (TensorWrapper, BatchedTensor): it has no storage to read."""
    functorch = sys.modules["torch"]._C._functorch
    return functorch.is_functorch_wrapped_tensor(t) or functorch.is_batchedtensor(t)


_SLOTS = {}  # node type -> its saved slot names (read once per type, not once per node)


def _slot_names(node):
    kind = type(node)
    if kind not in _SLOTS:
        from ...viz.torch_graphs import _slots
        _SLOTS[kind] = tuple(_slots(node))
    return _SLOTS[kind]


def _saved_bytes(node):
    """Bytes of a node's readable saved tensors (None when it saved nothing)."""
    from ...viz.torch_graphs import _custom_items, _is_custom, _is_wrapped_scalar, _read, key
    slots = _slot_names(node)
    if not slots:
        return None
    total = 0
    for slot in slots:
        try:
            items = _custom_items(node, key(node)) if _is_custom(node) else \
                [(slot,) + _read(node, slot)]
        except RuntimeError:
            continue
        for _, state, value in items:
            if state == "alive" and not _is_wrapper(value) and \
                    not _is_wrapped_scalar(value, set()):
                total += value.numel() * value.element_size()
    return total


class _WatchTorch:
    """Swap torch's one entry into its engine for the block. A backward that keeps its graph
    (retain_graph, create_graph) may run again: its nodes get one pre-hook each, and their
    saved bytes are read once, after it. One that frees its graph is only held: its graph is
    walked if the step fails or makes more than one backward, never for a plain step."""

    def __init__(self, watch):
        self.watch = watch

    def __enter__(self):
        torch = sys.modules["torch"]
        from torch.optim.optimizer import register_optimizer_step_post_hook
        self.torch, self.autograd = torch, torch.autograd
        self.original = torch.autograd._engine_run_backward
        self.seen, self.hooked, self.handles, self.current, self.pending = {}, {}, [], [], []
        self.watch.span["torch"] = [self._mark(), None]
        torch.autograd._engine_run_backward = self.run_backward
        self.handles.append(register_optimizer_step_post_hook(self.watch.on_optimizer_step))
        return self

    def __exit__(self, *exc):
        self.autograd._engine_run_backward = self.original
        calls = self.watch.calls
        if self.watch.settle_all or len(calls) > 1 or any(c["error"] for c in calls):
            self._settle()
        self.pending.clear()
        for handle in self.handles:
            handle.remove()
        self.handles.clear()
        self.seen.clear()
        self.hooked.clear()
        self.watch.span["torch"][1] = self._mark()
        return False

    def _mark(self):
        """The sequence number the next node will get (nodes are numbered as made)."""
        torch = self.torch
        with torch.enable_grad():
            return torch.zeros((), requires_grad=True).view(()).grad_fn._sequence_nr()

    def _pre(self, node, k, name):
        def hook(grad_outputs):
            if self.current:
                call = self.current[-1]
                call["ran"][k] = name
                call["_ran"].append(node)
        return hook

    def run_backward(self, outputs, grad_outputs, keep_graph, create_graph, inputs=(),
                     *args, **kwargs):
        accumulate = kwargs.get("accumulate_grad", args[1] if len(args) > 1 else True)
        call = new_call(keep_graph, create_graph, accumulate, len(inputs or ()))
        call["steps_before"], call["_ran"], call["engine"] = len(self.watch.steps), [], "torch"
        self.watch.calls.append(call)
        rest = (grad_outputs, keep_graph, create_graph, inputs, args, kwargs)
        tensors = [t for t in outputs if isinstance(t, self.torch.Tensor)]
        if any(_is_wrapper(t) for t in tensors):
            call["wrapped"] = True  # torch.func: its graph lives inside the wrapper
            return self._run(call, outputs, rest)
        starts = [t.grad_fn for t in tensors if t.grad_fn is not None]
        if not keep_graph:  # it frees what it runs: nothing can run it again
            self.pending.append((call, starts, self._input_nodes(inputs)))
            return self._run(call, outputs, rest)
        self._settle()
        newest, leaves = self._hook(starts, call)
        result = self._run(call, outputs, rest)
        sizes = self.watch.sizes
        for node in call["_ran"]:  # kept: readable now, and never changes
            k = (node._sequence_nr(), node.name())
            if k not in sizes:
                sizes[k] = _saved_bytes(node)
            if sizes[k] is not None:
                call["nodes"][k] = (k[1], sizes[k])
        call["_ran"] = []
        if create_graph:  # the nodes this call made: newer than any node it found
            made = [g.grad_fn for g in (result or ()) if g is not None and g.grad_fn is not None]
            if accumulate:
                made += [p.grad.grad_fn for p in leaves if p.grad is not None
                         and p.grad.grad_fn is not None]
            call["made"] = self._newer(made, newest)
        return result

    def _run(self, call, outputs, rest):
        grad_outputs, keep_graph, create_graph, inputs, args, kwargs = rest
        self.current.append(call)
        try:
            return self.original(outputs, grad_outputs, keep_graph, create_graph, inputs,
                                 *args, **kwargs)
        except Exception as error:
            call["error"] = error
            self._settle()
            self._reach(call)
            raise
        finally:
            self.current.pop()

    def _input_nodes(self, inputs):
        if not inputs:
            return None
        edge = self.torch.autograd.graph.get_gradient_edge
        return [edge(i).node if isinstance(i, self.torch.Tensor) else i.node for i in inputs]

    def _settle(self):
        """Walk the graphs of the held backwards that freed theirs, in order."""
        for call, starts, inputs in self.pending:
            self._describe(call, starts, inputs)
        self.pending.clear()

    def _describe(self, call, starts, inputs=None):
        """What a backward's graph holds, from a walk: every node it reaches (or, given
        ``inputs``, every node on a path to one) counts as run, with no bytes."""
        call["roots"] = {(n._sequence_nr(), n.name()) for n in starts}
        new, shared, leaves = walk(starts, self.seen, _is_accumulate)
        nodes = new + shared
        if inputs is not None:
            nodes, leaves = _leading_to(starts, inputs)
        call["_reach"] = [(n._sequence_nr(), n.name(), bool(_slot_names(n))) for n in nodes]
        for seq, name, saves in call["_reach"]:
            call["ran"][(seq, name)] = name
            if saves:
                call["nodes"].setdefault((seq, name), (name, None))
        self._leaves(call, leaves, shared)
        return nodes, shared, leaves

    def _leaves(self, call, leaves, shared):
        for n in leaves:  # (weakly: the fix is tried on copies of the leaves still alive)
            self.watch.leaf_refs.setdefault(id(n.variable), weakref.ref(n.variable))
        call["leaves"] = {id(n.variable): n.variable._version for n in leaves}
        call["cleared"] = {id(n.variable) for n in leaves if n.variable.grad is None}
        call["shared_leaves"] = shared_leaves(shared, _is_accumulate)

    def _reach(self, call):
        """A failed backward is judged by what its graph reaches (in either engine), not by
        how far it got before failing."""
        for seq, name, saves in call.get("_reach", ()):
            if saves:
                call["nodes"].setdefault((seq, name), (name, None))
            call["ran"].setdefault((seq, name), name)

    def _hook(self, starts, call):
        """Hook every new node the backward can reach; note the leaves' versions; return the
        largest sequence number found (nodes made later have larger ones) and the leaves."""
        nodes, shared, leaves = self._describe(call, starts)
        call["ran"], call["nodes"] = {}, {}  # (these come from the hooks: what really ran)
        newest = -1
        for node in nodes:
            k = (node._sequence_nr(), node.name())
            newest = max(newest, k[0])
            if id(node) not in self.hooked:  # (held for the block: ids stay unique)
                self.hooked[id(node)] = node
                self.handles.append(node.register_prehook(self._pre(node, k, k[1])))
        return newest, [n.variable for n in leaves]

    @staticmethod
    def _newer(starts, start):
        found, stack, seen = set(), list(starts), set()
        while stack:
            node = stack.pop()
            if id(node) in seen or _is_accumulate(node):
                continue
            seen.add(id(node))
            seq = node._sequence_nr()
            if seq <= start:
                continue
            found.add((seq, node.name()))
            stack.extend(c for c, _ in node.next_functions if c is not None)
        return found


def _leading_to(starts, targets):
    """The nodes reachable from ``starts`` on a path to one of ``targets`` (an autograd.grad's
    inputs: only those run), and the leaf nodes among the targets."""
    wanted = {id(t) for t in targets}
    leads, stack, order = {}, [(n, False) for n in starts], []
    while stack:
        node, done = stack.pop()
        if done:
            leads[id(node)] = id(node) in wanted or any(
                leads.get(id(c), False) for c, _ in node.next_functions if c is not None)
            if leads[id(node)]:
                order.append(node)
            continue
        if id(node) in leads:
            continue
        leads[id(node)] = False
        stack.append((node, True))
        stack.extend((c, False) for c, _ in node.next_functions
                     if c is not None and id(c) not in leads)
    nodes = [n for n in order if not _is_accumulate(n)]
    return nodes, [n for n in order if _is_accumulate(n)]
