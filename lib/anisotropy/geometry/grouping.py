"""Sums and means of rows by group: sentence means, subword-to-word pooling, type means.

Token matrices are tall (tens of thousands of rows), and ``np.add.reduceat`` / ``np.add.at``
along axis 0 are slow on them. A sparse indicator matrix times the rows gives the same sums
(up to summation order) about 20x faster, in one pass and without BLAS threads.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse

__all__ = ["group_sums", "run_starts", "run_means"]


def group_sums(X, codes, n_groups: int) -> np.ndarray:
    """Sum of the rows of each group: ``out[g] = sum(X[i] for i with codes[i] == g)``.

    Parameters
    ----------
    X : array of shape (n_rows, dim)
    codes : int array of shape (n_rows,)
        Group of each row, in ``0 .. n_groups - 1``.
    n_groups : int
        Number of output rows; groups without rows sum to zero.

    Returns
    -------
    ndarray of shape (n_groups, dim), float64
    """
    X = np.asarray(X, dtype=np.float64)
    codes = np.asarray(codes)
    if X.ndim != 2 or codes.shape != (X.shape[0],):
        raise ValueError(f"codes must have one entry per row of X ({X.shape[0]} rows); "
                         f"got shape {codes.shape} for X of shape {X.shape}.")
    if codes.size and (codes.min() < 0 or codes.max() >= n_groups):
        raise ValueError(f"codes must lie in 0..{n_groups - 1}; got {codes.min()}..{codes.max()}.")
    indicator = scipy.sparse.csr_matrix(
        (np.ones(codes.size), (codes, np.arange(codes.size))), shape=(n_groups, codes.size))
    return np.asarray(indicator @ X)


def run_starts(labels) -> np.ndarray:
    """Indices where a new run of equal consecutive labels begins (0 first when non-empty).

    Parameters
    ----------
    labels : array_like of shape (n_rows,)
        One label per row; a run is a maximal stretch of equal consecutive labels.

    Returns
    -------
    numpy.ndarray of int
        The index of the first row of each run, ascending; empty for empty ``labels``.
    """
    labels = np.asarray(labels)
    if labels.size == 0:
        return np.zeros(0, dtype=int)
    return np.flatnonzero(np.r_[True, labels[1:] != labels[:-1]])


def run_means(X, starts) -> np.ndarray:
    """Mean of each run of contiguous rows: run ``i`` is ``X[starts[i]:starts[i + 1]]``.

    Parameters
    ----------
    X : array_like of shape (n_rows, dim)
        The rows.
    starts : array_like of int, shape (n_runs,)
        The first row of each run (as :func:`run_starts` gives); must begin at 0 and
        increase strictly, within the rows of ``X``. The last run ends at the last row.

    Returns
    -------
    numpy.ndarray of shape (len(starts), dim), float64
        The mean of each run's rows.

    Raises
    ------
    ValueError
        When ``starts`` does not begin at 0 or does not increase strictly within the rows
        of ``X``.
    """
    X = np.asarray(X, dtype=np.float64)
    starts = np.asarray(starts)
    lengths = np.diff(np.r_[starts, X.shape[0]])
    if starts.size and (starts[0] != 0 or (lengths < 1).any()):
        raise ValueError("starts must begin at 0 and increase strictly within the rows of X.")
    codes = np.repeat(np.arange(starts.size), lengths)
    return group_sums(X, codes, starts.size) / lengths[:, None]
