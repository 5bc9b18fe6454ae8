"""Launch buttons and badges: one repository address (``_config.yml``), and every Binder and
Colab link opens a notebook that is in the repository."""

from __future__ import annotations

import json
import re
import subprocess
from urllib.parse import unquote

import pytest
import yaml
from project_scripts import load_script

from anisotropy.book import runner

ROOT = runner.PROJECT_ROOT
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
URL = CONFIG["repository"]["url"].rstrip("/")
ORG_REPO = URL.removeprefix("https://github.com/")
BRANCH = CONFIG["repository"]["branch"]
SLUGS = runner.available_slugs()
# a Binder or Colab link to a notebook: the repository it names and the notebook's path
LINK = re.compile(
    r"https://mybinder\.org/v2/gh/(?P<b_repo>[\w.-]+/[\w.-]+)/(?P<b_branch>[\w.-]+)\?urlpath="
    r"(?:lab/tree/|tree/|lab%2Ftree%2F)(?P<b_path>[^\"')\s&]+)"
    r"|https://colab\.research\.google\.com/github/(?P<c_repo>[\w.-]+/[\w.-]+)/blob/"
    r"(?P<c_branch>[\w.-]+)/(?P<c_path>[^\"')\s]+)")


def _tracked() -> set[str]:
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    files = set(listed.stdout.split())
    return files or {str(p.relative_to(ROOT)) for p in (ROOT / "notebooks").glob("*.ipynb")}


def _links(text: str) -> list[tuple[str, str, str]]:
    """``(repository, branch, path)`` of every Binder or Colab link in ``text``."""
    out = []
    for match in LINK.finditer(text):
        kind = "b" if match.group("b_repo") else "c"
        out.append((match.group(f"{kind}_repo"), match.group(f"{kind}_branch"),
                    unquote(match.group(f"{kind}_path"))))
    return out


def test_the_repository_address_is_a_github_url():
    assert re.fullmatch(r"https://github\.com/[\w.-]+/[\w.-]+", URL), URL


COLAB_CELL = ROOT / "notebooks" / "colab_cell.py"


@pytest.mark.parametrize("slug", SLUGS)
def test_the_colab_cell_is_the_one_source_and_clones_the_configured_repository(slug):
    cells = json.loads((ROOT / "notebooks" / f"{slug}.ipynb").read_text())["cells"]
    first = cells[0]
    assert {"remove-cell", "colab"} <= set(first["metadata"].get("tags", []))
    source = "".join(first["source"])
    assert source == COLAB_CELL.read_text(encoding="utf-8").removesuffix("\n"), (
        f"notebooks/{slug}.ipynb's Colab cell differs from notebooks/colab_cell.py, its one "
        "source: run scripts/sync_colab_cell.py")
    assert f'REPOSITORY = "{URL}"' in source, (
        f"notebooks/colab_cell.py clones another repository than _config.yml's {URL}")


def test_the_sync_script_writes_the_cell_into_a_notebook(tmp_path):
    sync = load_script("sync_colab_cell")
    notebook = tmp_path / "01-x.ipynb"
    notebook.write_text(json.dumps({"cells": [{"cell_type": "code", "metadata": {
        "tags": ["remove-cell", "colab"]}, "source": ["old\n", "cell"]}]}, indent=1))
    assert sync.sync(notebook, "new\ncell", write=False)
    assert "old" in notebook.read_text()
    assert sync.sync(notebook, "new\ncell", write=True)
    assert json.loads(notebook.read_text())["cells"][0]["source"] == ["new\n", "cell"]
    assert not sync.sync(notebook, "new\ncell", write=True)
    notebook.write_text(json.dumps({"cells": [{"cell_type": "markdown", "metadata": {},
                                               "source": []}]}))
    with pytest.raises(ValueError, match="not the Colab cell"):
        sync.sync(notebook, "x", write=True)


def test_the_sync_script_covers_every_claim_notebook_and_the_example():
    """The script's list is the six claim notebooks and the example claim's, which the
    recipe copies (a stale example cell would be copied into a new claim)."""
    names = {path.name for path in load_script("sync_colab_cell").notebooks()}
    assert names == {f"{slug}.ipynb" for slug in SLUGS} | {"99-example-claim.ipynb"}


def test_the_colab_branch_clones_installs_and_opens_the_notebooks(monkeypatch):
    """The first cell as Colab runs it, with a stand-in ``google.colab`` module: it clones
    the configured repository once, runs scripts/colab_install.sh (the pinned install,
    tests/test_lock.py) and enters the notebooks; outside Colab it does nothing. Every
    notebook carries it (the test above)."""
    import os
    import sys
    import types

    source = COLAB_CELL.read_text(encoding="utf-8")
    calls, moves = [], []
    monkeypatch.setattr(subprocess, "run", lambda command, check: calls.append(command))
    monkeypatch.setattr(os, "chdir", moves.append)
    monkeypatch.setattr(sys, "path", list(sys.path))
    exec(compile(source, "colab-cell", "exec"), {})  # not on Colab: nothing
    assert calls == [] and moves == []
    monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    monkeypatch.setattr(os.path, "isdir", lambda path: False)
    exec(compile(source, "colab-cell", "exec"), {})
    home = "/content/anisotropy-book"
    assert calls == [["git", "clone", "--depth", "1", URL, home],
                     ["bash", f"{home}/scripts/colab_install.sh"]]
    assert moves == [f"{home}/notebooks"] and sys.path[0] == f"{home}/lib"


