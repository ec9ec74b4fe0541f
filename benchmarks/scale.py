"""Scale-out on one machine: ingest and check-batch in-process vs on Ray with 1 and 2 workers, one run.

    python -m benchmarks.scale [--mb 50] [--answers 10000] [--json] [--skip-ingest] [--skip-check]
                               [--skip-postgres] [--baseline-answers 2000]

The machine is shared, so besides wall-clock rates each row gives the CPU seconds the work used (this
process plus every process it started: Ray's workers, raylet and GCS) and the rate per CPU second,
which is the per-core rate whatever else runs. Ray runs on one runtime per configuration, started
before the clock (its start is a row of its own).

Ingest: a generated Markdown corpus (headings, front matter, tables, typed values; fixed seed, written
to a temporary folder) into a fresh DuckDB store per configuration. check-batch: ``--answers`` answers
of two claims each, drawn with a fixed seed from the bundled answers' claims, verified against the
bundled corpus. Ray times include the workers' first imports (spaCy, the lexicon), not the runtime's
start. Ratios are against the in-process run of the
same invocation; "per core" divides by the cores doing the work (1 in-process, N workers on Ray).

check-batch also runs in-process against PostgreSQL (a temporary server started before the clock,
the corpus ingested into it), unless ``--skip-postgres`` or the server binaries are missing; its
``cpu_s`` adds the server's processes to this one's, since the queries' work happens there. The
answers are drawn from a small pool of claims, so claim-keyed caches (decomposition, alignment) are
warm after the first few hundred answers: these are rates for a batch whose claims repeat. A warm-up
batch (300 other answers, not timed) fills this process's caches first, so the in-process runs on
DuckDB and PostgreSQL start alike.

The baseline rows verify ``--baseline-answers`` of the same answers in-process one answer at a time,
each reading its own evidence (``check_batch(read_ahead=False)``, as check-batch did before it read
chunks together), on each engine: compare their "answers per cpu_s" with the batched rows (0 skips them).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchmarks.common import ROOT, emit
from benchmarks.ingest import generate

CORPUS = ROOT / "graphcite" / "examples" / "corpus"
ANSWERS = ROOT / "graphcite" / "examples" / "answers"
CONFIGS: tuple[tuple[str, dict[str, Any], int], ...] = (
    ("in-process", {}, 1),
    ("ray, 1 worker", {"engine": "ray", "workers": 1}, 1),
    ("ray, 2 workers", {"engine": "ray", "workers": 2}, 2),
)


_TICK = os.sysconf("SC_CLK_TCK")


def _children_cpu(root: int) -> float:
    """CPU seconds (user + system) of every living process below ``root``."""
    parents: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        parents[int(entry)] = int(fields[1])
        cpu[int(entry)] = (int(fields[11]) + int(fields[12])) / _TICK
    total = 0.0
    for pid, seconds in cpu.items():
        ancestor = parents.get(pid, 0)
        while ancestor > 1 and ancestor != root:
            ancestor = parents.get(ancestor, 0)
        if ancestor == root:
            total += seconds
    return total


@contextlib.contextmanager
def _runtime(options: dict[str, Any], rows: list[dict[str, Any]]) -> Iterator[None]:
    """A local Ray runtime with ``workers`` CPUs for a Ray configuration (its start is recorded once)."""
    if options.get("engine") != "ray":
        yield
        return
    import ray

    from graphcite.distributed.runtime import LOCAL_SYSTEM_CONFIG

    start = time.perf_counter()
    ray.init(address="local", num_cpus=options["workers"], include_dashboard=False, log_to_driver=False,
             object_store_memory=256 * 1024 * 1024, logging_level=logging.ERROR,
             _system_config=LOCAL_SYSTEM_CONFIG)
    if not any(r["benchmark"] == "ray runtime start" for r in rows):
        rows.append({"benchmark": "ray runtime start", "engine": f"{options['workers']} CPU",
                     "seconds": round(time.perf_counter() - start, 2)})
    try:
        yield
    finally:
        ray.shutdown()


def _partial(row: dict[str, Any]) -> None:
    """Each run's row on stderr as soon as it is measured (the table comes at the end)."""
    print(json.dumps(row), file=sys.stderr, flush=True)


