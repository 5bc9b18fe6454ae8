"""Chapter 6's library: outlier dimensions, TwoNN, attention sinks, the shuffled control."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from anisotropy.claims.later_work.measure import (
    context_word_vectors,
    one_token_per_sentence,
    shuffle_words,
    word_contexts,
)
from anisotropy.geometry.dimension import (
    MIN_TWONN_POINTS,
    twonn,
    twonn_from_log_ratios,
    twonn_log_ratios,
    twonn_subset_log_ratios,
)
from anisotropy.geometry.outliers import (
    cosine_contributions,
    sequence_peaks,
    standardise,
    top_share,
    without_dimensions,
)
from anisotropy.geometry.twonn import twonn_facco, twonn_fit
from anisotropy.inputs.attention import sink_rate


def test_sequence_peaks_closed_form():
    X = np.array([[1.0, -2.0], [3.0, 1.0], [0.5, 100.0], [1.0, 1.0], [1.0, 1.0]])
    peaks = sequence_peaks(X, np.array([0, 0, 1, 1, 1]))
    assert peaks.peak.tolist() == [3.0, 100.0]
    # sentence 0: |values| 1, 2, 3, 1 -> median 1.5; sentence 1: 0.5, 100, 1, 1, 1, 1 -> 1
    assert peaks.ratio.tolist() == [2.0, 100.0]
    assert peaks.row.tolist() == [1, 2] and peaks.dim.tolist() == [0, 1]


def test_sequence_peaks_refuses_interleaved_sequences():
    with pytest.raises(ValueError, match="contiguous"):
        sequence_peaks(np.ones((3, 2)), np.array([0, 1, 0]))


@settings(max_examples=30, deadline=None)
@given(arrays(np.float64, (12, 5), elements=st.floats(-10, 10)).filter(
    lambda X: (np.linalg.norm(X, axis=1) > 1e-3).all()))
def test_cosine_contributions_sum_to_the_cosines(X):
    first, second = np.arange(0, 6), np.arange(6, 12)
    parts = cosine_contributions(X, first, second)
    a, b = X[first], X[second]
    cosines = (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
    np.testing.assert_allclose(parts.sum(axis=1), cosines, atol=1e-12)


def test_top_share():
    assert top_share([0.5, 0.3, 0.2], 1) == pytest.approx(0.5)
    assert top_share([0.6, 0.6, -0.2], 2) == pytest.approx(1.2)
    with pytest.raises(ValueError, match="not positive"):
        top_share([0.1, -0.2], 1)
    with pytest.raises(ValueError, match="k must be"):
        top_share([0.1, 0.2], 3)


def test_standardise_matches_scipy_zscore():
    from scipy.stats import zscore

    X = np.random.default_rng(0).normal(size=(50, 4)) * [1, 10, 100, 0.1] + 3
    np.testing.assert_allclose(standardise(X), zscore(X, axis=0), atol=1e-12)
    constant = np.ones((5, 2))
    assert np.all(standardise(constant) == 0)


def test_without_dimensions():
    X = np.arange(6.0).reshape(2, 3)
    out = without_dimensions(X, [1])
    assert out[:, 1].tolist() == [0, 0] and X[0, 1] == 1
    with pytest.raises(ValueError, match="dims must lie"):
        without_dimensions(X, [3])


def test_twonn_is_scikit_dimensions_facco_fit():
    # scikit-dimension's TwoNN() is Facco et al.'s fit (the largest 10% of ratios dropped, a
    # line through the origin), as is DADApy's compute_id_2NN(algorithm="base")
    skdim = pytest.importorskip("skdim")
    rng = np.random.default_rng(1)
    for d in (2, 6, 15):
        X = rng.normal(size=(1500, d)) @ rng.normal(size=(d, 30))
        reference = skdim.id.TwoNN(discard_fraction=0.1).fit(X).dimension_
        assert twonn_facco(X) == pytest.approx(reference, rel=1e-9)
        if d < 10:  # in 15 dimensions 1,500 points are too few: the fit runs low
            assert twonn_facco(X) == pytest.approx(d, rel=0.1)
        assert twonn_fit(twonn_log_ratios(X), fraction=0.5) != pytest.approx(reference)


@settings(max_examples=20, deadline=None)
@given(st.floats(1.0, 40.0), st.integers(0, 2**31))
def test_twonn_fit_recovers_the_pareto_index(d, seed):
    # mu ~ Pareto(d): -log(1 - F) = d log(mu), the line the fit recovers
    log_mu = np.random.default_rng(seed).exponential(1 / d, size=20000)
    assert twonn_fit(log_mu) == pytest.approx(d, rel=0.05)
    ones = np.ones((3, log_mu.size))
    np.testing.assert_allclose(twonn_fit(log_mu, ones), twonn_fit(log_mu), rtol=1e-12)
    # only the weights' proportions count
    w = np.random.default_rng(seed).dirichlet(np.ones(500), size=2)
    np.testing.assert_allclose(twonn_fit(log_mu[:500], w), twonn_fit(log_mu[:500], 7 * w),
                               rtol=1e-12)


def test_twonn_fit_refuses_a_bad_fraction():
    with pytest.raises(ValueError, match="fraction must lie"):
        twonn_fit(np.ones(50), fraction=0.0)
    with pytest.raises(ValueError, match="fraction must lie"):
        twonn_fit(np.ones(50), fraction=1.0)


@settings(max_examples=20, deadline=None)
@given(st.floats(1.0, 40.0), st.integers(0, 2**31))
def test_twonn_recovers_the_exponential_rate(d, seed):
    # under local uniformity log(mu) ~ Exp(d): the estimator's closed form
    log_mu = np.random.default_rng(seed).exponential(1 / d, size=20000)
    assert twonn_from_log_ratios(log_mu) == pytest.approx(d, rel=0.05)
    ones = np.ones((3, log_mu.size))
    np.testing.assert_allclose(twonn_from_log_ratios(log_mu, ones),
                               twonn_from_log_ratios(log_mu))


def test_twonn_duplicates_and_too_few_points():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(200, 3))
    doubled = np.vstack([X, X[:50]])
    logs = twonn_log_ratios(doubled)
    assert np.isnan(logs[200:]).all() and np.isfinite(logs[:200]).all()
    assert twonn(doubled) == pytest.approx(twonn(X))
    with pytest.raises(ValueError, match=f"at least {MIN_TWONN_POINTS} distinct points; got 5"):
        twonn(np.vstack([X[:5]] * 10))


@pytest.mark.parametrize("ranked", [40, 2])
def test_twonn_within_subsets_is_twonn_on_each_subset(ranked, monkeypatch):
    """Each subset's ratios are :func:`twonn_log_ratios` run on that subset alone (the
    reference), at their rows, duplicates included; the whole sample's are
    :func:`twonn_log_ratios`'. With 2 ranked neighbours most points need the fallback
    search, which must agree as well."""
    from anisotropy.geometry import dimension
    from anisotropy.geometry.intervals import half_samples

    monkeypatch.setattr(dimension, "SUBSET_NEIGHBOURS", ranked)
    rng = np.random.default_rng(4)
    X = np.vstack([rng.normal(size=(150, 5)), np.zeros((1, 5))])
    X = np.vstack([X, X[:30]])  # repeats, as layer 0 repeats a token's vector
    subsets = half_samples(X.shape[0], 25, seed=6)
    whole, within = twonn_subset_log_ratios(X, subsets)
    np.testing.assert_array_equal(whole, twonn_log_ratios(X))  # bit for bit
    for rows, got in zip(subsets, within, strict=True):
        expected = np.full(X.shape[0], np.nan)
        expected[rows] = twonn_log_ratios(X[rows])
        np.testing.assert_allclose(got, expected, rtol=1e-10, equal_nan=True)
    with pytest.raises(ValueError, match="holds 2 distinct points; TwoNN needs at least 3"):
        twonn_subset_log_ratios(X, [[0, 150]])
    with pytest.raises(ValueError, match="distinct points; got 5"):
        twonn_subset_log_ratios(np.vstack([X[:5]] * 10), [[0, 1, 2]])


def test_twonn_within_subsets_masks_each_point_beyond_the_first_chunk():
    """The ranked search runs in chunks of 2,048 rows: a point of a later chunk must not
    find itself at distance 0 (its ratio would be infinite and dropped)."""
    from anisotropy.geometry.intervals import half_samples

    X = np.random.default_rng(8).normal(size=(2100, 3))
    whole, within = twonn_subset_log_ratios(X, half_samples(2100, 20, seed=1))
    np.testing.assert_array_equal(whole, twonn_log_ratios(X))
    assert np.isfinite(whole[2048:]).all()


def test_sink_rate_is_gus_per_sequence_strict_rate():
    a = np.zeros((4, 2, 3))
    a[:, 0, :] = 0.9  # layer 0: every head a sink in every sequence
    a[:, 1, 0] = 0.3  # exactly epsilon: not a sink (Gu et al.: alpha_1 > epsilon)
    assert sink_rate(a, 0.3) == pytest.approx(3 / 6)
    # the indicator per sequence, then the mean: a head above epsilon on average but in
    # one sequence only counts in that sequence
    b = np.zeros((4, 1, 1))
    b[0] = 0.9
    assert sink_rate(b, 0.2) == pytest.approx(1 / 4)  # its mean 0.225 > 0.2 would say 1
    weights = np.ones((5, 4))
    np.testing.assert_allclose(sink_rate(a, 0.3, weights), 3 / 6)
    w = np.array([[3.0, 1.0, 0.0, 0.0]])
    np.testing.assert_allclose(sink_rate(b, 0.2, w), [0.75])
    with pytest.raises(ValueError, match="epsilon"):
        sink_rate(a, 1.5)


def test_shuffle_words_keeps_words():
    sentences = ["a b c d e f", "one two", "single"]
    out = shuffle_words(sentences, seed=3)
    assert [sorted(s.split()) for s in out] == [sorted(s.split()) for s in sentences]
    assert out == shuffle_words(sentences, seed=3)
    assert out[0] != sentences[0]


def test_one_token_per_sentence_skips_specials_and_position_zero():
    tokens = SimpleNamespace(
        sentence_index=np.array([0, 0, 0, 0, 1, 1, 1]),
        position=np.array([0, 1, 2, 3, 0, 1, 2]),
        special_mask=np.array([True, False, False, True, True, False, True]))
    for seed in range(10):
        rows = one_token_per_sentence(tokens, seed)
        assert rows[0] in (1, 2) and rows[1] == 5


def test_first_token_attention_matches_a_manual_pass(tmp_path, monkeypatch):
    import torch

    from anisotropy.inputs import models
    from anisotropy.inputs.attention import first_token_attention

    monkeypatch.setenv("ANISOTROPY_CACHE", str(tmp_path))
    encoder = models.load("sentence-transformers/all-MiniLM-L6-v2")
    sentences = ["A man walks a dog in the park.", "Two children play."]
    got = first_token_attention(encoder, sentences, progress=False)
    assert got.shape == (2, encoder.n_layers, 12)
    assert encoder.model.config._attn_implementation != "eager"  # switched back
    encoder.model.set_attn_implementation("eager")
    ids = encoder.tokenizer(sentences[1], return_tensors="pt")
    with torch.inference_mode():
        attentions = encoder.model(**ids, output_attentions=True).attentions
    manual = np.stack([a[0, :, :, 0].mean(-1).numpy() for a in attentions])
    np.testing.assert_allclose(got[1], manual, atol=1e-5)  # every query, its own too
    # cut to T tokens: the same pass over the first T token ids
    windows = ["one two three four five six seven eight nine ten eleven twelve"] * 2
    cut = first_token_attention(encoder, windows, tokens=5, progress=False)
    ids = encoder.tokenizer(windows[0], return_tensors="pt")["input_ids"][:, :5]
    with torch.inference_mode():
        attentions = encoder.model(input_ids=ids, output_attentions=True).attentions
    manual = np.stack([a[0, :, :, 0].mean(-1).numpy() for a in attentions])
    np.testing.assert_allclose(cut[0], manual, atol=1e-5)
    with pytest.raises(ValueError, match="fewer than 50 tokens"):
        first_token_attention(encoder, windows, tokens=50, progress=False)


def test_a_model_without_attention_weights_is_named(tmp_path, monkeypatch):
    from anisotropy.inputs import models
    from anisotropy.inputs.attention import AttentionUnavailable, first_token_attention

    monkeypatch.setenv("ANISOTROPY_CACHE", str(tmp_path))
    encoder = models.load("sentence-transformers/all-MiniLM-L6-v2")
    real = encoder.model

    class NoWeights(torch_module()):
        config = real.config

        def forward(self, **kwargs):
            return SimpleNamespace(attentions=None)

    encoder.model = NoWeights()
    with pytest.raises(AttentionUnavailable, match="all-MiniLM-L6-v2 returned no attention"):
        first_token_attention(encoder, ["A sentence here."], progress=False)


def torch_module():
    import torch

    return torch.nn.Module


def test_grade_reports_a_model_without_attention_and_grades_the_rest():
    import pandas as pd

    from anisotropy.claims.base import CheckValue
    from anisotropy.claims.later_work import claim as later_work
    from anisotropy.claims.later_work.measure import LaterMeasurement
    from anisotropy.geometry.intervals import Interval
    from anisotropy.report.results import Results

    checks = {c: CheckValue(0.7, Interval(0.6, 0.8, "test"), {}) for c in later_work.GRADED}
    checks["sink-heads"] = CheckValue(None, None,
                                      {"unavailable": "m returned no attention weights"})
    checks.update({c: CheckValue({"x": 1.0}, None, None) for c in later_work.FINDINGS})
    measured = {"m": LaterMeasurement("m", "decoder", pd.DataFrame(), checks)}
    results = Results(later_work.SLUG, parameters={}, profile="smoke")
    later_work.grade(results, measured)
    verdicts = {c.check: c.verdict for c in results.checks}
    assert verdicts["sink-heads"] == "not run"
    assert [c.note for c in results.checks if c.check == "sink-heads"] == [
        "m returned no attention weights"]
    assert verdicts["rogue-dimensions"] == "reproduced"
    assert set(verdicts) == set(later_work.CHECKS)


def test_the_plan_lists_the_attention_pass_and_the_workflow_runs_it(tmp_path, monkeypatch):
    from anisotropy.book.plan import run_extraction
    from anisotropy.claims.later_work import claim as later_work
    from anisotropy.inputs import models
    from anisotropy.inputs.attention import first_token_attention

    monkeypatch.setenv("ANISOTROPY_CACHE", str(tmp_path))
    settings = later_work.Settings.for_profile(
        "smoke", models=["sentence-transformers/all-MiniLM-L6-v2"], n_sentences=128,
        n_attention_sentences=5, n_shuffled_sentences=40, n_sink_windows=4)
    jobs = later_work.inputs(settings)
    kinds = sorted({(job.kind, job.corpus, job.layers) for job in jobs})
    assert ("attention", "snli-128-first-5", "all") in kinds
    assert ("attention", "lm-windows-4x64", "T64") in kinds
    assert ("tokens", "snli-128-shuffled-40", "all") in kinds
    from anisotropy.inputs import cache

    for job in (j for j in jobs if j.kind == "attention"):
        assert run_extraction(job)["status"] == "done"
        hits = cache.stats().get("attention", {}).get("hits", 0)
        tokens = 64 if job.layers == "T64" else None
        first_token_attention(models.load(job.model), list(job.sentences), tokens=tokens,
                              progress=False)
        # the notebook's call reads the entry the workflow's job made
        assert cache.stats()["attention"]["hits"] == hits + 1


def test_word_contexts_cut_windows_around_whole_words():
    texts = ["the cat sat on the mat .", "Cat food is not a cat", "cat opens", "catalogue"]
    out = word_contexts(["cat", "mat", "dog"], texts, per_word=5, width=2, seed=0)
    # "cat" opening a text is never used; "catalogue" is another word
    assert out.word == ["cat", "cat", "mat"]
    assert out.texts == ["the cat sat on", "not a cat", "on the mat ."]
    assert out.word_index == [1, 2, 2]
    for text, word, index in zip(out.texts, out.word, out.word_index, strict=True):
        assert text.split()[index].lower() == word and index >= 1
    few = word_contexts(["cat"], texts * 10, per_word=3, width=1, seed=4)
    assert len(few.texts) == 3 and few == word_contexts(["cat"], texts * 10, 3, 1, seed=4)
    with pytest.raises(ValueError, match="per_word and width"):
        word_contexts(["cat"], texts, per_word=0, width=2, seed=0)


def test_context_word_vectors_average_the_words_subwords_over_contexts(tmp_path,
                                                                        monkeypatch):
    from anisotropy.inputs import models

    monkeypatch.setenv("ANISOTROPY_CACHE", str(tmp_path))
    encoder = models.load("sentence-transformers/all-MiniLM-L6-v2")
    contexts = word_contexts(["cat", "unbelievably"], ["a cat sat", "my cat ran",
                                                       "so unbelievably good"],
                             per_word=5, width=3, seed=0)
    tokens = encoder.encode_tokens(contexts.texts, [encoder.n_layers])
    got = context_word_vectors(tokens, encoder.n_layers, contexts)
    X = np.asarray(tokens.layer(encoder.n_layers), dtype=np.float64)
    table = tokens.token_table()
    per_context = [X[(table["sentence"] == c) & (table["word_index"] == i)].mean(axis=0)
                   for c, i in enumerate(contexts.word_index)]
    np.testing.assert_allclose(got["cat"], np.mean(per_context[:2], axis=0), rtol=1e-5)
    assert ((table["sentence"] == 2) & (table["word_index"] == 1)).sum() > 1  # subwords
    np.testing.assert_allclose(got["unbelievably"], per_context[2], rtol=1e-5)


def test_chapter6_defaults_are_the_papers_protocol():
    from anisotropy.claims.later_work import claim as later_work
    from anisotropy.inputs.references import reference_value

    defaults = later_work.Settings()
    assert defaults.sink_tokens == reference_value("claim6/sink/tokens")  # Gu et al.'s T
    assert later_work.sink_epsilon() == reference_value("claim6/sink/epsilon")
    assert later_work.massive_magnitude() == 100 and later_work.massive_threshold() == 1000


def _layered_tokens(n: int = 60, d: int = 8, shared: tuple = (0.0, 0.1, 3.0), seed: int = 3):
    """Tokens whose layer L adds ``shared[L]`` along one common direction to unit noise:
    a large shift gives a high mean cosine."""
    rng = np.random.default_rng(seed)
    base = [rng.normal(size=(n, d)) + s * np.eye(d)[0] for s in shared]
    return SimpleNamespace(layer=lambda layer: base[layer]), list(range(len(shared)))


def test_measures_disagree_is_graded_only_where_mean_cosine_calls_a_layer_isotropic():
    """``measures-disagree`` reads the layer (>= 1) of lowest mean cosine; where even that
    cosine is not below Ethayarajh's least anisotropic layer (ELMo's top, 0.136), the
    statement has no layer to be about and the check is not run, with the reason."""
    from anisotropy.claims.base import record_checks
    from anisotropy.claims.later_work import claim
    from anisotropy.claims.later_work.ids import MEASURES_AGREEMENT, MEASURES_DISAGREE
    from anisotropy.inputs.references import anisotropic_level
    from anisotropy.report.results import Results

    assert anisotropic_level() == pytest.approx(0.136)
    settings = claim.Settings.for_profile("smoke", n_boot_isoscore=20)
    tokens, layers = _layered_tokens()
    rows = np.arange(60)
    checks: dict = {}
    claim._measures(checks, settings, tokens, layers, rows, np.array([0.9, 0.05, 0.5]))
    graded = checks[MEASURES_DISAGREE]
    assert graded.details["layer of lowest mean cosine"] == 1  # layer 0 is left out
    assert graded.value is not None and graded.interval.low <= graded.value
    assert MEASURES_AGREEMENT in checks
    high: dict = {}
    claim._measures(high, settings, tokens, layers, rows, np.array([0.01, 0.29, 0.5]))
    assert high[MEASURES_DISAGREE].value is None
    assert "0.29" in high[MEASURES_DISAGREE].details["unavailable"]
    results = Results(claim.SLUG, parameters={}, profile="test")
    record_checks(results, "m", high, [MEASURES_DISAGREE])
    (recorded,) = results.checks
    assert recorded.verdict == "not run" and "mean cosine calls isotropic" in recorded.note


def test_the_central_band_and_its_peak_over_the_ends():
    from anisotropy.claims.later_work.claim import _central, _peak_over_ends

    central, ends = _central(6)
    assert central.tolist() == [2, 3, 4] and ends.tolist() == [1, 5, 6]
    central, ends = _central(30)
    assert central.tolist() == list(range(6, 25))
    assert ends.tolist() == [1, 2, 3, 4, 5, *range(25, 31)]
    rising = np.arange(31.0)            # layer 0..30, highest at the last layer
    assert _peak_over_ends(rising, 30)[0] == pytest.approx(24 / 30)
    humped = np.r_[0.0, 1.0, 2.0, 5.0, 2.0, 1.0, 3.0]
    assert _peak_over_ends(humped, 6)[0] == pytest.approx(5 / 3)
    with pytest.raises(ValueError, match="no central band"):
        _central(1)
