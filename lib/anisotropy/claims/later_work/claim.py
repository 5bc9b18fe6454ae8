"""Chapter 6, what came after: massive activations and attention sinks (Sun et al. 2024;
Xiao et al. 2024; Gu et al. 2025), rogue dimensions (Timkey & van Schijndel 2021),
intrinsic dimension across depth (Valeriani et al. 2023; Cheng et al. 2025) and four
anisotropy measures side by side (Rudman et al. 2022): settings, forward passes,
measurements and checks.

The chapter reads claim 1's cached token vectors (the same SNLI sentences at every layer)
and claims 3-4's STS sentence vectors; its own forward passes are the attention weights and
the word-shuffled sentences. The formulas are in :mod:`anisotropy.claims.later_work.measure`,
:mod:`anisotropy.geometry.outliers`, :mod:`anisotropy.geometry.dimension`,
:mod:`anisotropy.geometry.twonn` and
:mod:`anisotropy.inputs.attention`; the page is ``notebooks/06-later-work.ipynb``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd

from anisotropy.claims.base import CheckValue, grade_each, measure_each
from anisotropy.claims.declaration import ClaimDeclaration
from anisotropy.claims.later_work import measure as later
from anisotropy.claims.later_work.ids import (
    ALL_BUT_THE_TOP,
    ID_PEAK_GRIDE,
    ID_PEAK_INTERIOR,
    ID_SHUFFLED_FLATTER,
    MASSIVE_ACTIVATIONS,
    MASSIVE_AT_SINK,
    MASSIVE_DIMS,
    MASSIVE_ONSET,
    MASSIVE_REMOVAL,
    MEASURES_AGREEMENT,
    MEASURES_DISAGREE,
    ROGUE_DIMENSIONS,
    SINK_HEADS,
    SINK_HEADS_SHORT,
    STANDARDISE_HELPS,
    STANDARDISE_HELPS_WORDS,
)
from anisotropy.claims.later_work.measure import (
    context_word_vectors,
    shuffle_words,
    standardised_sts,
    standardised_words,
    word_contexts,
)
from anisotropy.claims.sts import mean_change_interval
from anisotropy.geometry.dimension import MIN_TWONN_POINTS
from anisotropy.geometry.gride import MIN_PLATEAU_POINTS
from anisotropy.geometry.intervals import (
    boot_method,
    delete_half_interval,
    dirichlet_weights,
    half_samples,
    normal_interval,
    resample_indices,
)
from anisotropy.geometry.isotropy import isoscore
from anisotropy.geometry.similarity import random_pairs
from anisotropy.geometry.streams import stream_seed
from anisotropy.inputs import corpora, tasks
from anisotropy.inputs.attention import AttentionUnavailable, first_token_attention, sink_rate
from anisotropy.inputs.corpora import STS_TASKS
from anisotropy.inputs.jobs import ALL_LAYERS, FIRST_LAST, LAST, Extraction, jobs
from anisotropy.inputs.references import anisotropic_level, reference_value
from anisotropy.inputs.resolved import short_name
from anisotropy.inputs.settings import TRANSFORMERS, ClaimSettings, param
from anisotropy.inputs.tasks import corpus, word_task_words

SLUG = "06-later-work"
#: How the intrinsic dimension's draws are made, for its intervals' method text.
ID_INTERVAL = "one token per sentence, TwoNN's neighbours searched again within each half"
#: The same for GRIDE, whose scale is chosen again on each half.
GRIDE_INTERVAL = ("one token per sentence, GRIDE's neighbours searched and its plateau scale "
                  "chosen again within each half")


@dataclass(frozen=True)
class Settings(ClaimSettings):
    """Chapter 6's parameters."""

    slug: ClassVar[str] = SLUG

    models: tuple[str, ...] = param(TRANSFORMERS, "models to measure (`anisotropy models`)")
    n_sentences: int = param(4000, "SNLI sentences of claim 1 (equal values share its cached "
                             "vectors); the intrinsic dimension's halves need 2 x 64 (GRIDE's "
                             "three scales up to N / 8)", min=2 * MIN_PLATEAU_POINTS)
    n_sink_windows: int = param(100, "WikiText-2 and PTB windows whose attention weights are "
                                "computed (Gu et al.: 100 sequences)", min=2)
    sink_tokens: int = param(64, "tokens per window, the model's special tokens included "
                             "(Gu et al.'s T = 64)", min=2, max=512)
    n_attention_sentences: int = param(500, "of the SNLI sentences, those whose attention "
                                       "weights give the short-sentence sink rate beside "
                                       "Gu et al.'s", min=2)
    n_shuffled_sentences: int = param(2000, "of those, sentences encoded again with their "
                                      "words shuffled (the intrinsic-dimension control); "
                                      "its halves need 2 x 20", min=2 * MIN_TWONN_POINTS)
    n_pairs: int = param(2000, "random token pairs (two sentences, one token of each) per "
                         "layer for the cosine contributions", min=2)
    rogue_k: int = param(3, "dimensions whose share of the mean cosine is graded", min=1)
    rogue_min_cosine: float = param(0.1, "a layer's top-k share is graded only where the "
                                    "lower end of its mean cosine's 95% interval reaches "
                                    "this (the share's denominator)", min=0.01, max=0.99)
    sink_epsilon: float | None = param(None, "a head is a sink head in a sequence when its "
                                       "mean attention to the first token exceeds this; "
                                       "None: Gu et al.'s (data/references.yaml)",
                                       min=0.01, max=0.99)
    tasks: tuple[str, ...] = param(STS_TASKS, "STS tasks (equal values share claim 3's "
                                   "vectors)", choices="sts_tasks")
    max_pairs: int | None = param(None, "None: every pair; an integer: a seeded subset per "
                                  "task (equal values share claim 3's vectors)", min=1)
    word_tasks: tuple[str, ...] = param(("SimLex-999", "WordSim-353"), "word-similarity "
                                        "tasks (each word averaged over its contexts); "
                                        "empty: not run", choices="word_tasks", min_items=0)
    word_contexts: int = param(3, "contexts per word (occurrences in WikiText-2, PTB and "
                               "SNLI) its vector is averaged over", min=1)
    context_width: int = param(5, "words each side of the word in a context", min=1)
    n_boot: int = param(1000, "bootstrap resamples behind every 95% interval", min=20)
    n_boot_isoscore: int = param(200, "bootstrap resamples behind IsoScore's interval (one "
                                 "eigendecomposition each)", min=20)
    n_id_halves: int = param(100, "random halves of the sentences behind the intrinsic "
                             "dimension's intervals (TwoNN's neighbours searched again in "
                             "each)", min=20)


