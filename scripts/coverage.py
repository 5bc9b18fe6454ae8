"""Do the 95% intervals cover? Rerun each claim's smoke profile with several seeds and count.

For every graded quantity (a check of one model and subject), each seed's run gives a point
estimate and a 95% interval. If the intervals were right, another seed's estimate would fall
inside a given seed's interval about 83% of the time (two independent estimates with the
same spread: P(|X - Y| < 1.96 sigma) with X - Y of standard deviation sqrt(2) sigma, that is
2 Phi(1.96 / sqrt 2) - 1 = 0.834). The script prints that share per quantity, pooled over
ordered pairs of seeds, and flags every quantity under 70%: its interval misses a source of
variation that the seed moves (the sample of sentences, words or pairs, a K-means or
classifier initialisation).

The count is itself noisy: the pairs share seeds, so with 10 seeds a correct interval falls
under 70% about 11% of the time (:func:`false_flag_rate`, simulated; 3% with 20 seeds). The
report prints that rate; a flagged quantity is first rerun with more seeds (``--seeds 20``)
before its interval is called too narrow.

A seed here moves everything the seed parameter moves, so this is the coverage of the whole
run-to-run variation, which is what a reader rerunning the notebook with another seed sees.

Usage (never in CI; about 10 to 20 minutes per seed on 2 cores, resumable)::

    .venv/bin/python scripts/coverage.py                        # 10 seeds, every claim
    .venv/bin/python scripts/coverage.py --seeds 5 --slugs 02-clusters-manifolds
    .venv/bin/python scripts/coverage.py --report-only          # from finished runs
    .venv/bin/python scripts/coverage.py --perturb --seeds 10   # the recorder's 8, 2 more

Runs are kept under ``_build/coverage/seed-N`` and skipped when their results exist.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))

from anisotropy.book.runner import SLUGS  # noqa: E402
from anisotropy.report.verdicts import GRADED  # noqa: E402

WORK = ROOT / "_build" / "coverage"
#: The share of other seeds' estimates a correct 95% interval covers (see the docstring).
EXPECTED = 0.834
#: Below this share a quantity is flagged.
FLAG = 0.70


#: Where finished runs are read from: this script's own runs, or the smoke band recorder's
#: (``_build/perturb``: seed 0 is its ``baseline`` run, seed N its ``seed-N``), which holds
#: seeds 0-7 of every claim with a seed check (``--perturb``).
PERTURB = ROOT / "_build" / "perturb"
#: Seeds the band recorder runs (``baseline`` and ``seed-1`` .. ``seed-7``).
PERTURB_SEEDS = 8


def results_path(seed: int, slug: str, perturb: bool = False) -> Path:
    """Seed ``seed``'s results of ``slug``: this script's run, or with ``perturb`` the band
    recorder's for the seeds it runs (this script's own beyond them)."""
    if perturb and seed < PERTURB_SEEDS:
        name = "baseline" if seed == 0 else f"seed-{seed}"
        return PERTURB / name / "build" / "smoke" / "results" / f"{slug}.json"
    return WORK / f"seed-{seed}" / "build" / "smoke" / "results" / f"{slug}.json"


def run(seed: int, slugs: list[str], keep_cache: bool = False, perturb: bool = False) -> None:
    """The smoke profile of ``slugs`` with ``seed``, in its own build and cache. The cache
    (each seed samples other sentences, so nothing is shared; about 1-2 GB a seed) is
    removed once the seed's results are written, unless ``keep_cache``."""
    base = WORK / f"seed-{seed}"
    env = {**os.environ, "ANISOTROPY_BUILD": str(base / "build"),
           "ANISOTROPY_CACHE": str(base / "cache")}
    for slug in slugs:
        if results_path(seed, slug, perturb).exists():
            continue
        command = [str(ROOT / ".venv" / "bin" / "anisotropy"), "run", slug, "--profile",
                   "smoke", "-p", f"seed={seed}"]
        print(f"[seed {seed}] {' '.join(command[1:])}", flush=True)
        subprocess.run(command, env=env, check=True, cwd=ROOT)
    if not keep_cache and all(results_path(seed, slug).exists() for slug in slugs):
        shutil.rmtree(base / "cache", ignore_errors=True)


