"""Results at a glance: the claims x models verdict grid and two sentences per claim.

Written from the results files when the book is built (never recomputed, no number typed):
the introduction includes it, and the ledger opens with the same grid. A cell counts the
graded checks of one claim on one model by verdict and is coloured by the most common one
(Okabe & Ito's colour-blind-safe palette, as light tints under dark text so that the grid
reads in the theme's light and dark modes).
"""

from __future__ import annotations

import html
from collections import Counter
from functools import lru_cache
from pathlib import Path

from anisotropy.book.catalog import PAGES, claims
from anisotropy.book.rows import (
    format_measured,
    graded_by_scope,
    ledger_rows,
    summary_by_model,
)
from anisotropy.report.checks import load_checks
from anisotropy.report.display import threshold_text
from anisotropy.report.plotting import short_name
from anisotropy.report.verdicts import BEYOND, BEYOND_TEXT, GRADED, SYMBOLS

__all__ = ["grid_html", "claim_sentences", "glance_markdown", "write_glance"]

_SYMBOL = SYMBOLS
# tints of Okabe-Ito bluish green, vermillion, orange and reddish purple; grey when nothing
# was graded
_TINT = {"reproduced": "#cdeee3", "not reproduced": "#f8d3bd", "inconclusive": "#fdecc8",
         "sample too small": "#f2dcea", None: "#eeeeee"}
_LIST_MAX = 3  # items named per sentence before "and N more"


def _dominant(tally: Counter) -> str | None:
    """The most common graded verdict of a cell; a tie reads as inconclusive."""
    counts = [(tally[v], v) for v in GRADED if tally[v]]
    if not counts:
        return None
    best = max(n for n, _ in counts)
    leaders = [v for n, v in counts if n == best]
    return leaders[0] if len(leaders) == 1 else "inconclusive"


def _models(rows: list[dict]) -> list[str]:
    """Every model with a graded check anywhere, short names, in order of first appearance
    (a static control model with no graded check gets no column)."""
    seen: dict[str, None] = {}
    for row in rows:
        if row["verdict"] not in GRADED:
            continue
        for model in (row["model"].split(", ") if row["model"] else []):
            seen.setdefault(short_name(model))
    return list(seen)


def _counts(tally: Counter) -> dict[str, int]:
    return {v: tally[v] for v in GRADED if tally[v]}


def grid_html(rows: list[dict], slugs: list[str], href: str = f"../{PAGES}/") -> str:
    """An HTML table, one row per claim (linked to its page at ``href + slug``) and one
    column per model; each cell the count of each graded verdict of that claim's checks on
    that model, with a tooltip that spells them out. Verdicts on a kind of model the paper
    did not study (generalisations) follow the mark :data:`BEYOND` and never colour a
    cell that has a reproduction; a cell of generalisations alone has a dashed border.
    Checks over several models count for each; findings, controls, exemptions and
    "not run" are left out (the ledger lists them).

    Parameters
    ----------
    rows : list of dict
        The ledger's rows (:func:`anisotropy.book.rows.ledger_rows`).
    slugs : list of str
        The claims, one table row each, in this order.
    href : str, optional
        The URL prefix of the claim pages; a row links to ``HREF + SLUG + ".html"``. Default
        ``"../notebooks/"`` (from a page of ``book/``).

    Returns
    -------
    str
        The HTML table, with a caption that is its legend; a model gets a column only when
        some row grades it.
    """
    titles = claims()
    tallies = summary_by_model(rows, "reproduction")
    beyond = summary_by_model(rows, "generalisation")
    models = _models(rows)
    head = "".join(f"<th scope='col'>{html.escape(m)}</th>" for m in models)
    lines = ["<table class='glance-grid'>",
             f"<thead><tr><th scope='col'>claim</th>{head}</tr></thead>", "<tbody>"]
    for slug in slugs:
        title = titles.get(slug, {}).get("title", slug)
        short = titles.get(slug, {}).get("short", slug)
        cells = []
        for model in models:
            own = _counts(tallies.get((slug, model), Counter()))
            other = _counts(beyond.get((slug, model), Counter()))
            if not own and not other:
                cells.append(f"<td style='background:{_TINT[None]};color:#111' "
                             "title='no graded check on this model'>–</td>")
                continue
            verdict = _dominant(Counter(own or other))
            parts = [" ".join(f"{n}&nbsp;{_SYMBOL[v]}" for v, n in own.items())] * bool(own)
            parts += [f"{BEYOND}&nbsp;" + " ".join(f"{n}&nbsp;{_SYMBOL[v]}"
                                                   for v, n in other.items())] * bool(other)
            tip = "; ".join(
                [", ".join(f"{n} {v}" for v, n in own.items())] * bool(own)
                + ["beyond the kinds of model the paper studied: "
                   + ", ".join(f"{n} {v}" for v, n in other.items())] * bool(other))
            border = "" if own else "border:2px dashed #777;"
            cells.append(f"<td style='background:{_TINT[verdict]};{border}color:#111' "
                         f"title='{html.escape(tip)}'>{' · '.join(parts)}</td>")
        lines.append(f"<tr><th scope='row'><a href='{href}{slug}.html' "
                     f"title='{html.escape(title)}'>{html.escape(short)}</a></th>"
                     f"{''.join(cells)}</tr>")
    legend = " ".join(f"{_SYMBOL[v]} {v}" for v in GRADED)
    lines += ["</tbody>", f"<caption>Graded checks per claim and model: {legend}; "
              f"{html.escape(BEYOND_TEXT)}. A cell's colour is its most common verdict on "
              "the kinds of model the paper studied (a dashed cell has none).</caption>",
              "</table>"]
    return "\n".join(lines)


