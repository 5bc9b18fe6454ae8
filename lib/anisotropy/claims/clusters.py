"""Clusters and manifolds in contextual spaces (Cai et al. 2021), from cached token vectors.

Everything here selects rows, clusters, and calls :mod:`anisotropy.geometry.metrics`; the
contexts (WikiText-2 and PTB cut into fixed word windows) come from
:func:`anisotropy.inputs.tasks.windows`.

- :func:`choose_k`: K-means with K picked by the best silhouette on a sample (K = 1 below a
  threshold), as the authors' code;
- :func:`type_similarities`: S_inter / S_intra raw, after global centring, and after
  per-cluster centring;
- :func:`cluster_drivers`: how much of the between-cluster scatter a few coordinates carry.

The manifold indicators and the static-space LID are in :mod:`anisotropy.claims.manifolds`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.cluster import KMeans
from tqdm.auto import tqdm

from anisotropy.claims.manifolds import lid_mean_draws
from anisotropy.geometry import metrics
from anisotropy.geometry.intervals import (
    Interval,
    boot_method,
    bootstrap_means,
    percentile_interval,
    resample_counts,
)
from anisotropy.geometry.sampling import sample_indices
from anisotropy.geometry.streams import stream_seed

__all__ = ["SILHOUETTE_THRESHOLD", "choose_k", "compare_k_selection", "type_similarities",
           "cluster_drivers", "type_frequencies", "token_kinds", "cluster_layer_stats",
           "driver_share_draws", "decoder_drivers", "check_values",
           "offdiagonal_cosine_draws", "resample_counts_distinct", "per_cluster_similarities",
           "restart_labels", "mix_restarts"]

#: Below this best silhouette, :func:`choose_k` keeps one cluster (the authors' code).
SILHOUETTE_THRESHOLD = 0.1


def choose_k(X: np.ndarray, k_range=range(2, 16), sample: int = 2000,
             threshold: float = SILHOUETTE_THRESHOLD, seed: int = 0, n_init: int = 1
             ) -> tuple[int, np.ndarray, dict]:
    """Pick K for K-means by the best silhouette on a sample; K = 1 below ``threshold``.

    Each K in ``k_range`` is fitted on a seeded sample of at most ``sample`` rows (the
    authors use 20,000) and scored by :func:`anisotropy.geometry.metrics.silhouette` on that sample.
    The chosen model labels all rows.

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
                       random_state=stream_seed(seed, "kmeans")).fit(S)
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


def compare_k_selection(X: np.ndarray, protocols: dict[str, tuple[int, int]], seed: int = 0
                        ) -> pd.DataFrame:
    """K chosen by :func:`choose_k` under several protocols, one row each.

    ``protocols`` maps a label to ``(sample, n_init)``: the points K-means is fitted and the
    silhouette scored on, and the K-means initialisations. Rows hold the chosen K, the best
    silhouette and the silhouette of every K tried.
    """
    rows = []
    for label, (sample, n_init) in protocols.items():
        k, _, scores = choose_k(X, sample=sample, seed=seed, n_init=n_init)
        rows.append({"protocol": label, "points": min(sample, X.shape[0]), "n_init": n_init,
                     "K": k, "best silhouette": max(scores.values()),
                     **{f"silhouette K={key}": value for key, value in scores.items()}})
    return pd.DataFrame(rows).set_index("protocol")


