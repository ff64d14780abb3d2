"""Grading that a student's code cannot switch off: ``make course``'s ``nbgrader autograde``.

A test cell's visible checker (``lesson.check_*``) runs in the student's kernel, after the
student's code: that code can pop ``NBGRADER_EXECUTION``, replace ``lesson`` or patch the engine.
So the points are decided here, in nbgrader's own process, after the kernel has run
(:class:`GradeAnswers`, between nbgrader's ``Execute`` and ``SaveAutoGrades``), from what no
kernel can change:

- **the key** is the test cell's hidden tests (``### BEGIN HIDDEN TESTS``), one
  ``assert name == literal`` per answer: removed from the release copy and the student copy,
  put back by nbgrader's ``OverwriteCells`` from the gradebook before grading (in the lessons
  themselves, nbval runs it against the solution, whose checker runs it against the engine);
- **a predict exercise's answer** is the literal the student wrote (the last top-level
  assignment of that name in the student's cells, read from the submitted source): a value
  computed by code (``grad_after_both_calls().tolist()``, a ``try`` around the test cell's
  code, a loop over the checker) is no answer, scores 0 and is flagged;
- **a write-code exercise** scores only if its checker printed its "✓" verdict and the cell
  raised nothing: an answer that merely stops the checker from raising scores 0;
- **tampering**: every cell the student wrote or changed (a cell whose source is not in the
  course's ``source/`` notebook) is read, not run: rebinding a name the lesson's checks use
  (``lesson``, ``grad_after_both_calls``, ``two_losses_article``), setting attributes of the
  lesson's or the engine's objects (``lesson.check_freed = ...``, ``torch.Tensor.backward = ...``),
  ``os.environ``, ``sys.modules``, builtins, ``exec``/``eval``/``setattr``/``open``, IPython's
  history, or a checker called from the student's own cells (an oracle). Every graded cell
  after the first such line scores 0 with a message naming the line, and :class:`FlagForReview`
  (after ``SaveAutoGrades``) marks those cells "needs manual grade" in the gradebook.

What a cell printed to stderr (a ``UserWarning`` of the student's code) becomes ordinary output:
warnings never cost a right answer its points. Errors are shown as their message alone (no
traceback lines: neither the checker's code nor the instructor's paths).
"""
import ast
import builtins
import math
import os

from nbformat.v4 import new_output

try:  # the `classroom` extra (nbgrader); the reading of cells below needs none of it
    from nbgrader.preprocessors import NbGraderPreprocessor
except ImportError:  # pragma: no cover
    NbGraderPreprocessor = object

BEGIN, END = "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"
FLAG = "⚑ flagged for review"
FLAGGED = "autograd_lesson_flagged"  # resources key: the grade ids flagged in this notebook

# Names a student's cell has no business using in a graded notebook: they reach the
# environment, the interpreter's module table, builtins, other code or the kernel's history.
FORBIDDEN = {
    "environ": "changes the environment (os.environ)", "putenv": "changes the environment",
    "unsetenv": "changes the environment", "modules": "reaches the module table (sys.modules)",
    "__builtins__": "reaches the builtins", "builtins": "reaches the builtins",
    "setattr": "sets attributes by name", "delattr": "deletes attributes by name",
    "exec": "runs code from a string", "eval": "runs code from a string",
    "compile": "compiles code", "__import__": "imports by name", "importlib": "imports by name",
    "globals": "reaches the notebook's namespace", "locals": "reaches a namespace",
    "vars": "reaches a namespace", "get_ipython": "reaches the kernel",
    "In": "reads the kernel's history", "Out": "reads the kernel's history",
    "_ih": "reads the kernel's history", "_oh": "reads the kernel's history",
    "open": "opens files", "sys": "reaches the interpreter", "ctypes": "reaches the interpreter",
    "subprocess": "runs programs", "_exit": "stops the kernel", "atexit": "stops the kernel",
    "signal": "reaches the kernel", "nbgrader": "reaches the grader",
    "NBGRADER_EXECUTION": "names the grading mode", "AUTOGRAD_LESSON_GRADING": "names the grading mode",
}
DUNDERS_ALLOWED = {"__init__", "__name__", "__doc__", "__call__", "__len__", "__iter__",
                   "__next__", "__getitem__", "__enter__", "__exit__", "__repr__", "__str__"}


