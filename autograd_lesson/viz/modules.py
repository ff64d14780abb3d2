"""Module boxes: which module made which node, and pictures folded into the module tree.

    with viz.watch(model):                  # (or lesson.watch) the forward, watched
        loss = step()
    lesson.show_backward("loss.backward()", model=model, loss=loss)

``watch`` puts a forward pre hook and a forward hook on every module of the model (both
engines have them) and notes, at each, the creation number of the next graph node (one
throwaway node per hook: ``_sequence_nr()``, the public creation order of either engine). A
node belongs to the innermost module call whose span holds its number; a leaf to the module
that owns the parameter. Only numbers and names are kept: no node, tensor or buffer.

A snapshot taken with ``model=`` carries a :class:`ModuleMap`; folding then draws each module
at ``depth`` (1: the model's children that ran, such as ResNet's ``layers.0`` … ``fc``; a
``ModuleList`` is never called, so its items are the boxes) as one box with its nodes, its
buffer states and its bytes (each storage once), "×100" for a module called 100 times. The
boxes a call touched open first; ``depth=2`` goes one level deeper, ``fold=False`` opens all.
Such a picture is laid out once (``render.fit_rows``): a column of boxes, or, when that is
taller than a screen (ResNet's chain), rows read like text (``wrap``).

Under ``watch`` the torch reader also hooks every node at birth (a post hook that notes only
the node's key), so it knows which backward ran it: a buffer alive after a
``backward(retain_graph=True)`` reads "retained", as the package says. A torch node the view
never watched reads "alive or retained" (see ``UNKNOWN_NOTE``).
"""
import bisect
import re
import sys
import weakref
from collections import Counter, defaultdict
from dataclasses import dataclass

UNKNOWN_NOTE = ("alive or retained: a backward may have run before the view watched "
                "(run the forward under viz.watch(model) to know)")
_MAX_CALLS = 200_000


def _torch():
    return sys.modules.get("torch")


def is_module(value):
    """True for an ``nn.Module`` of either engine (never imports torch)."""
    from ..nn.module import Module
    torch = _torch()
    return isinstance(value, Module) or (torch is not None and isinstance(value, torch.nn.Module))


def roots_of(model, where):
    """``[(prefix, module)]`` for ``model=``: a module, or a dict of named modules (``G``, ``D``)."""
    if isinstance(model, dict) and model and all(isinstance(k, str) for k in model):
        bad = [k for k, m in model.items() if not is_module(m)]
        if not bad:
            return list(model.items())
        model = model[bad[0]]
    if is_module(model):
        return [("", model)]
    raise TypeError(f"{where}: model= takes an nn.Module (or a dict of them, such as "
                    f"{{'G': G, 'D': D}}), got {type(model).__name__}")


def check_depth(depth, where):
    if depth is None:
        return 1
    if type(depth) is not int or depth < 0:
        raise ValueError(f"{where}: depth= counts module levels below the model (1, the "
                         f"default, boxes its children; 2 their children ...), got {depth!r}")
    return depth


# -- watching ------------------------------------------------------------------------------------
class _Calls:
    """Every watched call of one model's modules: (start, end, name, class, parent) as numbers
    and strings, and where each module's parameters live."""

    def __init__(self):
        self.calls = []
        self._segments = None

    def add(self, name, klass, parent, start):
        if len(self.calls) > _MAX_CALLS:
            self.calls.clear()
        self.calls.append([start, None, name, klass, parent])
        self._segments = None
        return len(self.calls) - 1

    def owner(self, number):
        """The index of the innermost call whose span holds creation number ``number``."""
        if self._segments is None:
            self._segments = self._sweep()
        points, owners = self._segments
        k = bisect.bisect_right(points, number) - 1
        return owners[k] if k >= 0 else None

    def _sweep(self):
        events = []
        for i, (start, end, *_rest) in enumerate(self.calls):
            if end is not None:
                events.append((start, 1, i))
                events.append((end, 0, i))
        events.sort()
        points, owners, stack = [], [], []
        for number, opening, i in events:
            if opening:
                stack.append(i)
            elif i in stack:
                stack.remove(i)
            points.append(number)
            owners.append(stack[-1] if stack else None)
        return points, owners

    def chain(self, i):
        """(((name, class, call), ...) from below the root call down to call ``i``, the root
        call's number or -1)."""
        links = []
        while i is not None and i >= 0:
            start, end, name, klass, parent = self.calls[i]
            if name == "":
                return tuple(reversed(links)), i
            links.append((name, klass, i))
            i = parent
        return tuple(reversed(links)), -1


