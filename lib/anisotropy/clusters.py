"""Clusters and manifolds in contextual spaces (Cai et al. 2021), from cached token vectors.

Everything here selects rows, clusters, and calls :mod:`anisotropy.metrics`:

- :func:`lm_windows`: WikiText-2 and PTB cut into fixed word windows;
- :func:`choose_k`: K-means with K picked by the best silhouette on a sample (K = 1 below a
  threshold), as the authors' code;
- :func:`type_similarities`: S_inter / S_intra raw, after global centring, and after
  per-cluster centring;
- :func:`cluster_drivers`: how much of the between-cluster scatter a few coordinates carry;
- :func:`manifold_indicators`: is a 3-D projection a thin rolled sheet?
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.sparse.csgraph import shortest_path
from sklearn.cluster import KMeans
from sklearn.neighbors import kneighbors_graph

from . import metrics

__all__ = ["lm_windows", "choose_k", "type_similarities", "cluster_drivers",
           "manifold_indicators", "pca_project", "type_frequencies", "token_kinds",
           "cluster_layer_stats", "static_space_lid"]


def lm_windows(window_words: int, n_windows: int | None, seed: int = 0) -> list[str]:
    """WikiText-2 and PTB (valid + test) concatenated per corpus and cut into word windows.

    A seeded sample of ``n_windows`` windows (all when None), in corpus order.
    """
    from . import data  # noqa: PLC0415

    windows = []
    for frame in (data.wikitext2("valid"), data.wikitext2("test"), data.ptb("valid"),
                  data.ptb("test")):
        windows += data.word_windows(frame["text"].tolist(), window_words)
    windows = [w for w in windows if len(w.split()) == window_words]  # drop short tails
    if n_windows is None or n_windows >= len(windows):
        return windows
    rng = np.random.default_rng(seed)
    return [windows[i] for i in sorted(rng.choice(len(windows), n_windows, replace=False))]


def pca_project(X: np.ndarray, n_components: int) -> np.ndarray:
    """Project centred rows on their top principal directions (float64)."""
    X = np.asarray(X, dtype=np.float64)
    centred = X - X.mean(axis=0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    return centred @ vt[:n_components].T


def choose_k(X: np.ndarray, k_range=range(2, 16), sample: int = 2000, threshold: float = 0.1,
             seed: int = 0, n_init: int = 1) -> tuple[int, np.ndarray, dict]:
    """Pick K for K-means by the best silhouette on a sample; K = 1 below ``threshold``.

    Each K in ``k_range`` is fitted on a seeded sample of at most ``sample`` rows (the
    authors use 20,000) and scored by :func:`anisotropy.metrics.silhouette` on that sample.
    The chosen model labels all rows.

    Returns
    -------
    k : int
    labels : int array, one per row of ``X``
    scores : dict K -> silhouette
    """
    X = metrics.check_embeddings(X)
    rng = np.random.default_rng(seed)
    rows = rng.choice(X.shape[0], size=min(sample, X.shape[0]), replace=False)
    S = np.asarray(X[rows], dtype=np.float32)
    scores, fitted = {}, {}
    for k in k_range:
        if k >= S.shape[0]:
            break
        model = KMeans(n_clusters=k, n_init=n_init, random_state=seed).fit(S)
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


def _similarities(X: np.ndarray, types: np.ndarray, max_instances: int, seed: int):
    if np.unique(types).size < 2:
        return float("nan"), float("nan")
    inter = metrics.inter_type_similarity(X, types, seed=seed)
    try:
        intra = metrics.intra_type_similarity(X, types, max_instances=max_instances, seed=seed)
    except ValueError:  # no type with two instances
        intra = float("nan")
    return inter, intra


def type_similarities(X: np.ndarray, types: np.ndarray, labels: np.ndarray,
                      max_instances: int = 1000, seed: int = 0) -> dict[str, float]:
    """S_inter and S_intra raw, after global centring, and after per-cluster centring.

    Per-cluster values are computed inside each cluster (on its centred vectors, with the
    types present there) and averaged over clusters weighted by cluster size; clusters with
    fewer than 2 types are skipped.
    """
    X = np.asarray(metrics.check_embeddings(X), dtype=np.float64)
    out = {}
    out["S_inter raw"], out["S_intra raw"] = _similarities(X, types, max_instances, seed)
    centred = X - X.mean(axis=0)
    out["S_inter centred"], out["S_intra centred"] = _similarities(centred, types,
                                                                   max_instances, seed)
    inter, intra, weights = [], [], []
    for cluster in np.unique(labels):
        rows = labels == cluster
        if np.unique(types[rows]).size < 2:
            continue
        members = X[rows] - X[rows].mean(axis=0)
        a, b = _similarities(members, types[rows], max_instances, seed)
        inter.append(a)
        intra.append(b)
        weights.append(rows.sum())
    weights = np.asarray(weights, dtype=float)
    intra_arr = np.asarray(intra)
    ok = np.isfinite(intra_arr)
    out["S_inter per-cluster"] = float(np.average(inter, weights=weights)) if inter else np.nan
    out["S_intra per-cluster"] = (float(np.average(intra_arr[ok], weights=weights[ok]))
                                  if ok.any() else np.nan)
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


def manifold_indicators(P: np.ndarray, n_neighbors: int = 10, sample: int = 1500,
                        seed: int = 0) -> dict:
    """Two numbers that tell a rolled sheet from a blob in a low-dimensional projection.

    - ``lid``: the MLE local dimension of the projected points (k = ``n_neighbors``); about 2
      for a sheet, about 3 for a solid 3-D cloud;
    - ``geodesic_ratio``: the 90th percentile over point pairs of the shortest-path
      distance in the kNN graph divided by the straight-line distance. It stays near 1 for a
      flat, convex or gently bent cloud (about 1.1-1.3) and is far above 1 when the sheet is
      rolled up, because points on neighbouring turns are close in space but far along the
      sheet (about 5 for the textbook Swiss roll).
    """
    P = metrics.check_embeddings(P, min_points=n_neighbors + 2)
    rng = np.random.default_rng(seed)
    rows = rng.choice(P.shape[0], size=min(sample, P.shape[0]), replace=False)
    Q = np.asarray(P[rows], dtype=np.float64)
    lid = metrics.lid_mle(Q, k=n_neighbors)
    graph = kneighbors_graph(Q, n_neighbors=n_neighbors, mode="distance")
    geodesic = shortest_path(graph, directed=False)
    euclidean = np.linalg.norm(Q[:, None, :] - Q[None, :, :], axis=-1)
    upper = np.triu_indices(Q.shape[0], k=1)
    finite = np.isfinite(geodesic[upper]) & (euclidean[upper] > 0)
    ratio = geodesic[upper][finite] / euclidean[upper][finite]
    return {"lid": float(lid), "geodesic_ratio": float(np.percentile(ratio, 90)),
            "connected_share": float(finite.mean())}


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
                        seed: int = 0, progress: bool = True) -> tuple[pd.DataFrame, dict]:
    """Per-layer S_inter/S_intra (raw, centred, per cluster), K, IsoScore, LID, drivers.

    Types are token ids; special tokens and ``exclude_positions`` are dropped.

    Returns the per-layer table and ``{layer: cluster labels}`` for the figures.
    """
    from tqdm.auto import tqdm  # noqa: PLC0415

    keep = ~tokens.special_mask
    for position in exclude_positions:
        keep &= tokens.position != position
    rows = np.flatnonzero(keep)
    types = tokens.token_ids[rows]
    rng = np.random.default_rng(seed)
    lid_rows = rng.choice(rows.size, size=min(lid_sample, rows.size), replace=False)
    iso_rows = lid_rows
    records, labels_by_layer = [], {}
    for layer in tqdm(layers, desc="layers", disable=not progress):
        X = np.asarray(tokens.layer(layer))[rows]
        k, labels, scores = choose_k(X, sample=k_sample, seed=seed)
        labels_by_layer[layer] = labels
        record = {"layer": layer, "relative_depth": layer / n_layers, "K": k,
                  "best silhouette": max(scores.values())}
        record.update(type_similarities(X, types, labels, max_instances, seed))
        record["isoscore"] = metrics.isoscore(X[iso_rows])
        # LID is a property of the point set: repeated vectors (layer 0 gives every
        # occurrence of a type the same vector, the decoder's with no position at all) are
        # counted once, as in static_space_lid.
        sample = np.unique(X[lid_rows], axis=0)
        record["LID points"] = sample.shape[0]
        record["LID euclidean"] = metrics.lid_mle(sample, k=lid_k, metric="euclidean")
        record["LID cosine"] = metrics.lid_mle(sample, k=lid_k, metric="cosine")
        drivers = cluster_drivers(X, labels)
        record.update({"top-3 variance dims": drivers["top_variance_dims"],
                       "top-3 variance share": drivers["top_variance_share"],
                       "top-3 between-cluster dims": drivers["top_between_dims"],
                       "top-3 between-cluster share": drivers["top_between_share"]})
        records.append(record)
    return pd.DataFrame(records), labels_by_layer


def static_space_lid(vectors: np.ndarray, sample: int = 5000, k: int = 100,
                     seed: int = 0) -> dict[str, float]:
    """LID (Euclidean and cosine) of a seeded sample of distinct static vectors."""
    vectors = np.unique(np.asarray(vectors, dtype=np.float32), axis=0)
    rng = np.random.default_rng(seed)
    rows = rng.choice(vectors.shape[0], size=min(sample, vectors.shape[0]), replace=False)
    X = vectors[rows]
    return {"n": int(X.shape[0]), "dim": int(X.shape[1]),
            "LID euclidean": metrics.lid_mle(X, k=k, metric="euclidean"),
            "LID cosine": metrics.lid_mle(X, k=k, metric="cosine")}