def _measure(work: Any) -> tuple[float, float, Any]:
    """Wall seconds, CPU seconds (this process and its children) and the result of ``work()``."""
    me = os.getpid()
    cpu0, kids0, wall0 = time.process_time(), _children_cpu(me), time.perf_counter()
    result = work()
    wall = time.perf_counter() - wall0
    return wall, time.process_time() - cpu0 + _children_cpu(me) - kids0, result


def _ingest_rows(megabytes: float, work: Path) -> list[dict[str, Any]]:
    from graphcite.ingest import ingest
    from graphcite.store import Store

    corpus = generate(work / "corpus", megabytes)
    rows: list[dict[str, Any]] = []
    runs: list[dict[str, Any]] = []
    for name, options, cores in CONFIGS:
        db = work / f"ingest-{cores}-{len(runs)}.duckdb"
        with _runtime(options, rows), Store(db) as store:
            seconds, cpu, report = _measure(lambda store=store, options=options: ingest(store, [corpus], **options))
        db.unlink()
        mb = report.bytes / 1e6
        runs.append({"benchmark": f"ingest {megabytes:g} MB", "engine": name, "seconds": round(seconds, 2),
                     "MB/s": round(mb / seconds, 3), "MB/s per core": round(mb / seconds / cores, 3),
                     "cpu_s": round(cpu, 1), "MB per cpu_s": round(mb / cpu, 3),
                     "units/s": round(report.units / seconds), "files": len(report.added)})
        _partial(runs[-1])
    for row in runs:
        row["speed-up"] = round(runs[0]["seconds"] / row["seconds"], 2)
    return rows + runs + [_parse_share(corpus, runs[0])]


def _parse_share(corpus: Path, in_process: dict[str, Any]) -> dict[str, Any]:
    """How the in-process ingest's CPU splits: the per-file work (what Ray spreads) and the rest (the
    driver's writing and term index, which stays in one process)."""
    from graphcite.ingest import files as filesmod
    from graphcite.ingest.prepare import prepare_file

    found, _ = filesmod.discover([corpus])
    mb = sum(item.path.stat().st_size for item in found) / 1e6
    start = time.process_time()
    for item in found:
        prepare_file(item)
    parse = time.process_time() - start
    write = max(in_process["cpu_s"] - parse, 1e-6)
    return {"benchmark": "ingest CPU split (in-process)", "engine": "parse / write",
            "cpu_s": f"{parse:.1f} / {write:.1f}", "MB per cpu_s": f"{mb / parse:.2f} / {mb / write:.2f}"}


def bench_answers(count: int, seed: int = 5) -> list[dict[str, Any]]:
    """``count`` distinct answers of two claims each, drawn from the bundled answers (fixed seed)."""
    claims = []
    for path in sorted(ANSWERS.glob("*.json")):
        claims.extend(json.loads(path.read_text(encoding="utf-8"))["claims"])
    rng = random.Random(seed)
    return [{"answer_id": f"bench-{i:06}", "claims": rng.sample(claims, 2)} for i in range(count)]


