"""Claim 2's measurements and grading on synthetic token vectors (seconds, no model).

Types built in isolated clusters must be found as clusters, with S_inter near zero after
per-cluster centring; a space with one shared direction must be globally anisotropic."""

from __future__ import annotations

import numpy as np
import pytest
from synthetic import token_embeddings

from anisotropy.claims.clusters import claim
from anisotropy.report.checks import load_checks
from anisotropy.report.results import Results

SETTINGS = claim.Settings(models=["org/fake"], k_sample=400, lid_sample=300, lid_k=10,
                          n_boot=50, k_check_sample=400, k_check_n_init=1)


class _FakeEncoder:
    name, n_layers = "org/fake", 3

    def __init__(self, folder, **geometry):
        self.folder, self.geometry, self.resolved, self.kind = folder, geometry, self, "encoder"

    def encode_tokens(self, sentences, layers=None):
        geometry = {"shared": [0.0, 0.6, 0.8, 1.0], "mixing": [0.1, 0.2, 0.3, 0.4],
                    **self.geometry}
        return token_embeddings(self.folder, n_sentences=len(sentences), n_types=90,
                                **geometry)

    def input_embedding_matrix(self):
        rng = np.random.default_rng(1)
        return rng.normal(size=(500, 24)).astype(np.float32), None


def _grade(tmp_path, **geometry):
    m = claim.measure_model(SETTINGS, _FakeEncoder(tmp_path, **geometry), ["w"] * 120)
    results = Results(claim.SLUG, parameters={}, profile="test")
    claim.grade_clusters(results, SETTINGS, {m.name: m})
    claim.grade_lid(results, SETTINGS, {m.name: m})
    return m, {c.check: c for c in results.checks}


def test_the_checks_are_the_declared_ones():
    assert set(claim.CHECKS) == set(load_checks(claim.SLUG))


def test_isolated_clusters_are_found_and_centred_apart(tmp_path):
    m, checks = _grade(tmp_path, clusters=3, separation=3.0)
    contextual = m.per_layer[m.per_layer["layer"] >= 1]
    assert (contextual["K"] == 3).all()
    assert checks["global-anisotropy"].verdict == "reproduced"
    assert checks["intra-above-inter"].measured > 0
    assert contextual["S_inter per-cluster"].abs().max() < contextual["S_inter raw"].min()
    # "about zero": the largest per-cluster |S_inter| under the level called high, with the
    # paper's contrast (per-cluster against the raw space) in the details
    local = checks["local-isotropy"]
    assert local.verdict == "reproduced"
    assert local.measured == pytest.approx(contextual["|S_inter| per-cluster"].max())
    assert local.measured < local.threshold == pytest.approx(0.136)
    fall = (contextual["|S_inter| per-cluster"] - contextual["S_inter raw"].abs()).max()
    assert fall < 0
    assert local.details["largest per-cluster minus raw |S_inter|"] == pytest.approx(fall)
    assert local.details["layers with K > 1"] == contextual["layer"].tolist()
    lid = checks[claim.LID_BELOW_STATIC]
    lids = m.per_layer.set_index("layer")["LID cosine"]
    assert lid.details["ratio to layer 0 on the text's sample"] == pytest.approx(
        lids.loc[contextual["layer"]].max() / lids.loc[0])
    # against global centring: a finding with its interval
    beyond = checks[claim.LOCAL_BEYOND_CENTRING]
    assert beyond.verdict == "finding" and len(beyond.details["95% interval"]) == 2
    assert {c for c in checks} == {*claim.SIMILARITY_CHECKS, claim.LID_BELOW_STATIC,
                                   "isolated-clusters", claim.LOCAL_BEYOND_CENTRING}
    # six K-means fits per layer at the chosen K (the default): their spread is recorded,
    # and the per-cluster interval mixes their bootstraps
    assert SETTINGS.kmeans_restarts == 6
    assert "S_inter per-cluster restart range" in contextual
    assert "K-means fits" in checks["intra-above-inter"].interval_method


