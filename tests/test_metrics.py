"""Metrics against reference packages, closed forms, and shared property tests."""

from __future__ import annotations

import numpy as np
import pytest
import sklearn.metrics
from scipy.stats import ortho_group

from anisotropy.geometry import metrics

RNG = np.random.default_rng(0)


def blobs(n_per=60, dim=8, k=3, spread=0.05, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(k, dim)) * 10
    X = np.concatenate([c + spread * rng.normal(size=(n_per, dim)) for c in centres])
    return X, np.repeat(np.arange(k), n_per)


def words_data(seed=0, n_words=6, per=12, dim=10):
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(n_words, dim)) + 2.0
    X = np.concatenate([c + 0.4 * rng.normal(size=(per, dim)) for c in centres])
    ids = np.repeat(np.arange(n_words), per)
    sentences = np.tile(np.arange(per), n_words)
    return X, ids, sentences


# One registry of metrics: how to call each, and which invariances hold.
# (name, call(X, labels) -> float, rotation-invariant, scale-invariant)
def _mean(series):
    return float(series.mean())


METRICS = [
    ("cosine_baseline", lambda X, y: metrics.cosine_baseline(X, y, n_pairs=500), True, True),
    ("self_similarity", lambda X, y: _mean(metrics.self_similarity(X, y)), True, True),
    ("intra_sentence_similarity",
     lambda X, y: _mean(metrics.intra_sentence_similarity(X, y)), True, True),
    ("max_explainable_variance",
     lambda X, y: _mean(metrics.max_explainable_variance(X, y)), True, True),
    ("inter_type_similarity", lambda X, y: metrics.inter_type_similarity(X, y), True, True),
    ("intra_type_similarity", lambda X, y: metrics.intra_type_similarity(X, y), True, True),
    ("isoscore", lambda X, y: metrics.isoscore(X), True, True),
    # I(W) depends on norms (exp of projections), so it is rotation- but not scale-invariant.
    ("partition_isotropy", lambda X, y: metrics.partition_isotropy(X).log10, True, False),
    ("silhouette", lambda X, y: metrics.silhouette(X, y), True, True),
    ("lid_mle", lambda X, y: metrics.lid_mle(X, k=10), True, True),
]
IDS = [m[0] for m in METRICS]


@pytest.mark.parametrize("name,call,rotation,scale", METRICS, ids=IDS)
def test_rotation_invariance(name, call, rotation, scale):
    X, ids, _ = words_data()
    Q = ortho_group.rvs(X.shape[1], random_state=1)
    if rotation:
        assert call(X @ Q, ids) == pytest.approx(call(X, ids), rel=1e-6, abs=1e-6)
    else:
        assert call(X @ Q, ids) != pytest.approx(call(X, ids), rel=1e-3)


@pytest.mark.parametrize("name,call,rotation,scale", METRICS, ids=IDS)
def test_scale_invariance(name, call, rotation, scale):
    X, ids, _ = words_data()
    if scale:
        assert call(3.7 * X, ids) == pytest.approx(call(X, ids), rel=1e-6, abs=1e-6)
    else:
        assert call(3.7 * X, ids) != pytest.approx(call(X, ids), rel=1e-3)


# Metrics that take no labels (the lambda ignores them) cannot depend on their names.
LABEL_FREE = {"isoscore", "partition_isotropy", "lid_mle"}
LABELLED = [m for m in METRICS if m[0] not in LABEL_FREE]


