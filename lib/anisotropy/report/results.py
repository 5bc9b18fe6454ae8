"""Checks and the results JSON: one schema for every claim, written by one helper.

A claim notebook creates a :class:`Results` (which loads and validates the claim's check
declarations from ``data/checks.yaml``), records models, free-form metrics and checks, and
calls :meth:`Results.write`, which produces ``_build/PROFILE/results/SLUG.json``::

    {claim, profile, overrides, parameters, models, data, data_sha256, library_version,
     inputs_digest, environment, runtime_s, cache, metrics,
     checks: [{id, check, model, verdict, statement, section, reference, paper, source,
               quantity, measured, interval, interval_method, comparator, threshold,
               threshold_reason, tolerance, note, details, ...}]}

A graded check's verdict comes from its 95% interval (:func:`anisotropy.report.checks.grade`).

``environment`` says where the file came from (:func:`anisotropy.report.provenance.environment`)
and ``inputs_digest`` what produced it (:func:`anisotropy.report.provenance.inputs_digest`);
:func:`load_results` marks a file *stale* when the digest of the current checkout differs,
and refuses a file of another profile than the one asked for.

The ledger page, the regression tests and the book all read these files; nothing
recomputes a number. Reference numbers from the papers are read with :func:`reference`
from the one file ``data/references.yaml``.
"""

from __future__ import annotations

import datetime
import json
import math
import os
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anisotropy.geometry.intervals import Interval
from anisotropy.inputs import cache
from anisotropy.inputs.data import PROJECT_ROOT, verified_files
from anisotropy.inputs.datafiles import data_sources
from anisotropy.inputs.models import family_of
from anisotropy.inputs.resolved import short_names
from anisotropy.report import provenance
from anisotropy.report.checks import (
    CHECKS_FILE,
    CheckError,
    CheckSpec,
    load_checks,
    reachable,
    reference_value,
    references,
)
from anisotropy.report.display import finding_interval, glue, glue_all, interval_text, sig
from anisotropy.report.verdicts import GRADED, VERDICTS, mark

__all__ = ["Check", "Results", "VERDICTS", "ResultsError", "add_models_not_run", "glue",
           "glue_all",
           "ranges_text", "results_dir", "load_results", "reference", "references",
           "write_json"]



class ResultsError(ValueError):
    """A results file that cannot be used here: another profile's, or unreadable."""


def results_dir(profile: str | None = None) -> Path:
    """Where results JSONs go: ``$ANISOTROPY_RESULTS_DIR`` (set by the runner), else the
    profile's own ``_build/PROFILE/results`` (``$ANISOTROPY_PROFILE``, else ``custom``: a
    notebook run by hand never writes into a profile's build).

    Parameters
    ----------
    profile : str or None, optional
        The profile whose directory is meant; default ``None``: ``$ANISOTROPY_PROFILE``, else
        ``custom``. Unused when ``$ANISOTROPY_RESULTS_DIR`` is set.

    Returns
    -------
    Path
        The directory, created if it did not exist (``_build`` is ``$ANISOTROPY_BUILD``
        where that is set).
    """
    profile = profile or os.environ.get("ANISOTROPY_PROFILE", "custom")
    default = Path(os.environ.get("ANISOTROPY_BUILD", PROJECT_ROOT / "_build")) / profile
    path = Path(os.environ.get("ANISOTROPY_RESULTS_DIR", default / "results"))
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


def _margin(spec: CheckSpec) -> list | None:
    """An equivalence check's margin as declared: an end at the quantity's bound is None."""
    if spec.margin is None:
        return None
    (a, b), (low, high) = spec.margin, spec.bounds
    return [None if a <= low else a, None if b >= high else b]


