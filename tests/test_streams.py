"""Named random streams: one generator per (seed, name), stable, independent, validated."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anisotropy.claims.cluster_isotropy import methods as cluster_methods
from anisotropy.geometry.streams import spawn_key, stream, stream_seed

LIB = Path(__file__).resolve().parents[1] / "lib" / "anisotropy"
names = st.lists(st.text(st.characters(blacklist_characters="/", min_codepoint=33,
                                       max_codepoint=0x2FF), min_size=1, max_size=8),
                 min_size=1, max_size=4).map("/".join)


def reference_seed_sequence(seed: int, name: str) -> np.random.SeedSequence:
    """The derivation written out: SHA-256 of the UTF-8 name as eight little-endian words."""
    digest = hashlib.sha256(name.encode()).digest()
    words = [int.from_bytes(digest[4 * i:4 * i + 4], "little") for i in range(8)]
    return np.random.SeedSequence(seed, spawn_key=words)


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**63), name=names)
def test_a_stream_is_the_seed_sequence_of_its_name(seed, name):
    expected = np.random.Generator(np.random.PCG64(reference_seed_sequence(seed, name)))
    assert stream(seed, name).integers(0, 2**62, 4).tolist() == \
        expected.integers(0, 2**62, 4).tolist()
    assert stream_seed(seed, name) == int(
        reference_seed_sequence(seed, name).generate_state(1, dtype=np.uint32)[0])
    assert 0 <= stream_seed(seed, name) < 2**32


def test_stream_seeds_are_pinned_across_machines_and_versions():
    # SHA-256 and NumPy's SeedSequence are both specified bit for bit: a change here is a
    # change of every sample in the book, and must be re-recorded on purpose
    assert stream_seed(0, "claim3/bootstrap/STS12") == 4201309738
    assert stream_seed(7, "data") == 470863800


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**32), a=names, b=names)
def test_different_names_give_different_streams(seed, a, b):
    if a == b:
        assert stream_seed(seed, a) == stream_seed(seed, b)
    else:
        assert stream(seed, a).integers(0, 2**62, 4).tolist() != \
            stream(seed, b).integers(0, 2**62, 4).tolist()


def test_neighbouring_seeds_and_names_are_uncorrelated():
    # the failure seed arithmetic invites: seed + 1 of one use is seed of another
    draws = np.stack([stream(s, f"task{t}").standard_normal(20_000)
                      for s in (0, 1) for t in (1, 2)])
    correlations = np.corrcoef(draws)[np.triu_indices(4, k=1)]
    assert np.abs(correlations).max() < 0.03


@pytest.mark.parametrize("name", ["", "a//b", "/a", "a/", 3])
def test_a_malformed_name_is_refused_with_its_value(name):
    with pytest.raises(ValueError, match=re.escape(repr(name))):
        spawn_key(name)


@pytest.mark.parametrize("seed", [-1, 1.5, "0", True])
def test_a_bad_seed_is_refused_with_its_value(seed):
    with pytest.raises(ValueError, match=re.escape(repr(seed))):
        stream(seed, "data")


def test_no_arithmetic_on_seeds_remains_in_the_library():
    seed = r"\b(?:\w+_)?seed\b"  # seed, boot_seed, run_seed (not n_seeds)
    arithmetic = re.compile(rf"{seed}\s*[+*]\s*\w|\w\s*[+*]\s*{seed}|range\(\s*{seed}")
    found = [f"{path.relative_to(LIB)}:{number}: {line.strip()}"
             for path in LIB.rglob("*.py")
             for number, line in enumerate(path.read_text().splitlines(), 1)
             if arithmetic.search(line.split("#")[0]) and "``" not in line]
    assert not found, "seed arithmetic; use anisotropy.geometry.streams:\n" + "\n".join(found)


def test_each_sts_task_is_resampled_from_its_own_stream():
    # two tasks with identical scores: one shared bootstrap seed would give them identical
    # intervals, as every task had before the streams
    rng = np.random.default_rng(0)
    gold = rng.normal(size=200)
    method, baseline = gold + rng.normal(size=200), gold + 2 * rng.normal(size=200)
    scores = {(t, k): v for t in ("A", "B")
              for k, v in (("K-means+Mean+PCA", method), ("Baseline", baseline), ("gold", gold))}
    changes = cluster_methods.task_changes(scores, ["A", "B"], n_boot=200, seed=3)
    assert changes["A"].value == changes["B"].value
    assert changes["A"].interval.as_list() != changes["B"].interval.as_list()
    again = cluster_methods.task_changes(scores, ["A", "B"], n_boot=200, seed=3)
    assert again["A"].interval.as_list() == changes["A"].interval.as_list()


def test_a_repeat_keeps_the_first_uses_stream_and_numbers_the_rest():
    from anisotropy.geometry.streams import repeat_name

    assert [repeat_name("lid-sample", r) for r in range(3)] == [
        "lid-sample", "lid-sample-1", "lid-sample-2"]
    for bad in (-1, 1.0):
        with pytest.raises(ValueError, match="r must be"):
            repeat_name("x", bad)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), train=st.integers(0, 2**32), name=names)
def test_a_training_stream_follows_the_train_seed_or_else_the_seed(seed, train, name):
    from anisotropy.geometry.streams import sub_seed, train_stream_seed

    assert train_stream_seed(seed, None, name) == stream_seed(seed, name)
    assert train_stream_seed(seed, train, name) == stream_seed(train, name)
    assert train_stream_seed(seed, seed, name) == stream_seed(seed, name)
    assert sub_seed(None, name) is None
    assert sub_seed(train, name) == stream_seed(train, name)


def test_another_train_seed_refits_the_same_sample():
    """fit_methods: the sample (what the mean is fitted on) follows ``seed``, the K-means
    starts follow ``train_seed``; with none, or the seed itself, nothing moves."""
    rng = np.random.default_rng(0)
    X = np.concatenate([rng.normal(size=(60, 5)) + shift for shift in (0, 4, 8)])
    fit = lambda **kw: cluster_methods.fit_methods(  # noqa: E731
        X, n_clusters=3, n_components=1, seed=11, max_tokens=90,
        methods=("Mean", "K-means+Mean+PCA"), **kw)
    plain, same, other = fit(), fit(train_seed=11), fit(train_seed=12)
    for fitted in (same, other):
        np.testing.assert_array_equal(fitted["Mean"].mean_, plain["Mean"].mean_)
    np.testing.assert_array_equal(same["K-means+Mean+PCA"].labels_,
                                  plain["K-means+Mean+PCA"].labels_)
    resampled = cluster_methods.fit_methods(X, n_clusters=3, n_components=1, seed=12,
                                            max_tokens=90, methods=("Mean",))
    assert not np.array_equal(resampled["Mean"].mean_, plain["Mean"].mean_)
    starts = [cluster_methods.fit_methods(X, 3, 1, seed=11, max_tokens=90,
                                          methods=("K-means+Mean+PCA",), train_seed=t)
              for t in range(12, 20)]
    assert any(not np.array_equal(s["K-means+Mean+PCA"].labels_,
                                  plain["K-means+Mean+PCA"].labels_) for s in starts), \
        "no training seed moved the K-means fit"
