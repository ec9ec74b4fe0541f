"""Commands with ``--db postgresql://...`` (and $GRAPHCITE_DB): the same output as on DuckDB."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphcite.cli import app

ROOT = Path(__file__).resolve().parents[2]
ANSWERS = ROOT / "graphcite" / "examples" / "answers"
runner = CliRunner()


@pytest.mark.parametrize("args", [["sources"], ["claims", "demo-clean"], ["answers"], ["stale"],
                                  ["chain", "demo-clean"], ["audit", "independence", "demo-clean"]])
def test_commands_print_the_same_on_both_engines(args: list[str], corpus_db: Path, tmp_path: Path,
                                                 new_pg_database: Callable[..., str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    duck = tmp_path / "c.duckdb"
    shutil.copy(corpus_db, duck)
    outputs = []
    for db in (str(duck), new_pg_database("gc_corpus")):
        monkeypatch.setenv("GRAPHCITE_DB", db)
        stored = runner.invoke(app, ["add-answer", str(ANSWERS / "clean.json")])
        assert stored.exit_code == 0, stored.output
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
        outputs.append(result.output)
    assert outputs[0] == outputs[1] and outputs[0].strip()
