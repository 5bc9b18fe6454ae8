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

import numpy as np
import pandas as pd
from sklearn.cluster import KMeans
from tqdm.auto import tqdm

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
           "decoder_drivers", "check_values"]

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

    Returns
    -------
    k : int
    labels : int array, one per row of ``X``
    scores : dict K -> silhouette
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
    """Occurrences of each type in the sample (a frequency proxy for colouring)."""
    return pd.Series(types).map(pd.Series(types).value_counts())


def token_kinds(tokens: np.ndarray) -> np.ndarray:
    """``"word"`` for tokens made of letters (after removing subword markers), else
    ``"symbol"`` (punctuation, digits, ``<unk>`` pieces), as Cai et al. split their figures."""
    cleaned = pd.Series(tokens).astype(str).str.replace(r"^(Ġ|▁|##)", "", regex=True)
    return np.where(cleaned.str.fullmatch(r"[A-Za-z]+"), "word", "symbol")


def cluster_layer_stats(tokens, layers: list[int], n_layers: int, *,
                        exclude_positions: tuple[int, ...] = (), k_sample: int = 2000,
                        lid_sample: int = 5000, lid_k: int = 100, max_instances: int = 1000,
                        seed: int = 0, n_boot: int = 1000, restarts: int = 1,
                        inter_min_units: int = 1, lid_samples: int = 1,
                        progress: bool = True, train_seed: int | None = None
                        ) -> tuple[pd.DataFrame, dict, dict]:
    """Per-layer S_inter/S_intra (raw, centred, per cluster), K, IsoScore, LID, drivers.

    Types are token ids; special tokens and ``exclude_positions`` are dropped. K is chosen
    once per layer (:func:`choose_k`); with ``restarts`` > 1 K-means is fitted again at
    that K ``restarts - 1`` times (:func:`restart_labels`, stream ``restart-R``), and the
    per-cluster values are the mean over the fits, their draws the mixture of each fit's
    bootstrap (:func:`mix_restarts`). The figures use the first fit's labels. S_inter of
    a set of T types takes up to ``ceil(inter_min_units / T)`` instances of each
    (:func:`~anisotropy.geometry.similarity.inter_type_similarity`).

    The bootstrap resamples the context windows (``tokens.sentence_index``), the unit a
    seed draws from the corpus: one set of Bayesian-bootstrap window weights (stream
    ``bootstrap/windows``) weights every instance, type and LID point by its window in
    every layer and K-means fit (:mod:`anisotropy.claims.clusters.similarities`). A distinct
    LID point takes the window of its first occurrence. The cosine LID is the mean over
    ``lid_samples`` samples of ``lid_sample`` tokens (streams ``lid-sample``,
    ``lid-sample-R``) and its draws mix theirs: a point's neighbours move with the sample,
    which the reweighting of one sample's points holds fixed. IsoScore and the Euclidean
    LID (shown, not graded) use the first sample.

    Returns the per-layer table, ``{layer: cluster labels}`` for the figures, and
    ``{layer: {name: bootstrap draws}}`` (``n_boot`` each, draw ``b`` of every layer under
    the same window weights) of raw, centred and per-cluster S_inter, per-cluster S_intra
    and the mean cosine LID, for :func:`check_values`.
    """

    keep = ~tokens.special_mask
    for position in exclude_positions:
        keep &= tokens.position != position
    rows = np.flatnonzero(keep)
    types = tokens.token_ids[rows]
    _, windows = np.unique(tokens.sentence_index[rows], return_inverse=True)
    weights = dirichlet_weights(int(windows.max()) + 1, n_boot,
                                stream_seed(seed, "bootstrap/windows"))
    if lid_samples < 1:
        raise ValueError(f"lid_samples must be >= 1; got {lid_samples}.")
    lid_samples_rows = [sample_indices(rows.size, lid_sample, stream_seed(
        seed, repeat_name("lid-sample", r))) for r in range(lid_samples)]
    lid_rows = lid_samples_rows[0]
    iso_rows = lid_rows
    records, labels_by_layer, draws = [], {}, {}
    for layer in tqdm(layers, desc="layers", disable=not progress):
        X = np.asarray(tokens.layer(layer))[rows]
        k, labels, scores = choose_k(X, sample=k_sample, seed=stream_seed(seed, "choose-k"),
                                     train_seed=sub_seed(train_seed, "choose-k"))
        labels_by_layer[layer] = labels
        record = {"layer": layer, "relative_depth": layer / n_layers, "K": k,
                  "best silhouette": max(scores.values())}
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
        draws[layer] = {k: similarities.pop(k) for k in list(similarities) if "draws" in k}
        record.update(similarities)
        record["isoscore"] = metrics.isoscore(X[iso_rows])
        # LID is a property of the point set: repeated vectors (layer 0 gives every
        # occurrence of a type the same vector, the decoder's with no position at all) are
        # counted once, as in manifolds.static_space_lid.
        # each sample's distinct points, and the row of each one's first occurrence
        distinct = [np.unique(X[sample_rows], axis=0, return_index=True)
                    for sample_rows in lid_samples_rows]
        sample = distinct[0][0]
        record["LID points"] = sample.shape[0]
        record["LID euclidean"] = metrics.lid_mle(sample, k=lid_k, metric="euclidean")
        record["LID cosine"], spread, draws[layer]["LID cosine draws"] = lid_of_samples(
            [points for points, _ in distinct], lid_k,
            lambda r, pointwise, distinct=distinct: weighted_mean_draws(
                pointwise, weights[:, windows[lid_samples_rows[r][distinct[r][1]]]]))
        if lid_samples > 1:
            record["LID cosine sample range"] = spread
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


