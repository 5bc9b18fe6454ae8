"""Rerun the smoke profile under perturbations and seeds; write ``tests/expected/smoke.yaml``.

A CPU other than the one that recorded the expected numbers sums floats in another order
(kernels, instruction sets, thread counts). A closed-form quantity of cached vectors moves
by little; a trained or randomly initialised one (K-means, flows, classifiers, fine-tuning)
moves like another seed. Each check declares which it is (``spread`` in
``data/checks.yaml``), and its CI band comes from the matching distribution:

- ``platform`` checks: the runs of seed 0 under the platform perturbations below, on every
  machine recorded so far;
- ``seed`` checks: those runs and the runs of training seeds 1 to ``N_SEEDS - 1`` on the
  sample of seed 0 (``-p train_seed=N``: other K-means starts, flows, classifiers and
  fine-tuning runs, the sentences, pairs and words unchanged). The sample's own spread is
  not a CPU's: it belongs in the checks' intervals, not in CI's bands.

Each band is the range of the values seen, widened on each side by
``max(k * range, 0.01 * |median|, 0.001)`` and clipped to the quantity's declared bounds.
The factor ``k`` is the smallest of ``MARGIN_FACTORS`` under which every run falls inside
the bands recorded from the others (leave-one-out, printed); the file says which ``k`` and
what the leave-one-out found. Bands cover every graded check's measured value and both ends
of its interval, and every numeric value of a finding; a value that is text is listed under
``unbanded`` with that reason.

A verdict is pinned only where the interval bands cannot reach another verdict (neither
end's band straddles the threshold); otherwise the file lists every verdict the bands can
reach, and the test accepts any of them.

Perturbations (as far as each library honours them):

============== =========================================================================
baseline       the machine as it is (2 threads here, as in CI)
threads-1      OMP/MKL/OpenBLAS and torch on 1 thread
threads-2      the same on 2 threads
isa-default    ``ATEN_CPU_CAPABILITY=default`` (torch's portable kernels)
isa-avx2       ``ATEN_CPU_CAPABILITY=avx2 ONEDNN_MAX_CPU_ISA=AVX2 OPENBLAS_CORETYPE=Haswell
               MKL_ENABLE_INSTRUCTIONS=AVX2``
isa-avx512     ``ATEN_CPU_CAPABILITY=avx512 MKL_ENABLE_INSTRUCTIONS=AVX512
               OPENBLAS_CORETYPE=SkylakeX``: the AVX-512 paths (on an AMD Zen 4 they are the
               default of torch and OpenBLAS, and MKL keeps its AVX2 path: as baseline there)
mkl-compatible ``MKL_CBWR=COMPATIBLE``: MKL's portable kernels, whose float sums differ
               from its AVX2 path's (torch's matrix products on an AMD CPU go through MKL's
               AVX2 path whatever ``MKL_ENABLE_INSTRUCTIONS`` says; on an Intel CPU MKL takes
               its AVX-512 path, which no variable here reaches)
train-1 ...    ``-p train_seed=N``: other initializations of what is trained, same sample
============== =========================================================================

Runs are named ``MACHINE/PERTURBATION``, MACHINE from the CPU that made them. Values seen on
other machines are kept from the previous file (its ``seen`` entries), so the bands cover
every CPU recorded so far.

Usage (never in CI; see CONTRIBUTING.md)::

    .venv/bin/python scripts/record_smoke_bands.py                  # everything
    .venv/bin/python scripts/record_smoke_bands.py --only baseline train-3
    .venv/bin/python scripts/record_smoke_bands.py --write-only     # from finished runs
    .venv/bin/python scripts/record_smoke_bands.py --fresh          # other CPUs' values dropped
    .venv/bin/python scripts/record_smoke_bands.py --fresh 04-cluster-isotropy   # of one claim

Runs are kept under ``_build/perturb/NAME`` and skipped when their results exist, so an
interrupted recording resumes. Training seeds run only for the claims that declare a ``seed``
check. Runs of sample seeds (``seed-N``) that an earlier recording archived are dropped.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))

from anisotropy.book.runner import SLUGS  # noqa: E402
from anisotropy.report.checks import GRADED, load_checks  # noqa: E402
from anisotropy.report.provenance import cpu  # noqa: E402


def _beside(name: str):
    """``scripts/NAME.py`` as a module, from its file (``scripts/`` is never put on
    ``sys.path``, where ``scripts/coverage.py`` would shadow the ``coverage`` package)."""
    spec = importlib.util.spec_from_file_location(f"{name}_script", Path(__file__).parent
                                                  / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


result_values = _beside("result_values")
THREADS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")
PLATFORM: dict[str, dict] = {
    "baseline": {},
    "threads-1": dict.fromkeys(THREADS, "1"),
    "threads-2": dict.fromkeys(THREADS, "2"),
    "isa-default": {"ATEN_CPU_CAPABILITY": "default"},
    "isa-avx2": {"ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2",
                 "OPENBLAS_CORETYPE": "Haswell", "MKL_ENABLE_INSTRUCTIONS": "AVX2"},
    "isa-avx512": {"ATEN_CPU_CAPABILITY": "avx512", "MKL_ENABLE_INSTRUCTIONS": "AVX512",
                   "OPENBLAS_CORETYPE": "SkylakeX"},
    "mkl-compatible": {"MKL_CBWR": "COMPATIBLE"},
}
N_SEEDS = 5  # training seed 0 (every platform run) and training seeds 1..4
TRAINING = "train-"  # a run under another training seed: train-1, train-2, ...
PERTURBATIONS = [*PLATFORM, *(f"{TRAINING}{s}" for s in range(1, N_SEEDS))]
MARGIN_FACTORS = (0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0)
WORK = ROOT / "_build" / "perturb"
EXPECTED = ROOT / "tests" / "expected" / "smoke.yaml"
# runs of the file before machine names were recorded: the AMD EPYC build machine's
LEGACY_MACHINE = "amd-epyc"


def machine_tag(model: str, isa: list[str]) -> str:
    """``intel-xeon-amx``, ``amd-epyc``: the CPU vendor and family, and AMX where present."""
    words = re.sub(r"\(R\)|\(TM\)|processor|cpu|@.*", " ", model, flags=re.IGNORECASE).split()
    tag = "-".join(w.lower() for w in words[:2]) or "cpu"
    return tag + ("-amx" if "amx_tile" in isa else "")


def run_perturbation(name: str, slugs: list[str]) -> dict[str, float]:
    """Run the smoke profile of ``slugs`` under one perturbation; returns seconds per slug."""
    env_extra, params = {}, []
    if name.startswith(TRAINING):
        params = ["-p", f"train_seed={int(name.removeprefix(TRAINING))}"]
        slugs = [s for s in slugs if any(c.spread == "seed" for c in load_checks(s).values())]
    else:
        env_extra = PLATFORM[name]
    base = WORK / name
    # a training seed reuses the baseline's cached vectors: it redraws no sample and no
    # forward pass, and what it trains is cached under its own seed
    cache = (WORK / "baseline" if name.startswith(TRAINING) else base) / "cache"
    env = {**os.environ, **env_extra, "ANISOTROPY_CACHE": str(cache),
           "ANISOTROPY_BUILD": str(base / "build")}
    seconds = {}
    for slug in slugs:
        if _result_path(name, slug) is not None:
            continue
        start = time.perf_counter()
        command = [str(ROOT / ".venv" / "bin" / "anisotropy"), "run", slug, "--profile",
                   "smoke", *params]
        print(f"[{name}] {' '.join(command[1:])}", flush=True)
        subprocess.run(command, env=env, check=True, cwd=ROOT)
        seconds[slug] = round(time.perf_counter() - start, 1)
    return seconds


def _result_path(name: str, slug: str) -> Path | None:
    for directory in ("build/smoke/results", "build/results"):  # the layout before profiles
        path = WORK / name / directory / f"{slug}.json"
        if path.is_file():
            return path
    return None


def load_local_runs() -> dict[str, dict[str, dict]]:
    """``{MACHINE/perturbation: {slug: results record}}`` of the finished local runs."""
    here = cpu()
    runs: dict[str, dict[str, dict]] = {}
    for name in PERTURBATIONS:
        for slug in SLUGS:
            path = _result_path(name, slug)
            if path is None:
                continue
            record = json.loads(path.read_text())
            where = (record.get("environment") or {}).get("cpu") or here
            tag = machine_tag(where.get("model", ""), where.get("isa", []))
            runs.setdefault(f"{tag}/{name}", {})[slug] = record
    return runs


#: The run name of a results folder copied from another machine's ``make test`` (seed 0, no
#: perturbation, one thread per notebook as ``smoke_runs`` starts them).
IMPORTED_RUN = "ci"


def load_imported_runs(folders: list[Path], slugs: list[str], run: str = IMPORTED_RUN
                       ) -> dict[str, dict[str, dict]]:
    """``{MACHINE/RUN: {slug: results record}}`` of smoke results measured on other machines
    (``../shared/measured/NAME/SLUG.json``), named from the CPU in each record's
    environment block and ``run`` (default ``ci``; another name, ``ci-167``, for a second
    machine whose CPU names the same tag). They count as that machine's platform runs of
    seed 0.

    Raises
    ------
    ValueError
        A folder holding no results of ``slugs``, or a record that is not a plain seed-0
        smoke run (another profile, a seed, overrides), which would band the wrong thing.
    """
    runs: dict[str, dict[str, dict]] = {}
    for folder in folders:
        found = 0
        for slug in slugs:
            path = Path(folder) / f"{slug}.json"
            if not path.is_file():
                continue
            record = json.loads(path.read_text())
            seed = (record.get("parameters") or {}).get("seed", 0)
            if record.get("profile") != "smoke" or seed != 0 or record.get("overrides"):
                raise ValueError(
                    f"{path}: profile {record.get('profile')!r}, seed {seed!r}, overrides "
                    f"{record.get('overrides')!r}; only a plain smoke run of seed 0 (as "
                    "make test runs it) can be imported as a platform run")
            where = (record.get("environment") or {}).get("cpu")
            if not where or not where.get("model"):
                raise ValueError(f"{path}: its environment block names no CPU, so the "
                                 "machine it ran on cannot be named")
            tag = machine_tag(where["model"], where.get("isa", []))
            runs.setdefault(f"{tag}/{run}", {})[slug] = record
            found += 1
        if not found:
            raise ValueError(f"{folder}: no results file of {slugs} (SLUG.json) in it")
    return runs


# ----------------------------------------------------------------------------- values


def _numeric(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) \
        and math.isfinite(value)


def check_values(check: dict) -> tuple[dict[tuple, float], dict[tuple, str]]:
    """The banded values of one check record, by path below the check (``("measured",)``,
    ``("interval", 0)``, ``("measured", KEY)``), and the values left unbanded, with why."""
    values, unbanded = {}, {}
    measured = check.get("measured")
    if _numeric(measured):
        values[("measured",)] = float(measured)
    elif isinstance(measured, dict):
        for key, value in measured.items():
            if _numeric(value):
                values[("measured", key)] = float(value)
            elif value is not None:
                unbanded[("measured", key)] = "text, not a number: shown, not compared"
    elif measured is not None:
        unbanded[("measured",)] = "text, not a number: shown, not compared"
    if check.get("interval"):
        for end in (0, 1):
            if _numeric(check["interval"][end]):
                values[("interval", end)] = float(check["interval"][end])
    return values, unbanded


def band(values: list[float], bounds: tuple[float, float], factor: float) -> list[float]:
    """The range seen, widened by ``max(factor * range, 0.01 * |median|, 0.001)`` each side,
    clipped to the quantity's bounds."""
    array = np.asarray(values, dtype=float)
    low, high = float(array.min()), float(array.max())
    margin = max(factor * (high - low), 0.01 * abs(float(np.median(array))), 0.001)
    return [round(max(low - margin, bounds[0]), 6), round(min(high + margin, bounds[1]), 6)]


