"""scripts/verdict_changes.py: the rows of tests/expected/full.yaml that changed, with the
commits that changed them."""

from project_scripts import load_script

vc = load_script("verdict_changes")

BEFORE = """\
01-a:
  verdicts:
    mev-low:MiniLM: sample too small
    baseline:MiniLM: reproduced
    gone:MiniLM: finding
"""
MIDDLE = """\
01-a:
  verdicts:
    mev-low:MiniLM: inconclusive
    baseline:MiniLM: reproduced
"""
AFTER = """\
01-a:
  verdicts:
    mev-low:MiniLM:
    - reproduced
    - inconclusive
    baseline:MiniLM: reproduced
    new:MiniLM: finding
"""


def test_expectations_flatten_pinned_and_allowed_verdicts():
    rows = vc.expectations(AFTER)
    assert rows[("01-a", "mev-low:MiniLM")] == "any of inconclusive, reproduced"
    assert rows[("01-a", "baseline:MiniLM")] == "reproduced"


def test_changes_list_each_changed_row_with_every_commit_that_moved_it():
    history = [("base", "", BEFORE),
               ("c1", "Chapter 6 cell ids; full.yaml: mev-low on the published convention", MIDDLE),
               ("c2", "full.yaml: claim 1 re-recorded; new finding added", AFTER)]
    rows = {row["row"]: row for row in vc.changes(history)}
    assert set(rows) == {"mev-low:MiniLM", "new:MiniLM", "gone:MiniLM"}  # baseline unchanged
    mev = rows["mev-low:MiniLM"]
    assert (mev["was"], mev["now"]) == ("sample too small", "any of inconclusive, reproduced")
    # the clause naming the check is the reason given; both commits moved the row
    assert mev["why"] == ["c1: full.yaml: mev-low on the published convention",
                          "c2: full.yaml: claim 1 re-recorded"]
    assert (rows["new:MiniLM"]["was"], rows["gone:MiniLM"]["now"]) == (vc.ABSENT, vc.ABSENT)
    assert rows["gone:MiniLM"]["why"] == ["c1: full.yaml: mev-low on the published convention"]


def test_table_has_a_row_per_change_and_a_scope_column_on_request():
    rows = vc.changes([("base", "", BEFORE), ("c1", "full.yaml: x", AFTER)])
    text = vc.table(rows, {("01-a", "mev-low:MiniLM"): "generalisation"})
    lines = text.splitlines()
    assert lines[0].startswith("| Claim | Check: model | Was | Now | Scope |")
    assert len(lines) == 2 + len(rows)
    assert "| generalisation |" in next(line for line in lines if "mev-low" in line)
    assert all(line.count("|") == lines[0].count("|") for line in lines)  # no stray pipes
