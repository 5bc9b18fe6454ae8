"""Chapter 6's measurements on one model: massive activations, attention sinks, rogue
dimensions, intrinsic dimension across depth and four anisotropy measures.

Everything here reads arrays the claims already cache (claim 1's token vectors of SNLI
sentences at every layer, claims 3-4's sentence means of the STS sentences) plus two
passes of its own: attention weights (:mod:`anisotropy.inputs.attention`) and the same
sentences with their words shuffled. Every interval resamples the sentences (or, for the
cosine contributions, the random pairs; for STS, the sentence pairs), with one set of
Bayesian-bootstrap weights shared by every layer of a model, so that a statement about the
shape of a profile across layers is resampled as one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from anisotropy.geometry.dimension import twonn_from_log_ratios, twonn_log_ratios
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

__all__ = ["LaterMeasurement", "shuffle_words", "one_token_per_sentence", "massive_profile",
           "rogue_profile", "dimension_profile", "measures_profile", "standardised_sts",
           "standardised_words"]

#: Tokens Sun et al. (2024) name as carriers of massive activations besides the first:
#: delimiters (punctuation, a newline).
DELIMITER = re.compile(r"^[\W_]+$")


@dataclass
class LaterMeasurement:
    """Chapter 6 on one model: ``per_layer`` (one row per layer, the shuffled text's TwoNN
    profile included), ``checks`` (``{id: (measured, Interval or None, details)}``),
    ``facts`` and the attention to the first token (``None`` when the model gives none)."""

    name: str
    kind: str
    per_layer: pd.DataFrame
    checks: dict
    facts: dict = field(default_factory=dict)
    attention: np.ndarray | None = None


def shuffle_words(sentences: list[str], seed: int) -> list[str]:
    """Each sentence with its whitespace-separated words in a random order (one seeded
    permutation per sentence): the word-shuffled control of Cheng et al. (2025), which keeps
    each sentence's words and length and removes their order."""
    rng = np.random.default_rng(seed)
    out = []
    for sentence in sentences:
        words = sentence.split()
        out.append(" ".join(words[i] for i in rng.permutation(len(words))))
    return out


def one_token_per_sentence(tokens, seed: int, skip_first: bool = True) -> np.ndarray:
    """Row indices of one random token per sentence (special tokens and, with
    ``skip_first``, position 0 left out), in sentence order. The same rows serve every
    layer, so the sample is one point per sentence at each depth."""
    rng = np.random.default_rng(seed)
    keep = ~tokens.special_mask & ((tokens.position > 0) if skip_first else True)
    rows = np.flatnonzero(keep)
    sentence = tokens.sentence_index[rows]
    starts = np.flatnonzero(np.r_[True, sentence[1:] != sentence[:-1]])
    counts = np.diff(np.r_[starts, rows.size])
    return rows[starts + (rng.random(starts.size) * counts).astype(np.int64)]


def _layer(tokens, layer: int) -> np.ndarray:
    return np.asarray(tokens.layer(layer), dtype=np.float32)


def massive_profile(tokens, layers: list[int], weights: np.ndarray) -> tuple[pd.DataFrame,
                                                                              dict]:
    """Per layer: the geometric mean over sentences of the largest |activation| over the
    median |activation| of the sentence's hidden state
    (:func:`~anisotropy.geometry.outliers.sequence_peaks`), the share of sentences whose
    largest activation sits at position 0 or on a delimiter token, the dimension that holds
    it most often and that dimension's share, and the coefficient of variation of the
    largest activation across sentences. Also the draws (``weights`` over sentences) of
    the log10 ratio and of the position-0-or-delimiter share, per layer."""
    rows, log_draws, share_draws = [], [], []
    delimiter = np.array([bool(DELIMITER.match(str(t).lstrip("Ġ▁"))) for t in tokens.tokens])
    for layer in layers:
        peaks = sequence_peaks(_layer(tokens, layer), tokens.sentence_index)
        log_ratio = np.log10(np.where(np.isfinite(peaks.ratio), peaks.ratio, np.nan))
        first = tokens.position[peaks.row] == 0
        sink_or_delimiter = (first | delimiter[peaks.row]).astype(np.float64)
        dims, counts = np.unique(peaks.dim, return_counts=True)
        top = int(dims[counts.argmax()])
        rows.append({"layer": layer, "massive_ratio": float(10 ** np.nanmean(log_ratio)),
                     "peak_at_first": float(first.mean()),
                     "peak_first_or_delimiter": float(sink_or_delimiter.mean()),
                     "top_dim": top, "top_dim_share": float(counts.max() / peaks.dim.size),
                     "top_dims": [int(d) for d in dims[np.argsort(counts)[::-1][:3]]],
                     "peak_cv": float(peaks.peak.std() / peaks.peak.mean()),
                     "peak_mean": float(peaks.peak.mean())})
        log_draws.append(weighted_mean_draws(log_ratio, weights))
        share_draws.append(weighted_mean_draws(sink_or_delimiter, weights))
    return pd.DataFrame(rows), {"log_ratio": np.stack(log_draws, axis=1),
                                "first_or_delimiter": np.stack(share_draws, axis=1)}


