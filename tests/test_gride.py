"""GRIDE (Denti et al. 2022) as DADApy computes it: the TwoNN closed form, recovery of d from
exact GRIDE draws and from uniform cubes, the likelihood's maximum and curvature, DADApy's own
test numbers, and the refusals."""

from __future__ import annotations

import base64

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.integrate import quad
from scipy.stats import betaprime

from anisotropy.geometry.dimension import knn_distances
from anisotropy.geometry.gride import (
    GRIDE_EPS,
    MIN_PLATEAU_POINTS,
    PLATEAU_SHARE,
    gride,
    gride_error,
    gride_fit,
    gride_kept,
    gride_log_likelihood,
    gride_plateau,
    gride_ratios,
    gride_scales,
    gride_scaling,
    gride_scaling_from_distances,
    gride_subset_plateaus,
    plateau_index,
)

#: DADApy's tests/2gaussians_in_2d.npy (commit d9038b3), 100 x 2 float64, C order.
TWO_GAUSSIANS = (
    "Y8ODHXHp9r/hmukNoK3+v3wSWbCAkgbAqnhqvH6y/7+8UaeFAagAwDeOSYFCqAfANhPhRIqN779ARsv5mtcNwBnl"
    "j9eClPa/THx4s8/Z+b/uZ6bDcLDvv6gmcPPgCgjAdKtX5qJg/r+wgcWpu+jFP7iUU8okaPW/16te9QRk/r+ujoZt"
    "mF/3v57gBAgFn/6/QEXemVhvyD8nxz6xBkPwv4i/o+RWrwDAtjUnUXP2+78TFSSzWiADwGYzQGPoSOm/2P2+27M/"
    "C8COEoMngdYMwGpc/nE1UuG/oAC76m2Zwz+kq4620oH4v3n8VbM5Mv6/wsbW39R79b94mjRmKi0FwO243iCWQv2/"
    "AhbNQ6Fg/7+AS6PDl/n1v04cru7HdgzAup3QPmgOBMDKj/3j5Xryv5hnmLydZwXAYmrkcmfyB8BAiigXe4qlP+hy"
    "PWHeY/+/FvBw1Z+hBMAbWQ2D+YkNwLBL9OyYVPS/UTvFm1bQ9L/dgs4S3GMCwNrg9A9e0QjA9W/d90YyAMBP+U9O"
    "1a8GwLXZD11oiQfAN3cANWHTAMBIloxeP2kIwCGSOdO5Dfy/UC9+palF9r+JJ2o3kbcGwFYgC3wq8grA+Kiku/4T"
    "3L8KtcZmrIUHwL4vfQqQRwXA6W6GT3uX/L/friyp+2j2v395Ht/vDALA63OFIJag+L+HghI7ODUDwO4KIiD1xAfA"
    "cPYlvpxb4r9gsOOdoELfP6RFLDQ8ddO/EK8n9ii7/b9g+9V0/VHFv9BKjtQJT/q/h7HRdnvRA8CuHEiStYn4vyYw"
    "wNtQwQDAbFP6EG3dB8BKoQRuwy8HwIKNxsvLKvO/iiRCj7LFDsA+yZe2dFX2vxw4vyBjCQ3AJZuPrRV8EMACB0w1"
    "9bUOwKCvLQtQBKG/GWDuHOORAcDC5Iz0Wp3+v8AkJHF2leK/GLs5iZkN8b8ebMKDzSELwM46Gc6MGPK/Yv848pcN"
    "/b9uePe5wbsCwDwDYyGBnP+/vv9LqccL57+Yvk2YdRYHwEAC7eX4lfm/7aBYLMcTAMCGOIXXl2AOwJ+R/bUDawbA"
    "I3q755jo/L+6BqPj9GAKQALMH9a5AghAVWZ5WRfHBEAqGyOCofTyP2H2fOHiaA5Ak02K/s+4AUBcMpKI2svvPywa"
    "DzrSEv0/OPhfS4QrB0AIO1HDmQ8AQE/NRoNMGAdA9L1gf13UCEDfKntuSTQDQG8fRZ3ZRvI/7O4jQWkVAUCaOZHq"
    "f1wAQFakfvjw3w5ABA0RZFfq1z/yh9xpxNf9P/pga4aNp/Y/tpT72kuuAkD4AirxDQHcv8gkRJFd6whAAc67Kigc"
    "AEDYhakP1eDDPwMuAm/hOPo/zjbvpSffBEDonmfPtyXaP7DzkV6ZBgBAfPBJBi0p7j+mOnBwrxr3P4AV+ZzCNgBA"
    "MZs8xLR3AUBNfNe21nf4P7H+m9+vLgJAZCgA2DeLBkBhtGAvkYn7P6oF4svZcwtATv/ZV52yC0CrTIlNCST5P+Ai"
    "XrNny/U/HMZ0lzB+1T936r5vkvn9P99UxN1bL/o/cArDNH87BkCEOnpJtGHfP7tXRAvOj/s/EsR0D/2/B0AO1QIU"
    "dVD0PwRtQP1dzfM/gLzeLqqy4T/omtW1d3sSQPUmmZBZCvQ/9kdFCo9j5j+I7jzCbSPzPxOw/cJ8nPM/xs36V5Sw"
    "+z87vb7BXJoGQIphGHwROvs/GKOhnh088T9YANuQoo7hP7bZ9YzDLABAohTeuR5XAEAideB1WT8MQOp0Az1VvQBA"
    "DwvQQnZq/j/gEo40C2HuP+40/XjRGvs/vMLpNAL8+D8iM7S9zhP6P3SNQdHjpvA/lFFEwH9OBECpUGUni7j9PxXS"
    "OyZay/w/mPXuhBFN0j+xQ96r+/IDQF/kjUpo5QNAFOQaDO2S8j+0ppbCxOsHQOgrW4zmU+Q/GcAPvWum/z8SyQt+"
    "Iqn7PzrU3kG02eU/e8uWzYKEAUCiMZgZ3Z4NQAvSsdCDigBAvT1MgHaX+D+HxLJmgZMDQIGEmLmD2ABAsjA7Wts4"
    "AEA6RBGm+jD5P8T61rg0YAtAtvDJ1aGmA0DjRpiikIr3P6bu0sSdRf4/o/hr9Ggl9D+QQr9/cET2P9haDmKWv/U/"
    "HqkvLLiz6z9Vihr83DcGQA=="
)
#: DADApy's test_compute_id_gride: return_id_scaling_gride() on TWO_GAUSSIANS (abs 1e-3).
DADAPY_IDS = [2.0007, 2.0321, 1.9118, 2.0005, 1.6747, 0.7208]
DADAPY_ERRORS = [0.2001, 0.1466, 0.0976, 0.0722, 0.0427, 0.0130]
DADAPY_RS = [0.3947, 0.5674, 0.8013, 1.1345, 1.6477, 3.5726]
#: The same call of DADApy's source at d9038b3 (numpy 2.4), to full precision.
DADAPY_IDS_FULL = [2.00075528198012, 2.0321370960725176, 1.9118332735545407,
                   2.0005572597157153, 1.674724196479219, 0.7208205644709815]
