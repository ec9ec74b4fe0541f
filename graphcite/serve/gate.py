"""``POST /v1/gate`` as a stream: NDJSON sentences in, one verdict out as soon as each is checked.

:class:`GateStream` is an ASGI response that reads the request body while it writes the response, so
a client can send a sentence, read its verdict and only then send the next one. Each line is checked by
:func:`graphcite.verify.check.gate_line` (what ``graphcite gate --stream`` runs per line) in one hop to a
worker thread and back, and its verdict is flushed at once; a line seen before under the same evidence
is answered from memory on the event loop, without a thread.

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

import hashlib
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import anyio
import anyio.to_thread
from starlette.requests import ClientDisconnect, Request

from graphcite.models import STATUS_DISPLAY, UNVERIFIED_DISPLAY
from graphcite.serve.errors import BodyTooLarge
from graphcite.serve.service import Service
from graphcite.verify.check import gate_line

__all__ = ["UNSUPPORTED_MODES", "GateStream", "split_lines", "status_label"]

UNSUPPORTED_MODES = ("mark", "remove")
log = logging.getLogger("graphcite.serve")


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
        settings = service.settings
        # what a verdict depends on besides the line itself and the evidence generation
        self._setting = (audience, settings.config.hash, repr(settings.limits), settings.max_line_bytes)

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

    # -- one sentence --------------------------------------------------------------------------------
    def _remembered(self, number: int, raw: bytes) -> dict[str, Any] | None:
        """The verdict of a line seen before under this evidence, on the event loop (no thread), or None."""
        warm = self.service.warm
        if not warm.fresh():
            return None  # the evidence fingerprint is due for a check: the worker thread's view does it
        if len(raw) > _REMEMBERED_LINE:
            return None
        found = warm.remembered(_VERDICTS, (_digest(raw), self._setting))
        return {"line": number, **found} if isinstance(found, dict) else None

    def _check(self, number: int, raw: bytes) -> dict[str, Any] | None:
        """Line ``number`` checked in a worker thread on a pooled view; a verdict made from evidence reads
        alone is remembered for the evidence generation it was read under."""
        settings = self.service.settings
        with self.service.reader() as store:
            warm = self.service.warm
            generation, passthrough = warm.generation, getattr(store, "passthrough_reads", None)
            record = gate_line(store, number, raw, config=settings.config, audience=self.audience,
                               limits=settings.limits, max_line_chars=settings.max_line_bytes)
            if record is not None and "error" not in record and passthrough is not None \
                    and store.passthrough_reads == passthrough and len(raw) <= _REMEMBERED_LINE:  # type: ignore[attr-defined]
                warm.remember(_VERDICTS, (_digest(raw), self._setting),
                                  {k: v for k, v in record.items() if k != "line"}, generation, _VERDICTS_KEPT)
        return record

    # -- ASGI -----------------------------------------------------------------------------------------
    async def _records(self) -> AsyncIterator[dict[str, Any]]:
        """Each line's record as it is decided: from memory on the event loop, else one worker-thread hop
        under the per-sentence time limit; an E801, E203 or E009 record ends the stream."""
        limit = self.service.settings.timeout
        try:
            async for raw in split_lines(self.request.stream(), self.service.settings.max_line_bytes):
                self.counts["lines"] += 1
                self.service.activity += 1  # (a line answered from memory borrows no view: still activity)
                number = self.counts["lines"]
                record = self._remembered(number, raw)
                if record is None:
                    with anyio.move_on_after(limit) as scope:
                        record = await anyio.to_thread.run_sync(self._check, number, raw, abandon_on_cancel=True,
                                                                limiter=self.service.stream_limiter)
                    if scope.cancelled_caught:
                        yield {"line": number, "code": "E801",
                               "error": f"line {number}: not checked within {limit:g} s; the stream ends here"}
                        return
                if record is not None:
                    yield record
        except BodyTooLarge as exc:
            yield {"line": self.counts["lines"] + 1, "error": str(exc), "code": exc.code}
        except ClientDisconnect:
            pass
        except Exception as exc:  # a bug: the client gets a record, the log gets the traceback
            log.error("error in the gate stream", exc_info=exc)
            yield {"line": self.counts["lines"], "code": "E009",
                   "error": "internal error: the stream ends here; the server log has details"}

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        media = b"text/event-stream" if self.sse else b"application/x-ndjson"
        await send({"type": "http.response.start", "status": 200, "headers": [
            (b"content-type", media + b"; charset=utf-8"), (b"cache-control", b"no-store"),
            (b"x-accel-buffering", b"no")]})
        async for record in self._records():
            await send({"type": "http.response.body", "body": self._encode(self._shape(record)), "more_body": True})
        await send({"type": "http.response.body", "body": self._encode(self._summary()), "more_body": False})


#: the kind of warm memory (graphcite.serve.warm.WarmReads.remember) gate verdicts are kept under, how
#: many, and the longest line kept (a verdict holds the claim's text: at most 4096 x 2 x 8 KB)
_VERDICTS = "gate verdicts"
_VERDICTS_KEPT = 4096
_REMEMBERED_LINE = 8192


def _digest(raw: bytes) -> bytes:
    """A line's key in the verdict memory (16 bytes, whatever the line's length)."""
    return hashlib.blake2b(raw, digest_size=16).digest()
