"""``anisotropy data fetch``: download the original data files and verify their sha256.

Each file of ``data/sources.yaml`` is downloaded from its ``url`` (a file at a fixed commit
of a public repository), or from ``$ANISOTROPY_DATA_MIRROR/<relative path>`` when that
variable is set (a mirror of the data folder), into :func:`~anisotropy.inputs.datafiles.
fetch_dir`. A download is written to a temporary name, hashed, and moved into place only
when its sha256 is the declared one; a file already in place with the right hash is kept.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from anisotropy.inputs.datafiles import DataError, fetch_dir, sha256_of, sources

__all__ = ["MIRROR_ENV", "Fetched", "fetch", "file_url"]

#: A base URL (or directory) holding the data folder's layout, used instead of each url.
MIRROR_ENV = "ANISOTROPY_DATA_MIRROR"


@dataclass(frozen=True)
class Fetched:
    """One file's outcome: ``status`` is ``downloaded``, ``present`` or ``no source``."""

    path: str
    status: str
    size_bytes: int


def file_url(relpath: str, entry: dict) -> str | None:
    """Where a file is downloaded from: the mirror when set, else its declared url."""
    mirror = os.environ.get(MIRROR_ENV)
    if mirror:
        base = mirror if "://" in mirror else Path(mirror).resolve().as_uri()
        return base.rstrip("/") + "/" + relpath
    return entry.get("url")


def _download(url: str, target: Path, timeout: float = 60.0) -> None:
    with urllib.request.urlopen(url, timeout=timeout) as response, open(target, "wb") as out:
        shutil.copyfileobj(response, out)


def fetch(names: list[str] | None = None, root: Path | None = None,
          progress=print) -> list[Fetched]:
    """Download every file of the named datasets (all when ``names`` is empty) into ``root``
    (default :func:`fetch_dir`), verifying each sha256.

    Raises
    ------
    DataError
        For an unknown dataset name (before any download), a download that fails (naming
        the url), or a file whose sha256 differs from the declared one (naming the file and
        both hashes; the file is not kept).
    """
    declared = sources()
    names = list(names or declared)
    unknown = [name for name in names if name not in declared]
    if unknown:
        raise DataError(f"Unknown dataset(s) {unknown}; choose from {sorted(declared)}.")
    root = Path(root) if root is not None else fetch_dir()
    outcomes = []
    for name in names:
        for relpath, entry in declared[name]["files"].items():
            target = root / relpath
            if target.is_file() and sha256_of(target) == entry["sha256"]:
                outcomes.append(Fetched(relpath, "present", entry["size_bytes"]))
                continue
            url = file_url(relpath, entry)
            if url is None:
                progress(f"  {relpath}: no download address (source: {entry['source']}); "
                         f"place it in {root} by hand")
                outcomes.append(Fetched(relpath, "no source", 0))
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".fetch-")
            os.close(handle)
            try:
                try:
                    _download(url, Path(temporary))
                except OSError as error:
                    raise DataError(f"Could not download {relpath} from {url}: {error}. Check "
                                    f"the network, or set {MIRROR_ENV} to a mirror.") from error
                actual = sha256_of(Path(temporary))
                if actual != entry["sha256"]:
                    raise DataError(f"Refused {relpath} from {url}: its sha256 is {actual}, "
                                    f"expected {entry['sha256']}. The file was not kept.")
                os.replace(temporary, target)
            finally:
                if os.path.exists(temporary):
                    os.unlink(temporary)
            progress(f"  {relpath}: {entry['size_bytes']:,} bytes, sha256 verified")
            outcomes.append(Fetched(relpath, "downloaded", entry["size_bytes"]))
    return outcomes
