"""Transforms against closed forms and scikit-learn."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.decomposition import PCA

from anisotropy.geometry import metrics
from anisotropy.geometry.transforms import AllButTheTop, Center, ClusterIsotropy, Whitening

RNG = np.random.default_rng(0)


def anisotropic(n=800, dim=12, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, dim)) * np.linspace(5, 0.5, dim) + 3.0


def test_center():
    X = anisotropic()
    out = Center().fit_transform(X)
    np.testing.assert_allclose(out.mean(0), 0, atol=1e-10)


def test_all_but_the_top_matches_pca_residual():
    X = anisotropic()
    out = AllButTheTop(3).fit_transform(X)
    pca = PCA(n_components=3).fit(X)
    expected = (X - pca.mean_) - (X - pca.mean_) @ pca.components_.T @ pca.components_
    np.testing.assert_allclose(out, expected, atol=1e-8)
    # the removed directions carry no variance afterwards
    assert np.abs(out @ pca.components_.T).max() < 1e-8


def test_all_but_the_top_centres_before_projecting():
    # The uncentred gist keeps the mean; ours has zero mean.
    X = anisotropic()
    assert np.abs(AllButTheTop(2).fit_transform(X).mean(0)).max() < 1e-10


def test_whitening_gives_identity_covariance():
    X = anisotropic()
    out = Whitening().fit_transform(X)
    np.testing.assert_allclose(np.cov(out, rowvar=False), np.eye(12), atol=1e-6)
    assert metrics.isoscore(out) == pytest.approx(1.0, abs=1e-6)
    reduced = Whitening(n_components=4).fit_transform(X)
    assert reduced.shape == (800, 4)


def test_whitening_fit_elsewhere():
    X, Y = anisotropic(seed=1), anisotropic(seed=2)
    out = Whitening().fit(X).transform(Y)
    assert np.abs(out.mean(0)).max() < 0.2  # same distribution, close to centred


def test_cluster_isotropy_raises_isotropy():
    centres = RNG.normal(size=(4, 10)) * 20
    X = np.concatenate([c + RNG.normal(size=(200, 10)) * np.linspace(4, 0.2, 10)
                        for c in centres])
    before = metrics.partition_isotropy(X).log10
    out = ClusterIsotropy(4, 2, seed=0).fit_transform(X)
    assert metrics.partition_isotropy(out).log10 > before + 10
    gmm = ClusterIsotropy(4, 2, method="gmm", seed=0).fit_transform(X)
    assert metrics.isoscore(gmm) > metrics.isoscore(X)


def test_cluster_isotropy_k1_d0_equals_center():
    X = anisotropic()
    np.testing.assert_allclose(ClusterIsotropy(1, 0).fit_transform(X),
                               Center().fit_transform(X), atol=1e-10)
    np.testing.assert_allclose(ClusterIsotropy(1, 3).fit_transform(X),
                               AllButTheTop(3).fit_transform(X), atol=1e-8)


def test_cluster_isotropy_is_seeded():
    X = anisotropic()
    a = ClusterIsotropy(5, 2, seed=3).fit_transform(X)
    b = ClusterIsotropy(5, 2, seed=3).fit_transform(X)
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("transform", [Center(), AllButTheTop(2), Whitening(),
                                       ClusterIsotropy(3, 1)])
def test_bad_inputs(transform):
    with pytest.raises(RuntimeError, match="not fitted"):
        type(transform)(**{k: v for k, v in vars(transform).items()}).transform(np.ones((3, 4)))
    X = anisotropic()
    transform.fit(X)
    with pytest.raises(ValueError, match="fitted on 12 dimensions"):
        transform.transform(np.ones((3, 5)))
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        transform.transform(bad)


def test_bad_parameters():
    with pytest.raises(ValueError, match="n_components"):
        AllButTheTop(-1)
    with pytest.raises(ValueError, match="method"):
        ClusterIsotropy(3, 1, method="spectral")
    with pytest.raises(ValueError, match="exceeds"):
        AllButTheTop(20).fit(anisotropic())


def test_with_components_equals_refitting():
    X = anisotropic()
    full = ClusterIsotropy(4, 5, seed=1).fit(X)
    reduced = full.with_components(2)
    refit = ClusterIsotropy(4, 2, seed=1).fit(X)
    np.testing.assert_allclose(np.abs(reduced.transform(X)), np.abs(refit.transform(X)),
                               atol=1e-8)
    with pytest.raises(ValueError, match="Can only reduce"):
        full.with_components(6)


def test_whitening_matches_the_svd_of_the_covariance():
    """The eigendecomposition gives Su et al.'s SVD whitening: the same cosines between
    whitened vectors (columns may differ in sign), at full and reduced dimension."""
    X = np.random.default_rng(5).normal(size=(200, 6)) @ np.diag([5, 3, 2, 1, 0.5, 0.2])
    mean = X.mean(axis=0)
    u, s, _ = np.linalg.svd(np.cov(X - mean, rowvar=False))
    for k in (6, 3):
        reference = (X - mean) @ (u / np.sqrt(s + 1e-8))[:, :k]
        ours = Whitening(n_components=k).fit_transform(X)
        assert np.allclose(np.abs(ours), np.abs(reference), atol=1e-8)
        unit = reference / np.linalg.norm(reference, axis=1, keepdims=True)
        ours_unit = ours / np.linalg.norm(ours, axis=1, keepdims=True)
        assert np.allclose(ours_unit @ ours_unit.T, unit @ unit.T, atol=1e-10)


@pytest.mark.parametrize("shape", [(40, 90), (200, 30), (30, 30)])
def test_top_directions_span_the_svd_directions(shape):
    """The Gram-matrix route gives the SVD's leading right singular vectors (up to sign):
    orthonormal rows, |<v_i, v_i^svd>| = 1, with fewer rows than asked when the data has
    fewer dimensions."""
    from anisotropy.geometry.transforms import _top_directions

    rng = np.random.default_rng(3)
    X = rng.normal(size=shape) @ np.diag(np.linspace(4, 0.5, shape[1]))
    X -= X.mean(axis=0)
    vt = np.linalg.svd(X, full_matrices=False)[2]
    got = _top_directions(X, 5)
    assert got.shape == (5, shape[1])
    np.testing.assert_allclose(got @ got.T, np.eye(5), atol=1e-10)
    np.testing.assert_allclose(np.abs(np.sum(got * vt[:5], axis=1)), 1.0, atol=1e-8)
    assert _top_directions(X[:3] - X[:3].mean(axis=0), 5).shape[0] <= 3


def test_top_directions_of_rank_deficient_data_match_the_svd():
    """Directions without variance are not determined by the data: the SVD's are used, so
    the projection removes exactly what the SVD route removed."""
    from anisotropy.geometry.transforms import _top_directions

    rng = np.random.default_rng(4)
    X = rng.normal(size=(50, 2)) @ rng.normal(size=(2, 20))  # rank 2
    X -= X.mean(axis=0)
    np.testing.assert_array_equal(_top_directions(X, 4),
                                  np.linalg.svd(X, full_matrices=False)[2][:4])
    assert _top_directions(np.zeros((6, 4)), 2).shape == (2, 4)
