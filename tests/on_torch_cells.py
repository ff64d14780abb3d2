"""The optional "on real PyTorch" cell of lessons 01-07, run outside the notebook.

Each such cell (id ``NN-on-torch``) defines ``program(torch)`` and ends with
``lesson.on_real_torch(program, code)``. :func:`texts` runs that program and call on real torch
and on autograd_lesson, through the same code the cell uses, and returns both printed texts.
"""
import ast
import pathlib

import nbformat

import autograd_lesson
from autograd_lesson import viz
from autograd_lesson.lesson import on_torch

NOTEBOOKS = pathlib.Path(__file__).resolve().parent.parent / "notebooks"


def cell(lesson_id):
    path = next(NOTEBOOKS.glob(f"{lesson_id}_*.ipynb"))
    nb = nbformat.read(path, as_version=4)
    return next(c for c in nb.cells if c.id == f"{lesson_id}-on-torch")


def program_and_code(lesson_id):
    """The cell's program (a function of ``torch``) and the code string it passes."""
    tree = ast.parse(cell(lesson_id).source)
    *defs, last = tree.body
    call = last.value
    assert ast.unparse(call.func) == "lesson.on_real_torch", ast.unparse(call)
    namespace = {}
    exec(compile(ast.Module(defs, []), f"<{lesson_id}-on-torch>", "exec"), namespace)  # noqa: S102
    return namespace[call.args[0].id], ast.literal_eval(call.args[1])


def texts(torch, lesson_id):
    """(torch's text, autograd_lesson's text) for the lesson's on-real-PyTorch cell."""
    program, code = program_and_code(lesson_id)
    torch.manual_seed(0)
    autograd_lesson.manual_seed(0)
    with viz.watch():  # as on_real_torch builds it: torch's reader sees every backward
        built = program(torch)
    return (on_torch._run(torch, built, code)[1],
            on_torch._run(autograd_lesson, program(autograd_lesson), code)[1])


def stored_text(lesson_id):
    """What the committed notebook printed in that cell."""
    return "".join(o.get("text", "") for o in cell(lesson_id).outputs
                   if o.output_type == "stream")
