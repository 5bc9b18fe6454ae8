"""Claim 5, IsoScore vs silhouette under linear classification (Mickus et al. 2024):
settings, forward passes, measurements and checks.

:func:`measure_setups` trains the classifier of setups (i) polarity and (ii) SNLI on the
paper's encoder, :func:`measure_appendix` the GLUE-style appendix on each appendix encoder;
:func:`grade` records the checks of :data:`CHECKS` (declared in ``data/checks.yaml``). The
formulas are in :mod:`anisotropy.claims.classifier_geometry.classifier`; the page is
``notebooks/05-isotropy-vs-clusters.ipynb``, its tables and figures
:mod:`anisotropy.claims.classifier_geometry.page`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import ClassVar

import numpy as np
import pandas as pd

from anisotropy.claims.base import load_model, record_checks
from anisotropy.claims.classifier_geometry.classifier import (
    check_values,
    item_change_draws,
    run_seeds,
    setup_summary,
    trajectory_correlations,
)
from anisotropy.claims.classifier_geometry.ids import (
    ANTICORRELATION,
    ANTICORRELATION_WORD2VEC,
    APPENDIX_ANTICORRELATION,
    CLASSES_COLLAPSE,
    ISOSCORE_FALLS,
    SEED_SPREAD,
    SILHOUETTE_RISES,
    SPEARMAN_ANTICORRELATION,
)
from anisotropy.claims.declaration import ClaimDeclaration
from anisotropy.geometry import metrics
from anisotropy.geometry.intervals import interval_of_max, seed_interval
from anisotropy.geometry.streams import stream, stream_seed
from anisotropy.inputs import tasks
from anisotropy.inputs.jobs import LAST, Extraction, jobs
from anisotropy.inputs.references import reference_value
from anisotropy.inputs.resolved import short_name
from anisotropy.inputs.settings import ClaimSettings, param

SLUG = "05-isotropy-vs-clusters"
# Setups (i)-(ii) run the paper's one encoder (`model`); a workflow's `models` replace the
# appendix encoders, and a model left out of that list is "not run" for the appendix checks.
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
    rank_sample: int | None = param(1000, "Spearman's rho from IsoScore and silhouette at "
                                    "every update on this many points, a fixed sample per "
                                    "seed; None: from the updates metric_every records, on "
                                    "every point", min=4)
    glue_tasks: tuple[str, ...] = param(["cola", "sst2", "rte", "snli"], "the appendix's "
                                        "tasks", choices="classification_tasks")
    glue_models: tuple[str, ...] = param(["sentence-transformers/all-MiniLM-L6-v2",
                                          "sentence-transformers/all-mpnet-base-v2"],
                                         "the appendix's encoders")
    glue_updates: int = param(250, "classifier updates per appendix setup", min=1)
    glue_seeds: int = param(5, "classifier initialisations per appendix setup (the main "
                            "text's 5)", min=2)
    glue_max_items: int | None = param(2000, "seeded subset of a larger training set; None: "
                                       "every item", min=1)
    glue_metric_sample: int = param(10000, "metrics on a fresh random sample when a set is "
                                    "larger (the book's size: the paper's is lost)", min=2)
    glue_metric_every: int = param(10, "record appendix metrics every k updates", min=1)
    limit_points: int = param(2000, "points of each limit case (two collapsed classes, an "
                              "isotropic Gaussian)", min=4)


def models(settings: Settings) -> list[str]:
    """The setups' encoder, then the appendix encoders.

    Parameters
    ----------
    settings : Settings
        The claim's parameters: its ``model`` and ``glue_models`` are read.

    Returns
    -------
    list of str
        ``settings.model``, then each of ``settings.glue_models``, every name once (at its
        first place).
    """
    return list(dict.fromkeys([settings.model, *settings.glue_models]))


def setup_task(settings: Settings, task_name: str, max_items: int | None,
               run: int = 0) -> dict:
    """A setup's labelled task (:func:`anisotropy.inputs.tasks.classification_task`), its
    subset drawn from the data stream every claim shares (run 0) or from run R's own
    (stream ``data/run-R``).

    Parameters
    ----------
    settings : Settings
        The claim's parameters: its ``seed`` is read.
    task_name : str
        A classification task of ``data/tasks.yaml`` (``"polarity"``, ``"snli"``,
        ``"cola"``, ...).
    max_items : int or None
        Items (sentences, or pairs for a pair task) of the seeded subset; None keeps every
        item.
    run : int, optional
        Whose subset: 0 (the default) draws from the stream ``data`` under
        ``settings.seed``, R >= 1 from ``data/run-R``.

    Returns
    -------
    dict
        As :func:`~anisotropy.inputs.tasks.classification_task` returns it: ``sentences``
        (list of str), ``targets`` (int array, per item), ``pairs`` (int array
        ``(n_pairs, 2)``, None for a single-sentence task) and ``n_items``.
    """
    stream = stream_seed(settings.seed, "data" if run == 0 else f"data/run-{run}")
    return tasks.classification_task(task_name, max_items, stream)


def setup_runs(settings: Settings) -> range:
    """The item subsets the main setups draw: with a subset (``n_items``), ``n_seeds`` of
    them (the seeds train on run 0's; runs 1 .. on their own, for the items' share of the
    changes' intervals); with every item, one.

    Parameters
    ----------
    settings : Settings
        The claim's parameters: its ``n_items`` and ``n_seeds`` are read.

    Returns
    -------
    range
        ``range(settings.n_seeds)`` when ``settings.n_items`` is set, else ``range(1)``:
        the runs R passed to :func:`setup_task`.
    """
    return range(settings.n_seeds if settings.n_items is not None else 1)


def inputs(settings: Settings) -> list[Extraction]:
    """Pooled sentence vectors of the setups' tasks (the paper's encoder) and of the
    appendix tasks (each appendix encoder).

    Parameters
    ----------
    settings : Settings
        The claim's parameters.

    Returns
    -------
    list of Extraction
        ``"pooled"`` jobs (named by :data:`~anisotropy.inputs.jobs.LAST`): for each task of
        :data:`SETUP_TASKS` and each run of :func:`setup_runs`, the job of
        ``settings.model`` over ``TASK-N`` (``N`` the ``n_items``, or ``all``; ``-runR``
        appended for run R >= 1); then for each task of ``settings.glue_tasks``, one job per
        model of ``settings.glue_models`` over ``TASK-N`` (``N`` the ``glue_max_items``, or
        ``all``).
    """
    s = settings
    out = []
    for task in SETUP_TASKS:
        for run in setup_runs(s):
            out += jobs([s.model], f"{task}-{s.n_items or 'all'}" + (f"-run{run}" if run
                                                                     else ""),
                        "pooled", LAST, lambda task=task, run=run: setup_task(
                            s, task, s.n_items, run)["sentences"])
    for task in s.glue_tasks:
        out += jobs(s.glue_models, f"{task}-{s.glue_max_items or 'all'}", "pooled", LAST,
                    lambda task=task: setup_task(s, task, s.glue_max_items)["sentences"])
    return out


# --------------------------------------------------------------------------- checks
#: Recorded per setup, read from :attr:`Setup.checks` (those in :data:`FINDINGS` as
#: findings, the others graded).
SETUP_CHECKS = (ANTICORRELATION, SPEARMAN_ANTICORRELATION, CLASSES_COLLAPSE,
                ISOSCORE_FALLS, SILHOUETTE_RISES, SEED_SPREAD)
#: Graded once over the appendix's (model, task) setups: the least negative mean r.
APPENDIX_CHECKS = (APPENDIX_ANTICORRELATION,)
#: Declared but not measurable here (no word2vec vectors or POS/supersense labels).
NOT_RUN = {ANTICORRELATION_WORD2VEC: (
    "word2vec", ("POS tagging", "supersenses"),
    "needs word2vec vectors and the POS/supersense label sets, not available offline here")}
CHECKS = SETUP_CHECKS + APPENDIX_CHECKS + tuple(NOT_RUN)
#: The claim, declared once (:class:`~anisotropy.claims.declaration.ClaimDeclaration`).
DECLARATION = ClaimDeclaration(
    slug=SLUG,
    title="5. Isotropy vs clusters (Mickus et al. 2024)",
    short="5. classifiers", references="claim5",
    sources=("Mickus et al. 2024",),
    model_list="glue_models", model_list_checks=("appendix",), checks=CHECKS,
    # seconds in a cold full book (553059f, 2-core AMD EPYC Zen 4, two jobs at a time,
    # November 2026): the workflow starts costly claims first
    cost=734)
FINDINGS = (CLASSES_COLLAPSE, SEED_SPREAD)
SETUP_NAMES = {"polarity": "polarity", "snli": "SNLI"}
#: Half-samples of the items behind the IsoScore and silhouette changes' intervals.
ITEM_DRAWS = 40


# --------------------------------------------------------------------------- measurements
class EncoderPool:
    """Each encoder loaded once (``load``, the registry's by default) and reported to
    ``on_model`` (the results' ``add_model``).

    Not :func:`~anisotropy.claims.base.each_model`, which loads a model per pass and lets
    it go: the claim's setups are (task, model) pairs and one encoder serves several (both
    main setups run ``settings.model``; each of the appendix's ``glue_models``, that model
    among them by default, runs every GLUE task), so the pool caches each encoder across
    the setups and loads it once.

    Parameters
    ----------
    settings : Settings
        The claim's parameters: their ``device`` and ``dtype`` are read
        (:func:`~anisotropy.claims.base.load_model`).
    on_model : callable or None, optional
        Called with each encoder when it is loaded (the results' ``add_model``); None
        (default) reports nothing.
    load : callable or None, optional
        Loads a model by name (a fake in tests); None (default):
        :func:`anisotropy.inputs.models.load`.
    """

    def __init__(self, settings: Settings, on_model=None, load=None):
        self.settings, self.on_model, self.load = settings, on_model, load
        self.encoders: dict = {}

    def __call__(self, name: str):
        """The encoder ``name``, loaded and reported on the first call only.

        Parameters
        ----------
        name : str
            A model of the registry (``anisotropy models``).

        Returns
        -------
        Encoder
            The same encoder at every call with ``name``.
        """
        if name not in self.encoders:
            self.encoders[name] = load_model(name, self.settings, on_model=self.on_model,
                                             load=self.load)
        return self.encoders[name]


@dataclass
class Setup:
    """One trained setup: the stacked trajectories of every seed (columns ``seed, update,
    isoscore, silhouette, accuracy, ...``), the task's size and, for the main setups, every
    check's :class:`~anisotropy.claims.base.CheckValue` (measured, Interval, details).

    Attributes
    ----------
    task : str
        The classification task (:func:`setup_task`).
    model : str
        The encoder's name.
    trajectory : pandas.DataFrame
        The recorded updates of every initialisation on run 0's items
        (:attr:`~anisotropy.claims.classifier_geometry.classifier.SeedRuns.trajectory`).
    n_items : int
        The task's ``n_items`` (:func:`setup_task`).
    n_points : int
        The task's number of sentences (the points trained).
    checks : dict of str to CheckValue
        ``{check id: CheckValue}``; empty (default) until :func:`measure_setups` fills it.
    item_changes : pandas.DataFrame or None
        The half-sample draws of the first seed's changes of IsoScore and silhouette
        (:func:`~anisotropy.claims.classifier_geometry.classifier.item_change_draws`), or
        None (default).
    subset_changes : pandas.DataFrame or None
        Columns ``isoscore`` and ``silhouette``: the change of run 0's first seed, then one
        row per run whose subset differs from run 0's; or None (default).
    ranks : pandas.DataFrame or None
        Every initialisation's rank series
        (:attr:`~anisotropy.claims.classifier_geometry.classifier.SeedRuns.ranks`), or None
        (default).
    """

    task: str
    model: str
    trajectory: object
    n_items: int
    n_points: int
    checks: dict = field(default_factory=dict)
    item_changes: object = None
    subset_changes: object = None
    ranks: object = None


def _train_seeds(settings: Settings, encoder, task_name: str, model_name: str, seed: int,
                 task: dict, n_seeds: int, ranks: int | bool | None = False, *, updates: int,
                 bias: bool, every: int, sample: int | None) -> tuple:
    """``(X, runs)`` of :func:`run_setup`: ``task``'s sentences encoded by ``encoder``
    (mean-pooled, normalised) and ``n_seeds`` initialisations of the linear classifier
    trained on them (:func:`~anisotropy.claims.classifier_geometry.classifier.run_seeds`,
    from ``seed`` and the training stream ``claim5/TASK/MODEL``), with the rank series of
    ``ranks`` (False: none)."""
    X = encoder.encode_sentences(task["sentences"], pooling="mean", normalize=True)
    return X, run_seeds(X, task, n_updates=updates, n_seeds=n_seeds, seed=seed,
                        train_seed=settings.train_stream(f"claim5/{task_name}/{model_name}"),
                        bias=bias, metric_every=every, metric_sample=sample,
                        desc=f"{task_name}/{model_name.split('/')[-1]}",
                        rank_sample=ranks)


def _items_share(train, X: np.ndarray, seed_runs, task: dict, reruns: list[dict], *,
                 item_draws: int, seed: int, sample: int | None) -> tuple:
    """``(item_changes, subset_changes)`` of :func:`run_setup`, what carries the items into
    the change intervals: with ``reruns`` whose subsets differ from run 0's ``task``, each
    trains the first initialisation again on its own subset (``train(task, 1)``), and the
    changes of IsoScore and silhouette of run 0's first seed and of those runs are
    ``subset_changes``; else, with ``item_draws``, the half-sample draws of the first
    seed's changes (:func:`~anisotropy.claims.classifier_geometry.classifier.item_change_draws`,
    stream ``items`` under ``seed``) are ``item_changes``; the other is None (both without
    either)."""
    trajectory = seed_runs.trajectory
    subsets = [t for t in reruns if t["sentences"] != task["sentences"]]
    changes = subset_changes = None
    if subsets:
        def change(t: pd.DataFrame) -> dict:
            first, last = t[t["update"] == 0].iloc[0], t[t["update"] == t["update"].max()].iloc[0]
            return {m: float(last[m] - first[m]) for m in ("isoscore", "silhouette")}

        subset_changes = pd.DataFrame(
            [change(trajectory[trajectory["seed"] == 0])]
            + [change(train(t, 1)[1].trajectory) for t in subsets])
    elif item_draws:
        changes = item_change_draws(X, seed_runs.finals[0], task, item_draws,
                                    stream_seed(seed, "items"), limit=sample)
    return changes, subset_changes


def run_setup(settings: Settings, encoders: EncoderPool, task_name: str, model_name: str, *,
              updates: int, max_items: int | None, every: int, sample: int | None,
              bias: bool, seeds: int, item_draws: int = 0, runs: range = range(1),
              rank_sample: int | bool | None = False) -> Setup:
    """Train the linear classifier of one (task, encoder) setup from ``seeds``
    initialisations (:func:`~anisotropy.claims.classifier_geometry.classifier.run_seeds`) on
    the items of run 0.

    A rerun with another seed draws other items when the task is a subset, and trains on
    them: with ``runs`` (:func:`setup_runs`) whose subsets differ, runs 1 .. R-1 each train
    the first initialisation again on their own subset, and the changes of IsoScore and
    silhouette of all R runs (``Setup.subset_changes``) give the items' share of the
    interval. With one shared sample and ``item_draws``, the half-sample draws of those
    changes, from the first seed
    (:func:`~anisotropy.claims.classifier_geometry.classifier.item_change_draws`), carry the
    items instead. With ``rank_sample`` (not False), each initialisation also records its
    every-update :class:`~anisotropy.claims.classifier_geometry.classifier.RankSeries`
    (``Setup.ranks``).

    Parameters
    ----------
    settings : Settings
        The claim's parameters: its ``seed`` (the setup's seed is the stream
        ``claim5/TASK/MODEL`` under it) and its training stream of the same name
        (:meth:`~anisotropy.inputs.settings.ClaimSettings.train_stream`) are read.
    encoders : EncoderPool
        Loads ``model_name`` once; the classifier starts from its mean-pooled, normalised
        sentence vectors.
    task_name : str
        The classification task (:func:`setup_task`).
    model_name : str
        The encoder's name.
    updates : int
        Full-batch updates of each initialisation.
    max_items : int or None
        Items of each run's seeded subset (:func:`setup_task`); None keeps every item.
    every : int
        Record the metrics at update 0 and every ``every`` updates.
    sample : int or None
        Compute the metrics on a fresh random sample of this many points when there are
        more; None: on every point.
    bias : bool
        Whether the linear classifier has a bias.
    seeds : int
        Classifier initialisations trained on run 0's items.
    item_draws : int, optional
        Half-sample draws of the first seed's changes when no other subset differs from
        run 0's; default 0: none.
    runs : range, optional
        The item subsets (:func:`setup_runs`); default ``range(1)``, run 0's only.
    rank_sample : int, None or False, optional
        As ``rank_sample`` of
        :func:`~anisotropy.claims.classifier_geometry.classifier.run_seeds`: an int, a
        sample of that many points; None, every point; False (the default), no rank series.

    Returns
    -------
    Setup
        The trajectory of the ``seeds`` initialisations on run 0's items, the task's
        ``n_items`` and its number of sentences (``n_points``), ``item_changes`` (the
        half-sample draws, or None), ``subset_changes`` (columns ``isoscore`` and
        ``silhouette``: the change of run 0's first seed, then one row per run whose subset
        differs from run 0's; or None) and ``ranks`` (or None). Its ``checks`` are left
        empty (:func:`measure_setups` fills them).
    """
    encoder = encoders(model_name)
    seed = stream_seed(settings.seed, f"claim5/{task_name}/{model_name}")
    train = partial(_train_seeds, settings, encoder, task_name, model_name, seed,
                    updates=updates, bias=bias, every=every, sample=sample)
    tasks_ = [setup_task(settings, task_name, max_items, run) for run in runs]
    task = tasks_[0]
    X, seed_runs = train(task, seeds, rank_sample)
    changes, subset_changes = _items_share(train, X, seed_runs, task, tasks_[1:],
                                           item_draws=item_draws, seed=seed, sample=sample)
    return Setup(task_name, model_name, seed_runs.trajectory, task["n_items"],
                 len(task["sentences"]), item_changes=changes, subset_changes=subset_changes,
                 ranks=seed_runs.ranks)


def measure_setups(settings: Settings, encoders: EncoderPool) -> dict[str, Setup]:
    """Setups (i) polarity (no bias, as the paper) and (ii) SNLI on the paper's encoder,
    with every setup check measured.

    Parameters
    ----------
    settings : Settings
        The claim's parameters: ``model``, ``n_items``, ``n_updates``, ``metric_every``,
        ``n_seeds`` and ``rank_sample`` are read (the metrics on every point).
    encoders : EncoderPool
        Each encoder, loaded once.

    Returns
    -------
    dict of str to Setup
        ``{"polarity": Setup, "SNLI": Setup}`` (:func:`run_setup`), each with its
        ``checks`` (:func:`~anisotropy.claims.classifier_geometry.classifier.check_values`:
        ``{check id: CheckValue}``: measured, Interval, details).
    """
    s = settings
    out = {}
    for task_name, name in SETUP_NAMES.items():
        setup = run_setup(s, encoders, task_name, s.model, updates=s.n_updates,
                          max_items=s.n_items, every=s.metric_every, sample=None,
                          bias=task_name != "polarity", seeds=s.n_seeds,
                          item_draws=ITEM_DRAWS, runs=setup_runs(s),
                          rank_sample=s.rank_sample if s.rank_sample is not None else False)
        setup.checks = check_values(setup.trajectory, setup.item_changes,
                                    setup.subset_changes, setup.ranks)
        out[name] = setup
    return out


def appendix_label(task_name: str) -> str:
    """An appendix task's label: SNLI is scored on its validation set.

    Parameters
    ----------
    task_name : str
        A classification task (``"cola"``, ``"snli"``, ...).

    Returns
    -------
    str
        ``"snli (validation)"`` for ``"snli"``, any other name as it is.
    """
    return f"{task_name} (validation)" if task_name == "snli" else task_name


def measure_appendix(settings: Settings, encoders: EncoderPool) -> dict[str, Setup]:
    """The appendix: every (appendix encoder, task) setup, keyed ``"model/label"``.

    Parameters
    ----------
    settings : Settings
        The claim's parameters: ``glue_models``, ``glue_tasks``, ``glue_updates``,
        ``glue_max_items``, ``glue_metric_every``, ``glue_metric_sample`` and
        ``glue_seeds`` are read (every classifier with a bias).
    encoders : EncoderPool
        Each encoder, loaded once.

    Returns
    -------
    dict of str to Setup
        One :func:`run_setup` per model of ``glue_models`` and task of ``glue_tasks`` (in
        that order), keyed ``"MODEL/LABEL"``: the model's name after its last ``/`` and
        :func:`appendix_label` of the task. Their ``checks`` are empty.
    """
    s = settings
    out = {}
    for model_name in s.glue_models:
        for task_name in s.glue_tasks:
            setup = run_setup(s, encoders, task_name, model_name, updates=s.glue_updates,
                              max_items=s.glue_max_items, every=s.glue_metric_every,
                              sample=s.glue_metric_sample, bias=True, seeds=s.glue_seeds)
            out[f"{model_name.split('/')[-1]}/{appendix_label(task_name)}"] = setup
    return out


def appendix_intervals(appendix: dict[str, Setup]) -> dict:
    """Each appendix setup's mean Pearson r over seeds, as a t-interval over seeds.

    Parameters
    ----------
    appendix : dict of str to Setup
        The appendix setups (:func:`measure_appendix`).

    Returns
    -------
    dict of str to Interval
        Per key of ``appendix``: the t-interval
        (:func:`~anisotropy.geometry.intervals.seed_interval`) of the mean over seeds of
        each seed's Pearson r between its IsoScore and silhouette series.
    """

    return {key: seed_interval(np.array([trajectory_correlations(t)["pearson"]
                                         for _, t in setup.trajectory.groupby("seed")]))
            for key, setup in appendix.items()}


def appendix_rows(appendix: dict[str, Setup]) -> list[dict]:
    """One row per appendix setup: model, task, items, points, mean and worst-seed Pearson
    r, Spearman rho, IsoScore and silhouette at the start and the end.

    Parameters
    ----------
    appendix : dict of str to Setup
        The appendix setups (:func:`measure_appendix`).

    Returns
    -------
    list of dict
        In the order of ``appendix``: ``model`` (its short name), ``task``
        (:func:`appendix_label`), ``items``, ``points``, ``Pearson r`` (mean over seeds),
        ``Pearson r (worst seed)`` (the largest over seeds), ``Spearman rho`` (mean),
        ``IsoScore start``, ``IsoScore end``, ``silhouette start`` and ``silhouette end``
        (means over seeds at the first and the last update), from
        :func:`~anisotropy.claims.classifier_geometry.classifier.setup_summary`.
    """
    rows = []
    for setup in appendix.values():
        summary = setup_summary(setup.trajectory)
        rows.append({"model": short_name(setup.model), "task": appendix_label(setup.task),
                     "items": setup.n_items, "points": setup.n_points,
                     "Pearson r": summary["Pearson r (mean)"],
                     "Pearson r (worst seed)": summary["Pearson r (worst seed)"],
                     "Spearman rho": summary["Spearman rho (mean)"],
                     **{k: summary[k] for k in ("IsoScore start", "IsoScore end",
                                                "silhouette start", "silhouette end")}})
    return rows


def grade(results, setups: dict[str, Setup], appendix: dict[str, Setup]) -> None:
    """Record every check of :data:`CHECKS`: each setup's checks on the paper's encoder,
    the word2vec checks as not run, and the appendix's least negative mean r over its
    non-SNLI setups.

    Parameters
    ----------
    results : Results
        The claim's results, where the checks are recorded.
    setups : dict of str to Setup
        The main setups with their checks (:func:`measure_setups`); a check of
        :data:`SETUP_CHECKS` a setup lacks is not recorded, those of :data:`FINDINGS` are
        recorded as findings (their interval over seeds in the details).
    appendix : dict of str to Setup
        The appendix setups (:func:`measure_appendix`). Only those
        :func:`appendix_graded` accepts are graded: the least negative mean r among them,
        with the :func:`~anisotropy.geometry.intervals.interval_of_max` of their
        :func:`appendix_intervals`; the others are shown in the details. With none graded,
        ``appendix-anticorrelation`` is recorded as not run; with an empty ``appendix``, it
        is not recorded.
    """
    for name, setup in setups.items():
        measured = [check for check in SETUP_CHECKS if check in setup.checks]
        record_checks(results, setup.model, setup.checks,
                      [c for c in measured if c not in FINDINGS],
                      [c for c in measured if c in FINDINGS], model_kind="encoder",
                      subject=name, finding_interval="95% interval over seeds",
                      order=measured)
    for check, (model, subjects, why) in NOT_RUN.items():
        for subject in subjects:
            results.not_run(check, model, why, subject=subject)
    if not appendix:
        return
    graded_keys = [k for k, setup in appendix.items() if appendix_graded(setup)]
    shown = {key: row["Pearson r"] for key, row in zip(appendix, appendix_rows(appendix),
                                                       strict=True)}
    if not graded_keys:
        results.not_run(APPENDIX_ANTICORRELATION, ", ".join(
            dict.fromkeys(setup.model for setup in appendix.values())),
            "no appendix setup pairs one of the paper's SBERT encoders with a GLUE task")
        return
    worst = max(graded_keys, key=lambda k: shown[k])
    intervals = appendix_intervals(appendix)
    models = ", ".join(dict.fromkeys(appendix[k].model for k in graded_keys))
    results.grade(APPENDIX_ANTICORRELATION, models, float(shown[worst]),
                  interval_of_max([intervals[k] for k in graded_keys],
                                  "(SBERT model, GLUE task) setups"),
                  model_kind="encoder",
                  details={"least negative setup": worst,
                           **{k: shown[k] for k in graded_keys},
                           "shown, not graded": {k: v for k, v in shown.items()
                                                 if k not in graded_keys}})


def appendix_graded(setup: Setup) -> bool:
    """Whether an appendix setup is graded: one of the paper's appendix encoders
    (``claim5/appendix_models``, SBERT models) on a GLUE task (SNLI is not in the paper's
    appendix). Other models, a decoder such as Gemma, are shown beside them.

    Parameters
    ----------
    setup : Setup
        An appendix setup (:func:`measure_appendix`).

    Returns
    -------
    bool
        True when the short name of ``setup.model`` is one of the paper's appendix models'
        and ``setup.task`` is not ``"snli"``.
    """
    return (short_name(setup.model) in {short_name(m) for m in reference_value(
        "claim5/appendix_models")} and setup.task != "snli")


def limit_cases(settings: Settings, dim: int = 384):
    """IsoScore and silhouette of two limits of ``settings.limit_points`` points: two
    collapsed classes, and an isotropic Gaussian with random labels (one seeded stream).

    Parameters
    ----------
    settings : Settings
        The claim's parameters: ``limit_points`` and ``seed`` (the stream
        ``claim5/limit-cases`` under it) are read.
    dim : int, optional
        Dimension of both point sets; default 384.

    Returns
    -------
    pandas.DataFrame
        Columns ``IsoScore`` and ``silhouette``, rows ``collapsed classes`` (each point its
        class's standard-normal centre plus noise of standard deviation 1e-3) and
        ``isotropic Gaussian`` (standard-normal points); both sets take the same random
        labels, two classes drawn uniformly.
    """
    n_points = settings.limit_points
    rng = stream(settings.seed, "claim5/limit-cases")
    labels = rng.integers(0, 2, size=n_points)
    centres = rng.normal(size=(2, dim))
    collapsed = centres[labels] + 1e-3 * rng.normal(size=(n_points, dim))
    gaussian = rng.normal(size=(n_points, dim))
    return pd.DataFrame({
        "IsoScore": [metrics.isoscore(collapsed), metrics.isoscore(gaussian)],
        "silhouette": [metrics.silhouette(collapsed, labels),
                       metrics.silhouette(gaussian, labels)],
    }, index=["collapsed classes", "isotropic Gaussian"])
