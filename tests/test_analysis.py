"""Analysis helpers of the claim notebooks, on synthetic data with known answers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import ortho_group

from anisotropy.book.rows import format_value
from anisotropy.claims.classifier_geometry.classifier import (
    isotropy_defect_cosine,
    optimize_embeddings,
    pair_point_labels,
    trajectory_correlations,
)
from anisotropy.claims.clusters import manifolds
from anisotropy.claims.clusters import measure as clusters
from anisotropy.claims.clusters import similarities as cluster_similarities
from anisotropy.claims.frequency import measure as frequency
from anisotropy.claims.frequency.calibration import FlowCalibration
from anisotropy.claims.layerwise import measure as layerwise
from anisotropy.geometry import metrics
from anisotropy.geometry.streams import stream_seed
from anisotropy.report.results import ranges_text

RNG = np.random.default_rng(0)


# ------------------------------------------------------------------ claim 5 derivation


@pytest.mark.parametrize("seed", range(5))
def test_isotropy_defect_cosine_identity(seed):
    """Mickus et al. Sec. 2.2: defect^2 = n (1 - cos) / (n - sqrt n) on PCA-transformed data."""
    rng = np.random.default_rng(seed)
    dim = int(rng.integers(3, 40))
    X = rng.normal(size=(500, dim)) * rng.uniform(0.1, 5, size=dim)
    X = X @ ortho_group.rvs(dim, random_state=seed)
    defect, cosine = isotropy_defect_cosine(X)
    n = dim
    assert defect**2 == pytest.approx(n * (1 - cosine) / (n - np.sqrt(n)), rel=1e-9)
    # and it is the defect inside IsoScore
    score = ((n - defect**2 * (n - np.sqrt(n))) ** 2 - n) / (n * (n - 1))
    assert score == pytest.approx(metrics.isoscore(X), abs=1e-9)


def test_isotropy_defect_from_pairwise_distances():
    """Mickus et al. Sec. 2.2: the variance vector of the PCA-transformed points, obtained
    here from pairwise squared distances per principal axis, gives the library's defect."""
    X = RNG.normal(size=(60, 4)) * [3, 2, 1, 0.5] @ ortho_group.rvs(4, random_state=2)
    centred = X - X.mean(axis=0)
    pcs = centred @ np.linalg.svd(centred, full_matrices=False)[2].T
    variances = ((pcs[:, None, :] - pcs[None, :, :]) ** 2).sum(axis=(0, 1)) / (2 * 60**2)
    n = 4
    defect = (np.linalg.norm(np.sqrt(n) * variances / np.linalg.norm(variances) - 1)
              / np.sqrt(2 * (n - np.sqrt(n))))
    assert isotropy_defect_cosine(X)[0] == pytest.approx(defect, rel=1e-9)
    assert 0.3 < defect < 1  # far from isotropic: variances about 9, 4, 1, 0.25


def test_limiting_configurations():
    labels = RNG.integers(0, 2, size=600)
    centres = RNG.normal(size=(2, 32))
    collapsed = centres[labels] + 1e-4 * RNG.normal(size=(600, 32))
    assert metrics.silhouette(collapsed, labels) > 0.99
    assert metrics.isoscore(collapsed) < 0.01
    gaussian = RNG.normal(size=(20000, 8))
    assert metrics.isoscore(gaussian) > 0.98
    assert abs(metrics.silhouette(gaussian[:3000], RNG.integers(0, 2, 3000))) < 0.02


def test_optimizing_embeddings_trades_isotropy_for_clusters():
    # its own generator: the margins must not depend on which tests ran before. On
    # isotropic data IsoScore first rises slightly under Adam (per-coordinate steps even
    # out the variances) and falls once the classes pull apart, by ~0.04 at 300 updates
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 16)).astype(np.float32)
    y = rng.integers(0, 2, size=400)
    trajectory = optimize_embeddings(X, y, n_updates=300, metric_every=50, progress=False)
    assert list(trajectory["update"]) == [0, 50, 100, 150, 200, 250, 300]
    assert trajectory["isoscore"].iloc[-1] < trajectory["isoscore"].iloc[0] - 0.02
    assert trajectory["silhouette"].iloc[-1] > trajectory["silhouette"].iloc[0] + 0.05
    assert trajectory_correlations(trajectory)["pearson"] < 0
    again = optimize_embeddings(X, y, n_updates=300, metric_every=50, progress=False)
    np.testing.assert_allclose(trajectory["isoscore"], again["isoscore"])  # seeded


def test_pair_task_and_labels():
    pairs = np.array([[0, 1], [0, 2], [3, 4]])
    labels = pair_point_labels(pairs, np.array([0, 2, 1]), 5)
    # point 0 is in a class-0 and a class-2 pair: its own cluster {0, 2}
    assert len(set(labels)) == 4 and labels[1] != labels[0] and labels[3] == labels[4]
    X = RNG.normal(size=(5, 6)).astype(np.float32)
    trajectory = optimize_embeddings(X, np.array([0, 1, 0]), pairs=pairs, n_updates=5,
                                     progress=False, point_labels=np.array([0, 1, 1, 0, 0]))
    assert len(trajectory) == 6
    # the silhouette of a pair task is the pair vectors' [u; v] with the pairs' labels;
    # the sentences' label-set silhouette is recorded beside it
    from anisotropy.geometry import metrics

    pairs = np.array([[0, 1], [0, 2], [3, 4], [5, 1], [2, 3], [4, 5]])
    targets, point_labels = np.array([0, 2, 1, 0, 2, 1]), np.array([0, 1, 1, 0, 0, 1])
    X = RNG.normal(size=(6, 6)).astype(np.float32)
    first = optimize_embeddings(X, targets, pairs=pairs, n_updates=2, progress=False,
                                point_labels=point_labels).iloc[0]
    paired = np.concatenate([X[pairs[:, 0]], X[pairs[:, 1]]], axis=1)
    assert first["silhouette"] == pytest.approx(metrics.silhouette(paired, targets), rel=1e-5)
    assert first["silhouette (sentences)"] == pytest.approx(
        metrics.silhouette(X, point_labels), rel=1e-5)
    assert first["isoscore"] == pytest.approx(metrics.isoscore(X), rel=1e-5)
    with pytest.raises(ValueError, match="pairs must be"):
        optimize_embeddings(X, np.array([0, 1]), pairs=pairs, n_updates=2, progress=False)


@pytest.mark.parametrize("bias", [True, False])
def test_pair_classifier_is_linear_on_concatenation(bias):
    """The pair logits (per-point u and v terms, gathered) equal a Linear layer on
    [u; v], the classifier as written: same losses along a reference loop."""
    import torch

    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 6)).astype(np.float32)
    pairs = np.concatenate([rng.permutation(40).reshape(20, 2),  # every point in a pair
                            rng.integers(0, 40, size=(10, 2))])
    targets = rng.integers(0, 3, size=30)
    trajectory = optimize_embeddings(X, targets, pairs=pairs, n_updates=8, seed=2, bias=bias,
                                     progress=False)
    # reference: the same seeded initialization and Adam, logits from the concatenation
    generator = torch.Generator().manual_seed(stream_seed(2, "classifier-init"))
    torch.manual_seed(stream_seed(2, "torch-global"))
    E = torch.nn.Parameter(torch.tensor(X))
    linear = torch.nn.Linear(12, 3, bias=bias)
    with torch.no_grad():
        bound = 1 / np.sqrt(12)
        linear.weight.uniform_(-bound, bound, generator=generator)
        if bias:
            linear.bias.uniform_(-bound, bound, generator=generator)
    optimizer = torch.optim.Adam([E, *linear.parameters()])
    a, b = torch.tensor(pairs[:, 0]), torch.tensor(pairs[:, 1])
    y = torch.tensor(targets)

    def loss():
        u, v = E[a], E[b]
        return torch.nn.functional.cross_entropy(linear(torch.cat([u, v], 1)), y)

    expected = [float(loss().detach())]
    for _ in range(8):
        optimizer.zero_grad()
        loss().backward()
        optimizer.step()
        expected.append(float(loss().detach()))
    np.testing.assert_allclose(trajectory["loss"], expected, rtol=1e-5)


