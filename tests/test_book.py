"""The smoke book: pages, figures, glue, cross-references, no network, and a browser look."""

from __future__ import annotations

import functools
import http.server
import os
import re
import shutil
import subprocess
import threading
from html.parser import HTMLParser
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
        "every claim notebook must be declared by a claim package, and vice versa")
    files = _toc_files()
    for slug in runner.available_slugs():
        assert f"notebooks/{slug}" in files
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
        text = (smoke_book / "notebooks" / f"{slug}.html").read_text()
        assert "Provenance" in text and "Profile smoke; commit" in text, slug
        assert "from local files, each sha256 verified" in text, slug
        assert "Profile full" not in text, slug
        # the footer links the executed notebook and its results file, both downloadable
        links = re.findall(r'href="(\.\./_downloads/[^"]+)"', text)
        assert any(link.endswith(f"/{slug}.json") for link in links), slug
        assert any(link.endswith(f"/{slug}.ipynb") for link in links), slug
        for link in links:
            assert (smoke_book / "notebooks" / link).resolve().is_file(), link


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


#: Patterns of broken generated text: (pattern, what it means).
GLITCHES = [
    (r",\s*,", "a doubled comma"),
    (r"\b(?:[\w.-]+-v\d|[\w.-]+-Instruct|[\w.-]+-\d+m), [\w.-]+, (?:is|are)\b",
     "a list of models read as one ('model, model, is')"),
    (r"\bnan\b|\bNaN\b", "a missing number"),
    (r"\{'|\[np\.|array\(|dtype=", "a Python repr"),
    (r"\(\s*\)|\[\s*,|,\s*\]", "an empty glue inside brackets"),
    (r"(?<!arXiv )(?<![\w.:/-])(?:0\.0*[1-9]\d{5,}|[1-9]\d*\.\d{5,})(?![\w.])",
     "an unrounded number (6 or more significant figures)"),
]


class _Reader(HTMLParser):
    """Collects the text of a page outside scripts, styles and code cells (the folded
    inputs a reader opens only on purpose)."""

    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
            "source", "track", "wbr"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip = 0  # depth inside a skipped element

    def handle_starttag(self, tag, attrs):
        if tag in self.VOID:
            return
        classes = (dict(attrs).get("class") or "").split()
        if self.skip or tag in ("script", "style") or "cell_input" in classes:
            self.skip += 1

    def handle_endtag(self, tag):
        if self.skip and tag not in self.VOID:
            self.skip -= 1

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)


def visible_text(html: str) -> str:
    """A page's text as a reader sees it: no scripts, styles or code cells, no tags."""
    reader = _Reader()
    reader.feed(html)
    return re.sub(r"\s+", " ", " ".join(reader.parts).replace("\xa0", " "))


def glitches(html_dir: Path) -> list[str]:
    found = []
    for page in sorted(html_dir.rglob("*.html")):
        if "_static" in page.parts or page.name in ("search.html", "genindex.html"):
            continue
        text = visible_text(page.read_text(encoding="utf-8"))
        for pattern, meaning in GLITCHES:
            for match in re.finditer(pattern, text):
                context = text[max(0, match.start() - 60):match.end() + 60]
                found.append(f"{page.relative_to(html_dir)}: {meaning}: ...{context}...")
        if re.search(r'class="pasted-text">\s*</span>', page.read_text(encoding="utf-8")):
            found.append(f"{page.relative_to(html_dir)}: an empty glued text")
    return found


def test_generated_text_has_no_glitches(smoke_book):
    """Every page's generated sentences, as rendered from this build's results (and from
    the full build's, when one is current in _build/full)."""
    from anisotropy.report.results import load_results

    dirs = [smoke_book]
    full = runner.profile_dir("full")
    if (full / "html" / "book" / "ledger.html").is_file() and list(full.glob("results/*.json")):
        records = load_results(full / "results", "full")
        if not any(record["stale"] for record in records.values()):  # a current full build
            dirs.append(full / "html")
    found = [line for directory in dirs for line in glitches(directory)]
    assert not found, "\n".join(found[:20])


