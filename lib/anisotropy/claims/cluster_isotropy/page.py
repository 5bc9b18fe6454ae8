"""Claim 4's page: its tables, glued sentences and figures, from the measurements of
:mod:`anisotropy.claims.cluster_isotropy.claim` and the paper's values (claim4)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from anisotropy.claims.cluster_isotropy import methods as ci
from anisotropy.claims.cluster_isotropy.claim import FINETUNE_NAMES, FIT_COLUMNS
from anisotropy.claims.cluster_isotropy.ids import STS_IMPROVES_PER_TASK
from anisotropy.geometry.intervals import seed_interval
from anisotropy.geometry.transforms import ClusterIsotropy
from anisotropy.inputs import tasks
from anisotropy.report import plotting
from anisotropy.report.display import interval_text, sig
from anisotropy.report.results import reference

__all__ = ["setup_texts", "comparison_tables", "facts_table", "per_task_table",
           "authors_table", "average_table", "paper_methods_table", "methods_figure",
           "check_table", "sweep_figure", "sst2_texts", "finetune_texts", "finetune_figure",
           "task_change_table"]


def setup_texts(settings, n_sentences: int) -> dict:
    """The setup section's prose numbers: the sample, the paper's I(W) range, the authors'
    K and D, and the GMM's settings.

    Parameters
    ----------
    settings : Settings
        Claim 4's parameters (:class:`~anisotropy.claims.cluster_isotropy.claim.Settings`).
    n_sentences : int
        The distinct STS sentences encoded.

    Returns
    -------
    dict
        ``pairs_scope``, ``n_sts_sentences``, ``paper_iw_before`` and ``paper_iw_after``
        (the range of the paper's per-task I(W)), ``authors_k``, ``authors_d``,
        ``kmeans_n_init``, ``gmm_settings``, ``iso_tokens`` and ``n_fits``.
    """
    paper = reference("claim4")
    before = [v[2] for v in paper["per_task"]["baseline"].values()]
    after = [v[2] for v in paper["per_task"]["proposed"].values()]
    gmm = ClusterIsotropy.GMM_SETTINGS
    return {"pairs_scope": tasks.sts_scope(settings.tasks, settings.max_pairs),
            "n_sts_sentences": f"{n_sentences:,}",
            "paper_iw_before": f"{min(before):.0e}–{max(before):.0e}",
            "paper_iw_after": f"{min(after):.2f}–{max(after):.2f}",
            "authors_k": paper["authors_notebook"]["n_clusters"],
            "authors_d": paper["authors_notebook"]["n_components"],
            "kmeans_n_init": ci.KMEANS_N_INIT,
            "gmm_settings": f"{gmm['covariance_type']} covariances, a regularisation of "
                            f"{gmm['reg_covar']:g} added to them and at most {gmm['max_iter']} "
                            "EM iterations",
            "iso_tokens": f"{settings.iso_max_tokens:,}",
            "n_fits": settings.fits}


def comparison_tables(measured: dict) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """Every model's (mode, task, method) rows without the fit facts, the inductive fit's
    facts per task and model, and each model's overlap of fit and scored sentences.

    Parameters
    ----------
    measured : dict
        ``{model: ModelComparison}``
        (:func:`~anisotropy.claims.cluster_isotropy.claim.measure`).

    Returns
    -------
    comparison : pandas.DataFrame
        The models' comparisons one after another, without the columns of
        :data:`~anisotropy.claims.cluster_isotropy.claim.FIT_COLUMNS`.
    fit_table : pandas.DataFrame
        Indexed by task: each fit fact per model (integers).
    overlap : dict
        ``{model short name: {task: fit overlap}}``.
    """
    comparison = pd.concat([m.comparison for m in measured.values()], ignore_index=True)
    inductive = comparison[(comparison["mode"] == "inductive")
                           & (comparison["method"] == "Baseline")]
    fit_table = inductive.pivot(index="task", columns="model", values=FIT_COLUMNS).astype(int)
    overlap = {model: dict(zip(part["task"], part["fit overlap"].astype(int), strict=True))
               for model, part in inductive.groupby("model")}
    return comparison.drop(columns=FIT_COLUMNS), fit_table, overlap


def facts_table(measured: dict) -> pd.DataFrame:
    """Per model: its kind, how many tokens and which layer.

    Parameters
    ----------
    measured : dict
        ``{model: ModelComparison}``
        (:func:`~anisotropy.claims.cluster_isotropy.claim.measure`).

    Returns
    -------
    pandas.DataFrame
        Indexed by model short name: ``decoder``, ``kind``, ``tokens`` (the token rows
        encoded) and ``layer`` (the last, the one compared).
    """
    return pd.DataFrame({plotting.short_name(n): {"decoder": m.decoder, "kind": m.kind,
                                                  "tokens": len(m.tokens),
                                                  "layer": m.encoder.n_layers}
                         for n, m in measured.items()}).T


def per_task_table(comparison: pd.DataFrame, models: list[str], tasks: list[str]
                   ) -> pd.DataFrame:
    """Per task: the paper's BERT baseline and method beside each model's (transductive).

    Parameters
    ----------
    comparison : pandas.DataFrame
        Every model's (mode, task, method) rows (:func:`comparison_tables`).
    models : list of str
        The models' short names, as in ``comparison``'s ``model`` column.
    tasks : list of str
        The tasks, one row each.

    Returns
    -------
    pandas.DataFrame
        Indexed by task: the paper's Spearman and log10 I(W) of the baseline and the
        method (for the tasks it gives), then per model the baseline's and
        K-means+Mean+PCA's Spearman and the log10 I(W) change as text.
    """
    paper = reference("claim4")
    rows = []
    for task in tasks:
        base = paper["per_task"]["baseline"].get(task)
        proposed = paper["per_task"]["proposed"].get(task)
        row = {"task": task}
        if base:
            row.update({"paper BERT Spearman": base[1], "paper BERT log10 I": np.log10(base[2]),
                        "paper method Spearman": proposed[1],
                        "paper method log10 I": np.log10(proposed[2])})
        for model in models:
            cell = comparison[(comparison["model"] == model) & (comparison["task"] == task)
                              & (comparison["mode"] == "transductive")].set_index("method")
            row[f"{model} baseline"] = cell.loc["Baseline", "spearman"]
            row[f"{model} method"] = cell.loc["K-means+Mean+PCA", "spearman"]
            row[f"{model} log10 I: baseline → method"] = (
                f"{cell.loc['Baseline', 'log10 I(W)']:.2f} → "
                f"{cell.loc['K-means+Mean+PCA', 'log10 I(W)']:.2f}")
        rows.append(row)
    return pd.DataFrame(rows).set_index("task")


def authors_table(comparison: pd.DataFrame) -> pd.DataFrame | None:
    """STS-B dev, transductive: each model beside the authors' notebook (or None).

    Parameters
    ----------
    comparison : pandas.DataFrame
        Every model's (mode, task, method) rows (:func:`comparison_tables`).

    Returns
    -------
    pandas.DataFrame or None
        Indexed by model, the authors' notebook last: Spearman and log10 I(W) of the
        Baseline and K-means+Mean+PCA (the notebook gives the method's only); None when
        ``comparison`` has no STS-B dev rows.
    """
    authors = reference("claim4", "authors_notebook")
    own = comparison[(comparison["task"] == "STS-B-dev") & (comparison["mode"] == "transductive")
                     & (comparison["method"].isin(["Baseline", "K-means+Mean+PCA"]))]
    if not len(own):
        return None
    table = own.pivot(index="model", columns="method", values=["spearman", "log10 I(W)"])
    table.loc["bert-base-uncased (authors' notebook)"] = [
        np.nan, authors["stsb_dev_spearman"], np.nan, np.log10(authors["stsb_dev_isotropy"])]
    return table


def average_table(comparison: pd.DataFrame, tasks: list[str]) -> pd.DataFrame:
    """Mean over tasks of each (model, mode, method)'s scores and isotropy.

    Parameters
    ----------
    comparison : pandas.DataFrame
        Every model's (mode, task, method) rows (:func:`comparison_tables`).
    tasks : list of str
        The tasks averaged over.

    Returns
    -------
    pandas.DataFrame
        One row per (model, mode, method), sorted with the methods in the order of
        :data:`~anisotropy.claims.cluster_isotropy.methods.METHODS`: the means of
        ``spearman``, ``pearson``, ``log10 I(W)`` and ``isoscore``.
    """
    average = (comparison[comparison["task"].isin(tasks)]
               .groupby(["model", "mode", "method"])[["spearman", "pearson", "log10 I(W)",
                                                      "isoscore"]].mean().reset_index())
    average["method"] = pd.Categorical(average["method"], ci.METHODS, ordered=True)
    return average.sort_values(["model", "mode", "method"])


def paper_methods_table() -> pd.DataFrame:
    """The paper's method comparison (BERT-base; Pearson, Spearman, I(W)).

    Returns
    -------
    pandas.DataFrame
        Indexed by (task, method): ``pearson``, ``spearman`` and ``isotropy``.
    """
    comparison = reference("claim4", "method_comparison")
    return pd.concat({task: pd.DataFrame(values, index=comparison["columns"]).T
                      for task, values in comparison.items() if task != "columns"})


def methods_figure(average: pd.DataFrame, names: list[str]):
    """Mean Spearman and mean log10 I(W) per method (transductive), one line per model.

    Parameters
    ----------
    average : pandas.DataFrame
        The means per (model, mode, method) (:func:`average_table`).
    names : list of str
        The models' full names, one line each.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
    for name in names:
        model = plotting.short_name(name)
        part = average[(average["model"] == model) & (average["mode"] == "transductive")]
        for ax, column in zip(axes, ("spearman", "log10 I(W)"), strict=True):
            ax.plot(part["method"].astype(str), part[column], marker="o",
                    color=plotting.color(name), label=model)
    axes[0].set_ylabel("mean Spearman × 100")
    axes[1].set_ylabel("mean log10 I(W)")
    for ax in axes:
        ax.tick_params(axis="x", rotation=35)
    axes[0].legend()
    fig.suptitle("Mean Spearman and mean log10 I(W) per method (transductive)")
    fig.tight_layout()
    return fig


def check_table(comparison: pd.DataFrame, models: list[str], tasks: list[str]) -> pd.DataFrame:
    """Per model: the smallest isotropy gain, the mean Spearman change, the tasks improved
    and the margin over the best global method.

    Parameters
    ----------
    comparison : pandas.DataFrame
        Every model's (mode, task, method) rows (:func:`comparison_tables`); the
        transductive ones are read.
    models : list of str
        The models' short names, one row each.
    tasks : list of str
        The tasks.

    Returns
    -------
    pandas.DataFrame
        Indexed by model: ``min log10 I gain``, ``mean Spearman change``, ``tasks
        improved`` (text) and ``vs best global`` (K-means+Mean+PCA's mean Spearman minus
        the best global method's).
    """
    rows = []
    for model in models:
        part = comparison[(comparison["model"] == model) & (comparison["mode"] == "transductive")
                          & comparison["task"].isin(tasks)]
        wide = part.pivot(index="task", columns="method", values=["spearman", "log10 I(W)"])
        gain = wide["log10 I(W)"]["K-means+Mean+PCA"] - wide["log10 I(W)"]["Baseline"]
        delta = wide["spearman"]["K-means+Mean+PCA"] - wide["spearman"]["Baseline"]
        versus_global = (wide["spearman"]["K-means+Mean+PCA"].mean()
                         - max(wide["spearman"][m].mean() for m in ci.GLOBAL_METHODS))
        rows.append({"model": model, "min log10 I gain": gain.min(),
                     "mean Spearman change": delta.mean(),
                     "tasks improved": f"{int((delta > 0).sum())} of {len(delta)}",
                     "vs best global": versus_global})
    return pd.DataFrame(rows).set_index("model")


def sweep_figure(sweep: pd.DataFrame, sweep_task: str):
    """Spearman and log10 I(W) over K and D, per model.

    Parameters
    ----------
    sweep : pandas.DataFrame
        The sweep's rows of every model
        (:func:`~anisotropy.claims.cluster_isotropy.claim.measure_sweep`).
    sweep_task : str
        The task swept, for the title.

    Returns
    -------
    matplotlib.figure.Figure
        Two heat maps per model (Spearman above, log10 I(W) below).
    """
    models = list(dict.fromkeys(sweep["model"]))
    fig, axes = plt.subplots(2, len(models), figsize=(4.2 * len(models), 6.6), squeeze=False)
    for column, model in enumerate(models):
        part = sweep[sweep["model"] == model]
        for row, (value, label, cmap) in enumerate([("spearman", "Spearman × 100", "viridis"),
                                                    ("log10 I(W)", "log10 I(W)", "magma")]):
            grid = part.pivot(index="K", columns="D", values=value)
            ax = axes[row, column]
            ax.imshow(grid.to_numpy(), cmap=cmap, aspect="auto")
            ax.set_xticks(range(grid.shape[1]), grid.columns)
            ax.set_yticks(range(grid.shape[0]), grid.index)
            for (i, j), v in np.ndenumerate(grid.to_numpy()):
                ax.text(j, i, f"{v:.1f}", ha="center", va="center", fontsize=7, color="white")
            ax.set_xlabel("D (directions removed per cluster)")
            ax.set_ylabel("K (clusters)")
            ax.set_title(f"{model}: {label}", fontsize=9)
    fig.suptitle(f"K-means+Mean+PCA on {sweep_task} over K and D (transductive)")
    fig.tight_layout()
    return fig


def sst2_texts(settings, probe: dict, half_widths: list[float]) -> dict:
    """The probe's sizes, the paper's SST-2 numbers and the intervals' half-widths.

    Parameters
    ----------
    settings : Settings
        Claim 4's parameters (``sst2_train_items``).
    probe : dict
        The probe's data (:func:`~anisotropy.claims.cluster_isotropy.methods.
        sst2_probe_data`).
    half_widths : list of float
        The half-widths of the models' intervals; empty: ``"n/a"``.

    Returns
    -------
    dict
        ``sst2_dev_sentences``, ``sst2_train_phrases``, ``sst2_paper_baseline``,
        ``sst2_paper_gain``, ``sst2_paper_isotropy``, ``sst2_paper_isotropy_fraction``
        and ``sst2_half_width`` (their range).
    """
    sst = reference("claim4", "sst2")
    return {"sst2_dev_sentences": len(probe["dev_labels"]),
            "sst2_train_phrases": f"all {probe['n_train']:,}"
            if settings.sst2_train_items is None else f"a seeded subset of {probe['n_train']:,}",
            "sst2_paper_baseline": sst["baseline_accuracy"],
            "sst2_paper_gain": f"{sst['proposed_accuracy'] - sst['baseline_accuracy']:+.2f}",
            "sst2_paper_isotropy": sst["proposed_isotropy"],
            "sst2_paper_isotropy_fraction": f"{sst['proposed_isotropy'] / 100:.2f}",
            "sst2_half_width": f"{min(half_widths):.1f}–{max(half_widths):.1f}"
            if half_widths else "n/a"}


def finetune_texts(settings, ft_settings, runs) -> dict:
    """The fine-tuning section's prose: the paper's rows and statements, the settings, and
    what ran (or that it did not).

    Parameters
    ----------
    settings : Settings
        Claim 4's parameters (the fine-tuned model, its seeds and subsets).
    ft_settings : FineTuning
        The runs' hyper-parameters
        (:func:`~anisotropy.claims.cluster_isotropy.claim.finetune_settings`).
    runs : pandas.DataFrame or None
        The runs (:func:`~anisotropy.claims.cluster_isotropy.claim.measure_finetuning`);
        None: none ran.

    Returns
    -------
    dict
        ``ft_paper_epochs``, ``ft_cannot_improve``, ``ft_zero_mean``, ``ft_paper_rows``,
        ``ft_model``, ``ft_settings`` and ``ft_scope`` (what ran, or why nothing did).
    """
    paper = reference("claim4", "finetuning")
    s, f = settings, ft_settings
    out = {"ft_paper_epochs": paper["epochs"],
           "ft_cannot_improve": paper["cannot_improve_statement"],
           "ft_zero_mean": paper["zero_mean_statement"],
           "ft_paper_rows": "; ".join(
               f"{task} {v['baseline_accuracy']} → {v['proposed_accuracy']} accuracy, I(W) "
               f"{v['baseline_isotropy']:.3g} → {v['proposed_isotropy']:.3g}"
               for task, v in paper.items() if isinstance(v, dict)),
           "ft_model": plotting.short_name(s.finetune_model),
           "ft_settings": f"{f.epochs} epochs, batches of {f.batch_size}, K = {f.n_clusters} "
                          f"clusters and D = {f.n_components} directions per batch (one "
                          "K-means initialisation each), AdamW at a learning rate of "
                          f"{f.learning_rate:g} with weight decay {f.weight_decay:g} on every "
                          f"parameter, a {f.warmup:.0%} linear warm-up then linear decay, "
                          f"gradients clipped at norm {f.max_grad_norm:g}, the model's own "
                          "dropout before the classifier, inputs cut at "
                          f"{f.max_length} tokens, {s.finetune_seeds} seeds"}
    if runs is None:
        out["ft_scope"] = ("not run in this profile (finetune_tasks is empty); the paper "
                           "profile runs it, and its checks are listed as not run")
        return out
    trained = runs[runs["condition"] != "pretrained"]
    subsets = (" (seeded subsets: finetune_train_items, finetune_dev_items)"
               if s.finetune_train_items is not None or s.finetune_dev_items is not None else "")
    out["ft_scope"] = ", ".join(
        f"{FINETUNE_NAMES[task]}: {int(part['n_train'].iloc[0]):,} training and "
        f"{int(part['n_dev'].iloc[0]):,} dev pairs" + subsets
        + f" of {int(part['dim'].iloc[0])}-dimensional CLS vectors, where always answering "
        f"the commoner label scores {part['majority'].iloc[0]:.1f}% and the plain runs score "
        f"{part[part['condition'] == 'plain']['accuracy'].mean():.1f}% on average"
        for task, part in trained.groupby("task", sort=False)) + (
        f"; {trained['seconds'].sum() / 60:.1f} minutes of fine-tuning (cached runs count "
        "the time they first took)")
    return out


def finetune_figure(runs: pd.DataFrame):
    """Dev accuracy against log10 I(W) per run, plain and with the method, beside the
    paper's BERT-base.

    Parameters
    ----------
    runs : pandas.DataFrame
        The runs (:func:`~anisotropy.claims.cluster_isotropy.finetuning.run_seeds`' rows of
        every task).

    Returns
    -------
    matplotlib.figure.Figure
        One panel per task.
    """
    paper = reference("claim4", "finetuning")
    trained = runs[runs["condition"] != "pretrained"]
    groups = list(trained.groupby("task", sort=False))
    fig, axes = plt.subplots(1, len(groups), figsize=(5 * len(groups), 3.6), squeeze=False)
    for ax, (task, part) in zip(axes[0], groups, strict=True):
        for condition, marker in (("plain", "o"), ("method", "s")):
            rows = part[part["condition"] == condition]
            ax.scatter(rows["log10_iw"], rows["accuracy"], marker=marker, label=condition)
        row = paper[FINETUNE_NAMES[task]]
        ax.scatter(np.log10([row["baseline_isotropy"], row["proposed_isotropy"]]),
                   [row["baseline_accuracy"], row["proposed_accuracy"]], marker="x",
                   color="black", label="paper (BERT-base)")
        ax.set(title=FINETUNE_NAMES[task], xlabel="log10 I(W) of the classifier inputs (dev)",
               ylabel="dev accuracy (%)")
        ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def task_change_table(results, measured: dict, tasks: list[str]) -> pd.DataFrame:
    """Per task, the paper's BERT-base row beside each model's, with 95% intervals: the
    Spearman x 100 change of K-means+Mean+PCA over the baseline (the per-task finding's
    paired bootstrap) and the I(W) it ends at (mean over the method's fits, t-interval over
    them); cells are text.

    Parameters
    ----------
    results : Results
        The claim's results, holding the ``sts-improves-per-task`` findings.
    measured : dict
        ``{model: ModelComparison}``; its ``fits`` give the I(W) after.
    tasks : list of str
        The tasks, one row each.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``Task``: the paper's Spearman change and I(W) after, then per model
        ``MODEL Spearman change`` and ``MODEL I(W) after`` (``"–"`` where missing).
    """
    paper = reference("claim4", "per_task")
    changes = {(c.model, c.subject): c for c in results.checks
               if c.check == STS_IMPROVES_PER_TASK}
    rows = {}
    for task in tasks:
        base, proposed = paper["baseline"].get(task), paper["proposed"].get(task)
        row = {"Paper Spearman change (BERT-base)": sig(proposed[1] - base[1]) if base else "–",
               "Paper I(W) after": sig(proposed[2]) if base else "–"}
        for name, m in measured.items():
            short = plotting.short_name(name)
            check = changes.get((name, task))
            # a finding: its interval is in its details
            row[f"{short} Spearman change"] = (
                f"{sig(check.measured)} {interval_text(check.details['95% interval'])}"
                if check else "–")
            ends = 10 ** m.fits.loc[m.fits["task"] == task, "method"].to_numpy()
            low, high = seed_interval(ends, unit="fits").as_list()
            row[f"{short} I(W) after"] = (f"{sig(float(ends.mean()))} "
                                          f"{interval_text([max(low, 0.0), min(high, 1.0)])}")
        rows[task] = row
    frame = pd.DataFrame(rows).T
    frame.index.name = "Task"
    return frame