# ------------------------------------------------------------------ claim 2 helpers


def test_layer_lid_counts_repeated_vectors_once(tmp_path):
    """Layer 0 gives every occurrence of a type the same vector; LID sees each once."""
    from anisotropy.inputs.extraction import TokenEmbeddings

    rng = np.random.default_rng(4)
    n_tokens, n_types = 900, 300
    ids = rng.integers(0, n_types, size=n_tokens)
    static = rng.normal(size=(n_types, 12)).astype(np.float32)
    np.save(tmp_path / "layer_000.npy", static[ids])
    np.save(tmp_path / "layer_001.npy", static[ids] + 0.3 * rng.normal(size=(n_tokens, 12))
            .astype(np.float32))
    tokens = TokenEmbeddings(
        model="fake", layers=(0, 1), path=tmp_path, token_ids=ids,
        sentence_index=np.arange(n_tokens) // 30, position=np.arange(n_tokens) % 30,
        word_index=np.arange(n_tokens) % 30, special_mask=np.zeros(n_tokens, dtype=bool),
        tokens=np.array([f"t{i}" for i in ids]), words=[], meta={})
    table, _, draws = clusters.cluster_layer_stats(tokens, [0, 1], 1, k_sample=300,
                                                   lid_sample=600, lid_k=10, n_boot=50,
                                                   progress=False)
    low, high = np.quantile(draws[0]["LID cosine draws"], [0.025, 0.975])
    assert low <= table.loc[0, "LID cosine"] <= high
    # the LID sample's own stream under the default seed 0
    rows = np.random.default_rng(stream_seed(0, "lid-sample")).choice(n_tokens, size=600,
                                                                     replace=False)
    distinct = np.unique(ids[rows]).size
    assert table["LID points"].tolist() == [distinct, 600]
    expected = metrics.lid_mle(np.unique(static[ids][rows], axis=0), k=10, metric="cosine")
    assert table.loc[0, "LID cosine"] == pytest.approx(expected)


def test_choose_k_finds_blobs_and_refuses_noise():
    centres = RNG.normal(size=(4, 10)) * 20
    X = np.concatenate([c + RNG.normal(size=(150, 10)) for c in centres])
    k, labels, scores = clusters.choose_k(X, sample=600)
    assert k == 4 and np.unique(labels).size == 4
    k, labels, _ = clusters.choose_k(RNG.normal(size=(600, 10)), sample=600)
    assert k == 1 and (labels == 0).all()


def test_per_cluster_centring_removes_shared_direction():
    centres = RNG.normal(size=(3, 20)) * 5 + 10
    types = np.tile(np.arange(30), 30)
    members = np.repeat(np.arange(3), 300)
    X = centres[members] + RNG.normal(size=(900, 20))
    result = cluster_similarities.type_similarities(X, types, members)
    assert result["S_inter raw"] > 0.5
    assert abs(result["S_inter per-cluster"]) < 0.05


def test_cluster_drivers_find_the_separating_coordinate():
    X = RNG.normal(size=(400, 12))
    labels = (np.arange(400) < 200).astype(int)
    X[labels == 1, 7] += 50
    drivers = clusters.cluster_drivers(X, labels)
    assert drivers["top_between_dims"][0] == 7 and drivers["top_between_share"] > 0.95


def test_manifold_indicators_tell_a_roll_from_a_blob():
    shapes = manifolds.reference_shapes(seed=3)
    assert manifolds.is_swiss_roll(shapes.loc["Swiss roll"])
    assert not manifolds.is_swiss_roll(shapes.loc["solid cloud"])
    assert not manifolds.is_swiss_roll(shapes.loc["bent sheet"])
    assert shapes.loc["Swiss roll", "lid"] < manifolds.SWISS_ROLL_MAX_LID
    assert shapes.loc["solid cloud", "lid"] > manifolds.SWISS_ROLL_MAX_LID
    assert shapes.loc["bent sheet", "geodesic_ratio"] < manifolds.SWISS_ROLL_MIN_RATIO


