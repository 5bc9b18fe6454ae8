"""Isotropy and similarity measures: pure functions, numpy in, a float or a small frame out.

Every public function validates its input at the top (2-D, finite, enough points, enough
groups) and raises :class:`ValueError` naming the problem. Embeddings may be float32; sums
run in float64.

The functions, in the order the book uses them:

=================================  ======================================================
:func:`cosine_baseline`            mean cosine of random pairs (Ethayarajh 2019)
:func:`self_similarity`            per-word mean cosine across contexts (Ethayarajh 2019)
:func:`intra_sentence_similarity`  per-sentence cosine to the sentence mean (Ethayarajh)
:func:`max_explainable_variance`   per-word share of variance on the first PC (Ethayarajh)
:func:`inter_type_similarity`      S_inter (Cai et al. 2021)
:func:`intra_type_similarity`      S_intra (Cai et al. 2021)
:func:`isoscore`                   IsoScore (Rudman et al. 2022)
:func:`partition_isotropy`         I(W) (Mu & Viswanath 2018), in log space
:func:`silhouette`                 exact Euclidean silhouette (Rousseeuw 1987)
:func:`lid_mle`                    Levina-Bickel local intrinsic dimension
=================================  ======================================================
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from anisotropy.geometry.grouping import group_sums

__all__ = [
    "cosine_baseline",
    "random_pairs",
    "pair_cosines",
    "self_similarity",
    "intra_sentence_similarity",
    "max_explainable_variance",
    "mev_baseline",
    "mev_baseline_rows",
    "uncentred_share_draws",
    "inter_type_similarity",
    "inter_type_units",
    "mean_offdiagonal_cosine",
    "intra_type_similarity",
    "isoscore",
    "isotropy_defect",
    "knn_distances",
    "partition_isotropy",
    "centroid_norm_ratio",
    "PartitionIsotropy",
    "silhouette",
    "lid_mle",
    "check_embeddings",
]


# --------------------------------------------------------------------------- validation


def check_embeddings(X, *, min_points: int = 2, name: str = "X") -> np.ndarray:
    """Return ``X`` as a 2-D floating array after checking shape, size and finiteness.

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


def _check_labels(labels, n: int, name: str, min_groups: int = 1) -> np.ndarray:
    labels = np.asarray(labels)
    if labels.ndim != 1 or labels.shape[0] != n:
        raise ValueError(f"{name} must be 1-D with one entry per point ({n}); got {labels.shape}.")
    n_groups = np.unique(labels).size
    if n_groups < min_groups:
        raise ValueError(f"{name} has {n_groups} distinct value(s); need at least {min_groups}.")
    return labels