def models(settings: Settings) -> list[str]:
    """The models the chapter runs.

    Parameters
    ----------
    settings : Settings
        The chapter's parameters.

    Returns
    -------
    list of str
        ``settings.models``, in their order.
    """
    return list(settings.models)


def sentences(settings: Settings) -> list[str]:
    """Claim 1's SNLI sentences (its cached token vectors are read).

    Parameters
    ----------
    settings : Settings
        The chapter's parameters: ``n_sentences`` and ``seed`` are read.

    Returns
    -------
    list of str
        ``settings.n_sentences`` sentences of
        :data:`anisotropy.inputs.corpora.SENTENCE_SOURCE`
        (:func:`anisotropy.inputs.corpora.sentences`), drawn from the ``data`` stream
        under ``settings.seed``.
    """
    return corpora.sentences(corpora.SENTENCE_SOURCE, settings.n_sentences, settings.seed)


def shuffled(settings: Settings) -> list[str]:
    """The first ``n_shuffled_sentences`` of :func:`sentences`, words shuffled.

    Parameters
    ----------
    settings : Settings
        The chapter's parameters: ``n_shuffled_sentences``, and ``seed`` (the stream
        ``chapter6/shuffle`` under it) are read.

    Returns
    -------
    list of str
        Those sentences in their order, each with its words in a seeded random order
        (:func:`~anisotropy.claims.later_work.measure.shuffle_words`).
    """
    base = sentences(settings)[: settings.n_shuffled_sentences]
    return shuffle_words(base, stream_seed(settings.seed, "chapter6/shuffle"))


def sink_windows(settings: Settings) -> list[str]:
    """WikiText-2 and PTB (valid and test) cut into windows of ``sink_tokens`` words, a
    seeded sample of ``n_sink_windows``: each has at least ``sink_tokens`` model tokens
    and is cut to that many (:func:`anisotropy.inputs.attention.first_token_attention`).

    Parameters
    ----------
    settings : Settings
        The chapter's parameters: ``sink_tokens``, ``n_sink_windows`` and ``seed`` (the
        stream ``chapter6/sink-windows`` under it) are read.

    Returns
    -------
    list of str
        The windows of the ``lm`` corpus (:func:`anisotropy.inputs.tasks.windows`), each
        of ``sink_tokens`` whitespace-separated words.
    """
    return tasks.windows("lm", settings.sink_tokens, settings.n_sink_windows,
                         stream_seed(settings.seed, "chapter6/sink-windows"))


def contexts(settings: Settings):
    """Up to ``word_contexts`` occurrences of every word of the word-similarity tasks in
    claim 3's frequency corpus (WikiText-2, PTB and SNLI), each with ``context_width``
    words each side (:func:`anisotropy.claims.later_work.measure.word_contexts`).

    Parameters
    ----------
    settings : Settings
        The chapter's parameters: ``word_tasks``, ``word_contexts``, ``context_width`` and
        ``seed`` (the stream ``chapter6/contexts`` under it) are read.

    Returns
    -------
    WordContexts
        The contexts (:class:`anisotropy.claims.later_work.measure.WordContexts`).
    """
    return word_contexts(word_task_words(list(settings.word_tasks)), corpus("frequency"),
                         settings.word_contexts, settings.context_width,
                         stream_seed(settings.seed, "chapter6/contexts"))


def sts(settings: Settings) -> tuple[str, object]:
    """The STS sentences of claims 3-4 with these tasks and pairs.

    Parameters
    ----------
    settings : Settings
        The chapter's parameters: ``tasks``, ``max_pairs`` and ``seed`` are read.

    Returns
    -------
    name : str
        The name the sentences' forward passes are cached under
        (:func:`anisotropy.inputs.corpora.sts_sentences`).
    build : callable
        Returns the sentences (a list of str) when called.
    """
    return corpora.sts_sentences(settings.tasks, settings.max_pairs, settings.seed)


