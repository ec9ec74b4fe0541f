"""Benchmark runner: prints a table, or one JSON object per benchmark with --json.

    python -m benchmarks.run ingest|values|verify|graph|recognizers|all [--json] [options]
"""

from __future__ import annotations

import argparse
import sys

from benchmarks.common import DATA, emit


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.run")
    parser.add_argument("which", choices=["ingest", "values", "verify", "graph", "recognizers", "all"])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--sizes", default="5,50", help="generated corpus sizes in MB")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--claims", type=int, default=2000)
    parser.add_argument("--graph-sizes", default="10000,100000")
    parser.add_argument("--baseline", help="ingest: compare this tree with the graphcite tree at this folder only")
    parser.add_argument("--rounds", type=int, default=2, help="ingest --baseline: interleaved rounds (best of)")
    args = parser.parse_args(argv)
    DATA.mkdir(parents=True, exist_ok=True)
    rows = []
    if args.which in ("ingest", "all"):
        from benchmarks import ingest

        if args.baseline:
            from pathlib import Path

            rows += ingest.compare(Path(args.baseline), rounds=args.rounds)
        else:
            rows += ingest.run([float(s) for s in args.sizes.split(",")], args.jobs)
    if args.which in ("values", "all"):
        from benchmarks import ingest

        rows += ingest.run_values()
    if args.which in ("verify", "all"):
        from benchmarks import verify

        rows += verify.run(args.claims)
    if args.which in ("graph", "all"):
        from benchmarks import graph

        rows += graph.run([int(s) for s in args.graph_sizes.split(",")])
    if args.which in ("recognizers", "all"):
        from benchmarks import recognizers

        rows += recognizers.score_all()
    emit(rows, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