def test_readme_badges_use_the_repository_and_open_notebooks_in_the_tree():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    links = _links(readme)
    assert {"mybinder", "colab"} <= {k for k in ("mybinder", "colab") if k in readme}
    assert len(links) >= 2, links
    tracked = _tracked()
    version = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))["version"]
    refs = {ref for _, ref, _ in links}
    assert len(refs) == 1 and refs <= {BRANCH, f"v{version}"}, (
        f"README links {refs}: every badge opens _config.yml's {BRANCH} or the release "
        f"v{version} (make release)")
    for repository, _, path in links:
        assert repository == ORG_REPO, (
            f"README links {repository}; _config.yml says {ORG_REPO}")
        assert path in tracked, f"README opens {path}, which is not in the repository"


def test_a_release_writes_the_verdict_changes_the_version_and_pins_the_badges():
    release = load_script("release")
    before = ("01-x:\n  verdicts:\n    a:m: reproduced\n    b:m: [inconclusive, reproduced]\n"
              "    c:m: finding\n")
    now = ("01-x:\n  verdicts:\n    a:m: not reproduced\n    b:m: [inconclusive, reproduced]\n"
           "    d:m: reproduced\n")
    entry = release.changelog_entry("0.3.0", "2027-01-02", "v0.2.0", before, now)
    assert entry.startswith("## v0.3.0 (2027-01-02)\n")
    assert "against v0.2.0: 3 of 3 changed" in entry
    assert "| 01-x: a:m | reproduced | not reproduced |" in entry
    assert "| 01-x: c:m | finding | (removed) |" in entry
    assert "| 01-x: d:m | (new) | reproduced |" in entry and "b:m" not in entry
    assert "First release: 3 verdicts" in release.changelog_entry("0.1.0", "d", None, None, now)
    citation = release.bump_citation('version: 0.1.0\ndate-released: "2026-11-26"\n', "0.3.0",
                                      "2027-01-02")
    assert citation == 'version: 0.3.0\ndate-released: "2027-01-02"\n'
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    pinned = release.pin_badges(readme, "v0.3.0")
    assert {ref for _, ref, _ in _links(pinned)} == {"v0.3.0"}
    assert pinned.replace("v0.3.0", BRANCH) == readme.replace("v0.3.0", BRANCH)


@pytest.mark.book
@pytest.mark.parametrize("slug", SLUGS)
def test_claim_pages_have_binder_colab_and_download_buttons(slug, smoke_book):
    """Each claim page's Binder and Colab buttons open notebooks/SLUG.ipynb of the
    configured repository and branch, a file in the repository; a download button is
    there too."""
    html = (smoke_book / "notebooks" / f"{slug}.html").read_text(encoding="utf-8")
    links = _links(html.replace("&amp;", "&"))
    kinds = {"binder" if "mybinder" in m.group(0) else "colab"
             for m in LINK.finditer(html.replace("&amp;", "&"))}
    assert kinds == {"binder", "colab"}, f"{slug}: launch buttons found: {sorted(kinds)}"
    tracked = _tracked()
    for repository, branch, path in links:
        assert (repository, branch) == (ORG_REPO, BRANCH)
        assert path == f"notebooks/{slug}.ipynb" and path in tracked, path
    assert "dropdown-download-buttons" in html or "download-ipynb-button" in html \
        or ".ipynb" in re.findall(r'href="([^"]*_sources[^"]*)"', html).__str__(), \
        f"{slug}: no download button"


def test_the_pages_workflow_fetches_the_data_builds_and_publishes_the_full_book():
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "pages.yml").read_text())
    steps = workflow["jobs"]["build"]["steps"]
    commands = [step.get("run", "") for step in steps]
    assert commands.index(".venv/bin/anisotropy data fetch") < commands.index("make book")
    upload = next(s for s in steps if str(s.get("uses", "")).startswith(
        "actions/upload-pages-artifact"))
    assert upload["with"]["path"] == "_build/full/html"
    # the verdicts checked before anything is published; an hour's build never cancelled
    assert commands.index("make check-full") < steps.index(upload)
    assert workflow["concurrency"]["cancel-in-progress"] is False
    assert any("df -h" in command for command in commands[:commands.index("make book")])


def test_a_workflow_runs_the_readme_test_command_on_pushes_and_pull_requests():
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "test.yml").read_text())
    triggers = workflow[True]  # YAML 1.1 reads the key `on` as True
    assert set(triggers) == {"push", "pull_request"}
    steps = workflow["jobs"]["test"]["steps"]
    commands = [step.get("run", "") for step in steps]
    assert "make test" in commands
    assert any("chromium" in command for command in commands[:commands.index("make test")])
    assert workflow["jobs"]["test"]["env"]["ANISOTROPY_REQUIRE_BROWSER"] == "1"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    owner, name = ORG_REPO.split("/")
    assert f"https://{owner}.github.io/{name}/" in readme  # the README links the Pages site


def test_citation_and_licence_name_this_repository():
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert citation["cff-version"] == "1.2.0" and citation["license"] == "MIT"
    assert citation["repository-code"] == URL
    assert len(citation["references"]) == 6  # the five claims' six papers
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")


#: The MIT licence's text below its copyright line (opensource.org, SPDX "MIT"): LICENSE
#: holds that and nothing else, so that licence detectors read it as MIT.
MIT_BODY = """Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
"""


def test_licence_is_the_plain_mit_text():
    head, blank, copyright_line, blank_again, body = (
        (ROOT / "LICENSE").read_text().split("\n", 4))
    assert (head, blank, blank_again) == ("MIT License", "", "")
    assert copyright_line.startswith("Copyright (c)")
    assert body == MIT_BODY, "LICENSE adds to the MIT text: put notes in NOTICE.md"
    assert "NOTICE.md" in (ROOT / "README.md").read_text()