@pytest.mark.parametrize("name,call,rotation,scale", LABELLED, ids=[m[0] for m in LABELLED])
def test_label_permutation_invariance(name, call, rotation, scale):
    X, ids, _ = words_data()
    renamed = np.array([10, 3, 7, 1, 5, 4])[ids]  # a bijection of label values
    assert call(X, renamed) == pytest.approx(call(X, ids), rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("name,call,rotation,scale", METRICS, ids=IDS)
def test_nan_rejected(name, call, rotation, scale):
    X, ids, _ = words_data()
    X[3, 2] = np.nan
    with pytest.raises(ValueError, match="NaN or infinite"):
        call(X, ids)
    X[3, 2] = np.inf
    with pytest.raises(ValueError, match="NaN or infinite"):
        call(X, ids)


@pytest.mark.parametrize("name,call,rotation,scale", METRICS, ids=IDS)
def test_too_few_points_rejected(name, call, rotation, scale):
    with pytest.raises(ValueError, match="at least|need"):
        call(np.ones((1, 4)), np.zeros(1, dtype=int))


@pytest.mark.parametrize("name,call,rotation,scale", METRICS, ids=IDS)
def test_not_2d_rejected(name, call, rotation, scale):
    with pytest.raises(ValueError, match="2-D"):
        call(np.ones(12), np.zeros(12, dtype=int))


@pytest.mark.parametrize("name", ["silhouette", "inter_type_similarity"])
def test_single_label_rejected(name):
    X, _, _ = words_data()
    call = dict((m[0], m[1]) for m in METRICS)[name]
    with pytest.raises(ValueError, match="distinct value"):
        call(X, np.zeros(X.shape[0], dtype=int))


# --------------------------------------------------------------------------- references


@pytest.mark.parametrize("shape", [(500, 20), (30, 50), (2000, 64)])
def test_isoscore_matches_package(shape):
    from IsoScore.IsoScore import IsoScore as reference

    X = RNG.normal(size=shape) @ RNG.normal(size=(shape[1], shape[1]))
    assert metrics.isoscore(X) == pytest.approx(float(reference(X)), abs=1e-6)


def test_isoscore_closed_forms():
    assert metrics.isoscore(RNG.normal(size=(20000, 10))) > 0.98
    direction = RNG.normal(size=(1, 16))
    rank_one = RNG.normal(size=(300, 1)) @ direction
    assert metrics.isoscore(rank_one) == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("n, d", [(12, 40), (60, 200), (150, 384)])
def test_isoscore_of_fewer_points_than_dimensions_is_capped_by_their_rank(n, d):
    """k equal non-zero principal variances out of d score (k - 1)/(d - 1); n points span at
    most n - 1 directions, so IsoScore <= (n - 2)/(d - 1), reached by a regular simplex
    (claim 5's appendix states this cap for its small setups)."""
    X = RNG.normal(size=(n, d))
    assert metrics.isoscore(X) <= (n - 2) / (d - 1) + 1e-9
    simplex = np.linalg.qr(RNG.normal(size=(d, n)))[0].T  # n orthonormal rows
    assert metrics.isoscore(simplex) == pytest.approx((n - 2) / (d - 1), rel=1e-6)


def test_partition_isotropy_closed_forms():
    # Symmetric isotropic cloud: Z(c) equal for every direction, I near 1.
    gauss = RNG.normal(size=(20000, 5))
    result = metrics.partition_isotropy(gauss)
    assert result.value > 0.9
    assert result.value == pytest.approx(10**result.log10)
    # A common offset makes Z(mean direction) explode: I collapses, log10 stays finite.
    far = gauss + 400.0
    far_result = metrics.partition_isotropy(far)
    assert far_result.log10 < -100 and np.isfinite(far_result.log10)
    assert far_result.value == 0.0


def test_partition_isotropy_matches_direct_formula():
    X = RNG.normal(size=(200, 6)) * 0.3 + 0.1
    _, vectors = np.linalg.eigh(X.T @ X)
    z = np.concatenate([np.exp(X @ vectors).sum(0), np.exp(-X @ vectors).sum(0)])
    assert metrics.partition_isotropy(X).value == pytest.approx(z.min() / z.max(), rel=1e-10)
    # the row blocks of the log-sum-exp only change the summation order
    for chunk_size in (1, 7, 199, 5000):
        assert metrics.partition_isotropy(X, chunk_size=chunk_size).value == pytest.approx(
            z.min() / z.max(), rel=1e-10)
    with pytest.raises(ValueError, match="chunk_size"):
        metrics.partition_isotropy(X, chunk_size=0)


@pytest.mark.parametrize("n,dim,k", [(300, 16, 2), (1000, 384, 2), (700, 32, 5)])
def test_silhouette_matches_sklearn(n, dim, k):
    X = RNG.normal(size=(n, dim)).astype(np.float32)
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    labels = RNG.integers(0, k, size=n)
    X[labels == 1] += 0.05
    expected = sklearn.metrics.silhouette_score(X.astype(np.float64), labels)
    assert metrics.silhouette(X, labels, chunk_size=128) == pytest.approx(expected, abs=1e-6)


def test_silhouette_singletons_and_blobs():
    X, labels = blobs()
    assert metrics.silhouette(X, labels) > 0.95
    X = RNG.normal(size=(40, 3))
    labels = np.arange(40) % 5
    labels[0] = 99  # singleton cluster scores 0, as in scikit-learn
    assert metrics.silhouette(X, labels) == pytest.approx(
        sklearn.metrics.silhouette_score(X, labels), abs=1e-6)


def test_silhouette_isotropic_gaussian_near_zero():
    X = RNG.normal(size=(2000, 10))
    assert abs(metrics.silhouette(X, RNG.integers(0, 2, 2000))) < 0.02


@pytest.mark.parametrize("metric", ["euclidean", "cosine"])
def test_lid_matches_skdim(metric):
    import skdim

    rng = np.random.default_rng(3)
    latent = rng.normal(size=(600, 4))
    X = np.tanh(latent @ rng.normal(size=(4, 12)))
    k = 20
    ours, pointwise = metrics.lid_mle(X, k=k, metric=metric, return_pointwise=True)
    if metric == "euclidean":
        reference = skdim.id.MLE().fit(X, n_neighbors=k, comb="mean")
    else:
        distances = metrics.knn_distances(X, k, "cosine")
        reference = skdim.id.MLE().fit(X, precomputed_knn_arrays=(distances, None), comb="mean")
    np.testing.assert_allclose(pointwise, reference.dimension_pw_, rtol=1e-6)
    assert ours == pytest.approx(reference.dimension_, rel=1e-6)
    # a 4-dimensional manifold; 1 - cos ~ theta^2 / 2 acts as a squared distance, which
    # halves the MLE estimate
    low, high = (3, 6) if metric == "euclidean" else (1.5, 3)
    assert low < ours < high


@pytest.mark.parametrize("metric", ["euclidean", "cosine"])
def test_lid_with_duplicates_does_not_depend_on_rounding(metric):
    # Layer 0 repeats vectors exactly; rotating the cloud changes only the rounding of the
    # zero distances, which must not move the estimate (it did, by ~0.5%, before they
    # were snapped to zero).
    base = np.random.default_rng(0).normal(size=(150, 20))
    X = np.concatenate([base, base[:60]])
    expected = metrics.lid_mle(X, k=10, metric=metric)
    for seed in range(4):
        rotated = X @ ortho_group.rvs(20, random_state=seed)
        assert metrics.lid_mle(rotated, k=10, metric=metric) == pytest.approx(expected, rel=1e-9)
    _, pointwise = metrics.lid_mle(X, k=10, metric=metric, return_pointwise=True)
    assert (pointwise[:60] == 0).all() and (pointwise[150:] == 0).all()


def test_lid_needs_more_points_than_k():
    with pytest.raises(ValueError, match="at least 101"):
        metrics.lid_mle(RNG.normal(size=(50, 4)), k=100)


def test_self_similarity_closed_form():
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [5.0, 5.0]])
    ids = np.array([0, 0, 1, 1])
    result = metrics.self_similarity(X, ids)
    assert result[0] == pytest.approx(0.0)
    assert result[1] == pytest.approx(1.0)
    # brute force on random data
    X, ids, _ = words_data()
    unit = X / np.linalg.norm(X, axis=1, keepdims=True)
    rows = unit[ids == 2]
    cos = rows @ rows.T
    brute = (cos.sum() - np.trace(cos)) / (len(rows) ** 2 - len(rows))
    assert metrics.self_similarity(X, ids)[2] == pytest.approx(brute)


