# One command for everything a contributor or CI needs: `make check`.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# The suite runs on every core (pytest-xdist); tests that share one module's real owner or
# host (xdist_group) stay on one worker. N=0 runs it in this one process. `auto` is two
# workers per core (tests/conftest.py: the tests wait more than they compute, the edit
# loop's too: its contract timeouts and paced streams); `logical` is one per core.
N ?= auto
FAST_N ?= auto
PYTEST := $(BIN)/python -m pytest -q --dist loadgroup

.PHONY: install run check lint typecheck imports test test-fast test-tui snapshot-update screenshots bench

$(BIN)/python:
	$(PY) -m venv $(VENV)

install: $(BIN)/python
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'

run: $(BIN)/python
	$(BIN)/pip install --quiet -e .
	$(BIN)/cctui

lint:
	$(BIN)/ruff check cctui tests
	$(BIN)/ruff format --check cctui tests

typecheck:
	$(BIN)/mypy

imports:
	$(BIN)/lint-imports

test:
	$(PYTEST) -n $(N)

# The edit loop: everything but the real-CLI (e2e), slow, Textual-app (tui) tests and those
# that start a Python process of their own (process). tests/tui is all `tui` (by folder,
# tests/conftest.py): not even collected, which spares each worker importing its modules.
test-fast:
	$(PYTEST) -n $(FAST_N) -m "not e2e and not slow and not tui and not process" --ignore=tests/tui

# The TUI's Pilot and snapshot tests (tests/tui), but for the real-terminal ones.
test-tui:
	$(PYTEST) -n $(N) -m "tui and not e2e and not slow"

check: install lint typecheck imports test

snapshot-update:
	$(BIN)/python -m pytest tests/tui --snapshot-update -q

screenshots:
	$(BIN)/python -m tests.snapshot_apps.screenshots

bench:
	$(BIN)/python -m tests.bench
