"""Where a result came from: the environment block of every results file, and its digest.

A results file records the machine and software that produced it (:func:`environment`) and
a digest of everything that determines its numbers (:func:`inputs_digest`): the claim's
parameters, the source of the notebook and of every library file it imports, the claim's
check declarations and the reference values they name, the data files' sha256 and the
versions of the packages that change the numbers. The ledger marks a results file *stale*
when the digest of the current checkout differs: a commit that touches nothing of a claim
leaves its results current, so incremental builds stay incremental.
"""

from __future__ import annotations

import ast
import datetime as _datetime
import hashlib
import json
import os
import platform
import re
import subprocess
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

from anisotropy.inputs.data import PROJECT_ROOT
from anisotropy.inputs.references import reference_value
from anisotropy.report.checks import load_checks

__all__ = ["library_files", "PACKAGES", "NUMERIC_PACKAGES", "STALE_TEXT", "package_versions",
           "library_version",
           "cpu", "torch_build", "threads", "git_describe", "environment", "short_environment",
           "data_line", "inputs_digest"]

#: The claims' notebooks, ``notebooks/SLUG.ipynb``.
NOTEBOOKS_DIR = PROJECT_ROOT / "notebooks"
# Every package whose version the environment block records.
PACKAGES = ("torch", "transformers", "tokenizers", "huggingface-hub", "pyarrow", "numpy",
            "scipy", "scikit-learn", "IsoScore", "zuko", "papermill", "gguf", "pandas")
# The packages whose versions can change a claim's numbers (part of its inputs digest).
NUMERIC_PACKAGES = ("torch", "transformers", "tokenizers", "numpy", "scipy", "scikit-learn",
                    "IsoScore", "zuko", "gguf")
# What a stale results file is, as the ledger and the page footers say it.
STALE_TEXT = ("Stale: its notebook, library code, declarations, data or package versions "
              "changed after it ran.")
# CPU flags that change which kernels run (and so the order floats are summed in).
ISA_FLAGS = ("avx2", "fma", "avx512f", "avx512_bf16", "avx512_vnni", "avx512_fp16",
             "amx_tile", "amx_bf16", "amx_int8")
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                    "ATEN_CPU_CAPABILITY", "ONEDNN_MAX_CPU_ISA", "OPENBLAS_CORETYPE",
                    "MKL_ENABLE_INSTRUCTIONS")


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


@lru_cache(maxsize=1)
def package_versions() -> dict[str, str | None]:
    """``{package: version}`` of :data:`PACKAGES` (``None`` where not installed), read from
    the installed distributions' metadata (nothing is imported).

    Returns
    -------
    dict of str to str or None
        One entry per package of :data:`PACKAGES`, read once per process (cached).
    """
    return {name: _version(name) for name in PACKAGES}


def library_version() -> str:
    """This library's version from its installed package metadata (``pyproject.toml``).

    Returns
    -------
    str
        The version of the installed ``anisotropy`` distribution, or ``"unknown"`` when it is
        not installed.
    """
    return _version("anisotropy") or "unknown"


@lru_cache(maxsize=1)
def cpu() -> dict[str, Any]:
    """The CPU model, its count of logical CPUs and the instruction-set flags of
    :data:`ISA_FLAGS` it has (from ``/proc/cpuinfo`` on Linux; ``platform`` elsewhere).

    Returns
    -------
    dict of str to Any
        ``{"model", "machine", "logical_cpus", "isa"}``: ``isa`` lists the flags of
        :data:`ISA_FLAGS` found, in that order (none without ``/proc/cpuinfo``). Read once
        per process (cached).
    """
    model, flags = platform.processor() or platform.machine(), set()
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
        found = re.search(r"^model name\s*:\s*(.+)$", text, re.MULTILINE)
        model = found.group(1).strip() if found else model
        found = re.search(r"^flags\s*:\s*(.+)$", text, re.MULTILINE)
        flags = set(found.group(1).split()) if found else set()
    except OSError:
        pass
    return {"model": model, "machine": platform.machine(), "logical_cpus": os.cpu_count(),
            "isa": [flag for flag in ISA_FLAGS if flag in flags]}