def inputs(settings: Settings) -> list[Extraction]:
    """Claim 1's token vectors (every layer), the attention to the first token of the
    windows (cut to ``sink_tokens``) and of the first ``n_attention_sentences`` sentences,
    the shuffled sentences (every layer) and the STS sentences (layers 0, 1 and last), per
    model.

    Parameters
    ----------
    settings : Settings
        The chapter's parameters.

    Returns
    -------
    list of Extraction
        The jobs of every model of ``settings.models``, in this order: the token vectors of
        :func:`sentences` (every layer), the attention of :func:`sink_windows` (cut to
        ``sink_tokens``) and of the first ``n_attention_sentences`` sentences (each at its
        own length), the token vectors of :func:`shuffled` (every layer) and of the STS
        sentences (:func:`sts`; layers 0, 1 and last), and, when ``word_tasks`` is not
        empty, the token vectors of the word contexts (:func:`contexts`; last layer).
    """
    s = settings
    name, build = sts(s)
    return (jobs(s.models, f"snli-{s.n_sentences}", "tokens", ALL_LAYERS,
                 lambda: sentences(s))
            + jobs(s.models, f"lm-windows-{s.n_sink_windows}x{s.sink_tokens}", "attention",
                   f"T{s.sink_tokens}", lambda: sink_windows(s))
            + jobs(s.models, f"snli-{s.n_sentences}-first-{s.n_attention_sentences}",
                   "attention", ALL_LAYERS, lambda: sentences(s)[: s.n_attention_sentences])
            + jobs(s.models, f"snli-{s.n_sentences}-shuffled-{s.n_shuffled_sentences}",
                   "tokens", ALL_LAYERS, lambda: shuffled(s))
            + jobs(s.models, name, "tokens", FIRST_LAST, build)
            + (jobs(s.models, f"words-{'-'.join(s.word_tasks)}-contexts-{s.word_contexts}"
                    f"x{s.context_width}", "tokens", LAST, lambda: contexts(s).texts)
               if s.word_tasks else []))


# --------------------------------------------------------------------------- checks
GRADED = (MASSIVE_ACTIVATIONS, MASSIVE_AT_SINK, SINK_HEADS, ROGUE_DIMENSIONS, STANDARDISE_HELPS,
          STANDARDISE_HELPS_WORDS, ID_PEAK_INTERIOR, ID_SHUFFLED_FLATTER, MEASURES_DISAGREE)
FINDINGS = (MASSIVE_ONSET, MASSIVE_DIMS, MASSIVE_REMOVAL, SINK_HEADS_SHORT, MEASURES_AGREEMENT,
            ALL_BUT_THE_TOP, ID_PEAK_GRIDE)
CHECKS = GRADED + FINDINGS
#: The claim, declared once (:class:`~anisotropy.claims.declaration.ClaimDeclaration`).
DECLARATION = ClaimDeclaration(
    slug=SLUG,
    title="6. What came after: massive activations, rogue dimensions, intrinsic dimension",
    short="6. later work", references="claim6",
    sources=("Sun et al. 2024", "Xiao et al. 2024", "Gu et al. 2025",
             "Timkey & van Schijndel 2021", "Valeriani et al. 2023", "Cheng et al. 2025",
             "Rudman et al. 2022"),
    model_list="models", checks=CHECKS,
    # seconds in a cold full book (553059f, 2-core AMD EPYC Zen 4, two jobs at a time,
    # November 2026): the workflow starts costly claims first
    cost=162)


# --------------------------------------------------------------------------- measurements
# Each section writes its checks into ``checks`` (``{id: CheckValue}``: measured, Interval
# or None, details) and returns what the per-layer table and the later sections need. Every
# bootstrap over sentences shares one set of weights (``weights``), so the sections' layer
# profiles are resampled as one; the intrinsic dimension, which cannot be reweighted with
# its neighbours held fixed, uses random halves of the sentences instead (paired between
# the shuffled sentences and their ordered copies).


