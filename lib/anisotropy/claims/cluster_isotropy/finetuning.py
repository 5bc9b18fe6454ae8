"""Claim 4, the seed's fine-tuning analysis: the cluster-based method inside fine-tuning.

Rajaee & Sheikhi's slides (seed 000, "Fine-tune the BERT" to "Fine-tuning results") put the
proposed algorithm between BERT and its classifier, on the [CLS] vectors ("in fine-tuning we
consider CLS token instead of all word representations") of each batch ("we apply
clustering algorithm on a batch"), fine-tune for 2 epochs and report, on the dev sets, that
accuracy falls while the isotropy I(W) of the CLS vectors rises (RTE 65.3 to 62.8 accuracy,
I(W) 4.86e-5 to 0.29; WiC 64.04 to 62.1, 8.26e-4 to 0.13), and that fine-tuned CLS vectors
are already zero-mean.

- :func:`batch_cluster_isotropy`: the method on one batch of vectors, in torch;
- :func:`pair_task`: RTE and WiC as (first text, second text, label);
- :func:`fine_tune`: one run, plain or with the method, and its dev numbers (cached);
- :func:`run_seeds`: plain and method runs over seeds, one row per run, plus the
  pre-trained model's dev CLS vectors;
- :func:`check_values`: the per-seed changes the checks grade, with t-intervals over seeds.

The slides give neither K, D, the batch size nor the learning rate; they are parameters
(the book's defaults are stated where they are set).
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd
from sklearn.cluster import KMeans
from tqdm.auto import tqdm

from anisotropy.claims.base import CheckValue
from anisotropy.geometry import metrics
from anisotropy.geometry.intervals import seed_interval
from anisotropy.geometry.sampling import sample_indices
from anisotropy.geometry.streams import stream, stream_seed, train_stream_seed
from anisotropy.geometry.transforms import ClusterIsotropy
from anisotropy.inputs import cache, data
from anisotropy.inputs.memory import free_memory
from anisotropy.inputs.version import __version__

__all__ = ["TASKS", "FineTuning", "batch_cluster_isotropy", "batches", "pair_task",
           "fine_tune", "pretrained_cls", "run_seeds", "check_values"]

#: The seed's fine-tuning tasks: name -> (train split, evaluation split).
TASKS = {"rte": ("train", "dev"), "wic": ("train", "dev")}
#: Bumped when a change of this module changes what a cached run holds.
FINETUNE_VERSION = 1


def batch_cluster_isotropy(H, n_clusters: int, n_components: int, seed: int = 0):
    """The cluster-based method on one batch of vectors (torch), as inside fine-tuning.

    The batch is clustered with K-means (``min(n_clusters, n)`` clusters, one
    initialisation, ``random_state=seed``); each cluster's mean is subtracted and its top
    ``D = min(n_components, size - 1)`` principal directions are projected out:

    .. math:: \\tilde h_i = (I - U_c^\\top U_c)(h_i - \\mu_c), \\qquad i \\in c

    where :math:`\\mu_c` is the mean of cluster :math:`c` and :math:`U_c` holds its top
    right singular vectors. Gradients flow through the means and the projection; the
    assignment and the directions are constants of the batch (K-means and the SVD are not
    differentiated). On the same assignment it equals
    :class:`~anisotropy.geometry.transforms.ClusterIsotropy` fitted on the batch.

    Parameters
    ----------
    H : torch.Tensor of shape (n, dim), n >= 2
        The batch's vectors (finite).
    n_clusters, n_components : int
        K >= 1 and D >= 0.
    seed : int
        ``random_state`` of K-means.

    Returns
    -------
    torch.Tensor of shape (n, dim)
        The transformed vectors, in the rows' order of ``H``.

    Raises
    ------
    ValueError
        If ``H`` is not 2-D, has fewer than 2 rows or a value that is not finite, or K < 1
        or D < 0.

    References
    ----------
    Rajaee, S., Pilehvar, M. T. (2021). A cluster-based approach for improving isotropy in
    contextual embedding space. ACL. Rajaee & Sheikhi (2020) slides, "Fine-tuning BERT".
    """
    import torch

    if getattr(H, "ndim", None) != 2:
        raise ValueError(f"H must be a 2-d tensor (batch, dim); got shape "
                         f"{tuple(getattr(H, 'shape', ()))}.")
    n = H.shape[0]
    if n < 2:
        raise ValueError(f"The method needs at least 2 vectors in a batch; got {n}.")
    if n_clusters < 1:
        raise ValueError(f"n_clusters must be >= 1, got {n_clusters}.")
    if n_components < 0:
        raise ValueError(f"n_components must be >= 0, got {n_components}.")
    X = H.detach().cpu().numpy().astype(np.float64)
    if not np.isfinite(X).all():
        raise ValueError("H holds NaN or infinite values.")
    k = min(n_clusters, n)
    if k == 1:
        labels = np.zeros(n, dtype=int)
    else:
        labels = KMeans(n_clusters=k, n_init=1, random_state=seed).fit_predict(X)
    pieces, order = [], []
    for cluster in np.unique(labels):
        rows = np.flatnonzero(labels == cluster)
        members = H[torch.as_tensor(rows, device=H.device)]
        centred = members - members.mean(dim=0, keepdim=True)
        rank = min(n_components, rows.size - 1, H.shape[1])
        if rank > 0:
            _, _, vt = torch.linalg.svd(centred.detach(), full_matrices=False)
            directions = vt[:rank]
            centred = centred - (centred @ directions.T) @ directions
        pieces.append(centred)
        order.append(rows)
    inverse = np.argsort(np.concatenate(order))
    return torch.cat(pieces)[torch.as_tensor(inverse, device=H.device)]


def batches(n: int, batch_size: int, order: np.ndarray | None = None) -> list[np.ndarray]:
    """Index batches of ``range(n)`` (or of ``order``) of ``batch_size``; a last batch of one
    item joins the batch before it, since the method needs two vectors to cluster.

    Parameters
    ----------
    n : int
        Items, >= 2.
    batch_size : int
        Items per batch, >= 2.
    order : numpy.ndarray or None, optional
        The items in the order they are batched (a permutation of ``range(n)``); None:
        ``range(n)``.

    Returns
    -------
    list of numpy.ndarray
        The batches' indices, in order; every batch holds ``batch_size`` items but the last,
        which holds from 2 to ``batch_size + 1``.

    Raises
    ------
    ValueError
        If ``n`` < 2 or ``batch_size`` < 2.
    """
    if n < 2:
        raise ValueError(f"Batches need at least 2 items; got {n}.")
    if batch_size < 2:
        raise ValueError(f"batch_size must be >= 2, got {batch_size}.")
    items = np.arange(n) if order is None else np.asarray(order)
    cuts = list(range(0, n, batch_size))
    parts = [items[start:start + batch_size] for start in cuts]
    if len(parts) > 1 and parts[-1].size == 1:
        parts[-2] = np.concatenate(parts[-2:])
        parts.pop()
    return parts


def pair_task(task: str, split: str, sep: str, n_items: int | None = None,
              seed: int = 0) -> dict:
    """A fine-tuning task as ``first``, ``second`` texts and binary ``labels``.

    RTE: premise and hypothesis (label 1 = entailment). WiC: the target word, the
    tokenizer's separator ``sep`` and the first sentence, then the second sentence (label
    1 = same sense), so the [CLS] vector sees which word is asked about.

    Parameters
    ----------
    task : {"rte", "wic"}
        The task (:data:`TASKS`).
    split : str
        The split, e.g. ``"train"`` or ``"dev"``.
    sep : str
        The tokenizer's separator token, between WiC's target word and first sentence.
    n_items : int or None, optional
        Keeps a random subset of that many items, in the data's order, from the stream
        ``corpus/TASK-SPLIT`` under ``seed``; None: every item.
    seed : int, optional
        The data seed.

    Returns
    -------
    dict
        ``task``, ``split``, ``first`` and ``second`` (lists of str) and ``labels`` (an int
        array of 0 and 1).

    Raises
    ------
    ValueError
        For a task not in :data:`TASKS`.
    """
    if task not in TASKS:
        raise ValueError(f"Unknown fine-tuning task {task!r}; choose one of {sorted(TASKS)}.")
    if task == "rte":
        frame = data.rte(split)
        first, second = frame["sentence1"], frame["sentence2"]
        labels = frame["label_id"]
    else:
        frame = data.wic(split)
        first = frame["word"] + f" {sep} " + frame["sentence1"]
        second, labels = frame["sentence2"], frame["label"]
    keep = sample_indices(len(frame), n_items, stream_seed(seed, f"corpus/{task}-{split}"),
                          sort=True)
    return {"task": task, "split": split, "first": first.to_numpy()[keep].tolist(),
            "second": second.to_numpy()[keep].tolist(),
            "labels": labels.to_numpy()[keep].astype(int)}


@dataclass(frozen=True)
class FineTuning:
    """Settings of one fine-tuning run (the slides give only the 2 epochs). Every field is
    part of a cached run's key; each is checked when the settings are made.

    Attributes
    ----------
    epochs : int
        Passes over the training items (default 2, >= 1).
    batch_size : int
        Pairs per batch, of training and of evaluation (default 32, >= 2: the method
        clusters a batch).
    learning_rate : float
        AdamW's peak learning rate (default 2e-5).
    max_length : int
        Longest input pair in model tokens, truncated beyond (default 128, >= 8).
    n_clusters, n_components : int
        K and D of the cluster-based method on each batch (:func:`batch_cluster_isotropy`;
        defaults 3 and 2).
    warmup : float
        Share of the steps with a linear warm-up, then linear decay (default 0.1, in
        [0, 1)).
    weight_decay : float
        AdamW's weight decay, on every parameter (default 0.01).
    max_grad_norm : float
        Gradient clipping: the global norm the gradients are clipped to (default 1.0).
    dropout : float or None
        Dropout before the classifier; None (default): the model's hidden dropout
        (``hidden_dropout_prob``, else 0.1).
    """

    epochs: int = 2
    batch_size: int = 32
    learning_rate: float = 2e-5
    max_length: int = 128
    n_clusters: int = 3
    n_components: int = 2
    warmup: float = 0.1
    weight_decay: float = 0.01
    max_grad_norm: float = 1.0
    dropout: float | None = None

    def __post_init__(self) -> None:
        if self.epochs < 1:
            raise ValueError(f"epochs must be >= 1, got {self.epochs}.")
        if self.batch_size < 2:
            raise ValueError(f"batch_size must be >= 2 (the method clusters a batch), got "
                             f"{self.batch_size}.")
        if not self.learning_rate > 0:
            raise ValueError(f"learning_rate must be > 0, got {self.learning_rate}.")
        if self.max_length < 8:
            raise ValueError(f"max_length must be >= 8 tokens, got {self.max_length}.")
        if self.n_clusters < 1 or self.n_components < 0:
            raise ValueError(f"n_clusters must be >= 1 and n_components >= 0; got "
                             f"{self.n_clusters} and {self.n_components}.")
        if not 0 <= self.warmup < 1:
            raise ValueError(f"warmup must be in [0, 1), got {self.warmup}.")
        if self.weight_decay < 0 or not self.max_grad_norm > 0:
            raise ValueError(f"weight_decay must be >= 0 and max_grad_norm > 0; got "
                             f"{self.weight_decay} and {self.max_grad_norm}.")
        if self.dropout is not None and not 0 <= self.dropout < 1:
            raise ValueError(f"dropout must be in [0, 1) or None, got {self.dropout}.")


def _digest(part: dict) -> str:
    return cache.make_key({"first": part["first"], "second": part["second"],
                           "labels": part["labels"].tolist()})


def _dev_numbers(raw: np.ndarray, inputs: np.ndarray, predictions: np.ndarray,
                 labels: np.ndarray) -> dict:
    return {"accuracy": float(100 * np.mean(predictions == labels)),
            "log10_iw": metrics.partition_isotropy(inputs).log10,
            "log10_iw_cls": metrics.partition_isotropy(raw).log10,
            "isoscore": metrics.isoscore(inputs),
            "centroid_ratio_cls": metrics.centroid_norm_ratio(raw)}


def fine_tune(encoder, train: dict, dev: dict, *, method: bool, settings: FineTuning,
              seed: int = 0, progress: bool = True) -> dict:
    """Fine-tune ``encoder``'s model with a linear classifier on its [CLS] vector.

    A fresh copy of the weights is trained with AdamW, a linear warm-up and decay, gradient
    clipping and dropout before the classifier (all in ``settings``), on shuffled batches
    (seeded; the plain and method runs of a seed start from the same classifier and see the
    same batch order); the classifier reads the last layer's [CLS] vector directly (no
    pooler layer); with
    ``method=True`` each batch's CLS vectors pass through :func:`batch_cluster_isotropy`
    before the classifier, in training and on the dev batches. Returns the dev numbers:
    ``accuracy`` (%), ``log10_iw`` (I(W) of the classifier's input vectors),
    ``log10_iw_cls`` (of the CLS vectors themselves), ``isoscore`` and
    ``centroid_ratio_cls`` (:func:`~anisotropy.geometry.metrics.centroid_norm_ratio` of
    the CLS vectors), for plain runs ``log10_iw_offline`` (the method applied afterwards to
    all dev CLS vectors at once), the training ``losses``, ``seconds`` and the device and
    library versions. Runs are cached, keyed by the model's weights, both data sets, the
    settings, the seed and the code version (not the device: like extracted vectors, a run
    made on a GPU serves a CPU reader, and its record says where it ran).

    Parameters
    ----------
    encoder : Encoder
        The pre-trained model; its weights are loaded afresh in float32, on its device.
    train, dev : dict
        The training and dev pairs (:func:`pair_task`), at least 2 items each.
    method : bool
        Whether the method runs inside fine-tuning.
    settings : FineTuning
        The run's hyper-parameters.
    seed : int, optional
        The run's seed: the streams of the initialisation (``init``), the batch order
        (``batch-order``), the batches' K-means (``batch-clusters/...``) and the offline
        method (``offline-clusters``).
    progress : bool, optional
        Show a progress bar over the training steps.

    Returns
    -------
    dict
        The dev numbers and the run's record, as above, with ``n_train`` and ``n_dev``
        (the training and dev items).

    Raises
    ------
    TypeError
        If ``settings`` is not a :class:`FineTuning`.
    ValueError
        If ``train`` or ``dev`` has fewer than 2 items.
    """
    if not isinstance(settings, FineTuning):
        raise TypeError(f"settings must be a FineTuning, got {type(settings).__name__}.")
    for name, part in (("train", train), ("dev", dev)):
        if len(part["labels"]) < 2:
            raise ValueError(f"The {name} set needs at least 2 items; got "
                             f"{len(part['labels'])}.")
    description = {"kind": "finetune", "model": encoder.name,
                   "fingerprint": encoder.resolved.fingerprint, "train": _digest(train),
                   "dev": _digest(dev), "method": bool(method), "seed": int(seed),
                   "settings": asdict(settings), "finetune_version": FINETUNE_VERSION}

    def build(tmp) -> None:
        began = time.perf_counter()
        outcome = _train_and_evaluate(encoder, train, dev, method, settings, seed, progress)
        import torch
        import transformers

        outcome["seconds"] = round(time.perf_counter() - began, 2)
        outcome.update({"library_version": __version__, "device": str(encoder.device),
                        "torch": torch.__version__, "transformers": transformers.__version__})
        (tmp / "run.json").write_text(json.dumps(outcome), encoding="utf-8")

    entry = cache.get_or_create("finetune", description, build)
    return json.loads((entry / "run.json").read_text(encoding="utf-8"))


def _cls_batch(model, tokenizer, part: dict, rows, max_length: int, device):
    """The last layer's [CLS] vectors of the pairs ``rows`` of ``part`` (padded batch)."""
    inputs = tokenizer([part["first"][i] for i in rows], [part["second"][i] for i in rows],
                       truncation=True, max_length=max_length, padding=True,
                       return_tensors="pt").to(device)
    return model(**inputs).last_hidden_state[:, 0]


def _train_and_evaluate(encoder, train, dev, method, settings, seed, progress) -> dict:
    import torch
    from transformers import AutoModel, get_linear_schedule_with_warmup

    torch.manual_seed(stream_seed(seed, "init"))
    model = AutoModel.from_pretrained(encoder.resolved.path, dtype=torch.float32)
    model.to(encoder.device)
    tokenizer = encoder.tokenizer
    dim = int(model.config.hidden_size)
    head = torch.nn.Linear(dim, 2).to(encoder.device)
    rate = settings.dropout
    if rate is None:
        rate = float(getattr(model.config, "hidden_dropout_prob", 0.1))
    dropout = torch.nn.Dropout(rate)
    parameters = list(model.parameters()) + list(head.parameters())
    optimizer = torch.optim.AdamW(parameters, lr=settings.learning_rate,
                                  weight_decay=settings.weight_decay)
    rng = stream(seed, "batch-order")
    n_train = len(train["labels"])
    steps = settings.epochs * len(batches(n_train, settings.batch_size))
    scheduler = get_linear_schedule_with_warmup(optimizer, int(settings.warmup * steps), steps)
    labels = torch.as_tensor(train["labels"], device=encoder.device)

    def cls_vectors(part, rows):
        return _cls_batch(model, tokenizer, part, rows, settings.max_length, encoder.device)

    def transform(hidden, batch: str):
        if not method:
            return hidden
        return batch_cluster_isotropy(hidden, settings.n_clusters, settings.n_components,
                                      stream_seed(seed, f"batch-clusters/{batch}"))

    losses, step = [], 0
    model.train()
    bar = tqdm(total=steps, desc=f"fine-tune {train['task']} {'method' if method else 'plain'}"
               f" seed {seed}", disable=not progress)
    for _ in range(settings.epochs):
        for rows in batches(n_train, settings.batch_size, rng.permutation(n_train)):
            hidden = cls_vectors(train, rows)
            logits = head(dropout(transform(hidden, f"train/{step}")))
            loss = torch.nn.functional.cross_entropy(logits, labels[torch.as_tensor(rows)])
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(parameters, settings.max_grad_norm)
            optimizer.step()
            scheduler.step()
            losses.append(float(loss.detach()))
            step += 1
            bar.update()
    bar.close()
    model.eval()
    raw, inputs, predictions = [], [], []
    with torch.inference_mode():
        for number, rows in enumerate(batches(len(dev["labels"]), settings.batch_size)):
            hidden = cls_vectors(dev, rows)
            given = transform(hidden, f"dev/{number}")
            predictions.append(head(given).argmax(dim=1).cpu().numpy())
            raw.append(hidden.cpu().numpy())
            inputs.append(given.cpu().numpy())
    outcome = _dev_numbers(np.concatenate(raw).astype(np.float64),
                           np.concatenate(inputs).astype(np.float64),
                           np.concatenate(predictions), np.asarray(dev["labels"]))
    if not method:  # "even applied offline": the method on the plain model's dev CLS vectors
        offline = ClusterIsotropy(settings.n_clusters, settings.n_components, "kmeans",
                                  stream_seed(seed, "offline-clusters"), n_init=1
                                  ).fit_transform(np.concatenate(raw))
        outcome["log10_iw_offline"] = metrics.partition_isotropy(offline).log10
    outcome.update({"losses": losses, "n_train": n_train, "n_dev": len(dev["labels"])})
    return outcome


def pretrained_cls(encoder, dev: dict, max_length: int, batch_size: int = 32) -> dict:
    """The pre-trained model's dev [CLS] vectors, before any fine-tuning: ``log10_iw_cls``
    and ``centroid_ratio_cls``, the reference for "fine-tuned CLS vectors are zero-mean".

    Parameters
    ----------
    encoder : Encoder
        The pre-trained model, as loaded.
    dev : dict
        The dev pairs (:func:`pair_task`).
    max_length : int
        Tokens per input pair (longer pairs are truncated).
    batch_size : int, optional
        Pairs per forward pass (32 by default).

    Returns
    -------
    dict
        ``log10_iw_cls`` (log10 I(W) of the last layer's [CLS] vectors) and
        ``centroid_ratio_cls`` (:func:`~anisotropy.geometry.metrics.centroid_norm_ratio`
        of them).
    """
    import torch

    vectors = []
    with torch.inference_mode():
        for rows in batches(len(dev["labels"]), batch_size):
            hidden = _cls_batch(encoder.model, encoder.tokenizer, dev, rows, max_length,
                                encoder.device)
            vectors.append(hidden.float().cpu().numpy())
    X = np.concatenate(vectors).astype(np.float64)
    return {"log10_iw_cls": metrics.partition_isotropy(X).log10,
            "centroid_ratio_cls": metrics.centroid_norm_ratio(X)}


def run_seeds(encoder, task: str, *, settings: FineTuning, n_seeds: int,
              n_train: int | None = None, n_dev: int | None = None, seed: int = 0,
              data_seed: int = 0, progress: bool = True, train_seed: int | None = None
              ) -> pd.DataFrame:
    """Plain and method runs of one task for ``n_seeds`` runs numbered 0 .. n-1 in the
    ``seed`` column (run R trains from the stream ``finetune/TASK/R`` under ``train_seed``,
    or under ``seed`` when that is ``None``; its
    plain and method runs share the initial classifier and the batch order), plus a
    ``pretrained`` row. ``n_train`` and ``n_dev`` keep random subsets of the training and
    dev pairs (:func:`pair_task` under ``data_seed``; None: all of them). One row per run:
    condition, seed, the dev numbers of :func:`fine_tune` (without the losses) and
    ``final_loss``, the mean of the last tenth of the training losses.

    Parameters
    ----------
    encoder : Encoder
        The pre-trained model.
    task : {"rte", "wic"}
        The task (:data:`TASKS`).
    settings : FineTuning
        The runs' hyper-parameters.
    n_seeds : int
        Seeds, >= 2; each runs plain and with the method.
    n_train, n_dev : int or None, optional
        Training and dev pairs kept; None: all of them.
    seed : int, optional
        The claim's seed for the runs, when ``train_seed`` is None.
    data_seed : int, optional
        The seed of the subsets of pairs.
    progress : bool, optional
        Show progress bars over the training steps.
    train_seed : int or None, optional
        The stream the runs train from (``finetune/TASK/R`` under it).

    Returns
    -------
    pandas.DataFrame
        The ``pretrained`` row (``seed`` None, ``n_train`` 0, the numbers of
        :func:`pretrained_cls`), then a ``plain`` and a ``method`` row per seed; every row
        also gives ``task``, ``majority`` (the dev accuracy of always answering the commoner
        label, %) and ``dim``.

    Raises
    ------
    ValueError
        If ``n_seeds`` < 2 or the task is unknown.
    """
    if n_seeds < 2:
        raise ValueError(f"n_seeds must be >= 2 (the checks' intervals are over seeds); got "
                         f"{n_seeds}.")
    train_split, dev_split = TASKS.get(task, (None, None))
    if train_split is None:
        raise ValueError(f"Unknown fine-tuning task {task!r}; choose one of {sorted(TASKS)}.")
    sep = encoder.tokenizer.sep_token or "|"
    train = pair_task(task, train_split, sep, n_train, data_seed)
    dev = pair_task(task, dev_split, sep, n_dev, data_seed)
    share = float(np.mean(dev["labels"]))
    majority = 100 * max(share, 1 - share)  # accuracy of always answering the commoner label
    rows = [{"task": task, "condition": "pretrained", "seed": None, "n_train": 0,
             "n_dev": len(dev["labels"]), "majority": majority, "dim": encoder.dim,
             **pretrained_cls(encoder, dev, settings.max_length, settings.batch_size)}]
    for run in range(n_seeds):
        for method in (False, True):
            outcome = fine_tune(encoder, train, dev, method=method, settings=settings,
                                seed=train_stream_seed(seed, train_seed, f"finetune/{task}/{run}"),
                                progress=progress)
            free_memory()  # the run's model, optimizer and activations, before the next
            losses = outcome.pop("losses")
            tail = losses[-max(1, len(losses) // 10):]
            rows.append({"task": task, "condition": "method" if method else "plain",
                         "seed": run, "majority": majority, "dim": encoder.dim,
                         **outcome, "final_loss": float(np.mean(tail))})
    return pd.DataFrame(rows)


def check_values(runs: pd.DataFrame) -> dict:
    """Per task, the graded changes (method minus plain, paired by seed) and their
    t-intervals over seeds: ``accuracy`` (points), ``log10_iw`` (orders of magnitude of the
    classifier inputs' I(W)) and ``log10_iw_cls`` (of the encoder's own CLS vectors); plus
    the zero-mean finding's numbers (with the offline method's I(W) on the plain runs).

    Parameters
    ----------
    runs : pandas.DataFrame
        :func:`run_seeds`' rows, of one or more tasks.

    Returns
    -------
    dict
        ``{task: {"accuracy": CheckValue, "log10_iw": CheckValue, "log10_iw_cls":
        CheckValue, "zero_mean": {...}}}``, each CheckValue (value, interval, details):
        its value the mean change over the seeds, its
        :class:`~anisotropy.geometry.intervals.Interval` a t-interval over them, its
        details the plain and method values and the seeds; ``zero_mean`` the
        centroid norm ratios of the pre-trained, plain and method CLS vectors and the
        plain runs' log10 I(W) before and after the method applied offline.

    Raises
    ------
    ValueError
        If a task has plain and method runs for fewer than 2 seeds.
    """
    out = {}
    for task, part in runs.groupby("task", sort=False):
        plain = part[part["condition"] == "plain"].set_index("seed")
        method = part[part["condition"] == "method"].set_index("seed")
        seeds = sorted(set(plain.index) & set(method.index))
        if len(seeds) < 2:
            raise ValueError(f"{task}: the checks need plain and method runs for at least 2 "
                             f"seeds; got {len(seeds)}.")
        values = {}
        for column in ("accuracy", "log10_iw", "log10_iw_cls"):
            change = (method.loc[seeds, column] - plain.loc[seeds, column]).to_numpy(float)
            values[column] = CheckValue(float(change.mean()), seed_interval(change),
                                        {"plain": plain.loc[seeds, column].tolist(),
                                         "method": method.loc[seeds, column].tolist(),
                                         "seeds": [int(s) for s in seeds]})
        pretrained = part[part["condition"] == "pretrained"].iloc[0]
        values["zero_mean"] = {
            "pretrained": float(pretrained["centroid_ratio_cls"]),
            "fine-tuned (plain)": float(plain.loc[seeds, "centroid_ratio_cls"].mean()),
            "fine-tuned (method)": float(method.loc[seeds, "centroid_ratio_cls"].mean()),
            "log10 I(W) of the plain runs' CLS vectors": float(
                plain.loc[seeds, "log10_iw_cls"].mean()),
            "log10 I(W) after the method applied offline": float(
                plain.loc[seeds, "log10_iw_offline"].mean())}
        out[task] = values
    return out
