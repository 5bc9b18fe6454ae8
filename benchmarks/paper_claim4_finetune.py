"""Claim 4's fine-tuning analysis under the `paper` profile, end to end on this machine,
through the notebook's own functions.

Reads claim 4's fine-tuning parameters from a profile (`paper` by default: the notebook's
defaults, every training and dev pair, 2 epochs), fine-tunes the model plain and with the
method inside for each seed (`finetuning.run_seeds`, cached under the `finetune` kind, so a
later notebook run with the same settings reuses the runs), and prints the wall time per run,
the per-run dev numbers and each graded check with its interval (`finetuning.check_values`),
as the notebook grades them. The `full` profile records these checks as not run; this script
is how their paper-scale numbers are produced on a CPU.

    python benchmarks/paper_claim4_finetune.py [--profile paper] [--tasks rte wic] [--seeds N]
"""

from __future__ import annotations

import argparse
import time

try:
    from peak import describe, gemm_rates
except ImportError:  # run as a module from the repository root
    from benchmarks.peak import describe, gemm_rates

import pandas as pd

from anisotropy.book.plan import claim_parameters
from anisotropy.claims.cluster_isotropy import finetuning as ft
from anisotropy.inputs import models

SLUG = "04-cluster-isotropy"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--profile", default="paper")
    parser.add_argument("--tasks", nargs="+", help="override the profile's finetune_tasks")
    parser.add_argument("--seeds", type=int, help="override the profile's finetune_seeds")
    args = parser.parse_args()
    p = claim_parameters(SLUG, args.profile)
    tasks = args.tasks or p["finetune_tasks"]
    n_seeds = args.seeds or p["finetune_seeds"]
    if not tasks:
        raise SystemExit(f"The {args.profile!r} profile runs no fine-tuning task; pass --tasks.")
    settings = ft.FineTuning(
        epochs=p["finetune_epochs"], batch_size=p["finetune_batch_size"],
        learning_rate=p["finetune_learning_rate"], max_length=p["finetune_max_length"],
        n_clusters=p["finetune_clusters"], n_components=p["finetune_components"])
    print(describe(gemm_rates()))
    print(f"profile {args.profile!r}: tasks {tasks}, {n_seeds} seeds, {settings}, "
          f"model {p['finetune_model']}, train items {p['finetune_train_items'] or 'all'}, "
          f"dev items {p['finetune_dev_items'] or 'all'}")
    encoder = models.load(p["finetune_model"], device=p["device"])
    frames = []
    for task in tasks:
        began = time.perf_counter()
        runs = ft.run_seeds(encoder, task, settings=settings, n_seeds=n_seeds,
                            n_train=p["finetune_train_items"], n_dev=p["finetune_dev_items"],
                            seed=p["seed"])
        wall = time.perf_counter() - began
        frames.append(runs)
        trained = runs[runs["condition"] != "pretrained"]
        print(f"{task}: {wall:.0f} s in all for {len(trained)} runs "
              f"({int(trained['n_train'].iloc[0]):,} training and "
              f"{int(trained['n_dev'].iloc[0]):,} dev pairs; the runs' own times "
              f"{trained['seconds'].min():.0f}-{trained['seconds'].max():.0f} s)")
    runs = pd.concat(frames, ignore_index=True)
    columns = ["task", "condition", "seed", "accuracy", "majority", "log10_iw", "log10_iw_cls",
               "centroid_ratio_cls", "final_loss"]
    print(runs[[c for c in columns if c in runs]].round(4).to_string(index=False))
    for task, values in ft.check_values(runs).items():
        for name, entry in values.items():
            if name == "zero_mean":
                print(f"  {task} zero-mean (centroid ratio): {entry}")
                continue
            value, interval = entry.value, entry.interval
            print(f"  {task} {name}: {value:.4f} [{interval.low:.4f}, {interval.high:.4f}] "
                  f"({interval.method})")


if __name__ == "__main__":
    main()
