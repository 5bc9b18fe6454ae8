"""Claim notebooks: stored clean, declared parameters, smoke runs as regression tests.

The smoke runs go through `anisotropy.book.runner.run`, the same path as `anisotropy run`. Each
check's verdict must match the one recorded in ``tests/expected/smoke.yaml`` (so a check the
book states as reproduced fails CI when it stops passing), and key numbers must stay inside
their recorded bands. When a value moves on purpose, update the file in the same commit and
say why in the message.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import nbformat
import pytest
import yaml
from project_scripts import load_script

from anisotropy.book import runner
from anisotropy.book.expected import estimates_outside_intervals

EXPECTED = yaml.safe_load((Path(__file__).parent / "expected" / "smoke.yaml").read_text())
#: Every other value the pages show (metrics, details, text), scripts/result_values.py
VALUES = json.loads((Path(__file__).parent / "expected" / "smoke-values.json").read_text())
result_values = load_script("result_values")
SLUGS = runner.available_slugs()


@pytest.mark.parametrize("slug", SLUGS)
def test_notebook_stored_without_outputs(slug):
    notebook = nbformat.read(runner.NOTEBOOKS_DIR / f"{slug}.ipynb", as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, slug


@pytest.mark.parametrize("slug", SLUGS)
def test_one_parameters_cell_fully_parsed(slug):
    notebook = nbformat.read(runner.NOTEBOOKS_DIR / f"{slug}.ipynb", as_version=4)
    tagged = [c for c in notebook.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1
    assignments = [line for line in tagged[0].source.splitlines()
                   if line and not line.startswith((" ", "#", "]", ")"))]
    # papermill silently drops lines it cannot parse; every assignment must be declared
    assert len(runner.declared_parameters(slug)) == len(assignments)


def test_bad_slug_profile_and_parameter():
    with pytest.raises(runner.RunError, match="Unknown claim 'nope'.*choose one of"):
        runner.run("nope")
    slug = SLUGS[0]
    with pytest.raises(runner.RunError, match="Unknown profile 'huge'.*'full', 'paper', 'smoke'"):
        runner.run(slug, "huge")
    with pytest.raises(runner.RunError, match=r"'no_such' is not a parameter of this claim"):
        runner.run(slug, "smoke", {"no_such": 1})
    with pytest.raises(runner.RunError, match="NAME=VALUE"):
        runner.parse_overrides(["model"])
    assert runner.parse_overrides(["n=5", "models=[a, b]", "name=gpt2"]) == {
        "n": 5, "models": ["a", "b"], "name": "gpt2"}


@pytest.mark.parametrize("source, message", [
    ("raise ValueError('broken')", r"source cell 1 .*raise ValueError.*ValueError: broken"),
    ("values = [1, 2]\n\ndef check(v):\n    return v[5]\n\ntotal = sum(values)\n"
     "missing = check(values)\nprint(total)",
     r"source cell 1 \('values = \[1, 2\]'\), line 7 \('missing = check\(values\)'\) "
     r"failed with IndexError"),
])
def test_failing_notebook_names_the_cell_and_line(source, message, tmp_path, monkeypatch):
    notebook = nbformat.v4.new_notebook()
    parameters = nbformat.v4.new_code_cell("profile = 'smoke'\noverrides = {}")
    parameters.metadata["tags"] = ["parameters"]
    notebook.cells = [parameters, nbformat.v4.new_code_cell(source)]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                       "language": "python"}
    nbformat.write(notebook, tmp_path / "01-layerwise-anisotropy.ipynb")
    monkeypatch.setattr(runner, "NOTEBOOKS_DIR", tmp_path)
    monkeypatch.setattr(runner, "BUILD_DIR", tmp_path / "build")
    with pytest.raises(runner.RunError, match=message):
        runner.run("01-layerwise-anisotropy", "smoke")


def test_kernel_environment_is_set_and_restored(tmp_path, monkeypatch):
    """The kernel inherits the results dir, the profile and the allocator settings; a value
    the user set wins; the runner's own environment is restored afterwards."""
    import papermill

    seen = {}

    def fake_execute(source, output, **kwargs):
        seen.update({k: os.environ.get(k) for k in
                     ("ANISOTROPY_PROFILE", "MALLOC_MMAP_MAX_", "MALLOC_TRIM_THRESHOLD_")})
        Path(os.environ["ANISOTROPY_RESULTS_DIR"], "01-layerwise-anisotropy.json").write_text("{}")
        Path(output).write_text("{}")

    monkeypatch.setattr(papermill, "execute_notebook", fake_execute)
    monkeypatch.setattr(runner, "BUILD_DIR", tmp_path / "build")
    monkeypatch.delenv("MALLOC_MMAP_MAX_", raising=False)
    monkeypatch.delenv("ANISOTROPY_PROFILE", raising=False)
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "12345")
    runner.run("01-layerwise-anisotropy", "smoke")
    assert seen == {"ANISOTROPY_PROFILE": "smoke", "MALLOC_MMAP_MAX_": "0",
                    "MALLOC_TRIM_THRESHOLD_": "12345"}
    assert "MALLOC_MMAP_MAX_" not in os.environ and "ANISOTROPY_PROFILE" not in os.environ
    assert os.environ["MALLOC_TRIM_THRESHOLD_"] == "12345"