ORDERS = [(1, 2), (2, 4), (4, 8), (8, 16)]


def gride_draws(d: float, n1: int, n2: int, n: int, seed: int) -> np.ndarray:
    """Exact draws of mu: V_n1 ~ Gamma(n1) and V_n2 - V_n1 ~ Gamma(n2 - n1) independent
    (a Poisson process's volumes), mu^d = V_n2 / V_n1."""
    rng = np.random.default_rng(seed)
    first, gap = rng.gamma(n1, size=n), rng.gamma(n2 - n1, size=n)
    return (1.0 + gap / first) ** (1.0 / d)


def test_density_is_the_transformed_beta_prime_and_integrates_to_one():
    """The likelihood of one ratio is the GRIDE density over d (DADApy's (N - 1) log d
    term): mu^d - 1 is beta-prime(n2 - n1, n1)."""
    d = 3.7
    for n1, n2 in [(1, 2), (2, 4), (3, 7)]:
        def density(mu, n1=n1, n2=n2):
            return d * np.exp(gride_log_likelihood(d, [mu], n1, n2, discard_outliers=False))

        for mu in (1.01, 1.2, 2.0, 5.0):
            expected = betaprime.pdf(mu**d - 1, n2 - n1, n1) * d * mu ** (d - 1)
            assert density(mu) == pytest.approx(expected, rel=1e-10)
        assert quad(density, 1, np.inf)[0] == pytest.approx(1, abs=1e-7)


