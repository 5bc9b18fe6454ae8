"""Word frequency and the geometry of an embedding space (Li et al. 2020, Section 2).

- :func:`corpus_token_counts` / :func:`corpus_word_counts`: frequencies over the local
  corpora (WikiText-2 and PTB valid+test, SNLI dev+test sentences);
- :func:`frequency_geometry`: for one space (rows = types with a frequency), the Spearman
  correlation of vector norm and of mean kNN distance with log frequency, raw and centred,
  and the mean norm and kNN distance per frequency-rank bin;
- :func:`frequency_table`: Li et al.'s Table 1 layout, mean norm and mean kNN distance
  (several k) per frequency-rank range;
- :func:`model_spaces`: a transformer's input-embedding matrix (the space the paper
  analyses) and type-averaged contextual vectors with a fixed number of occurrences per
  type, so that rare types are not noisier merely for being averaged over fewer vectors.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from anisotropy.geometry import metrics
from anisotropy.geometry.dimension import knn_distances_among
from anisotropy.geometry.intervals import (
    boot_method,
    percentile_interval,
    resample_indices,
    rowwise_spearman,
)
from anisotropy.geometry.streams import stream_seed
from anisotropy.inputs.resolved import short_name

__all__ = ["corpus_token_counts", "corpus_word_counts", "frequency_geometry", "frequency_table",
           "rank_bins", "neighbour_distances", "fixed_count_average",
           "model_spaces", "static_spaces"]


def corpus_token_counts(tokenizer, texts: list[str], batch: int = 2000) -> Counter:
    """Occurrences of each token id when ``texts`` are tokenized (no special tokens).

    Parameters
    ----------
    tokenizer : callable
        A Hugging Face tokenizer: called on a list of texts, it returns ``input_ids``.
    texts : list of str
        The corpus.
    batch : int, optional
        Texts tokenized per call (2000 by default).

    Returns
    -------
    collections.Counter
        ``{token id: occurrences}``.
    """
    counts: Counter = Counter()
    for start in range(0, len(texts), batch):
        encoded = tokenizer(texts[start:start + batch], add_special_tokens=False)["input_ids"]
        for ids in encoded:
            counts.update(ids)
    return counts


def corpus_word_counts(texts: list[str]) -> Counter:
    """Occurrences of each lower-cased whitespace token (for static word vectors).

    Parameters
    ----------
    texts : list of str
        The corpus.

    Returns
    -------
    collections.Counter
        ``{word: occurrences}``.
    """
    counts: Counter = Counter()
    for text in texts:
        counts.update(text.lower().split())
    return counts


def neighbour_distances(X: np.ndarray, k: int = 10, pool: tuple | None = None) -> np.ndarray:
    """``(n, k)`` Euclidean distances of each row to its k nearest other rows, sorted
    ascending (exact; :func:`anisotropy.geometry.metrics.knn_distances`); with
    ``pool = (vectors, rows)``, to its k nearest among all of ``vectors`` (``X`` is
    ``vectors[rows]``; :func:`anisotropy.geometry.dimension.knn_distances_among`).

    Parameters
    ----------
    X : numpy.ndarray
        ``(n, dim)`` points, one per row.
    k : int, optional
        Neighbours per row (10 by default).
    pool : tuple, optional
        ``(vectors, rows)`` with ``X = vectors[rows]``: the neighbours are searched among
        all of ``vectors`` (``X`` itself is then not read). None: among the rows of ``X``.

    Returns
    -------
    numpy.ndarray
        ``(n, k)`` float64 distances, each row sorted ascending.
    """
    if pool is None:
        return metrics.knn_distances(X, k, "euclidean")
    return knn_distances_among(pool[0], pool[1], k)


def _given_or_searched(X: np.ndarray, k: int, pool: tuple | None,
                       distances: np.ndarray | None) -> np.ndarray:
    """``distances`` checked to hold at least ``k`` sorted neighbours per row of ``X``, or
    :func:`neighbour_distances` searched now when none are given."""
    if distances is None:
        return neighbour_distances(X, k, pool)
    if distances.shape[0] != X.shape[0] or distances.shape[1] < k:
        raise ValueError(f"distances must be ({X.shape[0]}, >= {k}); got {distances.shape}.")
    return distances


def rho_interval(values: np.ndarray, log_frequency: np.ndarray, n_boot: int = 1000,
                 seed: int = 0, note: str = ""):
    """95% percentile-bootstrap interval over types of Spearman rho(values, log frequency).

    Types are resampled with replacement; each draw ranks its resample again (ties
    averaged, as :func:`scipy.stats.spearmanr`). Per-type values are held fixed: for kNN
    distances the neighbourhoods are those of the full sample.

    Parameters
    ----------
    values : numpy.ndarray
        One value per type (1-D).
    log_frequency : numpy.ndarray
        The types' log frequencies, as long as ``values``.
    n_boot : int, optional
        Bootstrap resamples (1000 by default; at least 20).
    seed : int, optional
        Seed of the resampled indices.
    note : str, optional
        Appended to the interval's method text (what the values are).

    Returns
    -------
    Interval
        The 2.5% and 97.5% quantiles of the resampled correlations.

    Raises
    ------
    ValueError
        If ``values`` and ``log_frequency`` are not 1-D arrays of one length.
    """
    values = np.asarray(values, dtype=np.float64)
    log_frequency = np.asarray(log_frequency, dtype=np.float64)
    if values.shape != log_frequency.shape or values.ndim != 1:
        raise ValueError("values and log_frequency must be 1-D of one length.")
    indices = resample_indices(values.size, n_boot, seed)
    draws = np.concatenate([rowwise_spearman(values[rows], log_frequency[rows])
                            for rows in np.array_split(indices, max(1, n_boot // 100))])
    return percentile_interval(draws, method=boot_method(n_boot, values.size, "types", note))


def rank_bins(frequency: np.ndarray, edges) -> pd.Series:
    """The frequency-rank range of each row: rank 0 is the most frequent (ties broken by row
    order), and ``edges`` ``[0, 100, 500, ...]`` give ranges ``[0, 100)``, ``[100, 500)``;
    rows ranked beyond the last edge get NaN.

    Parameters
    ----------
    frequency : numpy.ndarray
        One frequency per row.
    edges : sequence of int
        Rank edges: 1-D, at least two, starting at 0 and strictly increasing.

    Returns
    -------
    pandas.Series
        Categorical, one label per row (``"[0, 100)"``, ...; NaN beyond the last edge).

    Raises
    ------
    ValueError
        If ``edges`` do not start at 0 and increase.
    """
    edges = np.asarray(edges)
    if edges.ndim != 1 or edges.size < 2 or (np.diff(edges) <= 0).any() or edges[0] != 0:
        raise ValueError(f"edges must start at 0 and increase; got {edges.tolist()}.")
    rank = pd.Series(-np.asarray(frequency, dtype=np.float64)).rank(method="first") - 1
    labels = [f"[{a:,}, {b:,})" for a, b in zip(edges[:-1], edges[1:], strict=True)]
    return pd.cut(rank, bins=edges, right=False, labels=labels)


def frequency_table(X: np.ndarray, frequency: np.ndarray, edges, ks=(3, 5, 7),
                    pool: tuple | None = None, distances: np.ndarray | None = None
                    ) -> pd.DataFrame:
    """Mean l2 norm and mean distance to the k nearest neighbours (among all rows, or with
    ``pool`` among all of the space's points, as :func:`neighbour_distances`; or the sorted
    ``distances`` already computed, at least ``max(ks)`` per row) per frequency-rank range:
    the layout of Li et al. (2020), Table 1.

    Parameters
    ----------
    X : numpy.ndarray
        ``(n, dim)`` vectors, one per type; at least ``max(ks) + 2`` rows.
    frequency : numpy.ndarray
        One frequency per row.
    edges : sequence of int
        The rank ranges' edges (:func:`rank_bins`).
    ks : sequence of int, optional
        Neighbour counts, one column each ((3, 5, 7) by default).
    pool : tuple, optional
        ``(vectors, rows)`` with ``X = vectors[rows]``: neighbours searched among all of
        ``vectors`` (:func:`neighbour_distances`).
    distances : numpy.ndarray, optional
        The rows' sorted neighbour distances, ``(n, >= max(ks))``, when already computed;
        ``pool`` is then not used.

    Returns
    -------
    pandas.DataFrame
        One row per rank range (every range of ``edges``, empty ones NaN): ``mean l2 norm``
        and ``mean {k}-NN l2 distance`` for each k.

    Raises
    ------
    ValueError
        If ``distances`` has not one row per row of ``X`` or fewer than ``max(ks)`` columns.
    """
    X = np.asarray(metrics.check_embeddings(X, min_points=max(ks) + 2), dtype=np.float64)
    table = pd.DataFrame({"range": rank_bins(frequency, edges),
                          "mean l2 norm": np.linalg.norm(X, axis=1)})
    distances = _given_or_searched(X, max(ks), pool, distances)
    for k in ks:
        table[f"mean {k}-NN l2 distance"] = distances[:, :k].mean(axis=1)
    return table.groupby("range", observed=False).mean()


def frequency_geometry(X: np.ndarray, frequency: np.ndarray, k: int = 5,
                       edges=(0, 100, 500, 5000, 10000), n_boot: int | None = None,
                       seed: int = 0, pool: tuple | None = None,
                       distances: np.ndarray | None = None) -> tuple[dict, pd.DataFrame]:
    """Norm and neighbourhood density against log frequency for one space.

    Returns a dict of Spearman correlations (norm and kNN distance, raw and after centring;
    Euclidean kNN distances do not change with centring, so they are given once) and a
    table of the mean norm and kNN distance per frequency-rank range (:func:`rank_bins`,
    Li et al.'s ranges by default). With ``n_boot``, the dict also holds ``"rho norm
    interval"`` and ``"rho kNN distance interval"`` (:func:`rho_interval`).

    Parameters
    ----------
    X : numpy.ndarray
        ``(n, dim)`` vectors, one per type; at least ``k + 2`` rows.
    frequency : numpy.ndarray
        One positive count (or frequency) per row.
    k : int, optional
        Neighbours of the kNN distance (5 by default).
    edges : sequence of int, optional
        The rank ranges' edges (:func:`rank_bins`); Li et al.'s (0, 100, 500, 5000, 10000)
        by default.
    n_boot : int, optional
        Bootstrap resamples of the two correlations' intervals; None or 0: no interval.
    seed : int, optional
        Seed of the bootstrap (its stream ``bootstrap/types``, one resample of the types
        for both correlations).
    pool : tuple, optional
        ``(vectors, rows)`` with ``X = vectors[rows]``: neighbours searched among all of
        ``vectors`` (:func:`neighbour_distances`).
    distances : numpy.ndarray, optional
        The rows' sorted neighbour distances (:func:`neighbour_distances`, at least ``k``
        per row) when already computed; ``pool`` is then not used.

    Returns
    -------
    summary : dict
        ``n`` (the rows), ``rho norm``, ``rho norm (centred)`` and ``rho kNN distance``,
        and with ``n_boot`` also ``rho norm interval`` and ``rho kNN distance interval``
        (each an :class:`~anisotropy.geometry.intervals.Interval`).
    bins : pandas.DataFrame
        One row per rank range: the means of ``log frequency``, ``norm``, ``centred norm``
        and ``kNN distance``.

    Raises
    ------
    ValueError
        If ``frequency`` has not one positive count per row, or ``distances`` the wrong
        shape.
    """
    X = np.asarray(metrics.check_embeddings(X, min_points=k + 2), dtype=np.float64)
    frequency = np.asarray(frequency, dtype=np.float64)
    if frequency.shape[0] != X.shape[0] or (frequency <= 0).any():
        raise ValueError("frequency needs one positive count per row.")
    log_frequency = np.log(frequency)
    norms = np.linalg.norm(X, axis=1)
    centred_norms = np.linalg.norm(X - X.mean(axis=0), axis=1)
    distances = _given_or_searched(X, k, pool, distances)[:, :k].mean(axis=1)
    summary = {
        "n": int(X.shape[0]),
        "rho norm": float(spearmanr(norms, log_frequency)[0]),
        "rho norm (centred)": float(spearmanr(centred_norms, log_frequency)[0]),
        "rho kNN distance": float(spearmanr(distances, log_frequency)[0]),
    }
    if n_boot:
        # one resample of the types serves both correlations (the same types)
        types_seed = stream_seed(seed, "bootstrap/types")
        summary["rho norm interval"] = rho_interval(norms, log_frequency, n_boot, types_seed)
        summary["rho kNN distance interval"] = rho_interval(
            distances, log_frequency, n_boot, types_seed,
            note=f"{k}-NN distances of the full sample")
    table = pd.DataFrame({"range": rank_bins(frequency, edges), "log frequency": log_frequency,
                          "norm": norms, "centred norm": centred_norms,
                          "kNN distance": distances})
    return summary, table.groupby("range", observed=False).mean()


def fixed_count_average(X: np.ndarray, type_ids: np.ndarray, occurrences: int,
                        seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Mean vector per type over exactly ``occurrences`` of its rows (a seeded sample); types
    with fewer rows are left out. Returns the means and the sorted type ids kept.

    Averaging n vectors shrinks the noise in the mean by about 1/sqrt(n), so type averages
    over all occurrences give rare types longer, noisier vectors whatever the model does;
    a fixed count removes that confound from a frequency comparison.

    Parameters
    ----------
    X : numpy.ndarray
        ``(n_rows, dim)`` vectors, e.g. one per token occurrence.
    type_ids : numpy.ndarray
        The type of each row of ``X``.
    occurrences : int
        Rows averaged per type, >= 1.
    seed : int, optional
        Seed of the sampled rows.

    Returns
    -------
    means : numpy.ndarray
        ``(n_types, dim)`` float64 means, in the order of ``types``.
    types : numpy.ndarray
        The type ids kept (those with at least ``occurrences`` rows), sorted.

    Raises
    ------
    ValueError
        If ``occurrences`` < 1 or no type occurs that often.
    """
    if occurrences < 1:
        raise ValueError(f"occurrences must be >= 1; got {occurrences}.")
    type_ids = np.asarray(type_ids)
    rng = np.random.default_rng(seed)
    order = np.argsort(type_ids, kind="stable")
    types, starts, counts = np.unique(type_ids[order], return_index=True, return_counts=True)
    keep = counts >= occurrences
    if not keep.any():
        raise ValueError(f"No type has {occurrences} or more occurrences.")
    rows = np.concatenate([np.sort(rng.choice(order[s:s + c], occurrences, replace=False))
                           for s, c in zip(starts[keep], counts[keep], strict=True)])
    means = np.asarray(X, dtype=np.float64)[rows].reshape(keep.sum(), occurrences, -1).mean(1)
    return means, types[keep]


