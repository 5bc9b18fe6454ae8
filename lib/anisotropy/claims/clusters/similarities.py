"""S_inter and S_intra of claim 2 (Cai et al. 2021), raw, centred and per cluster, with
their bootstrap over the context windows.

The sampled unit of claim 2 is the context window: a seed draws other windows from the
corpus, and every type, instance and LID point comes from one. The intervals therefore
resample windows, with Bayesian-bootstrap weights (:func:`~anisotropy.geometry.intervals.
dirichlet_weights`): every window keeps a positive weight in every draw, so a cluster is
never left with fewer than two units and every draw measures the same average. One set of
window weights serves every layer and every K-means fit, so the layers' draws are joint.

- :func:`type_similarities`: S_inter / S_intra raw, after global centring, and after
  per-cluster centring, with their draws;
- :func:`per_cluster_similarities`: the per-cluster values alone (for K-means restarts);
- :func:`restart_labels`, :func:`mix_restarts`: one more K-means fit, and one set of draws
  from several fits.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import sparse
from sklearn.cluster import KMeans

from anisotropy.geometry import metrics
from anisotropy.geometry.intervals import weighted_mean_draws
from anisotropy.geometry.sampling import sample_indices
from anisotropy.geometry.streams import stream_seed, train_stream_seed
from anisotropy.geometry.validation import grouped_rows, unit_rows

__all__ = ["pair_cosine_draws", "window_sums", "type_similarities",
           "per_cluster_similarities", "restart_labels", "mix_restarts"]


def window_sums(X: np.ndarray, windows: np.ndarray, n_windows: int) -> tuple:
    """``(sums, counts)``: the sum of the rows of ``X`` in each window, and their number.

    Parameters
    ----------
    X : numpy.ndarray of shape (n, d)
        The vectors, one per row.
    windows : numpy.ndarray of int, shape (n,)
        Each row's window, in ``0 .. n_windows-1``.
    n_windows : int
        The number of windows (windows without a row get zeros).

    Returns
    -------
    sums : numpy.ndarray of shape (n_windows, d), float64
        The sum of each window's rows.
    counts : numpy.ndarray of shape (n_windows,), float64
        The number of each window's rows.
    """
    onehot = sparse.csr_matrix((np.ones(windows.size), (windows, np.arange(windows.size))),
                               shape=(n_windows, windows.size))
    return np.asarray(onehot @ np.asarray(X, dtype=np.float64)), np.bincount(
        windows, minlength=n_windows).astype(np.float64)


class _Groups:
    """A grouping of the rows of ``X``: the Gram matrix of the rows within each group
    (sparse, zero across groups), the ``(n, G)`` indicator, and per-group sums of
    ``(b, n)`` values and of quadratic forms."""

    def __init__(self, X: np.ndarray, groups: np.ndarray):
        self.codes, inverse = np.unique(groups, return_inverse=True)
        n = groups.size
        self.onehot = sparse.csr_matrix((np.ones(n), (np.arange(n), inverse)),
                                        shape=(n, self.codes.size))
        rows, cols, values = [], [], []
        for _, members in grouped_rows(groups):
            rows.append(np.repeat(members, members.size))
            cols.append(np.tile(members, members.size))
            values.append((X[members] @ X[members].T).ravel())
        self.gram = sparse.csr_matrix((np.concatenate(values), (np.concatenate(rows),
                                       np.concatenate(cols))), shape=(n, n))

    def sums(self, values: np.ndarray) -> np.ndarray:
        """``(b, G)``: the sum of ``values`` (``(b, n)``) over each group's rows."""
        return np.asarray((self.onehot.T @ values.T).T)

    def norms2(self, alpha: np.ndarray, p: np.ndarray, m: np.ndarray) -> np.ndarray:
        r"""``(b, G)``: :math:`\lVert\sum_{i \in g} \alpha_i (x_i - \mu)\rVert^2` per group,
        from the within-group Gram matrix, ``p = mu @ X.T`` and ``m = |mu|^2``."""
        quad = self.sums(alpha * np.asarray(self.gram @ alpha.T).T)
        total = self.sums(alpha)
        return quad - 2 * self.sums(alpha * p) * total + m * total * total