_watched = weakref.WeakKeyDictionary()  # module -> _Calls (the watch roots only)


_probing = []  # non-empty while a probe runs: a watch's torch mode leaves it alone


def _mark(engine):
    """The creation number of a throwaway node made now: later nodes get higher ones."""
    _probing.append(True)
    try:
        probe = engine.zeros((), requires_grad=True)
        with engine.enable_grad():
            return probe.view_as(probe).grad_fn._sequence_nr()
    finally:
        _probing.pop()


class watch:
    """``with viz.watch(model):`` records which module made which graph node during the
    block (both engines); ``viz.watch()`` with no model only lets the torch reader see every
    backward (buffer states "retained" rather than "alive or retained"). A dict of models
    (``watch({"G": G, "D": D})``) or several (``watch(G, D)``) are watched together."""

    def __init__(self, *models):
        self.roots = []
        for model in models:
            self.roots += roots_of(model, "watch()")
        self._handles, self._mode, self._active = [], None, False

    def __enter__(self):
        if self._active:
            return self
        self._active = True
        torch = _torch()
        uses_torch = torch is not None and (not self.roots or any(
            isinstance(m, torch.nn.Module) for _, m in self.roots))
        for _, root in self.roots:
            self._hook(root)
        if uses_torch:
            from .torch_births import BirthMode
            self._mode = BirthMode()
            self._mode.__enter__()
        return self

    def __exit__(self, *exc):
        for handle in self._handles:
            handle.remove()
        self._handles.clear()
        if self._mode is not None:
            self._mode.__exit__(*exc)
            self._mode = None
        self._active = False
        return False

    def _hook(self, root):
        engine = _engine_of(root)
        calls = _watched.setdefault(root, _Calls())
        names = {id(m): n for n, m in root.named_modules()}
        stack = []

        def pre(module, args):
            i = calls.add(names[id(module)], type(module).__name__,
                          stack[-1] if stack else None, _mark(engine))
            stack.append(i)

        def post(module, args, output):
            if stack:
                calls.calls[stack.pop()][1] = _mark(engine)
                calls._segments = None
            births = sys.modules.get(__package__ + ".torch_births")
            if births is not None and self._mode is not None:
                births.adopt(output)  # a node made inside the module, hooked at birth

        for _, module in root.named_modules():
            self._handles.append(module.register_forward_pre_hook(pre))
            self._handles.append(module.register_forward_hook(post, always_call=True))


def _engine_of(module):
    torch = _torch()
    if torch is not None and isinstance(module, torch.nn.Module):
        return torch
    import autograd_lesson
    return autograd_lesson


# -- the map a snapshot carries --------------------------------------------------------------------
@dataclass(frozen=True)
class ModuleMap:
    depth: int
    chains: tuple   # per node id: ((name, class, call), ...) below the model; () its own; None outside
    model: str      # the model's class name (or the names of a dict's models)


def attach(snapshot, ordered_nodes, model, depth, where="take_snapshot()"):
    """``snapshot`` with the module each of its nodes came from (``ordered_nodes``: its nodes,
    in snapshot id order; leaves by the parameters' owners)."""
    import dataclasses
    roots = roots_of(model, where)
    depth = check_depth(depth, where)
    chains, found = [None] * len(ordered_nodes), False
    owners = {}
    for prefix, root in roots:
        for name, module in root.named_modules():
            for p in module.parameters(recurse=False):
                owners.setdefault(id(p), (prefix, root, name))
    firsts = {}  # per model: the first watched call of each module name
    for i, node in enumerate(ordered_nodes):
        variable = getattr(node, "variable", None) if _is_leaf_node(node) else None
        if variable is not None:
            owner = owners.get(id(variable))
            if owner is not None:
                chains[i] = _chain_of_module(*owner, firsts)
            continue
        number = node._sequence_nr()
        for prefix, root in roots:
            calls = _watched.get(root)
            k = calls.owner(number) if calls is not None else None
            if k is not None:
                chains[i] = _prefixed(*calls.chain(k), prefix, root)
                found = True
                break
    if not found:
        names = ", ".join(type(m).__name__ for _, m in roots)
        raise ValueError(f"{where}: no node of this graph was made by {names} under "
                         f"viz.watch: run the forward inside `with lesson.watch(model):`")
    label = " + ".join(p or type(m).__name__ for p, m in roots)
    return dataclasses.replace(snapshot, modules=ModuleMap(depth, tuple(chains), label))


