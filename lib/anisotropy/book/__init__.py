"""The book itself, the top floor: it runs the claims and assembles their pages.

- :mod:`~anisotropy.book.catalog`: the claims, found by their declarations, and their
  modules, imported by name at run time (the only modules of the library that import a
  module by name: ``tests/test_layout.py``);
- :mod:`~anisotropy.book.runner`: parameter validation, papermill execution with profiles,
  and the book build;
- :mod:`~anisotropy.book.plan`: the extraction jobs a set of claims needs, run once each;
- :mod:`~anisotropy.book.ledger` and :mod:`~anisotropy.book.glance`: the claim ledger and
  the grid of verdicts at a glance, read from the results files
  (:mod:`~anisotropy.book.rows` turns them into rows, :mod:`~anisotropy.book.summary`
  counts them);
- :mod:`~anisotropy.book.expected`: the recorded bands and verdicts the tests compare a
  build with; :mod:`~anisotropy.book.fresh_run` and :mod:`~anisotropy.book.assets`: helpers
  of the build.

It imports the claims (through :mod:`~anisotropy.book.catalog`) and
:mod:`anisotropy.report`, and passes :mod:`anisotropy.report` what it needs of a claim;
nothing below imports it.
"""
