"""The verdicts a check can get, and how every page writes them: one table, read by the
check engine, the results files, the verdict tables, the ledger and the grid at a glance.

Graded verdicts (:data:`GRADED`) come from a measured interval:

- ``reproduced``: the whole 95% interval lies on the paper's side of the threshold (for an
  equivalence check: inside the declared margin);
- ``not reproduced``: it lies wholly on the other side (outside the margin);
- ``inconclusive``: it straddles the threshold (the margin's edge);
- ``sample too small``: the paper's side cannot be reached at this sample size (a statistic
  with a floor above the threshold); read "inconclusive: sample too small", with the size
  that would decide it in the record's note.

A graded verdict on a kind of model the source did not study (``scope: generalisation`` in
the record; :meth:`anisotropy.report.checks.CheckSpec.scope_of`) tests whether the claim
carries over, not whether it reproduces: the pages write it so (:data:`GENERALISED`, marked
:data:`BEYOND`) and count it apart.

The others are declared, never measured into: ``property`` (holds by construction of the
method; shown as a sanity check, never counted as reproduced), ``exempt``, ``control``,
``finding`` and ``not run``.
"""

from __future__ import annotations

__all__ = ["VERDICTS", "GRADED", "MARKS", "GENERALISED", "BEYOND", "BEYOND_TEXT", "COLORS",
           "SYMBOLS", "mark", "symbol"]

GRADED = ("reproduced", "not reproduced", "inconclusive", "sample too small")
VERDICTS = GRADED + ("property", "exempt", "control", "finding", "not run")

#: How a reader sees each verdict: a symbol and its words.
MARKS = {"reproduced": "✓ reproduced", "not reproduced": "✗ not reproduced",
         "inconclusive": "? inconclusive",
         "sample too small": "◌ inconclusive: sample too small",
         "property": "≡ property", "exempt": "○ exempt", "control": "◇ control",
         "finding": "• finding", "not run": "– not run"}
#: Okabe & Ito's colour-blind-safe palette.
COLORS = {"reproduced": "#009E73", "not reproduced": "#D55E00", "inconclusive": "#E69F00",
          "sample too small": "#CC79A7", "property": "#999999", "exempt": "#999999",
          "control": "#56B4E9", "finding": "#0072B2", "not run": "#999999"}
SYMBOLS = {verdict: text.split(" ", 1)[0] for verdict, text in MARKS.items()}
#: A graded verdict on a kind of model the source did not study: a generalisation.
GENERALISED = {"reproduced": "✓ carries over", "not reproduced": "✗ does not carry over",
               "inconclusive": "? inconclusive", "sample too small":
               "◌ inconclusive: sample too small"}
#: The mark of a generalisation beside a verdict's symbol, and its legend.
BEYOND = "↗"
BEYOND_TEXT = ("↗ a kind of model the paper did not study: whether the claim carries over, "
               "not whether it reproduces")


def mark(verdict: str, scope: str = "") -> str:
    """``"✓ reproduced"``: a verdict as the pages write it (an unknown one as it is); on a
    generalisation (``scope == "generalisation"``), ``"↗ ✗ does not carry over"``.

    Parameters
    ----------
    verdict : str
        A verdict of :data:`VERDICTS`; any other string is returned as it is.
    scope : str, optional
        The record's scope, ``"reproduction"`` or ``"generalisation"``; default ``""`` (none,
        as for a record that is not graded). Only a graded verdict (:data:`GENERALISED`) reads
        differently on a generalisation.

    Returns
    -------
    str
        The verdict's symbol and words (:data:`MARKS`), or, on a generalisation,
        :data:`BEYOND` followed by its :data:`GENERALISED` text.
    """
    if scope == "generalisation" and verdict in GENERALISED:
        return f"{BEYOND} {GENERALISED[verdict]}"
    return MARKS.get(verdict, verdict)


def symbol(verdict: str, scope: str = "") -> str:
    """``"✓"``, or ``"↗✓"`` on a generalisation.

    Parameters
    ----------
    verdict : str
        A verdict of :data:`VERDICTS`; any other string is returned as it is.
    scope : str, optional
        The record's scope; default ``""``. With ``"generalisation"``, a graded verdict's
        symbol is prefixed with :data:`BEYOND`.

    Returns
    -------
    str
        The verdict's symbol (:data:`SYMBOLS`), prefixed with :data:`BEYOND` for a graded
        verdict on a generalisation.
    """
    text = SYMBOLS.get(verdict, verdict)
    return f"{BEYOND}{text}" if scope == "generalisation" and verdict in GENERALISED else text
