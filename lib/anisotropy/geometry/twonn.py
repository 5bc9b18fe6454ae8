"""The TwoNN intrinsic dimension as Facco et al. (2017) fit it: a line through the origin
on the smallest 90% of the neighbour ratios (scikit-dimension's ``TwoNN()``, DADApy's
``compute_id_2NN()``).

The ratios come from :func:`anisotropy.geometry.dimension.twonn_log_ratios`; that module's
:func:`~anisotropy.geometry.dimension.twonn` is the maximum-likelihood form, which keeps
every ratio.
"""

from __future__ import annotations

import numpy as np

from anisotropy.geometry.dimension import MIN_TWONN_POINTS, twonn_log_ratios

__all__ = ["TWONN_FRACTION", "twonn_fit", "twonn_facco"]

#: The share of the smallest ratios :math:`\mu` that Facco et al.'s (2017) TwoNN fit keeps: it
#: discards the largest 10%, whose empirical distribution departs from the Pareto law first
#: (scikit-dimension's ``discard_fraction=0.1`` and DADApy's ``mu_fraction=0.9``).
TWONN_FRACTION = 0.9


def twonn_fit(log_mu, weights=None, fraction: float = TWONN_FRACTION
              ) -> float | np.ndarray:
    """The TwoNN intrinsic dimension as Facco et al. (2017) estimate it: a line through the
    origin fitted to the empirical distribution of the smallest ``fraction`` of the ratios.

    With the :math:`N` finite :math:`\\log\\mu` sorted ascending and
    :math:`F_i = i/N` their empirical distribution, the Pareto law
    :math:`F(\\mu) = 1 - \\mu^{-d}` gives :math:`-\\log(1 - F_i) = d \\log\\mu_i`, so

    .. math:: \\hat d = \\frac{\\sum_{i \\le \\lfloor fN \\rfloor} x_i y_i}
                             {\\sum_{i \\le \\lfloor fN \\rfloor} x_i^2},
              \\qquad x_i = \\log\\mu_{(i)},\\; y_i = -\\log(1 - i/N)

    (least squares without intercept on the smallest :math:`\\lfloor fN\\rfloor` points;
    :math:`f = 0.9` discards the largest 10%). This is scikit-dimension's ``TwoNN()`` and
    DADApy's ``compute_id_2NN(algorithm="base", mu_fraction=0.9)``, the estimator Valeriani
    et al. (2023) used per layer.

    With ``weights`` ``(n_boot, N)`` (bootstrap weights over the points) it returns one
    estimate per row: the points keep their order, :math:`i` becomes the cumulative weight
    (rescaled to sum to :math:`N`), a point is kept while that is at most :math:`fN`, and
    the sums are weighted. Unit weights give the unweighted estimate exactly. Points whose
    ratio is not finite (ties) are left out.

    Parameters
    ----------
    log_mu : array_like of shape (N,)
        :math:`\\log\\mu_i` of each point, as
        :func:`~anisotropy.geometry.dimension.twonn_log_ratios` gives; entries that are
        not finite are left out, and
        :data:`~anisotropy.geometry.dimension.MIN_TWONN_POINTS` finite ones are needed.
    weights : array_like of shape (n_boot, N), optional
        Bootstrap weights over the points, one row per draw; the columns of the points
        left out are dropped and each row is rescaled to sum to the number kept.
    fraction : float, optional
        :math:`f`, the share of the smallest ratios fitted, in (0, 1) (default
        :data:`TWONN_FRACTION`, 0.9).

    Returns
    -------
    float or numpy.ndarray of shape (n_boot,)
        :math:`\\hat d`: a float without ``weights``, one estimate per row of ``weights``
        with them.

    Raises
    ------
    ValueError
        For ``fraction`` outside (0, 1), or fewer than ``MIN_TWONN_POINTS`` finite
        entries of ``log_mu``.

    References
    ----------
    Facco, E., d'Errico, M., Rodriguez, A., & Laio, A. (2017). Estimating the intrinsic
    dimension of datasets by a minimal neighborhood information. Scientific Reports 7, 12140.
    """
    if not 0 < fraction < 1:
        raise ValueError(f"fraction must lie in (0, 1) (the last ratio's F = 1 has no "
                         f"line to lie on); got {fraction}.")
    log_mu = np.asarray(log_mu, dtype=np.float64)
    keep = np.isfinite(log_mu)
    n = int(keep.sum())
    if n < MIN_TWONN_POINTS:
        raise ValueError(f"TwoNN needs at least {MIN_TWONN_POINTS} points with a finite "
                         f"ratio; got {n}.")
    order = np.argsort(log_mu[keep], kind="stable")
    x = log_mu[keep][order]
    if weights is None:
        kept = int(n * fraction)
        y = -np.log1p(-np.arange(1, kept + 1) / n)
        return float(x[:kept] @ y / (x[:kept] @ x[:kept]))
    w = np.asarray(weights, dtype=np.float64)[:, keep][:, order]
    w = w * (n / w.sum(axis=1, keepdims=True))
    cumulative = np.cumsum(w, axis=1)
    inside = cumulative <= n * fraction
    y = np.where(inside, -np.log1p(-np.minimum(cumulative, n * fraction) / n), 0.0)
    wx = np.where(inside, w * x, 0.0)
    return (wx * y).sum(axis=1) / (wx * x).sum(axis=1)


def twonn_facco(X) -> float:
    """The TwoNN intrinsic dimension of ``X`` as Facco et al. (2017) fit it:
    :func:`twonn_fit` of :func:`~anisotropy.geometry.dimension.twonn_log_ratios`. Needs
    :data:`~anisotropy.geometry.dimension.MIN_TWONN_POINTS` distinct rows.

    Parameters
    ----------
    X : array_like of shape (n_points, dim)
        The points, one per row; at least ``MIN_TWONN_POINTS`` of them distinct.

    Returns
    -------
    float
        The fitted TwoNN dimension with :data:`TWONN_FRACTION` of the ratios.

    Raises
    ------
    ValueError
        As :func:`~anisotropy.geometry.dimension.twonn_log_ratios` and :func:`twonn_fit`
        do.
    """
    return twonn_fit(twonn_log_ratios(X))