# -- the key and the answer -------------------------------------------------------------------
class NotALiteral(ValueError):
    """An answer that is computed, not written."""


def literal(node):
    """The value of a literal the student wrote: numbers, strings, booleans, None, lists,
    tuples, sets, ``set()``, signs and arithmetic on numbers, ``[0] * 3``. Anything else
    (a name, a call, an attribute) raises :class:`NotALiteral`."""
    if isinstance(node, ast.Constant) and not isinstance(node.value, bytes):
        return node.value
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        items = [literal(e) for e in node.elts]
        kind = {ast.List: list, ast.Tuple: tuple, ast.Set: set}[type(node)]
        return kind(items)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
            node.func.id == "set" and not node.args and not node.keywords:
        return set()
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = literal(node.operand)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
        left, right = literal(node.left), literal(node.right)
        numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (left, right))
        repeat = isinstance(node.op, ast.Mult) and isinstance(left, list) and \
            isinstance(right, int) and not isinstance(right, bool) and 0 <= right <= 10_000
        if numbers or repeat:
            if isinstance(node.op, ast.Div) and right == 0:
                raise NotALiteral("divides by zero")
            return {ast.Add: lambda: left + right, ast.Sub: lambda: left - right,
                    ast.Mult: lambda: left * right, ast.Div: lambda: left / right}[type(node.op)]()
    raise NotALiteral(ast.unparse(node))


def hidden_region(source):
    """The lines between the hidden-test markers ('' if none)."""
    if BEGIN not in source:
        return ""
    return source.split(BEGIN, 1)[1].split(END, 1)[0]


def keys(source):
    """{answer name: expected value} from a test cell's hidden tests (``assert name == value``)."""
    found = {}
    for statement in ast.parse(hidden_region(source)).body:
        test = getattr(statement, "test", None)
        if isinstance(statement, ast.Assert) and isinstance(test, ast.Compare) and \
                isinstance(test.left, ast.Name) and len(test.ops) == 1 and \
                isinstance(test.ops[0], ast.Eq):
            found[test.left.id] = literal(test.comparators[0])
    return found


def same(answer, key):
    """True if the student's literal is the key: the same kind (a set where a set is asked,
    True rather than 1) and, for numbers, equal within 1e-6."""
    if isinstance(key, bool) or isinstance(answer, bool):
        return type(answer) is type(key) and answer == key
    if isinstance(key, (int, float)):
        return isinstance(answer, (int, float)) and math.isclose(answer, key, rel_tol=1e-6,
                                                                 abs_tol=1e-6)
    if isinstance(key, (list, tuple)):
        return isinstance(answer, (list, tuple)) and len(answer) == len(key) and \
            all(same(a, k) for a, k in zip(answer, key))
    if isinstance(key, set):
        return isinstance(answer, set) and answer == key
    return type(answer) is type(key) and answer == key


def _parse(source):
    """A cell's code as Python (IPython's ``%magic`` and ``!shell`` lines blanked)."""
    lines = ["" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines()]
    try:
        return ast.parse("\n".join(lines))
    except SyntaxError:
        return ast.Module(body=[], type_ignores=[])


def answer_of(student_cells, name):
    """(verdict, value) for the last top-level assignment of ``name`` in ``student_cells``:
    ("literal", value), ("placeholder", None) for ``...``, ("computed", source line) or
    ("missing", None)."""
    found = ("missing", None)
    for _, source in student_cells:
        for statement in _parse(source).body:
            if isinstance(statement, (ast.Assign, ast.AnnAssign)):
                targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                    value = statement.value
                    if isinstance(value, ast.Constant) and value.value is ...:
                        found = ("placeholder", None)
                        continue
                    try:
                        found = ("literal", literal(value))
                    except NotALiteral:
                        found = ("computed", ast.unparse(statement))
            elif _binds(statement, name):  # a loop, an import, a with, a def: code, not a value
                found = ("computed", ast.unparse(statement).splitlines()[0])
    return found