def rogue_profile(tokens, layers: list[int], first: np.ndarray, second: np.ndarray,
                  weights: np.ndarray, k: int, remove: list[int]) -> tuple[pd.DataFrame,
                                                                           np.ndarray]:
    """Per layer, over the random token pairs ``(first, second)``: the mean cosine, the
    share of it carried by the ``k`` dimensions with the largest contributions
    (:func:`~anisotropy.geometry.outliers.cosine_contributions`), those dimensions, and the
    mean cosine with the dimensions ``remove`` set to 0. Returns the table and the draws of
    the top-``k`` share per layer (``weights`` over pairs; NaN where a draw's mean cosine is
    not positive)."""
    rows, draws = [], []
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
    return pd.DataFrame(rows), np.stack(draws, axis=1)


def dimension_profile(tokens, layers: list[int], rows: np.ndarray, weights: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray]:
    """TwoNN intrinsic dimension per layer of the token ``rows`` (one per sentence), and
    its draws under ``weights`` over those sentences (the neighbour ratios held fixed,
    their weights resampled). Returns ``(ids, draws)`` of shapes ``(L,)`` and
    ``(n_boot, L)``."""
    ids, draws = [], []
    for layer in layers:
        log_mu = twonn_log_ratios(_layer(tokens, layer)[rows])
        ids.append(twonn_from_log_ratios(log_mu))
        draws.append(twonn_from_log_ratios(log_mu, weights))
    return np.array(ids), np.stack(draws, axis=1)


def measures_profile(tokens, layers: list[int], rows: np.ndarray) -> pd.DataFrame:
    """Per layer, four anisotropy measures of the token ``rows``: the share of variance on
    the first principal component, IsoScore (Rudman et al. 2022) and log10 of the
    partition-function isotropy I(W) (Mu & Viswanath 2018); the mean cosine comes from
    :func:`rogue_profile`."""
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
    from anisotropy.claims.sts import cosine_scores
    from anisotropy.geometry.transforms import AllButTheTop

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
    from anisotropy.claims.sts import score_correlations, spearman_change_draws

    a = np.asarray([index[x] for x in frame[columns[0]]])
    b = np.asarray([index[x] for x in frame[columns[1]]])
    raw_scores, z_scores, top_scores = _standardised_scores(vectors, a, b)
    gold = frame["score"].to_numpy()
    raw, zed, top = (score_correlations(x, gold, subsets)[f"spearman_{how}"]
                     for x in (raw_scores, z_scores, top_scores))
    row = {"raw": raw, "standardised": zed, "change": zed - raw, "all-but-the-top": top,
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
    draws of the change per task."""
    from anisotropy.inputs.tasks import sts_aggregation, sts_task

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


def standardised_words(vectors: np.ndarray, words: list[str], task_names: list[str], *,
                       n_boot: int, seed: int) -> tuple[pd.DataFrame, dict]:
    """As :func:`standardised_sts`, on each word-similarity task (every pair pooled, z-scored
    over the task's words). ``vectors`` has one row per word of ``words``."""
    from anisotropy.inputs.tasks import word_task

    index = {w: i for i, w in enumerate(words)}
    rows, draws = {}, {}
    for task in task_names:
        rows[task], draws[task] = _task_changes(
            vectors, word_task(task), index, ("word1", "word2"), None, "all", n_boot,
            stream_seed(seed, f"words/{task}"))
    return _changes_table(rows, draws)


def interval_of(draws: np.ndarray, what: str, n_boot: int, n_units: int, unit: str
                ) -> Interval:
    """The 95% percentile interval of ``draws`` with its method text."""
    return percentile_interval(draws, method=boot_method(n_boot, n_units, unit, what))
