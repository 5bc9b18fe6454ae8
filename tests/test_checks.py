"""The check engine (declarations, grading, results, ledger) and the interval helpers.

Intervals are tested against closed forms (the t-interval, the chi-square interval of a
standard deviation, the normal-theory interval of a mean) and against scipy; the engine
against a truth table and its bad-input contract (a bad declaration fails naming the check).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from scipy.stats import pearsonr, spearmanr

from anisotropy.book.ledger import write_ledger
from anisotropy.book.rows import format_measured
from anisotropy.book.runner import SLUGS
from anisotropy.claims import sts
from anisotropy.claims.classifier_geometry.classifier import check_values as classifier_checks
from anisotropy.claims.clusters import measure as clusters
from anisotropy.claims.clusters import similarities as cluster_similarities
from anisotropy.claims.layerwise import measure as layerwise
from anisotropy.claims.layerwise.sentence_units import SentenceUnits
from anisotropy.geometry import intervals, similarity
from anisotropy.geometry.intervals import Interval
from anisotropy.inputs.data import PROJECT_ROOT as ROOT
from anisotropy.inputs.models import FAMILIES
from anisotropy.report import checks
from anisotropy.report.checks import CheckError, CheckSpec, grade, load_checks
from anisotropy.report.results import Results, ResultsError, load_results

RNG = np.random.default_rng(7)


# ------------------------------------------------------------------ grading


@pytest.mark.parametrize("comparator, interval, verdict", [
    ("<", (0.01, 0.04), "reproduced"),
    ("<", (0.05, 0.09), "not reproduced"),   # low == threshold is not "< threshold"
    ("<", (0.04, 0.06), "inconclusive"),
    ("<=", (0.01, 0.05), "reproduced"),
    ("<=", (0.0501, 0.09), "not reproduced"),
    (">", (0.06, 0.10), "reproduced"),
    (">", (0.01, 0.05), "not reproduced"),
    (">", (0.04, 0.06), "inconclusive"),
    (">=", (0.05, 0.10), "reproduced"),
    (">=", (0.00, 0.0499), "not reproduced"),
])
def test_grade_truth_table(comparator, interval, verdict):
    assert grade(interval, comparator, 0.05) == verdict


def test_grade_refuses_bad_input():
    with pytest.raises(CheckError, match="comparator"):
        grade((0, 1), "==", 0.5)
    with pytest.raises(CheckError, match="low > high"):
        grade((1, 0), "<", 0.5)


# ------------------------------------------------------------------ declarations


def _spec(**overrides):
    fields = dict(id="demo", claim="01-layerwise-anisotropy", label="Demo",
                  statement="A statement.",
                  section="Sec. 1", anchor="", references=("claim1/mev_headline/value",),
                  quantity="a share", comparator="<", threshold=0.05,
                  threshold_basis="book", reason="the book's reading.", bounds=(-1, 1),
                  scope=("masked-lm", "causal-lm"), studied="BERT and GPT-2")
    fields.update(overrides)
    return CheckSpec(**fields)


@pytest.mark.parametrize("overrides, message", [
    ({"label": ""}, "label is empty"),
    ({"label": "x" * 41}, "longer than 40 characters"),
    ({"references": ("claim1/no_such_key",)}, "unknown reference key 'claim1/no_such_key'"),
    ({"references": ()}, "no reference key"),
    ({"threshold": 2.0}, "threshold 2.0 is outside the quantity's range"),
    ({"comparator": "~"}, "comparator '~'"),
    ({"threshold": "0.05"}, "basis is 'paper' or 'derived'"),
    ({"threshold": "0.05", "threshold_basis": "paper"}, "cites no reference"),
    ({"threshold": 0.05, "threshold_basis": "paper"}, "not a number typed by hand"),
    ({"threshold_basis": None}, "threshold_basis None not in"),
    ({"threshold": "{claim1/mev_headline/value} + os", "threshold_basis": "derived"},
     "does not allow"),
    ({"threshold": "{claim4/per_task/proposed|2}", "threshold_basis": "paper"},
     "not one finite number"),
    ({"reason": " "}, "needs its reason"),
    ({"exempt": {"kind:encoder": ""}}, "exemption 'kind:encoder' has no reason"),
    ({"controls": {"GloVe*": None}}, "control 'GloVe\\*' has no reason"),
    ({"kind": "finding"}, "a finding has no comparator"),
    ({"bounds": (1, -1)}, "bounds"),
    ({"paper_value": "claim1/no_such_key"}, "paper_value 'claim1/no_such_key' is not a key"),
    ({"paper_value": {"polarity": "claim1/mev_headline"}}, "not a number"),
])
def test_bad_declarations_fail_naming_the_check(overrides, message):
    with pytest.raises(CheckError, match=f"demo.*{message}|{message}.*demo"):
        _spec(**overrides)


@pytest.mark.parametrize("interval, verdict", [
    ((-0.5, 0.5), "reproduced"),          # inside the margin
    ((-1.0, 1.0), "reproduced"),          # the edges belong to it
    ((1.2, 2.0), "not reproduced"),       # wholly outside, above
    ((-3.0, -1.01), "not reproduced"),    # wholly outside, below
    ((0.5, 1.5), "inconclusive"),         # crosses an edge
    ((-2.0, 2.0), "inconclusive"),        # wider than the margin
])
def test_equivalence_truth_table(interval, verdict):
    assert checks.grade_within(interval, -1.0, 1.0) == verdict


@pytest.mark.parametrize("comparator, attainable, reachable", [
    ("<", (0.2, 1.0), False),   # a floor of 0.2 above a threshold of 0.05
    ("<", (0.05, 1.0), False),  # "< 0.05" needs a value below the floor
    ("<=", (0.05, 1.0), True),
    ("<", (0.01, 1.0), True),
    (">", (-1.0, 0.05), False),
    (">=", (-1.0, 0.05), True),
])
def test_reachable_says_whether_the_papers_side_can_occur(comparator, attainable, reachable):
    assert checks.reachable(comparator, 0.05, attainable) is reachable


@pytest.mark.parametrize("overrides, message", [
    ({"kind": "equivalence", "margin": (-0.1, 0.1)},
     "has no comparator or threshold \\(it has a margin\\)"),
    ({"kind": "equivalence", "comparator": None, "threshold": None, "margin": (-0.1, 0.1),
      "threshold_basis": "paper"}, "a margin is 'derived' or 'book'"),
    ({"kind": "finding", "comparator": None, "threshold": None},
     "threshold_basis without a threshold or margin"),
    ({"kind": "equivalence", "comparator": None, "threshold": None}, "needs margin"),
    ({"kind": "equivalence", "comparator": None, "threshold": None, "margin": (2, 3)},
     "outside the quantity's range"),
    ({"kind": "equivalence", "comparator": None, "threshold": None, "margin": (None, None)},
     "needs margin"),
    ({"margin": (-0.1, 0.1)}, "only an equivalence check has a margin"),
    ({"kind": "property", "reason": ""}, "a property needs its reason"),
])
def test_bad_equivalence_and_property_declarations_fail(overrides, message):
    with pytest.raises(CheckError, match=message):
        _spec(**overrides)


def test_equivalence_property_and_sample_too_small_are_recorded_as_such():
    results = Results("01-layerwise-anisotropy", {"seed": 1}, profile="smoke")
    results.specs["null"] = _spec(id="null", kind="equivalence", comparator=None,
                                  threshold=None, margin=(-0.1, None))
    results.specs["by-construction"] = _spec(id="by-construction", kind="property",
                                             comparator=">", threshold=0.0,
                                             reason="the method centres every cluster.")
    inside = results.grade("null", "org/a", 0.0, Interval(-0.05, 0.2, "m"))
    assert inside.verdict == "reproduced" and inside.margin == [-0.1, None]
    assert "≥ -0.1" in inside.tolerance and inside.kind == "equivalence"
    assert results.grade("null", "org/b", -0.5, Interval(-0.6, -0.3, "m")).verdict == \
        "not reproduced"
    assert results.grade("null", "org/c", -0.1, Interval(-0.2, 0.0, "m")).verdict == \
        "inconclusive"
    prop = results.grade("by-construction", "org/a", 0.5, Interval(0.4, 0.6, "m"))
    assert prop.verdict == "property" and "It holds here" in prop.note
    broken = results.grade("by-construction", "org/b", -0.5, Interval(-0.6, -0.4, "m"))
    assert broken.verdict == "property" and "does not hold" in broken.note
    unsure = results.grade("by-construction", "org/c", 0.1, Interval(-0.1, 0.3, "m"))
    assert unsure.verdict == "property" and "does not decide" in unsure.note
    small = results.grade("mev-low", "org/a", 0.3, Interval(0.25, 0.35, "m"),
                          attainable=(0.24, 1.0), decide="words with >= 22 contexts")
    assert small.verdict == "sample too small" and "words with >= 22 contexts" in small.note
    assert results.grade("mev-low", "org/b", 0.03, Interval(0.02, 0.04, "m"),
                         attainable=(0.01, 1.0), decide="n").verdict == "reproduced"
    with pytest.raises(CheckError, match="say what sample size would decide it"):
        results.grade("mev-low", "org/c", 0.3, Interval(0.25, 0.35, "m"),
                      attainable=(0.24, 1.0))


def test_tolerance_text_is_generated_from_comparator_and_threshold():
    spec = _spec()
    assert spec.tolerance() == ("reproduced if the whole 95% interval is < 0.05, not reproduced "
                                "if it is >= 0.05, inconclusive if it straddles 0.05")
    assert "0.05" in spec.paper_text() and "Ethayarajh" in spec.source_text()
    assert "less than 5%" in _spec(references=("claim1/mev_headline",)).paper_text()


def test_exemptions_match_by_kind_or_name():
    spec = _spec(exempt={"kind:encoder": "paper is about decoders"},
                 controls={"kind:static": "static control", "my-org/*": "a control by name"})
    assert spec.exemption("sentence-transformers/all-MiniLM-L6-v2", "encoder")
    assert spec.exemption("HuggingFaceTB/SmolLM2-135M-Instruct", "decoder") is None
    assert spec.control("glove-6B-50d", "static") == "static control"
    assert spec.control("my-org/model", "encoder") == "a control by name"
    assert spec.control("gpt2", "decoder") is None


@pytest.mark.parametrize("slug", SLUGS)
def test_every_declared_check_loads(slug):
    specs = load_checks(slug)
    assert specs
    for spec in specs.values():
        assert spec.paper_text() and spec.source_text(), spec.id


def test_unknown_field_and_claim_are_refused(tmp_path):
    path = tmp_path / "checks.yaml"
    path.write_text("01-layerwise-anisotropy:\n  x:\n    statment: typo\n")
    with pytest.raises(CheckError, match=r"x'.*unknown field.*statment"):
        load_checks("01-layerwise-anisotropy", path)
    with pytest.raises(CheckError, match="No checks declared for claim 'nope'"):
        load_checks("nope", path)


def test_every_reference_key_cited_by_a_check_exists_and_every_check_is_documented():
    references = checks._references()
    for slug in SLUGS:
        for spec in load_checks(slug).values():
            for key in spec.references:
                checks.reference_value(key, references)


# ------------------------------------------------------------------ results and ledger


def test_results_grade_exempt_control_finding_and_ledger(tmp_path):
    results = Results("01-layerwise-anisotropy", {"seed": 1}, profile="smoke")
    results.metric("value", np.float64(0.5))
    interval = Interval(0.01, 0.02, "test method")
    check = results.grade("mev-low", "org/model-a", np.float32(0.015), interval)
    assert check.verdict == "reproduced" and check.id == "mev-low:model-a"
    assert results.grade("mev-low", "org/model-b", 0.2, Interval(0.1, 0.3, "m")).verdict == \
        "not reproduced"
    assert results.grade("mev-low", "org/model-c", 0.05, Interval(0.04, 0.06, "m")).verdict == \
        "inconclusive"
    exempt = results.grade("decoder-baseline-high", "org/encoder", None, None,
                           model_kind="encoder")
    assert exempt.verdict == "exempt" and "GPT-2" in exempt.note
    decoder = results.grade("decoder-baseline-high", "org/decoder", 0.8,
                            Interval(0.75, 0.85, "m"), model_kind="decoder")
    assert decoder.verdict == "reproduced"
    results.finding("last-layer-rise", "org/model-a", {"self-sim change": np.float64(0.1)})
    two = results.grade("baseline-rises", "org/a, org/b", 0.1, Interval(0.05, 0.15, "m"),
                        subject="layer 3")
    assert two.id == "baseline-rises:a, b / layer 3" and two.subject == "layer 3"
    with pytest.raises(CheckError, match="recorded twice"):
        results.grade("mev-low", "org/model-a", 0.015, interval)
    with pytest.raises(CheckError, match="'nope' is not declared"):
        results.grade("nope", "m", 0.0, interval)
    with pytest.raises(CheckError, match="outside the quantity's range"):
        results.grade("mev-low", "org/model-d", 3.0, interval)
    with pytest.raises(CheckError, match="needs a measured value"):
        results.grade("mev-low", "org/model-e", None, None)
    with pytest.raises(CheckError, match="finding"):
        results.grade("last-layer-rise", "org/model-e", 0.1, interval)
    path = results.write(tmp_path)
    record = json.loads(path.read_text())
    first = record["checks"][0]
    assert first["interval"] == [0.01, 0.02] and first["interval_method"] == "test method"
    assert first["comparator"] == "<" and first["threshold"] == 0.05
    assert first["reference"] == "claim1/mev_headline"
    assert record["metrics"]["value"] == 0.5 and record["profile"] == "smoke"
    assert record["environment"]["profile"] == "smoke" and record["inputs_digest"]
    assert not load_results(tmp_path)["01-layerwise-anisotropy"]["stale"]
    # other inputs than this checkout's (here: parameters that differ from those hashed)
    record["parameters"] = {"seed": 2}
    path.write_text(json.dumps(record))
    assert load_results(tmp_path, "smoke")["01-layerwise-anisotropy"]["stale"]
    with pytest.raises(ResultsError, match=r"01-layerwise-anisotropy.json was written by "
                       r"profile 'smoke', but this build is profile 'full'"):
        load_results(tmp_path, "full")
    text = write_ledger(tmp_path, tmp_path / "ledger.md", ["01-layerwise-anisotropy"],
                        profile="smoke").read_text()
    assert "Profile smoke; commit" in text
    assert "Stale" in text and "mev-low:model-a" in text and "0.0150 [0.0100, 0.0200]" in text
    assert "? inconclusive" in text and "○ exempt" in text and "< 0.05" in text
    glance = text.index("## Results at a glance")
    assert glance < text.index("Every row is one check") and "class='glance-grid'" in text
    assert "<th scope='col'>a</th>" in text and "<th scope='col'>b</th>" in text
    assert format_measured({"measured": 0.5, "interval": None}) == "0.500"


def test_interval_is_clipped_to_the_quantity_range():
    results = Results("05-isotropy-vs-clusters", {}, profile="smoke")
    check = results.grade("anticorrelation", "m", -0.95, Interval(-1.3, -0.85, "t"),
                          subject="polarity")
    assert check.interval == [-1.0, -0.85] and check.verdict == "reproduced"


# ------------------------------------------------------------------ intervals


def test_resample_counts_match_indices_and_sum_to_n():
    counts = intervals.resample_counts(50, 40, seed=3)
    indices = intervals.resample_indices(50, 40, seed=3)
    assert (counts.sum(axis=1) == 50).all()
    np.testing.assert_array_equal(counts[5], np.bincount(indices[5], minlength=50))


def test_bootstrap_of_a_mean_matches_normal_theory():
    x = RNG.normal(loc=2.0, scale=3.0, size=2000)
    draws = intervals.bootstrap_means(x, n_boot=2000, seed=1)[:, 0]
    interval = intervals.percentile_interval(
        draws, method=intervals.boot_method(2000, x.size, "draws"))
    half = 1.96 * x.std(ddof=1) / np.sqrt(x.size)
    assert interval.low == pytest.approx(x.mean() - half, abs=0.25 * half)
    assert interval.high == pytest.approx(x.mean() + half, abs=0.25 * half)
    assert "B=2000 over 2,000 draws" in interval.method
    rows = intervals.resample_indices(x.size, 2000, seed=1)[7]
    assert draws[7] == pytest.approx(x[rows].mean())  # counts and indices: one resample


def test_bootstrap_means_skip_nan_equals_nanmean_of_the_resample():
    values = RNG.normal(size=(30, 3))
    values[[2, 5], 1] = np.nan
    counts = intervals.resample_counts(30, 25, seed=0)
    draws = intervals.bootstrap_means(values, counts=counts, skip_nan=True)
    rows = np.repeat(np.arange(30), counts[4].astype(int))
    np.testing.assert_allclose(draws[4], np.nanmean(values[rows], axis=0))
    with pytest.raises(ValueError, match="NaN"):
        intervals.bootstrap_means(values, n_boot=25)


def test_seed_and_sd_intervals_match_closed_forms():
    values = np.array([0.1, 0.3, 0.2, 0.25])
    interval = intervals.seed_interval(values)
    low, high = stats.t.interval(0.95, 3, loc=values.mean(), scale=stats.sem(values))
    assert (interval.low, interval.high) == pytest.approx((low, high))
    sd = intervals.sd_interval(values)
    s = values.std(ddof=1)
    assert sd.low == pytest.approx(s * np.sqrt(3 / stats.chi2.ppf(0.975, 3)))
    assert sd.high == pytest.approx(s * np.sqrt(3 / stats.chi2.ppf(0.025, 3)))
    assert sd.low < s < sd.high


@pytest.mark.parametrize("call, message", [
    (lambda: intervals.seed_interval([0.5]), "at least 2 seeds"),
    (lambda: intervals.resample_counts(1), "at least 2 units"),
    (lambda: intervals.resample_indices(10, 5), "n_boot must be an integer >= 20"),
    (lambda: intervals.percentile_interval([np.nan] * 30, method="m"), "not finite"),
    (lambda: Interval(1.0, 0.0, "m"), "low 1.0 > high 0.0"),
    (lambda: Interval(0.0, np.inf, "m"), "finite"),
])
def test_interval_helpers_reject_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_rowwise_spearman_matches_scipy():
    x, y = RNG.normal(size=(4, 60)), RNG.normal(size=(4, 60))
    x[0, :10] = 0.0  # ties
    got = intervals.rowwise_spearman(x, y)
    expected = [stats.spearmanr(a, b)[0] for a, b in zip(x, y, strict=True)]
    np.testing.assert_allclose(got, expected)


def test_spread_half_width_by_hand():
    """Welch-Satterthwaite over groups: t_df sqrt(sum s_g^2) / G; one group gives
    t(n-1) s; ties give 0; fewer than 2 draws are refused."""
    a, b = np.array([1.0, 2.0, 4.0]), np.array([0.0, 1.0, 1.0, 3.0, 5.0])
    va, vb = a.var(ddof=1), b.var(ddof=1)
    df = (va + vb) ** 2 / (va ** 2 / 2 + vb ** 2 / 4)
    half, got_df = intervals.spread_half_width([a, b])
    assert got_df == pytest.approx(df)
    assert half == pytest.approx(stats.t.ppf(0.975, df) * np.sqrt(va + vb) / 2)
    one, one_df = intervals.spread_half_width([b])
    assert (one, one_df) == (pytest.approx(stats.t.ppf(0.975, 4) * np.sqrt(vb)), 4)
    assert intervals.spread_half_width([np.ones(3)])[0] == 0
    with pytest.raises(ValueError, match="at least 2 draws"):
        intervals.spread_half_width([a, np.ones(1)])


def test_delete_half_interval_by_hand_and_for_the_mean():
    """v = (n - d) / d * mean((theta_s - theta_bar)^2), d = n - n // 2 left out of each
    subset; centred on the estimate with t(R - 1). For the sample mean the delete-d
    jackknife over all subsets is s^2 / n exactly, so random halves come close to it."""
    draws = np.array([1.0, 2.0, 4.0, 5.0])
    n = 7  # halves of 3: d = 4
    v = 3 / 4 * np.mean((draws - 3.0) ** 2)
    got = intervals.delete_half_interval(10.0, draws, n, method="by hand")
    half = stats.t.ppf(0.975, 3) * np.sqrt(v)
    assert got.as_list() == pytest.approx([10 - half, 10 + half])
    assert "delete-4 jackknife over 7 units, 4 random halves" in got.method
    x = np.random.default_rng(3).normal(size=400)
    halves = intervals.half_samples(x.size, 4000, seed=5)
    means = x[halves].mean(axis=1)
    wide = intervals.delete_half_interval(x.mean(), means, x.size, method="mean")
    expected = stats.t.ppf(0.975, 3999) * x.std(ddof=1) / np.sqrt(x.size)
    assert (wide.high - wide.low) / 2 == pytest.approx(expected, rel=0.05)
    with pytest.raises(ValueError, match="at least 2 finite"):
        intervals.delete_half_interval(0.0, [1.0, np.nan], 10, method="m")
    with pytest.raises(ValueError, match="at least 4 units"):
        intervals.delete_half_interval(0.0, [1.0, 2.0], 3, method="m")


@settings(max_examples=20, deadline=None)
@given(st.integers(4, 300), st.integers(20, 60), st.integers(0, 2**31))
def test_half_samples_are_seeded_distinct_halves(n, draws, seed):
    halves = intervals.half_samples(n, draws, seed)
    assert halves.shape == (draws, n // 2)
    assert (np.diff(halves, axis=1) > 0).all() and halves.min() >= 0 and halves.max() < n
    np.testing.assert_array_equal(halves, intervals.half_samples(n, draws, seed))


def test_half_samples_refuse_too_few_units_or_draws():
    with pytest.raises(ValueError, match="at least 4 units; got 3"):
        intervals.half_samples(3, 20)
    with pytest.raises(ValueError):
        intervals.half_samples(10, 5)


def test_interval_arithmetic():
    a, b = Interval(1, 2, "a"), Interval(0.5, 3, "b")
    combined = intervals.combine_independent(1.5, Interval(1.2, 1.8, "s"),
                                             Interval(1.1, 1.9, "p"))
    assert combined.as_list() == pytest.approx([1.0, 2.0]) and "quadrature" in combined.method
    assert intervals.interval_of_max([a, b]).as_list() == [1, 3]


# ------------------------------------------------------------------ per-claim draws


@pytest.mark.parametrize("centre", [False, True])
def test_pair_cosine_draws_match_brute_force(centre):
    """Each draw re-centres on the window-weighted mean, normalises, and averages the
    cosines of distinct units: pairs across windows weighted c_w c_v, pairs within one
    window c_w. All-ones weights give the plain mean over pairs of distinct units."""
    from anisotropy.geometry.intervals import dirichlet_weights

    n, d, n_windows = 40, 6, 5
    X = RNG.normal(size=(n, d)) + 0.7
    windows = RNG.integers(0, n_windows, n)
    others = RNG.normal(size=(30, d)) + 0.7
    every, every_windows = np.concatenate([X, others]), np.r_[windows,
                                                              RNG.integers(0, n_windows, 30)]
    sums = cluster_similarities.window_sums(every, every_windows, n_windows) if centre else None

    def brute(c):
        mu = ((c[every_windows][:, None] * every).sum(0) / c[every_windows].sum() if centre
              else np.zeros(d))
        unit = (X - mu) / np.linalg.norm(X - mu, axis=1, keepdims=True)
        weight = np.where(windows[:, None] == windows[None, :], c[windows][:, None],
                          np.outer(c[windows], c[windows]))
        np.fill_diagonal(weight, 0)
        return (weight * (unit @ unit.T)).sum() / weight.sum()

    weights = dirichlet_weights(n_windows, 20, 1)
    got = cluster_similarities.pair_cosine_draws(X, windows, weights, sums, block=3)
    assert got == pytest.approx([brute(c) for c in weights], abs=1e-12)
    ones = cluster_similarities.pair_cosine_draws(X, windows, np.ones((1, n_windows)), sums)
    centred = X - every.mean(axis=0) if centre else X
    unit = centred / np.linalg.norm(centred, axis=1, keepdims=True)
    assert ones[0] == pytest.approx(((unit @ unit.T).sum() - n) / (n * n - n))


@pytest.mark.parametrize("centre", [False, True])
def test_pair_cosine_draws_with_types_match_brute_force(centre):
    """With unit types, pairs of one type are left out and a pair of types with r_t and
    r_u units weighs 1 / (r_t r_u) more (every pair of types counts equally), on top of
    the window weights; all-ones weights give the type-pair mean cosine."""
    from anisotropy.geometry.intervals import dirichlet_weights

    n, d, n_windows = 45, 5, 4
    X = RNG.normal(size=(n, d)) + 0.5
    windows = RNG.integers(0, n_windows, n)
    types = RNG.integers(0, 7, n)
    sums = cluster_similarities.window_sums(X, windows, n_windows) if centre else None
    r = np.bincount(types)[types]

    def brute(c):
        mu = ((c[windows][:, None] * X).sum(0) / c[windows].sum() if centre else np.zeros(d))
        unit = (X - mu) / np.linalg.norm(X - mu, axis=1, keepdims=True)
        weight = np.where(windows[:, None] == windows[None, :], c[windows][:, None],
                          np.outer(c[windows], c[windows])) / np.outer(r, r)
        weight[types[:, None] == types[None, :]] = 0
        return (weight * (unit @ unit.T)).sum() / weight.sum()

    weights = dirichlet_weights(n_windows, 20, 2)
    got = cluster_similarities.pair_cosine_draws(X, windows, weights, sums, block=5,
                                                 unit_types=types)
    assert got == pytest.approx([brute(c) for c in weights], abs=1e-12)
    ones = cluster_similarities.pair_cosine_draws(X, windows, np.ones((1, n_windows)), sums,
                                                  unit_types=types)
    centred = X - X.mean(axis=0) if centre else X
    assert ones[0] == pytest.approx(similarity.type_pair_mean_cosine(
        centred / np.linalg.norm(centred, axis=1, keepdims=True), types))
    # one unit per type: the same as without types
    single = np.unique(types, return_index=True)[1]
    assert cluster_similarities.pair_cosine_draws(
        X[single], windows[single], weights, sums, unit_types=types[single]) == pytest.approx(
        cluster_similarities.pair_cosine_draws(X[single], windows[single], weights, sums))


def test_spearman_change_draws_center_on_the_change():
    gold = RNG.normal(size=400)
    good = gold + RNG.normal(scale=0.5, size=400)
    bad = gold + RNG.normal(scale=2.0, size=400)
    draws = sts.spearman_change_draws(good, bad, gold, n_boot=400, seed=0)
    change = 100 * (stats.spearmanr(good, gold)[0] - stats.spearmanr(bad, gold)[0])
    assert np.quantile(draws, 0.025) < change < np.quantile(draws, 0.975)
    assert np.quantile(draws, 0.025) > 0  # a clear improvement is resolved
    interval = sts.mean_change_interval({"a": draws, "b": draws}, 400, {"a": 400, "b": 400})
    assert "800 pairs in 2 tasks" in interval.method
    with pytest.raises(ValueError, match="same length|one length"):
        sts.spearman_change_draws(good[:10], bad, gold)


def test_layerwise_check_values_on_a_synthetic_table():
    layers = np.arange(5)
    per_layer = pd.DataFrame({"layer": layers, "mev_uncentred_baseline": 0.02,
                              "intra_similarity_adj": [0.1, 0.2, 0.3, 0.2, 0.25]})
    words = [f"w{i}" for i in range(40)]
    rows = []
    for layer in layers:
        for i, word in enumerate(words):
            rows.append({"type": word, "layer": layer,
                         "self_similarity": 0.9 - 0.1 * layer + 0.01 * (i % 3),
                         "mev": 0.03 + 0.001 * (i % 5), "n": 60 + i,
                         "mev_uncentred": 0.025 + 0.001 * (i % 4)})
    per_word = pd.DataFrame(rows)
    base = 0.1 + 0.1 * layers[:, None] + RNG.normal(scale=0.05, size=(5, 300))
    units = SentenceUnits.independent(300, words)
    values = layerwise.check_values(per_layer, pd.DataFrame(per_word), base, units, n_boot=200)
    rises, interval = values["baseline-rises"].value, values["baseline-rises"].interval
    assert rises == pytest.approx(base[3:].mean() - base[1:3].mean())
    assert interval.low < rises < interval.high and interval.low > 0
    assert values["selfsim-falls"].value < 0 and values["mev-low"].value < 0.05
    assert set(values) == {"baseline-positive", "baseline-rises", "decoder-baseline-high",
                           "selfsim-falls", "mev-low", "last-layer-rise"}
    with pytest.raises(ValueError, match="layers"):
        layerwise.check_values(per_layer, per_word, base[:3], units, n_boot=200)
    # the graded MEV is the uncentred share (the published statistic) less the baseline; the
    # centred share's (commit 3865f9b) value and floor 1/(n-1) are details beside it
    mev, mev_details = values["mev-low"].value, values["mev-low"].details
    assert mev == pytest.approx(np.mean(0.025 + 0.001 * (np.arange(40) % 4)) - 0.02)
    assert mev_details["centred PCA (commit 3865f9b)"] == pytest.approx(
        np.mean(0.03 + 0.001 * (np.arange(40) % 5)) - 0.02)
    assert mev_details["centred floor"] == pytest.approx(np.mean(1 / (60 + np.arange(40) - 1))
                                                         - 0.02)
    # a resampled random-word baseline widens the MEV interval; a fixed one says so
    fixed = values["mev-low"].interval
    assert "baseline (uncentred TruncatedSVD, as the original code) fixed" in fixed.method
    varied = layerwise.check_values(per_layer, per_word, base, units, n_boot=200,
                                    mev_baseline_draws=0.02 + np.random.default_rng(3).normal(
                                        scale=0.01, size=(5, 200)))
    assert varied["mev-low"].value == values["mev-low"].value
    assert varied["mev-low"].interval.high - varied["mev-low"].interval.low > \
        fixed.high - fixed.low
    # pairs drawn from 10 sentences whose cosines share a sentence's offset move together:
    # read as 10 sentences, the interval carries that offset; read as 600 it does not
    sentences = np.arange(600).reshape(2, 300) % 10
    offset = RNG.normal(scale=0.1, size=10)
    clustered_base = base + offset[sentences[0]] * (layers[:, None] > 2)
    shared = SentenceUnits(sentences, units.words, units.n_sentences)

    def width(u):
        out = layerwise.check_values(per_layer, per_word, clustered_base, u, n_boot=200)
        return out["baseline-rises"].interval.high - out["baseline-rises"].interval.low

    assert width(shared) > 2 * width(units)
    # the worst layer's interval holds its point and reaches every layer's own
    low_point, low_interval = (values["baseline-positive"].value,
                               values["baseline-positive"].interval)
    assert low_interval.low <= low_point <= low_interval.high
    assert "refitted in every draw" in varied["mev-low"].interval.method
    with pytest.raises(ValueError, match="mev_baseline_draws must be"):
        layerwise.check_values(per_layer, per_word, base, units, n_boot=200,
                               mev_baseline_draws=np.zeros((5, 3)))


def test_classifier_check_values_over_seeds():
    rows = []
    for seed in range(3):
        for update in range(10):
            rows.append({"seed": seed, "update": update,
                         "isoscore": 0.5 - 0.04 * update + 0.001 * seed,
                         "silhouette": 0.1 + 0.05 * update - 0.002 * seed * (update % 2)})
    values = classifier_checks(pd.DataFrame(rows))
    assert values["anticorrelation"].value < -0.9
    assert values["isoscore-falls"].interval.high < 0
    assert values["silhouette-rises"].interval.low > 0
    seed_spread = values["seed-spread"]
    spread, interval, details = seed_spread.value, seed_spread.interval, seed_spread.details
    assert interval.low <= spread <= interval.high and details["metric"] in (
        "isoscore", "silhouette")
    with pytest.raises(ValueError, match="at least 2 seeds"):
        classifier_checks(pd.DataFrame(rows[:10]))


def test_driver_share_draws_bracket_the_point_share():
    X = RNG.normal(size=(300, 10))
    labels = (np.arange(300) % 3)
    X[:, 2] += 0.6 * labels
    share = clusters.cluster_drivers(X, labels)["top_between_share"]
    draws = clusters.driver_share_draws(X, labels, n_boot=200, seed=0, block=64)
    assert 0.5 < share < 0.99
    assert np.quantile(draws, 0.02) <= share <= np.quantile(draws, 0.98)
    assert (clusters.driver_share_draws(X, np.zeros(300), n_boot=50) == 0).all()


@pytest.mark.parametrize("slug", SLUGS)
def test_every_check_anchor_is_a_section_of_its_notebook(slug):
    text = (ROOT / "notebooks" / f"{slug}.ipynb").read_text()
    for spec in load_checks(slug).values():
        assert f"({spec.anchor})=" in text, (slug, spec.id, spec.anchor)


@pytest.mark.parametrize("slug", SLUGS)
def test_every_declared_check_is_recorded_by_its_notebook(slug):
    """A declaration nobody grades is dead data; a notebook grading an undeclared check
    fails at run time (tested above)."""
    text = (ROOT / "notebooks" / f"{slug}.ipynb").read_text()
    library = "".join(p.read_text() for p in (ROOT / "lib" / "anisotropy").rglob("*.py"))
    for check_id in load_checks(slug):
        assert f'"{check_id}' in text or f'\\"{check_id}' in text or \
            f'"{check_id}"' in library, (slug, check_id)


def test_claims_are_declared_once_and_read_everywhere():
    from anisotropy.book import catalog, ledger, runner

    declared = catalog.claims()
    assert tuple(declared) == runner.SLUGS
    assert ledger.CLAIMS is declared or ledger.CLAIMS == declared
    for body in declared.values():
        checks.reference_value(body["references"])  # the claim's block exists
    for slug in declared:
        assert catalog.claim_module(slug).SLUG == slug
    with pytest.raises(ValueError, match="Unknown claim 'nope'"):
        catalog.claim_module("nope")
    toc = catalog.toc_with_claims({"parts": [{"caption": "Claims", "chapters": []}]},
                                  ["02-clusters-manifolds"])
    assert toc["parts"][0]["chapters"] == [{"file": "notebooks/02-clusters-manifolds"}]
    with pytest.raises(ValueError, match="no part captioned 'Claims'"):
        catalog.toc_with_claims({"parts": []}, [])


def test_decoder_disagreements_lists_checks_the_decoders_split_on():
    from anisotropy.book.rows import decoder_disagreements

    models = [{"name": "enc", "kind": "encoder"}, {"name": "org/dec-a", "kind": "decoder"},
              {"name": "org/dec-b", "kind": "decoder"}]
    results = {"c": {"models": models}}

    def row(check, model, verdict, subject=""):
        return {"slug": "c", "check": check, "model": model, "verdict": verdict,
                "subject": subject, "statement": f"{check} holds", "measured": 0.5,
                "interval": [0.4, 0.6], "anchor": ""}

    rows = [row("split", "org/dec-a", "reproduced"), row("split", "org/dec-b", "not reproduced"),
            row("split", "enc", "reproduced"),
            row("agree", "org/dec-a", "reproduced"), row("agree", "org/dec-b", "reproduced"),
            row("only-one", "org/dec-a", "reproduced"), row("only-one", "enc", "inconclusive"),
            row("ungraded", "org/dec-a", "finding"), row("ungraded", "org/dec-b", "control"),
            row("per-task", "org/dec-a", "inconclusive", "STS12"),
            row("per-task", "org/dec-b", "inconclusive", "STS12"),
            row("per-task", "org/dec-a", "reproduced", "STS13"),
            row("per-task", "org/dec-b", "inconclusive", "STS13")]
    found = decoder_disagreements(rows, results)
    assert [(e["check"], e["subject"]) for e in found] == [("split", ""), ("per-task", "STS13")]
    assert found[0]["verdicts"]["org/dec-b"] == ("not reproduced", "0.500 [0.400, 0.600]")
    assert "enc" not in found[0]["verdicts"]


def test_paper_value_gives_the_papers_number_per_subject():
    spec = _spec(paper_value="claim1/mev_headline/value")
    assert spec.paper_number() == 0.05 and spec.paper_number("any") == 0.05
    per = _spec(paper_value={"polarity": "claim5/pearson/polarity"})
    assert per.paper_number("polarity") == -0.808 and per.paper_number("SNLI") is None
    assert _spec().paper_number() is None


def test_paper_cell_shows_the_declared_references_per_subject():
    """The Paper column shows every reference by default, only ``paper_cell``'s when it is
    declared (none: a threshold's source from another paper is not the paper's number),
    per subject when declared so; a key outside the check's references is refused."""
    refs = ("claim4/per_task/baseline", "claim4/per_task/proposed")
    every = _spec(references=refs)
    assert every.paper_values_text().startswith("baseline: STS12 (pearson 45.46")
    assert _spec(references=refs, paper_cell=[]).paper_values_text() == ""
    per = _spec(references=refs, paper_cell={"STS-B": ["claim4/per_task/baseline/STS-B/spearman",
                                                       "claim4/per_task/proposed/STS-B"]})
    assert per.paper_values_text("STS-B") == (
        "baseline spearman: 54.09; "
        "proposed STS-B: pearson 70.75, spearman 67.5, isotropy 0.63")
    assert per.paper_values_text("STS12") == ""
    with pytest.raises(CheckError, match="not under the check's references"):
        _spec(references=refs, paper_cell=["claim1/mev_headline/value"])
    with pytest.raises(CheckError, match="not a key"):
        _spec(references=refs, paper_cell=["claim4/per_task/baseline/STS99"])
    with pytest.raises(CheckError, match="lists of reference keys"):
        _spec(references=refs, paper_cell={"STS-B": "claim4/per_task/baseline"})
    assert checks.reference_value("claim4/per_task/proposed/STS-B/isotropy") == 0.63


