"""Recording and showing a claim's results, the floor under the claims.

- :mod:`~anisotropy.report.checks`: check declarations (``data/checks.yaml``) and grading;
- :mod:`~anisotropy.report.verdicts`: the verdicts and their symbols;
- :mod:`~anisotropy.report.results`: the results recorder a notebook writes through, and
  the results JSON the ledger and the tests read;
- :mod:`~anisotropy.report.provenance`: what a run ran (library files, inputs digest,
  environment);
- :mod:`~anisotropy.report.display`, :mod:`~anisotropy.report.tables` and
  :mod:`~anisotropy.report.plotting`: numbers, tables and figures in the book's style.

The claims' pages (``anisotropy.claims.<claim>.page``) build on it; it imports no claim,
neither by an import statement nor by name at run time. The catalog that finds the claims
is :mod:`anisotropy.book.catalog`, on the top floor; what this floor needs of a claim, its
callers pass as arguments (the model-list checks of
:func:`~anisotropy.report.results.add_models_not_run`), and
:func:`~anisotropy.report.provenance.library_files` finds the claim module among the
imports of its notebook.
"""