def _lookup(record, path):
    """Follow a band path; ``["checks", ID, FIELD, ...]`` looks a check up by its id."""
    node = record
    if path[0] == "checks":
        matches = [c for c in record["checks"] if c["id"] == path[1]]
        assert matches, f"no check {path[1]!r} in the results"
        node, path = matches[0], path[2:]
    for key in path:
        node = node[key]
    return node


def _banded_paths(check: dict) -> set[tuple]:
    """The paths of a check record that must have a band: measured and both interval ends
    of a check with an interval, and every value of a finding (a number, or a dict's; a
    None, such as chapter 6's onset layer when no layer reaches the threshold, is shown and
    not compared, as scripts/record_smoke_bands.py leaves it)."""
    paths = set()
    measured = check.get("measured")
    if isinstance(measured, dict):  # a None (no value in this run) is not a number, as below
        paths.update(("measured", key) for key, value in measured.items() if value is not None)
    elif measured is not None:
        paths.add(("measured",))
    if check.get("interval"):
        paths.update({("interval", 0), ("interval", 1)})
    return paths


def _covered(expected: dict) -> set[tuple]:
    """Paths (check id first) that have a band or a declared reason for having none."""
    covered = {tuple(band["path"][1:]) for band in expected["bands"]}
    covered.update(tuple(item["path"][1:]) for item in expected.get("unbanded", []))
    return covered


def _expected(slug: str) -> dict:
    """The smoke expectations recorded for ``slug``; a claim with none fails, saying how to
    record them."""
    assert slug in EXPECTED, (f"{slug} has no recorded smoke expectations in "
                              "tests/expected/smoke.yaml: record them with "
                              f"scripts/record_smoke_bands.py --slugs {slug} (CONTRIBUTING.md)")
    return EXPECTED[slug]


@pytest.mark.parametrize("slug", SLUGS)
def test_every_graded_number_has_a_band(slug):
    """Completeness, without running anything: every check the file grades has bands on its
    measured value and both ends of its interval, from the distribution its `spread`
    declares; and no interval band straddles the threshold of a verdict it pins."""
    from anisotropy.report.checks import load_checks

    expected = _expected(slug)
    specs = load_checks(slug)
    bands = {tuple(b["path"][1:]): b for b in expected["bands"]}
    graded = ("reproduced", "not reproduced", "inconclusive")
    for check_id, verdict in expected["verdicts"].items():
        allowed = verdict if isinstance(verdict, list) else [verdict]
        spec = specs[check_id.split(":")[0]]
        if not set(allowed) <= set(graded):
            continue
        for path in (("measured",), ("interval", 0), ("interval", 1)):
            band = bands.get((check_id, *path))
            assert band, (f"{slug}: {check_id} has no band for {'/'.join(map(str, path))}; "
                          "re-record tests/expected/smoke.yaml (scripts/record_smoke_bands.py)")
            assert band["spread"] == spec.spread, (
                f"{slug}: {check_id}'s band was recorded as {band['spread']} but "
                f"data/checks.yaml declares spread {spec.spread}; re-record")
        if len(allowed) == 1:  # a pinned verdict: no interval band straddles an edge
            # the threshold, or an equivalence check's margin ends inside the bounds
            edges = spec.edges
            for end in (0, 1):
                low, high = bands[(check_id, "interval", end)]["band"]
                for edge in edges:
                    assert not low < edge < high, (
                        f"{slug}: {check_id} is pinned to {allowed[0]!r} but its interval "
                        f"band [{low}, {high}] straddles {edge}")


