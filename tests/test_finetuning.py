"""Claim 4's fine-tuning analysis: the in-batch method against ClusterIsotropy and closed
forms, its gradients, batching, the task readers, a cached run on a seeded mock BERT, and the
checks' per-seed changes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from anisotropy.claims.cluster_isotropy import finetuning as ft  # noqa: E402
from anisotropy.geometry import metrics  # noqa: E402
from anisotropy.geometry.transforms import ClusterIsotropy  # noqa: E402
from anisotropy.inputs import cache, models  # noqa: E402


def _blobs(n=60, dim=8, k=3, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=10, size=(k, dim))
    return np.concatenate([c + rng.normal(size=(n // k, dim)) for c in centres])


@pytest.mark.parametrize("k, d", [(3, 2), (3, 0), (2, 5)])
def test_batch_method_equals_cluster_isotropy_on_the_batch(k, d):
    X = _blobs()
    expected = ClusterIsotropy(k, d, "kmeans", seed=4, n_init=1).fit_transform(X)
    got = ft.batch_cluster_isotropy(torch.tensor(X), k, d, seed=4).numpy()
    np.testing.assert_allclose(got, expected, atol=1e-9)


def test_one_cluster_no_direction_is_centring():
    X = np.random.default_rng(1).normal(size=(10, 4))
    got = ft.batch_cluster_isotropy(torch.tensor(X), 1, 0).numpy()
    np.testing.assert_allclose(got, X - X.mean(axis=0), atol=1e-12)


def test_more_clusters_than_vectors_and_removed_rank_are_capped():
    X = torch.tensor(np.random.default_rng(2).normal(size=(3, 5)))
    out = ft.batch_cluster_isotropy(X, 27, 12)  # 3 clusters of one vector each: all zero
    assert torch.allclose(out, torch.zeros_like(out))


def test_gradients_flow_through_means_and_projection():
    H = torch.tensor(_blobs(30, 6), requires_grad=True)
    out = ft.batch_cluster_isotropy(H, 3, 1)
    (out ** 2).sum().backward()
    assert H.grad is not None and torch.isfinite(H.grad).all() and H.grad.abs().sum() > 0


@pytest.mark.parametrize("H, k, d, message", [
    (np.zeros((1, 4)), 2, 1, "at least 2 vectors"),
    (np.zeros(4), 2, 1, "2-d"),
    (np.ones((4, 3)), 0, 1, "n_clusters"),
    (np.ones((4, 3)), 2, -1, "n_components"),
    (np.full((4, 3), np.nan), 2, 1, "NaN"),
])
def test_batch_method_rejects_bad_input(H, k, d, message):
    with pytest.raises(ValueError, match=message):
        ft.batch_cluster_isotropy(torch.tensor(H), k, d)


def test_batches_cover_every_item_once_and_never_leave_one_alone():
    parts = ft.batches(65, 32)
    assert [p.size for p in parts] == [32, 33]
    assert sorted(np.concatenate(parts).tolist()) == list(range(65))
    order = np.random.default_rng(0).permutation(10)
    assert np.concatenate(ft.batches(10, 4, order)).tolist() == order.tolist()
    with pytest.raises(ValueError, match="batch_size"):
        ft.batches(10, 1)
    with pytest.raises(ValueError, match="at least 2"):
        ft.batches(1, 4)


def test_centroid_norm_ratio_closed_forms_and_invariances():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(50, 6))
    assert metrics.centroid_norm_ratio(np.vstack([X, -X])) == pytest.approx(0, abs=1e-12)
    ray = np.outer(rng.uniform(1, 3, size=20), rng.normal(size=6))
    assert metrics.centroid_norm_ratio(ray) == pytest.approx(1)
    Q, _ = np.linalg.qr(rng.normal(size=(6, 6)))
    base = metrics.centroid_norm_ratio(X + 2)
    assert metrics.centroid_norm_ratio((X + 2) @ Q) == pytest.approx(base)
    assert metrics.centroid_norm_ratio(7.5 * (X + 2)) == pytest.approx(base)
    assert 0 < base < 1
    with pytest.raises(ValueError, match="non-zero"):
        metrics.centroid_norm_ratio(np.zeros((3, 2)))


def test_settings_reject_bad_values():
    with pytest.raises(ValueError, match="batch_size"):
        ft.FineTuning(batch_size=1)
    with pytest.raises(ValueError, match="epochs"):
        ft.FineTuning(epochs=0)
    with pytest.raises(ValueError, match="learning_rate"):
        ft.FineTuning(learning_rate=0)


def test_pair_tasks_read_rte_and_wic():
    rte = ft.pair_task("rte", "dev", "[SEP]")
    assert len(rte["first"]) == len(rte["second"]) == rte["labels"].size
    assert set(np.unique(rte["labels"])) == {0, 1}
    wic = ft.pair_task("wic", "dev", "[SEP]", n_items=20, seed=1)
    assert len(wic["first"]) == 20 and all(" [SEP] " in text for text in wic["first"])
    assert ft.pair_task("wic", "dev", "[SEP]", n_items=20, seed=1)["first"] == wic["first"]
    with pytest.raises(ValueError, match="Unknown fine-tuning task 'mrpc'"):
        ft.pair_task("mrpc", "dev", "[SEP]")


@pytest.fixture
def mock_bert(tmp_path, monkeypatch):
    """A seeded tiny BERT whose tokenizer also encodes text pairs."""
    from test_mock_encoder import make_mock
    from tokenizers.processors import TemplateProcessing

    monkeypatch.setenv("ANISOTROPY_CACHE", str(tmp_path / "cache"))
    folder = make_mock(tmp_path / "bert")
    fast = transformers.AutoTokenizer.from_pretrained(folder)
    cls, sep = fast.convert_tokens_to_ids(["[CLS]", "[SEP]"])
    fast.backend_tokenizer.post_processor = TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", cls), ("[SEP]", sep)])
    fast.save_pretrained(folder)
    return models.load(folder)


def test_fine_tune_runs_is_cached_and_feeds_the_checks(mock_bert):
    settings = ft.FineTuning(epochs=1, batch_size=8, max_length=32, n_clusters=2,
                             n_components=1)
    runs = ft.run_seeds(mock_bert, "rte", settings=settings, n_seeds=2, n_train=24,
                        n_dev=40, progress=False)
    assert (runs["n_dev"] == 40).all()
    assert list(runs["condition"]) == ["pretrained", "plain", "method", "plain", "method"]
    tuned = runs[runs["condition"] != "pretrained"]
    assert tuned["accuracy"].between(0, 100).all() and (tuned["n_train"] == 24).all()
    assert tuned["log10_iw"].le(0).all() and tuned["centroid_ratio_cls"].between(0, 1).all()
    assert runs[runs["condition"] == "plain"]["log10_iw_offline"].notna().all()
    before = cache.stats()["finetune"]["misses"]
    again = ft.run_seeds(mock_bert, "rte", settings=settings, n_seeds=2, n_train=24,
                         n_dev=40, progress=False)
    assert cache.stats()["finetune"]["misses"] == before  # every run came from the cache
    pd.testing.assert_frame_equal(again.drop(columns="seconds"), runs.drop(columns="seconds"))
    values = ft.check_values(runs)["rte"]
    plain = runs[runs["condition"] == "plain"]["accuracy"].to_numpy()
    method = runs[runs["condition"] == "method"]["accuracy"].to_numpy()
    accuracy = values["accuracy"]
    value, interval, details = accuracy.value, accuracy.interval, accuracy.details
    assert value == pytest.approx(np.mean(method - plain))
    assert interval.low <= value <= interval.high and details["seeds"] == [0, 1]
    assert {"pretrained", "fine-tuned (plain)",
            "fine-tuned (method)"} <= set(values["zero_mean"])
    with pytest.raises(ValueError, match="n_seeds must be >= 2"):
        ft.run_seeds(mock_bert, "rte", settings=settings, n_seeds=1)


def test_check_values_needs_two_seeds():
    runs = pd.DataFrame([
        {"task": "rte", "condition": "pretrained", "seed": None, "centroid_ratio_cls": 0.5},
        {"task": "rte", "condition": "plain", "seed": 0, "accuracy": 60.0, "log10_iw": -3.0,
         "centroid_ratio_cls": 0.1},
        {"task": "rte", "condition": "method", "seed": 0, "accuracy": 58.0, "log10_iw": -1.0,
         "centroid_ratio_cls": 0.1}])
    with pytest.raises(ValueError, match="at least 2 seeds"):
        ft.check_values(runs)
