"""The workflow's extraction jobs: the forward passes each claim declares.

Each claim module declares its forward passes, ``inputs(settings)``, as
:class:`~anisotropy.inputs.jobs.Extraction` records (one model, one sentence set, one kind,
one layer set); :func:`workflow_jobs` collects them for a profile. Running a job
(:func:`run_extraction`) makes the very call the claim makes, so it fills the same
content-addressed cache entry and the claim then finds it there. The workflow
(``workflow/Snakefile``) runs one job per distinct record, so a set two claims share (claim
1's SNLI sentences are claim 3's NLI set; claims 3 and 4 share the STS sentences) is
encoded once. ``tests/test_workflow.py`` checks that, after a claim's jobs have run, its
notebook misses the cache for no forward pass.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import re
import time
from pathlib import Path

from anisotropy.book import catalog, runner
from anisotropy.inputs import cache
from anisotropy.inputs import models as registry
from anisotropy.inputs.attention import AttentionUnavailable, first_token_attention
from anisotropy.inputs.jobs import ALL_LAYERS, FIRST_LAST, LAST, Extraction
from anisotropy.inputs.models import ALIASES, OFFLINE_MODELS
from anisotropy.report.provenance import library_files
from anisotropy.report.results import write_json

__all__ = ["Extraction", "PlanError", "claim_settings", "workflow_jobs", "run_extraction",
           "write_marker", "check_models", "library_files", "unavailable_models",
           "claim_arguments", "claim_order"]


class PlanError(ValueError):
    """A workflow configuration the plan cannot honour (unknown profile, claim or model)."""


def claim_settings(slug: str, profile: str, overrides: dict | None = None):
    """Claim ``slug``'s settings as it will run under ``profile`` with ``overrides``: the
    runner's (:func:`anisotropy.book.runner.resolve_settings`), its error a
    :class:`PlanError`.

    Parameters
    ----------
    slug : str
        A claim (:func:`anisotropy.book.catalog.claims`) with a notebook.
    profile : str
        A profile of ``notebooks/profiles.yaml`` (``smoke``, ``full``, ``paper``, ``binder``).
    overrides : dict or None, optional
        Parameter values given on top of the profile; default ``None``: none.

    Returns
    -------
    anisotropy.inputs.settings.ClaimSettings
        An instance of the claim module's ``Settings``.

    Raises
    ------
    PlanError
        For an unknown claim, profile or parameter, or a value out of its type or range.
    """
    try:
        return runner.resolve_settings(slug, profile, overrides)
    except runner.RunError as error:
        raise PlanError(str(error)) from error


def claim_order(slugs=None) -> list[str]:
    """Claims in the order the workflow starts them: the most costly first (each declaration's
    ``cost``), so that the longest claim does not run alone at the end.

    Parameters
    ----------
    slugs : Iterable of str or None, optional
        The claims to order; default ``None``: every claim
        (:data:`anisotropy.book.runner.SLUGS`).

    Returns
    -------
    list of str
        The slugs by decreasing ``cost``; claims of equal cost keep their order.
    """
    slugs = list(runner.SLUGS if slugs is None else slugs)
    return sorted(slugs, key=lambda slug: -catalog.claim_module(slug).DECLARATION.cost)


_HUB_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)?$")


def check_models(models: list) -> None:
    """Refuse a workflow ``models`` entry before any job starts: not a string, neither a
    local directory nor shaped like a Hugging Face id, or a near miss of an offline
    registry name (a typo would otherwise only show as a model the hub cannot give).

    Parameters
    ----------
    models : list
        The workflow config's ``models``: registry names or aliases, Hugging Face ids
        (``org/name`` or ``name``) or local directories.

    Raises
    ------
    PlanError
        For the first entry refused, naming it (and the registry name it nearly matches).
    """


    known = sorted({*OFFLINE_MODELS, *ALIASES})
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
    """The whole workflow for a profile: ``{slug: {"overrides", "settings", "parameters",
    "jobs"}}``.

    ``models`` (the workflow config's ``models``) replaces each claim's model list (the
    parameter its declaration names, ``model_list``). Raises :class:`PlanError` for an unknown
    profile, claim or parameter, before any job starts; a model name is only checked when
    its job runs, where an offline hub model fails with the registry's message.

    Parameters
    ----------
    profile : str
        A profile of ``notebooks/profiles.yaml``.
    models : list of str or None, optional
        The models every claim runs instead of its own list; default ``None`` (or empty):
        each claim's list as its profile sets it. The entries are checked for their form
        first (:func:`check_models`).
    claims : list of str or None, optional
        The claims to plan; default ``None``: every claim, in book order.

    Returns
    -------
    dict of str to dict
        Per claim: ``overrides`` (the model list, if replaced), ``settings`` (its
        ``Settings``), ``parameters`` (``settings.parameters()``) and ``jobs`` (its module's
        ``inputs(settings)``: :class:`~anisotropy.inputs.jobs.Extraction` records, which may
        repeat across claims).

    Raises
    ------
    PlanError
        For an unknown profile, claim or parameter, or a ``models`` entry
        :func:`check_models` refuses.
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
        module = catalog.claim_module(slug)
        overrides = {module.DECLARATION.model_list: list(models)} if models else {}
        settings = claim_settings(slug, profile, overrides)
        plan[slug] = {"overrides": overrides, "settings": settings,
                      "parameters": settings.parameters(), "jobs": module.inputs(settings)}
    return plan


def run_extraction(job: Extraction, *, device: str = "auto", dtype: str = "float32") -> dict:
    """Run one job: load the model and make the claim's own encode call, which fills the
    cache entry (or finds it there). Returns a summary for the job's marker file.

    Parameters
    ----------
    job : Extraction
        The job: its model, sentences, kind (``tokens``, ``pooled`` or ``attention``) and
        layer set.
    device : str, optional
        Where forward passes run (``auto``, ``cpu``, ``cuda``, ``cuda:N``, ``mps``); default
        ``"auto"``.
    dtype : str, optional
        Forward-pass precision (``float32``, ``float16``, ``bfloat16``); default
        ``"float32"``.

    Returns
    -------
    dict
        ``{"job", "model", "corpus", "kind", "layers", "sentences" (their count),
        "sentences_sha256", "status": "done", "seconds", "cache"}`` (the process's cache
        statistics). A model without the attention an ``attention`` job needs is passed
        over, still ``done`` (the claim's page reports it).

    Raises
    ------
    anisotropy.inputs.models.ModelNotAvailable
        When the model cannot be had here (a hub model offline).
    """


    began = time.perf_counter()
    encoder = registry.load(job.model, device=device, dtype=dtype)
    sentences = list(job.sentences)
    if job.kind == "pooled":
        encoder.encode_sentences(sentences, pooling="mean", normalize=True)
    elif job.kind == "attention":

        try:  # "T64": every text cut to 64 tokens; ALL_LAYERS: each at its own length
            tokens = int(job.layers[1:]) if job.layers.startswith("T") else None
            first_token_attention(encoder, sentences, tokens=tokens)
        except AttentionUnavailable:
            pass  # the claim's page reports it for this model
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
    """Write a job's marker atomically.

    Parameters
    ----------
    path : str or Path
        The marker file (JSON); its folder is created if needed.
    summary : dict
        The job's summary (:func:`run_extraction`), or a failed job's status and message.
    """
    write_json(path, summary)


def unavailable_models(markers: list[str | Path]) -> dict[str, str]:
    """``{model: reason}`` for the extraction jobs whose marker says the model could not be
    had (a hub model offline); the claim then runs without it and marks it "not run".

    Parameters
    ----------
    markers : list of str or Path
        Marker files of the claim's extraction jobs (:func:`write_marker`).

    Returns
    -------
    dict of str to str
        For each marker whose status is not ``done``: its model and
        ``"not run: STATUS (first sentence of its message)"``.
    """
    reasons = {}
    for marker in markers:
        summary = json.loads(Path(marker).read_text(encoding="utf-8"))
        if summary.get("status") != "done":
            reasons[summary["model"]] = (f"not run: {summary['status']} "
                                         f"({summary.get('message', '').split('. ')[0]})")
    return reasons


def claim_arguments(slug: str, profile: str, settings, markers: list[str | Path],
                    dtype: str | None = None) -> list[str]:
    """The ``anisotropy run`` arguments of a workflow claim job.

    ``settings`` are the claim's as planned (:func:`workflow_jobs`). Models that no
    extraction job could have (their markers say why) are left out of the claim's model
    list (its declaration's ``model_list``), wherever the list came from (config, profile or the
    claim's defaults), and passed as ``--not-run``. A model the claim needs outside that
    list (claim 5's setups' encoder) cannot be left out, nor can every model: those raise
    :class:`PlanError`. The device is not passed: claim jobs read their vectors from the
    cache (whose keys hold the dtype, not the device) and may run where there is no GPU.

    Parameters
    ----------
    slug : str
        The claim.
    profile : str
        The profile it runs under.
    settings : anisotropy.inputs.settings.ClaimSettings
        The claim's settings as planned.
    markers : list of str or Path
        The marker files of the claim's extraction jobs (:func:`unavailable_models`).
    dtype : str or None, optional
        Passed as ``--dtype`` when given; default ``None``.

    Returns
    -------
    list of str
        ``["run", SLUG, "--profile", PROFILE, "-p", "LIST=[...]"]`` (LIST its declaration's
        ``model_list``), the model list always given, then ``--not-run MODEL=REASON`` per
        unavailable model and ``--dtype``.

    Raises
    ------
    PlanError
        When a model the claim needs outside its list is unavailable, or no model of the list
        is left.
    """
    module = catalog.claim_module(slug)
    missing = unavailable_models(markers)
    arguments = ["run", slug, "--profile", profile]
    name = module.DECLARATION.model_list
    value = list(getattr(settings, name))
    # the models the claim needs whatever its list holds (claim 5's setups' encoder)
    placeholder = "<the list>"
    needed = [m for m in module.models(dataclasses.replace(settings, **{name: [placeholder]}))
              if m != placeholder]
    for model in needed:
        if model in missing:
            raise PlanError(f"{slug}: the model {model!r} it needs could not be loaded: "
                            f"{missing[model]}.")
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