def test_two_nn_closed_form():
    """At (n1, n2) = (1, 2) the score's root is (N - 1) / sum log mu (TwoNN's unbiased MLE;
    the paper's density alone would give N / sum log mu) and the error is d / sqrt(N)."""
    mus = gride_draws(4.0, 1, 2, 500, seed=1)
    every = gride_fit(mus, 1, 2, discard_outliers=False)
    assert every == pytest.approx((mus.size - 1) / np.log(mus).sum(), abs=GRIDE_EPS)
    kept = gride_kept(mus)
    assert gride_fit(mus, 1, 2) == pytest.approx((kept.size - 1) / np.log(kept).sum(),
                                                 abs=GRIDE_EPS)
    assert gride_error(every, mus, 1, 2) == pytest.approx(every / np.sqrt(mus.size), rel=1e-12)


@settings(max_examples=30, deadline=None)
@given(d=st.floats(1.0, 40.0), orders=st.sampled_from(ORDERS), seed=st.integers(0, 2**32 - 1))
def test_recovers_d_from_exact_gride_draws(d, orders, seed):
    n1, n2 = orders
    mus = gride_draws(d, n1, n2, 20_000, seed)
    assert gride_fit(mus, n1, n2) == pytest.approx(d, rel=0.05)
    assert gride_fit(mus, n1, n2, discard_outliers=False) == pytest.approx(d, rel=0.04)


@pytest.mark.parametrize("d", [3, 6])
def test_uniform_cube_in_twenty_dimensions(d):
    """3,000 points uniform in [0, 1]^d, rotated into 20 dimensions: near d (the cube's
    faces pull every nearest-neighbour estimate down a little, more at larger d)."""
    rng = np.random.default_rng(d)
    basis, _ = np.linalg.qr(rng.normal(size=(20, d)))
    X = rng.random((3000, d)) @ basis.T
    for n1, n2 in [(1, 2), (2, 4)]:
        estimate = gride(X, n1, n2)
        assert 0.88 * d < estimate.d < 1.05 * d, (n1, n2, estimate)
        assert 0 < estimate.error < 0.05 * d


@pytest.mark.parametrize("orders", ORDERS + [(3, 7)])
def test_the_fit_maximises_the_likelihood(orders):
    n1, n2 = orders
    mus = gride_draws(7.5, n1, n2, 3000, seed=n2)
    d = gride_fit(mus, n1, n2)
    best = gride_log_likelihood(d, mus, n1, n2)
    for factor in (0.99, 1.01):
        assert gride_log_likelihood(d * factor, mus, n1, n2) < best
    h = 1e-4 * d
    slope = (gride_log_likelihood(d + h, mus, n1, n2)
             - gride_log_likelihood(d - h, mus, n1, n2)) / (2 * h)
    assert abs(slope) < 1e-3


@pytest.mark.parametrize("orders", [(1, 2), (2, 4), (8, 16), (2, 7)])
def test_error_is_the_observed_information_with_n_not_n_minus_1(orders):
    """DADApy's Fisher information is -l''(d) of its likelihood plus 1/d^2 (N / d^2 where
    the likelihood's first term gives (N - 1) / d^2)."""
    n1, n2 = orders
    mus = gride_draws(5.0, n1, n2, 2000, seed=3)
    d = gride_fit(mus, n1, n2, discard_outliers=False)
    h = 1e-3 * d
    ell = [gride_log_likelihood(d + k * h, mus, n1, n2, discard_outliers=False)
           for k in (-1, 0, 1)]
    curvature = -(ell[0] - 2 * ell[1] + ell[2]) / h**2
    assert gride_error(d, mus, n1, n2) ** -2 == pytest.approx(curvature + 1 / d**2, rel=1e-4)


def test_matches_dadapy_return_id_scaling_gride():
    X = np.frombuffer(base64.b64decode("".join(TWO_GAUSSIANS)), dtype=np.float64)
    X = X.reshape(100, 2)
    result = gride_scaling(X)
    assert result.n2.tolist() == [2, 4, 8, 16, 32, 64]
    assert result.n1.tolist() == [1, 2, 4, 8, 16, 32]
    assert result.d == pytest.approx(DADAPY_IDS, abs=1e-3)
    assert result.error == pytest.approx(DADAPY_ERRORS, abs=1e-3)
    assert result.r == pytest.approx(DADAPY_RS, abs=1e-3)
    assert result.d == pytest.approx(DADAPY_IDS_FULL, rel=1e-9)
    one = gride(X, 4, 8)
    assert (one.d, one.error) == (result.d[2], result.error[2])


