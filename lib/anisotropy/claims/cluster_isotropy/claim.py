"""Claim 4, cluster-based isotropy (Rajaee & Pilehvar 2021): settings, forward passes,
measurements and checks.

:func:`measure` compares the methods on STS per model (transductive and inductive fits);
:func:`measure_sweep`, :func:`measure_sst2` and :func:`measure_finetuning` add the K x D
sweep, the SST-2 probe and the fine-tuning runs. The ``grade_*`` functions record the
checks of :data:`CHECKS` (declared in ``data/checks.yaml``). The formulas are in
:mod:`anisotropy.claims.cluster_isotropy.methods` and
:mod:`anisotropy.claims.cluster_isotropy.finetuning`; the page is
``notebooks/04-cluster-isotropy.ipynb``, its tables and figures
:mod:`anisotropy.claims.cluster_isotropy.page`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import pandas as pd

from anisotropy.claims.base import CheckValue, each_model, load_model, record_checks
from anisotropy.claims.cluster_isotropy import finetuning as ft
from anisotropy.claims.cluster_isotropy import methods as ci
from anisotropy.claims.cluster_isotropy.ids import (
    BEATS_GLOBAL,
    FINETUNE_ACCURACY_FALLS,
    FINETUNE_CLS_ISOTROPY,
    FINETUNE_CLS_ZERO_MEAN,
    FINETUNE_ISOTROPY_RISES,
    ISOTROPY_BEATS_GLOBAL,
    ISOTROPY_BEATS_GLOBAL_SHARE,
    ISOTROPY_END_STATE,
    ISOTROPY_GAIN,
    SST2_PROBE,
    STS_IMPROVES,
    STS_IMPROVES_EVERY_TASK,
    STS_IMPROVES_PER_TASK,
)
from anisotropy.claims.cluster_isotropy.methods import sst2_probe_data
from anisotropy.claims.declaration import ClaimDeclaration
from anisotropy.geometry.streams import stream_seed
from anisotropy.inputs import corpora
from anisotropy.inputs.corpora import STS_TASKS
from anisotropy.inputs.jobs import FIRST_LAST, LAST, Extraction, jobs
from anisotropy.inputs.resolved import short_name
from anisotropy.inputs.settings import TRANSFORMERS, ClaimSettings, param

SLUG = "04-cluster-isotropy"


@dataclass(frozen=True)
class Settings(ClaimSettings):
    """Claim 4's parameters."""

    slug: ClassVar[str] = SLUG

    models: tuple[str, ...] = param(TRANSFORMERS, "models to measure (`anisotropy models`)")
    tasks: tuple[str, ...] = param(STS_TASKS, "STS tasks (two or more: the inductive fit of "
                                   "each task uses the others)", choices="sts_tasks",
                                   min_items=2)
    n_clusters: int = param(27, "K-means clusters (the authors' code)", min=1)
    n_components: int = param(12, "dominant directions removed per cluster", min=0)
    fit_max_tokens: int = param(10000, "token vectors a transform is fitted on (seeded "
                                "sample)", min=1)
    iso_max_tokens: int = param(20000, "token vectors I(W) and IsoScore are computed on", min=1)
    fits: int = param(5, "fits of the method per STS task behind the isotropy and STS checks' "
                      "intervals (each redraws the fit sample, the K-means start and the "
                      "measured tokens), and of the SST-2 probe (each also resamples the "
                      "training sentences)", min=2)
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
    """The models the claim runs (the fine-tuned model is loaded apart).

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


def sts_corpus(settings: Settings) -> tuple[str, object]:
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
    """The STS sentences (layers 0, 1 and last) and the SST-2 probe's phrases (last layer),
    per model.

    Parameters
    ----------
    settings : Settings
        The claim's parameters.

    Returns
    -------
    list of Extraction
        The token-vector jobs of every model of ``settings.models``: the STS sentences, then
        the SST-2 probe's sentences
        (:func:`~anisotropy.claims.cluster_isotropy.methods.sst2_probe_data`).
    """
    s = settings
    sts = sts_corpus(s)
    return (jobs(s.models, sts[0], "tokens", FIRST_LAST, sts[1])
            + jobs(s.models, f"sst2-probe-{s.sst2_train_items or 'all'}", "tokens", LAST,
                   lambda: sst2_probe_data(s.sst2_train_items,
                                           seed=stream_seed(s.seed, "data"))["sentences"]))


# --------------------------------------------------------------------------- checks
#: Recorded per model from :func:`anisotropy.claims.cluster_isotropy.methods.isotropy_check_values`
#: and :func:`~anisotropy.claims.cluster_isotropy.methods.check_values`; those in
#: :data:`STS_FINDINGS` as findings, the others graded.
STS_CHECKS = (ISOTROPY_GAIN, ISOTROPY_END_STATE, ISOTROPY_BEATS_GLOBAL,
              ISOTROPY_BEATS_GLOBAL_SHARE, STS_IMPROVES, BEATS_GLOBAL)
#: The magnitudes that depend on where a model starts (``data/checks.yaml`` says why).
STS_FINDINGS = (ISOTROPY_GAIN, ISOTROPY_BEATS_GLOBAL_SHARE)
#: Fine-tuning checks, each read from the column of the runs' check values.
FINETUNE_CHECKS = {FINETUNE_ACCURACY_FALLS: "accuracy", FINETUNE_ISOTROPY_RISES: "log10_iw",
                   FINETUNE_CLS_ISOTROPY: "log10_iw_cls"}
CHECKS = (*STS_CHECKS, STS_IMPROVES_EVERY_TASK, STS_IMPROVES_PER_TASK, SST2_PROBE,
          *FINETUNE_CHECKS, FINETUNE_CLS_ZERO_MEAN)
#: The claim, declared once (:class:`~anisotropy.claims.declaration.ClaimDeclaration`).
DECLARATION = ClaimDeclaration(
    slug=SLUG,
    title="4. Cluster-based isotropy (Rajaee & Pilehvar 2021)",
    short="4. cluster isotropy", references="claim4",
    sources=("Rajaee & Pilehvar 2021",),
    model_list="models", checks=CHECKS,
    # seconds in a cold full book (553059f, 2-core AMD EPYC Zen 4, two jobs at a time,
    # November 2026): the workflow starts costly claims first
    cost=763)
FINETUNE_NAMES = {"rte": "RTE", "wic": "WiC"}
#: The inductive fit's facts per task (kept apart from the scores).
FIT_COLUMNS = ["fit pool", "fit sentences", "excluded shared", "fit overlap"]
NOT_FINETUNED = ("the fine-tuning runs are not part of this profile (finetune_tasks is "
                 "empty); the paper profile runs them")


def eval_tasks(settings: Settings) -> list[str]:
    """The STS tasks scored (STS-B's dev split is the authors' own configuration).

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


