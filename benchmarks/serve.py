"""The service under load: a real HTTP client against a running ``graphcite serve`` on 127.0.0.1.

* answer checks per second of the bundled 7-claim answer (``POST /v1/check``), from ``--clients``
  concurrent keep-alive connections, bounded by ``--seconds`` and ``--max-requests``; once re-checking
  the same stored answer, once with a new answer revision per request (new id: stored and decomposed),
  and once with new claim text per request (``new text each``, :mod:`benchmarks.serve_text`: 7 claims,
  every sentence new, so each is decomposed and verified; the figure a RAG application sees).
  Every response is read whole and parsed; a status other than 200 or a report without 7 claims is
  a failure. The client is :mod:`benchmarks.rawhttp` (asyncio on uvloop, real sockets); ``--client
  httpx`` or ``both`` adds httpx, which costs as much CPU per request as the server's HTTP layer and
  on a 2-core machine is the floor of what can be shown (``--floor``: both clients against a
  fixed-body server, which does nothing but answer a stored report);
* per-sentence gate latency (``POST /v1/gate``): one chunked request per stream, each sentence sent
  only after the previous verdict came back, so the time from sending a line to reading its verdict
  is the latency a streaming caller sees; p50/p99 over one stream and over ``--streams`` at once.

The store is a fresh copy of the bundled corpus in benchmarks/data/ (checks write to it). Targets in
issue 11: >= 200 checks/s, <= 5 ms p99 per streamed sentence.

Every figure is measured twice in one run: against the first-round service (``baseline``: one
transaction per check, no report memo, no group commit: ``ServiceSettings(memo=False)``, started by
this module) and against ``graphcite serve`` as shipped (``served``), each on its own fresh store;
``x_baseline`` is the served figure over the baseline's (throughput: higher is better; latency:
baseline over served, so higher is better too). The gate is measured on sentences the server has
seen (the bundled answer's, as a RAG application re-checking its answers sends) and on sentences it
has never seen (each made unique, so decomposition and every rule run). ``--against TREE`` compares
answer checks with ``graphcite serve`` from another tree instead (a worktree of an earlier commit),
both servers up at once and measured in turns.

    python -m benchmarks.serve [--clients 50] [--seconds 20] [--max-requests 2000] [--streams 10] [--json]
    python -m benchmarks.serve --no-gate --floor --client both   # checks only; the clients' own floor
    python -m benchmarks.serve --against /tmp/wt_base --repeat 3 --seconds 10   # this tree vs another
    python -m benchmarks.serve --against /tmp/wt_base --verify-workers 1   # this tree with a worker process
    python -m benchmarks.serve --engines [--clients 50] [--seconds 20]   # DuckDB vs PostgreSQL x1, x2 processes
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
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
from benchmarks.rawhttp import Connection, HTTPError
from benchmarks.rawhttp import run as run_async
from benchmarks.serve_text import NewTextAnswers

ANSWER = ROOT / "graphcite" / "examples" / "answers" / "clean.json"
CORPUS = ROOT / "graphcite" / "examples" / "corpus"


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


_COPIES: list[Path] = []


def _store() -> Path:
    """A fresh copy of the bundled corpus store (ingested once into benchmarks/data/), named for this
    process (two benchmark runs at once do not share one), removed when the process ends."""
    from graphcite.ingest import ingest
    from graphcite.store import Store

    DATA.mkdir(parents=True, exist_ok=True)
    base = DATA / "serve-corpus.duckdb"
    if not base.exists():
        with Store(base) as store:
            ingest(store, [CORPUS])
    if not _COPIES:
        atexit.register(_remove_copies)
    copy = DATA / f"serve-bench-{os.getpid()}-{len(_COPIES)}.duckdb"
    _COPIES.append(copy)
    for stale in (copy, copy.with_name(copy.name + ".wal")):
        stale.unlink(missing_ok=True)
    shutil.copy(base, copy)
    return copy


def _remove_copies() -> None:
    for copy in _COPIES:
        for path in (copy, copy.with_name(copy.name + ".wal")):
            path.unlink(missing_ok=True)


def _command() -> list[str]:
    from graphcite.cli import app

    if "serve" in {c.name for c in app.registered_commands}:
        return [sys.executable, "-m", "graphcite", "serve"]
    return [sys.executable, "-m", "graphcite.serve"]


def _listening_socket() -> tuple[Any, str]:
    import socket

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(2048)
    return sock, f"http://127.0.0.1:{sock.getsockname()[1]}"


def _serve_baseline(db: str) -> None:
    """The first-round service on ``db`` (``memo=False``), on a free 127.0.0.1 port, until terminated."""
    import uvicorn

    from graphcite.serve import ServiceSettings, create_app

    sock, url = _listening_socket()

    def ready() -> None:
        print(f"graphcite serve: listening on {url} (baseline)", file=sys.stderr, flush=True)

    settings = ServiceSettings(db=db, timeout=120, max_claims=100, memo=False)
    uvicorn.Server(uvicorn.Config(create_app(settings, on_ready=ready), log_level="warning", access_log=False,
                                  lifespan="on", server_header=False)).run(sockets=[sock])


def _serve_fixed(path: str) -> None:
    """The client's floor: uvicorn (httptools, uvloop, as ``graphcite serve`` runs) with a bare ASGI app
    that reads each request's body and answers the bytes in ``path`` (a real report), until terminated."""
    import uvicorn

    report = Path(path).read_bytes()
    health = json.dumps({"status": "ok"}).encode()
    sock, url = _listening_socket()

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    print(f"fixed-body server: listening on {url} (fixed)", file=sys.stderr, flush=True)
                await send({"type": message["type"] + ".complete"})
                if message["type"] == "lifespan.shutdown":
                    return
        more = True
        while more:
            message = await receive()
            more = message.get("more_body", False)
        body = health if scope["method"] == "GET" else report
        await send({"type": "http.response.start", "status": 200, "headers": [
            (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})

    uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on", server_header=False,
                                  timeout_keep_alive=30, loop="uvloop", http="httptools")).run(sockets=[sock])


