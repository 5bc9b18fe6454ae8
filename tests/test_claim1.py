"""Claim 1's measurements and grading on synthetic token vectors (seconds, no model).

The synthetic space (tests/synthetic.py) has a known anisotropy per layer and a known
context-specificity, so each check must come out the way the construction says."""

from __future__ import annotations

import numpy as np
import pytest
from synthetic import token_embeddings

from anisotropy.claims.layerwise import claim
from anisotropy.report.checks import load_checks
from anisotropy.report.results import Results

SETTINGS = claim.Settings(models=["synthetic"], n_boot=200, n_baseline_pairs=400,
                          min_contexts=5)
THRESHOLD = load_checks(claim.SLUG)["mev-low"].threshold


def _measure(tmp_path, shared, mixing, kind="encoder"):
    tokens = token_embeddings(tmp_path, shared, mixing)
    return claim.measure_model(SETTINGS, tokens, len(shared) - 1, kind=kind,
                               mev_threshold=THRESHOLD)


def test_the_checks_are_the_declared_ones():
    assert set(claim.CHECKS) == set(load_checks(claim.SLUG))


def test_rising_anisotropy_and_falling_self_similarity_are_found(tmp_path):
    m = _measure(tmp_path, shared=[0.0, 0.5, 0.8, 1.2, 1.6], mixing=[0.0, 0.2, 0.4, 0.6, 0.8])
    rises, falls = m.checks["baseline-rises"], m.checks["selfsim-falls"]
    assert rises.value > 0.2 and rises.interval.low > 0
    assert falls.value < 0 and falls.interval.high < 0
    baseline = m.per_layer["baseline"].to_numpy()
    assert (baseline[1:] > baseline[:-1]).all()  # the construction's a_l is increasing
    results = Results(claim.SLUG, parameters=SETTINGS.parameters(), profile="test")
    claim.grade(results, {"org/synthetic": m})
    verdicts = {c.check: c.verdict for c in results.checks}
    assert set(verdicts) == set(claim.CHECKS)
    assert verdicts["baseline-rises"] == "reproduced"
    assert verdicts["selfsim-falls"] == "reproduced"
    assert verdicts["baseline-positive"] == "reproduced"
    from anisotropy.claims.layerwise import page

    # the fall holds with any one layer left out of the synthetic space
    table = page.left_out_table(results, "selfsim-falls")
    assert table.loc["synthetic", "all layers"] == pytest.approx(falls.value)
    assert table.loc["synthetic", "largest, one layer left out"] < 0


def test_a_flat_isotropic_space_does_not_reproduce_rising_anisotropy(tmp_path):
    m = _measure(tmp_path, shared=[0.0] * 5, mixing=[0.5] * 5)
    rises = m.checks["baseline-rises"]
    assert rises.interval.low < 0 < rises.interval.high or rises.value < 0.02
    results = Results(claim.SLUG, parameters=SETTINGS.parameters(), profile="test")
    claim.grade(results, {"org/synthetic": m})
    verdicts = {c.check: c.verdict for c in results.checks}
    assert verdicts["baseline-rises"] != "reproduced"


def test_a_decoder_drops_position_zero_unless_asked(tmp_path):
    m = _measure(tmp_path, shared=[0.0, 0.5, 1.0], mixing=[0.2, 0.4, 0.6], kind="decoder")
    assert m.decoder and m.facts["excluded_positions"] == [0] and m.sinks is not None
    kept = claim.measure_model(
        claim.Settings(models=["synthetic"], n_boot=50, include_sink=True),
        token_embeddings(tmp_path / "again", [0.0, 0.5, 1.0], [0.2, 0.4, 0.6]), 2,
        kind="decoder", mev_threshold=THRESHOLD)
    assert kept.facts["excluded_positions"] == []
    assert kept.facts["n_occurrences_analysed"] > m.facts["n_occurrences_analysed"]


def test_mev_floor_shows_with_few_contexts(tmp_path):
    """MEV of n centred points is at least 1/(n-1): the measured per-word MEV respects it."""
    m = _measure(tmp_path, shared=[0.0, 0.3, 0.6], mixing=[0.3, 0.6, 0.9])
    words = m.per_word[m.per_word["layer"] >= 1].dropna(subset=["mev"])
    assert (words["mev"] >= 1 / (words["n"] - 1) - 1e-9).all()
    assert m.checks["mev-low"].value == pytest.approx(m.summary["mev_uncentred_adj_max"])
    assert m.checks["mev-low"].details["centred PCA (commit 3865f9b)"] == pytest.approx(
        m.summary["mev_adj_max"])


def test_a_range_whose_ends_read_the_same_is_one_number():
    from anisotropy.claims.layerwise.page import _range

    assert _range([0.18, 0.28]) == "0.18–0.28"
    assert _range([0.031, 0.034]) == "0.031–0.034"  # "0.03–0.03" told nothing
    assert _range([0.0312, 0.0312]) == "0.0312" and _range([]) == "n/a"


def test_leave_one_layer_out_finds_the_layer_a_difference_rests_on():
    from anisotropy.claims.layerwise.measure import leave_one_layer_out

    layers = np.arange(7)
    lower = np.array([False, True, True, True, False, False, False])
    upper = np.array([False, False, False, False, True, True, True])
    values = np.array([0.0, 0.9, 0.1, 0.1, 0.2, 0.2, 0.2])   # falls only through layer 1
    out = leave_one_layer_out(values, layers, lower, upper)
    assert out["layer left out for it"] == 1
    assert out["largest, one layer left out"] == pytest.approx(0.2 - 0.1)
    assert leave_one_layer_out(values, layers, np.eye(7, dtype=bool)[1],
                               np.eye(7, dtype=bool)[4]) == {}
