"""nbval settings for the lessons: pictures are for the eye, their text twins are checked.

SVG (like PNG, which nbval already skips) depends on the Graphviz version and fonts, so it is
excluded from comparison on purpose; the ledger printed beside every picture is compared
exactly. The kernels share the test run's render cache (see tests/conftest.py), so a
picture another test has drawn is not drawn again.
"""
from autograd_lesson.viz.render import share_cache

share_cache()
SKIPPED = ("image/svg+xml",)


def pytest_collectstart(collector):
    if hasattr(collector, "skip_compare"):
        collector.skip_compare = tuple(collector.skip_compare) + SKIPPED
