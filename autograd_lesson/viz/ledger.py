"""The text twin of a graph picture: a buffer ledger, and the diff of two ledgers.

One line per saved buffer (node.slot, what it holds, dtype[shape], bytes, state), so a
notebook checker (nbval) and a screen reader get exactly what the picture shows.
"""
DEFAULT_MAX_LINES = 40


def shape_text(shape, dtype):
    """``float32[2, 3]``: how the ledger and the picture write a tensor's dtype and shape."""
    return f"{dtype}[{', '.join(map(str, shape))}]"


def bytes_text(n):
    """``1,024 B``: how the ledger, the picture and the audit write a number of bytes."""
    return f"{n:,} B"


def totals_line(snapshot):
    return (f"saved buffers hold {bytes_text(snapshot.total_bytes)}: "
            f"{bytes_text(snapshot.graph_only_bytes)} only in the graph, "
            f"{bytes_text(snapshot.shared_bytes)} shared with your tensors")


def _no_saved_note(snapshot):
    """A graph that saved no tensor can be backpropagated again, unless it holds a CopySlices (a
    write into part of a tensor), which a backward releases all the same, as PyTorch does."""
    if any(node.name.endswith("CopySlices") for node in snapshot.nodes):
        return ("  (no saved tensors, but a CopySlices: a backward without retain_graph releases "
                "it too)")
    return "  (no saved tensors: this graph can be backpropagated again)"


def ledger(snapshot, title=None, max_lines=DEFAULT_MAX_LINES):
    """The buffer ledger of one snapshot, as deterministic text."""
    from .checks import snapshot as check
    check(snapshot, "ledger()")
    title = snapshot.title if title is None else title
    lines = [title] if title else []
    rows = [(b.key, b.holds, shape_text(b.shape, b.dtype), bytes_text(b.nbytes),
             b.state + _stale_note(b)) for b in snapshot.buffers]
    if not rows:
        lines.append(_no_saved_note(snapshot))
    widths = [max(len(r[i]) for r in rows) for i in range(5)] if rows else []
    shown = rows if len(rows) <= max_lines else rows[: max_lines // 2] + rows[-max_lines // 2:]
    for i, row in enumerate(shown):
        if len(rows) > max_lines and i == max_lines // 2:
            lines.append(f"  … {len(rows) - max_lines} more buffers (same pattern) …")
        lines.append("  " + "  ".join(cell.ljust(w) if j != 3 else cell.rjust(w)
                                      for j, (cell, w) in enumerate(zip(row, widths))).rstrip())
    lines.append("  " + totals_line(snapshot))
    if any(b.state == "unknown" for b in snapshot.buffers):
        from .modules import UNKNOWN_NOTE
        lines.append("  unknown = " + UNKNOWN_NOTE)
    return "\n".join(lines)


def _stale_note(buffer):
    if buffer.state == "stale":
        return f" (now v{buffer.current_version}, saved at v{buffer.saved_version})"
    return ""


def diff(before, after, title=None, max_lines=DEFAULT_MAX_LINES):
    """What changed between two snapshots of the same graph, one line per changed buffer."""
    from .checks import snapshot as check
    check(before, "diff()", "two Snapshots (before, after)")
    check(after, "diff()", "two Snapshots (before, after)")
    old = {b.key: b for b in before.buffers}
    lines = [title] if title else []
    changes, unchanged = [], 0
    for b in after.buffers:
        previous = old.get(b.key)
        size = f"{shape_text(b.shape, b.dtype)} {bytes_text(b.nbytes)}"
        if previous is None:
            changes.append(f"new: {b.key} {size} ({b.state})")
        elif previous.state != b.state:
            changes.append(f"{b.state}: {b.key} {size}{_stale_note(b)}")
        else:
            unchanged += 1
    if len(changes) > max_lines:
        changes = changes[: max_lines // 2] + [f"… {len(changes) - max_lines} more changes …"] \
            + changes[-max_lines // 2:]
    lines.extend("  " + c for c in changes)
    if not changes:
        lines.append("  no saved buffer changed state")
    if unchanged:
        lines.append(f"  unchanged: {unchanged} buffer{'s' if unchanged != 1 else ''}")
    lines.append(f"  before: {totals_line(before)}")
    lines.append(f"  after:  {totals_line(after)}")
    return "\n".join(lines)