def test_token_kinds():
    kinds = clusters.token_kinds(np.array(["Ġcat", "##ing", ",", "Ġ1990", "▁dog", "<unk>"]))
    assert kinds.tolist() == ["word", "word", "symbol", "symbol", "word", "symbol"]


# ------------------------------------------------------------------ claim 3 helpers


def test_frequency_geometry_detects_rare_words_far_out():
    counts = np.exp(RNG.uniform(0, 8, size=500))
    radius = 10 - np.log(counts)  # rare words far from the origin
    directions = RNG.normal(size=(500, 8))
    X = directions / np.linalg.norm(directions, axis=1, keepdims=True) * radius[:, None]
    summary, bins = frequency.frequency_geometry(X, counts, k=5, edges=(0, 100, 250, 500))
    assert summary["rho norm"] < -0.9 and summary["rho kNN distance"] < -0.5
    assert list(bins.index) == ["[0, 100)", "[100, 250)", "[250, 500)"]
    assert bins["norm"].iloc[0] < bins["norm"].iloc[-1]  # the most frequent are nearest
    with pytest.raises(ValueError, match="positive count"):
        frequency.frequency_geometry(X, np.zeros(500), k=5)
    table = frequency.frequency_table(X, counts, (0, 100, 500))
    assert list(table.columns) == ["mean l2 norm", "mean 3-NN l2 distance",
                                   "mean 5-NN l2 distance", "mean 7-NN l2 distance"]
    assert table["mean l2 norm"].iloc[0] == pytest.approx(
        np.linalg.norm(X[np.argsort(-counts)[:100]], axis=1).mean())
    with pytest.raises(ValueError, match="edges must start at 0"):
        frequency.rank_bins(counts, [5, 10])
    # one neighbour search can serve both: the same numbers from precomputed distances
    near = frequency.neighbour_distances(X, 7)
    assert np.all(np.diff(near, axis=1) >= 0)
    assert frequency.frequency_table(X, counts, (0, 100, 500), distances=near).equals(table)
    again, _ = frequency.frequency_geometry(X, counts, k=5, edges=(0, 100, 250, 500),
                                            distances=near)
    assert again == summary
    with pytest.raises(ValueError, match=r"distances must be \(500, >= 7\)"):
        frequency.frequency_table(X, counts, (0, 100, 500), distances=near[:, :5])


def test_fixed_count_average_uses_exactly_m_occurrences():
    X = np.arange(20, dtype=float)[:, None] * [1.0, 0.0]
    ids = np.repeat([7, 3, 9], [10, 6, 4])
    means, types = frequency.fixed_count_average(X, ids, 5, seed=0)
    assert types.tolist() == [3, 7]  # 9 has only 4 occurrences
    assert means[0, 0] == pytest.approx(X[10:16, 0].mean(), abs=0.5)  # 5 of rows 10..15
    assert means.shape == (2, 2)
    again, _ = frequency.fixed_count_average(X, ids, 5, seed=0)
    assert (again == means).all()
    with pytest.raises(ValueError, match="No type has 11"):
        frequency.fixed_count_average(X, ids, 11)


@pytest.mark.parametrize("metric", ["euclidean", "cosine"])
def test_knn_distances_brute_force(metric):
    X = np.random.default_rng(11).normal(size=(50, 3)) + 0.5
    if metric == "euclidean":
        distances = np.linalg.norm(X[:, None] - X[None], axis=-1)
    else:
        unit = X / np.linalg.norm(X, axis=1, keepdims=True)
        distances = 1.0 - unit @ unit.T
    np.fill_diagonal(distances, np.inf)
    expected = np.sort(distances, axis=1)[:, :4]
    got = metrics.knn_distances(X, 4, metric, chunk_size=7)  # chunks that do not divide n
    np.testing.assert_allclose(got, expected, atol=1e-12)
    if metric == "euclidean":
        np.testing.assert_allclose(frequency.neighbour_distances(X, 4), expected)
    with pytest.raises(ValueError, match="metric"):
        metrics.knn_distances(X, 4, "manhattan")
    with pytest.raises(ValueError, match="k must be"):
        metrics.knn_distances(X, 0)


