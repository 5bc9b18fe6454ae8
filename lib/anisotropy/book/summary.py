"""The end-of-run summary: one row per claim from its results file."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pandas as pd

from anisotropy.report.results import VERDICTS

__all__ = ["summary_table", "format_summary"]


def summary_table(results_dir: str | Path, slugs: list[str] | None = None) -> pd.DataFrame:
    """Claim, profile, runtime, cache hits and misses (summed over cache kinds) and the
    count of each verdict, for every ``SLUG.json`` in ``results_dir`` (or the given slugs;
    a missing file is a row saying so).

    Parameters
    ----------
    results_dir : str or Path
        A directory of results files (``_build/PROFILE/results``).
    slugs : list of str or None, optional
        The claims to show, in this order; default ``None``: every ``*.json`` of the
        directory, in name order.

    Returns
    -------
    pandas.DataFrame
        One row per claim: ``claim``, ``profile`` (``"missing"`` without a file),
        ``runtime_s``, ``cache_hits``, ``cache_misses``, ``forward_s`` (the seconds spent
        building cache entries) and one column per verdict of
        :data:`anisotropy.report.results.VERDICTS`.
    """
    results_dir = Path(results_dir)
    paths = ([results_dir / f"{slug}.json" for slug in slugs] if slugs is not None
             else sorted(results_dir.glob("*.json")))
    rows = []
    for path in paths:
        row = {"claim": path.stem}
        if not path.is_file():
            rows.append({**row, "profile": "missing"})
            continue
        result = json.loads(path.read_text(encoding="utf-8"))
        cache = result.get("cache") or {}
        verdicts = Counter(check.get("verdict") for check in result.get("checks", []))
        rows.append({**row, "profile": result.get("profile"),
                     "runtime_s": result.get("runtime_s"),
                     "cache_hits": sum(kind.get("hits", 0) for kind in cache.values()),
                     "cache_misses": sum(kind.get("misses", 0) for kind in cache.values()),
                     "forward_s": round(sum(kind.get("build_s", 0.0)
                                            for kind in cache.values()), 1),
                     **{verdict: verdicts.get(verdict, 0) for verdict in VERDICTS}})
    return pd.DataFrame(rows)


def format_summary(table: pd.DataFrame) -> str:
    """The table as text, with a total row for runtime, cache and verdict counts.

    Parameters
    ----------
    table : pandas.DataFrame
        A :func:`summary_table`.

    Returns
    -------
    str
        The table and a ``total`` row (every column but ``claim`` and ``profile`` summed),
        numbers in ``:g`` format and blanks for missing values; ``"no results"`` for an
        empty table.
    """
    if table.empty:
        return "no results"
    numeric = [c for c in table.columns if c not in ("claim", "profile")]
    total = table[numeric].apply(pd.to_numeric, errors="coerce").sum()
    shown = pd.concat([table, pd.DataFrame([{"claim": "total", "profile": "",
                                             **total.to_dict()}])], ignore_index=True)
    for column in numeric:
        shown[column] = pd.to_numeric(shown[column], errors="coerce")
        shown[column] = shown[column].map(lambda v: "" if pd.isna(v) else f"{v:g}")
    return shown.to_string(index=False)
