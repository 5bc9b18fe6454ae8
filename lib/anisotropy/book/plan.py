"""The forward passes each claim needs, declared from the task registry: the workflow's
extraction jobs.

A claim notebook encodes sentence sets drawn from :mod:`anisotropy.inputs.tasks` with its
parameters (claim 1's SNLI sample, claim 2's context windows, the STS sentences of claims 3
and 4, claim 5's classification tasks). :func:`extraction_jobs` lists the same sets for a
claim and a profile, as :class:`Extraction` records: one model, one sentence set, one kind
(per-layer token vectors or pooled sentence vectors) and one layer set. Running a job
(:func:`run_extraction`) makes the very call the notebook makes, so it fills the same
content-addressed cache entry and the notebook then finds it there. The workflow
(``workflow/Snakefile``) runs one job per distinct record, so a set two claims share (claim
1's SNLI sentences are claim 3's NLI set; claims 3 and 4 share the STS sentences) is
encoded once. ``tests/test_workflow.py`` checks that, after a claim's jobs have run, its
notebook misses the cache for no forward pass.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from anisotropy.book import runner
from anisotropy.book.catalog import default_models
from anisotropy.book.results import write_json

__all__ = ["Extraction", "PlanError", "claim_parameters", "claim_models", "model_parameter",
           "extraction_jobs",
           "workflow_jobs", "run_extraction", "write_marker", "check_models", "library_files",
           "unavailable_models", "claim_arguments"]

# Layer sets, symbolic because the last layer depends on the model.
ALL_LAYERS = "all"
FIRST_LAST = "0-1-last"  # the embedding output, the first block and the last layer
LAST = "last"


class PlanError(ValueError):
    """A workflow configuration the plan cannot honour (unknown profile, claim or model)."""


@dataclass(frozen=True)
class Extraction:
    """One forward-pass job: ``model`` over the sentences ``corpus`` names.

    ``kind`` is ``"tokens"`` (per-layer token vectors of the layer set ``layers``) or
    ``"pooled"`` (mean-pooled, unit-length sentence vectors, as claim 5 uses).
    ``sentences`` is the sentence list; ``digest`` identifies it.
    """

    model: str
    corpus: str
    kind: str
    layers: str
    sentences: tuple[str, ...] = field(compare=False, repr=False)
    digest: str = ""

    @property
    def job_id(self) -> str:
        """A file-name-safe id, unique per (model, sentence set, kind, layers)."""
        model = re.sub(r"[^A-Za-z0-9._-]+", "--", self.model)
        return f"{model}.{self.corpus}.{self.kind}-{self.layers}.{self.digest[:10]}"


def _digest(sentences: list[str]) -> str:
    return hashlib.sha256(json.dumps(sentences).encode("utf-8")).hexdigest()


def claim_parameters(slug: str, profile: str, overrides: dict | None = None) -> dict:
    """Every parameter of a claim as it will run: the notebook's defaults, then the
    profile's values and the overrides (checked by :func:`runner.resolve_parameters`)."""
    declared = {name: ast.literal_eval(info["default"])
                for name, info in runner.declared_parameters(slug).items()}
    return {**declared, **runner.resolve_parameters(slug, profile, overrides)}


def model_parameter(slug: str) -> str:
    """The parameter holding a claim's list of models: ``glue_models`` for claim 5 (its
    setups run one fixed encoder, ``model``), ``models`` for the others."""
    return "glue_models" if slug == "05-isotropy-vs-clusters" else "models"


def claim_models(slug: str, parameters: dict) -> list[str]:
    """The models a claim runs with these parameters (claim 5: its model and glue models)."""
    if slug == "05-isotropy-vs-clusters":
        return list(dict.fromkeys([parameters["model"], *parameters["glue_models"]]))
    return list(parameters.get("models") or default_models(slug))


def _jobs(models: list[str], corpus: str, kind: str, layers: str,
          sentences: Callable[[], list[str]]) -> list[Extraction]:
    built = tuple(sentences())
    digest = _digest(list(built))
    return [Extraction(model, corpus, kind, layers, built, digest) for model in models]


def extraction_jobs(slug: str, parameters: dict) -> list[Extraction]:
    """The forward passes claim ``slug`` makes with ``parameters`` (all of them, as from
    :func:`claim_parameters`), in the order the notebook makes them."""
    from anisotropy.inputs import tasks

    p = parameters
    models = claim_models(slug, p)
    seed = p["seed"]
    if slug == "01-layerwise-anisotropy":
        return _jobs(models, f"{p['sentence_source']}-{p['n_sentences']}", "tokens",
                     ALL_LAYERS, lambda: tasks.corpus(p["sentence_source"], p["n_sentences"],
                                                      seed))
    windows = (f"lm-windows-{p.get('n_windows')}x{p.get('window_words')}",
               lambda: tasks.windows("lm", p["window_words"], p["n_windows"], seed))
    if slug == "02-clusters-manifolds":
        return _jobs(models, windows[0], "tokens", ALL_LAYERS, windows[1])
    sts = (f"sts-{len(p.get('tasks', []))}tasks-{p.get('max_pairs') or 'all'}",
           lambda: tasks.sts_sentences(p["tasks"], p["max_pairs"], seed))
    if slug == "03-frequency-bias":
        return (_jobs(models, windows[0], "tokens", ALL_LAYERS, windows[1])
                + _jobs(models, sts[0], "tokens", FIRST_LAST, sts[1])
                + _jobs(models, f"snli-{p['n_nli_sentences']}", "tokens", ALL_LAYERS,
                        lambda: tasks.corpus("snli", p["n_nli_sentences"], seed)))
    if slug == "04-cluster-isotropy":
        from anisotropy.claims.cluster_isotropy import sst2_probe_data

        return (_jobs(models, sts[0], "tokens", FIRST_LAST, sts[1])
                + _jobs(models, f"sst2-probe-{p['sst2_train_items'] or 'all'}", "tokens", LAST,
                        lambda: sst2_probe_data(p["sst2_train_items"], seed=seed)["sentences"]))
    if slug == "05-isotropy-vs-clusters":
        jobs = []
        for task in ("polarity", "snli"):
            jobs += _jobs([p["model"]], f"{task}-{p['n_items'] or 'all'}", "pooled", LAST,
                          lambda task=task: tasks.classification_task(task, p["n_items"],
                                                                      seed)["sentences"])
        for task in p["glue_tasks"]:
            jobs += _jobs(p["glue_models"], f"{task}-{p['glue_max_items'] or 'all'}", "pooled",
                          LAST, lambda task=task: tasks.classification_task(
                              task, p["glue_max_items"], seed)["sentences"])
        return jobs
    raise PlanError(f"Unknown claim {slug!r}; choose one of {list(runner.SLUGS)}.")


_HUB_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)?$")


def check_models(models: list) -> None:
    """Refuse a workflow ``models`` entry before any job starts: not a string, neither a
    local directory nor shaped like a Hugging Face id, or a near miss of an offline
    registry name (a typo would otherwise only show as a model the hub cannot give)."""
    import difflib

    from anisotropy.inputs.models import _ALIASES, OFFLINE_MODELS

    known = sorted({*OFFLINE_MODELS, *_ALIASES})
    for model in models:
        if not isinstance(model, str) or not model.strip():
            raise PlanError(f"models: {model!r} is not a model name; give registry names "
                            "(`anisotropy models`), Hugging Face ids or local paths.")
        if model in known or Path(model).expanduser().is_dir():
            continue
        if not _HUB_ID.match(model):
            raise PlanError(f"models: {model!r} is neither a registry name, a local directory "
                            "nor a Hugging Face id (`org/name` or `name`); registry names: "
                            f"{sorted(OFFLINE_MODELS)}.")
        close = difflib.get_close_matches(model.lower(), [k.lower() for k in known], n=1,
                                          cutoff=0.85)
        if close:
            match = next(k for k in known if k.lower() == close[0])
            raise PlanError(f"models: unknown model {model!r}; did you mean {match!r}? "
                            f"Registry names: {sorted(OFFLINE_MODELS)}.")


def workflow_jobs(profile: str, models: list[str] | None = None,
                  claims: list[str] | None = None) -> dict[str, dict]:
    """The whole workflow for a profile: ``{slug: {"overrides", "jobs"}}``.

    ``models`` (the workflow config's ``models``) replaces the models of claims 1-4 and
    claim 5's appendix models. Raises :class:`PlanError` for an unknown profile or claim,
    before any job starts; a model name is only checked when its job runs, where an
    offline hub model fails with the registry's message.
    """
    known = runner.profiles()
    if profile not in known:
        raise PlanError(f"Unknown profile {profile!r}; choose one of {sorted(known)}.")
    claims = list(runner.SLUGS) if claims is None else claims
    for slug in claims:
        if slug not in runner.SLUGS:
            raise PlanError(f"Unknown claim {slug!r}; choose one of {list(runner.SLUGS)}.")
    if models is not None:
        check_models(models)
    plan = {}
    for slug in claims:
        overrides = {model_parameter(slug): list(models)} if models else {}
        try:
            parameters = claim_parameters(slug, profile, overrides)
        except runner.RunError as error:
            raise PlanError(str(error)) from error
        plan[slug] = {"overrides": overrides, "jobs": extraction_jobs(slug, parameters),
                      "parameters": parameters}
    return plan


