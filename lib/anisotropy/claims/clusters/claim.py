"""Claim 2, clusters and manifolds (Cai et al. 2021): settings, forward passes,
measurements and checks.

:func:`measure` gives one :class:`ModelClusters` per model (per-layer clusters,
similarities, LID and IsoScore, with their bootstrap draws); :func:`measure_drivers`,
:func:`measure_manifolds` and :func:`measure_static_lid` add the decoders' cluster drivers,
the manifold indicators and the static control. The ``grade_*`` functions record the checks
of :data:`CHECKS` (declared in ``data/checks.yaml``). The formulas are in
:mod:`anisotropy.claims.clusters.measure` and :mod:`anisotropy.claims.clusters.manifolds`; the
page is
``notebooks/02-clusters-manifolds.ipynb``, its tables and figures
:mod:`anisotropy.claims.clusters.page`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
import pandas as pd

from anisotropy.claims.base import CheckValue, load_model, measure_each, record_checks
from anisotropy.claims.clusters import manifolds
from anisotropy.claims.clusters import measure as clusters
from anisotropy.claims.clusters.ids import (
    DECODER_CLUSTERS_FEW_DIMS,
    GLOBAL_ANISOTROPY,
    INTRA_ABOVE_INTER,
    ISOLATED_CLUSTERS,
    LID_BELOW_STATIC,
    LOCAL_BEYOND_CENTRING,
    LOCAL_ISOTROPY,
    SWISS_ROLL,
)
from anisotropy.claims.declaration import ClaimDeclaration
from anisotropy.geometry.intervals import Interval
from anisotropy.geometry.sampling import sample_indices
from anisotropy.geometry.streams import stream_seed
from anisotropy.inputs import corpora
from anisotropy.inputs.jobs import ALL_LAYERS, Extraction, jobs
from anisotropy.inputs.references import anisotropic_level
from anisotropy.inputs.resolved import short_name
from anisotropy.inputs.settings import TRANSFORMERS, ClaimSettings, param

SLUG = "02-clusters-manifolds"


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
    kmeans_restarts: int = param(6, "K-means fits per layer at the chosen K (a fresh sample "
                                 "and start each); the per-cluster values are their mean "
                                 "and the intervals mix their bootstraps (3 fits covered "
                                 "other seeds' per-cluster minus raw |S_inter| in 65% of 20 "
                                 "seeds, 6 in 84%)",
                                 min=1)
    inter_min_units: int = param(500, "S_inter of a set with few types: up to "
                                 "ceil(this / types) instances per type, every pair of types "
                                 "weighted equally (1: one per type, as Cai et al.; a cluster "
                                 "of two types would rest on one cosine)", min=1)
    k_check_sample: int = param(10000, "K of the middle layer chosen again on this many "
                                "points (the authors: 20,000)", min=16)
    k_check_n_init: int = param(3, "K-means initialisations of that check (the authors: 10)",
                                min=1)
    lid_sample: int = param(5000, "points per layer for LID and IsoScore", min=3)
    lid_k: int = param(100, "neighbours of the LID estimate", min=2)
    lid_samples: int = param(3, "samples of `lid_sample` points per layer and static space; "
                             "the cosine LID is their mean and its interval mixes their "
                             "bootstraps (a point's neighbours move with the sample)", min=1)
    include_sink: bool = param(False, "decoders: keep position-0 tokens")
    static_model: str = param("glove-6B-50d", "the static-embedding control")
    n_boot: int = param(1000, "bootstrap resamples behind every 95% interval", min=20)


def models(settings: Settings) -> list[str]:
    """The models the claim runs (the static control is loaded apart).

    Parameters
    ----------
    settings : Settings
        The claim's parameters.

    Returns
    -------
    list of str
        ``settings.models``, in their order.
    """
    return list(settings.models)


def windows(settings: Settings) -> tuple[str, object]:
    """The name and builder of the context windows claims 2 and 3 share
    (:func:`anisotropy.inputs.corpora.windows`).

    Parameters
    ----------
    settings : Settings
        The claim's parameters: its ``n_windows``, ``window_words`` and ``seed`` are read.

    Returns
    -------
    name : str
        The name the windows' forward passes are cached under.
    build : callable
        Returns the windows (a list of str) when called.
    """
    return corpora.windows(settings.n_windows, settings.window_words, settings.seed)


def inputs(settings: Settings) -> list[Extraction]:
    """Every layer's token vectors of the context windows, per model.

    Parameters
    ----------
    settings : Settings
        The claim's parameters: its ``models`` and the windows' (:func:`windows`).

    Returns
    -------
    list of Extraction
        One ``"tokens"`` job of every layer (:data:`~anisotropy.inputs.jobs.ALL_LAYERS`) per
        model of ``settings.models``, in their order, over the windows of :func:`windows`.
    """
    name, build = windows(settings)
    return jobs(settings.models, name, "tokens", ALL_LAYERS, build)


# --------------------------------------------------------------------------- checks
#: Graded per model from :func:`anisotropy.claims.clusters.measure.check_values`.
SIMILARITY_CHECKS = (GLOBAL_ANISOTROPY, LOCAL_ISOTROPY, INTRA_ABOVE_INTER)
FINDINGS = (LOCAL_BEYOND_CENTRING, ISOLATED_CLUSTERS, DECODER_CLUSTERS_FEW_DIMS, SWISS_ROLL)
CHECKS = (*SIMILARITY_CHECKS, LID_BELOW_STATIC, *FINDINGS)
#: The claim, declared once (:class:`~anisotropy.claims.declaration.ClaimDeclaration`).
DECLARATION = ClaimDeclaration(
    slug=SLUG,
    title="2. Clusters and manifolds (Cai et al. 2021)",
    short="2. clusters", references="claim2",
    sources=("Cai et al. 2021",),
    model_list="models", checks=CHECKS,
    # seconds in a cold full book (553059f, 2-core AMD EPYC Zen 4, two jobs at a time,
    # November 2026): the workflow starts costly claims first
    cost=701)
ONE_CLUSTER = ("K-means keeps one cluster (K = 1) in every layer, so per-cluster centring is "
               "global centring and there is nothing to compare")


# --------------------------------------------------------------------------- measurements
@dataclass
class ModelClusters:
    """Claim 2 on one model (:func:`measure_model`).

    Attributes
    ----------
    name : str
        The model's name.
    kind : str
        ``"encoder"`` or ``"decoder"``.
    tokens : TokenEmbeddings
        The windows' token vectors.
    keep : bool array (n_tokens,)
        The tokens analysed: no special tokens, a decoder's position 0 dropped unless
        ``include_sink``.
    layers : list of int
        The layers analysed.
    n_layers : int
        The model's last layer.
    per_layer : pandas.DataFrame
        One row per layer analysed: K, similarities raw and centred, LID, IsoScore
        (:func:`~anisotropy.claims.clusters.measure.cluster_layer_stats`).
    labels : dict of int to numpy.ndarray
        Each layer's K-means labels.
    draws : dict of int to dict
        Each layer's bootstrap draws, ``{layer: {name: draws}}``.
    input_lid : dict
        The LID of its input-embedding matrix
        (:func:`~anisotropy.claims.clusters.manifolds.static_space_lid` without its draws):
        ``n``, ``dim``, ``LID euclidean`` and ``LID cosine``.
    input_draws : numpy.ndarray of shape (n_boot,)
        The bootstrap draws of that cosine LID.
    facts : dict
        ``tokens``, ``types`` and ``windows`` analysed, ``layers analysed`` and ``decoder``;
        default empty.
    """

    name: str
    kind: str
    tokens: object
    keep: object
    layers: list
    n_layers: int
    per_layer: object
    labels: dict
    draws: dict
    input_lid: dict
    input_draws: object
    facts: dict = field(default_factory=dict)

    @property
    def decoder(self) -> bool:
        """Whether the model is a decoder."""
        return self.kind == "decoder"


def measure_model(settings: Settings, encoder, windows: list[str]) -> ModelClusters:
    """Claim 2's per-layer measurements on one model's token vectors of the windows.

    Parameters
    ----------
    settings : Settings
        The claim's parameters: ``include_sink``, ``layers_per_model``, the K-means, LID and
        bootstrap settings and ``seed``.
    encoder : Encoder
        The loaded model (:func:`anisotropy.inputs.models.load`): its token vectors of
        ``windows`` are measured, and so is the LID of its input-embedding matrix.
    windows : list of str
        The context windows (:func:`windows`).

    Returns
    -------
    ModelClusters
        Named ``encoder.name``: the per-layer table, labels and draws of
        :func:`~anisotropy.claims.clusters.measure.cluster_layer_stats` on the layers analysed
        (every layer, or ``settings.layers_per_model`` evenly spaced ones); the token vectors
        and ``keep``; the input embeddings' LID
        (:func:`~anisotropy.claims.clusters.manifolds.static_space_lid`, its cosine draws
        apart); and the facts: ``tokens``, ``types`` and ``windows`` analysed, ``layers
        analysed`` and ``decoder``.
    """

    s = settings
    tokens = encoder.encode_tokens(windows)
    kind = encoder.resolved.kind
    exclude = (0,) if kind == "decoder" and not s.include_sink else ()
    layers = list(range(encoder.n_layers + 1))
    if s.layers_per_model:
        layers = sorted(set(np.linspace(0, encoder.n_layers, s.layers_per_model).round()
                            .astype(int)))
    table, labels, draws = clusters.cluster_layer_stats(
        tokens, layers, encoder.n_layers, exclude_positions=exclude, k_sample=s.k_sample,
        lid_sample=s.lid_sample, lid_k=s.lid_k, seed=stream_seed(s.seed, "claim2/layers"),
        n_boot=s.n_boot, restarts=s.kmeans_restarts, inter_min_units=s.inter_min_units,
        lid_samples=s.lid_samples, train_seed=s.train_stream("claim2/layers"))
    keep = ~tokens.special_mask & ~np.isin(tokens.position, exclude)
    embedding_matrix, _ = encoder.input_embedding_matrix()
    input_lid = manifolds.static_space_lid(embedding_matrix, s.lid_sample, s.lid_k,
                                          stream_seed(s.seed, "claim2/input-lid"), s.n_boot,
                                          samples=s.lid_samples)
    input_draws = input_lid.pop("LID cosine draws")
    facts = {"tokens": int(keep.sum()), "types": int(np.unique(tokens.token_ids[keep]).size),
             "windows": int(np.unique(tokens.sentence_index[keep]).size),
             "layers analysed": len(layers), "decoder": kind == "decoder"}
    return ModelClusters(encoder.name, kind, tokens, keep, layers, encoder.n_layers, table,
                         labels, draws, input_lid, input_draws, facts)


def measure(settings: Settings, windows: list[str], *, on_model=None,
            load=None) -> dict[str, ModelClusters]:
    """Claim 2 on every model of ``settings``, over its context ``windows`` (built by
    :func:`windows`).

    Parameters
    ----------
    settings : Settings
        The claim's parameters: its ``models`` are loaded on ``settings.device`` in
        ``settings.dtype``.
    windows : list of str
        The context windows every model encodes.
    on_model : callable, optional
        Called with each model once it is loaded (the results' ``add_model``); None (default)
        reports nothing.
    load : callable, optional
        Loads a model by name (``load(name, device=..., dtype=...)``); None (default):
        :func:`anisotropy.inputs.models.load`.

    Returns
    -------
    dict of str to ModelClusters
        Each model's measurements (:func:`measure_model`), keyed by its loaded name, in the
        order of ``settings.models``.
    """
    return measure_each(settings, lambda encoder: measure_model(settings, encoder, windows),
                        on_model=on_model, load=load)


def check_values(settings: Settings, m: ModelClusters, static_name: str) -> dict:
    """:func:`anisotropy.claims.clusters.measure.check_values` for one model, against its own
    input-embedding matrix (named ``static_name``).

    Parameters
    ----------
    settings : Settings
        The claim's parameters: ``n_boot`` is read.
    m : ModelClusters
        The model's measurements (:func:`measure_model`); the bootstrap is over its
        ``facts["windows"]`` windows.
    static_name : str
        The name of the input-embedding matrix in the LID check's details.

    Returns
    -------
    dict of str to CheckValue
        ``{check id: CheckValue}`` (measured, Interval, details) of ``global-anisotropy``,
        ``local-isotropy``, ``local-beyond-centring``, ``intra-above-inter`` and
        ``lid-below-static``; the two local ones ``CheckValue(None, None, details)`` when
        no layer >= 1 has K > 1, and ``local-isotropy`` also when no such layer has a high
        raw S_inter (:func:`~anisotropy.inputs.references.anisotropic_level`; the reason
        under ``unavailable``).
    """
    return clusters.check_values(m.per_layer, m.draws,
                                 {static_name: (m.input_lid["LID cosine"], m.input_draws)},
                                 settings.n_boot, m.facts["windows"], anisotropic_level())


def grade_clusters(results, settings: Settings, measured: dict[str, ModelClusters]) -> None:
    """The similarity checks per model (local isotropy not run when K = 1 everywhere),
    per-cluster against global centring (a finding with its interval and the interval's
    method, likewise) and the clusters found per layer (a finding).

    Parameters
    ----------
    results : Results
        The claim's results (:class:`anisotropy.report.results.Results`), where the checks
        are recorded.
    settings : Settings
        The claim's parameters (:func:`check_values`).
    measured : dict of str to ModelClusters
        Each model's measurements, keyed by model name (:func:`measure`).
    """
    for name, m in measured.items():
        table = m.per_layer
        isolated = {f"layer {layer}": f"K {k}, best silhouette {best:.3f}" for layer, k, best
                    in zip(table["layer"], table["K"], table["best silhouette"], strict=True)}
        values = {**check_values(settings, m, "input embeddings"),
                  ISOLATED_CLUSTERS: CheckValue(isolated)}
        record_checks(results, name, values, SIMILARITY_CHECKS,
                      [LOCAL_BEYOND_CENTRING, ISOLATED_CLUSTERS], model_kind=m.kind,
                      not_run=ONE_CLUSTER, finding_interval="95% interval",
                      finding_method=True)


def k_selection(settings: Settings, measured: dict[str, ModelClusters]):
    """K of each model's middle layer chosen by this book's protocol and by one closer to
    the authors' (more points, more initialisations).

    Parameters
    ----------
    settings : Settings
        The claim's parameters: ``k_sample`` (this book's protocol, one initialisation),
        ``k_check_sample`` and ``k_check_n_init`` (the other) and ``seed``.
    measured : dict of str to ModelClusters
        Each model's measurements, keyed by model name (:func:`measure`).
        The middle of each model's analysed layers is clustered, on its kept tokens.

    Returns
    -------
    pandas.DataFrame
        :func:`~anisotropy.claims.clusters.measure.compare_k_selection`'s rows of every model,
        indexed by (model's short name, layer, protocol): the points, initialisations, chosen
        K, best silhouette and the silhouette of every K tried.
    """
    s = settings
    rows = []
    for m in measured.values():
        layer = m.layers[len(m.layers) // 2]
        X = np.asarray(m.tokens.layer(layer))[m.keep]
        table = clusters.compare_k_selection(X, {
            "this book (every layer)": (s.k_sample, 1),
            "closer to the authors": (s.k_check_sample, s.k_check_n_init)},
            seed=stream_seed(s.seed, "claim2/k-protocols"),
            train_seed=s.train_stream("claim2/k-protocols"))
        rows.append(table.assign(model=short_name(m.name), layer=layer).reset_index())
    return pd.concat(rows).set_index(["model", "layer", "protocol"])


@dataclass(frozen=True)
class DecoderDrivers:
    """What carries one decoder's middle-layer clusters (:func:`measure_drivers`).

    Attributes
    ----------
    row : dict
        The facts of :func:`~anisotropy.claims.clusters.measure.decoder_drivers`:
        ``layer``, ``K with position 0``, ``top-3 between-cluster dims``, ``top-3
        between-cluster share`` (0 when K = 1), ``top-3 variance dims``, ``top-3 variance
        share``, ``position-0 share of smallest cluster`` and ``position-0 share of all
        tokens``.
    interval : Interval
        The 95% interval of the top-3 between-cluster share.
    """

    row: dict
    interval: Interval


def measure_drivers(settings: Settings,
                    measured: dict[str, ModelClusters]) -> dict[str, DecoderDrivers]:
    """What carries each decoder's middle-layer clusters: ``{name: DecoderDrivers}``.

    Parameters
    ----------
    settings : Settings
        The claim's parameters: ``k_sample``, ``n_boot`` and ``seed``.
    measured : dict of str to ModelClusters
        Each model's measurements, keyed by model name (:func:`measure`).
        Only decoders are measured, at layer ``n_layers // 2``, their position-0 tokens kept.

    Returns
    -------
    dict of str to DecoderDrivers
        Each decoder's row and interval
        (:func:`~anisotropy.claims.clusters.measure.decoder_drivers`), keyed by model name;
        empty without a decoder.
    """
    return {name: DecoderDrivers(*clusters.decoder_drivers(
                m.tokens, m.n_layers // 2, settings.k_sample, settings.n_boot,
                stream_seed(settings.seed, "claim2/drivers"),
                settings.train_stream("claim2/drivers")))
            for name, m in measured.items() if m.decoder}


def grade_drivers(results, drivers: dict[str, DecoderDrivers]) -> None:
    """The decoders' top-3 between-cluster share (a finding, with its interval and the
    interval's method; K and the dimensions in the details).

    Parameters
    ----------
    results : Results
        The claim's results (:class:`anisotropy.report.results.Results`), where the checks
        are recorded.
    drivers : dict of str to DecoderDrivers
        Each decoder's drivers, keyed by model name (:func:`measure_drivers`).
    """
    for name, found in drivers.items():
        row = found.row
        record_checks(results, name, {DECODER_CLUSTERS_FEW_DIMS: CheckValue(
            row["top-3 between-cluster share"], found.interval,
            {"K": row["K with position 0"], "dims": row["top-3 between-cluster dims"]})},
            (), [DECODER_CLUSTERS_FEW_DIMS], finding_interval="95% interval",
            finding_method=True)


#: The book's layer behind Cai et al.'s Fig. 4 ("GPT2 layer 2"): their code counts layers
#: from the first transformer block (its layer 0 is the book's layer 1; the book's layer 0 is
#: the input embeddings), so their layer k is the book's layer k + 1.
CAI_LAYER_2 = 3


def measure_manifolds(settings: Settings, measured: dict[str, ModelClusters]):
    """Manifold indicators (LID, geodesic ratio) of a 3-D PCA of layers 1, 2,
    :data:`CAI_LAYER_2`, L/2 and L per model, and the projections with each token's kind and
    log frequency.

    Parameters
    ----------
    settings : Settings
        The claim's parameters: ``seed`` (the streams of the points and of the indicators'
        samples).
    measured : dict of str to ModelClusters
        Each model's measurements, keyed by model name (:func:`measure`).
        Layers above a model's L are skipped.

    Returns
    -------
    rows : list of dict
        One per (model, layer): ``model`` (short name), ``kind``, ``layer``, the indicators of
        :func:`~anisotropy.claims.clusters.manifolds.manifold_indicators` (``lid``,
        ``geodesic_ratio``, ``connected_share``) and ``Swiss roll``
        (:func:`~anisotropy.claims.clusters.manifolds.is_swiss_roll`).
    projections : dict
        ``{(model name, layer): (P, kinds, log_frequency)}``: the 3-D PCA of a sample of at
        most 4,000 kept tokens (the same tokens in every layer), each token's kind (``"word"``
        or ``"symbol"``) and the log10 of its type's occurrences among the kept tokens.
    """

    rows, projections = [], {}
    for name, m in measured.items():
        picks = sorted({1, 2, CAI_LAYER_2, m.n_layers // 2, m.n_layers} & set(
            range(1, m.n_layers + 1)))
        kinds = clusters.token_kinds(m.tokens.tokens[m.keep])
        ids = m.tokens.token_ids[m.keep]
        log_frequency = np.log10(clusters.type_frequencies(ids).to_numpy())
        sample = sample_indices(int(m.keep.sum()), 4000,
                                stream_seed(settings.seed, "claim2/manifold-points"))
        for layer in picks:
            P = manifolds.pca_project(np.asarray(m.tokens.layer(layer))[m.keep][sample], 3)
            indicators = manifolds.manifold_indicators(
                P, seed=stream_seed(settings.seed, "claim2/manifold-indicators"))
            rows.append({"model": short_name(name), "kind": m.kind, "layer": layer,
                         **indicators, "Swiss roll": manifolds.is_swiss_roll(indicators)})
            projections[(name, layer)] = (P, kinds[sample], log_frequency[sample])
    return rows, projections


def grade_swiss_roll(results, measured: dict[str, ModelClusters], rows: list[dict]) -> None:
    """Each decoder's manifold indicators per layer (a finding).

    Parameters
    ----------
    results : Results
        The claim's results (:class:`anisotropy.report.results.Results`), where the checks
        are recorded.
    measured : dict of str to ModelClusters
        Each model's measurements, keyed by model name (:func:`measure`).
    rows : list of dict
        The manifold indicators per (model, layer) (:func:`measure_manifolds`).
    """
    for name, m in measured.items():
        if m.decoder:
            results.finding(SWISS_ROLL, name, {
                f"layer {r['layer']}": f"LID {r['lid']:.2f}, geodesic ratio "
                f"{r['geodesic_ratio']:.2f}" for r in rows if r["model"] == short_name(name)})


@dataclass(frozen=True)
class StaticLid:
    """The static control and its LID (:func:`measure_static_lid`).

    Attributes
    ----------
    model : StaticVectors
        The loaded control (its matrix in ``vectors``, its width in ``dim``).
    lid : dict
        :func:`~anisotropy.claims.clusters.manifolds.static_space_lid` without its draws:
        ``n``, ``dim``, ``LID euclidean`` and ``LID cosine``.
    draws : numpy.ndarray of shape (n_boot,)
        The bootstrap draws of the cosine LID.
    """

    model: object
    lid: dict
    draws: np.ndarray


def measure_static_lid(settings: Settings, *, on_model=None, load=None) -> StaticLid:
    """The static control's LID on a sample of its distinct vectors.

    Parameters
    ----------
    settings : Settings
        The claim's parameters: ``static_model``, ``lid_sample``, ``lid_k``, ``lid_samples``,
        ``n_boot`` and ``seed``.
    on_model : callable, optional
        Called with the static model once it is loaded (the results' ``add_model``); None
        (default) reports nothing.
    load : callable, optional
        Loads a model by name (``load(name)``); None (default):
        :func:`anisotropy.inputs.models.load`.

    Returns
    -------
    StaticLid
        The loaded control, its LID and the draws of its cosine LID.
    """

    s = settings
    static = load_model(s.static_model, on_model=on_model, load=load)
    lid = manifolds.static_space_lid(np.asarray(static.vectors), s.lid_sample, s.lid_k,
                                    stream_seed(s.seed, "claim2/static-lid"), s.n_boot,
                                    samples=s.lid_samples)
    return StaticLid(static, lid, lid.pop("LID cosine draws"))


def grade_lid(results, settings: Settings, measured: dict[str, ModelClusters]) -> None:
    """Each model's largest layer LID against its own input-embedding matrix (GloVe is a
    control, shown beside it).

    Parameters
    ----------
    results : Results
        The claim's results (:class:`anisotropy.report.results.Results`), where the checks
        are recorded.
    settings : Settings
        The claim's parameters (:func:`check_values`).
    measured : dict of str to ModelClusters
        Each model's measurements, keyed by model name (:func:`measure`).
    """
    for name, m in measured.items():
        values = check_values(settings, m, f"{name.split('/')[-1]} input embeddings")
        record_checks(results, name, values, [LID_BELOW_STATIC], model_kind=m.kind)
