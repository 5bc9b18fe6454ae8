"""Shared fixtures: smoke runs of the claim notebooks, executed once per session."""

from __future__ import annotations

import json
import os

import pytest

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


@pytest.fixture(scope="session")
def smoke_runs():
    """Execute every claim notebook in the smoke profile through `anisotropy run`'s path.

    Returns ``{slug: results dict}``.
    """
    from anisotropy.book import runner

    results = {}
    for slug in runner.available_slugs():
        runner.run(slug, "smoke")
        path = runner.BUILD_DIR / "results" / f"{slug}.json"
        results[slug] = json.loads(path.read_text())
    return results


@pytest.fixture(scope="session")
def smoke_book(smoke_runs):
    """Build the HTML book from the smoke runs; returns the html directory."""
    from anisotropy.book import runner

    index = runner.build_book("smoke", run_notebooks=False)
    return index.parent