def _binds(statement, name):
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
               for n in ast.walk(statement)) or \
        any(isinstance(n, ast.alias) and (n.asname or n.name.split(".")[0]) == name
            for n in ast.walk(statement)) or \
        (isinstance(statement, (ast.FunctionDef, ast.ClassDef)) and statement.name == name)


# -- tampering --------------------------------------------------------------------------------
def _free_names(function):
    """Globals a function of the lesson reads (names it loads but never binds)."""
    bound = {a.arg for a in ast.walk(function.args) if isinstance(a, ast.arg)}
    loaded = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Name):
            (loaded if isinstance(node.ctx, ast.Load) else bound).add(node.id)
    return loaded - bound


def protected_names(lesson_sources, test_sources, answer_names):
    """Names the graded cells rely on: those the test cells read without binding them, and the
    globals the lesson's functions read; less the answers' own names."""
    names = set()
    for source in test_sources:
        tree = _parse(source)
        bound = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and
                 isinstance(n.ctx, ast.Store)}
        names |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and
                  isinstance(n.ctx, ast.Load)} - bound
    for source in lesson_sources + test_sources:
        for node in ast.walk(_parse(source)):
            if isinstance(node, (ast.FunctionDef, ast.Lambda)):
                names |= _free_names(node)
    return (names - set(answer_names) - set(dir(builtins))) | {"lesson"}


def _root(node):
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
        node = node.value
    return node


class _Scan(ast.NodeVisitor):
    """The first tampering in one student cell: (line, what it does), or None."""

    def __init__(self, protected, aliases):
        self.protected, self.aliases = protected, aliases  # aliases: names bound to lesson objects
        self.found, self.locals = None, []

    def flag(self, node, why):
        if self.found is None:
            self.found = (getattr(node, "lineno", 1), why)

    def _touches(self, root):
        if isinstance(root, ast.Name):
            at_top = not self.locals
            return root.id in self.protected or root.id in self.aliases or \
                (not at_top and root.id not in self.locals[-1])
        return True  # type(x).attr = ..., f().attr = ...: an object the student did not make

    def visit_FunctionDef(self, node):
        self._defines(node)
        for child in getattr(node, "decorator_list", []) + node.args.defaults:
            self.visit(child)
        params = {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
        stored = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and
                  isinstance(n.ctx, ast.Store)}
        self.locals.append(params | stored)
        for child in node.body if isinstance(node.body, list) else [node.body]:
            self.visit(child)
        self.locals.pop()

    visit_AsyncFunctionDef = visit_Lambda = visit_FunctionDef

    def _defines(self, node):
        if not self.locals and getattr(node, "name", None) in self.protected:
            self.flag(node, f"replaces {node.name}, which the lesson's checks use")

    def visit_ClassDef(self, node):
        self._defines(node)
        self.generic_visit(node)

    def visit_Global(self, node):
        self.flag(node, "declares a global name inside a function")

    visit_Nonlocal = visit_Global

    def visit_Name(self, node):
        if node.id in FORBIDDEN:
            self.flag(node, FORBIDDEN[node.id])
        elif isinstance(node.ctx, (ast.Store, ast.Del)) and not self.locals and \
                node.id in self.protected:
            self.flag(node, f"replaces {node.id}, which the lesson's checks use")

    def visit_Attribute(self, node):
        if node.attr in FORBIDDEN:
            self.flag(node, FORBIDDEN[node.attr])
        elif node.attr.startswith("__") and node.attr.endswith("__") and \
                node.attr not in DUNDERS_ALLOWED:
            self.flag(node, f"reaches {node.attr}")
        elif isinstance(node.ctx, (ast.Store, ast.Del)) and self._touches(_root(node)):
            self.flag(node, "changes an object of the lesson or of the engine")
        self.generic_visit(node)

    def visit_Subscript(self, node):
        if isinstance(node.ctx, (ast.Store, ast.Del)) and self._touches(_root(node)):
            self.flag(node, "changes an object of the lesson or of the engine")
        self.generic_visit(node)

    def visit_Call(self, node):
        name = node.func.attr if isinstance(node.func, ast.Attribute) else \
            getattr(node.func, "id", "")
        if name.startswith("check_") or name == "report":
            self.flag(node, f"calls the checker {name} (the checker is no oracle)")
        self.generic_visit(node)

    def visit_Import(self, node):
        for alias in node.names:
            top = alias.name.split(".")[0]
            if top in FORBIDDEN:
                self.flag(node, FORBIDDEN[top])
            bound = alias.asname or top
            if bound in self.protected and not self.locals:
                self.flag(node, f"replaces {bound}, which the lesson's checks use")
            self.aliases.add(bound)

    def visit_ImportFrom(self, node):
        if (node.module or "").split(".")[0] in FORBIDDEN:
            self.flag(node, FORBIDDEN[node.module.split(".")[0]])
        for alias in node.names:
            if alias.name in FORBIDDEN:
                self.flag(node, FORBIDDEN[alias.name])
            bound = alias.asname or alias.name
            if bound in self.protected and not self.locals:
                self.flag(node, f"replaces {bound}, which the lesson's checks use")
            self.aliases.add(bound)

    def visit_Assign(self, node):
        # ``m = lesson`` or ``T = torch.Tensor``: m is the lesson's object under another name
        if not self.locals and isinstance(_root(node.value), ast.Name) and \
                not isinstance(node.value, ast.Subscript) and \
                (_root(node.value).id in self.protected or _root(node.value).id in self.aliases):
            self.aliases.update(t.id for t in node.targets if isinstance(t, ast.Name))
        self.generic_visit(node)


