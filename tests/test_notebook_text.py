"""What the stored notebooks may hold: no number typed in prose, parseable parameter cells."""

from __future__ import annotations

import re

import nbformat
import pytest

from anisotropy.book.runner import SLUGS
from anisotropy.inputs.data import PROJECT_ROOT

# Decimals, percentages and counts with thousands separators: results, paper values and
# thresholds, which must come from execution or data/references.yaml through glue. The
# interval level (95%) is the book's convention, not a result.
TYPED = re.compile(r"(?<![\w{`.$\\])(\d+\.\d+|\d+(?:\.\d+)?\s?%|\d{1,3}(?:,\d{3})+)(?![\w}])")
# What may hold digits: glue, citations, document links, maths and inline code.
ALLOWED = re.compile(r"\{glue:[a-z]+\}`[^`]*`|\{cite:[a-z]+\}`[^`]*`|\{doc\}`[^`]*`"
                     r"|\$\$.*?\$\$|\$[^$]*\$|`[^`]*`", re.S)


def _notebook(slug: str):
    return nbformat.read(PROJECT_ROOT / "notebooks" / f"{slug}.ipynb", as_version=4)


@pytest.mark.parametrize("slug", SLUGS)
def test_no_number_is_typed_in_markdown(slug):
    typed = []
    for index, cell in enumerate(_notebook(slug).cells):
        if cell.cell_type == "markdown":
            text = ALLOWED.sub("", cell.source)
            typed += [(index, m.group(0)) for m in TYPED.finditer(text) if m.group(0) != "95%"]
    assert not typed, f"{slug}: numbers typed in markdown (glue them): {typed}"


def test_the_typed_number_pattern_catches_what_it_should():
    caught = [m.group(0) for m in TYPED.finditer(ALLOWED.sub(
        "", "r is 0.81, 55% of 10,662 items; {glue:text}`x:.2f` and `k = 0.5` are fine"))]
    assert caught == ["0.81", "55%", "10,662"]


@pytest.mark.parametrize("slug", SLUGS)
def test_parameter_comments_hold_no_equals_sign(slug):
    """papermill reads ``name = value  # comment``; a second '=' in the comment makes it skip
    the line ("Unable to parse line"), and the parameter goes unchecked."""
    cell = next(c for c in _notebook(slug).cells if "parameters" in c.metadata.get("tags", []))
    bad = [line for line in cell.source.splitlines() if "#" in line
           and "=" in line.split("#", 1)[1]]
    assert not bad, f"{slug}: parameter comments with '=': {bad}"


@pytest.mark.parametrize("slug", SLUGS)
def test_a_notebook_is_a_page_not_an_analysis(slug):
    """At most 120 code lines per notebook and 25 per cell (blank lines not counted): the
    claim's module measures and grades, the page calls it."""
    cells = [c for c in _notebook(slug).cells if c.cell_type == "code"]
    sizes = [sum(1 for line in c.source.splitlines() if line.strip()) for c in cells]
    assert sum(sizes) <= 120, f"{slug}: {sum(sizes)} code lines"
    assert max(sizes) <= 25, f"{slug}: a cell of {max(sizes)} lines"


@pytest.mark.parametrize("slug", SLUGS)
def test_every_cell_has_its_own_id(slug):
    """nbformat 4.5 cells carry ids (a missing one is a warning today, an error later)."""
    import json

    cells = json.loads((PROJECT_ROOT / "notebooks" / f"{slug}.ipynb").read_text())["cells"]
    ids = [cell.get("id") for cell in cells]
    missing = [i for i, x in enumerate(ids) if x is None]
    assert not missing, f"{slug}: cells without an id at {missing}"
    assert len(set(ids)) == len(ids), f"{slug}: repeated cell ids"