def test_scales_double_up_to_the_cap():
    assert gride_scales(64, 100).tolist() == [2, 4, 8, 16, 32, 64]
    assert gride_scales(100, 64).tolist() == [2, 4, 8, 16, 32]  # 63 neighbours per point
    assert gride_scales(2**13, 10_000)[-1] == 2**13
    assert gride_scales(3, 1000).tolist() == [2]


def test_zero_distances_and_ties_as_dadapy():
    """Zero distances are floored at the machine epsilon; a tie mu = 1 moves to
    1 + 10 eps; the huge ratio of a point on top of its first neighbour is cut."""
    eps = np.finfo(np.float64).eps
    distances = np.array([[0.0, 0.0, 1.0], [0.0, 1.0, 2.0], [1.0, 2.0, 3.0]])
    assert gride_ratios(distances, 1, 2).tolist() == [1.0, 1.0 / eps, 2.0]
    assert gride_ratios(distances, 2, 3).tolist() == [1.0 / eps, 2.0, 1.5]
    mus = gride_draws(2.0, 1, 2, 400, seed=5)
    assert gride_kept([1.0, *mus])[0] == 1.0 + 10 * eps
    with_outlier = np.concatenate([mus, [1e15]])
    assert gride_kept(with_outlier).size == gride_kept(mus).size
    assert gride_fit(with_outlier, 1, 2) == gride_fit(mus, 1, 2)


MUS = np.array([1.5, 2.0, 1.2, 3.0, 1.1])


@pytest.mark.parametrize("call, message", [
    (lambda: gride_fit(MUS, 2, 2), r"n2 must be > n1 = 2, got n2 = 2"),
    (lambda: gride_fit(MUS, 3, 2), r"n2 must be > n1 = 3, got n2 = 2"),
    (lambda: gride_fit(MUS, 0, 2), r"n1 must be >= 1 .*got 0"),
    (lambda: gride_fit(MUS, 1.5, 3), r"n1 must be an integer .*got 1\.5"),
    (lambda: gride_fit([1.5, 2.0, 1.2, 0.5], 1, 2), r"mus\[3\] = 0\.5"),
    (lambda: gride_fit([1.5, np.nan, 1.2], 1, 2), r"mus\[1\] = nan"),
    (lambda: gride_fit([1.5, 2.0, np.inf], 1, 2), r"mus\[2\] = inf"),
    (lambda: gride_fit([], 1, 2), r"shape \(0,\)"),
    (lambda: gride_fit([[1.5, 2.0]], 1, 2), r"shape \(1, 2\)"),
    (lambda: gride_fit([1.5], 1, 2, discard_outliers=False), r"at least 2 ratios; 1 kept"),
    (lambda: gride_fit(MUS, 1, 2, d0=5.0, d1=1.0), r"d0 = 5\.0, d1 = 1\.0"),
    (lambda: gride_fit(MUS, 1, 2, eps=0), r"eps must be .*got 0\.0"),
    (lambda: gride_fit(gride_draws(30.0, 1, 2, 500, 0), 1, 2, d1=10.0),
     r"no maximum in \[d0, d1\] = \[0\.001, 10\.0\]"),
    (lambda: gride_log_likelihood(0, MUS, 1, 2), r"d must be .*got 0\.0"),
    (lambda: gride_error(-1.0, MUS, 1, 2), r"d must be .*got -1\.0"),
    (lambda: gride_ratios(np.ones((4, 3)), 1, 5), r"n2 = 5 .*k = 3"),
    (lambda: gride_ratios(np.array([[1.0, 2.0], [2.0, 1.0]]), 1, 2),
     r"row 1 has r_2 = 1\.0 < r_1 = 2\.0"),
    (lambda: gride_ratios(np.array([[-1.0, 2.0]]), 1, 2), r"finite and >= 0"),
    (lambda: gride_ratios(np.ones(3), 1, 2), r"shape \(3,\)"),
    (lambda: gride_scales(1, 100), r"range_max must be an integer >= 2, got 1"),
    (lambda: gride_scaling(np.ones(5)), r"shape \(5,\)"),
])
def test_refuses_bad_input_naming_the_value(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# --------------------------------------------------------------------------- the plateau


@pytest.mark.parametrize(("d", "expected"), [
    ([5.0, 4.0, 4.1, 4.0, 7.0], 2),        # the flat middle
    ([3.0, 3.0, 3.0, 9.0], 1),             # a tie of flat windows: the first
    ([1.0, 2.0, 4.0, 8.0, 8.0, 8.2], 4),   # flat at the end of the range
    ([10.0, 10.5, 20.0], 1),               # three scales: the only window
])
def test_plateau_is_the_flattest_window_of_three(d, expected):
    assert plateau_index(d) == expected


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(0.1, 100.0), min_size=3, max_size=12), st.floats(0.01, 100.0))
def test_plateau_is_interior_and_scale_free(d, factor):
    j = plateau_index(d)
    assert 1 <= j <= len(d) - 2
    assert plateau_index(np.array(d) * factor) == j