def test_one_anisotropic_level_for_every_check_that_reads_it():
    """The level from which a space counts as anisotropic is ELMo's top layer in
    Ethayarajh's baselines, read from the references (a changed file moves it), and it is
    the threshold of claim 1's ``baseline-positive``, claim 2's ``global-anisotropy`` and its
    ``local-isotropy``:
    the claims that use it as a premise cannot drift apart from the checks that grade it."""
    from anisotropy.inputs.references import anisotropic_level, references

    elmo = checks.reference_value("claim1/baseline/ELMo")
    assert anisotropic_level() == elmo[-1] == pytest.approx(0.136)
    assert elmo[-1] == min(elmo[1:])  # the least anisotropic contextual layer
    for slug, check in [("01-layerwise-anisotropy", "baseline-positive"),
                        ("02-clusters-manifolds", "global-anisotropy"),
                        ("02-clusters-manifolds", "local-isotropy")]:
        assert checks.load_checks(slug)[check].threshold == anisotropic_level()
    moved = references()
    moved["claim1"]["baseline"]["ELMo"][-1] = 0.5
    assert anisotropic_level(moved) == 0.5


def _numbers(value) -> list[float]:
    if isinstance(value, bool):
        return []
    if isinstance(value, (int, float)):
        return [float(value)]
    if isinstance(value, list):
        return [x for item in value for x in _numbers(item)]
    if isinstance(value, dict):
        return [x for key, item in value.items() if key not in ("source", "note")
                for x in _numbers(item)]
    return []