# --------------------------------------------------------------------------- measurements
@dataclass
class ModelComparison:
    """The methods on STS for one model: its last-layer token vectors, every (mode, task,
    method) row (``comparison``, with the inductive fit's facts) and the transductive
    per-pair scores behind the paired bootstraps.

    Attributes
    ----------
    name : str
        The model's name.
    kind : str
        ``"encoder"`` or ``"decoder"``.
    encoder : Encoder
        The loaded model.
    tokens : TokenEmbeddings
        The STS sentences' token vectors at layers 0, 1 and the last.
    exclude : tuple of int
        The positions left out (``(0,)``: a decoder's, unless ``include_sink``).
    comparison : pandas.DataFrame
        One row per (mode, task, method), both modes, with the model's short name.
    pair_scores : dict
        Each pair's cosine under ``(task, method)`` and the gold scores under
        ``(task, "gold")``, transductive; default empty.
    fits : pandas.DataFrame or None
        The isotropy fits on the scored tasks
        (:func:`~anisotropy.claims.cluster_isotropy.methods.isotropy_fits`), with the
        model's short name; default None.
    """

    name: str
    kind: str
    encoder: object
    tokens: object
    exclude: tuple
    comparison: object
    pair_scores: dict = field(default_factory=dict)
    fits: object = None

    @property
    def decoder(self) -> bool:
        """Whether the model is a decoder."""
        return self.kind == "decoder"


