"""The model loop and the grading loop every claim shares (anisotropy.claims.base)."""

from __future__ import annotations

import dataclasses

import pytest

from anisotropy.claims.base import (
    CheckValue,
    each_model,
    grade_each,
    load_model,
    measure_each,
    record_checks,
)
from anisotropy.claims.layerwise import claim as layerwise
from anisotropy.geometry.intervals import Interval
from anisotropy.report.results import Results

SETTINGS = layerwise.Settings.for_profile("smoke", models=("org/one", "org/two"))


class _Loads:
    """A fake ``load`` that remembers its calls and what it handed out."""

    def __init__(self):
        self.calls: list[tuple[str, dict]] = []

    def __call__(self, name, **options):
        self.calls.append((name, options))
        return f"model:{name}"


def test_each_model_loads_the_settings_models_in_order_and_reports_each_first():
    loads, reported, seen = _Loads(), [], []
    for model in each_model(SETTINGS, on_model=reported.append, load=loads):
        seen.append((model, list(reported)))  # reported before the loop body sees it
    assert [name for name, _ in loads.calls] == ["org/one", "org/two"]
    assert all(options == {"device": SETTINGS.device, "dtype": SETTINGS.dtype}
               for _, options in loads.calls)
    assert seen == [("model:org/one", ["model:org/one"]),
                    ("model:org/two", ["model:org/one", "model:org/two"])]


def test_each_model_is_lazy_one_model_at_a_time():
    loads = _Loads()
    loop = each_model(SETTINGS, ["org/a", "org/b"], load=loads)
    assert loads.calls == []
    next(loop)
    assert [name for name, _ in loads.calls] == ["org/a"]


def test_load_model_options_for_a_static_model_and_a_float32_one():
    loads = _Loads()
    load_model("glove", load=loads)
    load_model("org/trained", SETTINGS, load=loads, precision=False)
    assert loads.calls == [("glove", {}), ("org/trained", {"device": SETTINGS.device})]


def _interval(low, high):
    return Interval(low, high, "test")


def _results():
    return Results(layerwise.SLUG, parameters=SETTINGS.parameters(), profile="test")


def test_record_checks_grades_from_the_interval_and_records_findings_as_measured():
    checks = {"baseline-positive": CheckValue(0.5, _interval(0.4, 0.6), {"layer": 1}),
              "baseline-rises": CheckValue(-0.2, _interval(-0.3, -0.1), None),
              "last-layer-rise": CheckValue(0.1)}
    results = _results()
    record_checks(results, "org/one", checks, ["baseline-positive", "baseline-rises"],
                  ["last-layer-rise"], model_kind="encoder")
    recorded = {c.check: c for c in results.checks}
    assert list(recorded) == ["baseline-positive", "baseline-rises", "last-layer-rise"]
    assert recorded["baseline-positive"].verdict == "reproduced"
    assert recorded["baseline-rises"].verdict == "not reproduced"
    assert recorded["last-layer-rise"].verdict == "finding"
    assert recorded["last-layer-rise"].measured == pytest.approx(0.1)


def test_record_checks_records_nothing_measured_as_not_run_with_its_reason():
    checks = {"baseline-positive": CheckValue(None, None, {"unavailable": "no layer"}),
              "baseline-rises": CheckValue(None, None, {"layers": []})}
    results = _results()
    record_checks(results, "org/one", checks, list(checks), not_run="one cluster")
    recorded = {c.check: c for c in results.checks}
    assert {c.verdict for c in recorded.values()} == {"not run"}
    assert "no layer" in recorded["baseline-positive"].note
    assert "one cluster" in recorded["baseline-rises"].note
    with pytest.raises(Exception, match="needs a measured value"):
        record_checks(_results(), "org/one", checks, ["baseline-rises"])  # no reason given


def test_record_checks_names_a_missing_check_before_recording_anything():
    results = _results()
    with pytest.raises(KeyError, match=r"\['baseline-rises'\].*baseline-positive"):
        record_checks(results, "org/one", {"baseline-positive": CheckValue(0.5, None)},
                      ["baseline-positive", "baseline-rises"])
    assert results.checks == []


def test_a_check_value_is_a_frozen_record_read_by_name():
    check = CheckValue(1.0)
    assert (check.value, check.interval, check.details) == (1.0, None, None)
    assert dataclasses.asdict(CheckValue(1.0, None, {"a": 1})) == {
        "value": 1.0, "interval": None, "details": {"a": 1}}
    assert not isinstance(check, tuple)
    with pytest.raises(dataclasses.FrozenInstanceError):
        check.value = 2.0
    assert dataclasses.replace(check, details={"a": 1}) == CheckValue(1.0, None, {"a": 1})


