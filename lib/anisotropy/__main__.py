"""Command line: ``anisotropy models | data verify | run SLUG | book``."""

from __future__ import annotations

import argparse
import sys
import time


def _models(_args) -> int:
    from anisotropy.inputs.models import list_models

    table = list_models()
    print(table[["name", "kind", "layers", "dim", "package", "installed", "source"]]
          .to_string(index=False))
    return 0


def _data_verify(_args) -> int:
    from anisotropy.inputs.data import DataError, data_root, verify_all

    try:
        count = verify_all()
    except DataError as error:
        print(f"data verify: {error}", file=sys.stderr)
        return 1
    print(f"data verify: {count} files in {data_root()} match their sha256.")
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


def _run(args) -> int:
    from anisotropy.book.runner import RunError, parse_overrides, run

    try:
        run(args.slug, args.profile, {**_device_overrides(args),
                                      **parse_overrides(args.param or [])},
            log_output=args.verbose)
    except RunError as error:
        print(f"anisotropy run: {error}", file=sys.stderr)
        return 1
    return 0


def _book(args) -> int:
    from anisotropy.book.runner import RunError, build_book

    began = time.perf_counter()
    try:
        index = build_book(args.profile, run_notebooks=not args.no_run,
                           common=_device_overrides(args))
    except RunError as error:
        print(f"anisotropy book: {error}", file=sys.stderr)
        return 1
    print(f"Book built in {time.perf_counter() - began:.0f} s: open {index}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="anisotropy", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("models", help="list the model registry").set_defaults(func=_models)
    data = sub.add_parser("data", help="data commands")
    data_sub = data.add_subparsers(dest="data_command", required=True)
    data_sub.add_parser("verify", help="check every data file's sha256").set_defaults(
        func=_data_verify)
    run = sub.add_parser("run", help="execute one claim notebook with papermill")
    run.add_argument("slug")
    run.add_argument("--profile", default="smoke")
    run.add_argument("-p", "--param", action="append", metavar="NAME=VALUE",
                     help="override a notebook parameter (repeatable)")
    run.add_argument("-v", "--verbose", action="store_true", help="stream cell output")
    _add_device_options(run)
    run.set_defaults(func=_run)
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