@lru_cache(maxsize=1)
def torch_build() -> dict[str, Any]:
    """torch's CPU kernel level and its BLAS / oneDNN build settings (``{}`` without torch).

    Returns
    -------
    dict of str to Any
        ``{"cpu_capability", "onednn", ...}`` and whichever of ``BLAS_INFO``,
        ``LAPACK_INFO``, ``USE_MKL``, ``USE_MKLDNN`` and ``USE_OPENMP`` torch's build
        configuration shows. Read once per process (cached).
    """
    try:
        import torch
    except ImportError:
        return {}
    shown = torch.__config__.show()
    settings = dict(re.findall(r"(BLAS_INFO|LAPACK_INFO|USE_MKL|USE_MKLDNN|USE_OPENMP)=(\w+)",
                               shown))
    onednn = re.search(r"oneDNN v([\w.]+)", shown)
    return {"cpu_capability": torch.backends.cpu.get_cpu_capability(),
            "onednn": onednn.group(1) if onednn else None, **settings}


def threads() -> dict[str, Any]:
    """Thread counts in force: torch's intra- and inter-op threads and the environment
    variables that set BLAS threads or kernel levels (only those that are set).

    Returns
    -------
    dict of str to Any
        The variables of :data:`THREAD_VARIABLES` that are set (their text), and ``torch`` and
        ``torch_interop`` (thread counts) when torch is installed.
    """
    out: dict[str, Any] = {k: os.environ[k] for k in THREAD_VARIABLES if k in os.environ}
    try:
        import torch

        out.update(torch=torch.get_num_threads(), torch_interop=torch.get_num_interop_threads())
    except ImportError:
        pass
    return out


@lru_cache(maxsize=1)
def git_describe() -> str | None:
    """``git describe --always --dirty`` of the project checkout, or ``None`` outside git.

    Returns
    -------
    str or None
        The description (the nearest tag and the commit, or the abbreviated commit; ``-dirty``
        when the work tree has changes); None when git is missing, fails or prints nothing.
        Read once per process (cached).
    """
    try:
        done = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=PROJECT_ROOT,
                              capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


def environment(profile: str, started: _datetime.datetime | None = None) -> dict[str, Any]:
    """The environment block of a results file: Python, package versions, CPU and its ISA
    flags, torch's BLAS/oneDNN build, thread counts, ``git describe``, the UTC start time
    and the profile.

    Parameters
    ----------
    profile : str
        The profile the claim ran under.
    started : datetime.datetime or None, optional
        When the run started (UTC); default ``None``: now.

    Returns
    -------
    dict of str to Any
        ``{"profile", "started_utc", "git", "library_version", "python", "platform",
        "packages", "cpu", "torch_build", "threads"}``; ``started_utc`` as
        ``YYYY-MM-DDTHH:MM:SSZ``.
    """
    started = started or _datetime.datetime.now(_datetime.timezone.utc)
    return {"profile": profile, "started_utc": started.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "git": git_describe(), "library_version": library_version(),
            "python": platform.python_version(), "platform": platform.platform(),
            "packages": package_versions(), "cpu": cpu(), "torch_build": torch_build(),
            "threads": threads()}


def short_environment(block: dict[str, Any] | None) -> str:
    """One line for page footers and the ledger: commit, date, CPU, torch and profile.

    Parameters
    ----------
    block : dict of str to Any or None
        A results file's ``environment`` block (:func:`environment`); None or empty for a
        file written before provenance was kept.

    Returns
    -------
    str
        ``"Profile P; commit C, DATE; CPU MODEL (ISA); torch V"`` (the ISA of avx2, avx512f
        and amx_tile only; ``?`` or ``unknown`` for what the block lacks), or a sentence
        saying the environment was not recorded.
    """
    if not block:
        return "environment not recorded (a results file from before provenance was kept)"
    isa = "+".join(f for f in block.get("cpu", {}).get("isa", []) if f in
                   ("avx2", "avx512f", "amx_tile"))
    return (f"Profile {block.get('profile', '?')}; commit {block.get('git') or 'unknown'}, "
            f"{str(block.get('started_utc', '?'))[:10]}; CPU "
            f"{block.get('cpu', {}).get('model', '?')}" + (f" ({isa})" if isa else "")
            + f"; torch {block.get('packages', {}).get('torch') or '?'}")


def data_line(sources: dict[str, str] | None) -> str:
    """One sentence for page footers: where the data of a results record came from, from
    its ``data`` block (:func:`anisotropy.inputs.datafiles.data_sources`). A hub copy is
    named with the commit read, since its revision is a branch the hub rewrites.

    Parameters
    ----------
    sources : dict of str to str or None
        A results record's ``data`` block: ``{dataset: "local: ..."}`` and
        ``{"dataset/split": "hub:ID@COMMIT"}``; None or empty when not recorded.

    Returns
    -------
    str
        ``"Data: ..."``: the local datasets, then each hub copy with its commit's first 12
        characters; ``"Data: not recorded."`` without sources.
    """
    if not sources:
        return "Data: not recorded."
    local = sorted(name for name, where in sources.items() if where.startswith("local:"))
    hub = sorted({where.removeprefix("hub:") for where in sources.values()
                  if where.startswith("hub:")})
    parts = []
    if local:
        parts.append(f"{', '.join(local)} from local files, each sha256 verified against "
                     "data/sources.yaml")
    if hub:
        parts.append("from the Hugging Face hub " + ", ".join(
            f"{where.split('@')[0]} at commit {where.split('@')[1][:12]}" for where in hub)
            + " (each file's sha256 is in the results file)")
    return "Data: " + "; ".join(parts) + "."