def _named(items: list[str]) -> str:
    shown = "; ".join(items[:_LIST_MAX])
    more = len(items) - _LIST_MAX
    return shown + (f"; and {more} more" if more > 0 else "")


@lru_cache(maxsize=16)
def _labels(slug: str) -> dict[str, str]:
    return {check_id: spec.label for check_id, spec in load_checks(slug).items()}


def _label(row: dict) -> str:
    """The check's short label from ``data/checks.yaml`` (its id if it has none), with the
    task or space it was graded on."""
    label = _labels(row["slug"]).get(row["check"], row["check"])
    return f"{label} ({row['subject']})" if row.get("subject") else label


def _missed(graded: list[dict]) -> list[str]:
    """Each check of ``graded`` that did not hold, with its model, measured value [95%
    interval] and threshold, not reproduced first."""
    missed = []
    for verdict in ("not reproduced", "inconclusive", "sample too small"):
        for row in graded:
            if row["verdict"] != verdict:
                continue
            models = ", ".join(short_name(m) for m in row["model"].split(", ")) \
                if row["model"] else "all models"
            bound = f"needs {threshold_text(row)}" if threshold_text(row) else ""
            note = ", ".join(x for x in (bound, {"inconclusive": "undecided",
                                                 "sample too small": "sample too small"}
                                         .get(verdict, "")) if x)
            missed.append(f"{_label(row)} on {models}: {format_measured(row)}"
                          + (f" ({note})" if note else ""))
    return missed


def _held(graded: list[dict]) -> list[str]:
    by_check: dict[str, list[dict]] = {}
    for row in graded:
        by_check.setdefault(_label(row), []).append(row)
    return [label for label, rs in by_check.items()
            if all(r["verdict"] == "reproduced" for r in rs)]


def claim_sentences(rows: list[dict], slug: str) -> str:
    """A few sentences on one claim. On the kinds of model the paper studied: which checks
    held on every model graded, and which did not (each with its model, measured value
    [95% interval] and threshold) or could not be decided. Beyond them (generalisations):
    how many carried over, and which did not. Empty when the claim has no graded check.

    Parameters
    ----------
    rows : list of dict
        The ledger's rows (:func:`anisotropy.book.rows.ledger_rows`); only those of ``slug``
        are read.
    slug : str
        The claim.

    Returns
    -------
    str
        Plain text (at most three items named per list, then "and N more"), or ``""``.
    """
    own, other = graded_by_scope([r for r in rows if r["slug"] == slug])
    if not own and not other:
        return ""
    sentences = []
    if own:
        held = _held(own)
        n_reproduced = sum(r["verdict"] == "reproduced" for r in own)
        first = (f"Held on every model graded: {_named(held)}" if held
                 else "No check held on every model graded")
        if other:
            first = "On the kinds of model the paper studied: " + first[0].lower() + first[1:]
        sentences.append(first + f" ({n_reproduced} of {len(own)} graded checks "
                         "reproduced).")
        missed = _missed(own)
        sentences.append(f"Not reproduced or undecided: {_named(missed)}." if missed
                         else "Every graded check reproduced.")
    else:
        sentences.append("No model of the kinds the paper studied was graded here.")
    if other:
        n_over = sum(r["verdict"] == "reproduced" for r in other)
        missed = _missed(other)
        sentences.append(f"{BEYOND} Beyond them: {n_over} of {len(other)} graded checks "
                         "carry over" + (f"; not, or undecided: {_named(missed)}."
                                         if missed else "."))
    return " ".join(sentences)


def glance_markdown(rows: list[dict], slugs: list[str], href: str = f"../{PAGES}/") -> str:
    """The grid and, per claim, a linked title with its two sentences (Markdown with one raw
    HTML block).

    Parameters
    ----------
    rows : list of dict
        The ledger's rows (:func:`anisotropy.book.rows.ledger_rows`).
    slugs : list of str
        The claims, in this order.
    href : str, optional
        The URL prefix of the claim pages (:func:`grid_html`); a title links to
        ``HREF + SLUG + ".ipynb"``. Default ``"../notebooks/"``.

    Returns
    -------
    str
        The Markdown, ending with a newline: :func:`grid_html`, then one list item per claim
        with sentences (:func:`claim_sentences`); a one-line note when there are no rows.
    """
    if not rows:
        return "No claim has results in this build yet: run `make book`.\n"
    titles = claims()
    lines = [grid_html(rows, slugs, href), ""]
    for slug in slugs:
        text = claim_sentences(rows, slug)
        if text:
            title = titles.get(slug, {}).get("title", slug)
            lines.append(f"- **[{title}]({href}{slug}.ipynb)** {text}")
    return "\n".join(lines) + "\n"


def write_glance(results_dir: Path, out: Path, slugs: list[str], profile: str | None = None,
                 results: dict[str, dict] | None = None) -> Path:
    """Write :func:`glance_markdown` of the results in ``results_dir`` to ``out`` (the
    introduction includes it).

    Parameters
    ----------
    results_dir : Path
        The build's results directory (``_build/PROFILE/results``).
    out : Path
        The Markdown file to write; its folder is created if needed.
    slugs : list of str
        The claims, in book order.
    profile : str or None, optional
        The book's profile: a results file of another profile raises
        :class:`anisotropy.report.results.ResultsError`; default ``None``: any profile.
    results : dict of str to dict or None, optional
        The records already loaded from ``results_dir``, if the caller has them; default
        ``None``: loaded here.

    Returns
    -------
    Path
        ``out``.
    """
    rows = ledger_rows(results_dir, slugs, profile, results)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(glance_markdown(rows, slugs), encoding="utf-8")
    return out
