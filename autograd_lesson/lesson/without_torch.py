"""A lesson that runs on real PyTorch, in a kernel without it (``lesson.real_torch(lesson="11")``).

The lesson's own cells (ids ``11-...``) do not run: each shows again the outputs stored in the
notebook from a run with torch (pictures, audit reports), under one line saying so, and a cell
with none says in one line that it needs torch. Every other cell, such as the
``%pip install ...`` cell a learner adds, runs as usual.

How a cell is known to be the lesson's: JupyterLab sends each cell's id with its code (the
``cellId`` of the execute request, which IPython hands to ``pre_run_cell`` hooks); a front end
that sends none gets its cells matched by their source against the lesson's notebook. The
skipping itself is an AST transformer, which IPython applies after ``pre_run_cell``: the cell's
code is replaced by a call that shows its stored outputs.

The stored outputs come from the notebook being run (JupyterLab names it in ``__session__``)
or else from the package's copy of the lesson (``notebooks/`` or ``notebooks/ko/``, by the
language set); an exercise's outputs are the learner's and are never shown from there.
"""
import ast
import os
import pathlib
import sys

from ..i18n import korean, t
from .catalogue import is_exercise_cell

TORCH_VERSION = "2.13.0"
CPU_INDEX = "https://download.pytorch.org/whl/cpu"
# what the lesson prints for a notebook cell: the CPU build of the torch the package mirrors
PIP_LINE = f"%pip install torch=={TORCH_VERSION} --index-url {CPU_INDEX}"
NOTEBOOKS = pathlib.Path(__file__).resolve().parents[2] / "notebooks"


def skip_lesson_cells(lesson):
    """From the next cell on, skip the cells of lesson ``lesson`` (e.g. ``"11"``) as above."""
    try:
        ip = get_ipython()  # noqa: F821  (defined in a notebook kernel)
    except NameError:  # plain Python: no cells to skip
        return
    if any(isinstance(x, _Skipper) for x in ip.ast_transformers):
        return
    skipper = _Skipper(ip, lesson)
    ip.events.register("pre_run_cell", skipper.pre_run_cell)
    ip.ast_transformers.append(skipper)


class _Skipper(ast.NodeTransformer):
    def __init__(self, ip, lesson):
        self.ip, self.lesson, self.cell = ip, lesson, None
        self._notebooks = None

    def pre_run_cell(self, info):
        self.cell = (getattr(info, "cell_id", None), info.raw_cell)

    def visit(self, node):  # IPython calls this with the cell's whole module
        if self.cell is None or not isinstance(node, ast.Module):
            return node
        cell_id, source = self.cell
        self.cell = None
        if "real_torch(" in source:  # the cell that decides (run again: it decides again)
            return node
        found = self.lesson_cell(cell_id, source)
        if found is None:
            return node
        _stored[0] = found
        call = ast.parse(f"__import__({__name__!r}, fromlist=['_']).show_stored()")
        return ast.fix_missing_locations(ast.Module(body=call.body, type_ignores=[]))

    def notebooks(self):
        """The notebooks to take the lesson's cells from: the one being run, then the package's."""
        if self._notebooks is None:
            paths = []
            session = self.ip.user_ns.get("__session__")
            if session:
                paths += [pathlib.Path(session), pathlib.Path(os.path.basename(session))]
            folder = NOTEBOOKS / "ko" if korean() else NOTEBOOKS
            paths += sorted(folder.glob(f"{self.lesson}_*.ipynb"))
            self._notebooks = [nb for nb in map(_read, paths) if nb is not None]
        return self._notebooks

    def lesson_cell(self, cell_id, source):
        """(stored cell or None, source) if this cell is the lesson's own, else None."""
        prefix = f"{self.lesson}-"
        if cell_id is not None and not cell_id.startswith(prefix):
            return None
        for nb in self.notebooks():
            for cell in nb["cells"]:
                if cell["cell_type"] != "code" or not cell.get("id", "").startswith(prefix):
                    continue
                same = cell["source"] == source
                if cell.get("id") == cell_id and (same or not cell.get("outputs")) or (
                        cell_id is None and same):
                    return cell, same
        if cell_id is not None:  # the lesson's cell, changed or not in these files
            return None, False
        if not self.notebooks():  # a front end without cell ids and no notebook to match
            stripped = source.lstrip()
            return None if stripped.startswith(("%", "!")) or not stripped else (None, False)
        return None


_stored = [None]  # (cell, same source) of the cell being skipped, for show_stored()


def _read(path):
    import nbformat
    try:
        return nbformat.read(str(path), as_version=4)
    except Exception:  # noqa: BLE001 - missing or not a notebook: not a source of outputs
        return None


def show_stored():
    """Show the stored outputs of the cell being skipped, under one line saying where they are
    from; or one line saying that the cell needs torch."""
    from IPython.display import display
    (cell, same), _stored[0] = _stored[0], None
    outputs = []
    if cell is not None and same and not is_exercise_cell(cell):
        outputs = [o for o in cell.get("outputs", []) if o.get("output_type") != "error"]
    if not outputs:
        print(t("without_torch.not_run"))
        return
    print(t("without_torch.stored", version=TORCH_VERSION))
    for output in outputs:
        if output["output_type"] == "stream":
            stream = sys.stderr if output.get("name") == "stderr" else sys.stdout
            stream.write(output.get("text", ""))
            stream.flush()
        else:  # a widget's view needs its live state: its text and pictures stand in for it
            data = {k: v for k, v in output.get("data", {}).items() if "widget-view" not in k}
            display(data, raw=True, metadata=output.get("metadata", {}))
