"""The engine's event stream, this package's addition for teaching (``autograd.graph.observe``).

Observers are called with one event object per step of a backward; with no observer the engine
pays one ``if`` per node::

    with observe(print):
        loss.backward()

Events carry nodes and gradients, never a saved buffer, so recording them keeps nothing alive
that the backward released. ``graph_task.py`` emits them.
"""
from collections import namedtuple
from contextlib import contextmanager

from ..utils.hooks import RemovableHandle

BackwardStarted = namedtuple("BackwardStarted", "root retain_graph create_graph accumulate")
NodeStarted = namedtuple("NodeStarted", "node grad_outputs")
NodeFinished = namedtuple("NodeFinished", "node grad_outputs grad_inputs")
BuffersReleased = namedtuple("BuffersReleased", "node slots")
GradAccumulated = namedtuple("GradAccumulated", "node tensor grad")
BackwardFinished = namedtuple("BackwardFinished", "error failed_node")

_observers = []


def register_observer(callback):
    """Call ``callback(event)`` for every engine event until ``handle.remove()``."""
    _observers.append(callback)
    return RemovableHandle(_observers, callback)


@contextmanager
def observe(callback):
    """``with observe(events.append): loss.backward()`` records one backward's events."""
    handle = register_observer(callback)
    try:
        yield callback
    finally:
        handle.remove()


def _emit(event):
    from .._fp_errors import call_with_user_fp_errors  # (observers are user code)
    for callback in list(_observers):
        call_with_user_fp_errors(callback, event)
