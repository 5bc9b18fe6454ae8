"""Where the data files are, their sources, and the sha256 verification of every file read.

Every dataset's files, with their source address, sha256, licence and hub copy, are declared
in ``data/sources.yaml``. A dataset is read from the first *data root* that holds its folder:

1. ``$ANISOTROPY_DATA``, when set (then the only root searched);
2. ``data/raw/`` inside the project;
3. ``$ANISOTROPY_CACHE/data`` (default ``~/.cache/anisotropy/data``), where
   ``anisotropy data fetch`` puts the files;
4. ``../shared/data/`` beside the project, unless ``ANISOTROPY_NO_SHARED=1``.

A dataset in no root is read from its Hugging Face hub copy
(:mod:`anisotropy.inputs.hub_data`). Before a local file is read for the first time in a
process, its sha256 is checked against ``data/sources.yaml``; nothing is read from an
unverified file. What was read (a file's sha256, or a hub copy's commit) is recorded for the
results file (:func:`verified_files`).
"""

from __future__ import annotations

import functools
import gzip
import io
import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

from anisotropy.inputs.cache import file_hash

if TYPE_CHECKING:
    import pandas as pd

PROJECT_ROOT = Path(__file__).resolve().parents[3]
SOURCES_FILE = PROJECT_ROOT / "data" / "sources.yaml"
#: Set to 1 to ignore ``../shared/data`` (what a user outside this project's machines has).
NO_SHARED_ENV = "ANISOTROPY_NO_SHARED"

__all__ = ["PROJECT_ROOT", "SOURCES_FILE", "NO_SHARED_ENV", "DataError", "DatasetSpec", "sources",
           "data_roots", "data_root", "dataset_root", "fetch_dir", "expected_files",
           "verify_file", "verified_files", "data_sources", "record_hub_read", "verify_all",
           "read_text", "read_lines", "sha256_of"]


class DataError(RuntimeError):
    """A data file is missing, corrupt, unknown, or a dataset name or split is invalid."""


@dataclass(frozen=True)
class DatasetSpec:
    """What a dataset is called, where its local files live (its folder in a data root)
    and its local splits. Its sources and hub copy are in ``data/sources.yaml``.

    Attributes
    ----------
    name : str
        The dataset's name (``anisotropy.inputs.data.load(name, split)``).
    folder : str
        Its folder under a data root.
    splits : tuple of str
        Its splits; the first is the default.
    loader : callable
        Reads one split (``loader(split)``; the STS reader also takes the name first) into
        a pandas DataFrame.
    """

    name: str
    folder: str
    splits: tuple[str, ...]
    loader: Callable[..., pd.DataFrame]


@functools.cache
def sources() -> dict[str, dict]:
    """``{dataset: {description, license, citation, hub, files}}`` from ``data/sources.yaml``.

    Returns
    -------
    dict
        The file's ``datasets`` mapping, read once per process (cached).
    """
    with open(SOURCES_FILE, encoding="utf-8") as handle:
        return yaml.safe_load(handle)["datasets"]


# --------------------------------------------------------------------------- data roots


def fetch_dir() -> Path:
    """Where ``anisotropy data fetch`` writes: ``$ANISOTROPY_DATA``, else
    ``$ANISOTROPY_CACHE/data`` (default ``~/.cache/anisotropy/data``). Not created here.

    Returns
    -------
    pathlib.Path
        That folder, with ``~`` expanded; it may not exist.
    """
    env = os.environ.get("ANISOTROPY_DATA")
    if env:
        return Path(env).expanduser()
    return Path(os.environ.get("ANISOTROPY_CACHE", "~/.cache/anisotropy")).expanduser() / "data"


def data_roots() -> list[Path]:
    """The existing data roots, in search order (see the module docstring).

    Returns
    -------
    list of pathlib.Path
        ``[$ANISOTROPY_DATA]`` when that variable is set; else those of ``data/raw/``,
        :func:`fetch_dir` and ``../shared/data/`` (unless ``ANISOTROPY_NO_SHARED`` is ``1``,
        ``true`` or ``yes``) that are directories. Possibly empty.

    Raises
    ------
    DataError
        If ``$ANISOTROPY_DATA`` is set but is not a directory.
    """
    env = os.environ.get("ANISOTROPY_DATA")
    if env:
        root = Path(env).expanduser()
        if not root.is_dir():
            raise DataError(
                f"ANISOTROPY_DATA={env!r} is not a directory. Point it at a copy of the "
                "datasets (`anisotropy data fetch` writes one there), or unset it."
            )
        return [root]
    candidates = [PROJECT_ROOT / "data" / "raw", fetch_dir()]
    if os.environ.get(NO_SHARED_ENV, "") not in ("1", "true", "yes"):
        candidates.append(PROJECT_ROOT.parent / "shared" / "data")
    return [path for path in candidates if path.is_dir()]


def dataset_root(folder: str) -> Path | None:
    """The first data root holding ``folder`` (a dataset's folder), or None.

    Parameters
    ----------
    folder : str
        A dataset's folder name in a data root (:attr:`DatasetSpec.folder`).

    Returns
    -------
    pathlib.Path or None
        The first of :func:`data_roots` that has ``folder`` as a subdirectory; None when
        none has.

    Raises
    ------
    DataError
        If ``$ANISOTROPY_DATA`` is set but is not a directory (from :func:`data_roots`).
    """
    for root in data_roots():
        if (root / folder).is_dir():
            return root
    return None


def data_root() -> Path:
    """The first existing data root.

    Returns
    -------
    pathlib.Path
        The first of :func:`data_roots`.

    Raises
    ------
    DataError
        If there is none: the message says how to get the data.
    """
    roots = data_roots()
    if not roots:
        raise DataError(
            "No data root found. Run `anisotropy data fetch` (downloads every dataset into "
            f"{fetch_dir()}), or set ANISOTROPY_DATA to a copy of the datasets; without "
            "either, the notebooks read each dataset's Hugging Face hub copy."
        )
    return roots[0]


# --------------------------------------------------------------------------- verification

_VERIFIED: dict[str, tuple[str, str]] = {}  # relative path -> (path, sha256), checked here
_HUB_READS: dict[str, str] = {}  # "hub:<dataset>/<split>" -> "<hub id>@<commit>"
_HUB_FILES: dict[str, str] = {}  # "hub:<dataset>/<split>/<file in the hub copy>" -> sha256


def expected_files() -> dict[str, dict]:
    """``{relative path: {"sha256", "size_bytes", "url", "source", "dataset"}}`` of every
    data file declared in ``data/sources.yaml``.

    Returns
    -------
    dict of str to dict
        Per file path (relative to a data root), its entry in ``data/sources.yaml`` plus the
        name of its ``dataset``. The keys an entry has beyond ``dataset`` are those declared
        (e.g. ``archive`` instead of ``url``).
    """
    return {path: {**entry, "dataset": name} for name, block in sources().items()
            for path, entry in block["files"].items()}


def sha256_of(path: Path) -> str:
    """The sha256 hex digest of a file, read in 1 MiB blocks
    (:func:`anisotropy.inputs.cache.file_hash`, the one file hash of the library).

    Parameters
    ----------
    path : pathlib.Path
        The file.

    Returns
    -------
    str
        The 64 hexadecimal digits of its sha256.
    """
    return file_hash(path, block=1 << 20)


def verify_file(relpath: str, root: Path | None = None) -> Path:
    """Check one data file's sha256 against ``data/sources.yaml`` and return its path.

    The file is looked up in the first data root that holds its dataset's folder (or in
    ``root``). The result is remembered for the process, so each file is hashed once.

    Parameters
    ----------
    relpath : str
        The file's path relative to a data root, as declared in ``data/sources.yaml`` (its
        first component is the dataset's folder).
    root : pathlib.Path or None, optional
        The data root to look in. None (default): the first data root that holds the
        folder of ``relpath``, else the first data root (:func:`data_root`).

    Returns
    -------
    pathlib.Path
        ``root / relpath``, verified.

    Raises
    ------
    DataError
        If the path is not a known data file, is missing, or its hash differs (the message
        names the file, the expected and the actual hash); or, with ``root`` None, if there
        is no data root.
    """
    expected = expected_files()
    if relpath not in expected:
        raise DataError(f"{relpath!r} is not a known data file (see {SOURCES_FILE}).")
    if root is None:
        root = dataset_root(relpath.split("/")[0]) or data_root()
    path = root / relpath
    if _VERIFIED.get(relpath, ("", ""))[0] == str(path):
        return path
    if not path.is_file():
        raise DataError(f"Missing data file {path}. Restore it with `anisotropy data fetch "
                        f"{expected[relpath]['dataset']}` (source: {expected[relpath]['source']}).")
    actual = sha256_of(path)
    want = expected[relpath]["sha256"]
    if actual != want:
        raise DataError(
            f"sha256 mismatch for {path}: expected {want}, got {actual}. The file was modified "
            f"or truncated; restore the original with `anisotropy data fetch "
            f"{expected[relpath]['dataset']}`."
        )
    _VERIFIED[relpath] = (str(path), actual)
    return path


