"""Claim 5's measurements and grading without a real encoder (seconds).

Synthetic trajectories with a known relation between IsoScore and silhouette must be graded
the way the construction says; the whole measure-and-grade path runs on a fake encoder
(random unit vectors) over small samples of the real tasks."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anisotropy.claims.classifier_geometry import claim
from anisotropy.report.checks import load_checks
from anisotropy.report.results import Results


def _trajectory(slope_iso: float, slope_sil: float, seeds=(0, 1, 2), noise=0.002, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for run in seeds:
        for update in range(0, 21):
            rows.append({"seed": run, "update": update,
                         "isoscore": 0.5 + slope_iso * update + noise * rng.normal(),
                         "silhouette": 0.1 + slope_sil * update + noise * rng.normal(),
                         "accuracy": min(1.0, 0.5 + 0.03 * update),
                         "intra/inter distance": 1.0 - 0.01 * update + noise * rng.normal(),
                         "seconds": 0.1})
    return pd.DataFrame(rows)


def _setups(slope_iso, slope_sil):
    from anisotropy.claims.classifier_geometry.classifier import check_values

    out = {}
    for task, name in claim.SETUP_NAMES.items():
        setup = claim.Setup(task, "org/enc", _trajectory(slope_iso, slope_sil), 100, 100)
        setup.checks = check_values(setup.trajectory)
        out[name] = setup
    return out


def _grade(setups, appendix=None):
    results = Results(claim.SLUG, parameters={}, profile="test")
    claim.grade(results, setups, appendix or {})
    return results


def test_the_checks_are_the_declared_ones():
    assert set(claim.CHECKS) == set(load_checks(claim.SLUG))


def test_isotropy_traded_for_clusters_is_reproduced():
    results = _grade(_setups(-0.01, 0.02))
    verdicts = {(c.check, c.subject): c.verdict for c in results.checks}
    for name in ("polarity", "SNLI"):
        assert verdicts[("anticorrelation", name)] == "reproduced"
        assert verdicts[("isoscore-falls", name)] == "reproduced"
        assert verdicts[("silhouette-rises", name)] == "reproduced"
        assert verdicts[("classes-collapse", name)] == "finding"
    assert verdicts[("anticorrelation-word2vec", "POS tagging")] == "not run"


def test_metrics_that_rise_together_are_not_anticorrelated():
    results = _grade(_setups(0.01, 0.02))
    verdicts = {(c.check, c.subject): c.verdict for c in results.checks}
    assert verdicts[("anticorrelation", "polarity")] == "not reproduced"
    assert verdicts[("isoscore-falls", "polarity")] == "not reproduced"


SBERT = "sentence-transformers/all-MiniLM-L6-v2"


def test_the_appendix_grades_its_least_negative_setup_of_the_papers_encoders():
    trained = {"mini/rte": claim.Setup("rte", SBERT, _trajectory(-0.01, 0.02), 50, 50),
               "mini/cola": claim.Setup("cola", SBERT, _trajectory(-0.01, 0.0005, noise=0.02),
                                        50, 50),
               "mini/snli (validation)": claim.Setup("snli", SBERT,
                                                     _trajectory(0.01, 0.02), 50, 50),
               "gemma/rte": claim.Setup("rte", "google/gemma-3-270m",
                                        _trajectory(0.01, 0.02), 50, 50)}
    results = _grade(_setups(-0.01, 0.02), trained)
    record = next(c for c in results.checks if c.check == "appendix-anticorrelation")
    rows = dict(zip(trained, (r["Pearson r"] for r in claim.appendix_rows(trained)),
                    strict=True))
    # SNLI is not in the paper's appendix, Gemma not one of its SBERT encoders: both are
    # positively correlated here and neither is graded
    assert record.details["least negative setup"] == "mini/cola"
    assert record.measured == rows["mini/cola"] > rows["mini/rte"]
    assert record.model == SBERT
    assert set(record.details["shown, not graded"]) == {"mini/snli (validation)", "gemma/rte"}


def test_an_appendix_without_the_papers_encoders_is_not_run():
    other = {"gemma/rte": claim.Setup("rte", "google/gemma-3-270m", _trajectory(-0.01, 0.02),
                                      50, 50)}
    record = next(c for c in _grade(_setups(-0.01, 0.02), other).checks
                  if c.check == "appendix-anticorrelation")
    assert record.verdict == "not run" and "SBERT" in record.note


class _FakeEncoder:
    name = "fake"

    def __init__(self):
        self.resolved = self

    def describe(self):
        return {"name": "fake", "kind": "encoder"}

    def encode_sentences(self, sentences, pooling="mean", normalize=True):
        rng = np.random.default_rng(len(sentences))
        X = rng.normal(size=(len(sentences), 16))
        return X / np.linalg.norm(X, axis=1, keepdims=True)


def test_measure_and_grade_run_end_to_end_on_a_fake_encoder():
    settings = claim.Settings(model="fake", n_items=40, n_updates=6, n_seeds=2, metric_every=2,
                              glue_tasks=["rte"], glue_models=["fake"], glue_updates=6,
                              glue_seeds=2, glue_max_items=40, glue_metric_sample=30,
                              glue_metric_every=2)
    seen = []
    encoders = claim.EncoderPool(settings, on_model=seen.append,
                                 load=lambda name, **kwargs: _FakeEncoder())
    setups = claim.measure_setups(settings, encoders)
    appendix = claim.measure_appendix(settings, encoders)
    results = _grade(setups, appendix)
    assert len(seen) == 1  # one encoder, loaded once
    assert {c.check for c in results.checks} == set(claim.CHECKS)
    assert set(setups) == {"polarity", "SNLI"} and list(appendix) == ["fake/rte"]
    assert setups["polarity"].trajectory["update"].max() == 6
    # a subset of items (n_items): each seed trains on its own subset, and the seeds' spread
    # carries the items (no half-sample draws); with every item, one shared sample does
    assert sorted(setups["SNLI"].trajectory["seed"].unique()) == [0, 1]
    assert setups["SNLI"].item_changes is None and len(setups["SNLI"].subset_changes) == 2
    rises = next(c for c in results.checks if c.check == "silhouette-rises"
                 and c.subject == "SNLI")
    assert "subsets of the items" in rises.interval_method
    seed0 = setups["SNLI"].trajectory.query("seed == 0")
    own = (seed0.loc[seed0["update"] == seed0["update"].max(), "silhouette"].iloc[0]
           - seed0.loc[seed0["update"] == 0, "silhouette"].iloc[0])
    assert rises.details["subset changes"][0] == pytest.approx(own)  # run 0 is seed 0
    first, second = (claim.setup_task(settings, "snli", 40, run) for run in (0, 1))
    assert first["sentences"] != second["sentences"]
    assert first["sentences"] == claim.setup_task(settings, "snli", 40)["sentences"]
    assert list(claim.setup_runs(settings)) == [0, 1]
    assert list(claim.setup_runs(claim.Settings(n_items=None))) == [0]
    names = [job.corpus for job in claim.inputs(settings) if "snli" in job.corpus]
    assert any(name.endswith("-run1") for name in names)


def test_the_limit_cases_are_their_extremes():
    limits = claim.limit_cases(claim.Settings(limit_points=200))
    assert limits.loc["collapsed classes", "silhouette"] > 0.99
    assert abs(limits.loc["isotropic Gaussian", "silhouette"]) < 0.05
    assert limits.loc["collapsed classes", "IsoScore"] < limits.loc["isotropic Gaussian",
                                                                     "IsoScore"]
