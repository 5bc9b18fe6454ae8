"""Chapter 6's page: its figures, tables and glued sentences, from the measurements of
:mod:`anisotropy.claims.later_work` (``{model: LaterMeasurement}``) and the papers' values
(``data/references.yaml``, claim6)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from anisotropy.book import plotting
from anisotropy.book.display import sig

__all__ = ["massive_figure", "sink_figure", "rogue_figure", "dimension_figure",
           "measures_figure", "sts_table", "explains_table", "layers_table"]


def _lines(ax, measured: dict, column: str, **style) -> None:
    for name, m in measured.items():
        table = m.per_layer
        ax.plot(table["relative_depth"], table[column], marker="o", ms=3,
                color=plotting.color(name), label=plotting.short_name(name), **style)


def massive_figure(measured: dict, threshold: float):
    """Largest |activation| over the median, per layer (log scale), with the paper's
    threshold; and the share of sentences whose largest activation is at position 0 or on
    a delimiter."""
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    _lines(axes[0], measured, "massive_ratio")
    axes[0].set_yscale("log")
    axes[0].axhline(threshold, color="black", ls="--", lw=0.8,
                    label=f"Sun et al.: {threshold:,.0f}× median")
    axes[0].set_ylabel("largest |activation| / median (geometric mean)")
    _lines(axes[1], measured, "peak_first_or_delimiter")
    axes[1].axhline(0.5, color="black", ls=":", lw=0.8, label="half of the sentences")
    axes[1].set_ylabel("share of sentences: peak at token 0 or a delimiter")
    axes[1].set_ylim(-0.02, 1.02)
    for ax in axes:
        ax.set_xlabel("relative depth (layer / L)")
    axes[0].legend(loc="best")
    axes[1].legend(loc="best")
    fig.tight_layout()
    return fig


def sink_figure(measured: dict, epsilon: float):
    """Per layer, the share of heads whose mean attention to the first token is at least
    ``epsilon``."""
    fig, ax = plt.subplots(figsize=(7, 4))
    for name, m in measured.items():
        if m.attention is None:
            continue
        means = np.asarray(m.attention, dtype=np.float64).mean(axis=0)  # layers x heads
        share = (means >= epsilon).mean(axis=1)
        depth = np.arange(1, share.size + 1) / share.size
        ax.plot(depth, share, marker="o", ms=3, color=plotting.color(name),
                label=plotting.short_name(name))
    ax.axhline(0.5, color="black", ls=":", lw=0.8, label="half of the heads")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("relative depth (layer / L)")
    ax.set_ylabel(f"share of heads with attention to token 0 ≥ {epsilon:g}")
    ax.legend(loc="best")
    fig.tight_layout()
    return fig


def rogue_figure(measured: dict, k: int):
    """Share of the mean cosine carried by the top-``k`` dimensions, and the mean cosine
    with and without the massive dimensions, per layer."""
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    _lines(axes[0], measured, "top_share")
    axes[0].axhline(0.5, color="black", ls=":", lw=0.8, label="half of the mean cosine")
    axes[0].set_ylabel(f"share of mean cosine in the top {k} dimensions")
    _lines(axes[1], measured, "mean_cosine")
    _lines(axes[1], measured, "mean_cosine_without_massive",
           ls="--", alpha=0.7)
    axes[1].set_ylabel("mean cosine of random tokens (dashed: massive dims at 0)")
    for ax in axes:
        ax.set_xlabel("relative depth (layer / L)")
    axes[0].legend(loc="best")
    fig.tight_layout()
    return fig


def dimension_figure(measured: dict):
    """TwoNN intrinsic dimension per layer, on the sentences (solid) and on their
    word-shuffled copies (dashed)."""
    fig, ax = plt.subplots(figsize=(7, 4))
    _lines(ax, measured, "twonn")
    for name, m in measured.items():
        ax.plot(m.per_layer["relative_depth"], m.per_layer["twonn_shuffled"], ls="--",
                color=plotting.color(name), alpha=0.7)
    ax.set_xlabel("relative depth (layer / L)")
    ax.set_ylabel("TwoNN intrinsic dimension")
    ax.legend(loc="best", title="solid: text; dashed: shuffled")
    fig.tight_layout()
    return fig


def measures_figure(measured: dict, bert_isoscore: list[float]):
    """Four anisotropy measures per layer: mean cosine, top-PC variance share, IsoScore
    (with BERT's published range shaded) and log10 I(W)."""
    panels = [("mean_cosine", "mean cosine of random tokens"),
              ("top_pc_share", "variance share of the first PC"),
              ("isoscore", "IsoScore (1 = isotropic)"),
              ("log10_iw", "log10 I(W) (0 = isotropic)")]
    fig, axes = plt.subplots(2, 2, figsize=(11, 7), sharex=True)
    for ax, (column, label) in zip(axes.flat, panels, strict=True):
        _lines(ax, measured, column)
        ax.set_ylabel(label)
    axes[1, 0].axhspan(min(bert_isoscore), max(bert_isoscore), color="#1f78b4", alpha=0.15,
                       label="BERT, IsoScore's stored results")
    axes[1, 1].set_yscale("symlog")
    for ax in axes[1]:
        ax.set_xlabel("relative depth (layer / L)")
    axes[0, 0].legend(loc="best")
    axes[1, 0].legend(loc="best")
    fig.tight_layout()
    return fig


def sts_table(measured: dict) -> pd.DataFrame:
    """Spearman x 100 per STS and word-similarity task and model: raw, standardised and
    after all-but-the-top."""
    rows = []
    for name, m in measured.items():
        frames = [pd.DataFrame(m.facts["sts"])]
        if m.facts.get("words"):
            frames.append(pd.DataFrame(m.facts["words"]))
        for _, row in pd.concat(frames).iterrows():
            rows.append({"model": plotting.short_name(name), "task": row["task"],
                         "raw": sig(row["raw"]), "standardised": sig(row["standardised"]),
                         "change": sig(row["change"]),
                         "all-but-the-top": sig(row["all-but-the-top"]),
                         "its change": sig(row["abtt change"]), "pairs": int(row["pairs"])})
    return pd.DataFrame(rows).set_index(["model", "task"])


def explains_table(measured: dict) -> pd.DataFrame:
    """Which later finding bears on which earlier result, with this run's numbers per
    model."""
    rows = []
    for name, m in measured.items():
        c = m.checks
        removal = c["massive-removal"][0]
        rows.append({
            "model": plotting.short_name(name),
            "claim 1: upper-half cosine (massive dims at 0)":
                f"{sig(removal['upper-half mean cosine'])} ({sig(removal['without them'])})",
            "claims 1-2: share of cosine in 3 dims": sig(c["rogue-dimensions"][0]),
            "claim 3: STS change from z-scoring": sig(c["standardise-helps"][0]),
            "word similarity change from z-scoring":
                sig(c["standardise-helps-words"][0])
                if c["standardise-helps-words"][0] is not None else "not run",
            "claims 4-5: IsoScore where cosine is lowest": sig(c["measures-disagree"][0]),
            "claim 2: ID peak over ends": sig(c["id-peak-interior"][0]),
        })
    return pd.DataFrame(rows).set_index("model")


def layers_table(measured: dict) -> pd.DataFrame:
    """Every per-layer number, one row per model and layer, human headers."""
    columns = {"massive_ratio": "largest/median", "peak_at_first": "peak at token 0",
               "peak_first_or_delimiter": "peak at token 0 or delimiter",
               "top_dim": "peak dimension", "peak_cv": "peak CV",
               "mean_cosine": "mean cosine", "top_share": "top-3 share of cosine",
               "mean_cosine_without_massive": "cosine, massive dims at 0",
               "top_pc_share": "first-PC share", "isoscore": "IsoScore",
               "log10_iw": "log10 I(W)", "twonn": "TwoNN", "twonn_shuffled": "TwoNN shuffled"}
    frames = []
    for name, m in measured.items():
        table = m.per_layer.set_index("layer")[list(columns)].rename(columns=columns)
        table.insert(0, "model", plotting.short_name(name))
        frames.append(table)
    return pd.concat(frames).reset_index().set_index(["model", "layer"])
