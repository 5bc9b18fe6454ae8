"""Claim 1, layerwise anisotropy (Ethayarajh 2019): settings, forward passes, measurements
and checks.

:func:`measure` runs the claim on every model of its :class:`Settings` and returns one
:class:`ModelMeasurement` per model; :func:`grade` records the checks of :data:`CHECKS`
(declared in ``data/checks.yaml``), each read from the measurement entry of the same id.
The formulas are in :mod:`anisotropy.claims.layerwise.measure`; the page is
``notebooks/01-layerwise-anisotropy.ipynb``, its tables and figures
:mod:`anisotropy.claims.layerwise.page`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from anisotropy.claims.base import CheckValue, grade_each, measure_each
from anisotropy.claims.declaration import ClaimDeclaration
from anisotropy.claims.layerwise.ids import (
    BASELINE_POSITIVE,
    BASELINE_RISES,
    DECODER_BASELINE_HIGH,
    LAST_LAYER_RISE,
    MEV_LOW,
    MEV_VARIANTS,
    SELFSIM_FALLS,
)
from anisotropy.claims.layerwise.measure import (
    baseline_band,
    check_values,
    layerwise_word_stats,
    sink_effect,
    summarize_layers,
)
from anisotropy.geometry.streams import stream_seed
from anisotropy.inputs import corpora
from anisotropy.inputs.jobs import ALL_LAYERS, Extraction, jobs
from anisotropy.inputs.settings import TRANSFORMERS, ClaimSettings, param

if TYPE_CHECKING:
    import pandas as pd

SLUG = "01-layerwise-anisotropy"


@dataclass(frozen=True)
class Settings(ClaimSettings):
    """Claim 1's parameters."""

    slug: ClassVar[str] = SLUG

    models: tuple[str, ...] = param(TRANSFORMERS, "models to measure (`anisotropy models`)")
    sentence_source: str = param(corpora.SENTENCE_SOURCE, "sentence corpus: snli (the seed) "
                                 "or stsbenchmark (Ethayarajh's code)",
                                 choices=["snli", "stsbenchmark"])
    n_sentences: int = param(4000, "sentences sampled from the de-duplicated corpus", min=1)
    min_contexts: int = param(5, "a word must occur in this many distinct sentences", min=1)
    max_occurrences: int = param(1000, "occurrences kept per word (seeded subsample)", min=1)
    n_baseline_pairs: int = param(1000, "random word pairs per layer for the baseline", min=1)
    include_sink: bool = param(False, "decoders: keep words at position 0 (the attention sink)")
    n_boot: int = param(1000, "bootstrap resamples behind every 95% interval", min=20)