def _is_leaf_node(node):
    name = node.name()
    return name in ("AccumulateGrad", "torch::autograd::AccumulateGrad")


def _prefixed(chain, root_call, prefix, root):
    """The chain below a dict's model ``prefix`` (``G``): that model is its first link."""
    if not prefix:
        return chain
    return ((prefix, type(root).__name__, root_call),) + tuple(
        (f"{prefix}.{n}", k, c) for n, k, c in chain)


def _chain_of_module(prefix, root, name, firsts):
    """The chain of a parameter's module: that of the first watched call of it or of its
    nearest called ancestor (MultiheadAttention reads out_proj's weight without calling it).
    ``firsts`` keeps each model's {module name: first call}, worked out once per snapshot."""
    calls = _watched.get(root)
    if id(root) not in firsts:
        first = firsts[id(root)] = {}
        for i, call in enumerate(calls.calls if calls is not None else ()):
            first.setdefault(call[2], i)
    first = firsts[id(root)]
    parts = name.split(".") if name else []
    for k in range(len(parts), 0, -1):
        i = first.get(".".join(parts[:k]))
        if i is not None:  # (no call number: a parameter is not made by one call)
            chain, _ = calls.chain(i)
            return _prefixed(tuple((n, k, -1) for n, k, _ in chain), -1, prefix, root)
    return _prefixed((), -1, prefix, root)


# -- folding by module -----------------------------------------------------------------------
def boxes(snapshot):
    """Per node id: (box name, class) at the map's depth, or None (drawn in the open: the
    model's own ops, and what was computed outside the model)."""
    depth = snapshot.modules.depth
    result = {}
    for node in snapshot.nodes:
        chain = snapshot.modules.chains[node.id] if node.id < len(snapshot.modules.chains) \
            else None
        if chain is None or (not chain and depth):
            result[node.id] = None
        elif depth == 0:
            result[node.id] = (snapshot.modules.model, "")
        else:
            name, klass, _ = chain[min(depth, len(chain)) - 1]
            result[node.id] = (name, klass)
    return result


def calls_per_box(snapshot):
    """Per box: how many calls of that module made this graph's nodes (LSTMCell: 100)."""
    depth = snapshot.modules.depth
    seen = defaultdict(set)
    for node in snapshot.nodes:
        chain = snapshot.modules.chains[node.id]
        if chain and depth:
            name, klass, call = chain[min(depth, len(chain)) - 1]
            if call >= 0:
                seen[(name, klass)].add(call)
    return {box: len(calls) for box, calls in seen.items()}


def box_label(box, count):
    name, klass = box
    text = f"{name} · {klass}" if klass else name
    return text + (f" ×{count}" if count > 1 else "")


def focus_sets(before, after, changes):
    """What to draw in full at each fold level: the touched boxes open, then every box
    closed, then only what changed (or is named) outside the boxes."""
    box = boxes(after)
    ids = {n.id for n in after.nodes}
    free = {i for i in ids if box[i] is None}
    touched = {box[i] for i, c in changes.items() if c.changed and box[i] is not None}
    changed = {i for i, c in changes.items() if c.changed}
    named = {n.id for n in after.nodes if n.label} | set(after.roots)
    levels = [free | {i for i in ids if box[i] in touched}, free, free & (changed | named)]
    unique = []
    for level in levels:
        if level not in unique and len(level) < len(ids):
            unique.append(level)
    if unique:  # last resort, as torchview rolls them: a run of alike modules in one box
        unique.append(_Rolled(unique[-1]))
    return unique


class _Rolled(frozenset):
    """A fold level whose boxes of one class under one parent (blocks.0 … blocks.11) roll
    into one box."""

    def __eq__(self, other):
        return isinstance(other, _Rolled) and frozenset.__eq__(self, other)

    __hash__ = frozenset.__hash__


def _rolled_names(labels):
    """box -> the label of the rolled box it joins (more than six alike siblings, in the
    order their nodes were made)."""
    siblings = defaultdict(list)
    for (name, klass) in labels:
        parent = name.rsplit(".", 1)[0] if "." in name else ""
        siblings[(parent, klass)].append(name)
    rolled = {}
    for (parent, klass), names in siblings.items():
        if len(names) > 6 and klass:  # (ResNet keeps its four layers apart)
            tails = [n.rsplit(".", 1)[-1] for n in names]
            head = f"{parent}.{tails[0]}–{tails[-1]}" if parent else f"{tails[0]}–{tails[-1]}"
            for name in names:
                rolled[(name, klass)] = f"{head} · {klass} ×{len(names)}"
    return rolled


