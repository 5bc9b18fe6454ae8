"""Cluster-based isotropy enhancement against global methods on STS (Rajaee & Pilehvar 2021).

Token vectors of one layer are transformed (fitted on the evaluation sentences, or on other
sentences), mean-pooled into sentence vectors and compared by cosine. For each task and
method this gives Pearson/Spearman x 100 and the isotropy of the transformed token vectors:
``log10 I(W)`` (:func:`anisotropy.geometry.metrics.partition_isotropy`) and IsoScore.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import norm, spearmanr
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from tqdm.auto import tqdm

from anisotropy.claims.base import CheckValue
from anisotropy.claims.cluster_isotropy.ids import (
    BEATS_GLOBAL,
    ISOTROPY_BEATS_GLOBAL,
    ISOTROPY_BEATS_GLOBAL_SHARE,
    ISOTROPY_END_STATE,
    ISOTROPY_GAIN,
    STS_IMPROVES,
)
from anisotropy.claims.sts import (
    cosine_scores,
    evaluate_sts,
    mean_change_interval,
    spearman_change_draws,
)
from anisotropy.geometry import metrics
from anisotropy.geometry.intervals import (
    Interval,
    boot_method,
    bootstrap_means,
    combine_independent,
    percentile_interval,
    seed_interval,
    spread_half_width,
)
from anisotropy.geometry.sampling import sample_indices
from anisotropy.geometry.streams import stream_seed, sub_seed, train_stream_seed
from anisotropy.geometry.transforms import AllButTheTop, Center, ClusterIsotropy
from anisotropy.inputs.tasks import classification_task, sts_task

__all__ = ["METHODS", "GLOBAL_METHODS", "KMEANS_N_INIT", "abtt_components", "fit_methods",
           "evaluate_methods", "sweep", "check_values", "task_changes", "every_task",
           "sst2_probe_data", "sst2_probe"]

#: The methods compared: the baseline, three global post-processings and the cluster-based
#: ones. "Mean+PCA" removes the same D directions as the cluster-based method, globally;
#: "ABTT" is all-but-the-top with Mu & Viswanath's D = dim/100.
METHODS = ("Baseline", "Mean", "Mean+PCA", "ABTT", "K-means+Mean", "GMM+Mean+PCA",
           "K-means+Mean+PCA")
GLOBAL_METHODS = ("Mean", "Mean+PCA", "ABTT")
#: K-means initialisations of the cluster-based methods (the authors' notebook: one).
KMEANS_N_INIT = 1


def abtt_components(dim: int) -> int:
    """All-but-the-top's D for a ``dim``-dimensional space: dim/100, at least 1 (Mu &
    Viswanath 2018 remove about d/100 directions).

    Parameters
    ----------
    dim : int
        The space's dimension.

    Returns
    -------
    int
        ``max(1, round(dim / 100))``.
    """
    return max(1, round(dim / 100))


def _sample(X: np.ndarray, limit: int | None, seed: int) -> np.ndarray:
    if limit is None or X.shape[0] <= limit:
        return X
    return X[sample_indices(X.shape[0], limit, seed, sort=True)]


def fit_methods(X: np.ndarray, n_clusters: int, n_components: int, seed: int = 0,
                max_tokens: int | None = 10000, methods=METHODS,
                train_seed: int | None = None) -> dict:
    """Fit every method of the comparison on (a seeded sample of) token vectors ``X``.

    The sample draws from ``seed`` (stream ``sample``); the K-means and mixture starts from
    ``train_seed`` (streams ``kmeans`` and ``gmm``; ``seed`` when ``None``).

    K-means+Mean reuses the K-means+Mean+PCA clustering with no direction removed; K-means
    runs :data:`KMEANS_N_INIT` initialisations, the Gaussian mixture the settings of
    :class:`~anisotropy.geometry.transforms.ClusterIsotropy`.

    Parameters
    ----------
    X : numpy.ndarray
        ``(n_tokens, dim)`` token vectors.
    n_clusters : int
        Clusters of the cluster-based methods (K).
    n_components : int
        Dominant directions removed per cluster, and globally by Mean+PCA (D).
    seed : int, optional
        Seed of the sample (stream ``sample``), and of the starts when ``train_seed`` is
        None.
    max_tokens : int or None, optional
        Rows the methods are fitted on, a seeded sample when ``X`` has more (10000 by
        default); None: every row.
    methods : sequence of str, optional
        The methods to fit, names of :data:`METHODS` (all of them by default).
    train_seed : int or None, optional
        Seed of the K-means and mixture starts (streams ``kmeans`` and ``gmm``).

    Returns
    -------
    dict
        ``{method: fitted transform}`` in the order of ``methods``; the Baseline's
        transform is None.
    """
    S = _sample(np.asarray(X, dtype=np.float64), max_tokens, stream_seed(seed, "sample"))
    fitted = {"Baseline": None}
    if "Mean" in methods:
        fitted["Mean"] = Center().fit(S)
    if "Mean+PCA" in methods:
        fitted["Mean+PCA"] = AllButTheTop(n_components).fit(S)
    if "ABTT" in methods:
        fitted["ABTT"] = AllButTheTop(abtt_components(S.shape[1])).fit(S)
    if "K-means+Mean+PCA" in methods or "K-means+Mean" in methods:
        kmeans = ClusterIsotropy(n_clusters, n_components, "kmeans",
                                 train_stream_seed(seed, train_seed, "kmeans"),
                                 n_init=KMEANS_N_INIT).fit(S)
        fitted["K-means+Mean+PCA"] = kmeans
        fitted["K-means+Mean"] = kmeans.with_components(0)
    if "GMM+Mean+PCA" in methods:
        fitted["GMM+Mean+PCA"] = ClusterIsotropy(n_clusters, n_components, "gmm",
                                                 train_stream_seed(seed, train_seed, "gmm")
                                                 ).fit(S)
    return {name: fitted[name] for name in methods if name in fitted}


def _pooled_pairs(Y: np.ndarray, tokens, rows: np.ndarray, frame: pd.DataFrame,
                  index: dict) -> tuple[np.ndarray, np.ndarray]:
    """The mean-pooled sentence vectors of each pair of ``frame``, from token vectors ``Y``
    (the rows ``rows`` of ``tokens``)."""
    ids, means = tokens.pool(Y, rows)
    where = dict(zip(ids.tolist(), range(ids.size), strict=True))
    pooled = {sentence: means[where[sentence]] for sentence in where}
    return (np.stack([pooled[index[s]] for s in frame["sentence1"]]),
            np.stack([pooled[index[s]] for s in frame["sentence2"]]))


def _score(transform, X: np.ndarray, tokens, rows: np.ndarray, frame: pd.DataFrame,
           index: dict, iso_max_tokens: int, seed: int, pairs_out: list | None = None) -> dict:
    Y = X if transform is None else transform.transform(X)
    a, b = _pooled_pairs(Y, tokens, rows, frame, index)
    scores = evaluate_sts(a, b, frame["score"], frame["subset"])
    if pairs_out is not None:
        pairs_out.append(cosine_scores(a, b))
    # I(W) and IsoScore on a sample of the transformed tokens (sorted rows): ``seed`` is the
    # task's, so every method of a task is measured on the same rows
    sample = _sample(Y, iso_max_tokens, seed)
    return {"pearson": scores["pearson_all"], "spearman": scores["spearman_all"],
            "spearman_mean": scores["spearman_mean"],
            "log10 I(W)": metrics.partition_isotropy(sample).log10,
            "isoscore": metrics.isoscore(sample)}


def _task_rows(tokens, index: dict[str, int], task: str, max_pairs: int | None,
               data_seed: int, exclude_positions=()) -> tuple:
    """One STS task's pairs (:func:`~anisotropy.inputs.tasks.sts_task`), the ids of its
    distinct sentences in ``index`` and their token rows (``exclude_positions`` dropped)."""
    frame = sts_task(task, max_pairs, data_seed)
    ids = np.array(sorted({index[s] for s in frame["sentence1"]}
                          | {index[s] for s in frame["sentence2"]}))
    return frame, ids, tokens.sentence_rows(ids, exclude_positions)


def _task_inputs(tokens, layer: int, sentences: list[str], tasks, mode: str,
                 max_pairs: int | None, data_seed: int, exclude_positions=()) -> tuple:
    """The check-once step of :func:`evaluate_methods`: ``mode`` checked, then what every
    task reads, ``(index, H, frames, ids_of, rows_of)``: each sentence's row in
    ``sentences``, the token vectors of ``layer`` and, per task, its pairs, the ids of its
    distinct sentences and their token rows (:func:`_task_rows`).

    Raises
    ------
    ValueError
        For an unknown ``mode``.
    """
    if mode not in ("transductive", "inductive"):
        raise ValueError(f"mode must be 'transductive' or 'inductive', got {mode!r}.")
    index = {sentence: i for i, sentence in enumerate(sentences)}
    H = np.asarray(tokens.layer(layer))
    frames, rows_of, ids_of = {}, {}, {}
    for task in tasks:
        frames[task], ids_of[task], rows_of[task] = _task_rows(
            tokens, index, task, max_pairs, data_seed, exclude_positions)
    return index, H, frames, ids_of, rows_of


def _inductive_fit(H: np.ndarray, tokens, task: str, tasks, ids_of: dict,
                   exclude_positions, fit_max_tokens: int | None,
                   seed: int) -> tuple[np.ndarray, dict]:
    """The token vectors :func:`evaluate_methods`' inductive mode fits the methods of
    ``task`` on, and the facts of that fit.

    The fit draws on the token vectors of the sentences of the *other* tasks in ``tasks``
    that do not occur in ``task``, each sentence once. STS tasks share many sentences (three
    in four STS-B test sentences occur verbatim in STS12-16), and a sentence is one row of
    the shared index whatever task it comes from, so without the exclusion the inductive
    fit would see the evaluation sentences. The rows are a seeded sample of at most
    ``fit_max_tokens`` (stream ``fit-sample/TASK`` under ``seed``).

    Returns
    -------
    fit_X : numpy.ndarray
        The sampled token vectors, float64.
    fit_facts : dict
        ``fit pool`` (the sentences the fit may draw from), ``fit sentences`` (those with a
        token in the sampled fit rows), ``fit overlap`` (of those, the ones that occur in the
        scored task, read from the rows actually fitted: must be 0) and ``excluded shared``
        (sentences of other tasks left out because this task has them).

    Raises
    ------
    ValueError
        With one task, or with no sentence of the other tasks left to fit on.
    """
    others = [ids_of[t] for t in tasks if t != task]
    if not others:
        raise ValueError("The inductive mode needs at least two tasks: each is fitted "
                         "on the others.")
    pooled = np.unique(np.concatenate(others))  # a shared sentence counts once
    fit_ids = np.setdiff1d(pooled, ids_of[task])
    if fit_ids.size == 0:
        raise ValueError(f"No sentence of the other tasks is left to fit {task} on.")
    fit_rows = tokens.sentence_rows(fit_ids, exclude_positions)
    fit_rows = _sample(fit_rows[:, None], fit_max_tokens,
                       stream_seed(seed, f"fit-sample/{task}"))[:, 0]
    fit_X = H[fit_rows].astype(np.float64)
    fitted_ids = np.unique(tokens.sentence_index[fit_rows])
    fit_facts = {"fit pool": int(fit_ids.size), "fit sentences": int(fitted_ids.size),
                 "fit overlap": int(np.intersect1d(fitted_ids, ids_of[task]).size),
                 "excluded shared": int(pooled.size - fit_ids.size)}
    return fit_X, fit_facts


def _method_records(fitted: dict, X: np.ndarray, tokens, rows: np.ndarray,
                    frame: pd.DataFrame, index: dict, task: str, mode: str, fit_facts: dict,
                    iso_max_tokens: int, seed: int, pair_scores: dict | None) -> list[dict]:
    """One record of :func:`evaluate_methods` per fitted method of ``task``: the method
    applied to the task's token vectors ``X`` and scored (:func:`_score`, its sample from
    stream ``iso-sample/TASK``), beside the fit's facts; with ``pair_scores``, each pair's
    cosine is stored under ``(task, method)`` and the gold scores under ``(task, "gold")``."""
    records = []
    for name, transform in fitted.items():
        cosines = [] if pair_scores is not None else None
        records.append({"task": task, "method": name, "mode": mode, **fit_facts,
                        **_score(transform, X, tokens, rows, frame, index,
                                 iso_max_tokens, stream_seed(seed, f"iso-sample/{task}"),
                                 cosines)})
        if pair_scores is not None:
            pair_scores[(task, name)] = cosines[0]
            pair_scores[(task, "gold")] = frame["score"].to_numpy()
    return records


def evaluate_methods(tokens, layer: int, sentences: list[str], tasks, *, mode: str,
                     n_clusters: int = 27, n_components: int = 12, seed: int = 0,
                     exclude_positions=(), fit_max_tokens: int | None = 10000,
                     iso_max_tokens: int = 20000, methods=METHODS,
                     max_pairs: int | None = None, progress: bool = True,
                     pair_scores: dict | None = None, data_seed: int = 0,
                     train_seed: int | None = None) -> pd.DataFrame:
    """Every method on every STS task; one row per (task, method).

    ``mode="transductive"`` fits each method on the task's own token vectors (as the
    authors' notebook does on STS-B dev); ``mode="inductive"`` fits it on those of the
    sentences of the *other* tasks in ``tasks`` that do not occur in this one and applies it
    to this one, its rows recording the fit's facts (:func:`_inductive_fit`: why, and what).

    Parameters
    ----------
    tokens : TokenEmbeddings
        The token vectors of ``sentences``, holding ``layer``.
    layer : int
        The layer transformed and pooled.
    sentences : list of str
        The sentences of ``tokens``, in order (the tasks' pairs are looked up in them).
    tasks : sequence of str
        The STS tasks; the inductive mode needs two or more.
    mode : {"transductive", "inductive"}
        Where each method is fitted (see above).
    n_clusters : int, optional
        K-means and mixture clusters (27 by default).
    n_components : int, optional
        Dominant directions removed (12 by default).
    seed : int, optional
        Seed of each task's streams (``fit-sample/TASK``, ``fit/TASK``, ``iso-sample/TASK``),
        and of the starts when ``train_seed`` is None.
    exclude_positions : tuple of int, optional
        Token positions left out of every sentence (``(0,)``: a decoder's first token).
    fit_max_tokens : int or None, optional
        Token vectors a method is fitted on, a seeded sample (10000 by default); None:
        every one.
    iso_max_tokens : int, optional
        Transformed token vectors I(W) and IsoScore are computed on (20000 by default).
    methods : sequence of str, optional
        The methods compared (:data:`METHODS` by default).
    max_pairs : int or None, optional
        Pairs sampled per task; None: every pair.
    progress : bool, optional
        Show a progress bar over the tasks.
    pair_scores : dict or None, optional
        Filled with each pair's cosine under ``(task, method)`` and the gold scores under
        ``(task, "gold")``, for paired bootstrap intervals; None: not kept.
    data_seed : int, optional
        Seed of the tasks' pairs (:func:`~anisotropy.inputs.tasks.sts_task`'s).
    train_seed : int or None, optional
        Seed of the clusterings' starts (stream ``fit/TASK`` under it).

    Returns
    -------
    pandas.DataFrame
        One row per (task, method): ``task``, ``method``, ``mode``, ``pearson``,
        ``spearman`` (pooled over the pairs, x 100), ``spearman_mean`` (mean over the
        task's subsets), ``log10 I(W)`` and ``isoscore``; inductive rows also the fit's
        facts.

    Raises
    ------
    ValueError
        For an unknown ``mode``, or in the inductive mode with one task or with no
        sentence of the other tasks left to fit on.
    """
    index, H, frames, ids_of, rows_of = _task_inputs(tokens, layer, sentences, tasks, mode,
                                                     max_pairs, data_seed, exclude_positions)
    records = []
    for task in tqdm(tasks, desc=f"{mode} fits", disable=not progress):
        X = H[rows_of[task]].astype(np.float64)
        fit_X, fit_facts = (X, {}) if mode == "transductive" else _inductive_fit(
            H, tokens, task, tasks, ids_of, exclude_positions, fit_max_tokens, seed)
        fitted = fit_methods(fit_X, n_clusters, n_components, stream_seed(seed, f"fit/{task}"),
                             fit_max_tokens, methods, sub_seed(train_seed, f"fit/{task}"))
        records.extend(_method_records(fitted, X, tokens, rows_of[task], frames[task], index,
                                       task, mode, fit_facts, iso_max_tokens, seed, pair_scores))
    return pd.DataFrame(records)


def _comparison_fit(own: pd.DataFrame, task: str, method: str, scored: tuple) -> dict:
    """Fit 0 of :func:`isotropy_fits` on ``task``: the row read from the comparison's own
    transductive rows ``own`` (indexed by task and method)."""
    return {"task": task, "fit": 0,
            "baseline": float(own.loc[(task, "Baseline"), "log10 I(W)"]),
            "method": float(own.loc[(task, method), "log10 I(W)"]),
            "global": max(float(own.loc[(task, g), "log10 I(W)"]) for g in GLOBAL_METHODS),
            **{f"spearman {name}": float(own.loc[(task, name), "spearman"])
               for name in scored}}


def _refit(X: np.ndarray, tokens, task_rows: np.ndarray, frame: pd.DataFrame, index: dict,
           task: str, fit: int, method: str, scored: tuple, baseline_spearman: float, *,
           n_clusters: int, n_components: int, seed: int, fit_max_tokens: int | None,
           iso_max_tokens: int, train_seed: int | None) -> dict:
    """Fit ``fit`` (1 or more) of :func:`isotropy_fits` on ``task``: the methods of
    ``scored`` fitted again on the task's token vectors ``X`` (stream ``fit/TASK/fit-N``),
    log10 I(W) on a redrawn sample (stream ``iso-sample/TASK/fit-N``) and the Spearman of
    ``method`` and each global method; the Baseline's Spearman, which no fit moves, is
    ``baseline_spearman``."""
    fitted = fit_methods(X, n_clusters, n_components,
                         stream_seed(seed, f"fit/{task}/fit-{fit}"), fit_max_tokens,
                         scored, sub_seed(train_seed, f"fit/{task}/fit-{fit}"))
    sample = _sample(X, iso_max_tokens, stream_seed(seed, f"iso-sample/{task}/fit-{fit}"))
    log10_iw = {name: metrics.partition_isotropy(fitted[name].transform(sample)).log10
                for name in (method, *GLOBAL_METHODS)}
    spearman = {name: evaluate_sts(*_pooled_pairs(fitted[name].transform(X), tokens,
                                                  task_rows, frame, index),
                                   frame["score"], frame["subset"])["spearman_all"]
                for name in (method, *GLOBAL_METHODS)}
    return {"task": task, "fit": fit,
            "baseline": metrics.partition_isotropy(sample).log10,
            "method": log10_iw[method],
            "global": max(log10_iw[g] for g in GLOBAL_METHODS),
            "spearman Baseline": baseline_spearman,
            **{f"spearman {name}": float(v) for name, v in spearman.items()}}


def isotropy_fits(tokens, layer: int, sentences: list[str], tasks, *, fits: int,
                  comparison: pd.DataFrame, n_clusters: int = 27, n_components: int = 12,
                  seed: int = 0, exclude_positions=(), fit_max_tokens: int | None = 10000,
                  iso_max_tokens: int = 20000, max_pairs: int | None = None,
                  data_seed: int = 0, method: str = "K-means+Mean+PCA",
                  progress: bool = True, train_seed: int | None = None) -> pd.DataFrame:
    """log10 I(W) of the Baseline, of ``method`` and of the most isotropic of the
    :data:`GLOBAL_METHODS` (column ``global``) per task and fit, transductive, and the
    Spearman x 100 of the baseline, ``method`` and each global method (columns
    ``spearman METHOD``), from which the STS checks take the spread between fits.

    Fit 0 is the comparison's own (:func:`evaluate_methods`, streams ``fit/TASK`` and
    ``iso-sample/TASK``), read from ``comparison``; fits 1 to ``fits - 1`` redraw what moves
    between runs: the tokens the method is fitted on, the K-means initialisation, and the
    tokens I(W) is measured on (streams ``fit/TASK/fit-N`` and ``iso-sample/TASK/fit-N``),
    so that an interval over fits covers them. One row per (task, fit).

    Parameters
    ----------
    tokens : TokenEmbeddings
        The token vectors of ``sentences``, holding ``layer``.
    layer : int
        The layer transformed and pooled.
    sentences : list of str
        The sentences of ``tokens``, in order.
    tasks : sequence of str
        The STS tasks.
    fits : int
        Fits per task, fit 0 included; below 2, only fit 0.
    comparison : pandas.DataFrame
        :func:`evaluate_methods`' rows; fit 0 is read from the transductive ones.
    n_clusters : int, optional
        K-means clusters (27 by default).
    n_components : int, optional
        Dominant directions removed (12 by default).
    seed : int, optional
        Seed of the samples' streams, and of the starts when ``train_seed`` is None.
    exclude_positions : tuple of int, optional
        Token positions left out of every sentence.
    fit_max_tokens : int or None, optional
        Token vectors a method is fitted on (10000 by default); None: every one.
    iso_max_tokens : int, optional
        Token vectors I(W) is computed on (20000 by default).
    max_pairs : int or None, optional
        Pairs sampled per task; None: every pair.
    data_seed : int, optional
        Seed of the tasks' pairs.
    method : str, optional
        The cluster-based method (``"K-means+Mean+PCA"`` by default).
    progress : bool, optional
        Show a progress bar over the tasks.
    train_seed : int or None, optional
        Seed of the clusterings' starts (stream ``fit/TASK/fit-N`` under it).

    Returns
    -------
    pandas.DataFrame
        One row per (task, fit): ``task``, ``fit``, ``baseline``, ``method`` and
        ``global`` (log10 I(W)), ``spearman Baseline``, ``spearman METHOD`` and
        ``spearman G`` for each global method G.
    """
    index = {sentence: i for i, sentence in enumerate(sentences)}
    H = np.asarray(tokens.layer(layer))
    own = comparison[comparison["mode"] == "transductive"].set_index(["task", "method"])
    scored = ("Baseline", method, *GLOBAL_METHODS)
    rows = []
    for task in tqdm(tasks, desc="isotropy fits", disable=not progress):
        rows.append(_comparison_fit(own, task, method, scored))
        if fits < 2:
            continue
        frame, _, task_rows = _task_rows(tokens, index, task, max_pairs, data_seed,
                                         exclude_positions)
        X = H[task_rows].astype(np.float64)
        baseline_spearman = rows[-1]["spearman Baseline"]  # no fit: the same in every fit
        rows.extend(_refit(X, tokens, task_rows, frame, index, task, fit, method, scored,
                           baseline_spearman, n_clusters=n_clusters, n_components=n_components,
                           seed=seed, fit_max_tokens=fit_max_tokens,
                           iso_max_tokens=iso_max_tokens, train_seed=train_seed)
                    for fit in range(1, fits))
    return pd.DataFrame(rows)


def fit_spread(fits: pd.DataFrame, tasks, method: str, other: str) -> list[np.ndarray]:
    """Per task (in the order of ``tasks``), the Spearman x 100 change of ``method`` over
    ``other`` in each fit of :func:`isotropy_fits`: the spread a rerun's refit gives.

    Parameters
    ----------
    fits : pandas.DataFrame
        :func:`isotropy_fits`' rows.
    tasks : sequence of str
        The tasks, in the order returned.
    method, other : str
        The methods compared: columns ``spearman METHOD`` of ``fits``.

    Returns
    -------
    list of numpy.ndarray
        One array per task, one change per fit.
    """
    return [(fits.loc[fits["task"] == t, f"spearman {method}"]
             - fits.loc[fits["task"] == t, f"spearman {other}"]).to_numpy() for t in tasks]


def with_fit_spread(value: float, pairs: Interval, changes: list[np.ndarray],
                    redrawn: str = "fit sample and K-means start redrawn") -> Interval:
    """``pairs`` (the paired bootstrap, fits held fixed) widened by the spread between
    refits of the method: one fit per task, averaged over the tasks of ``changes``
    (:func:`~anisotropy.geometry.intervals.spread_half_width`), half-widths added in
    quadrature (:func:`~anisotropy.geometry.intervals.combine_independent`).

    Parameters
    ----------
    value : float
        The measured change, the centre of the interval.
    pairs : Interval
        The paired bootstrap interval.
    changes : list of numpy.ndarray
        Per task, the change in each fit (:func:`fit_spread`).
    redrawn : str, optional
        What a refit redraws, for the interval's method text.

    Returns
    -------
    Interval
        Centred on ``value``, its half-width that of ``pairs`` and of the spread in
        quadrature.
    """
    half, df = spread_half_width(changes)
    spread = Interval(value - half, value + half,
                      f"t interval of one fit's change from {changes[0].size} fits per task "
                      f"({redrawn}; df = {df:.0f})")
    return combine_independent(value, pairs, spread)


def attainable_share(baseline_log10: np.ndarray, method_log10: np.ndarray) -> np.ndarray:
    """Share of the attainable gain in log10 I(W): ``(m - b) / (0 - b) = 1 - m / b``.

    I(W) <= 1 (Mu & Viswanath 2018), so from a baseline ``b = log10 I(W) < 0`` at most
    ``-b`` orders of magnitude can be gained; 1 means perfectly isotropic after the method,
    0 no gain, negative a loss. A baseline at 0 (already isotropic) has nothing to gain and
    is refused.

    Parameters
    ----------
    baseline_log10 : numpy.ndarray
        ``b``: log10 I(W) before the method; every value below 0.
    method_log10 : numpy.ndarray
        ``m``: log10 I(W) after it.

    Returns
    -------
    numpy.ndarray
        ``1 - m / b``, float64, elementwise.

    Raises
    ------
    ValueError
        If a baseline is at or above 0.
    """
    b = np.asarray(baseline_log10, dtype=np.float64)
    m = np.asarray(method_log10, dtype=np.float64)
    if (b >= 0).any():
        raise ValueError(f"A baseline log10 I(W) of {b.max():g} leaves no gain to attain "
                         "(I(W) is at most 1); the share is undefined.")
    return 1.0 - m / b


def isotropy_check_values(fits: pd.DataFrame, tasks) -> dict[str, CheckValue]:
    """The isotropy checks of one model, from :func:`isotropy_fits`:

    - ``isotropy-gain`` (a finding): the smallest share of the attainable gain over the
      tasks (:func:`attainable_share`), per fit;
    - ``isotropy-end-state``: the smallest I(W) the method ends at over the tasks, per fit;
    - ``isotropy-beats-global``: the smallest difference, over the tasks, of log10 I(W)
      of the method minus that of the most isotropic global method, per fit (above 0: the
      method is more isotropic on every task);
    - ``isotropy-beats-global-share`` (a finding): the smallest share, over the tasks, of
      the gain still attainable after the most isotropic global method that the method
      attains (:func:`attainable_share` from the global method's log10 I(W)), per fit.

    Parameters
    ----------
    fits : DataFrame
        :func:`isotropy_fits`' rows (``task, fit, baseline, method, global``, log10 I(W)).
    tasks : sequence of str
        The tasks graded; the worst of them is taken in each fit.

    Returns
    -------
    dict of str to CheckValue
        ``{check id: CheckValue}`` (value, Interval, details): each value the mean over fits with a
        t-interval over fits (fits are independent draws of the fit sample, the
        initialisation and the measured tokens), the paper's numbers being the smallest
        over its tasks.
    """
    part = fits[fits["task"].isin(list(tasks))]
    share = part.assign(share=attainable_share(part["baseline"], part["method"]),
                        end=10 ** part["method"],
                        above=part["method"] - part["global"],
                        over=attainable_share(part["global"], part["method"]))
    columns = ["share", "end", "above", "over"]
    per_fit = share.groupby("fit")[columns].min()
    per_task = share.groupby("task")[columns].mean().loc[list(tasks)]
    unit = (f"fits of the method per task (fit sample, K-means initialisation and measured "
            f"tokens redrawn), over {len(tasks)} tasks")
    n_fits = int(per_fit.shape[0])
    global_log10 = share.groupby("task")["global"].mean().loc[list(tasks)].to_dict()

    def value(column: str, **details) -> CheckValue:
        return CheckValue(float(per_fit[column].mean()),
                          seed_interval(per_fit[column], unit=unit),
                          {"worst task": str(per_task[column].idxmin()),
                           "per task": per_task[column].to_dict(), **details,
                           "fits": n_fits})

    return {
        ISOTROPY_GAIN: value("share", **{"baseline log10 I(W) per task": share.groupby(
            "task")["baseline"].mean().loc[list(tasks)].to_dict()}),
        ISOTROPY_END_STATE: value("end"),
        ISOTROPY_BEATS_GLOBAL: value("above", **{
            "best global log10 I(W) per task": global_log10}),
        ISOTROPY_BEATS_GLOBAL_SHARE: value("over", **{
            "best global log10 I(W) per task": global_log10}),
    }


def check_values(comparison: pd.DataFrame, pair_scores: dict, tasks, n_boot: int = 1000,
                 seed: int = 0, method: str = "K-means+Mean+PCA",
                 global_methods=GLOBAL_METHODS, fits: pd.DataFrame | None = None
                 ) -> dict[str, CheckValue]:
    """Measured value and 95% interval of the claim-4 STS checks for one model
    (transductive); the isotropy checks are :func:`isotropy_check_values`'.

    - ``sts-improves``: mean over tasks of the Spearman change; paired bootstrap over each
      task's sentence pairs (:func:`anisotropy.claims.sts.spearman_change_draws`).
    - ``beats-global``: the same against the best global method, chosen by its mean
      Spearman over tasks.

    Each task's pairs are resampled from its own stream ``bootstrap/TASK`` under ``seed``.
    With ``fits`` (:func:`isotropy_fits`), the interval also holds the spread between refits
    of the method (:func:`with_fit_spread`): the method is fitted on the sentences it
    scores, from a sample and a K-means start that a rerun redraws.

    Parameters
    ----------
    comparison : pandas.DataFrame
        :func:`evaluate_methods`' rows; the transductive ones of ``tasks`` are read.
    pair_scores : dict
        The per-pair cosines and gold scores :func:`evaluate_methods` stored.
    tasks : sequence of str
        The tasks averaged over.
    n_boot : int, optional
        Bootstrap resamples (1000 by default).
    seed : int, optional
        Seed of the bootstrap streams.
    method : str, optional
        The cluster-based method (``"K-means+Mean+PCA"`` by default).
    global_methods : sequence of str, optional
        The global methods the best is chosen from (:data:`GLOBAL_METHODS` by default).
    fits : pandas.DataFrame or None, optional
        :func:`isotropy_fits`' rows, to widen the intervals; None: the bootstrap alone.

    Returns
    -------
    dict of str to CheckValue
        ``{check id: CheckValue}`` (value, Interval, details) for ``sts-improves`` (details: the
        tasks improved and the tasks) and ``beats-global`` (details: the best global
        method, its mean Spearman and each global method's).
    """
    part = comparison[(comparison["mode"] == "transductive") & comparison["task"].isin(tasks)]
    wide = part.pivot(index="task", columns="method", values=["spearman", "log10 I(W)"])
    wide = wide.loc[list(tasks)]
    best = max(global_methods, key=lambda m: wide["spearman"][m].mean())
    gold = {t: pair_scores[(t, "gold")] for t in tasks}
    n_pairs = {t: gold[t].size for t in tasks}

    def change(other: str):
        draws = {t: spearman_change_draws(pair_scores[(t, method)], pair_scores[(t, other)],
                                          gold[t], n_boot, stream_seed(seed, f"bootstrap/{t}"))
                 for t in tasks}
        value = float((wide["spearman"][method] - wide["spearman"][other]).mean())
        interval = mean_change_interval(draws, n_boot, n_pairs)
        if fits is not None:
            interval = with_fit_spread(value, interval, fit_spread(fits, tasks, method, other))
        return value, interval

    improve, improve_interval = change("Baseline")
    beat, beat_interval = change(best)
    return {
        STS_IMPROVES: CheckValue(improve, improve_interval, {
            "tasks improved": int((wide["spearman"][method] > wide["spearman"]["Baseline"]).sum()),
            "tasks": len(tasks)}),
        BEATS_GLOBAL: CheckValue(beat, beat_interval, {
            "best global method": best,
            "its mean Spearman": float(wide["spearman"][best].mean()),
            "mean Spearman of each global method": {
                m: float(wide["spearman"][m].mean()) for m in global_methods}}),
    }


def task_changes(pair_scores: dict, tasks, n_boot: int = 1000, seed: int = 0,
                 method: str = "K-means+Mean+PCA", fits: pd.DataFrame | None = None
                 ) -> dict[str, CheckValue]:
    """Per task: the Spearman x 100 change of ``method`` over the baseline and its 95%
    paired bootstrap interval over the task's sentence pairs ("improves all seven tasks"
    is graded task by task), with ``fits`` widened by the spread between refits of the
    method on the task (:func:`with_fit_spread`).

    Parameters
    ----------
    pair_scores : dict
        The per-pair cosines and gold scores :func:`evaluate_methods` stored.
    tasks : sequence of str
        The tasks.
    n_boot : int, optional
        Bootstrap resamples (1000 by default).
    seed : int, optional
        Seed of the bootstrap (stream ``bootstrap/TASK`` per task).
    method : str, optional
        The cluster-based method (``"K-means+Mean+PCA"`` by default).
    fits : pandas.DataFrame or None, optional
        :func:`isotropy_fits`' rows, to widen the intervals; None: the bootstrap alone.

    Returns
    -------
    dict of str to CheckValue
        ``{task: CheckValue}`` (change, Interval, None).
    """
    out = {}
    for task in tasks:
        gold = pair_scores[(task, "gold")]
        draws = spearman_change_draws(pair_scores[(task, method)],
                                      pair_scores[(task, "Baseline")], gold, n_boot,
                                      stream_seed(seed, f"bootstrap/{task}"))
        change = 100 * (spearmanr(pair_scores[(task, method)], gold)[0]
                        - spearmanr(pair_scores[(task, "Baseline")], gold)[0])
        interval = mean_change_interval({task: draws}, n_boot, {task: gold.size})
        if fits is not None:
            interval = with_fit_spread(float(change), interval,
                                       fit_spread(fits, [task], method, "Baseline"))
        out[task] = CheckValue(float(change), interval, None)
    return out


def sst2_probe_data(n_train: int | None, min_words: int = 3, seed: int = 0) -> dict:
    """The SST-2 probe's sentences: a seeded sample of ``n_train`` training phrases (None:
    all of them) of at least ``min_words`` words (the training set also holds one- and
    two-word phrases), then every dev sentence. Returns ``sentences``, ``n_train``,
    ``train_labels``, ``dev_labels``.

    Parameters
    ----------
    n_train : int or None
        Training phrases sampled; None (or more than there are): all of them.
    min_words : int, optional
        Fewest whitespace-separated words of a training phrase (3 by default).
    seed : int, optional
        The data seed; the sample draws from its stream ``corpus/sst2``.

    Returns
    -------
    dict
        ``sentences`` (list of str: the sampled training phrases in corpus order, then the
        dev sentences), ``n_train`` (int: the training phrases taken), ``train_labels``
        and ``dev_labels`` (arrays).
    """
    train = classification_task("sst2")
    dev = classification_task("sst2-dev")
    long_enough = np.flatnonzero([len(s.split()) >= min_words for s in train["sentences"]])
    chosen = long_enough[sample_indices(long_enough.size, n_train,
                                        stream_seed(seed, "corpus/sst2"), sort=True)]
    return {"sentences": [train["sentences"][i] for i in chosen] + dev["sentences"],
            "n_train": int(chosen.size), "train_labels": train["targets"][chosen],
            "dev_labels": dev["targets"]}


def _probe_accuracy(pooled_train: np.ndarray, train_labels, pooled_dev: np.ndarray,
                    dev_labels) -> np.ndarray:
    """Whether each dev sentence is classified right by a logistic regression trained on
    the standardised training sentence vectors (the methods change the scale of the
    vectors, and an unscaled L2-penalised logistic regression would read that)."""
    classifier = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)).fit(
        pooled_train, train_labels)
    return classifier.predict(pooled_dev) == np.asarray(dev_labels)


def _probe_methods(fitted: dict, tokens, parts: dict, train_labels, dev_labels,
                   iso_max_tokens: int, seed: int) -> tuple[list[dict], dict, dict]:
    """The probe of :func:`sst2_probe` with each method of ``fitted``: the method applied to
    the training and the dev tokens of ``parts`` (``{part: (rows, vectors)}``), mean-pooled
    into sentence vectors, the classifier trained and scored (:func:`_probe_accuracy`), and
    log10 I(W) of a sample of the dev tokens (stream ``iso-sample``). Returns ``(rows,
    correct, pooled_of)``: one row per method, whether each dev sentence is classified right
    per method, and per method and part the pooled sentence vectors and the token vectors."""
    rows, correct, pooled_of = [], {}, {}
    for name, transform in fitted.items():
        pooled = {}
        for part, (part_rows, X) in parts.items():
            Y = X if transform is None else transform.transform(X)
            pooled[part] = (tokens.pool(Y, part_rows)[1], Y)
        pooled_of[name] = pooled
        correct[name] = _probe_accuracy(pooled["train"][0], train_labels, pooled["dev"][0],
                                        dev_labels)
        sample = _sample(pooled["dev"][1], iso_max_tokens, stream_seed(seed, "iso-sample"))
        rows.append({"method": name, "dev accuracy": 100 * float(correct[name].mean()),
                     "log10 I(W) dev tokens": metrics.partition_isotropy(sample).log10})
    return rows, correct, pooled_of


def _paired_change(difference: np.ndarray, n_boot: int, seed: int, unit: str) -> CheckValue:
    """The mean of a per-sentence ``difference`` (1 right, -1 wrong, 0 the same) in points,
    with its paired bootstrap over the dev sentences (stream ``bootstrap/dev``)."""
    change = 100 * float(difference.mean())
    draws = 100 * bootstrap_means(difference, n_boot, stream_seed(seed, "bootstrap/dev"))[:, 0]
    interval = percentile_interval(draws, method=boot_method(n_boot, difference.size, unit))
    return CheckValue(change, interval, {"dev sentences": int(difference.size)})


def _probe_change(correct: dict, method: str, n_boot: int, seed: int) -> CheckValue:
    """The ``sst2-probe`` check of :func:`sst2_probe` from ``correct`` (whether each dev
    sentence is classified right, per method): the accuracy change of ``method`` over the
    Baseline in points, with a paired bootstrap over the dev sentences (stream
    ``bootstrap/dev``; the classifiers held fixed); its details give the dev sentences."""
    difference = correct[method].astype(float) - correct["Baseline"].astype(float)
    return _paired_change(difference, n_boot, seed,
                          "dev sentences (paired; classifiers held fixed)")


def _with_refits(check: CheckValue, correct: dict, tokens, H: np.ndarray,
                 train_rows: np.ndarray, parts: dict, baseline: dict, train_labels,
                 dev_labels, n_train: int, refits: int, n_boot: int, *, method: str,
                 n_clusters: int, n_components: int, seed: int,
                 fit_max_tokens: int | None, train_seed: int | None) -> CheckValue:
    """:func:`sst2_probe`'s ``check`` over ``refits`` fits (the first, ``check``'s own,
    included): the mean change over the fits, with the spread between fits in its
    interval.

    Each refit R resamples the training sentences (with replacement, stream
    ``refit-R/train``), fits ``method`` again on their tokens (stream ``refit-R/fit``) and
    trains both classifiers again (the Baseline's on its pooled vectors of ``baseline``).
    The value is the mean of the fits' changes on the dev set; its interval is the paired
    bootstrap over the dev sentences of the per-sentence difference averaged over the
    fits (stream ``bootstrap/dev``), widened in quadrature by the spread of one fit's
    change (:func:`with_fit_spread`): a rerun's other training sample and K-means start.
    The spread is not divided by the number of fits, since the refits' training samples are
    resampled from one sample and their mean keeps that sample's own error. The details
    keep the first fit's change and each fit's (``refit changes``)."""
    changes = [check.value]
    differences = [correct[method].astype(float) - correct["Baseline"].astype(float)]
    train_labels = np.asarray(train_labels)
    of_row = tokens.sentence_index[train_rows]
    base_train, base_dev = baseline["train"][0], baseline["dev"][0]
    for refit in range(1, refits):
        drawn = np.random.default_rng(stream_seed(seed, f"refit-{refit}/train")).choice(
            n_train, n_train)
        counts = np.bincount(drawn, minlength=n_train)
        redo = fit_methods(np.repeat(H[train_rows], counts[of_row], axis=0), n_clusters,
                           n_components, stream_seed(seed, f"refit-{refit}/fit"),
                           fit_max_tokens, methods=(method,),
                           train_seed=sub_seed(train_seed, f"refit-{refit}/fit"))[method]
        new_train, new_dev = (tokens.pool(redo.transform(X), part_rows)[1]
                              for part_rows, X in parts.values())
        right = _probe_accuracy(new_train[drawn], train_labels[drawn], new_dev, dev_labels)
        base = _probe_accuracy(base_train[drawn], train_labels[drawn], base_dev, dev_labels)
        differences.append(right.astype(float) - base.astype(float))
        changes.append(100 * float(differences[-1].mean()))
    mean = _paired_change(np.mean(differences, axis=0), n_boot, seed,
                          f"dev sentences (paired; the difference averaged over {refits} "
                          "fits, classifiers held fixed)")
    interval = with_fit_spread(mean.value, mean.interval, [np.asarray(changes)],
                               "training sentences resampled, method and classifiers "
                               "refitted")
    return CheckValue(mean.value, interval, {**check.details, "fits": refits,
                                             "first fit's change": changes[0],
                                             "refit changes": changes})


def sst2_probe(tokens, layer: int, n_train: int, train_labels, dev_labels, *,
               n_clusters: int = 27, n_components: int = 12, seed: int = 0,
               exclude_positions=(), fit_max_tokens: int | None = 10000,
               iso_max_tokens: int = 20000, n_boot: int = 1000, refits: int = 0,
               method: str = "K-means+Mean+PCA", train_seed: int | None = None
               ) -> tuple[pd.DataFrame, CheckValue]:
    """The seed's SST-2 classification probe, for one model.

    ``tokens`` holds the training sentences first (``n_train`` of them), then the dev
    sentences. The baseline and K-means+Mean+PCA (fitted on the training tokens) are applied
    to every token, tokens are mean-pooled into sentence vectors, and a logistic regression
    trained on the standardised training sentences is scored on the dev sentences.

    Returns one row per method (dev accuracy, log10 I(W) of the dev tokens) and the
    ``sst2-probe`` check: the accuracy change in points, with a paired bootstrap over the
    dev sentences (the classifiers held fixed); with ``refits`` >= 2, the mean change over
    the fits, its interval widened by the spread between them (:func:`_with_refits`).

    Parameters
    ----------
    tokens : TokenEmbeddings
        The token vectors of the training sentences, then the dev sentences
        (:func:`sst2_probe_data`), holding ``layer``.
    layer : int
        The layer transformed and pooled.
    n_train : int
        The training sentences, the first of ``tokens``.
    train_labels, dev_labels : array_like
        The labels of the training and of the dev sentences.
    n_clusters : int, optional
        K-means clusters (27 by default).
    n_components : int, optional
        Dominant directions removed (12 by default).
    seed : int, optional
        Seed of the streams (``fit``, ``iso-sample``, ``bootstrap/dev``, ``refit-R/...``),
        and of the starts when ``train_seed`` is None.
    exclude_positions : tuple of int, optional
        Token positions left out of every sentence.
    fit_max_tokens : int or None, optional
        Training token vectors the method is fitted on (10000 by default); None: every one.
    iso_max_tokens : int, optional
        Dev token vectors I(W) is computed on (20000 by default).
    n_boot : int, optional
        Bootstrap resamples over the dev sentences (1000 by default).
    refits : int, optional
        Fits of the method, the first included; below 2 (0 by default), no refit.
    method : str, optional
        The cluster-based method (``"K-means+Mean+PCA"`` by default).
    train_seed : int or None, optional
        Seed of the clusterings' starts (streams ``fit`` and ``refit-R/fit`` under it).

    Returns
    -------
    table : pandas.DataFrame
        One row per method (the Baseline and ``method``): ``method``, ``dev accuracy``
        (%) and ``log10 I(W) dev tokens``.
    check : CheckValue
        The accuracy change in points (with refits, the mean over the fits), its Interval
        and details (:func:`_with_refits`' with refits).
    """
    n_sentences = len(tokens.words)
    train_rows = tokens.sentence_rows(np.arange(n_train), exclude_positions)
    dev_rows = tokens.sentence_rows(np.arange(n_train, n_sentences), exclude_positions)
    H = np.asarray(tokens.layer(layer))
    fitted = fit_methods(H[train_rows], n_clusters, n_components, stream_seed(seed, "fit"),
                         fit_max_tokens, methods=("Baseline", method),
                         train_seed=sub_seed(train_seed, "fit"))
    parts = {"train": (train_rows, H[train_rows].astype(np.float64)),
             "dev": (dev_rows, H[dev_rows].astype(np.float64))}
    rows, correct, pooled_of = _probe_methods(fitted, tokens, parts, train_labels, dev_labels,
                                              iso_max_tokens, seed)
    check = _probe_change(correct, method, n_boot, seed)
    if refits >= 2:
        check = _with_refits(check, correct, tokens, H, train_rows, parts,
                             pooled_of["Baseline"], train_labels, dev_labels, n_train,
                             refits, n_boot, method=method,
                             n_clusters=n_clusters, n_components=n_components, seed=seed,
                             fit_max_tokens=fit_max_tokens, train_seed=train_seed)
    return pd.DataFrame(rows), check


def sweep(tokens, layer: int, sentences: list[str], task: str, cluster_counts, component_counts,
          *, seed: int = 0, exclude_positions=(), fit_max_tokens: int | None = 10000,
          iso_max_tokens: int = 20000, max_pairs: int | None = None,
          data_seed: int = 0, train_seed: int | None = None) -> pd.DataFrame:
    """K-means+Mean+PCA over a grid of K and D on one task (transductive), one row per cell.

    The task's pairs are :func:`~anisotropy.inputs.tasks.sts_task`'s under ``data_seed``;
    the fit sample and the I(W) sample draw from streams under ``seed``, the clusterings'
    starts under ``train_seed`` (``seed`` when ``None``).

    Parameters
    ----------
    tokens : TokenEmbeddings
        The token vectors of ``sentences``, holding ``layer``.
    layer : int
        The layer transformed and pooled.
    sentences : list of str
        The sentences of ``tokens``, in order.
    task : str
        The STS task.
    cluster_counts : sequence of int
        The values of K; one clustering each.
    component_counts : sequence of int
        The values of D, each applied to every clustering.
    seed : int, optional
        Seed of the samples' streams (``fit-sample``, ``iso-sample``).
    exclude_positions : tuple of int, optional
        Token positions left out of every sentence.
    fit_max_tokens : int or None, optional
        Token vectors the clusterings are fitted on (10000 by default); None: every one.
    iso_max_tokens : int, optional
        Token vectors I(W) and IsoScore are computed on (20000 by default).
    max_pairs : int or None, optional
        Pairs sampled from the task; None: every pair.
    data_seed : int, optional
        Seed of the task's pairs.
    train_seed : int or None, optional
        Seed of the clusterings' starts (stream ``kmeans``; the same for every K).

    Returns
    -------
    pandas.DataFrame
        One row per (K, D): ``K``, ``D``, ``pearson``, ``spearman``, ``spearman_mean``
        (x 100), ``log10 I(W)`` and ``isoscore``.
    """
    index = {sentence: i for i, sentence in enumerate(sentences)}
    frame = sts_task(task, max_pairs, data_seed)
    ids = np.array(sorted({index[s] for s in frame["sentence1"]}
                          | {index[s] for s in frame["sentence2"]}))
    rows = tokens.sentence_rows(ids, exclude_positions)
    X = np.asarray(tokens.layer(layer))[rows].astype(np.float64)
    S = _sample(X, fit_max_tokens, stream_seed(seed, "fit-sample"))
    records = []
    for k in cluster_counts:
        fitted = ClusterIsotropy(k, max(component_counts), "kmeans",
                                 train_stream_seed(seed, train_seed, "kmeans"),
                                 n_init=KMEANS_N_INIT).fit(S)
        for d in component_counts:
            records.append({"K": k, "D": d, **_score(fitted.with_components(d), X, tokens,
                                                     rows, frame, index, iso_max_tokens,
                                                     stream_seed(seed, "iso-sample"))})
    return pd.DataFrame(records)


def every_task(changes: dict) -> CheckValue:
    """The smallest Spearman change over the tasks, graded as "improves every task", with a
    95% interval for the smallest of the tasks' true changes built as claims 1 and 2 build
    their worst-layer intervals:

    - the lower end is the smallest of the tasks' own lower ends: "every task improves" is
      an intersection-union test (Berger 1982), each task tested at its own level, so it
      needs no correction for the number of tasks;
    - the upper end, which calls the statement false as soon as one task lies wholly below
      0, is simultaneous: each task's interval (symmetric, normal: a paired bootstrap with
      the refit spread added in quadrature) is widened to the one-sided level
      :math:`0.975^{1/T}` (Šidák's, the tasks' pairs and fits being independent), and the
      smallest of those upper ends is taken.

    Parameters
    ----------
    changes : dict of str to CheckValue
        ``{task: CheckValue}`` (change, Interval), as :func:`task_changes` gives them; at
        least one task.

    Returns
    -------
    CheckValue
        The smallest change, its interval, and the details: the worst task and how many
        tasks' own intervals lie above 0.

    Raises
    ------
    ValueError
        For no task.
    """
    if not changes:
        raise ValueError("no task was measured: the smallest change needs at least one.")
    worst = min(changes, key=lambda task: changes[task].value)
    widen = float(norm.ppf(0.975 ** (1 / len(changes))) / norm.ppf(0.975))
    lows = [c.interval.low for c in changes.values()]
    highs = [c.value + widen * max(c.interval.high - c.value, c.value - c.interval.low, 0.0)
             for c in changes.values()]
    interval = Interval(min(lows), min(highs), (
        f"lower end: the smallest of the {len(changes)} tasks' 95% intervals' lower ends; "
        f"upper end: the smallest of their upper ends at the simultaneous one-sided level "
        f"0.975^(1/{len(changes)}) (half-widths x {widen:.3g}); each task: "
        f"{changes[worst].interval.method}"))
    above = sum(low > 0 for low in lows)
    return CheckValue(float(changes[worst].value), interval,
                      {"worst task": worst,
                       "tasks whose own interval lies above 0": f"{above} of {len(changes)}"})