def _massive(checks: dict, s: Settings, tokens, layers: list[int], weights: np.ndarray,
             threshold: float, magnitude: float) -> tuple[pd.DataFrame, list[int]]:
    """Massive activations: the share of sentences with one, where they sit, the onset,
    the dimensions. Returns the per-layer table and the (up to two) dimensions to remove."""
    L, n = layers[-1], len(tokens.words)
    massive, draws = later.massive_profile(tokens, layers, weights, ratio=threshold,
                                           magnitude=magnitude)
    shares = massive["massive_share"].to_numpy()
    # the layer (>= 1) with the largest share; among equal shares, the largest ratio
    peak = int(np.lexsort((massive["massive_ratio"].to_numpy()[1:], shares[1:]))[-1]) + 1
    checks[MASSIVE_ACTIVATIONS] = CheckValue(
        float(shares[peak]),
        later.interval_of(draws["massive"][:, 1:].max(axis=1), "the largest layer's share "
                          "per draw (every layer resampled as one)", s.n_boot, n,
                          "sentences"),
        {"layer": peak, "relative depth": peak / L,
         "largest over median (geometric mean)": float(massive.loc[peak, "massive_ratio"])})
    counts = draws["massive_count"][:, peak]
    if shares[peak] == 0:
        checks[MASSIVE_AT_SINK] = CheckValue(None, None, {
            "unavailable": "no sentence has a massive activation (both of Sun et al.'s "
                           "conditions) at any layer >= 1: there is nothing to place"})
    else:
        # Dirichlet weights are positive, so every draw weights the sentences that have one
        checks[MASSIVE_AT_SINK] = CheckValue(
            float(massive.loc[peak, "massive_at_sink"]),
            later.interval_of(draws["massive_at_sink"][:, peak] / counts, f"layer {peak}, of "
                              "the sentences with a massive activation", s.n_boot, n,
                              "sentences"),
            {"layer": peak, "sentences with one": int(round(shares[peak] * n)),
             "peak at position 0 (all sentences)": float(massive.loc[peak, "peak_at_first"])})
    above = massive.index[(massive["massive_share"] > 0.5) & (massive["layer"] > 0)]
    checks[MASSIVE_ONSET] = CheckValue({
        "first layer where most sentences have one": int(above[0]) if len(above) else None,
        "of layers": L}, None, None)
    if shares[peak] == 0:
        # nothing is massive: the dimensions of the largest activations are not massive
        # dimensions, and none is removed
        checks[MASSIVE_DIMS] = CheckValue({
            "massive dimensions": "none (no sentence has a massive activation at any "
                                  "layer >= 1)",
            "dimensions of the largest activation at that layer": massive.loc[peak,
                                                                              "top_dims"]},
            None, None)
        return massive, []
    checks[MASSIVE_DIMS] = CheckValue({
        "top dimensions at the peak layer": massive.loc[peak, "top_dims"],
        "share of sentences in the top dimension": float(massive.loc[peak, "top_dim_share"]),
        "variation of the peak across sentences (CV)": float(massive.loc[peak, "peak_cv"])},
        None, None)
    return massive, sorted(set(massive.loc[peak, "top_dims"][:2]))


def _sinks(checks: dict, s: Settings, encoder, base: list[str], windows: list[str]
           ) -> np.ndarray | None:
    """Attention sinks by Gu et al.'s protocol on the windows, and the same rate on the
    short sentences, or why the model gives no weights."""
    epsilon = s.sink_epsilon if s.sink_epsilon is not None else sink_epsilon()
    try:
        alpha = first_token_attention(encoder, windows, tokens=s.sink_tokens)
        short = first_token_attention(encoder, base[: s.n_attention_sentences])
    except AttentionUnavailable as error:
        checks[SINK_HEADS] = CheckValue(None, None, {"unavailable": str(error)})
        checks[SINK_HEADS_SHORT] = CheckValue({"unavailable": str(error)}, None, None)
        return None
    m = alpha.shape[0]
    weights = dirichlet_weights(m, s.n_boot, stream_seed(s.seed, "chapter6/attention"))
    checks[SINK_HEADS] = CheckValue(
        sink_rate(alpha, epsilon),
        later.interval_of(sink_rate(alpha, epsilon, weights), "each window's rate",
                          s.n_boot, m, "windows"),
        {"heads": int(alpha.shape[1] * alpha.shape[2]), "epsilon": epsilon,
         "tokens per window": s.sink_tokens})
    lengths = [len(x) for x in encoder.tokenizer(base[: s.n_attention_sentences])["input_ids"]]
    checks[SINK_HEADS_SHORT] = CheckValue({
        "sink rate on the sentences": sink_rate(short, epsilon),
        "on the windows": sink_rate(alpha, epsilon),
        "mean tokens per sentence": float(np.mean(lengths)),
        "tokens per window": s.sink_tokens}, None, None)
    return np.asarray(alpha)


def _rogue(checks: dict, s: Settings, tokens, layers: list[int], remove: list[int]
           ) -> tuple[pd.DataFrame, int]:
    """Rogue dimensions: the top-k share of the mean cosine where the mean cosine is
    clearly positive, and claim 1's cosine without the massive dimensions. Returns the
    per-layer table and the number of pairs."""
    L = layers[-1]
    first, second = random_pairs_of(tokens, s)
    weights = dirichlet_weights(first.size, s.n_boot, stream_seed(s.seed, "chapter6/pairs"))
    rogue, draws = later.rogue_profile(tokens, layers, first, second, weights, s.rogue_k,
                                       remove)
    low = np.percentile(draws["mean_cosine"], 2.5, axis=0)
    rogue["graded"] = (low >= s.rogue_min_cosine) & (np.asarray(layers) > 0)
    eligible = np.flatnonzero(rogue["graded"].to_numpy())
    if eligible.size == 0:
        checks[ROGUE_DIMENSIONS] = CheckValue(None, None, {"unavailable": (
            f"no layer's mean cosine is clearly above {s.rogue_min_cosine:g} (the lower end "
            "of its 95% interval): the share of a mean cosine near 0 is unbounded")})
    else:
        shares = rogue["top_share"].to_numpy()[eligible]
        checks[ROGUE_DIMENSIONS] = CheckValue(
            float(np.median(shares)),
            later.interval_of(np.nanmedian(draws["top_share"][:, eligible], axis=1),
                              "the median over the same layers per draw", s.n_boot,
                              first.size, "token pairs"),
            {"layers graded": f"{eligible.size} of {L}", "largest share": float(shares.max()),
             "its layer": int(eligible[shares.argmax()]),
             "dimensions there": rogue.loc[int(eligible[shares.argmax()]), "top_dims"]})
    upper = np.array(layers) > L / 2
    checks[MASSIVE_REMOVAL] = CheckValue({
        "dimensions set to 0": remove or "none: no massive dimension",
        "upper-half mean cosine": float(rogue["mean_cosine"][upper].mean()),
        "without them": float(rogue["mean_cosine_without_massive"][upper].mean())}, None, None)
    return rogue, int(first.size)


