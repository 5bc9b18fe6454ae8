"""The task and corpus registry (``data/tasks.yaml``): one source of every claim's texts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import yaml
from test_data_hub import fake_hub  # noqa: F401  (a fixture)

from anisotropy.inputs import data, tasks


def test_every_declared_dataset_and_split_exists():
    declared = yaml.safe_load(tasks.TASKS_FILE.read_text(encoding="utf-8"))
    for kind in ("sts", "classification"):
        for name, body in declared[kind].items():
            assert body["split"] in data.DATASETS[body["dataset"]].splits, (kind, name)
    for name, body in declared["corpora"].items():
        for source in body["sources"]:
            assert source["split"] in data.DATASETS[source["dataset"]].splits, name


def test_unknown_names_are_refused_with_the_choices():
    with pytest.raises(tasks.TaskError, match=r"Unknown STS task 'STS17'; choose one of \["):
        tasks.sts_task("STS17")
    with pytest.raises(tasks.TaskError, match="Unknown corpus 'wiki'.*'snli'"):
        tasks.corpus("wiki")
    with pytest.raises(tasks.TaskError, match="Unknown classification task 'imdb'"):
        tasks.classification_task("imdb")
    with pytest.raises(tasks.TaskError, match="Unknown kind 'tasks'"):
        tasks.names("tasks")
    with pytest.raises(tasks.TaskError, match="n must be >= 1"):
        tasks.corpus("snli", 0)
    with pytest.raises(tasks.TaskError, match="includes other corpora"):
        tasks.windows("frequency", 64)


def test_bad_declarations_are_refused(tmp_path, monkeypatch):
    bad = tmp_path / "tasks.yaml"
    bad.write_text("classification:\n  x: {dataset: sst2, split: dev, unit: word}\n")
    monkeypatch.setattr(tasks, "TASKS_FILE", bad)
    with pytest.raises(tasks.TaskError, match="unit 'word'"):
        tasks.names("classification")
    bad.write_text("corpora:\n  a: {unit: line, sources: [], include: [b]}\n")
    tasks._declared.cache_clear()
    with pytest.raises(tasks.TaskError, match="includes 'b'"):
        tasks.names("corpora")
    tasks._declared.cache_clear()


def test_distinct_corpus_is_sorted_stripped_and_sampled_in_order():
    snli = tasks.corpus("snli")
    assert snli == sorted(set(snli)) and all(s == s.strip() and s for s in snli)
    frame = pd.concat([data.snli("dev"), data.snli("test")])
    expected = {s.strip() for c in ("sentence1", "sentence2") for s in frame[c] if s.strip()}
    assert set(snli) == expected
    sample = tasks.corpus("snli", 500, seed=3)
    assert len(sample) == 500 and sample == sorted(sample) and set(sample) <= set(snli)
    assert sample == tasks.corpus("snli", 500, seed=3)
    assert sample != tasks.corpus("snli", 500, seed=4)
    assert tasks.corpus("snli", 10**9) == snli


def test_line_corpus_keeps_file_order_and_includes():
    lm = tasks.corpus("lm")
    wiki = data.wikitext2("valid")["text"].tolist()
    assert lm[: len(wiki)] == wiki
    assert tasks.corpus("frequency") == lm + tasks.corpus("snli")


def test_windows_are_cut_per_source_and_full_length():
    windows = tasks.windows("lm", 64)
    assert all(len(w.split()) == 64 for w in windows)
    first = data.word_windows(data.wikitext2("valid")["text"].tolist(), 64)
    assert windows[: len(first) - 1] == first[:-1]  # the first source, its short tail dropped
    sample = tasks.windows("lm", 64, 20, seed=1)
    assert len(sample) == 20 and set(sample) <= set(windows)
    assert [windows.index(w) for w in sample] == sorted(windows.index(w) for w in sample)


def test_sts_sentences_are_shared_and_sorted():
    sentences = tasks.sts_sentences(["STS16", "STS-B"])
    assert sentences == sorted(set(sentences))
    assert len(sentences) == 3979  # 1,870 + 2,552 distinct, 443 in both
    subset = tasks.sts_task("STS-B", max_pairs=50, seed=2)
    assert len(subset) == 50 and subset.index.is_monotonic_increasing
    assert len(tasks.sts_task("STS-B-dev")) == len(data.stsbenchmark("dev"))


def test_pair_task_indexes_each_sentence_once():
    task = tasks.classification_task("rte", max_items=200, seed=0)
    assert task["pairs"].shape == (200, 2) and task["n_items"] == 200
    assert len(task["sentences"]) == len(set(task["sentences"]))
    assert task["pairs"].max() == len(task["sentences"]) - 1
    single = tasks.classification_task("polarity", max_items=100)
    assert single["pairs"] is None and set(np.unique(single["targets"])) <= {0, 1}


def test_every_declaration_reads_the_same_schema_from_the_hub(fake_hub, monkeypatch,  # noqa: F811
                                                              tmp_path):
    """With no local files, each corpus and task comes from the (fake) hub and yields the
    same kinds of values as from the data root."""
    local_sts = {name: list(tasks.sts_task(name).columns) for name in tasks.names("sts")}
    monkeypatch.setenv("ANISOTROPY_DATA", str(tmp_path))
    for name in tasks.names("corpora"):
        texts = tasks.corpus(name)
        assert texts and all(isinstance(t, str) for t in texts), name
    for name in tasks.names("sts"):
        assert list(tasks.sts_task(name).columns) == local_sts[name], name
    for name in tasks.names("classification"):
        task = tasks.classification_task(name)
        assert len(task["targets"]) == task["n_items"] > 0, name
    assert fake_hub  # everything above came through the hub