def test_no_check_retypes_a_number_of_the_references_it_cites():
    """A reason or statement quotes the paper's numbers as {key} placeholders, expanded from
    data/references.yaml, never typed again by hand (small integers such as counts of tasks
    or layers aside)."""
    import re

    import yaml

    declared = yaml.safe_load(checks.CHECKS_FILE.read_text(encoding="utf-8"))
    retyped = []
    for slug, specs in declared.items():
        for check_id, spec in specs.items():
            cited = {x for key in spec.get("references", [])
                     for x in _numbers(checks.reference_value(key))}
            text = checks.PLACEHOLDER.sub("", f"{spec.get('statement', '')} "
                                              f"{spec.get('reason', '')}")
            for token in re.findall(r"(?<![\w.{/])-?\d*\.?\d+(?:e-?\d+)?", text):
                value = float(token)
                if value in cited and not (value.is_integer() and abs(value) <= 30):
                    retyped.append(f"{slug}/{check_id}: {token}")
    assert not retyped, retyped


def test_placeholders_expand_to_the_references_and_refuse_what_is_not_a_number():
    spec = _spec(reason="below {claim1/mev_headline/value}; GPT-2 from "
                        "{claim1/baseline/GPT-2 small|min} to {claim1/baseline/GPT-2 small|last}",
                 statement="ELMo's {claim2/lid_cosine/ELMo/lid}, item "
                           "{claim4/sst2/baseline_accuracy}")
    assert spec.reason == "below 0.05; GPT-2 from 0.573 to 0.978"
    assert spec.statement == "ELMo's 9.1, item 55.67"
    with pytest.raises(CheckError, match="demo.*cites \\{claim1/nope\\}, not a key"):
        _spec(reason="see {claim1/nope}")
    with pytest.raises(CheckError, match="demo.*not a number"):
        _spec(reason="see {claim1/mev_headline}")


