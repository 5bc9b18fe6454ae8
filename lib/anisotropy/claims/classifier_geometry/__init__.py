"""Claim 5, IsoScore against silhouette under linear classification (Mickus et al. 2024).

- :mod:`~anisotropy.claims.classifier_geometry.claim`: its settings, setups, checks and
  grading;
- :mod:`~anisotropy.claims.classifier_geometry.classifier`: the classifier's training and
  the metrics recorded along it;
- :mod:`~anisotropy.claims.classifier_geometry.ids`: its check ids, each written once;
- :mod:`~anisotropy.claims.classifier_geometry.page`: its page's tables and figures.
"""
