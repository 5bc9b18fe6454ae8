"""The Snakemake workflow: its plan, its configuration errors, parallel runs and killed jobs."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from anisotropy.book import catalog, plan, runner
from anisotropy.report.results import add_models_not_run

ROOT = runner.PROJECT_ROOT
SNAKEFILE = ROOT / "workflow" / "Snakefile"
MINILM = "sentence-transformers/all-MiniLM-L6-v2"


def snakemake(*arguments, build: Path, cache: Path, extra_config=(), check=True,
              popen=False, models=(MINILM,)):
    """Run the workflow in its own working directory, build directory and cache."""
    models_config = ["models=[" + ",".join(f'"{m}"' for m in models) + "]"] if models else []
    command = [sys.executable, "-m", "snakemake", "-s", str(SNAKEFILE), "--directory",
               str(build.parent), *arguments, "--config", "profile=smoke",
               f"build_dir={build}", "threads=1", *models_config, *extra_config]
    env = {**os.environ, "ANISOTROPY_CACHE": str(cache), "HF_HUB_OFFLINE": "1"}
    if popen:
        return subprocess.Popen(command, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, start_new_session=True)
    completed = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1200)
    if check and completed.returncode != 0:
        output = completed.stdout + completed.stderr
        raise AssertionError(output[-4000:] + _failed_job_logs(output))
    return completed


def _failed_job_logs(output: str, lines: int = 30) -> str:
    """The last lines of each log a failed Snakemake job names (``log: PATH``), so that a
    failure on a machine that is gone (CI) shows the job's own error, not only its
    command."""
    logs = dict.fromkeys(line.split("log:", 1)[1].split(" (")[0].strip()
                         for line in output.splitlines() if line.strip().startswith("log:"))
    parts = []
    for name in logs:
        path = Path(name)
        text = path.read_text(errors="replace") if path.is_file() else "(no such file)"
        parts.append(f"\n--- {name} (last {lines} lines) ---\n"
                     + "\n".join(text.splitlines()[-lines:]))
    return "".join(parts)


# ------------------------------------------------------------------ the plan


def test_a_failed_jobs_own_log_is_shown(tmp_path):
    """A failure names the job's log; the assertion shows its last lines, once per log,
    and says so when the log is missing."""
    log = tmp_path / "extract.log"
    log.write_text("".join(f"line {i}\n" for i in range(40)) + "OSError: No space left\n")
    missing = tmp_path / "gone.log"
    output = (f"Error in rule extract:\n    log: {log} (check log file(s) for error details)\n"
              f"    log: {log} (check log file(s) for error details)\n    log: {missing}\n")
    shown = _failed_job_logs(output, lines=5)
    assert shown.count(str(log)) == 1
    assert "OSError: No space left" in shown and "line 36" in shown and "line 35" not in shown
    assert f"{missing} (last 5 lines) ---\n(no such file)" in shown


def test_full_plan_shares_sets_between_claims():
    jobs = plan.workflow_jobs("full")
    ids = {slug: {job.job_id for job in entry["jobs"]} for slug, entry in jobs.items()}
    # claim 1's SNLI sample is claim 3's NLI set; claims 3 and 4 share the STS sentences;
    # claims 2 and 3 share the context windows
    assert ids["01-layerwise-anisotropy"] & ids["03-frequency-bias"]
    assert ids["03-frequency-bias"] & ids["04-cluster-isotropy"]
    assert ids["02-clusters-manifolds"] & ids["03-frequency-bias"]
    every = [job.job_id for entry in jobs.values() for job in entry["jobs"]]
    assert len(set(every)) < len(every)
    assert all("/" not in job_id for job_id in every)


def test_config_models_replace_the_claims_models():
    jobs = plan.workflow_jobs("smoke", ["gpt2"])
    for slug, entry in jobs.items():
        models = {job.model for job in entry["jobs"]}
        if slug == "05-isotropy-vs-clusters":  # its setups keep the paper's encoder
            assert "gpt2" in models and entry["overrides"] == {"glue_models": ["gpt2"]}
        else:
            assert models == {"gpt2"} and entry["overrides"] == {"models": ["gpt2"]}


def test_unknown_profile_and_claim_are_refused_with_the_choices():
    with pytest.raises(plan.PlanError, match=r"Unknown profile 'huge'.*'full', 'paper', 'smoke'"):
        plan.workflow_jobs("huge")
    with pytest.raises(plan.PlanError, match=r"Unknown claim '06-nope'"):
        plan.workflow_jobs("smoke", claims=["06-nope"])
    with pytest.raises(plan.PlanError, match=r"models: 3 is not a model name"):
        plan.workflow_jobs("smoke", [3])


def test_library_files_follow_imports():
    files = {p.relative_to(ROOT / "lib" / "anisotropy").as_posix()
             for p in plan.library_files("05-isotropy-vs-clusters")}
    assert {"claims/classifier_geometry/classifier.py", "geometry/metrics.py",
            "inputs/models.py"} <= files
    assert "claims/layerwise/measure.py" not in files  # claim 1's: editing it spares claim 5
    assert "claims/layerwise/measure.py" in {
        p.relative_to(ROOT / "lib" / "anisotropy").as_posix()
        for p in plan.library_files("01-layerwise-anisotropy")}


def test_claim_arguments_leave_out_models_that_could_not_be_had(tmp_path):
    ok, missing = tmp_path / "ok.json", tmp_path / "missing.json"
    plan.write_marker(ok, {"model": MINILM, "status": "done"})
    plan.write_marker(missing, {"model": "gpt2", "status": "needs the hub",
                                "message": "Model 'gpt2' is not available offline. More."})
    settings = plan.claim_settings("01-layerwise-anisotropy", "smoke",
                                   {"models": [MINILM, "gpt2"]})
    arguments = plan.claim_arguments("01-layerwise-anisotropy", "smoke", settings,
                                     [ok, missing], "float32")
    assert arguments[:4] == ["run", "01-layerwise-anisotropy", "--profile", "smoke"]
    assert ["-p", f"models=[{MINILM}]"] == arguments[4:6]
    assert arguments[6] == "--not-run"
    assert arguments[7].startswith("gpt2=not run: needs the hub (Model 'gpt2' is not")
    assert arguments[-2:] == ["--dtype", "float32"] and "--device" not in arguments
    # a model from the profile's own list is left out the same way
    profile_models = plan.claim_settings("01-layerwise-anisotropy", "smoke")
    smol = profile_models.models[1]
    plan.write_marker(missing, {"model": smol, "status": "model not available",
                                "message": "Not installed. Install it."})
    arguments = plan.claim_arguments("01-layerwise-anisotropy", "smoke", profile_models,
                                     [ok, missing])
    assert arguments[4:6] == ["-p", f"models=[{MINILM}]"]
    with pytest.raises(plan.PlanError, match="none of models"):
        plan.claim_arguments("01-layerwise-anisotropy", "smoke",
                             plan.claim_settings("01-layerwise-anisotropy", "smoke",
                                                 {"models": [smol]}), [missing])
    claim5 = plan.claim_settings("05-isotropy-vs-clusters", "smoke")
    plan.write_marker(missing, {"model": claim5.model, "status": "needs the hub",
                                "message": "Offline."})
    with pytest.raises(plan.PlanError, match=f"the model '{claim5.model}' it needs could not"):
        plan.claim_arguments("05-isotropy-vs-clusters", "smoke", claim5, [missing])


def test_config_models_are_checked_before_any_job():
    plan.check_models([MINILM, "minilm", "gpt2", "bert-base-uncased", "org/model-1.5"])
    with pytest.raises(plan.PlanError, match="did you mean 'sentence-transformers/all-MiniLM"):
        plan.check_models(["sentence-transformers/all-MiniLM-L6-v3"])
    with pytest.raises(plan.PlanError, match="neither a registry name"):
        plan.check_models(["not a model!"])


def test_claim5_marks_only_its_appendix_for_a_missing_appendix_model(tmp_path):
    path = tmp_path / "05-isotropy-vs-clusters.json"
    path.write_text(json.dumps({"claim": "05-isotropy-vs-clusters", "profile": "smoke",
                                "checks": []}))
    declaration = catalog.claim_module("05-isotropy-vs-clusters").DECLARATION
    add_models_not_run(path, {"gpt2": "not run: needs the hub"},
                       model_list_checks=declaration.model_list_checks)
    assert {c["check"] for c in json.loads(path.read_text())["checks"]} == {
        "appendix-anticorrelation"}


def test_models_not_run_mark_every_declared_check(tmp_path):
    path = tmp_path / "01-layerwise-anisotropy.json"
    path.write_text(json.dumps({"claim": "01-layerwise-anisotropy", "profile": "smoke",
                                "checks": []}))
    declaration = catalog.claim_module("01-layerwise-anisotropy").DECLARATION
    assert declaration.model_list_checks is None
    add_models_not_run(path, {"gpt2": "not run: needs the hub"},
                       model_list_checks=declaration.model_list_checks)
    data = json.loads(path.read_text())
    assert data["models_not_run"] == {"gpt2": "not run: needs the hub"}
    assert data["checks"] and {c["verdict"] for c in data["checks"]} == {"not run"}
    assert {c["model"] for c in data["checks"]} == {"gpt2"}
    assert all(c["note"] == "not run: needs the hub" for c in data["checks"])


# ------------------------------------------------------------------ configuration errors


@pytest.mark.workflow
def test_bad_config_fails_before_any_job(tmp_path):
    build, cache = tmp_path / "build", tmp_path / "cache"
    for config, message in ((["profile=huge"], "Unknown profile 'huge'"),
                            (["colour=blue"], "Unknown workflow config key")):
        completed = snakemake("-n", "--cores", "1", build=build, cache=cache,
                              extra_config=config, check=False)
        assert completed.returncode != 0
        assert message in completed.stdout + completed.stderr
    assert not build.exists()


@pytest.mark.workflow
def test_hub_model_offline_fails_in_its_own_job(tmp_path):
    """The extraction job of an unreachable hub model writes a marker saying so (and the
    registry's message); without --marker the command fails."""
    job = next(j for j in plan.workflow_jobs("smoke", ["org/no-such-model"])
               ["01-layerwise-anisotropy"]["jobs"])
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "ANISOTROPY_CACHE": str(tmp_path / "c")}
    command = [sys.executable, "-m", "anisotropy", "extract", job.job_id, "--profile",
               "smoke", "--models", "org/no-such-model"]
    failed = subprocess.run(command, env=env, capture_output=True, text=True)
    assert failed.returncode == 1 and "not available offline" in failed.stderr
    marker = tmp_path / "m.json"
    done = subprocess.run([*command, "--marker", str(marker)], env=env, capture_output=True,
                          text=True)
    assert done.returncode == 0
    summary = json.loads(marker.read_text())
    assert summary["status"] == "needs the hub" and "offline" in summary["message"]


