"""The package's architecture, drawn from its imports: ``python -m autograd_lesson.course.architecture``.

Every module belongs to one layer (by its path, :data:`LAYERS`); an arrow A -> B means some
module of A imports one of B, at its top or inside a function (the number on the arrow counts
the module pairs). The picture goes to ``figures/architecture.svg`` beside its DOT source, and
``tests/test_architecture.py`` fails when either is out of date or when the core imports a layer
it must not.
"""
import ast
import pathlib
import subprocess
import sys
from collections import Counter

PACKAGE = pathlib.Path(__file__).resolve().parents[1]
FIGURES = PACKAGE.parent / "figures"

# (layer, what it holds, the module paths it owns: a file, or a folder ending in "/"); the first
# match wins, so the core's files come before the folders that hold them.
LAYERS = [
    ("core", "the idea: tensor fields, node and saved slot, Op.apply, the engine loop",
     ["_tensor.py", "_node.py", "ops/_op.py", "_engine.py"]),
    ("extensions", "plugged into the core at named points: hooks, partial backward, anomaly, "
     "observers, saved-tensor hooks, memory meters", ["extensions/"]),
    ("formulas", "node classes, one family per file", ["ops/"]),
    ("helpers", "grad mode, hook handles, NumPy error state, broadcasting and the texts of "
     "autograd's errors, which the core may use",
     ["_fp_errors.py", "_broadcast.py", "_grad_mode.py", "_autograd_errors.py", "utils/hooks.py"]),
    ("surface", "the PyTorch surface: torch.*, Tensor's other methods, parsing, promotion, "
     "messages, in-place and view machinery, autograd.*, utils.*",
     ["_surface/", "_tensor_ops.py", "_tensor_shape_ops.py", "_dtype.py",
      "_factories.py", "_format.py", "_random.py", "autograd/", "utils/", "__init__.py"]),
    ("nn / optim", "modules, functional, optimizers", ["nn/", "optim/"]),
    ("viz", "the graph view: snapshots, ledgers, pictures, step-through", ["viz/"]),
    ("lesson", "the lessons' helpers and their two languages; the audit from a shell or pytest",
     ["lesson/", "i18n/", "__main__.py", "testing.py"]),
    ("course", "what make runs: student copies, nbgrader, translations, figures",
     ["course/"]),
]
# The core may import only these layers (the extensions and helpers it names; never the surface).
CORE_MAY_IMPORT = {"core", "extensions", "helpers", "formulas"}


def layer_of(relative):
    for name, _, owned in LAYERS:
        for path in owned:
            if relative == path or (path.endswith("/") and relative.startswith(path)):
                return name
    raise ValueError(f"{relative}: no layer in course/architecture.py LAYERS owns it")


def modules():
    """{module path relative to the package: dotted name} for every module of the package."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        dotted = "autograd_lesson." + relative[:-3].replace("/", ".")
        found[relative] = dotted.removesuffix(".__init__")
    return found


def imports(relative, dotted_names):
    """The package modules that ``relative`` imports, at its top or inside a function."""
    path = PACKAGE / relative
    package = dotted_names[relative] if relative.endswith("__init__.py") else \
        dotted_names[relative].rsplit(".", 1)[0]
    targets = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")
            base = base[:len(base) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            known = set(dotted_names.values())
            # ``from . import _tensor`` imports the module _tensor, not the package's __init__
            names = [f"{module}.{a.name}" if f"{module}.{a.name}" in known else module
                     for a in node.names]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        targets.update(n for n in names if n in dotted_names.values())
    return targets


def edges():
    """Counter of (layer, layer) -> module pairs, across layers."""
    dotted_names = modules()
    layer_by_name = {dotted: layer_of(relative) for relative, dotted in dotted_names.items()}
    counted = Counter()
    for relative, dotted in dotted_names.items():
        for target in imports(relative, dotted_names):
            pair = (layer_by_name[dotted], layer_by_name[target])
            if pair[0] != pair[1]:
                counted[pair] += 1
    return counted


# Bottom to top: a layer may import the layers below it. An arrow that runs up is drawn dashed,
# outside the layout: a place where the layering is not clean yet (most are imports made inside
# a function to break a cycle).
ORDER = ["helpers", "core", "extensions", "formulas", "surface", "nn / optim", "viz", "lesson",
         "course"]


def dot_source():
    """The picture's DOT: the layers and the arrows between them (no line counts, so that an
    edit inside a layer leaves the picture as it is; README's "Read the engine" has the core's)."""
    out = ["digraph architecture {", '  rankdir=BT; nodesep=0.3; ranksep=0.35; newrank=true;',
           '  node [shape=box, style="rounded,filled", fontname="DejaVu Sans", fontsize=12,'
           ' fillcolor="#f4f4f4", color="#888888", margin="0.15,0.06"];',
           '  edge [color="#9a9a9a", fontname="DejaVu Sans", fontsize=10, arrowsize=0.7];']
    for name, what, _ in LAYERS:
        fill = ', fillcolor="#fde8c8", color="#c07a1c", penwidth=2' if name == "core" else ""
        out.append(f'  "{name}" [label=<<b>{name}</b><br/>'
                   f'<font point-size="10">{_wrap(what)}</font>>{fill}];')
    for lower, upper in zip(ORDER, ORDER[1:]):  # one layer per row, the core at the bottom
        out.append(f'  "{lower}" -> "{upper}" [style=invis];')
    for (a, b), n in sorted(edges().items()):
        if ORDER.index(a) > ORDER.index(b):
            out.append(f'  "{a}" -> "{b}" [label=" {n}", constraint=false];')
        else:
            out.append(f'  "{a}" -> "{b}" [label=" {n}", style=dashed, color="#c0392b", '
                       f'fontcolor="#c0392b", constraint=false];')
    out.append("}")
    return "\n".join(out) + "\n"


def _wrap(text, width=46):
    words, rows, row = text.split(), [], ""
    for word in words:
        if row and len(row) + 1 + len(word) > width:
            rows.append(row)
            row = word
        else:
            row = f"{row} {word}".strip()
    rows.append(row)
    return "<br/>".join(r.replace("&", "&amp;").replace("<", "&lt;") for r in rows)


def write(folder=FIGURES):
    source = dot_source()
    (folder / "architecture.dot").write_text(source, encoding="utf-8")
    svg = subprocess.run(["dot", "-Tsvg"], input=source, capture_output=True, text=True,
                         check=True).stdout
    (folder / "architecture.svg").write_text(svg, encoding="utf-8")
    return folder / "architecture.svg"


if __name__ == "__main__":
    print(write(pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else FIGURES))
