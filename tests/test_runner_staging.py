"""Book sources: an executed claim notebook shows the parameters that ran, once; a claim's
package may bring its own bibliography."""

from __future__ import annotations

import nbformat
import yaml

from anisotropy.book import runner


def test_injected_parameters_cell_is_removed_from_the_page(tmp_path):
    notebook = nbformat.v4.new_notebook()
    parameters = nbformat.v4.new_code_cell("profile = 'full'\nn = 10")
    parameters.metadata["tags"] = ["parameters"]
    injected = nbformat.v4.new_code_cell("# Parameters\nprofile = 'smoke'\nn = 2\n")
    injected.metadata["tags"] = ["injected-parameters"]
    hidden_input = nbformat.v4.new_code_cell("x = n")
    hidden_input.metadata["tags"] = ["hide-input"]
    analysis = nbformat.v4.new_code_cell("y = x + 1")
    notebook.cells = [nbformat.v4.new_markdown_cell("# Claim"), parameters, injected,
                      hidden_input, analysis]
    executed = tmp_path / "executed.ipynb"
    nbformat.write(notebook, executed)
    before = executed.read_bytes()

    staged = runner.stage_claim_notebook(executed, tmp_path / "claims.ipynb")

    tags = [cell.metadata.get("tags", []) for cell in nbformat.read(staged, as_version=4).cells]
    assert tags == [[], ["parameters", "remove-cell"], ["injected-parameters"], ["hide-input"],
                    ["hide-input"]]  # every code cell is folded behind "show code"
    assert executed.read_bytes() == before  # the executed notebook is left intact
    # staging twice does not repeat the tag
    again = runner.stage_claim_notebook(staged, tmp_path / "again.ipynb")
    assert nbformat.read(again, as_version=4).cells[1].metadata["tags"] == [
        "parameters", "remove-cell"]


def test_parameters_cell_stays_when_nothing_was_injected(tmp_path):
    notebook = nbformat.v4.new_notebook()
    parameters = nbformat.v4.new_code_cell("n = 10")
    parameters.metadata["tags"] = ["parameters"]
    notebook.cells = [parameters]
    nbformat.write(notebook, tmp_path / "executed.ipynb")
    staged = runner.stage_claim_notebook(tmp_path / "executed.ipynb", tmp_path / "c.ipynb")
    assert nbformat.read(staged, as_version=4).cells[0].metadata["tags"] == ["parameters"]


def test_a_claim_package_may_hold_its_own_bibliography(tmp_path):
    """A claim package's references.bib is found and staged beside book/references.bib, so
    a claim that cites a new paper edits no shared file."""
    for name, bib in (("alpha", True), ("beta", False), ("gamma", True)):
        (tmp_path / name).mkdir()
        if bib:
            (tmp_path / name / "references.bib").write_text("@misc{x,title={X}}\n")
    found = runner.claim_bibliographies(tmp_path)
    assert [path.parent.name for path in found] == ["alpha", "gamma"]
    config = yaml.safe_load(runner._stage_config(tmp_path / "_config.yml", "smoke",
                                                 ["book/alpha.bib"]).read_text())
    assert config["bibtex_bibfiles"] == ["book/references.bib", "book/alpha.bib"]
    # today no claim package holds one: every page's citations are in book/references.bib
    assert runner.claim_bibliographies() == []
