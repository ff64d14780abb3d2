"""Every saved tensor not yet garbage, and the memory meters told of each save and release
(``viz.timeline.live_saved_bytes``, ``SavedBytesTracker``). ``_node.SavedTensor`` registers
itself here once, at save time; with no meter listening that is all it costs."""
import weakref

_all = set()  # weak references to every SavedTensor not yet garbage
listeners = []  # the meters listening now: ``saved(slot)`` and ``released(slot)`` are called


def register(saved):
    _all.add(weakref.ref(saved, _all.discard))  # (cheaper than a WeakSet)
    if listeners:
        _tell("saved", saved)


def released(saved):
    _tell("released", saved)


def _tell(what, saved):
    from .._fp_errors import call_with_user_fp_errors  # (the meters are user code)
    for listener in list(listeners):
        call_with_user_fp_errors(getattr(listener, what), saved)


def all_saved():
    """Every SavedTensor not yet garbage, released or not (what memory meters scan)."""
    return [saved for saved in (ref() for ref in list(_all)) if saved is not None]
