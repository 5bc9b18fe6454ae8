"""Chapter 6's page: its figures, tables and glued sentences, from the measurements of
:mod:`anisotropy.claims.later_work.claim` (``{model: LaterMeasurement}``) and the papers' values
(``data/references.yaml``, claim6)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from anisotropy.claims.later_work.ids import (
    ID_PEAK_INTERIOR,
    MASSIVE_REMOVAL,
    MEASURES_DISAGREE,
    ROGUE_DIMENSIONS,
    STANDARDISE_HELPS,
    STANDARDISE_HELPS_WORDS,
)
from anisotropy.claims.later_work.measure import ABTT_COLUMN
from anisotropy.report import plotting
from anisotropy.report.display import sig

__all__ = ["massive_figure", "sink_figure", "rogue_figure", "dimension_figure",
           "measures_figure", "sts_table", "explains_table", "layers_table"]


def _lines(ax, measured: dict, column: str, **style) -> None:
    for name, m in measured.items():
        table = m.per_layer
        ax.plot(table["relative_depth"], table[column], marker="o", ms=3,
                color=plotting.color(name), label=plotting.short_name(name), **style)


def massive_figure(measured: dict, threshold: float, magnitude: float):
    """Per layer: the largest |activation| over the median (geometric mean over sentences,
    log scale) with the paper's ratio; the share of sentences with a massive activation
    (both of Sun et al.'s conditions); and the share of those at position 0 or on a
    delimiter.

    Parameters
    ----------
    measured : dict of str to LaterMeasurement
        The measurements per model
        (:func:`anisotropy.claims.later_work.claim.measure`).
    threshold : float
        Sun et al.'s ratio to the median, drawn in the first panel and named in the
        second's label.
    magnitude : float
        The magnitude a massive activation exceeds, named in the second panel's label.

    Returns
    -------
    matplotlib.figure.Figure
        Three panels against relative depth, one line per model.
    """
    fig, axes = plt.subplots(1, 3, figsize=(13, 4))
    _lines(axes[0], measured, "massive_ratio")
    axes[0].set_yscale("log")
    axes[0].axhline(threshold, color="black", ls="--", lw=0.8,
                    label=f"Sun et al.: {threshold:,.0f}× median")
    axes[0].set_ylabel("largest |activation| / median (geometric mean)")
    _lines(axes[1], measured, "massive_share")
    axes[1].axhline(0.5, color="black", ls=":", lw=0.8, label="half of the sentences")
    axes[1].set_ylabel(f"share of sentences with one > {magnitude:g}, ≥ {threshold:,.0f}×")
    _lines(axes[2], measured, "massive_at_sink")
    axes[2].axhline(0.5, color="black", ls=":", lw=0.8, label="half of them")
    axes[2].set_ylabel("of those: at token 0 or a delimiter")
    for ax in axes:
        ax.set_xlabel("relative depth (layer / L)")
        ax.legend(loc="best", fontsize="small")
    for ax in axes[1:]:
        ax.set_ylim(-0.02, 1.02)
    fig.tight_layout()
    return fig


def sink_figure(measured: dict, epsilon: float, tokens: int):
    """Per layer, the share of heads whose attention to the first token exceeds
    ``epsilon``, averaged over the ``tokens``-token windows (Gu et al.'s protocol).

    Parameters
    ----------
    measured : dict of str to LaterMeasurement
        The measurements per model
        (:func:`anisotropy.claims.later_work.claim.measure`).
        A model without attention weights is left out.
    epsilon : float
        A head is a sink head in a window when its attention to the first token exceeds
        this.
    tokens : int
        The windows' length T, for the axis label.

    Returns
    -------
    matplotlib.figure.Figure
        One line per model, against relative depth (layers 1..L).
    """
    fig, ax = plt.subplots(figsize=(7, 4))
    for name, m in measured.items():
        if m.attention is None:
            continue
        alpha = np.asarray(m.attention, dtype=np.float64)  # windows x layers x heads
        share = (alpha > epsilon).mean(axis=(0, 2))
        depth = np.arange(1, share.size + 1) / share.size
        ax.plot(depth, share, marker="o", ms=3, color=plotting.color(name),
                label=plotting.short_name(name))
    ax.axhline(0.5, color="black", ls=":", lw=0.8, label="half of the heads")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("relative depth (layer / L)")
    ax.set_ylabel(f"share of heads with α₁ > {epsilon:g} (T = {tokens})")
    ax.legend(loc="best")
    fig.tight_layout()
    return fig


def rogue_figure(measured: dict, k: int):
    """Share of the mean cosine carried by the top-``k`` dimensions (filled markers: the
    layers graded, whose mean cosine is clearly positive), and the mean cosine with and
    without the massive dimensions, per layer.

    Parameters
    ----------
    measured : dict of str to LaterMeasurement
        The measurements per model
        (:func:`anisotropy.claims.later_work.claim.measure`).
    k : int
        The number of dimensions the shares were measured on (``rogue_k``), for the axis
        label.

    Returns
    -------
    matplotlib.figure.Figure
        Two panels against relative depth, one line per model.
    """
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    _lines(axes[0], measured, "top_share", alpha=0.5)
    for name, m in measured.items():
        graded = m.per_layer[m.per_layer["graded"]]
        axes[0].plot(graded["relative_depth"], graded["top_share"], ls="none", marker="o",
                     ms=5, color=plotting.color(name))
    axes[0].axhline(0.5, color="black", ls=":", lw=0.8, label="half of the mean cosine")
    axes[0].set_ylabel(f"share of mean cosine in the top {k} dimensions")
    axes[0].set_yscale("symlog", linthresh=1)
    _lines(axes[1], measured, "mean_cosine")
    _lines(axes[1], measured, "mean_cosine_without_massive",
           ls="--", alpha=0.7)
    axes[1].set_ylabel("mean cosine of random tokens (dashed: massive dims at 0)")
    for ax in axes:
        ax.set_xlabel("relative depth (layer / L)")
    axes[0].legend(loc="best")
    fig.tight_layout()
    return fig


def dimension_figure(measured: dict, central: tuple[float, float]):
    """Intrinsic dimension per layer: TwoNN (Facco et al.'s fit) on the sentences (solid)
    and on their word-shuffled copies (dashed); and GRIDE at each layer's plateau scale
    (Cheng et al.'s estimator) on the sentences. Layer 0 has no GRIDE point. The central
    band of relative depth whose peak is graded is shaded.

    Parameters
    ----------
    measured : dict of str to LaterMeasurement
        The measurements per model
        (:func:`anisotropy.claims.later_work.claim.measure`).
    central : tuple of float
        The central band of relative depth
        (:data:`anisotropy.claims.later_work.claim.CENTRAL_DEPTH`).

    Returns
    -------
    matplotlib.figure.Figure
        Two panels against relative depth, sharing the y axis.
    """
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    _lines(axes[0], measured, "twonn")
    for name, m in measured.items():
        axes[0].plot(m.per_layer["relative_depth"], m.per_layer["twonn_shuffled"], ls="--",
                     color=plotting.color(name), alpha=0.7)
    axes[0].set_title("TwoNN (Facco et al.)")
    axes[0].set_ylabel("intrinsic dimension")
    axes[0].legend(loc="best", title="solid: text; dashed: shuffled")
    _lines(axes[1], measured, "gride")
    axes[1].set_title("GRIDE at each layer's plateau scale (Cheng et al.'s estimator)")
    for ax in axes:
        ax.axvspan(*central, color="0.9", zorder=0)
        ax.set_xlabel("relative depth (layer / L)")
    fig.tight_layout()
    return fig


def measures_figure(measured: dict, bert_isoscore: list[float]):
    """Four anisotropy measures per layer: mean cosine, top-PC variance share, IsoScore
    (with BERT's published range shaded) and log10 I(W).

    Parameters
    ----------
    measured : dict of str to LaterMeasurement
        The measurements per model
        (:func:`anisotropy.claims.later_work.claim.measure`).
    bert_isoscore : list of float
        BERT's published IsoScore values; the range from their minimum to their maximum
        is shaded.

    Returns
    -------
    matplotlib.figure.Figure
        Two by two panels against relative depth, one line per model.
    """
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
    after all-but-the-top.

    Parameters
    ----------
    measured : dict of str to LaterMeasurement
        The measurements per model
        (:func:`anisotropy.claims.later_work.claim.measure`).

    Returns
    -------
    pandas.DataFrame
        Indexed ``(model, task)``: ``raw``, ``standardised``, ``change``,
        ``all-but-the-top`` and ``its change`` (text, 3 significant figures), ``pairs`` and
        ``of the task`` (the task's pairs for a word task, ``pairs`` for an STS task).
    """
    rows = []
    for name, m in measured.items():
        frames = [pd.DataFrame(m.facts["sts"])]
        if m.facts.get("words"):
            frames.append(pd.DataFrame(m.facts["words"]))
        for _, row in pd.concat(frames).iterrows():
            rows.append({"model": plotting.short_name(name), "task": row["task"],
                         "raw": sig(row["raw"]), "standardised": sig(row["standardised"]),
                         "change": sig(row["change"]),
                         ABTT_COLUMN: sig(row[ABTT_COLUMN]),
                         "its change": sig(row["abtt change"]), "pairs": int(row["pairs"]),
                         "of the task": int(row["pairs of the task"])
                         if pd.notna(row.get("pairs of the task")) else int(row["pairs"])})
    return pd.DataFrame(rows).set_index(["model", "task"])


def explains_table(measured: dict) -> pd.DataFrame:
    """Which later finding bears on which earlier result, with this run's numbers per
    model.

    Parameters
    ----------
    measured : dict of str to LaterMeasurement
        The measurements per model
        (:func:`anisotropy.claims.later_work.claim.measure`).

    Returns
    -------
    pandas.DataFrame
        One row per model (its short name, the index), one text column per earlier result.
    """
    rows = []
    for name, m in measured.items():
        c = m.checks
        removal = c[MASSIVE_REMOVAL].value
        without = (f"({sig(removal['without them'])})"
                   if isinstance(removal["dimensions set to 0"], list) else "(none massive)")
        rows.append({
            "model": plotting.short_name(name),
            "claim 1: upper-half cosine (massive dims at 0)":
                f"{sig(removal['upper-half mean cosine'])} {without}",
            "claims 1-2: share of cosine in 3 dims (median layer)":
                sig(c[ROGUE_DIMENSIONS].value) if c[ROGUE_DIMENSIONS].value is not None
                else "no layer graded",
            "claim 3: STS change from z-scoring": sig(c[STANDARDISE_HELPS].value),
            "word similarity change from z-scoring":
                sig(c[STANDARDISE_HELPS_WORDS].value)
                if c[STANDARDISE_HELPS_WORDS].value is not None else "not run",
            "claims 4-5: IsoScore where cosine is lowest": sig(c[MEASURES_DISAGREE].value),
            "claim 2: ID peak over ends": sig(c[ID_PEAK_INTERIOR].value),
        })
    return pd.DataFrame(rows).set_index("model")


def layers_table(measured: dict) -> pd.DataFrame:
    """Every per-layer number, one row per model and layer, human headers.

    Parameters
    ----------
    measured : dict of str to LaterMeasurement
        The measurements per model
        (:func:`anisotropy.claims.later_work.claim.measure`).

    Returns
    -------
    pandas.DataFrame
        Indexed ``(model, layer)``, the model by its short name.
    """
    columns = {"massive_ratio": "largest/median", "massive_share": "share massive",
               "massive_at_sink": "massive at token 0 or delimiter",
               "peak_at_first": "peak at token 0",
               "peak_first_or_delimiter": "peak at token 0 or delimiter",
               "top_dim": "peak dimension", "peak_cv": "peak CV",
               "mean_cosine": "mean cosine", "top_share": "top-3 share of cosine",
               "graded": "share graded",
               "mean_cosine_without_massive": "cosine, massive dims at 0",
               "top_pc_share": "first-PC share", "isoscore": "IsoScore",
               "log10_iw": "log10 I(W)", "twonn": "TwoNN", "twonn_shuffled": "TwoNN shuffled",
               "gride": "GRIDE", "gride_scale": "GRIDE scale (n2)"}
    frames = []
    for name, m in measured.items():
        table = m.per_layer.set_index("layer")[list(columns)].rename(columns=columns)
        table.insert(0, "model", plotting.short_name(name))
        frames.append(table)
    return pd.concat(frames).reset_index().set_index(["model", "layer"])
