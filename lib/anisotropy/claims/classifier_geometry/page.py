"""Claim 5's page: its tables, glued sentences and figures, from the setups of
:mod:`anisotropy.claims.classifier_geometry.claim` and the paper's values (claim5)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from anisotropy.claims.classifier_geometry.claim import appendix_label
from anisotropy.claims.classifier_geometry.classifier import setup_summary
from anisotropy.claims.classifier_geometry.ids import ANTICORRELATION
from anisotropy.inputs import tasks as task_registry
from anisotropy.inputs.models import ALIASES
from anisotropy.report import plotting
from anisotropy.report.results import reference

__all__ = ["every_text", "protocol_texts", "setups_table", "setup_texts", "curves",
           "trajectory_figure", "scatter_figure", "appendix_figure", "appendix_texts"]

COLORS = {"isoscore": ("#d95f02", "IsoScore"), "silhouette": ("#1b9e77", "silhouette"),
          "accuracy": ("#999999", "training accuracy")}


def every_text(every: int) -> str:
    """How often metrics were recorded, in words.

    Parameters
    ----------
    every : int
        The metrics were recorded every ``every`` updates.

    Returns
    -------
    str
        ``"every update"`` for 1, else ``"every N updates"``.
    """
    return "every update" if every == 1 else f"every {every} updates"


def protocol_texts(settings) -> dict:
    """The paper's protocol beside this run's, for the setups section's prose.

    Parameters
    ----------
    settings : Settings
        Claim 5's parameters (:class:`anisotropy.claims.classifier_geometry.claim.Settings`).

    Returns
    -------
    dict
        The page's glued texts: ``paper_params_polarity`` and ``paper_params_snli`` (the
        paper's trained parameters), ``paper_n_polarity``, ``paper_updates``,
        ``paper_metric_sample``, ``glue_max_items_text``, ``metric_every_text``,
        ``rank_series_text`` and ``appendix_protocol`` (str, numbers with thousands
        separators), and ``n_seeds`` (int).
    """
    paper = reference("claim5")
    counts = paper["parameter_counts"]
    return {"paper_params_polarity": f"{counts['polarity']:,}",
            "paper_params_snli": f"{counts['SNLI']:,}",
            "paper_n_polarity": f"{paper['n_items']['polarity']:,}",
            "paper_updates": f"{paper['updates']['main']:,}",
            "paper_metric_sample": "whose size the seed's text lost"
            if paper["metric_sample"] is None else f"{paper['metric_sample']:,} points each",
            "glue_max_items_text": "every item" if settings.glue_max_items is None
            else f"{settings.glue_max_items:,}",
            "metric_every_text": every_text(settings.metric_every),
            "rank_series_text": (
                f"after every update on a fixed sample of {settings.rank_sample:,} points "
                "(pairs, for SNLI's silhouette) per initialization, drawn anew for each, or "
                "every point of a smaller set" if settings.rank_sample is not None else
                f"from the updates recorded {every_text(settings.metric_every)}, on every "
                "point"),
            "n_seeds": settings.n_seeds,
            "appendix_protocol": f"{settings.glue_updates:,} updates and {settings.glue_seeds} "
                                 "classifier initializations, metrics recorded at update 0 and "
                                 f"{every_text(settings.glue_metric_every)}"}


def setups_table(setups: dict) -> pd.DataFrame:
    """One column per setup: its summary over seeds and the paper's Pearson r.

    Parameters
    ----------
    setups : dict of str to Setup
        The main setups, keyed ``"polarity"`` and ``"SNLI"``
        (:func:`anisotropy.claims.classifier_geometry.claim.measure_setups`).

    Returns
    -------
    pandas.DataFrame
        One row per setup, indexed ``setup`` (the page shows the transpose, one column per
        setup): the columns of
        :func:`~anisotropy.claims.classifier_geometry.classifier.setup_summary` (its
        correlations named ``..., recorded series``: every point, every ``metric_every``
        updates), ``Pearson r, every update (mean)`` (the graded ``anticorrelation``, from
        the setup's checks) and ``paper Pearson r`` (polarity's for ``"polarity"``, SNLI's
        for any other setup).
    """
    paper = reference("claim5")["pearson"]
    recorded = {"Pearson r (mean)": "Pearson r, recorded series (mean)",
                "Pearson r (worst seed)": "Pearson r, recorded series (worst seed)",
                "Spearman rho (mean)": "Spearman rho, recorded series (mean)"}
    return pd.DataFrame([{"setup": name,
                          "Pearson r, every update (mean)": setup.checks[ANTICORRELATION].value,
                          **{recorded.get(k, k): v
                             for k, v in setup_summary(setup.trajectory).items()},
                          "paper Pearson r": paper["polarity" if name == "polarity" else "SNLI"]}
                         for name, setup in setups.items()]).set_index("setup")


def curves(setups: dict, columns=("isoscore", "silhouette", "accuracy")) -> dict:
    """Each setup's mean curves over seeds, by update (for the results file).

    Parameters
    ----------
    setups : dict of str to Setup
        The setups, by name.
    columns : sequence of str, optional
        The trajectory's columns averaged; default ``("isoscore", "silhouette",
        "accuracy")``.

    Returns
    -------
    dict of str to pandas.DataFrame
        Per setup: the mean over seeds of each column, indexed by ``update``.
    """
    return {name: setup.trajectory.groupby("update")[list(columns)].mean()
            for name, setup in setups.items()}


def setup_texts(setups: dict, summary: pd.DataFrame) -> dict:
    """Measured and paper r, seconds per seed, and when training accuracy reaches 1.

    Parameters
    ----------
    setups : dict of str to Setup
        The main setups, keyed ``"polarity"`` and ``"SNLI"``.
    summary : pandas.DataFrame
        :func:`setups_table` of ``setups`` (one row per setup).

    Returns
    -------
    dict
        The page's glued values: ``r_polarity`` and ``r_snli`` (mean Pearson r of the
        every-update series, the graded value),
        ``paper_r_polarity`` and ``paper_r_snli``, ``sec_polarity`` (seconds per seed of
        polarity), and ``accuracy_text``: per setup, the first recorded update at which the
        mean training accuracy over seeds reaches 1, or its last value when it never does.
    """
    paper = reference("claim5")["pearson"]
    accuracy = {name: curve["accuracy"] for name, curve in curves(setups).items()}
    full = {name: curve[curve >= 1.0].index.min() for name, curve in accuracy.items()}
    return {"r_polarity": summary.loc["polarity", "Pearson r, every update (mean)"],
            "paper_r_polarity": paper["polarity"], "paper_r_snli": paper["SNLI"],
            "r_snli": summary.loc["SNLI", "Pearson r, every update (mean)"],
            "sec_polarity": summary.loc["polarity", "seconds per seed"],
            "accuracy_text": "; ".join(
                f"{name}: first recorded at update {int(update)}" if pd.notna(update)
                else f"{name}: not within the run (last {curve.iloc[-1]:.1%})"
                for (name, update), curve in zip(full.items(), accuracy.values(),
                                                 strict=True))}


def _band(ax, trajectory: pd.DataFrame, column: str) -> None:
    color, label = COLORS[column]
    stats = trajectory.groupby("update")[column].agg(["mean", "std"]).fillna(0)
    ax.plot(stats.index, stats["mean"], color=color, label=label)
    ax.fill_between(stats.index, stats["mean"] - stats["std"], stats["mean"] + stats["std"],
                    color=color, alpha=0.25)


def trajectory_figure(setups: dict):
    """IsoScore, silhouette and training accuracy over the updates, mean ± std over seeds.

    Parameters
    ----------
    setups : dict of str to Setup
        The main setups; ``"polarity"`` is titled (i), any other (ii).

    Returns
    -------
    matplotlib.figure.Figure
        One panel per setup.
    """
    fig, axes = plt.subplots(1, len(setups), figsize=(5.5 * len(setups), 3.8), squeeze=False)
    for ax, (name, setup) in zip(axes[0], setups.items(), strict=True):
        for column in COLORS:
            _band(ax, setup.trajectory, column)
        ax.set_title(f"({'i' if name == 'polarity' else 'ii'}) {name}, "
                     f"{plotting.short_name(setup.model)}")
        ax.set_xlabel("update")
        ax.set_ylabel("score (mean ± std over seeds)")
        ax.legend()
    fig.suptitle("IsoScore, silhouette and training accuracy over the updates (mean ± std "
                 "over seeds)")
    fig.tight_layout()
    return fig


def scatter_figure(setups: dict, run: int = 0):
    """IsoScore against silhouette along one run (default the first), coloured by update.

    Parameters
    ----------
    setups : dict of str to Setup
        The setups, by name.
    run : int, optional
        The classifier initialisation drawn (the trajectory's ``seed``); default 0.

    Returns
    -------
    matplotlib.figure.Figure
        One panel per setup.
    """
    fig, axes = plt.subplots(1, len(setups), figsize=(5.5 * len(setups), 3.8), squeeze=False)
    for ax, (name, setup) in zip(axes[0], setups.items(), strict=True):
        first = setup.trajectory[setup.trajectory["seed"] == run]
        points = ax.scatter(first["isoscore"], first["silhouette"], c=first["update"], s=10,
                            cmap="viridis")
        ax.set_xlabel("IsoScore")
        ax.set_ylabel("silhouette")
        ax.set_title(f"{name} (run {run})")
        fig.colorbar(points, ax=ax, label="update")
    fig.suptitle("IsoScore against silhouette along one training run, coloured by update")
    fig.tight_layout()
    return fig


def appendix_figure(settings, appendix: dict):
    """Every appendix setup's IsoScore and silhouette curves (models x tasks).

    Parameters
    ----------
    settings : Settings
        Claim 5's parameters: ``glue_models`` (the rows) and ``glue_tasks`` (the columns).
    appendix : dict of str to Setup
        The appendix setups, keyed ``"MODEL/LABEL"``
        (:func:`anisotropy.claims.classifier_geometry.claim.measure_appendix`), one for
        each model and task of ``settings``.

    Returns
    -------
    matplotlib.figure.Figure
        A grid of ``len(glue_models)`` rows by ``len(glue_tasks)`` panels, each the mean ±
        std over seeds of both metrics.
    """
    models, task_names = settings.glue_models, settings.glue_tasks
    fig, axes = plt.subplots(len(models), len(task_names),
                             figsize=(3.4 * len(task_names), 2.8 * len(models)),
                             squeeze=False, sharex=True)
    for i, model_name in enumerate(models):
        for j, task_name in enumerate(task_names):
            ax = axes[i, j]
            label = appendix_label(task_name)
            trajectory = appendix[f"{plotting.short_name(model_name)}/{label}"].trajectory
            _band(ax, trajectory, "isoscore")
            _band(ax, trajectory, "silhouette")
            ax.set_title(f"{plotting.short_name(model_name)}: {label}", fontsize=9)
            if i == len(models) - 1:
                ax.set_xlabel("update")
    axes[0, 0].legend()
    fig.suptitle("GLUE-style appendix: IsoScore and silhouette over the updates (mean ± std "
                 "over seeds)")
    fig.tight_layout()
    return fig


def _names(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def missing_appendix_models(paper_models: list[str], run_models) -> str:
    """One sentence on the paper's appendix models this run leaves out: those that ship
    offline here but are not in ``glue_models``, and those that are not available here.

    Parameters
    ----------
    paper_models : list of str
        The paper's appendix models, by short name (``claim5/appendix_models``).
    run_models : iterable of str
        This run's ``glue_models``; a paper model is run when its name is part of one of
        them.

    Returns
    -------
    str
        ``"This run covers every appendix model of the paper."``, or a sentence naming
        the missing models that are available offline (among
        :data:`anisotropy.inputs.models.ALIASES`) and those that are not.
    """
    missing = [m for m in paper_models if not any(m in g for g in run_models)]
    if not missing:
        return "This run covers every appendix model of the paper."
    skipped = [m for m in missing if m in ALIASES]
    absent = [m for m in missing if m not in ALIASES]
    parts = [f"{_names(group)} {'is' if len(group) == 1 else 'are'} {why}"
             for group, why in ((skipped, "available here but not in this run's `glue_models`"),
                                (absent, "not among the models available offline here"))
             if group]
    return "Of the paper's appendix models, " + "; ".join(parts) + "."


def appendix_texts(settings, intervals: dict, threshold: float) -> dict:
    """The appendix section's prose numbers: which paper model is missing, the sizes of the
    de-duplicated tasks, and how many setups lie wholly below the threshold.

    Parameters
    ----------
    settings : Settings
        Claim 5's parameters: ``glue_models`` and ``glue_tasks`` are read.
    intervals : dict of str to Interval
        Each appendix setup's interval of its mean Pearson r
        (:func:`anisotropy.claims.classifier_geometry.claim.appendix_intervals`).
    threshold : float
        The ``appendix-anticorrelation`` check's threshold: a setup counts when its
        interval's upper end lies below it.

    Returns
    -------
    dict
        The page's glued values: ``appendix_missing`` (:func:`missing_appendix_models`),
        ``appendix_dedup`` (the items of every CoLA and SST-2 task of ``glue_tasks``, each
        task whole, or ``"no CoLA or SST-2 setup"``), ``paper_appendix_items``,
        ``appendix_threshold`` (``threshold``) and ``appendix_count`` (``"k of n"`` over
        every setup of ``intervals``, graded or not).
    """
    paper = reference("claim5")
    n_anti = sum(interval.high < threshold for interval in intervals.values())
    task = task_registry.classification_task
    return {"appendix_missing": missing_appendix_models(paper["appendix_models"],
                                                        settings.glue_models),
            "appendix_dedup": ", ".join(
                f"{name}: {task(name, None)['n_items']:,}"
                for name in settings.glue_tasks if name in ("cola", "sst2"))
            or "no CoLA or SST-2 setup",
            "paper_appendix_items": ", ".join(f"{k}: {v:,}" for k, v in
                                              paper["parameter_counts"]["appendix_items"].items()),
            "appendix_threshold": threshold,
            "appendix_count": f"{n_anti} of {len(intervals)}"}
