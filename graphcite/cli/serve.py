"""The ``serve`` command: run the verification service and the review app on one port.

A thin wrapper, like the other commands: it checks its options, opens the store (so a locked or
foreign store is one ``error:`` line before anything listens), binds the socket itself (``--port 0``
picks a free port and the ready line names it) and hands both to uvicorn. ``graphcite.cli`` calls
:func:`register` to add it to the main app.
"""

from __future__ import annotations

import socket
import sys
from collections.abc import Callable
from typing import Annotated, Any

import typer

from graphcite.cli.common import (
    AudienceOption,
    DbOption,
    check_audience,
    check_int,
    check_number,
    err,
    handles_errors,
)
from graphcite.errors import make_error

__all__ = ["register", "serve_command"]

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def _listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (E101 naming the address when it cannot be had)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise make_error("E101", where="--host", detail=f"cannot resolve {host!r}: {exc.strerror}") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        raise make_error("E101", where="--port", detail=f"cannot listen on {host}:{port}: {exc.strerror or exc}",
                         fix="choose another --port, or 0 for a free one") from None
    sock.set_inheritable(True)
    return sock


def serve_command(
    host: Annotated[str, typer.Option("--host", help="address to listen on (default: this machine only)")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="TCP port; 0 picks a free one")] = 8000,
    db: DbOption = None,
    audience: AudienceOption = "internal",
    config: Annotated[str | None, typer.Option("--config", help="verifier config file (YAML/JSON)")] = None,
    max_body_mb: Annotated[float, typer.Option("--max-body-mb", help="largest request body (413 above)")] = 5.0,
    max_stream_mb: Annotated[float, typer.Option("--max-stream-mb", help="largest /v1/gate stream")] = 50.0,
    max_claims: Annotated[int, typer.Option("--max-claims", help="refuse answers with more claims")] = 1_000,
    timeout: Annotated[float, typer.Option("--timeout", help="seconds per request (per sentence when streaming)")] = 30.0,
    max_quote_chars: Annotated[int, typer.Option(
        "--max-quote-chars", help="most code points of a source a page shows per excerpt (longer: shortened, "
        "with full offsets)")] = 500,
    workers: Annotated[int, typer.Option("--workers", help="server processes on the one port (more than one "
                                         "needs a PostgreSQL store)")] = 1,
    verify_workers: Annotated[int | None, typer.Option(
        "--verify-workers", help="processes that decompose and verify new answers beside the service (0: its own "
        "threads only; each loads the pipeline, about 190 MiB and 2 s; default: $GRAPHCITE_VERIFY_WORKERS, else 0)",
        show_default=False)] = None,
    log_level: Annotated[str, typer.Option("--log-level", help="critical, error, warning, info or debug")] = "warning",
    access_log: Annotated[bool, typer.Option("--access-log", help="log every request on stdout")] = False,
) -> None:
    """Serve the verification API (/v1, /openapi.json) and the review app (/review) until stopped."""
    import uvicorn

    from graphcite.export.output import check_max_quote_chars
    from graphcite.serve.app import create_app
    from graphcite.serve.guard import allowed_hosts, http_protocol
    from graphcite.serve.service import MAX_VERIFY_WORKERS, ServiceSettings, verify_workers_from_env
    from graphcite.store import is_postgres_url, open_store, resolve_db_path
    from graphcite.verify import VerifierConfig, load_config

    check_audience(audience)
    check_int(port, "--port", minimum=0, maximum=65_535)
    check_number(max_body_mb, "--max-body-mb", minimum=0, maximum=10_000, above_minimum=True)
    check_number(max_stream_mb, "--max-stream-mb", minimum=0, maximum=100_000, above_minimum=True)
    check_int(max_claims, "--max-claims", minimum=1)
    check_number(timeout, "--timeout", minimum=0, maximum=86_400, above_minimum=True)
    check_max_quote_chars(max_quote_chars)
    check_int(workers, "--workers", minimum=1, maximum=64)
    if verify_workers is None:
        verify_workers = verify_workers_from_env()  # a bad value is one E101 line naming the variable
    check_int(verify_workers, "--verify-workers", minimum=0, maximum=MAX_VERIFY_WORKERS)
    if workers > 1 and not is_postgres_url(resolve_db_path(db)):
        raise make_error("E101", where="--workers", detail="a DuckDB store has one writer process",
                         fix="use --workers 1, or a PostgreSQL store (--db postgresql://...) for several")
    levels = ("critical", "error", "warning", "info", "debug")
    if log_level not in levels:
        raise make_error("E105", where="--log-level", what="log level", value=log_level, choices=", ".join(levels))
    settings = ServiceSettings(db=db, audience=audience, config=load_config(config) if config else VerifierConfig(),
                               max_body_bytes=int(max_body_mb * 1_000_000),
                               max_stream_bytes=int(max_stream_mb * 1_000_000), max_claims=max_claims,
                               timeout=timeout, max_quote_chars=max_quote_chars, verify_workers=verify_workers)
    store = open_store(db)
    try:
        sock = _listen(host, port)
        bound = sock.getsockname()
        shown_host = f"[{bound[0]}]" if ":" in bound[0] else bound[0]
        url = f"http://{shown_host}:{bound[1]}"
        if host not in LOOPBACK and not host.startswith("127."):
            err.print(f"warning: {host} is reachable from other machines, and anyone who reaches it can store "
                      "answers (recording judgements needs a reviewer token: `graphcite reviewers add`)",
                      markup=False)

        def ready() -> None:
            shown = f", {workers} processes" if workers > 1 else ""
            if verify_workers:
                shown += f", {verify_workers} verification worker{'s' if verify_workers > 1 else ''}"
            err.print(f"graphcite serve: listening on {url} (audience {audience}, store {store.shown_path}{shown}); "
                      f"review app at {url}/review/answers; Ctrl+C stops", markup=False)
            sys.stderr.flush()

        if workers > 1:
            store.close()  # each process opens its own connections
            _serve_processes(workers, settings, db, sock, host, log_level, access_log, ready)
            return
        app = create_app(settings, store=store, close_store=True, hosts=allowed_hosts(host), on_ready=ready)
        # keep-alive 30 s: pooled clients reuse a connection between answers (uvicorn closes idle ones after 5 s)
        server = uvicorn.Server(uvicorn.Config(app, log_level=log_level, access_log=access_log, lifespan="on",
                                               timeout_graceful_shutdown=5, server_header=False,
                                               timeout_keep_alive=30, http=http_protocol()))
        server.run(sockets=[sock])  # on SIGTERM uvicorn shuts down (closing the store), then re-raises it
    finally:
        store.close()  # a no-op when the app already closed it


