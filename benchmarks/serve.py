"""The service under load: a real HTTP client against a running ``graphcite serve`` on 127.0.0.1.

* answer checks per second of the bundled 7-claim answer (``POST /v1/check``), from ``--clients``
  concurrent asyncio+httpx clients, bounded by ``--seconds`` and ``--max-requests``; once re-checking
  the same stored answer, once with a new answer revision per request (new id: stored and decomposed);
* per-sentence gate latency (``POST /v1/gate``): one chunked request per stream, each sentence sent
  only after the previous verdict came back, so the time from sending a line to reading its verdict
  is the latency a streaming caller sees; p50/p99 over one stream and over ``--streams`` at once.

The store is a fresh copy of the bundled corpus in benchmarks/data/ (checks write to it). Targets in
issue 11: >= 200 checks/s, <= 5 ms p99 per streamed sentence.

    python -m benchmarks.serve [--clients 50] [--seconds 20] [--max-requests 2000] [--streams 10] [--json]
    python -m benchmarks.serve --engines [--clients 50] [--seconds 20]   # DuckDB vs PostgreSQL x1, x2 processes
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from benchmarks.common import DATA, ROOT, emit

ANSWER = ROOT / "graphcite" / "examples" / "answers" / "clean.json"
CORPUS = ROOT / "graphcite" / "examples" / "corpus"


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def _store() -> Path:
    """A fresh copy of the bundled corpus store (ingested once into benchmarks/data/)."""
    from graphcite.ingest import ingest
    from graphcite.store import Store

    DATA.mkdir(parents=True, exist_ok=True)
    base = DATA / "serve-corpus.duckdb"
    if not base.exists():
        with Store(base) as store:
            ingest(store, [CORPUS])
    copy = DATA / "serve-bench.duckdb"
    for stale in (copy, copy.with_name(copy.name + ".wal")):
        stale.unlink(missing_ok=True)
    shutil.copy(base, copy)
    return copy


def _command() -> list[str]:
    from graphcite.cli import app

    if "serve" in {c.name for c in app.registered_commands}:
        return [sys.executable, "-m", "graphcite", "serve"]
    return [sys.executable, "-m", "graphcite.serve"]


class Server:
    """``graphcite serve --port 0`` in a child process; ``url`` once it printed its ready line."""

    def __init__(self, db: Path | str, *extra: str) -> None:
        self.process = subprocess.Popen([*_command(), "--db", str(db), "--host", "127.0.0.1", "--port", "0",
                                         "--timeout", "120", "--max-claims", "100", *extra],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                                        env={**os.environ, "PYTHONUNBUFFERED": "1"})
        self.url = ""
        self.log: list[str] = []
        ready = threading.Event()

        def pump() -> None:
            assert self.process.stderr is not None
            for line in self.process.stderr:
                self.log.append(line)
                found = re.search(r"listening on (http://\S+?) ", line)
                if found:
                    self.url = found.group(1)
                    ready.set()
            ready.set()

        threading.Thread(target=pump, daemon=True).start()
        if not ready.wait(120) or not self.url:
            self.process.kill()
            raise RuntimeError("the server did not start: " + "".join(self.log)[-2000:])

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(20)
        except subprocess.TimeoutExpired:
            self.process.kill()


async def _checks(url: str, answer: dict[str, Any], *, clients: int, seconds: float, max_requests: int,
                  new_answers: bool) -> dict[str, Any]:
    import httpx

    latencies: list[float] = []
    failures = 0
    kinds: list[str] = []
    issued = 0
    deadline = time.monotonic() + seconds
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=url, timeout=300, limits=limits) as client:
        async def worker(number: int) -> None:
            nonlocal failures, issued
            while time.monotonic() < deadline and issued < max_requests:
                issued += 1
                body = {**answer, "answer_id": f"bench-{number}-{issued}"} if new_answers else answer
                start = time.perf_counter()
                response = await client.post("/v1/check", json=body)
                latencies.append(time.perf_counter() - start)
                if response.status_code != 200 or response.json()["metrics"]["claims"] != 7:
                    failures += 1
                    if len(kinds) < 3:
                        kinds.append(f"{response.status_code}: {response.text[:160]}")

        began = time.perf_counter()
        await asyncio.gather(*(worker(i) for i in range(clients)))
        elapsed = time.perf_counter() - began
    if kinds:
        print("failures, first few: " + " | ".join(kinds), file=sys.stderr)
    return {"requests": len(latencies), "failures": failures, "seconds": round(elapsed, 2),
            "checks_per_s": round(len(latencies) / elapsed, 2),
            "p50_ms": round(_percentile(latencies, 50) * 1000, 1), "p99_ms": round(_percentile(latencies, 99) * 1000, 1)}


async def _health(url: str, *, clients: int, requests: int) -> dict[str, Any]:
    """The HTTP layer alone: GET /healthz from ``clients`` concurrent clients (no store, no verification)."""
    import httpx

    latencies: list[float] = []
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as client:
        async def worker() -> None:
            while len(latencies) < requests:
                start = time.perf_counter()
                response = await client.get("/healthz")
                latencies.append(time.perf_counter() - start)
                response.raise_for_status()

        began = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(clients)))
        elapsed = time.perf_counter() - began
    return {"requests": len(latencies), "seconds": round(elapsed, 2),
            "requests_per_s": round(len(latencies) / elapsed, 1),
            "p50_ms": round(_percentile(latencies, 50) * 1000, 1), "p99_ms": round(_percentile(latencies, 99) * 1000, 1)}


async def _stream(url: str, sentences: list[bytes], *, errors_expected: bool = False) -> list[float]:
    """Per-sentence latency on one chunked /v1/gate request: send a line, read its verdict, repeat."""
    host, port = url.split("://", 1)[1].rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(f"POST /v1/gate HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/x-ndjson\r\n"
                 "Transfer-Encoding: chunked\r\n\r\n".encode())
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 200"):
        raise RuntimeError(head.decode(errors="replace"))
    latencies = []
    for line in sentences:
        start = time.perf_counter()
        writer.write(f"{len(line):x}\r\n".encode() + line + b"\r\n")
        await writer.drain()
        while True:  # one response chunk per verdict record
            size = int((await reader.readline()).strip(), 16)
            record = json.loads((await reader.readexactly(size + 2))[:-2])
            if "line" in record:
                break
        latencies.append(time.perf_counter() - start)
        if record.get("error") and not errors_expected:
            raise RuntimeError(record["error"])
    writer.write(b"0\r\n\r\n")
    await writer.drain()
    writer.close()
    return latencies


async def _gate(url: str, sentences: list[bytes], streams: int, *, errors_expected: bool = False) -> dict[str, Any]:
    began = time.perf_counter()
    results = await asyncio.gather(*(_stream(url, sentences, errors_expected=errors_expected) for _ in range(streams)))
    elapsed = time.perf_counter() - began
    latencies = [x for r in results for x in r]
    return {"streams": streams, "sentences": len(latencies), "seconds": round(elapsed, 2),
            "p50_ms": round(_percentile(latencies, 50) * 1000, 1), "p99_ms": round(_percentile(latencies, 99) * 1000, 1),
            "mean_ms": round(statistics.fmean(latencies) * 1000, 1)}


def run(clients: int = 50, seconds: float = 20, max_requests: int = 2000, streams: int = 10,
        rounds: int = 10) -> list[dict[str, Any]]:
    """Start a server, measure, stop it; rows for :func:`benchmarks.common.emit`."""
    answer = json.loads(ANSWER.read_text(encoding="utf-8"))
    sentences = [json.dumps(c).encode() + b"\n" for c in answer["claims"]] * rounds
    server = Server(_store())
    try:
        rows = []
        asyncio.run(_checks(server.url, answer, clients=4, seconds=5, max_requests=8, new_answers=False))  # warm
        for new in (False, True):
            result = asyncio.run(_checks(server.url, answer, clients=clients, seconds=seconds,
                                         max_requests=max_requests, new_answers=new))
            rows.append({"benchmark": "serve check (7-claim answer)" + (", new answer each" if new else ", same answer"),
                         "clients": clients, **result, "target": ">= 200 checks/s"})
        for count in (1, streams):
            result = asyncio.run(_gate(server.url, sentences, count))
            rows.append({"benchmark": "serve gate per streamed sentence", **result, "target": "<= 5 ms p99"})
        # the floor the HTTP layer sets: a line refused before verification (E206), and GET /healthz
        refused = asyncio.run(_gate(server.url, [b"{not json}\n"] * len(sentences), 1, errors_expected=True))
        rows.append({"benchmark": "serve gate per line, refused unverified (HTTP floor)", **refused})
        rows.append({"benchmark": "serve GET /healthz (HTTP floor)", "clients": clients,
                     **asyncio.run(_health(server.url, clients=clients, requests=2000))})
        return rows
    finally:
        server.stop()


def run_engines(clients: int, seconds: float, max_requests: int) -> list[dict[str, Any]]:
    """Answer checks/s on DuckDB (one process) and on PostgreSQL with 1 and 2 server processes, one run."""
    from graphcite.ingest import ingest
    from graphcite.store import Store
    from graphcite.store.pgserver import find_pg_bin, temporary_server

    answer = json.loads(ANSWER.read_text(encoding="utf-8"))
    setups: list[tuple[str, Any, tuple[str, ...]]] = [("duckdb, 1 process", _store(), ())]
    rows: list[dict[str, Any]] = []
    with contextlib.ExitStack() as stack:
        if find_pg_bin() is None:
            print("PostgreSQL binaries not found: PostgreSQL rows left out", file=sys.stderr)
        else:
            pg = stack.enter_context(temporary_server())
            url = pg.create_database("bench_serve")
            with Store(url) as store:
                ingest(store, [CORPUS])
            setups += [("postgresql, 1 process", url, ()), ("postgresql, 2 processes", url, ("--workers", "2"))]
        for name, db, extra in setups:
            server = Server(db, *extra)
            try:
                asyncio.run(_checks(server.url, answer, clients=4, seconds=5, max_requests=8, new_answers=False))
                for new in (False, True):
                    result = asyncio.run(_checks(server.url, answer, clients=clients, seconds=seconds,
                                                 max_requests=max_requests, new_answers=new))
                    rows.append({"benchmark": f"serve check on {name}" + (", new answer each" if new else ""),
                                 "clients": clients, **result, "target": ">= 200 checks/s"})
            finally:
                server.stop()
    first = rows[0]["checks_per_s"] if rows else 0
    for row in rows:
        row["vs_duckdb_same_answer"] = round(row["checks_per_s"] / first, 2) if first else None
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.serve", description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=50, help="concurrent HTTP clients for /v1/check")
    parser.add_argument("--seconds", type=float, default=20, help="time bound of each check run")
    parser.add_argument("--max-requests", type=int, default=2000, help="request bound of each check run")
    parser.add_argument("--streams", type=int, default=10, help="concurrent gate streams in the second gate run")
    parser.add_argument("--rounds", type=int, default=10, help="times the 7 sentences are streamed per stream")
    parser.add_argument("--engines", action="store_true",
                        help="answer checks on DuckDB and on PostgreSQL with 1 and 2 server processes instead")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.engines:
        emit(run_engines(args.clients, args.seconds, args.max_requests), args.json)
        return 0
    emit(run(args.clients, args.seconds, args.max_requests, args.streams, args.rounds), args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
