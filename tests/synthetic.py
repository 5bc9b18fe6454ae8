"""Synthetic token vectors with known geometry, for the fast claim tests.

:func:`token_embeddings` writes a :class:`~anisotropy.inputs.extraction.TokenEmbeddings`
(one word = one token, no special tokens) whose layer ``l`` vector of an occurrence is

    x = a_l * c  +  (1 - m_l) * v_type  +  m_l * e_occurrence,

with ``c`` one shared direction (anisotropy grows with ``a_l``), ``v_type`` a random unit
vector per word type and ``e`` fresh noise per occurrence (context-specificity grows with
``m_l``). Word types follow a Zipf law, so frequency effects exist too. Nothing is trained
or downloaded; a claim's ``measure`` runs on it in seconds.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from anisotropy.inputs.extraction import TokenEmbeddings


def _name(index: int) -> str:
    """A lower-case alphabetic word per type (``"waa"``, ``"wab"``, ...)."""
    return "w" + chr(97 + index // 26 % 26) + chr(97 + index % 26)


def token_embeddings(path: Path, shared: list[float], mixing: list[float], *,
                     n_sentences: int = 200, words_per_sentence: int = 10,
                     n_types: int = 60, dim: int = 24, seed: int = 0,
                     clusters: int = 1, separation: float = 0.0) -> TokenEmbeddings:
    """Token vectors of layers ``0..len(shared)-1`` (``shared[l]`` = a_l, ``mixing[l]`` =
    m_l), saved under ``path``. With ``clusters > 1``, type ``t`` also carries the offset
    ``separation * o_(t mod clusters)`` (random unit vectors ``o``) in every layer >= 1:
    isolated clusters of types."""
    if len(shared) != len(mixing):
        raise ValueError("shared and mixing need one value per layer.")
    rng = np.random.default_rng(seed)
    path.mkdir(parents=True, exist_ok=True)
    zipf = 1 / np.arange(1, n_types + 1)
    types = rng.choice(n_types, size=(n_sentences, words_per_sentence), p=zipf / zipf.sum())
    flat = types.ravel()
    n_tokens = flat.size
    direction = rng.normal(size=dim)
    direction /= np.linalg.norm(direction)
    type_vectors = rng.normal(size=(n_types, dim))
    type_vectors /= np.linalg.norm(type_vectors, axis=1, keepdims=True)
    offsets = rng.normal(size=(clusters, dim))
    offsets /= np.linalg.norm(offsets, axis=1, keepdims=True)
    for layer, (a, m) in enumerate(zip(shared, mixing, strict=True)):
        noise = rng.normal(size=(n_tokens, dim)) / np.sqrt(dim)
        X = a * direction + (1 - m) * type_vectors[flat] + m * noise
        if clusters > 1 and layer >= 1:
            X = X + separation * offsets[flat % clusters]
        np.save(path / f"layer_{layer:03d}.npy", X.astype(np.float32))
    names = np.array([_name(t) for t in flat])
    return TokenEmbeddings(
        model="synthetic", layers=tuple(range(len(shared))), path=path, token_ids=flat,
        sentence_index=np.repeat(np.arange(n_sentences), words_per_sentence),
        position=np.tile(np.arange(words_per_sentence), n_sentences),
        word_index=np.tile(np.arange(words_per_sentence), n_sentences),
        special_mask=np.zeros(n_tokens, dtype=bool), tokens=names,
        words=[[_name(t) for t in row] for row in types],
        meta={"model": "synthetic", "tokens_per_second": 1.0})
