"""CONTRIBUTING's "Add a claim", followed to the letter: the example claim of
``tests/example_claim/`` is added to a copy of the repository by writing its package, its
notebook and its entries of ``data/checks.yaml``, ``data/references.yaml`` and
``notebooks/profiles.yaml``, and nothing else. The copy then plans its forward passes,
extracts them as the workflow's jobs do, runs its page with ``anisotropy run`` and grades
its check, with no other file of the repository touched.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import numpy as np
import pytest
import yaml
from conftest import ONE_THREAD, outside_data
from test_docstrings import problems

from anisotropy.inputs.datafiles import PROJECT_ROOT

EXAMPLE = Path(__file__).parent / "example_claim"
SLUG = "99-example-claim"
#: What a new claim writes, relative to the repository: its package, its notebook and three
#: entries (merged into those files).
WRITES = ("lib/anisotropy/claims/example/", f"notebooks/{SLUG}.ipynb", "data/checks.yaml",
          "data/references.yaml", "notebooks/profiles.yaml")



def merge_entries(path: Path, fragment: Path) -> None:
    """Write the top-level entries of the YAML ``fragment`` into the YAML file ``path`` as a
    contributor would by hand: a key the file lacks is appended, and the entries under a
    key it has (a profile) are inserted right below that key's line, comments kept."""
    text = path.read_text(encoding="utf-8")
    blocks: dict[str, list[str]] = {}
    key = None
    for line in fragment.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        if not line.startswith(" "):
            key = line.rstrip(":")
            blocks[key] = []
        else:
            blocks[key].append(line)
    lines = text.splitlines()
    for key, body in blocks.items():
        if f"{key}:" in lines:
            at = lines.index(f"{key}:") + 1
            lines[at:at] = body
        else:
            lines += [f"{key}:", *body]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def add_example_claim(clone: Path) -> None:
    """The recipe's steps, in a copy of the repository."""
    shutil.copytree(EXAMPLE / "example", clone / "lib/anisotropy/claims/example",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(EXAMPLE / f"{SLUG}.ipynb", clone / "notebooks" / f"{SLUG}.ipynb")
    merge_entries(clone / "data/checks.yaml", EXAMPLE / "checks.yaml")
    merge_entries(clone / "data/references.yaml", EXAMPLE / "references.yaml")
    merge_entries(clone / "notebooks/profiles.yaml", EXAMPLE / "profiles.yaml")


def _tracked_copy(target: Path) -> None:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=PROJECT_ROOT, capture_output=True,
                            text=True, check=True).stdout.split("\0")
    for name in filter(None, listed):
        if (PROJECT_ROOT / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(PROJECT_ROOT / name, target / name)


def _changed(clone: Path) -> set[str]:
    """Files of ``clone`` that differ from, or are missing in, the repository."""
    out = set()
    for path in clone.rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts:
            name = path.relative_to(clone).as_posix()
            original = PROJECT_ROOT / name
            if not original.is_file() or original.read_bytes() != path.read_bytes():
                out.add(name)
    return out


def _example_measure():
    spec = importlib.util.spec_from_file_location("example_measure",
                                                  EXAMPLE / "example" / "measure.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_example_formula_is_the_mean_over_pairs_of_different_copies():
    measure = _example_measure()
    rng = np.random.default_rng(0)
    unit = rng.normal(size=(7, 5)) + 0.5
    unit /= np.linalg.norm(unit, axis=1, keepdims=True)
    counts = np.array([[1, 1, 1, 1, 1, 1, 1], [2, 0, 1, 3, 0, 1, 0]])
    for w in counts:  # the reference: every pair of copies of two different sentences
        copies = np.repeat(np.arange(7), w)
        pairs = [(i, j) for i in copies for j in copies if i != j]
        expected = np.mean([unit[i] @ unit[j] for i, j in pairs])
        assert measure.weighted_pair_cosine(unit, w) == pytest.approx(expected)
    assert measure.weighted_pair_cosine(unit, counts) == pytest.approx(
        [measure.weighted_pair_cosine(unit, w) for w in counts])
    baseline = measure.sentence_baseline(unit, 200, 1)
    assert baseline.interval.low <= baseline.value <= baseline.interval.high
    assert baseline.details == {"sentences": 7}
    # an isotropic sample sits near zero, a shared direction far above it
    spread = rng.normal(size=(400, 50))
    spread /= np.linalg.norm(spread, axis=1, keepdims=True)
    assert abs(measure.weighted_pair_cosine(spread, np.ones(400))) < 0.01
    shared = spread + 2.0
    shared /= np.linalg.norm(shared, axis=1, keepdims=True)
    assert measure.weighted_pair_cosine(shared, np.ones(400)) > 0.9


def test_the_example_package_is_documented_as_the_library_is():
    """The recipe's package follows the library's numpydoc rule (``test_docstrings``)."""
    files = sorted((EXAMPLE / "example").glob("*.py"))
    assert len(files) == 5
    missing = [line for path in files for line in problems(path, EXAMPLE)]
    assert not missing, "\n".join(missing)


def test_merge_entries_appends_new_keys_and_fills_existing_ones(tmp_path):
    target, fragment = tmp_path / "file.yaml", tmp_path / "fragment.yaml"
    target.write_text("# head\nsmoke:\n  a:\n    n: 1\nfull:\n  a:\n    n: 2\n")
    fragment.write_text("# the example's\nsmoke:\n  b:\n    n: 3\nnew:\n  x: 1\n")
    merge_entries(target, fragment)
    assert yaml.safe_load(target.read_text()) == {
        "smoke": {"a": {"n": 1}, "b": {"n": 3}}, "full": {"a": {"n": 2}}, "new": {"x": 1}}
    assert target.read_text().startswith("# head\n")


@pytest.fixture(scope="module")
def example_run(tmp_path_factory, mirrored_data):
    """A copy of the repository's tracked files with the example claim added, its plan, its
    extraction and its run (each a subprocess of the copy's own library)."""
    base = tmp_path_factory.mktemp("example-claim")
    clone = base / "clone"
    _tracked_copy(clone)
    add_example_claim(clone)
    env = {**os.environ, **ONE_THREAD, **outside_data(mirrored_data[0]),
           "PYTHONPATH": str(clone / "lib"), "ANISOTROPY_BUILD": str(base / "build"),
           "ANISOTROPY_CACHE": str(base / "cache")}

    def anisotropy(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "anisotropy", *args], cwd=clone, env=env,
                              capture_output=True, text=True, timeout=900)

    plan = anisotropy("plan", "--profile", "smoke", "--claim", SLUG)
    assert plan.returncode == 0, plan.stderr[-3000:]
    jobs = [line.split("\t")[1].split(" ")[0] for line in plan.stdout.splitlines()
            if line.startswith(f"{SLUG}\t")]
    extracted = [anisotropy("extract", job, "--profile", "smoke", "--claim", SLUG)
                 for job in jobs]
    run = anisotropy("run", SLUG, "--profile", "smoke")
    assert run.returncode == 0, run.stderr[-3000:]
    results = json.loads((base / "build/smoke/results" / f"{SLUG}.json").read_text())
    return {"clone": clone, "jobs": jobs, "extracted": extracted, "results": results,
            "notebook": base / "build/smoke/executed" / f"{SLUG}.ipynb"}


#: The repository's own tests that read every claim (its layout, declaration, checks and
#: references, profiles, numpydoc, notebook and Colab cell, mutations, parameters): run on
#: the copy, they pass with the example added and nothing else changed. The other claims'
#: parametrized cases are left out (they pass in this checkout); what a claim records by
#: script after the recipe (its smoke bands, its full verdicts) is not among them.
REPOSITORY_TESTS = ("tests/test_layout.py", "tests/test_declaration.py",
                    "tests/test_docstrings.py", "tests/test_checks.py",
                    "tests/test_settings.py", "tests/test_launch.py", "tests/test_mutate.py",
                    "tests/test_notebook_text.py", "tests/test_runner_params.py")
OTHER_CLAIMS = " and ".join(f"not {n:02d}-" for n in range(1, 7))


@pytest.mark.notebooks
def test_the_recipe_writes_the_claims_own_files_only(example_run):
    changed = _changed(example_run["clone"])
    assert changed and all(name.startswith(WRITES) for name in changed), changed


@pytest.mark.notebooks
def test_the_repositorys_own_tests_pass_with_the_example_added(example_run, mirrored_data):
    clone = example_run["clone"]
    env = {**os.environ, **ONE_THREAD, **outside_data(mirrored_data[0]),
           "PYTHONPATH": str(clone / "lib")}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x",
         "-m", "not notebooks and not book and not workflow and not slow",
         "-k", f"99-example-claim or ({OTHER_CLAIMS})",
         "--deselect", "tests/test_layout.py::test_geometry_never_imports_torch",
         *REPOSITORY_TESTS], cwd=clone, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-4000:]
    assert "99-example-claim" in subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "--collect-only", "-p", "no:cacheprovider",
         "tests/test_settings.py"], cwd=clone, env=env, capture_output=True,
        text=True).stdout  # the parametrized tests do see the example