def reachable_verdicts(low_band, high_band, spec) -> list[str]:
    """Every verdict an interval can get with its low end in ``low_band`` and its high end
    in ``high_band``, against the check's threshold (or an equivalence check's margin): the
    verdict is monotone in each end, so the band ends and the points around each edge are
    enough."""
    edges = spec.edges

    def candidates(lo, hi):
        points = {lo, hi}
        for edge in edges:
            delta = 1e-9 * max(1.0, abs(edge))
            points.update(p for p in (edge - delta, edge, edge + delta) if lo <= p <= hi)
        return points

    seen = {spec.verdict([low, high])
            for low in candidates(*low_band) for high in candidates(*high_band) if low <= high}
    return sorted(seen)


#: Verdicts a run records from its sample (a floor of the statistic), not from where its
#: interval falls: the bands cannot say which others it could reach.
NOT_FROM_THE_INTERVAL = ("sample too small",)


def regraded(check: dict, spec) -> str:
    """A run's verdict against the checks as declared now: a graded verdict read from the
    interval is read again with the current threshold or margin, so that a threshold changed
    since the run (a quantity unchanged) is recorded without rerunning. Declared verdicts
    (exempt, control, not run, finding) and those not read from the interval stay."""
    verdict = check["verdict"]
    if (spec is None or verdict not in GRADED or verdict in NOT_FROM_THE_INTERVAL
            or not check.get("interval") or spec.kind not in ("graded", "equivalence")
            or (spec.comparator is None and spec.margin is None)):
        return verdict
    return spec.verdict(check["interval"])


