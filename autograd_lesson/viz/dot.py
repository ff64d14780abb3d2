"""DOT source for snapshots: nodes, their saved buffers coloured by state, and a legend.

States are told apart by fill colour, by border style (solid, bold, dashed, double) and by
the word printed in each box, so the picture also reads in grayscale. The same snapshot
always gives the same DOT text (ids come from creation order, never ``id()``).
"""
import html
import textwrap

STATES = {  # each state differs in fill, border (width / dashes) and the word printed
    "alive": dict(fill="#d7f0d2", border="#2e7d32", width="1", dashed=False,
                  meaning="saved, no backward has passed yet"),
    "retained": dict(fill="#cfe0fc", border="#1452b8", width="2", dashed=False,
                     meaning="kept by retain_graph=True"),
    "freed": dict(fill="#f4f4f4", border="#8a8a8a", width="1", dashed=True,
                  meaning="released by a backward"),
    "stale": dict(fill="#ffd9b3", border="#c43e00", width="3", dashed=False,
                  meaning="changed in place: backward will raise"),
}
EXECUTED_FILL = "#fff2a8"
FAILED_BORDER = "#d00000"
DEFAULT_MAX_NODES = 60


def _q(text):
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _attrs(**attrs):
    return "[" + " ".join(f"{k}={_q(v) if not str(v).startswith('<') else v}"
                          for k, v in attrs.items()) + "]"


def _html_label(lines):
    rows = "".join(f"<TR><TD>{line}</TD></TR>" for line in lines)
    return f'<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="1">{rows}</TABLE>>'


def _shape_text(shape, dtype):
    return f"{dtype}[{', '.join(map(str, shape))}]"


def _buffer_cell(buffer):
    """One saved buffer as a table cell: slot = what it holds, dtype[shape] · bytes · STATE."""
    st = STATES[buffer.state]
    version = f" v{buffer.current_version}≠v{buffer.saved_version}" if buffer.state == "stale" else ""
    slot = buffer.slot if buffer.slot.startswith("saved_tensors") else f"_saved_{buffer.slot}"
    colour = ' COLOR="#555555"' if buffer.state == "freed" else ""
    text = (f'<FONT POINT-SIZE="10"{colour}><B>{html.escape(slot)}</B> = '
            f'{html.escape(buffer.holds)}<BR/>{_shape_text(buffer.shape, buffer.dtype)} · '
            f'{buffer.nbytes:,} B · <B>{buffer.state.upper()}</B>{version}</FONT>')
    dashed = ' STYLE="dashed"' if st["dashed"] else ""
    return (f'<TR><TD BGCOLOR="{st["fill"]}" COLOR="{st["border"]}" BORDER="{st["width"]}"'
            f'{dashed}>{text}</TD></TR>')


def _node_lines(snapshot, prefix, max_nodes):
    """DOT lines for one snapshot's graph; node names start with ``prefix``.

    Each function node is a small table: its name, then one row per saved buffer, so the
    picture stays about as wide as the graph itself.
    """
    shown, hidden = _visible(snapshot, max_nodes)
    leaves = {leaf.id: leaf for leaf in snapshot.leaves}
    buffers = {}
    for buffer in snapshot.buffers:
        buffers.setdefault(buffer.node_id, []).append(buffer)
    lines = []
    for node in snapshot.nodes:
        if node.id not in shown:
            continue
        name = f"{prefix}n{node.id}"
        if node.id in leaves:
            leaf = leaves[node.id]
            text = [f"<B>{html.escape(leaf.name)}</B>", _shape_text(leaf.shape, leaf.dtype),
                    f".grad = {html.escape(leaf.grad)}"]
            lines.append(f"  {name} {_attrs(label=_html_label(text), shape='box', style='filled', fillcolor='#e3ecf7' if not leaf.accumulated else EXECUTED_FILL, color='#35506b', penwidth='2' if leaf.accumulated else '1')}")
            continue
        head = f"<B>#{node.id} {node.name}</B>"
        if node.label:
            head += f"<BR/>→ {html.escape(node.label)}"
        if node.failed:
            head += '<BR/><FONT COLOR="#d00000"><B>✗ backward failed here</B></FONT>'
        elif node.executed:
            head += "<BR/>ran in last backward"
        rows = f'<TR><TD BORDER="0">{head}</TD></TR>' + "".join(
            _buffer_cell(b) for b in buffers.get(node.id, ()))
        label = (f'<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="3" CELLPADDING="3">'
                 f'{rows}</TABLE>>')
        attrs = dict(label=label, shape="box", style="rounded,filled", margin="0.05",
                     fillcolor=EXECUTED_FILL if node.executed or node.failed else "white",
                     color=FAILED_BORDER if node.failed else "#444444",
                     penwidth="3" if node.failed else ("2" if node.executed else "1"))
        lines.append(f"  {name} {_attrs(**attrs)}")
    edges = set()
    for src, dst in snapshot.edges:
        a = src if src in shown else "hidden"
        b = dst if dst in shown else "hidden"
        if a == b == "hidden":
            continue
        edges.add((a, b))
    for a, b in sorted(edges, key=str):
        lines.append(f"  {prefix}{'n' if a != 'hidden' else ''}{a} -> "
                     f"{prefix}{'n' if b != 'hidden' else ''}{b}")
    if hidden:
        count = len(hidden)
        hidden_buffers = sum(1 for b in snapshot.buffers if b.node_id in hidden)
        text = (f"… {count} nodes and {hidden_buffers} saved buffers not drawn …\n"
                f"(the same structure repeats; the ledger lists them all)")
        lines.append(f"  {prefix}hidden {_attrs(label=text, shape='note', style='filled', fillcolor='#eeeeee')}")
    return lines


