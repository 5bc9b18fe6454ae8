"""Claim 4, cluster-based isotropy (Rajaee & Pilehvar 2021).

- :mod:`~anisotropy.claims.cluster_isotropy.claim`: its settings, inputs, checks and
  grading;
- :mod:`~anisotropy.claims.cluster_isotropy.methods`: the global and cluster-based
  isotropy methods, I(W) and the SST-2 probe;
- :mod:`~anisotropy.claims.cluster_isotropy.finetuning`: the fine-tuning runs;
- :mod:`~anisotropy.claims.cluster_isotropy.ids`: its check ids, each written once;
- :mod:`~anisotropy.claims.cluster_isotropy.page`: its page's tables and figures.
"""
