"""A claim's declaration: one validated record, refused with a message naming the value."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

import pytest

from anisotropy.claims.declaration import ClaimDeclaration, DeclarationError

GOOD = dict(slug="01-layerwise-anisotropy", title="1. Layerwise anisotropy (Ethayarajh 2019)",
            short="1. layerwise", references="claim1", sources=("Ethayarajh 2019",),
            model_list="models", cost=296, checks=("a", "b", "c"))


def test_a_consistent_declaration_is_accepted():
    declaration = ClaimDeclaration(**GOOD)
    assert declaration.catalog_entry("m") == {"title": GOOD["title"], "short": "1. layerwise",
                                              "references": "claim1", "module": "m"}


@pytest.mark.parametrize("change, named", [
    ({"slug": "1-layerwise"}, "slug '1-layerwise' is not NN-words"),
    ({"slug": "01-Layerwise"}, "slug '01-Layerwise'"),
    ({"title": " "}, "title ' ' must be a non-empty string"),
    ({"sources": ()}, "sources () must name the papers"),
    ({"cost": 0}, "cost 0 must be a positive number"),
    ({"cost": True}, "cost True"),
    ({"checks": ("a", "a")}, "repeated: ['a']"),
    ({"checks": ()}, "checks is empty"),
    ({"model_list_checks": ("appendix",)}, "model_list_checks ['appendix'] match no check"),
])
def test_a_declaration_that_contradicts_itself_is_refused_by_name(change, named):
    with pytest.raises(DeclarationError, match=named.replace("(", r"\(").replace(")", r"\)")
                       .replace("[", r"\[").replace("]", r"\]")):
        ClaimDeclaration(**{**GOOD, **change})


@dataclass(frozen=True)
class _Settings:
    slug: ClassVar[str] = "01-layerwise-anisotropy"
    models: tuple = ()


def test_validate_reads_the_settings_and_the_declared_checks():
    from anisotropy.report.checks import load_checks

    ids = tuple(load_checks("01-layerwise-anisotropy"))
    ClaimDeclaration(**{**GOOD, "checks": ids}).validate(_Settings)
    with pytest.raises(DeclarationError, match=r"records \['a', 'b', 'c'\] that data/checks"):
        ClaimDeclaration(**GOOD).validate(_Settings)
    with pytest.raises(DeclarationError, match="references 'claim9' is not a block of "
                                               "references.yaml"):
        ClaimDeclaration(**{**GOOD, "checks": ids, "references": "claim9"}).validate(_Settings)
    with pytest.raises(DeclarationError, match="model_list 'texts' is not a parameter"):
        ClaimDeclaration(**{**GOOD, "checks": ids,
                            "model_list": "texts"}).validate(_Settings)
    other = dataclasses.make_dataclass("Other", [("models", tuple, ())], frozen=True)
    other.slug = "02-clusters-manifolds"
    with pytest.raises(DeclarationError, match="its Settings.slug is '02-clusters-manifolds'"):
        ClaimDeclaration(**{**GOOD, "checks": ids}).validate(other)


def test_the_catalog_finds_declared_claim_packages_only(tmp_path, monkeypatch):
    """A package with a ``claim`` module holding a DECLARATION is a claim; a package without
    a ``claim`` module is skipped; a ``claim`` module without a DECLARATION is refused."""
    from anisotropy.book import catalog

    root = tmp_path / "fakeclaims"
    for folder in (root, root / "one", root / "helpers", root / "two"):
        folder.mkdir()
        (folder / "__init__.py").write_text("")
    (root / "one" / "claim.py").write_text(
        "from anisotropy.claims.declaration import ClaimDeclaration\n"
        f"DECLARATION = ClaimDeclaration(**{GOOD!r})\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(catalog, "CLAIMS_PACKAGE", "fakeclaims")
    catalog._discover.cache_clear()
    try:
        assert catalog.claims() == {"01-layerwise-anisotropy": {
            "title": GOOD["title"], "short": "1. layerwise", "references": "claim1",
            "module": "fakeclaims.one.claim"}}
        (root / "two" / "claim.py").write_text("X = 1\n")
        catalog._discover.cache_clear()
        with pytest.raises(ValueError, match="fakeclaims.two.claim declares no DECLARATION"):
            catalog.claims()
    finally:
        catalog._discover.cache_clear()