def models(settings: Settings) -> list[str]:
    """The models the claim runs.

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


def sentences(settings: Settings) -> list[str]:
    """The sampled sentences every model encodes (:func:`anisotropy.inputs.corpora.sentences`).

    Parameters
    ----------
    settings : Settings
        The claim's parameters: its ``sentence_source``, ``n_sentences`` and ``seed`` are read.

    Returns
    -------
    list of str
        ``settings.n_sentences`` sentences of the de-duplicated corpus
        ``settings.sentence_source`` (all of them when it holds fewer), in corpus order.
    """
    return corpora.sentences(settings.sentence_source, settings.n_sentences, settings.seed)


def inputs(settings: Settings) -> list[Extraction]:
    """Every layer's token vectors of the sampled sentences, per model.

    Parameters
    ----------
    settings : Settings
        The claim's parameters: its ``models``, ``sentence_source`` and ``n_sentences`` (and,
        through :func:`sentences`, its ``seed``) are read.

    Returns
    -------
    list of Extraction
        One ``"tokens"`` job of every layer (:data:`~anisotropy.inputs.jobs.ALL_LAYERS`) per
        model of ``settings.models``, in their order, over the sentences of :func:`sentences`,
        the corpus named ``"{sentence_source}-{n_sentences}"``.
    """
    s = settings
    return jobs(s.models, f"{s.sentence_source}-{s.n_sentences}", "tokens", ALL_LAYERS,
                lambda: sentences(s))


# --------------------------------------------------------------------------- checks
#: The checks the claim grades (``data/checks.yaml``), each read from the entry of the same
#: id in :attr:`ModelMeasurement.checks`: a ``CheckValue`` (measured, Interval, details).
GRADED = (BASELINE_POSITIVE, BASELINE_RISES, DECODER_BASELINE_HIGH, SELFSIM_FALLS, MEV_LOW)
#: The findings it records (measured, no interval), read the same way.
FINDINGS = (LAST_LAYER_RISE, MEV_VARIANTS)
CHECKS = GRADED + FINDINGS
#: The claim, declared once (:class:`~anisotropy.claims.declaration.ClaimDeclaration`).
DECLARATION = ClaimDeclaration(
    slug=SLUG,
    title="1. Layerwise anisotropy (Ethayarajh 2019)",
    short="1. layerwise", references="claim1",
    sources=("Ethayarajh 2019",),
    model_list="models", checks=CHECKS,
    # seconds in a cold full book (553059f, 2-core AMD EPYC Zen 4, two jobs at a time,
    # November 2026): the workflow starts costly claims first
    cost=296)


# --------------------------------------------------------------------------- measurements
@dataclass
class ModelMeasurement:
    """Everything claim 1 measures on one model (:func:`measure_model`).

    Attributes
    ----------
    name : str
        The model's name.
    kind : str
        ``"encoder"`` or ``"decoder"``.
    per_layer : pandas.DataFrame
        One row per layer: baseline with its 95% band, self- and intra-sentence
        similarity, MEV and their adjusted forms.
    per_word : pandas.DataFrame
        One row per (word, layer).
    facts : dict
        Counts of the sample, with ``decoder``, ``kind``, ``notes``, ``excluded_positions``
        and ``tokens_per_second``.
    summary : dict
        The per-layer table's summary numbers
        (:func:`anisotropy.claims.layerwise.measure.summarize_layers`).
    checks : dict of str to CheckValue
        ``{check id: CheckValue}`` (measured, Interval or None, details) for every id of
        :data:`CHECKS`.
    sinks : pandas.DataFrame or None
        The position-0 analysis of a decoder
        (:func:`anisotropy.claims.layerwise.measure.sink_effect`); None for an encoder.
    """

    name: str
    kind: str
    per_layer: pd.DataFrame
    per_word: pd.DataFrame
    facts: dict
    summary: dict
    checks: dict
    sinks: pd.DataFrame | None = None

    @property
    def decoder(self) -> bool:
        """Whether the model is a decoder (its position-0 words are dropped by default)."""
        return self.kind == "decoder"


def measure_model(settings: Settings, tokens, n_layers: int, *, kind: str, notes: str = "",
                  mev_threshold: float) -> ModelMeasurement:
    """Claim 1 on one model's token vectors (every layer, 0 to ``n_layers``).

    Parameters
    ----------
    settings : Settings
        The claim's settings (word filters, pair counts, bootstrap size, seed).
    tokens : TokenEmbeddings
        :class:`~anisotropy.inputs.extraction.TokenEmbeddings` of the claim's sentences.
    n_layers : int
        L, the model's last layer: layers 0 to L are measured, at relative depth ``layer / L``.
    kind : str
        ``"encoder"`` or ``"decoder"``: a decoder's words at position 0 (the attention sink)
        are dropped unless ``settings.include_sink``.
    notes : str, optional
        The model's notes, kept in the facts (default ``""``).
    mev_threshold : float
        The ``mev-low`` check's threshold (the share of words below it is reported).

    Returns
    -------
    ModelMeasurement
        Named ``tokens.meta["model"]`` (``""`` when absent): the per-layer table with the
        baseline's 95% band (``baseline_low``, ``baseline_high``), the per-word table, the
        facts (the sample's counts with ``decoder``, ``kind``, ``notes``,
        ``excluded_positions`` and ``tokens_per_second``), the summary, the checks of
        :data:`CHECKS` (``mev-variants``: the largest adjusted MEV of three variants) and, for
        a decoder, the position-0 table (None for an encoder).
    """
    s = settings
    seed = stream_seed(s.seed, "claim1/words")
    decoder = kind == "decoder"
    exclude = (0,) if decoder and not s.include_sink else ()
    layers = list(range(n_layers + 1))
    stats = layerwise_word_stats(
        tokens, layers, n_layers, min_contexts=s.min_contexts,
        max_occurrences=s.max_occurrences, exclude_positions=exclude,
        n_baseline_pairs=s.n_baseline_pairs, mev_threshold=mev_threshold, seed=seed,
        n_boot=s.n_boot)
    table, words, fact = stats.per_layer, stats.per_word, stats.facts
    checks = check_values(table, words, stats.pair_cosines, stats.units, n_boot=s.n_boot,
                          seed=seed, mev_baseline_draws=stats.mev_baseline_draws)
    table["baseline_low"], table["baseline_high"] = baseline_band(stats.pair_cosines,
                                                                  stats.units, s.n_boot, seed)
    summary = summarize_layers(table)
    checks[MEV_VARIANTS] = CheckValue({
        "centred PCA (commit 3865f9b)": summary["mev_adj_max"],
        "centred random-word baseline": summary["mev_adj_centred_baseline_max"],
        "size-matched baseline": summary["mev_adj_size_matched_max"]}, None, None)
    facts = {**fact, "decoder": decoder, "kind": kind, "notes": notes,
             "excluded_positions": list(exclude),
             "tokens_per_second": tokens.meta.get("tokens_per_second")}
    sinks = (sink_effect(tokens, layers, n_pairs=s.n_baseline_pairs, seed=seed)
             if decoder else None)
    return ModelMeasurement(tokens.meta.get("model", ""), kind, table, words, facts, summary,
                            checks, sinks)


def measure(settings: Settings, sentences: list[str], *, mev_threshold: float,
            on_model=None, load=None) -> dict[str, ModelMeasurement]:
    """Claim 1 on every model of ``settings``: ``{model name: ModelMeasurement}``.

    Each model is loaded (``load``, default the registry's), reported to ``on_model`` (the
    results' ``add_model``), run over ``sentences`` (:func:`sentences`; from the cache when
    the workflow's extraction job has run) and measured by :func:`measure_model`.

    Parameters
    ----------
    settings : Settings
        The claim's parameters: its ``models`` are loaded on ``settings.device`` in
        ``settings.dtype``.
    sentences : list of str
        The sentences every model encodes (:func:`sentences`).
    mev_threshold : float
        The ``mev-low`` check's threshold (:func:`measure_model`).
    on_model : callable, optional
        Called with each model once it is loaded; None (default) reports nothing.
    load : callable, optional
        Loads a model by name (``load(name, device=..., dtype=...)``); None (default):
        :func:`anisotropy.inputs.models.load`.

    Returns
    -------
    dict of str to ModelMeasurement
        Each model's measurement, keyed by its loaded name (``encoder.name``), in the order of
        ``settings.models``.
    """
    def measure_one(encoder) -> ModelMeasurement:
        measured = measure_model(settings, encoder.encode_tokens(sentences), encoder.n_layers,
                                 kind=encoder.resolved.kind, notes=encoder.resolved.notes,
                                 mev_threshold=mev_threshold)
        measured.name = encoder.name
        return measured

    return measure_each(settings, measure_one, on_model=on_model, load=load)


def grade(results, measured: dict[str, ModelMeasurement]) -> None:
    """Record every check of :data:`CHECKS` for every model in ``results`` (graded checks
    from their intervals, findings as measured).

    Parameters
    ----------
    results : Results
        The claim's results (:class:`anisotropy.report.results.Results`), where the checks
        are recorded.
    measured : dict of str to ModelMeasurement
        Each model's measurement, keyed by model name (:func:`measure`).
    """
    grade_each(results, measured, GRADED, FINDINGS)