def model_spaces(encoder, counts: Counter, tokens, layers, max_types: int,
                 occurrences: int = 5, seed: int = 0) -> tuple[dict, dict]:
    """The spaces of one transformer for Part A, each ``(vectors, frequencies)``, and where
    their neighbours are searched, each ``(pool, rows)`` with ``vectors = pool[rows]``.

    - ``input embeddings``: the input-embedding rows of the ``max_types`` most frequent
      non-special token ids (the word-embedding space Li et al. analyse), their neighbours
      among every non-special row of the matrix;
    - for each layer, ``type average``: the mean contextual vector of those ids over
      exactly ``occurrences`` of their occurrences in ``tokens`` (special tokens and
      position 0 dropped; :func:`fixed_count_average`), for the ids that occur that often,
      their neighbours among the type averages of every id that does.

    Parameters
    ----------
    encoder : Encoder
        The transformer (its tokenizer's special ids and its input-embedding matrix).
    counts : collections.Counter
        Corpus occurrences per token id (:func:`corpus_token_counts`).
    tokens : TokenEmbeddings
        The transformer's token vectors of a corpus, holding every layer of ``layers``.
    layers : iterable of int
        The layers whose type averages are spaces.
    max_types : int
        Most frequent non-special token ids kept.
    occurrences : int, optional
        Occurrences averaged per type (5 by default).
    seed : int, optional
        Seed of the sampled occurrences (the same for every layer).

    Returns
    -------
    spaces : dict
        ``{name: (vectors, frequencies)}``, named ``"MODEL: input embeddings"`` and
        ``"MODEL: layer L (type average of N)"`` (the model's short name).
    pools : dict
        ``{name: (pool, rows)}`` for the same names.
    """
    special = set(encoder.tokenizer.all_special_ids)
    frequent = [t for t, _ in counts.most_common() if t not in special][:max_types]
    matrix, _ = encoder.input_embedding_matrix()
    name = short_name(encoder.name)
    ordinary = np.array([t for t in range(matrix.shape[0]) if t not in special])
    position = np.full(matrix.shape[0], -1)
    position[ordinary] = np.arange(ordinary.size)
    space = f"{name}: input embeddings"
    spaces = {space: (matrix[frequent], np.array([counts[t] for t in frequent]))}
    pools = {space: (matrix[ordinary], position[frequent])}
    keep = ~tokens.special_mask & (tokens.position != 0)
    ids = tokens.token_ids[keep]
    for layer in layers:
        vectors, types = fixed_count_average(np.asarray(tokens.layer(layer))[keep], ids,
                                             occurrences, seed)
        wanted = np.flatnonzero(np.isin(types, frequent))
        space = f"{name}: layer {layer} (type average of {occurrences})"
        spaces[space] = (vectors[wanted], np.array([counts[t] for t in types[wanted]]))
        pools[space] = (vectors, wanted)
    return spaces, pools


