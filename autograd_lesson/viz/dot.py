"""DOT source for the graph pictures: one picture per comparison, folded to fit a laptop.

A picture compares two snapshots of one graph (``before`` and ``after`` a call, or the start
and one step of a backward) in *one* drawing: every node keeps its place, a buffer row that
changed reads ``ALIVE → FREED`` in the new state's style, and the nodes that ran are
highlighted. A single snapshot is the same picture with nothing changed.

States differ in fill, border style and the printed word with its icon, so the picture reads
in grayscale and under colour blindness (``tests/test_viz.py`` checks the palette's distances
under simulated deuteranopia, protanopia and tritanopia). The same snapshots always give the
same DOT text (ids come from creation order, never ``id()``).

Large graphs are *folded*: nodes that matter (what the call touched and its neighbours, the
named tensors) stay in full, the rest become labelled groups ("G: 6 nodes, none ran"). The
whole graph is ``fold=False`` away.
"""
import html
import math
import re
import textwrap
from collections import Counter, defaultdict
from typing import NamedTuple

from ..i18n import t
from . import modules
from .fonts import CJK_FONT, HANGUL, graphviz_width, text_width
from .ledger import bytes_text, shape_text
from .snapshot import slot_key

FONT = "DejaVu Sans"
# DejaVu has no Hangul: a picture with Korean text names a CJK font after it (CJK_FONT), so
# Graphviz (through Pango) measures the Hangul in that font and a browser draws the SVG with it.
MIN_FONT_PT = 10  # the smallest text in every picture (e2e reads it from the PNGs too)
TITLE_FONT_PT = 11

# Okabe-Ito-derived pale fills (text stays black on all of them); checked under CVD simulation.
STATES = {
    "alive": dict(fill="#bfe3f7", border="#0072b2", width="1", dashed=False, icon="●",
                  meaning="saved, not used by a backward yet"),
    "retained": dict(fill="#f6e27a", border="#8a6d00", width="2", dashed=False, icon="■",
                     meaning="kept by retain_graph=True"),
    "freed": dict(fill="#ffffff", border="#777777", width="1", dashed=True, icon="○",
                  meaning="released by a backward"),
    "stale": dict(fill="#e69f9f", border="#9e1b1b", width="3", dashed=False, icon="⚠",
                  meaning="changed in place: backward will raise"),
    # torch only, a node the view never watched: alive or retained (modules.UNKNOWN_NOTE)
    "unknown": dict(fill="#d0d0d0", border="#222222", width="2", dashed=True, icon="?",
                    meaning="alive or retained: a backward may have run before the view watched"),
}
LEGEND_STATES = ("alive", "retained", "freed", "stale")
NODE_STYLES = {  # fill, border colour, pen width, dashed, the word printed in the node
    "idle": ("#ffffff", "#555555", 1, False, ""),
    "ran": ("#9fd8b8", "#00704a", 2, False, "✓ ran"),
    "now": ("#f0a030", "#000000", 4, False, "▶ running now"),  # the widest word: layouts use it
    "failed": ("#e8a0d0", "#3b2d8f", 4, True, "✗ backward failed here"),
    "leaf": ("#e8e8e8", "#333333", 1, False, ""),
    "group": ("#f2f2f2", "#777777", 1, True, ""),
}
EDGE_COLOUR = "#555555"
ROUTED_MAX = 45  # boxes a pinned picture routes its edges around (render.MAX_DRAWN)
DEFAULT_MAX_NODES = 60  # kept for callers; folding now decides what is drawn in full


def _q(text):
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _e(text):
    return html.escape(str(text))


_TAG = re.compile(r"<(/?)(B|FONT|BR)\b([^>]*)>")


