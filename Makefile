# autograd-lesson: developer and learner entry points.
#   make lab    - open the lessons in JupyterLab (127.0.0.1, token auth)
#   make test   - run unit tests, torch parity tests and the notebooks (nbval) in one pytest run

PY    ?= python3
VENV  ?= .venv
VPY   := $(VENV)/bin/python
PIP   := $(VPY) -m pip

# JupyterLab refuses to start as root unless told; add the flag only then.
ALLOW_ROOT := $(shell [ "$$(id -u)" = 0 ] && echo --allow-root)

DOT_HINT := Graphviz 'dot' not found: install it with 'sudo apt-get install graphviz' (Debian/Ubuntu), 'brew install graphviz' (macOS) or 'conda install -c conda-forge graphviz'

.PHONY: help venv install install-test install-e2e install-bench dot lab test figures student bench e2e clean

help:
	@echo "make lab      open the lesson notebooks in JupyterLab"
	@echo "make test     unit + torch parity tests + notebooks (nbval)"
	@echo "make figures | student | bench | e2e | clean"

# --- environment -------------------------------------------------------------

venv: $(VPY)

$(VPY):
	@$(PY) -m venv $(VENV) || { rm -rf $(VENV); \
	  echo "Could not create $(VENV) with '$(PY) -m venv': on Debian/Ubuntu run 'apt-get install python3-venv' first." >&2; \
	  exit 1; }

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml | $(VPY)
	$(PIP) install -e .
	@touch $@

install-test: $(VENV)/.installed-test

$(VENV)/.installed-test: pyproject.toml | $(VPY)
	$(PIP) install -e '.[test]'
	@touch $@ $(VENV)/.installed

install-e2e: $(VENV)/.installed-e2e

$(VENV)/.installed-e2e: pyproject.toml | $(VPY)
	$(PIP) install -e '.[e2e]'
	@touch $@ $(VENV)/.installed

dot:
	@if command -v dot >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ]; then \
	  apt-get install -y graphviz || { apt-get update && apt-get install -y graphviz; } || exit 1; \
	  command -v dot >/dev/null 2>&1 || { echo "$(DOT_HINT)" >&2; exit 1; }; \
	else \
	  echo "$(DOT_HINT)" >&2; exit 1; \
	fi

# --- learner / instructor targets -------------------------------------------

lab: install dot
	$(VENV)/bin/jupyter lab notebooks/ --ip=127.0.0.1 --no-browser $(ALLOW_ROOT)

test: install-test dot
	$(VPY) -m pytest $(PYTEST_ARGS)

figures: install dot
	$(VPY) -m autograd_lesson.figures

student: install
	$(VPY) -m autograd_lesson.student notebooks build/student

install-bench: $(VENV)/.installed-bench

$(VENV)/.installed-bench: pyproject.toml | $(VPY)
	$(PIP) install -e '.[test,bench]'
	@touch $@ $(VENV)/.installed-test $(VENV)/.installed

bench: install-bench dot
	$(VPY) benchmarks/run.py $(BENCH_ARGS)

e2e: install-e2e dot
	$(VPY) tests/e2e/run_e2e.py

clean:
	rm -rf build .pytest_cache .hypothesis *.egg-info
	find . -name __pycache__ -type d -not -path './$(VENV)/*' -prune -exec rm -rf {} +

# --- differential fuzzer (tests/test_fuzz.py) ---------------------------------
# make fuzz [FUZZ_EXAMPLES=20000]: a fresh random search of programs run through both libraries;
# prints how many it tried, and the shrunk program of the first mismatch. (make test runs a fixed,
# deterministic budget of the same fuzzer.)
FUZZ_EXAMPLES ?= 5000

.PHONY: fuzz
fuzz: install-test
	FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(VPY) tests/test_fuzz.py