def tampering(student_cells, protected):
    """[(cell index, line number, source line, what it does)] for the student's cells."""
    found, aliases = [], set()
    for index, source in student_cells:
        scan = _Scan(protected, aliases)
        scan.visit(_parse(source))
        if scan.found:
            line, why = scan.found
            text = source.splitlines()[line - 1].strip() if source.splitlines() else ""
            found.append((index, line, text, why))
    return found


# -- the preprocessor ---------------------------------------------------------------------------
def _marks(cell):
    return cell.get("metadata", {}).get("nbgrader", {})


def _is_test(cell):
    marks = _marks(cell)
    return cell.cell_type == "code" and marks.get("grade") and not marks.get("solution")


def _stream_text(output):
    text = output.get("text", "")
    return "".join(text) if isinstance(text, list) else text


def _error_output(message):
    return new_output("error", ename="AssertionError", evalue=message,
                      traceback=message.splitlines())


def verdicts(nb, source):
    """{grade id: (right, message, flagged)} for each test cell of the executed notebook
    ``nb`` (message None when right). ``source`` is the course's source notebook: a cell
    whose source is one of its cells' is the lesson's, every other the student's, and the
    names its solution cells bind are the answers."""
    lesson_sources = {c.source for c in source.cells
                      if c.cell_type == "code" and not _marks(c).get("solution")}
    code = [(i, c) for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    student = [(i, c.source) for i, c in code if not _is_test(c) and c.source not in lesson_sources]
    tests = [(i, c) for i, c in code if _is_test(c)]
    answers = {n for c in source.cells if _marks(c).get("solution") for n in _top_names(c.source)}
    protected = protected_names(list(lesson_sources), [c.source for _, c in tests], answers)
    tampered = tampering(student, protected)
    results = {}
    for index, cell in tests:
        grade_id = _marks(cell)["grade_id"]
        before = [(i, s) for i, s in student if i < index]
        flags = [t for t in tampered if t[0] < index]
        if flags:
            i, line, text, why = flags[0]
            results[grade_id] = (False, f"{FLAG}: cell {i + 1} line {line} `{text}` {why}; "
                                        f"graded cells after it score 0.", True)
            continue
        expected = keys(cell.source)
        if expected:
            results[grade_id] = _predict(expected, before)
        else:
            results[grade_id] = _write_code(cell)
    return results


def _top_names(source):
    names = set()
    for statement in _parse(source).body:
        if isinstance(statement, (ast.FunctionDef, ast.ClassDef)):
            names.add(statement.name)
        for target in getattr(statement, "targets", []):
            names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return names


def _predict(expected, student_cells):
    for name, key in expected.items():
        verdict, value = answer_of(student_cells, name)
        if verdict in ("missing", "placeholder"):
            return (False, f"✗ {name} is not answered.", False)
        if verdict == "computed":
            return (False, f"{FLAG}: `{value}` computes {name}; a prediction is a value you "
                           f"write, such as {name} = {_shape_of(key)}.", True)
        if not same(value, key):
            return (False, f"✗ {name} = {value!r} is not right.", False)
    return (True, None, False)


def _shape_of(key):
    if isinstance(key, bool):
        return "True"
    if isinstance(key, set):
        return "{...}"
    if isinstance(key, (list, tuple)):
        return "[...]"
    return "a number"


def _write_code(cell):
    """A write-code test cell: right on the checker's ✓ alone. (right, message, flagged); a
    message None says the kernel's own error is the feedback."""
    if any(o.output_type == "error" for o in cell.outputs):
        return (False, None, False)
    said = "".join(_stream_text(o) for o in cell.outputs if o.output_type == "stream")
    if not any(line.startswith("✓") for line in said.splitlines()):
        return (False, "✗ the checker gave no ✓ verdict.", False)
    return (True, None, False)


class GradeAnswers(NbGraderPreprocessor):
    """After nbgrader's ``Execute``: each test cell's outputs say this module's verdict (see
    the module's docstring); stderr becomes ordinary output."""

    def preprocess(self, nb, resources):
        results = verdicts(nb, _source_notebook(self, resources))
        flagged = []
        for cell in nb.cells:
            if not _is_test(cell):
                continue
            right, message, flag = results[_marks(cell)["grade_id"]]
            kept = []
            for output in cell.outputs:
                if output.output_type == "stream" and output.name == "stderr":
                    output.name = "stdout"  # a warning is not a wrong answer
                if output.output_type != "error":
                    kept.append(output)
                    continue
                lines = f"{output.get('ename', 'Error')}: {output.get('evalue', '')}".splitlines()
                if right or message is not None:  # the verdict is ours: theirs is feedback
                    kept.append(new_output("stream", name="stdout", text="\n".join(lines) + "\n"))
                else:  # the kernel's error is the verdict: its message, without the traceback
                    output.traceback = lines
                    kept.append(output)
            cell.outputs = kept + ([] if right or message is None else [_error_output(message)])
            if flag:
                flagged.append(_marks(cell)["grade_id"])
        resources[FLAGGED] = flagged
        return nb, resources


class FlagForReview(NbGraderPreprocessor):
    """After nbgrader's ``SaveAutoGrades``: the cells :class:`GradeAnswers` flagged keep their 0
    and are marked "needs manual grade", so formgrader lists them for the instructor."""

    def preprocess(self, nb, resources):
        flagged = resources.get(FLAGGED) or []
        if not flagged:
            return nb, resources
        from nbgrader.api import Gradebook
        info = resources["nbgrader"]
        with Gradebook(info["db_url"]) as gb:
            for grade_id in flagged:
                grade = gb.find_grade(grade_id, info["notebook"], info["assignment"], info["student"])
                grade.needs_manual_grade = True
            gb.db.commit()
        return nb, resources


def _source_notebook(preprocessor, resources):
    """The lesson as the course released it (``release/``): which cells are the lesson's, which
    names its answers define. Grading never needs ``source/``, the key, so it can run where
    student code cannot read it (INSTRUCTORS.md); a course not released yet falls back to it."""
    import nbformat
    from nbgrader.coursedir import CourseDirectory
    info = resources["nbgrader"]
    coursedir = CourseDirectory(config=preprocessor.config)
    for directory in (coursedir.release_directory, coursedir.source_directory):
        folder = coursedir.format_path(directory, ".", info["assignment"])
        path = os.path.join(folder, info["notebook"] + ".ipynb")
        if os.path.exists(path):
            return nbformat.read(path, as_version=4)
    raise FileNotFoundError(f"{info['assignment']}: neither release/ nor source/ holds "
                            f"{info['notebook']}.ipynb: run nbgrader generate_assignment first")
