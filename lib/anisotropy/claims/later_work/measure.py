"""Chapter 6's measurements on one model: massive activations, attention sinks, rogue
dimensions, intrinsic dimension across depth and four anisotropy measures.

Everything here reads arrays the claims already cache (claim 1's token vectors of SNLI
sentences at every layer, claims 3-4's sentence means of the STS sentences) plus two
passes of its own: attention weights (:mod:`anisotropy.inputs.attention`) and the same
sentences with their words shuffled. Every interval resamples the sentences (or, for the
cosine contributions, the random pairs; for STS, the sentence pairs; for the sink rate, the
windows), with one set of
Bayesian-bootstrap weights shared by every layer of a model, so that a statement about the
shape of a profile across layers is resampled as one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from anisotropy.claims.sts import cosine_scores, score_correlations, spearman_change_draws
from anisotropy.geometry.dimension import twonn_subset_log_ratios
from anisotropy.geometry.gride import gride_subset_plateaus
from anisotropy.geometry.intervals import (
    Interval,
    boot_method,
    percentile_interval,
    weighted_mean_draws,
)
from anisotropy.geometry.isotropy import isoscore, partition_isotropy
from anisotropy.geometry.outliers import (
    cosine_contributions,
    sequence_peaks,
    standardise,
    without_dimensions,
)
from anisotropy.geometry.streams import stream_seed
from anisotropy.geometry.transforms import AllButTheTop
from anisotropy.geometry.twonn import twonn_fit
from anisotropy.inputs.tasks import sts_aggregation, sts_task, word_task
from anisotropy.inputs.token_embeddings import split_words

__all__ = ["LaterMeasurement", "WordContexts", "word_contexts", "context_word_vectors",
           "shuffle_words", "one_token_per_sentence", "massive_profile",
           "rogue_profile", "dimension_profile", "measures_profile", "standardised_sts",
           "standardised_words"]

#: Tokens Sun et al. (2024) name as carriers of massive activations besides the first:
#: delimiters (punctuation, a newline).
DELIMITER = re.compile(r"^[\W_]+$")
#: The column of the standardisation tables holding the Spearman after all-but-the-top: the
#: method's name. The finding of the same name
#: (:data:`~anisotropy.claims.later_work.ids.ALL_BUT_THE_TOP`, its mean change) is another
#: thing: renaming the check does not rename this column of the results.
ABTT_COLUMN = "all-but-the-top"


@dataclass
class LaterMeasurement:
    """Chapter 6 on one model (:func:`anisotropy.claims.later_work.claim.measure_model`).

    Attributes
    ----------
    name : str
        The model's name.
    kind : str
        ``"encoder"`` or ``"decoder"``.
    per_layer : pandas.DataFrame
        One row per layer, the shuffled text's TwoNN profile included.
    checks : dict of str to CheckValue
        ``{id: CheckValue}``: measured, Interval or None, details.
    facts : dict
        The sample's counts and the standardisation tables; default empty.
    attention : float array (n_windows, n_layers, n_heads) or None
        The windows' attention to the first token; None (default) when the model gives
        none.
    """

    name: str
    kind: str
    per_layer: pd.DataFrame
    checks: dict
    facts: dict = field(default_factory=dict)
    attention: np.ndarray | None = None


@dataclass(frozen=True)
class WordContexts:
    """Contexts of words: ``texts[i]`` holds ``word[i]`` as its word number
    ``word_index[i]`` (words as :func:`~anisotropy.inputs.token_embeddings.split_words`
    splits them).

    Attributes
    ----------
    texts : list of str
        The contexts, their words joined by single spaces.
    word : list of str
        The word each context is for.
    word_index : list of int
        Its position among the context's words (never 0).
    """

    texts: list[str]
    word: list[str]
    word_index: list[int]


def word_contexts(words: list[str], texts: list[str], per_word: int, width: int,
                  seed: int) -> WordContexts:
    """Up to ``per_word`` occurrences of each word in ``texts`` (matched case-insensitively
    on whole words), each cut to the ``width`` words before it and after it: the contexts
    over which Timkey & van Schijndel (2021, Sec. 5) average a word's vector.

    An occurrence that opens its text is not used, so the word is never at position 0 of
    its context (a decoder's first position carries the massive activations of Sun et al.
    2024, whatever the token). Where a word has more occurrences than ``per_word``, a seeded
    sample (``seed``) in text order is kept; a word with none has no context, which the
    caller reports. The words of a context are joined by single spaces, so that splitting
    it again gives the same words.

    Parameters
    ----------
    words : list of str
        The words to find; words equal but for case are one word.
    texts : list of str
        The texts searched, split by
        :func:`~anisotropy.inputs.token_embeddings.split_words`.
    per_word : int
        Most occurrences kept per word, >= 1.
    width : int
        Words kept on each side of the word, >= 1.
    seed : int
        Seed of ``numpy.random.default_rng`` for the sample of a word's occurrences.

    Returns
    -------
    WordContexts
        One entry per context, the words in the order of their lower-cased forms and each
        word's contexts in text order; ``word`` spells the word as ``words`` does (the last
        of several spellings).

    Raises
    ------
    ValueError
        When ``per_word`` or ``width`` is below 1.
    """
    if per_word < 1 or width < 1:
        raise ValueError(f"per_word and width must be >= 1; got {per_word} and {width}.")
    wanted = {w.lower(): w for w in words}
    found: dict[str, list[tuple[int, int]]] = {w: [] for w in wanted}
    split = []
    for t, text in enumerate(texts):
        parts = [w for _, _, w in split_words(text)]
        split.append(parts)
        for j, part in enumerate(parts[1:], start=1):
            hits = found.get(part.lower())
            if hits is not None:
                hits.append((t, j))
    rng = np.random.default_rng(seed)
    out = WordContexts([], [], [])
    for key in sorted(found):
        hits = found[key]
        if len(hits) > per_word:
            hits = [hits[i] for i in np.sort(rng.choice(len(hits), per_word, replace=False))]
        for t, j in hits:
            start = max(0, j - width)
            out.texts.append(" ".join(split[t][start: j + width + 1]))
            out.word.append(wanted[key])
            out.word_index.append(j - start)
    return out


def context_word_vectors(tokens, layer: int, contexts: WordContexts,
                         exclude_positions=()) -> dict[str, np.ndarray]:
    """Each word's vector averaged over its contexts: in each context, the mean of the
    word's subword vectors at ``layer``, then the mean over the word's contexts. ``tokens``
    holds the contexts' token vectors (:class:`WordContexts` order). A word whose tokens
    touch ``exclude_positions`` in a context is left out of that context.

    Parameters
    ----------
    tokens : TokenEmbeddings
        The token vectors of ``contexts.texts``, sentence ``i`` the context ``i``.
    layer : int
        The layer read; ``tokens`` must hold it.
    contexts : WordContexts
        The contexts (:func:`word_contexts`).
    exclude_positions : sequence of int, optional
        Token positions a word may not touch (``(0,)`` for a decoder); default ``()``.

    Returns
    -------
    dict of str to numpy.ndarray
        ``{word: vector}``, each vector ``(dim,)`` float64; a word left out of every one of
        its contexts has no entry.
    """
    vectors, table = tokens.word_vectors(layer, exclude_positions)
    row = {(int(s), int(w)): i for i, (s, w) in enumerate(
        zip(table["sentence"], table["word_index"], strict=True))}
    sums: dict[str, list] = {}
    for c, (word, index) in enumerate(zip(contexts.word, contexts.word_index, strict=True)):
        i = row.get((c, index))
        if i is not None:
            sums.setdefault(word, []).append(vectors[i])
    return {word: np.mean(np.asarray(v, dtype=np.float64), axis=0) for word, v in sums.items()}


def shuffle_words(sentences: list[str], seed: int) -> list[str]:
    """Each sentence with its whitespace-separated words in a random order (one seeded
    permutation per sentence): the word-shuffled control of Cheng et al. (2025), which keeps
    each sentence's words and length and removes their order.

    Parameters
    ----------
    sentences : list of str
        The sentences.
    seed : int
        Seed of ``numpy.random.default_rng``, drawn from in sentence order.

    Returns
    -------
    list of str
        The shuffled sentences in the order of ``sentences``, words joined by single
        spaces.
    """
    rng = np.random.default_rng(seed)
    out = []
    for sentence in sentences:
        words = sentence.split()
        out.append(" ".join(words[i] for i in rng.permutation(len(words))))
    return out


def one_token_per_sentence(tokens, seed: int, skip_first: bool = True) -> np.ndarray:
    """Row indices of one random token per sentence (special tokens and, with
    ``skip_first``, position 0 left out), in sentence order. The same rows serve every
    layer, so the sample is one point per sentence at each depth.

    Parameters
    ----------
    tokens : TokenEmbeddings
        The sentences' tokens: ``special_mask``, ``position`` and ``sentence_index`` are
        read.
    seed : int
        Seed of ``numpy.random.default_rng``.
    skip_first : bool, optional
        Leave out position 0; default True.

    Returns
    -------
    numpy.ndarray of int
        One token row per sentence that has a token left, ascending; a sentence with none
        gets no row.
    """
    rng = np.random.default_rng(seed)
    keep = ~tokens.special_mask & ((tokens.position > 0) if skip_first else True)
    rows = np.flatnonzero(keep)
    sentence = tokens.sentence_index[rows]
    starts = np.flatnonzero(np.r_[True, sentence[1:] != sentence[:-1]])
    counts = np.diff(np.r_[starts, rows.size])
    return rows[starts + (rng.random(starts.size) * counts).astype(np.int64)]


def _layer(tokens, layer: int) -> np.ndarray:
    return np.asarray(tokens.layer(layer), dtype=np.float32)


def massive_profile(tokens, layers: list[int], weights: np.ndarray, *, ratio: float,
                    magnitude: float) -> tuple[pd.DataFrame, dict]:
    """Per layer: the share of sentences whose largest activation is *massive* by both of
    Sun et al.'s (2024, Sec. 2) conditions, a magnitude above ``magnitude`` and at least
    ``ratio`` times the median |activation| of the sentence's hidden state
    (:func:`~anisotropy.geometry.outliers.sequence_peaks`); the geometric mean over
    sentences of that ratio; where the largest activation sits (position 0, a delimiter);
    the dimension that holds it most often and that dimension's share; and the coefficient
    of variation of the largest activation across sentences. Also the draws (``weights``
    over sentences), per layer, of the massive share and of the weighted counts behind the
    share of massive peaks at position 0 or a delimiter.

    Parameters
    ----------
    tokens : TokenEmbeddings
        The sentences' token vectors at ``layers``.
    layers : list of int
        The layers measured.
    weights : numpy.ndarray, shape (n_boot, n_sentences)
        Bootstrap weights over the sentences
        (:func:`~anisotropy.geometry.intervals.dirichlet_weights`).
    ratio : float
        Sun et al.'s ratio of the largest |activation| to the median.
    magnitude : float
        The magnitude a massive activation exceeds.

    Returns
    -------
    table : pandas.DataFrame
        One row per layer: ``layer``, ``massive_share``, ``massive_ratio`` (the geometric
        mean, sentences with a median of 0 left out), ``peak_at_first``,
        ``peak_first_or_delimiter``, ``massive_at_sink`` (of the massive sentences, NaN
        without one), ``top_dim``, ``top_dim_share``, ``top_dims`` (up to three dimensions,
        the most frequent first), ``peak_cv`` and ``peak_mean``.
    draws : dict of str to numpy.ndarray
        ``massive`` (the share), ``massive_count`` (the weighted count of massive
        sentences) and ``massive_at_sink`` (the weighted count of those at position 0 or a
        delimiter), each ``(n_boot, len(layers))``.
    """
    rows = []
    draws = {"massive": [], "massive_count": [], "massive_at_sink": []}
    delimiter = np.array([bool(DELIMITER.match(str(t).lstrip("Ġ▁"))) for t in tokens.tokens])
    for layer in layers:
        peaks = sequence_peaks(_layer(tokens, layer), tokens.sentence_index)
        log_ratio = np.log10(np.where(np.isfinite(peaks.ratio), peaks.ratio, np.nan))
        massive = ((peaks.peak > magnitude) & (peaks.ratio >= ratio)).astype(np.float64)
        first = tokens.position[peaks.row] == 0
        sink_or_delimiter = (first | delimiter[peaks.row]).astype(np.float64)
        dims, counts = np.unique(peaks.dim, return_counts=True)
        top = int(dims[counts.argmax()])
        n_massive = massive.sum()
        rows.append({"layer": layer, "massive_share": float(massive.mean()),
                     "massive_ratio": float(10 ** np.nanmean(log_ratio)),
                     "peak_at_first": float(first.mean()),
                     "peak_first_or_delimiter": float(sink_or_delimiter.mean()),
                     "massive_at_sink": (float((massive * sink_or_delimiter).sum() / n_massive)
                                         if n_massive else np.nan),
                     "top_dim": top, "top_dim_share": float(counts.max() / peaks.dim.size),
                     "top_dims": [int(d) for d in dims[np.argsort(counts)[::-1][:3]]],
                     "peak_cv": float(peaks.peak.std() / peaks.peak.mean()),
                     "peak_mean": float(peaks.peak.mean())})
        draws["massive"].append(weighted_mean_draws(massive, weights))
        draws["massive_count"].append(weights @ massive)
        draws["massive_at_sink"].append(weights @ (massive * sink_or_delimiter))
    return pd.DataFrame(rows), {k: np.stack(v, axis=1) for k, v in draws.items()}


def rogue_profile(tokens, layers: list[int], first: np.ndarray, second: np.ndarray,
                  weights: np.ndarray, k: int, remove: list[int]) -> tuple[pd.DataFrame,
                                                                           dict]:
    """Per layer, over the random token pairs ``(first, second)``: the mean cosine, the
    share of it carried by the ``k`` dimensions with the largest contributions
    (:func:`~anisotropy.geometry.outliers.cosine_contributions`), those dimensions, and the
    mean cosine with the dimensions ``remove`` set to 0. Returns the table and the draws
    (``weights`` over pairs), per layer, of the top-``k`` share (NaN where a draw's mean
    cosine is not positive) and of the mean cosine.

    Parameters
    ----------
    tokens : TokenEmbeddings
        The sentences' token vectors at ``layers``.
    layers : list of int
        The layers measured.
    first, second : numpy.ndarray of int, shape (n_pairs,)
        The token rows of each pair.
    weights : numpy.ndarray, shape (n_boot, n_pairs)
        Bootstrap weights over the pairs.
    k : int
        The number of dimensions whose share is measured.
    remove : list of int
        The dimensions set to 0 for ``mean_cosine_without_massive``.

    Returns
    -------
    table : pandas.DataFrame
        One row per layer: ``layer``, ``mean_cosine``, ``top_share`` (NaN where the mean
        cosine is not positive), ``top_dims`` (the ``k`` dimensions, the largest
        contribution first) and ``mean_cosine_without_massive``.
    draws : dict of str to numpy.ndarray
        ``top_share`` (each draw's own top ``k`` dimensions) and ``mean_cosine``, each
        ``(n_boot, len(layers))``.
    """
    rows, draws, cosines = [], [], []
    for layer in layers:
        X = _layer(tokens, layer)
        parts = cosine_contributions(X, first, second)
        cc = parts.mean(axis=0)
        top = np.argsort(cc)[::-1][:k]
        total = cc.sum()
        share = float(cc[top].sum() / total) if total > 0 else np.nan
        ablated = cosine_contributions(without_dimensions(X[np.r_[first, second]], remove),
                                       np.arange(first.size),
                                       np.arange(first.size, 2 * first.size))
        rows.append({"layer": layer, "mean_cosine": float(total), "top_share": share,
                     "top_dims": [int(d) for d in top],
                     "mean_cosine_without_massive": float(ablated.sum(axis=1).mean())})
        drawn = weighted_mean_draws(parts, weights)  # (n_boot, dim)
        totals = drawn.sum(axis=1)
        top_drawn = np.sort(drawn, axis=1)[:, ::-1][:, :k].sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            draws.append(np.where(totals > 0, top_drawn / totals, np.nan))
        cosines.append(totals)
    return pd.DataFrame(rows), {"top_share": np.stack(draws, axis=1),
                                "mean_cosine": np.stack(cosines, axis=1)}


def dimension_profile(tokens, layers: list[int], rows: np.ndarray, halves: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray]:
    """TwoNN intrinsic dimension per layer of the token ``rows`` (one per sentence), as
    Facco et al. fit it (:func:`~anisotropy.geometry.twonn.twonn_fit`: the largest 10%
    of ratios left out), and the same on each random half of those sentences, the
    neighbours searched again within the half
    (:func:`~anisotropy.geometry.dimension.twonn_subset_log_ratios`): the draws of a
    delete-half jackknife (:func:`~anisotropy.geometry.intervals.delete_half_interval`).

    A sentence and its token are one unit; a weighted bootstrap that keeps every point's
    neighbours fixed leaves out how a point's ratio changes with the points around it, and
    its intervals covered too few of other seeds' estimates (``scripts/coverage.py``).

    Parameters
    ----------
    tokens : TokenEmbeddings
        The sentences' token vectors at ``layers``.
    layers : list of int
        The layers measured.
    rows : numpy.ndarray of int
        The token rows, one per sentence (:func:`one_token_per_sentence`).
    halves : numpy.ndarray of int, shape (n_draws, len(rows) // 2)
        Random halves of the positions in ``rows``
        (:func:`~anisotropy.geometry.intervals.half_samples`), the same at every layer.

    Returns
    -------
    ids : numpy.ndarray, shape (len(layers),)
        The TwoNN estimate per layer of ``layers`` (L + 1 entries for layers 0..L).
    draws : numpy.ndarray, shape (n_draws, len(layers))
        Its estimate on each half, per layer; NaN at layer 0, whose spread no statistic
        reads.

    Raises
    ------
    ValueError
        When a half holds fewer distinct points than TwoNN needs at a layer >= 1, naming
        the parameters that set the sample.
    """
    ids, draws = [], []
    for layer in layers:
        whole, within = twonn_subset_log_ratios(_layer(tokens, layer)[rows], halves)
        ids.append(twonn_fit(whole))
        if layer == 0:
            # no statistic reads layer 0's spread, and a rotary model's layer 0 repeats a
            # token's vector, so a half of a small sample can hold too few distinct points
            draws.append(np.full(len(halves), np.nan))
            continue
        try:
            draws.append([twonn_fit(log_mu) for log_mu in within])
        except ValueError as error:
            raise ValueError(f"layer {layer}: a half of the {len(rows):,} sentences holds too "
                             f"few distinct points for TwoNN ({error}); measure more "
                             "sentences (n_sentences, n_shuffled_sentences)") from error
    return np.array(ids), np.array(draws).T


def gride_profile(tokens, layers: list[int], rows: np.ndarray, halves: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """GRIDE intrinsic dimension per layer of the token ``rows`` (one per sentence), the
    estimator Cheng et al. (2025) use, at the plateau of its scales
    (:func:`~anisotropy.geometry.gride.gride_plateau`: :math:`n_2 = 2, 4, \\dots \\le N/8`,
    the flattest three), repeated rows dropped as theirs are; and the same on each random
    half of the sentences, the neighbours searched and the scale chosen again within the
    half (:func:`~anisotropy.geometry.gride.gride_subset_plateaus`): the draws of a
    delete-half jackknife.

    Parameters
    ----------
    tokens : TokenEmbeddings
        The sentences' token vectors at ``layers``.
    layers : list of int
        The layers measured.
    rows : numpy.ndarray of int
        The token rows, one per sentence (:func:`one_token_per_sentence`).
    halves : numpy.ndarray of int, shape (n_draws, len(rows) // 2)
        Random halves of the positions in ``rows``, the same at every layer.

    Returns
    -------
    ids : numpy.ndarray, shape (len(layers),)
        The plateau's estimate per layer; NaN at layer 0 (the input embeddings, which no
        statistic reads and where a rotary model repeats a token's vector).
    draws : numpy.ndarray, shape (n_draws, len(layers))
        Its estimate on each half, per layer; NaN at layer 0.
    scales : numpy.ndarray of int, shape (len(layers),)
        The plateau's :math:`n_2` per layer (0 at layer 0).

    Raises
    ------
    ValueError
        When the sample or a half holds too few distinct points at a layer >= 1, naming the
        parameter that sets it.
    """
    ids, draws, scales = [], [], []
    for layer in layers:
        if layer == 0:
            ids.append(np.nan)
            draws.append(np.full(len(halves), np.nan))
            scales.append(0)
            continue
        try:
            whole, within = gride_subset_plateaus(_layer(tokens, layer)[rows], halves)
        except ValueError as error:
            raise ValueError(f"layer {layer}: GRIDE's plateau cannot be found on the "
                             f"{len(rows):,} sentences or a half of them ({error}); measure "
                             "more sentences (n_sentences)") from error
        ids.append(whole.d)
        draws.append(within)
        scales.append(whole.n2)
    return np.array(ids), np.array(draws).T, np.array(scales)


def measures_profile(tokens, layers: list[int], rows: np.ndarray) -> pd.DataFrame:
    """Per layer, four anisotropy measures of the token ``rows``: the share of variance on
    the first principal component, IsoScore (Rudman et al. 2022) and log10 of the
    partition-function isotropy I(W) (Mu & Viswanath 2018); the mean cosine comes from
    :func:`rogue_profile`.

    Parameters
    ----------
    tokens : TokenEmbeddings
        The sentences' token vectors at ``layers``.
    layers : list of int
        The layers measured.
    rows : numpy.ndarray of int
        The token rows measured (:func:`one_token_per_sentence`).

    Returns
    -------
    pandas.DataFrame
        One row per layer: ``layer``, ``top_pc_share``, ``isoscore`` and ``log10_iw``.
    """
    out = []
    for layer in layers:
        X = _layer(tokens, layer)[rows].astype(np.float64)
        centred = X - X.mean(axis=0)
        singular = np.linalg.svd(centred, compute_uv=False)
        variance = singular ** 2
        out.append({"layer": layer, "top_pc_share": float(variance[0] / variance.sum()),
                    "isoscore": isoscore(X), "log10_iw": partition_isotropy(X).log10})
    return pd.DataFrame(out)


def _standardised_scores(vectors: np.ndarray, first: np.ndarray, second: np.ndarray
                         ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cosine scores of the pairs ``(first, second)``: raw, with every dimension z-scored,
    and after all-but-the-top (Mu & Viswanath 2018: the mean and the top ``D = dim/100``
    principal directions removed, at least 1), each fitted on the vectors the pairs use."""
    used = np.unique(np.r_[first, second])
    z = np.zeros(vectors.shape, dtype=np.float64)
    z[used] = standardise(vectors[used])
    top = np.zeros(vectors.shape, dtype=np.float64)
    top[used] = AllButTheTop(max(1, round(vectors.shape[1] / 100))).fit_transform(
        np.asarray(vectors[used], dtype=np.float64))
    return (cosine_scores(vectors[first], vectors[second]), cosine_scores(z[first], z[second]),
            cosine_scores(top[first], top[second]))


def _task_changes(vectors: np.ndarray, frame: pd.DataFrame, index: dict, columns: tuple,
                  subsets, how: str, n_boot: int, seed: int) -> tuple[dict, np.ndarray]:
    """One task's row (Spearman x 100 raw, z-scored and after all-but-the-top, and the
    changes) and the paired-bootstrap draws of the z-scoring change. ``columns`` names the
    frame's two item columns, ``index`` maps an item to its row of ``vectors``."""
    a = np.asarray([index[x] for x in frame[columns[0]]])
    b = np.asarray([index[x] for x in frame[columns[1]]])
    raw_scores, z_scores, top_scores = _standardised_scores(vectors, a, b)
    gold = frame["score"].to_numpy()
    raw, zed, top = (score_correlations(x, gold, subsets)[f"spearman_{how}"]
                     for x in (raw_scores, z_scores, top_scores))
    row = {"raw": raw, "standardised": zed, "change": zed - raw, ABTT_COLUMN: top,
           "abtt change": top - raw, "pairs": len(frame)}
    return row, spearman_change_draws(z_scores, raw_scores, gold, n_boot, seed, subsets)


def _changes_table(rows: dict[str, dict], draws: dict[str, np.ndarray]
                   ) -> tuple[pd.DataFrame, dict]:
    table = pd.DataFrame([{"task": task, **row} for task, row in rows.items()])
    return table.set_index("task"), {"draws": draws,
                                     "pairs": {t: r["pairs"] for t, r in rows.items()}}


def standardised_sts(vectors: np.ndarray, sentences: list[str], task_names: list[str], *,
                     max_pairs: int | None, data_seed: int, n_boot: int, seed: int
                     ) -> tuple[pd.DataFrame, dict]:
    """Spearman x 100 of cosine scores on each STS task, raw, with every dimension z-scored
    over the task's sentences (Timkey & van Schijndel 2021, Sec. 5) and after
    all-but-the-top, each task aggregated as the book reports it (``wmean`` over the
    STS12-16 subsets, ``all`` pairs pooled for STS-B and SICK-R), and the paired-bootstrap
    draws of the change per task.

    Parameters
    ----------
    vectors : numpy.ndarray, shape (n_sentences, dim)
        Row ``i``: the vector of ``sentences[i]``.
    sentences : list of str
        Every sentence of the tasks' pairs.
    task_names : list of str
        The STS tasks.
    max_pairs : int or None
        Pairs per task, a seeded subset (:func:`anisotropy.inputs.tasks.sts_task`); None
        keeps every pair.
    data_seed : int
        The seed the subsets are drawn under (each task's from its stream
        ``sts-pairs/TASK``).
    n_boot : int
        Bootstrap resamples per task.
    seed : int
        The draws' seed; each task's is the stream ``sts/TASK`` under it.

    Returns
    -------
    table : pandas.DataFrame
        One row per task, indexed ``task``: ``raw``, ``standardised``, ``change``,
        ``all-but-the-top``, ``abtt change`` (Spearman x 100 and the changes from raw) and
        ``pairs``.
    extra : dict
        ``draws`` (``{task: (n_boot,) draws of the z-scoring change}``) and ``pairs``
        (``{task: pairs}``), as
        :func:`anisotropy.claims.sts.mean_change_interval` takes them.
    """
    index = {s: i for i, s in enumerate(sentences)}
    rows, draws = {}, {}
    for task in task_names:
        frame = sts_task(task, max_pairs, data_seed)
        how = sts_aggregation(task)
        subsets = frame["subset"].to_numpy() if how == "wmean" else None
        rows[task], draws[task] = _task_changes(
            vectors, frame, index, ("sentence1", "sentence2"), subsets, how, n_boot,
            stream_seed(seed, f"sts/{task}"))
    return _changes_table(rows, draws)


def standardised_words(vectors: dict[str, np.ndarray], task_names: list[str], *,
                       n_boot: int, seed: int) -> tuple[pd.DataFrame, dict]:
    """As :func:`standardised_sts`, on each word-similarity task (every pair pooled, z-scored
    over the task's words), on the pairs whose two words have a vector (``{word: vector}``,
    from :func:`context_word_vectors`); the table gives the pairs kept and the pairs of the
    task.

    Parameters
    ----------
    vectors : dict of str to numpy.ndarray
        ``{word: vector}`` (:func:`context_word_vectors`).
    task_names : list of str
        The word-similarity tasks.
    n_boot : int
        Bootstrap resamples per task.
    seed : int
        The draws' seed; each task's is the stream ``words/TASK`` under it.

    Returns
    -------
    table : pandas.DataFrame
        As :func:`standardised_sts`'s: ``pairs`` counts the pairs kept (both words with a
        vector), and ``pairs of the task`` every pair of the task.
    extra : dict
        ``draws`` and ``pairs`` per task, as :func:`standardised_sts` gives them.
    """
    words = sorted(vectors)
    index = {w: i for i, w in enumerate(words)}
    matrix = np.stack([vectors[w] for w in words]) if words else np.zeros((0, 1))
    rows, draws, totals = {}, {}, {}
    for task in task_names:
        frame = word_task(task)
        totals[task] = len(frame)
        covered = frame[frame["word1"].isin(index) & frame["word2"].isin(index)]
        rows[task], draws[task] = _task_changes(
            matrix, covered, index, ("word1", "word2"), None, "all", n_boot,
            stream_seed(seed, f"words/{task}"))
    table, extra = _changes_table(rows, draws)
    table["pairs of the task"] = pd.Series(totals)
    return table, extra


def interval_of(draws: np.ndarray, what: str, n_boot: int, n_units: int, unit: str
                ) -> Interval:
    """The 95% percentile interval of ``draws`` with its method text.

    Parameters
    ----------
    draws : numpy.ndarray
        The bootstrap draws; at least 20, all finite.
    what : str
        A note on what was drawn, appended to the method text.
    n_boot : int
        The number of resamples.
    n_units : int
        The number of units resampled.
    unit : str
        What the units are, in the plural (``"sentences"``).

    Returns
    -------
    Interval
        :func:`~anisotropy.geometry.intervals.percentile_interval` of ``draws``, its method
        :func:`~anisotropy.geometry.intervals.boot_method` of the other arguments.
    """
    return percentile_interval(draws, method=boot_method(n_boot, n_units, unit, what))
