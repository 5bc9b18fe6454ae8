"""Datasets: the data root, sha256 verification, and one loader per dataset.

Every loader reads files from the *data root*, the first that exists of

1. ``$ANISOTROPY_DATA``,
2. ``data/raw/`` inside the project,
3. ``../shared/data/`` beside the project.

Before a file is read for the first time in a process, its sha256 is checked against
``data/sha256.json`` (copied from the data manifest); nothing is read from an unverified
file. When the data root lacks a dataset, the loader falls back to the Hugging Face hub
through :mod:`datasets`, returning the local reader's columns and dtypes (the mapping of each
dataset is in :data:`HUB_ADAPTERS`); offline, that fails with a message naming the missing
path and the hub id.

Loaders return tidy :class:`pandas.DataFrame` objects. Reading conventions (encodings, CRLF,
headers, unscored pairs) follow ``../shared/data/README.md``.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

PROJECT_ROOT = Path(__file__).resolve().parents[3]
EXPECTED_SHA256_FILE = PROJECT_ROOT / "data" / "sha256.json"

__all__ = [
    "DataError",
    "DATASETS",
    "HUB_ADAPTERS",
    "data_root",
    "verify_file",
    "verify_all",
    "verified_files",
    "load",
    "stsbenchmark",
    "sts",
    "sick",
    "rt_polarity",
    "snli",
    "wikitext2",
    "ptb",
    "sst2",
    "cola",
    "rte",
    "wic",
    "word_windows",
]


class DataError(RuntimeError):
    """A data file is missing, corrupt, unknown, or a dataset name or split is invalid."""


# --------------------------------------------------------------------------- data root


def data_root() -> Path:
    """Return the data root: ``$ANISOTROPY_DATA``, else ``data/raw``, else ``../shared/data``.

    Raises
    ------
    DataError
        If ``$ANISOTROPY_DATA`` is set but does not exist, or none of the candidates exists.
    """
    env = os.environ.get("ANISOTROPY_DATA")
    if env:
        root = Path(env).expanduser()
        if not root.is_dir():
            raise DataError(
                f"ANISOTROPY_DATA={env!r} is not a directory. Point it at a copy of the "
                "dataset folder (the layout of ../shared/data) or unset it."
            )
        return root
    for candidate in (PROJECT_ROOT / "data" / "raw", PROJECT_ROOT.parent / "shared" / "data"):
        if candidate.is_dir():
            return candidate
    raise DataError(
        "No data root found: set ANISOTROPY_DATA to a copy of the datasets, or place them in "
        f"{PROJECT_ROOT / 'data' / 'raw'} or {PROJECT_ROOT.parent / 'shared' / 'data'}."
    )


# --------------------------------------------------------------------------- verification

_VERIFIED: dict[str, str] = {}  # relative path -> sha256, for files checked in this process


def _expected() -> dict[str, dict]:
    with open(EXPECTED_SHA256_FILE, encoding="utf-8") as handle:
        return json.load(handle)["files"]


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify_file(relpath: str, root: Path | None = None) -> Path:
    """Check one data file's sha256 against the project's expected value and return its path.

    The result is remembered for the process, so each file is hashed once.

    Raises
    ------
    DataError
        If the path is not a known data file, is missing, or its hash differs (the message
        names the file, the expected and the actual hash).
    """
    root = data_root() if root is None else root
    path = root / relpath
    key = str(path)
    if key in _VERIFIED:
        return path
    expected = _expected()
    if relpath not in expected:
        raise DataError(f"{relpath!r} is not a known data file (see {EXPECTED_SHA256_FILE}).")
    if not path.is_file():
        raise DataError(f"Missing data file {path}. Restore it from its source in MANIFEST.json.")
    actual = _sha256(path)
    want = expected[relpath]["sha256"]
    if actual != want:
        raise DataError(
            f"sha256 mismatch for {path}: expected {want}, got {actual}. The file was modified "
            "or truncated; restore the original."
        )
    _VERIFIED[key] = actual
    return path


def verified_files() -> dict[str, str]:
    """Return ``{relative path: sha256}`` of the data files verified in this process."""
    root = str(data_root())
    return {
        os.path.relpath(path, root): digest for path, digest in sorted(_VERIFIED.items())
    }


def verify_all(root: Path | None = None) -> int:
    """Verify every expected data file; return the count. Raises on the first problem."""
    names = sorted(_expected())
    for relpath in names:
        verify_file(relpath, root)
    return len(names)


def _read_text(relpath: str, encoding: str = "utf-8") -> str:
    """Read a verified file as text with universal newlines (CRLF becomes LF)."""
    path = verify_file(relpath)
    raw = path.read_bytes()
    if relpath.endswith(".gz"):
        raw = gzip.decompress(raw)
    return io.TextIOWrapper(io.BytesIO(raw), encoding=encoding, newline=None).read()


def _lines(relpath: str, encoding: str = "utf-8") -> list[str]:
    text = _read_text(relpath, encoding)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


# --------------------------------------------------------------------------- specs


@dataclass(frozen=True)
class DatasetSpec:
    """What a dataset is called, where its local files live, and its hub identity."""

    name: str
    folder: str
    splits: tuple[str, ...]
    hub_id: str
    hub_config: str | None
    loader: Callable[..., pd.DataFrame]


def _check_split(name: str, split: str, splits: tuple[str, ...]) -> None:
    if split not in splits:
        raise DataError(f"Unknown split {split!r} for dataset {name!r}; choose one of {splits}.")


def _local_or_hub(spec: DatasetSpec, split: str, reader: Callable[[], pd.DataFrame]):
    """Read locally when the dataset's folder is in the data root, else try the hub."""
    try:
        root = data_root()
    except DataError:
        root = None
    if root is not None and (root / spec.folder).is_dir():
        return reader()
    missing = (root / spec.folder) if root is not None else Path(spec.folder)
    return _from_hub(spec, split, missing)


