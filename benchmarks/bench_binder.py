"""The binder profile's budget: each claim notebook, opened as an outside user opens it, in
5 minutes or less on 2 cores with at most 2 GB peak memory (mybinder.org's limit).

Runs every claim notebook one after another with nbclient in a fresh kernel (its own
parameters cell, ``profile = "binder"``), with no data root, no ``../shared`` and the hub
offline but for a fake hub cache built from the local data (``tests/fakehub.py``), after
``anisotropy models --profile binder`` has prepared the models, as Binder's ``postBuild``
does. Each notebook starts from a cache that holds those models and nothing else (what a
user who opens that notebook first in a new container has), so every forward pass is paid
and no notebook reads vectors another one cached. Prints each notebook's wall
time and its kernel's peak RSS as ratios of the budget, beside the machine's float32 GEMM
rate, which the time scales with. Needs ``../shared/data`` (or ``ANISOTROPY_DATA``) to build
the fake hub.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

try:
    from peak import describe, gemm_rates
except ImportError:  # run as a module from the repository root
    from benchmarks.peak import describe, gemm_rates

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from fakehub import hub_frames_from_local, write_fake_hub  # noqa: E402

from anisotropy.book import runner  # noqa: E402
from anisotropy.book.fresh_run import outside_environment, run_fresh  # noqa: E402

BUDGET_S, BUDGET_MB = 300.0, 2048.0


def main() -> int:
    print(describe(gemm_rates()))
    work = Path(tempfile.mkdtemp(prefix="bench-binder-"))
    write_fake_hub(work / "hf", hub_frames_from_local())
    env = outside_environment(work / "hf", work / "cache", work / "build")
    subprocess.run([sys.executable, "-m", "anisotropy", "models", "--profile", "binder"],
                   env=env, check=True, capture_output=True)
    failed = 0
    print(f"{'notebook':<34} {'seconds':>8} {'/ 300 s':>8} {'peak MB':>8} {'/ 2 GB':>7}")
    for slug in runner.available_slugs():
        for kept in (work / "cache").iterdir():  # the prepared models only
            if kept.name != "models":
                shutil.rmtree(kept) if kept.is_dir() else kept.unlink()
        run = run_fresh(ROOT / "notebooks" / f"{slug}.ipynb", work / f"{slug}.ipynb", env)
        over = run.seconds > BUDGET_S or run.peak_rss_mb > BUDGET_MB or run.error
        failed += bool(over)
        print(f"{slug:<34} {run.seconds:>8.0f} {run.seconds / BUDGET_S:>8.2f} "
              f"{run.peak_rss_mb:>8.0f} {run.peak_rss_mb / BUDGET_MB:>7.2f}"
              + (f"  OVER BUDGET {run.error or ''}"[:300] if over else ""))
    print(f"work folder: {work}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
