"""Shared fixtures: smoke runs of the claim notebooks, executed once per session."""

from __future__ import annotations

import json
import os

import pytest

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


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
def smoke_runs():
    """Execute every claim notebook in the smoke profile through `anisotropy run`'s path.

    Returns ``{slug: results dict}``.
    """
    from anisotropy.book import runner

    results = {}
    for slug in runner.available_slugs():
        runner.run(slug, "smoke")
        path = runner.profile_dir("smoke") / "results" / f"{slug}.json"
        results[slug] = json.loads(path.read_text())
    return results


@pytest.fixture(scope="session")
def smoke_book(smoke_runs):
    """Build the HTML book from the smoke runs; returns the html directory."""
    from anisotropy.book import runner

    index = runner.build_book("smoke", run_notebooks=False)
    return index.parent
