"""``python -m autograd_lesson audit train.py:train_step``: the retain_graph doctor from a shell or CI.

It imports ``train.py`` (as ``python train.py`` would see its folder, but without running its
``if __name__ == "__main__":`` block), takes the step's arguments from ``make_inputs()`` in the
same file when there is one, runs ``lesson.audit`` on the step and prints the report. The exit
status says what it found: 0 clean, 1 findings, 2 bad input (one line on stderr: no such file,
no such function, ``make_inputs`` raised, not a Python file, or the step raised for another
reason than the graph).
"""
import argparse
import importlib.util
import os
import sys

CLEAN, FINDINGS, BAD_INPUT = 0, 1, 2

DESCRIPTION = """\
Run one training step under lesson.audit (the retain_graph doctor) and print its report.

  python -m autograd_lesson audit train.py:train_step

imports train.py (its __main__ block does not run), calls train_step(*make_inputs()) if the
file defines make_inputs(), else train_step(), watches every backward() in it (real PyTorch or
autograd_lesson), calls it twice more to see whether saved buffers pile up, and prints what it
found: unused-retain, double-traversal, graph-grows, freed-reuse, stale-saved.

make_inputs() returns the step's arguments: a tuple (positional), a dict (keyword), or one
value (the only argument). It is called once; the step then runs three times on what it returned,
as lesson.audit(step, *args) runs it. --inputs NAME takes another function of the file instead.

exit status: 0 no findings, 1 findings (the report says which and what to write instead),
2 bad input (one line on stderr).
"""


class BadInput(Exception):
    """One line for stderr, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        raise BadInput(f"{message} (python -m autograd_lesson --help)")


def parser():
    top = _Parser(prog="python -m autograd_lesson", description=DESCRIPTION,
                  formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = top.add_subparsers(dest="command", metavar="audit")
    audit = commands.add_parser(
        "audit", help="audit one training step: python -m autograd_lesson audit train.py:train_step",
        description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    audit.add_argument("target", metavar="FILE.py:FUNCTION",
                       help="the file and the step function in it, e.g. train.py:train_step")
    audit.add_argument("--inputs", metavar="NAME", default=None,
                       help="the function in FILE.py that returns the step's arguments "
                            "(default: make_inputs, if the file has one)")
    audit.add_argument("--language", choices=("en", "ko"), default="en",
                       help="the report's language (ko: 한국어)")
    return top


def load(path):
    """The module that ``path`` defines, imported as its folder's ``python path`` would see it."""
    if not os.path.isfile(path):
        raise BadInput(f"{path}: no such file")
    if not path.endswith(".py"):
        hint = " (a notebook: jupyter nbconvert --to script it first)" if path.endswith(".ipynb") else ""
        raise BadInput(f"{path} is not a Python file (.py){hint}")
    try:
        with open(path, encoding="utf-8") as file:
            source = file.read()
        code = compile(source, path, "exec")
    except (SyntaxError, ValueError, UnicodeDecodeError) as error:
        where = f" (line {error.lineno})" if getattr(error, "lineno", None) else ""
        reason = getattr(error, "msg", None) or str(error).split("\n")[0]
        raise BadInput(f"{path} is not valid Python{where}: {reason}") from None
    stem = os.path.splitext(os.path.basename(path))[0]
    name = stem if stem.isidentifier() and stem not in sys.modules else "__audited__"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    sys.modules[name] = module  # dataclasses and pickling look the module up by name
    try:
        exec(code, module.__dict__)  # noqa: S102 - running the learner's file is the point
    except Exception as error:  # noqa: BLE001 - their import-time error: one line
        raise BadInput(f"importing {path} raised {_one_line(error)}") from None
    return module


def _one_line(error):
    text = str(error).strip().split("\n")[0]
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def find(module, path, name, what):
    obj = module
    for part in name.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            functions = sorted(n for n, v in vars(module).items()
                               if callable(v) and getattr(v, "__module__", None) == module.__name__)
            known = f" (it defines: {', '.join(functions)})" if functions else ""
            raise BadInput(f"{path} has no {what} {name}{known}")
    if not callable(obj):
        raise BadInput(f"{path}:{name} is a {type(obj).__name__}, not a function")
    return obj


def inputs_of(module, path, name):
    """(args, kwargs) from ``make_inputs()`` (or ``name``), or none when the file has none."""
    if name is None and not callable(getattr(module, "make_inputs", None)):
        return (), {}
    name = name or "make_inputs"
    make = find(module, path, name, "function")
    try:
        made = make()
    except Exception as error:  # noqa: BLE001 - their code: one line
        raise BadInput(f"{name}() in {path} raised {_one_line(error)}") from None
    if isinstance(made, tuple):
        return made, {}
    if isinstance(made, dict):
        return (), made
    return (made,), {}


def exit_status(report):
    """0 clean, 1 findings, 2 the audit could not judge the step (its ``.error``)."""
    if report.error is not None:
        return BAD_INPUT
    return FINDINGS if report.findings else CLEAN


def audit_target(target, inputs=None):
    """The report of ``lesson.audit`` on ``FILE.py:FUNCTION``; :class:`BadInput` for bad input."""
    path, sep, name = target.rpartition(":")
    if not sep or not path or not name:
        raise BadInput(f"name the step as FILE.py:FUNCTION, e.g. train.py:train_step (got {target!r})")
    module = load(path)
    step = find(module, path, name, "function")
    args, kwargs = inputs_of(module, path, inputs)
    from .lesson import audit
    return audit(step, *args, **kwargs)


def main(argv=None):
    try:
        options = parser().parse_args(argv)
        if options.command is None:
            parser().print_help()
            return BAD_INPUT
        from .i18n import set_language
        set_language(options.language)
        report = audit_target(options.target, options.inputs)
    except BadInput as error:
        print(f"audit: {error}", file=sys.stderr)
        return BAD_INPUT
    if report.error is not None:
        print(report.text, file=sys.stderr)
    else:
        print(report.text)
    return exit_status(report)


if __name__ == "__main__":
    sys.exit(main())
