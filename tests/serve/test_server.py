"""A real ``graphcite serve`` process on 127.0.0.1: HTTP over sockets, streaming, limits, forms, persistence."""

from __future__ import annotations

import json
import re
import signal
import socket
import time
from pathlib import Path
from typing import Any

import httpx
import lxml.html
import pytest
from serve_support import LiveServer, bearer, copy_db, load_answer_json, start_server, stop_server


def raw_request(server: LiveServer, data: bytes, *, read: bool = True, timeout: float = 20) -> bytes:
    with socket.create_connection((server.host, server.port), timeout=timeout) as sock:
        sock.sendall(data)
        if not read:
            return b""
        received = b""
        try:
            while chunk := sock.recv(65536):
                received += chunk
        except TimeoutError:
            pass
        return received


def read_until(sock: socket.socket, buffer: bytearray, marker: bytes, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while marker not in buffer:
        sock.settimeout(max(0.1, deadline - time.monotonic()))
        chunk = sock.recv(65536)
        if not chunk:
            raise AssertionError(f"connection closed before {marker!r}: {bytes(buffer)[-500:]!r}")
        buffer += chunk
        if time.monotonic() > deadline:
            raise AssertionError(f"no {marker!r} within {timeout} s")


def chunk(data: bytes) -> bytes:
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


def test_ready_line_health_and_openapi(live: LiveServer) -> None:
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+", live.url)
    assert httpx.get(f"{live.url}/healthz").json()["status"] == "ok"
    doc = httpx.get(f"{live.url}/openapi.json").json()
    assert "/v1/gate" in doc["paths"] and "/v1/check" in doc["paths"]


def test_every_read_endpoint_over_http(live: LiveServer, live_checked: dict[str, Any]) -> None:
    traps = live_checked["traps"]
    with httpx.Client(base_url=live.url, timeout=30) as client:
        assert len(client.get("/v1/sources").json()) > 20
        unit_id = traps["claims"][0]["citations"][0]["unit_id"]
        assert client.get(f"/v1/units/{unit_id}").json()["unit_id"] == unit_id
        chain = client.get(f"/v1/claims/{traps['claims'][3]['claim_id']}/chain").json()
        assert chain["contradicting_evidence"]
        answers = {a["answer_id"]: a for a in client.get("/v1/answers").json()}
        supported = sum(c["supported"] for c in traps["claims"])
        assert 0 < supported < 12  # the traps answer mixes supported and unsupported claims
        assert answers["demo-traps"]["supported_share"] == pytest.approx(supported / 12, abs=1e-3)
        assert answers["demo-traps"]["supported_claims"] == supported
        assert answers["demo-clean"]["supported_share"] == 1.0
        assert "faithfulness" not in answers["demo-traps"]  # a report's faithfulness means every claim supported


def test_gate_flushes_each_verdict_before_the_next_line_is_sent(live: LiveServer) -> None:
    clean = load_answer_json("clean.json")["claims"]
    traps = load_answer_json("traps.json")["claims"]
    with socket.create_connection((live.host, live.port), timeout=60) as sock:
        sock.sendall(b"POST /v1/gate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-ndjson\r\n"
                     b"Transfer-Encoding: chunked\r\n\r\n")
        received = bytearray()
        sock.sendall(chunk(json.dumps(clean[0]).encode() + b"\n"))
        read_until(sock, received, b'"line": 1')
        assert b'"line": 2' not in received  # the second line has not even been sent yet
        sock.sendall(chunk(b"{not json}\n"))
        read_until(sock, received, b'"line": 2')
        sock.sendall(chunk(json.dumps(traps[1]).encode() + b"\n"))
        read_until(sock, received, b'"line": 3')
        sock.sendall(b"0\r\n\r\n")
        read_until(sock, received, b'"done": true')
    text = bytes(received).decode("utf-8")
    assert text.startswith("HTTP/1.1 200") and "application/x-ndjson" in text
    records = [json.loads(line) for line in re.findall(r"^\{.*\}$", text, re.M)]
    assert [r.get("line") for r in records] == [1, 2, 3, None]
    assert records[0]["passed"] is True and records[1]["code"] == "E206" and records[2]["passed"] is False
    assert records[3]["passed"] == 1 and records[3]["errors"] == 1 and records[3]["declined"] is False


def test_gate_stream_with_httpx_line_by_line(live: LiveServer) -> None:
    claims = load_answer_json("traps.json")["claims"]
    body = "".join(json.dumps(c) + "\n" for c in claims).encode()
    seen = []
    with httpx.stream("POST", f"{live.url}/v1/gate", content=body, timeout=60,
                      headers={"content-type": "application/x-ndjson"}) as response:
        for line in response.iter_lines():
            seen.append((time.monotonic(), json.loads(line)))
    assert [r["line"] for _, r in seen[:-1]] == list(range(1, 13))
    passed = sum(1 for _, r in seen[:-1] if r["passed"])
    assert seen[-1][1]["done"] and seen[-1][1]["passed"] == passed and 0 < passed < 12
    assert seen[-2][0] > seen[0][0]  # arrived over time, not in one piece


def test_size_limit_and_bad_requests_never_stop_the_server(live: LiveServer) -> None:
    declared = raw_request(live, b"POST /v1/check HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                                 b"Content-Length: 50000000\r\nConnection: close\r\n\r\n{")
    assert declared.startswith(b"HTTP/1.1 413") and b'"E203"' in declared

    def body() -> Any:
        for _ in range(30):
            yield b" " * 50_000

    streamed = httpx.post(f"{live.url}/v1/check", content=body(), headers={"content-type": "application/json"},
                          timeout=30)
    assert streamed.status_code == 413 and streamed.json()["error"]["code"] == "E203"
    for garbage in (b"GARBAGE\r\n\r\n", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\x00" * 64,
                    b"POST /v1/check HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: abc\r\n\r\n",
                    b"POST /v1/check HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{\"ans"):
        raw_request(live, garbage, read=False)
    refused = raw_request(live, b"GET /healthz HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n")
    assert refused.startswith(b"HTTP/1.1 400") and b'"E807"' in refused
    assert httpx.get(f"{live.url}/healthz").status_code == 200
    response = httpx.post(f"{live.url}/v1/check", content=b"\x00\x01", headers={"content-type": "text/plain"})
    assert response.status_code < 500 and "Traceback" not in response.text


def sign_in(client: httpx.Client, token: str, next_path: str) -> httpx.Response:
    """Sign in through the form, as a browser does: the page's CSRF token, then the token."""
    page = client.get(f"/review/sign-in?next={next_path}")
    form = lxml.html.fromstring(page.text).xpath('//form[@action="/review/sign-in"]')[0]
    fields = {i.get("name"): i.get("value") for i in form.xpath(".//input[@type='hidden']")}
    return client.post("/review/sign-in", data={**fields, "token": token})


def test_sign_in_sets_a_strict_http_only_session(live: LiveServer, live_checked: dict[str, Any]) -> None:
    answer_path = f"/review/answers/{live_checked['traps']['answer_rev']}"
    with httpx.Client(base_url=live.url, timeout=30) as client:
        anonymous = lxml.html.fromstring(client.get(answer_path).text)
        assert not anonymous.xpath('//form[@class="annotate"]')  # readable, but no judging without signing in
        assert anonymous.xpath(f'//a[@href="/review/sign-in?next={answer_path}"]')
        refused = sign_in(client, "gc1.ZGFuYQ.not-the-token", answer_path)
        assert refused.status_code == 401 and "E808" in refused.text and "graphcite_session" not in client.cookies
        evil = sign_in(client, live.tokens["kim"], "//evil.example/x")
        assert evil.status_code == 303 and evil.headers["location"] == "/review/answers"  # no open redirect
        cookie = evil.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=strict" in cookie and live.tokens["kim"].lower() not in cookie
        signed = lxml.html.fromstring(client.get(answer_path).text)
        assert "Signed in as kim" in signed.text_content() and signed.xpath('//form[@class="annotate"]')
        assert not signed.xpath('//form[@class="annotate"]//input[@name="reviewer"]')
        sign_out = signed.xpath('//form[@action="/review/sign-out"]')[0]
        out = client.post("/review/sign-out", data={i.get("name"): i.get("value") for i in sign_out.xpath(".//input")})
        assert out.status_code == 303 and out.headers["location"] == answer_path
        assert not lxml.html.fromstring(client.get(answer_path).text).xpath('//form[@class="annotate"]')
    forged = httpx.get(f"{live.url}{answer_path}", cookies={"graphcite_session": "ZGFuYQ.9999999999.forged"})
    assert "Signed in as" not in forged.text


def test_review_form_records_judgements_and_shows_contested(live: LiveServer, live_checked: dict[str, Any]) -> None:
    traps = live_checked["traps"]
    claim = traps["claims"][2]
    answer_path = f"/review/answers/{traps['answer_rev']}"
    with httpx.Client(base_url=live.url, timeout=30) as client, httpx.Client(base_url=live.url, timeout=30) as eli:
        assert sign_in(client, live.tokens["dana"], answer_path).headers["location"] == answer_path
        page = client.get(answer_path)
        assert page.status_code == 200 and "script-src 'self'" in page.headers["content-security-policy"]
        form = lxml.html.fromstring(page.text).xpath(
            f'//form[.//input[@name="claim_id"][@value="{claim["claim_id"]}"] and .//input[@name="citation"][@value="0"]]')[0]
        fields = {i.get("name"): i.get("value") for i in form.xpath(".//input[@type='hidden']")}
        fields.update(label="contradicts", rationale="nine minutes, not eleven")
        unsigned = httpx.post(f"{live.url}/review/annotations", data=fields)
        assert unsigned.status_code == 401 and unsigned.json()["error"]["code"] == "E808"
        posted = client.post("/review/annotations", data=fields)
        assert posted.status_code == 303
        anchor = f"cit-{claim['claim_id']}-0"
        assert posted.headers["location"].endswith(f"#{anchor}")
        again = client.get(posted.headers["location"])
        block = lxml.html.fromstring(again.text).get_element_by_id(anchor).getparent()
        assert "dana says contradicts" in block.text_content() and "Agreed" in block.text_content()
        assert "Your judgement was recorded" in again.text
        sign_in(eli, live.tokens["eli"], answer_path)
        eli_page = lxml.html.fromstring(eli.get(answer_path).text)  # the CSRF token is eli's own session's
        eli_form = eli_page.xpath(
            f'//form[.//input[@name="claim_id"][@value="{claim["claim_id"]}"] and .//input[@name="citation"][@value="0"]]')[0]
        eli_fields = {i.get("name"): i.get("value") for i in eli_form.xpath(".//input[@type='hidden']")}
        assert eli_fields.get("csrf") != fields.get("csrf")  # rotated at sign-in
        as_json = eli.post("/review/annotations", data={**eli_fields, "label": "supports", "rationale": "reads it as a match"},
                           headers={"accept": "application/json"})  # what review.js sends
        assert as_json.status_code == 201 and as_json.json()["reviewer"] == "eli"
        spoofed = eli.post("/review/annotations", data={**eli_fields, "reviewer": "dana"})
        assert spoofed.status_code == 400 and spoofed.json()["error"]["code"] == "E201"
        contested = client.get("/review/annotations?contested=true")
        row = [tr for tr in lxml.html.fromstring(contested.text).xpath("//tbody/tr") if claim["claim_id"] in
               tr.text_content()]
        assert row and "Contested" in row[0].text_content() and "eli" in row[0].text_content()
        api = [a for a in client.get("/v1/annotations?contested=true").json() if a["claim_id"] == claim["claim_id"]]
        assert api and api[0]["labels"] == ["contradicts", "supports"]
        forged = client.post("/review/annotations", data={**fields, "csrf": "forged"})
        assert forged.status_code == 403 and forged.json()["error"]["code"] == "E805"
        cross = client.post("/review/annotations", data=fields, headers={"origin": "http://evil.example"})
        assert cross.status_code == 403


def test_review_pages_escape_hostile_documents(live: LiveServer, live_checked: dict[str, Any]) -> None:
    hostile = live_checked["hostile"]
    with httpx.Client(base_url=live.url, timeout=30) as client:
        page = client.get(f"/review/answers/{hostile['answer_rev']}").text
        tree = lxml.html.fromstring(page)
        assert not tree.xpath("//script[not(@src)] | //img | //iframe | //*[@onerror]")
        assert [s.get("src") for s in tree.xpath("//script")] == ["/static/review.js"]
        assert "PWNED-SCRIPT" in tree.xpath("string(//mark)")  # shown as text, inside the marked span
        assert all(not h.startswith("javascript:") for h in tree.xpath("//a/@href"))
        claim_id = hostile["claims"][0]["claim_id"]
        picture = client.get(f"/review/claims/{claim_id}")
        assert picture.status_code == 200 and "<svg" in picture.text and "<script>document" not in picture.text
        browser_error = client.get("/review/answers/none-such", headers={"accept": "text/html"})
        assert browser_error.status_code == 404 and "<h1>Error E" in browser_error.text


def test_annotations_persist_across_a_restart(serve_db: Path, tmp_path: Path) -> None:
    db = copy_db(serve_db, tmp_path)
    server = start_server(db, reviewers=("fay",))
    try:
        report = httpx.post(f"{server.url}/v1/check", json=load_answer_json("clean.json"), timeout=60).json()
        claim_id = report["claims"][0]["claim_id"]
        posted = httpx.post(f"{server.url}/v1/annotations", json={
            "claim_id": claim_id, "citation": 0, "label": "supports", "rationale": "verbatim"},
            headers=bearer(server.tokens["fay"]))
        assert posted.status_code == 201
    finally:
        assert stop_server(server) in (0, -signal.SIGTERM)
    from graphcite.evaluate import annotations
    from graphcite.store import Store

    with Store(db, read_only=True) as store:  # the server is gone and its lock with it
        stored = [a for a in annotations(store) if a["claim_id"] == claim_id]
    assert stored and stored[0]["judgements"][0]["reviewer"] == "fay"


def test_concurrent_reads_writes_and_streams(live: LiveServer, live_checked: dict[str, Any]) -> None:
    import asyncio

    answer = load_answer_json("clean.json")
    lines = "".join(json.dumps(c) + "\n" for c in answer["claims"][:3]).encode()
    claim_id = live_checked["clean"]["claims"][0]["claim_id"]

    async def main() -> list[Any]:
        async with httpx.AsyncClient(base_url=live.url, timeout=120) as client:
            calls = []
            for i in range(6):
                calls.append(client.post("/v1/check", json={**answer, "answer_id": f"concurrent-{i}"}))
                calls.append(client.post("/v1/gate", content=lines, headers={"content-type": "application/x-ndjson"}))
                calls.append(client.get("/v1/answers"))
                calls.append(client.post("/v1/annotations", json={
                    "claim_id": claim_id, "citation": 0, "label": "supports", "rationale": f"r{i}"},
                    headers=bearer(live.tokens[f"r{i}"])))
            return list(await asyncio.gather(*calls))

    responses = asyncio.run(main())
    assert [r.status_code for r in responses] == [200, 200, 200, 201] * 6
    assert all(r.json()["metrics"]["supported_claims"] == 7 for r in responses[::4])
    assert all(r.text.splitlines()[-1].startswith('{"done": true') for r in responses[1::4])
    stored = {a["answer_id"] for a in httpx.get(f"{live.url}/v1/answers").json()}
    assert {f"concurrent-{i}" for i in range(6)} <= stored
