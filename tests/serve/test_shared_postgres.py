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


def _children(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def test_several_processes_serve_one_port_on_postgres(new_pg_database: Callable[..., str]) -> None:
    url = new_pg_database("gc_corpus")
    server = start_server(url, "--workers", "2", reviewers=("ana",))  # type: ignore[arg-type]
    try:
        assert "2 processes" in server.log()
        assert len(_children(server.process.pid)) >= 2
        answer = load_answer_json("clean.json")
        statuses = set()
        with httpx.Client(timeout=60) as client:
            for i in range(6):  # new connections each time: the kernel spreads them over the processes
                report = httpx.post(f"{server.url}/v1/check", json={**answer, "answer_id": f"multi-{i}"},
                                    timeout=60).json()
                statuses.add(tuple(c["status"] for c in report["claims"]))
            assert len(statuses) == 1  # every process gives the same verdicts
            listed = client.get(f"{server.url}/v1/answers").json()
        assert {f"multi-{i}" for i in range(6)} <= {a["answer_id"] for a in listed}
    finally:
        assert stop_server(server) in (0, -signal.SIGTERM)
    assert not _children(server.process.pid)
