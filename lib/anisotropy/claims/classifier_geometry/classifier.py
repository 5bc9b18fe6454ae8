"""Embeddings optimized directly for a linear classifier (Mickus et al. 2024, Section 3).

The embeddings themselves are the parameters (``torch.nn.Parameter``), trained jointly with
a linear classifier by full-batch Adam (PyTorch defaults) on cross-entropy. After every
``metric_every`` updates the trajectory records IsoScore of the embeddings and their
silhouette with respect to the target labels, both from :mod:`anisotropy.geometry.metrics`.

For pair tasks (NLI), each distinct sentence has one embedding; a pair is classified by a
linear layer with a bias on the concatenation ``[u; v]``: with the 12,982 distinct sentences
of SNLI's validation pairs this gives exactly the parameter count Mickus et al. report for
SNLI (4,987,395 = 12,982 x 384 + 768 x 3 + 3), and it keeps the classifier linear in the
embeddings, as their argument requires (SBERT's ``[u, v, |u - v|]`` would not). The labels
belong to pairs, so the silhouette (and the class distance ratio) of a pair task is that of
the pair vectors ``[u; v]`` the classifier sees, with the pairs' labels, while IsoScore is
computed "on unpaired embeddings", the sentences (Mickus et al., Sec. 3.1). The other
reading, each sentence labelled by the set of its pairs' labels (their rule for multi-label
points), is recorded beside it as ``silhouette (sentences)``.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats
from scipy.stats import pearsonr, spearmanr
from threadpoolctl import ThreadpoolController
from tqdm.auto import tqdm

from anisotropy.claims.base import CheckValue
from anisotropy.claims.classifier_geometry.ids import (
    ANTICORRELATION,
    CLASSES_COLLAPSE,
    ISOSCORE_FALLS,
    SEED_SPREAD,
    SILHOUETTE_RISES,
    SPEARMAN_ANTICORRELATION,
)
from anisotropy.geometry import metrics
from anisotropy.geometry.intervals import (
    Interval,
    combine_independent,
    sd_interval,
    seed_interval,
    spread_half_width,
)
from anisotropy.geometry.streams import stream, stream_seed, sub_seed, train_stream_seed

__all__ = ["pair_point_labels", "checked_task", "LinearProbe", "metric_recorder",
           "optimize_embeddings", "class_distance_ratio", "scale_behaviour",
           "trajectory_correlations", "isotropy_defect_cosine",
           "check_values", "run_seeds", "setup_summary", "point_metrics",
           "item_change_draws", "RankSeries", "SeedRuns"]


def pair_point_labels(pairs: np.ndarray, pair_labels: np.ndarray, n_points: int) -> np.ndarray:
    """Silhouette label of each sentence of a pair task: the set of its pairs' labels.

    Returns integer codes, one per distinct label set (e.g. a premise in an entailment and a
    contradiction pair gets the code of ``{entailment, contradiction}``).

    Parameters
    ----------
    pairs : numpy.ndarray of shape (n_pairs, 2)
        Indices of the two points of each pair.
    pair_labels : numpy.ndarray of int, shape (n_pairs,)
        Each pair's label.
    n_points : int
        The number of points (sentences).

    Returns
    -------
    numpy.ndarray of int, shape (n_points,)
        Each point's code, ``0 ..`` in the sorted order of the distinct label sets.

    Raises
    ------
    ValueError
        When some point belongs to no pair.
    """
    pairs = np.asarray(pairs)
    sets: list[set] = [set() for _ in range(n_points)]
    for (first, second), label in zip(pairs, pair_labels, strict=True):
        sets[first].add(int(label))
        sets[second].add(int(label))
    if any(not s for s in sets):
        raise ValueError("Some points belong to no pair.")
    keys = [tuple(sorted(s)) for s in sets]
    codes = {key: i for i, key in enumerate(sorted(set(keys)))}
    return np.array([codes[key] for key in keys])


def isotropy_defect_cosine(X) -> tuple[float, float]:
    """IsoScore's isotropy defect and the cosine behind it (Mickus et al. 2024, Sec. 2.2).

    With :math:`\\Sigma` the variance vector of the PCA-transformed points and :math:`n` the
    dimension, the defect is :math:`\\delta = \\lVert \\sqrt n\\,\\Sigma/\\lVert\\Sigma\\rVert -
    \\mathbf 1\\rVert / \\sqrt{2(n-\\sqrt n)}` and the identity
    :math:`\\delta^2 = n(1-\\cos\\theta)/(n-\\sqrt n)` holds with
    :math:`\\cos\\theta = \\Sigma\\cdot\\mathbf 1/(\\lVert\\Sigma\\rVert\\sqrt n)`.

    Parameters
    ----------
    X : array_like of shape (n_points, dim)
        The points, one per row; ``n`` is ``dim``.

    Returns
    -------
    defect, cos_theta : float
        Both computed from the variance vector (sample variances, ``ddof=1``, padded with
        zeros to ``dim`` entries when there are fewer points than dimensions).
    """
    X = metrics.check_embeddings(X)
    X = np.asarray(X, dtype=np.float64)
    centred = X - X.mean(axis=0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    variances = (centred @ vt.T).var(axis=0, ddof=1)
    variances = np.concatenate([variances, np.zeros(X.shape[1] - variances.size)])
    n = X.shape[1]
    cosine = variances.sum() / (np.linalg.norm(variances) * np.sqrt(n))
    return metrics.isotropy_defect(variances), float(cosine)


def checked_task(embeddings: np.ndarray, targets: np.ndarray, pairs: np.ndarray | None,
                 point_labels: np.ndarray | None
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray]:
    """Check a classification task once, before any training.

    Parameters
    ----------
    embeddings : numpy.ndarray of shape (n_points, dim)
        The points (finite, two-dimensional).
    targets : numpy.ndarray of int
        One class per point, or per pair when ``pairs`` is given.
    pairs : numpy.ndarray of shape (n_pairs, 2), or None
        Indices of the two points of each pair.
    point_labels : numpy.ndarray of int, or None
        Labels for the silhouette; None for ``targets`` (single-sentence tasks) or
        :func:`pair_point_labels`.

    Returns
    -------
    embeddings, targets : numpy.ndarray
        As arrays.
    pairs : numpy.ndarray or None
        As an array.
    labels : numpy.ndarray
        Each point's label for the silhouette.

    Raises
    ------
    ValueError
        When the targets do not match the points or the pairs, or the pairs are not
        (n_pairs, 2).
    """
    start = metrics.check_embeddings(embeddings)
    targets = np.asarray(targets)
    n_points = start.shape[0]
    if pairs is None:
        if targets.shape[0] != n_points:
            raise ValueError(f"targets has {targets.shape[0]} entries for {n_points} points.")
        return start, targets, None, targets if point_labels is None else np.asarray(
            point_labels)
    pairs = np.asarray(pairs)
    if pairs.ndim != 2 or pairs.shape[1] != 2 or targets.shape[0] != pairs.shape[0]:
        raise ValueError("pairs must be (n_pairs, 2) with one target per pair.")
    return start, targets, pairs, (pair_point_labels(pairs, targets, n_points)
                                   if point_labels is None else np.asarray(point_labels))


class LinearProbe:
    """The trained parts of one run: the embeddings ``E`` (a torch parameter, copied from
    ``start``), a linear classifier over a point (or over ``[u; v]`` for a pair) and one
    Adam optimizer for both (PyTorch defaults: lr 1e-3, betas 0.9/0.999).

    The classifier is created from torch's global stream, then re-initialised uniformly in
    +-1/sqrt(fan-in) from ``generator`` (independent of the global state).

    Parameters
    ----------
    start : numpy.ndarray of shape (n_points, dim)
        The initial embeddings.
    n_classes : int
        The classifier's outputs.
    pairs : numpy.ndarray of shape (n_pairs, 2), or None
        Indices of the two points of each pair.
    bias : bool
        Whether the classifier has a bias.
    generator : torch.Generator
        The classifier's initialisation stream.
    """

    def __init__(self, start: np.ndarray, n_classes: int, pairs: np.ndarray | None,
                 bias: bool, generator):
        import torch

        self.dim, self.n_classes = start.shape[1], n_classes
        self.E = torch.nn.Parameter(torch.tensor(np.asarray(start, dtype=np.float32)))
        self.classifier = torch.nn.Linear(self.dim if pairs is None else 2 * self.dim,
                                          n_classes, bias=bias)
        with torch.no_grad():  # seeded re-initialization, independent of global RNG state
            bound = 1 / np.sqrt(self.classifier.in_features)
            self.classifier.weight.uniform_(-bound, bound, generator=generator)
            if bias:
                self.classifier.bias.uniform_(-bound, bound, generator=generator)
        # foreach: the same arithmetic as the per-tensor loop (bit-identical, measured), with
        # fewer passes over E; PyTorch's CPU default is the loop
        self.optimizer = torch.optim.Adam([self.E, *self.classifier.parameters()],
                                          foreach=True)
        self.first = self.second = None  # the two sides of each pair, as gather indices
        if pairs is not None:
            index = torch.tensor(pairs, dtype=torch.long)
            self.first, self.second = index[:, 0].contiguous(), index[:, 1].contiguous()

    def logits(self):
        """The classifier's logits for every point, or every pair.

        Returns
        -------
        torch.Tensor of shape (n_points or n_pairs, n_classes)
            ``W x + b``, or ``W [u; v] + b`` for a pair.
        """
        import torch

        E, classifier, n_classes = self.E, self.classifier, self.n_classes
        if self.first is None:
            return classifier(E)
        # W [u; v] + b, with W = [W_u W_v]: the u and v terms are computed once per point and
        # gathered per pair, which skips the (n_pairs, 2 dim) concatenation. Gathers use
        # index_select, whose backward is index_add_.
        w_u, w_v = classifier.weight.split(self.dim, dim=1)
        per_point = E @ torch.cat([w_u, w_v]).T  # (n_points, 2 n_classes)
        out = (per_point[:, :n_classes].index_select(0, self.first)
               + per_point[:, n_classes:].index_select(0, self.second))
        return out if classifier.bias is None else out + classifier.bias

    def train(self, y, n_updates: int, metric_every: int, measure: Callable,
              on_update: Callable | None, tqdm_kwargs: dict) -> list[dict]:
        """Full-batch updates of the embeddings and the classifier, recording the metrics at
        update 0, every ``metric_every`` updates and the last.

        Parameters
        ----------
        y : torch.Tensor of int
            The targets.
        n_updates, metric_every : int
            Updates, and the spacing of the recorded ones.
        measure : callable
            ``(update, loss, accuracy, began)`` to a record of the metrics.
        on_update : callable or None
            Called as ``on_update(update, embeddings)`` at update 0 and after every update.
        tqdm_kwargs : dict
            The progress bar's options.

        Returns
        -------
        list of dict
            The records, in update order.
        """
        import torch

        E, optimizer, cross_entropy = self.E, self.optimizer, torch.nn.functional.cross_entropy
        began = time.perf_counter()
        records = []
        with torch.no_grad():
            out = self.logits()
            records.append(measure(0, float(cross_entropy(out, y)),
                                   float((out.argmax(1) == y).float().mean()), began))
            if on_update is not None:
                on_update(0, E.detach().numpy())
        for update in tqdm(range(1, n_updates + 1), **tqdm_kwargs):
            optimizer.zero_grad()
            out = self.logits()
            loss = cross_entropy(out, y)
            loss.backward()
            optimizer.step()
            if on_update is not None:
                with torch.no_grad():
                    on_update(update, E.detach().numpy())
            if update % metric_every == 0 or update == n_updates:
                with torch.no_grad():
                    out = self.logits()
                    records.append(measure(update, float(cross_entropy(out, y)),
                                           float((out.argmax(1) == y).float().mean()), began))
        return records


def metric_recorder(E, labels: np.ndarray, targets: np.ndarray, pairs: np.ndarray | None,
                    metric_sample: int | None, rng: np.random.Generator) -> Callable:
    """The function :meth:`LinearProbe.train` records the metrics with.

    Parameters
    ----------
    E : torch.nn.Parameter of shape (n_points, dim)
        The embeddings being trained (read at each record).
    labels, targets : numpy.ndarray of int
        Each point's label, and each point's (or pair's) target.
    pairs : numpy.ndarray of shape (n_pairs, 2), or None
        Indices of the two points of each pair.
    metric_sample : int or None
        With more points (or pairs) than this, the metrics are computed on a fresh sample
        of this many at each record.
    rng : numpy.random.Generator
        The samples' stream.

    Returns
    -------
    callable
        ``(update, loss, accuracy, began)`` to the record ``{update, **point_metrics(...),
        loss, accuracy, seconds}``.
    """
    def sample(n: int) -> np.ndarray:
        if metric_sample is not None and n > metric_sample:
            return np.sort(rng.choice(n, size=metric_sample, replace=False))
        return np.arange(n)

    def measure(update: int, loss: float, accuracy: float, began: float) -> dict:
        points = E.detach().numpy()
        rows = sample(points.shape[0])
        chosen = None if pairs is None else sample(pairs.shape[0])
        record = {"update": update, **point_metrics(points, labels, targets, pairs, rows,
                                                    chosen)}
        return {**record, "loss": loss, "accuracy": accuracy,
                "seconds": time.perf_counter() - began}

    return measure


def optimize_embeddings(embeddings: np.ndarray, targets: np.ndarray, *,
                        pairs: np.ndarray | None = None, point_labels: np.ndarray | None = None,
                        n_updates: int = 1000, seed: int = 0, bias: bool = True,
                        metric_every: int = 1, metric_sample: int | None = None,
                        progress: bool = True, desc: str = "updates",
                        return_final: bool = False, train_seed: int | None = None,
                        on_update: Callable[[int, np.ndarray], None] | None = None):
    """Optimize embeddings and a linear classifier; return the metric trajectory.

    Parameters
    ----------
    embeddings : array (n_points, dim)
        Initial embeddings (e.g. SBERT sentence vectors); they are copied, then optimized.
    targets : int array
        One class per point, or per pair when ``pairs`` is given.
    pairs : int array (n_pairs, 2), optional
        Indices of the two points of each pair; the classifier sees ``[u; v]``.
    point_labels : int array (n_points,), optional
        Labels for the silhouette; default ``targets`` (single-sentence tasks) or
        :func:`pair_point_labels`.
    n_updates : int
        Full-batch Adam updates (PyTorch defaults: lr 1e-3, betas 0.9/0.999).
    seed : int
        Seeds the classifier's initialization (and the metric samples).
    bias : bool
        Whether the linear classifier has a bias.
    metric_every : int
        Record metrics at update 0 and every ``metric_every`` updates (and the last).
    metric_sample : int, optional
        Compute metrics on a fresh random sample of this many points at each evaluation
        when there are more points (as Mickus et al.'s appendix does; its size is lost).
    progress : bool
        Show a progress bar over the updates, labelled ``desc``.
    desc : str
        The progress bar's label.
    return_final : bool
        Also return the optimized embeddings.
    train_seed : int, optional
        Seeds the classifier's initialization instead of ``seed`` (:func:`train_stream_seed`).
    on_update : callable, optional
        Called as ``on_update(update, embeddings)`` at update 0 and after every update, with
        the current embeddings (a view: read them, do not keep or change them), e.g. a
        :class:`RankSeries`. It draws nothing from the run's streams, so the trajectory is
        the same with or without it.

    Returns
    -------
    pandas.DataFrame, or (pandas.DataFrame, numpy.ndarray) with ``return_final``
        Columns ``update``, ``loss``, ``accuracy``, ``seconds`` and :func:`point_metrics`'
        (``isoscore, silhouette, intra/inter distance``, the last the quantity the paper's
        Eq. 4 needs to shrink); with ``return_final``, the final embeddings too.
    """
    import torch

    if n_updates < 1 or metric_every < 1:
        raise ValueError("n_updates and metric_every must be >= 1.")
    start, targets, pairs, labels = checked_task(embeddings, targets, pairs, point_labels)
    # the classifier's start from train_seed (seed when None); the points the metrics are
    # measured on from seed
    generator = torch.Generator().manual_seed(
        train_stream_seed(seed, train_seed, "classifier-init"))
    rng = stream(seed, "metric-sample")
    torch.manual_seed(train_stream_seed(seed, train_seed, "torch-global"))
    probe = LinearProbe(start, int(targets.max()) + 1, pairs, bias, generator)
    E = probe.E
    y = torch.tensor(targets, dtype=torch.long)
    measure = metric_recorder(E, labels, targets, pairs, metric_sample, rng)
    records = probe.train(y, n_updates, metric_every, measure, on_update,
                          tqdm_kwargs={"desc": desc, "disable": not progress, "leave": False})
    trajectory = pd.DataFrame(records)
    return (trajectory, E.detach().numpy().copy()) if return_final else trajectory


def point_metrics(points: np.ndarray, labels: np.ndarray, targets: np.ndarray,
                  pairs: np.ndarray | None, rows: np.ndarray,
                  chosen: np.ndarray | None = None, extra: bool = True) -> dict[str, float]:
    """IsoScore of ``points[rows]`` and the silhouette (and, with ``extra``, the class
    distance ratio) the trajectory records: of those points with ``labels``, or for a pair
    task of the pair vectors ``[u; v]`` of the ``chosen`` pairs with their ``targets``
    (then also ``silhouette (sentences)``, the points with ``labels``).

    Parameters
    ----------
    points : numpy.ndarray of shape (n_points, dim)
        The embeddings.
    labels : numpy.ndarray of int, shape (n_points,)
        Each point's label for the silhouette (read for a pair task only with ``extra``).
    targets : numpy.ndarray of int
        One class per point, or per pair when ``pairs`` is given.
    pairs : numpy.ndarray of shape (n_pairs, 2), or None
        Indices of the two points of each pair; None for a single-sentence task.
    rows : numpy.ndarray of int
        The points IsoScore (and a single-sentence task's silhouette) reads.
    chosen : numpy.ndarray of int, optional
        The pairs a pair task's silhouette reads (needed with ``pairs``).
    extra : bool, optional
        Also record ``intra/inter distance`` and, for a pair task, ``silhouette
        (sentences)`` (default True).

    Returns
    -------
    dict of str to float
        ``isoscore`` and ``silhouette``, and with ``extra`` the columns above.
    """
    record = {"isoscore": metrics.isoscore(points[rows])}
    if pairs is None:
        record["silhouette"] = metrics.silhouette(points[rows], labels[rows])
        if extra:
            record["intra/inter distance"] = class_distance_ratio(points[rows], labels[rows])
        return record
    paired = np.concatenate([points[pairs[chosen, 0]], points[pairs[chosen, 1]]], axis=1)
    record["silhouette"] = metrics.silhouette(paired, targets[chosen])
    if extra:
        record["intra/inter distance"] = class_distance_ratio(paired, targets[chosen])
        record["silhouette (sentences)"] = metrics.silhouette(points[rows], labels[rows])
    return record


def item_change_draws(first: np.ndarray, last: np.ndarray, task: dict, n_draws: int = 40,
                      seed: int = 0, limit: int | None = None) -> pd.DataFrame:
    """Half-sample draws of the change of IsoScore and silhouette from ``first`` to
    ``last`` embeddings of one run: the sampling of the task's items.

    Draw ``b`` measures both on the same random half of the points (and of the pairs, for a
    pair task), of at most ``limit`` each. Half-sampling without replacement (the delete-d
    jackknife with d = n/2) needs no duplicated point, which a silhouette cannot take, and
    the spread of a half-sample estimate around the full one estimates the full sample's
    standard error: for a mean, Var(half - full) = (1 - 1/2) s^2 / (n/2) = s^2 / n
    (Shao & Wu 1989). The classifier is not retrained; what moves is which items the
    metrics see, the part of a rerun with another ``seed`` that the seeds of one item
    sample do not carry.

    Parameters
    ----------
    first, last : numpy.ndarray of shape (n_points, dim)
        The run's embeddings before and after training.
    task : dict
        ``targets`` and ``pairs`` (None for a single-sentence task), as
        :func:`anisotropy.inputs.tasks.classification_task` returns them.
    n_draws : int, optional
        Half-sample draws (default 40).
    seed : int, optional
        Seed of the halves (stream ``item-halves``; default 0).
    limit : int or None, optional
        At most this many points (pairs) per half; None (the default) for ``n // 2``.

    Returns
    -------
    pandas.DataFrame
        One row per draw, columns ``isoscore`` and ``silhouette``: the value on ``last``
        minus that on ``first``, on the same half (:func:`point_metrics` without extras).

    References
    ----------
    Shao, J., Wu, C. F. J. (1989). A general theory for jackknife variance estimation.
    Annals of Statistics 17(3), 1176-1197.
    """
    targets, pairs = np.asarray(task["targets"]), task["pairs"]
    n_points = first.shape[0]
    labels = targets if pairs is None else pair_point_labels(pairs, targets, n_points)
    rng = stream(seed, "item-halves")

    def half(n: int) -> np.ndarray:
        size = n // 2 if limit is None else min(n // 2, limit)
        return np.sort(rng.choice(n, size=size, replace=False))

    records = []
    for _ in range(n_draws):
        rows = half(n_points)
        chosen = None if pairs is None else half(pairs.shape[0])
        before = point_metrics(first, labels, targets, pairs, rows, chosen, extra=False)
        after = point_metrics(last, labels, targets, pairs, rows, chosen, extra=False)
        records.append({name: after[name] - before[name] for name in before})
    return pd.DataFrame(records)


def class_distance_ratio(X: np.ndarray, labels: np.ndarray) -> float:
    """Mean squared distance between points of one class over that between points of
    different classes.

    With class sizes :math:`n_c`, means :math:`\\mu_c` and :math:`s_c = \\sum_{i \\in c}
    \\lVert x_i\\rVert^2`, the sum of squared distances over ordered pairs inside class
    :math:`c` is :math:`2 n_c s_c - 2 \\lVert n_c \\mu_c\\rVert^2`, and over all pairs
    :math:`2 n S - 2 \\lVert n \\mu\\rVert^2`; the between-class sum is the difference.
    Mickus et al.'s argument (Sec. 2, Eq. 4) needs this ratio to fall as a linear classifier
    is fitted: classes collapse relative to their separation.

    Parameters
    ----------
    X : numpy.ndarray of shape (n, d)
        The points, one per row.
    labels : numpy.ndarray of shape (n,)
        Each point's class.

    Returns
    -------
    float
        The mean squared distance over ordered pairs of distinct points of one class,
        divided by that over ordered pairs of points of different classes.

    Raises
    ------
    ValueError
        When ``labels`` is not one class per point, or there are not two classes with one
        of them holding two points.
    """
    X = np.asarray(metrics.check_embeddings(X), dtype=np.float64)
    labels = np.asarray(labels)
    if labels.shape != (X.shape[0],):
        raise ValueError(f"labels must give one class per point; got {labels.shape}.")
    squares = np.einsum("ij,ij->i", X, X)
    n = X.shape[0]
    total = 2 * n * squares.sum() - 2 * float(X.sum(axis=0) @ X.sum(axis=0))
    within, pairs_within = 0.0, 0
    for c in np.unique(labels):
        rows = labels == c
        size = int(rows.sum())
        class_sum = X[rows].sum(axis=0)
        within += 2 * size * squares[rows].sum() - 2 * float(class_sum @ class_sum)
        pairs_within += size * (size - 1)
    pairs_between = n * (n - 1) - pairs_within
    if pairs_within == 0 or pairs_between == 0:
        raise ValueError("Need two classes, one of them with two points.")
    return float((within / pairs_within) / ((total - within) / pairs_between))


def scale_behaviour(X: np.ndarray, factor: float = 3.0) -> pd.DataFrame:
    """IsoScore against the paper's Eq. 2 objective (the sum of all pairwise squared
    distances) when every vector is multiplied by ``factor``: IsoScore does not move, the
    objective grows by ``factor**2``. One row per quantity, columns ``original`` and
    ``scaled``.

    Parameters
    ----------
    X : numpy.ndarray of shape (n, d)
        The points, one per row.
    factor : float, optional
        The scale applied to every vector (default 3.0).

    Returns
    -------
    pandas.DataFrame
        Rows ``IsoScore`` and ``sum of pairwise squared distances (Eq. 2)`` (the sum over
        ordered pairs), columns ``original`` and ``scaled``.
    """
    X = np.asarray(metrics.check_embeddings(X), dtype=np.float64)

    def pairwise(M: np.ndarray) -> float:
        squares = np.einsum("ij,ij->i", M, M)
        return float(2 * M.shape[0] * squares.sum() - 2 * (M.sum(axis=0) @ M.sum(axis=0)))

    return pd.DataFrame({"original": [metrics.isoscore(X), pairwise(X)],
                         "scaled": [metrics.isoscore(factor * X), pairwise(factor * X)]},
                        index=["IsoScore", "sum of pairwise squared distances (Eq. 2)"])


def trajectory_correlations(trajectory: pd.DataFrame) -> dict[str, float]:
    """Pearson r and Spearman rho between the IsoScore and silhouette series.

    Parameters
    ----------
    trajectory : pandas.DataFrame
        One run's recorded updates, with columns ``isoscore`` and ``silhouette``.

    Returns
    -------
    dict of str to float
        ``{"pearson": r, "spearman": rho}``.

    Raises
    ------
    ValueError
        With fewer than 3 recorded updates.
    """
    iso, sil = trajectory["isoscore"].to_numpy(), trajectory["silhouette"].to_numpy()
    if iso.size < 3:
        raise ValueError(f"Need at least 3 recorded updates for a correlation; got {iso.size}.")
    return {"pearson": float(pearsonr(iso, sil)[0]), "spearman": float(spearmanr(iso, sil)[0])}


def seed_spread(trajectory: pd.DataFrame) -> CheckValue:
    """The ``seed-spread`` finding: the largest standard deviation across seeds (over
    recorded updates and both metrics) divided by the range the mean curve travels.

    Parameters
    ----------
    trajectory : pandas.DataFrame
        The recorded updates of every seed (columns ``seed, update, isoscore,
        silhouette``).

    Returns
    -------
    CheckValue
        Its value, Interval and details: the interval is the chi-square interval of that
        standard deviation, divided by the same range; the details give the metric, the
        update, the range and the largest and mean standard deviation of each metric.
    """
    wide = {m: trajectory.pivot(index="update", columns="seed", values=m)
            for m in ("isoscore", "silhouette")}
    worst = None
    for metric, table in wide.items():
        travel = float(np.ptp(table.mean(axis=1).to_numpy()))
        spread = table.std(axis=1, ddof=1)
        update = spread.idxmax()
        relative = float(spread.loc[update] / max(travel, 1e-12))
        if worst is None or relative > worst[0]:
            worst = (relative, metric, update, travel, table.loc[update].to_numpy())
    relative, metric, update, travel, values = worst
    sd = sd_interval(values)
    return CheckValue(relative, Interval(sd.low / max(travel, 1e-12), sd.high / max(travel, 1e-12),
                                         sd.method + ", divided by the curve's range"),
                      {"metric": metric, "update": int(update), "range": travel,
             **{f"{m} standard deviation, {how}": float(f(table.std(axis=1, ddof=1)))
                for m, table in wide.items()
                for how, f in (("largest", np.max), ("mean", np.mean))}})


def change_check(first: pd.Series, last: pd.Series, item_changes: pd.DataFrame | None,
                 subset_changes: pd.DataFrame | None, metric: str) -> CheckValue:
    """The change of one metric from the first to the last update, as ``isoscore-falls`` and
    ``silhouette-rises`` grade it: the mean over seeds of last minus first value, with a
    t-interval over seeds; with ``item_changes``, the half-sample draws of
    :func:`item_change_draws`, combined in quadrature with the normal interval of their
    standard error (the seeds share one sample of items, whose own variation the seeds'
    spread does not carry); with ``subset_changes``, the change of one seed trained on each
    of R subsets of the items, the spread of one such change
    (:func:`~anisotropy.geometry.intervals.spread_half_width`), in its place.

    Parameters
    ----------
    first, last : pandas.Series
        The metric at the first and the last update, one value per seed.
    item_changes : pandas.DataFrame or None
        Half-sample draws of the change (one column per metric).
    subset_changes : pandas.DataFrame or None
        The change of one seed trained on each subset of the items (one column per metric).
    metric : str
        ``isoscore`` or ``silhouette``.

    Returns
    -------
    CheckValue
        The measured value, its Interval and its details.
    """
    change = (last - first).to_numpy()
    interval = seed_interval(change)
    details = {"start": float(first.mean()), "end": float(last.mean())}
    if item_changes is not None:
        error = float(item_changes[metric].std(ddof=1))
        half = float(stats.norm.ppf(0.975)) * error
        interval = combine_independent(float(change.mean()), interval, Interval(
            change.mean() - half, change.mean() + half,
            f"normal, standard error {error:.3g} from {len(item_changes)} half-samples "
            "of the items"))
        details["item standard error"] = error
    if subset_changes is not None:
        half, df = spread_half_width([subset_changes[metric].to_numpy()])
        interval = combine_independent(float(change.mean()), interval, Interval(
            change.mean() - half, change.mean() + half,
            f"t interval of one run's change over {len(subset_changes)} subsets of the "
            f"items, each trained (df = {df:.0f})"))
        details["subset changes"] = subset_changes[metric].tolist()
    return CheckValue(float(change.mean()), interval, details)


def check_values(trajectory: pd.DataFrame,
                 item_changes: pd.DataFrame | None = None,
                 subset_changes: pd.DataFrame | None = None,
                 ranks: pd.DataFrame | None = None) -> dict[str, CheckValue]:
    """Measured value and 95% interval of the claim-5 checks for one setup.

    ``trajectory`` holds the recorded updates of every seed (columns ``seed, update,
    isoscore, silhouette``). Seeds are independent initializations of a trained part, so
    each interval is over seeds:

    - ``anticorrelation``: the mean over seeds of Pearson r between the IsoScore and
      silhouette series of ``ranks`` (every update, each seed on its own sample of points:
      :class:`RankSeries`), or of ``trajectory`` without it; t-interval over seeds (r of the
      recorded series, every point at every ``record_every`` updates, in the details);
    - ``spearman-anticorrelation``: the same over seeds for Spearman rho (its worst seed in
      the details). A series' updates are not a sample (successive
      updates are all of the training run, and strongly dependent), so r and rho get no
      sampling interval of their own; the seeds carry the initialization and, with
      ``ranks``, the sample of points. Seeds whose rho ties give an interval of zero width;
    - ``classes-collapse`` (when the trajectory has it): mean over seeds of the change of
      :func:`class_distance_ratio` from the first to the last update;
    - ``isoscore-falls`` / ``silhouette-rises``: :func:`change_check`;
    - ``seed-spread`` (a finding): :func:`seed_spread`.

    Parameters
    ----------
    trajectory : pandas.DataFrame
        The recorded updates of every seed.
    item_changes, subset_changes : pandas.DataFrame, optional
        The items' share of the changes' intervals (:func:`change_check`).
    ranks : pandas.DataFrame, optional
        Every update's IsoScore and silhouette per seed (:class:`RankSeries`).

    Returns
    -------
    dict of str to CheckValue
        ``{check id: CheckValue}`` (measured, Interval, details).
    """
    seeds = sorted(trajectory["seed"].unique())
    if len(seeds) < 2:
        raise ValueError(f"Claim 5's intervals need at least 2 seeds; got {len(seeds)}. "
                         "Raise n_seeds.")
    per_seed = pd.DataFrame([{"seed": s, **trajectory_correlations(t)}
                             for s, t in trajectory.groupby("seed")]).set_index("seed")
    first = trajectory[trajectory["update"] == 0].set_index("seed").loc[seeds]
    last = trajectory[trajectory["update"] == trajectory["update"].max()].set_index(
        "seed").loc[seeds]
    series = trajectory if ranks is None else ranks
    every = pd.DataFrame([{"seed": s, **trajectory_correlations(t)}
                          for s, t in series.groupby("seed")]).set_index("seed").loc[seeds]
    rank_r, rank_rho = every["pearson"], every["spearman"]
    n_points = int(series.groupby("seed")["update"].nunique().min())
    described = ("every update, a sample of points per seed" if ranks is not None
                 else "the recorded updates, every point")
    out = {ANTICORRELATION: CheckValue(
               float(rank_r.mean()), seed_interval(rank_r.to_numpy()),
               {"per seed": rank_r.tolist(), "updates in the series": n_points,
                "series": described,
                "r of the recorded series (mean)": float(per_seed["pearson"].mean())}),
           SPEARMAN_ANTICORRELATION: CheckValue(
               float(rank_rho.mean()), seed_interval(rank_rho.to_numpy()),
               {"per seed": rank_rho.tolist(), "worst seed": float(rank_rho.max()),
                "updates in the series": n_points, "series": described,
                "rho of the recorded series (mean)": float(per_seed["spearman"].mean())})}
    if "intra/inter distance" in trajectory.columns:
        ratio = (last["intra/inter distance"] - first["intra/inter distance"]).to_numpy()
        out[CLASSES_COLLAPSE] = CheckValue(
            float(ratio.mean()), seed_interval(ratio),
            {"start": float(first["intra/inter distance"].mean()),
             "end": float(last["intra/inter distance"].mean())})
    for check, metric in ((ISOSCORE_FALLS, "isoscore"), (SILHOUETTE_RISES, "silhouette")):
        out[check] = change_check(first[metric], last[metric], item_changes, subset_changes,
                                  metric)
    out[SEED_SPREAD] = seed_spread(trajectory)
    return out


@functools.cache
def _blas_controller():
    """One :class:`threadpoolctl.ThreadpoolController` (finding the loaded BLAS libraries
    takes milliseconds, too long to repeat at every update)."""

    return ThreadpoolController()


@dataclass
class RankSeries:
    """IsoScore and silhouette of one fixed sample of a setup's points after every update:
    the series Spearman's rho is read from (Mickus et al., Sec. 3.2, record the metrics at
    every update; their appendix reads them on samples of the items to save time, and a
    sample fixed for the run keeps the draw of items out of the ranks).

    Pass it as ``on_update`` to :func:`optimize_embeddings`. ``rows`` are the points
    IsoScore reads; for a pair task ``chosen`` are the pairs whose vectors ``[u; v]`` the
    silhouette reads (:func:`point_metrics` without the extra columns).

    Attributes
    ----------
    targets : int array
        One class per point, or per pair when ``pairs`` is given.
    pairs : int array (n_pairs, 2) or None
        The pairs of a pair task.
    rows : int array
        The sampled points.
    chosen : int array or None
        The sampled pairs of a pair task.
    records : list of dict
        ``{"update", "isoscore", "silhouette"}`` per call.
    """

    targets: np.ndarray
    pairs: np.ndarray | None
    rows: np.ndarray
    chosen: np.ndarray | None = None
    records: list = field(default_factory=list)

    @classmethod
    def sampled(cls, task: dict, n_points: int, size: int | None, seed: int) -> RankSeries:
        """A series on ``size`` points (and, for a pair task, ``size`` pairs) drawn without
        replacement from the stream ``rank-sample`` under ``seed``; every point (pair) when
        ``size`` is None or there are no more than ``size``.

        Parameters
        ----------
        task : dict
            ``targets`` and ``pairs`` (None for a single-sentence task), as
            :func:`anisotropy.inputs.tasks.classification_task` returns them.
        n_points : int
            Points (embeddings) of the setup.
        size : int or None
            Points (pairs) of the sample.
        seed : int
            The run's seed; each run draws its own sample.

        Returns
        -------
        RankSeries
            With no records yet.
        """
        if size is not None and size < 4:
            raise ValueError(f"A rank series needs at least 4 points; got size={size}.")
        rng = stream(seed, "rank-sample")

        def pick(n: int) -> np.ndarray:
            if size is None or n <= size:
                return np.arange(n)
            return np.sort(rng.choice(n, size=size, replace=False))

        pairs = None if task["pairs"] is None else np.asarray(task["pairs"])
        return cls(np.asarray(task["targets"]), pairs, pick(n_points),
                   None if pairs is None else pick(pairs.shape[0]))

    def __call__(self, update: int, points: np.ndarray) -> None:
        """Record the metrics of the sample at ``update``, on one BLAS thread: the
        matrices are small, and two threads on a shared core stall on each of the
        thousand small GEMMs and eigenproblems (measured: 1.6 s per update against 0.03 s
        with another job on the cores).

        Parameters
        ----------
        update : int
            The update just made (0: before the first), recorded as ``update``.
        points : array (n_points, dim)
            Every point of the setup after that update; the sample reads its ``rows`` (and
            ``chosen`` pairs).
        """
        labels = self.targets if self.pairs is None else None
        with _blas_controller().limit(limits=1, user_api="blas"):
            record = point_metrics(points, labels, self.targets, self.pairs, self.rows,
                                   self.chosen, extra=False)
        self.records.append({"update": update, **record})

    def frame(self) -> pd.DataFrame:
        """The records, one row per update: ``update, isoscore, silhouette``.

        Returns
        -------
        pandas.DataFrame
            One row per call, in call order.
        """
        return pd.DataFrame(self.records, columns=["update", "isoscore", "silhouette"])


@dataclass(frozen=True)
class SeedRuns:
    """The runs of one setup over its classifier initializations.

    Attributes
    ----------
    trajectory : DataFrame
        The recorded updates of every run (:func:`optimize_embeddings`), stacked with a
        ``seed`` column holding the run R.
    finals : list of array
        Each run's optimized embeddings.
    ranks : DataFrame or None
        With a rank sample, every run's :class:`RankSeries` (``update, isoscore,
        silhouette, seed``), each on its own sample of the points.
    """

    trajectory: pd.DataFrame
    finals: list
    ranks: pd.DataFrame | None = None


def run_seeds(embeddings: np.ndarray, task: dict, *, n_updates: int, n_seeds: int,
              seed: int = 0, bias: bool = True, metric_every: int = 1,
              metric_sample: int | None = None, desc: str = "setup",
              train_seed: int | None = None, rank_sample: int | bool | None = False
              ) -> SeedRuns:
    """:func:`optimize_embeddings` from the same initial ``embeddings`` for ``n_seeds``
    classifier initializations (run R from the stream ``run/R`` under ``seed``) of one setup.

    Parameters
    ----------
    embeddings : array (n_points, dim)
        The setup's initial embeddings.
    task : dict
        ``targets`` and ``pairs``, as :func:`anisotropy.inputs.tasks.classification_task`
        returns them.
    n_updates, bias, metric_every, metric_sample, train_seed
        As :func:`optimize_embeddings` (``train_seed`` per run from ``run/R``).
    n_seeds : int
        Classifier initializations (runs).
    seed : int
        The setup's seed; run R's is the stream ``run/R`` under it.
    desc : str
        Progress-bar label.
    rank_sample : int, None or False
        With an int, each run also records a :class:`RankSeries` at every update on its
        own sample of that many points; with None, on every point; with False (the
        default), no rank series.

    Returns
    -------
    SeedRuns
    """
    if n_seeds < 1:
        raise ValueError(f"n_seeds must be >= 1; got {n_seeds}.")
    trajectories, finals, series = [], [], []
    for run in range(n_seeds):
        run_seed = stream_seed(seed, f"run/{run}")
        ranks = (None if rank_sample is False else RankSeries.sampled(
            task, len(embeddings), rank_sample, run_seed))
        trajectory, final = optimize_embeddings(
            embeddings, task["targets"], pairs=task["pairs"], n_updates=n_updates,
            seed=run_seed, train_seed=sub_seed(train_seed, f"run/{run}"), bias=bias,
            metric_every=metric_every, metric_sample=metric_sample, desc=f"{desc} seed {run}",
            return_final=True, on_update=ranks)
        trajectories.append(trajectory.assign(seed=run))
        finals.append(final)
        if ranks is not None:
            series.append(ranks.frame().assign(seed=run))
    return SeedRuns(pd.concat(trajectories, ignore_index=True), finals,
                    pd.concat(series, ignore_index=True) if series else None)


def setup_summary(trajectory: pd.DataFrame) -> dict:
    """One setup's numbers over its seeds: Pearson r (mean and worst seed), Spearman rho,
    IsoScore and silhouette at the first and last update, final training accuracy, the
    largest standard deviation across seeds of each metric, and seconds per seed.

    Parameters
    ----------
    trajectory : pandas.DataFrame
        The recorded updates of every seed (:attr:`SeedRuns.trajectory`): columns ``seed,
        update, isoscore, silhouette, accuracy, seconds`` and, for a pair task,
        ``silhouette (sentences)``.

    Returns
    -------
    dict of str to float
        ``Pearson r (mean)``, ``Pearson r (worst seed)`` (the largest), ``Spearman rho
        (mean)``, ``IsoScore start`` / ``end``, ``silhouette start`` / ``end``, ``final
        accuracy``, ``max std IsoScore``, ``max std silhouette`` (over updates) and
        ``seconds per seed``; for a pair task also ``Pearson r, sentence silhouette
        (mean)`` and ``sentence silhouette end``. Start and end values are means over seeds.
    """
    per_seed = pd.DataFrame([trajectory_correlations(t) for _, t in trajectory.groupby("seed")])
    first = trajectory[trajectory["update"] == 0]
    last = trajectory[trajectory["update"] == trajectory["update"].max()]
    spread = trajectory.groupby("update")[["isoscore", "silhouette"]].std().max()
    other = {}
    if "silhouette (sentences)" in trajectory:  # a pair task: the sentence-level reading
        sentences = trajectory.assign(silhouette=trajectory["silhouette (sentences)"])
        other = {"Pearson r, sentence silhouette (mean)": float(np.mean(
            [trajectory_correlations(t)["pearson"] for _, t in sentences.groupby("seed")])),
            "sentence silhouette end": float(
                last["silhouette (sentences)"].mean())}
    return {"Pearson r (mean)": float(per_seed["pearson"].mean()),
            "Pearson r (worst seed)": float(per_seed["pearson"].max()),
            "Spearman rho (mean)": float(per_seed["spearman"].mean()),
            "IsoScore start": float(first["isoscore"].mean()),
            "IsoScore end": float(last["isoscore"].mean()),
            "silhouette start": float(first["silhouette"].mean()),
            "silhouette end": float(last["silhouette"].mean()),
            "final accuracy": float(last["accuracy"].mean()),
            "max std IsoScore": float(spread["isoscore"]),
            "max std silhouette": float(spread["silhouette"]),
            "seconds per seed": float(trajectory.groupby("seed")["seconds"].max().mean()),
            **other}