def _similarities(X: np.ndarray, types: np.ndarray, max_instances: int, seed: int,
                  n_boot: int | None = None, boot_seed: int = 0) -> tuple:
    """S_inter and S_intra of one point set, and with ``n_boot`` their bootstrap draws over
    types (resampled from the streams ``inter`` and ``intra`` under ``boot_seed``; the
    instances are chosen with ``seed``), from one pass: the chosen instances' unit vectors
    and the per-type self-similarities serve both the point estimates and the draws.

    Returns ``(inter, intra, inter_draws, intra_draws)``; the draws are None without
    ``n_boot``.
    """
    nan = float("nan")
    if np.unique(types).size < 2:
        empty = np.full(n_boot, nan) if n_boot else None
        return nan, nan, empty, empty
    unit = metrics.inter_type_units(X, types, seed)
    inter = metrics.mean_offdiagonal_cosine(unit)
    try:
        per_type = metrics.self_similarity(X, types, max_occurrences=max_instances, seed=seed)
    except ValueError:  # no type with two instances
        per_type = None
    intra = float(per_type.mean()) if per_type is not None else nan
    if not n_boot:
        return inter, intra, None, None
    inter_draws = offdiagonal_cosine_draws(unit, resample_counts_distinct(
        unit.shape[0], n_boot, stream_seed(boot_seed, "inter")))
    if per_type is None:
        intra_draws = np.full(n_boot, nan)
    elif per_type.size < 2:
        intra_draws = np.full(n_boot, intra)
    else:
        intra_draws = bootstrap_means(per_type.to_numpy(), n_boot,
                                      stream_seed(boot_seed, "intra"))[:, 0]
    return inter, intra, inter_draws, intra_draws


def resample_counts_distinct(n_units: int, n_boot: int, seed: int) -> np.ndarray:
    """Bootstrap counts ``(n_boot, n_units)`` in which every draw holds at least two
    distinct units: a draw of one unit repeated (probability ``n^(1-n)``, 1/2 for two
    units) has no pair of distinct units and no S_inter, so it is drawn again from a
    further stream. Every draw then measures the same quantity, and a cluster is never left
    out of a draw's average (a fixed estimand)."""
    if n_units < 2:
        raise ValueError(f"S_inter needs at least 2 units to resample; got {n_units}.")
    counts = resample_counts(n_units, n_boot, seed)
    attempt = 0
    while True:
        single = (counts > 0).sum(axis=1) < 2
        if not single.any():
            return counts
        attempt += 1
        n_redraw = int(single.sum())
        counts[single] = resample_counts(n_units, max(n_redraw, 20),
                                         stream_seed(seed, f"redraw/{attempt}"))[:n_redraw]


