"""Helpers of the service tests (imported by conftest.py and the tests): the hostile document, answers,
store copies and a real ``graphcite serve`` subprocess."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
ANSWERS = ROOT / "graphcite" / "examples" / "answers"
HOSTILE_DOC = """---
title: "Hostile note <script>document.title='PWNED-TITLE'</script>"
kind: note
---
# Hostile <img src=x onerror="document.title='PWNED-HEADING'">

The relay keeps <script>document.title='PWNED-SCRIPT'</script> hostile logs for 7 days <img src=x onerror="document.title='PWNED-IMG'"> and [a link](javascript:document.title='PWNED-LINK') with an override \u202etxt.exe\u202c here.
"""
HOSTILE_QUOTE = "The relay keeps <script>document.title='PWNED-SCRIPT'</script> hostile logs for 7 days"
HOSTILE_ANSWER = {"answer_id": "hostile-answer", "question": "<b>Is</b> this <script>bad()</script>?", "claims": [
    {"text": "The relay keeps hostile logs for 7 days <img src=x onerror=alert(1)>.",
     "citations": [{"source": "hostile/evil.md", "quote": HOSTILE_QUOTE}]}]}


def load_answer_json(name: str) -> dict[str, Any]:
    return json.loads((ANSWERS / name).read_text(encoding="utf-8"))


def copy_db(serve_db: Path, folder: Path, name: str = "copy.duckdb") -> Path:
    target = folder / name
    shutil.copy(serve_db, target)
    return target


def add_reviewers(db: Path, *names: str) -> dict[str, str]:
    """Reviewers added through the library (as `graphcite reviewers add` does); name -> token."""
    from graphcite.serve.reviewers import add_reviewer
    from graphcite.store import Store

    with Store(db) as store:
        return {name: add_reviewer(store, name)[1] for name in names}


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def serve_command() -> list[str]:
    """``graphcite serve`` when the main CLI has it, else the same command run as ``python -m graphcite.serve``."""
    from graphcite.cli import app

    names = {command.name for command in app.registered_commands}
    if "serve" in names:
        return [sys.executable, "-m", "graphcite", "serve"]
    return [sys.executable, "-m", "graphcite.serve"]


@dataclass
class LiveServer:
    """A running ``graphcite serve`` process and what it printed."""

    process: subprocess.Popen[str]
    url: str = ""
    stderr: list[str] = field(default_factory=list)
    tokens: dict[str, str] = field(default_factory=dict)  # reviewer name -> token, added before it started

    @property
    def host(self) -> str:
        return self.url.split("://", 1)[1].rsplit(":", 1)[0]

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])

    def log(self) -> str:
        return "".join(self.stderr)


def start_server(db: Path, *extra: str, timeout: float = 90, reviewers: tuple[str, ...] = ()) -> LiveServer:
    """Start ``graphcite serve --port 0`` and wait for its ready line and for /healthz to answer.

    ``reviewers`` are added to the store first; their tokens are in ``server.tokens``.
    """
    tokens = add_reviewers(db, *reviewers) if reviewers else {}
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen([*serve_command(), "--db", str(db), "--host", "127.0.0.1", "--port", "0", *extra],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    server = LiveServer(process, tokens=tokens)
    ready = threading.Event()

    def pump() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            server.stderr.append(line)
            found = re.search(r"listening on (http://\S+?) ", line)
            if found:
                server.url = found.group(1)
                ready.set()
        ready.set()

    threading.Thread(target=pump, daemon=True).start()
    if not ready.wait(timeout) or not server.url:
        process.kill()
        raise AssertionError(f"the server did not start: {server.log()[-3000:]}")
    deadline = time.monotonic() + timeout
    while True:
        try:
            if httpx.get(f"{server.url}/healthz", timeout=5).status_code == 200:
                return server
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline or process.poll() is not None:
            process.kill()
            raise AssertionError(f"the server never answered /healthz: {server.log()[-3000:]}")
        time.sleep(0.1)


def stop_server(server: LiveServer) -> int:
    server.process.terminate()
    try:
        return server.process.wait(20)
    except subprocess.TimeoutExpired:
        server.process.kill()
        return server.process.wait(5)
