"""Forward passes that turn sentences into per-layer vectors, cached on disk.

Two products, each a cache entry keyed by the model (name and weight hashes), the exact
sentences, the extraction parameters and :data:`EXTRACTION_VERSION`:

- :class:`~anisotropy.inputs.token_embeddings.TokenEmbeddings`: every token's vector at
  the requested layers (memory-mapped ``.npy`` per layer), with token ids, strings,
  sentence index, position, the word each subword belongs to, and the special-token mask.
- pooled sentence vectors (mean over tokens, with and without position 0, and the first
  token) at every layer, from which :func:`pool_sentences` builds ``mean``, ``cls`` and
  ``first-last-avg`` without storing token vectors.

Batches are bucketed by length (sentences sorted by token count, then cut to a token
budget), so padding stays a small share of the work; the share is recorded in the entry.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from anisotropy.inputs import cache
from anisotropy.inputs.memory import free_memory
from anisotropy.inputs.token_embeddings import (
    WORD_PATTERN,
    TokenEmbeddings,
    pool_rows,
    pool_words,
    pooling_mask,
    split_words,
)
from anisotropy.inputs.version import __version__

__all__ = ["EXTRACTION_VERSION", "WORD_PATTERN", "TokenEmbeddings", "extract_token_embeddings",
           "extract_pooled", "pool_sentences", "pool_words", "pool_rows", "pooling_mask",
           "split_words"]

#: Part of every extraction cache key: raised when entries made before may be wrong. 3: until
#: the fix of Encoder.input_embedding_matrix (November 2026), a process that read Gemma's input
#: embedding matrix (claims 2 and 3) scaled the model's embedding weights in place, and its later
#: forward passes cached wrong vectors; no entry made before the fix is read again.
EXTRACTION_VERSION = "3"
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


#: The arrays of a pooled entry: sentence means, means without position 0, first tokens.
POOLED_ARRAYS = ("mean", "mean_nosink", "first")

#: Bytes per token of a token entry's ``index.npz`` (four int32 columns and one bool).
INDEX_BYTES = 4 * 4 + 1

#: The most memory one batch's hidden states of every layer may take, in bytes.
HIDDEN_STATES_BYTES = 64 * 2**20


def bounded_batch_tokens(encoder, batch_tokens: int) -> int:
    """``batch_tokens``, lowered so that one batch's hidden states of every layer (the
    forward pass returns all L+1 of them, float32) take at most
    :data:`HIDDEN_STATES_BYTES`: ``min(batch_tokens, bytes // ((L + 1) * dim * 4))``.

    The forward pass's own working memory grows with the batch too. Encoding 1,072 SST-2
    sentences with SmolLM2 (31 x 576) peaked at 1.92 GB with batches of up to 8,192 tokens,
    1.87 GB at 256 MiB, 1.56 GB at 128 MiB and 1.33 GB at 64 MiB (939 tokens a batch), in
    the same time (37-40 s); the binder profile's budget is 2 GB. MiniLM (7 x 384) gets
    6,241 tokens a batch, MPNet 1,680 and Gemma-3 1,379. The vectors are the same up to
    float rounding (the batches' shapes differ), so the cache key does not hold the bound.
    Token extraction keeps the stored layers of one more batch alive while they are
    written (:class:`_BackgroundWriter`): at most as much again.

    Parameters
    ----------
    encoder : Encoder
        The model (its ``n_layers`` and ``dim`` are read).
    batch_tokens : int
        The requested most tokens in a batch, padding included.

    Returns
    -------
    int
        The bound: at most ``batch_tokens``, and at least 1.
    """
    per_token = (encoder.n_layers + 1) * encoder.dim * 4
    return max(1, min(int(batch_tokens), HIDDEN_STATES_BYTES // per_token))


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


def padded_batch(encoder, ids: list[list[int]]):
    """Token ids right-padded with the tokenizer's pad id (0 when it has none) to the
    longest sequence, and the attention mask: two ``(batch, width)`` long tensors.

    Parameters
    ----------
    encoder : Encoder
        The model whose tokenizer gives the pad id.
    ids : list of list of int
        The token ids of each sequence of the batch (at least one).

    Returns
    -------
    input_ids : torch.Tensor of shape (batch, width), int64
        The ids, right-padded.
    mask : torch.Tensor of shape (batch, width), int64
        1 at real tokens, 0 at padding.
    """
    import torch

    width = max(len(seq) for seq in ids)
    pad = encoder.tokenizer.pad_token_id or 0
    input_ids = torch.full((len(ids), width), pad, dtype=torch.long)
    mask = torch.zeros((len(ids), width), dtype=torch.long)
    for row, seq in enumerate(ids):
        input_ids[row, : len(seq)] = torch.tensor(seq)
        mask[row, : len(seq)] = 1
    return input_ids, mask


def _forward(encoder, ids: list[list[int]]):
    """Hidden states (tuple of L+1 tensors, batch x time x dim) and the attention mask."""
    import torch

    if getattr(encoder, "model", True) is None:
        raise RuntimeError(f"{encoder.name}: its weights were released (Encoder.release); "
                           "load the model again for a forward pass.")
    input_ids, mask = padded_batch(encoder, ids)
    device = getattr(encoder, "device", "cpu")
    with torch.inference_mode():
        output = encoder.model(input_ids=input_ids.to(device), attention_mask=mask.to(device),
                               output_hidden_states=True)
    if device == "cpu" and getattr(encoder, "dtype", "float32") == "float32":
        return output.hidden_states, mask
    return tuple(h.to("cpu", torch.float32) for h in output.hidden_states), mask


class _RowFile:
    """A float32 ``.npy`` file of ``shape`` filled in blocks of rows by ``pwrite``.

    ``os.pwrite`` copies each block into the page cache in one system call; writing
    through a fresh ``np.memmap`` takes a page fault per 4 KiB page and a synchronous
    ``msync`` at the end. On 400 MB of SNLI-like rows scattered in sentence order
    (2,000 sentences, 7 layers of 384) the memory map took 4 times as long (1.7-2.0 s
    against 0.4-0.7 s, plus 0.3 s of flush; 2-core AMD EPYC with two other jobs running,
    November 2026), which was most of what extraction added to the bare forward passes
    (issue 33). Where ``os.pwrite`` does not exist (Windows), a seek and a write do the same.
    """

    def __init__(self, path: Path, shape: tuple[int, int]):
        header = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=shape)
        self.offset, self.row_bytes = header.offset, shape[1] * 4
        del header  # the file exists at its full size, holes where rows are not yet written
        self.fd = os.open(path, os.O_WRONLY | getattr(os, "O_BINARY", 0))

    def write(self, first_row: int, rows: np.ndarray) -> None:
        """Write ``rows`` (float32, ``(n, dim)``) at row ``first_row``."""
        view = memoryview(np.ascontiguousarray(rows, dtype=np.float32)).cast("B")
        position = self.offset + first_row * self.row_bytes
        while view:
            if hasattr(os, "pwrite"):
                written = os.pwrite(self.fd, view, position)
            else:  # Windows
                os.lseek(self.fd, position, os.SEEK_SET)
                written = os.write(self.fd, view)
            view, position = view[written:], position + written

    def close(self) -> None:
        os.close(self.fd)


def _write_batch(files: dict, layers: list[int], states: list[np.ndarray], batch: np.ndarray,
                 starts: np.ndarray, lengths: np.ndarray) -> None:
    """Write one batch's real token rows (``states[j]``: layer ``layers[j]``, ``(batch,
    time, dim)``) at their sentences' first rows."""
    for layer, block in zip(layers, states, strict=True):
        for row, index in enumerate(batch):
            files[layer].write(int(starts[index]), block[row, : lengths[index]])


class _BackgroundWriter:
    """One worker thread that writes a batch's rows while the next batch's forward pass
    runs.

    At most one write is pending: :meth:`submit` first waits for the previous one, so two
    batches' hidden states are alive at a time (at most 2 x :data:`HIDDEN_STATES_BYTES`),
    and a write that failed raises in the loop at the next batch, or in :meth:`wait`.
    ``os.pwrite`` releases the GIL, so on two cores the copy into the page cache overlaps
    the forward pass instead of following it: with MiniLM-L6 on 1,000 SNLI sentences and
    two threads, the serial writes cost 9-10% of the bare forward passes' rate (2-core AMD
    EPYC, November 2026).
    """

    def __init__(self):

        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rows")
        self._pending = None

    def submit(self, function, *args) -> None:
        """Wait for the pending write, then start ``function(*args)``."""
        self.wait()
        self._pending = self._pool.submit(function, *args)

    def wait(self) -> None:
        """Wait for the pending write; raise its error, if any."""
        pending, self._pending = self._pending, None
        if pending is not None:
            pending.result()

    def close(self) -> None:
        """Wait for the pending write and stop the thread."""
        try:
            self.wait()
        finally:
            self._pool.shutdown()


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

    Parameters
    ----------
    encoder : Encoder
        The model.
    sentences : list of str
        Non-empty texts.
    layers : list of int
        Layers to store, already checked
        (:meth:`~anisotropy.inputs.encoders.Encoder.check_layers`).
    batch_tokens : int, optional
        Most tokens in a batch, padding included, default 8192; lowered by
        :func:`bounded_batch_tokens`.
    progress : bool, optional
        Show a progress bar (default True).
    truncate : bool, optional
        Cut sentences longer than the encoder's ``max_length`` tokens instead of raising
        (default False).

    Returns
    -------
    TokenEmbeddings
        The cache entry's token vectors (memory-mapped per layer) and token index; the
        entry is built first when it is not in the cache.

    Raises
    ------
    ValueError
        When ``sentences`` is empty or holds an empty or non-string item, or a sentence is
        longer than ``max_length`` tokens and ``truncate`` is False.
    """
    description = _description(encoder, sentences, "tokens", layers=layers, truncate=truncate,
                               word_pattern=WORD_PATTERN)

    def build(tmp: Path) -> None:
        tokenized = _tokenize(encoder, sentences, truncate)
        lengths = np.array([len(seq) for seq in tokenized.ids])
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        n_tokens = int(lengths.sum())
        cache.require_space(tmp, n_tokens * (encoder.dim * 4 * len(layers) + INDEX_BYTES),
                            f"{encoder.name}'s token vectors ({n_tokens:,} tokens x "
                            f"{len(layers)} layers)")
        files = {layer: _RowFile(tmp / f"layer_{layer:03d}.npy", (n_tokens, encoder.dim))
                 for layer in layers}
        batches = _batches(lengths, bounded_batch_tokens(encoder, batch_tokens))
        padded = sum(len(b) * int(lengths[b].max()) for b in batches)
        writer = _BackgroundWriter()
        began = time.perf_counter()
        try:
            for batch in tqdm(batches, desc=f"{encoder.name.split('/')[-1]}: tokens",
                              disable=not progress, unit="batch"):
                hidden, _ = _forward(encoder, [tokenized.ids[i] for i in batch])
                states = [hidden[layer].numpy() for layer in layers]
                del hidden  # the layers not stored are freed now
                writer.submit(_write_batch, files, layers, states, batch, starts, lengths)
                del states  # the writer holds them until written
            writer.wait()
            seconds = time.perf_counter() - began
        finally:
            try:
                writer.close()
            finally:
                for file in files.values():
                    file.close()
        free_memory()  # the forward passes' freed buffers, before the analysis that follows
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

    Parameters
    ----------
    encoder : Encoder
        The model.
    sentences : list of str
        Non-empty texts of at most the encoder's ``max_length`` tokens (never truncated).
    batch_tokens : int, optional
        Most tokens in a batch, padding included, default 8192; lowered by
        :func:`bounded_batch_tokens`.
    progress : bool, optional
        Show a progress bar (default True).

    Returns
    -------
    dict of str to ndarray
        ``{"mean", "mean_nosink", "first"}``: float32 arrays of shape
        ``(L+1, n_sentences, dim)``, memory-mapped from the cache.

    Raises
    ------
    ValueError
        When ``sentences`` is empty or holds an empty or non-string item, or a sentence is
        longer than ``max_length`` tokens.
    """
    layers = list(range(encoder.n_layers + 1))
    description = _description(encoder, sentences, "pooled", pooling="pool_rows")

    def build(tmp: Path) -> None:
        tokenized = _tokenize(encoder, sentences, truncate=False)
        lengths = np.array([len(seq) for seq in tokenized.ids])
        shape = (len(layers), len(sentences), encoder.dim)
        what = f"{encoder.name}'s pooled vectors ({len(sentences):,} sentences)"
        cache.require_space(tmp, len(POOLED_ARRAYS) * 4 * int(np.prod(shape)), what)
        out = {name: np.lib.format.open_memmap(tmp / f"{name}.npy", mode="w+",
                                               dtype=np.float32, shape=shape)
               for name in POOLED_ARRAYS}
        for name in out:  # written through memory maps: no holes for a full disk to hit
            cache.reserve(tmp / f"{name}.npy", what)
        began = time.perf_counter()
        for batch in tqdm(_batches(lengths, bounded_batch_tokens(encoder, batch_tokens)),
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
            del hidden, states, flat  # freed before the next batch's forward pass
        for array in out.values():
            array.flush()
        free_memory()
        (tmp / "meta.json").write_text(json.dumps({
            "model": encoder.name, "n_sentences": len(sentences),
            "n_tokens": int(lengths.sum()), "forward_seconds": time.perf_counter() - began,
            "library_version": __version__, "device": getattr(encoder, "device", "cpu"),
            "dtype": getattr(encoder, "dtype", "float32")}, indent=1))

    path = cache.get_or_create("pooled", description, build)
    return {name: np.load(path / f"{name}.npy", mmap_mode="r") for name in POOLED_ARRAYS}


def pool_sentences(pooled: dict[str, np.ndarray], pooling: str, last_layer: int,
                   first_layer: int = 1, exclude_sink: bool = False,
                   normalize: bool = False) -> np.ndarray:
    """Combine cached per-layer poolings into one sentence vector per sentence (float32).

    See :meth:`anisotropy.inputs.encoders.Encoder.encode_sentences` for the poolings.

    Parameters
    ----------
    pooled : dict of str to ndarray
        Per-layer poolings, ``(L+1, n_sentences, dim)`` each, as :func:`extract_pooled`
        returns them.
    pooling : str
        ``"mean"`` or ``"last-avg"`` (the mean at ``last_layer``), ``"cls"`` (the first
        token at ``last_layer``) or ``"first-last-avg"`` (the average of the means at
        ``first_layer`` and ``last_layer``).
    last_layer : int
        The last layer (the encoder's ``n_layers``).
    first_layer : int, optional
        The first layer of ``"first-last-avg"`` (default 1); unused by the others.
    exclude_sink : bool, optional
        Take the means without position 0 (``"mean_nosink"``); default False. ``"cls"`` is
        unaffected.
    normalize : bool, optional
        Scale each vector to unit length (default False).

    Returns
    -------
    ndarray of shape (n_sentences, dim), float32
        One vector per sentence (computed in float64).

    Raises
    ------
    ValueError
        For an unknown pooling.
    """
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
