"""The book's claims, each declared once in its package: the catalog finds them.

Every package under :mod:`anisotropy.claims` whose ``claim`` module holds a ``DECLARATION``
(:class:`~anisotropy.claims.declaration.ClaimDeclaration`) is a claim; :func:`claims` gives
``{slug: {title, short, references, module}}`` in book order (by slug). The runner takes
its list of claims from it, the ledger its titles, the book build the claims part of the
table of contents, and :func:`claim_module` the module that declares each claim (checked
against :data:`INTERFACE` and its declaration validated). The catalog names no claim: it
imports the claims' modules by the names it finds, at run time.

It sits on the top floor, in :mod:`anisotropy.book`, the one floor allowed to import the
claims: no module below it imports a module by name (``tests/test_layout.py``), so what
:mod:`anisotropy.report` needs of a claim (its model-list checks, say) its callers here
pass it as arguments.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
from functools import cache, lru_cache
from types import ModuleType
from typing import Any

__all__ = ["PAGES", "CLAIMS_PACKAGE", "claims", "claim_module", "settings", "toc_with_claims",
           "INTERFACE"]

#: The package whose sub-packages are the claims.
CLAIMS_PACKAGE = "anisotropy.claims"
# what every claim module declares (anisotropy.claims)
INTERFACE = ("SLUG", "DECLARATION", "Settings", "models", "inputs")


#: The book source's folder of claim pages: the executed notebooks keep the repository's
#: path (``notebooks/SLUG.ipynb``), so the pages' Binder, Colab and download buttons open
#: the notebook that is in the repository.
PAGES = "notebooks"


@lru_cache(maxsize=1)
def _discover() -> tuple[tuple[str, dict], ...]:
    package = importlib.import_module(CLAIMS_PACKAGE)
    found: dict[str, dict] = {}
    for info in pkgutil.iter_modules(package.__path__):
        name = f"{CLAIMS_PACKAGE}.{info.name}.claim"
        if not info.ispkg or importlib.util.find_spec(name) is None:
            continue  # a module, or a package with no claim module: not a claim
        module = importlib.import_module(name)
        declaration = getattr(module, "DECLARATION", None)
        if declaration is None:
            raise ValueError(f"{name} declares no DECLARATION: a claim package's claim module "
                             "holds one ClaimDeclaration (see anisotropy.claims).")
        if declaration.slug in found:
            raise ValueError(f"Claim {declaration.slug!r} is declared twice: in "
                             f"{found[declaration.slug]['module']} and {name}.")
        found[declaration.slug] = declaration.catalog_entry(name)
    return tuple(sorted(found.items()))


def claims() -> dict[str, dict]:
    """``{slug: metadata}`` of every claim, in book order.

    Returns
    -------
    dict of str to dict
        ``{slug: {"title", "short", "references", "module"}}``, ordered by slug (its two
        digits are the claim's place in the book), read from each claim package's
        ``DECLARATION``.

    Raises
    ------
    ValueError
        When a claim package's ``claim`` module has no ``DECLARATION``, or two declare one
        slug.
    """
    return dict(_discover())


def claim_module(slug: str) -> ModuleType:
    """The module that declares claim ``slug``, checked to declare every name of
    :data:`INTERFACE`, with its declaration validated against its ``Settings`` and
    ``data/checks.yaml`` (:meth:`~anisotropy.claims.declaration.ClaimDeclaration.validate`).

    Parameters
    ----------
    slug : str
        A claim's slug, such as ``"01-layerwise-anisotropy"`` (:func:`claims`).

    Returns
    -------
    types.ModuleType
        The imported claim module.

    Raises
    ------
    ValueError
        For an unknown slug, or a module that misses a name of :data:`INTERFACE` or whose
        ``SLUG`` is not ``slug``; a
        :class:`~anisotropy.claims.declaration.DeclarationError` (a ValueError) for a
        declaration its settings or ``data/checks.yaml`` contradict.
    """
    declared = claims()
    if slug not in declared:
        raise ValueError(f"Unknown claim {slug!r}; choose one of {list(declared)}.")
    return _validated(declared[slug]["module"], slug)


@cache
def _validated(name: str, slug: str) -> ModuleType:
    module = importlib.import_module(name)
    missing = [attr for attr in INTERFACE if not hasattr(module, attr)]
    if missing or module.SLUG != slug:
        raise ValueError(f"{module.__name__} does not declare claim {slug!r}: missing "
                         f"{missing}, or its SLUG differs; see anisotropy.claims.")
    module.DECLARATION.validate(module.Settings)
    return module


def settings(slug: str, profile: str, overrides: dict[str, Any] | None = None):
    """Claim ``slug``'s settings under ``profile`` with ``overrides``, validated
    (:meth:`anisotropy.inputs.settings.ClaimSettings.for_profile`).

    Parameters
    ----------
    slug : str
        A claim's slug (:func:`claim_module`).
    profile : str
        A profile of ``notebooks/profiles.yaml`` (``smoke``, ``full``, ``paper``, ``binder``).
    overrides : dict of str to Any or None, optional
        Parameter values given on top of the profile; default ``None``: none.

    Returns
    -------
    anisotropy.inputs.settings.ClaimSettings
        An instance of the claim module's ``Settings``.

    Raises
    ------
    ValueError
        For an unknown slug (:func:`claim_module`).
    anisotropy.inputs.settings.SettingsError
        For an unknown profile, a name that is not a parameter, or a value out of its type or
        range.
    """
    return claim_module(slug).Settings.for_profile(profile, **(overrides or {}))


def toc_with_claims(toc: dict, slugs: list[str]) -> dict:
    """The table of contents with its ``Claims`` part listing ``notebooks/SLUG`` for ``slugs``
    (the claims that have an executed notebook), in book order.

    Parameters
    ----------
    toc : dict
        A parsed ``_toc.yml`` (Jupyter Book), with a list of ``parts``; it is not changed.
    slugs : list of str
        The claims to list, in the order given (the caller gives them in book order).

    Returns
    -------
    dict
        A copy of ``toc`` whose part captioned ``Claims`` has one chapter
        ``{"file": "notebooks/SLUG"}`` per slug, in place of the chapters it had.

    Raises
    ------
    ValueError
        When no part of ``toc`` is captioned ``Claims``.
    """
    out = dict(toc)
    parts = [dict(part) for part in toc.get("parts", [])]
    captions = [part.get("caption") for part in parts]
    if "Claims" not in captions:
        raise ValueError("The table of contents has no part captioned 'Claims'.")
    parts[captions.index("Claims")]["chapters"] = [{"file": f"{PAGES}/{slug}"} for slug in slugs]
    out["parts"] = parts
    return out
