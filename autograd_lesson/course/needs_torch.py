"""Lessons graded on real PyTorch fail loudly where the grading kernel has none.

Lesson 11 runs its exercises on real PyTorch; without it ``lesson.real_torch(skip_rest=True)``
prints one line and skips the rest of the notebook, which is right in a learner's lab and
wrong under ``nbgrader autograde``: skipped checker cells raise nothing, so every submission,
the untouched one too, would get full points. ``make course`` lists such lessons in the
configuration (``c.RequireTorch.assignments``) and ``RequireTorch``, the first of autograde's
preprocessors, asks the grading kernel's Python to ``import torch`` before a notebook is run:
if it cannot, that submission's autograde fails with one line saying what to install.
"""
import re
import subprocess
import sys

from traitlets import List

try:  # only with the `classroom` extra (nbgrader)
    from nbgrader.preprocessors import NbGraderPreprocessor
except ImportError:  # pragma: no cover
    NbGraderPreprocessor = object

# a cell that takes real PyTorch for the rest of the notebook (``on_real_torch``, the optional
# demonstration at the end of lessons 01 to 07, is not graded and does not count)
USES_TORCH = re.compile(r"(?<![\w.])(?:lesson\.)?real_torch\(|^\s*import torch\b", re.MULTILINE)


def needs_torch(nb):
    """True if ``nb`` (a lesson notebook) runs its code on real PyTorch."""
    return any(c.cell_type == "code" and USES_TORCH.search(c.source) for c in nb.cells)


def kernel_python(kernel_name):
    """The Python executable a kernel spec runs (``sys.executable`` where it cannot tell)."""
    try:
        from jupyter_client.kernelspec import KernelSpecManager
        argv = KernelSpecManager().get_kernel_spec(kernel_name or "python3").argv
    except Exception:  # noqa: BLE001  (no such spec: nbgrader's Execute says so itself)
        return sys.executable
    return sys.executable if not argv or argv[0] in ("python", "python3", "{python}") else argv[0]


class RequireTorch(NbGraderPreprocessor):
    assignments = List([], help="assignments graded on real PyTorch").tag(config=True)

    def preprocess(self, nb, resources):
        assignment = resources.get("nbgrader", {}).get("assignment")
        if assignment in self.assignments:
            kernel = nb.metadata.get("kernelspec", {}).get("name", "python3")
            python = kernel_python(kernel)
            probe = subprocess.run([python, "-c", "import torch"], capture_output=True, text=True)
            if probe.returncode:
                why = (probe.stderr.strip().splitlines() or ["import torch failed"])[-1]
                raise RuntimeError(
                    f"{assignment} is graded on real PyTorch, and the grading kernel "
                    f"({kernel}: {python}) cannot import it ({why}): install it there "
                    f"(pip install torch) and autograde again. Graded without it, every "
                    f"submission would get full points.")
        return nb, resources
