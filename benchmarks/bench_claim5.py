"""Claim 5, setup (i), with metrics at every update: the cost the book's profile avoids.

Embeds all 10,662 polarity sentences with MiniLM (cached), then runs one seed of the
embedding optimization with IsoScore and silhouette after each of `--updates` updates (default
1,000) and prints the wall time and the time per metric evaluation, beside the same
training with metrics only at the first and last update, and against the GEMM limit: the
time the silhouette's n^2 d upper-triangle GEMM takes at the machine's peak float32 rate
(goal: the metrics cost <= 2x that per evaluation).
"""

from __future__ import annotations

import argparse
import time

try:
    from peak import describe, gemm_rates
except ImportError:  # run as a module from the repository root
    from benchmarks.peak import describe, gemm_rates

from anisotropy.claims.classifier_geometry.classifier import (
    optimize_embeddings,
    trajectory_correlations,
)
from anisotropy.inputs import models
from anisotropy.inputs.tasks import classification_task


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--updates", type=int, default=1000)
    args = parser.parse_args()
    task = classification_task("polarity")
    encoder = models.load("sentence-transformers/all-MiniLM-L6-v2")
    X = encoder.encode_sentences(task["sentences"], normalize=True, progress=False)
    began = time.perf_counter()
    trajectory = optimize_embeddings(X, task["targets"], n_updates=args.updates, bias=False,
                                     metric_every=1, progress=False)
    wall = time.perf_counter() - began
    print(f"setup (i): {len(task['sentences'])} points, {args.updates} updates, metrics at "
          f"every update: {wall:.0f} s ({wall / (args.updates + 1):.3f} s per update+metrics)")
    print(f"correlations: {trajectory_correlations(trajectory)}")
    began = time.perf_counter()
    optimize_embeddings(X, task["targets"], n_updates=args.updates, bias=False,
                        metric_every=args.updates, progress=False)
    training = time.perf_counter() - began
    per_evaluation = (wall - training) / args.updates
    rates = gemm_rates()
    limit = X.shape[0] ** 2 * X.shape[1] / (max(rates.values()) * 1e9)
    print(describe(rates))
    print(f"training alone (metrics at updates 0 and {args.updates}): {training:.0f} s; "
          f"the metrics cost {per_evaluation:.3f} s per evaluation = "
          f"{per_evaluation / limit:.2f}x the GEMM limit ({limit:.3f} s; goal <= 2x)")


if __name__ == "__main__":
    main()