@pytest.mark.notebooks
def test_the_plan_lists_the_example_claims_forward_passes_and_extracts_them(example_run):
    assert example_run["jobs"] and all(".pooled-last." in job for job in example_run["jobs"])
    for done in example_run["extracted"]:
        assert done.returncode == 0, done.stderr[-3000:]


@pytest.mark.notebooks
def test_the_example_claim_is_graded_with_its_scope(example_run):
    checks = {c["check"]: c for c in example_run["results"]["checks"]}
    assert set(checks) == {"sentence-baseline-positive", "closest-pair"}
    graded = checks["sentence-baseline-positive"]
    low, high = graded["interval"]
    assert low <= graded["measured"] <= high
    # MiniLM is a sentence encoder, outside Ethayarajh's masked and causal LMs
    assert graded["verdict"] in {"reproduced", "not reproduced", "inconclusive"}
    assert graded["scope"] == "generalisation"
    assert checks["closest-pair"]["verdict"] == "finding"


@pytest.mark.notebooks
def test_the_page_shows_the_verdict_and_the_forest_plot(example_run):
    notebook = nbformat.read(example_run["notebook"], as_version=4)
    glued = {}
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            record = output.get("metadata", {}).get("scrapbook", {})
            if record.get("name"):  # myst-nb's glue: mimetypes under the record's prefix
                glued[record["name"]] = {key.removeprefix(record["mime_prefix"]): value
                                         for key, value in output["data"].items()}
    assert {"verdict_matrix", "verdict_table", "forest_plot", "n_sentences"} <= set(glued)
    assert "Sentence vectors share a direction" in glued["verdict_table"]["text/html"]
    assert "image/png" in glued["forest_plot"]