def _line_widths(content):
    """(browser, Graphviz) width in points of each line (split at <BR/>) of an HTML-label text,
    measured with the real fonts, bold and POINT-SIZE followed; None without the fonts."""
    widths, line, sizes, bold, pos = [], [], [MIN_FONT_PT], 0, 0

    def flush():
        widths.append(tuple(sum(measure(html.unescape(text), size, b) or math.nan
                                for text, size, b in line)
                            for measure in (text_width, graphviz_width)))
        line.clear()
    for match in list(_TAG.finditer(content)) + [None]:
        text = content[pos:match.start() if match else len(content)]
        if text:
            line.append((text, sizes[-1], bold > 0))
        if match is None:
            break
        pos = match.end()
        closing, tag, attrs = match.groups()
        if tag == "BR":
            flush()
        elif tag == "B":
            bold += -1 if closing else 1
        elif closing:
            sizes.pop()
        else:
            size = re.search(r'POINT-SIZE="([\d.]+)"', attrs)
            sizes.append(float(size.group(1)) if size else sizes[-1])
    flush()
    return None if any(math.isnan(w) for pair in widths for w in pair) else widths


def _cell(content, attrs="", padding=2, border=0, room=0, under_border=None):
    """A table cell of ``content`` as wide as a browser will draw its widest line (plus its
    padding and border): Graphviz's own measure is up to 5 % short (see fonts.py), and the
    text ran across the cell's border. A centred line is placed by that shorter measure and
    drawn wider from there, so its right end is kept 1 pt off the border too (``room``: how
    far outside the cell the nearest border is, as in a buffer row's inner cells).

    A first line with Hangul right under a border (the cell's own, or its node's:
    ``under_border``) gets 2 pt more padding: Graphviz sets a Hangul line's baseline as a
    Latin one's, and its taller glyphs touched the border above them."""
    widths = _line_widths(content)
    if (border if under_border is None else under_border) and \
            HANGUL.search(content.split("<BR/>", 1)[0]):
        padding += 2
        attrs += f' CELLPADDING="{padding}"'
    width = ""
    if widths:
        need = max(b for b, _ in widths) + 2 * (padding + border) + 2
        if 'ALIGN="LEFT"' not in attrs:  # (g - 2: Graphviz's measure, taken at its shortest)
            need = max([need] + [2 * b - (g - 2) + 2 * (border - room) + 2 for b, g in widths])
        width = f' WIDTH="{math.ceil(need)}"'
    return f"<TD{width}{attrs}>{content}</TD>"


def _lines_cell(lines, attrs="", border=0, under_border=None):
    """A cell of several lines, each in its own row of an inner table, 2 pt apart: with <BR/>
    the lines sat so close that a slot name's underscores read as overbars on the next line
    (``under_border``: the first line sits right under a border, as in :func:`_cell`)."""
    first = _cell(lines[0], padding=1, room=2, under_border=under_border) if lines else ""
    rows = "".join(f"<TR>{cell}</TR>" for cell in
                   [first] + [_cell(line, padding=1, room=2) for line in lines[1:]] if cell)
    return (f'<TD{attrs}><TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="1">'
            f"{rows}</TABLE></TD>")


def _brief(values, keep=2):
    """'[0.4282, -0.0481, -0.2598, …]' → '[0.4282, -0.0481, …]': a picture needs no more."""
    if not values.startswith("[") or values.count(",") < keep:
        return values
    return "[" + ", ".join(values[1:].split(", ")[:keep]) + ", …]"


def _node_word(style):
    """The word printed in a node of ``style`` ("✓ ran"), in the current language."""
    return t(f"node.{style}") if NODE_STYLES[style][4] else ""


def with_cjk_fallback(source):
    """DOT source whose fonts fall back to CJK_FONT when it has Hangul (else unchanged); the
    cells' widths already make room for the Hangul as a browser draws it (see _cell)."""
    if not HANGUL.search(source):
        return source
    return source.replace(f'fontname="{FONT}"', f'fontname="{FONT},{CJK_FONT}"')


def _state_word(state):
    return f"{STATES[state]['icon']} {state.upper()}"


def _slot_name(slot):
    return slot if slot.startswith("saved_tensors") else f"_saved_{slot}"


