"""Every value a claim's page shows, by path, banded from recorded runs and compared by CI.

``tests/expected/smoke.yaml`` bands each check's measured value and interval. This module
covers the rest of a results record (``build/PROFILE/results/SLUG.json``): every
``results.metric(...)`` value (the per-layer curves and tables the pages draw), every check's
``details``, and measured values that are text. A record is flattened into leaves by path
(:func:`flatten`):

- a number is banded like a check's value (:func:`band` of ``record_smoke_bands``: the range
  seen over the runs, widened by ``max(k * range, 1% of |median|, 0.001)``), from every run
  recorded: the platform perturbations and the training seeds on the fixed sample. A value
  no training seed moves (a closed form of the sample) therefore keeps the platform floor,
  and a trained one gets its training-seed spread;
- a text is compared exactly, after the numbers in it are taken out and banded as numbers
  (``"-0.77 -> -0.09"`` is the text ``"# -> #"`` and two numbers);
- ``None``, a boolean or a non-finite number is compared exactly;
- the length of every list is a number too, so a table that loses a row turns CI red.

What cannot be compared is declared with its reason, never dropped silently: values of the
environment (timings, versions, devices: :data:`ENVIRONMENT_KEYS`), a list whose length or
a table whose keys differ between the recorded runs (the layers where K > 1, one row per
cluster: the quantity is discontinuous, and the curve it comes from is banded), and a text
whose numbers' layout differs between runs.

Used by ``scripts/record_smoke_bands.py`` (which writes ``tests/expected/smoke-values.json``)
and by ``tests/test_notebooks.py`` (which compares every smoke run of ``make test``).
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np

#: Keys whose values describe the environment of a run, not its result.
ENVIRONMENT_KEYS = frozenset({"seconds", "seconds per seed", "tokens_per_second", "runtime_s",
                              "library_version", "device", "torch", "transformers", "notes",
                              "fingerprint", "path"})
#: A number inside a text: an optional sign, digits with optional thousands separators, an
#: optional fraction and exponent.
NUMBER = re.compile(r"(?<![\w.])-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?")
LENGTH = "#len"
EXPECTED_VALUES = Path(__file__).resolve().parents[1] / "tests" / "expected" / \
    "smoke-values.json"


def split_text(text: str) -> tuple[str, list[float]]:
    """``(layout, numbers)``: the text with each number replaced by ``#``, and the numbers.

    >>> split_text("-17.39 → -2.03 over 5,000 pairs")
    ('# → # over # pairs', [-17.39, -2.03, 5000.0])
    """
    numbers = [float(m.group().replace(",", "")) for m in NUMBER.finditer(text)]
    return NUMBER.sub("#", text), numbers


def _walk(value, path: tuple, out: dict) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            _walk(item, (*path, str(key)), out)
    elif isinstance(value, list):
        out[(*path, LENGTH)] = ("number", float(len(value)))
        for index, item in enumerate(value):
            _walk(item, (*path, index), out)
    elif path and path[-1] in ENVIRONMENT_KEYS:
        out[path] = ("environment", None)
    elif isinstance(value, bool) or value is None:
        out[path] = ("exact", json.dumps(value))
    elif isinstance(value, (int, float)):
        out[path] = ("number", float(value)) if math.isfinite(value) else \
            ("exact", repr(float(value)))
    elif isinstance(value, str):
        layout, numbers = split_text(value)
        out[path] = ("text", layout)
        for index, number in enumerate(numbers):
            out[(*path, f"#{index}")] = ("number", number)
    else:
        raise TypeError(f"{'/'.join(map(str, path))}: a {type(value).__name__} in a results "
                        "record")


def flatten(record: dict) -> dict[tuple, tuple[str, object]]:
    """``{path: (kind, value)}`` of the record's metrics, each check's details, and each
    check's measured value where it is text (a number there is smoke.yaml's). ``kind`` is
    ``number``, ``text`` (the layout of :func:`split_text`), ``exact`` (JSON of None, a
    boolean; repr of a non-finite number) or ``environment``."""
    out: dict[tuple, tuple[str, object]] = {}
    _walk(record.get("metrics") or {}, ("metrics",), out)
    for check in record.get("checks", []):
        base = ("checks", check["id"])
        if check.get("details") is not None:
            _walk(check["details"], (*base, "details"), out)
        measured = check.get("measured")
        if isinstance(measured, str):
            _walk(measured, (*base, "measured"), out)
        elif isinstance(measured, dict):
            for key, value in measured.items():
                if isinstance(value, str) or value is None:
                    _walk(value, (*base, "measured", str(key)), out)
    return out


def _varying_prefix(path: tuple, flats: list[dict]) -> tuple | None:
    """The shortest prefix of ``path`` whose structure differs between runs: a list whose
    length differs, or a table (dict) whose keys differ; None when there is none."""
    for size in range(1, len(path)):
        prefix = path[:size]
        lengths = {flat.get((*prefix, LENGTH)) for flat in flats}
        if len(lengths) > 1 and any(length is not None for length in lengths):
            return prefix
        children = {frozenset(p[size] for p in flat if len(p) > size and p[:size] == prefix)
                    for flat in flats}
        if len(children) > 1:
            return prefix
    return None


def structure(runs: dict[str, dict]) -> dict:
    """The recorded values of one claim's runs, ``{name: results record}``: ``numbers``
    ``{path: {run: value}}``, ``texts`` and ``exact`` ``{path: value}`` (the same in every
    run), and ``unbanded`` ``{path or prefix: why}``."""
    flats = {name: flatten(record) for name, record in runs.items()}
    every = list(flats.values())
    paths = set().union(*every)
    numbers, texts, exact, unbanded = {}, {}, {}, {}
    for path in sorted(paths, key=lambda p: tuple(map(str, p))):
        if any(path[:len(prefix)] == prefix for prefix in unbanded if len(prefix) < len(path)):
            continue
        kinds = {flat[path][0] for flat in every if path in flat}
        if not all(path in flat for flat in every):
            prefix = _varying_prefix(path, every) or path
            unbanded[prefix] = (
                "differs in length or keys between the recorded runs (a discontinuous "
                "quantity: one row per cluster, the layers where K > 1); its length is banded "
                "where it is a list, and the values it comes from are compared where the "
                "page shows them as numbers")
            continue
        if kinds == {"environment"}:
            unbanded[path] = "environment (a timing, a version, a device), not a result"
        elif kinds == {"number"}:
            numbers[path] = {name: flat[path][1] for name, flat in flats.items()}
        elif len(kinds) == 1 and len({flat[path][1] for flat in every}) == 1:
            (texts if kinds == {"text"} else exact)[path] = every[0][path][1]
        elif kinds == {"text"}:
            unbanded[path] = ("a text whose layout differs between the recorded runs (it lists "
                              "values that change, such as the K of each layer); those values "
                              "are compared where the page shows them as numbers")
        else:
            unbanded[path] = (f"a value that is {sorted(kinds)} or differs between the recorded "
                              "runs where it is not a number (None in some runs)")
    # values below a prefix found to vary later in the walk (or numbers inside a text left
    # unbanded) go with it
    def kept(values: dict) -> dict:
        return {p: v for p, v in values.items()
                if not any(p[:len(q)] == q for q in unbanded if len(q) < len(p))}

    numbers, texts, exact = kept(numbers), kept(texts), kept(exact)
    return {"numbers": numbers, "texts": texts, "exact": exact, "unbanded": unbanded}


def leave_one_out(numbers: dict[tuple, dict[str, float]], band, factor: float) -> set[tuple]:
    """The paths of the numbers some run of which falls outside the band of the others at
    ``factor`` (``band(values, factor)``)."""
    failed = set()
    for path, seen in numbers.items():
        if len(seen) < 2:
            continue
        values = np.asarray(list(seen.values()), dtype=float)
        if np.ptp(values) == 0:
            continue
        for index, value in enumerate(values):
            low, high = band(np.delete(values, index).tolist(), factor)
            if not low <= value <= high:
                failed.add(path)
                break
    return failed


def document(numbers: dict, texts: dict, exact: dict, unbanded: dict, runs: list[str],
             band, factor: float, wide_factor: float, widened: set) -> dict:
    """One claim's entry of ``smoke-values.json``: paths as lists, each number's band and
    the values seen (in the order of ``runs``; null for a run that did not record it)."""
    def key(path):
        return tuple(map(str, path))

    return {
        "runs": runs, "margin_factor": factor,
        "numbers": [[list(path), band(list(seen.values()),
                                      wide_factor if path in widened else factor),
                     [None if seen.get(name) is None else round(seen[name], 9) for name in runs]]
                    for path, seen in sorted(numbers.items(), key=lambda i: key(i[0]))],
        "widened": [list(path) for path in sorted(widened, key=key)],
        "texts": [[list(path), value] for path, value in sorted(texts.items(),
                                                                key=lambda i: key(i[0]))],
        "exact": [[list(path), value] for path, value in sorted(exact.items(),
                                                                key=lambda i: key(i[0]))],
        "unbanded": [[list(path), why] for path, why in sorted(unbanded.items(),
                                                               key=lambda i: key(i[0]))],
    }


def compare(record: dict, expected: dict) -> list[str]:
    """What in ``record`` differs from one claim's entry of ``smoke-values.json``: a number
    outside its band, a text or exact value that changed, a value with no entry and no
    declared reason (a page shows something new: re-record), and an entry the run lacks."""
    flat = flatten(record)
    problems = []
    prefixes = [tuple(p) for p, _ in expected["unbanded"]]

    def declared(path):
        return any(path[:len(p)] == p for p in prefixes)

    known = set()
    for raw, (low, high), _ in expected["numbers"]:
        path = tuple(raw)
        known.add(path)
        kind, value = flat.get(path, (None, None))
        if kind != "number":
            problems.append(f"{'/'.join(map(str, path))}: expected a number in [{low}, {high}], "
                            f"the run has {value!r}")
        elif not low <= value <= high:
            problems.append(f"{'/'.join(map(str, path))} = {value:.6g} left [{low}, {high}]")
    for name in ("texts", "exact"):
        for raw, expected_value in expected[name]:
            path = tuple(raw)
            known.add(path)
            kind, value = flat.get(path, (None, None))
            if value != expected_value:
                problems.append(f"{'/'.join(map(str, path))}: {value!r}, expected "
                                f"{expected_value!r}")
    for path, (kind, _) in flat.items():
        if path not in known and not declared(path):
            problems.append(f"{'/'.join(map(str, path))}: a {kind} with no band and no "
                            "declared reason; re-record (scripts/record_smoke_bands.py)")
    return problems