def is_seed_run(run: str) -> bool:
    """A run under another training seed (``MACHINE/train-N``)."""
    return run.split("/")[-1].startswith(TRAINING)


def is_sample_run(run: str) -> bool:
    """A run of another sample seed (``MACHINE/seed-N``), recorded by this script before the
    two seeds were split: it moved the sample too, so its values are not a CPU's spread."""
    return run.split("/")[-1].startswith("seed-")


def collect(runs: dict[str, dict[str, dict]], archived: dict[str, dict]) -> dict:
    """Per claim: the checks' specs, verdicts per run, and values per (check, path) per run
    (archived values from other machines included)."""
    out = {}
    for slug in SLUGS:
        per_run = {name: records[slug] for name, records in runs.items() if slug in records}
        if not per_run:
            continue
        specs = load_checks(slug)
        entry = {"runs": set(per_run), "verdicts": {}, "values": {}, "unbanded": {},
                 "checks": {}}
        for name, record in per_run.items():
            for check in record["checks"]:
                entry["checks"][check["id"]] = check
                spec = specs.get(check["check"])
                entry["verdicts"].setdefault(check["id"], {})[name] = regraded(check, spec)
                values, unbanded = check_values(check)
                if spec is not None:  # a run from before the bounds were declared as now:
                    # its graded value and interval as grading would clip them today
                    for path in [("measured",), ("interval", 0), ("interval", 1)]:
                        if path in values:
                            values[path] = min(max(values[path], spec.bounds[0]),
                                               spec.bounds[1])
                for path, value in values.items():
                    entry["values"].setdefault((check["id"], *path), {})[name] = value
                for path, why in unbanded.items():
                    entry["unbanded"][(check["id"], *path)] = why
        for key, seen in archived.get(slug, {}).items():
            if key == VERDICTS:
                entry["archived_verdicts"] = seen
                continue
            if key in entry["values"]:
                for name, value in seen.items():
                    entry["values"][key].setdefault(name, value)
                    entry["runs"].add(name)
        entry["specs"] = specs
        out[slug] = entry
    return out


