"""The papers' numbers (``data/references.yaml``): read once per version of the file, looked
up by key path, and described in a line of text.

Each entry of the file is a number, a list or table of numbers, or a statement, with the
``source`` it was read from (a paper's table or figure, the authors' repository at a
commit); ``../shared/reference/paper-numbers.md`` is where each was sourced. The checks
(:mod:`anisotropy.report.checks`) cite these keys in their thresholds and reasons, the pages
show them beside the measured values, and a claim may read one directly (chapter 6's
sink threshold). It sits below both, with the other inputs: it imports nothing of the
project but the project root.
"""

from __future__ import annotations

import copy
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from anisotropy.inputs.data import PROJECT_ROOT

__all__ = ["REFERENCES_FILE", "references", "reference_value", "reference_source",
           "describe_reference", "anisotropic_level"]

REFERENCES_FILE = PROJECT_ROOT / "data" / "references.yaml"


@lru_cache(maxsize=4)
def _parsed(path: Path, mtime_ns: int) -> dict:
    with open(path, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def _references(path: Path = REFERENCES_FILE) -> dict:
    """The parsed references file: read once per version of the file (every declaration,
    paper text and notebook lookup shares it), returned as a copy callers may change."""
    return copy.deepcopy(_parsed(path, path.stat().st_mtime_ns))


def references() -> dict:
    """The papers' reference numbers (``data/references.yaml``), each with its source.

    Returns
    -------
    dict
        The parsed file, read once per version of the file; a copy the caller may change.
    """
    return _references()


def reference_value(key: str, references: dict | None = None) -> Any:
    """The entry of ``data/references.yaml`` at a slash-separated key path.

    Parameters
    ----------
    key : str
        Keys from the top of the file down, joined by ``/``; a part made of digits also
        matches a numeric YAML key (``"3"`` reads the key ``3``), and after a table's row a
        part may name one of the ``columns`` its table declares
        (``claim4/per_task/baseline/STS-B/spearman``).
    references : dict, optional
        A parsed references file (:func:`references`); default the file read anew (once
        per version of it).

    Returns
    -------
    Any
        The entry: a number, a string, a list, or a dict (a block, which may hold a
        ``source``, ``columns`` or a ``statement``).

    Raises
    ------
    KeyError
        When ``key`` leads to no entry (a part is missing, or follows a value that is not
        a block).
    """
    node = _references() if references is None else references
    columns: list = []
    for part in key.split("/"):
        if isinstance(node, list) and part in columns and len(node) == len(columns):
            node = node[columns.index(part)]  # a column of a table's row, by its name
            continue
        if isinstance(node, dict) and part not in node and part.isdigit() and int(
                part) in node:
            part = int(part)  # a YAML key that is a number (k = 3 of a kNN table)
        if not isinstance(node, dict) or part not in node:
            raise KeyError(f"No reference {key!r} in {REFERENCES_FILE.name}.")
        columns = node.get("columns", columns)
        node = node[part]
    return node


def anisotropic_level(references: dict | None = None) -> float:
    """The mean cosine (or S_inter) from which a space counts as anisotropic: the least
    anisotropic contextual layer in Ethayarajh's (2019) published baselines, ELMo's top
    one (the last entry of ``claim1/baseline/ELMo``). Claim 1's ``baseline-positive``
    and claim 2's ``global-anisotropy`` take it as their threshold, claim 2's
    ``local-isotropy`` reads "about zero" as under it and grades only layers whose raw
    S_inter is above it, and chapter 6's ``measures-disagree`` runs only where a layer's
    mean cosine is below it.

    Parameters
    ----------
    references : dict, optional
        A parsed references file; the project's ``data/references.yaml`` when omitted.

    Returns
    -------
    float
        The last entry of ``claim1/baseline/ELMo``.
    """
    return float(reference_value("claim1/baseline/ELMo", references)[-1])


def reference_source(key: str, references: dict | None = None) -> str:
    """The ``source`` nearest to a key path: its own block's, else its parents'.

    Parameters
    ----------
    key : str
        A slash-separated key path (:func:`reference_value`).
    references : dict, optional
        A parsed references file (:func:`references`); default the file read anew (once
        per version of it).

    Returns
    -------
    str
        The nearest ``source``, its whitespace collapsed to single spaces; ``""`` when
        neither the entry nor any parent has one.

    Raises
    ------
    KeyError
        When ``key`` leads to no entry (:func:`reference_value`).
    """
    references = _references() if references is None else references
    parts = key.split("/")
    for depth in range(len(parts), 0, -1):
        node = reference_value("/".join(parts[:depth]), references)
        if isinstance(node, dict) and "source" in node:
            return " ".join(str(node["source"]).split())
    return ""


def _format_number(value: Any) -> str:
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, (int, float)):
        return f"{value:g}"
    return str(value)


def _describe_value(value: Any, columns: list | None = None) -> str:
    if isinstance(value, list) and value and all(isinstance(v, (int, float)) for v in value):
        if columns and len(columns) == len(value):
            pairs = zip(columns, value, strict=True)
            return ", ".join(f"{c} {_format_number(v)}" for c, v in pairs)
        if len(value) <= 3:
            return ", ".join(_format_number(v) for v in value)
        return f"{_format_number(min(value))} to {_format_number(max(value))} " \
               f"({len(value)} values)"
    if isinstance(value, dict):
        if "statement" in value:
            return " ".join(str(value["statement"]).split())
        inner = value.get("columns", columns)
        parts = [f"{k} ({_describe_value(v, inner)})" if isinstance(v, (dict, list))
                 else f"{k} {_format_number(v)}"
                 for k, v in value.items() if k not in ("source", "columns", "note")]
        return "; ".join(parts)
    if isinstance(value, str):
        return " ".join(value.split())
    return _format_number(value)


def describe_reference(key: str, references: dict | None = None) -> str:
    """Short text of a reference entry: a number, a list or table, or a statement.

    Parameters
    ----------
    key : str
        A slash-separated key path (:func:`reference_value`).
    references : dict, optional
        A parsed references file (:func:`references`); default the file read anew (once
        per version of it).

    Returns
    -------
    str
        A statement's text alone; else the entry's name (its last key, after its parent's
        when the last key is a number or the entry is a row of a table, whose ``columns``
        its grandparent names; for one column of a row, the row's table name and the
        column's) and a colon before the value: a number (``:g`` format), a
        list of numbers (named by the parent's ``columns``, or a table row's, when they
        match it, else up to three values, else its range and count), or a table's entries
        (``source``, ``columns`` and ``note`` left out). Whitespace in texts is collapsed.

    Raises
    ------
    KeyError
        When ``key`` leads to no entry (:func:`reference_value`).
    """
    references = _references() if references is None else references
    value = reference_value(key, references)
    parts = key.split("/")
    parent = reference_value("/".join(parts[:-1]), references) if len(parts) > 1 \
        else references
    columns = parent.get("columns") if isinstance(parent, dict) else None
    row_of_table = False  # a row of a table whose columns its grandparent names
    if columns is None and len(parts) > 2:
        grandparent = reference_value("/".join(parts[:-2]), references)
        columns = grandparent.get("columns") if isinstance(grandparent, dict) else None
        row_of_table = columns is not None
    text = _describe_value(value, columns)
    if isinstance(value, dict) and "statement" in value:
        return text
    if isinstance(parent, list) and len(parts) > 2:  # one column of a table's row
        return f"{parts[-3]} {parts[-1]}: {text}"
    name = (f"{parts[-2]} {parts[-1]}" if (parts[-1].isdigit() or row_of_table)
            and len(parts) > 1 else parts[-1])
    return f"{name}: {text}"