#: The central phase of depth whose intrinsic-dimension peak is graded: layers whose relative
#: depth (layer / L) lies in this band; the ends are the other layers >= 1. Cheng et al.
#: (2025) describe a central high-dimension phase; the band is the book's stated reading of
#: "mid-depth" (a peak at the last layers is not one).
CENTRAL_DEPTH = (0.2, 0.8)


def _central(L: int) -> tuple[np.ndarray, np.ndarray]:
    """The layers of the central band (:data:`CENTRAL_DEPTH`) and the ends (the other layers
    >= 1), of a model with layers 0..L."""
    layers = np.arange(1, L + 1)
    inside = (layers >= CENTRAL_DEPTH[0] * L) & (layers <= CENTRAL_DEPTH[1] * L)
    if not inside.any() or inside.all():
        raise ValueError(f"a model of {L} layers has no central band and ends at relative "
                         f"depths {CENTRAL_DEPTH}; the intrinsic-dimension peak needs both.")
    return layers[inside], layers[~inside]


def _peak_over_ends(values: np.ndarray, L: int) -> np.ndarray:
    """Per row: the largest value over the central layers over the largest over the ends
    (:func:`_central`)."""
    values = np.atleast_2d(values)
    central, ends = _central(L)
    return values[:, central].max(axis=1) / values[:, ends].max(axis=1)


def _dimension(checks: dict, s: Settings, encoder, tokens, mixed: list[str],
               layers: list[int]) -> tuple[np.ndarray, dict]:
    """Intrinsic dimension across depth (TwoNN and GRIDE, on the same halves), and on the
    shuffled sentences (TwoNN), with delete-half jackknife intervals over the sentences
    (streams ``chapter6/id-halves`` and, for the shuffled sentences and their ordered
    copies, paired, ``chapter6/id-halves-shuffled``). Returns the token rows (one per
    sentence) and the per-layer profiles: ``twonn``, ``twonn_shuffled``, ``gride`` and
    ``gride_scale``."""
    L, n = layers[-1], len(tokens.words)
    rows = later.one_token_per_sentence(tokens, stream_seed(s.seed, "chapter6/id"))
    if rows.size != n:
        raise ValueError(f"{encoder.name}: {n - rows.size} sentences have no token after "
                         "the first; the intrinsic dimension takes one from each.")
    halves = half_samples(n, s.n_id_halves, stream_seed(s.seed, "chapter6/id-halves"))
    ids, draws = later.dimension_profile(tokens, layers, rows, halves)
    central = _central(L)[0]
    value = float(_peak_over_ends(ids, L)[0])
    checks[ID_PEAK_INTERIOR] = CheckValue(
        value, delete_half_interval(value, _peak_over_ends(draws, L), n,
                                    method=ID_INTERVAL),
        {"peak layer": int(central[np.argmax(ids[central])]),
         "peak over layer 1": float(ids[central].max() / ids[1])})
    gride_ids, gride_draws, scales = later.gride_profile(tokens, layers, rows, halves)
    value = float(_peak_over_ends(gride_ids, L)[0])
    peak = int(central[np.argmax(gride_ids[central])])
    checks[ID_PEAK_GRIDE] = CheckValue(
        value, delete_half_interval(value, _peak_over_ends(gride_draws, L), n,
                                    method=GRIDE_INTERVAL),
        {"peak layer": peak, "peak over layer 1": float(gride_ids[peak] / gride_ids[1]),
         "scale (n2) at the peak": int(scales[peak])})
    mixed_tokens = encoder.encode_tokens(mixed)
    m = len(mixed)
    mixed_rows = later.one_token_per_sentence(mixed_tokens, stream_seed(s.seed, "chapter6/id"))
    if mixed_rows.size != m:
        raise ValueError(f"{encoder.name}: {m - mixed_rows.size} shuffled sentences have no "
                         "token after the first; the intrinsic dimension takes one from each.")
    paired = half_samples(m, s.n_id_halves, stream_seed(s.seed, "chapter6/id-halves-shuffled"))
    ids_mixed, mixed_draws = later.dimension_profile(mixed_tokens, layers, mixed_rows, paired)
    same, same_draws = later.dimension_profile(tokens, layers, rows[:m], paired)
    ordered = float(_peak_over_ends(same, L)[0])
    shuffled_ = float(_peak_over_ends(ids_mixed, L)[0])
    same_peaks = _peak_over_ends(same_draws, L)
    ordered_peak = delete_half_interval(ordered, same_peaks, m, method=ID_INTERVAL)
    higher = int((ids_mixed[1:] > same[1:]).sum())
    details = {"ordered peak over ends": ordered, "shuffled peak over ends": shuffled_,
               "central peak, ordered minus shuffled": float(
                   same[central].max() - ids_mixed[central].max()),
               "layers where shuffled text's dimension is higher": f"{higher} of {L}"}
    if ordered_peak.low <= 1:
        # Cheng et al.'s claim is about a peak: where these sentences as written show no
        # central peak that its interval sets above both ends, none is established to
        # flatten
        details["unavailable"] = (
            f"no central peak established on these {m:,} sentences as written: their "
            f"central peak over the ends is {ordered:.3g}, 95% interval "
            f"[{ordered_peak.low:.3g}, {ordered_peak.high:.3g}], not above 1; the "
            f"shuffled copies' dimension is above theirs at {higher} of {L} layers")
        checks[ID_SHUFFLED_FLATTER] = CheckValue(None, None, details)
    else:
        checks[ID_SHUFFLED_FLATTER] = CheckValue(
            ordered - shuffled_,
            delete_half_interval(ordered - shuffled_,
                                 same_peaks - _peak_over_ends(mixed_draws, L), m,
                                 method=ID_INTERVAL + ", the same halves in both texts"),
            details)
    return rows, {"twonn": ids, "twonn_shuffled": ids_mixed, "gride": gride_ids,
                  "gride_scale": scales}


