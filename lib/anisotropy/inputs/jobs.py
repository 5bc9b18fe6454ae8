"""Forward-pass jobs: what a claim declares it will encode (:class:`Extraction`).

A claim's ``inputs(settings)`` lists its forward passes as :class:`Extraction` records: one
model, one sentence set, one kind (per-layer token vectors or pooled sentence vectors) and
one layer set. The workflow runs one job per distinct record (claims that share a sentence
set share the job), with the very encode call the claim then makes, so the claim finds
its vectors in the content-addressed cache.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

__all__ = ["Extraction", "ALL_LAYERS", "FIRST_LAST", "LAST", "jobs"]

# Layer sets, symbolic because the last layer depends on the model.
ALL_LAYERS = "all"
FIRST_LAST = "0-1-last"  # the embedding output, the first block and the last layer
LAST = "last"


@dataclass(frozen=True)
class Extraction:
    """One forward-pass job: ``model`` over the sentences ``corpus`` names.

    Attributes
    ----------
    model : str
        The model's name (:func:`anisotropy.inputs.models.resolve`).
    corpus : str
        The sentence set's name, part of the job's id.
    kind : str
        ``"tokens"`` (per-layer token vectors of the layer set ``layers``), ``"pooled"``
        (mean-pooled, unit-length sentence vectors, as claim 5 uses) or ``"attention"``
        (every layer's and head's attention to the first token, chapter 6).
    layers : str
        The layer set of a ``"tokens"`` job (:data:`ALL_LAYERS`, :data:`FIRST_LAST` or
        :data:`LAST`); an ``"attention"`` job's text length; a ``"pooled"`` job's only names
        the job (:func:`jobs`).
    sentences : tuple of str
        The sentence list (left out of comparisons and of the repr).
    digest : str
        Identifies the sentences: the sha256 of their JSON list (:func:`jobs`); default
        empty.
    """

    model: str
    corpus: str
    kind: str
    layers: str
    sentences: tuple[str, ...] = field(compare=False, repr=False)
    digest: str = ""

    @property
    def job_id(self) -> str:
        """A file-name-safe id, unique per (model, sentence set, kind, layers)."""
        model = re.sub(r"[^A-Za-z0-9._-]+", "--", self.model)
        return f"{model}.{self.corpus}.{self.kind}-{self.layers}.{self.digest[:10]}"


def _digest(sentences: list[str]) -> str:
    return hashlib.sha256(json.dumps(sentences).encode("utf-8")).hexdigest()


def jobs(models: Iterable[str], corpus: str, kind: str, layers: str,
         sentences: Callable[[], list[str]]) -> list[Extraction]:
    """One :class:`Extraction` per model over the same sentences (built once).

    Parameters
    ----------
    models : iterable of str
        Model names (:func:`anisotropy.inputs.models.resolve`).
    corpus : str
        The sentence set's name, part of each job's id.
    kind : str
        ``"tokens"``, ``"pooled"`` or ``"attention"`` (:class:`Extraction`).
    layers : str
        The layer set of a ``"tokens"`` job, :data:`ALL_LAYERS`, :data:`FIRST_LAST` or
        :data:`LAST`; an ``"attention"`` job names the text length instead (``"T64"``:
        every text cut to 64 tokens; :data:`ALL_LAYERS`: each at its own length). A
        ``"pooled"`` job's entry holds every layer; its ``layers`` (claim 5 gives
        :data:`LAST`) only names the job.
    sentences : callable
        Called once, with no argument, for the sentence list.

    Returns
    -------
    list of Extraction
        One job per model, in the order of ``models``, sharing the sentences and their
        digest (the sha256 of their JSON list).
    """
    built = tuple(sentences())
    digest = _digest(list(built))
    return [Extraction(model, corpus, kind, layers, built, digest) for model in models]