def relevant(seen: dict[str, float], spread: str) -> dict[str, float]:
    """The runs a band is made of: seed-0 runs for platform checks, all runs for seed ones."""
    return seen if spread == "seed" else {k: v for k, v in seen.items() if not is_seed_run(k)}


def value_band(entry: dict, key: tuple, values: list[float], spec, factor: float) -> list:
    """The band of one value: :func:`band` at the largest margin factor for a value the
    leave-one-out cannot band (see :func:`widen_unbandable`), else at ``factor``."""
    if key in entry.get("wide", {}):
        return band(values, spec.bounds, MARGIN_FACTORS[-1])
    return band(values, spec.bounds, factor)


def leave_one_out(collected: dict, factor: float, failed: set | None = None) -> list[str]:
    """What would have failed: each run against the bands (and reachable verdicts) recorded
    from the other runs. ``failed`` collects the ``(slug, key)`` of the values that fail."""
    failures = []
    for slug, entry in collected.items():
        wide = entry.get("wide", {})
        for key, seen in entry["values"].items():
            spec = entry["specs"][key[0].split(":")[0]]
            values = relevant(seen, spec.spread)
            if len(values) < 2 or (failed is None and key in wide):
                continue  # a widened value fails at every factor: reported as widened
            for name, value in values.items():
                others = [v for k, v in values.items() if k != name]
                low, high = value_band(entry, key, others, spec, factor)
                if not low <= value <= high:
                    if failed is not None:
                        failed.add((slug, key))
                    failures.append(f"{slug}: {'/'.join(map(str, key))} = {value:.6g} on {name} "
                                    f"left [{low:.6g}, {high:.6g}] from the other runs")
        for check_id, verdicts in entry["verdicts"].items():
            spec = entry["specs"][check_id.split(":")[0]]
            lows = entry["values"].get((check_id, "interval", 0))
            highs = entry["values"].get((check_id, "interval", 1))
            if (spec.comparator is None and spec.margin is None) or not lows or not highs or (
                    failed is None and {(check_id, "interval", 0),
                                        (check_id, "interval", 1)} & set(wide)):
                continue
            lows, highs = relevant(lows, spec.spread), relevant(highs, spec.spread)
            for name, verdict in verdicts.items():
                if verdict not in GRADED or verdict in NOT_FROM_THE_INTERVAL or (
                        name not in lows) or (
                        spec.spread == "platform" and is_seed_run(name)):
                    continue  # exempt and control are declared, not measured
                rest_low = [v for k, v in lows.items() if k != name]
                rest_high = [v for k, v in highs.items() if k != name]
                if not rest_low or not rest_high:
                    continue
                allowed = reachable_verdicts(
                    value_band(entry, (check_id, "interval", 0), rest_low, spec, factor),
                    value_band(entry, (check_id, "interval", 1), rest_high, spec, factor),
                    spec)
                if verdict not in allowed:
                    failures.append(f"{slug}: {check_id} is {verdict!r} on {name}; the other "
                                    f"runs' bands reach only {allowed}")
    return failures


