"""The library's version, as the installed package's metadata (``pyproject.toml``) gives it.

Results files record it, and cache keys hold it: a new version never reads an older one's
forward passes.
"""

from importlib import metadata as _metadata

try:
    __version__ = _metadata.version("anisotropy")
except _metadata.PackageNotFoundError:  # run from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = ["__version__"]
