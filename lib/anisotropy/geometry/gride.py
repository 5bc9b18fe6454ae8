"""The GRIDE intrinsic dimension (Denti, Doimo, Laio & Mira 2022) as DADApy computes it, the
estimator Cheng et al. (2025) use per layer, without DADApy itself.

GRIDE generalises TwoNN from the ratio of the second to the first neighbour distance to the
ratio :math:`\\mu_i = r_{i,n_2} / r_{i,n_1}` of the distances of point :math:`i` to its
:math:`n_2`-th and :math:`n_1`-th nearest neighbours (:math:`n_1 < n_2`). Under a locally
uniform density on a :math:`d`-dimensional manifold the neighbours' volumes are a Poisson
process's arrival times, so :math:`\\mu^d = V_{n_2}/V_{n_1}` with :math:`V_{n_1}` and
:math:`V_{n_2} - V_{n_1}` independent Gamma(:math:`n_1`) and Gamma(:math:`n_2 - n_1`), and

.. math:: f(\\mu) = \\frac{d\\,(\\mu^d - 1)^{n_2 - n_1 - 1}}
                         {B(n_2 - n_1, n_1)\\,\\mu^{(n_2 - 1) d + 1}}, \\qquad \\mu > 1.

Doubling the orders (:math:`n_2 = 2 n_1`, :math:`n_1 = 1, 2, 4, \\dots`) probes larger and
larger scales without decimating the data (DADApy's ``return_id_scaling_gride``).

Everything here follows DADApy (``sissa-data-science/DADApy``, commit ``d9038b3``:
``dadapy/_utils/utils.py`` ``_neg_loglik``, ``_neg_dloglik_did``, ``_filter_mus``,
``_argmax_loglik``, ``_fisher_info_scaling``; ``dadapy/id_estimation.py``
``return_id_scaling_gride``; ``dadapy/base.py`` ``remove_zero_dists``), including where it
departs from the paper's likelihood (a factor :math:`d^{N-1}`, not :math:`d^N`); where it
departs from DADApy a docstring says so.

References
----------
Denti, F., Doimo, D., Laio, A., & Mira, A. (2022). The generalized ratios intrinsic
dimension estimator. Scientific Reports 12, 20005.

Cheng, E., Doimo, D., Kervadec, C., Macocco, I., Yu, L., Laio, A., & Baroni, M. (2025).
Emergence of a high-dimensional abstraction phase in language transformers. ICLR 2025.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.special import betaln

from anisotropy.geometry.dimension import _self_masked_blocks, distinct_rows, knn_distances

__all__ = ["GRIDE_D0", "GRIDE_D1", "GRIDE_EPS", "GRIDE_RANGE_MAX", "MIN_GRIDE_RATIOS",
           "PLATEAU_SHARE", "MIN_PLATEAU_POINTS", "MAX_PLATEAU_POINTS", "GrideEstimate",
           "GrideScaling", "GridePlateau", "gride_kept", "gride_log_likelihood", "gride_fit",
           "gride_error", "gride_ratios", "gride", "gride_scales", "gride_scaling",
           "gride_scaling_from_distances", "plateau_index", "gride_plateau",
           "gride_subset_plateaus"]

#: The lower end of DADApy's search for :math:`\hat d` (``d0=0.001``).
GRIDE_D0 = 0.001
#: The upper end of DADApy's search for :math:`\hat d` (``d1=1000``).
GRIDE_D1 = 1000.0
#: DADApy's bisection stops when the bracket is narrower than this (``eps=1e-7``); it also
#: floors :math:`1 - \mu^{-d}` at twice it in the score.
GRIDE_EPS = 1e-7
#: DADApy's default largest neighbour rank of ``return_id_scaling_gride`` (``range_max=64``).
GRIDE_RANGE_MAX = 64
#: The fewest ratios a fit needs: with one, DADApy's score :math:`(N-1)/d` vanishes.
MIN_GRIDE_RATIOS = 2

#: The plateau rule's largest scale: :math:`n_2 \le N /` this. Larger scales reach across a
#: sizeable share of the sample, where the estimate falls on this book's profiles (the
#: sample's extent and curvature, not its local dimension).
PLATEAU_SHARE = 8
#: The fewest distinct points the plateau rule takes: three scales, :math:`n_2 = 2, 4, 8`,
#: within :math:`N / 8`.
MIN_PLATEAU_POINTS = 64
#: The most distinct points :func:`gride_subset_plateaus` takes: it holds all
#: :math:`N^2` distances (0.8 GB at this many).
MAX_PLATEAU_POINTS = 10_000

#: float64 machine epsilon: DADApy's floor for a zero distance, its step off a tie
#: (:math:`\mu = 1` becomes :math:`1 + 10\epsilon`) and, times 5, its floor for
#: :math:`1 - \mu^{-d}` in the Fisher information.
_TINY = float(np.finfo(np.float64).eps)
#: DADApy's outlier cut: ratios at or above :math:`q_{50} + 20 (q_{95} - q_{50})` are left
#: out of the fit ("very likely overlapping data points").
_TAIL_WIDTHS = 20.0


class GrideEstimate(NamedTuple):
    """One GRIDE estimate and its standard error.

    Attributes
    ----------
    d : float
        :math:`\\hat d`, the maximum-likelihood intrinsic dimension (:func:`gride_fit`).
    error : float
        Its standard error, :math:`J(\\hat d)^{-1/2}` (:func:`gride_error`).
    """

    d: float
    error: float


class GrideScaling(NamedTuple):
    """GRIDE at DADApy's scales :math:`(n_1, n_2) = (2^k, 2^{k+1})`, one entry per scale.

    Attributes
    ----------
    n1, n2 : numpy.ndarray of int
        The neighbour orders of each scale: 1, 2, 4, ... and twice that.
    d : numpy.ndarray of float
        :math:`\\hat d` at each scale (DADApy's ``ids_scaling``).
    error : numpy.ndarray of float
        Its standard error (DADApy's ``ids_scaling_err``).
    r : numpy.ndarray of float
        The mean over points of :math:`(r_{n_1} + r_{n_2})/2`, the scale as a distance
        (DADApy's ``rs_scaling``).
    """

    n1: np.ndarray
    n2: np.ndarray
    d: np.ndarray
    error: np.ndarray
    r: np.ndarray


# --------------------------------------------------------------------------- checks


def _check_orders(n1, n2) -> tuple[int, int]:
    """``(n1, n2)`` as ints, refusing anything but integers ``1 <= n1 < n2``."""
    for name, value in (("n1", n1), ("n2", n2)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise ValueError(f"{name} must be an integer neighbour order, got {value!r}.")
    if n1 < 1:
        raise ValueError(f"n1 must be >= 1 (the first neighbour is order 1), got {n1}.")
    if n2 <= n1:
        raise ValueError(f"n2 must be > n1 = {n1}, got n2 = {n2}.")
    return int(n1), int(n2)


def _check_ratios(mus) -> np.ndarray:
    """The ratios as a new 1-D float64 array, refusing an empty, non-finite or below-1
    entry (naming it), with each tie :math:`\\mu = 1` moved to :math:`1 + 10\\epsilon`
    as DADApy's ``_filter_mus`` does."""
    mus = np.array(mus, dtype=np.float64, copy=True)
    if mus.ndim != 1 or mus.size == 0:
        raise ValueError(f"mus must be a non-empty 1-D array of ratios; got shape {mus.shape}.")
    bad = np.flatnonzero(~np.isfinite(mus))
    if bad.size:
        raise ValueError(f"mus must be finite; mus[{bad[0]}] = {mus[bad[0]]} ({bad.size} "
                         "not finite). gride_ratios floors zero distances, as DADApy does, "
                         "so that no ratio is infinite.")
    bad = np.flatnonzero(mus < 1.0)
    if bad.size:
        raise ValueError(f"mus must be >= 1 (r_n2 >= r_n1); mus[{bad[0]}] = {mus[bad[0]]} "
                         f"({bad.size} below 1).")
    mus[mus == 1.0] += 10 * _TINY
    return mus


def _check_dimension(d) -> float:
    d = float(d)
    if not (np.isfinite(d) and d > 0):
        raise ValueError(f"d must be a finite dimension > 0, got {d}.")
    return d


# --------------------------------------------------------------------------- the fit


def gride_kept(mus, discard_outliers: bool = True) -> np.ndarray:
    """The ratios a GRIDE fit uses: DADApy's ``_filter_mus``.

    A tie :math:`\\mu_i = 1` (:math:`r_{n_1} = r_{n_2}`) becomes :math:`1 + 10\\epsilon`
    (:math:`\\epsilon` the float64 machine epsilon), and, with ``discard_outliers``, the
    ratios at or above

    .. math:: \\mu_{\\max} = q_{50} + 20\\,(q_{95} - q_{50})

    (:math:`q_p` the :math:`p`-th percentile, linear interpolation) are left out: DADApy's
    "very generous threshold" for ratios of overlapping points, which keeps all but a
    fraction of a percent of ratios drawn from the GRIDE density itself.

    Parameters
    ----------
    mus : array_like of shape (N,)
        The ratios :math:`r_{n_2}/r_{n_1}`, each finite and >= 1.
    discard_outliers : bool, optional
        Leave out the ratios at or above :math:`\\mu_{\\max}` (default ``True``, as
        DADApy always does); ``False`` keeps every ratio.

    Returns
    -------
    numpy.ndarray of shape (M,), float64
        The kept ratios, in their order, ties moved off 1.

    Raises
    ------
    ValueError
        For ``mus`` empty, not 1-D, with an entry not finite or below 1 (named).
    """
    mus = _check_ratios(mus)
    if not discard_outliers:
        return mus
    q95, q50 = np.percentile(mus, [95, 50])
    return mus[mus < q50 + _TAIL_WIDTHS * (q95 - q50)]


def gride_log_likelihood(d: float, mus, n1: int, n2: int, discard_outliers: bool = True
                         ) -> float:
    """The GRIDE log-likelihood of ``d`` as DADApy writes it (minus its ``_neg_loglik``).

    On the :math:`N` ratios :func:`gride_kept` keeps,

    .. math:: \\ell(d) = (N - 1)\\log d + (n_2 - n_1 - 1)\\sum_i \\log(\\mu_i^d - 1)
              - N \\log B(n_2 - n_1, n_1) - \\big((n_2 - 1)d + 1\\big)\\sum_i \\log\\mu_i .

    The density :math:`f(\\mu)` of the module docstring gives :math:`N \\log d` as the first
    term; DADApy writes :math:`N - 1`, which moves the maximum from :math:`N/\\sum\\log\\mu`
    to the unbiased :math:`(N-1)/\\sum\\log\\mu` at :math:`(n_1, n_2) = (1, 2)` (TwoNN). This
    follows DADApy. :math:`\\log(\\mu^d - 1)` is computed as
    :math:`d\\log\\mu + \\log(1 - \\mu^{-d})`, finite where :math:`\\mu^d` overflows.

    Parameters
    ----------
    d : float
        The dimension, > 0.
    mus : array_like of shape (N,)
        The ratios :math:`r_{n_2}/r_{n_1}`, each finite and >= 1.
    n1, n2 : int
        The neighbour orders, :math:`1 \\le n_1 < n_2`.
    discard_outliers : bool, optional
        As :func:`gride_kept` (default ``True``, as DADApy).

    Returns
    -------
    float
        :math:`\\ell(d)`.

    Raises
    ------
    ValueError
        For ``d`` not finite and > 0, bad orders, or bad ratios (as :func:`gride_kept`).
    """
    d = _check_dimension(d)
    n1, n2 = _check_orders(n1, n2)
    mus = gride_kept(mus, discard_outliers)
    log_mu = np.log(mus)
    n = mus.size
    value = (n - 1) * np.log(d) - n * betaln(n2 - n1, n1) - ((n2 - 1) * d + 1) * log_mu.sum()
    if n2 - n1 - 1:
        value += (n2 - n1 - 1) * np.sum(d * log_mu + np.log(-np.expm1(-d * log_mu)))
    return float(value)


def _negative_score(d: float, mus: np.ndarray, n1: int, n2: int, eps: float) -> float:
    """DADApy's ``_neg_dloglik_did``: :math:`-\\ell'(d)`, with :math:`1 - \\mu^{-d}` floored
    at ``2 * eps``."""
    one_minus = 1.0 - mus ** (-d)
    one_minus[one_minus < 2 * eps] = 2 * eps
    return float(np.sum(((1 - n2 + n1) / one_minus + n2 - 1.0) * np.log(mus))
                 - (mus.size - 1) / d)


def gride_fit(mus, n1: int, n2: int, d0: float = GRIDE_D0, d1: float = GRIDE_D1,
              eps: float = GRIDE_EPS, discard_outliers: bool = True) -> float:
    """The maximum-likelihood GRIDE dimension, found as DADApy's ``_argmax_loglik`` finds it.

    The score of :func:`gride_log_likelihood` is

    .. math:: \\ell'(d) = \\frac{N - 1}{d} - \\sum_i \\Big(\\frac{n_1 - n_2 + 1}{1 - \\mu_i^{-d}}
              + n_2 - 1\\Big)\\log\\mu_i

    (:math:`1 - \\mu_i^{-d}` floored at ``2 * eps``), positive at small :math:`d` and
    tending to :math:`-n_1\\sum_i\\log\\mu_i` at large :math:`d`. Its root is bisected on
    :math:`[d_0, d_1]` until the bracket is narrower than ``eps``, and :math:`\\hat d` is
    the bracket's midpoint, exactly as DADApy does. At :math:`(n_1, n_2) = (1, 2)` the root
    is :math:`(N - 1)/\\sum_i \\log\\mu_i`, TwoNN's maximum-likelihood estimate.

    Departure from DADApy: when the score has the same sign at both ends (the maximum lies
    outside :math:`[d_0, d_1]`), DADApy's bisection returns :math:`\\approx d_0` without a
    word; this raises instead.

    Parameters
    ----------
    mus : array_like of shape (N,)
        The ratios :math:`r_{n_2}/r_{n_1}` (:func:`gride_ratios`), each finite and >= 1;
        ties (:math:`\\mu = 1`) and outliers are handled as :func:`gride_kept` says.
    n1, n2 : int
        The neighbour orders, :math:`1 \\le n_1 < n_2`.
    d0, d1 : float, optional
        The search interval, :math:`0 < d_0 < d_1` (default DADApy's 0.001 and 1000).
    eps : float, optional
        The bracket width at which the bisection stops, > 0 (default 1e-7, DADApy's).
    discard_outliers : bool, optional
        As :func:`gride_kept` (default ``True``, as DADApy).

    Returns
    -------
    float
        :math:`\\hat d`.

    Raises
    ------
    ValueError
        For bad orders or ratios, fewer than :data:`MIN_GRIDE_RATIOS` kept ratios, a bad
        interval or ``eps``, or a maximum outside :math:`[d_0, d_1]`, each naming the value.
    """
    n1, n2 = _check_orders(n1, n2)
    d0, d1, eps = float(d0), float(d1), float(eps)
    if not (np.isfinite(d1) and 0 < d0 < d1):
        raise ValueError(f"the search interval needs 0 < d0 < d1 < inf; got d0 = {d0}, "
                         f"d1 = {d1}.")
    if not (np.isfinite(eps) and eps > 0):
        raise ValueError(f"eps must be a finite precision > 0, got {eps}.")
    mus = gride_kept(mus, discard_outliers)
    if mus.size < MIN_GRIDE_RATIOS:
        raise ValueError(f"GRIDE needs at least {MIN_GRIDE_RATIOS} ratios; {mus.size} kept "
                         "(after the outlier cut, if on).")
    low = _negative_score(d0, mus, n1, n2, eps)
    l1 = _negative_score(d1, mus, n1, n2, eps)
    if low * l1 > 0:
        raise ValueError(f"the GRIDE likelihood has no maximum in [d0, d1] = [{d0}, {d1}]: "
                         f"its slope has one sign at both ends ({-low:.3g}, {-l1:.3g}).")
    while abs(d0 - d1) > eps:
        d2 = (d0 + d1) / 2.0
        if _negative_score(d2, mus, n1, n2, eps) * l1 > 0:
            d1 = d2
        else:
            d0 = d2
    return (d0 + d1) / 2.0


def gride_error(d: float, mus, n1: int, n2: int, discard_outliers: bool = False) -> float:
    """The standard error of a GRIDE estimate as DADApy gives it: :math:`J(d)^{-1/2}`, with
    DADApy's ``_fisher_info_scaling``

    .. math:: J(d) = \\frac{N}{d^2} + (n_2 - n_1 - 1)\\sum_i
              \\frac{(\\log\\mu_i)^2\\,\\mu_i^{-d}}{(1 - \\mu_i^{-d})^2},

    the observed information :math:`-\\ell''(d)` of :func:`gride_log_likelihood` but for
    :math:`N` in place of :math:`N - 1` in the first term, :math:`1 - \\mu_i^{-d}` floored
    at :math:`5\\epsilon`. DADApy evaluates it on every ratio (ties moved off 1, no outlier
    cut), hence ``discard_outliers=False`` by default; it passes :math:`n_2 = 2 n_1` there
    whatever the fit's :math:`n_2`, which is the fit's :math:`n_2` in every DADApy caller.
    At :math:`(n_1, n_2) = (1, 2)` the error is :math:`d/\\sqrt N`.

    Parameters
    ----------
    d : float
        The estimate, > 0 (:func:`gride_fit`).
    mus : array_like of shape (N,)
        The ratios, each finite and >= 1.
    n1, n2 : int
        The neighbour orders, :math:`1 \\le n_1 < n_2`.
    discard_outliers : bool, optional
        Evaluate :math:`J` on :func:`gride_kept`'s ratios only (default ``False``, as
        DADApy).

    Returns
    -------
    float
        :math:`J(d)^{-1/2}`.

    Raises
    ------
    ValueError
        For ``d`` not finite and > 0, bad orders, or bad ratios.
    """
    d = _check_dimension(d)
    n1, n2 = _check_orders(n1, n2)
    mus = gride_kept(mus, discard_outliers)
    power = mus ** (-d)
    one_minus = 1.0 - power
    one_minus[one_minus < 5 * _TINY] = 5 * _TINY
    information = mus.size / d**2 + (n2 - n1 - 1) * np.sum(
        (np.log(mus) / one_minus) ** 2 * power)
    return float(information ** -0.5)


# --------------------------------------------------------------------------- from points


def gride_ratios(distances, n1: int, n2: int) -> np.ndarray:
    """The ratios :math:`\\mu_i = r_{i,n_2}/r_{i,n_1}` from sorted neighbour distances.

    A distance below the float64 machine epsilon (a duplicate point) is set to it first, as
    DADApy's ``remove_zero_dists`` does, so that every ratio is finite: a point with
    :math:`r_{n_1} = r_{n_2} = 0` gets :math:`\\mu = 1` (a tie, which :func:`gride_kept`
    moves to :math:`1 + 10\\epsilon`), one with only :math:`r_{n_1} = 0` a huge ratio that
    the outlier cut of :func:`gride_kept` drops.

    Parameters
    ----------
    distances : array_like of shape (n_points, k)
        Row ``i``: the distances of point ``i`` to its ``k`` nearest other points,
        ascending, column ``j`` the ``(j+1)``-th neighbour's, as
        :func:`~anisotropy.geometry.dimension.knn_distances` returns them; finite, >= 0.
    n1, n2 : int
        The neighbour orders, :math:`1 \\le n_1 < n_2 \\le k`.

    Returns
    -------
    numpy.ndarray of shape (n_points,), float64
        :math:`r_{n_2}/r_{n_1}` per point.

    Raises
    ------
    ValueError
        For bad orders, ``n2 > k``, ``distances`` not 2-D, empty, not finite, negative, or
        with :math:`r_{n_2} < r_{n_1}` in a row (naming it).
    """
    n1, n2 = _check_orders(n1, n2)
    distances = np.asarray(distances, dtype=np.float64)
    if distances.ndim != 2 or distances.shape[0] == 0:
        raise ValueError(f"distances must be (n_points, k) with n_points >= 1; got shape "
                         f"{distances.shape}.")
    if n2 > distances.shape[1]:
        raise ValueError(f"n2 = {n2} needs at least {n2} neighbour distances per point; "
                         f"got k = {distances.shape[1]}.")
    pair = distances[:, [n1 - 1, n2 - 1]]
    if not np.isfinite(pair).all() or (pair < 0).any():
        raise ValueError("distances must be finite and >= 0.")
    unsorted = np.flatnonzero(pair[:, 1] < pair[:, 0])
    if unsorted.size:
        i = unsorted[0]
        raise ValueError(f"distances must be sorted ascending per row; row {i} has "
                         f"r_{n2} = {pair[i, 1]} < r_{n1} = {pair[i, 0]}.")
    pair = np.maximum(pair, _TINY)
    return pair[:, 1] / pair[:, 0]


def gride(X, n1: int = 1, n2: int = 2, metric: str = "euclidean") -> GrideEstimate:
    """The GRIDE dimension of the points ``X`` at one scale and its standard error, as
    DADApy's ``_compute_id_gride_single_scale`` gives them: :func:`gride_fit` and
    :func:`gride_error` of :func:`gride_ratios` of
    :func:`~anisotropy.geometry.dimension.knn_distances`. Duplicate rows are not removed
    (Cheng et al. call DADApy's ``remove_identical_points`` first); their zero distances are
    floored as :func:`gride_ratios` says.

    Parameters
    ----------
    X : array_like of shape (n_points, dim)
        The points, one per row; finite, more than ``n2`` of them.
    n1, n2 : int, optional
        The neighbour orders, :math:`1 \\le n_1 < n_2` (default 1 and 2, TwoNN's).
    metric : {"euclidean", "cosine"}, optional
        The distance, as :func:`~anisotropy.geometry.dimension.knn_distances` takes it.

    Returns
    -------
    GrideEstimate
        :math:`\\hat d` and its standard error.

    Raises
    ------
    ValueError
        As :func:`~anisotropy.geometry.dimension.knn_distances`, :func:`gride_ratios` and
        :func:`gride_fit` do.
    """
    n1, n2 = _check_orders(n1, n2)
    mus = gride_ratios(knn_distances(X, n2, metric=metric), n1, n2)
    d = gride_fit(mus, n1, n2)
    return GrideEstimate(d, gride_error(d, mus, n1, n2))


def gride_scales(range_max: int, n_points: int) -> np.ndarray:
    """The :math:`n_2` of DADApy's ``return_id_scaling_gride``: :math:`2, 4, \\dots, 2^m`,
    :math:`2^m` the largest power of 2 at most :math:`\\min(\\text{range\\_max},
    N - 1)` (each :math:`n_1 = n_2/2`).

    DADApy caps the rank at :math:`\\min(\\text{range\\_max}, N)` and fails when that is a
    power of 2 equal to :math:`N` (a point has :math:`N - 1` neighbours); otherwise both
    caps give the same scales.

    Parameters
    ----------
    range_max : int
        The largest neighbour rank wanted, >= 2.
    n_points : int
        :math:`N`, the number of points, >= 3.

    Returns
    -------
    numpy.ndarray of int, shape (m,)
        :math:`n_2` of each scale, ascending.

    Raises
    ------
    ValueError
        For ``range_max`` < 2 or ``n_points`` < 3.
    """
    for name, value, least in (("range_max", range_max, 2), ("n_points", n_points, 3)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
            raise ValueError(f"{name} must be an integer >= {least}, got {value!r}.")
    top = min(int(range_max), int(n_points) - 1).bit_length() - 1
    return 2 ** np.arange(1, top + 1)


def gride_scaling(X, range_max: int = GRIDE_RANGE_MAX, metric: str = "euclidean"
                  ) -> GrideScaling:
    """GRIDE at every scale :math:`(n_1, n_2) = (2^k, 2^{k+1})` of :func:`gride_scales`, as
    DADApy's ``return_id_scaling_gride(range_max)`` computes it: the neighbour distances
    (zero ones floored as :func:`gride_ratios` says), then per scale :func:`gride_fit` and
    :func:`gride_error`, and the mean distance :math:`(r_{n_1} + r_{n_2})/2` over points.
    Cheng et al. (2025) ran it with ``range_max=2**13`` on 10,000 points per layer, after
    DADApy's ``remove_identical_points`` (not done here). The distances take
    ``n_points * 2^m * 8`` bytes (0.66 GB at 10,000 points and :math:`2^{13}`).

    Parameters
    ----------
    X : array_like of shape (n_points, dim)
        The points, one per row; finite, at least 3.
    range_max : int, optional
        The largest neighbour rank, >= 2 (default :data:`GRIDE_RANGE_MAX`, DADApy's 64).
    metric : {"euclidean", "cosine"}, optional
        The distance, as :func:`~anisotropy.geometry.dimension.knn_distances` takes it.

    Returns
    -------
    GrideScaling
        Per scale: :math:`n_1`, :math:`n_2`, :math:`\\hat d`, its error and the mean
        distance.

    Raises
    ------
    ValueError
        As :func:`gride_scales`, :func:`~anisotropy.geometry.dimension.knn_distances` and
        :func:`gride_fit` do.
    """
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"X must be (n_points, dim); got shape {X.shape}.")
    n2s = gride_scales(range_max, X.shape[0])
    return gride_scaling_from_distances(knn_distances(X, int(n2s[-1]), metric=metric),
                                        range_max)


def gride_scaling_from_distances(distances, range_max: int) -> GrideScaling:
    """:func:`gride_scaling` from the points' sorted neighbour distances: per scale of
    :func:`gride_scales` (:math:`N` the number of rows), :func:`gride_fit`,
    :func:`gride_error` and the mean distance :math:`(r_{n_1} + r_{n_2})/2`.

    Parameters
    ----------
    distances : array_like of shape (n_points, k)
        Row ``i``: the distances of point ``i`` to its ``k`` nearest other points,
        ascending (:func:`~anisotropy.geometry.dimension.knn_distances`), ``k`` at least
        the largest :math:`n_2`.
    range_max : int
        The largest neighbour rank, >= 2.

    Returns
    -------
    GrideScaling
        Per scale: :math:`n_1`, :math:`n_2`, :math:`\\hat d`, its error and the mean
        distance.

    Raises
    ------
    ValueError
        As :func:`gride_scales`, :func:`gride_ratios` and :func:`gride_fit` do.
    """
    distances = np.asarray(distances, dtype=np.float64)
    if distances.ndim != 2:
        raise ValueError(f"distances must be (n_points, k); got shape {distances.shape}.")
    n2s = gride_scales(range_max, distances.shape[0])
    n1s = n2s // 2
    ds, errors, rs = [], [], []
    for n1, n2 in zip(n1s.tolist(), n2s.tolist(), strict=True):
        mus = gride_ratios(distances, n1, n2)
        d = gride_fit(mus, n1, n2)
        ds.append(d)
        errors.append(gride_error(d, mus, n1, n2))
        rs.append(np.maximum(distances[:, [n1 - 1, n2 - 1]], _TINY).mean())
    return GrideScaling(n1s, n2s, np.array(ds), np.array(errors), np.array(rs))


# --------------------------------------------------------------------------- the plateau


class GridePlateau(NamedTuple):
    """GRIDE at the plateau of its scaling (:func:`gride_plateau`).

    Attributes
    ----------
    d : float
        :math:`\\hat d` at the plateau's scale.
    n1, n2 : int
        That scale's neighbour orders.
    scaling : GrideScaling
        Every scale the rule looked at.
    """

    d: float
    n1: int
    n2: int
    scaling: GrideScaling


def plateau_index(d) -> int:
    """The scale where a GRIDE scaling is flattest: the interior index :math:`j` whose
    estimate and its two neighbours' vary least relative to it,

    .. math:: j^* = \\arg\\min_{0 < j < m - 1}
              \\frac{\\max(d_{j-1}, d_j, d_{j+1}) - \\min(d_{j-1}, d_j, d_{j+1})}{d_j},

    the first such :math:`j` on a tie. Denti et al. (2022, Sec. 4) read the dimension where
    the estimate is stable across scales, and Cheng et al. (2025) chose each layer's scale
    by eye from these curves (their repository's readme); this is a stated stand-in for
    that choice, not theirs.

    Parameters
    ----------
    d : array_like of shape (m,)
        :math:`\\hat d` per scale, ascending scales, finite and > 0; at least 3 of them.

    Returns
    -------
    int
        :math:`j^*`, in ``1 .. m - 2``.

    Raises
    ------
    ValueError
        For fewer than 3 scales, or an estimate not finite and > 0.
    """
    d = np.asarray(d, dtype=np.float64)
    if d.ndim != 1 or d.size < 3:
        raise ValueError(f"the plateau needs at least 3 scales; got shape {d.shape}.")
    if not (np.isfinite(d).all() and (d > 0).all()):
        raise ValueError("every scale's estimate must be finite and > 0.")
    windows = np.lib.stride_tricks.sliding_window_view(d, 3)
    spread = (windows.max(axis=1) - windows.min(axis=1)) / d[1:-1]
    return int(np.argmin(spread)) + 1


def gride_plateau(distances) -> GridePlateau:
    """GRIDE at the plateau of the scales :math:`n_2 = 2, 4, \\dots \\le N/8`: the
    scaling of :func:`gride_scaling_from_distances` with ``range_max`` :math:`N /`
    :data:`PLATEAU_SHARE`, read at :func:`plateau_index`.

    Parameters
    ----------
    distances : array_like of shape (n_points, k)
        Sorted neighbour distances of :math:`N` = ``n_points`` >=
        :data:`MIN_PLATEAU_POINTS` points, ``k`` >= :math:`N / 8`.

    Returns
    -------
    GridePlateau
        The plateau's estimate and scale, and the scaling.

    Raises
    ------
    ValueError
        For fewer than :data:`MIN_PLATEAU_POINTS` rows, or as
        :func:`gride_scaling_from_distances` does.
    """
    distances = np.asarray(distances, dtype=np.float64)
    n = distances.shape[0] if distances.ndim == 2 else 0
    if n < MIN_PLATEAU_POINTS:
        raise ValueError(f"the GRIDE plateau needs at least {MIN_PLATEAU_POINTS} points "
                         f"(three scales up to N / {PLATEAU_SHARE}); got {n}.")
    scaling = gride_scaling_from_distances(distances, n // PLATEAU_SHARE)
    j = plateau_index(scaling.d)
    return GridePlateau(float(scaling.d[j]), int(scaling.n1[j]), int(scaling.n2[j]), scaling)


def _sorted_rows(block: np.ndarray, k: int) -> np.ndarray:
    """The ``k`` smallest squared distances per row of ``block``, as sorted distances."""
    return np.sqrt(np.sort(np.maximum(np.partition(block, k - 1, axis=1)[:, :k], 0.0), axis=1))


def gride_subset_plateaus(X, subsets) -> tuple[GridePlateau, np.ndarray]:
    """:func:`gride_plateau` of the distinct rows of ``X`` and within each subset of them,
    every neighbour searched again among the subset's distinct rows only, the scale chosen
    again on each (the draws of a delete-half jackknife,
    :func:`~anisotropy.geometry.intervals.half_samples`).

    Repeated rows are dropped first, as Cheng et al. (2025) do with DADApy's
    ``remove_identical_points``. The Euclidean distances of the distinct rows are computed
    once (centred, float64, a duplicate's rounding noise set to 0, as
    :func:`~anisotropy.geometry.dimension.knn_distances` computes them) and held whole:
    :math:`8N^2` bytes.

    Parameters
    ----------
    X : array_like of shape (n_points, dim)
        The points, one per row; :data:`MIN_PLATEAU_POINTS` to :data:`MAX_PLATEAU_POINTS`
        of them distinct.
    subsets : array_like of int, shape (n_draws, m)
        Per row, the indices of a subset of the points; each holding at least
        :data:`MIN_PLATEAU_POINTS` distinct ones.

    Returns
    -------
    whole : GridePlateau
        The plateau of the whole sample's distinct rows.
    within : numpy.ndarray of shape (n_draws,)
        The plateau's :math:`\\hat d` within each subset.

    Raises
    ------
    ValueError
        When ``X`` is not 2-D, has too few or too many distinct rows, or a subset too few
        (naming it), or as :func:`gride_plateau` does.
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be (n_points, dim); got shape {X.shape}.")
    subsets = np.atleast_2d(np.asarray(subsets, dtype=np.intp))
    first, group = distinct_rows(X)
    n = first.size
    if not MIN_PLATEAU_POINTS <= n <= MAX_PLATEAU_POINTS:
        raise ValueError(f"the GRIDE plateau's search takes {MIN_PLATEAU_POINTS} to "
                         f"{MAX_PLATEAU_POINTS:,} distinct points; got {n:,} (of "
                         f"{X.shape[0]:,} rows).")
    Y = X[first] - X[first].mean(axis=0)
    squared = np.empty((n, n))
    for i0, block in _self_masked_blocks(Y, np.einsum("ij,ij->i", Y, Y), 2048):
        squared[i0:i0 + block.shape[0]] = block
    whole = gride_plateau(_sorted_rows(squared, n // PLATEAU_SHARE))
    within = np.empty(subsets.shape[0])
    for b, rows in enumerate(subsets):
        held = np.unique(group[rows])
        if held.size < MIN_PLATEAU_POINTS:
            raise ValueError(f"subset {b} holds {held.size} distinct points; the GRIDE "
                             f"plateau needs at least {MIN_PLATEAU_POINTS}.")
        block = squared[np.ix_(held, held)]
        within[b] = gride_plateau(_sorted_rows(block, held.size // PLATEAU_SHARE)).d
    return whole, within
