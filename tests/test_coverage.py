"""The coverage script's count (scripts/coverage.py) against its closed form: estimates
that vary as their intervals say cover about 83% of each other, and intervals that are too
narrow cover less."""

from __future__ import annotations

import numpy as np
import pytest
from project_scripts import load_script


def _script():
    return load_script("coverage")


def test_correct_intervals_cover_about_83_percent_and_narrow_ones_less():
    script = _script()
    rng = np.random.default_rng(0)
    sigma, n = 0.1, 300
    values = rng.normal(1.0, sigma, size=n)
    right = {i: (v, v - 1.96 * sigma, v + 1.96 * sigma) for i, v in enumerate(values)}
    share, pairs = script.coverage(right)
    assert pairs == n * (n - 1)
    assert share == pytest.approx(script.EXPECTED, abs=0.03)
    narrow = {i: (v, v - 0.5 * sigma, v + 0.5 * sigma) for i, v in enumerate(values)}
    assert script.coverage(narrow)[0] < script.FLAG


def test_false_flag_rate_falls_with_more_seeds():
    """A correct interval is flagged by chance: about 11% of studies with 10 seeds (the
    pairs share seeds), far fewer with 20."""
    script = _script()
    ten, twenty = script.false_flag_rate(10, 2000), script.false_flag_rate(20, 2000)
    assert 0.07 < ten < 0.16
    assert twenty < 0.06 and twenty < ten


def test_coverage_needs_two_seeds():
    script = _script()
    share, pairs = script.coverage({0: (1.0, 0.9, 1.1)})
    assert pairs == 0 and np.isnan(share)


def test_the_band_recorders_seed_runs_are_read_as_seeds():
    """``--perturb`` reads seed 0 from the recorder's baseline run and seed N from seed-N."""
    script = _script()
    assert script.results_path(0, "x", perturb=True).parts[-6:-4] == ("perturb", "baseline")
    assert script.results_path(3, "x", perturb=True).parts[-6:-4] == ("perturb", "seed-3")
    assert script.results_path(3, "x").parts[-6:-4] == ("coverage", "seed-3")
    # beyond the recorder's seeds, --perturb reads (and runs) this script's own
    assert script.results_path(script.PERTURB_SEEDS, "x", perturb=True).parts[-6:-4] == (
        "coverage", f"seed-{script.PERTURB_SEEDS}")
