"""The example claim's one formula: the mean cosine of pairs of different sentences, with
weights per sentence, and its bootstrap over sentences."""

from __future__ import annotations

import numpy as np

from anisotropy.claims.base import CheckValue
from anisotropy.geometry.intervals import (
    boot_method,
    percentile_interval,
    resample_counts,
)


def weighted_pair_cosine(unit: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The mean cosine over pairs of different sentences, each sentence counted ``w`` times.

    With unit rows :math:`u_i` and counts :math:`w_i` (a row per resample),
    :math:`\\bar c = (\\lVert \\sum_i w_i u_i \\rVert^2 - \\sum_i w_i^2) /
    ((\\sum_i w_i)^2 - \\sum_i w_i^2)`: every ordered pair of copies of different
    sentences, without the pairs of a copy with itself or with another copy of its sentence
    (Ethayarajh 2019's baseline, the mean cosine of random pairs, taken over all pairs).

    Parameters
    ----------
    unit : numpy.ndarray of shape (n, d)
        Unit-length sentence vectors.
    weights : numpy.ndarray of shape (n,) or (b, n)
        Non-negative counts of each sentence (all ones: the sample itself).

    Returns
    -------
    numpy.ndarray of shape () or (b,)
        The mean cosine per row of ``weights``.
    """
    unit = np.asarray(unit, dtype=np.float64)
    w = np.atleast_2d(np.asarray(weights, dtype=np.float64))
    sums = w @ unit
    same = (w * w).sum(axis=1)
    value = ((sums * sums).sum(axis=1) - same) / (w.sum(axis=1) ** 2 - same)
    return value if np.ndim(weights) == 2 else value[0]


def sentence_baseline(unit: np.ndarray, n_boot: int, seed: int) -> CheckValue:
    """The mean cosine of pairs of different sentences, and its 95% percentile interval
    from resampling the sentences (:func:`~anisotropy.geometry.intervals.resample_counts`).

    Parameters
    ----------
    unit : numpy.ndarray of shape (n, d)
        Unit-length sentence vectors.
    n_boot : int
        Bootstrap resamples.
    seed : int
        The resamples' seed.

    Returns
    -------
    CheckValue
        The value on the sample, its interval, and the number of sentences as its details.
    """
    n = unit.shape[0]
    draws = weighted_pair_cosine(unit, resample_counts(n, n_boot, seed))
    method = boot_method(n_boot, n, "sentences")
    return CheckValue(float(weighted_pair_cosine(unit, np.ones(n))),
                      percentile_interval(draws, method=method), {"sentences": n})
