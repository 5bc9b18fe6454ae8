"""Forward passes that turn sentences into per-layer vectors, cached on disk.

Two products, each a cache entry keyed by the model (name and weight hashes), the exact
sentences, the extraction parameters and :data:`EXTRACTION_VERSION`:

- :class:`TokenEmbeddings`: every token's vector at the requested layers (memory-mapped
  ``.npy`` per layer), with token ids, strings, sentence index, position, the word each
  subword belongs to, and the special-token mask.
- pooled sentence vectors (mean over tokens, with and without position 0, and the first
  token) at every layer, from which :func:`pool_sentences` builds ``mean``, ``cls`` and
  ``first-last-avg`` without storing token vectors.

Batches are bucketed by length (sentences sorted by token count, then cut to a token
budget), so padding stays a small share of the work; the share is recorded in the entry.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from anisotropy import __version__
from anisotropy.geometry.grouping import run_means, run_starts
from anisotropy.inputs import cache

__all__ = ["EXTRACTION_VERSION", "WORD_PATTERN", "TokenEmbeddings", "extract_token_embeddings",
           "extract_pooled", "pool_sentences", "pool_words", "pool_rows", "pooling_mask",
           "split_words"]

EXTRACTION_VERSION = "2"
#: How sentences are split into words: runs of letters/digits (with inner apostrophes),
#: or single punctuation marks.
WORD_PATTERN = r"[^\W_]+(?:'[^\W_]+)*|[^\w\s]|_"
_WORD_RE = re.compile(WORD_PATTERN)


def split_words(sentence: str) -> list[tuple[int, int, str]]:
    """Character spans and text of the words of a sentence, by :data:`WORD_PATTERN`."""
    return [(m.start(), m.end(), m.group()) for m in _WORD_RE.finditer(sentence)]


# --------------------------------------------------------------------------- token embeddings


@dataclass
class TokenEmbeddings:
    """Per-layer token vectors of a list of sentences and what each row is.

    Attributes
    ----------
    model : str
    layers : tuple of int
    path : Path
        The cache entry; ``layer(i)`` memory-maps ``layer_{i:03d}.npy`` from it.
    token_ids, sentence_index, position, word_index : int arrays, one entry per token
    special_mask : bool array, True for special tokens ([CLS], [SEP], BOS, ...)
    tokens : array of str, the token strings
    words : list of list of str, the words of each sentence (by :data:`WORD_PATTERN`)
    meta : dict, extraction facts (counts, timings, padding share)
    """

    model: str
    layers: tuple[int, ...]
    path: Path
    token_ids: np.ndarray
    sentence_index: np.ndarray
    position: np.ndarray
    word_index: np.ndarray
    special_mask: np.ndarray
    tokens: np.ndarray
    words: list[list[str]]
    meta: dict

    def __len__(self) -> int:
        return int(self.token_ids.shape[0])

    def layer(self, layer: int) -> np.ndarray:
        """The ``(n_tokens, dim)`` float32 array of one layer (memory-mapped, read-only)."""
        if layer not in self.layers:
            raise ValueError(f"Layer {layer} was not extracted; available: {list(self.layers)}.")
        return np.load(self.path / f"layer_{layer:03d}.npy", mmap_mode="r")

    def token_mask(self, exclude_positions: Sequence[int] = (), drop_special: bool = False
                   ) -> np.ndarray:
        """Tokens to pool per sentence, never leaving a sentence empty.

        Drops special tokens when ``drop_special`` and tokens at ``exclude_positions``; a
        sentence that would lose all its tokens (a one-token sentence under a decoder whose
        position 0 is excluded) keeps them, so every sentence still gets a vector.
        """
        return pooling_mask(self.sentence_index, self.position, self.special_mask,
                            exclude_positions, drop_special)

    def sentence_rows(self, sentence_ids, exclude_positions: Sequence[int] = (),
                      drop_special: bool = True) -> np.ndarray:
        """Token rows of the given sentences that :meth:`token_mask` keeps, in token order
        (claim 4 transforms and pools these rows)."""
        keep = self.token_mask(exclude_positions, drop_special=drop_special)
        return np.flatnonzero(keep & np.isin(self.sentence_index, sentence_ids))

    def pool(self, values: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Mean of ``values`` per sentence, where ``values[i]`` belongs to token row
        ``rows[i]`` (rows in token order, so each sentence's rows are contiguous).

        Returns ``(sentence_ids, means)``: the sentences that have rows, ascending, and their
        ``(len(sentence_ids), dim)`` mean vectors (float64). This is the one pooling of
        cached token vectors: :meth:`sentence_means` pools a layer, claim 4 pools
        transformed rows.
        """
        return pool_rows(values, rows, self.sentence_index)

    def sentence_means(self, layer: int, exclude_positions: Sequence[int] = (),
                       drop_special: bool = False) -> np.ndarray:
        """Mean of each sentence's token vectors at one layer (float32), over the tokens
        :meth:`token_mask` keeps: special tokens included by default (the
        sentence-transformers convention), ``exclude_positions`` dropped unless that would
        empty a sentence. Equal to the forward-pass pooling of
        :meth:`anisotropy.inputs.encoders.Encoder.encode_sentences`."""
        rows = np.flatnonzero(self.token_mask(exclude_positions, drop_special))
        ids, means = self.pool(np.asarray(self.layer(layer))[rows], rows)
        out = np.zeros((len(self.words), means.shape[1]))
        out[ids] = means
        return out.astype(np.float32)

    def token_table(self) -> pd.DataFrame:
        """One row per token: sentence, position, token id and string, word index, special."""
        return pd.DataFrame({
            "sentence": self.sentence_index, "position": self.position,
            "token_id": self.token_ids, "token": self.tokens, "word_index": self.word_index,
            "special": self.special_mask,
        })

    def word_table(self, exclude_positions: Sequence[int] = ()) -> pd.DataFrame:
        """One row per word occurrence that has at least one kept token.

        Columns: ``sentence``, ``word_index``, ``word`` (as written), ``first_token`` and
        ``n_tokens`` (the run of subword tokens, after dropping special tokens and tokens at
        ``exclude_positions``), ``first_position``.
        """
        keep = self._kept(exclude_positions)
        sentence = self.sentence_index[keep]
        word = self.word_index[keep]
        rows = np.flatnonzero(keep)
        change = np.ones(rows.size, dtype=bool)
        change[1:] = (sentence[1:] != sentence[:-1]) | (word[1:] != word[:-1])
        starts = np.flatnonzero(change)
        counts = np.diff(np.append(starts, rows.size))
        table = pd.DataFrame({
            "sentence": sentence[starts], "word_index": word[starts],
            "first_token": rows[starts], "n_tokens": counts,
            "first_position": self.position[rows[starts]],
        })
        table["word"] = [self.words[s][w] for s, w in zip(table["sentence"], table["word_index"],
                                                          strict=True)]
        return table

    def _kept(self, exclude_positions: Sequence[int]) -> np.ndarray:
        """Tokens of real words, dropping every word that has a token at an excluded position.

        A word is dropped whole (not trimmed to its remaining subwords), so that excluding
        the decoder's position-0 sink never leaves a word represented by a fragment.
        """
        keep = (~self.special_mask) & (self.word_index >= 0)
        excluded = np.isin(self.position, np.asarray(list(exclude_positions), dtype=int))
        if excluded.any():
            width = int(self.word_index.max()) + 2
            word_key = self.sentence_index.astype(np.int64) * width + self.word_index
            keep &= ~np.isin(word_key, word_key[excluded & keep])
        return keep

    def word_vectors(self, layer: int, exclude_positions: Sequence[int] = ()
                     ) -> tuple[np.ndarray, pd.DataFrame]:
        """Word vectors of one layer: subword vectors averaged into their word.

        Returns the ``(n_words, dim)`` float32 matrix and :meth:`word_table` (same order).
        """
        keep = self._kept(exclude_positions)
        table = self.word_table(exclude_positions)
        rows = np.flatnonzero(keep)
        X = np.asarray(self.layer(layer))[rows]
        change = np.ones(rows.size, dtype=bool)
        s, w = self.sentence_index[rows], self.word_index[rows]
        change[1:] = (s[1:] != s[:-1]) | (w[1:] != w[:-1])
        return pool_words(X, np.flatnonzero(change)), table


def pooling_mask(sentence_index: np.ndarray, position: np.ndarray, special: np.ndarray,
                 exclude_positions: Sequence[int] = (), drop_special: bool = False
                 ) -> np.ndarray:
    """The token rows a sentence vector averages, never leaving a sentence empty.

    Drops special tokens when ``drop_special`` and tokens at ``exclude_positions`` (the
    decoder's position-0 sink); a sentence that would lose all its tokens keeps them. This
    is the one row-selection rule of sentence pooling: :meth:`TokenEmbeddings.token_mask`
    applies it to cached tokens, :func:`extract_pooled` to each forward batch.
    """
    base = ~np.asarray(special, dtype=bool) if drop_special else np.ones(len(position), bool)
    excluded = np.isin(position, np.asarray(list(exclude_positions), dtype=int))
    kept = base & ~excluded
    sentence_index = np.asarray(sentence_index)
    n_sentences = int(sentence_index.max()) + 1 if sentence_index.size else 0
    remaining = np.bincount(sentence_index[kept], minlength=n_sentences)
    emptied = remaining[sentence_index] == 0
    return kept | (base & emptied)


def pool_rows(values: np.ndarray, rows: np.ndarray, sentence_index: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray]:
    """Mean of ``values`` per sentence, where ``values[i]`` belongs to token row ``rows[i]``
    and ``sentence_index`` maps every token row to its sentence.

    Rows must be increasing (token order), so each sentence's rows are contiguous. Returns
    ``(sentence_ids, means)``: the sentences that have rows, ascending, and their float64
    means. The one pooling of token vectors into sentence vectors, whether the tokens come
    from the cache (:meth:`TokenEmbeddings.pool`) or from a forward batch
    (:func:`extract_pooled`).
    """
    rows = np.asarray(rows)
    values = np.asarray(values)
    if values.ndim != 2 or values.shape[0] != rows.size:
        raise ValueError(f"values must have one row per token row: {values.shape} for "
                         f"{rows.size} rows.")
    if rows.size and (np.diff(rows) <= 0).any():
        raise ValueError("rows must be increasing (token order).")
    if not rows.size:
        return np.zeros(0, dtype=np.int64), np.zeros((0, values.shape[1]))
    sentences = np.asarray(sentence_index)[rows]
    starts = run_starts(sentences)
    return sentences[starts], run_means(values, starts)


def pool_words(X: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Average contiguous runs of rows: run ``i`` is ``X[starts[i]:starts[i+1]]``.

    Subword tokens of a word are contiguous, so this is the subword-to-word mean pooling.
    """
    return run_means(np.asarray(X, dtype=np.float32), starts).astype(np.float32)


# --------------------------------------------------------------------------- shared machinery


def _sentences_digest(sentences: Sequence[str]) -> str:
    digest = hashlib.sha256()
    for sentence in sentences:
        digest.update(sentence.encode("utf-8"))
        digest.update(b"\x1f")
    return digest.hexdigest()


@dataclass
class _Tokenized:
    ids: list[list[int]]
    offsets: list[list[tuple[int, int]]]
    special: list[list[int]]
    truncated: int


def _tokenize(encoder, sentences: list[str], truncate: bool) -> _Tokenized:
    if not sentences:
        raise ValueError("No sentences given.")
    empty = [i for i, s in enumerate(sentences) if not isinstance(s, str) or not s.strip()]
    if empty:
        raise ValueError(f"{len(empty)} empty or non-string sentences, e.g. at index "
                         f"{empty[:5]}; remove them before encoding.")
    encoded = encoder.tokenizer(sentences, add_special_tokens=True, truncation=False,
                                return_offsets_mapping=True, return_special_tokens_mask=True)
    ids, offsets, special = (encoded["input_ids"], encoded["offset_mapping"],
                             encoded["special_tokens_mask"])
    too_long = [i for i, seq in enumerate(ids) if len(seq) > encoder.max_length]
    if too_long and not truncate:
        raise ValueError(
            f"{len(too_long)} sentences exceed {encoder.name}'s max_length={encoder.max_length} "
            f"tokens (e.g. index {too_long[0]} with {len(ids[too_long[0]])}); shorten them "
            "(e.g. smaller windows) or pass truncate=True."
        )
    for i in too_long:
        ids[i], offsets[i], special[i] = (ids[i][: encoder.max_length],
                                          offsets[i][: encoder.max_length],
                                          special[i][: encoder.max_length])
    return _Tokenized(ids, offsets, special, len(too_long))


def _batches(lengths: np.ndarray, batch_tokens: int, max_padding: float = 0.08
             ) -> list[np.ndarray]:
    """Sentence indices grouped by similar length.

    Sentences are sorted by length (longest first) and cut into batches so that a padded
    batch holds at most ``batch_tokens`` tokens and padding is at most ``max_padding`` of
    it; the padding share of the whole run therefore stays under 10%.
    """
    order = np.argsort(lengths, kind="stable")[::-1]
    batches, current, longest, real = [], [], 0, 0
    for index in order:
        length = int(lengths[index])
        if current:
            width = max(longest, length)
            padded = width * (len(current) + 1)
            if padded > batch_tokens or 1 - (real + length) / padded > max_padding:
                batches.append(np.array(current))
                current, longest, real = [], 0, 0
        current.append(index)
        longest = max(longest, length)
        real += length
    if current:
        batches.append(np.array(current))
    return batches


def _forward(encoder, ids: list[list[int]]):
    """Hidden states (tuple of L+1 tensors, batch x time x dim) and the attention mask."""
    import torch

    width = max(len(seq) for seq in ids)
    pad = encoder.tokenizer.pad_token_id or 0
    input_ids = torch.full((len(ids), width), pad, dtype=torch.long)
    mask = torch.zeros((len(ids), width), dtype=torch.long)
    for row, seq in enumerate(ids):
        input_ids[row, : len(seq)] = torch.tensor(seq)
        mask[row, : len(seq)] = 1
    device = getattr(encoder, "device", "cpu")
    with torch.inference_mode():
        output = encoder.model(input_ids=input_ids.to(device), attention_mask=mask.to(device),
                               output_hidden_states=True)
    if device == "cpu" and getattr(encoder, "dtype", "float32") == "float32":
        return output.hidden_states, mask
    return tuple(h.to("cpu", torch.float32) for h in output.hidden_states), mask


def _description(encoder, sentences, kind: str, **params) -> dict:
    """What a cache entry of extracted vectors depends on. The precision is part of it
    (only when not float32, so float32 keys are those of earlier versions); the device is
    not, so vectors made on a GPU serve CPU jobs, and each entry's meta records it."""
    dtype = getattr(encoder, "dtype", "float32")
    return {"kind": kind, "model": encoder.name, "fingerprint": encoder.resolved.fingerprint,
            "sentences": _sentences_digest(sentences), "n_sentences": len(sentences),
            "max_length": encoder.max_length, "extraction_version": EXTRACTION_VERSION,
            **({} if dtype == "float32" else {"dtype": dtype}), **params}


def _word_indices(sentence: str, offsets, special) -> list[int]:
    char_to_word = np.full(len(sentence) + 1, -1, dtype=np.int64)
    for w, (start, stop, _) in enumerate(split_words(sentence)):
        char_to_word[start:stop] = w
    out = []
    for (start, stop), is_special in zip(offsets, special, strict=True):
        if is_special or stop <= start:
            out.append(-1)
            continue
        hits = char_to_word[start:stop]
        hits = hits[hits >= 0]
        out.append(int(hits[0]) if hits.size else -1)
    return out


# --------------------------------------------------------------------------- token extraction


def extract_token_embeddings(encoder, sentences: list[str], layers: list[int], *,
                             batch_tokens: int = 8192, progress: bool = True,
                             truncate: bool = False) -> TokenEmbeddings:
    """Run the model over ``sentences`` and store every token's vector at ``layers``.

    See :meth:`anisotropy.inputs.encoders.Encoder.encode_tokens`.
    """
    description = _description(encoder, sentences, "tokens", layers=layers, truncate=truncate,
                               word_pattern=WORD_PATTERN)

    def build(tmp: Path) -> None:
        tokenized = _tokenize(encoder, sentences, truncate)
        lengths = np.array([len(seq) for seq in tokenized.ids])
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        n_tokens = int(lengths.sum())
        arrays = {layer: np.lib.format.open_memmap(tmp / f"layer_{layer:03d}.npy", mode="w+",
                                                   dtype=np.float32,
                                                   shape=(n_tokens, encoder.dim))
                  for layer in layers}
        batches = _batches(lengths, batch_tokens)
        padded = sum(len(b) * int(lengths[b].max()) for b in batches)
        began = time.perf_counter()
        for batch in tqdm(batches, desc=f"{encoder.name.split('/')[-1]}: tokens",
                          disable=not progress, unit="batch"):
            hidden, _ = _forward(encoder, [tokenized.ids[i] for i in batch])
            for layer in layers:
                states = hidden[layer].numpy()
                for row, index in enumerate(batch):
                    arrays[layer][starts[index]: starts[index] + lengths[index]] = \
                        states[row, : lengths[index]]
        seconds = time.perf_counter() - began
        for array in arrays.values():
            array.flush()
        del arrays
        word_index = np.concatenate([
            _word_indices(s, o, sp) for s, o, sp in
            zip(sentences, tokenized.offsets, tokenized.special, strict=True)])
        flat_ids = np.concatenate([np.asarray(seq, dtype=np.int64) for seq in tokenized.ids])
        np.savez(tmp / "index.npz",
                 token_ids=flat_ids.astype(np.int32),
                 sentence_index=np.repeat(np.arange(len(sentences)), lengths).astype(np.int32),
                 position=np.concatenate([np.arange(n) for n in lengths]).astype(np.int32),
                 word_index=word_index.astype(np.int32),
                 special_mask=np.concatenate([np.asarray(s, dtype=bool)
                                              for s in tokenized.special]))
        words = [[w for _, _, w in split_words(s)] for s in sentences]
        (tmp / "words.json").write_text(json.dumps(words))
        meta = {"model": encoder.name, "layers": layers, "n_sentences": len(sentences),
                "n_tokens": n_tokens, "padded_tokens": padded,
                "padding_share": 1 - n_tokens / padded, "forward_seconds": seconds,
                "tokens_per_second": n_tokens / max(seconds, 1e-9),
                "truncated_sentences": tokenized.truncated, "library_version": __version__,
                "device": getattr(encoder, "device", "cpu"),
                "dtype": getattr(encoder, "dtype", "float32")}
        (tmp / "meta.json").write_text(json.dumps(meta, indent=1))

    path = cache.get_or_create("tokens", description, build)
    index = np.load(path / "index.npz")
    tokens = np.array(encoder.tokenizer.convert_ids_to_tokens(index["token_ids"].tolist()),
                      dtype=object)
    return TokenEmbeddings(
        model=encoder.name, layers=tuple(layers), path=path, token_ids=index["token_ids"],
        sentence_index=index["sentence_index"], position=index["position"],
        word_index=index["word_index"], special_mask=index["special_mask"], tokens=tokens,
        words=json.loads((path / "words.json").read_text()),
        meta=json.loads((path / "meta.json").read_text()))


# --------------------------------------------------------------------------- pooled extraction


def extract_pooled(encoder, sentences: list[str], *, batch_tokens: int = 8192,
                   progress: bool = True) -> dict[str, np.ndarray]:
    """Mean-pooled (with and without position 0) and first-token vectors at every layer.

    Returns a dict of float32 arrays of shape ``(L+1, n_sentences, dim)`` under ``"mean"``,
    ``"mean_nosink"`` and ``"first"`` (memory-mapped from the cache). The means use the
    rows of :func:`pooling_mask` and the averaging of :func:`pool_rows`, as sentence means of
    cached tokens do (:meth:`TokenEmbeddings.sentence_means`).
    """
    layers = list(range(encoder.n_layers + 1))
    description = _description(encoder, sentences, "pooled", pooling="pool_rows")

    def build(tmp: Path) -> None:
        tokenized = _tokenize(encoder, sentences, truncate=False)
        lengths = np.array([len(seq) for seq in tokenized.ids])
        shape = (len(layers), len(sentences), encoder.dim)
        out = {name: np.lib.format.open_memmap(tmp / f"{name}.npy", mode="w+",
                                               dtype=np.float32, shape=shape)
               for name in ("mean", "mean_nosink", "first")}
        began = time.perf_counter()
        for batch in tqdm(_batches(lengths, batch_tokens),
                          desc=f"{encoder.name.split('/')[-1]}: sentences",
                          disable=not progress, unit="batch"):
            hidden, mask = _forward(encoder, [tokenized.ids[i] for i in batch])
            real = mask.numpy().astype(bool)  # batch x time, real tokens (right padding)
            sentence = np.nonzero(real)[0]
            position = np.nonzero(real)[1]
            no_special = np.zeros(sentence.size, dtype=bool)  # means keep special tokens
            rows = {"mean": np.flatnonzero(pooling_mask(sentence, position, no_special)),
                    "mean_nosink": np.flatnonzero(pooling_mask(sentence, position, no_special,
                                                               (0,)))}
            for layer in layers:
                states = hidden[layer].numpy()
                flat = states[real]  # token rows in order: sentence, then position
                for name, kept in rows.items():
                    _, means = pool_rows(flat[kept], kept, sentence)
                    out[name][layer, batch] = means
                out["first"][layer, batch] = states[:, 0]
        for array in out.values():
            array.flush()
        (tmp / "meta.json").write_text(json.dumps({
            "model": encoder.name, "n_sentences": len(sentences),
            "n_tokens": int(lengths.sum()), "forward_seconds": time.perf_counter() - began,
            "library_version": __version__, "device": getattr(encoder, "device", "cpu"),
            "dtype": getattr(encoder, "dtype", "float32")}, indent=1))

    path = cache.get_or_create("pooled", description, build)
    return {name: np.load(path / f"{name}.npy", mmap_mode="r")
            for name in ("mean", "mean_nosink", "first")}


def pool_sentences(pooled: dict[str, np.ndarray], pooling: str, last_layer: int,
                   first_layer: int = 1, exclude_sink: bool = False,
                   normalize: bool = False) -> np.ndarray:
    """Combine cached per-layer poolings into one sentence vector per sentence (float32)."""
    means = pooled["mean_nosink" if exclude_sink else "mean"]
    if pooling in ("mean", "last-avg"):
        vectors = np.asarray(means[last_layer], dtype=np.float64)
    elif pooling == "cls":
        vectors = np.asarray(pooled["first"][last_layer], dtype=np.float64)
    elif pooling == "first-last-avg":
        vectors = (np.asarray(means[first_layer], dtype=np.float64)
                   + np.asarray(means[last_layer], dtype=np.float64)) / 2
    else:
        raise ValueError(f"Unknown pooling {pooling!r}.")
    if normalize:
        vectors = vectors / np.linalg.norm(vectors, axis=1, keepdims=True).clip(min=1e-12)
    return vectors.astype(np.float32)
