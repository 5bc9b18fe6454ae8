"""Claim 4's measurements and grading on a fake encoder (seconds, no model).

The fake encoder's token vectors share one strong direction (an anisotropic space), so the
cluster-based method must raise their isotropy; every declared check is recorded."""

from __future__ import annotations

import numpy as np
import pytest
from synthetic import token_embeddings

from anisotropy.claims.cluster_isotropy import claim
from anisotropy.report.checks import load_checks
from anisotropy.report.results import Results

SETTINGS = claim.Settings(models=["org/fake"], tasks=["STS-B", "STS16"], max_pairs=40, n_clusters=3,
                          n_components=2, fit_max_tokens=600, iso_max_tokens=600, n_boot=50,
                          fits=3,
                          sst2_train_items=60, finetune_tasks=[], sweep_task="STS-B",
                          sweep_clusters=[1, 3], sweep_components=[0, 2])


class _FakeEncoder:
    name, n_layers, dim = "org/fake", 2, 24

    def __init__(self, folder):
        self.folder, self.resolved, self.kind, self.calls = folder, self, "encoder", 0

    def encode_tokens(self, sentences, layers=None):
        self.calls += 1
        return token_embeddings(self.folder / str(self.calls), [0.0, 2.0, 3.0],
                                [0.3, 0.4, 0.5], n_sentences=len(sentences),
                                words_per_sentence=6, seed=self.calls)


def _measured(tmp_path):
    return claim.measure(SETTINGS, claim.sts_corpus(SETTINGS)[1](),
                         load=lambda name, **kwargs: _FakeEncoder(tmp_path))


def test_the_checks_are_the_declared_ones():
    assert set(claim.CHECKS) == set(load_checks(claim.SLUG))


def test_the_method_raises_isotropy_and_every_check_is_recorded(tmp_path):
    measured = _measured(tmp_path)
    results = Results(claim.SLUG, parameters={}, profile="test")
    claim.grade_sts(results, SETTINGS, measured)
    probe, probes = claim.measure_sst2(SETTINGS, measured)
    assert isinstance(probes["org/fake"], claim.SST2Probe)
    assert list(probes["org/fake"].table["method"]) == ["Baseline", "K-means+Mean+PCA"]
    claim.grade_sst2(results, measured, probes)
    runs, kind = claim.measure_finetuning(SETTINGS)
    claim.grade_finetuning(results, SETTINGS, runs, kind)
    checks = {c.check: c for c in results.checks}
    assert set(checks) == set(claim.CHECKS)
    # most of the attainable gain on a one-direction space, on every task and fit
    assert 0.5 < checks["isotropy-gain"].measured <= 1
    assert checks["isotropy-gain"].details["fits"] == 3
    fits = measured["org/fake"].fits
    assert sorted(set(fits["fit"])) == [0, 1, 2] and (fits["method"] > fits["baseline"]).all()
    # fit 0 is the comparison's own fit; the others redraw the fit sample and start
    assert fits.groupby("task")["method"].nunique().min() > 1
    table = measured["org/fake"].comparison
    own = table[(table["mode"] == "transductive") & (table["method"] == "K-means+Mean+PCA")]
    assert np.allclose(fits[fits["fit"] == 0].set_index("task")["method"].sort_index(),
                       own.set_index("task")["log10 I(W)"].sort_index())
    # the STS checks' fits: fit 0's Spearman is the comparison's, refits move the method's
    spearman = own.set_index("task")["spearman"].sort_index()
    assert np.allclose(fits[fits["fit"] == 0].set_index("task")["spearman K-means+Mean+PCA"]
                       .sort_index(), spearman)
    assert fits.groupby("task")["spearman K-means+Mean+PCA"].nunique().min() > 1
    assert fits.groupby("task")["spearman Baseline"].nunique().max() == 1
    assert "fits per task" in checks["sts-improves"].interval_method
    per_task = [c for c in results.checks if c.check == "sts-improves-per-task"]
    assert all("quadrature" in c.details["interval method"] for c in per_task)
    assert {c.verdict for c in per_task} == {"finding"}
    # the conjunction over tasks: the worst task's change and the smallest interval ends
    every = checks["sts-improves-every-task"]
    assert every.measured == min(c.measured for c in per_task)
    assert every.interval[0] == min(c.details["95% interval"][0] for c in per_task)
    # the upper end is simultaneous over the tasks: wider than the pointwise smallest
    assert every.interval[1] >= min(c.details["95% interval"][1] for c in per_task)
    assert every.details["worst task"] in {c.subject for c in per_task}
    assert checks["finetune-accuracy-falls"].verdict == "not run"
    table = measured["org/fake"].comparison
    transductive = table[table["mode"] == "transductive"]
    for _, task in transductive.groupby("task"):
        by_method = task.set_index("method")["log10 I(W)"]
        assert by_method["K-means+Mean+PCA"] > by_method["Baseline"]
    assert len(probe["dev_labels"]) > 0 and np.isfinite(checks["sst2-probe"].measured)
    refits = checks["sst2-probe"].details["refit changes"]
    assert len(refits) == 3 and refits[0] == checks["sst2-probe"].details["first fit's change"]
    assert checks["sst2-probe"].measured == pytest.approx(np.mean(refits))
    assert checks["sst2-probe"].verdict == "finding"
    assert "training sentences resampled" in checks["sst2-probe"].details["interval method"]
    from anisotropy.claims.cluster_isotropy import page

    rows = page.task_change_table(results, measured, ["STS-B", "STS16"])
    assert list(rows.index) == ["STS-B", "STS16"]
    assert rows.loc["STS16", "Paper I(W) after"] == "0.480"
    assert rows.loc["STS-B", "fake Spearman change"].count("[") == 1