def test_isotropy_defect_closed_forms():
    assert metrics.isotropy_defect(np.ones(10)) == pytest.approx(0.0, abs=1e-12)
    assert metrics.isotropy_defect(np.eye(10)[0]) == pytest.approx(1.0)
    X = np.random.default_rng(12).normal(size=(200, 6)) * [3, 2, 1, 1, 1, 0.5]
    defect, _ = isotropy_defect_cosine(X)
    assert 0 < defect < 1
    with pytest.raises(ValueError, match="undefined"):
        metrics.isotropy_defect(np.zeros(5))


def test_flow_makes_data_more_isotropic():
    X = RNG.normal(size=(2000, 6)) * [5, 3, 1, 0.5, 0.2, 0.1] + 3
    flow = FlowCalibration(n_steps=150, hidden=32, transforms=2, seed=0).fit(X)
    Z = flow.transform(X)
    assert Z.shape == X.shape and np.isfinite(Z).all()
    assert metrics.isoscore(Z) > metrics.isoscore(X)
    assert flow.losses_[-1] < flow.losses_[0]
    with pytest.raises(RuntimeError, match="not fitted"):
        FlowCalibration().transform(X)


# ------------------------------------------------------------------ results and ledger


def test_small_formatters():
    assert ranges_text([5, 3, 4, 9]) == "3–5, 9"
    assert format_value({"a": 0.123456, "b": True}) == "a: 0.123; b: yes"
    assert format_value(None) == ""


def test_claim1_random_words_follow_the_reference_protocol():
    from anisotropy.report.results import reference

    assert layerwise.RANDOM_WORDS == reference("claim1", "protocol", "random_words")


def test_class_distance_ratio_brute_force_and_scale_behaviour():
    from scipy.spatial.distance import cdist

    from anisotropy.claims.classifier_geometry.classifier import (
        class_distance_ratio,
        scale_behaviour,
    )

    rng = np.random.default_rng(11)
    X = rng.normal(size=(30, 4))
    labels = rng.integers(0, 3, size=30)
    d2 = cdist(X, X, "sqeuclidean")
    same = labels[:, None] == labels[None, :]
    off = ~np.eye(30, dtype=bool)
    brute = d2[same & off].mean() / d2[~same].mean()
    assert class_distance_ratio(X, labels) == pytest.approx(brute, rel=1e-10)
    collapsed = np.eye(4)[labels % 4][:, :4] + 1e-3 * X
    assert class_distance_ratio(collapsed, labels) < 1e-3
    table = scale_behaviour(X, 3.0)
    assert table.loc["IsoScore", "scaled"] == pytest.approx(table.loc["IsoScore", "original"])
    assert table.iloc[1]["scaled"] == pytest.approx(9 * table.iloc[1]["original"])
    with pytest.raises(ValueError, match="one class per point"):
        class_distance_ratio(X, labels[:5])


def test_run_seeds_and_setup_summary():
    from anisotropy.claims.classifier_geometry.classifier import run_seeds, setup_summary

    rng = np.random.default_rng(9)
    X = rng.normal(size=(40, 5)).astype(np.float32)
    task = {"targets": rng.integers(0, 2, size=40), "pairs": None}
    trajectory = run_seeds(X, task, n_updates=6, n_seeds=2, seed=3, metric_every=2,
                           desc="test").trajectory
    assert sorted(trajectory["seed"].unique()) == [0, 1]  # runs, each from its own stream
    first, second = (t.drop(columns="seconds").reset_index(drop=True)
                     for _, t in trajectory.groupby("seed"))
    assert not first.drop(columns="seed").equals(second.drop(columns="seed"))
    summary = setup_summary(trajectory)
    assert summary["Pearson r (worst seed)"] >= summary["Pearson r (mean)"]
    assert 0 <= summary["final accuracy"] <= 1
    with pytest.raises(ValueError, match="n_seeds must be >= 1"):
        run_seeds(X, task, n_updates=2, n_seeds=0)


