"""Keep the Korean notebooks (``notebooks/ko/``) in step with the English lessons.

A Korean notebook has one cell per English cell, in the same order, with the same ids. A
markdown cell records what it translates in its metadata,
``"translation": {"source": <English cell id>, "sha256": <sha256 of that cell's source>}``;
code cells are the English ones, except that the first one ends with the language line
``lesson.set_language("ko")`` (or has it right after the line that imports ``lesson``, where
that cell prints: lesson 11's install line); raw cells are copied. ``problems(en, ko)`` lists every way a
pair is out of step; ``tests/test_translations.py`` fails on any.

For translators::

    python -m autograd_lesson.course.translations stale [notebooks/ko/NN_x.ipynb ...]
    python -m autograd_lesson.course.translations stamp notebooks/ko/NN_x.ipynb CELL_ID [CELL_ID ...]
    python -m autograd_lesson.course.translations sync notebooks/ko/NN_x.ipynb

``stale`` prints each stale or missing cell with the English text to translate (and, when git
still has the English text the translation was made from, what changed in it); it exits 1 if
anything is out of step. ``stamp`` records the current English hash for cells you have just
translated again (``--all`` for every markdown cell). ``sync`` makes the structure match the
English notebook: code and raw cells copied (language line added), Korean markdown kept by id,
missing markdown cells inserted in English and left stale, extra cells dropped.
"""
import dataclasses
import difflib
import hashlib
import pathlib
import subprocess
import sys

import nbformat

LANG_LINE = 'lesson.set_language("ko")'
ROOT = pathlib.Path(__file__).resolve().parents[2]
EN_DIR = ROOT / "notebooks"
KO_DIR = EN_DIR / "ko"


@dataclasses.dataclass(frozen=True)
class Problem:
    kind: str        # stale, missing, extra, order, type, unstamped, source, code, metadata, raw
    cell: str        # the cell id
    message: str
    english: str = ""  # the English text to translate (stale, missing, unstamped)

    def __str__(self):
        return f"{self.kind}: cell {self.cell}: {self.message}"


def digest(source):
    return hashlib.sha256(source.encode("utf-8")).hexdigest()


def _code_only(source):
    """A code line's Korean comment is the translator's: compare the code before it."""
    return "\n".join(line.split("   # ", 1)[0] if line.startswith(LANG_LINE) else line
                     for line in source.split("\n"))


def english_of(ko_path):
    """The English lesson a Korean notebook translates (same file name, one folder up)."""
    ko_path = pathlib.Path(ko_path)
    return ko_path.parent.parent / ko_path.name


def expected_code(en_source, first):
    return en_source.rstrip("\n") + "\n" + LANG_LINE if first else en_source


def _language_line_early(en_source):
    """The first cell with the language line right after the import of ``lesson``, so that
    what the rest of the cell prints is in Korean too (None without such an import)."""
    lines = en_source.rstrip("\n").split("\n")
    at = next((i for i, line in enumerate(lines)
               if line.startswith(("from autograd_lesson import", "import autograd_lesson"))
               and "lesson" in line.split("import", 1)[1].replace(",", " ").split()), None)
    if at is None:
        return None
    return "\n".join(lines[:at + 1] + [LANG_LINE] + lines[at + 1:])


