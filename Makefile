# The two commands of the README's quickstart: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test check lint typecheck install clean

# Re-install whenever pyproject.toml changes; the stamp file remembers the last install.
$(BIN)/.installed: pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "paperbot needs Python 3.11 or newer; set PYTHON=python3.11")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	@touch $@

install: $(BIN)/.installed

demo: install
	$(BIN)/paperbot demo

# Parallel workers: much of the suite waits on subprocesses, servers and PostgreSQL, so more workers than
# cores pay on two cores (the whole suite costs about 6 CPU-minutes; with the long suites first, on
# 2026-12-05, 4 workers took 5m09 and 6 took 4m58). Tests marked with one xdist_group share a worker.
TEST_WORKERS ?= 6

test: install
	$(BIN)/pytest -q -n $(TEST_WORKERS) --dist loadgroup

lint: install
	$(BIN)/ruff check .

typecheck: install
	$(BIN)/mypy

check: lint typecheck test

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache
