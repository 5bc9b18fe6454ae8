"""Claim 1, layerwise anisotropy (Ethayarajh 2019): its settings and forward passes.

The measurements are in :mod:`anisotropy.claims.layerwise`; the page is
``notebooks/01-layerwise-anisotropy.ipynb``; the checks are declared in ``data/checks.yaml``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from anisotropy.claims.settings import TRANSFORMERS, ClaimSettings, param
from anisotropy.inputs.jobs import ALL_LAYERS, Extraction, jobs

SLUG = "01-layerwise-anisotropy"
MODEL_LIST = "models"  # the parameter a workflow's `models` replaces
MODEL_LIST_CHECKS = None  # every check is graded for every model of that list
# seconds in a cold full book (2-core Xeon, November 2026): the workflow starts costly
# claims first
COST = 407


@dataclass(frozen=True)
class Settings(ClaimSettings):
    """Claim 1's parameters."""

    slug: ClassVar[str] = SLUG

    models: tuple[str, ...] = param(TRANSFORMERS, "models to measure (`anisotropy models`)")
    sentence_source: str = param("snli", "sentence corpus: snli (the seed) or stsbenchmark "
                                 "(Ethayarajh's code)", choices=["snli", "stsbenchmark"])
    n_sentences: int = param(4000, "sentences sampled from the de-duplicated corpus", min=1)
    min_contexts: int = param(5, "a word must occur in this many distinct sentences", min=1)
    max_occurrences: int = param(1000, "occurrences kept per word (seeded subsample)", min=1)
    n_baseline_pairs: int = param(1000, "random word pairs per layer for the baseline", min=1)
    include_sink: bool = param(False, "decoders: keep words at position 0 (the attention sink)")
    n_boot: int = param(1000, "bootstrap resamples behind every 95% interval", min=20)


def models(settings: Settings) -> list[str]:
    """The models the claim runs."""
    return list(settings.models)


def inputs(settings: Settings) -> list[Extraction]:
    """Every layer's token vectors of the sampled sentences, per model."""
    from anisotropy.inputs import tasks

    s = settings
    return jobs(s.models, f"{s.sentence_source}-{s.n_sentences}", "tokens", ALL_LAYERS,
                lambda: tasks.corpus(s.sentence_source, s.n_sentences, s.seed))
