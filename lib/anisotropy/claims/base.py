"""What every claim shares: the model loop, the named result of a check and the grading loop.

A claim supplies only what is its own (its settings, its inputs, the measurement of one
model); the loops every claim ran in its own words are written here once:

- :func:`load_model` loads one model of a claim's settings, on their device and in their
  precision, and reports it to the results (``on_model``, the results' ``add_model``);
- :func:`each_model` loads a claim's models one at a time, for a loop that measures each and
  lets it go before the next is loaded;
- :class:`CheckValue` is the named result of one check on one model: the measured value, its
  95% interval (None for a finding) and its details, read by name (``.value``,
  ``.interval``, ``.details``);
- :func:`measure_each` is the model loop whole: each model loaded, measured by the claim's
  own step and let go, the measurements keyed by the model's loaded name;
- :func:`record_checks` records a model's graded checks from their intervals and its findings
  as measured (with their interval, and its method, where the claim asks), in the order the
  claim declares them, and :func:`grade_each` is the grading loop whole: it calls
  :func:`record_checks` for every model's measurement.

These are functions, not a class to inherit: a claim is a module (its declaration, settings
and measurements) that hands its own step to the loop that runs it. Where a claim's loop
differs, its docstring says why (claim 3 keeps its models across two parts; claim 4 grades
one model under several subjects; claim 5 shares encoders across its (task, model) setups).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from anisotropy.geometry.intervals import Interval
from anisotropy.inputs import models as registry

__all__ = ["CheckValue", "load_model", "each_model", "measure_each", "record_checks",
           "grade_each"]


@dataclass(frozen=True)
class CheckValue:
    """One check of one model, measured: what :func:`record_checks` grades or records.

    Attributes
    ----------
    value : Any
        The measured value (a number for a graded check; a finding may hold a dict or a
        string).
    interval : Interval or None
        Its 95% interval; None for a finding, or where the check could not be measured.
    details : dict or None
        What the page and the ledger show beside it (the layer of a maximum, a count).
    """

    value: Any
    interval: Interval | None = None
    details: dict | None = None


def load_model(name: str, settings=None, *, on_model: Callable | None = None,
               load: Callable | None = None, precision: bool = True):
    """Load model ``name`` on ``settings.device`` (in ``settings.dtype``) and report it.

    Parameters
    ----------
    name : str
        A model of the registry (``anisotropy models``).
    settings : anisotropy.inputs.settings.ClaimSettings or None, optional
        The claim's settings: their ``device`` and ``dtype`` are read; None (default) for a
        static model, which has neither.
    on_model : callable or None, optional
        Called with the loaded model (the results' ``add_model``); None (default) reports
        nothing.
    load : callable or None, optional
        Loads a model by name (``load(name, device=..., dtype=...)``, a fake in tests); None
        (default): :func:`anisotropy.inputs.models.load`.
    precision : bool, optional
        Pass ``settings.dtype`` on (default True); False loads in the model's own precision,
        for a model whose weights are trained here in float32.

    Returns
    -------
    Encoder
        The loaded model, already reported.
    """
    options = {}
    if settings is not None:
        options["device"] = settings.device
        if precision:
            options["dtype"] = settings.dtype
    model = (load or registry.load)(name, **options)
    if on_model is not None:
        on_model(model)
    return model


def each_model(settings, names: Sequence[str] | None = None, *,
               on_model: Callable | None = None, load: Callable | None = None) -> Iterator:
    """Load a claim's models one at a time (:func:`load_model`), in their order.

    The loop holds one model at a time: the caller measures it, and the model is released
    when the loop moves on (the generator keeps no reference to it).

    Parameters
    ----------
    settings : anisotropy.inputs.settings.ClaimSettings
        The claim's settings: their ``models`` (when ``names`` is None), ``device`` and
        ``dtype`` are read.
    names : sequence of str or None, optional
        The models to load; None (default): ``settings.models``.
    on_model, load : callable or None, optional
        As :func:`load_model`.

    Yields
    ------
    Encoder
        Each loaded model, reported to ``on_model`` before it is yielded.
    """
    for name in (settings.models if names is None else names):
        yield load_model(name, settings, on_model=on_model, load=load)


def measure_each(settings, measure_one: Callable[[Any], Any],
                 names: Sequence[str] | None = None, *, on_model: Callable | None = None,
                 load: Callable | None = None) -> dict[str, Any]:
    """The model loop: each model of ``settings`` loaded (:func:`each_model`), measured by
    ``measure_one`` and let go before the next is loaded.

    Parameters
    ----------
    settings : anisotropy.inputs.settings.ClaimSettings
        The claim's settings (:func:`each_model` reads them).
    measure_one : callable
        The claim's own step: ``measure_one(encoder)`` returns that model's measurement;
        it may free what it holds (``encoder.release()``) before it returns.
    names : sequence of str or None, optional
        The models; None (default): ``settings.models``.
    on_model, load : callable or None, optional
        As :func:`load_model`.

    Returns
    -------
    dict of str to object
        ``{encoder.name: measurement}``, in the order of the models: the loaded name, which
        a hub model resolves to, not the alias the settings give.
    """
    out = {}
    for encoder in each_model(settings, names, on_model=on_model, load=load):
        out[encoder.name] = measure_one(encoder)
        del encoder
    return out


def record_checks(results, model: str, checks: Mapping[str, CheckValue], graded: Sequence[str],
                  findings: Sequence[str] = (), *, model_kind: str = "", subject: str = "",
                  not_run: str | None = None, finding_interval: str | None = None,
                  finding_method: bool = False, order: Sequence[str] | None = None) -> None:
    """Record one model's checks: each of ``graded`` graded from its interval, each of
    ``findings`` recorded as measured, the graded ones first unless ``order`` says otherwise.

    Parameters
    ----------
    results : anisotropy.report.results.Results
        The claim's results, where the checks are recorded (its ``grade`` and ``finding``).
    model : str
        The model's name, as reported to the results.
    checks : mapping of str to CheckValue
        ``{check id: CheckValue}`` (its ``value``, ``interval`` and ``details``) holding
        every id of ``graded`` and ``findings``.
    graded : sequence of str
        The graded checks' ids (declared in ``data/checks.yaml``).
    findings : sequence of str, optional
        The findings' ids (default none): their value is recorded (with their details and
        interval under ``finding_interval``).
    model_kind : str, optional
        The model's kind (``"encoder"``, ``"decoder"``, ``"static"``), which a check's
        declaration may exempt (default ``""``: none given).
    subject : str, optional
        What of the model was measured, when one model is graded several times (default
        ``""``).
    not_run : str or None, optional
        The reason a graded check measured as None (the model gives it nothing to measure)
        is recorded as not run, where its details give none as ``unavailable``. With
        neither (the default: None), the None goes to the results' ``grade``, which records
        a model the check exempts as exempt and refuses any other. Given, a finding
        measured as None is recorded as not run too (with the same reason); without it, a
        finding's None is recorded as its value.
    finding_interval : str or None, optional
        None (default): a finding is recorded as its value alone. A label: the finding's
        details are recorded too, with its interval's ends ``[low, high]`` under this label
        (a finding measured with an interval over seeds or fits; a finding without an
        interval keeps its details as they are).
    finding_method : bool, optional
        With ``finding_interval``, record the interval's method too, under ``"interval
        method"`` (default False: the ends alone).
    order : sequence of str or None, optional
        The order in which the checks are recorded, holding every id of ``graded`` and
        ``findings`` once (the order a claim's results have always listed them in); None
        (default): ``graded``, then ``findings``.

    Raises
    ------
    KeyError
        When ``checks`` misses an id of ``graded`` or ``findings``, named with the ids it
        holds, before anything is recorded.
    ValueError
        When ``order`` does not hold each id of ``graded`` and ``findings`` exactly once.
    """
    missing = [check for check in (*graded, *findings) if check not in checks]
    if missing:
        raise KeyError(f"No measured value of {missing} for {model!r}: the measurement holds "
                       f"{sorted(checks)}; measure every check the claim declares.")
    declared = (*graded, *findings)
    if order is None:
        order = declared
    elif sorted(order) != sorted(declared):
        raise ValueError(f"order {list(order)} must hold each of the graded checks and the "
                         f"findings {list(declared)} exactly once.")
    graded = set(graded)
    for check in order:
        measured = checks[check]
        value, interval, details = measured.value, measured.interval, measured.details
        finding = check not in graded
        unmeasured = value is None and (not finding or not_run is not None)
        reason = (details or {}).get("unavailable", not_run) if unmeasured else None
        if reason is not None:
            results.not_run(check, model, reason, subject=subject)
        elif finding:
            _record_finding(results, check, model, measured, subject, finding_interval,
                            finding_method)
        else:
            results.grade(check, model, value, interval, model_kind=model_kind,
                          subject=subject, details=details)


def _record_finding(results, check: str, model: str, measured: CheckValue, subject: str,
                    label: str | None, method: bool) -> None:
    """Record one finding as :func:`record_checks` does: its value, and with ``label`` its
    details with its interval's ends under ``label`` (and with ``method`` the interval's
    method under ``"interval method"``); a finding without an interval keeps its details."""
    extra = {}
    if label is not None:
        details, interval = dict(measured.details or {}), measured.interval
        if interval is not None:
            details[label] = [interval.low, interval.high]
            if method:
                details["interval method"] = interval.method
        extra["details"] = details or measured.details
    results.finding(check, model, measured.value, subject=subject, **extra)


def grade_each(results, measured: Mapping[str, Any], graded: Sequence[str],
               findings: Sequence[str] = (), **options) -> None:
    """The grading loop: :func:`record_checks` for every model's measurement, each read
    by name (its ``checks``, a mapping of check id to :class:`CheckValue`, and its
    ``kind``).

    Parameters
    ----------
    results : anisotropy.report.results.Results
        The claim's results.
    measured : mapping of str to object
        ``{model name: measurement}`` (:func:`measure_each`).
    graded, findings : sequence of str
        As :func:`record_checks`.
    **options
        Passed on to :func:`record_checks` (``not_run``, ``finding_interval``, ...).
    """
    for name, m in measured.items():
        record_checks(results, name, m.checks, graded, findings, model_kind=m.kind, **options)
