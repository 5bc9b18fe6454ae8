"""Loaded models: :class:`Encoder` (a ``transformers`` model giving per-layer token vectors,
cached on disk, and pooled sentence vectors) and :class:`StaticVectors` (GloVe)."""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from anisotropy.inputs import cache
from anisotropy.inputs.devices import select_device, select_dtype
from anisotropy.inputs.extraction import (
    TokenEmbeddings,
    extract_pooled,
    extract_token_embeddings,
    pool_sentences,
)
from anisotropy.inputs.memory import free_memory
from anisotropy.inputs.resolved import ModelNotAvailable, ResolvedModel

__all__ = ["Encoder", "StaticVectors", "is_causal_lm", "DECODER_MODEL_TYPES"]


# --------------------------------------------------------------------------- static vectors


class StaticVectors:
    """Static word vectors (GloVe): a frequency-ordered vocabulary and a matrix.

    Parameters
    ----------
    resolved : ResolvedModel
        The resolved static model (:func:`anisotropy.inputs.models.resolve`): its folder
        holds ``glove_6B_50d_emb.npy`` and ``glove_6B_index.parquet``.

    Attributes
    ----------
    vocab : list of str
        Words; for GloVe 6B the order is descending corpus frequency, so the rank is a
        frequency proxy.
    vectors : ndarray of shape (n_words, dim), float32, memory-mapped
    """

    def __init__(self, resolved: ResolvedModel):
        self.resolved = resolved
        root = Path(resolved.path)
        self.vectors = np.load(root / "glove_6B_50d_emb.npy", mmap_mode="r")
        self.vocab = pd.read_parquet(root / "glove_6B_index.parquet")["index"].tolist()
        self.name = resolved.name
        self.dim = self.vectors.shape[1]
        self.kind = "static"

    def __repr__(self) -> str:
        return f"StaticVectors({self.name!r}, n={len(self.vocab)}, dim={self.dim})"

    def lookup(self, words: Sequence[str]) -> tuple[np.ndarray, list[str]]:
        """Vectors of the words present in the vocabulary, and those words (in input order).

        Parameters
        ----------
        words : sequence of str
            Words to look up (exact, case-sensitive match); words not in the vocabulary are
            skipped, repeated words kept.

        Returns
        -------
        vectors : ndarray of shape (n_found, dim), float32
            The found words' vectors, a copy (not memory-mapped).
        found : list of str
            The words found, in input order.
        """
        index = {word: i for i, word in enumerate(self.vocab)}
        found = [w for w in words if w in index]
        return np.asarray(self.vectors[[index[w] for w in found]], dtype=np.float32), found


# --------------------------------------------------------------------------- encoder


#: ``model_type`` values of decoder-only families whose configs may lack ``architectures``.
DECODER_MODEL_TYPES = frozenset({
    "gpt2", "gpt_neo", "gpt_neox", "gptj", "opt", "bloom", "falcon", "llama", "mistral",
    "mixtral", "qwen2", "qwen3", "phi", "phi3", "gemma", "gemma2", "gemma3_text", "olmo",
    "olmo2", "smollm3"})


def is_causal_lm(config: object) -> bool:
    """Whether a ``transformers`` config describes a left-to-right (decoder-only) model.

    True when the config says ``is_decoder``, when its ``model_type`` is a known decoder
    family, or when its declared architecture is a causal LM (``*ForCausalLM`` or
    ``*LMHeadModel``). Encoders (BERT, MPNet, RoBERTa: ``*ForMaskedLM``, ``*Model``) are False.
    The answer decides sink handling (position 0 is excluded from pooling under a decoder).

    Parameters
    ----------
    config : object
        A ``transformers`` model config (any object with some of the attributes
        ``is_decoder``, ``model_type`` and ``architectures``).

    Returns
    -------
    bool
        True for a decoder-only model.
    """
    if getattr(config, "is_decoder", False):
        return True
    if getattr(config, "model_type", None) in DECODER_MODEL_TYPES:
        return True
    architectures = getattr(config, "architectures", None) or []
    return any(a.endswith(("ForCausalLM", "LMHeadModel")) for a in architectures)


