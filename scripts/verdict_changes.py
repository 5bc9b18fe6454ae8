"""Every full-profile verdict that changed between two commits: was, now and why.

``tests/expected/full.yaml`` records each full-profile verdict (``check:model`` per claim),
pinned or as the set of verdicts it may take; each re-recording is a commit whose message
says why. This script reads the file at ``--since`` and at ``--until`` (default ``HEAD``),
and for every row whose expectation differs lists the commits in between that changed that
row, each with the clause of its subject that names the check as the reason. A row present
only at one end is shown as added or removed. With ``--results``, a full build's results folder
adds each row's scope (reproduction on a kind of model the source studied, generalisation
on another) as the build graded it.

Usage::

    .venv/bin/python scripts/verdict_changes.py --since 2df0250
    .venv/bin/python scripts/verdict_changes.py --since 2df0250 --results _build/full/results

The table is Markdown, one row per changed verdict, in the file's order.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
FULL = "tests/expected/full.yaml"
#: How a row absent at one end is shown.
ABSENT = "(no row)"


def expectations(text: str) -> dict[tuple[str, str], str]:
    """``{(slug, "check:model"): expectation}`` of one version of ``full.yaml``: a pinned
    verdict as it is, a set of allowed verdicts as ``"any of a, b"`` (sorted)."""
    data = yaml.safe_load(text) or {}
    out = {}
    for slug, entry in data.items():
        for row, expected in ((entry or {}).get("verdicts") or {}).items():
            out[(slug, row)] = ("any of " + ", ".join(sorted(expected))
                                if isinstance(expected, list) else str(expected))
    return out


def _git(*arguments: str) -> str:
    return subprocess.run(["git", *arguments], cwd=ROOT, check=True, capture_output=True,
                          text=True).stdout


def versions(since: str, until: str) -> list[tuple[str, str, str]]:
    """``(commit, subject, text of full.yaml)`` at ``since`` and at every commit after it up
    to ``until`` that changed the file, oldest first."""
    commits = _git("log", "--reverse", "--format=%h%x09%s", f"{since}..{until}", "--",
                   FULL).splitlines()
    out = [(since, "", _git("show", f"{since}:{FULL}"))]
    for line in commits:
        commit, subject = line.split("\t", 1)
        out.append((commit, subject, _git("show", f"{commit}:{FULL}")))
    return out


def reason(subject: str, check: str, limit: int = 200) -> str:
    """The clause of a commit subject that names ``check`` (else the first that names
    ``full.yaml``, else the first), cut to ``limit`` characters."""
    clauses = [c.strip() for c in subject.replace(". ", "; ").split("; ") if c.strip()]
    chosen = next((c for c in clauses if check in c),
                  next((c for c in clauses if "full.yaml" in c), clauses[0] if clauses else ""))
    return chosen if len(chosen) <= limit else chosen[:limit - 1] + "…"


def changes(history: list[tuple[str, str, str]]) -> list[dict]:
    """Each row whose expectation differs between the first and the last version: was,
    now, and the commits that changed it on the way (commit and reason)."""
    states = [(commit, subject, expectations(text)) for commit, subject, text in history]
    first, last = states[0][2], states[-1][2]
    rows = list(last) + [key for key in first if key not in last]
    out = []
    for key in rows:
        was, now = first.get(key, ABSENT), last.get(key, ABSENT)
        if was == now:
            continue
        why = []
        for (_, _, before), (commit, subject, after) in zip(states, states[1:], strict=False):
            if before.get(key, ABSENT) != after.get(key, ABSENT):
                why.append(f"{commit}: {reason(subject, key[1].split(':')[0])}")
        out.append({"claim": key[0], "row": key[1], "was": was, "now": now, "why": why})
    return out


def scopes(results: Path) -> dict[tuple[str, str], str]:
    """``{(slug, "check:model"): scope}`` from a full build's results files."""
    out = {}
    for path in sorted(results.glob("*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        for check in record.get("checks", []):
            if check.get("scope"):
                out[(path.stem, check["id"])] = check["scope"]
    return out


def table(rows: list[dict], scope: dict | None = None) -> str:
    """The Markdown table of :func:`changes`' rows (a Scope column when ``scope`` is
    given)."""
    head = ["Claim", "Check: model", "Was", "Now", *(["Scope"] if scope is not None else []),
            "Why (commit: its clause naming the check)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        cells = [row["claim"], row["row"], row["was"], row["now"]]
        if scope is not None:
            cells.append(scope.get((row["claim"], row["row"]), ""))
        cells.append("<br>".join(row["why"]).replace("|", "\\|"))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--since", required=True, help="the commit whose full.yaml is 'was'")
    parser.add_argument("--until", default="HEAD", help="the commit whose full.yaml is 'now'")
    parser.add_argument("--results", type=Path, help="a full build's results folder, for "
                        "each row's scope")
    args = parser.parse_args(argv)
    rows = changes(versions(args.since, args.until))
    print(table(rows, scopes(args.results) if args.results else None))
    print(f"\n{len(rows)} rows changed between {args.since} and {args.until}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