def _measures(checks: dict, s: Settings, tokens, layers: list[int], rows: np.ndarray,
              mean_cosine: np.ndarray) -> pd.DataFrame:
    """Four anisotropy measures per layer; IsoScore where the mean cosine is lowest, when
    that cosine is low enough for the statement to be about it
    (:func:`~anisotropy.inputs.references.anisotropic_level`)."""
    measures = later.measures_profile(tokens, layers, rows)
    measures["mean_cosine"] = mean_cosine
    lowest = int(measures["mean_cosine"].to_numpy()[1:].argmin()) + 1
    cosine, ceiling = float(measures.loc[lowest, "mean_cosine"]), anisotropic_level()
    if cosine >= ceiling:
        checks[MEASURES_DISAGREE] = CheckValue(None, None, {
            "layer of lowest mean cosine": lowest, "its mean cosine": cosine,
            "unavailable": f"no layer that mean cosine calls isotropic: the lowest mean "
                           f"cosine of layers 1-{layers[-1]} is {cosine:.3g} (layer {lowest}), "
                           f"not below {ceiling:.3g}, the least anisotropic contextual layer "
                           "Ethayarajh measured (ELMo's top one)"})
        return _agreement(checks, measures)
    X = np.asarray(tokens.layer(lowest), dtype=np.float64)[rows]
    draws = [isoscore(X[draw]) for draw in resample_indices(
        rows.size, s.n_boot_isoscore, stream_seed(s.seed, "chapter6/isoscore"))]
    # IsoScore of a resample with repeated points is biased low, so the percentile interval
    # of the draws can leave the full sample's value out: the normal interval keeps it
    estimate = float(measures.loc[lowest, "isoscore"])
    method = boot_method(s.n_boot_isoscore, rows.size, "sentences",
                         f"layer {lowest}, tokens resampled").replace(
        "95% percentile bootstrap", "95% normal bootstrap (estimate ± 1.96 s.d. of the draws)")
    checks[MEASURES_DISAGREE] = CheckValue(
        estimate, normal_interval(estimate, draws, method=method),
        {"layer of lowest mean cosine": lowest, "its mean cosine": cosine})
    return _agreement(checks, measures)


def _agreement(checks: dict, measures: pd.DataFrame) -> pd.DataFrame:
    """How the four measures rank the layers >= 1 (``measures-agreement``); the table
    without the mean cosine, which the per-layer table holds already."""
    ranks = measures.iloc[1:][["mean_cosine", "top_pc_share", "isoscore", "log10_iw"]]
    agreement = ranks.corr(method="spearman")["mean_cosine"].drop("mean_cosine")
    checks[MEASURES_AGREEMENT] = CheckValue({f"Spearman of mean cosine with {k}": float(v)
                                             for k, v in agreement.items()}, None, None)
    return measures.drop(columns=["mean_cosine"])