def test_the_sweep_covers_every_k_and_d(tmp_path):
    sweep = claim.measure_sweep(SETTINGS, _measured(tmp_path), claim.sts_corpus(SETTINGS)[1]())
    assert sorted(zip(sweep["K"], sweep["D"], strict=True)) == [(1, 0), (1, 2), (3, 0), (3, 2)]


def test_one_task_is_refused_before_any_forward_pass():
    import pytest

    from anisotropy.inputs.settings import SettingsError

    with pytest.raises(SettingsError, match=r"tasks must be a list of at least 2 items"):
        claim.Settings(tasks=["STS-B"])


def test_attainable_share_is_the_gain_over_what_is_left_to_gain():
    import pytest

    from anisotropy.claims.cluster_isotropy.methods import attainable_share, isotropy_check_values

    # from 1e-4: ending at 1 is the whole gain, at 1e-2 half of it, staying is none
    assert attainable_share([-4.0, -4.0, -4.0], [0.0, -2.0, -4.0]).tolist() == [1.0, 0.5, 0.0]
    assert attainable_share([-2.0], [-3.0])[0] == pytest.approx(-0.5)  # a loss
    with pytest.raises(ValueError, match="leaves no gain to attain"):
        attainable_share([0.0], [0.0])
    import pandas as pd

    fits = pd.DataFrame({"task": ["a", "b"] * 3, "fit": [0, 0, 1, 1, 2, 2],
                         "baseline": [-4.0, -2.0] * 3,
                         "method": [-1.0, -1.0, -0.4, -1.0, -0.4, -0.5],
                         "global": [-2.0, -1.5] * 3})
    values = isotropy_check_values(fits, ["a", "b"])
    gain = values["isotropy-gain"]
    share, interval, details = gain.value, gain.interval, gain.details
    # per fit the smaller share: min(0.75, 0.5), min(0.9, 0.5), min(0.9, 0.75)
    assert share == pytest.approx((0.5 + 0.5 + 0.75) / 3) and details["worst task"] == "b"
    assert interval.low < share < interval.high
    end = values["isotropy-end-state"].value
    assert end == pytest.approx((10 ** -1 + 10 ** -1 + 10 ** -0.5) / 3)
    # over the best global method (-2 on a, -1.5 on b): per fit the smaller share,
    # min(0.5, 1/3), min(0.8, 1/3), min(0.8, 2/3)
    over, details = (values["isotropy-beats-global-share"].value,
                     values["isotropy-beats-global-share"].details)
    assert over == pytest.approx((1 / 3 + 1 / 3 + 2 / 3) / 3)
    assert details["best global log10 I(W) per task"] == {"a": -2.0, "b": -1.5}
    # the graded direction: per fit the smaller log10 difference, min(1, 0.5), min(1.6,
    # 0.5), min(1.6, 1)
    above, details = values["isotropy-beats-global"].value, values["isotropy-beats-global"].details
    assert above == pytest.approx((0.5 + 0.5 + 1.0) / 3) and details["worst task"] == "b"


def test_fit_spread_widens_the_pairs_interval_by_one_fits_spread():
    """One task: the spread interval is t(n-1) * s of the fits' changes (one fit, not a
    mean), combined with the pairs' half-width in quadrature."""
    import pandas as pd
    from scipy import stats

    from anisotropy.claims.cluster_isotropy.methods import fit_spread, with_fit_spread
    from anisotropy.geometry.intervals import Interval

    fits = pd.DataFrame({"task": ["a"] * 4, "fit": range(4),
                         "spearman Baseline": [50.0] * 4,
                         "spearman K": [52.0, 51.0, 54.0, 53.0]})
    changes = fit_spread(fits, ["a"], "K", "Baseline")
    assert changes[0].tolist() == [2.0, 1.0, 4.0, 3.0]
    got = with_fit_spread(2.0, Interval(1.0, 3.0, "pairs"), changes)
    spread = stats.t.ppf(0.975, 3) * np.std([2, 1, 4, 3], ddof=1)
    assert got.as_list() == [2.0 - np.hypot(1.0, spread), 2.0 + np.hypot(1.0, spread)]


def test_every_task_is_an_intersection_union_test_with_a_simultaneous_upper_end():
    from scipy.stats import norm

    from anisotropy.claims.base import CheckValue
    from anisotropy.claims.cluster_isotropy.methods import every_task
    from anisotropy.geometry.intervals import Interval

    changes = {"a": CheckValue(5.0, Interval(3.0, 7.0, "m"), None),
               "b": CheckValue(1.0, Interval(-0.5, 2.5, "m"), None),
               "c": CheckValue(2.0, Interval(1.0, 3.0, "m"), None)}
    out = every_task(changes)
    widen = norm.ppf(0.975 ** (1 / 3)) / norm.ppf(0.975)
    assert out.value == 1.0 and out.details["worst task"] == "b"
    assert out.interval.low == -0.5                      # any task's lower end below 0
    assert out.interval.high == pytest.approx(min(5 + 2 * widen, 1 + 1.5 * widen, 2 + widen))
    assert out.details["tasks whose own interval lies above 0"] == "2 of 3"
    # one task: the task's own interval
    alone = every_task({"b": changes["b"]})
    assert (alone.interval.low, alone.interval.high) == pytest.approx((-0.5, 2.5))
    with pytest.raises(ValueError, match="at least one"):
        every_task({})
