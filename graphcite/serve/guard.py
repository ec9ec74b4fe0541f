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
  a traceback; the traceback goes to the ``graphcite.serve`` log), and the server keeps serving.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

from graphcite.serve.errors import BodyTooLarge, HTTPFailure, error_body, error_json

__all__ = ["API_CSP", "PAGE_CSP", "Guard", "allowed_hosts"]

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
                log.error("error while serving %s %s", scope.get("method"), scope.get("path"), exc_info=exc)
            if not started:
                await self._refuse(send, exc)