def offdiagonal_cosine_draws(unit: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Bootstrap draws of the mean cosine over pairs of distinct units (S_inter's formula).

    With counts :math:`c` (how often each unit is drawn), the mean over ordered pairs of
    draws that are *different units* is

    .. math:: \\frac{\\lVert\\sum_i c_i u_i\\rVert^2 - \\sum_i c_i^2 \\lVert u_i
              \\rVert^2}{n^2 - \\sum_i c_i^2}

    A unit drawn twice is not paired with itself: its cosine of 1 with its own copy would
    bias small resamples upward by about (1 - S)/n. All-ones counts give the point
    estimate exactly.
    """
    n = counts.sum(axis=1)
    totals = counts @ unit
    squared_counts = counts * counts
    own = squared_counts @ np.einsum("ij,ij->i", unit, unit)
    return (np.einsum("ij,ij->i", totals, totals) - own) / (n * n - squared_counts.sum(axis=1))


def _weighted_draws(draws: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Weighted average over clusters of per-cluster draws ``(n_clusters, n_boot)``. Every
    cluster is in every draw (:func:`resample_counts_distinct` keeps S_inter defined), so
    each draw averages over the same clusters as the point estimate."""
    return (weights[:, None] * draws).sum(axis=0) / weights.sum()


def type_similarities(X: np.ndarray, types: np.ndarray, labels: np.ndarray,
                      max_instances: int = 1000, seed: int = 0,
                      n_boot: int | None = None) -> dict[str, float]:
    """S_inter and S_intra raw, after global centring, and after per-cluster centring.

    Per-cluster values are computed inside each cluster (on its centred vectors, with the
    types present there) and averaged over clusters with equal weights, as the authors'
    ``analysis.py`` (lines 240-252) takes ``np.mean`` over clusters; clusters with fewer
    than 2 types are skipped.

    With ``n_boot``, the dict also holds bootstrap draws over types (``n_boot`` each) of
    ``"S_inter raw draws"`` (types resampled from the stream ``bootstrap/raw`` under
    ``seed``, so every layer of one token set shares the resample), ``"S_inter centred
    draws"`` (after global centring, from the stream ``bootstrap/centred``),
    ``"S_inter per-cluster draws"`` and ``"S_intra per-cluster draws"`` (types resampled
    within each cluster from its stream ``bootstrap/clusterC``, clusters combined draw by
    draw). The instances behind S_inter and S_intra are chosen with ``seed`` itself, so the
    raw, centred and per-cluster values are measured on the same instances.
    """
    X = np.asarray(metrics.check_embeddings(X), dtype=np.float64)
    out = {}
    out["S_inter raw"], out["S_intra raw"], raw_draws, _ = _similarities(
        X, types, max_instances, seed, n_boot, boot_seed=stream_seed(seed, "bootstrap/raw"))
    if n_boot:
        out["S_inter raw draws"] = raw_draws
    centred = X - X.mean(axis=0)
    out["S_inter centred"], out["S_intra centred"], centred_draws, _ = _similarities(
        centred, types, max_instances, seed, n_boot,
        boot_seed=stream_seed(seed, "bootstrap/centred"))
    if n_boot:
        out["S_inter centred draws"] = centred_draws
    out.update(per_cluster_similarities(X, types, labels, max_instances, seed, n_boot))
    return out


def per_cluster_similarities(X: np.ndarray, types: np.ndarray, labels: np.ndarray,
                             max_instances: int = 1000, seed: int = 0,
                             n_boot: int | None = None, boot_stream: str = "bootstrap"
                             ) -> dict[str, float]:
    """S_inter and S_intra after per-cluster centring, averaged over the clusters with at
    least 2 types (equal weights, as the authors' ``analysis.py``), with ``n_boot`` draws
    (types resampled within each cluster from the stream ``BOOT_STREAM/clusterC`` under
    ``seed``; every cluster in every draw, so every draw measures the same average; S_intra
    over the clusters where it is defined, in the point estimate and the draws alike)."""
    X = np.asarray(X, dtype=np.float64)
    out = {}
    inter, intra, weights, inter_draws, intra_draws = [], [], [], [], []
    for cluster in np.unique(labels):
        rows = labels == cluster
        if np.unique(types[rows]).size < 2:
            continue
        members = X[rows] - X[rows].mean(axis=0)
        a, b, da, db = _similarities(members, types[rows], max_instances, seed, n_boot,
                                     boot_seed=stream_seed(seed,
                                                           f"{boot_stream}/cluster{cluster}"))
        inter.append(a)
        intra.append(b)
        weights.append(1.0)  # every cluster counts once, as in the authors' code
        inter_draws.append(da)
        intra_draws.append(db)
    weights = np.asarray(weights, dtype=float)
    intra_arr = np.asarray(intra)
    ok = np.isfinite(intra_arr)
    out["S_inter per-cluster"] = float(np.average(inter, weights=weights)) if inter else np.nan
    out["S_intra per-cluster"] = (float(np.average(intra_arr[ok], weights=weights[ok]))
                                  if ok.any() else np.nan)
    if n_boot and inter:
        out["S_inter per-cluster draws"] = _weighted_draws(np.array(inter_draws), weights)
        out["S_intra per-cluster draws"] = (
            _weighted_draws(np.array(intra_draws)[ok], weights[ok]) if ok.any()
            else np.full(n_boot, np.nan))
    elif n_boot:
        out["S_inter per-cluster draws"] = np.full(n_boot, np.nan)
        out["S_intra per-cluster draws"] = np.full(n_boot, np.nan)
    return out


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


def restart_labels(X: np.ndarray, k: int, sample: int, seed: int) -> np.ndarray:
    """Labels of every row from one more K-means fit at ``k`` clusters, on a fresh sample
    of ``sample`` rows with a fresh start (streams ``k-sample`` and ``kmeans`` under
    ``seed``), as :func:`choose_k` fits its chosen K."""
    rows = sample_indices(X.shape[0], sample, stream_seed(seed, "k-sample"))
    model = KMeans(n_clusters=k, n_init=1, random_state=stream_seed(seed, "kmeans")).fit(
        np.asarray(X[rows], dtype=np.float32))
    return model.predict(np.asarray(X, dtype=np.float32))


def mix_restarts(draws: list[np.ndarray]) -> np.ndarray:
    """One set of draws from several K-means restarts' bootstrap draws (``n_boot`` each):
    draw ``b`` is restart ``b mod R``'s draw ``b``, so the percentiles are those of the
    mixture: the spread between restarts and the resampling within each."""
    stacked = np.stack(draws)
    return stacked[np.arange(stacked.shape[1]) % stacked.shape[0], np.arange(stacked.shape[1])]


def cluster_layer_stats(tokens, layers: list[int], n_layers: int, *,
                        exclude_positions: tuple[int, ...] = (), k_sample: int = 2000,
                        lid_sample: int = 5000, lid_k: int = 100, max_instances: int = 1000,
                        seed: int = 0, n_boot: int = 1000, restarts: int = 1,
                        progress: bool = True) -> tuple[pd.DataFrame, dict, dict]:
    """Per-layer S_inter/S_intra (raw, centred, per cluster), K, IsoScore, LID, drivers.

    Types are token ids; special tokens and ``exclude_positions`` are dropped. K is chosen
    once per layer (:func:`choose_k`); with ``restarts`` > 1 K-means is fitted again at
    that K ``restarts - 1`` times (:func:`restart_labels`, stream ``restart-R``), and the
    per-cluster values are the mean over the fits, their draws the mixture of each fit's
    bootstrap (:func:`mix_restarts`). The figures use the first fit's labels.

    Returns the per-layer table, ``{layer: cluster labels}`` for the figures, and
    ``{layer: {name: bootstrap draws}}`` (``n_boot`` each) of raw and per-cluster S_inter,
    per-cluster S_intra (resampling types) and the mean cosine LID (resampling the distinct
    sampled points), for :func:`check_values`.
    """

    keep = ~tokens.special_mask
    for position in exclude_positions:
        keep &= tokens.position != position
    rows = np.flatnonzero(keep)
    types = tokens.token_ids[rows]
    lid_rows = sample_indices(rows.size, lid_sample, stream_seed(seed, "lid-sample"))
    iso_rows = lid_rows
    records, labels_by_layer, draws = [], {}, {}
    for layer in tqdm(layers, desc="layers", disable=not progress):
        X = np.asarray(tokens.layer(layer))[rows]
        k, labels, scores = choose_k(X, sample=k_sample, seed=stream_seed(seed, "choose-k"))
        labels_by_layer[layer] = labels
        record = {"layer": layer, "relative_depth": layer / n_layers, "K": k,
                  "best silhouette": max(scores.values())}
        similarities = type_similarities(X, types, labels, max_instances,
                                         stream_seed(seed, "type-similarities"), n_boot)
        if restarts > 1 and k > 1:
            fits = [similarities] + [per_cluster_similarities(
                X, types, restart_labels(X, k, k_sample, stream_seed(seed, f"restart-{r}")),
                max_instances, stream_seed(seed, "type-similarities"), n_boot,
                boot_stream=f"bootstrap/restart-{r}") for r in range(1, restarts)]
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
        sample = np.unique(X[lid_rows], axis=0)
        record["LID points"] = sample.shape[0]
        record["LID euclidean"] = metrics.lid_mle(sample, k=lid_k, metric="euclidean")
        record["LID cosine"], pointwise = metrics.lid_mle(sample, k=lid_k, metric="cosine",
                                                          return_pointwise=True)
        draws[layer]["LID cosine draws"] = lid_mean_draws(
            pointwise, n_boot, stream_seed(seed, f"bootstrap/lid/layer{layer}"))
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
                    seed: int = 0) -> tuple[dict, Interval]:
    """What carries a decoder layer's clusters, with the position-0 tokens kept (the raw
    space, as the paper used it).

    K-means (:func:`choose_k`) on the layer's non-special tokens; returns a row of facts
    (K, the top-3 between-cluster and top-variance coordinates and their shares, how much of
    the smallest cluster is position 0) and the 95% interval of the top-3 between-cluster
    share (:func:`driver_share_draws`; 0 when one cluster is chosen).
    """
    keep = ~tokens.special_mask
    X = np.asarray(tokens.layer(layer))[keep]
    k, labels, _ = choose_k(X, sample=k_sample, seed=stream_seed(seed, "choose-k"))
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
                 np.ndarray]], n_boot: int, n_types: int) -> dict[str, tuple]:
    """The measured value and 95% interval of the per-layer claim-2 checks for one model.

    The paper's statements hold "in every layer", so each check reads the worst layer
    >= 1: the minimum raw S_inter; among the layers where K-means found clusters (K > 1),
    the largest |S_inter| after per-cluster centring minus |S_inter| after global centring
    (with K = 1 the two centrings are the same, so the comparison does not apply; it is
    None when no layer has K > 1); the minimum gap S_intra - S_inter; the largest ratio of
    a layer's LID to the smallest static LID. Per-layer bootstrap draws (from
    :func:`cluster_layer_stats`) are combined draw by draw: the minimum or maximum over
    layers of draw ``b`` is the statistic's draw ``b``. Raw S_inter resamples the same
    types in every layer; per-cluster values (clusters held fixed) and LID (the kNN
    neighbourhoods of the full sample held fixed) resample within each layer. S_intra and
    S_inter resample the types independently, so the gap's interval is wider than a paired
    one would be. ``static_lid`` maps each static space compared against to its mean
    cosine LID and its draws.
    """
    contextual = [int(layer) for layer in per_layer["layer"] if layer >= 1]
    if not contextual:
        raise ValueError("Claim 2's checks need at least one layer >= 1.")
    table = per_layer.set_index("layer").loc[contextual]

    def stack(name: str) -> np.ndarray:
        return np.stack([draws[layer][name] for layer in contextual], axis=1)

    raw = stack("S_inter raw draws")
    centred = stack("S_inter centred draws")
    inter = stack("S_inter per-cluster draws")
    intra = stack("S_intra per-cluster draws")
    lid = stack("LID cosine draws")
    static_names = list(static_lid)
    static_point = np.array([static_lid[n][0] for n in static_names])
    static_draws = np.stack([static_lid[n][1] for n in static_names], axis=1)
    gap = table["S_intra per-cluster"] - table["S_inter per-cluster"]
    per_cluster = (f"95% percentile bootstrap, B={n_boot} over the types of each cluster, "
                   "mixed over the K-means fits at the layer's K (every cluster in every "
                   "draw), per layer; clusters and layers combined draw by draw")
    clustered = (table["K"] > 1).to_numpy()
    closer = table["S_inter per-cluster"].abs() - table["S_inter centred"].abs()
    if clustered.any():
        local = (
            float(closer[clustered].max()),
            percentile_interval((np.abs(inter) - np.abs(centred))[:, clustered].max(axis=1),
                                method=per_cluster + "; global centring resampled "
                                "independently"),
            {"layer of the maximum": int(closer[clustered].idxmax()),
             "layers with K > 1": [int(x) for x in table.index[clustered]],
             "max |S_inter| per-cluster": float(table["S_inter per-cluster"].abs().max())})
    else:
        local = (None, None, {"layers with K > 1": []})
    return {
        "global-anisotropy": (
            float(table["S_inter raw"].min()),
            percentile_interval(raw.min(axis=1), method=boot_method(
                n_boot, n_types, "types (one instance each; the same resample in every "
                "layer)")),
            {"layer of the minimum": int(table["S_inter raw"].idxmin()),
             "median over layers": float(table["S_inter raw"].median())}),
        "local-isotropy": local,
        "intra-above-inter": (
            float(gap.min()), percentile_interval(
                np.min(intra - inter, axis=1),
                method=per_cluster + "; S_intra and S_inter resampled independently"),
            {"layer of the minimum": int(gap.idxmin())}),
        "lid-below-static": (
            float(table["LID cosine"].max() / static_point.min()),
            percentile_interval(lid.max(axis=1) / static_draws.min(axis=1), method=(
                f"95% percentile bootstrap, B={n_boot} over the sampled distinct points of "
                "each layer and each static space (kNN neighbourhoods of the full sample "
                "held fixed), combined draw by draw")),
            {"max layer LID": float(table["LID cosine"].max()),
             "min static LID": float(static_point.min()),
             "static space of the minimum": static_names[int(static_point.argmin())]}),
    }
