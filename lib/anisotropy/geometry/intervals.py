"""Uncertainty intervals for the numbers a check grades: numpy/scipy only, no torch.

Two kinds of uncertainty enter the book's numbers, and each gets its own interval:

- **Sampling.** A statistic computed on sampled units (words, word pairs, token types,
  tokens, STS sentence pairs) gets a *percentile bootstrap* interval: the units are drawn
  with replacement ``n_boot`` times (seeded), the statistic is recomputed on each draw from
  the cached vectors, and the 2.5% and 97.5% quantiles of the draws are the 95% interval
  (Efron & Tibshirani 1993, ch. 13). No new forward pass is needed.
- **Training.** A number that depends on a random initialization (a flow, a classifier) gets
  a *t-interval over seeds*: mean ± t(0.975, n−1) · s / √n (Student). With 2 seeds t is
  12.7, so two seeds decide a check only when the effect dwarfs their difference; that is
  the honest answer, not a defect.

Every function returns an :class:`Interval` whose ``method`` states the method, B and the
unit, as the ledger prints it. The helpers that draw many resamples at once
(:func:`resample_counts`, :func:`bootstrap_means`, :func:`rowwise_spearman`) turn a
bootstrap into one matrix product; their memory is ``n_boot * n_units`` floats.

References
----------
Efron, B., Tibshirani, R. (1993). An Introduction to the Bootstrap. Chapman & Hall.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

__all__ = ["Interval", "LEVEL", "DEFAULT_BOOT", "resample_counts", "resample_indices",
           "percentile_interval", "normal_interval", "boot_method", "bootstrap_means",
           "seed_interval",
           "sd_interval", "interval_of_max", "interval_of_min", "combine_independent",
           "rowwise_spearman", "rowwise_pearson", "dirichlet_weights",
           "weighted_mean_draws", "spread_half_width", "half_samples",
           "delete_half_interval"]

LEVEL = 0.95
DEFAULT_BOOT = 1000


@dataclass(frozen=True)
class Interval:
    """A two-sided interval ``[low, high]`` with the method that produced it.

    Attributes
    ----------
    low, high : float
        The bounds, finite, with ``low <= high`` (checked; stored as float).
    method : str
        How it was made: the method, B and the unit, as the ledger prints it (e.g.
        :func:`boot_method`).
    """

    low: float
    high: float
    method: str

    def __post_init__(self) -> None:
        low, high = float(self.low), float(self.high)
        if not (np.isfinite(low) and np.isfinite(high)):
            raise ValueError(f"Interval bounds must be finite; got [{low}, {high}] "
                             f"({self.method}).")
        if low > high:
            raise ValueError(f"Interval low {low} > high {high} ({self.method}).")
        object.__setattr__(self, "low", low)
        object.__setattr__(self, "high", high)

    def as_list(self) -> list[float]:
        """The interval as a list, as the ledger stores it.

        Returns
        -------
        list of float
            ``[low, high]``.
        """
        return [self.low, self.high]


def _check_boot(n_boot: int) -> None:
    if not isinstance(n_boot, (int, np.integer)) or n_boot < 20:
        raise ValueError(f"n_boot must be an integer >= 20 for a 95% percentile interval; "
                         f"got {n_boot!r}.")


def _check_units(n_units: int, unit: str) -> None:
    if not isinstance(n_units, (int, np.integer)) or n_units < 2:
        raise ValueError(f"A bootstrap needs at least 2 {unit}; got {n_units}.")


def resample_indices(n_units: int, n_boot: int = DEFAULT_BOOT, seed: int = 0) -> np.ndarray:
    """``(n_boot, n_units)`` indices drawn with replacement (seeded).

    Parameters
    ----------
    n_units : int
        Number of units resampled, >= 2.
    n_boot : int, optional
        Number of resamples, an integer >= 20 (default :data:`DEFAULT_BOOT`, 1000).
    seed : int, optional
        Seed of ``numpy.random.default_rng`` (default 0).

    Returns
    -------
    numpy.ndarray of int, shape (n_boot, n_units)
        Row ``b``: the units of resample ``b``, each uniform over ``range(n_units)``.

    Raises
    ------
    ValueError
        For fewer than 2 units, or ``n_boot`` not an integer >= 20.
    """
    _check_units(n_units, "units")
    _check_boot(n_boot)
    rng = np.random.default_rng(seed)
    return rng.integers(0, n_units, size=(n_boot, n_units))


def half_samples(n_units: int, n_draws: int, seed: int = 0) -> np.ndarray:
    """``(n_draws, n_units // 2)`` random halves of the units, drawn without replacement
    (seeded), each row ascending: the subsets of a delete-d jackknife with d = n - n // 2
    (:func:`delete_half_interval`).

    A statistic whose units are points and their nearest neighbours (TwoNN) cannot be
    bootstrapped with replacement (a repeated point is its own neighbour at distance 0) nor
    reweighted with its neighbours held fixed (leaving a point out changes its neighbours'
    ratios); it can be recomputed on a subset.

    Parameters
    ----------
    n_units : int
        Number of units, >= 4 (a half of at least 2).
    n_draws : int
        Number of halves, an integer >= 20.
    seed : int, optional
        Seed of ``numpy.random.default_rng`` (default 0).

    Returns
    -------
    numpy.ndarray of int, shape (n_draws, n_units // 2)
        Row ``b``: the units of half ``b``, distinct and ascending.

    Raises
    ------
    ValueError
        For fewer than 4 units, or ``n_draws`` not an integer >= 20.
    """
    if n_units < 4:
        raise ValueError(f"half samples need at least 4 units; got {n_units}.")
    _check_boot(n_draws)
    rng = np.random.default_rng(seed)
    return np.sort(np.stack([rng.choice(n_units, n_units // 2, replace=False)
                             for _ in range(n_draws)]), axis=1)


def delete_half_interval(estimate: float, draws, n_units: int, level: float = LEVEL, *,
                         method: str) -> Interval:
    """A t interval around ``estimate`` from the delete-d jackknife variance of random
    subsets of m = n // 2 units (:func:`half_samples`), d = n - m left out of each:

    .. math:: v = \\frac{n - d}{d}\\,\\frac{1}{R}\\sum_{s=1}^{R}
              (\\hat\\theta_s - \\bar\\theta)^2, \\qquad
              \\hat\\theta \\pm t_{R-1,\\,(1+\\text{level})/2}\\sqrt{v}

    (Shao & Wu 1989, with R random subsets as Shao & Tu 1995, Sec. 5.2; like the
    delete-1 jackknife's, Efron & Stein 1981, it overstates the variance in expectation,
    Shao & Tu 1995, Sec. 2.3). The t quantile's R - 1 degrees of freedom carry only the
    Monte Carlo error of using R subsets. Only the spread of the
    subset estimates is used: a statistic whose bias depends on the sample size (TwoNN
    on fewer points) is not shifted.

    Parameters
    ----------
    estimate : float
        The full-sample estimate, the interval's centre.
    draws : array_like of shape (R,)
        The statistic on each subset; at least 2, all finite.
    n_units : int
        n, the units of the full sample (the subsets hold ``n_units // 2``).
    level : float, optional
        Coverage level (default 0.95).
    method : str
        How the draws were made, for the interval's method text.

    Returns
    -------
    Interval
        ``estimate`` plus and minus the half-width above.

    Raises
    ------
    ValueError
        For fewer than 2 draws, a draw that is not finite, or fewer than 4 units.
    """
    draws = np.asarray(draws, dtype=float).ravel()
    if draws.size < 2 or not np.all(np.isfinite(draws)):
        raise ValueError(f"need at least 2 finite subset estimates; got {draws.size}, "
                         f"{int((~np.isfinite(draws)).sum())} not finite.")
    if n_units < 4:
        raise ValueError(f"half samples need at least 4 units; got {n_units}.")
    m = n_units // 2
    d = n_units - m
    v = (n_units - d) / d * float(np.mean((draws - draws.mean()) ** 2))
    half = float(stats.t.ppf((1 + level) / 2, draws.size - 1)) * np.sqrt(v)
    return Interval(estimate - half, estimate + half,
                    f"{method}: delete-{d} jackknife over {n_units:,} units, "
                    f"{draws.size} random halves, t interval")


def resample_counts(n_units: int, n_boot: int = DEFAULT_BOOT, seed: int = 0) -> np.ndarray:
    """``(n_boot, n_units)`` float counts: how often each unit is drawn in each resample.

    Row ``b`` sums to ``n_units``; ``counts @ values / n_units`` is the resampled mean. The
    counts are those of :func:`resample_indices` with the same seed.

    Parameters
    ----------
    n_units : int
        Number of units resampled, >= 2.
    n_boot : int, optional
        Number of resamples, an integer >= 20 (default :data:`DEFAULT_BOOT`, 1000).
    seed : int, optional
        Seed of ``numpy.random.default_rng`` (default 0).

    Returns
    -------
    numpy.ndarray of shape (n_boot, n_units), float64
        ``counts[b, i]``: how often unit ``i`` is drawn in resample ``b``.

    Raises
    ------
    ValueError
        For fewer than 2 units, or ``n_boot`` not an integer >= 20.
    """
    indices = resample_indices(n_units, n_boot, seed)
    offsets = (np.arange(n_boot) * n_units)[:, None]
    counts = np.bincount((indices + offsets).ravel(), minlength=n_boot * n_units)
    return counts.reshape(n_boot, n_units).astype(np.float64)


def dirichlet_weights(n_units: int, n_boot: int = DEFAULT_BOOT, seed: int = 0) -> np.ndarray:
    """``(n_boot, n_units)`` Bayesian-bootstrap weights (Rubin 1981): each row is
    ``n_units`` times a draw from the flat Dirichlet, so it sums to ``n_units`` and all-ones
    weights give the point estimate.

    Every unit keeps a positive weight in every draw, so a statistic that needs two
    distinct units (a mean over pairs, a cluster's mean) is defined in every draw and every
    draw measures the same quantity. The weighted mean's variance is ``n/(n+1)`` times the
    ordinary bootstrap's.

    Parameters
    ----------
    n_units : int
        Number of units resampled, >= 2.
    n_boot : int, optional
        Number of resamples, an integer >= 20 (default :data:`DEFAULT_BOOT`, 1000).
    seed : int, optional
        Seed of ``numpy.random.default_rng`` (default 0).

    Returns
    -------
    numpy.ndarray of shape (n_boot, n_units), float64
        Positive weights, each row summing to ``n_units``.

    Raises
    ------
    ValueError
        For fewer than 2 units, or ``n_boot`` not an integer >= 20.

    References
    ----------
    Rubin, D. B. (1981). The Bayesian bootstrap. Annals of Statistics 9(1), 130-134.
    """
    _check_units(n_units, "units")
    _check_boot(n_boot)
    gaps = np.random.default_rng(seed).standard_exponential((n_boot, n_units))
    return gaps * (n_units / gaps.sum(axis=1, keepdims=True))


def weighted_mean_draws(values, weights: np.ndarray) -> np.ndarray:
    """Draws of weighted means under per-draw unit weights.

    For draw ``b`` and column ``j``, ``m_bj = sum_i w_bi v_ij / sum_i w_bi`` over the units
    ``i`` whose ``v_ij`` is finite: a non-finite entry (a word with no MEV in a layer) is
    left out of its column's mean in every draw alike, and a column with none is NaN.

    Parameters
    ----------
    values : array, ``(n_units,)`` or ``(n_units, n_columns)``
        The statistic of each unit (per column); non-finite entries are left out.
    weights : array, ``(n_boot, n_units)``
        Unit weights per draw, as :func:`dirichlet_weights` or :func:`resample_counts` give.

    Returns
    -------
    ndarray, ``(n_boot,)`` or ``(n_boot, n_columns)``, float64.

    Raises
    ------
    ValueError
        If ``weights`` is not 2-D with one column per unit of ``values``.
    """
    values = np.asarray(values, dtype=np.float64)
    weights = np.asarray(weights, dtype=np.float64)
    if weights.ndim != 2 or weights.shape[1] != values.shape[0]:
        raise ValueError(f"weights must be (n_boot, {values.shape[0]}) for {values.shape[0]} "
                         f"units; got shape {weights.shape}.")
    finite = np.isfinite(values)
    with np.errstate(invalid="ignore", divide="ignore"):  # a column with no finite entry: NaN
        return (weights @ np.where(finite, values, 0.0)) / (weights @ finite.astype(np.float64))


def percentile_interval(draws, level: float = LEVEL, *, method: str) -> Interval:
    """The central ``level`` quantile range of bootstrap draws.

    Raises when a draw is not finite: a statistic undefined on some resample (too few
    units) must be fixed at its source, not averaged away.

    Parameters
    ----------
    draws : array_like
        The bootstrap draws of the statistic (flattened); at least 20, all finite.
    level : float, optional
        Two-sided level (default :data:`LEVEL`, 0.95): the ends are the
        :math:`(1-\\text{level})/2` and :math:`(1+\\text{level})/2` quantiles.
    method : str
        How the draws were made (e.g. :func:`boot_method`), stored in the interval.

    Returns
    -------
    Interval
        ``[low, high]``, the two quantiles of the draws, with ``method``.

    Raises
    ------
    ValueError
        On fewer than 20 draws or a draw that is not finite.
    """
    draws = np.asarray(draws, dtype=np.float64).ravel()
    if draws.size < 20:
        raise ValueError(f"Need at least 20 draws for a percentile interval; got {draws.size}.")
    if not np.isfinite(draws).all():
        bad = int((~np.isfinite(draws)).sum())
        raise ValueError(f"{bad} of {draws.size} bootstrap draws are not finite ({method}); "
                         "the statistic is undefined on some resamples: sample more units.")
    alpha = (1 - level) / 2
    low, high = np.quantile(draws, [alpha, 1 - alpha])
    return Interval(low, high, method)


def normal_interval(estimate: float, draws, level: float = LEVEL, *, method: str) -> Interval:
    r"""The standard normal bootstrap interval: the estimate plus or minus
    :math:`z_{1-\alpha/2}` times the standard deviation of the bootstrap draws,

    .. math:: \hat\theta \pm z_{1-\alpha/2}\,\mathrm{sd}(\theta^*_1, \dots, \theta^*_B)

    (Efron & Tibshirani 1993, Sec. 13.2). It holds the estimate by construction, where a
    percentile interval may not: a statistic that a resample biases (IsoScore of points
    resampled with replacement, whose repeated points make the space look less isotropic)
    gives draws that sit to one side of the full sample's value, and their quantiles can
    leave it out. The draws give the spread only. Raises on fewer than 20 draws or a draw
    that is not finite, as :func:`percentile_interval` does.

    Parameters
    ----------
    estimate : float
        The statistic on the full sample, :math:`\hat\theta`; the interval's centre.
    draws : array_like
        The bootstrap draws :math:`\theta^*_b` (flattened); at least 20, all finite.
    level : float, optional
        Two-sided level, :math:`1-\alpha` (default :data:`LEVEL`, 0.95).
    method : str
        How the draws were made, stored in the interval.

    Returns
    -------
    Interval
        :math:`\hat\theta \pm z_{1-\alpha/2}\,\mathrm{sd}`, the standard deviation
        taken with ``ddof=1``, with ``method``.

    Raises
    ------
    ValueError
        On fewer than 20 draws, or an estimate or draw that is not finite.
    """
    draws = np.asarray(draws, dtype=np.float64).ravel()
    if draws.size < 20:
        raise ValueError(f"Need at least 20 draws for a normal bootstrap interval; got "
                         f"{draws.size}.")
    if not np.isfinite(draws).all() or not np.isfinite(estimate):
        raise ValueError(f"The estimate {estimate!r} or a bootstrap draw is not finite "
                         f"({method}).")
    half = float(stats.norm.ppf(0.5 + level / 2) * draws.std(ddof=1))
    return Interval(float(estimate) - half, float(estimate) + half, method)


def boot_method(n_boot: int, n_units: int, unit: str, note: str = "") -> str:
    """``"percentile bootstrap, B=1000 over 812 words"`` (+ a note).

    Parameters
    ----------
    n_boot : int
        Number of resamples, B.
    n_units : int
        Number of units resampled (printed with thousands separators).
    unit : str
        What the units are, in the plural (``"words"``, ``"sentence pairs"``).
    note : str, optional
        Appended after a semicolon when not empty (default ``""``).

    Returns
    -------
    str
        ``f"95% percentile bootstrap, B={n_boot} over {n_units:,} {unit}"``, then
        ``f"; {note}"`` when a note is given.
    """
    text = f"95% percentile bootstrap, B={n_boot} over {n_units:,} {unit}"
    return f"{text}; {note}" if note else text


def bootstrap_means(values, n_boot: int = DEFAULT_BOOT, seed: int = 0,
                    counts: np.ndarray | None = None, skip_nan: bool = False) -> np.ndarray:
    """Bootstrap draws of column means: ``(n_boot, n_columns)`` from ``(n_units, n_columns)``.

    ``counts`` (from :func:`resample_counts`) lets several statistics share one resample of
    the same units (e.g. every layer of a word table). With ``skip_nan`` a NaN entry is
    left out of its column's mean (as :meth:`pandas.Series.mean` does), so a unit undefined
    in one column still counts in the others; otherwise NaN is refused.

    Parameters
    ----------
    values : array_like of shape (n_units,) or (n_units, n_columns)
        The statistic of each unit (per column); a 1-D array is one column. No entry may
        be infinite, nor NaN unless ``skip_nan``.
    n_boot : int, optional
        Number of resamples when ``counts`` is not given (default :data:`DEFAULT_BOOT`,
        1000; at least 20).
    seed : int, optional
        Seed of :func:`resample_counts` when ``counts`` is not given (default 0).
    counts : numpy.ndarray of shape (n_boot, n_units), optional
        Resample counts to use (from :func:`resample_counts`); ``n_boot`` and ``seed``
        are then ignored.
    skip_nan : bool, optional
        Leave NaN entries out of their column's mean instead of refusing them (default
        False). A column whose resample holds no finite entry gives NaN.

    Returns
    -------
    numpy.ndarray of shape (n_boot, n_columns), float64
        The column means of each resample (``n_columns`` is 1 for 1-D ``values``).

    Raises
    ------
    ValueError
        For ``values`` not 1-D or 2-D, an infinite entry, NaN without ``skip_nan``, or
        ``counts`` that do not cover the units of ``values``.
    """
    values = np.asarray(values, dtype=np.float64)
    if values.ndim == 1:
        values = values[:, None]
    if values.ndim != 2:
        raise ValueError(f"values must be 1-D or 2-D; got shape {values.shape}.")
    finite = np.isfinite(values)
    if not skip_nan and not finite.all():
        raise ValueError("values contain NaN or inf; drop undefined units before resampling "
                         "or pass skip_nan=True.")
    if np.isinf(values).any():
        raise ValueError("values contain inf.")
    n = values.shape[0]
    if counts is None:
        counts = resample_counts(n, n_boot, seed)
    elif counts.shape[1] != n:
        raise ValueError(f"counts cover {counts.shape[1]} units, values {n}.")
    if finite.all():
        return counts @ values / n
    weight = counts @ finite.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (counts @ np.where(finite, values, 0.0)) / weight


def seed_interval(values: Sequence[float], level: float = LEVEL,
                  unit: str = "seeds") -> Interval:
    """Student t-interval of the mean over independent seeds: mean ± t·s/√n.

    Needs at least 2 seeds (one seed carries no information about the spread).

    Parameters
    ----------
    values : sequence of float
        One value per seed (flattened); at least 2, all finite.
    level : float, optional
        Two-sided level (default :data:`LEVEL`, 0.95).
    unit : str, optional
        What the values are over, for the messages and the method text (default
        ``"seeds"``).

    Returns
    -------
    Interval
        mean ± :math:`t_{(1+\\text{level})/2,\\,n-1}\\, s/\\sqrt n` (``s`` with
        ``ddof=1``), its method ``"95% t-interval of the mean over n seeds"``.

    Raises
    ------
    ValueError
        On fewer than 2 values or a value that is not finite.
    """
    values = np.asarray(values, dtype=np.float64).ravel()
    if values.size < 2:
        raise ValueError(f"A seed interval needs at least 2 {unit}; got {values.size}. "
                         "Raise the number of seeds.")
    if not np.isfinite(values).all():
        raise ValueError(f"Seed values must be finite; got {values.tolist()}.")
    mean = values.mean()
    half = stats.t.ppf(0.5 + level / 2, values.size - 1) * values.std(ddof=1) / np.sqrt(
        values.size)
    return Interval(mean - half, mean + half,
                    f"{level:.0%} t-interval of the mean over {values.size} {unit}")


def spread_half_width(groups: Sequence[Sequence[float]], level: float = LEVEL
                      ) -> tuple[float, float]:
    """Half-width and degrees of freedom of a mean over G groups of one draw each, from
    each group's spread of draws.

    Group g's draws (refits, seeds, bootstrap refits) have standard deviation
    :math:`s_g` over :math:`n_g \\ge 2` draws. One draw per group, averaged over the
    groups, varies with variance :math:`\\sum_g s_g^2 / G^2`; the half-width is
    :math:`t_{\\nu} \\sqrt{\\sum_g s_g^2} / G` with Welch-Satterthwaite's degrees of
    freedom :math:`\\nu = (\\sum_g s_g^2)^2 / \\sum_g s_g^4 / (n_g - 1)`, floored at 1
    (draws that all tie give a half-width of 0). With one group it is
    :math:`t_{n-1}\\, s`, the spread of a single draw (not of the mean of the draws).

    Parameters
    ----------
    groups : sequence of sequences of float
        The draws of each group (each flattened); at least one group, each of at least 2
        finite draws.
    level : float, optional
        Two-sided level of :math:`t_\\nu`, the :math:`(1+\\text{level})/2` quantile
        (default :data:`LEVEL`, 0.95).

    Returns
    -------
    half_width : float
        :math:`t_{\\nu} \\sqrt{\\sum_g s_g^2} / G`.
    dof : float
        :math:`\\nu`, the Welch-Satterthwaite degrees of freedom, at least 1.

    Raises
    ------
    ValueError
        For no group, a group of fewer than 2 draws, or a draw that is not finite.

    References
    ----------
    Satterthwaite, F. E. (1946). An approximate distribution of estimates of variance
    components. Biometrics Bulletin 2(6), 110-114.
    """
    arrays = [np.asarray(g, dtype=np.float64).ravel() for g in groups]
    if not arrays or min(a.size for a in arrays) < 2:
        raise ValueError("Every group needs at least 2 draws to give a spread; got sizes "
                         f"{[a.size for a in arrays]}.")
    if not all(np.isfinite(a).all() for a in arrays):
        raise ValueError("The draws must be finite.")
    variances = np.array([a.var(ddof=1) for a in arrays])
    dof = np.array([a.size - 1 for a in arrays], dtype=np.float64)
    df = max(variances.sum() ** 2 / max(float(np.sum(variances ** 2 / dof)), 1e-300), 1.0)
    return float(stats.t.ppf(0.5 + level / 2, df) * np.sqrt(variances.sum()) / len(arrays)), df


def sd_interval(values: Sequence[float], level: float = LEVEL,
                unit: str = "seeds") -> Interval:
    """Chi-square interval of a standard deviation from ``n`` normal draws:
    ``[s·sqrt((n−1)/χ²_{1−α/2}), s·sqrt((n−1)/χ²_{α/2})]``.

    Parameters
    ----------
    values : sequence of float
        The draws (flattened), at least 2; ``s`` is their standard deviation with
        ``ddof=1`` and ``χ²_q`` the ``q`` quantile of :math:`\\chi^2_{n-1}`.
    level : float, optional
        Two-sided level, ``1 − α`` (default :data:`LEVEL`, 0.95).
    unit : str, optional
        What the values are over, for the messages and the method text (default
        ``"seeds"``).

    Returns
    -------
    Interval
        The interval of the standard deviation, its method
        ``"95% chi-square interval of the s.d. over n seeds"``.

    Raises
    ------
    ValueError
        On fewer than 2 values (and, through :class:`Interval`, on bounds that are not
        finite).
    """
    values = np.asarray(values, dtype=np.float64).ravel()
    if values.size < 2:
        raise ValueError(f"A standard-deviation interval needs at least 2 {unit}; "
                         f"got {values.size}.")
    n, s = values.size, values.std(ddof=1)
    alpha = 1 - level
    low = s * np.sqrt((n - 1) / stats.chi2.ppf(1 - alpha / 2, n - 1))
    high = s * np.sqrt((n - 1) / stats.chi2.ppf(alpha / 2, n - 1))
    return Interval(low, high, f"{level:.0%} chi-square interval of the s.d. over {n} {unit}")


def interval_of_max(intervals: Sequence[Interval], what: str = "") -> Interval:
    """Interval of a maximum of several estimates, from their own intervals:
    ``[max of lows, max of highs]``.

    The upper end is conservative (the maximum exceeds it only if some estimate exceeds
    its own upper end); the lower end is not: with k estimates the true maximum can fall
    below it with probability up to k times 2.5%. A "below the threshold" verdict read from
    the upper end is therefore safe; an "above" verdict is less so.

    Parameters
    ----------
    intervals : sequence of Interval
        The intervals of the estimates; at least one.
    what : str, optional
        What the estimates are (``"layers"``), for the method text (default
        ``"estimates"``).

    Returns
    -------
    Interval
        ``[max of lows, max of highs]``, its method
        ``"max over k <what> of: <the distinct methods, sorted, joined by '; '>"``.

    Raises
    ------
    ValueError
        For no interval.
    """
    if not intervals:
        raise ValueError("interval_of_max needs at least one interval.")
    methods = sorted({i.method for i in intervals})
    return Interval(max(i.low for i in intervals), max(i.high for i in intervals),
                    f"max over {len(intervals)} {what or 'estimates'} of: " + "; ".join(methods))


def interval_of_min(intervals: Sequence[Interval], what: str = "") -> Interval:
    """Interval of a minimum of several estimates, from their own intervals:
    ``[min of lows, min of highs]``, the mirror of :func:`interval_of_max`.

    Its lower end lies below the true minimum unless some estimate falls below its own
    lower end; "above the threshold" is then read from every estimate's interval at once
    (the intersection-union test of a statement that holds "in every layer"), and the
    minimum of the point estimates always lies inside.

    Parameters
    ----------
    intervals : sequence of Interval
        The intervals of the estimates; at least one.
    what : str, optional
        What the estimates are (``"layers"``), for the method text (default
        ``"estimates"``).

    Returns
    -------
    Interval
        ``[min of lows, min of highs]``, its method
        ``"min over k <what> of: <the distinct methods, sorted, joined by '; '>"``.

    Raises
    ------
    ValueError
        For no interval.
    """
    if not intervals:
        raise ValueError("interval_of_min needs at least one interval.")
    methods = sorted({i.method for i in intervals})
    return Interval(min(i.low for i in intervals), min(i.high for i in intervals),
                    f"min over {len(intervals)} {what or 'estimates'} of: " + "; ".join(methods))


def combine_independent(center: float, *intervals: Interval) -> Interval:
    """One interval for two or more independent sources of error around ``center``: the
    half-widths add in quadrature, ``h = sqrt(sum h_i^2)`` (each ``h_i`` is the larger
    distance from ``center`` to an end of interval ``i``). A normal approximation; used
    where a trained part (seeds) and a sampled one (pairs) both move a number.

    Parameters
    ----------
    center : float
        The point estimate the combined interval is centred on.
    *intervals : Interval
        The intervals of the independent sources of error; at least one.

    Returns
    -------
    Interval
        ``[center - h, center + h]``, its method the intervals' methods, each in
        parentheses, joined by ``" and "``.

    Raises
    ------
    ValueError
        For no interval.
    """
    if not intervals:
        raise ValueError("combine_independent needs at least one interval.")
    halves = [max(center - i.low, i.high - center, 0.0) for i in intervals]
    half = float(np.sqrt(np.sum(np.square(halves))))
    return Interval(center - half, center + half, " and ".join(
        f"({i.method})" for i in intervals) + ", half-widths combined in quadrature")


def rowwise_pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r of each row of ``x`` with the same row of ``y`` (both ``(n_rows, n)``).

    Parameters
    ----------
    x, y : numpy.ndarray of shape (n_rows, n)
        The paired samples, one pair of rows per draw.

    Returns
    -------
    numpy.ndarray of shape (n_rows,), float64
        The correlation of each pair of rows; NaN where a row is constant.

    Raises
    ------
    ValueError
        If ``x`` and ``y`` are not 2-D arrays of one shape.
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 2:
        raise ValueError(f"x and y must be 2-D with the same shape; got {x.shape}, {y.shape}.")
    xc = x - x.mean(axis=1, keepdims=True)
    yc = y - y.mean(axis=1, keepdims=True)
    denominator = np.sqrt(np.einsum("ij,ij->i", xc, xc) * np.einsum("ij,ij->i", yc, yc))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.einsum("ij,ij->i", xc, yc) / denominator


def rowwise_spearman(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman rho of each row of ``x`` with the same row of ``y`` (average ranks for
    ties, as :func:`scipy.stats.spearmanr`).

    Parameters
    ----------
    x, y : numpy.ndarray of shape (n_rows, n)
        The paired samples, one pair of rows per draw.

    Returns
    -------
    numpy.ndarray of shape (n_rows,), float64
        The rank correlation of each pair of rows (:func:`rowwise_pearson` of the rows'
        ranks); NaN where a row is constant.

    Raises
    ------
    ValueError
        If ``x`` and ``y`` are not 2-D arrays of one shape.
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 2:
        raise ValueError(f"x and y must be 2-D with the same shape; got {x.shape}, {y.shape}.")
    return rowwise_pearson(stats.rankdata(x, axis=1), stats.rankdata(y, axis=1))
