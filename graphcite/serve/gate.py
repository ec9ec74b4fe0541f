"""``POST /v1/gate`` as a stream: NDJSON sentences in, one verdict out as soon as each is checked.

:class:`GateStream` is an ASGI response that reads the request body while it writes the response, so
a client can send a sentence, read its verdict and only then send the next one. The lines are handed
to :func:`graphcite.verify.check.gate_stream` (the same function as ``graphcite gate --stream``)
running in one worker thread; each verdict crosses back to the event loop and is flushed at once.

Records, one per line (or one server-sent event each with ``Accept: text/event-stream``):

* a verdict ``{"line", "text", "passed", "status", "label"}``; with ``?unsupported=remove`` an
  unsupported sentence comes back as ``{"line", "passed": false, "status", "removed": true}``
  without its text;
* an error ``{"line", "error", "code"}`` for a line that cannot be used; the stream goes on;
* last, ``{"done": true, "lines", "passed", "failed", "errors", "declined", "reason"}``: a stream in
  which no sentence passed is declined, and the reason says why.

A sentence that is not checked within the server's time limit ends the stream with an E801 record; a
body over the stream limit ends it with an E203 record (the status line, 200, was already sent).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import anyio
import anyio.from_thread
import anyio.to_thread
from anyio.streams.memory import MemoryObjectSendStream
from starlette.requests import ClientDisconnect, Request

from graphcite.models import STATUS_DISPLAY, UNVERIFIED_DISPLAY
from graphcite.serve.errors import BodyTooLarge
from graphcite.serve.service import Service
from graphcite.verify.check import gate_stream

__all__ = ["UNSUPPORTED_MODES", "GateStream", "split_lines", "status_label"]

UNSUPPORTED_MODES = ("mark", "remove")
log = logging.getLogger("graphcite.serve")
_POLL = 0.25  # seconds between checks of the per-sentence deadline while waiting for a verdict


async def split_lines(chunks: AsyncIterator[bytes], max_bytes: int) -> AsyncIterator[bytes]:
    """Lines of a byte stream as they complete; a line over ``max_bytes`` is cut to ``max_bytes + 1``
    (so gate_stream reports E210 for it) and the rest of it is skipped unread."""
    buffer = bytearray()
    skipping = False
    async for chunk in chunks:
        buffer += chunk
        while True:
            end = buffer.find(b"\n")
            if skipping:
                if end < 0:
                    buffer.clear()
                    break
                del buffer[: end + 1]
                skipping = False
                continue
            if end < 0:
                if len(buffer) > max_bytes:
                    yield bytes(buffer[: max_bytes + 1])
                    buffer.clear()
                    skipping = True
                break
            line = bytes(buffer[: end + 1])
            del buffer[: end + 1]
            yield line if len(line) <= max_bytes + 1 else line[: max_bytes + 1]
    if buffer and not skipping:
        yield bytes(buffer)


def status_label(status: str) -> str:
    """A status as symbol and word from :data:`~graphcite.models.STATUS_DISPLAY` (never colour alone)."""
    symbol, word, _ = STATUS_DISPLAY.get(status, UNVERIFIED_DISPLAY)
    return f"{symbol} {word}"


class GateStream:
    """The streaming gate response for one request (see the module docstring)."""

    def __init__(self, request: Request, service: Service, *, audience: str, mode: str, sse: bool) -> None:
        self.request = request
        self.service = service
        self.audience = audience
        self.mode = mode
        self.sse = sse
        self.counts = {"lines": 0, "passed": 0, "failed": 0, "errors": 0}
        self._lines: AsyncIterator[bytes] | None = None
        self._deadline: float | None = None
        self._stop = False
        self._timed_out = False

    # -- records ------------------------------------------------------------------------------------
    def _shape(self, record: dict[str, Any]) -> dict[str, Any]:
        if "error" in record:
            self.counts["errors"] += 1
            return record
        if record["passed"]:
            self.counts["passed"] += 1
        else:
            self.counts["failed"] += 1
            if self.mode == "remove":
                return {"line": record["line"], "passed": False, "status": record["status"],
                        "label": status_label(record["status"]), "removed": True}
        return {**record, "label": status_label(record["status"])}

    def _summary(self) -> dict[str, Any]:
        declined = self.counts["passed"] == 0
        reason = None
        if declined:
            reason = ("no sentence of this stream is supported by its citations" if self.counts["failed"]
                      else "the stream held no sentence that could be checked")
        return {"done": True, **self.counts, "declined": declined, "reason": reason}

    def _encode(self, record: dict[str, Any]) -> bytes:
        text = json.dumps(record, ensure_ascii=False, default=str)
        text = text.replace("\x85", "\\u0085").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
        if self.sse:
            event = "done" if record.get("done") else ("error" if "error" in record else "verdict")
            return f"event: {event}\ndata: {text}\n\n".encode()
        return (text + "\n").encode("utf-8")

    # -- the worker thread and its line source -------------------------------------------------------
    async def _next_line(self) -> bytes | None:
        """The next body line, or None at the end; the line's time limit starts when it is handed over."""
        assert self._lines is not None
        if self._stop:
            return None
        try:
            line = await self._lines.__anext__()
        except StopAsyncIteration:
            return None
        self.counts["lines"] += 1
        self._deadline = time.monotonic() + self.service.settings.timeout
        return line

    def _thread_lines(self) -> Iterator[bytes]:
        while True:
            line = anyio.from_thread.run(self._next_line)
            if line is None:
                return
            yield line

    def _run(self, out: MemoryObjectSendStream[dict[str, Any]]) -> None:
        settings = self.service.settings
        with self.service.reader() as store:
            for verdict in gate_stream(store, self._thread_lines(), config=settings.config, audience=self.audience,
                                       limits=settings.limits, max_line_chars=settings.max_line_bytes,
                                       verifier=self.service.verifier):
                self._deadline = None
                anyio.from_thread.run(out.send, verdict)
            self._deadline = None

    async def _work(self, out: MemoryObjectSendStream[dict[str, Any]]) -> None:
        async with out:
            try:
                await anyio.to_thread.run_sync(self._run, out, abandon_on_cancel=True,
                                               limiter=self.service.stream_limiter)
            except BodyTooLarge as exc:
                await out.send({"line": self.counts["lines"] + 1, "error": str(exc), "code": exc.code})
            except ClientDisconnect:
                pass
            except Exception as exc:  # a bug: the client gets a record, the log gets the traceback
                log.error("error in the gate stream", exc_info=exc)
                await out.send({"line": self.counts["lines"], "code": "E009",
                                "error": "internal error: the stream ends here; the server log has details"})

    async def _watchdog(self, scope: anyio.CancelScope) -> None:
        """End the stream when a sentence handed to the checker has run over the time limit."""
        while True:
            await anyio.sleep(_POLL)
            if self._deadline is not None and time.monotonic() > self._deadline:
                self._timed_out = True
                self._stop = True
                scope.cancel()
                return

    # -- ASGI -----------------------------------------------------------------------------------------
    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        media = b"text/event-stream" if self.sse else b"application/x-ndjson"
        self._lines = split_lines(self.request.stream(), self.service.settings.max_line_bytes)
        await send({"type": "http.response.start", "status": 200, "headers": [
            (b"content-type", media + b"; charset=utf-8"), (b"cache-control", b"no-store"),
            (b"x-accel-buffering", b"no")]})
        out, verdicts = anyio.create_memory_object_stream[dict[str, Any]](16)
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(self._work, out)
            tasks.start_soon(self._watchdog, tasks.cancel_scope)
            async with verdicts:
                async for record in verdicts:
                    await send({"type": "http.response.body", "body": self._encode(self._shape(record)),
                                "more_body": True})
            tasks.cancel_scope.cancel()
        if self._timed_out:
            limit = self.service.settings.timeout
            line = self.counts["lines"]
            record = {"line": line, "code": "E801",
                      "error": f"line {line}: not checked within {limit:g} s; the stream ends here"}
            await send({"type": "http.response.body", "body": self._encode(self._shape(record)), "more_body": True})
        await send({"type": "http.response.body", "body": self._encode(self._summary()), "more_body": False})