def _visible(snapshot, max_nodes):
    ids = [n.id for n in snapshot.nodes if n.name != "AccumulateGrad"]
    if len(snapshot.nodes) <= max_nodes:
        return {n.id for n in snapshot.nodes}, set()
    half = max_nodes // 2
    shown = set(ids[:half]) | set(ids[-half:]) | set(snapshot.roots)
    leaf_ids = {leaf.id for leaf in snapshot.leaves}
    shown |= leaf_ids & {dst for src, dst in snapshot.edges if src in shown}
    return shown, {n.id for n in snapshot.nodes} - shown


def legend_lines(name="legend"):
    """One compact table node: each buffer state with its colour, border and meaning."""
    rows = ['<TR><TD COLSPAN="2"><B>saved buffers (rows inside each node)</B></TD></TR>']
    for state, st in STATES.items():
        dashed = ' STYLE="dashed"' if st["dashed"] else ""
        rows.append(f'<TR><TD BGCOLOR="{st["fill"]}" COLOR="{st["border"]}" '
                    f'BORDER="{st["width"]}"{dashed}><B>{state.upper()}</B></TD>'
                    f'<TD ALIGN="LEFT">{st["meaning"]}</TD></TR>')
    rows.append(f'<TR><TD BGCOLOR="{EXECUTED_FILL}" BORDER="2" STYLE="rounded"><B>#k Node</B></TD>'
                f'<TD ALIGN="LEFT">ran in the last backward (red border: failed there)</TD></TR>')
    rows.append('<TR><TD BGCOLOR="#e3ecf7" BORDER="1"><B>leaf</B></TD>'
                '<TD ALIGN="LEFT">a leaf tensor and its .grad</TD></TR>')
    table = ('<<TABLE BORDER="1" COLOR="#999999" CELLBORDER="0" CELLSPACING="4" CELLPADDING="3">'
             + "".join(rows) + "</TABLE>>")
    return [f"  {name} [label={table} shape=plaintext fontsize=10]"]


def snapshot_dot(snapshot, title=None, max_nodes=DEFAULT_MAX_NODES, legend=True):
    """DOT source of one snapshot, titled, with a legend."""
    return panels_dot([(title if title is not None else snapshot.title, snapshot)],
                      max_nodes=max_nodes, legend=legend)


STACK_ABOVE_NODES = 10


def _stacking_edges(panels, max_nodes):
    """Invisible edges that put each panel below the previous one (every sink of panel i above
    every root of panel i+1), so big before/after pictures grow down the page, not sideways."""
    lines = []
    for index in range(len(panels) - 1):
        upper, lower = panels[index][1], panels[index + 1][1]
        shown_upper, _ = _visible(upper, max_nodes)
        has_child = {src for src, _ in upper.edges}
        sinks = sorted(n.id for n in upper.nodes if n.id in shown_upper and n.id not in has_child)
        for sink in sinks:
            for root in lower.roots:
                lines.append(f"  p{index}_n{sink} -> p{index + 1}_n{root} [style=invis]")
    return lines


def panels_dot(panels, max_nodes=DEFAULT_MAX_NODES, legend=True):
    """DOT source of several titled snapshots (e.g. before / after a backward): side by side
    when small, one above the other when a panel has more than STACK_ABOVE_NODES nodes."""
    lines = ["digraph autograd {", '  graph [rankdir=TB fontname="Helvetica" fontsize=12 '
             'nodesep=0.25 ranksep=0.35 newrank=true]',
             '  node [fontname="Helvetica" fontsize=11]', '  edge [color="#555555"]']
    for index, (title, snapshot) in enumerate(panels):
        prefix = f"p{index}_"
        totals = (f"saved buffers hold {snapshot.total_bytes:,} B, "
                  f"{snapshot.graph_only_bytes:,} B of it only in the graph")
        notes = "".join(f'<BR/><FONT POINT-SIZE="10" COLOR="{FAILED_BORDER}">{html.escape(line)}</FONT>'
                        for n in snapshot.notes for line in textwrap.wrap(n, 90))
        heading = f"<B>{html.escape(title)}</B><BR/>" if title else ""
        label = f'<{heading}<FONT POINT-SIZE="10">{totals}</FONT>{notes}>'
        lines.append(f"  subgraph cluster_panel{index} {{")
        lines.append(f'    label={label}; labelloc=t; fontsize=14; style=rounded; color="#bbbbbb";')
        lines.extend("  " + line for line in _node_lines(snapshot, prefix, max_nodes))
        lines.append("  }")
    if max(len(snapshot.nodes) for _, snapshot in panels) > STACK_ABOVE_NODES:
        lines.extend(_stacking_edges(panels, max_nodes))
    if legend:
        lines.extend(legend_lines())
    lines.append("}")
    return "\n".join(lines) + "\n"
