"""Kernels for the test run that talk over Unix sockets, not TCP ports.

jupyter_client picks a TCP kernel's five ports free, closes them, and the kernel binds them a
moment later: any other process on the machine (another xdist worker's kernel, a client's
outgoing connection) can take one in between, and the kernel dies before replying to
kernel_info. A test run starts about sixty kernels on two workers, and lost one that way in CI.
Unix sockets (``transport = "ipc"``, as ``make lab`` uses) live in a folder of this process's
own, so no other process can take them.

``tests/conftest.py`` and ``notebooks/conftest.py`` call ``use_unix_socket_kernels()`` for
nbval; the tests that run notebooks with nbclient pass ``kernel_manager_class=AsyncKernelManager``
(this module's).
"""
import atexit
import itertools
import os
import shutil
import tempfile

from jupyter_client import manager
from traitlets import default

_folder = None
_kernel_numbers = itertools.count(1)


def socket_prefix():
    """A new kernel's socket path, ``<folder>/kernel-<k>`` (its five sockets add ``-1`` to
    ``-5``): one per kernel, since kernels started at once from threads (test_student's) would
    otherwise be numbered the same. The folder is this process's, made on first use and removed
    when the process exits."""
    global _folder
    if _folder is None:
        _folder = tempfile.mkdtemp(prefix="autograd-lesson-kernels-")
        atexit.register(shutil.rmtree, _folder, True)
    return os.path.join(_folder, f"kernel-{next(_kernel_numbers)}")


class _OverUnixSockets:
    @default("transport")
    def _transport_default(self):
        return "ipc"

    @default("ip")
    def _ip_default(self):
        return socket_prefix()


class KernelManager(_OverUnixSockets, manager.KernelManager):
    """jupyter_client's KernelManager, over Unix sockets in this process's folder."""


class AsyncKernelManager(_OverUnixSockets, manager.AsyncKernelManager):
    """jupyter_client's AsyncKernelManager (nbclient's), over Unix sockets in this process's folder."""


def use_unix_socket_kernels():
    """nbval starts its kernels over Unix sockets (it names jupyter_client's KernelManager in
    its own module, with no setting to change it)."""
    from nbval import kernel
    kernel.KernelManager = KernelManager