def test_record_checks_keeps_a_given_order_and_a_finding_interval():
    checks = {"last-layer-rise": CheckValue(0.1, _interval(0.0, 0.2), {"layer": 6}),
              "baseline-positive": CheckValue(0.5, _interval(0.4, 0.6))}
    results = _results()
    record_checks(results, "org/one", checks, ["baseline-positive"], ["last-layer-rise"],
                  subject="a space", finding_interval="95% interval over seeds",
                  order=list(checks))
    first, second = results.checks
    assert (first.check, second.check) == ("last-layer-rise", "baseline-positive")
    assert first.details == {"layer": 6, "95% interval over seeds": [0.0, 0.2]}
    assert {first.subject, second.subject} == {"a space"}
    with pytest.raises(ValueError, match="exactly once"):
        record_checks(_results(), "org/one", checks, ["baseline-positive"],
                      ["last-layer-rise"], order=["baseline-positive"])


def test_record_checks_records_a_finding_interval_with_its_method_on_request():
    """``finding_method`` adds the interval's method beside its ends; a finding without an
    interval keeps its details; without ``finding_method`` no method is recorded."""
    checks = {"last-layer-rise": CheckValue(0.1, Interval(0.0, 0.2, "a bootstrap"),
                                            {"layer": 6}),
              "mev-variants": CheckValue({"layer 1": "K 2"})}
    results = _results()
    record_checks(results, "org/one", checks, (), ["last-layer-rise", "mev-variants"],
                  finding_interval="95% interval", finding_method=True)
    with_method, without_interval = results.checks
    assert with_method.details == {"layer": 6, "95% interval": [0.0, 0.2],
                                   "interval method": "a bootstrap"}
    assert without_interval.verdict == "finding" and without_interval.details is None
    results = _results()
    record_checks(results, "org/one", checks, (), ["last-layer-rise"],
                  finding_interval="95% interval")
    assert results.checks[0].details == {"layer": 6, "95% interval": [0.0, 0.2]}


def test_record_checks_records_a_finding_measured_as_none_as_not_run_only_with_a_reason():
    checks = {"last-layer-rise": CheckValue(None, None, {"layers with K > 1": []})}
    results = _results()
    record_checks(results, "org/one", checks, (), list(checks), not_run="one cluster")
    assert results.checks[0].verdict == "not run" and "one cluster" in results.checks[0].note
    results = _results()
    record_checks(results, "org/one", checks, (), list(checks))
    assert results.checks[0].verdict == "finding" and results.checks[0].measured is None


def test_measure_each_keys_each_measurement_by_the_loaded_name_one_model_at_a_time():
    """The model loop: each model loaded (by its loaded name, not the settings' alias),
    measured by the claim's step and let go before the next is loaded."""
    alive = []

    class Encoder:
        def __init__(self, name):
            self.name = f"resolved/{name}"
            alive.append(self.name)

        def __del__(self):
            alive.remove(self.name)

    def measure_one(encoder):
        assert alive == [encoder.name]  # the previous model is gone
        return len(encoder.name)

    reported = []
    out = measure_each(SETTINGS, measure_one, on_model=lambda m: reported.append(m.name),
                       load=lambda name, **options: Encoder(name))
    assert out == {"resolved/org/one": 16, "resolved/org/two": 16}
    assert reported == list(out)
    assert alive == []


def test_grade_each_records_every_models_checks_by_name():
    @dataclasses.dataclass
    class Measured:
        checks: dict
        kind: str

    measured = {
        "org/one": Measured({"baseline-positive": CheckValue(0.5, _interval(0.4, 0.6)),
                             "last-layer-rise": CheckValue(0.1)}, "encoder"),
        "org/two": Measured({"baseline-positive": CheckValue(None, None,
                                                             {"unavailable": "no layers"}),
                             "last-layer-rise": CheckValue(0.2)}, "decoder")}
    results = _results()
    grade_each(results, measured, ["baseline-positive"], ["last-layer-rise"])
    assert [(c.check, c.model, c.verdict) for c in results.checks] == [
        ("baseline-positive", "org/one", "reproduced"),
        ("last-layer-rise", "org/one", "finding"),
        ("baseline-positive", "org/two", "not run"),
        ("last-layer-rise", "org/two", "finding")]
