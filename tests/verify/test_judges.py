"""The http judge against a real local HTTP server (OpenAI-compatible shape), and its fallback."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import ClassVar

import pytest

from graphcite.verify.config import VerifierConfig
from graphcite.verify.judges import judge


class _Handler(BaseHTTPRequestHandler):
    label = "contradicts"
    seen: ClassVar[list[dict]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).seen.append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
        content = json.dumps({"label": type(self).label, "rationale": "the numbers differ"})
        payload = json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        return


@pytest.fixture
def server() -> Iterator[str]:
    httpd = HTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_http_judge_asks_the_endpoint_and_records_model(server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHCITE_JUDGE_KEY", "sekret")
    config = VerifierConfig(judge="http", judge_url=server, judge_model="tiny-nli", judge_timeout=5)
    verdict = judge("Refunds take 14 days.", "Refunds take 30 days.", config)
    assert verdict.label == "contradicts" and verdict.judge == "http"
    assert verdict.model == "tiny-nli" and verdict.prompt_revision == "support-v1"
    request = _Handler.seen[-1]
    assert request["path"] == "/v1/chat/completions" and request["auth"] == "Bearer sekret"
    assert "Refunds take 14 days." in request["body"]["messages"][1]["content"]


def test_http_judge_falls_back_when_unreachable() -> None:
    config = VerifierConfig(judge="http", judge_url="http://127.0.0.1:9/v1", judge_timeout=0.5)
    verdict = judge("Refunds take 14 days.", "Refunds take 14 days.", config)
    assert verdict.judge == "heuristic" and verdict.label == "supports"
    assert verdict.fallback and "unavailable" in verdict.fallback


def test_config_hash_changes_with_the_judge() -> None:
    assert VerifierConfig().hash != VerifierConfig(judge="http", judge_url="http://x").hash
    assert VerifierConfig().hash == VerifierConfig().hash
