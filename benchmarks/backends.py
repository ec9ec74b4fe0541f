"""DuckDB against PostgreSQL in one run: bulk-insert rows/s, and `chain` / `audit independence` at scale.

A PostgreSQL cluster kept in ``--data``/pg (``initdb`` on first use; as root it runs as the ``postgres``
user) is started for the run on a free port and stopped at its end, so both engines run on the same
machine at the same moment:

* bulk insert: ``Store.bulk_insert`` of the same Arrow table of term postings into each engine (Arrow
  view + ``INSERT ... SELECT`` in DuckDB, ``COPY`` of Arrow-written CSV in PostgreSQL), plain and with
  ``or_ignore`` (PostgreSQL: COPY into a temporary table, then ``INSERT ... ON CONFLICT DO NOTHING``);
* graph queries: the synthetic store of :func:`benchmarks.graph.generate` (built in DuckDB, then copied
  into PostgreSQL with :func:`graphcite.store.copy_store`, i.e. through COPY; both kept in ``--data``
  and reused, since the 1M-claim pair takes about 20 minutes to build), then in a fresh process per
  engine ``graph.chain(store, claim)`` and ``audit_independence(store, claim)`` for 200 random claims:
  p50/p95/p99, the child's own CPU time per call (all of DuckDB's work, only the client's for
  PostgreSQL; steadier than wall time on a shared machine; ``chain_cpu_p50_ms`` is the median per chain and
  ``independence_cpu_p50_ms`` per audit,
  about the wall p50 of an idle machine for DuckDB with one thread) and its peak RSS. Each code opens DuckDB as its
  ``graphcite chain`` does (one worker thread since POINT_READ_THREADS, DuckDB's default before);
  ``--threads N`` adds rows of the current code with N threads (0: DuckDB's default) to compare.
  ``--baseline REV`` times graphcite as of git revision REV on
  the same stores in the same run (exported with ``git archive``), for before/after rows, ``--runs N``
  pairs of them interleaved, and a last row per engine with the after/before ratios (median of the
  runs). A kept store from an older graphcite is upgraded and its lineage table filled first (the
  older code is told to read the newer schema version: it only reads, and ignores the added table).

    python -m benchmarks.backends [--sizes 100000,1000000] [--rows 1000000] [--baseline REV] [--runs N]
                                  [--threads N] [--engines duckdb,postgresql] [--data DIR] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from benchmarks.common import DATA, ROOT, emit
from benchmarks.graph import PEAK_RSS, ensure_lineage, generate

if TYPE_CHECKING:
    from graphcite.store.pgserver import PgServer

__all__ = ["bulk_rates", "main", "query_latency", "ratios"]

SAMPLE = 200

QUERY_CHILD = """
import json, random, statistics, sys, time
import graphcite.graph.fetch as fetch
import graphcite.store.base as base
from graphcite.store import Store
from graphcite.graph import audit_independence, chain
db, n, lineage, threads = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
if threads < 0:  # as the CLI's chain opens the store (code from before POINT_READ_THREADS: DuckDB's default)
    import graphcite.cli.graph as cli_graph
    threads = getattr(cli_graph, "POINT_READ_THREADS", None) or 0
if lineage != "default":
    fetch.LINEAGE_QUERY = lineage
base.SCHEMA_VERSION = max(base.SCHEMA_VERSION, 3)  # older code reads the stores the newer one has upgraded
with Store(db, read_only=True) as store:
    if threads and store.engine == "duckdb":
        store.con.execute(f"SET threads = {threads}")
    threads = store.scalar("SELECT current_setting('threads')") if store.engine == "duckdb" else None
    ids = [r[0] for r in store.tuples("SELECT claim_id FROM claim WHERE part IS NULL ORDER BY claim_id")]
    sample = random.Random(11).sample(ids, min(n, len(ids)))
    del ids
    for cid in sample[:5]:
        chain(store, cid); audit_independence(store, cid)
    chains, indep, chain_cpu, indep_cpu = [], [], [], []
    cpu = time.process_time()
    for cid in sample:
        t, c = time.perf_counter(), time.process_time(); chain(store, cid)
        chains.append(time.perf_counter() - t); chain_cpu.append(time.process_time() - c)
    for cid in sample:
        t, c = time.perf_counter(), time.process_time(); audit_independence(store, cid)
        indep.append(time.perf_counter() - t); indep_cpu.append(time.process_time() - c)
    cpu = (time.process_time() - cpu) / (2 * len(sample)) * 1000
q = lambda xs, p: statistics.quantiles(xs, n=100)[p - 1] * 1000
print(json.dumps({"chain_p50_ms": q(chains, 50), "chain_p95_ms": q(chains, 95), "chain_p99_ms": q(chains, 99),
                  "chain_cpu_p50_ms": q(chain_cpu, 50),
                  "independence_p50_ms": q(indep, 50), "independence_p95_ms": q(indep, 95),
                  "independence_p99_ms": q(indep, 99), "independence_cpu_p50_ms": q(indep_cpu, 50),
                  "client_cpu_ms": cpu, "peak_rss_mb": peak_rss_mb(),
                  "duckdb_threads": threads}))
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
        if engine == "postgresql":
            _drop_database(pg_url)
        out.append({"measure": "bulk_insert", "engine": engine, "rows": rows,
                    "rows_per_s": round(rows / plain), "or_ignore_rows_per_s": round(rows / ignore)})
    return out


def _drop_database(url: str) -> None:
    import psycopg

    base, name = url.rsplit("/", 1)
    with psycopg.connect(f"{base}/postgres", autocommit=True) as con:
        con.execute(f'DROP DATABASE IF EXISTS "{name}"')  # type: ignore[arg-type]


def query_latency(db: str, engine: str, claims: int, *, code: str = "current", lineage: str = "default",
                  pythonpath: Path | None = None, threads: int = -1, run: int = 1) -> dict[str, Any]:
    """p50/p95/p99 of ``chain`` and ``audit independence`` for :data:`SAMPLE` random claims, in a fresh process.

    ``pythonpath`` runs an exported older graphcite instead of this checkout (the ``before`` rows);
    ``threads`` sets DuckDB's worker threads on the read connection: -1 (the default) as the code's
    ``graphcite chain`` opens the store (``graphcite.cli.graph.POINT_READ_THREADS``; DuckDB's default for
    code from before it), 0 DuckDB's default, N that many. The row's ``duckdb_threads`` is the setting read back.
    """
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    done = subprocess.run([sys.executable, "-c", PEAK_RSS + QUERY_CHILD, db, str(SAMPLE), lineage, str(threads)],
                          capture_output=True, text=True, cwd=pythonpath or ROOT, env=env, check=False)
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-2000:])
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return {"measure": "graph", "engine": engine, "claims": claims, "code": code, "lineage": lineage, "run": run,
            **{k: round(v, 1) if isinstance(v, float) else v for k, v in result.items()}}


def ratios(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per engine and size: the current code's p50s and CPU over the before code's, median of the runs."""
    import statistics

    out = []
    graph = [r for r in rows if r.get("measure") == "graph"]
    for engine, claims in sorted({(r["engine"], r["claims"]) for r in graph}):
        mine = [r for r in graph if (r["engine"], r["claims"]) == (engine, claims)]
        before = {r["run"]: r for r in mine if str(r["code"]).startswith("before")}
        for code in sorted({r["code"] for r in mine if not str(r["code"]).startswith("before")}):
            after = {r["run"]: r for r in mine if r["code"] == code}
            runs = sorted(set(before) & set(after))
            if not runs:
                continue
            row: dict[str, Any] = {"measure": "ratio after/before", "engine": engine, "claims": claims, "code": code,
                                   "runs": len(runs)}
            for key in ("chain_p50_ms", "independence_p50_ms", "client_cpu_ms", "chain_cpu_p50_ms",
                        "independence_cpu_p50_ms"):
                row[key] = round(statistics.median(after[n][key] / before[n][key] for n in runs), 2)
            out.append(row)
    return out


def export_revision(revision: str, folder: Path) -> Path:
    """The ``graphcite`` package as of git ``revision``, written into ``folder`` (for the before rows)."""
    archive = subprocess.run(["git", "archive", revision, "graphcite"], cwd=ROOT, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    return folder


def _cluster(folder: Path) -> PgServer:
    """The benchmark's PostgreSQL cluster kept in ``folder`` (created on first use), started on a free port."""
    from graphcite.store.pgserver import PgServer, _free_port, find_pg_bin, init_server

    if not (folder / "data" / "PG_VERSION").exists():
        return init_server(folder)
    bin_dir = find_pg_bin()
    if bin_dir is None:
        raise FileNotFoundError("PostgreSQL server binaries (initdb, pg_ctl) not found")
    server = PgServer(bin_dir, folder, _free_port(), "postgres")
    server.start()
    return server


def graph_stores(claims: int, data: Path, server: PgServer, *, rebuild: bool = False) -> tuple[Path, str, list[dict]]:
    """The generated DuckDB store of ``claims`` claims and its PostgreSQL copy, built once and kept in ``data``."""
    import psycopg

    from graphcite.store import Store, copy_store

    rows: list[dict[str, Any]] = []
    duck = data / f"graph-{claims}.duckdb"
    name = f"graph{claims}"
    with psycopg.connect(server.url(), autocommit=True) as con:
        exists = con.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone() is not None
        if exists and (rebuild or not duck.exists()):
            con.execute(f'DROP DATABASE "{name}"')  # type: ignore[arg-type]
            exists = False
    if rebuild or not duck.exists():
        counts = generate(duck, claims)
        rows.append({"measure": "generate", "engine": "duckdb", "claims": claims,
                     "seconds": counts["generate_seconds"]})
    url = server.url(name)
    rows += _upgraded(str(duck), "duckdb", claims)  # a store kept from an older graphcite
    if not exists:
        url = server.create_database(name)
        start = time.perf_counter()
        with Store(duck, read_only=True) as source, Store(url) as target:
            copied = copy_store(source, target)
        seconds = time.perf_counter() - start
        total = sum(copied.values())
        rows.append({"measure": "copy_store", "engine": "duckdb->postgresql", "claims": claims, "rows": total,
                     "rows_per_s": round(total / seconds), "seconds": round(seconds, 1)})
    rows += _upgraded(url, "postgresql", claims)
    return duck, url, rows


def _upgraded(db: str, engine: str, claims: int) -> list[dict[str, Any]]:
    """Open a kept store for writing (the schema upgrade) and fill its lineage table if it is empty."""
    from graphcite.store import Store

    start = time.perf_counter()
    with Store(db) as store:
        written = ensure_lineage(store)
    if not written:
        return []
    return [{"measure": "lineage table filled", "engine": engine, "claims": claims, "rows": written,
             "seconds": round(time.perf_counter() - start, 1)}]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000", help="claims per generated store, comma-separated")
    parser.add_argument("--rows", type=int, default=1_000_000, help="rows per bulk-insert measurement (0: skip it)")
    parser.add_argument("--data", type=Path, default=DATA,
                        help="where the generated stores and the PostgreSQL cluster are kept between runs")
    parser.add_argument("--rebuild", action="store_true", help="generate and copy the stores again")
    parser.add_argument("--baseline", metavar="REV", help="also time graphcite as of git revision REV (before rows)")
    parser.add_argument("--lineage", default="default", choices=["default", "levels", "table"],
                        help="force one lineage read (graph.fetch.LINEAGE_QUERY) in the current code")
    parser.add_argument("--runs", type=int, default=1, help="before/after pairs per engine and size, interleaved")
    parser.add_argument("--threads", type=int, default=None,
                        help="also time the current code with DuckDB's worker threads set to this many "
                             "(0: DuckDB's default); without it each code runs as its `graphcite chain` does")
    parser.add_argument("--engines", default="duckdb,postgresql",
                        help="the engines whose graph queries are timed, comma-separated (the PostgreSQL copy is "
                             "built and kept either way)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    rows: list[dict[str, Any]] = []
    args.data.mkdir(parents=True, exist_ok=True)
    server = _cluster(args.data / "pg")
    try:
        with tempfile.TemporaryDirectory(prefix="graphcite-bench-") as folder:
            work = Path(folder)
            if args.rows:
                rows += bulk_rates(str(work / "bulk.duckdb"), server.create_database(f"bulk{os.getpid()}"), args.rows)
            before = export_revision(args.baseline, work) if args.baseline else None
            for claims in (int(s) for s in args.sizes.split(",")):
                duck, url, built = graph_stores(claims, args.data, server, rebuild=args.rebuild)
                rows += built
                engines = [(e, db) for e, db in (("duckdb", str(duck)), ("postgresql", url))
                           if e in args.engines.split(",")]
                for engine, db in engines:
                    for run in range(1, args.runs + 1):  # before and after interleaved, run by run
                        if before is not None:
                            rows.append(query_latency(db, engine, claims, code=f"before ({args.baseline})",
                                                      pythonpath=before, run=run))
                        rows.append(query_latency(db, engine, claims, lineage=args.lineage, run=run))
                        if args.threads is not None and engine == "duckdb":
                            label = f"current, threads={args.threads or 'default'}"
                            rows.append(query_latency(db, engine, claims, code=label, lineage=args.lineage,
                                                      threads=args.threads, run=run))
    finally:
        server.stop("fast")
    emit(rows + ratios(rows), args.json)


if __name__ == "__main__":
    main()
