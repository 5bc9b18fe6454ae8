"""Rerun the smoke profile under perturbations and write ``tests/expected/smoke.yaml``.

A CPU other than the one that recorded the expected numbers sums floats in another order
(kernels, instruction sets, thread counts), and a seeded flow or classifier amplifies that.
This script measures the spread instead of guessing it: it reruns every claim notebook of
the smoke profile under each perturbation below, each with its own empty cache (so the
forward passes are redone under the perturbation), and writes

- for every check, the verdicts seen: pinned where one verdict held in every run, the set
  of verdicts seen elsewhere;
- for every graded check's measured value, a band: the range seen in all runs, widened on
  each side by a margin of ``max(0.5 * range, 0.01 * |median|, 0.001)`` and clipped to the
  quantity's declared bounds (``data/checks.yaml``). Band paths use check ids.

Perturbations (as far as each library honours them):

========== =============================================================================
baseline   the machine as it is
threads-1  OMP/MKL/OpenBLAS and torch on 1 thread
threads-2  the same on 2 threads
isa-default ``ATEN_CPU_CAPABILITY=default`` (torch's portable kernels)
isa-avx2   ``ATEN_CPU_CAPABILITY=avx2 ONEDNN_MAX_CPU_ISA=AVX2 OPENBLAS_CORETYPE=Haswell
           MKL_ENABLE_INSTRUCTIONS=AVX2``
seed-1     ``-p seed=1``: another sample of sentences, words, pairs and initializations
========== =============================================================================

Usage::

    .venv/bin/python scripts/record_smoke_bands.py              # all perturbations
    .venv/bin/python scripts/record_smoke_bands.py --only baseline isa-avx2
    .venv/bin/python scripts/record_smoke_bands.py --write-only # from finished runs

Runs are kept under ``_build/perturb/NAME`` and skipped when their results exist, so an
interrupted recording resumes. Each run takes the smoke profile's time (a few minutes per
claim on 2 cores).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))

from anisotropy.book.checks import load_checks  # noqa: E402
from anisotropy.book.runner import SLUGS  # noqa: E402

THREADS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")
PERTURBATIONS: dict[str, dict] = {
    "baseline": {"env": {}, "params": []},
    "threads-1": {"env": dict.fromkeys(THREADS, "1"), "params": []},
    "threads-2": {"env": dict.fromkeys(THREADS, "2"), "params": []},
    "isa-default": {"env": {"ATEN_CPU_CAPABILITY": "default"}, "params": []},
    "isa-avx2": {"env": {"ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2",
                         "OPENBLAS_CORETYPE": "Haswell", "MKL_ENABLE_INSTRUCTIONS": "AVX2"},
                 "params": []},
}
# Another CPU acts on a trained quantity like another seed: eight seeds (0 is every
# platform run's) give the seed distribution of the claims that train or initialise at random.
N_SEEDS = 8
PERTURBATIONS.update({f"seed-{s}": {"env": {}, "params": ["-p", f"seed={s}"]}
                      for s in range(1, N_SEEDS)})
MARGIN_TEXT = "max(0.5 * range seen, 0.01 * |median|, 0.001)"
WORK = ROOT / "_build" / "perturb"


def run_perturbation(name: str, slugs: list[str]) -> dict[str, float]:
    """Run the smoke profile of ``slugs`` under one perturbation; returns seconds per slug."""
    spec = PERTURBATIONS[name]
    base = WORK / name
    env = {**os.environ, **spec["env"], "ANISOTROPY_CACHE": str(base / "cache"),
           "ANISOTROPY_BUILD": str(base / "build")}
    seconds = {}
    for slug in slugs:
        if (base / "build" / "results" / f"{slug}.json").is_file():
            continue
        start = time.perf_counter()
        command = [str(ROOT / ".venv" / "bin" / "anisotropy"), "run", slug, "--profile",
                   "smoke", *spec["params"]]
        print(f"[{name}] {' '.join(command[1:])}", flush=True)
        subprocess.run(command, env=env, check=True, cwd=ROOT)
        seconds[slug] = round(time.perf_counter() - start, 1)
    return seconds


def load_runs(names: list[str]) -> dict[str, dict[str, dict]]:
    """``{perturbation: {slug: results record}}`` of finished runs."""
    runs = {}
    for name in names:
        directory = WORK / name / "build" / "results"
        records = {p.stem: json.loads(p.read_text()) for p in sorted(directory.glob("*.json"))}
        if records:
            runs[name] = records
    return runs


def band(values: list[float], bounds: tuple[float, float]) -> list[float]:
    """The range seen, widened by the stated margin, clipped to the quantity's bounds."""
    values = np.asarray(values, dtype=float)
    low, high = values.min(), values.max()
    margin = max(0.5 * (high - low), 0.01 * abs(float(np.median(values))), 0.001)
    return [round(float(max(low - margin, bounds[0])), 6),
            round(float(min(high + margin, bounds[1])), 6)]


