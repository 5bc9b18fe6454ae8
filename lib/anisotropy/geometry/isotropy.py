"""Isotropy measures: IsoScore (Rudman et al. 2022), the isotropy defect, the partition
function I(W) (Mu & Viswanath 2018, in log space) and the centroid norm ratio."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from anisotropy.geometry.validation import check_embeddings

__all__ = ["isoscore", "isotropy_defect", "partition_isotropy", "centroid_norm_ratio",
           "PartitionIsotropy"]


# --------------------------------------------------------------------------- isotropy


def isoscore(X) -> float:
    """IsoScore of a point cloud (Rudman et al. 2022).

    With :math:`\\Sigma_D` the covariance eigenvalues (the variances along the principal
    components, all ``dim`` of them, zeros included), :math:`n` = dim:

    .. math::
        \\hat\\Sigma_D = \\sqrt n\\,\\Sigma_D / \\lVert\\Sigma_D\\rVert,\\quad
        \\delta = \\lVert\\hat\\Sigma_D - \\mathbf 1\\rVert / \\sqrt{2(n-\\sqrt n)},\\quad
        \\mathrm{IsoScore} = \\frac{(n - \\delta^2 (n-\\sqrt n))^2 - n}{n(n-1)}

    It equals ``IsoScore.IsoScore(points)`` of the ``IsoScore`` package 2.0.1 with points of
    shape (n_points, dim), including when n_points < dim (then the eigenvalues come from an
    SVD of the centred data, zeros padded to ``dim``).

    Parameters
    ----------
    X : array_like of shape (n_points, dim)
        The points, one per row: finite, at least 2 points and 2 dimensions, not all equal.
        The covariance is formed in ``X``'s precision (float32 stays float32), its
        eigenvalues in float64.

    Returns
    -------
    float in [0, 1]: 1 for isotropic, 0 when all variance lies on one direction.

    Raises
    ------
    ValueError
        For ``X`` not 2-D, not finite, with fewer than 2 points or 2 dimensions, or with
        zero variance.

    References
    ----------
    Rudman, W., Gillman, N., Rayne, T., Eickhoff, C. (2022). IsoScore: Measuring the
    uniformity of embedding space utilization. Findings of ACL.
    """
    X = check_embeddings(X)
    n_points, dim = X.shape
    if dim < 2:
        raise ValueError("isoscore needs at least 2 dimensions.")
    # Like the package, the covariance is formed in the input's precision (a float32 GEMM
    # for float32 embeddings); the small dim x dim eigenproblem is solved in float64.
    centred = X - X.mean(axis=0)
    if n_points > dim:
        covariance = (centred.T @ centred).astype(np.float64) / (n_points - 1)
        variances = np.linalg.eigvalsh(covariance)[::-1].clip(min=0)
    else:
        singular = np.linalg.svd(centred, compute_uv=False)
        variances = np.zeros(dim)
        variances[: singular.size] = singular**2 / (n_points - 1)
    norm = np.linalg.norm(variances)
    if norm == 0:
        raise ValueError("isoscore is undefined for a point cloud with zero variance.")
    n = float(dim)
    defect = isotropy_defect(variances)
    return float(((n - defect**2 * (n - np.sqrt(n))) ** 2 - n) / (n * (n - 1)))


def isotropy_defect(variances) -> float:
    """IsoScore's isotropy defect of a variance vector (Rudman et al. 2022, step 4).

    .. math:: \\delta = \\lVert \\sqrt n\\,\\Sigma/\\lVert\\Sigma\\rVert - \\mathbf 1
              \\rVert / \\sqrt{2(n-\\sqrt n)}

    0 for equal variances in all ``n`` dimensions, 1 when one dimension holds all of it.

    Parameters
    ----------
    variances : array_like of shape (n,)
        The variances :math:`\\Sigma` along the ``n`` principal directions, ``n >= 2``;
        their norm must be positive and finite.

    Returns
    -------
    float
        The defect :math:`\\delta`.

    Raises
    ------
    ValueError
        For a ``variances`` that is not a vector of at least 2 entries, or whose norm is
        zero or not finite.
    """
    variances = np.asarray(variances, dtype=np.float64)
    if variances.ndim != 1 or variances.size < 2:
        raise ValueError(f"variances must be a vector of >= 2 entries; got {variances.shape}.")
    norm = np.linalg.norm(variances)
    if norm == 0 or not np.isfinite(norm):
        raise ValueError("the isotropy defect is undefined for zero or non-finite variances.")
    n = float(variances.size)
    return float(np.linalg.norm(variances * np.sqrt(n) / norm - 1.0)
                 / np.sqrt(2 * (n - np.sqrt(n))))


class PartitionIsotropy(NamedTuple):
    """I(W) and its base-10 logarithm (the value underflows to 0 for decoder layers).

    Attributes
    ----------
    value : float
        I(W) itself, ``10**log10``; 0.0 when it underflows.
    log10 : float
        Its base-10 logarithm, exact however small I(W) is.
    """

    value: float
    log10: float


def partition_isotropy(X, chunk_size: int = 2048) -> PartitionIsotropy:
    """Mu & Viswanath's isotropy I(W) = min_c Z(c) / max_c Z(c), computed in log space.

    .. math:: Z(c) = \\sum_i \\exp(c^\\top w_i), \\qquad
              I(W) = \\frac{\\min_{c} Z(c)}{\\max_{c} Z(c)}

    where :math:`c` runs over the eigenvectors of :math:`W^\\top W`, taken with both signs.
    :math:`\\log Z(c)` is a log-sum-exp, so the ratio is exact even when it is far below the
    smallest float (decoder layers reach :math:`\\log_{10} I \\approx -11{,}000`).

    Parameters
    ----------
    X : array of shape (n_points, dim)
    chunk_size : int
        Rows per block of the log-sum-exp; bounds the temporaries, not the value.

    Returns
    -------
    PartitionIsotropy
        ``(value, log10)``; ``value = 10**log10`` (0.0 when it underflows).

    Notes
    -----
    Rajaee & Pilehvar's notebook takes each eigenvector with one sign only; taking both
    (the set Mu & Viswanath approximate the unit sphere with) gives a value that is never
    larger. The transform is not scale invariant: I(W) depends on vector norms.

    References
    ----------
    Mu, J., Viswanath, P. (2018). All-but-the-top: simple and effective postprocessing for
    word representations. ICLR.
    """
    X = check_embeddings(X)
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be >= 1, got {chunk_size}.")
    W = np.asarray(X, dtype=np.float64)
    _, vectors = np.linalg.eigh(W.T @ W)
    projections = W @ vectors  # (n_points, dim): c^T w_i for every eigenvector c
    top, bottom = projections.max(axis=0), projections.min(axis=0)  # peaks for +c and -c
    sums = np.zeros((2, projections.shape[1]))
    for start in range(0, projections.shape[0], chunk_size):  # small temporaries
        block = projections[start:start + chunk_size]
        sums[0] += np.exp(block - top).sum(axis=0)
        sums[1] += np.exp(bottom - block).sum(axis=0)
    log_z = np.concatenate([top + np.log(sums[0]), np.log(sums[1]) - bottom])
    log10 = float((log_z.min() - log_z.max()) / np.log(10))
    return PartitionIsotropy(float(10.0**log10), log10)


def centroid_norm_ratio(X) -> float:
    """How far a point cloud is from zero-mean: the norm of its mean over its mean norm.

    .. math:: r = \\frac{\\lVert \\tfrac1n \\sum_i x_i \\rVert}
                         {\\tfrac1n \\sum_i \\lVert x_i \\rVert} \\in [0, 1]

    ``r = 0`` exactly when the mean vector is zero; ``r = 1`` exactly when every point lies
    on one ray from the origin (triangle inequality). It is invariant to rotations and to
    scaling all points by one factor. Rajaee & Sheikhi's slides (seed 000) report that
    fine-tuned [CLS] vectors are "already zero-mean"; Mu & Viswanath (2018) remove a
    common mean vector of large norm from word embeddings.

    Parameters
    ----------
    X : array of shape (n_points, dim), at least one point with a non-zero norm
        The points, one per row (finite; one point suffices).

    Returns
    -------
    float
        :math:`r`, in [0, 1] (clipped at 1 against rounding).

    Raises
    ------
    ValueError
        For ``X`` not 2-D, empty or not finite, or with every row zero.

    References
    ----------
    Mu, J., Viswanath, P. (2018). All-but-the-top: simple and effective postprocessing for
    word representations. ICLR.
    """
    X = np.asarray(check_embeddings(X, min_points=1), dtype=np.float64)
    norms = np.linalg.norm(X, axis=1)
    if not norms.any():
        raise ValueError("centroid_norm_ratio needs at least one non-zero vector; all rows of "
                         "X are zero.")
    return float(min(1.0, np.linalg.norm(X.mean(axis=0)) / norms.mean()))