def pair_cosine_draws(vectors: np.ndarray, unit_windows: np.ndarray, weights: np.ndarray,
                      centre: tuple[np.ndarray, np.ndarray] | None = None,
                      block: int = 100, unit_types: np.ndarray | None = None) -> np.ndarray:
    r"""Draws of S_inter's mean cosine over pairs of units of different types under window
    weights, the centring redone in every draw.

    Unit :math:`i` (a row of ``vectors``) comes from window :math:`w_i` with weight
    :math:`c_{w_i}` in draw :math:`b` (a row of ``weights``). With ``centre = (sums,
    counts)`` (per-window sums and counts of every vector the centring mean is taken
    over), the draw centres on the weighted mean :math:`\mu_b = \sum_w c_w s_w / \sum_w
    c_w n_w`, then normalises: :math:`u_i = (x_i - \mu_b) / \lVert x_i - \mu_b\rVert`.
    A pair of units from different windows weighs :math:`c_{w_i} c_{w_j}`, a pair from one
    window :math:`c_{w_i}`, so that every pair has expected weight about 1 (a window drawn
    with weight :math:`c` repeats its own pairs :math:`c` times, not :math:`c^2`). With
    ``unit_types`` (the type of each unit; by default every unit is its own), pairs of one
    type are left out and a pair of types :math:`t \ne u` with :math:`r_t` and
    :math:`r_u` units weighs :math:`1 / (r_t r_u)` more, so every pair of types counts
    equally (:func:`~anisotropy.geometry.similarity.type_pair_mean_cosine`):

    .. math:: \bar S_b = \frac{\sum_{t_i \ne t_j} a_{ij}\, u_i \cdot u_j}
              {\sum_{t_i \ne t_j} a_{ij}}

    computed in closed form from :math:`\lVert\sum_i c_{w_i} u_i / r_{t_i}\rVert^2` less
    the same-type sums (the Gram matrix within each type) and, for the same-window pairs,
    each window's and each (window, type) cell's sums (block-diagonal Gram matrices), so
    memory is ``block * n_units`` floats. All-ones weights give the point estimate exactly.
    Without the re-centring, a weighted draw of vectors centred once is pulled away from 0
    (its windows no longer balance), and a per-cluster S_inter of about 0 would get an
    interval far above it.

    Parameters
    ----------
    vectors : numpy.ndarray of shape (n_units, d)
        The units' vectors.
    unit_windows : numpy.ndarray of int
        Each unit's window.
    weights : numpy.ndarray of shape (n_boot, n_windows)
        Each draw's window weights (all ones: the point estimate).
    centre : (numpy.ndarray, numpy.ndarray), optional
        Per-window sums (n_windows, d) and counts (n_windows,) of the vectors the centring
        mean is taken over; None for no centring.
    block : int
        Draws computed at once (memory ``block * n_units`` floats).
    unit_types : numpy.ndarray, optional
        Each unit's type; None makes every unit its own.

    Returns
    -------
    numpy.ndarray of shape (n_boot,)
        The mean cosine in each draw.
    """
    sums = _PairSums(np.asarray(vectors, dtype=np.float64), np.asarray(unit_windows),
                     unit_types)
    out = np.empty(weights.shape[0])
    for first in range(0, weights.shape[0], block):
        out[first:first + block] = sums.draws(weights[first:first + block], centre)
    return out


