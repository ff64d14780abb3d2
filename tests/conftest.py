"""Shared pytest setup for autograd_lesson.

Kept deliberately small: put topic-specific fixtures in your own test modules
(or a conftest in a subfolder).

* ``torch`` (session fixture): the real PyTorch, for parity tests. Skips with a
  reason mentioning torch when it is not installed, or fails hard when the
  environment variable ``AUTOGRAD_LESSON_REQUIRE_TORCH=1`` is set (CI sets it,
  so parity tests can never be silently skipped there).
* ``parity`` marker: tag tests that compare against torch.
* matplotlib uses the non-interactive Agg backend.
* Every process of the run (xdist workers, the kernels of nbval and of the notebook tests)
  shares one render cache (``autograd_lesson.viz.render.share_cache``): a lesson executed by
  several tests has each of its pictures drawn by Graphviz once.
* The kernels draw no PNG twins of pictures (``fast_pictures.kernels_without_png``): nbval
  compares none, and drawing them was about 40% of a lesson's run.
* Every kernel the run starts talks over Unix sockets, not TCP ports
  (``kernel_sockets.use_unix_socket_kernels``): a TCP kernel can lose a port it was handed to
  another process before binding it, and die before replying.
* Each test runs with what existed before it frozen out of the cyclic collector's view
  (``gc.freeze``), so its ``gc.collect()`` looks only at what the test made.
"""
import gc
import os

os.environ.setdefault("MPLBACKEND", "Agg")
# the checkers keep no progress file beside the tests (lesson.attempts); their kernels inherit it
os.environ.setdefault("AUTOGRAD_LESSON_PROGRESS", "off")

from autograd_lesson.viz.render import share_cache  # noqa: E402
from fast_pictures import kernels_without_png  # noqa: E402
from kernel_sockets import use_unix_socket_kernels  # noqa: E402

share_cache()
kernels_without_png()
use_unix_socket_kernels()

import pytest

TORCH_VERSION = "2.13.0"
TORCH_MISSING = (
    f"torch=={TORCH_VERSION} not installed: parity tests need it "
    "(pip install -e '.[test]')"
)


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "parity: compares autograd_lesson against torch==2.13.0"
    )


def torch_required() -> bool:
    return os.environ.get("AUTOGRAD_LESSON_REQUIRE_TORCH", "") == "1"


@pytest.fixture(scope="session")
def torch():
    try:
        import torch as _torch
    except ImportError as exc:
        if torch_required():
            pytest.fail(
                f"AUTOGRAD_LESSON_REQUIRE_TORCH=1 but {TORCH_MISSING} [{exc}]",
                pytrace=False,
            )
        pytest.skip(TORCH_MISSING)
    _torch.set_num_threads(1)
    return _torch


@pytest.fixture(params=["autograd_lesson", pytest.param("torch", marks=pytest.mark.parity)])
def lib(request):
    """The library a claim is checked in: the package, then real torch (a parity test)."""
    if request.param == "torch":
        return request.getfixturevalue("torch")
    import autograd_lesson
    return autograd_lesson


@pytest.fixture(autouse=True)
def collect_only_what_the_test_makes():
    """A test's ``gc.collect()`` (many check that a buffer is freed) walks only the objects made
    since the test began: a full collection in a worker that has run a thousand tests with
    torch loaded took 1-2.5 s, and test_introspection's MLP tests spent 10 s in four of them.
    No older garbage is freed during the test either, so it cannot move a measured peak."""
    if gc.get_freeze_count():  # frozen by someone else: leave it to them
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


@pytest.fixture(autouse=True)
def english_after_each_test():
    """A test that switches the helpers to Korean (lesson.set_language) leaves them English."""
    yield
    from autograd_lesson import i18n
    i18n.set_language("en")
