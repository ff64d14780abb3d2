# autograd-lesson: developer and learner entry points.
#   make lab    - open the student copies of the lessons in JupyterLab (127.0.0.1, token auth)
#   make solutions - open the lessons with their solutions (the answer key)
#   make lab-ko / solutions-ko - the same for the Korean edition (notebooks/ko, 한국어판)
#   make test   - run unit tests, torch parity tests and the notebooks (nbval) in one pytest run
#                 (on every core: PYTEST_WORKERS=auto, pytest-xdist)

PY    ?= python3
VENV  ?= .venv
VPY   := $(VENV)/bin/python
# The venv and installs go through .ci/install.py: uv (from the venv, PATH, or `pip install uv`)
# with pip's settings handed over, else python -m venv and pip. INSTALLER=pip forces pip;
# INSTALLER=uv forbids the fallback.
# Off a machine with local torch wheels, `make test` takes torch from PyPI (CUDA on Linux, GBs);
# for the CPU build: PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cpu make test
INSTALLER ?= auto
INSTALL := $(VPY) .ci/install.py --installer $(INSTALLER) install

# Python caches compiled modules (__pycache__) unless PYTHONDONTWRITEBYTECODE is set, as many
# container images set it. Every process here (the lab, its kernels, a test run's ~60 kernels)
# would then compile each module it imports from source again: 1.4 s more per `import torch`,
# and a fresh clone's `make test` took 236 s instead of about 150. The venv and __pycache__
# folders are the project's own (and git-ignored), so its processes write the cache.
export PYTHONDONTWRITEBYTECODE :=

# JupyterLab refuses to start as root unless told; add the flag only then.
ALLOW_ROOT := $(shell [ "$$(id -u)" = 0 ] && echo --allow-root)

DOT_HINT := Graphviz 'dot' not found: install it with 'sudo apt-get install graphviz' (Debian/Ubuntu), 'brew install graphviz' (macOS) or 'conda install -c conda-forge graphviz'

.PHONY: help venv install install-test install-e2e install-bench install-classroom torch dot dejavu cjk lab solutions lab-ko solutions-ko translations test figures student student-edition validate course bench e2e clean

# Student copies live here; `make clean` leaves them alone. FORCE=1 LESSON=<stem> resets one.
# LAB_ARGS: extra `jupyter lab` options, e.g. LAB_ARGS=--port=9999
STUDENT := build/student
# nbgrader runs `alembic` by name: the venv's bin goes first on PATH.
VENV_PATH := PATH="$(abspath $(VENV))/bin:$$PATH"
# JupyterLab's terminal: a login shell would put /etc/profile's PATH (and the system pip) first;
# bash with lab-settings/terminal.bashrc reads the user's start-up files, then activates .venv,
# so that `pip` and `python` in the terminal are the kernels'.
LAB_ENV := $(VENV_PATH) AUTOGRAD_LESSON_VENV="$(abspath $(VENV))"
TERMINAL := $(shell command -v bash >/dev/null 2>&1 && echo "--ServerApp.terminado_settings=shell_command='bash --rcfile $(abspath lab-settings/terminal.bashrc)'")
# lab-settings/overrides.json turns off the "Jupyter news" prompt and the update check;
# kernels talk over local sockets (ipc), so no "running over TCP without encryption" warning.
LAB_FLAGS := --ip=127.0.0.1 --no-browser $(ALLOW_ROOT) --KernelManager.transport=ipc \
  --LabApp.news_url=None --LabApp.app_settings_dir=$(abspath lab-settings) $(TERMINAL)

help:
	@echo "make lab      open the student copies of the lessons in JupyterLab"
	@echo "make solutions  open the lessons with their solutions"
	@echo "make lab-ko | solutions-ko  the same in Korean (한국어판, notebooks/ko)"
	@echo "make translations  list the Korean cells out of step with the English"
	@echo "make test     unit + torch parity tests + notebooks (nbval)"
	@echo "make validate LESSON=01_multiple_losses  check a lesson's exercises as the grader will"
	@echo "make torch    the CPU build of torch 2.13.0 into .venv (lesson 11; then restart the kernel)"
	@echo "make figures | student | student-edition | course | bench | e2e | clean"