def _buffer_row(now, then=None):
    """One saved buffer as a table row; ``then`` (the earlier state) marks a transition."""
    st = STATES[now.state]
    version = f" v{now.current_version}≠v{now.saved_version}" if now.state == "stale" else ""
    word = _state_word(now.state)
    if then is not None and then.state != now.state:
        word = f"{then.state.upper()} → {word}"
    colour = ' COLOR="#444444"' if now.state == "freed" else ""
    # No bold inside a line: browsers draw bold DejaVu wider than Graphviz measures it, and
    # the spans of a mixed line would overlap.
    lines = [f'<FONT{colour}>{_e(_slot_name(now.slot))} = {_e(now.holds)}</FONT>',
             f'<FONT{colour}>{shape_text(now.shape, now.dtype)} · {bytes_text(now.nbytes)} · '
             f'{_e(word)}{_e(version)}</FONT>']
    dashed = ' STYLE="dashed"' if st["dashed"] else ""
    return "<TR>" + _lines_cell(lines, f' BGCOLOR="{st["fill"]}" COLOR="{st["border"]}" '
                                       f'BORDER="{st["width"]}"{dashed}') + "</TR>"


def _table(rows, spacing=2):
    return (f'<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="{spacing}" CELLPADDING="2">'
            f'{"".join(rows)}</TABLE>>')


def _node_attrs(style, label, shape="box", rounded=True):
    fill, border, width, dashed, _ = NODE_STYLES[style]
    # A thick border ("running now", "failed here") is drawn square: its rounded corner
    # reached into the first line's text (lesson 02's step-through, in Chromium).
    rounded = rounded and width < 3
    styles = (["rounded"] if rounded else []) + ["filled"] + (["dashed"] if dashed else [])
    return (f"[label={label} shape={shape} style={_q(','.join(styles))} "
            f"fillcolor={_q(fill)} color={_q(border)} penwidth={width}]")


class Change(NamedTuple):
    """How one node differs between the two snapshots compared."""
    status: str        # "idle", "ran", "now" or "failed"
    changed: bool      # a buffer or .grad of this node changed (or it ran)


def compare(before, after, now=None):
    """Per node id: its status in ``after`` and whether anything about it changed."""
    old_buffers = {slot_key(b): b.state for b in before.buffers}
    old_leaves = {leaf.id: leaf.grad for leaf in before.leaves}
    touched = Counter()
    for b in after.buffers:
        if old_buffers.get(slot_key(b)) != b.state:
            touched[b.node_id] += 1
    for leaf in after.leaves:
        if old_leaves.get(leaf.id) != leaf.grad or leaf.accumulated:
            touched[leaf.id] += 1
    result = {}
    for node in after.nodes:
        status = "failed" if node.failed else "now" if node.id == now else \
            "ran" if node.executed else "idle"
        result[node.id] = Change(status, status != "idle" or touched[node.id] > 0)
    return result


# -- folding -----------------------------------------------------------------------------------
def _module(name):
    return name.split(".", 1)[0] if "." in name else ""


def group_keys(snapshot):  # (module boxes: viz/modules.py)
    """A group name for every node: a leaf's module (``G`` for ``G.0.weight``), else the
    named tensor the node helps compute (the nearest named node on the way from the roots)."""
    parents = defaultdict(list)
    for src, dst in snapshot.edges:
        parents[dst].append(src)
    leaves = {leaf.id: leaf for leaf in snapshot.leaves}
    by_id = {n.id: n for n in snapshot.nodes}
    keys = {}
    # Function nodes in reverse creation order: parents (consumers) are created later.
    for node in sorted(snapshot.nodes, key=lambda n: -n.id if n.id not in leaves else 0):
        if node.id in leaves:
            continue
        if node.label:
            keys[node.id] = node.label
            continue
        owners = sorted({keys[p] for p in parents[node.id] if p in keys})
        keys[node.id] = owners[0] if owners else by_id[node.id].name
    for leaf_id, leaf in leaves.items():
        module = _module(leaf.name)
        owners = sorted({keys.get(p, "") for p in parents[leaf_id]})
        keys[leaf_id] = f"{module} parameters" if module else (owners[0] if owners else leaf.name)
    return keys


