"""Simultaneous intervals for a statement about every layer: numpy only.

A check that reads "in every layer" grades the worst layer, and its interval comes from the
layers' own intervals (:func:`~anisotropy.geometry.intervals.interval_of_min`). With
pointwise 95% intervals, the chance that *some* layer's interval misses its value grows with
the number of layers, so "not reproduced" (one layer's interval wholly on the wrong side)
would be declared too easily. :func:`simultaneous_intervals` widens every layer's interval
together until 95% of the joint bootstrap draws lie inside all of them at once.

The band is the quantile-calibrated sup-t band of Montiel Olea & Plagborg-Møller (2019):
each layer's interval is its own draws' central :math:`1-\\zeta` quantile range, with one
:math:`\\zeta` for every layer, the largest whose band holds at least ``level`` of the
draws (each draw a whole vector over the layers, drawn under one set of weights). With
perfectly correlated layers :math:`\\zeta = 1 - \\text{level}` (the pointwise intervals); with
independent layers it approaches Šidák's :math:`1 - \\text{level}^{1/L}`.

References
----------
Montiel Olea, J. L., Plagborg-Møller, M. (2019). Simultaneous confidence bands: theory,
implementation, and an application to SVARs. Journal of Applied Econometrics 34(1), 1-17.
"""

from __future__ import annotations

import numpy as np

from anisotropy.geometry.intervals import LEVEL, Interval

__all__ = ["band_level", "simultaneous_intervals"]


def _band(draws: np.ndarray, zeta: float) -> tuple[np.ndarray, np.ndarray]:
    return (np.quantile(draws, zeta / 2, axis=0), np.quantile(draws, 1 - zeta / 2, axis=0))


def _held(draws: np.ndarray, zeta: float) -> float:
    low, high = _band(draws, zeta)
    return float(((draws >= low) & (draws <= high)).all(axis=1).mean())


def band_level(draws, level: float = LEVEL, *, steps: int = 40) -> float:
    """The pointwise level :math:`1-\\zeta` of the simultaneous band of ``draws``
    (``(n_draws, n_columns)``, one row per joint draw): the smallest with which every
    column's central quantile range holds at least ``level`` of the rows at once.

    :math:`\\zeta` is found by bisection on :math:`[0, 1-\\text{level}]` (``steps`` halvings):
    the share of rows held falls as :math:`\\zeta` grows, and at :math:`\\zeta = 0` the band
    is each column's range, which holds every row.

    Raises on fewer than 20 rows, no column, or a draw that is not finite.
    """
    draws = np.asarray(draws, dtype=np.float64)
    if draws.ndim != 2 or draws.shape[1] == 0:
        raise ValueError(f"draws must be (n_draws, n_columns) with a column; got shape "
                         f"{draws.shape}.")
    if draws.shape[0] < 20:
        raise ValueError(f"Need at least 20 joint draws for a band; got {draws.shape[0]}.")
    if not np.isfinite(draws).all():
        raise ValueError(f"{int((~np.isfinite(draws)).sum())} draws are not finite; the "
                         "statistic is undefined on some resamples: sample more units.")
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1); got {level}.")
    low, high = 0.0, 1 - level
    if _held(draws, high) >= level:
        return level
    for _ in range(steps):
        middle = (low + high) / 2
        if _held(draws, middle) >= level:
            low = middle
        else:
            high = middle
    return 1 - low


def simultaneous_intervals(draws, level: float = LEVEL, *, method: str) -> list[Interval]:
    """One interval per column of ``draws`` (``(n_draws, n_columns)``, the rows joint
    draws, e.g. every layer under one set of bootstrap weights) such that at least
    ``level`` of the rows lie inside every interval at once (:func:`band_level`).

    Each interval is a central quantile range of its column, at the common pointwise level
    the band needs; the method text gives that level. A single column gives its
    ``level`` percentile interval.
    """
    draws = np.asarray(draws, dtype=np.float64)
    pointwise = band_level(draws, level)
    low, high = _band(draws, 1 - pointwise)
    text = (f"{method}; simultaneous {level:.0%} band over {draws.shape[1]} columns "
            f"(quantile-calibrated sup-t: each at pointwise level {pointwise:.4g})")
    return [Interval(a, b, text) for a, b in zip(low, high, strict=True)]
