"""Run claim notebooks with papermill under named profiles, and build the book.

Every profile builds into a directory of its own, ``_build/PROFILE/`` (:func:`profile_dir`),
so that a smoke run never lands in the full book:

- :func:`run` executes ``notebooks/SLUG.ipynb`` into ``_build/PROFILE/executed/SLUG.ipynb``
  with a profile (``notebooks/profiles.yaml``) and overrides, which the claim's ``Settings``
  check first (names, types and ranges); the notebook writes
  ``_build/PROFILE/results/SLUG.json`` itself.
- :func:`build_book` runs every claim, writes the ledger page from the results JSONs (and
  refuses, by name, a results file of another profile), assembles the book sources in
  ``_build/PROFILE/book-src`` (papermill's injected parameter cell removed from the pages)
  and compiles them with jupyter-book 1.x (warnings are errors) into ``_build/PROFILE/html``.
"""

from __future__ import annotations

import ast
import datetime
import importlib
import importlib.util
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tokenize
from pathlib import Path

import yaml

from anisotropy.book import catalog
from anisotropy.book.assets import externalize_plotly, install_plotly
from anisotropy.book.glance import write_glance
from anisotropy.book.ledger import write_data_files, write_ledger
from anisotropy.inputs import settings as settings_module
from anisotropy.inputs.data import PROJECT_ROOT
from anisotropy.inputs.settings import SettingsError
from anisotropy.report.provenance import STALE_TEXT, data_line, git_describe, short_environment
from anisotropy.report.results import ResultsError, add_models_not_run, load_results

__all__ = ["SLUGS", "RunError", "profiles", "declared_parameters", "resolve_settings",
           "notebook_parameters", "parse_overrides", "run", "build_book", "BUILD_DIR",
           "profile_dir", "claim_bibliographies"]

NOTEBOOKS_DIR = PROJECT_ROOT / "notebooks"
PROFILES_FILE = settings_module.PROFILES_FILE
BUILD_DIR = Path(os.environ.get("ANISOTROPY_BUILD", PROJECT_ROOT / "_build"))
SLUGS = tuple(catalog.claims())  # the claim packages' declarations, in book order


# Kernel memory allocation: keep freed memory in the process (glibc: no mmap'd blocks, no
# trimming) so that the large temporaries of the per-layer loops reuse pages already mapped.
# On the 2-core CI VMs, touching fresh pages is slow (the host reclaims freed memory), and
# this halves the analysis time of claim 1; elsewhere it should cost nothing but a process
# that holds on to its peak memory. Arithmetic is unchanged. A value already in the
# environment wins.
KERNEL_MALLOC_ENV = {"MALLOC_MMAP_MAX_": "0", "MALLOC_TRIM_THRESHOLD_": str(2**40)}


class RunError(RuntimeError):
    """A bad slug, profile or parameter, or a notebook that failed."""


def profile_dir(profile: str) -> Path:
    """The build directory of one profile: ``BUILD_DIR / profile`` (``_build/full``,
    ``_build/smoke``, ...), holding ``results/``, ``executed/``, ``book-src/`` and ``html/``.
    Nothing of one profile is ever read by another's build.

    Parameters
    ----------
    profile : str
        A profile name (``smoke``, ``full``, ``paper``, ``binder``, ...); it is not checked
        against ``notebooks/profiles.yaml`` here.

    Returns
    -------
    Path
        ``BUILD_DIR / profile`` (:data:`BUILD_DIR` is ``$ANISOTROPY_BUILD``, else
        ``_build``); it is not created.

    Raises
    ------
    RunError
        For an empty name, a name holding ``/`` or one starting with ``.``.
    """
    if not profile or "/" in profile or profile.startswith("."):
        raise RunError(f"Profile name {profile!r} cannot name a build directory; use a plain "
                       "name such as 'smoke' or 'full'.")
    return BUILD_DIR / profile


def available_slugs() -> list[str]:
    """Claim slugs whose notebook exists.

    Returns
    -------
    list of str
        The claims of :data:`SLUGS` (book order) that have ``notebooks/SLUG.ipynb``.
    """
    return [slug for slug in SLUGS if (NOTEBOOKS_DIR / f"{slug}.ipynb").is_file()]


def profiles() -> dict[str, dict[str, dict]]:
    """``{profile: {slug: {parameter: value}}}`` from ``notebooks/profiles.yaml``.

    Returns
    -------
    dict of str to dict of str to dict
        :func:`anisotropy.inputs.settings.profiles`.
    """
    return settings_module.profiles()