@pytest.mark.parametrize("paired", [False, True])
def test_a_rank_series_records_every_update_and_leaves_the_runs_unchanged(paired):
    """Each run's RankSeries holds every update on its own sample of points (pairs), its
    last row equals point_metrics of the final embeddings on that sample, and the recorded
    trajectories are bit-identical to runs without it."""
    from anisotropy.claims.classifier_geometry.classifier import (
        RankSeries,
        point_metrics,
        run_seeds,
    )

    rng = np.random.default_rng(6)
    X = rng.normal(size=(60, 6)).astype(np.float32)
    pairs = np.c_[np.arange(60), rng.permutation(60)] if paired else None
    task = {"targets": rng.integers(0, 3, size=60), "pairs": pairs}
    plain = run_seeds(X, task, n_updates=9, n_seeds=2, seed=3, metric_every=4, desc="test")
    ranked = run_seeds(X, task, n_updates=9, n_seeds=2, seed=3, metric_every=4, desc="test",
                       rank_sample=25)
    assert plain.ranks is None
    columns = [c for c in plain.trajectory if c != "seconds"]
    pd.testing.assert_frame_equal(plain.trajectory[columns], ranked.trajectory[columns])
    assert ranked.ranks.groupby("seed")["update"].apply(list).tolist() == [list(range(10))] * 2
    samples = [RankSeries.sampled(task, 60, 25, stream_seed(3, f"run/{run}")) for run in (0, 1)]
    assert not np.array_equal(samples[0].rows, samples[1].rows)  # a sample per run
    assert samples[0].rows.size == 25 and (samples[0].chosen is not None) == paired
    last = ranked.ranks[(ranked.ranks["seed"] == 0) & (ranked.ranks["update"] == 9)].iloc[0]
    expected = point_metrics(ranked.finals[0], task["targets"], task["targets"], pairs,
                             samples[0].rows, samples[0].chosen, extra=False)
    assert last["isoscore"] == pytest.approx(expected["isoscore"], rel=1e-6)
    assert last["silhouette"] == pytest.approx(expected["silhouette"], rel=1e-6)
    every = RankSeries.sampled(task, 60, None, 1)
    assert every.rows.tolist() == list(range(60))
    with pytest.raises(ValueError, match="at least 4 points"):
        RankSeries.sampled(task, 60, 2, 1)


@pytest.mark.parametrize("paired", [False, True])
def test_item_half_samples_carry_the_items_into_the_change_intervals(paired):
    """Half-sample draws measure both ends on the same items (no change, no spread), and
    check_values widens the seed interval by their spread, around the same estimate."""
    from anisotropy.claims.classifier_geometry.classifier import (
        check_values,
        item_change_draws,
        run_seeds,
    )

    rng = np.random.default_rng(4)
    X = rng.normal(size=(120, 6)).astype(np.float32)
    pairs = (np.concatenate([np.c_[np.arange(120), rng.permutation(120)],
                             rng.integers(0, 120, size=(30, 2))]) if paired else None)
    task = {"targets": rng.integers(0, 3, size=150 if paired else 120), "pairs": pairs}
    same = item_change_draws(X, X, task, n_draws=25, seed=1)
    assert np.allclose(same.to_numpy(), 0) and set(same) == {"isoscore", "silhouette"}
    runs = run_seeds(X, task, n_updates=30, n_seeds=2, seed=3, metric_every=10, desc="test")
    trajectory, finals = runs.trajectory, runs.finals
    assert len(finals) == 2 and finals[0].shape == X.shape
    draws = item_change_draws(X, finals[0], task, n_draws=30, seed=1)
    assert (draws.std() > 0).all()
    plain = check_values(trajectory)
    widened = check_values(trajectory, draws)
    for check in ("isoscore-falls", "silhouette-rises"):
        assert widened[check].value == plain[check].value
        low, high = widened[check].interval.low, widened[check].interval.high
        assert low <= plain[check].interval.low and high >= plain[check].interval.high
        assert "half-samples of the items" in widened[check].interval.method


