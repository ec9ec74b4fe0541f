"""DuckDB against PostgreSQL in one run: bulk-insert rows/s, and `chain` / `audit independence` at scale.

A throwaway PostgreSQL server is started for the run (``initdb`` into a temporary folder; as root it
runs as the ``postgres`` user), so both engines run on the same machine at the same moment:

* bulk insert: ``Store.bulk_insert`` of the same Arrow table of term postings into each engine (Arrow
  view + ``INSERT ... SELECT`` in DuckDB, ``COPY`` of Arrow-written CSV in PostgreSQL), plain and with
  ``or_ignore`` (PostgreSQL: COPY into a temporary table, then ``INSERT ... ON CONFLICT DO NOTHING``);
* graph queries: the synthetic store of :func:`benchmarks.graph.generate` (built in DuckDB, then copied
  into PostgreSQL with :func:`graphcite.store.copy_store`, i.e. through COPY), then in a fresh process
  per engine ``graph.chain(store, claim)`` and ``audit_independence(store, claim)`` for 200 random
  claims: p50/p95 and the child's peak RSS.

    python -m benchmarks.backends [--sizes 100000] [--rows 1000000] [--json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pyarrow as pa

from benchmarks.common import ROOT, emit
from benchmarks.graph import PEAK_RSS, generate

__all__ = ["bulk_rates", "main", "query_latency"]

SAMPLE = 200

QUERY_CHILD = """
import json, random, statistics, sys, time
from graphcite.store import Store
from graphcite.graph import audit_independence, chain
db, n = sys.argv[1], int(sys.argv[2])
with Store(db, read_only=True) as store:
    ids = [r[0] for r in store.tuples("SELECT claim_id FROM claim WHERE part IS NULL ORDER BY claim_id")]
    sample = random.Random(11).sample(ids, min(n, len(ids)))
    for cid in sample[:5]:
        chain(store, cid); audit_independence(store, cid)
    chains, indep = [], []
    for cid in sample:
        t = time.perf_counter(); chain(store, cid); chains.append(time.perf_counter() - t)
    for cid in sample:
        t = time.perf_counter(); audit_independence(store, cid); indep.append(time.perf_counter() - t)
q = lambda xs, p: statistics.quantiles(xs, n=100)[p - 1] * 1000
print(json.dumps({"chain_p50_ms": q(chains, 50), "chain_p95_ms": q(chains, 95),
                  "independence_p50_ms": q(indep, 50), "independence_p95_ms": q(indep, 95),
                  "peak_rss_mb": peak_rss_mb()}))
"""


def _postings(rows: int) -> pa.Table:
    return pa.table({"term": pa.array([f"term{i % 50_000}" for i in range(rows)], type=pa.string()),
                     "unit_id": pa.array([f"u{i // 50_000:08d}" for i in range(rows)], type=pa.string())})


def bulk_rates(duck_path: str, pg_url: str, rows: int) -> list[dict[str, Any]]:
    """Rows per second of ``bulk_insert`` into each engine, plain and ``or_ignore`` (all rows new)."""
    from graphcite.store import Store

    table = _postings(rows)
    half = table.slice(0, rows // 2)
    out = []
    for engine, db in (("duckdb", duck_path), ("postgresql", pg_url)):
        with Store(db) as store:
            start = time.perf_counter()
            with store.transaction():
                store.bulk_insert("term_posting", table)
            plain = time.perf_counter() - start
            store.execute("DELETE FROM term_posting")
            with store.transaction():
                store.bulk_insert("term_posting", half)
            start = time.perf_counter()
            with store.transaction():  # half the rows are there already: they are skipped
                store.bulk_insert("term_posting", table, or_ignore=True)
            ignore = time.perf_counter() - start
            assert store.scalar("SELECT count(*) FROM term_posting") == rows
        out.append({"measure": "bulk_insert", "engine": engine, "rows": rows,
                    "rows_per_s": round(rows / plain), "or_ignore_rows_per_s": round(rows / ignore)})
    return out


def query_latency(db: str, engine: str, claims: int) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", PEAK_RSS + QUERY_CHILD, db, str(SAMPLE)], capture_output=True,
                          text=True, cwd=ROOT, check=False)
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-2000:])
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return {"measure": "graph", "engine": engine, "claims": claims,
            **{k: round(v, 1) if isinstance(v, float) else v for k, v in result.items()}}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000", help="claims per generated store, comma-separated")
    parser.add_argument("--rows", type=int, default=1_000_000, help="rows per bulk-insert measurement")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    from graphcite.store import Store, copy_store
    from graphcite.store.pgserver import temporary_server

    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="graphcite-bench-") as folder, temporary_server() as server:
        work = Path(folder)
        rows += bulk_rates(str(work / "bulk.duckdb"), server.create_database("bulk"), args.rows)
        for claims in (int(s) for s in args.sizes.split(",")):
            duck = work / f"graph{claims}.duckdb"
            counts = generate(duck, claims)
            url = server.create_database(f"graph{claims}")
            start = time.perf_counter()
            with Store(duck, read_only=True) as source, Store(url) as target:
                copied = copy_store(source, target)
            seconds = time.perf_counter() - start
            total = sum(copied.values())
            rows.append({"measure": "copy_store", "engine": "duckdb->postgresql", "claims": claims, "rows": total,
                         "rows_per_s": round(total / seconds), "seconds": round(seconds, 1),
                         "duckdb_generate_s": counts["generate_seconds"]})
            rows.append(query_latency(str(duck), "duckdb", claims))
            rows.append(query_latency(url, "postgresql", claims))
    emit(rows, args.json)


if __name__ == "__main__":
    main()