def _check_slug(slug: str) -> Path:
    path = NOTEBOOKS_DIR / f"{slug}.ipynb"
    if slug not in SLUGS or not path.is_file():
        raise RunError(f"Unknown claim {slug!r}; choose one of {available_slugs()}.")
    return path


def declared_parameters(slug: str) -> dict[str, dict]:
    """Parameters declared in the notebook's ``parameters`` cell (name -> papermill info).

    Every claim notebook declares the same two: ``profile`` and ``overrides`` (the claim's
    parameters themselves are its module's ``Settings``). The cell is parsed with
    :mod:`ast`, giving what ``papermill.inspect_notebook`` gives (``name``,
    ``inferred_type_name``, ``default``, ``help``) without importing papermill.

    Parameters
    ----------
    slug : str
        A claim with a notebook (:func:`available_slugs`).

    Returns
    -------
    dict of str to dict
        ``{name: {"name", "inferred_type_name", "default", "help"}}`` for each assignment of
        the first cell tagged ``parameters``: the annotation as the type (``"None"`` without
        one), the value's source text as the default and the comment ending its line as the
        help; ``{}`` when the notebook has no such cell.

    Raises
    ------
    RunError
        For an unknown claim or one without a notebook, or a parameters cell that does not
        parse.
    """
    path = _check_slug(slug)
    notebook = json.loads(path.read_text(encoding="utf-8"))
    cells = [cell for cell in notebook.get("cells", [])
             if "parameters" in cell.get("metadata", {}).get("tags", [])]
    if not cells:
        return {}
    source = cells[0]["source"]
    source = "".join(source) if isinstance(source, list) else source
    try:
        tree = ast.parse(source)
        comments = {token.start[0]: token.string.lstrip("#").strip()
                    for token in tokenize.generate_tokens(io.StringIO(source).readline)
                    if token.type == tokenize.COMMENT}
    except (SyntaxError, tokenize.TokenError) as error:
        raise RunError(f"{slug}: the parameters cell does not parse ({error}).") from error
    declared = {}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets, annotation = node.targets, None
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, annotation = [node.target], ast.get_source_segment(source, node.annotation)
        else:
            continue
        for target in targets:
            if isinstance(target, ast.Name):
                declared[target.id] = {
                    "name": target.id, "inferred_type_name": annotation or "None",
                    "default": ast.get_source_segment(source, node.value),
                    "help": comments.get(node.end_lineno, ""),
                }
    return declared


NOTEBOOK_PARAMETERS = ("profile", "overrides")  # what every claim's parameters cell declares


def parse_overrides(pairs: list[str]) -> dict:
    """``["model=gpt2", "n=200"]`` -> ``{"model": "gpt2", "n": 200}`` (values read as YAML).

    Parameters
    ----------
    pairs : list of str
        ``NAME=VALUE`` items (the CLI's ``-p``); the name is stripped, the value read with
        ``yaml.safe_load`` (an empty value is ``""``).

    Returns
    -------
    dict
        ``{name: value}``; a name given twice keeps its last value.

    Raises
    ------
    RunError
        For an item without ``=``.
    """
    out = {}
    for pair in pairs:
        if "=" not in pair:
            raise RunError(f"Parameter {pair!r} must look like NAME=VALUE.")
        name, value = pair.split("=", 1)
        out[name.strip()] = yaml.safe_load(value) if value.strip() else ""
    return out


def resolve_settings(slug: str, profile: str, overrides: dict | None = None):
    """The claim's settings under ``profile`` with ``overrides``, validated by its module's
    ``Settings`` (the one place that checks names, types and ranges) before any kernel
    starts.

    Parameters
    ----------
    slug : str
        A claim with a notebook (:func:`available_slugs`).
    profile : str
        A profile of ``notebooks/profiles.yaml`` (``smoke``, ``full``, ``paper``, ``binder``).
    overrides : dict or None, optional
        Parameter values given on top of the profile; default ``None``: none.

    Returns
    -------
    anisotropy.inputs.settings.ClaimSettings
        An instance of the claim module's ``Settings``
        (:func:`anisotropy.book.catalog.settings`).

    Raises
    ------
    RunError
        Naming the bad parameter, its value and what is allowed.
    """

    _check_slug(slug)
    try:
        return catalog.settings(slug, profile, overrides)
    except SettingsError as error:
        raise RunError(str(error)) from error


