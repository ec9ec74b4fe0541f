"""Several `graphcite serve` processes on one PostgreSQL store: reviewers on either server see each other's
judgements, and evidence another process ingests reaches each server's warm reads."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx
from serve_support import ROOT, bearer, load_answer_json, start_server, stop_server


def test_two_servers_share_reviewers_judgements_and_new_evidence(new_pg_database: Callable[..., str],
                                                                  tmp_path: Path) -> None:
    url = new_pg_database("gc_corpus")
    first = start_server(url, reviewers=("ana", "ben"))  # type: ignore[arg-type]
    second = start_server(url)  # type: ignore[arg-type]
    try:
        report = httpx.post(f"{first.url}/v1/check", json=load_answer_json("clean.json"), timeout=60,
                            headers=bearer(first.tokens["ana"])).json()
        claim_id = report["claims"][0]["claim_id"]
        posted = [httpx.post(f"{server.url}/v1/annotations", timeout=30, headers=bearer(first.tokens[name]),
                             json={"claim_id": claim_id, "citation": 0, "label": label, "rationale": f"{name} read it"})
                  for server, name, label in ((first, "ana", "supports"), (second, "ben", "mentions"))]
        assert [p.status_code for p in posted] == [201, 201], [p.text for p in posted]
        for server in (first, second):
            contested = [a for a in httpx.get(f"{server.url}/v1/annotations?contested=true", timeout=30).json()
                         if a["claim_id"] == claim_id]
            assert contested and contested[0]["labels"] == ["mentions", "supports"], server.url

        docs = tmp_path / "late"
        docs.mkdir()
        (docs / "ferry.md").write_text("# Ferry\n\nThe night ferry carries bicycles free of charge.\n",
                                       encoding="utf-8")
        late = {"answer_id": "late", "claims": [{"text": "The night ferry carries bicycles free of charge.",
                                                 "citations": [{"source": "late/ferry.md"}]}]}
        before = httpx.post(f"{second.url}/v1/check", json=late, timeout=60).json()
        assert before["claims"][0]["status"] == "invalid"  # no such source yet
        ingest = subprocess.run([sys.executable, "-m", "graphcite", "ingest", str(docs), "--prefix", "late/",
                                 "--db", url], capture_output=True, text=True, timeout=300, cwd=ROOT)
        assert ingest.returncode == 0, ingest.stderr
        time.sleep(1.2)  # a server compares the evidence fingerprint at most once a second
        after = httpx.post(f"{second.url}/v1/check", json={**late, "answer_id": "late-2"}, timeout=60).json()
        assert after["claims"][0]["status"] == "supported", json.dumps(after["claims"][0])[:2000]
    finally:
        codes = [stop_server(first), stop_server(second)]
        assert all(code in (0, -signal.SIGTERM) for code in codes), codes
