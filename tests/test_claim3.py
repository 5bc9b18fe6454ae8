"""Claim 3's measurements and grading without a real model (seconds).

Part A: spaces whose norms and neighbourhoods are built to depend on frequency (or not)
must be graded as constructed. Part B: whitening and the flow run end to end on a fake
encoder (synthetic token vectors) over small samples of the real STS tasks."""

from __future__ import annotations

import numpy as np
import pytest
from synthetic import token_embeddings

from anisotropy.claims.frequency import claim
from anisotropy.claims.frequency import measure as frequency
from anisotropy.report.checks import load_checks
from anisotropy.report.results import Results

SETTINGS = claim.Settings(models=["fake"], n_boot=100)


def _space(coupling: float, seed: int = 0):
    """Vectors whose norm falls with log frequency by ``coupling`` (0: independent)."""
    rng = np.random.default_rng(seed)
    counts = np.round(1e5 / np.arange(1, 801) ** 1.1) + 1
    directions = rng.normal(size=(800, 16))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    norms = 3 - coupling * np.log(counts) / np.log(counts).max() + 0.05 * rng.normal(size=800)
    return directions * norms[:, None], counts


def _geometry(coupling: float) -> claim.FrequencyGeometry:
    out = claim.FrequencyGeometry()
    for space, owner in (("model: input embeddings", ("org/model", "encoder")),
                         ("GloVe 50d: corpus counts", ("glove-6B-50d", "static"))):
        X, counts = _space(coupling)
        out.spaces[space], out.owners[space] = (X, counts), owner
        row, out.bins[space] = frequency.frequency_geometry(X, counts, k=5, n_boot=100)
        out.intervals[space] = {key: row.pop(f"{key} interval")
                                for key in claim.FREQUENCY_CHECKS.values()}
        out.geometry[space] = row
    return out


def _verdicts(results) -> dict:
    return {(c.check, c.model, c.subject): c.verdict for c in results.checks}


def test_the_checks_are_the_declared_ones():
    assert set(claim.CHECKS) == set(load_checks(claim.SLUG))


def test_norms_that_fall_with_frequency_are_reproduced_and_glove_is_a_control():
    results = Results(claim.SLUG, parameters={}, profile="test")
    claim.grade_frequency(results, _geometry(coupling=1.0))
    verdicts = _verdicts(results)
    assert verdicts[("norm-frequency", "org/model", "input embeddings")] == "reproduced"
    assert verdicts[("norm-frequency", "glove-6B-50d", "corpus counts")] == "control"


def test_norms_independent_of_frequency_are_not_reproduced():
    results = Results(claim.SLUG, parameters={}, profile="test")
    claim.grade_frequency(results, _geometry(coupling=0.0))
    assert _verdicts(results)[("norm-frequency", "org/model", "input embeddings")] in (
        "not reproduced", "inconclusive")


class _FakeEncoder:
    name, n_layers = "org/fake", 2

    def __init__(self, folder):
        self.folder, self.resolved, self.kind, self.calls = folder, self, "encoder", 0

    def encode_tokens(self, sentences, layers=None):
        self.calls += 1
        return token_embeddings(self.folder / str(self.calls), [0.0, 0.3, 0.6],
                                [0.2, 0.4, 0.6], n_sentences=len(sentences),
                                words_per_sentence=4, seed=self.calls)


