"""Claim 2, clusters and manifolds (Cai et al. 2021).

- :mod:`~anisotropy.claims.clusters.claim`: its settings, inputs, checks and grading;
- :mod:`~anisotropy.claims.clusters.measure`: per-cluster similarities and their checks;
- :mod:`~anisotropy.claims.clusters.similarities`: the similarity statistics of clustered
  vectors;
- :mod:`~anisotropy.claims.clusters.manifolds`: local intrinsic dimension;
- :mod:`~anisotropy.claims.clusters.ids`: its check ids, each written once;
- :mod:`~anisotropy.claims.clusters.page`: its page's tables and figures.
"""
