"""The smoke book: pages, figures, glue, cross-references, no network, and a browser look."""

from __future__ import annotations

import functools
import http.server
import re
import shutil
import subprocess
import threading
from pathlib import Path

import pytest
import yaml

from anisotropy.book import catalog, runner

pytestmark = pytest.mark.book
ROOT = Path(__file__).resolve().parents[1]


def _toc_files():
    """The pages of the book's table of contents as `anisotropy book` writes it."""
    toc = catalog.toc_with_claims(yaml.safe_load((ROOT / "_toc.yml").read_text()),
                                  runner.available_slugs())
    files = [toc["root"]]
    for part in toc.get("parts", []):
        files += [chapter["file"] for chapter in part.get("chapters", [])]
    return files


def test_toc_lists_every_claim_notebook_and_page():
    notebooks = sorted(p.stem for p in (ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))
    assert runner.available_slugs() == list(runner.SLUGS) == notebooks, (
        "every claim notebook must be declared in notebooks/claims.yaml, and vice versa")
    files = _toc_files()
    for slug in runner.available_slugs():
        assert f"claims/{slug}" in files
    for page in files:
        if page.startswith("book/") and page != "book/ledger":
            assert (ROOT / f"{page}.md").is_file(), page


def test_every_toc_page_was_built(smoke_book):
    for page in _toc_files():
        assert (smoke_book / f"{page}.html").is_file(), page


def test_every_page_says_its_profile(smoke_book, smoke_runs):
    """The footer of every page names the profile it was built from, and each claim page
    ends with its provenance line (commit, date, CPU, torch)."""
    for page in _toc_files():
        text = (smoke_book / f"{page}.html").read_text()
        assert "Profile smoke; built" in text, page
    for slug in runner.available_slugs():
        text = (smoke_book / "claims" / f"{slug}.html").read_text()
        assert "Provenance" in text and "Profile smoke; commit" in text, slug
        assert "Profile full" not in text, slug


def test_figures_are_non_empty(smoke_book):
    images = list((smoke_book / "_images").glob("*.png"))
    assert len(images) >= 2 * len(runner.available_slugs())
    assert all(image.stat().st_size > 5000 for image in images)


def test_no_unresolved_glue_or_references(smoke_book):
    log = (runner.profile_dir("smoke") / "book-build.log").read_text()
    assert "WARNING" not in log
    for page in smoke_book.rglob("*.html"):
        text = page.read_text()
        assert "{glue:" not in text and "glue:text" not in text, page
        assert "problematic" not in text and "{ref}`" not in text and "{doc}`" not in text, page


def test_no_external_scripts_styles_or_images(smoke_book):
    pattern = re.compile(r"""<(?:script|img|iframe)[^>]*\bsrc=["']https?://|"""
                         r"""<link[^>]*\bhref=["']https?://[^"']*\.(?:css|js|woff2?)""")
    for page in smoke_book.rglob("*.html"):
        assert not pattern.search(page.read_text()), page
    for sheet in smoke_book.rglob("*.css"):
        assert not re.search(r"url\(\s*['\"]?https?://", sheet.read_text(errors="ignore")), sheet
    assert (smoke_book / "_static" / "mathjax" / "tex-mml-chtml.js").is_file()


def test_ledger_lists_every_check(smoke_book, smoke_runs):
    ledger = (smoke_book / "book" / "ledger.html").read_text()
    for record in smoke_runs.values():
        for check in record["checks"]:
            assert check["id"] in ledger, check["id"]


@pytest.fixture
def served(smoke_book):
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(smoke_book))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium not installed "
                    "(.ci/run installs it)")
def test_ledger_renders_in_headless_chromium(served, tmp_path):
    shots = runner.profile_dir("smoke") / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1400,2400"]
    url = f"{served}/book/ledger.html"
    dom = subprocess.run(["chromium", *flags, "--dump-dom", url], capture_output=True,
                         text=True, timeout=120).stdout
    assert dom.count("<tr") >= 5, "the ledger table did not render"
    assert "reproduced" in dom
    screenshot = shots / "ledger.png"
    subprocess.run(["chromium", *flags, f"--screenshot={screenshot}", url],
                   capture_output=True, timeout=120)
    assert screenshot.is_file() and screenshot.stat().st_size > 20000
    from PIL import Image

    pixels = Image.open(screenshot).convert("L")
    low, high = pixels.getextrema()
    assert high - low > 100, "the screenshot is blank"
    for slug in runner.available_slugs():
        page = subprocess.run(["chromium", *flags, "--dump-dom", f"{served}/claims/{slug}.html"],
                              capture_output=True, text=True, timeout=120).stdout
        assert page.count("<img") >= 2, f"{slug}: figures missing"