def test_self_similarity_normalises_only_the_rows_it_uses():
    """The words' values are exactly (bit for bit) those of normalising every row first and
    taking each word's rows, as the function did before it normalised only the rows used:
    the same capped draw, the same per-row arithmetic."""
    from anisotropy.geometry.validation import grouped_rows, unit_rows

    rng = np.random.default_rng(5)
    X = rng.normal(size=(3000, 48)) * rng.uniform(0.1, 30, size=(3000, 1)) + 2.0
    ids = rng.zipf(1.6, size=3000) % 400  # many words seen once, a few seen hundreds of times
    X[7] = 0.0  # a zero row stays zero
    for cap in (None, 5, 50):
        unit, draw = unit_rows(X), np.random.default_rng(3)
        expected = {}
        for word, rows in grouped_rows(ids):
            if rows.size < 2:
                continue
            if cap is not None and rows.size > cap:
                rows = draw.choice(rows, size=cap, replace=False)
            expected[word] = metrics.mean_offdiagonal_cosine(unit[rows])
        result = metrics.self_similarity(X, ids, max_occurrences=cap, seed=3)
        assert list(result.index) == list(expected)
        assert (result.to_numpy() == np.array(list(expected.values()))).all()


def test_self_similarity_across_contexts_brute_force():
    """With context ids, pairs within one sentence are left out (Ethayarajh's "different
    sentences"); a word seen in one sentence only has no such pair and is dropped."""
    rng = np.random.default_rng(21)
    X = rng.normal(size=(40, 5))
    ids = rng.integers(0, 4, size=40)
    contexts = rng.integers(0, 12, size=40)
    ids[-2:], contexts[-2:] = 9, 99  # word 9: two occurrences in one sentence
    result = metrics.self_similarity(X, ids, context_ids=contexts)
    unit = X / np.linalg.norm(X, axis=1, keepdims=True)
    for word in range(4):
        rows = np.flatnonzero(ids == word)
        pairs = [(a, b) for a in rows for b in rows if contexts[a] != contexts[b]]
        brute = np.mean([unit[a] @ unit[b] for a, b in pairs])
        assert result[word] == pytest.approx(brute, abs=1e-12)
    assert 9 not in result.index
    # without repeats inside a sentence both forms agree
    distinct = np.arange(40)
    np.testing.assert_allclose(metrics.self_similarity(X, ids, context_ids=distinct),
                               metrics.self_similarity(X, ids).reindex(
                                   metrics.self_similarity(X, ids, context_ids=distinct).index))
    with pytest.raises(ValueError, match="cannot be combined"):
        metrics.self_similarity(X, ids, max_occurrences=3, context_ids=contexts)
    with pytest.raises(ValueError, match="context_ids must be 1-D"):
        metrics.self_similarity(X, ids, context_ids=contexts[:5])


