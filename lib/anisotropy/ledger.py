"""The claim ledger: a Markdown page generated from the results JSONs, never recomputed."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from .results import load_results

__all__ = ["ledger_rows", "write_ledger", "format_value"]

_CLAIM_TITLES = {
    "01-layerwise-anisotropy": "1. Layerwise anisotropy (Ethayarajh 2019)",
    "02-clusters-manifolds": "2. Clusters and manifolds (Cai et al. 2021)",
    "03-frequency-bias": "3. Frequency bias and calibration (Li et al. 2020; Su et al. 2021)",
    "04-cluster-isotropy": "4. Cluster-based isotropy (Rajaee & Pilehvar 2021)",
    "05-isotropy-vs-clusters": "5. Isotropy vs clusters (Mickus et al. 2024)",
}
_BADGE = {"reproduced": "✓ reproduced", "not reproduced": "✗ not reproduced",
          "partly": "◐ partly", "finding": "• finding", "not run": "– not run"}


def format_value(value) -> str:
    """Compact text for a measured value (numbers to 3 significant digits)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3g}"
    if isinstance(value, dict):
        return "; ".join(f"{k}: {format_value(v)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(format_value(v) for v in value)
    return "" if value is None else str(value)


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def ledger_rows(results_dir: Path, slugs: list[str]) -> list[dict]:
    """One dict per check across all claims, in claim order."""
    results = load_results(results_dir)
    rows = []
    for slug in slugs:
        record = results.get(slug)
        if record is None:
            continue
        for check in record["checks"]:
            rows.append({"slug": slug, "profile": record["profile"], "stale": record["stale"],
                         "library_version": record["library_version"], **check})
    return rows


def write_ledger(results_dir: Path, out: Path, slugs: list[str]) -> Path:
    """Write the ledger page for ``slugs`` from ``results_dir`` into ``out``."""
    results = load_results(results_dir)
    rows = ledger_rows(results_dir, slugs)
    counts = Counter(row["verdict"] for row in rows)
    lines = [
        "# Claim ledger",
        "",
        "Every row is one check of a published claim, written by its notebook into "
        "`_build/results/SLUG.json` when the book was built; this page only formats those "
        "files. *Paper* gives the published number or direction with its source; *measured* "
        "is this build's value for the model named. A check marked **finding** is recorded, "
        "not asserted; **not run** means the data or model it needs is not available here.",
        "",
        "Summary: " + ", ".join(f"{counts[v]} {v}" for v in _BADGE if counts[v]) + ".",
        "",
    ]
    missing = [s for s in slugs if s not in results]
    if missing:
        lines += ["Claims without results in this build: "
                  + ", ".join(f"`{s}`" for s in missing) + ".", ""]
    for slug in slugs:
        record = results.get(slug)
        if record is None:
            continue
        title = _CLAIM_TITLES.get(slug, slug)
        lines += [f"## {title}", ""]
        stale = " **stale: written by library version " + record["library_version"] + \
            "; rerun it.**" if record["stale"] else ""
        lines += [f"Profile `{record['profile']}`, {record['runtime_s']:.0f} s, notebook "
                  f"{{doc}}`../claims/{slug}`.{stale}", ""]
        groups: dict[str, list[dict]] = {}
        for check in record["checks"]:
            groups.setdefault(check["statement"], []).append(check)
        for statement, checks in groups.items():
            papers = {c["paper"] for c in checks}
            tolerances = {c["tolerance"] for c in checks}
            lines += [f"**{statement}**", ""]
            if len(papers) == 1:
                lines += [f"Paper: {next(iter(papers))}.", ""]
            if len(tolerances) == 1:
                lines += [f"Tolerance: {next(iter(tolerances))}.", ""]
            header = ["check", "model"] + (["paper"] if len(papers) > 1 else []) + \
                ["measured"] + (["tolerance"] if len(tolerances) > 1 else []) + ["verdict"]
            lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
            for check in checks:
                link = (f"{{ref}}`{check['id']} <{check['section']}>`" if check["section"]
                        else f"{{doc}}`{check['id']} <../claims/{slug}>`")
                model = ", ".join(m.split("/")[-1] for m in check["model"].split(", ")) \
                    if check["model"] else "all"
                cells = [link, model] + ([check["paper"]] if len(papers) > 1 else []) + \
                    [format_value(check["measured"])] + \
                    ([check["tolerance"]] if len(tolerances) > 1 else []) + \
                    [_BADGE[check["verdict"]]]
                lines.append("| " + " | ".join(_cell(x) for x in cells) + " |")
            lines.append("")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def write_data_files(out: Path) -> Path:
    """A Markdown table of every data file: dataset, source, license, and its sha256.

    Read from ``data/sha256.json`` and the manifest beside the data root; nothing is hashed
    here (the hashes were checked when the notebooks read the files).
    """
    import json  # noqa: PLC0415

    from .data import EXPECTED_SHA256_FILE, data_root  # noqa: PLC0415

    expected = json.loads(EXPECTED_SHA256_FILE.read_text())["files"]
    manifest_path = data_root() / "MANIFEST.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.is_file() else {}
    datasets = manifest.get("datasets", {})
    sources = {f["path"]: f for f in manifest.get("files", [])}
    lines = ["| dataset | license | citation |", "|---|---|---|"]
    for name, info in datasets.items():
        lines.append(f"| {name} | {_cell(info.get('license', ''))} | "
                     f"{_cell(info.get('citation', ''))} |")
    lines += ["", "| file | source repository @ commit | sha256 |", "|---|---|---|"]
    for path, info in expected.items():
        source = sources.get(path, {})
        origin = (f"{source.get('source_repo', '?')} @ {source.get('source_commit', '?')[:7]}"
                  if source else "")
        lines.append(f"| `{path}` | {_cell(origin)} | `{info['sha256']}` |")
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out
