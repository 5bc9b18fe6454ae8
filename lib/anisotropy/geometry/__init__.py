"""Pure functions on arrays of vectors: no model, no file, no torch.

- :mod:`~anisotropy.geometry.metrics`: every measure in one namespace, from
  :mod:`~anisotropy.geometry.similarity` (Ethayarajh 2019; Cai et al. 2021),
  :mod:`~anisotropy.geometry.isotropy` (IsoScore, I(W)), :mod:`~anisotropy.geometry.silhouette`
  and :mod:`~anisotropy.geometry.dimension` (kNN distances, LID), with the input checks of
  :mod:`~anisotropy.geometry.validation`.
- :mod:`~anisotropy.geometry.transforms`: fit/transform post-processing (centring,
  all-but-the-top, cluster-based isotropy, whitening).
- :mod:`~anisotropy.geometry.grouping`: group sums and run means over sorted labels.
- :mod:`~anisotropy.geometry.intervals`: bootstrap and seed intervals behind every graded
  number.
- :mod:`~anisotropy.geometry.sampling`: the one seeded row sampler.

A test checks that importing this package does not import torch.
"""