@pytest.mark.models
def test_a_pooled_job_fills_the_entry_claim5_reads(tmp_path, monkeypatch):
    """Claim 5's extraction job (pooled sentence vectors) writes the cache entry that the
    notebook's own encode call then reads, as the token and attention jobs do
    (``test_later.py``); the workflow's parallel test runs token claims only."""
    from anisotropy.book.plan import run_extraction
    from anisotropy.claims.classifier_geometry import claim as claim5
    from anisotropy.inputs import cache, models

    monkeypatch.setenv("ANISOTROPY_CACHE", str(tmp_path))
    settings = claim5.Settings.for_profile("smoke", n_items=24, glue_tasks=["sst2"],
                                           glue_max_items=16)
    jobs = claim5.inputs(settings)
    assert {job.kind for job in jobs} == {"pooled"}
    job = jobs[0]
    assert run_extraction(job)["status"] == "done"
    task = claim5.setup_task(settings, claim5.SETUP_TASKS[0], settings.n_items)
    assert list(job.sentences) == list(task["sentences"])
    hits = cache.stats().get("pooled", {}).get("hits", 0)
    models.load(job.model).encode_sentences(task["sentences"], pooling="mean", normalize=True)
    assert cache.stats()["pooled"]["hits"] == hits + 1


# ------------------------------------------------------------------ running it

