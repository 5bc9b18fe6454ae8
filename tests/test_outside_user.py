"""The outside user's path: the notebook the README's badges open (:data:`FROM_FETCHED`) runs
from the files ``anisotropy data fetch`` downloaded from a local mirror (conftest's
``mirrored_data``), with no hub at all; and a claim notebook that reads its data from the hub
(:data:`FROM_HUB`) runs, as opened in Binder, Colab or a plain Jupyter, with no data root,
no ``../shared``, and the hub offline but for a fake hub cache (:mod:`fakehub`) holding the
datasets' parquet exports.

Two notebooks, not six, to keep ``make test`` within its 20 minutes (the six took 338 s
of it on the AMD EPYC, November 2026; these two 94 s): :data:`FROM_HUB` is the
cheapest claim that reads a dataset only from the hub (WikiText-2). The other notebooks'
hub reads are each dataset's (``tests/test_data_hub.py``: the hub copy read through the same
call, its schema equal to the local reader's), their code runs in the smoke profile
(``test_notebooks.py``), and every notebook's binder time and peak memory, each from a cache
of its own, is measured against the budget by ``benchmarks/bench_binder.py`` (a benchmark,
not a timed test).

Each notebook runs with nbclient (not papermill) in a fresh kernel, with its own parameters
cell (``profile = "binder"``), both at once (one BLAS thread each). They share one
project cache, as notebooks in one Binder container do, in which the binder profile's
models were prepared beforehand by ``anisotropy models --profile binder``, as Binder's
``postBuild`` does. The test asserts that it finished, that its results file records the
``binder`` profile and a hub source for every dataset it read, and that the kernel's peak
memory stayed under the binder budget.
"""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from fakehub import hub_frames_from_local, write_fake_hub

from anisotropy.book import runner
from anisotropy.book.fresh_run import outside_environment, run_fresh

NOTEBOOKS = runner.PROJECT_ROOT / "notebooks"
#: The notebook the README's badges open: it runs from the fetched files, the others from
#: the fake hub.
FROM_FETCHED = "01-layerwise-anisotropy"
#: The notebook that reads its data from the (fake) hub.
FROM_HUB = "02-clusters-manifolds"
SLUGS = (FROM_FETCHED, FROM_HUB)
#: mybinder.org's memory limit, the binder profile's budget per notebook.
PEAK_RSS_BUDGET_MB = 2048

pytestmark = pytest.mark.notebooks


@pytest.fixture(scope="module")
def fake_hub_home(tmp_path_factory) -> Path:
    home = tmp_path_factory.mktemp("hf-home")
    write_fake_hub(home, hub_frames_from_local())
    return home


@pytest.fixture(scope="module")
def outside_runs(fake_hub_home, mirrored_data, tmp_path_factory):
    """Run :data:`SLUGS` as an outside user; ``{slug: (FreshRun, build folder)}``."""
    root = tmp_path_factory.mktemp("outside")
    base = outside_environment(fake_hub_home, root / "cache", root / "build")
    fetched = {**outside_environment(root / "empty-hf", root / "cache", root / "build"),
               "ANISOTROPY_DATA": str(mirrored_data[0])}
    prepared = subprocess.run([sys.executable, "-m", "anisotropy", "models", "--profile",
                               "binder"], env=base, capture_output=True, text=True)
    assert prepared.returncode == 0, prepared.stderr

    def one(slug: str):
        build = root / slug / "build"
        env = {**(fetched if slug == FROM_FETCHED else base), "ANISOTROPY_BUILD": str(build),
               "OMP_NUM_THREADS": "1",
               "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
        run = run_fresh(NOTEBOOKS / f"{slug}.ipynb", root / slug / "executed.ipynb", env)
        return slug, (run, build)

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(one, SLUGS))


@pytest.mark.parametrize("slug", SLUGS)
def test_notebook_runs_from_the_hub_in_the_binder_profile(slug, outside_runs):
    run, build = outside_runs[slug]
    print(f"{slug}: {run.seconds:.0f} s (one thread, beside another notebook), "
          f"peak RSS {run.peak_rss_mb:.0f} MB")
    assert run.error is None, run.error
    record = json.loads((build / "custom" / "results" / f"{slug}.json").read_text())
    assert record["profile"] == "binder" and record["overrides"] == {}
    assert record["data"], "the results file records no data source"
    kind = "local:" if slug == FROM_FETCHED else "hub:"
    assert all(source.startswith(kind) for source in record["data"].values()), record["data"]
    assert all(key.startswith("hub:") == (kind == "hub:") for key in record["data_sha256"])
    assert run.peak_rss_mb < PEAK_RSS_BUDGET_MB, f"peak RSS {run.peak_rss_mb:.0f} MB"


def test_no_data_root_and_no_hub_fails_before_any_model_loads(tmp_path):
    """An unreachable hub and no data root: one message naming the dataset, the revision,
    `anisotropy data fetch` and ANISOTROPY_DATA, before any model is loaded."""
    env = outside_environment(tmp_path / "empty-hf", tmp_path / "cache", tmp_path / "build")
    slug = FROM_FETCHED
    run = run_fresh(NOTEBOOKS / f"{slug}.ipynb", tmp_path / "executed.ipynb", env)
    assert run.error is not None
    for part in ("DataError", "'snli'", "stanfordnlp/snli", "refs/convert/parquet",
                 "anisotropy data fetch snli", "ANISOTROPY_DATA"):
        assert part in run.error, (part, run.error[-600:])
    cached = {path.name for path in (tmp_path / "cache").glob("*")}
    assert not cached & {"models", "tokens", "pooled", "finetune"}, cached


def test_fetch_from_a_mirror_verifies_every_declared_file(mirrored_data):
    """`anisotropy data fetch` in a copy of the checkout with no ``../shared``, against a
    mirror on 127.0.0.1 and no hub: every file of data/sources.yaml downloaded, its sha256
    verified, none left without a source."""
    from anisotropy.inputs import datafiles

    fetched, output = mirrored_data
    declared = datafiles.expected_files()
    assert f"data fetch: {len(declared)} downloaded" in output, output[-2000:]
    assert "0 without a download address" in output
    for relpath, entry in declared.items():
        assert datafiles.sha256_of(fetched / relpath) == entry["sha256"], relpath