def expected_from(collected: dict, factor: float) -> dict:
    """The expected-results document."""
    out = {}
    for slug, entry in collected.items():
        doc = {"runs": sorted(entry["runs"]), "verdicts": {}, "bands": [],
               "unbanded": [{"path": ["checks", *key], "why": why}
                            for key, why in sorted(entry["unbanded"].items())],
               "widened": [{"path": ["checks", *key], "why": why}
                           for key, why in sorted(entry.get("wide", {}).items())]}
        bands, items = {}, {}
        for key, seen in entry["values"].items():
            spec = entry["specs"][key[0].split(":")[0]]
            values = relevant(seen, spec.spread)
            if not values:
                continue
            bands[key] = value_band(entry, key, list(values.values()), spec, factor)
            items[key] = {"path": ["checks", *key], "spread": spec.spread, "band": bands[key],
                          "seen": {k: round(v, 6) for k, v in sorted(values.items())}}
            doc["bands"].append(items[key])
        for check_id, verdicts in entry["verdicts"].items():
            spec = entry["specs"][check_id.split(":")[0]]
            low, high = (bands.get((check_id, "interval", end)) for end in (0, 1))
            graded = set(verdicts.values()) <= set(GRADED) - set(NOT_FROM_THE_INTERVAL)
            if spec.kind in ("graded", "equivalence") and graded and low and high:
                allowed = reachable_verdicts(low, high, spec)
                key = (check_id, "measured")
                side = pinned_side(relevant(entry["values"].get(key, {}), spec.spread),
                                   bands.get(key), spec)
                if side is not None:
                    clipped, far = side
                    bands[key][:] = clipped
                    allowed = [v for v in allowed if v != far]
                    items[key]["side"] = (f"every run on the side of {spec.threshold:g} that "
                                          f"excludes {far!r}, its mean {SIDE_SDS:g} or more "
                                          "SDs away: the band stops at the threshold")
            else:  # declared verdicts: those of the runs now and of the archived runs
                allowed = sorted(set(verdicts.values())
                                 | set(entry.get("archived_verdicts", {}).get(check_id, ())))
            doc["verdicts"][check_id] = allowed[0] if len(allowed) == 1 else allowed
        for name in ("unbanded", "widened"):
            if not doc[name]:
                del doc[name]
        out[slug] = doc
    return out


#: A side is pinned when the runs' mean lies this many of their standard deviations or more
#: from the threshold (a run of another CPU on the far side then has a normal tail
#: probability of about 0.1%).
SIDE_SDS = 3.0


def pinned_side(seen: dict[str, float], value_band: list[float] | None, spec):
    """``(clipped band, the far verdict)`` of a graded value whose band straddles its
    threshold while every run lies on one side, :data:`SIDE_SDS` standard deviations or more
    away; None otherwise (an equivalence check, too few runs, a band that excludes the
    threshold already, or runs on both sides). The clipped band stops at the threshold, so a
    sign flip (or any move across it) turns CI red, and the far verdict is not allowed."""
    if spec.margin is not None or spec.comparator is None or value_band is None \
            or len(seen) < 3:
        return None
    threshold = float(spec.threshold)
    low, high = value_band
    if not low < threshold < high:
        return None
    values = np.asarray(list(seen.values()), dtype=float)
    spread = float(values.std(ddof=1))
    if abs(float(values.mean()) - threshold) < SIDE_SDS * spread:
        return None
    above = spec.comparator in (">", ">=")  # the reproduced side is above the threshold
    if (values > threshold).all():
        return [threshold, high], "not reproduced" if above else "reproduced"
    if (values < threshold).all():
        return [low, threshold], "reproduced" if above else "not reproduced"
    return None


def widen_unbandable(collected: dict) -> list[str]:
    """Band every value that fails the leave-one-out even at the largest margin factor by
    the range of all its runs widened at that largest factor, and say so. Such a value sits
    at one place in most runs and elsewhere in a few (an interval end clipped to its bound
    unless two seeds happen to agree; a neighbour search on the one run of another CPU
    vendor): no margin of the others' range covers the odd run, and without this one value
    would force the largest margin on every band. Its band still excludes a sign flip or a
    halving of a value away from 0, where the quantity's declared range (what such values
    had before) let anything pass. Returns what was widened."""
    failed: set = set()
    leave_one_out(collected, MARGIN_FACTORS[-1], failed)
    widened = []
    for slug, key in sorted(failed, key=str):
        entry = collected[slug]
        entry.setdefault("wide", {})[key] = (
            f"fails the leave-one-out at every margin factor up to {MARGIN_FACTORS[-1]:g}: "
            f"banded by the range of every run widened by {MARGIN_FACTORS[-1]:g} times it")
        widened.append(f"{slug}: {'/'.join(map(str, key))}")
    return widened


#: The key under which :func:`archived_values` returns a claim's archived verdicts.
VERDICTS = ("__verdicts__",)


def _check_numbers(check: dict) -> tuple:
    return (check.get("verdict"), check.get("measured"), check.get("interval"),
            json.dumps(check.get("details"), sort_keys=True))


def still_current(imported: dict, reference: dict, now: dict) -> dict:
    """The part of an imported record that today's code still computes: each check, and
    each top-level metric, whose value this machine's ``reference`` run (made with the code
    the imported run was made with) and its run ``now`` agree on, bit for bit. A check or a
    metric that an intended change moved on this machine has an imported value from the old
    method, which would band the new one with a number it no longer produces; it is left
    out (the other machine is recorded again when its runs are redone)."""
    same_checks = unchanged(reference, now)[1]
    metrics_now, metrics_then = now.get("metrics") or {}, reference.get("metrics") or {}
    same_metrics = {k for k in metrics_now if k in metrics_then and json.dumps(
        metrics_now[k], sort_keys=True) == json.dumps(metrics_then[k], sort_keys=True)}
    return {**imported,
            "checks": [c for c in imported.get("checks", []) if c["id"] in same_checks],
            "metrics": {k: v for k, v in (imported.get("metrics") or {}).items()
                        if k in same_metrics}}


