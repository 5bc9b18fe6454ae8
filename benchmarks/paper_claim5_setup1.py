"""Claim 5, setup (i), under the `paper` profile: the papers' protocol end to end on this
machine, through the notebook's own functions.

Reads claim 5's parameters from the `paper` profile (notebooks/profiles.yaml: metrics at
every update, the number of seeds and updates), embeds every polarity sentence with the
paper's encoder (cached), runs `run_seeds` as the notebook does, and prints the wall time,
the time per seed, and each check of the setup with its interval (`check_values`), so the
numbers can be set beside those of the `full` profile's sampled curves. The rest of the
`paper` profile (setup (ii), the full appendix on four models) is sized for a GPU or a
cluster and is not run here.

    python benchmarks/paper_claim5_setup1.py [--profile paper] [--seeds N]
"""

from __future__ import annotations

import argparse
import time

try:
    from peak import describe, gemm_rates
except ImportError:  # run as a module from the repository root
    from benchmarks.peak import describe, gemm_rates

from anisotropy.book.plan import claim_parameters
from anisotropy.claims.classifier_geometry.classifier import check_values, run_seeds, setup_summary
from anisotropy.inputs import models
from anisotropy.inputs.tasks import classification_task

SLUG = "05-isotropy-vs-clusters"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--profile", default="paper")
    parser.add_argument("--seeds", type=int, help="override the profile's n_seeds")
    args = parser.parse_args()
    p = claim_parameters(SLUG, args.profile)
    n_seeds = args.seeds or p["n_seeds"]
    print(describe(gemm_rates()))
    print(f"profile {args.profile!r}: {p['n_updates']} updates, metrics every "
          f"{p['metric_every']}, {n_seeds} seeds, model {p['model']}")
    task = classification_task("polarity", p["n_items"], p["seed"])
    encoder = models.load(p["model"], device=p["device"], dtype=p["dtype"])
    X = encoder.encode_sentences(task["sentences"], pooling="mean", normalize=True,
                                 progress=False)
    began = time.perf_counter()
    trajectory = run_seeds(X, task, n_updates=p["n_updates"], n_seeds=n_seeds, seed=p["seed"],
                           bias=False, metric_every=p["metric_every"], desc="polarity")
    wall = time.perf_counter() - began
    print(f"setup (i): {len(task['sentences']):,} points, {wall:.0f} s in all, "
          f"{wall / n_seeds:.0f} s per seed, {trajectory['update'].nunique()} evaluations "
          "per seed")
    summary = setup_summary(trajectory)
    print({k: (round(v, 4) if isinstance(v, float) else v) for k, v in summary.items()})
    for check, measured in check_values(trajectory).items():
        value, interval = measured.value, measured.interval
        print(f"  {check}: {value:.4f} [{interval.low:.4f}, {interval.high:.4f}] "
              f"({interval.method})")


if __name__ == "__main__":
    main()
