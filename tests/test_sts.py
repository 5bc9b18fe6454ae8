"""STS evaluation: correlations, aggregation, and input checks."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import spearmanr

from anisotropy.claims import sts


def test_perfect_and_anti_correlation():
    gold = np.linspace(0, 5, 50)
    angles = np.linspace(0, np.pi / 2, 50)[::-1]
    B = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    A2 = np.tile([[1.0, 0.0]], (50, 1))
    result = sts.evaluate_sts(A2, B, gold)
    assert result["spearman_all"] == pytest.approx(100.0)
    assert result["primary"] == result["spearman_all"]
    assert sts.evaluate_sts(A2, B, gold[::-1])["spearman_all"] == pytest.approx(-100.0)


def test_all_vs_mean_aggregation():
    rng = np.random.default_rng(1)
    A, B = rng.normal(size=(40, 5)), rng.normal(size=(40, 5))
    scores = sts.cosine_scores(A, B)
    gold = np.r_[scores[:20] + 10, scores[20:]]  # two subsets with shifted gold scores
    subsets = np.repeat(["a", "b"], 20)
    result = sts.evaluate_sts(A, B, gold, subsets)
    assert result["spearman_mean"] == pytest.approx(100.0)
    assert result["spearman_all"] == pytest.approx(100 * spearmanr(scores, gold)[0])
    assert result["spearman_all"] < 100


def test_bad_inputs():
    with pytest.raises(ValueError, match="same shape"):
        sts.cosine_scores(np.ones((3, 2)), np.ones((4, 2)))
    with pytest.raises(ValueError, match="at least 3 pairs"):
        sts.evaluate_sts(np.ones((2, 2)), np.ones((2, 2)), [1, 2])
    with pytest.raises(ValueError, match="NaN"):
        sts.cosine_scores(np.full((3, 2), np.nan), np.ones((3, 2)))


def test_wmean_weights_subsets_by_their_pairs():
    rng = np.random.default_rng(4)
    A, B = rng.normal(size=(60, 5)), rng.normal(size=(60, 5))
    scores = sts.cosine_scores(A, B)
    gold = np.r_[scores[:40] + rng.normal(scale=0.1, size=40), rng.normal(size=20)]
    subsets = np.repeat(["big", "small"], [40, 20])
    result = sts.evaluate_sts(A, B, gold, subsets)
    per = [100 * spearmanr(scores[:40], gold[:40])[0], 100 * spearmanr(scores[40:], gold[40:])[0]]
    assert result["spearman_wmean"] == pytest.approx((40 * per[0] + 20 * per[1]) / 60)
    assert result["spearman_mean"] == pytest.approx(np.mean(per))
    alone = sts.evaluate_sts(A, B, gold)
    assert alone["spearman_wmean"] == alone["spearman_all"]
    assert sts.score_correlations(scores, gold, subsets) == result


def test_stratified_change_draws_centre_on_the_wmean_change():
    rng = np.random.default_rng(5)
    gold = rng.normal(size=300)
    subsets = np.repeat(["a", "b", "c"], [150, 100, 50])
    good = gold + rng.normal(scale=0.5, size=300)
    bad = gold + rng.normal(scale=2.0, size=300)
    draws = sts.spearman_change_draws(good, bad, gold, 300, seed=1, subsets=subsets)
    groups = [slice(0, 150), slice(150, 250), slice(250, 300)]
    per = [100 * (spearmanr(good[g], gold[g])[0] - spearmanr(bad[g], gold[g])[0])
           for g in groups]
    expected = np.average(per, weights=[150, 100, 50])
    assert np.quantile(draws, 0.025) < expected < np.quantile(draws, 0.975)
    with pytest.raises(ValueError, match="one subset per pair"):
        sts.spearman_change_draws(good, bad, gold, 10, subsets=subsets[:5])