@dataclass
class Check:
    """One graded (or recorded) check of one model: the declaration beside the measurement.

    Built by :meth:`Results.grade`, :meth:`Results.finding` and :meth:`Results.not_run`
    from a :class:`~anisotropy.report.checks.CheckSpec`; notebooks never write a verdict or a
    tolerance by hand. ``verdict`` is one of :data:`VERDICTS`.

    Attributes
    ----------
    id : str
        The record's id: the check's id, then ``:`` and the models' short names when it is
        of a model, then `` / SUBJECT`` when it has a subject.
    check : str
        The declared check's id.
    model : str
        The model's name, several joined with ``", "``, or ``""`` for all models.
    verdict : str
        One of :data:`VERDICTS` (checked when the record is made).
    subject : str
        What of the model was measured (a space, a setup); ``""`` when graded once.
    statement, section, anchor : str
        The declaration's (:class:`~anisotropy.report.checks.CheckSpec`).
    reference : str
        The declaration's first reference key.
    references : list of str
        All its reference keys.
    paper : str
        The paper's values for the check
        (:meth:`~anisotropy.report.checks.CheckSpec.paper_text`).
    source : str
        The sources of its references
        (:meth:`~anisotropy.report.checks.CheckSpec.source_text`).
    paper_values : str
        The paper's numbers, quoted statements left out
        (:meth:`~anisotropy.report.checks.CheckSpec.paper_values_text`).
    quantity : str
        What is measured, in words.
    paper_value : float or None
        The paper's number on the measured scale, for ``subject``
        (:meth:`~anisotropy.report.checks.CheckSpec.paper_number`); default None.
    measured : Any
        The measured value (a float for a graded check; a finding's JSON-ready
        measurement); None (default) when not measured.
    interval : list of float or None
        ``[low, high]`` of its 95% interval, clipped to the quantity's bounds; default None.
    interval_method : str
        How the interval was made (:attr:`~anisotropy.geometry.intervals.Interval.method`);
        default empty.
    comparator : str or None
        The declaration's comparator; default None.
    threshold : float or None
        The declaration's threshold; default None.
    threshold_reason : str
        The declaration's reason for it; default empty.
    tolerance : str
        The rule in words (:meth:`~anisotropy.report.checks.CheckSpec.tolerance`); default
        empty.
    note : str
        Why the verdict is not a grade: an exemption's or control's reason, a property's
        note, what would decide a check with a sample too small, or why the check did not
        run; default empty.
    details : Any
        What to keep beside the record, JSON-ready; default None.
    kind : str
        The declaration's kind (:data:`~anisotropy.report.checks.KINDS`); default
        ``"graded"``.
    margin : list or None
        An equivalence check's ``[low, high]`` as declared, None for an open end; None
        (default) for other kinds.
    threshold_basis : str or None
        ``paper``, ``derived``, ``direction`` or ``book``
        (:data:`~anisotropy.report.checks.THRESHOLD_BASES`); default None.
    family : str
        The model's family (:data:`anisotropy.inputs.models.FAMILIES`; ``", "``-joined for
        a check over several models); default empty.
    studied : str
        What the source studied (the declaration's ``studied``); default empty.
    scope : str
        What a graded verdict therefore is: ``reproduction`` on a family the source
        studied, ``generalisation`` on another
        (:meth:`anisotropy.report.checks.CheckSpec.scope_of`); empty (default) when not
        graded.
    """

    id: str
    check: str
    model: str
    verdict: str
    subject: str
    statement: str
    section: str
    anchor: str
    reference: str
    references: list
    paper: str
    source: str
    paper_values: str
    quantity: str
    paper_value: float | None = None
    measured: Any = None
    interval: list | None = None
    interval_method: str = ""
    comparator: str | None = None
    threshold: float | None = None
    threshold_reason: str = ""
    tolerance: str = ""
    note: str = ""
    details: Any = None
    kind: str = "graded"
    margin: list | None = None
    threshold_basis: str | None = None
    family: str = ""
    studied: str = ""
    scope: str = ""

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"Check {self.id!r}: verdict {self.verdict!r} not in {VERDICTS}.")


