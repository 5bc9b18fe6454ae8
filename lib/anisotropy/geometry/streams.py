"""Named random streams: every random use gets its own generator from ``(seed, name)``.

A claim has one user-facing ``seed``. Each use of randomness under it (a sample of
sentences, the bootstrap of one STS task, the initialisation of one flow) names itself with
a path, ``"claim3/bootstrap/STS12"``, and draws from

.. math:: \\text{PCG64}(\\text{SeedSequence}(\\text{entropy}=seed,\\
          \\text{spawn\\_key}=\\text{words}(\\text{sha256}(name))))

(NumPy's ``SeedSequence``; O'Neill 2014 for PCG64). Two names give statistically
independent streams, the same ``(seed, name)`` gives the same stream on every machine and
Python (SHA-256 of the UTF-8 name, not Python's salted ``hash``), and no seed is ever
computed by arithmetic, so no two uses collide the way ``seed + 1`` of one use and
``seed`` of the next seed's other use do.

Two roots. A claim's ``seed`` draws its sample (sentences, windows, pairs, items, words,
subsamples, bootstrap weights); its ``train_seed`` draws what is trained or initialised on
that sample (K-means starts, flows, classifiers, fine-tuning). A library function that does
both takes ``seed`` and ``train_seed``, the second derived along the same names as the first
(:func:`sub_seed`) and ``None`` when the claim gives none, and draws each training stream
with :func:`train_stream_seed`. With ``train_seed`` ``None``, or equal to ``seed``, every
stream is the one ``seed`` alone gives, so a rerun with another ``train_seed`` redraws only
the trained parts of a fixed sample (as another CPU's float sums do).

APIs that take an integer (scikit-learn's ``random_state``, ``torch.manual_seed``, pandas'
``sample``, or a library function here that is a pure function of an integer seed and caches
on it) get :func:`stream_seed`: a 32-bit integer from the same ``SeedSequence``. A name may
be extended below a derived seed (``stream_seed(stream_seed(seed, "claim2/layer3"),
"bootstrap")``), so a library function can name its own sub-uses of the seed it is given.

References
----------
O'Neill, M. E. (2014). PCG: A family of simple fast space-efficient statistically good
algorithms for random number generation. HMC-CS-2014-0905.
"""

from __future__ import annotations

import hashlib
import re

import numpy as np

__all__ = ["stream", "stream_seed", "spawn_key", "repeat_name", "train_stream_seed", "sub_seed"]

_NAME = re.compile(r"[^/]+(/[^/]+)*")


def spawn_key(name: str) -> tuple[int, ...]:
    """The ``SeedSequence`` spawn key of a stream name: SHA-256 of its UTF-8 bytes as eight
    32-bit words.

    Parameters
    ----------
    name : str
        The use, as a ``'/'``-separated path of non-empty parts, e.g.
        ``"claim3/bootstrap/STS12"``.

    Returns
    -------
    tuple of int
        Eight integers in ``[0, 2**32)``: the digest's consecutive 4-byte words, read
        little-endian.

    Raises
    ------
    ValueError
        For a name that is empty or has an empty part.
    """
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ValueError(f"A stream name is a '/'-separated path of non-empty parts, "
                         f"e.g. 'claim3/bootstrap/STS12'; got {name!r}.")
    digest = hashlib.sha256(name.encode("utf-8")).digest()
    return tuple(int.from_bytes(digest[i:i + 4], "little") for i in range(0, 32, 4))


def _sequence(seed: int, name: str) -> np.random.SeedSequence:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0; got {seed!r}.")
    return np.random.SeedSequence(int(seed), spawn_key=spawn_key(name))


def stream(seed: int, name: str) -> np.random.Generator:
    """The generator of use ``name`` under ``seed``: ``Generator(PCG64(SeedSequence(seed,
    spawn_key=spawn_key(name))))``.

    Parameters
    ----------
    seed : int
        The root seed (a claim's ``seed`` setting), >= 0.
    name : str
        The use, as a path: ``"claim1/sentences"``, ``"claim3/bootstrap/STS12"``.

    Returns
    -------
    numpy.random.Generator
        A fresh generator on the PCG64 bit generator of that ``SeedSequence``.

    Raises
    ------
    ValueError
        For a ``seed`` that is not an integer >= 0 (a bool included) or a ``name`` that
        :func:`spawn_key` refuses.
    """
    return np.random.Generator(np.random.PCG64(_sequence(seed, name)))


def stream_seed(seed: int, name: str) -> int:
    """A 32-bit integer seed for use ``name`` under ``seed``, for APIs that take an integer:
    the first word of ``SeedSequence(seed, spawn_key=spawn_key(name)).generate_state(1)``.

    Parameters
    ----------
    seed : int
        The root seed, or a seed derived from it by this function; >= 0.
    name : str
        The use, as a ``'/'``-separated path (:func:`spawn_key`).

    Returns
    -------
    int
        A seed in ``[0, 2**32)``.

    Raises
    ------
    ValueError
        As :func:`stream` does.
    """
    return int(_sequence(seed, name).generate_state(1, dtype=np.uint32)[0])


def repeat_name(name: str, r: int) -> str:
    """The stream name of repeat ``r`` (0, 1, ...) of use ``name``: ``name`` itself for the
    first, ``name-r`` after it, so that one repeat draws what the single use drew.

    Parameters
    ----------
    name : str
        The stream name of the single use.
    r : int
        The repeat, >= 0.

    Returns
    -------
    str
        ``name`` for ``r == 0``, else ``f"{name}-{r}"``.

    Raises
    ------
    ValueError
        For an ``r`` that is not an integer >= 0.
    """
    if not isinstance(r, (int, np.integer)) or r < 0:
        raise ValueError(f"r must be an integer >= 0; got {r!r}.")
    return name if r == 0 else f"{name}-{r}"


def sub_seed(train_seed: int | None, name: str) -> int | None:
    """``train_seed`` derived along ``name`` as the sample seed is (:func:`stream_seed`), or
    ``None`` when there is none (the training streams then follow the sample seed).

    Parameters
    ----------
    train_seed : int or None
        The training root seed (a claim's ``train_seed`` setting), or None.
    name : str
        The path to derive it along, as for the sample seed.

    Returns
    -------
    int or None
        ``stream_seed(train_seed, name)``, or None when ``train_seed`` is None.
    """
    return None if train_seed is None else stream_seed(train_seed, name)


def train_stream_seed(seed: int, train_seed: int | None, name: str) -> int:
    """The integer seed of a training stream ``name``: :func:`stream_seed` under
    ``train_seed``, or under ``seed`` when ``train_seed`` is ``None``.

    Parameters
    ----------
    seed : int
        The sample seed; used when ``train_seed`` is None.
    train_seed : int or None
        The training seed (as :func:`sub_seed` derives it), or None.
    name : str
        The training use, as a ``'/'``-separated path.

    Returns
    -------
    int
        A seed in ``[0, 2**32)`` (:func:`stream_seed`).
    """
    return stream_seed(seed if train_seed is None else train_seed, name)