# ------------------------------------------------------------------ threshold bases


def test_threshold_expressions_compute_from_the_references():
    """A derived threshold is computed from the cited numbers, in the open: checked against
    the same arithmetic done by hand on data/references.yaml."""
    import math

    refs = checks.references()
    lid = refs["claim2"]["lid_cosine"]
    assert checks.threshold_value("{claim2/lid_cosine/ELMo/lid} / {claim2/lid_cosine/GloVe/lid}") \
        == pytest.approx(lid["ELMo"]["lid"] / lid["GloVe"]["lid"])
    base, proposed = refs["claim4"]["per_task"]["baseline"], refs["claim4"]["per_task"]["proposed"]
    shares = [1 - math.log10(proposed[t][2]) / math.log10(base[t][2]) for t in base]
    assert checks.threshold_value(
        "min(1 - log10({claim4/per_task/proposed|2}) / log10({claim4/per_task/baseline|2}))") \
        == pytest.approx(min(shares))
    assert checks.threshold_value("min({claim4/per_task/proposed|2})") == min(
        row[2] for row in proposed.values())
    # isotropy-beats-global: the share of what the better global method leaves to gain
    comparison = refs["claim4"]["method_comparison"]
    over = [1 - math.log10(comparison[t]["K-means+Mean+PCA"][2])
            / max(math.log10(comparison[t]["Mean"][2]), math.log10(comparison[t]["Mean+PCA"][2]))
            for t in ("STS15", "STS-B")]
    assert checks.threshold_value(
        "min(1 - log10({claim4/method_comparison/STS15/K-means+Mean+PCA|2}) / max(log10("
        "{claim4/method_comparison/STS15/Mean|2}), log10({claim4/method_comparison/STS15/"
        "Mean+PCA|2})), 1 - log10({claim4/method_comparison/STS-B/K-means+Mean+PCA|2}) / max("
        "log10({claim4/method_comparison/STS-B/Mean|2}), log10({claim4/method_comparison/"
        "STS-B/Mean+PCA|2})))") == pytest.approx(min(over))
    p = refs["claim4"]["sst2"]["baseline_accuracy"] / 100  # sqrt, elementwise on a scalar
    assert checks.threshold_value(
        "100 * sqrt({claim4/sst2/baseline_accuracy} / 100 * (1 - "
        "{claim4/sst2/baseline_accuracy} / 100) / {claim4/sst2/dev_items})") == pytest.approx(
        100 * math.sqrt(p * (1 - p) / refs["claim4"]["sst2"]["dev_items"]))
    flows = refs["claim3"]["flow_table"]["without_nli_supervision"]
    gains = [f - b for f, b in zip(flows["BERT-base-flow (target)"],
                                   flows["BERT-base-last2avg"], strict=True)]
    assert refs["claim3"]["flow_table"]["bert_base_average_gain"] == round(
        sum(gains) / len(gains), 2)
    pearson = refs["claim5"]["pearson"]
    assert checks.threshold_value("max({claim5/pearson/polarity}, {claim5/pearson/SNLI})") == \
        max(pearson["polarity"], pearson["SNLI"])
    assert checks.threshold_value("-{claim5/spearman_max} * 2") == \
        -2 * refs["claim5"]["spearman_max"]


