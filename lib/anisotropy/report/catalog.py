"""The book's claims, declared once in ``notebooks/claims.yaml``.

:func:`claims` gives ``{slug: {title, short, references, module}}`` in book order. The
runner takes its list of claims from it, the ledger its titles, the book build the claims
part of the table of contents, and :func:`claim_module` the module that declares each claim
(checked against :data:`INTERFACE`). Reading it needs only PyYAML, so the CLI stays fast.
"""

from __future__ import annotations

import importlib
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import Any

import yaml

from anisotropy.inputs.data import PROJECT_ROOT

__all__ = ["PAGES", "CLAIMS_FILE", "claims", "claim_module", "settings", "toc_with_claims",
           "INTERFACE"]

NOTEBOOKS_DIR = PROJECT_ROOT / "notebooks"
CLAIMS_FILE = NOTEBOOKS_DIR / "claims.yaml"
_FIELDS = {"title", "short", "references", "module"}
# what every claim module declares (anisotropy.claims)
INTERFACE = ("SLUG", "Settings", "models", "inputs", "MODEL_LIST", "MODEL_LIST_CHECKS", "COST",
             "CHECKS")


#: The book source's folder of claim pages: the executed notebooks keep the repository's
#: path (``notebooks/SLUG.ipynb``), so the pages' Binder, Colab and download buttons open
#: the notebook that is in the repository.
PAGES = "notebooks"


@lru_cache(maxsize=4)
def _load(path: Path) -> dict[str, dict]:
    with open(path, encoding="utf-8") as handle:
        declared = yaml.safe_load(handle) or {}
    for slug, body in declared.items():
        missing = _FIELDS - set(body or {})
        unknown = set(body or {}) - _FIELDS
        if missing or unknown:
            raise ValueError(f"Claim {slug!r} in {path.name}: missing {sorted(missing)}, "
                             f"unknown {sorted(unknown)}; fields are {sorted(_FIELDS)}.")
    return declared


def claims(path: Path | None = None) -> dict[str, dict]:
    """``{slug: metadata}`` of every claim, in book order.

    Parameters
    ----------
    path : Path or None, optional
        A claims file; default ``None``: :data:`CLAIMS_FILE` (``notebooks/claims.yaml``).

    Returns
    -------
    dict of str to dict
        ``{slug: {"title", "short", "references", "module"}}``, in the file's order. The file
        is read once per path (the dict is cached: do not change it).

    Raises
    ------
    ValueError
        When a claim misses one of those fields or has another, naming the claim.
    """
    return _load(Path(path) if path else CLAIMS_FILE)


def claim_module(slug: str) -> ModuleType:
    """The module that declares claim ``slug`` (``module`` in ``notebooks/claims.yaml``),
    checked to declare every name of :data:`INTERFACE` for that slug.

    Parameters
    ----------
    slug : str
        A claim of ``notebooks/claims.yaml``, such as ``"01-layerwise-anisotropy"``.

    Returns
    -------
    types.ModuleType
        The imported claim module.

    Raises
    ------
    ValueError
        For an unknown slug, or a module that misses a name of :data:`INTERFACE` or whose
        ``SLUG`` or ``Settings.slug`` is not ``slug``.
    """
    declared = claims()
    if slug not in declared:
        raise ValueError(f"Unknown claim {slug!r}; choose one of {list(declared)}.")
    module = importlib.import_module(declared[slug]["module"])
    missing = [name for name in INTERFACE if not hasattr(module, name)]
    if missing or module.SLUG != slug or module.Settings.slug != slug:
        raise ValueError(f"{module.__name__} does not declare claim {slug!r}: missing "
                         f"{missing}, or its SLUG/Settings.slug differ; see anisotropy.claims.")
    return module


def settings(slug: str, profile: str, overrides: dict[str, Any] | None = None):
    """Claim ``slug``'s settings under ``profile`` with ``overrides``, validated
    (:meth:`anisotropy.inputs.settings.ClaimSettings.for_profile`).

    Parameters
    ----------
    slug : str
        A claim of ``notebooks/claims.yaml`` (:func:`claim_module`).
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
