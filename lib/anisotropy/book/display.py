"""The display layer: how numbers, verdicts and intervals look on every page and the ledger.

Pure functions from check records (the dicts of a results file, or
:class:`anisotropy.book.results.Check` objects) to text, HTML tables and figures:

- :func:`sig`: a number to 3 significant figures (``0.0123``, ``1.23e+04`` never: large
  numbers get thousands separators), and :func:`interval_text` for ``[low, high]``;
- :func:`verdict_frame` / :func:`verdict_table_html`: one row per check and model, with
  human headers (check, model, measured [95% interval], paper, threshold, verdict), the
  check id in a tooltip, wrapped in a container that scrolls rather than clips;
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
from dataclasses import asdict, is_dataclass
from typing import Any

import pandas as pd

from anisotropy.book.checks import GRADED as _GRADED
from anisotropy.inputs.resolved import short_names

__all__ = ["sig", "interval_text", "verdict_frame", "verdict_table_html", "forest_plot",
           "glue_summary", "settings_table_html", "VERDICT_MARKS", "VERDICT_COLORS"]

VERDICT_MARKS = {"reproduced": "✓ reproduced", "not reproduced": "✗ not reproduced",
                 "inconclusive": "? inconclusive", "exempt": "○ exempt",
                 "control": "◇ control", "finding": "• finding", "not run": "– not run"}
# Okabe-Ito, safe for colour-blind readers
VERDICT_COLORS = {"reproduced": "#009E73", "not reproduced": "#D55E00",
                  "inconclusive": "#E69F00", "exempt": "#999999", "control": "#56B4E9",
                  "finding": "#0072B2", "not run": "#999999"}


def sig(value: Any, digits: int = 3) -> str:
    """``value`` to ``digits`` significant figures, for a reader.

    Integers (and floats that are whole and large) get thousands separators; other numbers
    are rounded to ``digits`` significant figures without exponent between 1e-4 and 1e6,
    with one outside it; ``None`` and NaN give an en dash; booleans give yes / no; text is
    returned as it is. A dict or list is never shown raw: its items are joined as
    ``key value`` pairs.
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
    """``[0.101, 0.145]``; an empty string when there is no interval."""
    if not interval:
        return ""
    low, high = interval
    return f"[{sig(float(low), digits)}, {sig(float(high), digits)}]"


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
    """
    labels = labels or {}
    rows = []
    for check in map(_as_dict, checks):
        threshold = (f"{check['comparator']} {sig(float(check['threshold']))}"
                     if check.get("comparator") else "")
        measured = sig(check.get("measured"))
        if check.get("interval"):
            measured = f"{measured} {interval_text(check['interval'])}"
        rows.append({"Check": labels.get(check["check"], check["check"]),
                     "Model": _model(check), "Measured [95% interval]": measured,
                     "Paper": _paper_cell(check),
                     "Threshold": threshold,
                     "Verdict": VERDICT_MARKS.get(check["verdict"], check["verdict"]),
                     "_id": check["id"], "_verdict": check["verdict"]})
    return pd.DataFrame(rows, columns=["Check", "Model", "Measured [95% interval]", "Paper",
                                       "Threshold", "Verdict", "_id", "_verdict"])


def verdict_table_html(checks: Iterable[Any], labels: dict[str, str] | None = None,
                       collapse_after: int = 12) -> str:
    """The verdict table as HTML: a scrolling container (never clipped), the check id in
    each row's tooltip, the verdict coloured; rows past ``collapse_after`` go into a
    ``<details>`` block."""
    frame = verdict_frame(checks, labels)
    shown = ["Check", "Model", "Measured [95% interval]", "Paper", "Threshold", "Verdict"]
    head = "".join(f"<th>{html.escape(c)}</th>" for c in shown)

    def rows(part: pd.DataFrame) -> str:
        out = []
        for _, row in part.iterrows():
            cells = "".join(f"<td>{html.escape(str(row[c]))}</td>" for c in shown[:-1])
            color = VERDICT_COLORS.get(row["_verdict"], "#333333")
            cells += (f'<td style="color:{color};font-weight:600;white-space:nowrap">'
                      f"{html.escape(row['Verdict'])}</td>")
            out.append(f'<tr title="{html.escape(row["_id"])}">{cells}</tr>')
        return "".join(out)

    def table(part: pd.DataFrame) -> str:
        return (f'<table class="verdict-table"><thead><tr>{head}</tr></thead>'
                f"<tbody>{rows(part)}</tbody></table>")

    body = table(frame.iloc[:collapse_after])
    if len(frame) > collapse_after:
        body += (f"<details><summary>{len(frame) - collapse_after} more rows</summary>"
                 f"{table(frame.iloc[collapse_after:])}</details>")
    return f'<div class="table-scroll" style="overflow-x:auto;max-width:100%">{body}</div>'


def forest_plot(checks: Iterable[Any], labels: dict[str, str] | None = None,
                colors: dict[str, str] | None = None, width: float = 7.5,
                paper: dict[tuple[str, str], float] | None = None):
    """Each graded check's 95% interval against its threshold: one panel per declared
    check (their quantities have different scales), one row per model (and subject), the
    measured value as a dot, the threshold as a dashed line, the rows coloured by
    verdict, and the paper's value as a black diamond: the record's ``paper_value``, or
    ``paper[(check id, subject)]`` where ``paper`` is given. Returns the matplotlib figure
    (a figure that says so when nothing is graded)."""
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
            ax.plot([low, high], [y, y], color=color, linewidth=2.5, solid_capstyle="butt")
            ax.plot([check["measured"]], [y], "o", color=color, markersize=5)
            mark = (check.get("paper_value") if paper is None
                    else paper.get((check["check"], check.get("subject") or "")))
            if mark is not None:
                ax.plot([mark], [y], "D", color="#111111", markersize=5, fillstyle="none",
                        label="paper")
        threshold = float(rows[0]["threshold"])
        ax.axvline(threshold, color="#333333", linestyle="--", linewidth=1)
        ax.set_yticks(range(len(rows)), [_model(c) for c in reversed(rows)], fontsize=8)
        ax.set_ylim(-0.7, len(rows) - 0.3)
        ax.set_title(f"{labels.get(check_id, check_id)}: paper's side "
                     f"{rows[0]['comparator']} {sig(threshold)}", fontsize=9, loc="left")
        ax.grid(axis="y", visible=False)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(*[h[:1] for h in ax.get_legend_handles_labels()], loc="best",
                      fontsize=7, frameon=False)
        ax.tick_params(axis="x", labelsize=8)
    fig.tight_layout()
    return fig


def glue_summary(results) -> None:
    """Glue a claim's ``verdict_table`` (HTML) and ``forest_plot`` (figure) from its
    :class:`~anisotropy.book.results.Results`, for the page's "At a glance" section, with
    the short labels its checks declare."""
    import matplotlib.pyplot as plt
    from IPython.display import HTML

    from anisotropy.book.results import glue

    labels = {check_id: spec.label or check_id for check_id, spec in results.specs.items()}
    glue("verdict_table", HTML(verdict_table_html(results.checks, labels)))
    figure = forest_plot(results.checks, labels)  # each record carries its paper_value
    glue("forest_plot", figure)
    plt.close(figure)


def _value_text(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(sig(v) for v in value) if value else "none"
    return sig(value) if not isinstance(value, str) else value


def settings_table_html(settings) -> str:
    """The parameters a claim ran with (a claim module's ``Settings``), as a collapsed HTML
    table: parameter, value, source (default, the profile or an override) and meaning."""
    from dataclasses import fields

    from anisotropy.claims.settings import profiles

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
