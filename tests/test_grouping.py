"""Grouped row sums and run means against numpy's ufunc.at / reduceat."""

from __future__ import annotations

import numpy as np
import pytest

from anisotropy.geometry.grouping import group_sums, run_means, run_starts

RNG = np.random.default_rng(3)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_group_sums_match_add_at(dtype):
    X = RNG.normal(size=(500, 7)).astype(dtype)
    codes = RNG.integers(0, 40, size=500)
    expected = np.zeros((43, 7))
    np.add.at(expected, codes, X.astype(np.float64))
    out = group_sums(X, codes, 43)  # groups 40..42 have no rows
    assert out.dtype == np.float64 and out.shape == (43, 7)
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-12)
    assert not out[40:].any()


def test_run_means_match_reduceat():
    X = RNG.normal(size=(300, 5))
    labels = np.repeat([4, 1, 4, 9, 2], [1, 80, 19, 150, 50])  # a label may come back
    starts = run_starts(labels)
    assert starts.tolist() == [0, 1, 81, 100, 250]
    expected = np.add.reduceat(X, starts, axis=0) / np.diff(np.r_[starts, 300])[:, None]
    np.testing.assert_allclose(run_means(X, starts), expected, rtol=1e-12, atol=1e-12)


def test_empty_and_bad_inputs():
    assert run_starts([]).size == 0
    assert run_means(np.zeros((0, 3)), np.zeros(0, dtype=int)).shape == (0, 3)
    with pytest.raises(ValueError, match="one entry per row"):
        group_sums(np.zeros((4, 2)), [0, 1], 2)
    with pytest.raises(ValueError, match="0..1"):
        group_sums(np.zeros((2, 2)), [0, 2], 2)
    with pytest.raises(ValueError, match="increase strictly"):
        run_means(np.zeros((4, 2)), [0, 2, 2])
    with pytest.raises(ValueError, match="begin at 0"):
        run_means(np.zeros((4, 2)), [1, 3])


def test_pooling_mask_drops_the_sink_but_never_empties_a_sentence():
    from anisotropy.inputs.extraction import pooling_mask

    sentence = np.array([0, 0, 0, 1, 2, 2])
    position = np.array([0, 1, 2, 0, 0, 1])
    special = np.array([True, False, True, False, True, False])
    assert pooling_mask(sentence, position, special).all()
    assert pooling_mask(sentence, position, special, (0,)).tolist() == [
        False, True, True, True, False, True]  # sentence 1 has only position 0: kept
    assert pooling_mask(sentence, position, special, (), drop_special=True).tolist() == [
        False, True, False, True, False, True]


def test_pool_rows_equals_per_sentence_means():
    from anisotropy.inputs.extraction import pool_rows

    rng = np.random.default_rng(5)
    sentence = np.repeat(np.arange(4), [3, 1, 2, 4])
    X = rng.normal(size=(10, 3)).astype(np.float32)
    rows = np.array([0, 2, 3, 6, 7, 9])  # sentence 2 has no rows
    ids, means = pool_rows(X[rows], rows, sentence)
    assert ids.tolist() == [0, 1, 3]
    expected = [X[[0, 2]].mean(0), X[[3]].mean(0), X[[6, 7, 9]].mean(0)]
    np.testing.assert_allclose(means, np.array(expected, dtype=np.float64), rtol=1e-6)
    with pytest.raises(ValueError, match="increasing"):
        pool_rows(X[rows[::-1]], rows[::-1], sentence)
    with pytest.raises(ValueError, match="one row per token row"):
        pool_rows(X, rows, sentence)