def measure(settings: Settings, sentences: list[str], *, on_model=None,
            load=None) -> dict[str, ModelComparison]:
    """Every method on every STS task, fitted on the evaluation sentences (transductive)
    and on other sentences (inductive), per model.

    Parameters
    ----------
    settings : Settings
        The claim's parameters.
    sentences : list of str
        The tasks' distinct sentences (:func:`sts_corpus`).
    on_model : callable, optional
        Called with each model once it is loaded (the results' ``add_model``); None reports
        nothing.
    load : callable, optional
        Loads a model by name (``load(name, device=..., dtype=...)``); None:
        :func:`anisotropy.inputs.models.load`.

    Returns
    -------
    dict of str to ModelComparison
        Per model of ``settings.models``: the comparison of both modes on every task of
        ``settings.tasks``, the transductive pair scores and the isotropy fits
        (:func:`~anisotropy.claims.cluster_isotropy.methods.isotropy_fits`) on the scored
        tasks (:func:`eval_tasks`).
    """
    s = settings
    out = {}
    for name, encoder in zip(s.models, each_model(s, on_model=on_model, load=load),
                             strict=True):
        kind = encoder.resolved.kind
        exclude = (0,) if kind == "decoder" and not s.include_sink else ()
        tokens = encoder.encode_tokens(sentences, layers=[0, 1, encoder.n_layers])
        pair_scores: dict = {}
        tables = [ci.evaluate_methods(
            tokens, encoder.n_layers, sentences, s.tasks, mode=mode, n_clusters=s.n_clusters,
            n_components=s.n_components, seed=stream_seed(s.seed, "claim4/methods"),
            data_seed=stream_seed(s.seed, "data"), exclude_positions=exclude,
            fit_max_tokens=s.fit_max_tokens, iso_max_tokens=s.iso_max_tokens,
            max_pairs=s.max_pairs, pair_scores=pair_scores if mode == "transductive" else None,
            train_seed=s.train_stream("claim4/methods"))
            for mode in ("transductive", "inductive")]
        comparison = pd.concat(tables, ignore_index=True).assign(model=short_name(name))
        fits = ci.isotropy_fits(
            tokens, encoder.n_layers, sentences, eval_tasks(s), fits=s.fits,
            comparison=comparison, n_clusters=s.n_clusters, n_components=s.n_components,
            seed=stream_seed(s.seed, "claim4/methods"), exclude_positions=exclude,
            fit_max_tokens=s.fit_max_tokens, iso_max_tokens=s.iso_max_tokens,
            max_pairs=s.max_pairs, data_seed=stream_seed(s.seed, "data"),
            train_seed=s.train_stream("claim4/methods"))
        out[name] = ModelComparison(name, kind, encoder, tokens, exclude, comparison,
                                    pair_scores, fits.assign(model=short_name(name)))
    return out


def grade_sts(results, settings: Settings, measured: dict[str, ModelComparison]) -> None:
    """The STS checks per model (the isotropy end state and the direction against the
    global methods, the Spearman change, the best global method; the isotropy shares as
    findings), then the Spearman change per task.

    Parameters
    ----------
    results : Results
        The claim's results, where the checks are recorded.
    settings : Settings
        The claim's parameters.
    measured : dict of str to ModelComparison
        The comparisons per model (:func:`measure`).
    """
    tasks = eval_tasks(settings)
    for name, m in measured.items():
        scores = m.comparison.drop(columns=FIT_COLUMNS)
        values = {**ci.isotropy_check_values(m.fits, tasks),
                  **ci.check_values(scores, m.pair_scores, tasks, n_boot=settings.n_boot,
                                    seed=stream_seed(settings.seed, "claim4/sts"),
                                    fits=m.fits)}
        record_checks(results, name, values, [c for c in values if c not in STS_FINDINGS],
                      [c for c in values if c in STS_FINDINGS], model_kind=m.kind,
                      finding_interval="95% interval over fits", order=list(values))
        changes = ci.task_changes(m.pair_scores, tasks, settings.n_boot,
                                  stream_seed(settings.seed, "claim4/sts"), fits=m.fits)
        record_checks(results, name, {STS_IMPROVES_EVERY_TASK: ci.every_task(changes)},
                      [STS_IMPROVES_EVERY_TASK], model_kind=m.kind)
        for task, change in changes.items():
            record_checks(results, name,
                          {STS_IMPROVES_PER_TASK: CheckValue(change.value, change.interval)},
                          [], [STS_IMPROVES_PER_TASK], model_kind=m.kind, subject=task,
                          finding_interval="95% interval", finding_method=True)


