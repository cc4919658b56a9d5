"""Command line: ``python -m predictivebench prepare <benchmark> <source> <out.parquet>``."""
from __future__ import annotations

import argparse
import json
import sys
from typing import List, Optional

from .errors import PredictiveBenchError
from .registry import get_preparer, registered
from .tables import load_schema, validate_table, write_table


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m predictivebench",
                                     description="Flatten benchmark files into task tables.")
    commands = parser.add_subparsers(dest="command", required=True)
    prepare = commands.add_parser("prepare", help="flatten raw files into a parquet task table")
    benchmarks = prepare.add_subparsers(dest="benchmark", required=True)
    for name in registered():
        try:
            preparer = get_preparer(name)
        except (ImportError, PredictiveBenchError):
            continue
        sub = benchmarks.add_parser(name, help=preparer.help)
        if preparer.multiple_sources:
            sub.add_argument("source", nargs="+", help="the raw files, stacked in this order")
        else:
            sub.add_argument("source", help="the raw file or directory")
        sub.add_argument("out", help="the parquet file to write")
        if preparer.add_arguments is not None:
            preparer.add_arguments(sub)
    schema = commands.add_parser("schema", help="print a benchmark's task-table schema")
    schema.add_argument("benchmark", choices=sorted(registered()))
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "schema":
            preparer = get_preparer(args.benchmark)
            print(json.dumps(load_schema(preparer.schema), indent=2))
            return 0
        preparer = get_preparer(args.benchmark)
        options = {key: value for key, value in vars(args).items()
                   if key not in {"command", "benchmark", "source", "out"}}
        source = args.source
        if isinstance(source, list):
            source = source[0] if len(source) == 1 else source
        file = source if isinstance(source, str) else ", ".join(source)
        table = validate_table(preparer.function(source, **options), preparer.schema,
                               file=file)
        write_table(table, preparer.schema, args.out)
    except PredictiveBenchError as error:
        print(f"predictivebench: error: {error}", file=sys.stderr)
        return 2
    print(f"wrote {len(table)} rows to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