def run_extraction(job: Extraction, *, device: str = "auto", dtype: str = "float32") -> dict:
    """Run one job: load the model and make the claim's own encode call, which fills the
    cache entry (or finds it there). Returns a summary for the job's marker file."""
    import time

    from anisotropy.inputs import cache
    from anisotropy.inputs import models as registry

    began = time.perf_counter()
    encoder = registry.load(job.model, device=device, dtype=dtype)
    sentences = list(job.sentences)
    if job.kind == "pooled":
        encoder.encode_sentences(sentences, pooling="mean", normalize=True)
    else:
        layers = {ALL_LAYERS: None, FIRST_LAST: [0, 1, encoder.n_layers],
                  LAST: [encoder.n_layers]}[job.layers]
        encoder.encode_tokens(sentences, layers=layers)
    stats = cache.stats()
    return {"job": job.job_id, "model": job.model, "corpus": job.corpus, "kind": job.kind,
            "layers": job.layers, "sentences": len(sentences), "sentences_sha256": job.digest,
            "status": "done", "seconds": round(time.perf_counter() - began, 1),
            "cache": stats}


def write_marker(path: str | Path, summary: dict) -> None:
    """Write a job's marker atomically."""
    write_json(path, summary)


def _imported_modules(source: str) -> set[str]:
    """``anisotropy.*`` modules a piece of source imports (absolute imports only)."""
    found = set()
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return found
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("anisotropy"))
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0 \
                and node.module.startswith("anisotropy"):
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
    return found


def library_files(slug: str) -> list[Path]:
    """The library files claim ``slug`` runs: the modules its notebook imports and,
    transitively, the ``anisotropy`` modules they import (package ``__init__`` files
    included). The workflow reruns the claim when one of them changes, and no other."""
    package = Path(runner.PROJECT_ROOT) / "lib" / "anisotropy"
    notebook = json.loads((runner.NOTEBOOKS_DIR / f"{slug}.ipynb").read_text(encoding="utf-8"))
    code = "\n".join("".join(cell["source"]) for cell in notebook["cells"]
                     if cell["cell_type"] == "code")
    code = "\n".join(line for line in code.splitlines() if not line.lstrip().startswith(("%", "!")))

    def module_file(name: str) -> Path | None:
        parts = name.split(".")[1:]
        base = package.joinpath(*parts)
        for candidate in (base.with_suffix(".py"), base / "__init__.py"):
            if candidate.is_file():
                return candidate
        return None

    files: set[Path] = {package / "__init__.py"}
    pending = list(_imported_modules(code))
    seen: set[str] = set()
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        path = module_file(name)
        if path is None:
            continue  # a name imported from a module, not a module
        files.add(path)
        parts = name.split(".")
        for depth in range(2, len(parts)):  # parent packages run their __init__
            parent = module_file(".".join(parts[:depth]))
            if parent is not None:
                files.add(parent)
        pending.extend(_imported_modules(path.read_text(encoding="utf-8")))
    return sorted(files)


def unavailable_models(markers: list[str | Path]) -> dict[str, str]:
    """``{model: reason}`` for the extraction jobs whose marker says the model could not be
    had (a hub model offline); the claim then runs without it and marks it "not run"."""
    reasons = {}
    for marker in markers:
        summary = json.loads(Path(marker).read_text(encoding="utf-8"))
        if summary.get("status") != "done":
            reasons[summary["model"]] = (f"not run: {summary['status']} "
                                         f"({summary.get('message', '').split('. ')[0]})")
    return reasons


def claim_arguments(slug: str, profile: str, parameters: dict, markers: list[str | Path],
                    dtype: str | None = None) -> list[str]:
    """The ``anisotropy run`` arguments of a workflow claim job.

    ``parameters`` are the claim's as planned (:func:`workflow_jobs`). Models that no
    extraction job could have (their markers say why) are left out of the model lists the
    claim runs, wherever the list came from (config, profile or the claim's defaults), and
    passed as ``--not-run``. The claim's own encoder of claim 5's setups cannot be left
    out, nor can every model: those raise :class:`PlanError`. The device is not passed:
    claim jobs read their vectors from the cache (whose keys hold the dtype, not the
    device) and may run where there is no GPU.
    """
    missing = unavailable_models(markers)
    arguments = ["run", slug, "--profile", profile]
    name = model_parameter(slug)
    value = parameters[name] if name == "glue_models" else claim_models(slug, parameters)
    if name == "glue_models" and parameters["model"] in missing:
        raise PlanError(f"{slug}: its setups' encoder {parameters['model']!r} could not be "
                        f"loaded: {missing[parameters['model']]}.")
    kept = [m for m in value if m not in missing]
    if not kept:
        raise PlanError(f"{slug}: none of {name}={value} could be loaded "
                        f"({'; '.join(missing.values())}).")
    arguments += ["-p", f"{name}=[" + ", ".join(kept) + "]"]
    for model, why in missing.items():
        arguments += ["--not-run", f"{model}={why}"]
    if dtype:
        arguments += ["--dtype", dtype]
    return arguments
