"""Checks and the results JSON: one schema for every claim, written by one helper.

A claim notebook creates a :class:`Results`, records models, free-form metrics and checks,
and calls :meth:`Results.write`, which produces ``_build/results/SLUG.json``::

    {claim, profile, parameters, models, data_sha256, library_version, runtime_s,
     metrics, checks: [{id, statement, paper, measured, tolerance, passed, verdict,
                        model, section}]}

The ledger page, the regression tests and the book all read these files; nothing
recomputes a number. Reference numbers from the papers are read with :func:`reference`
from the one file ``data/references.yaml``.
"""

from __future__ import annotations

import json
import math
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from . import __version__
from .data import PROJECT_ROOT, verified_files

__all__ = ["Check", "Results", "VERDICTS", "glue", "ranges_text", "results_dir",
           "load_results", "reference", "references"]

VERDICTS = ("reproduced", "not reproduced", "partly", "finding", "not run")
REFERENCES_FILE = PROJECT_ROOT / "data" / "references.yaml"


def results_dir() -> Path:
    """Where results JSONs go: ``$ANISOTROPY_RESULTS_DIR`` or ``_build/results``."""
    path = Path(os.environ.get("ANISOTROPY_RESULTS_DIR", PROJECT_ROOT / "_build" / "results"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating, float)):
        value = float(value)
        return None if math.isnan(value) else value
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.ndarray):
        return _jsonable(value.tolist())
    if hasattr(value, "to_dict"):
        return _jsonable(value.to_dict())
    return value


@dataclass
class Check:
    """One claim check: the paper's statement and number beside this run's measurement.

    ``verdict`` is derived from ``passed`` unless given: True gives "reproduced", False
    "not reproduced"; "partly", "finding" (recorded, not asserted) and "not run" are set
    explicitly.
    """

    id: str
    statement: str
    paper: str
    measured: Any
    tolerance: str
    passed: bool | None
    verdict: str = ""
    model: str = ""
    section: str = ""

    def __post_init__(self) -> None:
        if not self.verdict:
            if self.passed is None:
                raise ValueError(f"Check {self.id!r}: passed=None needs an explicit verdict.")
            self.verdict = "reproduced" if self.passed else "not reproduced"
        if self.verdict not in VERDICTS:
            raise ValueError(f"Check {self.id!r}: verdict {self.verdict!r} not in {VERDICTS}.")
        if self.passed is not None:
            self.passed = bool(self.passed)


@dataclass
class Results:
    """Collects a claim notebook's results and writes the results JSON."""

    claim: str
    parameters: dict
    profile: str = ""
    models: list = field(default_factory=list)
    metrics: dict = field(default_factory=dict)
    checks: list = field(default_factory=list)
    started: float = field(default_factory=time.perf_counter)

    def __post_init__(self) -> None:
        self.profile = self.profile or os.environ.get("ANISOTROPY_PROFILE", "custom")

    def add_model(self, model) -> None:
        """Record a loaded model (an Encoder/StaticVectors or its ResolvedModel)."""
        resolved = getattr(model, "resolved", model)
        record = resolved.describe()
        if record not in self.models:
            self.models.append(record)

    def metric(self, name: str, value: Any) -> Any:
        """Record a free-form metric (numbers, tables as dicts) and return the value."""
        self.metrics[name] = _jsonable(value)
        return value

    def check(self, id: str, statement: str, paper: str, measured: Any, tolerance: str,
              passed: bool | None, *, verdict: str = "", model: str = "",
              section: str = "") -> Check:
        """Record a check; ids must be unique within a claim."""
        if any(c.id == id for c in self.checks):
            raise ValueError(f"Duplicate check id {id!r}.")
        check = Check(id, statement, paper, _jsonable(measured), tolerance, passed, verdict,
                      model, section)
        self.checks.append(check)
        return check

    def to_dict(self) -> dict:
        return {
            "claim": self.claim,
            "profile": self.profile,
            "parameters": _jsonable(self.parameters),
            "models": self.models,
            "data_sha256": verified_files(),
            "library_version": __version__,
            "runtime_s": round(time.perf_counter() - self.started, 2),
            "metrics": self.metrics,
            "checks": [asdict(c) for c in self.checks],
        }

    def write(self, directory: str | Path | None = None) -> Path:
        """Write ``SLUG.json`` atomically and return its path."""
        directory = Path(directory) if directory else results_dir()
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"{self.claim}.json"
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(self.to_dict(), indent=1))
        os.replace(tmp, path)
        return path


def load_results(directory: str | Path | None = None) -> dict[str, dict]:
    """All results JSONs of a directory, by claim slug, each flagged ``stale`` when it was
    written by another library version."""
    directory = Path(directory) if directory else results_dir()
    out = {}
    for path in sorted(directory.glob("*.json")):
        record = json.loads(path.read_text())
        record["stale"] = record.get("library_version") != __version__
        out[record["claim"]] = record
    return out


def references() -> dict:
    """The papers' reference numbers (``data/references.yaml``), each with its source."""
    with open(REFERENCES_FILE, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def reference(*keys: str) -> Any:
    """One entry of the references file by path, e.g. ``reference("claim4", "sst2")``."""
    node = references()
    for key in keys:
        if not isinstance(node, dict) or key not in node:
            raise KeyError(f"No reference {'/'.join(keys)!r} in {REFERENCES_FILE}.")
        node = node[key]
    return node


def glue(name: str, value: Any, display: bool = False) -> Any:
    """myst-nb ``glue`` for prose numbers, with numpy scalars turned into Python ones.

    (A glued ``np.float64`` is stored as the text ``np.float64(...)``, which ``{glue:text}``
    cannot format.) Figures and other objects pass through unchanged.
    """
    from myst_nb import glue as myst_glue  # noqa: PLC0415

    if isinstance(value, np.generic):
        value = value.item()
    myst_glue(name, value, display=display)
    return value


def ranges_text(numbers) -> str:
    """``[3, 4, 5, 9, 11, 12]`` -> ``"3–5, 9, 11–12"``: layer lists for prose."""
    values = sorted({int(n) for n in numbers})
    if not values:
        return "none"
    parts, start, previous = [], values[0], values[0]
    for value in values[1:] + [None]:
        if value is not None and value == previous + 1:
            previous = value
            continue
        parts.append(f"{start}–{previous}" if previous > start else f"{start}")
        if value is not None:
            start = previous = value
    return ", ".join(parts)