def test_without_clusters_the_per_cluster_contrasts_are_not_run(tmp_path):
    """Occurrences scattered by context (noise dominates the type vectors): no layer
    clusters, so per-cluster centring is global centring, and neither the paper's contrast
    (per-cluster against raw) nor the comparison with global centring is graded: with no
    cluster, centring alone would pass for local isotropy."""
    m, checks = _grade(tmp_path, shared=[0.0] * 4, mixing=[0.97] * 4)
    assert (m.per_layer["K"] == 1).all()
    for check in ("local-isotropy", claim.LOCAL_BEYOND_CENTRING):
        assert checks[check].verdict == "not run"
        assert "K = 1" in checks[check].note


def test_every_cluster_is_in_every_window_draw():
    """Window weights are positive in every draw: a cluster of two types, each from one
    window, keeps its S_inter in every draw, so every draw averages over the same
    clusters (a fixed estimand)."""
    from anisotropy.claims.clusters import similarities as cs
    from anisotropy.geometry.intervals import dirichlet_weights

    rng = np.random.default_rng(0)
    X = np.concatenate([rng.normal(size=(6, 8)) + 5, rng.normal(size=(60, 8)) - 5])
    types = np.r_[0, 0, 0, 1, 1, 1, np.arange(2, 62)]  # a cluster of two types
    labels = np.r_[np.zeros(6, int), np.ones(60, int)]
    windows = np.r_[0, 0, 0, 1, 1, 1, np.arange(60) % 6]
    weights = dirichlet_weights(6, 400, 1)
    out = cs.per_cluster_similarities(X, types, labels, seed=1, windows=windows,
                                      weights=weights)
    assert np.isfinite(out["S_inter per-cluster draws"]).all()
    low, high = np.quantile(out["S_inter per-cluster draws"], [0.025, 0.975])
    assert low <= out["S_inter per-cluster"] <= high
    # unit weights give the point estimates exactly
    ones = cs.type_similarities(X, types, labels, seed=1, windows=windows,
                                weights=np.ones((1, 6)))
    for name in ("S_inter raw", "S_inter centred", "S_inter per-cluster",
                 "S_intra per-cluster"):
        assert ones[f"{name} draws"][0] == pytest.approx(ones[name])


def test_worst_layer_interval_holds_its_point_and_every_layer():
    """The worst layer's value lies in its interval, and the interval reaches every
    layer's own: a layer whose interval straddles the threshold keeps the check from
    being reproduced even when another layer is the worst by its point."""
    from anisotropy.geometry.intervals import Interval, interval_of_min

    layers = [Interval(0.10, 0.12, "m"), Interval(0.05, 0.30, "m")]
    combined = interval_of_min(layers, "layers")
    assert combined.as_list() == [0.05, 0.12]
    assert combined.low <= min(0.11, 0.2) <= combined.high


def test_restarts_mix_their_draws_evenly():
    from anisotropy.claims.clusters import similarities as cluster_similarities

    draws = [np.full(9, float(r)) for r in range(3)]
    mixed = cluster_similarities.mix_restarts(draws)
    assert mixed.tolist() == [0.0, 1.0, 2.0] * 3