def fold_plan(snapshot, keep):
    """Map every node not in ``keep`` to a group number: folded nodes that share a group key
    and are connected form one group; a module's folded leaves form one group (with model=,
    each module box is one group: modules.fold_plan)."""
    if snapshot.modules is not None:
        return modules.fold_plan(snapshot, keep)
    keys = group_keys(snapshot)
    leaves = {leaf.id for leaf in snapshot.leaves}
    folded = {n.id for n in snapshot.nodes if n.id not in keep}
    neighbours = defaultdict(set)
    for src, dst in snapshot.edges:
        if src in folded and dst in folded and keys[src] == keys[dst]:
            neighbours[src].add(dst)
            neighbours[dst].add(src)
    by_key = defaultdict(list)
    for leaf in sorted(folded & leaves):
        by_key[keys[leaf]].append(leaf)
    for members in by_key.values():
        for a, b in zip(members, members[1:]):
            neighbours[a].add(b)
            neighbours[b].add(a)
    plan, groups = {}, []
    for node in sorted(folded):
        if node in plan:
            continue
        stack, members = [node], []
        plan[node] = len(groups)
        while stack:
            current = stack.pop()
            members.append(current)
            for other in neighbours[current]:
                if other not in plan:
                    plan[other] = len(groups)
                    stack.append(other)
        groups.append((keys[node], sorted(members)))
    singles = {members[0] for _, members in groups if len(members) == 1}
    if singles:  # a group of one hides nothing: draw that node
        return fold_plan(snapshot, set(keep) | singles)
    return plan, groups


def focus_sets(before, after, changes):
    """What to keep in full at each fold level, most to least."""
    if after.modules is not None:
        return modules.focus_sets(before, after, changes)
    changed = {i for i, c in changes.items() if c.changed}
    named = {n.id for n in after.nodes if n.label} | set(after.roots)
    near = set(changed)
    for src, dst in after.edges:
        if src in changed or dst in changed:
            near |= {src, dst}
    leaves = {leaf.id for leaf in after.leaves}
    levels = []
    if changed:
        levels.append(near | named)
        levels.append(changed | named)
        levels.append((changed - leaves) | set(after.roots))
    else:
        levels.append(named)
    levels.append(set(after.roots) | {i for i, c in changes.items() if c.status in ("now",
                                                                                     "failed")})
    unique = []
    for level in levels:
        if level not in unique and len(level) < len(after.nodes):
            unique.append(level)
    return unique


def keep_set(before, after, fold_level, changes=None):
    """The node ids drawn in full at ``fold_level`` (0: all of them)."""
    changes = changes or compare(before, after)
    levels = focus_sets(before, after, changes)
    if fold_level == 0 or not levels:
        return {n.id for n in after.nodes}
    return levels[min(fold_level, len(levels)) - 1]


# -- DOT -------------------------------------------------------------------------------------------
def _group_label(after, before, members, key, changes, old=None, rows_of=None):
    member_set = set(members)
    old = {slot_key(b): b.state for b in before.buffers} if old is None else old
    buffers = [b for b in after.buffers if b.node_id in member_set] if rows_of is None else \
        [b for m in sorted(member_set) for b in rows_of.get(m, ())]
    ran = sum(1 for m in members if changes[m].status != "idle")
    moves = Counter((old.get(slot_key(b), b.state), b.state) for b in buffers)
    leaves = sum(1 for leaf in after.leaves if leaf.id in member_set)
    n = len(members)
    what = t("group.leaves", n=n, leaves="leaf" if n == 1 else "leaves") if leaves == n else \
        t("group.nodes", n=n, s="" if n == 1 else "s")
    ran_text = t("group.all_ran") if ran == len(members) else t("group.none_ran") if ran == 0 \
        else t("group.some_ran", n=ran)
    head = t("group.head", key=key, what=what, ran=ran_text)
    # a Korean head ("loss1: 노드 2개 접음 (실행된 것 없음)") breaks after the name: on one line
    # it made lesson 03's picture 902 pt wide, its text under 11 px on a laptop
    heads = head.split(": ", 1) if HANGUL.search(head) and ": " in head else [head]
    lines = [f"<B>{_e(part)}{':' if k < len(heads) - 1 else ''}</B>" for k, part in enumerate(heads)]
    for (a, b), count in sorted(moves.items()):
        move = a.upper() if a == b else f"{a.upper()} → {b.upper()}"
        lines.append(t("group.buffers", n=count, s="s" if count != 1 else "", move=move))
    live = modules.storage_bytes(buffers)  # each storage once, as the heading counts
    held = live
    if after.modules is not None:  # a module box tells what its block held before, too
        keys = {slot_key(b) for b in buffers}
        held = modules.storage_bytes([b for b in before.buffers if slot_key(b) in keys])
    if buffers and held != live:
        lines.append(t("group.live_moved", before=f"{held:,}", bytes=f"{live:,}"))
    elif buffers:
        lines.append(t("group.live", bytes=f"{live:,}"))
    unfold = t("group.deeper", n=after.modules.depth + 1) if _opens_deeper(after, members) \
        else t("group.unfold")
    lines.append(f'<FONT COLOR="#444444">{unfold}</FONT>')
    if any(HANGUL.search(line) for line in lines):  # Graphviz spaces <BR/> lines by the Latin
        # font's height, and the taller Hangul glyphs of one line touched the next
        return _table([f"<TR>{_lines_cell(lines, under_border=True)}</TR>"], spacing=0)
    return _table([f"<TR>{_cell('<BR/>'.join(lines), under_border=True)}</TR>"], spacing=0)


