"""The outermost layer of the server: host check, body size limit, security headers, last-resort errors.

Pure ASGI, so it sees every request before routing and every response start:

* a request whose ``Host`` is not one the server answers to is refused (400, E807): a server on
  127.0.0.1 must not be reachable from a web page through DNS rebinding;
* a declared ``Content-Length`` over the limit is refused at once (413, E203) without reading the
  body; a chunked body is counted as it is read and refused the moment it passes the limit;
* every response carries ``X-Content-Type-Options``, ``Referrer-Policy`` (``same-origin``: nothing leaves
  for other sites, and a browser still sends its real ``Origin`` with a form, which ``no-referrer``
  would turn into ``null``), ``X-Frame-Options`` and a
  Content-Security-Policy (``default-src 'none'`` unless the route set a page policy of its own);
* any exception that escapes the app becomes a JSON error when the response has not started (never
  a traceback; a bug's traceback goes to the ``graphcite.serve`` log), and the server keeps serving.

A refusal (a slow body, E801, or any other coded error) is one line in that log, never a traceback:
:class:`OneLineRefusals` filters the logger. Below the ASGI app, :func:`http_protocol` gives the server
an HTTP protocol that answers what its parser refuses (a NUL in a header, an unknown method, a 100 kB
URL, a bad Content-Length) with the same JSON error body (E809) and headers as every other error, and
that closes a connection whose request body is still arriving gracefully: it stops writing, keeps
reading and dropping the body for a while, then closes, so a client that sends its whole body before
reading gets the early 413 or 415 instead of a connection reset.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from functools import lru_cache
from typing import Any

from graphcite.errors import GraphciteError
from graphcite.serve.errors import BodyTooLarge, HTTPFailure, error_body, error_json

__all__ = ["API_CSP", "PAGE_CSP", "Guard", "OneLineRefusals", "allowed_hosts", "http_protocol", "log_refusal"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

log = logging.getLogger("graphcite.serve")

API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
PAGE_CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
            "form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
_HEADERS = ((b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"same-origin"),
            (b"x-frame-options", b"DENY"), (b"cross-origin-resource-policy", b"same-origin"))
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})
#: how long, and for how many bytes, a closing connection keeps dropping a request body still arriving
LINGER_SECONDS = 10.0
LINGER_BYTES = 256 * 1_000_000


def _refusal(exc: BaseException | None) -> GraphciteError | HTTPFailure | None:
    """``exc`` when it is a coded refusal (anything but a bug, E009), else None."""
    if isinstance(exc, GraphciteError | HTTPFailure) and exc.code != "E009":
        return exc
    return None


def log_refusal(method: str | None, path: str | None, exc: BaseException) -> None:
    """Log a request the server answered with an error: one line for a refusal, a traceback for a bug."""
    refusal = _refusal(exc)
    if refusal is None:
        log.error("error while serving %s %s", method, path, exc_info=exc)
    else:
        log.error("refused %s %s: %s %s", method, str(path)[:200], refusal.code, _message_of(refusal))


def _message_of(exc: GraphciteError | HTTPFailure) -> str:
    return str(exc) if isinstance(exc, GraphciteError) else exc.message


class OneLineRefusals(logging.Filter):
    """Turn a log record that carries a refusal's traceback into one line (the record of a bug keeps it).

    The app's error handler logs 5xx refusals (E801) with their exception; 300 slow clients were 300
    tracebacks. Installed on the ``graphcite.serve`` logger when this module is imported.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        refusal = _refusal(exc)
        if refusal is not None:
            record.msg = f"{record.getMessage()}: {refusal.code} {_message_of(refusal)}".replace("%", "%%")
            record.args = ()
            record.exc_info = None
            record.exc_text = None
        return True


if not any(isinstance(f, OneLineRefusals) for f in log.filters):
    log.addFilter(OneLineRefusals())


def allowed_hosts(host: str) -> frozenset[str] | None:
    """Host names a server bound to ``host`` answers to; None when any (bound to all interfaces)."""
    if host in {"0.0.0.0", "::", ""}:
        return None
    if host in LOOPBACK or host.startswith("127."):
        return LOOPBACK | {host, f"[{host}]" if ":" in host else host}
    return frozenset({host, f"[{host}]" if ":" in host else host})


def _host_name(value: str) -> str:
    value = value.strip().lower()
    if value.startswith("["):  # [::1]:8000
        return value[: value.find("]") + 1] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return value.decode("latin-1")
    return None