@pytest.mark.parametrize("expression, message", [
    ("__import__('os')", "cites no reference"),
    ("{claim5/spearman_max}.real", "does not allow"),
    ("{claim5/spearman_max} ** 2", "does not allow"),
    ("log10({claim5/spearman_max}, 2)", "does not allow"),
    ("sqrt({claim5/spearman_max}, 2)", "does not allow"),
    ("{claim5/no_such}", "not a key"),
    ("{claim5/setup}", "not a number"),
    ("log10({claim5/spearman_max})", "not one finite number"),
])
def test_threshold_expressions_refuse_anything_but_arithmetic(expression, message):
    with pytest.raises(CheckError, match=message):
        checks.threshold_value(expression)


def test_every_threshold_declares_its_basis_and_the_table_marks_the_books_own():
    """Every graded threshold and margin says where it comes from; the paper's and derived
    ones cite the references; the verdict table and the ledger mark the book's own."""
    from anisotropy.book.runner import SLUGS
    from anisotropy.report import display

    bases = {}
    for slug in SLUGS:
        for spec in checks.load_checks(slug).values():
            if spec.threshold is None and spec.margin is None:
                assert spec.threshold_basis is None
                continue
            bases[f"{slug}/{spec.id}"] = spec.threshold_basis
            if spec.threshold_basis in ("paper", "derived") and spec.threshold is not None:
                assert "{claim" in spec.threshold_expression
    assert set(bases.values()) <= set(checks.THRESHOLD_BASES)
    assert bases["01-layerwise-anisotropy/mev-low"] == "paper"
    record = {"comparator": "<=", "threshold": -0.1, "threshold_basis": "book"}
    assert display.threshold_text(record).endswith(display.BOOK_MARK)
    assert not display.threshold_text({**record, "threshold_basis": "derived"}).endswith(
        display.BOOK_MARK)
    html_text = display.verdict_table_html([{"check": "c", "id": "c:m", "model": "m",
                                             "verdict": "reproduced", "measured": -0.2,
                                             **record}])
    assert display.BOOK_MARK in html_text
    assert "own threshold: the paper gives no number" in html_text


