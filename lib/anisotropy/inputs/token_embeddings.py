"""What a token extraction holds: :class:`TokenEmbeddings` and the pooling over its rows.

A :class:`TokenEmbeddings` is what
:func:`anisotropy.inputs.extraction.extract_token_embeddings` returns: every token's
vector at the requested layers, with token ids, strings, sentence index, position, the word
each subword belongs to, and the special-token mask.
The pure functions here select and average its rows:

- :func:`pooling_mask`: which tokens a sentence mean uses (specials, the sink position);
- :func:`pool_rows`: sentence means of selected rows;
- :func:`pool_words`: subword-to-word means;
- :func:`split_words`: the word spans of a sentence (:data:`WORD_PATTERN`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from anisotropy.geometry.grouping import run_means, run_starts

__all__ = ["WORD_PATTERN", "TokenEmbeddings", "pool_words", "pool_rows", "pooling_mask",
           "split_words"]

#: How sentences are split into words: runs of letters/digits (with inner apostrophes),
#: or single punctuation marks.
WORD_PATTERN = r"[^\W_]+(?:'[^\W_]+)*|[^\w\s]|_"
_WORD_RE = re.compile(WORD_PATTERN)


def split_words(sentence: str) -> list[tuple[int, int, str]]:
    """Character spans and text of the words of a sentence, by :data:`WORD_PATTERN`.

    Parameters
    ----------
    sentence : str
        The sentence.

    Returns
    -------
    list of tuple of (int, int, str)
        ``(start, end, word)`` of each match in order, with ``sentence[start:end] == word``.
    """
    return [(m.start(), m.end(), m.group()) for m in _WORD_RE.finditer(sentence)]


# --------------------------------------------------------------------------- token embeddings


@dataclass
class TokenEmbeddings:
    """Per-layer token vectors of a list of sentences and what each row is.

    Attributes
    ----------
    model : str
        The model's name.
    layers : tuple of int
        The layers stored (0: the embedding layer).
    path : Path
        The cache entry; ``layer(i)`` memory-maps ``layer_{i:03d}.npy`` from it.
    token_ids : int array (n_tokens,)
        Each token's vocabulary id.
    sentence_index : int array (n_tokens,)
        The sentence each token belongs to (its index in the sentence list).
    position : int array (n_tokens,)
        Each token's position in its sentence's token sequence (0: the first token).
    word_index : int array (n_tokens,)
        The word of its sentence (an index into ``words``) that the token's characters
        fall in (the first, when they span several); -1 for special tokens and tokens
        outside every word.
    special_mask : bool array (n_tokens,)
        True for special tokens ([CLS], [SEP], BOS, ...).
    tokens : array of str (n_tokens,)
        The token strings.
    words : list of list of str
        The words of each sentence (by :data:`WORD_PATTERN`).
    meta : dict
        Extraction facts (counts, timings, padding share, device, dtype).
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
        """The ``(n_tokens, dim)`` float32 array of one layer (memory-mapped, read-only).

        Parameters
        ----------
        layer : int
            One of :attr:`layers`.

        Returns
        -------
        numpy.ndarray
            ``layer_{layer:03d}.npy`` of the cache entry, loaded with ``mmap_mode="r"``.

        Raises
        ------
        ValueError
            If ``layer`` was not extracted.
        """
        if layer not in self.layers:
            raise ValueError(f"Layer {layer} was not extracted; available: {list(self.layers)}.")
        return np.load(self.path / f"layer_{layer:03d}.npy", mmap_mode="r")

    def token_mask(self, exclude_positions: Sequence[int] = (), drop_special: bool = False
                   ) -> np.ndarray:
        """Tokens to pool per sentence, never leaving a sentence empty.

        Drops special tokens when ``drop_special`` and tokens at ``exclude_positions``; a
        sentence that would lose all its tokens (a one-token sentence under a decoder whose
        position 0 is excluded) keeps them, so every sentence still gets a vector.

        Parameters
        ----------
        exclude_positions : sequence of int, optional
            Positions to drop (default none).
        drop_special : bool, optional
            Whether to drop special tokens (default False).

        Returns
        -------
        numpy.ndarray of bool, shape (n_tokens,)
            :func:`pooling_mask` of this extraction's tokens.
        """
        return pooling_mask(self.sentence_index, self.position, self.special_mask,
                            exclude_positions, drop_special)

    def sentence_rows(self, sentence_ids, exclude_positions: Sequence[int] = (),
                      drop_special: bool = True) -> np.ndarray:
        """Token rows of the given sentences that :meth:`token_mask` keeps, in token order
        (claim 4 transforms and pools these rows).

        Parameters
        ----------
        sentence_ids : array_like of int
            The sentences (indices into the extraction's sentence list).
        exclude_positions : sequence of int, optional
            Positions to drop, as for :meth:`token_mask` (default none).
        drop_special : bool, optional
            Whether to drop special tokens (default True, unlike :meth:`token_mask`).

        Returns
        -------
        numpy.ndarray of int
            The kept token rows of those sentences, ascending.
        """
        keep = self.token_mask(exclude_positions, drop_special=drop_special)
        return np.flatnonzero(keep & np.isin(self.sentence_index, sentence_ids))

    def pool(self, values: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Mean of ``values`` per sentence, where ``values[i]`` belongs to token row
        ``rows[i]`` (rows in token order, so each sentence's rows are contiguous).

        Returns ``(sentence_ids, means)``: the sentences that have rows, ascending, and their
        ``(len(sentence_ids), dim)`` mean vectors (float64). This is the one pooling of
        cached token vectors: :meth:`sentence_means` pools a layer, claim 4 pools
        transformed rows.

        Parameters
        ----------
        values : numpy.ndarray
            ``(len(rows), dim)`` vectors, one per row of ``rows``.
        rows : numpy.ndarray
            Token rows, strictly increasing.

        Returns
        -------
        sentence_ids : numpy.ndarray of int
            The sentences that have rows, ascending.
        means : numpy.ndarray of float64, shape (len(sentence_ids), dim)
            Their mean vectors.

        Raises
        ------
        ValueError
            If ``values`` is not 2-D with one row per entry of ``rows``, or ``rows`` is not
            strictly increasing (:func:`pool_rows`).
        """
        return pool_rows(values, rows, self.sentence_index)

    def sentence_means(self, layer: int, exclude_positions: Sequence[int] = (),
                       drop_special: bool = False) -> np.ndarray:
        """Mean of each sentence's token vectors at one layer (float32), over the tokens
        :meth:`token_mask` keeps: special tokens included by default (the
        sentence-transformers convention), ``exclude_positions`` dropped unless that would
        empty a sentence. Equal to the forward-pass pooling of
        :meth:`anisotropy.inputs.encoders.Encoder.encode_sentences`.

        Parameters
        ----------
        layer : int
            One of :attr:`layers`.
        exclude_positions : sequence of int, optional
            Positions to drop (default none).
        drop_special : bool, optional
            Whether to drop special tokens (default False).

        Returns
        -------
        numpy.ndarray of float32, shape (n_sentences, dim)
            One row per sentence (``len(words)``); a sentence without kept tokens gets zeros.

        Raises
        ------
        ValueError
            If ``layer`` was not extracted.
        """
        rows = np.flatnonzero(self.token_mask(exclude_positions, drop_special))
        ids, means = self.pool(np.asarray(self.layer(layer))[rows], rows)
        out = np.zeros((len(self.words), means.shape[1]))
        out[ids] = means
        return out.astype(np.float32)

    def token_table(self) -> pd.DataFrame:
        """One row per token: sentence, position, token id and string, word index, special.

        Returns
        -------
        pandas.DataFrame
            Columns ``sentence, position, token_id, token, word_index, special``, in token
            order.
        """
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

        Parameters
        ----------
        exclude_positions : sequence of int, optional
            Positions to exclude (default none). A word with a token at one of them is left
            out whole, not trimmed to its other subwords; tokens without a word
            (``word_index`` < 0) and special tokens are never kept.

        Returns
        -------
        pandas.DataFrame
            One row per kept word, in token order. Columns, in this order: ``sentence``,
            ``word_index``, ``first_token`` (a token row), ``n_tokens``, ``first_position``
            (that token's position) and ``word``.
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

        Parameters
        ----------
        layer : int
            One of :attr:`layers`.
        exclude_positions : sequence of int, optional
            Positions to exclude, as for :meth:`word_table` (default none).

        Returns
        -------
        vectors : numpy.ndarray of float32, shape (n_words, dim)
            The mean of each kept word's subword vectors.
        table : pandas.DataFrame
            :meth:`word_table`, one row per row of ``vectors``.

        Raises
        ------
        ValueError
            If ``layer`` was not extracted.
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

    Parameters
    ----------
    sentence_index : numpy.ndarray of int
        The sentence of each token row.
    position : numpy.ndarray of int
        The position of each token row in its sentence.
    special : numpy.ndarray of bool
        True for each special token row.
    exclude_positions : sequence of int, optional
        Positions to drop (default none).
    drop_special : bool, optional
        Whether to drop special tokens (default False).

    Returns
    -------
    numpy.ndarray of bool, shape (n_tokens,)
        True for each row to average. A sentence left with no row gets back its rows at the
        excluded positions (but not its special tokens when ``drop_special``).
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

    Parameters
    ----------
    values : numpy.ndarray
        ``(len(rows), dim)`` vectors, one per entry of ``rows``.
    rows : numpy.ndarray
        Token rows, strictly increasing.
    sentence_index : numpy.ndarray
        The sentence of every token row (indexed by ``rows``).

    Returns
    -------
    sentence_ids : numpy.ndarray of int
        The sentences that have rows, ascending (empty when ``rows`` is).
    means : numpy.ndarray of float64, shape (len(sentence_ids), dim)
        Their mean vectors.

    Raises
    ------
    ValueError
        If ``values`` is not 2-D with one row per entry of ``rows``, or ``rows`` is not
        strictly increasing.
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

    Parameters
    ----------
    X : numpy.ndarray
        ``(n_rows, dim)`` vectors.
    starts : numpy.ndarray of int
        The first row of each run: starting at 0, strictly increasing; the last run ends
        at the last row.

    Returns
    -------
    numpy.ndarray of float32, shape (len(starts), dim)
        The mean of each run.

    Raises
    ------
    ValueError
        If ``starts`` does not begin at 0 or does not increase strictly within the rows
        of ``X`` (:func:`anisotropy.geometry.grouping.run_means`).
    """
    return run_means(np.asarray(X, dtype=np.float32), starts).astype(np.float32)
