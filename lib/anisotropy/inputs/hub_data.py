"""The Hugging Face hub copies of the datasets, read in the local readers' schema.

When no data root holds a dataset, :mod:`anisotropy.inputs.data` falls back to
:func:`from_hub`. It downloads the parquet files of the dataset's hub copy at the revision
that ``data/sources.yaml`` pins (the hub's ``refs/convert/parquet`` export, laid out
``<config>/<split>/<shard>.parquet`` for every dataset, script-based ones included) through
``huggingface_hub.snapshot_download``, which reads the local Hugging Face cache first and so
also works offline once a copy is cached. It maps the files onto the local reader's columns
and dtypes (:data:`HUB_ADAPTERS`, one per dataset) and records the commit it read
(:func:`anisotropy.inputs.datafiles.record_hub_read`). ``datasets`` is not used: version 4
and later refuse the script-based copies (PTB, WiC).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from anisotropy.inputs.datafiles import (
    DataError,
    DatasetSpec,
    fetch_dir,
    record_hub_read,
    sha256_of,
    sources,
)

__all__ = ["HUB_ADAPTERS", "HubAdapter", "SNLI_LABELS", "from_hub", "hub_source",
           "hub_parquet_files"]

#: SNLI's labels in the order of the hub copy's label ids (0, 1, 2).
SNLI_LABELS = ("entailment", "neutral", "contradiction")


def hub_source(name: str) -> dict:
    """A dataset's hub copy from ``data/sources.yaml``: ``{id, config, revision}``.

    Parameters
    ----------
    name : str
        A dataset of ``data/sources.yaml``.

    Returns
    -------
    dict
        Its ``hub`` entry: the repository ``id``, the ``config`` (the folder of the parquet
        export) and the pinned ``revision``.

    Raises
    ------
    DataError
        If the dataset is not declared or has no hub copy.
    """
    hub = sources().get(name, {}).get("hub")
    if not hub:
        raise DataError(f"Dataset {name!r} has no hub copy in data/sources.yaml.")
    return hub


def hub_parquet_files(name: str, hub_split: str) -> tuple[list[Path], str]:
    """Download (or find in the Hugging Face cache) one split's parquet files.

    Returns the files, in shard order, and the commit they come from (the snapshot's
    name in the cache). Raises :class:`DataError` naming the dataset, the hub id and
    revision, and the two ways to get the data without the hub.

    Parameters
    ----------
    name : str
        A dataset of ``data/sources.yaml`` with a hub copy.
    hub_split : str
        A split of the hub copy (e.g. ``"validation"``), not a local split name.

    Returns
    -------
    files : list of pathlib.Path
        The split's files ``<config>/<hub_split>/*.parquet`` in the local snapshot, sorted
        (shard order).
    commit : str
        The commit they come from (the snapshot's folder name).

    Raises
    ------
    DataError
        If the dataset has no hub copy; if the download fails (offline, unreachable,
        missing revision or file), naming the dataset, the hub id and revision, and the two
        ways to get the data without the hub; or if the snapshot has no such files.
    """
    hub = hub_source(name)
    pattern = f"{hub['config']}/{hub_split}/*.parquet"
    try:
        from huggingface_hub import snapshot_download

        folder = Path(snapshot_download(hub["id"], repo_type="dataset",
                                        revision=str(hub["revision"]),
                                        allow_patterns=[pattern]))
    except Exception as error:  # offline, unreachable, missing revision or file
        raise DataError(
            f"Dataset {name!r} is in no data root, and its Hugging Face hub copy "
            f"{hub['id']!r} (revision {hub['revision']!r}, files {pattern}) could not be "
            f"read: {type(error).__name__}: {error}. Without the hub, run `anisotropy data "
            f"fetch {name}` (downloads the original files into {fetch_dir()}), or set "
            "ANISOTROPY_DATA to a copy of the datasets."
        ) from error
    files = sorted(folder.glob(pattern))
    if not files:
        raise DataError(f"The hub copy {hub['id']!r} of {name!r} at {folder.name} has no "
                        f"files {pattern}. Run `anisotropy data fetch {name}` instead.")
    return files, folder.name


def from_hub(spec: DatasetSpec, split: str) -> pd.DataFrame:
    """Load ``split`` of a dataset from its Hugging Face hub copy, in the local schema.

    The hub copies name, type and split their columns differently from the local files;
    :data:`HUB_ADAPTERS` maps each dataset's hub splits and columns onto the local reader's
    (same column names, in the same order, same dtypes). Columns the hub copy lacks are
    filled with a constant (documented per dataset) and rows without a gold label dropped.

    Parameters
    ----------
    spec : DatasetSpec
        The dataset (its ``name`` selects the adapter and the hub copy).
    split : str
        A local split name; it is read from the hub splits the adapter maps it to,
        concatenated in order.

    Returns
    -------
    pandas.DataFrame
        The local reader's columns, with a fresh ``RangeIndex``. The read (hub id, commit
        and each file's sha256) is recorded with
        :func:`~anisotropy.inputs.datafiles.record_hub_read`.

    Raises
    ------
    DataError
        If the hub copy has no split matching ``split`` (the message lists what it offers),
        or if its files cannot be read (:func:`hub_parquet_files`).
    KeyError
        For a dataset without an adapter in :data:`HUB_ADAPTERS` (``word-similarity``).
    """
    adapter = HUB_ADAPTERS[spec.name]
    hub = hub_source(spec.name)
    if split not in adapter.splits:
        raise DataError(
            f"Dataset {spec.name!r} is in no data root, and its hub copy {hub['id']!r} has no "
            f"split matching the local {split!r} (it offers {sorted(adapter.splits)}; "
            f"{adapter.note or 'see HUB_ADAPTERS'}). Run `anisotropy data fetch {spec.name}` "
            "or set ANISOTROPY_DATA to a local copy of the datasets."
        )
    frames, commits, digests = [], [], {}
    for hub_split in adapter.splits[split]:
        files, commit = hub_parquet_files(spec.name, hub_split)
        frames += [pd.read_parquet(path) for path in files]
        commits.append(commit)
        digests.update({f"{hub['config']}/{hub_split}/{path.name}": sha256_of(path)
                        for path in files})
    record_hub_read(spec.name, split, hub["id"], "+".join(sorted(set(commits))), digests)
    frame = adapter.convert(pd.concat(frames, ignore_index=True), spec.name)
    return frame.reset_index(drop=True)


# --------------------------------------------------------------------------- hub schemas


@dataclass(frozen=True)
class HubAdapter:
    """How a dataset's hub copy maps onto its local reader's schema.

    Attributes
    ----------
    splits : dict of str to tuple of str
        Each local split the hub can provide, mapped to the hub splits that make it up
        (concatenated in order).
    convert : callable
        ``convert(frame, name)`` turns the hub's pandas frame into the local columns and
        dtypes.
    note : str
        What the hub copy cannot give (shown when a split is missing); default empty.
    """

    splits: dict[str, tuple[str, ...]]
    convert: Callable[[pd.DataFrame, str], pd.DataFrame]
    note: str = ""


_TEXT = pd.Series(["text"]).dtype  # how this pandas stores strings: object, or str (3.0+)


def _text(values, index=None) -> pd.Series:
    """A text column in the dtype the local readers get (missing values stay missing)."""
    return pd.Series(values, index=index, dtype=object).astype(_TEXT)


def _hub_sts(frame: pd.DataFrame, name: str) -> pd.DataFrame:
    """mteb STS copies: ``sentence1, sentence2, score`` (STS-B also ``genre, dataset``).

    The per-file subsets of STS12-16 are not in the hub copies: ``subset`` is the dataset
    name there (so ``spearman_mean`` equals ``spearman_all``); STS-B's is ``genre/dataset``
    as in the local files. Unscored pairs are dropped, as locally.
    """
    frame = frame.dropna(subset=["score"])
    if {"genre", "dataset"} <= set(frame.columns):
        subset = frame["genre"].astype(str) + "/" + frame["dataset"].astype(str)
    else:
        subset = pd.Series(name, index=frame.index)
    return pd.DataFrame({"sentence1": _text(frame["sentence1"]),
                         "sentence2": _text(frame["sentence2"]),
                         "score": frame["score"].astype(float), "subset": _text(subset)})


def _hub_sick(frame: pd.DataFrame, name: str) -> pd.DataFrame:
    """mteb/sickr-sts: relatedness only; ``label`` (the entailment judgment) is None."""
    out = _hub_sts(frame, name)
    out.insert(3, "label", _text([None] * len(out), out.index))
    out["subset"] = _text(["sick"] * len(out), out.index)
    return out


def _hub_rt_polarity(frame: pd.DataFrame, name: str) -> pd.DataFrame:
    """rotten_tomatoes: ``text, label`` over train+validation+test; positives first."""
    frame = frame.sort_values("label", ascending=False, kind="stable")
    return pd.DataFrame({"sentence": _text(frame["text"].astype(str).str.strip()),
                         "label": frame["label"].astype(int)})


def _hub_snli(frame: pd.DataFrame, name: str) -> pd.DataFrame:
    """stanfordnlp/snli: ``premise, hypothesis, label`` (0/1/2 in the order of
    :data:`SNLI_LABELS`, -1 without a gold label: dropped)."""
    frame = frame[frame["label"] >= 0]
    label_id = frame["label"].astype(int)
    return pd.DataFrame({"sentence1": _text(frame["premise"]),
                         "sentence2": _text(frame["hypothesis"]),
                         "label": _text(label_id.map(dict(enumerate(SNLI_LABELS)))),
                         "label_id": label_id})


def _hub_lines(column: str) -> Callable[[pd.DataFrame, str], pd.DataFrame]:
    """Language-modelling corpora: one stripped, non-blank line per row in ``text``."""

    def convert(frame: pd.DataFrame, name: str) -> pd.DataFrame:
        lines = frame[column].astype(str).str.strip()
        return pd.DataFrame({"text": _text(lines[lines != ""].tolist())})

    return convert


def _hub_sst2(frame: pd.DataFrame, name: str) -> pd.DataFrame:
    """GLUE sst2: ``sentence, label, idx``."""
    return pd.DataFrame({"sentence": _text(frame["sentence"].astype(str).str.strip()),
                         "label": frame["label"].astype(int)})


def _hub_cola(frame: pd.DataFrame, name: str) -> pd.DataFrame:
    """GLUE cola: ``sentence, label, idx``; the source code of each sentence (``source``)
    is not in the hub copy and is None."""
    return pd.DataFrame({"sentence": _text(frame["sentence"]),
                         "label": frame["label"].astype(int),
                         "source": _text([None] * len(frame), frame.index)})


def _hub_rte(frame: pd.DataFrame, name: str) -> pd.DataFrame:
    """GLUE rte: ``sentence1, sentence2, label`` with 0 = entailment, 1 = not_entailment."""
    entailment = frame["label"].astype(int) == 0
    return pd.DataFrame({
        "sentence1": _text(frame["sentence1"]), "sentence2": _text(frame["sentence2"]),
        "label": _text(entailment.map({True: "entailment", False: "not_entailment"})),
        "label_id": entailment.astype(int)})


def _hub_wic(frame: pd.DataFrame, name: str) -> pd.DataFrame:
    """super_glue wic: ``word, sentence1, sentence2, start1, start2, ..., label``.

    ``pos`` is not in the hub copy (None). ``indices`` is rebuilt as locally
    (``"i1-i2"``, word positions of the target) by counting whitespace-separated words
    before the target's character offset; the hub's sentences are untokenized, so an index
    can differ from the tokenized local file's where punctuation precedes the target.
    """
    def word_index(sentences: pd.Series, starts: pd.Series) -> list[int]:
        return [len(str(s)[: int(i)].split()) for s, i in zip(sentences, starts, strict=True)]

    indices = [f"{a}-{b}" for a, b in zip(word_index(frame["sentence1"], frame["start1"]),
                                          word_index(frame["sentence2"], frame["start2"]),
                                          strict=True)]
    return pd.DataFrame({"word": _text(frame["word"]),
                         "pos": _text([None] * len(frame), frame.index),
                         "indices": _text(indices, frame.index),
                         "sentence1": _text(frame["sentence1"]),
                         "sentence2": _text(frame["sentence2"]),
                         "label": frame["label"].astype(int)})


_GLUE_SPLITS = {"train": ("train",), "dev": ("validation",)}
_GLUE_NOTE = "the GLUE test labels are hidden"

#: Per dataset: the local splits its hub copy can give, and its column mapping.
HUB_ADAPTERS: dict[str, HubAdapter] = {
    "stsbenchmark": HubAdapter({"train": ("train",), "dev": ("validation",),
                                "test": ("test",)}, _hub_sts),
    **{f"sts{year}": HubAdapter({"test": ("test",)}, _hub_sts) for year in range(12, 17)},
    "sick": HubAdapter({"test": ("test",)}, _hub_sick,
                       "mteb/sickr-sts holds only the SemEval-2014 test pairs"),
    "rt-polarity": HubAdapter({"all": ("train", "validation", "test")}, _hub_rt_polarity),
    "snli": HubAdapter({"dev": ("validation",), "test": ("test",)}, _hub_snli),
    "wikitext-2": HubAdapter({"valid": ("validation",), "test": ("test",)}, _hub_lines("text")),
    "ptb": HubAdapter({"valid": ("validation",), "test": ("test",)}, _hub_lines("sentence")),
    "sst2": HubAdapter(_GLUE_SPLITS, _hub_sst2, _GLUE_NOTE),
    "cola": HubAdapter(_GLUE_SPLITS, _hub_cola,
                       "GLUE's validation split mixes in- and out-of-domain sentences"),
    "rte": HubAdapter(_GLUE_SPLITS, _hub_rte, _GLUE_NOTE),
    "wic": HubAdapter({"train": ("train",), "dev": ("validation",)}, _hub_wic,
                      "the SuperGLUE test labels are hidden"),
}