@dataclass
class Results:
    """Collects a claim notebook's results and writes the results JSON.

    Attributes
    ----------
    claim : str
        The claim's slug.
    parameters : dict
        Every parameter's value (:meth:`~anisotropy.inputs.settings.ClaimSettings.parameters`).
    profile : str
        The profile the run used; default empty: ``$ANISOTROPY_PROFILE``, else ``"custom"``.
    models : list of dict
        Each model's description (:meth:`add_model`); default empty.
    metrics : dict
        Free-form metrics by name (:meth:`metric`); default empty.
    checks : list of Check
        The records (:meth:`grade`, :meth:`finding`, :meth:`not_run`); default empty.
    started : float
        :func:`time.perf_counter` when the results were made (the runtime is measured from
        it); default now.
    started_utc : datetime.datetime
        The UTC time they were made (recorded in the environment block); default now.
    specs : dict of str to CheckSpec
        The claim's check declarations by id; default empty:
        :func:`~anisotropy.report.checks.load_checks` of ``claim``, loaded and validated
        when the results are made.
    overrides : dict
        The values given on top of the profile
        (:meth:`~anisotropy.inputs.settings.ClaimSettings.override_dict`); default empty.
    """

    claim: str
    parameters: dict
    profile: str = ""
    models: list = field(default_factory=list)
    metrics: dict = field(default_factory=dict)
    checks: list = field(default_factory=list)
    started: float = field(default_factory=time.perf_counter)
    started_utc: datetime.datetime = field(
        default_factory=lambda: datetime.datetime.now(datetime.timezone.utc))
    specs: dict = field(default_factory=dict, repr=False)

    overrides: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.profile = self.profile or os.environ.get("ANISOTROPY_PROFILE", "custom")
        # declarations are validated before anything is measured
        self.specs = self.specs or load_checks(self.claim)

    @classmethod
    def for_settings(cls, settings) -> Results:
        """The results of a claim run with ``settings`` (its module's ``Settings``): they
        record every parameter, the profile and the overrides given on top of it.

        Parameters
        ----------
        settings : anisotropy.inputs.settings.ClaimSettings
            The claim's settings (:meth:`~anisotropy.inputs.settings.ClaimSettings.for_profile`).

        Returns
        -------
        Results
            Empty results for claim ``settings.slug``, its check declarations loaded and
            validated.
        """
        return cls(settings.slug, parameters=settings.parameters(), profile=settings.profile,
                   overrides=settings.override_dict())

    def add_model(self, model) -> None:
        """Record a loaded model (an Encoder/StaticVectors or its ResolvedModel).

        Parameters
        ----------
        model : Any
            An object with a ``describe()`` method, or with a ``resolved`` attribute that has
            one; its description is recorded once (a model added twice is listed once).
        """
        describe = getattr(model, "describe", None)
        record = describe() if callable(describe) else \
            getattr(model, "resolved", model).describe()
        if record not in self.models:
            self.models.append(record)

    def metric(self, name: str, value: Any) -> None:
        """Record a free-form metric (numbers, tables as dicts). Returns None, so that a
        cell ending with it shows no repr of the value.

        Parameters
        ----------
        name : str
            The metric's key in the results file's ``metrics``; a metric of the same name is
            replaced.
        value : Any
            The value, made JSON-ready: numpy numbers and arrays as Python ones, NaN as None,
            an object with ``to_dict`` (a DataFrame) as its dict.
        """
        self.metrics[name] = _jsonable(value)

    # ------------------------------------------------------------------ checks
    def _spec(self, check_id: str) -> CheckSpec:
        if check_id not in self.specs:
            raise CheckError(f"Check {check_id!r} is not declared for {self.claim} in "
                             f"{CHECKS_FILE.name}; declared: {sorted(self.specs)}.")
        return self.specs[check_id]

    def _record(self, spec: CheckSpec, model: str, verdict: str, subject: str = "",
                model_kind: str = "", **fields) -> Check:
        models = short_names(model)
        record_id = f"{spec.id}:{models}" if models else spec.id
        if subject:
            record_id += f" / {subject}"
        if any(c.id == record_id for c in self.checks):
            raise CheckError(f"Check {record_id!r} recorded twice.")
        check = Check(
            id=record_id, check=spec.id, model=model, verdict=verdict, subject=subject,
            statement=spec.statement, section=spec.section, anchor=spec.anchor,
            reference=spec.references[0], references=list(spec.references),
            paper=spec.paper_text(), source=spec.source_text(),
            paper_values=spec.paper_values_text(subject), quantity=spec.quantity,
            paper_value=spec.paper_number(subject),
            comparator=spec.comparator, threshold=spec.threshold, threshold_reason=spec.reason,
            tolerance=spec.tolerance(), kind=spec.kind, margin=_margin(spec),
            threshold_basis=spec.threshold_basis, studied=spec.studied,
            family=", ".join(family_of(m, model_kind) for m in model.split(", ") if m),
            scope=spec.scope_of(model, model_kind) if verdict in GRADED else "", **fields)
        self.checks.append(check)
        return check

    def grade(self, check_id: str, model: str, measured: float | None,
              interval: Interval | None, *, model_kind: str = "", subject: str = "",
              details: Any = None, attainable: tuple[float, float] | None = None,
              decide: str = "") -> Check:
        """Grade a declared check for one model from its measured value and 95% interval.

        The verdict comes from :func:`anisotropy.report.checks.grade` on the interval, unless the
        model is exempt or a control by the check's declaration (then the numbers are shown
        with the declared reason, and not graded). ``model_kind`` ("encoder", "decoder",
        "static") lets a declaration exempt a kind of model. ``subject`` names what of the
        model was measured when one model is graded several times (a space, a setup).

        An ``equivalence`` check is graded against its margin; a ``property`` is recorded
        with verdict ``property`` (and, in its note, whether it holds). ``attainable`` is the
        range the statistic can take at this sample size (a floor or a ceiling): when the
        paper's side of the threshold lies outside it, the verdict is ``sample too small``
        and the note gives ``decide``, the size that would decide the check.

        Parameters
        ----------
        check_id : str
            A check declared for this claim in ``data/checks.yaml``, not a finding.
        model : str
            The model's name, or several joined with ``", "`` for a check over a set of models;
            ``""`` for a check over all models.
        measured : float or None
            The measured value, finite and inside the quantity's bounds. None only for an
            exempt model, which need not be measured (it is then recorded without numbers).
        interval : Interval or None
            Its 95% interval (:class:`anisotropy.geometry.intervals.Interval`); it is clipped to
            the quantity's bounds before grading and recording.
        model_kind : str, optional
            The model's kind, ``"encoder"``, ``"decoder"`` or ``"static"``; default ``""``. It
            also places a model the registry does not know in a family (scope).
        subject : str, optional
            What of the model was measured; default ``""``. It is part of the record's id.
        details : Any, optional
            Anything to keep beside the record (made JSON-ready, as in :meth:`metric`); default
            None.
        attainable : tuple of (float, float) or None, optional
            ``(lowest, highest)`` value the statistic can take at this sample size; default
            None: unbounded. Not used for an equivalence check.
        decide : str, optional
            The sample size that would decide the check, required when ``attainable`` makes the
            paper's side unreachable; default ``""``.

        Returns
        -------
        Check
            The record, also appended to :attr:`checks`: verdict ``exempt``, ``control``,
            ``property``, ``sample too small``, or the graded verdict.

        Raises
        ------
        CheckError
            For a check not declared for the claim, a finding, a missing measured value or
            interval, a measured value outside the quantity's bounds or not finite, an
            ``interval`` that is not an ``Interval``, an unreachable side without ``decide``, or
            a record (check, model and subject) already recorded.
        """
        spec = self._spec(check_id)
        if spec.kind == "finding":
            raise CheckError(f"Check {check_id!r} is a finding; record it with finding().")
        exempt = spec.exemption(model, model_kind)
        if exempt and measured is None:  # exempt models need not be measured at all
            return self._record(spec, model, "exempt", subject, model_kind, note=exempt)
        if measured is None or interval is None:
            raise CheckError(f"Check {check_id!r} ({model}): a graded check needs a measured "
                             "value and its interval.")
        value = float(measured)
        low, high = spec.bounds
        if not math.isfinite(value) or not low <= value <= high:
            raise CheckError(f"Check {check_id!r} ({model}): measured {value} is outside the "
                             f"quantity's range [{low:g}, {high:g}].")
        if not isinstance(interval, Interval):
            raise CheckError(f"Check {check_id!r} ({model}): interval must be an Interval, "
                             f"got {type(interval).__name__}.")
        bounded = [min(max(interval.low, low), high), min(max(interval.high, low), high)]
        fields = {"measured": value, "interval": bounded,
                  "interval_method": interval.method, "details": _jsonable(details)}
        control = spec.control(model, model_kind)
        if exempt:
            return self._record(spec, model, "exempt", subject, model_kind, note=exempt,
                                **fields)
        if control:
            return self._record(spec, model, "control", subject, model_kind, note=control,
                                **fields)
        if spec.kind == "property":
            side = None if spec.comparator is None else spec.verdict(bounded)
            holds = {"reproduced": " It holds here.",
                     "not reproduced": " It does not hold here: check the implementation.",
                     "inconclusive": " Its interval here does not decide whether it holds."
                     }.get(side, "")
            return self._record(spec, model, "property", subject, model_kind,
                                note=f"holds by construction: {spec.reason.strip()}{holds}",
                                **fields)
        if attainable is not None and spec.margin is None and not reachable(
                spec.comparator, spec.threshold, attainable):
            if not decide.strip():
                raise CheckError(f"Check {check_id!r} ({model}): say what sample size would "
                                 "decide it (decide=...).")
            low_a, high_a = attainable
            return self._record(
                spec, model, "sample too small", subject, model_kind,
                note=(f"at this sample size the statistic can only take values in "
                      f"[{low_a:.3g}, {high_a:.3g}], none {spec.comparator} "
                      f"{spec.threshold:g}: {decide.strip()}"), **fields)
        return self._record(spec, model, spec.verdict(bounded), subject, model_kind, **fields)

    def finding(self, check_id: str, model: str, measured: Any, *, subject: str = "",
                details: Any = None) -> Check:
        """Record a declared finding (a measurement the papers make no claim about).

        Parameters
        ----------
        check_id : str
            A check declared for this claim with ``kind: finding``.
        model : str
            The model's name, or several joined with ``", "``; ``""`` for all models.
        measured : Any
            The measurement (a number, a list or a table as a dict), made JSON-ready.
        subject : str, optional
            What of the model was measured; default ``""``.
        details : Any, optional
            Anything to keep beside the record (made JSON-ready); default None.

        Returns
        -------
        Check
            The record, verdict ``finding``, also appended to :attr:`checks`.

        Raises
        ------
        CheckError
            For a check not declared for the claim or not a finding, or a record already
            recorded.
        """
        spec = self._spec(check_id)
        if spec.kind != "finding":
            raise CheckError(f"Check {check_id!r} is graded; grade it with grade().")
        return self._record(spec, model, "finding", subject, measured=_jsonable(measured),
                            details=_jsonable(details))

    def not_run(self, check_id: str, model: str, why: str, *, subject: str = "") -> Check:
        """Record that a declared check could not run here, and why.

        Parameters
        ----------
        check_id : str
            A check declared for this claim.
        model : str
            The model it could not run on (several joined with ``", "``; ``""`` for all).
        why : str
            The reason, recorded as the note; it cannot be blank.
        subject : str, optional
            What of the model it could not measure; default ``""``.

        Returns
        -------
        Check
            The record, verdict ``not run``, also appended to :attr:`checks`.

        Raises
        ------
        CheckError
            For a blank reason, a check not declared for the claim, or a record already
            recorded.
        """
        if not why.strip():
            raise CheckError(f"Check {check_id!r}: not_run needs a reason.")
        return self._record(self._spec(check_id), model, "not run", subject, note=why)

    def table(self, check: str | None = None):
        """The recorded checks (of one declared check id, or all) as a DataFrame for display:
        the check's label, model, measured value, 95% interval and threshold to 3 significant
        figures (:func:`anisotropy.report.display.sig`), and the verdict as the verdict table
        writes it (:func:`anisotropy.report.verdicts.mark`: a generalisation reads "carries
        over" or "does not carry over").

        Parameters
        ----------
        check : str or None, optional
            A declared check id; default ``None``: every recorded check.

        Returns
        -------
        pandas.DataFrame
            One row per record, indexed by the check's label from ``data/checks.yaml``
            (``check``), with columns ``model``, ``measured``, ``95% interval``, ``threshold``
            (empty without a comparator), ``verdict`` and ``note``; an empty DataFrame when
            nothing is recorded.
        """
        rows = [{"check": self._spec(c.check).label or c.check,
                 "model": short_names(c.model) or "all",
                 "measured": sig(c.measured),
                 "95% interval": _interval_cell(c),
                 "threshold": f"{c.comparator} {sig(float(c.threshold))}" if c.comparator
                 else "",
                 "verdict": mark(c.verdict, c.scope), "note": c.note}
                for c in self.checks if check is None or c.check == check]
        return pd.DataFrame(rows).set_index("check") if rows else pd.DataFrame()

    def to_dict(self) -> dict:
        """The results record as :meth:`write` writes it (the schema in the module docstring).

        The provenance is taken now: the data files' sha256, the inputs digest
        (:func:`anisotropy.report.provenance.inputs_digest`), the environment, the runtime since
        the results were created, and the cache statistics of this process.

        Returns
        -------
        dict
            ``{claim, profile, overrides, parameters, models, data, data_sha256,
            library_version, inputs_digest, environment, runtime_s, cache, metrics, checks}``,
            each check as a dict.
        """
        parameters = _jsonable(self.parameters)
        data_sha256 = verified_files()
        return {
            "claim": self.claim,
            "profile": self.profile,
            "overrides": _jsonable(self.overrides),
            "parameters": parameters,
            "models": self.models,
            "data": data_sources(),
            "data_sha256": data_sha256,
            "library_version": provenance.library_version(),
            "inputs_digest": provenance.inputs_digest(self.claim, parameters, data_sha256),
            "environment": provenance.environment(self.profile, self.started_utc),
            "runtime_s": round(time.perf_counter() - self.started, 2),
            "cache": cache.stats(),
            "metrics": self.metrics,
            "checks": [asdict(c) for c in self.checks],
        }

    def write(self, directory: str | Path | None = None) -> Path:
        """Write ``SLUG.json`` atomically and return its path: into the runner's directory
        when the runner started this kernel, else into ``_build/custom/results`` (a notebook
        run by hand never writes into a profile's build, whatever profile it ran).

        Parameters
        ----------
        directory : str or Path or None, optional
            Write into this directory instead (created if needed); default ``None``: as above
            (:func:`results_dir`).

        Returns
        -------
        Path
            The file written, ``DIRECTORY/SLUG.json`` (:func:`write_json` of :meth:`to_dict`).
        """
        by_runner = "ANISOTROPY_RESULTS_DIR" in os.environ
        directory = Path(directory) if directory else results_dir(
            self.profile if by_runner else "custom")
        directory.mkdir(parents=True, exist_ok=True)
        return write_json(directory / f"{self.claim}.json", self.to_dict())


