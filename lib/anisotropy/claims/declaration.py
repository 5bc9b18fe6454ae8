"""What a claim is, declared once: :class:`ClaimDeclaration`.

Every claim's ``claim.py`` holds one ``DECLARATION``: its slug, title, the papers it
reproduces, the block of ``data/references.yaml`` its numbers come from, the parameter a
workflow's model list replaces, its cost and the ids of the checks it records. The book
reads a claim's identity from here and nowhere else (:mod:`anisotropy.book.catalog`
finds the declarations); a declaration that contradicts itself, its settings or
``data/checks.yaml`` is refused with a message naming the value and the fix, before any
work (:meth:`ClaimDeclaration.validate`).

The idea is mteb's ``TaskMetadata``: one validated record per task.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from anisotropy.inputs.references import REFERENCES_FILE, references
from anisotropy.report.checks import load_checks

__all__ = ["ClaimDeclaration", "DeclarationError", "SLUG_PATTERN"]

#: A slug: two digits (the claim's place in the book), a dash, lowercase words with dashes.
SLUG_PATTERN = re.compile(r"^\d\d-[a-z0-9]+(?:-[a-z0-9]+)*$")


class DeclarationError(ValueError):
    """A claim's declaration contradicts itself, its settings or ``data/checks.yaml``."""


@dataclass(frozen=True)
class ClaimDeclaration:
    """One claim, declared once.

    Attributes
    ----------
    slug : str
        ``NN-words``: the notebook ``notebooks/SLUG.ipynb``, the results file and the key of
        the claim's checks in ``data/checks.yaml``; ``NN`` orders the book.
    title : str
        The page's title, as the table of contents and the ledger show it.
    short : str
        A short title for narrow places (the glance grid).
    references : str
        The claim's block of ``data/references.yaml`` (``claim1``).
    sources : tuple of str
        The papers the claim reproduces, as the page cites them.
    model_list : str
        The parameter of the claim's ``Settings`` that a workflow's ``models`` replaces.
    cost : int
        Seconds the claim took in a cold full book: the workflow starts costly claims
        first (say in a comment where and when it was measured).
    checks : tuple of str
        The ids of ``data/checks.yaml`` the claim records, each once (their kinds, graded
        or finding, are declared there).
    model_list_checks : tuple of str or None
        Prefixes of the check ids graded on the ``model_list`` models; None when every check
        is.
    """

    slug: str
    title: str
    short: str
    references: str
    sources: tuple[str, ...]
    model_list: str
    cost: int
    checks: tuple[str, ...]
    model_list_checks: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        problems = []
        if not SLUG_PATTERN.match(self.slug):
            problems.append(f"slug {self.slug!r} is not NN-words (two digits, a dash, "
                            "lowercase words joined by dashes), as '01-layerwise-anisotropy'")
        for name in ("title", "short", "references", "model_list"):
            if not isinstance(getattr(self, name), str) or not getattr(self, name).strip():
                problems.append(f"{name} {getattr(self, name)!r} must be a non-empty string")
        if not self.sources or any(not isinstance(s, str) or not s for s in self.sources):
            problems.append(f"sources {self.sources!r} must name the papers, e.g. "
                            "('Ethayarajh 2019',)")
        if not isinstance(self.cost, int) or isinstance(self.cost, bool) or self.cost <= 0:
            problems.append(f"cost {self.cost!r} must be a positive number of seconds")
        repeated = sorted({c for c in self.checks if self.checks.count(c) > 1})
        if not self.checks or repeated:
            problems.append(f"checks must list each id once; repeated: {repeated}"
                            if repeated else "checks is empty")
        if self.model_list_checks is not None:
            unmatched = [p for p in self.model_list_checks
                         if not any(c.startswith(p) for c in self.checks)]
            if unmatched:
                problems.append(f"model_list_checks {unmatched} match no check id")
        if problems:
            raise DeclarationError(f"Claim {self.slug!r}: " + "; ".join(problems) + ".")

    def validate(self, settings: type) -> None:
        """Check the declaration against the claim's ``Settings`` and ``data/checks.yaml``.

        Parameters
        ----------
        settings : type
            The claim's settings class (a :class:`~anisotropy.inputs.settings.ClaimSettings`).

        Raises
        ------
        DeclarationError
            When ``settings.slug`` is another slug, ``model_list`` is not one of its
            parameters, ``references`` is not a block of ``data/references.yaml``, or the
            checks differ from those ``data/checks.yaml`` declares for the slug (naming the
            ids on either side).
        """
        problems = []
        if getattr(settings, "slug", None) != self.slug:
            problems.append(f"its Settings.slug is {getattr(settings, 'slug', None)!r}")
        fields = {f.name for f in dataclasses.fields(settings)}
        if self.model_list not in fields:
            problems.append(f"model_list {self.model_list!r} is not a parameter of its "
                            f"Settings ({sorted(fields)})")
        if self.references not in references():
            problems.append(f"references {self.references!r} is not a block of "
                            f"{REFERENCES_FILE.name} (its blocks: {sorted(references())})")
        declared = set(load_checks(self.slug))
        if declared != set(self.checks):
            problems.append(f"data/checks.yaml declares {sorted(declared - set(self.checks))} "
                            f"that it does not record and it records "
                            f"{sorted(set(self.checks) - declared)} that data/checks.yaml "
                            "does not declare")
        if problems:
            raise DeclarationError(f"Claim {self.slug!r}: " + "; ".join(problems) + ".")

    def catalog_entry(self, module: str) -> dict[str, str]:
        """The claim as the book's catalog lists it.

        Parameters
        ----------
        module : str
            The dotted name of the module holding this declaration.

        Returns
        -------
        dict of str to str
            ``title``, ``short``, ``references`` and ``module``.
        """
        return {"title": self.title, "short": self.short, "references": self.references,
                "module": module}
