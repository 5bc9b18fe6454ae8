"""The claims: each declared in one module, its measurements in modules of their own.

A claim module (named in ``notebooks/claims.yaml``) declares ``SLUG``, ``Settings`` (every
parameter with its type, range, default and meaning; :mod:`~anisotropy.claims.settings`),
``models(settings)``, ``inputs(settings)`` (its forward passes, as
:class:`~anisotropy.inputs.jobs.Extraction` records), ``MODEL_LIST`` (the parameter a
workflow's ``models`` replaces), ``MODEL_LIST_CHECKS``, ``COST`` and ``CHECKS`` (the ids of
``data/checks.yaml`` it records), and the ``measure*`` and ``grade*`` functions its page calls.
The book and the workflow read claims only through these names.

- claim 1 (Ethayarajh 2019): :mod:`~anisotropy.claims.layerwise_anisotropy`, measured by
  :mod:`~anisotropy.claims.layerwise`;
- claim 2 (Cai et al. 2021): :mod:`~anisotropy.claims.clusters_manifolds`, measured by
  :mod:`~anisotropy.claims.clusters`;
- claim 3 (Li et al. 2020; Su et al. 2021): :mod:`~anisotropy.claims.frequency_bias`,
  measured by :mod:`~anisotropy.claims.frequency` and :mod:`~anisotropy.claims.calibration`
  (the normalizing flow, the one torch-trained transform);
- claim 4 (Rajaee & Pilehvar 2021): :mod:`~anisotropy.claims.cluster_isotropy`, measured by
  :mod:`~anisotropy.claims.cluster_methods` and :mod:`~anisotropy.claims.finetuning`;
- claim 5 (Mickus et al. 2024): :mod:`~anisotropy.claims.isotropy_vs_clusters`, measured by
  :mod:`~anisotropy.claims.classifier`;
- chapter 6 (later work: Sun et al. 2024, Xiao et al. 2024, Gu et al. 2025, Timkey & van
  Schijndel 2021, and the intrinsic-dimension papers): :mod:`~anisotropy.claims.later_work`,
  measured by :mod:`~anisotropy.claims.later`;
- :mod:`~anisotropy.claims.sts`: STS scoring and paired bootstrap, shared by claims 3 and 4
  and chapter 6.
"""