def load_results(directory: str | Path | None = None,
                 profile: str | None = None) -> dict[str, dict]:
    """All results JSONs of a directory, by claim slug.

    Each record gets ``stale``: true when its inputs digest differs from the current
    checkout's (:func:`anisotropy.report.provenance.inputs_digest`: the claim's notebook,
    library files, declarations, data or package versions changed since it was written),
    or when it records no digest. With ``profile``, a file written by another profile is
    refused.

    Parameters
    ----------
    directory : str or Path or None, optional
        The directory of ``*.json`` results files; default ``None``:
        :func:`results_dir` of ``profile`` (created if needed).
    profile : str or None, optional
        The profile every file must have been written by; default ``None``: any.

    Returns
    -------
    dict of str to dict
        ``{slug: record}``, the files in name order; empty when the directory holds none (or
        does not exist).

    Raises
    ------
    ResultsError
        Naming the file: another profile's results, or a file that is not a results record.
    """
    directory = Path(directory) if directory else results_dir(profile)
    out = {}
    for path in sorted(directory.glob("*.json")):
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
            claim = record["claim"]
        except (ValueError, KeyError, TypeError) as error:
            raise ResultsError(f"{path} is not a results file ({error}); delete it and rerun "
                               "the claim.") from error
        if profile is not None and record.get("profile") != profile:
            raise ResultsError(
                f"{path} was written by profile {record.get('profile')!r}, but this build is "
                f"profile {profile!r}; a book never mixes profiles. Rerun it with `anisotropy "
                f"run {claim} --profile {profile}`, or delete the file.")
        record["stale"] = _is_stale(record)
        out[claim] = record
    return out


