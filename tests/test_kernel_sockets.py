"""The test run's kernels talk over Unix sockets of their own (tests/kernel_sockets.py)."""
import json
import os
import pathlib

import nbformat
from nbclient import NotebookClient
from nbval.kernel import RunningKernel

import kernel_sockets


def test_nbval_kernels_use_unix_sockets_in_this_process_folder():
    kernel = RunningKernel("python3")
    try:
        manager = kernel.km
        info = json.loads(pathlib.Path(manager.connection_file).read_text())
        folder = os.path.dirname(manager.ip)
        sockets = [f"{manager.ip}-{port}" for port in manager.ports]
        assert (info["transport"], info["ip"]) == ("ipc", manager.ip)
        assert os.path.basename(folder).startswith("autograd-lesson-kernels-")
        assert all(os.path.exists(path) for path in sockets), os.listdir(folder)
        reply = kernel.execute_cell_input("6 * 7", allow_stdin=False)
        assert kernel.get_message("shell", timeout=30)["content"]["status"] == "ok", reply
    finally:
        kernel.stop()
    assert not any(os.path.exists(path) for path in sockets)


def test_each_kernel_gets_its_own_socket_names():
    """Kernels started at once from threads must not be handed the same sockets."""
    first, second = kernel_sockets.AsyncKernelManager(), kernel_sockets.KernelManager()
    assert first.transport == second.transport == "ipc"
    assert first.ip != second.ip
    assert os.path.dirname(first.ip) == os.path.dirname(second.ip)


def test_nbclient_runs_a_notebook_over_unix_sockets():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(6 * 7)")])
    client = NotebookClient(nb, kernel_name="python3",
                            kernel_manager_class=kernel_sockets.AsyncKernelManager)
    with client.setup_kernel():
        assert client.km.transport == "ipc"
        client.execute_cell(nb.cells[0], 0)
    assert nb.cells[0].outputs[0]["text"] == "42\n"