def _opens_deeper(snapshot, members):
    """Whether one more ``depth=`` opens this module box: a member was made inside one of
    its modules' own children (an RNNCell's nodes, made by the cell itself, do not open)."""
    if snapshot.modules is None:
        return False
    depth, chains = snapshot.modules.depth, snapshot.modules.chains
    return any(m < len(chains) and chains[m] is not None and len(chains[m]) > depth
               for m in members)


def picture_dot(before, after, title="", fold_level=0, legend=True, now=None, changes=None,
                positions=None, rankdir="TB", notes=(), keep=None, plan=None, only=None):
    """DOT source of one picture comparing ``before`` with ``after`` (the same snapshot for a
    plain view). ``fold_level`` 0 draws everything; 1, 2 ... fold more (see focus_sets).

    ``positions`` (name -> (x, y) in points) pins every node for ``neato -n2``, so frames of a
    step-through share one layout; ``keep`` (node ids drawn in full) or ``plan`` (what
    fold_plan returned) then fixes the folding; ``only`` (box names such as ``n3``, ``g0``)
    draws those boxes and the edges between them alone (a step-through's window of a large
    graph, pinned in the window ``positions["bb"]``).
    """
    changes = changes or compare(before, after, now)
    if plan is None:
        if keep is None:
            keep = keep_set(before, after, fold_level, changes)
        plan = fold_plan(after, keep) if len(keep) < len(after.nodes) else ({}, [])
    plan, groups = plan
    old_buffers = {slot_key(b): b for b in before.buffers}
    old_states = {k: b.state for k, b in old_buffers.items()}
    rows_of = defaultdict(list)
    for b in after.buffers:
        rows_of[b.node_id].append(b)
    leaves = {leaf.id: leaf for leaf in after.leaves}
    old_leaves = {leaf.id: leaf for leaf in before.leaves}
    graph_attrs = (f'rankdir={rankdir} fontname="{FONT}" fontsize={MIN_FONT_PT} nodesep=0.18 '
                   f'ranksep=0.28 newrank=true labelloc=t labeljust=l')
    anchors = []
    if positions is not None and "bb" in positions:
        # Route edges around the pinned boxes; past ROUTED_MAX boxes neato's routing took
        # seconds (7 s for ResNet-18's 132), so a whole large graph gets straight edges.
        boxes = len(after.nodes) - len(plan) + len(groups) if only is None else len(only)
        graph_attrs += (' splines=true esep="+0.5"' if boxes <= ROUTED_MAX else
                        ' splines=line')
        # Invisible points at the layout's corners: neato -n2 then never shifts the drawing
        x0, y0, x1, y1 = (float(v) for v in positions["bb"].split(","))
        anchors = [f'  corner{k} [shape=point style=invis width=0.01 pos="{x:.2f},{y:.2f}!"]'
                   for k, (x, y) in enumerate(((x0, y0), (x1, y1)))]
    lines = ["digraph autograd {", f"  graph [{graph_attrs}]",
             f'  node [fontname="{FONT}" fontsize={MIN_FONT_PT} margin="0.04,0.02"]',
             f'  edge [color="{EDGE_COLOUR}" arrowsize=0.6]']
    if positions is None:  # pinned frames carry their heading outside the graph
        lines.append(f"  label={_heading(title, before, after, notes, legend)}")

    def pin(name):
        if positions is None or name not in positions or name == "bb":
            return ""
        x, y = positions[name]
        return f' pos="{x:.2f},{y:.2f}!"'

    lines.extend(anchors)
    for node in after.nodes:
        if node.id in plan or only is not None and f"n{node.id}" not in only:
            continue
        name = f"n{node.id}"
        status = changes[node.id].status
        if node.id in leaves:
            leaf = leaves[node.id]
            grad = f".grad = {_e(_brief(leaf.grad))}"
            then = old_leaves.get(node.id)
            if then is not None and then.grad != leaf.grad:
                grad = f".grad: {_e(_brief(then.grad))} → {_e(_brief(leaf.grad))}"
            text = [f"<B>{_e(leaf.name)}</B>", f"{shape_text(leaf.shape, leaf.dtype)} · {grad}"]
            if leaf.accumulated or status in ("now", "ran"):
                text.append(f"<B>{t('node.accumulated')}</B>" if status != "now" else
                            f"<B>{t('node.accumulating')}</B>")
            style = "now" if status == "now" else "ran" if leaf.accumulated or status == "ran" \
                else "leaf"
            label = _table([f"<TR>{_cell('<BR/>'.join(text))}</TR>"], spacing=0)
            lines.append(f"  {name} {_node_attrs(style, label, rounded=False)[:-1]}{pin(name)}]")
            continue
        head = f"#{node.id} {_e(node.name)}" + (f" → {_e(node.label)}" if node.label else "")
        head = f"<B>{head}</B>"
        word = _node_word(status)
        if word:
            head += f"<BR/><B>{word}</B>"
        rows = [f'<TR>{_cell(head)}</TR>'] + [
            _buffer_row(b, old_buffers.get(slot_key(b))) for b in rows_of.get(node.id, ())]
        lines.append(f"  {name} {_node_attrs(status, _table(rows))[:-1]}{pin(name)}]")
    for index, (key, members) in enumerate(groups):
        name = f"g{index}"
        if only is not None and name not in only:
            continue
        label = _group_label(after, before, members, key, changes, old_states, rows_of)
        style = next((changes[m].status for m in members  # the box a step runs in (model=)
                      if changes[m].status in ("now", "failed")), "group")
        room = ' margin="0.1,0.06"' if style != "group" else ""  # (its border is 4 pt wide)
        lines.append(f"  {name} {_node_attrs(style, label, shape='folder', rounded=False)[:-1]}"
                     f"{room}{pin(name)}]")
    edges = Counter()
    for src, dst in after.edges:
        a = f"g{plan[src]}" if src in plan else f"n{src}"
        b = f"g{plan[dst]}" if dst in plan else f"n{dst}"
        if a != b and (only is None or a in only and b in only):
            edges[(a, b)] += 1
    for (a, b), count in sorted(edges.items()):
        if a.startswith("g") or b.startswith("g"):
            extra = f' [label="×{count}" fontsize={MIN_FONT_PT}]' if count > 1 else ""
            lines.append(f"  {a} -> {b}{extra}")
        else:  # a node used twice (y * y) has two edges: both are drawn
            lines.extend(f"  {a} -> {b}" for _ in range(count))
    if after.modules is not None and positions is None:
        lines.extend(modules.clusters(after, plan, _cluster_label))
    lines.append("}")
    return with_cjk_fallback("\n".join(lines) + "\n")