def _from_hub(spec: DatasetSpec, split: str, missing: Path) -> pd.DataFrame:
    """Load ``split`` of a dataset from its Hugging Face hub copy, in the local schema.

    The hub copies name, type and split their columns differently from the local files;
    :data:`HUB_ADAPTERS` maps each dataset's hub splits and columns onto the local reader's
    (same column names, in the same order, same dtypes). Columns the hub copy lacks are
    filled with a constant (documented per dataset) and rows without a gold label dropped.
    """
    hint = (
        f"Dataset {spec.name!r} is not in the data root ({missing} is missing) and the "
        f"Hugging Face hub copy {spec.hub_id!r}"
        + (f" (config {spec.hub_config!r})" if spec.hub_config else "")
    )
    if os.environ.get("HF_DATASETS_OFFLINE") == "1" or os.environ.get("HF_HUB_OFFLINE") == "1":
        raise DataError(hint + " cannot be fetched offline. Set ANISOTROPY_DATA to a local copy.")
    adapter = HUB_ADAPTERS[spec.name]
    if split not in adapter.splits:
        raise DataError(
            hint + f" has no split matching the local {split!r} (it offers "
            f"{sorted(adapter.splits)}; {adapter.note or 'see HUB_ADAPTERS'}). Set "
            "ANISOTROPY_DATA to a local copy of the datasets."
        )
    try:
        import datasets

        frames = [datasets.load_dataset(spec.hub_id, spec.hub_config, split=hub_split)
                  .to_pandas() for hub_split in adapter.splits[split]]
    except Exception as error:  # network, auth, missing split
        raise DataError(
            hint + f" could not be loaded ({type(error).__name__}: {error}). Without internet, "
            "set ANISOTROPY_DATA to a local copy of the datasets."
        ) from error
    frame = adapter.convert(pd.concat(frames, ignore_index=True), spec.name)
    return frame.reset_index(drop=True)


# --------------------------------------------------------------------------- hub schemas


