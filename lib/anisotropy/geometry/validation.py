"""Input checks shared by the measures: 2-D finite embeddings, label arrays, unit rows and
row groups. A bad input raises :class:`ValueError` naming the problem."""

from __future__ import annotations

import numpy as np

__all__ = ["check_embeddings", "check_labels", "unit_rows", "grouped_rows"]


# --------------------------------------------------------------------------- validation


def check_embeddings(X, *, min_points: int = 2, name: str = "X") -> np.ndarray:
    """Return ``X`` as a 2-D floating array after checking shape, size and finiteness.

    Parameters
    ----------
    X : array_like of shape (n_points, dim)
        The embeddings, one per row.
    min_points : int, optional
        The fewest rows accepted (default 2).
    name : str, optional
        The name the error messages give the array (default ``"X"``).

    Returns
    -------
    numpy.ndarray of shape (n_points, dim)
        ``X`` as an array: a floating ``X`` keeps its dtype (float32 stays float32), any
        other is converted to float64.

    Raises
    ------
    ValueError
        If ``X`` is not 2-D, has fewer than ``min_points`` rows, no columns, or contains
        NaN or infinite values.
    """
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D (n_points, dim); got shape {X.shape}.")
    if not np.issubdtype(X.dtype, np.floating):
        X = X.astype(np.float64)
    if X.shape[0] < min_points:
        raise ValueError(
            f"{name} has {X.shape[0]} points; this metric needs at least {min_points}."
        )
    if X.shape[1] < 1:
        raise ValueError(f"{name} has no dimensions.")
    if not np.isfinite(X).all():
        bad = int((~np.isfinite(X)).any(axis=1).sum())
        raise ValueError(f"{name} contains NaN or infinite values in {bad} rows.")
    return X


def check_labels(labels, n: int, name: str, min_groups: int = 1) -> np.ndarray:
    """Return ``labels`` as an array after checking it has one entry per point and enough
    distinct values.

    Parameters
    ----------
    labels : array_like of shape (n,)
        One label (group, word, sentence id) per point.
    n : int
        The number of points.
    name : str
        The name the error messages give the labels.
    min_groups : int, optional
        The fewest distinct values accepted (default 1).

    Returns
    -------
    numpy.ndarray of shape (n,)
        ``labels`` as an array, dtype unchanged.

    Raises
    ------
    ValueError
        If ``labels`` is not 1-D with ``n`` entries, or has fewer than ``min_groups``
        distinct values.
    """
    labels = np.asarray(labels)
    if labels.ndim != 1 or labels.shape[0] != n:
        raise ValueError(f"{name} must be 1-D with one entry per point ({n}); got {labels.shape}.")
    n_groups = np.unique(labels).size
    if n_groups < min_groups:
        raise ValueError(f"{name} has {n_groups} distinct value(s); need at least {min_groups}.")
    return labels


def unit_rows(X: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm (float64); zero rows stay zero.

    Parameters
    ----------
    X : numpy.ndarray of shape (n_points, dim)
        The vectors, one per row.

    Returns
    -------
    numpy.ndarray of shape (n_points, dim), float64
        Each row divided by its L2 norm (a zero row left as it is).
    """
    X = np.asarray(X, dtype=np.float64)
    norms = np.sqrt(np.einsum("ij,ij->i", X, X))[:, None]  # no (n, dim) temporary
    return X / np.where(norms > 0, norms, 1.0)


def grouped_rows(ids: np.ndarray):
    """Yield ``(value, row indices)`` for each distinct value of ``ids``, rows in order.

    Parameters
    ----------
    ids : numpy.ndarray of shape (n_rows,)
        One id (e.g. a word id) per row.

    Yields
    ------
    value : scalar
        A distinct value of ``ids``, in ascending (sorted) order.
    rows : numpy.ndarray of int
        The indices of the rows with that value, ascending.
    """
    codes, inverse = np.unique(ids, return_inverse=True)
    order = np.argsort(inverse, kind="stable")
    bounds = np.searchsorted(inverse[order], np.arange(codes.size + 1))
    for code, start, stop in zip(codes, bounds[:-1], bounds[1:], strict=True):
        yield code, order[start:stop]