def test_dirichlet_weights_are_a_bayesian_bootstrap():
    """Rows sum to n, every weight is positive, and the weighted mean's spread is the
    ordinary bootstrap's times sqrt(n / (n + 1)) (Rubin 1981)."""
    from anisotropy.geometry.intervals import dirichlet_weights

    values = RNG.normal(size=40)
    w = dirichlet_weights(40, 4000, 3)
    assert (w > 0).all() and np.allclose(w.sum(axis=1), 40)
    means = w @ values / 40
    expected = values.std() / np.sqrt(41)
    assert means.std() == pytest.approx(expected, rel=0.06)
    assert np.array_equal(w, dirichlet_weights(40, 4000, 3))
    with pytest.raises(ValueError, match="at least 2"):
        dirichlet_weights(1, 100, 0)


def test_weighted_mean_draws_matches_a_loop_and_skips_non_finite_entries():
    """Each draw and column is sum_i w_bi v_ij / sum_i w_bi over the finite v_ij (a loop
    with np.average); all-ones weights give the plain nanmean; a 1-D input gives one
    column; weights of the wrong width are refused."""
    from anisotropy.geometry.intervals import dirichlet_weights, weighted_mean_draws

    values = RNG.normal(size=(30, 4))
    values[[2, 7], 1] = np.nan
    values[5, 3] = np.inf
    w = dirichlet_weights(30, 50, 1)
    got = weighted_mean_draws(values, w)
    assert got.shape == (50, 4)
    for b in range(50):
        for j in range(4):
            keep = np.isfinite(values[:, j])
            assert got[b, j] == pytest.approx(np.average(values[keep, j], weights=w[b, keep]))
    ones = weighted_mean_draws(values, np.ones((1, 30)))[0]
    finite = np.where(np.isfinite(values), values, np.nan)
    assert np.allclose(ones, np.nanmean(finite, axis=0))
    assert np.allclose(weighted_mean_draws(values[:, 0], w), got[:, 0])
    with pytest.raises(ValueError, match=r"\(n_boot, 30\)"):
        weighted_mean_draws(values, w[:, :29])
    empty = values.copy()
    empty[:, 2] = np.nan  # a column with no finite entry is NaN, without a warning
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(weighted_mean_draws(empty, w)[:, 2]).all()


def test_the_classifiers_foreach_adam_is_bit_identical_to_the_per_tensor_loop(monkeypatch):
    """The classifier uses Adam(foreach=True) for speed: it must train exactly what
    PyTorch's CPU default (the per-tensor loop) trains, or the recorded seed spreads would
    no longer describe the book's runs. (The flows step with BERT's optimiser,
    :func:`anisotropy.claims.frequency.calibration.adam_weight_decay_step`, tested in
    ``test_claim3.py``; their gradient clipping's foreach path is checked the same way.)"""
    import torch

    from anisotropy.claims.classifier_geometry.classifier import optimize_embeddings
    from anisotropy.claims.frequency.calibration import FlowCalibration

    rng = np.random.default_rng(0)
    X = rng.standard_normal((120, 6))
    targets = rng.integers(0, 2, 120)

    def trained():
        flow = FlowCalibration(n_steps=15, hidden=16, transforms=2, batch_size=32).fit(X)
        _, final = optimize_embeddings(X, targets, n_updates=15, metric_every=15,
                                       progress=False, return_final=True)
        return flow.transform(X), final

    fast = trained()
    adam = torch.optim.Adam
    clip = torch.nn.utils.clip_grad_norm_
    monkeypatch.setattr(torch.optim, "Adam",
                        lambda *a, **kw: adam(*a, **{**kw, "foreach": False}))
    monkeypatch.setattr(torch.nn.utils, "clip_grad_norm_",
                        lambda *a, **kw: clip(*a, **{**kw, "foreach": False}))
    for a, b in zip(fast, trained(), strict=True):
        np.testing.assert_array_equal(a, b)
