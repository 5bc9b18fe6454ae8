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

Which package holds which claim is read from the declarations, never listed here:
:func:`anisotropy.book.catalog.claims` gives each claim's slug, title, papers and module,
so that a new claim's package needs no line in this file.
"""
