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