def test_calibration_runs_end_to_end_on_a_fake_encoder(tmp_path):
    settings = claim.Settings(models=["fake"], tasks=["STS-B"], max_pairs=60,
                              n_nli_sentences=80, flow_steps=5, n_flow_seeds=2, flow_refits=3,
                              n_boot=50, flow_sweep=[0, 0.01])
    calibrated = claim.measure_calibration(settings, {"org/fake": _FakeEncoder(tmp_path)},
                                           claim.sts_corpus(settings)[1]())
    results = Results(claim.SLUG, parameters={}, profile="test")
    claim.grade_calibration(results, calibrated)
    assert {c.check for c in results.checks} == set(claim.CALIBRATION_CHECKS)
    flow = calibrated["org/fake"].checks["flow-helps"]
    assert sorted(flow.details["per seed"]) == [0, 1]  # one fit per flow seed
    assert flow.interval.low <= flow.value <= flow.interval.high
    assert "flow refitted in every draw" in flow.interval.method  # 3 refits behind it
    # the per-task rows: one task here, so its change is the graded average's
    value, interval = calibrated["org/fake"].per_task["STS-B"]["flow"]
    assert value == pytest.approx(flow.value) and interval.low <= value <= interval.high
    from anisotropy.claims.frequency import page

    table = page.task_change_table(calibrated, ["STS-B"])
    assert list(table.index) == ["STS-B"] and "fake flow" in table.columns
    assert table.loc["STS-B", "Paper whitening (BERT-base)"] == "12.4"  # 71.43 - 59.04
    # the budget sweep: centring alone, then 1% of BERT-flow's 269 steps on STS-B
    sweep = calibrated["org/fake"].sweep
    assert sweep["steps"].tolist() == [0, 2] and sweep["task"].tolist() == ["STS-B"] * 2
    # whitening's interval refits it in every draw, around the measured change
    whitening = calibrated["org/fake"].checks["whitening-helps"]
    assert "refitted" in whitening.interval.method
    assert whitening.interval.low < whitening.value < whitening.interval.high


@pytest.mark.parametrize("with_subsets", [False, True])
def test_whitening_refit_draws_score_the_whitening_they_fit(with_subsets):
    """A draw of all pairs once each is the point estimate; the draws spread around it."""
    from anisotropy.claims import sts
    from anisotropy.claims.frequency import calibration
    from anisotropy.geometry.transforms import Whitening

    rng = np.random.default_rng(0)
    base = rng.normal(size=(200, 5)) @ np.diag([6, 1, 1, 1, 1]) + 3
    first, second = np.arange(100), np.arange(100, 200)
    gold = (base[first] - base[second])[:, 1:].sum(axis=1) + rng.normal(size=100)
    subsets = np.repeat(["a", "b"], 50) if with_subsets else None
    key = "spearman_wmean" if with_subsets else "spearman_all"
    whitening = Whitening(n_components=3).fit(base)
    point = (sts.evaluate_sts(whitening.transform(base[first]),
                              whitening.transform(base[second]), gold, subsets)[key]
             - sts.evaluate_sts(base[first], base[second], gold, subsets)[key])
    draws = calibration.whitening_refit_draws(base, first, second, gold, subsets, 3, 40, 1)
    assert draws.shape == (40,) and np.isfinite(draws).all()
    assert draws.min() < point < draws.max()
    assert abs(np.median(draws) - point) < 2 * draws.std()


def test_refit_interval_is_satterthwaite_over_tasks():
    """Two tasks' refit draws: the half-width is t(df) sqrt(s1^2 + s2^2) / 2 with the
    Welch-Satterthwaite df; no draws give None; many draws give about the normal's 1.96."""
    from scipy import stats

    from anisotropy.claims.frequency import calibration

    rng = np.random.default_rng(2)
    a, b = rng.normal(0, 1, 5), rng.normal(0, 3, 5)
    pairs = {("x", "gold"): np.zeros(10), ("y", "gold"): np.zeros(20),
             ("x", "flow refit"): a, ("y", "flow refit"): b}
    got = calibration.refit_interval(1.0, pairs, ["x", "y"], "flow")
    v = np.array([a.var(ddof=1), b.var(ddof=1)])
    df = v.sum() ** 2 / (v ** 2 / 4).sum()
    half = stats.t.ppf(0.975, df) * np.sqrt(v.sum()) / 2
    assert (got.low, got.high) == pytest.approx((1 - half, 1 + half))
    assert "df = " in got.method and "30 pairs in 2 tasks" in got.method
    assert calibration.refit_interval(1.0, pairs, ["x", "y"], "whitening") is None
    tied = {("x", "gold"): np.zeros(10), ("x", "flow refit"): np.full(5, 2.0)}
    flat = calibration.refit_interval(2.0, tied, ["x"], "flow")
    assert (flat.low, flat.high) == (2.0, 2.0)
    many = {("x", "gold"): np.zeros(10), ("x", "whitening refit"): rng.normal(0, 1, 4000)}
    wide = calibration.refit_interval(0.0, many, ["x"], "whitening")
    assert wide.high == pytest.approx(1.96 * many[("x", "whitening refit")].std(ddof=1),
                                      rel=0.01)