def notebook_parameters(slug: str, profile: str, overrides: dict | None = None) -> dict:
    """What papermill injects: ``{"profile": ..., "overrides": {...}}``, after checking
    that the notebook declares them and that the settings they make are valid.

    Parameters
    ----------
    slug : str
        A claim with a notebook (:func:`available_slugs`).
    profile : str
        A profile of ``notebooks/profiles.yaml``.
    overrides : dict or None, optional
        Parameter values given on top of the profile; default ``None``: none.

    Returns
    -------
    dict
        ``{"profile": profile, "overrides": dict(overrides)}``.

    Raises
    ------
    RunError
        For an unknown claim, profile or parameter (:func:`resolve_settings`), or a
        parameters cell that does not declare both :data:`NOTEBOOK_PARAMETERS`.
    """
    resolve_settings(slug, profile, overrides)
    missing = sorted(set(NOTEBOOK_PARAMETERS) - set(declared_parameters(slug)))
    if missing:
        raise RunError(f"{slug}: its parameters cell must declare {list(NOTEBOOK_PARAMETERS)}; "
                       f"missing {missing}.")
    return {"profile": profile, "overrides": dict(overrides or {})}


def run(slug: str, profile: str = "smoke", overrides: dict | None = None,
        log_output: bool = False, not_run: dict[str, str] | None = None) -> Path:
    """Execute one claim notebook; return the executed notebook's path.

    ``not_run`` (``{model: reason}``) names models left out of this run, e.g. hub models
    the workflow could not fetch offline; the results file then marks every check of the
    claim "not run" for them, with the reason.

    Parameters
    ----------
    slug : str
        A claim with a notebook (:func:`available_slugs`).
    profile : str, optional
        A profile of ``notebooks/profiles.yaml``; default ``"smoke"``. The run goes into
        :func:`profile_dir` of it.
    overrides : dict or None, optional
        Parameter values given on top of the profile (validated before the kernel starts);
        default ``None``: none.
    log_output : bool, optional
        Stream the cells' output to this process's log (papermill's ``log_output``); default
        False.
    not_run : dict of str to str or None, optional
        ``{model: reason}``, as above; default ``None``: none.

    Returns
    -------
    Path
        ``_build/PROFILE/executed/SLUG.ipynb``; the results file is
        ``_build/PROFILE/results/SLUG.json``. Both are removed once the parameters are
        checked, and put in place only when every cell has run; a failed run leaves
        ``SLUG.failed.ipynb`` beside the executed notebook's place.

    Raises
    ------
    RunError
        For a bad slug/profile/parameter, or when a cell fails (the message names the cell).
    """
    source = _check_slug(slug)
    parameters = notebook_parameters(slug, profile, overrides)  # before the slow imports
    import papermill
    from papermill.exceptions import PapermillExecutionError

    output = profile_dir(profile) / "executed" / f"{slug}.ipynb"
    output.parent.mkdir(parents=True, exist_ok=True)
    results = profile_dir(profile) / "results"
    results.mkdir(parents=True, exist_ok=True)
    stale = results / f"{slug}.json"
    failed = output.with_suffix(".failed.ipynb")
    for old in (stale, output, failed):  # a killed or failed run leaves none of these
        old.unlink(missing_ok=True)
    # papermill writes the notebook as it runs, and the notebook's last cell writes the
    # results file: both go to private temporary names, renamed into place only when every
    # cell has run, so a killed run never leaves a notebook or results that look done.
    partial = output.with_name(f".{slug}.{os.getpid()}.partial.ipynb")
    private = results / f".{slug}.{os.getpid()}.partial"
    private.mkdir(exist_ok=True)
    kernel_env = {"ANISOTROPY_RESULTS_DIR": str(private), "ANISOTROPY_PROFILE": profile,
                  **{k: v for k, v in KERNEL_MALLOC_ENV.items() if k not in os.environ}}
    env_before = {k: os.environ.get(k) for k in kernel_env}
    os.environ.update(kernel_env)  # the kernel inherits this process's environment
    began = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory(prefix="anisotropy-kernel-") as sockets:
            papermill.execute_notebook(str(source), str(partial), parameters=parameters,
                                       kernel_name="python3", cwd=str(NOTEBOOKS_DIR),
                                       progress_bar=False, log_output=log_output,
                                       kernel_manager_class=_ipc_kernel_manager(sockets))
        written = private / f"{slug}.json"
        if not written.exists():
            raise RunError(f"{slug} ran but did not write its results file; its last cell "
                           "must call Results.write().")
        if not_run:
            declaration = catalog.claim_module(slug).DECLARATION
            add_models_not_run(written, not_run,
                               model_list_checks=declaration.model_list_checks)
        written.replace(stale)
        partial.replace(output)
    except PapermillExecutionError as error:
        partial.replace(failed)
        cell = _describe_cell(source, failed, error.cell_index, error.traceback)
        raise RunError(f"{slug}: {cell} failed with {error.ename}: {error.evalue}. "
                       f"See {failed}.") from error
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    finally:
        shutil.rmtree(private, ignore_errors=True)
        for key, value in env_before.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    print(f"{slug} [{profile}] ran in {time.perf_counter() - began:.0f} s -> {output}")
    return output