@pytest.mark.notebooks
@pytest.mark.parametrize("slug", SLUGS)
def test_smoke_run_verdicts_and_bands(slug, smoke_runs):
    """Verdicts and numbers against tests/expected/smoke.yaml, which
    scripts/record_smoke_bands.py wrote from reruns under platform perturbations (on every
    machine recorded) and eight seeds: a pinned verdict must hold, a listed set of verdicts
    must contain the verdict, every band must contain its number, and every number of the
    run must have a band (or a declared reason for none)."""
    record = smoke_runs[slug]
    expected = _expected(slug)
    verdicts = {check["id"]: check["verdict"] for check in record["checks"]}
    assert set(verdicts) == set(expected["verdicts"]), (
        f"{slug}: the set of checks changed; re-record tests/expected/smoke.yaml")
    for check_id, verdict in verdicts.items():
        allowed = expected["verdicts"][check_id]
        allowed = allowed if isinstance(allowed, list) else [allowed]
        assert verdict in allowed, (f"{slug}: {check_id} is {verdict!r}, expected one of "
                                    f"{allowed}; if on purpose, re-record smoke.yaml")
    for check in record["checks"]:
        if check["verdict"] in ("reproduced", "not reproduced", "inconclusive"):
            low, high = check["interval"]
            assert low <= high and check["reference"]
            if check.get("margin"):  # an equivalence check: graded against its margin
                assert check["comparator"] is None and any(
                    isinstance(e, float) for e in check["margin"])
            else:
                assert check["comparator"] in ("<", "<=", ">", ">=")
                assert isinstance(check["threshold"], float)
    covered = _covered(expected)
    for check in record["checks"]:
        for path in _banded_paths(check):
            assert (check["id"], *path) in covered, (
                f"{slug}: {check['id']}/{'/'.join(map(str, path))} has no band and no "
                "declared reason; re-record tests/expected/smoke.yaml")
    outside = []
    for band in expected["bands"]:
        value = _lookup(record, band["path"])
        low, high = band["band"]
        if not low <= value <= high:
            outside.append(f"{'/'.join(map(str, band['path'][1:]))} = {value:.6g} left "
                           f"[{low}, {high}] ({band['spread']} band)")
    assert not outside, f"{slug}: " + "; ".join(outside)
    assert record["library_version"]
    assert record["data_sha256"], "no data file recorded"
    assert record["models"], "no model recorded"


@pytest.mark.parametrize("slug", SLUGS)
def test_every_value_of_the_pages_is_recorded(slug):
    """Without running anything: the claim has an entry in smoke-values.json, every band
    holds the values it was recorded from, and the values not compared say why."""
    entry = VALUES[slug]
    assert entry["numbers"], f"{slug}: no number recorded; re-record"
    for path, (low, high), seen in entry["numbers"]:
        assert low <= high, (slug, path)
        inside = [v for v in seen if v is not None]
        assert inside and all(low <= v <= high for v in inside), (
            f"{slug}: {path}'s band [{low}, {high}] leaves a value it was recorded from")
    for path, why in entry["unbanded"]:
        assert why.strip(), (slug, path)


@pytest.mark.notebooks
@pytest.mark.parametrize("slug", SLUGS)
def test_every_interval_holds_its_estimate(slug, smoke_runs):
    """Every graded number of the smoke run lies inside its own 95% interval (the full
    build's are checked by test_full_verdicts.py and `anisotropy verdicts`)."""
    outside = estimates_outside_intervals({slug: smoke_runs[slug]})
    assert not outside, "\n".join(outside)


@pytest.mark.notebooks
@pytest.mark.parametrize("slug", SLUGS)
def test_smoke_run_values(slug, smoke_runs):
    """Every value of the page beyond the checks' (each results.metric value, each check's
    details, text) against tests/expected/smoke-values.json: numbers in their bands, texts
    and exact values equal, nothing new without a band or a declared reason."""
    problems = result_values.compare(smoke_runs[slug], VALUES[slug])
    assert not problems, (f"{slug}: {len(problems)} values differ from "
                          "tests/expected/smoke-values.json:\n" + "\n".join(problems[:40]))


@pytest.mark.notebooks
@pytest.mark.slow
def test_claim1_verdicts_do_not_depend_on_the_seed(smoke_runs, tmp_path, monkeypatch):
    """A rerun with another seed (other sentences, other random pairs) never turns a
    reproduced check into a not-reproduced one or back; inconclusive is allowed either way."""
    slug = "01-layerwise-anisotropy"
    monkeypatch.setattr(runner, "BUILD_DIR", tmp_path)
    runner.run(slug, "smoke", {"seed": 1})
    other = json.loads((tmp_path / "smoke" / "results" / f"{slug}.json").read_text())
    first = {c["id"]: c["verdict"] for c in smoke_runs[slug]["checks"]}
    flipped = {c["id"]: (first[c["id"]], c["verdict"]) for c in other["checks"]
               if {first[c["id"]], c["verdict"]} == {"reproduced", "not reproduced"}}
    assert not flipped, flipped
