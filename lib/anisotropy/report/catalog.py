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
    """``{slug: metadata}`` of every claim, in book order."""
    return _load(Path(path) if path else CLAIMS_FILE)


def claim_module(slug: str) -> ModuleType:
    """The module that declares claim ``slug`` (``module`` in ``notebooks/claims.yaml``),
    checked to declare every name of :data:`INTERFACE` for that slug."""
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
    (:meth:`anisotropy.inputs.settings.ClaimSettings.for_profile`)."""
    return claim_module(slug).Settings.for_profile(profile, **(overrides or {}))


def toc_with_claims(toc: dict, slugs: list[str]) -> dict:
    """The table of contents with its ``Claims`` part listing ``notebooks/SLUG`` for ``slugs``
    (the claims that have an executed notebook), in book order."""
    out = dict(toc)
    parts = [dict(part) for part in toc.get("parts", [])]
    captions = [part.get("caption") for part in parts]
    if "Claims" not in captions:
        raise ValueError("The table of contents has no part captioned 'Claims'.")
    parts[captions.index("Claims")]["chapters"] = [{"file": f"{PAGES}/{slug}"} for slug in slugs]
    out["parts"] = parts
    return out
