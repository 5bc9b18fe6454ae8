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
    from anisotropy.inputs.fetch import missing_datasets

    missing = missing_datasets()
    data = ("data: every dataset is in a data root" if not missing else
            f"data: NOT IN ANY DATA ROOT: {', '.join(missing)}; the tests that read them will "
            "fail: run `make data` (anisotropy data fetch --missing), as make test does")
    return [f"disk: {free / 1e9:,.1f} GB free under {folder}, the session needs about "
            f"{SESSION_DISK_BYTES / 1e9:.0f} GB ({verdict})", data]


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


@pytest.fixture(scope="session")
def mirrored_data(tmp_path_factory):
    """Every dataset fetched as a user without ``../shared`` fetches it: ``anisotropy data
    fetch`` runs in a copy of the checkout's tracked files (no ``../shared`` beside it, its
    own ``lib`` first on the path), with the hub unreachable, from a mirror of the data
    folder served over HTTP on 127.0.0.1 by a server this fixture starts and stops. The
    mirror serves the files the data roots hold now, sha256 verified.

    Returns ``(fetched folder, the fetch's output)``; the smoke runs read only that folder.
    """
    import shutil
    import subprocess
    import sys
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from anisotropy.inputs import datafiles

    served = {relpath: datafiles.verify_file(relpath) for relpath in datafiles.expected_files()}

    class Mirror(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's name)
            path = served.get(self.path.lstrip("/"))
            if path is None:
                self.send_error(404)
                return
            body = path.read_bytes()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    base = tmp_path_factory.mktemp("outside-user")
    clone = base / "clone"
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=datafiles.PROJECT_ROOT,
                            capture_output=True, text=True)
    tracked = listed.stdout.split("\0") if listed.returncode == 0 else [  # not a checkout
        str(path.relative_to(datafiles.PROJECT_ROOT))
        for path in datafiles.PROJECT_ROOT.rglob("*")
        if not {".git", ".venv", "_build"} & set(path.relative_to(datafiles.PROJECT_ROOT).parts)]
    for name in filter(None, tracked):
        source = datafiles.PROJECT_ROOT / name
        if source.is_file():
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, clone / name)
    fetched = base / "fetched"
    server = ThreadingHTTPServer(("127.0.0.1", 0), Mirror)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        env = {**os.environ, "PYTHONPATH": str(clone / "lib"), "ANISOTROPY_DATA": str(fetched),
               "ANISOTROPY_DATA_MIRROR": f"http://127.0.0.1:{server.server_port}",
               "ANISOTROPY_NO_SHARED": "1", "HF_HUB_OFFLINE": "1",
               "HF_HOME": str(base / "empty-hf"), "ANISOTROPY_CACHE": str(base / "cache")}
        where = subprocess.run([sys.executable, "-c", "import anisotropy; print(anisotropy"
                                ".__file__)"], cwd=clone, env=env, capture_output=True,
                               text=True, check=True).stdout.strip()
        assert where.startswith(str(clone)), f"the copy imported {where}"
        run = subprocess.run([sys.executable, "-m", "anisotropy", "data", "fetch"], cwd=clone,
                             env=env, capture_output=True, text=True, timeout=600)
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
    assert run.returncode == 0, run.stderr[-3000:]
    return fetched, run.stdout


#: The environment of every smoke run: the data from :func:`mirrored_data`'s folder alone
#: (no other data root, no ``../shared``), the hub unreachable.
def outside_data(fetched) -> dict[str, str]:
    return {"ANISOTROPY_DATA": str(fetched), "ANISOTROPY_NO_SHARED": "1",
            "HF_HUB_OFFLINE": "1"}


#: One BLAS and torch thread per run, as the workflow gives each of its two jobs; the smoke
#: bands (tests/expected/smoke.yaml) were recorded under this perturbation too.
ONE_THREAD = dict.fromkeys(("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"), "1")


#: Set to a folder of results files (``SLUG.json``) to have :func:`smoke_runs` read them
#: instead of running the notebooks (used only by ``scripts/mutate.py``).
SMOKE_RESULTS_ENV = "ANISOTROPY_SMOKE_RESULTS"


def results_from_folder(folder) -> dict[str, dict]:
    """``{slug: results dict}`` of the results files ``SLUG.json`` in ``folder``, for every
    claim that has one (in book order); other files are ignored."""
    from pathlib import Path

    from anisotropy.book import runner

    folder = Path(folder)
    return {slug: json.loads((folder / f"{slug}.json").read_text(encoding="utf-8"))
            for slug in runner.SLUGS if (folder / f"{slug}.json").is_file()}


@pytest.fixture(scope="session")
def smoke_runs(tmp_path_factory, request):
    """Execute every claim notebook in the smoke profile with ``anisotropy run``, two at a
    time on one thread each, in the workflow's order
    (:func:`anisotropy.book.plan.claim_order`, most costly first), sharing one cache as the
    workflow's jobs do. The cache is the session's own, empty at the start, so every forward
    pass is made here, on one thread, whatever the machine's default cache holds. The data
    are those :func:`mirrored_data` fetched, and no other (:func:`outside_data`).

    With ``ANISOTROPY_SMOKE_RESULTS`` set to a folder (used only by ``scripts/mutate.py``,
    which compares a mutated library's smoke runs with the expected files), nothing is run
    or fetched: the results files found there are returned (:func:`results_from_folder`),
    and every test that uses them is skipped when the folder holds none.

    Returns ``{slug: results dict}``.
    """
    import subprocess
    import sys
    from concurrent.futures import ThreadPoolExecutor

    from anisotropy.book import plan, runner

    given = os.environ.get(SMOKE_RESULTS_ENV)
    if given:
        found = results_from_folder(given)
        if not found:
            pytest.skip(f"{SMOKE_RESULTS_ENV}={given} holds no results file (SLUG.json)")
        return found
    mirrored_data = request.getfixturevalue("mirrored_data")
    env = {**os.environ, **ONE_THREAD, **outside_data(mirrored_data[0]),
           "ANISOTROPY_BUILD": str(runner.BUILD_DIR),
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
