"""What the HTTP layer itself answers, over raw sockets against a real ``graphcite serve`` (issue 23 item 15).

Requests the HTTP parser refuses (a NUL in a header, an unknown method, a 100 kB URL, a bad
Content-Length) get JSON with a code, like every other error; an early 413 or 415 is readable by a
client that sends its whole body first, even when the connection is to close; a slow body (E801)
is one log line per refused request, never a traceback.
"""

from __future__ import annotations

import json
import os
import re
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from serve_support import LiveServer, start_server, stop_server

from graphcite.ingest import ingest
from graphcite.store import Store

BAD_REQUESTS = {
    "nul-in-header": b"GET /healthz HTTP/1.1\r\nHost: {host}\r\nX-Note: a\x00b\r\n\r\n",
    "unknown-method": b"BREW /healthz HTTP/1.1\r\nHost: {host}\r\n\r\n",
    "long-url": b"GET /" + b"a" * 100_000 + b" HTTP/1.1\r\nHost: {host}\r\n\r\n",
    "length-not-a-number": b"POST /v1/check HTTP/1.1\r\nHost: {host}\r\nContent-Length: abc\r\n\r\n",
    "negative-length": b"POST /v1/check HTTP/1.1\r\nHost: {host}\r\nContent-Length: -5\r\n\r\n",
    "two-lengths": b"POST /v1/check HTTP/1.1\r\nHost: {host}\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\nabcde",
    "garbage": b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03 not http\r\n\r\n",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    root = tmp_path_factory.mktemp("protocol")
    (root / "docs").mkdir()
    (root / "docs" / "relay.md").write_text("# Relay\n\nThe relay keeps logs for 7 days.\n", encoding="utf-8")
    db = root / "s.duckdb"
    with Store(db) as store:
        ingest(store, [root / "docs"])
    live = start_server(db, "--timeout", "1", "--max-body-mb", "1")
    yield live
    stop_server(live)


def _exchange(server: LiveServer, request: bytes, body: bytes = b"", timeout: float = 15) -> tuple[bytes, str | None]:
    """(everything the server sent until it closed, the error sending ``body`` raised or None)."""
    with socket.create_connection((server.host, server.port), timeout=timeout) as sock:
        sock.sendall(request.replace(b"{host}", f"{server.host}:{server.port}".encode()))
        problem = None
        try:
            for at in range(0, len(body), 65_536):
                sock.sendall(body[at:at + 65_536])
        except OSError as exc:
            problem = f"{type(exc).__name__}: {exc}"
        received = b""
        try:
            while chunk := sock.recv(65_536):
                received += chunk
        except OSError as exc:
            problem = problem or f"{type(exc).__name__} while reading: {exc}"
    return received, problem


def _response(raw: bytes) -> tuple[int, dict[str, str], bytes]:
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines[1:] if ": " in line)
    return int(lines[0].split()[1]), headers, body


@pytest.mark.parametrize("name", list(BAD_REQUESTS))
def test_a_request_the_parser_refuses_gets_json_with_a_code(server: LiveServer, name: str) -> None:
    raw, problem = _exchange(server, BAD_REQUESTS[name])
    assert problem is None, problem
    status, headers, body = _response(raw)
    assert status == 400 and headers["content-type"] == "application/json", raw[:300]
    assert int(headers["content-length"]) == len(body)
    error = json.loads(body)["error"]
    assert error["code"] == "E809" and error["message"] and error["fix"], error
    assert headers.get("x-content-type-options") == "nosniff" and "content-security-policy" in headers
    assert httpx.get(f"{server.url}/healthz", timeout=10).status_code == 200  # still serving


def _post(path: str, media: str, length: int, *, close: bool = True, version: str = "1.1") -> bytes:
    connection = "Connection: close\r\n" if close else ""
    return (f"POST {path} HTTP/{version}\r\nHost: {{host}}\r\nContent-Type: {media}\r\n{connection}"
            f"Content-Length: {length}\r\n\r\n").encode()


