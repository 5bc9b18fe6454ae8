"""Claim 3, part B: calibrating sentence embeddings (BERT-flow, BERT-whitening) on STS.

- :class:`FlowCalibration`: ``zuko``'s RealNVP (affine coupling layers, no actnorm, one
  scale; BERT-flow trained a Glow, with additive coupling, actnorm and several scales),
  fitted by maximum likelihood on unlabelled sentence vectors. Vectors are first centred
  and divided by one global scale (their geometry is kept), then mapped to the latent
  space; similarity is the cosine there, as in Li et al. (2020). The one module of the
  library that trains with torch (imported when fitting).
- :data:`POOLINGS` and :func:`pooled_vectors`: the sentence poolings, named by what the
  papers' code computes;
- :func:`calibrate_and_score`: whitening and flows fitted per task and scored;
- :func:`check_values`: the measured values and intervals of the calibration checks.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from anisotropy.claims import sts
from anisotropy.claims.base import CheckValue
from anisotropy.claims.frequency.ids import FLOW_HELPS, WHITENING_HELPS
from anisotropy.geometry.intervals import (
    Interval,
    combine_independent,
    seed_interval,
    spread_half_width,
)
from anisotropy.geometry.metrics import check_embeddings
from anisotropy.geometry.streams import stream_seed, sub_seed, train_stream_seed
from anisotropy.geometry.transforms import Whitening
from anisotropy.inputs import data
from anisotropy.inputs import tasks as task_registry

__all__ = ["FlowCalibration", "POOLINGS", "WHITENING_GRADED", "pooled_vectors",
           "calibrate_and_score", "change_draws", "check_values", "task_changes",
           "refit_draws", "whitening_refit_draws", "flow_refit_draws", "refit_interval",
           "whitening_interval", "flow_interval", "flow_budget", "task_flow_budget",
           "flow_fit_pairs", "BERT_FLOW_FIT", "adam_weight_decay_step", "NO_WEIGHT_DECAY",
           "BITS_PER_PAIR", "BERT_FLOW_COUPLING_WIDTH",
           "flow_sweep", "epoch_batches",
           "task_pairs", "BERT_FLOW_EPOCHS", "BERT_FLOW_PAIRS", "BERT_FLOW_BATCH"]

#: BERT-flow's training budget for a flow (bohanli/BERT-flow README, "Unsupervised learning
#: of flow-based generative models": ``--num_train_epochs=1.0 --use_full_for_training=1
#: --flow_learning_rate=1e-3``; ``run_siamese.py``: ``train_batch_size`` 32 pairs, two
#: sentences each, ``num_train_steps = int(len(train_examples) / train_batch_size *
#: num_train_epochs)`` over the task's train, dev and test files).
BERT_FLOW_EPOCHS = 1.0
BERT_FLOW_PAIRS = 32
BERT_FLOW_BATCH = 2 * BERT_FLOW_PAIRS

#: What BERT-flow's target flow trains on, per STS task: the dataset and the splits that
#: ``run_siamese.py`` reads with ``use_full_for_training=1`` (train, dev and test files;
#: ``siamese_utils.py``'s ``Sts_12_16_Processor`` names ``full.txt`` for all three, so
#: STS12-16 are read three times; ``SickRProcessor`` reads SICK's train, trial and test).
#: The repository does not include its ``full.txt``: the counts assume it holds the pairs
#: SentEval scores, as our copies do. Only their pairs are counted (:func:`flow_fit_pairs`);
#: the book fits on its own sample.
BERT_FLOW_FIT: dict[str, tuple[str, tuple[str, ...]]] = {
    **{f"STS1{i}": (f"sts1{i}", ("test", "test", "test")) for i in range(2, 7)},
    "STS-B": ("stsbenchmark", ("train", "dev", "test")),
    "STS-B-dev": ("stsbenchmark", ("train", "dev", "test")),
    "SICK-R": ("sick", ("train", "trial", "test")),
}


#: Parameters BERT's optimiser leaves out of weight decay: those whose name holds one of these
#: (``optimization_bert_flow.py``, ``exclude_from_weight_decay``).
NO_WEIGHT_DECAY = ("LayerNorm", "layer_norm", "bias")
#: BERT-flow's flow loss per our loss: bits instead of nats per dimension (its Glow divides
#: the objective by ln 2 times the dimension), summed over a pair's two sentences.
BITS_PER_PAIR = 2 / np.log(2)


def adam_weight_decay_step(param, grad, m, v, learning_rate: float, weight_decay: float,
                           beta_1: float = 0.9, beta_2: float = 0.999,
                           epsilon: float = 1e-6) -> None:
    r"""One step of BERT's ``AdamWeightDecayOptimizer``, in place on torch tensors:

    .. math::
        m \leftarrow \beta_1 m + (1 - \beta_1) g, \quad
        v \leftarrow \beta_2 v + (1 - \beta_2) g^2, \quad
        \theta \leftarrow \theta - \eta \left( \frac{m}{\sqrt{v} + \epsilon}
        + \lambda \theta \right)

    Adam without bias correction, with weight decay :math:`\lambda` added to the update
    (decoupled, not to the gradient): Devlin et al. (2019), google-research/bert
    ``optimization.py``, which BERT-flow's ``optimization_bert_flow.py`` copies with
    :math:`\epsilon = 10^{-6}`. Without the correction, early steps are larger than
    Adam's: by :math:`(1 - \beta_1^t) / \sqrt{1 - \beta_2^t}`, 3.2 at the first.

    Parameters
    ----------
    param, grad, m, v : torch.Tensor
        The parameter, its gradient and the two moment estimates (updated in place).
    learning_rate, weight_decay : float
        :math:`\eta` and :math:`\lambda`.
    beta_1, beta_2, epsilon : float
        BERT's defaults.
    """
    m.mul_(beta_1).add_(grad, alpha=1 - beta_1)
    v.mul_(beta_2).addcmul_(grad, grad, value=1 - beta_2)
    update = m / (v.sqrt() + epsilon)
    if weight_decay:
        update = update + weight_decay * param
    param.sub_(learning_rate * update)


#: BERT-flow's coupling width: the default ``flow_model_config`` of its ``run_siamese.py``,
#: ``config_l3_d3_w32`` (3 levels of 3 steps), sets ``coupling_width`` to 32, the width of the
#: two hidden layers of each coupling network (``glow_ops_1x1.conv_stack``).
BERT_FLOW_COUPLING_WIDTH = 32


@dataclass
class FlowCalibration:
    """Fit/transform wrapper around a RealNVP flow.

    Attributes
    ----------
    n_steps : int
        Optimiser steps of maximum likelihood on mini-batches. Batches are drawn without
        replacement: each pass over the data is a new permutation of the points, cut into
        batches of ``batch_size`` (a last, shorter batch is dropped; with fewer points than
        ``batch_size``, every batch is all the points).
    batch_size, learning_rate : int, float
        BERT-flow's: 64 sentences (its 32 pairs) and a constant 1e-3.
    weight_decay, clip_norm : float
        BERT-flow's optimiser for the flow (``optimization_bert_flow.py``): BERT's Adam with
        decoupled weight decay and no bias correction (:func:`adam_weight_decay_step`,
        weight decay 0.01 on every parameter whose name holds none of "LayerNorm",
        "layer_norm" and "bias"), after the gradients are clipped to a global norm of 1.0.
        The clipped gradient is that of BERT-flow's loss, bits per dimension summed over a
        pair's two sentences: the mean negative log-likelihood per dimension (nats, the
        loss recorded in ``losses_``) times 2 / ln 2.
    transforms : int
        Coupling layers.
    hidden : int
        Width of the two hidden layers of each coupling network:
        :data:`BERT_FLOW_COUPLING_WIDTH`, BERT-flow's. A width of 512 overfits the few
        hundred pairs a task is fitted on in the book's profiles at BERT-flow's budget
        (MiniLM's mean change over seven tasks in the full build: -24.2 at 512 against
        -4.15 at 32, November 2026) and costs four to five times as much a step (20.6
        against 4.9 ms at 384 dimensions, 32.7 against 6.4 ms at 640; one thread, batch
        64).
    seed : int
        Root of the fit's streams: ``init`` (torch's global seed before the flow is built)
        and ``batches`` (the permutations of :func:`epoch_batches`).

    References
    ----------
    Li, B., Zhou, H., He, J., Wang, M., Yang, Y., Li, L. (2020). On the sentence embeddings
    from pre-trained language models. EMNLP. Dinh, L., Sohl-Dickstein, J., Bengio, S. (2017).
    Density estimation using Real NVP. ICLR. Devlin, J., Chang, M.-W., Lee, K., Toutanova, K.
    (2019). BERT. NAACL (its ``AdamWeightDecayOptimizer``).
    """

    n_steps: int = 400
    batch_size: int = BERT_FLOW_BATCH
    learning_rate: float = 1e-3
    weight_decay: float = 0.01
    clip_norm: float = 1.0
    transforms: int = 4
    hidden: int = BERT_FLOW_COUPLING_WIDTH
    seed: int = 0

    def fit(self, X) -> FlowCalibration:
        """Fit the flow by maximum likelihood on ``X``, ``n_steps`` optimiser steps as the
        class describes.

        The vectors are centred on their mean (``mean_``) and divided by one global scale
        (``scale_``: the standard deviation of every entry of the centred vectors, 1.0 when
        it is 0); ``losses_`` records each step's loss, the mean negative log-likelihood
        per dimension in nats.

        Parameters
        ----------
        X : array_like of shape (n_points, dim)
            The unlabelled vectors, at least 2 (finite).

        Returns
        -------
        FlowCalibration
            ``self``, fitted: with ``mean_``, ``scale_``, ``flow_`` and ``losses_``.
        """
        import torch
        import zuko

        X = np.asarray(check_embeddings(X, min_points=2), dtype=np.float32)
        self.mean_ = X.mean(axis=0)
        self.scale_ = float((X - self.mean_).std()) or 1.0
        data = torch.tensor((X - self.mean_) / self.scale_)
        torch.manual_seed(stream_seed(self.seed, "init"))
        self.flow_ = zuko.flows.RealNVP(features=X.shape[1], transforms=self.transforms,
                                        hidden_features=(self.hidden, self.hidden))
        named = list(self.flow_.named_parameters())
        params = [p for _, p in named]
        decays = [not any(part in name for part in NO_WEIGHT_DECAY) for name, _ in named]
        moments = [(torch.zeros_like(p), torch.zeros_like(p)) for p in params]
        generator = torch.Generator().manual_seed(stream_seed(self.seed, "batches"))
        self.losses_ = []
        batches = iter(())
        for _ in range(self.n_steps):
            rows = next(batches, None)
            if rows is None:
                batches = iter(epoch_batches(data.shape[0], self.batch_size, generator))
                rows = next(batches)
            loss = -self.flow_().log_prob(data[rows]).mean() / X.shape[1]
            for param in params:
                param.grad = None
            (loss * BITS_PER_PAIR).backward()
            torch.nn.utils.clip_grad_norm_(params, self.clip_norm, foreach=True)
            with torch.no_grad():
                for param, (m, v), decay in zip(params, moments, decays, strict=True):
                    adam_weight_decay_step(param, param.grad, m, v, self.learning_rate,
                                           self.weight_decay if decay else 0.0)
            self.losses_.append(float(loss.detach()))
        return self

    def transform(self, X) -> np.ndarray:
        """Latent vectors z = f((x - mean) / scale), float64.

        Parameters
        ----------
        X : array_like of shape (n_points, dim)
            The vectors, at least one, of the dimension the flow was fitted on.

        Returns
        -------
        numpy.ndarray of float64, shape (n_points, dim)
            The latent vectors.

        Raises
        ------
        RuntimeError
            When the flow is not fitted.
        ValueError
            When ``X``'s dimension is not the fitted one.
        """
        import torch

        if not hasattr(self, "flow_"):
            raise RuntimeError("FlowCalibration is not fitted; call fit(X) first.")
        X = np.asarray(check_embeddings(X, min_points=1), dtype=np.float32)
        if X.shape[1] != self.mean_.shape[0]:
            raise ValueError(f"Fitted on {self.mean_.shape[0]} dimensions; got {X.shape[1]}.")
        with torch.no_grad():
            z = self.flow_().transform(torch.tensor((X - self.mean_) / self.scale_))
        return z.numpy().astype(np.float64)

    def fit_transform(self, X) -> np.ndarray:
        """:meth:`fit` on ``X``, then :meth:`transform` of ``X``.

        Parameters
        ----------
        X : array_like of shape (n_points, dim)
            The unlabelled vectors, at least 2.

        Returns
        -------
        numpy.ndarray of float64, shape (n_points, dim)
            Their latent vectors under the flow fitted on them.
        """
        return self.fit(X).transform(X)


def epoch_batches(n_points: int, batch_size: int, generator) -> list:
    """One pass over ``n_points`` points: a permutation drawn from ``generator`` (a
    ``torch.Generator``) cut into index batches of ``batch_size``, the last shorter batch
    dropped; with fewer points than ``batch_size``, one batch of every point.

    Parameters
    ----------
    n_points : int
        The points, indexed ``0 .. n_points-1``.
    batch_size : int
        Points per batch.
    generator : torch.Generator
        The permutation's stream.

    Returns
    -------
    list of torch.Tensor
        The batches of indices (int64), ``n_points // batch_size`` of ``batch_size`` each,
        or one of all ``n_points`` when ``n_points <= batch_size``.
    """
    import torch

    order = torch.randperm(n_points, generator=generator)
    if n_points <= batch_size:
        return [order]
    return list(order[: n_points // batch_size * batch_size].split(batch_size))


# --------------------------------------------------------------------------- claim 3, part B

#: Sentence poolings of claim 3: name -> (layers averaged, what it is).
POOLINGS: dict[str, tuple[str, str]] = {
    "last-avg": ("last", "the mean of the last layer's token vectors"),
    "first-last-avg": (
        "1+last",
        "the mean of the first transformer block's output (layer 1) and the last layer: "
        "BERT-whitening's first-last-avg (eng/utils.py, Transformer-0-FeedForward-Norm) and "
        "what BERT-flow's code computes under the name last2avg (run_siamese.py lines "
        "168-175 average all_encoder_layers[0], the first block, and the last layer)"),
    "embeddings-last-avg": (
        "0+last",
        "the mean of the embedding output (layer 0) and the last layer; used by neither "
        "paper, shown for contrast"),
}


#: The whitening variant the check grades: a third of the dimension, Su et al.'s whitening-256
#: for 768-dimensional BERT (the reference rows are that variant).
WHITENING_GRADED = "whitening (dim/3)"


def pooled_vectors(tokens, n_layers: int, exclude_positions=()) -> dict[str, np.ndarray]:
    """Every :data:`POOLINGS` sentence vector of ``tokens``' sentences (float32 arrays in
    sentence order), from :meth:`~anisotropy.inputs.extraction.TokenEmbeddings.sentence_means`
    of layers 0, 1 and ``n_layers``.

    Parameters
    ----------
    tokens : TokenEmbeddings
        The sentences' token vectors, with layers 0, 1 and ``n_layers``.
    n_layers : int
        L, the last layer.
    exclude_positions : sequence of int, optional
        Positions left out of the means, unless that would empty a sentence (default none).

    Returns
    -------
    dict of str to numpy.ndarray
        Each :data:`POOLINGS` name's vectors, shape (n_sentences, dim), float32.
    """
    means = {layer: tokens.sentence_means(layer, exclude_positions)
             for layer in (0, 1, n_layers)}
    return {"last-avg": means[n_layers],
            "first-last-avg": (means[1] + means[n_layers]) / 2,
            "embeddings-last-avg": (means[0] + means[n_layers]) / 2}


def calibrate_and_score(pooled: dict[str, np.ndarray], nli_pooled: dict[str, np.ndarray],
                        sentences: list[str], tasks: list[str], *, pooling: str,
                        flow_steps: int | None = None, flow_epochs: float = BERT_FLOW_EPOCHS,
                        n_flow_seeds: int = 3,
                        max_pairs: int | None = None, seed: int = 0, data_seed: int = 0,
                        n_refit: int = 0, n_flow_refit: int = 0, progress: bool = True,
                        train_seed: int | None = None) -> tuple[pd.DataFrame, dict, dict]:
    """Whitening and flows on STS tasks, for one model.

    Every :data:`POOLINGS` variant is scored as is. The ``pooling`` vectors are also
    calibrated: whitening at full dimension and at a third of it (Su et al.: 256 of 768),
    fitted on the task's own sentences; a flow fitted on the NLI sentences (BERT-flow's
    "NLI*" setting, one fit shared by the tasks); and ``n_flow_seeds`` flows fitted on the
    task's own sentences ("target"), numbered 0 .. n-1 in the ``seed`` column. Every flow
    trains on mini-batches of BERT-flow's 64 sentences (:data:`BERT_FLOW_BATCH`) for
    ``flow_steps`` steps; when that is None, a target flow trains for BERT-flow's budget on
    its task (:func:`task_flow_budget`: ``flow_epochs`` passes over the pairs of the task's
    every split, as ``use_full_for_training``), however few of those sentences it is fitted
    on, and the NLI flow for one pass over its sentences.

    Parameters
    ----------
    pooled, nli_pooled : dict of str to numpy.ndarray
        Each pooling's vectors of ``sentences`` (:func:`pooled_vectors`), and of the NLI's.
    sentences, tasks : list of str
        The sentences, in the rows' order; the STS tasks.
    pooling : str
        The pooling calibrated, a key of ``pooled``.
    flow_steps, flow_epochs, n_flow_seeds : int or None, float, int
        Steps of every flow (see above); passes in BERT-flow's budget; target flows per task.
    max_pairs, data_seed : int or None, int
        The pairs of each task are :func:`~anisotropy.inputs.tasks.sts_task`'s, at most
        ``max_pairs`` under ``data_seed`` (the sample ``sentences`` was built from).
    seed : int
        The claim's seed: the refits' streams, and the flows' when ``train_seed`` is None.
    n_refit : int
        With ``n_refit``, the graded whitening (:data:`WHITENING_GRADED`) also gets
        :func:`whitening_refit_draws` per task (stream ``refit/TASK`` under ``seed``), in
        ``pair_scores[(task, "whitening refit")]``.
    n_flow_refit : int
        Likewise :func:`flow_refit_draws` (``flow-refit/TASK``), ``(task, "flow refit")``.
    progress : bool
        Show a progress bar over the tasks.
    train_seed : int or None
        Every flow draws its start and batches from its own stream under ``train_seed``
        (``seed`` when ``None``): ``flow/NLI`` and ``flow/TASK/R`` for fit R of a task, so
        the tasks' flows are independent.

    Returns
    -------
    scores : DataFrame, one row per (task, method, seed): Spearman x 100 in the task's
        declared aggregation (``spearman``, see :func:`anisotropy.inputs.tasks.
        sts_aggregation`), pooled (``spearman_all``) and pair-weighted over subsets
        (``spearman_wmean``), Pearson pooled.
    pair_scores : dict, ``(task, method, seed) -> cosine per pair``, ``(task, "gold")``,
        ``(task, "subsets")`` (None for tasks aggregated over all pairs).
    flow_curves : dict, ``task or "NLI" -> training losses`` of the first flow seed.
    """
    def steps(task: str | None, n_sentences: int) -> int:
        return flow_steps_of(task, n_sentences, flow_steps, flow_epochs)

    if pooling not in pooled:
        raise ValueError(f"Unknown pooling {pooling!r}; choose one of {list(pooled)}.")
    index = {s: i for i, s in enumerate(sentences)}
    nli = nli_pooled[pooling]
    nli_flow = FlowCalibration(n_steps=steps(None, nli.shape[0]),
                               seed=train_stream_seed(seed, train_seed, "flow/NLI")
                               ).fit(nli)
    rows, pair_scores, curves = [], {}, {"NLI": nli_flow.losses_}
    for task in tqdm(tasks, desc="calibration", disable=not progress):
        task_rows, task_scores, curves[task] = calibrate_task(
            task, pooled, pooling, nli_flow, index, steps, n_flow_seeds=n_flow_seeds,
            max_pairs=max_pairs, seed=seed, data_seed=data_seed, n_refit=n_refit,
            n_flow_refit=n_flow_refit, train_seed=train_seed)
        rows += task_rows
        pair_scores.update(task_scores)
    return pd.DataFrame(rows), pair_scores, curves


def flow_steps_of(task: str | None, n_sentences: int, flow_steps: int | None,
                  flow_epochs: float) -> int:
    """The steps a flow trains for (:func:`calibrate_and_score`).

    Parameters
    ----------
    task : str or None
        The STS task a target flow is fitted for; None for the NLI flow.
    n_sentences : int
        The sentences the flow is fitted on (the NLI flow makes one pass over them).
    flow_steps : int or None
        A fixed number of steps for every flow; None for BERT-flow's budget.
    flow_epochs : float
        Passes over a task's pairs in BERT-flow's budget (:func:`task_flow_budget`).

    Returns
    -------
    int
        ``flow_steps`` when given; else one pass of :data:`BERT_FLOW_BATCH` sentences over
        the NLI sentences (at least 1), or the task's budget.
    """
    if flow_steps is not None:
        return flow_steps
    if task is None:  # the NLI flow: one pass over its sentences
        return max(1, n_sentences // BERT_FLOW_BATCH)
    return task_flow_budget(task, flow_epochs)


def calibrate_task(task: str, pooled: dict[str, np.ndarray], pooling: str,
                   nli_flow: FlowCalibration, index: dict[str, int], steps: Callable, *,
                   n_flow_seeds: int, max_pairs: int | None, seed: int, data_seed: int,
                   n_refit: int, n_flow_refit: int, train_seed: int | None
                   ) -> tuple[list[dict], dict, np.ndarray]:
    """One task of :func:`calibrate_and_score`: every variant and calibration scored.

    Parameters
    ----------
    task : str
        The STS task.
    pooled : dict of str to numpy.ndarray
        Each pooling's sentence vectors, rows in the order of ``index``.
    pooling : str
        The pooling that is calibrated.
    nli_flow : FlowCalibration
        The flow fitted on the NLI sentences.
    index : dict of str to int
        Each sentence's row.
    steps : callable
        ``(task, n_sentences)`` to a flow's steps (:func:`flow_steps_of`).
    n_flow_seeds, max_pairs, seed, data_seed, n_refit, n_flow_refit, train_seed
        As :func:`calibrate_and_score`'s.

    Returns
    -------
    rows : list of dict
        The task's rows of the scores table.
    pair_scores : dict
        The task's entries of ``pair_scores``.
    curve : numpy.ndarray
        The first target flow's training losses.
    """
    base = pooled[pooling]
    dim = base.shape[1]
    first, second, gold, subsets, aggregation = task_pairs(task, index, max_pairs, data_seed)
    own = np.unique(np.r_[first, second])
    calibrated = {("whitening", 0): Whitening().fit(base[own]),
                  ("whitening (dim/3)", 0): Whitening(n_components=max(2, dim // 3))
                  .fit(base[own]),
                  ("flow (NLI)", 0): nli_flow}
    for fit in range(n_flow_seeds):
        calibrated[("flow (target)", fit)] = FlowCalibration(
            n_steps=steps(task, own.size),
            seed=train_stream_seed(seed, train_seed, f"flow/{task}/{fit}")).fit(base[own])
    variants = {(name, 0): vectors for name, vectors in pooled.items()}
    for key, transform in calibrated.items():
        out = np.zeros((base.shape[0], transform.transform(base[:1]).shape[1]))
        out[own] = transform.transform(base[own])
        variants[key] = out
    rows, pair_scores = [], {}
    for (method, method_seed), vectors in variants.items():
        result = sts.evaluate_sts(vectors[first], vectors[second], gold, subsets)
        rows.append({"task": task, "method": method, "seed": method_seed,
                     "aggregation": aggregation,
                     "spearman": result[f"spearman_{aggregation}"],
                     "spearman_all": result["spearman_all"],
                     "spearman_wmean": result["spearman_wmean"],
                     "pearson_all": result["pearson_all"], "n_pairs": result["n_pairs"]})
        pair_scores[(task, method, method_seed)] = sts.cosine_scores(vectors[first],
                                                                     vectors[second])
    pair_scores[(task, "gold")] = gold
    pair_scores[(task, "subsets")] = subsets
    if n_refit:
        pair_scores[(task, "whitening refit")] = whitening_refit_draws(
            base, first, second, gold, subsets, max(2, dim // 3), n_refit,
            stream_seed(seed, f"refit/{task}"))
    if n_flow_refit:
        pair_scores[(task, "flow refit")] = flow_refit_draws(
            base, first, second, gold, subsets, steps(task, own.size), n_flow_refit,
            stream_seed(seed, f"flow-refit/{task}"),
            sub_seed(train_seed, f"flow-refit/{task}"))
    return rows, pair_scores, calibrated[("flow (target)", 0)].losses_


def task_pairs(task: str, index: dict[str, int], max_pairs: int | None, data_seed: int
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None, str]:
    """One STS task's pairs as rows of the sentence vectors (``index``: sentence -> row):
    ``(first, second, gold, subsets, aggregation)``, the subsets None for a task scored
    over all pairs, or for a copy of the data without subsets (with a warning).

    Parameters
    ----------
    task : str
        The STS task.
    index : dict of str to int
        Each sentence's row.
    max_pairs : int or None
        At most this many pairs (:func:`~anisotropy.inputs.tasks.sts_task`).
    data_seed : int
        The seed of that sample.

    Returns
    -------
    first, second : numpy.ndarray of int, shape (n_pairs,)
        The rows of each pair's two sentences.
    gold : numpy.ndarray of shape (n_pairs,)
        The gold scores.
    subsets : numpy.ndarray of shape (n_pairs,) or None
        Each pair's subset, for a ``wmean`` task.
    aggregation : str
        ``"wmean"`` or ``"all"`` (``"all"`` too when the copy has no subsets).
    """
    frame = task_registry.sts_task(task, max_pairs, data_seed)
    aggregation = task_registry.sts_aggregation(task)
    subsets = frame["subset"].to_numpy() if aggregation == "wmean" else None
    if subsets is not None and np.unique(subsets).size < 2:
        warnings.warn(f"{task}: this copy of the data has no subsets, so its wmean equals "
                      "the pooled correlation; the row records aggregation 'all'.",
                      stacklevel=3)
        aggregation, subsets = "all", None
    first = np.array([index[s] for s in frame["sentence1"]])
    second = np.array([index[s] for s in frame["sentence2"]])
    return first, second, frame["score"].to_numpy(), subsets, aggregation


def refit_draws(base: np.ndarray, first: np.ndarray, second: np.ndarray, gold: np.ndarray,
                subsets: np.ndarray | None, make_fit, n_draws: int, seed: int) -> np.ndarray:
    """Bootstrap draws of a calibration's Spearman x 100 change over ``base`` on one task,
    the calibration refitted in every draw.

    Each draw resamples the task's pairs with replacement (within each subset when
    ``subsets`` is given, scored as :func:`anisotropy.claims.sts.evaluate_sts`'s pair-weighted
    mean), fits ``make_fit(draw)`` (an unfitted transform with ``fit`` and ``transform``) on
    the resampled pairs' sentences (with their multiplicity), and scores calibrated and
    uncalibrated vectors on the same pairs. A calibration fitted on the sentences it scores
    is refitted by a rerun with other pairs too: holding the fit fixed, as the pairs-only
    bootstrap does, leaves that variation out.

    Parameters
    ----------
    base : numpy.ndarray of shape (n_sentences, dim)
        The uncalibrated sentence vectors.
    first, second : numpy.ndarray of int, shape (n_pairs,)
        The rows of each pair's two sentences (:func:`task_pairs`).
    gold : numpy.ndarray of shape (n_pairs,)
        The gold scores.
    subsets : numpy.ndarray of shape (n_pairs,) or None
        Each pair's subset; None for a task scored over all pairs.
    make_fit : callable
        The draw's index to an unfitted transform.
    n_draws : int
        Draws.
    seed : int
        Seed of ``numpy.random.default_rng`` for the resampled pairs.

    Returns
    -------
    numpy.ndarray of shape (n_draws,)
        Each draw's calibrated minus uncalibrated Spearman x 100 (``spearman_all``, or
        ``spearman_wmean`` with ``subsets``).
    """
    rng = np.random.default_rng(seed)
    groups = ([np.arange(gold.size)] if subsets is None
              else [np.flatnonzero(subsets == s) for s in pd.unique(subsets)])
    key = "spearman_all" if subsets is None else "spearman_wmean"
    base_scores = sts.cosine_scores(base[first], base[second])
    out = np.empty(n_draws)
    for draw in range(n_draws):
        rows = np.concatenate([rng.choice(g, size=g.size) for g in groups])
        a, b = first[rows], second[rows]
        fitted = make_fit(draw).fit(base[np.r_[a, b]])
        part = None if subsets is None else subsets[rows]
        new = sts.evaluate_sts(fitted.transform(base[a]), fitted.transform(base[b]),
                               gold[rows], part)
        old = sts.score_correlations(base_scores[rows], gold[rows], part)
        out[draw] = new[key] - old[key]
    return out


def whitening_refit_draws(base: np.ndarray, first: np.ndarray, second: np.ndarray,
                          gold: np.ndarray, subsets: np.ndarray | None, n_components: int,
                          n_draws: int, seed: int) -> np.ndarray:
    """:func:`refit_draws` of :class:`~anisotropy.geometry.transforms.Whitening` to
    ``n_components``.

    Parameters
    ----------
    base, first, second, gold, subsets, n_draws, seed
        As :func:`refit_draws`'.
    n_components : int
        The whitening's dimension.

    Returns
    -------
    numpy.ndarray of shape (n_draws,)
        The draws of the change.
    """
    return refit_draws(base, first, second, gold, subsets,
                       lambda draw: Whitening(n_components=n_components), n_draws, seed)


def flow_refit_draws(base: np.ndarray, first: np.ndarray, second: np.ndarray,
                     gold: np.ndarray, subsets: np.ndarray | None, flow_steps: int,
                     n_draws: int, seed: int, train_seed: int | None = None) -> np.ndarray:
    """:func:`refit_draws` of the target flow (:class:`FlowCalibration` of ``flow_steps``
    steps), each fit from its own stream ``fit/DRAW`` under
    ``train_seed`` (``seed`` when ``None``), the pairs under ``seed``: a draw moves the
    pairs, the sentences the flow is fitted on, and its initialisation and batches.

    Parameters
    ----------
    base, first, second, gold, subsets, n_draws, seed
        As :func:`refit_draws`'.
    flow_steps : int
        Each flow's optimiser steps.
    train_seed : int or None, optional
        Root of the fits' streams; ``seed`` when None (the default).

    Returns
    -------
    numpy.ndarray of shape (n_draws,)
        The draws of the change.
    """
    return refit_draws(base, first, second, gold, subsets,
                       lambda draw: FlowCalibration(n_steps=flow_steps,
                                                    seed=train_stream_seed(
                                                        seed, train_seed, f"fit/{draw}")),
                       n_draws, seed)


def flow_budget(n_pairs: int, epochs: float = BERT_FLOW_EPOCHS,
                batch_pairs: int = BERT_FLOW_PAIRS) -> int:
    r"""Optimiser steps of a flow trained ``epochs`` passes over ``n_pairs`` sentence pairs
    in batches of ``batch_pairs`` pairs, as BERT-flow counts them (``run_siamese.py``):
    :math:`\max(1, \lfloor n \cdot \text{epochs} / \text{batch} \rfloor)`, the floor
    of its ``int(...)``, at least one step.

    Parameters
    ----------
    n_pairs : int
        Sentence pairs, >= 1.
    epochs : float, optional
        Passes over them, > 0 (default :data:`BERT_FLOW_EPOCHS`, 1.0).
    batch_pairs : int, optional
        Pairs per batch, >= 1 (default :data:`BERT_FLOW_PAIRS`, 32).

    Returns
    -------
    int
        The steps.

    Raises
    ------
    ValueError
        For ``n_pairs`` or ``batch_pairs`` below 1, or ``epochs`` not above 0.
    """
    if n_pairs < 1 or batch_pairs < 1 or not epochs > 0:
        raise ValueError(f"flow_budget needs n_pairs >= 1, batch_pairs >= 1 and epochs > 0; "
                         f"got {n_pairs}, {batch_pairs}, {epochs}.")
    return max(1, int(n_pairs * epochs / batch_pairs))


def flow_fit_pairs(task: str) -> int:
    """The pairs BERT-flow's target flow trains on for STS ``task``
    (:data:`BERT_FLOW_FIT`), a split counted as often as it is read.

    Parameters
    ----------
    task : str
        A key of :data:`BERT_FLOW_FIT`.

    Returns
    -------
    int
        The pairs of its splits (:func:`anisotropy.inputs.data.load`), summed.

    Raises
    ------
    ValueError
        For a task :data:`BERT_FLOW_FIT` does not declare.
    """
    if task not in BERT_FLOW_FIT:
        raise ValueError(f"No BERT-flow training set is declared for STS task {task!r}; "
                         f"declared: {sorted(BERT_FLOW_FIT)} (BERT_FLOW_FIT).")
    dataset, splits = BERT_FLOW_FIT[task]
    return sum(len(data.load(dataset, split)) for split in splits)


def task_flow_budget(task: str, epochs: float = BERT_FLOW_EPOCHS) -> int:
    """BERT-flow's budget for the target flow of STS ``task``: :func:`flow_budget` of the
    pairs it trains on with ``use_full_for_training=1`` (:func:`flow_fit_pairs`: STS-B
    8,628, so 269 steps).

    Parameters
    ----------
    task : str
        A key of :data:`BERT_FLOW_FIT`.
    epochs : float, optional
        Passes over the pairs (default :data:`BERT_FLOW_EPOCHS`, 1.0).

    Returns
    -------
    int
        The steps.
    """
    return flow_budget(flow_fit_pairs(task), epochs)


def flow_sweep(base: np.ndarray, first: np.ndarray, second: np.ndarray, gold: np.ndarray,
               subsets: np.ndarray | None, steps: tuple[int, ...], *,
               seed: int = 0) -> pd.DataFrame:
    """The target flow's Spearman x 100 change over ``base`` on one task, for a flow
    trained each number of ``steps`` on the task's sentences, one fit each from the stream
    ``sweep`` under ``seed`` (the same start and batches for every budget). Zero steps is
    the control: the flow's centring alone (its division by one scale leaves cosines as
    they are), with no flow. Rows: steps, change.

    Parameters
    ----------
    base, first, second, gold, subsets
        As :func:`refit_draws`'.
    steps : tuple of int
        The budgets, in optimiser steps; 0 for the control.
    seed : int, optional
        Root of the stream ``sweep`` (default 0).

    Returns
    -------
    pandas.DataFrame
        One row per budget: ``steps`` and ``change``, the Spearman x 100 change
        (``spearman_all``, or ``spearman_wmean`` with ``subsets``).
    """
    key = "spearman_all" if subsets is None else "spearman_wmean"
    own = np.unique(np.r_[first, second])
    before = sts.evaluate_sts(base[first], base[second], gold, subsets)[key]
    rows = []
    for n_steps in steps:
        out = np.zeros(base.shape)
        if n_steps == 0:
            out[own] = base[own] - base[own].mean(axis=0)
        else:
            flow = FlowCalibration(n_steps=int(n_steps), seed=stream_seed(seed, "sweep"))
            out[own] = flow.fit(base[own]).transform(base[own])
        after = sts.evaluate_sts(out[first], out[second], gold, subsets)[key]
        rows.append({"steps": int(n_steps), "change": after - before})
    return pd.DataFrame(rows)


def change_draws(scores: pd.DataFrame, pair_scores: dict, tasks: list[str], pooling: str,
                 n_boot: int = 1000, seed: int = 0) -> dict[tuple, np.ndarray]:
    """Paired bootstrap draws of the Spearman x 100 change over the ``pooling`` baseline,
    ``{(task, method, method_seed): draws}``, for the graded whitening and every seed of the
    target flow (:func:`anisotropy.claims.sts.spearman_change_draws`; each task's pairs
    resampled from its own stream ``bootstrap/TASK`` under ``seed``, shared by the methods
    compared on it). :func:`check_values` and :func:`task_changes` read the same draws.

    Parameters
    ----------
    scores : pandas.DataFrame
        :func:`calibrate_and_score`'s scores (its ``flow (target)`` rows give the seeds).
    pair_scores : dict
        :func:`calibrate_and_score`'s cosines per pair, gold scores and subsets.
    tasks : list of str
        The STS tasks.
    pooling : str
        The baseline pooling.
    n_boot : int, optional
        Draws per task (default 1000).
    seed : int, optional
        Root of the streams ``bootstrap/TASK`` (default 0).

    Returns
    -------
    dict of tuple to numpy.ndarray
        ``{(task, method, method_seed): draws}``, each of shape (n_boot,).
    """
    flow_seeds = sorted(scores.loc[scores["method"] == "flow (target)", "seed"].unique())
    methods = [(WHITENING_GRADED, 0)] + [("flow (target)", int(s)) for s in flow_seeds]
    return {(t, m, ms): sts.spearman_change_draws(
        pair_scores[(t, m, ms)], pair_scores[(t, pooling, 0)], pair_scores[(t, "gold")],
        n_boot, stream_seed(seed, f"bootstrap/{t}"), pair_scores[(t, "subsets")])
        for t in tasks for m, ms in methods}


def refit_interval(change: float, pair_scores: dict, tasks: list[str], method: str
                   ) -> Interval | None:
    """95% interval of a calibration's mean change over ``tasks`` from its refit draws
    (:func:`refit_draws`, ``pair_scores[(task, method + " refit")]``), or None without them.

    The tasks' draws are independent, so the variance of the mean over tasks is
    ``sum_t s_t^2 / T^2`` (``s_t`` the standard deviation of task t's B draws), and the
    interval is ``change +- t_q sqrt(that)`` with Welch-Satterthwaite's degrees of freedom
    ``(sum s_t^2)^2 / sum (s_t^4 / (B - 1))``: a few refits of a costly flow give a wider
    quantile, fifty of the whitening about the normal's 1.96. Percentiles of a few dozen
    refits would be noisier than their spread.

    References
    ----------
    Satterthwaite, F. E. (1946). An approximate distribution of estimates of variance
    components. Biometrics Bulletin 2(6), 110-114.

    Parameters
    ----------
    change : float
        The measured mean change, the interval's centre.
    pair_scores : dict
        :func:`calibrate_and_score`'s, with the refit draws.
    tasks : list of str
        The STS tasks.
    method : str
        ``"whitening"`` or ``"flow"``.

    Returns
    -------
    Interval or None
        The interval, or None when a task has no refit draws.
    """
    keys = [(t, f"{method} refit") for t in tasks]
    if not all(k in pair_scores for k in keys):
        return None
    n_draws = min(pair_scores[k].size for k in keys)
    # at least B - 1 whenever a task's draws vary; draws that all tie give half-width 0
    half, df = spread_half_width([pair_scores[k] for k in keys])
    n_pairs = sum(pair_scores[(t, "gold")].size for t in tasks)
    return Interval(change - half, change + half, (
        f"95% t interval from B={n_draws} bootstrap draws per task over its sentence pairs "
        f"({n_pairs:,} pairs in {len(tasks)} task{'s' if len(tasks) > 1 else ''}), the "
        f"{method} refitted in every draw; Welch-Satterthwaite df = {df:.0f}"))


def whitening_interval(change: float, pair_scores: dict, tasks: list[str],
                       fixed_draws: dict[str, np.ndarray], n_boot: int) -> Interval:
    """95% interval of whitening's mean change over ``tasks``: :func:`refit_interval` with
    refit draws; without them, the paired percentile bootstrap of ``fixed_draws`` with the
    fit held fixed.

    Parameters
    ----------
    change : float
        The measured mean change.
    pair_scores : dict
        :func:`calibrate_and_score`'s.
    tasks : list of str
        The STS tasks.
    fixed_draws : dict of str to numpy.ndarray
        Each task's paired bootstrap draws of the change, the fit held fixed
        (:func:`change_draws`).
    n_boot : int
        The draws per task.

    Returns
    -------
    Interval
        The 95% interval.
    """
    refitted = refit_interval(change, pair_scores, tasks, "whitening")
    if refitted is not None:
        return refitted
    n_pairs = {t: pair_scores[(t, "gold")].size for t in tasks}
    return sts.mean_change_interval(fixed_draws, n_boot, n_pairs)


def flow_interval(change: float, per_seed: np.ndarray, pair_scores: dict, tasks: list[str],
                  mean_draws: dict[str, np.ndarray], n_boot: int) -> Interval:
    """95% interval of the target flow's mean change over ``tasks``: :func:`refit_interval`
    with refit draws (each a new fit, so they carry the seeds' spread too); without them,
    a t-interval over the ``per_seed`` changes combined with the paired bootstrap of the
    seeds' mean (``mean_draws``, fits held fixed), half-widths added in quadrature.

    Parameters
    ----------
    change : float
        The measured mean change (the mean over the seeds).
    per_seed : numpy.ndarray
        Each seed's mean change over ``tasks``.
    pair_scores : dict
        :func:`calibrate_and_score`'s.
    tasks : list of str
        The STS tasks.
    mean_draws : dict of str to numpy.ndarray
        Each task's draws of the seeds' mean change (:func:`change_draws`, averaged).
    n_boot : int
        The draws per task.

    Returns
    -------
    Interval
        The 95% interval.
    """
    refitted = refit_interval(change, pair_scores, tasks, "flow")
    if refitted is not None:
        return refitted
    n_pairs = {t: pair_scores[(t, "gold")].size for t in tasks}
    return combine_independent(change, seed_interval(per_seed, unit="flow seeds (fits per "
                                                     "task)"),
                               sts.mean_change_interval(mean_draws, n_boot, n_pairs))


def check_values(scores: pd.DataFrame, pair_scores: dict, tasks: list[str], pooling: str,
                 n_boot: int = 1000, seed: int = 0,
                 draws_by_key: dict | None = None) -> dict[str, CheckValue]:
    """Measured value and 95% interval of ``whitening-helps`` and ``flow-helps`` for one
    model, from :func:`calibrate_and_score`'s outputs.

    Each is the mean over ``tasks`` of the Spearman x 100 change over the ``pooling``
    baseline, each task in its declared aggregation. Whitening (:data:`WHITENING_GRADED`,
    the variant behind Su et al.'s headline numbers) is deterministic given its sentences:
    its interval (:func:`whitening_interval`) resamples each task's pairs (within subsets
    for ``wmean`` tasks) and refits the whitening in every draw when ``calibrate_and_score``
    was given ``n_refit``. The flow is a trained part fitted on the sentences it scores:
    with ``n_flow_refit`` its interval comes from refits on resampled pairs, each with a new
    initialisation (:func:`flow_interval`); without, a t-interval over its seeds is combined
    with the paired bootstrap of the seeds' mean, half-widths added in quadrature.
    Each task's pairs are resampled from its own stream ``bootstrap/TASK`` under ``seed``,
    shared by the methods compared on it (the bootstrap is paired); ``draws_by_key`` are
    :func:`change_draws`' (computed here when not given).

    Parameters
    ----------
    scores, pair_scores : pandas.DataFrame, dict
        :func:`calibrate_and_score`'s scores and pair scores.
    tasks : list of str
        The STS tasks averaged.
    pooling : str
        The baseline pooling.
    n_boot : int, optional
        Draws per task (default 1000).
    seed : int, optional
        Root of the streams ``bootstrap/TASK`` (default 0).
    draws_by_key : dict, optional
        :func:`change_draws`' output; None (the default) computes it.

    Returns
    -------
    dict of str to CheckValue
        ``{check id: CheckValue}`` (measured, Interval, details) of ``whitening-helps``
        (details: the baseline average) and ``flow-helps`` (details: the baseline average,
        the change per seed).
    """
    per_task = scores.pivot_table(index=["method", "seed"], columns="task",
                                  values="spearman")[tasks]
    baseline = float(per_task.loc[(pooling, 0)].mean())
    if draws_by_key is None:
        draws_by_key = change_draws(scores, pair_scores, tasks, pooling, n_boot, seed)

    def draws(method: str, method_seed: int) -> dict[str, np.ndarray]:
        return {t: draws_by_key[(t, method, method_seed)] for t in tasks}

    whitening = float(per_task.loc[(WHITENING_GRADED, 0)].mean()) - baseline
    flow_rows = per_task.loc["flow (target)"]
    per_seed = flow_rows.mean(axis=1) - baseline
    seed_draws = [draws("flow (target)", s) for s in flow_rows.index]
    mean_draws = {t: np.mean([d[t] for d in seed_draws], axis=0) for t in tasks}
    flow = float(per_seed.mean())
    return {
        WHITENING_HELPS: CheckValue(whitening, whitening_interval(
            whitening, pair_scores, tasks, draws(WHITENING_GRADED, 0), n_boot),
                                    {"baseline average": baseline}),
        FLOW_HELPS: CheckValue(flow, flow_interval(flow, per_seed.to_numpy(), pair_scores,
                                                   tasks, mean_draws, n_boot),
            {"baseline average": baseline,
             "per seed": {int(k): float(v) for k, v in per_seed.items()}}),
    }


def task_changes(scores: pd.DataFrame, pair_scores: dict, tasks: list[str], pooling: str,
                 n_boot: int = 1000, seed: int = 0,
                 draws_by_key: dict | None = None) -> dict[str, dict[str, tuple]]:
    """Per task, the Spearman x 100 change over the ``pooling`` baseline of whitening
    (:data:`WHITENING_GRADED`) and of the target flow (mean over its seeds), each with its
    95% interval as in :func:`check_values` (:func:`whitening_interval`,
    :func:`flow_interval`), for the rows set beside the papers'
    per-task tables. ``{task: {"whitening": (change, Interval), "flow": (...)}}``;
    ``draws_by_key`` are :func:`change_draws`' (computed here when not given).

    Parameters
    ----------
    scores, pair_scores : pandas.DataFrame, dict
        :func:`calibrate_and_score`'s scores and pair scores.
    tasks : list of str
        The STS tasks.
    pooling : str
        The baseline pooling.
    n_boot : int, optional
        Draws per task (default 1000).
    seed : int, optional
        Root of the streams ``bootstrap/TASK`` (default 0).
    draws_by_key : dict, optional
        :func:`change_draws`' output; None (the default) computes it.

    Returns
    -------
    dict of str to dict
        ``{task: {"whitening": (change, Interval), "flow": (change, Interval)}}``.
    """
    per_task = scores.pivot_table(index=["method", "seed"], columns="task",
                                  values="spearman")[tasks]
    if draws_by_key is None:
        draws_by_key = change_draws(scores, pair_scores, tasks, pooling, n_boot, seed)
    out = {}
    for task in tasks:
        base_value = float(per_task.loc[(pooling, 0), task])
        whitening = float(per_task.loc[(WHITENING_GRADED, 0), task]) - base_value
        flow_seeds = per_task.loc["flow (target)", task] - base_value
        flow = float(flow_seeds.mean())
        mean_draws = {task: np.mean([draws_by_key[(task, "flow (target)", s)]
                                     for s in flow_seeds.index], axis=0)}
        out[task] = {
            "whitening": (whitening, whitening_interval(
                whitening, pair_scores, [task],
                {task: draws_by_key[(task, WHITENING_GRADED, 0)]}, n_boot)),
            "flow": (flow, flow_interval(flow, flow_seeds.to_numpy(), pair_scores, [task],
                                         mean_draws, n_boot))}
    return out