class _PairSums:
    """The groupings of :func:`pair_cosine_draws`' units, built once for every draw: by
    window, and with types by type and by (window, type) cell."""

    def __init__(self, X: np.ndarray, windows: np.ndarray, unit_types: np.ndarray | None):
        n = X.shape[0]
        if unit_types is None:
            types, scale = np.arange(n), np.ones(n)
        else:
            _, types = np.unique(np.asarray(unit_types), return_inverse=True)
            scale = 1.0 / np.bincount(types)[types]
        self.X, self.windows, self.scale = X, windows, scale
        self.by_window = _Groups(X, windows)
        self.singletons = scale.min() == 1.0   # one unit per type: its cells are its units
        if not self.singletons:
            self.by_type = _Groups(X, types)
            _, cell = np.unique(np.stack([windows, types]), axis=1, return_inverse=True)
            self.by_cell = _Groups(X, cell)
            # (windows, cells): which window each (window, type) cell lies in
            self.cells_of_window = ((self.by_cell.onehot.T @ self.by_window.onehot) > 0
                                    ).T.astype(float)
        self.norms2 = np.einsum("ij,ij->i", X, X)

    def draws(self, c_w: np.ndarray, centre) -> np.ndarray:
        """The mean cosine under each row of window weights ``c_w`` (b, W)."""
        X, windows, scale, n = self.X, self.windows, self.scale, self.X.shape[0]
        by_window = self.by_window
        if centre is None:  # no mean to subtract: skip the (b, n) products with it
            mu = np.zeros((c_w.shape[0], X.shape[1]))
            p, m = np.zeros((c_w.shape[0], n)), np.zeros((c_w.shape[0], 1))
        else:
            mu = (c_w @ centre[0]) / (c_w @ centre[1])[:, None]             # (b, d)
            p = mu @ X.T                                                    # (b, n)
            m = np.einsum("ij,ij->i", mu, mu)[:, None]
        r2 = self.norms2[None, :] - 2 * p + m
        q = np.where(r2 > 0, 1 / np.sqrt(np.maximum(r2, 1e-300)), 0.0)    # 1 / norm
        nonzero = (r2 > 0).astype(np.float64)
        c = c_w[:, windows]                                                 # (b, n)
        g, h = scale * q, scale * nonzero          # a unit's coefficient and weight, no c
        a, e = c * g, c * h
        total = a @ X - mu * a.sum(axis=1, keepdims=True)
        numerator = np.einsum("ij,ij->i", total, total)
        denominator = e.sum(axis=1) ** 2
        if self.singletons:                        # same-type pairs: each unit with itself
            numerator -= (c * c * nonzero).sum(axis=1)
            denominator -= (e * e).sum(axis=1)
            cell_num = cell_den = by_window.sums(nonzero)
        else:
            numerator -= self.by_type.norms2(a, p, m).sum(axis=1)
            denominator -= (self.by_type.sums(e) ** 2).sum(axis=1)
            cell_num = np.asarray(self.cells_of_window @ self.by_cell.norms2(g, p, m).T).T
            cell_den = np.asarray(self.cells_of_window @ (self.by_cell.sums(h) ** 2).T).T
        # pairs of different types within one window weigh c_w, not c_w^2
        within = by_window.norms2(g, p, m) - cell_num
        within_den = by_window.sums(h) ** 2 - cell_den
        cw = c_w[:, by_window.codes]
        extra = cw * cw - cw
        numerator -= (extra * within).sum(axis=1)
        denominator -= (extra * within_den).sum(axis=1)
        return numerator / denominator


def _type_shares(types: np.ndarray, windows: np.ndarray, n_windows: int,
                 type_index: pd.Index) -> np.ndarray:
    """``(n_windows, n_types)``: the share of each type's instances in each window, so
    that ``weights @ shares`` is a type's mean window weight."""
    column = type_index.get_indexer(types)
    found = column >= 0
    shares = np.zeros((n_windows, len(type_index)))
    np.add.at(shares, (windows[found], column[found]), 1.0)
    return shares / shares.sum(axis=0)


def _similarities(X: np.ndarray, types: np.ndarray, max_instances: int, seed: int,
                  windows: np.ndarray | None = None, weights: np.ndarray | None = None,
                  centre: bool = False, min_units: int = 1) -> tuple:
    """S_inter and S_intra of one point set (after subtracting its mean, with ``centre``),
    and with window ``weights`` (``(n_boot, n_windows)``; ``windows`` gives the window of
    each row) their draws: S_inter from :func:`pair_cosine_draws` (each chosen instance
    weighted by its window, the mean re-taken under the weights in every draw), S_intra
    weighting each type by the mean weight of the windows its instances come from (its
    vectors centred once). The instances are chosen with ``seed``; S_inter takes up to
    ``ceil(min_units / T)`` of each of the T types (:func:`~anisotropy.geometry.similarity.
    inter_type_rows`), every pair of types weighted equally.

    Returns ``(inter, intra, inter_draws, intra_draws)``; the draws are None without
    ``weights``.
    """
    nan = float("nan")
    n_boot = None if weights is None else weights.shape[0]
    if np.unique(types).size < 2:
        empty = np.full(n_boot, nan) if n_boot else None
        return nan, nan, empty, empty
    centred = X - X.mean(axis=0) if centre else X
    rows = metrics.inter_type_rows(types, seed, min_units)
    inter = metrics.type_pair_mean_cosine(unit_rows(centred[rows]), types[rows])
    try:
        per_type = metrics.self_similarity(centred, types, max_occurrences=max_instances,
                                           seed=seed)
    except ValueError:  # no type with two instances
        per_type = None
    intra = float(per_type.mean()) if per_type is not None else nan
    if weights is None:
        return inter, intra, None, None
    inter_draws = pair_cosine_draws(
        X[rows], windows[rows], weights,
        window_sums(X, windows, weights.shape[1]) if centre else None,
        unit_types=types[rows])
    if per_type is None:
        intra_draws = np.full(n_boot, nan)
    else:
        type_weights = weights @ _type_shares(types, windows, weights.shape[1], per_type.index)
        intra_draws = weighted_mean_draws(per_type.to_numpy(), type_weights)
    return inter, intra, inter_draws, intra_draws


