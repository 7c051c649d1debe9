# dlsched -- bootstrap, tests, reproduction and benchmarks (GNU make).
#
# Every target that runs code first bootstraps a virtualenv in $(VENV) and installs the package
# with the exact pins in constraints.txt. The install is redone only when pyproject.toml or
# constraints.txt change (stamp file $(VENV)/.dlsched-installed).
#
#   make test            unit/property tests (tests/), then nbval on the source notebooks
#   make reproduce       every notebook in paper mode, sweep points from the store -> figures/, build/reproduce/
#   make reproduce-quick every notebook in quick mode (small smoke run) -> build/figures/
#   make reproduce-full  paper mode from scratch -> data/results (the store), figures/
#   make help            list all targets

VENV ?= .venv
PYTHON ?= python3

VENV_PY := $(VENV)/bin/python
STAMP := $(VENV)/.dlsched-installed
NB_STAMP := $(VENV)/.dlsched-notebooks-installed
PIP_INSTALL := $(VENV_PY) -m pip install --disable-pip-version-check -c constraints.txt

# nbval re-executes the notebooks; their figures go to build/nbval-figures, never over figures/.
NBVAL := DLSCHED_FIGURES_DIR=$(CURDIR)/build/nbval-figures $(VENV_PY) -m pytest
NBVAL_ARGS := --nbval-lax --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg \
	-p no:cacheprovider
# pytest-xdist: TEST_WORKERS processes (default 2, this project's machine has 2 cores; 0 = none).
# nbval needs --dist loadfile so that every cell of a notebook runs in one worker, in order.
TEST_WORKERS ?= 2
XDIST := $(if $(filter 0,$(TEST_WORKERS)),,-n $(TEST_WORKERS))
NBVAL_XDIST := $(if $(XDIST),$(XDIST) --dist loadfile,)

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

.PHONY: help bootstrap test test-unit test-notebooks reproduce reproduce-quick reproduce-full audit refresh-notebooks \
	benchmark lab lint \
	constraints clean distclean

help: ## Show this help.
	@echo "Usage: make TARGET [VENV=.venv] [PYTHON=python3]"
	@echo
	@grep -E '^[a-zA-Z_-]+:.*## ' $(firstword $(MAKEFILE_LIST)) \
		| awk 'BEGIN {FS = ":.*## "}; {printf "  %-16s %s\n", $$1, $$2}'

# ----------------------------------------------------------------------------- bootstrap

$(VENV_PY):
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml constraints.txt | $(VENV_PY)
	$(PIP_INSTALL) --upgrade pip
	$(PIP_INSTALL) -e '.[test]'
	touch $@

$(NB_STAMP): $(STAMP)
	$(PIP_INSTALL) -e '.[notebooks,test]'
	touch $@

bootstrap: $(STAMP) ## Create the venv (VENV) and install the package + test tools from constraints.txt.

# ----------------------------------------------------------------------------- tests

REQUIRE_NOTEBOOKS := if ! compgen -G 'notebooks/*.ipynb' > /dev/null; then \
	echo "ERROR: no notebooks/*.ipynb found; nbval has nothing to check." >&2; exit 1; fi

test: $(STAMP) ## Run the unit tests (tests/), then nbval on notebooks/*.ipynb (TEST_WORKERS=2 processes).
	$(VENV_PY) -m pytest $(XDIST)
	@$(REQUIRE_NOTEBOOKS)
	$(NBVAL) $(NBVAL_ARGS) $(NBVAL_XDIST) notebooks/

test-unit: $(STAMP) ## Run pytest on tests/ only.
	$(VENV_PY) -m pytest $(XDIST)

test-notebooks: $(STAMP) ## Run nbval on the source notebooks only.
	@$(REQUIRE_NOTEBOOKS)
	$(NBVAL) $(NBVAL_ARGS) $(NBVAL_XDIST) notebooks/

# ----------------------------------------------------------------------------- reproduction

reproduce: $(STAMP) ## Run all notebooks in paper mode, points from the results store (figures/, build/reproduce/).
	$(VENV)/bin/dlsched reproduce --mode paper

reproduce-quick: $(STAMP) ## Run all notebooks in quick mode, a small smoke run (build/figures/, build/reproduce/).
	$(VENV)/bin/dlsched reproduce --mode quick

# Two Dask workers (scheduler=local) for the sweeps; the points are the same as serial ones.
reproduce-full: $(STAMP) ## Paper mode from scratch: recompute every stored point, rewrite data/results and figures/ (slow).
	$(VENV)/bin/dlsched reproduce --mode paper --fresh --jobs 2 --param scheduler=local

AUDIT_SAMPLE ?= 30
AUDIT_SEED ?= 0
audit: $(STAMP) ## Recompute a sample of the stored paper-scale points (AUDIT_SAMPLE, AUDIT_SEED) and compare exactly.
	$(VENV)/bin/dlsched audit --sample $(AUDIT_SAMPLE) --seed $(AUDIT_SEED)

# ONLY="10 32" refreshes some notebooks; points they compute are added to the results store.
refresh-notebooks: $(STAMP) ## Re-execute the source notebooks in place, paper mode (nbval's reference); ONLY="NN ..."
	$(VENV_PY) -c "import sys; from dlsched.reproduce import refresh_sources; \
		print(*refresh_sources(only=sys.argv[1:] or None), sep='\n')" $(ONLY)

