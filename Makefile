# The two commands of the README's quickstart: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test check lint typecheck install clean pictures

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
# cores pay on two cores. Each test file runs on one worker (loadfile): a file's bot, stand-in or replicas
# start once, not once on each worker one of its tests lands on. xdist's loadgroup can't do it under
# pytest 9 (it renames node ids the way pytest 8 kept them). The suite is bound by the two cores' CPU (the
# runs' idle time is under a tenth), and every worker collects the whole suite and keeps its own stand-ins
# and bots: on 2026-12-07, after the idle stand-ins stopped polling, 6 workers took 3m49 (331 CPU-s, and
# PostgreSQL's 84), 5 took 3m15 and 3m25 (262-282 CPU-s, PostgreSQL's 71-74), 4 took 3m26.
TEST_WORKERS ?= 5

# Bytecode is written even where the environment says not to (PYTHONDONTWRITEBYTECODE): each worker collects
# every test module, and without the cached rewritten modules each one rewrites the asserts of all of them
# again, about 8 s of CPU a worker (2026-12-07). So that the workers find it cached even in a new clone,
# one collection writes it first whenever a source or test file has changed since (a collection error
# is left for the run itself to show).
PYTHON_FILES := $(shell find bot recommender storage stand_ins tests -name '*.py' 2>/dev/null)

$(VENV)/.bytecode: $(BIN)/.installed $(PYTHON_FILES)
	@PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -q --collect-only -p no:cacheprovider >/dev/null 2>&1 || true
	@touch $@

test: install $(VENV)/.bytecode
	PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -q -n $(TEST_WORKERS) --dist loadfile

lint: install
	$(BIN)/ruff check .

typecheck: install
	$(BIN)/mypy

check: lint typecheck test

# The README's pictures of a digest and of App Home, drawn again from the Block Kit the views send now
# (docs/pictures/make_pictures.py; headless Chromium: Debian's chromium, fonts-lato, fonts-noto-color-emoji).
pictures: install
	$(BIN)/python -m docs.pictures.make_pictures

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache
