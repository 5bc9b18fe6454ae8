"""Claim 2, clusters and manifolds (Cai et al. 2021): its settings and forward passes.

The measurements are in :mod:`anisotropy.claims.clusters`; the page is
``notebooks/02-clusters-manifolds.ipynb``; the checks are declared in ``data/checks.yaml``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from anisotropy.claims.settings import TRANSFORMERS, ClaimSettings, param
from anisotropy.inputs.jobs import ALL_LAYERS, Extraction, jobs

SLUG = "02-clusters-manifolds"
MODEL_LIST = "models"
MODEL_LIST_CHECKS = None
# seconds in a cold full book (2-core Xeon, November 2026): the workflow starts costly
# claims first
COST = 435


@dataclass(frozen=True)
class Settings(ClaimSettings):
    """Claim 2's parameters."""

    slug: ClassVar[str] = SLUG

    models: tuple[str, ...] = param(TRANSFORMERS, "models to measure (`anisotropy models`)")
    window_words: int = param(200, "words per context window; every model stays under 512 "
                              "tokens", min=1)
    n_windows: int = param(200, "sampled windows of WikiText-2 and PTB, valid and test", min=1)
    layers_per_model: int | None = param(None, "None: every layer; an integer: that many "
                                         "evenly spaced layers", min=1)
    k_sample: int = param(2000, "points on which K (2-15) is chosen by silhouette, one "
                          "K-means initialisation", min=16)
    k_check_sample: int = param(10000, "K of the middle layer chosen again on this many "
                                "points (the authors: 20,000)", min=16)
    k_check_n_init: int = param(3, "K-means initialisations of that check (the authors: 10)",
                                min=1)
    lid_sample: int = param(5000, "points per layer for LID and IsoScore", min=3)
    lid_k: int = param(100, "neighbours of the LID estimate", min=2)
    include_sink: bool = param(False, "decoders: keep position-0 tokens")
    static_model: str = param("glove-6B-50d", "the static-embedding control")
    n_boot: int = param(1000, "bootstrap resamples behind every 95% interval", min=20)


def models(settings: Settings) -> list[str]:
    """The models the claim runs (the static control is loaded apart)."""
    return list(settings.models)


def windows(settings: Settings) -> tuple[str, object]:
    """The name and builder of the context windows claims 2 and 3 share."""
    from anisotropy.inputs import tasks

    s = settings
    return (f"lm-windows-{s.n_windows}x{s.window_words}",
            lambda: tasks.windows("lm", s.window_words, s.n_windows, s.seed))


def inputs(settings: Settings) -> list[Extraction]:
    """Every layer's token vectors of the context windows, per model."""
    name, build = windows(settings)
    return jobs(settings.models, name, "tokens", ALL_LAYERS, build)
