"""Nearest-neighbour distances, the Levina-Bickel local intrinsic dimension and the TwoNN
intrinsic dimension."""

from __future__ import annotations

import numpy as np

from anisotropy.geometry.validation import check_embeddings, unit_rows

__all__ = ["knn_distances", "knn_distances_among", "lid_mle", "MIN_TWONN_POINTS",
           "twonn_log_ratios", "twonn_from_log_ratios", "twonn", "twonn_subset_log_ratios",
           "distinct_rows", "SUBSET_NEIGHBOURS"]


# --------------------------------------------------------------------------- LID


#: Cosine distances below this (an angle of 1.4e-5 rad), and squared Euclidean distances below
#: this times |x|^2 + |y|^2, count as zero. A duplicate's distance comes out of the float64
#: arithmetic as 0 or as noise of ~1e-16; snapping both to 0 makes LID of data with duplicates
#: independent of how the rounding falls.
_ZERO_DISTANCE = 1e-10


def _snapped_squared(scale: np.ndarray, gram: np.ndarray) -> np.ndarray:
    """Squared Euclidean distances ``scale - 2 gram`` (``scale = |x|^2 + |y|^2``, float64),
    those below ``_ZERO_DISTANCE * scale`` (a duplicate's rounding noise) set to 0. Every
    search of this module computes its distances here, so the candidates of
    :func:`knn_distances_among` get the same numbers as its whole rows."""
    block = scale - 2.0 * gram
    block[block < _ZERO_DISTANCE * scale] = 0.0
    return block


def knn_distances(X, k: int, metric: str = "euclidean", chunk_size: int = 2048) -> np.ndarray:
    """Exact distances of every point to its ``k`` nearest other points, sorted ascending.

    One chunked loop for both metrics: a block of ``chunk_size`` rows against all rows (a
    GEMM), the point itself masked, ``np.partition`` for the k smallest. Memory is
    ``chunk_size * n_points`` float64. Euclidean distances are computed on centred data
    (fewer cancellations); cosine distance is ``1 - cos``. A cosine distance below
    ``_ZERO_DISTANCE``, or a squared Euclidean distance below ``_ZERO_DISTANCE * (|x|^2 +
    |y|^2)``, is rounding noise of a duplicate and becomes 0.

    Parameters
    ----------
    X : array_like of shape (n_points, dim)
        The points, one per row; finite, with ``n_points > k``.
    k : int
        Number of nearest neighbours, >= 1.
    metric : {"euclidean", "cosine"}, optional
        Euclidean distance (default) or cosine distance ``1 - cos``.
    chunk_size : int, optional
        Rows per block of the search (default 2048); bounds the memory, not the result.

    Returns
    -------
    ndarray of shape (n_points, k), float64.
        Row ``i``: the distances of point ``i`` to its ``k`` nearest other points,
        ascending.

    Raises
    ------
    ValueError
        For an unknown ``metric``, ``k`` not an integer >= 1, or ``X`` not 2-D, not finite
        or with at most ``k`` rows.
    """
    if metric not in ("euclidean", "cosine"):
        raise ValueError(f"metric must be 'euclidean' or 'cosine', got {metric!r}.")
    if not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be an integer >= 1, got {k!r}.")
    X64 = np.asarray(check_embeddings(X, min_points=k + 1), dtype=np.float64)
    cosine = metric == "cosine"
    Y = unit_rows(X64) if cosine else X64 - X64.mean(axis=0)
    sq = None if cosine else np.einsum("ij,ij->i", Y, Y)
    out = np.empty((Y.shape[0], k))
    for i0, block in _self_masked_blocks(Y, sq, chunk_size):
        part = np.sort(np.maximum(np.partition(block, k - 1, axis=1)[:, :k], 0.0), axis=1)
        out[i0 : i0 + chunk_size] = part if cosine else np.sqrt(part)
    return out


