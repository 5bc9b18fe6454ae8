"""Intervals for a statement about every layer: numpy only.

A check that reads "in every layer" grades the worst layer, and its interval comes from the
layers' own intervals (:func:`~anisotropy.geometry.intervals.interval_of_min`). Its two ends
decide different things:

- **"reproduced"** needs every layer's interval on the right side of the threshold. That is
  an intersection-union test (Berger 1982): each layer tested at the pointwise level gives
  a test of "every layer" at that level, with no correction, so that end keeps each layer's
  pointwise percentile bound;
- **"not reproduced"** needs one layer's interval wholly on the wrong side. With pointwise
  intervals the chance that *some* layer's misses its value grows with the number of
  layers, so that end takes each layer's bound from a simultaneous band
  (:func:`simultaneous_bounds`): one common quantile level, the least extreme that still
  keeps ``level`` of the joint bootstrap draws (every layer under one set of weights) on
  the right side of every layer's bound at once.

The band is the quantile-calibrated sup-t band of Montiel Olea & Plagborg-Møller (2019),
one-sided. With perfectly correlated layers the level is the pointwise one; with independent
layers it approaches Šidák's :math:`\\text{level}^{1/L}`.

References
----------
Berger, R. L. (1982). Multiparameter hypothesis testing and acceptance sampling.
Technometrics 24(4), 295-300.
Montiel Olea, J. L., Plagborg-Møller, M. (2019). Simultaneous confidence bands: theory,
implementation, and an application to SVARs. Journal of Applied Econometrics 34(1), 1-17.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from anisotropy.geometry.intervals import LEVEL, Interval

__all__ = ["band_level", "simultaneous_bounds", "every_layer_intervals"]


def _bounds(draws: np.ndarray, zeta: float, side: str) -> np.ndarray:
    return np.quantile(draws, 1 - zeta if side == "upper" else zeta, axis=0)


def _held(draws: np.ndarray, zeta: float, side: str) -> float:
    bound = _bounds(draws, zeta, side)
    inside = draws <= bound if side == "upper" else draws >= bound
    return float(inside.all(axis=1).mean())


def _checked(draws) -> np.ndarray:
    draws = np.asarray(draws, dtype=np.float64)
    if draws.ndim != 2 or draws.shape[1] == 0:
        raise ValueError(f"draws must be (n_draws, n_columns) with a column; got shape "
                         f"{draws.shape}.")
    if draws.shape[0] < 20:
        raise ValueError(f"Need at least 20 joint draws for a band; got {draws.shape[0]}.")
    if not np.isfinite(draws).all():
        raise ValueError(f"{int((~np.isfinite(draws)).sum())} draws are not finite; the "
                         "statistic is undefined on some resamples: sample more units.")
    return draws


def band_level(draws, level: float, side: Literal["upper", "lower"], *,
               steps: int = 40) -> float:
    """The pointwise one-sided level :math:`1-\\zeta` of the simultaneous bounds of
    ``draws`` (``(n_draws, n_columns)``, one row per joint draw): the least with which
    every column's ``side`` quantile bound holds at least ``level`` of the rows at once.

    :math:`\\zeta` is found by bisection on :math:`[0, 1-\\text{level}]` (``steps``
    halvings): the share of rows held falls as :math:`\\zeta` grows, and at
    :math:`\\zeta = 0` each bound is its column's extreme, which holds every row.

    Parameters
    ----------
    draws : array_like of shape (n_draws, n_columns)
        Joint draws, one row per draw (e.g. every layer under one set of bootstrap
        weights); at least 20 rows and one column, all finite.
    level : float
        The share of rows that must lie on the inner side of every bound at once, in
        (0, 1).
    side : {"upper", "lower"}
        Which bound: ``"upper"`` bounds each column from above (a row is held when every
        entry is at most its column's bound), ``"lower"`` from below.
    steps : int, optional
        Number of bisection halvings of :math:`\\zeta` (default 40).

    Returns
    -------
    float
        The pointwise level :math:`1-\\zeta`, at least ``level``: ``level`` itself when the
        pointwise bounds at ``level`` already hold ``level`` of the rows jointly.

    Raises
    ------
    ValueError
        On fewer than 20 rows, no column, a draw that is not finite, a level outside
        (0, 1) or a ``side`` other than ``"upper"`` or ``"lower"``.
    """
    draws = _checked(draws)
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1); got {level}.")
    if side not in ("upper", "lower"):
        raise ValueError(f"side must be 'upper' or 'lower'; got {side!r}.")
    low, high = 0.0, 1 - level
    if _held(draws, high, side) >= level:
        return level
    for _ in range(steps):
        middle = (low + high) / 2
        if _held(draws, middle, side) >= level:
            low = middle
        else:
            high = middle
    return 1 - low


def simultaneous_bounds(draws, level: float, side: Literal["upper", "lower"]) -> np.ndarray:
    """One ``side`` bound per column of ``draws`` such that at least ``level`` of the rows
    lie on the inner side of every bound at once (:func:`band_level`).

    Parameters
    ----------
    draws : array_like of shape (n_draws, n_columns)
        Joint draws, one row per draw; at least 20 rows and one column, all finite.
    level : float
        The joint share of rows to hold, in (0, 1).
    side : {"upper", "lower"}
        ``"upper"``: bounds from above (the :math:`1-\\zeta` quantile of each column);
        ``"lower"``: bounds from below (the :math:`\\zeta` quantile).

    Returns
    -------
    numpy.ndarray of shape (n_columns,)
        The bound of each column, float64.

    Raises
    ------
    ValueError
        As :func:`band_level` does.
    """
    draws = _checked(draws)
    return _bounds(draws, 1 - band_level(draws, level, side), side)


def every_layer_intervals(draws, statement: Literal["min", "max"], level: float = LEVEL, *,
                          method: str) -> list[Interval]:
    """Per-column intervals (one per layer; ``draws`` is ``(n_draws, n_layers)``, rows
    joint) for a statement that holds in every layer, read on the worst one: ``"min"``, the
    smallest layer must be above a threshold; ``"max"``, the largest below one.

    The end that decides "reproduced" (the lower end for ``"min"``, the upper for
    ``"max"``) is each layer's pointwise percentile bound at :math:`(1-\\text{level})/2`;
    the end that decides "not reproduced" is a simultaneous bound at joint level
    :math:`(1+\\text{level})/2` over the layers (:func:`simultaneous_bounds`). With one
    layer both ends are the percentile interval's. Combine them with
    :func:`~anisotropy.geometry.intervals.interval_of_min` or ``interval_of_max``.

    Parameters
    ----------
    draws : array_like of shape (n_draws, n_layers)
        Joint draws of the statistic, one row per draw (every layer under one set of
        weights), one column per layer; at least 20 rows, all finite.
    statement : {"min", "max"}
        ``"min"``: the smallest layer must lie above a threshold; ``"max"``: the largest
        below one.
    level : float, optional
        Two-sided level of each interval (default :data:`~anisotropy.geometry.intervals.LEVEL`,
        0.95).
    method : str
        Description of how the draws were made (e.g. from
        :func:`~anisotropy.geometry.intervals.boot_method`); each interval's ``method`` is
        this text followed by a note on the simultaneous bound.

    Returns
    -------
    list of Interval
        One :class:`~anisotropy.geometry.intervals.Interval` per layer (column), in order.

    Raises
    ------
    ValueError
        For a ``statement`` other than ``"min"`` or ``"max"``, or draws that
        :func:`band_level` refuses.
    """
    if statement not in ("min", "max"):
        raise ValueError(f"statement must be 'min' or 'max'; got {statement!r}.")
    draws = _checked(draws)
    alpha = (1 - level) / 2
    if statement == "min":
        low = np.quantile(draws, alpha, axis=0)
        high = simultaneous_bounds(draws, 1 - alpha, "upper")
    else:
        low = simultaneous_bounds(draws, 1 - alpha, "lower")
        high = np.quantile(draws, 1 - alpha, axis=0)
    text = (f"{method}; the end that would call the statement false from a simultaneous "
            f"{1 - alpha:.1%} bound over {draws.shape[1]} layers (quantile-calibrated sup-t)")
    return [Interval(a, b, text) for a, b in zip(low, high, strict=True)]
