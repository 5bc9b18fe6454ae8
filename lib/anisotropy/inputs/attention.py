"""Attention to the first token, per layer and head: the attention-sink measurement.

The claims' caches hold hidden states, not attention weights, so this is a forward pass of
its own (a cache entry of kind ``"attention"``). The model is switched to eager attention
for it: PyTorch's fused attention (``sdpa``) returns no weights. A model whose attention
implementation cannot return weights raises :class:`AttentionUnavailable`, which a page
reports for that model instead of skipping it.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from anisotropy.inputs import cache

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


def first_token_attention(encoder, sentences: list[str], *, batch_size: int = 32,
                          progress: bool = True) -> np.ndarray:
    """Per sentence, layer and head: the mean attention that the sentence's tokens after
    the first give to its first token (position 0, a [CLS]/<s> or <bos> where the tokenizer
    adds one).

    .. math:: a_{s,\\ell,h} = \\frac{1}{T_s - 1}\\sum_{t=1}^{T_s-1} A^{\\ell,h}_{t,0}

    Position 0's attention to itself is left out (in a decoder it is always 1). Gu et al.
    (2025) average :math:`A^{\\ell,h}_{t,0}` over the tokens of a sequence in the same way.

    Returns
    -------
    ndarray ``(n_sentences, n_layers, n_heads)``, float32, memory-mapped from the cache.

    Raises
    ------
    AttentionUnavailable
        When the model returns no attention weights.
    ValueError
        When a sentence has fewer than two tokens (no token attends to the first).
    """
    import torch

    from anisotropy.inputs.extraction import _description, _tokenize, padded_batch

    description = _description(encoder, sentences, "attention", statistic="first-token")

    def build(tmp: Path) -> None:
        tokenized = _tokenize(encoder, sentences, truncate=False)
        short = [i for i, ids in enumerate(tokenized.ids) if len(ids) < 2]
        if short:
            raise ValueError(f"{len(short)} sentences have fewer than 2 tokens (e.g. index "
                             f"{short[0]}); no token attends to their first.")
        order = np.argsort([len(ids) for ids in tokenized.ids], kind="stable")
        out = None
        restore = _eager(encoder.model)
        began = time.perf_counter()
        try:
            for start in tqdm(range(0, len(order), batch_size), disable=not progress,
                              desc=f"{encoder.name.split('/')[-1]}: attention", unit="batch"):
                batch = order[start: start + batch_size]
                input_ids, mask = padded_batch(encoder, [tokenized.ids[i] for i in batch])
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
                # layers x batch x heads x query x key -> attention to key 0 from queries >= 1
                to_first = torch.stack([a[:, :, 1:, 0].float().cpu() for a in attentions])
                queries = (mask[:, 1:].float())  # real queries after position 0
                means = (to_first * queries[None, :, None, :]).sum(-1) / queries.sum(-1)[
                    None, :, None]
                if out is None:
                    out = np.lib.format.open_memmap(
                        tmp / "first_token.npy", mode="w+", dtype=np.float32,
                        shape=(len(sentences), len(attentions), attentions[0].shape[1]))
                    cache.reserve(tmp / "first_token.npy", f"{encoder.name}'s attention")
                out[batch] = means.permute(1, 0, 2).numpy()
        finally:
            restore()
        out.flush()
        (tmp / "meta.json").write_text(json.dumps({
            "model": encoder.name, "n_sentences": len(sentences),
            "seconds": time.perf_counter() - began}, indent=1))

    path = cache.get_or_create("attention", description, build)
    return np.load(path / "first_token.npy", mmap_mode="r")


def sink_rate(first_token: np.ndarray, epsilon: float, weights=None):
    """The share of heads, over layers, whose mean attention to the first token is at
    least ``epsilon`` (the sink metric of Gu et al. 2025, Sec. 3):

    .. math:: \\mathrm{Sink}^{\\epsilon} = \\frac{1}{LH}\\sum_{\\ell,h}
              \\mathbb{1}\\big[\\bar a_{\\ell,h} \\ge \\epsilon\\big],
              \\qquad \\bar a_{\\ell,h} = \\frac{1}{S}\\sum_s a_{s,\\ell,h}

    ``first_token`` is ``(n_sentences, n_layers, n_heads)`` from
    :func:`first_token_attention`. With ``weights`` ``(n_boot, n_sentences)`` (bootstrap
    weights over sentences) it returns one rate per draw.
    """
    a = np.asarray(first_token, dtype=np.float64)
    if a.ndim != 3:
        raise ValueError(f"first_token must be (sentences, layers, heads); got {a.shape}.")
    if not 0 < epsilon < 1:
        raise ValueError(f"epsilon must lie in (0, 1); got {epsilon}.")
    flat = a.reshape(a.shape[0], -1)
    if weights is None:
        return float((flat.mean(axis=0) >= epsilon).mean())
    weights = np.asarray(weights, dtype=np.float64)
    means = (weights @ flat) / weights.sum(axis=1, keepdims=True)
    return (means >= epsilon).mean(axis=1)
