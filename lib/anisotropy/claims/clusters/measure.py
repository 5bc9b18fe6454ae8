"""Clusters and manifolds in contextual spaces (Cai et al. 2021), from cached token vectors.

Everything here selects rows, clusters, and calls :mod:`anisotropy.geometry.metrics`; the
contexts (WikiText-2 and PTB cut into fixed word windows) come from
:func:`anisotropy.inputs.tasks.windows`.

- :func:`choose_k`: K-means with K picked by the best silhouette on a sample (K = 1 below a
  threshold), as the authors' code;
- :func:`cluster_layer_stats`: per layer, K, S_inter / S_intra raw, after global centring
  and per cluster (:mod:`anisotropy.claims.clusters.similarities`), IsoScore and LID, with
  their bootstrap over the context windows;
- :func:`cluster_drivers`: how much of the between-cluster scatter a few coordinates carry.

The manifold indicators and the static-space LID are in :mod:`anisotropy.claims.clusters.manifolds`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.cluster import KMeans
from tqdm.auto import tqdm

from anisotropy.claims.base import CheckValue
from anisotropy.claims.clusters.ids import (
    GLOBAL_ANISOTROPY,
    INTRA_ABOVE_INTER,
    LID_BELOW_STATIC,
    LOCAL_BEYOND_CENTRING,
    LOCAL_ISOTROPY,
)
from anisotropy.claims.clusters.manifolds import lid_of_samples
from anisotropy.claims.clusters.similarities import (
    mix_restarts,
    per_cluster_similarities,
    restart_labels,
    type_similarities,
)
from anisotropy.geometry import metrics
from anisotropy.geometry.bands import every_layer_intervals
from anisotropy.geometry.intervals import (
    Interval,
    boot_method,
    dirichlet_weights,
    interval_of_max,
    interval_of_min,
    percentile_interval,
    resample_counts,
    weighted_mean_draws,
)
from anisotropy.geometry.sampling import sample_indices
from anisotropy.geometry.streams import repeat_name, stream_seed, sub_seed, train_stream_seed

__all__ = ["SILHOUETTE_THRESHOLD", "choose_k", "compare_k_selection", "cluster_drivers",
           "type_frequencies", "token_kinds", "cluster_layer_stats", "driver_share_draws",
           "decoder_drivers", "WindowSample", "window_sample", "layer_similarities",
           "layer_dimensions", "layer_intervals", "largest_gap", "largest_per_cluster",
           "lid_check", "check_values"]

#: Below this best silhouette, :func:`choose_k` keeps one cluster (the authors' code).
SILHOUETTE_THRESHOLD = 0.1


def choose_k(X: np.ndarray, k_range=range(2, 16), sample: int = 2000,
             threshold: float = SILHOUETTE_THRESHOLD, seed: int = 0, n_init: int = 1,
             train_seed: int | None = None
             ) -> tuple[int, np.ndarray, dict]:
    """Pick K for K-means by the best silhouette on a sample; K = 1 below ``threshold``.

    Each K in ``k_range`` is fitted on a seeded sample of at most ``sample`` rows (the
    authors use 20,000) and scored by :func:`anisotropy.geometry.metrics.silhouette` on that sample.
    The chosen model labels all rows. The sample draws from ``seed`` (stream ``k-sample``),
    the K-means starts from ``train_seed`` (stream ``kmeans``; ``seed`` when ``None``).

    Parameters
    ----------
    X : numpy.ndarray of shape (n, d)
        The vectors, one per row.
    k_range : iterable of int, optional
        The K tried, in order (default ``range(2, 16)``); the loop stops at the first K that
        is not smaller than the sample.
    sample : int, optional
        At most this many rows are fitted and scored (default 2000).
    threshold : float, optional
        Below this best silhouette one cluster is kept (default
        :data:`SILHOUETTE_THRESHOLD`, 0.1).
    seed : int, optional
        The sample's seed (stream ``k-sample``; default 0).
    n_init : int, optional
        K-means initialisations per K (default 1).
    train_seed : int or None, optional
        The K-means seed (stream ``kmeans``); ``seed`` when None (the default).

    Returns
    -------
    k : int
        The chosen K (1 when the best silhouette is below ``threshold``).
    labels : numpy.ndarray of int, shape (n,)
        Each row's cluster under the chosen model (all zeros for K = 1).
    scores : dict of int to float
        The silhouette of every K scored (a K whose fit gave one cluster is skipped).

    Raises
    ------
    ValueError
        When no K could be scored.
    """
    X = metrics.check_embeddings(X)
    rows = sample_indices(X.shape[0], sample, stream_seed(seed, "k-sample"))
    S = np.asarray(X[rows], dtype=np.float32)
    scores, fitted = {}, {}
    for k in k_range:
        if k >= S.shape[0]:
            break
        model = KMeans(n_clusters=k, n_init=n_init,
                       random_state=train_stream_seed(seed, train_seed, "kmeans")).fit(S)
        if np.unique(model.labels_).size < 2:
            continue
        scores[k] = metrics.silhouette(S, model.labels_)
        fitted[k] = model
    if not scores:
        raise ValueError("No K could be scored; too few distinct points.")
    best = max(scores, key=scores.get)
    if scores[best] < threshold:
        return 1, np.zeros(X.shape[0], dtype=int), scores
    return best, fitted[best].predict(np.asarray(X, dtype=np.float32)), scores


def compare_k_selection(X: np.ndarray, protocols: dict[str, tuple[int, int]], seed: int = 0,
                        train_seed: int | None = None) -> pd.DataFrame:
    """K chosen by :func:`choose_k` under several protocols, one row each.

    ``protocols`` maps a label to ``(sample, n_init)``: the points K-means is fitted and the
    silhouette scored on, and the K-means initialisations. Rows hold the chosen K, the best
    silhouette and the silhouette of every K tried.

    Parameters
    ----------
    X : numpy.ndarray of shape (n, d)
        The vectors, one per row.
    protocols : dict of str to (int, int)
        Each protocol's label and its ``(sample, n_init)``.
    seed : int, optional
        The sample's seed, passed to :func:`choose_k` (default 0).
    train_seed : int or None, optional
        The K-means seed, passed to :func:`choose_k` (default None: ``seed``).

    Returns
    -------
    pandas.DataFrame
        One row per protocol, indexed by ``protocol``: ``points`` (``min(sample, n)``),
        ``n_init``, ``K``, ``best silhouette`` and ``silhouette K=k`` for each K scored.
    """
    rows = []
    for label, (sample, n_init) in protocols.items():
        k, _, scores = choose_k(X, sample=sample, seed=seed, n_init=n_init,
                                train_seed=train_seed)
        rows.append({"protocol": label, "points": min(sample, X.shape[0]), "n_init": n_init,
                     "K": k, "best silhouette": max(scores.values()),
                     **{f"silhouette K={key}": value for key, value in scores.items()}})
    return pd.DataFrame(rows).set_index("protocol")


def cluster_drivers(X: np.ndarray, labels: np.ndarray, top: int = 3) -> dict:
    """How concentrated the between-cluster scatter is on a few coordinates.

    Between-cluster scatter per coordinate: :math:`B_d = \\sum_c n_c (\\mu_{c,d} - \\mu_d)^2`.
    Returns the ``top`` coordinates by :math:`B_d`, their share of :math:`\\sum_d B_d`, and
    the top coordinates by total variance with their share of the total variance.

    Parameters
    ----------
    X : numpy.ndarray of shape (n, d)
        The vectors, one per row.
    labels : numpy.ndarray of shape (n,)
        Each row's cluster.
    top : int, optional
        How many coordinates are reported (default 3).

    Returns
    -------
    dict
        ``top_between_dims`` (list of int, by decreasing :math:`B_d`),
        ``top_between_share`` (float), ``top_variance_dims`` (list of int, by decreasing
        variance) and ``top_variance_share`` (float).
    """
    X = np.asarray(X, dtype=np.float64)
    overall = X.mean(axis=0)
    between = np.zeros(X.shape[1])
    for cluster in np.unique(labels):
        rows = labels == cluster
        between += rows.sum() * (X[rows].mean(axis=0) - overall) ** 2
    variance = X.var(axis=0)
    by_between = np.argsort(between)[::-1][:top]
    by_variance = np.argsort(variance)[::-1][:top]
    return {
        "top_between_dims": by_between.tolist(),
        "top_between_share": float(between[by_between].sum() / max(between.sum(), 1e-300)),
        "top_variance_dims": by_variance.tolist(),
        "top_variance_share": float(variance[by_variance].sum() / variance.sum()),
    }


def type_frequencies(types: np.ndarray) -> pd.Series:
    """Occurrences of each type in the sample (a frequency proxy for colouring).

    Parameters
    ----------
    types : numpy.ndarray of shape (n,)
        The type of each sampled token.

    Returns
    -------
    pandas.Series of int, length n
        For each token, how often its type occurs in ``types`` (index ``0 .. n-1``).
    """
    return pd.Series(types).map(pd.Series(types).value_counts())


def token_kinds(tokens: np.ndarray) -> np.ndarray:
    """``"word"`` for tokens made of letters (after removing subword markers), else
    ``"symbol"`` (punctuation, digits, ``<unk>`` pieces), as Cai et al. split their figures.

    Parameters
    ----------
    tokens : numpy.ndarray of shape (n,)
        The token strings; one leading subword marker (``Ġ``, ``▁`` or ``##``) is removed
        before the test.

    Returns
    -------
    numpy.ndarray of str, shape (n,)
        ``"word"`` where the rest is ASCII letters only (``[A-Za-z]+``), else ``"symbol"``.
    """
    cleaned = pd.Series(tokens).astype(str).str.replace(r"^(Ġ|▁|##)", "", regex=True)
    return np.where(cleaned.str.fullmatch(r"[A-Za-z]+"), "word", "symbol")


@dataclass
class WindowSample:
    """The token rows claim 2 reads and the draws every layer shares (:func:`window_sample`).

    Attributes
    ----------
    rows : int array
        The rows of the tokens kept (special tokens and excluded positions dropped).
    types : int array
        Their token ids.
    windows : int array
        Each one's context window (0 .. W-1).
    weights : float array (n_boot, W)
        The Bayesian-bootstrap window weights.
    lid_rows : list of int array
        Each LID sample's rows (indices into ``rows``).
    """

    rows: np.ndarray
    types: np.ndarray
    windows: np.ndarray
    weights: np.ndarray
    lid_rows: list[np.ndarray]


def window_sample(tokens, *, exclude_positions: tuple[int, ...], n_boot: int, seed: int,
                  lid_sample: int, lid_samples: int) -> WindowSample:
    """Check the parameters once and draw what every layer of claim 2 shares.

    Parameters
    ----------
    tokens : TokenEmbeddings
        The windows' token vectors.
    exclude_positions : tuple of int
        Positions whose tokens are dropped, beside special tokens.
    n_boot : int
        Bootstrap draws (stream ``bootstrap/windows``).
    seed : int
        The claim's seed.
    lid_sample, lid_samples : int
        Tokens per LID sample, and samples (streams ``lid-sample``, ``lid-sample-R``).

    Returns
    -------
    WindowSample
        The rows and the draws.

    Raises
    ------
    ValueError
        When ``lid_samples`` < 1.
    """
    keep = ~tokens.special_mask
    for position in exclude_positions:
        keep &= tokens.position != position
    rows = np.flatnonzero(keep)
    _, windows = np.unique(tokens.sentence_index[rows], return_inverse=True)
    weights = dirichlet_weights(int(windows.max()) + 1, n_boot,
                                stream_seed(seed, "bootstrap/windows"))
    if lid_samples < 1:
        raise ValueError(f"lid_samples must be >= 1; got {lid_samples}.")
    lid_rows = [sample_indices(rows.size, lid_sample, stream_seed(
        seed, repeat_name("lid-sample", r))) for r in range(lid_samples)]
    return WindowSample(rows, tokens.token_ids[rows], windows, weights, lid_rows)


def layer_similarities(X: np.ndarray, sample: WindowSample, k: int, labels: np.ndarray, *,
                       k_sample: int, max_instances: int, seed: int, restarts: int,
                       inter_min_units: int, train_seed: int | None) -> dict:
    """S_inter and S_intra of one layer (raw, centred, per cluster), over ``restarts`` fits
    of K-means at ``k`` (the first is ``labels``).

    With ``restarts`` > 1 K-means is fitted again at that K ``restarts - 1`` times
    (:func:`restart_labels`, stream ``restart-R``), and the per-cluster values are the mean
    over the fits, their draws the mixture of each fit's bootstrap (:func:`mix_restarts`).

    Parameters
    ----------
    X : numpy.ndarray of shape (tokens, d)
        The layer's vectors of ``sample.rows``.
    sample : WindowSample
        The rows and the window weights.
    k : int
        The layer's K.
    labels : numpy.ndarray of int
        The first fit's clusters.
    k_sample, max_instances, seed, restarts, inter_min_units, train_seed
        As :func:`cluster_layer_stats`'.

    Returns
    -------
    dict
        The values (:func:`~anisotropy.claims.clusters.similarities.type_similarities`),
        ``|S_inter| per-cluster`` and, with restarts, each per-cluster value's range.
    """
    types, windows, weights = sample.types, sample.windows, sample.weights
    similarities = type_similarities(X, types, labels, max_instances,
                                     stream_seed(seed, "type-similarities"), windows,
                                     weights, inter_min_units)
    fits = [similarities]
    if restarts > 1 and k > 1:
        fits += [per_cluster_similarities(
            X, types, restart_labels(X, k, k_sample, stream_seed(seed, f"restart-{r}"),
                                      sub_seed(train_seed, f"restart-{r}")),
            max_instances, stream_seed(seed, "type-similarities"), windows, weights,
            inter_min_units)
            for r in range(1, restarts)]
    # local isotropy compares sizes fit by fit: a fit with a cluster of a few types has
    # a per-cluster S_inter near -1/(n-1), and averaging signed values over fits would
    # cancel what each fit measures
    similarities["|S_inter| per-cluster"] = float(np.nanmean(
        [abs(fit["S_inter per-cluster"]) for fit in fits]))
    if len(fits) > 1:
        for name in ("S_inter per-cluster", "S_intra per-cluster"):
            values = [fit[name] for fit in fits]
            similarities[name] = float(np.nanmean(values))
            similarities[f"{name} restart range"] = float(np.nanmax(values)
                                                         - np.nanmin(values))
            similarities[f"{name} draws"] = mix_restarts([fit[f"{name} draws"]
                                                          for fit in fits])
    return similarities


def layer_dimensions(X: np.ndarray, sample: WindowSample, lid_k: int) -> tuple[dict, np.ndarray]:
    """IsoScore and local intrinsic dimension of one layer.

    LID is a property of the point set: repeated vectors (layer 0 gives every occurrence of
    a type the same vector, the decoder's with no position at all) are counted once, as in
    :func:`~anisotropy.claims.clusters.manifolds.static_space_lid`; a distinct point takes
    the window of its first occurrence. The cosine LID is the mean over the LID samples and
    its draws mix theirs (:func:`~anisotropy.claims.clusters.manifolds.lid_of_samples`).
    IsoScore and the Euclidean LID (shown, not graded) use the first sample.

    Parameters
    ----------
    X : numpy.ndarray of shape (tokens, d)
        The layer's vectors of ``sample.rows``.
    sample : WindowSample
        The rows, the LID samples and the window weights.
    lid_k : int
        Neighbours of the LID estimate.

    Returns
    -------
    record : dict
        ``isoscore``, ``LID points``, ``LID euclidean``, ``LID cosine`` and, with several
        samples, ``LID cosine sample range``.
    draws : numpy.ndarray
        The cosine LID's bootstrap draws.
    """
    weights, windows, lid_rows = sample.weights, sample.windows, sample.lid_rows
    record = {"isoscore": metrics.isoscore(X[lid_rows[0]])}
    # each sample's distinct points, and the row of each one's first occurrence
    distinct = [np.unique(X[rows], axis=0, return_index=True) for rows in lid_rows]
    points = distinct[0][0]
    record["LID points"] = points.shape[0]
    record["LID euclidean"] = metrics.lid_mle(points, k=lid_k, metric="euclidean")
    record["LID cosine"], spread, draws = lid_of_samples(
        [points for points, _ in distinct], lid_k,
        lambda r, pointwise: weighted_mean_draws(
            pointwise, weights[:, windows[lid_rows[r][distinct[r][1]]]]))
    if len(lid_rows) > 1:
        record["LID cosine sample range"] = spread
    return record, draws


def cluster_layer_stats(tokens, layers: list[int], n_layers: int, *,
                        exclude_positions: tuple[int, ...] = (), k_sample: int = 2000,
                        lid_sample: int = 5000, lid_k: int = 100, max_instances: int = 1000,
                        seed: int = 0, n_boot: int = 1000, restarts: int = 1,
                        inter_min_units: int = 1, lid_samples: int = 1,
                        progress: bool = True, train_seed: int | None = None
                        ) -> tuple[pd.DataFrame, dict, dict]:
    """Per-layer S_inter/S_intra (raw, centred, per cluster), K, IsoScore, LID, drivers.

    Types are token ids; special tokens and ``exclude_positions`` are dropped
    (:func:`window_sample`). K is chosen once per layer (:func:`choose_k`), and fitted again
    with ``restarts`` (:func:`layer_similarities`); the figures use the first fit's labels.
    S_inter of a set of T types takes up to ``ceil(inter_min_units / T)`` instances of each
    (:func:`~anisotropy.geometry.similarity.inter_type_similarity`).

    The bootstrap resamples the context windows (``tokens.sentence_index``), the unit a
    seed draws from the corpus: one set of Bayesian-bootstrap window weights weights every
    instance, type and LID point by its window in every layer and K-means fit
    (:mod:`anisotropy.claims.clusters.similarities`; :func:`layer_dimensions`).

    Parameters
    ----------
    tokens : TokenEmbeddings
        The windows' token vectors, every layer.
    layers : list of int
        The layers to measure; ``n_layers`` is L, for the relative depth.
    n_layers, k_sample, lid_sample, lid_k, max_instances, seed, n_boot, restarts : int
        L; the K-means sample; the LID sample and its neighbours; instances per type; the
        claim's seed; bootstrap draws; K-means fits per layer.
    exclude_positions : tuple of int
        Positions whose tokens are dropped.
    inter_min_units, lid_samples : int
        The least instances behind S_inter; LID samples.
    progress : bool
        Show a progress bar over the layers.
    train_seed : int or None
        The K-means fits' seed (the claim's when None).

    Returns
    -------
    per_layer : pandas.DataFrame
        One row per layer.
    labels : dict of int to numpy.ndarray
        Each layer's cluster labels, for the figures.
    draws : dict of int to dict
        ``{layer: {name: bootstrap draws}}`` (``n_boot`` each, draw ``b`` of every layer
        under the same window weights) of raw, centred and per-cluster S_inter,
        per-cluster S_intra and the mean cosine LID, for :func:`check_values`.
    """
    sample = window_sample(tokens, exclude_positions=exclude_positions, n_boot=n_boot,
                           seed=seed, lid_sample=lid_sample, lid_samples=lid_samples)
    records, labels_by_layer, draws = [], {}, {}
    for layer in tqdm(layers, desc="layers", disable=not progress):
        X = np.asarray(tokens.layer(layer))[sample.rows]
        k, labels, scores = choose_k(X, sample=k_sample, seed=stream_seed(seed, "choose-k"),
                                     train_seed=sub_seed(train_seed, "choose-k"))
        labels_by_layer[layer] = labels
        record = {"layer": layer, "relative_depth": layer / n_layers, "K": k,
                  "best silhouette": max(scores.values())}
        similarities = layer_similarities(
            X, sample, k, labels, k_sample=k_sample, max_instances=max_instances, seed=seed,
            restarts=restarts, inter_min_units=inter_min_units, train_seed=train_seed)
        draws[layer] = {k: similarities.pop(k) for k in list(similarities) if "draws" in k}
        record.update(similarities)
        dims, draws[layer]["LID cosine draws"] = layer_dimensions(X, sample, lid_k)
        record.update(dims)
        drivers = cluster_drivers(X, labels)
        record.update({"top-3 variance dims": drivers["top_variance_dims"],
                       "top-3 variance share": drivers["top_variance_share"],
                       "top-3 between-cluster dims": drivers["top_between_dims"],
                       "top-3 between-cluster share": drivers["top_between_share"]})
        records.append(record)
    return pd.DataFrame(records), labels_by_layer, draws


def driver_share_draws(X: np.ndarray, labels: np.ndarray, n_boot: int = 1000, seed: int = 0,
                       top: int = 3, block: int = 50) -> np.ndarray:
    """Bootstrap draws over tokens (labels fixed) of :func:`cluster_drivers`'s
    ``top_between_share``, the top coordinates chosen again in every draw.

    Per draw with token counts :math:`w`, cluster sums :math:`S_c = \\sum_{i \\in c} w_i
    x_i` give the between-cluster scatter :math:`B_d = \\sum_c n_c (\\mu_{c,d} -
    \\mu_d)^2`. Draws are computed ``block`` at a time: memory ``block * n_tokens`` floats.

    Parameters
    ----------
    X : numpy.ndarray of shape (n_tokens, d)
        The vectors, one per token.
    labels : numpy.ndarray of shape (n_tokens,)
        Each token's cluster, held fixed.
    n_boot : int, optional
        Bootstrap draws (default 1000).
    seed : int, optional
        Seed of the resample counts
        (:func:`~anisotropy.geometry.intervals.resample_counts`; default 0).
    top : int, optional
        How many coordinates the share counts (default 3).
    block : int, optional
        Draws computed at a time (default 50).

    Returns
    -------
    numpy.ndarray of shape (n_boot,)
        Each draw's share of the between-cluster scatter on its ``top`` coordinates; all
        zeros when ``labels`` holds fewer than two clusters.
    """
    X = np.asarray(X, dtype=np.float64)
    labels = np.asarray(labels)
    clusters_ = np.unique(labels)
    if clusters_.size < 2:
        return np.zeros(n_boot)
    counts = resample_counts(X.shape[0], n_boot, seed)
    out = np.empty(n_boot)
    members = [np.flatnonzero(labels == c) for c in clusters_]
    for start in range(0, n_boot, block):
        w = counts[start:start + block]
        sizes = np.stack([w[:, rows].sum(axis=1) for rows in members], axis=1)   # (b, K)
        sums = np.stack([w[:, rows] @ X[rows] for rows in members], axis=1)      # (b, K, d)
        total = sizes.sum(axis=1)[:, None]
        overall = sums.sum(axis=1) / total
        with np.errstate(invalid="ignore", divide="ignore"):
            means = sums / sizes[:, :, None]
        scatter = np.nansum(sizes[:, :, None] * (means - overall[:, None, :]) ** 2, axis=1)
        ordered = np.sort(scatter, axis=1)[:, ::-1]
        out[start:start + block] = ordered[:, :top].sum(axis=1) / np.maximum(
            scatter.sum(axis=1), 1e-300)
    return out


def decoder_drivers(tokens, layer: int, k_sample: int = 2000, n_boot: int = 1000,
                    seed: int = 0, train_seed: int | None = None) -> tuple[dict, Interval]:
    """What carries a decoder layer's clusters, with the position-0 tokens kept (the raw
    space, as the paper used it).

    K-means (:func:`choose_k`) on the layer's non-special tokens; returns a row of facts
    (K, the top-3 between-cluster and top-variance coordinates and their shares, how much of
    the smallest cluster is position 0) and the 95% interval of the top-3 between-cluster
    share (:func:`driver_share_draws`; 0 when one cluster is chosen).

    Parameters
    ----------
    tokens : TokenEmbeddings
        The windows' token vectors.
    layer : int
        The layer read.
    k_sample : int, optional
        :func:`choose_k`'s sample (default 2000).
    n_boot : int, optional
        Bootstrap draws (default 1000).
    seed : int, optional
        The claim's seed (default 0; streams ``choose-k`` and ``bootstrap/drivers``).
    train_seed : int or None, optional
        The K-means seed (derived along ``choose-k``); the claim's when None (the default).

    Returns
    -------
    row : dict
        ``layer``, ``K with position 0``, ``top-3 between-cluster dims``, ``top-3
        between-cluster share`` (0 when K = 1), ``top-3 variance dims``, ``top-3 variance
        share``, ``position-0 share of smallest cluster`` and ``position-0 share of all
        tokens``.
    interval : Interval
        The 95% percentile interval of the top-3 between-cluster share.
    """
    keep = ~tokens.special_mask
    X = np.asarray(tokens.layer(layer))[keep]
    k, labels, _ = choose_k(X, sample=k_sample, seed=stream_seed(seed, "choose-k"),
                            train_seed=sub_seed(train_seed, "choose-k"))
    drivers = cluster_drivers(X, labels)
    first = tokens.position[keep] == 0
    smallest = pd.Series(labels).value_counts().index[-1]
    share = drivers["top_between_share"] if k > 1 else 0.0
    row = {"layer": layer, "K with position 0": k,
           "top-3 between-cluster dims": drivers["top_between_dims"],
           "top-3 between-cluster share": share,
           "top-3 variance dims": drivers["top_variance_dims"],
           "top-3 variance share": drivers["top_variance_share"],
           "position-0 share of smallest cluster": float(first[labels == smallest].mean()),
           "position-0 share of all tokens": float(first.mean())}
    interval = percentile_interval(driver_share_draws(
        X, labels, n_boot, stream_seed(seed, "bootstrap/drivers")), method=boot_method(
        n_boot, X.shape[0], "tokens; clusters fixed, top coordinates re-chosen in every draw"))
    return row, interval


def layer_intervals(draws: dict, layers: list[int], statistic: Callable, statement: str,
                    method: str) -> list[Interval]:
    """Each layer's 95% interval of a statistic of its draws, for a statement about every
    layer.

    The draws are :func:`cluster_layer_stats`': the context windows resampled, draw ``b``
    under the same window weights in every layer, so a layer's S_intra and S_inter, or its
    two centrings, are paired. The end that decides "reproduced" is pointwise, the end that
    decides "not reproduced" a simultaneous bound over the layers' joint draws
    (:func:`~anisotropy.geometry.bands.every_layer_intervals`), so that "some layer fails"
    is not declared by one of many pointwise intervals missing. The interval of the worst
    layer's value is then that of a minimum or maximum of estimates
    (:func:`~anisotropy.geometry.intervals.interval_of_min`, ``interval_of_max``): its
    verdict holds only if it holds in every layer's interval, and the point always lies
    inside. (The percentile interval of the minimum of the draws would not: the extreme of
    noisy draws is biased outward.)

    Parameters
    ----------
    draws : dict of int to dict
        Each layer's draws, by name.
    layers : list of int
        The layers the statement is about.
    statistic : callable
        A layer's draws (a dict) to the statistic's draws.
    statement : str
        ``"min"`` or ``"max"``: the statement is about the smallest or the largest layer.
    method : str
        How the draws were made.

    Returns
    -------
    list of Interval
        One per layer of ``layers``.
    """
    return every_layer_intervals(np.stack([statistic(draws[layer]) for layer in layers],
                                          axis=1), statement, method=method)


def largest_gap(gaps: pd.Series, clustered, other: str,
                per_layer_intervals: Callable) -> CheckValue:
    """The largest |S_inter| after per-cluster centring minus |S_inter| of ``other`` over
    the layers where K-means found clusters, with the interval of that maximum.

    Parameters
    ----------
    gaps : pandas.Series
        Each layer's gap, indexed by layer.
    clustered : pandas.Index
        The layers with K > 1.
    other : str
        ``"S_inter centred"`` (``local-beyond-centring``) or ``"S_inter raw"`` (the paper's
        contrast).
    per_layer_intervals : callable
        ``(statistic, statement, layers)`` to the layers' intervals (:func:`layer_intervals`).

    Returns
    -------
    CheckValue
        The measured value, its Interval and its details.
    """
    return CheckValue(
        float(gaps.loc[clustered].max()),
        interval_of_max(per_layer_intervals(
            lambda d: np.abs(d["S_inter per-cluster draws"]) - np.abs(d[f"{other} draws"]),
            "max", list(clustered)),
            "layers with K > 1; per-cluster draws mixed over the K-means fits"),
        {"layer of the maximum": int(gaps.loc[clustered].idxmax()),
         "layers with K > 1": [int(x) for x in clustered]})


def largest_per_cluster(per_cluster: pd.Series, raw: pd.Series, clustered,
                        per_layer_intervals: Callable, high: float) -> CheckValue:
    """``local-isotropy``: the largest |S_inter| left after per-cluster centring over the
    layers where K-means found clusters and the raw |S_inter| is high (at least ``high``),
    with the interval of that maximum; the details give the raw |S_inter| of that layer
    and the paper's contrast, the largest per-cluster minus raw |S_inter| over the same
    layers. With no such layer the statement, a fall "from the high raw S_inter", has
    nothing to be about (centring alone brings a low S_inter near zero): the value is None,
    with the reason under ``unavailable``.

    Parameters
    ----------
    per_cluster : pandas.Series
        Each layer's |S_inter| after per-cluster centring (the mean over the K-means fits),
        indexed by layer.
    raw : pandas.Series
        Each layer's raw S_inter, indexed by layer.
    clustered : pandas.Index
        The layers with K > 1.
    per_layer_intervals : callable
        ``(statistic, statement, layers)`` to the layers' intervals (:func:`layer_intervals`).
    high : float
        The raw |S_inter| from which a layer counts as anisotropic (``global-anisotropy``'s
        threshold).

    Returns
    -------
    CheckValue
        The measured value, its Interval and its details.
    """
    layers = [int(x) for x in clustered]
    eligible = [x for x in layers if abs(raw.loc[x]) >= high]
    if not eligible:
        return CheckValue(None, None, {
            "layers with K > 1": layers,
            "unavailable": f"the raw S_inter is not high (at least {high:.3g}) in any layer "
                           "with K > 1: no anisotropy for the clusters to reveal as local "
                           "isotropy, and centring alone would bring it near zero"})
    level = per_cluster.loc[eligible]
    worst = int(level.idxmax())
    fall = (per_cluster - raw.abs()).loc[eligible]
    return CheckValue(
        float(level.max()),
        interval_of_max(per_layer_intervals(
            lambda d: np.abs(d["S_inter per-cluster draws"]), "max", eligible),
            "layers with K > 1 and a high raw S_inter; per-cluster draws mixed over the "
            "K-means fits"),
        {"layer of the maximum": worst, "layers with K > 1": layers,
         "layers graded (raw |S_inter| high)": eligible,
         "|S_inter| raw there": float(abs(raw.loc[worst])),
         "largest per-cluster minus raw |S_inter|": float(fall.max()),
         "its layer": int(fall.idxmax())})


def lid_check(lid: pd.Series, static_lid: dict[str, tuple[float, np.ndarray]],
              per_layer_intervals: Callable, layer0_lid: float | None = None) -> CheckValue:
    """``lid-below-static``: the largest ratio of a layer's mean cosine LID to the smallest
    static space's, with the interval of that maximum. A static space's points are drawn
    uniformly from its vocabulary, a layer's from the text's occurrences; the details set
    beside the ratio the one against layer 0, the input embeddings sampled as the text uses
    them (``layer0_lid``).

    Parameters
    ----------
    lid : pandas.Series
        Each layer's mean cosine LID, indexed by layer.
    static_lid : dict of str to (float, numpy.ndarray)
        Each static space's mean cosine LID and its draws.
    per_layer_intervals : callable
        ``(statistic, statement)`` to the layers' intervals (:func:`layer_intervals`).
    layer0_lid : float or None, optional
        Layer 0's mean cosine LID on the text's sample; None (default): not recorded.

    Returns
    -------
    CheckValue
        The measured value, its Interval and its details.
    """
    static_names = list(static_lid)
    static_point = np.array([static_lid[n][0] for n in static_names])
    static_draws = np.stack([static_lid[n][1] for n in static_names], axis=1).min(axis=1)
    return CheckValue(
        float(lid.max() / static_point.min()),
        interval_of_max(per_layer_intervals(
            lambda d: d["LID cosine draws"] / static_draws, "max"),
            "layers; each LID (a layer's and the static space's) the mean over "
            "independent samples of points, its draws mixing their bootstraps (the static "
            "space's over its points)"),
        {"max layer LID": float(lid.max()),
         "min static LID": float(static_point.min()),
         "static space of the minimum": static_names[int(static_point.argmin())],
         **({} if layer0_lid is None else {
             "ratio to layer 0 on the text's sample": float(lid.max() / layer0_lid)})})


def check_values(per_layer: pd.DataFrame, draws: dict, static_lid: dict[str, tuple[float,
                 np.ndarray]], n_boot: int, n_windows: int, high: float
                 ) -> dict[str, CheckValue]:
    """The measured value and 95% interval of the per-layer claim-2 checks for one model.

    The paper's statements hold "in every layer", so each check reads the worst layer
    >= 1: the minimum raw S_inter; among the layers where K-means found clusters (K > 1),
    the largest |S_inter| after per-cluster centring (the mean over the K-means fits of
    each fit's |S_inter|; ``local-isotropy``, with the paper's contrast against the raw
    |S_inter| in its details) and, a finding, that |S_inter| minus |S_inter| after global
    centring (``local-beyond-centring``: what the clusters add to centring), both None when
    no layer has K > 1 (per-cluster centring is then global centring); the minimum gap S_intra -
    S_inter; the largest ratio of a layer's LID to the smallest static LID.

    Each layer's interval is :func:`layer_intervals`'; the worst layer's is that of a
    minimum or maximum of them. ``static_lid`` maps each static space compared against to
    its mean cosine LID and its draws (resampling its points).

    Parameters
    ----------
    per_layer : pandas.DataFrame
        One row per layer (:func:`cluster_layer_stats`).
    draws : dict of int to dict
        Each layer's bootstrap draws (:func:`cluster_layer_stats`).
    static_lid : dict of str to (float, numpy.ndarray)
        Each static space's mean cosine LID and its draws.
    n_boot, n_windows : int
        Bootstrap draws, and the context windows they resample.
    high : float
        The raw |S_inter| from which a layer counts as anisotropic (``local-isotropy``
        grades only such layers: :func:`largest_per_cluster`).

    Returns
    -------
    dict of str to CheckValue
        ``{check id: CheckValue}`` (measured, Interval, details) of ``global-anisotropy``,
        ``local-isotropy``, ``local-beyond-centring``, ``intra-above-inter`` and
        ``lid-below-static``.
    """
    contextual = [int(layer) for layer in per_layer["layer"] if layer >= 1]
    if not contextual:
        raise ValueError("Claim 2's checks need at least one layer >= 1.")
    table = per_layer.set_index("layer").loc[contextual]
    lids = per_layer.set_index("layer")["LID cosine"]
    method = boot_method(n_boot, n_windows, "context windows (Bayesian bootstrap, the "
                         "same window weights in every layer)")

    def per_layer_intervals(statistic, statement: str, layers=contextual) -> list[Interval]:
        return layer_intervals(draws, layers, statistic, statement, method)

    gap = table["S_intra per-cluster"] - table["S_inter per-cluster"]
    per_cluster = table["|S_inter| per-cluster"]
    clustered = table.index[(table["K"] > 1).to_numpy()]
    closer = per_cluster - table["S_inter centred"].abs()
    if len(clustered):
        local = largest_per_cluster(per_cluster, table["S_inter raw"], clustered,
                                    per_layer_intervals, high)
        beyond = largest_gap(closer, clustered, "S_inter centred", per_layer_intervals)
    else:
        local = beyond = CheckValue(None, None, {"layers with K > 1": []})
    return {
        GLOBAL_ANISOTROPY: CheckValue(
            float(table["S_inter raw"].min()),
            interval_of_min(per_layer_intervals(lambda d: d["S_inter raw draws"], "min"),
                            "layers"),
            {"layer of the minimum": int(table["S_inter raw"].idxmin()),
             "median over layers": float(table["S_inter raw"].median())}),
        LOCAL_ISOTROPY: local,
        LOCAL_BEYOND_CENTRING: beyond,
        INTRA_ABOVE_INTER: CheckValue(
            float(gap.min()), interval_of_min(per_layer_intervals(
                lambda d: d["S_intra per-cluster draws"] - d["S_inter per-cluster draws"],
                "min"),
                "layers; per-cluster draws mixed over the K-means fits"),
            {"layer of the minimum": int(gap.idxmin())}),
        LID_BELOW_STATIC: lid_check(table["LID cosine"], static_lid, per_layer_intervals,
                                    lids.get(0)),
    }