def test_flow_refit_draws_refit_a_flow_per_draw():
    """Each draw fits a new flow (its own stream), so draws differ and are reproducible;
    the flow's check then takes its interval from them."""
    from anisotropy.claims.frequency import calibration

    rng = np.random.default_rng(0)
    base = rng.normal(size=(120, 4)) @ np.diag([5, 1, 1, 1]) + 2
    first, second = np.arange(60), np.arange(60, 120)
    gold = (base[first] - base[second])[:, 1:].sum(axis=1) + rng.normal(size=60)
    draws = calibration.flow_refit_draws(base, first, second, gold, None, 5, 3, 7)
    assert draws.shape == (3,) and np.isfinite(draws).all() and np.unique(draws).size == 3
    assert np.array_equal(draws, calibration.flow_refit_draws(base, first, second, gold,
                                                              None, 5, 3, 7))


def test_flow_budget_is_bert_flows_epoch():
    """BERT-flow counts int(pairs / 32 * epochs) steps over the task's every split
    (run_siamese.py with use_full_for_training=1); STS-B's 5,749 + 1,500 + 1,379 pairs make
    269 steps, STS12-16 read their one file three times."""
    from anisotropy.claims.frequency.calibration import (
        BERT_FLOW_BATCH,
        BERT_FLOW_FIT,
        flow_budget,
        flow_fit_pairs,
        task_flow_budget,
    )
    from anisotropy.inputs import tasks

    assert BERT_FLOW_BATCH == 64
    assert flow_budget(640) == 20 and flow_budget(639) == 19 and flow_budget(1) == 1
    assert flow_budget(640, epochs=3) == 60 and flow_budget(640, 0.5, 16) == 20
    with pytest.raises(ValueError, match="epochs > 0"):
        flow_budget(10, epochs=0)
    assert flow_fit_pairs("STS-B") == 5749 + 1500 + 1379
    assert task_flow_budget("STS-B") == 269
    assert flow_fit_pairs("STS16") == 3 * len(tasks.sts_task("STS16"))
    assert set(BERT_FLOW_FIT) == set(tasks.names("sts"))  # every declared task has one
    with pytest.raises(ValueError, match="BERT_FLOW_FIT"):
        flow_fit_pairs("STS17")


def test_epoch_batches_visit_every_point_once_per_pass():
    """Batches without replacement: one pass is a permutation cut into full batches."""
    import torch

    from anisotropy.claims.frequency.calibration import epoch_batches

    generator = torch.Generator().manual_seed(0)
    batches = epoch_batches(70, 16, generator)
    assert [len(b) for b in batches] == [16] * 4
    seen = torch.cat(batches)
    assert seen.unique().numel() == 64 and int(seen.max()) < 70
    assert [len(b) for b in epoch_batches(10, 16, generator)] == [10]


