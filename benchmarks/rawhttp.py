"""A lean HTTP/1.1 keep-alive client for the service benchmark: real sockets, real requests, every
response read whole and its status checked.

httpx costs about as much CPU per request as the server's own HTTP layer; on a 2-core machine where
client and server share the processors, it caps what a benchmark can show (``GET /healthz`` reached
only ~265 requests/s through it). This client does what a load generator must and nothing else: one
connection per simulated client, requests written with ``Content-Length``, responses read by
``Content-Length`` or chunked framing, the connection opened again when the server closes it. The
caller parses and checks each body; a broken connection is an error the caller counts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

__all__ = ["Connection", "HTTPError", "Response", "run"]

T = TypeVar("T")


class HTTPError(Exception):
    """The server's answer could not be read as HTTP/1.1 (or the connection broke mid-answer)."""


class Response:
    """One HTTP response: status, headers (lower-case names) and the whole body."""

    __slots__ = ("body", "headers", "status")

    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body


class Connection:
    """One keep-alive connection to ``host:port``, opened on first use and again after a close."""

    def __init__(self, host: str, port: int) -> None:
        self.host = host
        self.port = port
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self.opened = 0

    @classmethod
    def to(cls, url: str) -> Connection:
        """A connection to ``http://host:port`` (the URL's path, if any, is ignored)."""
        netloc = url.split("://", 1)[1].split("/", 1)[0]
        host, port = netloc.rsplit(":", 1)
        return cls(host.strip("[]"), int(port))

    async def _open(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if self._reader is None or self._writer is None:
            self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
            self.opened += 1
        return self._reader, self._writer

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
        self._reader = self._writer = None

    async def request(self, method: str, path: str, body: bytes = b"",
                      content_type: str = "application/json") -> Response:
        """Send one request and read its whole response; :class:`HTTPError` (connection closed) on failure."""
        reader, writer = await self._open()
        head = (f"{method} {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
                + (f"Content-Type: {content_type}\r\nContent-Length: {len(body)}\r\n" if body or method != "GET"
                   else "") + "\r\n")
        try:
            writer.write(head.encode("latin-1") + body)
            response = await self._read(reader)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError) as exc:
            self.close()
            raise HTTPError(f"{type(exc).__name__}: {exc}") from None
        if response.headers.get("connection", "").lower() == "close":
            self.close()
        return response

    @staticmethod
    async def _read(reader: asyncio.StreamReader) -> Response:
        lines = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        version, status, *_ = lines[0].split(" ", 2)
        if not version.startswith("HTTP/1."):
            raise ValueError(f"not an HTTP/1.x status line: {lines[0][:80]!r}")
        headers = {}
        for line in lines[1:]:
            if line:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
        if "content-length" in headers:
            body = await reader.readexactly(int(headers["content-length"]))
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            parts = []
            while True:
                size = int((await reader.readuntil(b"\r\n")).split(b";", 1)[0], 16)
                if size == 0:
                    await reader.readuntil(b"\r\n")  # no trailers are sent by the service
                    break
                parts.append((await reader.readexactly(size + 2))[:-2])
            body = b"".join(parts)
        else:
            raise ValueError("a response without Content-Length or chunked framing")
        return Response(int(status), headers, body)


def run(main: Callable[[], Coroutine[Any, Any, T]] | Awaitable[T]) -> T:
    """Run the coroutine on uvloop (the event loop the server also uses), or asyncio's own without it."""
    coroutine = main() if callable(main) else main
    try:
        import uvloop
    except ImportError:  # pragma: no cover - uvloop is a dependency of the service
        return asyncio.run(coroutine)  # type: ignore[arg-type]
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(coroutine)  # type: ignore[arg-type]
