"""Data loaders: counts from the manifest, reading quirks, verification and bad input."""

from __future__ import annotations

import shutil

import pytest

from anisotropy.inputs import data, datafiles


@pytest.mark.parametrize("name,split,rows", [
    ("stsbenchmark", "train", 5749), ("stsbenchmark", "dev", 1500),
    ("stsbenchmark", "test", 1379), ("sts12", "test", 3108), ("sts13", "test", 1500),
    ("sts14", "test", 3750), ("sts15", "test", 3000), ("sts16", "test", 1186),
    ("sick", "test", 4927), ("sick", "train", 4500), ("sick", "full", 9840),
    ("rt-polarity", "all", 10662), ("snli", "dev", 9842), ("snli", "test", 9824),
    ("sst2", "train", 67349), ("sst2", "dev", 872), ("sst2", "test", 1821),
    ("cola", "train", 8551), ("cola", "dev", 1043), ("rte", "train", 2490),
    ("rte", "dev", 277), ("wic", "train", 5428), ("wic", "dev", 638), ("wic", "test", 1400),
])
def test_row_counts_match_the_manifest(name, split, rows):
    assert len(data.load(name, split)) == rows


def test_sts_columns_and_ranges():
    frame = data.sts(16)
    assert list(frame.columns) == ["sentence1", "sentence2", "score", "subset"]
    assert frame["score"].between(0, 5).all()
    assert frame["subset"].nunique() == 5
    # STS16 inputs carry source-note columns that must not leak into the sentences
    assert not frame["sentence1"].str.contains("Europe Media Monitor").any()
    assert frame.groupby("subset").size()["headlines"] == 249


def test_sick_crlf_and_header_handled():
    frame = data.sick("test")
    assert not frame["sentence1"].str.contains("\r").any()
    assert frame["score"].between(1, 5).all()
    assert frame.iloc[0]["sentence1"].startswith("There is no boy playing outdoors")


def test_rt_polarity_latin1():
    frame = data.rt_polarity()
    assert frame["label"].value_counts().to_dict() == {1: 5331, 0: 5331}
    assert frame["sentence"].str.contains("é").any()  # decoded as Latin-1, not mangled


def test_snli_drops_unlabelled():
    frame = data.snli("dev")
    assert set(frame["label"]) == {"entailment", "neutral", "contradiction"}


def test_language_modelling_corpora():
    wiki = data.wikitext2("valid")
    assert len(wiki) > 2000 and not (wiki["text"] == "").any()
    windows = data.word_windows(wiki["text"].tolist()[:50], 64)
    assert all(len(w.split()) <= 64 for w in windows)
    assert len(data.ptb("test")) == 3761


def test_unknown_names_list_choices():
    with pytest.raises(data.DataError, match="Unknown dataset 'imdb'.*choose one of"):
        data.load("imdb")
    with pytest.raises(data.DataError, match="Unknown split 'validation'.*'train', 'dev'"):
        data.load("stsbenchmark", "validation")
    with pytest.raises(data.DataError, match="Unknown STS year"):
        data.sts(17)


@pytest.fixture
def copied_root(tmp_path, monkeypatch):
    """A private copy of two datasets as the data root, with the process memo cleared."""
    for folder in ("sts13", "rte"):
        shutil.copytree(data.dataset_root(folder) / folder, tmp_path / folder)
    monkeypatch.setenv("ANISOTROPY_DATA", str(tmp_path))
    monkeypatch.setattr(datafiles, "_VERIFIED", {})
    return tmp_path


def test_sha256_mismatch_names_file_and_hashes(copied_root):
    target = copied_root / "rte" / "dev.tsv"
    target.write_bytes(target.read_bytes() + b"x")
    with pytest.raises(data.DataError, match=r"sha256 mismatch for .*dev\.tsv: expected "
                                             r"[0-9a-f]{64}, got [0-9a-f]{64}"):
        data.rte("dev")


def test_missing_file_is_named(copied_root):
    (copied_root / "sts13" / "STS.gs.FNWN.txt").unlink()
    with pytest.raises(data.DataError, match="Missing data file .*STS.gs.FNWN.txt"):
        data.sts(13)


def test_missing_dataset_offline_names_dataset_revision_and_fixes(copied_root, monkeypatch,
                                                                   tmp_path):
    """No data root holds SNLI and the hub cannot be reached: one message names the dataset,
    the hub copy and its revision, `anisotropy data fetch` and ANISOTROPY_DATA."""
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "empty"))
    with pytest.raises(data.DataError) as caught:
        data.snli("dev")
    message = str(caught.value)
    for part in ("'snli'", "stanfordnlp/snli", "refs/convert/parquet",
                 "anisotropy data fetch snli", "ANISOTROPY_DATA"):
        assert part in message, (part, message)


def test_bad_data_root(monkeypatch, tmp_path):
    monkeypatch.setenv("ANISOTROPY_DATA", str(tmp_path / "nope"))
    with pytest.raises(data.DataError, match="ANISOTROPY_DATA=.*is not a directory"):
        data.data_root()


def test_verify_all_and_memo():
    assert data.verify_all() == len(datafiles.expected_files()) == 93
    assert "sts12/STS.gs.MSRpar.txt" in data.verified_files()
