"""Claim 5, IsoScore vs silhouette under linear classification (Mickus et al. 2024): its
settings and forward passes.

The measurements are in :mod:`anisotropy.claims.classifier`; the page is
``notebooks/05-isotropy-vs-clusters.ipynb``; the checks are declared in ``data/checks.yaml``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from anisotropy.claims.settings import ClaimSettings, param
from anisotropy.inputs.jobs import LAST, Extraction, jobs

SLUG = "05-isotropy-vs-clusters"
# Setups (i)-(ii) run the paper's one encoder (`model`); a workflow's `models` replace the
# appendix encoders, and a model left out of that list is "not run" for the appendix checks.
MODEL_LIST = "glue_models"
MODEL_LIST_CHECKS = ("appendix",)
# seconds in a cold full book (2-core Xeon, November 2026): the workflow starts costly
# claims first
COST = 465
SETUP_TASKS = ("polarity", "snli")


@dataclass(frozen=True)
class Settings(ClaimSettings):
    """Claim 5's parameters."""

    slug: ClassVar[str] = SLUG

    model: str = param("sentence-transformers/all-MiniLM-L6-v2", "the paper's exact encoder "
                       "for setups (i) and (ii)")
    n_items: int | None = param(None, "None: every polarity sentence and SNLI validation pair",
                                min=1)
    n_updates: int = param(1000, "classifier updates", min=1)
    n_seeds: int = param(5, "classifier initialisations (t-interval over them)", min=2)
    metric_every: int = param(20, "record metrics every k updates (the paper: 1)", min=1)
    glue_tasks: tuple[str, ...] = param(["cola", "sst2", "rte", "snli"], "the appendix's "
                                        "tasks", choices="classification_tasks")
    glue_models: tuple[str, ...] = param(["sentence-transformers/all-MiniLM-L6-v2",
                                          "sentence-transformers/all-mpnet-base-v2"],
                                         "the appendix's encoders")
    glue_updates: int = param(250, "classifier updates per appendix setup", min=1)
    glue_seeds: int = param(2, "classifier initialisations per appendix setup", min=2)
    glue_max_items: int | None = param(2000, "seeded subset of a larger training set; None: "
                                       "every item", min=1)
    glue_metric_sample: int = param(10000, "metrics on a fresh random sample when a set is "
                                    "larger", min=2)
    glue_metric_every: int = param(10, "record appendix metrics every k updates", min=1)


def models(settings: Settings) -> list[str]:
    """The setups' encoder, then the appendix encoders."""
    return list(dict.fromkeys([settings.model, *settings.glue_models]))


def inputs(settings: Settings) -> list[Extraction]:
    """Pooled sentence vectors of the setups' tasks (the paper's encoder) and of the
    appendix tasks (each appendix encoder)."""
    from anisotropy.inputs import tasks

    s = settings
    out = []
    for task in SETUP_TASKS:
        out += jobs([s.model], f"{task}-{s.n_items or 'all'}", "pooled", LAST,
                    lambda task=task: tasks.classification_task(task, s.n_items,
                                                                s.seed)["sentences"])
    for task in s.glue_tasks:
        out += jobs(s.glue_models, f"{task}-{s.glue_max_items or 'all'}", "pooled", LAST,
                    lambda task=task: tasks.classification_task(task, s.glue_max_items,
                                                                s.seed)["sentences"])
    return out
