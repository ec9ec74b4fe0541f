"""The chain, audit and export commands through typer: output, --json, help text, exit codes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from graphcite.cli.graph import register, render_chain


@pytest.fixture(scope="module")
def app() -> typer.Typer:
    app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None)

    @app.callback()
    def main() -> None:
        """graphcite (test app)"""

    register(app)
    return app


@pytest.fixture(scope="module")
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def db(lineage_db: tuple[Path, dict[str, Any]], lineage_store: Any) -> str:
    return str(lineage_db[0])


def test_every_command_has_help(app: typer.Typer, runner: CliRunner) -> None:
    for args in (["chain"], ["audit"], ["audit", "independence"], ["audit", "conflicts"], ["export"]):
        result = runner.invoke(app, [*args, "--help"])
        assert result.exit_code == 0, result.output
        assert "Usage" in result.output and len(result.output.splitlines()) > 3


def test_chain_tree_and_json(app: typer.Typer, runner: CliRunner, db: str, report: dict[str, Any]) -> None:
    cid = report["claims"][0]["claim_id"]
    result = runner.invoke(app, ["chain", cid, "--db", db])
    assert result.exit_code == 0, result.output
    assert "✔ supported" in result.output and "derived_from → source decisions/dr-100.md" in result.output
    as_json = runner.invoke(app, ["chain", cid, "--db", db, "--json"])
    assert json.loads(as_json.stdout)["citations"][0]["primary_authorities"] == ["decisions/dr-100.md"]
    answer = runner.invoke(app, ["chain", "lineage-demo", "--db", db])
    assert answer.exit_code == 0 and answer.output.count("lineage cycle: notes/a.md ↔ notes/b.md") == 1


def test_point_reads_open_duckdb_with_one_thread(app: typer.Typer, runner: CliRunner, report: dict[str, Any],
                                                lineage_db: tuple[Path, dict[str, Any]], tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    import duckdb

    import graphcite.store as store_module

    db = str(tmp_path / "own.duckdb")  # DuckDB's threads setting belongs to the open database: a file of our own
    shutil.copy(lineage_db[0], db)
    opened: list[int] = []
    real = store_module.open_store

    def recording(*args: Any, **kwargs: Any) -> Any:  # the real store, its thread setting noted
        store = real(*args, **kwargs)
        opened.append(int(store.scalar("SELECT current_setting('threads')")))
        return store

    monkeypatch.setattr(store_module, "open_store", recording)
    cid = report["claims"][0]["claim_id"]
    for command in (["chain", cid], ["audit", "independence", cid], ["audit", "independence", "--all"]):
        assert runner.invoke(app, [*command, "--db", db, "--json"]).exit_code == 0
    default = duckdb.connect().execute("SELECT current_setting('threads')").fetchone()[0]
    assert opened == [1, 1, default]  # a whole-store audit keeps DuckDB's worker pool


def test_chain_prints_markup_literally(lineage_store: Any, report: dict[str, Any]) -> None:
    from rich.console import Console

    from graphcite.graph import chain

    tree = chain(lineage_store, report["claims"][6]["claim_id"])
    tree["citations"][0]["quote"] = "[bold red]not markup[/bold red] <script>x</script>"
    console = Console(record=True, width=300)
    console.print(render_chain(tree))
    text = console.export_text()
    assert "[bold red]not markup[/bold red] <script>x</script>" in text
    assert "notes/hostile.md" in text


def test_audit_independence(app: typer.Typer, runner: CliRunner, db: str) -> None:
    result = runner.invoke(app, ["audit", "independence", "lineage-demo", "--db", db, "--json"])
    assert result.exit_code == 0
    rows = json.loads(result.stdout)
    assert rows[0]["summary"].startswith("3 attestations, 1 authority")
    table = runner.invoke(app, ["audit", "independence", "--all", "--db", db])
    assert table.exit_code == 0 and "NOT" in table.output and "independent" in table.output


def test_audit_conflicts(app: typer.Typer, runner: CliRunner, db: str) -> None:
    result = runner.invoke(app, ["audit", "conflicts", "--db", db, "--json", "--audience", "public"])
    assert result.exit_code == 0
    assert [(p["a"]["source"], p["b"]["source"]) for p in json.loads(result.stdout)] == [
        ("decisions/dr-100.md", "manuals/ops.md")]


def test_export_command(app: typer.Typer, runner: CliRunner, db: str, tmp_path: Path) -> None:
    out = tmp_path / "g.json"
    result = runner.invoke(app, ["export", "--answer", "lineage-demo", "--format", "json", "--out", str(out),
                                 "--db", db])
    assert result.exit_code == 0, result.output
    assert "wrote json (internal audience)" in result.output and out.exists()


@pytest.mark.parametrize("args, message", [
    (["chain", "nope"], "no claim or answer 'nope'"),
    (["audit", "independence"], "give a claim or answer id, or --all"),
    (["chain", "lineage-demo", "--audience", "everyone"], "unknown audience"),
    (["export", "--answer", "lineage-demo", "--format", "json", "--out", "/no/such/folder/g.json"],
     "folder does not exist"),
    (["export", "--answer", "lineage-demo", "--format", "pdf", "--out", "g.pdf"], "unknown format 'pdf'"),
    (["export", "--format", "json", "--out", "g.json"], "choose exactly one of --claim, --answer or --all"),
    (["export", "--claim", "lineage-demo", "--format", "json", "--out", "g.json"], "no claim 'lineage-demo'"),
])
def test_bad_input_exits_2(app: typer.Typer, runner: CliRunner, db: str, args: list[str], message: str) -> None:
    result = runner.invoke(app, [*args, "--db", db])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output


def test_audit_conflicts_warns_about_supersession_cycles(tmp_path) -> None:
    from typer.testing import CliRunner

    from graphcite.cli import app

    (tmp_path / "a.md").write_text("---\nsupersedes: b.md\n---\n# A\n\nThe fee is 5 euros.\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("---\nsupersedes: a.md\n---\n# B\n\nThe fee is 7 euros.\n", encoding="utf-8")
    db = str(tmp_path / "c.duckdb")
    runner = CliRunner()
    assert runner.invoke(app, ["ingest", str(tmp_path / "a.md"), str(tmp_path / "b.md"), "--db", db]).exit_code == 0
    result = runner.invoke(app, ["audit", "conflicts", "--db", db])
    assert result.exit_code == 0
    assert "supersession cycle" in result.output and "neither side is superseded" in result.output
