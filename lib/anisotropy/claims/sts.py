"""Semantic textual similarity: cosine of sentence vectors against gold scores.

Modelled on sentence-transformers' ``EmbeddingSimilarityEvaluator``: one call returns a dict
of named numbers with a primary one. The aggregation over a task's subsets matters (it
moves STS12 by about 5 points), so both are returned:

- ``all``: Pearson/Spearman over all pairs of the task pooled together;
- ``mean``: the unweighted mean of the per-subset correlations (SentEval's "mean");
- ``wmean``: the mean of the per-subset correlations weighted by their pair counts
  (SentEval's "wmean", what BERT-flow and BERT-whitening report for STS12-16: bojone's
  ``eng/eval.py`` prints it as "w-avg"; SimCSE, App. B, confirms it for both).

Which one a task reports is declared with the task (``aggregation`` in ``data/tasks.yaml``:
``wmean`` for STS12-16, whose files are subsets; ``all`` for STS-B and SICK-R, scored as one
set). The primary number is ``spearman_all`` x 100.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import pearsonr, spearmanr

from anisotropy.geometry.intervals import percentile_interval, resample_indices, rowwise_spearman
from anisotropy.geometry.metrics import check_embeddings
from anisotropy.geometry.streams import stream_seed
from anisotropy.inputs.tasks import sts_task

__all__ = ["cosine_scores", "evaluate_sts", "score_correlations", "evaluate_tasks",
           "spearman_change_draws", "mean_change_interval"]

def cosine_scores(A, B) -> np.ndarray:
    """Row-wise cosine similarity of two ``(n, dim)`` arrays (float64).

    Parameters
    ----------
    A, B : array_like of shape (n, dim)
        The paired vectors, one pair per row.

    Returns
    -------
    numpy.ndarray of shape (n,), float64
        The cosine of each row of ``A`` with the same row of ``B``; 0 where either is the zero
        vector.

    Raises
    ------
    ValueError
        For arrays of different shapes, or one that
        :func:`~anisotropy.geometry.validation.check_embeddings` refuses (not 2-D, no row, NaN
        or infinite values).
    """
    A = np.asarray(check_embeddings(A, min_points=1, name="A"), dtype=np.float64)
    B = np.asarray(check_embeddings(B, min_points=1, name="B"), dtype=np.float64)
    if A.shape != B.shape:
        raise ValueError(f"A and B must have the same shape; got {A.shape} and {B.shape}.")
    norms = np.linalg.norm(A, axis=1) * np.linalg.norm(B, axis=1)
    return np.einsum("ij,ij->i", A, B) / np.where(norms > 0, norms, 1.0)


def evaluate_sts(A, B, gold, subsets=None) -> dict[str, float]:
    """Correlations x 100 between cosine(A_i, B_i) and gold scores: :func:`score_correlations`
    of :func:`cosine_scores`.

    Parameters
    ----------
    A, B : array_like of shape (n_pairs, dim)
        The vectors of each pair's two sentences.
    gold : array_like of shape (n_pairs,)
        The gold scores; at least 3 pairs.
    subsets : array_like of shape (n_pairs,), optional
        Each pair's subset, for the ``mean`` and ``wmean`` aggregations; None (default): one
        set.

    Returns
    -------
    dict
        ``pearson_all``, ``spearman_all``, ``pearson_mean``, ``spearman_mean``,
        ``pearson_wmean``, ``spearman_wmean`` (the subset aggregations equal the ``all``
        values without subsets), ``n_pairs`` and ``primary`` (= ``spearman_all``).

    Raises
    ------
    ValueError
        As :func:`cosine_scores` and :func:`score_correlations`.
    """
    return score_correlations(cosine_scores(A, B), gold, subsets)


def score_correlations(scores, gold, subsets=None) -> dict[str, float]:
    """Correlations x 100 between per-pair similarity ``scores`` and gold scores, pooled
    (``all``) and over ``subsets`` (``mean``, and ``wmean`` weighted by the subsets' pair
    counts); the keys of :func:`evaluate_sts`.

    Parameters
    ----------
    scores : array_like of shape (n_pairs,)
        Each pair's similarity.
    gold : array_like of shape (n_pairs,)
        The gold scores.
    subsets : array_like of shape (n_pairs,), optional
        Each pair's subset; None (default): ``mean`` and ``wmean`` equal ``all``.

    Returns
    -------
    dict of str to float
        ``pearson_all``, ``spearman_all``, ``pearson_mean``, ``spearman_mean``,
        ``pearson_wmean`` and ``spearman_wmean`` (x 100, floats), ``n_pairs`` (an int) and
        ``primary`` (= ``spearman_all``).

    Raises
    ------
    ValueError
        When ``gold`` and ``scores`` differ in shape, or there are fewer than 3 pairs.
    """
    scores = np.asarray(scores, dtype=np.float64)
    gold = np.asarray(gold, dtype=np.float64)
    if gold.shape != scores.shape:
        raise ValueError(f"gold has {gold.shape[0]} scores for {scores.shape[0]} pairs.")
    if scores.size < 3:
        raise ValueError(f"Need at least 3 pairs for a correlation; got {scores.size}.")
    result = {"pearson_all": 100 * pearsonr(scores, gold)[0],
              "spearman_all": 100 * spearmanr(scores, gold)[0]}
    if subsets is None:
        for how in ("mean", "wmean"):
            result[f"pearson_{how}"] = result["pearson_all"]
            result[f"spearman_{how}"] = result["spearman_all"]
    else:
        subsets = np.asarray(subsets)
        groups = [np.flatnonzero(subsets == s) for s in pd.unique(subsets)]
        sizes = np.array([g.size for g in groups], dtype=np.float64)
        for name, correlation in (("pearson", pearsonr), ("spearman", spearmanr)):
            values = np.array([100 * correlation(scores[g], gold[g])[0] for g in groups])
            result[f"{name}_mean"] = float(values.mean())
            result[f"{name}_wmean"] = float(np.average(values, weights=sizes))
    result = {k: float(v) for k, v in result.items()}
    result["n_pairs"] = int(scores.size)
    result["primary"] = result["spearman_all"]
    return result


def evaluate_tasks(vectors: np.ndarray, sentences: list[str], tasks,
                   max_pairs: int | None = None, seed: int = 0) -> pd.DataFrame:
    """Evaluate one vector per sentence (rows aligned with ``sentences``) on STS tasks.

    Returns one row per task with Pearson/Spearman x 100 (pooled ``all`` and subset
    ``mean``) and the number of pairs.

    Parameters
    ----------
    vectors : numpy.ndarray of shape (n_sentences, dim)
        One vector per sentence.
    sentences : list of str
        The sentence of each row of ``vectors``; every sentence of the tasks' pairs must be
        among them.
    tasks : iterable of str
        STS task names (``data/tasks.yaml``; :func:`anisotropy.inputs.tasks.sts_task`).
    max_pairs : int or None, optional
        Pairs kept per task, a random subset in file order; None (default) keeps every pair.
    seed : int, optional
        Seed of those subsets (stream ``sts-pairs/NAME``); default 0.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``task``: the keys of :func:`evaluate_sts` as columns (the subsets are
        each task's ``subset`` column).

    Raises
    ------
    KeyError
        For a sentence of a pair that is not in ``sentences``.
    """
    index = {sentence: i for i, sentence in enumerate(sentences)}
    rows = []
    for task in tasks:
        frame = sts_task(task, max_pairs, seed)
        a = vectors[[index[s] for s in frame["sentence1"]]]
        b = vectors[[index[s] for s in frame["sentence2"]]]
        rows.append({"task": task, **evaluate_sts(a, b, frame["score"], frame["subset"])})
    return pd.DataFrame(rows).set_index("task")


def spearman_change_draws(new_scores, base_scores, gold, n_boot: int = 1000,
                          seed: int = 0, subsets=None) -> np.ndarray:
    """Paired bootstrap over sentence pairs of a Spearman x 100 change on one task.

    Each draw resamples the task's pairs with replacement and computes
    ``100 * (rho(new, gold) - rho(base, gold))`` on the same resample, so the two methods'
    shared difficulty cancels. Without ``subsets`` the pairs are pooled (the ``all``
    convention of :func:`evaluate_sts`); with them, pairs are resampled within each subset
    and the subsets' changes averaged with pair-count weights (``wmean``), each subset
    from its own stream ``subset/NAME`` under ``seed``.

    Parameters
    ----------
    new_scores, base_scores : array_like of shape (n_pairs,)
        The two methods' similarity of each pair.
    gold : array_like of shape (n_pairs,)
        The gold scores; at least 3 pairs (in each subset, with ``subsets``).
    n_boot : int, optional
        Bootstrap draws, at least 20 (default 1000).
    seed : int, optional
        Seed of the resampling (default 0).
    subsets : array_like of shape (n_pairs,), optional
        Each pair's subset; None (default) pools the pairs.

    Returns
    -------
    numpy.ndarray of shape (n_boot,)
        The draws of the change.

    Raises
    ------
    ValueError
        When ``subsets`` does not give one subset per pair, the scores and gold are not 1-D of
        one length, or a set of pairs has fewer than 3.
    """
    if subsets is not None:
        subsets = np.asarray(subsets)
        if subsets.shape != np.shape(gold):
            raise ValueError("subsets must give one subset per pair.")
        groups = [np.flatnonzero(subsets == s) for s in pd.unique(subsets)]
        new_scores, base_scores = np.asarray(new_scores), np.asarray(base_scores)
        gold = np.asarray(gold, dtype=np.float64)
        draws = [spearman_change_draws(new_scores[g], base_scores[g], gold[g], n_boot,
                                       stream_seed(seed, f"subset/{subsets[g[0]]}"))
                 for g in groups]
        return np.average(np.stack(draws), axis=0, weights=[g.size for g in groups])
    new_scores, base_scores = np.asarray(new_scores), np.asarray(base_scores)
    gold = np.asarray(gold, dtype=np.float64)
    if not new_scores.shape == base_scores.shape == gold.shape or gold.ndim != 1:
        raise ValueError(f"scores and gold must be 1-D of one length; got {new_scores.shape}, "
                         f"{base_scores.shape}, {gold.shape}.")
    if gold.size < 3:
        raise ValueError(f"Need at least 3 pairs for a correlation; got {gold.size}.")
    out = np.empty(n_boot)
    indices = resample_indices(gold.size, n_boot, seed)
    for start in range(0, n_boot, 100):  # memory: 100 x n_pairs per array
        rows = indices[start:start + 100]
        g = gold[rows]
        out[start:start + 100] = 100 * (rowwise_spearman(new_scores[rows], g)
                                        - rowwise_spearman(base_scores[rows], g))
    return out


def mean_change_interval(draws_by_task: dict[str, np.ndarray], n_boot: int,
                         n_pairs: dict[str, int], unit: str = "sentence pairs"):
    """95% interval of the mean over tasks of a Spearman change, from per-task paired
    bootstrap draws (:func:`spearman_change_draws`), tasks combined draw by draw; ``unit``
    names what the tasks pair (sentences, or words for word similarity).

    Parameters
    ----------
    draws_by_task : dict of str to numpy.ndarray
        Each task's draws of the change, all of one length.
    n_boot : int
        The draws per task, as the interval's method states it.
    n_pairs : dict of str to int
        Each task's pairs; the method states their total.
    unit : str, optional
        The unit resampled, in the method (default ``"sentence pairs"``).

    Returns
    -------
    Interval
        The 2.5% and 97.5% quantiles of the draw-by-draw mean over tasks
        (:func:`~anisotropy.geometry.intervals.percentile_interval`), with its method.

    Raises
    ------
    ValueError
        For an empty ``draws_by_task``, or fewer than 20 draws or a draw that is not finite.
    """
    if not draws_by_task:
        raise ValueError("No task to average over.")
    stacked = np.mean(np.stack(list(draws_by_task.values())), axis=0)
    total = sum(n_pairs.values())
    return percentile_interval(stacked, method=(
        f"95% paired percentile bootstrap, B={n_boot} over the {unit} of each task "
        f"({total:,} pairs in {len(draws_by_task)} tasks), tasks averaged draw by draw"))