# The two cheapest claims of the smoke profile (claims 2 and 1: 52 and 58 s on one core of
# the AMD EPYC), each with its own token extraction job. Claim 5 (the pooled sentence
# vectors) was here until November 2026; it cost 225 s of ``make test``'s 20 minutes, and
# its extraction job is checked alone in :func:`test_a_pooled_job_fills_the_entry_claim5_reads`.
TARGETS = ("02-clusters-manifolds", "01-layerwise-anisotropy")


def _targets(build: Path) -> list[str]:
    return [str(build / "smoke" / "results" / f"{slug}.json") for slug in TARGETS]


def _numbers(build: Path, slug: str) -> list:
    data = json.loads((build / "smoke" / "results" / f"{slug}.json").read_text())
    return _checks(data)


def _checks(record: dict) -> list:
    return [(c["id"], c["verdict"], c.get("measured"), c.get("interval"))
            for c in record["checks"]]


def _close(x, y, rel: float) -> bool:
    """Two values equal but for numbers within ``rel`` of each other: floats compared
    with ``rel``, lists and dicts element by element, anything else exactly."""
    if isinstance(x, float) and isinstance(y, float):
        return math.isclose(x, y, rel_tol=rel, abs_tol=1e-12) or (x != x and y != y)
    if isinstance(x, (list, tuple)) and isinstance(y, (list, tuple)):
        return len(x) == len(y) and all(_close(a, b, rel) for a, b in zip(x, y, strict=True))
    if isinstance(x, dict) and isinstance(y, dict):
        return x.keys() == y.keys() and all(_close(x[k], y[k], rel) for k in x)
    return x == y