def test_random_pairs_draw_sentences_uniformly_then_one_word():
    """Ethayarajh's baseline samples sentences uniformly, then a word in each: a sentence of
    one word is drawn as often as one of 99 words."""
    groups = np.r_[np.zeros(99, dtype=int), 1, 2]
    first, second = metrics.random_pairs(groups.size, groups, n_pairs=30000, seed=4)
    assert (groups[first] != groups[second]).all()
    shares = np.bincount(groups[np.r_[first, second]], minlength=3) / (2 * 30000)
    np.testing.assert_allclose(shares, 1 / 3, atol=0.01)
    within = first[groups[first] == 0]
    assert np.unique(within).size == 99  # every word of the long sentence is reachable
    again = metrics.random_pairs(groups.size, groups, n_pairs=30000, seed=4)
    assert (again[0] == first).all() and (again[1] == second).all()


def test_intra_sentence_similarity_brute_force():
    X, _, sentences = words_data()
    series = metrics.intra_sentence_similarity(X, sentences)
    rows = X[sentences == 4]
    mean = rows.mean(0)
    expected = np.mean(rows @ mean / np.linalg.norm(rows, axis=1) / np.linalg.norm(mean))
    assert series[4] == pytest.approx(expected)


@pytest.mark.parametrize("n, dim", [(40, 12), (8, 50), (30, 30), (300, 260), (260, 300)])
def test_mev_centred_matches_pca_and_uncentred_matches_truncated_svd(n, dim):
    """Both Gram-matrix branches (fewer occurrences than dimensions, and more)."""
    from sklearn.decomposition import PCA, TruncatedSVD

    rng = np.random.default_rng(5)
    X = rng.normal(size=(n, dim)) * np.linspace(3, 0.3, dim) + 2.0
    ids = np.zeros(n, dtype=int)
    centred = metrics.max_explainable_variance(X, ids)[0]
    assert centred == pytest.approx(PCA(n_components=1).fit(X).explained_variance_ratio_[0],
                                    rel=1e-9)
    uncentred = metrics.max_explainable_variance(X, ids, center=False)[0]
    svd = TruncatedSVD(n_components=1, algorithm="arpack").fit(X)
    assert uncentred == pytest.approx(svd.explained_variance_ratio_[0], rel=1e-6)