def _unit_rows(X: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm (float64); zero rows stay zero."""
    X = np.asarray(X, dtype=np.float64)
    norms = np.sqrt(np.einsum("ij,ij->i", X, X))[:, None]  # no (n, dim) temporary
    return X / np.where(norms > 0, norms, 1.0)


def _grouped_rows(ids: np.ndarray):
    """Yield ``(value, row indices)`` for each distinct value of ``ids``, rows in order."""
    codes, inverse = np.unique(ids, return_inverse=True)
    order = np.argsort(inverse, kind="stable")
    bounds = np.searchsorted(inverse[order], np.arange(codes.size + 1))
    for code, start, stop in zip(codes, bounds[:-1], bounds[1:], strict=True):
        yield code, order[start:stop]


def mean_offdiagonal_cosine(unit: np.ndarray) -> float:
    """Mean cosine over ordered pairs i != j of unit rows: (|sum u|^2 - n) / (n^2 - n)."""
    n = unit.shape[0]
    total = unit.sum(axis=0)
    return float((total @ total - (unit * unit).sum()) / (n * n - n))


# --------------------------------------------------------------------------- Ethayarajh 2019


def cosine_baseline(X, groups=None, n_pairs: int = 1000, seed: int = 0,
                    return_se: bool = False):
    """Anisotropy baseline: mean cosine similarity of random pairs of points.

    .. math:: \\mathrm{Baseline}(f_\\ell) = \\mathbb{E}_{x \\ne y}[\\cos(f_\\ell(x), f_\\ell(y))]

    Pairs are drawn with replacement, never a point with itself; when ``groups`` is given
    (e.g. sentence ids), a pair is two different random groups and one random point of each
    (:func:`random_pairs`).

    Parameters
    ----------
    X : array of shape (n_points, dim)
    groups : array of shape (n_points,), optional
    n_pairs : int
        Number of random pairs (Ethayarajh's code uses 1,000).
    seed : int

    return_se : bool
        Also return the standard error of the mean over the sampled pairs.

    Returns
    -------
    float, or (float, float) with ``return_se``

    References
    ----------
    Ethayarajh, K. (2019). How contextual are contextualized word representations? EMNLP.
    """
    X = check_embeddings(X)
    first, second = random_pairs(X.shape[0], groups, n_pairs, seed)
    cosines = pair_cosines(X, first, second)
    mean = float(np.mean(cosines))
    if return_se:
        return mean, float(np.std(cosines, ddof=1) / np.sqrt(n_pairs)) if n_pairs > 1 else 0.0
    return mean


def random_pairs(n: int, groups=None, n_pairs: int = 1000, seed: int = 0
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The random pairs of :func:`cosine_baseline`: ``n_pairs`` index pairs ``(i, j)``,
    drawn with replacement, never ``i == j``.

    Without ``groups`` both points are uniform over the ``n`` points. With ``groups`` (e.g.
    sentence ids) each pair is two different groups drawn uniformly, then one point drawn
    uniformly within each: Ethayarajh's protocol ("uniformly randomly sampling sentences and
    then uniformly randomly sampling a single word from each", kawine/contextual
    ``analyze.py``), which does not favour long sentences. The same ``(n, groups, n_pairs,
    seed)`` give the same pairs, so every layer of one set of words shares them.
    """
    if n_pairs < 1:
        raise ValueError(f"n_pairs must be >= 1, got {n_pairs}.")
    if n < 2:
        raise ValueError(f"Need at least 2 points to draw pairs; got {n}.")
    rng = np.random.default_rng(seed)
    if groups is not None:
        groups = _check_labels(groups, n, "groups", min_groups=2)
        # groups numbered by first appearance, so the draw does not depend on label values
        _, first_row, inverse = np.unique(groups, return_index=True, return_inverse=True)
        code = np.argsort(np.argsort(first_row))[inverse.ravel()]
        order = np.argsort(code, kind="stable")
        _, starts, counts = np.unique(code[order], return_index=True, return_counts=True)
        g1 = rng.integers(0, starts.size, size=n_pairs)
        g2 = rng.integers(0, starts.size - 1, size=n_pairs)
        g2 += g2 >= g1  # a different group, uniform over the others
        pick = [order[starts[g] + (rng.random(n_pairs) * counts[g]).astype(np.int64)]
                for g in (g1, g2)]
        return pick[0], pick[1]
    first = rng.integers(0, n, size=n_pairs)
    second = rng.integers(0, n, size=n_pairs)
    while (bad := first == second).any():  # redraw the few self-pairs
        second[bad] = rng.integers(0, n, size=int(bad.sum()))
    return first, second


def pair_cosines(X, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Cosine similarity of rows ``first[p]`` and ``second[p]`` of ``X`` for every pair."""
    unit = _unit_rows(check_embeddings(X))
    return np.einsum("ij,ij->i", unit[first], unit[second])


def self_similarity(X, word_ids, max_occurrences: int | None = None, seed: int = 0,
                    context_ids=None) -> pd.Series:
    """Self-similarity of each word: mean cosine between its occurrences in different contexts.

    .. math:: \\mathrm{SelfSim}_\\ell(w) = \\frac{1}{n^2-n} \\sum_j \\sum_{k \\ne j}
              \\cos(f_\\ell(s_j, i_j), f_\\ell(s_k, i_k))

    computed exactly as :math:`(\\lVert \\sum_j u_j \\rVert^2 - n)/(n^2-n)` on unit vectors.
    With ``context_ids`` (the sentence of each row), pairs of occurrences in the same
    sentence are left out, as the paper's definition over *different* sentences reads:
    :math:`(\\lVert \\sum_j u_j \\rVert^2 - \\sum_s \\lVert \\sum_{j \\in s} u_j \\rVert^2)
    / (n^2 - \\sum_s n_s^2)`; a word seen in one sentence only is then left out.

    Parameters
    ----------
    X : array of shape (n_points, dim)
        One row per occurrence.
    word_ids : array of shape (n_points,)
        The word (type) of each row. Words with fewer than 2 occurrences are left out.
    max_occurrences : int, optional
        Subsample words with more occurrences to this many (seeded), as Cai et al. cap
        S_intra at 1,000 instances. Not combined with ``context_ids``.
    seed : int
    context_ids : array of shape (n_points,), optional
        The context (sentence) of each row; same-context pairs are then excluded.

    Returns
    -------
    pandas.Series
        Indexed by word id; the per-word self-similarity.

    References
    ----------
    Ethayarajh, K. (2019). How contextual are contextualized word representations? EMNLP.
    """
    X = check_embeddings(X)
    word_ids = _check_labels(word_ids, X.shape[0], "word_ids")
    unit = _unit_rows(X)
    if context_ids is not None:
        if max_occurrences is not None:
            raise ValueError("max_occurrences and context_ids cannot be combined; cap the "
                             "occurrences before calling.")
        return _self_similarity_across_contexts(unit, word_ids, context_ids)
    rng = np.random.default_rng(seed)
    values, index = [], []
    for code, rows in _grouped_rows(word_ids):
        if rows.size < 2:
            continue
        if max_occurrences is not None and rows.size > max_occurrences:
            rows = rng.choice(rows, size=max_occurrences, replace=False)
        values.append(mean_offdiagonal_cosine(unit[rows]))
        index.append(code)
    if not values:
        raise ValueError("No word has 2 or more occurrences; self-similarity is undefined.")
    return pd.Series(values, index=pd.Index(index, name="word"), name="self_similarity")


def _self_similarity_across_contexts(unit: np.ndarray, word_ids: np.ndarray, context_ids
                                     ) -> pd.Series:
    """:func:`self_similarity` without same-context pairs, for every word at once."""
    context_ids = _check_labels(context_ids, unit.shape[0], "context_ids")
    words, word_code = np.unique(word_ids, return_inverse=True)
    pairs, pair_code = np.unique(np.stack([word_code, np.unique(context_ids,
                                                                return_inverse=True)[1]]),
                                 axis=1, return_inverse=True)
    pair_code = pair_code.ravel()
    unit64 = np.asarray(unit, dtype=np.float64)
    word_sums = group_sums(unit64, word_code, words.size)
    pair_sums = group_sums(unit64, pair_code, pairs.shape[1])
    n_word = np.bincount(word_code, minlength=words.size).astype(np.float64)
    n_pair = np.bincount(pair_code, minlength=pairs.shape[1]).astype(np.float64)
    within = np.bincount(pairs[0], weights=np.einsum("ij,ij->i", pair_sums, pair_sums),
                         minlength=words.size)
    within_pairs = np.bincount(pairs[0], weights=n_pair**2, minlength=words.size)
    denominator = n_word**2 - within_pairs
    keep = denominator > 0
    if not keep.any():
        raise ValueError("No word occurs in 2 or more contexts; self-similarity is undefined.")
    total = np.einsum("ij,ij->i", word_sums, word_sums)
    values = (total[keep] - within[keep]) / denominator[keep]
    return pd.Series(values, index=pd.Index(words[keep], name="word"), name="self_similarity")


def intra_sentence_similarity(X, sentence_ids) -> pd.Series:
    """Intra-sentence similarity: mean cosine between each word and its sentence's mean vector.

    .. math:: \\mathrm{IntraSim}_\\ell(s) = \\frac{1}{n}\\sum_i \\cos(\\vec s_\\ell, f_\\ell(s,i)),
              \\quad \\vec s_\\ell = \\frac{1}{n}\\sum_i f_\\ell(s,i)

    Sentences with fewer than 2 words are left out (the value is trivially 1).

    Returns
    -------
    pandas.Series
        Indexed by sentence id.

    References
    ----------
    Ethayarajh, K. (2019). How contextual are contextualized word representations? EMNLP.
    """
    X = check_embeddings(X)
    sentence_ids = _check_labels(sentence_ids, X.shape[0], "sentence_ids")
    codes, inverse, counts = np.unique(sentence_ids, return_inverse=True, return_counts=True)
    X64 = np.asarray(X, dtype=np.float64)
    means = _unit_rows(group_sums(X64, inverse, codes.size) / counts[:, None])
    cosines = np.einsum("ij,ij->i", _unit_rows(X64), means[inverse])
    per_sentence = np.bincount(inverse, weights=cosines) / counts
    keep = counts >= 2
    if not keep.any():
        raise ValueError("No sentence has 2 or more words; intra-sentence similarity is undefined.")
    return pd.Series(per_sentence[keep], index=pd.Index(codes[keep], name="sentence"),
                     name="intra_sentence_similarity")


def _first_pc_share(M: np.ndarray, center: bool) -> float:
    """Share of variance on the first direction; NaN when the rows do not vary."""
    M = np.asarray(M, dtype=np.float64)
    centred = M - M.mean(axis=0)
    total = float((centred**2).sum())
    scale = float((M**2).sum())
    if total <= 1e-12 * max(scale, 1e-300):
        return float("nan")
    if center:  # sigma_1^2 / sum sigma_i^2, with sum sigma_i^2 = ||C||_F^2
        return float(_top_gram_eigen(centred)[0] / total)
    _, vector = _top_gram_eigen(M)  # v_1: top right singular vector of M
    projection = M @ vector
    return float(projection.var() / M.var(axis=0).sum())


def _top_gram_eigen(M: np.ndarray) -> tuple[float, np.ndarray]:
    """Largest squared singular value of ``M`` and its right singular vector.

    Taken from the smaller Gram matrix (``M M^T`` when rows < columns, else ``M^T M``) with a
    symmetric eigensolver: the same numbers as an SVD of ``M`` (float64) at a fraction of
    the cost for the many small per-word matrices of MEV.
    """
    wide = M.shape[0] < M.shape[1]
    gram = M @ M.T if wide else M.T @ M
    values, vectors = np.linalg.eigh(gram)
    if not wide:
        return float(values[-1]), vectors[:, -1]
    vector = M.T @ vectors[:, -1]
    norm = np.linalg.norm(vector)
    return float(values[-1]), vector / norm if norm > 0 else vector


def max_explainable_variance(X, word_ids, center: bool = True) -> pd.Series:
    """Maximum explainable variance: share of a word's variance on its first principal component.

    .. math:: \\mathrm{MEV}_\\ell(w) = \\frac{\\sigma_1^2}{\\sum_i \\sigma_i^2}

    where :math:`\\sigma_i` are the singular values of the word's centred occurrence matrix
    (occurrences x dim): the first principal component's share, as Ethayarajh's per-word code
    computes it (``PCA(n_components=1).explained_variance_ratio_``).

    With ``center=False`` the first direction is the top right singular vector :math:`v_1` of
    the *uncentred* matrix and the share is
    :math:`\\mathrm{Var}(Mv_1)/\\sum_j \\mathrm{Var}(M_{:,j})`, exactly scikit-learn's
    ``TruncatedSVD(...).explained_variance_ratio_[0]``, which Ethayarajh's code uses for its
    random-word MEV baseline.

    Words with fewer than 2 occurrences are left out; a word whose occurrences are identical
    (e.g. a static input embedding) has no variance and gets NaN.

    Returns
    -------
    pandas.Series
        Indexed by word id.

    References
    ----------
    Ethayarajh, K. (2019). How contextual are contextualized word representations? EMNLP.
    """
    X = check_embeddings(X)
    word_ids = _check_labels(word_ids, X.shape[0], "word_ids")
    values, index = [], []
    for code, rows in _grouped_rows(word_ids):
        if rows.size < 2:
            continue
        values.append(_first_pc_share(X[rows], center))
        index.append(code)
    if not values:
        raise ValueError("No word has 2 or more occurrences; MEV is undefined.")
    return pd.Series(values, index=pd.Index(index, name="word"), name="mev")


def mev_baseline(X, n_points: int = 1000, center: bool = True, seed: int = 0,
                 groups=None) -> float:
    """MEV of uniformly sampled representations: Ethayarajh's anisotropy baseline for MEV.

    Ethayarajh adjusts MEV by "the proportion of variance explained by the first principal
    component of uniformly randomly sampled representations". This draws ``n_points`` rows
    without replacement (one per group when ``groups``, e.g. sentence ids, is given: the
    original code takes one random word from each of 1,000 random sentences) and returns
    that share, with the centring convention of :func:`max_explainable_variance`.
    """
    X = check_embeddings(X)
    return _first_pc_share(X[mev_baseline_rows(X.shape[0], n_points, seed, groups)], center)


def mev_baseline_rows(n: int, n_points: int = 1000, seed: int = 0, groups=None) -> np.ndarray:
    """The rows :func:`mev_baseline` draws: ``n_points`` of ``n`` without replacement, one
    per group when ``groups`` is given (a random member of each of ``n_points`` random
    groups)."""
    rng = np.random.default_rng(seed)
    if groups is None:
        return rng.choice(n, size=min(n_points, n), replace=False)
    groups = _check_labels(groups, n, "groups")
    order = rng.permutation(n)
    _, first = np.unique(groups[order], return_index=True)
    rows = order[first]
    if rows.size > n_points:
        rows = rng.choice(rows, size=n_points, replace=False)
    return rows


def uncentred_share_draws(M, counts: np.ndarray, n_iter: int = 40) -> np.ndarray:
    """Bootstrap draws of the uncentred first-component share of :func:`mev_baseline`
    (``center=False``: scikit-learn's ``TruncatedSVD`` ratio) over resamples of the rows.

    Draw ``b`` weights row ``i`` of ``M`` by ``counts[b, i]`` (how often the resample holds
    it): the top right singular vector :math:`v_b` of the resample is found by power
    iteration on :math:`M^\top \\mathrm{diag}(c_b) M`, started from the full sample's
    vector, and the share is the weighted variance of :math:`M v_b` over the weighted total
    variance, as for the full sample. All-ones counts give :func:`_first_pc_share`.
    """
    M = np.asarray(check_embeddings(M, min_points=2), dtype=np.float64)
    counts = np.asarray(counts, dtype=np.float64)
    if counts.ndim != 2 or counts.shape[1] != M.shape[0]:
        raise ValueError(f"counts must be (n_boot, {M.shape[0]}); got {counts.shape}.")
    _, start = _top_gram_eigen(M)
    V = np.repeat(start[:, None], counts.shape[0], axis=1)  # (dim, B)
    for _ in range(n_iter):
        V = M.T @ (counts.T * (M @ V))
        V /= np.linalg.norm(V, axis=0, keepdims=True)
    total = counts.sum(axis=1)
    projection = M @ V  # (n, B)
    mean_p = np.einsum("bi,ib->b", counts, projection) / total
    var_p = np.einsum("bi,ib->b", counts, projection**2) / total - mean_p**2
    mean_x = counts @ M / total[:, None]
    var_x = counts @ np.einsum("ij,ij->i", M, M) / total - np.einsum("bj,bj->b", mean_x, mean_x)
    return var_p / var_x


# --------------------------------------------------------------------------- Cai et al. 2021


def inter_type_similarity(X, type_ids, seed: int = 0) -> float:
    """S_inter: mean cosine between different types, one random instance per type.

    .. math:: S_\\mathrm{inter} = \\mathbb{E}_{i \\ne j}[\\cos(\\phi(t_i), \\phi(t_j))]

    One occurrence of every type is drawn (seeded), then the mean cosine over all ordered
    pairs of distinct types is computed exactly.

    References
    ----------
    Cai, X., Huang, J., Bian, Y., Church, K. (2021). Isotropy in the contextual embedding
    space: clusters and manifolds. ICLR.
    """
    return mean_offdiagonal_cosine(inter_type_units(X, type_ids, seed))


def inter_type_units(X, type_ids, seed: int = 0) -> np.ndarray:
    """The unit vectors S_inter averages over: one seeded random instance per type, in the
    order of the sorted type ids (see :func:`inter_type_similarity`)."""
    X = check_embeddings(X)
    type_ids = _check_labels(type_ids, X.shape[0], "type_ids", min_groups=2)
    rng = np.random.default_rng(seed)
    order = rng.permutation(X.shape[0])
    _, first = np.unique(type_ids[order], return_index=True)
    return _unit_rows(X[order[first]])


def intra_type_similarity(X, type_ids, max_instances: int = 1000, seed: int = 0) -> float:
    """S_intra: mean over types of the mean cosine between a type's own instances.

    .. math:: S_\\mathrm{intra} = \\mathbb{E}_i[\\mathbb{E}_{k \\ne l}
              [\\cos(\\phi_k(t_i), \\phi_l(t_i))]]

    Types with at least 2 instances; at most ``max_instances`` per type (Cai's code: 1,000).

    References
    ----------
    Cai, X., Huang, J., Bian, Y., Church, K. (2021). ICLR.
    """
    per_type = self_similarity(X, type_ids, max_occurrences=max_instances, seed=seed)
    return float(per_type.mean())


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

    Returns
    -------
    float in [0, 1]: 1 for isotropic, 0 when all variance lies on one direction.

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
    """I(W) and its base-10 logarithm (the value underflows to 0 for decoder layers)."""

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

    Raises
    ------
    ValueError
        For fewer than 2 points, NaN/inf, fewer than 2 or more than n-1 distinct labels.

    References
    ----------
    Rousseeuw, P. J. (1987). Silhouettes: a graphical aid to the interpretation and
    validation of cluster analysis. J. Comput. Appl. Math. 20, 53-65.
    """
    X = check_embeddings(X)
    n = X.shape[0]
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be >= 1, got {chunk_size}.")
    labels = _check_labels(labels, n, "labels", min_groups=2)
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


# --------------------------------------------------------------------------- LID


#: Cosine distances below this (an angle of 1.4e-5 rad), and squared Euclidean distances below
#: this times |x|^2 + |y|^2, count as zero. A duplicate's distance comes out of the float64
#: arithmetic as 0 or as noise of ~1e-16; snapping both to 0 makes LID of data with duplicates
#: independent of how the rounding falls.
_ZERO_DISTANCE = 1e-10


def knn_distances(X, k: int, metric: str = "euclidean", chunk_size: int = 2048) -> np.ndarray:
    """Exact distances of every point to its ``k`` nearest other points, sorted ascending.

    One chunked loop for both metrics: a block of ``chunk_size`` rows against all rows (a
    GEMM), the point itself masked, ``np.partition`` for the k smallest. Memory is
    ``chunk_size * n_points`` float64. Euclidean distances are computed on centred data
    (fewer cancellations); cosine distance is ``1 - cos``. A cosine distance below
    ``_ZERO_DISTANCE``, or a squared Euclidean distance below ``_ZERO_DISTANCE * (|x|^2 +
    |y|^2)``, is rounding noise of a duplicate and becomes 0.

    Returns
    -------
    ndarray of shape (n_points, k), float64.
    """
    if metric not in ("euclidean", "cosine"):
        raise ValueError(f"metric must be 'euclidean' or 'cosine', got {metric!r}.")
    if not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be an integer >= 1, got {k!r}.")
    X64 = np.asarray(check_embeddings(X, min_points=k + 1), dtype=np.float64)
    cosine = metric == "cosine"
    Y = _unit_rows(X64) if cosine else X64 - X64.mean(axis=0)
    sq = None if cosine else np.einsum("ij,ij->i", Y, Y)
    out = np.empty((Y.shape[0], k))
    for i0 in range(0, Y.shape[0], chunk_size):
        gram = Y[i0 : i0 + chunk_size] @ Y.T
        if cosine:
            block = 1.0 - gram
            block[block < _ZERO_DISTANCE] = 0.0
        else:
            scale = sq[i0 : i0 + chunk_size, None] + sq[None, :]
            block = scale - 2.0 * gram
            block[block < _ZERO_DISTANCE * scale] = 0.0
        rows = np.arange(block.shape[0])
        block[rows, rows + i0] = np.inf
        part = np.sort(np.maximum(np.partition(block, k - 1, axis=1)[:, :k], 0.0), axis=1)
        out[i0 : i0 + chunk_size] = part if cosine else np.sqrt(part)
    return out


def lid_mle(X, k: int = 100, metric: str = "euclidean", return_pointwise: bool = False):
    """Local intrinsic dimension by the Levina-Bickel maximum-likelihood estimator.

    For each point with sorted neighbour distances :math:`d_1 \\le \\dots \\le d_k`
    (itself excluded, exact search),

    .. math:: \\widehat{\\mathrm{LID}} = \\Big[\\frac{1}{k-1}\\sum_{j=1}^{k-1}
              \\log\\frac{d_k}{d_j}\\Big]^{-1}

    which equals scikit-dimension's ``MLE`` pointwise estimate. The average follows Cai et
    al.: the arithmetic mean over points, where an infinite estimate (all k distances equal)
    becomes the ambient dimension and NaN (duplicates, :math:`d_k = 0`) is dropped. A point
    with a duplicate among its neighbours (:math:`d_1 = 0`; common in layer 0, where a token
    at a given position always has the same vector) gets 0; distances within float rounding
    of zero count as zero, so that this does not depend on how the rounding falls.

    Parameters
    ----------
    X : array of shape (n_points, dim)
    k : int
        Number of neighbours (Cai et al.: 100). Needs ``n_points > k``.
    metric : {"euclidean", "cosine"}
        Cosine distance is ``1 - cos``. Locally :math:`1-\\cos\\theta \\approx \\theta^2/2`
        behaves like a *squared* distance, so the cosine estimate is about half the
        Euclidean one on the same data; compare numbers only within one metric.
    return_pointwise : bool
        Also return the per-point estimates.

    Returns
    -------
    float, or (float, ndarray) with ``return_pointwise``.

    References
    ----------
    Levina, E., Bickel, P. (2004). Maximum likelihood estimation of intrinsic dimension.
    NeurIPS. Cai, X. et al. (2021). Isotropy in the contextual embedding space. ICLR.
    """
    if metric not in ("euclidean", "cosine"):
        raise ValueError(f"metric must be 'euclidean' or 'cosine', got {metric!r}.")
    if k < 2:
        raise ValueError(f"k must be >= 2, got {k}.")
    X = check_embeddings(X, min_points=k + 1)
    distances = knn_distances(X, k, metric)
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log(distances[:, -1:] / distances[:, :-1])
        pointwise = (k - 1) / logs.sum(axis=1)
    pointwise = np.where(np.isposinf(pointwise), float(X.shape[1]), pointwise)
    finite = pointwise[np.isfinite(pointwise)]
    if finite.size == 0:
        raise ValueError("LID is undefined: every point has duplicate neighbours.")
    mean = float(finite.mean())
    return (mean, pointwise) if return_pointwise else mean