def _standardisation(checks: dict, s: Settings, encoder, sts_sentences: list[str],
                     word_contexts) -> tuple[dict, dict | None]:
    """Standardisation on STS and on word similarity (each word's vector averaged over its
    contexts, never at a decoder's position 0). Returns the per-task tables."""
    L = encoder.n_layers
    exclude = (0,) if encoder.resolved.kind == "decoder" else ()
    vectors = encoder.encode_tokens(sts_sentences, [0, 1, L]).sentence_means(L, exclude)
    table, draws = standardised_sts(vectors, sts_sentences, list(s.tasks),
                                    max_pairs=s.max_pairs,
                                    data_seed=stream_seed(s.seed, "data"), n_boot=s.n_boot,
                                    seed=stream_seed(s.seed, "chapter6/sts"))
    checks[STANDARDISE_HELPS] = CheckValue(float(table["change"].mean()),
                                           mean_change_interval(draws["draws"], s.n_boot,
                                                                draws["pairs"]),
                                           {"tasks": len(table)})
    abtt = {"STS": float(table["abtt change"].mean())}
    checks[ALL_BUT_THE_TOP] = CheckValue(abtt, None, None)
    if not s.word_tasks:
        checks[STANDARDISE_HELPS_WORDS] = CheckValue(None, None, {
            "unavailable": "no word-similarity task in this run (word_tasks is empty: the "
                           "files have no hub copy, so the binder profile leaves them out; "
                           "`anisotropy data fetch word-similarity` downloads them)"})
        return table.reset_index().to_dict(orient="list"), None
    tokens = encoder.encode_tokens(word_contexts.texts, [L])
    vectors = context_word_vectors(tokens, L, word_contexts, exclude)
    words_table, draws = standardised_words(vectors, list(s.word_tasks), n_boot=s.n_boot,
                                            seed=stream_seed(s.seed, "chapter6/words"))
    kept, total = int(words_table["pairs"].sum()), int(words_table["pairs of the task"].sum())
    checks[STANDARDISE_HELPS_WORDS] = CheckValue(
        float(words_table["change"].mean()),
        mean_change_interval(draws["draws"], s.n_boot, draws["pairs"], "word pairs"),
        {"tasks": len(words_table),
         "pairs with both words in context": f"{kept} of {total}"})
    abtt["word similarity"] = float(words_table["abtt change"].mean())
    return (table.reset_index().to_dict(orient="list"),
            words_table.reset_index().to_dict(orient="list"))


def measure_model(settings: Settings, encoder, base: list[str], mixed: list[str],
                  sts_sentences: list[str], word_contexts, *,
                  massive_threshold: float, windows: list[str]):
    """Chapter 6 on one loaded model: every section's checks, the per-layer table and the
    facts (:class:`anisotropy.claims.later_work.measure.LaterMeasurement`).

    Parameters
    ----------
    settings : Settings
        The chapter's parameters.
    encoder : Encoder
        The loaded model (:func:`anisotropy.inputs.models.load`).
    base : list of str
        The sentences (:func:`sentences`), encoded at every layer.
    mixed : list of str
        The first ``len(mixed)`` sentences of ``base`` with their words shuffled
        (:func:`shuffled`); their intrinsic-dimension intervals take the same random
        halves of them as of their ordered copies.
    sts_sentences : list of str
        The STS sentences (the builder of :func:`sts`).
    word_contexts : WordContexts or None
        The word-similarity tasks' contexts (:func:`contexts`); read only when
        ``settings.word_tasks`` is not empty.
    massive_threshold : float
        Sun et al.'s ratio (:func:`massive_threshold`): a largest activation is massive
        when it is at least this many times its sentence's median and above
        :func:`massive_magnitude`.
    windows : list of str
        The attention-sink windows (:func:`sink_windows`).

    Returns
    -------
    LaterMeasurement
        The model's name and kind; ``per_layer``, one row per layer 0..L (the massive, rogue and
        measures tables merged on ``layer``, with ``twonn``, ``twonn_shuffled``, ``gride``,
        ``gride_scale`` and ``relative_depth``); ``checks``, ``{id: CheckValue}`` (measured,
        Interval or None, details) for every id of :data:`CHECKS`; ``facts`` (the counts of
        sentences, tokens, points, shuffled sentences, pairs and attention windows, and the STS and
        word-similarity tables as dicts of lists, ``words`` None without word tasks); and the
        windows' attention to the first token, or None when the model gives none.

    Raises
    ------
    ValueError
        When a sentence of ``base`` has no token after the first (the intrinsic dimension
        takes one from each).
    """
    s = settings
    L = encoder.n_layers
    layers = list(range(L + 1))
    tokens = encoder.encode_tokens(base)
    weights = dirichlet_weights(len(base), s.n_boot,
                                 stream_seed(s.seed, "chapter6/sentences"))
    checks: dict = {}
    massive, remove = _massive(checks, s, tokens, layers, weights, massive_threshold,
                               massive_magnitude())
    attention = _sinks(checks, s, encoder, base, windows)
    rogue, n_pairs = _rogue(checks, s, tokens, layers, remove)
    rows, profiles = _dimension(checks, s, encoder, tokens, mixed, layers)
    measures = _measures(checks, s, tokens, layers, rows, rogue["mean_cosine"].to_numpy())
    sts_rows, word_rows = _standardisation(checks, s, encoder, sts_sentences, word_contexts)
    per_layer = massive.drop(columns=["top_dims"]).merge(
        rogue.drop(columns=["top_dims"]), on="layer").merge(measures, on="layer")
    for column, values in profiles.items():
        per_layer[column] = values
    per_layer["relative_depth"] = per_layer["layer"] / L
    facts = {"sentences": len(base), "tokens": int(len(tokens)), "id points": int(rows.size),
             "shuffled sentences": len(mixed), "pairs": n_pairs,
             "attention windows": 0 if attention is None else int(attention.shape[0]),
             "sts": sts_rows, "words": word_rows}
    return later.LaterMeasurement(encoder.name, encoder.resolved.kind, per_layer, checks,
                                  facts, attention)