def _ipc_kernel_manager(directory: str):
    """A kernel manager class whose kernels talk over Unix sockets in ``directory``.

    With TCP, jupyter_client picks free ports by binding and releasing them, so two runs
    started at the same moment (the workflow's parallel jobs) can race for a port. Sockets
    in a directory of the run's own have no such race, and are not reachable over the
    network.
    """
    from jupyter_client.manager import AsyncKernelManager

    class IPCKernelManager(AsyncKernelManager):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.transport = "ipc"
            self.ip = str(Path(directory) / "kernel")

    return IPCKernelManager


_ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_LINE_MARKER = re.compile(r"^\s*-+>\s*(\d+)\s?(.*)$")  # IPython's "----> 5 code"
_CELL_HEADER = re.compile(r"^\s*(?:Cell In ?\[\d*\]|Input In ?\[\d*\]|<ipython-input-)[^\n]*?"
                          r"line (\d+)")


def _failing_line(traceback: list[str] | None) -> tuple[int, str] | None:
    """Line number and text of the failing line of the cell, from an IPython traceback.

    The traceback is a list of (ANSI-coloured) frames; the cell's own frame starts with
    ``Cell In[n], line N`` and marks the executing line with ``---->``. Library frames
    further down have their own markers, so the cell's frame is searched first. A syntax
    error has no marker; its header still gives the line number (text ``""``).
    """
    frames = [_ANSI_ESCAPE.sub("", str(frame)) for frame in traceback or []]
    cell_frames = [frame for frame in frames if _CELL_HEADER.match(frame)]
    for frame in cell_frames or frames:
        for line in frame.splitlines():
            marker = _LINE_MARKER.match(line)
            if marker:
                return int(marker.group(1)), marker.group(2).strip()
    if cell_frames:
        return int(_CELL_HEADER.match(cell_frames[0]).group(1)), ""
    return None


def _describe_cell(source: Path, executed: Path, index: int,
                   traceback: list[str] | None = None) -> str:
    """Name a failing cell by its index in the source notebook and its first line, and the
    line that failed (from the traceback's ``---->`` marker).

    The executed copy holds extra cells (papermill's injected parameters and error banner),
    so the failing cell is found by its error output and mapped back through its id.
    """
    failing_line = _failing_line(traceback)
    line_text = ""
    if failing_line:
        number, text = failing_line
        line_text = f", line {number}" + (f" ({text[:80]!r})" if text else "")
    try:
        import nbformat

        cells = nbformat.read(executed, as_version=4).cells
        failing = next(c for c in cells if c.cell_type == "code" and any(
            o.get("output_type") == "error" for o in c.get("outputs", [])))
        ids = [c.get("id") for c in nbformat.read(source, as_version=4).cells]
        first = next((line for line in failing.source.splitlines() if line.strip()), "")
        where = (f"source cell {ids.index(failing.get('id'))}" if failing.get("id") in ids
                 else f"executed cell {index}")
        if failing_line and not failing_line[1]:  # no marker: take the text from the cell
            lines = failing.source.splitlines()
            if 0 < failing_line[0] <= len(lines) and lines[failing_line[0] - 1].strip():
                line_text += f" ({lines[failing_line[0] - 1].strip()[:80]!r})"
        return f"{where} ({first.strip()[:60]!r}){line_text}"
    except (OSError, ValueError, StopIteration):
        return f"executed cell {index}{line_text}"


