"""Claim 3's page: its tables, glued sentences and figures, from the measurements of
:mod:`anisotropy.claims.frequency.claim` and the paper's values (claim3)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from anisotropy.claims.frequency import measure as frequency
from anisotropy.claims.frequency.calibration import (
    BERT_FLOW_COUPLING_WIDTH,
    FlowCalibration,
    task_flow_budget,
)
from anisotropy.claims.frequency.ids import FLOW_HELPS
from anisotropy.report import plotting
from anisotropy.report.display import interval_text, sig
from anisotropy.report.results import reference

__all__ = ["paper_texts", "geometry_table", "svd_figure", "bins_figure", "table1",
           "sts_scores", "sts_table", "paper_sts_table", "gain_table", "gain_texts",
           "flow_figure", "task_change_table", "flow_sweep_figure", "paper_flow_change",
           "flow_budget_texts"]


def paper_texts() -> dict:
    """The papers' headline gains, for the introduction's prose.

    Returns
    -------
    dict
        ``flow_average_gain`` and ``flow_max_gain`` (Li et al.'s headline, as the
        references file gives them), ``base_average_gain`` and ``base_max_gain`` (BERT-base
        target flow minus last2avg over Table 2's tasks, text with two decimals).
    """
    paper = reference("claim3")
    no_nli = paper["flow_table"]["without_nli_supervision"]
    base_gain = np.subtract(no_nli["BERT-base-flow (target)"], no_nli["BERT-base-last2avg"])
    return {"flow_average_gain": paper["headline"]["average_gain"],
            "flow_max_gain": paper["headline"]["max_gain"],
            "base_average_gain": f"{base_gain.mean():.2f}",
            "base_max_gain": f"{base_gain.max():.2f}"}


def geometry_table(geometry) -> pd.DataFrame:
    """One row per space: its size and frequency correlations.

    Parameters
    ----------
    geometry : FrequencyGeometry
        Part A's measurements (:func:`anisotropy.claims.frequency.claim.measure_frequency`).

    Returns
    -------
    pandas.DataFrame
        Indexed by space: ``n``, ``rho norm``, ``rho norm (centred)`` and
        ``rho kNN distance``.
    """
    return pd.DataFrame(geometry.geometry).T.astype({"n": int})


def svd_figure(geometry):
    """2-D SVD of the input spaces, coloured by log frequency (the seed's figure).

    Parameters
    ----------
    geometry : FrequencyGeometry
        Part A's measurements; the spaces named ``input embeddings`` or with ``rank`` are
        drawn, one panel each.

    Returns
    -------
    matplotlib.figure.Figure
    """
    shown = [s for s in geometry.spaces if "input embeddings" in s or "rank" in s]
    fig, axes = plt.subplots(1, len(shown), figsize=(4.0 * len(shown), 3.8), squeeze=False)
    for ax, space in zip(axes[0], shown, strict=True):
        X, counts = geometry.spaces[space]
        U, S, _ = np.linalg.svd(np.asarray(X, dtype=np.float64), full_matrices=False)
        P = U[:, :2] * S[:2]
        points = ax.scatter(P[:, 0], P[:, 1], c=np.log10(counts), s=2, cmap="viridis")
        ax.set_title(space, fontsize=9)
        ax.set_xlabel("SVD 1")
        ax.set_ylabel("SVD 2")
        fig.colorbar(points, ax=ax, label="log10 frequency")
    fig.suptitle("2-D SVD of the input spaces, coloured by frequency (the seed's figure)")
    fig.tight_layout()
    return fig


def bins_figure(geometry, knn_k: int):
    """Mean norm and k-NN distance per frequency-rank range, relative to their mean.

    Parameters
    ----------
    geometry : FrequencyGeometry
        Part A's measurements; every space but the contextual type averages is drawn.
    knn_k : int
        The neighbours of the k-NN distance, for the axis label (the ``knn_k`` the
        distances were measured with).

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
    for space, table in geometry.bins.items():
        if "type average" in space:
            continue
        axes[0].plot(table.index.astype(str), table["norm"] / table["norm"].mean(),
                     marker="o", label=space)
        axes[1].plot(table.index.astype(str),
                     table["kNN distance"] / table["kNN distance"].mean(), marker="o",
                     label=space)
    axes[0].set_ylabel("mean norm / mean over ranges")
    axes[1].set_ylabel(f"mean {knn_k}-NN distance / mean over ranges")
    for ax in axes:
        ax.set_xlabel("frequency-rank range (most frequent first)")
        ax.tick_params(axis="x", labelsize=7)
    axes[1].legend(fontsize=7)
    fig.suptitle("Norm and neighbourhood distance across frequency-rank ranges")
    fig.tight_layout()
    return fig


def table1(geometry) -> pd.DataFrame:
    """Table 1's layout (mean norm and k-NN distances per rank range) for each input
    embedding space, beside the paper's BERT rows.

    Parameters
    ----------
    geometry : FrequencyGeometry
        Part A's measurements; its input-embedding spaces, with their neighbour pools and
        distances.

    Returns
    -------
    pandas.DataFrame
        Indexed by (space, range), the paper's rows last: ``mean l2 norm`` and
        ``mean {k}-NN l2 distance`` for each k of the paper's table
        (:func:`anisotropy.claims.frequency.measure.frequency_table`).
    """
    paper = reference("claim3", "frequency_table")
    edges = paper["rank_bins"]
    layout = [frequency.frequency_table(*geometry.spaces[space], edges,
                                        pool=geometry.pools.get(space),
                                        distances=geometry.neighbours.get(space))
              .assign(space=space)
              for space in geometry.spaces if "input embeddings" in space]
    published = pd.DataFrame({"mean l2 norm": paper["mean_l2_norm"],
                              **{f"mean {k}-NN l2 distance": v
                                 for k, v in paper["mean_knn_l2_distance"].items()}},
                             index=layout[0].index if layout else None).assign(
                                 space="BERT word embeddings (paper, Table 1)")
    return pd.concat([*layout, published]).reset_index().set_index(["space", "range"])


def sts_scores(calibrated: dict) -> pd.DataFrame:
    """Every model's scores, one row per (task, method, seed).

    Parameters
    ----------
    calibrated : dict
        ``{model: Calibration}`` (:func:`anisotropy.claims.frequency.claim.
        measure_calibration`).

    Returns
    -------
    pandas.DataFrame
        The models' ``scores`` one after another, with a ``model`` column (the short name).
    """
    return pd.concat([m.scores.assign(model=plotting.short_name(n))
                      for n, m in calibrated.items()], ignore_index=True)


def sts_table(calibrated: dict, tasks: list[str]) -> pd.DataFrame:
    """Spearman x 100 per (model, method) and task, flows as the mean over seeds.

    Parameters
    ----------
    calibrated : dict
        ``{model: Calibration}`` (:func:`anisotropy.claims.frequency.claim.
        measure_calibration`).
    tasks : list of str
        The tasks, in the columns' order.

    Returns
    -------
    pandas.DataFrame
        Indexed by (model short name, method): one column per task and their ``average``.
    """
    table = sts_scores(calibrated).pivot_table(index=["model", "method"], columns="task",
                                               values="spearman", sort=False)[tasks]
    table["average"] = table.mean(axis=1)
    return table


def paper_sts_table(tasks: list[str]) -> pd.DataFrame:
    """The papers' rows: Li et al.'s Tables 2-3, and BERT-base's whitening rows from the
    BERT-whitening-pytorch README (a reimplementation's numbers, labelled secondary).

    Parameters
    ----------
    tasks : list of str
        The tasks, in the columns' order; a task a paper does not give is NaN.

    Returns
    -------
    pandas.DataFrame
        Indexed by (source, row label): one column per task and ``average``, the mean of
        the tasks the paper gives.
    """
    flow_rows = reference("claim3", "flow_table")
    rows = {}
    for setting in ("without_nli_supervision", "with_nli_supervision"):
        for label, values in flow_rows[setting].items():
            row = dict(zip(flow_rows["tasks"], values, strict=True))
            rows[(f"paper, {setting.replace('_', ' ')}", label)] = {
                t: row.get(t, np.nan) for t in tasks}
    whitening_rows = reference("claim3", "bert_base_spearman")
    for label in ("first-last-avg", "whitening-256 (target)"):
        row = dict(zip(whitening_rows["tasks"], whitening_rows[label], strict=True))
        # secondary: a reimplementation's README (references.yaml), not Su et al.'s tables
        rows[("secondary, BERT-whitening-pytorch README (BERT-base)", label)] = {
            t: row.get(t, np.nan) for t in tasks}
    table = pd.DataFrame(rows).T
    table["average"] = table.mean(axis=1)
    return table


def gain_table(table: pd.DataFrame, calibrated: dict, pooling: str,
               tasks: list[str]) -> pd.DataFrame:
    """Per model: the baseline's average and each method's average gain over it.

    Parameters
    ----------
    table : pandas.DataFrame
        Spearman x 100 per (model, method) and task (:func:`sts_table`).
    calibrated : dict
        ``{model: Calibration}``; its keys give the models.
    pooling : str
        The baseline's method (the pooling calibrated).
    tasks : list of str
        The tasks of ``table``'s columns.

    Returns
    -------
    pandas.DataFrame
        Indexed by model short name: ``baseline`` (its average), ``gain M`` for whitening,
        whitening (dim/3), flow (target) and flow (NLI), and ``largest flow gain on one
        task`` (the target flow's).
    """
    rows = []
    for name in calibrated:
        short = plotting.short_name(name)
        baseline = table.loc[(short, pooling), "average"]
        per_task_gain = table.loc[(short, "flow (target)"), tasks] - table.loc[(short, pooling),
                                                                               tasks]
        rows.append({"model": short, "baseline": baseline,
                     **{f"gain {m}": table.loc[(short, m), "average"] - baseline
                        for m in ("whitening", "whitening (dim/3)", "flow (target)",
                                  "flow (NLI)")},
                     "largest flow gain on one task": per_task_gain.max()})
    return pd.DataFrame(rows).set_index("model")


def gain_texts(gains: pd.DataFrame, calibrated: dict) -> dict:
    """The flow's seed spread and the encoders' average gains, for the prose.

    Parameters
    ----------
    gains : pandas.DataFrame
        Per model, the average gains (:func:`gain_table`).
    calibrated : dict
        ``{model: Calibration}``; the ``per seed`` details of its ``flow-helps`` check give
        the spread, its kinds which models are encoders.

    Returns
    -------
    dict
        ``flow_seed_spread``: the largest, over models, of the range (highest minus
        lowest) of the target flow's average change over its seeds; ``encoder_gains``:
        each non-decoder's average gains of whitening (dim/3) and of the target flow as
        text (``"n/a"`` without one).
    """
    spread = [max(d["per seed"].values()) - min(d["per seed"].values())
              for d in (m.checks[FLOW_HELPS].details for m in calibrated.values())]
    kinds = {plotting.short_name(n): m.kind for n, m in calibrated.items()}
    encoder_gains = [f"{m}: whitening {r['gain whitening (dim/3)']:+.1f}, "
                     f"flow {r['gain flow (target)']:+.1f}"
                     for m, r in gains.iterrows() if kinds[m] != "decoder"]
    return {"flow_seed_spread": max(spread), "encoder_gains": "; ".join(encoder_gains) or "n/a"}


def flow_figure(calibrated: dict):
    """The flows' maximum-likelihood curves (every task and model).

    Parameters
    ----------
    calibrated : dict
        ``{model: Calibration}``; its ``curves`` are drawn (NLI and STS-B labelled).

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, ax = plt.subplots(figsize=(7, 3.6))
    for name, measured in calibrated.items():
        for task, losses in measured.curves.items():
            ax.plot(losses, lw=0.8, alpha=0.7,
                    label=(f"{plotting.short_name(name)} / {task}"
                           if task in ("NLI", "STS-B") else None))
    ax.set_xlabel("step")
    ax.set_ylabel("negative log-likelihood per dimension")
    ax.legend(fontsize=7)
    ax.set_title("RealNVP maximum-likelihood fits (every task and model)")
    return fig


def paper_flow_change(task: str) -> float | None:
    """Li et al.'s BERT-base target-flow change on ``task`` (Table 2: flow minus
    last2avg), None for a task the table does not give.

    Parameters
    ----------
    task : str
        An STS task.

    Returns
    -------
    float or None
        Spearman x 100 change, or None.
    """
    flows = reference("claim3", "flow_table")
    rows = flows["without_nli_supervision"]
    if task not in flows["tasks"]:
        return None
    i = flows["tasks"].index(task)
    return float(rows["BERT-base-flow (target)"][i] - rows["BERT-base-last2avg"][i])


def flow_budget_texts(tasks: list[str], flow_steps: int | None, epochs: float,
                      sweep: tuple[float, ...], sweep_task: str) -> dict[str, str]:
    """Glued sentences on the flows' budgets: ``flow_steps_text`` (the steps every target
    flow trains: BERT-flow's per task, or the profile's fixed number beside them),
    ``graded_budget`` (which of the two the verdict reads), ``flow_optimiser`` (the
    optimiser's settings, :class:`FlowCalibration`'s), ``flow_architecture`` (its coupling
    layers and their width, against BERT-flow's default ``config_l3_d3_w32``) and
    ``sweep_budgets`` (the swept budgets as multiples of BERT-flow's and in steps).

    Parameters
    ----------
    tasks : list of str
        The scored tasks, each with BERT-flow's budget (:func:`task_flow_budget`).
    flow_steps : int or None
        The profile's fixed steps for every flow; None: BERT-flow's budget.
    epochs : float
        Passes over a task's pairs in BERT-flow's budget (the setting ``flow_epochs``).
    sweep : tuple of float
        The swept budgets, multiples of BERT-flow's (0: centring alone).
    sweep_task : str
        The task of the sweep.

    Returns
    -------
    dict of str to str
        The five sentences by name (``sweep_budgets`` is ``"no budget"`` for an empty
        sweep).
    """
    budgets = {task: task_flow_budget(task, epochs) for task in tasks}
    per_task = ", ".join(f"{task} {steps:,}" for task, steps in budgets.items())
    passes = f"{epochs:g} epoch" + ("" if epochs == 1 else "s")
    if flow_steps is None:
        steps_text = (f"BERT-flow's budget of {passes}, counted as its code counts it: "
                      f"{per_task} steps")
        graded = "BERT-flow's budget (dotted line)"
    else:
        steps_text = (f"{flow_steps:,} steps for every flow, this profile's fixed budget, "
                      f"where BERT-flow's would be {per_task} steps")
        graded = (f"this profile's fixed {flow_steps:,} steps (dotted line), not BERT-flow's "
                  "budget (dash-dotted)")
    swept = [(m, task_flow_budget(sweep_task, m) if m > 0 else 0) for m in sweep]
    sweep_text = ", ".join(f"{m:g}× ({steps:,} steps)" if m > 0 else "0 (centring alone)"
                           for m, steps in swept)
    flow = FlowCalibration()
    optimiser = (f"BERT's Adam without bias correction, with decoupled weight decay "
                 f"{flow.weight_decay:g} on every parameter but the biases, a constant "
                 f"learning rate of {flow.learning_rate:g}, batches of {flow.batch_size} "
                 f"sentences, and the gradient of BERT-flow's loss (bits per dimension, "
                 f"summed over a pair's two sentences) clipped to a global norm of "
                 f"{flow.clip_norm:g}")
    architecture = (f"{flow.transforms} affine coupling layers, each conditioned by a network "
                    f"with two hidden layers of {flow.hidden} units; BERT-flow's default "
                    f"flow (config_l3_d3_w32 in its run_siamese.py) has 3 levels of 3 "
                    f"steps with coupling networks {BERT_FLOW_COUPLING_WIDTH} units wide")
    return {"flow_steps_text": steps_text, "graded_budget": graded,
            "flow_optimiser": optimiser, "flow_architecture": architecture,
            "sweep_budgets": sweep_text or "no budget"}


def flow_sweep_figure(calibrated: dict, epochs: float, flow_steps: int | None = None):
    """The target flow's Spearman change against its training steps (symmetric log scale,
    0: centring alone), one line per model, with the graded budget (dotted: BERT-flow's on
    the task, or ``flow_steps`` when a profile fixes it, BERT-flow's then dash-dotted) and
    Li et al.'s BERT-base change on the same task (dashed).

    Parameters
    ----------
    calibrated : dict
        ``{model: Calibration}``; its ``sweep`` is drawn (models without one are skipped).
    epochs : float
        Passes over the task's pairs in BERT-flow's budget (the setting ``flow_epochs``).
    flow_steps : int, optional
        The profile's fixed steps for every flow; None: BERT-flow's budget is the graded one.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, ax = plt.subplots(figsize=(7, 3.8))
    task = None
    for name, measured in calibrated.items():
        if measured.sweep is None:
            continue
        sweep = pd.DataFrame(measured.sweep)
        task = sweep["task"].iloc[0]
        ax.plot(sweep["steps"], sweep["change"], marker="o", ms=4,
                color=plotting.color(name), label=plotting.short_name(name))
    ax.set_xscale("symlog", linthresh=10)
    ax.axhline(0, color="grey", lw=0.6)
    if task is not None:
        budget = task_flow_budget(task, epochs)
        if flow_steps is None:
            ax.axvline(budget, color="black", ls=":", lw=0.9,
                       label=f"graded: BERT-flow's budget ({budget:,} steps)")
        else:
            ax.axvline(flow_steps, color="black", ls=":", lw=0.9,
                       label=f"graded: this profile's {flow_steps:,} steps")
            ax.axvline(budget, color="black", ls="-.", lw=0.9,
                       label=f"BERT-flow's budget ({budget:,} steps)")
    paper = paper_flow_change(task) if task else None
    if paper is not None:
        ax.axhline(paper, color="black", ls="--", lw=0.9,
                   label=f"Li et al., BERT-base: {sig(paper)}")
    ax.set_xlabel(f"training steps of the flow on {task or 'the task'} "
                  "(symmetric log scale; 0: centring alone)")
    ax.set_ylabel("Spearman × 100 change (flow − baseline)")
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    return fig


def task_change_table(calibrated: dict, tasks: list[str]) -> pd.DataFrame:
    """Per task, the papers' BERT-base changes beside each model's, with 95% intervals:
    whitening (Su et al.'s whitening-256 minus first-last-avg, from the BERT-whitening
    README) and the target flow (Li et al.'s Table 2, flow minus last2avg); cells are text.

    Parameters
    ----------
    calibrated : dict
        ``{model: Calibration}``; its ``per_task`` changes and intervals.
    tasks : list of str
        The tasks, one row each.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``Task``: the two papers' columns, then ``MODEL whitening`` and
        ``MODEL flow`` per model.
    """
    whitening = reference("claim3", "bert_base_spearman")
    white = dict(zip(whitening["tasks"], np.subtract(whitening["whitening-256 (target)"],
                                                     whitening["first-last-avg"]), strict=True))
    flows = reference("claim3", "flow_table")
    flow_rows = flows["without_nli_supervision"]
    flow = dict(zip(flows["tasks"], np.subtract(flow_rows["BERT-base-flow (target)"],
                                                flow_rows["BERT-base-last2avg"]), strict=True))
    rows = {}
    for task in tasks:
        row = {"Paper whitening (BERT-base)": sig(white.get(task)),
               "Paper flow (BERT-base)": sig(flow.get(task))}
        for name, measured in calibrated.items():
            short = plotting.short_name(name)
            for method in ("whitening", "flow"):
                value, interval = measured.per_task[task][method]
                row[f"{short} {method}"] = f"{sig(value)} {interval_text(interval.as_list())}"
        rows[task] = row
    frame = pd.DataFrame(rows).T
    frame.index.name = "Task"
    return frame
