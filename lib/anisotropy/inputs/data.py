"""Datasets: one loader per dataset, returning tidy frames, and the registry :data:`DATASETS`.

Every loader reads the dataset's files from the data root after checking their sha256
(:mod:`anisotropy.inputs.datafiles`). When the data root lacks a dataset, it falls back to
the Hugging Face hub copy, in the same columns and dtypes (:mod:`anisotropy.inputs.hub_data`);
offline, that fails with a message naming the missing path and the hub id.

Loaders return tidy :class:`pandas.DataFrame` objects. Reading conventions (encodings, CRLF,
headers, unscored pairs) follow ``../shared/data/README.md``.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable

import pandas as pd

from anisotropy.inputs.datafiles import (
    PROJECT_ROOT,
    SOURCES_FILE,
    DataError,
    DatasetSpec,
    data_root,
    dataset_root,
    expected_files,
    read_lines,
    read_text,
    verified_files,
    verify_all,
    verify_file,
)
from anisotropy.inputs.hub_data import HUB_ADAPTERS, SNLI_LABELS, from_hub

__all__ = [
    "DataError",
    "DATASETS",
    "DatasetSpec",
    "SOURCES_FILE",
    "HUB_ADAPTERS",
    "PROJECT_ROOT",
    "SNLI_LABELS",
    "data_root",
    "dataset_root",
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
    "word_similarity",
]


# --------------------------------------------------------------------------- specs


def _check_split(name: str, split: str, splits: tuple[str, ...]) -> None:
    if split not in splits:
        raise DataError(f"Unknown split {split!r} for dataset {name!r}; choose one of {splits}.")


def _local_or_hub(spec: DatasetSpec, split: str, reader: Callable[[], pd.DataFrame]):
    """Read locally when a data root holds the dataset's folder, else read its hub copy."""
    if dataset_root(spec.folder) is not None:
        return reader()
    return from_hub(spec, split)


# --------------------------------------------------------------------------- STS


