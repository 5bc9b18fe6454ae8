"""Speed of the per-cluster principal directions against a full SVD. Prints figures.

Claim 4's cluster-based method removes the top directions of each of 27 clusters of
10,000 token vectors; a profile of its full measure found the SVDs a quarter of its time.
``transforms._top_directions`` takes the leading eigenpairs of the smaller Gram matrix
instead. This prints both routes' time on the shapes the book meets (one cluster of 370
points in 576 dimensions, one of 1,500, and a whole ``ClusterIsotropy`` fit), their ratio
and the largest difference of the directions (up to sign). Goal: the Gram route at most
half the SVD's time, directions equal to 1e-8.

    .venv/bin/python benchmarks/bench_transforms.py
"""

from __future__ import annotations

import time
from unittest import mock

import numpy as np

from anisotropy.geometry import transforms


def svd_directions(centred: np.ndarray, n_components: int) -> np.ndarray:
    """The reference: the leading right singular vectors of a full SVD."""
    if n_components == 0:
        return np.zeros((0, centred.shape[1]))
    return np.linalg.svd(centred, full_matrices=False)[2][:n_components]


def best_of(function, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        function()
        times.append(time.perf_counter() - began)
    return min(times)


def main() -> None:
    rng = np.random.default_rng(0)
    for n, d in ((370, 576), (1500, 576)):
        X = rng.normal(size=(n, d)) @ np.diag(np.linspace(3, 0.1, d))
        X -= X.mean(axis=0)
        ours = best_of(lambda X=X: transforms._top_directions(X, 12), 10)
        reference = best_of(lambda X=X: svd_directions(X, 12), 10)
        gap = np.abs(np.abs(np.sum(transforms._top_directions(X, 12) * svd_directions(X, 12),
                                   axis=1)) - 1).max()
        print(f"top 12 directions of {n} x {d}: Gram route {ours * 1e3:6.1f} ms, SVD "
              f"{reference * 1e3:6.1f} ms, ratio {ours / reference:.2f} (goal <= 0.5); "
              f"max | |<v, v_svd>| - 1 | = {gap:.1e}")
    X = rng.normal(size=(10_000, 576)) @ np.diag(np.linspace(3, 0.1, 576))
    fit = transforms.ClusterIsotropy(27, 12, seed=0)
    ours = best_of(lambda: fit.fit(X), 2)
    with mock.patch.object(transforms, "_top_directions", svd_directions):
        reference = best_of(lambda: fit.fit(X), 2)
    print(f"ClusterIsotropy(27 clusters, 12 directions) on 10,000 x 576: {ours:.2f} s, with "
          f"SVDs {reference:.2f} s, ratio {ours / reference:.2f}")


if __name__ == "__main__":
    main()