def estimates(seeds: list[int], slug: str, perturb: bool = False
              ) -> dict[str, dict[int, tuple]]:
    """``{check record id: {seed: (measured, low, high)}}`` over the finished runs."""
    out: dict[str, dict[int, tuple]] = {}
    for seed in seeds:
        path = results_path(seed, slug, perturb)
        if not path.exists():
            continue
        for check in json.loads(path.read_text(encoding="utf-8"))["checks"]:
            if check["verdict"] not in GRADED or not check.get("interval") or not isinstance(
                    check.get("measured"), (int, float)):
                continue
            low, high = check["interval"]
            out.setdefault(check["id"], {})[seed] = (float(check["measured"]), float(low),
                                                     float(high))
    return out


def coverage(per_seed: dict[int, tuple]) -> tuple[float, int]:
    """The share of ordered pairs (a, b) of seeds with b's estimate inside a's interval,
    and the number of pairs."""
    pairs = list(itertools.permutations(per_seed, 2))
    if not pairs:
        return float("nan"), 0
    inside = sum(per_seed[a][1] <= per_seed[b][0] <= per_seed[a][2] for a, b in pairs)
    return inside / len(pairs), len(pairs)


def false_flag_rate(n_seeds: int, n_sim: int = 4000, seed: int = 0) -> float:
    """How often a correct interval is flagged: the share of ``n_sim`` simulated studies
    (``n_seeds`` normal estimates, each with the exact 95% interval ``x +- 1.96 sigma``)
    whose :func:`coverage` falls under :data:`FLAG`."""
    rng = np.random.default_rng(seed)
    flagged = 0
    for _ in range(n_sim):
        x = rng.standard_normal(n_seeds)
        share, _ = coverage({i: (v, v - 1.96, v + 1.96) for i, v in enumerate(x)})
        flagged += share < FLAG
    return flagged / n_sim


def report(seeds: list[int], slugs: list[str], perturb: bool = False) -> int:
    """Print the coverage table (Markdown); return the number of flagged quantities."""
    flagged = 0
    print("| claim | check | seeds | coverage | flag |\n|---|---|---|---|---|")
    for slug in slugs:
        for check_id, per_seed in sorted(estimates(seeds, slug, perturb).items()):
            share, n_pairs = coverage(per_seed)
            if not n_pairs:
                continue
            flag = share < FLAG
            flagged += flag
            print(f"| {slug[:2]} | {check_id} | {len(per_seed)} | {share:.0%} | "
                  f"{'under ' + format(FLAG, '.0%') if flag else ''} |")
    print(f"\nA correct 95% interval covers about {EXPECTED:.0%} of the other seeds' "
          f"estimates; {flagged} quantities are under {FLAG:.0%}. With {len(seeds)} seeds a "
          f"correct interval is flagged {false_flag_rate(len(seeds)):.0%} of the time "
          "(simulated): rerun a flagged quantity with more seeds before fixing it.")
    return flagged


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=10, help="seeds 0 .. N-1 (default 10)")
    parser.add_argument("--slugs", nargs="+", choices=list(SLUGS), default=list(SLUGS))
    parser.add_argument("--report-only", action="store_true")
    parser.add_argument("--keep-cache", action="store_true",
                        help="keep each seed's extraction cache (1-2 GB a seed)")
    parser.add_argument("--perturb", action="store_true",
                        help="seeds 0-7 from the smoke band recorder's runs (_build/perturb, "
                             "the claims with a seed check); seeds from 8 on are run here")
    args = parser.parse_args(argv)
    seeds = list(range(args.seeds))
    if args.seeds < 2:
        parser.error(f"--seeds {args.seeds}: coverage needs at least 2 seeds")
    if not args.report_only:
        for seed in seeds:
            if not (args.perturb and seed < PERTURB_SEEDS):
                run(seed, args.slugs, args.keep_cache, args.perturb)
    report(seeds, args.slugs, args.perturb)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
