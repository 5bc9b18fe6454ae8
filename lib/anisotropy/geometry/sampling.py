"""Seeded sampling of rows: one function, so every notebook and module draws alike.

Every sample the book takes without replacement (sentences, windows, points for K, LID or
IsoScore, fit tokens, training items) is ``rng.choice(n, size=min(size, n),
replace=False)`` on a fresh ``numpy.random.default_rng(seed)``: the same ``(n, size,
seed)`` give the same rows on any machine (NumPy's PCG64 stream is platform-independent).
Callers pass the seed of the sample's own named stream
(:func:`anisotropy.geometry.streams.stream_seed`), never a seed shared with another use.
"""

from __future__ import annotations

import numpy as np

__all__ = ["sample_indices"]


def sample_indices(n: int, size: int | None, seed: int = 0, *, sort: bool = False
                   ) -> np.ndarray:
    """``min(size, n)`` distinct indices of ``range(n)``, uniformly at random (seeded).

    With ``size`` None or at least ``n`` every index is returned, in a random order (or
    sorted with ``sort=True``). ``sort`` keeps the sample in its original order, e.g. so
    that a subset of sentences stays in corpus order.

    Parameters
    ----------
    n : int
        Size of the population, ``range(n)``; >= 0.
    size : int or None
        Number of indices wanted, >= 1; None (or at least ``n``) takes all ``n``.
    seed : int, optional
        Seed of ``numpy.random.default_rng`` (default 0): the seed of the sample's own
        named stream (:func:`anisotropy.geometry.streams.stream_seed`).
    sort : bool, optional
        Return the indices in ascending order instead of the order drawn (default False).

    Returns
    -------
    numpy.ndarray of int, shape (min(size, n),)
        Distinct indices of ``range(n)``.

    Raises
    ------
    ValueError
        For an ``n`` that is negative or not an integer, or a ``size`` that is below 1 or
        neither an integer nor None.
    """
    if not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"n must be an integer >= 0; got {n!r}.")
    if size is not None and (not isinstance(size, (int, np.integer)) or size < 1):
        raise ValueError(f"size must be an integer >= 1 or None; got {size!r}.")
    rng = np.random.default_rng(seed)
    rows = rng.choice(n, size=n if size is None else min(int(size), n), replace=False)
    return np.sort(rows) if sort else rows
