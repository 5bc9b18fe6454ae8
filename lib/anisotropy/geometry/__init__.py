"""Pure functions on arrays of vectors: no model, no file, no torch.

- :mod:`~anisotropy.geometry.metrics`: isotropy, similarity, clustering and dimension
  measures.
- :mod:`~anisotropy.geometry.transforms`: fit/transform post-processing (centring,
  all-but-the-top, cluster-based isotropy, whitening).
- :mod:`~anisotropy.geometry.grouping`: group sums and run means over sorted labels.
- :mod:`~anisotropy.geometry.intervals`: bootstrap and seed intervals behind every graded
  number.
- :mod:`~anisotropy.geometry.sampling`: the one seeded row sampler.

A test checks that importing this package does not import torch.
"""
