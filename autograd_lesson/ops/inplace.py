"""(Moved to ``autograd_lesson._surface.inplace``; what the core still reads here, until the next
commit.)"""
from .._surface.inplace import apply, detach_, regenerate_view_fn  # noqa: F401