def _tree_cpu(pid: int) -> float:
    """CPU seconds of process ``pid`` and every living process below it."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        own = (int(fields[11]) + int(fields[12])) / _TICK
    except (OSError, IndexError):
        own = 0.0
    return own + _children_cpu(pid)


@contextlib.contextmanager
def _postgres_corpus(rows: list[dict[str, Any]]) -> Iterator[tuple[Any, int] | None]:
    """A temporary PostgreSQL server holding the ingested corpus in database ``corpus`` (a template for
    one database per run): (the server, its process id), or None when the server binaries are missing."""
    from graphcite.ingest import ingest
    from graphcite.store import Store
    from graphcite.store.pgserver import find_pg_bin, temporary_server

    if find_pg_bin() is None:
        rows.append({"benchmark": "check-batch on PostgreSQL", "engine": "skipped: no server binaries"})
        yield None
        return
    with temporary_server() as server:
        with Store(server.create_database("corpus")) as store:
            ingest(store, [CORPUS])
        pid = int((server.data / "postmaster.pid").read_text(encoding="ascii").split()[0])
        yield server, pid


def _check_rows(count: int, work: Path, postgres: bool, baseline: int) -> list[dict[str, Any]]:
    from graphcite.ingest import ingest
    from graphcite.store import Store
    from graphcite.verify.batch import check_batch

    seed_db = work / "corpus.duckdb"
    with Store(seed_db) as store:
        ingest(store, [CORPUS])
    answers = bench_answers(count)
    rows: list[dict[str, Any]] = []
    runs: list[dict[str, Any]] = []

    def record(name: str, cores: int, seconds: float, cpu: float, results: list[dict[str, Any]]) -> None:
        failed = sum(1 for r in results if "error" in r)
        claims = sum(len(r["claims"]) for r in results if "claims" in r)
        count = len(results)
        runs.append({"benchmark": f"check-batch {count:,} answers", "engine": name, "seconds": round(seconds, 2),
                     "answers/s": round(count / seconds, 1), "answers/s per core": round(count / seconds / cores, 1),
                     "cpu_s": round(cpu, 1), "answers per cpu_s": round(count / cpu, 1),
                     "claims/s": round(claims / seconds, 1), "failed": failed})
        _partial(runs[-1])

    # warm this process's caches of claim readings (decomposition, alignment) before any clock, so the
    # in-process runs on either engine start alike; Ray's workers start cold in every configuration
    warm = work / "warm.duckdb"
    shutil.copy(seed_db, warm)
    with Store(warm) as store:
        check_batch(store, bench_answers(min(count, 300), seed=6), record=False)
    warm.unlink()
    configs = list(CONFIGS)
    if baseline:
        configs.append(("in-process, one answer at a time", {"read_ahead": False}, 1))
    for name, options, cores in configs:
        db = work / f"check-{len(runs)}.duckdb"
        shutil.copy(seed_db, db)
        with _runtime(options, rows), Store(db) as store:
            batch = answers[:baseline] if "read_ahead" in options else answers
            seconds, cpu, results = _measure(lambda store=store, options=options, batch=batch: check_batch(
                store, batch, **options))
        db.unlink()
        record(name, cores, seconds, cpu, results)
    if postgres:
        with _postgres_corpus(rows) as found:
            if found is not None:
                server, pid = found
                runs_pg = [("in-process, PostgreSQL", answers, True)]
                if baseline:
                    runs_pg.append(("in-process, PostgreSQL, one answer at a time", answers[:baseline], False))
                for run, (name, batch, ahead) in enumerate(runs_pg):
                    with Store(server.create_database(f"run{run}", template="corpus")) as store:
                        server0 = _tree_cpu(pid)
                        seconds, cpu, results = _measure(lambda store=store, batch=batch, ahead=ahead: check_batch(
                            store, batch, read_ahead=ahead))
                        cpu += _tree_cpu(pid) - server0
                    record(name, 1, seconds, cpu, results)
    for row in runs:
        row["speed-up"] = round(row["answers/s"] / runs[0]["answers/s"], 2)  # throughput: sizes may differ
    return rows + runs


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--mb", type=float, default=50.0, help="size of the generated Markdown corpus (MB)")
    parser.add_argument("--answers", type=int, default=10_000, help="answers for check-batch")
    parser.add_argument("--skip-ingest", action="store_true")
    parser.add_argument("--skip-check", action="store_true")
    parser.add_argument("--skip-postgres", action="store_true", help="no check-batch run against PostgreSQL")
    parser.add_argument("--baseline-answers", type=int, default=2_000,
                        help="answers for the one-answer-at-a-time baseline rows (0: none)")
    parser.add_argument("--json", action="store_true", help="one JSON object per row")
    args = parser.parse_args(argv)
    rows: list[dict[str, Any]] = []
    load = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="graphcite-scale-") as folder:
        work = Path(folder)
        if not args.skip_ingest:
            rows += _ingest_rows(args.mb, work)
        if not args.skip_check:
            rows += _check_rows(args.answers, work, not args.skip_postgres, args.baseline_answers)
    if not args.json:
        print(f"load average before: {load[0]:.2f}, after: {os.getloadavg()[0]:.2f} (2 cores shared)")
    emit(rows, args.json)


if __name__ == "__main__":
    main()
