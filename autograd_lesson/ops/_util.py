"""(Moved to ``autograd_lesson._surface``; what the core still reads here, until the next commit.)"""
from .._surface.checks import check_scalar, expand_shape, int_fits, wrap_dim  # noqa: F401
from .._surface.parser import ArgParser  # noqa: F401
from .._surface.promotion import cpp_name, torch_name  # noqa: F401
