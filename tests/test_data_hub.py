"""The Hugging Face hub fallback returns the local readers' schema.

The hub is a fake (:mod:`fakehub`): a real Hugging Face cache holding each dataset's parquet
export at its declared revision, with rows shaped like each hub copy (its column names and
dtypes), read offline through the same ``snapshot_download`` call as a user's download.
"""

from __future__ import annotations

import huggingface_hub.constants
import numpy as np
import pandas as pd
import pytest
from fakehub import write_fake_hub

from anisotropy.inputs import data, datafiles, hub_data
from anisotropy.inputs.datafiles import sources

# Two or three rows per hub copy (the same in each of its splits), with the hub's column
# names and dtypes.
_STS = {"sentence1": ["A man is playing.", "A cat."], "sentence2": ["A man plays.", "A dog."],
        "score": np.array([4.2, 0.5], dtype=np.float64)}
HUB_ROWS = {
    "stsbenchmark": {
        "split": ["test", "test"], "genre": ["main-captions", "main-news"],
        "dataset": ["MSRvid", "headlines"], "year": ["2012test", "2015"],
        "sid": ["0001", "0002"], **_STS},
    **{f"sts{year}": _STS for year in range(12, 17)},
    "sick": {**_STS, "id": ["1", "2"]},
    "rt-polarity": {
        "text": ["a dull film . ", "a fine film ."], "label": np.array([0, 1], dtype=np.int64)},
    "snli": {
        "premise": ["A man sleeps.", "A dog runs.", "Kids play."],
        "hypothesis": ["A man rests.", "A cat runs.", "Adults work."],
        "label": np.array([0, -1, 2], dtype=np.int64)},
    "wikitext-2": {"text": ["", " = Title = \n", " Some text . \n"]},
    "ptb": {"sentence": ["the market fell", " "]},
    "sst2": {"sentence": ["good fun ", "bad"],
                               "label": np.array([1, 0], dtype=np.int64),
                               "idx": np.array([0, 1], dtype=np.int32)},
    "cola": {"sentence": ["The cat sat.", "Cat the sat."],
                               "label": np.array([1, 0], dtype=np.int64),
                               "idx": np.array([0, 1], dtype=np.int32)},
    "rte": {"sentence1": ["It rains.", "It is sunny."],
                              "sentence2": ["It is wet.", "It snows."],
                              "label": np.array([0, 1], dtype=np.int64),
                              "idx": np.array([0, 1], dtype=np.int32)},
    "wic": {
        "word": ["board", "go"], "sentence1": ["Room and board.", "Go home."],
        "sentence2": ["He nailed boards across the windows.", "We go."],
        "start1": np.array([9, 0], dtype=np.int32), "start2": np.array([10, 3], dtype=np.int32),
        "end1": np.array([14, 2], dtype=np.int32), "end2": np.array([16, 5], dtype=np.int32),
        "idx": np.array([0, 1], dtype=np.int32), "label": np.array([0, 1], dtype=np.int64)},
}


@pytest.fixture
def fake_hub(monkeypatch, tmp_path):
    """A hub cache holding :data:`HUB_ROWS` in every hub split, read offline.

    Returns the list of ``(hub_id, hub split)`` whose files were read."""
    frames = {(name, hub_split): pd.DataFrame(rows)
              for name, rows in HUB_ROWS.items()
              for hub_splits in data.HUB_ADAPTERS[name].splits.values()
              for hub_split in hub_splits}
    cache = write_fake_hub(tmp_path / "hf", frames)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(datafiles, "_HUB_READS", {})
    monkeypatch.setattr(datafiles, "_HUB_FILES", {})
    calls = []
    original = hub_data.hub_parquet_files

    def recording(name, hub_split):
        calls.append((hub_data.hub_source(name)["id"], hub_split))
        return original(name, hub_split)

    monkeypatch.setattr(hub_data, "hub_parquet_files", recording)
    return calls