# --- environment -------------------------------------------------------------

venv: $(VPY)

$(VPY):
	@$(PY) .ci/install.py --installer $(INSTALLER) venv $(VENV) || { rm -rf $(VENV); \
	  echo "Could not create $(VENV) with '$(PY) -m venv': on Debian/Ubuntu run 'apt-get install python3-venv' first." >&2; \
	  exit 1; }

install: $(VENV)/.installed

# The learner's environment gets its bytecode at install (4 s with uv): a lesson's first Run
# All then imports matplotlib and the rest compiled (lesson 02: 3.1 s against 4.8 s). `make
# test` leaves it to the first import, which writes it (see PYTHONDONTWRITEBYTECODE above):
# compiling all of torch and sympy up front costs more (14 s) than the run gains.
$(VENV)/.installed: pyproject.toml | $(VPY)
	$(INSTALL) --compile-bytecode -e .
	@touch $@

install-test: $(VENV)/.installed-test

$(VENV)/.installed-test: pyproject.toml | $(VPY)
	$(INSTALL) -e '.[test]'
	@touch $@ $(VENV)/.installed

install-e2e: $(VENV)/.installed-e2e

$(VENV)/.installed-e2e: pyproject.toml | $(VPY)
	$(INSTALL) -e '.[e2e]'
	@touch $@ $(VENV)/.installed

# Lesson 11 (and the optional last cell of lessons 01 to 07) on real PyTorch: the CPU build of
# torch 2.13.0 into .venv, where the lessons' kernels run; never PyPI's CUDA build or another
# version (.ci/install.py --torch-cpu: pip's own sources if it has any, else PyTorch's CPU index).
# The lesson's cell `%pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu`
# does the same from the notebook.
torch: install
	$(INSTALL) --torch-cpu
	@$(VPY) -c 'import torch; print(f"torch {torch.__version__} is in $(VENV): restart the kernel of an open lesson (Kernel > Restart Kernel) to use it")'

# The pictures name DejaVu Sans: without it Graphviz measures text in another font.
# Korean pictures (lesson.set_language("ko")) fall back to Noto Sans CJK KR for Hangul.
dot: dejavu cjk
cjk:
	@if fc-list :lang=ko 2>/dev/null | grep -q .; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  apt-get install -y --no-install-recommends fonts-noto-cjk || { apt-get update && apt-get install -y --no-install-recommends fonts-noto-cjk; }; \
	else echo "No Korean font found (fc-list :lang=ko): install fonts-noto-cjk (Debian/Ubuntu), font-noto-sans-cjk (brew) or conda-forge's font-ttf-noto-cjk; Korean pictures show boxes without it" >&2; fi
dejavu:
	@if fc-list 2>/dev/null | grep -qi 'DejaVu Sans'; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  apt-get install -y fonts-dejavu-core || { apt-get update && apt-get install -y fonts-dejavu-core; }; \
	else echo "DejaVu Sans not found: install fonts-dejavu-core (Debian/Ubuntu), font-dejavu (brew) or conda-forge's fonts-conda-ecosystem" >&2; fi
	@if command -v dot >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ]; then \
	  apt-get install -y graphviz || { apt-get update && apt-get install -y graphviz; } || exit 1; \
	  command -v dot >/dev/null 2>&1 || { echo "$(DOT_HINT)" >&2; exit 1; }; \
	else \
	  echo "$(DOT_HINT)" >&2; exit 1; \
	fi

# --- learner / instructor targets -------------------------------------------

lab: install dot student
	$(LAB_ENV) $(VENV)/bin/jupyter lab $(STUDENT)/ $(LAB_FLAGS) $(LAB_ARGS)

solutions: install dot
	$(LAB_ENV) $(VENV)/bin/jupyter lab notebooks/ $(LAB_FLAGS) $(LAB_ARGS)

# 한국어판: the student copies of notebooks/ko are written to build/student/ko by `make student`.
lab-ko: install dot student
	$(LAB_ENV) $(VENV)/bin/jupyter lab $(STUDENT)/ko/ $(LAB_FLAGS) $(LAB_ARGS)

