"""Run claim notebooks with papermill under named profiles, and build the book.

- :func:`run` executes ``notebooks/SLUG.ipynb`` into ``_build/executed/SLUG.ipynb`` with the
  parameters of a profile (``notebooks/profiles.yaml``) plus overrides; the notebook writes
  ``_build/results/SLUG.json`` itself.
- :func:`build_book` runs every claim, writes the ledger page from the results JSONs,
  assembles the book sources in ``_build/book-src`` and compiles them with jupyter-book 1.x
  (warnings are errors) into ``_build/html``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import yaml

from .data import PROJECT_ROOT

__all__ = ["SLUGS", "RunError", "profiles", "declared_parameters", "parse_overrides", "run",
           "build_book", "BUILD_DIR"]

NOTEBOOKS_DIR = PROJECT_ROOT / "notebooks"
PROFILES_FILE = NOTEBOOKS_DIR / "profiles.yaml"
BUILD_DIR = Path(os.environ.get("ANISOTROPY_BUILD", PROJECT_ROOT / "_build"))
SLUGS = (
    "01-layerwise-anisotropy",
    "02-clusters-manifolds",
    "03-frequency-bias",
    "04-cluster-isotropy",
    "05-isotropy-vs-clusters",
)


# Kernel memory allocation: keep freed memory in the process (glibc: no mmap'd blocks, no
# trimming) so that the large temporaries of the per-layer loops reuse pages already mapped.
# On the 2-core CI VMs, touching fresh pages is slow (the host reclaims freed memory), and
# this halves the analysis time of claim 1; elsewhere it should cost nothing but a process
# that holds on to its peak memory. Arithmetic is unchanged. A value already in the
# environment wins.
KERNEL_MALLOC_ENV = {"MALLOC_MMAP_MAX_": "0", "MALLOC_TRIM_THRESHOLD_": str(2**40)}


class RunError(RuntimeError):
    """A bad slug, profile or parameter, or a notebook that failed."""


def available_slugs() -> list[str]:
    """Claim slugs whose notebook exists."""
    return [slug for slug in SLUGS if (NOTEBOOKS_DIR / f"{slug}.ipynb").is_file()]


def profiles() -> dict[str, dict[str, dict]]:
    """``{profile: {slug: {parameter: value}}}`` from ``notebooks/profiles.yaml``."""
    with open(PROFILES_FILE, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def _check_slug(slug: str) -> Path:
    path = NOTEBOOKS_DIR / f"{slug}.ipynb"
    if slug not in SLUGS or not path.is_file():
        raise RunError(f"Unknown claim {slug!r}; choose one of {available_slugs()}.")
    return path


def declared_parameters(slug: str) -> dict[str, dict]:
    """Parameters declared in the notebook's ``parameters`` cell (name -> papermill info)."""
    import papermill  # noqa: PLC0415

    return papermill.inspect_notebook(str(_check_slug(slug)))


def parse_overrides(pairs: list[str]) -> dict:
    """``["model=gpt2", "n=200"]`` -> ``{"model": "gpt2", "n": 200}`` (values read as YAML)."""
    out = {}
    for pair in pairs:
        if "=" not in pair:
            raise RunError(f"Parameter {pair!r} must look like NAME=VALUE.")
        name, value = pair.split("=", 1)
        out[name.strip()] = yaml.safe_load(value) if value.strip() else ""
    return out


def resolve_parameters(slug: str, profile: str, overrides: dict | None = None) -> dict:
    """The profile's parameters for a claim, with overrides, all checked against the
    notebook's declared parameters (papermill would silently inject unknown ones)."""
    table = profiles()
    if profile not in table:
        raise RunError(f"Unknown profile {profile!r}; choose one of {sorted(table)}.")
    declared = declared_parameters(slug)
    parameters = {"profile": profile, **(table[profile].get(slug) or {}), **(overrides or {})}
    unknown = sorted(set(parameters) - set(declared))
    if unknown:
        raise RunError(f"Parameter(s) {unknown} are not declared by {slug}; valid parameters: "
                       f"{sorted(declared)}.")
    return parameters