# Static HTML site of the executed notebooks (build/reproduce/ if `make reproduce` ran, else the
# notebooks' stored outputs; nothing is executed) + an index from the README's figure table.
BOOK_STAMP := $(VENV)/.dlsched-book-installed

$(BOOK_STAMP): $(STAMP)
	$(PIP_INSTALL) -e '.[book]'
	touch $@

.PHONY: book
book: $(BOOK_STAMP) ## Build the static HTML companion site in build/site/ (index.html) with Sphinx + MyST-NB.
	$(VENV_PY) -m dlsched.book

lint: $(STAMP) ## ruff check on the package, tests, benchmarks and notebook scripts (installs ruff).
	$(PIP_INSTALL) ruff
	$(VENV)/bin/ruff check dlsched tests tests_browser benchmarks notebooks/*.py

benchmark: $(STAMP) ## Run every benchmarks/bench_*.py with the venv's python.
	@if ! compgen -G 'benchmarks/bench_*.py' > /dev/null; then \
		echo "ERROR: no benchmarks/bench_*.py found." >&2; exit 1; fi
	@for f in benchmarks/bench_*.py; do \
		echo "== $$f"; \
		$(VENV_PY) "$$f"; \
	done

# Only on 127.0.0.1, with jupyter's default random token (printed in the log). --allow-root is
# added only for uid 0 (containers), where jupyter otherwise refuses to start.
lab: $(NB_STAMP) ## Install the notebooks extra (jupyterlab) and start JupyterLab on 127.0.0.1 (token).
	$(VENV)/bin/jupyter lab --ip=127.0.0.1 $(if $(filter 0,$(shell id -u)),--allow-root)

# ----------------------------------------------------------------------------- browser tests
# tests_browser/ drives Debian's headless /usr/bin/chromium with Playwright for Python (the
# `browser` extra); Playwright's own browser download (`playwright install`) is never used.

CHROMIUM := /usr/bin/chromium
BROWSER_STAMP := $(VENV)/.dlsched-browser-installed

$(BROWSER_STAMP): $(NB_STAMP)
	$(PIP_INSTALL) -e '.[notebooks,test,browser]'
	touch $@

.PHONY: browser-deps
browser-deps: $(BROWSER_STAMP) ## Install the browser extra (playwright) and Debian's chromium (apt-get) if missing.
	@if [ ! -x $(CHROMIUM) ]; then \
		if ! command -v apt-get > /dev/null; then \
			echo "ERROR: $(CHROMIUM) is missing and apt-get is not available: install Chromium so that $(CHROMIUM) exists." >&2; exit 1; \
		elif [ "$$(id -u)" -eq 0 ]; then SUDO=; \
		elif command -v sudo > /dev/null; then SUDO=sudo; \
		else echo "ERROR: $(CHROMIUM) is missing; as root run: apt-get update && apt-get install -y chromium" >&2; exit 1; fi; \
		echo "$(CHROMIUM) missing: $${SUDO:+sudo }apt-get install -y chromium"; \
		$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium \
			|| { $$SUDO apt-get update && $$SUDO env DEBIAN_FRONTEND=noninteractive \
				apt-get install -y chromium; }; \
	fi
	@$(CHROMIUM) --version

.PHONY: test-browser
test-browser: browser-deps book ## Build the site (make book), then run the browser tests (tests_browser/, headless chromium).
	$(VENV_PY) -m pytest -p no:cacheprovider tests_browser/

# ----------------------------------------------------------------------------- maintenance

FREEZE_VENV := build/constraints-venv
constraints: ## Re-pin constraints.txt in a throwaway venv (UPGRADE=1 ignores the current pins).
	rm -rf $(FREEZE_VENV)
	$(PYTHON) -m venv $(FREEZE_VENV)
	$(FREEZE_VENV)/bin/python -m pip install --disable-pip-version-check \
		$(if $(UPGRADE),,-c constraints.txt) --upgrade pip
	$(FREEZE_VENV)/bin/python -m pip install --disable-pip-version-check \
		$(if $(UPGRADE),,-c constraints.txt) -e '.[notebooks,test,dev,browser,book]'
	{ sed -n '/^#/p;/^[^#]/q' constraints.txt; \
	  $(FREEZE_VENV)/bin/python -m pip freeze --all --exclude-editable \
		| grep -viE '^(setuptools|wheel)=='; } > constraints.txt.tmp
	mv constraints.txt.tmp constraints.txt
	rm -rf $(FREEZE_VENV)
	@echo "constraints.txt updated: now update environment.yml and run 'make test'."

clean: ## Remove build outputs and caches (keeps the venv, figures/, data/).
	rm -rf build/ .pytest_cache/ .hypothesis/ .ruff_cache/ dask-worker-space/ benchmarks/out/ \
		*.egg-info/
	find . -path ./$(VENV) -prune -o \
		\( -name __pycache__ -o -name .ipynb_checkpoints -o -name .pytest_cache \) \
		-type d -print0 | xargs -0 rm -rf

distclean: clean ## clean, and also remove the venv (VENV).
	rm -rf $(VENV)
