"""The exact Euclidean silhouette (Rousseeuw 1987), in chunks of GEMMs."""

from __future__ import annotations

import numpy as np

from anisotropy.geometry.validation import check_embeddings, check_labels

__all__ = ["silhouette"]


# --------------------------------------------------------------------------- silhouette


def silhouette(X, labels, chunk_size: int = 1024) -> float:
    """Mean silhouette coefficient with Euclidean distance, exact and memory-bounded.

    For point :math:`i` in cluster :math:`C`, :math:`a(i)` is its mean distance to the other
    members of :math:`C`, :math:`b(i)` the smallest mean distance to another cluster, and

    .. math:: s(i) = \\frac{b(i) - a(i)}{\\max(a(i), b(i))}, \\qquad s(i)=0 \\text{ if } |C|=1.

    The score is the mean of :math:`s(i)`. Distances come in blocks of ``chunk_size`` rows,
    each from one float32 GEMM of augmented rows, :math:`[x, \\lVert x\\rVert^2, 1] \\cdot
    [-2y, 1, \\lVert y\\rVert^2] = \\lVert x - y\\rVert^2`, on centred data (norms computed in
    float64), into one reused buffer; clipping at 0 and the square root are the only
    elementwise passes, and per-cluster sums are GEMMs with the one-hot label matrix,
    accumulated in float64. Only blocks on and above the diagonal are computed; each
    contributes to its rows and (transposed) to its columns. Memory is
    :math:`O(\\text{chunk\\_size}^2)`. Equals :func:`sklearn.metrics.silhouette_score`
    within 1e-6 on embedding-like data (``benchmarks/bench_metrics.py`` prints its time
    against the GEMM peak).

    Parameters
    ----------
    X : array_like of shape (n_points, dim)
        The points, one per row.
    labels : array_like of shape (n_points,)
        The cluster of each point; between 2 and ``n_points - 1`` distinct values.
    chunk_size : int, optional
        Rows per block of distances (default 1024), >= 1; bounds the memory, not the
        result.

    Returns
    -------
    float
        The mean silhouette coefficient, in [-1, 1].

    Raises
    ------
    ValueError
        For fewer than 2 points, NaN/inf, fewer than 2 or more than n-1 distinct labels,
        labels that are not one per point, or ``chunk_size`` below 1.

    References
    ----------
    Rousseeuw, P. J. (1987). Silhouettes: a graphical aid to the interpretation and
    validation of cluster analysis. J. Comput. Appl. Math. 20, 53-65.
    """
    X = check_embeddings(X)
    n = X.shape[0]
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be >= 1, got {chunk_size}.")
    labels = check_labels(labels, n, "labels", min_groups=2)
    codes, inverse, counts = np.unique(labels, return_inverse=True, return_counts=True)
    if codes.size > n - 1:
        raise ValueError(
            f"silhouette needs 2 <= n_labels <= n_points - 1; got {codes.size} labels for "
            f"{n} points."
        )
    X64 = np.asarray(X, dtype=np.float64)
    X64 = X64 - X64.mean(axis=0)
    sq_norms = np.einsum("ij,ij->i", X64, X64)
    left = np.empty((n, X64.shape[1] + 2), dtype=np.float32)  # [x, |x|^2, 1]
    left[:, :-2], left[:, -2], left[:, -1] = X64, sq_norms, 1.0
    right = np.empty_like(left)  # [-2y, 1, |y|^2]
    right[:, :-2], right[:, -2], right[:, -1] = -2.0 * X64, 1.0, sq_norms
    onehot = np.zeros((n, codes.size), dtype=np.float32)
    onehot[np.arange(n), inverse] = 1.0
    sums = np.zeros((n, codes.size), dtype=np.float64)  # sum of distances to each cluster
    buffer = np.empty((min(chunk_size, n), min(chunk_size, n)), dtype=np.float32)
    for i0 in range(0, n, chunk_size):
        i1 = min(i0 + chunk_size, n)
        for j0 in range(i0, n, chunk_size):
            j1 = min(j0 + chunk_size, n)
            dist = buffer[: i1 - i0, : j1 - j0]
            np.matmul(left[i0:i1], right[j0:j1].T, out=dist)
            np.maximum(dist, 0.0, out=dist)
            np.sqrt(dist, out=dist)
            if i0 == j0:
                np.fill_diagonal(dist, 0.0)
            sums[i0:i1] += dist @ onehot[j0:j1]
            if j0 != i0:
                sums[j0:j1] += (onehot[i0:i1].T @ dist).T
    own = counts[inverse]
    a = sums[np.arange(n), inverse] / np.maximum(own - 1, 1)
    means = sums / counts[None, :]
    means[np.arange(n), inverse] = np.inf
    b = means.min(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        s = (b - a) / np.maximum(a, b)
    s = np.where(own > 1, np.nan_to_num(s), 0.0)
    return float(s.mean())
