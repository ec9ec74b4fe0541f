"""Fixtures for the service tests: a store with the bundled corpus and one hostile document, an in-process
app (Starlette's TestClient) and a real ``graphcite serve`` subprocess on a free local port."""

from __future__ import annotations

import shutil
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from serve_support import (
    HOSTILE_ANSWER,
    HOSTILE_DOC,
    LiveServer,
    bearer,
    copy_db,
    load_answer_json,
    start_server,
    stop_server,
)

from graphcite.store import Store


@pytest.fixture(scope="session")
def chromium() -> str:
    """Debian's chromium (or another Chromium on PATH); the browser tests skip without one."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    pytest.skip("chromium is not installed (apt-get install chromium, or run .ci/browser-deps.sh)")


@pytest.fixture(scope="session")
def serve_db(corpus_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ingested example corpus plus ``hostile/evil.md`` (script tags, onerror, javascript: link, RTL)."""
    from graphcite.ingest import ingest

    root = tmp_path_factory.mktemp("serve-store")
    copy = root / "serve.duckdb"
    shutil.copy(corpus_db, copy)
    folder = root / "hostile"
    folder.mkdir()
    (folder / "evil.md").write_text(HOSTILE_DOC, encoding="utf-8")
    with Store(copy) as store:
        ingest(store, [folder], prefix="hostile/")
        assert store.scalar("SELECT count(*) FROM source WHERE key = 'hostile/evil.md'") == 1
    return copy


@pytest.fixture(scope="module")
def client(serve_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """An in-process app on a private copy of the store (startup and shutdown run, as in a server)."""
    from starlette.testclient import TestClient

    from graphcite.serve import ServiceSettings, create_app

    db = copy_db(serve_db, tmp_path_factory.mktemp("serve-client"))
    settings = ServiceSettings(db=db, max_body_bytes=1_000_000, max_stream_bytes=2_000_000, timeout=30)
    with TestClient(create_app(settings), raise_server_exceptions=False) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def tokens(client: Any) -> dict[str, dict[str, str]]:
    """Reviewers ana, ben and cy of the in-process app: name -> Authorization header (real tokens)."""
    from graphcite.serve.reviewers import add_reviewer

    with client.app.app.state.service.writer() as store:  # the Guard wraps the Starlette app
        return {name: bearer(add_reviewer(store, name)[1]) for name in ("ana", "ben", "cy")}


@pytest.fixture(scope="session")
def live(serve_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """``graphcite serve`` on 127.0.0.1 and a free port, on its own copy of the store (1 MB body limit)."""
    db = copy_db(serve_db, tmp_path_factory.mktemp("serve-live"), "live.duckdb")
    server = start_server(db, "--max-body-mb", "1", "--max-stream-mb", "2", "--timeout", "30",
                          reviewers=("dana", "eli", "kim", "lee", *(f"r{i}" for i in range(6))))
    yield server
    code = stop_server(server)
    assert code in (0, -signal.SIGTERM), server.log()[-3000:]  # uvicorn re-raises SIGTERM after shutting down
    assert "Traceback" not in server.log(), server.log()[-5000:]


@pytest.fixture(scope="session")
def live_checked(live: LiveServer) -> dict[str, Any]:
    """Reports of the clean, traps and hostile answers, checked through the live server."""
    reports = {}
    for name, body in (("clean", load_answer_json("clean.json")), ("traps", load_answer_json("traps.json")),
                       ("hostile", HOSTILE_ANSWER)):
        response = httpx.post(f"{live.url}/v1/check", json=body, timeout=60)
        assert response.status_code == 200, response.text
        reports[name] = response.json()
    return reports
