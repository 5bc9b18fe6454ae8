"""anisotropy: the helper library of the contextual-embedding-geometry book.

Five sub-packages, from the bottom floor up (a module imports only its own floor and those
below it):

- :mod:`anisotropy.geometry`: metrics, transforms and intervals on arrays (no torch);
- :mod:`anisotropy.inputs`: data files, the task and corpus registry, the model registry,
  extraction of hidden states, the on-disk cache, the papers' numbers and the claims'
  settings;
- :mod:`anisotropy.report`: check declarations, verdicts, the results a claim records and
  the book's formatting of numbers, tables and figures;
- :mod:`anisotropy.claims`: one package per claim, holding its declaration, its
  measurements and its page;
- :mod:`anisotropy.book`: the runner, the extraction plan, the ledger and the glance grid.

``python -m anisotropy`` (the ``anisotropy`` command) is :mod:`anisotropy.__main__`.
"""

from anisotropy.inputs.version import __version__

__all__ = ["__version__"]
