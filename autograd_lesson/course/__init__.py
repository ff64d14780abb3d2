"""The course tooling: what instructors and maintainers run with ``python -m``, never the
lessons' own code (the engine, ``viz`` and ``lesson`` import nothing from here).

- :mod:`.student`: the student copies (``make student``, ``make lab``);
- :mod:`.classroom`: an nbgrader course of the lessons (``make course``);
- :mod:`.translations`: the Korean edition kept in step with the English (``make translations``);
- :mod:`.figures`: the committed pictures in ``figures/`` (``make figures``);
- :mod:`.run_notebooks`: re-execute lessons and save their outputs.
"""
