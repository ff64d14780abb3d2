"""Saved-buffer memory over a sequence of steps (a training loop, an RNN unroll).

``live_saved_bytes()`` measures every saved buffer still alive in the process, each storage
once, the way ``saved_tensors_hooks`` counting does in PyTorch; ``plot_timeline`` draws
several such series to compare patterns (retain_graph vs summing losses vs detach).
"""
from .._node import _all_saved


def live_saved_bytes():
    """Bytes of all saved tensors not yet released anywhere in this process (storages once;
    wrapped Python scalars excluded, as PyTorch's pack hooks never see them)."""
    sizes = {}
    for obj in list(_all_saved):  # a registry: scanning gc.get_objects() took ~0.2 s per call
        if not obj.released and not obj.is_wrapped_scalar:
            sizes[id(obj.storage)] = obj.storage.nbytes  # a saved view holds all of it
    return sum(sizes.values())


def live_saved_count():
    """How many saved tensors (slots) are alive in this process."""
    return sum(1 for obj in list(_all_saved) if not obj.released and not obj.is_wrapped_scalar)


def timeline_text(series, unit="B"):
    """A deterministic table of the series (what nbval compares)."""
    names = list(series)
    steps = max(len(v) for v in series.values())
    width = max(len(n) for n in names)
    lines = [" " * width + "  " + " ".join(f"{f'step {i}':>9}" for i in range(steps))]
    for name in names:
        cells = " ".join(f"{v:>9,}" for v in series[name])
        lines.append(f"{name:<{width}}  {cells}")
    lines.append(f"(saved-buffer bytes alive after each step, in {unit})")
    return "\n".join(lines)


def plot_timeline(series, title="Saved-buffer memory per step", xlabel="step",
                  ylabel="saved bytes alive (B)"):
    """Plot each named series of byte counts; returns the matplotlib Figure."""
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 3.6), dpi=100)
    markers = "osd^v<>"
    styles = ["-", "--", "-.", ":"]
    for k, (name, values) in enumerate(series.items()):
        ax.plot(range(len(values)), values, marker=markers[k % len(markers)],
                linestyle=styles[k % len(styles)], label=name)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", fontsize=9)
    ax.set_ylim(bottom=0)
    fig.tight_layout()
    plt.close(fig)
    return fig
