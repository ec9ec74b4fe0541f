"""The HTTP service on a PostgreSQL store: checks, chains and reviewers' judgements through the API."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from graphcite.store import Store

ROOT = Path(__file__).resolve().parents[2]
ANSWERS = ROOT / "graphcite" / "examples" / "answers"


def test_service_checks_and_records_judgements_on_postgresql(new_pg_database: Callable[..., str]) -> None:
    from starlette.testclient import TestClient

    from graphcite.serve import ServiceSettings, create_app
    from graphcite.serve.reviewers import add_reviewer

    url = new_pg_database("gc_corpus")
    settings = ServiceSettings(db=url, max_body_bytes=1_000_000, max_stream_bytes=2_000_000, timeout=60)
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        with client.app.app.state.service.writer() as store:
            token = add_reviewer(store, "ana")[1]
        checked = client.post("/v1/check", json=json.loads((ANSWERS / "traps.json").read_text(encoding="utf-8")))
        assert checked.status_code == 200, checked.text
        claim = checked.json()["claims"][0]["claim_id"]
        chain = client.get(f"/v1/claims/{claim}/chain")
        assert chain.status_code == 200, chain.text
        posted = client.post("/v1/annotations", json={"claim_id": claim, "citation": 0, "label": "supports",
                                                      "rationale": "the runbook says so"},
                             headers={"Authorization": f"Bearer {token}"})
        assert posted.status_code == 201, posted.text
        listed = [a for a in client.get("/v1/annotations").json() if a["claim_id"] == claim]
        assert listed and listed[0]["judgements"][0]["reviewer"] == "ana"
    with Store(url, read_only=True) as store:
        assert store.scalar("SELECT count(*) FROM annotation") == 1
        assert store.scalar("SELECT count(*) FROM verification") == len(checked.json()["claims"])
