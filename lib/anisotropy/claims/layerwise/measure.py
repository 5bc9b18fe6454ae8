"""Per-layer word statistics of Ethayarajh (2019), from cached token embeddings.

:func:`layerwise_word_stats` turns a :class:`~anisotropy.inputs.extraction.TokenEmbeddings`
into one row per layer (baseline, IsoScore, self-similarity, intra-sentence similarity, MEV,
raw and adjusted) and one row per (word, layer) for the per-word figures: it draws the rows
once (:func:`word_sample`), reduces each layer (:func:`layer_stats`) and returns a
:class:`WordStats`. It only selects rows and calls :mod:`anisotropy.geometry.metrics`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from anisotropy.claims.base import CheckValue
from anisotropy.claims.layerwise.ids import (
    BASELINE_POSITIVE,
    BASELINE_RISES,
    DECODER_BASELINE_HIGH,
    LAST_LAYER_RISE,
    MEV_LOW,
    SELFSIM_FALLS,
)
from anisotropy.claims.layerwise.sentence_units import (
    SentenceUnits,
    pair_weights,
    word_weights,
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
from anisotropy.geometry.streams import stream, stream_seed
from anisotropy.inputs.extraction import TokenEmbeddings

__all__ = ["RANDOM_WORDS", "SUMMARY_LABELS", "WordSample", "WordStats", "sink_halves",
           "eligible_words", "word_sample", "layer_stats", "layerwise_word_stats",
           "size_matched_mev_baseline", "sink_effect", "split_halves", "summarize_layers",
           "stable_word", "layer_halves", "leave_one_layer_out", "mev_adjusted_draws",
           "CheckDraws", "check_draws",
           "centred_mev", "baseline_checks", "check_values", "baseline_band"]


#: Random words behind the MEV baseline, one per random sentence (Ethayarajh's code: 1,000).
RANDOM_WORDS = 1000


def eligible_words(table: pd.DataFrame, min_contexts: int = 5) -> pd.Series:
    """Lower-cased alphabetic words occurring in at least ``min_contexts`` distinct sentences.

    Returns a boolean mask over the rows of a word table, and adds a ``type`` column.

    Parameters
    ----------
    table : pandas.DataFrame
        One row per word occurrence, with columns ``word`` and ``sentence``
        (:meth:`TokenEmbeddings.word_table`); modified in place: a ``type`` column, the
        lower-cased word, is added.
    min_contexts : int, optional
        The distinct sentences a word needs (default 5, Ethayarajh's).

    Returns
    -------
    pandas.Series of bool
        Aligned with ``table``'s rows: True where the lower-cased word is alphabetic
        (``[a-z]+``) and occurs in ``min_contexts`` or more distinct sentences.
    """
    table["type"] = table["word"].str.lower()
    alphabetic = table["type"].str.fullmatch(r"[a-z]+")
    contexts = table[alphabetic].groupby("type")["sentence"].nunique()
    keep = contexts.index[contexts >= min_contexts]
    return alphabetic & table["type"].isin(keep)


def size_matched_mev_baseline(X: np.ndarray, sizes: np.ndarray, center: bool = True,
                              seed: int = 0, max_draws: int = 500) -> float:
    """Mean MEV of random sets of occurrences with the same sizes as the words'.

    MEV of ``n`` points is at least ``1/(n-1)`` after centring, so a baseline from 1,000
    random points would leave small-``n`` words with a large positive bias. Drawing random
    sets of the same sizes (up to ``max_draws`` of them) removes that bias.

    Parameters
    ----------
    X : numpy.ndarray of shape (occurrences, d)
        The layer's vectors of every word occurrence, the pool the sets are drawn from.
    sizes : numpy.ndarray of int
        The analysed words' occurrence counts: one random set per size.
    center : bool, optional
        Centre each set before its first-component share (default True), as
        :func:`anisotropy.geometry.metrics.mev_baseline`.
    seed : int, optional
        Seed of the stream ``sets`` that subsamples the sizes and draws each set's rows
        (default 0); also passed to :func:`~anisotropy.geometry.metrics.mev_baseline`.
    max_draws : int, optional
        At most this many sizes are used, a random subsample without replacement when there
        are more (default 500).

    Returns
    -------
    float
        The mean over the random sets of their first-component share.
    """
    rng = stream(seed, "sets")
    sizes = np.asarray(sizes)
    if sizes.size > max_draws:
        sizes = rng.choice(sizes, size=max_draws, replace=False)
    shares = []
    for size in sizes:
        rows = rng.choice(X.shape[0], size=int(size), replace=False)
        shares.append(metrics.mev_baseline(X[rows], n_points=int(size), center=center,
                                           seed=seed))
    return float(np.mean(shares))


@dataclass
class WordSample:
    """The rows claim 1 reads, drawn once and shared by every layer (:func:`word_sample`).

    Attributes
    ----------
    table : pandas.DataFrame
        One row per word occurrence (:meth:`TokenEmbeddings.word_table`), with its
        lower-cased ``type``.
    eligible : bool array (n_occurrences,)
        The occurrences of alphabetic words in ``min_contexts`` or more sentences.
    word_rows : int array
        Those rows, at most ``max_occurrences`` per word (a seeded subsample), sorted.
    word_types : array of str
        The word (type) of each of ``word_rows``.
    first, second : int array (n_pairs,)
        The baseline's random pairs of occurrences in different sentences (rows of
        ``table``).
    random_rows : int array
        The random-word MEV baseline's words, one per random sentence (rows of ``table``).
    random_counts : float array (n_boot, n_random) or None
        Bootstrap resample counts of those words (stream ``bootstrap/random-words``); None
        without ``n_boot``.
    word_seed : int
        The seed of the random words (stream ``random-words``), which the layers' MEV
        baselines reuse.
    """

    table: pd.DataFrame
    eligible: np.ndarray
    word_rows: np.ndarray
    word_types: np.ndarray
    first: np.ndarray
    second: np.ndarray
    random_rows: np.ndarray
    random_counts: np.ndarray | None
    word_seed: int

    @property
    def sentences(self) -> np.ndarray:
        """The sentence of each occurrence of :attr:`table`."""
        return self.table["sentence"].to_numpy()

    def units(self, n_sentences: int) -> SentenceUnits:
        """The sentences of the baseline's pairs and of each analysed word's occurrences.

        Parameters
        ----------
        n_sentences : int
            The sentences encoded (some may hold no word occurrence).

        Returns
        -------
        SentenceUnits
            The units :func:`check_values`' bootstrap over sentences weighs.
        """
        sentences = self.sentences
        return SentenceUnits(
            np.vstack([sentences[self.first], sentences[self.second]]),
            {word: group.to_numpy() for word, group in pd.Series(
                sentences[self.word_rows]).groupby(self.word_types)},
            int(max(n_sentences, sentences.max() + 1)))


@dataclass
class WordStats:
    """What :func:`layerwise_word_stats` measures.

    Self-similarity averages the pairs of a word's occurrences in *different* sentences
    (Ethayarajh's definition); ``self_similarity_all_pairs`` keeps the pairs within one
    sentence too, as kawine/contextual's ``analyze.py`` does, to show the difference.

    MEV is adjusted as the published numbers were computed (kawine/contextual at commit
    84d2f97, whose ``analyze.py`` wrote ``variance_explained.csv``): the per-word
    first-component share of an *uncentred* TruncatedSVD minus the same share of 1,000
    random words, one per random sentence (``mev_uncentred_adj``; :func:`check_values`
    grades it). The centred per-word PCA of the later commit 3865f9b, with the same
    uncentred baseline, is ``mev_adj``; two more variants are reported beside it: the same
    random words with a centred PCA (``mev_adj_centred_baseline``), and random sets with the
    analysed words' sizes (``mev_adj_size_matched``, :func:`size_matched_mev_baseline`).

    Attributes
    ----------
    per_layer : pandas.DataFrame
        One row per layer.
    per_word : pandas.DataFrame
        One row per (word, layer): ``type, layer, n, contexts, self_similarity,
        self_similarity_adj, mev`` (centred), ``mev_uncentred`` and ``mev_adj``.
    facts : dict
        Counts of words, occurrences and sentences.
    pair_cosines : float array (layers, pairs)
        The baseline's random-pair cosines, the same pairs in every layer.
    mev_baseline_draws : float array (layers, n_boot) or None
        With ``n_boot``, bootstrap draws of the uncentred random-word MEV baseline, its
        random words resampled (the same resample in every layer) and the share refitted
        (:func:`anisotropy.geometry.metrics.uncentred_share_draws`); else None.
    units : SentenceUnits
        The sentences of the baseline's pairs and of each analysed word's occurrences, for
        :func:`check_values`' bootstrap over sentences.
    """

    per_layer: pd.DataFrame
    per_word: pd.DataFrame
    facts: dict
    pair_cosines: np.ndarray
    mev_baseline_draws: np.ndarray | None
    units: SentenceUnits


def word_sample(tokens: TokenEmbeddings, *, min_contexts: int, max_occurrences: int,
                exclude_positions: tuple[int, ...], n_baseline_pairs: int, seed: int,
                n_boot: int | None) -> WordSample:
    """Check the sample once and draw every row claim 1 reads, before any layer is read.

    Parameters
    ----------
    tokens : TokenEmbeddings
        The sentences' token vectors.
    min_contexts : int
        Words need this many distinct sentences (Ethayarajh: 5).
    max_occurrences : int
        Cap per word for self-similarity and MEV (seeded subsample, stream
        ``occurrence-caps``).
    exclude_positions : tuple of int
        Positions whose words are dropped (``(0,)`` excludes a decoder's sink).
    n_baseline_pairs : int
        Random pairs of occurrences in different sentences behind the baseline.
    seed : int
        The claim's seed for its words (streams ``occurrence-caps``, ``baseline-pairs``,
        ``random-words``, ``bootstrap/random-words``).
    n_boot : int or None
        Bootstrap draws of the random-word MEV baseline; None or 0 for none.

    Returns
    -------
    WordSample
        The rows, drawn once: every layer reads the same ones.

    Raises
    ------
    ValueError
        When no alphabetic word occurs in ``min_contexts`` or more sentences.
    """
    table = tokens.word_table(exclude_positions)
    mask = eligible_words(table, min_contexts).to_numpy()
    if not mask.any():
        raise ValueError(f"No alphabetic word occurs in {min_contexts} or more sentences; "
                         "use more sentences or lower min_contexts.")
    types = table["type"].to_numpy()
    sentences = table["sentence"].to_numpy()
    rng = stream(seed, "occurrence-caps")
    # cap occurrences per word once, so every layer uses the same rows
    chosen = np.flatnonzero(mask)
    capped = []
    for _, rows in pd.Series(chosen).groupby(types[chosen]):
        rows = rows.to_numpy()
        if rows.size > max_occurrences:
            rows = np.sort(rng.choice(rows, size=max_occurrences, replace=False))
        capped.append(rows)
    word_rows = np.sort(np.concatenate(capped))
    # the baseline's random pairs and the random-word MEV's words: drawn once, shared by
    # every layer (as cosine_baseline / mev_baseline with the same seed draw them), so that
    # a bootstrap can resample them jointly
    pair_seed, word_seed = stream_seed(seed, "baseline-pairs"), stream_seed(seed, "random-words")
    first, second = metrics.random_pairs(len(table), sentences, n_baseline_pairs, pair_seed)
    random_rows = metrics.mev_baseline_rows(len(table), RANDOM_WORDS, word_seed, sentences)
    random_counts = (resample_counts(random_rows.size, n_boot,
                                     stream_seed(seed, "bootstrap/random-words"))
                     if n_boot else None)
    return WordSample(table, mask, word_rows, types[word_rows], first, second, random_rows,
                      random_counts, word_seed)


def layer_stats(X: np.ndarray, sample: WordSample, layer: int, n_layers: int, *,
                iso_rows: np.ndarray, sizes: np.ndarray, mev_threshold: float,
                seed: int) -> tuple[dict, pd.DataFrame, np.ndarray, np.ndarray | None]:
    """Claim 1's statistics of one layer: the per-layer row and the per-word rows.

    Parameters
    ----------
    X : numpy.ndarray of shape (occurrences, d)
        The layer's vectors of every word occurrence of ``sample.table``.
    sample : WordSample
        The rows every layer reads (:func:`word_sample`).
    layer, n_layers : int
        The layer, and L for its relative depth ``layer / L``.
    iso_rows : numpy.ndarray of int
        The occurrences IsoScore is computed on.
    sizes : numpy.ndarray of int
        The analysed words' occurrence counts (the size-matched MEV baseline's set sizes).
    mev_threshold : float
        The ``mev-low`` check's threshold (``share_mev_adj_below_threshold``).
    seed : int
        The claim's seed for its words (stream ``size-matched-sets``).

    Returns
    -------
    record : dict
        The layer's row of ``per_layer`` (see :func:`layerwise_word_stats`).
    per_word : pandas.DataFrame
        The layer's rows of ``per_word``, without ``n`` and ``contexts``.
    cosines : numpy.ndarray
        The baseline's random-pair cosines.
    baseline_draws : numpy.ndarray or None
        Bootstrap draws of the uncentred random-word MEV baseline (with resample counts).
    """
    sentences, word_rows, word_types = sample.sentences, sample.word_rows, sample.word_types
    word_seed = sample.word_seed
    cosines = metrics.pair_cosines(X, sample.first, sample.second)
    baseline = float(np.mean(cosines))
    baseline_se = float(np.std(cosines, ddof=1) / np.sqrt(cosines.size)) \
        if cosines.size > 1 else 0.0
    W = X[word_rows]
    self_sim = metrics.self_similarity(W, word_types, context_ids=sentences[word_rows])
    self_sim_all = metrics.self_similarity(W, word_types)
    mev = metrics.max_explainable_variance(W, word_types, center=True)
    mev_raw = metrics.max_explainable_variance(W, word_types, center=False)
    mev_base = metrics.mev_baseline(X, RANDOM_WORDS, center=True, seed=word_seed,
                                    groups=sentences)
    mev_base_raw = metrics.mev_baseline(X, RANDOM_WORDS, center=False, seed=word_seed,
                                        groups=sentences)
    draws = (metrics.uncentred_share_draws(X[sample.random_rows], sample.random_counts)
             if sample.random_counts is not None else None)
    mev_base_sized = size_matched_mev_baseline(X, sizes, center=True, seed=stream_seed(
        seed, "size-matched-sets"))
    intra = metrics.intra_sentence_similarity(X, sentences)
    record = {
        "layer": layer, "relative_depth": layer / n_layers, "baseline": baseline,
        "baseline_se": baseline_se,
        "isoscore": metrics.isoscore(X[iso_rows]),
        "self_similarity": float(self_sim.mean()),
        "self_similarity_adj": float(self_sim.mean()) - baseline,
        "self_similarity_all_pairs": float(self_sim_all.mean()),
        "intra_similarity": float(intra.mean()),
        "intra_similarity_adj": float(intra.mean()) - baseline,
        "mev": float(mev.mean()), "mev_baseline": mev_base,
        "mev_adj": float(mev.mean()) - mev_base_raw,
        "mev_adj_centred_baseline": float(mev.mean()) - mev_base,
        "share_mev_adj_below_threshold": float(((mev_raw - mev_base_raw) < mev_threshold)
                                               [mev_raw.notna()].mean()),
        "mev_baseline_size_matched": mev_base_sized,
        "mev_adj_size_matched": float(mev.mean()) - mev_base_sized,
        "mev_uncentred": float(mev_raw.mean()), "mev_uncentred_baseline": mev_base_raw,
        "mev_uncentred_adj": float(mev_raw.mean()) - mev_base_raw,
    }
    per_word = pd.DataFrame({"type": self_sim.index, "layer": layer,
                             "self_similarity": self_sim.to_numpy(),
                             "self_similarity_adj": self_sim.to_numpy() - baseline,
                             "mev": mev.reindex(self_sim.index).to_numpy(),
                             "mev_uncentred": mev_raw.reindex(self_sim.index).to_numpy(),
                             "mev_adj": mev.reindex(self_sim.index).to_numpy() - mev_base_raw})
    return record, per_word, cosines, draws


def layerwise_word_stats(tokens: TokenEmbeddings, layers: list[int], n_layers: int, *,
                         min_contexts: int = 5, max_occurrences: int = 1000,
                         exclude_positions: tuple[int, ...] = (), n_baseline_pairs: int = 1000,
                         mev_threshold: float = 0.05, isoscore_sample: int = 5000, seed: int = 0,
                         n_boot: int | None = None, progress: bool = True) -> WordStats:
    """Per-layer and per-word statistics of Ethayarajh (2019): the sample drawn once
    (:func:`word_sample`), each layer reduced (:func:`layer_stats`), the result named
    (:class:`WordStats`, whose docstring says how self-similarity and MEV are computed).

    Parameters
    ----------
    tokens : TokenEmbeddings
        The sentences' token vectors, every layer.
    layers : list of int
        The layers to measure.
    n_layers : int
        L, to compute relative depth ``layer / L``.
    min_contexts : int
        Words need this many distinct sentences (Ethayarajh: 5).
    max_occurrences : int
        Cap per word for self-similarity and MEV (seeded subsample).
    exclude_positions : tuple of int
        Positions whose words are dropped (``(0,)`` excludes a decoder's sink).
    n_baseline_pairs : int
        Random pairs of occurrences in different sentences behind the baseline.
    mev_threshold : float
        ``share_mev_adj_below_threshold`` is the share of words whose adjusted MEV is below
        it (the ``mev-low`` check's threshold).
    isoscore_sample : int
        Occurrences IsoScore is computed on (a seeded sample, new in each layer).
    seed : int
        The claim's seed.
    n_boot : int or None
        Bootstrap draws of the uncentred random-word MEV baseline; None for none.
    progress : bool
        Show a progress bar over the layers.

    Returns
    -------
    WordStats
        The per-layer and per-word tables, the sample's counts, the baseline's pair
        cosines, the MEV baseline's draws and the sentence units.
    """
    sample = word_sample(tokens, min_contexts=min_contexts, max_occurrences=max_occurrences,
                         exclude_positions=exclude_positions,
                         n_baseline_pairs=n_baseline_pairs, seed=seed, n_boot=n_boot)
    table, sentences, word_types = sample.table, sample.sentences, sample.word_types
    iso_rng = stream(seed, "isoscore-sample")
    sizes = pd.Series(word_types).value_counts().to_numpy()
    records, per_word, cosines_by_layer, baseline_draws = [], [], [], []
    for layer in tqdm(layers, desc="layers", disable=not progress):
        X, _ = tokens.word_vectors(layer, exclude_positions)
        iso_rows = iso_rng.choice(X.shape[0], size=min(isoscore_sample, X.shape[0]),
                                  replace=False)
        record, words, cosines, draws = layer_stats(
            X, sample, layer, n_layers, iso_rows=iso_rows, sizes=sizes,
            mev_threshold=mev_threshold, seed=seed)
        records.append(record)
        per_word.append(words)
        cosines_by_layer.append(cosines)
        if draws is not None:
            baseline_draws.append(draws)
    per_word = pd.concat(per_word, ignore_index=True)
    counts = pd.Series(word_types).value_counts()
    contexts = table[sample.eligible].groupby("type")["sentence"].nunique()
    per_word["n"] = per_word["type"].map(counts).to_numpy()
    per_word["contexts"] = per_word["type"].map(contexts).to_numpy()
    facts = {"n_sentences": int(len(tokens.words)), "n_tokens": int(len(tokens)),
             "n_word_occurrences": int(len(table)), "n_words_analysed": int(counts.size),
             "n_occurrences_analysed": int(sample.word_rows.size),
             "min_contexts_of_analysed_words": int(contexts.min()),
             "n_random_words": int(min(RANDOM_WORDS, np.unique(sentences).size)),
             # 1: every sentence starts with a special (BOS/CLS) token; 0: with its first word
             "position0_special_share": float(tokens.special_mask[tokens.position == 0].mean())}
    return WordStats(pd.DataFrame(records), per_word, facts, np.vstack(cosines_by_layer),
                     np.vstack(baseline_draws) if n_boot else None,
                     sample.units(len(tokens.words)))


def sink_effect(tokens: TokenEmbeddings, layers: list[int], n_pairs: int = 1000,
                seed: int = 0) -> pd.DataFrame:
    """What position 0 does to a layer: norms, baselines with and without its words.

    Returns one row per layer with the median token norm at position 0 and elsewhere, the
    anisotropy baseline over word vectors with position-0 words kept and dropped, and the
    random-word MEV of the original code (uncentred) with and without them.

    Parameters
    ----------
    tokens : TokenEmbeddings
        The sentences' token vectors.
    layers : list of int
        The layers to measure.
    n_pairs : int, optional
        Random pairs of word occurrences in different sentences behind each baseline
        (default 1000).
    seed : int, optional
        The claim's seed (default 0): the pairs come from its stream ``baseline-pairs``,
        the random words from ``random-words``, as in :func:`word_sample`.

    Returns
    -------
    pandas.DataFrame
        One row per layer: ``layer``, ``median_norm_position0``, ``median_norm_other`` (the
        norms of every token, special ones included), ``baseline_with_position0``,
        ``baseline_without_position0``, ``random_word_mev_uncentred_with_position0`` and
        ``random_word_mev_uncentred_without_position0``.
    """
    table_all = tokens.word_table(())
    table_cut = tokens.word_table((0,))
    first = tokens.position == 0
    pair_seed, word_seed = stream_seed(seed, "baseline-pairs"), stream_seed(seed, "random-words")
    rows = []
    for layer in layers:
        H = tokens.layer(layer)
        norms = np.linalg.norm(np.asarray(H, dtype=np.float32), axis=1)
        X_all, _ = tokens.word_vectors(layer, ())
        X_cut, _ = tokens.word_vectors(layer, (0,))
        rows.append({
            "layer": layer,
            "median_norm_position0": float(np.median(norms[first])),
            "median_norm_other": float(np.median(norms[~first])),
            "baseline_with_position0": metrics.cosine_baseline(
                X_all, table_all["sentence"].to_numpy(), n_pairs=n_pairs, seed=pair_seed),
            "baseline_without_position0": metrics.cosine_baseline(
                X_cut, table_cut["sentence"].to_numpy(), n_pairs=n_pairs, seed=pair_seed),
            "random_word_mev_uncentred_with_position0": metrics.mev_baseline(
                X_all, center=False, seed=word_seed, groups=table_all["sentence"].to_numpy()),
            "random_word_mev_uncentred_without_position0": metrics.mev_baseline(
                X_cut, center=False, seed=word_seed, groups=table_cut["sentence"].to_numpy()),
        })
    return pd.DataFrame(rows)


def sink_halves(sinks: pd.DataFrame) -> dict[str, float]:
    """Upper- and lower-half means of :func:`sink_effect`'s baselines, with and without the
    words at position 0 (the halves of :func:`split_halves`).

    Parameters
    ----------
    sinks : pandas.DataFrame
        :func:`sink_effect`'s table, one row per layer.

    Returns
    -------
    dict of str to float
        Four means, keyed ``"{upper|lower} half, position 0 {dropped|kept}"``.
    """
    lower, upper = split_halves(sinks)
    return {f"{half} half, position 0 {how}": float(part[f"baseline_{key}_position0"].mean())
            for half, part in (("upper", upper), ("lower", lower))
            for how, key in (("dropped", "without"), ("kept", "with"))}


def split_halves(per_layer: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Lower half (layers 1..L/2) and upper half (relative depth > 0.5) of a per-layer table.

    Parameters
    ----------
    per_layer : pandas.DataFrame
        One row per layer, with a ``layer`` column; L is its largest layer.

    Returns
    -------
    lower, upper : pandas.DataFrame
        The rows of layers 1 to L/2, and of layers above L/2 (layer 0 is in neither).
    """
    last = per_layer["layer"].max()
    lower = per_layer[(per_layer["layer"] >= 1) & (per_layer["layer"] <= last / 2)]
    return lower, per_layer[per_layer["layer"] > last / 2]


#: Display names of the :func:`summarize_layers` keys, for the notebook's tables.
SUMMARY_LABELS = {
    "layer_0": "layer 0", "min_contextual": "min (layers >= 1)",
    "lower_half_mean": "lower-half mean", "upper_half_mean": "upper-half mean",
    "peak": "peak", "peak_depth": "peak depth", "last_layer": "last layer",
    "max_se": "max s.e.",
    "selfsim_adj_lower": "self-sim adj, lower half",
    "selfsim_adj_upper": "self-sim adj, upper half",
    "selfsim_adj_before_last": "self-sim adj, layer L-1",
    "selfsim_adj_last": "self-sim adj, layer L",
    "selfsim_all_pairs_minus_different": "self-sim: all pairs minus different sentences (max)",
    "intra_adj_before_last": "intra-sim adj, layer L-1", "intra_adj_last": "intra-sim adj, layer L",
    "mev_uncentred_adj_max": "max mean adj. MEV (layers>=1), graded",
    "mev_uncentred_adj_mean": "mean adj. MEV (layers>=1)",
    "mev_adj_max": "max centred-PCA MEV − random-word MEV (layers>=1)",
    "mev_share_below_threshold": "share of words with adj. MEV below the threshold",
    "mev_adj_centred_baseline_max": "max MEV − centred random-word MEV (layers>=1)",
    "mev_adj_size_matched_max": "max size-matched adj. MEV (layers>=1)",
}


def summarize_layers(per_layer: pd.DataFrame) -> dict:
    """The numbers the claim-1 tables read from one model's per-layer table, keyed by id
    (:data:`SUMMARY_LABELS` names them for display).

    Parameters
    ----------
    per_layer : pandas.DataFrame
        One row per layer (:attr:`WordStats.per_layer`), layer 0 included, in layer order
        (the last two rows are layers L-1 and L).

    Returns
    -------
    dict of str to float
        One number per key of :data:`SUMMARY_LABELS`; the halves are
        :func:`split_halves`', "contextual" means layers >= 1.
    """
    lower, upper = split_halves(per_layer)
    contextual = per_layer[per_layer["layer"] >= 1]
    peak_row = contextual.loc[contextual["baseline"].idxmax()]
    last, before = per_layer.iloc[-1], per_layer.iloc[-2]
    return {
        "layer_0": float(per_layer.loc[per_layer["layer"] == 0, "baseline"].iloc[0]),
        "min_contextual": float(contextual["baseline"].min()),
        "lower_half_mean": float(lower["baseline"].mean()),
        "upper_half_mean": float(upper["baseline"].mean()),
        "peak": float(peak_row["baseline"]), "peak_depth": float(peak_row["relative_depth"]),
        "last_layer": float(last["baseline"]), "max_se": float(per_layer["baseline_se"].max()),
        "selfsim_adj_lower": float(lower["self_similarity_adj"].mean()),
        "selfsim_adj_upper": float(upper["self_similarity_adj"].mean()),
        "selfsim_adj_before_last": float(before["self_similarity_adj"]),
        "selfsim_adj_last": float(last["self_similarity_adj"]),
        "selfsim_all_pairs_minus_different": float(
            (per_layer["self_similarity_all_pairs"] - per_layer["self_similarity"]).abs().max()),
        "intra_adj_before_last": float(before["intra_similarity_adj"]),
        "intra_adj_last": float(last["intra_similarity_adj"]),
        "mev_uncentred_adj_max": float(contextual["mev_uncentred_adj"].max()),
        "mev_uncentred_adj_mean": float(contextual["mev_uncentred_adj"].mean()),
        "mev_adj_max": float(contextual["mev_adj"].max()),
        "mev_share_below_threshold": float(contextual["share_mev_adj_below_threshold"].mean()),
        "mev_adj_centred_baseline_max": float(contextual["mev_adj_centred_baseline"].max()),
        "mev_adj_size_matched_max": float(contextual["mev_adj_size_matched"].max()),
    }


def stable_word(per_word: pd.DataFrame, min_contexts: int = 20) -> str | None:
    """The frequent word (>= min_contexts contexts) whose MEV most exceeds its floor in
    layers >= 1: the data's 'beverage', whose contexts one vector explains best.

    MEV of ``n`` centred points is at least ``1/(n-1)`` (they span at most ``n-1``
    directions), so ranking by MEV itself favours the rarest words; the ranking uses
    ``MEV - 1/(n-1)`` averaged over layers, where ``n`` is the word's analysed occurrences.

    Parameters
    ----------
    per_word : pandas.DataFrame
        One row per (word, layer) (:attr:`WordStats.per_word`), with ``type``, ``layer``,
        ``mev`` (centred), ``n`` and ``contexts``.
    min_contexts : int, optional
        The distinct sentences a word needs to be considered (default 20).

    Returns
    -------
    str or None
        The word, or None when no word has ``min_contexts`` contexts.
    """
    frequent = per_word[(per_word["contexts"] >= min_contexts) & (per_word["layer"] >= 1)]
    if frequent.empty:
        return None
    above_floor = frequent["mev"] - 1 / (frequent["n"] - 1)
    return str(above_floor.groupby(frequent["type"]).mean().idxmax())


def baseline_band(pair_cosines: np.ndarray, units: SentenceUnits, n_boot: int = 1000,
                  seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Per-layer 95% band of the baseline: the bootstrap over sentences of
    :func:`check_values` (the same stream), read layer by layer.

    Parameters
    ----------
    pair_cosines : numpy.ndarray of shape (layers, pairs)
        The baseline's random-pair cosines (:attr:`WordStats.pair_cosines`).
    units : SentenceUnits
        The sentences of the pairs (:attr:`WordStats.units`).
    n_boot : int, optional
        Bootstrap draws (default 1000).
    seed : int, optional
        The claim's seed for its words (default 0; stream ``bootstrap/sentences``).

    Returns
    -------
    low, high : numpy.ndarray of shape (layers,)
        The 2.5% and 97.5% quantiles of each layer's draws of the baseline.
    """
    weights = dirichlet_weights(units.n_sentences, n_boot,
                                stream_seed(seed, "bootstrap/sentences"))
    draws = weighted_mean_draws(pair_cosines.T, pair_weights(units, weights))
    return np.quantile(draws, 0.025, axis=0), np.quantile(draws, 0.975, axis=0)


def leave_one_layer_out(values: np.ndarray, layers: np.ndarray, lower: np.ndarray,
                        upper: np.ndarray) -> dict:
    """How much a half-layer difference rests on one layer: the upper half's mean minus the
    lower half's with each layer of either half left out in turn, and the largest of those
    with the layer whose removal gives it (a robustness detail; the check grades all
    layers).

    Parameters
    ----------
    values : numpy.ndarray of shape (len(layers),)
        One value per layer.
    layers : numpy.ndarray of int
        The layers.
    lower, upper : numpy.ndarray of bool
        The halves (:func:`layer_halves`), each of at least two layers for a layer to be
        left out of it.

    Returns
    -------
    dict
        ``{"largest, one layer left out": value, "layer left out for it": layer}``; empty
        when no half has two layers.
    """
    out = []
    for half, other in ((lower, upper), (upper, lower)):
        if half.sum() < 2:
            continue
        for i in np.flatnonzero(half):
            kept = half.copy()
            kept[i] = False
            rest_lower, rest_upper = (kept, other) if half is lower else (other, kept)
            out.append((float(values[rest_upper].mean() - values[rest_lower].mean()),
                        int(layers[i])))
    if not out:
        return {}
    value, layer = max(out)
    return {"largest, one layer left out": value, "layer left out for it": layer}


def layer_halves(per_layer: pd.DataFrame, pair_cosines: np.ndarray, units: SentenceUnits
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Check that claim 1's measurements of one model agree, and split its layers.

    Parameters
    ----------
    per_layer : pandas.DataFrame
        One row per layer (:attr:`WordStats.per_layer`).
    pair_cosines : numpy.ndarray of shape (layers, pairs)
        The baseline's random-pair cosines.
    units : SentenceUnits
        The sentences of the pairs and of the words.

    Returns
    -------
    layers : numpy.ndarray of int
        The measured layers.
    contextual, lower, upper : numpy.ndarray of bool
        Layers 1 and above; layers 1 to L/2; layers above L/2.

    Raises
    ------
    ValueError
        When the cosines' layers or pairs disagree with ``per_layer`` or ``units``, or a
        half holds no layer.
    """
    layers = per_layer["layer"].to_numpy()
    if pair_cosines.shape[0] != layers.size:
        raise ValueError(f"pair_cosines has {pair_cosines.shape[0]} layers, per_layer "
                         f"{layers.size}.")
    if units.pairs.shape != (2, pair_cosines.shape[1]):
        raise ValueError(f"units.pairs must be (2, {pair_cosines.shape[1]}); got "
                         f"{units.pairs.shape}.")
    last = layers.max()
    contextual, lower, upper = layers >= 1, (layers >= 1) & (layers <= last / 2), \
        layers > last / 2
    if not lower.any() or not upper.any():
        raise ValueError("Need at least one layer in each half (layers 1..L/2 and above L/2); "
                         f"got layers {layers.tolist()}.")
    return layers, contextual, lower, upper


def mev_adjusted_draws(mev_draws: np.ndarray, mev_base: np.ndarray,
                       mev_baseline_draws: np.ndarray | None, n_boot: int,
                       words_method: str) -> tuple[np.ndarray, str]:
    """Bootstrap draws of the adjusted MEV per layer: the words' mean uncentred share minus
    the random-word baseline, resampled with it when its draws are given, else minus the
    fixed baseline.

    Parameters
    ----------
    mev_draws : numpy.ndarray of shape (n_boot, layers)
        Draws of the words' mean uncentred first-component share.
    mev_base : numpy.ndarray of shape (layers,)
        The uncentred random-word baseline.
    mev_baseline_draws : numpy.ndarray of shape (layers, n_boot), or None
        Draws of that baseline, its random words resampled
        (:attr:`WordStats.mev_baseline_draws`).
    n_boot : int
        The number of draws.
    words_method : str
        How the words were resampled, the start of the interval's method.

    Returns
    -------
    draws : numpy.ndarray of shape (n_boot, layers)
        The adjusted MEV's draws.
    method : str
        The interval's method, naming how the baseline was treated.

    Raises
    ------
    ValueError
        When ``mev_baseline_draws`` is not (layers, ``n_boot``).
    """
    if mev_baseline_draws is None:
        return mev_draws - mev_base, (words_method + "; random-word MEV baseline (uncentred "
                                      "TruncatedSVD, as the original code) fixed")
    mev_baseline_draws = np.asarray(mev_baseline_draws, dtype=np.float64)
    if mev_baseline_draws.shape != (mev_base.size, n_boot):
        raise ValueError(f"mev_baseline_draws must be (layers, n_boot) = "
                         f"{(mev_base.size, n_boot)}; got {mev_baseline_draws.shape}.")
    return mev_draws - mev_baseline_draws.T, (
        words_method + "; independently, the random words of the uncentred random-word MEV "
        "baseline (refitted in every draw)")


@dataclass
class CheckDraws:
    """The per-word values and bootstrap draws behind claim 1's checks (:func:`check_draws`).

    Attributes
    ----------
    base : float array (layers,)
        The baseline per layer (mean random-pair cosine).
    base_draws : float array (n_boot, layers)
        Its means over the pairs in each draw.
    self_sim : float array (words, layers)
        Each word's self-similarity.
    self_draws : float array (n_boot, layers)
        Its means over the words in each draw.
    mev : float array (words, layers)
        Each word's MEV, the uncentred share.
    centred_mev : float array (words, layers)
        Each word's centred MEV.
    contexts : array (words, layers)
        Each word's occurrences (the ``n`` column of the per-word table).
    mev_draws : float array (n_boot, layers)
        The means of ``mev`` over the words in each draw.
    pairs_method, words_method : str
        How the pairs' and the words' draws were made
        (:func:`~anisotropy.geometry.intervals.boot_method`).
    """

    base: np.ndarray
    base_draws: np.ndarray
    self_sim: np.ndarray
    self_draws: np.ndarray
    mev: np.ndarray
    centred_mev: np.ndarray
    contexts: np.ndarray
    mev_draws: np.ndarray
    pairs_method: str
    words_method: str


def check_draws(per_word: pd.DataFrame, layers: np.ndarray, pair_cosines: np.ndarray,
                units: SentenceUnits, n_boot: int, seed: int) -> CheckDraws:
    """Bootstrap draws of the baseline, self-similarity and MEV means over sentences.

    The sampled unit is the sentence: the bootstrap gives every sentence of ``units`` a
    Bayesian-bootstrap weight (stream ``bootstrap/sentences`` under ``seed``; the same in
    every layer), a baseline pair the product of its two sentences' weights and an analysed
    word the mean weight of its sentences (:mod:`anisotropy.claims.layerwise.sentence_units`) times
    how often an ordinary bootstrap over the words draws it (stream ``bootstrap/words``), and
    recomputes the baseline, self-similarity and MEV means from the cached per-unit values
    (no new forward pass). Pairs and words drawn from the same sentences move together, as
    between two samples of sentences.

    Parameters
    ----------
    per_word : pandas.DataFrame
        One row per (word, layer) (:attr:`WordStats.per_word`).
    layers : numpy.ndarray of int
        The measured layers, in the order of ``pair_cosines``' rows.
    pair_cosines : numpy.ndarray of shape (layers, pairs)
        The baseline's random-pair cosines.
    units : SentenceUnits
        The sentences of the pairs and of the words.
    n_boot : int
        Bootstrap draws.
    seed : int
        The claim's seed for its words.

    Returns
    -------
    CheckDraws
        The per-word values and the draws of their means.
    """
    weights = dirichlet_weights(units.n_sentences, n_boot,
                                stream_seed(seed, "bootstrap/sentences"))
    base = pair_cosines.mean(axis=1)
    base_draws = weighted_mean_draws(pair_cosines.T, pair_weights(units, weights))

    wide = per_word.pivot(index="type", columns="layer",
                          values=["self_similarity", "mev", "mev_uncentred", "n"])
    words = wide.index
    self_sim, centred_mev, mev, contexts = (
        wide[column][layers].to_numpy()
        for column in ("self_similarity", "mev", "mev_uncentred", "n"))
    # a word weighs its sentences' mean weight times how often it is drawn: which words a
    # sample of sentences holds (and so their MEV floors) moves more than their sentences'
    # mean weight says, and the coverage test finds the mean weight alone too narrow
    per_word_weights = word_weights(units, list(words), weights) * resample_counts(
        len(words), n_boot, stream_seed(seed, "bootstrap/words"))
    # NaN entries (a word whose occurrences share one vector in a layer, e.g. a decoder's
    # layer 0, has no MEV) are left out of that layer's mean, as in the per-layer table
    return CheckDraws(
        base, base_draws, self_sim, weighted_mean_draws(self_sim, per_word_weights), mev,
        centred_mev, contexts, weighted_mean_draws(mev, per_word_weights),
        boot_method(n_boot, units.n_sentences, "sentences (Bayesian bootstrap, the same "
                    "weights in every layer), each random pair weighted by its two sentences"),
        boot_method(n_boot, units.n_sentences, "sentences (Bayesian bootstrap, the same "
                    "weights in every layer) and words, each word drawn and weighted by its "
                    "sentences"))


def centred_mev(values: np.ndarray, contexts: np.ndarray,
                baseline: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The centred per-word PCA's adjusted MEV per layer (kawine/contextual's later commit
    3865f9b, with the uncentred baseline), and its floor.

    The first principal component of ``n`` centred points explains at least ``1/(n-1)`` of
    their variance, so the centred mean is at least the mean of ``1/(n-1)`` over the words
    minus the baseline (the floor, averaged over the words the statistic is defined for);
    the uncentred share has no such floor.

    Parameters
    ----------
    values : numpy.ndarray of shape (words, layers)
        Each word's centred first-component share (NaN where it is undefined).
    contexts : numpy.ndarray of shape (words, layers)
        Each word's occurrences.
    baseline : numpy.ndarray of shape (layers,)
        The uncentred random-word baseline.

    Returns
    -------
    adjusted, floor : numpy.ndarray of shape (layers,)
        The mean over words minus the baseline, and the floor of that mean.
    """
    floor_each = np.where(np.isfinite(values), 1.0 / np.maximum(contexts - 1, 1), np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return (np.nanmean(values, axis=0) - baseline,
                np.nanmean(floor_each, axis=0) - baseline)


def baseline_checks(d: CheckDraws, layers: np.ndarray, per_layer_interval: Callable,
                    halves: Callable) -> dict[str, CheckValue]:
    """The checks of the baseline alone: ``baseline-positive``, ``baseline-rises`` and
    ``decoder-baseline-high``, as :func:`check_values` records them.

    Parameters
    ----------
    d : CheckDraws
        The baseline and its draws (:func:`check_draws`).
    layers : numpy.ndarray of int
        The measured layers.
    per_layer_interval : callable
        ``(draws, rows, method, extreme)`` to the interval of the worst of the layers
        ``rows`` (a simultaneous bound over their joint draws).
    halves : callable
        Values per layer to the upper half's mean minus the lower half's.

    Returns
    -------
    dict of str to CheckValue
        ``{check id: CheckValue}``: (measured, Interval, details).
    """
    base, draws, last = d.base, d.base_draws, layers.max()
    contextual, lower, upper = layers >= 1, (layers >= 1) & (layers <= last / 2), \
        layers > last / 2
    return {
        BASELINE_POSITIVE: CheckValue(
            float(base[contextual].min()),
            per_layer_interval(draws, contextual, d.pairs_method, interval_of_min),
            {"layer of the minimum": int(layers[contextual][base[contextual].argmin()])}),
        BASELINE_RISES: CheckValue(
            float(halves(base)), percentile_interval(halves(draws), method=d.pairs_method),
            {"upper half": float(base[upper].mean()),
             "lower half": float(base[lower].mean()), "layer 0": float(base[layers == 0][0])
             if (layers == 0).any() else None,
             "upper minus lower without layer L": float(
                 base[upper & (layers < last)].mean() - base[lower].mean())
             if (upper & (layers < last)).any() else None}),
        DECODER_BASELINE_HIGH: CheckValue(
            float(base[upper].mean()),
            percentile_interval(draws[:, upper].mean(axis=1), method=d.pairs_method),
            {"last layer": float(base[layers == last][0])})}


def _worst_layer_interval(draws: np.ndarray, rows: np.ndarray, method: str,
                          extreme: Callable) -> Interval:
    """The interval of the worst of the layers ``rows``, for a statement about every layer
    >= 1: ``extreme`` of their simultaneous intervals over the layers' joint draws
    (:func:`~anisotropy.geometry.bands.every_layer_intervals`).

    Parameters
    ----------
    draws : numpy.ndarray of shape (n_boot, layers)
        The statistic's draws, one column per layer.
    rows : numpy.ndarray of bool
        The layers read (a mask of the columns of ``draws``).
    method : str
        The interval's method text.
    extreme : callable
        :func:`~anisotropy.geometry.intervals.interval_of_min` (the statement holds at the
        minimum) or :func:`~anisotropy.geometry.intervals.interval_of_max`.

    Returns
    -------
    Interval
        The interval of that minimum or maximum over ``"layers >= 1"``.
    """
    statement = "min" if extreme is interval_of_min else "max"
    return extreme(every_layer_intervals(draws[:, rows], statement, method=method),
                   "layers >= 1")


def check_values(per_layer: pd.DataFrame, per_word: pd.DataFrame, pair_cosines: np.ndarray,
                 units: SentenceUnits, n_boot: int = 1000, seed: int = 0,
                 mev_baseline_draws: np.ndarray | None = None) -> dict[str, CheckValue]:
    """The measured value and 95% interval of every claim-1 check for one model.

    The bootstrap is :func:`check_draws`'. The random-word MEV baseline is another sample:
    ``mev_baseline_draws`` (layers x ``n_boot``, from :func:`layerwise_word_stats`)
    resample its random words and refit the uncentred share in every draw; without them
    the baseline is held fixed and the interval says so. A statement about every layer
    (``baseline-positive``, ``mev-low``) is read on the worst layer, its interval's end that
    would call it false a simultaneous bound over the layers' joint draws
    (:func:`~anisotropy.geometry.bands.every_layer_intervals`).

    ``mev-low`` grades the statistic the published numbers are (kawine/contextual at
    commit 84d2f97): each word's uncentred first-component share minus the uncentred
    random-word share, averaged over words; its details give the centred variant beside it
    (:func:`centred_mev`).

    Parameters
    ----------
    per_layer, per_word : pandas.DataFrame
        One row per layer and per (word, layer) (:class:`WordStats`).
    pair_cosines : numpy.ndarray of shape (layers, pairs)
        The baseline's random-pair cosines.
    units : SentenceUnits
        The sentences of the pairs and of the words.
    n_boot : int
        Bootstrap draws.
    seed : int
        The claim's seed for its words.
    mev_baseline_draws : numpy.ndarray of shape (layers, n_boot), optional
        Draws of the random-word MEV baseline.

    Returns
    -------
    dict of str to CheckValue
        ``{check_id: CheckValue}`` (measured, Interval, details) for ``baseline-positive``,
        ``baseline-rises``, ``decoder-baseline-high``, ``selfsim-falls`` and ``mev-low``,
        plus ``last-layer-rise`` as ``CheckValue(measured)`` (no interval, no details).
    """
    layers, contextual, lower, upper = layer_halves(per_layer, pair_cosines, units)
    d = check_draws(per_word, layers, pair_cosines, units, n_boot, seed)
    base, base_draws, self_sim, mev = d.base, d.base_draws, d.self_sim, d.mev
    mev_base = per_layer["mev_uncentred_baseline"].to_numpy()  # the paper's combination
    both = (f"{d.words_method}; the baseline's pairs by the same sentence weights")

    def halves(values: np.ndarray) -> np.ndarray:
        return values[..., upper].mean(axis=-1) - values[..., lower].mean(axis=-1)

    adjusted = np.nanmean(self_sim, axis=0) - base
    adjusted_draws = d.self_draws - base_draws
    with warnings.catch_warnings():  # all-NaN columns (no MEV in a layer) give NaN
        warnings.simplefilter("ignore", RuntimeWarning)
        mev_adj = np.nanmean(mev, axis=0) - mev_base
    mev_adj_draws, mev_method = mev_adjusted_draws(d.mev_draws, mev_base, mev_baseline_draws,
                                                   n_boot, d.words_method)
    centred_adj, centred_floor = centred_mev(d.centred_mev, d.contexts, mev_base)
    out = {
        **baseline_checks(d, layers, _worst_layer_interval, halves),
        SELFSIM_FALLS: CheckValue(
            float(halves(adjusted)), percentile_interval(halves(adjusted_draws), method=both),
            {"upper half": float(adjusted[upper].mean()),
             "lower half": float(adjusted[lower].mean()),
             **leave_one_layer_out(adjusted, layers, lower, upper)}),
        MEV_LOW: CheckValue(
            float(mev_adj[contextual].max()),
            _worst_layer_interval(mev_adj_draws, contextual, mev_method, interval_of_max),
            {"layer of the maximum": int(layers[contextual][mev_adj[contextual].argmax()]),
             "centred PCA (commit 3865f9b)": float(np.nanmax(centred_adj[contextual])),
             "centred floor": float(np.nanmax(centred_floor[contextual])),
             "median contexts": float(np.nanmedian(d.contexts[:, 0]))}),
    }
    intra = per_layer["intra_similarity_adj"].to_numpy()
    out[LAST_LAYER_RISE] = CheckValue({
        "self-sim change": float(adjusted[-1] - adjusted[-2]),
        "intra-sim change": float(intra[-1] - intra[-2])}, None, None)
    return out
