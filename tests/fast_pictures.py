"""Graphviz and the real-PyTorch demos stubbed out, for the test runs of whole lessons that
check words (the checkers' verdicts, the scores), not pictures.

``tests/test_student.py`` (a first cell added for the run) and ``tests/test_classroom.py`` (an
IPython startup file of the graded kernels) run ``FAST_RUN`` before a lesson (``tests/test_rerun.py``
runs only ``NO_TORCH_DEMOS``):

- every ``dot``/``neato`` call made through ``graphviz`` (the kept Graphviz process of
  ``viz.warm`` is off) returns a 1-pixel picture (or an empty layout), and a step-through's static strip of frames (drawn by ``neato`` directly,
  then composed with Pillow) is that 1-pixel PNG too; the kernel leaves the test run's shared
  render cache (``autograd_lesson.viz.render.share_cache``) alone, so no fake picture or
  layout reaches the kernels that draw for real (nbval's);
- ``lesson.on_real_torch(program, code)`` (a lesson's demonstration of the same code on real
  PyTorch: never an exercise, never graded) does nothing, so a lesson that only shows torch
  does not import it (about 1.3 s a kernel). ``lesson.real_torch()`` is left alone: lesson 11's
  exercises run on torch.

The pictures and the torch demos are checked by nbval on the lessons themselves.
"""

# The PNG twins alone, for every kernel of a test run (``tests/conftest.py`` puts this in an
# IPython startup file): a picture shows as SVG and, for a notebook opened untrusted, as a PNG
# that nbval never compares (it skips image/png unless run with nbdime) and that costs about
# 40% of a lesson's run to draw. The SVG, the text twin and the step-through's widget are real.
NO_PNG = """\
import importlib as _importlib
_PNG = b"\\x89PNG\\r\\n\\x1a\\n"  # a PNG signature: the bundle keeps its image/png key
_importlib.import_module("autograd_lesson.viz.render").GraphView.png = lambda self: _PNG
_importlib.import_module("autograd_lesson.viz.glance").GlanceView.png = lambda self: _PNG
_importlib.import_module("autograd_lesson.viz.steps").StepThrough.static_png = lambda self: _PNG
"""

# The torch demos alone: ``tests/test_rerun.py`` runs the lessons with real pictures but these
# cells checked in its own process (``test_on_real_torch_cell_prints_the_same_when_run_again``).
NO_TORCH_DEMOS = """\
from autograd_lesson import lesson as _lesson
from autograd_lesson.lesson import on_torch as _on_torch
_lesson.on_real_torch = _on_torch.on_real_torch = lambda program, code: None
"""

FAST_RUN = """\
import os as _os
_os.environ.pop("AUTOGRAD_LESSON_RENDER_CACHE", None)  # fakes stay in this kernel
import io as _io, graphviz as _graphviz
from PIL import Image as _Image
_png = _io.BytesIO()
_Image.new("RGB", (1, 1), "white").save(_png, format="PNG")
_FAKE = {"png": _png.getvalue(), "svg": b'<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>',
         "json": b'{"bb": "0,0,1,1", "objects": []}', "json0": b'{"bb": "0,0,1,1", "objects": []}'}
_graphviz.Source.pipe = lambda self, format=None, *args, **kwargs: _FAKE[format or "svg"]
import autograd_lesson.viz.warm as _warm
_warm.draw = lambda *args, **kwargs: None  # no kept Graphviz: every picture is a fake
from autograd_lesson.viz import steps as _steps
_steps.StepThrough.static_png = lambda self: _FAKE["png"]
""" + NO_TORCH_DEMOS


def kernels_without_png():
    """Every Jupyter kernel this process starts from now on (nbval's, ``test_rerun``'s) runs
    ``NO_PNG`` first: an IPython startup file in a temporary IPYTHONDIR, removed when this
    process exits. A no-op where a parent (the xdist controller) has done it already;
    ``test_classroom`` gives its graded kernels an IPYTHONDIR of their own."""
    import atexit
    import os
    import shutil
    import tempfile
    if os.environ.get(_KERNELS_WITHOUT_PNG):
        return
    folder = tempfile.mkdtemp(prefix="autograd-lesson-ipython-")
    startup = os.path.join(folder, "profile_default", "startup")
    os.makedirs(startup)
    with open(os.path.join(startup, "00-no-png.py"), "w", encoding="utf-8") as f:
        f.write(NO_PNG)
    os.environ["IPYTHONDIR"] = os.environ[_KERNELS_WITHOUT_PNG] = folder
    atexit.register(shutil.rmtree, folder, True)


_KERNELS_WITHOUT_PNG = "AUTOGRAD_LESSON_TEST_IPYTHONDIR"
