"""Speed of the metrics against their references. Prints figures; asserts nothing.

- silhouette on 10,000 x 384 with 2 labels against sklearn.metrics.silhouette_score
  (goal: >= 3x faster) and the bare float32 GEMM X @ X.T (goal: within 1.5x);
- isoscore against the IsoScore package (goal: no slower than 1.1x).
"""

from __future__ import annotations

import time

import numpy as np
import sklearn.metrics
from IsoScore.IsoScore import IsoScore

from anisotropy.geometry import metrics


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
    gemm = best_of(lambda: X @ X.T)
    ours = best_of(lambda: metrics.silhouette(X, labels))
    reference = best_of(lambda: sklearn.metrics.silhouette_score(X, labels), repeat=1)
    difference = abs(metrics.silhouette(X, labels) - sklearn.metrics.silhouette_score(X, labels))
    print("silhouette, 10,000 x 384, 2 labels")
    print(f"  bare GEMM X @ X.T      {gemm:7.3f} s")
    print(f"  anisotropy.silhouette  {ours:7.3f} s  ({ours / gemm:.2f}x the GEMM; goal <= 1.5x)")
    print(f"  sklearn                {reference:7.3f} s  ({reference / ours:.1f}x slower than "
          "ours; goal >= 3x)")
    print(f"  |difference|           {difference:.2e}")
    iso_ours = best_of(lambda: metrics.isoscore(X), repeat=5)
    iso_ref = best_of(lambda: IsoScore(X), repeat=5)
    print("isoscore, 10,000 x 384")
    print(f"  anisotropy.isoscore    {iso_ours:7.4f} s  ({iso_ours / iso_ref:.2f}x the package; "
          "goal <= 1.1x)")
    print(f"  IsoScore package       {iso_ref:7.4f} s")


if __name__ == "__main__":
    main()
