"""scripts/mutate.py, the mutation test of the library: its mutations apply to the current
code and compile, name known claims and library files only; its parsing of pytest's output
and its report; and the ``smoke_runs`` fixture's hook that reads a folder of results files
instead of running the notebooks. Nothing is run here (no pytest, no notebook)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import results_from_folder
from project_scripts import load_script

from anisotropy.book import runner

mutate = load_script("mutate")


def test_at_least_sixteen_mutations_with_unique_names():
    names = [m.name for m in mutate.MUTATIONS]
    assert len(names) >= 16
    assert len(set(names)) == len(names)
    assert all(name == name.lower() and " " not in name for name in names)


def test_every_mutation_applies_once_and_compiles():
    """The ``--check`` logic: ``old`` occurs exactly once in its file (so the code it
    mutates is still there) and the mutated file compiles."""
    assert mutate.check_mutations(mutate.MUTATIONS) == []
    for m in mutate.MUTATIONS:
        original = m.original()
        mutated = m.apply(original)
        assert mutated != original and m.new in mutated, m.name


def test_check_names_what_does_not_apply(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "a.py").write_text("x = 1\nx = 1\ny = 2\n")
    broken = [mutate.Mutation("twice", "lib/a.py", "x = 1", "x = 2", (mutate.C1,), "w"),
              mutate.Mutation("absent", "lib/a.py", "z = 3", "z = 4", (mutate.C1,), "w"),
              mutate.Mutation("syntax", "lib/a.py", "y = 2", "y = (", (mutate.C1,), "w"),
              mutate.Mutation("missing", "lib/b.py", "y", "z", (mutate.C1,), "w"),
              mutate.Mutation("fine", "lib/a.py", "y = 2", "y = 3", (mutate.C1,), "w"),
              mutate.Mutation("fine", "lib/a.py", "y = 2", "y = 4", (mutate.C1,), "w")]
    problems = mutate.check_mutations(broken, tmp_path)
    assert any(p.startswith("twice:") and "2 times" in p for p in problems)
    assert any(p.startswith("absent:") and "0 times" in p for p in problems)
    assert any(p.startswith("syntax:") and "does not compile" in p for p in problems)
    assert any(p.startswith("missing:") and "does not exist" in p for p in problems)
    assert any(p == "fine: the name is used twice" for p in problems)
    assert len(problems) == 5
    assert mutate.main(["--check", "--only", mutate.MUTATIONS[0].name]) == 0


def test_claims_are_known_slugs_and_files_are_the_library():
    assert mutate.ALL_CLAIMS == runner.SLUGS
    root = Path(mutate.ROOT)
    covered = set()
    for m in mutate.MUTATIONS:
        assert m.claims and set(m.claims) <= set(runner.SLUGS), m.name
        assert list(m.claims) == [s for s in runner.SLUGS if s in m.claims], (
            f"{m.name}: claims in book order")
        assert m.path.startswith("lib/anisotropy/") and m.path.endswith(".py"), m.name
        assert (root / m.path).resolve().is_relative_to(root / "lib" / "anisotropy")
        assert m.why.strip(), m.name
        covered.update(m.claims)
    assert covered == set(runner.SLUGS), "every claim has a mutation"


def test_a_mutation_is_written_and_restored(tmp_path):
    m = mutate.MUTATIONS[0]
    target = tmp_path / m.path
    target.parent.mkdir(parents=True)
    original = m.original().encode()
    target.write_bytes(original)
    with pytest.raises(KeyboardInterrupt), mutate.applied(m, tmp_path):
        assert m.new in target.read_text()
        raise KeyboardInterrupt
    assert target.read_bytes() == original


PYTEST_OUTPUT = """\
..........F
=================================== FAILURES ===================================
______________________ test_smoke_run_values[06-later-work] ______________________
    def test_smoke_run_values(slug, smoke_runs):
