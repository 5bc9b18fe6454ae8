"""The on-disk cache: keys, atomic writes, corrupt entries recomputed, failures leave nothing."""

from __future__ import annotations

import numpy as np
import pytest

from anisotropy.inputs import cache


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("ANISOTROPY_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_key_is_order_independent_and_sensitive():
    assert cache.make_key({"a": 1, "b": [1, 2]}) == cache.make_key({"b": [1, 2], "a": 1})
    assert cache.make_key({"a": 1}) != cache.make_key({"a": 2})


def test_get_or_create_builds_once():
    calls = []

    def build(tmp):
        calls.append(1)
        np.save(tmp / "x.npy", np.arange(10))

    first = cache.get_or_create("test", {"k": 1}, build)
    second = cache.get_or_create("test", {"k": 1}, build)
    assert first == second and len(calls) == 1
    assert np.load(first / "x.npy").sum() == 45


def test_truncated_entry_is_recomputed():
    calls = []

    def build(tmp):
        calls.append(1)
        np.save(tmp / "x.npy", np.arange(1000))

    path = cache.get_or_create("test", {"k": 2}, build)
    with open(path / "x.npy", "r+b") as handle:
        handle.truncate(100)
    assert not cache.is_complete(path)
    path = cache.get_or_create("test", {"k": 2}, build)
    assert len(calls) == 2 and np.load(path / "x.npy").size == 1000


def test_failed_build_leaves_nothing(private_cache):
    def build(tmp):
        (tmp / "half.npy").write_bytes(b"partial")
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        cache.get_or_create("test", {"k": 3}, build)
    assert list((private_cache / "test").iterdir()) == []