def check_values(per_layer: pd.DataFrame, draws: dict, static_lid: dict[str, tuple[float,
                 np.ndarray]], n_boot: int, n_windows: int) -> dict[str, tuple]:
    """The measured value and 95% interval of the per-layer claim-2 checks for one model.

    The paper's statements hold "in every layer", so each check reads the worst layer
    >= 1: the minimum raw S_inter; among the layers where K-means found clusters (K > 1),
    the largest |S_inter| after per-cluster centring (the mean over the K-means fits of
    each fit's |S_inter|) minus the raw |S_inter| (``local-isotropy``, the paper's
    contrast) and, a finding, minus |S_inter| after global centring
    (``local-beyond-centring``: what the clusters add to centring), both None when no layer
    has K > 1 (per-cluster centring is then global centring); the minimum gap S_intra -
    S_inter; the largest ratio of a layer's LID to the smallest static LID.

    Each layer gets an interval from its draws (:func:`cluster_layer_stats`: the context
    windows resampled, draw ``b`` under the same window weights in every layer, so a
    layer's S_intra and S_inter, or its two centrings, are paired): the end that decides
    "reproduced" pointwise, the end that decides "not reproduced" from a simultaneous bound
    over the layers' joint draws
    (:func:`~anisotropy.geometry.bands.every_layer_intervals`), so that "some layer fails"
    is not declared by one of many pointwise intervals missing. The interval of the worst
    layer's value is that of a minimum or maximum of estimates
    (:func:`~anisotropy.geometry.intervals.interval_of_min`, ``interval_of_max``): its
    verdict holds only if it holds in every layer's interval, and the point always lies
    inside. (The percentile interval of the minimum of the draws would not: the extreme of
    noisy draws is biased outward.) ``static_lid`` maps each static space compared against
    to its mean cosine LID and its draws (resampling its points).
    """
    contextual = [int(layer) for layer in per_layer["layer"] if layer >= 1]
    if not contextual:
        raise ValueError("Claim 2's checks need at least one layer >= 1.")
    table = per_layer.set_index("layer").loc[contextual]
    method = boot_method(n_boot, n_windows, "context windows (Bayesian bootstrap, the "
                         "same window weights in every layer)")

    def per_layer_intervals(statistic, statement: str, layers=contextual) -> list[Interval]:
        return every_layer_intervals(np.stack([statistic(draws[layer]) for layer in layers],
                                              axis=1), statement, method=method)

    static_names = list(static_lid)
    static_point = np.array([static_lid[n][0] for n in static_names])
    static_draws = np.stack([static_lid[n][1] for n in static_names], axis=1).min(axis=1)
    gap = table["S_intra per-cluster"] - table["S_inter per-cluster"]
    per_cluster = table["|S_inter| per-cluster"]
    clustered = table.index[(table["K"] > 1).to_numpy()]
    below_raw = per_cluster - table["S_inter raw"].abs()
    closer = per_cluster - table["S_inter centred"].abs()
    if len(clustered):
        worst = int(below_raw.loc[clustered].idxmax())
        local = (
            float(below_raw.loc[clustered].max()),
            interval_of_max(per_layer_intervals(
                lambda d: np.abs(d["S_inter per-cluster draws"])
                - np.abs(d["S_inter raw draws"]), "max", list(clustered)),
                "layers with K > 1; per-cluster draws mixed over the K-means fits"),
            {"layer of the maximum": worst, "layers with K > 1": [int(x) for x in clustered],
             "|S_inter| per-cluster there": float(per_cluster.loc[worst]),
             "|S_inter| raw there": float(abs(table.loc[worst, "S_inter raw"]))})
        beyond = (
            float(closer.loc[clustered].max()),
            interval_of_max(per_layer_intervals(
                lambda d: np.abs(d["S_inter per-cluster draws"])
                - np.abs(d["S_inter centred draws"]), "max", list(clustered)),
                "layers with K > 1; per-cluster draws mixed over the K-means fits"),
            {"layer of the maximum": int(closer.loc[clustered].idxmax()),
             "layers with K > 1": [int(x) for x in clustered]})
    else:
        local = beyond = (None, None, {"layers with K > 1": []})
    return {
        "global-anisotropy": (
            float(table["S_inter raw"].min()),
            interval_of_min(per_layer_intervals(lambda d: d["S_inter raw draws"], "min"),
                            "layers"),
            {"layer of the minimum": int(table["S_inter raw"].idxmin()),
             "median over layers": float(table["S_inter raw"].median())}),
        "local-isotropy": local,
        "local-beyond-centring": beyond,
        "intra-above-inter": (
            float(gap.min()), interval_of_min(per_layer_intervals(
                lambda d: d["S_intra per-cluster draws"] - d["S_inter per-cluster draws"],
                "min"),
                "layers; per-cluster draws mixed over the K-means fits"),
            {"layer of the minimum": int(gap.idxmin())}),
        "lid-below-static": (
            float(table["LID cosine"].max() / static_point.min()),
            interval_of_max(per_layer_intervals(
                lambda d: d["LID cosine draws"] / static_draws, "max"),
                "layers; each LID (a layer's and the static space's) the mean over "
                "independent samples of points, its draws mixing their bootstraps (the static "
                "space's over its points)"),
            {"max layer LID": float(table["LID cosine"].max()),
             "min static LID": float(static_point.min()),
             "static space of the minimum": static_names[int(static_point.argmin())]}),
    }
