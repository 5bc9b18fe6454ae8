"""The ledger's rows: one per check of a claim and a model, read from the results JSONs,
with the texts a table shows of their measured values. The ledger page
(:mod:`anisotropy.book.ledger`) and the grid at a glance (:mod:`anisotropy.book.glance`)
both format these rows."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from anisotropy.inputs.resolved import short_names
from anisotropy.report.display import interval_text, sig
from anisotropy.report.results import load_results
from anisotropy.report.verdicts import GRADED as _GRADED

__all__ = ["ledger_rows", "format_value", "format_measured", "summary_by_model",
           "graded_by_scope",
           "decoder_disagreements", "cell"]


def format_value(value) -> str:
    """Compact text for a measured value: :func:`anisotropy.report.display.sig` (3
    significant figures), a dict as ``key: value`` pairs, nothing for None.

    Parameters
    ----------
    value : Any
        A measured value: a number, None, a dict or a list (each item formatted the same
        way), or anything :func:`~anisotropy.report.display.sig` shows.

    Returns
    -------
    str
        The text; a dict's pairs are joined with ``"; "``, a list's items with ``", "``.
    """
    if value is None:
        return ""
    if isinstance(value, dict):
        return "; ".join(f"{k}: {format_value(v)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(format_value(v) for v in value)
    return sig(value)


def format_measured(check: dict) -> str:
    """``0.123 [0.101, 0.145]``: the measured value with its 95% interval.

    Parameters
    ----------
    check : dict
        A check record (a results file's dict, or a ledger row).

    Returns
    -------
    str
        :func:`format_value` of ``measured``, then the interval when the record has one.
    """
    text = format_value(check.get("measured"))
    if check.get("interval"):
        text += f" {interval_text(check['interval'])}"
    return text


def cell(text: str) -> str:
    """A Markdown table cell: pipes escaped, one line.

    Parameters
    ----------
    text : str
        The cell's content (anything else is turned into text with ``str``).

    Returns
    -------
    str
        The text with each ``|`` preceded by a backslash and newlines as spaces.
    """
    return str(text).replace("|", "\\|").replace("\n", " ")


def ledger_rows(results_dir: Path, slugs: list[str], profile: str | None = None,
                results: dict[str, dict] | None = None) -> list[dict]:
    """One dict per check across all claims, in claim order (with ``profile``, a results
    file of another profile is refused: :func:`anisotropy.report.results.load_results`).
    ``results`` are the records already loaded from ``results_dir``, if the caller has
    them.

    Parameters
    ----------
    results_dir : Path
        The build's results directory (``_build/PROFILE/results``).
    slugs : list of str
        The claims, in book order; a claim without results gives no rows.
    profile : str or None, optional
        The book's profile; default ``None``: files of any profile are read.
    results : dict of str to dict or None, optional
        ``{slug: results record}``; default ``None``: loaded from ``results_dir``.

    Returns
    -------
    list of dict
        Each check record of the results, with its claim's ``slug``, ``profile``,
        ``stale`` and ``library_version`` added.

    Raises
    ------
    anisotropy.report.results.ResultsError
        With ``profile``, for a results file of another profile, or a file that is not a
        results record.
    """
    results = load_results(results_dir, profile) if results is None else results
    rows = []
    for slug in slugs:
        record = results.get(slug)
        if record is None:
            continue
        for check in record["checks"]:
            rows.append({"slug": slug, "profile": record["profile"], "stale": record["stale"],
                         "library_version": record["library_version"], **check})
    return rows


def graded_by_scope(rows: list[dict]) -> tuple[list[dict], list[dict]]:
    """The graded records of ``rows`` as ``(reproductions, generalisations)``: on a kind of
    model the source studied, and on another (``scope: generalisation``; a record written
    before scopes counts as a reproduction).

    Parameters
    ----------
    rows : list of dict
        Ledger rows or check records.

    Returns
    -------
    tuple of (list of dict, list of dict)
        The rows with a graded verdict (:data:`anisotropy.report.verdicts.GRADED`), split by
        scope, each in the order given.
    """
    graded = [row for row in rows if row["verdict"] in _GRADED]
    return ([row for row in graded if row.get("scope") != "generalisation"],
            [row for row in graded if row.get("scope") == "generalisation"])


def summary_by_model(rows: list[dict], scope: str | None = None
                     ) -> dict[tuple[str, str], Counter]:
    """``{(slug, model): Counter(verdict)}``: the claim x model summary; with ``scope``
    (``reproduction`` or ``generalisation``), of the records of that scope only (a record
    without one, not graded or written before scopes, counts as a reproduction).

    Parameters
    ----------
    rows : list of dict
        The ledger's rows (:func:`ledger_rows`), each with its ``slug``.
    scope : str or None, optional
        ``"reproduction"`` or ``"generalisation"``; default ``None``: every record.

    Returns
    -------
    dict of (str, str) to collections.Counter
        Verdict counts keyed by claim and model (short name; ``"all"`` for a check over all
        models). A record over several models counts for each of them.
    """
    out: dict[tuple[str, str], Counter] = {}
    for row in rows:
        if scope is not None and (row.get("scope") or "reproduction") != scope:
            continue
        models = short_names(row["model"]).split(", ") if row["model"] else ["all"]
        for model in models:  # a check over several models counts for each of them
            out.setdefault((row["slug"], model), Counter())[row["verdict"]] += 1
    return out




def decoder_disagreements(rows: list[dict], results: dict[str, dict]) -> list[dict]:
    """Graded checks on which the decoders of a claim got different verdicts.

    A check (claim, check id, subject) graded for one model at a time is compared across
    the models the claim's results describe as ``kind == "decoder"``; it is listed when at
    least two decoders were graded and their verdicts differ. Returns one dict per such
    check: ``slug, check, subject, statement`` and ``verdicts`` (``{model: "verdict
    (measured [interval])"}``).

    Parameters
    ----------
    rows : list of dict
        The ledger's rows (:func:`ledger_rows`).
    results : dict of str to dict
        ``{slug: results record}``, whose ``models`` say which models are decoders.

    Returns
    -------
    list of dict
        One dict per disagreement, in the order the checks first appear, with the keys above
        and the check's ``anchor``; each ``verdicts`` value is in fact a pair
        ``(verdict, measured text)`` (:func:`format_measured`).
    """
    out: dict[tuple, dict] = {}
    for row in rows:
        record = results.get(row["slug"], {})
        decoders = {m["name"] for m in record.get("models", [])
                    if isinstance(m, dict) and m.get("kind") == "decoder"}
        if row["model"] not in decoders or row["verdict"] not in _GRADED:
            continue
        key = (row["slug"], row["check"], row.get("subject", ""))
        entry = out.setdefault(key, {"slug": row["slug"], "check": row["check"],
                                     "subject": row.get("subject", ""),
                                     "statement": row["statement"], "verdicts": {},
                                     "anchor": row.get("anchor", "")})
        entry["verdicts"][row["model"]] = (row["verdict"], format_measured(row))
    return [entry for entry in out.values()
            if len(entry["verdicts"]) >= 2
            and len({v for v, _ in entry["verdicts"].values()}) > 1]
