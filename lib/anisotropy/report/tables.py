"""Every table a page shows, formatted for a reader: one formatter for all DataFrames.

:func:`install` (called by :func:`anisotropy.report.plotting.setup` at the top of every
notebook) makes :func:`frame_html` the HTML form of every ``pandas.DataFrame`` and
``Series`` a cell displays, so that no page shows a raw frame:

- numbers to 3 significant figures (:func:`anisotropy.report.display.sig`), NaN and None as
  an en dash, dicts and lists as ``key value; ...`` text, never a repr;
- snake_case headers read as words (``median_norm_position0`` -> ``median norm
  position0``);
- a scrolling container, so a wide table is never clipped;
- a table longer than ``collapse_after`` rows folded into a ``<details>`` block.

The frame itself is not changed: ``results.metric`` and the tests see the numbers.
"""

from __future__ import annotations

import html
from typing import Any

import pandas as pd

from anisotropy.report.display import sig

__all__ = ["header", "cell", "frame_html", "install", "COLLAPSE_AFTER"]

COLLAPSE_AFTER = 12


def header(name: Any) -> str:
    """A column or index name as a reader sees it: underscores as spaces, tuples (a
    multi-level header) joined with " / ", numbers by :func:`sig`.

    Parameters
    ----------
    name : Any
        A column or index name: a string, a tuple (one part per level; empty parts are
        skipped), None, or a number or other value.

    Returns
    -------
    str
        The header text; ``""`` for None.
    """
    if isinstance(name, tuple):
        return " / ".join(header(part) for part in name if str(part) != "")
    if name is None:
        return ""
    if isinstance(name, str):
        return name.replace("_", " ")
    return sig(name)


def cell(value: Any) -> str:
    """One cell's text: text as it is, anything else by :func:`sig`; missing as "–".

    Parameters
    ----------
    value : Any
        A cell's value. None, ``pd.NA`` and ``pd.NaT`` are missing (as is NaN, through
        :func:`sig`).

    Returns
    -------
    str
        The cell's text.
    """
    if isinstance(value, str):
        return value
    if value is None or value is pd.NA or value is pd.NaT:
        return "–"
    return sig(value)


def _rows(frame: pd.DataFrame, named_index: bool) -> str:
    out = []
    for index, row in zip(frame.index, frame.itertuples(index=False, name=None), strict=True):
        lead = f"<th>{html.escape(header(index))}</th>" if named_index else ""
        out.append("<tr>" + lead + "".join(f"<td>{html.escape(cell(v))}</td>" for v in row)
                   + "</tr>")
    return "".join(out)


def frame_html(frame: pd.DataFrame | pd.Series, collapse_after: int = COLLAPSE_AFTER) -> str:
    """``frame`` as a reader's HTML table (see the module docstring).

    Parameters
    ----------
    frame : pandas.DataFrame or pandas.Series
        The table to show; it is not changed. A Series is shown as a one-column frame, named
        after the Series (``value`` when it has no name).
    collapse_after : int, optional
        The most rows shown open; a longer table is folded into a ``<details>`` block.
        Default :data:`COLLAPSE_AFTER` (12).

    Returns
    -------
    str
        The HTML: a ``book-table`` in a scrolling container, the index as the first column
        unless it is an unnamed ``RangeIndex``.
    """
    if isinstance(frame, pd.Series):
        frame = frame.to_frame(frame.name if frame.name is not None else "value")
    named_index = not (isinstance(frame.index, pd.RangeIndex) and frame.index.name is None)
    index_name = header(frame.index.name if frame.index.nlevels == 1
                        else tuple(n or "" for n in frame.index.names))
    head = ((f"<th>{html.escape(index_name)}</th>" if named_index else "")
            + "".join(f"<th>{html.escape(header(c))}</th>" for c in frame.columns))
    table = (f'<table class="book-table"><thead><tr>{head}</tr></thead>'
             f"<tbody>{_rows(frame, named_index)}</tbody></table>")
    body = f'<div class="table-scroll" style="overflow-x:auto;max-width:100%">{table}</div>'
    if len(frame) > collapse_after:
        body = (f"<details><summary>A table of {len(frame)} rows: show it</summary>{body}"
                "</details>")
    return body


def install() -> None:
    """Make :func:`frame_html` the HTML form of DataFrames and Series in this IPython
    kernel (nothing happens outside IPython)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is None:
        return
    formatter = shell.display_formatter.formatters["text/html"]
    formatter.for_type(pd.DataFrame, frame_html)
    formatter.for_type(pd.Series, frame_html)
