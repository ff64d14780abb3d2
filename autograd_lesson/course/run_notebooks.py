"""Re-execute lesson notebooks in a fresh kernel and save their outputs in place.

``python -m autograd_lesson.course.run_notebooks notebooks/*.ipynb``. Widget state is stored in the
notebook, so the step-through slider still shows its picture when the notebook is opened
without running it.
"""
import os
import sys
import time

import nbformat
from nbclient import NotebookClient


def run(path, timeout=120):
    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    NotebookClient(nb, timeout=timeout, kernel_name="python3", store_widget_state=True,
                   resources={"metadata": {"path": str(path).rsplit("/", 1)[0] or "."}}).execute()
    nbformat.write(nb, path)
    return time.perf_counter() - start


def main(paths):
    os.environ.pop("MPLBACKEND", None)  # store inline plots as a learner's kernel draws them
    for path in paths:
        print(f"{path}: {run(path):.1f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