def fold_plan(snapshot, keep):
    """Every node not in ``keep`` in its module's box (the rest by where they were made)."""
    box = boxes(snapshot)
    counts = calls_per_box(snapshot)
    rolled = _rolled_names(list(dict.fromkeys(box[n.id] for n in sorted(
        snapshot.nodes, key=lambda n: n.id) if box[n.id] is not None))) \
        if isinstance(keep, _Rolled) else {}
    order, members = [], defaultdict(list)
    for node in sorted(snapshot.nodes, key=lambda n: n.id):
        if node.id in keep:
            continue
        b = box[node.id]
        if b is None:
            chain = snapshot.modules.chains[node.id]
            key = f"{snapshot.modules.model} (its own ops)" if chain is not None \
                else "outside the model"
        else:
            key = rolled.get(b) or box_label(b, counts.get(b, 1))
        if key not in members:
            order.append(key)
        members[key].append(node.id)
    groups = [(key, members[key]) for key in order]
    plan = {m: g for g, (_, ms) in enumerate(groups) for m in ms}
    return plan, groups


def clusters(snapshot, plan, label):
    """DOT subgraphs framing the open boxes' nodes, each labelled with its module (``label``
    makes the DOT label of its text: dot.py gives it a measured width)."""
    box = boxes(snapshot)
    counts = calls_per_box(snapshot)
    open_boxes = defaultdict(list)
    for node in snapshot.nodes:
        if node.id not in plan and box[node.id] is not None:
            open_boxes[box[node.id]].append(node.id)
    lines = []
    for k, (b, ids) in enumerate(sorted(open_boxes.items(), key=lambda item: item[1][0])):
        lines.append(f'  subgraph cluster_m{k} {{ label={label(box_label(b, counts.get(b, 1)))} '
                     f'style="rounded,dashed" '
                     f'color="#888888" ' + " ".join(f"n{i};" for i in ids) + " }")
    return lines


def storage_bytes(buffers):
    """Bytes of the live buffers among ``buffers``, each storage once (as the heading counts)."""
    sizes = {}
    for b in buffers:
        if b.state != "freed" and not b.wrapped_scalar:
            sizes[b.storage] = b.storage_nbytes
    return sum(sizes.values())


def module_table(snapshot):
    """The text twin of the boxes: one line per module box (nodes, buffer states, bytes)."""
    if snapshot.modules is None:
        return ""
    box = boxes(snapshot)
    counts = calls_per_box(snapshot)
    by_box = defaultdict(list)
    for node in snapshot.nodes:
        by_box[box[node.id]].append(node.id)
    rows = []
    for b, ids in sorted(((b, ids) for b, ids in by_box.items() if b is not None),
                         key=lambda item: item[1][0]):
        members = set(ids)
        buffers = [x for x in snapshot.buffers if x.node_id in members]
        states = Counter(x.state for x in buffers)
        state_text = ", ".join(f"{n} {s}" for s, n in sorted(states.items())) or "no buffers"
        rows.append((box_label(b, counts.get(b, 1)), f"{len(ids)} nodes", state_text,
                     f"{storage_bytes(buffers):,} B"))
    outside = len(by_box.get(None, ()))
    lines = [f"modules of {snapshot.modules.model} (depth {snapshot.modules.depth}):"]
    widths = [max(len(r[k]) for r in rows) for k in range(4)] if rows else []
    for row in rows:
        lines.append("  " + "  ".join(c.ljust(w) if k < 3 else c.rjust(w)
                                      for k, (c, w) in enumerate(zip(row, widths))).rstrip())
    if outside:
        lines.append(f"  and {outside} node{'s' if outside != 1 else ''} outside the boxes")
    return "\n".join(lines)


# -- one layout that fits: the chain of module boxes wrapped into rows ---------------------------
_BOX_LINE = re.compile(r"^  ([ng]\d+) \[(.*)$", re.M)
_EDGE_LINE = re.compile(r"^  ([ng]\d+) -> ([ng]\d+)", re.M)
_LABELLED_EDGE = re.compile(r"^  ([ng]\d+) -> ([ng]\d+) \[label=", re.M)
_TEXT_CELL = re.compile(r'<TD WIDTH="(\d+)"[^>]*>(.*?)</TD>')
_NODESEP, _RANKSEP, _MARGIN = 13, 20, 8  # points, as picture_dot's graph attributes set them
_LINE, _CELL, _PAD, _EDGE_LABEL = 11.5, 6, 14, 24  # points: a text line, an extra cell, around
# a label, an edge's label