def _differences(left: list, right: list, rel: float = 1e-6) -> list[str]:
    """Where two runs' checks differ: any id or verdict, or a number beyond ``rel``."""
    if [c[:2] for c in left] != [c[:2] for c in right]:
        return [f"ids or verdicts: {[c[:2] for c in left]} != {[c[:2] for c in right]}"]
    return [f"{a[0]}: {a[2:]} != {b[2:]}" for a, b in zip(left, right, strict=True)
            if not _close(a[2:], b[2:], rel)]


@pytest.mark.workflow
@pytest.mark.notebooks
def test_two_parallel_jobs_equal_the_direct_runs(tmp_path, smoke_runs):
    """The workflow from an empty cache (extraction jobs, then claim jobs, two at a time on
    one thread each) gives what ``anisotropy run`` gave in ``smoke_runs`` (each notebook
    making its own forward passes, on one thread): the same checks and verdicts, and every
    number within 1e-6 of it. Not bit for bit: the two paths run in processes with
    different histories, and a float sum's last bits can differ between them; claim 5's
    classifiers carry such a difference to about 1e-9 (seen when one of its pooled inputs
    came from another run's cache, November 2026). A race between jobs would break a
    number, not move it by 1e-9."""
    parallel = tmp_path / "parallel" / "_build"
    began = time.perf_counter()
    snakemake(*_targets(parallel), "--cores", "2", "--jobs", "2", build=parallel,
              cache=tmp_path / "cache-parallel", models=())
    parallel_s = time.perf_counter() - began
    print(f"smoke workflow ({', '.join(TARGETS)}): 2 jobs {parallel_s:.0f} s")
    for slug in TARGETS:
        differences = _differences(_numbers(parallel, slug), _checks(smoke_runs[slug]))
        assert not differences, (slug, differences)
        result = json.loads((parallel / "smoke" / "results" / f"{slug}.json").read_text())
        # the extraction jobs filled the cache: the notebook made no forward pass itself
        for kind in ("tokens", "pooled"):
            assert result["cache"].get(kind, {}).get("misses", 0) == 0, (slug, kind)
        assert (parallel / "smoke" / "executed" / f"{slug}.ipynb").is_file()
    leftovers = [p.name for p in (parallel / "smoke" / "executed").iterdir() if "partial" in p.name]
    assert leftovers == []
    # nothing changed: nothing reruns
    began = time.perf_counter()
    again = snakemake(*_targets(parallel), "--cores", "2", build=parallel,
                      cache=tmp_path / "cache-parallel", models=())
    unchanged_s = time.perf_counter() - began
    assert "Nothing to be done" in again.stdout + again.stderr
    # the smoke build never stands in for the full one: in the same build directory, the
    # full profile's dry run still plans every claim job, into _build/full
    full = snakemake("-n", "--cores", "2", build=parallel, cache=tmp_path / "cache-parallel",
                     extra_config=["profile=full"], models=())
    planned = full.stdout + full.stderr
    for slug in runner.SLUGS:
        assert f"slug={slug}" in planned, f"the full dry run does not plan {slug}"
    assert str(parallel / "full" / "results") in planned
    assert not (parallel / "full").exists() or not list((parallel / "full").rglob("*.json"))
    # one notebook edited (a touch alone is not an edit: Snakemake compares checksums):
    # the plan reruns that claim, not the other, and repeats no forward pass. A dry run: the
    # rerun itself would be one more claim job, as run above (about a minute of CI)
    notebook = runner.NOTEBOOKS_DIR / f"{TARGETS[1]}.ipynb"
    original = notebook.read_bytes()
    try:
        notebook.write_bytes(original + b"\n")
        rerun = snakemake("-n", *_targets(parallel), "--cores", "2", build=parallel,
                          cache=tmp_path / "cache-parallel", models=())
    finally:
        notebook.write_bytes(original)
    planned = rerun.stdout + rerun.stderr
    assert f"slug={TARGETS[1]}" in planned and f"slug={TARGETS[0]}" not in planned
    assert "rule extract" not in planned
    print(f"rebuild with nothing changed {unchanged_s:.1f} s")


