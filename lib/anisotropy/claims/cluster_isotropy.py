"""Claim 4, cluster-based isotropy (Rajaee & Pilehvar 2021): its settings and forward passes.

The measurements are in :mod:`anisotropy.claims.cluster_methods` and
:mod:`anisotropy.claims.finetuning`; the page is ``notebooks/04-cluster-isotropy.ipynb``; the
checks are declared in ``data/checks.yaml``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from anisotropy.claims.frequency_bias import STS_TASKS, sts_corpus
from anisotropy.claims.settings import TRANSFORMERS, ClaimSettings, param
from anisotropy.inputs.jobs import FIRST_LAST, LAST, Extraction, jobs

SLUG = "04-cluster-isotropy"
MODEL_LIST = "models"
MODEL_LIST_CHECKS = None
# seconds in a cold full book (2-core Xeon, November 2026): the workflow starts costly
# claims first
COST = 943


@dataclass(frozen=True)
class Settings(ClaimSettings):
    """Claim 4's parameters."""

    slug: ClassVar[str] = SLUG

    models: tuple[str, ...] = param(TRANSFORMERS, "models to measure (`anisotropy models`)")
    tasks: tuple[str, ...] = param(STS_TASKS, "STS tasks", choices="sts_tasks")
    n_clusters: int = param(27, "K-means clusters (the authors' code)", min=1)
    n_components: int = param(12, "dominant directions removed per cluster", min=0)
    fit_max_tokens: int = param(10000, "token vectors a transform is fitted on (seeded "
                                "sample)", min=1)
    iso_max_tokens: int = param(20000, "token vectors I(W) and IsoScore are computed on", min=1)
    sweep_task: str = param("STS-B", "the task of the K and D sweep", choices="sts_tasks")
    sweep_clusters: tuple[int, ...] = param([1, 5, 10, 27, 50], "cluster counts swept", min=1)
    sweep_components: tuple[int, ...] = param([0, 1, 3, 5, 12, 20], "directions removed, "
                                              "swept", min=0)
    sst2_train_items: int | None = param(3000, "seeded subset of the SST-2 training phrases "
                                         "of 3+ words; None: all", min=1)
    finetune_tasks: tuple[str, ...] = param(["rte", "wic"], "the seed's fine-tuning analysis; "
                                            "[] skips it", choices=["rte", "wic"], min_items=0)
    finetune_model: str = param("sentence-transformers/all-MiniLM-L6-v2", "the model "
                                "fine-tuned (small enough to train on a CPU)")
    finetune_epochs: int = param(2, "epochs (the seed: 2)", min=1)
    finetune_seeds: int = param(5, "seeds, each run plain and with the method", min=2)
    finetune_train_items: int | None = param(None, "None: the whole training set; an "
                                             "integer: a seeded subset", min=2)
    finetune_dev_items: int | None = param(None, "None: the whole dev set; an integer: a "
                                           "seeded subset", min=2)
    finetune_batch_size: int = param(32, "batch size (the slides give none)", min=2)
    finetune_clusters: int = param(3, "K-means clusters per batch", min=1)
    finetune_components: int = param(2, "dominant directions removed per cluster", min=0)
    finetune_learning_rate: float = param(2e-5, "learning rate", min=1e-8)
    finetune_max_length: int = param(128, "tokens per input pair", min=8)
    max_pairs: int | None = param(None, "None: every pair of a task; an integer: a seeded "
                                  "subset", min=1)
    include_sink: bool = param(False, "decoders: keep position-0 tokens")
    n_boot: int = param(1000, "bootstrap resamples behind every 95% interval", min=20)


def models(settings: Settings) -> list[str]:
    """The models the claim runs (the fine-tuned model is loaded apart)."""
    return list(settings.models)


def inputs(settings: Settings) -> list[Extraction]:
    """The STS sentences (layers 0, 1 and last) and the SST-2 probe's phrases (last layer),
    per model."""
    from anisotropy.claims.cluster_methods import sst2_probe_data

    s = settings
    sts = sts_corpus(s)
    return (jobs(s.models, sts[0], "tokens", FIRST_LAST, sts[1])
            + jobs(s.models, f"sst2-probe-{s.sst2_train_items or 'all'}", "tokens", LAST,
                   lambda: sst2_probe_data(s.sst2_train_items, seed=s.seed)["sentences"]))