def problems(en, ko):
    """Every way the Korean notebook ``ko`` is out of step with the English ``en`` (both
    nbformat notebooks), in English cell order."""
    found = []
    en_cells = {c.id: c for c in en.cells}
    ko_cells = {c.id: c for c in ko.cells}
    for cell in ko.cells:
        if cell.id not in en_cells:
            found.append(Problem("extra", cell.id, "no English cell has this id: delete it "
                                 "(or run 'sync')"))
    common_en = [c.id for c in en.cells if c.id in ko_cells]
    common_ko = [c.id for c in ko.cells if c.id in en_cells]
    if common_en != common_ko:
        at = next(i for i, (a, b) in enumerate(zip(common_en, common_ko)) if a != b)
        found.append(Problem("order", common_ko[at], f"is at position {at} of the shared "
                             f"cells, where the English has {common_en[at]}: reorder (or run "
                             f"'sync')"))
    first_code = next((c.id for c in en.cells if c.cell_type == "code"), None)
    for cell in en.cells:
        twin = ko_cells.get(cell.id)
        if twin is None:
            found.append(Problem("missing", cell.id, f"the English {cell.cell_type} cell has "
                                 f"no Korean twin", cell.source if cell.cell_type == "markdown"
                                 else ""))
            continue
        if twin.cell_type != cell.cell_type:
            found.append(Problem("type", cell.id, f"is {twin.cell_type} in Korean, "
                                 f"{cell.cell_type} in English"))
            continue
        if cell.cell_type == "markdown":
            found.extend(_markdown_problems(cell, twin))
        elif cell.cell_type == "code":
            want = expected_code(cell.source, cell.id == first_code)
            early = _language_line_early(cell.source) if cell.id == first_code else None
            if twin.source != want and (early is None or _code_only(twin.source) != early):
                line = next((i for i, (a, b) in enumerate(zip(want.splitlines() + [""],
                                                               twin.source.splitlines() + [""]))
                             if a != b), 0)
                what = ("must end with the line " + LANG_LINE + " (or have it right after the "
                        "import of lesson)" if cell.id == first_code
                        else "must be the English code unchanged")
                found.append(Problem("code", cell.id, f"differs from the English code at "
                                     f"line {line + 1} ({what})"))
            if _settled(twin.metadata) != _settled(cell.metadata):
                found.append(Problem("metadata", cell.id, "code cell metadata (nbgrader marks) "
                                     "must be the English cell's"))
        elif twin.source != cell.source:
            found.append(Problem("raw", cell.id, "raw cells are copied unchanged"))
    return found


def _settled(metadata):
    """Cell metadata without what running it writes (nbclient's ``execution`` timings)."""
    return {k: v for k, v in metadata.items() if k != "execution"}


def _markdown_problems(cell, twin):
    record = twin.metadata.get("translation")
    if not isinstance(record, dict) or "sha256" not in record:
        return [Problem("unstamped", cell.id, "has no translation.sha256 in its metadata: "
                        "translate it, then run 'stamp'", cell.source)]
    found = []
    if record.get("source") != cell.id:
        found.append(Problem("source", cell.id, f"translation.source is "
                             f"{record.get('source')!r}, not its own id"))
    if record["sha256"] != digest(cell.source):
        found.append(Problem("stale", cell.id, "the English cell changed since it was "
                             "translated: update the Korean, then run 'stamp'", cell.source))
    rest = {k: v for k, v in _settled(twin.metadata).items() if k != "translation"}
    if rest != _settled(cell.metadata):
        found.append(Problem("metadata", cell.id, "markdown metadata must be the English "
                             "cell's plus translation"))
    return found


def check(ko_path):
    """problems() of one Korean notebook file against its English lesson."""
    en_path = english_of(ko_path)
    if not en_path.exists():
        return [Problem("extra", "-", f"no English lesson {en_path.name} for this notebook")]
    return problems(nbformat.read(en_path, as_version=4), nbformat.read(ko_path, as_version=4))


def _old_english(en_path, cell_id, sha, limit=200):
    """The English text with hash ``sha`` from git history (what was translated), or None."""
    try:
        rel = pathlib.Path(en_path).resolve().relative_to(ROOT)
        commits = subprocess.run(["git", "-C", str(ROOT), "log", f"-{limit}", "--format=%H",
                                  "--", str(rel)], capture_output=True, text=True,
                                 timeout=30).stdout.split()
        for commit in commits:
            text = subprocess.run(["git", "-C", str(ROOT), "show", f"{commit}:{rel}"],
                                  capture_output=True, text=True, timeout=30).stdout
            nb = nbformat.reads(text, as_version=4)
            old = next((c.source for c in nb.cells if c.id == cell_id), None)
            if old is not None and digest(old) == sha:
                return old
    except (OSError, ValueError, subprocess.SubprocessError, nbformat.reader.NotJSONError):
        return None
    return None