@pytest.mark.parametrize("d", [[1.0, 2.0], [1.0, np.nan, 2.0], [1.0, 0.0, 2.0], [[1.0] * 3]])
def test_plateau_refuses_too_few_or_bad_scales(d):
    with pytest.raises(ValueError, match="scales|finite"):
        plateau_index(d)


def test_plateau_of_a_uniform_cube_finds_its_dimension():
    X = np.random.default_rng(3).random((1500, 5)) @ np.random.default_rng(4).normal(
        size=(5, 20))
    found = gride_plateau(knn_distances(X, 1500 // PLATEAU_SHARE))
    assert found.d == pytest.approx(5.0, rel=0.12)
    assert found.n2 == found.scaling.n2[plateau_index(found.scaling.d)]
    assert found.scaling.n2[-1] <= 1500 // PLATEAU_SHARE
    assert found.scaling.d == pytest.approx(
        gride_scaling(X, range_max=1500 // PLATEAU_SHARE).d, rel=1e-12)


def test_plateau_refuses_too_few_points():
    with pytest.raises(ValueError, match=f"at least {MIN_PLATEAU_POINTS}"):
        gride_plateau(np.sort(np.random.default_rng(0).random((MIN_PLATEAU_POINTS - 1, 8)),
                              axis=1))


def test_subset_plateaus_are_each_subsets_own_search():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(300, 6)) @ rng.normal(size=(6, 30)) + 5.0
    subsets = np.sort(np.stack([rng.choice(300, 150, replace=False) for _ in range(4)]),
                      axis=1)
    whole, within = gride_subset_plateaus(X, subsets)
    alone = gride_plateau(knn_distances(X, 300 // PLATEAU_SHARE))
    assert whole.d == alone.d and whole.n2 == alone.n2
    for rows, d in zip(subsets, within, strict=True):
        assert d == pytest.approx(
            gride_plateau(knn_distances(X[rows], 150 // PLATEAU_SHARE)).d, rel=1e-9)


def test_subset_plateaus_drop_repeated_points():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(200, 4))
    doubled = np.concatenate([X, X[:40]])        # rows 200..239 repeat rows 0..39
    subsets = np.r_[np.arange(100), np.arange(200, 240)][None, :]
    whole, within = gride_subset_plateaus(doubled, subsets)
    assert whole.d == pytest.approx(gride_subset_plateaus(X, subsets[:, :100])[0].d, rel=1e-12)
    assert within[0] == pytest.approx(
        gride_plateau(knn_distances(X[:100], 100 // PLATEAU_SHARE)).d, rel=1e-9)


def test_subset_plateaus_refuse_a_small_subset_naming_it():
    X = np.random.default_rng(9).normal(size=(200, 4))
    subsets = np.stack([np.arange(100), np.r_[np.arange(50), np.zeros(50, dtype=int)]])
    with pytest.raises(ValueError, match="subset 1 holds 50 distinct points"):
        gride_subset_plateaus(X, subsets)


def test_scaling_from_distances_is_gride_scaling():
    X = np.random.default_rng(10).normal(size=(120, 3))
    ours, theirs = gride_scaling_from_distances(knn_distances(X, 64), 64), gride_scaling(X, 64)
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_array_equal(a, b)


def test_distinct_rows_keep_first_occurrences_in_order():
    from anisotropy.geometry.dimension import distinct_rows

    X = np.array([[3.0, 0.0], [1.0, 0.0], [3.0, 0.0], [2.0, 0.0], [1.0, 0.0]])
    first, group = distinct_rows(X)
    assert first.tolist() == [0, 1, 3]
    assert group.tolist() == [0, 1, 0, 2, 1]
    np.testing.assert_array_equal(X[first][group], X)