def record_hub_read(dataset: str, split: str, hub_id: str, commit: str,
                    files: dict[str, str] | None = None) -> None:
    """Record that ``split`` of ``dataset`` was read from ``hub_id`` at ``commit``, and the
    sha256 of each file read (``{path in the hub copy: sha256}``): the hub copies' revision
    is a branch that the hub rewrites, so the commit and the hashes say what was read.

    Parameters
    ----------
    dataset : str
        The dataset's registry name.
    split : str
        The local split that was read.
    hub_id : str
        The id of the hub copy (a Hugging Face dataset repository).
    commit : str
        The commit the files come from.
    files : dict of str to str, optional
        ``{path in the hub copy: sha256}`` of each file read; None (default) records none.

    Notes
    -----
    Recorded in this process's registry, which :func:`verified_files` and
    :func:`data_sources` report; a later read of the same split overwrites its commit and
    the hashes of the files it reads again.
    """
    _HUB_READS[f"hub:{dataset}/{split}"] = f"{hub_id}@{commit}"
    for path, digest in (files or {}).items():
        _HUB_FILES[f"hub:{dataset}/{split}/{path}"] = digest


def verified_files() -> dict[str, str]:
    """What this process read: ``{relative path: sha256}`` of every verified local file,
    ``{"hub:<dataset>/<split>": "<hub id>@<commit>"}`` of every hub copy and
    ``{"hub:<dataset>/<split>/<file>": sha256}`` of each hub file read, sorted.

    Returns
    -------
    dict of str to str
        The three kinds of entry in one mapping, sorted by key.
    """
    local = {relpath: digest for relpath, (_, digest) in _VERIFIED.items()}
    return dict(sorted({**local, **_HUB_READS, **_HUB_FILES}.items()))


def data_sources() -> dict[str, str]:
    """Where each dataset read in this process came from: ``{dataset: "local: N files,
    sha256 verified"}``, and ``{"dataset/split": "hub:<hub id>@<commit>"}`` per split read
    from the hub.

    Returns
    -------
    dict of str to str
        Both kinds of entry in one mapping, sorted by key (``"file"`` for a count of one).
    """
    declared = expected_files()
    counts = Counter(declared[relpath]["dataset"] for relpath in _VERIFIED)
    out = {name: f"local: {count} file{'s' if count > 1 else ''}, sha256 verified"
           for name, count in counts.items()}
    for key, value in _HUB_READS.items():
        out[key.removeprefix("hub:")] = f"hub:{value}"  # "snli/dev": one entry per split
    return dict(sorted(out.items()))


def verify_all(root: Path | None = None) -> int:
    """Verify every declared data file; return the count. Raises on the first problem.

    Parameters
    ----------
    root : pathlib.Path or None, optional
        The data root to look in, as for :func:`verify_file` (default None: each file's
        dataset root).

    Returns
    -------
    int
        The number of files verified (every file of ``data/sources.yaml``).

    Raises
    ------
    DataError
        On the first file that is missing or whose sha256 differs (see :func:`verify_file`).
    """
    names = sorted(expected_files())
    for relpath in names:
        verify_file(relpath, root)
    return len(names)


def read_text(relpath: str, encoding: str = "utf-8") -> str:
    """Read a verified file as text with universal newlines (CRLF becomes LF).

    Parameters
    ----------
    relpath : str
        The file's path relative to a data root (see :func:`verify_file`). A ``.gz`` file
        is decompressed first.
    encoding : str, optional
        The text encoding (default ``"utf-8"``).

    Returns
    -------
    str
        The file's text.

    Raises
    ------
    DataError
        If the file is unknown, missing, or fails its sha256 check (:func:`verify_file`).
    """
    path = verify_file(relpath)
    raw = path.read_bytes()
    if relpath.endswith(".gz"):
        raw = gzip.decompress(raw)
    return io.TextIOWrapper(io.BytesIO(raw), encoding=encoding, newline=None).read()


def read_lines(relpath: str, encoding: str = "utf-8") -> list[str]:
    """A verified file's lines, without line endings and without a trailing empty line.

    Parameters
    ----------
    relpath : str
        The file's path relative to a data root (see :func:`read_text`).
    encoding : str, optional
        The text encoding (default ``"utf-8"``).

    Returns
    -------
    list of str
        The lines of :func:`read_text`'s text, split on LF; a final empty line (after a
        trailing newline) is dropped.

    Raises
    ------
    DataError
        If the file is unknown, missing, or fails its sha256 check (:func:`verify_file`).
    """
    text = read_text(relpath, encoding)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines
