"""The full profile's verdicts against tests/expected/full.yaml (`make check-full`).

The test reads a full build's results (``_build/full/results``, written by `make book`);
without them it is skipped, saying so. It never runs the full profile itself: that takes
30 to 60 minutes on 2 cores.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from anisotropy.book.results import load_results
from anisotropy.inputs.data import PROJECT_ROOT

RESULTS = PROJECT_ROOT / "_build" / "full" / "results"
EXPECTED_FILE = Path(__file__).parent / "expected" / "full.yaml"


def test_full_build_verdicts_match_the_recorded_ones():
    if not EXPECTED_FILE.is_file():
        pytest.skip(f"{EXPECTED_FILE.name} is not recorded yet "
                    "(scripts/record_full_verdicts.py after `make book`)")
    if not RESULTS.is_dir() or not list(RESULTS.glob("*.json")):
        pytest.skip(f"no full build in {RESULTS}: `make check-full` builds it, then runs this")
    expected = yaml.safe_load(EXPECTED_FILE.read_text(encoding="utf-8"))
    results = load_results(RESULTS, "full")
    stale = sorted(slug for slug, record in results.items() if record["stale"])
    if stale:
        pytest.skip(f"the full results of {stale} are stale (their inputs changed since they "
                    "ran): `make check-full` rebuilds them")
    assert set(results) == set(expected), "the full build's claims differ from full.yaml's"
    wrong = []
    for slug, record in results.items():
        verdicts = {c["id"]: c["verdict"] for c in record["checks"]}
        assert set(verdicts) == set(expected[slug]["verdicts"]), (
            f"{slug}: the set of checks changed; re-record tests/expected/full.yaml")
        for check_id, verdict in verdicts.items():
            allowed = expected[slug]["verdicts"][check_id]
            allowed = allowed if isinstance(allowed, list) else [allowed]
            if verdict not in allowed:
                wrong.append(f"{slug}: {check_id} is {verdict!r}, expected {allowed}")
    assert not wrong, "\n".join(wrong)
