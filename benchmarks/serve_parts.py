"""Where a server's CPU goes per answer check: the service in this process, the raw client in another.

``benchmarks.serve`` reads a server's CPU time as a whole; this runs the service (uvicorn on
127.0.0.1, the same app ``graphcite serve`` runs) inside a child process that also counts each part's
thread CPU time: the group-commit writer (``CheckDesk._write``), preparing (``_prepare``), reading
bodies (``_parsed``), DuckDB's own threads, and the rest (HTTP, the event loop, thread hand-offs).
Checks are ``POST /v1/check`` of the bundled 7-claim answer from ``--clients`` connections, a new
answer id per request (``--same``: the same answer; ``--text``: new claim text each, as
:mod:`benchmarks.serve_text` writes it), on a fresh copy of the bundled corpus store.
``--prior`` first runs the same-answer load for 10 s and idles 10 s, as ``benchmarks.serve``'s
turns do. ``--against TREE`` runs the same child with TREE's ``graphcite`` (a worktree of an
earlier commit), the two in turns.

    python -m benchmarks.serve_parts [--seconds 10] [--clients 50] [--against /tmp/wt_base] [--repeat 2]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
ROOT = HERE.parents[1]


def _drive(url: str, *, seconds: float, clients: int, new: bool, text: int | None = None) -> dict[str, Any]:
    """The raw client from ``benchmarks.serve`` in a process of its own (its CPU is not the server's);
    ``text``: new claim text each request, answers numbered from this (each drive its own range)."""
    texts = f"NewTextAnswers(answer, {text})" if text is not None else "None"
    code = (f"import json, sys; sys.path.insert(0, {str(ROOT)!r})\n"
            "from benchmarks.serve import _checks, ANSWER\nfrom benchmarks.rawhttp import run\n"
            "from benchmarks.serve_text import NewTextAnswers\nanswer = json.loads(ANSWER.read_text())\n"
            f"print(json.dumps(run(_checks({url!r}, answer, clients={clients}, "
            f"seconds={seconds}, max_requests=100000, new_answers={new}, texts={texts}))))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _task_cpu() -> dict[int, float]:
    tick = os.sysconf("SC_CLK_TCK")
    out = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            fields = Path(f"/proc/self/task/{tid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[int(tid)] = (int(fields[11]) + int(fields[12])) / tick
    return out


def child(seconds: float, clients: int, same: bool, prior: bool, text: bool = False) -> dict[str, Any]:
    """Serve, count, drive; the figures as a dict (run with the tree to measure as working directory)."""
    import uvicorn

    from graphcite.serve import ServiceSettings, create_app

    db = ROOT / "benchmarks" / "data" / f"serve-parts-{os.getpid()}.duckdb"
    shutil.copy(ROOT / "benchmarks" / "data" / "serve-corpus.duckdb", db)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(2048)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    ready = threading.Event()
    app = create_app(ServiceSettings(db=str(db), timeout=120, max_claims=100), on_ready=ready.set)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on",
                                           server_header=False))
    thread = threading.Thread(target=lambda: server.run(sockets=[sock]), daemon=True)
    thread.start()
    try:
        if not ready.wait(180):
            raise RuntimeError("the service did not start")
        desk = app.app.state.service.desk
        spent = {"write": 0.0, "prepare": 0.0, "parse": 0.0}
        lock = threading.Lock()

        def counted(name: str, fn: Any) -> Any:
            def run(*args: Any, **kwargs: Any) -> Any:
                start = time.thread_time()
                try:
                    return fn(*args, **kwargs)
                finally:
                    with lock:
                        spent[name] += time.thread_time() - start
            return run

        desk._write = counted("write", desk._write)
        desk._prepare = counted("prepare", desk._prepare)
        desk._parsed = counted("parse", desk._parsed)
        _drive(url, seconds=3, clients=4, new=not same, text=0 if text else None)
        if prior:
            _drive(url, seconds=10, clients=clients, new=False)
            time.sleep(10)
        for name in spent:
            spent[name] = 0.0
        before = _task_cpu()
        result = _drive(url, seconds=seconds, clients=clients, new=not same, text=5000 if text else None)
        after = _task_cpu()
        python_threads = {t.native_id for t in threading.enumerate()}
        checks = max(1, result["requests"])
        total = sum(after[tid] - before.get(tid, 0.0) for tid in after) / checks * 1000
        native = sum(after[tid] - before.get(tid, 0.0) for tid in after if tid not in python_threads) / checks * 1000
        parts = {f"{name}_cpu_ms": round(value / checks * 1000, 3) for name, value in spent.items()}
        rest = total - native - sum(parts.values())
        return {**result, "server_cpu_ms": round(total, 3), **parts, "duckdb_threads_cpu_ms": round(native, 3),
                "rest_cpu_ms": round(rest, 3)}
    finally:
        server.should_exit = True
        thread.join(30)
        for path in (db, db.with_name(db.name + ".wal")):
            path.unlink(missing_ok=True)


def _run_child(tree: Path, args: argparse.Namespace) -> dict[str, Any]:
    command = [sys.executable, str(HERE), "--child", "--seconds", str(args.seconds), "--clients", str(args.clients)]
    command += ["--same"] if args.same else []
    command += ["--text"] if args.text else []
    command += ["--prior"] if args.prior else []
    done = subprocess.run(command, cwd=tree, capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONPATH": str(tree)})
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--same", action="store_true", help="the same answer each time (default: a new id each)")
    parser.add_argument("--text", action="store_true",
                        help="new claim text each request (benchmarks.serve_text) instead of a new id")
    parser.add_argument("--prior", action="store_true", help="10 s of same-answer load and 10 s idle first")
    parser.add_argument("--against", type=Path, metavar="TREE", help="also measure TREE's graphcite, in turns")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        sys.path.insert(0, os.getcwd())
        print(json.dumps(child(args.seconds, args.clients, args.same, args.prior, args.text)))
        return 0
    trees = {"served": ROOT} | ({"baseline": args.against.resolve()} if args.against else {})
    for turn in range(args.repeat):
        order = list(trees) if turn % 2 == 0 else list(reversed(trees))
        for name in order:
            print(json.dumps({"tree": name, "path": str(trees[name]), **_run_child(trees[name], args)}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