@pytest.mark.parametrize(("media", "size", "status", "code", "version"), [
    ("application/json", 6_000_000, 413, "E203", "1.1"),
    ("application/json", 6_000_000, 413, "E203", "1.0"),
    ("text/csv", 900_000, 415, "E803", "1.1"),
])
def test_an_early_refusal_is_readable_after_sending_the_whole_body(server: LiveServer, media: str, size: int,
                                                                   status: int, code: str, version: str) -> None:
    raw, problem = _exchange(server, _post("/v1/check", media, size, version=version), b"x" * size)
    assert problem is None, f"the client could not send its body and read the answer: {problem}"
    got, _, body = _response(raw)
    assert got == status and json.loads(body)["error"]["code"] == code, raw[:300]


def test_slow_bodies_are_one_log_line_each_and_no_traceback(server: LiveServer) -> None:
    before = len(server.stderr)
    answers: list[bytes] = []

    def slow_client() -> None:
        with socket.create_connection((server.host, server.port), timeout=20) as sock:
            sock.sendall(_post("/v1/check", "application/json", 100, close=False).replace(
                b"{host}", f"{server.host}:{server.port}".encode()) + b'{"claims"')
            received = b""
            try:
                while b"\r\n\r\n" not in received or len(received.partition(b"\r\n\r\n")[2]) < 20:
                    chunk = sock.recv(65_536)
                    if not chunk:
                        break
                    received += chunk
            except OSError:
                pass
            answers.append(received)

    clients = [threading.Thread(target=slow_client) for _ in range(6)]
    for client in clients:
        client.start()
    for client in clients:
        client.join(30)
    assert len(answers) == 6
    for raw in answers:
        assert raw.startswith(b"HTTP/1.1 504") and b'"E801"' in raw, raw[:300]
    time.sleep(0.5)
    log = "".join(server.stderr[before:])
    assert "Traceback" not in log, log[-3000:]
    assert len([line for line in log.splitlines() if "E801" in line]) == 6, log[-3000:]
    assert len(log.splitlines()) <= 6 + 2, log[-3000:]


def test_the_log_keeps_nothing_of_a_refused_request_but_its_line(server: LiveServer, tmp_path: Path) -> None:
    before = len(server.stderr)
    for request in BAD_REQUESTS.values():
        _exchange(server, request)
    log = "".join(server.stderr[before:])
    assert "Traceback" not in log and len(log.splitlines()) <= len(BAD_REQUESTS), log[-3000:]


_PIECES = st.sampled_from([b"GET", b"POST", b"BREW", b"G\x00T", b" ", b"/healthz", b"/v1/check", b"/" + b"x" * 9000,
                           b"HTTP/1.1", b"HTTP/9.9", b"\r\n", b"\n", b"Host: {host}", b"Content-Length: ",
                           b"-1", b"99999999999999999999", b"abc", b"Transfer-Encoding: chunked", b"\x00", b"\xff",
                           b"X: \x01", b"Content-Type: application/json", b"{}", b"0\r\n\r\n"])


@settings(max_examples=int(os.environ.get("GC_FUZZ_EXAMPLES", "40")), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(_PIECES, min_size=1, max_size=14))
def test_property_any_request_bytes_get_an_http_answer_with_a_code(server: LiveServer, pieces: list[bytes]) -> None:
    request = b"".join(pieces) + b"\r\n\r\n"
    try:
        raw, _ = _exchange(server, request, timeout=5)
    except TimeoutError:  # a request still waiting for its body or headers: the server keeps waiting too
        return
    if not raw:
        return
    status, headers, body = _response(raw)
    assert raw.startswith(b"HTTP/1.1 ") and 200 <= status < 600, raw[:200]
    if status >= 400:
        assert headers.get("content-type") == "application/json", raw[:300]
        assert re.fullmatch(r"E\d{3}", json.loads(body)["error"]["code"])
    assert "Traceback" not in server.log()