def unchanged(reference: dict, now: dict) -> tuple[set[tuple], set[str], set[tuple]]:
    """What an intended change left as it was, on this machine: ``reference`` is a baseline
    run made with the code before it, ``now`` one made with today's. Returns the check
    values' keys ``(check id, *path)`` (:func:`check_values`) equal bit for bit in both, the
    ids of the checks whose every number and verdict is equal, and the page values' keys
    (:func:`result_values.flatten`) equal in both. Another machine's value archived under
    a key outside these was measured by the old method: it would band the new one with a
    number today's code no longer produces."""
    then = {c["id"]: c for c in reference.get("checks", [])}
    keys, ids = set(), set()
    for check in now.get("checks", []):
        old = then.get(check["id"])
        if old is None:
            continue
        values_now, values_then = check_values(check)[0], check_values(old)[0]
        keys |= {(check["id"], *path) for path, value in values_now.items()
                 if values_then.get(path) == value}
        if _check_numbers(check) == _check_numbers(old):
            ids.add(check["id"])
    flat_now, flat_then = result_values.flatten(now), result_values.flatten(reference)
    page = {key for key, value in flat_now.items() if flat_then.get(key) == value}
    return keys, ids, page


def current_archive(archived: dict, keys: set[tuple], ids: set[str]) -> dict:
    """The part of one claim's archived values (:func:`archived_values`) that today's code
    still computes: the values under ``keys`` and the archived verdicts of the checks
    ``ids``, both from :func:`unchanged`."""
    out = {key: seen for key, seen in archived.items() if key != VERDICTS and key in keys}
    if VERDICTS in archived:
        out[VERDICTS] = {c: v for c, v in archived[VERDICTS].items() if c in ids}
    return out


def archived_values(path: Path, local_runs: dict[str, dict]) -> dict[str, dict]:
    """``{slug: {(check, *path): {run: value}}}`` of the previous file's values seen on
    runs that are not local: other machines, and this machine's runs of the claims that
    have no local run now (a recording of one claim keeps every other claim's values).
    Under :data:`VERDICTS`, each such claim's allowed verdicts by check, which keep the
    declared verdicts (finding, control) of archived runs that no band decides.

    ``local_runs`` is :func:`load_local_runs`' ``{run: {slug: record}}``."""
    if not path.is_file():
        return {}
    local = {name: set(records) for name, records in local_runs.items()}
    previous = yaml.safe_load(path.read_text()) or {}
    out: dict[str, dict] = {}
    for slug, entry in previous.items():
        if any(slug not in local.get(name, ()) for name in entry.get("runs", [])):
            # the verdicts the file allowed, for the verdicts no interval decides
            out.setdefault(slug, {})[VERDICTS] = {
                check_id: allowed if isinstance(allowed, list) else [allowed]
                for check_id, allowed in (entry.get("verdicts") or {}).items()}
        for item in entry.get("bands", []):
            key = tuple(item["path"][1:])
            for name, value in (item.get("seen") or {}).items():
                name = name if "/" in name else f"{LEGACY_MACHINE}/{name}"
                if slug not in local.get(name, ()) and not is_sample_run(name):
                    out.setdefault(slug, {}).setdefault(key, {})[name] = float(value)
    return out


def kept_entries(path: Path, recorded: set[str]) -> dict[str, dict]:
    """The previous file's entries of the claims not recorded now, unchanged, each with the
    margin factor it was recorded with (``margin_factor``; from the file's header for a
    file written before entries carried it), so that recording one claim leaves the others'
    bands as they were."""
    if not path.is_file():
        return {}
    text = path.read_text(encoding="utf-8")
    previous = yaml.safe_load(text) or {}
    match = re.search(r"max\(([0-9.]+) \* range", text)
    factor = float(match.group(1)) if match else None
    out = {}
    for slug, entry in previous.items():
        if slug not in recorded:
            out[slug] = {**entry, "margin_factor": entry.get("margin_factor", factor)}
    return out


def write(document: dict, path: Path, factor: float, report: list[str]) -> None:
    header = (
        "# Expected smoke-profile results, written by scripts/record_smoke_bands.py (see its\n"
        "# docstring and CONTRIBUTING.md). Runs are MACHINE/PERTURBATION. A check's band comes\n"
        "# from its `spread` (data/checks.yaml): `platform` from the seed-0 runs under\n"
        "# platform perturbations on every machine recorded; `seed` from those and training\n"
        f"# seeds 1-{N_SEEDS - 1} on the same sample (`-p train_seed=N`: a trained or randomly\n"
        "# initialised quantity moves like another training seed on another CPU).\n"
        "# Band: the range seen widened by max(k * range, 0.01 * |median|, 0.001) on each side,\n"
        "# clipped to the quantity's bounds; k is each claim's `margin_factor`, the smallest\n"
        "# under which every run falls inside the bands of the others (leave-one-out). A claim\n"
        "# recorded alone keeps the others' entries as they were. This recording: k = "
        f"{factor:g}, leave-one-out " + ("no failure" if not report else
                                         f"{len(report)} failures") + ".\n"
        "# A value under `widened` fails that leave-one-out at every factor (it sits at one\n"
        "# place in most runs and elsewhere in a few): its band is the range of every run\n"
        f"# widened by {MARGIN_FACTORS[-1]:g} times that range (or the floor) on each side.\n"
        "# A verdict is pinned only where the interval bands reach no other verdict; a list\n"
        "# is every verdict they can reach. Re-record after an intended change and say why in\n"
        "# the commit message.\n")
    path.write_text(header + yaml.safe_dump(document, sort_keys=False, width=100),
                    encoding="utf-8")