def stale_report(paths):
    """The translator's listing: (text, number of problems)."""
    lines, count = [], 0
    for path in paths:
        found = check(path)
        count += len(found)
        if not found:
            lines.append(f"{path}: in step")
            continue
        lines.append(f"{path}: {len(found)} cell{'s' if len(found) != 1 else ''} out of step")
        ko = nbformat.read(path, as_version=4)
        ko_cells = {c.id: c for c in ko.cells}
        for problem in found:
            lines.append(f"  {problem}")
            if problem.kind == "stale":
                sha = ko_cells[problem.cell].metadata["translation"]["sha256"]
                old = _old_english(english_of(path), problem.cell, sha)
                if old is not None:
                    lines.append("    what changed in the English since it was translated:")
                    lines.extend("    " + d.rstrip("\n") for d in difflib.unified_diff(
                        old.splitlines(), problem.english.splitlines(), "translated", "now",
                        lineterm="", n=1))
            if problem.english:
                lines.append("    English text:")
                lines.extend("    | " + line for line in problem.english.splitlines())
    return "\n".join(lines), count


def stamp(path, cell_ids, every=False):
    """Record the current English hash for ``cell_ids`` (markdown cells) of a Korean notebook."""
    path = pathlib.Path(path)
    en = nbformat.read(english_of(path), as_version=4)
    ko = nbformat.read(path, as_version=4)
    en_cells = {c.id: c for c in en.cells if c.cell_type == "markdown"}
    wanted = [c.id for c in ko.cells if c.id in en_cells] if every else list(cell_ids)
    unknown = [i for i in wanted if i not in en_cells or i not in {c.id for c in ko.cells}]
    if unknown:
        raise SystemExit(f"no markdown cell {unknown[0]!r} in both {path.name} and its English "
                         f"lesson: pass ids that 'stale' lists")
    for cell in ko.cells:
        if cell.id in wanted:
            cell.metadata["translation"] = {"source": cell.id,
                                            "sha256": digest(en_cells[cell.id].source)}
    nbformat.write(ko, path)
    return wanted


def sync(path):
    """Rebuild the Korean notebook's structure from the English one (see the module doc)."""
    import copy
    path = pathlib.Path(path)
    en = nbformat.read(english_of(path), as_version=4)
    ko = nbformat.read(path, as_version=4) if path.exists() else nbformat.v4.new_notebook()
    kept = {c.id: c for c in ko.cells}
    first_code = next((c.id for c in en.cells if c.cell_type == "code"), None)
    cells = []
    for cell in en.cells:
        new = copy.deepcopy(cell)
        if cell.cell_type == "markdown":
            old = kept.get(cell.id)
            if old is not None and old.cell_type == "markdown":
                new.source = old.source
                if "translation" in old.metadata:
                    new.metadata["translation"] = old.metadata["translation"]
        elif cell.cell_type == "code":
            new.source = expected_code(cell.source, cell.id == first_code)
            new.outputs, new.execution_count = [], None
            old = kept.get(cell.id)
            early = _language_line_early(cell.source) if cell.id == first_code else None
            if old is not None and early is not None and _code_only(old.source) == early:
                new.source = old.source  # (the translator put the language line first)
            if old is not None and old.cell_type == "code" and old.source == new.source:
                new.outputs, new.execution_count = old.outputs, old.execution_count
        cells.append(new)
    en.cells = cells
    nbformat.write(en, path)


def main(argv=None):
    args = list(sys.argv[1:] if argv is None else argv)
    usage = ("usage: python -m autograd_lesson.course.translations "
             "stale [notebooks/ko/NN.ipynb ...] | "
             "stamp notebooks/ko/NN.ipynb (CELL_ID ... | --all) | sync notebooks/ko/NN.ipynb")
    if not args or args[0] not in ("stale", "stamp", "sync"):
        raise SystemExit(usage)
    command, rest = args[0], args[1:]
    if command == "stale":
        here = pathlib.Path("notebooks") / "ko"  # from the repository root, as make runs it
        folder = here if here.is_dir() else KO_DIR
        paths = rest or sorted(str(p) for p in folder.glob("*.ipynb"))
        if not paths:
            print(f"no Korean notebooks in {KO_DIR}")
            return 0
        text, count = stale_report(paths)
        print(text)
        return 1 if count else 0
    if not rest:
        raise SystemExit(usage)
    if command == "stamp":
        every = "--all" in rest
        ids = [a for a in rest[1:] if a != "--all"]
        if not ids and not every:
            raise SystemExit("stamp: name the cells you translated (ids from 'stale'), or --all")
        done = stamp(rest[0], ids, every)
        print(f"stamped {len(done)} cell{'s' if len(done) != 1 else ''} of {rest[0]}")
        return 0
    for path in rest:
        sync(path)
        print(f"synced {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
