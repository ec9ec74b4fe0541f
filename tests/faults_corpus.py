"""A two-file corpus (one public, one restricted source) and helpers for the CLI fault tests.

Used by tests/test_cli_faults.py, tests/test_fuzz_cli.py and tests/test_kill_check.py: build the
store once, copy it per test, run the real CLI in-process and read its one ``error:`` line.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from graphcite.cli import app

__all__ = ["GOOD_CLAIM", "POLICY", "SECRET", "build_store", "digest", "error_lines", "good_answer", "invoke",
           "no_traceback"]

POLICY = ("# Retry policy\n\nThe dispatcher retries a failed job three times before it gives up.\n\n"
          "Uploads are capped at 25 MB per file.\n")
SECRET = "---\nvisibility: restricted\n---\n# Internal limits\n\nThe hidden quota is 940 requests per minute.\n"
GOOD_CLAIM = "The dispatcher retries a failed job three times before it gives up."
ERROR_LINE = re.compile(r"^error: E\d{3} \S")

runner = CliRunner()


def build_store(folder: Path) -> Path:
    """Write the two documents under ``folder/docs`` and ingest them into ``folder/s.duckdb``."""
    from graphcite.ingest import ingest
    from graphcite.store import Store

    docs = folder / "docs"
    docs.mkdir(parents=True, exist_ok=True)
    (docs / "policy.md").write_text(POLICY, encoding="utf-8")
    (docs / "secret.md").write_text(SECRET, encoding="utf-8")
    db = folder / "s.duckdb"
    with Store(db) as store:
        ingest(store, [docs])
    return db


def good_answer(answer_id: str = "demo-clean", **extra: Any) -> dict[str, Any]:
    """A native answer whose one claim the corpus supports verbatim."""
    return {"answer_id": answer_id, "claims": [{"text": GOOD_CLAIM, "citations": [
        {"source": "policy.md", "quote": GOOD_CLAIM}]}], **extra}


def digest(path: Path) -> str:
    """SHA-256 of a file's bytes (the store must be byte-for-byte unchanged after a refused input)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def invoke(args: list[str], *, input: str | bytes | None = None) -> Any:
    """Run the real CLI in-process."""
    return runner.invoke(app, args, input=input)


def error_lines(result: Any) -> list[str]:
    """The lines of a result's output that start with ``error:``."""
    return [line for line in result.output.splitlines() if line.startswith("error:")]


def no_traceback(result: Any) -> bool:
    """True when the command neither printed a traceback nor raised out of the CLI."""
    raised = result.exception is not None and not isinstance(result.exception, SystemExit)
    return not raised and "Traceback" not in result.output
