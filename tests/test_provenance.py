"""Provenance: the environment block of a results file, its inputs digest, and profiles."""

from __future__ import annotations

import json

import pytest

from anisotropy.book import runner
from anisotropy.report import provenance
from anisotropy.report.results import Results, ResultsError, load_results

SLUG = "01-layerwise-anisotropy"


def test_environment_block_names_what_the_issue_asks_for():
    block = provenance.environment("smoke")
    assert block["profile"] == "smoke" and block["started_utc"].endswith("Z")
    assert block["python"].count(".") == 2
    for package in ("torch", "transformers", "tokenizers", "pyarrow", "numpy",
                    "scikit-learn", "IsoScore", "zuko", "papermill"):
        assert block["packages"][package], package
    assert block["cpu"]["model"] and isinstance(block["cpu"]["isa"], list)
    assert set(block["cpu"]["isa"]) <= set(provenance.ISA_FLAGS)
    assert block["torch_build"]["cpu_capability"] in ("DEFAULT", "AVX2", "AVX512", "ZVECTOR",
                                                      "VSX", "NO AVX")
    assert block["threads"]["torch"] >= 1
    assert block["library_version"] == provenance.library_version() != "unknown"
    line = provenance.short_environment(block)
    assert line.startswith("Profile smoke; commit ") and "torch " in line
    assert "not recorded" in provenance.short_environment(None)


def test_inputs_digest_follows_the_claims_inputs_only(monkeypatch):
    data = {"snli/snli_1.0_dev.jsonl.gz": "ab" * 32}
    digest = provenance.inputs_digest(SLUG, {"seed": 0}, data)
    assert digest == provenance.inputs_digest(SLUG, {"seed": 0}, dict(data))
    assert digest != provenance.inputs_digest(SLUG, {"seed": 1}, data)
    assert digest != provenance.inputs_digest(SLUG, {"seed": 0}, {k: "cd" * 32 for k in data})
    versions = provenance.package_versions()
    monkeypatch.setattr(provenance, "package_versions",
                        lambda: {**versions, "transformers": "0.0.0-other"})
    assert digest != provenance.inputs_digest(SLUG, {"seed": 0}, data)


def test_inputs_digest_ignores_another_claims_module(monkeypatch):
    """A change to a file claim 1 does not import leaves its digest (and so its results)
    current: the workflow's incremental builds stay incremental."""
    from anisotropy.book import plan

    files = plan.library_files(SLUG)
    assert not any(path.name == "classifier.py" for path in files)
    data = {"x": "0" * 64}
    before = provenance.inputs_digest(SLUG, {}, data)
    real = provenance._file_digest
    monkeypatch.setattr(provenance, "_file_digest",
                        lambda path: "changed" if path.name == "classifier.py" else real(path))
    assert provenance.inputs_digest(SLUG, {}, data) == before
    monkeypatch.setattr(provenance, "_file_digest",
                        lambda path: "changed" if path == files[-1] else real(path))
    assert provenance.inputs_digest(SLUG, {}, data) != before


def test_each_claims_library_files_hold_its_claim_module():
    """The inputs digest and the workflow follow a claim's notebook's imports (provenance
    does not look the claim up in the catalog: report/ imports no claim): every claim's
    notebook imports its claim module, so that editing it makes the claim's results
    stale."""
    from anisotropy.book import catalog

    lib = provenance.PROJECT_ROOT / "lib"
    for slug, entry in catalog.claims().items():
        module = lib.joinpath(*entry["module"].split(".")).with_suffix(".py")
        assert module in provenance.library_files(slug), \
            f"notebooks/{slug}.ipynb does not import {entry['module']}"


def test_results_file_carries_the_environment_and_a_foreign_profile_is_refused(tmp_path):
    results = Results(SLUG, {"seed": 0}, profile="full")
    path = results.write(tmp_path)
    record = json.loads(path.read_text())
    assert record["environment"]["profile"] == "full"
    assert record["library_version"] == provenance.library_version()
    assert not load_results(tmp_path, "full")[SLUG]["stale"]
    with pytest.raises(ResultsError, match=f"{SLUG}.json was written by profile 'full'"):
        load_results(tmp_path, "smoke")
    path.write_text("{not json")
    with pytest.raises(ResultsError, match="is not a results file"):
        load_results(tmp_path)


def test_each_profile_has_its_own_build_directory(monkeypatch, tmp_path):
    monkeypatch.setattr(runner, "BUILD_DIR", tmp_path)
    assert runner.profile_dir("full") == tmp_path / "full"
    assert runner.profile_dir("smoke") != runner.profile_dir("full")
    for bad in ("", "../full", ".hidden"):
        with pytest.raises(runner.RunError, match="cannot name a build directory"):
            runner.profile_dir(bad)


def test_book_build_refuses_another_profiles_results_by_name(monkeypatch, tmp_path):
    """A smoke results file in the full build's directory stops the full book before any
    page is compiled, naming the file and both profiles."""
    monkeypatch.setattr(runner, "BUILD_DIR", tmp_path)
    build = runner.profile_dir("full")
    (build / "executed").mkdir(parents=True)
    for slug in runner.available_slugs():
        (build / "executed" / f"{slug}.ipynb").write_text("{}")
    Results(SLUG, {"seed": 0}, profile="smoke").write(build / "results")
    with pytest.raises(runner.RunError, match=f"{SLUG}.json was written by profile 'smoke', "
                       "but this build is profile 'full'"):
        runner.build_book("full", run_notebooks=False)


def test_the_data_line_names_local_files_and_the_hub_commit_read():
    from anisotropy.report.provenance import data_line

    local = data_line({"snli": "local: 2 files, sha256 verified",
                       "sts16": "local: 10 files, sha256 verified"})
    assert local == ("Data: snli, sts16 from local files, each sha256 verified against "
                     "data/sources.yaml.")
    both = data_line({"snli/dev": "hub:stanfordnlp/snli@0123456789abcdef",
                      "snli/test": "hub:stanfordnlp/snli@0123456789abcdef",
                      "rte": "local: 2 files, sha256 verified"})
    assert "rte from local files" in both
    assert both.count("stanfordnlp/snli at commit 0123456789ab ") == 1
    assert data_line({}) == "Data: not recorded."