def test_mev_closed_forms():
    # occurrences spread along one direction around an offset: centred MEV = 1
    t = np.linspace(-1, 1, 20)[:, None]
    X = np.array([[10.0, 0.0, 0.0]]) + t * np.array([[0.0, 1.0, 0.0]])
    assert metrics.max_explainable_variance(X, np.zeros(20))[0] == pytest.approx(1.0)
    # identical occurrences (a static embedding) have no variance: NaN, not a number
    same = np.tile([[1.0, 2.0, 3.0]], (5, 1))
    assert np.isnan(metrics.max_explainable_variance(same, np.zeros(5))[0])
    # isotropic noise: the first PC carries about 1/dim
    noise = RNG.normal(size=(5000, 10))
    assert metrics.max_explainable_variance(noise, np.zeros(5000))[0] < 0.15
    # MEV of n centred points is at least 1/(n-1)
    five = RNG.normal(size=(5, 50))
    assert metrics.max_explainable_variance(five, np.zeros(5))[0] >= 0.25


def test_mev_baseline_one_point_per_group():
    X = np.concatenate([np.tile([[1.0, 0.0]], (50, 1)), RNG.normal(size=(50, 2))])
    groups = np.concatenate([np.zeros(50), np.arange(1, 51)])
    value = metrics.mev_baseline(X, n_points=1000, groups=groups)
    assert 0 < value < 1


def test_cosine_baseline_groups_never_pair_within_group():
    # Two groups pointing in orthogonal directions: cross-group cosine is exactly 0.
    X = np.array([[1.0, 0.0]] * 10 + [[0.0, 1.0]] * 10)
    groups = np.repeat([0, 1], 10)
    assert metrics.cosine_baseline(X, groups, n_pairs=200) == pytest.approx(0.0)
    # Without groups some pairs fall within a group.
    assert metrics.cosine_baseline(X, None, n_pairs=2000) > 0.3


def test_inter_intra_type_similarity():
    X, ids, _ = words_data()
    assert metrics.intra_type_similarity(X, ids) > metrics.inter_type_similarity(X, ids)
    # centring per type removes shared offset: inter-type similarity drops
    assert metrics.inter_type_similarity(X - X.mean(0), ids) < metrics.inter_type_similarity(
        X, ids)