def static_spaces(vectors, counts: Counter, max_types: int) -> tuple[dict, dict]:
    """GloVe-like static vectors with two frequency sources: corpus counts of the words it
    knows, and its own frequency-ordered vocabulary (rank r as frequency 1/r); and, as
    :func:`model_spaces`, their neighbour pools: the whole vocabulary.

    Parameters
    ----------
    vectors : StaticVectors
        The static vectors, their vocabulary in descending frequency.
    counts : collections.Counter
        Corpus occurrences per word (:func:`corpus_word_counts`).
    max_types : int
        Words kept per space: the most frequent by corpus counts among the words the
        vocabulary knows, and the first of the vocabulary.

    Returns
    -------
    spaces : dict
        ``{name: (vectors, frequencies)}``: ``"LABEL: corpus counts"`` and
        ``"LABEL: GloVe rank"`` (``"LABEL: vocabulary rank"`` for vectors not named GloVe),
        LABEL ``"GloVe {dim}d"`` for GloVe, else the vectors' name.
    pools : dict
        ``{name: (pool, rows)}`` for the same names, the pool the whole vocabulary.
    """
    index = {word: i for i, word in enumerate(vectors.vocab)}
    seen = [w for w, _ in counts.most_common() if w in index][:max_types]
    label = f"GloVe {vectors.dim}d" if "glove" in vectors.name.lower() else vectors.name
    every = np.asarray(vectors.vectors)
    by_counts = f"{label}: corpus counts"
    by_rank = f"{label}: GloVe rank" if "GloVe" in label else f"{label}: vocabulary rank"
    rows = np.array([index[w] for w in seen])
    spaces = {by_counts: (every[rows], np.array([counts[w] for w in seen])),
              by_rank: (every[:max_types], 1.0 / (np.arange(max_types) + 1))}
    return spaces, {by_counts: (every, rows), by_rank: (every, np.arange(max_types))}