def _is_stale(record: dict) -> bool:
    """Whether a results record was produced from other inputs than the current checkout's."""
    stored = record.get("inputs_digest")
    if not stored:
        return True
    try:
        current = provenance.inputs_digest(record["claim"], record.get("parameters", {}),
                                           record.get("data_sha256", {}))
    except (OSError, KeyError, ValueError):
        return True
    return current != stored


def reference(*keys: str) -> Any:
    """One entry of the references file by path, e.g. ``reference("claim4", "sst2")``
    (:func:`anisotropy.inputs.references.reference_value` of ``"claim4/sst2"``).

    Parameters
    ----------
    *keys : str
        The key path's parts, from the top of ``data/references.yaml`` down.

    Returns
    -------
    Any
        The entry: a number, a string, a list, or a dict (a block).

    Raises
    ------
    KeyError
        When the path leads to no entry.
    """
    return reference_value("/".join(keys))


def ranges_text(numbers) -> str:
    """``[3, 4, 5, 9, 11, 12]`` -> ``"3–5, 9, 11–12"``: layer lists for prose.

    Parameters
    ----------
    numbers : Iterable of int
        The numbers, in any order (each read with ``int``; repeats count once).

    Returns
    -------
    str
        Runs of consecutive numbers as ``first–last`` (an en dash), joined with ``", "``;
        ``"none"`` when there are no numbers.
    """
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


def add_models_not_run(path: str | Path, reasons: dict[str, str], *,
                       model_list_checks: Sequence[str] | None) -> None:
    """Mark models a claim could not run (``{model: reason}``, e.g. a hub model requested
    offline) in its results file: every check the claim declares gets a "not run" record
    for each such model, with the reason, so the ledger shows them; the file is rewritten
    atomically and lists the reasons under ``models_not_run``.

    Parameters
    ----------
    path : str or Path
        The claim's results file (``SLUG.json``).
    reasons : dict of str to str
        ``{model: reason}``.
    model_list_checks : sequence of str or None
        The claim's declared ``model_list_checks``
        (:class:`~anisotropy.claims.declaration.ClaimDeclaration`, which the caller reads
        from the claim's module: this floor imports no claim). Where it is not None, only
        the checks whose ids start with one of its prefixes get the records; None: every
        check the claim declares.

    Raises
    ------
    CheckError
        For a blank reason.
    """
    path = Path(path)
    data = json.loads(path.read_text(encoding="utf-8"))

    holder = Results(data["claim"], parameters={}, profile=data.get("profile", ""))
    specs = list(holder.specs.values())
    if model_list_checks is not None:  # the model list's models run only these (claim 5)
        specs = [spec for spec in specs if spec.id.startswith(tuple(model_list_checks))]
    for model, why in reasons.items():
        for spec in specs:
            holder.not_run(spec.id, model, why)
    data["checks"] += [asdict(c) for c in holder.checks]
    data["models_not_run"] = {**data.get("models_not_run", {}), **reasons}
    write_json(path, data)


def write_json(path: str | Path, data: Any) -> Path:
    """Write ``data`` as JSON atomically: into a temporary file of this process, renamed
    into place, so a reader never sees half a file. Returns the path.

    Parameters
    ----------
    path : str or Path
        The file to write; its folder is created if needed.
    data : Any
        What to write; a value JSON cannot hold is written as its ``str``.

    Returns
    -------
    Path
        ``path``.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=1, default=str), encoding="utf-8")
    os.replace(tmp, path)
    return path


def _interval_cell(check: Check) -> str:
    """A section table's interval cell: the check's interval, or a finding's from its
    details (:func:`~anisotropy.report.display.finding_interval`); empty without one."""
    return interval_text(check.interval or finding_interval({"verdict": check.verdict,
                                                             "details": check.details}))
