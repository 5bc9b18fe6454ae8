"""Cluster-based isotropy enhancement against global methods on STS (Rajaee & Pilehvar 2021).

Token vectors of one layer are transformed (fitted on the evaluation sentences, or on other
sentences), mean-pooled into sentence vectors and compared by cosine. For each task and
method this gives Pearson/Spearman x 100 and the isotropy of the transformed token vectors:
``log10 I(W)`` (:func:`anisotropy.geometry.metrics.partition_isotropy`) and IsoScore.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from anisotropy.claims.sts import (
    cosine_scores,
    evaluate_sts,
    mean_change_interval,
    spearman_change_draws,
)
from anisotropy.geometry import metrics
from anisotropy.geometry.intervals import seed_interval
from anisotropy.geometry.sampling import sample_indices
from anisotropy.geometry.transforms import AllButTheTop, Center, ClusterIsotropy
from anisotropy.inputs.tasks import sts_task

__all__ = ["METHODS", "fit_methods", "evaluate_methods",
           "sweep", "check_values"]

METHODS = ("Baseline", "Mean", "Mean+PCA", "K-means+Mean", "GMM+Mean+PCA", "K-means+Mean+PCA")


def _sample(X: np.ndarray, limit: int | None, seed: int) -> np.ndarray:
    if limit is None or X.shape[0] <= limit:
        return X
    return X[sample_indices(X.shape[0], limit, seed, sort=True)]


def fit_methods(X: np.ndarray, n_clusters: int, n_components: int, seed: int = 0,
                max_tokens: int | None = 10000, methods=METHODS) -> dict:
    """Fit every method of the comparison on (a seeded sample of) token vectors ``X``.

    K-means+Mean reuses the K-means+Mean+PCA clustering with no direction removed.
    """
    S = _sample(np.asarray(X, dtype=np.float64), max_tokens, seed)
    fitted = {"Baseline": None}
    if "Mean" in methods:
        fitted["Mean"] = Center().fit(S)
    if "Mean+PCA" in methods:
        fitted["Mean+PCA"] = AllButTheTop(n_components).fit(S)
    if "K-means+Mean+PCA" in methods or "K-means+Mean" in methods:
        kmeans = ClusterIsotropy(n_clusters, n_components, "kmeans", seed, n_init=1).fit(S)
        fitted["K-means+Mean+PCA"] = kmeans
        fitted["K-means+Mean"] = kmeans.with_components(0)
    if "GMM+Mean+PCA" in methods:
        fitted["GMM+Mean+PCA"] = ClusterIsotropy(n_clusters, n_components, "gmm", seed).fit(S)
    return {name: fitted[name] for name in methods if name in fitted}


def _score(transform, X: np.ndarray, tokens, rows: np.ndarray, frame: pd.DataFrame,
           index: dict, iso_max_tokens: int, seed: int, pairs_out: list | None = None) -> dict:
    Y = X if transform is None else transform.transform(X)
    ids, means = tokens.pool(Y, rows)
    where = dict(zip(ids.tolist(), range(ids.size), strict=True))
    pooled = {sentence: means[where[sentence]] for sentence in where}
    a = np.stack([pooled[index[s]] for s in frame["sentence1"]])
    b = np.stack([pooled[index[s]] for s in frame["sentence2"]])
    scores = evaluate_sts(a, b, frame["score"], frame["subset"])
    if pairs_out is not None:
        pairs_out.append(cosine_scores(a, b))
    sample = _sample(Y, iso_max_tokens, seed)
    return {"pearson": scores["pearson_all"], "spearman": scores["spearman_all"],
            "spearman_mean": scores["spearman_mean"],
            "log10 I(W)": metrics.partition_isotropy(sample).log10,
            "isoscore": metrics.isoscore(sample)}


def evaluate_methods(tokens, layer: int, sentences: list[str], tasks, *, mode: str,
                     n_clusters: int = 27, n_components: int = 12, seed: int = 0,
                     exclude_positions=(), fit_max_tokens: int | None = 10000,
                     iso_max_tokens: int = 20000, methods=METHODS,
                     max_pairs: int | None = None, progress: bool = True,
                     pair_scores: dict | None = None) -> pd.DataFrame:
    """Every method on every STS task; one row per (task, method).

    With ``pair_scores`` (a dict), each pair's cosine is stored under ``(task, method)``
    and the gold scores under ``(task, "gold")``, for paired bootstrap intervals.

    ``mode="transductive"`` fits each method on the task's own token vectors (as the
    authors' notebook does on STS-B dev); ``mode="inductive"`` fits it on the token vectors
    of the sentences of the *other* tasks in ``tasks`` that do not occur in this one, each
    sentence once, and applies it to this one. STS tasks share many sentences (three in
    four STS-B test sentences occur verbatim in STS12-16), and a sentence is one row of the
    shared index whatever task it comes from, so without the exclusion the inductive fit
    would see the evaluation sentences. Inductive rows record ``fit pool`` (the sentences
    the fit may draw from), ``fit sentences`` (those with a token in the sampled fit rows),
    ``fit overlap`` (of those, the ones that occur in the scored task, read from the rows
    actually fitted: must be 0) and ``excluded shared`` (sentences of other tasks left out
    because this task has them).
    """

    if mode not in ("transductive", "inductive"):
        raise ValueError(f"mode must be 'transductive' or 'inductive', got {mode!r}.")
    index = {sentence: i for i, sentence in enumerate(sentences)}
    H = np.asarray(tokens.layer(layer))
    frames, rows_of, ids_of = {}, {}, {}
    for task in tasks:
        frames[task] = sts_task(task, max_pairs, seed)
        ids_of[task] = np.array(sorted({index[s] for s in frames[task]["sentence1"]}
                                       | {index[s] for s in frames[task]["sentence2"]}))
        rows_of[task] = tokens.sentence_rows(ids_of[task], exclude_positions)
    records = []
    for task in tqdm(tasks, desc=f"{mode} fits", disable=not progress):
        X = H[rows_of[task]].astype(np.float64)
        fit_facts = {}
        if mode == "transductive":
            fit_X = X
        else:
            others = [ids_of[t] for t in tasks if t != task]
            if not others:
                raise ValueError("The inductive mode needs at least two tasks: each is fitted "
                                 "on the others.")
            pooled = np.unique(np.concatenate(others))  # a shared sentence counts once
            fit_ids = np.setdiff1d(pooled, ids_of[task])
            if fit_ids.size == 0:
                raise ValueError(f"No sentence of the other tasks is left to fit {task} on.")
            fit_rows = tokens.sentence_rows(fit_ids, exclude_positions)
            fit_rows = _sample(fit_rows[:, None], fit_max_tokens, seed)[:, 0]
            fit_X = H[fit_rows].astype(np.float64)
            fitted_ids = np.unique(tokens.sentence_index[fit_rows])
            fit_facts = {"fit pool": int(fit_ids.size), "fit sentences": int(fitted_ids.size),
                         "fit overlap": int(np.intersect1d(fitted_ids, ids_of[task]).size),
                         "excluded shared": int(pooled.size - fit_ids.size)}
        fitted = fit_methods(fit_X, n_clusters, n_components, seed, fit_max_tokens, methods)
        for name, transform in fitted.items():
            cosines = [] if pair_scores is not None else None
            records.append({"task": task, "method": name, "mode": mode, **fit_facts,
                            **_score(transform, X, tokens, rows_of[task], frames[task], index,
                                     iso_max_tokens, seed, cosines)})
            if pair_scores is not None:
                pair_scores[(task, name)] = cosines[0]
                pair_scores[(task, "gold")] = frames[task]["score"].to_numpy()
    return pd.DataFrame(records)


def check_values(comparison: pd.DataFrame, pair_scores: dict, tasks, n_boot: int = 1000,
                 seed: int = 0, method: str = "K-means+Mean+PCA",
                 global_methods=("Mean", "Mean+PCA")) -> dict[str, tuple]:
    """Measured value and 95% interval of the claim-4 checks for one model (transductive).

    - ``isotropy-gain``: mean over tasks of the log10 I(W) gain of ``method`` over the
      baseline; a t-interval over the tasks (the claim is about tasks; with 7 tasks a
      percentile bootstrap would under-cover). The token sample behind each I(W) is held
      fixed.
    - ``sts-improves``: mean over tasks of the Spearman change; paired bootstrap over each
      task's sentence pairs (:func:`anisotropy.claims.sts.spearman_change_draws`).
    - ``beats-global``: the same against the best global method, chosen by its mean
      Spearman over tasks.
    """
    part = comparison[(comparison["mode"] == "transductive") & comparison["task"].isin(tasks)]
    wide = part.pivot(index="task", columns="method", values=["spearman", "log10 I(W)"])
    wide = wide.loc[list(tasks)]
    gains = (wide["log10 I(W)"][method] - wide["log10 I(W)"]["Baseline"]).to_numpy()
    best = max(global_methods, key=lambda m: wide["spearman"][m].mean())
    gold = {t: pair_scores[(t, "gold")] for t in tasks}
    n_pairs = {t: gold[t].size for t in tasks}

    def change(other: str):
        draws = {t: spearman_change_draws(pair_scores[(t, method)], pair_scores[(t, other)],
                                          gold[t], n_boot, seed) for t in tasks}
        value = float((wide["spearman"][method] - wide["spearman"][other]).mean())
        return value, mean_change_interval(draws, n_boot, n_pairs)

    improve, improve_interval = change("Baseline")
    beat, beat_interval = change(best)
    return {
        "isotropy-gain": (float(gains.mean()), seed_interval(
            gains, unit="STS tasks (the token sample behind each I(W) held fixed)"),
            {"per task": dict(zip(tasks, gains.tolist(), strict=True))}),
        "sts-improves": (improve, improve_interval, {
            "tasks improved": int((wide["spearman"][method] > wide["spearman"]["Baseline"]).sum()),
            "tasks": len(tasks)}),
        "beats-global": (beat, beat_interval, {"best global method": best,
                                               "its mean Spearman": float(
                                                   wide["spearman"][best].mean())}),
    }


def sweep(tokens, layer: int, sentences: list[str], task: str, cluster_counts, component_counts,
          *, seed: int = 0, exclude_positions=(), fit_max_tokens: int | None = 10000,
          iso_max_tokens: int = 20000, max_pairs: int | None = None) -> pd.DataFrame:
    """K-means+Mean+PCA over a grid of K and D on one task (transductive), one row per cell."""
    index = {sentence: i for i, sentence in enumerate(sentences)}
    frame = sts_task(task, max_pairs, seed)
    ids = np.array(sorted({index[s] for s in frame["sentence1"]}
                          | {index[s] for s in frame["sentence2"]}))
    rows = tokens.sentence_rows(ids, exclude_positions)
    X = np.asarray(tokens.layer(layer))[rows].astype(np.float64)
    S = _sample(X, fit_max_tokens, seed)
    records = []
    for k in cluster_counts:
        fitted = ClusterIsotropy(k, max(component_counts), "kmeans", seed, n_init=1).fit(S)
        for d in component_counts:
            records.append({"K": k, "D": d, **_score(fitted.with_components(d), X, tokens,
                                                     rows, frame, index, iso_max_tokens,
                                                     seed)})
    return pd.DataFrame(records)