@dataclass
class Encoder:
    """A transformer turned into per-layer token vectors and pooled sentence vectors.

    Attributes
    ----------
    resolved : ResolvedModel
        A resolved model (:func:`anisotropy.inputs.models.resolve`; load one by name with
        :func:`anisotropy.inputs.models.load`). Once loaded, its ``kind`` (when it was
        ``"unknown"``) and an empty ``fingerprint`` (the sha256 of the weight files) are
        filled in.
    max_length : int or None
        Longest input in model tokens: given, or None (default) for the model's limit;
        once loaded, the smaller of the two, capped at 512.
    device : str
        Where forward passes run: ``"auto"`` (default: CUDA, else MPS, else CPU), or a
        device name; once loaded, the device chosen
        (:func:`anisotropy.inputs.devices.select_device`).
    dtype : str
        Forward-pass precision: ``"float32"`` (default), or ``"float16"``/``"bfloat16"`` on
        an accelerator. Hidden states are always returned as float32.
    model : transformers.PreTrainedModel or None
        The loaded model, in eval mode on ``device``; None after :meth:`release`. Not a
        constructor argument.
    tokenizer : transformers.PreTrainedTokenizerFast
        The model's fast tokenizer (decoders pad with their end-of-sequence token). Not a
        constructor argument.
    """

    resolved: ResolvedModel
    max_length: int | None = None
    device: str = "auto"
    dtype: str = "float32"
    model: object = field(init=False, repr=False)
    tokenizer: object = field(init=False, repr=False)

    def __post_init__(self) -> None:
        import torch
        from transformers import AutoModel, AutoTokenizer

        self.device = select_device(self.device)
        self.dtype = select_dtype(self.dtype, self.device.split(":")[0])
        if isinstance(self.resolved, str):
            raise TypeError(f"Encoder takes a ResolvedModel, got {self.resolved!r}; load a "
                            "model by name with anisotropy.inputs.models.load(name).")
        path = self.resolved.path
        self.tokenizer = AutoTokenizer.from_pretrained(path, trust_remote_code=False)
        if not getattr(self.tokenizer, "is_fast", False):
            raise ModelNotAvailable(f"{self.resolved.name}: a fast tokenizer is required "
                                    "(for offsets and word alignment).")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.model = AutoModel.from_pretrained(path, dtype=getattr(torch, self.dtype),
                                                   trust_remote_code=False)
        self.model.to(self.device)
        self.model.eval()
        config = self.model.config
        self.is_decoder = is_causal_lm(config)
        if self.resolved.kind == "unknown":
            kind = "decoder" if self.is_decoder else "encoder"
            self.resolved = ResolvedModel(**{**asdict(self.resolved), "kind": kind})
        if self.tokenizer.pad_token is None:  # decoders: pad with eos (never attended)
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.n_layers = int(config.num_hidden_layers)
        self.dim = int(config.hidden_size)
        limit = getattr(config, "max_position_embeddings", 512) or 512
        if config.model_type in {"bert", "mpnet", "roberta", "xlm-roberta"}:
            limit -= 2 if config.model_type != "bert" else 0
        self.max_length = int(min(self.max_length or 512, limit, 512))
        if not self.resolved.fingerprint:
            self.resolved = ResolvedModel(**{**asdict(self.resolved),
                                             "fingerprint": _weights_fingerprint(Path(path))})

    @property
    def name(self) -> str:
        """The model's registry name (``resolved.name``)."""
        return self.resolved.name

    def release(self) -> None:
        """Free the model's weights (the tokenizer and the description stay); cached
        vectors can still be read, and a forward pass afterwards raises."""
        self.model = None
        free_memory()

    def __repr__(self) -> str:
        return (f"Encoder({self.name!r}, {self.resolved.kind}, layers=0..{self.n_layers}, "
                f"dim={self.dim}, source={self.resolved.source}, device={self.device}, "
                f"dtype={self.dtype})")

    def describe(self) -> dict:
        """The results file's record: :meth:`ResolvedModel.describe` plus device and dtype.

        Returns
        -------
        dict
            :meth:`ResolvedModel.describe`'s fields with ``device`` and ``dtype``.
        """
        return {**self.resolved.describe(), "device": self.device, "dtype": self.dtype}

    def check_layers(self, layers: Sequence[int] | None) -> list[int]:
        """All layers 0..L when None; else the given ones, each checked to be in range.

        Parameters
        ----------
        layers : sequence of int or None
            Layer numbers, 0 (the input-embedding output) to ``n_layers``.

        Returns
        -------
        list of int
            ``[0, ..., n_layers]`` for None; else ``layers`` as ints, in the given order.

        Raises
        ------
        ValueError
            When a layer is not an integer or out of range.
        """
        if layers is None:
            return list(range(self.n_layers + 1))
        out = []
        for layer in layers:
            if not isinstance(layer, (int, np.integer)) or not 0 <= layer <= self.n_layers:
                raise ValueError(
                    f"Layer {layer!r} is out of range for {self.name}: valid layers are "
                    f"0 (input embeddings) to {self.n_layers}."
                )
            out.append(int(layer))
        return out

    def encode_tokens(self, sentences: Sequence[str], layers: Sequence[int] | None = None,
                      *, batch_tokens: int = 8192, progress: bool = True,
                      truncate: bool = False) -> TokenEmbeddings:
        """Per-layer token vectors of ``sentences``, cached on disk.

        Layer 0 is ``hidden_states[0]``, the input-embedding output (for BERT-like models
        it includes position embeddings and the embedding LayerNorm; for Llama it is the
        token embedding). Each sentence is split into words by :data:`WORD_PATTERN`; every
        subword token records the word it overlaps (``-1`` for special or space tokens).

        Parameters
        ----------
        sentences : sequence of str
            Non-empty texts.
        layers : sequence of int, optional
            Layers to store (:meth:`check_layers`); default every layer, 0 to ``n_layers``.
        batch_tokens : int, optional
            Most tokens (padding included) in a batch, default 8192; lowered to keep one
            batch's hidden states within
            :data:`~anisotropy.inputs.extraction.HIDDEN_STATES_BYTES`
            (:func:`~anisotropy.inputs.extraction.bounded_batch_tokens`). Not part of the
            cache key.
        progress : bool, optional
            Show a progress bar (default True).
        truncate : bool, optional
            Cut sentences longer than ``max_length`` tokens to that length instead of raising
            (default False); part of the cache key.

        Returns
        -------
        TokenEmbeddings
            Memory-mapped per-layer arrays plus token ids, strings, sentence index,
            position, word index and special-token mask.

        Raises
        ------
        ValueError
            When a layer is out of range, ``sentences`` is empty or holds an empty or
            non-string item, or a sentence is longer than ``max_length`` tokens and
            ``truncate`` is False.
        """
        return extract_token_embeddings(self, list(sentences), self.check_layers(layers),
                                        batch_tokens=batch_tokens, progress=progress,
                                        truncate=truncate)

    def encode_sentences(self, sentences: Sequence[str], pooling: str = "mean", *,
                         first_layer: int = 1, exclude_sink: bool | None = None,
                         normalize: bool = False, batch_tokens: int = 8192,
                         progress: bool = True) -> np.ndarray:
        """Sentence vectors by pooling token vectors; float32 ``(n_sentences, dim)``.

        Poolings:

        - ``"mean"`` / ``"last-avg"``: mean of the last layer over all attended tokens,
          special tokens included (sentence-transformers' mean pooling; BERT-flow's
          "last-avg").
        - ``"cls"``: the first token of the last layer.
        - ``"first-last-avg"``: the average of the mean-pooled layer ``first_layer`` and the
          mean-pooled last layer. ``first_layer=1`` is the first transformer block (the
          BERT-whitening convention); ``first_layer=0`` is the input-embedding output (what
          BERT-flow's code called "last2avg").

        ``exclude_sink`` drops position 0 from the mean; ``None`` means True for decoders,
        whose first position carries massive activations, and False for encoders.
        ``normalize=True`` scales each vector to unit length (sentence-transformers'
        Normalize module).

        Parameters
        ----------
        sentences : sequence of str
            Non-empty texts of at most ``max_length`` tokens (no truncation here).
        pooling : str, optional
            ``"mean"`` (default), ``"last-avg"``, ``"cls"`` or ``"first-last-avg"``.
        first_layer : int, optional
            The first layer of ``"first-last-avg"`` (default 1); checked to be in range
            whatever the pooling.
        exclude_sink : bool or None, optional
            Drop position 0 from the means (not from ``"cls"``); default None, True for a
            decoder (``resolved.kind == "decoder"``) and False otherwise.
        normalize : bool, optional
            Scale each vector to unit length (default False).
        batch_tokens : int, optional
            Most tokens (padding included) in a batch, default 8192, lowered as in
            :meth:`encode_tokens`.
        progress : bool, optional
            Show a progress bar (default True).

        Returns
        -------
        ndarray of shape (n_sentences, dim), float32
            One vector per sentence, in input order. Every layer's poolings are cached
            (:func:`~anisotropy.inputs.extraction.extract_pooled`), so another pooling of
            the same sentences needs no forward pass.

        Raises
        ------
        ValueError
            For an unknown pooling, a ``first_layer`` out of range, an empty ``sentences``,
            an empty or non-string sentence, or one longer than ``max_length`` tokens.
        """
        if pooling not in ("mean", "last-avg", "cls", "first-last-avg"):
            raise ValueError(f"Unknown pooling {pooling!r}; choose 'mean', 'last-avg', 'cls' "
                             "or 'first-last-avg'.")
        if exclude_sink is None:
            exclude_sink = self.resolved.kind == "decoder"
        self.check_layers([first_layer])
        pooled = extract_pooled(self, list(sentences), batch_tokens=batch_tokens,
                                progress=progress)
        return pool_sentences(pooled, pooling, self.n_layers, first_layer=first_layer,
                              exclude_sink=exclude_sink, normalize=normalize)

    def input_embedding_matrix(self) -> tuple[np.ndarray, list[str]]:
        """The input (token) embedding matrix, float32 ``(vocab, dim)``, and token strings.

        Rows are the vectors the model feeds its first block for each token id, before any
        position embedding or normalisation: the embedding weights times the module's
        ``embed_scale`` where it has one (Gemma multiplies by ``sqrt(hidden_size)``, so
        its row ``t`` equals ``hidden_states[0]`` at a token ``t``), the weights themselves
        otherwise.

        Returns
        -------
        matrix : ndarray of shape (vocab, dim), float32
            The embedding weights as float32 on the CPU, times ``embed_scale`` where the
            module has one.
        tokens : list of str
            The tokenizer's string of each row's token id (None for a row the tokenizer
            has no token for, where the matrix is larger than its vocabulary).
        """
        module = self.model.get_input_embeddings()
        # a copy: on the CPU in float32, .float().cpu().numpy() is the parameter's own memory,
        # and scaling it in place would change the model (and every later forward pass)
        weight = module.weight.detach().float().cpu().numpy().copy()
        scale = getattr(module, "embed_scale", None)
        if scale is not None:
            weight *= np.float32(float(scale))
        vocab = self.tokenizer.convert_ids_to_tokens(list(range(weight.shape[0])))
        return weight, vocab


def _weights_fingerprint(path: Path) -> str:
    """sha256 over the model's weight files, memoized by (path, size, mtime)."""
    files = sorted(p for p in path.glob("*") if p.suffix in {".safetensors", ".bin", ".gguf"})
    memo_file = cache.cache_root() / "fingerprints.json"
    try:
        memo = json.loads(memo_file.read_text())
    except (OSError, ValueError):
        memo = {}
    digests = []
    for file in files:
        stat = file.stat()
        key = f"{file}|{stat.st_size}|{stat.st_mtime_ns}"
        if key not in memo:
            memo[key] = cache.file_hash(file)
        digests.append(memo[key])
    tmp = memo_file.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(memo, indent=1))
    os.replace(tmp, memo_file)
    return cache.make_key({"weights": digests})
