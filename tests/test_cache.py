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


@pytest.mark.parametrize("package", cache.KEY_PACKAGES)
def test_another_package_version_misses_the_cache(package, monkeypatch):
    """An upgrade of torch, transformers, tokenizers or gguf never reuses cached vectors."""
    calls = []

    def build(tmp):
        calls.append(1)
        np.save(tmp / "x.npy", np.arange(3))

    first = cache.get_or_create("test", {"k": "versions"}, build)
    installed = cache.key_versions()
    assert set(installed) == set(cache.KEY_PACKAGES) and installed["torch"]
    monkeypatch.setattr(cache, "key_versions", lambda: {**installed, package: "0.0.0-other"})
    second = cache.get_or_create("test", {"k": "versions"}, build)
    assert second != first and len(calls) == 2
    monkeypatch.setattr(cache, "key_versions", lambda: installed)
    assert cache.get_or_create("test", {"k": "versions"}, build) == first and len(calls) == 2


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


def _build_in_process(root, barrier, queue):
    import os

    os.environ["ANISOTROPY_CACHE"] = root

    def build(tmp):
        barrier.wait(timeout=30)  # both processes are building the same entry at once
        np.save(tmp / "x.npy", np.arange(1000) * (os.getpid() % 7 + 1))

    path = cache.get_or_create("race", {"k": "same"}, build)
    queue.put((str(path), int(np.load(path / "x.npy").sum())))


def test_two_processes_building_one_entry(private_cache):
    """Both builds finish; one entry survives, complete, and both processes read it; no
    temporary directory is left behind."""
    import multiprocessing

    context = multiprocessing.get_context("fork")
    barrier, queue = context.Barrier(2), context.Queue()
    workers = [context.Process(target=_build_in_process,
                               args=(str(private_cache), barrier, queue)) for _ in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
        assert worker.exitcode == 0
    seen = [queue.get(timeout=5) for _ in workers]
    assert len({path for path, _ in seen}) == 1
    entry = cache.get_or_create("race", {"k": "same"}, lambda tmp: pytest.fail("rebuilt"))
    assert cache.is_complete(entry)
    assert not [p for p in entry.parent.iterdir() if p.name.startswith(".")]


def test_require_space_names_the_sizes_and_the_fix(private_cache, free_disk):
    folder = cache.cache_root()
    free_disk(int(1.5e9))
    cache.require_space(folder, int(1.5e9), "vectors")  # exactly enough
    with pytest.raises(cache.CacheFull) as raised:
        cache.require_space(folder, int(2.25e9), "MiniLM's token vectors")
    message = str(raised.value)
    assert raised.value.errno == 28 and isinstance(raised.value, OSError)
    for part in ("MiniLM's token vectors", "2.25 GB", "1.50 GB free", str(folder),
                 "anisotropy cache clean", "ANISOTROPY_CACHE"):
        assert part in message


@pytest.mark.skipif(not hasattr(__import__("os"), "posix_fallocate"),
                    reason="no posix_fallocate on this platform")
def test_reserve_allocates_a_memory_map_s_holes(tmp_path, monkeypatch):
    """A .npy from open_memmap is a file with holes; reserve gives it its blocks, and a
    disk that cannot give them raises CacheFull with the file's size."""
    import errno
    import os

    path = tmp_path / "x.npy"
    array = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(256, 1024))
    del array
    size = path.stat().st_size
    assert path.stat().st_blocks * 512 < size  # holes
    cache.reserve(path, "x")
    assert path.stat().st_blocks * 512 >= size and path.stat().st_size == size
    assert not np.load(path).any()  # the contents are still zeros

    def no_room(fd, offset, length):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "posix_fallocate", no_room)
    with pytest.raises(cache.CacheFull, match=r"Caching x needs 1\.0 MB on the disk of "):
        cache.reserve(path, "x")

    def unsupported(fd, offset, length):
        raise OSError(errno.EOPNOTSUPP, "Operation not supported")

    monkeypatch.setattr(os, "posix_fallocate", unsupported)
    cache.reserve(path, "x")  # a file system that cannot allocate: require_space guards
