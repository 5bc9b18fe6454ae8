"""A content-addressed, atomic on-disk cache shared by every notebook.

Entries live under ``$ANISOTROPY_CACHE`` (default ``~/.cache/anisotropy``), one directory per
entry: ``<kind>/<key>/``. The key is a sha256 of a JSON description of everything that
changes the result (model id and weight hashes, data hashes, parameters, code version) and
of the versions of the packages that change cached numbers (:func:`make_key`).

An entry is written into a temporary sibling directory and renamed into place in one step,
so a reader never sees half an entry. Each entry carries ``_complete.json`` with the byte
size of every file; an entry whose files do not match it (truncated, deleted, corrupt) is
removed and recomputed, never loaded.

Every :func:`get_or_create` in a process is counted (:func:`stats`): hits and misses per
kind, the seconds spent building, and each miss's model. The results file of a claim
records them, so a reader sees which forward passes a claim shared with earlier claims.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import tempfile
import time
import uuid
from collections.abc import Callable
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

__all__ = ["KEY_PACKAGES", "key_versions", "cache_root", "make_key", "entry_dir", "is_complete",
           "get_or_create", "file_hash", "stats", "CacheFull", "require_space", "reserve"]

_MARKER = "_complete.json"
_STATS: dict[str, dict[str, Any]] = {}


def _count(kind: str, hit: bool, description: dict[str, Any], seconds: float = 0.0) -> None:
    entry = _STATS.setdefault(kind, {"hits": 0, "misses": 0, "build_s": 0.0, "built": []})
    if hit:
        entry["hits"] += 1
        return
    entry["misses"] += 1
    entry["build_s"] = round(entry["build_s"] + seconds, 2)
    entry["built"].append({"model": description.get("model", ""),
                           "n_sentences": description.get("n_sentences"),
                           "seconds": round(seconds, 2)})


def stats() -> dict[str, dict[str, Any]]:
    """Cache hits and misses of this process so far, per kind.

    Returns
    -------
    dict
        ``{kind: {"hits": int, "misses": int, "build_s": float, "built": [{"model",
        "n_sentences", "seconds"}, ...]}}`` (a copy): ``build_s`` is the seconds spent
        building, ``built`` one record per miss (the description's ``model`` and
        ``n_sentences``, and the seconds it took).
    """
    return json.loads(json.dumps(_STATS))


def cache_root() -> Path:
    """Return the cache root (``$ANISOTROPY_CACHE`` or ``~/.cache/anisotropy``), created.

    Returns
    -------
    pathlib.Path
        The root, with ``~`` expanded; created with its parents if missing.
    """
    root = Path(os.environ.get("ANISOTROPY_CACHE", "~/.cache/anisotropy")).expanduser()
    root.mkdir(parents=True, exist_ok=True)
    return root


# The packages whose versions change cached numbers (forward passes, tokenization, GGUF
# dequantization): every key includes them, so an upgrade never reuses another version's
# vectors.
KEY_PACKAGES = ("torch", "transformers", "tokenizers", "gguf")


@lru_cache(maxsize=1)
def key_versions() -> dict[str, str | None]:
    """``{package: installed version or None}`` for :data:`KEY_PACKAGES`, from package
    metadata (nothing is imported).

    Returns
    -------
    dict of str to str or None
        Each package's version, None when it is not installed; computed once per process.
    """
    out = {}
    for name in KEY_PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def make_key(description: dict[str, Any]) -> str:
    """Hash a JSON-serializable description, with the installed versions of
    :data:`KEY_PACKAGES`, into a 24-hex-digit key (order-independent). This is the one
    function that builds every cache key.

    Parameters
    ----------
    description : dict
        Everything that changes the result. Serialized with sorted keys (so the order of
        keys does not matter); values JSON cannot hold are written as their ``str``.

    Returns
    -------
    str
        The first 24 hexadecimal digits of the sha256 of the description and
        :func:`key_versions`.
    """
    payload = json.dumps({"description": description, "versions": key_versions()},
                         sort_keys=True, default=str).encode()
    return hashlib.sha256(payload).hexdigest()[:24]


def file_hash(path: str | Path, block: int = 1 << 22) -> str:
    """sha256 of a file, for keying caches on weight files.

    Parameters
    ----------
    path : str or pathlib.Path
        The file.
    block : int, optional
        Bytes read at a time (default ``1 << 22``, 4 MiB).

    Returns
    -------
    str
        The 64 hexadecimal digits of the file's sha256.
    """
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(block), b""):
            digest.update(chunk)
    return digest.hexdigest()


def entry_dir(kind: str, key: str) -> Path:
    """Directory where the entry ``kind/key`` lives (it may not exist).

    Parameters
    ----------
    kind : str
        The entry's namespace (e.g. ``"tokens"``).
    key : str
        The entry's key (:func:`make_key`).

    Returns
    -------
    pathlib.Path
        ``cache_root() / kind / key`` (the root is created, the entry is not).
    """
    return cache_root() / kind / key


def is_complete(path: Path) -> bool:
    """True when ``path`` holds a finished entry whose files match their recorded sizes.

    Parameters
    ----------
    path : pathlib.Path
        An entry directory.

    Returns
    -------
    bool
        False when ``_complete.json`` is missing or unreadable, or a file it lists is missing
        or has another size.
    """
    marker = path / _MARKER
    if not marker.is_file():
        return False
    try:
        sizes = json.loads(marker.read_text())["sizes"]
    except (OSError, ValueError, KeyError):
        return False
    for name, size in sizes.items():
        file = path / name
        if not file.is_file() or file.stat().st_size != size:
            return False
    return True


def _seal(path: Path, description: dict[str, Any]) -> None:
    sizes = {
        str(p.relative_to(path)): p.stat().st_size
        for p in sorted(path.rglob("*"))
        if p.is_file() and p.name != _MARKER
    }
    (path / _MARKER).write_text(json.dumps({"sizes": sizes, "description": description},
                                           indent=1, default=str))


def get_or_create(
    kind: str,
    description: dict[str, Any],
    build: Callable[[Path], None],
) -> Path:
    """Return the directory of a complete cache entry, building it first if needed.

    Parameters
    ----------
    kind : str
        A namespace such as ``"tokens"`` or ``"models"``.
    description : dict
        Everything that changes the result; hashed by :func:`make_key`.
    build : callable
        ``build(tmpdir)`` writes the entry's files into ``tmpdir``. If it raises, nothing is
        left in the cache.

    Returns
    -------
    pathlib.Path
        The entry directory.
    """
    key = make_key(description)
    final = entry_dir(kind, key)
    if is_complete(final):
        _count(kind, True, description)
        return final
    began = time.perf_counter()
    if final.exists():  # partial or corrupt: never load it
        shutil.rmtree(final, ignore_errors=True)
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{key}.", suffix=f".{uuid.uuid4().hex[:6]}",
                                dir=final.parent))
    try:
        build(tmp)
        _seal(tmp, description)
        try:
            os.rename(tmp, final)
        except OSError:  # another process finished first
            if not is_complete(final):
                raise
            shutil.rmtree(tmp, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    _count(kind, False, description, time.perf_counter() - began)
    return final


# --------------------------------------------------------------------------- disk space


class CacheFull(OSError):
    """The disk that holds the cache has less free space than an entry needs
    (``errno`` is ``ENOSPC``)."""


def _size(nbytes: int) -> str:
    return f"{nbytes / 1e9:,.2f} GB" if nbytes >= 1e8 else f"{nbytes / 1e6:,.1f} MB"


def _full(what: str, needed: int, free: int, folder: Path) -> CacheFull:
    root = cache_root()
    shown = root if Path(folder).resolve().is_relative_to(root.resolve()) else folder
    return CacheFull(errno.ENOSPC, (
        f"Caching {what} needs {_size(needed)} on the disk of {shown}, which has "
        f"{_size(free)} free. Free space on that disk (`python -m anisotropy cache info` "
        f"lists the cache, `python -m anisotropy cache clean` empties it), or set "
        f"ANISOTROPY_CACHE to a folder on a disk with room."))


def require_space(folder: Path, nbytes: int, what: str) -> None:
    """Raise :class:`CacheFull` unless the disk holding ``folder`` has ``nbytes`` free.

    A build calls it with the size of the files it is about to write, before its forward
    passes, so that a full disk stops the run at once with the sizes and the fix, not half
    way through with a write's ``ENOSPC`` (or a ``SIGBUS`` from a memory-mapped file).

    Parameters
    ----------
    folder : pathlib.Path
        An existing folder on the disk to be written (the entry's temporary folder).
    nbytes : int
        The bytes the build will write.
    what : str
        What is being cached, for the message (e.g. ``"MiniLM's token vectors"``).
    """
    free = shutil.disk_usage(folder).free
    if free < nbytes:
        raise _full(what, nbytes, free, folder)


def reserve(path: Path, what: str) -> None:
    """Allocate every block of an existing file that was created with holes (a ``.npy``
    from ``open_memmap``), so that a disk that fills up meanwhile fails here with
    :class:`CacheFull`, not with a ``SIGBUS`` when a memory-mapped write reaches a hole.

    Uses ``os.posix_fallocate`` where the platform has it (Linux; glibc writes the blocks
    itself on a file system that cannot allocate). Where the platform lacks it, or the file
    system refuses the call (``EOPNOTSUPP``, ``EINVAL``), it does nothing, and
    :func:`require_space`, checked before, is the guard.

    Parameters
    ----------
    path : pathlib.Path
        The file, allocated up to its current size.
    what : str
        What is being cached, for the message (as for :func:`require_space`).

    Raises
    ------
    CacheFull
        If the disk has no room for the file's blocks (``ENOSPC``).
    OSError
        Any other error of opening the file or of the call.
    """
    if not hasattr(os, "posix_fallocate"):
        return
    size = path.stat().st_size
    descriptor = os.open(path, os.O_RDWR)
    try:
        os.posix_fallocate(descriptor, 0, size)
    except OSError as error:
        if error.errno in (errno.EOPNOTSUPP, errno.ENOTSUP, errno.EINVAL):
            return
        if error.errno != errno.ENOSPC:
            raise
        raise _full(what, size, shutil.disk_usage(path.parent).free, path.parent) from error
    finally:
        os.close(descriptor)


# --------------------------------------------------------------------------- inventory


def _folder_bytes(folder: Path) -> int:
    """The bytes of every file under ``folder``."""
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


def _entries(kinds: list[str] | None = None):
    """``(kind, model, path, bytes)`` of every sealed or partial entry under the root."""
    root = cache_root()
    for kind_dir in sorted(p for p in root.iterdir() if p.is_dir() and p.name != "data"):
        if kinds and kind_dir.name not in kinds:
            continue
        for entry in sorted(p for p in kind_dir.iterdir() if p.is_dir()):
            model = "?"
            try:
                model = json.loads((entry / _MARKER).read_text())["description"].get("model", "?")
            except (OSError, ValueError, KeyError, AttributeError):
                model = "(incomplete)"
            yield kind_dir.name, str(model), entry, _folder_bytes(entry)


def inventory() -> list[dict[str, Any]]:
    """The cache's contents per kind and model: ``[{kind, model, entries, bytes}]``, plus
    the fetched data (kind ``data``), sorted by kind and model.

    Returns
    -------
    list of dict
        One row per (kind, model): ``kind``, ``model`` (the ``model`` of the entries'
        descriptions; ``"?"`` when a description has none, ``"(incomplete)"`` for entries
        without a readable ``_complete.json``), ``entries`` (the number of entries) and
        ``bytes``. The fetched data's row has ``model`` ``""`` and counts its files as
        ``entries``.
    """
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for kind, model, _, size in _entries():
        row = rows.setdefault((kind, model), {"kind": kind, "model": model, "entries": 0,
                                              "bytes": 0})
        row["entries"] += 1
        row["bytes"] += size
    data = cache_root() / "data"
    if data.is_dir():
        rows[("data", "")] = {"kind": "data", "model": "",
                              "entries": sum(f.is_file() for f in data.rglob("*")),
                              "bytes": _folder_bytes(data)}
    return [rows[key] for key in sorted(rows)]


#: The kinds of cache entry (the folders under the root): token vectors, pooled sentence
#: vectors, attention to the first token, converted models, fine-tuning runs, fetched data.
KINDS = ("tokens", "pooled", "attention", "models", "finetune", "data")


def clean(kinds: list[str] | None = None, model: str | None = None) -> tuple[int, int]:
    """Remove cache entries (of ``kinds``, default every kind but the fetched ``data``; of
    one ``model`` when given, matched by name); ``kinds=["data"]`` removes the fetched data.
    Returns ``(entries removed, bytes freed)``. An unknown kind is refused before anything
    is removed.

    Parameters
    ----------
    kinds : list of str or None, optional
        Kinds of :data:`KINDS` to clean; None or empty (default): every kind folder under the
        root but ``data``. ``"data"`` in the list removes the fetched data, unless ``model``
        is given.
    model : str or None, optional
        Remove only the entries whose recorded model name contains this string (default
        None: every entry of the kinds).

    Returns
    -------
    tuple of (int, int)
        The number of entries removed (the fetched data counting as one) and the bytes
        freed.

    Raises
    ------
    ValueError
        For a kind not in :data:`KINDS`.
    """
    unknown = sorted(set(kinds or ()) - set(KINDS))
    if unknown:
        raise ValueError(f"Unknown cache kind(s) {unknown}; the kinds are {', '.join(KINDS)}.")
    removed = freed = 0
    if kinds and "data" in kinds and model is None:
        data = cache_root() / "data"
        if data.is_dir():
            freed += _folder_bytes(data)
            removed += 1
            shutil.rmtree(data)
    entry_kinds = None if not kinds else [kind for kind in kinds if kind != "data"]
    if entry_kinds == []:
        return removed, freed
    for _, name, path, size in list(_entries(entry_kinds)):
        if model is not None and model not in name:
            continue
        shutil.rmtree(path, ignore_errors=True)
        removed += 1
        freed += size
    return removed, freed
