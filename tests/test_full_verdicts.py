"""The full profile's verdicts against tests/expected/full.yaml (`make check-full`).

The test reads a full build's results (``_build/full/results``, written by `make book`);
without them it is skipped, saying so. It never runs the full profile itself: that takes
30 to 60 minutes on 2 cores.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from anisotropy.book.expected import (
    compare_verdicts,
    estimates_outside_intervals,
    load_expected,
)
from anisotropy.inputs.data import PROJECT_ROOT
from anisotropy.report.results import load_results

RESULTS = PROJECT_ROOT / "_build" / "full" / "results"
EXPECTED_FILE = Path(__file__).parent / "expected" / "full.yaml"


def test_full_build_verdicts_match_the_recorded_ones():
    if not EXPECTED_FILE.is_file():
        pytest.skip(f"{EXPECTED_FILE.name} is not recorded yet "
                    "(scripts/record_full_verdicts.py after `make book`)")
    if not RESULTS.is_dir() or not list(RESULTS.glob("*.json")):
        pytest.skip(f"no full build in {RESULTS}: `make check-full` builds it, then runs this")
    expected = load_expected(EXPECTED_FILE)
    results = load_results(RESULTS, "full")
    stale = sorted(slug for slug, record in results.items() if record["stale"])
    if stale:
        pytest.skip(f"the full results of {stale} are stale (their inputs changed since they "
                    "ran): `make check-full` rebuilds them")
    assert set(results) == set(expected), "the full build's claims differ from full.yaml's"
    _, differences = compare_verdicts(results, expected)
    assert not differences, "\n".join(d.line() for d in differences)
    outside = estimates_outside_intervals(results)
    assert not outside, "intervals that leave out their own estimate:\n" + "\n".join(outside)


def _records(**verdicts):
    return {"01-x": {"checks": [{"id": k.replace("_", "-"), "verdict": v}
                                for k, v in verdicts.items()], "stale": False}}


def test_the_comparison_names_every_verdict_that_moved(tmp_path):
    from anisotropy.book.expected import report

    recorded = tmp_path / "full.yaml"
    recorded.write_text("01-x:\n  verdicts:\n    a: reproduced\n"
                        "    b: [inconclusive, reproduced]\n    c: finding\n")
    expected = load_expected(recorded)
    assert expected == {"01-x": {"a": ("reproduced",), "b": ("inconclusive", "reproduced"),
                                 "c": ("finding",)}}
    same = _records(a="reproduced", b="inconclusive", c="finding")
    assert compare_verdicts(same, expected) == (3, [])
    moved = _records(a="not reproduced", b="reproduced", d="finding")
    compared, differences = compare_verdicts(moved, expected)
    assert compared == 4
    lines = [d.line() for d in differences]
    assert lines == ["01-x: a is 'not reproduced', recorded 'reproduced'",
                     "01-x: c is recorded (finding) but the build has no such check",
                     "01-x: d is 'finding', a check the recording does not have"]
    text, count = report(moved, recorded)
    assert count == 3 and "1 of 4 as recorded" in text and lines[0] in text
    text, count = report(same, tmp_path / "absent.yaml")
    assert count == 0 and "No recorded verdicts" in text


def test_the_verdicts_command_prints_the_comparison_and_fails_only_when_strict(
        tmp_path, monkeypatch, capsys):
    import json

    from anisotropy import __main__ as cli

    results = tmp_path / "results"
    results.mkdir()
    (results / "01-x.json").write_text(json.dumps(
        {"claim": "01-x", "profile": "full", "checks": [{"id": "a", "verdict": "reproduced"}]}))
    recorded = tmp_path / "full.yaml"
    recorded.write_text("01-x:\n  verdicts:\n    a: not reproduced\n")
    monkeypatch.setattr(cli, "expected_file", lambda profile: recorded)
    assert cli.main(["verdicts", "--results", str(results)]) == 0
    out = capsys.readouterr().out
    assert "0 of 1 as recorded" in out and "a is 'reproduced', recorded 'not reproduced'" in out
    assert cli.main(["verdicts", "--results", str(results), "--strict"]) == 1
    assert cli.main(["verdicts", "--results", str(tmp_path / "none")]) == 1


def test_an_interval_that_leaves_out_its_estimate_is_named():
    results = {"06-x": {"checks": [
        {"id": "a:m", "measured": 0.177, "interval": [0.137, 0.168], "interval_method": "p"},
        {"id": "b:m", "measured": 0.15, "interval": [0.137, 0.168]},
        {"id": "c:m", "measured": {"x": 1.0}, "interval": None}]}}
    assert estimates_outside_intervals(results) == [
        "06-x: a:m: measured 0.177 outside [0.137, 0.168] (p)"]
