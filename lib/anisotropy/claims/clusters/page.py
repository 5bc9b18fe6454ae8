"""Claim 2's page: its tables, glued sentences and figures, from the measurements of
:mod:`anisotropy.claims.clusters.claim` and the paper's values (claim2)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from anisotropy.claims.clusters import manifolds
from anisotropy.claims.clusters.claim import CAI_LAYER_2
from anisotropy.geometry.sampling import sample_indices
from anisotropy.geometry.streams import stream_seed
from anisotropy.report import plotting
from anisotropy.report.results import ranges_text, reference

__all__ = ["window_tokens_text", "facts_table", "per_layer_metric", "similarity_summary",
           "similarity_figure", "pca_figure", "k_texts", "shape_texts", "manifold_texts",
           "manifold_figure", "interactive_roll", "lid_table", "lid_texts", "lid_figure",
           "layers_table"]


def _short(name: str) -> str:
    return plotting.short_name(name)


def window_tokens_text(measured: dict) -> str:
    """The fewest and most tokens of a window, over models.

    Parameters
    ----------
    measured : dict of str to ModelClusters
        Each model's measurements, keyed by model name
        (:func:`anisotropy.claims.clusters.claim.measure`).

    Returns
    -------
    str
        ``"fewest–most"``, over every model's windows, special tokens counted.
    """
    counts = [np.bincount(m.tokens.sentence_index) for m in measured.values()]
    return f"{min(c.min() for c in counts)}–{max(c.max() for c in counts)}"


def facts_table(measured: dict) -> pd.DataFrame:
    """Tokens, types and layers analysed per model.

    Parameters
    ----------
    measured : dict of str to ModelClusters
        Each model's measurements, keyed by model name
        (:func:`anisotropy.claims.clusters.claim.measure`).

    Returns
    -------
    pandas.DataFrame
        One row per model (its short name), one column per fact: ``tokens``, ``types``,
        ``windows``, ``layers analysed`` and ``decoder``.
    """
    return pd.DataFrame({_short(n): m.facts for n, m in measured.items()}).T


def per_layer_metric(measured: dict) -> dict:
    """Every model's per-layer table without its lists of top coordinates (results file).

    Parameters
    ----------
    measured : dict of str to ModelClusters
        Each model's measurements, keyed by model name
        (:func:`anisotropy.claims.clusters.claim.measure`).

    Returns
    -------
    dict
        ``{short name: {column: list of values}}``, without the columns whose name holds
        ``"dims"``.
    """
    return {_short(n): m.per_layer.drop(columns=[c for c in m.per_layer.columns if "dims" in c])
            .to_dict(orient="list") for n, m in measured.items()}


def similarity_summary(measured: dict) -> pd.DataFrame:
    """Per model, over layers >= 1: raw and centred S_inter, the per-cluster gap, K.

    Parameters
    ----------
    measured : dict of str to ModelClusters
        Each model's measurements, keyed by model name
        (:func:`anisotropy.claims.clusters.claim.measure`).

    Returns
    -------
    pandas.DataFrame
        One row per model (its short name): the minimum and mean raw S_inter, the mean
        |S_inter| after global and after per-cluster centring, the minimum per-cluster
        S_intra - S_inter (all over layers >= 1), then K per layer and the layers with K > 1
        (every layer).
    """
    rows = []
    for name, m in measured.items():
        table = m.per_layer
        contextual = table[table["layer"] >= 1]
        rows.append({"model": _short(name),
                     "min raw S_inter": contextual["S_inter raw"].min(),
                     "mean raw S_inter": contextual["S_inter raw"].mean(),
                     "mean |S_inter| globally centred":
                         contextual["S_inter centred"].abs().mean(),
                     "mean |S_inter| per-cluster centred":
                         contextual["S_inter per-cluster"].abs().mean(),
                     "min per-cluster S_intra − S_inter": (
                         contextual["S_intra per-cluster"]
                         - contextual["S_inter per-cluster"]).min(),
                     "K per layer": ", ".join(str(k) for k in table["K"]),
                     "layers with K > 1": ranges_text(table.loc[table["K"] > 1, "layer"])})
    return pd.DataFrame(rows).set_index("model")


def similarity_figure(measured: dict):
    """S_inter and S_intra, raw and after global and per-cluster centring, per depth.

    Parameters
    ----------
    measured : dict of str to ModelClusters
        Each model's measurements, keyed by model name
        (:func:`anisotropy.claims.clusters.claim.measure`).

    Returns
    -------
    matplotlib.figure.Figure
        One panel per model against relative depth; raw S_inter and per-cluster S_inter and
        S_intra with the 2.5-97.5% quantiles of their bootstrap draws as bands.
    """
    fig, axes = plt.subplots(1, len(measured), figsize=(4.6 * len(measured), 3.8),
                             squeeze=False, sharey=True)
    lines = [("S_inter raw", "#d95f02", "-", "o", "S_inter raw"),
             ("S_intra raw", "#7570b3", "-", "o", "S_intra raw"),
             ("S_inter centred", "#1b9e77", ":", "^", "S_inter globally centred"),
             ("S_inter per-cluster", "#d95f02", "--", "s", "S_inter per-cluster centred"),
             ("S_intra per-cluster", "#7570b3", "--", "s", "S_intra per-cluster centred")]
    for ax, (name, m) in zip(axes[0], measured.items(), strict=True):
        table = m.per_layer
        depth = table["relative_depth"]
        for column, color, style, marker, label in lines:
            ax.plot(depth, table[column], color=color, ls=style, marker=marker, ms=3,
                    label=label)
        for column, color in (("S_inter raw", "#d95f02"), ("S_inter per-cluster", "#d95f02"),
                              ("S_intra per-cluster", "#7570b3")):
            band = np.array([np.quantile(m.draws[layer][f"{column} draws"], [0.025, 0.975])
                             for layer in table["layer"]])
            ax.fill_between(depth, band[:, 0], band[:, 1], color=color, alpha=0.15, lw=0)
        ax.axhline(0, color="black", lw=0.6)
        ax.set_title(_short(name))
        ax.set_xlabel("relative depth (layer / L)")
    axes[0, 0].set_ylabel("mean cosine")
    axes[0, 0].legend()
    fig.suptitle("S_inter raw, after global centring and after per-cluster centring (bands: "
                 "95% intervals over types)")
    fig.tight_layout()
    return fig


def pca_figure(measured: dict, seed: int):
    """Each model's middle layer in 2-D PCA, coloured by K-means cluster.

    Parameters
    ----------
    measured : dict of str to ModelClusters
        Each model's measurements, keyed by model name
        (:func:`anisotropy.claims.clusters.claim.measure`).
        The middle of each model's analysed layers is drawn.
    seed : int
        The claim's seed: each model's points are a sample of at most 4,000 of its kept
        tokens, from its stream ``claim2/pca-figure``.

    Returns
    -------
    matplotlib.figure.Figure
        One panel per model, titled with the layer and its K.
    """
    fig, axes = plt.subplots(1, len(measured), figsize=(4.6 * len(measured), 4.0),
                             squeeze=False)
    for ax, (name, m) in zip(axes[0], measured.items(), strict=True):
        layer = m.layers[len(m.layers) // 2]
        X = np.asarray(m.tokens.layer(layer))[m.keep]
        rows = sample_indices(X.shape[0], 4000, stream_seed(seed, "claim2/pca-figure"))
        P = manifolds.pca_project(X[rows], 2)
        k = int(m.per_layer.set_index("layer").loc[layer, "K"])
        ax.scatter(P[:, 0], P[:, 1], c=m.labels[layer][rows], s=3, cmap="tab20")
        ax.set_title(f"{_short(name)}, layer {layer}: K = {k}")
        ax.set_xlabel("PC 1")
        ax.set_ylabel("PC 2")
    fig.suptitle("Middle layers in 2-D PCA, coloured by K-means cluster")
    fig.tight_layout()
    return fig


def k_texts(settings, k_table: pd.DataFrame, n_models: int) -> dict:
    """How K was chosen here and by the authors, and where the two protocols agree.

    Parameters
    ----------
    settings : Settings
        Claim 2's parameters: ``k_check_sample`` and ``k_check_n_init``.
    k_table : pandas.DataFrame
        K per (model, layer, protocol) (:func:`~anisotropy.claims.clusters.claim.k_selection`).
    n_models : int
        The models measured.

    Returns
    -------
    dict
        ``k_check_text`` (the second protocol's points and initialisations), ``k_agreement``
        (how many models, and which, get one K from both protocols), ``authors_n_init`` and
        ``authors_silhouette_sample`` (the paper's code, ``data/references.yaml``).
    """
    agree = [m for m, part in k_table.groupby(level="model") if part["K"].nunique() == 1]
    k_selection = reference("claim2", "k_selection")
    return {"k_check_text": f"{settings.k_check_sample:,} points with "
                            f"{settings.k_check_n_init} initialisations",
            "k_agreement": f"{len(agree)} of {n_models} models"
                           + (f" ({', '.join(agree)})" if agree else ""),
            "authors_n_init": k_selection["n_init"],
            "authors_silhouette_sample": f"{k_selection['silhouette_sample']:,}"}


def shape_texts(shapes: pd.DataFrame) -> dict:
    """The reference shapes' indicators and the Swiss-roll criterion.

    Parameters
    ----------
    shapes : pandas.DataFrame
        The indicators of the reference shapes
        (:func:`~anisotropy.claims.clusters.manifolds.reference_shapes`).

    Returns
    -------
    dict
        ``sheet_lid``, ``cloud_lid`` (the bent sheet's and the solid cloud's LID),
        ``bent_ratio``, ``roll_ratio`` (the bent sheet's and the Swiss roll's geodesic
        ratio), ``roll_max_lid`` and ``roll_min_ratio`` (the criterion's thresholds).
    """
    return {"sheet_lid": shapes.loc["bent sheet", "lid"],
            "cloud_lid": shapes.loc["solid cloud", "lid"],
            "bent_ratio": shapes.loc["bent sheet", "geodesic_ratio"],
            "roll_ratio": shapes.loc["Swiss roll", "geodesic_ratio"],
            "roll_max_lid": manifolds.SWISS_ROLL_MAX_LID,
            "roll_min_ratio": manifolds.SWISS_ROLL_MIN_RATIO}


def manifold_texts(manifold: pd.DataFrame) -> dict:
    """Whether, and in which layers, a decoder shows a Swiss roll.

    Parameters
    ----------
    manifold : pandas.DataFrame
        The manifold indicators, one row per (model, layer)
        (:func:`~anisotropy.claims.clusters.claim.measure_manifolds`' rows).

    Returns
    -------
    dict
        ``swiss_roll_verdict``: ``"does"``, ``"does not"`` or ``"cannot be assessed (no
        decoder in this run)"``; ``swiss_roll_layers``: the layers where a decoder shows one
        (:func:`~anisotropy.report.results.ranges_text`), ``"none"`` when none does.
    """
    rolls = manifold[(manifold["Swiss roll"]) & (manifold["kind"] == "decoder")]
    has_decoder = bool((manifold["kind"] == "decoder").any())
    return {"swiss_roll_verdict": ("does" if len(rolls) else "does not") if has_decoder else
            "cannot be assessed (no decoder in this run)",
            "swiss_roll_layers": ranges_text(rolls["layer"]) if len(rolls) else "none"}


def manifold_figure(measured: dict, projections: dict):
    """3-D PCA of Cai et al.'s layer 2 (the book's
    :data:`~anisotropy.claims.clusters.claim.CAI_LAYER_2`) and the middle layer, word and
    symbol tokens apart.

    Parameters
    ----------
    measured : dict of str to ModelClusters
        Each model's measurements, keyed by model name
        (:func:`anisotropy.claims.clusters.claim.measure`).
    projections : dict
        ``{(model name, layer): (P, kinds, log_frequency)}``
        (:func:`~anisotropy.claims.clusters.claim.measure_manifolds`).
        It must hold layers :data:`~anisotropy.claims.clusters.claim.CAI_LAYER_2` and
        ``n_layers // 2`` of every model.

    Returns
    -------
    matplotlib.figure.Figure
        One row per model, four panels (the two layers, word and symbol tokens), the points
        coloured by log10 frequency.
    """
    fig = plt.figure(figsize=(13, 3.3 * len(measured)))
    points = None
    for row, (name, m) in enumerate(measured.items()):
        panels = [(layer, kind) for layer in (CAI_LAYER_2, m.n_layers // 2)
                  for kind in ("word", "symbol")]
        for column, (layer, kind) in enumerate(panels):
            P, kinds, log_frequency = projections[(name, layer)]
            ax = fig.add_subplot(len(measured), 4, 4 * row + column + 1, projection="3d")
            mask = kinds == kind
            points = ax.scatter(P[mask, 0], P[mask, 1], P[mask, 2], c=log_frequency[mask], s=2,
                                cmap="viridis")
            cai = " (Cai's 2)" if layer == CAI_LAYER_2 else ""
            ax.set_title(f"{_short(name)}, layer {layer}{cai}, {kind} tokens", fontsize=8)
            ax.set_xticks([])
            ax.set_yticks([])
            ax.set_zticks([])
    fig.colorbar(points, ax=fig.axes, shrink=0.6, label="log10 frequency in sample")
    fig.suptitle(f"3-D PCA of layer {CAI_LAYER_2} (Cai et al.'s layer 2) and the middle layer, "
                 "word and symbol tokens apart")
    return fig


def interactive_roll(measured: dict, projections: dict) -> str | None:
    """The first decoder's layer :data:`~anisotropy.claims.clusters.claim.CAI_LAYER_2`
    (Cai et al.'s layer 2) as an interactive 3-D scatter (HTML), or None.

    Parameters
    ----------
    measured : dict of str to ModelClusters
        Each model's measurements, keyed by model name
        (:func:`anisotropy.claims.clusters.claim.measure`).
    projections : dict
        ``{(model name, layer): (P, kinds, log_frequency)}``
        (:func:`~anisotropy.claims.clusters.claim.measure_manifolds`).

    Returns
    -------
    str or None
        A plotly HTML fragment (plotly.js included), word and symbol tokens as two traces
        coloured by log10 frequency; None without a decoder.
    """
    import plotly.graph_objects as go

    decoders = [n for n, m in measured.items() if m.decoder]
    if not decoders:
        return None
    P, kinds, log_frequency = projections[(decoders[0], CAI_LAYER_2)]
    figure = go.Figure([go.Scatter3d(x=P[kinds == kind, 0], y=P[kinds == kind, 1],
                                     z=P[kinds == kind, 2], mode="markers", name=f"{kind} tokens",
                                     marker=dict(size=2, color=log_frequency[kinds == kind],
                                                 colorscale="Viridis"))
                        for kind in ("word", "symbol")])
    figure.update_layout(height=520, margin=dict(l=0, r=0, t=30, b=0),
                         title=f"{_short(decoders[0])}, layer {CAI_LAYER_2} (Cai et al.'s "
                               "layer 2; 3-D PCA)")
    return figure.to_html(include_plotlyjs=True, full_html=False)


def lid_table(settings, measured: dict, static) -> pd.DataFrame:
    """LID of each model's contextual layers and input embeddings, the static control and
    the paper's Table 3.

    Parameters
    ----------
    settings : Settings
        Claim 2's parameters: ``lid_sample`` (the contextual rows' ``n``) and
        ``static_model`` (the control's name).
    measured : dict of str to ModelClusters
        Each model's measurements, keyed by model name
        (:func:`anisotropy.claims.clusters.claim.measure`).
    static : StaticLid
        The static control and its LID
        (:func:`~anisotropy.claims.clusters.claim.measure_static_lid`).

    Returns
    -------
    pandas.DataFrame
        Indexed by ``space``: per model its layers >= 1 (the mean over layers of the cosine
        and Euclidean LID, and the largest cosine LID of a layer), the static control, each
        model's input embeddings, and the paper's Table 3 spaces; columns ``n``, ``dim``,
        ``LID cosine``, ``LID euclidean`` and ``max layer LID cosine``.
    """
    rows = []
    for name, m in measured.items():
        contextual = m.per_layer[m.per_layer["layer"] >= 1]
        rows.append({"space": f"{_short(name)} (contextual, layers >= 1)",
                     "n": settings.lid_sample, "dim": None,
                     "LID cosine": contextual["LID cosine"].mean(),
                     "LID euclidean": contextual["LID euclidean"].mean(),
                     "max layer LID cosine": contextual["LID cosine"].max()})
    rows.append({"space": f"{_short(settings.static_model)} ({static.model.dim}d)",
                 **static.lid})
    for name, m in measured.items():
        rows.append({"space": f"{_short(name)} input embeddings", **m.input_lid})
    for space, values in reference("claim2", "lid_cosine").items():
        rows.append({"space": f"{space} (paper, Table 3)", "n": values["n"],
                     "dim": values["dim"], "LID cosine": values["lid"]})
    return pd.DataFrame(rows).set_index("space")


def lid_texts(settings, static, threshold: float) -> dict:
    """The paper's LID ratio, the check's threshold and the samples' sizes.

    Parameters
    ----------
    settings : Settings
        Claim 2's parameters: ``lid_sample``.
    static : StaticLid
        The static control (:func:`~anisotropy.claims.clusters.claim.measure_static_lid`);
        its model's ``dim`` is read.
    threshold : float
        The ``lid-below-static`` check's threshold.

    Returns
    -------
    dict
        ``paper_lid_ratio`` (the paper's largest LID of a space of 768 dimensions or more over
        its smallest of a smaller one), ``lid_ratio_threshold``, ``glove_dim``,
        ``paper_glove_dims`` (the smaller spaces' dimensions), ``lid_points`` and
        ``paper_lid_points`` (the range of the paper's points, in millions).
    """
    paper = reference("claim2", "lid_cosine")
    contextual = [v["lid"] for v in paper.values() if v["dim"] >= 768]
    static_paper = {k: v for k, v in paper.items() if v["dim"] < 768}
    return {"paper_lid_ratio": max(contextual) / min(v["lid"] for v in static_paper.values()),
            "lid_ratio_threshold": threshold, "glove_dim": static.model.dim,
            "paper_glove_dims": " and ".join(sorted({str(v["dim"])
                                                     for v in static_paper.values()})),
            "lid_points": settings.lid_sample,
            "paper_lid_points": f"{min(v['n'] for v in paper.values()) / 1e6:.2f}–"
                                f"{max(v['n'] for v in paper.values()) / 1e6:.2f}"}


def lid_figure(measured: dict):
    """LID (Euclidean, cosine) and IsoScore per depth, with the IsoScore authors' ranges.

    Parameters
    ----------
    measured : dict of str to ModelClusters
        Each model's measurements, keyed by model name
        (:func:`anisotropy.claims.clusters.claim.measure`).

    Returns
    -------
    matplotlib.figure.Figure
        Three panels against relative depth, one line per model.
    """
    fig, axes = plt.subplots(1, 3, figsize=(14, 3.8))
    for name, m in measured.items():
        for ax, column in zip(axes, ("LID euclidean", "LID cosine", "isoscore"), strict=True):
            ax.plot(m.per_layer["relative_depth"], m.per_layer[column], marker="o", ms=3,
                    color=plotting.color(name), label=_short(name))
    ranges = {k: v for k, v in reference("claim2", "isoscore_wikitext").items() if k != "source"}
    for paper_model, (low, high) in ranges.items():
        axes[2].axhspan(low, high, alpha=0.15, color=plotting.color(f"{paper_model} (paper)"),
                        label=f"{paper_model} (IsoScore authors' results)")
    for ax, title in zip(axes, ("LID, Euclidean (cf. the paper's Fig. 9)", "LID, cosine",
                                "IsoScore per layer"), strict=True):
        ax.set_title(title)
        ax.set_xlabel("relative depth (layer / L)")
    axes[0].legend(fontsize=7)
    axes[2].legend(fontsize=7)
    fig.tight_layout()
    return fig


def layers_table(measured: dict) -> pd.DataFrame:
    """Every model's per-layer table, indexed by (model, layer).

    Parameters
    ----------
    measured : dict of str to ModelClusters
        Each model's measurements, keyed by model name
        (:func:`anisotropy.claims.clusters.claim.measure`).

    Returns
    -------
    pandas.DataFrame
        The rows of every model's ``per_layer`` table, indexed by the model's short name and
        the layer.
    """
    return pd.concat([m.per_layer.assign(model=_short(n)) for n, m in measured.items()]
                     ).set_index(["model", "layer"])