def expected_from(runs: dict[str, dict[str, dict]]) -> dict:
    """The expected-results document from the runs of every perturbation."""
    out = {}
    for slug in SLUGS:
        specs = load_checks(slug)
        per_run = {name: records[slug] for name, records in runs.items() if slug in records}
        if not per_run:
            continue
        verdicts: dict[str, Counter] = {}
        measured: dict[str, dict[str, float]] = {}
        for name, record in per_run.items():
            for check in record["checks"]:
                verdicts.setdefault(check["id"], Counter())[check["verdict"]] += 1
                if isinstance(check.get("measured"), (int, float)) and check.get("interval"):
                    measured.setdefault(check["id"], {})[name] = float(check["measured"])
        entry = {"runs": sorted(per_run), "verdicts": {}, "bands": []}
        for check_id, seen in verdicts.items():
            complete = sum(seen.values()) == len(per_run)
            entry["verdicts"][check_id] = (next(iter(seen)) if len(seen) == 1 and complete
                                           else sorted(seen))
        for check_id, values in measured.items():
            spec = specs[check_id.split(":")[0]]
            entry["bands"].append({
                "path": ["checks", check_id, "measured"],
                "band": band(list(values.values()), spec.bounds),
                "seen": {k: round(v, 6) for k, v in sorted(values.items())},
            })
        out[slug] = entry
    return out


def write(document: dict, path: Path) -> None:
    header = (
        "# Expected smoke-profile results, written by scripts/record_smoke_bands.py from reruns\n"
        "# of the smoke profile under perturbations (perturbation names under `runs`; see the\n"
        "# script). A verdict is pinned where it held in every run; a list means any verdict\n"
        "# seen is accepted. Each band is the range of the measured value over the runs\n"
        f"# (`seen`), widened by {MARGIN_TEXT} on each side and clipped to the\n"
        "# quantity's declared bounds. Re-record after an intended change and say why in the\n"
        "# commit message.\n")
    path.write_text(header + yaml.safe_dump(document, sort_keys=False, width=100),
                    encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="+", choices=list(PERTURBATIONS),
                        default=list(PERTURBATIONS))
    parser.add_argument("--slugs", nargs="+", choices=list(SLUGS), default=list(SLUGS))
    parser.add_argument("--write-only", action="store_true",
                        help="skip running; write the file from the runs already finished")
    parser.add_argument("--out", type=Path, default=ROOT / "tests" / "expected" / "smoke.yaml")
    args = parser.parse_args(argv)
    timings = {}
    if not args.write_only:
        for name in args.only:
            timings[name] = run_perturbation(name, args.slugs)
            print(f"[{name}] seconds per claim: {timings[name]}", flush=True)
    runs = load_runs(list(PERTURBATIONS))
    write(expected_from(runs), args.out)
    print(f"wrote {args.out} from runs: {sorted(runs)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
