"""The graph commands on both engines: the same store content gives byte-identical output.

The lineage store is built once in DuckDB and copied row for row into a fresh PostgreSQL database,
so every read path (the lineage table, latest records, conflicts, exports) is compared on equal data.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from graphcite.cli.graph import register
from graphcite.store import Store

runner = CliRunner()


@pytest.fixture(scope="module")
def app() -> typer.Typer:
    app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None)

    @app.callback()
    def main() -> None:
        """graphcite (test app)"""

    register(app)
    return app


def _both(app: typer.Typer, args: list[str], duck: Path, url: str) -> tuple[str, str]:
    outputs = []
    for db in (str(duck), url):
        result = runner.invoke(app, [*args, "--db", db])
        assert result.exit_code == 0, result.output
        outputs.append(result.output)
    return outputs[0], outputs[1]


@pytest.mark.parametrize("args", [["chain", "{claim}"], ["chain", "{claim}", "--json"], ["chain", "lineage-demo"],
                                  ["chain", "lineage-demo", "--json", "--audience", "public"],
                                  ["audit", "independence", "{claim}", "--json"],
                                  ["audit", "independence", "lineage-demo"],
                                  ["audit", "conflicts", "--json"]])
def test_graph_commands_are_identical_on_both_engines(app: typer.Typer, lineage_db: tuple[Path, dict[str, Any]],
                                                      pg_lineage: str, args: list[str]) -> None:
    claim = lineage_db[1]["claims"][0]["claim_id"]
    duck, pg = _both(app, [a.replace("{claim}", claim) for a in args], lineage_db[0], pg_lineage)
    assert duck == pg
    assert len(duck) > 40


@pytest.mark.parametrize("fmt", ["json", "graphml", "cytoscape", "webanno"])
def test_exports_are_identical_on_both_engines(app: typer.Typer, lineage_db: tuple[Path, dict[str, Any]],
                                               pg_lineage: str, tmp_path: Path, fmt: str) -> None:
    written = []
    for name, db in (("duck", str(lineage_db[0])), ("pg", pg_lineage)):
        target = tmp_path / f"{name}.{fmt}"
        result = runner.invoke(app, ["export", "--format", fmt, "--answer", "lineage-demo", "--db", db, "--out",
                                     str(target)])
        assert result.exit_code == 0, result.output
        written.append(target.read_bytes())
    assert written[0] == written[1] and len(written[0]) > 100


def test_parquet_export_holds_the_same_rows(app: typer.Typer, lineage_db: tuple[Path, dict[str, Any]],
                                            pg_lineage: str, tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    tables = []
    for name, db in (("duck", str(lineage_db[0])), ("pg", pg_lineage)):
        target = tmp_path / name
        result = runner.invoke(app, ["export", "--format", "parquet", "--answer", "lineage-demo", "--db", db,
                                     "--out", str(target)])
        assert result.exit_code == 0, result.output
        tables.append({p.name: pq.read_table(p) for p in sorted(target.glob("*.parquet"))})
    assert tables[0].keys() == tables[1].keys() and tables[0]
    for name, table in tables[0].items():
        assert table.equals(tables[1][name]), name


def test_lineage_is_followed_through_cycles_on_postgresql(pg_lineage: str, lineage_db: tuple[Path, dict[str, Any]]
                                                         ) -> None:
    from graphcite.graph import chain

    with Store(pg_lineage, read_only=True) as store, Store(lineage_db[0], read_only=True) as duck:
        got = chain(store, "lineage-demo")
        assert json.dumps(got, sort_keys=True, default=str) == json.dumps(chain(duck, "lineage-demo"), sort_keys=True,
                                                                          default=str)
