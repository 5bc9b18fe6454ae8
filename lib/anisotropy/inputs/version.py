"""The library's version, as the installed package's metadata (``pyproject.toml``) gives it.

Results files and the meta of cache entries record it. Cache keys do not hold it: an
extraction entry is keyed by the model's fingerprint, the sentences, the parameters and
:data:`anisotropy.inputs.extraction.EXTRACTION_VERSION`, raised when older entries may be
wrong.
"""

from importlib import metadata as _metadata

try:
    __version__ = _metadata.version("anisotropy")
except _metadata.PackageNotFoundError:  # run from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = ["__version__"]
