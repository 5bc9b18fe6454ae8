"""Claim 1's bootstrap over sentences: which sentences its sampled units come from.

Claim 1's seed draws a sample of sentences; every word it analyses and every random pair
of its baseline comes from them. Its intervals therefore resample the sentences, with
Bayesian-bootstrap weights (:func:`~anisotropy.geometry.intervals.dirichlet_weights`, the
same in every layer): a baseline pair weighs the product of its two sentences' weights, a
word the mean weight of the sentences of its analysed occurrences. Words and pairs that
share sentences then move together from draw to draw, as they do between two samples of
sentences, and no draw ever drops a word or a pair.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

__all__ = ["SentenceUnits", "pair_weights", "word_weights"]


@dataclass(frozen=True)
class SentenceUnits:
    """The sentences behind claim 1's sampled units.

    Attributes
    ----------
    pairs : int array (2, n_pairs)
        The sentences of each baseline pair's two words.
    words : dict
        ``{word type: int array of the sentences of its analysed occurrences}``.
    n_sentences : int
        Sentence ids run from 0 to ``n_sentences - 1``.
    """

    pairs: np.ndarray
    words: dict
    n_sentences: int

    @classmethod
    def independent(cls, n_pairs: int, word_types) -> SentenceUnits:
        """Every pair's words and every word from sentences of their own (no two units
        share a sentence): the bootstrap of independent pairs and words.

        Parameters
        ----------
        n_pairs : int
            Baseline pairs: pair ``i``'s two words get sentences ``i`` and ``n_pairs + i``.
        word_types : iterable
            The analysed words: the ``j``-th gets sentence ``2 * n_pairs + j``.

        Returns
        -------
        SentenceUnits
            The units over ``2 * n_pairs + len(word_types)`` sentences.
        """
        word_types = list(word_types)
        pairs = np.arange(2 * n_pairs).reshape(2, n_pairs)
        words = {t: np.array([2 * n_pairs + i]) for i, t in enumerate(word_types)}
        return cls(pairs, words, 2 * n_pairs + len(word_types))


def pair_weights(units: SentenceUnits, weights: np.ndarray) -> np.ndarray:
    """``(n_boot, n_pairs)``: the product of each pair's two sentence weights per draw.

    Parameters
    ----------
    units : SentenceUnits
        The sentences of the baseline's pairs (``units.pairs``).
    weights : numpy.ndarray of shape (n_boot, n_sentences)
        Each draw's sentence weights
        (:func:`~anisotropy.geometry.intervals.dirichlet_weights`).

    Returns
    -------
    numpy.ndarray of shape (n_boot, n_pairs)
        ``weights[b, s1] * weights[b, s2]`` for each pair's sentences ``s1``, ``s2``.
    """
    return weights[:, units.pairs[0]] * weights[:, units.pairs[1]]


def word_weights(units: SentenceUnits, types, weights: np.ndarray) -> np.ndarray:
    """``(n_boot, n_words)``: the mean weight of each word's sentences per draw, words in the
    order of ``types``. A word's sentences enter as often as its occurrences do.

    Parameters
    ----------
    units : SentenceUnits
        The sentences of the words' analysed occurrences (``units.words``).
    types : sequence
        The words, each a key of ``units.words``.
    weights : numpy.ndarray of shape (n_boot, n_sentences)
        Each draw's sentence weights, ``n_sentences`` = ``units.n_sentences``
        (:func:`~anisotropy.geometry.intervals.dirichlet_weights`).

    Returns
    -------
    numpy.ndarray of shape (n_boot, n_words)
        Column ``j``: the mean, over the occurrences of ``types[j]``, of the weight of the
        occurrence's sentence in each draw.
    """
    columns, rows = [], []
    for j, word in enumerate(types):
        sentences = units.words[word]
        rows.append(sentences)
        columns.append(np.full(sentences.size, j))
    rows, columns = np.concatenate(rows), np.concatenate(columns)
    sizes = np.bincount(columns, minlength=len(types)).astype(np.float64)
    shares = sparse.csr_matrix((1.0 / sizes[columns], (rows, columns)),
                               shape=(units.n_sentences, len(types)))
    return np.asarray((shares.T @ weights.T).T)


