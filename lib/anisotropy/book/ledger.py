"""The claim ledger: a Markdown page generated from the results JSONs, never recomputed."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from anisotropy.book.catalog import PAGES, claims
from anisotropy.book.glance import grid_html
from anisotropy.book.rows import (
    cell,
    decoder_disagreements,
    format_measured,
    graded_by_scope,
    ledger_rows,
)
from anisotropy.inputs.datafiles import sources
from anisotropy.inputs.resolved import short_names
from anisotropy.report.display import BASIS_TEXT, threshold_text
from anisotropy.report.provenance import STALE_TEXT, short_environment
from anisotropy.report.results import load_results
from anisotropy.report.verdicts import BEYOND, GENERALISED, MARKS, mark

__all__ = ["write_ledger", "write_data_files"]

CLAIMS = claims()  # each claim package's DECLARATION
_BADGE = MARKS


def write_ledger(results_dir: Path, out: Path, slugs: list[str],
                 profile: str | None = None, results: dict[str, dict] | None = None) -> Path:
    """Write the ledger page for ``slugs`` from ``results_dir`` into ``out``.

    With ``profile`` (the book's), a results file of another profile raises
    :class:`anisotropy.report.results.ResultsError` naming the file and both profiles.
    ``results`` are the records already loaded from ``results_dir``, if the caller has them
    (each load recomputes every file's inputs digest).

    Parameters
    ----------
    results_dir : Path
        The build's results directory (``_build/PROFILE/results``).
    out : Path
        The Markdown page to write; its folder is created if needed.
    slugs : list of str
        The claims, in book order; a claim without results is named as such.
    profile : str or None, optional
        The book's profile; default ``None``: files of any profile are read.
    results : dict of str to dict or None, optional
        ``{slug: results record}``; default ``None``: loaded from ``results_dir``
        (:func:`anisotropy.report.results.load_results`).

    Returns
    -------
    Path
        ``out``.
    """
    results = load_results(results_dir, profile) if results is None else results
    rows = ledger_rows(results_dir, slugs, profile, results)
    counts = Counter(row["verdict"] for row in rows)
    own, other = graded_by_scope(rows)
    lines = ["# Claim ledger", ""]
    if rows:
        lines += ["## Results at a glance", "", grid_html(rows, slugs), "",
                  "## How to read the ledger", ""]
    lines += [
        "Every row is one check of a published claim for one model, written by its notebook "
        "into `_build/PROFILE/results/SLUG.json` when the book was built; this page only formats "
        "those files. Checks are declared in `data/checks.yaml` before anything is measured: "
        "the paper's statement, its reference values (`data/references.yaml`), the quantity, "
        "and a threshold with its reason from the paper. *Measured* is this build's value "
        "with its 95% interval in brackets (bootstrap over the sampled units, or a "
        "t-interval over seeds for trained parts; each row's method is in the results JSON). "
        "The verdict comes from the interval: **reproduced** when all of it lies on the "
        "paper's side of the threshold, **not reproduced** when all of it lies on the other "
        "side, **inconclusive** when it straddles the threshold. **exempt** and **control** "
        "rows are shown, not graded, for the reason declared with the check; a **finding** "
        "is a measurement the papers make no claim about; **not run** means the data or "
        "model it needs is not available here.",
        "",
        "A verdict on a kind of model the paper did not study (a contrastively tuned "
        "sentence encoder, for a claim made about BERT, GPT-2 and ELMo) is a "
        f"**generalisation**: it is marked {BEYOND}, reads *carries over* or *does not carry "
        "over*, and is counted apart from the reproductions. Each claim's kinds of model "
        "are declared with its checks (`scope` in `data/checks.yaml`).",
        "",
        "Summary: " + ", ".join(f"{counts[v]} {v}" for v in _BADGE if counts[v]) + "."
        + (f" Of the graded verdicts, {len(own)} are reproductions ("
           + ", ".join(f"{n} {v}" for v, n in Counter(r["verdict"] for r in own).items())
           + f") and {len(other)} generalisations ("
           + ", ".join(f"{n} {GENERALISED[v].split(' ', 1)[1]}" for v, n in
                       Counter(r["verdict"] for r in other).items()) + ")."
           if other else ""),
        "",
    ]
    missing = [s for s in slugs if s not in results]
    if missing:
        lines += ["Claims without results in this build: "
                  + ", ".join(f"`{s}`" for s in missing) + ".", ""]
    disagreements = decoder_disagreements(rows, results)
    if disagreements:
        lines += ["## Where the decoders disagree", "",
                  "Checks graded on both decoders (the instruction-tuned SmolLM2 and the "
                  "pretrained Gemma-3, or whichever decoders a build ran) with different "
                  "verdicts. Each is a finding about decoders: the claim holds for one "
                  "checkpoint and not for the other, so neither verdict alone speaks for "
                  "decoders in general.", "",
                  "| claim | check | of | statement | verdicts (measured [95% interval]) |",
                  "|---|---|---|---|---|"]
        for entry in disagreements:
            verdicts = "; ".join(f"{model.split('/')[-1]}: {_BADGE[v]} ({m})"
                                 for model, (v, m) in entry["verdicts"].items())
            claim = CLAIMS[entry["slug"]]["short"] if entry["slug"] in CLAIMS else entry["slug"]
            cells = [claim, entry["check"], entry["subject"], entry["statement"], verdicts]
            lines.append("| " + " | ".join(cell(x) for x in cells) + " |")
        lines.append("")
    for slug in slugs:
        record = results.get(slug)
        if record is None:
            continue
        title = CLAIMS[slug]["title"] if slug in CLAIMS else slug
        lines += [f"## {title}", ""]
        stale = f" **{STALE_TEXT} Rerun it.**" if record["stale"] else ""
        lines += [f"{short_environment(record.get('environment'))}; "
                  f"{record['runtime_s']:.0f} s; notebook "
                  f"{{doc}}`../{PAGES}/{slug}`.{stale}", ""]
        groups: dict[str, list[dict]] = {}
        for check in record["checks"]:
            groups.setdefault(check["check"], []).append(check)
        for checks in groups.values():
            first = checks[0]
            lines += [f"**{first['statement']}** ({first['section']})", ""]
            lines += [f"Paper: {first['paper']} *Source:* {first['source']}", ""]
            lines += [f"Measured: {first['quantity']}.", ""]
            if first.get("studied"):
                lines += [f"Models the paper studied: {first['studied']}.", ""]
            if threshold_text(first):
                basis = BASIS_TEXT.get(first.get("threshold_basis") or "", "")
                lines += [f"Threshold: {threshold_text(first)}"
                          + (f" ({basis})" if basis else "")
                          + f", because {first['threshold_reason']} Rule: "
                          f"{first['tolerance']}.", ""]
            header = ["check", "model", "of", "measured [95% interval]", "verdict", "note"]
            lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
            for check in checks:
                link = (f"{{ref}}`{check['id']} <{check['anchor']}>`" if check["anchor"]
                        else f"{{doc}}`{check['id']} <../{PAGES}/{slug}>`")
                model = short_names(check["model"]) or "all"
                cells = [link, model, check.get("subject", ""), format_measured(check),
                         mark(check["verdict"], check.get("scope", "")),
                         check.get("note", "")]
                lines.append("| " + " | ".join(cell(x) for x in cells) + " |")
            lines.append("")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def write_data_files(out: Path) -> Path:
    """A Markdown table of every dataset (licence, citation, hub copy) and of every data
    file (its source at a fixed commit and its sha256), from ``data/sources.yaml``.
    Nothing is hashed here (the hashes were checked when the notebooks read the files).

    Parameters
    ----------
    out : Path
        The Markdown file to write (its folder must exist).

    Returns
    -------
    Path
        ``out``.
    """
    declared = sources()
    lines = ["| dataset | license | citation | hub copy |", "|---|---|---|---|"]
    for name, info in declared.items():
        hub = info.get("hub")
        copy = f"`{hub['id']}` ({hub['config']}, `{hub['revision']}`)" if hub else "none"
        lines.append(f"| {name} | {cell(info['license'])} | {cell(info['citation'])} | "
                     f"{cell(copy)} |")
    lines += ["", "| file | source repository @ commit | sha256 |", "|---|---|---|"]
    for info in declared.values():
        for path, entry in info["files"].items():
            origin = entry["source"].split(":")[0]
            if "@" in origin:
                repo, commit = origin.split("@", 1)
                origin = f"{repo} @ {commit[:7]}"
            lines.append(f"| `{path}` | {cell(origin)} | `{entry['sha256']}` |")
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out