class Server:
    """``graphcite serve --port 0`` in a child process (or the baseline or the fixed-body service),
    run from ``tree`` (its own ``graphcite`` package; default this one); ``url`` once it is ready."""

    def __init__(self, db: Path | str, *extra: str, baseline: bool = False, fixed: bool = False,
                 tree: Path = ROOT, env: dict[str, str] | None = None) -> None:
        if fixed:
            command = [sys.executable, "-m", "benchmarks.serve", "--serve-fixed", str(db)]
        elif baseline:
            command = [sys.executable, "-m", "benchmarks.serve", "--serve-baseline", str(db)]
        else:
            command = [*_command(), "--db", str(db), "--host", "127.0.0.1", "--port", "0", "--timeout", "120",
                       "--max-claims", "100", *extra]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                        cwd=ROOT if fixed or baseline else tree,
                                        env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})})
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


def _cpu_seconds(pid: int | None) -> float:
    """User plus system CPU time so far of process ``pid`` and the processes it started (``--workers``
    forks them), 0 where /proc cannot tell."""
    if pid is None:
        return 0.0
    total = 0.0
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            fields = Path(f"/proc/{current}/stat").read_text().rsplit(")", 1)[1].split()
            for task in Path(f"/proc/{current}/task").iterdir():
                pending += [int(child) for child in (task / "children").read_text().split()]
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