def record_values(runs: dict[str, dict[str, dict]], factors: dict[str, float],
                  path: Path = result_values.EXPECTED_VALUES,
                  current: dict[str, set[tuple]] | None = None) -> list[str]:
    """Write ``tests/expected/smoke-values.json``: every value the pages show beyond the
    checks' (:mod:`result_values`), per claim of ``factors`` (its margin factor ``k``),
    banded from every run but the sample seeds' (platform runs and training seeds), values
    from runs of the previous file that are not here now kept. A number some run of which
    falls outside the others' band at ``k`` (leave-one-out) is banded at the largest factor
    and listed under ``widened``. Claims not in ``factors`` keep their previous entry.
    ``current`` (``{slug: keys}``, :func:`unchanged`'s page keys) keeps, of a claim's values
    from earlier runs, only those under these keys. Returns one line per claim for the
    report."""
    previous = json.loads(path.read_text()) if path.is_file() else {}
    out, report = {}, []
    for slug in SLUGS:
        here = {name: records[slug] for name, records in runs.items()
                if slug in records and not is_sample_run(name)}
        if slug not in factors or not here:
            if slug in previous:
                out[slug] = previous[slug]
            continue
        # the values' structure from this machine's runs; another machine's run adds its
        # numbers where it has them (an import leaves out what today's code computes
        # differently: still_current)
        local = {name: r for name, r in here.items()
                 if not name.split("/")[-1].startswith(IMPORTED_RUN)}
        values = result_values.structure(local or here)
        for name, record in here.items():
            if name in local:
                continue
            flat = result_values.flatten(record)
            for key, seen in values["numbers"].items():
                if flat.get(key, ("",))[0] == "number":
                    seen[name] = flat[key][1]
        old = previous.get(slug) or {}
        for raw, _, seen in old.get("numbers", []):
            key = tuple(raw)
            for name, value in zip(old["runs"], seen, strict=True):
                if key in values["numbers"] and name not in here and value is not None \
                        and not is_sample_run(name) \
                        and (current is None or slug not in current or key in current[slug]):
                    values["numbers"][key][name] = value
        names = sorted({n for seen in values["numbers"].values() for n in seen} | set(here))
        factor = factors[slug]

        def banded(seen, k):
            return band(seen, (-math.inf, math.inf), k)

        widened = result_values.leave_one_out(values["numbers"], banded, factor)
        out[slug] = result_values.document(
            values["numbers"], values["texts"], values["exact"], values["unbanded"], names,
            banded, factor, MARGIN_FACTORS[-1], widened)
        report.append(f"{slug}: {len(values['numbers'])} numbers ({len(widened)} widened), "
                      f"{len(values['texts'])} texts, {len(values['exact'])} exact, "
                      f"{len(values['unbanded'])} declared unbanded, from {len(names)} runs")
    path.write_text(json.dumps(out, indent=None, separators=(",", ":"), ensure_ascii=False)
                    .replace('},"', '},\n"').replace('],[', '],\n[') + "\n",
                    encoding="utf-8")
    return report