def test_r_and_rho_read_every_update_of_the_rank_series_with_an_interval_over_seeds():
    """r and rho come from ``ranks`` (every update) when given, else from the recorded
    series; their intervals are t-intervals over seeds alone, and seeds that tie give zero
    width."""
    from anisotropy.claims.classifier_geometry.classifier import check_values
    from anisotropy.geometry.intervals import seed_interval

    rows = [{"seed": s, "update": u, "isoscore": 1 - u / 30 + (0.2 if u == 10 else 0),
             "silhouette": u / 30} for s in (0, 1, 2) for u in range(0, 30, 2)]
    check = check_values(pd.DataFrame(rows))["spearman-anticorrelation"]
    rho, interval, details = check.value, check.interval, check.details
    assert len(set(details["per seed"])) == 1 and -1 < rho  # the seeds tie, off the bound
    assert interval.as_list() == pytest.approx([rho, rho])
    assert details["updates in the series"] == 15 and "recorded" in details["series"]
    rng = np.random.default_rng(5)
    ranks = pd.DataFrame([{"seed": s, "update": u, "isoscore": -u + rng.normal(scale=3),
                           "silhouette": u} for s in (0, 1, 2) for u in range(31)])
    check = check_values(pd.DataFrame(rows), ranks=ranks)["spearman-anticorrelation"]
    rho, interval, details = check.value, check.interval, check.details
    per_seed = [spearmanr(t["isoscore"], t["silhouette"])[0] for _, t in ranks.groupby("seed")]
    assert details["per seed"] == pytest.approx(per_seed) and rho == pytest.approx(
        np.mean(per_seed))
    assert interval.as_list() == pytest.approx(seed_interval(per_seed).as_list())
    assert details["updates in the series"] == 31 and details["worst seed"] == max(per_seed)
    pearson = check_values(pd.DataFrame(rows), ranks=ranks)["anticorrelation"]
    per_seed_r = [pearsonr(t["isoscore"], t["silhouette"])[0] for _, t in ranks.groupby("seed")]
    recorded_r = [pearsonr(t["isoscore"], t["silhouette"])[0]
                  for _, t in pd.DataFrame(rows).groupby("seed")]
    assert pearson.details["per seed"] == pytest.approx(per_seed_r)  # every update, not every 2
    assert pearson.value == pytest.approx(np.mean(per_seed_r))
    assert pearson.interval.as_list() == pytest.approx(seed_interval(per_seed_r).as_list())
    assert pearson.details["r of the recorded series (mean)"] == pytest.approx(
        np.mean(recorded_r))
    assert pearson.details["updates in the series"] == 31


