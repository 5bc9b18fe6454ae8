"""The simultaneous band over layers (:mod:`anisotropy.geometry.bands`)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anisotropy.geometry.bands import band_level, simultaneous_intervals
from anisotropy.geometry.intervals import percentile_interval


def _held(draws, intervals) -> float:
    low = np.array([i.low for i in intervals])
    high = np.array([i.high for i in intervals])
    return float(((draws >= low) & (draws <= high)).all(axis=1).mean())


def test_one_column_is_the_percentile_interval():
    draws = np.random.default_rng(0).normal(size=(1000, 1))
    (band,) = simultaneous_intervals(draws, method="m")
    pointwise = percentile_interval(draws[:, 0], method="m")
    assert (band.low, band.high) == pytest.approx((pointwise.low, pointwise.high))


def test_identical_columns_need_no_widening():
    column = np.random.default_rng(1).normal(size=(2000, 1))
    draws = np.repeat(column, 6, axis=1)
    assert band_level(draws) == 0.95


def test_independent_columns_reach_sidak():
    """Closed form: for L independent columns the band needs each at level 0.95^(1/L)."""
    columns = 10
    draws = np.random.default_rng(2).normal(size=(40000, columns))
    assert band_level(draws) == pytest.approx(0.95 ** (1 / columns), abs=0.0015)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 12), st.floats(0.0, 0.99), st.integers(0, 10_000))
def test_the_band_holds_its_level_and_each_pointwise_interval(columns, rho, seed):
    rng = np.random.default_rng(seed)
    shared = rng.normal(size=(400, 1))
    draws = np.sqrt(rho) * shared + np.sqrt(1 - rho) * rng.normal(size=(400, columns))
    band = simultaneous_intervals(draws, method="m")
    assert _held(draws, band) >= 0.95
    for i, interval in enumerate(band):
        pointwise = percentile_interval(draws[:, i], method="m")
        assert interval.low <= pointwise.low + 1e-12 and interval.high >= pointwise.high - 1e-12
        assert "simultaneous 95% band" in interval.method


def test_bad_draws_are_refused():
    with pytest.raises(ValueError, match="at least 20"):
        band_level(np.zeros((10, 3)))
    with pytest.raises(ValueError, match="not finite"):
        band_level(np.full((30, 2), np.nan))
    with pytest.raises(ValueError, match="n_columns"):
        band_level(np.zeros(30))