def _file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "missing"


def _imported_modules(source: str) -> set[str]:
    """``anisotropy.*`` modules a piece of source imports (absolute imports only)."""
    found = set()
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return found
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("anisotropy"))
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0 \
                and node.module.startswith("anisotropy"):
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
    return found


def library_files(slug: str) -> list[Path]:
    """The library files claim ``slug`` runs: the modules its notebook imports (its claim
    module among them) and, transitively, the ``anisotropy`` modules they import (package
    ``__init__`` files included). The workflow reruns the claim when one of them changes,
    and no other.

    The claim module is found as the notebook imports it (``from anisotropy.claims.PACKAGE
    import claim``), not looked up in the catalog: this floor imports no claim, even by
    name. ``tests/test_provenance.py`` checks that every claim's files hold its module.

    Parameters
    ----------
    slug : str
        A claim (:func:`anisotropy.book.catalog.claims`) whose notebook is
        ``notebooks/SLUG.ipynb``.

    Returns
    -------
    list of Path
        The files, sorted (absolute imports only are followed; the notebook's ``%`` and ``!``
        lines are skipped).

    Raises
    ------
    FileNotFoundError
        When there is no ``notebooks/SLUG.ipynb`` (``slug`` is not a claim, or has no
        notebook).
    """
    package = PROJECT_ROOT / "lib" / "anisotropy"
    notebook = json.loads((NOTEBOOKS_DIR / f"{slug}.ipynb").read_text(encoding="utf-8"))
    code = "\n".join("".join(cell["source"]) for cell in notebook["cells"]
                     if cell["cell_type"] == "code")
    code = "\n".join(line for line in code.splitlines() if not line.lstrip().startswith(("%", "!")))

    def module_file(name: str) -> Path | None:
        parts = name.split(".")[1:]
        base = package.joinpath(*parts)
        for candidate in (base.with_suffix(".py"), base / "__init__.py"):
            if candidate.is_file():
                return candidate
        return None

    files: set[Path] = {package / "__init__.py"}
    pending = list(_imported_modules(code))
    seen: set[str] = set()
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        path = module_file(name)
        if path is None:
            continue  # a name imported from a module, not a module
        files.add(path)
        parts = name.split(".")
        for depth in range(2, len(parts)):  # parent packages run their __init__
            parent = module_file(".".join(parts[:depth]))
            if parent is not None:
                files.add(parent)
        pending.extend(_imported_modules(path.read_text(encoding="utf-8")))
    return sorted(files)


def inputs_digest(slug: str, parameters: dict[str, Any], data_sha256: dict[str, str]) -> str:
    """sha256 of everything that determines a claim's numbers.

    Hashed: the parameters that ran, the notebook's source, the source of every library
    file it imports (:func:`library_files`), the claim's declarations
    in ``data/checks.yaml`` and the reference values they name, the data files' sha256
    and the versions of :data:`NUMERIC_PACKAGES`. A change anywhere else (another claim's
    module, the README, a page of prose) leaves the digest as it was.

    Parameters
    ----------
    slug : str
        The claim.
    parameters : dict of str to Any
        The parameters it ran with (a results file's ``parameters``).
    data_sha256 : dict of str to str
        ``{data file: sha256}`` of the files it read (a results file's ``data_sha256``).

    Returns
    -------
    str
        The hex sha256.
    """
    specs = load_checks(slug)
    declarations = {check_id: {k: str(v) for k, v in vars(spec).items()}
                    for check_id, spec in sorted(specs.items())}
    references = {}
    for spec in specs.values():
        for key in spec.references:
            references[key] = reference_value(key)
    sources = {str(path.relative_to(PROJECT_ROOT)): _file_digest(path)
               for path in [PROJECT_ROOT / "notebooks" / f"{slug}.ipynb", *library_files(slug)]}
    versions = {name: package_versions()[name] for name in NUMERIC_PACKAGES}
    payload = {"slug": slug, "parameters": parameters, "sources": sources,
               "declarations": declarations, "references": references,
               "data": dict(sorted(data_sha256.items())), "versions": versions}
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()