class Guard:
    """ASGI middleware: see the module docstring. ``stream_paths`` get the larger stream limit."""

    def __init__(self, app: ASGIApp, *, max_body: int, max_stream: int, stream_paths: Iterable[str] = (),
                 hosts: frozenset[str] | None = None) -> None:
        self.app = app
        self.max_body = max_body
        self.max_stream = max_stream
        self.stream_paths = frozenset(stream_paths)
        self.hosts = hosts

    async def _refuse(self, send: Send, exc: BaseException) -> None:
        status, body = error_body(exc)
        payload = error_json((status, body))
        await send({"type": "http.response.start", "status": status, "headers": [
            (b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode()),
            (b"content-security-policy", API_CSP.encode()), *_HEADERS]})
        await send({"type": "http.response.body", "body": payload, "more_body": False})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.hosts is not None:
            host = _host_name(_header(scope, b"host") or "")
            if host not in self.hosts:
                await self._refuse(send, HTTPFailure("E807", f"host {host[:80]!r} is not served here", where="Host"))
                return
        limit = self.max_stream if scope.get("path") in self.stream_paths else self.max_body
        declared = _header(scope, b"content-length")
        if declared is not None:
            try:
                size = int(declared)
            except ValueError:
                size = -1
            if size > limit:
                await self._refuse(send, BodyTooLarge(size, limit))
                return
        received = 0
        started = False

        async def counted_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge(received, limit)
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = list(message.get("headers", []))
                present = {key.lower() for key, _ in headers}
                headers.extend(h for h in _HEADERS if h[0] not in present)
                if b"content-security-policy" not in present:
                    headers.append((b"content-security-policy", API_CSP.encode()))
                message = {**message, "headers": headers}
            await send(message)

        try:
            await self.app(scope, counted_receive, guarded_send)
        except Exception as exc:
            status, _ = error_body(exc)
            if status >= 500:
                log_refusal(scope.get("method"), scope.get("path"), exc)
            if not started:
                await self._refuse(send, exc)


def _error_response(failure: HTTPFailure, *, close: bool) -> bytes:
    """A whole HTTP/1.1 response carrying ``failure``'s JSON error body and the Guard's headers."""
    status, body = error_body(failure)
    payload = error_json((status, body))
    reason = {400: "Bad Request", 500: "Internal Server Error"}.get(status, "Error")
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode()),
               (b"content-security-policy", API_CSP.encode()), *_HEADERS]
    if close:
        headers.append((b"connection", b"close"))
    lines = [f"HTTP/1.1 {status} {reason}".encode(), *(name + b": " + value for name, value in headers)]
    return b"\r\n".join(lines) + b"\r\n\r\n" + payload


class _LingeringTransport:
    """A transport whose ``close`` waits for the request body still arriving (see the module docstring).

    Closing while a request is unread would make the kernel reset the connection when more of its
    body arrives, and a reset can throw away the answer before the client reads it. So ``close``
    sends what is queued and a FIN, reads and drops what still comes for :data:`LINGER_SECONDS` or
    :data:`LINGER_BYTES`, and closes when the client does, or then.
    """

    def __init__(self, transport: Any, protocol: Any) -> None:
        self._transport = transport
        self._protocol = protocol
        self.lingering = False
        self.at_once = False  # the connection is gone, or the server stops: close without lingering
        self._dropped = 0
        self._timer: asyncio.TimerHandle | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)

    def is_closing(self) -> bool:
        return self.lingering or bool(self._transport.is_closing())

    def close(self) -> None:
        real = self._transport
        if self.lingering or real.is_closing():
            return
        if self.at_once or not self._protocol.request_unread or not real.can_write_eof():
            real.close()
            return
        self.lingering = True
        try:
            real.write_eof()
            real.resume_reading()
        except (OSError, RuntimeError):
            real.close()
            return
        self._timer = asyncio.get_running_loop().call_later(LINGER_SECONDS, self.abort_linger)

    def drop(self, size: int) -> None:
        """Count ``size`` bytes read while lingering; close once too many came."""
        self._dropped += size
        if self._dropped > LINGER_BYTES:
            self.abort_linger()

    def abort_linger(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if not self._transport.is_closing():
            self._transport.close()


@lru_cache(maxsize=1)
def http_protocol() -> type[asyncio.Protocol] | str:
    """The HTTP protocol class for uvicorn (``uvicorn.Config(http=...)``): uvicorn's httptools protocol with
    JSON answers for what its parser refuses and a lingering close (see the module docstring); ``"auto"``
    when httptools is not installed."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:  # pragma: no cover - uvicorn without httptools answers as it does
        return "auto"

    class GuardedHttpToolsProtocol(HttpToolsProtocol):  # type: ignore[misc]
        """uvicorn's protocol, answering in JSON and closing gracefully (see :func:`http_protocol`)."""

        request_unread = False

        def connection_made(self, transport: Any) -> None:  # type: ignore[override]
            self.lingering_transport = _LingeringTransport(transport, self)
            super().connection_made(self.lingering_transport)

        def data_received(self, data: bytes) -> None:
            if self.lingering_transport.lingering:
                self.lingering_transport.drop(len(data))
                return
            super().data_received(data)

        def eof_received(self) -> None:
            if self.lingering_transport.lingering:
                self.lingering_transport.abort_linger()
                return
            super().eof_received()

        def connection_lost(self, exc: Exception | None) -> None:
            self.lingering_transport.at_once = True
            self.lingering_transport.abort_linger()
            super().connection_lost(exc)

        def shutdown(self) -> None:
            self.lingering_transport.at_once = True  # a stopping server does not wait for bodies
            if self.lingering_transport.lingering:
                self.lingering_transport.abort_linger()
            super().shutdown()

        def on_message_begin(self) -> None:
            self.request_unread = True
            super().on_message_begin()

        def on_message_complete(self) -> None:
            self.request_unread = False
            super().on_message_complete()

        def send_400_response(self, msg: str) -> None:
            self.request_unread = True  # the parser stopped: whatever follows is unread
            failure = HTTPFailure("E809", "the request is not valid HTTP/1.1 (bad request line, method, header or "
                                  "Content-Length)", where="request")
            self.transport.write(_error_response(failure, close=True))
            self.transport.close()

    return GuardedHttpToolsProtocol