solutions-ko: install dot
	$(LAB_ENV) $(VENV)/bin/jupyter lab notebooks/ko/ $(LAB_FLAGS) $(LAB_ARGS)

# Translators: the Korean cells whose English changed or is missing, with the English to
# translate (then: python -m autograd_lesson.course.translations stamp notebooks/ko/NN.ipynb CELL_ID).
translations: install
	$(VPY) -m autograd_lesson.course.translations stale $(NOTEBOOKS)

# pytest-xdist: one worker per core; --dist loadfile keeps each file (a notebook's cells share
# one kernel, in order) on one worker, and the files go out in collection order: xdist's
# default, most tests first, left the files that run whole notebooks (test_rerun: 14 tests,
# 40 s) to the end, on one worker while the other waited. PYTEST_WORKERS=0 runs in this process only.
# Each process of the run (workers, their kernels and subprocesses) uses one BLAS/OpenMP
# thread: the workers already fill the cores, and OpenBLAS's own threads on top of them spin
# for the same cores (2 cores under other load: 136 and 145 s with them, 112 and 121 s without).
PYTEST_WORKERS ?= auto
TEST_THREADS ?= 1
test: install-test dot
	OMP_NUM_THREADS=$(TEST_THREADS) OPENBLAS_NUM_THREADS=$(TEST_THREADS) MKL_NUM_THREADS=$(TEST_THREADS) \
	  $(VPY) -m pytest $(if $(filter 0,$(PYTEST_WORKERS)),,-n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder) $(PYTEST_ARGS)

figures: install dot
	$(VPY) -m autograd_lesson.course.figures
	$(VPY) -m autograd_lesson.course.architecture

student: install
	$(VPY) -m autograd_lesson.course.student notebooks $(STUDENT) $(if $(FORCE),--force) $(LESSON)

# Before handing a lesson in: run the student copy in a fresh kernel, under grading, and list
# its exercises right or not (LESSON=ko/01_multiple_losses for a Korean one). Needs no nbgrader.
validate: install
	$(VENV_PATH) $(VPY) -m autograd_lesson.course.validate $(STUDENT)/$(LESSON).ipynb

# What students get: this repository without the answer key (student copies in notebooks/),
# as a git repository in EDITION, where `make lab` works as here.
EDITION ?= build/student-edition
student-edition: install
	$(VPY) -m autograd_lesson.course.edition $(EDITION)

install-classroom: $(VENV)/.installed-classroom

$(VENV)/.installed-classroom: pyproject.toml | $(VPY)
	$(INSTALL) -e '.[classroom]'
	@touch $@ $(VENV)/.installed

# COURSE_ID and EXCHANGE (the exchange folder; default build/course/exchange) go into the config
course: install-classroom dot
	$(VENV_PATH) $(VPY) -m autograd_lesson.course.classroom notebooks build/course \
	  $(if $(COURSE_ID),--course-id $(COURSE_ID)) $(if $(EXCHANGE),--exchange $(EXCHANGE))

install-bench: $(VENV)/.installed-bench

$(VENV)/.installed-bench: pyproject.toml | $(VPY)
	$(INSTALL) -e '.[test,bench]'
	@touch $@ $(VENV)/.installed-test $(VENV)/.installed

bench: install-bench dot
	$(VPY) benchmarks/run.py $(BENCH_ARGS)

e2e: install-e2e dot
	$(VPY) tests/e2e/run_e2e.py
	$(VPY) tests/e2e/without_torch.py

clean:
	@[ ! -d build ] || find build -mindepth 1 -maxdepth 1 ! -name student -exec rm -rf {} +
	rm -rf .pytest_cache .hypothesis *.egg-info
	find . -name __pycache__ -type d -not -path './$(VENV)/*' -prune -exec rm -rf {} +

# --- differential fuzzer (tests/test_fuzz.py) ---------------------------------
# make fuzz [FUZZ_EXAMPLES=20000]: a fresh random search of programs run through both libraries;
# prints how many it tried, and the shrunk program of the first mismatch. (make test runs a fixed,
# deterministic budget of the same fuzzer.)
FUZZ_EXAMPLES ?= 5000

.PHONY: fuzz
fuzz: install-test
	FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(VPY) tests/test_fuzz.py
