"""Each claim's analysis, from cached vectors to the measured values of its checks.

- :mod:`~anisotropy.claims.layerwise`: claim 1 (Ethayarajh 2019).
- :mod:`~anisotropy.claims.clusters`: claim 2 (Cai et al. 2021).
- :mod:`~anisotropy.claims.frequency` and :mod:`~anisotropy.claims.calibration` (the
  normalizing flow, the one torch-trained transform): claim 3 (Li et al. 2020; Su et al.
  2021).
- :mod:`~anisotropy.claims.cluster_isotropy`: claim 4 (Rajaee & Pilehvar 2021).
- :mod:`~anisotropy.claims.classifier`: claim 5 (Mickus et al. 2024).
- :mod:`~anisotropy.claims.sts`: STS scoring and paired bootstrap, shared by claims 3 and 4.
"""
