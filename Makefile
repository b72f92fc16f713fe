# One command for everything a contributor or CI needs: `make check`.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: install run check lint typecheck imports test snapshot-update screenshots bench

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
	$(BIN)/python -m pytest -q

check: install lint typecheck imports test

snapshot-update:
	$(BIN)/python -m pytest tests/tui --snapshot-update -q

screenshots:
	$(BIN)/python -m tests.snapshot_apps.screenshots

bench:
	$(BIN)/python -m tests.bench