def sink_epsilon() -> float:
    """Gu et al.'s sink threshold epsilon (``data/references.yaml``).

    Returns
    -------
    float
        The entry ``claim6/sink/epsilon``.
    """
    return float(reference_value("claim6/sink/epsilon"))


def massive_threshold() -> float:
    """Sun et al.'s massive ratio (``data/references.yaml``).

    Returns
    -------
    float
        The entry ``claim6/massive/ratio``.
    """
    return float(reference_value("claim6/massive/ratio"))


def uniform_first_token_share(tokens: int) -> float:
    """The mean attention to the first token of a causal head that attends uniformly over
    a sequence of ``tokens`` tokens: query :math:`t` gives it :math:`1/(t+1)`, so
    :math:`\\alpha_1 = H_T / T` with :math:`H_T` the harmonic number (Gu et al. 2025, the
    reason the sink rate depends on the length).

    Parameters
    ----------
    tokens : int
        The sequence's length T.

    Returns
    -------
    float
        :math:`H_T / T`.
    """
    return float(sum(1 / k for k in range(1, tokens + 1)) / tokens)


def massive_magnitude() -> float:
    """Sun et al.'s other condition: a massive activation's magnitude exceeds this
    (``data/references.yaml``).

    Returns
    -------
    float
        The entry ``claim6/massive/magnitude``.
    """
    return float(reference_value("claim6/massive/magnitude"))


def random_pairs_of(tokens, settings: Settings) -> tuple[np.ndarray, np.ndarray]:
    """Random token pairs from different sentences (one random sentence pair, one token of
    each), special tokens and position 0 left out.

    Parameters
    ----------
    tokens : TokenEmbeddings
        The sentences' token vectors: their ``special_mask``, ``position`` and
        ``sentence_index`` are read.
    settings : Settings
        The chapter's parameters: ``n_pairs`` and ``seed`` (the stream
        ``chapter6/pairs-draw`` under it) are read.

    Returns
    -------
    first, second : numpy.ndarray of int, shape (n_pairs,)
        The token rows of each pair's two tokens, in two different sentences
        (:func:`anisotropy.geometry.similarity.random_pairs`).
    """
    keep = np.flatnonzero(~tokens.special_mask & (tokens.position > 0))
    a, b = random_pairs(keep.size, tokens.sentence_index[keep], settings.n_pairs,
                        stream_seed(settings.seed, "chapter6/pairs-draw"))
    return keep[a], keep[b]


def measure(settings: Settings, *, massive_threshold: float, on_model=None, load=None
            ) -> dict:
    """Chapter 6 on every model of ``settings``: ``{model name: LaterMeasurement}``.

    Parameters
    ----------
    settings : Settings
        The chapter's parameters.
    massive_threshold : float
        Sun et al.'s ratio (:func:`massive_threshold`), as :func:`measure_model` takes it.
    on_model : callable, optional
        Called with each model once it is loaded (the results' ``add_model``); None reports
        nothing.
    load : callable, optional
        Loads a model by name (``load(name, device=..., dtype=...)``); None:
        :func:`anisotropy.inputs.models.load`.

    Returns
    -------
    dict of str to LaterMeasurement
        :func:`measure_model` of each model of ``settings.models``, in their order, keyed
        by the loaded model's name; each model is released after it is measured.
    """
    base, mixed, windows = sentences(settings), shuffled(settings), sink_windows(settings)
    sts_sentences = sts(settings)[1]()
    word_contexts = contexts(settings) if settings.word_tasks else None

    def measure_one(encoder) -> later.LaterMeasurement:
        measured = measure_model(settings, encoder, base, mixed, sts_sentences, word_contexts,
                                 massive_threshold=massive_threshold, windows=windows)
        encoder.release()
        return measured

    return measure_each(settings, measure_one, on_model=on_model, load=load)


def grade(results, measured: dict) -> None:
    """Record every check of :data:`CHECKS` for every model.

    Parameters
    ----------
    results : Results
        The chapter's results, where the checks are recorded.
    measured : dict of str to LaterMeasurement
        The measurements per model (:func:`measure`). A check of :data:`GRADED` measured
        as None is recorded as not run, with its details' ``unavailable`` reason; a check
        of :data:`FINDINGS` is recorded with its measured value and details, its 95%
        interval among them (``"95% interval"``) when it has one.
    """
    grade_each(results, measured, GRADED, FINDINGS, finding_interval="95% interval",
               finding_method=True)


def frame(measured: dict) -> pd.DataFrame:
    """Every model's per-layer table, stacked with a ``model`` column.

    Parameters
    ----------
    measured : dict of str to LaterMeasurement
        The measurements per model (:func:`measure`).

    Returns
    -------
    pandas.DataFrame
        The ``per_layer`` tables one after the other, ``model`` the model's short name, with
        a fresh index.
    """
    return pd.concat([m.per_layer.assign(model=short_name(n)) for n, m in measured.items()],
                     ignore_index=True)
