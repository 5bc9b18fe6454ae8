"""anisotropy: the helper library of the contextual-embedding-geometry book.

Four sub-packages, in the order data flows through them:

- :mod:`anisotropy.inputs`: data files, the task and corpus registry, the model registry,
  extraction of hidden states, and the on-disk cache.
- :mod:`anisotropy.geometry`: metrics, transforms and intervals on arrays (no torch).
- :mod:`anisotropy.claims`: one module per claim holding its analysis.
- :mod:`anisotropy.book`: checks, results, the ledger, the runner and figure style.

``python -m anisotropy`` (the ``anisotropy`` command) is :mod:`anisotropy.__main__`.
"""

from importlib import metadata as _metadata

try:  # the installed package's metadata (pyproject.toml), so a results file says which
    __version__ = _metadata.version("anisotropy")
except _metadata.PackageNotFoundError:  # run from a source tree that was never installed
    __version__ = "0+unknown"