def _serve_one(settings: Any, db: str | None, sock: socket.socket, host: str, log_level: str,
               access_log: bool) -> None:
    """One server process of several: its own store connections, the shared listening socket."""
    import uvicorn

    from graphcite.serve.app import create_app
    from graphcite.serve.guard import allowed_hosts, http_protocol
    from graphcite.store import open_store

    store = open_store(db)
    try:
        app = create_app(settings, store=store, close_store=True, hosts=allowed_hosts(host))
        uvicorn.Server(uvicorn.Config(app, log_level=log_level, access_log=access_log, lifespan="on",
                                      timeout_graceful_shutdown=5, server_header=False,
                                      timeout_keep_alive=30, http=http_protocol())).run(sockets=[sock])
    finally:
        store.close()


def _serve_processes(workers: int, settings: Any, db: str | None, sock: socket.socket, host: str, log_level: str,
                     access_log: bool, ready: Callable[[], None]) -> None:
    """Fork ``workers`` server processes that accept on one socket; stop them all on SIGTERM or Ctrl+C.

    The kernel spreads connections over the processes; each keeps its own warm evidence reads, which
    notice another process's ingest through the evidence fingerprint. One process dying stops the rest.
    """
    import multiprocessing
    import signal

    context = multiprocessing.get_context("fork")
    children = [context.Process(target=_serve_one, args=(settings, db, sock, host, log_level, access_log),
                                name=f"graphcite-serve-{i}") for i in range(workers)]
    for child in children:
        child.start()
    stopping = False

    def stop(signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True
        for child in children:
            if child.is_alive():
                child.terminate()

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    ready()
    try:
        while any(child.is_alive() for child in children):
            for child in children:
                child.join(0.2)
                if child.exitcode not in (None, 0, -signal.SIGTERM) and not stopping:
                    stop(signal.SIGTERM, None)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    failed = [c.exitcode for c in children if c.exitcode not in (0, -signal.SIGTERM)]
    if failed and not stopping:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add ``serve`` to ``app``."""
    app.command("serve")(handles_errors(serve_command))
