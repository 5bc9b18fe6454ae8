"""Shared fixtures: smoke runs of the claim notebooks, executed once per session."""

from __future__ import annotations

import json
import os

import pytest

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


#: The most disk one test session wrote beside its environment, in bytes: the smoke runs'
#: and the workflow test's caches, measured at 5 GB (CI, November 2026), plus margin.
SESSION_DISK_BYTES = 6 * 10**9


def pytest_report_header(config) -> str:
    """Free disk where the session writes, first in the log: a full disk otherwise shows
    only as errors in every test that makes a temporary folder."""
    import shutil
    import tempfile

    folder = tempfile.gettempdir()
    free = shutil.disk_usage(folder).free
    verdict = "enough" if free >= SESSION_DISK_BYTES else "TOO LITTLE: tests will fail"
    return (f"disk: {free / 1e9:,.1f} GB free under {folder}, the session needs about "
            f"{SESSION_DISK_BYTES / 1e9:.0f} GB ({verdict})")


@pytest.fixture
def free_disk(monkeypatch):
    """``free_disk(n)``: from then on the cache's ``shutil.disk_usage`` reports ``n`` bytes
    free, whatever the folder."""
    from types import SimpleNamespace

    from anisotropy.inputs import cache

    def report(free: int) -> None:
        monkeypatch.setattr(cache.shutil, "disk_usage", lambda path: SimpleNamespace(
            total=10**12, used=10**12 - free, free=free))

    return report


@pytest.fixture(scope="session", autouse=True)
def test_build_dir():
    """The tests build under ``_build/test/PROFILE`` (or a temporary directory of their
    own), never in a profile's ``_build/PROFILE`` that `make book` publishes."""
    from anisotropy.book import runner

    before = runner.BUILD_DIR
    runner.BUILD_DIR = runner.PROJECT_ROOT / "_build" / "test"
    yield runner.BUILD_DIR
    runner.BUILD_DIR = before


#: One BLAS and torch thread per run, as the workflow gives each of its two jobs; the smoke
#: bands (tests/expected/smoke.yaml) were recorded under this perturbation too.
ONE_THREAD = dict.fromkeys(("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"), "1")


@pytest.fixture(scope="session")
def smoke_runs(tmp_path_factory):
    """Execute every claim notebook in the smoke profile with ``anisotropy run``, two at a
    time on one thread each, in the workflow's order
    (:func:`anisotropy.book.plan.claim_order`, most costly first), sharing one cache as the
    workflow's jobs do. The cache is the session's own, empty at the start, so every forward
    pass is made here, on one thread, whatever the machine's default cache holds.

    Returns ``{slug: results dict}``.
    """
    import subprocess
    import sys
    from concurrent.futures import ThreadPoolExecutor

    from anisotropy.book import plan, runner

    env = {**os.environ, **ONE_THREAD, "ANISOTROPY_BUILD": str(runner.BUILD_DIR),
           "ANISOTROPY_CACHE": str(tmp_path_factory.mktemp("smoke-cache"))}

    def one(slug: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "anisotropy", "run", slug, "--profile",
                               "smoke"], env=env, capture_output=True, text=True)

    slugs = plan.claim_order(runner.available_slugs())
    with ThreadPoolExecutor(max_workers=2) as pool:
        runs = dict(zip(slugs, pool.map(one, slugs), strict=True))
    failed = {slug: run.stderr[-2000:] for slug, run in runs.items() if run.returncode}
    assert not failed, failed
    results = {}
    for slug in runner.available_slugs():
        path = runner.profile_dir("smoke") / "results" / f"{slug}.json"
        results[slug] = json.loads(path.read_text())
    return results


@pytest.fixture(scope="session")
def smoke_book(smoke_runs):
    """Build the HTML book from the smoke runs; returns the html directory."""
    from anisotropy.book import runner

    index = runner.build_book("smoke", run_notebooks=False)
    return index.parent
