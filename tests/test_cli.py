"""The CLI: every command has help and is in the README; user mistakes exit 2 with one line."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphcite.cli import app

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()


#: one claim citing the one sentence of the ``a.md`` the CLI tests ingest
CAPPED_ANSWER = {"answer_id": "x", "claims": [
    {"text": "Uploads are capped at 25 MB per file.",
     "citations": [{"source": "a.md", "quote": "Uploads are capped at 25 MB per file."}]}]}


def _commands() -> list[str]:
    import typer.main

    group = typer.main.get_command(app)
    return sorted(group.commands)  # type: ignore[attr-defined]


def test_every_command_has_help_and_is_in_the_readme() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for name in _commands():
        result = runner.invoke(app, [name, "--help"])
        assert result.exit_code == 0, name
        assert len(result.output.strip()) > 40, name
        assert f"graphcite {name}" in readme, f"`graphcite {name}` is not documented in README.md"


def test_python_dash_m_works() -> None:
    done = subprocess.run([sys.executable, "-m", "graphcite", "--help"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "ingest" in done.stdout


def test_ingest_sources_show_check_roundtrip(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Limits\n\nUploads are capped at 25 MB per file.\n", encoding="utf-8")
    db = str(tmp_path / "s.duckdb")
    result = runner.invoke(app, ["ingest", str(docs), "--db", db, "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["added"] == ["a.md"]
    listed = json.loads(runner.invoke(app, ["sources", "--db", db, "--json"]).output)
    assert listed[0]["key"] == "a.md" and listed[0]["values"] >= 1
    answer = tmp_path / "answer.json"
    answer.write_text(json.dumps(CAPPED_ANSWER))
    checked = runner.invoke(app, ["check", str(answer), "--db", db, "--json"])
    assert checked.exit_code == 0, checked.output
    report = json.loads(checked.output)
    assert report["claims"][0]["status"] == "supported"
    unit = report["claims"][0]["citations"][0]["unit_id"]
    shown = json.loads(runner.invoke(app, ["show", unit, "--db", db, "--json"]).output)
    assert shown["text"] == "Uploads are capped at 25 MB per file."
    human = runner.invoke(app, ["check", str(answer), "--db", db])
    assert "✔ supported" in human.output and "a.md" in human.output
    weak = tmp_path / "weak.json"
    weak.write_text(json.dumps({"answer_id": "y", "claims": [
        {"text": "Uploads are capped at 25 MB per file.", "citations": [{"source": "a.md", "quote": "25 MB"}]},
        {"text": "Downloads are unlimited.", "citations": [{"source": "a.md", "start": 10, "end": 5}]}]}))
    failing = runner.invoke(app, ["check", str(weak), "--db", db, "--fail-under", "1"])
    assert failing.exit_code == 1, failing.output


@pytest.mark.parametrize("args", [
    ["ingest", "/definitely/not/here"],
    ["show", "0000000000000000"],
    ["check", "/nope/answer.json"],
    ["rules", "explain", "GC999"],
    ["check", "x.json", "--audience", "everyone"],
])
def test_user_mistakes_exit_2_with_one_line(tmp_path: Path, args: list[str]) -> None:
    db = str(tmp_path / "e.duckdb")
    runner.invoke(app, ["ingest", str(ROOT / "README.md"), "--db", db, "--quiet"])
    result = runner.invoke(app, [*args, "--db", db] if args[0] != "rules" else args)
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.strip().splitlines() if line.strip()]
    assert len(lines) == 1 and re.match(r"error: E\d{3} \S", lines[0]), result.output
    assert "Traceback" not in result.output


# -- start-up: the read-only commands never import the language stack ------------------------------
#: Top-level packages a command that reads no sentence must not import (each costs 0.1-1 s at start).
LANGUAGE_PACKAGES = {"spacy", "thinc", "pint", "ray"}


def _imported(args: list[str]) -> set[str]:
    """Top-level packages a fresh ``python -m graphcite ARGS`` process imports (from ``-X importtime``)."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "graphcite", *args], capture_output=True,
                          text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stdout[-1000:] + done.stderr[-3000:]
    return {line.rsplit("|", 1)[1].strip().split(".")[0] for line in done.stderr.splitlines()
            if line.startswith("import time:") and "|" in line}


@pytest.fixture(scope="module")
def checked_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """(store path, claim id): one ingested document and one checked answer citing it."""
    root = tmp_path_factory.mktemp("startup")
    (root / "docs").mkdir()
    (root / "docs" / "a.md").write_text("# Limits\n\nUploads are capped at 25 MB per file.\n", encoding="utf-8")
    db = str(root / "s.duckdb")
    assert runner.invoke(app, ["ingest", str(root / "docs"), "--db", db]).exit_code == 0
    answer = root / "answer.json"
    answer.write_text(json.dumps(CAPPED_ANSWER))
    checked = runner.invoke(app, ["check", str(answer), "--db", db, "--json"])
    assert checked.exit_code == 0, checked.output
    return db, json.loads(checked.output)["claims"][0]["claim_id"]


@pytest.mark.parametrize("args", [["--help"], ["chain", "--help"], ["chain", "{claim}"], ["chain", "x", "--json"],
                                  ["audit", "independence", "{claim}"],
                                  ["export", "--format", "json", "--claim", "{claim}", "--out", "{out}"],
                                  ["sources"], ["sources", "--json"]])
def test_read_only_commands_start_without_the_language_stack(checked_db: tuple[str, str], tmp_path: Path,
                                                             args: list[str]) -> None:
    """``chain``, ``audit independence``, ``export`` and ``sources`` read stored rows only: spaCy, pint and Ray stay unloaded."""
    db, claim = checked_db
    args = [a.replace("{claim}", claim).replace("{out}", str(tmp_path / "g.json")) for a in args]
    imported = _imported(args if "--help" in args else [*args, "--db", db])
    assert "graphcite" in imported and not imported & LANGUAGE_PACKAGES, sorted(imported & LANGUAGE_PACKAGES)