@dataclass(frozen=True)
class HubAdapter:
    """How a dataset's hub copy maps onto its local reader's schema.

    ``splits`` maps each local split the hub can provide to the hub splits that make it up
    (concatenated in order); ``convert(frame, name)`` turns the hub's pandas frame into the
    local columns and dtypes. ``note`` says what the hub copy cannot give.
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


# --------------------------------------------------------------------------- STS


def stsbenchmark(split: str = "test") -> pd.DataFrame:
    """STS Benchmark pairs: columns ``sentence1, sentence2, score, subset``.

    The ``.csv`` files are tab-separated without a header and with unbalanced quotes, so
    they are read line by line; the score is column 5, the sentences columns 6-7.
    """
    spec = DATASETS["stsbenchmark"]
    _check_split(spec.name, split, spec.splits)

    def read() -> pd.DataFrame:
        rows = []
        for line in _lines(f"stsbenchmark/sts-{split}.csv"):
            fields = line.split("\t")
            rows.append((fields[5], fields[6], float(fields[4]), f"{fields[0]}/{fields[1]}"))
        return pd.DataFrame(rows, columns=["sentence1", "sentence2", "score", "subset"])

    return _local_or_hub(spec, split, read)


_STS_YEARS = {"sts12": "STS", "sts13": "STS", "sts14": "STS", "sts15": "STS", "sts16": "STS2016"}


def sts(year: str | int, split: str = "test") -> pd.DataFrame:
    """SemEval STS 2012-2016 test pairs: ``sentence1, sentence2, score, subset``.

    Every subset is read; pairs whose gold line is blank (STS15, STS16) were not scored and
    are dropped, as SentEval does. STS16 input lines carry two source-note columns that are
    not model input. ``STS.gs.ALL.txt`` (STS12) is a concatenation and is not read.
    """
    name = f"sts{int(str(year)[-2:]):02d}" if str(year).isdigit() else str(year)
    if name not in _STS_YEARS:
        raise DataError(f"Unknown STS year {year!r}; choose one of 12, 13, 14, 15, 16.")
    spec = DATASETS[name]
    _check_split(name, split, spec.splits)
    prefix = _STS_YEARS[name]

    def read() -> pd.DataFrame:
        pattern = re.compile(rf"^{name}/{re.escape(prefix)}\.input\.(.+)\.txt$")
        subsets = sorted(m.group(1) for p in _expected() if (m := pattern.match(p)))
        rows = []
        for subset in subsets:
            inputs = _lines(f"{name}/{prefix}.input.{subset}.txt")
            golds = _lines(f"{name}/{prefix}.gs.{subset}.txt")
            if len(inputs) != len(golds):
                raise DataError(
                    f"{name}/{subset}: {len(inputs)} input lines but {len(golds)} gold lines."
                )
            for line, gold in zip(inputs, golds, strict=True):
                if not gold.strip():
                    continue
                fields = line.split("\t")
                rows.append((fields[0], fields[1], float(gold), subset))
        return pd.DataFrame(rows, columns=["sentence1", "sentence2", "score", "subset"])

    return _local_or_hub(spec, split, read)


def sick(split: str = "test") -> pd.DataFrame:
    """SICK relatedness (SICK-R): ``sentence1, sentence2, score, label, subset``.

    Splits ``train``, ``trial`` and ``test`` are the SemEval-2014 files (what SentEval
    uses); ``full`` is the 9,840-pair ``SICK.txt`` release. CRLF line endings are handled.
    """
    spec = DATASETS["sick"]
    _check_split(spec.name, split, spec.splits)

    def read() -> pd.DataFrame:
        if split == "full":
            lines, score_col, label_col = _lines("sick/SICK.txt"), 4, 3
        else:
            fname = {"test": "SICK_test_annotated", "train": "SICK_train", "trial": "SICK_trial"}
            lines, score_col, label_col = _lines(f"sick/{fname[split]}.txt"), 3, 4
        rows = []
        for line in lines[1:]:  # header
            fields = line.split("\t")
            rows.append((fields[1], fields[2], float(fields[score_col]), fields[label_col]))
        frame = pd.DataFrame(rows, columns=["sentence1", "sentence2", "score", "label"])
        frame["subset"] = "sick"
        return frame

    return _local_or_hub(spec, split, read)


# --------------------------------------------------------------------------- classification


def rt_polarity(split: str = "all") -> pd.DataFrame:
    """Pang & Lee sentence polarity v1.0: ``sentence, label`` (1 positive, 0 negative).

    The files are Latin-1 encoded; all 10,662 snippets are returned, positives first.
    """
    spec = DATASETS["rt-polarity"]
    _check_split(spec.name, split, spec.splits)

    def read() -> pd.DataFrame:
        rows = [(s.strip(), 1) for s in _lines("rt-polarity/rt-polarity.pos", "latin-1")]
        rows += [(s.strip(), 0) for s in _lines("rt-polarity/rt-polarity.neg", "latin-1")]
        return pd.DataFrame(rows, columns=["sentence", "label"])

    return _local_or_hub(spec, split, read)


SNLI_LABELS = ("entailment", "neutral", "contradiction")


def snli(split: str = "dev") -> pd.DataFrame:
    """SNLI 1.0 pairs with a gold label: ``sentence1, sentence2, label, label_id``.

    Pairs whose ``gold_label`` is ``"-"`` (no annotator majority) are dropped.
    """
    spec = DATASETS["snli"]
    _check_split(spec.name, split, spec.splits)

    def read() -> pd.DataFrame:
        rows = []
        for line in _lines(f"snli/snli_1.0_{split}.jsonl.gz"):
            record = json.loads(line)
            if record["gold_label"] == "-":
                continue
            label = record["gold_label"]
            rows.append(
                (record["sentence1"], record["sentence2"], label, SNLI_LABELS.index(label))
            )
        return pd.DataFrame(rows, columns=["sentence1", "sentence2", "label", "label_id"])

    return _local_or_hub(spec, split, read)


def sst2(split: str = "dev") -> pd.DataFrame:
    """Binary SST (SentEval/SIF copy, same splits as GLUE SST-2): ``sentence, label``."""
    spec = DATASETS["sst2"]
    _check_split(spec.name, split, spec.splits)

    def read() -> pd.DataFrame:
        rows = []
        for line in _lines(f"sst2/sentiment-{split}"):
            sentence, label = line.rsplit("\t", 1)
            rows.append((sentence.strip(), int(label)))
        return pd.DataFrame(rows, columns=["sentence", "label"])

    return _local_or_hub(spec, split, read)


def cola(split: str = "train") -> pd.DataFrame:
    """CoLA: ``sentence, label, source``. ``dev`` is in-domain + out-of-domain (GLUE dev)."""
    spec = DATASETS["cola"]
    _check_split(spec.name, split, spec.splits)
    files = {
        "train": ["in_domain_train"],
        "dev": ["in_domain_dev", "out_of_domain_dev"],
        "in_domain_dev": ["in_domain_dev"],
        "out_of_domain_dev": ["out_of_domain_dev"],
    }

    def read() -> pd.DataFrame:
        rows = []
        for fname in files[split]:
            for line in _lines(f"cola/{fname}.tsv"):
                source, label, _annotation, sentence = line.split("\t")
                rows.append((sentence, int(label), source))
        return pd.DataFrame(rows, columns=["sentence", "label", "source"])

    return _local_or_hub(spec, split, read)


def rte(split: str = "train") -> pd.DataFrame:
    """RTE (GLUE format): ``sentence1, sentence2, label, label_id`` (1 = entailment)."""
    spec = DATASETS["rte"]
    _check_split(spec.name, split, spec.splits)

    def read() -> pd.DataFrame:
        text = _read_text(f"rte/{split}.tsv")
        frame = pd.read_csv(io.StringIO(text), sep="\t", quoting=csv.QUOTE_NONE)
        frame = frame.rename(columns={"index": "id"})
        frame["label_id"] = (frame["label"] == "entailment").astype(int)
        return frame[["sentence1", "sentence2", "label", "label_id"]]

    return _local_or_hub(spec, split, read)


def wic(split: str = "dev") -> pd.DataFrame:
    """Word-in-Context: ``word, pos, indices, sentence1, sentence2, label`` (1 = same sense)."""
    spec = DATASETS["wic"]
    _check_split(spec.name, split, spec.splits)

    def read() -> pd.DataFrame:
        data = _lines(f"wic/{split}/{split}.data.txt")
        gold = _lines(f"wic/{split}/{split}.gold.txt")
        rows = []
        for line, label in zip(data, gold, strict=True):
            word, pos, indices, sentence1, sentence2 = line.split("\t")
            rows.append((word, pos, indices, sentence1, sentence2, int(label.strip() == "T")))
        return pd.DataFrame(
            rows, columns=["word", "pos", "indices", "sentence1", "sentence2", "label"]
        )

    return _local_or_hub(spec, split, read)


# --------------------------------------------------------------------------- language modelling


def _nonblank_lines(name: str, relpath: str, split: str) -> pd.DataFrame:
    """One stripped, non-blank line per row (``text``) of a language-modelling corpus."""
    spec = DATASETS[name]
    _check_split(spec.name, split, spec.splits)

    def read() -> pd.DataFrame:
        lines = [line.strip() for line in _lines(relpath)]
        return pd.DataFrame({"text": [line for line in lines if line]})

    return _local_or_hub(spec, split, read)


def wikitext2(split: str = "valid") -> pd.DataFrame:
    """WikiText-2 (v1, tokenized): one non-blank line (paragraph or heading) per row: ``text``."""
    return _nonblank_lines("wikitext-2", f"wikitext-2/wiki.{split}.tokens", split)


def ptb(split: str = "valid") -> pd.DataFrame:
    """Penn Treebank (Mikolov's LM version): one sentence per row: ``text``."""
    return _nonblank_lines("ptb", f"ptb/ptb.{split}.txt", split)


def word_windows(texts: list[str], window_words: int) -> list[str]:
    """Concatenate whitespace-tokenized texts and cut them into windows of ``window_words``.

    The last, shorter window is kept. Used to build the fixed-length contexts of Cai et al.
    (their windows are 512 model tokens; a word window is chosen so every model fits).
    """
    if window_words < 1:
        raise ValueError(f"window_words must be >= 1, got {window_words}.")
    words = [word for text in texts for word in text.split()]
    return [" ".join(words[i : i + window_words]) for i in range(0, len(words), window_words)]


# --------------------------------------------------------------------------- registry

DATASETS: dict[str, DatasetSpec] = {
    spec.name: spec
    for spec in [
        DatasetSpec("stsbenchmark", "stsbenchmark", ("train", "dev", "test"),
                    "mteb/stsbenchmark-sts", None, stsbenchmark),
        DatasetSpec("sts12", "sts12", ("test",), "mteb/sts12-sts", None, sts),
        DatasetSpec("sts13", "sts13", ("test",), "mteb/sts13-sts", None, sts),
        DatasetSpec("sts14", "sts14", ("test",), "mteb/sts14-sts", None, sts),
        DatasetSpec("sts15", "sts15", ("test",), "mteb/sts15-sts", None, sts),
        DatasetSpec("sts16", "sts16", ("test",), "mteb/sts16-sts", None, sts),
        DatasetSpec("sick", "sick", ("test", "train", "trial", "full"),
                    "mteb/sickr-sts", None, sick),
        DatasetSpec("rt-polarity", "rt-polarity", ("all",),
                    "cornell-movie-review-data/rotten_tomatoes", None, rt_polarity),
        DatasetSpec("snli", "snli", ("dev", "test"), "stanfordnlp/snli", None, snli),
        DatasetSpec("wikitext-2", "wikitext-2", ("valid", "test"),
                    "Salesforce/wikitext", "wikitext-2-v1", wikitext2),
        DatasetSpec("ptb", "ptb", ("valid", "test"), "ptb_text_only", "penn_treebank", ptb),
        DatasetSpec("sst2", "sst2", ("train", "dev", "test"), "nyu-mll/glue", "sst2", sst2),
        DatasetSpec("cola", "cola", ("train", "dev", "in_domain_dev", "out_of_domain_dev"),
                    "nyu-mll/glue", "cola", cola),
        DatasetSpec("rte", "rte", ("train", "dev"), "nyu-mll/glue", "rte", rte),
        DatasetSpec("wic", "wic", ("train", "dev", "test"), "super_glue", "wic", wic),
    ]
}


def load(name: str, split: str | None = None) -> pd.DataFrame:
    """Load a dataset by registry name (``"sts12"``, ``"snli"``, ...) and split.

    Raises
    ------
    DataError
        For an unknown name or split; the message lists the valid choices.
    """
    if name not in DATASETS:
        raise DataError(f"Unknown dataset {name!r}; choose one of {sorted(DATASETS)}.")
    spec = DATASETS[name]
    split = split or spec.splits[0]
    if spec.loader is sts:
        return sts(name, split)
    return spec.loader(split)
