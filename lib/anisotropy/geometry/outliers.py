"""Outlier dimensions: massive activations and rogue dimensions of a hidden state.

Two later readings of what makes contextual spaces anisotropic:

- **massive activations** (Sun et al. 2024): a few activations of a sequence's hidden
  state are orders of magnitude larger than its median magnitude, at a few fixed
  dimensions and a few tokens (the first token, delimiters);
- **rogue dimensions** (Timkey & van Schijndel 2021): a few dimensions carry most of the
  expected cosine similarity between random tokens, so the cosine measures them.

All functions are pure and work on float arrays of token vectors ``(n_tokens, dim)``.

References
----------
Sun, M., Chen, X., Kolter, J. Z., & Liu, Z. (2024). Massive activations in large language
models. COLM 2024.

Timkey, W., & van Schijndel, M. (2021). All bark and no bite: rogue dimensions in
transformer language models obscure representational quality. EMNLP 2021.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["SequencePeaks", "sequence_peaks", "cosine_contributions", "top_share",
           "standardise", "without_dimensions"]


class SequencePeaks(NamedTuple):
    """Per sequence: the largest |activation|, its ratio to the median |activation| of the
    sequence's hidden state, and where it sits (row of the token, dimension).

    Attributes
    ----------
    peak : float array (n_sequences,)
        Each sequence's largest |activation|.
    ratio : float array (n_sequences,)
        That peak over the median |activation| of the sequence's tokens by dimensions; inf
        when the median is 0.
    row : int array (n_sequences,)
        The row of ``X`` (the token) holding the peak.
    dim : int array (n_sequences,)
        The dimension holding the peak.
    """

    peak: np.ndarray
    ratio: np.ndarray
    row: np.ndarray
    dim: np.ndarray


def sequence_peaks(X, sequence_index) -> SequencePeaks:
    """The largest activation of each sequence against the median of its hidden state.

    .. math:: r_s = \\frac{\\max_{t \\in s,\\, i} |h_{t,i}|}
                         {\\operatorname{median}_{t \\in s,\\, i} |h_{t,i}|}

    Sun et al. (2024, Sec. 2) call an activation *massive* when its magnitude is about
    1,000 times the median magnitude of its hidden state (the sequence's tokens by
    dimensions); :math:`r_s` is that ratio for the sequence's largest activation.

    Parameters
    ----------
    X : array ``(n_tokens, dim)``
        Token vectors of one layer.
    sequence_index : int array ``(n_tokens,)``
        The sequence each row belongs to; each sequence's rows are contiguous.

    Returns
    -------
    SequencePeaks
        Arrays of one entry per sequence, in order of first appearance. ``row`` indexes
        ``X``; a sequence whose median is 0 gets ``ratio = inf``.
    """
    X = np.asarray(X)
    index = np.asarray(sequence_index)
    if X.ndim != 2 or index.shape != (X.shape[0],):
        raise ValueError(f"X must be (n_tokens, dim) and sequence_index (n_tokens,); got "
                         f"{X.shape} and {index.shape}.")
    if X.shape[0] == 0:
        raise ValueError("No tokens given.")
    starts = np.flatnonzero(np.r_[True, index[1:] != index[:-1]])
    if np.unique(index[starts]).size != starts.size:
        raise ValueError("Each sequence's rows must be contiguous in sequence_index.")
    stops = np.r_[starts[1:], index.size]
    magnitude = np.abs(X)
    flat = magnitude.argmax(axis=1)
    row_peak = magnitude[np.arange(X.shape[0]), flat]
    n = starts.size
    peak, ratio = np.empty(n), np.empty(n)
    row, dim = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    for s, (a, b) in enumerate(zip(starts, stops, strict=True)):
        best = a + int(row_peak[a:b].argmax())
        median = float(np.median(magnitude[a:b]))
        peak[s] = float(row_peak[best])
        ratio[s] = peak[s] / median if median > 0 else np.inf
        row[s], dim[s] = best, int(flat[best])
    return SequencePeaks(peak, ratio, row, dim)


def cosine_contributions(X, first, second) -> np.ndarray:
    """Each dimension's contribution to the mean cosine of pairs of rows.

    .. math:: CC_i = \\frac{1}{n}\\sum_{(u, v)} \\frac{u_i v_i}{\\lVert u\\rVert\\,
              \\lVert v\\rVert}, \\qquad \\sum_i CC_i = \\overline{\\cos(u, v)}

    (Timkey & van Schijndel 2021, Sec. 3, Eq. 2.) A pair with a zero vector contributes 0.

    Parameters
    ----------
    X : array_like of shape (n_tokens, dim)
        Token vectors of one layer.
    first, second : array_like of int, shape (n_pairs,)
        The rows of ``X`` of each pair: pair ``p`` is ``(X[first[p]], X[second[p]])``.

    Returns
    -------
    ndarray ``(n_pairs, dim)``
        Per pair and dimension, :math:`u_i v_i / (\\lVert u\\rVert \\lVert v\\rVert)`;
        its column means are the :math:`CC_i` and its row sums the pairs' cosines (so a
        bootstrap over pairs reweights rows).

    Raises
    ------
    ValueError
        If ``first`` and ``second`` are not 1-D arrays of one length.
    """
    X = np.asarray(X, dtype=np.float64)
    first, second = np.asarray(first), np.asarray(second)
    if first.shape != second.shape or first.ndim != 1:
        raise ValueError("first and second must be 1-D index arrays of one length.")
    norms = np.linalg.norm(X, axis=1)
    scale = norms[first] * norms[second]
    with np.errstate(invalid="ignore", divide="ignore"):
        inverse = np.where(scale > 0, 1.0 / scale, 0.0)
    return X[first] * X[second] * inverse[:, None]


def top_share(contributions, k: int) -> float:
    """The share of the total carried by the ``k`` largest entries: ``sum(top k) / sum``.

    With :func:`cosine_contributions`' column means this is the share of the mean cosine
    that the top-``k`` dimensions give (Timkey & van Schijndel 2021, Fig. 1). It can exceed
    1 when other dimensions contribute negatively; the sum must be positive.

    Parameters
    ----------
    contributions : array_like
        The values, e.g. the column means of :func:`cosine_contributions` (one per
        dimension); flattened, so a 2-D array is read as one vector of all its entries.
    k : int
        How many of the largest entries, ``1 <= k <= contributions.size``.

    Returns
    -------
    float
        The sum of the ``k`` largest entries over the sum of all entries.

    Raises
    ------
    ValueError
        For ``k`` outside ``[1, contributions.size]``, or a total that is not positive.
    """
    values = np.asarray(contributions, dtype=np.float64).ravel()
    if not 1 <= k <= values.size:
        raise ValueError(f"k must be between 1 and {values.size}; got {k}.")
    total = values.sum()
    if not total > 0:
        raise ValueError(f"The contributions sum to {total:.3g}; the share of a total that "
                         "is not positive is undefined.")
    return float(np.sort(values)[::-1][:k].sum() / total)


def standardise(X, mean=None, scale=None) -> np.ndarray:
    """Z-score each dimension: :math:`(x_i - \\mu_i) / \\sigma_i` (Timkey & van Schijndel
    2021, Sec. 5), with ``mean`` and ``scale`` estimated from ``X`` unless given. A constant
    dimension (``scale`` 0) is centred and left unscaled.

    Parameters
    ----------
    X : array_like of shape (n_tokens, dim)
        Token vectors.
    mean : array_like of shape (dim,), optional
        :math:`\\mu`; by default the column means of ``X``.
    scale : array_like of shape (dim,), optional
        :math:`\\sigma`; by default the column standard deviations of ``X`` (``ddof=0``).

    Returns
    -------
    numpy.ndarray of shape (n_tokens, dim), float64
        The z-scored vectors.
    """
    X = np.asarray(X, dtype=np.float64)
    mean = X.mean(axis=0) if mean is None else np.asarray(mean, dtype=np.float64)
    scale = X.std(axis=0) if scale is None else np.asarray(scale, dtype=np.float64)
    return (X - mean) / np.where(scale > 0, scale, 1.0)


def without_dimensions(X, dims) -> np.ndarray:
    """A copy of ``X`` with the columns ``dims`` set to 0 (the ablation of a few outlier
    dimensions, after which a similarity is measured again).

    Parameters
    ----------
    X : array_like of shape (n_tokens, dim)
        Token vectors.
    dims : array_like of int
        The columns to zero, each in ``[0, dim)`` (no negative indices).

    Returns
    -------
    numpy.ndarray of shape (n_tokens, dim), float64
        A new array; ``X`` is not changed.

    Raises
    ------
    ValueError
        For a dimension outside ``[0, dim)``.
    """
    out = np.array(X, dtype=np.float64, copy=True)
    dims = np.asarray(dims, dtype=np.int64)
    if dims.size and (dims.min() < 0 or dims.max() >= out.shape[1]):
        raise ValueError(f"dims must lie in [0, {out.shape[1]}); got {dims.tolist()}.")
    out[:, dims] = 0.0
    return out