def test_the_glitch_patterns_catch_what_they_name():
    bad = ["The paper's third appendix model, all-mpnet-base-v2, all-distilroberta-v1, is "
           "not among", "held on a, , b", "rho {'rho norm': -0.38}", "measured nan [0.1, 0.2]",
           "measured 0.5 [, 0.2]", "It must stay below 0.5055555555555555, the reason",
           "0.375 [0.366, 0.384] < 0.505556 reproduced", "from 12.345678 to 3"]
    for text in bad:
        assert any(re.search(p, text) for p, _ in GLITCHES), text
    good = ("Of the paper's appendix models, all-mpnet-base-v2 is available here but not in "
            "this run's glue_models; measured −6.40 [−11.1, −1.67] (needs > 0); I(W) 0.000785 "
            "to 0.00299; 1,234,567 tokens; Li et al. (arXiv 2011.05864), arXiv:2103.15316.")
    assert not any(re.search(p, good) for p, _ in GLITCHES)


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
        page = subprocess.run(["chromium", *flags, "--dump-dom", f"{served}/notebooks/{slug}.html"],
                              capture_output=True, text=True, timeout=120).stdout
        assert page.count("<img") >= 2, f"{slug}: figures missing"


READER_FORBIDDEN = re.compile(r"\{'|\[np\.|array\(|dtype=|\bnan\b|\bNaN\b")


def _browser_available() -> bool:
    if shutil.which("chromium"):
        return True
    if os.environ.get("CI") or os.environ.get("ANISOTROPY_REQUIRE_BROWSER"):
        pytest.fail("chromium is required in CI (CI or ANISOTROPY_REQUIRE_BROWSER is set) "
                    "but missing: `sudo apt-get install chromium`.")
    return False


#: The height of the first screen the reader sees (the browser window is 1280 x 800).
FOLD = 800


def test_pages_read_like_a_reader(served):
    """Every page of the smoke book at 1280 px, measured in Chromium as a reader sees it:
    nothing overflows its container, no repr or nan is visible, no output is a bare quoted
    string, every image has alt text, and every claim page has its verdict table and forest
    plot, the verdict matrix and the top of the forest plot above the fold (and the
    introduction its results grid). Full-page screenshots go to the tests' build directory,
    _build/test/smoke/screenshots/."""
    if not _browser_available():
        pytest.skip("chromium not installed: `sudo apt-get install chromium` (Debian's "
                    "package; .ci/run installs it), then rerun make test")
    from browser import Chromium

    shots = runner.profile_dir("smoke") / "screenshots"
    problems = []
    with Chromium(width=1280, height=800) as browser:
        for page in _toc_files():
            browser.open(f"{served}/{page}.html")
            report = browser.report()
            where = f"{page}.html"
            problems += [f"{where}: overflows: {item}" for item in report["overflow"]]
            problems += [f"{where}: a bare quoted output {item}" for item in report["quoted"]]
            problems += [f"{where}: an image without alt text ({item})"
                         for item in report["no_alt"]]
            for match in READER_FORBIDDEN.finditer(report["text"]):
                context = report["text"][max(0, match.start() - 50):match.end() + 50]
                problems.append(f"{where}: shows {match.group(0)!r}: ...{context}...")
            if page.startswith("notebooks/"):
                if not report["verdict_tables"]:
                    problems.append(f"{where}: no verdict table")
                if not any(alt.startswith("Forest plot") for alt in report["alts"]):
                    problems.append(f"{where}: no forest plot")
                # the answer above the fold: the whole verdict matrix, and the forest plot
                # starting, within the first screen
                if (report["matrix_bottom"] or FOLD + 1) > FOLD:
                    problems.append(f"{where}: the verdict matrix ends below the fold "
                                    f"({report['matrix_bottom']} px > {FOLD})")
                if (report["forest_top"] or FOLD + 1) > FOLD:
                    problems.append(f"{where}: the forest plot starts below the fold "
                                    f"({report['forest_top']} px > {FOLD})")
            if page == "book/intro" and (report["grid_top"] or FOLD + 1) > FOLD - 100:
                problems.append(f"{where}: the results grid is not above the fold "
                                f"(its top at {report['grid_top']} px)")
            browser.screenshot(shots / f"{Path(page).name}.png")
            browser.screenshot(shots / f"{Path(page).name}-fold.png", full_page=False)
    assert not problems, "\n".join(problems[:30])
