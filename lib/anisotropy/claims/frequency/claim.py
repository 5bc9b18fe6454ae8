"""Claim 3, frequency bias and calibration (Li et al. 2020; Su et al. 2021): settings,
forward passes, measurements and checks.

:func:`measure_frequency` is Part A (frequency against norm and neighbourhood in each
space), :func:`measure_calibration` Part B (whitening and flows on STS); :func:`grade`
records the checks of :data:`CHECKS` (declared in ``data/checks.yaml``). The formulas are in
:mod:`anisotropy.claims.frequency.measure`, :mod:`anisotropy.claims.frequency.calibration` and
:mod:`anisotropy.claims.sts`; the page is ``notebooks/03-frequency-bias.ipynb``, its
tables and figures :mod:`anisotropy.claims.frequency.page`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from anisotropy.claims.base import CheckValue, load_model, record_checks
from anisotropy.claims.declaration import ClaimDeclaration
from anisotropy.claims.frequency import calibration
from anisotropy.claims.frequency import measure as frequency
from anisotropy.claims.frequency.ids import (
    FLOW_HELPS,
    FREQUENCY_CONTEXTUAL,
    KNN_FREQUENCY,
    NORM_FREQUENCY,
    WHITENING_HELPS,
)
from anisotropy.geometry.streams import stream_seed, train_stream_seed
from anisotropy.inputs import corpora, tasks
from anisotropy.inputs.corpora import STS_TASKS
from anisotropy.inputs.jobs import ALL_LAYERS, FIRST_LAST, Extraction, jobs
from anisotropy.inputs.settings import TRANSFORMERS, ClaimSettings, param

SLUG = "03-frequency-bias"



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
    flow_epochs: float = param(1.0, "BERT-flow's budget for a target flow: passes over the "
                               "pairs of the task's train, dev and test splits in batches "
                               "of 32 pairs (its README: num_train_epochs=1.0, "
                               "use_full_for_training=1)", min=0.01)
    flow_steps: int | None = param(None, "None: the budget of flow_epochs (the NLI flow: one "
                                   "pass over its sentences); an integer: that many steps "
                                   "for every flow", min=1, optional=True)
    flow_sweep: tuple[float, ...] = param([0, 0.25, 1, 4], "budgets of the sweep, in "
                                          "multiples of BERT-flow's (one target flow each, on "
                                          "STS-B or the first task; 0: centring alone); "
                                          "empty: none", min=0, min_items=0)
    n_flow_seeds: int = param(3, "flow fits per task; their spread gives the interval", min=2)
    whitening_refits: int = param(50, "bootstrap draws with the whitening refitted, behind its "
                                  "interval", min=20)
    flow_refits: int = param(5, "bootstrap draws per task with the target flow refitted (a "
                             "new fit on resampled pairs), behind its interval", min=3)
    include_sink: bool = param(False, "decoders: keep position-0 tokens in sentence means")
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


def sts_corpus(settings) -> tuple[str, object]:
    """The name and builder of the STS sentences claims 3 and 4 share
    (:func:`anisotropy.inputs.corpora.sts_sentences`).

    Parameters
    ----------
    settings : Settings
        The claim's parameters: its ``tasks``, ``max_pairs`` and ``seed`` are read.

    Returns
    -------
    name : str
        The name the sentences' forward passes are cached under.
    build : callable
        Returns the sentences (a list of str) when called.
    """
    return corpora.sts_sentences(settings.tasks, settings.max_pairs, settings.seed)


def inputs(settings: Settings) -> list[Extraction]:
    """Claim 2's windows (every layer), the STS sentences (layers 0, 1 and last) and the
    SNLI fitting sentences (every layer), per model.

    Parameters
    ----------
    settings : Settings
        The claim's parameters.

    Returns
    -------
    list of Extraction
        The token-vector jobs of every model of ``settings.models``: the windows, then the
        STS sentences, then ``n_nli_sentences`` SNLI sentences.
    """
    s = settings
    windows = corpora.windows(s.n_windows, s.window_words, s.seed)
    sts = sts_corpus(s)
    return (jobs(s.models, windows[0], "tokens", ALL_LAYERS, windows[1])
            + jobs(s.models, sts[0], "tokens", FIRST_LAST, sts[1])
            + jobs(s.models, f"snli-{s.n_nli_sentences}", "tokens", ALL_LAYERS,
                   lambda: tasks.corpus("snli", s.n_nli_sentences,
                                        stream_seed(s.seed, "data"))))


# --------------------------------------------------------------------------- checks
#: Part A: graded per input space (each transformer's input embeddings, GloVe's spaces).
FREQUENCY_CHECKS = {NORM_FREQUENCY: "rho norm", KNN_FREQUENCY: "rho kNN distance"}
#: Part B: graded per transformer, read from :attr:`Calibration.checks`.
CALIBRATION_CHECKS = (WHITENING_HELPS, FLOW_HELPS)
CHECKS = (*FREQUENCY_CHECKS, FREQUENCY_CONTEXTUAL, *CALIBRATION_CHECKS)
#: The claim, declared once (:class:`~anisotropy.claims.declaration.ClaimDeclaration`).
DECLARATION = ClaimDeclaration(
    slug=SLUG,
    title="3. Frequency bias and calibration (Li et al. 2020; Su et al. 2021)",
    short="3. frequency", references="claim3",
    sources=("Li et al. 2020", "Su et al. 2021"),
    model_list="models", checks=CHECKS,
    # seconds in a cold full book (553059f, 2-core AMD EPYC Zen 4, two jobs at a time,
    # November 2026): the workflow starts costly claims first
    cost=1310)


# --------------------------------------------------------------------------- measurements
def load_models(settings: Settings, on_model=None, load=None) -> tuple[dict, object]:
    """The transformers (``{name: encoder}``) and the static control, each reported to
    ``on_model`` (the results' ``add_model``).

    Not :func:`~anisotropy.claims.base.each_model`, which holds one model at a time: claim 3
    holds its small models (the book's three transformers and the static control) across
    Part A (:func:`measure_frequency` reads them all) and Part B
    (:func:`measure_calibration` reads the transformers again), so each is loaded once and
    kept, not loaded one at a time.

    Parameters
    ----------
    settings : Settings
        The claim's parameters: the transformers of ``models`` are loaded on its ``device``
        in its ``dtype``, then ``static_model``.
    on_model : callable, optional
        Called with each model once it is loaded (the results' ``add_model``); None reports
        nothing.
    load : callable, optional
        Loads a model by name (``load(name, device=..., dtype=...)`` for a transformer,
        ``load(name)`` for the static control); None: :func:`anisotropy.inputs.models.load`.

    Returns
    -------
    encoders : dict
        ``{name: Encoder}``, in the order of ``settings.models``.
    static : StaticVectors
        The static control.
    """
    encoders = {name: load_model(name, settings, on_model=on_model, load=load)
                for name in settings.models}
    return encoders, load_model(settings.static_model, on_model=on_model, load=load)


#: The neighbour counts of Li et al.'s Table 1 (mean k-NN distance per rank range).
TABLE1_KS = (3, 5, 7)


@dataclass
class FrequencyGeometry:
    """Part A: each space's vectors and frequencies (and the pool its neighbours are
    searched in, with the sorted distances to them: ``neighbours``), the model and kind
    that own it, its
    correlations (``geometry``: one row per space) with their intervals, and its means per
    frequency-rank range (``bins``).

    Every field is keyed by the space's name (``"MODEL: input embeddings"``, ...) and
    empty by default (:func:`measure_frequency` fills them).

    Attributes
    ----------
    spaces : dict
        ``{space: (vectors, frequencies)}``.
    pools : dict
        ``{space: (vectors, rows)}``: the vectors its neighbours are searched among, the
        space being ``vectors[rows]``.
    neighbours : dict
        ``{space: (n, k) distances}`` to each row's nearest neighbours, sorted ascending
        (:func:`anisotropy.claims.frequency.measure.neighbour_distances`).
    owners : dict
        ``{space: (model name, kind)}`` of the model that owns it.
    geometry : dict
        ``{space: dict}``: its rank correlations of norm and kNN distance with frequency
        (:func:`anisotropy.claims.frequency.measure.frequency_geometry`'s summary, the
        intervals apart).
    intervals : dict
        ``{space: {quantity: Interval}}`` of the quantities of :data:`FREQUENCY_CHECKS`.
    bins : dict
        ``{space: pandas.DataFrame}``: its means per frequency-rank range.
    """

    spaces: dict = field(default_factory=dict)
    pools: dict = field(default_factory=dict)
    neighbours: dict = field(default_factory=dict)
    owners: dict = field(default_factory=dict)
    geometry: dict = field(default_factory=dict)
    intervals: dict = field(default_factory=dict)
    bins: dict = field(default_factory=dict)


def measure_frequency(settings: Settings, encoders: dict, static, corpus: list[str],
                      edges) -> FrequencyGeometry:
    """Part A on every space: each transformer's input embeddings and its contextual type
    averages (middle and last layer, over claim 2's windows), and the static vectors with
    corpus counts and with their own vocabulary ranks.

    Parameters
    ----------
    settings : Settings
        The claim's parameters.
    encoders : dict
        ``{name: Encoder}`` of the transformers (:func:`load_models`).
    static : StaticVectors
        The static control (:func:`load_models`).
    corpus : list of str
        The texts whose token and word counts give the frequencies
        (:func:`anisotropy.claims.frequency.measure.corpus_token_counts`,
        :func:`anisotropy.claims.frequency.measure.corpus_word_counts`).
    edges : sequence of int
        Table 1's rank ranges: increasing edges starting at 0
        (:func:`anisotropy.claims.frequency.measure.rank_bins`).

    Returns
    -------
    FrequencyGeometry
        Every space's vectors, neighbour pool and distances, owner, correlations (with
        the intervals of :data:`FREQUENCY_CHECKS` apart in ``intervals``) and per-range
        means, keyed by the space's name.
    """
    s = settings
    out = FrequencyGeometry()
    windows = tasks.windows("lm", s.window_words, s.n_windows, stream_seed(s.seed, "data"))
    for name, encoder in encoders.items():
        counts = frequency.corpus_token_counts(encoder.tokenizer, corpus)
        spaces, pools = frequency.model_spaces(
            encoder, counts, encoder.encode_tokens(windows),
            (encoder.n_layers // 2, encoder.n_layers), s.max_types, s.type_occurrences,
            stream_seed(s.seed, "claim3/type-averages"))
        out.spaces.update(spaces)
        out.pools.update(pools)
        out.owners.update({space: (name, encoder.resolved.kind) for space in spaces})
    spaces, pools = frequency.static_spaces(static, frequency.corpus_word_counts(corpus),
                                            s.max_types)
    out.spaces.update(spaces)
    out.pools.update(pools)
    out.owners.update({space: (s.static_model, "static") for space in spaces})
    for space, (X, counts) in out.spaces.items():
        # one neighbour search per space serves the check (knn_k) and Table 1's k = 3, 5, 7
        out.neighbours[space] = frequency.neighbour_distances(
            X, max(s.knn_k, *TABLE1_KS), out.pools.get(space))
        row, out.bins[space] = frequency.frequency_geometry(
            X, counts, k=s.knn_k, edges=edges, n_boot=s.n_boot,
            seed=stream_seed(s.seed, f"claim3/frequency/{space}"),
            distances=out.neighbours[space])
        out.intervals[space] = {key: row.pop(f"{key} interval")
                                for key in FREQUENCY_CHECKS.values()}
        out.geometry[space] = row
    return out


@dataclass
class Calibration:
    """Part B for one transformer (:func:`measure_calibration`).

    Attributes
    ----------
    model : str
        The transformer's name.
    kind : str
        ``"encoder"`` or ``"decoder"``.
    scores : pandas.DataFrame
        Spearman/Pearson per task, method and seed
        (:func:`anisotropy.claims.frequency.calibration.calibrate_and_score`).
    curves : dict
        The flows' training losses per task (and ``"NLI"``), of the first flow seed.
    checks : dict of str to CheckValue
        Each check of :data:`CALIBRATION_CHECKS` (measured, Interval, details).
    per_task : dict
        ``{task: {"whitening": (change, Interval), "flow": (change, Interval)}}``
        (:func:`anisotropy.claims.frequency.calibration.task_changes`); default empty.
    sweep : pandas.DataFrame or None
        The flow's budget sweep (:func:`budget_sweep`); None (default) with no budget to
        sweep.
    """

    model: str
    kind: str
    scores: object
    curves: dict
    checks: dict
    per_task: dict = field(default_factory=dict)
    sweep: object = None


def eval_tasks(settings: Settings) -> list[str]:
    """The STS tasks scored (STS-B's dev split only fits the flow).

    Parameters
    ----------
    settings : Settings
        The claim's parameters.

    Returns
    -------
    list of str
        ``settings.tasks`` without ``STS-B-dev``, in their order.
    """
    return [t for t in settings.tasks if t != "STS-B-dev"]


def measure_calibration(settings: Settings, encoders: dict,
                        sentences: list[str]) -> dict[str, Calibration]:
    """Part B for every transformer: its pooled vectors of the STS ``sentences``
    (:func:`sts_corpus`), calibrated by whitening and by flows (fitted on the task's
    sentences, and on the NLI sentences).

    Parameters
    ----------
    settings : Settings
        The claim's parameters.
    encoders : dict
        ``{name: Encoder}`` of the transformers (:func:`load_models`).
    sentences : list of str
        The STS sentences every model encodes (:func:`sts_corpus`).

    Returns
    -------
    dict of str to Calibration
        One :class:`Calibration` per transformer, keyed by its name: scores, flow loss
        curves, the checks of :data:`CALIBRATION_CHECKS`, the per-task changes and the
        budget sweep (:func:`budget_sweep`).
    """
    s = settings
    nli = tasks.corpus("snli", s.n_nli_sentences, stream_seed(s.seed, "data"))
    scored = eval_tasks(s)
    out = {}
    for name, encoder in encoders.items():
        kind = encoder.resolved.kind
        exclude = (0,) if kind == "decoder" and not s.include_sink else ()
        pooled = calibration.pooled_vectors(
            encoder.encode_tokens(sentences, layers=[0, 1, encoder.n_layers]),
            encoder.n_layers, exclude)
        nli_pooled = calibration.pooled_vectors(encoder.encode_tokens(nli), encoder.n_layers,
                                                exclude)
        table, pairs, curves = calibration.calibrate_and_score(
            pooled, nli_pooled, sentences, scored, pooling=s.calibration_pooling,
            flow_steps=s.flow_steps, flow_epochs=s.flow_epochs,
            n_flow_seeds=s.n_flow_seeds, max_pairs=s.max_pairs,
            seed=stream_seed(s.seed, "claim3/calibration"), data_seed=stream_seed(s.seed, "data"),
            n_refit=s.whitening_refits, n_flow_refit=s.flow_refits,
            train_seed=s.train_stream("claim3/calibration"))
        draws = calibration.change_draws(table, pairs, scored, s.calibration_pooling,
                                         s.n_boot, stream_seed(s.seed, "claim3/calibration"))
        checks = calibration.check_values(table, pairs, scored, s.calibration_pooling,
                                          s.n_boot, draws_by_key=draws)
        per_task = calibration.task_changes(table, pairs, scored, s.calibration_pooling,
                                            s.n_boot, draws_by_key=draws)
        out[name] = Calibration(name, kind, table, curves, checks, per_task,
                                budget_sweep(s, pooled[s.calibration_pooling], sentences))
    return out


def sweep_task(settings: Settings) -> str:
    """The task of the flow's budget sweep: STS-B where it is scored, else the first.

    Parameters
    ----------
    settings : Settings
        The claim's parameters.

    Returns
    -------
    str
        ``"STS-B"`` when :func:`eval_tasks` holds it, else the first of them.
    """
    scored = eval_tasks(settings)
    return "STS-B" if "STS-B" in scored else scored[0]


def budget_sweep(settings: Settings, base, sentences: list[str]):
    """The target flow's change on :func:`sweep_task` for each budget of ``flow_sweep``
    (multiples of BERT-flow's budget on that task, :func:`anisotropy.claims.frequency.calibration.
    task_flow_budget`; :func:`anisotropy.claims.frequency.calibration.flow_sweep`), with the columns
    task and budget; None with no budget to sweep.

    Parameters
    ----------
    settings : Settings
        The claim's parameters: ``flow_sweep`` gives the budgets.
    base : numpy.ndarray
        The ``calibration_pooling`` sentence vectors of ``sentences``, one row per sentence
        (:func:`anisotropy.claims.frequency.calibration.pooled_vectors`).
    sentences : list of str
        The STS sentences, in the rows' order (:func:`sts_corpus`).

    Returns
    -------
    pandas.DataFrame or None
        One row per budget: ``steps``, ``change`` (Spearman x 100 over ``base``),
        ``task`` and ``budget`` (the multiple of BERT-flow's budget; 0: centring alone);
        None when ``flow_sweep`` is empty.
    """
    s = settings
    if not s.flow_sweep:
        return None
    task = sweep_task(s)
    first, second, gold, subsets, _ = calibration.task_pairs(
        task, {x: i for i, x in enumerate(sentences)}, s.max_pairs,
        stream_seed(s.seed, "data"))
    steps = tuple(calibration.task_flow_budget(task, m) if m > 0 else 0 for m in s.flow_sweep)
    sweep = calibration.flow_sweep(base, first, second, gold, subsets, steps,
                                   seed=train_stream_seed(s.seed, s.train_stream("claim3"),
                                                          "flow-sweep"))
    return sweep.assign(task=task, budget=list(s.flow_sweep))


def grade_frequency(results, geometry: FrequencyGeometry) -> None:
    """Part A's checks: per input space the two frequency correlations (the contextual type
    averages as a finding).

    Parameters
    ----------
    results : Results
        The claim's results, where the checks are recorded.
    geometry : FrequencyGeometry
        Part A's measurements (:func:`measure_frequency`).
    """
    for space, row in geometry.geometry.items():
        model, kind = geometry.owners[space]
        part = space.split(": ", 1)[1]
        if "type average" in part:
            results.finding(FREQUENCY_CONTEXTUAL, model,
                            {key: row[key] for key in FREQUENCY_CHECKS.values()}, subject=part)
            continue
        record_checks(results, model, {
            check: CheckValue(row[key], geometry.intervals[space][key])
            for check, key in FREQUENCY_CHECKS.items()}, list(FREQUENCY_CHECKS),
            model_kind=kind, subject=part)


def grade_calibration(results, calibrated: dict[str, Calibration]) -> None:
    """Part B's checks: per transformer, the average gains of whitening and the flow.

    Parameters
    ----------
    results : Results
        The claim's results, where the checks are recorded.
    calibrated : dict of str to Calibration
        Part B's measurements per transformer (:func:`measure_calibration`).
    """
    for name, measured in calibrated.items():
        record_checks(results, name, measured.checks, CALIBRATION_CHECKS,
                      model_kind=measured.kind)


def grade(results, geometry: FrequencyGeometry, calibrated: dict[str, Calibration]) -> None:
    """Record every check of :data:`CHECKS` (Part A, then Part B).

    Parameters
    ----------
    results : Results
        The claim's results, where the checks are recorded.
    geometry : FrequencyGeometry
        Part A's measurements (:func:`measure_frequency`).
    calibrated : dict of str to Calibration
        Part B's measurements per transformer (:func:`measure_calibration`).
    """
    grade_frequency(results, geometry)
    grade_calibration(results, calibrated)
