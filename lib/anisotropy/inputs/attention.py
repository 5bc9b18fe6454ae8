"""Attention to the first token, per layer and head: the attention-sink measurement of Gu
et al. (2025).

The claims' caches hold hidden states, not attention weights, so this is a forward pass of
its own (a cache entry of kind ``"attention"``). The model is switched to eager attention
for it: PyTorch's fused attention (``sdpa``) returns no weights. A model whose attention
implementation cannot return weights raises :class:`AttentionUnavailable`, which a page
reports for that model instead of skipping it. A workflow job of kind ``"attention"``
(:class:`anisotropy.inputs.jobs.Extraction`) names the length in its ``layers``: ``"T64"``
when every text is cut to 64 tokens, ``"all"`` when each keeps its own.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from anisotropy.inputs import cache
from anisotropy.inputs.extraction import _description, _tokenize, padded_batch

__all__ = ["AttentionUnavailable", "first_token_attention", "sink_rate"]


class AttentionUnavailable(RuntimeError):
    """The model returns no attention weights, even with eager attention."""


def _eager(model):
    """Switch ``model`` to eager attention; return a function that switches it back."""
    previous = getattr(model.config, "_attn_implementation", None)
    setter = getattr(model, "set_attn_implementation", None)
    if previous == "eager" or setter is None:
        return lambda: None
    setter("eager")
    return lambda: setter(previous)


def first_token_attention(encoder, texts: list[str], *, tokens: int | None = None,
                          batch_size: int = 32, progress: bool = True) -> np.ndarray:
    """Per text, layer and head: the mean attention that the text's queries give to its
    first token (position 0: a [CLS]/<s> or <bos> where the tokenizer adds one), the
    first token's own query included, as Gu et al. (2025, Sec. 3.2) define it:

    .. math:: \\alpha^{\\ell,h}_{1,s} = \\frac{1}{T_s}\\sum_{t=0}^{T_s-1} A^{\\ell,h}_{t,0}

    With ``tokens = T`` every text is cut to its first ``T`` tokens (the tokenizer's own
    special tokens included), so every sequence has Gu et al.'s length; without it each
    text keeps its own length :math:`T_s`. In a causal model :math:`A_{0,0} = 1`, so
    :math:`\\alpha_1 \\ge 1/T_s`: a head that attends uniformly has
    :math:`\\alpha_1 = H_{T_s}/T_s` (0.26 at :math:`T_s = 12`, 0.07 at 64), which is why
    the length matters.

    Parameters
    ----------
    encoder : Encoder
        The model; it is switched to eager attention for the forward passes and back after.
    texts : list of str
        Non-empty texts.
    tokens : int or None, optional
        Cut every text to its first ``tokens`` tokens (at least 2); default None, each text
        at its own length (then no text may exceed the encoder's ``max_length``).
    batch_size : int, optional
        Texts per forward pass (default 32), taken in order of length.
    progress : bool, optional
        Show a progress bar (default True).

    Returns
    -------
    ndarray ``(n_texts, n_layers, n_heads)``, float32, memory-mapped from the cache.
        One row per text, in input order; ``n_layers`` counts the transformer blocks (no
        layer 0).

    Raises
    ------
    AttentionUnavailable
        When the model returns no attention weights.
    ValueError
        When a text has fewer than two tokens, or fewer than ``tokens``; when ``tokens`` is
        below 2; when ``texts`` is empty or holds an empty or non-string text; or, without
        ``tokens``, when a text is longer than the encoder's ``max_length`` tokens.
    """
    import torch

    if tokens is not None and tokens < 2:
        raise ValueError(f"tokens must be at least 2 (or None); got {tokens}.")
    statistic = "first-token-all-queries" + ("" if tokens is None else f"-T{tokens}")
    description = _description(encoder, texts, "attention", statistic=statistic)

    def build(tmp: Path) -> None:
        ids = _tokenize(encoder, texts, truncate=tokens is not None).ids
        need = 2 if tokens is None else tokens
        short = [i for i, seq in enumerate(ids) if len(seq) < need]
        if short:
            raise ValueError(f"{len(short)} texts have fewer than {need} tokens (e.g. index "
                             f"{short[0]}, {len(ids[short[0]])} tokens); "
                             + ("use longer texts (more words per window)." if tokens
                                else "no token attends to their first."))
        if tokens is not None:
            ids = [seq[:tokens] for seq in ids]
        order = np.argsort([len(seq) for seq in ids], kind="stable")
        out = None
        restore = _eager(encoder.model)
        began = time.perf_counter()
        try:
            for start in tqdm(range(0, len(order), batch_size), disable=not progress,
                              desc=f"{encoder.name.split('/')[-1]}: attention", unit="batch"):
                batch = order[start: start + batch_size]
                input_ids, mask = padded_batch(encoder, [ids[i] for i in batch])
                with torch.inference_mode():
                    output = encoder.model(input_ids=input_ids.to(encoder.device),
                                           attention_mask=mask.to(encoder.device),
                                           output_attentions=True)
                attentions = getattr(output, "attentions", None)
                if not attentions or attentions[0] is None:
                    kind = getattr(encoder.model.config, "_attn_implementation", "?")
                    raise AttentionUnavailable(
                        f"{encoder.name} returned no attention weights (attention "
                        f"implementation {kind!r}, even after switching to eager).")
                # layers x batch x heads x query x key -> attention to key 0 from every
                # real query, position 0's own included
                to_first = torch.stack([a[:, :, :, 0].float().cpu() for a in attentions])
                queries = mask.float()
                means = (to_first * queries[None, :, None, :]).sum(-1) / queries.sum(-1)[
                    None, :, None]
                if out is None:
                    out = np.lib.format.open_memmap(
                        tmp / "first_token.npy", mode="w+", dtype=np.float32,
                        shape=(len(texts), len(attentions), attentions[0].shape[1]))
                    cache.reserve(tmp / "first_token.npy", f"{encoder.name}'s attention")
                out[batch] = means.permute(1, 0, 2).numpy()
        finally:
            restore()
        out.flush()
        (tmp / "meta.json").write_text(json.dumps({
            "model": encoder.name, "n_texts": len(texts), "tokens": tokens,
            "seconds": time.perf_counter() - began}, indent=1))

    path = cache.get_or_create("attention", description, build)
    return np.load(path / "first_token.npy", mmap_mode="r")


def sink_rate(alpha: np.ndarray, epsilon: float, weights=None):
    """Gu et al.'s (2025, Sec. 3.2) sink rate: the share of (layer, head) pairs whose
    attention to the first token **exceeds** ``epsilon`` in a sequence, averaged over
    sequences:

    .. math:: \\mathrm{Sink}_1^{\\epsilon} = \\frac{1}{S}\\sum_s \\frac{1}{LH}
              \\sum_{\\ell,h} \\mathbb{1}\\big[\\alpha^{\\ell,h}_{1,s} > \\epsilon\\big]

    (sail-sg/Attention-Sink, ``eval_sink_open_source.py``: the indicator per sequence, a
    strict inequality). ``alpha`` is ``(n_sequences, n_layers, n_heads)`` from
    :func:`first_token_attention`. With ``weights`` ``(n_boot, n_sequences)`` (bootstrap
    weights over sequences) it returns one rate per draw, the weighted mean of the
    sequences' rates.

    Parameters
    ----------
    alpha : ndarray of shape (n_sequences, n_layers, n_heads)
        Attention to the first token (:func:`first_token_attention`).
    epsilon : float
        The threshold, in (0, 1).
    weights : array_like of shape (n_boot, n_sequences), optional
        Bootstrap weights over sequences; default None, the plain mean over sequences.

    Returns
    -------
    float or ndarray of shape (n_boot,)
        The sink rate in [0, 1]: a float without ``weights``, else one per row of
        ``weights``.

    Raises
    ------
    ValueError
        When ``alpha`` is not three-dimensional or ``epsilon`` is not in (0, 1).
    """
    a = np.asarray(alpha, dtype=np.float64)
    if a.ndim != 3:
        raise ValueError(f"alpha must be (sequences, layers, heads); got {a.shape}.")
    if not 0 < epsilon < 1:
        raise ValueError(f"epsilon must lie in (0, 1); got {epsilon}.")
    per_sequence = (a > epsilon).reshape(a.shape[0], -1).mean(axis=1)
    if weights is None:
        return float(per_sequence.mean())
    weights = np.asarray(weights, dtype=np.float64)
    return (weights @ per_sequence) / weights.sum(axis=1)
