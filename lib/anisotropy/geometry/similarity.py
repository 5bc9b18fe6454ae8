"""Similarity measures of Ethayarajh (2019) and Cai et al. (2021): the anisotropy baseline,
self- and intra-sentence similarity, maximum explainable variance, S_inter and S_intra."""

from __future__ import annotations

import numpy as np
import pandas as pd

from anisotropy.geometry.grouping import group_sums
from anisotropy.geometry.validation import check_embeddings, check_labels, grouped_rows, unit_rows

__all__ = ["cosine_baseline", "random_pairs", "pair_cosines", "self_similarity",
           "intra_sentence_similarity", "max_explainable_variance", "mev_baseline",
           "mev_baseline_rows", "uncentred_share_draws", "inter_type_similarity",
           "inter_type_units", "inter_type_rows", "mean_offdiagonal_cosine",
           "type_pair_mean_cosine",
           "intra_type_similarity"]


def mean_offdiagonal_cosine(unit: np.ndarray) -> float:
    """Mean cosine over ordered pairs i != j of unit rows: (|sum u|^2 - n) / (n^2 - n).

    Parameters
    ----------
    unit : numpy.ndarray of shape (n, dim)
        Rows of unit norm (as :func:`~anisotropy.geometry.validation.unit_rows` gives),
        ``n >= 2``. The code subtracts the rows' summed squared norms, which is ``n`` for
        unit rows; a zero row then counts as cosine 0 with every other row.

    Returns
    -------
    float
        The mean of :math:`u_i \\cdot u_j` over the :math:`n^2 - n` ordered pairs.
    """
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
        The group (e.g. sentence id) of each point, at least 2 distinct; see
        :func:`random_pairs`.
    n_pairs : int
        Number of random pairs (Ethayarajh's code uses 1,000).
    seed : int
        Seed of the pairs' draw (``numpy.random.default_rng``; default 0).
    return_se : bool
        Also return the standard error of the mean over the sampled pairs.

    Returns
    -------
    float, or (float, float) with ``return_se``
        The mean cosine; with ``return_se`` also its standard error,
        ``std(cosines, ddof=1) / sqrt(n_pairs)`` (0.0 for a single pair).

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

    Parameters
    ----------
    n : int
        Number of points, >= 2.
    groups : array_like of shape (n,), optional
        The group (e.g. sentence id) of each point, at least 2 distinct values. Groups are
        numbered by first appearance, so the draw does not depend on the label values.
    n_pairs : int, optional
        Number of pairs, >= 1 (default 1000).
    seed : int, optional
        Seed of ``numpy.random.default_rng`` (default 0).

    Returns
    -------
    first, second : numpy.ndarray of int, shape (n_pairs,)
        The indices of the two points of each pair; ``first[p] != second[p]`` (and in
        different groups when ``groups`` is given).

    Raises
    ------
    ValueError
        For ``n_pairs`` below 1, ``n`` below 2, or ``groups`` that are not one per point
        or have fewer than 2 distinct values.
    """
    if n_pairs < 1:
        raise ValueError(f"n_pairs must be >= 1, got {n_pairs}.")
    if n < 2:
        raise ValueError(f"Need at least 2 points to draw pairs; got {n}.")
    rng = np.random.default_rng(seed)
    if groups is not None:
        groups = check_labels(groups, n, "groups", min_groups=2)
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
    """Cosine similarity of rows ``first[p]`` and ``second[p]`` of ``X`` for every pair.

    Parameters
    ----------
    X : array_like of shape (n_points, dim)
        The points, one per row (finite, at least 2).
    first, second : numpy.ndarray of int, shape (n_pairs,)
        The rows of each pair, as :func:`random_pairs` gives.

    Returns
    -------
    numpy.ndarray of shape (n_pairs,), float64
        The cosine of each pair; 0 for a pair with a zero row.
    """
    unit = unit_rows(check_embeddings(X))
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
        Seed of that subsampling (``numpy.random.default_rng``; default 0).
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
    word_ids = check_labels(word_ids, X.shape[0], "word_ids")
    if context_ids is not None:
        if max_occurrences is not None:
            raise ValueError("max_occurrences and context_ids cannot be combined; cap the "
                             "occurrences before calling.")
        return _self_similarity_across_contexts(unit_rows(X), word_ids, context_ids)
    rng = np.random.default_rng(seed)
    chosen, index = [], []
    for code, rows in grouped_rows(word_ids):
        if rows.size < 2:
            continue
        if max_occurrences is not None and rows.size > max_occurrences:
            rows = rng.choice(rows, size=max_occurrences, replace=False)
        chosen.append(rows)
        index.append(code)
    if not chosen:
        raise ValueError("No word has 2 or more occurrences; self-similarity is undefined.")
    # only the rows that are used are normalised (row by row, so each is the same as in
    # unit_rows(X)); words seen once and occurrences over the cap are never touched
    unit = unit_rows(X[np.concatenate(chosen)])
    bounds = np.cumsum([0] + [rows.size for rows in chosen])
    values = [mean_offdiagonal_cosine(unit[start:stop])
              for start, stop in zip(bounds[:-1], bounds[1:], strict=True)]
    return pd.Series(values, index=pd.Index(index, name="word"), name="self_similarity")


def _self_similarity_across_contexts(unit: np.ndarray, word_ids: np.ndarray, context_ids
                                     ) -> pd.Series:
    """:func:`self_similarity` without same-context pairs, for every word at once."""
    context_ids = check_labels(context_ids, unit.shape[0], "context_ids")
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

    Parameters
    ----------
    X : array_like of shape (n_points, dim)
        One row per word occurrence.
    sentence_ids : array_like of shape (n_points,)
        The sentence of each row.

    Returns
    -------
    pandas.Series
        Indexed by sentence id (index name ``"sentence"``), sorted by id; the
        per-sentence intra-sentence similarity.

    Raises
    ------
    ValueError
        For an ``X`` that :func:`~anisotropy.geometry.validation.check_embeddings`
        refuses, ``sentence_ids`` not one per row, or no sentence of 2 or more words.

    References
    ----------
    Ethayarajh, K. (2019). How contextual are contextualized word representations? EMNLP.
    """
    X = check_embeddings(X)
    sentence_ids = check_labels(sentence_ids, X.shape[0], "sentence_ids")
    codes, inverse, counts = np.unique(sentence_ids, return_inverse=True, return_counts=True)
    X64 = np.asarray(X, dtype=np.float64)
    means = unit_rows(group_sums(X64, inverse, codes.size) / counts[:, None])
    cosines = np.einsum("ij,ij->i", unit_rows(X64), means[inverse])
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
    (occurrences x dim): the first principal component's share, as the later commit of
    Ethayarajh's code (kawine/contextual 3865f9b) computes it
    (``PCA(n_components=1).explained_variance_ratio_``).

    With ``center=False`` the first direction is the top right singular vector :math:`v_1` of
    the *uncentred* matrix and the share is
    :math:`\\mathrm{Var}(Mv_1)/\\sum_j \\mathrm{Var}(M_{:,j})`, exactly scikit-learn's
    ``TruncatedSVD(...).explained_variance_ratio_[0]``, which Ethayarajh's code at commit
    84d2f97 (the one that wrote the published statistics) uses for each word's MEV and for
    the random-word baseline alike. It is at most the centred share (the variance along
    :math:`v_1` against the same centred total), and has no floor.

    Words with fewer than 2 occurrences are left out; a word whose occurrences are identical
    (e.g. a static input embedding) has no variance and gets NaN.

    Parameters
    ----------
    X : array_like of shape (n_points, dim)
        One row per occurrence.
    word_ids : array_like of shape (n_points,)
        The word (type) of each row.
    center : bool, optional
        Centre each word's occurrence matrix (default True, the PCA share); False gives
        the uncentred ``TruncatedSVD`` share.

    Returns
    -------
    pandas.Series
        Indexed by word id (sorted), named ``"mev"``.

    Raises
    ------
    ValueError
        For an ``X`` that :func:`~anisotropy.geometry.validation.check_embeddings`
        refuses, ``word_ids`` not one per row, or no word with 2 or more occurrences.

    References
    ----------
    Ethayarajh, K. (2019). How contextual are contextualized word representations? EMNLP.
    """
    X = check_embeddings(X)
    word_ids = check_labels(word_ids, X.shape[0], "word_ids")
    values, index = [], []
    for code, rows in grouped_rows(word_ids):
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

    Parameters
    ----------
    X : array_like of shape (n, dim)
        The representations, one per row.
    n_points : int, optional
        Number of rows drawn (default 1000); fewer when ``X`` has fewer rows (or groups).
    center : bool, optional
        Centre the sample (default True), as in :func:`max_explainable_variance`.
    seed : int, optional
        Seed of the draw (default 0; :func:`mev_baseline_rows`).
    groups : array_like of shape (n,), optional
        The group (e.g. sentence id) of each row; one row is drawn per group.

    Returns
    -------
    float
        The first component's share of the sample's variance; NaN when the rows drawn do
        not vary.
    """
    X = check_embeddings(X)
    return _first_pc_share(X[mev_baseline_rows(X.shape[0], n_points, seed, groups)], center)


def mev_baseline_rows(n: int, n_points: int = 1000, seed: int = 0, groups=None) -> np.ndarray:
    """The rows :func:`mev_baseline` draws: ``n_points`` of ``n`` without replacement, one
    per group when ``groups`` is given (a random member of each of ``n_points`` random
    groups).

    Parameters
    ----------
    n : int
        Number of rows to draw from.
    n_points : int, optional
        Number of rows (or groups) drawn (default 1000).
    seed : int, optional
        Seed of ``numpy.random.default_rng`` (default 0).
    groups : array_like of shape (n,), optional
        The group of each row.

    Returns
    -------
    numpy.ndarray of int
        The rows drawn: ``min(n_points, n)`` of them in random order without ``groups``;
        with ``groups``, one random row of each of ``min(n_points, n_groups)`` random
        groups.

    Raises
    ------
    ValueError
        For ``groups`` that are not one per row.
    """
    rng = np.random.default_rng(seed)
    if groups is None:
        return rng.choice(n, size=min(n_points, n), replace=False)
    groups = check_labels(groups, n, "groups")
    order = rng.permutation(n)
    _, first = np.unique(groups[order], return_index=True)
    rows = order[first]
    if rows.size > n_points:
        rows = rng.choice(rows, size=n_points, replace=False)
    return rows


#: :func:`uncentred_share_draws` stops its power iterations early once no draw's unit
#: vector moves by more than this in any coordinate (the shares then agree with those of
#: every iteration to about 1e-12, tested; their bootstrap spread is about 1e-2).
_POWER_TOLERANCE = 1e-12


def uncentred_share_draws(M, counts: np.ndarray, n_iter: int = 40) -> np.ndarray:
    """Bootstrap draws of the uncentred first-component share of :func:`mev_baseline`
    (``center=False``: scikit-learn's ``TruncatedSVD`` ratio) over resamples of the rows.

    Draw ``b`` weights row ``i`` of ``M`` by ``counts[b, i]`` (how often the resample holds
    it): the top right singular vector :math:`v_b` of the resample is found by power
    iteration on :math:`M^\\top \\mathrm{diag}(c_b) M`, started from the full sample's
    vector (at most ``n_iter`` steps, fewer once no draw's vector moves by more than
    1e-12 in any coordinate), and the share is the weighted variance of :math:`M v_b`
    over the weighted total variance, as for the full sample. All-ones counts give
    :func:`_first_pc_share`.

    Parameters
    ----------
    M : array_like of shape (n, dim)
        The sample's rows (e.g. those :func:`mev_baseline_rows` draws); finite, n >= 2.
    counts : numpy.ndarray of shape (n_boot, n)
        Weight of each row in each draw (how often a resample holds it), as
        :func:`~anisotropy.geometry.intervals.resample_counts` gives.
    n_iter : int, optional
        The most power iterations (default 40).

    Returns
    -------
    numpy.ndarray of shape (n_boot,), float64
        The uncentred first-component share of each draw.

    Raises
    ------
    ValueError
        For an ``M`` that :func:`~anisotropy.geometry.validation.check_embeddings`
        refuses, or ``counts`` not of shape ``(n_boot, n)``.
    """
    M = np.asarray(check_embeddings(M, min_points=2), dtype=np.float64)
    counts = np.asarray(counts, dtype=np.float64)
    if counts.ndim != 2 or counts.shape[1] != M.shape[0]:
        raise ValueError(f"counts must be (n_boot, {M.shape[0]}); got {counts.shape}.")
    _, start = _top_gram_eigen(M)
    V = np.repeat(start[:, None], counts.shape[0], axis=1)  # (dim, B)
    for _ in range(n_iter):
        previous = V
        V = M.T @ (counts.T * (M @ V))
        V /= np.linalg.norm(V, axis=0, keepdims=True)
        if np.abs(V - previous).max() <= _POWER_TOLERANCE:  # every draw has converged
            break
    total = counts.sum(axis=1)
    projection = M @ V  # (n, B)
    mean_p = np.einsum("bi,ib->b", counts, projection) / total
    var_p = np.einsum("bi,ib->b", counts, projection**2) / total - mean_p**2
    mean_x = counts @ M / total[:, None]
    var_x = counts @ np.einsum("ij,ij->i", M, M) / total - np.einsum("bj,bj->b", mean_x, mean_x)
    return var_p / var_x


# --------------------------------------------------------------------------- Cai et al. 2021


def inter_type_similarity(X, type_ids, seed: int = 0, min_units: int = 1) -> float:
    """S_inter: mean cosine between instances of different types, every pair of types
    weighted equally.

    .. math:: S_\\mathrm{inter} = \\mathbb{E}_{i \\ne j}[\\cos(\\phi(t_i), \\phi(t_j))]

    Cai et al. draw one occurrence of every type; so does this with ``min_units = 1``, and
    the mean cosine over all ordered pairs of distinct types is computed exactly. A set with
    few types then rests on few pairs (two types: one cosine). With ``min_units`` > 1 each
    type contributes up to ``r = ceil(min_units / T)`` seeded instances (:func:`inter_type_rows`)
    and a pair of types counts the mean cosine of their instances,
    :math:`\\bar m_t \\cdot \\bar m_u` with :math:`\\bar m_t` the mean of type t's unit
    vectors (:func:`type_pair_mean_cosine`): the same expected value, without the luck of
    one draw.

    Parameters
    ----------
    X : array_like of shape (n_points, dim)
        One row per instance (token).
    type_ids : array_like of shape (n_points,)
        The type of each row; at least 2 distinct types.
    seed : int, optional
        Seed of the instances' draw (default 0; :func:`inter_type_rows`).
    min_units : int, optional
        The least number of instances to use in all (default 1, one per type), >= 1.

    Returns
    -------
    float
        :math:`S_\\mathrm{inter}`.

    Raises
    ------
    ValueError
        For an ``X`` that :func:`~anisotropy.geometry.validation.check_embeddings`
        refuses, ``type_ids`` not one per row or of fewer than 2 types, or ``min_units``
        below 1.

    References
    ----------
    Cai, X., Huang, J., Bian, Y., Church, K. (2021). Isotropy in the contextual embedding
    space: clusters and manifolds. ICLR.
    """
    X = check_embeddings(X)
    type_ids = check_labels(type_ids, X.shape[0], "type_ids", min_groups=2)
    rows = inter_type_rows(type_ids, seed, min_units)
    return type_pair_mean_cosine(unit_rows(X[rows]), type_ids[rows])


def type_pair_mean_cosine(unit: np.ndarray, type_ids) -> float:
    """Mean over ordered pairs of distinct types of the mean cosine between their rows.

    With :math:`\\bar m_t` the mean of type t's unit rows and T types,
    :math:`(\\lVert\\sum_t \\bar m_t\\rVert^2 - \\sum_t \\lVert\\bar m_t\\rVert^2) /
    (T^2 - T)`; with one row per type, :func:`mean_offdiagonal_cosine`.

    Parameters
    ----------
    unit : numpy.ndarray of shape (n, dim)
        Rows of unit norm.
    type_ids : array_like of shape (n,)
        The type of each row; at least 2 distinct types.

    Returns
    -------
    float
        The mean over the :math:`T^2 - T` ordered pairs of distinct types.

    Raises
    ------
    ValueError
        For fewer than 2 distinct types.
    """
    codes, inverse = np.unique(np.asarray(type_ids), return_inverse=True)
    if codes.size < 2:
        raise ValueError(f"type_ids has {codes.size} distinct value(s); need at least 2.")
    means = group_sums(unit, inverse, codes.size) / np.bincount(inverse)[:, None]
    total = means.sum(axis=0)
    n = codes.size
    return float((total @ total - np.einsum("ij,ij->", means, means)) / (n * n - n))


def inter_type_rows(type_ids, seed: int = 0, min_units: int = 1) -> np.ndarray:
    """The rows S_inter averages over (see :func:`inter_type_similarity`): up to
    ``r = max(1, ceil(min_units / T))`` seeded random instances of each of the T types, the
    first ``r`` of each type in one seeded permutation (``r = 1``: one instance per type, in
    the order of the sorted type ids).

    Parameters
    ----------
    type_ids : array_like of shape (n_points,)
        The type of each row; at least 2 distinct types.
    seed : int, optional
        Seed of the permutation (``numpy.random.default_rng``; default 0).
    min_units : int, optional
        The least number of instances wanted in all, >= 1 (default 1); ``r`` is
        ``ceil(min_units / T)``.

    Returns
    -------
    numpy.ndarray of int
        Row indices: with ``r = 1`` one per type, in the order of the sorted type ids;
        otherwise up to ``r`` per type (all of a type's rows when it has fewer), grouped
        by sorted type id.

    Raises
    ------
    ValueError
        For ``type_ids`` that are not 1-D or have fewer than 2 distinct types, or
        ``min_units`` below 1.
    """
    type_ids = np.asarray(type_ids)
    check_labels(type_ids, type_ids.shape[0], "type_ids", min_groups=2)
    if min_units < 1:
        raise ValueError(f"min_units must be >= 1; got {min_units}.")
    order = np.random.default_rng(seed).permutation(type_ids.shape[0])
    codes, first, inverse = np.unique(type_ids[order], return_index=True, return_inverse=True)
    per_type = -(-int(min_units) // codes.size)
    if per_type <= 1:
        return order[first]
    by_type = np.argsort(inverse, kind="stable")        # positions in `order`, by type
    starts = np.searchsorted(inverse[by_type], np.arange(codes.size))
    rank = np.arange(by_type.size) - starts[inverse[by_type]]
    return order[by_type[rank < per_type]]


def inter_type_units(X, type_ids, seed: int = 0, min_units: int = 1) -> np.ndarray:
    """The unit vectors of :func:`inter_type_rows`' rows.

    Parameters
    ----------
    X : array_like of shape (n_points, dim)
        One row per instance.
    type_ids : array_like of shape (n_points,)
        The type of each row; at least 2 distinct types.
    seed : int, optional
        Seed of :func:`inter_type_rows` (default 0).
    min_units : int, optional
        As in :func:`inter_type_rows` (default 1).

    Returns
    -------
    numpy.ndarray of shape (n_rows, dim), float64
        The rows of ``X`` that :func:`inter_type_rows` picks, in its order, scaled to unit
        norm.
    """
    X = check_embeddings(X)
    check_labels(type_ids, X.shape[0], "type_ids", min_groups=2)
    return unit_rows(X[inter_type_rows(type_ids, seed, min_units)])


def intra_type_similarity(X, type_ids, max_instances: int = 1000, seed: int = 0) -> float:
    """S_intra: mean over types of the mean cosine between a type's own instances.

    .. math:: S_\\mathrm{intra} = \\mathbb{E}_i[\\mathbb{E}_{k \\ne l}
              [\\cos(\\phi_k(t_i), \\phi_l(t_i))]]

    Types with at least 2 instances; at most ``max_instances`` per type (Cai's code: 1,000).

    Parameters
    ----------
    X : array_like of shape (n_points, dim)
        One row per instance.
    type_ids : array_like of shape (n_points,)
        The type of each row.
    max_instances : int, optional
        Types with more instances are subsampled to this many (seeded; default 1000).
    seed : int, optional
        Seed of that subsampling (default 0; :func:`self_similarity`).

    Returns
    -------
    float
        The unweighted mean over types of their :func:`self_similarity`.

    Raises
    ------
    ValueError
        As :func:`self_similarity` does (e.g. no type with 2 or more instances).

    References
    ----------
    Cai, X., Huang, J., Bian, Y., Church, K. (2021). ICLR.
    """
    per_type = self_similarity(X, type_ids, max_occurrences=max_instances, seed=seed)
    return float(per_type.mean())
