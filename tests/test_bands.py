"""Intervals for statements about every layer (:mod:`anisotropy.geometry.bands`)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anisotropy.geometry.bands import band_level, every_layer_intervals, simultaneous_bounds
from anisotropy.geometry.intervals import percentile_interval


def test_one_layer_gives_the_percentile_interval():
    draws = np.random.default_rng(0).normal(size=(1000, 1))
    pointwise = percentile_interval(draws[:, 0], method="m")
    for statement in ("min", "max"):
        (interval,) = every_layer_intervals(draws, statement, method="m")
        assert (interval.low, interval.high) == pytest.approx((pointwise.low, pointwise.high))


def test_identical_columns_need_no_correction():
    column = np.random.default_rng(1).normal(size=(2000, 1))
    draws = np.repeat(column, 6, axis=1)
    assert band_level(draws, 0.975, "upper") == 0.975
    assert band_level(draws, 0.975, "lower") == 0.975


@pytest.mark.parametrize("side", ["upper", "lower"])
def test_independent_columns_reach_sidak(side):
    """Closed form: for L independent columns each bound needs level 0.975^(1/L)."""
    columns = 10
    draws = np.random.default_rng(2).normal(size=(40000, columns))
    assert band_level(draws, 0.975, side) == pytest.approx(0.975 ** (1 / columns), abs=0.001)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 12), st.floats(0.0, 0.99), st.integers(0, 10_000),
       st.sampled_from(["min", "max"]))
def test_the_false_end_holds_jointly_and_the_true_end_stays_pointwise(columns, rho, seed,
                                                                        statement):
    rng = np.random.default_rng(seed)
    shared = rng.normal(size=(400, 1))
    draws = np.sqrt(rho) * shared + np.sqrt(1 - rho) * rng.normal(size=(400, columns))
    intervals = every_layer_intervals(draws, statement, method="m")
    low = np.array([i.low for i in intervals])
    high = np.array([i.high for i in intervals])
    pointwise = [percentile_interval(draws[:, i], method="m") for i in range(columns)]
    if statement == "min":  # reproduced reads the lows, not reproduced the highs
        assert low == pytest.approx([p.low for p in pointwise])
        assert (high >= np.array([p.high for p in pointwise]) - 1e-12).all()
        assert (draws <= high).all(axis=1).mean() >= 0.975
    else:
        assert high == pytest.approx([p.high for p in pointwise])
        assert (low <= np.array([p.low for p in pointwise]) + 1e-12).all()
        assert (draws >= low).all(axis=1).mean() >= 0.975
    assert "simultaneous 97.5% bound" in intervals[0].method


def test_simultaneous_bounds_hold_their_level():
    draws = np.random.default_rng(3).normal(size=(500, 8))
    upper = simultaneous_bounds(draws, 0.9, "upper")
    assert (draws <= upper).all(axis=1).mean() >= 0.9


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="at least 20"):
        band_level(np.zeros((10, 3)), 0.975, "upper")
    with pytest.raises(ValueError, match="not finite"):
        band_level(np.full((30, 2), np.nan), 0.975, "upper")
    with pytest.raises(ValueError, match="n_columns"):
        band_level(np.zeros(30), 0.975, "upper")
    with pytest.raises(ValueError, match="side"):
        band_level(np.zeros((30, 2)), 0.975, "both")
    with pytest.raises(ValueError, match="statement"):
        every_layer_intervals(np.zeros((30, 2)), "mean", method="m")