@pytest.mark.workflow
@pytest.mark.notebooks
def test_killed_claim_job_leaves_nothing_the_next_run_trusts(tmp_path):
    build, cache = tmp_path / "run" / "_build", tmp_path / "cache"
    slug = TARGETS[0]
    target = str(build / "smoke" / "results" / f"{slug}.json")
    process = snakemake(target, "--cores", "1", build=build, cache=cache, popen=True)
    executed = build / "smoke" / "executed"
    deadline = time.time() + 600
    while time.time() < deadline and process.poll() is None:
        if executed.is_dir() and any("partial" in p.name for p in executed.iterdir()):
            break
        time.sleep(0.5)
    assert process.poll() is None, "the workflow finished before it could be killed"
    time.sleep(1)  # the kernel is starting or running cells
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    assert not (build / "smoke" / "results" / f"{slug}.json").exists()
    assert not (executed / f"{slug}.ipynb").exists()
    snakemake("--unlock", build=build, cache=cache)
    snakemake(target, "--cores", "1", "--rerun-incomplete", build=build, cache=cache)
    assert json.loads(Path(target).read_text())["claim"] == slug
    assert (executed / f"{slug}.ipynb").is_file()


def test_kernels_talk_over_private_unix_sockets(tmp_path, monkeypatch):
    """No TCP ports to race for: each run's kernel uses IPC sockets in a directory of its
    own."""
    import papermill

    seen = []

    def fake_execute(source, output, **kwargs):
        manager = kwargs["kernel_manager_class"]()
        seen.append((manager.transport, str(manager.ip)))
        Path(os.environ["ANISOTROPY_RESULTS_DIR"], "01-layerwise-anisotropy.json").write_text(
            json.dumps({"claim": "01-layerwise-anisotropy"}))
        Path(output).write_text("{}")

    monkeypatch.setattr(papermill, "execute_notebook", fake_execute)
    monkeypatch.setattr(runner, "BUILD_DIR", tmp_path / "build")
    runner.run("01-layerwise-anisotropy", "smoke")
    runner.run("01-layerwise-anisotropy", "smoke")
    assert [transport for transport, _ in seen] == ["ipc", "ipc"]
    assert seen[0][1] != seen[1][1]
    results = tmp_path / "build" / "smoke" / "results"
    assert not [p for p in results.iterdir() if "partial" in p.name]