def type_similarities(X: np.ndarray, types: np.ndarray, labels: np.ndarray,
                      max_instances: int = 1000, seed: int = 0,
                      windows: np.ndarray | None = None,
                      weights: np.ndarray | None = None,
                      min_units: int = 1) -> dict[str, float]:
    """S_inter and S_intra raw, after global centring, and after per-cluster centring.

    Per-cluster values are computed inside each cluster (on its centred vectors, with the
    types present there) and averaged over clusters with equal weights, as the authors'
    ``analysis.py`` (lines 240-252) takes ``np.mean`` over clusters; clusters with fewer
    than 2 types are skipped.

    With window ``weights`` (``(n_boot, n_windows)`` from
    :func:`~anisotropy.geometry.intervals.dirichlet_weights`; ``windows`` gives each row's
    window), the dict also holds the draws ``"S_inter raw draws"``, ``"S_inter centred
    draws"``, ``"S_inter per-cluster draws"`` and ``"S_intra per-cluster draws"``, every
    one under the same window weights. The instances behind S_inter and S_intra are chosen
    with ``seed``, so the raw, centred and per-cluster values are measured on the same
    instances. S_inter of a set of T types takes up to ``ceil(min_units / T)`` instances
    per type (``min_units = 1``: one, as Cai et al.), so that a small cluster's value is
    not the cosine of a few random pairs.

    Parameters
    ----------
    X : numpy.ndarray of shape (n, d)
        The vectors, one per instance.
    types : numpy.ndarray of shape (n,)
        Each instance's type (a token id).
    labels : numpy.ndarray of shape (n,)
        Each instance's cluster.
    max_instances : int, optional
        Instances per type behind S_intra (default 1000; a seeded subsample).
    seed : int, optional
        Seed of the instances chosen (default 0).
    windows : numpy.ndarray of int, shape (n,), optional
        Each instance's window (``0 .. n_windows-1``); needed with ``weights``.
    weights : numpy.ndarray of shape (n_boot, n_windows), optional
        Window weights per draw; None (the default) for no draws.
    min_units : int, optional
        The least instances behind S_inter (default 1).

    Returns
    -------
    dict
        ``S_inter raw``, ``S_intra raw``, ``S_inter centred``, ``S_intra centred`` and
        :func:`per_cluster_similarities`' keys (floats, NaN where undefined); with
        ``weights`` also the four draws named above, arrays of shape (n_boot,).
    """
    X = np.asarray(metrics.check_embeddings(X), dtype=np.float64)
    out = {}
    out["S_inter raw"], out["S_intra raw"], raw_draws, _ = _similarities(
        X, types, max_instances, seed, windows, weights, min_units=min_units)
    out["S_inter centred"], out["S_intra centred"], centred_draws, _ = _similarities(
        X, types, max_instances, seed, windows, weights, centre=True, min_units=min_units)
    if weights is not None:
        out["S_inter raw draws"] = raw_draws
        out["S_inter centred draws"] = centred_draws
    out.update(per_cluster_similarities(X, types, labels, max_instances, seed, windows,
                                        weights, min_units))
    return out


