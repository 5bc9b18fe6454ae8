"""Claim 3, frequency bias and calibration (Li et al. 2020; Su et al. 2021): its settings
and forward passes.

The measurements are in :mod:`anisotropy.claims.frequency`, :mod:`anisotropy.claims.calibration`
and :mod:`anisotropy.claims.sts`; the page is ``notebooks/03-frequency-bias.ipynb``; the
checks are declared in ``data/checks.yaml``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from anisotropy.claims import clusters_manifolds
from anisotropy.claims.settings import TRANSFORMERS, ClaimSettings, param
from anisotropy.inputs.jobs import ALL_LAYERS, FIRST_LAST, Extraction, jobs

SLUG = "03-frequency-bias"
MODEL_LIST = "models"
MODEL_LIST_CHECKS = None
# seconds in a cold full book (2-core Xeon, November 2026): the workflow starts costly
# claims first
COST = 639

STS_TASKS = ("STS12", "STS13", "STS14", "STS15", "STS16", "STS-B", "SICK-R", "STS-B-dev")


@dataclass(frozen=True)
class Settings(ClaimSettings):
    """Claim 3's parameters."""

    slug: ClassVar[str] = SLUG

    models: tuple[str, ...] = param(TRANSFORMERS, "models to measure (`anisotropy models`)")
    static_model: str = param("glove-6B-50d", "the static-embedding control")
    window_words: int = param(200, "the windows of claim 2; equal values share its cached "
                              "vectors", min=1)
    n_windows: int = param(200, "sampled windows of WikiText-2 and PTB", min=1)
    knn_k: int = param(5, "neighbours of the k-NN distance (Table 1 gives 3, 5 and 7)", min=1)
    max_types: int = param(10000, "most frequent types per space for Part A (the paper's "
                           "ranks go to 10K)", min=1)
    type_occurrences: int = param(5, "occurrences averaged into each contextual type", min=1)
    tasks: tuple[str, ...] = param(STS_TASKS, "STS tasks", choices="sts_tasks")
    max_pairs: int | None = param(None, "None: every pair; an integer: a seeded subset per "
                                  "task", min=1)
    n_nli_sentences: int = param(4000, "SNLI sentences of claim 1, the NLI fitting set", min=1)
    calibration_pooling: str = param("first-last-avg", "pooling that whitening and the flow "
                                     "calibrate", choices=["last-avg", "first-last-avg",
                                                           "embeddings-last-avg"])
    flow_steps: int = param(400, "training steps of each flow", min=1)
    n_flow_seeds: int = param(3, "flow fits per task; their spread gives the interval", min=2)
    include_sink: bool = param(False, "decoders: keep position-0 tokens in sentence means")
    n_boot: int = param(1000, "bootstrap resamples behind every 95% interval", min=20)


def models(settings: Settings) -> list[str]:
    """The models the claim runs (the static control is loaded apart)."""
    return list(settings.models)


def sts_corpus(settings) -> tuple[str, object]:
    """The name and builder of the STS sentences claims 3 and 4 share."""
    from anisotropy.inputs import tasks

    s = settings
    return (f"sts-{len(s.tasks)}tasks-{s.max_pairs or 'all'}",
            lambda: tasks.sts_sentences(list(s.tasks), s.max_pairs, s.seed))


def inputs(settings: Settings) -> list[Extraction]:
    """Claim 2's windows (every layer), the STS sentences (layers 0, 1 and last) and the
    SNLI fitting sentences (every layer), per model."""
    from anisotropy.inputs import tasks

    s = settings
    windows, sts = clusters_manifolds.windows(s), sts_corpus(s)
    return (jobs(s.models, windows[0], "tokens", ALL_LAYERS, windows[1])
            + jobs(s.models, sts[0], "tokens", FIRST_LAST, sts[1])
            + jobs(s.models, f"snli-{s.n_nli_sentences}", "tokens", ALL_LAYERS,
                   lambda: tasks.corpus("snli", s.n_nli_sentences, s.seed)))