def test_static_lid_is_the_mean_over_its_samples_and_mixes_their_draws():
    """One sample is the previous estimator; R samples average the R samples' LIDs (each
    checked against lid_mle on the same rows) and their draws mix the R bootstraps."""
    from anisotropy.claims.clusters import manifolds
    from anisotropy.geometry.dimension import lid_mle
    from anisotropy.geometry.sampling import sample_indices
    from anisotropy.geometry.streams import stream_seed

    vectors = np.random.default_rng(5).normal(size=(900, 12)).astype(np.float32)
    one = manifolds.static_space_lid(vectors, sample=200, k=10, seed=7, n_boot=40)
    three = manifolds.static_space_lid(vectors, sample=200, k=10, seed=7, n_boot=40,
                                       samples=3)
    unique = np.unique(vectors, axis=0)
    lids = [lid_mle(unique[sample_indices(900, 200, stream_seed(7, name))], k=10,
                    metric="cosine") for name in ("sample", "sample-1", "sample-2")]
    assert one["LID cosine"] == pytest.approx(lids[0], rel=1e-12)
    assert three["LID cosine"] == pytest.approx(np.mean(lids), rel=1e-12)
    assert three["LID euclidean"] == one["LID euclidean"]
    assert np.array_equal(three["LID cosine draws"][::3], one["LID cosine draws"][::3])
    assert len(set(np.round(three["LID cosine draws"], 12))) == 40
    with pytest.raises(ValueError, match="samples"):
        manifolds.static_space_lid(vectors, sample=200, k=10, samples=0)


def test_the_decoder_drivers_finding_records_its_interval_and_method():
    from anisotropy.geometry.intervals import Interval

    row = {"layer": 2, "K with position 0": 3, "top-3 between-cluster dims": [4, 1, 7],
           "top-3 between-cluster share": 0.6}
    drivers = {"org/decoder": claim.DecoderDrivers(row, Interval(0.5, 0.7, "a bootstrap"))}
    results = Results(claim.SLUG, parameters={}, profile="test")
    claim.grade_drivers(results, drivers)
    (found,) = results.checks
    assert (found.check, found.model, found.verdict) == (
        claim.DECODER_CLUSTERS_FEW_DIMS, "org/decoder", "finding")
    assert found.measured == 0.6
    assert found.details == {"95% interval": [0.5, 0.7], "interval method": "a bootstrap",
                             "K": 3, "dims": [4, 1, 7]}


def test_the_static_control_lid_is_a_named_result():
    class _Static:
        name, dim = "static/fake", 12
        vectors = np.random.default_rng(3).normal(size=(400, 12)).astype(np.float32)

    static = claim.measure_static_lid(SETTINGS, load=lambda name, **options: _Static())
    assert isinstance(static, claim.StaticLid) and isinstance(static.model, _Static)
    assert {"n", "dim", "LID euclidean", "LID cosine"} <= set(static.lid)
    assert "LID cosine draws" not in static.lid and len(static.draws) == SETTINGS.n_boot


def test_local_isotropy_reads_only_layers_whose_raw_similarity_is_high():
    """"Falls to about zero from the high raw S_inter": a clustered layer whose raw S_inter
    is already low has nothing for the clusters to reveal (centring alone would bring it
    near zero), so it is left out, and with no such layer the check is not measured, with
    the reason; the level is global-anisotropy's threshold."""
    import pandas as pd

    from anisotropy.claims.clusters import measure as cm
    from anisotropy.geometry.intervals import Interval
    from anisotropy.inputs.references import anisotropic_level
    from anisotropy.report.checks import load_checks

    high = anisotropic_level()
    assert high == load_checks(claim.SLUG)["global-anisotropy"].threshold
    per_cluster = pd.Series({1: 0.02, 2: 0.09, 3: 0.05})
    raw = pd.Series({1: 0.05, 2: 0.40, 3: 0.30})
    seen = []

    def intervals(statistic, statement, layers):
        seen.append(list(layers))
        return [Interval(per_cluster[x] - 0.01, per_cluster[x] + 0.01, "m") for x in layers]

    value = cm.largest_per_cluster(per_cluster, raw, pd.Index([1, 2, 3]), intervals, high)
    assert seen == [[2, 3]] and value.value == 0.09  # layer 1's raw S_inter is low: left out
    assert value.details["layers graded (raw |S_inter| high)"] == [2, 3]
    assert value.details["largest per-cluster minus raw |S_inter|"] == pytest.approx(-0.25)
    low = cm.largest_per_cluster(per_cluster, raw * 0.2, pd.Index([1, 2, 3]), intervals, high)
    assert low.value is None and "not high" in low.details["unavailable"]