def build_book(profile: str = "full", run_notebooks: bool = True,
               overrides: dict | None = None, common: dict | None = None) -> Path:
    """Run every claim (unless ``run_notebooks=False``), then compile the HTML book.

    ``overrides`` maps a claim to its parameter overrides; ``common`` applies to every claim
    (the CLI's ``--device`` and ``--dtype``).

    Returns the path of ``_build/PROFILE/html/index.html``.

    Parameters
    ----------
    profile : str, optional
        A profile of ``notebooks/profiles.yaml``; default ``"full"``.
    run_notebooks : bool, optional
        Run every claim with a notebook first (:func:`run`); default True. With False, the
        notebooks already executed into ``_build/PROFILE/executed`` are compiled.
    overrides : dict or None, optional
        ``{slug: {parameter: value}}``; a claim's own overrides win over ``common``. Default
        ``None``: none.
    common : dict or None, optional
        ``{parameter: value}`` for every claim; default ``None``: none.

    Returns
    -------
    Path
        ``_build/PROFILE/html/index.html``.

    Raises
    ------
    RunError
        When a claim's executed notebook is missing, or a results file was written by
        another profile (the message names the file and both profiles); also when a claim's
        run fails, a claim's results file is missing, MathJax is not installed, or
        jupyter-book fails (the message ends with its log's tail).
    """

    slugs = available_slugs()
    if run_notebooks:
        for slug in slugs:
            run(slug, profile, {**(common or {}), **((overrides or {}).get(slug) or {})})
    build = profile_dir(profile)
    staging = build / "book-src"
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True)
    bibliographies = {f"book/claim-{path.parent.name}.bib": path
                      for path in claim_bibliographies()}
    _stage_config(staging / "_config.yml", profile, list(bibliographies))
    toc = yaml.safe_load((PROJECT_ROOT / "_toc.yml").read_text(encoding="utf-8"))
    (staging / "_toc.yml").write_text(yaml.safe_dump(catalog.toc_with_claims(toc, slugs),
                                                     sort_keys=False), encoding="utf-8")
    shutil.copytree(PROJECT_ROOT / "book", staging / "book")
    for name, path in bibliographies.items():
        shutil.copy2(path, staging / name)
    claims = staging / catalog.PAGES
    claims.mkdir()
    (staging / "results").mkdir()  # each page links its results file for download
    for path in sorted((build / "results").glob("*.json")):
        shutil.copy2(path, staging / "results" / path.name)
    try:
        # read (and digest) every results file once: the footers and the ledger share them
        results = load_results(build / "results", profile)
        for slug in slugs:
            executed = build / "executed" / f"{slug}.ipynb"
            if not executed.is_file():
                raise RunError(f"{executed} is missing: run `anisotropy run {slug} --profile "
                               f"{profile}` first.")
            stage_claim_notebook(executed, claims / f"{slug}.ipynb",
                                 footer=_provenance_footer(slug, results.get(slug), profile))
        write_ledger(build / "results", staging / "book" / "ledger.md", slugs, profile=profile,
                     results=results)
        write_glance(build / "results", staging / "book" / "glance.md", slugs, profile=profile,
                     results=results)
    except ResultsError as error:  # another profile's results, or an unreadable file
        raise RunError(str(error)) from error
    write_data_files(staging / "book" / "data-files.md")
    _install_mathjax(staging / "book" / "_static")
    install_plotly(staging / "book" / "_static")
    html = build / "html"
    command = [str(Path(sys.executable).with_name("jupyter-book")), "build", str(staging),
               "--path-output", str(staging), "--warningiserror", "--keep-going", "--all"]
    completed = subprocess.run(command, cwd=staging, capture_output=True, text=True)
    log = build / "book-build.log"
    log.write_text(completed.stdout + completed.stderr)
    if completed.returncode != 0:
        tail = "\n".join((completed.stdout + completed.stderr).splitlines()[-40:])
        raise RunError(f"jupyter-book build failed (full log: {log}):\n{tail}")
    if html.exists():
        shutil.rmtree(html)
    shutil.copytree(staging / "_build" / "html", html)
    return html / "index.html"


#: Where the claims' packages are: a package may hold its own ``references.bib``.
CLAIMS_DIR = Path(__file__).resolve().parents[1] / "claims"


def claim_bibliographies(claims_dir: Path = CLAIMS_DIR) -> list[Path]:
    """The bibliographies the claims' packages hold: each ``NAME/references.bib`` under
    ``claims_dir``, in the packages' order.

    A claim whose page cites a paper that ``book/references.bib`` does not hold keeps its
    entry in its own package, so that adding a claim edits no shared file; the book build
    adds each to the staged ``_config.yml``'s ``bibtex_bibfiles``.

    Parameters
    ----------
    claims_dir : pathlib.Path, optional
        The folder of the claims' packages (default :data:`CLAIMS_DIR`).

    Returns
    -------
    list of pathlib.Path
        The files, sorted by their package's name.
    """
    return sorted(claims_dir.glob("*/references.bib"))


def _stage_config(target: Path, profile: str,
                  bibliographies: tuple[str, ...] | list[str] = ()) -> Path:
    """Copy ``_config.yml`` into the book sources, with the profile, the build date and the
    commit added to the footer of every page, and ``bibliographies`` (paths in the book
    sources) added to its ``bibtex_bibfiles``."""

    config = yaml.safe_load((PROJECT_ROOT / "_config.yml").read_text(encoding="utf-8"))
    config["bibtex_bibfiles"] = [*config.get("bibtex_bibfiles", []), *bibliographies]
    html = config.setdefault("html", {})
    built = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    html["extra_footer"] = (f"{html.get('extra_footer', '')} Profile {profile}; built "
                            f"{built} from commit {git_describe() or 'unknown'}.").strip()
    target.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return target


def _provenance_footer(slug: str, record: dict | None, profile: str) -> str:
    """The page footer: where the page's numbers came from, in one line, from the claim's
    results record (:func:`anisotropy.report.provenance.short_environment`)."""

    if record is None:
        raise RunError(f"{profile_dir(profile) / 'results' / f'{slug}.json'} is missing: run "
                       f"`anisotropy run {slug} --profile {profile}` first.")
    stale = f" **{STALE_TEXT}**" if record["stale"] else ""
    where = short_environment(record.get("environment"))
    return (f"```{{admonition}} Provenance\n:class: note\n{where}"
            f"; {record['runtime_s']:.0f} s.{stale} {data_line(record.get('data'))} "
            f"Download {{download}}`this notebook, "
            f"executed <{slug}.ipynb>` or {{download}}`its results file <../results/{slug}.json>`"
            ", which holds every number on this page and the full environment block.\n```")


def stage_claim_notebook(executed: Path, target: Path, footer: str | None = None) -> Path:
    """Copy an executed notebook into the book sources, showing its parameters once.

    An executed notebook holds two parameter cells: the notebook's own ``parameters`` cell
    (the defaults) and papermill's injected cell (tagged ``injected-parameters``: the values
    that actually ran, profile and overrides included). The page shows the values that ran:
    when an injected cell exists, the defaults cell gets the ``remove-cell`` tag, which
    Jupyter Book honours. Every other code cell without a display tag gets ``hide-input``:
    the page reads as prose, tables and figures, with the code one click away. ``footer``
    (Markdown) ends the page: the provenance line. The executed notebook itself is left as
    it is.

    Parameters
    ----------
    executed : Path
        The executed notebook (``_build/PROFILE/executed/SLUG.ipynb``).
    target : Path
        Where the page's notebook is written (in ``_build/PROFILE/book-src/notebooks``).
    footer : str or None, optional
        The Markdown of a last cell; default ``None``: none.

    Returns
    -------
    Path
        ``target``, its inline plotly.js replaced by the book's shared copy
        (:func:`anisotropy.book.assets.externalize_plotly`).
    """
    import nbformat


    notebook = nbformat.read(executed, as_version=4)
    injected = any("injected-parameters" in c.get("metadata", {}).get("tags", [])
                   for c in notebook.cells)
    shown = ("hide-input", "hide-cell", "remove-cell", "remove-input", "parameters",
             "injected-parameters")
    for cell in notebook.cells:
        tags = list(cell.get("metadata", {}).get("tags", []))
        if injected and "parameters" in tags and "remove-cell" not in tags:
            cell.metadata["tags"] = [*tags, "remove-cell"]
        elif cell.cell_type == "code" and not set(tags) & set(shown):
            cell.metadata["tags"] = [*tags, "hide-input"]
    if footer:
        notebook.cells.append(nbformat.v4.new_markdown_cell(footer))
    externalize_plotly(notebook)  # the page loads _static/plotly.min.js, served once
    nbformat.write(notebook, target)
    return target


def _install_mathjax(static: Path) -> None:
    """Copy MathJax 3 (bundled by the django-static-mathjax wheel) next to the pages."""

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
