"""nbval settings for the lessons: pictures are for the eye, their text twins are checked.

SVG (like PNG, which nbval already skips) depends on the Graphviz version and fonts, so it is
excluded from comparison on purpose; the ledger printed beside every picture is compared
exactly.
"""
SKIPPED = ("image/svg+xml",)


def pytest_collectstart(collector):
    if hasattr(collector, "skip_compare"):
        collector.skip_compare = tuple(collector.skip_compare) + SKIPPED