>       assert not problems, (f"{slug}: {len(problems)} values differ")
E       AssertionError: 06-later-work: 2 values differ from tests/expected/smoke-values.json:
E         metrics/a = 1.5 left [1, 1.2]
E         metrics/b = 3 left [2, 2.5]
E       assert not ['metrics/a = 1.5 left [1, 1.2]', 'metrics/b = 3 left [2, 2.5]']
tests/test_notebooks.py:250: AssertionError
___________________________ TestCache.test_plain ____________________________
E       assert 1 == 2
=========================== short test summary info ============================
FAILED tests/test_metrics.py::test_isoscore[x] - AssertionError: 0.5 != 0.7
FAILED tests/test_notebooks.py::test_smoke_run_values[06-later-work] - AssertionError: \
06-later-work: 2 values differ from tests/expected/smoke-values.json:
ERROR tests/test_claim2.py - ImportError: cannot import name 'x'
FAILED tests/test_metrics.py::test_isoscore[x] - AssertionError: 0.5 != 0.7
FAILED tests/test_cache.py::TestCache::test_plain
FAILED tests/test_cache.py::test_bare
!!!!!!!!!!!!!!!!!!!!!!!!!! stopping after 1 failures !!!!!!!!!!!!!!!!!!!!!!!!!!!
1 failed, 10 passed in 3.20s
"""


def test_failing_tests_are_parsed_from_the_short_summary():
    failures = mutate.parse_failures(PYTEST_OUTPUT)
    assert [f["id"] for f in failures] == [
        "tests/test_metrics.py::test_isoscore[x]",
        "tests/test_notebooks.py::test_smoke_run_values[06-later-work]",
        "tests/test_claim2.py", "tests/test_cache.py::TestCache::test_plain",
        "tests/test_cache.py::test_bare"]
    assert failures[0]["message"] == "AssertionError: 0.5 != 0.7"
    assert failures[1]["message"].splitlines() == [
        "AssertionError: 06-later-work: 2 values differ from tests/expected/smoke-values.json:",
        "metrics/a = 1.5 left [1, 1.2]", "metrics/b = 3 left [2, 2.5]",
        "assert not ['metrics/a = 1.5 left [1, 1.2]', 'metrics/b = 3 left [2, 2.5]']"]
    assert failures[2]["message"] == "ImportError: cannot import name 'x'"
    assert failures[3]["message"] == "assert 1 == 2"
    assert failures[4]["message"] == ""
    assert mutate.parse_failures("3 passed in 0.1s\n") == []


def test_the_comparison_selects_its_claims_ci_tests():
    expression = mutate.comparison_expression([mutate.C1, mutate.C6])
    assert expression == ("(test_smoke_run_verdicts_and_bands or test_smoke_run_values) and "
                          "(01-layerwise-anisotropy or 06-later-work)")


def _outcome(name, fast=0, runs=(), comparison=None, failed=()):
    outcome = {"name": name, "fast_tests": {"returncode": fast, "failed": list(failed)},
               "smoke_runs": [{"slug": s, "returncode": rc} for s, rc in runs] or None,
               "comparison": comparison}
    return mutate.verdict(outcome)


def test_the_report_says_what_killed_each_mutation_and_the_share():
    ms = [mutate.Mutation(name, "lib/anisotropy/x.py", "a", "b", claims, f"why {name}")
          for name, claims in (("by-tests", (mutate.C1,)), ("by-notebook", (mutate.C2,)),
                               ("by-bands", (mutate.C1, mutate.C6)), ("alive", (mutate.C4,)),
                               ("broken", (mutate.C3,)), ("pending", (mutate.C5,)))]
    failing = {"returncode": 1, "failed": [
        {"id": f"tests/test_notebooks.py::test_smoke_run_values[{s}]", "message": "m"}
        for s in (mutate.C1, mutate.C6)]}
    outcomes = {
        "by-tests": _outcome("by-tests", 1, failed=["tests/test_metrics.py::test_a"]),
        "by-notebook": _outcome("by-notebook", runs=[(mutate.C2, 1)]),
        "by-bands": _outcome("by-bands", runs=[(mutate.C1, 0), (mutate.C6, 0)],
                             comparison=failing),
        "alive": _outcome("alive", runs=[(mutate.C4, 0)],
                          comparison={"returncode": 0, "failed": []}),
        "broken": _outcome("broken", 4),
        "pending": None}
    assert outcomes["by-tests"]["killed"] and outcomes["by-tests"]["by"] == (
        "fast tests: tests/test_metrics.py::test_a")
    assert outcomes["by-notebook"]["by"] == f"the notebook failed: {mutate.C2}"
    assert outcomes["by-bands"]["by"].startswith("smoke comparison: test_smoke_run_values[")
    assert not outcomes["alive"]["killed"] and outcomes["alive"]["by"] is None
    assert outcomes["broken"]["error"] and not outcomes["broken"]["killed"]
    text = mutate.format_report(ms, outcomes)
    lines = text.splitlines()
    assert lines[0] == "| mutation | claims | failed | outcome |"
    assert "| by-tests | 1 | test_metrics.py::test_a | killed (fast tests) |" in lines
    assert f"| by-notebook | 2 | notebook {mutate.C2} | killed (notebook) |" in lines
    assert (f"| by-bands | 1, 6 | test_smoke_run_values[{mutate.C1}], "
            f"test_smoke_run_values[{mutate.C6}] | killed (smoke comparison) |") in lines
    assert "| alive | 4 | nothing | survived |" in lines
    assert "| broken | 3 | the fast tests returned 4 | error |" in lines
    assert "| pending | 5 |  | not run |" in lines
    assert "killed 3 of 4 (75%)" in lines
    assert "(2 not run or in error, left out of the count)" in lines
    assert lines[-1] == "- **alive** (lib/anisotropy/x.py; claims 4): why alive."
    assert "killed 0 of 0 (n/a)" in mutate.format_report(ms[:1], {})
    assert "killed 2 of 3 (67%)" in mutate.format_report(
        ms[:4], {k: v for k, v in outcomes.items() if k != "by-notebook"})


def test_the_copy_leaves_out_the_environment_and_builds(tmp_path):
    source = tmp_path / "project"
    for name in ("lib/anisotropy/a.py", ".git/HEAD", ".venv/bin/python", "_build/x.json",
                 "lib/anisotropy/__pycache__/a.cpython-311.pyc", "lib/x.egg-info/PKG-INFO",
                 "tests/test_a.py", "work/old.json"):
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_text("x")
    tree = source / "work" / "tree"
    tree.mkdir(parents=True)
    (tree / "stale.py").write_text("old")
    mutate.copy_tree(source, tree, source / "work")
    copied = sorted(str(p.relative_to(tree)) for p in tree.rglob("*") if p.is_file())
    assert copied == ["lib/anisotropy/a.py", "tests/test_a.py"]


def test_results_from_folder_reads_the_claims_results_files(tmp_path):
    """The ``smoke_runs`` fixture's hook (tests/conftest.py): with
    ``ANISOTROPY_SMOKE_RESULTS`` set it returns the folder's results files instead of
    running the notebooks."""
    assert results_from_folder(tmp_path) == {}
    for slug in (runner.SLUGS[5], runner.SLUGS[0]):
        (tmp_path / f"{slug}.json").write_text(json.dumps({"claim": slug, "checks": []}))
    (tmp_path / "notes.json").write_text("{}")
    found = results_from_folder(tmp_path)
    assert list(found) == [runner.SLUGS[0], runner.SLUGS[5]]
    assert found[runner.SLUGS[5]] == {"claim": runner.SLUGS[5], "checks": []}
    assert mutate.RESULTS_ENV == "ANISOTROPY_SMOKE_RESULTS"


@pytest.mark.parametrize("fast, compared, label", [
    (1, None, "killed (fast tests)"), (0, 0, "survived"), (0, 1, "killed (smoke comparison)")])
def test_one_mutation_runs_its_steps_in_order(tmp_path, monkeypatch, fast, compared, label):
    """The steps with stand-ins: the fast tests see the mutated file, the smoke runs and
    the comparison follow only when the tests pass, the original is restored, the cache
    removed and the outcome written (and redone by ``--compare-only``)."""
    m = next(m for m in mutate.MUTATIONS if len(m.claims) == 2)
    tree, work = tmp_path / "tree", tmp_path / "work"
    (tree / m.path).parent.mkdir(parents=True)
    original = m.original()
    (tree / m.path).write_text(original)
    seen = []

    def fast_tests(tree_, env, log):
        seen.append(("fast", m.new in (tree_ / m.path).read_text()))
        return {"returncode": fast, "seconds": 1.0, "failed": ["tests/test_a.py::t"] * fast,
                "messages": [], "tail": ""}

    def claims(slugs, tree_, env, folder, jobs, cache):
        seen.append(("runs", tuple(slugs), m.new in (tree_ / m.path).read_text()))
        assert cache is None  # no --warm-cache: a cold cache of the mutation's own
        (folder / "cache").mkdir()
        results_dir = mutate.results_dir(folder)
        results_dir.mkdir(parents=True)
        for slug in slugs:
            (results_dir / f"{slug}.json").write_text("{}")
        return [{"slug": s, "returncode": 0, "seconds": 1.0, "stderr": ""} for s in slugs]

    def compare(slugs, folder):
        seen.append(("compare", tuple(slugs)))
        failed = [{"id": f"tests/test_notebooks.py::test_smoke_run_values[{slugs[0]}]",
                   "message": "m"}] * compared
        return {"returncode": compared, "seconds": 1.0, "failed": failed, "tail": ""}

    monkeypatch.setattr(mutate, "run_fast_tests", fast_tests)
    monkeypatch.setattr(mutate, "run_claims", claims)
    monkeypatch.setattr(mutate, "compare", compare)
    outcome = mutate.run_mutation(m, tree, work, {})
    assert mutate.outcome_label(outcome) == label
    assert (tree / m.path).read_text() == original
    assert not (work / m.name / "cache").exists()
    assert mutate.read_outcome(work, m.name) == json.loads(json.dumps(outcome))
    if fast:
        assert seen == [("fast", True)]
        assert mutate.compare_again(m, work) is None
        return
    assert seen == [("fast", True), ("runs", m.claims, True), ("compare", m.claims)]
    again = mutate.compare_again(m, work)
    assert seen[-1] == ("compare", m.claims) and len(seen) == 4
    assert mutate.outcome_label(again) == label


def test_a_warm_cache_is_shared_except_by_the_files_that_fill_it(tmp_path):
    """``--warm-cache``: the smoke runs share a cache the unmutated code filled, unless the
    mutation is in a file that makes what the cache holds (then a cold one, as make test)."""
    warm = tmp_path / "warm"
    fills = [m for m in mutate.MUTATIONS if m.path in mutate.CACHED_BY]
    others = [m for m in mutate.MUTATIONS if m.path not in mutate.CACHED_BY]
    assert fills and others, "the list covers both kinds"
    assert all(mutate.cache_for(m, warm) is None for m in fills)
    assert all(mutate.cache_for(m, warm) == warm for m in others)
    assert all(mutate.cache_for(m, None) is None for m in mutate.MUTATIONS)
    assert "lib/anisotropy/inputs/extraction.py" in mutate.CACHED_BY
