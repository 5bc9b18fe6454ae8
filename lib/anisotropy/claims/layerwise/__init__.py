"""Claim 1, layerwise anisotropy (Ethayarajh 2019).

- :mod:`~anisotropy.claims.layerwise.claim`: its settings, inputs, checks and grading;
- :mod:`~anisotropy.claims.layerwise.measure`: the per-layer statistics (self-similarity,
  intra-sentence similarity, maximum explainable variance) and their baselines;
- :mod:`~anisotropy.claims.layerwise.sentence_units`: which tokens make up a word;
- :mod:`~anisotropy.claims.layerwise.ids`: its check ids, each written once;
- :mod:`~anisotropy.claims.layerwise.page`: its page's tables and figures.
"""