def _cluster_label(text):
    """An open module box's title, as wide as a browser draws it: Graphviz sized the box by
    its own, shorter measure and a long name ran over the box's border."""
    cell = _cell(_e(text), ' ALIGN="LEFT"', padding=1)
    return f'<<TABLE BORDER="0" CELLPADDING="1" CELLSPACING="0"><TR>{cell}</TR></TABLE>>'


def _heading(title, before, after, notes, legend):
    """The picture's label: title, byte totals, notes, and the legend, above the graph."""
    if before is after or before.total_bytes == after.total_bytes and \
            before.graph_only_bytes == after.graph_only_bytes:
        totals = t("heading.totals", total=f"{after.total_bytes:,}",
                   only=f"{after.graph_only_bytes:,}")
    else:
        totals = t("heading.totals_change", total0=f"{before.total_bytes:,}",
                   total1=f"{after.total_bytes:,}", only0=f"{before.graph_only_bytes:,}",
                   only1=f"{after.graph_only_bytes:,}")
    rows = []
    if title:
        rows.extend(f'<FONT POINT-SIZE="{TITLE_FONT_PT}"><B>{_e(line)}</B></FONT>'
                    for line in textwrap.wrap(title, 100))
    rows.append(_e(totals))
    for note in list(after.notes) + list(notes):
        rows.extend(f'<FONT COLOR="{NODE_STYLES["failed"][1]}">{_e(line)}</FONT>'
                    for line in textwrap.wrap(note, 100))
    cells = "".join("<TR>" + _cell(row, ' ALIGN="LEFT"', padding=1) + "</TR>" for row in rows)
    if legend:
        cells += f'<TR><TD ALIGN="LEFT">{legend_table()}</TD></TR>'
    return f'<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="1">{cells}</TABLE>>'


