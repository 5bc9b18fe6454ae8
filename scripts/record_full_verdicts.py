"""Write ``tests/expected/full.yaml`` from a full build's results (``_build/full/results``).

One full build is one run, so the spread of its verdicts on another CPU is estimated, not
seen. A verdict is pinned only where no plausible move of its interval reaches another:

- a ``platform`` check (closed-form, moves with the order of float sums): each interval
  end may move by ``max(0.01 * |end|, 0.001)``, the floor of the smoke bands;
- a ``seed`` check (trained or randomly initialised): each end may move by the width of
  the same check's smoke-profile band for that end (``tests/expected/smoke.yaml``, eight
  seeds with fewer samples than the full profile, so wider than the full profile's seed
  spread). A seed check with no smoke band (a model the smoke profile does not run) accepts
  every graded verdict, and the file says so.

Usage (after ``make book``)::

    .venv/bin/python scripts/record_full_verdicts.py
    .venv/bin/python scripts/record_full_verdicts.py --only 04-cluster-isotropy  # one claim

With ``--only``, only those claims' entries are rewritten (from their full results); the
other claims' entries are kept as the file has them, so a change to one claim is recorded
from a full run of that claim alone.
"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))
sys.path.insert(0, str(ROOT / "scripts"))

from record_smoke_bands import (  # noqa: E402
    GRADED,
    NOT_FROM_THE_INTERVAL,
    reachable_verdicts,
    regraded,
)

from anisotropy.report.checks import load_checks  # noqa: E402
from anisotropy.report.provenance import short_environment  # noqa: E402
from anisotropy.report.results import load_results  # noqa: E402

RESULTS = ROOT / "_build" / "full" / "results"
OUT = ROOT / "tests" / "expected" / "full.yaml"
SMOKE = ROOT / "tests" / "expected" / "smoke.yaml"


def smoke_widths() -> dict[tuple[str, str, int], float]:
    """``{(slug, check id, end): width}`` of the smoke profile's interval-end bands."""
    smoke = yaml.safe_load(SMOKE.read_text()) or {}
    out = {}
    for slug, entry in smoke.items():
        for item in entry.get("bands", []):
            path = item["path"]
            if len(path) == 4 and path[2] == "interval":
                out[(slug, path[1], int(path[3]))] = item["band"][1] - item["band"][0]
    return out


def expected_verdicts(slug: str, record: dict, widths: dict) -> tuple[dict, dict]:
    """The verdicts to expect of one claim, and why a verdict is not pinned."""
    specs = load_checks(slug)
    verdicts, reasons = {}, {}
    for check in record["checks"]:
        spec = specs[check["check"]]
        verdict = regraded(check, spec)
        if verdict not in GRADED or verdict in NOT_FROM_THE_INTERVAL or not check.get(
                "interval"):
            verdicts[check["id"]] = verdict
            continue
        low, high = check["interval"]
        if spec.spread == "platform":
            moves = [max(0.01 * abs(v), 0.001) for v in (low, high)]
        else:
            moves = [widths.get((slug, check["id"], end)) for end in (0, 1)]
        if any(m is None for m in moves):
            verdicts[check["id"]] = [v for v in GRADED if v not in NOT_FROM_THE_INTERVAL]
            reasons[check["id"]] = ("a seed check without a smoke band to size its seed "
                                    "spread: any graded verdict")
            continue
        allowed = reachable_verdicts([low - moves[0], low + moves[0]],
                                     [high - moves[1], high + moves[1]], spec)
        verdicts[check["id"]] = allowed[0] if len(allowed) == 1 else allowed
        if len(allowed) > 1:
            reasons[check["id"]] = (f"{spec.spread} spread: an interval end within "
                                    f"{max(moves):.3g} of the threshold")
    return verdicts, reasons


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", nargs="+", metavar="SLUG",
                        help="rewrite only these claims' entries, keeping the others")
    args = parser.parse_args(argv)
    results = load_results(RESULTS, "full")
    if args.only:
        missing = sorted(set(args.only) - set(results))
        if missing:
            print(f"No full results for {missing} in {RESULTS}: run them first.",
                  file=sys.stderr)
            return 1
        results = {slug: results[slug] for slug in args.only}
    if not results:
        print(f"No full results in {RESULTS}: run `make book` first.", file=sys.stderr)
        return 1
    stale = sorted(slug for slug, record in results.items() if record["stale"])
    if stale:
        print(f"Stale full results (inputs changed since they ran): {stale}; rerun `make "
              "book` first.", file=sys.stderr)
        return 1
    widths = smoke_widths()
    kept = (yaml.safe_load(OUT.read_text()) or {}) if args.only and OUT.is_file() else {}
    document = {slug: entry for slug, entry in kept.items() if slug not in results}
    for slug, record in sorted(results.items()):
        verdicts, reasons = expected_verdicts(slug, record, widths)
        document[slug] = {"environment": short_environment(record.get("environment")),
                          "verdicts": verdicts, "not_pinned": reasons}
    header = ("# Expected verdicts of the full profile, written by\n"
              "# scripts/record_full_verdicts.py from a full run of each claim (its environment\n"
              "# is given per claim; see the script for when a verdict is pinned).\n"
              "# tests/test_full_verdicts.py compares a full build with it: `make check-full`.\n")
    document = dict(sorted(document.items()))
    OUT.write_text(header + yaml.safe_dump(document, sort_keys=False, width=100),
                   encoding="utf-8")
    pinned = sum(isinstance(v, str) for d in document.values() for v in d["verdicts"].values())
    total = sum(len(d["verdicts"]) for d in document.values())
    print(f"wrote {OUT}: {pinned} of {total} verdicts pinned")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
