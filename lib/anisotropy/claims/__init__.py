"""The claims: one package each, holding its declaration, its measurements and its page.

A claim's package holds:

- ``claim.py``: ``SLUG``, ``DECLARATION`` (the claim's identity, declared once:
  :class:`~anisotropy.claims.declaration.ClaimDeclaration`), ``Settings`` (every parameter
  with its type, range, default and meaning; :mod:`anisotropy.inputs.settings`),
  ``models(settings)``, ``inputs(settings)`` (its forward passes, as
  :class:`~anisotropy.inputs.jobs.Extraction` records), and the ``measure*`` and
  ``grade*`` functions its notebook calls;
- its measurements, in modules of their own;
- ``page.py``: the tables, sentences and figures its notebook shows.

The book finds the claims by their declarations (:mod:`anisotropy.book.catalog`) and,
like the workflow, reads a claim only through the names of ``claim.py``. Claims do not
import one another: the corpora several of them share are in
:mod:`anisotropy.inputs.corpora`, and the STS scoring claims 3, 4 and chapter 6 share is
:mod:`anisotropy.claims.sts`.

- claim 1 (Ethayarajh 2019): :mod:`anisotropy.claims.layerwise`;
- claim 2 (Cai et al. 2021): :mod:`anisotropy.claims.clusters`;
- claim 3 (Li et al. 2020; Su et al. 2021): :mod:`anisotropy.claims.frequency`;
- claim 4 (Rajaee & Pilehvar 2021): :mod:`anisotropy.claims.cluster_isotropy`;
- claim 5 (Mickus et al. 2024): :mod:`anisotropy.claims.classifier_geometry`;
- chapter 6 (later work: Sun et al. 2024, Xiao et al. 2024, Gu et al. 2025, Timkey & van
  Schijndel 2021, and the intrinsic-dimension papers): :mod:`anisotropy.claims.later_work`.
"""