def test_inter_type_similarity_instances_per_type():
    """min_units = 1 is Cai et al.'s one instance per type; more instances per type give
    the mean over pairs of types of the mean cosine between their instances (brute force),
    whose expectation the one-instance estimate shares (its mean over seeds)."""
    X, ids, _ = words_data(n_words=3, per=9)
    one = metrics.inter_type_rows(ids, seed=3)
    assert np.unique(ids[one]).size == 3 and one.size == 3
    assert metrics.inter_type_similarity(X, ids, seed=3) == pytest.approx(
        metrics.mean_offdiagonal_cosine(metrics.inter_type_units(X, ids, seed=3)))
    rows = metrics.inter_type_rows(ids, seed=3, min_units=12)          # 4 of each type
    assert np.bincount(ids[rows]).tolist() == [4, 4, 4] and np.unique(rows).size == 12
    every = metrics.inter_type_rows(ids, seed=3, min_units=10_000)     # all 9 of each
    assert sorted(every) == list(range(ids.size))
    unit = X / np.linalg.norm(X, axis=1, keepdims=True)
    cos = unit @ unit.T
    pairs = [cos[np.ix_(ids == t, ids == u)].mean() for t in range(3) for u in range(3)
             if t != u]
    full = metrics.inter_type_similarity(X, ids, min_units=10_000)
    assert full == pytest.approx(np.mean(pairs), abs=1e-12)
    singles = [metrics.inter_type_similarity(X, ids, seed=s) for s in range(400)]
    assert np.mean(singles) == pytest.approx(full, abs=4 * np.std(singles) / 20)
    with pytest.raises(ValueError, match="min_units"):
        metrics.inter_type_rows(ids, min_units=0)


def test_uncentred_share_draws_match_truncated_svd_on_resamples():
    """Each draw is TruncatedSVD's first explained-variance ratio of the resampled rows."""
    from sklearn.decomposition import TruncatedSVD

    rng = np.random.default_rng(8)
    M = rng.normal(size=(60, 7)) * [4, 2, 1, 1, 0.5, 0.5, 0.2] + 1.5
    counts = np.vstack([np.ones(60), rng.multinomial(60, np.full(60, 1 / 60), size=3)])
    draws = metrics.uncentred_share_draws(M, counts, n_iter=200)
    for b, c in enumerate(counts):
        resample = np.repeat(M, c.astype(int), axis=0)
        svd = TruncatedSVD(n_components=2, algorithm="arpack").fit(resample)
        assert draws[b] == pytest.approx(svd.explained_variance_ratio_[0], rel=1e-6)
    rows = metrics.mev_baseline_rows(60, 20, seed=1)
    assert metrics.mev_baseline(M, 20, center=False, seed=1) == pytest.approx(
        metrics.uncentred_share_draws(M[rows], np.ones((1, 20)))[0], rel=1e-9)
    with pytest.raises(ValueError, match="counts must be"):
        metrics.uncentred_share_draws(M, np.ones((2, 5)))


def test_uncentred_share_draws_stop_early_only_once_converged():
    """The early stop (every draw's vector still to 1e-12) gives the shares of running all
    the iterations to about 1e-12."""
    from anisotropy.geometry import similarity

    rng = np.random.default_rng(9)
    M = rng.normal(size=(300, 40)) * np.r_[30.0, np.ones(39)] + 2.0  # one dominant axis
    counts = np.vstack([np.ones(300), rng.multinomial(300, np.full(300, 1 / 300), size=50)])
    early = similarity.uncentred_share_draws(M, counts, n_iter=400)
    tolerance, similarity._POWER_TOLERANCE = similarity._POWER_TOLERANCE, -1.0
    try:
        full = similarity.uncentred_share_draws(M, counts, n_iter=400)
    finally:
        similarity._POWER_TOLERANCE = tolerance
    np.testing.assert_allclose(early, full, rtol=1e-11, atol=0)


