"""The task and corpus registry: every text a claim reads, declared once in ``data/tasks.yaml``.

In the manner of mteb's task metadata, each corpus and task is data: the datasets and splits
it draws on, the columns it yields and its unit (sentence, line or pair). The readers of
:mod:`anisotropy.inputs.data` return one schema whether a dataset comes from the data root
or from the Hugging Face hub, so everything here does too. Claims get their sentences only
through this module:

- :func:`corpus`: the texts of a corpus, optionally a seeded sample;
- :func:`windows`: a corpus's lines cut into fixed word windows (claims 2 and 3);
- :func:`sts_task` / :func:`sts_sentences`: the pairs of an STS task and the distinct
  sentences of several (claims 3 and 4);
- :func:`classification_task`: the sentences, targets and pairs of a labelled task
  (claims 4 and 5).

:func:`names` reads only the YAML file; the runner checks task parameters against it before a
kernel starts.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from anisotropy.geometry.sampling import sample_indices
from anisotropy.geometry.streams import stream_seed
from anisotropy.inputs import data
from anisotropy.inputs.data import PROJECT_ROOT

__all__ = ["TASKS_FILE", "TaskError", "names", "corpus", "windows", "sts_task",
           "sts_aggregation", "sts_scope", "sts_sentences", "classification_task"]

TASKS_FILE = PROJECT_ROOT / "data" / "tasks.yaml"
_KINDS = ("corpora", "sts", "classification", "word_similarity")
_UNITS = {"corpora": {"sentence", "line"}, "classification": {"sentence", "pair"}}


class TaskError(ValueError):
    """An unknown corpus or task, or a bad declaration in ``data/tasks.yaml``."""


@dataclass(frozen=True)
class Source:
    """Where a corpus's or task's texts come from: one source of ``data/tasks.yaml``.

    Attributes
    ----------
    dataset : str
        A dataset of :mod:`anisotropy.inputs.data`.
    split : str
        One of its splits.
    columns : tuple of str
        The text columns taken from it, in order (all of the first column's texts, then the
        next's).
    """

    dataset: str
    split: str
    columns: tuple[str, ...]


@lru_cache(maxsize=4)
def _declared(path: Path) -> dict[str, dict]:
    with open(path, encoding="utf-8") as handle:
        declared = yaml.safe_load(handle) or {}
    unknown = set(declared) - set(_KINDS)
    if unknown:
        raise TaskError(f"{path.name}: unknown sections {sorted(unknown)}; use {_KINDS}.")
    for kind in _KINDS:
        for name, body in (declared.get(kind) or {}).items():
            unit = body.get("unit")
            if kind in _UNITS and unit not in _UNITS[kind]:
                raise TaskError(f"{path.name}: {kind} {name!r} has unit {unit!r}; use one of "
                                f"{sorted(_UNITS[kind])}.")
            if kind != "corpora" and not {"dataset", "split"} <= set(body):
                raise TaskError(f"{path.name}: {kind} {name!r} needs a dataset and a split.")
            if kind == "sts" and body.get("aggregation") not in ("wmean", "all"):
                raise TaskError(f"{path.name}: STS task {name!r} needs aggregation wmean or "
                                f"all; got {body.get('aggregation')!r}.")
    for name, body in (declared.get("corpora") or {}).items():
        for included in body.get("include", []):
            if included not in declared["corpora"] or included == name:
                raise TaskError(f"{path.name}: corpus {name!r} includes {included!r}, which "
                                "is not another declared corpus.")
    return declared


def _section(kind: str) -> dict[str, dict]:
    return _declared(TASKS_FILE).get(kind) or {}


def names(kind: str) -> list[str]:
    """The declared names of one kind: ``"corpora"``, ``"sts"``, ``"classification"`` or
    ``"word_similarity"``.

    Parameters
    ----------
    kind : str
        The section of ``data/tasks.yaml``: ``"corpora"``, ``"sts"``, ``"classification"``
        or ``"word_similarity"``.

    Returns
    -------
    list of str
        The names declared in that section, in file order (empty when it has none).

    Raises
    ------
    TaskError
        For an unknown kind, or a bad declaration in ``data/tasks.yaml``.
    """
    if kind not in _KINDS:
        raise TaskError(f"Unknown kind {kind!r}; choose one of {_KINDS}.")
    return list(_section(kind))


def _lookup(kind: str, name: str) -> dict:
    section = _section(kind)
    if name not in section:
        label = {"corpora": "corpus", "sts": "STS task",
                 "classification": "classification task",
                 "word_similarity": "word-similarity task"}[kind]
        raise TaskError(f"Unknown {label} {name!r}; choose one of {list(section)} (declared "
                        f"in {TASKS_FILE.relative_to(PROJECT_ROOT)}).")
    return section[name]


def _sources(body: dict) -> list[Source]:
    return [Source(s["dataset"], s["split"], tuple(s["columns"])) for s in body["sources"]]


def _texts(source: Source) -> list[str]:
    frame = data.load(source.dataset, source.split)
    missing = [c for c in source.columns if c not in frame.columns]
    if missing:
        raise TaskError(f"{source.dataset}/{source.split} has no columns {missing}; it has "
                        f"{list(frame.columns)}.")
    return [text for column in source.columns for text in frame[column].tolist()]


def _sample(items: list, n: int | None, seed: int) -> list:
    if n is None or n >= len(items):
        return items
    return [items[i] for i in sample_indices(len(items), n, seed, sort=True)]


def _all_texts(name: str) -> list[str]:
    body = _lookup("corpora", name)
    if body.get("distinct"):
        texts = sorted({t.strip() for s in _sources(body) for t in _texts(s)
                        if isinstance(t, str) and t.strip()})
    else:
        texts = [t for s in _sources(body) for t in _texts(s)]
    for included in body.get("include", []):
        texts += _all_texts(included)
    return texts


def corpus(name: str, n: int | None = None, seed: int = 0) -> list[str]:
    """The texts of corpus ``name``: all of them, or a sample of ``n`` in corpus order (the
    stream ``corpus/NAME`` under ``seed``).

    A ``distinct`` corpus is the sorted set of its stripped, non-empty texts, so a sentence
    that occurs in several places is one item.

    Parameters
    ----------
    name : str
        A corpus declared in ``data/tasks.yaml``.
    n : int or None, optional
        The sample size, >= 1; None (default), or at least the corpus's size, keeps every
        text.
    seed : int, optional
        The root seed of the sample's stream (default 0).

    Returns
    -------
    list of str
        The texts of the corpus's sources (for each source, each of its columns in turn), then
        those of the corpora it ``include``s; or the sample of them, in that order.

    Raises
    ------
    TaskError
        For an unknown corpus, ``n`` < 1, a source without a declared column, or a bad
        declaration in ``data/tasks.yaml``.
    DataError
        If a dataset cannot be read (:func:`anisotropy.inputs.data.load`).
    """
    if n is not None and n < 1:
        raise TaskError(f"n must be >= 1 or None; got {n}.")
    return _sample(_all_texts(name), n, stream_seed(seed, f"corpus/{name}"))


def windows(name: str, window_words: int, n: int | None = None, seed: int = 0) -> list[str]:
    """Each source of corpus ``name`` concatenated and cut into windows of ``window_words``
    whitespace tokens (short tails dropped); all windows or a seeded sample of ``n``.

    These are the fixed-length contexts of Cai et al. (2021), whose windows are 512 model
    tokens; a word window is used so that every model sees the same text.

    Parameters
    ----------
    name : str
        A corpus declared in ``data/tasks.yaml`` that includes no other corpus.
    window_words : int
        Words per window; >= 1.
    n : int or None, optional
        The sample size, >= 1; None (default), or at least the number of windows, keeps every
        window.
    seed : int, optional
        The root seed of the sample's stream ``windows/NAME`` (default 0).

    Returns
    -------
    list of str
        The windows of every source in turn (each exactly ``window_words`` words joined by
        single spaces), or the sample of them in that order.

    Raises
    ------
    TaskError
        For an unknown corpus, a corpus with ``include``, ``n`` < 1, or a source without a
        declared column.
    ValueError
        If ``window_words`` < 1 (:func:`anisotropy.inputs.data.word_windows`).
    """
    body = _lookup("corpora", name)
    if body.get("include"):
        raise TaskError(f"Corpus {name!r} includes other corpora; windows are cut per source.")
    if n is not None and n < 1:
        raise TaskError(f"n must be >= 1 or None; got {n}.")
    cut = []
    for source in _sources(body):
        cut += data.word_windows(_texts(source), window_words)
    cut = [w for w in cut if len(w.split()) == window_words]
    return _sample(cut, n, stream_seed(seed, f"windows/{name}"))


def sts_task(name: str, max_pairs: int | None = None, seed: int = 0) -> pd.DataFrame:
    """The pairs of STS task ``name`` (``sentence1, sentence2, score, subset``).

    ``max_pairs`` keeps a random subset in file order (the stream ``sts-pairs/NAME`` under
    ``seed``, so each task's subset is drawn independently); None keeps every pair.

    Parameters
    ----------
    name : str
        An STS task declared in ``data/tasks.yaml``.
    max_pairs : int or None, optional
        The most pairs to keep (default None: every pair).
    seed : int, optional
        The root seed of the subset's stream (default 0).

    Returns
    -------
    pandas.DataFrame
        The task's dataset split as :func:`anisotropy.inputs.data.load` returns it, or the
        rows of the subset (their original index kept).

    Raises
    ------
    TaskError
        For an unknown STS task.
    """
    body = _lookup("sts", name)
    frame = data.load(body["dataset"], body["split"])
    if max_pairs is not None and len(frame) > max_pairs:
        rows = sample_indices(len(frame), max_pairs, stream_seed(seed, f"sts-pairs/{name}"),
                              sort=True)
        frame = frame.iloc[rows]
    return frame


def word_task(name: str) -> pd.DataFrame:
    """The pairs of word-similarity task ``name``: ``word1, word2, score``.

    Parameters
    ----------
    name : str
        A word-similarity task declared in ``data/tasks.yaml``.

    Returns
    -------
    pandas.DataFrame
        Its dataset split, as :func:`anisotropy.inputs.data.word_similarity` returns it.

    Raises
    ------
    TaskError
        For an unknown word-similarity task.
    """
    body = _lookup("word_similarity", name)
    return data.load(body["dataset"], body["split"])


def word_task_words(names_: list[str]) -> list[str]:
    """Every distinct word of the tasks' pairs, sorted: the inputs encoded one at a time.

    Parameters
    ----------
    names_ : list of str
        Word-similarity tasks declared in ``data/tasks.yaml``.

    Returns
    -------
    list of str
        The distinct ``word1`` and ``word2`` values of all their pairs, sorted.
    """
    words = set()
    for name in names_:
        frame = word_task(name)
        words |= set(frame["word1"]) | set(frame["word2"])
    return sorted(words)


def sts_scope(names_: list[str], max_pairs: int | None = None) -> str:
    """One sentence-part saying which pairs of the STS tasks a run scores, for the pages.

    "every pair of each task" when nothing is cut; otherwise the cap, the pairs kept and the
    pairs the tasks hold (the papers score every pair).

    Parameters
    ----------
    names_ : list of str
        STS tasks declared in ``data/tasks.yaml``.
    max_pairs : int or None, optional
        The cap on pairs per task, as given to :func:`sts_task` (default None: no cap).

    Returns
    -------
    str
        The sentence-part, without a capital or a final period.
    """
    held = {name: len(sts_task(name)) for name in names_}
    kept = {name: n if max_pairs is None else min(n, max_pairs) for name, n in held.items()}
    if kept == held:
        return "every pair of each task"
    cut = [name for name in names_ if kept[name] < held[name]]
    return (f"a seeded subset of at most {max_pairs:,} pairs per task (cut: {', '.join(cut)}), "
            f"{sum(kept.values()):,} of the tasks' {sum(held.values()):,} pairs; the papers "
            f"score every pair, as the `paper` profile does")


def sts_aggregation(name: str) -> str:
    """How STS task ``name`` reports its correlation: ``"wmean"`` (subsets weighted by their
    pair counts) or ``"all"`` (every pair pooled); see :mod:`anisotropy.claims.sts`.

    Parameters
    ----------
    name : str
        An STS task declared in ``data/tasks.yaml``.

    Returns
    -------
    str
        ``"wmean"`` or ``"all"``, as declared.

    Raises
    ------
    TaskError
        For an unknown STS task.
    """
    return _lookup("sts", name)["aggregation"]


def sts_sentences(names_: list[str], max_pairs: int | None = None, seed: int = 0) -> list[str]:
    """The distinct sentences of the given STS tasks, sorted: one list, so every claim that
    encodes them shares one cache entry.

    Parameters
    ----------
    names_ : list of str
        STS tasks declared in ``data/tasks.yaml``.
    max_pairs : int or None, optional
        The most pairs kept per task, as for :func:`sts_task` (default None: every pair);
        the sentences are those of the pairs kept.
    seed : int, optional
        The root seed of each task's subset, as for :func:`sts_task` (default 0).

    Returns
    -------
    list of str
        The distinct ``sentence1`` and ``sentence2`` values, sorted.
    """
    sentences: set[str] = set()
    for name in names_:
        frame = sts_task(name, max_pairs, seed)
        sentences.update(frame["sentence1"])
        sentences.update(frame["sentence2"])
    return sorted(sentences)


def classification_task(name: str, max_items: int | None = None, seed: int = 0) -> dict:
    """Sentences, targets and (for pair tasks) pair indices of a labelled task.

    ``max_items`` keeps a random subset of the items (sentences or pairs), from the stream
    ``corpus/NAME`` under ``seed``. For pair
    tasks every distinct sentence appears once in ``sentences``; a task declared
    ``distinct`` keeps each distinct item once (its first occurrence) before sampling.

    Parameters
    ----------
    name : str
        A classification task declared in ``data/tasks.yaml``.
    max_items : int or None, optional
        The most items to keep (default None: every item); the subset stays in file order.
    seed : int, optional
        The root seed of the subset's stream (default 0).

    Returns
    -------
    dict
        ``sentences`` (list of str): the items' sentences for a sentence task, or every
        distinct sentence of the pairs in order of first occurrence for a pair task;
        ``targets`` (int array, per item): ``label`` of a sentence task, ``label_id`` of a
        pair task; ``pairs`` (int array (n_pairs, 2) of indices into ``sentences``, or None
        for a sentence task); ``n_items`` (int).

    Raises
    ------
    TaskError
        For an unknown classification task.
    """
    body = _lookup("classification", name)
    frame = data.load(body["dataset"], body["split"])
    if body.get("distinct"):
        frame = frame.drop_duplicates("sentence" if body["unit"] == "sentence"
                                      else ["sentence1", "sentence2"])
    if max_items is not None and len(frame) > max_items:
        frame = frame.iloc[sample_indices(len(frame), max_items,
                                          stream_seed(seed, f"corpus/{name}"), sort=True)]
    if body["unit"] == "sentence":
        return {"sentences": frame["sentence"].tolist(),
                "targets": frame["label"].to_numpy().astype(int), "pairs": None,
                "n_items": len(frame)}
    sentences = pd.unique(pd.concat([frame["sentence1"], frame["sentence2"]])).tolist()
    position = {sentence: i for i, sentence in enumerate(sentences)}
    pairs = np.array([[position[a], position[b]]
                      for a, b in zip(frame["sentence1"], frame["sentence2"], strict=True)])
    return {"sentences": sentences, "targets": frame["label_id"].to_numpy().astype(int),
            "pairs": pairs, "n_items": len(frame)}
