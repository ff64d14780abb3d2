"""nbval settings for the lessons: pictures are for the eye, their text twins are checked.

SVG (like PNG, which nbval already skips) depends on the Graphviz version and fonts, so it is
excluded from comparison on purpose; the ledger printed beside every picture is compared
exactly. The kernels share the test run's render cache (see tests/conftest.py), so a
picture another test has drawn is not drawn again, and draw no PNG twins at all
(tests/fast_pictures.py's ``kernels_without_png``): nothing compares them. They talk over
Unix sockets (tests/kernel_sockets.py): a TCP kernel can lose a port to another process.
"""
import pathlib
import sys

from autograd_lesson.viz.render import share_cache

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tests"))
from fast_pictures import kernels_without_png  # noqa: E402
from kernel_sockets import use_unix_socket_kernels  # noqa: E402

share_cache()
kernels_without_png()
use_unix_socket_kernels()
SKIPPED = ("image/svg+xml",)


def pytest_collectstart(collector):
    if hasattr(collector, "skip_compare"):
        collector.skip_compare = tuple(collector.skip_compare) + SKIPPED