def guarded(document: dict) -> dict[str, tuple[int, int]]:
    """``{spread: (guarded, graded)}`` over the graded checks of an expected-results
    document: a check is guarded when CI turns red on a move of its value across the
    threshold (its verdict pinned, or its measured value's band on one side of every edge),
    so that no wrong number on the far side can pass."""
    counts: dict[str, list[int]] = {}
    for slug, entry in document.items():
        specs = load_checks(slug)
        bands = {tuple(item["path"][1:]): item for item in entry["bands"]}
        for check_id, allowed in entry["verdicts"].items():
            allowed = allowed if isinstance(allowed, list) else [allowed]
            spec = specs[check_id.split(":")[0]]
            if spec.kind not in ("graded", "equivalence") or not set(allowed) <= set(GRADED):
                continue
            item = bands.get((check_id, "measured"))
            if item is None:
                continue
            low, high = item["band"]
            one_side = not any(low < edge < high for edge in spec.edges)
            count = counts.setdefault(spec.spread, [0, 0])
            count[1] += 1
            count[0] += int(len(allowed) == 1 or one_side)
    return {spread: (c[0], c[1]) for spread, c in counts.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="+", choices=PERTURBATIONS, default=PERTURBATIONS)
    parser.add_argument("--slugs", nargs="+", choices=list(SLUGS), default=list(SLUGS))
    parser.add_argument("--write-only", action="store_true",
                        help="skip running; write the file from the runs already finished")
    parser.add_argument("--out", type=Path, default=EXPECTED)
    parser.add_argument("--import-runs", nargs="+", type=Path, default=[], metavar="FOLDER",
                        help="results folders of smoke runs made on other machines (e.g. "
                             "../shared/measured/smoke-intel-xeon-207): each one more "
                             "machine's platform run of seed 0, for the claims of --slugs")
    parser.add_argument("--import-name", default=IMPORTED_RUN, metavar="RUN",
                        help="the run name of the imported runs (default ci): another, such "
                             "as ci-167, keeps a second machine of the same CPU tag apart")
    parser.add_argument("--imported-reference", type=Path, metavar="FOLDER",
                        help="this machine's baseline results made with the code the imported "
                             "runs were made with: an imported check or metric is kept only "
                             "where that run and today's baseline agree (still_current)")
    parser.add_argument("--archived-reference", type=Path, metavar="FOLDER",
                        help="this machine's baseline results made with the code the file's "
                             "archived values were made with: of the claims of --slugs, "
                             "another machine's archived value is kept only where that run "
                             "and today's baseline agree (unchanged)")
    parser.add_argument("--fresh", nargs="*", metavar="SLUG", default=None,
                        help="drop the values the previous file archived from other machines "
                             "(after an intended change that moves the numbers they measured): "
                             "of the claims named, or of every claim with no name")
    args = parser.parse_args(argv)
    if not args.write_only:
        for name in args.only:
            seconds = run_perturbation(name, args.slugs)
            print(f"[{name}] seconds per claim: {seconds}", flush=True)
    # the claims recorded now, and only those: a claim recorded alone keeps its own k
    runs = {name: kept for name, records in load_local_runs().items()
            if (kept := {slug: r for slug, r in records.items() if slug in args.slugs})}
    baseline = next((records for name, records in runs.items()
                     if name.endswith("/baseline")), {})
    for name, records in load_imported_runs(args.import_runs, args.slugs,
                                            args.import_name).items():
        if name in runs:
            raise SystemExit(f"{name} is both a local run and an imported one")
        if args.imported_reference is not None:
            for slug, record in list(records.items()):
                reference = json.loads((args.imported_reference / f"{slug}.json").read_text())
                records[slug] = still_current(record, reference, baseline[slug])
                dropped = len(record["checks"]) - len(records[slug]["checks"])
                print(f"{name} {slug}: {dropped} of {len(record['checks'])} checks and "
                      f"{len(record.get('metrics') or {}) - len(records[slug]['metrics'])} "
                      "metrics left out (changed since the import's code)")
        runs[name] = records
    archived = archived_values(EXPECTED, runs)
    current = None
    if args.archived_reference is not None:
        current = {}
        for slug in args.slugs:
            reference = json.loads((args.archived_reference / f"{slug}.json").read_text())
            before = sum(len(seen) for k, seen in archived.get(slug, {}).items()
                         if k != VERDICTS)
            keys, ids, current[slug] = unchanged(reference, baseline[slug])
            archived[slug] = current_archive(archived.get(slug, {}), keys, ids)
            after = sum(len(seen) for k, seen in archived[slug].items() if k != VERDICTS)
            print(f"{slug}: {before - after} of {before} archived values left out (changed "
                  "since the archive's code)")
    if args.fresh is not None:
        archived = {slug: seen for slug, seen in archived.items()
                    if args.fresh and slug not in args.fresh}
    collected = collect(runs, archived)
    for line in widen_unbandable(collected):
        print(f"widened to its declared range (no margin bands it): {line}")
    chosen, report = MARGIN_FACTORS[-1], []
    for factor in MARGIN_FACTORS:
        report = leave_one_out(collected, factor)
        print(f"leave-one-out with margin factor {factor:g}: {len(report)} failures")
        for line in report:
            print("   ", line)
        if not report:
            chosen = factor
            break
    document = expected_from(collected, chosen)
    for entry in document.values():
        entry["margin_factor"] = chosen
    kept = kept_entries(EXPECTED, set(document))
    document = {slug: document.get(slug) or kept[slug] for slug in SLUGS
                if slug in document or slug in kept}
    for slug in kept:
        print(f"kept from the previous file (no local run): {slug}")
    write(document, args.out, chosen, report)
    for spread, (kept, graded) in sorted(guarded(document).items()):
        print(f"guarded {spread} checks: {kept} of {graded} ({100 * kept / graded:.0f}%)")
    if args.out == EXPECTED:
        factors = {slug: document[slug]["margin_factor"] for slug in collected}
        for line in record_values(runs, factors, current=current):
            print(f"values: {line}")
    names = sorted({n for e in collected.values() for n in e["runs"]})
    print(f"wrote {args.out} (margin factor {chosen:g}) from runs: {names}")
    return 0 if not report else 1


if __name__ == "__main__":
    raise SystemExit(main())
