"""The display layer: how numbers, verdicts and intervals look on every page and the ledger.

Pure functions from check records (the dicts of a results file, or
:class:`anisotropy.report.results.Check` objects) to text, HTML tables and figures:

- :func:`sig`: a number to 3 significant figures (``0.0123``, ``1.23e+04`` never: large
  numbers get thousands separators), and :func:`interval_text` for ``[low, high]``;
- :func:`verdict_frame` / :func:`verdict_table_html`: one row per check and model, with
  human headers (check, model, measured [95% interval], paper, threshold, verdict), the
  check id in a tooltip, wrapped in a container that scrolls rather than clips;
- :func:`verdict_matrix_html`: the answer at a glance, one row per check and one column per
  model, each cell the verdict mark and the measured value (the interval in its tooltip);
- :func:`forest_plot`: each check's interval against its threshold, one panel per check
  (their scales differ), the measured value as a dot;
- :func:`settings_table_html`: the parameters a page ran with, their meaning and where each
  value came from (the claim's default, the profile or an override), in a ``<details>``.

Nothing here computes a measurement: it formats what the results hold.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable
from dataclasses import asdict, fields, is_dataclass
from typing import Any

import numpy as np
import pandas as pd

from anisotropy.inputs.models import FAMILY_NAMES
from anisotropy.inputs.resolved import short_names
from anisotropy.inputs.settings import profiles
from anisotropy.report import verdicts
from anisotropy.report.verdicts import BEYOND, BEYOND_TEXT
from anisotropy.report.verdicts import GRADED as _GRADED
from anisotropy.report.verdicts import symbol as verdict_symbol

__all__ = ["sig", "interval_text", "finding_interval", "threshold_text", "verdict_frame",
           "verdict_table_html",
           "frame_html", "verdict_matrix_html", "forest_plot", "paper_marks_text",
           "LINE_MEANINGS", "glue",
           "glue_all", "glue_summary", "settings_table_html",
           "VERDICT_MARKS", "VERDICT_COLORS"]

VERDICT_MARKS = verdicts.MARKS
VERDICT_COLORS = verdicts.COLORS


def sig(value: Any, digits: int = 3) -> str:
    """``value`` to ``digits`` significant figures, for a reader.

    Integers (and floats that are whole and large) get thousands separators; other numbers
    are rounded to ``digits`` significant figures without exponent between 1e-4 and 1e6,
    with one outside it; ``None`` and NaN give an en dash; booleans give yes / no; text is
    returned as it is. A dict or list is never shown raw: its items are joined as
    ``key value`` pairs.

    Parameters
    ----------
    value : Any
        A number (Python or numpy scalar), None, a bool, a string, a dict, a list or a tuple;
        anything else is shown with ``str``.
    digits : int, optional
        Significant figures; default 3. A whole float is shown as an integer from
        ``10 ** digits`` up to 1e15.

    Returns
    -------
    str
        The text. A float's minus sign is the typographic "−" (U+2212), infinities read
        ``∞`` and ``−∞``, zero reads ``0``; a dict's items read ``key value`` joined with
        ``"; "``, a list's or tuple's items are joined with ``", "`` (each by :func:`sig`).
    """
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if math.isnan(value):
            return "–"
        if math.isinf(value):
            return "∞" if value > 0 else "−∞"
        if value == 0:
            return "0"
        magnitude = abs(value)
        if magnitude >= 10 ** digits and value.is_integer() and magnitude < 1e15:
            return f"{int(value):,}"
        if not 1e-4 <= magnitude < 1e6:
            return f"{value:.{digits - 1}e}".replace("-", "−")
        decimals = max(digits - 1 - math.floor(math.log10(magnitude)), 0)
        text = f"{round(value, decimals):,.{decimals}f}"
        return text.replace("-", "−")
    if isinstance(value, dict):
        return "; ".join(f"{key} {sig(item, digits)}" for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(sig(item, digits) for item in value)
    try:  # numpy scalars
        return sig(value.item(), digits)
    except AttributeError:
        return str(value)


def interval_text(interval: Iterable[float] | None, digits: int = 3) -> str:
    """``[0.101, 0.145]``; an empty string when there is no interval.

    Parameters
    ----------
    interval : Iterable of float or None
        ``[low, high]`` (a list or tuple of two numbers); None or an empty one means no
        interval.
    digits : int, optional
        Significant figures of each end (:func:`sig`); default 3.

    Returns
    -------
    str
        ``"[LOW, HIGH]"``, or ``""``.
    """
    if not interval:
        return ""
    low, high = interval
    return f"[{sig(float(low), digits)}, {sig(float(high), digits)}]"


def finding_interval(check: dict) -> list[float] | None:
    """A finding's 95% interval, which it keeps in its details (under a label that starts
    with ``"95% interval"``, as :func:`anisotropy.claims.base.record_checks` records it);
    None for a graded check or a finding without one.

    Parameters
    ----------
    check : dict
        A check record (a results file's dict).

    Returns
    -------
    list of float or None
        ``[low, high]``, or None.
    """
    if check.get("verdict") != "finding" or not isinstance(check.get("details"), dict):
        return None
    for label, value in check["details"].items():
        if (label.startswith("95% interval") and isinstance(value, (list, tuple))
                and len(value) == 2 and all(isinstance(v, (int, float)) for v in value)):
            return [float(v) for v in value]
    return None


def _as_dict(check: Any) -> dict:
    return asdict(check) if is_dataclass(check) else dict(check)


def _model(check: dict) -> str:
    model = check.get("model") or ""
    text = short_names(model) or "all"
    return f"{text} ({check['subject']})" if check.get("subject") else text


PAPER_MAX = 60  # characters of the paper's numbers shown in a verdict table cell


def _paper_cell(check: dict) -> str:
    """The paper's number on the measured scale when the check declares one, else its
    numbers as text, cut at :data:`PAPER_MAX` characters (the ledger has them whole)."""
    if check.get("paper_value") is not None:
        return sig(float(check["paper_value"]))
    text = check.get("paper_values", check.get("paper")) or "–"
    return text if len(text) <= PAPER_MAX else text[:PAPER_MAX - 1].rstrip(" ;,") + "…"


def verdict_frame(checks: Iterable[Any], labels: dict[str, str] | None = None) -> pd.DataFrame:
    """One row per recorded check: human headers, every cell text.

    ``labels`` maps a declared check id to its short human label (from
    ``data/checks.yaml``); the id is used where a check has none.

    Parameters
    ----------
    checks : Iterable of Any
        The check records: dicts of a results file, or
        :class:`~anisotropy.report.results.Check` objects.
    labels : dict of str to str or None, optional
        ``{check id: label}``; default ``None``: every check shown by its id.

    Returns
    -------
    pandas.DataFrame
        Columns ``Check``, ``Model``, ``Measured [95% interval]``, ``Paper``, ``Threshold``,
        ``Kind of model`` and ``Verdict`` (text), then ``_id``, ``_verdict`` and ``_note``
        (the record id, raw verdict and note, for tooltips and colours); no rows when there
        are no checks.
    """
    labels = labels or {}
    rows = []
    for check in map(_as_dict, checks):
        threshold = threshold_text(check)
        measured = sig(check.get("measured"))
        interval = check.get("interval") or finding_interval(check)
        if interval:
            measured = f"{measured} {interval_text(interval)}"
        rows.append({"Check": labels.get(check["check"], check["check"]),
                     "Model": _model(check), "Measured [95% interval]": measured,
                     "Paper": _paper_cell(check),
                     "Threshold": threshold,
                     "Kind of model": scope_text(check),
                     "Verdict": verdicts.mark(check["verdict"], check.get("scope", "")),
                     "_id": check["id"], "_verdict": check["verdict"],
                     "_note": check.get("note") or ""})
    return pd.DataFrame(rows, columns=["Check", "Model", "Measured [95% interval]", "Paper",
                                       "Threshold", "Kind of model", "Verdict", "_id",
                                       "_verdict", "_note"])


def scope_text(check: dict) -> str:
    """``causal LM: studied`` or ``sentence encoder: not studied``: the model's family and
    whether the paper studied that kind (empty for a record that is not graded).

    Parameters
    ----------
    check : dict
        A check record (a results file's dict), with its ``scope`` and ``family``.

    Returns
    -------
    str
        The family names (:data:`anisotropy.inputs.models.FAMILY_NAMES`, each once for a
        record over several models) and ``studied`` (scope ``reproduction``) or ``not
        studied``; ``""`` when the record has no scope.
    """
    if not check.get("scope"):
        return ""
    family = ", ".join(dict.fromkeys(FAMILY_NAMES.get(f, f) for f in
                                     (check.get("family") or "unknown").split(", ")))
    return f"{family}: {'studied' if check['scope'] == 'reproduction' else 'not studied'}"


def _scrolling_table(head: str, rows: list[str], collapse_after: int, note: str = "") -> str:
    """HTML ``<tr>`` rows under ``head`` (the header cells) in a scrolling container (never
    clipped), rows past ``collapse_after`` in a ``<details>`` block, ``note`` under it."""
    def table(part: list[str]) -> str:
        return (f'<table class="verdict-table"><thead><tr>{head}</tr></thead>'
                f"<tbody>{''.join(part)}</tbody></table>")

    body = table(rows[:collapse_after])
    if len(rows) > collapse_after:
        body += (f"<details><summary>{len(rows) - collapse_after} more rows</summary>"
                 f"{table(rows[collapse_after:])}</details>")
    if note:
        body += f'<p class="table-note">{html.escape(note)}</p>'
    return f'<div class="table-scroll" style="overflow-x:auto;max-width:100%">{body}</div>'


def verdict_table_html(checks: Iterable[Any], labels: dict[str, str] | None = None,
                       collapse_after: int = 12) -> str:
    """The verdict table as HTML: a scrolling container (never clipped), the check id in
    each row's tooltip, the verdict coloured; rows past ``collapse_after`` go into a
    ``<details>`` block.

    Parameters
    ----------
    checks : Iterable of Any
        The check records: dicts of a results file, or
        :class:`~anisotropy.report.results.Check` objects.
    labels : dict of str to str or None, optional
        ``{check id: short label}`` (:func:`verdict_frame`); default ``None``: the ids.
    collapse_after : int, optional
        The rows shown open; default 12.

    Returns
    -------
    str
        The HTML table of :func:`verdict_frame`'s visible columns (a verdict's note in its
        cell's tooltip), with a note under it explaining :data:`BOOK_MARK` when a threshold
        is the book's own and :data:`SCOPE_NOTE` when a model was not studied by the paper.
    """
    frame = verdict_frame(checks, labels)
    shown = ["Check", "Model", "Measured [95% interval]", "Paper", "Threshold",
             "Kind of model", "Verdict"]
    head = "".join(f"<th>{html.escape(c)}</th>" for c in shown)
    rows = []
    for _, row in frame.iterrows():
        cells = "".join(f"<td>{html.escape(str(row[c]))}</td>" for c in shown[:-1])
        color = VERDICT_COLORS.get(row["_verdict"], "#333333")
        note = f' title="{html.escape(row["_note"])}"' if row["_note"] else ""
        cells += (f'<td style="color:{color};font-weight:600;white-space:nowrap"{note}>'
                  f"{html.escape(row['Verdict'])}</td>")
        rows.append(f'<tr title="{html.escape(row["_id"])}">{cells}</tr>')
    book = frame["Threshold"].str.endswith(BOOK_MARK).any()
    beyond = frame["Kind of model"].str.endswith("not studied").any()
    notes = [BOOK_NOTE] * bool(book) + [SCOPE_NOTE] * bool(beyond)
    return _scrolling_table(head, rows, collapse_after, " ".join(notes))


def frame_html(frame: pd.DataFrame, caption: str = "", collapse_after: int = 12) -> str:
    """A table of text cells (numbers already formatted, e.g. by :func:`sig` and
    :func:`interval_text`) as HTML for a page: the index as the first column, headers as
    given, a scrolling container (never clipped), rows past ``collapse_after`` in a
    ``<details>`` block, and ``caption`` as a note under it.

    Parameters
    ----------
    frame : pandas.DataFrame
        The table; a cell that is not a string is shown by :func:`sig`.
    caption : str, optional
        The note under the table; default ``""``: none.
    collapse_after : int, optional
        The rows shown open; default 12.

    Returns
    -------
    str
        The HTML.
    """
    head = f"<th>{html.escape(str(frame.index.name or ''))}</th>" + "".join(
        f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    rows = ["<tr>" + f"<th scope='row'>{html.escape(str(i))}</th>" + "".join(
        f"<td>{html.escape(v if isinstance(v, str) else sig(v))}</td>" for v in row) + "</tr>"
        for i, row in zip(frame.index, frame.to_numpy(), strict=True)]
    return _scrolling_table(head, rows, collapse_after, caption)


VERDICT_SYMBOLS = verdicts.SYMBOLS


#: The mark of a threshold that is the book's own reading, not a paper's number (see
#: ``threshold_basis`` in :mod:`anisotropy.report.checks`), and the note that explains it.
BOOK_MARK = "†"
BOOK_NOTE = ("† the book's own threshold: the paper gives no number for it (the reason is in "
             "the ledger). Every other threshold is a paper's number, derived from the papers' "
             "numbers, or the sign the paper states.")


#: The note under a verdict table with a generalisation in it.
SCOPE_NOTE = ("A kind of model the paper did not study (not studied) tests whether the claim "
              "carries over to it; its verdict reads carries over / does not carry over and "
              "is never counted as a reproduction.")

#: How a threshold's basis reads in the ledger.
BASIS_TEXT = {"paper": "the paper's number", "derived": "derived from the papers' numbers",
              "direction": "the direction the paper states", "book": "the book's own"}


def threshold_text(check: dict) -> str:
    """``≥ 0.46``: the check's comparator (as a reader writes it) and threshold; for an
    equivalence check its margin (``within [−1, 1]``, ``≥ −1``); marked :data:`BOOK_MARK`
    when the threshold is the book's own.

    Parameters
    ----------
    check : dict
        A check record (a results file's dict), with its ``comparator`` and ``threshold``,
        or its ``margin`` (an open end None), and its ``threshold_basis``.

    Returns
    -------
    str
        The rule as text (an open margin reads ``≥ A (margin)`` or ``≤ B (margin)``);
        ``""`` when the check has neither a margin nor a comparator and threshold.
    """
    mark = f" {BOOK_MARK}" if check.get("threshold_basis") == "book" else ""
    if check.get("margin"):
        a, b = check["margin"]
        if a is None:
            return f"≤ {sig(float(b))} (margin){mark}"
        if b is None:
            return f"≥ {sig(float(a))} (margin){mark}"
        return f"within [{sig(float(a))}, {sig(float(b))}]{mark}"
    if not check.get("comparator") or check.get("threshold") is None:
        return ""
    comparator = {">=": "≥", "<=": "≤"}.get(check["comparator"], check["comparator"])
    return f"{comparator} {sig(float(check['threshold']))}{mark}"


def _matrix_cell(records: list[dict]) -> str:
    """One cell of :func:`verdict_matrix_html`: a single record's mark and measured value;
    several records (subjects: tasks, layers) as counts per verdict. The tooltip lists each
    record with its interval."""
    if not records:
        return '<td class="empty"></td>'
    tips = []
    for r in records:
        where = f"{r['subject']}: " if r.get("subject") else ""
        value = sig(r.get("measured")) if r.get("measured") is not None else ""
        tip = f"{where}{r['verdict']} {value} {interval_text(r.get('interval'))}".strip()
        if r.get("verdict") == "sample too small" and r.get("note"):
            tip += f" ({r['note']})"
        tips.append(tip)
    verdicts = [r["verdict"] for r in records]
    beyond = all(r.get("scope") == "generalisation" for r in records)
    if beyond:
        tips.insert(0, f"not studied by the paper ({records[0].get('studied', '')}): a "
                       "generalisation")
    if len(records) == 1:
        value = records[0].get("measured")
        text = verdict_symbol(verdicts[0], records[0].get("scope", ""))
        if value is not None and not isinstance(value, (dict, list)):
            text += f" {sig(value)}"
    else:
        counts = {v: verdicts.count(v) for v in dict.fromkeys(verdicts)}
        text = (f"{BEYOND} " if beyond else "") + " · ".join(
            f"{VERDICT_SYMBOLS.get(v, v)} {n}" for v, n in counts.items())
    uniform = verdicts[0] if len(set(verdicts)) == 1 else None
    color = VERDICT_COLORS.get(uniform, "inherit") if uniform else "inherit"
    tint = f"background:{VERDICT_COLORS[uniform]}26;" if uniform in VERDICT_COLORS else ""
    return (f'<td class="verdict-cell" style="{tint}color:{color}" '
            f'title="{html.escape("; ".join(tips))}">{html.escape(text)}</td>')


def _matrix_columns(records: list[dict]):
    """The column of a record in :func:`verdict_matrix_html`: its model (short name), or
    ``model: subject`` where a model's subjects are shared by its checks (claim 5's
    datasets, each graded by several checks): at most :data:`MATRIX_SUBJECTS` of them, each
    in two checks or more. Subjects of a single check (claim 4's STS tasks) stay in the
    model's column, as counts."""
    checks_of: dict[tuple[str, str], set] = {}
    for r in records:
        if r.get("subject"):
            checks_of.setdefault((r.get("model") or "", r["subject"]), set()).add(r["check"])
    by_model: dict[str, list] = {}
    for (model, _subject), checks in checks_of.items():
        by_model.setdefault(model, []).append(len(checks))
    split = {model for model, sizes in by_model.items()
             if len(sizes) <= MATRIX_SUBJECTS and min(sizes) >= 2}

    def column(r: dict) -> str:
        name = short_names(r.get("model") or "") or "all"
        if ", " in name:  # one record over several models (claim 5's appendix)
            name = f"{name.count(', ') + 1} models"
        split_here = (r.get("model") or "") in split and r.get("subject")
        return f"{name}: {r['subject']}" if split_here else name

    return column


#: A model with at most this many subjects gets one matrix column per subject.
MATRIX_SUBJECTS = 3


def verdict_matrix_html(checks: Iterable[Any], labels: dict[str, str] | None = None) -> str:
    """The answer at a glance: one row per check (its short label, the check id in the
    tooltip) with its threshold, and one column per model, each cell the verdict's mark
    (✓ reproduced, ✗ not reproduced, ? inconclusive, ○ exempt, ◇ control, • finding,
    – not run) and the measured value, tinted by verdict. A record over several models
    (one check of a set of models) gets a column "N models", the names in its tooltip. A
    check measured on several subjects of a model (tasks, layers) shows the count of each
    verdict. A check not run on any model here has no answer to show: it is left out of
    the matrix, the legend counts it, and the verdict table below lists it with its
    reason.

    Parameters
    ----------
    checks : Iterable of Any
        The check records: dicts of a results file, or
        :class:`~anisotropy.report.results.Check` objects.
    labels : dict of str to str or None, optional
        ``{check id: short label}``; default ``None``: the ids.

    Returns
    -------
    str
        The HTML table, with a legend of the verdicts it shows (and of :data:`BEYOND`,
        :data:`BOOK_MARK` and the checks left out, where there are any).
    """
    labels = labels or {}
    everything = list(map(_as_dict, checks))
    unanswered = {r["check"] for r in everything} - {
        r["check"] for r in everything if r["verdict"] != "not run"}
    records = [r for r in everything if r["check"] not in unanswered]
    column = _matrix_columns(records)
    models = list(dict.fromkeys(map(column, records)))
    rows: dict[str, dict[str, list[dict]]] = {}
    for r in records:
        rows.setdefault(r["check"], {}).setdefault(column(r), []).append(r)
    names = {column(r): short_names(r.get("model") or "") for r in records}
    head = "".join(f'<th title="{html.escape(names[m])}">{html.escape(m)}</th>'
                   if names[m] != m and ", " in names[m] else f"<th>{html.escape(m)}</th>"
                   for m in models)
    body = []
    for check_id, cells in rows.items():
        first = next(iter(cells.values()))[0]
        threshold = threshold_text(first)
        body.append(f'<tr><th scope="row" title="{html.escape(check_id)}">'
                    f"{html.escape(labels.get(check_id, check_id))}</th>"
                    f"<td>{html.escape(threshold)}</td>"
                    + "".join(_matrix_cell(cells.get(m, [])) for m in models) + "</tr>")
    legend = " · ".join(f"{VERDICT_SYMBOLS[v]} {v}" for v in VERDICT_MARKS
                        if any(r["verdict"] == v for r in records))
    if any(r.get("scope") == "generalisation" for r in records):
        legend += f" · {BEYOND_TEXT}"
    if any(threshold_text(r).endswith(BOOK_MARK) for r in records):
        legend += f" · {BOOK_MARK} the book's own threshold (the paper gives no number)"
    if unanswered:
        legend += (f" · {len(unanswered)} check{'s' if len(unanswered) > 1 else ''} not run "
                   "here, listed in the table below")
    return ('<div class="table-scroll" style="overflow-x:auto;max-width:100%">'
            '<table class="verdict-table verdict-matrix"><thead><tr><th>Check</th>'
            f"<th>Threshold</th>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
            f'<p class="verdict-legend">{html.escape(legend)}</p></div>')


def _spans_decades(rows: list[dict], decades: float = 2.0) -> bool:
    """Whether a forest panel's numbers (intervals, values, threshold) are all positive and
    span at least ``decades`` powers of ten: a log axis then shows every row (a ratio of
    50 beside one of 11,600 would sit at zero on a linear one)."""
    values = [v for r in rows for v in (*r["interval"], r["measured"], r.get("threshold"),
                                         r.get("paper_value")) if v is not None]
    return bool(values) and min(values) > 0 and max(values) / min(values) >= 10 ** decades


def forest_plot(checks: Iterable[Any], labels: dict[str, str] | None = None,
                colors: dict[str, str] | None = None, width: float = 7.5,
                paper: dict[tuple[str, str], float] | None = None):
    """Each graded check's 95% interval against its threshold: one panel per declared
    check (their quantities have different scales), one row per model (and subject), the
    measured value as a dot, the threshold as a dashed line, the rows coloured by
    verdict, and the paper's value as a black diamond: the record's ``paper_value``, or
    ``paper[(check id, subject)]`` where ``paper`` is given. A generalisation (a kind of
    model the paper did not study) is drawn dashed with a hollow dot, its model marked
    :data:`BEYOND`. Returns the matplotlib figure
    (a figure that says so when nothing is graded).

    Parameters
    ----------
    checks : Iterable of Any
        The check records: dicts of a results file, or
        :class:`~anisotropy.report.results.Check` objects. Only graded verdicts with an
        interval are drawn.
    labels : dict of str to str or None, optional
        ``{check id: short label}`` for the panel titles; default ``None``: the ids.
    colors : dict of str to str or None, optional
        ``{verdict: colour}``; default ``None``: :data:`VERDICT_COLORS`.
    width : float, optional
        The figure's width in inches; default 7.5.
    paper : dict of (str, str) to float or None, optional
        ``{(check id, subject): the paper's value}`` (subject ``""`` for a record without
        one), in place of the records' ``paper_value``; default ``None``.

    Returns
    -------
    matplotlib.figure.Figure
        The figure (an equivalence check's panel shades its margin; a panel whose positive
        numbers span two decades or more is on a log scale).
    """
    import matplotlib.pyplot as plt

    labels, colors = labels or {}, colors or VERDICT_COLORS
    graded = [c for c in map(_as_dict, checks)
              if c["verdict"] in _GRADED and c.get("interval")]
    if not graded:
        fig, ax = plt.subplots(figsize=(width, 0.8))
        ax.axis("off")
        ax.text(0.5, 0.5, "No check was graded in this run.", ha="center", va="center")
        return fig
    groups: dict[str, list[dict]] = {}
    for check in graded:
        groups.setdefault(check["check"], []).append(check)
    heights = [0.45 * len(rows) + 0.7 for rows in groups.values()]
    fig, axes = plt.subplots(len(groups), 1, figsize=(width, sum(heights)), squeeze=False,
                             gridspec_kw={"height_ratios": heights})
    for ax, (check_id, rows) in zip(axes[:, 0], groups.items(), strict=True):
        for y, check in enumerate(reversed(rows)):
            low, high = check["interval"]
            color = colors.get(check["verdict"], "#333333")
            beyond = check.get("scope") == "generalisation"  # dashed, hollow: generalised
            ax.plot([low, high], [y, y], color=color, linewidth=2.5, solid_capstyle="butt",
                    linestyle=(0, (2, 1)) if beyond else "-")
            ax.plot([check["measured"]], [y], "o", color=color, markersize=5,
                    fillstyle="none" if beyond else "full")
            mark = (check.get("paper_value") if paper is None
                    else paper.get((check["check"], check.get("subject") or "")))
            if mark is not None:
                ax.plot([mark], [y], "D", color="#111111", markersize=5, fillstyle="none",
                        label="paper")
        if rows[0].get("margin"):  # an equivalence check: the margin's edges, shaded
            edges = [e for e in rows[0]["margin"] if e is not None]
            for edge in edges:
                ax.axvline(float(edge), color="#333333", linestyle="--", linewidth=1)
            a, b = rows[0]["margin"]
            left, right = ax.get_xlim()
            ax.axvspan(left if a is None else float(a), right if b is None else float(b),
                       color="#009E73", alpha=0.08, linewidth=0)
            ax.set_xlim(min(left, *edges), max(right, *edges))
        else:
            ax.axvline(float(rows[0]["threshold"]), color="#333333", linestyle="--",
                       linewidth=1)
        log = _spans_decades(rows)
        if log:
            ax.set_xscale("log")
        ax.set_yticks(range(len(rows)), [
            (f"{BEYOND} " if c.get("scope") == "generalisation" else "") + _model(c)
            for c in reversed(rows)], fontsize=8)
        ax.set_ylim(-0.7, len(rows) - 0.3)
        ax.set_title(f"{labels.get(check_id, check_id)}: paper's side "
                     f"{threshold_text(rows[0])}" + (" (log scale)" if log else ""),
                     fontsize=9, loc="left")
        ax.grid(axis="y", visible=False)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(*[h[:1] for h in ax.get_legend_handles_labels()], loc="best",
                      fontsize=7, frameon=False)
        ax.tick_params(axis="x", labelsize=8)
    fig.tight_layout()
    return fig


def glue(name: str, value: Any, display: bool = False) -> None:
    """myst-nb ``glue`` for prose numbers, with numpy scalars turned into Python ones.

    (A glued ``np.float64`` is stored as the text ``np.float64(...)``, which ``{glue:text}``
    cannot format.) Figures and other objects pass through unchanged. Returns None, so that
    a ``glue`` call ending a cell leaves no stray output (a bare ``'1,000'``) on the page.

    Parameters
    ----------
    name : str
        The key the page's ``{glue:...}`` roles and directives use.
    value : Any
        The value to glue; a numpy scalar is glued as its Python value.
    display : bool, optional
        Whether the cell also shows the value (myst-nb's ``display``); default False.
    """
    from myst_nb import glue as myst_glue

    if isinstance(value, np.generic):
        value = value.item()
    myst_glue(name, value, display=display)


def glue_all(values: dict[str, Any]) -> None:
    """:func:`glue` each ``name: value`` of a mapping (a page helper's prose numbers).

    Parameters
    ----------
    values : dict of str to Any
        ``{name: value}``, each glued under its name.
    """
    for name, value in values.items():
        glue(name, value)


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def scope_summary(specs: dict, checks: Iterable[Any]) -> str:
    """Whom the claim was made about, and what each model of the page therefore tests:
    the models its source studied (each check's ``studied``, grouped by source where the
    checks have several), then the graded models of a studied kind (a reproduction) and
    of another kind (a generalisation, marked :data:`BEYOND`), each with its family.

    Parameters
    ----------
    specs : dict
        The claim's declared checks, ``{check id: CheckSpec}``
        (:func:`anisotropy.report.checks.load_checks`).
    checks : Iterable of Any
        The check records: dicts of a results file, or
        :class:`~anisotropy.report.results.Check` objects; those without a scope (not
        graded) are left out.

    Returns
    -------
    str
        A few sentences of plain text (a model graded both ways, under checks of several
        sources, is named in a sentence of its own).
    """
    sources: dict[str, list[str]] = {}
    for spec in specs.values():
        sources.setdefault(spec.studied, []).append(spec.label)
    who = "paper" if len(sources) == 1 else "sources"
    if len(sources) == 1:
        text = f"The paper studied {next(iter(sources))}."
    else:
        text = "The sources studied: " + "; ".join(
            f"{studied} (for {_listed(labels[:2])}{' and others' if len(labels) > 2 else ''})"
            for studied, labels in sources.items()) + "."
    models: dict[str, tuple[str, set]] = {}
    for check in map(_as_dict, checks):
        if not check.get("scope"):
            continue
        for model, family in zip(check["model"].split(", "),
                                 (check.get("family") or "").split(", "), strict=False):
            entry = models.setdefault(short_names(model), (family, set()))
            entry[1].add(check["scope"])
    def named(wanted: set) -> list[str]:
        return [f"{m} ({FAMILY_NAMES.get(f, f)})" for m, (f, scopes) in models.items()
                if scopes == wanted]
    inside, beyond = named({"reproduction"}), named({"generalisation"})
    mixed = named({"reproduction", "generalisation"})
    if inside:
        text += f" Here {_listed(inside)} {'tests' if len(inside) == 1 else 'test'} the claim."
    if beyond:
        text += (f" {_listed(beyond)} {'is a kind' if len(beyond) == 1 else 'are kinds'} of "
                 f"model the {who} did not study: {'its' if len(beyond) == 1 else 'their'} "
                 f"verdicts, marked {BEYOND}, say whether the claim carries over, not whether "
                 "it reproduces.")
    if mixed:
        text += (f" {_listed(mixed)} {'is' if len(mixed) == 1 else 'are'} of a kind some "
                 f"sources studied and others did not ({BEYOND} where not).")
    return text


#: What a forest panel's dashed line is, by the check's ``threshold_basis`` (an equivalence
#: check's lines are its margin's edges).
LINE_MEANINGS = {"paper": "the paper's own number", "derived": "derived from the paper's numbers",
                 "direction": "the direction the paper states",
                 "book": "the book's own (the paper gives no number)",
                 "margin": "the edges of the declared margin"}


def paper_marks_text(checks: Iterable[Any], labels: dict[str, str] | None = None) -> str:
    """The forest plot's caption sentences on what each panel draws from the paper: which
    panels carry the paper's own value (an open black diamond), and what each panel's
    dashed line is (:data:`LINE_MEANINGS`, by the check's ``threshold_basis``).

    Parameters
    ----------
    checks : Iterable of Any
        The check records, as :func:`forest_plot` takes them.
    labels : dict of str to str or None, optional
        ``{check id: short label}`` (the panel titles); default ``None``: the ids.

    Returns
    -------
    str
        One to three sentences naming the panels by their labels; ``""`` when no check is
        graded (the figure says so).
    """
    labels = labels or {}
    drawn = [c for c in map(_as_dict, checks) if c["verdict"] in _GRADED and c.get("interval")]
    if not drawn:
        return ""
    panels: dict[str, dict] = {}  # one record per panel, in the figure's order
    for record in drawn:
        panels.setdefault(record["check"], record)

    def listed(ids: list[str]) -> str:
        names = [f"“{labels.get(i, i)}”" for i in ids]
        return names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" and {names[-1]}"

    marked = [p for p in panels if any(c.get("paper_value") is not None
                                       for c in drawn if c["check"] == p)]
    by_meaning: dict[str, list[str]] = {}
    for p, record in panels.items():
        basis = "margin" if record.get("margin") else record.get("threshold_basis") or "book"
        by_meaning.setdefault(LINE_MEANINGS.get(basis, LINE_MEANINGS["book"]), []).append(p)
    lines = "; ".join(f"{meaning} in {listed(ids)}" for meaning, ids in by_meaning.items())
    diamonds = (f"An open black diamond marks the paper's own value in {listed(marked)}; "
                "no other panel has one on the measured scale." if marked else
                "No panel here has a paper value on the measured scale to mark.")
    return f"{diamonds} The dashed line is {lines}."


def glue_summary(results) -> None:
    """Glue a claim's ``scope_summary`` (:func:`scope_summary`), ``verdict_matrix`` and
    ``verdict_table`` (HTML), ``forest_plot`` (figure) and ``forest_paper_marks`` (its
    caption's sentence on the paper's values, :func:`paper_marks_text`) from its
    :class:`~anisotropy.report.results.Results`, for the page's "At a glance" section, with
    the short labels its checks declare.

    Parameters
    ----------
    results : anisotropy.report.results.Results
        The claim's results, with its ``specs`` and recorded ``checks``.
    """
    import matplotlib.pyplot as plt
    from IPython.display import HTML

    labels = {check_id: spec.label or check_id for check_id, spec in results.specs.items()}
    scope = html.escape(scope_summary(results.specs, results.checks))
    glue("scope_summary", HTML(f'<p class="scope-summary">{scope}</p>'))
    glue("verdict_matrix", HTML(verdict_matrix_html(results.checks, labels)))
    glue("verdict_table", HTML(verdict_table_html(results.checks, labels)))
    figure = forest_plot(results.checks, labels)  # each record carries its paper_value
    glue("forest_plot", figure)
    glue("forest_paper_marks", paper_marks_text(results.checks, labels))
    plt.close(figure)


def _value_text(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(sig(v) for v in value) if value else "none"
    return sig(value) if not isinstance(value, str) else value


def settings_table_html(settings) -> str:
    """The parameters a claim ran with (a claim module's ``Settings``), as a collapsed HTML
    table: parameter, value, source (default, the profile or an override) and meaning.

    Parameters
    ----------
    settings : anisotropy.inputs.settings.ClaimSettings
        The claim's settings (:meth:`~anisotropy.inputs.settings.ClaimSettings.for_profile`),
        with their ``profile`` and ``overrides``.

    Returns
    -------
    str
        A ``<details>`` block whose summary names the profile and the number of overrides;
        one row per parameter (a field marked ``meta`` is left out).
    """


    chosen = (profiles().get(settings.profile) or {}).get(settings.slug) or {}
    overridden = dict(settings.overrides)
    rows = []
    for spec in fields(settings):
        if spec.metadata.get("meta"):
            continue
        source = ("override" if spec.name in overridden else
                  f"profile {settings.profile}" if spec.name in chosen else "default")
        rows.append("<tr>" + "".join(f"<td>{html.escape(text)}</td>" for text in (
            spec.name, _value_text(getattr(settings, spec.name)), source,
            spec.metadata["meaning"])) + "</tr>")
    head = "".join(f"<th>{name}</th>" for name in ("Parameter", "Value", "From", "Meaning"))
    summary = (f"Settings: profile {html.escape(settings.profile)}"
               + (f", {len(overridden)} override(s)" if overridden else ""))
    return (f'<details class="settings-table"><summary>{summary}</summary>'
            '<div class="table-scroll" style="overflow-x:auto;max-width:100%">'
            f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
            "</div></details>")