def per_cluster_similarities(X: np.ndarray, types: np.ndarray, labels: np.ndarray,
                             max_instances: int = 1000, seed: int = 0,
                             windows: np.ndarray | None = None,
                             weights: np.ndarray | None = None,
                             min_units: int = 1) -> dict[str, float]:
    """S_inter and S_intra after per-cluster centring, averaged over the clusters with at
    least 2 types (equal weights, as the authors' ``analysis.py``), with their draws under
    the window ``weights`` (clusters held fixed, every cluster in every draw; S_intra over
    the clusters where it is defined, in the point estimate and the draws alike). S_inter
    takes ``min_units`` as :func:`type_similarities`.

    Parameters
    ----------
    X : numpy.ndarray of shape (n, d)
        The vectors, one per instance.
    types : numpy.ndarray of shape (n,)
        Each instance's type (a token id).
    labels : numpy.ndarray of shape (n,)
        Each instance's cluster.
    max_instances : int, optional
        Instances per type behind S_intra (default 1000; a seeded subsample).
    seed : int, optional
        Seed of the instances chosen (default 0).
    windows : numpy.ndarray of int, shape (n,), optional
        Each instance's window (``0 .. n_windows-1``); needed with ``weights``.
    weights : numpy.ndarray of shape (n_boot, n_windows), optional
        Window weights per draw; None (the default) for no draws.
    min_units : int, optional
        The least instances behind S_inter (default 1).

    Returns
    -------
    dict
        ``S_inter per-cluster`` and ``S_intra per-cluster`` (floats, NaN when no cluster
        defines them); with ``weights`` also ``S_inter per-cluster draws`` and
        ``S_intra per-cluster draws``, arrays of shape (n_boot,) (all NaN when undefined).
    """
    X = np.asarray(X, dtype=np.float64)
    n_boot = None if weights is None else weights.shape[0]
    inter, intra, inter_draws, intra_draws = [], [], [], []
    for cluster in np.unique(labels):
        rows = labels == cluster
        if np.unique(types[rows]).size < 2:
            continue
        a, b, da, db = _similarities(X[rows], types[rows], max_instances, seed,
                                     None if windows is None else windows[rows], weights,
                                     centre=True, min_units=min_units)
        inter.append(a)
        intra.append(b)
        inter_draws.append(da)
        intra_draws.append(db)
    intra_arr = np.asarray(intra)
    ok = np.isfinite(intra_arr)
    # every cluster counts once, as in the authors' code
    out = {"S_inter per-cluster": float(np.mean(inter)) if inter else np.nan,
           "S_intra per-cluster": float(np.mean(intra_arr[ok])) if ok.any() else np.nan}
    if n_boot and inter:
        out["S_inter per-cluster draws"] = np.mean(inter_draws, axis=0)
        out["S_intra per-cluster draws"] = (np.mean(np.array(intra_draws)[ok], axis=0)
                                            if ok.any() else np.full(n_boot, np.nan))
    elif n_boot:
        out["S_inter per-cluster draws"] = np.full(n_boot, np.nan)
        out["S_intra per-cluster draws"] = np.full(n_boot, np.nan)
    return out


def restart_labels(X: np.ndarray, k: int, sample: int, seed: int,
                   train_seed: int | None = None) -> np.ndarray:
    """Labels of every row from one more K-means fit at ``k`` clusters, on a fresh sample
    of ``sample`` rows with a fresh start (stream ``k-sample`` under ``seed``, ``kmeans``
    under ``train_seed``), as :func:`anisotropy.claims.clusters.measure.choose_k` fits its
    chosen K.

    Parameters
    ----------
    X : numpy.ndarray of shape (n, d)
        The vectors, one per row.
    k : int
        The number of clusters.
    sample : int
        At most this many rows are fitted.
    seed : int
        Seed of the sample (stream ``k-sample``), and of the start when ``train_seed`` is
        None.
    train_seed : int or None, optional
        Seed of the start (stream ``kmeans``); ``seed`` when None (the default).

    Returns
    -------
    numpy.ndarray of int, shape (n,)
        Each row's cluster under the fit.
    """
    rows = sample_indices(X.shape[0], sample, stream_seed(seed, "k-sample"))
    start = train_stream_seed(seed, train_seed, "kmeans")
    model = KMeans(n_clusters=k, n_init=1, random_state=start).fit(
        np.asarray(X[rows], dtype=np.float32))
    return model.predict(np.asarray(X, dtype=np.float32))


def mix_restarts(draws: list[np.ndarray]) -> np.ndarray:
    """One set of draws from several K-means restarts' bootstrap draws (``n_boot`` each):
    draw ``b`` is restart ``b mod R``'s draw ``b``, so the percentiles are those of the
    mixture: the spread between restarts and the resampling within each.

    Parameters
    ----------
    draws : list of numpy.ndarray
        R arrays of shape (n_boot,), one per restart.

    Returns
    -------
    numpy.ndarray of shape (n_boot,)
        The mixed draws.
    """
    stacked = np.stack(draws)
    return stacked[np.arange(stacked.shape[1]) % stacked.shape[0], np.arange(stacked.shape[1])]