def measure_sweep(settings: Settings, measured: dict[str, ModelComparison],
                  sentences: list[str]):
    """K-means+Mean+PCA on the sweep task over every (K, D), transductive, per model.

    Parameters
    ----------
    settings : Settings
        The claim's parameters: ``sweep_task``, ``sweep_clusters`` and
        ``sweep_components``.
    measured : dict of str to ModelComparison
        The comparisons per model (:func:`measure`): their token vectors are swept.
    sentences : list of str
        The STS sentences of the token vectors (:func:`sts_corpus`).

    Returns
    -------
    pandas.DataFrame
        The rows of :func:`~anisotropy.claims.cluster_isotropy.methods.sweep` of every
        model, one per (model, K, D), with a ``model`` column (the short name).
    """
    s = settings
    return pd.concat([ci.sweep(m.tokens, m.encoder.n_layers, sentences, s.sweep_task,
                               s.sweep_clusters, s.sweep_components,
                               seed=stream_seed(s.seed, "claim4/sweep"),
                               data_seed=stream_seed(s.seed, "data"),
                               exclude_positions=m.exclude, fit_max_tokens=s.fit_max_tokens,
                               iso_max_tokens=s.iso_max_tokens, max_pairs=s.max_pairs,
                               train_seed=s.train_stream("claim4/sweep"))
                      .assign(model=short_name(name)) for name, m in measured.items()],
                     ignore_index=True)


@dataclass(frozen=True)
class SST2Probe:
    """One model's SST-2 probe (:func:`measure_sst2`).

    Attributes
    ----------
    table : pandas.DataFrame
        One row per method (the Baseline and K-means+Mean+PCA): ``method``, ``dev
        accuracy`` (%) and ``log10 I(W) dev tokens``.
    check : CheckValue
        The ``sst2-probe`` finding: the accuracy change in points (with refits, the mean
        over the fits), its Interval and its details (the dev sentences and, with refits,
        ``fits``, ``first fit's change`` and ``refit changes``).
    """

    table: pd.DataFrame
    check: CheckValue


def measure_sst2(settings: Settings, measured: dict[str, ModelComparison]) -> tuple:
    """The SST-2 probe per model: ``(probe data, {name: SST2Probe})``.

    Parameters
    ----------
    settings : Settings
        The claim's parameters.
    measured : dict of str to ModelComparison
        The comparisons per model (:func:`measure`): their encoders encode the probe's
        sentences.

    Returns
    -------
    probe : dict
        The probe's sentences and labels
        (:func:`~anisotropy.claims.cluster_isotropy.methods.sst2_probe_data`).
    probes : dict of str to SST2Probe
        Each model's table and check
        (:func:`~anisotropy.claims.cluster_isotropy.methods.sst2_probe`), keyed by model
        name.
    """
    s = settings
    probe = ci.sst2_probe_data(s.sst2_train_items, seed=stream_seed(s.seed, "data"))
    out = {}
    for name, m in measured.items():
        tokens = m.encoder.encode_tokens(probe["sentences"], layers=[m.encoder.n_layers])
        out[name] = SST2Probe(*ci.sst2_probe(
            tokens, m.encoder.n_layers, probe["n_train"], probe["train_labels"],
            probe["dev_labels"], n_clusters=s.n_clusters, n_components=s.n_components,
            seed=stream_seed(s.seed, "claim4/sst2"), exclude_positions=m.exclude,
            fit_max_tokens=s.fit_max_tokens,
            iso_max_tokens=s.iso_max_tokens, n_boot=s.n_boot, refits=s.fits,
            train_seed=s.train_stream("claim4/sst2")))
    return probe, out


def grade_sst2(results, measured: dict[str, ModelComparison],
               probes: dict[str, SST2Probe]) -> None:
    """The SST-2 probe's accuracy change per model, a finding (``data/checks.yaml`` says
    why), its 95% interval and the interval's method in the details.

    Parameters
    ----------
    results : Results
        The claim's results, where the findings are recorded.
    measured : dict of str to ModelComparison
        The comparisons per model (not read).
    probes : dict of str to SST2Probe
        Each model's probe, keyed by model name (:func:`measure_sst2`): its ``check`` is
        recorded.
    """
    for name, probe in probes.items():
        record_checks(results, name, {SST2_PROBE: probe.check}, (), [SST2_PROBE],
                      finding_interval="95% interval", finding_method=True)


