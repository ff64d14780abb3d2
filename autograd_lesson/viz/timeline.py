"""Saved-buffer memory over a sequence of steps (a training loop, an RNN unroll).

``live_saved_bytes()`` measures every saved buffer still alive in the process, each storage
once, the way ``saved_tensors_hooks`` counting does in PyTorch; ``track_saved_bytes()`` follows
the same count through a block of code and keeps its peak; ``plot_timeline`` draws several such
series to compare patterns (retain_graph vs summing losses vs detach).
"""
import weakref

from ..extensions.saved_meters import all_saved, listeners as _saved_listeners


def live_saved_bytes():
    """Bytes of all saved tensors not yet released anywhere in this process (storages once;
    wrapped Python scalars excluded, as PyTorch's pack hooks never see them)."""
    sizes = {}
    for obj in all_saved():  # a registry: scanning gc.get_objects() took ~0.2 s per call
        if not obj.released and not obj.is_wrapped_scalar:
            sizes[id(obj.storage)] = obj.storage.nbytes  # a saved view holds all of it
    return sum(sizes.values())


def live_saved_count():
    """How many saved tensors (slots) are alive in this process."""
    return sum(1 for obj in all_saved() if not obj.released and not obj.is_wrapped_scalar)


class SavedBytesTracker:
    """The bytes ``live_saved_bytes()`` would report, followed through a block of code.

    ``start`` and ``end`` are the live bytes when the block begins and ends, ``peak`` the
    largest value in between, ``current`` the value now. The engine tells the tracker of every
    save (forward) and release (backward); a weak reference with a callback catches slots that
    die with their graph. It holds weak references and byte counts only, never a buffer.
    """

    def __init__(self):
        self.start = self.peak = self.current = 0
        self.end = None
        self._slots = {}     # weak ref to a SavedTensor -> id of the storage it holds
        self._storages = {}  # storage id -> [nbytes, slots holding it]: each storage counts once

    def __enter__(self):
        _saved_listeners.append(self)
        for saved in all_saved():
            self.saved(saved)
        self.start = self.peak = self.current
        return self

    def __exit__(self, *exc):
        _saved_listeners.remove(self)
        self.end = self.current
        self._slots.clear()  # drops the weak references: no callback after the block
        self._storages.clear()
        return False

    # -- called by the engine (autograd_lesson._node.SavedTensor) --------------------------------
    def saved(self, saved):
        if saved.released or saved.is_wrapped_scalar:
            return
        ref = weakref.ref(saved, self._forget)
        if ref in self._slots:
            return
        key = id(saved.storage)  # unique while a tracked slot keeps the storage alive
        self._slots[ref] = key
        held = self._storages.setdefault(key, [saved.storage.nbytes, 0])
        held[1] += 1
        if held[1] == 1:
            self.current += held[0]
            self.peak = max(self.peak, self.current)

    def released(self, saved):
        self._forget(weakref.ref(saved))

    def _forget(self, ref):
        key = self._slots.pop(ref, None)
        if key is None:
            return
        held = self._storages[key]
        held[1] -= 1
        if held[1] == 0:
            del self._storages[key]
            self.current -= held[0]

    def __repr__(self):
        return (f"SavedBytesTracker(start={self.start:,}, peak={self.peak:,}, "
                f"end={self.current if self.end is None else self.end:,})")


def track_saved_bytes():
    """``with track_saved_bytes() as mem: step()`` then ``mem.peak``, ``mem.start``, ``mem.end``:
    saved bytes alive (storages once, wrapped scalars excluded), with the peak in between."""
    return SavedBytesTracker()


def timeline_text(series, unit="B", what="saved-buffer bytes alive after each step"):
    """A deterministic table of the series (what nbval compares); ``what`` names the numbers."""
    names = list(series)
    steps = max(len(v) for v in series.values())
    width = max(len(n) for n in names)
    lines = [" " * width + "  " + " ".join(f"{f'step {i}':>9}" for i in range(steps))]
    for name in names:
        cells = " ".join(f"{v:>9,}" for v in series[name])
        lines.append(f"{name:<{width}}  {cells}")
    lines.append(f"({what}, in {unit})")
    return "\n".join(lines)


def _cjk_families():
    """Font families for a plot with Hangul: DejaVu Sans, then the CJK font fontconfig finds
    (Noto Sans CJK KR; matplotlib names a .ttc by its first face, e.g. "Noto Sans CJK JP",
    which has the Hangul too). A font installed after matplotlib built its font cache is
    added to it here."""
    import subprocess
    from matplotlib import font_manager
    from .dot import CJK_FONT
    try:
        path = subprocess.run(["fc-match", "-f", "%{file}", CJK_FONT], capture_output=True,
                              text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        path = ""
    known = {f.fname: f.name for f in font_manager.fontManager.ttflist}
    if path and path not in known:
        try:
            font_manager.fontManager.addfont(path)
            known = {f.fname: f.name for f in font_manager.fontManager.ttflist}
        except (OSError, RuntimeError, ValueError):
            pass
    return ["DejaVu Sans"] + ([known[path]] if path in known else [])


def plot_timeline(series, title=None, xlabel=None, ylabel=None):
    """Plot each named series of byte counts; returns the matplotlib Figure. The default title
    and axis labels are in the learner's language (lesson.set_language)."""
    import matplotlib
    from ..i18n import localize, t
    from .dot import HANGUL
    title = t("timeline.title") if title is None else localize(title)
    xlabel = t("timeline.xlabel") if xlabel is None else localize(xlabel)
    ylabel = t("timeline.ylabel") if ylabel is None else localize(ylabel)
    if HANGUL.search(title + xlabel + ylabel + "".join(map(str, series))):
        with matplotlib.rc_context({"font.family": _cjk_families()}):
            return _plot(series, title, xlabel, ylabel)
    return _plot(series, title, xlabel, ylabel)


def _plot(series, title, xlabel, ylabel):
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