def legend_table():
    """A compact legend: the four buffer states and the node marks, in two rows."""
    cells = []
    for state in LEGEND_STATES:
        st = STATES[state]
        dashed = ' STYLE="dashed"' if st["dashed"] else ""
        cells.append(_cell(f"<B>{_e(_state_word(state))}</B>",
                           f' BGCOLOR="{st["fill"]}" COLOR="{st["border"]}" '
                           f'BORDER="{st["width"]}"{dashed}', border=int(st["width"]))
                     + _cell(_e(t("legend." + state)), ' ALIGN="LEFT"'))
    nodes = []
    for style in ("ran", "now", "failed", "group"):
        meaning = t(f"legend.{style}")
        fill, border, width, dashed, _ = NODE_STYLES[style]
        word = _node_word(style) or t("node.group")
        dash = ' STYLE="dashed"' if dashed else ""
        nodes.append(_cell(f"<B>{_e(word)}</B>", f' BGCOLOR="{fill}" COLOR="{border}" '
                           f'BORDER="{min(width, 3)}"{dash}', border=min(width, 3))
                     + _cell(_e(meaning), ' ALIGN="LEFT"'))
    rows = ["<TR>" + cell + node + "</TR>" for cell, node in zip(cells, nodes)]
    return ('<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="2" CELLPADDING="2">'
            + "".join(rows) + "</TABLE>")


def legend_dot():
    """The legend alone (a step-through shows it once, above its frames)."""
    return with_cjk_fallback(
        f'digraph legend {{\n  node [fontname="{FONT}" fontsize={MIN_FONT_PT}]\n'
        f"  legend [shape=plaintext label=<{legend_table()}>]\n}}\n")


def snapshot_dot(snapshot, title=None, max_nodes=DEFAULT_MAX_NODES, legend=True, fold_level=0):
    """DOT source of one snapshot, titled, with a legend: every node at ``fold_level=0``, less
    at higher levels. ``max_nodes`` is accepted for older callers and ignored: since folding
    replaced the node cap, ``viz.graph_view`` picks the level that fits a laptop."""
    return picture_dot(snapshot, snapshot, title if title is not None else snapshot.title,
                       fold_level=fold_level, legend=legend)


def panels_dot(panels, max_nodes=DEFAULT_MAX_NODES, legend=True, fold_level=0):
    """One picture comparing the first and last (title, snapshot) of ``panels`` (``max_nodes``
    ignored, as in :func:`snapshot_dot`)."""
    (first_title, first), (last_title, last) = panels[0], panels[-1]
    title = first_title if len(panels) == 1 else f"{first_title} → {last_title}"
    return picture_dot(first, last, title, fold_level=fold_level, legend=legend)
