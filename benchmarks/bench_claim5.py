"""Claim 5, setup (i), with metrics at every update: the cost the book's profile avoids.

Embeds all 10,662 polarity sentences with MiniLM (cached), then runs one seed of the
embedding optimization with IsoScore and silhouette after each of `--updates` updates (default
1,000) and prints the wall time and the time per metric evaluation, beside the same
training with metrics only at the first and last update.
"""

from __future__ import annotations

import argparse
import time

from anisotropy.claims.classifier import optimize_embeddings, trajectory_correlations
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
    print(f"training alone (metrics at updates 0 and {args.updates}): {training:.0f} s; "
          f"the metrics cost {(wall - training) / args.updates:.3f} s per evaluation")


if __name__ == "__main__":
    main()