async def _checks(url: str, answer: dict[str, Any], *, clients: int, seconds: float, max_requests: int,
                  new_answers: bool, client: str = "raw", pid: int | None = None,
                  texts: NewTextAnswers | None = None) -> dict[str, Any]:
    """``POST /v1/check`` from ``clients`` concurrent keep-alive connections; every response is read,
    parsed and checked (status 200, 7 claims), and anything else is counted as a failure.

    ``pid``: the server process, whose CPU time per check is reported too (``server_cpu_ms``): unlike
    throughput, it hardly moves when other processes load the machine; ``client_cpu_ms`` is this
    process's own (client and body parsing). ``texts``: each request's answer is the next of these
    (new claim sentences each time, :mod:`benchmarks.serve_text`) instead of ``answer``."""
    latencies: list[float] = []
    failures = 0
    kinds: list[str] = []
    issued = 0
    deadline = time.monotonic() + seconds
    same = json.dumps(answer).encode()

    def failed(reason: str) -> None:
        nonlocal failures
        failures += 1
        if len(kinds) < 3:
            kinds.append(reason)

    def body(number: int) -> bytes:
        if texts is not None:
            return json.dumps(texts.answer()).encode()
        return json.dumps({**answer, "answer_id": f"bench-{number}-{issued}"}).encode() if new_answers else same

    def checked(status: int, content: bytes) -> None:
        try:
            claims = json.loads(content)["metrics"]["claims"] if status == 200 else None
        except (ValueError, KeyError, TypeError):
            claims = None
        if claims != 7:
            failed(f"{status}: {content[:160]!r}")

    async def raw_worker(number: int) -> None:
        nonlocal issued
        connection = Connection.to(url)
        try:
            while time.monotonic() < deadline and issued < max_requests:
                issued += 1
                payload = body(number)
                start = time.perf_counter()
                try:
                    response = await connection.request("POST", "/v1/check", payload)
                except HTTPError as exc:  # e.g. a keep-alive connection the server closed
                    failed(str(exc))
                    continue
                latencies.append(time.perf_counter() - start)
                checked(response.status, response.body)
        finally:
            connection.close()

    async def httpx_workers() -> None:
        import httpx

        limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
        async with httpx.AsyncClient(base_url=url, timeout=300, limits=limits) as pool:
            async def worker(number: int) -> None:
                nonlocal issued
                while time.monotonic() < deadline and issued < max_requests:
                    issued += 1
                    payload = body(number)
                    start = time.perf_counter()
                    try:
                        response = await pool.post("/v1/check", content=payload,
                                                   headers={"content-type": "application/json"})
                    except httpx.TransportError as exc:
                        failed(f"{type(exc).__name__}: {exc}")
                        continue
                    latencies.append(time.perf_counter() - start)
                    checked(response.status_code, response.content)

            await asyncio.gather(*(worker(i) for i in range(clients)))

    began, cpu, own = time.perf_counter(), _cpu_seconds(pid), time.process_time()
    if client == "httpx":
        await httpx_workers()
    else:
        await asyncio.gather(*(raw_worker(i) for i in range(clients)))
    elapsed, cpu, own = time.perf_counter() - began, _cpu_seconds(pid) - cpu, time.process_time() - own
    if kinds:
        print("failures, first few: " + " | ".join(kinds), file=sys.stderr)
    out = {"requests": len(latencies), "failures": failures, "seconds": round(elapsed, 2),
           "checks_per_s": round(len(latencies) / elapsed, 2),
           "p50_ms": round(_percentile(latencies, 50) * 1000, 1), "p99_ms": round(_percentile(latencies, 99) * 1000, 1)}
    if pid is not None and latencies:
        out["server_cpu_ms"] = round(cpu * 1000 / len(latencies), 2)
    if latencies:
        out["client_cpu_ms"] = round(own * 1000 / len(latencies), 2)
    return out


async def _health(url: str, *, clients: int, requests: int, client: str = "raw") -> dict[str, Any]:
    """The HTTP layer alone: GET /healthz from ``clients`` concurrent clients (no store, no verification)."""
    latencies: list[float] = []
    failures = 0

    async def raw_worker() -> None:
        nonlocal failures
        connection = Connection.to(url)
        try:
            while len(latencies) < requests:
                start = time.perf_counter()
                response = await connection.request("GET", "/healthz")
                latencies.append(time.perf_counter() - start)
                if response.status != 200 or json.loads(response.body)["status"] != "ok":
                    failures += 1
        finally:
            connection.close()

    async def httpx_workers() -> None:
        import httpx

        limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
        async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as pool:
            async def worker() -> None:
                nonlocal failures
                while len(latencies) < requests:
                    start = time.perf_counter()
                    response = await pool.get("/healthz")
                    latencies.append(time.perf_counter() - start)
                    if response.status_code != 200 or response.json()["status"] != "ok":
                        failures += 1

            await asyncio.gather(*(worker() for _ in range(clients)))

    began = time.perf_counter()
    if client == "httpx":
        await httpx_workers()
    else:
        await asyncio.gather(*(raw_worker() for _ in range(clients)))
    elapsed = time.perf_counter() - began
    return {"requests": len(latencies), "failures": failures, "seconds": round(elapsed, 2),
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


def _unseen(answer: dict[str, Any], count: int) -> list[bytes]:
    """``count`` sentences the server has never seen: the answer's claims, each with a unique clause."""
    lines = []
    for i in range(count):
        claim = dict(answer["claims"][i % len(answer["claims"])])
        text = claim["text"].rstrip(".")
        claim["text"] = f"{text}, as noted in review {i + 1}."
        lines.append(json.dumps(claim).encode() + b"\n")
    return lines


def _measure(db: Path | str, answer: dict[str, Any], *, baseline: bool, clients: int, seconds: float,
             max_requests: int, streams: int, rounds: int, gate: bool = True, extra: tuple[str, ...] = (),
             client: str = "raw") -> dict[str, dict[str, Any]]:
    """Every figure of one server, by name (``client``: raw, httpx or both; httpx rows end in ' httpx')."""
    sentences = [json.dumps(c).encode() + b"\n" for c in answer["claims"]] * rounds
    server = Server(db, *extra, baseline=baseline)
    out: dict[str, dict[str, Any]] = {}
    kinds = ("raw", "httpx") if client == "both" else (client,)
    try:
        run_async(_checks(server.url, answer, clients=4, seconds=5, max_requests=8, new_answers=False))  # warm
        texts = NewTextAnswers(answer)
        for key in _WORKLOADS:
            for kind in kinds:
                out[key + (" httpx" if kind == "httpx" else "")] = run_async(_checks(
                    server.url, answer, clients=clients, seconds=seconds, max_requests=max_requests,
                    new_answers=key != "check", client=kind, pid=server.process.pid,
                    texts=texts if key == "check text" else None))
        if gate:
            # "seen": each sentence streamed once, untimed, so the rows measure what their name says (the
            # first pass over a sentence is the "unseen" row's cost; the check requests above go through
            # /v1/check, which keeps whole reports, not per-sentence verdicts)
            asyncio.run(_gate(server.url, sentences[:len(answer["claims"])], 1))
            for count in (1, streams):
                out[f"gate {count}"] = asyncio.run(_gate(server.url, sentences, count))
            out["gate unseen"] = asyncio.run(_gate(server.url, _unseen(answer, len(sentences)), 1))
            # the floor the HTTP layer sets: a line refused before verification (E206), and GET /healthz
            out["refused"] = asyncio.run(_gate(server.url, [b"{not json}\n"] * len(sentences), 1,
                                               errors_expected=True))
            for kind in kinds:
                out["health" + (" httpx" if kind == "httpx" else "")] = run_async(_health(
                    server.url, clients=clients, requests=2000, client=kind))
        return out
    except Exception:
        print("server log, last lines:\n" + "".join(server.log)[-3000:], file=sys.stderr)
        raise
    finally:
        server.stop()


def _measure_floor(answer: dict[str, Any], *, clients: int, seconds: float, max_requests: int,
                   client: str) -> dict[str, dict[str, Any]]:
    """Checks/s and GET /healthz against the fixed-body server: what the client and the bare HTTP
    server cost together, with no routing, no application code and no store."""
    from graphcite.store import Store
    from graphcite.verify.check import check_answer

    report = DATA / "serve-fixed-report.json"
    with Store(_store()) as store:
        report.write_text(json.dumps(check_answer(store, answer), ensure_ascii=False), encoding="utf-8")
    server = Server(report, fixed=True)
    out: dict[str, dict[str, Any]] = {}
    try:
        for kind in ("raw", "httpx") if client == "both" else (client,):
            tail = " httpx" if kind == "httpx" else ""
            out["fixed" + tail] = run_async(_checks(server.url, answer, clients=clients, seconds=seconds,
                                                    max_requests=max_requests, new_answers=False, client=kind,
                                                    pid=server.process.pid))
            out["fixed health" + tail] = run_async(_health(server.url, clients=clients, requests=2000, client=kind))
        return out
    finally:
        server.stop()


#: the answer-check rows: the same answer again, the same content under a new answer id, new claim text
_WORKLOADS = ("check", "check new", "check text")

_NAMES = {
    "check": ("serve check (7-claim answer), same answer", "checks_per_s", ">= 200 checks/s"),
    "check new": ("serve check (7-claim answer), new answer id each", "checks_per_s", ">= 200 checks/s"),
    "check text": ("serve check (7-claim answer), new text each", "checks_per_s", ">= 200 checks/s"),
    "gate 1": ("serve gate per streamed sentence, seen, 1 stream", "p99_ms", "<= 5 ms p99"),
    "gate unseen": ("serve gate per streamed sentence, unseen, 1 stream", "p99_ms", "<= 5 ms p99"),
    "refused": ("serve gate per line, refused unverified (HTTP floor)", "p99_ms", None),
    "health": ("serve GET /healthz (HTTP floor)", "requests_per_s", None),
    "fixed": ("fixed-body server, POST of the answer (client floor)", "checks_per_s", None),
    "fixed health": ("fixed-body server, GET /healthz (client floor)", "requests_per_s", None),
}


def _rows(label: str, before: dict[str, dict[str, Any]], after: dict[str, dict[str, Any]],
          streams: int) -> list[dict[str, Any]]:
    names = {**_NAMES, f"gate {streams}": (f"serve gate per streamed sentence, seen, {streams} streams",
                                           "p99_ms", "<= 5 ms p99")}
    rows = []
    for key, result in after.items():
        httpx = key.endswith(" httpx")
        name, figure, target = names[key.removesuffix(" httpx")]
        base = before.get(key, {})
        ratio = None
        if base.get(figure) and result.get(figure):
            ratio = (result[figure] / base[figure] if figure.endswith("_per_s") else base[figure] / result[figure])
        rows.append({"benchmark": name + (", httpx client" if httpx else "") + label, **{k: v for k, v in result.items()},
                     "baseline": base.get(figure), "baseline_p50_ms": base.get("p50_ms"),
                     "x_baseline": round(ratio, 2) if ratio else None,
                     "target": target})
    return rows


def run(clients: int = 50, seconds: float = 20, max_requests: int = 2000, streams: int = 10,
        rounds: int = 10, *, client: str = "raw", gate: bool = True, floor: bool = False) -> list[dict[str, Any]]:
    """The baseline service, then the served one, each on a fresh store; rows for :func:`benchmarks.common.emit`.
    ``floor``: add the fixed-body server's rows."""
    answer = json.loads(ANSWER.read_text(encoding="utf-8"))
    options = {"clients": clients, "seconds": seconds, "max_requests": max_requests, "streams": streams,
               "rounds": rounds, "client": client, "gate": gate}
    before = _measure(_store(), answer, baseline=True, **options)
    after = _measure(_store(), answer, baseline=False, **options)
    rows = _rows("", before, after, streams)
    if floor:
        rows += _rows("", {}, _measure_floor(answer, clients=clients, seconds=seconds, max_requests=max_requests,
                                             client=client), streams)
    return rows


def run_against(tree: Path, repeat: int, clients: int = 50, seconds: float = 10, max_requests: int = 3000,
                client: str = "raw", verify_workers: int = 0) -> list[dict[str, Any]]:
    """Answer checks/s of ``graphcite serve`` from ``tree`` (the baseline, e.g. a worktree of an earlier
    commit) and from this tree, both running at once on their own fresh stores, measured in turns
    (``repeat`` rounds, the order swapped each round) so both see the same machine load; each row is
    the round with the median throughput, ``runs`` every round's figure. ``verify_workers``: this tree's
    server verifies in that many worker processes too (``$GRAPHCITE_VERIFY_WORKERS``)."""
    answer = json.loads(ANSWER.read_text(encoding="utf-8"))
    servers = {"baseline": Server(_store(), tree=tree),
               "served": Server(_store(), env={"GRAPHCITE_VERIFY_WORKERS": str(verify_workers)})}
    texts = {name: NewTextAnswers(answer) for name in servers}  # each server sees the same new sentences
    results: dict[str, dict[str, list[dict[str, Any]]]] = {name: {} for name in servers}
    try:
        for server in servers.values():
            run_async(_checks(server.url, answer, clients=4, seconds=5, max_requests=8, new_answers=False))
        for turn in range(repeat):
            order = list(servers) if turn % 2 == 0 else list(reversed(servers))
            for key in _WORKLOADS:
                for name in order:
                    results[name].setdefault(key, []).append(run_async(_checks(
                        servers[name].url, answer, clients=clients, seconds=seconds, max_requests=max_requests,
                        new_answers=key != "check", client=client, pid=servers[name].process.pid,
                        texts=texts[name] if key == "check text" else None)))
    finally:
        for server in servers.values():
            server.stop()

    def median(runs: list[dict[str, Any]]) -> dict[str, Any]:
        ordered = sorted(runs, key=lambda r: r["checks_per_s"])
        return {**ordered[(len(ordered) - 1) // 2], "runs": "/".join(f"{r['checks_per_s']:.0f}" for r in runs)}

    before = {key: median(runs) for key, runs in results["baseline"].items()}
    after = {key: median(runs) for key, runs in results["served"].items()}
    rows = _rows(f" vs {tree}", before, after, 1)
    for row, key in zip(rows, after, strict=True):
        cpu = [statistics.median(r["server_cpu_ms"] for r in results[name][key] if "server_cpu_ms" in r)
               for name in ("baseline", "served")]
        row.update(baseline_runs=before[key]["runs"], server_cpu_ms=cpu[1], baseline_server_cpu_ms=cpu[0],
                   x_cpu=round(cpu[0] / cpu[1], 2) if cpu[1] else None)
    return rows


def run_engines(clients: int, seconds: float, max_requests: int) -> list[dict[str, Any]]:
    """Answer checks/s on DuckDB and PostgreSQL, baseline and served (one process; PostgreSQL also two)."""
    from graphcite.ingest import ingest
    from graphcite.store import Store
    from graphcite.store.pgserver import find_pg_bin, temporary_server

    answer = json.loads(ANSWER.read_text(encoding="utf-8"))
    options = {"clients": clients, "seconds": seconds, "max_requests": max_requests, "streams": 1, "rounds": 1,
               "gate": False}
    rows = _rows(" on duckdb", _measure(_store(), answer, baseline=True, **options),
                 _measure(_store(), answer, baseline=False, **options), 1)
    if find_pg_bin() is None:
        print("PostgreSQL binaries not found: PostgreSQL rows left out", file=sys.stderr)
        return rows
    with temporary_server() as pg:
        urls = []
        for name in ("bench_serve_base", "bench_serve", "bench_serve_two"):
            url = pg.create_database(name)
            with Store(url) as store:
                ingest(store, [CORPUS])
            urls.append(url)
        before = _measure(urls[0], answer, baseline=True, **options)
        rows += _rows(" on postgresql", before, _measure(urls[1], answer, baseline=False, **options), 1)
        rows += _rows(" on postgresql, 2 processes", before,
                      _measure(urls[2], answer, baseline=False, extra=("--workers", "2"), **options), 1)
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
    parser.add_argument("--client", choices=("raw", "httpx", "both"), default="raw",
                        help="the HTTP client: raw (benchmarks/rawhttp.py, the default), httpx, or both")
    parser.add_argument("--no-gate", action="store_true", help="answer checks only (no gate, no /healthz)")
    parser.add_argument("--against", type=Path, metavar="TREE",
                        help="answer checks only, against graphcite serve from TREE (a worktree of another commit), "
                        "both servers up at once and measured in turns")
    parser.add_argument("--repeat", type=int, default=3, help="rounds of turns with --against (median kept)")
    parser.add_argument("--verify-workers", type=int, default=0,
                        help="with --against: this tree's server also verifies in N worker processes")
    parser.add_argument("--floor", action="store_true",
                        help="also measure a fixed-body server (uvicorn and a bare ASGI app): the client's floor")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--serve-baseline", metavar="DB", help=argparse.SUPPRESS)
    parser.add_argument("--serve-fixed", metavar="REPORT", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve_baseline:
        _serve_baseline(args.serve_baseline)
        return 0
    if args.serve_fixed:
        _serve_fixed(args.serve_fixed)
        return 0
    if args.engines:
        emit(run_engines(args.clients, args.seconds, args.max_requests), args.json)
        return 0
    if args.against:
        emit(run_against(args.against, args.repeat, args.clients, args.seconds, args.max_requests, args.client,
                         args.verify_workers), args.json)
        return 0
    emit(run(args.clients, args.seconds, args.max_requests, args.streams, args.rounds, client=args.client,
             gate=not args.no_gate, floor=args.floor), args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