def test_the_matrix_legend_explains_the_books_mark():
    from anisotropy.report import display

    record = {"check": "c", "id": "c:m", "model": "m", "verdict": "reproduced",
              "measured": -0.2, "comparator": "<=", "threshold": -0.1}
    assert display.BOOK_MARK not in display.verdict_matrix_html([record])
    text = display.verdict_matrix_html([{**record, "threshold_basis": "book"}])
    assert text.count(display.BOOK_MARK) == 2 and "book&#x27;s own threshold" in text


# ------------------------------------------------------------------ scope

#: The kinds of model each source studied (../shared/ISSUE-NOTES.md, from the seeds): a
#: verdict on any other kind is a generalisation.
SOURCE_SCOPES = {
    "01-layerwise-anisotropy": {"masked-lm", "causal-lm", "bilstm-lm"},
    "02-clusters-manifolds": {"masked-lm", "causal-lm", "bilstm-lm"},
    "03-frequency-bias": {"masked-lm"},
    "04-cluster-isotropy": {"masked-lm"},
    "05-isotropy-vs-clusters": {"sentence-encoder", "static"},
}


@pytest.mark.parametrize("slug", SLUGS)
def test_every_check_declares_the_kinds_of_model_its_source_studied(slug):
    for check_id, spec in load_checks(slug).items():
        assert spec.studied, check_id
        assert set(spec.scope) <= set(FAMILIES), check_id
        if slug in SOURCE_SCOPES:
            assert set(spec.scope) == SOURCE_SCOPES[slug], check_id
        elif slug != "06-later-work":  # a claim added since: its own declaration
            continue
        elif check_id.startswith(("massive", "sink", "id-")):  # decoder-LM sources
            assert spec.scope == ("causal-lm",), check_id
        elif check_id == "standardise-helps":  # STS: no source tested it, the book's own
            assert spec.scope == () and "extension" in spec.studied
        else:  # Timkey & van Schijndel, Rudman et al.: masked and causal LMs
            assert set(spec.scope) == {"masked-lm", "causal-lm"}, check_id