def _self_masked_blocks(Y: np.ndarray, sq: np.ndarray | None, chunk_size: int):
    """The exact searches' one loop: per block of ``chunk_size`` rows of ``Y``, its start
    and its distances to every row (a GEMM): squared Euclidean (:func:`_snapped_squared`)
    with the rows' squared norms ``sq``, or cosine distance ``1 - cos`` of unit rows when
    ``sq`` is None (below ``_ZERO_DISTANCE``, 0), each row's distance to itself set to
    infinity."""
    for i0 in range(0, Y.shape[0], chunk_size):
        gram = Y[i0 : i0 + chunk_size] @ Y.T
        if sq is None:
            block = 1.0 - gram
            block[block < _ZERO_DISTANCE] = 0.0
        else:
            scale = sq[i0 : i0 + chunk_size, None] + sq[None, :]
            block = _snapped_squared(scale, gram)
        rows = np.arange(block.shape[0])
        block[rows, rows + i0] = np.inf
        yield i0, block


#: Candidates per query that :func:`knn_distances_among` keeps beyond the k it returns.
_EXTRA_CANDIDATES = 32
#: The candidates' search of a block of queries runs in this many parts of its rows.
_SEARCH_PARTS = 4


def knn_distances_among(pool, rows, k: int, memory: float = 1e7) -> np.ndarray:
    """Euclidean distances of the points ``pool[rows]`` to their ``k`` nearest other points
    of the whole ``pool``, sorted ascending.

    The neighbours of a point are searched among every point of the space it lives in, not
    only among the points analysed: a frequency analysis of the 10,000 most frequent types
    must not leave the rarer types' neighbours out, which would make the rarest analysed
    types look isolated. With ``rows = arange(len(pool))`` this is :func:`knn_distances`.
    The products run in float32 on the centred pool (distances of nearest neighbours, for a
    rank correlation), ``memory`` float32 products per block of queries (40 MB at the
    default; the candidates' search, in quarters of the block, adds about as much again:
    0.12-0.19 GB in all for a query set of 2,000 among 30,000-400,000 points, where blocks
    four times larger took 0.58-0.72 GB, in the same time), and the pool is centred
    block by block, never copied whole in float64 (Gemma-3's 262,144 x 640 input
    embeddings would take 1.3 GB).

    A squared distance is :math:`\\lVert x\\rVert^2 + \\lVert y\\rVert^2 - 2\\,x\\cdot y`
    in float64 from the float32 product. Computing it for every pair is most of the time
    (several float64 passes over ``memory`` values per block), so each query first keeps as
    candidates the points below the ``k + 33``-th smallest value of the same sum in
    float32, :math:`\\lVert y\\rVert^2 - 2\\,x\\cdot y`, and the float64 distances are
    computed for those only. The float32 sum is off by at most a few units in the last
    place; where the k-th candidate and the best point left out are closer than a bound on
    that error, the query's whole row is computed in float64 instead. For the same float32
    products the result is the same, bit for bit, as the float64 distances of every pair
    (:func:`_exact_rows`, tested).

    Parameters
    ----------
    pool : array_like of shape (n_points, dim)
        Every point of the space, one per row; finite, with ``n_points > k``.
    rows : array_like of int, shape (n_queries,)
        Indices into ``pool`` of the points whose neighbours are wanted.
    k : int
        Number of nearest neighbours, >= 1.
    memory : float, optional
        Float32 products per block of queries (default 1e7, 40 MB); bounds the memory, not
        the result.

    Returns
    -------
    ndarray of shape (len(rows), k), float64.
        Row ``i``: the Euclidean distances of ``pool[rows[i]]`` to its ``k`` nearest other
        points of ``pool``, ascending.

    Raises
    ------
    ValueError
        For ``k`` not an integer >= 1, a ``pool`` not 2-D, not finite or with at most ``k``
        rows, or ``rows`` not a 1-D array of indices into ``pool``.
    """
    if not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be an integer >= 1, got {k!r}.")
    P = check_embeddings(pool, min_points=k + 1)
    rows = np.asarray(rows)
    if rows.ndim != 1 or (rows.size and (rows.min() < 0 or rows.max() >= P.shape[0])):
        raise ValueError(f"rows must index the pool's {P.shape[0]} points.")
    Y, sq32 = _centred_float32(P, memory)
    sq = sq32.astype(np.float64)
    n = P.shape[0]
    m = k + _EXTRA_CANDIDATES
    chunk = max(1, int(memory // n))
    out = np.empty((rows.size, k))
    for i0 in range(0, rows.size, chunk):
        query = rows[i0:i0 + chunk]
        gram = Y[query] @ Y.T                                   # float32 (b, n)
        if m >= n - 1:                                          # a small pool: every pair
            out[i0:i0 + chunk] = _exact_rows(gram, query, sq, k)
            continue
        # the candidates' search row by row in parts of the block: its temporaries (the
        # float32 sums, their partition, the candidate mask) take a quarter of the block's
        # memory, not three times it, and each row's result is the same, bit for bit
        part = max(1, chunk // _SEARCH_PARTS)
        for a in range(0, query.size, part):
            b = min(a + part, query.size)
            out[i0 + a:i0 + b] = _nearest_rows(gram[a:b], query[a:b], sq, sq32, k, m)
    return out


def _nearest_rows(gram: np.ndarray, query: np.ndarray, sq: np.ndarray, sq32: np.ndarray,
                  k: int, m: int) -> np.ndarray:
    """The k smallest distances of each query row (its float32 products ``gram`` with every
    pool point) from the float64 distances of its candidates, the points below the
    ``m + 1``-th smallest float32 value of ``|y|^2 - 2 x.y``; rows whose k-th candidate is
    within rounding of the first point left out are computed whole (:func:`_exact_rows`)."""
    local = np.arange(query.size)
    proxy = np.multiply(gram, np.float32(-2.0))
    proxy += sq32[None, :]                                      # |y|^2 - 2 x.y, float32
    proxy[local, query] = np.inf
    cut = np.partition(proxy, [k - 1, m], axis=1)
    kth, left_out = cut[:, k - 1].astype(np.float64), cut[:, m]
    del cut
    # float32 rounding of the sum, and float64 rounding of the exact form, are each
    # below 2^-24 of |x|^2 + |y|^2 + 2|x.y|, itself at most |x|^2 + 3 max|y|^2
    bound = 2.0 ** -20 * (sq[query] + 3.0 * sq.max())
    safe = left_out.astype(np.float64) - kth > 2 * bound
    # every point below the (m+1)-th smallest value: k to m of them in a safe row
    r, c = np.nonzero((proxy < left_out[:, None]) & safe[:, None])
    del proxy
    scale = sq[query[r]] + sq[c]
    exact = _snapped_squared(scale, gram[r, c].astype(np.float64))
    order = np.lexsort((exact, r))                              # by row, then distance
    starts = np.searchsorted(r[order], local[safe])
    firsts = order[starts[:, None] + np.arange(k)]
    result = np.empty((query.size, k))
    result[safe] = np.sqrt(np.maximum(exact[firsts], 0.0))
    if not safe.all():
        result[~safe] = _exact_rows(gram[~safe], query[~safe], sq, k)
    return result


def _centred_float32(P: np.ndarray, memory: float) -> tuple[np.ndarray, np.ndarray]:
    """The pool less its float64 mean, in float32 (centred block by block), and its rows'
    squared norms in float32."""
    mean = P.mean(axis=0, dtype=np.float64)
    Y = np.empty(P.shape, dtype=np.float32)
    # each block's float64 copy holds a quarter of ``memory`` values (element-wise: the
    # block size does not change a bit of the result)
    step = max(1, int(memory // (_SEARCH_PARTS * P.shape[1])))
    for a in range(0, P.shape[0], step):  # float32(float64 point - float64 mean), in blocks
        Y[a:a + step] = np.asarray(P[a:a + step], dtype=np.float64) - mean
    return Y, np.einsum("ij,ij->i", Y, Y)


def _exact_rows(gram: np.ndarray, query: np.ndarray, sq: np.ndarray, k: int) -> np.ndarray:
    """The k smallest distances of each query row from its float32 products ``gram`` with
    every pool point: the float64 squared distance of every pair, duplicates snapped to 0,
    the query itself left out."""
    scale = sq[query, None] + sq[None, :]
    block = _snapped_squared(scale, gram.astype(np.float64))
    block[np.arange(query.size), query] = np.inf
    return np.sqrt(np.sort(np.maximum(np.partition(block, k - 1, axis=1)[:, :k], 0.0), axis=1))


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


# --------------------------------------------------------------------------- TwoNN

#: The fewest distinct points :func:`twonn` accepts: its estimate's relative standard error
#: is about :math:`1/\\sqrt{N}` (the MLE of an exponential rate), 22% at 20 points.
MIN_TWONN_POINTS = 20


def twonn_log_ratios(X) -> np.ndarray:
    """Per row, :math:`\\log \\mu_i = \\log(r_2 / r_1)`: its second over its first
    nearest-neighbour distance (Euclidean, exact search) among the distinct rows.

    A duplicate row would have :math:`r_1 = 0` (layer 0 repeats a token's vector), so the
    distances are those among distinct rows: a row's first occurrence gets its ratio and
    its repeats NaN, which :func:`twonn_from_log_ratios` leaves out. The result is aligned
    with the rows of ``X``, so bootstrap weights over rows apply to it directly.

    Parameters
    ----------
    X : array_like of shape (n_points, dim)
        The points, one per row; at least :data:`MIN_TWONN_POINTS` of them distinct.

    Returns
    -------
    numpy.ndarray of shape (n_points,), float64
        :math:`\\log \\mu_i` of each row: NaN for a repeat of an earlier row, and for a
        ratio that is not finite.

    Raises
    ------
    ValueError
        When ``X`` is not 2-D, or when fewer than :data:`MIN_TWONN_POINTS` distinct rows
        remain, naming how many there are and the minimum.
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be (n_points, dim); got shape {X.shape}.")
    _, first = np.unique(X, axis=0, return_index=True)
    first = np.sort(first)
    if first.size < MIN_TWONN_POINTS:
        raise ValueError(f"TwoNN needs at least {MIN_TWONN_POINTS} distinct points; got "
                         f"{first.size} (of {X.shape[0]} rows). Sample more tokens.")
    distances = knn_distances(X[first], 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log(distances[:, 1] / distances[:, 0])
    out = np.full(X.shape[0], np.nan)
    out[first] = np.where(np.isfinite(logs), logs, np.nan)
    return out


#: Nearest neighbours per point that :func:`twonn_subset_log_ratios` ranks once: a subset
#: holding half the points keeps fewer than 2 of them with probability about 41 / 2^40.
SUBSET_NEIGHBOURS = 40


def _ranked_neighbours(Y: np.ndarray, k: int, chunk_size: int = 2048
                       ) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` nearest other rows of ``Y`` (centred, float64) per row: their indices and
    squared distances (:func:`_snapped_squared`), nearest first."""
    index = np.empty((Y.shape[0], k), dtype=np.intp)
    dist = np.empty((Y.shape[0], k))
    for i0, block in _self_masked_blocks(Y, np.einsum("ij,ij->i", Y, Y), chunk_size):
        part = np.argpartition(block, k - 1, axis=1)[:, :k]
        d = np.maximum(np.take_along_axis(block, part, axis=1), 0.0)
        order = np.argsort(d, axis=1, kind="stable")
        index[i0:i0 + chunk_size] = np.take_along_axis(part, order, axis=1)
        dist[i0:i0 + chunk_size] = np.take_along_axis(d, order, axis=1)
    return index, dist


def distinct_rows(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of ``X`` in the order of their first occurrence, as
    :func:`twonn_log_ratios` takes them.

    Parameters
    ----------
    X : numpy.ndarray of shape (n_points, dim)
        The points.

    Returns
    -------
    first : numpy.ndarray of int
        The index of each distinct row's first occurrence, ascending.
    group : numpy.ndarray of int, shape (n_points,)
        For each row, the position in ``first`` of the distinct row it repeats.
    """
    _, first, group = np.unique(X, axis=0, return_index=True, return_inverse=True)
    order = np.argsort(first)
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return first[order], rank[np.asarray(group).ravel()]


def twonn_subset_log_ratios(X, subsets) -> tuple[np.ndarray, np.ndarray]:
    """:func:`twonn_log_ratios` of the whole sample and within each subset of its rows:
    every point's first and second nearest neighbours searched again among the subset's
    distinct rows only, as if the subset were the whole sample (the draws of
    :func:`~anisotropy.geometry.intervals.half_samples`).

    The distinct rows' :data:`SUBSET_NEIGHBOURS` nearest neighbours are ranked once
    (centred, float64, a duplicate's rounding noise set to 0 as in :func:`knn_distances`);
    within a subset, a point's first and second neighbours are the first two of its ranked
    ones that the subset holds. A point whose ranked neighbours hold fewer than two of the
    subset's (rare for halves) is searched against the whole subset instead, so the
    result is exact either way. The whole sample's ratios are the first two ranked
    neighbours': :func:`twonn_log_ratios`' result to the last bit (the same products in
    the same blocks), for the cost of one search.

    Parameters
    ----------
    X : array_like of shape (n_points, dim)
        The points, one per row.
    subsets : array_like of int, shape (n_draws, m)
        Per row, the indices of a subset of the points (distinct); at least 3 distinct
        points in each.

    Returns
    -------
    whole : numpy.ndarray of shape (n_points,), float64
        :math:`\\log\\mu_i` of each point in the whole sample, as
        :func:`twonn_log_ratios` gives it (NaN for a repeat of an earlier point).
    within : numpy.ndarray of shape (n_draws, n_points), float64
        Row ``b``: :math:`\\log\\mu_i` of each point of subset ``b`` within it; NaN for
        a point outside the subset, a repeat of an earlier point of it, or a ratio that
        is not finite.

    Raises
    ------
    ValueError
        When ``X`` is not 2-D, has fewer than :data:`MIN_TWONN_POINTS` distinct rows, or a
        subset holds fewer than 3 distinct points.
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be (n_points, dim); got shape {X.shape}.")
    subsets = np.atleast_2d(np.asarray(subsets, dtype=np.intp))
    first, group = distinct_rows(X)
    n_groups = first.size
    if n_groups < MIN_TWONN_POINTS:
        raise ValueError(f"TwoNN needs at least {MIN_TWONN_POINTS} distinct points; got "
                         f"{n_groups} (of {X.shape[0]} rows). Sample more tokens.")
    Y = X[first] - X[first].mean(axis=0)
    index, dist = _ranked_neighbours(Y, min(SUBSET_NEIGHBOURS, n_groups - 1))
    sq = np.einsum("ij,ij->i", Y, Y)
    whole = np.full(X.shape[0], np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        # the arithmetic of twonn_log_ratios, so that the whole sample's ratios are its own
        # to the last bit (the same blocks of the same products)
        two = np.sqrt(dist[:, :2])
        logs = np.log(two[:, 1] / two[:, 0])
    whole[first] = np.where(np.isfinite(logs), logs, np.nan)
    out = np.full((subsets.shape[0], X.shape[0]), np.nan)
    for b, rows in enumerate(subsets):
        groups, at = np.unique(group[rows], return_index=True)
        if groups.size < 3:
            raise ValueError(f"subset {b} holds {groups.size} distinct points; TwoNN needs "
                             "at least 3 (a first and a second neighbour).")
        held = np.zeros(n_groups, dtype=bool)
        held[groups] = True
        kept = held[index[groups]]
        count = np.cumsum(kept, axis=1)
        two = np.stack([np.take_along_axis(dist[groups], np.argmax(count >= j, axis=1)[:, None],
                                           axis=1)[:, 0] for j in (1, 2)], axis=1)
        for i in np.flatnonzero(count[:, -1] < 2):
            g = groups[i]
            others = groups[groups != g]
            d = _snapped_squared(sq[g] + sq[others], Y[others] @ Y[g])
            two[i] = np.sort(np.maximum(np.partition(d, 1)[:2], 0.0))
        with np.errstate(divide="ignore", invalid="ignore"):
            logs = 0.5 * np.log(two[:, 1] / two[:, 0])
        out[b, rows[at]] = np.where(np.isfinite(logs), logs, np.nan)
    return whole, out


def twonn_from_log_ratios(log_mu, weights=None) -> float | np.ndarray:
    """The TwoNN maximum-likelihood dimension from the points' :math:`\\log \\mu_i`.

    Under local uniformity :math:`\\mu` is Pareto with index :math:`d`, so
    :math:`\\log\\mu \\sim \\mathrm{Exp}(d)` and

    .. math:: \\hat d = \\frac{N - 1}{\\sum_i \\log \\mu_i}

    (Facco et al. 2017, the unbiased form of their maximum-likelihood estimate). With
    ``weights`` ``(n_boot, N)`` (bootstrap weights summing to ``N`` per row) it returns one
    estimate per row, :math:`(N-1)/\\sum_i w_i \\log\\mu_i`. Points whose ratio is not
    finite (ties) are left out.

    Parameters
    ----------
    log_mu : array_like of shape (N,)
        :math:`\\log \\mu_i` of each point, as :func:`twonn_log_ratios` gives; NaN or
        infinite entries are left out, and :data:`MIN_TWONN_POINTS` finite ones are needed.
    weights : array_like of shape (n_boot, N), optional
        Bootstrap weights over the points, one row per draw; the columns of the points
        left out are dropped and each row is rescaled to sum to the number of points kept.

    Returns
    -------
    float or numpy.ndarray of shape (n_boot,)
        :math:`\\hat d`: a float without ``weights``, one estimate per row of ``weights``
        with them.

    Raises
    ------
    ValueError
        When fewer than :data:`MIN_TWONN_POINTS` entries of ``log_mu`` are finite.

    References
    ----------
    Facco, E., d'Errico, M., Rodriguez, A., & Laio, A. (2017). Estimating the intrinsic
    dimension of datasets by a minimal neighborhood information. Scientific Reports 7, 12140.
    """
    log_mu = np.asarray(log_mu, dtype=np.float64)
    keep = np.isfinite(log_mu)
    n = int(keep.sum())
    if n < MIN_TWONN_POINTS:
        raise ValueError(f"TwoNN needs at least {MIN_TWONN_POINTS} points with a finite "
                         f"ratio; got {n}.")
    if weights is None:
        return float((n - 1) / log_mu[keep].sum())
    weights = np.asarray(weights, dtype=np.float64)[:, keep]
    weights = weights * (n / weights.sum(axis=1, keepdims=True))
    return (n - 1) / (weights @ log_mu[keep])


def twonn(X) -> float:
    """The TwoNN intrinsic dimension of ``X`` (Facco et al. 2017), the estimator Valeriani
    et al. (2023) and Cheng et al. (2025) use per layer: :func:`twonn_from_log_ratios` of
    :func:`twonn_log_ratios`. Needs :data:`MIN_TWONN_POINTS` distinct rows.

    Parameters
    ----------
    X : array_like of shape (n_points, dim)
        The points, one per row; at least :data:`MIN_TWONN_POINTS` of them distinct.

    Returns
    -------
    float
        The maximum-likelihood TwoNN dimension :math:`(N-1)/\\sum_i \\log \\mu_i` over
        the :math:`N` distinct rows whose ratio is finite.

    Raises
    ------
    ValueError
        As :func:`twonn_log_ratios` and :func:`twonn_from_log_ratios` do.
    """
    return twonn_from_log_ratios(twonn_log_ratios(X))