def run(slug: str, profile: str = "smoke", overrides: dict | None = None,
        log_output: bool = False) -> Path:
    """Execute one claim notebook; return the executed notebook's path.

    Raises
    ------
    RunError
        For a bad slug/profile/parameter, or when a cell fails (the message names the cell).
    """
    import papermill  # noqa: PLC0415
    from papermill.exceptions import PapermillExecutionError  # noqa: PLC0415

    source = _check_slug(slug)
    parameters = resolve_parameters(slug, profile, overrides)
    output = BUILD_DIR / "executed" / f"{slug}.ipynb"
    output.parent.mkdir(parents=True, exist_ok=True)
    results = BUILD_DIR / "results"
    results.mkdir(parents=True, exist_ok=True)
    stale = results / f"{slug}.json"
    if stale.exists():
        stale.unlink()
    kernel_env = {"ANISOTROPY_RESULTS_DIR": str(results), "ANISOTROPY_PROFILE": profile,
                  **{k: v for k, v in KERNEL_MALLOC_ENV.items() if k not in os.environ}}
    env_before = {k: os.environ.get(k) for k in kernel_env}
    os.environ.update(kernel_env)  # the kernel inherits this process's environment
    began = time.perf_counter()
    try:
        papermill.execute_notebook(str(source), str(output), parameters=parameters,
                                   kernel_name="python3", cwd=str(NOTEBOOKS_DIR),
                                   progress_bar=False, log_output=log_output)
    except PapermillExecutionError as error:
        raise RunError(f"{slug}: {_describe_cell(source, output, error.cell_index)} failed "
                       f"with {error.ename}: {error.evalue}. See {output}.") from error
    finally:
        for key, value in env_before.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    if not stale.exists():
        raise RunError(f"{slug} ran but did not write {stale}; its last cell must call "
                       "Results.write().")
    print(f"{slug} [{profile}] ran in {time.perf_counter() - began:.0f} s -> {output}")
    return output


def _describe_cell(source: Path, executed: Path, index: int) -> str:
    """Name a failing cell by its index in the source notebook and its first line.

    The executed copy holds extra cells (papermill's injected parameters and error banner),
    so the failing cell is found by its error output and mapped back through its id.
    """
    import nbformat  # noqa: PLC0415

    try:
        cells = nbformat.read(executed, as_version=4).cells
        failing = next(c for c in cells if c.cell_type == "code" and any(
            o.get("output_type") == "error" for o in c.get("outputs", [])))
        ids = [c.get("id") for c in nbformat.read(source, as_version=4).cells]
        first = next((line for line in failing.source.splitlines() if line.strip()), "")
        where = (f"source cell {ids.index(failing.get('id'))}" if failing.get("id") in ids
                 else f"executed cell {index}")
        return f"{where} ({first.strip()[:60]!r})"
    except (OSError, ValueError, StopIteration):
        return f"executed cell {index}"


def build_book(profile: str = "full", run_notebooks: bool = True,
               overrides: dict | None = None) -> Path:
    """Run every claim (unless ``run_notebooks=False``), then compile the HTML book.

    Returns the path of ``_build/html/index.html``.
    """
    from .ledger import write_data_files, write_ledger  # noqa: PLC0415

    slugs = available_slugs()
    if run_notebooks:
        for slug in slugs:
            run(slug, profile, overrides.get(slug) if overrides else None)
    staging = BUILD_DIR / "book-src"
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True)
    for name in ("_config.yml", "_toc.yml"):
        shutil.copy(PROJECT_ROOT / name, staging / name)
    shutil.copytree(PROJECT_ROOT / "book", staging / "book")
    claims = staging / "claims"
    claims.mkdir()
    for slug in slugs:
        executed = BUILD_DIR / "executed" / f"{slug}.ipynb"
        if not executed.is_file():
            raise RunError(f"{executed} is missing: run `anisotropy run {slug}` first.")
        shutil.copy(executed, claims / f"{slug}.ipynb")
    write_ledger(BUILD_DIR / "results", staging / "book" / "ledger.md", slugs)
    write_data_files(staging / "book" / "data-files.md")
    _install_mathjax(staging / "book" / "_static")
    html = BUILD_DIR / "html"
    command = [str(Path(sys.executable).with_name("jupyter-book")), "build", str(staging),
               "--path-output", str(staging), "--warningiserror", "--keep-going", "--all"]
    completed = subprocess.run(command, cwd=staging, capture_output=True, text=True)
    log = BUILD_DIR / "book-build.log"
    log.write_text(completed.stdout + completed.stderr)
    if completed.returncode != 0:
        tail = "\n".join((completed.stdout + completed.stderr).splitlines()[-40:])
        raise RunError(f"jupyter-book build failed (full log: {log}):\n{tail}")
    if html.exists():
        shutil.rmtree(html)
    shutil.copytree(staging / "_build" / "html", html)
    return html / "index.html"


def _install_mathjax(static: Path) -> None:
    """Copy MathJax 3 (bundled by the django-static-mathjax wheel) next to the pages."""
    import importlib.util  # noqa: PLC0415

    spec = importlib.util.find_spec("mathjax")
    roots = list(spec.submodule_search_locations or []) if spec else []
    for root in roots:
        es5 = Path(root) / "static" / "mathjax" / "es5"
        if (es5 / "tex-mml-chtml.js").is_file():
            target = static / "mathjax"
            shutil.copytree(es5, target, dirs_exist_ok=True)
            return
    raise RunError("MathJax is not installed (pip install django-static-mathjax): the book "
                   "serves MathJax locally so that it renders without network.")