def stsbenchmark(split: str = "test") -> pd.DataFrame:
    """STS Benchmark pairs: columns ``sentence1, sentence2, score, subset``.

    The ``.csv`` files are tab-separated without a header and with unbalanced quotes, so
    they are read line by line; the score is column 5, the sentences columns 6-7.

    Parameters
    ----------
    split : str, optional
        ``"train"``, ``"dev"`` or ``"test"`` (default ``"test"``).

    Returns
    -------
    pandas.DataFrame
        One row per pair: ``sentence1``, ``sentence2``, ``score`` (float, the gold similarity)
        and ``subset`` (``"<genre>/<source>"``, the file's first two columns).
        The hub copy, read when no data root holds the dataset, gives the same
        columns and dtypes.

    Raises
    ------
    DataError
        For a split not listed above; for a local file that is missing or fails its sha256
        check; without a local copy, when the hub copy cannot be read or lacks the split.
    """
    spec = DATASETS["stsbenchmark"]
    _check_split(spec.name, split, spec.splits)

    def read() -> pd.DataFrame:
        rows = []
        for line in read_lines(f"stsbenchmark/sts-{split}.csv"):
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

    Parameters
    ----------
    year : str or int
        The year: ``12`` to ``16`` or ``2012`` to ``2016`` (an int or a string of digits; its
        last two digits count), or the registry name ``"sts12"`` to ``"sts16"``.
    split : str, optional
        Only ``"test"`` (the default).

    Returns
    -------
    pandas.DataFrame
        One scored pair per row: ``sentence1``, ``sentence2``, ``score`` (float, the gold
        similarity) and ``subset`` (the file the pair comes from: ``<subset>`` of
        ``STS.input.<subset>.txt``, or of ``STS2016.input.<subset>.txt`` for STS16). The hub
        copy, read when no data root holds the dataset, gives the same columns and dtypes,
        but ``subset`` is the dataset name there (``"sts12"``, ...): the hub copies lack the
        per-file subsets.

    Raises
    ------
    DataError
        For an unknown year or split; for a subset whose input and gold files differ in line
        count; for a local file that is missing or fails its sha256 check; without a local
        copy, when the hub copy cannot be read.
    """
    name = f"sts{int(str(year)[-2:]):02d}" if str(year).isdigit() else str(year)
    if name not in _STS_YEARS:
        raise DataError(f"Unknown STS year {year!r}; choose one of 12, 13, 14, 15, 16.")
    spec = DATASETS[name]
    _check_split(name, split, spec.splits)
    prefix = _STS_YEARS[name]

    def read() -> pd.DataFrame:
        pattern = re.compile(rf"^{name}/{re.escape(prefix)}\.input\.(.+)\.txt$")
        subsets = sorted(m.group(1) for p in expected_files() if (m := pattern.match(p)))
        rows = []
        for subset in subsets:
            inputs = read_lines(f"{name}/{prefix}.input.{subset}.txt")
            golds = read_lines(f"{name}/{prefix}.gs.{subset}.txt")
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

    Parameters
    ----------
    split : str, optional
        ``"test"`` (default), ``"train"``, ``"trial"`` or ``"full"``. The hub copy
        (``mteb/sickr-sts``) holds only ``"test"``.

    Returns
    -------
    pandas.DataFrame
        One row per pair: ``sentence1``, ``sentence2``, ``score`` (float, the relatedness
        score), ``label`` (the entailment judgment as written in the file) and ``subset``
        (always ``"sick"``).
        The hub copy, read when no data root holds the dataset, gives the same
        columns and dtypes, except that ``label`` is None there.

    Raises
    ------
    DataError
        For a split not listed above; for a local file that is missing or fails its sha256
        check; without a local copy, when the hub copy cannot be read or lacks the split.
    """
    spec = DATASETS["sick"]
    _check_split(spec.name, split, spec.splits)

    def read() -> pd.DataFrame:
        if split == "full":
            lines, score_col, label_col = read_lines("sick/SICK.txt"), 4, 3
        else:
            fname = {"test": "SICK_test_annotated", "train": "SICK_train", "trial": "SICK_trial"}
            lines, score_col, label_col = read_lines(f"sick/{fname[split]}.txt"), 3, 4
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

    Parameters
    ----------
    split : str, optional
        Only ``"all"`` (the default): the dataset has no splits.

    Returns
    -------
    pandas.DataFrame
        One snippet per row: ``sentence`` (stripped) and ``label`` (int). The hub copy, read
        when no data root holds the dataset, gives the same columns and dtypes (the hub's
        train, validation and test splits together, positives first).

    Raises
    ------
    DataError
        For a split not listed above; for a local file that is missing or fails its sha256
        check; without a local copy, when the hub copy cannot be read or lacks the split.
    """
    spec = DATASETS["rt-polarity"]
    _check_split(spec.name, split, spec.splits)

    def read() -> pd.DataFrame:
        rows = [(s.strip(), 1) for s in read_lines("rt-polarity/rt-polarity.pos", "latin-1")]
        rows += [(s.strip(), 0) for s in read_lines("rt-polarity/rt-polarity.neg", "latin-1")]
        return pd.DataFrame(rows, columns=["sentence", "label"])

    return _local_or_hub(spec, split, read)


def snli(split: str = "dev") -> pd.DataFrame:
    """SNLI 1.0 pairs with a gold label: ``sentence1, sentence2, label, label_id``.

    Pairs whose ``gold_label`` is ``"-"`` (no annotator majority) are dropped.

    Parameters
    ----------
    split : str, optional
        ``"dev"`` (default) or ``"test"``.

    Returns
    -------
    pandas.DataFrame
        One pair per row: ``sentence1`` (premise), ``sentence2`` (hypothesis), ``label`` (one
        of :data:`SNLI_LABELS`) and ``label_id`` (int, its index in :data:`SNLI_LABELS`).
        The hub copy, read when no data root holds the dataset, gives the same
        columns and dtypes.

    Raises
    ------
    DataError
        For a split not listed above; for a local file that is missing or fails its sha256
        check; without a local copy, when the hub copy cannot be read or lacks the split.
    """
    spec = DATASETS["snli"]
    _check_split(spec.name, split, spec.splits)

    def read() -> pd.DataFrame:
        rows = []
        for line in read_lines(f"snli/snli_1.0_{split}.jsonl.gz"):
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
    """Binary SST (SentEval/SIF copy, same splits as GLUE SST-2): ``sentence, label``.

    Parameters
    ----------
    split : str, optional
        ``"train"``, ``"dev"`` (default) or ``"test"``. The hub copy (GLUE) has no test
        labels, so it gives only ``"train"`` and ``"dev"``.

    Returns
    -------
    pandas.DataFrame
        One sentence per row: ``sentence`` (stripped) and ``label`` (int, the binary
        sentiment label of the file's last tab-separated column).
        The hub copy, read when no data root holds the dataset, gives the same
        columns and dtypes.

    Raises
    ------
    DataError
        For a split not listed above; for a local file that is missing or fails its sha256
        check; without a local copy, when the hub copy cannot be read or lacks the split.
    """
    spec = DATASETS["sst2"]
    _check_split(spec.name, split, spec.splits)

    def read() -> pd.DataFrame:
        rows = []
        for line in read_lines(f"sst2/sentiment-{split}"):
            sentence, label = line.rsplit("\t", 1)
            rows.append((sentence.strip(), int(label)))
        return pd.DataFrame(rows, columns=["sentence", "label"])

    return _local_or_hub(spec, split, read)


def cola(split: str = "train") -> pd.DataFrame:
    """CoLA: ``sentence, label, source``. ``dev`` is in-domain + out-of-domain (GLUE dev).

    Parameters
    ----------
    split : str, optional
        ``"train"`` (default), ``"dev"``, ``"in_domain_dev"`` or ``"out_of_domain_dev"``.
        The hub copy (GLUE) gives only ``"train"`` and ``"dev"``.

    Returns
    -------
    pandas.DataFrame
        One sentence per row: ``sentence``, ``label`` (int, the acceptability judgment) and
        ``source`` (the code of the sentence's source, the file's first column).
        The hub copy, read when no data root holds the dataset, gives the same
        columns and dtypes, except that ``source`` is None there.

    Raises
    ------
    DataError
        For a split not listed above; for a local file that is missing or fails its sha256
        check; without a local copy, when the hub copy cannot be read or lacks the split.
    """
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
            for line in read_lines(f"cola/{fname}.tsv"):
                source, label, _annotation, sentence = line.split("\t")
                rows.append((sentence, int(label), source))
        return pd.DataFrame(rows, columns=["sentence", "label", "source"])

    return _local_or_hub(spec, split, read)


def rte(split: str = "train") -> pd.DataFrame:
    """RTE (GLUE format): ``sentence1, sentence2, label, label_id`` (1 = entailment).

    Parameters
    ----------
    split : str, optional
        ``"train"`` (default) or ``"dev"``.

    Returns
    -------
    pandas.DataFrame
        One pair per row: ``sentence1``, ``sentence2``, ``label`` (``"entailment"`` or
        ``"not_entailment"``) and ``label_id`` (int, 1 for entailment, else 0).
        The hub copy, read when no data root holds the dataset, gives the same
        columns and dtypes.

    Raises
    ------
    DataError
        For a split not listed above; for a local file that is missing or fails its sha256
        check; without a local copy, when the hub copy cannot be read or lacks the split.
    """
    spec = DATASETS["rte"]
    _check_split(spec.name, split, spec.splits)

    def read() -> pd.DataFrame:
        text = read_text(f"rte/{split}.tsv")
        frame = pd.read_csv(io.StringIO(text), sep="\t", quoting=csv.QUOTE_NONE)
        frame = frame.rename(columns={"index": "id"})
        frame["label_id"] = (frame["label"] == "entailment").astype(int)
        return frame[["sentence1", "sentence2", "label", "label_id"]]

    return _local_or_hub(spec, split, read)


def wic(split: str = "dev") -> pd.DataFrame:
    """Word-in-Context: ``word, pos, indices, sentence1, sentence2, label`` (1 = same sense).

    Parameters
    ----------
    split : str, optional
        ``"train"``, ``"dev"`` (default) or ``"test"``. The hub copy (SuperGLUE) has no test
        labels, so it gives only ``"train"`` and ``"dev"``.

    Returns
    -------
    pandas.DataFrame
        One pair per row: the target ``word``, its part of speech ``pos``, ``indices``
        (``"i1-i2"``, the target's word position in each sentence), ``sentence1``,
        ``sentence2`` and ``label`` (int, 1 when the gold file says ``T``, else 0).
        The hub copy, read when no data root holds the dataset, gives the same
        columns and dtypes, except that ``pos`` is None there and ``indices`` is
        rebuilt from the untokenized sentences (see :mod:`anisotropy.inputs.hub_data`).

    Raises
    ------
    DataError
        For a split not listed above; for a local file that is missing or fails its sha256
        check; without a local copy, when the hub copy cannot be read or lacks the split.
    """
    spec = DATASETS["wic"]
    _check_split(spec.name, split, spec.splits)

    def read() -> pd.DataFrame:
        data = read_lines(f"wic/{split}/{split}.data.txt")
        gold = read_lines(f"wic/{split}/{split}.gold.txt")
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
        lines = [line.strip() for line in read_lines(relpath)]
        return pd.DataFrame({"text": [line for line in lines if line]})

    return _local_or_hub(spec, split, read)


def wikitext2(split: str = "valid") -> pd.DataFrame:
    """WikiText-2 (v1, tokenized): one non-blank line (paragraph or heading) per row: ``text``.

    Parameters
    ----------
    split : str, optional
        ``"valid"`` (default) or ``"test"``.

    Returns
    -------
    pandas.DataFrame
        One column, ``text``: the file's stripped, non-blank lines, in file order.
        The hub copy, read when no data root holds the dataset, gives the same
        columns and dtypes.

    Raises
    ------
    DataError
        For a split not listed above; for a local file that is missing or fails its sha256
        check; without a local copy, when the hub copy cannot be read or lacks the split.
    """
    return _nonblank_lines("wikitext-2", f"wikitext-2/wiki.{split}.tokens", split)


def ptb(split: str = "valid") -> pd.DataFrame:
    """Penn Treebank (Mikolov's LM version): one sentence per row: ``text``.

    Parameters
    ----------
    split : str, optional
        ``"valid"`` (default) or ``"test"``.

    Returns
    -------
    pandas.DataFrame
        One column, ``text``: the file's stripped, non-blank lines, in file order.
        The hub copy, read when no data root holds the dataset, gives the same
        columns and dtypes.

    Raises
    ------
    DataError
        For a split not listed above; for a local file that is missing or fails its sha256
        check; without a local copy, when the hub copy cannot be read or lacks the split.
    """
    return _nonblank_lines("ptb", f"ptb/ptb.{split}.txt", split)


def word_windows(texts: list[str], window_words: int) -> list[str]:
    """Concatenate whitespace-tokenized texts and cut them into windows of ``window_words``.

    The last, shorter window is kept. Used to build the fixed-length contexts of Cai et al.
    (their windows are 512 model tokens; a word window is chosen so every model fits).

    Parameters
    ----------
    texts : list of str
        The texts, split on whitespace and concatenated in order.
    window_words : int
        Words per window; >= 1.

    Returns
    -------
    list of str
        The windows in order, their words joined by single spaces; every window has
        ``window_words`` words but the last, which may have fewer. Empty when ``texts`` has
        no words.

    Raises
    ------
    ValueError
        If ``window_words`` < 1.
    """
    if window_words < 1:
        raise ValueError(f"window_words must be >= 1, got {window_words}.")
    words = [word for text in texts for word in text.split()]
    return [" ".join(words[i : i + window_words]) for i in range(0, len(words), window_words)]


# --------------------------------------------------------------------------- word similarity

_WORD_FILES = {"simlex999": "word-similarity/simlex999.txt",
               "wordsim353": "word-similarity/wordsim353.tsv"}


def word_similarity(split: str = "simlex999") -> pd.DataFrame:
    """A word-similarity benchmark (SimLex-999 or WordSim-353, gensim's copies): columns
    ``word1, word2, score`` (the mean human rating), after the files' ``#`` comment lines.

    The files have no hub copy: they ship in gensim's wheel on PyPI, which
    ``anisotropy data fetch word-similarity`` downloads (28 MB, sha256 verified) to take
    them out. A machine without a data root holding them gets a :class:`DataError` that
    says so.

    Parameters
    ----------
    split : str, optional
        The benchmark: ``"simlex999"`` (default) or ``"wordsim353"``.

    Returns
    -------
    pandas.DataFrame
        One word pair per row: ``word1``, ``word2`` (stripped) and ``score`` (float), from
        the first three tab-separated columns; blank and ``#`` lines are skipped.

    Raises
    ------
    DataError
        For an unknown split; when no data root holds the dataset's folder; for a file that
        is missing or fails its sha256 check.
    """
    spec = DATASETS["word-similarity"]
    _check_split(spec.name, split, spec.splits)
    if dataset_root(spec.folder) is None:
        raise DataError(
            f"Dataset 'word-similarity' ({split}) is in no data root, and it has no hub copy: "
            "its files ship in gensim's wheel on PyPI (gensim/test/test_data/simlex999.txt "
            "and wordsim353.tsv). Run `anisotropy data fetch word-similarity`, which "
            "downloads the wheel (28 MB) and keeps the two files, sha256 verified; or leave "
            "word_tasks empty.")
    rows = []
    for line in read_lines(_WORD_FILES[split]):
        if not line.strip() or line.startswith("#"):
            continue
        first, second, score = line.split("\t")[:3]
        rows.append((first.strip(), second.strip(), float(score)))
    return pd.DataFrame(rows, columns=["word1", "word2", "score"])


# --------------------------------------------------------------------------- registry

DATASETS: dict[str, DatasetSpec] = {
    spec.name: spec
    for spec in [
        DatasetSpec("stsbenchmark", "stsbenchmark", ("train", "dev", "test"), stsbenchmark),
        *(DatasetSpec(f"sts{year}", f"sts{year}", ("test",), sts) for year in range(12, 17)),
        DatasetSpec("sick", "sick", ("test", "train", "trial", "full"), sick),
        DatasetSpec("rt-polarity", "rt-polarity", ("all",), rt_polarity),
        DatasetSpec("snli", "snli", ("dev", "test"), snli),
        DatasetSpec("wikitext-2", "wikitext-2", ("valid", "test"), wikitext2),
        DatasetSpec("ptb", "ptb", ("valid", "test"), ptb),
        DatasetSpec("sst2", "sst2", ("train", "dev", "test"), sst2),
        DatasetSpec("cola", "cola", ("train", "dev", "in_domain_dev", "out_of_domain_dev"), cola),
        DatasetSpec("rte", "rte", ("train", "dev"), rte),
        DatasetSpec("wic", "wic", ("train", "dev", "test"), wic),
        DatasetSpec("word-similarity", "word-similarity", ("simlex999", "wordsim353"),
                    word_similarity),
    ]
}


def load(name: str, split: str | None = None) -> pd.DataFrame:
    """Load a dataset by registry name (``"sts12"``, ``"snli"``, ...) and split.

    Parameters
    ----------
    name : str
        A key of :data:`DATASETS`.
    split : str or None, optional
        A split of that dataset. None (the default, or an empty string) takes the first split
        of its :class:`DatasetSpec`, which is not always the loader's own default (e.g.
        ``"train"`` for ``stsbenchmark``, ``sst2`` and ``wic``).

    Returns
    -------
    pandas.DataFrame
        What the dataset's loader returns for that split.

    Raises
    ------
    DataError
        For an unknown name or split; the message lists the valid choices. Also whatever
        the loader raises (missing or corrupt files, an unreadable hub copy).
    """
    if name not in DATASETS:
        raise DataError(f"Unknown dataset {name!r}; choose one of {sorted(DATASETS)}.")
    spec = DATASETS[name]
    split = split or spec.splits[0]
    if spec.loader is sts:
        return sts(name, split)
    return spec.loader(split)