def _size(label):
    """(width, height) in points dot will give a box with this HTML label, from its cells'
    measured widths and its lines (within a few points on these pictures)."""
    cells = _TEXT_CELL.findall(label)
    if not cells:
        return 60.0, 36.0
    lines = sum(1 + text.count("<BR/>") for _, text in cells)
    return (max(int(w) for w, _ in cells) + _PAD,
            max(36.0, _LINE * lines + _CELL * (len(cells) - 1) + 2))


def _heading_height(source):
    """Points the graph's heading (title, totals, notes, legend) takes above the boxes."""
    line = re.search(r"^  label=(.*)$", source, re.M)
    if line is None:
        return 0.0
    rows = line.group(1).count("<TR>")
    legend = line.group(1).count("BGCOLOR=") // 2  # a legend row shows two marks, and the
    return 15.0 * (rows - legend - (legend > 0)) + 23.0 * legend + 8.0  # legend is in a row


def wrap(source, width_pt):
    """(source, (width, height) predicted in points): a picture whose boxes form a chain
    taller than a screen (ResNet's stem … layers.3, fc, the loss) laid out as rows read like
    text, each row as many consecutive ranks as fit ``width_pt`` side by side (``rank=same``:
    an edge inside a row runs left to right), so one ``dot`` run gives a picture that fits.
    A picture with open module boxes (clusters) keeps its ranks."""
    sizes = {name: _size(body) for name, body in _BOX_LINE.findall(source)}
    children = defaultdict(list)
    has_parent = set()
    for a, b in _EDGE_LINE.findall(source):
        children[a].append(b)
        has_parent.add(b)
    rank = {}
    order = [n for n in sizes if n not in has_parent]
    for name in order:  # longest path from the roots, as dot ranks them (edges run downwards)
        rank.setdefault(name, 0)
    indegree = Counter(b for a, bs in children.items() for b in bs)
    while order:
        name = order.pop()
        for child in children[name]:
            rank[child] = max(rank.get(child, 0), rank[name] + 1)
            indegree[child] -= 1
            if indegree[child] == 0:
                order.append(child)
    ranks = defaultdict(list)
    for name in sizes:
        ranks[rank.get(name, 0)].append(name)
    may_wrap = "subgraph cluster" not in source
    rows, row, row_width = [], [], 0.0
    labelled = {(a, b) for a, b in _LABELLED_EDGE.findall(source)}
    for r in sorted(ranks):
        width = sum(sizes[n][0] + _NODESEP for n in ranks[r])
        # an edge inside a row is drawn across it, its label ("×2") beside it
        width += _EDGE_LABEL * sum((a, b) in labelled for a in row for b in ranks[r])
        if row and (not may_wrap or row_width + width > width_pt):
            rows.append(row)
            row, row_width = [], 0.0
        row.extend(ranks[r])
        row_width += width
    if row:
        rows.append(row)
    width = max((sum(sizes[n][0] + _NODESEP for n in row) for row in rows), default=0.0)
    height = sum(max(sizes[n][1] for n in row) for row in rows) + \
        _RANKSEP * (len(rows) - 1) + _heading_height(source) + 2 * _MARGIN
    if len(rows) == len(ranks):  # no row holds two ranks: dot's own layout
        return source, (width, height)
    # each row starts at the left edge, under the row above (an invisible edge between the
    # rows' first boxes); the edges from one row to the next no longer rank the rows
    between = {(a, b) for upper, lower in zip(rows, rows[1:]) for a in upper for b in lower}
    source = _EDGE_LINE.sub(lambda m: m.group(0) + (" [constraint=false]" if (
        m.group(1), m.group(2)) in between else ""), source)
    source = source.replace("[constraint=false] [", "[constraint=false ")
    extra = [f"  {{rank=same; {' '.join(n + ';' for n in row)}}}" for row in rows]
    extra += [f"  {upper[0]} -> {lower[0]} [style=invis weight=100]"
              for upper, lower in zip(rows, rows[1:])]
    return source.rstrip().rstrip("}") + "\n".join(extra) + "\n}\n", (width, height)
