"""Claim 3, frequency bias and calibration (Li et al. 2020; Su et al. 2021).

- :mod:`~anisotropy.claims.frequency.claim`: its settings, inputs, checks and grading;
- :mod:`~anisotropy.claims.frequency.measure`: the frequency-bias statistics of the input
  embeddings;
- :mod:`~anisotropy.claims.frequency.calibration`: whitening and the normalizing flow on
  STS (the flow is the one torch-trained transform);
- :mod:`~anisotropy.claims.frequency.ids`: its check ids, each written once;
- :mod:`~anisotropy.claims.frequency.page`: its page's tables and figures.
"""
