"""The Hugging Face hub fallback returns the local readers' schema.

``datasets.load_dataset`` is replaced by a fake that returns rows shaped like each hub copy
(its column names and dtypes); no network is used.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anisotropy.inputs import data

datasets = pytest.importorskip("datasets")

# Two or three rows per hub copy, with the hub's column names and dtypes.
_STS = {"sentence1": ["A man is playing.", "A cat."], "sentence2": ["A man plays.", "A dog."],
        "score": np.array([4.2, 0.5], dtype=np.float64)}
HUB_ROWS = {
    ("mteb/stsbenchmark-sts", None): {
        "split": ["test", "test"], "genre": ["main-captions", "main-news"],
        "dataset": ["MSRvid", "headlines"], "year": ["2012test", "2015"],
        "sid": ["0001", "0002"], **_STS},
    **{(f"mteb/sts{year}-sts", None): _STS for year in range(12, 17)},
    ("mteb/sickr-sts", None): {**_STS, "id": ["1", "2"]},
    ("cornell-movie-review-data/rotten_tomatoes", None): {
        "text": ["a dull film . ", "a fine film ."], "label": np.array([0, 1], dtype=np.int64)},
    ("stanfordnlp/snli", None): {
        "premise": ["A man sleeps.", "A dog runs.", "Kids play."],
        "hypothesis": ["A man rests.", "A cat runs.", "Adults work."],
        "label": np.array([0, -1, 2], dtype=np.int64)},
    ("Salesforce/wikitext", "wikitext-2-v1"): {"text": ["", " = Title = \n", " Some text . \n"]},
    ("ptb_text_only", "penn_treebank"): {"sentence": ["the market fell", " "]},
    ("nyu-mll/glue", "sst2"): {"sentence": ["good fun ", "bad"],
                               "label": np.array([1, 0], dtype=np.int64),
                               "idx": np.array([0, 1], dtype=np.int32)},
    ("nyu-mll/glue", "cola"): {"sentence": ["The cat sat.", "Cat the sat."],
                               "label": np.array([1, 0], dtype=np.int64),
                               "idx": np.array([0, 1], dtype=np.int32)},
    ("nyu-mll/glue", "rte"): {"sentence1": ["It rains.", "It is sunny."],
                              "sentence2": ["It is wet.", "It snows."],
                              "label": np.array([0, 1], dtype=np.int64),
                              "idx": np.array([0, 1], dtype=np.int32)},
    ("super_glue", "wic"): {
        "word": ["board", "go"], "sentence1": ["Room and board.", "Go home."],
        "sentence2": ["He nailed boards across the windows.", "We go."],
        "start1": np.array([9, 0], dtype=np.int32), "start2": np.array([10, 3], dtype=np.int32),
        "end1": np.array([14, 2], dtype=np.int32), "end2": np.array([16, 5], dtype=np.int32),
        "idx": np.array([0, 1], dtype=np.int32), "label": np.array([0, 1], dtype=np.int64)},
}


class FakeDataset:
    def __init__(self, frame: pd.DataFrame):
        self.frame = frame

    def to_pandas(self) -> pd.DataFrame:
        return self.frame.copy()


@pytest.fixture
def fake_hub(monkeypatch):
    """``datasets.load_dataset`` returns :data:`HUB_ROWS`; the hub counts as online.

    Returns the list of ``(hub_id, config, split)`` requested."""
    calls = []

    def load_dataset(path, name=None, split=None, **kwargs):
        calls.append((path, name, split))
        return FakeDataset(pd.DataFrame(HUB_ROWS[(path, name)]))

    monkeypatch.setattr(datasets, "load_dataset", load_dataset)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("HF_DATASETS_OFFLINE", raising=False)
    return calls


def _without_local_data(monkeypatch, tmp_path):
    monkeypatch.setenv("ANISOTROPY_DATA", str(tmp_path))  # a root with no dataset folder


CASES = [(name, split) for name, spec in data.DATASETS.items() for split in spec.splits]


def test_every_dataset_has_a_hub_mapping():
    assert set(data.HUB_ADAPTERS) == set(data.DATASETS)
    for name, adapter in data.HUB_ADAPTERS.items():
        assert set(adapter.splits) <= set(data.DATASETS[name].splits), name


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
    spec = data.DATASETS[name]
    assert fake_hub == [(spec.hub_id, spec.hub_config, s) for s in adapter.splits[split]]
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
    assert ("Salesforce/wikitext", "wikitext-2-v1", "validation") in fake_hub  # "valid"
    assert [s for h, _, s in fake_hub if h.endswith("rotten_tomatoes")] == [
        "train", "validation", "test"]  # "all"
