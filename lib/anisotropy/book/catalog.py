"""The book's claims, declared once in ``notebooks/claims.yaml``.

:func:`claims` gives ``{slug: {title, short, references, models}}`` in book order. The
runner takes its list of claims from it, the ledger its titles, the book build the claims
part of the table of contents, and notebooks 01-04 their default models
(:func:`default_models`). Reading it needs only PyYAML, so the CLI stays fast.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import yaml

from anisotropy.inputs.data import PROJECT_ROOT

__all__ = ["CLAIMS_FILE", "claims", "default_models", "toc_with_claims"]

CLAIMS_FILE = PROJECT_ROOT / "notebooks" / "claims.yaml"
_FIELDS = {"title", "short", "references", "models"}


@lru_cache(maxsize=4)
def _load(path: Path) -> dict[str, dict]:
    with open(path, encoding="utf-8") as handle:
        declared = yaml.safe_load(handle) or {}
    for slug, body in declared.items():
        missing = {"title", "short", "references"} - set(body or {})
        unknown = set(body or {}) - _FIELDS
        if missing or unknown:
            raise ValueError(f"Claim {slug!r} in {path.name}: missing {sorted(missing)}, "
                             f"unknown {sorted(unknown)}; fields are {sorted(_FIELDS)}.")
    return declared


def claims(path: Path | None = None) -> dict[str, dict]:
    """``{slug: metadata}`` of every claim, in book order."""
    return _load(Path(path) if path else CLAIMS_FILE)


def default_models(slug: str) -> list[str]:
    """The models a claim notebook runs when its ``models`` parameter is None."""
    declared = claims()
    if slug not in declared:
        raise ValueError(f"Unknown claim {slug!r}; choose one of {list(declared)}.")
    models = declared[slug].get("models")
    if not models:
        raise ValueError(f"Claim {slug!r} declares no default models in {CLAIMS_FILE.name}.")
    return list(models)


def toc_with_claims(toc: dict, slugs: list[str]) -> dict:
    """The table of contents with its ``Claims`` part listing ``claims/SLUG`` for ``slugs``
    (the claims that have an executed notebook), in book order."""
    out = dict(toc)
    parts = [dict(part) for part in toc.get("parts", [])]
    captions = [part.get("caption") for part in parts]
    if "Claims" not in captions:
        raise ValueError("The table of contents has no part captioned 'Claims'.")
    parts[captions.index("Claims")]["chapters"] = [{"file": f"claims/{slug}"} for slug in slugs]
    out["parts"] = parts
    return out
