"""Speed of the metrics against their references and the GEMM peak. Prints figures.

- silhouette on 10,000 x 384 with 2 labels against the time its upper-triangle GEMM
  (n^2 d flops) takes at the machine's peak float32 rate (goal: <= 2x), against
  sklearn.metrics.silhouette_score and against a bare ``X @ X.T`` (which allocates its
  400 MB output, so it is a noisy yardstick);
- isoscore against the IsoScore package (goal: no slower than 1.1x).
"""

from __future__ import annotations

import time

import numpy as np
import sklearn.metrics
from IsoScore.IsoScore import IsoScore

from anisotropy.geometry import metrics

try:
    from peak import describe, gemm_rates
except ImportError:  # run as a module from the repository root
    from benchmarks.peak import describe, gemm_rates


def best_of(function, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        function()
        times.append(time.perf_counter() - began)
    return min(times)


def main() -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(10_000, 384)).astype(np.float32)
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    labels = rng.integers(0, 2, size=10_000)
    X[labels == 1] += 0.05
    rates = gemm_rates()
    print(describe(rates))
    peak_time = X.shape[0] ** 2 * X.shape[1] / (max(rates.values()) * 1e9)
    gemm = best_of(lambda: X @ X.T)
    ours = best_of(lambda: metrics.silhouette(X, labels))
    reference = best_of(lambda: sklearn.metrics.silhouette_score(X, labels), repeat=1)
    difference = abs(metrics.silhouette(X, labels) - sklearn.metrics.silhouette_score(X, labels))
    print("silhouette, 10,000 x 384, 2 labels")
    print(f"  upper triangle at peak {peak_time:7.3f} s  (n^2 d flops at the faster rate)")
    print(f"  bare GEMM X @ X.T      {gemm:7.3f} s")
    print(f"  anisotropy.silhouette  {ours:7.3f} s  ({ours / peak_time:.2f}x the peak-rate time; "
          f"goal <= 2x; {ours / gemm:.2f}x the bare GEMM)")
    print(f"  sklearn                {reference:7.3f} s  ({reference / ours:.1f}x slower than "
          "ours)")
    print(f"  |difference|           {difference:.2e}")
    iso_ours = best_of(lambda: metrics.isoscore(X), repeat=5)
    iso_ref = best_of(lambda: IsoScore(X), repeat=5)
    print("isoscore, 10,000 x 384")
    print(f"  anisotropy.isoscore    {iso_ours:7.4f} s  ({iso_ours / iso_ref:.2f}x the package; "
          "goal <= 1.1x)")
    print(f"  IsoScore package       {iso_ref:7.4f} s")


if __name__ == "__main__":
    main()