def _without_local_data(monkeypatch, tmp_path):
    monkeypatch.setenv("ANISOTROPY_DATA", str(tmp_path))  # a root with no dataset folder


#: The datasets with a hub copy in data/sources.yaml (the word-similarity files have none).
HUBBED = {name for name, entry in sources().items() if entry.get("hub")}
CASES = [(name, split) for name, spec in data.DATASETS.items() for split in spec.splits
         if name in HUBBED]


def test_every_dataset_has_a_hub_mapping():
    assert set(data.HUB_ADAPTERS) == HUBBED == set(data.DATASETS) - {"word-similarity"}
    for name, adapter in data.HUB_ADAPTERS.items():
        assert set(adapter.splits) <= set(data.DATASETS[name].splits), name


def test_a_dataset_without_hub_copy_says_where_its_files_are(monkeypatch, tmp_path):
    _without_local_data(monkeypatch, tmp_path)
    with pytest.raises(data.DataError,
                       match="no hub copy: .*gensim.*anisotropy data fetch word-similarity"):
        data.load("word-similarity", "wordsim353")


@pytest.mark.parametrize("name,split", CASES, ids=[f"{n}-{s}" for n, s in CASES])
def test_hub_schema_equals_local_schema(name, split, fake_hub, monkeypatch, tmp_path):
    local = data.load(name, split)
    _without_local_data(monkeypatch, tmp_path)
    adapter = data.HUB_ADAPTERS[name]
    if split not in adapter.splits:
        with pytest.raises(data.DataError, match=rf"no split matching the local '{split}'"):
            data.load(name, split)
        assert fake_hub == []  # refused before any download
        return
    hub = data.load(name, split)
    assert fake_hub == [(hub_data.hub_source(name)["id"], s) for s in adapter.splits[split]]
    read = datafiles.verified_files()
    assert read[f"hub:{name}/{split}"].startswith(hub_data.hub_source(name)["id"] + "@")
    # and the sha256 of each parquet file read, under its path in the hub copy
    config = hub_data.hub_source(name)["config"]
    files = {key: digest for key, digest in read.items()
             if key.startswith(f"hub:{name}/{split}/")}
    assert files and {key.split("/")[3] for key in files} == set(adapter.splits[split])
    for key, digest in files.items():
        assert key.split("/")[2] == config and key.endswith(".parquet")
        assert len(digest) == 64 and int(digest, 16) >= 0
    assert list(hub.columns) == list(local.columns)
    assert hub.dtypes.to_dict() == local.dtypes.to_dict()
    assert len(hub) > 0 and list(hub.index) == list(range(len(hub)))


def test_hub_values_follow_the_local_conventions(fake_hub, monkeypatch, tmp_path):
    _without_local_data(monkeypatch, tmp_path)
    snli = data.snli("dev")  # the pair without a gold label (-1) is dropped
    assert snli[["label", "label_id"]].values.tolist() == [["entailment", 0],
                                                           ["contradiction", 2]]
    rte = data.rte("train")  # GLUE 0 = entailment; locally label_id 1 = entailment
    assert rte[["label", "label_id"]].values.tolist() == [["entailment", 1],
                                                          ["not_entailment", 0]]
    assert data.stsbenchmark("test")["subset"].tolist() == ["main-captions/MSRvid",
                                                            "main-news/headlines"]
    assert data.sts(12)["subset"].tolist() == ["sts12", "sts12"]
    assert data.rt_polarity()["label"].tolist()[:3] == [1, 1, 1]  # positives first
    assert data.wikitext2("valid")["text"].tolist() == ["= Title =", "Some text ."]
    assert data.ptb("test")["text"].tolist() == ["the market fell"]
    assert data.wic("dev")["indices"].tolist() == ["2-2", "0-1"]
    assert ("Salesforce/wikitext", "validation") in fake_hub  # "valid"
    assert [s for h, s in fake_hub if h.endswith("rotten_tomatoes")] == [
        "train", "validation", "test"]  # "all"