def test_knn_among_a_pool_searches_every_point():
    """Queries that are the whole pool give knn_distances; a subset's neighbours come from
    the whole pool (brute force), not from the subset."""
    from anisotropy.geometry.dimension import knn_distances_among

    rng = np.random.default_rng(11)
    pool = rng.normal(size=(300, 7)) * 3 + 1
    full = knn_distances_among(pool, np.arange(300), 4)
    assert np.allclose(full, metrics.knn_distances(pool, 4), rtol=1e-5)
    rows = rng.choice(300, size=40, replace=False)
    distance = np.linalg.norm(pool[rows, None, :] - pool[None, :, :], axis=2)
    distance[np.arange(40), rows] = np.inf
    brute = np.sort(distance, axis=1)[:, :4]
    got = knn_distances_among(pool, rows, 4, memory=1000)  # several blocks of queries
    assert np.allclose(got, brute, rtol=1e-5)
    assert (got <= metrics.knn_distances(pool[rows], 4) * (1 + 1e-5)).all()
    with pytest.raises(ValueError, match="index the pool"):
        knn_distances_among(pool, np.array([300]), 4)


@pytest.mark.parametrize("case", ["gaussian", "duplicates", "ties", "small pool"])
def test_knn_among_candidates_equal_every_pair_bit_for_bit(case):
    """The float32 candidates and the float64 distances of those only give exactly the k
    smallest float64 distances over every pair, including where the candidates cannot be
    trusted (ties at the k-th neighbour: the row is then computed whole)."""
    from anisotropy.geometry import dimension

    rng = np.random.default_rng(12)
    pool = rng.normal(size=(3000, 24)) * rng.uniform(0.5, 4, size=24) + 2
    if case == "duplicates":
        pool[39:100] = pool[7]  # 62 copies of one point: more zeros than k + candidates
    if case == "ties":
        pool = np.eye(500) * 3.0  # every distance between two points is equal
    if case == "small pool":
        pool = pool[:40]
    rows = np.r_[7, 39, rng.choice(pool.shape[0], size=30, replace=False)]
    got = dimension.knn_distances_among(pool, rows, 10, memory=20000)
    Y, sq32 = dimension._centred_float32(pool, 20000)
    chunk = max(1, int(20000 // pool.shape[0]))
    expected = np.concatenate([
        dimension._exact_rows(Y[rows[i:i + chunk]] @ Y.T, rows[i:i + chunk],
                              sq32.astype(np.float64), 10)
        for i in range(0, rows.size, chunk)])
    assert (got == expected).all()
    if case == "duplicates":
        assert (got[:2] == 0).all()


def test_knn_among_search_in_parts_of_a_block_is_bit_for_bit_the_whole_block(monkeypatch):
    """The candidates' search of a block of queries in parts of its rows (to bound its
    temporaries) gives the same distances, bit for bit, as the search of the whole block at
    once, including a last part shorter than the others and a block of one row."""
    from anisotropy.geometry import dimension

    rng = np.random.default_rng(13)
    pool = rng.normal(size=(2000, 16)) * rng.uniform(0.5, 3, size=16)
    pool[50] = pool[3]
    rows = np.r_[3, 50, rng.choice(2000, size=77, replace=False)]
    parts = dimension.knn_distances_among(pool, rows, 6, memory=2000 * 21)
    monkeypatch.setattr(dimension, "_SEARCH_PARTS", 1)
    whole = dimension.knn_distances_among(pool, rows, 6, memory=2000 * 21)
    assert (parts == whole).all()
    monkeypatch.setattr(dimension, "_SEARCH_PARTS", 100)  # parts of one row
    assert (dimension.knn_distances_among(pool, rows, 6, memory=2000 * 21) == whole).all()
