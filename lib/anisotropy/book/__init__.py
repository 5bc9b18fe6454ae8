"""Turning measurements into the book: checks, results, the ledger, the runner, figures.

- :mod:`~anisotropy.book.checks`: check declarations (``data/checks.yaml``) and grading.
- :mod:`~anisotropy.book.results`: the results JSON shared by the ledger and the tests.
- :mod:`~anisotropy.book.ledger`: the claim ledger page.
- :mod:`~anisotropy.book.catalog`: the claims, declared once (``notebooks/claims.yaml``).
- :mod:`~anisotropy.book.runner`: parameter validation, papermill execution with profiles,
  and the book build.
- :mod:`~anisotropy.book.plotting`: the figures' shared style.
"""