def test_a_verdict_on_a_kind_the_source_did_not_study_is_a_generalisation():
    results = Results("01-layerwise-anisotropy", {"seed": 1}, profile="smoke")
    inside = Interval(0.01, 0.02, "m")
    encoder = results.grade("mev-low", "sentence-transformers/all-MiniLM-L6-v2", 0.015, inside)
    decoder = results.grade("mev-low", "HuggingFaceTB/SmolLM2-135M-Instruct", 0.015, inside)
    bert = results.grade("mev-low", "bert-base-uncased", 0.015, inside, model_kind="encoder")
    both = results.grade("baseline-rises", "bert-base-uncased, sentence-transformers/x", 0.1,
                         Interval(0.05, 0.15, "m"), model_kind="encoder")
    assert (encoder.scope, encoder.family) == ("generalisation", "sentence-encoder")
    assert (decoder.scope, decoder.family) == ("reproduction", "causal-lm")
    assert (bert.scope, bert.family) == ("reproduction", "masked-lm")
    assert both.scope == "generalisation" and both.family == "masked-lm, sentence-encoder"
    assert encoder.verdict == decoder.verdict == "reproduced"  # the verdict is the same
    assert "GPT-2" in encoder.studied
    exempt = results.grade("decoder-baseline-high", "org/encoder", None, None,
                           model_kind="encoder")
    assert exempt.scope == ""  # not graded: no scope
    from anisotropy.report.display import verdict_frame
    frame = verdict_frame([encoder, decoder]).set_index("Model")
    assert frame.loc["all-MiniLM-L6-v2", "Verdict"] == "↗ ✓ carries over"
    assert frame.loc["all-MiniLM-L6-v2", "Kind of model"] == "sentence encoder: not studied"
    assert frame.loc["SmolLM2-135M-Instruct", "Verdict"] == "✓ reproduced"
    assert frame.loc["SmolLM2-135M-Instruct", "Kind of model"] == "causal LM: studied"


def test_a_scope_naming_an_unknown_family_or_no_models_fails():
    with pytest.raises(CheckError, match="scope must name"):
        _spec(scope=("transformer",))
    with pytest.raises(CheckError, match="scope must name"):
        _spec(studied="")
    extension = _spec(scope=(), studied="no source: the book's extension")
    assert extension.scope_of("bert-base-uncased", "encoder") == "generalisation"
    assert extension.scope_of("gpt2", "decoder") == "generalisation"


def test_normal_bootstrap_interval_is_the_estimate_plus_minus_z_sd_and_holds_it():
    """A closed form: estimate ± z(0.975) · sd(draws, ddof 1); it holds the estimate even
    when every draw lies to one side of it (a resample-biased statistic)."""
    draws = np.random.default_rng(5).normal(0.14, 0.01, size=400)  # all far below 0.177
    interval = intervals.normal_interval(0.177, draws, method="normal bootstrap")
    half = stats.norm.ppf(0.975) * draws.std(ddof=1)
    assert interval.low == pytest.approx(0.177 - half) and interval.high == pytest.approx(
        0.177 + half)
    assert interval.low < 0.177 < interval.high
    assert not np.quantile(draws, 0.025) <= 0.177 <= np.quantile(draws, 0.975)
    wider = intervals.normal_interval(0.177, draws, level=0.99, method="m")
    assert wider.low < interval.low and wider.high > interval.high
    with pytest.raises(ValueError, match="at least 20"):
        intervals.normal_interval(0.1, draws[:10], method="m")
    with pytest.raises(ValueError, match="not finite"):
        intervals.normal_interval(float("nan"), draws, method="m")