def finetune_settings(settings: Settings):
    """The fine-tuning hyper-parameters
    (:class:`~anisotropy.claims.cluster_isotropy.finetuning.FineTuning`).

    Parameters
    ----------
    settings : Settings
        The claim's parameters: its ``finetune_*`` ones.

    Returns
    -------
    FineTuning
        Epochs, batch size, learning rate, max length, K and D from ``settings``; the
        other fields at their defaults.
    """
    s = settings
    return ft.FineTuning(epochs=s.finetune_epochs, batch_size=s.finetune_batch_size,
                         learning_rate=s.finetune_learning_rate,
                         max_length=s.finetune_max_length, n_clusters=s.finetune_clusters,
                         n_components=s.finetune_components)


def release_encoders(measured: dict[str, ModelComparison]) -> None:
    """Free the measured models' weights once their last forward pass (the SST-2 probe) is
    done: the fine-tuning loads its own copy, and with SmolLM2's 540 MB still held the
    binder profile's claim passed its 2 GB budget.

    Parameters
    ----------
    measured : dict of str to ModelComparison
        The comparisons per model (:func:`measure`); each one's encoder is released.
    """
    for comparison in measured.values():
        comparison.encoder.release()


def measure_finetuning(settings: Settings, *, on_model=None, load=None):
    """Fine-tune the model plain and with the method inside, per task and seed (in float32):
    ``(runs, model kind)``, or ``(None, None)`` when ``finetune_tasks`` is empty.

    Parameters
    ----------
    settings : Settings
        The claim's parameters: ``finetune_model`` and the ``finetune_*`` ones.
    on_model : callable, optional
        Called with the model once it is loaded (the results' ``add_model``); None reports
        nothing.
    load : callable, optional
        Loads a model by name (``load(name, device=...)``); None:
        :func:`anisotropy.inputs.models.load`.

    Returns
    -------
    runs : pandas.DataFrame or None
        The rows of :func:`~anisotropy.claims.cluster_isotropy.finetuning.run_seeds` of
        every task of ``finetune_tasks``.
    kind : str or None
        The fine-tuned model's kind (``"encoder"``, ``"decoder"``).
    """
    s = settings
    if not s.finetune_tasks:
        return None, None
    encoder = load_model(s.finetune_model, s, on_model=on_model, load=load, precision=False)
    runs = pd.concat([ft.run_seeds(encoder, task, settings=finetune_settings(s),
                                   n_seeds=s.finetune_seeds, n_train=s.finetune_train_items,
                                   n_dev=s.finetune_dev_items,
                                   seed=stream_seed(s.seed, "claim4/finetune"),
                                   data_seed=stream_seed(s.seed, "data"),
                                   train_seed=s.train_stream("claim4/finetune"))
                      for task in s.finetune_tasks], ignore_index=True)
    return runs, encoder.resolved.kind


def grade_finetuning(results, settings: Settings, runs, kind) -> None:
    """The fine-tuning checks per task (and the CLS zero-mean finding), or all of them as
    not run when the profile runs no fine-tuning.

    Parameters
    ----------
    results : Results
        The claim's results, where the checks are recorded.
    settings : Settings
        The claim's parameters (``finetune_model`` names the model graded).
    runs : pandas.DataFrame or None
        The fine-tuning runs (:func:`measure_finetuning`); None: none were run.
    kind : str or None
        The fine-tuned model's kind (:func:`measure_finetuning`).
    """
    model = settings.finetune_model
    if runs is None:
        for check in (*FINETUNE_CHECKS, FINETUNE_CLS_ZERO_MEAN):
            results.not_run(check, model, NOT_FINETUNED)
        return
    for task, values in ft.check_values(runs).items():
        checks = {check: values[column] for check, column in FINETUNE_CHECKS.items()}
        checks[FINETUNE_CLS_ZERO_MEAN] = CheckValue(values["zero_mean"])
        record_checks(results, model, checks, list(FINETUNE_CHECKS), [FINETUNE_CLS_ZERO_MEAN],
                      model_kind=kind, subject=FINETUNE_NAMES[task])