def test_the_budget_sweep_continues_one_start():
    """Each budget is one fit from the same start and batches, so the shortest budget of a
    sweep is the same fit as a sweep of that budget alone; zero steps is centring alone."""
    from anisotropy.claims import sts
    from anisotropy.claims.frequency.calibration import flow_sweep

    rng = np.random.default_rng(0)
    base = rng.normal(size=(60, 6)) + np.r_[3.0, 0, 0, 0, 0, 0]
    first, second = np.arange(0, 30), np.arange(30, 60)
    gold = rng.uniform(0, 5, size=30)
    sweep = flow_sweep(base, first, second, gold, None, (0, 2, 8), seed=3)
    assert sweep["steps"].tolist() == [0, 2, 8]
    alone = flow_sweep(base, first, second, gold, None, (2,), seed=3)
    assert alone["change"].iloc[0] == sweep["change"].iloc[1]
    centred = base - base.mean(axis=0)
    expected = (sts.evaluate_sts(centred[first], centred[second], gold, None)["spearman_all"]
                - sts.evaluate_sts(base[first], base[second], gold, None)["spearman_all"])
    assert sweep["change"].iloc[0] == pytest.approx(expected)
    assert np.isfinite(sweep["change"]).all()


def test_adam_weight_decay_step_is_berts_uncorrected_adam():
    """Against a plain numpy transcription of google-research/bert's
    AdamWeightDecayOptimizer (no bias correction, decay added to the update), over a few
    steps; and the first step's closed form: m = 0.1 g, v = 0.001 g^2, so the update is
    0.1 g / (sqrt(0.001) |g| + eps) + wd theta, about 3.16 sign(g) + wd theta."""
    import torch

    from anisotropy.claims.frequency.calibration import adam_weight_decay_step

    rng = np.random.default_rng(0)
    theta0 = rng.normal(size=5)
    grads = rng.normal(size=(4, 5))
    param = torch.tensor(theta0.copy())
    m, v = torch.zeros(5, dtype=torch.float64), torch.zeros(5, dtype=torch.float64)
    ref_theta, ref_m, ref_v = theta0.copy(), np.zeros(5), np.zeros(5)
    for t, g in enumerate(grads):
        adam_weight_decay_step(param, torch.tensor(g), m, v, 1e-3, 0.01)
        ref_m = 0.9 * ref_m + 0.1 * g
        ref_v = 0.999 * ref_v + 0.001 * g * g
        ref_theta = ref_theta - 1e-3 * (ref_m / (np.sqrt(ref_v) + 1e-6) + 0.01 * ref_theta)
        if t == 0:
            first = theta0 - 1e-3 * (0.1 * g / (np.sqrt(0.001) * np.abs(g) + 1e-6)
                                     + 0.01 * theta0)
            np.testing.assert_allclose(param.numpy(), first, rtol=1e-12)
    np.testing.assert_allclose(param.numpy(), ref_theta, rtol=1e-12)
    np.testing.assert_allclose(m.numpy(), ref_m, rtol=1e-12)


def test_budget_texts_say_which_budget_is_graded():
    from anisotropy.claims.frequency import page

    own = page.flow_budget_texts(["STS-B"], None, 1.0, (0, 1), "STS-B")
    assert own["flow_steps_text"].endswith("STS-B 269 steps")
    assert own["graded_budget"].startswith("BERT-flow's budget")
    assert own["sweep_budgets"] == "0 (centring alone), 1× (269 steps)"
    fixed = page.flow_budget_texts(["STS-B"], 60, 1.0, (), "STS-B")
    assert fixed["flow_steps_text"].startswith("60 steps") and "269" in fixed["flow_steps_text"]
    assert "not BERT-flow's" in fixed["graded_budget"] and fixed["sweep_budgets"] == "no budget"


def test_the_flow_takes_bert_flows_coupling_width():
    from anisotropy.claims.frequency import page
    from anisotropy.claims.frequency.calibration import FlowCalibration

    assert FlowCalibration().hidden == 32  # config_l3_d3_w32 in BERT-flow's run_siamese.py
    text = page.flow_budget_texts(["STS-B"], None, 1.0, (), "STS-B")["flow_architecture"]
    assert "two hidden layers of 32 units" in text and "config_l3_d3_w32" in text
