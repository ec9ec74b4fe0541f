"""E602 says what to do about a store another process holds (issue 23 item 16): a `graphcite serve` never
"finishes", so the message must not tell the user to wait for it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from graphcite.errors import CATALOGUE
from graphcite.store import Store

ROOT = Path(__file__).resolve().parents[1]


def test_the_catalogue_entry_says_what_to_do() -> None:
    fix = CATALOGUE["E602"].fix
    assert "finish" not in fix and "stop" in fix and "--db" in fix


def test_a_locked_store_gives_one_line_that_says_what_to_do(tmp_path: Path) -> None:
    db = tmp_path / "held.duckdb"
    with Store(db):  # this process holds DuckDB's write lock, as a running serve does
        env = {**os.environ, "GRAPHCITE_LOCK_WAIT": "0"}
        done = subprocess.run([sys.executable, "-m", "graphcite", "sources", "--db", str(db)], capture_output=True,
                              text=True, env=env, cwd=ROOT, timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and lines[0].startswith("error: E602"), done.stderr
    assert "finish" not in lines[0] and "stop" in lines[0], lines[0]
