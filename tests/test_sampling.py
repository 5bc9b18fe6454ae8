"""The one seeded sampler."""

from __future__ import annotations

import numpy as np
import pytest

from anisotropy.geometry.sampling import sample_indices


def test_sample_matches_numpy_choice_and_is_stable():
    rows = sample_indices(100, 10, seed=3)
    expected = np.random.default_rng(3).choice(100, size=10, replace=False)
    np.testing.assert_array_equal(rows, expected)
    np.testing.assert_array_equal(sample_indices(100, 10, seed=3, sort=True), np.sort(expected))
    assert np.unique(rows).size == 10
    assert sorted(sample_indices(5, 50, seed=0)) == list(range(5))  # capped at n
    assert sorted(sample_indices(5, None, seed=0)) == list(range(5))


@pytest.mark.parametrize("n, size, message", [(-1, 3, "n must be"), (10, 0, "size must be"),
                                              (10, 2.5, "size must be")])
def test_bad_sample_requests_are_refused(n, size, message):
    with pytest.raises(ValueError, match=message):
        sample_indices(n, size)
