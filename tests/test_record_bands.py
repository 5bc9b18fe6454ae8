"""scripts/record_smoke_bands.py: other machines' results as platform runs, and the band of
a value that no leave-one-out factor covers."""

import json
from types import SimpleNamespace

import pytest
from project_scripts import load_script

rec = load_script("record_smoke_bands")

INTEL = {"model": "Intel(R) Xeon(R) Processor", "isa": ["avx2", "avx512f", "amx_tile"]}


def _record(tmp_path, slug="06-later-work", **changes):
    record = {"profile": "smoke", "parameters": {"seed": 0}, "overrides": {},
              "environment": {"cpu": INTEL}, "checks": []}
    record.update(changes)
    folder = tmp_path / "measured"
    folder.mkdir(exist_ok=True)
    (folder / f"{slug}.json").write_text(json.dumps(record))
    return folder


def test_imported_run_is_named_by_its_cpu(tmp_path):
    folder = _record(tmp_path)
    runs = rec.load_imported_runs([folder], ["06-later-work", "01-layerwise-anisotropy"])
    assert list(runs) == ["intel-xeon-amx/ci"]
    assert list(runs["intel-xeon-amx/ci"]) == ["06-later-work"]
    assert rec.load_imported_runs([folder], ["06-later-work"]) == runs
    with pytest.raises(ValueError, match="no results file"):
        rec.load_imported_runs([folder], ["01-layerwise-anisotropy"])


@pytest.mark.parametrize("changes, word", [
    ({"profile": "full"}, "profile 'full'"),
    ({"parameters": {"seed": 3}}, "seed 3"),
    ({"overrides": {"n_sentences": 10}}, "overrides"),
    ({"environment": {}}, "names no CPU"),
])
def test_imported_run_must_be_a_plain_smoke_run(tmp_path, changes, word):
    folder = _record(tmp_path, **changes)
    with pytest.raises(ValueError, match=word):
        rec.load_imported_runs([folder], ["06-later-work"])


def test_a_value_no_factor_covers_is_banded_by_its_runs_not_its_bounds():
    """Four identical runs and one run of another vendor 1.5% away: no leave-one-out factor
    covers the odd run, so the value is widened, to 6 times its range, not to [0, 1000]."""
    spec = SimpleNamespace(spread="platform", bounds=(0.0, 1000.0), comparator=">",
                           margin=None, edges=[1.0])
    seen = {f"amd/{n}": 0.9807 for n in ("a", "b", "c", "d")} | {"intel/ci": 0.9661}
    collected = {"06": {"values": {("x:m", "measured"): seen}, "specs": {"x": spec},
                        "verdicts": {}, "runs": set(seen)}}
    assert rec.widen_unbandable(collected) == ["06: x:m/measured"]
    assert rec.leave_one_out(collected, 0.5) == []  # reported as widened instead
    low, high = rec.value_band(collected["06"], ("x:m", "measured"), list(seen.values()),
                               spec, 0.5)
    spread = 0.9807 - 0.9661
    assert low == pytest.approx(0.9661 - 6 * spread, abs=1e-6)
    assert high == pytest.approx(0.9807 + 6 * spread, abs=1e-6)
    assert high - low < 0.2 and not low <= -0.9807 <= high and not low <= 0.49 <= high


def _spec(comparator=">", threshold=0.0):
    return SimpleNamespace(spread="seed", bounds=(-10.0, 10.0), comparator=comparator,
                           threshold=threshold, margin=None, edges=[threshold])


def test_a_side_is_pinned_where_every_run_is_far_on_one_side():
    """Seeds 0.5 +- 0.1 and a band [-0.4, 1.4] that straddles 0: the band stops at 0 and
    'not reproduced' is no longer allowed; a sign flip (-0.5) then leaves the band."""
    seen = {f"seed-{i}": v for i, v in enumerate([0.4, 0.45, 0.5, 0.55, 0.6, 0.5])}
    band, far = rec.pinned_side(seen, [-0.4, 1.4], _spec(">"))
    assert band == [0.0, 1.4] and far == "not reproduced"
    assert not band[0] <= -0.5 <= band[1]
    band, far = rec.pinned_side(seen, [-0.4, 1.4], _spec("<"))
    assert far == "reproduced"  # below-threshold claims: the runs sit on the far side
    below = {k: -v for k, v in seen.items()}
    assert rec.pinned_side(below, [-1.4, 0.4], _spec(">")) == ([-1.4, 0.0], "reproduced")


@pytest.mark.parametrize("values, band", [
    ([0.1, 0.5, 0.9, -0.05, 0.3], [-1.0, 1.5]),  # a run on each side
    ([0.1, 0.5, 0.9, 0.05, 0.3], [-1.0, 1.5]),   # one side, but the mean is < 3 SDs away
    ([0.5, 0.5, 0.55], [0.2, 0.9]),               # the band excludes 0 already
    ([0.5, 0.6], [-0.4, 1.4]),                    # too few runs to say
])
def test_no_side_without_evidence(values, band):
    seen = {f"run-{i}": v for i, v in enumerate(values)}
    assert rec.pinned_side(seen, band, _spec(">")) is None
