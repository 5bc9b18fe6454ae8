"""The corpora several claims share, each with the name its forward passes are cached under.

A claim that builds one of these corpora with the same parameters gets the same sentences
and the same name, so it reads the vectors another claim's extraction cached:

- :func:`sentences`: the sentences claim 1 samples, read again by chapter 6;
- :func:`windows`: the context windows of claim 2, read again by claim 3;
- :func:`sts_sentences`: the STS sentences claims 3 and 4 score, read again by chapter 6.

Each draws from the ``data`` stream of the claim's seed
(:func:`anisotropy.geometry.streams.stream_seed`), the stream every claim samples its data
from.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from anisotropy.geometry.streams import stream_seed
from anisotropy.inputs import tasks

__all__ = ["SENTENCE_SOURCE", "STS_TASKS", "sentences", "sts_sentences", "windows"]

#: The STS tasks claims 3 and 4 score (``data/tasks.yaml``), in the book's order.
STS_TASKS = ("STS12", "STS13", "STS14", "STS15", "STS16", "STS-B", "SICK-R", "STS-B-dev")
#: Claim 1's sentence corpus by default (the seed's SNLI), the one chapter 6 reads.
SENTENCE_SOURCE = "snli"


def sentences(source: str, n_sentences: int, seed: int) -> list[str]:
    """``n_sentences`` sampled from the de-duplicated corpus ``source``.

    Parameters
    ----------
    source : str
        A sentence corpus of :func:`anisotropy.inputs.tasks.corpus` (``snli`` or
        ``stsbenchmark``).
    n_sentences : int
        Sentences to sample.
    seed : int
        The claim's seed; the sample is drawn from its ``data`` stream.

    Returns
    -------
    list of str
        The sentences, in corpus order (:func:`anisotropy.inputs.tasks.corpus` sorts its
        sample).
    """
    return tasks.corpus(source, n_sentences, stream_seed(seed, "data"))


def windows(n_windows: int, window_words: int, seed: int) -> tuple[str, Callable[[], list[str]]]:
    """The cache name and the builder of ``n_windows`` language-modelling windows of
    ``window_words`` words (WikiText-2 and PTB, :func:`anisotropy.inputs.tasks.windows`).

    Parameters
    ----------
    n_windows : int
        Windows to sample.
    window_words : int
        Words per window.
    seed : int
        The claim's seed; the sample is drawn from its ``data`` stream.

    Returns
    -------
    name : str
        The name the windows' forward passes are cached under.
    build : callable
        Returns the windows when called (the sampling runs only on a cache miss).
    """
    return (f"lm-windows-{n_windows}x{window_words}",
            lambda: tasks.windows("lm", window_words, n_windows, stream_seed(seed, "data")))


def sts_sentences(task_names: Sequence[str], max_pairs: int | None,
                  seed: int) -> tuple[str, Callable[[], list[str]]]:
    """The cache name and the builder of the sentences of the STS tasks ``task_names``, at
    most ``max_pairs`` pairs each (:func:`anisotropy.inputs.tasks.sts_sentences`).

    Parameters
    ----------
    task_names : sequence of str
        STS tasks of ``data/tasks.yaml``.
    max_pairs : int or None
        Pairs sampled per task; None keeps every pair.
    seed : int
        The claim's seed; the pairs are drawn from its ``data`` stream.

    Returns
    -------
    name : str
        The name the sentences' forward passes are cached under.
    build : callable
        Returns the sentences when called.
    """
    return (f"sts-{len(task_names)}tasks-{max_pairs or 'all'}",
            lambda: tasks.sts_sentences(list(task_names), max_pairs, stream_seed(seed, "data")))
