"""The local data root and the sha256 verification of every file read from it.

The *data root* is the first that exists of

1. ``$ANISOTROPY_DATA``,
2. ``data/raw/`` inside the project,
3. ``../shared/data/`` beside the project.

Before a file is read for the first time in a process, its sha256 is checked against
``data/sha256.json`` (copied from the data manifest); nothing is read from an unverified
file. The dataset loaders that read these files are in :mod:`anisotropy.inputs.data`.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[3]
EXPECTED_SHA256_FILE = PROJECT_ROOT / "data" / "sha256.json"

__all__ = ["PROJECT_ROOT", "EXPECTED_SHA256_FILE", "DataError", "data_root", "expected_files",
           "verify_file", "verified_files", "verify_all", "read_text", "read_lines"]


class DataError(RuntimeError):
    """A data file is missing, corrupt, unknown, or a dataset name or split is invalid."""


# --------------------------------------------------------------------------- data root


def data_root() -> Path:
    """Return the data root: ``$ANISOTROPY_DATA``, else ``data/raw``, else ``../shared/data``.

    Raises
    ------
    DataError
        If ``$ANISOTROPY_DATA`` is set but does not exist, or none of the candidates exists.
    """
    env = os.environ.get("ANISOTROPY_DATA")
    if env:
        root = Path(env).expanduser()
        if not root.is_dir():
            raise DataError(
                f"ANISOTROPY_DATA={env!r} is not a directory. Point it at a copy of the "
                "dataset folder (the layout of ../shared/data) or unset it."
            )
        return root
    for candidate in (PROJECT_ROOT / "data" / "raw", PROJECT_ROOT.parent / "shared" / "data"):
        if candidate.is_dir():
            return candidate
    raise DataError(
        "No data root found: set ANISOTROPY_DATA to a copy of the datasets, or place them in "
        f"{PROJECT_ROOT / 'data' / 'raw'} or {PROJECT_ROOT.parent / 'shared' / 'data'}."
    )


# --------------------------------------------------------------------------- verification

_VERIFIED: dict[str, str] = {}  # relative path -> sha256, for files checked in this process


def expected_files() -> dict[str, dict]:
    """``{relative path: {"sha256": ...}}`` of every known data file (``data/sha256.json``)."""
    with open(EXPECTED_SHA256_FILE, encoding="utf-8") as handle:
        return json.load(handle)["files"]


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify_file(relpath: str, root: Path | None = None) -> Path:
    """Check one data file's sha256 against the project's expected value and return its path.

    The result is remembered for the process, so each file is hashed once.

    Raises
    ------
    DataError
        If the path is not a known data file, is missing, or its hash differs (the message
        names the file, the expected and the actual hash).
    """
    root = data_root() if root is None else root
    path = root / relpath
    key = str(path)
    if key in _VERIFIED:
        return path
    expected = expected_files()
    if relpath not in expected:
        raise DataError(f"{relpath!r} is not a known data file (see {EXPECTED_SHA256_FILE}).")
    if not path.is_file():
        raise DataError(f"Missing data file {path}. Restore it from its source in MANIFEST.json.")
    actual = _sha256(path)
    want = expected[relpath]["sha256"]
    if actual != want:
        raise DataError(
            f"sha256 mismatch for {path}: expected {want}, got {actual}. The file was modified "
            "or truncated; restore the original."
        )
    _VERIFIED[key] = actual
    return path


def verified_files() -> dict[str, str]:
    """Return ``{relative path: sha256}`` of the data files verified in this process."""
    root = str(data_root())
    return {
        os.path.relpath(path, root): digest for path, digest in sorted(_VERIFIED.items())
    }


def verify_all(root: Path | None = None) -> int:
    """Verify every expected data file; return the count. Raises on the first problem."""
    names = sorted(expected_files())
    for relpath in names:
        verify_file(relpath, root)
    return len(names)


def read_text(relpath: str, encoding: str = "utf-8") -> str:
    """Read a verified file as text with universal newlines (CRLF becomes LF)."""
    path = verify_file(relpath)
    raw = path.read_bytes()
    if relpath.endswith(".gz"):
        raw = gzip.decompress(raw)
    return io.TextIOWrapper(io.BytesIO(raw), encoding=encoding, newline=None).read()


def read_lines(relpath: str, encoding: str = "utf-8") -> list[str]:
    """A verified file's lines, without line endings and without a trailing empty line."""
    text = read_text(relpath, encoding)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines
