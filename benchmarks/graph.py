"""Graph queries at scale: support chains and independence over generated stores of 10k and 100k claims.

Each store is generated inside DuckDB with INSERT ... SELECT over range() (seconds, not minutes): sources
in lineage chains up to depth 5 (derived_from, quotes, implements, some supersession), 20 units per
source, answers of 10 claims, 5 citations per claim and one verification record per claim whose
report cites those units. Then, in fresh processes:

* bounded: ``graph.chain(store, claim)`` and ``audit_independence(store, claim)`` for 200 random claims
  (p50/p95, peak RSS), the store opened as ``graphcite chain`` opens it (one DuckDB worker thread) —
  what graphcite does — once with the lineage read from the
  source_lineage table (the default; generate fills it as ingest would) and once walked level by level
  through the source_link indexes;
* naive: load the whole store into one networkx graph (``build_graph(all=True)``), then answer the
  same 200 questions from it (load time, per-query p50/p95, peak RSS).

    python -m benchmarks.graph [--sizes 10000,100000] [--million] [--naive-max 100000] [--json]
    python -m benchmarks.run graph --graph-sizes 10000,100000 [--json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.common import DATA, ROOT, emit

__all__ = ["ensure_lineage", "generate", "main", "run"]

CITATIONS = 5
UNITS_PER_SOURCE = 20
CLAIMS_PER_ANSWER = 10
CHAIN = 6  # sources per lineage chain: depth up to 5
SAMPLE = 200


def ensure_lineage(store: Any) -> int:
    """Fill the source_lineage table of a store written around ingest (rows inserted in SQL, or a store
    from before the table) when it is empty, as ingest would; returns the rows written (0: it was filled).

    Rows written before ingest kept closure cards (8c1701d) are written again: a chain reads them with one
    statement more, so a benchmark on them would time an older store, not what ingest writes today.
    """
    from graphcite.ingest.lineage import rebuild_lineage
    from graphcite.store.queries.lineage import lineage_table_empty

    if lineage_table_empty(store):
        return rebuild_lineage(store)
    linked = store.row("SELECT source_json FROM source_lineage WHERE links_json <> '[]' "
                       "AND source_json IS NOT NULL LIMIT 1")
    return rebuild_lineage(store) if linked and '"closure"' not in linked["source_json"] else 0


def generate(db: Path, claims: int) -> dict[str, Any]:
    """Write a store with ``claims`` verified claims to ``db`` (replacing it); returns row counts."""
    from graphcite.store import Store

    db.unlink(missing_ok=True)
    sources = max(CHAIN * 10, claims // 5)
    units = sources * UNITS_PER_SOURCE
    answers = max(1, claims // CLAIMS_PER_ANSWER)
    start = time.perf_counter()
    with Store(db) as store:
        con = store.con
        con.execute("BEGIN TRANSACTION")
        con.execute(f"""
            INSERT INTO source (key, title, kind, visibility, current_revision, first_ingested_at)
            SELECT 'docs/s' || i || '.md', 'Source ' || i,
                   CASE WHEN i % {CHAIN} = 0 THEN 'decision' ELSE 'post' END,
                   CASE WHEN i % 97 = 5 THEN 'restricted' ELSE 'public' END,
                   substr(md5('r' || i), 1, 16), TIMESTAMP '2024-01-01'
            FROM range({sources}) t(i)""")
        con.execute(f"""
            INSERT INTO source_revision (revision_id, source_key, seq, content_hash, text, format, ingested_at,
                                         effective, status, title, kind, visibility, metadata_json)
            SELECT substr(md5('r' || i), 1, 16), 'docs/s' || i || '.md', 1, md5('c' || i),
                   'Document ' || i, 'markdown', TIMESTAMP '2024-01-01', DATE '2023-01-01' + CAST(i % 700 AS INTEGER),
                   'current', 'Source ' || i, 'post', 'public', '{{}}'
            FROM range({sources}) t(i)""")
        con.execute(f"""
            INSERT INTO evidence_unit (unit_id, revision_id, source_key, ordinal, start, "end", text, block_type,
                                       heading_path_json, status)
            SELECT substr(md5('u' || u), 1, 16), substr(md5('r' || (u // {UNITS_PER_SOURCE})), 1, 16),
                   'docs/s' || (u // {UNITS_PER_SOURCE}) || '.md', u % {UNITS_PER_SOURCE},
                   (u % {UNITS_PER_SOURCE}) * 120, (u % {UNITS_PER_SOURCE}) * 120 + 100,
                   'The relay makes at most ' || (u % 9 + 1) || ' delivery attempts for event class ' || u || '.',
                   'paragraph', '["Document", "Current decision"]', 'current'
            FROM range({units}) t(u)""")
        # lineage: inside each chain of CHAIN sources, source i derives from i-1 (quotes or implements now
        # and then); every 50th chain root supersedes the previous chain's root
        con.execute(f"""
            INSERT INTO source_link (link_id, from_key, to_key, relation, declared_in)
            SELECT substr(md5('l' || i), 1, 16), 'docs/s' || i || '.md', 'docs/s' || (i - 1) || '.md',
                   CASE WHEN i % 7 = 3 THEN 'quotes' WHEN i % 11 = 4 THEN 'implements' ELSE 'derived_from' END,
                   substr(md5('r' || i), 1, 16)
            FROM range({sources}) t(i) WHERE i % {CHAIN} <> 0
            UNION ALL
            SELECT substr(md5('s' || i), 1, 16), 'docs/s' || i || '.md', 'docs/s' || (i - {CHAIN}) || '.md',
                   'supersedes', substr(md5('r' || i), 1, 16)
            FROM range({CHAIN}, {sources}, {CHAIN}) t(i) WHERE i % ({CHAIN} * 50) = 0""")
        con.execute(f"""
            INSERT INTO answer (answer_rev, answer_id, question, format, content_json, stored_at)
            SELECT substr(md5('a' || a), 1, 16), 'answer-' || a, 'generated question ' || a, 'native', '{{}}',
                   TIMESTAMP '2024-06-01'
            FROM range({answers}) t(a)""")
        con.execute(f"""
            INSERT INTO claim (claim_id, answer_rev, ordinal, part, parent_id, text, claim_type, atomic_json)
            SELECT 'c' || substr(md5('k' || c), 1, 15), substr(md5('a' || (c // {CLAIMS_PER_ANSWER})), 1, 16),
                   c % {CLAIMS_PER_ANSWER}, NULL, NULL,
                   'The relay makes at most ' || (c % 9 + 1) || ' delivery attempts for class ' || c || '.',
                   'direct', '{{}}'
            FROM range({claims}) t(c)
            UNION ALL
            SELECT 'c' || substr(md5('p' || c), 1, 15), substr(md5('a' || (c // {CLAIMS_PER_ANSWER})), 1, 16),
                   c % {CLAIMS_PER_ANSWER}, 0, 'c' || substr(md5('k' || c), 1, 15),
                   'The relay makes at most ' || (c % 9 + 1) || ' delivery attempts for class ' || c || '.',
                   'direct', '{{}}'
            FROM range({claims}) t(c)""")
        con.execute(f"""
            CREATE TEMP TABLE cits AS
            SELECT c, k, CAST(hash(c * {CITATIONS} + k) % {units} AS BIGINT) AS u
            FROM range({claims}) a(c), range({CITATIONS}) b(k)""")
        con.execute("""
            INSERT INTO citation (citation_id, claim_id, ordinal, source_key, quote)
            SELECT 'c' || substr(md5('k' || c), 1, 15) || '-' || k, 'c' || substr(md5('k' || c), 1, 15), k,
                   eu.source_key, eu.text
            FROM cits JOIN evidence_unit eu ON eu.unit_id = substr(md5('u' || cits.u), 1, 16)""")
        con.execute(f"""
            INSERT INTO verification (record_id, claim_id, answer_rev, config_hash, config_json,
                                      evidence_revisions_json, verified_at, status, supported, result_json)
            SELECT substr(md5('v' || c), 1, 16), 'c' || substr(md5('k' || c), 1, 15),
                   substr(md5('a' || (c // {CLAIMS_PER_ANSWER})), 1, 16), 'bench', '{{}}',
                   to_json(list(DISTINCT eu.revision_id)), TIMESTAMP '2024-06-01', 'supported', true,
                   to_json({{'index': any_value(c % {CLAIMS_PER_ANSWER}), 'status': 'supported', 'supported': true,
                             'contradicting_evidence': CAST([] AS VARCHAR[]),
                             'citations': list({{'index': k, 'source': eu.source_key, 'revision': eu.revision_id,
                                                 'unit_id': eu.unit_id, 'start': eu.start, 'end': eu."end",
                                                 'quote': eu.text, 'page': CAST(NULL AS INTEGER),
                                                 'symbol': CAST(NULL AS VARCHAR),
                                                 'heading_path': ['Document', 'Current decision'],
                                                 'unit_status': 'current', 'role': CAST(NULL AS VARCHAR),
                                                 'valid': true, 'relation': 'supports', 'support_score': 0.9,
                                                 'findings': CAST([] AS VARCHAR[])}} ORDER BY k)}})
            FROM cits JOIN evidence_unit eu ON eu.unit_id = substr(md5('u' || cits.u), 1, 16)
            GROUP BY c""")
        con.execute("COMMIT")
        ensure_lineage(store)
        counts = {t: store.scalar(f"SELECT count(*) FROM {t}") for t in
                  ("source", "evidence_unit", "source_link", "claim", "citation", "verification")}
    counts["generate_seconds"] = round(time.perf_counter() - start, 1)
    return counts


BOUNDED_CHILD = """
import json, random, statistics, sys, time
import graphcite.graph.fetch
from graphcite.cli.graph import POINT_READ_THREADS
from graphcite.store import Store
from graphcite.graph import audit_independence, chain
db, n = sys.argv[1], int(sys.argv[2])
graphcite.graph.fetch.LINEAGE_QUERY = sys.argv[3]
with Store(db, read_only=True, threads=POINT_READ_THREADS) as store:  # as `graphcite chain` opens it
    ids = [r[0] for r in store.con.execute("SELECT claim_id FROM claim WHERE part IS NULL ORDER BY claim_id").fetchall()]
    sample = random.Random(11).sample(ids, min(n, len(ids)))
    for cid in sample[:5]:
        chain(store, cid)
    chains, indep = [], []
    for cid in sample:
        t = time.perf_counter(); chain(store, cid); chains.append(time.perf_counter() - t)
    for cid in sample:
        t = time.perf_counter(); audit_independence(store, cid, include_unsupported=True)
        indep.append(time.perf_counter() - t)
q = lambda xs, p: statistics.quantiles(xs, n=100)[p - 1] * 1000
print(json.dumps({"chain_p50_ms": q(chains, 50), "chain_p95_ms": q(chains, 95),
                  "independence_p50_ms": q(indep, 50), "independence_p95_ms": q(indep, 95),
                  "peak_rss_mb": peak_rss_mb()}))
"""

NAIVE_CHILD = """
import json, random, statistics, sys, time
from graphcite.store import Store
from graphcite.graph import build_graph, claim_tree, independence
db, n = sys.argv[1], int(sys.argv[2])
with Store(db, read_only=True) as store:
    ids = [r[0] for r in store.con.execute("SELECT claim_id FROM claim WHERE part IS NULL ORDER BY claim_id").fetchall()]
    sample = random.Random(11).sample(ids, min(n, len(ids)))
    t = time.perf_counter(); G = build_graph(store, all=True); load = time.perf_counter() - t
cache = {}
chains, indep = [], []
for cid in sample:
    t = time.perf_counter(); claim_tree(G, cid); chains.append(time.perf_counter() - t)
for cid in sample:
    t = time.perf_counter(); independence(G, cid, cache=cache); indep.append(time.perf_counter() - t)
q = lambda xs, p: statistics.quantiles(xs, n=100)[p - 1] * 1000
print(json.dumps({"load_s": load, "nodes": G.number_of_nodes(), "edges": G.number_of_edges(),
                  "chain_p50_ms": q(chains, 50), "chain_p95_ms": q(chains, 95),
                  "independence_p50_ms": q(indep, 50), "independence_p95_ms": q(indep, 95),
                  "peak_rss_mb": peak_rss_mb()}))
"""

# VmHWM is this process's own high-water mark; ru_maxrss would also count the parent's RSS at fork
# time (Linux carries it across exec), and the parent has just generated a large store.
PEAK_RSS = """
def peak_rss_mb():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
"""


def _child(code: str, *args: str) -> dict[str, Any]:
    """Run ``code`` in a fresh interpreter (its own peak RSS); it prints one JSON object last."""
    done = subprocess.run([sys.executable, "-c", PEAK_RSS + code, *args], capture_output=True, text=True, cwd=ROOT,
                          check=False)
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-2000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def _round(row: dict[str, Any]) -> dict[str, Any]:
    return {k: round(v, 2) if isinstance(v, float) else v for k, v in row.items()}


def run(sizes: list[int], *, naive_max: int = 100_000, sample: int = SAMPLE, keep: bool = False) -> list[dict[str, Any]]:
    """Generate each store, then time the bounded and the naive way; one row per (size, way)."""
    DATA.mkdir(parents=True, exist_ok=True)
    rows = []
    for size in sizes:
        db = DATA / f"graph-{size}.duckdb"
        counts = generate(db, size)
        for method, label in (("table", "lineage from source_lineage"), ("levels", "lineage level by level")):
            bounded = _child(BOUNDED_CHILD, str(db), str(sample), method)
            rows.append(_round({"benchmark": f"graph bounded ({label}) {size:,} claims", "claims": size,
                                "units": counts["evidence_unit"], "generate_s": counts["generate_seconds"],
                                "load_s": 0.0, **bounded}))
        if size <= naive_max:
            naive = _child(NAIVE_CHILD, str(db), str(sample))
            naive_row = _round({"benchmark": f"graph naive (whole store in networkx) {size:,} claims",
                                "claims": size, **naive})
            naive_row["first_answer_s"] = round(naive["load_s"] + naive["chain_p50_ms"] / 1000, 2)
            rows.append(naive_row)
        else:
            rows.append({"benchmark": f"graph naive {size:,} claims", "claims": size,
                         "skipped": f"above --naive-max {naive_max:,} (would hold the whole store in memory)"})
        if not keep:
            db.unlink(missing_ok=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.graph", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000", help="claims per generated store, comma separated")
    parser.add_argument("--million", action="store_true", help="also run a 1,000,000-claim store")
    parser.add_argument("--naive-max", type=int, default=100_000, help="skip the naive way above this many claims")
    parser.add_argument("--sample", type=int, default=SAMPLE, help="random claims to query")
    parser.add_argument("--keep", action="store_true", help="keep the generated stores in benchmarks/data")
    parser.add_argument("--json", action="store_true", help="one JSON object per benchmark")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s]
    if args.million:
        sizes.append(1_000_000)
    emit(run(sizes, naive_max=args.naive_max, sample=args.sample, keep=args.keep), args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
