"""Extraction, word alignment, pooling and cache keys on seeded mock models (mteb's habit).

The mock models are tiny transformers (2 layers, 16 dimensions) with seeded random weights
and a word-piece tokenizer trained here on a few sentences, saved to a temporary folder and
loaded through the same registry path as any local model directory. Nothing is downloaded
and no real model is loaded, so these tests run offline in seconds and pin the plumbing
that the smoke notebooks only exercise end to end.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
tokenizers = pytest.importorskip("tokenizers")

from anisotropy.inputs import models  # noqa: E402

CORPUS = ["The cat sat on the mat.", "Don't go to school today, said the teacher!",
          "A man is playing a guitar.", "Bank", "Unbelievably, the quick brown fox jumps."]


def _tokenizer(folder, decoder: bool, bos: bool = True):
    from tokenizers import Tokenizer, pre_tokenizers, trainers
    from tokenizers import models as tmodels
    from tokenizers.processors import TemplateProcessing

    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"] if not decoder else ["<pad>", "<unk>",
                                                                         "<s>", "</s>"]
    model = tmodels.WordPiece(unk_token=specials[1])
    tokenizer = Tokenizer(model)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.train_from_iterator(CORPUS * 3, trainers.WordPieceTrainer(
        vocab_size=120, special_tokens=specials, min_frequency=1))
    if decoder:
        if bos:  # like SmolLM2's tokenizer: position 0 is a special token
            tokenizer.post_processor = TemplateProcessing(single="<s> $A", special_tokens=[
                ("<s>", tokenizer.token_to_id("<s>"))])
        fast = transformers.PreTrainedTokenizerFast(
            tokenizer_object=tokenizer, pad_token="<pad>", unk_token="<unk>", bos_token="<s>",
            eos_token="</s>")
    else:
        cls, sep = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
        tokenizer.post_processor = TemplateProcessing(single="[CLS] $A [SEP]", special_tokens=[
            ("[CLS]", cls), ("[SEP]", sep)])
        fast = transformers.PreTrainedTokenizerFast(
            tokenizer_object=tokenizer, pad_token="[PAD]", unk_token="[UNK]",
            cls_token="[CLS]", sep_token="[SEP]")
    fast.save_pretrained(folder)
    return fast


def make_mock(folder, decoder: bool = False, seed: int = 0, bos: bool = True) -> str:
    """Save a seeded tiny encoder (BERT) or decoder (GPT-2) with its tokenizer; returns
    the folder, which the registry resolves as a local model. ``bos=False`` gives a decoder
    whose first token is a word (as GPT-2's), so excluding position 0 can empty a
    one-token sentence."""
    folder.mkdir(parents=True, exist_ok=True)
    tokenizer = _tokenizer(folder, decoder, bos)
    torch.manual_seed(seed)
    if decoder:
        config = transformers.GPT2Config(vocab_size=len(tokenizer), n_embd=16, n_layer=2,
                                         n_head=2, n_positions=512)
        model = transformers.GPT2LMHeadModel(config)
    else:
        config = transformers.BertConfig(vocab_size=len(tokenizer), hidden_size=16,
                                         num_hidden_layers=2, num_attention_heads=2,
                                         intermediate_size=32, max_position_embeddings=512)
        model = transformers.BertModel(config)
    model.save_pretrained(folder)
    return str(folder)


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("ANISOTROPY_CACHE", str(tmp_path / "cache"))


@pytest.fixture
def encoder(tmp_path):
    return models.load(make_mock(tmp_path / "bert"))


@pytest.fixture
def decoder(tmp_path):
    return models.load(make_mock(tmp_path / "gpt", decoder=True))


@pytest.fixture
def decoder_without_bos(tmp_path):
    return models.load(make_mock(tmp_path / "gpt-nobos", decoder=True, bos=False))


def test_mock_models_resolve_as_local_models(encoder, decoder):
    assert encoder.resolved.source == "local-path" and encoder.resolved.kind == "encoder"
    assert decoder.resolved.kind == "decoder" and decoder.is_decoder
    assert (encoder.n_layers, encoder.dim) == (2, 16)


def test_extraction_shapes_layers_and_word_alignment(encoder):
    tokens = encoder.encode_tokens(CORPUS, progress=False)
    assert tokens.layers == (0, 1, 2)
    assert tokens.layer(2).shape == (len(tokens), 16) and tokens.layer(2).dtype == np.float32
    table = tokens.token_table()
    # [CLS] and [SEP] per sentence are special; everything else belongs to a word
    assert int(table["special"].sum()) == 2 * len(CORPUS)
    words = tokens.word_table()
    assert words[words["sentence"] == 1]["word"].tolist()[:3] == ["Don't", "go", "to"]
    # a word split into several subwords is one word whose vector is their mean
    long_word = words[(words["sentence"] == 4) & (words["word"] == "Unbelievably")]
    assert len(long_word) == 1 and int(long_word["n_tokens"].iloc[0]) > 1
    piece_rows = table.index[(table["sentence"] == 4) & (table["word_index"] == 0)]
    assert len(piece_rows) == int(long_word["n_tokens"].iloc[0])
    X, word_table = tokens.word_vectors(1)
    assert X.shape == (len(word_table), 16)
    row = int(np.flatnonzero((word_table["sentence"] == 4).to_numpy()
                             & (word_table["word"] == "Unbelievably").to_numpy())[0])
    np.testing.assert_allclose(X[row], tokens.layer(1)[piece_rows].mean(axis=0), atol=1e-6)


def test_forward_pass_is_what_the_cache_holds(encoder):
    tokens = encoder.encode_tokens(CORPUS[:1], progress=False)
    batch = encoder.tokenizer(CORPUS[:1], return_tensors="pt")
    with torch.inference_mode():
        hidden = encoder.model(**batch, output_hidden_states=True).hidden_states
    for layer in (0, 1, 2):
        np.testing.assert_allclose(tokens.layer(layer), hidden[layer][0].numpy(), atol=1e-5)


def test_cache_keys_follow_sentences_layers_and_weights(tmp_path, encoder):
    first = encoder.encode_tokens(CORPUS, progress=False)
    again = encoder.encode_tokens(CORPUS, progress=False)
    assert again.path == first.path  # same sentences and weights: one cache entry
    other_order = encoder.encode_tokens(CORPUS[::-1], progress=False)
    assert other_order.path != first.path
    fewer_layers = encoder.encode_tokens(CORPUS, layers=[2], progress=False)
    assert fewer_layers.path != first.path
    np.testing.assert_array_equal(fewer_layers.layer(2), first.layer(2))
    reseeded = models.load(make_mock(tmp_path / "bert-seed-1", seed=1))
    assert reseeded.resolved.fingerprint != encoder.resolved.fingerprint
    changed = reseeded.encode_tokens(CORPUS, progress=False)
    assert changed.path != first.path
    assert not np.allclose(changed.layer(2), first.layer(2))


@pytest.mark.parametrize("which", ["decoder", "decoder_without_bos"])
def test_the_pooling_paths_agree_on_a_decoder(which, request):
    """Sentence means from the forward pass (claim 5), from cached token vectors (claim 3)
    and from cached token rows (claim 4) agree, with and without position 0; without a
    BOS token, "Bank" is one token at position 0 and keeps it when position 0 is dropped."""
    decoder = request.getfixturevalue(which)
    sentences = [*CORPUS, "Hello"]
    tokens = decoder.encode_tokens(sentences, progress=False)
    for exclude, exclude_sink in (((), False), ((0,), True)):
        direct = decoder.encode_sentences(sentences, "mean", exclude_sink=exclude_sink,
                                          progress=False)
        cached = tokens.sentence_means(decoder.n_layers, exclude)
        np.testing.assert_allclose(cached, direct, atol=1e-5)
    # claim 4 pools non-special rows without position 0; every sentence keeps a row
    rows = tokens.sentence_rows(np.arange(len(sentences)), (0,))
    ids, pooled = tokens.pool(np.asarray(tokens.layer(decoder.n_layers))[rows], rows)
    assert ids.tolist() == list(range(len(sentences))) and np.isfinite(pooled).all()
    one_token = [i for i, s in enumerate(sentences)
                 if (tokens.sentence_index == i).sum() == 1]
    if which == "decoder_without_bos":
        assert one_token, "the test needs a one-token sentence"
        kept = rows[tokens.sentence_index[rows] == one_token[0]]
        assert tokens.position[kept].tolist() == [0]  # its only token, at position 0, stays
    with pytest.raises(ValueError, match="increasing"):
        tokens.pool(np.zeros((2, 16)), np.array([3, 1]))
    ids, _ = tokens.pool(np.ones((1, 16)), rows[:1])
    assert ids.tolist() == [0]  # only the sentences that have rows


def test_layer_out_of_range_and_empty_sentence(encoder):
    with pytest.raises(ValueError, match="Layer 3 is out of range.*0 \\(input embeddings\\) to 2"):
        encoder.encode_tokens(CORPUS, layers=[3])
    with pytest.raises(ValueError, match="empty or non-string sentences"):
        encoder.encode_tokens(["fine", " "], progress=False)


def test_inductive_fit_never_sees_the_scored_sentences(encoder):
    """Claim 4's inductive mode fits on the other tasks' sentences minus those of the scored
    task: STS-B test shares most of its sentences with STS12-16 (issue: leakage)."""
    from anisotropy.claims.cluster_isotropy import methods as ci
    from anisotropy.inputs.tasks import sts_sentences, sts_task

    tasks = ["STS14", "STS-B"]
    sentences = sts_sentences(tasks)
    tokens = encoder.encode_tokens(sentences, layers=[2], progress=False)
    sampled = []
    original = ci._sample

    def spy(X, limit, seed):  # the fit rows are drawn through _sample; keep what it drew
        out = original(X, limit, seed)
        if X.shape[1] == 1:
            sampled.append(out[:, 0])
        return out

    ci._sample = spy
    try:
        table = ci.evaluate_methods(tokens, 2, sentences, tasks, mode="inductive",
                                    n_clusters=2, n_components=1, fit_max_tokens=400,
                                    iso_max_tokens=400,
                                    methods=("Baseline", "Mean"), progress=False)
    finally:
        ci._sample = original
    index = {s: i for i, s in enumerate(sentences)}
    for task, rows in zip(tasks, sampled, strict=True):  # tasks are fitted in order
        frame = sts_task(task)
        scored = {index[s] for s in frame["sentence1"]} | {index[s] for s in frame["sentence2"]}
        assert not scored & set(tokens.sentence_index[rows].tolist()), task
    assert (table["fit overlap"] == 0).all()
    shared = table.groupby("task")["excluded shared"].first()
    assert (shared > 0).all()  # the two tasks do share sentences, and they were left out
    fit = table.groupby("task")["fit pool"].first()
    assert (table["fit sentences"] <= table["fit pool"]).all()
    frames = {t: sts_task(t) for t in tasks}
    unique = {t: len(set(frames[t]["sentence1"]) | set(frames[t]["sentence2"])) for t in tasks}
    assert fit["STS-B"] == unique["STS14"] - shared["STS-B"]
    assert fit["STS14"] == unique["STS-B"] - shared["STS14"]


def test_a_released_encoder_reads_its_cache_and_refuses_a_forward_pass(encoder):
    """Encoder.release frees the weights: cached vectors are still read, a new forward
    pass is refused by name; free_memory runs malloc_trim where glibc has it."""
    import sys

    from anisotropy.inputs.memory import free_memory

    before = encoder.encode_tokens(CORPUS[:2], progress=False).layer(1).copy()
    encoder.release()
    assert encoder.model is None
    np.testing.assert_array_equal(encoder.encode_tokens(CORPUS[:2], progress=False).layer(1),
                                  before)
    with pytest.raises(RuntimeError, match="weights were released"):
        encoder.encode_tokens(CORPUS[2:4], progress=False)
    import os

    expected = sys.platform.startswith("linux") and "MALLOC_TRIM_THRESHOLD_" not in os.environ
    assert free_memory() is expected


def test_batches_are_bounded_by_the_hidden_states_memory(encoder):
    """One batch's hidden states of every layer stay under HIDDEN_STATES_BYTES."""
    from anisotropy.inputs import extraction

    per_token = (encoder.n_layers + 1) * encoder.dim * 4
    assert extraction.bounded_batch_tokens(encoder, 8192) == min(
        8192, extraction.HIDDEN_STATES_BYTES // per_token)
    big = type("Big", (), {"n_layers": 30, "dim": 576})()
    assert extraction.bounded_batch_tokens(big, 8192) == 939
    assert extraction.bounded_batch_tokens(big, 100) == 100


def test_free_memory_keeps_what_the_runner_asked_glibc_to_keep(monkeypatch):
    from anisotropy.inputs.memory import free_memory

    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", str(2**40))
    assert free_memory() is False


def test_row_file_writes_blocks_out_of_order_even_when_pwrite_is_short(tmp_path, monkeypatch):
    """The cache's row writer: blocks written in any order, each at its row, give the same
    .npy as np.save; a pwrite that writes fewer bytes than asked is continued."""
    import os

    from anisotropy.inputs.extraction import _RowFile

    rows = np.random.default_rng(0).standard_normal((11, 5)).astype(np.float32)
    real_pwrite = os.pwrite
    monkeypatch.setattr(os, "pwrite", lambda fd, data, at: real_pwrite(fd, data[:7], at))
    out = _RowFile(tmp_path / "rows.npy", rows.shape)
    for start, stop in ((6, 11), (0, 2), (2, 6)):
        out.write(start, rows[start:stop])
    out.close()
    np.testing.assert_array_equal(np.load(tmp_path / "rows.npy"), rows)


def test_row_file_writes_by_seek_where_there_is_no_pwrite(tmp_path, monkeypatch):
    import os

    from anisotropy.inputs.extraction import _RowFile

    rows = np.arange(12, dtype=np.float32).reshape(4, 3)
    monkeypatch.delattr(os, "pwrite")
    out = _RowFile(tmp_path / "rows.npy", rows.shape)
    out.write(2, rows[2:])
    out.write(0, rows[:2])
    out.close()
    np.testing.assert_array_equal(np.load(tmp_path / "rows.npy"), rows)


def test_background_writes_put_every_batch_at_its_rows(encoder):
    """Many small batches, each written by the writer thread while the next batch runs:
    every sentence's rows are its own forward pass's hidden states."""
    from anisotropy.inputs.extraction import extract_token_embeddings

    sentences = [f"{s} {n}" for n in range(4) for s in CORPUS]
    tokens = extract_token_embeddings(encoder, sentences, [0, 2], batch_tokens=24,
                                      progress=False)
    for index, sentence in enumerate(sentences):
        batch = encoder.tokenizer([sentence], return_tensors="pt")
        with torch.inference_mode():
            hidden = encoder.model(**batch, output_hidden_states=True).hidden_states
        rows = np.flatnonzero(tokens.sentence_index == index)
        for layer in (0, 2):
            np.testing.assert_allclose(tokens.layer(layer)[rows], hidden[layer][0].numpy(),
                                       atol=1e-5)


def test_a_failed_background_write_raises_and_caches_nothing(encoder, monkeypatch, tmp_path):
    """A write that fails in the writer thread stops the extraction with its error, and
    no cache entry is left behind; the next run builds the entry whole."""
    from anisotropy.inputs import extraction

    calls = []
    real_write = extraction._RowFile.write

    def failing(self, first_row, rows):
        calls.append(first_row)
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        real_write(self, first_row, rows)

    monkeypatch.setattr(extraction._RowFile, "write", failing)
    with pytest.raises(OSError, match="No space left"):
        extraction.extract_token_embeddings(encoder, CORPUS, [1], batch_tokens=24,
                                            progress=False)
    assert not list((tmp_path / "cache").glob("tokens/*/meta.json"))
    monkeypatch.setattr(extraction._RowFile, "write", real_write)
    tokens = extraction.extract_token_embeddings(encoder, CORPUS, [1], batch_tokens=24,
                                                 progress=False)
    assert tokens.layer(1).shape[0] == len(tokens)
    assert len(list((tmp_path / "cache").glob("tokens/*/meta.json"))) == 1


@pytest.mark.parametrize("extract", ["extract_token_embeddings", "extract_pooled"])
def test_a_full_disk_stops_extraction_before_any_forward_pass(encoder, monkeypatch, tmp_path,
                                                             free_disk, extract):
    """With less free space than the entry needs, extraction raises CacheFull, naming the
    sizes, before its first forward pass, and leaves no cache entry."""
    from anisotropy.inputs import cache, extraction

    forwards = []
    monkeypatch.setattr(extraction, "_forward", lambda *args: forwards.append(1))
    free_disk(100)
    args = (CORPUS, [0, 1]) if extract == "extract_token_embeddings" else (CORPUS,)
    with pytest.raises(cache.CacheFull, match="bert's .* needs .* MB on the disk of "
                       ".*cache, which has 0.0 MB free"):
        getattr(extraction, extract)(encoder, *args, progress=False)
    assert forwards == []
    assert not list((tmp_path / "cache").glob("*/*/meta.json"))


def test_the_background_writer_holds_one_pending_write():
    """submit waits for the pending write, so at most two batches are alive at a time."""
    import threading

    from anisotropy.inputs.extraction import _BackgroundWriter

    running, overlaps, lock = [0], [], threading.Lock()

    def work(seconds):
        import time

        with lock:
            running[0] += 1
            overlaps.append(running[0])
        time.sleep(seconds)
        with lock:
            running[0] -= 1

    writer = _BackgroundWriter()
    for _ in range(4):
        writer.submit(work, 0.02)
    writer.close()
    assert max(overlaps) == 1 and running[0] == 0
